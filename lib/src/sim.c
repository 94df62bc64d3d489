/* sim: symplectic Euler time stepping with a frozen-step solver (the convex Newton solver, TAMSI),
 * or sampled integration of the continuous model with an integrator; the solvers are the table of
 * sim_internal.h (sim_newton.c, sim_tamsi.c, sim_ode.c).
 * spec: formulation-convex §1.1 (step), §1.3 (first-order distance), §8.7 (warm start v0);
 * formulation-tamsi-hydro §D.1 (TAMSI step), §A-§B (continuous model, integrators).
 * (About 930 lines: the step and everything it owns — parameters and their checks, the error
 * control of the convex step, the per-step statistics and the simulation's accessors — share
 * the ccb_sim struct that only this file and sim_internal.h see; the solvers' adapters and the
 * registry are files of their own.) */
#define _POSIX_C_SOURCE 200809L
#include "ccb/sim.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "approx_internal.h"
#include "ccb/alloc.h"
#include "ccb/names.h"
#include "geometry_internal.h"
#include "sim_internal.h"

static const char* const k_counter_names[CCB_CNT_COUNT] = {
    "iterations",        "ls_evals",        "residual",
    "tolerance",         "cost [J]",        "kappa",
    "alpha_min",         "f_evals",         "substeps",
    "time_assemble [s]", "time_factor [s]", "time_linesearch [s]",
    "time_eval [s]",     "time_kappa [s]"};

const char* ccb_counter_name(ccb_counter c) {
    return ((int)c >= 0 && c < CCB_CNT_COUNT) ? k_counter_names[c] : NULL;
}

const char* ccb_solver_name(ccb_solver s) {
    return s ? s->name : NULL;
}

/* Options blocks (ccb/solver.h): a registered component's descriptors count from its block, the
 * built-in ones' from ccb_sim_params (solvers) and ccb_ode_params (ODE methods). */
size_t ccb_sim_params_solver_block(ccb_solver solver) {
    return solver && solver->options_size > 0 ? offsetof(ccb_sim_params, solver_options) : 0;
}

size_t ccb_sim_params_method_block(ccb_ode_method method) {
    return offsetof(ccb_sim_params, ode) +
           (method && method->options_size > 0 ? offsetof(ccb_ode_params, method_options) : 0);
}

const void* ccb_sim_params_solver_options(const ccb_sim_params* p) {
    return p ? p->solver_options.bytes : NULL;
}

const void* ccb_sim_solver_options(const ccb_sim* sim) {
    return sim ? sim->prm.solver_options.bytes : NULL;
}

void ccb_sim_params_set_solver(ccb_sim_params* p, ccb_solver solver, ccb_ode_method method) {
    p->solver = solver;
    if (method) {
        p->ode.method = method;
    }
    char* sb = (char*)p + ccb_sim_params_solver_block(solver);
    for (int i = 0; solver && i < solver->noptions; ++i) {
        ccb_option_store(&solver->options[i], sb, solver->options[i].def);
    }
    const ccb_ode_method_type* m = p->ode.method;
    if (solver && (solver->flags & CCB_SOLVER_ODE_METHODS) && m) {
        char* mb = (char*)p + ccb_sim_params_method_block(m);
        for (int i = 0; i < m->noptions; ++i) {
            ccb_option_store(&m->options[i], mb, m->options[i].def);
        }
    }
}

const ccb_option_desc* ccb_sim_params_option(const ccb_sim_params* p, const char* name,
                                             size_t* block) {
    const ccb_option_desc* d = ccb_solver_option(p->solver, name);
    *block = ccb_sim_params_solver_block(p->solver);
    const ccb_ode_method_type* m = p->ode.method;
    if (d == NULL && p->solver && (p->solver->flags & CCB_SOLVER_ODE_METHODS) && m) {
        for (int i = 0; i < m->noptions && d == NULL; ++i) {
            d = strcmp(m->options[i].name, name) == 0 ? &m->options[i] : NULL;
        }
        *block = ccb_sim_params_method_block(m);
    }
    return d;
}

void* ccb_sim_solver_data(const ccb_sim* sim) {
    return sim ? sim->ws : NULL;
}
void ccb_sim_set_solver_data(ccb_sim* sim, void* data) {
    if (sim) {
        sim->ws = data;
    }
}

