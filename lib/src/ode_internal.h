/* ode internals shared by ode.c (set-up, RK3), ode_ie.c and ode_gsl.c. Not installed. */
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
};

/* Evaluates f, counting it; copies (t, x, f) into the cache if cache != 0. */
ccb_status ccb_ode_eval(ccb_ode* o, double t, const double* x, double* xdot, int cache);
ccb_status ccb_ode_ie_advance(ccb_ode* o, double t_end);
ccb_status ccb_ode_gsl_create(ccb_ode* o);
void ccb_ode_gsl_destroy(ccb_ode* o);
ccb_status ccb_ode_gsl_advance(ccb_ode* o, double t_end);
/* The fewest equal steps no longer than h that reach t_end from t: n and the step. */
long ccb_ode_fixed_steps(double t, double t_end, double h, double* step);

#endif
