/* diff: what moved between two result trees (`ccb diff A B`, `ccb gate --baseline`;
 * docs/cases.md §15). A and B are outputs of `ccb gate`, `ccb study` or `ccb reproduce` (or a baseline saved by
 * `ccb gate --save-baseline`). Every CSV file of A is paired with the file of the same path in
 * B and compared by its kind:
 *
 *   CASE/gates.csv       per gate, the result (a changed verdict is listed first) and the
 *                        measured value of its metric;
 *   run files            trajectory.csv, steps.csv and physics.csv of a run directory (one with
 *                        meta.json): per column (observable), the largest difference over the
 *                        rows both have and the time of the first difference beyond round-off;
 *   study tables         every other CSV: cell by cell, columns by name, rows by their leading
 *                        text cells and the occurrence of that label (by position without one).
 *
 * Wall times are not compared (times.csv, and every column whose name contains "wall"); the
 * perturbed trees of `ccb gate --sensitivity` (ROOT/sensitivity/) and CASE/sensitivity.csv are
 * not compared either: they are where the round-off spreads come from.
 *
 * Significance. A value that moved by |b - a| is significant when
 *     |b - a| > nsigma * s            where its round-off spread s is known,
 *     |b - a| > max(rtol * max(|a|, |b|), atol)   otherwise,
 * s being the largest change of the value under the round-off-equivalent perturbations of
 * `ccb gate --sensitivity` (the gate's spread in CASE/sensitivity.csv; for a table cell or a
 * trajectory column, its largest difference between ROOT/sensitivity/<p>/FILE and FILE), taken
 * over both trees. Defaults: nsigma = 3 (the sensitivity command's own fragility factor), rtol =
 * 1e-6, atol = 1e-12. A text cell that changed, a verdict that changed, rows or columns that
 * appeared or disappeared, and a file present on one side only are always significant (except
 * the run files a baseline saved without trajectories does not hold). */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "study.h"

/* ---- CSV files --------------------------------------------------------------------------- */

/* A CSV file in memory: row r's cells are cell[row0[r] .. row0[r] + ncell[r]); row 0 is the
 * header. Cells point into buf (quotes removed in place). */
typedef struct csv_file {
    char* buf;
    char** cell;
    long* row0;
    int* ncell;
    long nrow, ncap, ccap, ntot;
} csv_file;

static void csv_free(csv_file* f) {
    free(f->buf);
    free(f->cell);
    free(f->row0);
    free(f->ncell);
    memset(f, 0, sizeof *f);
}

static int csv_push_cell(csv_file* f, char* c) {
    if (f->ntot == f->ccap) {
        const long cap = f->ccap ? 2 * f->ccap : 1024;
        char** p = realloc(f->cell, (size_t)cap * sizeof *p);
        if (p == NULL) {
            return -1;
        }
        f->cell = p;
        f->ccap = cap;
    }
    f->cell[f->ntot++] = c;
    f->ncell[f->nrow - 1]++;
    return 0;
}

static int csv_push_row(csv_file* f) {
    if (f->nrow == f->ncap) {
        const long cap = f->ncap ? 2 * f->ncap : 256;
        long* r = realloc(f->row0, (size_t)cap * sizeof *r);
        if (r == NULL) {
            return -1;
        }
        f->row0 = r;
        int* n = realloc(f->ncell, (size_t)cap * sizeof *n);
        if (n == NULL) {
            return -1;
        }
        f->ncell = n;
        f->ncap = cap;
    }
    f->row0[f->nrow] = f->ntot;
    f->ncell[f->nrow++] = 0;
    return 0;
}

/* Splits the text buf (NUL-terminated; f owns it from here on) into f's rows and cells. 0, or
 * -1 when out of memory (f freed). */
static int csv_parse(char* buf, csv_file* f) {
    memset(f, 0, sizeof *f);
    f->buf = buf;
    const size_t got = strlen(f->buf);
    char* p = f->buf;
    char* end = f->buf + got;
    while (p < end) {
        if (csv_push_row(f) != 0) {
            goto oom;
        }
        for (;;) { /* one cell */
            char* w = p;
            char* c = p;
            if (*p == '"') {
                ++p;
                while (p < end && !(*p == '"' && p[1] != '"')) {
                    if (*p == '"') {
                        ++p; /* "" inside quotes */
                    }
                    *w++ = *p++;
                }
                p += p < end; /* the closing quote */
                while (p < end && *p != ',' && *p != '\n') {
                    *w++ = *p++; /* text after the quotes (not written by ccb) */
                }
            } else {
                while (p < end && *p != ',' && *p != '\n') {
                    *w++ = *p++;
                }
                if (w > c && w[-1] == '\r') {
                    --w;
                }
            }
            const char sep = p < end ? *p : '\n';
            *w = '\0';
            if (csv_push_cell(f, c) != 0) {
                goto oom;
            }
            p += p < end;
            if (sep == '\n') {
                break;
            }
        }
    }
    return 0;
oom:
    csv_free(f);
    return -1;
}

