/* sim_newton: the convex Newton solver as a frozen-step solver of the simulation: Newton with
 * the exact line search on the approximation of the step problem, warm-started at v0 (spec:
 * formulation-convex §8, §8.7). */
#include <math.h>

#include "ccb/names.h"
#include "ccb/newton.h"
#include "sim_internal.h"

/* nothing beyond the Newton parameters, which sim.c checks for every solver */
static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    (void)p, (void)msg, (void)n;
    return CCB_OK;
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    ccb_newton* nw = NULL;
    if (ccb_newton_create(&nw) != CCB_OK) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "sim_create: out of memory");
    }
    sim->ws = nw;
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    ccb_newton_destroy(sim->ws);
    sim->ws = NULL;
}

static ccb_status solve(ccb_sim* sim, const double* guess, const double** v, const double** vc,
                        const double** g) {
    ccb_newton* nw = sim->ws;
    ccb_newton_stats st;
    const ccb_status s = ccb_newton_solve(nw, sim->problem, &sim->prm.newton, guess, NULL, &st);
    double* c = sim->stats.counter;
    c[CCB_CNT_ITERATIONS] = st.iterations;
    c[CCB_CNT_LS_EVALS] = st.ls_evals;
    c[CCB_CNT_RESIDUAL] = st.residual;
    c[CCB_CNT_TOLERANCE] = st.tolerance;
    c[CCB_CNT_COST] = st.cost;
    c[CCB_CNT_KAPPA] = st.kappa;
    c[CCB_CNT_ALPHA_MIN] = st.alpha_min;
    c[CCB_CNT_TIME_ASSEMBLE] = st.time_assemble;
    c[CCB_CNT_TIME_FACTOR] = st.time_factor;
    c[CCB_CNT_TIME_LINESEARCH] = st.time_linesearch;
    c[CCB_CNT_TIME_EVAL] = st.time_eval;
    c[CCB_CNT_TIME_KAPPA] = st.time_kappa;
    *v = ccb_newton_velocities(nw);
    *vc = ccb_newton_contact_velocities(nw);
    *g = ccb_newton_impulses(nw);
    return s;
}

/* the approximation's own tolerance: v_s, eq. (26)'s eps_s, or SAP's sigma w mu gamma_n (ICF
 * eq. 25) */
static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    const ccb_problem* pb = sim->problem;
    return pb->approx->stiction_tolerance(&pb->contacts[i].c, gamma);
}

static void factor_counts(const ccb_sim* sim, long* a, long* f) {
    ccb_newton_counters(sim->ws, a, f);
}

static const char* last_error(const ccb_sim* sim) {
    return ccb_newton_last_error(sim->ws);
}

static void describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    const ccb_sim_params* p = &sim->prm;
    const ccb_newton_params* np = &p->newton;
    DESCRIBE_TEXT("solver.approximation", p->approx->name);
    DESCRIBE_TEXT("solver.approximation_title", p->approx->title);
    DESCRIBE_TEXT("solver.linear_solver", ccb_enum_name(CCB_ENUM_LINEAR_SOLVER, np->linear_solver));
    DESCRIBE_TEXT("solver.hessian_pattern", np->pattern_near ? "near" : "all");
    DESCRIBE_TEXT("solver.delassus", ccb_enum_name(CCB_ENUM_DELASSUS, p->problem.delassus));
    DESCRIBE_TEXT("solver.stop_scale", ccb_enum_name(CCB_ENUM_STOP_SCALE, np->stop_scale));
    DESCRIBE_NUM("solver.eps_a", np->eps_a);
    DESCRIBE_NUM("solver.eps_r", np->eps_r);
    DESCRIBE_NUM("solver.eps_cost_a", np->eps_cost_a);
    DESCRIBE_NUM("solver.eps_cost_r", np->eps_cost_r);
    DESCRIBE_NUM("solver.max_iterations", np->max_iterations);
    DESCRIBE_NUM("solver.line_search_alpha_max", np->ls_alpha_max);
    DESCRIBE_FLAG("solver.compute_kappa", np->compute_kappa);
    DESCRIBE_FLAG("solver.error_control", p->ec.enabled);
    if (p->ec.enabled) { /* formulation-convex §15 */
        const ccb_sim_ec_work* w = &sim->ec_work;
        DESCRIBE_NUM("solver.accuracy", p->ec.accuracy);
        DESCRIBE_TEXT("solver.error_estimator", p->ec.lag_estimate ? "doubling+lag" : "doubling");
        DESCRIBE_FLAG("solver.extrapolate", p->ec.extrapolate);
        DESCRIBE_NUM("solver.h_max", p->dt);
        DESCRIBE_NUM("solver.h_min", p->ec.h_min);
        DESCRIBE_NUM("work.steps", w->n_steps);
        DESCRIBE_NUM("work.error_rejections", w->n_reject);
        DESCRIBE_NUM("work.newton_failures", w->n_fail);
        DESCRIBE_NUM("work.convex_solves", w->n_solves);
        DESCRIBE_NUM("work.h_min", w->h_min);
        DESCRIBE_NUM("work.h_max", w->h_max);
    }
}

const sim_solver ccb_sim_solver_newton = {check,         create,     destroy, solve,
                                          NULL,          NULL,       stiction, factor_counts,
                                          last_error,    describe};
