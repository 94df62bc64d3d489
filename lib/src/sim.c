/* sim: symplectic Euler time stepping with the convex Newton solver or TAMSI, or sampled
 * integration of the continuous model with an ODE integrator.
 * spec: formulation-convex §1.1 (step), §1.3 (first-order distance), §8.7 (warm start v0);
 * formulation-tamsi-hydro §D.1 (TAMSI step), §A-§B (continuous model, integrators). */
#define _POSIX_C_SOURCE 200809L
#include "ccb/sim.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "ccb/alloc.h"
#include "ccb/names.h"
#include "model_internal.h"
#include "problem_internal.h"

struct ccb_sim {
    const ccb_model* model;
    ccb_sim_params prm;
    ccb_contact_set contacts;
    ccb_problem* problem;
    ccb_newton* newton;
    ccb_tamsi* tamsi;      /* solver TAMSI */
    ccb_contact_ode* cont; /* solver ODE */
    ccb_ode* ode;
    double* x; /* ODE: (q, v) at the start of the step */
    double t_start;
    long nsteps; /* steps since set_state */
    double *q, *v, *qn;
    ccb_contact_result* results;
    int nresults, cap_results;
    ccb_step_stats stats;
    char msg[CCB_MSG_SIZE];
};

const char* ccb_solver_name(ccb_solver s) {
    return ccb_enum_name(CCB_ENUM_SOLVER, (int)s);
}

ccb_sim_params ccb_sim_params_default(void) {
    ccb_sim_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.solver = CCB_SOLVER_NEWTON;
    p.dt = 0.01;
    p.tamsi = ccb_tamsi_params_default();
    p.ode = ccb_ode_params_default();
    p.ode.h = 0.0;
    p.contact_ode = ccb_contact_ode_params_default();
    p.approx = &ccb_approx_lagged;
    p.problem = ccb_problem_params_default();
    p.newton = ccb_newton_params_default();
    p.margin = CCB_DEFAULT_MARGIN;
    return p;
}

