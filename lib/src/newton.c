/* newton: Newton's method with exact line search on the convex primal contact problem.
 * (About 940 lines: the iteration, its stopping test, the Hessian's assembly and the workspace
 * share the private state of newton_internal.h; the far contacts, the line search and the
 * islands are files of their own: newton_far.c, newton_line.c, newton_island.c.)
 *
 * spec: formulation-convex §8 (ICF §X, eq. (28); SAP paper; Drake sap_solver.cc).
 *   cost      l(v) = 1/2 (v - v*)^T A (v - v*) + sum_i l_i(v_c,i),  v_c = J v + b      (§1.2)
 *   gradient  r = A (v - v*) - J^T gamma                                                 (§1.2)
 *   Hessian   H = A + J^T G J, assembled by cliques: H_aa += J_ia^T G_i J_ia,
 *             H_ab += J_ia^T G_i J_ib for a contact on cliques a < b                     (§8.2)
 *   direction H dv = -r (CHOLMOD supernodal, AMD)                                         (§8.1)
 *   line      l(alpha)   = l_A + alpha dp.(v - v*) + alpha^2 a/2 + sum_i l_i(v_c + alpha dv_c)
 *             l'(alpha)  = dp.(v - v*) + alpha a - dv_c . gamma(alpha)
 *             l''(alpha) = a + sum_i dv_c,i^T G_i(alpha) dv_c,i,   dp = A dv, a = dv.dp   (§8.3)
 *   search    root of f = l'/(-l'(0)) on [0, alpha_max] by rtsafe (Numerical Recipes §9.4):
 *             Newton steps on f kept inside a shrinking bracket, bisection when Newton leaves
 *             the bracket or is slow (2|f| > |dx_prev f'|); stops at |f| < f_tol or
 *             |dx| < alpha_tol                                          (formulation-convex §8.4)
 *   stop      |D r| <= eps_a + eps_r max(|D p|, |D j|), D = diag(A)^{-1/2}, j = J^T gamma,
 *             p = A (v - v0) (momentum change of the step; the spec's p = A v is an option,
 *             see ccb_stop_scale in newton.h for why); or the cost stalled (relative change
 *             < eps_cost_r with alpha > 0.5)                                                (§8.5)
 * Only participating cliques (touched by a contact) are unknowns; the others have v = v*.
 * Islands (prm.islands; formulation-convex §8.10): the cost is a sum over the connected
 * components of the graph of participating cliques and contacts (near, far and deferred: every
 * contact the problem holds), and H is block diagonal by component, so the Newton step of the
 * whole problem is the Newton step of every island at once; only the line search (one alpha)
 * and the stopping test (one norm) couple them. With islands on, each island takes the step of
 * its own exact line search and its own stopping test; a converged island is frozen (right-hand
 * side and dv zero, its contacts neither assembled nor evaluated) while the others iterate.
 * Without islands the whole problem is one island, and every number is the one this solver
 * computed before islands existed (the per-island sums accumulate in the same order). The
 * islands' bookkeeping is in newton_island.c.
 * Far contacts: a contact that provably stays inactive at every point an iteration evaluates is
 * left out of that iteration (no J dv, evaluation or line search term); see newton_far.c
 * for the bound and why the result is bit-identical to evaluating every contact.
 * No allocation happens inside an iteration once the workspace has grown to the problem size. */
#include "ccb/newton.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "dense.h"
#include "newton_internal.h"

/* the rows of names.c (ccb/names.h) */
_Static_assert(CCB_LINSOLVE_DENSE == 2 && CCB_STOP_MOMENTUM == 1,
               "ccb_names_linear_solver and ccb_names_stop_scale follow the enumerations");
ccb_newton_params ccb_newton_params_default(void) {
    ccb_newton_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.eps_a = 1e-14;
    p.eps_r = 1e-5;
    p.eps_cost_a = 1e-30;
    p.eps_cost_r = 1e-15;
    p.max_iterations = 100;
    p.ls_alpha_max = 1.5;
    p.ls_max_evals = 100;
    p.ls_ftol = 1e-8;
    p.ls_alpha_rtol = 1e-8;
    p.compute_kappa = 0;
    p.kappa_max_nv = 2000;
    p.linear_solver = CCB_LINSOLVE_AUTO;
    p.stop_scale = CCB_STOP_STEP_MOMENTUM;
    p.time_phases = 1;
    p.pattern_near = 1;
    p.islands = 1;      /* the fast path by default (formulation-convex §8.10, §8.11) */
    p.lazy_pairs = 1;   /* (velocities bit-identical; fewer contacts listed) */
    p.count_states = 0; /* a diagnosis (`ccb bench --peers`), not a result */
    return p;
}

ccb_status ccb_newton_params_check(const ccb_newton_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "Newton parameters: NULL pointer");
    }
    if (!(isfinite(p->eps_a) && p->eps_a >= 0) || !(isfinite(p->eps_r) && p->eps_r >= 0) ||
        !(p->eps_a + p->eps_r > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "Newton tolerances eps_a = %g, eps_r = %g must be finite, >= 0 and not "
                          "both 0",
                          p->eps_a, p->eps_r);
    }
    if (!(isfinite(p->eps_cost_a) && p->eps_cost_a >= 0) ||
        !(isfinite(p->eps_cost_r) && p->eps_cost_r >= 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "Newton cost tolerances must be finite and >= 0");
    }
    if (p->max_iterations < 1 || p->max_iterations > 100000) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "max_iterations must be in [1, 100000] (got %d)",
                          p->max_iterations);
    }
    if (!(isfinite(p->ls_alpha_max) && p->ls_alpha_max >= 1 && p->ls_alpha_max <= 10)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ls_alpha_max must be in [1, 10] (got %g)",
                          p->ls_alpha_max);
    }
    if (p->ls_max_evals < 2 || !(p->ls_ftol > 0 && p->ls_ftol < 1) ||
        !(p->ls_alpha_rtol > 0 && p->ls_alpha_rtol < 1)) {
        return ccb_errorf(
            msg, n, CCB_E_INVALID,
            "line search: need ls_max_evals >= 2 and ls_ftol, ls_alpha_rtol in (0, 1)");
    }
    if (p->stop_scale != CCB_STOP_STEP_MOMENTUM && p->stop_scale != CCB_STOP_MOMENTUM) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown stopping scale %d", (int)p->stop_scale);
    }
    if (p->evaluate_all != 0 && p->evaluate_all != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "evaluate_all must be 0 or 1");
    }
    if (p->pattern_near != 0 && p->pattern_near != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "pattern_near must be 0 or 1");
    }
    if (p->lazy_pairs != 0 && p->lazy_pairs != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "lazy_pairs must be 0 or 1");
    }
    if (p->islands != 0 && p->islands != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "islands must be 0 or 1");
    }
    if (p->time_phases != 0 && p->time_phases != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "time_phases must be 0 or 1");
    }
    if (p->count_states != 0 && p->count_states != 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "count_states must be 0 or 1");
    }
    if (p->kappa_max_nv < 1) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "kappa_max_nv must be >= 1");
    }
    if (p->linear_solver != CCB_LINSOLVE_AUTO && p->linear_solver != CCB_LINSOLVE_CHOLMOD &&
        p->linear_solver != CCB_LINSOLVE_DENSE && p->linear_solver != CCB_LINSOLVE_BLOCK) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "unknown linear solver %d", (int)p->linear_solver);
    }
    return CCB_OK;
}

