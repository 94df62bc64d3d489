/* tamsi: the Transition-Aware Modified Semi-Implicit solver of one step.
 *
 * spec: formulation-tamsi-hydro §D (TAMSI paper §V, eqs. 10-23; Drake TamsiSolver and
 * TamsiDriver). The step problem is a ccb_problem: mass blocks A = M + h D, free velocities v*
 * (A v* = p*: the explicit non-contact impulse, eq. 11), contact Jacobians J (rows t1, t2, n),
 * bias b, phi0 and materials, all frozen at the start of the step (formulation-tamsi-hydro §D.1).
 * For a (sub)step of length hs from velocities vs with the signed distances phi of its start:
 *   A_s    = A - (h - hs) D                                   (= M + hs D)
 *   p_s    = (A - h D) vs + (hs/h) g,  g = A (v* - v0) + h D v0  (= M vs + hs k2; p_s = A v* if
 *                                                                  hs = h, vs = v0)
 *   vc     = J v + b,  vn = row n, vt = rows t1, t2
 *   fn     = (1 - d vn)+ (fn0 - hs k vn)+,  fn0 = -k phi                        (eq. 19, two-way)
 *          = k (1 - d vn0)+ (-phi)+  (frozen)
 * (formulation-tamsi-hydro §D.2, one-way)
 *   ft     = -mu~(s) fn t,  t = vt/|vt|_s,  s = |vt|_s/v_s,  |vt|_s = sqrt(|vt|^2 + (rho v_s)^2)
 *   r(v)   = A_s v - p_s - hs J^T f                                              (eq. 21)
 *   dr/dv  = A_s + hs J^T G J                                                    (eq. 23)
 *   G      = [[Dt, mu~ t dfn], [0 0, -dfn]],  dfn = dfn/dvn <= 0,  Dt = -dft/dvt
 * (formulation-tamsi-hydro §A.5)
 *            (one-way: dfn = 0, so dr/dv = A_s + hs Jt^T Dt Jt is SPD)
 * Newton: dv = -(dr/dv)^{-1} r; TALS alpha = min(1, alpha_i) over the contacts
 * (formulation-tamsi-hydro §C.2) from vt and the full update dvt; v += alpha dv. Converged at the
 * top of an iteration when both update sizes of the previous one, e_t = |dvt|_2 and e_n = |dvn|_2
 * over all contacts, are below eps_v = rho v_s (both start at 2 eps_v, so at least one iteration is
 * made) (formulation-tamsi-hydro §D.4). Substeps (formulation-tamsi-hydro §D.5): if the step fails,
 * it is retried from v0 with N = 2, 3, ... equal substeps of the same frozen problem, each starting
 * from the previous substep's velocities, with phi <- phi + hs vn after each substep (Drake clamps
 * the elastic force instead, fn0 <- (fn0 - hs k vn)+; the two agree in contact and phi stays right
 * for speculative contacts). The velocity bias b is held at its end-of-step value over the
 * substeps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccb/alloc.h"
#include "ccb/tamsi.h"
#include "problem_internal.h"
#include "sparse.h"
#include "tamsi_internal.h"

/* the rows of names.c (ccb/names.h) */
_Static_assert(CCB_TAMSI_ONE_WAY == 1 && CCB_TAMSI_LU_DENSE == 2,
               "ccb_names_coupling and ccb_names_tamsi_lu follow the enumerations");

struct ccb_tamsi {
    const ccb_problem* pb;
    ccb_tamsi_params prm;
    ccb_tals_params tals;
    ccb_sparse_lu* lu;
    int npv, nc;
    /* reduced vectors (npv) */
    double *v, *vstar, *v0, *vsub, *g, *Ddiag, *r, *dv, *tmp;
    int cap_v;
    double* vfull; /* nv */
    int cap_full;
    /* contacts: vc, f, dvc, impulse (3 nc), G (9 nc), phi (nc) */
    double *vc, *f, *dvc, *imp, *G, *phi;
    int cap_c;
    int* bs;
    int cap_bs;
    ccb_tamsi_iter* hist;
    int nhist, cap_hist;
    ccb_tamsi_stats st;
    long n_factorizations;
    char msg[CCB_MSG_SIZE];
};