/* Reads and splits path. 0, or -1 with a message. */
static int csv_read(const char* path, csv_file* f, char* msg, size_t n) {
    memset(f, 0, sizeof *f);
    char* buf = read_regular_text(path, (size_t)LONG_MAX, 1, msg, n);
    if (buf == NULL) {
        return -1;
    }
    if (csv_parse(buf, f) != 0) {
        snprintf(msg, n, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

static const char* csv_at(const csv_file* f, long r, int c) {
    return r < f->nrow && c < f->ncell[r] ? f->cell[f->row0[r] + c] : "";
}

/* The column of f named name, or -1. */
static int csv_col(const csv_file* f, const char* name) {
    for (int c = 0; f->nrow > 0 && c < f->ncell[0]; ++c) {
        if (strcmp(csv_at(f, 0, c), name) == 0) {
            return c;
        }
    }
    return -1;
}

/* For each column of a's header, the column of b with the same name and the same occurrence
 * of that name (a's second "x" is b's second "x"), or -1: both headers sorted by (name, column)
 * and merged, O(w log w) for files of any width (a file of 10,000 columns has 10^8 name pairs),
 * and the same pairs for diff B A. NULL when out of memory. */
/* A key (a column's name, a row's label) and its index; sorted by (key, index), two such lists
 * pair the k-th entry of a key in one with its k-th in the other (pair_sorted). */
typedef struct keyed {
    const char* key;
    long idx;
} keyed;

static int cmp_keyed(const void* x, const void* y) {
    const keyed *p = x, *q = y;
    const int c = strcmp(p->key, q->key);
    return c ? c : (p->idx > q->idx) - (p->idx < q->idx);
}

/* m[a[i].idx] = b[j].idx for the pairs of equal keys of the sorted lists a and b. */
static void pair_sorted(const keyed* a, long na, const keyed* b, long nb, long* m) {
    for (long i = 0, j = 0; i < na && j < nb;) {
        const int c = strcmp(a[i].key, b[j].key);
        if (c == 0) {
            m[a[i++].idx] = b[j++].idx;
        } else {
            c < 0 ? ++i : ++j;
        }
    }
}

static keyed* sorted_header(const csv_file* f, int w) {
    keyed* s = malloc((size_t)(w > 0 ? w : 1) * sizeof *s);
    for (int c = 0; s && c < w; ++c) {
        s[c].key = csv_at(f, 0, c);
        s[c].idx = c;
    }
    if (s && w > 0) {
        qsort(s, (size_t)w, sizeof *s, cmp_keyed);
    }
    return s;
}

static int* col_map(const csv_file* a, const csv_file* b) {
    const int wa = a->nrow ? a->ncell[0] : 0, wb = b->nrow ? b->ncell[0] : 0;
    int* m = malloc((size_t)(wa > 0 ? wa : 1) * sizeof *m);
    long* lm = malloc((size_t)(wa > 0 ? wa : 1) * sizeof *lm);
    keyed* sa = sorted_header(a, wa);
    keyed* sb = sorted_header(b, wb);
    if (m == NULL || lm == NULL || sa == NULL || sb == NULL) {
        free(m);
        free(lm);
        free(sa);
        free(sb);
        return NULL;
    }
    for (int c = 0; c < wa; ++c) {
        lm[c] = -1;
    }
    pair_sorted(sa, wa, sb, wb, lm);
    for (int c = 0; c < wa; ++c) {
        m[c] = (int)lm[c];
    }
    free(lm);
    free(sa);
    free(sb);
    return m;
}

/* A cell as a number: 1 (a number, NaN and inf included), 0 (empty: no value), -1 (text). */
static int cell_num(const char* s, double* x) {
    while (*s == ' ') {
        ++s;
    }
    if (*s == '\0') {
        *x = NAN;
        return 0;
    }
    char* e;
    errno = 0;
    *x = strtod(s, &e);
    while (*e == ' ') {
        ++e;
    }
    return e != s && *e == '\0' ? 1 : -1;
}

/* ---- the differences --------------------------------------------------------------------- */

enum { D_VERDICT, D_GATE, D_TABLE, D_TRAJ, D_FILE };
static const char* const k_kind[] = {"verdict", "gate", "table", "trajectory", "file"};

/* A difference. Its texts live in diff_state.text, whole (no length limit: a path, a gate id, a
 * row label or a column name of any length is reported as it is); a row holds their offsets
 * there, 0 being the empty text. */
typedef struct diff_row {
    int kind;
    size_t file;                          /* relative path */
    size_t item;                          /* gate id, row label, observable */
    size_t column;                        /* metric or column */
    size_t a, b;                          /* the values or texts before and after */
    double delta, rel, spread, threshold; /* NAN where it does not apply */
    int significant;
    size_t note;
} diff_row;

typedef struct diff_state {
    const char *a, *b;
    const suite_diff_opts* o;
    diff_row* rows;
    long n, cap;
    int baseline_a, baseline_b; /* the tree is a baseline without run files */
    char pert_a[SUITE_NPERTURB][64], pert_b[SUITE_NPERTURB][64];
    int npa, npb;
    /* per tree and perturbation: the nominal files as that perturbation's run saw them */
    struct digests* dg[2][SUITE_NPERTURB];
    char** moved; /* files with a significant numeric change, for the figures */
    int nmoved, capmoved;
    strbuf text; /* the rows' texts, each ended by its NUL; starts with the empty text */
    /* per tree: the digest of the file last asked about (a file's spreads ask once per
     * perturbation and gate) */
    char* dg_rel[2];
    unsigned long long dg_h[2];
    int dg_ok[2];
    int failed; /* out of memory */
} diff_state;

/* Appends a text to s->text; its offset (0, the empty text, when out of memory). The text is
 * formatted apart first: an argument may be a text of s->text, which appending can move. */
static size_t text_vadd(diff_state* s, const char* fmt, va_list ap) {
    strbuf t = {0};
    strbuf_vprintf(&t, fmt, ap);
    const size_t at = s->text.n;
    if (!t.failed) {
        strbuf_printf(&s->text, "%s", t.s ? t.s : "");
    }
    free(t.s);
    if (t.failed || s->text.failed) {
        s->failed = 1;
        return 0;
    }
    s->text.n++; /* keep the NUL strbuf wrote (within its capacity) */
    return at;
}

static size_t text_add(diff_state* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t text_add(diff_state* s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const size_t at = text_vadd(s, fmt, ap);
    va_end(ap);
    return at;
}

static const char* txt(const diff_state* s, size_t at) {
    return s->text.s + at;
}

static void state_init(diff_state* s, const char* a, const char* b, const suite_diff_opts* o) {
    memset(s, 0, sizeof *s);
    s->a = a;
    s->b = b;
    s->o = o;
    (void)text_add(s, "%s", ""); /* offset 0: the empty text */
}

static void digests_free(struct digests* d);

static void state_free(diff_state* s) {
    for (int k = 0; k < s->nmoved; ++k) {
        free(s->moved[k]);
    }
    free(s->moved);
    free(s->rows);
    free(s->text.s);
    for (int t = 0; t < 2; ++t) {
        free(s->dg_rel[t]);
        for (int p = 0; p < SUITE_NPERTURB; ++p) {
            digests_free(s->dg[t][p]);
        }
    }
    memset(s, 0, sizeof *s);
}

static void blank_row(diff_row* r) {
    memset(r, 0, sizeof *r);
    r->delta = r->rel = r->spread = r->threshold = NAN;
}

static diff_row* add_row(diff_state* s, int kind, const char* file) {
    if (s->n == s->cap) {
        const long cap = s->cap ? 2 * s->cap : 256;
        diff_row* r = realloc(s->rows, (size_t)cap * sizeof *r);
        if (r == NULL) {
            s->failed = 1;
            return NULL;
        }
        s->rows = r;
        s->cap = cap;
    }
    diff_row* r = &s->rows[s->n++];
    blank_row(r);
    r->kind = kind;
    r->file = text_add(s, "%s", file);
    return r;
}

/* A value as the report shows it (kind: cell_num's). */
static size_t fmt_num(diff_state* s, double x, int kind) {
    return kind < 0 ? text_add(s, "(empty)") : text_add(s, "%.10g", x);
}

/* The threshold of a value whose spread is s (NAN: unknown) and scale |a|, |b|. */
static double threshold(const suite_diff_opts* o, double s, double a, double b) {
    if (isfinite(s)) {
        return o->nsigma * s;
    }
    const double scale = fmax(isfinite(a) ? fabs(a) : 0, isfinite(b) ? fabs(b) : 0);
    return fmax(o->rtol * scale, o->atol);
}

/* Compares two numbers (ka, kb: cell_num's kinds); 0 if identical (bitwise, or both empty, or
 * both NaN), else fills r's values and significance. */
static int compare_values(diff_state* st, double a, int ka, double b, int kb, double s,
                          diff_row* r) {
    if (ka == kb && (ka == 0 || (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0 ||
                     (a == b && a != 0))) {
        return 0;
    }
    if (ka == 1 && kb == 1 && a == b) {
        return 0; /* +0 and -0 */
    }
    r->a = fmt_num(st, a, ka == 1 ? 0 : -1);
    r->b = fmt_num(st, b, kb == 1 ? 0 : -1);
    r->spread = s;
    if (ka != 1 || kb != 1 || !isfinite(a) || !isfinite(b)) {
        r->significant = 1; /* a value appeared, disappeared or is not finite on one side */
        r->note = text_add(st, "%s", ka != 1 || kb != 1 ? "value on one side only" : "not finite");
        return 1;
    }
    r->delta = fabs(b - a);
    r->rel = r->delta / fmax(fabs(a), fabs(b));
    r->threshold = threshold(st->o, s, a, b);
    r->significant = r->delta > r->threshold;
    return 1;
}

/* ---- the round-off spreads ----------------------------------------------------------------- */

/* Spreads belong to the results they were measured beside. A sensitivity run records, in each
 * perturbation's tree ROOT/sensitivity/P/CASE.nominal.csv, a digest (FNV-1a, 64 bits) of every
 * table and run file of ROOT/CASE at that time (suite_sensitivity_bind); a perturbed copy gives a
 * spread for a file only while the file is still the one it was compared with. A later run into
 * the same ROOT without --sensitivity (or with fewer perturbations) rewrites the results and
 * leaves the perturbed trees: their differences to the new results are not round-off and are not
 * used (issue 44, H6). */
typedef struct digest {
    char* rel;
    unsigned long long h;
} digest;
typedef struct digests {
    digest* d;
    long n, cap;
} digests;

static unsigned long long fnv1a(const char* p, size_t n) {
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    }
    return h;
}

/* The digest of a file, 0 with *ok = 0 if it cannot be read. */
static unsigned long long file_digest(const char* path, int* ok) {
    char msg[PATH_MAX + 64];
    char* text = read_regular_text(path, (size_t)LONG_MAX, 1, msg, sizeof msg);
    *ok = text != NULL;
    const unsigned long long h = *ok ? fnv1a(text, strlen(text)) : 0;
    free(text);
    return h;
}

static int cmp_digest(const void* x, const void* y) {
    return strcmp(((const digest*)x)->rel, ((const digest*)y)->rel);
}

static void digests_free(digests* d) {
    if (d == NULL) {
        return;
    }
    for (long i = 0; i < d->n; ++i) {
        free(d->d[i].rel);
    }
    free(d->d);
    free(d);
}

/* Every DIR/CASE.nominal.csv, sorted by file; NULL when out of memory. */
static digests* load_digests(const char* dir) {
    digests* d = calloc(1, sizeof *d);
    DIR* dd = d ? opendir(dir) : NULL;
    for (struct dirent* e; dd && (e = readdir(dd)) != NULL;) {
        const size_t n = strlen(e->d_name);
        if (n <= 12 || strcmp(e->d_name + n - 12, ".nominal.csv") != 0) {
            continue;
        }
        char path[2 * PATH_MAX], msg[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        csv_file f;
        if (csv_read(path, &f, msg, sizeof msg) != 0) {
            continue;
        }
        const int cf = csv_col(&f, "file"), ch = csv_col(&f, "fnv1a64");
        for (long r = 1; cf >= 0 && ch >= 0 && r < f.nrow; ++r) {
            char* end = NULL;
            const unsigned long long h = strtoull(csv_at(&f, r, ch), &end, 16);
            if (end == csv_at(&f, r, ch) || *end != '\0') {
                continue;
            }
            if (d->n == d->cap) {
                const long cap = d->cap ? 2 * d->cap : 64;
                digest* m = realloc(d->d, (size_t)cap * sizeof *m);
                if (m == NULL) {
                    break;
                }
                d->d = m;
                d->cap = cap;
            }
            if ((d->d[d->n].rel = strdup(csv_at(&f, r, cf))) != NULL) {
                d->d[d->n++].h = h;
            }
        }
        csv_free(&f);
    }
    if (dd) {
        closedir(dd);
    }
    if (d && d->n > 0) {
        qsort(d->d, (size_t)d->n, sizeof *d->d, cmp_digest);
    }
    return d;
}

/* 1 if tree t's file rel is the file its perturbation p's sensitivity run saw. The file's own
 * digest is computed once per file and tree (the last one asked about is kept). */
static int digest_matches(diff_state* s, int t, int p, const char* rel) {
    const digests* d = s->dg[t][p];
    if (d == NULL || d->n == 0) {
        return 0;
    }
    const digest key = {(char*)rel, 0};
    const digest* e = bsearch(&key, d->d, (size_t)d->n, sizeof *d->d, cmp_digest);
    if (e == NULL) {
        return 0;
    }
    if (s->dg_rel[t] == NULL || strcmp(s->dg_rel[t], rel) != 0) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", t ? s->b : s->a, rel);
        free(s->dg_rel[t]);
        s->dg_rel[t] = strdup(rel);
        if (s->dg_rel[t] == NULL) {
            s->failed = 1;
            return 0;
        }
        s->dg_h[t] = file_digest(path, &s->dg_ok[t]);
    }
    return s->dg_ok[t] && s->dg_h[t] == e->h;
}

/* The perturbation directories of ROOT/sensitivity/. */
static int list_perturbations(const char* root, char names[][64], int max) {
    int n = 0;
    for (int p = 0; p < SUITE_NPERTURB && n < max; ++p) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/sensitivity/%s", root, suite_perturbation_name(p));
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(names[n++], 64, "%s", suite_perturbation_name(p));
        }
    }
    return n;
}

/* The round-off spread of a file's values: max over the perturbed copies of each tree
 * (ROOT/sensitivity/<p>/rel) of |x_p - x| against that tree's own file, columns matched by the
 * names of A's. Per cell (per_row: spread[r * w + c]) or per column (spread[c], the largest over
 * the rows). Entries no copy has stay NAN. */
static void file_spread(diff_state* s, const char* rel, const csv_file* a, const csv_file* b,
                        double* spread, int w, int per_row) {
    for (int t = 0; t < 2; ++t) {
        const csv_file* nom = t ? b : a;
        for (int p = 0; p < (t ? s->npb : s->npa); ++p) {
            if (!digest_matches(s, t, p, rel)) {
                continue; /* measured beside other results */
            }
            char path[PATH_MAX + 320], msg[256];
            snprintf(path, sizeof path, "%s/sensitivity/%s/%s", t ? s->b : s->a,
                     t ? s->pert_b[p] : s->pert_a[p], rel);
            csv_file f;
            struct stat st;
            if (stat(path, &st) != 0 || csv_read(path, &f, msg, sizeof msg) != 0) {
                continue;
            }
            int* mf = col_map(a, &f);
            int* mn = col_map(a, nom);
            for (int c = 0; mf && mn && a->nrow > 0 && c < a->ncell[0] && c < w; ++c) {
                const int fc = mf[c];
                const int nc = mn[c];
                for (long r = 1; fc >= 0 && nc >= 0 && r < f.nrow && r < nom->nrow; ++r) {
                    double x, y;
                    if (cell_num(csv_at(nom, r, nc), &x) == 1 &&
                        cell_num(csv_at(&f, r, fc), &y) == 1 && isfinite(x) && isfinite(y)) {
                        double* e = &spread[per_row ? r * w + c : c];
                        *e = isfinite(*e) ? fmax(*e, fabs(y - x)) : fabs(y - x);
                    }
                }
            }
            free(mf);
            free(mn);
            csv_free(&f);
        }
    }
}

/* The gate spreads of a gates file rel_gates: CASE/sensitivity.csv of each tree whose last
 * sensitivity run saw these gates (sens[t] left empty otherwise). */
static void gate_spreads_load(diff_state* s, const char* rel_gates, csv_file sens[2]) {
    for (int t = 0; t < 2; ++t) {
        memset(&sens[t], 0, sizeof sens[t]);
        char path[PATH_MAX + 320], msg[256];
        int bound = 0;
        for (int p = 0; p < (t ? s->npb : s->npa) && !bound; ++p) {
            bound = digest_matches(s, t, p, rel_gates);
        }
        if (!bound) {
            continue; /* no sensitivity run, or one beside other results */
        }
        const char* dir = strrchr(rel_gates, '/');
        snprintf(path, sizeof path, "%s/%.*s/sensitivity.csv", t ? s->b : s->a,
                 dir ? (int)(dir - rel_gates) : 0, rel_gates);
        struct stat st;
        if (stat(path, &st) != 0 || csv_read(path, &sens[t], msg, sizeof msg) != 0) {
            memset(&sens[t], 0, sizeof sens[t]);
        }
    }
}

/* The spread of a gate: the largest of its column "spread" in the trees' sensitivity tables. */
static double gate_spread(const csv_file sens[2], const char* id) {
    double best = NAN;
    for (int t = 0; t < 2; ++t) {
        const csv_file* f = &sens[t];
        const int cg = csv_col(f, "gate"), cs = csv_col(f, "spread");
        for (long r = 1; cg >= 0 && cs >= 0 && r < f->nrow; ++r) {
            double x;
            if (strcmp(csv_at(f, r, cg), id) == 0 && cell_num(csv_at(f, r, cs), &x) == 1 &&
                isfinite(x)) {
                best = isfinite(best) ? fmax(best, x) : x;
            }
        }
    }
    return best;
}

static void note_moved(diff_state* s, const char* rel) {
    if (s->nmoved && strcmp(s->moved[s->nmoved - 1], rel) == 0) {
        return;
    }
    if (s->nmoved == s->capmoved) {
        const int cap = s->capmoved ? 2 * s->capmoved : 64;
        char** m = realloc(s->moved, (size_t)cap * sizeof *m);
        if (m == NULL) {
            s->failed = 1;
            return;
        }
        s->moved = m;
        s->capmoved = cap;
    }
    s->moved[s->nmoved] = strdup(rel);
    s->failed |= s->moved[s->nmoved] == NULL;
    s->nmoved += s->moved[s->nmoved] != NULL;
}

/* ---- per kind of file ---------------------------------------------------------------------- */

/* A wall-time column: its name contains "wall" (any case). */
static int wall_column(const char* name) {
    for (const char* p = name; *p; ++p) {
        if ((p[0] | 32) == 'w' && (p[1] | 32) == 'a' && (p[2] | 32) == 'l' && (p[3] | 32) == 'l') {
            return 1;
        }
    }
    return 0;
}

/* A structural difference of file rel (always significant): the note says what. */
static void diff_structure(diff_state* s, const char* rel, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void diff_structure(diff_state* s, const char* rel, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const size_t note = text_vadd(s, fmt, ap); /* first: an argument may be in s->text */
    va_end(ap);
    diff_row* r = add_row(s, D_FILE, rel);
    if (r != NULL) {
        r->significant = 1;
        r->note = note;
    }
}

/* The keys of f's rows 1.. (their idx: the row), sorted by key and then row: a row's key is the
 * cell of the key column col; without one (-1), its leading text cells (at most three; none if
 * the first is a number) joined by the unit separator; whole, allocated. NULL when out of
 * memory. */
static keyed* row_keys(const csv_file* f, int col) {
    const long n = f->nrow > 1 ? f->nrow - 1 : 0;
    keyed* k = calloc((size_t)(n > 0 ? n : 1), sizeof *k);
    for (long r = 1; k && r < f->nrow; ++r) {
        /* the key's cells, counted first: one allocation of its size per row (a table of a
         * million rows) */
        int nk = 0;
        size_t len = col >= 0 ? strlen(csv_at(f, r, col)) : 0;
        for (int c = 0; col < 0 && c < f->ncell[r] && c < 3; ++c, ++nk) {
            double x;
            if (cell_num(csv_at(f, r, c), &x) != -1) {
                break;
            }
            len += strlen(csv_at(f, r, c)) + 1;
        }
        char* key = malloc(len + 1);
        if (key != NULL) {
            size_t at = 0;
            if (col >= 0) {
                at = (size_t)snprintf(key, len + 1, "%s", csv_at(f, r, col));
            }
            for (int c = 0; c < nk; ++c) {
                at += (size_t)snprintf(key + at, len + 1 - at, "%s\x1f", csv_at(f, r, c));
            }
            key[at] = '\0';
        }
        k[r - 1].key = key;
        k[r - 1].idx = r;
        if (key == NULL) {
            for (long q = 0; q < r; ++q) {
                free((char*)k[q].key);
            }
            free(k);
            return NULL;
        }
    }
    if (k && n > 0) {
        qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    }
    return k;
}

static void row_keys_free(keyed* k, long n) {
    for (long i = 0; k && i < n; ++i) {
        free((char*)k[i].key);
    }
    free(k);
}

static long* match_rows(const csv_file* a, int col_a, const csv_file* b, int col_b);

static void diff_gates(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    const int ia = csv_col(a, "gate"), ib = csv_col(b, "gate");
    const int ma = csv_col(a, "measured"), mb = csv_col(b, "measured");
    const int ra = csv_col(a, "result"), rb = csv_col(b, "result");
    const int ca = csv_col(a, "metric"), cmb = csv_col(b, "metric");
    if (ia < 0 || ib < 0 || ma < 0 || mb < 0 || ra < 0 || rb < 0 || ca < 0 || cmb < 0) {
        diff_structure(s, rel,
                       "not a gate table in %s (no gate, metric, measured or result column)",
                       ia < 0 || ma < 0 || ra < 0 || ca < 0 ? "A" : "B");
        return;
    }
    /* a gate id twice in one table: named (its rows are paired by occurrence below) */
    for (int t = 0; t < 2; ++t) {
        const csv_file* f = t ? b : a;
        const long n = f->nrow > 1 ? f->nrow - 1 : 0;
        keyed* k = row_keys(f, t ? ib : ia);
        if (k == NULL) {
            s->failed = 1;
            return;
        }
        for (long i = 1, first = 0; i < n; ++i) {
            if (strcmp(k[i].key, k[first].key) != 0) {
                first = i;
            } else {
                diff_structure(s, rel, "gate %s twice in %s (rows #%ld and #%ld)", k[i].key,
                               t ? "B" : "A", k[first].idx, k[i].idx);
            }
        }
        row_keys_free(k, n);
    }
    /* gates by id (a repeated id: its k-th row in A meets its k-th in B) */
    long* match = match_rows(a, ia, b, ib);
    char* in_b = calloc((size_t)(b->nrow > 0 ? b->nrow : 1), 1);
    if (match == NULL || in_b == NULL) {
        s->failed = 1;
        free(match);
        free(in_b);
        return;
    }
    csv_file sens[2];
    gate_spreads_load(s, rel, sens);
    for (long i = 1; i < a->nrow; ++i) {
        const char* id = csv_at(a, i, ia);
        const long j = match[i];
        in_b[j] = 1;
        const char* res_a = csv_at(a, i, ra);
        if (j == 0) {
            diff_row* r = add_row(s, D_VERDICT, rel);
            if (r) {
                r->item = text_add(s, "%s", id);
                r->column = text_add(s, "%s", csv_at(a, i, ca));
                r->a = text_add(s, "%s", res_a);
                r->b = text_add(s, "(no gate)");
                r->significant = 1;
                r->note = text_add(s, "the gate is not in B");
            }
            continue;
        }
        const char* res_b = csv_at(b, j, rb);
        if (strcmp(res_a, "SKIP") == 0 && strcmp(res_b, "SKIP") == 0) {
            continue; /* a gate of the other tier on both sides: its value means nothing */
        }
        if (strcmp(res_a, res_b) != 0) {
            diff_row* r = add_row(s, D_VERDICT, rel);
            if (r) {
                r->item = text_add(s, "%s", id);
                r->column = text_add(s, "%s", csv_at(a, i, ca));
                r->a = text_add(s, "%s", res_a);
                r->b = text_add(s, "%s", res_b);
                r->significant = 1;
                r->note = text_add(s, "measured %s -> %s", csv_at(a, i, ma), csv_at(b, j, mb));
            }
        }
        double x, y;
        const int kx = cell_num(csv_at(a, i, ma), &x), ky = cell_num(csv_at(b, j, mb), &y);
        diff_row tmp;
        blank_row(&tmp);
        if (compare_values(s, x, kx, y, ky, gate_spread(sens, id), &tmp)) {
            diff_row* r = add_row(s, D_GATE, rel);
            if (r) {
                tmp.kind = D_GATE;
                tmp.file = r->file;
                tmp.item = text_add(s, "%s", id);
                tmp.column = text_add(s, "%s", csv_at(a, i, ca));
                if (tmp.note == 0) {
                    tmp.note =
                        text_add(s, "%s -> %s%s", res_a, res_b,
                                 isfinite(tmp.spread) ? "" : "; no spread measured: default rule");
                }
                *r = tmp;
            }
        }
    }
    csv_free(&sens[0]);
    csv_free(&sens[1]);
    for (long j = 1; j < b->nrow; ++j) {
        if (!in_b[j]) {
            diff_row* r = add_row(s, D_VERDICT, rel);
            if (r) {
                r->item = text_add(s, "%s", csv_at(b, j, ib));
                r->a = text_add(s, "(no gate)");
                r->b = text_add(s, "%s", csv_at(b, j, rb));
                r->significant = 1;
                r->note = text_add(s, "a new gate");
            }
        }
    }
    free(match);
    free(in_b);
}

/* The label of row r: "#r: " and its leading text cells as name=value (the first in any case),
 * in s->text. */
static size_t row_label(diff_state* s, const csv_file* f, long r) {
    const size_t at = text_add(s, "#%ld: ", r);
    if (at == 0) {
        return 0;
    }
    s->text.n--; /* the cells continue the text */
    for (int c = 0; c < f->ncell[r] && c < 3; ++c) {
        double x;
        if (c > 0 && cell_num(csv_at(f, r, c), &x) != -1) {
            break;
        }
        strbuf_printf(&s->text, "%s%s=%s", c ? ", " : "", csv_at(f, 0, c), csv_at(f, r, c));
    }
    if (s->text.failed) {
        s->failed = 1;
        return 0;
    }
    s->text.n++;
    return at;
}

/* Columns of a that b lacks and the other way round. */
static void diff_columns(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    for (int t = 0; t < 2; ++t) {
        const csv_file* x = t ? b : a;
        const csv_file* y = t ? a : b;
        int* m = col_map(x, y);
        if (m == NULL) {
            s->failed = 1;
            return;
        }
        for (int c = 0; x->nrow && c < x->ncell[0]; ++c) {
            if (!wall_column(csv_at(x, 0, c)) && m[c] < 0) {
                diff_structure(s, rel, "column '%s' only in %s", csv_at(x, 0, c), t ? "B" : "A");
            }
        }
        free(m);
    }
}

/* Rows whose number of cells is not the header's, in either tree: their extra cells have no
 * column to be compared under, so they are named (the same report for diff A B and diff B A). */
static void diff_ragged(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    long n[2] = {0, 0}, first[2] = {0, 0};
    for (int t = 0; t < 2; ++t) {
        const csv_file* f = t ? b : a;
        for (long r = 1; r < f->nrow; ++r) {
            if (f->ncell[r] != f->ncell[0] && !(f->ncell[r] == 1 && csv_at(f, r, 0)[0] == '\0')) {
                first[t] = n[t]++ ? first[t] : r;
            }
        }
    }
    if (n[0] + n[1] > 0) {
        diff_structure(s, rel,
                       "rows with another number of cells than the header: %ld in A (first #%ld), "
                       "%ld in B (first #%ld); their extra cells not compared",
                       n[0], first[0], n[1], first[1]);
    }
}

/* The rows of b matched to those of a (m[r], 0: none): the row with the same key and the same
 * occurrence of that key, so that a table whose rows are labelled (a variant's convergence
 * history) is compared row by row even when one variant's rows grew or shrank; rows without a
 * text key are matched by position among themselves. Keys of any length, O(n log n) in the
 * rows. With key columns (col_a, col_b >= 0), their cells are the keys (a gate's id). NULL when
 * out of memory. */
static long* match_rows(const csv_file* a, int col_a, const csv_file* b, int col_b) {
    const long na = a->nrow > 1 ? a->nrow - 1 : 0, nb = b->nrow > 1 ? b->nrow - 1 : 0;
    long* m = calloc((size_t)(a->nrow > 0 ? a->nrow : 1), sizeof *m);
    keyed* ka = row_keys(a, col_a);
    keyed* kb = row_keys(b, col_b);
    if (m == NULL || ka == NULL || kb == NULL) {
        free(m);
        row_keys_free(ka, na);
        row_keys_free(kb, nb);
        return NULL;
    }
    pair_sorted(ka, na, kb, nb, m); /* the k-th row of a key in a meets its k-th in b */
    row_keys_free(ka, na);
    row_keys_free(kb, nb);
    return m;
}

static void diff_table(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    diff_columns(s, rel, a, b);
    diff_ragged(s, rel, a, b);
    long* match = match_rows(a, -1, b, -1);
    char* in_b = calloc((size_t)(b->nrow > 0 ? b->nrow : 1), 1); /* b's rows matched */
    if (match == NULL || in_b == NULL) {
        s->failed = 1;
        free(match);
        free(in_b);
        return;
    }
    for (long r = 1; r < a->nrow; ++r) {
        in_b[match[r]] = 1;
    }
    if (a->nrow != b->nrow) {
        diff_structure(s, rel, "rows: %ld in A, %ld in B", a->nrow - 1, b->nrow - 1);
    }
    for (int t = 0; t < 2; ++t) { /* rows on one side only */
        const csv_file* f = t ? b : a;
        for (long r = 1; r < f->nrow; ++r) {
            if (t == 1 ? in_b[r] : match[r] > 0) {
                continue;
            }
            const size_t label = row_label(s, f, r);
            diff_structure(s, rel, "row %s only in %s", txt(s, label), t ? "B" : "A");
        }
    }
    free(in_b);
    /* every column of A's header, in every row: a cell missing on one side is a value on one
     * side only, whichever tree is A */
    const int w = a->nrow ? a->ncell[0] : 0;
    double* spread = malloc((size_t)(a->nrow ? a->nrow : 1) * (size_t)(w ? w : 1) * sizeof *spread);
    if (spread == NULL) {
        s->failed = 1;
        free(match);
        return;
    }
    for (long k = 0; k < a->nrow * w; ++k) {
        spread[k] = NAN;
    }
    file_spread(s, rel, a, b, spread, w, 1);
    int* cmap = col_map(a, b);
    if (cmap == NULL) {
        s->failed = 1;
        free(spread);
        free(match);
        return;
    }
    int moved = 0;
    for (long r = 1; r < a->nrow && !s->failed; ++r) {
        const long rb = match[r];
        if (rb == 0) {
            continue;
        }
        size_t label = 0; /* made at the row's first difference */
        for (int c = 0; c < w; ++c) {
            const char* name = csv_at(a, 0, c);
            const int cb = cmap[c];
            if (cb < 0 || wall_column(name)) {
                continue;
            }
            const char* ta = csv_at(a, r, c);
            const char* tb = csv_at(b, rb, cb);
            if (strcmp(ta, tb) == 0) {
                continue;
            }
            double x, y;
            const int kx = cell_num(ta, &x), ky = cell_num(tb, &y);
            diff_row tmp;
            blank_row(&tmp);
            if (kx == -1 || ky == -1) { /* text */
                tmp.a = text_add(s, "%s", ta);
                tmp.b = text_add(s, "%s", tb);
                tmp.significant = 1;
                tmp.note = text_add(s, "text changed");
            } else if (!compare_values(s, x, kx, y, ky, spread[r * w + c], &tmp)) {
                continue;
            }
            diff_row* d = add_row(s, D_TABLE, rel);
            if (d == NULL) {
                break;
            }
            if (label == 0) {
                label = row_label(s, a, r);
            }
            tmp.kind = D_TABLE;
            tmp.file = d->file;
            tmp.item = label;
            tmp.column = text_add(s, "%s", name);
            *d = tmp;
            moved |= tmp.significant && kx == 1 && ky == 1;
        }
    }
    free(cmap);
    free(spread);
    free(match);
    if (moved) {
        note_moved(s, rel);
    }
}

/* The time column of a run file: "t [s]" or "t", else the first column. */
static int time_column(const csv_file* f) {
    for (int c = 0; f->nrow && c < f->ncell[0]; ++c) {
        const char* h = csv_at(f, 0, c);
        if (strcmp(h, "t") == 0 || strncmp(h, "t [", 3) == 0) {
            return c;
        }
    }
    return 0;
}

static void diff_trajectory(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    diff_columns(s, rel, a, b);
    diff_ragged(s, rel, a, b);
    const long nr = a->nrow < b->nrow ? a->nrow : b->nrow;
    if (a->nrow != b->nrow) {
        diff_structure(s, rel, "rows (steps): %ld in A, %ld in B (compared: the first %ld)",
                       a->nrow - 1, b->nrow - 1, nr - 1);
    }
    const int tc = time_column(a);
    const int w = a->nrow ? a->ncell[0] : 0;
    /* per column (every one: no width limit): the spread of the perturbed copies (max over
     * rows), the scale of A */
    double* spread = malloc(2 * (size_t)(w > 0 ? w : 1) * sizeof *spread);
    if (spread == NULL) {
        s->failed = 1;
        return;
    }
    double* scale = spread + (w > 0 ? w : 1);
    for (int c = 0; c < w; ++c) {
        spread[c] = NAN;
        scale[c] = 0;
    }
    file_spread(s, rel, a, b, spread, w, 0);
    int* cmap = col_map(a, b);
    if (cmap == NULL) {
        s->failed = 1;
        free(spread);
        return;
    }
    /* a column's scale: its largest finite value in either file (the same for diff B A) */
    for (int c = 0; c < w; ++c) {
        for (int t = 0; t < 2 && (t == 0 || cmap[c] >= 0); ++t) {
            const csv_file* f = t ? b : a;
            for (long r = 1; r < f->nrow; ++r) {
                double x;
                if (cell_num(csv_at(f, r, t ? cmap[c] : c), &x) == 1 && isfinite(x)) {
                    scale[c] = fmax(scale[c], fabs(x));
                }
            }
        }
    }
    int moved = 0;
    for (int c = 0; c < w; ++c) {
        const char* name = csv_at(a, 0, c);
        const int cb = cmap[c];
        if (cb < 0 || wall_column(name) || strncmp(name, "time_", 5) == 0) {
            continue;
        }
        const double thr = isfinite(spread[c]) ? s->o->nsigma * spread[c]
                                               : fmax(s->o->rtol * scale[c], s->o->atol);
        double dmax = -1, va = NAN, vb = NAN;
        long nfirst = -1, ndiff = 0, nhalf = 0, rmax = 0;
        for (long r = 1; r < nr; ++r) {
            const char* ta = csv_at(a, r, c);
            const char* tb = csv_at(b, r, cb);
            if (strcmp(ta, tb) == 0) {
                continue;
            }
            double x, y;
            const int kx = cell_num(ta, &x), ky = cell_num(tb, &y);
            double d;
            if (kx == 1 && ky == 1 && isfinite(x) && isfinite(y)) {
                d = fabs(y - x);
            } else if (kx == ky && kx != -1 && (kx == 0 || (isnan(x) && isnan(y)))) {
                continue;
            } else {
                d = INFINITY; /* a value on one side only, not finite, or text */
                nhalf++;
            }
            if (d == 0) {
                continue;
            }
            ndiff++;
            if (d > thr && nfirst < 0) {
                nfirst = r;
            }
            if (d > dmax) {
                dmax = d;
                va = x;
                vb = y;
                rmax = r;
            }
        }
        if (ndiff == 0) {
            continue;
        }
        diff_row* d = add_row(s, D_TRAJ, rel);
        if (d == NULL) {
            break;
        }
        d->item = text_add(s, "%s", name);
        d->column = text_add(s, "max over %ld rows", nr - 1);
        d->a = fmt_num(s, va, 0);
        d->b = fmt_num(s, vb, 0);
        d->delta = dmax;
        d->rel = scale[c] > 0 ? dmax / scale[c] : NAN;
        d->spread = spread[c];
        d->threshold = thr;
        d->significant = nfirst >= 0;
        if (nfirst >= 0) {
            d->note = text_add(s,
                               "first beyond round-off at %s = %s (row %ld); largest at %s; %ld "
                               "row(s) differ%s",
                               csv_at(a, 0, tc), csv_at(a, nfirst, tc), nfirst, csv_at(a, rmax, tc),
                               ndiff, nhalf ? ", some on one side only" : "");
        } else {
            d->note = text_add(s, "largest at %s = %s; %ld row(s) differ, all within round-off",
                               csv_at(a, 0, tc), csv_at(a, rmax, tc), ndiff);
        }
        moved |= nfirst >= 0 && c != tc;
    }
    free(cmap);
    free(spread);
    if (moved) {
        note_moved(s, rel);
    }
}

/* ---- the trees ------------------------------------------------------------------------------ */

typedef struct file_list {
    char** rel;
    int n, cap;
    size_t root_len;
    int failed;
    int baseline;     /* listing for a baseline: the spreads kept, run files only if ... */
    int trajectories; /* ... asked for */
} file_list;
static file_list* g_walk; /* nftw has no user pointer */

static int is_run_file(const char* base) {
    return strcmp(base, "trajectory.csv") == 0 || strcmp(base, "steps.csv") == 0 ||
           strcmp(base, "physics.csv") == 0;
}

/* The CSV files of a tree, relative to its root: every table but the wall times (times.csv) and a
 * diff report (diff/); for a diff also without the spreads (sensitivity/, sensitivity.csv), for
 * a baseline without the run files unless trajectories are asked for. */
static int walk_one(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st;
    file_list* l = g_walk;
    const char* rel = path + l->root_len;
    while (*rel == '/') {
        ++rel;
    }
    const char* base = path + ftw->base;
    const size_t n = strlen(base);
    if (type != FTW_F || strncmp(rel, "diff/", 5) == 0 || n < 4 ||
        strcmp(base + n - 4, ".csv") != 0 || strcmp(base, "times.csv") == 0 || base[0] == '.') {
        return 0;
    }
    if (l->baseline
            ? is_run_file(base) && !l->trajectories
            : strncmp(rel, "sensitivity/", 12) == 0 || strcmp(base, "sensitivity.csv") == 0) {
        return 0;
    }
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 512;
        char** r = realloc(l->rel, (size_t)cap * sizeof *r);
        if (r == NULL) {
            l->failed = 1;
            return 1;
        }
        l->rel = r;
        l->cap = cap;
    }
    if ((l->rel[l->n] = strdup(rel)) == NULL) {
        l->failed = 1;
        return 1;
    }
    l->n++;
    return 0;
}

static int cmp_str(const void* x, const void* y) {
    return strcmp(*(char* const*)x, *(char* const*)y);
}

static int list_tree(const char* root, file_list* l, char* msg, size_t n) {
    memset(l, 0, sizeof *l);
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "%s: not a directory of results", root);
        return -1;
    }
    l->root_len = strlen(root);
    g_walk = l;
    const int rc = nftw(root, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (rc != 0 || l->failed) {
        snprintf(msg, n, "%s: %s", root, l->failed ? "out of memory" : "cannot list the tree");
        return -1;
    }
    if (l->n > 0) {
        qsort(l->rel, (size_t)l->n, sizeof *l->rel, cmp_str);
    }
    return 0;
}

static void free_list(file_list* l) {
    for (int i = 0; i < l->n; ++i) {
        free(l->rel[i]);
    }
    free(l->rel);
}

/* ---- what a baseline is -------------------------------------------------------------------- */

/* root/baseline.json, the marker of a baseline ccb saved: its version, whether the run files were
 * kept, its file count and (format 2) the inventory of its files, sorted. 0, or -1 with a message
 * if there is none or it is not a baseline's (strict JSON, the fields of its format). */
typedef struct baseline_info {
    int version, trajectories, files;
    char** inv;
    int ninv;
} baseline_info;

static void baseline_info_free(baseline_info* b) {
    for (int i = 0; i < b->ninv; ++i) {
        free(b->inv[i]);
    }
    free(b->inv);
    memset(b, 0, sizeof *b);
}

static int baseline_read(const char* root, baseline_info* b, char* msg, size_t n) {
    memset(b, 0, sizeof *b);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/baseline.json", root);
    char* text = read_regular_text(path, 64 << 20, 1, msg, n);
    if (text == NULL) {
        return -1;
    }
    const size_t len = strlen(text);
    /* strict: one object and nothing after it but white space (the terminator included in the
     * length, as cJSON's check for it reads it; a NUL inside the file is refused) */
    const char* end = NULL;
    cJSON* j = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (j != NULL && end != text + len) {
        cJSON_Delete(j);
        j = NULL;
    }
    free(text);
    const cJSON* v = j ? cJSON_GetObjectItemCaseSensitive(j, "format_version") : NULL;
    const cJSON* t = j ? cJSON_GetObjectItemCaseSensitive(j, "trajectories") : NULL;
    const cJSON* f = j ? cJSON_GetObjectItemCaseSensitive(j, "files") : NULL;
    const cJSON* c = j ? cJSON_GetObjectItemCaseSensitive(j, "ccb") : NULL;
    const cJSON* inv = j ? cJSON_GetObjectItemCaseSensitive(j, "inventory") : NULL;
    int ok = cJSON_IsObject(j) && cJSON_IsNumber(v) && (v->valueint == 1 || v->valueint == 2) &&
             cJSON_IsBool(t) && cJSON_IsNumber(f) && f->valuedouble >= 0 && f->valuedouble < 1e9 &&
             cJSON_IsString(c) &&
             (v->valueint == 1 || (cJSON_IsArray(inv) && cJSON_GetArraySize(inv) == f->valueint));
    if (ok) {
        b->version = v->valueint;
        b->trajectories = cJSON_IsTrue(t);
        b->files = f->valueint;
    }
    if (ok && b->version == 2 && b->files > 0) {
        b->inv = calloc((size_t)b->files, sizeof *b->inv);
        ok = b->inv != NULL;
        const cJSON* e;
        cJSON_ArrayForEach(e, inv) {
            if (!ok || !cJSON_IsString(e) || (b->inv[b->ninv] = strdup(e->valuestring)) == NULL) {
                ok = 0;
                break;
            }
            b->ninv++;
        }
        if (ok) {
            qsort(b->inv, (size_t)b->ninv, sizeof *b->inv, cmp_str);
        }
    }
    cJSON_Delete(j);
    if (!ok) {
        baseline_info_free(b);
        snprintf(msg, n, "%s is not the marker of a baseline saved by ccb", path);
        return -1;
    }
    return 0;
}

/* 1 if root/baseline.json says the run files were left out. */
static int baseline_without_runs(const char* root) {
    baseline_info b;
    char msg[PATH_MAX + 100];
    if (baseline_read(root, &b, msg, sizeof msg) != 0) {
        return 0;
    }
    const int without = !b.trajectories;
    baseline_info_free(&b);
    return without;
}

/* The tree of an existing baseline, walked: every entry must be a directory, its marker or a
 * file of its inventory (format 2; format 1 has none: its regular files are counted). */
typedef struct baseline_walk {
    const baseline_info* b;
    size_t root_len;
    int regular;        /* regular files but the marker */
    char foreign[1024]; /* the first entry the baseline did not save */
} baseline_walk;
static baseline_walk* g_bwalk; /* nftw has no user pointer */

static int baseline_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)ftw;
    baseline_walk* w = g_bwalk;
    const char* rel = path + w->root_len;
    while (*rel == '/') {
        ++rel;
    }
    if (type == FTW_D || type == FTW_DP) {
        return 0;
    }
    int own = type == FTW_F && S_ISREG(st->st_mode);
    if (own && strcmp(rel, "baseline.json") != 0) {
        w->regular++;
        own = w->b->version == 1 ||
              bsearch(&rel, w->b->inv, (size_t)w->b->ninv, sizeof *w->b->inv, cmp_str) != NULL;
    }
    if (!own) {
        snprintf(w->foreign, sizeof w->foreign, "%s", rel);
        return 1;
    }
    return 0;
}

