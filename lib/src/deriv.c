/* deriv: derivatives of a convex step by the implicit function theorem
 * (spec: formulation-convex §9; ICF §X-B, eq. (29)). ccb/deriv.h states the method; this file builds the step problem at
 * the linearization point and at theta +- h dtheta with the simulation's own geometry query and
 * problem builder, evaluates the residual of formulation-convex §1.2 at the fixed solution v1,
 * and solves with H = A + J^T G J (the Newton solver's matrix, formulation-convex §8.2). */
#include <math.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/deriv.h"
#include "dense.h"
#include "sim_internal.h"
#include "sparse.h"

struct ccb_deriv {
    const ccb_model* m;
    ccb_sim_params prm;
    ccb_deriv_params dp;
    double t0;
    int nq, nv, ready, has_u;
    ccb_problem *pb, *pw;   /* at the linearization point; at a perturbed one */
    ccb_contact_set cs, cw; /* their contacts */
    ccb_sparse* sp;         /* H over the participating cliques */
    int* bs;
    int cap_bs;
    /* nq: q0, perturbed q, integrator scratch; nv: v0, v1, perturbed v0, residuals, rhs */
    double *q0, *qw, *qa, *qb;
    int cap_q;
    double *v0, *v1, *vw, *rp, *rm, *g, *red, *redr, *va, *vb, *u, *D2;
    double rscale; /* |A v1| + |A v*| + |J^T gamma| at the linearization [N s], for round-off */
    int cap_v;
    double *vc, *gam, *G; /* 3 nc, 3 nc, 9 nc */
    int cap_c;
    ccb_deriv_stats st;
    char msg[CCB_MSG_SIZE];
};

ccb_step_dir ccb_step_dir_zero(void) {
    ccb_step_dir d;
    memset(&d, 0, sizeof d);
    d.contact = -1;
    return d;
}

ccb_deriv_params ccb_deriv_params_default(void) {
    ccb_deriv_params p = {1e-7, -1};
    return p;
}

ccb_status ccb_deriv_create(ccb_deriv** out) {
    if (out == NULL) {
        return CCB_E_INVALID;
    }
    *out = NULL;
    ccb_deriv* d = ccb_calloc(1, sizeof(ccb_deriv));
    if (d == NULL) {
        return CCB_E_NOMEM;
    }
    if (ccb_problem_create(&d->pb) != CCB_OK || ccb_problem_create(&d->pw) != CCB_OK ||
        ccb_sparse_create(&d->sp) != CCB_OK) {
        ccb_deriv_destroy(d);
        return CCB_E_NOMEM;
    }
    *out = d;
    return CCB_OK;
}

void ccb_deriv_destroy(ccb_deriv* d) {
    if (d == NULL) {
        return;
    }
    ccb_problem_destroy(d->pb);
    ccb_problem_destroy(d->pw);
    if (d->sp) {
        ccb_sparse_destroy(d->sp);
    }
    ccb_contact_set_free(&d->cs);
    ccb_contact_set_free(&d->cw);
    void* const arrays[] = {d->bs, d->q0, d->v0, d->vc};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) {
        ccb_free(arrays[k]);
    }
    ccb_free(d);
}

const char* ccb_deriv_last_error(const ccb_deriv* d) {
    return d ? d->msg : "ccb_deriv: NULL";
}

ccb_deriv_stats ccb_deriv_get_stats(const ccb_deriv* d) {
    ccb_deriv_stats s;
    memset(&s, 0, sizeof s);
    return d ? d->st : s;
}

static ccb_status fail(ccb_deriv* d, ccb_status s, const char* what) {
    return ccb_errorf(d->msg, sizeof d->msg, s, "derivative: %s", what);
}

