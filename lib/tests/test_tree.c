/* Unit tests of articulated trees (lib/src/tree.c, spec: formulation-convex §17): the mass
 * matrix against the kinetic energy, the Newton-Euler forces against Lagrange's equations by
 * finite differences (with a moving prescribed anchor), the point Jacobian and twists against
 * finite differences of positions, the simple pendulum's period against the elliptic-integral
 * closed form, a double pendulum against GSL's rk8pd on its closed-form equations, the energy of
 * a free-swinging chain, and the momentum balance at the exit of Newton with jointed bodies in
 * contact (one contact inside a tree). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_ellint.h>

#include "ccb/ccb.h"
#include "model_internal.h"
#include "problem_internal.h"
#include "test.h"

static const double G = 9.81;

static ccb_mat3 diag3(double a, double b, double c) {
    ccb_mat3 I = ccb_m3_identity();
    I.m[0] = a, I.m[4] = b, I.m[8] = c;
    return I;
}

/* a jointed link of mass m with a diagonal inertia */
static ccb_body_def link_def(const char* name, ccb_mobilizer mob, int parent, ccb_vec3 p_PF,
                             ccb_vec3 p_BM, ccb_vec3 axis, double m, ccb_mat3 I) {
    ccb_body_def d = ccb_body_def_default();
    d.name = name;
    d.mobilizer = mob;
    d.mass = m;
    d.inertia = I;
    d.joint.parent = parent;
    d.joint.X_PF = ccb_pose_translation(p_PF);
    d.joint.X_BM = ccb_pose_translation(p_BM);
    d.joint.axis = axis;
    return d;
}

static int add(ccb_model* m, const ccb_body_def* d) {
    int id = -1;
    CHECK(ccb_model_add_body(m, d, &id) == CCB_OK, "add %s: %s", d->name, ccb_model_last_error(m));
    return id;
}

/* kinetic energy from the public twists: sum 1/2 (m |v_c|^2 + w^T I_W w) */
static double kinetic(const ccb_model* m, double t, const double* q, const double* v) {
    double T = 0;
    for (int b = 0; b < ccb_model_nbodies(m); ++b) {
        const ccb_body* bd = &m->bodies[b];
        if (bd->nv == 0) {
            continue; /* fixed and prescribed bodies carry no kinetic energy of the model */
        }
        ccb_pose X;
        ccb_twist V;
        ccb_model_body_pose(m, b, t, q, &X);
        ccb_model_body_twist(m, b, t, q, v, &V);
        const ccb_vec3 wB = ccb_m3_tmul_v(&X.R, V.w);
        T += 0.5 * bd->def.mass * ccb_v3_dot(V.v, V.v) +
             0.5 * ccb_v3_dot(wB, ccb_m3_mul_v(&bd->def.inertia, wB));
    }
    return T;
}

/* potential energy of gravity, -sum m g . c */
static double potential(const ccb_model* m, double t, const double* q) {
    double U = 0;
    for (int b = 0; b < ccb_model_nbodies(m); ++b) {
        const ccb_body* bd = &m->bodies[b];
        if (bd->nv == 0) {
            continue;
        }
        ccb_pose X;
        ccb_model_body_pose(m, b, t, q, &X);
        U -= bd->def.mass * ccb_v3_dot(ccb_model_gravity(m), X.p);
    }
    return U;
}

/* ---- a moving anchor: circle in x-y, bobbing in z, turning about z -------------------------- */
static void anchor_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    (void)user;
    const double A = 0.1, w = 3.0, th = 0.5 * t + 0.2 * sin(2 * t);
    X->p = ccb_v3(A * cos(w * t), A * sin(w * t), 0.05 * sin(2 * t));
    X->R = ccb_m3_axis_angle(ccb_v3(0, 0, 1), th);
    V->w = ccb_v3(0, 0, 0.5 + 0.4 * cos(2 * t));
    V->v = ccb_v3(-A * w * sin(w * t), A * w * cos(w * t), 0.1 * cos(2 * t));
}
static void anchor_accel(double t, void* user, ccb_vec3* alpha, ccb_vec3* a) {
    (void)user;
    const double A = 0.1, w = 3.0;
    *alpha = ccb_v3(0, 0, -0.8 * sin(2 * t));
    *a = ccb_v3(-A * w * w * cos(w * t), -A * w * w * sin(w * t), -0.2 * sin(2 * t));
}

static double actuation(double t, double q, double v, void* user) {
    (void)user;
    return 0.3 * sin(t) - 0.2 * q + 0.1 * v;
}

/* A tree of four links on a moving anchor: revolute L1, prismatic L2 on L1, revolute L3 on L2,
 * and a second branch, revolute L4 on L1; axes and offsets generic. Plus a free body with a
 * revolute child (a free-rooted tree). */
