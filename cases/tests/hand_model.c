/* unit.hand_model: the hand case's model (cases/hand.c) against the model file it transcribes,
 * allegro_hand_description_right.sdf of RobotLocomotion/models, by an independent computation.
 *
 * 1. At q = 0 every link's body frame is the file's link pose (x y z roll pitch yaw in the model
 *    frame, R = Rz(yaw) Ry(pitch) Rx(roll)), moved to the COM for link_15 (the only link whose
 *    inertial frame is offset, 0.012781 m along its z).
 * 2. A joint angle theta moves its link and every link after it in the finger by the rotation
 *    of theta about the file's axis (model frame) through the joint's origin (the child link's
 *    origin, where the file puts the joint), with the right-hand sense (Drake's and the file's).
 * The poses are read through ccb_model_body_pose, so the builder's X_PF, X_BM, axis and parent
 * chain are what is checked; the expected poses are computed here from the file's numbers
 * alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "ccb/ccb.h"
#include "registry.h"
#include "test.h"

/* a composition of rotations and translations of a few tens of doubles: round-off ~1e-16 m */
#define POSE_TOL 1e-13

/* The file's link poses and joint axes, in ccb's order (index 0-3, middle 4-7, ring 8-11,
 * thumb 12-15). */
static const double k_pose[16][6] = {
    {0, 0.0435, 0.093458, -0.087267, 0, 0},
    {0, 0.044929, 0.109796, -0.087267, 0, 0},
    {0, 0.049636, 0.16359, -0.087267, 0, 0},
    {0, 0.052983, 0.201844, -0.087267, 0, 0},
    {0, 0, 0.0957, 0, 0, 0},
    {0, 0, 0.1121, 0, 0, 0},
    {0, 0, 0.1661, 0, 0, 0},
    {0, 0, 0.2045, 0, 0, 0},
    {0, -0.0435, 0.093458, 0.087267, 0, 0},
    {0, -0.044929, 0.109796, 0.087267, 0, 0},
    {0, -0.049636, 0.16359, 0.087267, 0, 0},
    {0, -0.052983, 0.201844, 0.087267, 0, 0},
    {-0.0182, 0.019333, 0.049013, 3.14159, -1.48353, 1.5708},
    {-0.0132, 0.056728, 0.018638, 3.14159, -1.48353, 1.5708},
    {-0.0132, 0.074361, 0.017096, 3.14159, -1.48353, 1.5708},
    {-0.0132, 0.125565, 0.012616, 3.14159, -1.48353, 1.5708},
};
static const double k_axis[16][3] = {
    {0, 0.087156, 0.996195},
    {0, 0.996195, -0.087156},
    {0, 0.996195, -0.087156},
    {0, 0.996195, -0.087156},
    {0, 0, 1},
    {0, 1, 0},
    {0, 1, 0},
    {0, 1, 0},
    {0, -0.087156, 0.996195},
    {0, 0.996195, 0.087156},
    {0, 0.996195, 0.087156},
    {0, 0.996195, 0.087156},
    {0, -0.087156, -0.996195},
    {0, 0.996195, -0.087156},
    {1, 0, 0},
    {1, 0, 0},
};
static const char* const k_name[16] = {
    "index_0", "index_1", "index_2", "index_3", "middle_0", "middle_1", "middle_2", "middle_3",
    "ring_0",  "ring_1",  "ring_2",  "ring_3",  "thumb_0",  "thumb_1",  "thumb_2",  "thumb_3"};

/* 3x3 row-major helpers of this test's own */
static void mat_mul(const double* A, const double* B, double* C) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
        }
    }
}
static void mat_vec(const double* A, const double* x, double* y) {
    for (int i = 0; i < 3; ++i) {
        y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
    }
}
/* R = Rz(y) Ry(p) Rx(r), written out */
static void rpy_matrix(double r, double p, double y, double* R) {
    const double cr = cos(r), sr = sin(r), cp = cos(p), sp = sin(p), cy = cos(y), sy = sin(y);
    const double M[9] = {cy * cp,
                         cy * sp * sr - sy * cr,
                         cy * sp * cr + sy * sr,
                         sy * cp,
                         sy * sp * sr + cy * cr,
                         sy * sp * cr - cy * sr,
                         -sp,
                         cp * sr,
                         cp * cr};
    memcpy(R, M, sizeof M);
}
/* Rodrigues: rotation by t about the unit vector u */
static void axis_matrix(const double* a, double t, double* R) {
    const double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    const double u[3] = {a[0] / n, a[1] / n, a[2] / n}, c = cos(t), s = sin(t), C = 1 - c;
    const double M[9] = {
        c + u[0] * u[0] * C,        u[0] * u[1] * C - u[2] * s, u[0] * u[2] * C + u[1] * s,
        u[1] * u[0] * C + u[2] * s, c + u[1] * u[1] * C,        u[1] * u[2] * C - u[0] * s,
        u[2] * u[0] * C - u[1] * s, u[2] * u[1] * C + u[0] * s, c + u[2] * u[2] * C};
    memcpy(R, M, sizeof M);
}

