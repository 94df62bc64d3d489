/* Unit tests of model and geometry: the model's validation, the kinematics of planar and free
 * bodies against finite differences and exact tumbling, the contact queries of every shape pair,
 * the pair classes and the broad phase (split from test_sim.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "geometry_internal.h"
#include "model_internal.h"
#include "problem_internal.h"
#include "test.h"
#include "test_models.h"

/* [round-off: a few dozen operations on O(1) quantities] */
static const double TOL_ROUND = 1e-12;

static void test_planar_jacobian(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "b";
    d.mass = 2.385;
    d.inertia.m[4] = 0.0123;
    int ib;
    ccb_model_add_body(m, &d, &ib);
    ccb_model_finalize(m);
    const ccb_body* b = &m->bodies[ib];
    for (int trial = 0; trial < 50; ++trial) {
        double q[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-3, 3)};
        const ccb_vec3 pB = ccb_v3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), uniform(-0.3, 0.3));
        ccb_pose X;
        ccb_body_pose(b, 0, q, &X);
        const ccb_vec3 pW = ccb_v3_add(X.p, ccb_m3_mul_v(&X.R, pB));
        double Jp[9];
        ccb_body_point_jacobian(b, q, pW, Jp);
        for (int k = 0; k < 3; ++k) {
            const double h = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};
            qp[k] += h;
            qm[k] -= h;
            ccb_pose Xp, Xm;
            ccb_body_pose(b, 0, qp, &Xp);
            ccb_body_pose(b, 0, qm, &Xm);
            const ccb_vec3 a = ccb_v3_add(Xp.p, ccb_m3_mul_v(&Xp.R, pB));
            const ccb_vec3 c = ccb_v3_add(Xm.p, ccb_m3_mul_v(&Xm.R, pB));
            const double fd[3] = {(a.x - c.x) / (2 * h), (a.y - c.y) / (2 * h),
                                  (a.z - c.z) / (2 * h)};
            for (int r = 0; r < 3; ++r) {
                /* [central FD, h = 1e-6 on O(1) trig functions: error ~h^2 + eps/h ~ 1e-10] */
                CHECK_ABS(Jp[3 * r + k], fd[r], 1e-8, "point Jacobian = FD of the point position");
            }
        }
        /* mass matrix diag(m, m, I_yy) */
        double M[9];
        ccb_body_mass_matrix(b, q, M);
        const double Mx[9] = {2.385, 0, 0, 0, 2.385, 0, 0, 0, 0.0123};
        for (int i = 0; i < 9; ++i) {
            CHECK_ABS(M[i], Mx[i], TOL_ROUND, "planar mass matrix");
        }
    }
    ccb_model_destroy(m);
}

static void test_box_halfspace_query(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    g.pose = ccb_pose_planar(0, 0, 0);
    int ig, ib;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = 0.4;
    ccb_model_add_shape(m, ig, &hs, NULL);
    ccb_body_def d = ccb_body_def_default();
    d.name = "box";
    const double th = 0.3, z = 0.25;
    d.pose = ccb_pose_planar(0.1, z, th);
    ccb_model_add_body(m, &d, &ib);
    ccb_shape_def bx = ccb_shape_def_default();
    bx.type = CCB_SHAPE_BOX;
    bx.half_extents = ccb_v3(0.1, 0.2, 0.3);
    bx.material = (ccb_material){2e6, 5.0, 1e-3, 0.6, 0.0};
    ccb_model_add_shape(m, ib, &bx, NULL);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[3], v[3];
    ccb_model_initial_state(m, q, v);
    ccb_contact_set cs = {0};
    const double margin = 0.05;
    CHECK(ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK, "query");
    int expected = 0;
    for (int i = 0; i < 8; ++i) {
        const double cx = (i & 1) ? 0.1 : -0.1, cz = (i & 4) ? 0.3 : -0.3;
        const double phi = z - sin(th) * cx + cos(th) * cz; /* R_y(th) row z = (-s, 0, c) */
        if (phi < margin) {
            int found = 0;
            for (int k = 0; k < cs.n; ++k) {
                if (cs.items[k].feature == i) {
                    found = 1;
                    CHECK_ABS(cs.items[k].phi0, phi, TOL_ROUND, "corner signed distance");
                    /* rigid ground: the contact point lies on the plane */
                    CHECK_ABS(cs.items[k].p.z, 0.0, TOL_ROUND, "contact point on the rigid plane");
                    const ccb_mat3* R = &cs.items[k].R_WC;
                    CHECK(R->m[2] == 0 && R->m[5] == 0 && R->m[8] == 1, "normal +z from A to B");
                    CHECK(R->m[0] == 1 && R->m[4] == 1, "t1 = x, t2 = y");
                    CHECK(cs.items[k].body_a == ig && cs.items[k].body_b == ib, "A = ground");
                    CHECK_ABS(cs.items[k].material.k, 2e6, 0, "rigid side: k of the box");
                    CHECK_ABS(cs.items[k].material.mu, 2 * 0.4 * 0.6 / 1.0, TOL_ROUND,
                              "mu = 2 muA muB/(muA + muB)");
                }
            }
            CHECK(found, "corner %d with phi %g < margin is reported", i, phi);
            expected++;
        }
    }
    CHECK(cs.n == expected && expected > 0 && expected < 8, "contacts within the margin: %d of %d",
          cs.n, expected);
    char msg[128];
    CHECK(ccb_geometry_query(m, 0, q, -1.0, &cs, msg, sizeof msg) == CCB_E_INVALID, "bad margin");
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
}

/* Sphere and capsule against a rigid half-space: phi = n.(p - o) - r, contact point on the plane.
 * */
