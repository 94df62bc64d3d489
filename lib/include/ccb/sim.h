/* ccb/sim.h — the time stepper, with any of the suite's solvers.
 *
 * A step of the discrete solvers (spec: formulation-convex §1.1, symplectic Euler; ICF §X-A;
 * formulation-tamsi-hydro §D.1):
 *   1. contacts at (t0, q0) with phi0 < margin (ccb_geometry_query);
 *   2. the step problem (ccb_problem_build): A, v*, J, b, per-contact constants;
 *   3. v from the solver: NEWTON, the minimizer of the convex cost of the chosen approximation
 *      (ccb_newton_solve, warm-started at v0); or TAMSI (ccb_tamsi_solve, from v0);
 *   4. q = q0 + dt N(q0) v,  t = t_start + (n + 1) dt.
 * With the ODE solver a step integrates the continuous model x = (q, v) of ccb_contact_ode
 * (configuration not frozen; formulation-tamsi-hydro §A) from t0 to t0 + dt with the chosen
 * integrator (implicit Euler, RK3, GSL); dt is then the sampling interval and the integrator's own
 * step is `ode.h` (0: dt), so the contact results are those of the continuous model at t0 + dt
 * (force = the contact force at that instant, gamma = force dt). With error control of the
 * convex step (ccb_sim_ec_params) a step covers dt in internal steps and the contact results are
 * those of its last internal step h (gamma its impulse, force = gamma / h).
 * A step whose solve fails leaves (t, q, v) bit-identical and returns the failure; its
 * statistics stay readable. Time is counted in whole steps from the last set_state, so long
 * runs accumulate no round-off in t. The simulation owns the step: dt and the stiction tolerance
 * vs of every model are fields of ccb_sim_params only, handed to problem building, the
 * approximations and the solvers in a ccb_step_context (ccb/step.h) for each solve. */
#ifndef CCB_SIM_H
#define CCB_SIM_H

#include "ccb/geometry.h"
#include "ccb/newton.h"
#include "ccb/ode.h"
#include "ccb/problem.h"
#include "ccb/solver.h"
#include "ccb/tamsi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_sim ccb_sim;

/* A solver is a type object of ccb/solver.h (built in: Newton on the convex approximation,
 * TAMSI, an ODE method on the continuous model; or registered); ccb_solver is a pointer to one. */
typedef const ccb_solver_type* ccb_solver;
/* The built-in solvers by their old enumerator names. */
#define CCB_SOLVER_NEWTON (&ccb_solver_newton)
#define CCB_SOLVER_TAMSI (&ccb_solver_tamsi)
#define CCB_SOLVER_ODE (&ccb_solver_ode)

/* "newton", "tamsi", "ode", a registered solver's name, or NULL. */
CCB_API const char* ccb_solver_name(ccb_solver s);

/* Error control of the convex step (CENIC: Kurtz & Castro, arXiv 2511.08771, 2025;
 * formulation-convex §15). With `enabled`, one ccb_sim_step still advances the sampling interval
 * dt, but in internal steps h <= dt chosen by step doubling: from (t, q, v) one convex step of h
 * (q_full) and two of h/2 (q_half; the first from the guess (v + v_full)/2 with the contacts of
 * the full step, the second from (t + h/2, q_half1) with the guess v_full), error estimate
 * e = |q_full - q_half|_inf over the generalized positions (with lag_estimate, at least the lag
 * defect of formulation-convex §15.6), the step-size rule of formulation-tamsi-hydro §B.6 (error
 * order 2), the extrapolated pair (extrapolate, formulation-convex §15.7) or the two half steps
 * propagated. A solve that
 * does not converge halves h. Off, a step is one convex step of dt, bit for bit as before. */