/* The expected pose of link i's body (COM frame) at q = 0: R, p. */
static void file_pose(int i, double* R, double* p) {
    rpy_matrix(k_pose[i][3], k_pose[i][4], k_pose[i][5], R);
    const double com[3] = {0, 0, i == 15 ? 0.012781 : 0.0};
    double c[3];
    mat_vec(R, com, c);
    for (int k = 0; k < 3; ++k) {
        p[k] = k_pose[i][k] + c[k];
    }
}

static void check_pose(const ccb_model* m, const double* q, int i, const double* R, const double* p,
                       const char* what) {
    const int b = ccb_model_find_body(m, k_name[i]);
    CHECK(b >= 0, "no body %s", k_name[i]);
    ccb_pose X;
    CHECK(ccb_model_body_pose(m, b, 0.0, q, &X) == CCB_OK, "pose of %s", k_name[i]);
    const double got_p[3] = {X.p.x, X.p.y, X.p.z};
    for (int k = 0; k < 3; ++k) {
        CHECK_ABS(got_p[k], p[k], POSE_TOL, what);
    }
    for (int k = 0; k < 9; ++k) {
        CHECK_ABS(X.R.m[k], R[k], POSE_TOL, what);
    }
}

/* The case's model at its default parameters and its state vectors (the initial state). */
typedef struct fixture {
    ccb_model* m;
    void* data;
    double *q, *v;
} fixture;

static fixture setup(void) {
    fixture f = {NULL, NULL, NULL, NULL};
    const case_desc* cs = case_find("hand");
    CHECK(cs != NULL, "the hand case is registered");
    double P[CASE_MAX_PARAMS];
    for (int i = 0; i < cs->nparams; ++i) {
        P[i] = cs->params[i].def;
    }
    char msg[256];
    CHECK(cs->build(P, &f.m, &f.data, msg, sizeof msg) == 0, "build: %s", msg);
    CHECK(ccb_model_nq(f.m) == 16 + 7, "16 joints and a free ball: nq = %d", ccb_model_nq(f.m));
    f.q = calloc((size_t)ccb_model_nq(f.m), sizeof *f.q);
    f.v = calloc((size_t)ccb_model_nv(f.m), sizeof *f.v);
    CHECK(f.q && f.v && ccb_model_initial_state(f.m, f.q, f.v) == CCB_OK, "initial state");
    return f;
}

static void teardown(fixture* f) {
    free(f->q);
    free(f->v);
    case_find("hand")->destroy(f->data);
    ccb_model_destroy(f->m);
}

static void test_rest_pose(void) {
    fixture f = setup();
    for (int j = 0; j < 16; ++j) {
        f.q[j] = 0.0;
    }
    for (int i = 0; i < 16; ++i) {
        double R[9], p[3];
        file_pose(i, R, p);
        check_pose(f.m, f.q, i, R, p, "the link's pose at q = 0 is the model file's");
    }
    teardown(&f);
}

static void test_joint_rotations(void) {
    fixture f = setup();
    double* q = f.q;
    const ccb_model* m = f.m;
    const double theta = 0.7;
    for (int j = 0; j < 16; ++j) {
        for (int k = 0; k < 16; ++k) {
            q[k] = 0.0;
        }
        q[j] = theta;
        /* the joint's origin and the rotation about the file's axis through it */
        const double* o = k_pose[j];
        double Q[9];
        axis_matrix(k_axis[j], theta, Q);
        for (int i = j; i < 4 * (j / 4) + 4; ++i) { /* this link and those after it */
            double R0[9], p0[3], R[9], p[3], d[3];
            file_pose(i, R0, p0);
            mat_mul(Q, R0, R);
            const double r[3] = {p0[0] - o[0], p0[1] - o[1], p0[2] - o[2]};
            mat_vec(Q, r, d);
            for (int k = 0; k < 3; ++k) {
                p[k] = o[k] + d[k];
            }
            check_pose(m, q, i, R, p, "a joint turns its link and those after it about its axis");
        }
        /* the links before it do not move */
        for (int i = 4 * (j / 4); i < j; ++i) {
            double R0[9], p0[3];
            file_pose(i, R0, p0);
            check_pose(m, q, i, R0, p0, "a joint leaves the links before it in place");
        }
    }
    teardown(&f);
}

int main(void) {
    RUN(test_rest_pose);
    RUN(test_joint_rotations);
    return TEST_SUMMARY();
}