static ccb_model* generic_trees(int with_anchor) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    int parent = -1;
    if (with_anchor) {
        ccb_body_def a = ccb_body_def_default();
        a.name = "anchor";
        a.mobilizer = CCB_MOBILIZER_PRESCRIBED;
        a.motion = anchor_motion;
        a.accel = anchor_accel;
        parent = add(m, &a);
    }
    ccb_body_def d =
        link_def("L1", CCB_MOBILIZER_REVOLUTE, parent, ccb_v3(0.02, 0.01, 0), ccb_v3(0.01, 0, 0.15),
                 ccb_v3(0.2, 1, 0.1), 1.2, diag3(0.011, 0.012, 0.004));
    d.joint.X_PF.R = ccb_m3_axis_angle(ccb_v3(1, 0, 0), 0.3);
    d.joint.q0 = 0.4;
    d.joint.v0 = 0.7;
    d.joint.stiffness = 2.0;
    d.joint.q_rest = 0.1;
    const int l1 = add(m, &d);
    d = link_def("L2", CCB_MOBILIZER_PRISMATIC, l1, ccb_v3(0, 0.03, -0.15), ccb_v3(0, 0, 0.05),
                 ccb_v3(1, 0.2, -0.3), 0.6, diag3(0.002, 0.003, 0.001));
    d.joint.X_BM.R = ccb_m3_axis_angle(ccb_v3(0, 0.70710678118654752, 0.70710678118654752), -0.4);
    d.joint.q0 = 0.05;
    d.joint.v0 = -0.3;
    d.joint.actuation = actuation;
    const int l2 = add(m, &d);
    d = link_def("L3", CCB_MOBILIZER_REVOLUTE, l2, ccb_v3(0.01, 0, -0.05), ccb_v3(0, 0.02, 0.08),
                 ccb_v3(0.3, 0, 1), 0.4, diag3(0.001, 0.0015, 0.0008));
    d.joint.q0 = -0.8;
    d.joint.v0 = 1.1;
    add(m, &d);
    d = link_def("L4", CCB_MOBILIZER_REVOLUTE, l1, ccb_v3(0.0, -0.04, -0.1), ccb_v3(0, 0, 0.06),
                 ccb_v3(0, 1, 0), 0.3, diag3(0.0007, 0.0009, 0.0002));
    d.joint.q0 = 0.6;
    d.joint.v0 = -0.5;
    add(m, &d);
    ccb_body_def f = ccb_body_def_default();
    f.name = "F";
    f.mobilizer = CCB_MOBILIZER_FREE;
    f.mass = 2.0;
    f.inertia = diag3(0.02, 0.03, 0.025);
    f.pose.p = ccb_v3(0.3, -0.2, 0.5);
    f.pose.R = ccb_m3_axis_angle(ccb_v3(0.6, 0.0, 0.8), 0.7);
    f.twist.w = ccb_v3(0.4, -1.0, 0.6);
    f.twist.v = ccb_v3(0.2, 0.1, -0.3);
    const int fb = add(m, &f);
    d = link_def("C", CCB_MOBILIZER_REVOLUTE, fb, ccb_v3(0.1, 0, 0), ccb_v3(-0.05, 0, 0),
                 ccb_v3(0, 0, 1), 0.5, diag3(0.001, 0.002, 0.002));
    d.joint.q0 = 0.3;
    d.joint.v0 = 2.0;
    add(m, &d);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    return m;
}

static void test_structure(void) {
    ccb_model* m = generic_trees(1);
    /* trees: {L1, L2, L3, L4} (anchor has no coordinates), {F, C} */
    CHECK(m->nclique == 2, "two trees (got %d)", m->nclique);
    CHECK(m->clique_nv[0] == 4 && m->clique_nv[1] == 7, "tree sizes 4 and 7 (%d, %d)",
          m->clique_nv[0], m->clique_nv[1]);
    CHECK(ccb_model_nq(m) == 4 + 8 && ccb_model_nv(m) == 11, "nq 12, nv 11");
    CHECK(strcmp(ccb_model_q_name(m, 1), "L2.s") == 0 &&
              strcmp(ccb_model_v_name(m, 0), "L1.omega") == 0 &&
              strcmp(ccb_model_q_unit(m, 0), "rad") == 0,
          "joint coordinate names and units");
    ccb_model_destroy(m);
    /* invalid joints: each refused with the field named, the model unchanged */
    ccb_model_create(&m);
    ccb_body_def p = ccb_body_def_default();
    p.name = "P";
    p.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    p.motion = anchor_motion; /* no accel */
    add(m, &p);
    struct {
        const char* field;
        ccb_body_def d;
    } bad[6];
    for (int i = 0; i < 6; ++i) {
        bad[i].d = link_def("J", CCB_MOBILIZER_REVOLUTE, -1, ccb_v3(0, 0, 0), ccb_v3(0, 0, 0),
                            ccb_v3(0, 1, 0), 1.0, diag3(1, 1, 1));
    }
    bad[0].field = "acceleration", bad[0].d.joint.parent = 0;
    bad[1].field = "parent", bad[1].d.joint.parent = 5;
    bad[2].field = "axis", bad[2].d.joint.axis = ccb_v3(0, 0, 0);
    bad[3].field = "damping", bad[3].d.joint.damping = -1;
    bad[4].field = "X_PF", bad[4].d.joint.X_PF.R.m[0] = 2;
    bad[5].field = "q0", bad[5].d.joint.q0 = NAN;
    for (int i = 0; i < 6; ++i) {
        CHECK(ccb_model_add_body(m, &bad[i].d, NULL) == CCB_E_INVALID &&
                  strstr(ccb_model_last_error(m), bad[i].field) != NULL,
              "bad joint (%s) refused: %s", bad[i].field, ccb_model_last_error(m));
    }
    CHECK(ccb_model_nbodies(m) == 1, "refused bodies leave the model unchanged");
    ccb_model_destroy(m);
}

/* [round-off: sums of a few dozen products of O(1) quantities] */
static const double TOL_ROUND = 1e-12;

