/* problem: assembly of the per-step contact problem (spec: formulation-convex §1, §4.2, §8.2).
 *   A_c  = M_c(q0) + dt D_c,   v*_c = v0_c + dt A_c^{-1} (k2_c - D_c v0_c)      (§1.1)
 *   J_i  = R_WC^T [ J_B(C) ; -J_A(C) ]  (blocks per clique; A's block enters with a minus sign
 *          because v_c = v_B - v_A, formulation-convex §0)
 *   b_i  = R_WC^T (v_B(C) - v_A(C)) of bodies without coordinates, at t0 + dt
 *   vn0  = (J_i v0 + b_i(t0))_n                                                    (§5)
 *   w_i  = |W_ii|_F / 3,  W_ii = sum_c J_ic X_c J_ic^T, X_c = diag(A_c)^{-1} or A_c^{-1}  (§4.2)
 * Then each contact's constants come from the approximation's prepare(), and the cliques that
 * take part in at least one contact, with the clique pairs coupled by a contact, are recorded
 * for the Newton solver (§8.2). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "approx_internal.h"
#include "ccb/alloc.h"
#include "dense.h"
#include "model_internal.h"
#include "problem_internal.h"

/* the rows of names.c (ccb/names.h) */
_Static_assert(CCB_DELASSUS_FULL_INVERSE == 1, "ccb_names_delassus follows ccb_delassus");

ccb_problem_params ccb_problem_params_default(void) {
    ccb_problem_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.approx = ccb_approx_options_default();
    p.delassus = CCB_DELASSUS_DIAG_INVERSE;
    return p;
}

ccb_status ccb_problem_params_check(const ccb_problem_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "problem parameters: NULL pointer");
    }
    ccb_status s = ccb_approx_options_check(&p->approx, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (p->delassus != CCB_DELASSUS_DIAG_INVERSE && p->delassus != CCB_DELASSUS_FULL_INVERSE) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown Delassus approximation %d",
                          (int)p->delassus);
    }
    return CCB_OK;
}

ccb_status ccb_problem_create(ccb_problem** p) {
    if (p == NULL) {
        return CCB_E_INVALID;
    }
    *p = ccb_calloc(1, sizeof(ccb_problem));
    return *p ? CCB_OK : CCB_E_NOMEM;
}

void ccb_problem_destroy(ccb_problem* p) {
    if (p == NULL) {
        return;
    }
    ccb_free(p->clique_nv);
    ccb_free(p->clique_voff);
    ccb_free(p->clique_aoff);
    ccb_free(p->A);
    ccb_free(p->L);
    ccb_free(p->clique_ainv);
    ccb_free(p->clique_exact);
    ccb_free(p->clique_fb);
    ccb_free(p->bX);
    ccb_free(p->bclique);
    ccb_free(p->bV);
    ccb_free(p->vstar);
    ccb_free(p->v0);
    ccb_free(p->Adiag);
    ccb_free(p->work);
    ccb_free(p->Ddiag);
    ccb_free(p->contacts);
    ccb_free(p->jdata);
    ccb_free(p->pclique);
    ccb_free(p->clique_pidx);
    ccb_free(p->pvoff);
    ccb_free(p->edges);
    ccb_free(p->ekeys);
    ccb_free(p->pairs);
    ccb_free(p);
}

const char* ccb_problem_last_error(const ccb_problem* p) {
    return p ? p->msg : "problem is NULL";
}

