/* Newton solver internals shared by newton.c (setup, stopping test, assembly, line search,
 * iterations) and newton_far.c (the far contacts the iterations leave out); not installed. */
#ifndef CCB_NEWTON_INTERNAL_H
#define CCB_NEWTON_INTERNAL_H

#include <stdint.h>

#include "ccb/newton.h"
#include "problem_internal.h"
#include "sparse.h"

/* One island of the Newton solve: a connected component of the graph of participating cliques
 * and contacts, whose unknowns no other island's cost involves (newton.c, "islands"). */
typedef struct ccb_newton_island {
    double alpha;          /* this iteration's step (0 once done) */
    double res2, p2, j2;   /* |D r|^2, |D p|^2, |D j|^2 over its unknowns (stopping test) */
    double res, tol;       /* |D r| and its bound at its last test */
    double cost_A, cost_c; /* its parts of l: 1/2 |v - v*|_A^2 and sum l_i */
    double a, b, slope;    /* line search: dv^T A dv, dp.(v - v*), r.dv over its unknowns */
    int done;              /* converged: frozen (dv = 0, no evaluation) until the solve ends */
    int cost_ok;           /* its cost stalled at the last update (formulation-convex §8.5) */
    int off, n;            /* its near contacts: act[off .. off + n - 1] */
    int iters;             /* iterations it took part in */
    /* a lazy pair of it failed its test (formulation-convex §8.11): frozen where it stood, done
     * for this solve, to be solved again from the step's guess with the pair's contacts */
    int lazy;
} ccb_newton_island;

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
    /* dense H, its eigenvalues and LAPACK workspace, and the block split of H (2 npv ints),
     * for the condition number */
    double* kbuf;
    int cap_k;
    int* kibuf;
    int cap_ki;
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
    /* the contacts' states at the last evaluation (nc; 0 separate, 1 stick, 2 slip; see
     * ccb_newton_params.count_states), the changes of the last iteration and of all, the worst
     * |D r|/bound of the last two tests and the bound's larger term at the last one */
    unsigned char* cstate;
    int cap_cstate, changes_last, changes_total, stop_term;
    double ratio_now, ratio_prev;
    int* ls_active; /* room for the contacts the line searches evaluate (nc; ccb_newton_line) */
    int cap_ls;
    /* far contacts (nc each): near and far index lists (sorted), promotion scratch; by slot of
     * the far list (far_r[k] for contact far[k], compacted with it): radius, bound scales and
     * participating cliques of the two blocks */
    int *near, *far, *prom, *far_a;
    int n_near, n_far, cap_far, nc_far, far_final;
    double *far_r, *far_s, *far_d; /* far_d: the lever arms of the blocks (pcontact.arm) */
    /* far groups: runs of far slots with the same cliques (a0, a1). Group g holds the slots
     * fg_start[g] .. fg_end[g] - 1 (contact fm_i[j], radius far_r[j], scales far_s[2j..2j+1];
     * the far slots are compacted within their group) and their common bound: cliques
     * fg_a[2g..2g+1], the largest scales fg_s[2g..2g+1] and the smallest radius fg_r[g] */
    int *fm_i, *fg_start, *fg_end, *fg_a;
    double *fg_r, *fg_s, *fg_d; /* fg_d: the largest lever arms */
    int n_fgroup, cap_fg;
    /* with islands: the groups that may still be tested (neither empty nor of islands all done:
     * a group leaves for the rest of the solve, as islands only become done — but past
     * convergence, when every group is live again), ascending (n_fg_live of them) */
    int* fg_live;
    int n_fg_live;
    double *vg, *rho; /* the initial iterate (npv), per-clique bound (np) */
    double* rho_e;    /* 2 np: per clique of one free body, the Euclidean bounds of the linear
                       * and angular velocity changes (newton_far.c), else INFINITY */
    int cap_vg, cap_rho, cap_rho_e;
    double* dvh; /* dv of each iteration (npv each), for replays */
    int cap_dvh;
    uint64_t* pkeys; /* pattern_near: clique-pair keys, then the edge list */
    int cap_pkeys;
    /* islands (newton.c, "islands"; one island holding everything unless prm.islands): the
     * island of each reduced unknown (npv) and of each contact (nc), the islands' state (nisl),
     * the near contacts of the islands still iterating, grouped by island (act, n_near), and the
     * step of every island at every past iteration (ahist, iter x nisl, for far replays) */
    int *isl_v, *icon, *act;
    unsigned char* skipb; /* per participating clique: its island is frozen (np) */
    int *acl, *adof;      /* with islands: the participating cliques and the unknowns of the
                             islands not done (build_active), n_acl and n_adof of them */
    int n_acl, n_adof, cap_acl, cap_adof;
    int acl_full; /* 1: build_active scans every clique (at the start, and past convergence); 0:
                     it filters the last list, as an island once done stays done */
    int cap_skipb;
    int pattern_ok; /* the Hessian's pattern is that of the current near list */
    /* after CCB_E_RETRY: the contact set's indices of the lazy pairs whose test failed
     * (lazy_fail[0 .. n_lazy_fail - 1], in prom's room; none if every pair was reached at once
     * by iterating past convergence) */
    const int* lazy_fail;
    int n_lazy_fail;
    /* with islands: the lazy pairs that failed so far in this solve (contact set's indices, at
     * most one entry per pair: a failed pair leaves the far list), the iteration of the first */
    int* lazy_acc;
    int n_lazy_acc, lazy_iter;
    int nisl, n_act, cap_isl_v, cap_icon, cap_act, cap_il, cap_ahist, island_iters;
    ccb_newton_island* il;
    double* ahist;
    char msg[CCB_MSG_SIZE];
};

