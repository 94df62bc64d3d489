/* clutter_indep: the newton-trace study's independent code (cases/clutter_step.h): the cost,
 * gradient and dense Hessian of a step's convex problem from its global form, and Newton with an
 * exact or a backtracking line search and GSL's BFGS2 on it, sharing with ccb's solver only the
 * approximation's per-contact law (clutter_step.c says why). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clutter_step.h"

/* ---- the independent evaluation: l(v), its gradient and Hessian from the global form ---- */
/* y = M x */
void ind_mass_mul(const ccb_global_problem* g, const double* x, double* y) {
    memset(y, 0, (size_t)g->nv * sizeof(double));
    for (int c = 0; c < g->nv; ++c) {
        for (int a = g->M_colptr[c]; a < g->M_colptr[c + 1]; ++a) {
            y[g->M_row[a]] += g->M_val[a] * x[c];
        }
    }
}

/* The cost at v; grad (nv, may be NULL) = M (v - v*) - H gamma; the impulses and G kept. */
double ind_eval(indep* w, const double* v, double* grad, int hess) {
    const snap* s = w->s;
    const ccb_global_problem* g = &s->g;
    const int nv = s->nv, nc = s->nc;
    w->evals++;
    for (int c = 0; c < 3 * nc; ++c) {
        double x = s->b[c];
        for (int a = g->H_colptr[c]; a < g->H_colptr[c + 1]; ++a) {
            x += g->H_val[a] * v[g->H_row[a]];
        }
        w->vc[c] = x;
    }
    double cost = 0;
    for (int i = 0; i < nc; ++i) { /* the law in ccb's contact order (t1, t2, n) */
        const double* x = w->vc + 3 * i;
        const double vcc[3] = {x[1], x[2], x[0]};
        double gc[3], Gc[9];
        cost += ccb_constraint_eval(s->ap, &s->con[i], vcc, gc, hess ? Gc : NULL);
        w->gam[3 * i] = gc[2], w->gam[3 * i + 1] = gc[0], w->gam[3 * i + 2] = gc[1];
        if (hess) {
            static const int perm[3] = {2, 0, 1}; /* global index -> ccb index */
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    w->G[9 * i + 3 * a + b] = Gc[3 * perm[a] + perm[b]];
                }
            }
        }
    }
    for (int k = 0; k < nv; ++k) {
        w->tmp[k] = v[k] - s->vstar[k];
    }
    ind_mass_mul(g, w->tmp, w->tmp2);
    for (int k = 0; k < nv; ++k) {
        cost += 0.5 * w->tmp[k] * w->tmp2[k];
    }
    if (grad) {
        memcpy(grad, w->tmp2, (size_t)nv * sizeof(double));
        for (int c = 0; c < 3 * nc; ++c) {
            for (int a = g->H_colptr[c]; a < g->H_colptr[c + 1]; ++a) {
                grad[g->H_row[a]] -= g->H_val[a] * w->gam[c];
            }
        }
    }
    return cost;
}

/* The dense Hessian M + sum_i H_i G_i H_i^T at the last evaluation (made with hess = 1). */
static void ind_hessian(const indep* w, gsl_matrix* Hd) {
    const ccb_global_problem* g = &w->s->g;
    gsl_matrix_set_zero(Hd);
    for (int c = 0; c < g->nv; ++c) {
        for (int a = g->M_colptr[c]; a < g->M_colptr[c + 1]; ++a) {
            *gsl_matrix_ptr(Hd, (size_t)g->M_row[a], (size_t)c) += g->M_val[a];
        }
    }
    for (int i = 0; i < w->s->nc; ++i) {
        const double* G = w->G + 9 * i;
        for (int a = 0; a < 3; ++a) {
            const int ca = 3 * i + a;
            for (int b = 0; b < 3; ++b) {
                const int cb = 3 * i + b;
                const double gab = G[3 * a + b];
                if (gab == 0) {
                    continue;
                }
                for (int x = g->H_colptr[ca]; x < g->H_colptr[ca + 1]; ++x) {
                    for (int y = g->H_colptr[cb]; y < g->H_colptr[cb + 1]; ++y) {
                        *gsl_matrix_ptr(Hd, (size_t)g->H_row[x], (size_t)g->H_row[y]) +=
                            gab * g->H_val[x] * g->H_val[y];
                    }
                }
            }
        }
    }
}

