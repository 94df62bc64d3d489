/* sim_newton: the convex Newton solver as a frozen-step solver of the simulation: Newton with
 * the exact line search on the approximation of the step problem, warm-started at v0 (spec:
 * formulation-convex §8, §8.7). */
#include <math.h>
#include <stddef.h>

#include "ccb/names.h"
#include "ccb/newton.h"
#include "newton_internal.h"
#include "sim_internal.h"

/* nothing beyond the Newton parameters, which sim.c checks for every solver */
static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    (void)p, (void)msg, (void)n;
    return CCB_OK;
}

SIM_WORKSPACE_HOOKS(ccb_newton, ccb_newton_create, ccb_newton_destroy, ccb_newton_counters,
                    ccb_newton_last_error)

static ccb_status solve(ccb_sim* sim, const ccb_step_context* step, const double* guess, double* c,
                        const double** v, const double** vc, const double** g) {
    (void)step; /* the problem was built with its dt and v_s */
    ccb_newton* nw = sim->ws;
    ccb_newton_stats st;
    const ccb_status s = ccb_newton_solve(nw, sim->problem, &sim->prm.newton, guess, NULL, &st);
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
    return ccb_constraint_stiction_tolerance(pb->approx, &pb->contacts[i].c, gamma);
}

static void describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    const ccb_sim_params* p = &sim->prm;
    const ccb_newton_params* np = &p->newton;
    DESCRIBE_TEXT("solver.approximation", p->approx->name);
    DESCRIBE_TEXT("solver.approximation_title", p->approx->title);
    DESCRIBE_TEXT("solver.linear_solver", ccb_enum_name(CCB_ENUM_LINEAR_SOLVER, np->linear_solver));
    DESCRIBE_TEXT("solver.hessian_pattern", np->pattern_near ? "near" : "all");
    DESCRIBE_FLAG("solver.islands", np->islands);
    DESCRIBE_FLAG("solver.lazy_pairs", np->lazy_pairs);
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

int ccb_sim_newton_lazy_failures(const ccb_sim* sim, const int** pairs) {
    return ccb_newton_lazy_failures(sim->ws, pairs);
}

int ccb_sim_newton_resume(ccb_sim* sim, const double* guess0, double* out) {
    return ccb_newton_resume(sim->ws, guess0, out);
}

/* far contacts are deferred unless every contact is evaluated at every iterate */
static int defer_contacts(const ccb_sim_params* p) {
    return !p->newton.evaluate_all;
}

static const char* const k_pattern[] = {"all", "near", NULL};

