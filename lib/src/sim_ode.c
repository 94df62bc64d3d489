/* sim_ode: an integrator of the continuous model (configuration not frozen; spec
 * formulation-tamsi-hydro §A-§B) as the simulation's solver. A step integrates x = (q, v) of
 * ccb_contact_ode from t0 to t0 + dt with the chosen method (implicit Euler, RK3, GSL), its own
 * step `ode.h` (0: dt); the contact results are those of the continuous model at t0 + dt (force
 * = the contact force at that instant, gamma = force dt). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/friction.h"
#include "ccb/names.h"
#include "ccb/ode.h"
#include "sim_internal.h"

typedef struct ode_ws {
    ccb_contact_ode* cont;
    ccb_ode* ode;
    double* x; /* (q, v) at the start of the step */
} ode_ws;

/* The integrator's parameters with h = dt when 0; a fixed step must divide the sampling
 * interval; the continuous model's friction must be known. */
static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    ccb_ode_params op = p->ode;
    if (op.h == 0.0) {
        op.h = p->dt;
    }
    const ccb_status s = ccb_ode_params_check(&op, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (!op.error_control && !(op.method->flags & CCB_ODE_ADAPTIVE)) {
        const double r = p->dt / op.h;
        if (!(fabs(r - round(r)) <= 1e-9 * r)) { /* [round-off: dt/h of exact multiples] */
            return ccb_errorf(msg, n, CCB_E_INVALID,
                              "the sampling interval dt = %g must be a whole number of fixed "
                              "integrator steps h = %g",
                              p->dt, op.h);
        }
    }
    if (ccb_friction_name(p->contact_ode.friction) == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown friction model %d",
                          (int)p->contact_ode.friction);
    }
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    ode_ws* w = sim->ws;
    if (w) {
        ccb_ode_destroy(w->ode);
        ccb_contact_ode_destroy(w->cont);
        ccb_free(w->x);
        ccb_free(w);
    }
    sim->ws = NULL;
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    const ccb_model* m = sim->model;
    ode_ws* w = ccb_calloc(1, sizeof *w);
    if (w == NULL) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "sim_create: out of memory");
    }
    sim->ws = w;
    w->x = ccb_calloc((size_t)(m->nq + m->nv), sizeof(double));
    if (w->x == NULL) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "sim_create: out of memory");
    }
    ccb_status s = ccb_contact_ode_create(m, &sim->prm.contact_ode, sim->prm.vs, &w->cont, msg, n);
    if (s == CCB_OK) {
        s = ccb_ode_create(ccb_contact_ode_system(w->cont), &sim->prm.ode, &w->ode, msg, n);
    }
    return s;
}

static ccb_status set_state(ccb_sim* sim, double t) {
    ode_ws* w = sim->ws;
    const int nq = sim->model->nq, nv = sim->model->nv;
    memcpy(w->x, sim->q, (size_t)nq * sizeof(double));
    memcpy(w->x + nq, sim->v, (size_t)nv * sizeof(double));
    const ccb_status s = ccb_ode_set_state(w->ode, t, w->x);
    if (s == CCB_OK) {
        ccb_ode_reset_work(w->ode);
    }
    return s;
}

static ccb_status advance(ccb_sim* sim, double t0) {
    ode_ws* w = sim->ws;
    const int nq = sim->model->nq, nv = sim->model->nv;
    const double t1 = sim->t_start + (double)(sim->nsteps + 1) * sim->prm.dt;
    const ccb_ode_work before = *ccb_ode_get_work(w->ode);
    double tic = ccb_wall_time();
    ccb_status s = ccb_ode_advance(w->ode, t1);
    sim->stats.time_solve = ccb_wall_time() - tic;
    const ccb_ode_work* after = ccb_ode_get_work(w->ode);
    sim->stats.counter[CCB_CNT_ITERATIONS] = (double)(after->n_newton - before.n_newton);
    sim->stats.counter[CCB_CNT_F_EVALS] = (double)(after->n_f - before.n_f);
    sim->stats.status = s;
    if (s != CCB_OK) { /* back to the start of the step (the work done stays counted) */
        memcpy(w->x, sim->q, (size_t)nq * sizeof(double));
        memcpy(w->x + nq, sim->v, (size_t)nv * sizeof(double));
        ccb_ode_set_state(w->ode, t0, w->x);
        return ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                          ccb_ode_last_error(w->ode));
    }
    const double* x = ccb_ode_state(w->ode);
    int nc = 0;
    const ccb_contact* cts = NULL;
    const double *vc = NULL, *f = NULL;
    tic = ccb_wall_time();
    s = ccb_contact_ode_contacts(w->cont, t1, x, sim->prm.margin, &nc, &cts, &vc, &f);
    sim->stats.time_geometry = ccb_wall_time() - tic;
    if (s != CCB_OK || ccb_sim_reserve_results(sim, nc) != CCB_OK) {
        s = s != CCB_OK ? s : CCB_E_NOMEM;
        sim->stats.status = s;
        return ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: contact results: %s", t1,
                          ccb_contact_ode_last_error(w->cont));
    }
    for (int i = 0; i < nc; ++i) {
        ccb_contact_result* r = &sim->results[i];
        r->geometry = cts[i];
        for (int k = 0; k < 3; ++k) {
            r->vc[k] = vc[3 * i + k];
            r->force[k] = f[3 * i + k];
            r->gamma[k] = f[3 * i + k] * sim->prm.dt;
        }
        r->stiction_tol = sim->prm.vs;
    }
    sim->nresults = nc;
    sim->stats.ncontacts = nc;
    memcpy(sim->q, x, (size_t)nq * sizeof(double));
    memcpy(sim->v, x + nq, (size_t)nv * sizeof(double));
    sim->nsteps++;
    return CCB_OK;
}