static void test_sphere_capsule_query(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    g.pose = ccb_pose_translation(ccb_v3(0, 0, 0.013)); /* plane z = 0.013 */
    int ig, is, ir;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = 0.5;
    ccb_model_add_shape(m, ig, &hs, NULL);
    ccb_body_def sb = ccb_body_def_default();
    sb.name = "ball";
    sb.pose = ccb_pose_planar(0.2, 0.051, 0.4);
    ccb_model_add_body(m, &sb, &is);
    ccb_shape_def sph = ccb_shape_def_default();
    sph.type = CCB_SHAPE_SPHERE;
    sph.radius = 0.025;
    sph.material = (ccb_material){1e7, 500, 1e-3, 0.5, 0.0};
    CHECK(ccb_model_add_shape(m, is, &sph, NULL) == CCB_OK, "sphere: %s", ccb_model_last_error(m));
    ccb_body_def rb = ccb_body_def_default();
    rb.name = "rod";
    const double th = 0.5235987755982988, l = 0.25, rc = 0.005;
    rb.pose = ccb_pose_planar(-0.4, 0.013 + rc + l * sin(th) + 1e-4, th);
    ccb_model_add_body(m, &rb, &ir);
    ccb_shape_def cap = ccb_shape_def_default();
    cap.type = CCB_SHAPE_CAPSULE;
    cap.radius = rc;
    cap.half_length = l;
    cap.material = (ccb_material){1e7, 0, 0, 2.3, 0.0};
    CHECK(ccb_model_add_shape(m, ir, &cap, NULL) == CCB_OK, "capsule: %s", ccb_model_last_error(m));
    ccb_model_filter_pair(m, is, ir);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[6], v[6];
    ccb_model_initial_state(m, q, v);
    ccb_contact_set cs = {0};
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK, "query");
    /* sphere: one contact; capsule: only the lower end is within the margin */
    CHECK(cs.n == 2, "two contacts (got %d)", cs.n);
    for (int k = 0; k < cs.n; ++k) {
        const ccb_contact* c = &cs.items[k];
        CHECK_ABS(c->p.z, 0.013, TOL_ROUND, "contact point on the plane");
        if (c->body_b == is) {
            CHECK_ABS(c->phi0, 0.051 - 0.013 - 0.025, TOL_ROUND, "sphere phi = z - R");
            CHECK_ABS(c->p.x, 0.2, TOL_ROUND, "below the centre");
        } else {
            CHECK(c->body_b == ir && c->feature == 1, "capsule lower end is feature 1");
            CHECK_ABS(c->phi0, 1e-4, 1e-12, "capsule end phi = height - r");
            CHECK_ABS(c->p.x, -0.4 + l * cos(th), TOL_ROUND, "lower end at +x (R_y(theta))");
            CHECK_ABS(c->material.mu, 2 * 0.5 * 2.3 / 2.8, TOL_ROUND, "combined mu");
        }
    }
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
    /* invalid radii */
    ccb_model_create(&m);
    ccb_model_add_body(m, &sb, &is);
    sph.radius = 0;
    CHECK(ccb_model_add_shape(m, is, &sph, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "radius"),
          "sphere radius 0 rejected: %s", ccb_model_last_error(m));
    cap.half_length = -1;
    CHECK(ccb_model_add_shape(m, is, &cap, NULL) == CCB_E_INVALID, "negative half length");
    ccb_model_destroy(m);
}

/* The pair check of ccb_model_finalize works on classes of shapes; against the check of every
 * shape pair (here, written out) it accepts the same models and names the same first pair. */
static int brute_first_bad_pair(const ccb_model* m, int* fi, int* fj) {
    for (int i = 0; i < m->nshapes; ++i) {
        for (int j = i + 1; j < m->nshapes; ++j) {
            const ccb_shape *si = &m->shapes[i], *sj = &m->shapes[j];
            const int bi = si->body, bj = sj->body;
            /* before finalize: moving = planar (nothing locked here), filters as added */
            const int moving_i = m->bodies[bi].def.mobilizer == CCB_MOBILIZER_PLANAR,
                      moving_j = m->bodies[bj].def.mobilizer == CCB_MOBILIZER_PLANAR;
            int filt = 0;
            for (int f = 0; f < m->nfilters; ++f) {
                const int* fp = m->filters + 2 * f;
                filt |= (fp[0] == bi && fp[1] == bj) || (fp[0] == bj && fp[1] == bi);
            }
            if (bi == bj || (!moving_i && !moving_j) || filt) {
                continue;
            }
            int a, b;
            const ccb_pair_kind kind = ccb_shape_pair_kind(m, i, j, &a, &b);
            const int rigid = isinf(si->def.material.k) && isinf(sj->def.material.k);
            if (kind != CCB_PAIR_NONE && !rigid) {
                continue;
            }
            *fi = i;
            *fj = j;
            return 1;
        }
    }
    return 0;
}

