/* ccb/ode.h — integrators for x' = f(t, x) with the configuration not frozen, and the
 * continuous compliant-contact model with regularized friction as such an ODE.
 *
 * spec: formulation-tamsi-hydro §A (model), §B (implicit Euler as in Drake's
 * ImplicitEulerIntegrator), formulation-tamsi-hydro §C.4 (TALS inside implicit Euler), §E (RK3
 * reference, work metric).
 *
 * Methods (ccb_ode_method):
 *   IE    implicit Euler, r(x) = x - x_{n-1} - h f(t_n, x) = 0 by Newton with an iteration
 *         matrix I - h J, J by forward differences (formulation-tamsi-hydro §B.1-§B.2), the
 * Hairer-Wanner convergence
 *         test (formulation-tamsi-hydro §B.3), full Newton (J at every iterate) or quasi Newton (J
 * reused across
 *         iterations, steps and step sizes, with Drake's escalating retries)
 * (formulation-tamsi-hydro §B.4), fixed step
 *         with convergence control (a failed step is redone as two halves, recursively, so the
 *         original interval is finished; formulation-tamsi-hydro §B.5, §H-B4) or error control with
 * accuracy a and the
 *         implicit-trapezoid or step-doubling error estimate (formulation-tamsi-hydro §B.6), TALS
 * on or off (§C.4);
 *   RK3   explicit third-order Runge-Kutta (Drake's RungeKutta3Integrator tableau) with a fixed
 *         step: the reference of the work-precision study (formulation-tamsi-hydro §E.2);
 *   GSL   an adaptive GSL odeiv2 stepper (rk8pd, rkf45, rkck or msadams) with absolute and
 *         relative tolerances: a second, independent reference.
 * Every method lands exactly on the time it is asked to reach (ccb_ode_advance), so sampled
 * windows of the work-precision metric (formulation-tamsi-hydro §E.2) are hard boundaries.
 *
 * Work (formulation-tamsi-hydro §B.8) counts every real call of f: FD Jacobian columns and their
 * base evaluations (the base is shared with a residual evaluation at the same (t, x), as Drake's
 * cache does), error-estimator calls and calls made in failed or rejected attempts. */
#ifndef CCB_ODE_H
#define CCB_ODE_H

#include "ccb/friction.h"
#include "ccb/geometry.h"
#include "ccb/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tangential slip of one contact at a state, for TALS (formulation-tamsi-hydro §C.4). */
typedef struct ccb_ode_slip {
    long long key; /* identifies the contact across states (same key = same contact) */
    double vt[2];  /* tangential velocity in the contact frame [m/s] */
} ccb_ode_slip;

/* A system x' = f(t, x). f returns CCB_OK or a failure (the integrator reports it). */
typedef struct ccb_ode_system {
    int nx; /* state size, >= 1 */
    ccb_status (*f)(void* user, double t, const double* x, double* xdot);
    /* Optional, needed for TALS: the contacts active at (t, x) with their slip, sorted by
     * increasing key; *out is borrowed until the next call. */
    ccb_status (*slip)(void* user, double t, const double* x, const ccb_ode_slip** out, int* n);
    double vs;  /* TALS: stiction tolerance [m/s] of the system's friction */
    double rho; /* TALS: relative tolerance, eps_v = rho v_s (formulation-tamsi-hydro §C.2);
                   default 1e-2 */
    void* user;
} ccb_ode_system;

/* An ODE method is a type object (as GSL's step types), registered like the approximations
 * and solvers (ccb/solver.h): the built-in ones below, and any added with
 * ccb_ode_method_register. The built-in methods' option descriptors' offsets are into
 * ccb_ode_params; a registered method's are into its own options block (options_size bytes,
 * ccb_options_block), which it reads with ccb_ode_method_options. */
