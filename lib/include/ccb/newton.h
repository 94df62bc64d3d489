/* ccb/newton.h — Newton's method with an exact line search for the convex contact problem.
 *
 * spec: formulation-convex §8 (ICF §X, eq. (28)). Minimizes the strongly convex
 *   l(v) = 1/2 |v - v*|_A^2 + sum_i l_i(J_i v + b_i)
 * over the velocities of the participating cliques (the others keep v = v*):
 *   r = A (v - v*) - J^T gamma,  H = A + J^T G J,  H dv = -r,  v <- v + alpha dv,
 * alpha from an exact line search (Newton-Raphson with bracketing and bisection, formulation-convex
 * §8.4). Stopping (formulation-convex §8.5), D = diag(A)^{-1/2}:
 *   optimality  |D r| <= eps_a + eps_r max(|D p|, |D j|),  j = J^T gamma,
 *               p = A (v - v0), the momentum change of the step (default), or p = A v, the
 *               momentum itself (formulation-convex §8.5, Drake; see ccb_stop_scale),
 *   cost stall  |l_m - l_{m+1}| < eps_ca + eps_cr (|l_m| + |l_{m+1}|)/2  and  alpha > 0.5,
 * tested at the top of every iteration (0 factorizations if the guess already satisfies it).
 * The reported iteration count is the number of factorizations.
 *
 * Use ccb_newton_solve, or init / test / iterate to watch every iterate (GSL style). */
#ifndef CCB_NEWTON_H
#define CCB_NEWTON_H

#include "ccb/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_newton ccb_newton;

/* Factorization of H = A + J^T G J (formulation-convex §8.2). With one participating clique H is a
 * single dense block: `auto` factors it with the dense Cholesky kernel. With two or more cliques
 * `auto` uses the block Cholesky: AMD on the graph of cliques, the block fill computed once per
 * pattern, dense kernels on the blocks (unrolled for 3 and 6 unknowns; no scalar sparse matrix, no
 * BLAS). On the clutter it is the fastest of the three back-ends (speed §2 has the measured
 * times); CHOLMOD stays selectable and is the reference of the unit tests. */
typedef enum ccb_linear_solver {
    CCB_LINSOLVE_AUTO = 0,    /* dense for one clique, block otherwise (default) */
    CCB_LINSOLVE_CHOLMOD = 1, /* always CHOLMOD: supernodal sparse Cholesky, AMD ordering */
    CCB_LINSOLVE_DENSE = 2,   /* always the dense Cholesky of the assembled H (reference path) */
    CCB_LINSOLVE_BLOCK = 3    /* Cholesky on the clique block structure, AMD on the block graph,
                                 dense block kernels (no scalar sparse matrix, no BLAS) */
} ccb_linear_solver;

/* Momentum scale of the optimality test. The spec (formulation-convex §8.5) and Drake use the
 * momentum p = A v. Its size does not shrink with dt while the impulses of a step do, so for small
 * steps the test accepts iterates whose error is a fixed fraction of the momentum per step: at dt =
 * 1e-7 the Painleve rod (cases.md §5) is accepted at its initial guess in every step and never
 * feels gravity or contact. The momentum change of the step, A (v - v0) = dt (forces) + J^T gamma
 * at the solution, scales with dt, so the accumulated error stays O(eps_r T). */
typedef enum ccb_stop_scale {
    CCB_STOP_STEP_MOMENTUM = 0, /* p = A (v - v0) (default) */
    CCB_STOP_MOMENTUM = 1       /* p = A v (formulation-convex §8.5, Drake SapSolverParameters) */
} ccb_stop_scale;

