/* newton_line: the exact line search of the Newton solver (newton.c; spec:
 * formulation-convex §8.3-§8.4): the root of l'(alpha) on [0, alpha_max] by rtsafe (Numerical
 * Recipes §9.4), with the contacts whose impulse vanishes on the whole segment evaluated once. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "newton_internal.h"

/* l(alpha) and its derivatives (formulation-convex §8.3) over L's contacts. With `flag` set (the
 * first evaluation, at alpha_max), every one is evaluated and the ones with zero impulse at both
 * ends of the segment are dropped from L->active: gamma = 0 means vc minimizes the convex l_i, the
 * minimizer set is convex, so l_i is constant (gamma = 0, G = 0) on the whole segment and its
 * cost is kept in L->flat. Later evaluations visit the remaining contacts only. */
static void line_eval(const ccb_newton* ws, ccb_newton_line* L, double alpha, int flag, double* f,
                      double* d1, double* d2) {
    const ccb_problem* pb = ws->pb;
    double cost = 0.0, dg = 0.0, dGd = 0.0;
    const int n = flag ? L->n : L->n_active; /* far contacts: l_i = 0, gamma = 0 */
    if (flag) {
        L->n_active = 0;
        L->flat = 0.0;
    }
    for (int k = 0; k < n; ++k) {
        const int i = flag ? L->list[k] : L->active[k];
        const double* vc = ws->vc + 3 * i;
        const double* dvc = ws->dvc + 3 * i;
        const double x[3] = {vc[0] + alpha * dvc[0], vc[1] + alpha * dvc[1],
                             vc[2] + alpha * dvc[2]};
        double g[3], G[9];
        const double li = ccb_constraint_eval(pb->approx, &pb->contacts[i].c, x, g, G);
        if (flag) {
            const double* g0 = ws->gamma + 3 * i;
            if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g0[0] == 0 && g0[1] == 0 && g0[2] == 0) {
                L->flat += li;
                continue;
            }
            L->active[L->n_active++] = i;
        }
        cost += li;
        dg += dvc[0] * g[0] + dvc[1] * g[1] + dvc[2] * g[2];
        for (int r = 0; r < 3; ++r) {
            dGd += dvc[r] * (G[3 * r] * dvc[0] + G[3 * r + 1] * dvc[1] + G[3 * r + 2] * dvc[2]);
        }
    }
    *f = L->cost_A + alpha * L->b + 0.5 * alpha * alpha * L->a + L->flat + cost;
    *d1 = L->b + alpha * L->a - dg;
    *d2 = L->a + dGd;
}

ccb_status ccb_newton_line_search(ccb_newton* ws, ccb_newton_line* L, double slope0,
                                  double* alpha_out, int* evals) {
    const ccb_newton_params* P = &ws->prm;
    const double amax = P->ls_alpha_max;
    double fm, dm, d2m;
    *evals = 0;
    if (!(slope0 < 0)) {
        return ccb_newton_fail(ws, CCB_E_NOTCONV,
                               "Newton iteration %d: search direction is not a descent direction "
                               "(l'(0) = %.3e >= 0 at |Dr| = %.3e): round-off or ill-conditioning",
                               ws->iter, slope0, ws->residual);
    }
    line_eval(ws, L, amax, 1, &fm, &dm, &d2m);
    *evals = 1;
    if (!isfinite(fm) || !isfinite(dm) || !isfinite(d2m)) {
        return ccb_newton_fail(ws, CCB_E_NONFINITE,
                               "Newton iteration %d: line search met a non-finite cost", ws->iter);
    }
    if (dm <= 0) { /* still descending at alpha_max: take it */
        *alpha_out = amax;
        return CCB_OK;
    }
    if (-slope0 < P->eps_cost_a + P->eps_cost_r * fm) { /* slope at round-off level */
        *alpha_out = 1.0;
        return CCB_OK;
    }
    const double scale = -slope0; /* f(alpha) = l'(alpha)/(-l'(0)), f(0) = -1 */
    double xl = 0.0, xu = amax;
    const double fu = dm / scale;
    if (fabs(fu) < P->ls_ftol) {
        *alpha_out = amax;
        return CCB_OK;
    }
    double x = scale / d2m;
    if (!(x < amax)) {
        x = amax;
    }
    const double alpha_tol = P->ls_alpha_rtol * x;
    double dx = xu - xl, dx_prev = dx;
    for (;;) {
        if (*evals >= P->ls_max_evals) {
            return ccb_newton_fail(
                ws, CCB_E_NOTCONV,
                "Newton iteration %d: line search did not converge in %d evaluations "
                "(bracket [%.6g, %.6g])",
                ws->iter, *evals, xl, xu);
        }
        double fx, d1, d2;
        line_eval(ws, L, x, 0, &fx, &d1, &d2);
        (*evals)++;
        const double f = d1 / scale, fp = d2 / scale;
        if (!isfinite(f) || !isfinite(fp)) {
            return ccb_newton_fail(ws, CCB_E_NONFINITE,
                                   "Newton iteration %d: line search met a non-finite derivative",
                                   ws->iter);
        }
        if (f < 0) {
            xl = x;
        } else {
            xu = x;
        }
        if (fabs(f) < P->ls_ftol) {
            break;
        }
        const int slow = 2.0 * fabs(f) > fabs(dx_prev * fp);
        dx_prev = dx;
        double xn;
        if (slow) {
            dx = 0.5 * (xu - xl);
            xn = xl + dx;
        } else {
            dx = f / fp;
            xn = x - dx;
            if (!(xn > xl && xn < xu)) {
                dx = 0.5 * (xu - xl);
                xn = xl + dx;
            }
        }
        x = xn;
        /* converged step, or a bracket only a few ulps wide: alpha is resolved to machine
         * precision (at extreme stiffness alpha_tol = 1e-8 alpha_0 can fall below one ulp of
         * the root, and the bisection would otherwise spin until ls_max_evals) */
        if (fabs(dx) < alpha_tol || xu - xl <= 4.0 * DBL_EPSILON * fabs(x)) {
            break;
        }
    }
    *alpha_out = x;
    return CCB_OK;
}