typedef struct ccb_ode ccb_ode;
enum {
    CCB_ODE_ADAPTIVE = 1u << 0, /* the method chooses its steps (no fixed step h to divide dt) */
    CCB_ODE_TALS = 1u << 1,     /* with tals = 1 it limits its updates by TALS (needs the slip) */
    CCB_ODE_EXPLICIT = 1u << 2  /* no Newton iterations (their statistics do not apply) */
};
typedef struct ccb_ode_method_type {
    int abi;               /* CCB_ABI_VERSION */
    const char* name;      /* a-z 0-9 '-': "ie", "rk3", "gsl" */
    const char* title;     /* one line */
    const char* reference; /* where the method is specified */
    unsigned flags;        /* CCB_ODE_* */
    const char* notes;     /* optional: choices left open and defaults taken (`ccb info`) */
    /* optional: what the ODE solver's iteration counter counts under this method ("Newton
     * iterations"); NULL: "iterations" (0 for an explicit method) */
    const char* iterations;
    const ccb_option_desc* options; /* offsets: see above */
    int noptions;
    size_t options_size; /* a registered method's options block (0: the built-in methods) */
    /* Optional: its own workspace (ccb_ode_method_data); destroy must accept a half-made one. */
    ccb_status (*create)(ccb_ode* o);
    void (*destroy)(ccb_ode* o);
    /* Advances from ccb_ode_time(o) to t_end exactly (ccb_ode_advance). */
    ccb_status (*advance)(ccb_ode* o, double t_end);
} ccb_ode_method_type;
typedef const ccb_ode_method_type* ccb_ode_method;

CCB_API extern const ccb_ode_method_type ccb_ode_ie;  /* implicit Euler */
CCB_API extern const ccb_ode_method_type ccb_ode_rk3; /* explicit Runge-Kutta 3, fixed step */
CCB_API extern const ccb_ode_method_type ccb_ode_gsl; /* GSL odeiv2 adaptive */
/* The built-in methods by their old enumerator names. */
#define CCB_ODE_IE (&ccb_ode_ie)
#define CCB_ODE_RK3 (&ccb_ode_rk3)
#define CCB_ODE_GSL (&ccb_ode_gsl)

/* Registry: the built-in methods first, then the registered ones, in order. */
CCB_API int ccb_ode_method_count(void);
CCB_API ccb_ode_method ccb_ode_method_get(int i);
CCB_API ccb_ode_method ccb_ode_method_find(const char* name);
/* Adds a method (borrowed; register before use; not thread-safe). CCB_E_INVALID with a message
 * for another abi, a missing advance, a malformed option table or name, a name taken by a
 * method or a solver, or more than CCB_ODE_MAX_REGISTERED. */
#define CCB_ODE_MAX_REGISTERED 16
CCB_API ccb_status ccb_ode_method_register(ccb_ode_method type, char* msg, size_t msg_size);

typedef enum ccb_ie_newton {
    CCB_IE_FULL_NEWTON = 0, /* FN: J at every iterate (formulation-tamsi-hydro §B.4) */
    CCB_IE_QUASI_NEWTON = 1 /* QN: J reused, Drake's trials 1-3 on failure */
} ccb_ie_newton;

typedef enum ccb_ie_estimator {
    CCB_IE_TRAPEZOID = 0,    /* implicit trapezoid (Drake <= 2020-06, the paper's era) */
    CCB_IE_STEP_DOUBLING = 1 /* one step h vs two steps h/2 (Drake since #13224) */
} ccb_ie_estimator;

/* Convergence control of the fixed step (formulation-tamsi-hydro §B.5): what happens when Newton
 * fails on a step of size h. */
typedef enum ccb_ie_fixed {
    CCB_IE_FIXED_HALVES = 0, /* redo the step as two halves that finish the interval, recursively
                                (ccb's choice, formulation-tamsi-hydro §H-B4) */
    CCB_IE_FIXED_DRAKE = 1   /* Drake's fixed-step mode of the paper's time (2020-01 .. 2020-06,
                                IntegratorBase::StepOnceAtMost and ImplicitEulerIntegrator::
                                DoImplicitIntegratorStep): each step also solves the implicit
                                trapezoid from x0 (the error estimate, computed though unused)
                                and fails if either solve fails; a failed step is halved until it
                                succeeds, and the next step tries the full h again (at most to the
                                end of the interval) */
} ccb_ie_fixed;

typedef enum ccb_ode_gsl_method {
    CCB_GSL_RK8PD = 0,
    CCB_GSL_RKF45 = 1,
    CCB_GSL_RKCK = 2,
    CCB_GSL_MSADAMS = 3
} ccb_ode_gsl_method;