ccb_tamsi_params ccb_tamsi_params_default(void) {
    ccb_tamsi_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.coupling = CCB_TAMSI_TWO_WAY;
    p.friction = CCB_FRICTION_TAMSI_QUAD;
    p.rho = 1e-2;
    p.theta_max = CCB_PI / 3.0;
    p.tals = 1;
    p.max_iterations = 20;
    p.max_substeps = 20;
    p.linear_solver = CCB_TAMSI_LU_AUTO;
    return p;
}

ccb_status ccb_tamsi_params_check(const ccb_tamsi_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TAMSI parameters: NULL pointer");
    }
    if (p->coupling != CCB_TAMSI_TWO_WAY && p->coupling != CCB_TAMSI_ONE_WAY) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TAMSI: unknown coupling %d", (int)p->coupling);
    }
    if (ccb_friction_name(p->friction) == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TAMSI: unknown friction model %d",
                          (int)p->friction);
    }
    ccb_status s = ccb_tals_check_limits(p->rho, p->theta_max, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (p->max_iterations < 1 || p->max_iterations > 100000) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "TAMSI: max_iterations must be in 1..100000 (got %d)", p->max_iterations);
    }
    if (p->max_substeps < 1 || p->max_substeps > 1000) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TAMSI: max_substeps must be in 1..1000 (got %d)",
                          p->max_substeps);
    }
    if (p->linear_solver != CCB_TAMSI_LU_AUTO && p->linear_solver != CCB_TAMSI_LU_UMFPACK &&
        p->linear_solver != CCB_TAMSI_LU_DENSE) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TAMSI: unknown linear solver %d",
                          (int)p->linear_solver);
    }
    return CCB_OK;
}

