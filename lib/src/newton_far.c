/* newton_far: the far contacts of the Newton solver (newton.c): contacts that provably stay
 * inactive at every point an iteration evaluates are left out of it, with results bit-identical
 * to evaluating every contact. spec: formulation-convex §8 (the solver); the bound is below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "newton_internal.h"

/* ---- far contacts ----------------------------------------------------------------------------
 * A contact whose law is exactly zero (gamma = 0, G = 0, l_i = 0) on the box of half-width r_i
 * about its velocity vc_i(v_g) at the initial iterate v_g (ccb_approx.inactive_radius) adds
 * nothing to the cost, gradient, Hessian or line search while every point the solver evaluates
 * keeps vc_i in that box. For a point w, with |.|_A_b the A-norm of clique b,
 *   |vc_i(w) - vc_i(v_g)|_inf <= sum_b max_r |J_ib,r|_2 sqrt(tr A_b^-1) |w_b - v_g,b|_A_b,
 * (|J x| <= |J|_2 |A^-1/2|_2 |A^1/2 x|_2, |A^-1/2|_2^2 <= tr A^-1), and the points of iteration
 * k are w = v_k + alpha dv_k with 0 <= alpha <= max(alpha_max, 1), so
 *   |w_b - v_g,b|_A_b <= rho_b = |v_k,b - v_g,b|_A_b + max(alpha_max, 1) |dv_k,b|_A_b.
 * For a clique of one free body (velocity (w, v) in the world frame) a row of the contact's
 * block is ((r x c)^T, c^T) with c a unit vector and r the point's offset from the body's
 * origin, so its change is also at most rho_t + |r| rho_w (formulation-convex §8.11), with
 *   rho_t = |v_k - v_g|_2 + max(alpha_max, 1) |dv_k|_2 on the linear velocity and rho_w the
 * same on the angular one: on the clutter's cubes 8-12 times tighter than s rho_b for a change
 * of translation (the A-norm bound pays for every direction of rotation at once). Each block
 * takes the smaller of the two; the arm d_ib = max_r |r x c_r| (or |r|, or a lazy pair's reach)
 * is INFINITY for any other clique, whose rho_t, rho_w are INFINITY too.
 * While sum_b min(s_ib rho_b, rho_t,b + d_ib rho_w,b) < r_i the contact is "far" and the
 * iteration skips it. The first
 * iteration whose bound reaches r_i makes it "near": its v_c is replayed through the past
 * iterations exactly as the incremental update computes it (vc += alpha J dv), so every number
 * the solver computes is the one it computes when it evaluates every contact at every iterate
 * (the skipped terms are exact zeros). Contacts the problem deferred (problem.c,
 * defer_inactive) start far with the problem's radius and bound scales and are completed (rows,
 * constants, v_c(v_g) = J v_g + b) when promoted. At convergence the far contacts get
 * v_c = J v + b (deferred ones: the bodies' point velocities), gamma = 0 and G = 0.
 * The test runs per group of far contacts: a run of them with the same two cliques (in the
 * clutter one shape of a body against the shapes of another, up to 26 contacts): with the group's largest scales and smallest
 * radius (and largest arms), h_g (1 + 1e-10) < r_g implies h_i (1 + 1e-10) < r_i for every member, bit for bit
 * (products and sums of non-negative numbers are monotone under rounding to nearest; a NaN scale
 * or radius makes the group's bound NaN), so only a group whose bound fails tests its members,
 * each exactly as alone. */

static double norm3(const double* x) {
    return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

/* x^T A x of one n x n block (row sums in column order, then in row order) */
static inline __attribute__((always_inline)) double block_A_quad(const double* A, const double* xb,
                                                                 int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        double t = 0.0;
        for (int j = 0; j < n; ++j) {
            t += A[i * n + j] * xb[j];
        }
        s += xb[i] * t;
    }
    return s;
}

static double clique_A_norm(const ccb_problem* pb, int a, const double* x) {
    const int c = pb->pclique[a];
    const int n = pb->clique_nv[c];
    const double* A = pb->A + pb->clique_aoff[c];
    const double* xb = x + pb->pvoff[a];
    /* a free body: the same sums, unrolled */
    const double s = n == 6 ? block_A_quad(A, xb, 6) : block_A_quad(A, xb, n);
    return sqrt(s > 0 ? s : 0.0);
}

/* Largest (smallest) of a running bound and x, with a NaN sticking (the group test then fails
 * and the members are tested one by one). */