/* Records the failure (status and message) in ws and returns s. */
ccb_status ccb_newton_fail(ccb_newton* ws, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the exact line search (newton_line.c; formulation-convex §8.3-§8.4) */
typedef struct ccb_newton_line {
    double a;        /* dv^T A dv */
    double b;        /* dp . (v - v*) */
    double cost_A;   /* 1/2 |v - v*|_A^2 at alpha = 0 */
    const int* list; /* the contacts along the line (n), ascending */
    int n;
    int* active; /* room for n: the ones whose impulse does not vanish on the segment */
    int n_active;
    double flat; /* cost of the others */
} ccb_newton_line;
/* The step alpha along ws->dv from the current iterate: the root of l'(alpha) = 0 on
 * [0, alpha_max] (slope0 = l'(0) < 0), for the unknowns and contacts L describes (the whole
 * problem, or one island). CCB_E_NOTCONV or CCB_E_NONFINITE with the message in ws. */
ccb_status ccb_newton_line_search(ccb_newton* ws, ccb_newton_line* L, double slope0,
                                  double* alpha_out, int* evals);

/* ---- islands (newton_island.c; formulation-convex §8.10) */
/* Finds the islands (one without prm.islands) and sets isl_v, icon, nisl, il. */
void ccb_newton_islands_init(ccb_newton* ws);
/* acl and adof: the participating cliques and unknowns of the islands not done. */
void ccb_newton_build_active(ccb_newton* ws);
/* act and il[].off, il[].n: the near contacts of the islands not done, grouped by island. */
void ccb_newton_build_act(ccb_newton* ws);
/* The unknowns an iteration works on: every one without islands, else those of the islands not
 * done (adof; build_active). Loops run m = 0 .. ndofs - 1 over k = dof(m), in ascending order. */
static inline int ccb_newton_ndofs(const ccb_newton* ws) {
    return ws->nisl == 1 ? ws->npv : ws->n_adof;
}
static inline int ccb_newton_dof(const ccb_newton* ws, int m) {
    return ws->nisl == 1 ? m : ws->adof[m];
}
/* y = A x on those unknowns */
static inline void ccb_newton_A_mul_active(const ccb_newton* ws, const double* x, double* y) {
    if (ws->nisl == 1) {
        ccb_problem_A_mul(ws->pb, x, y);
    } else {
        ccb_problem_A_mul_some(ws->pb, ws->acl, ws->n_acl, x, y);
    }
}

/* ---- far contacts (newton_far.c) */
void ccb_newton_far_init(ccb_newton* ws);
ccb_status ccb_newton_far_complete(ccb_newton* ws, int i);
ccb_status ccb_newton_far_promote_all(ccb_newton* ws);
ccb_status ccb_newton_far_update(ccb_newton* ws);
/* Every far group live again (fg_live: at grouping, and past convergence). */
void ccb_newton_far_live_all(ccb_newton* ws);
/* After a solve that failed with CCB_E_RETRY: the contact set's indices of the lazy pairs that
 * may activate (*pairs; count returned; 0 if unknown). */
int ccb_newton_lazy_failures(const ccb_newton* ws, const int** pairs);
/* The end of a solve whose lazy pairs froze islands while the others converged (newton_far.c). */
ccb_status ccb_newton_lazy_retry(ccb_newton* ws);
/* After a solve with islands that failed with CCB_E_RETRY once every other island converged:
 * out (nv) = the velocities to solve the step again from — the converged iterate, and guess0
 * (the step's first guess; NULL: v0) on the unknowns of the islands a lazy pair froze. Returns
 * 1, or 0 (out untouched) when the failure left no converged iterate to keep (no islands, or
 * every pair reached at once past convergence): solve again from guess0. */
int ccb_newton_resume(ccb_newton* ws, const double* guess0, double* out);
void ccb_newton_far_finish(ccb_newton* ws);

#endif
