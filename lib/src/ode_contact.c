/* ode_contact: the continuous compliant point-contact model with regularized friction as an
 * ODE x' = f(t, x), x = (q, v) (spec: formulation-tamsi-hydro §A; TAMSI paper §II, eqs. 1-8).
 *
 *   q' = N(q) v
 *   M(q) v' = k2(t, q, v) - D v + sum_i J_i(q)^T f_i          (k2: gravity, applied, gyroscopic)
 *   f_i = (ft1, ft2, fn) in the contact frame of contact i at q:
 *     fn = k (1 - d vn)+ (-phi)+                                          (eq. 5,
 * formulation-tamsi-hydro §A.2)
 *     ft = -mu~(s) fn vt/|vt| = -fn (mu~(s)/s) vt/v_s,  s = |vt|/v_s       (eqs. 6-7,
 * formulation-tamsi-hydro §A.3) with the contact set of the model's geometry at q (only phi < 0
 * touches), J_i the contact Jacobian of problem.c (rows t1, t2, n; body B minus body A), vc = J v
 * plus the velocity of bodies without coordinates at time t. The configuration is not frozen: every
 * evaluation queries the geometry at its own q. mu~(s)/s is evaluated without the 0/0 at vt = 0
 * (ccb_friction_ratio), so no soft norm is needed in the continuous model. */
#include <math.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/ode.h"
#include "dense.h"
#include "problem_internal.h"

struct ccb_contact_ode {
    const ccb_model* m;
    ccb_contact_ode_params prm;
    ccb_ode_system sys;
    ccb_contact_set cs;
    double* tau;        /* nv: generalized forces */
    double *vc, *f;     /* 3 per contact */
    ccb_ode_slip* slip; /* per contact */
    int cap_c;
    char msg[CCB_MSG_SIZE];
};

ccb_contact_ode_params ccb_contact_ode_params_default(void) {
    ccb_contact_ode_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.friction = CCB_FRICTION_STRIBECK5;
    p.rho = 1e-2;
    return p;
}

const char* ccb_contact_ode_last_error(const ccb_contact_ode* co) {
    return co ? co->msg : "contact ODE is NULL";
}

