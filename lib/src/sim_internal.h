/* sim internals: the simulation object and the table of its solvers (not installed).
 *
 * A solver is a const table, as the approximations are: sim.c dispatches through it and knows no
 * solver kind. Two shapes of step: a frozen-step solver (Newton on a convex approximation, TAMSI)
 * solves the step problem that sim.c built at (t0, q0) and returns v, the contact velocities and
 * impulses; sim.c then moves q (symplectic Euler). An integrator (the ODE solver) advances the
 * continuous model over the whole step itself. Either fills the generic step counters. */
#ifndef CCB_SIM_INTERNAL_H
#define CCB_SIM_INTERNAL_H

#include "ccb/sim.h"
#include "internal.h"
#include "model_internal.h"
#include "problem_internal.h"

typedef struct sim_solver sim_solver;

struct ccb_sim {
    const ccb_model* model;
    ccb_sim_params prm;
    const sim_solver* solver;
    void* ws; /* the solver's workspace */
    ccb_contact_set contacts;
    ccb_problem* problem;
    double t_start;
    long nsteps; /* steps since set_state */
    double *q, *v, *qn;
    ccb_contact_result* results;
    int nresults, cap_results;
    ccb_step_stats stats;
    double h_last; /* step of the last frozen solve [s] (dt, or error control's internal h) */
    /* error control of the convex step (sim.c): the state of the interval and its three
     * candidates, the step to try next, the work */
    double *ec_q, *ec_v, *ec_qf, *ec_vf, *ec_qh, *ec_vh, *ec_q2, *ec_v2, *ec_g;
    double ec_h;
    ccb_sim_ec_work ec_work;
    double* metrics_ws; /* ccb_sim_physics_metrics' vectors, grown once (metrics.c) */
    int cap_metrics;
    char msg[CCB_MSG_SIZE];
};

struct sim_solver {
    /* Checks the solver's own parameters in p (the rest is checked by sim.c). */
    ccb_status (*check)(const ccb_sim_params* p, char* msg, size_t n);
    /* Creates sim->ws for sim->model and sim->prm (checked). */
    ccb_status (*create)(ccb_sim* sim, char* msg, size_t n);
    void (*destroy)(ccb_sim* sim); /* accepts a NULL sim->ws */
    /* Frozen-step solvers: solves sim->problem from the guess (nv); on success *v, *vc, *gamma point at
     * the new velocities, contact velocities and impulses (borrowed). NULL for integrators. */
    ccb_status (*solve)(ccb_sim* sim, const double* guess, const double** v, const double** vc,
                        const double** gamma);
    /* Integrators: advances (t, q, v) by one step from t0, with the contact results; on failure
     * the state is unchanged. NULL for frozen-step solvers. */
    ccb_status (*advance)(ccb_sim* sim, double t0);
    /* The state changed (set_state) at time t; NULL if nothing to do. */
    ccb_status (*set_state)(ccb_sim* sim, double t);
    /* Effective stiction tolerance [m/s] of contact i at impulse gamma. */
    double (*stiction)(const ccb_sim* sim, int i, const double gamma[3]);
    void (*factor_counts)(const ccb_sim* sim, long* analyses, long* factorizations);
    const char* (*last_error)(const ccb_sim* sim);
    /* The solver's settings and work (ccb_sim_describe; "solver.name" is written by sim.c). */
    void (*describe)(const ccb_sim* sim, ccb_describe_fn fn, void* user);
};

extern const sim_solver ccb_sim_solver_newton; /* sim_newton.c */
extern const sim_solver ccb_sim_solver_tamsi;  /* sim_tamsi.c */
extern const sim_solver ccb_sim_solver_ode;    /* sim_ode.c */

/* Shorthands for describe hooks. */
#define DESCRIBE_TEXT(key, t) fn(user, key, CCB_DESCRIBE_TEXT, t, 0.0)
#define DESCRIBE_NUM(key, x) fn(user, key, CCB_DESCRIBE_NUMBER, NULL, (double)(x))
#define DESCRIBE_FLAG(key, b) fn(user, key, CCB_DESCRIBE_FLAG, NULL, (b) ? 1.0 : 0.0)

/* sim.c: room for nc contact results. */
ccb_status ccb_sim_reserve_results(ccb_sim* sim, int nc);
/* sim_ode.c: the integrator of an ODE-solver simulation. */
const ccb_ode* ccb_sim_ode_integrator(const ccb_sim* sim);

#endif