ccb_status ccb_newton_create(ccb_newton** out) {
    if (out == NULL) {
        return CCB_E_INVALID;
    }
    ccb_newton* ws = ccb_calloc(1, sizeof(ccb_newton));
    if (ws == NULL) {
        return CCB_E_NOMEM;
    }
    if (ccb_sparse_create(&ws->sp) != CCB_OK) {
        ccb_free(ws);
        return CCB_E_NOMEM;
    }
    ws->kappa = -1;
    *out = ws;
    return CCB_OK;
}

void ccb_newton_destroy(ccb_newton* ws) {
    if (ws == NULL) {
        return;
    }
    ccb_sparse_destroy(ws->sp);
    double* arrays[] = {ws->v,   ws->vs,    ws->v0, ws->dinv,  ws->r, ws->dv,  ws->dp,
                        ws->tmp, ws->vfull, ws->vc, ws->gamma, ws->G, ws->dvc, ws->kbuf};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        ccb_free(arrays[i]);
    }
    ccb_free(ws->bs);
    ccb_free(ws->kibuf);
    ccb_free(ws->hist);
    ccb_free(ws->ls_active);
    ccb_free(ws->cstate);
    ccb_free(ws->near);
    ccb_free(ws->far);
    ccb_free(ws->prom);
    ccb_free(ws->far_r);
    ccb_free(ws->far_a);
    ccb_free(ws->far_s);
    ccb_free(ws->far_d);
    ccb_free(ws->lazy_acc);
    ccb_free(ws->fm_i);
    ccb_free(ws->fg_start);
    ccb_free(ws->fg_end);
    ccb_free(ws->fg_a);
    ccb_free(ws->fg_r);
    ccb_free(ws->fg_s);
    ccb_free(ws->fg_d);
    ccb_free(ws->fg_live);
    ccb_free(ws->vg);
    ccb_free(ws->rho);
    ccb_free(ws->rho_e);
    ccb_free(ws->dvh);
    ccb_free(ws->pkeys);
    ccb_free(ws->isl_v);
    ccb_free(ws->icon);
    ccb_free(ws->act);
    ccb_free(ws->il);
    ccb_free(ws->ahist);
    ccb_free(ws->skipb);
    ccb_free(ws->acl);
    ccb_free(ws->adof);
    ccb_free(ws);
}

const char* ccb_newton_last_error(const ccb_newton* ws) {
    return ws ? ws->msg : "workspace is NULL";
}

ccb_status ccb_newton_fail(ccb_newton* ws, ccb_status s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ccb_verrorf(ws->msg, sizeof ws->msg, s, fmt, ap);
    va_end(ap);
    ws->status = s;
    return s;
}

/* ---- block operations on the reduced (participating) vector -------------------------------- */

static void Jt_mul(const ccb_newton* ws, const double* g, double* y) {
    /* far contacts have gamma = 0: over the near ones, in the same order */
    ccb_problem_Jt_mul_some(ws->pb, ws->near, ws->n_near, g, y);
}

/* Impulses and Hessians at the stored v_c of the contacts list[0..n-1] (every near contact of
 * the islands not done), and the contact cost of those islands. */
static void eval_contacts(ccb_newton* ws, const int* list, int n) {
    const ccb_problem* pb = ws->pb;
    for (int I = 0; I < ws->nisl; ++I) {
        if (!ws->il[I].done) {
            ws->il[I].cost_c = 0.0;
        }
    }
    for (int k = 0; k < n; ++k) {
        const int i = list[k];
        ws->il[ws->icon[i]].cost_c += ccb_constraint_eval(
            pb->approx, &pb->contacts[i].c, ws->vc + 3 * i, ws->gamma + 3 * i, ws->G + 9 * i);
    }
    if (ws->prm.count_states) { /* the contacts' states at this iterate, and how many changed */
        const double vs2 = pb->step.vs * pb->step.vs;
        int changed = 0;
        for (int k = 0; k < n; ++k) {
            const int i = list[k];
            const double *g = ws->gamma + 3 * i, *vc = ws->vc + 3 * i;
            /* separate: no normal impulse; stick: |v_t| within the stiction tolerance */
            const unsigned char st = !(g[2] > 0.0)                          ? 0
                                     : vc[0] * vc[0] + vc[1] * vc[1] <= vs2 ? 1
                                                                            : 2;
            changed += st != ws->cstate[i];
            ws->cstate[i] = st;
        }
        ws->changes_last = changed;
    }
}

/* Cost of the current v (fills gamma, G; vc from J v + b, or, after a line search step of
 * length alpha_I in each island I, updated as vc + alpha_I J dv, which costs 3 nc operations
 * instead of a product with J: the same vector up to round-off). Frozen islands keep theirs. */
