/* math: 3x3 helpers, poses, contact frames and the soft norm.
 *
 * Soft norm (spec: formulation-convex §3; ICF App. A, eqs. (9)-(10)):
 *   ||x||_s = sqrt(||x||^2 + eps^2) - eps,
 *   d||x||_s/dx   = x / rho,                       rho = sqrt(||x||^2 + eps^2)
 *   d2||x||_s/dx2 = (I - g g^T) / rho,             g = x / rho  (||g|| < 1)
 * with eigenvalues 1/rho (orthogonal to x) and eps^2/rho^3 (along x). */
#include "ccb/math.h"

#include <string.h>

ccb_mat3 ccb_m3_mul(const ccb_mat3* A, const ccb_mat3* B) {
    ccb_mat3 C;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            C.m[3 * i + j] = A->m[3 * i] * B->m[j] + A->m[3 * i + 1] * B->m[3 + j] +
                             A->m[3 * i + 2] * B->m[6 + j];
        }
    }
    return C;
}

ccb_mat3 ccb_m3_transpose(const ccb_mat3* A) {
    ccb_mat3 T;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            T.m[3 * i + j] = A->m[3 * j + i];
        }
    }
    return T;
}

ccb_mat3 ccb_m3_rot_y(double theta) {
    const double c = cos(theta), s = sin(theta);
    ccb_mat3 R = {{c, 0, s, 0, 1, 0, -s, 0, c}};
    return R;
}

ccb_pose ccb_pose_planar(double x, double z, double theta) {
    ccb_pose X;
    X.p = ccb_v3(x, 0, z);
    X.R = ccb_m3_rot_y(theta);
    return X;
}

ccb_pose ccb_pose_translation(ccb_vec3 p) {
    ccb_pose X;
    X.p = p;
    X.R = ccb_m3_identity();
    return X;
}

ccb_pose ccb_pose_compose(const ccb_pose* X_WB, const ccb_pose* X_BC) {
    ccb_pose X;
    X.p = ccb_v3_add(X_WB->p, ccb_m3_mul_v(&X_WB->R, X_BC->p));
    X.R = ccb_m3_mul(&X_WB->R, &X_BC->R);
    return X;
}

ccb_twist ccb_twist_planar(double vx, double vz, double omega) {
    ccb_twist V;
    V.w = ccb_v3(0, omega, 0);
    V.v = ccb_v3(vx, 0, vz);
    return V;
}

void ccb_quat_from_m3(const ccb_mat3* R, double q[4]) {
    const double* m = R->m;
    const double tr = m[0] + m[4] + m[8];
    if (tr >= m[0] && tr >= m[4] && tr >= m[8]) {
        const double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s;
        q[1] = (m[7] - m[5]) / s;
        q[2] = (m[2] - m[6]) / s;
        q[3] = (m[3] - m[1]) / s;
    } else if (m[0] >= m[4] && m[0] >= m[8]) {
        const double s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        q[0] = (m[7] - m[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[1] + m[3]) / s;
        q[3] = (m[2] + m[6]) / s;
    } else if (m[4] >= m[8]) {
        const double s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        q[0] = (m[2] - m[6]) / s;
        q[1] = (m[1] + m[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (m[5] + m[7]) / s;
    } else {
        const double s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        q[0] = (m[3] - m[1]) / s;
        q[1] = (m[2] + m[6]) / s;
        q[2] = (m[5] + m[7]) / s;
        q[3] = 0.25 * s;
    }
    if (q[0] < 0) { /* canonical sign: w >= 0 */
        for (int i = 0; i < 4; ++i) {
            q[i] = -q[i];
        }
    }
}

ccb_mat3 ccb_m3_from_quat(const double qin[4]) {
    const double n = sqrt(qin[0] * qin[0] + qin[1] * qin[1] + qin[2] * qin[2] + qin[3] * qin[3]);
    const double w = qin[0] / n, x = qin[1] / n, y = qin[2] / n, z = qin[3] / n;
    ccb_mat3 R = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                   2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    return R;
}

ccb_mat3 ccb_m3_axis_angle(ccb_vec3 a, double angle) {
    const double c = cos(angle), s = sin(angle), t = 1.0 - c;
    ccb_mat3 R = {{t * a.x * a.x + c, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y,
                   t * a.x * a.y + s * a.z, t * a.y * a.y + c, t * a.y * a.z - s * a.x,
                   t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, t * a.z * a.z + c}};
    return R;
}

ccb_mat3 ccb_contact_frame(ccb_vec3 n) {
    const double a[3] = {fabs(n.x), fabs(n.y), fabs(n.z)};
    int i = 0;
    if (a[1] < a[i]) {
        i = 1;
    }
    if (a[2] < a[i]) {
        i = 2;
    }
    ccb_vec3 e = ccb_v3(i == 0, i == 1, i == 2);
    ccb_vec3 t1 = ccb_v3_sub(e, ccb_v3_scale(ccb_v3_dot(e, n), n));
    t1 = ccb_v3_scale(1.0 / ccb_v3_norm(t1), t1);
    ccb_vec3 t2 = ccb_v3_cross(n, t1);
    ccb_mat3 R = {{t1.x, t2.x, n.x, t1.y, t2.y, n.y, t1.z, t2.z, n.z}};
    return R;
}

static double sumsq(const double* x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        s += x[i] * x[i];
    }
    return s;
}

double ccb_softnorm(const double* x, int n, double eps) {
    const double x2 = sumsq(x, n);
    return x2 / (sqrt(x2 + eps * eps) + eps); /* = sqrt(x2+eps^2) - eps, no cancellation */
}

void ccb_softnorm_grad(const double* x, int n, double eps, double* g) {
    const double rho = sqrt(sumsq(x, n) + eps * eps);
    for (int i = 0; i < n; ++i) {
        g[i] = x[i] / rho;
    }
}

void ccb_softnorm_hess(const double* x, int n, double eps, double* H) {
    const double rho = sqrt(sumsq(x, n) + eps * eps);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const double gi = x[i] / rho, gj = x[j] / rho;
            H[n * i + j] = ((i == j) - gi * gj) / rho;
        }
    }
}
