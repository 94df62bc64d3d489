/* Unit tests of the extension model (ccb/solver.h): option descriptors, the solver and ODE-method
 * registries, and a solver and an ODE method registered from outside the library. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "test.h"

/* Every descriptor of every built-in type: a well-formed table, a default that is the library's
 * (ccb_sim_params_default, the block a descriptor points into), and a default that formats and
 * parses back to itself. */
static void check_table(const char* owner, const ccb_option_desc* d, int n, size_t block,
                        const void* defaults) {
    char msg[256];
    CHECK(ccb_option_table_check(d, n, block, msg, sizeof msg) == CCB_OK, "%s: %s", owner, msg);
    for (int i = 0; i < n; ++i) {
        CHECK(ccb_option_value(&d[i], defaults) == d[i].def,
              "%s --%s: descriptor default %g, library default %g", owner, d[i].name, d[i].def,
              ccb_option_value(&d[i], defaults));
        char text[64];
        ccb_option_format_default(&d[i], text, sizeof text);
        unsigned char scratch[sizeof(ccb_sim_params)];
        memset(scratch, 0, sizeof scratch);
        CHECK(ccb_option_parse(&d[i], d[i].type == CCB_OPT_FLAG ? NULL : text, scratch, msg,
                               sizeof msg) == CCB_OK,
              "%s --%s: its default '%s' parses: %s", owner, d[i].name, text, msg);
        if (d[i].type != CCB_OPT_FLAG) {
            CHECK(ccb_option_value(&d[i], scratch) == d[i].def, "%s --%s round trip of '%s'", owner,
                  d[i].name, text);
        }
    }
}

static void test_builtin_descriptors(void) {
    const ccb_sim_params sp = ccb_sim_params_default();
    CHECK(ccb_solver_count() == 3 && ccb_solver_get(0) == &ccb_solver_newton &&
              ccb_solver_get(3) == NULL,
          "three built-in solvers");
    CHECK(ccb_ode_method_count() == 3 && ccb_ode_method_find("rk3") == &ccb_ode_rk3,
          "three built-in ODE methods");
    for (int i = 0; i < ccb_solver_count(); ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        check_table(t->name, t->options, t->noptions, sizeof sp, &sp);
        CHECK(t->abi == CCB_ABI_VERSION && ccb_component_name_ok(t->name), "%s: abi, name",
              t->name);
    }
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        ccb_ode_method m = ccb_ode_method_get(i);
        check_table(m->name, m->options, m->noptions, sizeof sp.ode, &sp.ode);
    }
    /* selecting a built-in solver writes its descriptors' defaults: nothing changes */
    for (int i = 0; i < ccb_solver_count(); ++i) {
        ccb_sim_params p = ccb_sim_params_default(), q = p;
        ccb_sim_params_set_solver(&p, ccb_solver_get(i), NULL);
        q.solver = ccb_solver_get(i);
        CHECK(memcmp(&p, &q, sizeof p) == 0, "set_solver(%s) keeps the defaults",
              ccb_solver_get(i)->name);
    }
    /* an option is found through the solver or its ODE method */
    ccb_sim_params p = ccb_sim_params_default();
    ccb_sim_params_set_solver(&p, CCB_SOLVER_ODE, CCB_ODE_IE);
    size_t block = 1;
    const ccb_option_desc* d = ccb_sim_params_option(&p, "jacobian", &block);
    CHECK(d && block == offsetof(ccb_sim_params, ode), "ie's --jacobian through the ODE solver");
    d = ccb_sim_params_option(&p, "h", &block);
    CHECK(d && block == 0, "the ODE solver's own --h");
    CHECK(ccb_sim_params_option(&p, "rtol", &block) == NULL, "no --rtol for the ODE solver");
}