ccb_sim_params ccb_sim_params_default(void) {
    ccb_sim_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.solver = CCB_SOLVER_NEWTON;
    p.dt = 0.01;
    p.vs = 1e-4; /* ICF §XI; Drake MultibodyPlantConfig::stiction_tolerance */
    p.tamsi = ccb_tamsi_params_default();
    p.ode = ccb_ode_params_default();
    p.ode.h = 0.0;
    p.contact_ode = ccb_contact_ode_params_default();
    p.approx = &ccb_approx_lagged;
    p.problem = ccb_problem_params_default();
    p.newton = ccb_newton_params_default();
    p.margin = CCB_DEFAULT_MARGIN;
    p.ec.enabled = 0;
    p.ec.accuracy = 1e-4;
    p.ec.h_min = 1e-9;
    p.ec.max_solves = 1000000;
    p.ec.lag_estimate = 1;
    p.ec.extrapolate = 1;
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
    if (p->contact_order != 0 && p->contact_order != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "contact_order must be 0 (as found) or 1 (reversed) (got %d)",
                          p->contact_order);
    }
    if (!(isfinite(p->margin) && p->margin >= 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "contact margin must be finite and >= 0 m (got %g)", p->margin);
    }
    if (p->solver == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "no solver given");
    }
    const ccb_sim_ec_params* ec = &p->ec;
    if (ec->enabled != 0 && ec->enabled != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "error control: enabled must be 0 or 1 (got %d)",
                          ec->enabled);
    }
    if (ec->enabled && !(p->solver->flags & CCB_SOLVER_ERROR_CONTROL)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "error control of the convex step does not apply to the %s solver "
                          "(the ODE solver has its own: ode.error_control)",
                          p->solver->name);
    }
    if (!(isfinite(ec->accuracy) && ec->accuracy > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "error control: accuracy must be finite and > 0 (got %g)", ec->accuracy);
    }
    if (ec->enabled && (p->approx == &ccb_approx_sap || p->approx == &ccb_approx_similar)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "error control of the convex step is not offered for %s: its model "
                          "changes with the step (formulation-convex §15)",
                          p->approx->name);
    }
    if (!(isfinite(ec->h_min) && ec->h_min > 0 && (!ec->enabled || ec->h_min <= p->dt))) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "error control: h_min must be finite, > 0 and <= dt = %g s (got %g)",
                          p->dt, ec->h_min);
    }
    if ((ec->lag_estimate != 0 && ec->lag_estimate != 1) ||
        (ec->extrapolate != 0 && ec->extrapolate != 1)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "error control: lag_estimate and extrapolate must be 0 or 1 (got %d, %d)",
                          ec->lag_estimate, ec->extrapolate);
    }
    if (ec->max_solves < 3) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "error control: max_solves must be >= 3 (got %ld)",
                          ec->max_solves);
    }
    if (!(isfinite(p->vs) && p->vs > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "stiction tolerance vs must be finite and > 0 m/s (got %g)", p->vs);
    }
    ccb_status s = ccb_problem_params_check(&p->problem, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    s = ccb_newton_params_check(&p->newton, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    return p->solver->check(p, msg, n);
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
    sim->solver = prm->solver;
    const size_t nq = (size_t)(m->nq > 0 ? m->nq : 1), nv = (size_t)(m->nv > 0 ? m->nv : 1);
    sim->q = ccb_calloc(nq, sizeof(double));
    sim->qn = ccb_calloc(nq, sizeof(double));
    sim->v = ccb_calloc(nv, sizeof(double));
    int ec_ok = 1;
    if (prm->ec.enabled) { /* the interval's state and its three candidates; the guess */
        double** ecq[] = {&sim->ec_q, &sim->ec_qf, &sim->ec_qh, &sim->ec_q2};
        double** ecv[] = {&sim->ec_v, &sim->ec_vf, &sim->ec_vh, &sim->ec_v2, &sim->ec_g};
        for (int k = 0; k < 4; ++k) {
            *ecq[k] = ccb_calloc(nq, sizeof(double));
            ec_ok &= *ecq[k] != NULL;
        }
        for (int k = 0; k < 5; ++k) {
            *ecv[k] = ccb_calloc(nv, sizeof(double));
            ec_ok &= *ecv[k] != NULL;
        }
    }
    if (!ec_ok || sim->q == NULL || sim->qn == NULL || sim->v == NULL ||
        ccb_problem_create(&sim->problem) != CCB_OK) {
        ccb_sim_destroy(sim);
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "sim_create: out of memory");
    }
    ccb_model_initial_state(m, sim->q, sim->v);
    sim->ec_h = prm->dt;
    sim->h_last = prm->dt;
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
    ccb_free(sim->lazy_V);
    ccb_free(sim->lazy_ex);
    ccb_free(sim->lazy_resume);
    ccb_free(sim->lazy_boost);
    ccb_free(sim->lazy_chg);
    ccb_problem_destroy(sim->problem);
    ccb_free(sim->q);
    ccb_free(sim->qn);
    ccb_free(sim->u);
    ccb_free(sim->v);
    ccb_free(sim->results);
    double* ec[] = {sim->ec_q,  sim->ec_v,  sim->ec_qf, sim->ec_vf, sim->ec_qh,
                    sim->ec_vh, sim->ec_q2, sim->ec_v2, sim->ec_g};
    for (size_t k = 0; k < sizeof ec / sizeof ec[0]; ++k) {
        ccb_free(ec[k]);
    }
    ccb_free(sim->metrics_ws);
    ccb_free(sim);
}

/* A solver's message; a registered solver (a plugin's) may give none: never NULL here. */
static const char* solver_message(const ccb_sim* sim) {
    const char* m = sim->solver->last_error ? sim->solver->last_error(sim) : NULL;
    return m != NULL ? m : "(the solver gave no message)";
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
    sim->ec_h = sim->prm.dt; /* error control starts from one step per interval */
    sim->n_lazy_boost = 0;   /* lazy pairs start from R_req itself */
    memset(&sim->ec_work, 0, sizeof sim->ec_work);
    if (sim->solver->set_state) {
        const ccb_status s = sim->solver->set_state(sim, t);
        if (s != CCB_OK) {
            return ccb_errorf(sim->msg, sizeof sim->msg, s, "set_state: %s", solver_message(sim));
        }
    }
    return CCB_OK;
}