typedef struct ccb_sim_ec_params {
    int enabled;     /* 0: fixed steps of dt (default); 1: error control (solver NEWTON only) */
    double accuracy; /* a [m, rad]: bound on e per internal step; finite > 0; default 1e-4 */
    double h_min;    /* smallest internal step [s] (CCB_E_LIMIT below it); default 1e-9 */
    long max_solves; /* work limit: convex solves per sampling interval (CCB_E_LIMIT beyond it);
                        default 1000000 */
    /* 1 (default): the estimate also bounds the lag defect of Lagged's friction, the friction
     * impulse a step misses because its bound is the normal impulse at the step's start
     * (formulation-convex §15.6; Lagged and regularized Lagged only); 0: step doubling alone,
     * as CENIC */
    int lag_estimate;
    /* 1 (default): propagate the Richardson combination 2 (q~, v~) - (q_full, v_full) of the two
     * half steps and the full step, second order where the step is smooth, and the half steps'
     * state where a contact closes or opens within it (formulation-convex §15.7); 0: the half
     * steps' state, as CENIC */
    int extrapolate;
} ccb_sim_ec_params;

/* Work of the error control since the last set_state (zeros when it is off). */
typedef struct ccb_sim_ec_work {
    long n_steps;        /* accepted internal steps */
    long n_reject;       /* internal steps rejected by the error test */
    long n_fail;         /* internal steps given up because a solve did not converge (h halved) */
    long n_solves;       /* convex solves: three per attempt that reached the error test */
    double h_min, h_max; /* smallest and largest accepted internal step [s] (0 before the first) */
    double err_last;     /* error estimate e of the last attempt that reached the test [m, rad] */
} ccb_sim_ec_work;

typedef struct ccb_sim_params {
    ccb_solver solver; /* default CCB_SOLVER_NEWTON */
    double dt;         /* time step [s] (ODE: sampling interval), finite > 0 */
    double vs;         /* stiction tolerance v_s [m/s] of every model, finite > 0; default 1e-4 */
    const ccb_approx* approx;           /* contact approximation; default &ccb_approx_lagged */
    ccb_problem_params problem;         /* sigma, beta, Delassus variant */
    ccb_newton_params newton;           /* Newton solver options */
    ccb_tamsi_params tamsi;             /* TAMSI options */
    ccb_ode_params ode;                 /* ODE integrator options; ode.h = 0 means dt */
    ccb_contact_ode_params contact_ode; /* continuous model */
    double margin;        /* speculative contact margin [m]; default CCB_DEFAULT_MARGIN */
    ccb_sim_ec_params ec; /* error control of the convex step; default off */
    /* The order of the contacts found at each step: 0 (default) the query's deterministic order
     * (ccb_geometry_query), 1 reversed. The physics is the same; the sums of the assembly and
     * the factorization's elimination order differ, so 1 is a round-off-equivalent perturbation
     * (`ccb gate --sensitivity`, cases.md §10). */
    int contact_order;
    /* The options of a registered solver (its options block; zero bytes by default: a program
     * that selects it sets its defaults with ccb_sim_params_set_solver). */
    ccb_options_block solver_options;
} ccb_sim_params;

/* Selects a solver (and, for the ODE solver, an ODE method; NULL: keep p->ode.method) and writes
 * the default of each of their option descriptors into p. */
CCB_API void ccb_sim_params_set_solver(ccb_sim_params* p, ccb_solver solver, ccb_ode_method method);
/* The descriptor `name` that the solver of p reads (its own, or its ODE method's); NULL if
 * neither has one. *block receives where its offset counts from, as a byte offset into
 * ccb_sim_params (the value lives at (char*)p + *block + d->offset). */
CCB_API const ccb_option_desc* ccb_sim_params_option(const ccb_sim_params* p, const char* name,
                                                     size_t* block);
/* Where the descriptors of a solver and of an ODE method count their offsets from, as byte
 * offsets into ccb_sim_params: 0 for a built-in solver, its options block for a registered one;
 * the ODE parameters for a built-in method, their method options block for a registered one. */
CCB_API size_t ccb_sim_params_solver_block(ccb_solver solver);
CCB_API size_t ccb_sim_params_method_block(ccb_ode_method method);
/* A registered solver's options block in p (its own struct), for its check. */
CCB_API const void* ccb_sim_params_solver_options(const ccb_sim_params* p);

CCB_API ccb_sim_params ccb_sim_params_default(void);
CCB_API ccb_status ccb_sim_params_check(const ccb_sim_params* p, char* msg, size_t n);

