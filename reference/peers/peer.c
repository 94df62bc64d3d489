/* peer — see peer.h: the peer variants and what the engines' translations share. */
#define _POSIX_C_SOURCE 200809L
#include "peer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccb/math.h"

static const peer_variant k_variants[] = {
    {PEER_MUJOCO,
     "mujoco",
     "MuJoCo 2.2 Newton, elliptic cones; stiffness as time constant 2 dt (peer)",
     &peer_engine_mujoco,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT}},
    {PEER_MUJOCO_K,
     "mujoco-k",
     "MuJoCo 2.2 Newton, elliptic cones; ccb's k used literally (peer)",
     &peer_engine_mujoco,
     {PEER_SAME_GEOMETRY, PEER_STIFF_LITERAL, PEER_SOLVER_DEFAULT}},
    {PEER_MUJOCO_PGS,
     "mujoco-pgs",
     "MuJoCo 2.2 projected Gauss-Seidel, elliptic cones; time constant 2 dt (peer)",
     &peer_engine_mujoco,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_PGS}},
    {PEER_MUJOCO_CG,
     "mujoco-cg",
     "MuJoCo 2.2 conjugate gradient, elliptic cones; time constant 2 dt (peer)",
     &peer_engine_mujoco,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_CG}},
    {PEER_MUJOCO_PYRAMIDAL,
     "mujoco-pyramidal",
     "MuJoCo 2.2 Newton, pyramidal cones; time constant 2 dt (peer)",
     &peer_engine_mujoco,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_PYRAMIDAL}},
    {PEER_ODE,
     "ode-worldstep",
     "ODE 0.16 dWorldStep (Dantzig LCP); k, tau_d as ERP and CFM (peer)",
     &peer_engine_ode,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT}},
    {PEER_ODE_QUICKSTEP,
     "ode-quickstep",
     "ODE 0.16 dWorldQuickStep (projected Gauss-Seidel); k, tau_d as ERP and CFM (peer)",
     &peer_engine_ode,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_QUICKSTEP}},
    {PEER_BULLET,
     "bullet",
     "Bullet 3.24 sequential impulses; k, k tau_d as contact stiffness and damping (peer)",
     &peer_engine_bullet,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT}},
    {PEER_BULLET_DANTZIG,
     "bullet-mlcp-dantzig",
     "Bullet 3.24 MLCP, Dantzig; k, k tau_d as contact stiffness and damping (peer)",
     &peer_engine_bullet,
     {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DANTZIG}},
};
#define NVARIANTS ((int)(sizeof k_variants / sizeof k_variants[0]))

const peer_variant* peer_variant_of(int id) {
    for (int i = 0; i < NVARIANTS; ++i) {
        if (k_variants[i].id == id) {
            return &k_variants[i];
        }
    }
    return NULL;
}

const peer_variant* peer_variant_named(const char* name) {
    for (int i = 0; i < NVARIANTS; ++i) {
        if (strcmp(k_variants[i].name, name) == 0) {
            return &k_variants[i];
        }
    }
    return NULL;
}

static double wall_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int peer_run(const peer_variant* pv, const ccb_model* m, double dt, double t_final,
             peer_result* out, char* msg, size_t n) {
    memset(out, 0, sizeof *out);
    const peer_engine* e = pv->engine;
    void* s = NULL;
    if (e->open(m, dt, &pv->options, &s, msg, n) != 0) {
        return -1;
    }
    const long steps = lround(t_final / dt);
    double iters = 0, ncon = 0, pen = 0;
    long npen = 0;
    int rc = 0;
    const double tic = wall_time();
    for (long k = 0; k < steps && rc == 0; ++k) {
        peer_step_info info;
        rc = e->step(s, &info, 0, msg, n);
        iters += info.iterations;
        ncon += info.ncon;
        pen += info.pen_mean * info.npen;
        npen += info.npen;
    }
    out->wall = wall_time() - tic;
    out->steps = steps;
    out->mean_iter = steps ? iters / (double)steps : 0;
    out->mean_ncon = steps ? ncon / (double)steps : 0;
    out->mean_pen = npen ? pen / (double)npen : 0;
    out->ok = rc == 0;
    e->close(s);
    return rc < 0 ? -1 : 0; /* a state that became non-finite is a result (ok = 0) */
}

