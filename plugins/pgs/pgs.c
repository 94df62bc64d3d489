/* pgs — a projected Gauss–Seidel solver for ccb, as a plugin (docs/architecture.md §5).
 *
 * It solves the same per-step problem as ccb's Newton solver — the convex approximation chosen
 * with --approx of the contact problem that the simulation built for the step
 * (formulation-convex §1.2) — by the other method every reader knows: Gauss–Seidel sweeps over
 * the contacts in impulse space.
 *
 * The dual of the step's convex problem min_v 1/2 |v - v*|_A^2 + sum_i l_i(J_i v + b_i) is a
 * problem in the impulses gamma, whose block i, with the others fixed, is solved exactly by one
 * contact velocity y with
 *     W_ii^{-1} (y - y~) = gamma_i(y),      y~ = J_i v + b_i - W_ii gamma_i  (own impulse removed),
 * where W_ii = J_i A^{-1} J_i^T is the contact's Delassus block and gamma_i(y) = -dl_i/dy the
 * approximation's impulse law (for SAP the projection of formulation-convex §4.4: this is
 * projected Gauss–Seidel in the R-metric; for Lagged and Similar its nonlinear analogue). The
 * local problem is the minimization of the strictly convex
 *     phi(y) = 1/2 (y - y~)^T W_ii^{-1} (y - y~) + l_i(y)
 * (3 unknowns), by Newton with backtracking on phi, using only the approximation's eval (cost,
 * impulse, Hessian). One sweep visits every contact in order and updates v = v* + A^{-1} J^T gamma
 * after each. Block coordinate descent on the convex dual converges; it stops when a sweep
 * changes no contact velocity by more than `tolerance` [m/s] (W_ii |delta gamma_i|, max-norm),
 * or fails after `max-sweeps` sweeps.
 *
 * Everything it reads comes through libccb's public API: the problem in the global form
 * (ccb_problem_to_global: A, J^T), the contact biases (ccb_problem_contact_velocity at v = 0),
 * the per-contact constants (ccb_problem_constraint) and the approximation
 * (ccb_problem_approx). A is block diagonal (one SPD block per clique): its blocks are the
 * connected components of its pattern, each factored by a dense Cholesky.
 *
 * Build (outside ccb's tree): cc -shared -fPIC -O2 $(pkg-config --cflags ccb) pgs.c -o pgs.so -lm
 * Use: ccb --plugin ./pgs.so run sphere --solver pgs; ccb --plugin ./pgs.so compare --variants
 * pgs,lagged. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"

#ifndef PGS_ABI /* the test suite builds a copy with another value, which ccb must refuse */
#define PGS_ABI CCB_ABI_VERSION
#endif

/* Options (in ccb_sim_params.ext, through the descriptors below). */
enum { OPT_TOL = 0, OPT_SWEEPS = 1 };

typedef struct block {
    int n;     /* dofs of the clique */
    int* dof;  /* its dofs, ascending */
    double* L; /* n x n Cholesky factor (lower, row-major) */
} block;

typedef struct pgs_ws {
    ccb_global_problem g;
    int nv, nc;
    int* blk_of;     /* dof -> block */
    int* pos_in_blk; /* dof -> index in its block */
    block* blk;
    int nblk;
    /* per contact: J_i (3 rows, ccb order t1, t2, n) as the dofs of its H columns, and
     * X_i = A^{-1} J_i^T over the dofs of the blocks it touches */
    int* xptr; /* nc + 1: offsets into xdof / xval (3 values per dof) */
    int* xdof;
    double* xval;
    double* W; /* 9 per contact: W_ii, row-major */
    double* b; /* 3 per contact */
    double *v, *vc, *gamma, *scratch;
    char msg[256];
} pgs_ws;