#define AT(field) offsetof(ccb_sim_params, field)
static const ccb_option_desc k_options[] = {
    {.name = "rtol",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = AT(newton.eps_r),
     .min = 0,
     .min_open = 1,
     .max = 1,
     .def = 1e-5,
     .unit = "",
     .doc = "relative tolerance eps_r of the stopping test (formulation-convex §8.5)"},
    {.name = "max-iterations",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.max_iterations),
     .min = 1,
     .max = 100000,
     .def = 100,
     .unit = "",
     .doc = "Newton iterations per solve before the step fails"},
    {.name = "ls-tol",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = AT(newton.ls_ftol),
     .min = 0,
     .min_open = 1,
     .max = 0.5,
     .def = 1e-8,
     .unit = "",
     .doc = "exact line search: |l'(alpha)|/|l'(0)| accepted as its root (formulation-convex "
            "§8.4)"},
    {.name = "kappa",
     .type = CCB_OPT_FLAG,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.compute_kappa),
     .def = 0,
     .unit = "",
     .doc = "record kappa_2(H) at the solution of every step (costly)"},
    {.name = "linear-solver",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.linear_solver),
     .def = CCB_LINSOLVE_AUTO,
     .values = ccb_names_linear_solver,
     .unit = "",
     .doc = "factorization of H: auto (block Cholesky by cliques), cholmod, dense or block"},
    {.name = "pattern",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.pattern_near),
     .def = 1,
     .values = k_pattern,
     .unit = "",
     .doc = "Hessian pattern: the clique pairs of every contact (all) or of the near ones"},
    {.name = "islands",
     .type = CCB_OPT_SWITCH,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.islands),
     .def = 1,
     .unit = "",
     .doc = "each island of cliques and contacts its own line search and stopping test "
            "(formulation-convex §8.10); off: one solve of the whole scene, whose iterations "
            "the papers' figures count"},
    {.name = "lazy-pairs",
     .type = CCB_OPT_SWITCH,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.lazy_pairs),
     .def = 1,
     .unit = "",
     .doc = "leave uncomputed the speculative contacts of body pairs that cannot activate in "
            "the step (formulation-convex §8.11; the cut: a radius of (2 V + 0.5 m/s) b, b x4 per "
            "failed pair of the body, x0.9 per step after [default?])"},
    {.name = "stop-scale",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(newton.stop_scale),
     .def = CCB_STOP_STEP_MOMENTUM,
     .values = ccb_names_stop_scale,
     .unit = "",
     .doc = "scale of the stopping test (formulation-convex §8.5)"},
    {.name = "delassus",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(problem.delassus),
     .def = CCB_DELASSUS_DIAG_INVERSE,
     .values = ccb_names_delassus,
     .unit = "",
     .doc = "Delassus estimate w of the approximations (formulation-convex §4.2)"},
    {.name = "error-control",
     .type = CCB_OPT_FLAG,
     .storage = CCB_STORE_INT,
     .offset = AT(ec.enabled),
     .def = 0,
     .unit = "",
     .doc = "error control of the convex step by step doubling (formulation-convex §15)"},
    {.name = "accuracy",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = AT(ec.accuracy),
     .min = 0,
     .min_open = 1,
     .max = 0.5,
     .def = 1e-4,
     .unit = "m, rad",
     .doc = "bound on the local error of q per internal step",
     .requires = "error-control"},
    {.name = "lag-estimate",
     .type = CCB_OPT_SWITCH,
     .storage = CCB_STORE_INT,
     .offset = AT(ec.lag_estimate),
     .def = 1,
     .unit = "",
     .doc = "the estimate also bounds Lagged's lag defect (formulation-convex §15.6)",
     .requires = "error-control"},
    {.name = "extrapolate",
     .type = CCB_OPT_SWITCH,
     .storage = CCB_STORE_INT,
     .offset = AT(ec.extrapolate),
     .def = 1,
     .unit = "",
     .doc = "propagate the Richardson extrapolation (formulation-convex §15.7)",
     .requires = "error-control"},
};
#undef AT

const ccb_solver_type ccb_solver_newton = {
    .abi = CCB_ABI_VERSION,
    .iterations = "Newton iterations",
    .name = "newton",
    .title = "Newton with exact line search on a convex approximation (--approx)",
    .reference = "formulation-convex §8",
    .flags = CCB_SOLVER_CONVEX | CCB_SOLVER_ERROR_CONTROL,
    .notes =
        "Newton with exact line search on the convex approximation (--approx); stopping "
        "test scaled by the momentum change of the step A (v - v0) (--stop-scale momentum: the "
        "spec's A v); eps_r = 1e-5."
        " "
        "newton --error-control (variants lagged-ec, lagged-reg-ec; CENIC, formulation-convex "
        "§15): "
        "step doubling on the convex step, error = max-norm of q_full - q_half [m, rad] (CENIC's "
        "norm) and, for Lagged, at least the lag defect dt w mu |gamma_n - gamma_n0| |t_s| of its "
        "friction (formulation-convex §15.6; --lag-estimate off: step doubling alone, as CENIC), "
        "local extrapolation 2 (q, v)_half - (q, v)_full except where a contact closes or opens in "
        "the step (§15.7; --extrapolate off: the half steps propagated, as CENIC), "
        "accuracy a = 1e-4 by default, first and largest internal step dt, implicit Euler's "
        "step-size rule (error order 2), Newton's own tolerance kept (CENIC: 1e-3 a), h_min = 1e-9 "
        "s, "
        "at most 1e6 solves per interval; not offered for SAP and Similar (their models change "
        "with "
        "the step).",
    .options = k_options,
    .noptions = (int)(sizeof k_options / sizeof k_options[0]),
    .check = check,
    .create = create,
    .destroy = destroy,
    .solve = solve,
    .stiction = stiction,
    .factor_counts = factor_counts,
    .last_error = last_error,
    .describe = describe,
    .defer_contacts = defer_contacts,
};
