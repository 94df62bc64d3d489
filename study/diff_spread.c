/* diff_spread: the round-off spreads that judge a change (study/diff.c, "Significance"). */
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

/* ---- the round-off spreads ----------------------------------------------------------------- */

static unsigned long long fnv1a(const char* p, size_t n) {
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    }
    return h;
}

/* The digest of a file, 0 with *ok = 0 if it cannot be read. */
unsigned long long file_digest(const char* path, int* ok) {
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

void digests_free(digests* d) {
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
digests* load_digests(const char* dir) {
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
int list_perturbations(const char* root, char names[][64], int max) {
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
void file_spread(diff_state* s, const char* rel, const csv_file* a, const csv_file* b,
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
void gate_spreads_load(diff_state* s, const char* rel_gates, csv_file sens[2]) {
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
double gate_spread(const csv_file sens[2], const char* id) {
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

void note_moved(diff_state* s, const char* rel) {
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
