/* bullet_peer — the Bullet engine of the peers (peer.h): a ccb scene described to ccb's Bullet
 * module (bullet_module.h; C++ in bullet_module.cpp, a shared object opened at the first use,
 * peer_dl.h) and stepped by btDiscreteDynamicsWorld with Bullet's sequential-impulse solver or
 * its MLCP solver with the Dantzig LCP.
 *
 * The mapping (Bullet 3.24, double precision; docs/speed.md §3):
 *   - a contact of ccb's pair material (formulation-convex §8.8) gets, when Bullet adds it, the
 *     stiffness k and the damping k tau_d (SAP's Kelvin-Voigt dissipation; the cases set tau_d)
 *     as its contact stiffness and damping (btManifoldPoint's m_combinedContactStiffness1 and
 *     m_combinedContactDamping1 with BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING, the per-point form
 *     of btCollisionObject::setContactStiffnessAndDamping: Bullet solves it with ERP = h k/(h k +
 *     kd), CFM = 1/(h k + kd)); a rigid pair keeps Bullet's hard contact (ERP 0.2, split
 *     impulse); friction: mu of ccb's pair rule on Bullet's two friction directions, restitution 0;
 *   - bodies: free bodies as rigid bodies with ccb's mass and principal moments (ccb's inertia
 *     must be diagonal in the body frame: Bullet takes principal axes); planar bodies as rigid
 *     bodies with linear factor (1, 0, 1) and angular factor (0, 1, 0) (Bullet's way to hold a body
 *     in a plane), a locked coordinate by a 0 more; prescribed translations as kinematic bodies
 *     placed at their pose at the step's end and moving at its velocity there (as ccb's bias);
 *     fixed bodies as static objects, one per shape; no body sleeps; a body's applied load as
 *     applyCentralForce and applyTorque, evaluated at the start of every step (peer_loads);
 *   - shapes: spheres, boxes (Bullet's default margin, 0.04 m, rounds their edges); a half-space
 *     of a fixed body as a static plane, of a moving body as a slab (peer.h); contact points as
 *     1 mm spheres (peer.h); the shapes of a body as one compound;
 *   - everything else is Bullet's default (10 iterations of sequential impulses, warm starting,
 *     contact breaking threshold 0.02 m, split impulse below -0.04 m, semi-implicit Euler with
 *     the exponential map). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccb/math.h"
#include "model_internal.h"
#include "peer.h"

#ifdef CCB_HAVE_BULLET
#include <dlfcn.h>

#include "bullet_module.h"
#include "peer_dl.h"

/* The module's one symbol (bullet_module.h), looked up through peer_dl.h. */
static const ccb_bt_api* (*bt_module)(void);
static const peer_dl_sym bt_syms[] = {{"ccb_bullet_module", &bt_module}, {NULL, NULL}};
static char bt_path[PATH_MAX];
static peer_dl bt_lib = PEER_DL_INIT(bt_path, bt_syms);
static const ccb_bt_api* bt;

/* Where the module is: beside the executable (the build tree's ccb), where the installation puts
 * it relative to the executable, or in the build tree (the tests' executables). */
static void bt_find(void) {
    char exe[PATH_MAX - 128]; /* room for the suffixes below in bt_path */
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char* const tries[3] = {"/" CCB_BULLET_MODULE_NAME, "/" CCB_BULLET_MODULE_REL, NULL};
    if (len > 0) {
        exe[len] = '\0';
        char* slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
        }
        for (int i = 0; tries[i]; ++i) {
            snprintf(bt_path, sizeof bt_path, "%s%s", exe, tries[i]);
            if (access(bt_path, R_OK) == 0) {
                return;
            }
        }
    }
    snprintf(bt_path, sizeof bt_path, "%s", CCB_BULLET_MODULE_BUILD);
}

static pthread_once_t bt_once = PTHREAD_ONCE_INIT;

static int bt_load(char* msg, size_t n) {
    pthread_once(&bt_once, bt_find);
    if (peer_dl_open(&bt_lib, msg, n) != 0) {
        return -1;
    }
    bt = bt_module();
    if (bt == NULL || bt->abi != CCB_BT_ABI) {
        if (msg && n > 0) {
            snprintf(msg, n, "%s is not ccb's Bullet module of this build (rebuild ccb)", bt_path);
        }
        return -1;
    }
    return 0;
}