/* Contacts at q (phi < margin), their velocities and forces at (t, v). */
static ccb_status eval_contacts(ccb_contact_ode* co, double t, const double* q, const double* v,
                                double margin, int add_to_tau) {
    const ccb_model* m = co->m;
    ccb_status s = ccb_geometry_query(m, t, q, margin, &co->cs, co->msg, sizeof co->msg);
    if (s != CCB_OK) {
        return s;
    }
    const int nc = co->cs.n;
    void** const ci[] = {(void**)&co->vc, (void**)&co->f, (void**)&co->slip};
    const size_t csz[] = {3 * sizeof(double), 3 * sizeof(double), sizeof(ccb_ode_slip)};
    if (ccb_grow_many(ci, csz, 3, &co->cap_c, nc > 0 ? nc : 1)) {
        return ccb_errorf(co->msg, sizeof co->msg, CCB_E_NOMEM, "contact ODE: out of memory");
    }
    const ccb_contact_ode_params* p = &co->prm;
    for (int i = 0; i < nc; ++i) {
        const ccb_contact* ct = &co->cs.items[i];
        const int body[2] = {ct->body_b, ct->body_a};
        const double sign[2] = {1.0, -1.0};
        double J[2][3 * CCB_MAX_TREE_NV];
        int blk_clique[2] = {-1, -1}, nblk = 0;
        double* vc = co->vc + 3 * i;
        ccb_vec3 bias = ccb_v3(0, 0, 0);
        vc[0] = vc[1] = vc[2] = 0.0;
        for (int side = 0; side < 2; ++side) {
            const ccb_body* b = &m->bodies[body[side]];
            const ccb_vec3 u = b->nv == 0 ? ccb_passive_point_velocity(b, t, ct->p)
                                          : ccb_tree_anchor_point_velocity(m, body[side], t, ct->p);
            bias = ccb_v3_add(bias, ccb_v3_scale(sign[side], u));
            if (b->nv == 0) {
                continue;
            }
            /* both sides on one tree share its block (formulation-convex §17.5) */
            const int shared = nblk == 1 && blk_clique[0] == b->clique;
            ccb_contact_jacobian_block(m, body[side], t, q, ct, sign[side], !shared,
                                       J[shared ? 0 : nblk]);
            if (!shared) {
                blk_clique[nblk++] = b->clique;
            }
        }
        for (int k = 0; k < nblk; ++k) {
            const int c = blk_clique[k], nvc = m->clique_nv[c], off = m->clique_voff[c];
            for (int r = 0; r < 3; ++r) {
                for (int j = 0; j < nvc; ++j) {
                    vc[r] += J[k][r * nvc + j] * v[off + j];
                }
            }
        }
        const ccb_vec3 bC = ccb_m3_tmul_v(&ct->R_WC, bias);
        vc[0] += bC.x;
        vc[1] += bC.y;
        vc[2] += bC.z;
        /* formulation-tamsi-hydro §A.2: fn = k (1 - d vn)+ (-phi)+ */
        const double x1 = 1.0 - ct->material.d * vc[2], delta = -ct->phi0;
        const double fn = ct->material.k * (x1 > 0 ? x1 : 0.0) * (delta > 0 ? delta : 0.0);
        /* formulation-tamsi-hydro §A.3: ft = -fn (mu~(s)/s) vt/v_s (anisotropic:
         * formulation-convex §18.3) */
        double* f = co->f + 3 * i;
        ccb_friction_force(p->friction, ct->material.mu, ct->material.mu2, fn, vc, co->sys.vs, f);
        f[2] = fn;
        co->slip[i].key = ((long long)ct->shape_a << 42) | ((long long)ct->shape_b << 21) |
                          (long long)ct->feature;
        co->slip[i].vt[0] = vc[0];
        co->slip[i].vt[1] = vc[1];
        if (!add_to_tau || fn == 0.0) {
            continue;
        }
        for (int k = 0; k < nblk; ++k) { /* tau += J^T f */
            const int c = blk_clique[k], nvc = m->clique_nv[c], off = m->clique_voff[c];
            for (int j = 0; j < nvc; ++j) {
                co->tau[off + j] +=
                    J[k][j] * f[0] + J[k][nvc + j] * f[1] + J[k][2 * nvc + j] * f[2];
            }
        }
    }
    return CCB_OK;
}

static ccb_status ode_f(void* user, double t, const double* x, double* xdot) {
    ccb_contact_ode* co = user;
    const ccb_model* m = co->m;
    const double* q = x;
    const double* v = x + m->nq;
    /* non-contact forces k2 - D v, per tree */
    for (int c = 0; c < m->nclique; ++c) {
        const int nvc = m->clique_nv[c], off = m->clique_voff[c];
        ccb_clique_generalized_force(m, c, t, q, v, co->tau + off);
        for (int k = 0; k < nvc; ++k) {
            co->tau[off + k] -= ccb_clique_damping(m, c, k) * v[off + k];
        }
    }
    /* contacts touching at q */
    ccb_status s = eval_contacts(co, t, q, v, 0.0, 1);
    if (s != CCB_OK) {
        return s;
    }
    /* v' = M^{-1} tau per tree, q' = N(q) v per body */
    for (int c = 0; c < m->nclique; ++c) {
        const int nvc = m->clique_nv[c], off = m->clique_voff[c];
        double M[CCB_MAX_TREE_NV * CCB_MAX_TREE_NV];
        ccb_clique_mass_matrix(m, c, t, q, M);
        if (ccb_dense_cholesky(nvc, M)) {
            return ccb_errorf(co->msg, sizeof co->msg, CCB_E_FACTOR,
                              "body '%s': mass matrix is not positive definite",
                              m->bodies[m->clique_body[c]].name);
        }
        double* vd = xdot + m->nq + off;
        memcpy(vd, co->tau + off, (size_t)nvc * sizeof(double));
        ccb_dense_chol_solve(nvc, M, vd);
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->nv > 0) {
            ccb_body_qdot(b, q + b->qoff, v + b->voff, xdot + b->qoff);
        }
    }
    return CCB_OK;
}

