/* ode: integrator parameters, set-up and dispatch to the method of ode_internal.h's table
 * (implicit Euler, RK3, GSL). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/names.h"
#include "ccb/solver.h"
#include "ode_internal.h"

/* the rows of names.c (ccb/names.h) */
_Static_assert(CCB_IE_QUASI_NEWTON == 1 && CCB_IE_STEP_DOUBLING == 1 && CCB_IE_FIXED_DRAKE == 1 &&
                   CCB_GSL_MSADAMS == 3,
               "ccb_names_ie_newton, _ie_estimator, _ie_fixed and _gsl_method follow the "
               "enumerations");

ccb_ode_params ccb_ode_params_default(void) {
    ccb_ode_params p;
    memset(&p, 0, sizeof p);
    p.method = CCB_ODE_IE;
    p.h = 1e-3;
    p.h_max = 0.0;
    p.newton = CCB_IE_FULL_NEWTON;
    p.error_control = 0;
    p.accuracy = 0.1;
    p.newton_kappa = 0.05;
    p.max_newton = 10;
    p.tals = 0;
    p.theta_max = CCB_PI / 3.0;
    p.estimator = CCB_IE_TRAPEZOID;
    p.fixed = CCB_IE_FIXED_HALVES;
    p.gsl_method = CCB_GSL_RK8PD;
    p.gsl_atol = 1e-10;
    p.gsl_rtol = 1e-10;
    p.h_min = 1e-9;
    p.max_f_evals = 2000000;
    return p;
}

/* The registry: the built-in methods, then the registered ones (ccb_ode_method_register). */
static const ccb_ode_method_type* const k_builtin[] = {&ccb_ode_ie, &ccb_ode_rk3, &ccb_ode_gsl};
#define NBUILTIN ((int)(sizeof k_builtin / sizeof k_builtin[0]))
static ccb_ode_method g_registered[CCB_ODE_MAX_REGISTERED];
static int g_nregistered;

int ccb_ode_method_count(void) {
    return NBUILTIN + g_nregistered;
}

ccb_ode_method ccb_ode_method_get(int i) {
    if (i < 0 || i >= ccb_ode_method_count()) {
        return NULL;
    }
    return i < NBUILTIN ? k_builtin[i] : g_registered[i - NBUILTIN];
}

ccb_ode_method ccb_ode_method_find(const char* name) {
    for (int i = 0; name && i < ccb_ode_method_count(); ++i) {
        if (strcmp(ccb_ode_method_get(i)->name, name) == 0) {
            return ccb_ode_method_get(i);
        }
    }
    return NULL;
}

int ccb_ode_method_add(ccb_ode_method t) {
    if (g_nregistered == CCB_ODE_MAX_REGISTERED) {
        return -1;
    }
    g_registered[g_nregistered++] = t;
    return 0;
}

/* The method of a checked parameter set (ccb_ode_params_check rejects a missing one). */
static ccb_ode_method method_type(ccb_ode_method m) {
    return m;
}

const char* ccb_ode_method_name(ccb_ode_method m) {
    return m ? m->name : NULL;
}

const char* ccb_ode_gsl_method_name(ccb_ode_gsl_method m) {
    return ccb_enum_name(CCB_ENUM_GSL_METHOD, (int)m);
}

