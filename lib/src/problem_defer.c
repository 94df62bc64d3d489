/* problem_defer: what the build needs to leave a contact without rows (spec:
 * formulation-convex §8.11): the bounds of a contact's velocity change per unit change of the
 * iterate (point_scale, point_arm, from the clique's A), the deferral of a contact the
 * approximation shows inactive about its velocity at v0 (ccb_problem_defer_contact), the point
 * velocities of deferred contacts at the solution, and the lazy body pairs of the contact set
 * (ccb_lazy_pair_radius, ccb_problem_lazy_pairs). problem.c builds the problem and calls these. */
#include <math.h>
#include <string.h>

#include "ccb/alloc.h"
#include "dense.h"
#include "model_internal.h"
#include "problem_internal.h"

/* sqrt(trace A^-1) = |L^-1|_F of a factored block, column by column of L^-1 (forward
 * substitution on e_j); y: n scratch */
double ccb_problem_ainv_bound(int n, const double* L, double* y) {
    double tr = 0.0;
    for (int j = 0; j < n; ++j) {
        for (int i = j; i < n; ++i) {
            double s = i == j ? 1.0 : 0.0;
            for (int k = j; k < i; ++k) {
                s -= L[i * n + k] * y[k];
            }
            y[i] = s / L[i * n + i];
            tr += y[i] * y[i];
        }
    }
    return sqrt(tr);
}

/* trace of the inverse of the 3 x 3 block at M (row stride 6): the sum of the principal 2 x 2
 * minors over the determinant */
static double trace_inv3(const double* M) {
    const double m00 = M[0], m01 = M[1], m02 = M[2], m10 = M[6], m11 = M[7], m12 = M[8],
                 m20 = M[12], m21 = M[13], m22 = M[14];
    const double c0 = m11 * m22 - m12 * m21, c1 = m10 * m22 - m12 * m20, c2 = m10 * m21 - m11 * m20;
    const double det = m00 * c0 - m01 * c1 + m02 * c2;
    return (c0 + (m00 * m22 - m02 * m20) + (m00 * m11 - m01 * m10)) / det;
}

/* The terms of point_scale for a clique of one free body (n = 6, velocity (w, v)) from its A
 * and factor L: for a block-diagonal A (the origin at the centre of mass) the traces of the
 * blocks' inverses, Q = 0; otherwise A^-1 column by column (two triangular solves each; y: 6
 * scratch). */
void ccb_problem_free_body_terms(const double* A, const double* L, double* y, double fb[3]) {
    int diag = 1;
    for (int i = 0; i < 3 && diag; ++i) {
        for (int j = 3; j < 6; ++j) {
            diag &= A[i * 6 + j] == 0.0 && A[j * 6 + i] == 0.0;
        }
    }
    if (diag) {
        fb[0] = trace_inv3(A);
        fb[1] = 0.0;
        fb[2] = trace_inv3(A + 21);
        return;
    }
    double tP = 0.0, q2 = 0.0, tS = 0.0;
    for (int j = 0; j < 6; ++j) {
        for (int i = 0; i < 6; ++i) {
            y[i] = i == j ? 1.0 : 0.0;
        }
        ccb_dense_chol_solve(6, L, y); /* column j of A^-1 */
        if (j < 3) {
            tP += y[j];
            for (int i = 3; i < 6; ++i) {
                q2 += y[i] * y[i]; /* Q: rows 0-2, columns 3-5 (= Q^T's column j) */
            }
        } else {
            tS += y[j];
        }
    }
    fb[0] = tP;
    fb[1] = sqrt(q2);
    fb[2] = tS;
}

/* Bound of |J_r x| / |x|_A over the rows r of the Jacobian of a material point at distance
 * |r| = dist from the origin of a single free or planar body of clique c, for x of the clique
 * (formulation-convex §8.11: the deferral and far bounds). A row is c^T [-[r]x, I] for a unit c,
 * i.e. ((r x c)^T, c^T) on (w, v), and |J_r x| <= sqrt(J_r A^-1 J_r^T) |x|_A with
 *   J_r A^-1 J_r^T = (r x c)^T P (r x c) + 2 (r x c)^T Q c + c^T S c
 *                  <= dist^2 tr P + 2 dist |Q|_F + tr S        (|r x c| <= dist),
 * which for a body whose origin is its centre of mass (Q = 0) is sqrt(dist^2 3/I + 3/m) for a
 * cube's isotropic inertia. Otherwise (planar bodies) the cruder |J_r|_2 |A^-1/2|_2 <=
 * sqrt(1 + dist^2) sqrt(tr A^-1). */
static double point_scale(const ccb_problem* p, int c, double dist) {
    const double* fb = p->clique_fb + 3 * c;
    if (fb[2] >= 0) {
        return sqrt(dist * dist * fb[0] + 2.0 * dist * fb[1] + fb[2]);
    }
    return sqrt(1.0 + dist * dist) * p->clique_ainv[c];
}