/* One allocation per size class, carved into the vectors. */
static ccb_status reserve(ccb_deriv* d, int nq, int nv, int nc) {
    if (ccb_grow((void**)&d->q0, &d->cap_q, 4 * (nq > 0 ? nq : 1), sizeof(double)) ||
        ccb_grow((void**)&d->v0, &d->cap_v, 12 * (nv > 0 ? nv : 1), sizeof(double)) ||
        ccb_grow((void**)&d->vc, &d->cap_c, 15 * (nc > 0 ? nc : 1), sizeof(double))) {
        return fail(d, CCB_E_NOMEM, "out of memory");
    }
    const int sq = d->cap_q / 4, sv = d->cap_v / 12, sc = d->cap_c / 15;
    d->qw = d->q0 + sq, d->qa = d->q0 + 2 * sq, d->qb = d->q0 + 3 * sq;
    double** const vv[] = {&d->v1,   &d->vw, &d->rp, &d->rm, &d->g, &d->red,
                           &d->redr, &d->va, &d->vb, &d->u,  &d->D2};
    for (int k = 0; k < 11; ++k) {
        *vv[k] = d->v0 + (size_t)(k + 1) * (size_t)sv;
    }
    d->gam = d->vc + 3 * sc;
    d->G = d->vc + 6 * sc;
    return CCB_OK;
}

/* The step problem of the simulation at (t0, q, v0) with the contacts `cs` (already queried), the
 * stiction tolerance vs: every contact complete (no deferral), no lazy pairs. */
static ccb_status build(ccb_deriv* d, ccb_problem* pb, const double* q, const double* v,
                        const ccb_contact_set* cs, double vs) {
    ccb_problem_params pp = d->prm.problem;
    pp.defer_inactive = 0;
    pp.u = d->has_u ? d->u : NULL; /* the simulation's applied force (ccb_sim_set_force) */
    const ccb_step_context step = {d->t0, d->prm.dt, vs};
    const ccb_status s = ccb_problem_build(pb, d->m, d->prm.approx, &pp, &step, q, v, cs);
    if (s != CCB_OK) {
        return ccb_errorf(d->msg, sizeof d->msg, s, "derivative: step problem: %s",
                          ccb_problem_last_error(pb));
    }
    return CCB_OK;
}

/* r (nv) = A (v - v*) - J^T gamma(J v + b) over every clique at the full velocities v
 * (formulation-convex §1.2; the cliques without contacts have r = A (v - v*)). With G != NULL
 * also the contacts' Hessians G = -dgamma/dv_c (9 per contact). */
static void residual(ccb_deriv* d, const ccb_problem* pb, const double* v, double* r, double* G) {
    for (int c = 0; c < pb->nclique; ++c) {
        const int n = pb->clique_nv[c], o = pb->clique_voff[c];
        const double* A = pb->A + pb->clique_aoff[c];
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) {
                s += A[i * n + j] * (v[o + j] - pb->vstar[o + j]);
            }
            r[o + i] = s;
        }
    }
    if (pb->nc == 0) {
        return;
    }
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        memcpy(d->red + pb->pvoff[a], v + pb->clique_voff[c],
               (size_t)pb->clique_nv[c] * sizeof(double));
    }
    ccb_problem_J_mul(pb, d->red, 1, d->vc);
    for (int i = 0; i < pb->nc; ++i) {
        ccb_constraint_eval(pb->approx, &pb->contacts[i].c, d->vc + 3 * i, d->gam + 3 * i,
                            G ? G + 9 * i : NULL);
    }
    ccb_problem_Jt_mul(pb, d->gam, d->redr);
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        for (int j = 0; j < pb->clique_nv[c]; ++j) {
            r[pb->clique_voff[c] + j] -= d->redr[pb->pvoff[a] + j];
        }
    }
}