/* M_il = T(e_i + e_l) - T(e_i) - T(e_l) for the joint-only tree (no anchor: T quadratic in v) and
 * the free-rooted one; v^T M v = 2 T. */
static void test_mass_matrix(void) {
    ccb_model* m = generic_trees(0);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    double q[16], v[16], e[16];
    ccb_model_initial_state(m, q, v);
    for (int c = 0; c < m->nclique; ++c) {
        const int n = m->clique_nv[c], off = m->clique_voff[c];
        double M[CCB_MAX_TREE_NV * CCB_MAX_TREE_NV];
        ccb_clique_mass_matrix(m, c, 0.0, q, M);
        for (int i = 0; i < n; ++i) {
            for (int l = 0; l <= i; ++l) {
                memset(e, 0, sizeof e);
                e[off + i] += 1, e[off + l] += 1;
                const double Til = kinetic(m, 0, q, e);
                memset(e, 0, sizeof e);
                e[off + i] = 1;
                const double Ti = kinetic(m, 0, q, e);
                memset(e, 0, sizeof e);
                e[off + l] = 1;
                const double Tl = kinetic(m, 0, q, e);
                const double Mil = i == l ? 2 * Ti : Til - Ti - Tl;
                CHECK_ABS(M[i * n + l], Mil, TOL_ROUND, "CRBA M_il = polarized kinetic energy");
                CHECK(M[i * n + l] == M[l * n + i], "M exactly symmetric");
            }
        }
    }
    /* v^T M v = 2 T over the whole model */
    double vMv = 0;
    for (int c = 0; c < m->nclique; ++c) {
        const int n = m->clique_nv[c], off = m->clique_voff[c];
        double M[CCB_MAX_TREE_NV * CCB_MAX_TREE_NV];
        ccb_clique_mass_matrix(m, c, 0.0, q, M);
        for (int i = 0; i < n; ++i) {
            for (int l = 0; l < n; ++l) {
                vMv += v[off + i] * M[i * n + l] * v[off + l];
            }
        }
    }
    CHECK_REL(vMv, 2 * kinetic(m, 0, q, v), TOL_ROUND, 1.0, "v^T M v = 2 T");
    (void)nq, (void)nv;
    ccb_model_destroy(m);
}

/* p_i(t, q, v) = dT/dv_i: a central difference, exact for T quadratic in v up to round-off */
static double p_i(const ccb_model* m, double t, const double* q, const double* v, int i,
                  double hv) {
    double vp[16], vm[16];
    memcpy(vp, v, sizeof vp);
    memcpy(vm, v, sizeof vm);
    vp[i] += hv, vm[i] -= hv;
    return (kinetic(m, t, q, vp) - kinetic(m, t, q, vm)) / (2 * hv);
}

/* Lagrange: k2 = d/dt(dT/dv)|_{vdot=0} ... rearranged: k2_i = -(d/dt p_i)(t, q, v)|_{vdot = 0}
 * + dT/dq_i - dU/dq_i + joint forces, p = dT/dv, for the joint-only tree on the moving anchor
 * (q' = v for every jointed coordinate). */
static void test_newton_euler_vs_lagrange(void) {
    ccb_model* m = generic_trees(1);
    double q[16], v[16];
    ccb_model_initial_state(m, q, v);
    const int c = 0, n = m->clique_nv[c];
    double f[CCB_MAX_TREE_NV];
    const double t = 0.37;
    ccb_clique_generalized_force(m, c, t, q, v, f);
    const double hv = 1e-3, hq = 1e-5;
    for (int i = 0; i < n; ++i) {
        double qp[16], qm[16];
        for (int k = 0; k < 16; ++k) {
            qp[k] = q[k], qm[k] = q[k];
        }
        for (int k = 0; k < n; ++k) {
            qp[k] += hq * v[k], qm[k] -= hq * v[k];
        }
        const double pdot =
            (p_i(m, t + hq, qp, v, i, hv) - p_i(m, t - hq, qm, v, i, hv)) / (2 * hq);
        double qi_p[16], qi_m[16];
        memcpy(qi_p, q, sizeof qi_p);
        memcpy(qi_m, q, sizeof qi_m);
        qi_p[i] += hq, qi_m[i] -= hq;
        const double dT = (kinetic(m, t, qi_p, v) - kinetic(m, t, qi_m, v)) / (2 * hq);
        const double dU = (potential(m, t, qi_p) - potential(m, t, qi_m)) / (2 * hq);
        double tau = 0;
        const ccb_body* b = &m->bodies[m->clique_blist[m->clique_bstart[c] + i]];
        tau = -b->def.joint.stiffness * (q[i] - b->def.joint.q_rest);
        if (b->def.joint.actuation) {
            tau += b->def.joint.actuation(t, q[i], v[i], NULL);
        }
        /* [nested central differences: hq^2 x O(10) third derivatives + eps |p|/(hv hq) ~ 1e-8] */
        CHECK_ABS(f[i], -pdot + dT - dU + tau, 1e-6,
                  "Newton-Euler k2 = Lagrange's equations with a moving anchor");
    }
    ccb_model_destroy(m);
}

