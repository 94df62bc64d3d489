/* sim_tamsi: TAMSI (+ TALS, substep retries) as a frozen-step solver of the simulation (spec:
 * formulation-tamsi-hydro §D), started from v0. */
#include <math.h>

#include "ccb/names.h"
#include "ccb/tamsi.h"
#include "sim_internal.h"

/* TAMSI's parameters with the problem's v_s (the stiction tolerance of every solver) */
static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    ccb_tamsi_params tp = p->tamsi;
    tp.vs = p->problem.approx.vs;
    return ccb_tamsi_params_check(&tp, msg, n);
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    ccb_tamsi* ts = NULL;
    if (ccb_tamsi_create(&ts) != CCB_OK) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "sim_create: out of memory");
    }
    sim->ws = ts;
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    ccb_tamsi_destroy(sim->ws);
    sim->ws = NULL;
}

static ccb_status solve(ccb_sim* sim, const double* guess, const double** v, const double** vc,
                        const double** g) {
    ccb_tamsi* ts = sim->ws;
    ccb_tamsi_stats st;
    const ccb_status s = ccb_tamsi_solve(ts, sim->problem, &sim->prm.tamsi, guess, NULL, &st);
    double* c = sim->stats.counter;
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
    return sim->prm.problem.approx.vs;
}

static void factor_counts(const ccb_sim* sim, long* a, long* f) {
    ccb_tamsi_counters(sim->ws, a, f);
}

static const char* last_error(const ccb_sim* sim) {
    return ccb_tamsi_last_error(sim->ws);
}

static void describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    const ccb_tamsi_params* t = &sim->prm.tamsi;
    DESCRIBE_TEXT("solver.friction", ccb_friction_name(t->friction));
    DESCRIBE_NUM("solver.stiction_tolerance", sim->prm.problem.approx.vs);
    DESCRIBE_TEXT("solver.coupling", ccb_enum_name(CCB_ENUM_COUPLING, t->coupling));
    DESCRIBE_FLAG("solver.tals", t->tals);
    DESCRIBE_NUM("solver.relative_tolerance", t->rho);
    DESCRIBE_NUM("solver.theta_max", t->theta_max);
    DESCRIBE_NUM("solver.max_iterations", t->max_iterations);
    DESCRIBE_NUM("solver.max_substeps", t->max_substeps);
    DESCRIBE_TEXT("solver.linear_solver", ccb_enum_name(CCB_ENUM_TAMSI_LU, t->linear_solver));
}

const sim_solver ccb_sim_solver_tamsi = {check,         create,     destroy, solve,
                                         NULL,          NULL,       stiction, factor_counts,
                                         last_error,    describe};