/* What one step reports about one contact. */
typedef struct ccb_contact_result {
    ccb_contact geometry; /* query at the start of the step */
    double vc[3];         /* contact velocity at the end of the step, frame C [m/s] */
    double gamma[3];      /* impulse on body B, frame C [N s] */
    double force[3];      /* gamma / dt [N] (error control: gamma / h of the last internal step) */
    double stiction_tol;  /* effective stiction tolerance of the approximation [m/s] */
} ccb_contact_result;

/* A registered solver's options block in the simulation's parameters (its own struct). */
CCB_API const void* ccb_sim_solver_options(const ccb_sim* sim);
/* The solver's workspace (for a solver type's functions; ccb/solver.h). */
CCB_API void* ccb_sim_solver_data(const ccb_sim* sim);
CCB_API void ccb_sim_set_solver_data(ccb_sim* sim, void* data);

/* Per-step statistics of any solver: one generic table of counters, a value per row (NAN where
 * the row does not apply to the solver: no kappa for TAMSI, no f evaluations for Newton). The
 * rows and their names (ccb_counter_name: the columns of steps.csv): */
typedef enum ccb_counter {
    /* Newton iterations (the integrator's for ODE solvers; 0 explicit); of a step solved again
     * from the islands an earlier solve converged (lazy pairs, formulation-convex §8.11), the
     * larger of the two solves', and the line-search evaluations and times below their sum */
    CCB_CNT_ITERATIONS = 0,
    CCB_CNT_LS_EVALS,        /* line-search evaluations (Newton) */
    CCB_CNT_RESIDUAL,        /* residual at exit: |D r| [sqrt(J)] (Newton), |r|_2 [N s] (TAMSI) */
    CCB_CNT_TOLERANCE,       /* its bound at exit */
    CCB_CNT_COST,            /* convex cost at exit [J] (Newton) */
    CCB_CNT_KAPPA,           /* kappa_2(H) at exit (Newton, if asked; else -1) */
    CCB_CNT_ALPHA_MIN,       /* smallest step length (Newton line search, TALS) */
    CCB_CNT_F_EVALS,         /* evaluations of f (ODE) */
    CCB_CNT_SUBSTEPS,        /* substeps of the successful attempt (TAMSI; 1: none) */
    CCB_CNT_TIME_ASSEMBLE,   /* wall time: Hessian assembly [s] (Newton) */
    CCB_CNT_TIME_FACTOR,     /* factorization and solve [s] (Newton) */
    CCB_CNT_TIME_LINESEARCH, /* line search [s] (Newton) */
    CCB_CNT_TIME_EVAL,       /* impulses and Hessians at the iterates [s] (Newton) */
    CCB_CNT_TIME_KAPPA,      /* condition number [s] (Newton) */
    CCB_CNT_COUNT
} ccb_counter;

/* "iterations", "ls_evals", ..., "time_kappa [s]"; NULL for an unknown row. */
CCB_API const char* ccb_counter_name(ccb_counter c);

typedef struct ccb_step_stats {
    ccb_solver solver;
    ccb_status status;             /* CCB_OK or the step's failure */
    double counter[CCB_CNT_COUNT]; /* the solver's rows; NAN where a row does not apply */
    int ncontacts;
    int npairs;           /* lazy body pairs of the step (newton lazy_pairs;
                             formulation-convex §8.11), after a retry 0 */
    int lazy_retries;     /* times the step was solved again because a lazy pair could
                             activate (each time with the contacts of the pairs that failed;
                             after 16 times, or if unknown, with every contact) */
    double time_geometry; /* wall time of the query [s] */
    double time_problem;  /* wall time of the assembly [s] */
    double time_solve;    /* wall time of the solve [s] */
} ccb_step_stats;

/* Creates a simulation of a finalized model (borrowed; must outlive the sim) at the model's
 * initial state and t = 0. CCB_E_INVALID (bad parameters or model), CCB_E_NOMEM. On failure
 * *sim is NULL and msg (may be NULL) says why. */
CCB_API ccb_status ccb_sim_create(const ccb_model* model, const ccb_sim_params* params,
                                  ccb_sim** sim, char* msg, size_t msg_size);
CCB_API void ccb_sim_destroy(ccb_sim* sim); /* accepts NULL */
CCB_API const char* ccb_sim_last_error(const ccb_sim* sim);