/* J v + anchor velocity = d/dt of a material point's position; twists = d/dt of poses. */
static void test_jacobian_fd(void) {
    ccb_model* m = generic_trees(1);
    double q[16], v[16];
    ccb_model_initial_state(m, q, v);
    const double t = 0.81, h = 1e-6;
    for (int body = 1; body < ccb_model_nbodies(m); ++body) {
        const ccb_body* b = &m->bodies[body];
        const int n = m->clique_nv[b->clique], off = m->clique_voff[b->clique];
        const ccb_vec3 pB = ccb_v3(0.03, -0.02, 0.04);
        double qp[16], qm[16];
        memcpy(qp, q, sizeof qp);
        memcpy(qm, q, sizeof qm);
        for (int j = 0; j < m->clique_bstart[b->clique + 1] - m->clique_bstart[b->clique]; ++j) {
            const ccb_body* bj = &m->bodies[m->clique_blist[m->clique_bstart[b->clique] + j]];
            double qd[7];
            ccb_body_qdot(bj, q + bj->qoff, v + bj->voff, qd);
            for (int k = 0; k < bj->nq; ++k) {
                qp[bj->qoff + k] += h * qd[k];
                qm[bj->qoff + k] -= h * qd[k];
            }
        }
        ccb_pose X, Xp, Xm;
        ccb_model_body_pose(m, body, t, q, &X);
        ccb_model_body_pose(m, body, t + h, qp, &Xp);
        ccb_model_body_pose(m, body, t - h, qm, &Xm);
        const ccb_vec3 pW = ccb_v3_add(X.p, ccb_m3_mul_v(&X.R, pB));
        const ccb_vec3 a = ccb_v3_add(Xp.p, ccb_m3_mul_v(&Xp.R, pB));
        const ccb_vec3 c = ccb_v3_add(Xm.p, ccb_m3_mul_v(&Xm.R, pB));
        const double fd[3] = {(a.x - c.x) / (2 * h), (a.y - c.y) / (2 * h), (a.z - c.z) / (2 * h)};
        double J[3 * CCB_MAX_TREE_NV];
        memset(J, 0, sizeof J);
        const ccb_mat3 I = ccb_m3_identity();
        if (ccb_clique_is_single(m, b->clique)) {
            ccb_body_point_jacobian(b, q + b->qoff, pW, J);
        } else {
            ccb_tree_point_jacobian(m, body, t, q, pW, &I, 1.0, J);
        }
        const ccb_vec3 u0 = ccb_tree_anchor_point_velocity(m, body, t, pW);
        const double u[3] = {u0.x, u0.y, u0.z};
        ccb_twist V;
        ccb_model_body_twist(m, body, t, q, v, &V);
        const ccb_vec3 vp = ccb_v3_add(V.v, ccb_v3_cross(V.w, ccb_v3_sub(pW, X.p)));
        const double tw[3] = {vp.x, vp.y, vp.z};
        for (int r = 0; r < 3; ++r) {
            double jv = u[r];
            for (int k = 0; k < n; ++k) {
                jv += J[r * n + k] * v[off + k];
            }
            /* [central FD, h = 1e-6: h^2 |d3p/dt3| + eps/h ~ 1e-10] */
            CHECK_ABS(jv, fd[r], 1e-8, "J v + anchor point velocity = d/dt of the point");
            CHECK_ABS(tw[r], fd[r], 1e-8, "body twist at the point = d/dt of the point");
        }
        /* angular velocity: skew part of (dR/dt) R^T */
        double Rd[9];
        for (int k = 0; k < 9; ++k) {
            Rd[k] = (Xp.R.m[k] - Xm.R.m[k]) / (2 * h);
        }
        double W[9];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                W[3 * i + j] = Rd[3 * i] * X.R.m[3 * j] + Rd[3 * i + 1] * X.R.m[3 * j + 1] +
                               Rd[3 * i + 2] * X.R.m[3 * j + 2];
            }
        }
        CHECK_ABS(V.w.x, 0.5 * (W[7] - W[5]), 1e-8, "w_x = skew(dR/dt R^T) [central FD]");
        CHECK_ABS(V.w.y, 0.5 * (W[2] - W[6]), 1e-8, "w_y = skew(dR/dt R^T) [central FD]");
        CHECK_ABS(V.w.z, 0.5 * (W[3] - W[1]), 1e-8, "w_z = skew(dR/dt R^T) [central FD]");
    }
    ccb_model_destroy(m);
}

/* ---- dynamics through the stepper ------------------------------------------------------------ */

static ccb_sim* make_sim(const ccb_model* m, double dt) {
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    return sim;
}

/* compound pendulum: rod of mass m, COM at l below the pivot, inertia Ic about its COM */
static const double PEN_M = 0.8, PEN_L = 0.25, PEN_IC = 0.004, PEN_TH0 = 1.2;

/* first period from two successive upward zero crossings of the angle (linear interpolation) */
static double pendulum_period(double dt) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d =
        link_def("pend", CCB_MOBILIZER_REVOLUTE, -1, ccb_v3(0, 0, 1), ccb_v3(0, 0, PEN_L),
                 ccb_v3(0, 1, 0), PEN_M, diag3(PEN_IC, PEN_IC, 1e-4));
    d.joint.q0 = PEN_TH0;
    add(m, &d);
    ccb_model_finalize(m);
    ccb_sim* sim = make_sim(m, dt);
    double tc[2];
    int nc = 0;
    double qprev = PEN_TH0, t = 0;
    while (nc < 2 && t < 5) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "pendulum step");
        t += dt;
        const double qn = ccb_sim_q(sim)[0];
        if (qprev < 0 && qn >= 0) {
            tc[nc++] = t - dt + dt * (-qprev) / (qn - qprev);
        }
        qprev = qn;
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return nc == 2 ? tc[1] - tc[0] : NAN;
}

