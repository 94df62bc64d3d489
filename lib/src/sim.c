/* sim: symplectic Euler time stepping with a frozen-step solver (the convex Newton solver, TAMSI),
 * or sampled integration of the continuous model with an integrator; the solvers are the table of
 * sim_internal.h (sim_newton.c, sim_tamsi.c, sim_ode.c).
 * spec: formulation-convex §1.1 (step), §1.3 (first-order distance), §8.7 (warm start v0);
 * formulation-tamsi-hydro §D.1 (TAMSI step), §A-§B (continuous model, integrators). */
#define _POSIX_C_SOURCE 200809L
#include "ccb/sim.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "ccb/alloc.h"
#include "ccb/names.h"
#include "sim_internal.h"

/* The solvers by ccb_solver (the enum indexes this table). */
static const sim_solver* const k_solvers[] = {&ccb_sim_solver_newton, &ccb_sim_solver_tamsi,
                                              &ccb_sim_solver_ode};
#define NSOLVERS ((int)(sizeof k_solvers / sizeof k_solvers[0]))

static const char* const k_counter_names[CCB_CNT_COUNT] = {
    "iterations", "ls_evals", "residual", "tolerance", "cost [J]", "kappa", "alpha_min",
    "f_evals", "substeps", "time_assemble [s]", "time_factor [s]", "time_linesearch [s]",
    "time_eval [s]", "time_kappa [s]"};