ccb_status ccb_sim_params_check(const ccb_sim_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "simulation parameters: NULL pointer");
    }
    if (!(isfinite(p->dt) && p->dt > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "time step dt must be finite and > 0 s (got %g)",
                          p->dt);
    }
    if (p->approx == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "no contact approximation given");
    }
    if (!(isfinite(p->margin) && p->margin >= 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "contact margin must be finite and >= 0 m (got %g)", p->margin);
    }
    if (ccb_solver_name(p->solver) == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown solver %d", (int)p->solver);
    }
    ccb_problem_params pp = p->problem;
    pp.approx.dt = p->dt;
    ccb_status s = ccb_problem_params_check(&pp, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    s = ccb_newton_params_check(&p->newton, msg, n);
    if (s != CCB_OK || p->solver == CCB_SOLVER_NEWTON) {
        return s;
    }
    if (p->solver == CCB_SOLVER_TAMSI) {
        ccb_tamsi_params tp = p->tamsi;
        tp.vs = p->problem.approx.vs;
        return ccb_tamsi_params_check(&tp, msg, n);
    }
    ccb_ode_params op = p->ode;
    if (op.h == 0.0) {
        op.h = p->dt;
    }
    s = ccb_ode_params_check(&op, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (!op.error_control && op.method != CCB_ODE_GSL) {
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

ccb_status ccb_sim_create(const ccb_model* m, const ccb_sim_params* prm, ccb_sim** out, char* msg,
                          size_t msgn) {
    if (out == NULL) {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "sim_create: NULL output pointer");
    }
    *out = NULL;
    if (m == NULL || !m->finalized) {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "sim_create: model is NULL or not finalized");
    }
    ccb_status s = ccb_sim_params_check(prm, msg, msgn);
    if (s != CCB_OK) {
        return s;
    }
    ccb_sim* sim = ccb_calloc(1, sizeof(ccb_sim));
    if (sim == NULL) {
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
    }
    sim->model = m;
    sim->prm = *prm;
    sim->prm.problem.approx.dt = prm->dt;
    const size_t nq = (size_t)(m->nq > 0 ? m->nq : 1), nv = (size_t)(m->nv > 0 ? m->nv : 1);
    sim->q = ccb_calloc(nq, sizeof(double));
    sim->qn = ccb_calloc(nq, sizeof(double));
    sim->v = ccb_calloc(nv, sizeof(double));
    if (sim->q == NULL || sim->qn == NULL || sim->v == NULL ||
        ccb_problem_create(&sim->problem) != CCB_OK || ccb_newton_create(&sim->newton) != CCB_OK) {
        ccb_sim_destroy(sim);
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
    }
    ccb_model_initial_state(m, sim->q, sim->v);
    sim->prm.tamsi.vs = sim->prm.problem.approx.vs;
    sim->prm.contact_ode.vs = sim->prm.problem.approx.vs;
    if (sim->prm.ode.h == 0.0) {
        sim->prm.ode.h = prm->dt;
    }
    if (prm->solver == CCB_SOLVER_TAMSI && ccb_tamsi_create(&sim->tamsi) != CCB_OK) {
        ccb_sim_destroy(sim);
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
    }
    if (prm->solver == CCB_SOLVER_ODE) {
        sim->x = ccb_calloc((size_t)(m->nq + m->nv), sizeof(double));
        if (sim->x == NULL) {
            ccb_sim_destroy(sim);
            return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
        }
        s = ccb_contact_ode_create(m, &sim->prm.contact_ode, &sim->cont, msg, msgn);
        if (s == CCB_OK) {
            s = ccb_ode_create(ccb_contact_ode_system(sim->cont), &sim->prm.ode, &sim->ode, msg,
                               msgn);
        }
        if (s != CCB_OK) {
            ccb_sim_destroy(sim);
            return s;
        }
        s = ccb_sim_set_state(sim, 0.0, sim->q, sim->v);
        if (s != CCB_OK) {
            ccb_errorf(msg, msgn, s, "%s", sim->msg);
            ccb_sim_destroy(sim);
            return s;
        }
    }
    *out = sim;
    return CCB_OK;
}

void ccb_sim_destroy(ccb_sim* sim) {
    if (sim == NULL) {
        return;
    }
    ccb_contact_set_free(&sim->contacts);
    ccb_problem_destroy(sim->problem);
    ccb_newton_destroy(sim->newton);
    ccb_tamsi_destroy(sim->tamsi);
    ccb_ode_destroy(sim->ode);
    ccb_contact_ode_destroy(sim->cont);
    ccb_free(sim->x);
    ccb_free(sim->q);
    ccb_free(sim->qn);
    ccb_free(sim->v);
    ccb_free(sim->results);
    ccb_free(sim);
}

const char* ccb_sim_last_error(const ccb_sim* sim) {
    return sim ? sim->msg : "simulation is NULL";
}

ccb_status ccb_sim_set_state(ccb_sim* sim, double t, const double* q, const double* v) {
    if (sim == NULL) {
        return CCB_E_INVALID;
    }
    const int nq = sim->model->nq, nv = sim->model->nv;
    if ((nq > 0 && q == NULL) || (nv > 0 && v == NULL)) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_INVALID, "set_state: NULL state");
    }
    if (!isfinite(t) || !ccb_all_finite(q, (size_t)nq) || !ccb_all_finite(v, (size_t)nv)) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NONFINITE,
                          "set_state: time or state has a non-finite entry");
    }
    if (sim->ode) {
        memcpy(sim->x, q, (size_t)nq * sizeof(double));
        memcpy(sim->x + nq, v, (size_t)nv * sizeof(double));
        ccb_status s = ccb_ode_set_state(sim->ode, t, sim->x);
        if (s != CCB_OK) {
            return ccb_errorf(sim->msg, sizeof sim->msg, s, "set_state: %s",
                              ccb_ode_last_error(sim->ode));
        }
        ccb_ode_reset_work(sim->ode);
    }
    memcpy(sim->q, q, (size_t)nq * sizeof(double));
    memcpy(sim->v, v, (size_t)nv * sizeof(double));
    sim->t_start = t;
    sim->nsteps = 0;
    return CCB_OK;
}

double ccb_sim_time(const ccb_sim* sim) {
    return sim ? sim->t_start + (double)sim->nsteps * sim->prm.dt : NAN;
}
const double* ccb_sim_q(const ccb_sim* sim) {
    return sim ? sim->q : NULL;
}
const double* ccb_sim_v(const ccb_sim* sim) {
    return sim ? sim->v : NULL;
}

static double now(void) {
    return ccb_wall_time();
}