/* Sets the state: time t [s], q[nq], v[nv] (copied; all finite, else CCB_E_NONFINITE). */
CCB_API ccb_status ccb_sim_set_state(ccb_sim* sim, double t, const double* q, const double* v);
/* Adds the generalized force u[nv] [N | N m] to the explicit forces of every following step
 * (copied; held until changed; NULL removes it): A v* = A v0 + dt (k2 - D v0 + u)
 * (formulation-convex §1.1). For a controller or an optimizer that acts on the velocities
 * directly (ccb/deriv.h differentiates with respect to it). CCB_E_INVALID for the ODE solver
 * (it integrates the continuous model), CCB_E_NONFINITE, CCB_E_NOMEM. */
CCB_API ccb_status ccb_sim_set_force(ccb_sim* sim, const double* u);
/* The force ccb_sim_set_force holds (borrowed), or NULL. */
CCB_API const double* ccb_sim_force(const ccb_sim* sim);
CCB_API double ccb_sim_time(const ccb_sim* sim);
/* Borrowed, valid until the next step/set_state. */
CCB_API const double* ccb_sim_q(const ccb_sim* sim);
CCB_API const double* ccb_sim_v(const ccb_sim* sim);

/* Advances one step. Returns CCB_OK, or the failure of the query, assembly or solve (e.g.
 * CCB_E_NOTCONV, CCB_E_FACTOR, CCB_E_NONFINITE) with the state unchanged. */
CCB_API ccb_status ccb_sim_step(ccb_sim* sim);

/* Statistics and contacts of the last step (borrowed, valid until the next step). */
CCB_API const ccb_step_stats* ccb_sim_step_stats(const ccb_sim* sim);
CCB_API int ccb_sim_ncontacts(const ccb_sim* sim);
CCB_API const ccb_contact_result* ccb_sim_contact(const ccb_sim* sim, int i);
/* The step problem and the solver workspace of the last step (borrowed; for analysis). The
 * workspace of another solver is NULL: ccb_sim_newton unless solver = NEWTON, ccb_sim_tamsi
 * unless TAMSI, ccb_sim_ode unless ODE. */
CCB_API const ccb_problem* ccb_sim_problem(const ccb_sim* sim);
/* The impulses of the last step (3 per contact, frame C: t1, t2, n) in the order of the
 * contacts of ccb_sim_problem (frozen-step solvers; the global form of ccb_problem_to_global
 * uses that order). CCB_E_INVALID for the ODE solver or before a step. */
CCB_API ccb_status ccb_sim_problem_impulses(const ccb_sim* sim, double* gamma);
CCB_API ccb_newton* ccb_sim_newton(const ccb_sim* sim);
CCB_API const ccb_tamsi* ccb_sim_tamsi(const ccb_sim* sim);
CCB_API const ccb_ode* ccb_sim_ode(const ccb_sim* sim);
/* Symbolic analyses and numeric factorizations of the solver's linear systems since creation
 * (Newton: H; TAMSI: its Jacobian; ODE: the integrator's LU factorizations, no analyses). */
CCB_API void ccb_sim_factor_counts(const ccb_sim* sim, long* analyses, long* factorizations);

/* What the simulation's solver is and how it is set, as dotted keys ("solver.name",
 * "solver.approximation", "option.rtol", "work.f_evaluations", ...), for metadata: one
 * "option.NAME" key per option descriptor of the solver (and its ODE method) with its value,
 * then the solver's own keys. The names of enumerated settings are those of ccb/names.h. */
CCB_API void ccb_sim_describe(const ccb_sim* sim, ccb_describe_fn fn, void* user);
/* Work of the error control of the convex step since the last set_state (zeros when off). */
CCB_API ccb_sim_ec_work ccb_sim_get_ec_work(const ccb_sim* sim);
/* Work of the ODE integrator since the last set_state (zeros for other solvers). */
CCB_API ccb_ode_work ccb_sim_ode_work(const ccb_sim* sim);
CCB_API const ccb_model* ccb_sim_model(const ccb_sim* sim);
CCB_API const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim);

#ifdef __cplusplus
}
#endif
#endif
