/* fclib_io: ccb_global_problem <-> FCLIB 3.1 global problems (HDF5), see fclib_io.h. */
#define _POSIX_C_SOURCE 200809L
#include "fclib_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/record.h"

#ifdef CCB_HAVE_FCLIB
#include <fclib.h>

#include "peer_dl.h"

/* FCLIB's functions, opened at first use (peer_dl.h) */
/* clang-format off */
#define FC_FUNCTIONS(X)       \
    X(fclib_delete_global)    \
    X(fclib_delete_solutions) \
    X(fclib_read_global)      \
    X(fclib_read_solution)    \
    X(fclib_write_global)     \
    X(fclib_write_solution)
/* clang-format on */
#define FC_POINTER(f) __typeof__(f)* f;
#define FC_ENTRY(f) {#f, &fcf.f},
static struct { FC_FUNCTIONS(FC_POINTER) } fcf;
static const peer_dl_sym fc_syms[] = {FC_FUNCTIONS(FC_ENTRY){NULL, NULL}};
static peer_dl fc_lib = PEER_DL_INIT(CCB_FCLIB_SONAME, fc_syms);
#define fclib_delete_global (*fcf.fclib_delete_global)
#define fclib_delete_solutions (*fcf.fclib_delete_solutions)
#define fclib_read_global (*fcf.fclib_read_global)
#define fclib_read_solution (*fcf.fclib_read_solution)
#define fclib_write_global (*fcf.fclib_write_global)
#define fclib_write_solution (*fcf.fclib_write_solution)

int fclib_io_available(void) {
    return peer_dl_open(&fc_lib, NULL, 0) == 0;
}

const char* fclib_io_absent(void) {
    static char why[400];
    return peer_dl_open(&fc_lib, why, sizeof why) == 0 ? NULL : why;
}

int fclib_io_write(const char* path, const ccb_global_problem* g, const double* v,
                   const double* gamma, const char* title, const char* description, char* msg,
                   size_t n) {
    if (peer_dl_open(&fc_lib, msg, n) != 0) {
        return -1;
    }
    const int nc = g->nc, m = 3 * g->nc;
    struct fclib_matrix M, H;
    memset(&M, 0, sizeof M);
    memset(&H, 0, sizeof H);
    M.m = M.n = g->nv;
    M.nzmax = g->M_colptr[g->nv];
    M.p = g->M_colptr, M.i = g->M_row, M.x = g->M_val, M.nz = -1; /* compressed columns */
    H.m = g->nv, H.n = m;
    H.nzmax = g->H_colptr[m];
    H.p = g->H_colptr, H.i = g->H_row, H.x = g->H_val, H.nz = -1;
    char math[160];
    snprintf(math, sizeof math,
             "dt = %.17g s; w_n = b_n + phi0/dt (ccb, formulation-convex section 16)", g->dt);
    struct fclib_info info = {(char*)title, (char*)description, math};
    struct fclib_global fg;
    memset(&fg, 0, sizeof fg);
    fg.M = &M, fg.H = &H, fg.G = NULL;
    fg.mu = g->mu, fg.f = g->f, fg.b = NULL, fg.w = g->w;
    fg.spacedim = 3;
    fg.info = &info;
    double* u = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    double* r = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    if (u == NULL || r == NULL) {
        free(u), free(r);
        snprintf(msg, n, "fclib: out of memory");
        return -1;
    }
    ccb_global_from_ccb_order(nc, gamma, r);
    for (int c = 0; c < m; ++c) { /* u = H^T v + w */
        u[c] = g->w[c];
        for (int a = g->H_colptr[c]; a < g->H_colptr[c + 1]; ++a) {
            u[c] += g->H_val[a] * v[g->H_row[a]];
        }
    }
    struct fclib_solution sol = {(double*)v, u, r, NULL};
    ccb_writer* w = NULL;
    int rc = -1;
    if (ccb_writer_open(path, &w, msg, n) == CCB_OK) {
        const char* tmp = ccb_writer_temp_path(w);
        if (fclib_write_global(&fg, tmp) != 1) {
            snprintf(msg, n, "fclib: cannot write the problem to '%s'", path);
            ccb_writer_abort(w);
        } else if (fclib_write_solution(&sol, tmp) != 1) {
            snprintf(msg, n, "fclib: cannot write the solution to '%s'", path);
            ccb_writer_abort(w);
        } else {
            rc = ccb_writer_commit(w, msg, n) == CCB_OK ? 0 : -1;
        }
    }
    free(u);
    free(r);
    return rc;
}