/* H = A + J^T G J over the participating cliques into d->sp, factored (formulation-convex §8.2). */
static ccb_status factor(ccb_deriv* d) {
    const ccb_problem* pb = d->pb;
    if (pb->np == 0) {
        return CCB_OK;
    }
    if (ccb_grow((void**)&d->bs, &d->cap_bs, pb->np, sizeof(int))) {
        return fail(d, CCB_E_NOMEM, "out of memory");
    }
    for (int a = 0; a < pb->np; ++a) {
        d->bs[a] = pb->clique_nv[pb->pclique[a]];
    }
    ccb_status s =
        ccb_sparse_set_pattern(d->sp, pb->np, d->bs, pb->nedge, pb->edges, d->msg, sizeof d->msg);
    if (s != CCB_OK) {
        return s;
    }
    ccb_sparse_zero(d->sp);
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a], n = pb->clique_nv[c];
        memcpy(ccb_sparse_diag_block(d->sp, a), pb->A + pb->clique_aoff[c],
               (size_t)n * n * sizeof(double));
    }
    for (int i = 0; i < pb->nc; ++i) {
        const ccb_pcontact* pc = &pb->contacts[i];
        const double* G = d->G + 9 * i;
        int pid[2], nvb[2];
        for (int k = 0; k < pc->nblk; ++k) {
            pid[k] = pb->clique_pidx[pc->clique[k]];
            nvb[k] = pb->clique_nv[pc->clique[k]];
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, k), nvb[k], G, ccb_pc_block(pb, pc, k),
                                 nvb[k], ccb_sparse_diag_block(d->sp, pid[k]));
        }
        if (pc->nblk == 2) {
            const int lo = pid[0] < pid[1] ? 0 : 1, hi = 1 - lo;
            const int e = ccb_sparse_find_edge(d->sp, pid[lo], pid[hi]);
            if (e < 0) {
                return fail(d, CCB_E_INTERNAL, "a contact's clique pair is not in the pattern");
            }
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, lo), nvb[lo], G, ccb_pc_block(pb, pc, hi),
                                 nvb[hi], ccb_sparse_edge_block(d->sp, e));
        }
    }
    const int ls =
        d->dp.linear_solver >= 0 ? d->dp.linear_solver : (int)d->prm.newton.linear_solver;
    const ccb_sparse_backend be = ls == CCB_LINSOLVE_CHOLMOD ? CCB_SPARSE_CHOLMOD
                                  : ls == CCB_LINSOLVE_DENSE ? CCB_SPARSE_DENSE
                                  : ls == CCB_LINSOLVE_BLOCK ? CCB_SPARSE_BLOCK
                                                             : CCB_SPARSE_AUTO;
    ccb_sparse_set_skip(d->sp, NULL);
    s = ccb_sparse_factor(d->sp, be, d->msg, sizeof d->msg);
    d->st.factorizations++;
    return s;
}

ccb_status ccb_deriv_linearize(ccb_deriv* d, const ccb_sim* sim, const ccb_deriv_params* params,
                               double t0, const double* q0, const double* v0, const double* v1) {
    if (d == NULL) {
        return CCB_E_INVALID;
    }
    d->ready = 0;
    const double tic = ccb_wall_time();
    if (sim == NULL || q0 == NULL || v0 == NULL || v1 == NULL) {
        return fail(d, CCB_E_INVALID, "linearize: NULL argument");
    }
    const ccb_sim_params* prm = ccb_sim_params_get(sim);
    if (prm->solver != CCB_SOLVER_NEWTON) {
        return ccb_errorf(d->msg, sizeof d->msg, CCB_E_INVALID,
                          "derivative: the step of solver '%s' is not a convex problem (use the "
                          "Newton solver with a convex approximation)",
                          ccb_solver_name(prm->solver));
    }
    if (prm->ec.enabled) {
        return fail(d, CCB_E_INVALID,
                    "linearize: error control changes the step inside the interval; "
                    "derivatives need fixed steps");
    }
    d->dp = params ? *params : ccb_deriv_params_default();
    if (!(d->dp.h_rel >= 1e-12 && d->dp.h_rel <= 1e-2)) {
        return ccb_errorf(d->msg, sizeof d->msg, CCB_E_INVALID,
                          "derivative: h_rel = %g is outside [1e-12, 1e-2]", d->dp.h_rel);
    }
    if (d->dp.linear_solver < -1 || d->dp.linear_solver > CCB_LINSOLVE_BLOCK) {
        return ccb_errorf(d->msg, sizeof d->msg, CCB_E_INVALID,
                          "derivative: linear_solver = %d is not a ccb_linear_solver",
                          d->dp.linear_solver);
    }
    d->m = ccb_sim_model(sim);
    d->prm = *prm;
    d->t0 = t0;
    d->nq = ccb_model_nq(d->m);
    d->nv = ccb_model_nv(d->m);
    if (!isfinite(t0) || !ccb_all_finite(q0, (size_t)d->nq) || !ccb_all_finite(v0, (size_t)d->nv) ||
        !ccb_all_finite(v1, (size_t)d->nv)) {
        return fail(d, CCB_E_NONFINITE, "linearize: non-finite t0, q0, v0 or v1");
    }
    ccb_status s = ccb_geometry_query(d->m, t0, q0, prm->margin, &d->cs, d->msg, sizeof d->msg);
    if (s != CCB_OK) {
        return s;
    }
    if ((s = reserve(d, d->nq, d->nv, d->cs.n)) != CCB_OK) {
        return s;
    }
    memcpy(d->q0, q0, (size_t)d->nq * sizeof(double));
    memcpy(d->v0, v0, (size_t)d->nv * sizeof(double));
    memcpy(d->v1, v1, (size_t)d->nv * sizeof(double));
    const double* u = ccb_sim_force(sim);
    d->has_u = u != NULL;
    if (u) {
        memcpy(d->u, u, (size_t)d->nv * sizeof(double));
    }
    if ((s = build(d, d->pb, q0, v0, &d->cs, prm->vs)) != CCB_OK) {
        return s;
    }
    /* the residual at the solution and its scale: how well v1 solves the step (a derivative is
     * as accurate as that) */
    residual(d, d->pb, d->v1, d->rp, d->G);
    double res = 0.0, sa = 0.0, sj = 0.0, s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < d->nv; ++i) {
        res = fmax(res, fabs(d->rp[i]));
        d->va[i] = d->v1[i] - d->v0[i];
    }
    for (int c = 0; c < d->pb->nclique; ++c) {
        const int n = d->pb->clique_nv[c], o = d->pb->clique_voff[c];
        const double* A = d->pb->A + d->pb->clique_aoff[c];
        for (int i = 0; i < n; ++i) {
            double t = 0.0, t1 = 0.0, t2 = 0.0;
            for (int j = 0; j < n; ++j) {
                t += A[i * n + j] * d->va[o + j];
                t1 += A[i * n + j] * d->v1[o + j];
                t2 += A[i * n + j] * d->pb->vstar[o + j];
            }
            sa = fmax(sa, fabs(t));
            s1 = fmax(s1, fabs(t1));
            s2 = fmax(s2, fabs(t2));
        }
    }
    for (int i = 0; i < d->pb->npv && d->pb->nc > 0; ++i) {
        sj = fmax(sj, fabs(d->redr[i]));
    }
    d->st.nv = d->nv;
    d->st.nc = d->pb->nc;
    d->st.residual = res;
    d->st.scale = sa + sj;
    d->rscale = s1 + s2 + sj;
    if (!ccb_all_finite(d->G, 9 * (size_t)d->pb->nc) || !isfinite(res)) {
        return fail(d, CCB_E_NONFINITE, "linearize: non-finite residual or contact Hessian at v1");
    }
    if ((s = factor(d)) != CCB_OK) {
        return s;
    }
    d->ready = 1;
    d->st.time_linearize += ccb_wall_time() - tic;
    return CCB_OK;
}