ccb_status ccb_tamsi_create(ccb_tamsi** out) {
    if (out == NULL) {
        return CCB_E_INVALID;
    }
    *out = ccb_calloc(1, sizeof(ccb_tamsi));
    if (*out == NULL) {
        return CCB_E_NOMEM;
    }
    if (ccb_sparse_lu_create(&(*out)->lu) != CCB_OK) {
        ccb_free(*out);
        *out = NULL;
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

void ccb_tamsi_destroy(ccb_tamsi* ws) {
    if (ws == NULL) {
        return;
    }
    ccb_sparse_lu_destroy(ws->lu);
    void* const ptrs[] = {ws->v,   ws->vstar, ws->v0,  ws->vsub,  ws->g,  ws->Ddiag,
                          ws->r,   ws->dv,    ws->tmp, ws->vfull, ws->vc, ws->f,
                          ws->dvc, ws->imp,   ws->G,   ws->phi,   ws->bs, ws->hist};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) {
        ccb_free(ptrs[k]);
    }
    ccb_free(ws);
}

const char* ccb_tamsi_last_error(const ccb_tamsi* ws) {
    return ws ? ws->msg : "TAMSI workspace is NULL";
}

static ccb_status fail(ccb_tamsi* ws, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ccb_status fail(ccb_tamsi* ws, ccb_status s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ccb_verrorf(ws->msg, sizeof ws->msg, s, fmt, ap);
    va_end(ap);
    ws->st.status = s;
    return s;
}

static ccb_status reserve(ccb_tamsi* ws, const ccb_problem* pb) {
    void** const vi[] = {(void**)&ws->v,    (void**)&ws->vstar, (void**)&ws->v0,
                         (void**)&ws->vsub, (void**)&ws->g,     (void**)&ws->Ddiag,
                         (void**)&ws->r,    (void**)&ws->dv,    (void**)&ws->tmp};
    const size_t d = sizeof(double);
    const size_t vsz[] = {d, d, d, d, d, d, d, d, d};
    void** const ci[] = {(void**)&ws->vc,  (void**)&ws->f, (void**)&ws->dvc,
                         (void**)&ws->imp, (void**)&ws->G, (void**)&ws->phi};
    const size_t csz[] = {3 * d, 3 * d, 3 * d, 3 * d, 9 * d, d};
    const int npv = pb->npv > 0 ? pb->npv : 1, nc = pb->nc > 0 ? pb->nc : 1;
    if (ccb_grow_many(vi, vsz, 9, &ws->cap_v, npv) ||
        ccb_grow((void**)&ws->vfull, &ws->cap_full, pb->nv > 0 ? pb->nv : 1, d) ||
        ccb_grow_many(ci, csz, 6, &ws->cap_c, nc) ||
        ccb_grow((void**)&ws->bs, &ws->cap_bs, pb->np > 0 ? pb->np : 1, sizeof(int))) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

static ccb_status push_hist(ccb_tamsi* ws, const ccb_tamsi_iter* it) {
    if (ws->nhist == ws->cap_hist &&
        ccb_grow((void**)&ws->hist, &ws->cap_hist, ws->nhist + 1, sizeof(ccb_tamsi_iter))) {
        return CCB_E_NOMEM;
    }
    ws->hist[ws->nhist++] = *it;
    return CCB_OK;
}

/* Forces f (and, if G != NULL, their Jacobian G = -df/dvc) of every contact at the stored vc,
 * for a substep of length hs (formulation-tamsi-hydro §D.2-§D.3, §A.3-§A.5). */
static void eval_forces(ccb_tamsi* ws, double hs, int with_G) {
    const ccb_problem* pb = ws->pb;
    const ccb_tamsi_params* p = &ws->prm;
    const double vs = pb->step.vs, eps_v = p->rho * vs;
    for (int i = 0; i < pb->nc; ++i) {
        const ccb_contact_input* in = &pb->contacts[i].in;
        const double* vc = ws->vc + 3 * i;
        double fn, dfn;
        if (p->coupling == CCB_TAMSI_TWO_WAY) { /* eq. 19 with delta ~ -phi - hs vn */
            const double x1 = 1.0 - in->d * vc[2], x2 = -in->k * ws->phi[i] - hs * in->k * vc[2];
            const double p1 = x1 > 0 ? x1 : 0.0, p2 = x2 > 0 ? x2 : 0.0;
            fn = p1 * p2;
            /* Heaviside with H(0) = 1 (spec conventions) */
            dfn = -(in->d * (x1 >= 0 ? 1.0 : 0.0) * p2 + hs * in->k * p1 * (x2 >= 0 ? 1.0 : 0.0));
        } else { /* frozen: pi(delta0, vn0) (formulation-tamsi-hydro §D.2) */
            const double x1 = 1.0 - in->d * in->vn0, x2 = -ws->phi[i];
            fn = in->k * (x1 > 0 ? x1 : 0.0) * (x2 > 0 ? x2 : 0.0);
            dfn = 0.0;
        }
        double* f = ws->f + 3 * i;
        double Dt[4], mus, t[2];
        ccb_friction_soft_aniso(p->friction, in->mu, in->mu2, fn, vc, vs, eps_v, f,
                                with_G ? Dt : NULL, &mus, t);
        f[2] = fn;
        if (with_G) {
            double* G = ws->G + 9 * i;
            G[0] = Dt[0];
            G[1] = Dt[1];
            G[2] = mus * t[0] * dfn;
            G[3] = Dt[2];
            G[4] = Dt[3];
            G[5] = mus * t[1] * dfn;
            G[6] = 0.0;
            G[7] = 0.0;
            G[8] = -dfn;
        }
    }
}

/* r = A_s v - p_s - hs J^T f, with A_s v - p_s = A (v - vsub) + (h - hs)... see the header:
 * A_s v - p_s = A v - (h - hs) D v - (A - h D) vsub - (hs/h) g. Returns |r|_2. */
static double residual(ccb_tamsi* ws, double h, double hs) {
    const ccb_problem* pb = ws->pb;
    const int n = ws->npv;
    for (int k = 0; k < n; ++k) {
        ws->tmp[k] = ws->v[k] - ws->vsub[k];
    }
    ccb_problem_A_mul(pb, ws->tmp, ws->r);
    ccb_problem_Jt_mul(pb, ws->f, ws->tmp);
    double s = 0.0;
    for (int k = 0; k < n; ++k) {
        ws->r[k] += -(h - hs) * ws->Ddiag[k] * ws->v[k] + h * ws->Ddiag[k] * ws->vsub[k] -
                    (hs / h) * ws->g[k] - hs * ws->tmp[k];
        s += ws->r[k] * ws->r[k];
    }
    return sqrt(s);
}

/* dr/dv = A_s + hs J^T G J into the block LU storage (spec eq. 23). */
static void assemble(ccb_tamsi* ws, double h, double hs) {
    const ccb_problem* pb = ws->pb;
    ccb_sparse_lu_zero(ws->lu);
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        const int n = pb->clique_nv[c];
        double* B = ccb_sparse_lu_diag_block(ws->lu, a);
        memcpy(B, pb->A + pb->clique_aoff[c], (size_t)n * n * sizeof(double));
        for (int k = 0; k < n; ++k) {
            B[k * n + k] -= (h - hs) * ws->Ddiag[pb->pvoff[a] + k];
        }
    }
    for (int i = 0; i < pb->nc; ++i) {
        const ccb_pcontact* pc = &pb->contacts[i];
        double G[9];
        for (int k = 0; k < 9; ++k) {
            G[k] = hs * ws->G[9 * i + k];
        }
        int pid[2], nvb[2];
        for (int k = 0; k < pc->nblk; ++k) {
            pid[k] = pb->clique_pidx[pc->clique[k]];
            nvb[k] = pb->clique_nv[pc->clique[k]];
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, k), nvb[k], G, ccb_pc_block(pb, pc, k),
                                 nvb[k], ccb_sparse_lu_diag_block(ws->lu, pid[k]));
        }
        if (pc->nblk == 2) {
            const int lo = pid[0] < pid[1] ? 0 : 1, hi = 1 - lo;
            const int e = ccb_sparse_lu_find_edge(ws->lu, pid[lo], pid[hi]);
            CCB_ASSERT(e >= 0);
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, lo), nvb[lo], G, ccb_pc_block(pb, pc, hi),
                                 nvb[hi], ccb_sparse_lu_edge_block(ws->lu, e, 0));
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, hi), nvb[hi], G, ccb_pc_block(pb, pc, lo),
                                 nvb[lo], ccb_sparse_lu_edge_block(ws->lu, e, 1));
        }
    }
}