static void eval_iterate(ccb_newton* ws, int start) {
    const int nk = ccb_newton_ndofs(ws);
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->tmp[k] = ws->v[k] - ws->vs[k];
    }
    ccb_newton_A_mul_active(ws, ws->tmp, ws->dp); /* dp used as scratch here */
    for (int I = 0; I < ws->nisl; ++I) {
        if (!ws->il[I].done) {
            ws->il[I].cost_A = 0.0;
        }
    }
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->il[ws->isl_v[k]].cost_A += ws->tmp[k] * ws->dp[k];
    }
    if (start) { /* every v_c is recomputed (at the start: the far ones are not listed) */
        if (ws->prm.count_states) { /* a far contact is separate */
            memset(ws->cstate, 0, (size_t)ws->nc);
        }
        ws->status = ccb_newton_far_promote_all(ws);
        if (ws->status != CCB_OK) {
            ws->cost = NAN;
            return;
        }
        ccb_problem_J_mul_some(ws->pb, ws->near, ws->n_near, ws->v, 1, ws->vc);
        eval_contacts(ws, ws->near, ws->n_near);
        ws->changes_last = 0; /* the initial states: no iteration has changed them */
    } else {
        const int n = ws->nisl == 1 ? ws->n_near : ws->n_act;
        const int* list = ws->nisl == 1 ? ws->near : ws->act;
        for (int k = 0; k < n; ++k) {
            const double alpha = ws->il[ws->icon[list[k]]].alpha;
            double* vc = ws->vc + 3 * list[k];
            const double* dvc = ws->dvc + 3 * list[k];
            for (int r = 0; r < 3; ++r) {
                vc[r] += alpha * dvc[r];
            }
        }
        eval_contacts(ws, list, n);
        ws->changes_total += ws->changes_last;
    }
    double cost_A = 0.0, cost_c = 0.0;
    for (int I = 0; I < ws->nisl; ++I) {
        if (!ws->il[I].done) { /* a frozen island keeps its cost */
            ws->il[I].cost_A *= 0.5;
        }
        cost_A = I == 0 ? ws->il[I].cost_A : cost_A + ws->il[I].cost_A;
        cost_c = I == 0 ? ws->il[I].cost_c : cost_c + ws->il[I].cost_c;
    }
    ws->cost_A = cost_A;
    ws->cost = cost_A + cost_c;
    ws->r_valid = 0;
}

/* ---- setup ---------------------------------------------------------------------------------- */

