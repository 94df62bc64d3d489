/* sim_tamsi: TAMSI (+ TALS, substep retries) as a frozen-step solver of the simulation (spec:
 * formulation-tamsi-hydro §D), started from v0. */
#include <math.h>
#include <stddef.h>

#include "ccb/names.h"
#include "ccb/tamsi.h"
#include "sim_internal.h"

/* TAMSI's parameters (v_s is the simulation's, checked with the step) */
static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    return ccb_tamsi_params_check(&p->tamsi, msg, n);
}

SIM_WORKSPACE_HOOKS(ccb_tamsi, ccb_tamsi_create, ccb_tamsi_destroy, ccb_tamsi_counters,
                    ccb_tamsi_last_error)

static ccb_status solve(ccb_sim* sim, const ccb_step_context* step, const double* guess, double* c,
                        const double** v, const double** vc, const double** g) {
    (void)step; /* TAMSI's v_s is the problem's (sim.c) */
    ccb_tamsi* ts = sim->ws;
    ccb_tamsi_stats st;
    const ccb_status s = ccb_tamsi_solve(ts, sim->problem, &sim->prm.tamsi, guess, NULL, &st);
    c[CCB_CNT_ITERATIONS] = st.iterations;
    c[CCB_CNT_RESIDUAL] = st.residual;
    c[CCB_CNT_TOLERANCE] = st.tolerance;
    c[CCB_CNT_ALPHA_MIN] = st.alpha_min;
    c[CCB_CNT_SUBSTEPS] = st.substeps;
    *v = ccb_tamsi_velocities(ts);
    *vc = ccb_tamsi_contact_velocities(ts);
    *g = ccb_tamsi_impulses(ts);
    return s;
}

/* the regularization's v_s */
static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    (void)i, (void)gamma;
    return sim->prm.vs;
}

static void describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    const ccb_tamsi_params* t = &sim->prm.tamsi;
    DESCRIBE_TEXT("solver.friction", ccb_friction_name(t->friction));
    DESCRIBE_NUM("solver.stiction_tolerance", sim->prm.vs);
    DESCRIBE_TEXT("solver.coupling", ccb_enum_name(CCB_ENUM_COUPLING, t->coupling));
    DESCRIBE_FLAG("solver.tals", t->tals);
    DESCRIBE_NUM("solver.relative_tolerance", t->rho);
    DESCRIBE_NUM("solver.theta_max", t->theta_max);
    DESCRIBE_NUM("solver.max_iterations", t->max_iterations);
    DESCRIBE_NUM("solver.max_substeps", t->max_substeps);
    DESCRIBE_TEXT("solver.linear_solver", ccb_enum_name(CCB_ENUM_TAMSI_LU, t->linear_solver));
}

#define AT(field) offsetof(ccb_sim_params, field)
static const ccb_option_desc k_options[] = {
    {.name = "coupling",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(tamsi.coupling),
     .def = CCB_TAMSI_TWO_WAY,
     .values = ccb_names_coupling,
     .unit = "",
     .doc = "two-way (normal forces implicit) or one-way (lagged) coupling "
            "(formulation-tamsi-hydro §D.1)"},
    {.name = "tals",
     .type = CCB_OPT_SWITCH,
     .storage = CCB_STORE_INT,
     .offset = AT(tamsi.tals),
     .def = 1,
     .unit = "",
     .doc = "TALS on the Newton update (formulation-tamsi-hydro §C)"},
    {.name = "max-iterations",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_INT,
     .offset = AT(tamsi.max_iterations),
     .min = 1,
     .max = 100000,
     .def = 20,
     .unit = "",
     .doc = "Newton iterations per attempt before substepping"},
};
#undef AT

const ccb_solver_type ccb_solver_tamsi = {
    .abi = CCB_ABI_VERSION,
    .iterations = "Newton iterations",
    .name = "tamsi",
    .title = "TAMSI: transition-aware modified semi-implicit step, with TALS",
    .reference = "formulation-tamsi-hydro §D",
    .flags = CCB_SOLVER_REGULARIZED,
    .notes =
        "two-way coupling, TALS on (theta_max = pi/3, rho = 1e-2), regularization quad "
        "(Drake's TamsiSolver) unless the case sets one, v_s from the case; 20 iterations per "
        "attempt and retries with 2..20 equal substeps (Drake's TamsiDriver, "
        "formulation-tamsi-hydro §D.5); across "
        "substeps ccb updates phi <- phi + hs vn instead of Drake's clamped fn0 <- (fn0 - hs k "
        "vn)+ "
        "(same in contact, right for speculative contacts); the one-way variant solves its SPD "
        "Jacobian by the same LU; dense LU for one participating clique, UMFPACK otherwise.",
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
};