/* dv^T (M + sum H_i G_i H_i^T) dv at the last evaluation (made with hess = 1) */
double ind_curv(indep* w, const double* dv) {
    const snap* s = w->s;
    const ccb_global_problem* g = &s->g;
    ind_mass_mul(g, dv, w->tmp);
    double q = 0;
    for (int k = 0; k < s->nv; ++k) {
        q += dv[k] * w->tmp[k];
    }
    for (int i = 0; i < s->nc; ++i) {
        double u[3];
        for (int a = 0; a < 3; ++a) {
            const int c = 3 * i + a;
            u[a] = 0;
            for (int x = g->H_colptr[c]; x < g->H_colptr[c + 1]; ++x) {
                u[a] += g->H_val[x] * dv[g->H_row[x]];
            }
        }
        const double* G = w->G + 9 * i;
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) {
                q += u[a] * G[3 * a + b] * u[b];
            }
        }
    }
    return q;
}

/* ccb's optimality test (formulation-convex §8.5, the step's momentum): |D r| and its bound at the
 * last evaluation, r = grad. */
void ind_test(indep* w, const double* v, const double* r, double* res, double* tol) {
    const snap* s = w->s;
    const int nv = s->nv;
    double rr = 0, pp = 0, jj = 0;
    for (int k = 0; k < nv; ++k) {
        w->tmp[k] = v[k] - s->v0[k];
    }
    ind_mass_mul(&s->g, w->tmp, w->tmp2);
    for (int k = 0; k < nv; ++k) {
        const double d = w->Mdiag_isqrt[k];
        rr += (d * r[k]) * (d * r[k]);
        pp += (d * w->tmp2[k]) * (d * w->tmp2[k]);
    }
    for (int k = 0; k < nv; ++k) {
        w->tmp[k] = v[k] - s->vstar[k];
    }
    ind_mass_mul(&s->g, w->tmp, w->tmp2);
    for (int k = 0; k < nv; ++k) { /* j = H gamma = M (v - v*) - r */
        const double d = w->Mdiag_isqrt[k], j = w->tmp2[k] - r[k];
        jj += (d * j) * (d * j);
    }
    *res = sqrt(rr);
    *tol = w->eps_a + w->eps_r * fmax(sqrt(pp), sqrt(jj));
}

/* |x|_{M^-1} */
double ind_minv_norm(indep* w, const double* x) {
    gsl_vector_view xv = gsl_vector_view_array(w->tmp, (size_t)w->s->nv);
    memcpy(w->tmp, x, (size_t)w->s->nv * sizeof(double));
    gsl_linalg_cholesky_svx(w->Mchol, &xv.vector); /* tmp = M^-1 x */
    double q = 0;
    for (int k = 0; k < w->s->nv; ++k) {
        q += x[k] * w->tmp[k];
    }
    return sqrt(fmax(q, 0));
}

