/* pgs — a projected Gauss–Seidel solver for ccb, as a plugin (docs/architecture.md §5).
 *
 * It solves the same per-step problem as ccb's Newton solver — the convex approximation chosen
 * with --approx of the contact problem that the simulation built for the step
 * (formulation-convex §1.2) — by the other method every reader knows: Gauss–Seidel sweeps over
 * the contacts in impulse space.
 *
 * The dual of the step's convex problem min_v 1/2 |v - v*|_A^2 + sum_i l_i(J_i v + b_i) is a
 * problem in the impulses gamma, whose block i, with the others fixed, is solved exactly by one
 * contact velocity y with
 *     W_ii^{-1} (y - y~) = gamma_i(y),      y~ = J_i v + b_i - W_ii gamma_i  (own impulse removed),
 * where W_ii = J_i A^{-1} J_i^T is the contact's Delassus block and gamma_i(y) = -dl_i/dy the
 * approximation's impulse law (for SAP the projection of formulation-convex §4.4: this is
 * projected Gauss–Seidel in the R-metric; for Lagged and Similar its nonlinear analogue). The
 * local problem is the minimization of the strictly convex
 *     phi(y) = 1/2 (y - y~)^T W_ii^{-1} (y - y~) + l_i(y)
 * (3 unknowns), by Newton with backtracking on phi, using only the approximation's eval (cost,
 * impulse, Hessian). One sweep visits every contact in order and updates v = v* + A^{-1} J^T gamma
 * after each. Block coordinate descent on the convex dual converges; it stops when a sweep
 * changes no contact velocity by more than `tolerance` [m/s] (W_ii |delta gamma_i|, max-norm),
 * or fails after `max-sweeps` sweeps.
 *
 * Everything it reads comes through libccb's public API, and what every dual solver needs — the
 * Delassus blocks W_ii, the velocity update v += A^{-1} J_i^T dgamma, the contact velocities and
 * the exact block problem — is libccb's ccb/dual.h: this file is the sweep, its options and its
 * type object.
 *
 * Build (outside ccb's tree): cc -shared -fPIC -O2 $(pkg-config --cflags ccb) pgs.c -o pgs.so -lm
 * Use: ccb --plugin ./pgs.so run sphere --solver pgs; ccb --plugin ./pgs.so compare --variants
 * pgs,lagged. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"

#ifndef PGS_ABI /* the test suite builds a copy with another value, which ccb must refuse */
#define PGS_ABI CCB_ABI_VERSION
#endif

/* Its options: its own struct, which libccb keeps in the solver's options block
 * (ccb_options_block) and the descriptors below point into. */
typedef struct pgs_options {
    double tol;      /* --pgs-tolerance [m/s] */
    long max_sweeps; /* --max-sweeps */
} pgs_options;

typedef struct pgs_ws {
    ccb_dual* dual; /* the step in impulse space (ccb/dual.h) */
    int nv, nc;
    double *v, *vc, *gamma;
    char msg[256];
} pgs_ws;

static void ws_clear(pgs_ws* w) {
    free(w->v);
    free(w->vc);
    free(w->gamma);
    w->v = w->vc = w->gamma = NULL;
}

static ccb_status check(const ccb_sim_params* p, char* msg, size_t n) {
    const pgs_options* o = ccb_sim_params_solver_options(p);
    if (!(o->tol > 0) || !(o->max_sweeps >= 1)) {
        snprintf(msg, n,
                 "pgs: tolerance must be > 0 and max-sweeps >= 1 (got %g, %ld); select the "
                 "solver with ccb_sim_params_set_solver for its defaults",
                 o->tol, o->max_sweeps);
        return CCB_E_INVALID;
    }
    return CCB_OK;
}

static ccb_status create(ccb_sim* sim, char* msg, size_t n) {
    pgs_ws* w = calloc(1, sizeof *w);
    if (w == NULL || ccb_dual_create(&w->dual) != CCB_OK) {
        free(w);
        snprintf(msg, n, "pgs: out of memory");
        return CCB_E_NOMEM;
    }
    ccb_sim_set_solver_data(sim, w);
    return CCB_OK;
}

static void destroy(ccb_sim* sim) {
    pgs_ws* w = ccb_sim_solver_data(sim);
    if (w) {
        ws_clear(w);
        ccb_dual_destroy(w->dual);
        free(w);
    }
    ccb_sim_set_solver_data(sim, NULL);
}