/* nc contacts; nf = nc + the problem's lazy pairs (far slots and islands, formulation-convex §8.11) */
static ccb_status reserve(ccb_newton* ws, int npv, int nv, int nc, int nf) {
    void** const vi[] = {(void**)&ws->v, (void**)&ws->vs, (void**)&ws->v0, (void**)&ws->dinv,
                         (void**)&ws->r, (void**)&ws->dv, (void**)&ws->dp, (void**)&ws->tmp};
    const size_t d = sizeof(double);
    const size_t vsz[] = {d, d, d, d, d, d, d, d};
    void** const ci[] = {(void**)&ws->vc, (void**)&ws->gamma, (void**)&ws->dvc};
    const size_t csz[] = {3 * sizeof(double), 3 * sizeof(double), 3 * sizeof(double)};
    int cap_g = ws->cap_c;
    if (ccb_grow_many(vi, vsz, 8, &ws->cap_v, npv > 0 ? npv : 1) ||
        ccb_grow((void**)&ws->vfull, &ws->cap_full, nv > 0 ? nv : 1, sizeof(double)) ||
        ccb_grow((void**)&ws->G, &cap_g, nc > 0 ? nc : 1, 9 * sizeof(double)) ||
        ccb_grow_many(ci, csz, 3, &ws->cap_c, nc > 0 ? nc : 1) ||
        ccb_grow((void**)&ws->ls_active, &ws->cap_ls, nc > 0 ? nc : 1, sizeof(int)) ||
        ccb_grow((void**)&ws->cstate, &ws->cap_cstate, nc > 0 ? nc : 1, 1)) {
        return CCB_E_NOMEM;
    }
    void** const fi[] = {(void**)&ws->near,  (void**)&ws->far,     (void**)&ws->prom,
                         (void**)&ws->far_r, (void**)&ws->far_a,   (void**)&ws->far_s,
                         (void**)&ws->far_d, (void**)&ws->lazy_acc};
    const size_t fs[] = {sizeof(int),     sizeof(int),        sizeof(int),        sizeof(double),
                         2 * sizeof(int), 2 * sizeof(double), 2 * sizeof(double), sizeof(int)};
    void** const gi[] = {(void**)&ws->fm_i, (void**)&ws->fg_start, (void**)&ws->fg_end,
                         (void**)&ws->fg_a, (void**)&ws->fg_r,     (void**)&ws->fg_s,
                         (void**)&ws->fg_d, (void**)&ws->fg_live};
    const size_t gs[] = {sizeof(int),    sizeof(int),        sizeof(int),        sizeof(int) * 2,
                         sizeof(double), 2 * sizeof(double), 2 * sizeof(double), sizeof(int)};
    if (ccb_grow_many(fi, fs, 8, &ws->cap_far, nf > 0 ? nf : 1) ||
        ccb_grow_many(gi, gs, 8, &ws->cap_fg, nf + 1) ||
        ccb_grow((void**)&ws->vg, &ws->cap_vg, npv > 0 ? npv : 1, sizeof(double)) ||
        ccb_grow((void**)&ws->rho, &ws->cap_rho, npv > 0 ? npv : 1, sizeof(double)) ||
        ccb_grow((void**)&ws->rho_e, &ws->cap_rho_e, npv > 0 ? npv : 1, 2 * sizeof(double))) {
        return CCB_E_NOMEM;
    }
    if (ccb_grow((void**)&ws->isl_v, &ws->cap_isl_v, npv > 0 ? npv : 1, sizeof(int)) ||
        ccb_grow((void**)&ws->icon, &ws->cap_icon, nf > 0 ? nf : 1, sizeof(int)) ||
        ccb_grow((void**)&ws->act, &ws->cap_act, nc > 0 ? nc : 1, sizeof(int)) ||
        ccb_grow((void**)&ws->il, &ws->cap_il, npv + 1, sizeof(ccb_newton_island)) ||
        ccb_grow((void**)&ws->skipb, &ws->cap_skipb, npv + 1, 1) || /* np <= npv */
        ccb_grow((void**)&ws->acl, &ws->cap_acl, npv + 1, sizeof(int)) ||
        ccb_grow((void**)&ws->adof, &ws->cap_adof, npv + 1, sizeof(int))) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

ccb_status ccb_newton_init(ccb_newton* ws, const ccb_problem* pb, const ccb_newton_params* prm,
                           const double* v_guess) {
    if (ws == NULL) {
        return CCB_E_INVALID;
    }
    ws->initialized = 0;
    ws->status = CCB_E_INVALID;
    ws->n_lazy_fail = ws->n_lazy_acc = 0;
    if (pb == NULL || pb->approx == NULL) {
        return ccb_newton_fail(ws, CCB_E_INVALID,
                               "newton_init: problem is NULL or was never built");
    }
    ccb_status s = ccb_newton_params_check(prm, ws->msg, sizeof ws->msg);
    if (s != CCB_OK) {
        ws->status = s;
        return s;
    }
    if (pb->npairs > 0 && prm->evaluate_all) {
        return ccb_newton_fail(ws, CCB_E_RETRY,
                               "newton_init: the problem holds lazy contact pairs and every "
                               "contact is to be evaluated (evaluate_all)");
    }
    if (reserve(ws, pb->npv, pb->nv, pb->nc, pb->nc + pb->npairs) != CCB_OK) {
        return ccb_newton_fail(ws, CCB_E_NOMEM, "newton_init: out of memory");
    }
    ws->pb = pb;
    ws->prm = *prm;
    ws->npv = pb->npv;
    ws->nc = pb->nc;
    const double* guess = v_guess ? v_guess : pb->v0;
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a];
        for (int k = 0; k < pb->clique_nv[c]; ++k) {
            const int iv = pb->clique_voff[c] + k, ir = pb->pvoff[a] + k;
            ws->v[ir] = guess[iv];
            ws->vs[ir] = pb->vstar[iv];
            ws->v0[ir] = pb->v0[iv];
            /* D = diag(A)^{-1/2} (formulation-convex §8.5) */
            ws->dinv[ir] = 1.0 / sqrt(pb->Adiag[iv]);
        }
    }
    if (!ccb_all_finite(ws->v, (size_t)ws->npv)) {
        return ccb_newton_fail(ws, CCB_E_NONFINITE,
                               "newton_init: initial guess has a non-finite entry");
    }
    ws->iter = 0;
    ws->t_assemble = ws->t_factor = ws->t_linesearch = ws->t_eval = ws->t_kappa = 0.0;
    ws->cost_ok = 0;
    ws->ls_evals = 0;
    ws->nhist = 0;
    ws->alpha_min = 1.0;
    ws->kappa = -1;
    ws->analyses_at_init = ccb_sparse_analyses(ws->sp);
    ws->residual = ws->tolerance = 0.0;
    ws->ratio_now = ws->ratio_prev = 0.0;
    ws->stop_term = CCB_STOP_TERM_ABSOLUTE;
    ws->changes_last = ws->changes_total = 0;
    ccb_newton_islands_init(ws);
    ccb_newton_build_active(ws);
    ws->pattern_ok = 0;
    /* every contact the problem did not defer is evaluated at the initial iterate (deferred
     * ones are inactive there: gamma = 0, G = 0, l_i = 0) */
    ws->n_far = ws->nc_far = ws->n_near = 0;
    for (int i = 0; i < ws->nc; ++i) {
        if (pb->contacts[i].deferred && ws->prm.evaluate_all) {
            s = ccb_newton_far_complete(ws, i);
            if (s != CCB_OK) {
                return s;
            }
        }
        if (pb->contacts[i].deferred) {
            memset(ws->gamma + 3 * i, 0, 3 * sizeof(double));
            memset(ws->G + 9 * i, 0, 9 * sizeof(double));
        } else {
            ws->near[ws->n_near++] = i;
        }
    }
    eval_iterate(ws, 1);
    ccb_newton_far_init(ws);
    ccb_newton_build_act(ws); /* the first test's contacts (with islands) */
    if (!isfinite(ws->cost)) {
        return ccb_newton_fail(ws, CCB_E_NONFINITE,
                               "newton_init: cost at the initial guess is not finite");
    }
    ws->initialized = 1;
    ws->status = CCB_CONTINUE;
    return CCB_OK;
}

/* ---- stopping test (formulation-convex §8.5)
 * -------------------------------------------------------------------- */