/* Where a ccb body lives in the module. */
typedef struct bt_body {
    ccb_mobilizer kind;
    int id; /* the module's body (-1: fixed; its shapes are static bodies of their own) */
    int qoff, nq, voff, nv;
    int coord[3];   /* planar: ccb's velocity k is planar coordinate coord[k] (0 x, 1 z, 2 theta) */
    double theta;   /* planar: the angle of the last state, for unwrapping */
    double quat[4]; /* free: the quaternion of the last state (Bullet keeps a rotation matrix,
                       whose quaternion has either sign: the one nearer this is taken) */
    int parent;     /* prismatic: the parent body (-1: the world) */
    ccb_vec3 axis;  /* prismatic: the joint axis in the world (its parent translates) */
} bt_body;

typedef struct bt_scene {
    const ccb_model* m;
    ccb_bt_world* w;
    double dt;
    long k;
    int nb, nmod;
    bt_body* body;
    int* ccb_of; /* module body -> ccb body (-1: fixed) */
    double* q0;
    double* f_mod;  /* 3 per module body */
    double* f_body; /* 3 per ccb body */
    int joints;     /* 1 if a body is on a joint */
    peer_loads loads;
} bt_scene;

static int pair_active(void* user, int a, int b) {
    const bt_scene* p = user;
    return ccb_shape_pair_active(p->m, a, b);
}

static void pair_material(void* user, int a, int b, double* k, double* kd, double* mu) {
    const bt_scene* p = user;
    double w;
    const ccb_material mat = ccb_shape_pair_material(p->m, a, b, &w); /* formulation-convex §8.8 */
    *k = mat.k;
    *kd = isfinite(mat.k) ? mat.k * mat.tau_d : 0.0;
    *mu = mat.mu;
}

static void bt_close(void* scene) {
    bt_scene* p = scene;
    if (p == NULL) {
        return;
    }
    if (p->w) {
        bt->destroy(p->w);
    }
    free(p->body);
    free(p->ccb_of);
    free(p->q0);
    free(p->f_mod);
    free(p->f_body);
    peer_loads_free(&p->loads);
    free(p);
}

static void quat_of(const ccb_mat3* R, double q[4]) {
    ccb_quat_from_m3(R, q);
}

/* Prescribed bodies over the step from t: moving at their velocity at t + dt (ccb evaluates a body
 * of prescribed motion at the step's end, lib/src/problem.c), from the pose that reaches their
 * pose at t + dt with it (as ODE's and MuJoCo's). */
static int set_prescribed(bt_scene* p, double t, char* msg, size_t n) {
    for (int b = 0; b < p->nb; ++b) {
        if (p->body[b].kind != CCB_MOBILIZER_PRESCRIBED) {
            continue;
        }
        ccb_pose X;
        ccb_twist V;
        ccb_model_body_pose(p->m, b, t + p->dt, p->q0, &X);
        ccb_model_body_twist(p->m, b, t + p->dt, p->q0, NULL, &V);
        if (fabs(V.w.x) + fabs(V.w.y) + fabs(V.w.z) > 0) {
            snprintf(msg, n,
                     "the Bullet peer translates prescribed translations; body '%s' rotates at "
                     "t = %g s",
                     ccb_model_body_name(p->m, b), t);
            return -1;
        }
        double q[4];
        quat_of(&X.R, q);
        X.p = ccb_v3_sub(X.p, ccb_v3_scale(p->dt, V.v));
        const double x[3] = {X.p.x, X.p.y, X.p.z}, v[3] = {V.v.x, V.v.y, V.v.z}, w[3] = {0, 0, 0};
        bt->set_state(p->w, p->body[b].id, x, q, v, w);
    }
    return 0;
}