/* 0 if dir does not exist or is a baseline ccb saved holding only what it saved (what
 * --save-baseline may replace), -1 with a message otherwise. */
static int baseline_replaceable(const char* dir, char* msg, size_t n) {
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT) {
            return 0;
        }
        snprintf(msg, n, "--save-baseline %s: cannot examine it: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, n,
                 "--save-baseline %s: exists and is not a directory; ccb replaces only a baseline "
                 "it saved",
                 dir);
        return -1;
    }
    baseline_info b;
    char why[PATH_MAX + 100];
    if (baseline_read(dir, &b, why, sizeof why) != 0) {
        snprintf(msg, n,
                 "--save-baseline %s: exists and is not a baseline (%s); ccb replaces only a "
                 "baseline it saved",
                 dir, why);
        return -1;
    }
    baseline_walk w;
    memset(&w, 0, sizeof w);
    w.b = &b;
    w.root_len = strlen(dir);
    g_bwalk = &w;
    const int wrc = nftw(dir, baseline_entry, 32, FTW_PHYS);
    g_bwalk = NULL;
    const int count_ok = b.version == 2 || w.regular == b.files;
    baseline_info_free(&b);
    if (wrc != 0 || !count_ok) {
        if (w.foreign[0] != '\0') {
            snprintf(msg, n,
                     "--save-baseline %s: holds %s, which the baseline did not save (or not a "
                     "regular file); ccb replaces only what it created",
                     dir, w.foreign);
        } else {
            snprintf(msg, n,
                     "--save-baseline %s: holds %d file(s) where its marker lists another number; "
                     "ccb replaces only what it created",
                     dir, w.regular);
        }
        return -1;
    }
    return 0;
}