ccb_status ccb_newton_test(ccb_newton* ws) {
    if (ws == NULL || !ws->initialized) {
        return CCB_E_INVALID;
    }
    double* j = ws->dv;                  /* scratch: J^T gamma */
    double* p = ws->dp;                  /* scratch: A v */
    const int nk = ccb_newton_ndofs(ws); /* with islands: a frozen island is not tested again */
    if (ws->nisl == 1) {
        Jt_mul(ws, ws->gamma, j);
    } else { /* the near contacts of the islands not done (built with them) */
        ccb_problem_Jt_mul_some(ws->pb, ws->act, ws->n_act, ws->gamma, j);
    }
    if (ws->prm.stop_scale == CCB_STOP_MOMENTUM) {
        ccb_newton_A_mul_active(ws, ws->v, p); /* p = A v (formulation-convex §8.5, Drake) */
    } else {
        for (int m = 0; m < nk; ++m) {
            const int k = ccb_newton_dof(ws, m);
            ws->tmp[k] = ws->v[k] - ws->v0[k];
        }
        ccb_newton_A_mul_active(ws, ws->tmp, p); /* p = A (v - v0), momentum change of the step */
    }
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->tmp[k] = ws->v[k] - ws->vs[k];
    }
    ccb_newton_A_mul_active(ws, ws->tmp, ws->r);
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->r[k] -= j[k]; /* r = A (v - v*) - J^T gamma */
    }
    /* |D r|, |D p|, |D j| per island, D = diag(A)^{-1/2} */
    const int retest = ws->nisl == 1; /* without islands every test is a new one */
    for (int I = 0; I < ws->nisl; ++I) {
        if (retest || !ws->il[I].done) {
            ws->il[I].res2 = ws->il[I].p2 = ws->il[I].j2 = 0.0;
        }
    }
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ccb_newton_island* is = &ws->il[ws->isl_v[k]];
        const double y = ws->dinv[k] * ws->r[k], yp = ws->dinv[k] * p[k], yj = ws->dinv[k] * j[k];
        is->res2 += y * y;
        is->p2 += yp * yp;
        is->j2 += yj * yj;
    }
    int all = 1;
    double worst = -1.0;
    for (int I = 0; I < ws->nisl; ++I) {
        ccb_newton_island* is = &ws->il[I];
        if (retest || !is->done) {
            const double np = sqrt(is->p2), nj = sqrt(is->j2);
            is->res = sqrt(is->res2);
            is->tol = ws->prm.eps_a + ws->prm.eps_r * (np > nj ? np : nj);
        }
        const double res = is->res, tol = is->tol;
        if (!isfinite(res) || !isfinite(tol)) {
            ws->residual = res;
            ws->tolerance = tol;
            return ccb_newton_fail(ws, CCB_E_NONFINITE,
                                   "Newton iteration %d: residual is not finite (|Dr| = %g%s)",
                                   ws->iter, res, ws->nisl > 1 ? ", in one island" : "");
        }
        is->done = is->done || res <= tol || is->cost_ok;
        all = all && is->done;
        /* reported: the island farthest from its bound (the only one without islands) */
        const double ratio = tol > 0 ? res / tol : INFINITY;
        if (ratio > worst) {
            worst = ratio;
            ws->residual = res;
            ws->tolerance = tol;
            ws->cost_ok = is->cost_ok;
            const double np = sqrt(is->p2), nj = sqrt(is->j2);
            ws->stop_term = ws->prm.eps_a >= ws->prm.eps_r * (np > nj ? np : nj)
                                ? CCB_STOP_TERM_ABSOLUTE
                            : np > nj ? CCB_STOP_TERM_MOMENTUM
                                      : CCB_STOP_TERM_IMPULSE;
        }
    }
    ws->ratio_prev = ws->ratio_now; /* one test per iteration (the solve's loop) */
    ws->ratio_now = worst;
    ws->r_valid = 1;
    if (all && ws->n_lazy_acc > 0) { /* the others converged: the frozen ones are solved again */
        return ccb_newton_lazy_retry(ws);
    }
    if (all) {
        ccb_newton_far_finish(ws);
        ws->status = CCB_OK;
        return CCB_OK;
    }
    ws->status = CCB_CONTINUE;
    return CCB_CONTINUE;
}

/* ---- Hessian assembly (formulation-convex §8.2)
 * ----------------------------------------------------------------- */

static ccb_sparse_backend backend(ccb_linear_solver s) {
    return s == CCB_LINSOLVE_CHOLMOD ? CCB_SPARSE_CHOLMOD
           : s == CCB_LINSOLVE_DENSE ? CCB_SPARSE_DENSE
           : s == CCB_LINSOLVE_BLOCK ? CCB_SPARSE_BLOCK
                                     : CCB_SPARSE_AUTO;
}

static ccb_status set_pattern(ccb_newton* ws) {
    const ccb_problem* pb = ws->pb;
    if (ws->pattern_ok) { /* no contact became near since: the same pattern (a no-op to set) */
        return CCB_OK;
    }
    if (ccb_grow((void**)&ws->bs, &ws->cap_bs, pb->np > 0 ? pb->np : 1, sizeof(int))) {
        return ccb_newton_fail(ws, CCB_E_NOMEM, "newton: out of memory");
    }
    for (int a = 0; a < pb->np; ++a) {
        ws->bs[a] = pb->clique_nv[pb->pclique[a]];
    }
    const int* edges = pb->edges;
    int nedge = pb->nedge;
    if (ws->prm.pattern_near) { /* the clique pairs of the near contacts only (far ones: G = 0) */
        if (ccb_grow((void**)&ws->pkeys, &ws->cap_pkeys, 2 * ws->n_near + 1, sizeof(uint64_t))) {
            return ccb_newton_fail(ws, CCB_E_NOMEM, "newton: out of memory");
        }
        int nk = 0;
        for (int k = 0; k < ws->n_near; ++k) {
            const ccb_pcontact* pc = &pb->contacts[ws->near[k]];
            if (pc->nblk == 2) {
                const uint64_t a = (uint64_t)pb->clique_pidx[pc->clique[0]],
                               b = (uint64_t)pb->clique_pidx[pc->clique[1]];
                ws->pkeys[nk++] = a < b ? a << 32 | b : b << 32 | a;
            }
        }
        /* the scratch is the room of the edge list after the keys (n_near + 1 >= nk keys) */
        ccb_sort_u64(ws->pkeys, ws->pkeys + ws->n_near + 1, (size_t)nk);
        int* e = (int*)(ws->pkeys + ws->n_near + 1); /* room for 2 nk ints after the keys */
        nedge = 0;
        for (int k = 0; k < nk; ++k) {
            if (k == 0 || ws->pkeys[k] != ws->pkeys[k - 1]) {
                e[2 * nedge] = (int)(ws->pkeys[k] >> 32);
                e[2 * nedge + 1] = (int)(ws->pkeys[k] & 0xffffffffu);
                nedge++;
            }
        }
        edges = e;
    }
    ccb_status s =
        ccb_sparse_set_pattern(ws->sp, pb->np, ws->bs, nedge, edges, ws->msg, sizeof ws->msg);
    if (s != CCB_OK) {
        ws->status = s;
    }
    ws->pattern_ok = s == CCB_OK;
    return s;
}

/* H = A + J^T G J over the participating cliques; with `all` 0 the contacts of frozen islands are
 * left out (their right-hand side is zero, so their dv is zero with A alone). `skip`: the blocks
 * the block factorization leaves out (or NULL), whose edge blocks need no clearing. */
