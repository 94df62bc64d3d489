/* sim internals: the simulation object (not installed).
 *
 * A solver is a type object of ccb/solver.h, as the approximations are: sim.c dispatches through
 * it and knows no solver kind. Two shapes of step: a frozen-step solver (Newton on a convex
 * approximation, TAMSI, a registered one) solves the step problem that sim.c built at (t0, q0)
 * and returns v, the contact velocities and impulses; sim.c then moves q (symplectic Euler). An
 * integrator (the ODE solver) advances the continuous model over the whole step itself. Either
 * fills the generic step counters. */
#ifndef CCB_SIM_INTERNAL_H
#define CCB_SIM_INTERNAL_H

#include "ccb/sim.h"
#include "internal.h"
#include "model_internal.h"
#include "problem_internal.h"

struct ccb_sim {
    const ccb_model* model;
    ccb_sim_params prm;
    const ccb_solver_type* solver; /* prm.solver */
    void* ws;                      /* the solver's workspace */
    ccb_contact_set contacts;
    ccb_twist* lazy_V; /* per body: twist at (q0, v0), for lazy pairs (formulation-convex §8.11) */
    int cap_lazy_V;
    int* lazy_ex; /* body pairs (2 each) not to leave out in this step's next query */
    int n_lazy_ex, cap_lazy_ex;
    double* lazy_resume; /* nv: the velocities the step's next solve starts from (resumed) */
    int cap_lazy_resume;
    /* per body: the factor on R_req of its lazy pairs, raised when one of them fails and decaying
     * back to 1 over the following steps (sim.c, lazy_cut) */
    double* lazy_boost;
    int cap_lazy_boost, n_lazy_boost;
    unsigned char* lazy_chg; /* per body: 1 while a query decides its pairs again (all 0 else) */
    int cap_lazy_chg;
    ccb_problem* problem;
    double t_start;
    long nsteps; /* steps since set_state */
    double *q, *v, *qn;
    double* u; /* ccb_sim_set_force: the generalized force added over every step (nv), or NULL */
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

/* Shorthands for describe hooks. */
#define DESCRIBE_TEXT(key, t) fn(user, key, CCB_DESCRIBE_TEXT, t, 0.0)
#define DESCRIBE_NUM(key, x) fn(user, key, CCB_DESCRIBE_NUMBER, NULL, (double)(x))
#define DESCRIBE_FLAG(key, b) fn(user, key, CCB_DESCRIBE_FLAG, NULL, (b) ? 1.0 : 0.0)

/* The workspace hooks of a frozen-step solver whose workspace is one object of type T with the
 * library's create/destroy/counters/last-error functions (sim_newton.c, sim_tamsi.c): create,
 * destroy, factor_counts and last_error of ccb_solver_type, for the file's type table. */
#define SIM_WORKSPACE_HOOKS(T, create_fn, destroy_fn, counters_fn, error_fn)                       \
    static ccb_status create(ccb_sim* sim, char* msg, size_t n) {                                  \
        T* ws = NULL;                                                                              \
        if (create_fn(&ws) != CCB_OK) {                                                            \
            return ccb_errorf(msg, n, CCB_E_NOMEM, "sim_create: out of memory");                   \
        }                                                                                          \
        sim->ws = ws;                                                                              \
        return CCB_OK;                                                                             \
    }                                                                                              \
    static void destroy(ccb_sim* sim) {                                                            \
        destroy_fn(sim->ws);                                                                       \
        sim->ws = NULL;                                                                            \
    }                                                                                              \
    static void factor_counts(const ccb_sim* sim, long* a, long* f) {                              \
        counters_fn(sim->ws, a, f);                                                                \
    }                                                                                              \
    static const char* last_error(const ccb_sim* sim) {                                            \
        return error_fn(sim->ws);                                                                  \
    }

/* sim.c: room for nc contact results. */
ccb_status ccb_sim_reserve_results(ccb_sim* sim, int nc);
/* sim_ode.c: the integrator of an ODE-solver simulation. */
const ccb_ode* ccb_sim_ode_integrator(const ccb_sim* sim);

/* After a Newton solve that failed with CCB_E_RETRY: the contact set's indices of the lazy
 * pairs that may activate (sim_newton.c; count, 0 if unknown). */
int ccb_sim_newton_lazy_failures(const ccb_sim* sim, const int** pairs);
/* After it: the guess of the step's next solve in out (nv), the islands that converged kept
 * (ccb_newton_resume); 1, or 0 to start again from guess0. */
int ccb_sim_newton_resume(ccb_sim* sim, const double* guess0, double* out);

#endif
