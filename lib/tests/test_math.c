/* Unit tests of lib/src/math.c: the soft norm (formulation-convex §3, §11 fact 2), contact frames
 * and poses. */
#include "ccb/math.h"
#include "test.h"

/* [round-off: a few operations on O(1) numbers] */
static const double TOL_ROUND = 1e-14;

static void test_softnorm_fact2(void) {
    const double zero[3] = {0, 0, 0};
    const double eps = 2.385e-4;
    double g[3], H[9];
    CHECK(ccb_softnorm(zero, 3, eps) == 0.0, "|0|_s = 0 exactly");
    ccb_softnorm_grad(zero, 3, eps, g);
    CHECK(g[0] == 0 && g[1] == 0 && g[2] == 0, "gradient at 0 is 0");
    ccb_softnorm_hess(zero, 3, eps, H);
    for (int i = 0; i < 9; ++i) {
        CHECK_REL(H[i], (i % 4 == 0) ? 1.0 / eps : 0.0, TOL_ROUND, 1.0 / eps,
                  "Hessian at 0 = I/eps");
    }
    for (int trial = 0; trial < 500; ++trial) {
        const double e = loguniform(1e-6, 1.0);
        const double scale = loguniform(1e-8, 1e3);
        double x[3] = {uniform(-1, 1) * scale, uniform(-1, 1) * scale, uniform(-1, 1) * scale};
        const double nx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        const double s = ccb_softnorm(x, 3, e);
        const double rho = sqrt(nx * nx + e * e);
        /* |x| - eps <= |x|_s <= |x| */
        CHECK(s <= nx * (1 + 1e-15) && s >= nx - e - 1e-15 * (nx + e), "bounds of |x|_s");
        /* closed form sqrt(|x|^2 + eps^2) - eps where it is well conditioned */
        if (nx > e) {
            CHECK_REL(s, rho - e, 1e-13, 0, "|x|_s = sqrt(|x|^2 + eps^2) - eps");
        }
        ccb_softnorm_grad(x, 3, e, g);
        ccb_softnorm_hess(x, 3, e, H);
        /* eigenvalues: eps^2/rho^3 along x, 1/rho across (fact 2) */
        double Hx[3];
        for (int i = 0; i < 3; ++i) {
            Hx[i] = H[3 * i] * x[0] + H[3 * i + 1] * x[1] + H[3 * i + 2] * x[2];
            /* [round-off: the small eigenvalue comes from the cancellation 1 - |g|^2, so H x
             *  carries an absolute error of a few eps_mach |x| / rho] */
            CHECK_ABS(Hx[i], e * e / (rho * rho * rho) * x[i],
                      1e-10 * fabs(e * e / (rho * rho * rho) * x[i]) + 8.9e-16 * nx / rho,
                      "H x = eps^2/rho^3 x");
        }
        double ev[3];
        sym3_eigvals(H, ev);
        int across = 0;
        for (int i = 0; i < 3; ++i) {
            across += fabs(ev[i] - 1.0 / rho) <= 1e-10 / rho;
        }
        CHECK(across >= 2, "two eigenvalues 1/rho (got %g %g %g, 1/rho = %g)", ev[0], ev[1], ev[2],
              1 / rho);
        /* central FD of the value against the gradient, h relative to rho */
        const double h = 1e-6 * rho;
        for (int k = 0; k < 3; ++k) {
            double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
            xp[k] += h;
            xm[k] -= h;
            /* [central FD: truncation (h/rho)^2 ~ 1e-12, cancellation eps |x|_s / h] */
            CHECK_ABS((ccb_softnorm(xp, 3, e) - ccb_softnorm(xm, 3, e)) / (2 * h), g[k],
                      1e-8 + 4e-16 * s / h, "FD of |x|_s = soft unit vector");
        }
    }
}

static void test_contact_frame(void) {
    const ccb_mat3 Rz = ccb_contact_frame(ccb_v3(0, 0, 1));
    const ccb_mat3 I = ccb_m3_identity();
    for (int i = 0; i < 9; ++i) {
        CHECK(Rz.m[i] == I.m[i], "n = +z gives t1 = x, t2 = y exactly");
    }
    for (int trial = 0; trial < 200; ++trial) {
        ccb_vec3 n = ccb_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        n = ccb_v3_scale(1.0 / ccb_v3_norm(n), n);
        const ccb_mat3 R = ccb_contact_frame(n);
        const ccb_vec3 t1 = ccb_m3_col(&R, 0), t2 = ccb_m3_col(&R, 1), c2 = ccb_m3_col(&R, 2);
        CHECK_ABS(ccb_v3_dot(t1, t1), 1.0, TOL_ROUND, "t1 unit");
        CHECK_ABS(ccb_v3_dot(t2, t2), 1.0, TOL_ROUND, "t2 unit");
        CHECK_ABS(ccb_v3_dot(t1, t2), 0.0, TOL_ROUND, "t1 . t2 = 0");
        CHECK_ABS(ccb_v3_dot(t1, n), 0.0, TOL_ROUND, "t1 . n = 0");
        const ccb_vec3 c = ccb_v3_cross(t1, t2);
        CHECK_ABS(ccb_v3_dot(c, n), 1.0, TOL_ROUND, "right-handed: t1 x t2 = n");
        CHECK(c2.x == n.x && c2.y == n.y && c2.z == n.z, "third column is n");
    }
}

static void test_poses(void) {
    const double th = 0.7;
    const ccb_pose X = ccb_pose_planar(0.3, -0.2, th);
    const ccb_vec3 p = ccb_m3_mul_v(&X.R, ccb_v3(1, 0, 0));
    /* R_y(theta) maps x to (cos, 0, -sin) */
    CHECK_ABS(p.x, cos(th), TOL_ROUND, "R_y x");
    CHECK_ABS(p.z, -sin(th), TOL_ROUND, "R_y x");
    const ccb_pose Y = ccb_pose_planar(0, 0, -th);
    const ccb_pose Z = ccb_pose_compose(&X, &Y);
    const ccb_mat3 I = ccb_m3_identity();
    for (int i = 0; i < 9; ++i) {
        CHECK_ABS(Z.R.m[i], I.m[i], TOL_ROUND, "R_y(th) R_y(-th) = I");
    }
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_mat3 P = ccb_m3_mul(&RT, &X.R);
    for (int i = 0; i < 9; ++i) {
        CHECK_ABS(P.m[i], I.m[i], TOL_ROUND, "R^T R = I");
    }
}

int main(void) {
    RUN(test_softnorm_fact2);
    RUN(test_contact_frame);
    RUN(test_poses);
    return TEST_SUMMARY();
}