/* A module shape for a ccb shape s at pose X (body frame, or world frame on a fixed body). */
static int add_shape(bt_scene* p, int body, const ccb_shape_def* s, int own, const ccb_pose* X,
                     int shape, char* msg, size_t n) {
    double size[4] = {0, 0, 0, 0}, q[4];
    ccb_pose Y = *X;
    int type;
    switch (s->type) {
    case CCB_SHAPE_SPHERE:
        type = CCB_BT_SPHERE;
        size[0] = s->radius;
        break;
    case CCB_SHAPE_BOX:
        type = CCB_BT_BOX;
        size[0] = s->half_extents.x;
        size[1] = s->half_extents.y;
        size[2] = s->half_extents.z;
        break;
    case CCB_SHAPE_HALFSPACE:
        if (!own) { /* a static plane n . x = n . p */
            const ccb_vec3 nrm = ccb_m3_mul_v(&X->R, ccb_v3(0, 0, 1));
            type = CCB_BT_PLANE;
            size[0] = nrm.x;
            size[1] = nrm.y;
            size[2] = nrm.z;
            size[3] = ccb_v3_dot(nrm, X->p);
            Y = ccb_pose_translation(ccb_v3(0, 0, 0));
        } else {
            type = CCB_BT_BOX;
            size[0] = size[1] = size[2] = PEER_SLAB_HALF;
            Y = peer_slab_pose(X);
        }
        break;
    case CCB_SHAPE_CAPSULE: /* btCapsuleShapeX: along x, as ccb's */
        type = CCB_BT_CAPSULE_X;
        size[0] = s->radius;
        size[1] = s->half_length;
        break;
    default:
        snprintf(msg, n,
                 "the Bullet peer translates spheres, boxes, capsules and half-spaces, not %s",
                 s->type == CCB_SHAPE_HYDRO ? "hydroelastic meshes" : "this shape type");
        return -1;
    }
    quat_of(&Y.R, q);
    const double x[3] = {Y.p.x, Y.p.y, Y.p.z};
    return bt->add_shape(p->w, body, type, size, x, q, shape, msg, n);
}

static const double k_zero3[3] = {0, 0, 0}, k_one3[3] = {1, 1, 1};
static const double k_unit_q[4] = {1, 0, 0, 0};

