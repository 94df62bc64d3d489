/* cases/clutter_step.h — what the newton-trace study (clutter_step.c) and its independent solvers
 * (clutter_indep.c) share: a costly step copied out of the run, the independent evaluation of its
 * convex problem, one solve's outcome. */
#ifndef CCB_CLUTTER_STEP_H
#define CCB_CLUTTER_STEP_H

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clutter.h"

#define TRACE_DT 5e-3
#define TRACE_MAX_IT 2000  /* the independent Newton methods' iteration cap */
#define TRACE_BFGS_IT 1000 /* BFGS's iteration cap (a first-order method: reported, not gated) */
#define TRACE_TOP 10       /* the costliest steps solved by the independent exact Newton (CLU-7f) */
#define TRACE_MAX_NV 2000  /* largest scene of the dense solves (ccb_newton_params.kappa_max_nv) */
#define TRACE_LS_FTOL 1e-8 /* the exact line search's |phi'(alpha)| / |phi'(0)| (ccb's default) */

/* A costly step, copied out of the run when it happened (with the replay of its solve for the
 * costliest). */
typedef struct snap {
    int nv, nc, nq;
    long step; /* 1-based */
    double t;  /* at its start [s] */
    ccb_global_problem g;
    double *vstar, *v0, *b; /* b: 3 nc, global order (n, t1, t2) */
    ccb_constraint* con;
    const ccb_approx* ap;
    double *q_start, *v_start; /* the state at the step's start */
    double* v_run;             /* the run's solution */
    int run_iterations;
    double run_residual, run_tolerance; /* ccb's |D r| and its bound at exit */
    double run_mean_iterations;         /* over the run's steps */
    /* the replay: per iteration its history entry and the iterate after it */
    ccb_newton_iter* hist;
    double* iterates; /* (nhist + 1) x nv: iterate 0 is the guess */
    int nhist;
    ccb_status replay_status;
} snap;

typedef struct indep {
    const snap* s;
    double *vc, *gam, *G; /* 3 nc, 3 nc, 9 nc (global order) */
    double* Mdiag_isqrt;  /* D = diag(M)^-1/2 */
    gsl_matrix* Mchol;    /* Cholesky of M, for |x|_{M^-1} */
    double *tmp, *tmp2;   /* nv */
    long evals;           /* cost evaluations */
    double eps_a, eps_r;  /* ccb's stopping test */
} indep;

/* One independent solve's outcome. */
typedef struct solve_out {
    const char *name, *title;
    int iterations, converged;
    long evals;
    double residual_over_tol, cost, alpha_min;
    double* v; /* nv */
} solve_out;

/* ---- the independent evaluation and solvers (clutter_indep.c) ---- */
/* y = M x */
void ind_mass_mul(const ccb_global_problem* g, const double* x, double* y);
/* The cost at v; grad (nv, may be NULL) = M (v - v*) - H gamma; the impulses and G kept. */
double ind_eval(indep* w, const double* v, double* grad, int hess);
/* dv^T (M + sum H_i G_i H_i^T) dv at the last evaluation (made with hess = 1) */
double ind_curv(indep* w, const double* dv);
/* ccb's optimality test (formulation-convex §8.5, the step's momentum): |D r| and its bound at the
 * last evaluation, r = grad. */
void ind_test(indep* w, const double* v, const double* r, double* res, double* tol);
/* |x|_{M^-1} */
double ind_minv_norm(indep* w, const double* x);
/* The evaluation of snapshot s with ccb's stopping test of np (M factored): 0, or -1 (out of
 * memory, or M not positive definite). */
int ind_init(indep* w, const snap* s, const ccb_newton_params* np);
void ind_free(indep* w);
/* Newton from v0 with the dense Hessian (GSL Cholesky) and an exact line search of its own
 * (exact = 1: the root of phi'(alpha) on (0, 1.5], safeguarded Newton-bisection on phi', to
 * |phi'| <= 1e-8 |phi'(0)|) or Armijo's backtracking (exact = 0: alpha = 1, halved until
 * phi(alpha) <= phi(0) + 1e-4 alpha phi'(0)). */
int ind_newton(indep* w, int exact, solve_out* o);
/* GSL's quasi-Newton BFGS2 from v0 to ccb's stopping test, at most TRACE_BFGS_IT iterations. */
int ind_bfgs(indep* w, solve_out* o);
/* kappa_2 of the dense Hessian at the last evaluation (made with hess = 1) */
double ind_kappa(const indep* w, gsl_matrix* Hd, gsl_vector* ev, gsl_eigen_symm_workspace* e);

#endif