/* CSC copy of an FCLIB matrix (compressed columns, compressed rows or triplets). */
static int csc_from(const struct fclib_matrix* A, int** colptr, int** row, double** val) {
    const int nnz = A->nz >= 0 ? A->nz : A->nz == -1 ? A->p[A->n] : A->p[A->m];
    *colptr = ccb_calloc((size_t)A->n + 1, sizeof(int));
    *row = ccb_calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(int));
    *val = ccb_calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(double));
    if (!*colptr || !*row || !*val) {
        return -1;
    }
    if (A->nz == -1) {
        memcpy(*colptr, A->p, ((size_t)A->n + 1) * sizeof(int));
        memcpy(*row, A->i, (size_t)nnz * sizeof(int));
        memcpy(*val, A->x, (size_t)nnz * sizeof(double));
        return 0;
    }
    /* triplets (row p[k], col i[k]) or compressed rows (row r: i[p[r] .. p[r+1]) columns) */
    int* cnt = calloc((size_t)A->n + 1, sizeof(int));
    if (cnt == NULL) {
        return -1;
    }
    for (int k = 0; k < nnz; ++k) {
        cnt[A->i[k] + 1]++;
    }
    for (int j = 0; j < A->n; ++j) {
        cnt[j + 1] += cnt[j];
    }
    memcpy(*colptr, cnt, ((size_t)A->n + 1) * sizeof(int));
    for (int k = 0; k < nnz; ++k) {
        int r = 0;
        if (A->nz >= 0) {
            r = A->p[k];
        } else {
            while (k >= A->p[r + 1]) {
                ++r;
            }
        }
        const int at = cnt[A->i[k]]++;
        (*row)[at] = r;
        (*val)[at] = A->x[k];
    }
    free(cnt);
    return 0;
}

int fclib_io_read(const char* path, ccb_global_problem* g, double** v, double** r, char* msg,
                  size_t n) {
    memset(g, 0, sizeof *g);
    if (v) {
        *v = NULL;
    }
    if (r) {
        *r = NULL;
    }
    if (peer_dl_open(&fc_lib, msg, n) != 0) {
        return -1;
    }
    struct fclib_global* fg = fclib_read_global(path);
    if (fg == NULL || fg->M == NULL || fg->H == NULL || fg->spacedim != 3 || fg->H->n % 3 != 0 ||
        fg->M->m != fg->M->n || fg->H->m != fg->M->n) {
        snprintf(msg, n, "fclib: '%s' holds no three-dimensional global problem", path);
        if (fg) {
            fclib_delete_global(fg);
            free(fg);
        }
        return -1;
    }
    g->nv = fg->M->n;
    g->nc = fg->H->n / 3;
    g->dt = 0;
    if (fg->info && fg->info->math_info) {
        sscanf(fg->info->math_info, "dt = %lf", &g->dt);
    }
    int rc = csc_from(fg->M, &g->M_colptr, &g->M_row, &g->M_val);
    rc |= csc_from(fg->H, &g->H_colptr, &g->H_row, &g->H_val);
    const size_t nv = (size_t)g->nv, m = 3 * (size_t)g->nc;
    g->f = ccb_calloc(nv ? nv : 1, sizeof(double));
    g->w = ccb_calloc(m ? m : 1, sizeof(double));
    g->mu = ccb_calloc(g->nc ? (size_t)g->nc : 1, sizeof(double));
    if (rc != 0 || !g->f || !g->w || !g->mu) {
        ccb_global_problem_free(g);
        fclib_delete_global(fg);
        free(fg);
        snprintf(msg, n, "fclib: out of memory reading '%s'", path);
        return -1;
    }
    memcpy(g->f, fg->f, nv * sizeof(double));
    if (fg->w) {
        memcpy(g->w, fg->w, m * sizeof(double));
    }
    memcpy(g->mu, fg->mu, (size_t)g->nc * sizeof(double));
    fclib_delete_global(fg);
    free(fg);
    if (v || r) {
        struct fclib_solution* s = fclib_read_solution(path);
        if (s && s->v && s->r) {
            if (v && (*v = malloc(nv * sizeof(double))) != NULL) {
                memcpy(*v, s->v, nv * sizeof(double));
            }
            if (r && (*r = malloc(m * sizeof(double))) != NULL) {
                memcpy(*r, s->r, m * sizeof(double));
            }
        }
        if (s) {
            fclib_delete_solutions(s, 1);
        }
    }
    return 0;
}

#else /* no FCLIB in this build */

int fclib_io_available(void) {
    return 0;
}

const char* fclib_io_absent(void) {
    return "this ccb was built without FCLIB (install libfclib-dev and rebuild)";
}

int fclib_io_write(const char* path, const ccb_global_problem* g, const double* v,
                   const double* gamma, const char* title, const char* description, char* msg,
                   size_t n) {
    (void)path, (void)g, (void)v, (void)gamma, (void)title, (void)description;
    snprintf(msg, n, "this ccb was built without FCLIB (install libfclib-dev and rebuild)");
    return -1;
}

int fclib_io_read(const char* path, ccb_global_problem* g, double** v, double** r, char* msg,
                  size_t n) {
    (void)path, (void)g, (void)v, (void)r;
    snprintf(msg, n, "this ccb was built without FCLIB (install libfclib-dev and rebuild)");
    return -1;
}

#endif