static void assemble(ccb_newton* ws, int all, const unsigned char* skip) {
    const ccb_problem* pb = ws->pb;
    ccb_sparse_zero_edges(ws->sp, skip); /* every diagonal block is A's copy below */
    /* with skip (frozen islands, which the block factorization neither reads nor writes), the
     * blocks of the islands still iterating only: their cliques (acl) and near contacts (act,
     * grouped by island, ascending within each: every block receives its terms in the same
     * order as from the near list, which adds nothing to it from other islands) */
    const int na = skip != NULL ? ws->n_acl : pb->np;
    for (int m = 0; m < na; ++m) {
        const int a = skip != NULL ? ws->acl[m] : m;
        const int c = pb->pclique[a];
        const int n = pb->clique_nv[c];
        memcpy(ccb_sparse_diag_block(ws->sp, a), pb->A + pb->clique_aoff[c],
               (size_t)n * n * sizeof(double));
    }
    const int nl = skip != NULL ? ws->n_act : ws->n_near;
    const int* list = skip != NULL ? ws->act : ws->near;
    for (int kc = 0; kc < nl; ++kc) { /* far contacts have G = 0 */
        const int i = list[kc];
        const ccb_pcontact* pc = &pb->contacts[i];
        const double* G = ws->G + 9 * i;
        if (!all && ws->il[ws->icon[i]].done) {
            continue;
        }
        int zero = 1; /* an inactive contact adds nothing: skip its products */
        for (int k = 0; k < 9 && zero; ++k) {
            zero = G[k] == 0.0;
        }
        if (zero) {
            continue;
        }
        int pid[2], nvb[2];
        for (int k = 0; k < pc->nblk; ++k) {
            pid[k] = pb->clique_pidx[pc->clique[k]];
            nvb[k] = pb->clique_nv[pc->clique[k]];
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, k), nvb[k], G, ccb_pc_block(pb, pc, k),
                                 nvb[k], ccb_sparse_diag_block(ws->sp, pid[k]));
        }
        if (pc->nblk == 2) {
            const int lo = pid[0] < pid[1] ? 0 : 1, hi = 1 - lo;
            const int e = ccb_sparse_find_edge(ws->sp, pid[lo], pid[hi]);
            CCB_ASSERT(e >= 0);
            ccb_problem_add_JtGJ(ccb_pc_block(pb, pc, lo), nvb[lo], G, ccb_pc_block(pb, pc, hi),
                                 nvb[hi], ccb_sparse_edge_block(ws->sp, e));
        }
    }
}

/* the wall clock, if the phases are timed (a clock read costs ~25 ns: a tenth of a one-contact
 * step) */
static double phase_clock(const ccb_newton* ws) {
    return ws->prm.time_phases ? ccb_wall_time() : 0.0;
}

/* ---- one iteration ------------------------------------------------------------------------------
 * */

/* About 190 lines on purpose: one iteration of formulation-convex §8 in its order — the far
 * contacts' promotion, the islands still iterating, the active rows, the Hessian's assembly and
 * factorization, the Newton step, the exact line search and the next stopping test. Each part
 * reads the workspace state the previous one left; the parts that stand alone are functions of
 * their own (newton_far.c, newton_line.c, newton_island.c). */
