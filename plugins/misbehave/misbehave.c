/* A plugin that breaks the solver contract (issue 44: what a plugin returns is checked). Built
 * for the test suite only (CI/plugin_test.sh), never installed. Its solver "misbehave" fails
 * every step without a message (--misbehave-mode 0: last_error returns NULL) or reports success
 * without its solution (mode 1: *v, *vc and *gamma left NULL). ccb must record the run as failed
 * with a message of its own, never crash or print "(null)". */
#include <stddef.h>

#include "ccb/sim.h"
#include "ccb/solver.h"

typedef struct misbehave_options {
    int mode;
} misbehave_options;

static const ccb_option_desc k_options[] = {
    {.name = "misbehave-mode",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_INT,
     .offset = offsetof(misbehave_options, mode),
     .min = 0,
     .max = 1,
     .def = 0,
     .unit = "",
     .doc = "0: fail without a message; 1: succeed without a solution"},
};

static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    (void)p, (void)msg, (void)n;
    return CCB_OK;
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    (void)msg, (void)n;
    ccb_sim_set_solver_data(sim, NULL);
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    (void)sim;
}

static ccb_status solve(ccb_sim* sim, const ccb_step_context* step, const double* guess,
                        double* counter, const double** v, const double** vc,
                        const double** gamma) {
    (void)step, (void)guess, (void)counter, (void)v, (void)vc, (void)gamma;
    const misbehave_options* o = ccb_sim_solver_options(sim);
    return o->mode == 0 ? CCB_E_NOTCONV : CCB_OK;
}

static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    (void)sim, (void)i, (void)gamma;
    return 0;
}

static const char* last_error(const ccb_sim* sim) {
    (void)sim;
    return NULL;
}

static const ccb_solver_type k_misbehave = {
    .abi = CCB_ABI_VERSION,
    .name = "misbehave",
    .title = "a solver that breaks the contract (test plugin)",
    .reference = "plugins/misbehave/misbehave.c",
    .flags = CCB_SOLVER_CONVEX,
    .options = k_options,
    .noptions = 1,
    .options_size = sizeof(misbehave_options),
    .check = check,
    .create = create,
    .destroy = destroy,
    .solve = solve,
    .stiction = stiction,
    .last_error = last_error,
};

const int ccb_plugin_abi = CCB_ABI_VERSION;
int ccb_plugin_register(char* msg, size_t n);
int ccb_plugin_register(char* msg, size_t n) {
    return ccb_solver_register(&k_misbehave, msg, n) == CCB_OK ? 0 : 1;
}