typedef struct ccb_newton_params {
    double eps_a;         /* absolute optimality tolerance [sqrt(J)]; default 1e-14 (Drake) */
    double eps_r;         /* relative optimality tolerance [-]; default 1e-5 (ICF §XII runs) */
    double eps_cost_a;    /* absolute cost-stall tolerance [J]; default 1e-30 (Drake) */
    double eps_cost_r;    /* relative cost-stall tolerance [-]; default 1e-15 (Drake) */
    int max_iterations;   /* Newton iterations before CCB_E_NOTCONV; default 100 (Drake) */
    double ls_alpha_max;  /* largest step of the line search; default 1.5 (Drake) */
    int ls_max_evals;     /* line-search evaluations before CCB_E_NOTCONV; default 100 */
    double ls_ftol;       /* |l'(alpha)|/|l'(0)| accepted as a root; default 1e-8 (Drake) */
    double ls_alpha_rtol; /* step-size tolerance relative to the first guess; default 1e-8 */
    int compute_kappa;    /* 1: condition number kappa_2(H) at the solution
                             (formulation-convex §8.9); default 0 */
    int kappa_max_nv;     /* largest participating size for the dense eigen-solve; default 2000 */
    ccb_linear_solver linear_solver;
    ccb_stop_scale stop_scale; /* default CCB_STOP_STEP_MOMENTUM */
    /* 1: evaluate every contact at every iterate; default 0: contacts that provably stay
     * inactive through an iteration are left out of it (newton.c, "far contacts"; the result is
     * bit-identical, only v_c of those contacts is J v + b instead of the incremental update) */
    int evaluate_all;
    /* 1 (default): time the phases of each iteration (ccb_newton_stats.time_*: five clock reads
     * per iteration, a tenth of a microsecond-sized step); 0: do not (the times read NaN) */
    int time_phases;
    /* 1 (default): the Hessian's block pattern holds the clique pairs of the near contacts only
     * (far contacts add G = 0), a sparser factorization; 0: of every contact. The matrix is the
     * same; the fill-reducing ordering, hence the round-off of dv, is not (speed §2 gives
     * the measured effect). */
    int pattern_near;
    /* 1 (default): solve each island (connected component of cliques through contacts) with its
     * own line search and stopping test, a converged island frozen while the others iterate
     * (newton.c, "islands"; formulation-convex §8.10); 0: one line search and one test for the
     * whole problem, as the papers' solvers and figures count iterations */
    int islands;
    /* 1: the simulation's step leaves uncomputed the speculative contacts of every pair of
     * bodies that provably cannot activate within the step (ccb_geometry_query_lazy; a far
     * bound for the whole pair, formulation-convex §8.11), and solves the step again with them
     * when the bound fails during the solve (with islands, only the islands the failing pairs
     * touch: the others keep the iterate they converged to); the velocities are bit-identical,
     * the contacts listed are fewer (without islands; with them, lazy pairs join no islands).
     * Default 1.
     * Read by ccb_sim (built-in approximations, evaluate_all 0);
     * the solver itself handles whatever lazy pairs the problem holds. */
    int lazy_pairs;
    /* 1: classify every evaluated contact at every iterate as separate (no normal impulse),
     * stick (|v_t| <= v_s, the step's stiction tolerance) or slip, and count the contacts whose
     * class changed (ccb_newton_stats.state_changes*: two multiplications and a comparison per
     * contact evaluation); default 0: do not (the counts read -1). The solve is the same. */
    int count_states;
} ccb_newton_params;

CCB_API ccb_newton_params ccb_newton_params_default(void);
CCB_API ccb_status ccb_newton_params_check(const ccb_newton_params* p, char* msg, size_t n);

/* One Newton iteration, for analysis of convergence (e.g. residual histories). */
typedef struct ccb_newton_iter {
    double residual;  /* |D r| at the iterate before the update [sqrt(J)] */
    double tolerance; /* optimality bound at that iterate [sqrt(J)] */
    double cost;      /* l at the iterate before the update [J] */
    double slope;     /* l'(0) = r . dv of the line search (< 0) [J] */
    double alpha;     /* step length taken [-] */
    int ls_evals;     /* cost evaluations of the line search */
} ccb_newton_iter;

