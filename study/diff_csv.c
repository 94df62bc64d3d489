/* diff_csv: the CSV files of the regression view in memory, and the pairing of their columns
 * and rows by name (study/diff.c has the design). */
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

/* ---- CSV files --------------------------------------------------------------------------- */

void csv_free(csv_file* f) {
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
int csv_parse(char* buf, csv_file* f) {
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
int csv_read(const char* path, csv_file* f, char* msg, size_t n) {
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

const char* csv_at(const csv_file* f, long r, int c) {
    return r < f->nrow && c < f->ncell[r] ? f->cell[f->row0[r] + c] : "";
}

/* The column of f named name, or -1. */
int csv_col(const csv_file* f, const char* name) {
    for (int c = 0; f->nrow > 0 && c < f->ncell[0]; ++c) {
        if (strcmp(csv_at(f, 0, c), name) == 0) {
            return c;
        }
    }
    return -1;
}

int cmp_keyed(const void* x, const void* y) {
    const keyed *p = x, *q = y;
    const int c = strcmp(p->key, q->key);
    return c ? c : (p->idx > q->idx) - (p->idx < q->idx);
}

/* m[a[i].idx] = b[j].idx for the pairs of equal keys of the sorted lists a and b. */
void pair_sorted(const keyed* a, long na, const keyed* b, long nb, long* m) {
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

int* col_map(const csv_file* a, const csv_file* b) {
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
int cell_num(const char* s, double* x) {
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