int peer_bounding_box(const ccb_model* m, int body, ccb_vec3* h, double* mu) {
    int count = 0;
    double e[3] = {0, 0, 0};
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        ccb_shape_def s;
        int b;
        ccb_model_shape_def_get(m, i, &b, &s);
        if (b != body) {
            continue;
        }
        if (s.type != CCB_SHAPE_SPHERE) {
            return 0;
        }
        const double c[3] = {s.pose.p.x, s.pose.p.y, s.pose.p.z};
        for (int k = 0; k < 3; ++k) {
            e[k] = fmax(e[k], fabs(c[k]) + s.radius);
        }
        *mu = s.material.mu;
        count++;
    }
    *h = ccb_v3(e[0], e[1], e[2]);
    return count >= 8;
}

double peer_planar_angle(const ccb_mat3* R, double prev) {
    /* R = rot_y(theta): R[0][2] = sin(theta), R[0][0] = cos(theta) (ccb_m3_rot_y) */
    const double a = atan2(R->m[2], R->m[0]);
    return a + 2 * CCB_PI * round((prev - a) / (2 * CCB_PI));
}

ccb_vec3 peer_point_centre(const ccb_pose* X, ccb_vec3 point, const ccb_mat3* R0) {
    /* up = R0^T e_z: world z in the frame of X at t = 0 */
    const ccb_vec3 up = R0 ? ccb_v3(R0->m[6], R0->m[7], R0->m[8]) : ccb_v3(0, 0, 1);
    return ccb_v3_add(ccb_v3_add(X->p, ccb_m3_mul_v(&X->R, point)),
                      ccb_v3_scale(PEER_POINT_RADIUS, up));
}

int peer_shape_npoints(const ccb_shape_def* s) {
    return s->type == CCB_SHAPE_POINTS                      ? s->npoints
           : s->type == CCB_SHAPE_CAPSULE && s->radius == 0 ? 2
                                                            : 0;
}

ccb_vec3 peer_shape_point(const ccb_shape_def* s, int k) {
    if (s->type == CCB_SHAPE_POINTS) {
        return s->points[k];
    }
    return ccb_v3(k == 0 ? -s->half_length : s->half_length, 0, 0);
}

ccb_pose peer_slab_pose(const ccb_pose* X) {
    ccb_pose Y = *X;
    Y.p = ccb_v3_add(X->p, ccb_m3_mul_v(&X->R, ccb_v3(0, 0, -PEER_SLAB_HALF)));
    return Y;
}

int peer_absent_open(const ccb_model* m, double dt, const peer_options* o, void** scene, char* msg,
                     size_t n) {
    (void)m, (void)dt, (void)o;
    *scene = NULL;
    snprintf(msg, n, "this engine is not in this build (ccb --version lists the optional parts)");
    return -1;
}

void peer_absent_state(const void* scene, double* q, double* v) {
    (void)scene, (void)q, (void)v;
}

int peer_absent_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    (void)scene, (void)forces;
    memset(info, 0, sizeof *info);
    snprintf(msg, n, "this engine is not in this build");
    return -1;
}

double peer_absent_time(const void* scene) {
    (void)scene;
    return 0.0;
}

void peer_absent_close(void* scene) {
    (void)scene;
}

int peer_check_body(const ccb_model* m, int b, const char* engine, char* msg, size_t n) {
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    const char* name = ccb_model_body_name(m, b);
    if (d.mobilizer == CCB_MOBILIZER_PRISMATIC || d.mobilizer == CCB_MOBILIZER_REVOLUTE) {
        return peer_check_joint(m, b, engine, msg, n);
    }
    if (d.mobilizer == CCB_MOBILIZER_PLANAR &&
        (d.damping[0] != 0 || d.damping[1] != 0 || d.damping[2] != 0)) {
        snprintf(msg, n, "body '%s': the %s peer does not translate joint damping", name, engine);
        return -1;
    }
    return 0;
}