static void test_pair_check_classes(void) {
    const ccb_shape_type types[4] = {CCB_SHAPE_HALFSPACE, CCB_SHAPE_BOX, CCB_SHAPE_SPHERE,
                                     CCB_SHAPE_CAPSULE};
    int bad = 0, good = 0;
    for (int trial = 0; trial < 400; ++trial) {
        ccb_model* m = NULL;
        ccb_model_create(&m);
        const int nb = 2 + trial % 5;
        for (int k = 0; k < nb; ++k) {
            ccb_body_def d = ccb_body_def_default();
            char name[16];
            snprintf(name, sizeof name, "b%d", k);
            d.name = name;
            if (urand() < 0.4) {
                d.mobilizer = CCB_MOBILIZER_FIXED;
            }
            ccb_model_add_body(m, &d, NULL);
        }
        const int ns = 2 + (int)(urand() * 10);
        for (int k = 0; k < ns; ++k) {
            ccb_shape_def s = ccb_shape_def_default();
            s.type = types[(int)(urand() * 4) % 4];
            s.half_extents = ccb_v3(0.1, 0.1, 0.1);
            s.radius = 0.05;
            s.half_length = 0.1;
            s.material.k = urand() < 0.3 ? INFINITY : 1e6;
            ccb_model_add_shape(m, (int)(urand() * nb) % nb, &s, NULL);
        }
        for (int k = 0; k < 2; ++k) {
            if (urand() < 0.5) {
                ccb_model_filter_pair(m, (int)(urand() * nb) % nb, (int)(urand() * nb) % nb);
            }
        }
        /* the expected verdict, from the model before finalize (shapes and filters are set) */
        int fi = -1, fj = -1;
        const int expect_bad = brute_first_bad_pair(m, &fi, &fj);
        const ccb_status st = ccb_model_finalize(m);
        if (expect_bad) {
            bad++;
            const char* e = ccb_model_last_error(m);
            CHECK(st == CCB_E_INVALID && strstr(e, m->shapes[fi].name) &&
                      strstr(e, m->shapes[fj].name),
                  "trial %d: first bad pair %s/%s expected, got: %s", trial, m->shapes[fi].name,
                  m->shapes[fj].name, st == CCB_OK ? "(accepted)" : e);
        } else {
            good++;
            CHECK(st == CCB_OK, "trial %d: accepted by the pairwise check, rejected: %s", trial,
                  ccb_model_last_error(m));
        }
        ccb_model_destroy(m);
    }
    CHECK(bad > 50 && good > 50, "both verdicts exercised (%d rejected, %d accepted)", bad, good);
}

static void test_model_validation(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "box";
    d.mass = -1.5;
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "'box'") && strstr(ccb_model_last_error(m), "mass"),
          "negative mass: %s", ccb_model_last_error(m));
    d.mass = 1;
    d.inertia.m[4] = NAN;
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "NaN inertia: %s",
          ccb_model_last_error(m));
    d = ccb_body_def_default();
    d.name = "box";
    d.locked = CCB_LOCK_THETA;
    d.twist = ccb_twist_planar(0, 0, 1.0);
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "theta"),
          "locked coordinate with velocity: %s", ccb_model_last_error(m));
    d.twist = ccb_twist_planar(0, 0, 0);
    d.name = "bad name!";
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "invalid name");
    d.name = "box";
    int a, b;
    CHECK(ccb_model_add_body(m, &d, &a) == CCB_OK, "valid body");
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "duplicate name");
    d.name = "box2";
    ccb_model_add_body(m, &d, &b);
    ccb_body_def pr = ccb_body_def_default();
    pr.name = "belt";
    pr.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    CHECK(ccb_model_add_body(m, &pr, NULL) == CCB_E_INVALID, "prescribed without motion");
    ccb_shape_def s = ccb_shape_def_default();
    s.type = CCB_SHAPE_BOX;
    s.half_extents = ccb_v3(0.1, 0.1, 0.1);
    s.material.k = 1e6;
    s.material.mu = -0.1;
    CHECK(ccb_model_add_shape(m, a, &s, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "mu"),
          "negative mu: %s", ccb_model_last_error(m));
    s.material.mu = 0.5;
    s.half_extents.y = 0;
    CHECK(ccb_model_add_shape(m, a, &s, NULL) == CCB_E_INVALID, "zero box extent");
    s.half_extents.y = 0.1;
    CHECK(ccb_model_add_shape(m, 7, &s, NULL) == CCB_E_INVALID, "bad body index");
    ccb_model_add_shape(m, a, &s, NULL);
    ccb_model_add_shape(m, b, &s, NULL);
    CHECK(ccb_model_finalize(m) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "no contact query"),
          "box vs box without a query: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
    /* filtered pair finalizes; two rigid shapes do not */
    ccb_model_create(&m);
    d.name = "p";
    ccb_model_add_body(m, &d, &a);
    d.name = "q";
    ccb_model_add_body(m, &d, &b);
    ccb_model_add_shape(m, a, &s, NULL);
    ccb_model_add_shape(m, b, &s, NULL);
    ccb_model_filter_pair(m, b, a);
    CHECK(ccb_model_finalize(m) == CCB_OK, "filtered pair: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
    ccb_model_create(&m);
    d.name = "p";
    ccb_model_add_body(m, &d, &a);
    ccb_shape_def h = ccb_shape_def_default();
    ccb_model_add_shape(m, a, &h, NULL);
    d.name = "g";
    d.mobilizer = CCB_MOBILIZER_FIXED;
    ccb_model_add_body(m, &d, &b);
    s.material.k = INFINITY;
    ccb_model_add_shape(m, b, &s, NULL);
    CHECK(ccb_model_finalize(m) == CCB_E_INVALID && strstr(ccb_model_last_error(m), "rigid"),
          "two rigid shapes: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
}

static ccb_mat3 random_rot(void) {
    double R[9];
    random_rotation(R);
    ccb_mat3 M;
    memcpy(M.m, R, sizeof R);
    return M;
}

static void test_free_body_kinematics(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "b";
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.mass = 1.7;
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = 0.02, d.inertia.m[4] = 0.03, d.inertia.m[8] = 0.045;
    d.inertia.m[1] = d.inertia.m[3] = 0.004;
    d.pose.R = random_rot();
    d.pose.p = ccb_v3(0.1, -0.2, 0.3);
    d.twist.w = ccb_v3(1, -2, 0.5);
    d.twist.v = ccb_v3(0.3, 0.1, -0.4);
    int ib;
    CHECK(ccb_model_add_body(m, &d, &ib) == CCB_OK, "add: %s", ccb_model_last_error(m));
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
    CHECK(ccb_model_nq(m) == 7 && ccb_model_nv(m) == 6, "nq 7, nv 6");
    CHECK(strcmp(ccb_model_q_name(m, 3), "b.qw") == 0 &&
              strcmp(ccb_model_v_name(m, 0), "b.wx") == 0,
          "coordinate names");
    double q[7], v[6];
    ccb_model_initial_state(m, q, v);
    const ccb_body* b = &m->bodies[ib];
    ccb_pose X;
    ccb_body_pose(b, 0, q, &X);
    for (int i = 0; i < 9; ++i) {
        CHECK_ABS(X.R.m[i], d.pose.R.m[i], TOL_ROUND, "quaternion round trip of the initial pose");
    }
    for (int trial = 0; trial < 50; ++trial) {
        ccb_mat3 R = random_rot();
        double qq[7] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        ccb_quat_from_m3(&R, qq + 3);
        double vv[6];
        for (int k = 0; k < 6; ++k) {
            vv[k] = uniform(-2, 2);
        }
        /* point Jacobian against the derivative of the point position along qdot = N(q) v */
        const ccb_vec3 pB = ccb_v3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), uniform(-0.3, 0.3));
        ccb_body_pose(b, 0, qq, &X);
        const ccb_vec3 pW = ccb_v3_add(X.p, ccb_m3_mul_v(&X.R, pB));
        double Jp[18], qd[7];
        ccb_body_point_jacobian(b, qq, pW, Jp);
        ccb_body_qdot(b, qq, vv, qd);
        const double h = 1e-6;
        double qp[7], qm[7];
        for (int k = 0; k < 7; ++k) {
            qp[k] = qq[k] + h * qd[k];
            qm[k] = qq[k] - h * qd[k];
        }
        ccb_pose Xp, Xm;
        ccb_body_pose(b, 0, qp, &Xp);
        ccb_body_pose(b, 0, qm, &Xm);
        const ccb_vec3 a = ccb_v3_add(Xp.p, ccb_m3_mul_v(&Xp.R, pB));
        const ccb_vec3 c = ccb_v3_add(Xm.p, ccb_m3_mul_v(&Xm.R, pB));
        const double fd[3] = {(a.x - c.x) / (2 * h), (a.y - c.y) / (2 * h), (a.z - c.z) / (2 * h)};
        for (int r = 0; r < 3; ++r) {
            double jv = 0;
            for (int k = 0; k < 6; ++k) {
                jv += Jp[6 * r + k] * vv[k];
            }
            /* [central FD along qdot, h = 1e-6: error ~h^2 |v|^3 + eps/h ~ 1e-9] */
            CHECK_ABS(jv, fd[r], 1e-7, "free point Jacobian = d/dt of the point position");
        }
        /* mass matrix diag(R I R^T, m I) */
        double M[36];
        ccb_body_mass_matrix(b, qq, M);
        const ccb_mat3 RT = ccb_m3_transpose(&X.R);
        const ccb_mat3 t1 = ccb_m3_mul(&X.R, &d.inertia);
        const ccb_mat3 IW = ccb_m3_mul(&t1, &RT);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                CHECK_ABS(M[6 * i + j], IW.m[3 * i + j], TOL_ROUND, "rotational block R I R^T");
                CHECK_ABS(M[6 * (i + 3) + j + 3], i == j ? d.mass : 0.0, TOL_ROUND, "m I");
                CHECK_ABS(M[6 * i + j + 3], 0.0, 0.0, "no coupling about the COM");
            }
        }
        /* a step keeps the quaternion unit */
        double qn[7];
        ccb_body_integrate(b, qq, vv, 0.05, qn);
        const double nq = sqrt(qn[3] * qn[3] + qn[4] * qn[4] + qn[5] * qn[5] + qn[6] * qn[6]);
        CHECK_ABS(nq, 1.0, 4e-16, "renormalized quaternion [round-off: one ulp]");
    }
    /* invalid free bodies */
    ccb_body_def bad = d;
    bad.name = "bad1";
    bad.inertia.m[0] = -1;
    CHECK(ccb_model_add_body(m, &bad, NULL) != CCB_OK, "indefinite inertia rejected");
    ccb_model_destroy(m);
    ccb_model_create(&m);
    bad = d;
    bad.name = "bad2";
    bad.pose.R.m[0] = 2.0;
    CHECK(ccb_model_add_body(m, &bad, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "rotation") != NULL,
          "non-rotation rejected: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
}