static void test_pendulum_period(void) {
    const double IO = PEN_IC + PEN_M * PEN_L * PEN_L;
    const double T =
        4 * sqrt(IO / (PEN_M * G * PEN_L)) * gsl_sf_ellint_Kcomp(sin(PEN_TH0 / 2), GSL_PREC_DOUBLE);
    const double e1 = fabs(pendulum_period(1e-3) - T), e2 = fabs(pendulum_period(2.5e-4) - T);
    printf("pendulum: T = %.9f s, |error| %.3e (dt 1e-3), %.3e (dt 2.5e-4)\n", T, e1, e2);
    /* [symplectic Euler's period error is second order: ratio 16 for dt / 4; measured 16.0;
     * the crossing interpolation is second order too. Band [12, 20]] */
    CHECK(e1 / e2 > 12 && e1 / e2 < 20, "period error ratio %g for dt / 4 (second order)", e1 / e2);
    /* [measured 3.9e-8 s at dt = 2.5e-4 (relative 3.4e-8); bound 2.5x] */
    CHECK(e2 < 1e-7, "period within 1e-7 s of 4 sqrt(I_O/(m g l)) K(sin(theta0/2)) (%g)", e2);
}

/* double pendulum of two compound links, absolute angles th1, psi = th1 + th2 (closed form) */
typedef struct dp {
    double m1, a1, I1, l1, m2, a2, I2;
} dp;
static int dp_rhs(double t, const double y[], double dy[], void* user) {
    (void)t;
    const dp* P = user;
    const double th = y[0], ps = y[1], w1 = y[2], w2 = y[3];
    const double M11 = P->I1 + P->m1 * P->a1 * P->a1 + P->m2 * P->l1 * P->l1;
    const double M22 = P->I2 + P->m2 * P->a2 * P->a2;
    const double c = P->m2 * P->l1 * P->a2;
    const double M12 = c * cos(th - ps);
    const double r1 = -c * sin(th - ps) * w2 * w2 - (P->m1 * P->a1 + P->m2 * P->l1) * G * sin(th);
    const double r2 = c * sin(th - ps) * w1 * w1 - P->m2 * P->a2 * G * sin(ps);
    const double det = M11 * M22 - M12 * M12;
    dy[0] = w1;
    dy[1] = w2;
    dy[2] = (M22 * r1 - M12 * r2) / det;
    dy[3] = (M11 * r2 - M12 * r1) / det;
    return GSL_SUCCESS;
}

static const dp DP = {0.7, 0.12, 0.003, 0.3, 0.5, 0.15, 0.002};
static const double DP_T = 1.0;

static ccb_model* double_pendulum(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d =
        link_def("l1", CCB_MOBILIZER_REVOLUTE, -1, ccb_v3(0, 0, 0), ccb_v3(0, 0, DP.a1),
                 ccb_v3(0, 1, 0), DP.m1, diag3(DP.I1, DP.I1, 1e-4));
    d.joint.q0 = 0.6;
    const int l1 = add(m, &d);
    d = link_def("l2", CCB_MOBILIZER_REVOLUTE, l1, ccb_v3(0, 0, DP.a1 - DP.l1), ccb_v3(0, 0, DP.a2),
                 ccb_v3(0, 1, 0), DP.m2, diag3(DP.I2, DP.I2, 1e-4));
    d.joint.q0 = -0.3;
    d.joint.v0 = 1.0;
    add(m, &d);
    ccb_model_finalize(m);
    return m;
}

static double dp_error(double dt, const double yref[4]) {
    ccb_model* m = double_pendulum();
    ccb_sim* sim = make_sim(m, dt);
    const long n = lround(DP_T / dt);
    for (long k = 0; k < n; ++k) {
        ccb_sim_step(sim);
    }
    const double* q = ccb_sim_q(sim);
    const double e = fmax(fabs(q[0] - yref[0]), fabs(q[0] + q[1] - yref[1]));
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return e;
}

static void test_double_pendulum(void) {
    /* reference: GSL rk8pd at 1e-13 on the closed form (absolute angles) */
    dp P = DP;
    gsl_odeiv2_system sys = {dp_rhs, NULL, 4, &P};
    gsl_odeiv2_driver* drv =
        gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4, 1e-13, 1e-13);
    double y[4] = {0.6, 0.3, 0.0, 1.0}, t = 0; /* psi = th1 + th2, psi' = th1' + th2' */
    CHECK(gsl_odeiv2_driver_apply(drv, &t, DP_T, y) == GSL_SUCCESS, "reference integration");
    gsl_odeiv2_driver_free(drv);
    const double e1 = dp_error(1e-3, y), e2 = dp_error(5e-4, y), e3 = dp_error(2.5e-4, y);
    printf("double pendulum at t = 1 s: |error| %.3e, %.3e, %.3e rad (dt 1e-3, 5e-4, 2.5e-4)\n", e1,
           e2, e3);
    /* [first order (symplectic Euler with the explicit Coriolis terms): ratio 2 per halving;
     * measured 1.99 and 1.99, band +- 15 %] */
    CHECK(e1 / e2 > 1.7 && e1 / e2 < 2.3 && e2 / e3 > 1.7 && e2 / e3 < 2.3,
          "double-pendulum error first order: ratios %g, %g", e1 / e2, e2 / e3);
    /* [measured 1.31e-3 rad at dt = 2.5e-4; bound 2x] */
    CHECK(e3 < 2.6e-3, "double pendulum within 2.6e-3 rad of the closed form at dt = 2.5e-4 (%g)",
          e3);
}