ccb_status ccb_sim_set_force(ccb_sim* sim, const double* u) {
    if (sim == NULL) {
        return CCB_E_INVALID;
    }
    const int nv = sim->model->nv;
    if (u == NULL) {
        ccb_free(sim->u);
        sim->u = NULL;
        return CCB_OK;
    }
    if (sim->solver->advance) { /* an integrator: no frozen step problem to add it to */
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_INVALID,
                          "set_force: solver '%s' integrates the continuous model; an applied "
                          "generalized force needs a frozen-step solver (newton, tamsi)",
                          ccb_solver_name(sim->prm.solver));
    }
    if (!ccb_all_finite(u, (size_t)nv)) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NONFINITE,
                          "set_force: u has a non-finite entry");
    }
    if (sim->u == NULL && (sim->u = ccb_calloc(nv > 0 ? (size_t)nv : 1, sizeof(double))) == NULL) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "set_force: out of memory");
    }
    memcpy(sim->u, u, (size_t)nv * sizeof(double));
    return CCB_OK;
}

const double* ccb_sim_force(const ccb_sim* sim) {
    return sim ? sim->u : NULL;
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

/* Contact results of a frozen step of size h from the solver's contact velocities and
 * impulses. */
static ccb_status record_contacts(ccb_sim* sim, double h, const double* vc, const double* g) {
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
            r->force[k] = g[3 * i + k] / h;
        }
        r->stiction_tol = sim->solver->stiction(sim, i, r->gamma);
    }
    sim->nresults = nc;
    return CCB_OK;
}

/* The cut of a lazy pair offered by the query (ccb_geometry_query_lazy;
 * formulation-convex §8.11): the least phi_lb whose radius (ccb_lazy_pair_radius, from the
 * twists the problem will use) reaches R_req = (2 V + 0.5 m/s) b, V the bound of the pair's contact
 * velocities at v0 and b the larger boost of its two bodies. The radius must exceed the far bound
 * of every Newton iteration of the step, or the step is solved again; R_req is a heuristic
 * [default?] that trades the contacts listed against the steps solved again, not a condition of
 * correctness: 2 V covers a reversal of the pair's approach; the coefficients were chosen on a
 * grid timed on the clutter (formulation-convex §8.11, docs/speed.md §4). A body's boost is 1
 * until a lazy pair of it fails (an impact: its Newton directions move it far more than its
 * speed), then 4 times larger for each failure (at most 256) and 0.9 times smaller for each step
 * after (never below 1), so the bodies of an impact keep their contacts listed while it lasts.
 * The built-in laws' radius is affine in phi_lb (their threshold vhat is -phi0/dt or
 * -phi0/(dt + tau_d)): two evaluations give the line. */
typedef struct lazy_ctx {
    const ccb_sim* sim;
    ccb_step_context step;
} lazy_ctx;

static double lazy_cut(void* ctx, const ccb_contact_pair* pair) {
    const lazy_ctx* c = ctx;
    const ccb_sim* sim = c->sim;
    for (int k = 0; k < sim->n_lazy_ex; ++k) { /* a pair whose test failed in this step */
        if (sim->lazy_ex[2 * k] == pair->body_a && sim->lazy_ex[2 * k + 1] == pair->body_b) {
            return INFINITY;
        }
    }
    const ccb_twist *Va = &sim->lazy_V[pair->body_a], *Vb = &sim->lazy_V[pair->body_b];
    const double V = ccb_v3_norm(Va->v) + ccb_v3_norm(Va->w) * pair->reach_a + ccb_v3_norm(Vb->v) +
                     ccb_v3_norm(Vb->w) * pair->reach_b;
    const double boost = fmax(sim->lazy_boost[pair->body_a], sim->lazy_boost[pair->body_b]);
    const double req = (2.0 * V + 0.5) * boost, margin = sim->prm.margin;
    ccb_contact_pair pr = *pair;
    pr.phi_lb = margin;
    const double r1 =
        ccb_lazy_pair_radius(sim->prm.approx, &sim->prm.problem.approx, &c->step, &pr, Va, Vb);
    pr.phi_lb = 0.5 * margin;
    const double r0 =
        ccb_lazy_pair_radius(sim->prm.approx, &sim->prm.problem.approx, &c->step, &pr, Va, Vb);
    if (!(r1 >= req) || !(r1 > r0) || !isfinite(r1)) {
        return INFINITY;
    }
    const double cut =
        fmax(0.0, 0.5 * margin + (req - r0) * (0.5 * margin) / (r1 - r0)) * (1.0 + 1e-6) + 1e-12;
    return cut < margin ? cut : INFINITY;
}

/* The boosts of lazy_cut: x4 for the bodies of the failing pairs f[0..nf-1] (set indices). */
static void lazy_boost_raise(ccb_sim* sim, const int* f, int nf) {
    for (int k = 0; k < nf; ++k) {
        const ccb_contact_pair* pr = &sim->contacts.pairs[f[k]];
        sim->lazy_boost[pr->body_a] = fmin(256.0, 4.0 * sim->lazy_boost[pr->body_a]);
        sim->lazy_boost[pr->body_b] = fmin(256.0, 4.0 * sim->lazy_boost[pr->body_b]);
    }
}

