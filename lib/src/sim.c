/* sim: symplectic Euler time stepping with the convex Newton solver.
 * spec: formulation-convex §1.1 (step), §1.3 (first-order distance), §8.7 (warm start v0). */
#define _POSIX_C_SOURCE 200809L
#include "ccb/sim.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "ccb/alloc.h"
#include "model_internal.h"
#include "problem_internal.h"

struct ccb_sim {
    const ccb_model* model;
    ccb_sim_params prm;
    ccb_contact_set contacts;
    ccb_problem* problem;
    ccb_newton* newton;
    double t_start;
    long nsteps; /* steps since set_state */
    double *q, *v, *qn;
    ccb_contact_result* results;
    int nresults, cap_results;
    ccb_step_stats stats;
    char msg[CCB_MSG_SIZE];
};

ccb_sim_params ccb_sim_params_default(void) {
    ccb_sim_params p;
    p.dt = 0.01;
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
    ccb_problem_params pp = p->problem;
    pp.approx.dt = p->dt;
    ccb_status s = ccb_problem_params_check(&pp, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    return ccb_newton_params_check(&p->newton, msg, n);
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
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ccb_status record_contacts(ccb_sim* sim) {
    const ccb_problem* pb = sim->problem;
    const int nc = sim->contacts.n;
    if (ccb_grow((void**)&sim->results, &sim->cap_results, nc > 0 ? nc : 1,
                 sizeof(ccb_contact_result))) {
        return CCB_E_NOMEM;
    }
    const double* vc = ccb_newton_contact_velocities(sim->newton);
    const double* g = ccb_newton_impulses(sim->newton);
    for (int i = 0; i < nc; ++i) {
        ccb_contact_result* r = &sim->results[i];
        r->geometry = sim->contacts.items[i];
        for (int k = 0; k < 3; ++k) {
            r->vc[k] = vc[3 * i + k];
            r->gamma[k] = g[3 * i + k];
            r->force[k] = g[3 * i + k] / sim->prm.dt;
        }
        r->stiction_tol = pb->approx->stiction_tolerance(&pb->contacts[i].c, r->gamma);
    }
    sim->nresults = nc;
    return CCB_OK;
}

ccb_status ccb_sim_step(ccb_sim* sim) {
    if (sim == NULL) {
        return CCB_E_INVALID;
    }
    const ccb_model* m = sim->model;
    const double t0 = ccb_sim_time(sim);
    memset(&sim->stats, 0, sizeof sim->stats);
    sim->stats.newton.kappa = -1;
    double tic = now();
    ccb_status s = ccb_geometry_query(m, t0, sim->q, sim->prm.margin, &sim->contacts, sim->msg,
                                      sizeof sim->msg);
    sim->stats.time_geometry = now() - tic;
    sim->stats.ncontacts = sim->contacts.n;
    sim->nresults = 0;
    if (s != CCB_OK) {
        sim->stats.newton.status = s;
        return s;
    }
    tic = now();
    s = ccb_problem_build(sim->problem, m, sim->prm.approx, &sim->prm.problem, t0, sim->q, sim->v,
                          &sim->contacts);
    sim->stats.time_problem = now() - tic;
    if (s != CCB_OK) {
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   ccb_problem_last_error(sim->problem));
        sim->stats.newton.status = s;
        return s;
    }
    tic = now();
    s = ccb_newton_solve(sim->newton, sim->problem, &sim->prm.newton, sim->v, NULL,
                         &sim->stats.newton);
    sim->stats.time_solve = now() - tic;
    sim->nresults = 0;
    if (s != CCB_OK) { /* the last iterate stays readable through ccb_sim_newton() */
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   ccb_newton_last_error(sim->newton));
        return s;
    }
    if (record_contacts(sim) != CCB_OK) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    /* q = q0 + dt N(q0) v (spec §1.1), per body */
    const double* v = ccb_newton_velocities(sim->newton);
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->nq > 0) {
            ccb_body_integrate(b, sim->q + b->qoff, v + b->voff, sim->prm.dt, sim->qn + b->qoff);
        }
    }
    if (!ccb_all_finite(sim->qn, (size_t)m->nq) || !ccb_all_finite(v, (size_t)m->nv)) {
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
const ccb_model* ccb_sim_model(const ccb_sim* sim) {
    return sim ? sim->model : NULL;
}
const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim) {
    return sim ? &sim->prm : NULL;
}