/* three revolute links swinging freely: relative energy drift over 2 s */
static double chain_energy_drift(double dt) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    int parent = -1;
    const char* names[3] = {"c1", "c2", "c3"};
    for (int i = 0; i < 3; ++i) {
        ccb_body_def d =
            link_def(names[i], CCB_MOBILIZER_REVOLUTE, parent, ccb_v3(0, 0, i == 0 ? 0.0 : -0.1),
                     ccb_v3(0, 0, 0.1), ccb_v3(0.1 * i, 1, 0), 0.5, diag3(0.002, 0.002, 2e-4));
        d.joint.q0 = 0.9 - 0.4 * i;
        parent = add(m, &d);
    }
    ccb_model_finalize(m);
    double q[3], v[3];
    ccb_model_initial_state(m, q, v);
    const double E0 = kinetic(m, 0, q, v) + potential(m, 0, q);
    ccb_sim* sim = make_sim(m, dt);
    double drift = 0;
    const long n = lround(2.0 / dt);
    for (long k = 0; k < n; ++k) {
        ccb_sim_step(sim);
        const double E =
            kinetic(m, 0, ccb_sim_q(sim), ccb_sim_v(sim)) + potential(m, 0, ccb_sim_q(sim));
        drift = fmax(drift, fabs(E - E0));
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return drift / (1.5 * G * 0.3); /* relative to m_total g L_total */
}

static void test_chain_energy(void) {
    const double d1 = chain_energy_drift(1e-3), d2 = chain_energy_drift(5e-4);
    printf("chain energy drift over 2 s: %.3e, %.3e (dt 1e-3, 5e-4; relative to M g L)\n", d1, d2);
    /* [first order in dt: the ratio is 2 per halving; measured 2.0, band +- 15 %] */
    CHECK(d1 / d2 > 1.7 && d1 / d2 < 2.3, "energy drift first order (ratio %g)", d1 / d2);
    /* [measured 9.1e-3 at dt = 5e-4; bound 2.2x] */
    CHECK(d2 < 2e-2, "energy drift %g of M g L over 2 s at dt = 5e-4", d2);
}

/* A free body with a revolute child floating without gravity, integrated by GSL's rk8pd on the
 * continuous model (the ODE path): energy, linear momentum and angular momentum about O are
 * invariants, so the free-rooted tree's Newton-Euler forces must keep them. */
static void momenta(const ccb_model* m, const double* q, const double* v, double P[3],
                    double L[3]) {
    ccb_vec3 p = ccb_v3(0, 0, 0), l = ccb_v3(0, 0, 0);
    for (int b = 0; b < ccb_model_nbodies(m); ++b) {
        const ccb_body* bd = &m->bodies[b];
        if (bd->nv == 0) {
            continue;
        }
        ccb_pose X;
        ccb_twist V;
        ccb_model_body_pose(m, b, 0, q, &X);
        ccb_model_body_twist(m, b, 0, q, v, &V);
        const ccb_vec3 mv = ccb_v3_scale(bd->def.mass, V.v);
        const ccb_vec3 wB = ccb_m3_tmul_v(&X.R, V.w);
        const ccb_vec3 Iw = ccb_m3_mul_v(&X.R, ccb_m3_mul_v(&bd->def.inertia, wB));
        p = ccb_v3_add(p, mv);
        l = ccb_v3_add(l, ccb_v3_add(Iw, ccb_v3_cross(X.p, mv)));
    }
    P[0] = p.x, P[1] = p.y, P[2] = p.z;
    L[0] = l.x, L[1] = l.y, L[2] = l.z;
}