static ccb_status reserve_results(ccb_sim* sim, int nc) {
    if (ccb_grow((void**)&sim->results, &sim->cap_results, nc > 0 ? nc : 1,
                 sizeof(ccb_contact_result))) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

/* Contact results of a discrete step from the solver's contact velocities and impulses. */
static ccb_status record_contacts(ccb_sim* sim, const double* vc, const double* g) {
    const ccb_problem* pb = sim->problem;
    const int nc = sim->contacts.n;
    if (reserve_results(sim, nc) != CCB_OK) {
        return CCB_E_NOMEM;
    }
    for (int i = 0; i < nc; ++i) {
        ccb_contact_result* r = &sim->results[i];
        r->geometry = sim->contacts.items[i];
        for (int k = 0; k < 3; ++k) {
            r->vc[k] = vc[3 * i + k];
            r->gamma[k] = g[3 * i + k];
            r->force[k] = g[3 * i + k] / sim->prm.dt;
        }
        r->stiction_tol = sim->prm.solver == CCB_SOLVER_NEWTON
                              ? pb->approx->stiction_tolerance(&pb->contacts[i].c, r->gamma)
                              : sim->prm.problem.approx.vs;
    }
    sim->nresults = nc;
    return CCB_OK;
}

static void work_diff(const ccb_ode_work* a, const ccb_ode_work* b, ccb_ode_work* d) {
    d->n_f = a->n_f - b->n_f;
    d->n_f_jacobian = a->n_f_jacobian - b->n_f_jacobian;
    d->n_f_errest = a->n_f_errest - b->n_f_errest;
    d->n_newton = a->n_newton - b->n_newton;
    d->n_jacobian = a->n_jacobian - b->n_jacobian;
    d->n_factor = a->n_factor - b->n_factor;
    d->n_steps = a->n_steps - b->n_steps;
    d->n_fail_newton = a->n_fail_newton - b->n_fail_newton;
    d->n_reject_error = a->n_reject_error - b->n_reject_error;
    d->n_tals = a->n_tals - b->n_tals;
    d->n_slip = a->n_slip - b->n_slip;
    d->h_min = a->h_min;
    d->h_max = a->h_max;
}

/* ODE solver: integrate the continuous model over the sampling interval. */
static ccb_status step_ode(ccb_sim* sim, double t0) {
    const ccb_model* m = sim->model;
    const int nq = m->nq, nv = m->nv;
    const double t1 = sim->t_start + (double)(sim->nsteps + 1) * sim->prm.dt;
    const ccb_ode_work before = *ccb_ode_get_work(sim->ode);
    double tic = now();
    ccb_status s = ccb_ode_advance(sim->ode, t1);
    sim->stats.time_solve = now() - tic;
    work_diff(ccb_ode_get_work(sim->ode), &before, &sim->stats.ode);
    sim->stats.iterations = (int)sim->stats.ode.n_newton;
    sim->stats.status = s;
    if (s != CCB_OK) { /* back to the start of the step (the work done stays counted) */
        memcpy(sim->x, sim->q, (size_t)nq * sizeof(double));
        memcpy(sim->x + nq, sim->v, (size_t)nv * sizeof(double));
        ccb_ode_set_state(sim->ode, t0, sim->x);
        return ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                          ccb_ode_last_error(sim->ode));
    }
    const double* x = ccb_ode_state(sim->ode);
    int nc = 0;
    const ccb_contact* cts = NULL;
    const double *vc = NULL, *f = NULL;
    tic = now();
    s = ccb_contact_ode_contacts(sim->cont, t1, x, sim->prm.margin, &nc, &cts, &vc, &f);
    sim->stats.time_geometry = now() - tic;
    if (s != CCB_OK || reserve_results(sim, nc) != CCB_OK) {
        s = s != CCB_OK ? s : CCB_E_NOMEM;
        sim->stats.status = s;
        return ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: contact results: %s", t1,
                          ccb_contact_ode_last_error(sim->cont));
    }
    for (int i = 0; i < nc; ++i) {
        ccb_contact_result* r = &sim->results[i];
        r->geometry = cts[i];
        for (int k = 0; k < 3; ++k) {
            r->vc[k] = vc[3 * i + k];
            r->force[k] = f[3 * i + k];
            r->gamma[k] = f[3 * i + k] * sim->prm.dt;
        }
        r->stiction_tol = sim->prm.problem.approx.vs;
    }
    sim->nresults = nc;
    sim->stats.ncontacts = nc;
    memcpy(sim->q, x, (size_t)nq * sizeof(double));
    memcpy(sim->v, x + nq, (size_t)nv * sizeof(double));
    sim->nsteps++;
    return CCB_OK;
}