static double up_nan(double m, double x) {
    return (x <= m || m != m) ? m : x;
}
static double down_nan(double m, double x) {
    return (x >= m || m != m) ? m : x;
}

/* Groups the far slots 0..n_far-1: a group is a run of consecutive slots (ascending contacts)
 * with the same cliques (a0, a1); the geometry emits a body pair's contacts shape pair by shape
 * pair, so a run is one shape of a body against the shapes of another (up to 26 in the
 * clutter). One pass, no sort; sets every group's bound. */
static void far_group(ccb_newton* ws) {
    const int n = ws->n_far;
    int ng = 0;
    for (int j = 0; j < n; ++j) {
        const int* a = ws->far_a + 2 * j;
        if (ng == 0 || ws->fg_a[2 * (ng - 1)] != a[0] || ws->fg_a[2 * (ng - 1) + 1] != a[1]) {
            if (ng > 0) {
                ws->fg_end[ng - 1] = j;
            }
            ws->fg_start[ng] = j;
            ws->fg_a[2 * ng] = a[0];
            ws->fg_a[2 * ng + 1] = a[1];
            ws->fg_s[2 * ng] = ws->fg_s[2 * ng + 1] = 0.0;
            ws->fg_d[2 * ng] = ws->fg_d[2 * ng + 1] = 0.0;
            ws->fg_r[ng] = INFINITY;
            ng++;
        }
        ws->fm_i[j] = ws->far[j];
        ws->fg_s[2 * (ng - 1)] = up_nan(ws->fg_s[2 * (ng - 1)], ws->far_s[2 * j]);
        ws->fg_s[2 * (ng - 1) + 1] = up_nan(ws->fg_s[2 * (ng - 1) + 1], ws->far_s[2 * j + 1]);
        ws->fg_d[2 * (ng - 1)] = up_nan(ws->fg_d[2 * (ng - 1)], ws->far_d[2 * j]);
        ws->fg_d[2 * (ng - 1) + 1] = up_nan(ws->fg_d[2 * (ng - 1) + 1], ws->far_d[2 * j + 1]);
        ws->fg_r[ng - 1] = down_nan(ws->fg_r[ng - 1], ws->far_r[j]);
    }
    if (ng > 0) {
        ws->fg_end[ng - 1] = n;
    }
    ws->n_fgroup = ng;
    ccb_newton_far_live_all(ws);
}

void ccb_newton_far_live_all(ccb_newton* ws) {
    for (int g = 0; g < ws->n_fgroup; ++g) {
        ws->fg_live[g] = g;
    }
    ws->n_fg_live = ws->n_fgroup;
}

/* h = sum_b min(s_b rho_{a_b}, rho_t + d_b rho_w) over the blocks present (the bounds of the
 * header). A NaN scale keeps h NaN (the comparison below fails), a NaN arm its A-norm term. */
static double far_bound(const ccb_newton* ws, const int a[2], const double s[2],
                        const double d[2]) {
    double h = 0.0;
    for (int b = 0; b < 2; ++b) {
        if (a[b] >= 0) {
            double t = s[b] * ws->rho[a[b]];
            const double e = ws->rho_e[2 * a[b]] + d[b] * ws->rho_e[2 * a[b] + 1];
            if (e < t) {
                t = e;
            }
            h += t;
        }
    }
    return h;
}

static int cmp_int(const void* x, const void* y) {
    const int a = *(const int*)x, b = *(const int*)y;
    return (a > b) - (a < b);
}