/* An absolute path for p: the part that exists resolved (symbolic links, ".", ".."), the rest
 * appended with "." and ".." folded. 0, or -1. */
static int abs_path(const char* p, char* out, size_t n) {
    char full[2 * PATH_MAX + 2];
    if (p[0] == '/') {
        snprintf(full, sizeof full, "%s", p);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL) {
            return -1;
        }
        snprintf(full, sizeof full, "%s/%s", cwd, p);
    }
    /* the longest existing prefix */
    char head[sizeof full];
    snprintf(head, sizeof head, "%s", full);
    size_t cut = strlen(head);
    char res[PATH_MAX];
    for (;;) {
        if (realpath(head, res) != NULL) {
            break;
        }
        char* sl = strrchr(head, '/');
        if (sl == NULL) {
            return -1;
        }
        if (sl == head) {
            snprintf(res, sizeof res, "/");
            cut = 0;
            break;
        }
        *sl = '\0';
        cut = (size_t)(sl - head);
    }
    size_t k = strlen(res);
    if (k >= n) {
        return -1;
    }
    memcpy(out, res, k + 1);
    /* the rest, component by component */
    const char* r = full + cut;
    while (*r) {
        while (*r == '/') {
            ++r;
        }
        const char* e = strchr(r, '/');
        const size_t len = e ? (size_t)(e - r) : strlen(r);
        if (len == 0 || (len == 1 && r[0] == '.')) {
        } else if (len == 2 && r[0] == '.' && r[1] == '.') {
            char* sl = strrchr(out, '/');
            k = sl == NULL || sl == out ? 1 : (size_t)(sl - out);
            out[k] = '\0';
            if (k == 1) {
                out[0] = '/';
            }
        } else {
            if (k + len + 2 >= n) {
                return -1;
            }
            if (!(k == 1 && out[0] == '/')) {
                out[k++] = '/';
            }
            memcpy(out + k, r, len);
            k += len;
            out[k] = '\0';
        }
        r += len;
    }
    return 0;
}