typedef struct ccb_newton_stats {
    ccb_status status; /* CCB_OK, or why the solve stopped (never success if not converged) */
    int iterations;    /* Newton iterations = factorizations of H (islands: of the island that
                          needed most) */
    int ls_evals;      /* line-search evaluations, all iterations */
    double residual;   /* |D r| at exit [sqrt(J)] */
    double tolerance;  /* optimality bound at exit [sqrt(J)] */
    double cost;       /* l(v) at exit [J] */
    int by_cost;       /* 1 if the cost-stall criterion ended the solve */
    double alpha_min;  /* smallest step length taken (1 if no iteration) */
    double kappa;      /* kappa_2(H) = lambda_max/lambda_min at the exit iterate, or -1 */
    int nv;            /* participating velocities */
    int nc;            /* contacts */
    int nc_far;        /* contacts left out of every iteration (far until convergence) */
    int analyzed;      /* 1 if this solve redid the symbolic analysis */
    double nnz_L;      /* nonzeros of the Cholesky factor (last factorization) */
    double flops;      /* flops of one factorization */
    /* wall-time split of the solve [s] */
    double time_assemble;   /* H = A + J^T G J into the block storage */
    double time_factor;     /* Cholesky factorization and the solve for dv */
    double time_linesearch; /* exact line search (cost evaluations along dv) */
    double time_eval;       /* contact impulses and Hessians at the iterates, residual tests */
    double time_kappa;      /* condition number (if asked) */
    int islands;            /* independent problems solved (1 unless params.islands) */
    int island_iterations;  /* Newton iterations summed over the islands */
    /* where the iterations went (`ccb bench --peers`' breakdown, docs/speed.md): */
    int stop_term;          /* the larger term of the optimality bound at exit (ccb_stop_term) */
    double ratio_prev;      /* |D r| / bound at the test before the last one: how far the last
                                 iterate before convergence was from passing (0: converged at the
                                 initial guess) */
    int state_changes_last; /* contacts whose state (separate / stick / slip, see
                                 params.count_states) changed in the last iteration; -1 if not
                                 counted */
    int state_changes;      /* the same summed over the iterations; -1 if not counted */
} ccb_newton_stats;

/* The term that sets the optimality bound eps_a + eps_r max(|D p|, |D j|)
 * (formulation-convex §8.5): the absolute floor, the momentum scale or the impulse scale. */
typedef enum ccb_stop_term {
    CCB_STOP_TERM_ABSOLUTE = 0, /* eps_a >= eps_r max(|D p|, |D j|) */
    CCB_STOP_TERM_MOMENTUM = 1, /* eps_r |D p| (p per ccb_stop_scale) */
    CCB_STOP_TERM_IMPULSE = 2   /* eps_r |D j|, j = J^T gamma */
} ccb_stop_term;

CCB_API ccb_status ccb_newton_create(ccb_newton** ws);
CCB_API void ccb_newton_destroy(ccb_newton* ws); /* accepts NULL */
CCB_API const char* ccb_newton_last_error(const ccb_newton* ws);

/* Starts a solve of `problem` (borrowed: must stay unchanged until the solve ends) from v_guess
 * (full nv vector; NULL means the problem's v0, the warm start of formulation-convex §8.7).
 * Evaluates the cost at the guess. */
CCB_API ccb_status ccb_newton_init(ccb_newton* ws, const ccb_problem* problem,
                                   const ccb_newton_params* params, const double* v_guess);
/* CCB_OK if the current iterate meets the stopping criteria, CCB_CONTINUE if not, an error code
 * on non-finite values. */
CCB_API ccb_status ccb_newton_test(ccb_newton* ws);
/* One iteration: assemble and factor H, solve for dv, exact line search, update. */
CCB_API ccb_status ccb_newton_iterate(ccb_newton* ws);
/* init + (test, iterate)* until converged, failed or max_iterations. Writes the solution (full
 * nv) to v_out (may be NULL) and statistics to stats (may be NULL). On failure stats->status
 * says why, the last iterate stays readable and v_out is not written. */
CCB_API ccb_status ccb_newton_solve(ccb_newton* ws, const ccb_problem* problem,
                                    const ccb_newton_params* params, const double* v_guess,
                                    double* v_out, ccb_newton_stats* stats);

/* Borrowed views of the current iterate, valid until the next call on ws:
 * velocities (nv, non-participating entries = v*), contact velocities v_c (3 nc) and impulses
 * gamma (3 nc), per-iteration history (*n entries). */
CCB_API const double* ccb_newton_velocities(ccb_newton* ws);
CCB_API const double* ccb_newton_contact_velocities(const ccb_newton* ws);
CCB_API const double* ccb_newton_impulses(const ccb_newton* ws);
CCB_API const ccb_newton_iter* ccb_newton_history(const ccb_newton* ws, int* n);
/* Statistics of the current/last solve. */
CCB_API ccb_newton_stats ccb_newton_get_stats(const ccb_newton* ws);
/* Cumulative counts over the workspace's life: CHOLMOD symbolic analyses (done lazily, only when
 * the pattern changed and CHOLMOD factors) and numeric factorizations. */
CCB_API void ccb_newton_counters(const ccb_newton* ws, long* analyses, long* factorizations);

#ifdef __cplusplus
}
#endif
#endif