ccb_status ccb_newton_iterate(ccb_newton* ws) {
    if (ws == NULL || !ws->initialized) {
        return CCB_E_INVALID;
    }
    if (!ws->r_valid) {
        ccb_status t = ccb_newton_test(ws);
        if (t != CCB_OK && t != CCB_CONTINUE) {
            return t;
        }
    }
    if (ws->far_final) { /* iterating past convergence: no contact is far any more (their v_c
                            is that of the iterate already; they become near with their rows) */
        const int n = ws->n_far;
        const ccb_status sp = ccb_newton_far_promote_all(ws); /* leaves them in prom[0..n-1] */
        if (sp != CCB_OK) {
            return sp;
        }
        ccb_problem_J_mul_some(ws->pb, ws->prom, n, ws->v, 1, ws->vc);
        ws->far_final = 0;
    }
    int all_done = 1;
    for (int I = 0; I < ws->nisl && all_done; ++I) {
        all_done = ws->il[I].done;
    }
    if (all_done) { /* iterating past convergence: every island takes part again (no contact is
                       far any more, so none replays the iterations an island sat out; a lazy
                       pair, never replayed, may be) */
        CCB_ASSERT(ws->n_far == 0 || ws->far[0] >= ws->pb->nc);
        for (int I = 0; I < ws->nisl; ++I) {
            ws->il[I].done = 0;
        }
        ws->acl_full = 1;
        ccb_newton_far_live_all(ws);
    }
    ccb_newton_build_active(ws);
    if (ws->iter >= ws->prm.max_iterations) {
        return ccb_newton_fail(
            ws, CCB_E_NOTCONV,
            "Newton did not converge in %d iterations (|Dr| = %.3e > tolerance %.3e)", ws->iter,
            ws->residual, ws->tolerance);
    }
    double tic = phase_clock(ws);
    ccb_status s = set_pattern(ws);
    if (s != CCB_OK) {
        return s;
    }
    /* the block factorization leaves the frozen islands out: skipb, kept by build_active */
    const int any_done = ws->nisl > 1 && ws->n_acl < ws->pb->np;
    const ccb_sparse_backend be = backend(ws->prm.linear_solver);
    const int block = be == CCB_SPARSE_BLOCK || be == CCB_SPARSE_AUTO; /* AUTO, nb > 1: block */
    assemble(ws, 0, any_done && block ? ws->skipb : NULL);
    double toc = phase_clock(ws);
    ws->t_assemble += toc - tic;
    tic = toc;
    ccb_sparse_set_skip(ws->sp, any_done ? ws->skipb : NULL);
    s = ccb_sparse_factor(ws->sp, be, ws->msg, sizeof ws->msg);
    ws->n_factorizations++;
    if (s != CCB_OK) {
        ws->status = s;
        return s;
    }
    /* the block solve with frozen islands neither reads their right-hand side nor leaves their
     * dv other than zero (ccb_blockchol_solve); the other back-ends solve the whole system */
    const int skipped = any_done && block;
    if (skipped) {
        for (int m = 0; m < ws->n_adof; ++m) {
            const int k = ws->adof[m];
            ws->tmp[k] = -ws->r[k];
        }
    } else {
        for (int k = 0; k < ws->npv; ++k) {
            ws->tmp[k] = ws->il[ws->isl_v[k]].done ? 0.0 : -ws->r[k];
        }
    }
    s = ccb_sparse_solve(ws->sp, ws->tmp, ws->dv, ws->msg, sizeof ws->msg);
    toc = phase_clock(ws);
    ws->t_factor += toc - tic;
    tic = toc;
    if (s != CCB_OK) {
        ws->status = s;
        return s;
    }
    if (ws->nisl > 1 && !skipped) { /* a frozen island does not move (dv zero up to round-off) */
        for (int k = 0; k < ws->npv; ++k) {
            ws->dv[k] = ws->il[ws->isl_v[k]].done ? 0.0 : ws->dv[k];
        }
    }
    if (ws->n_far > 0) { /* far contacts: keep dv for replays, promote those that may activate */
        if (ccb_grow((void**)&ws->dvh, &ws->cap_dvh, (ws->iter + 1) * ws->npv, sizeof(double))) {
            return ccb_newton_fail(ws, CCB_E_NOMEM,
                                   "newton: out of memory for the direction history");
        }
        /* with islands, the unknowns of the islands still iterating: a far contact is replayed
         * only while its island iterates, and an island that iterates now did at every earlier
         * iteration (a frozen one wakes only past convergence, when no contact is far) */
        double* h = ws->dvh + (size_t)ws->iter * ws->npv;
        if (ws->nisl > 1) {
            for (int m = 0; m < ws->n_adof; ++m) {
                h[ws->adof[m]] = ws->dv[ws->adof[m]];
            }
        } else {
            memcpy(h, ws->dv, (size_t)ws->npv * sizeof(double));
        }
        s = ccb_newton_far_update(ws);
        if (s != CCB_OK) {
            return s;
        }
    }
    ccb_newton_build_act(ws);
    const int* list = ws->nisl == 1 ? ws->near : ws->act;
    ccb_newton_A_mul_active(ws, ws->dv, ws->dp);
    ccb_problem_J_mul_some(ws->pb, list, ws->n_act, ws->dv, 0, ws->dvc);
    const int nk = ccb_newton_ndofs(ws);
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->tmp[k] = ws->v[k] - ws->vs[k];
    }
    for (int I = 0; I < ws->nisl; ++I) {
        ws->il[I].a = ws->il[I].b = ws->il[I].slope = 0.0;
    }
    for (int m = 0; m < nk; ++m) { /* per island, in the order of the unknowns */
        const int k = ccb_newton_dof(ws, m);
        ccb_newton_island* is = &ws->il[ws->isl_v[k]];
        is->a += ws->dv[k] * ws->dp[k];
        is->b += ws->dp[k] * ws->tmp[k];
        is->slope += ws->r[k] * ws->dv[k];
    }
    int dv_finite = 1; /* a frozen island's dv is zero */
    for (int m = 0; m < nk && dv_finite; ++m) {
        dv_finite = isfinite(ws->dv[ccb_newton_dof(ws, m)]);
    }
    if (!dv_finite) {
        return ccb_newton_fail(ws, CCB_E_NONFINITE,
                               "Newton iteration %d: invalid search direction (dv is not finite)",
                               ws->iter);
    }
    if (ccb_grow((void**)&ws->ahist, &ws->cap_ahist, (ws->iter + 1) * ws->nisl, sizeof(double))) {
        return ccb_newton_fail(ws, CCB_E_NOMEM, "newton: out of memory for the step history");
    }
    double slope = 0.0, alpha_lo = INFINITY;
    int evals = 0;
    for (int I = 0; I < ws->nisl; ++I) {
        ccb_newton_island* is = &ws->il[I];
        is->alpha = 0.0;
        if (is->done) {
            continue;
        }
        if (!(is->a > 0) || !isfinite(is->a)) {
            return ccb_newton_fail(
                ws, CCB_E_NONFINITE,
                "Newton iteration %d: invalid search direction (dv^T A dv = %g%s)", ws->iter, is->a,
                ws->nisl > 1 ? ", in one island" : "");
        }
        ccb_newton_line L = {.a = is->a,
                             .b = is->b,
                             .cost_A = is->cost_A,
                             .list = list + is->off,
                             .n = is->n,
                             .active = ws->ls_active + is->off};
        double alpha = 1.0;
        int ev = 0;
        s = ccb_newton_line_search(ws, &L, is->slope, &alpha, &ev);
        evals += ev;
        if (s != CCB_OK) {
            ws->ls_evals += evals;
            return s;
        }
        is->alpha = alpha;
        is->iters++;
        ws->island_iters++;
        slope = I == 0 ? is->slope : slope + is->slope;
        alpha_lo = alpha < alpha_lo ? alpha : alpha_lo;
    }
    for (int I = 0; I < ws->nisl; ++I) {
        ws->ahist[(size_t)ws->iter * ws->nisl + I] = ws->il[I].alpha;
    }
    toc = phase_clock(ws);
    ws->t_linesearch += toc - tic;
    tic = toc;
    ws->ls_evals += evals;
    if (ccb_grow((void**)&ws->hist, &ws->cap_hist, ws->nhist + 1, sizeof(ccb_newton_iter))) {
        return ccb_newton_fail(ws, CCB_E_NOMEM, "newton: out of memory for the iteration history");
    }
    ccb_newton_iter* h = &ws->hist[ws->nhist++];
    h->residual = ws->residual;
    h->tolerance = ws->tolerance;
    h->cost = ws->cost;
    h->slope = slope;
    h->alpha = alpha_lo;
    h->ls_evals = evals;
    /* update and re-evaluate; cost-stall criterion per island (formulation-convex §8.5) */
    for (int I = 0; I < ws->nisl; ++I) {
        ws->il[I].res2 = ws->il[I].cost_A + ws->il[I].cost_c; /* res2: the cost before, here */
    }
    for (int m = 0; m < nk; ++m) {
        const int k = ccb_newton_dof(ws, m);
        ws->v[k] += ws->il[ws->isl_v[k]].alpha * ws->dv[k];
    }
    eval_iterate(ws, 0);
    ws->t_eval += phase_clock(ws) - tic;
    if (!isfinite(ws->cost)) {
        return ccb_newton_fail(ws, CCB_E_NONFINITE, "Newton iteration %d: cost is not finite",
                               ws->iter);
    }
    for (int I = 0; I < ws->nisl; ++I) {
        ccb_newton_island* is = &ws->il[I];
        if (is->done) {
            continue;
        }
        const double before = is->res2, after = is->cost_A + is->cost_c;
        is->cost_ok =
            fabs(before - after) <
                ws->prm.eps_cost_a + ws->prm.eps_cost_r * 0.5 * (fabs(before) + fabs(after)) &&
            is->alpha > 0.5;
    }
    if (alpha_lo < ws->alpha_min) {
        ws->alpha_min = alpha_lo;
    }
    ws->iter++;
    return CCB_OK;
}