/* 1 if the absolute path a is b or lies inside it */
static int path_within(const char* a, const char* b) {
    const size_t lb = strlen(b);
    return strncmp(a, b, lb) == 0 && (a[lb] == '\0' || a[lb] == '/' || (lb == 1 && b[0] == '/'));
}

int suite_baseline_check(const char* root, const char* dir, const char* compare, char* msg,
                         size_t n) {
    char ar[PATH_MAX], ad[PATH_MAX], ac[PATH_MAX];
    if (abs_path(root, ar, sizeof ar) != 0 || (dir && abs_path(dir, ad, sizeof ad) != 0) ||
        (compare && abs_path(compare, ac, sizeof ac) != 0)) {
        snprintf(msg, n, "cannot resolve the paths of the results %s and the baseline %s", root,
                 dir       ? dir
                 : compare ? compare
                           : "");
        return -1;
    }
    if (compare && (path_within(ac, ar) || path_within(ar, ac))) {
        snprintf(msg, n,
                 "--baseline %s: the baseline and the results %s must not contain each other (a "
                 "tree compared with itself shows nothing)",
                 compare, root);
        return -1;
    }
    if (dir == NULL) {
        return 0;
    }
    if (path_within(ad, ar) || path_within(ar, ad)) {
        snprintf(msg, n,
                 "--save-baseline %s: the baseline and the results %s must not contain each other",
                 dir, root);
        return -1;
    }
    if (compare && strcmp(ac, ad) != 0 && (path_within(ac, ad) || path_within(ad, ac))) {
        snprintf(msg, n,
                 "--save-baseline %s: the baseline compared against (--baseline %s) must be the "
                 "same directory or lie apart",
                 dir, compare);
        return -1;
    }
    return baseline_replaceable(dir, msg, n);
}

