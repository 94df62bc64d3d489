/* Newton solver internals shared by newton.c (setup, stopping test, assembly, line search,
 * iterations) and newton_far.c (the far contacts the iterations leave out); not installed. */
#ifndef CCB_NEWTON_INTERNAL_H
#define CCB_NEWTON_INTERNAL_H

#include <stdint.h>

#include "ccb/newton.h"
#include "problem_internal.h"
#include "sparse.h"

struct ccb_newton {
    const ccb_problem* pb;
    ccb_newton_params prm;
    ccb_sparse* sp;
    int npv, nc;
    /* reduced vectors (npv) */
    double *v, *vs, *v0, *dinv, *r, *dv, *dp, *tmp;
    int cap_v;
    /* full velocities (nv) */
    double* vfull;
    int cap_full;
    /* contacts (3 nc, 9 nc) */
    double *vc, *gamma, *G, *dvc;
    int cap_c;
    /* dense H, its eigenvalues and LAPACK workspace, for the condition number */
    double* kbuf;
    int cap_k;
    int* bs; /* participating block sizes */
    int cap_bs;
    /* iteration state */
    double cost_A, cost, residual, tolerance;
    int iter, cost_ok, ls_evals, r_valid, initialized;
    long analyses_at_init; /* ccb_sparse_analyses() when the solve started */
    double alpha_min, kappa;
    ccb_status status;
    ccb_newton_iter* hist;
    int nhist, cap_hist;
    long n_factorizations;
    double t_assemble, t_factor, t_linesearch, t_eval, t_kappa; /* this solve [s] */
    int* ls_active; /* contacts the line search evaluates (nc) */
    int n_ls_active, cap_ls;
    double ls_flat_cost; /* cost of the contacts it skips */
    /* far contacts (nc each): near and far index lists (sorted), promotion scratch; by slot of
     * the far list (far_r[k] for contact far[k], compacted with it): radius, bound scales and
     * participating cliques of the two blocks */
    int *near, *far, *prom, *far_a;
    int n_near, n_far, cap_far, nc_far, far_final;
    double *far_r, *far_s;
    /* far groups: runs of far slots with the same cliques (a0, a1). Group g holds the slots
     * fg_start[g] .. fg_end[g] - 1 (contact fm_i[j], radius far_r[j], scales far_s[2j..2j+1];
     * the far slots are compacted within their group) and their common bound: cliques
     * fg_a[2g..2g+1], the largest scales fg_s[2g..2g+1] and the smallest radius fg_r[g] */
    int *fm_i, *fg_start, *fg_end, *fg_a;
    double *fg_r, *fg_s;
    int n_fgroup, cap_fg;
    double *vg, *rho; /* the initial iterate (npv), per-clique bound (np) */
    int cap_vg, cap_rho;
    double* dvh; /* dv of each iteration (npv each), for replays */
    int cap_dvh;
    uint64_t* pkeys; /* pattern_near: clique-pair keys, then the edge list */
    int cap_pkeys;
    char msg[CCB_MSG_SIZE];
};

/* Records the failure (status and message) in ws and returns s. */
ccb_status ccb_newton_fail(ccb_newton* ws, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the exact line search (newton_line.c; formulation-convex §8.3-§8.4) */
typedef struct ccb_newton_line {
    double a; /* dv^T A dv */
    double b; /* dp . (v - v*) */
} ccb_newton_line;
/* The step alpha along ws->dv from the current iterate: the root of l'(alpha) = 0 on
 * [0, alpha_max] (slope0 = l'(0) < 0). CCB_E_NOTCONV or CCB_E_NONFINITE with the message in ws. */
ccb_status ccb_newton_line_search(ccb_newton* ws, const ccb_newton_line* L, double slope0,
                                  double* alpha_out, int* evals);

/* ---- far contacts (newton_far.c) */
void ccb_newton_far_init(ccb_newton* ws);
ccb_status ccb_newton_far_complete(ccb_newton* ws, int i);
ccb_status ccb_newton_far_promote_all(ccb_newton* ws);
ccb_status ccb_newton_far_update(ccb_newton* ws);
void ccb_newton_far_finish(ccb_newton* ws);

#endif