/* The module bodies of ccb body b and their shapes. 0, or -1. */
static int make_body(bt_scene* p, int b, const double* v, const peer_options* o, char* msg,
                     size_t n) {
    const ccb_model* m = p->m;
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    bt_body* bb = &p->body[b];
    bb->kind = d.mobilizer;
    bb->id = -1;
    ccb_model_body_coords(m, b, &bb->qoff, &bb->nq, &bb->voff, &bb->nv);
    const char* name = ccb_model_body_name(m, b);
    if (peer_check_body(m, b, "Bullet", msg, n) != 0) {
        return -1;
    }
    const double* I = d.inertia.m;
    if (d.mobilizer == CCB_MOBILIZER_FREE &&
        (I[1] != 0 || I[2] != 0 || I[3] != 0 || I[5] != 0 || I[6] != 0 || I[7] != 0)) {
        snprintf(msg, n,
                 "body '%s': Bullet takes the inertia in principal axes; this body's is not "
                 "diagonal in its frame",
                 name);
        return -1;
    }
    ccb_pose X;
    ccb_twist V;
    ccb_model_body_pose(m, b, 0.0, p->q0, &X);
    ccb_model_body_twist(m, b, 0.0, p->q0, v, &V);
    const int own = d.mobilizer != CCB_MOBILIZER_FIXED;
    int id = -1;
    if (own) {
        double q[4], lin[3] = {1, 1, 1}, ang[3] = {1, 1, 1}, inertia[3] = {I[0], I[4], I[8]};
        quat_of(&X.R, q);
        const double x[3] = {X.p.x, X.p.y, X.p.z};
        int kind = CCB_BT_DYNAMIC;
        if (d.mobilizer == CCB_MOBILIZER_PRESCRIBED) {
            kind = CCB_BT_KINEMATIC;
        } else if (d.mobilizer == CCB_MOBILIZER_PLANAR) { /* x, z and theta about y */
            lin[1] = ang[0] = ang[2] = 0;
            lin[0] = (d.locked & CCB_LOCK_X) ? 0 : 1;
            lin[2] = (d.locked & CCB_LOCK_Z) ? 0 : 1;
            ang[1] = (d.locked & CCB_LOCK_THETA) ? 0 : 1;
            inertia[0] = inertia[1] = inertia[2] = I[4];
            bb->theta = peer_planar_angle(&X.R, 0.0);
            const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
            for (int k = 0, c = 0; k < 3; ++k) {
                if (!(d.locked & lock[k])) {
                    bb->coord[c++] = k;
                }
            }
        }
        if (d.mobilizer == CCB_MOBILIZER_PRISMATIC) { /* a slider to its parent (after finish) */
            ccb_pose X_WP;
            ccb_vec3 origin;
            bb->parent = d.joint.parent;
            if (bb->parent >= 0) {
                ccb_model_body_pose(m, bb->parent, 0.0, p->q0, &X_WP);
            }
            peer_slider_frame(&d, bb->parent >= 0 ? &X_WP : NULL, &bb->axis, &origin);
            p->joints = 1;
        }
        memcpy(bb->quat, q, sizeof q);
        if (d.mobilizer == CCB_MOBILIZER_FREE) { /* ccb's own quaternion, with its sign */
            memcpy(bb->quat, p->q0 + bb->qoff + 3, sizeof bb->quat);
        }
        id = bt->add_body(p->w, kind, d.mass, inertia, x, q, lin, ang);
        bb->id = id;
        p->ccb_of[id] = kind == CCB_BT_DYNAMIC ? b : -1;
        p->nmod = id + 1;
    }
    ccb_vec3 h;
    double mu;
    int first = -1;
    for (int i = 0; i < ccb_model_nshapes(m) && first < 0; ++i) {
        int sb;
        ccb_shape_def s;
        ccb_model_shape_def_get(m, i, &sb, &s);
        first = sb == b ? i : -1;
    }
    if (d.mobilizer == CCB_MOBILIZER_FREE && o->geometry == PEER_NATIVE_BOXES && first >= 0 &&
        peer_bounding_box(m, b, &h, &mu)) {
        ccb_shape_def box = ccb_shape_def_default();
        box.type = CCB_SHAPE_BOX;
        box.half_extents = h;
        const ccb_pose I0 = ccb_pose_translation(ccb_v3(0, 0, 0));
        return add_shape(p, id, &box, 1, &I0, first, msg, n);
    }
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        int sb;
        ccb_shape_def s;
        ccb_model_shape_def_get(m, i, &sb, &s);
        if (sb != b) {
            continue;
        }
        const ccb_pose Xs = own ? s.pose : ccb_pose_compose(&X, &s.pose);
        const int npts = peer_shape_npoints(&s) > 0 ? peer_shape_npoints(&s) : 1;
        for (int k = 0; k < npts; ++k) {
            ccb_shape_def ball = ccb_shape_def_default();
            const ccb_shape_def* sh = &s;
            ccb_pose Xk = Xs;
            if (peer_shape_npoints(&s) > 0) { /* a 1 mm sphere per point (peer.h) */
                ball.type = CCB_SHAPE_SPHERE;
                ball.radius = PEER_POINT_RADIUS;
                sh = &ball;
                Xk = ccb_pose_translation(
                    peer_point_centre(&Xs, peer_shape_point(&s, k), own ? &X.R : NULL));
            }
            int body = id;
            if (!own) { /* a static body of its own for each shape of a fixed body */
                body = bt->add_body(p->w, CCB_BT_STATIC, 0, k_zero3, k_zero3, k_unit_q, k_one3,
                                    k_one3);
                p->ccb_of[body] = -1;
                p->nmod = body + 1;
            }
            if (add_shape(p, body, sh, own, &Xk, i, msg, n) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

static int bt_open(const ccb_model* m, double dt, const peer_options* o, void** out, char* msg,
                   size_t n) {
    *out = NULL;
    if (bt_load(msg, n) != 0) {
        return -1;
    }
    if (o->solver != PEER_SOLVER_DEFAULT && o->solver != PEER_SOLVER_DANTZIG) {
        snprintf(msg, n, "Bullet's solvers here are sequential impulses and MLCP Dantzig");
        return -1;
    }
    bt_scene* p = calloc(1, sizeof *p);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m), nb = ccb_model_nbodies(m);
    /* module bodies: one per moving body, one per shape or contact point of a fixed body */
    size_t nmax = (size_t)nb + 1;
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        int sb;
        ccb_shape_def s;
        ccb_model_shape_def_get(m, i, &sb, &s);
        nmax += s.type == CCB_SHAPE_POINTS ? (size_t)s.npoints : 1;
    }
    double* v = calloc((size_t)nv + 1, sizeof(double));
    if (p == NULL || v == NULL || (p->q0 = calloc((size_t)nq + 1, sizeof(double))) == NULL ||
        (p->body = calloc((size_t)nb + 1, sizeof(bt_body))) == NULL ||
        (p->ccb_of = calloc(nmax, sizeof(int))) == NULL ||
        (p->f_mod = calloc(3 * nmax, sizeof(double))) == NULL ||
        (p->f_body = calloc(3 * (size_t)nb + 1, sizeof(double))) == NULL ||
        peer_loads_init(&p->loads, m) != 0 || ccb_model_initial_state(m, p->q0, v) != CCB_OK) {
        free(v);
        bt_close(p);
        snprintf(msg, n, "out of memory or no initial state");
        return -1;
    }
    p->m = m;
    p->dt = dt;
    p->nb = nb;
    const ccb_vec3 g = ccb_model_gravity(m);
    const double gv[3] = {g.x, g.y, g.z};
    const ccb_bt_callbacks cb = {p, pair_active, pair_material};
    p->w = bt->create(
        gv, o->solver == PEER_SOLVER_DANTZIG ? CCB_BT_MLCP_DANTZIG : CCB_BT_SEQUENTIAL_IMPULSE, dt,
        &cb, msg, n);
    int rc = p->w ? 0 : -1;
    for (int b = 0; b < nb && rc == 0; ++b) {
        rc = make_body(p, b, v, o, msg, n);
    }
    if (rc == 0) {
        rc = bt->finish(p->w, msg, n);
    }
    for (int b = 0; b < nb && rc == 0; ++b) { /* the joints */
        const bt_body* bb = &p->body[b];
        if (bb->kind == CCB_MOBILIZER_PRISMATIC) {
            const double a[3] = {bb->axis.x, bb->axis.y, bb->axis.z};
            rc = bt->add_slider(p->w, bb->id, bb->parent >= 0 ? p->body[bb->parent].id : -1, a, msg,
                                n);
        }
    }
    for (int b = 0; b < nb && rc == 0; ++b) { /* the initial velocities */
        const bt_body* bb = &p->body[b];
        if (bb->kind == CCB_MOBILIZER_FREE || bb->kind == CCB_MOBILIZER_PLANAR ||
            bb->kind == CCB_MOBILIZER_PRISMATIC) {
            ccb_pose X;
            ccb_twist V;
            ccb_model_body_pose(m, b, 0.0, p->q0, &X);
            ccb_model_body_twist(m, b, 0.0, p->q0, v, &V);
            double q[4];
            quat_of(&X.R, q);
            const double x[3] = {X.p.x, X.p.y, X.p.z}, vl[3] = {V.v.x, V.v.y, V.v.z},
                         w[3] = {V.w.x, V.w.y, V.w.z};
            bt->set_state(p->w, bb->id, x, q, vl, w);
        }
    }
    free(v);
    if (rc == 0) {
        rc = set_prescribed(p, 0.0, msg, n);
    }
    if (rc != 0) {
        bt_close(p);
        return -1;
    }
    *out = p;
    return 0;
}

static double bt_time(const void* scene) {
    const bt_scene* p = scene;
    return (double)p->k * p->dt;
}

/* A module body's pose and the velocity of its origin. */
static void module_state(const bt_scene* p, int id, ccb_pose* X, ccb_vec3* v) {
    double x[3], qt[4], vl[3], w[3];
    bt->get_state(p->w, id, x, qt, vl, w);
    X->p = ccb_v3(x[0], x[1], x[2]);
    X->R = ccb_m3_from_quat(qt);
    *v = ccb_v3(vl[0], vl[1], vl[2]);
}

static void bt_state(const void* scene, double* q, double* v) {
    const bt_scene* p = scene;
    memcpy(q, p->q0, (size_t)ccb_model_nq(p->m) * sizeof(double));
    for (int b = 0; b < p->nb; ++b) {
        bt_body* bb = &p->body[b];
        if (bb->kind == CCB_MOBILIZER_PRISMATIC) {
            ccb_body_def d;
            ccb_model_body_def_get(p->m, b, &d);
            ccb_pose X_WB, X_WP;
            ccb_vec3 v_B, v_P = ccb_v3(0, 0, 0);
            module_state(p, bb->id, &X_WB, &v_B);
            if (bb->parent >= 0) { /* its motion now (Bullet holds it at a step's start pose) */
                ccb_twist V_P;
                ccb_model_body_pose(p->m, bb->parent, bt_time(p), p->q0, &X_WP);
                ccb_model_body_twist(p->m, bb->parent, bt_time(p), p->q0, NULL, &V_P);
                v_P = V_P.v;
            }
            peer_slider_state(&d, bb->parent >= 0 ? &X_WP : NULL, v_P, &X_WB, v_B, &q[bb->qoff],
                              &v[bb->voff]);
            continue;
        }
        if (bb->kind != CCB_MOBILIZER_FREE && bb->kind != CCB_MOBILIZER_PLANAR) {
            continue;
        }
        double x[3], qt[4], vl[3], w[3];
        bt->get_state(p->w, bb->id, x, qt, vl, w);
        if (bb->kind == CCB_MOBILIZER_FREE) { /* ccb: (p, q), (omega_W, v_W) */
            const double dot = qt[0] * bb->quat[0] + qt[1] * bb->quat[1] + qt[2] * bb->quat[2] +
                               qt[3] * bb->quat[3];
            for (int k = 0; k < 4; ++k) { /* the sign that continues the last state's */
                qt[k] = dot < 0 ? -qt[k] : qt[k];
                bb->quat[k] = qt[k];
            }
            const double s[7] = {x[0], x[1], x[2], qt[0], qt[1], qt[2], qt[3]};
            memcpy(q + bb->qoff, s, sizeof s);
            const double u[6] = {w[0], w[1], w[2], vl[0], vl[1], vl[2]};
            memcpy(v + bb->voff, u, sizeof u);
        } else {
            const ccb_mat3 R = ccb_m3_from_quat(qt);
            bb->theta = peer_planar_angle(&R, bb->theta);
            const double xs[3] = {x[0], x[2], bb->theta}, us[3] = {vl[0], vl[2], w[1]};
            for (int k = 0; k < bb->nv; ++k) {
                q[bb->qoff + k] = xs[bb->coord[k]];
                v[bb->voff + k] = us[bb->coord[k]];
            }
        }
    }
}

static int bt_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    bt_scene* p = scene;
    memset(info, 0, sizeof *info);
    info->stop = -1;
    if (p->joints) { /* the joints' actuation, spring and damping, explicit, at the step's start
                      * (before the parents move on) */
        bt_state(p, p->loads.q, p->loads.v);
        for (int b = 0; b < p->nb; ++b) {
            const bt_body* bb = &p->body[b];
            if (bb->kind == CCB_MOBILIZER_PRISMATIC) {
                ccb_body_def d;
                ccb_model_body_def_get(p->m, b, &d);
                const double f =
                    peer_joint_force(&d, bt_time(p), p->loads.q[bb->qoff], p->loads.v[bb->voff], 1);
                const double fa[3] = {f * bb->axis.x, f * bb->axis.y, f * bb->axis.z},
                             z[3] = {0, 0, 0};
                bt->add_load(p->w, bb->id, fa, z);
            }
        }
    }
    if (p->loads.any) { /* at the step's start, held over it (peer_loads) */
        bt_state(p, p->loads.q, p->loads.v);
        peer_loads_eval(&p->loads, p->m, bt_time(p));
        for (int b = 0; b < p->nb; ++b) {
            const bt_body* bb = &p->body[b];
            if (bb->kind == CCB_MOBILIZER_FREE || bb->kind == CCB_MOBILIZER_PLANAR ||
                bb->kind == CCB_MOBILIZER_PRISMATIC) {
                bt->add_load(p->w, bb->id, p->loads.w + 6 * b, p->loads.w + 6 * b + 3);
            }
        }
    }
    if (set_prescribed(p, bt_time(p), msg, n) != 0) {
        return -1;
    }
    ccb_bt_stats st;
    bt->step(p->w, &st, forces ? p->f_mod : NULL);
    p->k++;
    info->iterations = st.iterations;
    info->ncon = st.ncon;
    info->npen = st.npen;
    info->pen_mean = st.pen_mean;
    info->pen_max = st.pen_max;
    if (forces) {
        info->fn_sum = st.fn_sum;
        memset(p->f_body, 0, 3 * (size_t)p->nb * sizeof(double));
        for (int i = 0; i < p->nmod; ++i) {
            const int b = p->ccb_of[i];
            for (int k = 0; k < 3 && b >= 0; ++k) {
                p->f_body[3 * b + k] += p->f_mod[3 * i + k];
            }
        }
        info->f_body = p->f_body;
    }
    int ok = 1;
    for (int b = 0; b < p->nb; ++b) {
        if (p->body[b].kind == CCB_MOBILIZER_FREE || p->body[b].kind == CCB_MOBILIZER_PLANAR ||
            p->body[b].kind == CCB_MOBILIZER_PRISMATIC) {
            double x[3], qt[4], vl[3], w[3];
            bt->get_state(p->w, p->body[b].id, x, qt, vl, w);
            for (int k = 0; k < 3; ++k) {
                ok &= isfinite(x[k]) && isfinite(vl[k]) && isfinite(w[k]) && isfinite(qt[k]);
            }
            ok &= isfinite(qt[3]);
        }
    }
    if (!ok) {
        snprintf(msg, n, "Bullet: the state became non-finite at t = %g s", bt_time(p));
        return 1;
    }
    return 0;
}