static void ws_clear(pgs_ws* w) {
    ccb_global_problem_free(&w->g);
    for (int k = 0; k < w->nblk; ++k) {
        free(w->blk[k].dof);
        free(w->blk[k].L);
    }
    free(w->blk);
    free(w->blk_of);
    free(w->pos_in_blk);
    free(w->xptr);
    free(w->xdof);
    free(w->xval);
    free(w->W);
    free(w->b);
    free(w->v);
    free(w->vc);
    free(w->gamma);
    free(w->scratch);
    char msg[256];
    memcpy(msg, w->msg, sizeof msg);
    memset(w, 0, sizeof *w);
    memcpy(w->msg, msg, sizeof msg);
}

static int find(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Dense Cholesky of the n x n row-major SPD matrix in L (in place, lower): 0 or -1. */
static int cholesky(double* L, int n) {
    for (int j = 0; j < n; ++j) {
        double d = L[j * n + j];
        for (int k = 0; k < j; ++k) {
            d -= L[j * n + k] * L[j * n + k];
        }
        if (!(d > 0)) {
            return -1;
        }
        d = sqrt(d);
        L[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = L[i * n + j];
            for (int k = 0; k < j; ++k) {
                s -= L[i * n + k] * L[j * n + k];
            }
            L[i * n + j] = s / d;
        }
        for (int i = 0; i < j; ++i) {
            L[i * n + j] = 0.0;
        }
    }
    return 0;
}

static void chol_solve(const double* L, int n, double* x) {
    for (int i = 0; i < n; ++i) {
        double s = x[i];
        for (int k = 0; k < i; ++k) {
            s -= L[i * n + k] * x[k];
        }
        x[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double s = x[i];
        for (int k = i + 1; k < n; ++k) {
            s -= L[k * n + i] * x[k];
        }
        x[i] = s / L[i * n + i];
    }
}

/* The H column of row k (ccb order t1, t2, n) of contact i (global order n, t1, t2). */
static int hcol(int i, int k) {
    return 3 * i + (k == 2 ? 0 : k + 1);
}

/* A's blocks (the connected components of its pattern) and their Cholesky factors. */
static ccb_status factor_blocks(pgs_ws* w) {
    const ccb_global_problem* g = &w->g;
    const int nv = w->nv;
    int* parent = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    w->blk_of = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    w->pos_in_blk = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    if (!parent || !w->blk_of || !w->pos_in_blk) {
        free(parent);
        return CCB_E_NOMEM;
    }
    for (int i = 0; i < nv; ++i) {
        parent[i] = i;
    }
    for (int c = 0; c < nv; ++c) { /* the cliques: connected components of A's pattern */
        for (int k = g->M_colptr[c]; k < g->M_colptr[c + 1]; ++k) {
            const int a = find(parent, c), b = find(parent, g->M_row[k]);
            parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    w->nblk = 0;
    for (int i = 0; i < nv; ++i) {
        w->blk_of[i] = find(parent, i) == i ? w->nblk++ : -1;
    }
    for (int i = 0; i < nv; ++i) {
        w->blk_of[i] = w->blk_of[find(parent, i)];
    }
    free(parent);
    w->blk = calloc((size_t)(w->nblk > 0 ? w->nblk : 1), sizeof(block));
    if (w->blk == NULL) {
        return CCB_E_NOMEM;
    }
    for (int i = 0; i < nv; ++i) {
        w->pos_in_blk[i] = w->blk[w->blk_of[i]].n++;
    }
    for (int k = 0; k < w->nblk; ++k) {
        block* B = &w->blk[k];
        B->dof = malloc((size_t)B->n * sizeof(int));
        B->L = calloc((size_t)B->n * (size_t)B->n, sizeof(double));
        if (!B->dof || !B->L) {
            return CCB_E_NOMEM;
        }
    }
    for (int i = 0; i < nv; ++i) {
        w->blk[w->blk_of[i]].dof[w->pos_in_blk[i]] = i;
    }
    for (int c = 0; c < nv; ++c) {
        block* B = &w->blk[w->blk_of[c]];
        for (int k = g->M_colptr[c]; k < g->M_colptr[c + 1]; ++k) {
            B->L[w->pos_in_blk[g->M_row[k]] * B->n + w->pos_in_blk[c]] = g->M_val[k];
        }
    }
    for (int k = 0; k < w->nblk; ++k) {
        if (cholesky(w->blk[k].L, w->blk[k].n) != 0) {
            return CCB_E_FACTOR;
        }
    }
    return CCB_OK;
}

/* Per contact: X_i = A^{-1} J_i^T over the dofs of the blocks it touches, W_ii (with the
 * compliance of a null direction) and b_i. */
static ccb_status contact_blocks(pgs_ws* w, const ccb_problem* p) {
    const ccb_global_problem* g = &w->g;
    const int nv = w->nv, nc = w->nc;
    w->xptr = malloc((size_t)(nc + 1) * sizeof(int));
    w->W = calloc((size_t)(nc > 0 ? 9 * nc : 1), sizeof(double));
    w->b = calloc((size_t)(nc > 0 ? 3 * nc : 1), sizeof(double));
    w->scratch = calloc((size_t)(nv > 0 ? 3 * nv : 1), sizeof(double));
    if (!w->xptr || !w->W || !w->b || !w->scratch) {
        return CCB_E_NOMEM;
    }
    int* mark = w->scratch ? calloc((size_t)(w->nblk > 0 ? w->nblk : 1), sizeof(int)) : NULL;
    if (mark == NULL) {
        return CCB_E_NOMEM;
    }
    size_t cap = 0, len = 0;
    int stamp = 0;
    w->xptr[0] = 0;
    for (int i = 0; i < nc; ++i) {
        ++stamp;
        int touched[2] = {-1, -1}, nt = 0;
        for (int k = 0; k < 3; ++k) {
            const int col = hcol(i, k);
            for (int e = g->H_colptr[col]; e < g->H_colptr[col + 1]; ++e) {
                const int bk = w->blk_of[g->H_row[e]];
                if (mark[bk] != stamp) {
                    mark[bk] = stamp;
                    if (nt == 2) {
                        free(mark);
                        snprintf(w->msg, sizeof w->msg, "contact %d touches more than two cliques",
                                 i);
                        return CCB_E_INVALID;
                    }
                    touched[nt++] = bk;
                }
            }
        }
        size_t need = 0;
        for (int t = 0; t < nt; ++t) {
            need += (size_t)w->blk[touched[t]].n;
        }
        if (len + need > cap) {
            cap = 2 * (len + need) + 64;
            int* xd = realloc(w->xdof, cap * sizeof(int));
            if (xd == NULL) {
                free(mark);
                return CCB_E_NOMEM;
            }
            w->xdof = xd;
            double* xv = realloc(w->xval, 3 * cap * sizeof(double));
            if (xv == NULL) {
                free(mark);
                return CCB_E_NOMEM;
            }
            w->xval = xv;
        }
        for (int t = 0; t < nt; ++t) {
            const block* B = &w->blk[touched[t]];
            for (int k = 0; k < 3; ++k) { /* x = A_B^{-1} (J_i row k restricted to B) */
                double* x = w->scratch;
                memset(x, 0, (size_t)B->n * sizeof(double));
                const int col = hcol(i, k);
                for (int e = g->H_colptr[col]; e < g->H_colptr[col + 1]; ++e) {
                    if (w->blk_of[g->H_row[e]] == touched[t]) {
                        x[w->pos_in_blk[g->H_row[e]]] = g->H_val[e];
                    }
                }
                chol_solve(B->L, B->n, x);
                for (int j = 0; j < B->n; ++j) {
                    w->xval[3 * (len + (size_t)j) + (size_t)k] = x[j];
                }
            }
            for (int j = 0; j < B->n; ++j) {
                w->xdof[len + (size_t)j] = B->dof[j];
            }
            len += (size_t)B->n;
        }
        w->xptr[i + 1] = (int)len;
        /* W_ii = J_i X_i */
        for (int r = 0; r < 3; ++r) {
            const int col = hcol(i, r);
            for (int e = g->H_colptr[col]; e < g->H_colptr[col + 1]; ++e) {
                for (int q = w->xptr[i]; q < w->xptr[i + 1]; ++q) {
                    if (w->xdof[q] == g->H_row[e]) {
                        for (int c = 0; c < 3; ++c) {
                            w->W[9 * i + 3 * r + c] += g->H_val[e] * w->xval[3 * q + c];
                        }
                    }
                }
            }
        }
    }
    free(mark);
    /* A direction that no velocity reaches (out of a planar model's plane) makes W_ii singular:
     * it gets the compliance 1e-10 max_k W_kk, so its impulse moves the contact velocity by
     * round-off only and the block problem stays strictly convex. */
    for (int i = 0; i < nc; ++i) {
        double* W = w->W + 9 * i;
        const double eps = 1e-10 * fmax(W[0], fmax(W[4], W[8]));
        W[0] += eps;
        W[4] += eps;
        W[8] += eps;
    }
    memset(w->v, 0, (size_t)nv * sizeof(double)); /* b_i = v_c at v = 0 */
    for (int i = 0; i < nc; ++i) {
        const ccb_status s = ccb_problem_contact_velocity(p, i, w->v, w->b + 3 * i);
        if (s != CCB_OK) {
            return s;
        }
    }
    return CCB_OK;
}

/* v_c of contact i at w->v */
static void contact_velocity(const pgs_ws* w, int i, double vc[3]) {
    const ccb_global_problem* g = &w->g;
    for (int k = 0; k < 3; ++k) {
        const int col = hcol(i, k);
        double s = w->b[3 * i + k];
        for (int e = g->H_colptr[col]; e < g->H_colptr[col + 1]; ++e) {
            s += g->H_val[e] * w->v[g->H_row[e]];
        }
        vc[k] = s;
    }
}

/* 3 x 3 inverse of an SPD matrix (adjugate); 0 or -1. */
static int inv3(const double* a, double* r) {
    const double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8],
                 c02 = a[3] * a[7] - a[4] * a[6];
    const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    if (!(det > 0) || !isfinite(det)) {
        return -1;
    }
    r[0] = c00 / det;
    r[1] = (a[2] * a[7] - a[1] * a[8]) / det;
    r[2] = (a[1] * a[5] - a[2] * a[4]) / det;
    r[3] = c01 / det;
    r[4] = (a[0] * a[8] - a[2] * a[6]) / det;
    r[5] = (a[2] * a[3] - a[0] * a[5]) / det;
    r[6] = c02 / det;
    r[7] = (a[1] * a[6] - a[0] * a[7]) / det;
    r[8] = (a[0] * a[4] - a[1] * a[3]) / det;
    return 0;
}

/* phi(y) = 1/2 (y - yt)^T Wi (y - yt) + l(y); gradient and Hessian if asked. */
static double local_phi(const ccb_approx* ap, const ccb_constraint* c, const double* Wi,
                        const double* yt, const double* y, double* gr, double* H, double* gam) {
    double d[3] = {y[0] - yt[0], y[1] - yt[1], y[2] - yt[2]}, Wd[3];
    for (int r = 0; r < 3; ++r) {
        Wd[r] = Wi[3 * r] * d[0] + Wi[3 * r + 1] * d[1] + Wi[3 * r + 2] * d[2];
    }
    double G[9];
    const double l = ap->eval(c, y, gam, H ? G : NULL);
    if (gr) {
        for (int r = 0; r < 3; ++r) {
            gr[r] = Wd[r] - gam[r];
        }
    }
    if (H) {
        for (int k = 0; k < 9; ++k) {
            H[k] = Wi[k] + G[k];
        }
    }
    return 0.5 * (d[0] * Wd[0] + d[1] * Wd[1] + d[2] * Wd[2]) + l;
}

/* d phi(y + a dy) / da and its second derivative (the line search's function). */
static double dphi(const ccb_approx* ap, const ccb_constraint* c, const double* Wi,
                   const double* yt, const double* y, const double* dy, double a, double* d2) {
    double ya[3], gr[3], H[9], gam[3];
    for (int r = 0; r < 3; ++r) {
        ya[r] = y[r] + a * dy[r];
    }
    local_phi(ap, c, Wi, yt, ya, gr, H, gam);
    double s2 = 0.0;
    for (int r = 0; r < 3; ++r) {
        s2 += dy[r] * (H[3 * r] * dy[0] + H[3 * r + 1] * dy[1] + H[3 * r + 2] * dy[2]);
    }
    *d2 = s2;
    return gr[0] * dy[0] + gr[1] * dy[1] + gr[2] * dy[2];
}

/* The exact line search of the block problem, as ccb's Newton solver does
 * (formulation-convex §8.3): the a in (0, 1] where phi(y + a dy) is least (phi is convex along dy; a = 1 if it still
 * falls there), by Newton on d phi/da safeguarded by bisection of the bracket. */
static double line_search(const ccb_approx* ap, const ccb_constraint* c, const double* Wi,
                          const double* yt, const double* y, const double* dy, double slope0) {
    double d2 = 0.0;
    double d1 = dphi(ap, c, Wi, yt, y, dy, 1.0, &d2);
    if (d1 <= 0) {
        return 1.0;
    }
    double lo = 0.0, hi = 1.0, a = 1.0;
    for (int k = 0; k < 100 && hi - lo > 1e-15 * hi; ++k) {
        double an = d2 > 0 ? a - d1 / d2 : -1.0;
        if (!(an > lo && an < hi)) {
            an = 0.5 * (lo + hi);
        }
        a = an;
        d1 = dphi(ap, c, Wi, yt, y, dy, a, &d2);
        if (fabs(d1) <= 1e-14 * fabs(slope0)) {
            break;
        }
        if (d1 < 0) {
            lo = a;
        } else {
            hi = a;
        }
    }
    return a;
}

/* The block problem of contact i: y minimizing phi from the start y (in/out); gamma_i(y) in gam.
 * Converged when the optimality residual as a velocity, W_ii (W_ii^{-1} (y - y~) - gamma_i(y)),
 * is 1e-13 of the velocities, or when Newton's step is round-off of them or does not lower phi
 * (phi at its floating-point minimum). 0, or -1 after 100 iterations. */
static int local_solve(const ccb_approx* ap, const ccb_constraint* c, const double* W,
                       const double* yt, double* y, double* gam) {
    double Wi[9];
    if (inv3(W, Wi) != 0) {
        return -1;
    }
    for (int it = 0; it < 100; ++it) {
        double gr[3], H[9], Hi[9];
        const double f = local_phi(ap, c, Wi, yt, y, gr, H, gam);
        /* the residual as a velocity, W_ii (W_ii^{-1} (y - y~) - gamma), against y and y~ */
        double mag = 0.0, res = 0.0;
        for (int r = 0; r < 3; ++r) {
            mag = fmax(mag, fmax(fabs(y[r]), fabs(yt[r])));
            res = fmax(res, fabs(W[3 * r] * gr[0] + W[3 * r + 1] * gr[1] + W[3 * r + 2] * gr[2]));
        }
        if (res <= 1e-13 * mag || mag == 0.0) {
            return 0;
        }
        if (inv3(H, Hi) != 0) {
            return -1;
        }
        double dy[3];
        for (int r = 0; r < 3; ++r) {
            dy[r] = -(Hi[3 * r] * gr[0] + Hi[3 * r + 1] * gr[1] + Hi[3 * r + 2] * gr[2]);
        }
        const double slope = gr[0] * dy[0] + gr[1] * dy[1] + gr[2] * dy[2];
        if (!(slope < 0)) {
            return 0; /* no descent direction left: round-off */
        }
        const double a = line_search(ap, c, Wi, yt, y, dy, slope);
        const double step = a * fmax(fabs(dy[0]), fmax(fabs(dy[1]), fabs(dy[2])));
        double yn[3];
        for (int r = 0; r < 3; ++r) {
            yn[r] = y[r] + a * dy[r];
        }
        if (!(local_phi(ap, c, Wi, yt, yn, NULL, NULL, gam) <= f) || step <= 1e-15 * mag) {
            local_phi(ap, c, Wi, yt, y, NULL, NULL, gam); /* phi at its floating-point minimum */
            return 0;
        }
        memcpy(y, yn, sizeof yn);
    }
    return -1;
}

static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    if (!(p->ext[OPT_TOL] > 0) || !(p->ext[OPT_SWEEPS] >= 1)) {
        snprintf(msg, n,
                 "pgs: tolerance must be > 0 and max-sweeps >= 1 (got %g, %g); select the "
                 "solver with ccb_sim_params_set_solver for its defaults",
                 p->ext[OPT_TOL], p->ext[OPT_SWEEPS]);
        return CCB_E_INVALID;
    }
    return CCB_OK;
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    pgs_ws* w = calloc(1, sizeof *w);
    if (w == NULL) {
        snprintf(msg, n, "pgs: out of memory");
        return CCB_E_NOMEM;
    }
    ccb_sim_set_solver_data(sim, w);
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    pgs_ws* w = ccb_sim_solver_data(sim);
    if (w) {
        ws_clear(w);
        free(w);
    }
    ccb_sim_set_solver_data(sim, NULL);
}

static ccb_status solve(ccb_sim* sim, const ccb_step_context* step, const double* guess,
                        double* counter, const double** v, const double** vc,
                        const double** gamma) {
    (void)step, (void)guess; /* impulse space: every step starts from gamma = 0 (v = v*) */
    pgs_ws* w = ccb_sim_solver_data(sim);
    const ccb_problem* p = ccb_sim_problem(sim);
    const ccb_sim_params* prm = ccb_sim_params_get(sim);
    const double tol = prm->ext[OPT_TOL];
    const long max_sweeps = (long)prm->ext[OPT_SWEEPS];
    ws_clear(w);
    w->nv = ccb_problem_nv(p);
    w->nc = ccb_problem_nc(p);
    ccb_status s = ccb_problem_to_global(p, &w->g);
    const size_t nv = (size_t)(w->nv > 0 ? w->nv : 1), nc3 = (size_t)(w->nc > 0 ? 3 * w->nc : 1);
    w->v = calloc(nv, sizeof(double));
    w->vc = calloc(nc3, sizeof(double));
    w->gamma = calloc(nc3, sizeof(double));
    if (s == CCB_OK && (!w->v || !w->vc || !w->gamma)) {
        s = CCB_E_NOMEM;
    }
    if (s == CCB_OK) {
        s = factor_blocks(w);
    }
    if (s == CCB_OK) {
        s = contact_blocks(w, p);
    }
    if (s != CCB_OK) {
        if (!w->msg[0]) {
            snprintf(w->msg, sizeof w->msg, "pgs: setting up the step failed (%s)",
                     ccb_status_string(s));
        }
        return s;
    }
    memcpy(w->v, ccb_problem_vstar(p), (size_t)w->nv * sizeof(double)); /* gamma = 0 */
    const ccb_approx* ap = ccb_problem_approx(p);
    long sweep = 0;
    double change = INFINITY;
    while (change > tol && sweep < max_sweeps) {
        change = 0.0;
        for (int i = 0; i < w->nc; ++i) {
            const ccb_constraint* c = ccb_problem_constraint(p, i);
            double* gi = w->gamma + 3 * i;
            const double* W = w->W + 9 * i;
            double y[3], yt[3], gn[3];
            contact_velocity(w, i, y);
            if (gi[0] == 0 && gi[1] == 0 && gi[2] == 0 && ap->inactive_radius &&
                ap->inactive_radius(c, y) >= 0) {
                continue; /* inactive at its velocity and carrying nothing: already solved */
            }
            for (int r = 0; r < 3; ++r) {
                yt[r] = y[r] - (W[3 * r] * gi[0] + W[3 * r + 1] * gi[1] + W[3 * r + 2] * gi[2]);
            }
            if (local_solve(ap, c, W, yt, y, gn) != 0) {
                snprintf(w->msg, sizeof w->msg,
                         "pgs: the block problem of contact %d did not converge in sweep %ld", i,
                         sweep + 1);
                return CCB_E_NOTCONV;
            }
            double dg[3] = {gn[0] - gi[0], gn[1] - gi[1], gn[2] - gi[2]};
            for (int r = 0; r < 3; ++r) {
                const double dv = W[3 * r] * dg[0] + W[3 * r + 1] * dg[1] + W[3 * r + 2] * dg[2];
                change = fmax(change, fabs(dv));
            }
            for (int q = w->xptr[i]; q < w->xptr[i + 1]; ++q) {
                const double* x = w->xval + 3 * q;
                w->v[w->xdof[q]] += x[0] * dg[0] + x[1] * dg[1] + x[2] * dg[2];
            }
            memcpy(gi, gn, sizeof gn);
        }
        ++sweep;
        if (!isfinite(change)) {
            snprintf(w->msg, sizeof w->msg, "pgs: a non-finite impulse in sweep %ld", sweep);
            return CCB_E_NONFINITE;
        }
    }
    counter[CCB_CNT_ITERATIONS] = (double)sweep;
    counter[CCB_CNT_RESIDUAL] = change;
    counter[CCB_CNT_TOLERANCE] = tol;
    for (int i = 0; i < w->nc; ++i) {
        contact_velocity(w, i, w->vc + 3 * i);
    }
    *v = w->v;
    *vc = w->vc;
    *gamma = w->gamma;
    if (change > tol) {
        snprintf(w->msg, sizeof w->msg,
                 "pgs: %ld sweeps without convergence (largest contact-velocity change %.3g m/s "
                 "> tolerance %g)",
                 sweep, change, tol);
        return CCB_E_NOTCONV;
    }
    return CCB_OK;
}

static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    const ccb_problem* p = ccb_sim_problem(sim);
    return ccb_problem_approx(p)->stiction_tolerance(ccb_problem_constraint(p, i), gamma);
}

static const char* last_error(const ccb_sim* sim) {
    const pgs_ws* w = ccb_sim_solver_data(sim);
    return w ? w->msg : "pgs: no workspace";
}

static const ccb_option_desc k_options[] = {
    {.name = "pgs-tolerance",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = CCB_SIM_EXT_OFFSET(OPT_TOL),
     .min = 0,
     .min_open = 1,
     .max = 1,
     .def = 1e-6,
     .unit = "m/s",
     .doc = "a sweep that changes no contact velocity by more than this ends the solve"},
    {.name = "max-sweeps",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_DOUBLE,
     .offset = CCB_SIM_EXT_OFFSET(OPT_SWEEPS),
     .min = 1,
     .max = 1e7,
     .def = 10000,
     .unit = "",
     .doc = "Gauss-Seidel sweeps before the step fails"},
};

static const ccb_solver_type k_pgs = {
    .abi = PGS_ABI,
    .name = "pgs",
    .title = "projected Gauss-Seidel on the convex approximation's dual (plugin)",
    .reference = "plugins/pgs/pgs.c; formulation-convex §1.2",
    .flags = CCB_SOLVER_CONVEX,
    .iterations = "sweeps",
    .notes = "block coordinate descent on the dual of the step's convex problem: one exact 3-D "
             "block solve per contact (Newton with backtracking on the approximation's eval), "
             "contacts in the problem's order, every step from gamma = 0; stops when a sweep "
             "moves no contact velocity by more than --pgs-tolerance.",
    .options = k_options,
    .noptions = (int)(sizeof k_options / sizeof k_options[0]),
    .check = check,
    .create = create,
    .destroy = destroy,
    .solve = solve,
    .stiction = stiction,
    .last_error = last_error,
};

/* The plugin's entry points (docs/architecture.md §5). */
const int ccb_plugin_abi = PGS_ABI;
int ccb_plugin_register(char* msg, size_t n);
int ccb_plugin_register(char* msg, size_t n) {
    return ccb_solver_register(&k_pgs, msg, n) == CCB_OK ? 0 : 1;
}