/* Compares a and b, the file rel of the two trees, by its kind. */
static void diff_parsed(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
    const char* base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (strcmp(base, "gates.csv") == 0) {
        diff_gates(s, rel, a, b);
    } else if (is_run_file(base)) {
        diff_trajectory(s, rel, a, b);
    } else {
        diff_table(s, rel, a, b);
    }
}

static void diff_file(diff_state* s, const char* rel) {
    char pa[PATH_MAX + 320], pb[PATH_MAX + 320], msg[600];
    snprintf(pa, sizeof pa, "%s/%s", s->a, rel);
    snprintf(pb, sizeof pb, "%s/%s", s->b, rel);
    csv_file a, b;
    if (csv_read(pa, &a, msg, sizeof msg) != 0) {
        diff_structure(s, rel, "%s", msg);
        return;
    }
    if (csv_read(pb, &b, msg, sizeof msg) != 0) {
        csv_free(&a);
        diff_structure(s, rel, "%s", msg);
        return;
    }
    diff_parsed(s, rel, &a, &b);
    csv_free(&a);
    csv_free(&b);
}

/* ---- output ----------------------------------------------------------------------------------- */

/* The order of the report: changed verdicts, then significant changes by kind, then the rest. */
static int row_rank(const diff_row* r) {
    return r->kind == D_VERDICT ? 0 : r->significant ? 1 + r->kind : 10 + r->kind;
}

static int cmp_rows(const void* x, const void* y) {
    const diff_row* a = x;
    const diff_row* b = y;
    const int ra = row_rank(a), rb = row_rank(b);
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    return a < b ? -1 : a > b; /* stable: the order of the files */
}

static void csv_field(strbuf* o, const char* s) {
    if (strpbrk(s, ",\"\n") == NULL) {
        strbuf_printf(o, "%s", s);
        return;
    }
    strbuf_printf(o, "\"");
    for (; *s; ++s) {
        strbuf_printf(o, *s == '"' ? "\"\"" : "%c", *s);
    }
    strbuf_printf(o, "\"");
}

static void csv_num_field(strbuf* o, double x) {
    if (!isnan(x)) {
        strbuf_printf(o, "%.6g", x);
    }
}

static void md_field(strbuf* o, const char* s) {
    for (; *s; ++s) {
        strbuf_printf(o, *s == '|' ? "\\|" : "%c", *s);
    }
}

static const char* rule_of(const diff_row* r, char* buf, size_t n) {
    if (isfinite(r->spread)) {
        snprintf(buf, n, "spread %.3g", r->spread);
    } else if (isfinite(r->threshold)) {
        snprintf(buf, n, "default %.3g", r->threshold);
    } else {
        snprintf(buf, n, "always");
    }
    return buf;
}

/* The overlaid figure of a moved file: its significantly moved numeric columns (at most six),
 * one panel each, before (A, dashed) and after (B, solid) against time or the row, and their
 * difference B - A on the right axis (so a change far below the curve's scale is seen). The
 * data go to OUT/figures/<file>.csv (x, then A, B and B - A per column, the rows both have). */
/* A file's path flattened: '/' as '_', without ".csv". */
static void flat_name(const char* rel, char* out, size_t n) {
    snprintf(out, n, "%s", rel);
    for (char* p = out; *p; ++p) {
        *p = *p == '/' ? '_' : *p;
    }
    const size_t len = strlen(out);
    if (len >= 4 && strcmp(out + len - 4, ".csv") == 0) {
        out[len - 4] = '\0';
    }
}

/* The figure of the k-th moved file: its flattened path, with "~k" after it where an earlier
 * moved file flattens to the same name ("a/b_c.csv", "a_b/c.csv"), so that no figure replaces
 * another. */
static void figure_name(const diff_state* s, int k, char* out, size_t n) {
    flat_name(s->moved[k], out, n);
    for (int i = 0; i < k; ++i) {
        char other[PATH_MAX];
        flat_name(s->moved[i], other, sizeof other);
        if (strcmp(other, out) == 0) {
            char base[PATH_MAX];
            snprintf(base, sizeof base, "%s", out);
            snprintf(out, n, "%.*s~%d", (int)(n > 16 ? n - 16 : 0), base, k);
            return;
        }
    }
}

static int draw_overlay(const diff_state* s, const char* out, int km, char* msg, size_t n) {
    const char* rel = s->moved[km];
    char pa[PATH_MAX + 320], pb[PATH_MAX + 320];
    snprintf(pa, sizeof pa, "%s/%s", s->a, rel);
    snprintf(pb, sizeof pb, "%s/%s", s->b, rel);
    csv_file fa, fb;
    if (csv_read(pa, &fa, msg, n) != 0) {
        return -1;
    }
    if (csv_read(pb, &fb, msg, n) != 0) {
        csv_free(&fa);
        return -1;
    }
    int ca[6], cb[6], k = 0, xc = -1; /* xc: A's x column, -1: the row */
    for (long i = 0; i < s->n && k < 6; ++i) {
        const diff_row* r = &s->rows[i];
        if (strcmp(txt(s, r->file), rel) != 0 || !r->significant ||
            (r->kind != D_TABLE && r->kind != D_TRAJ) || isnan(r->delta)) {
            continue;
        }
        const char* col = r->kind == D_TRAJ ? txt(s, r->item) : txt(s, r->column);
        const int c = csv_col(&fa, col), d = csv_col(&fb, col);
        int seen = c < 0 || d < 0;
        for (int j = 0; j < k; ++j) {
            seen |= ca[j] == c;
        }
        if (k == 0) {
            double v;
            xc = r->kind == D_TRAJ                                               ? time_column(&fa)
                 : fa.nrow > 1 && cell_num(csv_at(&fa, 1, 0), &v) == 1 && c != 0 ? 0
                                                                                 : -1;
        }
        if (!seen) {
            ca[k] = c;
            cb[k++] = d;
        }
    }
    int rc = 0;
    if (k > 0) {
        char name[PATH_MAX], fig[PATH_MAX + 16], data[PATH_MAX + 32];
        figure_name(s, km, name, sizeof name);
        snprintf(fig, sizeof fig, "%s/figures/%s", out, name);
        snprintf(data, sizeof data, "%s/figures/%s.csv", out, name);
        strbuf d = {0};
        strbuf_printf(&d, "%s", xc >= 0 ? csv_at(&fa, 0, xc) : "row");
        for (int j = 0; j < k; ++j) {
            const char* h = csv_at(&fa, 0, ca[j]);
            strbuf_printf(&d, ",%s (A),%s (B),%s (B - A)", h, h, h);
        }
        strbuf_printf(&d, "\n");
        for (long r = 1; r < fa.nrow && r < fb.nrow; ++r) {
            if (xc >= 0) {
                strbuf_printf(&d, "%s", csv_at(&fa, r, xc));
            } else {
                strbuf_printf(&d, "%ld", r);
            }
            for (int j = 0; j < k; ++j) {
                double x, y;
                const int kx = cell_num(csv_at(&fa, r, ca[j]), &x) == 1;
                const int ky = cell_num(csv_at(&fb, r, cb[j]), &y) == 1;
                strbuf_printf(&d, kx ? ",%.17g" : ",", x);
                strbuf_printf(&d, ky ? ",%.17g" : ",", y);
                strbuf_printf(&d, kx && ky ? ",%.17g" : ",", y - x);
            }
            strbuf_printf(&d, "\n");
        }
        rc = d.failed ? -1 : write_file(data, d.s, d.n, msg, n);
        if (d.failed) {
            snprintf(msg, n, "out of memory");
        }
        free(d.s);
        const size_t qn = 2 * (PATH_MAX + 320);
        char* q = malloc(2 * qn);
        if (rc == 0 && q == NULL) {
            snprintf(msg, n, "out of memory");
            rc = -1;
        }
        if (rc == 0 &&
            (ccb_an_gp_path(q, qn, data) != 0 || ccb_an_gp_quote(q + qn, qn, rel) != 0)) {
            snprintf(msg, n, "a path has a control character: %s", rel);
            rc = -1;
        }
        if (rc == 0) {
            char* v = malloc(3 * qn);
            if (v == NULL) {
                snprintf(msg, n, "out of memory");
                rc = -1;
            } else {
                snprintf(v, 3 * qn, "f=%s; what=%s; ncols=%d; ", q, q + qn, k);
                char script[PATH_MAX];
                snprintf(script, sizeof script, "%s/analysis/gnuplot/diff_overlay.gp",
                         ccb_source_dir());
                rc = ccb_an_plot(script, NULL, fig, v, msg, n);
                free(v);
            }
        }
        free(q);
    }
    csv_free(&fa);
    csv_free(&fb);
    return rc;
}