/* Newton-TALS iterations of one (sub)step from the guess in ws->v (formulation-tamsi-hydro §D.4).
 * */
static ccb_status solve_substep(ccb_tamsi* ws, double h, double hs, int attempt, int sub) {
    const ccb_problem* pb = ws->pb;
    const ccb_tamsi_params* p = &ws->prm;
    const double eps_v = p->rho * pb->step.vs;
    const int use_umfpack = p->linear_solver == CCB_TAMSI_LU_UMFPACK ||
                            (p->linear_solver == CCB_TAMSI_LU_AUTO && pb->np > 1);
    double e_t = 2.0 * eps_v, e_n = 2.0 * eps_v;
    for (int it = 0; it < p->max_iterations; ++it) {
        ccb_problem_J_mul(pb, ws->v, 1, ws->vc);
        const int done = e_t < eps_v && e_n < eps_v;
        eval_forces(ws, hs, !done);
        const double rn = residual(ws, h, hs);
        ws->st.residual = rn;
        if (!isfinite(rn)) {
            return fail(ws, CCB_E_NONFINITE,
                        "TAMSI attempt %d, substep %d, iteration %d: residual is not finite",
                        attempt, sub, it);
        }
        if (done) {
            return CCB_OK;
        }
        /* Newton direction: (dr/dv) dv = -r */
        assemble(ws, h, hs);
        ccb_status s = ccb_sparse_lu_factor(ws->lu, use_umfpack, ws->msg, sizeof ws->msg);
        ws->st.iterations++;
        ws->n_factorizations++;
        if (s != CCB_OK) {
            return fail(ws, s, "TAMSI attempt %d, substep %d, iteration %d: %s", attempt, sub, it,
                        ccb_tamsi_last_error(ws));
        }
        for (int k = 0; k < ws->npv; ++k) {
            ws->dv[k] = -ws->r[k];
        }
        s = ccb_sparse_lu_solve(ws->lu, ws->dv, ws->dv, ws->msg, sizeof ws->msg);
        if (s != CCB_OK) {
            return fail(ws, s, "TAMSI attempt %d, substep %d, iteration %d: %s", attempt, sub, it,
                        ccb_tamsi_last_error(ws));
        }
        /* update sizes and TALS (formulation-tamsi-hydro §C.2) */
        ccb_problem_J_mul(pb, ws->dv, 0, ws->dvc);
        double st2 = 0.0, sn2 = 0.0, alpha = 1.0;
        int limited = 0;
        for (int i = 0; i < pb->nc; ++i) {
            const double* d = ws->dvc + 3 * i;
            st2 += d[0] * d[0] + d[1] * d[1];
            sn2 += d[2] * d[2];
            if (p->tals) {
                ccb_tals_case w;
                const double a = ccb_tals_alpha(&ws->tals, ws->vc + 3 * i, d, &w);
                ws->st.tals_cases[w]++;
                if (w == CCB_TALS_FAILED) {
                    return fail(ws, CCB_E_NOTCONV,
                                "TAMSI attempt %d, substep %d, iteration %d: TALS found no angle "
                                "limit for contact %d",
                                attempt, sub, it, i);
                }
                if (a < 1.0) {
                    limited++;
                    alpha = fmin(alpha, a);
                }
            }
        }
        e_t = sqrt(st2);
        e_n = p->coupling == CCB_TAMSI_TWO_WAY ? sqrt(sn2) : 0.0;
        if (!(alpha > 0)) {
            return fail(ws, CCB_E_NOTCONV,
                        "TAMSI attempt %d, substep %d, iteration %d: TALS step %g is not in (0, 1]",
                        attempt, sub, it, alpha);
        }
        for (int k = 0; k < ws->npv; ++k) {
            ws->v[k] += alpha * ws->dv[k];
        }
        ws->st.e_t = e_t;
        ws->st.e_n = e_n;
        ws->st.alpha_min = fmin(ws->st.alpha_min, alpha);
        const ccb_tamsi_iter rec = {rn, e_t, e_n, alpha, limited};
        if (push_hist(ws, &rec) != CCB_OK) {
            return fail(ws, CCB_E_NOMEM, "TAMSI: out of memory for the iteration history");
        }
    }
    return fail(ws, CCB_E_NOTCONV,
                "TAMSI attempt %d (%d substeps), substep %d: no convergence in %d iterations "
                "(|dvt| = %.3g, |dvn| = %.3g m/s, tolerance %.3g m/s)",
                attempt, attempt, sub, p->max_iterations, e_t, e_n, eps_v);
}