/* The contacts at (t0, q), lazy pairs offered to lazy_cut if `lazy` (the step's h). */
static ccb_status query(ccb_sim* sim, double t0, double h, const double* q, const double* v,
                        int lazy) {
    const ccb_model* m = sim->model;
    if (!lazy) {
        return ccb_geometry_query(m, t0, q, sim->prm.margin, &sim->contacts, sim->msg,
                                  sizeof sim->msg);
    }
    if (ccb_grow((void**)&sim->lazy_V, &sim->cap_lazy_V, m->nbodies > 0 ? m->nbodies : 1,
                 sizeof(ccb_twist))) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    if (ccb_grow((void**)&sim->lazy_boost, &sim->cap_lazy_boost, m->nbodies > 0 ? m->nbodies : 1,
                 sizeof(double)) ||
        ccb_grow((void**)&sim->lazy_chg, &sim->cap_lazy_chg, m->nbodies > 0 ? m->nbodies : 1, 1)) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    for (; sim->n_lazy_boost < m->nbodies; ++sim->n_lazy_boost) {
        sim->lazy_boost[sim->n_lazy_boost] = 1.0;
        sim->lazy_chg[sim->n_lazy_boost] = 0;
    }
    for (int b = 0; b < m->nbodies; ++b) { /* as ccb_problem_build's deferral computes them */
        const ccb_body* bd = &m->bodies[b];
        if (bd->nv > 0 && ccb_clique_is_single(m, bd->clique)) {
            ccb_body_twist(bd, t0, q + bd->qoff, v + bd->voff, &sim->lazy_V[b]);
        } else if (bd->nv == 0) { /* at t0 + h, as the problem's passive bodies */
            ccb_body_twist(bd, t0 + h, NULL, NULL, &sim->lazy_V[b]);
        }
    }
    lazy_ctx c = {sim, {t0, h, sim->prm.vs}};
    return ccb_geometry_query_lazy(m, t0, q, sim->prm.margin, lazy_cut, &c, &sim->contacts,
                                   sim->msg, sizeof sim->msg);
}

/* The query of `query` made again after the pairs lazy_ex[from..] failed and their bodies' boosts
 * rose (the same t0, q, v): lazy_cut changed only for the pairs of those bodies, so only theirs
 * are decided again (ccb_geo_requery_lazy; the same contacts and lazy pairs as a whole query). */
static ccb_status requery(ccb_sim* sim, double t0, double h, int from) {
    for (int k = 2 * from; k < 2 * sim->n_lazy_ex; ++k) {
        sim->lazy_chg[sim->lazy_ex[k]] = 1;
    }
    lazy_ctx c = {sim, {t0, h, sim->prm.vs}};
    const ccb_status s =
        ccb_geo_requery_lazy(sim->model, sim->prm.margin, lazy_cut, &c, sim->lazy_chg,
                             &sim->contacts, sim->msg, sizeof sim->msg);
    for (int k = 2 * from; k < 2 * sim->n_lazy_ex; ++k) {
        sim->lazy_chg[sim->lazy_ex[k]] = 0;
    }
    return s;
}

/* The counters of a step whose solve resumed from an earlier one (frozen_step, lazy pairs with
 * islands): line-search evaluations and phase times add up; the iterations are the most of either
 * solve's, as with islands they count the iterations of the slowest island (each island's iterate
 * comes from one of the solves). */
static void carry_add(double* to, const double* from) {
    static const int k_add[] = {CCB_CNT_LS_EVALS,        CCB_CNT_TIME_ASSEMBLE, CCB_CNT_TIME_FACTOR,
                                CCB_CNT_TIME_LINESEARCH, CCB_CNT_TIME_EVAL,     CCB_CNT_TIME_KAPPA};
    for (size_t k = 0; k < sizeof k_add / sizeof k_add[0]; ++k) {
        if (isfinite(from[k_add[k]])) {
            to[k_add[k]] += from[k_add[k]];
        }
    }
    to[CCB_CNT_ITERATIONS] = fmax(to[CCB_CNT_ITERATIONS], from[CCB_CNT_ITERATIONS]);
}

/* One frozen step of size h from (t0, q, v) (formulation-convex §1.1): the contacts at (t0, q)
 * (unless `reuse`: those of the last query, made at the same (t0, q)), the step problem with
 * dt = h, the solver from `guess`, the contact results, q_out = q + h N(q) v. On success *v_out
 * borrows the solver's velocities. The timings add up in sim->stats; the solver's counters are
 * those of this solve, with those of the solves it resumed from (carry_add). */
