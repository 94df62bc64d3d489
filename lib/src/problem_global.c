/* problem_global: the step problem as a rigid frictional contact problem in FCLIB's global form
 * (formulation-convex §16): M = A, f = A v*, H = J^T with each contact's columns (n, t1, t2), and
 * w = (b_n + phi0/dt, b_t1, b_t2). The library itself writes no file format; cases/fclib.c
 * writes these arrays with libfclib. */
#include <string.h>

#include "ccb/alloc.h"
#include "problem_internal.h"

void ccb_global_problem_free(ccb_global_problem* g) {
    if (g == NULL) {
        return;
    }
    ccb_free(g->M_colptr);
    ccb_free(g->M_row);
    ccb_free(g->M_val);
    ccb_free(g->H_colptr);
    ccb_free(g->H_row);
    ccb_free(g->H_val);
    ccb_free(g->f);
    ccb_free(g->w);
    ccb_free(g->mu);
    memset(g, 0, sizeof *g);
}

/* formulation-convex §16: global order (n, t1, t2), ccb's (t1, t2, n) */
void ccb_global_from_ccb_order(int nc, const double* ccb, double* global) {
    for (int i = 0; i < nc; ++i) {
        global[3 * i] = ccb[3 * i + 2];
        global[3 * i + 1] = ccb[3 * i];
        global[3 * i + 2] = ccb[3 * i + 1];
    }
}

void ccb_global_to_ccb_order(int nc, const double* global, double* ccb) {
    for (int i = 0; i < nc; ++i) {
        ccb[3 * i + 2] = global[3 * i];
        ccb[3 * i] = global[3 * i + 1];
        ccb[3 * i + 1] = global[3 * i + 2];
    }
}

ccb_status ccb_problem_to_global(const ccb_problem* p, ccb_global_problem* g) {
    if (p == NULL || g == NULL) {
        return CCB_E_INVALID;
    }
    memset(g, 0, sizeof *g);
    for (int i = 0; i < p->nc; ++i) {
        const ccb_status s = ccb_problem_complete(p, i);
        if (s != CCB_OK) {
            return s;
        }
    }
    const int nv = p->nv, nc = p->nc;
    const double dt = p->step.dt;
    if (!(dt > 0)) {
        return CCB_E_INVALID;
    }
    size_t nnz_m = 0, nnz_h = 0;
    for (int c = 0; c < p->nclique; ++c) {
        nnz_m += (size_t)p->clique_nv[c] * (size_t)p->clique_nv[c];
    }
    for (int i = 0; i < nc; ++i) {
        const ccb_pcontact* pc = &p->contacts[i];
        if (pc->c.aniso[0] != 0.0) {
            return CCB_E_INVALID; /* FCLIB's cone is isotropic (formulation-convex §18.4) */
        }
        for (int k = 0; k < pc->nblk; ++k) {
            nnz_h += 3 * (size_t)p->clique_nv[pc->clique[k]];
        }
    }
    g->nv = nv;
    g->nc = nc;
    g->dt = dt;
    g->M_colptr = ccb_calloc((size_t)nv + 1, sizeof(int));
    g->M_row = ccb_calloc(nnz_m > 0 ? nnz_m : 1, sizeof(int));
    g->M_val = ccb_calloc(nnz_m > 0 ? nnz_m : 1, sizeof(double));
    g->H_colptr = ccb_calloc(3 * (size_t)nc + 1, sizeof(int));
    g->H_row = ccb_calloc(nnz_h > 0 ? nnz_h : 1, sizeof(int));
    g->H_val = ccb_calloc(nnz_h > 0 ? nnz_h : 1, sizeof(double));
    g->f = ccb_calloc(nv > 0 ? (size_t)nv : 1, sizeof(double));
    g->w = ccb_calloc(nc > 0 ? 3 * (size_t)nc : 1, sizeof(double));
    g->mu = ccb_calloc(nc > 0 ? (size_t)nc : 1, sizeof(double));
    if (!g->M_colptr || !g->M_row || !g->M_val || !g->H_colptr || !g->H_row || !g->H_val || !g->f ||
        !g->w || !g->mu) {
        ccb_global_problem_free(g);
        return CCB_E_NOMEM;
    }
    /* M = A: the clique blocks on the diagonal (cliques are contiguous in v), f = A v* */
    int col = 0, at = 0;
    for (int c = 0; c < p->nclique; ++c) {
        const int n = p->clique_nv[c], off = p->clique_voff[c];
        const double* A = p->A + p->clique_aoff[c];
        CCB_ASSERT(off == col); /* cliques tile v in order */
        for (int j = 0; j < n; ++j, ++col) {
            g->M_colptr[col] = at;
            for (int r = 0; r < n; ++r) {
                g->M_row[at] = off + r;
                g->M_val[at++] = A[r * n + j];
                g->f[off + r] += A[r * n + j] * p->vstar[off + j];
            }
        }
    }
    CCB_ASSERT(col == nv);
    g->M_colptr[nv] = at;
    /* H: per contact the rows n, t1, t2 of J as columns; its blocks in ascending velocity order */
    static const int k_row[3] = {2, 0, 1}; /* global component -> ccb row */
    at = 0;
    for (int i = 0; i < nc; ++i) {
        const ccb_pcontact* pc = &p->contacts[i];
        int order[2] = {0, 1};
        if (pc->nblk == 2 && p->clique_voff[pc->clique[1]] < p->clique_voff[pc->clique[0]]) {
            order[0] = 1, order[1] = 0;
        }
        for (int comp = 0; comp < 3; ++comp) {
            g->H_colptr[3 * i + comp] = at;
            for (int kk = 0; kk < pc->nblk; ++kk) {
                const int k = order[kk], c = pc->clique[k];
                const int n = p->clique_nv[c], off = p->clique_voff[c];
                const double* J = ccb_pc_block(p, pc, k);
                for (int j = 0; j < n; ++j) {
                    g->H_row[at] = off + j;
                    g->H_val[at++] = J[k_row[comp] * n + j];
                }
            }
            g->w[3 * i + comp] = pc->b[k_row[comp]];
        }
        g->w[3 * i] += pc->in.phi0 / dt; /* phi0 + dt v_n >= 0, formulation-convex §1.3 */
        g->mu[i] = pc->in.mu;
    }
    g->H_colptr[3 * nc] = at;
    return CCB_OK;
}