/* One attempt with N equal substeps from v0; writes ws->v and ws->imp. */
static ccb_status attempt(ccb_tamsi* ws, const double* guess, int N) {
    const ccb_problem* pb = ws->pb;
    const double h = pb->step.dt, hs = h / (double)N;
    memcpy(ws->vsub, ws->v0, (size_t)ws->npv * sizeof(double));
    memset(ws->imp, 0, 3 * (size_t)pb->nc * sizeof(double));
    for (int i = 0; i < pb->nc; ++i) {
        ws->phi[i] = pb->contacts[i].in.phi0;
    }
    for (int s = 0; s < N; ++s) {
        if (s == 0) {
            memmove(ws->v, guess, (size_t)ws->npv * sizeof(double));
        } else {
            memcpy(ws->v, ws->vsub, (size_t)ws->npv * sizeof(double));
        }
        const ccb_status st = solve_substep(ws, h, hs, N, s);
        if (st != CCB_OK) {
            return st;
        }
        for (int i = 0; i < pb->nc; ++i) {
            for (int r = 0; r < 3; ++r) {
                ws->imp[3 * i + r] += hs * ws->f[3 * i + r];
            }
            ws->phi[i] += hs * ws->vc[3 * i + 2];
        }
        memcpy(ws->vsub, ws->v, (size_t)ws->npv * sizeof(double));
    }
    return CCB_OK;
}

