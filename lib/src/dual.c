/* dual: the step problem in impulse space for dual solvers (ccb/dual.h;
 * formulation-convex §1.2). Everything comes through the problem's public form: its global form
 * (ccb_problem_to_global: A, J^T), the contact biases (ccb_problem_contact_velocity at v = 0),
 * and, for the block problem, the approximation's eval. */
#include "ccb/dual.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccb/alloc.h"
#include "dense.h"

typedef struct block {
    int n;     /* dofs of the clique */
    int* dof;  /* its dofs, ascending */
    double* L; /* n x n Cholesky factor (lower, row-major) */
} block;

struct ccb_dual {
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
    double* scratch;
    char msg[256];
};

static void dual_clear(ccb_dual* w) {
    ccb_global_problem_free(&w->g);
    for (int k = 0; k < w->nblk; ++k) {
        ccb_free(w->blk[k].dof);
        ccb_free(w->blk[k].L);
    }
    ccb_free(w->blk);
    ccb_free(w->blk_of);
    ccb_free(w->pos_in_blk);
    ccb_free(w->xptr);
    ccb_free(w->xdof);
    ccb_free(w->xval);
    ccb_free(w->W);
    ccb_free(w->b);
    ccb_free(w->scratch);
    memset(w, 0, sizeof *w);
}

ccb_status ccb_dual_create(ccb_dual** out) {
    if (out == NULL) {
        return CCB_E_INVALID;
    }
    *out = ccb_calloc(1, sizeof **out);
    return *out ? CCB_OK : CCB_E_NOMEM;
}

void ccb_dual_destroy(ccb_dual* d) {
    if (d) {
        dual_clear(d);
        ccb_free(d);
    }
}

static int find(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* The H column of row k (ccb order t1, t2, n) of contact i (global order n, t1, t2). */
static int hcol(int i, int k) {
    return 3 * i + (k == 2 ? 0 : k + 1);
}

/* A's blocks (the connected components of its pattern) and their Cholesky factors. */
static ccb_status factor_blocks(ccb_dual* w) {
    const ccb_global_problem* g = &w->g;
    const int nv = w->nv;
    int* parent = ccb_alloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    w->blk_of = ccb_alloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    w->pos_in_blk = ccb_alloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    if (!parent || !w->blk_of || !w->pos_in_blk) {
        ccb_free(parent);
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
    ccb_free(parent);
    w->blk = ccb_calloc((size_t)(w->nblk > 0 ? w->nblk : 1), sizeof(block));
    if (w->blk == NULL) {
        return CCB_E_NOMEM;
    }
    for (int i = 0; i < nv; ++i) {
        w->pos_in_blk[i] = w->blk[w->blk_of[i]].n++;
    }
    for (int k = 0; k < w->nblk; ++k) {
        block* B = &w->blk[k];
        B->dof = ccb_alloc((size_t)B->n * sizeof(int));
        B->L = ccb_calloc((size_t)B->n * (size_t)B->n, sizeof(double));
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
        if (ccb_dense_cholesky(w->blk[k].n, w->blk[k].L) != 0) {
            return CCB_E_FACTOR;
        }
    }
    return CCB_OK;
}

/* Per contact: X_i = A^{-1} J_i^T over the dofs of the blocks it touches, W_ii (with the
 * compliance of a null direction) and b_i. */
static ccb_status contact_blocks(ccb_dual* w, const ccb_problem* p) {
    const ccb_global_problem* g = &w->g;
    const int nv = w->nv, nc = w->nc;
    w->xptr = ccb_alloc((size_t)(nc + 1) * sizeof(int));
    w->W = ccb_calloc((size_t)(nc > 0 ? 9 * nc : 1), sizeof(double));
    w->b = ccb_calloc((size_t)(nc > 0 ? 3 * nc : 1), sizeof(double));
    w->scratch = ccb_calloc((size_t)(nv > 0 ? 3 * nv : 1), sizeof(double));
    if (!w->xptr || !w->W || !w->b || !w->scratch) {
        return CCB_E_NOMEM;
    }
    int* mark = w->scratch ? ccb_calloc((size_t)(w->nblk > 0 ? w->nblk : 1), sizeof(int)) : NULL;
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
                        ccb_free(mark);
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
            int* xd = ccb_realloc(w->xdof, cap * sizeof(int));
            if (xd == NULL) {
                ccb_free(mark);
                return CCB_E_NOMEM;
            }
            w->xdof = xd;
            double* xv = ccb_realloc(w->xval, 3 * cap * sizeof(double));
            if (xv == NULL) {
                ccb_free(mark);
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
                ccb_dense_chol_solve(B->n, B->L, x);
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
    ccb_free(mark);
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
    memset(w->scratch, 0, (size_t)nv * sizeof(double)); /* b_i = v_c at v = 0 */
    for (int i = 0; i < nc; ++i) {
        const ccb_status s = ccb_problem_contact_velocity(p, i, w->scratch, w->b + 3 * i);
        if (s != CCB_OK) {
            return s;
        }
    }
    return CCB_OK;
}

ccb_status ccb_dual_setup(ccb_dual* d, const ccb_problem* p, char* msg, size_t n) {
    if (d == NULL || p == NULL) {
        if (msg && n) {
            snprintf(msg, n, "dual: NULL workspace or problem");
        }
        return CCB_E_INVALID;
    }
    dual_clear(d);
    d->nv = ccb_problem_nv(p);
    d->nc = ccb_problem_nc(p);
    ccb_status s = ccb_problem_to_global(p, &d->g);
    if (s == CCB_OK) {
        s = factor_blocks(d);
    }
    if (s == CCB_OK) {
        s = contact_blocks(d, p);
    }
    if (s != CCB_OK && msg && n) {
        snprintf(msg, n, "dual: %s",
                 d->msg[0]           ? d->msg
                 : s == CCB_E_FACTOR ? "a block of A is not positive definite"
                                     : ccb_status_string(s));
    }
    return s;
}

int ccb_dual_nv(const ccb_dual* d) {
    return d->nv;
}

int ccb_dual_nc(const ccb_dual* d) {
    return d->nc;
}

const double* ccb_dual_delassus(const ccb_dual* d, int i) {
    return d->W + 9 * i;
}

/* y_i = J_i v + b_i */
void ccb_dual_contact_velocity(const ccb_dual* w, int i, const double* v, double vc[3]) {
    const ccb_global_problem* g = &w->g;
    for (int k = 0; k < 3; ++k) {
        const int col = hcol(i, k);
        double s = w->b[3 * i + k];
        for (int e = g->H_colptr[col]; e < g->H_colptr[col + 1]; ++e) {
            s += g->H_val[e] * v[g->H_row[e]];
        }
        vc[k] = s;
    }
}

void ccb_dual_add_impulse(const ccb_dual* w, int i, const double dg[3], double* v) {
    for (int q = w->xptr[i]; q < w->xptr[i + 1]; ++q) {
        const double* x = w->xval + 3 * q;
        v[w->xdof[q]] += x[0] * dg[0] + x[1] * dg[1] + x[2] * dg[2];
    }
}

/* ---- the block problem of one contact ------------------------------------------------------ */

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
    const double l = ccb_constraint_eval(ap, c, y, gam, H ? G : NULL);
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
int ccb_dual_block_solve(const ccb_approx* ap, const ccb_constraint* c, const double W[9],
                         const double yt[3], double y[3], double gam[3]) {
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