ccb_status ccb_ode_params_check(const ccb_ode_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE parameters: NULL pointer");
    }
    if (p->method == NULL || p->method->advance == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: no method given");
    }
    if (!(isfinite(p->h) && p->h > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: step h must be finite and > 0 s (got %g)",
                          p->h);
    }
    if (!(isfinite(p->h_min) && p->h_min > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: h_min must be finite and > 0 s (got %g)",
                          p->h_min);
    }
    if (p->h < p->h_min) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE: the step h = %g s is below the smallest step h_min = %g s (the "
                          "work limit that ends a run whose step collapses)",
                          p->h, p->h_min);
    }
    if (p->max_f_evals < 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: max_f_evals must be >= 1 (got %ld)",
                          p->max_f_evals);
    }
    if (!(isfinite(p->h_max) && p->h_max >= 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE: h_max must be finite and >= 0 s (0: h) (got %g)", p->h_max);
    }
    if (p->newton != CCB_IE_FULL_NEWTON && p->newton != CCB_IE_QUASI_NEWTON) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: unknown Newton variant %d", (int)p->newton);
    }
    if (!(p->accuracy > 0 && p->accuracy <= 0.5)) { /* Drake: loosest allowed accuracy 0.5 */
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE: accuracy a must be in (0, 0.5] (got %g; "
                          "formulation-tamsi-hydro §B.7)",
                          p->accuracy);
    }
    if (!(p->newton_kappa > 0 && p->newton_kappa < 1)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: newton_kappa must be in (0, 1) (got %g)",
                          p->newton_kappa);
    }
    if (p->max_newton < 1 || p->max_newton > 1000) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: max_newton must be in 1..1000 (got %d)",
                          p->max_newton);
    }
    if (!(p->theta_max > 0 && p->theta_max < CCB_PI)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: theta_max must be in (0, pi) (got %g)",
                          p->theta_max);
    }
    if (p->estimator != CCB_IE_TRAPEZOID && p->estimator != CCB_IE_STEP_DOUBLING) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: unknown error estimator %d",
                          (int)p->estimator);
    }
    if (p->fixed != CCB_IE_FIXED_HALVES && p->fixed != CCB_IE_FIXED_DRAKE) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: unknown fixed-step control %d",
                          (int)p->fixed);
    }
    if (ccb_ode_gsl_method_name(p->gsl_method) == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE: unknown GSL method %d", (int)p->gsl_method);
    }
    if (!(isfinite(p->gsl_atol) && p->gsl_atol >= 0 && isfinite(p->gsl_rtol) && p->gsl_rtol >= 0 &&
          p->gsl_atol + p->gsl_rtol > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE: GSL tolerances must be finite, >= 0 and not both 0 (got %g, %g)",
                          p->gsl_atol, p->gsl_rtol);
    }
    return CCB_OK;
}

ccb_status ccb_ode_create(const ccb_ode_system* sys, const ccb_ode_params* prm, ccb_ode** out,
                          char* msg, size_t n) {
    if (out == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ode_create: NULL output pointer");
    }
    *out = NULL;
    if (sys == NULL || sys->f == NULL || sys->nx < 1 || sys->nx > 100000) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ode_create: the system needs f and 1..100000 states");
    }
    ccb_status s = ccb_ode_params_check(prm, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if ((prm->method->flags & CCB_ODE_TALS) && prm->tals) {
        if (sys->slip == NULL) {
            return ccb_errorf(msg, n, CCB_E_INVALID,
                              "ode_create: TALS needs the system's slip callback");
        }
        const ccb_tals_params tp = {sys->vs, sys->rho, prm->theta_max};
        s = ccb_tals_params_check(&tp, msg, n);
        if (s != CCB_OK) {
            return s;
        }
    }
    ccb_ode* o = ccb_calloc(1, sizeof(ccb_ode));
    if (o == NULL) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "ode_create: out of memory");
    }
    o->sys = *sys;
    o->prm = *prm;
    if (o->prm.h_max == 0.0) {
        o->prm.h_max = o->prm.h;
    }
    o->nx = sys->nx;
    o->tals.vs = sys->vs;
    o->tals.rho = sys->rho;
    o->tals.theta_max = prm->theta_max;
    const size_t nx = (size_t)o->nx;
    double** const vecs[] = {&o->x,  &o->k1, &o->k2, &o->k3, &o->xs,  &o->fc,
                             &o->xc, &o->r,  &o->dx, &o->xg, &o->xie, &o->xtr,
                             &o->x1, &o->xh, &o->f0, &o->xp, &o->fp};
    int ok = 1;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; ++k) {
        *vecs[k] = ccb_calloc(nx, sizeof(double));
        ok &= *vecs[k] != NULL;
    }
    const ccb_ode_method_type* type = method_type(prm->method);
    if (!ok || (type->create && type->create(o) != CCB_OK)) {
        ccb_ode_destroy(o);
        return ccb_errorf(msg, n, CCB_E_NOMEM, "ode_create: out of memory (%s, %d states)",
                          type->name, (int)nx);
    }
    o->h_ideal = o->prm.h;
    *out = o;
    return CCB_OK;
}