typedef struct ccb_ode_params {
    ccb_ode_method method;
    double h;     /* IE fixed / RK3: the step; IE-EC and GSL: the first step tried [s]; > 0 */
    double h_max; /* IE-EC: largest step [s]; 0 = h (default 0) */
    /* implicit Euler */
    ccb_ie_newton newton; /* default CCB_IE_FULL_NEWTON */
    int error_control;    /* 0: fixed step (default); 1: error control */
    double accuracy;      /* a: error target of EC and Newton tolerance kappa a in both
                                   modes (formulation-tamsi-hydro §B.3, §B.7); default 0.1 (Drake) */
    double newton_kappa;  /* kappa of the Hairer test; default 0.05
                                   (formulation-tamsi-hydro §B.3) */
    int max_newton;   /* Newton iterations per trial; default 10 (formulation-tamsi-hydro §B.3) */
    int tals;         /* TALS on the Newton update (formulation-tamsi-hydro §C.4); default 0 */
    double theta_max; /* TALS turn limit [rad]; default pi/3 */
    ccb_ie_estimator estimator; /* default CCB_IE_TRAPEZOID (formulation-tamsi-hydro §B.6,
                                   §H-B1: inferred, not confirmed) */
    ccb_ie_fixed fixed;         /* fixed step's convergence control; default CCB_IE_FIXED_HALVES */
    /* GSL */
    ccb_ode_gsl_method gsl_method; /* default rk8pd */
    double gsl_atol, gsl_rtol;     /* default 1e-10, 1e-10 */
    /* Work limits (every method): a step below h_min (IE halving and error control, GSL) or more
     * than max_f_evals evaluations of f in one ccb_ode_advance end it with CCB_E_LIMIT and a
     * message naming the limit, instead of a run that does not end. Defaults 1e-9 s and 2e6
     * (about two seconds of f on the cases' models per sampling interval). */
    double h_min;
    long max_f_evals;
    /* The options of a registered method (its options block; zero bytes by default: a program
     * that selects it sets its defaults with ccb_sim_params_set_solver). */
    ccb_options_block method_options;
} ccb_ode_params;

CCB_API ccb_ode_params ccb_ode_params_default(void);
CCB_API ccb_status ccb_ode_params_check(const ccb_ode_params* p, char* msg, size_t msg_size);
/* Names for output: "ie", "rk3", "gsl"; "rk8pd", ...; "full", "quasi"; "trapezoid", ... */
CCB_API const char* ccb_ode_method_name(ccb_ode_method m);
CCB_API const char* ccb_ode_gsl_method_name(ccb_ode_gsl_method m);

/* Work done (formulation-tamsi-hydro §B.8), cumulative since creation or the last
 * ccb_ode_reset_work. */
typedef struct ccb_ode_work {
    long n_f;            /* all calls of f */
    long n_f_jacobian;   /* of which for finite-difference Jacobians */
    long n_f_errest;     /* of which for the error estimate (EC) */
    long n_newton;       /* Newton iterations */
    long n_jacobian;     /* Jacobian evaluations */
    long n_factor;       /* LU factorizations of iteration matrices */
    long n_steps;        /* accepted steps */
    long n_fail_newton;  /* step attempts given up because Newton failed (all trials) */
    long n_reject_error; /* steps rejected by the error test */
    long n_tals;         /* Newton updates shortened by TALS */
    long n_slip;         /* slip evaluations for TALS (geometry only; not calls of f) */
    double h_min, h_max; /* smallest and largest accepted step [s] (0 before the first) */
} ccb_ode_work;

typedef struct ccb_ode ccb_ode;

/* Creates an integrator for the system (borrowed; must outlive the integrator) at t = 0 with
 * x = 0. CCB_E_INVALID (bad parameters; TALS without a slip callback), CCB_E_NOMEM. */
CCB_API ccb_status ccb_ode_create(const ccb_ode_system* sys, const ccb_ode_params* params,
                                  ccb_ode** ode, char* msg, size_t msg_size);
CCB_API void ccb_ode_destroy(ccb_ode* ode); /* accepts NULL */
CCB_API const char* ccb_ode_last_error(const ccb_ode* ode);

/* Sets (t, x) (copied, finite). The work counters are kept (ccb_ode_reset_work zeroes them);
 * the quasi-Newton Jacobian is kept (it is reused across steps by design); the error-control
 * step target returns to h. */
CCB_API ccb_status ccb_ode_set_state(ccb_ode* ode, double t, const double* x);
/* Integrates to exactly t_end >= t. On failure (CCB_E_NOTCONV: the step size fell below the
 * working minimum; a failure of f) the state is that of the last accepted step, which
 * ccb_ode_time reports, and the message says why. */
CCB_API ccb_status ccb_ode_advance(ccb_ode* ode, double t_end);
CCB_API double ccb_ode_time(const ccb_ode* ode);
CCB_API const double* ccb_ode_state(const ccb_ode* ode); /* borrowed, nx entries */
CCB_API const ccb_ode_work* ccb_ode_get_work(const ccb_ode* ode);
CCB_API void ccb_ode_reset_work(ccb_ode* ode);