/* The lever arm of the Euclidean far bound (formulation-convex §8.11) for a point at distance
 * dist from the origin of the body of clique c: for a single free body (velocity (w, v), both
 * in the world frame) a row c^T [-[r]x, I] changes by |c . (dv + dw x r)| <= |dv| + dist |dw|,
 * so dist; INFINITY for other cliques (only the A-norm bound applies). */
static double point_arm(const ccb_problem* p, int c, double dist) {
    return p->clique_fb[3 * c + 2] >= 0 ? dist : INFINITY;
}

/* Defers contact pc if the approximation shows it inactive about its velocity at v0, computed
 * from the bodies' point velocities (no rows). Returns 1 if deferred. The constants are
 * prepared with w = 0 and vn0 = the centre's normal velocity: for phi0 > 0 no built-in law
 * depends on them (Lagged's gamma_n0 is 0, SAP's and Similar's radius read phi0, dt, tau_d, d and
 * mu). */
int ccb_problem_defer_contact(ccb_problem* p, ccb_pcontact* pc, const ccb_contact* ct,
                              const int body[2]) {
    const double sign[2] = {1.0, -1.0};
    ccb_vec3 u = ccb_v3(0, 0, 0);
    int k = 0;
    for (int side = 0; side < 2; ++side) {
        const int bi = body[side];
        ccb_vec3 vp;
        if (p->bclique[bi] < 0) { /* the build's pose and twist at t0 + dt */
            vp = ccb_point_velocity(&p->bV[bi], &p->bX[bi], ct->p);
        } else {
            const ccb_vec3 r = ccb_v3_sub(ct->p, p->bX[bi].p);
            vp = ccb_v3_add(p->bV[bi].v, ccb_v3_cross(p->bV[bi].w, r));
            const double dist = sqrt(ccb_v3_dot(r, r));
            pc->arm[k] = point_arm(p, p->bclique[bi], dist);
            pc->scale[k++] = point_scale(p, p->bclique[bi], dist);
        }
        u = ccb_v3_add(u, ccb_v3_scale(sign[side], vp));
    }
    const ccb_vec3 c = ccb_m3_tmul_v(&ct->R_WC, u);
    pc->centre[0] = c.x;
    pc->centre[1] = c.y;
    pc->centre[2] = c.z;
    ccb_problem_set_inputs(pc, ct, c.z);
    if (!ccb_all_finite(pc->centre, 3) ||
        ccb_problem_check_input(p, pc->contact, &pc->in) != CCB_OK) {
        return 0; /* the complete path reports it */
    }
    ccb_constraint_prepare(p->approx, &p->step, &p->params.approx, &pc->in, &pc->c);
    const double r = ccb_constraint_inactive_radius(p->approx, &pc->c, pc->centre);
    if (!(r > 0) || !isfinite(r)) {
        return 0;
    }
    pc->radius = r;
    pc->deferred = 1;
    return 1;
}

void ccb_problem_point_velocities(const ccb_problem* p, const int* idx, int n, const double* v,
                                  double* vc) {
    const ccb_model* m = p->model;
    if (n == 0 || m == NULL) { /* raw problems defer nothing */
        return;
    }
    double* vf = p->work; /* the full velocities, then each moving body's twist */
    ccb_problem_expand(p, v, vf);
    ccb_twist* V = p->bV;
    for (int b = 0; b < m->nbodies; ++b) { /* deferred contacts touch single-body trees only */
        const ccb_body* bd = &m->bodies[b];
        if (bd->nv > 0 && ccb_clique_is_single(m, bd->clique)) {
            ccb_body_twist(bd, p->step.t0, p->q0 + bd->qoff, vf + bd->voff, &V[b]);
        }
    }
    for (int k = 0; k < n; ++k) {
        const ccb_contact* ct = &p->cset->items[idx[k]]; /* contact i is item i of the set */
        const int body[2] = {ct->body_b, ct->body_a};
        ccb_vec3 u = ccb_v3(0, 0, 0);
        for (int side = 0; side < 2; ++side) { /* passive bodies: V, X at t0 + dt (build) */
            const ccb_vec3 vp = ccb_point_velocity(&V[body[side]], &p->bX[body[side]], ct->p);
            u = ccb_v3_add(u, ccb_v3_scale(side == 0 ? 1.0 : -1.0, vp));
        }
        const ccb_vec3 c = ccb_m3_tmul_v(&ct->R_WC, u);
        vc[3 * idx[k]] = c.x;
        vc[3 * idx[k] + 1] = c.y;
        vc[3 * idx[k] + 2] = c.z;
    }
}