static ccb_status frozen_step(ccb_sim* sim, double t0, double h, const double* q, const double* v,
                              const double* guess, int reuse, double* q_out, const double** v_out) {
    const ccb_model* m = sim->model;
    double tic = ccb_wall_time(), toc;
    ccb_status s = CCB_OK;
    /* the Newton solver completes only the contacts it needs (ccb_problem_params.defer_inactive;
     * results bit-identical); the other solvers read every contact's rows */
    ccb_problem_params pp = sim->prm.problem;
    pp.defer_inactive = sim->solver->defer_contacts && sim->solver->defer_contacts(&sim->prm);
    pp.u = sim->u;
    int lazy = pp.defer_inactive && sim->prm.newton.lazy_pairs &&
               ccb_approx_is_builtin(sim->prm.approx) && sim->prm.approx->inactive_radius;
    sim->stats.lazy_retries = 0;
    sim->n_lazy_ex = 0;
    const double* guess0 = guess;
    /* the work of the solves the step resumed from (carry_add) */
    double carry[CCB_CNT_COUNT] = {0};
    int requery_from = -1; /* >= 0: the query made again for the failed pairs lazy_ex[from..] */
again:
    if (!reuse) {
        s = requery_from >= 0 ? requery(sim, t0, h, requery_from) : query(sim, t0, h, q, v, lazy);
        requery_from = -1;
        toc = ccb_wall_time(); /* one clock read per phase boundary */
        sim->stats.time_geometry += toc - tic;
        sim->stats.ncontacts = sim->contacts.n;
        sim->stats.npairs = sim->contacts.npairs;
        if (s != CCB_OK) {
            sim->stats.status = s;
            return s;
        }
        if (sim->prm.contact_order == 1) { /* the same contacts in reversed order */
            ccb_contact* c = sim->contacts.items;
            for (int i = 0, j = sim->contacts.n - 1; i < j; ++i, --j) {
                const ccb_contact tmp = c[i];
                c[i] = c[j];
                c[j] = tmp;
            }
        }
        tic = toc;
    }
    const ccb_step_context step = {t0, h, sim->prm.vs}; /* the step this simulation owns */
    s = ccb_problem_build(sim->problem, m, sim->prm.approx, &pp, &step, q, v, &sim->contacts);
    toc = ccb_wall_time();
    sim->stats.time_problem += toc - tic;
    if (s == CCB_E_RETRY && sim->contacts.npairs > 0) { /* a lazy pair may activate: without */
        lazy = 0, reuse = 0;
        sim->stats.lazy_retries++;
        ccb_problem_keep_cliques(sim->problem);
        tic = toc;
        goto again;
    }
    if (s != CCB_OK) {
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0,
                   ccb_problem_last_error(sim->problem));
        sim->stats.status = s;
        return s;
    }
    tic = toc;
    const double *vn = NULL, *vc = NULL, *g = NULL;
    sim->h_last = h;
    s = sim->solver->solve(sim, &step, guess, sim->stats.counter, &vn, &vc, &g);
    toc = ccb_wall_time();
    sim->stats.time_solve += toc - tic;
    if (s == CCB_E_RETRY && sim->contacts.npairs > 0) {
        /* the pairs whose test failed keep their contacts in the next query; after 16 rounds,
         * or if the pairs are not known, none is left out (formulation-convex §8.11) */
        const int* f = NULL;
        const int nf = ccb_sim_newton_lazy_failures(sim, &f);
        /* with islands the others converged: the next solve starts from their iterate, and from
         * the step's guess on the islands the failing pairs froze (formulation-convex §8.11) */
        guess = guess0;
        if (nf > 0 &&
            !ccb_grow((void**)&sim->lazy_resume, &sim->cap_lazy_resume, m->nv > 0 ? m->nv : 1,
                      sizeof(double)) &&
            ccb_sim_newton_resume(sim, guess0, sim->lazy_resume)) {
            guess = sim->lazy_resume;
            carry_add(carry, sim->stats.counter);
        } else {
            memset(carry, 0, sizeof carry);
        }
        if (nf > 0 && sim->stats.lazy_retries < 16 &&
            !ccb_grow((void**)&sim->lazy_ex, &sim->cap_lazy_ex, 2 * (sim->n_lazy_ex + nf),
                      sizeof(int))) {
            lazy_boost_raise(sim, f, nf);
            if (sim->prm.contact_order == 0) { /* the set is the query's, in its order */
                requery_from = sim->n_lazy_ex;
            }
            for (int k = 0; k < nf; ++k) {
                sim->lazy_ex[2 * sim->n_lazy_ex] = sim->contacts.pairs[f[k]].body_a;
                sim->lazy_ex[2 * sim->n_lazy_ex + 1] = sim->contacts.pairs[f[k]].body_b;
                sim->n_lazy_ex++;
            }
        } else {
            lazy = 0;
        }
        reuse = 0;
        sim->stats.lazy_retries++;
        ccb_problem_keep_cliques(sim->problem); /* the same state: the same cliques' terms */
        tic = toc;
        goto again;
    }
    carry_add(sim->stats.counter, carry);
    sim->stats.status = s;
    if (s != CCB_OK) { /* the last iterate stays readable through the solver's workspace */
        ccb_errorf(sim->msg, sizeof sim->msg, s, "t = %.9g: %s", t0, solver_message(sim));
        return s;
    }
    /* a registered solver's (a plugin's) success must come with its solution */
    const int nc = ccb_problem_nc(sim->problem);
    if (vn == NULL || (nc > 0 && (vc == NULL || g == NULL))) {
        sim->stats.status = CCB_E_INVALID;
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_INVALID,
                          "t = %.9g: solver '%s' reported success without its %s", t0,
                          sim->solver->name,
                          vn == NULL ? "velocities" : "contact velocities and impulses");
    }
    for (int b = 0; b < sim->n_lazy_boost; ++b) { /* lazy_cut's boosts decay */
        sim->lazy_boost[b] = fmax(1.0, 0.9 * sim->lazy_boost[b]);
    }
    if (record_contacts(sim, h, vc, g) != CCB_OK) {
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NOMEM, "step: out of memory");
    }
    /* q = q0 + h N(q0) v (formulation-convex §1.1), per body */
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->nq > 0) {
            ccb_body_integrate(b, q + b->qoff, vn + b->voff, h, q_out + b->qoff);
        }
    }
    if (!ccb_all_finite(q_out, (size_t)m->nq) || !ccb_all_finite(vn, (size_t)m->nv)) {
        sim->stats.status = CCB_E_NONFINITE;
        return ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_NONFINITE,
                          "t = %.9g: the step produced a non-finite state", t0);
    }
    *v_out = vn;
    return CCB_OK;
}