static void test_free_root_invariants(void) {
    ccb_model* m0 = generic_trees(0);
    /* the free-rooted tree alone: rebuild F and C without gravity */
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
    for (int b = 0; b < ccb_model_nbodies(m0); ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m0, b, &d);
        if (strcmp(d.name, "F") == 0 || strcmp(d.name, "C") == 0) {
            if (d.mobilizer == CCB_MOBILIZER_REVOLUTE) {
                d.joint.parent = 0;
            }
            add(m, &d);
        }
    }
    ccb_model_destroy(m0);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[8], v[7], P0[3], L0[3], P1[3], L1[3];
    ccb_model_initial_state(m, q, v);
    momenta(m, q, v, P0, L0);
    const double E0 = kinetic(m, 0, q, v);
    ccb_sim_params p = ccb_sim_params_default();
    p.solver = CCB_SOLVER_ODE;
    p.dt = 0.1;
    p.ode.method = CCB_ODE_GSL;
    p.ode.h = 1e-3;
    p.ode.gsl_atol = p.ode.gsl_rtol = 1e-12;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    for (int k = 0; k < 10; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    }
    momenta(m, ccb_sim_q(sim), ccb_sim_v(sim), P1, L1);
    const double E1 = kinetic(m, 0, ccb_sim_q(sim), ccb_sim_v(sim));
    printf("free-rooted tree, 1 s of rk8pd: |dE|/E %.2e, |dP| %.2e, |dL| %.2e\n",
           fabs(E1 - E0) / E0, fabs(P1[0] - P0[0]) + fabs(P1[1] - P0[1]) + fabs(P1[2] - P0[2]),
           fabs(L1[0] - L0[0]) + fabs(L1[1] - L0[1]) + fabs(L1[2] - L0[2]));
    /* [rk8pd at atol = rtol = 1e-12 over 1 s: invariants to ~1e-10; a wrong Coriolis or
     * gyroscopic term changes them at O(1e-2)] */
    CHECK_REL(E1, E0, 1e-8, 1.0, "kinetic energy of the free-floating tree");
    for (int i = 0; i < 3; ++i) {
        CHECK_ABS(P1[i], P0[i], 1e-8, "linear momentum of the free-floating tree");
        CHECK_ABS(L1[i], L0[i], 1e-8, "angular momentum about O of the free-floating tree");
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

/* Fingers on prismatic joints of a moving palm squeeze a free ball (no gravity), and a chain
 * whose last link touches its first (one contact inside a tree): the momentum balance at the exit
 * of Newton, and the shared block's normal velocity against d phi/dt. */
static double squeeze(double t, double q, double v, void* user) {
    (void)t, (void)q, (void)v;
    return *(const double*)user;
}

static void test_contact_momentum(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
    ccb_body_def palm = ccb_body_def_default();
    palm.name = "palm";
    palm.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    palm.motion = anchor_motion;
    palm.accel = anchor_accel;
    const int ip = add(m, &palm);
    static const double push[2] = {5.0, 5.0};
    ccb_material mat = {1e4, 0, 0, 0.5, 0.0};
    for (int s = 0; s < 2; ++s) {
        const double sx = s == 0 ? 1.0 : -1.0;
        ccb_body_def f =
            link_def(s == 0 ? "fl" : "fr", CCB_MOBILIZER_PRISMATIC, ip, ccb_v3(-sx * 0.05, 0, 0),
                     ccb_v3(0, 0, 0), ccb_v3(sx, 0, 0), 0.1, diag3(1e-4, 1e-4, 1e-4));
        f.joint.q0 = 0.0;
        f.joint.actuation = squeeze;
        f.joint.actuation_user = (void*)&push[s];
        const int fi = add(m, &f);
        ccb_shape_def sh = ccb_shape_def_default();
        sh.type = CCB_SHAPE_SPHERE;
        sh.radius = 0.01;
        sh.material = mat;
        ccb_model_add_shape(m, fi, &sh, NULL);
    }
    ccb_body_def ball = ccb_body_def_default();
    ball.name = "ball";
    ball.mobilizer = CCB_MOBILIZER_FREE;
    ball.mass = 0.2;
    ball.inertia = diag3(2e-5, 2e-5, 2e-5);
    ball.pose = ccb_pose_translation(ccb_v3(0.1, 0, 0)); /* at the palm's initial position */
    ball.twist.v = ccb_v3(0, 0.3, 0.1);
    const int ib = add(m, &ball);
    ccb_shape_def bs = ccb_shape_def_default();
    bs.type = CCB_SHAPE_SPHERE;
    bs.radius = 0.0395;
    bs.material = mat;
    ccb_model_add_shape(m, ib, &bs, NULL);
    /* a chain on the world whose third link's sphere overlaps the first link's */
    int parent = -1;
    const char* names[3] = {"k1", "k2", "k3"};
    const double q0[3] = {0.0, 2.6, 2.6};
    for (int i = 0; i < 3; ++i) {
        ccb_body_def d =
            link_def(names[i], CCB_MOBILIZER_REVOLUTE, parent,
                     i == 0 ? ccb_v3(1, 0, 0) : ccb_v3(0, 0, -0.05), ccb_v3(0, 0, 0.05),
                     ccb_v3(0, 1, 0), 0.2, diag3(2e-4, 2e-4, 2e-5));
        d.joint.q0 = q0[i];
        d.joint.v0 = 0.5 * (i + 1);
        parent = add(m, &d);
        ccb_shape_def sh = ccb_shape_def_default();
        sh.type = CCB_SHAPE_SPHERE;
        sh.radius = 0.02;
        sh.material = mat;
        if (i != 1) {
            ccb_model_add_shape(m, parent, &sh, NULL);
        }
    }
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[32], v[32];
    ccb_model_initial_state(m, q, v);
    /* the chain's contact: one block in its tree, normal row = d phi/dt */
    ccb_contact_set cs = {0};
    char msg[256];
    CHECK(ccb_geometry_query(m, 0, q, 0.0, &cs, msg, sizeof msg) == CCB_OK, "query");
    int shared = -1;
    for (int i = 0; i < cs.n; ++i) {
        if (m->bodies[cs.items[i].body_a].clique == m->bodies[cs.items[i].body_b].clique) {
            shared = i;
        }
    }
    CHECK(shared >= 0, "the chain's first and third links touch (%d contacts)", cs.n);
    if (shared >= 0) {
        const ccb_contact* ct = &cs.items[shared];
        const int c = m->bodies[ct->body_a].clique, n = m->clique_nv[c];
        double J[3 * CCB_MAX_TREE_NV];
        ccb_contact_jacobian_block(m, ct->body_b, 0, q, ct, 1.0, 1, J);
        ccb_contact_jacobian_block(m, ct->body_a, 0, q, ct, -1.0, 0, J);
        double vn = 0;
        for (int k = 0; k < n; ++k) {
            vn += J[2 * n + k] * v[m->clique_voff[c] + k];
        }
        const double h = 1e-6;
        double qp[32], qm[32];
        memcpy(qp, q, sizeof qp);
        memcpy(qm, q, sizeof qm);
        for (int b = 0; b < ccb_model_nbodies(m); ++b) {
            const ccb_body* bd = &m->bodies[b];
            if (bd->clique == c) {
                qp[bd->qoff] += h * v[bd->voff];
                qm[bd->qoff] -= h * v[bd->voff];
            }
        }
        ccb_pose Xa, Xb;
        ccb_model_body_pose(m, ct->body_a, 0, qp, &Xa);
        ccb_model_body_pose(m, ct->body_b, 0, qp, &Xb);
        const double dplus = ccb_v3_norm(ccb_v3_sub(Xa.p, Xb.p));
        ccb_model_body_pose(m, ct->body_a, 0, qm, &Xa);
        ccb_model_body_pose(m, ct->body_b, 0, qm, &Xb);
        const double dm = ccb_v3_norm(ccb_v3_sub(Xa.p, Xb.p));
        /* [central FD of the centre distance, h = 1e-6: ~1e-10] */
        CHECK_ABS(vn, (dplus - dm) / (2 * h), 1e-8, "shared block's normal row = d phi/dt");
    }
    ccb_contact_set_free(&cs);
    /* Newton: every step's momentum residual within eps_r, contacts on both kinds of tree */
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 2e-3;
    ccb_sim* sim = NULL;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    int with_contacts = 0;
    for (int s = 0; s < 100; ++s) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step %d: %s", s, ccb_sim_last_error(sim));
        ccb_physics_metrics pm;
        CHECK(ccb_sim_physics_metrics(sim, &pm) == CCB_OK, "metrics");
        /* [Newton's relative optimality tolerance eps_r bounds the relative momentum residual] */
        CHECK(pm.momentum <= p.newton.eps_r * (1 + 1e-9), "momentum residual %g > eps_r",
              pm.momentum);
        with_contacts += ccb_sim_ncontacts(sim) > 0;
    }
    CHECK(with_contacts == 100, "contacts in every step (%d)", with_contacts);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

/* Capsule against sphere: the gap and normal against the closed form, beside the segment (to
 * the side surface) and beyond its end (to the cap). */
static void test_capsule_sphere_query(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def c = ccb_body_def_default();
    c.name = "cap";
    c.mobilizer = CCB_MOBILIZER_FIXED;
    c.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    const int ic = add(m, &c);
    ccb_shape_def cs = ccb_shape_def_default();
    cs.type = CCB_SHAPE_CAPSULE;
    cs.radius = 0.04;
    cs.half_length = 0.05;
    cs.pose.R = ccb_m3_rot_y(-0.5 * CCB_PI); /* segment along z */
    cs.material = (ccb_material){INFINITY, 0, 0, 0.3, 0.0};
    ccb_model_add_shape(m, ic, &cs, NULL);
    ccb_body_def b = ccb_body_def_default();
    b.name = "ball";
    b.mobilizer = CCB_MOBILIZER_FREE;
    b.mass = 0.1;
    b.inertia = diag3(1e-5, 1e-5, 1e-5);
    const int ib = add(m, &b);
    ccb_shape_def bs = ccb_shape_def_default();
    bs.type = CCB_SHAPE_SPHERE;
    bs.radius = 0.006;
    bs.material = (ccb_material){1e4, 0, 0, 0.3, 0.0};
    ccb_model_add_shape(m, ib, &bs, NULL);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    struct {
        ccb_vec3 p; /* ball centre */
        double phi; /* gap */
        ccb_vec3 n; /* normal, capsule to ball */
    } k[2] = {{{0.0455, 0, 0.02}, 0.0455 - 0.046, {1, 0, 0}},
              {{0, 0.03, 0.09}, 0.05 - 0.046, {0, 0.6, 0.8}}};
    for (int i = 0; i < 2; ++i) {
        double q[7] = {k[i].p.x, k[i].p.y, k[i].p.z, 1, 0, 0, 0};
        ccb_contact_set set = {0};
        char msg[128];
        CHECK(ccb_geometry_query(m, 0, q, 0.01, &set, msg, sizeof msg) == CCB_OK && set.n == 1,
              "one capsule-sphere contact (%d)", set.n);
        if (set.n == 1) {
            const ccb_contact* ct = &set.items[0];
            const ccb_vec3 n = ccb_m3_col(&ct->R_WC, 2);
            const double sgn = ct->body_b == ib ? 1.0 : -1.0;
            CHECK_ABS(ct->phi0, k[i].phi, TOL_ROUND, "capsule-sphere gap (closed form)");
            CHECK_ABS(sgn * n.x, k[i].n.x, TOL_ROUND, "normal x");
            CHECK_ABS(sgn * n.y, k[i].n.y, TOL_ROUND, "normal y");
            CHECK_ABS(sgn * n.z, k[i].n.z, TOL_ROUND, "normal z");
        }
        ccb_contact_set_free(&set);
    }
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_structure);
    RUN(test_mass_matrix);
    RUN(test_newton_euler_vs_lagrange);
    RUN(test_jacobian_fd);
    RUN(test_pendulum_period);
    RUN(test_double_pendulum);
    RUN(test_chain_energy);
    RUN(test_free_root_invariants);
    RUN(test_contact_momentum);
    RUN(test_capsule_sphere_query);
    return TEST_SUMMARY();
}