/* Torque-free tumbling (no gravity, no contact): linear momentum is exact; the explicit
 * gyroscopic term makes angular momentum drift at first order in dt. */
static double tumble_drift(double dt) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
    ccb_body_def d = ccb_body_def_default();
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.name = "top";
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = 1.0, d.inertia.m[4] = 2.0, d.inertia.m[8] = 3.0;
    d.twist.w = ccb_v3(0.3, 1.0, 0.2);
    d.twist.v = ccb_v3(0.5, 0, 0);
    ccb_model_add_body(m, &d, NULL);
    ccb_model_finalize(m);
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    ccb_sim* sim = NULL;
    ccb_sim_create(m, &p, &sim, NULL, 0);
    const long n = lround(1.0 / dt);
    for (long k = 0; k < n; ++k) {
        ccb_sim_step(sim);
    }
    const double* v = ccb_sim_v(sim);
    const double* q = ccb_sim_q(sim);
    CHECK_ABS(v[3], 0.5, 0.0, "linear momentum exact [exact: no force]");
    CHECK_ABS(q[0], 0.5, 1e-12, "x = v t [round-off of n additions]");
    ccb_pose X;
    ccb_model_body_pose(m, 0, 0, q, &X);
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_vec3 wB = ccb_m3_tmul_v(&X.R, ccb_v3(v[0], v[1], v[2]));
    const ccb_vec3 LB = ccb_m3_mul_v(&d.inertia, wB);
    (void)RT;
    const ccb_vec3 L = ccb_m3_mul_v(&X.R, LB);
    const ccb_vec3 L0 = ccb_v3(0.3, 2.0, 0.6);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return ccb_v3_norm(ccb_v3_sub(L, L0)) / ccb_v3_norm(L0);
}