/* Splits the contacts evaluated at the initial iterate into near and far. */
void ccb_newton_far_init(ccb_newton* ws) {
    const ccb_problem* pb = ws->pb;
    ws->n_near = ws->n_far = 0;
    ws->far_final = 0;
    memcpy(ws->vg, ws->v, (size_t)ws->npv * sizeof(double));
    /* rho = 0 until a clique's first update: exact for a clique whose island is done before it
     * moves (a lazy pair may read it from another island; the islands' labels are gone) */
    for (int a = 0; a < pb->np; ++a) {
        ws->rho[a] = 0.0;
        const double e = pb->clique_fb[3 * pb->pclique[a] + 2] >= 0 ? 0.0 : INFINITY;
        ws->rho_e[2 * a] = ws->rho_e[2 * a + 1] = e;
    }
    for (int i = 0; i < pb->nc; ++i) {
        const ccb_pcontact* pc = &pb->contacts[i];
        const int f = ws->n_far; /* its slot if it is far */
        if (pc->deferred) {      /* the problem's radius about v_c(v0) = v_c(v_g) */
            ws->far_r[f] = pc->radius;
            for (int k = 0; k < 2; ++k) {
                ws->far_a[2 * f + k] = k < pc->nblk ? pb->clique_pidx[pc->clique[k]] : -1;
                ws->far_s[2 * f + k] = k < pc->nblk ? pc->scale[k] : 0.0;
                ws->far_d[2 * f + k] = k < pc->nblk ? pc->arm[k] : 0.0;
            }
            ws->far[ws->n_far++] = i;
            continue;
        }
        const double r = pb->approx->inactive_radius && !ws->prm.evaluate_all
                             ? ccb_constraint_inactive_radius(pb->approx, &pc->c, ws->vc + 3 * i)
                             : -1.0;
        if (!(r > 0) || !isfinite(r)) {
            ws->near[ws->n_near++] = i;
            continue;
        }
        ws->far_r[f] = r;
        for (int k = 0; k < 2; ++k) {
            ws->far_a[2 * f + k] = -1;
            ws->far_s[2 * f + k] = 0.0;
            ws->far_d[2 * f + k] = 0.0;
        }
        for (int k = 0; k < pc->nblk; ++k) {
            const int c = pc->clique[k];
            const int n = pb->clique_nv[c];
            const double* J = ccb_pc_block(pb, pc, k);
            double smax = 0.0, amax = 0.0, lmax = 0.0;
            for (int r3 = 0; r3 < 3; ++r3) {
                double s = 0.0, sa = 0.0;
                for (int j = 0; j < n; ++j) {
                    s += J[r3 * n + j] * J[r3 * n + j];
                    sa += j < 3 ? J[r3 * n + j] * J[r3 * n + j] : 0.0;
                }
                smax = s > smax ? s : smax;
                amax = sa > amax ? sa : amax;
                lmax = s - sa > lmax ? s - sa : lmax;
            }
            ws->far_s[2 * f + k] = sqrt(smax) * pb->clique_ainv[c];
            /* a single free body's rows ((r x c)^T, c^T): the arm max |r x c| (linear parts
             * unit vectors, to round-off, which the test's 1e-10 covers) */
            ws->far_d[2 * f + k] =
                pb->clique_fb[3 * c + 2] >= 0 && lmax <= 1.0 + 1e-12 ? sqrt(amax) : INFINITY;
            ws->far_a[2 * f + k] = pb->clique_pidx[c];
        }
        ws->far[ws->n_far++] = i;
    }
    for (int k = 0; k < pb->npairs;
         ++k) { /* lazy pairs: far slots nc + k (formulation-convex §8.11) */
        const ccb_ppair* pp = &pb->pairs[k];
        const int f = ws->n_far;
        ws->far_r[f] = pp->radius;
        for (int b = 0; b < 2; ++b) {
            ws->far_a[2 * f + b] = pp->clique[b] >= 0 ? pb->clique_pidx[pp->clique[b]] : -1;
            ws->far_s[2 * f + b] = pp->scale[b];
            ws->far_d[2 * f + b] = pp->arm[b];
        }
        ws->far[ws->n_far++] = pb->nc + k;
    }
    far_group(ws);
}

/* The failure of a solve in which the lazy pair of far slot index i (>= nc) may activate; the
 * failing pairs are listed by the caller (lazy_fail), or none. */
static ccb_status lazy_pair_reached(ccb_newton* ws, int i) {
    const ccb_problem* pb = ws->pb;
    const ccb_contact_pair* pr = &pb->cset->pairs[pb->pairs[i - pb->nc].pair];
    return ccb_newton_fail(ws, CCB_E_RETRY,
                           "newton: the lazy pair of bodies '%s' and '%s' may activate at "
                           "iteration %d (formulation-convex §8.11)",
                           pb->model->bodies[pr->body_a].name, pb->model->bodies[pr->body_b].name,
                           ws->iter);
}

/* With islands, the lazy pairs among the promoted prom[0..np-1] (sorted: the pairs, slots >= nc,
 * last) fail without ending the solve (formulation-convex §8.11): each is recorded (lazy_acc)
 * and the islands of its cliques are frozen where they stand (done, lazy) — their iterate is
 * discarded, the step solved again from its guess with the pair's contacts — while every other
 * island iterates on to convergence, whose iterate the next solve starts from
 * (ccb_newton_resume). Islands are independent problems (§8.10): the others' iterates are those
 * they would have had. Returns the number of pairs (the tail of prom). */