void ccb_ode_destroy(ccb_ode* o) {
    if (o == NULL) {
        return;
    }
    const ccb_ode_method_type* type = method_type(o->prm.method);
    if (type->destroy) {
        type->destroy(o);
    }
    void* const ptrs[] = {o->x,  o->k1,  o->k2,  o->k3, o->xs, o->fc, o->xc, o->r,  o->dx,
                          o->xg, o->xie, o->xtr, o->x1, o->xh, o->f0, o->xp, o->fp, o->slip0};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) {
        ccb_free(ptrs[k]);
    }
    ccb_free(o);
}

const char* ccb_ode_last_error(const ccb_ode* o) {
    return o ? o->msg : "integrator is NULL";
}

ccb_status ccb_ode_set_state(ccb_ode* o, double t, const double* x) {
    if (o == NULL || x == NULL) {
        return CCB_E_INVALID;
    }
    if (!isfinite(t) || !ccb_all_finite(x, (size_t)o->nx)) {
        return ccb_errorf(o->msg, sizeof o->msg, CCB_E_NONFINITE,
                          "set_state: time or state has a non-finite entry");
    }
    o->t = t;
    memcpy(o->x, x, (size_t)o->nx * sizeof(double));
    o->cache_ok = 0;
    o->h_ideal = o->prm.h;
    return CCB_OK;
}

double ccb_ode_time(const ccb_ode* o) {
    return o ? o->t : NAN;
}
const double* ccb_ode_state(const ccb_ode* o) {
    return o ? o->x : NULL;
}
const ccb_ode_work* ccb_ode_get_work(const ccb_ode* o) {
    return o ? &o->work : NULL;
}
void ccb_ode_reset_work(ccb_ode* o) {
    if (o) {
        memset(&o->work, 0, sizeof o->work);
    }
}

ccb_status ccb_ode_advance(ccb_ode* o, double t_end) {
    if (o == NULL) {
        return CCB_E_INVALID;
    }
    if (!isfinite(t_end) || t_end < o->t) {
        return ccb_errorf(o->msg, sizeof o->msg, CCB_E_INVALID,
                          "advance: t_end = %.17g must be finite and >= t = %.17g", t_end, o->t);
    }
    if (t_end == o->t) {
        return CCB_OK;
    }
    o->f_limit = o->work.n_f + o->prm.max_f_evals; /* the work limit of this interval */
    o->msg[0] = '\0';
    const ccb_ode_method_type* m = method_type(o->prm.method);
    const ccb_status s = m->advance(o, t_end);
    /* the method's contract (a registered one is code ccb did not write): success lands on t_end
     * with a finite state; a failure says why */
    if (s == CCB_OK && (o->t != t_end || !ccb_all_finite(o->x, (size_t)o->nx))) {
        return ccb_errorf(
            o->msg, sizeof o->msg, CCB_E_INVALID,
            "ODE method '%s' returned success at t = %.17g with %s (asked for t = "
            "%.17g)",
            m->name, o->t,
            ccb_all_finite(o->x, (size_t)o->nx) ? "a finite state" : "a non-finite state", t_end);
    }
    if (s != CCB_OK && o->msg[0] == '\0') {
        snprintf(o->msg, sizeof o->msg, "ODE method '%s' failed (%s) and gave no message", m->name,
                 ccb_status_string(s));
    }
    return s;
}

int ccb_ode_nx(const ccb_ode* o) {
    return o ? o->nx : 0;
}
double* ccb_ode_state_mut(ccb_ode* o) {
    return o ? o->x : NULL;
}
void ccb_ode_set_time(ccb_ode* o, double t) {
    if (o) {
        o->t = t;
    }
}
ccb_status ccb_ode_f(ccb_ode* o, double t, const double* x, double* xdot) {
    return o ? ccb_ode_eval(o, t, x, xdot, 0) : CCB_E_INVALID;
}
const void* ccb_ode_method_options(const ccb_ode* o) {
    return o ? o->prm.method_options.bytes : NULL;
}

double ccb_ode_step_size(const ccb_ode* o) {
    return o ? o->prm.h : NAN;
}

const ccb_ode_params* ccb_ode_params_get(const ccb_ode* o) {
    return o ? &o->prm : NULL;
}
ccb_ode_work* ccb_ode_work_mut(ccb_ode* o) {
    return o ? &o->work : NULL;
}
void* ccb_ode_method_data(const ccb_ode* o) {
    return o ? o->mdata : NULL;
}
void ccb_ode_set_method_data(ccb_ode* o, void* data) {
    if (o) {
        o->mdata = data;
    }
}