/* diff.csv and diff.md as texts (failed set when out of memory). */
static void render_outputs(const diff_state* s, const suite_diff_summary* sum, strbuf* csvp,
                           strbuf* mdp) {
    strbuf csv = {0}, md = {0};
    strbuf_printf(&csv, "kind,file,item,column,a,b,abs_change,rel_change,spread,threshold,"
                        "significant,note\n");
    for (long i = 0; i < s->n; ++i) {
        const diff_row* r = &s->rows[i];
        strbuf_printf(&csv, "%s,", k_kind[r->kind]);
        csv_field(&csv, txt(s, r->file));
        strbuf_printf(&csv, ",");
        csv_field(&csv, txt(s, r->item));
        strbuf_printf(&csv, ",");
        csv_field(&csv, txt(s, r->column));
        strbuf_printf(&csv, ",");
        csv_field(&csv, txt(s, r->a));
        strbuf_printf(&csv, ",");
        csv_field(&csv, txt(s, r->b));
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->delta);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->rel);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->spread);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->threshold);
        strbuf_printf(&csv, ",%d,", r->significant);
        csv_field(&csv, txt(s, r->note));
        strbuf_printf(&csv, "\n");
    }
    strbuf_printf(&md,
                  "# ccb diff\n\nA (before): `%s`  \nB (after): `%s`\n\n"
                  "%d file(s) compared; %ld difference(s), %d significant, %d gate verdict(s) "
                  "changed, %d file(s) only on one side.\n\n"
                  "A change is significant beyond %g x its round-off spread where `ccb gate "
                  "--sensitivity` measured one (in either tree), else beyond max(%g x |value|, "
                  "%g); a changed verdict or text, and rows, columns or files on one side only, "
                  "always. Wall times are not compared. docs/cases.md §15.\n\n",
                  s->a, s->b, sum->compared, s->n, sum->significant, sum->verdicts, sum->one_side,
                  s->o->nsigma, s->o->rtol, s->o->atol);
    const char* const heads[] = {"Gates whose verdict changed", "Gate metrics", "Study tables",
                                 "Trajectories (largest difference per observable)",
                                 "Files, rows, columns"};
    for (int pass = 0; pass < 2; ++pass) {
        int last = -1;
        long shown = 0;
        if (pass == 1 && s->n > sum->significant) {
            strbuf_printf(&md, "\n## Within round-off (not significant)\n");
        }
        for (long i = 0; i < s->n; ++i) {
            const diff_row* r = &s->rows[i];
            if (r->significant != (pass == 0)) {
                continue;
            }
            if (pass == 1 && ++shown > 500) {
                strbuf_printf(&md, "\n... and more: diff.csv has every row.\n");
                break;
            }
            if (r->kind != last) {
                strbuf_printf(&md,
                              "\n### %s\n\n| file | item | column | A | B | change | relative "
                              "| significance rule | note |\n|---|---|---|---|---|---|---|---|---|"
                              "\n",
                              heads[r->kind]);
                last = r->kind;
            }
            char rule[48];
            strbuf_printf(&md, "| `");
            md_field(&md, txt(s, r->file));
            strbuf_printf(&md, "` | ");
            md_field(&md, txt(s, r->item));
            strbuf_printf(&md, " | ");
            md_field(&md, txt(s, r->column));
            strbuf_printf(&md, " | ");
            md_field(&md, txt(s, r->a));
            strbuf_printf(&md, " | ");
            md_field(&md, txt(s, r->b));
            strbuf_printf(&md, isnan(r->delta) ? " | | " : " | %.3g | ", r->delta);
            strbuf_printf(&md, isnan(r->rel) ? "| " : "%.3g | ", r->rel);
            strbuf_printf(&md, "%s | ", rule_of(r, rule, sizeof rule));
            md_field(&md, txt(s, r->note));
            strbuf_printf(&md, " |\n");
        }
        if (pass == 0 && sum->significant == 0) {
            strbuf_printf(&md, "Nothing moved beyond round-off.\n");
        }
    }
    if (sum->figures) {
        strbuf_printf(&md, "\n## Figures (before dashed, after solid)\n\n");
        for (int i = 0; i < s->nmoved; ++i) {
            char name[PATH_MAX];
            figure_name(s, i, name, sizeof name);
            strbuf_printf(&md, "![%s](figures/%s.png)\n\n", s->moved[i], name);
        }
    }
    *csvp = csv;
    *mdp = md;
}

static int write_outputs(const diff_state* s, const char* out, const suite_diff_summary* sum,
                         char* msg, size_t n) {
    strbuf csv, md;
    render_outputs(s, sum, &csv, &md);
    char path[PATH_MAX + 16];
    int rc = csv.failed || md.failed ? -1 : 0;
    if (rc != 0) {
        snprintf(msg, n, "out of memory");
    }
    snprintf(path, sizeof path, "%s/diff.csv", out);
    if (rc == 0 && write_file(path, csv.s, csv.n, msg, n) != 0) {
        rc = -1;
    }
    snprintf(path, sizeof path, "%s/diff.md", out);
    if (rc == 0 && write_file(path, md.s, md.n, msg, n) != 0) {
        rc = -1;
    }
    free(csv.s);
    free(md.s);
    return rc;
}

/* The terminal: the changed verdicts and the gate metrics that moved, one line each; then one
 * line per file whose tables or trajectories moved (how many values, the largest relative
 * change); diff.md has every row. */
static void print_summary(const diff_state* s, const suite_diff_summary* sum, const char* out) {
    for (long i = 0; i < s->n && s->rows[i].significant; ++i) {
        const diff_row* r = &s->rows[i];
        char rule[48];
        const char* slash = strchr(txt(s, r->file), '/');
        const int nc = slash ? (int)(slash - txt(s, r->file)) : (int)strlen(txt(s, r->file));
        if (r->kind == D_VERDICT) {
            printf("VERDICT %.*s %s: %s -> %s  %s (%s)\n", nc, txt(s, r->file), txt(s, r->item),
                   txt(s, r->a), txt(s, r->b), txt(s, r->column), txt(s, r->note));
        } else if (r->kind == D_GATE) {
            printf("GATE    %.*s %s %s: %s -> %s", nc, txt(s, r->file), txt(s, r->item),
                   txt(s, r->column), txt(s, r->a), txt(s, r->b));
            if (!isnan(r->delta)) {
                printf("  (rel %.3g; %s)", r->rel, rule_of(r, rule, sizeof rule));
            }
            printf("\n");
        }
    }
    for (long i = 0; i < s->n && s->rows[i].significant;) {
        const diff_row* r = &s->rows[i];
        if (r->kind == D_VERDICT || r->kind == D_GATE) {
            ++i;
            continue;
        }
        long k = i, count = 0;
        const diff_row* big = NULL;
        for (; k < s->n && s->rows[k].significant && s->rows[k].kind == r->kind &&
               strcmp(txt(s, s->rows[k].file), txt(s, r->file)) == 0;
             ++k) {
            count++;
            if (!isnan(s->rows[k].rel) && (big == NULL || s->rows[k].rel > big->rel)) {
                big = &s->rows[k];
            }
        }
        if (r->kind == D_FILE) {
            printf("FILE    %s: %s\n", txt(s, r->file), txt(s, r->note));
        } else if (big) {
            printf("%-7s %s: %ld %s moved; largest rel %.3g (%s%s%s: %s -> %s)\n",
                   r->kind == D_TABLE ? "TABLE" : "TRAJ", txt(s, r->file), count,
                   r->kind == D_TABLE ? "value(s)" : "observable(s)", big->rel, txt(s, big->item),
                   r->kind == D_TABLE ? " " : "", r->kind == D_TABLE ? txt(s, big->column) : "",
                   txt(s, big->a), txt(s, big->b));
        } else {
            printf("%-7s %s: %ld value(s) changed (text, or on one side only)\n",
                   r->kind == D_TABLE ? "TABLE" : "TRAJ", txt(s, r->file), count);
        }
        i = k;
    }
    printf("diff: %d file(s) compared, %ld difference(s), %d significant, %d verdict(s) changed, "
           "%d figure(s); %s/diff.md, %s/diff.csv\n",
           sum->compared, s->n, sum->significant, sum->verdicts, sum->figures, out, out);
}