/* ---- condition number (formulation-convex §8.9)
 * -------------------------------------------------------------------- */

static void compute_kappa(ccb_newton* ws) {
    ws->kappa = -1;
    const int n = ws->npv;
    if (n == 0 || n > ws->prm.kappa_max_nv) {
        return;
    }
    if (set_pattern(ws) != CCB_OK) {
        return;
    }
    if (ccb_grow((void**)&ws->kbuf, &ws->cap_k, n * n + ccb_dense_extremes_work(n),
                 sizeof(double)) ||
        ccb_grow((void**)&ws->kibuf, &ws->cap_ki, 2 * n, sizeof(int))) {
        return;
    }
    double* H = ws->kbuf;
    assemble(ws, 1, NULL); /* H at the exit iterate: G was evaluated there */
    ccb_sparse_to_dense(ws->sp, H);
    /* lambda_min and lambda_max island by island where H splits (formulation-convex §8.10):
     * H's spectrum is the union of its islands' (each solved to round-off of its own norm), at
     * a fraction of the O(n^3) of one solve of H */
    double lo, hi;
    if (ccb_dense_eig_extremes(n, H, &lo, &hi, H + (size_t)n * n, ws->kibuf) != 0) {
        ccb_log(CCB_LOG_WARN, "newton: eigenvalue solve for kappa(H) failed (n = %d)", n);
        return;
    }
    if (lo > 0) {
        ws->kappa = hi / lo;
    }
}

/* ---- driver and accessors
 * ------------------------------------------------------------------------- */

ccb_newton_stats ccb_newton_get_stats(const ccb_newton* ws) {
    ccb_newton_stats st;
    memset(&st, 0, sizeof st);
    st.kappa = -1;
    st.status = CCB_E_INVALID;
    if (ws == NULL) {
        return st;
    }
    st.status = ws->status;
    st.iterations = ws->iter;
    st.ls_evals = ws->ls_evals;
    st.residual = ws->residual;
    st.tolerance = ws->tolerance;
    st.cost = ws->cost;
    st.by_cost = ws->status == CCB_OK && ws->cost_ok && !(ws->residual <= ws->tolerance);
    st.alpha_min = ws->alpha_min;
    st.kappa = ws->kappa;
    st.nv = ws->npv;
    st.nc = ws->nc;
    st.nc_far = ws->nc_far;
    st.analyzed = ccb_sparse_analyses(ws->sp) != ws->analyses_at_init;
    st.islands = ws->nisl;
    st.island_iterations = ws->island_iters;
    st.stop_term = ws->stop_term;
    st.ratio_prev = ws->iter > 0 ? ws->ratio_prev : 0.0;
    st.state_changes_last = ws->prm.count_states ? ws->changes_last : -1;
    st.state_changes = ws->prm.count_states ? ws->changes_total : -1;
    const double no = ws->prm.time_phases ? 1.0 : NAN;
    st.time_assemble = no * ws->t_assemble;
    st.time_factor = no * ws->t_factor;
    st.time_linesearch = no * ws->t_linesearch;
    st.time_eval = no * ws->t_eval;
    st.time_kappa = no * ws->t_kappa;
    if (ws->iter > 0) {
        ccb_sparse_factor_stats(ws->sp, &st.nnz_L, &st.flops);
    }
    return st;
}

ccb_status ccb_newton_solve(ccb_newton* ws, const ccb_problem* pb, const ccb_newton_params* prm,
                            const double* v_guess, double* v_out, ccb_newton_stats* stats) {
    if (ws == NULL) {
        return CCB_E_INVALID;
    }
    ccb_status s = ccb_newton_init(ws, pb, prm, v_guess);
    while (s == CCB_OK) {
        s = ccb_newton_test(ws);
        if (s == CCB_OK) {
            break; /* converged */
        }
        if (s != CCB_CONTINUE) {
            break; /* error */
        }
        s = ccb_newton_iterate(ws);
    }
    if (s == CCB_OK) {
        ws->status = CCB_OK;
        if (ws->prm.compute_kappa) {
            const double tic = ccb_wall_time();
            compute_kappa(ws);
            ws->t_kappa = ccb_wall_time() - tic;
        }
        if (v_out) {
            memcpy(v_out, ccb_newton_velocities(ws), (size_t)pb->nv * sizeof(double));
        }
    }
    if (stats) {
        *stats = ccb_newton_get_stats(ws);
    }
    return s;
}

const double* ccb_newton_velocities(ccb_newton* ws) {
    if (ws == NULL || ws->pb == NULL) {
        return NULL;
    }
    ccb_problem_expand(ws->pb, ws->v, ws->vfull);
    return ws->vfull;
}

const double* ccb_newton_contact_velocities(const ccb_newton* ws) {
    return ws ? ws->vc : NULL;
}
const double* ccb_newton_impulses(const ccb_newton* ws) {
    return ws ? ws->gamma : NULL;
}
const ccb_newton_iter* ccb_newton_history(const ccb_newton* ws, int* n) {
    if (n) {
        *n = ws ? ws->nhist : 0;
    }
    return ws ? ws->hist : NULL;
}
void ccb_newton_counters(const ccb_newton* ws, long* analyses, long* factorizations) {
    if (analyses) {
        *analyses = ws ? ccb_sparse_analyses(ws->sp) : 0;
    }
    if (factorizations) {
        *factorizations = ws ? ws->n_factorizations : 0;
    }
}