static ccb_status ode_slip(void* user, double t, const double* x, const ccb_ode_slip** out,
                           int* n) {
    ccb_contact_ode* co = user;
    const ccb_status s = eval_contacts(co, t, x, x + co->m->nq, 0.0, 0);
    if (s != CCB_OK) {
        return s;
    }
    /* sort by key (insertion sort: a handful of contacts, already nearly ordered) */
    ccb_ode_slip* sl = co->slip;
    for (int i = 1; i < co->cs.n; ++i) {
        const ccb_ode_slip e = sl[i];
        int j = i - 1;
        while (j >= 0 && sl[j].key > e.key) {
            sl[j + 1] = sl[j];
            --j;
        }
        sl[j + 1] = e;
    }
    *out = sl;
    *n = co->cs.n;
    return CCB_OK;
}

ccb_status ccb_contact_ode_create(const ccb_model* m, const ccb_contact_ode_params* p, double vs,
                                  ccb_contact_ode** out, char* msg, size_t n) {
    if (out == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "contact_ode_create: NULL output pointer");
    }
    *out = NULL;
    if (m == NULL || !m->finalized || p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "contact_ode_create: model is NULL or not finalized, or no parameters");
    }
    if (ccb_friction_name(p->friction) == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "contact ODE: unknown friction model %d",
                          (int)p->friction);
    }
    if (!(isfinite(vs) && vs > 0) || !(p->rho > 0 && p->rho < 1)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "contact ODE: v_s must be finite and > 0 and rho in (0, 1) (got %g, %g)",
                          vs, p->rho);
    }
    if (m->nq + m->nv < 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "contact ODE: the model has no coordinates");
    }
    ccb_contact_ode* co = ccb_calloc(1, sizeof(ccb_contact_ode));
    if (co == NULL ||
        (co->tau = ccb_calloc((size_t)(m->nv > 0 ? m->nv : 1), sizeof(double))) == NULL) {
        ccb_free(co);
        return ccb_errorf(msg, n, CCB_E_NOMEM, "contact ODE: out of memory");
    }
    co->m = m;
    co->prm = *p;
    co->sys.nx = m->nq + m->nv;
    co->sys.f = ode_f;
    co->sys.slip = ode_slip;
    co->sys.vs = vs;
    co->sys.rho = p->rho;
    co->sys.user = co;
    *out = co;
    return CCB_OK;
}

void ccb_contact_ode_destroy(ccb_contact_ode* co) {
    if (co == NULL) {
        return;
    }
    ccb_contact_set_free(&co->cs);
    ccb_free(co->tau);
    ccb_free(co->vc);
    ccb_free(co->f);
    ccb_free(co->slip);
    ccb_free(co);
}

const ccb_ode_system* ccb_contact_ode_system(const ccb_contact_ode* co) {
    return co ? &co->sys : NULL;
}

ccb_status ccb_contact_ode_contacts(ccb_contact_ode* co, double t, const double* x, double margin,
                                    int* nc, const ccb_contact** contacts, const double** vc,
                                    const double** f) {
    if (co == NULL || x == NULL || nc == NULL || !(margin >= 0)) {
        return CCB_E_INVALID;
    }
    const ccb_status s = eval_contacts(co, t, x, x + co->m->nq, margin, 0);
    if (s != CCB_OK) {
        return s;
    }
    *nc = co->cs.n;
    if (contacts) {
        *contacts = co->cs.items;
    }
    if (vc) {
        *vc = co->vc;
    }
    if (f) {
        *f = co->f;
    }
    return CCB_OK;
}