/* ---- lazy body pairs (formulation-convex §8.11) ---------------------------------------------
 * Every contact of a lazy pair has phi0 >= phi_lb, the pair's material, and a contact point
 * within reach_s of body s's origin. Its velocity at v0, u = v_B(C) - v_A(C), therefore has
 * |u|_2 <= V = sum_s |v_s| + |w_s| reach_s, and each component of v_c = R_WC^T u at most V:
 * v_c,n >= -V and |v_c,t| <= V. Every built-in law's inactive radius is that of
 * ccb_separation_radius(v_c, vhat(phi0), mu) (approx.c), which only grows as v_c,n grows, |v_c,t|
 * shrinks or vhat falls, and vhat falls as phi0 grows (a wider gap needs a faster approach). The
 * radius at the worst centre (V, 0, -V) with phi0 = phi_lb is thus at most every member's own,
 * and a member's deferral (ccb_problem_defer_contact) would have succeeded with a radius at least this
 * large. Its blocks' scales and arms (point_scale, point_arm) grow with the distance of the
 * contact point from the body's origin, so those at the reach are at least every member's. Newton's far test of the pair with these numbers passing
 * implies that of every member passing, so the solve is the one with the members as deferred
 * contacts that stay far; when it fails, the step is solved again with the contacts.
 * [round-off: V, the scales and the radius are widened or narrowed by 1e-9 of themselves, far
 *  above the few ulps by which the members' own numbers are computed differently] */
double ccb_lazy_pair_radius(const ccb_approx* approx, const ccb_approx_options* opt,
                            const ccb_step_context* step, const ccb_contact_pair* pr,
                            const ccb_twist* Va, const ccb_twist* Vb) {
    const double V = (ccb_v3_norm(Va->v) + ccb_v3_norm(Va->w) * pr->reach_a + ccb_v3_norm(Vb->v) +
                      ccb_v3_norm(Vb->w) * pr->reach_b) *
                     (1.0 + 1e-9);
    const ccb_contact_input in = {.k = pr->material.k,
                                  .d = pr->material.d,
                                  .tau_d = pr->material.tau_d,
                                  .mu = pr->material.mu,
                                  .phi0 = pr->phi_lb,
                                  .vn0 = -V,
                                  .w = 0.0,
                                  .mu2 = pr->material.mu2};
    if (!isfinite(V) || !(pr->phi_lb > 0) || !(in.k > 0) || !isfinite(in.k)) {
        return -1.0;
    }
    ccb_constraint c;
    memset(&c, 0, sizeof c);
    ccb_constraint_prepare(approx, step, opt, &in, &c);
    const double centre[3] = {V, 0.0, -V};
    return ccb_constraint_inactive_radius(approx, &c, centre) * (1.0 - 1e-9);
}

/* The contact set's lazy pairs into the problem, or CCB_E_RETRY if one cannot stay far: the
 * problem does not defer (`ok` = 0: not a built-in approximation, or deferral off) or its radius
 * is not > 0 at this step's velocities. */
ccb_status ccb_problem_lazy_pairs(ccb_problem* p, const ccb_contact_set* set, int ok) {
    const ccb_model* m = p->model;
    for (int i = 0; i < set->npairs; ++i) {
        const ccb_contact_pair* pr = &set->pairs[i];
        const int body[2] = {pr->body_a, pr->body_b};
        const double reach[2] = {pr->reach_a, pr->reach_b};
        if (!ok) {
            return ccb_problem_failf(
                p, CCB_E_RETRY,
                "build: the contact set holds lazy pairs, which only the Newton solver "
                "with deferred contacts and a built-in approximation can use");
        }
        ccb_ppair* pp = &p->pairs[p->npairs];
        int moving = 0;
        for (int k = 0; k < 2; ++k) {
            if (body[k] < 0 || body[k] >= m->nbodies || !p->bplain[body[k]]) {
                return ccb_problem_failf(
                    p, CCB_E_INVALID,
                    "build: lazy pair %d: body %d is not a single free or planar body or "
                    "one without coordinates",
                    i, body[k]);
            }
            const int c = p->bclique[body[k]]; /* -1: no coordinates (a wall), no block */
            pp->clique[k] = c;
            pp->scale[k] = c >= 0 ? point_scale(p, c, reach[k]) * (1.0 + 1e-9) : 0.0;
            pp->arm[k] = c >= 0 ? point_arm(p, c, reach[k]) : INFINITY;
            moving += c >= 0;
        }
        if (moving == 0) {
            return ccb_problem_failf(p, CCB_E_INVALID, "build: lazy pair %d: neither body moves",
                                     i);
        }
        pp->radius = ccb_lazy_pair_radius(p->approx, &p->params.approx, &p->step, pr,
                                          &p->bV[body[0]], &p->bV[body[1]]);
        pp->pair = i;
        if (!(pp->radius > 0) || !isfinite(pp->radius) || !ccb_all_finite(pp->scale, 2)) {
            return ccb_problem_failf(
                p, CCB_E_RETRY,
                "build: the lazy pair of bodies '%s' and '%s' may activate within the "
                "step",
                m->bodies[body[0]].name, m->bodies[body[1]].name);
        }
        p->npairs++;
    }
    return CCB_OK;
}