/* Validates and copies the problem into the workspace: reduced v*, v0, D, g, the block pattern
 * and the guess (in ws->tmp). */
static ccb_status setup(ccb_tamsi* ws, const ccb_problem* pb, const ccb_tamsi_params* prm,
                        const double* v_guess) {
    memset(&ws->st, 0, sizeof ws->st);
    ws->st.alpha_min = 1.0;
    ws->nhist = 0;
    ws->pb = NULL;
    if (pb == NULL || pb->approx == NULL) {
        return fail(ws, CCB_E_INVALID, "TAMSI: problem is NULL or was never built");
    }
    ccb_status s = ccb_tamsi_params_check(prm, ws->msg, sizeof ws->msg);
    if (s != CCB_OK) {
        ws->st.status = s;
        return s;
    }
    if (reserve(ws, pb) != CCB_OK) {
        return fail(ws, CCB_E_NOMEM, "TAMSI: out of memory");
    }
    ws->pb = pb;
    ws->prm = *prm;
    ws->tals.vs = pb->step.vs; /* v_s comes with the step (ccb/step.h) */
    ws->tals.rho = prm->rho;
    ws->tals.theta_max = prm->theta_max;
    ws->npv = pb->npv;
    ws->nc = pb->nc;
    ws->st.nv = pb->npv;
    ws->st.nc = pb->nc;
    ws->st.tolerance = prm->rho * pb->step.vs;
    const double h = pb->step.dt;
    const double* guess_full = v_guess ? v_guess : pb->v0;
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        for (int k = 0; k < pb->clique_nv[c]; ++k) {
            const int iv = pb->clique_voff[c] + k, ir = pb->pvoff[a] + k;
            ws->tmp[ir] = ws->vstar[ir] = pb->vstar[iv];
            ws->v0[ir] = pb->v0[iv];
            ws->Ddiag[ir] = pb->Ddiag[iv];
        }
    }
    /* g = A (v* - v0) + h D v0 = h k2, the non-contact impulse of the step */
    for (int k = 0; k < ws->npv; ++k) {
        ws->tmp[k] -= ws->v0[k];
    }
    ccb_problem_A_mul(pb, ws->tmp, ws->g);
    for (int k = 0; k < ws->npv; ++k) {
        ws->g[k] += h * ws->Ddiag[k] * ws->v0[k];
    }
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        ws->bs[a] = pb->clique_nv[c];
        memcpy(ws->tmp + pb->pvoff[a], guess_full + pb->clique_voff[c],
               (size_t)pb->clique_nv[c] * sizeof(double));
    }
    if (!ccb_all_finite(ws->tmp, (size_t)ws->npv)) {
        return fail(ws, CCB_E_NONFINITE, "TAMSI: initial guess has a non-finite entry");
    }
    s = ccb_sparse_lu_set_pattern(ws->lu, pb->np, ws->bs, pb->nedge, pb->edges, ws->msg,
                                  sizeof ws->msg);
    if (s != CCB_OK) {
        ws->st.status = s;
    }
    return s;
}