int ind_init(indep* w, const snap* s, const ccb_newton_params* np) {
    memset(w, 0, sizeof *w);
    w->s = s;
    const int nv = s->nv, nc = s->nc;
    w->vc = malloc((size_t)(3 * nc + 1) * sizeof(double));
    w->gam = malloc((size_t)(3 * nc + 1) * sizeof(double));
    w->G = malloc((size_t)(9 * nc + 1) * sizeof(double));
    w->Mdiag_isqrt = malloc((size_t)nv * sizeof(double));
    w->tmp = malloc((size_t)nv * sizeof(double));
    w->tmp2 = malloc((size_t)nv * sizeof(double));
    w->Mchol = gsl_matrix_calloc((size_t)nv, (size_t)nv);
    if (!w->vc || !w->gam || !w->G || !w->Mdiag_isqrt || !w->tmp || !w->tmp2 || !w->Mchol) {
        return -1;
    }
    const ccb_global_problem* g = &s->g;
    for (int c = 0; c < nv; ++c) {
        for (int a = g->M_colptr[c]; a < g->M_colptr[c + 1]; ++a) {
            gsl_matrix_set(w->Mchol, (size_t)g->M_row[a], (size_t)c, g->M_val[a]);
            if (g->M_row[a] == c) {
                w->Mdiag_isqrt[c] = 1.0 / sqrt(g->M_val[a]);
            }
        }
    }
    w->eps_a = np->eps_a, w->eps_r = np->eps_r;
    return gsl_linalg_cholesky_decomp1(w->Mchol) == GSL_SUCCESS ? 0 : -1;
}

void ind_free(indep* w) {
    free(w->vc), free(w->gam), free(w->G), free(w->Mdiag_isqrt), free(w->tmp), free(w->tmp2);
    if (w->Mchol) {
        gsl_matrix_free(w->Mchol);
    }
}
/* Newton from v0 with the dense Hessian (GSL Cholesky) and an exact line search of its own
 * (exact = 1: the root of phi'(alpha) on (0, 1.5], safeguarded Newton-bisection on phi', to
 * |phi'| <= 1e-8 |phi'(0)|) or Armijo's backtracking (exact = 0: alpha = 1, halved until
 * phi(alpha) <= phi(0) + 1e-4 alpha phi'(0)). */
int ind_newton(indep* w, int exact, solve_out* o) {
    const snap* s = w->s;
    const int nv = s->nv;
    gsl_matrix* Hd = gsl_matrix_alloc((size_t)nv, (size_t)nv);
    double* r = malloc((size_t)nv * sizeof(double));
    double* dv = malloc((size_t)nv * sizeof(double));
    double* vt = malloc((size_t)nv * sizeof(double));
    double* rt = malloc((size_t)nv * sizeof(double));
    o->v = malloc((size_t)nv * sizeof(double));
    if (!Hd || !r || !dv || !vt || !rt || !o->v) {
        free(r), free(dv), free(vt), free(rt);
        if (Hd) {
            gsl_matrix_free(Hd);
        }
        return -1;
    }
    memcpy(o->v, s->v0, (size_t)nv * sizeof(double));
    o->alpha_min = 1;
    double* v = o->v;
    double cost = ind_eval(w, v, r, 1);
    for (o->iterations = 0;; ++o->iterations) {
        double res, tol;
        ind_test(w, v, r, &res, &tol);
        o->residual_over_tol = res / tol, o->cost = cost;
        if (res <= tol) {
            o->converged = 1;
            break;
        }
        if (o->iterations == TRACE_MAX_IT) {
            break;
        }
        ind_hessian(w, Hd);
        if (gsl_linalg_cholesky_decomp1(Hd) != GSL_SUCCESS) {
            break;
        }
        gsl_vector_view dvv = gsl_vector_view_array(dv, (size_t)nv);
        for (int k = 0; k < nv; ++k) {
            dv[k] = -r[k];
        }
        gsl_linalg_cholesky_svx(Hd, &dvv.vector);
        double d0 = 0;
        for (int k = 0; k < nv; ++k) {
            d0 += r[k] * dv[k];
        }
        double alpha;
        if (exact) { /* phi'(a) = grad(v + a dv) . dv, increasing in a (l convex) */
            double lo = 0, hi = 1.5, a = 1.0;
            alpha = hi;
            for (int it = 0; it < 100; ++it) {
                for (int k = 0; k < nv; ++k) {
                    vt[k] = v[k] + a * dv[k];
                }
                ind_eval(w, vt, rt, 1);
                double d = 0;
                for (int k = 0; k < nv; ++k) {
                    d += rt[k] * dv[k];
                }
                if (fabs(d) <= TRACE_LS_FTOL * fabs(d0)) {
                    alpha = a;
                    break;
                }
                if (d < 0) {
                    lo = a;
                    if (a == 1.5) { /* still descending at the largest step */
                        alpha = a;
                        break;
                    }
                } else {
                    hi = a;
                }
                const double curv = ind_curv(w, dv);
                double an = curv > 0 ? a - d / curv : -1;
                if (!(an > lo && an < hi)) {
                    an = 0.5 * (lo + hi);
                }
                if (it == 0 && d < 0) { /* still descending at alpha = 1: try the cap next */
                    an = hi;
                }
                a = an;
                alpha = a;
                if (hi - lo <= 1e-12 * hi) {
                    break;
                }
            }
        } else {
            alpha = 1;
            for (int it = 0; it < 60; ++it, alpha *= 0.5) {
                for (int k = 0; k < nv; ++k) {
                    vt[k] = v[k] + alpha * dv[k];
                }
                if (ind_eval(w, vt, NULL, 0) <= cost + 1e-4 * alpha * d0) {
                    break;
                }
            }
        }
        o->alpha_min = fmin(o->alpha_min, alpha);
        for (int k = 0; k < nv; ++k) {
            v[k] += alpha * dv[k];
        }
        cost = ind_eval(w, v, r, 1);
    }
    o->evals = w->evals;
    free(r), free(dv), free(vt), free(rt);
    gsl_matrix_free(Hd);
    return 0;
}

