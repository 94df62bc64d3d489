/* metrics: physics metrics of a step that do not depend on the solver (ccb/metrics.h;
 * formulation-convex §14). */
#include "ccb/metrics.h"

#include <math.h>
#include <string.h>

#include "problem_internal.h"
#include "sim_internal.h"

void ccb_physics_add_contact(const double g[3], const double vc[3], double phi, double mu,
                             ccb_physics_metrics* m) {
    const double gt = hypot(g[0], g[1]), vt = hypot(vc[0], vc[1]);
    m->signorini += fabs(g[2] * phi);
    m->cone += fmax(gt - mu * g[2], 0.0);
    m->dissipation += g[0] * vc[0] + g[1] * vc[1] + mu * g[2] * vt;
    m->complementarity += fabs(g[0] * vc[0] + g[1] * vc[1] + g[2] * (vc[2] + mu * vt));
}

/* |D (A (v - v*) - J^T gamma)| / max(|D A (v - v0)|, |D J^T gamma|) over the participating
 * velocities (the others have v = v* and no contact: no residual). */
static ccb_status momentum_residual(ccb_sim* sim, double* out) {
    const ccb_problem* p = sim->problem;
    const int n = p->npv;
    if (n == 0) {
        *out = 0.0;
        return CCB_OK;
    }
    if (ccb_grow((void**)&sim->metrics_ws, &sim->cap_metrics, 5 * n + 3 * p->nc, sizeof(double)) !=
        CCB_OK) {
        return CCB_E_NOMEM;
    }
    double *x = sim->metrics_ws, *x0 = x + n, *ax = x + 2 * n, *ax0 = x + 3 * n, *jg = x + 4 * n,
           *g = x + 5 * n;
    for (int a = 0; a < p->np; ++a) {
        const int c = p->pclique[a], off = p->clique_voff[c];
        for (int j = 0; j < p->clique_nv[c]; ++j) {
            x[p->pvoff[a] + j] = sim->v[off + j] - p->vstar[off + j];
            x0[p->pvoff[a] + j] = sim->v[off + j] - p->v0[off + j];
        }
    }
    for (int i = 0; i < p->nc; ++i) {
        const ccb_contact_result* r = &sim->results[p->contacts[i].contact];
        memcpy(g + 3 * i, r->gamma, sizeof r->gamma);
    }
    ccb_problem_A_mul(p, x, ax);
    ccb_problem_A_mul(p, x0, ax0);
    ccb_problem_Jt_mul(p, g, jg);
    double nr = 0, np_ = 0, nj = 0;
    for (int a = 0; a < p->np; ++a) {
        const int c = p->pclique[a], off = p->clique_voff[c];
        for (int j = 0; j < p->clique_nv[c]; ++j) {
            const int k = p->pvoff[a] + j;
            const double d2 = 1.0 / p->Adiag[off + j]; /* D^2 = diag(A)^-1 */
            nr += d2 * (ax[k] - jg[k]) * (ax[k] - jg[k]);
            np_ += d2 * ax0[k] * ax0[k];
            nj += d2 * jg[k] * jg[k];
        }
    }
    const double scale = sqrt(fmax(np_, nj));
    *out = scale > 0 ? sqrt(nr) / scale : sqrt(nr);
    return CCB_OK;
}

ccb_status ccb_sim_physics_metrics(ccb_sim* sim, ccb_physics_metrics* m) {
    if (sim == NULL || m == NULL || sim->nsteps == 0) {
        return CCB_E_INVALID;
    }
    memset(m, 0, sizeof *m);
    const int frozen = sim->solver->solve != NULL; /* geometry at the step's start */
    for (int i = 0; i < sim->nresults; ++i) {
        const ccb_contact_result* r = &sim->results[i];
        /* the gap at the end of the step: first order in a frozen step
         * (formulation-convex §1.3); an integrator's contacts are queried at the end of the
         * interval */
        const double phi = r->geometry.phi0 + (frozen ? sim->h_last * r->vc[2] : 0.0);
        if (r->gamma[0] == 0.0 && r->gamma[1] == 0.0 && r->gamma[2] == 0.0 && isfinite(phi) &&
            isfinite(r->vc[0]) && isfinite(r->vc[1]) && isfinite(r->vc[2])) {
            continue; /* every term is a signed zero and the sums start at +0: skipping them
                       * changes no bit (the speculative contacts of a margin) */
        }
        const ccb_material* mt = &r->geometry.material;
        if (mt->mu2 > 0 && mt->mu2 != mt->mu) {
            /* anisotropic friction: the isotropic terms of mu_min in the scaled variables
             * gamma_t A^-1, A v_t (formulation-convex §18.2): the cone |M^-1 gamma_t| <= gamma_n
             * times mu_min, the dissipation against gamma_n |M v_t| */
            const double mu = fmin(mt->mu, mt->mu2), a0 = mt->mu / mu, a1 = mt->mu2 / mu;
            const double g[3] = {r->gamma[0] / a0, r->gamma[1] / a1, r->gamma[2]};
            const double v[3] = {a0 * r->vc[0], a1 * r->vc[1], r->vc[2]};
            ccb_physics_add_contact(g, v, phi, mu, m);
            continue;
        }
        ccb_physics_add_contact(r->gamma, r->vc, phi, mt->mu, m);
    }
    m->momentum = NAN;
    return sim->solver->solve ? momentum_residual(sim, &m->momentum) : CCB_OK;
}