/* For the advance of an ODE method (ccb_ode_method_type): the state it advances in place with
 * the time it reached, evaluations of f counted as work and held to the work limit
 * (CCB_E_LIMIT past max_f_evals), its parameters, its work counters and its own workspace. */
CCB_API int ccb_ode_nx(const ccb_ode* ode);
CCB_API double* ccb_ode_state_mut(ccb_ode* ode);
CCB_API void ccb_ode_set_time(ccb_ode* ode, double t);
CCB_API ccb_status ccb_ode_f(ccb_ode* ode, double t, const double* x, double* xdot);
CCB_API const ccb_ode_params* ccb_ode_params_get(const ccb_ode* ode);
/* What a registered method reads instead of ccb_ode_params' fields (whose layout is not part of
 * the extension ABI): its options block (its own struct), and the step h [s] of the fixed-step
 * methods (the first step tried by the adaptive ones). */
CCB_API const void* ccb_ode_method_options(const ccb_ode* ode);
CCB_API double ccb_ode_step_size(const ccb_ode* ode);
CCB_API ccb_ode_work* ccb_ode_work_mut(ccb_ode* ode);
CCB_API void* ccb_ode_method_data(const ccb_ode* ode);
CCB_API void ccb_ode_set_method_data(ccb_ode* ode, void* data);

/* Newton on one implicit Euler step from (t0, x0) of size h, the paper's Fig. 4 experiment:
 * full Newton (J at every iterate, forward differences), no convergence test but
 * |r|_2 <= r_tol, at most max_iter iterations, TALS on or off (theta_max from params or pi/3
 * if params is NULL). Writes |r(x^k)|_2 for k = 0..(*n - 1) into rnorm (max_iter + 1 entries),
 * x^{*n-1} into x_out (may be NULL), *converged = 1 if |r| <= r_tol was reached. */
CCB_API ccb_status ccb_ode_ie_newton_trace(const ccb_ode_system* sys, double t0, const double* x0,
                                           double h, int tals, double theta_max, int max_iter,
                                           double r_tol, double* rnorm, int* n, double* x_out,
                                           int* converged, char* msg, size_t msg_size);

/* ---- the continuous contact model (formulation-tamsi-hydro §A)
 * ---------------------------------------------------- */

/* Options of the continuous model: x = (q, v), q' = N(q) v, M v' = k2 + J^T f - D v with the
 * compliant point contacts of the model's geometry at q (only phi < 0 pushes):
 *   fn = k (1 - d vn)+ (-phi)+                                       (formulation-tamsi-hydro §A.2,
 * eq. 5)
 *   ft = -mu~(s) fn vt/|vt|,  s = |vt|/v_s, evaluated as -fn (mu~(s)/s) vt/v_s (no 0/0)
 * (formulation-tamsi-hydro §A.3) */
typedef struct ccb_contact_ode_params {
    ccb_friction_model friction; /* default CCB_FRICTION_STRIBECK5 (Drake continuous) */
    double rho;                  /* TALS relative tolerance; default 1e-2 */
} ccb_contact_ode_params;

CCB_API ccb_contact_ode_params ccb_contact_ode_params_default(void);

typedef struct ccb_contact_ode ccb_contact_ode;

/* Creates the model's ODE with the stiction tolerance vs [m/s] of its friction (finite > 0; the
 * simulation's ccb_sim_params.vs). The model is borrowed and must be finalized. */
CCB_API ccb_status ccb_contact_ode_create(const ccb_model* model,
                                          const ccb_contact_ode_params* params, double vs,
                                          ccb_contact_ode** co, char* msg, size_t msg_size);
CCB_API void ccb_contact_ode_destroy(ccb_contact_ode* co);
/* The system view (valid while co lives): nx = nq + nv, f and slip. */
CCB_API const ccb_ode_system* ccb_contact_ode_system(const ccb_contact_ode* co);
CCB_API const char* ccb_contact_ode_last_error(const ccb_contact_ode* co);

/* The contacts of the continuous model at (t, x) (including those not touching, with zero
 * force, among the geometry's contacts with phi < margin): contact i's frame data as in
 * ccb_geometry_query, its velocity vc [m/s] and force f [N] (frame C: t1, t2, n). Borrowed
 * arrays valid until the next call. */
CCB_API ccb_status ccb_contact_ode_contacts(ccb_contact_ode* co, double t, const double* x,
                                            double margin, int* nc,
                                            const struct ccb_contact** contacts, const double** vc,
                                            const double** f);

#ifdef __cplusplus
}
#endif
#endif