const char* ccb_counter_name(ccb_counter c) {
    return ((int)c >= 0 && c < CCB_CNT_COUNT) ? k_counter_names[c] : NULL;
}

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
    if ((int)p->solver < 0 || (int)p->solver >= NSOLVERS) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown solver %d", (int)p->solver);
    }
    ccb_problem_params pp = p->problem;
    pp.approx.dt = p->dt;
    ccb_status s = ccb_problem_params_check(&pp, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    s = ccb_newton_params_check(&p->newton, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    return k_solvers[p->solver]->check(p, msg, n);
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
    sim->solver = k_solvers[prm->solver];
    const size_t nq = (size_t)(m->nq > 0 ? m->nq : 1), nv = (size_t)(m->nv > 0 ? m->nv : 1);
    sim->q = ccb_calloc(nq, sizeof(double));
    sim->qn = ccb_calloc(nq, sizeof(double));
    sim->v = ccb_calloc(nv, sizeof(double));
    if (sim->q == NULL || sim->qn == NULL || sim->v == NULL ||
        ccb_problem_create(&sim->problem) != CCB_OK) {
        ccb_sim_destroy(sim);
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
    }
    ccb_model_initial_state(m, sim->q, sim->v);
    sim->prm.tamsi.vs = sim->prm.problem.approx.vs;
    sim->prm.contact_ode.vs = sim->prm.problem.approx.vs;
    if (sim->prm.ode.h == 0.0) {
        sim->prm.ode.h = prm->dt;
    }
    s = sim->solver->create(sim, msg, msgn);
    if (s == CCB_OK && sim->solver->set_state) {
        s = ccb_sim_set_state(sim, 0.0, sim->q, sim->v);
        if (s != CCB_OK) {
            ccb_errorf(msg, msgn, s, "%s", sim->msg);
        }
    }
    if (s != CCB_OK) {
        ccb_sim_destroy(sim);
        return s;
    }
    *out = sim;
    return CCB_OK;
}

void ccb_sim_destroy(ccb_sim* sim) {
    if (sim == NULL) {
        return;
    }
    if (sim->solver) {
        sim->solver->destroy(sim);
    }
    ccb_contact_set_free(&sim->contacts);
    ccb_problem_destroy(sim->problem);
    ccb_free(sim->q);
    ccb_free(sim->qn);
    ccb_free(sim->v);
    ccb_free(sim->results);
    ccb_free(sim->metrics_ws);
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
    /* copies first (q, v may be the sim's own arrays), then the solver's view of the state */
    memmove(sim->q, q, (size_t)nq * sizeof(double));
    memmove(sim->v, v, (size_t)nv * sizeof(double));
    sim->t_start = t;
    sim->nsteps = 0;
    if (sim->solver->set_state) {
        const ccb_status s = sim->solver->set_state(sim, t);
        if (s != CCB_OK) {
            return ccb_errorf(sim->msg, sizeof sim->msg, s, "set_state: %s",
                              sim->solver->last_error(sim));
        }
    }
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

ccb_status ccb_sim_reserve_results(ccb_sim* sim, int nc) {
    if (ccb_grow((void**)&sim->results, &sim->cap_results, nc > 0 ? nc : 1,
                 sizeof(ccb_contact_result))) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

/* Contact results of a frozen step from the solver's contact velocities and impulses. */
static ccb_status record_contacts(ccb_sim* sim, const double* vc, const double* g) {
    const int nc = sim->contacts.n;
    if (ccb_sim_reserve_results(sim, nc) != CCB_OK) {
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
        r->stiction_tol = sim->solver->stiction(sim, i, r->gamma);
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
    sim->stats.solver = sim->prm.solver;
    for (int c = 0; c < CCB_CNT_COUNT; ++c) {
        sim->stats.counter[c] = NAN; /* the solver fills its rows */
    }
    sim->nresults = 0;
    if (sim->solver->advance) {
        return sim->solver->advance(sim, t0);
    }
    double tic = ccb_wall_time();
    ccb_status s = ccb_geometry_query(m, t0, sim->q, sim->prm.margin, &sim->contacts, sim->msg,
                                      sizeof sim->msg);
    double toc = ccb_wall_time(); /* one clock read per phase boundary */
    sim->stats.time_geometry = toc - tic;
    sim->stats.ncontacts = sim->contacts.n;
    if (s != CCB_OK) {
        sim->stats.status = s;
        return s;
    }
    tic = toc;
    /* the Newton solver completes only the contacts it needs (ccb_problem_params.defer_inactive;
     * results bit-identical); the other solvers read every contact's rows */
    ccb_problem_params pp = sim->prm.problem;
    pp.defer_inactive = sim->prm.solver == CCB_SOLVER_NEWTON && !sim->prm.newton.evaluate_all;
    s = ccb_problem_build(sim->problem, m, sim->prm.approx, &pp, t0, sim->q, sim->v,
                          &sim->contacts);
    toc = ccb_wall_time();
    sim->stats.time_problem = toc - tic;
    if (s != CCB_OK) {
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   ccb_problem_last_error(sim->problem));
        sim->stats.status = s;
        return s;
    }
    tic = toc;
    const double *v = NULL, *vc = NULL, *g = NULL;
    s = sim->solver->solve(sim, &v, &vc, &g);
    sim->stats.time_solve = ccb_wall_time() - tic;
    sim->stats.status = s;
    if (s != CCB_OK) { /* the last iterate stays readable through the solver's workspace */
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0, sim->solver->last_error(sim));
        return s;
    }
    if (record_contacts(sim, vc, g) != CCB_OK) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    /* q = q0 + dt N(q0) v (formulation-convex §1.1), per body */
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
    return sim && sim->solver == &ccb_sim_solver_newton ? sim->ws : NULL;
}
const ccb_tamsi* ccb_sim_tamsi(const ccb_sim* sim) {
    return sim && sim->solver == &ccb_sim_solver_tamsi ? sim->ws : NULL;
}
const ccb_ode* ccb_sim_ode(const ccb_sim* sim) {
    return sim && sim->solver == &ccb_sim_solver_ode ? ccb_sim_ode_integrator(sim) : NULL;
}
ccb_ode_work ccb_sim_ode_work(const ccb_sim* sim) {
    ccb_ode_work w;
    memset(&w, 0, sizeof w);
    const ccb_ode* o = ccb_sim_ode(sim);
    if (o) {
        w = *ccb_ode_get_work(o);
    }
    return w;
}
void ccb_sim_describe(const ccb_sim* sim, ccb_describe_fn fn, void* user) {
    if (sim == NULL || fn == NULL) {
        return;
    }
    DESCRIBE_TEXT("solver.name", ccb_solver_name(sim->prm.solver));
    sim->solver->describe(sim, fn, user);
}

void ccb_sim_factor_counts(const ccb_sim* sim, long* analyses, long* factorizations) {
    *analyses = *factorizations = 0;
    if (sim) {
        sim->solver->factor_counts(sim, analyses, factorizations);
    }
}
const ccb_model* ccb_sim_model(const ccb_sim* sim) {
    return sim ? sim->model : NULL;
}
const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim) {
    return sim ? &sim->prm : NULL;
}
