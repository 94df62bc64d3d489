/* ode_gsl: an adaptive GSL odeiv2 integrator as an independent reference
 * (formulation-tamsi-hydro §E.2 names RK3 with h = 1e-7; GSL's embedded pairs with error control
 * are a second opinion). The driver lands exactly on t_end. GSL's aborting default error handler is
 * switched off once per process and its codes are translated to ccb_status. GSL lives only here in
 * lib/. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <pthread.h>
#include <stddef.h>

#include "ccb/alloc.h"
#include "ccb/names.h"
#include "ode_internal.h"

typedef struct gsl_state {
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver* driver;
    ccb_status failure; /* status of a failed f */
} gsl_state;

static pthread_once_t g_gsl_once = PTHREAD_ONCE_INIT;
static void gsl_quiet(void) {
    gsl_set_error_handler_off();
}

static int gsl_f(double t, const double y[], double dydt[], void* params) {
    ccb_ode* o = params;
    gsl_state* g = o->gsl;
    const ccb_status s = ccb_ode_eval(o, t, y, dydt, 0);
    if (s != CCB_OK) {
        g->failure = s;
        return GSL_EBADFUNC;
    }
    return GSL_SUCCESS;
}

static ccb_status gsl_create(ccb_ode* o) {
    pthread_once(&g_gsl_once, gsl_quiet);
    gsl_state* g = ccb_calloc(1, sizeof(gsl_state));
    if (g == NULL) {
        return CCB_E_NOMEM;
    }
    g->sys.function = gsl_f;
    g->sys.jacobian = NULL;
    g->sys.dimension = (size_t)o->nx;
    g->sys.params = o;
    const gsl_odeiv2_step_type* T = gsl_odeiv2_step_rk8pd;
    switch (o->prm.gsl_method) {
    case CCB_GSL_RK8PD: T = gsl_odeiv2_step_rk8pd; break;
    case CCB_GSL_RKF45: T = gsl_odeiv2_step_rkf45; break;
    case CCB_GSL_RKCK: T = gsl_odeiv2_step_rkck; break;
    case CCB_GSL_MSADAMS: T = gsl_odeiv2_step_msadams; break;
    }
    g->driver =
        gsl_odeiv2_driver_alloc_y_new(&g->sys, T, o->prm.h, o->prm.gsl_atol, o->prm.gsl_rtol);
    if (g->driver == NULL) {
        ccb_free(g);
        return CCB_E_NOMEM;
    }
    /* the work limits: GSL's smallest step, and at most max_f_evals steps per advance (each
     * step evaluates f at least once; the evaluation count itself is checked in f) */
    gsl_odeiv2_driver_set_hmin(g->driver, o->prm.h_min);
    gsl_odeiv2_driver_set_nmax(g->driver, (unsigned long)o->prm.max_f_evals);
    o->gsl = g;
    return CCB_OK;
}

static void gsl_destroy(ccb_ode* o) {
    gsl_state* g = o->gsl;
    if (g == NULL) {
        return;
    }
    gsl_odeiv2_driver_free(g->driver);
    ccb_free(g);
    o->gsl = NULL;
}

static ccb_status gsl_advance(ccb_ode* o, double t_end) {
    gsl_state* g = o->gsl;
    g->failure = CCB_OK;
    const unsigned long c0 = g->driver->e->count, f0 = g->driver->e->failed_steps;
    double t = o->t;
    const int st = gsl_odeiv2_driver_apply(g->driver, &t, t_end, o->x);
    o->work.n_steps += (long)(g->driver->e->count - c0);
    o->work.n_reject_error += (long)(g->driver->e->failed_steps - f0);
    if (st != GSL_SUCCESS) {
        /* the driver leaves y at the last successful step */
        o->t = t;
        if (st == GSL_EBADFUNC && g->failure != CCB_OK) {
            return g->failure; /* the message is already set */
        }
        const int limit = st == GSL_ENOPROG || st == GSL_EMAXITER; /* hmin, nmax */
        return ccb_errorf(o->msg, sizeof o->msg, limit ? CCB_E_LIMIT : CCB_E_NOTCONV,
                          "GSL %s failed at t = %.17g (%s)%s",
                          ccb_ode_gsl_method_name(o->prm.gsl_method), t, gsl_strerror(st),
                          limit ? ": a work limit (h_min, max_f_evals)" : "");
    }
    o->t = t_end;
    return CCB_OK;
}

#define AT(field) offsetof(ccb_ode_params, field)
static const ccb_option_desc k_options[] = {
    {.name = "gsl-method",
     .type = CCB_OPT_ENUM,
     .storage = CCB_STORE_INT,
     .offset = AT(gsl_method),
     .def = CCB_GSL_RK8PD,
     .values = ccb_names_gsl_method,
     .unit = "",
     .doc = "GSL odeiv2 stepper"},
    {.name = "gsl-tol",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = AT(gsl_rtol),
     .offset2 = AT(gsl_atol),
     .min = 0,
     .min_open = 1,
     .max = 1,
     .def = 1e-10,
     .unit = "",
     .doc = "absolute and relative tolerance of the GSL stepper"},
};
#undef AT

const ccb_ode_method_type ccb_ode_gsl = {
    .abi = CCB_ABI_VERSION,
    .name = "gsl",
    .title = "GSL odeiv2 adaptive (reference integrator)",
    .reference = "formulation-tamsi-hydro §E",
    .flags = CCB_ODE_ADAPTIVE | CCB_ODE_EXPLICIT,
    .notes = "rk8pd by default, absolute and relative tolerance 1e-10 (--gsl-method, --gsl-tol); "
             "GSL's error handler is turned off (ccb/ccb.h).",
    .options = k_options,
    .noptions = (int)(sizeof k_options / sizeof k_options[0]),
    .create = gsl_create,
    .destroy = gsl_destroy,
    .advance = gsl_advance,
};