int peer_loads_init(peer_loads* L, const ccb_model* m) {
    memset(L, 0, sizeof *L);
    const int nb = ccb_model_nbodies(m);
    int any = 0;
    for (int b = 0; b < nb; ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        any |= d.force != NULL;
    }
    L->q = calloc((size_t)ccb_model_nq(m) + 1, sizeof(double));
    L->v = calloc((size_t)ccb_model_nv(m) + 1, sizeof(double));
    L->w = calloc(6 * (size_t)nb + 1, sizeof(double));
    if (L->q == NULL || L->v == NULL || L->w == NULL) {
        peer_loads_free(L);
        return -1;
    }
    L->any = any;
    return 0;
}

void peer_loads_free(peer_loads* L) {
    free(L->q);
    free(L->v);
    free(L->w);
    memset(L, 0, sizeof *L);
}

void peer_loads_eval(peer_loads* L, const ccb_model* m, double t) {
    const int nb = ccb_model_nbodies(m);
    for (int b = 0; b < nb && L->any; ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        ccb_vec3 f = ccb_v3(0, 0, 0), tau = ccb_v3(0, 0, 0);
        if (d.force != NULL) { /* ccb_body_generalized_force (lib/src/model.c) calls it so */
            ccb_pose X;
            ccb_twist V;
            ccb_model_body_pose(m, b, t, L->q, &X);
            ccb_model_body_twist(m, b, t, L->q, L->v, &V);
            d.force(t, &X, &V, d.force_user, &f, &tau);
        }
        const double w[6] = {f.x, f.y, f.z, tau.x, tau.y, tau.z};
        memcpy(L->w + 6 * b, w, sizeof w);
    }
}

int peer_check_joint(const ccb_model* m, int b, const char* engine, char* msg, size_t n) {
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    const char* name = ccb_model_body_name(m, b);
    if (d.mobilizer == CCB_MOBILIZER_REVOLUTE) {
        snprintf(msg, n, "body '%s': the %s peer translates prismatic joints, not revolute ones",
                 name, engine);
        return -1;
    }
    if (d.mobilizer != CCB_MOBILIZER_PRISMATIC || d.joint.parent < 0) {
        return 0;
    }
    ccb_body_def pd;
    ccb_model_body_def_get(m, d.joint.parent, &pd);
    if (pd.mobilizer != CCB_MOBILIZER_PRESCRIBED) {
        snprintf(msg, n,
                 "body '%s': the %s peer translates a prismatic joint on the world or on a body "
                 "of prescribed motion, not on body '%s'",
                 name, engine, ccb_model_body_name(m, d.joint.parent));
        return -1;
    }
    return 0;
}

void peer_slider_frame(const ccb_body_def* d, const ccb_pose* X_WP, ccb_vec3* a_W, ccb_vec3* o_W) {
    const ccb_pose X_WF = X_WP ? ccb_pose_compose(X_WP, &d->joint.X_PF) : d->joint.X_PF;
    *a_W = ccb_m3_mul_v(&X_WF.R, d->joint.axis); /* the axis is in F (= in M), unit */
    *o_W = X_WF.p;
}

void peer_slider_state(const ccb_body_def* d, const ccb_pose* X_WP, ccb_vec3 v_P,
                       const ccb_pose* X_WB, ccb_vec3 v_B, double* q, double* v) {
    ccb_vec3 a, o;
    peer_slider_frame(d, X_WP, &a, &o);
    const ccb_vec3 p_M = ccb_v3_add(X_WB->p, ccb_m3_mul_v(&X_WB->R, d->joint.X_BM.p));
    *q = ccb_v3_dot(a, ccb_v3_sub(p_M, o));
    *v = ccb_v3_dot(a, X_WP ? ccb_v3_sub(v_B, v_P) : v_B);
}

double peer_joint_force(const ccb_body_def* d, double t, double q, double v, int damping) {
    const ccb_joint_def* j = &d->joint; /* formulation-convex §1.1: explicit parts of k2 */
    double f = -j->stiffness * (q - j->q_rest);
    if (j->actuation) {
        f += j->actuation(t, q, v, j->actuation_user);
    }
    return damping ? f - j->damping * v : f;
}