/* The counters of the solves of one error-controlled interval: iterations, line-search
 * evaluations and times add up, the residual, tolerance and cost are the last solve's, kappa the
 * largest, alpha_min the smallest (NAN: a row the solver does not fill). */
static void merge_counters(double* acc, const double* c) {
    for (int k = 0; k < CCB_CNT_COUNT; ++k) {
        if (isnan(c[k])) {
            continue;
        }
        if (isnan(acc[k])) {
            acc[k] = c[k];
            continue;
        }
        switch ((ccb_counter)k) {
        case CCB_CNT_RESIDUAL:
        case CCB_CNT_TOLERANCE:
        case CCB_CNT_COST: acc[k] = c[k]; break;
        case CCB_CNT_KAPPA: acc[k] = fmax(acc[k], c[k]); break;
        case CCB_CNT_ALPHA_MIN: acc[k] = fmin(acc[k], c[k]); break;
        default: acc[k] += c[k]; break;
        }
    }
}

/* 1 if a contact of the step just solved closes or opens within it: overlap at its start and no
 * normal impulse, or the reverse (formulation-convex §15.7: there the step is not smooth in h and
 * is not extrapolated). */
static int contact_event(const ccb_sim* sim) {
    for (int i = 0; i < sim->nresults; ++i) {
        const ccb_contact_result* r = &sim->results[i];
        if ((r->geometry.phi0 < 0.0) != (r->gamma[2] > 0.0)) {
            return 1;
        }
    }
    return 0;
}

/* The approximations whose friction bound is the normal impulse at the start of the step,
 * gamma_n0 (Lagged and regularized Lagged, formulation-convex §5, §7: they share the law). */
static int friction_lags(const ccb_approx* a) {
    return a->eval == ccb_lagged_eval;
}

/* The lag defect of the step just solved (formulation-convex §15.6): the largest, over contacts,
 * of dt w mu |gamma_n - gamma_n0| |t_s|, the contact velocity the friction would change by if
 * its bound were the step's own normal impulse (w the Delassus estimate, §4.2), carried over one
 * sampling interval dt. */
static double lag_defect(ccb_sim* sim) {
    double e = 0.0;
    for (int i = 0; i < sim->nresults; ++i) {
        const ccb_contact_result* r = &sim->results[i];
        if (r->gamma[2] == 0.0 && r->geometry.phi0 >= 0.0) {
            continue; /* gamma_n0 = 0 without overlap (and a deferred contact is never completed) */
        }
        const ccb_constraint* c = ccb_problem_constraint(sim->problem, i);
        const ccb_contact_input* in = ccb_problem_contact_input(sim->problem, i);
        if (c == NULL || in == NULL) {
            continue; /* not reached: the contact was completed by the solve */
        }
        /* the slip |A v_t| of the isotropic law with anisotropic friction (formulation-convex §18.2) */
        const double vt = c->aniso[0] == 0.0
                              ? hypot(r->vc[0], r->vc[1])
                              : hypot(c->aniso[0] * r->vc[0], c->aniso[1] * r->vc[1]);
        const double ts =
            vt / sqrt(vt * vt + c->eps_s * c->eps_s); /* |t_s|, formulation-convex §3 */
        e = fmax(e,
                 sim->prm.dt * in->w * ccb_constraint_mu_max(c) * fabs(r->gamma[2] - c->gn0) * ts);
    }
    return e;
}

/* One error-controlled attempt of step h from (t, ec_q, ec_v): the full step, the two half steps
 * (formulation-convex §15.1), their solves' counters merged into acc; *err = |q_full - q_half|_inf
 * and, with lag_estimate, the full step's lag defect (§15.6). The candidate is ec_q2/ec_v2: the
 * second half step's state, or with extrapolate the Richardson combination 2 (q~, v~) - (q, v)
 * of the full step and the half steps unless a contact closes or opens in any of them (§15.7). */