static int lazy_freeze(ccb_newton* ws, int np) {
    const ccb_problem* pb = ws->pb;
    int k0 = np;
    while (k0 > 0 && ws->prom[k0 - 1] >= pb->nc) {
        k0--;
    }
    if (ws->n_lazy_acc == 0) {
        ws->lazy_iter = ws->iter;
    }
    for (int k = k0; k < np; ++k) {
        const ccb_ppair* pp = &pb->pairs[ws->prom[k] - pb->nc];
        ws->lazy_acc[ws->n_lazy_acc++] = pp->pair;
        for (int b = 0; b < 2; ++b) {
            if (pp->clique[b] >= 0) {
                ccb_newton_island* is =
                    &ws->il[ws->isl_v[pb->pvoff[pb->clique_pidx[pp->clique[b]]]]];
                is->done = is->lazy = 1;
            }
        }
    }
    return np - k0;
}

/* The end of a solve with islands in which lazy pairs failed (lazy_freeze) and every other island
 * converged: CCB_E_RETRY, the failed pairs in lazy_fail. */
ccb_status ccb_newton_lazy_retry(ccb_newton* ws) {
    const ccb_problem* pb = ws->pb;
    const ccb_contact_pair* pr = &pb->cset->pairs[ws->lazy_acc[0]];
    ws->lazy_fail = ws->lazy_acc;
    ws->n_lazy_fail = ws->n_lazy_acc;
    return ccb_newton_fail(ws, CCB_E_RETRY,
                           "newton: %d lazy pair%s may activate, the first of bodies '%s' and '%s' "
                           "at iteration %d; the other islands converged "
                           "(formulation-convex §8.11)",
                           ws->n_lazy_acc, ws->n_lazy_acc > 1 ? "s" : "",
                           pb->model->bodies[pr->body_a].name, pb->model->bodies[pr->body_b].name,
                           ws->lazy_iter);
}

int ccb_newton_resume(ccb_newton* ws, const double* guess0, double* out) {
    if (ws == NULL || ws->pb == NULL || ws->status != CCB_E_RETRY || ws->n_lazy_acc == 0 ||
        ws->nisl < 2) {
        return 0;
    }
    const ccb_problem* pb = ws->pb;
    memcpy(out, ccb_newton_velocities(ws), (size_t)pb->nv * sizeof(double));
    const double* g0 = guess0 ? guess0 : pb->v0;
    for (int a = 0; a < pb->np; ++a) {
        const int c = pb->pclique[a], n = pb->clique_nv[c];
        if (n > 0 && ws->il[ws->isl_v[pb->pvoff[a]]].lazy) {
            memcpy(out + pb->clique_voff[c], g0 + pb->clique_voff[c], (size_t)n * sizeof(double));
        }
    }
    return 1;
}

/* Moves the promoted contacts prom[0..n-1] (sorted) into the sorted near list (merge from the
 * back, in place). */
static void far_merge(ccb_newton* ws, int n) {
    ws->pattern_ok = 0; /* new clique pairs may enter the Hessian's pattern */
    int a = ws->n_near - 1, b = n - 1, out = ws->n_near + n - 1;
    while (b >= 0) {
        ws->near[out--] = (a >= 0 && ws->near[a] > ws->prom[b]) ? ws->near[a--] : ws->prom[b--];
    }
    ws->n_near += n;
}

/* Completes far contact i if the problem deferred it (its rows, bias and constants). */
ccb_status ccb_newton_far_complete(ccb_newton* ws, int i) {
    const ccb_status s = ccb_problem_complete(ws->pb, i);
    if (s != CCB_OK) {
        return ccb_newton_fail(ws, s, "newton: completing deferred contact %d: %s", i,
                               ccb_problem_last_error(ws->pb));
    }
    return CCB_OK;
}

/* Every far contact becomes near (completed; its v_c is then recomputed by the caller). */
ccb_status ccb_newton_far_promote_all(ccb_newton* ws) {
    if (ws->n_far > 0 && ws->far[ws->n_far - 1] >= ws->pb->nc) { /* lazy pairs are last */
        ws->n_lazy_fail = 0; /* iterating past convergence: every pair at once */
        return lazy_pair_reached(ws, ws->far[ws->n_far - 1]);
    }
    for (int k = 0; k < ws->n_far; ++k) {
        const ccb_status s = ccb_newton_far_complete(ws, ws->far[k]);
        if (s != CCB_OK) {
            return s;
        }
    }
    if (ws->n_far == 0) {
        return CCB_OK;
    }
    memcpy(ws->prom, ws->far, (size_t)ws->n_far * sizeof(int));
    const int n = ws->n_far;
    ws->n_far = 0;
    ws->n_fgroup = ws->n_fg_live = 0;
    far_merge(ws, n);
    return CCB_OK;
}