static void test_free_body_tumbling(void) {
    const double e1 = tumble_drift(1e-3), e2 = tumble_drift(5e-4);
    /* [first-order explicit gyroscopic term: the drift halves with dt (ratio 2 +- 10 %)] */
    CHECK_ABS(e1 / e2, 2.0, 0.2, "angular momentum drift is first order in dt");
    CHECK(e1 < 1e-2, "drift after 1 s at dt = 1e-3: %g", e1);
}

/* Sphere-sphere and box-sphere queries against closed forms. */
static void test_sphere_box_queries(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def wall = ccb_body_def_default();
    wall.name = "wall";
    wall.mobilizer = CCB_MOBILIZER_FIXED;
    wall.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    wall.pose.R = ccb_m3_axis_angle(ccb_v3(0, 0, 1), 0.3);
    int iw, i1, i2;
    ccb_model_add_body(m, &wall, &iw);
    ccb_shape_def box = ccb_shape_def_default();
    box.type = CCB_SHAPE_BOX;
    box.half_extents = ccb_v3(0.1, 0.2, 0.3);
    ccb_model_add_shape(m, iw, &box, NULL);
    ccb_body_def ball = ccb_body_def_default();
    ball.mobilizer = CCB_MOBILIZER_FREE;
    ball.name = "b1";
    ccb_model_add_body(m, &ball, &i1);
    ball.name = "b2";
    ccb_model_add_body(m, &ball, &i2);
    ccb_shape_def sph = ccb_shape_def_default();
    sph.type = CCB_SHAPE_SPHERE;
    sph.radius = 0.05;
    sph.material = (ccb_material){1e6, 0, 0, 0.5, 0.0};
    ccb_model_add_shape(m, i1, &sph, NULL);
    sph.radius = 0.02;
    sph.material.k = 3e6;
    ccb_model_add_shape(m, i2, &sph, NULL);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[14], v[12];
    ccb_model_initial_state(m, q, v);
    const ccb_mat3 R = wall.pose.R;
    /* b1 outside the +x face of the box, 3 cm away; b2 far away, 4 cm from b1 (surface) */
    const ccb_vec3 c1 = ccb_m3_mul_v(&R, ccb_v3(0.1 + 0.05 + 0.03, 0.05, -0.1));
    const ccb_vec3 c2 = ccb_v3_add(c1, ccb_v3(0, 0, 0.05 + 0.02 + 0.04));
    q[0] = c1.x, q[1] = c1.y, q[2] = c1.z;
    q[7] = c2.x, q[8] = c2.y, q[9] = c2.z;
    ccb_contact_set cs = {0};
    CHECK(ccb_geometry_query(m, 0, q, 0.05, &cs, NULL, 0) == CCB_OK && cs.n == 2,
          "two contacts (%d)", cs.n);
    for (int i = 0; i < cs.n; ++i) {
        const ccb_contact* c = &cs.items[i];
        const ccb_vec3 n = ccb_m3_col(&c->R_WC, 2);
        if (c->body_a == iw) { /* box face */
            CHECK_ABS(c->phi0, 0.03, TOL_ROUND, "box-sphere distance");
            const ccb_vec3 nx = ccb_m3_col(&R, 0);
            CHECK_ABS(ccb_v3_dot(n, nx), 1.0, TOL_ROUND, "normal = face normal, box to sphere");
            CHECK(c->body_b == i1, "sphere is B");
            /* rigid box: the contact point is on the box face */
            const ccb_vec3 pl = ccb_m3_tmul_v(&R, c->p);
            CHECK_ABS(pl.x, 0.1, TOL_ROUND, "contact point on the rigid face");
        } else {
            CHECK(c->body_a == i1 && c->body_b == i2, "sphere pair, lower shape index is A");
            CHECK_ABS(c->phi0, 0.04, TOL_ROUND, "sphere-sphere distance");
            CHECK_ABS(n.z, 1.0, TOL_ROUND, "normal from A to B");
            /* weights kA/(kA + kB) = 1/4: C = p_B + (p_A - p_B)/4 */
            CHECK_ABS(c->p.z, c2.z - 0.02 - 0.25 * 0.04, TOL_ROUND, "stiffness-weighted point");
        }
    }
    /* sphere centre inside the box, nearest face -y; and outside near an edge */
    const ccb_vec3 in = ccb_m3_mul_v(&R, ccb_v3(0.02, -0.18, 0.1));
    q[0] = in.x, q[1] = in.y, q[2] = in.z;
    q[9] = 10;
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK && cs.n == 1, "one contact");
    CHECK_ABS(cs.items[0].phi0, -(0.2 - 0.18) - 0.05, TOL_ROUND, "inside: depth to the -y face");
    CHECK_ABS(ccb_v3_dot(ccb_m3_col(&cs.items[0].R_WC, 2), ccb_m3_col(&R, 1)), -1.0, TOL_ROUND,
              "inside: normal out of the -y face");
    const ccb_vec3 edge = ccb_m3_mul_v(&R, ccb_v3(0.1 + 0.03, 0.2 + 0.04, 0.0));
    q[0] = edge.x, q[1] = edge.y, q[2] = edge.z;
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK && cs.n == 1, "edge");
    CHECK_ABS(cs.items[0].phi0, 0.05 - 0.05, TOL_ROUND, "edge distance 5 cm minus the radius");
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
}

/* The lazy cut of test_requery: margin x w_a x w_b, nothing left out where a weight is above 0.9
 * (a pair whose test failed). */
typedef struct {
    const double* w;
    double margin;
} requery_cut;
static double requery_cut_fn(void* ctx, const ccb_contact_pair* pr) {
    const requery_cut* c = ctx;
    const double wa = c->w[pr->body_a], wb = c->w[pr->body_b];
    return wa > 0.9 || wb > 0.9 ? INFINITY : c->margin * wa * wb;
}

