/* ccb/math.h — small fixed-size vectors and matrices, poses and twists, the soft norm.
 *
 * Conventions: right-handed world frame W with z up; matrices are row-major 3x3; a pose X_WB
 * holds the position p_WB of frame B's origin and the rotation R_WB (columns = B's axes in W);
 * a twist holds the angular velocity w and the translational velocity v of a body's origin,
 * both expressed in W. */
#ifndef CCB_MATH_H
#define CCB_MATH_H

#include <math.h>

#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pi to double precision (M_PI is not part of strict C11). */
#define CCB_PI 3.14159265358979323846

typedef struct ccb_vec3 {
    double x, y, z;
} ccb_vec3;

typedef struct ccb_mat3 {
    double m[9]; /* row-major: m[3*i + j] = entry (i, j) */
} ccb_mat3;

typedef struct ccb_pose {
    ccb_vec3 p; /* position of the frame origin in W [m] */
    ccb_mat3 R; /* orientation, columns are the frame's axes in W [-] */
} ccb_pose;

typedef struct ccb_twist {
    ccb_vec3 w; /* angular velocity in W [rad/s] */
    ccb_vec3 v; /* velocity of the frame origin in W [m/s] */
} ccb_twist;

static inline ccb_vec3 ccb_v3(double x, double y, double z) {
    ccb_vec3 r = {x, y, z};
    return r;
}
static inline ccb_vec3 ccb_v3_add(ccb_vec3 a, ccb_vec3 b) {
    return ccb_v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline ccb_vec3 ccb_v3_sub(ccb_vec3 a, ccb_vec3 b) {
    return ccb_v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline ccb_vec3 ccb_v3_scale(double s, ccb_vec3 a) {
    return ccb_v3(s * a.x, s * a.y, s * a.z);
}
static inline double ccb_v3_dot(ccb_vec3 a, ccb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline ccb_vec3 ccb_v3_cross(ccb_vec3 a, ccb_vec3 b) {
    return ccb_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double ccb_v3_norm(ccb_vec3 a) {
    return sqrt(ccb_v3_dot(a, a));
}
static inline int ccb_v3_isfinite(ccb_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

static inline ccb_mat3 ccb_m3_identity(void) {
    ccb_mat3 r = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    return r;
}
static inline ccb_vec3 ccb_m3_mul_v(const ccb_mat3* A, ccb_vec3 x) {
    const double* m = A->m;
    return ccb_v3(m[0] * x.x + m[1] * x.y + m[2] * x.z, m[3] * x.x + m[4] * x.y + m[5] * x.z,
                  m[6] * x.x + m[7] * x.y + m[8] * x.z);
}
/* A^T x */
static inline ccb_vec3 ccb_m3_tmul_v(const ccb_mat3* A, ccb_vec3 x) {
    const double* m = A->m;
    return ccb_v3(m[0] * x.x + m[3] * x.y + m[6] * x.z, m[1] * x.x + m[4] * x.y + m[7] * x.z,
                  m[2] * x.x + m[5] * x.y + m[8] * x.z);
}
static inline ccb_vec3 ccb_m3_col(const ccb_mat3* A, int j) {
    return ccb_v3(A->m[j], A->m[3 + j], A->m[6 + j]);
}
CCB_API ccb_mat3 ccb_m3_mul(const ccb_mat3* A, const ccb_mat3* B);
CCB_API ccb_mat3 ccb_m3_transpose(const ccb_mat3* A);
/* Rotation by angle `theta` [rad] about the world y axis (the planar rotation of ccb). */
CCB_API ccb_mat3 ccb_m3_rot_y(double theta);

/* Pose of a planar body at (x, z, theta) in the x-z plane, y = 0. */
CCB_API ccb_pose ccb_pose_planar(double x, double z, double theta);
/* Identity pose translated to p. */
CCB_API ccb_pose ccb_pose_translation(ccb_vec3 p);
/* X_WC = X_WB * X_BC. */
CCB_API ccb_pose ccb_pose_compose(const ccb_pose* X_WB, const ccb_pose* X_BC);
/* Planar twist: velocity (vx, 0, vz), angular velocity omega about y. */
CCB_API ccb_twist ccb_twist_planar(double vx, double vz, double omega);

/* Unit quaternion q = (w, x, y, z) (scalar first) of a rotation matrix (Shepperd's method; R
 * must be a rotation), the rotation matrix of a quaternion (normalized first), and the axis-angle
 * rotation by `angle` [rad] about the unit axis a. */
CCB_API void ccb_quat_from_m3(const ccb_mat3* R, double q[4]);
CCB_API ccb_mat3 ccb_m3_from_quat(const double q[4]);
CCB_API ccb_mat3 ccb_m3_axis_angle(ccb_vec3 a, double angle);

/* Right-handed contact frame for a unit normal n: columns (t1, t2, n) with t1 the normalized
 * projection of the world axis least aligned with n (ties → lowest index), t2 = n x t1.
 * For n = +z this gives t1 = +x, t2 = +y. */
CCB_API ccb_mat3 ccb_contact_frame(ccb_vec3 n);

/* ---- Soft norm (spec: formulation-convex §3; ICF App. A, eqs. (9)-(10)) -----------------
 * ||x||_s = sqrt(||x||^2 + eps^2) - eps, evaluated as ||x||^2 / (sqrt(||x||^2+eps^2) + eps) so
 * that it stays accurate for ||x|| << eps. eps > 0 has the units of x. */
CCB_API double ccb_softnorm(const double* x, int n, double eps);
/* Gradient, the "soft unit vector" x / sqrt(||x||^2 + eps^2) (norm < 1), written to g[n]. */
CCB_API void ccb_softnorm_grad(const double* x, int n, double eps, double* g);
/* Hessian (I - g g^T) / sqrt(||x||^2 + eps^2), written row-major to H[n*n]. */
CCB_API void ccb_softnorm_hess(const double* x, int n, double eps, double* H);

#ifdef __cplusplus
}
#endif
#endif