ccb_status ccb_sim_step(ccb_sim* sim) {
    if (sim == NULL) {
        return CCB_E_INVALID;
    }
    const ccb_model* m = sim->model;
    const double t0 = ccb_sim_time(sim);
    memset(&sim->stats, 0, sizeof sim->stats);
    sim->stats.solver = sim->prm.solver;
    sim->stats.newton.kappa = -1;
    sim->nresults = 0;
    if (sim->prm.solver == CCB_SOLVER_ODE) {
        return step_ode(sim, t0);
    }
    double tic = now();
    ccb_status s = ccb_geometry_query(m, t0, sim->q, sim->prm.margin, &sim->contacts, sim->msg,
                                      sizeof sim->msg);
    sim->stats.time_geometry = now() - tic;
    sim->stats.ncontacts = sim->contacts.n;
    if (s != CCB_OK) {
        sim->stats.newton.status = sim->stats.status = s;
        return s;
    }
    tic = now();
    s = ccb_problem_build(sim->problem, m, sim->prm.approx, &sim->prm.problem, t0, sim->q, sim->v,
                          &sim->contacts);
    sim->stats.time_problem = now() - tic;
    if (s != CCB_OK) {
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   ccb_problem_last_error(sim->problem));
        sim->stats.newton.status = sim->stats.status = s;
        return s;
    }
    tic = now();
    const double *v, *vc, *g;
    if (sim->prm.solver == CCB_SOLVER_TAMSI) {
        s = ccb_tamsi_solve(sim->tamsi, sim->problem, &sim->prm.tamsi, sim->v, NULL,
                            &sim->stats.tamsi);
        sim->stats.iterations = sim->stats.tamsi.iterations;
        v = ccb_tamsi_velocities(sim->tamsi);
        vc = ccb_tamsi_contact_velocities(sim->tamsi);
        g = ccb_tamsi_impulses(sim->tamsi);
    } else {
        s = ccb_newton_solve(sim->newton, sim->problem, &sim->prm.newton, sim->v, NULL,
                             &sim->stats.newton);
        sim->stats.iterations = sim->stats.newton.iterations;
        v = ccb_newton_velocities(sim->newton);
        vc = ccb_newton_contact_velocities(sim->newton);
        g = ccb_newton_impulses(sim->newton);
    }
    sim->stats.time_solve = now() - tic;
    sim->stats.status = s;
    if (s != CCB_OK) { /* the last iterate stays readable through the solver's workspace */
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   sim->prm.solver == CCB_SOLVER_TAMSI ? ccb_tamsi_last_error(sim->tamsi)
                                                       : ccb_newton_last_error(sim->newton));
        return s;
    }
    if (record_contacts(sim, vc, g) != CCB_OK) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    /* q = q0 + dt N(q0) v (spec §1.1), per body */
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->nq > 0) {
            ccb_body_integrate(b, sim->q + b->qoff, v + b->voff, sim->prm.dt, sim->qn + b->qoff);
        }
    }
    if (!ccb_all_finite(sim->qn, (size_t)m->nq) || !ccb_all_finite(v, (size_t)m->nv)) {
        sim->stats.status = CCB_E_NONFINITE;
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NONFINITE,
                          "t = %.9g: the step produced a non-finite state", t0);
    }
    memcpy(sim->q, sim->qn, (size_t)m->nq * sizeof(double));
    memcpy(sim->v, v, (size_t)m->nv * sizeof(double));
    sim->nsteps++;
    return CCB_OK;
}

const ccb_step_stats* ccb_sim_step_stats(const ccb_sim* sim) {
    return sim ? &sim->stats : NULL;
}
int ccb_sim_ncontacts(const ccb_sim* sim) {
    return sim ? sim->nresults : 0;
}
const ccb_contact_result* ccb_sim_contact(const ccb_sim* sim, int i) {
    return (sim && i >= 0 && i < sim->nresults) ? &sim->results[i] : NULL;
}
const ccb_problem* ccb_sim_problem(const ccb_sim* sim) {
    return sim ? sim->problem : NULL;
}
ccb_newton* ccb_sim_newton(const ccb_sim* sim) {
    return sim ? sim->newton : NULL;
}
const ccb_tamsi* ccb_sim_tamsi(const ccb_sim* sim) {
    return sim ? sim->tamsi : NULL;
}
const ccb_ode* ccb_sim_ode(const ccb_sim* sim) {
    return sim ? sim->ode : NULL;
}
ccb_ode_work ccb_sim_ode_work(const ccb_sim* sim) {
    ccb_ode_work w;
    memset(&w, 0, sizeof w);
    if (sim && sim->ode) {
        w = *ccb_ode_get_work(sim->ode);
    }
    return w;
}
const ccb_model* ccb_sim_model(const ccb_sim* sim) {
    return sim ? sim->model : NULL;
}
const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim) {
    return sim ? &sim->prm : NULL;
}