/* Two contact sets bit for bit (field by field: the structs have padding). */
static int same_sets(const ccb_contact_set* a, const ccb_contact_set* b) {
    int same = a->n == b->n && a->npairs == b->npairs;
    for (int i = 0; same && i < a->n; ++i) {
        const ccb_contact *x = &a->items[i], *y = &b->items[i];
        same = x->body_a == y->body_a && x->body_b == y->body_b && x->shape_a == y->shape_a &&
               x->shape_b == y->shape_b && x->feature == y->feature &&
               memcmp(&x->phi0, &y->phi0, sizeof x->phi0) == 0 &&
               memcmp(&x->p, &y->p, sizeof x->p) == 0 &&
               memcmp(&x->R_WC, &y->R_WC, sizeof x->R_WC) == 0 &&
               memcmp(&x->material, &y->material, sizeof x->material) == 0;
    }
    for (int i = 0; same && i < a->npairs; ++i) {
        const ccb_contact_pair *x = &a->pairs[i], *y = &b->pairs[i];
        same = x->body_a == y->body_a && x->body_b == y->body_b &&
               x->shape_pairs == y->shape_pairs &&
               memcmp(&x->phi_lb, &y->phi_lb, sizeof x->phi_lb) == 0 &&
               memcmp(&x->reach_a, &y->reach_a, sizeof x->reach_a) == 0 &&
               memcmp(&x->reach_b, &y->reach_b, sizeof x->reach_b) == 0 &&
               memcmp(&x->material, &y->material, sizeof x->material) == 0;
    }
    return same;
}

/* The lazy query made again for some bodies (ccb_geo_requery_lazy, formulation-convex §8.11) is
 * bit for bit the whole query with the new cut: after a lazy query with per-body weights, three
 * rounds each change the weights of a few random bodies (the ground of the box and the
 * half-space, a long body, neighbours flagged together) and make the query again; each round is
 * compared with a whole lazy query with the same weights. Returns the lazy pairs seen. */
static long test_requery(ccb_model* m, const double* q, double margin, int trial) {
    const int nb = ccb_model_nbodies(m);
    double* w = malloc((size_t)nb * sizeof(double));
    unsigned char* chg = calloc((size_t)nb, 1);
    for (int b = 0; b < nb; ++b) {
        w[b] = uniform(0.2, 0.85);
    }
    requery_cut c = {w, margin};
    ccb_contact_set inc = {0}, whole = {0};
    char msg[256];
    CHECK(ccb_geometry_query_lazy(m, 0, q, margin, requery_cut_fn, &c, &inc, msg, sizeof msg) ==
              CCB_OK,
          "lazy query: %s", msg);
    long pairs = inc.npairs;
    int same = 1;
    for (int round = 0; round < 3; ++round) {
        for (int b = 0; b < nb; ++b) { /* about one body in eight, the ground every other trial */
            chg[b] = (unsigned char)(urand() < 0.125 || (b == 0 && (trial + round) % 2 == 0));
            if (chg[b]) {
                w[b] = urand() < 0.3 ? 1.0 : uniform(0.2, 0.85);
            }
        }
        const ccb_status s =
            ccb_geo_requery_lazy(m, margin, requery_cut_fn, &c, chg, &inc, msg, sizeof msg);
        CHECK(s == CCB_OK, "requery: %s", msg);
        CHECK(ccb_geometry_query_lazy(m, 0, q, margin, requery_cut_fn, &c, &whole, msg,
                                      sizeof msg) == CCB_OK,
              "whole query: %s", msg);
        same = same && s == CCB_OK && same_sets(&inc, &whole);
        pairs += whole.npairs;
    }
    CHECK(same, "trial %d: the requery's contacts and lazy pairs are the whole query's [exact]",
          trial);
    /* a set without a lazy query behind it is refused */
    CHECK(ccb_geometry_query(m, 0, q, margin, &whole, NULL, 0) == CCB_OK &&
              ccb_geo_requery_lazy(m, margin, requery_cut_fn, &c, chg, &whole, msg, sizeof msg) ==
                  CCB_E_INVALID,
          "requery after a query without lazy pairs: CCB_E_INVALID");
    ccb_contact_set_free(&inc);
    ccb_contact_set_free(&whole);
    free(chg);
    free(w);
    return pairs;
}

/* The broad phase finds exactly the pairs an all-pairs test finds: random clouds of free
 * bodies carrying 1-3 spheres each (small groups), two long bodies of 12 spheres (large
 * groups), a fixed box (a large shape) and a floor half-space. */