static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    (void)i, (void)gamma;
    return sim->prm.vs;
}

/* the integrator's LU factorizations; no symbolic analyses */
static void factor_counts(const ccb_sim* sim, long* a, long* f) {
    const ode_ws* w = sim->ws;
    *a = 0;
    *f = w ? ccb_ode_get_work(w->ode)->n_factor : 0;
}

static const char* last_error(const ccb_sim* sim) {
    const ode_ws* w = sim->ws;
    return w && w->ode ? ccb_ode_last_error(w->ode) : "no integrator";
}

const ccb_ode* ccb_sim_ode_integrator(const ccb_sim* sim) {
    const ode_ws* w = sim->ws;
    return w ? w->ode : NULL;
}

static void describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    const ccb_ode_params* o = &sim->prm.ode; /* h set (0 means dt) */
    DESCRIBE_TEXT("solver.friction", ccb_friction_name(sim->prm.contact_ode.friction));
    DESCRIBE_NUM("solver.stiction_tolerance", sim->prm.vs);
    DESCRIBE_TEXT("solver.method", ccb_ode_method_name(o->method));
    DESCRIBE_NUM("solver.h", o->h);
    if (o->method == &ccb_ode_ie) {
        DESCRIBE_TEXT("solver.newton", ccb_enum_name(CCB_ENUM_IE_NEWTON, o->newton));
        DESCRIBE_FLAG("solver.error_control", o->error_control);
        DESCRIBE_NUM("solver.accuracy", o->accuracy);
        DESCRIBE_NUM("solver.h_max", o->h_max > 0 ? o->h_max : o->h);
        DESCRIBE_TEXT("solver.error_estimator", ccb_enum_name(CCB_ENUM_IE_ESTIMATOR, o->estimator));
        if (!o->error_control) { /* formulation-tamsi-hydro §B.5 */
            DESCRIBE_TEXT("solver.fixed_control", ccb_enum_name(CCB_ENUM_IE_FIXED, o->fixed));
        }
        DESCRIBE_FLAG("solver.tals", o->tals);
        DESCRIBE_NUM("solver.theta_max", o->theta_max);
    }
    if (o->method == &ccb_ode_gsl) {
        DESCRIBE_TEXT("solver.gsl_method", ccb_ode_gsl_method_name(o->gsl_method));
        DESCRIBE_NUM("solver.gsl_atol", o->gsl_atol);
        DESCRIBE_NUM("solver.gsl_rtol", o->gsl_rtol);
    }
    const ccb_ode_work* w = ccb_ode_get_work(((const ode_ws*)sim->ws)->ode);
    DESCRIBE_NUM("work.f_evaluations", w->n_f);
    DESCRIBE_NUM("work.f_evaluations_jacobian", w->n_f_jacobian);
    DESCRIBE_NUM("work.f_evaluations_error_estimate", w->n_f_errest);
    DESCRIBE_NUM("work.newton_iterations", w->n_newton);
    DESCRIBE_NUM("work.jacobians", w->n_jacobian);
    DESCRIBE_NUM("work.factorizations", w->n_factor);
    DESCRIBE_NUM("work.steps", w->n_steps);
    DESCRIBE_NUM("work.newton_failures", w->n_fail_newton);
    DESCRIBE_NUM("work.error_rejections", w->n_reject_error);
    DESCRIBE_NUM("work.tals_limited", w->n_tals);
    DESCRIBE_NUM("work.slip_evaluations", w->n_slip);
    DESCRIBE_NUM("work.h_min", w->h_min);
    DESCRIBE_NUM("work.h_max", w->h_max);
}

static const ccb_option_desc k_options[] = {
    {.name = "h",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = offsetof(ccb_sim_params, ode.h),
     .min = 0,
     .max = 1e3,
     .def = 0,
     .unit = "s",
     .doc = "integrator step (fixed) or first step (adaptive); 0: the sampling interval dt"},
};

const ccb_solver_type ccb_solver_ode = {
    .abi = CCB_ABI_VERSION,
    .name = "ode",
    .title = "an ODE method on the continuous model, sampled every dt (--solver METHOD)",
    .reference = "formulation-tamsi-hydro §A-§B",
    .flags = CCB_SOLVER_REGULARIZED | CCB_SOLVER_ODE_METHODS,
    .notes =
        "ie/rk3/gsl integrate the continuous model (configuration not frozen): fn = k (1 - d vn)+ "
        "(-phi)+, ft = -mu~(|vt|/v_s) fn vt/|vt| with regularization stribeck5 (Drake's continuous "
        "point contact) unless the case sets one; dt is the sampling interval, --h the integrator "
        "step (default dt).",
    .options = k_options,
    .noptions = (int)(sizeof k_options / sizeof k_options[0]),
    .check = check,
    .create = create,
    .destroy = destroy,
    .advance = advance,
    .set_state = set_state,
    .stiction = stiction,
    .factor_counts = factor_counts,
    .last_error = last_error,
    .describe = describe,
};