static ccb_status ec_attempt(ccb_sim* sim, double t, double h, double* acc, double* err) {
    const ccb_model* m = sim->model;
    const size_t nv = (size_t)m->nv;
    const double* v = NULL;
    ccb_status s = frozen_step(sim, t, h, sim->ec_q, sim->ec_v, sim->ec_v, 0, sim->ec_qf, &v);
    merge_counters(acc, sim->stats.counter);
    sim->ec_work.n_solves++;
    if (s != CCB_OK) {
        return s;
    }
    memcpy(sim->ec_vf, v, nv * sizeof(double));
    const ccb_sim_ec_params* ec = &sim->prm.ec;
    const double elag = ec->lag_estimate && friction_lags(sim->prm.approx) ? lag_defect(sim) : 0.0;
    int event = ec->extrapolate && contact_event(sim);
    /* first half step: same start and contacts, guess (v0 + v_full)/2 (CENIC) */
    for (size_t i = 0; i < nv; ++i) {
        sim->ec_g[i] = 0.5 * (sim->ec_v[i] + sim->ec_vf[i]);
    }
    s = frozen_step(sim, t, 0.5 * h, sim->ec_q, sim->ec_v, sim->ec_g, 1, sim->ec_qh, &v);
    merge_counters(acc, sim->stats.counter);
    sim->ec_work.n_solves++;
    if (s != CCB_OK) {
        return s;
    }
    memcpy(sim->ec_vh, v, nv * sizeof(double));
    event = event || (ec->extrapolate && contact_event(sim));
    /* second half step from (t + h/2, q_half1), guess v_full */
    s = frozen_step(sim, t + 0.5 * h, 0.5 * h, sim->ec_qh, sim->ec_vh, sim->ec_vf, 0, sim->ec_q2,
                    &v);
    merge_counters(acc, sim->stats.counter);
    sim->ec_work.n_solves++;
    if (s != CCB_OK) {
        return s;
    }
    memcpy(sim->ec_v2, v, nv * sizeof(double));
    event = event || (ec->extrapolate && contact_event(sim));
    double e = 0.0;
    for (int i = 0; i < m->nq; ++i) { /* CENIC, Sec. V-E: infinity norm over q */
        e = fmax(e, fabs(sim->ec_qf[i] - sim->ec_q2[i]));
    }
    *err = fmax(e, elag);
    if (ec->extrapolate && !event) { /* local extrapolation, formulation-convex §15.7 */
        for (int i = 0; i < m->nq; ++i) {
            sim->ec_q2[i] = 2.0 * sim->ec_q2[i] - sim->ec_qf[i];
        }
        for (size_t i = 0; i < nv; ++i) {
            sim->ec_v2[i] = 2.0 * sim->ec_v2[i] - sim->ec_vf[i];
        }
        for (int i = 0; i < m->nbodies; ++i) { /* back onto the unit quaternions */
            const ccb_body* b = &m->bodies[i];
            if (b->nq > 0) {
                ccb_body_normalize(b, sim->ec_q2 + b->qoff);
            }
        }
    }
    return CCB_OK;
}

/* One sampling interval [t0, t0 + dt] in error-controlled internal steps (formulation-convex §15;
 * the rules of formulation-tamsi-hydro §B.6). The state changes only if the whole interval
 * succeeds. */