static int bt_built(void) {
    return 1;
}

static const char* bt_absent(void) {
    static char why[PATH_MAX + 200];
    return bt_load(why, sizeof why) == 0 ? NULL : why;
}

static const char* bt_version(void) {
    return bt_load(NULL, 0) == 0 ? bt->version() : NULL;
}

#else /* without Bullet: nothing opens (peer.h, peer_absent_*) */

PEER_ABSENT_ENGINE(bt, "this ccb was built without Bullet (install libbullet-dev and rebuild)")
#define bt_open peer_absent_open
#define bt_state peer_absent_state
#define bt_step peer_absent_step
#define bt_time peer_absent_time
#define bt_close peer_absent_close

#endif

static void bt_describe(double dt, const peer_options* o, peer_line_fn line, void* user) {
    (void)dt;
    line("peer",
         o->solver == PEER_SOLVER_DANTZIG
             ? "Bullet 3.24, double precision (btMLCPSolver with btDantzigSolver)"
             : "Bullet 3.24, double precision (btSequentialImpulseConstraintSolver, 10 "
               "iterations, Bullet's default)",
         user);
    line("stiffness",
         "each contact point's stiffness k and damping k tau_d of ccb's pair "
         "(m_combinedContactStiffness1, m_combinedContactDamping1 with "
         "BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING, the per-point form of "
         "btCollisionObject::setContactStiffnessAndDamping): ERP = h k/(h k + kd), CFM = 1/(h k "
         "+ kd); a rigid pair keeps Bullet's hard contact",
         user);
    line("friction", "mu of ccb's pair rule on Bullet's two friction directions; restitution 0",
         user);
    line("margin",
         "Bullet's defaults: collision margin 0.04 m (inside a box's extents), contact "
         "breaking threshold 0.02 m",
         user);
    line("geometry",
         o->geometry == PEER_NATIVE_BOXES
             ? "a free body of >= 8 spheres as the box that bounds them"
             : "every ccb shape as it is (a body's shapes as one compound); a contact point as "
               "a 1 mm sphere touching it from above",
         user);
    line("bodies",
         "free bodies in principal axes; planar bodies by linear factor (1, 0, 1) and angular "
         "factor (0, 1, 0); prescribed translations as kinematic bodies moving at their "
         "velocity at the step's end; no sleeping",
         user);
    line("joints and loads",
         "a prismatic joint on the world or a prescribed body as a btSliderConstraint; its "
         "actuation, spring and damping (explicit) and a body's applied load as forces "
         "(applyCentralForce, applyTorque) from the state at the step's start",
         user);
}

const peer_engine peer_engine_bullet = {"Bullet",  "bullet",   "libbullet-dev", bt_built,
                                        bt_absent, bt_version, bt_open,         bt_state,
                                        bt_step,   bt_time,    bt_close,        bt_describe};