static void test_parse_errors(void) {
    const ccb_option_desc* rtol = ccb_solver_option(&ccb_solver_newton, "rtol");
    const ccb_option_desc* ls = ccb_solver_option(&ccb_solver_newton, "linear-solver");
    const ccb_option_desc* tals = ccb_solver_option(&ccb_solver_tamsi, "tals");
    const ccb_option_desc* iters = ccb_solver_option(&ccb_solver_newton, "max-iterations");
    ccb_sim_params p = ccb_sim_params_default();
    const ccb_sim_params before = p;
    char msg[256];
    const char* bad_rtol[] = {"", "0", "-1", "2", "nan", "inf", "1e-3x", "1e999", NULL};
    for (int i = 0; bad_rtol[i]; ++i) {
        CHECK(ccb_option_parse(rtol, bad_rtol[i], &p, msg, sizeof msg) == CCB_E_INVALID &&
                  strstr(msg, "--rtol expects a number in (0, 1]"),
              "--rtol '%s' refused: %s", bad_rtol[i], msg);
    }
    CHECK(ccb_option_parse(iters, "2.5", &p, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "whole number"),
          "2.5 iterations refused: %s", msg);
    CHECK(ccb_option_parse(ls, "lu", &p, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "auto, cholmod, dense, block"),
          "an unknown name lists the names: %s", msg);
    CHECK(ccb_option_parse(tals, "yes", &p, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "off, on"),
          "a switch is on|off: %s", msg);
    CHECK(memcmp(&p, &before, sizeof p) == 0, "nothing stored by a refused value");
    CHECK(ccb_option_parse(ls, "dense", &p, msg, sizeof msg) == CCB_OK &&
              p.newton.linear_solver == CCB_LINSOLVE_DENSE,
          "an enumeration is stored as its value");
    CHECK(ccb_option_parse(rtol, "1e-7", &p, msg, sizeof msg) == CCB_OK && p.newton.eps_r == 1e-7,
          "a number is stored");
    const ccb_option_desc* gtol = NULL;
    for (int i = 0; i < ccb_ode_gsl.noptions; ++i) {
        gtol = strcmp(ccb_ode_gsl.options[i].name, "gsl-tol") == 0 ? &ccb_ode_gsl.options[i] : gtol;
    }
    CHECK(gtol && ccb_option_parse(gtol, "1e-7", &p.ode, msg, sizeof msg) == CCB_OK &&
              p.ode.gsl_atol == 1e-7 && p.ode.gsl_rtol == 1e-7,
          "--gsl-tol sets both of its locations");
    char text[64];
    ccb_option_format(rtol, &p, text, sizeof text);
    CHECK(strcmp(text, "1e-07") == 0, "the shortest round-trip form: '%s'", text);
}

static void test_table_check(void) {
    char msg[256];
    ccb_option_desc d[2] = {
        {.name = "ok",
         .type = CCB_OPT_REAL,
         .storage = CCB_STORE_DOUBLE,
         .min = 0,
         .max = 1,
         .def = 0.5,
         .unit = "",
         .doc = "x"},
        {.name = "ok2",
         .type = CCB_OPT_SWITCH,
         .storage = CCB_STORE_INT,
         .offset = sizeof(double),
         .unit = "",
         .doc = "y"},
    };
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_OK, "a good table: %s", msg);
    d[0].def = 2;
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "outside its range"),
          "a default out of range: %s", msg);
    d[0].def = 0.5;
    d[1].name = "Bad_Name";
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_E_INVALID, "a bad name");
    d[1].name = "ok";
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "twice"),
          "a name twice: %s", msg);
    d[1].name = "ok2";
    d[1].offset = 64;
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "outside the parameter block"),
          "a location outside the block: %s", msg);
    d[1].offset = sizeof(double);
    d[0].requires = "nothing";
    CHECK(ccb_option_table_check(d, 2, 64, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "requires"),
          "requires names no flag: %s", msg);
}

/* ---- a solver registered from outside: free motion (v = v*, no impulse) ---------------------- */

typedef struct free_ws {
    double* v;
    double* zero;
    int cap_v, cap_c;
} free_ws;

/* its options block: a struct of its own (ccb_options_block) */
typedef struct free_options {
    int unused; /* an offset other than 0 for the option below */
    double scale;
} free_options;