static ccb_status solve(ccb_sim* sim, const ccb_step_context* step, const double* guess,
                        double* counter, const double** v, const double** vc,
                        const double** gamma) {
    (void)step, (void)guess; /* impulse space: every step starts from gamma = 0 (v = v*) */
    pgs_ws* w = ccb_sim_solver_data(sim);
    const ccb_problem* p = ccb_sim_problem(sim);
    const pgs_options* opt = ccb_sim_solver_options(sim);
    const double tol = opt->tol;
    const long max_sweeps = opt->max_sweeps;
    ws_clear(w);
    w->msg[0] = '\0';
    w->nv = ccb_problem_nv(p);
    w->nc = ccb_problem_nc(p);
    char why[200];
    ccb_status s = ccb_dual_setup(w->dual, p, why, sizeof why);
    if (s != CCB_OK) {
        snprintf(w->msg, sizeof w->msg, "pgs: setting up the step failed (%s)", why);
        return s;
    }
    const size_t nv = (size_t)(w->nv > 0 ? w->nv : 1), nc3 = (size_t)(w->nc > 0 ? 3 * w->nc : 1);
    w->v = calloc(nv, sizeof(double));
    w->vc = calloc(nc3, sizeof(double));
    w->gamma = calloc(nc3, sizeof(double));
    if (!w->v || !w->vc || !w->gamma) {
        snprintf(w->msg, sizeof w->msg, "pgs: out of memory");
        return CCB_E_NOMEM;
    }
    memcpy(w->v, ccb_problem_vstar(p), (size_t)w->nv * sizeof(double)); /* gamma = 0 */
    const ccb_approx* ap = ccb_problem_approx(p);
    long sweep = 0;
    double change = INFINITY;
    while (change > tol && sweep < max_sweeps) {
        change = 0.0;
        for (int i = 0; i < w->nc; ++i) {
            const ccb_constraint* c = ccb_problem_constraint(p, i);
            double* gi = w->gamma + 3 * i;
            const double* W = ccb_dual_delassus(w->dual, i);
            double y[3], yt[3], gn[3];
            ccb_dual_contact_velocity(w->dual, i, w->v, y);
            if (gi[0] == 0 && gi[1] == 0 && gi[2] == 0 &&
                ccb_constraint_inactive_radius(ap, c, y) >= 0) {
                continue; /* inactive at its velocity and carrying nothing: already solved */
            }
            for (int r = 0; r < 3; ++r) {
                yt[r] = y[r] - (W[3 * r] * gi[0] + W[3 * r + 1] * gi[1] + W[3 * r + 2] * gi[2]);
            }
            if (ccb_dual_block_solve(ap, c, W, yt, y, gn) != 0) {
                snprintf(w->msg, sizeof w->msg,
                         "pgs: the block problem of contact %d did not converge in sweep %ld", i,
                         sweep + 1);
                return CCB_E_NOTCONV;
            }
            double dg[3] = {gn[0] - gi[0], gn[1] - gi[1], gn[2] - gi[2]};
            for (int r = 0; r < 3; ++r) {
                const double dv = W[3 * r] * dg[0] + W[3 * r + 1] * dg[1] + W[3 * r + 2] * dg[2];
                change = fmax(change, fabs(dv));
            }
            ccb_dual_add_impulse(w->dual, i, dg, w->v);
            memcpy(gi, gn, sizeof gn);
        }
        ++sweep;
        if (!isfinite(change)) {
            snprintf(w->msg, sizeof w->msg, "pgs: a non-finite impulse in sweep %ld", sweep);
            return CCB_E_NONFINITE;
        }
    }
    counter[CCB_CNT_ITERATIONS] = (double)sweep;
    counter[CCB_CNT_RESIDUAL] = change;
    counter[CCB_CNT_TOLERANCE] = tol;
    for (int i = 0; i < w->nc; ++i) {
        ccb_dual_contact_velocity(w->dual, i, w->v, w->vc + 3 * i);
    }
    *v = w->v;
    *vc = w->vc;
    *gamma = w->gamma;
    if (change > tol) {
        snprintf(w->msg, sizeof w->msg,
                 "pgs: %ld sweeps without convergence (largest contact-velocity change %.3g m/s "
                 "> tolerance %g)",
                 sweep, change, tol);
        return CCB_E_NOTCONV;
    }
    return CCB_OK;
}

static double stiction(const ccb_sim* sim, int i, const double gamma[3]) {
    const ccb_problem* p = ccb_sim_problem(sim);
    return ccb_problem_approx(p)->stiction_tolerance(ccb_problem_constraint(p, i), gamma);
}

static const char* last_error(const ccb_sim* sim) {
    const pgs_ws* w = ccb_sim_solver_data(sim);
    return w ? w->msg : "pgs: no workspace";
}

static const ccb_option_desc k_options[] = {
    {.name = "pgs-tolerance",
     .type = CCB_OPT_REAL,
     .storage = CCB_STORE_DOUBLE,
     .offset = offsetof(pgs_options, tol),
     .min = 0,
     .min_open = 1,
     .max = 1,
     .def = 1e-6,
     .unit = "m/s",
     .doc = "a sweep that changes no contact velocity by more than this ends the solve"},
    {.name = "max-sweeps",
     .type = CCB_OPT_INT,
     .storage = CCB_STORE_LONG,
     .offset = offsetof(pgs_options, max_sweeps),
     .min = 1,
     .max = 1e7,
     .def = 10000,
     .unit = "",
     .doc = "Gauss-Seidel sweeps before the step fails"},
};

static const ccb_solver_type k_pgs = {
    .abi = PGS_ABI,
    .name = "pgs",
    .title = "projected Gauss-Seidel on the convex approximation's dual (plugin)",
    .reference = "plugins/pgs/pgs.c; formulation-convex §1.2",
    .flags = CCB_SOLVER_CONVEX,
    .iterations = "sweeps",
    .notes = "block coordinate descent on the dual of the step's convex problem: one exact 3-D "
             "block solve per contact (Newton with backtracking on the approximation's eval), "
             "contacts in the problem's order, every step from gamma = 0; stops when a sweep "
             "moves no contact velocity by more than --pgs-tolerance.",
    .options = k_options,
    .noptions = (int)(sizeof k_options / sizeof k_options[0]),
    .options_size = sizeof(pgs_options),
    .check = check,
    .create = create,
    .destroy = destroy,
    .solve = solve,
    .stiction = stiction,
    .last_error = last_error,
};

/* The plugin's entry points (docs/architecture.md §5). */
const int ccb_plugin_abi = PGS_ABI;
int ccb_plugin_register(char* msg, size_t n);
int ccb_plugin_register(char* msg, size_t n) {
    return ccb_solver_register(&k_pgs, msg, n) == CCB_OK ? 0 : 1;
}