static int same_contacts(const ccb_contact_set* a, const ccb_contact_set* b) {
    if (a->n != b->n) {
        return 0;
    }
    for (int i = 0; i < a->n; ++i) {
        const ccb_contact *x = &a->items[i], *y = &b->items[i];
        if (x->body_a != y->body_a || x->body_b != y->body_b || x->shape_a != y->shape_a ||
            x->shape_b != y->shape_b || x->feature != y->feature) {
            return 0;
        }
    }
    return 1;
}

static double scaled(double x, double e) {
    return isinf(x) ? x : x * (1.0 + e);
}

/* r(v1) at theta + e dtheta into r. */
static ccb_status perturbed_residual(ccb_deriv* d, const ccb_step_dir* dir, double e, double* r) {
    for (int i = 0; i < d->nq; ++i) {
        d->qw[i] = d->q0[i] + (dir->dq0 ? e * dir->dq0[i] : 0.0);
    }
    for (int i = 0; i < d->nv; ++i) {
        d->vw[i] = d->v0[i] + (dir->dv0 ? e * dir->dv0[i] : 0.0);
    }
    ccb_status s =
        ccb_geometry_query(d->m, d->t0, d->qw, d->prm.margin, &d->cw, d->msg, sizeof d->msg);
    if (s != CCB_OK) {
        return s;
    }
    if (!same_contacts(&d->cs, &d->cw)) {
        return ccb_errorf(
            d->msg, sizeof d->msg, CCB_E_INVALID,
            "derivative: the step is not differentiable here: the contact set "
            "changes within the difference step (%d contacts at q0, %d at q0 %+g dq0)",
            d->cs.n, d->cw.n, e);
    }
    for (int i = 0; i < d->cw.n; ++i) {
        if (dir->contact >= 0 && dir->contact != i) {
            continue;
        }
        ccb_material* mt = &d->cw.items[i].material;
        mt->mu = scaled(mt->mu, e * dir->dmu);
        mt->mu2 = scaled(mt->mu2, e * dir->dmu);
        mt->k = scaled(mt->k, e * dir->dk);
        mt->d = scaled(mt->d, e * dir->dd);
        mt->tau_d = scaled(mt->tau_d, e * dir->dtau_d);
    }
    if ((s = build(d, d->pw, d->qw, d->vw, &d->cw, d->prm.vs * (1.0 + e * dir->dvs))) != CCB_OK) {
        return s;
    }
    d->st.residual_evals++;
    residual(d, d->pw, d->v1, r, NULL);
    return CCB_OK;
}