static ccb_status free_check(const ccb_sim_params* p, char* msg, size_t n) {
    const free_options* o = ccb_sim_params_solver_options(p);
    if (!(o->scale >= 1)) {
        snprintf(msg, n, "free: scale must be >= 1 (got %g)", o->scale);
        return CCB_E_INVALID;
    }
    return CCB_OK;
}
static ccb_status free_create(ccb_sim* sim, char* msg, size_t n) {
    (void)msg, (void)n;
    free_ws* w = calloc(1, sizeof *w);
    ccb_sim_set_solver_data(sim, w);
    return w ? CCB_OK : CCB_E_NOMEM;
}
static void free_destroy(ccb_sim* sim) {
    free_ws* w = ccb_sim_solver_data(sim);
    if (w) {
        free(w->v);
        free(w->zero);
        free(w);
    }
}
static ccb_status free_solve(ccb_sim* sim, const ccb_step_context* step, const double* guess,
                             double* counter, const double** v, const double** vc,
                             const double** gamma) {
    (void)guess;
    free_ws* w = ccb_sim_solver_data(sim);
    const ccb_problem* p = ccb_sim_problem(sim);
    const int nv = ccb_problem_nv(p), nc = ccb_problem_nc(p);
    free(w->v);
    free(w->zero);
    w->v = calloc((size_t)nv + 1, sizeof(double));
    w->zero = calloc(3 * (size_t)nc + 1, sizeof(double));
    if (!w->v || !w->zero) {
        return CCB_E_NOMEM;
    }
    memcpy(w->v, ccb_problem_vstar(p), (size_t)nv * sizeof(double));
    counter[CCB_CNT_ITERATIONS] = step->dt > 0 ? 1 : 0;
    *v = w->v;
    *vc = w->zero;
    *gamma = w->zero;
    return CCB_OK;
}
static double free_stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    (void)sim, (void)i, (void)gamma;
    return 0.0;
}
static const char* free_error(const ccb_sim* sim) {
    (void)sim;
    return "";
}
static const ccb_option_desc k_free_opts[] = {
    {.name = "free-scale",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = offsetof(free_options, scale),
     .min = 1,
     .max = 10,
     .def = 2,
     .unit = "",
     .doc = "a number the test checks arrives"},
};
static const ccb_solver_type k_free = {
    .abi = CCB_ABI_VERSION,
    .name = "free-motion",
    .title = "no contact at all (test)",
    .options = k_free_opts,
    .noptions = 1,
    .options_size = sizeof(free_options),
    .check = free_check,
    .create = free_create,
    .destroy = free_destroy,
    .solve = free_solve,
    .stiction = free_stiction,
    .last_error = free_error,
};

/* ---- an ODE method registered from outside: explicit Euler with a fixed step h ---------------- */

/* its options block (ccb_options_block) */
typedef struct euler_options {
    double unused; /* an offset other than 0 for the option */
    long substeps;
} euler_options;

static ccb_status euler_advance(ccb_ode* o, double t_end) {
    const int nx = ccb_ode_nx(o);
    double* x = ccb_ode_state_mut(o);
    double* f = malloc((size_t)nx * sizeof(double));
    if (f == NULL) {
        return CCB_E_NOMEM;
    }
    /* what a registered method reads: its options block and the step, not ccb_ode_params */
    const euler_options* eo = ccb_ode_method_options(o);
    const double h = ccb_ode_step_size(o) / (double)eo->substeps;
    const long n = lround((t_end - ccb_ode_time(o)) / h);
    const double t0 = ccb_ode_time(o);
    for (long k = 0; k < n; ++k) {
        const ccb_status s = ccb_ode_f(o, t0 + (double)k * h, x, f);
        if (s != CCB_OK) {
            free(f);
            return s;
        }
        for (int i = 0; i < nx; ++i) {
            x[i] += h * f[i];
        }
        ccb_ode_work_mut(o)->n_steps++;
    }
    ccb_ode_set_time(o, t_end);
    free(f);
    return CCB_OK;
}
static const ccb_option_desc k_euler_opts[] = {
    {.name = "euler-substeps",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_LONG,
     .offset = offsetof(euler_options, substeps),
     .min = 1,
     .max = 100,
     .def = 1,
     .unit = "",
     .doc = "Euler steps per step h (test)"},
};
static const ccb_ode_method_type k_euler = {
    .abi = CCB_ABI_VERSION,
    .name = "euler-test",
    .title = "explicit Euler, fixed step (test)",
    .flags = CCB_ODE_EXPLICIT,
    .options = k_euler_opts,
    .noptions = 1,
    .options_size = sizeof(euler_options),
    .advance = euler_advance,
};