/* 1 if every island the far group g touches is done: a contact's island, or for a lazy pair
 * (which joins no islands) those of both its cliques. */
static int far_group_done(const ccb_newton* ws, int g) {
    const int i = ws->fm_i[ws->fg_start[g]];
    if (i < ws->pb->nc) {
        return ws->il[ws->icon[i]].done;
    }
    for (int b = 0; b < 2; ++b) {
        const int a = ws->fg_a[2 * g + b];
        if (a >= 0 && !ws->il[ws->isl_v[ws->pb->pvoff[a]]].done) {
            return 0;
        }
    }
    return 1;
}

/* Before the J dv of iteration `iter`: makes near each far contact whose bound for this
 * iteration's points reaches its radius, with its v_c replayed through iterations 0..iter-1. */
ccb_status ccb_newton_far_update(ccb_newton* ws) {
    if (ws->n_far == 0) {
        return CCB_OK;
    }
    const ccb_problem* pb = ws->pb;
    const double am = ws->prm.ls_alpha_max > 1.0 ? ws->prm.ls_alpha_max : 1.0;
    /* with islands, only the islands not done: a frozen island's v and dv = 0 give each of its
     * far contacts a bound no larger than at its last iteration, which kept it far */
    const int isl = ws->nisl > 1, na = isl ? ws->n_acl : pb->np;
    for (int m = 0; m < na; ++m) {
        const int a = isl ? ws->acl[m] : m;
        const int k0 = pb->pvoff[a], n = pb->clique_nv[pb->pclique[a]];
        for (int k = k0; k < k0 + n; ++k) {
            ws->tmp[k] = ws->v[k] - ws->vg[k];
        }
        ws->rho[a] = clique_A_norm(pb, a, ws->tmp) + am * clique_A_norm(pb, a, ws->dv);
        if (pb->clique_fb[3 * pb->pclique[a] + 2] >= 0) { /* (w, v): linear, then angular */
            ws->rho_e[2 * a] = norm3(ws->tmp + k0 + 3) + am * norm3(ws->dv + k0 + 3);
            ws->rho_e[2 * a + 1] = norm3(ws->tmp + k0) + am * norm3(ws->dv + k0);
        }
    }
    int np = 0;
    /* with islands the live groups, which leave the list once empty or done (monotone) */
    const int ng = isl ? ws->n_fg_live : ws->n_fgroup;
    int nlive = 0;
    for (int m = 0; m < ng; ++m) {
        const int g = isl ? ws->fg_live[m] : m;
        if (isl && (ws->fg_end[g] == ws->fg_start[g] || far_group_done(ws, g))) {
            continue;
        }
        if (isl) {
            ws->fg_live[nlive++] = g;
        }
        /* [round-off: h and r_i are sums of a few products, relative error ~1e-15] */
        if (far_bound(ws, ws->fg_a + 2 * g, ws->fg_s + 2 * g, ws->fg_d + 2 * g) * (1.0 + 1e-10) <
            ws->fg_r[g]) {
            continue; /* every member stays far (monotone bound, header) */
        }
        const int* a = ws->fg_a + 2 * g;
        int out = ws->fg_start[g];
        double s0 = 0.0, s1 = 0.0, d0 = 0.0, d1 = 0.0, rmin = INFINITY;
        for (int j = ws->fg_start[g]; j < ws->fg_end[g]; ++j) {
            if (far_bound(ws, a, ws->far_s + 2 * j, ws->far_d + 2 * j) * (1.0 + 1e-10) <
                ws->far_r[j]) {
                ws->fm_i[out] = ws->fm_i[j]; /* stays far: moves down within its group */
                ws->far_r[out] = ws->far_r[j];
                ws->far_s[2 * out] = ws->far_s[2 * j];
                ws->far_s[2 * out + 1] = ws->far_s[2 * j + 1];
                ws->far_d[2 * out] = ws->far_d[2 * j];
                ws->far_d[2 * out + 1] = ws->far_d[2 * j + 1];
                s0 = up_nan(s0, ws->far_s[2 * j]);
                s1 = up_nan(s1, ws->far_s[2 * j + 1]);
                d0 = up_nan(d0, ws->far_d[2 * j]);
                d1 = up_nan(d1, ws->far_d[2 * j + 1]);
                rmin = down_nan(rmin, ws->far_r[j]);
                out++;
            } else {
                ws->prom[np++] = ws->fm_i[j];
            }
        }
        ws->fg_end[g] = out;
        ws->fg_s[2 * g] = s0;
        ws->fg_s[2 * g + 1] = s1;
        ws->fg_d[2 * g] = d0;
        ws->fg_d[2 * g + 1] = d1;
        ws->fg_r[g] = rmin;
    }
    if (isl) {
        ws->n_fg_live = nlive;
    }
    if (np == 0) {
        return CCB_OK;
    }
    qsort(ws->prom, (size_t)np, sizeof(int), cmp_int);
    int np_lazy = 0; /* with islands: the failing pairs freeze their islands (below) */
    if (ws->prom[np - 1] >= pb->nc && isl) {
        np_lazy = lazy_freeze(ws, np);
    } else if (ws->prom[np - 1] >= pb->nc) {
        const ccb_status s = lazy_pair_reached(ws, ws->prom[np - 1]);
        int k0 = np;
        while (k0 > 0 && ws->prom[k0 - 1] >= pb->nc) { /* the failing pairs, as set indices */
            k0--;
            ws->prom[k0] = pb->pairs[ws->prom[k0] - pb->nc].pair;
        }
        ws->lazy_fail = ws->prom + k0;
        ws->n_lazy_fail = np - k0;
        return s;
    }
    int nf = 0;
    for (int k = 0, p = 0; k < ws->n_far; ++k) { /* far minus prom (both ascending) */
        if (p < np && ws->far[k] == ws->prom[p]) {
            p++;
        } else {
            ws->far[nf++] = ws->far[k];
        }
    }
    ws->n_far = nf;
    np -= np_lazy; /* the failed pairs are out of the far list; the contacts are promoted */
    if (np == 0) {
        return CCB_OK;
    }
    for (int k = 0; k < np; ++k) { /* in ascending order, as one pass over far[] made them */
        const int i = ws->prom[k];
        if (pb->contacts[i].deferred) { /* its rows, and v_c(v_g) = J v_g + b as at the start */
            const ccb_status s = ccb_newton_far_complete(ws, i);
            if (s != CCB_OK) {
                return s;
            }
            ccb_problem_J_mul_some(pb, &i, 1, ws->vg, 1, ws->vc);
        }
        double* vc = ws->vc + 3 * i;
        const double* dvc = ws->dvc + 3 * i; /* scratch until this iteration's J dv */
        for (int it = 0; it < ws->iter; ++it) {
            ccb_problem_J_mul_some(pb, &i, 1, ws->dvh + (size_t)it * ws->npv, 0, ws->dvc);
            const double alpha = ws->ahist[(size_t)it * ws->nisl + ws->icon[i]]; /* its island's */
            for (int r = 0; r < 3; ++r) {
                vc[r] += alpha * dvc[r];
            }
        }
    }
    far_merge(ws, np);
    return CCB_OK;
}