ccb_status ccb_tamsi_solve(ccb_tamsi* ws, const ccb_problem* pb, const ccb_tamsi_params* prm,
                           const double* v_guess, double* v_out, ccb_tamsi_stats* stats) {
    if (ws == NULL) {
        return CCB_E_INVALID;
    }
    ccb_status s = setup(ws, pb, prm, v_guess);
    /* no contact: v = v* (formulation-tamsi-hydro §D.4, nc = 0) */
    if (s != CCB_OK || ws->npv == 0) {
        ws->st.attempts = ws->st.substeps = s == CCB_OK ? 1 : 0;
        goto out;
    }
    /* the guess is in tmp, which the iterations overwrite: keep it in dv until the first one */
    memcpy(ws->dv, ws->tmp, (size_t)ws->npv * sizeof(double));
    for (int N = 1; N <= prm->max_substeps; ++N) {
        ws->st.attempts = N;
        s = attempt(ws, N == 1 ? ws->dv : ws->v0, N);
        if (s == CCB_OK) {
            ws->st.substeps = N;
            break;
        }
        if (s == CCB_E_NOMEM || s == CCB_E_INVALID || s == CCB_E_INTERNAL) {
            break;
        }
    }
    if (s != CCB_OK && s != CCB_E_NOMEM && ws->st.attempts > 1) {
        char last[CCB_MSG_SIZE];
        snprintf(last, sizeof last, "%s", ws->msg);
        fail(ws, s, "TAMSI failed with 1..%d substeps; last attempt: %s", ws->st.attempts, last);
    }
out:
    ws->st.status = s;
    if (s == CCB_OK && v_out) {
        memcpy(v_out, ccb_tamsi_velocities(ws), (size_t)pb->nv * sizeof(double));
    }
    if (stats) {
        *stats = ws->st;
    }
    return s;
}

ccb_status ccb_tamsi_eval(ccb_tamsi* ws, const ccb_problem* pb, const ccb_tamsi_params* prm,
                          const double* v, double* r, double* Jd) {
    ccb_status s = setup(ws, pb, prm, v);
    if (s != CCB_OK) {
        return s;
    }
    const double h = pb->step.dt;
    memcpy(ws->v, ws->tmp, (size_t)ws->npv * sizeof(double));
    memcpy(ws->vsub, ws->v0, (size_t)ws->npv * sizeof(double));
    for (int i = 0; i < pb->nc; ++i) {
        ws->phi[i] = pb->contacts[i].in.phi0;
    }
    ccb_problem_J_mul(pb, ws->v, 1, ws->vc);
    eval_forces(ws, h, 1);
    residual(ws, h, h);
    memcpy(r, ws->r, (size_t)ws->npv * sizeof(double));
    assemble(ws, h, h);
    ccb_sparse_lu_to_dense(ws->lu, Jd);
    return CCB_OK;
}

const double* ccb_tamsi_velocities(const ccb_tamsi* ws) {
    if (ws == NULL || ws->pb == NULL) {
        return NULL;
    }
    ccb_problem_expand(ws->pb, ws->v, ws->vfull);
    return ws->vfull;
}
const double* ccb_tamsi_contact_velocities(const ccb_tamsi* ws) {
    return ws ? ws->vc : NULL;
}
const double* ccb_tamsi_forces(const ccb_tamsi* ws) {
    return ws ? ws->f : NULL;
}
const double* ccb_tamsi_impulses(const ccb_tamsi* ws) {
    return ws ? ws->imp : NULL;
}
const ccb_tamsi_iter* ccb_tamsi_history(const ccb_tamsi* ws, int* n) {
    if (n) {
        *n = ws ? ws->nhist : 0;
    }
    return ws ? ws->hist : NULL;
}
void ccb_tamsi_counters(const ccb_tamsi* ws, long* analyses, long* factorizations) {
    if (analyses) {
        *analyses = ws ? ccb_sparse_lu_analyses(ws->lu) : 0;
    }
    if (factorizations) {
        *factorizations = ws ? ws->n_factorizations : 0;
    }
}