/* A method that breaks the contract: success without reaching t_end (mode 0), with a NaN state
 * (1), or a failure without a message (2). */
static int g_bad_mode = 0;
static ccb_status bad_advance(ccb_ode* o, double t_end) {
    if (g_bad_mode == 1) {
        ccb_ode_state_mut(o)[0] = NAN;
        ccb_ode_set_time(o, t_end);
    }
    return g_bad_mode == 2 ? CCB_E_NOTCONV : CCB_OK;
}
static const ccb_ode_method_type k_bad_method = {
    .abi = CCB_ABI_VERSION,
    .name = "bad-test",
    .title = "breaks the contract (test)",
    .flags = CCB_ODE_EXPLICIT,
    .advance = bad_advance,
};

/* A body of one planar mobilizer falling freely from z0 = 1 m, no shape. */
static ccb_model* falling_body(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "b";
    d.mass = 1.5;
    d.inertia.m[4] = 0.01;
    d.pose.p.z = 1.0;
    int ib;
    ccb_model_add_body(m, &d, &ib);
    ccb_model_finalize(m);
    return m;
}

static void test_registered_types(void) {
    char msg[256];
    ccb_solver_type bad = k_free;
    bad.abi = CCB_ABI_VERSION + 1;
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "ABI"),
          "another ABI refused: %s", msg);
    bad = k_free;
    bad.name = "tamsi";
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "taken"),
          "a taken name refused: %s", msg);
    bad = k_free;
    bad.name = "ie";
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "taken"),
          "an ODE method's name refused: %s", msg);
    bad = k_free;
    bad.solve = NULL;
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "exactly one of solve and advance"),
          "neither solve nor advance refused: %s", msg);
    /* its options block (ccb/solver.h): declared, no larger than CCB_OPTIONS_BLOCK_SIZE, and
     * every descriptor inside it */
    bad = k_free;
    bad.options_size = 0;
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "block"),
          "options without a block refused: %s", msg);
    bad = k_free;
    bad.options_size = CCB_OPTIONS_BLOCK_SIZE + 1;
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "block"),
          "a block larger than CCB_OPTIONS_BLOCK_SIZE refused: %s", msg);
    bad = k_free;
    bad.options_size = offsetof(free_options, scale); /* the option's double lies beyond it */
    CHECK(ccb_solver_register(&bad, msg, sizeof msg) == CCB_E_INVALID,
          "a descriptor outside the block refused: %s", msg);
    CHECK(ccb_solver_count() == 3, "nothing registered by a refusal");
    CHECK(ccb_solver_register(&k_free, msg, sizeof msg) == CCB_OK, "register: %s", msg);
    CHECK(ccb_solver_find("free-motion") == &k_free && ccb_solver_count() == 4, "found");
    CHECK(ccb_ode_method_register(&k_euler, msg, sizeof msg) == CCB_OK, "register: %s", msg);
    CHECK(ccb_ode_method_find("euler-test") == &k_euler, "found");
    CHECK(ccb_ode_method_register(&k_bad_method, msg, sizeof msg) == CCB_OK, "register: %s", msg);

    ccb_model* m = falling_body();
    /* the registered solver through ccb_sim: defaults from its descriptor, then free flight */
    ccb_sim_params p = ccb_sim_params_default();
    p.solver = &k_free;
    ccb_sim* sim = NULL;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "free:"),
          "without its defaults, its own check refuses: %s", msg);
    ccb_sim_params_set_solver(&p, &k_free, NULL);
    CHECK(((const free_options*)ccb_sim_params_solver_options(&p))->scale == 2.0,
          "its default arrived in its options block");
    p.dt = 0.01;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    for (int k = 0; k < 10; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    }
    const double g = 9.81, t = 0.1;
    /* symplectic Euler: v_n = -g n dt, z_n = z0 - g dt^2 n (n + 1) / 2 */
    CHECK_ABS(ccb_sim_v(sim)[1], -g * t, 1e-14, "v = -g t exactly [round-off of 10 sums]");
    CHECK_ABS(ccb_sim_q(sim)[1], 1.0 - g * 0.01 * 0.01 * 55, 1e-14, "symplectic Euler's z");
    CHECK(ccb_sim_step_stats(sim)->solver == &k_free &&
              ccb_sim_step_stats(sim)->counter[CCB_CNT_ITERATIONS] == 1,
          "its counters are the step's");
    ccb_sim_destroy(sim);

    /* the registered ODE method through the ODE solver: explicit Euler with h = dt */
    p = ccb_sim_params_default();
    ccb_sim_params_set_solver(&p, CCB_SOLVER_ODE, &k_euler);
    p.dt = 0.01;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    for (int k = 0; k < 10; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    }
    /* explicit Euler: z_n = z0 - g dt^2 n (n - 1) / 2 (the position lags one step) */
    CHECK_ABS(ccb_sim_v(sim)[1], -g * t, 1e-14, "v = -g t exactly");
    CHECK_ABS(ccb_sim_q(sim)[1], 1.0 - g * 0.01 * 0.01 * 45, 1e-14, "explicit Euler's z");
    CHECK(ccb_sim_ode_work(sim).n_f == 10 && ccb_sim_ode_work(sim).n_steps == 10,
          "its work is counted (%ld f, %ld steps)", ccb_sim_ode_work(sim).n_f,
          ccb_sim_ode_work(sim).n_steps);
    ccb_sim_destroy(sim);
    /* its option, found through the ODE solver in its own block, reaches the method */
    size_t block = 0;
    const ccb_option_desc* od = ccb_sim_params_option(&p, "euler-substeps", &block);
    CHECK(od && block == ccb_sim_params_method_block(&k_euler) &&
              block == offsetof(ccb_sim_params, ode) + offsetof(ccb_ode_params, method_options),
          "--euler-substeps lives in the method's options block");
    CHECK(od && ccb_option_value(od, (const char*)&p + block) == 1, "its default arrived");
    CHECK(od && ccb_option_parse(od, "4", (char*)&p + block, msg, sizeof msg) == CCB_OK,
          "parse: %s", msg);
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    CHECK(ccb_sim_ode_work(sim).n_steps == 4, "4 substeps in one step (%ld)",
          ccb_sim_ode_work(sim).n_steps);
    ccb_sim_destroy(sim);

    /* a method that breaks its contract: a failed step that says which and why, never a step
     * that silently did not happen or a NaN state */
    static const char* const k_want[3] = {"returned success at t = 0 with a finite state",
                                          "with a non-finite state", "failed"};
    for (g_bad_mode = 0; g_bad_mode < 3; ++g_bad_mode) {
        p = ccb_sim_params_default();
        ccb_sim_params_set_solver(&p, CCB_SOLVER_ODE, &k_bad_method);
        p.dt = 0.01;
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        CHECK(ccb_sim_step(sim) != CCB_OK && strstr(ccb_sim_last_error(sim), "bad-test") &&
                  strstr(ccb_sim_last_error(sim), k_want[g_bad_mode]),
              "mode %d refused: %s", g_bad_mode, ccb_sim_last_error(sim));
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_builtin_descriptors);
    RUN(test_parse_errors);
    RUN(test_table_check);
    RUN(test_registered_types);
    return TEST_SUMMARY();
}