/* 1 if rel's first component is one of o->only (or o->only is empty). */
static int in_scope(const suite_diff_opts* o, const char* rel) {
    if (o->nonly == 0) {
        return 1;
    }
    const char* e = strchr(rel, '/');
    const size_t n = e ? (size_t)(e - rel) : strlen(rel);
    for (int k = 0; k < o->nonly; ++k) {
        if (strlen(o->only[k]) == n && strncmp(o->only[k], rel, n) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The report may not go inside a tree it compares (the next diff would read it as results),
 * except ROOT/diff/, which no tree listing holds (`ccb gate --baseline` writes its diff there). */
static int out_placement(const char* a, const char* b, const char* out, char* msg, size_t n) {
    char ao[PATH_MAX], t[PATH_MAX], td[PATH_MAX + 8];
    if (abs_path(out, ao, sizeof ao) != 0) {
        snprintf(msg, n, "--out '%s': cannot resolve the path", out);
        return -1;
    }
    for (int k = 0; k < 2; ++k) {
        if (abs_path(k ? b : a, t, sizeof t) != 0) {
            snprintf(msg, n, "'%s': cannot resolve the path", k ? b : a);
            return -1;
        }
        snprintf(td, sizeof td, "%s/diff", strcmp(t, "/") == 0 ? "" : t);
        if (path_within(ao, t) && !path_within(ao, td)) {
            snprintf(msg, n,
                     "the report '%s' would go inside the tree %s ('%s') that it compares; "
                     "choose an --out outside it (or its diff/ directory)",
                     out, k ? "B" : "A", k ? b : a);
            return -1;
        }
    }
    return 0;
}

int suite_diff(const char* a, const char* b, const char* out, const suite_diff_opts* o,
               suite_diff_summary* sum) {
    memset(sum, 0, sizeof *sum);
    char msg[PATH_MAX + 600];
    if (out_placement(a, b, out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return 2;
    }
    file_list la, lb;
    if (list_tree(a, &la, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return 2;
    }
    if (list_tree(b, &lb, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        free_list(&la);
        return 2;
    }
    if (la.n == 0 && lb.n == 0) {
        fprintf(stderr, "ccb: neither %s nor %s holds a result table (CSV)\n", a, b);
        free_list(&la);
        free_list(&lb);
        return 2;
    }
    diff_state s;
    state_init(&s, a, b, o);
    s.baseline_a = baseline_without_runs(a);
    s.baseline_b = baseline_without_runs(b);
    s.npa = list_perturbations(a, s.pert_a, SUITE_NPERTURB);
    s.npb = list_perturbations(b, s.pert_b, SUITE_NPERTURB);
    for (int t = 0; t < 2; ++t) {
        for (int p = 0; p < (t ? s.npb : s.npa); ++p) {
            char dir[PATH_MAX + 96];
            snprintf(dir, sizeof dir, "%s/sensitivity/%s", t ? b : a,
                     t ? s.pert_b[p] : s.pert_a[p]);
            s.dg[t][p] = load_digests(dir);
        }
    }
    int i = 0, j = 0;
    while ((i < la.n || j < lb.n) && !s.failed) {
        const int c = i == la.n ? 1 : j == lb.n ? -1 : strcmp(la.rel[i], lb.rel[j]);
        if (c == 0 && !in_scope(o, la.rel[i])) {
            ++i;
            ++j;
            continue;
        }
        if (c == 0) {
            diff_file(&s, la.rel[i]);
            sum->compared++;
            ++i;
            ++j;
            continue;
        }
        const char* rel = c < 0 ? la.rel[i] : lb.rel[j];
        if (!in_scope(o, rel)) {
            c < 0 ? ++i : ++j;
            continue;
        }
        const char* base = strrchr(rel, '/');
        base = base ? base + 1 : rel;
        /* run files a baseline without trajectories does not hold */
        const int skip = is_run_file(base) && (c < 0 ? s.baseline_b : s.baseline_a);
        if (!skip) {
            diff_structure(&s, rel, "only in %s", c < 0 ? "A" : "B");
            sum->one_side++;
        }
        c < 0 ? ++i : ++j;
    }
    free_list(&la);
    free_list(&lb);
    int rc = 0;
    if (s.failed) {
        fprintf(stderr, "ccb: diff: out of memory\n");
        rc = 2;
    }
    if (rc == 0) {
        if (s.n > 0) {
            qsort(s.rows, (size_t)s.n, sizeof *s.rows, cmp_rows);
        }
        for (long k = 0; k < s.n; ++k) {
            sum->significant += s.rows[k].significant;
            sum->verdicts += s.rows[k].kind == D_VERDICT;
        }
        if (mkdir_p(out, msg, sizeof msg) != 0 || lock_tree(out, msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", msg);
            rc = 2;
        }
    }
    if (rc == 0 && o->figures && s.nmoved > 0) {
        char dir[PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/figures", out);
        if (mkdir_p(dir, msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", msg);
            rc = 2;
        }
        for (int k = 0; rc == 0 && k < s.nmoved; ++k) {
            if (draw_overlay(&s, out, k, msg, sizeof msg) != 0) {
                fprintf(stderr, "ccb: diff figure of %s: %s\n", s.moved[k], msg);
                rc = 2;
            } else {
                sum->figures++;
            }
        }
    }
    if (rc == 0 && write_outputs(&s, out, sum, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        rc = 2;
    }
    if (rc == 0) {
        print_summary(&s, sum, out);
    }
    state_free(&s);
    return rc;
}

int suite_diff_texts(const char* rel, const char* ta, const char* tb, const suite_diff_opts* o,
                     long* rows, long* significant, long* values) {
    diff_state s;
    state_init(&s, "A", "B", o);
    csv_file a, b;
    char* pa = strdup(ta);
    char* pb = strdup(tb);
    int rc = 2;
    if (pa && csv_parse(pa, &a) == 0) {
        pa = NULL; /* a's now */
        if (pb && csv_parse(pb, &b) == 0) {
            pb = NULL;
            diff_parsed(&s, rel, &a, &b);
            csv_free(&b);
            rc = s.failed ? 2 : 0;
        }
        csv_free(&a);
    }
    free(pa);
    free(pb);
    *rows = s.n;
    *significant = *values = 0;
    for (long k = 0; k < s.n; ++k) {
        *significant += s.rows[k].significant;
        *values += s.rows[k].kind != D_FILE;
    }
    if (rc == 0) { /* the report's texts, as a diff of trees writes them */
        suite_diff_summary sum = {0};
        strbuf csv, md;
        if (s.n > 0) {
            qsort(s.rows, (size_t)s.n, sizeof *s.rows, cmp_rows);
        }
        render_outputs(&s, &sum, &csv, &md);
        rc = csv.failed || md.failed ? 2 : 0;
        free(csv.s);
        free(md.s);
    }
    state_free(&s);
    return rc;
}

/* ---- the spreads' binding -------------------------------------------------------------------- */

int suite_sensitivity_bind(const char* root, const char* cs, const char* pert_root, char* msg,
                           size_t n) {
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/%s", root, cs);
    file_list l;
    memset(&l, 0, sizeof l);
    l.root_len = strlen(root);
    g_walk = &l;
    const int wrc = nftw(dir, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (wrc != 0 || l.failed) {
        snprintf(msg, n, "sensitivity: cannot list %s", dir);
        free_list(&l);
        return -1;
    }
    if (l.n > 0) {
        qsort(l.rel, (size_t)l.n, sizeof *l.rel, cmp_str);
    }
    strbuf b = {0};
    strbuf_printf(&b, "file,fnv1a64\n");
    int rc = 0;
    for (int i = 0; rc == 0 && i < l.n; ++i) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, l.rel[i]);
        int ok = 0;
        const unsigned long long h = file_digest(path, &ok);
        if (!ok || strpbrk(l.rel[i], ",\"\n") != NULL) {
            continue; /* a name the CSV cannot hold: that file gets no spread */
        }
        strbuf_printf(&b, "%s,%016llx\n", l.rel[i], h);
    }
    free_list(&l);
    char path[PATH_MAX + 160];
    snprintf(path, sizeof path, "%s/%s.nominal.csv", pert_root, cs);
    rc = b.failed ? -1 : write_file(path, b.s, b.n, msg, n);
    if (b.failed) {
        snprintf(msg, n, "out of memory");
    }
    free(b.s);
    return rc;
}

/* ---- baselines ------------------------------------------------------------------------------ */

/* Removes a directory tree (the previous baseline). */
static int rm_one(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st;
    (void)ftw;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : 1;
}

int suite_baseline_save(const char* root, const char* dir, int trajectories, int* files,
                        long long* bytes, char* msg, size_t n) {
    *files = 0;
    *bytes = 0;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char* slash = strrchr(parent, '/');
    if (slash == NULL) {
        snprintf(parent, sizeof parent, ".");
    } else if (slash == parent) {
        parent[1] = '\0';
    } else {
        *slash = '\0';
    }
    /* what cmd_gate checked before the runs, again: the tree may have changed since */
    /* the parent holds the lock (the baseline itself is replaced by a rename) */
    if (suite_baseline_check(root, dir, NULL, msg, n) != 0 || mkdir_p(parent, msg, n) != 0 ||
        lock_tree(parent, msg, n) != 0) {
        return -1;
    }
    file_list bl;
    memset(&bl, 0, sizeof bl);
    bl.baseline = 1;
    bl.trajectories = trajectories;
    bl.root_len = strlen(root);
    g_walk = &bl;
    const int wrc = nftw(root, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (wrc != 0 || bl.failed || bl.n == 0) {
        snprintf(msg, n, "--save-baseline: %s",
                 bl.failed  ? "out of memory"
                 : wrc != 0 ? "cannot list the results"
                            : "the results hold no table");
        free_list(&bl);
        return -1;
    }
    /* the new baseline is built beside dir and renamed into place when complete */
    char tmp[PATH_MAX + 32], old[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.new-%ld", dir, (long)getpid());
    snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
    int rc = 0;
    for (int i = 0; rc == 0 && i < bl.n; ++i) {
        char src[PATH_MAX + 320], dst[PATH_MAX + 360];
        snprintf(src, sizeof src, "%s/%s", root, bl.rel[i]);
        snprintf(dst, sizeof dst, "%s/%s", tmp, bl.rel[i]);
        char* d = strrchr(dst, '/');
        *d = '\0';
        if (mkdir_p(dst, msg, n) != 0) {
            rc = -1;
            break;
        }
        *d = '/';
        char* buf = read_regular_text(src, (size_t)LONG_MAX, 0, msg, n);
        const size_t len = buf ? strlen(buf) : 0;
        if (buf == NULL || write_file(dst, buf, len, msg, n) != 0) {
            rc = -1;
        } else {
            *files += 1;
            *bytes += (long long)len;
        }
        free(buf);
    }
    if (rc == 0) { /* the marker: format 2 lists every file it saved (baseline_replaceable) */
        char meta[PATH_MAX + 48];
        snprintf(meta, sizeof meta, "%s/baseline.json", tmp);
        cJSON* j = cJSON_CreateObject();
        cJSON* inv = cJSON_CreateArray();
        int ok = j != NULL && inv != NULL && cJSON_AddNumberToObject(j, "format_version", 2) &&
                 cJSON_AddStringToObject(j, "ccb", ccb_version()) &&
                 cJSON_AddStringToObject(j, "revision", ccb_revision()) &&
                 cJSON_AddNumberToObject(j, "files", *files) &&
                 cJSON_AddBoolToObject(j, "trajectories", trajectories);
        for (int i = 0; ok && i < bl.n; ++i) {
            cJSON* e = cJSON_CreateString(bl.rel[i]);
            ok = e != NULL && cJSON_AddItemToArray(inv, e);
        }
        if (ok) {
            cJSON_AddItemToObject(j, "inventory", inv);
            inv = NULL;
        }
        char* text = ok ? cJSON_Print(j) : NULL;
        cJSON_Delete(inv);
        cJSON_Delete(j);
        if (text == NULL) {
            snprintf(msg, n, "--save-baseline: out of memory");
            rc = -1;
        } else {
            const size_t len = strlen(text);
            char* t2 = malloc(len + 2);
            if (t2 == NULL) {
                snprintf(msg, n, "--save-baseline: out of memory");
                rc = -1;
            } else {
                memcpy(t2, text, len);
                t2[len] = '\n';
                rc = write_file(meta, t2, len + 1, msg, n);
                free(t2);
            }
            cJSON_free(text);
        }
    }
    free_list(&bl);
    struct stat st;
    const int had = rc == 0 && stat(dir, &st) == 0;
    if (rc == 0 && had && rename(dir, old) != 0) {
        snprintf(msg, n, "--save-baseline: cannot move the old %s aside: %s", dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, dir) != 0) {
        snprintf(msg, n, "--save-baseline: cannot rename %s to %s: %s", tmp, dir, strerror(errno));
        if (had) {
            rename(old, dir);
        }
        rc = -1;
    }
    if (rc == 0 && had) {
        nftw(old, rm_one, 32, FTW_DEPTH | FTW_PHYS);
    }
    if (rc != 0) {
        nftw(tmp, rm_one, 32, FTW_DEPTH | FTW_PHYS); /* nothing half-written is left */
    }
    return rc;
}