/* |x|_inf, NaN if an entry is (fmax would drop it) */
static double inf_norm(const double* x, int n) {
    double m = 0.0;
    for (int i = 0; x && i < n; ++i) {
        m = isnan(x[i]) ? NAN : fmax(m, fabs(x[i]));
        if (isnan(m)) {
            return m;
        }
    }
    return m;
}

ccb_status ccb_deriv_jvp(ccb_deriv* d, const ccb_step_dir* dir, double* dq1, double* dv1) {
    if (d == NULL) {
        return CCB_E_INVALID;
    }
    if (!d->ready || dir == NULL) {
        return fail(d, CCB_E_INVALID, "jvp: no linearized step (or dir is NULL)");
    }
    const double tic = ccb_wall_time();
    const double mat[5] = {dir->dmu, dir->dk, dir->dd, dir->dtau_d, dir->dvs};
    double size = fmax(inf_norm(dir->dq0, d->nq), inf_norm(dir->dv0, d->nv));
    int finite = 1;
    for (int k = 0; k < 5; ++k) {
        size = fmax(size, fabs(mat[k]));
        finite = finite && isfinite(mat[k]);
    }
    if (!finite || !isfinite(size) || !isfinite(inf_norm(dir->du, d->nv))) {
        return fail(d, CCB_E_NONFINITE, "jvp: non-finite direction");
    }
    if (dir->contact < -1 || dir->contact >= d->cs.n) {
        return ccb_errorf(d->msg, sizeof d->msg, CCB_E_INVALID,
                          "derivative: jvp: contact %d outside [-1, %d)", dir->contact, d->cs.n);
    }
    /* g = dr/dtheta dtheta: the differences of r at v1 (formulation-convex §9.2, eq. (9.3))
     * and the exact -dt du (formulation-convex §9.1, eq. (9.2)) */
    const int nv = d->nv, nq = d->nq;
    for (int i = 0; i < nv; ++i) {
        d->g[i] = 0.0;
    }
    d->st.partial_settled = 1, d->st.partial_spread = 0.0, d->st.partial_h = 0.0;
    if (size > 0.0) {
        /* Richardson's combinations of the central differences D at h, h/2, h/4:
         * R1 = (4 D(h/2) - D(h))/3 and R2 = (4 D(h/4) - D(h/2))/3 (formulation-convex §9.2,
         * eq. (9.3)). The residual at fixed v1 varies on the scale of the stiction tolerance and
         * may have a kink near v1 (a contact whose law is just active); R1 and R2 then disagree
         * and h shrinks tenfold, down to 1e-4 h_rel, until they agree to 1e-9 or to the
         * round-off of the differences; R1 (the less noisy) is kept, or the R1 of the round
         * whose two estimates agreed best (eq. (9.4)) */
        double h = d->dp.h_rel / size, spread = INFINITY, h_used = h;
        int settled = 0;
        for (int round = 0; round < 4; ++round, h *= 0.1) {
            double* Dk[3] = {d->va, d->D2, d->rp};
            for (int k = 0; k < 3; ++k) {
                const double hk = ldexp(h, -k);
                ccb_status s = perturbed_residual(d, dir, hk, d->rp);
                if (s == CCB_OK) {
                    s = perturbed_residual(d, dir, -hk, d->rm);
                }
                if (s != CCB_OK) {
                    return s;
                }
                for (int i = 0; i < nv; ++i) {
                    Dk[k][i] = (d->rp[i] - d->rm[i]) / (2.0 * hk);
                }
            }
            double diff = 0.0, mag = 0.0;
            for (int i = 0; i < nv; ++i) {
                const double r1 = (4.0 * d->D2[i] - d->va[i]) / 3.0;
                const double r2 = (4.0 * d->rp[i] - d->D2[i]) / 3.0;
                diff = fmax(diff, fabs(r1 - r2));
                mag = fmax(mag, fabs(r1));
            }
            /* round-off of R2 (the noisier): 2.2e-16 |terms of r| / (h/4), times 3 for the
             * combination */
            const double noise = 3.0 * 2.2e-16 * d->rscale / (0.25 * h);
            const double sp = diff / fmax(mag, noise);
            if (sp < spread) { /* the best round so far: keep its R1 */
                spread = sp, h_used = h;
                for (int i = 0; i < nv; ++i) {
                    d->g[i] = (4.0 * d->D2[i] - d->va[i]) / 3.0;
                }
            }
            if (diff <= fmax(1e-9 * mag, 10.0 * noise)) {
                settled = 1;
                break;
            }
        }
        d->st.partial_settled = settled;
        d->st.partial_spread = spread;
        d->st.partial_h = h_used;
    }
    for (int i = 0; dir->du && i < nv; ++i) {
        d->g[i] -= d->prm.dt * dir->du[i];
    }
    /* dv1 = -H^-1 g: participating cliques through the factorization of H, the others through
     * A's own Cholesky factors (H = A there) */
    const ccb_problem* pb = d->pb;
    double* x = d->vb;
    for (int c = 0; c < pb->nclique; ++c) {
        const int n = pb->clique_nv[c], o = pb->clique_voff[c];
        for (int i = 0; i < n; ++i) {
            x[o + i] = -d->g[o + i];
        }
        if (pb->nc == 0 || pb->clique_pidx[c] < 0) {
            ccb_dense_chol_solve(n, pb->L + pb->clique_aoff[c], x + o);
        }
    }
    if (pb->nc > 0 && pb->np > 0) {
        for (int a = 0; a < pb->np; ++a) {
            const int c = pb->pclique[a];
            memcpy(d->red + pb->pvoff[a], x + pb->clique_voff[c],
                   (size_t)pb->clique_nv[c] * sizeof(double));
        }
        const ccb_status s = ccb_sparse_solve(d->sp, d->red, d->red, d->msg, sizeof d->msg);
        if (s != CCB_OK) {
            return s;
        }
        for (int a = 0; a < pb->np; ++a) {
            const int c = pb->pclique[a];
            memcpy(x + pb->clique_voff[c], d->red + pb->pvoff[a],
                   (size_t)pb->clique_nv[c] * sizeof(double));
        }
    }
    /* dq1 = d/de [q0 + e dq0 integrated with v1 + e dv1] (formulation-convex §1.1): exact for
     * N = I; for a free body's quaternion the central difference of the renormalized update */
    if (dq1) {
        const double e = 1e-6 / fmax(1e-300, fmax(inf_norm(dir->dq0, nq), inf_norm(x, nv)));
        for (int b = 0; b < d->m->nbodies; ++b) {
            const ccb_body* bd = &d->m->bodies[b];
            if (bd->nq == 0) {
                continue;
            }
            for (int sgn = 0; sgn < 2; ++sgn) {
                const double es = sgn ? -e : e;
                double* qo = sgn ? d->qb : d->qa;
                for (int i = 0; i < bd->nq; ++i) {
                    d->qw[i] = d->q0[bd->qoff + i] + (dir->dq0 ? es * dir->dq0[bd->qoff + i] : 0.0);
                }
                for (int i = 0; i < bd->nv; ++i) {
                    d->vw[i] = d->v1[bd->voff + i] + es * x[bd->voff + i];
                }
                ccb_body_integrate(bd, d->qw, d->vw, d->prm.dt, qo + bd->qoff);
            }
            for (int i = 0; i < bd->nq; ++i) {
                dq1[bd->qoff + i] = (d->qa[bd->qoff + i] - d->qb[bd->qoff + i]) / (2.0 * e);
            }
        }
    }
    if (dv1) {
        memcpy(dv1, x, (size_t)nv * sizeof(double));
    }
    d->st.time_jvp += ccb_wall_time() - tic;
    if (!ccb_all_finite(x, (size_t)nv) || (dq1 && !ccb_all_finite(dq1, (size_t)nq))) {
        return fail(d, CCB_E_NONFINITE, "jvp: non-finite derivative");
    }
    return CCB_OK;
}