ccb_status ccb_problem_failf(ccb_problem* p, ccb_status s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ccb_verrorf(p->msg, sizeof p->msg, s, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- storage ----------------------------------------------------------------------------- */

/* keep: the cliques' terms stay as they are (ccb_problem_keep_cliques; same sizes) */
static ccb_status reserve_cliques(ccb_problem* p, int nclique, int nv, size_t nA, int keep) {
    void** const ci[] = {(void**)&p->clique_nv,   (void**)&p->clique_voff, (void**)&p->clique_pidx,
                         (void**)&p->pclique,     (void**)&p->pvoff,       (void**)&p->clique_aoff,
                         (void**)&p->clique_ainv, (void**)&p->clique_exact};
    const size_t cs[] = {sizeof(int), sizeof(int),    sizeof(int),    sizeof(int),
                         sizeof(int), sizeof(size_t), sizeof(double), sizeof(int)};
    void** const vi[] = {(void**)&p->vstar, (void**)&p->v0, (void**)&p->Adiag, (void**)&p->work,
                         (void**)&p->Ddiag};
    const size_t vs[] = {sizeof(double), sizeof(double), sizeof(double), sizeof(double),
                         sizeof(double)};
    void** const ai[] = {(void**)&p->A, (void**)&p->L};
    const size_t as[] = {sizeof(double), sizeof(double)};
    if (nA > (size_t)1 << 30) {
        return CCB_E_NOMEM;
    }
    if (ccb_grow((void**)&p->clique_fb, &p->cap_fb, nclique > 0 ? nclique : 1,
                 3 * sizeof(double)) ||
        ccb_grow_many(ci, cs, 8, &p->cap_clique, nclique > 0 ? nclique : 1) ||
        ccb_grow_many(vi, vs, 5, &p->cap_v, nv > 0 ? nv : 1) ||
        ccb_grow_many(ai, as, 2, &p->cap_A, nA > 0 ? (int)nA : 1)) {
        return CCB_E_NOMEM;
    }
    for (int c = 0; c < 3 * nclique && !keep; ++c) { /* no clique is a known free body until */
        p->clique_fb[c] = -1.0; /* the model build says so (raw problems never do) */
    }
    return CCB_OK;
}

/* room for nc contacts and npairs lazy pairs (an edge each at most) */
static ccb_status reserve_contacts(ccb_problem* p, int nc, int npairs, size_t nj) {
    if (nj > (size_t)1 << 30) {
        return CCB_E_NOMEM;
    }
    const int ne = nc + npairs > 0 ? nc + npairs : 1;
    if (ccb_grow((void**)&p->contacts, &p->cap_c, nc > 0 ? nc : 1, sizeof(ccb_pcontact)) ||
        ccb_grow((void**)&p->pairs, &p->cap_pairs, npairs > 0 ? npairs : 1, sizeof(ccb_ppair)) ||
        ccb_grow((void**)&p->edges, &p->cap_edge, 2 * ne, sizeof(int)) ||
        ccb_grow((void**)&p->ekeys, &p->cap_ekeys, 2 * ne, sizeof(uint64_t)) ||
        ccb_grow((void**)&p->jdata, &p->cap_j, nj > 0 ? (int)nj : 1, sizeof(double))) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

/* ---- shared finishing: Cholesky of A blocks, w, prepare, participation -------------------- */

static ccb_status factor_blocks(ccb_problem* p) {
    for (int c = 0; c < p->nclique; ++c) {
        const int n = p->clique_nv[c];
        double* A = p->A + p->clique_aoff[c];
        double* L = p->L + p->clique_aoff[c];
        int exact = 1; /* A already symmetric bit for bit */
        for (int i = 0; i < n; ++i) {
            p->Adiag[p->clique_voff[c] + i] = A[i * n + i];
            for (int j = 0; j < i; ++j) {
                /* [round-off: blocks computed as products like R I R^T are symmetric to a few
                 *  ulps; anything beyond 1e-12 of the diagonal scale is not a mass matrix] */
                const double ai = fabs(A[i * n + i]), aj = fabs(A[j * n + j]);
                const double tol = 1e-12 * (ai > aj ? ai : aj); /* A is finite (build checks) */
                if (!(fabs(A[i * n + j] - A[j * n + i]) <= tol)) {
                    return ccb_problem_failf(
                        p, CCB_E_INVALID,
                        "clique %d: A block is not symmetric (entry (%d,%d) = %.17g vs "
                        "%.17g)",
                        c, i, j, A[i * n + j], A[j * n + i]);
                }
                exact &= A[i * n + j] == A[j * n + i];
                A[i * n + j] = A[j * n + i] = 0.5 * (A[i * n + j] + A[j * n + i]);
            }
        }
        p->clique_exact[c] = exact;
        if (p->L_fresh && exact) {
            continue; /* the build factored this very A already (for v*): that factor, its bound */
        }
        memcpy(L, A, (size_t)n * n * sizeof(double));
        const int bad = ccb_dense_cholesky(n, L);
        if (bad) {
            return ccb_problem_failf(
                p, CCB_E_FACTOR,
                "clique %d: mass block A is not positive definite (leading minor %d)", c, bad);
        }
        p->clique_ainv[c] = ccb_problem_ainv_bound(n, L, p->work);
    }
    return CCB_OK;
}

/* W += J_b X J_b^T for one block of n columns, X = A^-1 (full inverse, through L) or
 * diag(A)^-1 (formulation-convex §4.2). */
static inline void delassus_block(const double* J, const double* A, const double* L, int n,
                                  int full, double* y, double W[9]) {
    for (int r = 0; r < 3; ++r) {
        /* y = X J_r^T */
        for (int j = 0; j < n; ++j) {
            y[j] = J[r * n + j];
        }
        if (full) {
            ccb_dense_chol_solve(n, L, y);
        } else {
            for (int j = 0; j < n; ++j) {
                y[j] /= A[j * n + j];
            }
        }
        for (int s = 0; s < 3; ++s) {
            double acc = 0.0;
            for (int j = 0; j < n; ++j) {
                acc += J[s * n + j] * y[j];
            }
            W[3 * s + r] += acc;
        }
    }
}

static double delassus_w(ccb_problem* p, const ccb_pcontact* pc) {
    double W[9] = {0};
    const int full = p->params.delassus == CCB_DELASSUS_FULL_INVERSE;
    for (int k = 0; k < pc->nblk; ++k) {
        const int c = pc->clique[k];
        const int n = p->clique_nv[c];
        const double* J = ccb_pc_block(p, pc, k);
        const double* A = p->A + p->clique_aoff[c];
        const double* L = p->L + p->clique_aoff[c];
        delassus_block(J, A, L, n, full, p->work, W);
    }
    double f = 0.0;
    for (int i = 0; i < 9; ++i) {
        f += W[i] * W[i];
    }
    return sqrt(f) / 3.0; /* RMS of the 9 entries (formulation-convex §4.2) */
}

static ccb_status contact_constants(ccb_problem* p, ccb_pcontact* pc);

static ccb_status finish(ccb_problem* p) {
    ccb_status s = factor_blocks(p);
    if (s != CCB_OK) {
        return s;
    }
    /* participation */
    for (int c = 0; c < p->nclique; ++c) {
        p->clique_pidx[c] = -1;
    }
    for (int i = 0; i < p->nc; ++i) {
        const ccb_pcontact* pc = &p->contacts[i];
        for (int k = 0; k < pc->nblk; ++k) {
            p->clique_pidx[pc->clique[k]] = 0;
        }
    }
    for (int i = 0; i < p->npairs; ++i) { /* as their contacts would (formulation-convex §8.11) */
        for (int k = 0; k < 2; ++k) {
            if (p->pairs[i].clique[k] >= 0) {
                p->clique_pidx[p->pairs[i].clique[k]] = 0;
            }
        }
    }
    p->np = 0;
    p->npv = 0;
    for (int c = 0; c < p->nclique; ++c) {
        if (p->clique_pidx[c] == 0) {
            p->clique_pidx[c] = p->np;
            p->pclique[p->np] = c;
            p->pvoff[p->np] = p->npv;
            p->npv += p->clique_nv[c];
            p->np++;
        }
    }
    /* edges: (lo << 32 | hi) keys, radix-sorted (the (lo, hi) order), repeats dropped */
    uint64_t* key = p->ekeys;
    int nk = 0;
    for (int i = 0; i < p->nc; ++i) {
        const ccb_pcontact* pc = &p->contacts[i];
        if (pc->nblk == 2) {
            int a = p->clique_pidx[pc->clique[0]], b = p->clique_pidx[pc->clique[1]];
            const uint64_t k = (uint64_t)(a < b ? a : b) << 32 | (uint64_t)(a < b ? b : a);
            /* contacts of one body pair usually come together: drop repeats before sorting */
            if (nk == 0 || key[nk - 1] != k) {
                key[nk++] = k;
            }
        }
    }
    for (int i = 0; i < p->npairs; ++i) {
        if (p->pairs[i].clique[0] < 0 || p->pairs[i].clique[1] < 0) {
            continue; /* one block: no edge */
        }
        const int a = p->clique_pidx[p->pairs[i].clique[0]],
                  b = p->clique_pidx[p->pairs[i].clique[1]];
        key[nk++] = (uint64_t)(a < b ? a : b) << 32 | (uint64_t)(a < b ? b : a);
    }
    ccb_sort_u64(key, key + p->nc + p->npairs, (size_t)nk);
    p->nedge = 0;
    for (int e = 0; e < nk; ++e) {
        if (e == 0 || key[e] != key[e - 1]) {
            p->edges[2 * p->nedge] = (int)(key[e] >> 32);
            p->edges[2 * p->nedge + 1] = (int)(key[e] & 0xffffffffu);
            p->nedge++;
        }
    }
    /* Delassus approximation and per-step constants (deferred contacts: when completed) */
    for (int i = 0; i < p->nc; ++i) {
        ccb_pcontact* pc = &p->contacts[i];
        if (pc->deferred) {
            continue;
        }
        s = contact_constants(p, pc);
        if (s != CCB_OK) {
            return s;
        }
    }
    return CCB_OK;
}

ccb_status ccb_problem_check_input(ccb_problem* p, int i, const ccb_contact_input* in) {
    if (!(isfinite(in->k) && in->k > 0)) {
        return ccb_problem_failf(
            p, CCB_E_INVALID, "contact %d: stiffness k must be finite and > 0 (got %g)", i, in->k);
    }
    if (!(isfinite(in->d) && in->d >= 0) || !(isfinite(in->tau_d) && in->tau_d >= 0) ||
        !(isfinite(in->mu) && in->mu >= 0)) {
        return ccb_problem_failf(
            p, CCB_E_INVALID,
            "contact %d: d, tau_d and mu must be finite and >= 0 (got %g, %g, %g)", i, in->d,
            in->tau_d, in->mu);
    }
    if (!(isfinite(in->mu2) && in->mu2 >= 0) || (in->mu2 > 0 && !(in->mu > 0))) {
        return ccb_problem_failf(p, CCB_E_INVALID,
                                 "contact %d: mu2 (anisotropic friction along t2) must be finite "
                                 "and >= 0, and > 0 only with mu > 0 (got mu = %g, mu2 = %g)",
                                 i, in->mu, in->mu2);
    }
    if (!isfinite(in->phi0) || !isfinite(in->vn0)) {
        return ccb_problem_failf(p, CCB_E_NONFINITE,
                                 "contact %d: phi0 = %g, vn0 = %g must be finite", i, in->phi0,
                                 in->vn0);
    }
    return CCB_OK;
}

static ccb_status begin(ccb_problem* p, const ccb_approx* approx, const ccb_problem_params* params,
                        const ccb_step_context* step) {
    if (approx == NULL || approx->prepare == NULL || approx->eval == NULL) {
        return ccb_problem_failf(p, CCB_E_INVALID, "problem: approximation is NULL or incomplete");
    }
    ccb_status s = ccb_problem_params_check(params, p->msg, sizeof p->msg);
    if (s != CCB_OK) {
        return s;
    }
    if (step == NULL) {
        return ccb_problem_failf(p, CCB_E_INVALID, "problem: step context is NULL");
    }
    if (!(isfinite(step->dt) && step->dt > 0)) {
        return ccb_problem_failf(p, CCB_E_INVALID, "step: dt must be finite and > 0 (got %g)",
                                 step->dt);
    }
    if (!(isfinite(step->vs) && step->vs > 0)) {
        return ccb_problem_failf(p, CCB_E_INVALID, "step: vs must be finite and > 0 m/s (got %g)",
                                 step->vs);
    }
    p->approx = approx;
    p->params = *params;
    p->params.u = NULL; /* borrowed for the build only (read from params there) */
    p->step = *step;
    p->L_fresh = 0;
    p->cliques_ok = 0; /* until a build has them (ccb_problem_build) */
    p->model = NULL;
    p->ndeferred = 0;
    p->nc = 0;
    p->npairs = 0;
    p->j_n = 0;
    return CCB_OK;
}

/* ---- raw problems ------------------------------------------------------------------------ */

ccb_status ccb_problem_set_raw(ccb_problem* p, const ccb_approx* approx,
                               const ccb_problem_params* params, const ccb_step_context* step,
                               int nclique, const int* clique_nv, const double* A,
                               const double* vstar, const double* v0, int nc,
                               const ccb_raw_contact* contacts) {
    if (p == NULL) {
        return CCB_E_INVALID;
    }
    ccb_status s = begin(p, approx, params, step);
    if (s != CCB_OK) {
        return s;
    }
    if (nclique < 0 || nc < 0 || (nclique > 0 && (clique_nv == NULL || A == NULL)) ||
        (nc > 0 && contacts == NULL)) {
        return ccb_problem_failf(p, CCB_E_INVALID, "set_raw: invalid sizes or NULL arrays");
    }
    int nv = 0;
    size_t nA = 0;
    for (int c = 0; c < nclique; ++c) {
        if (clique_nv[c] < 1 || clique_nv[c] > 4096) {
            return ccb_problem_failf(p, CCB_E_INVALID,
                                     "set_raw: clique %d has %d velocities (need 1..4096)", c,
                                     clique_nv[c]);
        }
        nv += clique_nv[c];
        nA += (size_t)clique_nv[c] * clique_nv[c];
    }
    if (nv > 0 && (vstar == NULL || v0 == NULL)) {
        return ccb_problem_failf(p, CCB_E_INVALID, "set_raw: vstar and v0 are required");
    }
    size_t nj = 0;
    for (int i = 0; i < nc; ++i) {
        const ccb_raw_contact* rc = &contacts[i];
        const int nb = rc->clique[1] >= 0 ? 2 : 1;
        for (int k = 0; k < nb; ++k) {
            if (rc->clique[k] < 0 || rc->clique[k] >= nclique || rc->J[k] == NULL) {
                return ccb_problem_failf(p, CCB_E_INVALID,
                                         "set_raw: contact %d has an invalid clique %d", i,
                                         rc->clique[k]);
            }
            nj += 3 * (size_t)clique_nv[rc->clique[k]];
        }
        if (nb == 2 && rc->clique[0] == rc->clique[1]) {
            return ccb_problem_failf(p, CCB_E_INVALID, "set_raw: contact %d names clique %d twice",
                                     i, rc->clique[0]);
        }
    }
    if (reserve_cliques(p, nclique, nv, nA, 0) || reserve_contacts(p, nc, 0, nj)) {
        return ccb_problem_failf(p, CCB_E_NOMEM, "set_raw: out of memory");
    }
    if (!ccb_all_finite(A, nA) || !ccb_all_finite(vstar, (size_t)nv) ||
        !ccb_all_finite(v0, (size_t)nv)) {
        return ccb_problem_failf(p, CCB_E_NONFINITE,
                                 "set_raw: A, vstar or v0 has a non-finite entry");
    }
    p->nclique = nclique;
    p->nv = nv;
    p->A_n = nA;
    int voff = 0;
    size_t aoff = 0;
    for (int c = 0; c < nclique; ++c) {
        p->clique_nv[c] = clique_nv[c];
        p->clique_voff[c] = voff;
        p->clique_aoff[c] = aoff;
        voff += clique_nv[c];
        aoff += (size_t)clique_nv[c] * clique_nv[c];
    }
    memcpy(p->A, A, nA * sizeof(double));
    memcpy(p->vstar, vstar, (size_t)nv * sizeof(double));
    memcpy(p->v0, v0, (size_t)nv * sizeof(double));
    memset(p->Ddiag, 0, (size_t)(nv > 0 ? nv : 1) * sizeof(double));
    for (int i = 0; i < nc; ++i) {
        const ccb_raw_contact* rc = &contacts[i];
        ccb_pcontact* pc = &p->contacts[i];
        memset(pc, 0, sizeof *pc);
        pc->contact = i;
        pc->nblk = rc->clique[1] >= 0 ? 2 : 1;
        pc->clique[1] = -1;
        for (int k = 0; k < pc->nblk; ++k) {
            const int n = clique_nv[rc->clique[k]];
            pc->clique[k] = rc->clique[k];
            pc->joff[k] = p->j_n;
            if (!ccb_all_finite(rc->J[k], 3 * (size_t)n)) {
                return ccb_problem_failf(p, CCB_E_NONFINITE,
                                         "set_raw: contact %d: Jacobian is not finite", i);
            }
            memcpy(p->jdata + p->j_n, rc->J[k], 3 * (size_t)n * sizeof(double));
            p->j_n += 3 * (size_t)n;
        }
        if (!ccb_all_finite(rc->b, 3)) {
            return ccb_problem_failf(p, CCB_E_NONFINITE, "set_raw: contact %d: bias is not finite",
                                     i);
        }
        memcpy(pc->b, rc->b, sizeof pc->b);
        pc->in = rc->in;
        s = ccb_problem_check_input(p, i, &pc->in);
        if (s != CCB_OK) {
            return s;
        }
        p->nc++;
    }
    return finish(p);
}

/* ---- problems from a model ---------------------------------------------------------------- */

ccb_vec3 ccb_passive_point_velocity(const ccb_body* b, double t, ccb_vec3 p_W) {
    ccb_pose X;
    ccb_twist V;
    ccb_body_pose(b, t, NULL, &X);
    ccb_body_twist(b, t, NULL, NULL, &V);
    return ccb_point_velocity(&V, &X, p_W);
}

static void body_jacobian_block(const ccb_body* b, const double* qb, const ccb_contact* ct,
                                double sign, double* J) {
    const int n = b->nv;
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
        /* v_p = v + w x r with v_b = (w, v): row c of R_WC^T J_p is ((r x c)^T, c^T) */
        const ccb_vec3 r = ccb_v3_sub(ct->p, ccb_v3(qb[0], qb[1], qb[2]));
        for (int row = 0; row < 3; ++row) {
            const ccb_vec3 c = ccb_m3_col(&ct->R_WC, row);
            const ccb_vec3 rc = ccb_v3_cross(r, c);
            double* Jr = J + 6 * row;
            Jr[0] = sign * rc.x;
            Jr[1] = sign * rc.y;
            Jr[2] = sign * rc.z;
            Jr[3] = sign * c.x;
            Jr[4] = sign * c.y;
            Jr[5] = sign * c.z;
        }
        return;
    }
    double Jp[3 * CCB_MAX_BODY_NV];
    ccb_body_point_jacobian(b, qb, ct->p, Jp);
    for (int r = 0; r < 3; ++r) { /* rows t1, t2, n: sign R_WC^T Jp */
        for (int k = 0; k < n; ++k) {
            J[r * n + k] = sign * (ct->R_WC.m[r] * Jp[k] + ct->R_WC.m[3 + r] * Jp[n + k] +
                                   ct->R_WC.m[6 + r] * Jp[2 * n + k]);
        }
    }
}

void ccb_contact_jacobian_block(const ccb_model* m, int body, double t, const double* q,
                                const ccb_contact* ct, double sign, int fresh, double* J) {
    const ccb_body* b = &m->bodies[body];
    if (ccb_clique_is_single(m, b->clique)) { /* one body per clique: never shared, written */
        body_jacobian_block(b, q + b->qoff, ct, sign, J);
        return;
    }
    if (fresh) {
        memset(J, 0, 3 * (size_t)m->clique_nv[b->clique] * sizeof(double));
    }
    ccb_tree_point_jacobian(m, body, t, q, ct->p, &ct->R_WC, sign, J);
}

/* The frozen inputs of a contact (w: computed with the rows, 0 until then). */
void ccb_problem_set_inputs(ccb_pcontact* pc, const ccb_contact* ct, double vn0) {
    pc->in.k = ct->material.k;
    pc->in.d = ct->material.d;
    pc->in.tau_d = ct->material.tau_d;
    pc->in.mu = ct->material.mu;
    pc->in.phi0 = ct->phi0;
    pc->in.vn0 = vn0;
    pc->in.w = 0.0;
    pc->in.mu2 = ct->material.mu2;
}

/* The rows of a contact whose blocks and storage the build assigned: Jacobian blocks, bias at
 * t0 + dt, vn0 and the material inputs, then their checks (formulation-convex §1.1-§1.3, §5). */
static ccb_status contact_rows(ccb_problem* p, ccb_pcontact* pc) {
    const ccb_model* m = p->model;
    const ccb_contact* ct = &p->cset->items[pc->contact];
    const double dt = p->step.dt, t0 = p->step.t0;
    const double *q0 = p->q0, *v0 = p->v0_full;
    const int body[2] = {ct->body_b, ct->body_a};
    const double sign[2] = {1.0, -1.0};
    ccb_vec3 bias = ccb_v3(0, 0, 0), bias0 = ccb_v3(0, 0, 0);
    double vc0[3] = {0, 0, 0};
    for (int side = 0, k = 0; side < 2; ++side) {
        const ccb_body* b = &m->bodies[body[side]];
        ccb_vec3 u1, u0; /* velocity of the passive body, or of the tree's anchor */
        if (b->nv == 0) {
            u1 = ccb_passive_point_velocity(b, t0 + dt, ct->p);
            u0 = ccb_passive_point_velocity(b, t0, ct->p);
        } else {
            u1 = ccb_tree_anchor_point_velocity(m, body[side], t0 + dt, ct->p);
            u0 = ccb_tree_anchor_point_velocity(m, body[side], t0, ct->p);
        }
        bias = ccb_v3_add(bias, ccb_v3_scale(sign[side], u1));
        bias0 = ccb_v3_add(bias0, ccb_v3_scale(sign[side], u0));
        if (b->nv == 0) {
            continue;
        }
        /* both sides on one tree share its block: J = J_B - J_A (formulation-convex §17.5) */
        const int shared = k == 1 && pc->clique[0] == b->clique;
        ccb_contact_jacobian_block(m, body[side], t0, q0, ct, sign[side], !shared,
                                   p->jdata + pc->joff[shared ? 0 : k]);
        k += !shared;
    }
    for (int k = 0; k < pc->nblk; ++k) {
        const int c = pc->clique[k], n = m->clique_nv[c];
        const double* J = p->jdata + pc->joff[k];
        for (int r = 0; r < 3; ++r) {
            for (int j = 0; j < n; ++j) {
                vc0[r] += J[r * n + j] * v0[m->clique_voff[c] + j];
            }
        }
    }
    const ccb_vec3 bC = ccb_m3_tmul_v(&ct->R_WC, bias);
    const ccb_vec3 b0C = ccb_m3_tmul_v(&ct->R_WC, bias0);
    pc->b[0] = bC.x;
    pc->b[1] = bC.y;
    pc->b[2] = bC.z;
    ccb_problem_set_inputs(pc, ct, vc0[2] + b0C.z);
    if (!ccb_all_finite(pc->b, 3)) {
        return ccb_problem_failf(p, CCB_E_NONFINITE,
                                 "build: contact %d: non-finite surface velocity at t = %g",
                                 pc->contact, t0 + dt);
    }
    return ccb_problem_check_input(p, pc->contact, &pc->in);
}

/* w and the approximation's constants of a contact with rows (formulation-convex §4.2) */
static ccb_status contact_constants(ccb_problem* p, ccb_pcontact* pc) {
    pc->in.w = delassus_w(p, pc);
    if (!(pc->in.w > 0) || !isfinite(pc->in.w)) {
        return ccb_problem_failf(
            p, CCB_E_INVALID,
            "contact %d: Delassus approximation w = %g is not finite and > 0 (the "
            "contact Jacobian is zero: the contact cannot move any coordinate)",
            pc->contact, pc->in.w);
    }
    ccb_constraint_prepare(p->approx, &p->step, &p->params.approx, &pc->in, &pc->c);
    return CCB_OK;
}

ccb_status ccb_problem_complete(const ccb_problem* cp, int i) {
    ccb_problem* p = (ccb_problem*)cp; /* a cache: completing changes no observable value */
    if (p == NULL || i < 0 || i >= p->nc) {
        return CCB_E_INVALID;
    }
    ccb_pcontact* pc = &p->contacts[i];
    if (!pc->deferred) {
        return CCB_OK;
    }
    ccb_status s = contact_rows(p, pc);
    if (s == CCB_OK) {
        s = contact_constants(p, pc);
    }
    if (s == CCB_OK) {
        pc->deferred = 0;
        p->ndeferred--;
    }
    return s;
}

/* About 170 lines on purpose: the checks of the inputs, then one pass that sizes every store
 * (cliques, bodies, contacts) before anything is written, A and v* per clique
 * (formulation-convex §1.1), and the contacts' blocks and rows (or their deferral); the passes
 * share the sizes and offsets the first one computes. */
ccb_status ccb_problem_build(ccb_problem* p, const ccb_model* m, const ccb_approx* approx,
                             const ccb_problem_params* params, const ccb_step_context* step,
                             const double* q0, const double* v0, const ccb_contact_set* contacts) {
    if (p == NULL) {
        return CCB_E_INVALID;
    }
    const int keep = p->keep_cliques && p->cliques_ok && p->model == m && p->nclique == m->nclique;
    p->keep_cliques = 0;
    ccb_status s = begin(p, approx, params, step);
    if (s != CCB_OK) {
        return s;
    }
    if (m == NULL || !m->finalized || contacts == NULL || (m->nq > 0 && q0 == NULL) ||
        (m->nv > 0 && v0 == NULL)) {
        return ccb_problem_failf(p, CCB_E_INVALID, "build: NULL argument or model not finalized");
    }
    if (!isfinite(step->t0) || !ccb_all_finite(q0, (size_t)m->nq) ||
        !ccb_all_finite(v0, (size_t)m->nv) ||
        (params->u && !ccb_all_finite(params->u, (size_t)m->nv))) {
        return ccb_problem_failf(
            p, CCB_E_NONFINITE,
            "build: state (or applied force u) at t = %g has a non-finite entry", step->t0);
    }
    const double dt = step->dt, t0 = step->t0;
    size_t nA = 0;
    for (int c = 0; c < m->nclique; ++c) {
        const int n = m->clique_nv[c];
        nA += (size_t)n * n;
    }
    if (ccb_grow((void**)&p->bclique, &p->cap_bb, 2 * (m->nbodies > 0 ? m->nbodies : 1),
                 sizeof(int))) {
        return ccb_problem_failf(p, CCB_E_NOMEM, "build: out of memory");
    }
    p->bplain = p->bclique + m->nbodies;
    for (int b = 0; b < m->nbodies; ++b) {
        const ccb_body* bd = &m->bodies[b];
        p->bclique[b] = bd->nv > 0 ? bd->clique : -1;
        p->bplain[b] = bd->nv == 0 || ccb_clique_is_single(m, bd->clique);
    }
    size_t nj = 0;
    for (int i = 0; i < contacts->n; ++i) {
        const int ca = p->bclique[contacts->items[i].body_a],
                  cb = p->bclique[contacts->items[i].body_b];
        nj += 3 * (size_t)((ca >= 0 ? m->clique_nv[ca] : 0) + (cb >= 0 ? m->clique_nv[cb] : 0));
    }
    if (reserve_cliques(p, m->nclique, m->nv, nA, keep) ||
        reserve_contacts(p, contacts->n, contacts->npairs, nj)) {
        return ccb_problem_failf(p, CCB_E_NOMEM, "build: out of memory");
    }
    p->nclique = m->nclique;
    p->nv = m->nv;
    p->A_n = nA;
    /* A and v* per clique (formulation-convex §1.1); for a build of the same state
     * (ccb_problem_keep_cliques), kept as finish() left them where that is what this loop makes
     * of them: where A came out symmetric bit for bit (clique_exact), so that L and its bound
     * are those of A (a block that finish() symmetrized is computed again: the contacts below
     * read the L of the unsymmetrized A, as without keeping) */
    size_t aoff = 0;
    for (int c = 0; c < m->nclique; ++c) {
        const ccb_body* b = &m->bodies[m->clique_body[c]]; /* the tree's root, for messages */
        const int n = m->clique_nv[c], voff = m->clique_voff[c];
        p->clique_nv[c] = n;
        p->clique_voff[c] = voff;
        p->clique_aoff[c] = aoff;
        if (keep && p->clique_exact[c]) {
            aoff += (size_t)n * n;
            continue;
        }
        double* A = p->A + aoff;
        double* L = p->L + aoff;
        const double* vb = v0 + voff;
        ccb_clique_mass_matrix(m, c, t0, q0, A);
        double f[CCB_MAX_TREE_NV];
        ccb_clique_generalized_force(m, c, t0, q0, v0, f);
        for (int k = 0; k < n; ++k) {
            const double D = ccb_clique_damping(m, c, k);
            f[k] += params->u ? params->u[voff + k] : 0.0;
            A[k * n + k] += dt * D;
            f[k] -= D * vb[k];
            p->Ddiag[voff + k] = D;
        }
        if (!ccb_all_finite(A, (size_t)n * n) || !ccb_all_finite(f, (size_t)n)) {
            return ccb_problem_failf(
                p, CCB_E_NONFINITE,
                "build: body '%s': non-finite mass matrix or applied force at t = %g", b->name, t0);
        }
        memcpy(L, A, (size_t)n * n * sizeof(double));
        if (ccb_dense_cholesky(n, L)) {
            return ccb_problem_failf(
                p, CCB_E_FACTOR, "build: body '%s': mass matrix is not positive definite", b->name);
        }
        ccb_dense_chol_solve(n, L, f);
        p->clique_ainv[c] =
            ccb_problem_ainv_bound(n, L, p->work); /* for deferral; finish() redoes it */
        double* fb = p->clique_fb + 3 * c;
        fb[0] = fb[1] = fb[2] = -1.0;
        if (n == 6 && ccb_clique_is_single(m, c) &&
            m->bodies[m->clique_body[c]].def.mobilizer == CCB_MOBILIZER_FREE) {
            ccb_problem_free_body_terms(A, L, p->work, fb);
        }
        for (int k = 0; k < n; ++k) {
            p->v0[voff + k] = vb[k];
            p->vstar[voff + k] = vb[k] + dt * f[k];
        }
        aoff += (size_t)n * n;
    }
    p->L_fresh = 1; /* L = chol(A) of every clique, A as it stands */
    p->cliques_ok = 1;
    p->model = m;
    p->cset = contacts;
    p->q0 = q0;
    p->v0_full = v0;
    p->ndeferred = 0;
    const int defer = params->defer_inactive && approx->inactive_radius != NULL;
    const int prepare_fills = ccb_approx_is_builtin(approx);
    if (defer) {
        if (ccb_grow((void**)&p->bX, &p->cap_bX, m->nbodies > 0 ? m->nbodies : 1,
                     sizeof(ccb_pose)) ||
            ccb_grow((void**)&p->bV, &p->cap_bV, m->nbodies > 0 ? m->nbodies : 1,
                     sizeof(ccb_twist))) {
            return ccb_problem_failf(p, CCB_E_NOMEM, "build: out of memory");
        }
        for (int b = 0; b < m->nbodies; ++b) { /* single-body trees only can be deferred */
            const ccb_body* bd = &m->bodies[b];
            if (bd->nv > 0 && ccb_clique_is_single(m, bd->clique)) {
                ccb_body_pose(bd, t0, q0 + bd->qoff, &p->bX[b]);
                ccb_body_twist(bd, t0, q0 + bd->qoff, v0 + bd->voff, &p->bV[b]);
            } else if (bd->nv == 0) { /* what ccb_passive_point_velocity computes, once */
                ccb_body_pose(bd, t0 + dt, NULL, &p->bX[b]);
                ccb_body_twist(bd, t0 + dt, NULL, NULL, &p->bV[b]);
            }
        }
    }
    /* contacts: blocks and their storage for every contact, then the rows (or, deferred, the
     * centre velocity and inactive radius only) */
    for (int i = 0; i < contacts->n; ++i) {
        const ccb_contact* ct = &contacts->items[i];
        ccb_pcontact* pc = &p->contacts[i];
        /* every field zero; c only for an approximation whose prepare may leave fields
         * unwritten (a built-in's prepare writes all of c: 1.4 MB a step less to clear on
         * the clutter's 5,266 contacts) */
        memset(pc, 0, offsetof(ccb_pcontact, c));
        memset(&pc->deferred, 0, sizeof *pc - offsetof(ccb_pcontact, deferred));
        if (!prepare_fills) {
            memset(&pc->c, 0, sizeof pc->c);
        }
        pc->clique[0] = pc->clique[1] = -1;
        pc->contact = i;
        const int body[2] = {ct->body_b, ct->body_a};
        int plain = 1; /* every moving side a single free or planar body (|S|_2 = 1) */
        for (int side = 0; side < 2; ++side) {
            const int c = p->bclique[body[side]];
            if (c < 0) {
                continue;
            }
            plain &= p->bplain[body[side]];
            if (pc->nblk == 1 && pc->clique[0] == c) {
                continue; /* both sides on one tree: one block (formulation-convex §17.5) */
            }
            pc->clique[pc->nblk] = c;
            pc->joff[pc->nblk] = p->j_n;
            pc->nblk++;
            p->j_n += 3 * (size_t)m->clique_nv[c];
        }
        if (pc->nblk == 0) {
            return ccb_problem_failf(p, CCB_E_INTERNAL,
                                     "build: contact %d touches no body with coordinates", i);
        }
        if (defer && ct->phi0 > 0 && plain && ccb_problem_defer_contact(p, pc, ct, body)) {
            p->ndeferred++;
            p->nc++;
            continue;
        }
        s = contact_rows(p, pc);
        if (s != CCB_OK) {
            return s;
        }
        p->nc++;
    }
    s = ccb_problem_lazy_pairs(p, contacts, defer && prepare_fills);
    return s == CCB_OK ? finish(p) : s;
}

void ccb_problem_keep_cliques(ccb_problem* p) {
    if (p != NULL) {
        p->keep_cliques = 1;
    }
}