/* At convergence: the far contacts' v_c at the solution, and exact zeros for their law. */
void ccb_newton_far_finish(ccb_newton* ws) {
    const ccb_problem* pb = ws->pb;
    int n = ws->n_far; /* the far contacts; the lazy pairs (last in far[]) have none to report */
    while (n > 0 && ws->far[n - 1] >= pb->nc) {
        n--;
    }
    ws->nc_far = n;
    if (n == 0) {
        return;
    }
    int nd = 0; /* deferred ones (no rows): from the bodies' point velocities, into prom */
    for (int k = 0; k < n; ++k) {
        const int i = ws->far[k];
        if (pb->contacts[i].deferred) { /* gamma and G: +0 since newton_init */
            ws->prom[nd++] = i;
            continue;
        }
        ccb_problem_J_mul_some(pb, &i, 1, ws->v, 1, ws->vc);
        memset(ws->gamma + 3 * i, 0, 3 * sizeof(double));
        memset(ws->G + 9 * i, 0, 9 * sizeof(double));
    }
    ccb_problem_point_velocities(pb, ws->prom, nd, ws->v, ws->vc);
    ws->far_final = 1; /* their v_c is no longer the centre of the bound */
}

int ccb_newton_lazy_failures(const ccb_newton* ws, const int** pairs) {
    *pairs = ws->lazy_fail;
    return ws->status == CCB_E_RETRY ? ws->n_lazy_fail : 0;
}