static void test_broad_phase_complete(void) {
    long lazy_pairs = 0;
    for (int trial = 0; trial < 20; ++trial) {
        ccb_model* m = floor_model(0.0);
        const int ig = 0; /* the ground: the first body of floor_model */
        ccb_shape_def bx = ccb_shape_def_default();
        bx.type = CCB_SHAPE_BOX;
        bx.half_extents = ccb_v3(0.05, 0.5, 0.3);
        bx.pose = ccb_pose_translation(ccb_v3(0.45, 0, 0.3));
        ccb_model_add_shape(m, ig, &bx, NULL);
        const int nb = 30 + trial * 5;
        ccb_vec3 centre[512];
        double rad[512];
        int body_of[512], ns = 0;
        for (int i = 0; i < nb; ++i) {
            ccb_body_def d = ccb_body_def_default();
            d.mobilizer = CCB_MOBILIZER_FREE;
            char name[16];
            snprintf(name, sizeof name, "o%d", i);
            d.name = name;
            d.pose.p = ccb_v3(uniform(-0.4, 0.4), uniform(-0.4, 0.4), uniform(0, 0.6));
            d.pose.R = random_rot();
            int ib;
            ccb_model_add_body(m, &d, &ib);
            const int k = 1 + (int)(urand() * 3);
            for (int s = 0; s < k; ++s) {
                ccb_shape_def sp = ccb_shape_def_default();
                sp.type = CCB_SHAPE_SPHERE;
                sp.radius = uniform(0.01, 0.05);
                sp.pose = ccb_pose_translation(
                    ccb_v3(uniform(-0.05, 0.05), uniform(-0.05, 0.05), uniform(-0.05, 0.05)));
                sp.material.k = 1e6;
                ccb_model_add_shape(m, ib, &sp, NULL);
                centre[ns] = ccb_v3_add(d.pose.p, ccb_m3_mul_v(&d.pose.R, sp.pose.p));
                rad[ns] = sp.radius;
                body_of[ns++] = ib;
            }
        }
        /* two long bodies of 12 spheres across the cloud, crossing: large groups (radius > 4 x
         * the median) against each other and the rest */
        for (int r = 0; r < 2; ++r) {
            ccb_body_def d = ccb_body_def_default();
            d.mobilizer = CCB_MOBILIZER_FREE;
            d.name = r ? "rod1" : "rod0";
            d.pose.p = ccb_v3(uniform(-0.05, 0.05), uniform(-0.05, 0.05), 0.3 + 0.07 * r);
            d.pose.R = random_rot();
            int ir;
            ccb_model_add_body(m, &d, &ir);
            for (int s = 0; s < 12; ++s) {
                ccb_shape_def sp = ccb_shape_def_default();
                sp.type = CCB_SHAPE_SPHERE;
                sp.radius = 0.03;
                sp.pose = ccb_pose_translation(ccb_v3(-0.44 + 0.08 * s, 0, 0));
                sp.material.k = 1e6;
                ccb_model_add_shape(m, ir, &sp, NULL);
                centre[ns] = ccb_v3_add(d.pose.p, ccb_m3_mul_v(&d.pose.R, sp.pose.p));
                rad[ns] = sp.radius;
                body_of[ns++] = ir;
            }
        }
        CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
        double* q = calloc((size_t)ccb_model_nq(m), sizeof(double));
        double* v = calloc((size_t)ccb_model_nv(m), sizeof(double));
        ccb_model_initial_state(m, q, v);
        const double margin = uniform(0.0, 0.1);
        ccb_contact_set cs = {0};
        CHECK(ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK, "query");
        /* all-pairs count: sphere-sphere, sphere-floor, sphere-box */
        int expected = 0;
        for (int i = 0; i < ns; ++i) {
            expected += centre[i].z - rad[i] < margin;
            const ccb_vec3 cl = ccb_v3_sub(centre[i], ccb_v3(0.45, 0, 0.3));
            const double h[3] = {0.05, 0.5, 0.3}, c[3] = {cl.x, cl.y, cl.z};
            double d2 = 0, in = 1;
            for (int a = 0; a < 3; ++a) {
                const double e = fabs(c[a]) - h[a];
                d2 += e > 0 ? e * e : 0;
                in = in && e <= 0;
            }
            expected += in || sqrt(d2) - rad[i] < margin;
            for (int j = i + 1; j < ns; ++j) {
                if (body_of[i] != body_of[j]) {
                    expected +=
                        ccb_v3_norm(ccb_v3_sub(centre[i], centre[j])) - rad[i] - rad[j] < margin;
                }
            }
        }
        CHECK(cs.n == expected, "trial %d: broad phase found %d contacts, all pairs %d", trial,
              cs.n, expected);
        /* a second query (re-sorted order) gives the same contacts in the same order */
        ccb_contact* first = malloc((size_t)cs.n * sizeof(ccb_contact));
        memcpy(first, cs.items, (size_t)cs.n * sizeof(ccb_contact));
        const int n1 = cs.n;
        int same = ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK && cs.n == n1;
        for (int i = 0; same && i < n1; ++i) { /* field by field: the struct has padding */
            const ccb_contact *x = &first[i], *y = &cs.items[i];
            same = x->shape_a == y->shape_a && x->shape_b == y->shape_b &&
                   x->feature == y->feature && x->phi0 == y->phi0 &&
                   memcmp(&x->p, &y->p, sizeof x->p) == 0 &&
                   memcmp(&x->R_WC, &y->R_WC, sizeof x->R_WC) == 0;
        }
        CHECK(same, "repeat query bit-identical [exact]");
        int framed = 1; /* every frame is ccb_contact_frame of its normal (third column) */
        for (int i = 0; framed && i < cs.n; ++i) {
            const ccb_mat3 R = cs.items[i].R_WC;
            const ccb_mat3 F = ccb_contact_frame(ccb_v3(R.m[2], R.m[5], R.m[8]));
            framed =
                memcmp(&R, &F, sizeof R) == 0 && fabs(ccb_v3_norm(ccb_m3_col(&R, 2)) - 1) < 1e-15;
        }
        CHECK(framed, "trial %d: every contact's frame is the frame of its unit normal [exact]",
              trial);
        lazy_pairs += test_requery(m, q, margin, trial);
        free(first);
        free(q);
        free(v);
        ccb_contact_set_free(&cs);
        ccb_model_destroy(m);
    }
    CHECK(lazy_pairs > 1000, "requery: %ld lazy pairs compared", lazy_pairs);
    printf("requery: %ld lazy pairs compared over 20 trials\n", lazy_pairs);
}

/* Anisotropic friction on a half-space (formulation-convex §18.1): the contact frame's t1 is the
 * half-space's x axis (its grain), the pair rule per axis, the refusals, and a step: the ball
 * sliding at 45 degrees to the grain is braked along -M^2 v (ICF eq. 31), not along -v. */
