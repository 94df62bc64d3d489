/* diff_kinds: the differences of the regression view and their texts, and the comparison of
 * each kind of file: gates, study tables, run files (study/diff.c has the design). */
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
#include "diff_internal.h"

/* ---- the differences --------------------------------------------------------------------- */

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

size_t text_add(diff_state* s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const size_t at = text_vadd(s, fmt, ap);
    va_end(ap);
    return at;
}

const char* diff_text(const diff_state* s, size_t at) {
    return s->text.s + at;
}

void diff_state_init(diff_state* s, const char* a, const char* b, const suite_diff_opts* o) {
    memset(s, 0, sizeof *s);
    s->a = a;
    s->b = b;
    s->o = o;
    (void)text_add(s, "%s", ""); /* offset 0: the empty text */
}

void diff_state_free(diff_state* s) {
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
double diff_threshold(const suite_diff_opts* o, double s, double a, double b) {
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
    r->threshold = diff_threshold(st->o, s, a, b);
    r->significant = r->delta > r->threshold;
    return 1;
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
void diff_structure(diff_state* s, const char* rel, const char* fmt, ...) {
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
            diff_structure(s, rel, "row %s only in %s", diff_text(s, label), t ? "B" : "A");
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
int time_column(const csv_file* f) {
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

void diff_parsed(diff_state* s, const char* rel, const csv_file* a, const csv_file* b) {
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

void diff_file(diff_state* s, const char* rel) {
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