/* GSL's BFGS2 from v0 to ccb's stopping test. */
static double bfgs_f(const gsl_vector* x, void* p) {
    return ind_eval(p, x->data, NULL, 0);
}
static void bfgs_df(const gsl_vector* x, void* p, gsl_vector* g) {
    ind_eval(p, x->data, g->data, 0);
}
static void bfgs_fdf(const gsl_vector* x, void* p, double* f, gsl_vector* g) {
    *f = ind_eval(p, x->data, g->data, 0);
}

int ind_bfgs(indep* w, solve_out* o) {
    const int nv = w->s->nv;
    gsl_multimin_function_fdf fn = {bfgs_f, bfgs_df, bfgs_fdf, (size_t)nv, w};
    gsl_vector* x = gsl_vector_alloc((size_t)nv);
    gsl_multimin_fdfminimizer* m =
        gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, (size_t)nv);
    o->v = malloc((size_t)nv * sizeof(double));
    if (!x || !m || !o->v) {
        if (x) {
            gsl_vector_free(x);
        }
        if (m) {
            gsl_multimin_fdfminimizer_free(m);
        }
        return -1;
    }
    memcpy(x->data, w->s->v0, (size_t)nv * sizeof(double));
    gsl_multimin_fdfminimizer_set(m, &fn, x, 1e-3, 0.1);
    o->alpha_min = NAN;
    for (o->iterations = 0;; ++o->iterations) {
        const gsl_vector* v = gsl_multimin_fdfminimizer_x(m);
        double res, tol;
        ind_test(w, v->data, gsl_multimin_fdfminimizer_gradient(m)->data, &res, &tol);
        o->residual_over_tol = res / tol, o->cost = gsl_multimin_fdfminimizer_minimum(m);
        memcpy(o->v, v->data, (size_t)nv * sizeof(double));
        if (res <= tol) {
            o->converged = 1;
            break;
        }
        if (o->iterations == TRACE_BFGS_IT || gsl_multimin_fdfminimizer_iterate(m) != GSL_SUCCESS) {
            break;
        }
    }
    o->evals = w->evals;
    gsl_multimin_fdfminimizer_free(m);
    gsl_vector_free(x);
    return 0;
}

/* kappa_2 of the dense Hessian at the last evaluation (made with hess = 1) */
double ind_kappa(const indep* w, gsl_matrix* Hd, gsl_vector* ev, gsl_eigen_symm_workspace* e) {
    ind_hessian(w, Hd);
    if (gsl_eigen_symm(Hd, ev, e) != GSL_SUCCESS) {
        return NAN;
    }
    return gsl_vector_max(ev) / gsl_vector_min(ev);
}
