/* ode internals: the integrator object, the method table (as GSL's step types) and the core
 * helpers of ode_core.c that every method uses. Dependencies run one way: ode.c (set-up,
 * dispatch) -> the methods ode_ie.c, ode_rk3.c, ode_gsl.c -> ode_core.c. Not installed. */
#ifndef CCB_ODE_INTERNAL_H
#define CCB_ODE_INTERNAL_H

#include "ccb/ode.h"
#include "ccb/tamsi.h"
#include "internal.h"

struct ccb_ode {
    ccb_ode_system sys;
    ccb_ode_params prm;
    int nx;
    double t;
    double* x; /* nx */
    ccb_ode_work work;
    long f_limit; /* work.n_f at which the current advance stops (ccb_ode_params.max_f_evals);
                     0: no advance yet (direct evaluations, e.g. the Newton trace) */
    char msg[CCB_MSG_SIZE];
    /* RK3 stages / general scratch (nx each) */
    double *k1, *k2, *k3, *xs;
    /* implicit Euler */
    double* J;        /* nx x nx, row-major: df/dx */
    double* M[2];     /* LU factors of I - c J: [0] implicit Euler, [1] trapezoid */
    int* piv[2];      /* nx */
    double c_fact[2]; /* c of the current factorization */
    int factored[2];
    int have_J, J_fresh;
    double *fc, *xc; /* cache of the last residual evaluation: f(tc, xc) */
    double tc;
    int cache_ok;
    double *r, *dx, *xg, *xie, *xtr, *x1, *xh, *f0, *xp, *fp; /* nx scratch */
    ccb_ode_slip* slip0; /* copy of the slip at the iterate before an update */
    int cap_slip;
    ccb_tals_params tals;
    double h_ideal; /* error control: next step to try */
    int counting_errest;
    /* GSL */
    void* gsl;
    void* mdata; /* a registered method's workspace (ccb_ode_method_data) */
};

/* ode.c: appends a checked method to the table (sim_registry.c checks it); 0, or -1 if full. */
int ccb_ode_method_add(ccb_ode_method type);

/* ode_core.c. Evaluates f, counting it; copies (t, x, f) into the cache if cache != 0. */
ccb_status ccb_ode_eval(ccb_ode* o, double t, const double* x, double* xdot, int cache);
/* The fewest equal steps no longer than h that reach t_end from t: n and the step. */
long ccb_ode_fixed_steps(double t, double t_end, double h, double* step);

#endif