static void test_anisotropic_halfspace(void) {
    const double psi = 0.6; /* the grain at 0.6 rad from world x */
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    int ig = -1;
    model_ok(m, ccb_model_add_body(m, &g, &ig));
    ccb_shape_def hs = ccb_shape_def_default();
    hs.pose.R = ccb_m3_axis_angle(ccb_v3(0, 0, 1), psi);
    hs.material.mu = 0.3;
    hs.material.mu2 = 0.9;
    model_ok(m, ccb_model_add_shape(m, ig, &hs, NULL));
    /* the refusals: a grain on another shape, on a hydroelastic half-space, without mu, NaN */
    ccb_shape_def bad = ccb_shape_def_default();
    bad.type = CCB_SHAPE_SPHERE;
    bad.radius = 0.1;
    bad.material = (ccb_material){1e6, 0, 0, 0.5, 0.7};
    CHECK(ccb_model_add_shape(m, ig, &bad, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "half-space"),
          "mu2 on a sphere: %s", ccb_model_last_error(m));
    bad = hs;
    bad.hydro_slab = 0.01;
    bad.material.k = 1e6;
    CHECK(ccb_model_add_shape(m, ig, &bad, NULL) == CCB_E_INVALID, "mu2 on a compliant slab: %s",
          ccb_model_last_error(m));
    bad = hs;
    bad.material.mu = 0.0;
    CHECK(ccb_model_add_shape(m, ig, &bad, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "mu > 0"),
          "mu2 without mu: %s", ccb_model_last_error(m));
    bad.material.mu = 0.3;
    bad.material.mu2 = NAN;
    CHECK(ccb_model_add_shape(m, ig, &bad, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "mu2"),
          "NaN mu2: %s", ccb_model_last_error(m));
    bad.material.mu2 = -0.1;
    CHECK(ccb_model_add_shape(m, ig, &bad, NULL) == CCB_E_INVALID, "negative mu2: %s",
          ccb_model_last_error(m));
    const double v0 = 1.0;
    add_ball(m, "ball", 0.05 - 0.5 * 9.81 / 1e6,
             ccb_v3(v0 * cos(psi + 0.785), v0 * sin(psi + 0.785), 0),
             (ccb_material){1e6, 0, 0, 0.5, 0.0});
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[7], v[6];
    ccb_model_initial_state(m, q, v);
    ccb_contact_set cs = {0};
    CHECK(ccb_geometry_query(m, 0, q, 0.01, &cs, NULL, 0) == CCB_OK && cs.n == 1, "one contact");
    if (cs.n == 1) {
        const ccb_mat3* R = &cs.items[0].R_WC;
        const double t1[3] = {cos(psi), sin(psi), 0}, t2[3] = {-sin(psi), cos(psi), 0};
        for (int r = 0; r < 3; ++r) {
            /* [the half-space's own rotation matrix, one rounding] */
            CHECK_ABS(R->m[3 * r], t1[r], 1e-15, "t1 is the grain");
            CHECK_ABS(R->m[3 * r + 1], t2[r], 1e-15, "t2 across the grain");
            CHECK_ABS(R->m[3 * r + 2], r == 2, 1e-15, "n is the half-space's z");
        }
        CHECK_REL(cs.items[0].material.mu, 2 * 0.3 * 0.5 / 0.8, 1e-15, 0, "mu: pair rule on t1");
        CHECK_REL(cs.items[0].material.mu2, 2 * 0.9 * 0.5 / 1.4, 1e-15, 0, "mu2: pair rule on t2");
    }
    ccb_contact_set_free(&cs);
    /* one step of each solver family: the velocity change is along -M^2 v_t (the ball's spin
     * is free, so compare the contact impulse, gamma_t on the ball) */
    for (int solver = 0; solver < 3; ++solver) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = 1e-3;
        p.approx = &ccb_approx_lagged;
        p.solver = solver == 0 ? CCB_SOLVER_NEWTON : CCB_SOLVER_TAMSI;
        if (solver == 2) {
            p.approx = &ccb_approx_sap;
        }
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        CHECK(ccb_sim_step(sim) == CCB_OK && ccb_sim_step(sim) == CCB_OK, "steps: %s",
              ccb_sim_last_error(sim));
        const ccb_contact_result* r = ccb_sim_contact(sim, 0);
        CHECK(ccb_sim_ncontacts(sim) == 1, "one contact result");
        if (ccb_sim_ncontacts(sim) == 1) {
            const double mu = 2 * 0.3 * 0.5 / 0.8, mu2 = 2 * 0.9 * 0.5 / 1.4;
            const double w[2] = {mu * mu * r->vc[0], mu2 * mu2 * r->vc[1]};
            const double gt = hypot(r->gamma[0], r->gamma[1]), wn = hypot(w[0], w[1]);
            CHECK(gt > 0 && wn > 0, "sliding");
            CHECK_ABS(-(r->gamma[0] * w[0] + r->gamma[1] * w[1]) / (gt * wn), 1.0, 1e-9,
                      "gamma_t along -M^2 v_t in a step (the slip 0.7 m/s is 7000 v_s: the "
                      "regularization bends it by < 1e-9)");
            /* and not along -v_t: the angle between them is tens of degrees */
            const double cv = -(r->gamma[0] * r->vc[0] + r->gamma[1] * r->vc[1]) /
                              (gt * hypot(r->vc[0], r->vc[1]));
            CHECK(cv < 0.95, "friction not antiparallel to the slip (cos = %g)", cv);
        }
        if (solver == 0) {
            ccb_global_problem gp;
            CHECK(ccb_problem_to_global(ccb_sim_problem(sim), &gp) == CCB_E_INVALID,
                  "no FCLIB form of an anisotropic contact");
            ccb_global_problem_free(&gp);
        }
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_planar_jacobian);
    RUN(test_box_halfspace_query);
    RUN(test_sphere_capsule_query);
    RUN(test_pair_check_classes);
    RUN(test_model_validation);
    RUN(test_free_body_kinematics);
    RUN(test_free_body_tumbling);
    RUN(test_sphere_box_queries);
    RUN(test_broad_phase_complete);
    RUN(test_anisotropic_halfspace);
    return TEST_SUMMARY();
}