static ccb_status ec_interval(ccb_sim* sim, double t0) {
    const ccb_model* m = sim->model;
    const ccb_sim_ec_params* ec = &sim->prm.ec;
    const double dt = sim->prm.dt;
    const double t_end = sim->t_start + (double)(sim->nsteps + 1) * dt;
    double acc[CCB_CNT_COUNT];
    for (int k = 0; k < CCB_CNT_COUNT; ++k) {
        acc[k] = NAN;
    }
    memcpy(sim->ec_q, sim->q, (size_t)m->nq * sizeof(double));
    memcpy(sim->ec_v, sim->v, (size_t)m->nv * sizeof(double));
    const long solves0 = sim->ec_work.n_solves;
    long accepted = 0;
    double t = t0;
    ccb_status s = CCB_OK;
    while (t < t_end) {
        int limited, last;
        double h = ccb_errctl_step(sim->ec_h, dt, t, t_end, &limited, &last);
        const double h_nominal = fmin(sim->ec_h, dt);
        if (last && fabs(h - h_nominal) <= ccb_errctl_floor(t_end)) {
            h = h_nominal; /* t_end - t differs from it by round-off only: the step stays exact */
        }
        if (h < ccb_errctl_floor(t) || (h < ec->h_min && !last)) {
            s = ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_LIMIT,
                           "t = %.9g: error control (accuracy %g): the step h = %.3g s is below "
                           "the smallest step h_min = %g s",
                           t, ec->accuracy, h, ec->h_min);
            break;
        }
        if (sim->ec_work.n_solves - solves0 + 3 > ec->max_solves) {
            s = ccb_errorf(sim->msg, sizeof sim->msg, CCB_E_LIMIT,
                           "t = %.9g: error control (accuracy %g): more than %ld convex solves in "
                           "one sampling interval (ccb_sim_ec_params.max_solves)",
                           t, ec->accuracy, ec->max_solves);
            break;
        }
        double err = NAN, h_new;
        s = ec_attempt(sim, t, h, acc, &err);
        if (s == CCB_E_NOTCONV) { /* as implicit Euler: halve before the error test */
            sim->ec_work.n_fail++;
            sim->ec_h = 0.5 * h;
            s = CCB_OK;
            continue;
        }
        if (s != CCB_OK) {
            break;
        }
        sim->ec_work.err_last = err;
        if (ccb_errctl_adjust(ec->accuracy, err, h, dt, &h_new)) {
            memcpy(sim->ec_q, sim->ec_q2, (size_t)m->nq * sizeof(double));
            memcpy(sim->ec_v, sim->ec_v2, (size_t)m->nv * sizeof(double));
            t = last ? t_end : t + h;
            ccb_sim_ec_work* w = &sim->ec_work;
            w->h_min = w->n_steps == 0 ? h : fmin(w->h_min, h);
            w->h_max = fmax(w->h_max, h);
            w->n_steps++;
            accepted++;
            if (!limited) {
                sim->ec_h = h_new;
            }
        } else {
            sim->ec_work.n_reject++;
            sim->ec_h = h_new;
        }
    }
    memcpy(sim->stats.counter, acc, sizeof acc);
    sim->stats.counter[CCB_CNT_SUBSTEPS] = (double)accepted;
    sim->stats.status = s;
    if (s != CCB_OK) {
        return s;
    }
    memcpy(sim->q, sim->ec_q, (size_t)m->nq * sizeof(double));
    memcpy(sim->v, sim->ec_v, (size_t)m->nv * sizeof(double));
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
    for (int c = 0; c < CCB_CNT_COUNT; ++c) {
        sim->stats.counter[c] = NAN; /* the solver fills its rows */
    }
    sim->nresults = 0;
    if (sim->solver->advance) {
        return sim->solver->advance(sim, t0);
    }
    if (sim->prm.ec.enabled) {
        return ec_interval(sim, t0);
    }
    const double* v = NULL;
    const ccb_status s = frozen_step(sim, t0, sim->prm.dt, sim->q, sim->v, sim->v, 0, sim->qn, &v);
    if (s != CCB_OK) {
        return s;
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
ccb_status ccb_sim_problem_impulses(const ccb_sim* sim, double* gamma) {
    if (sim == NULL || gamma == NULL || sim->solver->advance != NULL) {
        return CCB_E_INVALID;
    }
    const ccb_problem* p = sim->problem;
    for (int i = 0; i < p->nc; ++i) {
        const int c = p->contacts[i].contact;
        if (c < 0 || c >= sim->nresults) {
            return CCB_E_INVALID;
        }
        memcpy(gamma + 3 * i, sim->results[c].gamma, 3 * sizeof(double));
    }
    return CCB_OK;
}
ccb_newton* ccb_sim_newton(const ccb_sim* sim) {
    return sim && sim->solver == &ccb_solver_newton ? sim->ws : NULL;
}
const ccb_tamsi* ccb_sim_tamsi(const ccb_sim* sim) {
    return sim && sim->solver == &ccb_solver_tamsi ? sim->ws : NULL;
}
const ccb_ode* ccb_sim_ode(const ccb_sim* sim) {
    return sim && sim->solver == &ccb_solver_ode ? ccb_sim_ode_integrator(sim) : NULL;
}
ccb_sim_ec_work ccb_sim_get_ec_work(const ccb_sim* sim) {
    ccb_sim_ec_work w;
    memset(&w, 0, sizeof w);
    if (sim) {
        w = sim->ec_work;
    }
    return w;
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
    const ccb_solver_type* t = sim->solver;
    DESCRIBE_TEXT("solver.name", t->name);
    if (sim->prm.contact_order != 0) { /* a perturbation, recorded only where it is applied */
        DESCRIBE_TEXT("contacts.order", "reversed");
    }
    /* every option descriptor of the solver and of its ODE method, as the command line names it */
    const ccb_ode_method_type* m = t->flags & CCB_SOLVER_ODE_METHODS ? sim->prm.ode.method : NULL;
    for (int k = 0; k < 2; ++k) {
        const ccb_option_desc* d = k == 0 ? t->options : m ? m->options : NULL;
        const int nd = k == 0 ? t->noptions : m ? m->noptions : 0;
        const void* base = (const char*)&sim->prm + (k == 0 ? ccb_sim_params_solver_block(t)
                                                            : ccb_sim_params_method_block(m));
        for (int i = 0; i < nd; ++i) {
            char key[64], text[64];
            snprintf(key, sizeof key, "option.%s", d[i].name);
            ccb_option_format(&d[i], base, text, sizeof text);
            if (d[i].type == CCB_OPT_REAL || d[i].type == CCB_OPT_INT) {
                DESCRIBE_NUM(key, ccb_option_value(&d[i], base));
            } else {
                DESCRIBE_TEXT(key, text);
            }
        }
    }
    if (t->describe) {
        t->describe(sim, fn, user);
    }
}

void ccb_sim_factor_counts(const ccb_sim* sim, long* analyses, long* factorizations) {
    *analyses = *factorizations = 0;
    if (sim && sim->solver->factor_counts) {
        sim->solver->factor_counts(sim, analyses, factorizations);
    }
}
const ccb_model* ccb_sim_model(const ccb_sim* sim) {
    return sim ? sim->model : NULL;
}
const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim) {
    return sim ? &sim->prm : NULL;
}
