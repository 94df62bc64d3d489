/* mujoco_peer — the MuJoCo engine of the peers (peer.h): a ccb scene translated into MuJoCo's
 * MJCF in memory (nothing is written) and stepped by mj_step.
 *
 * MuJoCo settings (its documented defaults unless stated): Newton solver (or the variant's PGS or
 * CG), elliptic friction cones (the convex models' cone; or pyramidal), condim 3, tolerance 1e-8, at most 100 iterations, semi-implicit
 * Euler, no contact margin (MuJoCo's default; ccb's speculative 10 cm margin has no counterpart).
 * A body's applied load goes into xfrc_applied (force and torque at its centre of mass, world
 * frame), evaluated at the start of every step (peer_loads).
 * Contact stiffness: MuJoCo's soft constraints are set by a time constant and a damping ratio
 * (solref), not by k. A spring of k = 1e7 N/m on a 1 kg object has a period of 2 ms, the step
 * itself, which MuJoCo's explicit-in-the-constraint-force treatment cannot resolve; the mapping
 * used is MuJoCo's own guidance, solref = (2 dt, 1): the stiffest time constant it integrates
 * stably, critically damped. Friction: each geom carries its shape's mu (MuJoCo takes the
 * larger of a pair's; ccb's pair rule gives the same value for equal coefficients). */
#define _POSIX_C_SOURCE 200809L
#include "peer.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/math.h"
#include "model_internal.h"

#ifdef CCB_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include "peer_dl.h"

/* MuJoCo's functions, opened at the first use of the peer (peer_dl.h); below, each name calls
 * through its pointer */
/* clang-format off */
#define MJ_FUNCTIONS(X)    \
    X(mj_contactForce)     \
    X(mj_defaultVFS)       \
    X(mj_deleteData)       \
    X(mj_deleteModel)      \
    X(mj_deleteVFS)        \
    X(mj_findFileVFS)      \
    X(mj_forward)          \
    X(mj_loadXML)          \
    X(mj_makeData)         \
    X(mj_makeEmptyFileVFS) \
    X(mj_name2id)          \
    X(mj_step)             \
    X(mj_version)          \
    X(mju_user_warning)
/* clang-format on */
#define MJ_POINTER(f) __typeof__(f)* f;
#define MJ_ENTRY(f) {#f, &mjf.f},
static struct { MJ_FUNCTIONS(MJ_POINTER) } mjf;
static const peer_dl_sym mj_syms[] = {MJ_FUNCTIONS(MJ_ENTRY){NULL, NULL}};
static peer_dl mj_lib = PEER_DL_INIT(CCB_MUJOCO_SONAME, mj_syms);
#define mj_contactForce (*mjf.mj_contactForce)
#define mj_defaultVFS (*mjf.mj_defaultVFS)
#define mj_deleteData (*mjf.mj_deleteData)
#define mj_deleteModel (*mjf.mj_deleteModel)
#define mj_deleteVFS (*mjf.mj_deleteVFS)
#define mj_findFileVFS (*mjf.mj_findFileVFS)
#define mj_forward (*mjf.mj_forward)
#define mj_loadXML (*mjf.mj_loadXML)
#define mj_makeData (*mjf.mj_makeData)
#define mj_makeEmptyFileVFS (*mjf.mj_makeEmptyFileVFS)
#define mj_name2id (*mjf.mj_name2id)
#define mj_step (*mjf.mj_step)
#define mj_version (*mjf.mj_version)
/* a variable, not a function: the handler MuJoCo calls with a warning */
#define mju_user_warning (*mjf.mju_user_warning)

/* MuJoCo's warnings: without a handler it prints them to stdout and appends them to
 * MUJOCO_LOG.TXT in the working directory (a file ccb did not create). With this one it does
 * neither; a step reads what happened from mjData.warning (mujoco_step). */
static void mj_warning_quiet(const char* msg) {
    (void)msg;
}
static pthread_once_t mj_once = PTHREAD_ONCE_INIT;
static void mj_init(void) {
    mju_user_warning = mj_warning_quiet;
}

typedef struct text {
    char* s;
    size_t len, cap;
    int oom;
} text;

static void put(text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text* t, const char* fmt, ...) {
    if (t->oom) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int k = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = 1;
            return;
        }
        if (t->s && t->len + (size_t)k < t->cap) {
            t->len += (size_t)k;
            return;
        }
        const size_t cap = 2 * (t->cap + (size_t)k + 256);
        char* s = realloc(t->s, cap);
        if (s == NULL) {
            t->oom = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* pos="x y z" quat="w x y z" of a pose */
static void put_pose(text* t, const ccb_pose* X) {
    double q[4];
    ccb_quat_from_m3(&X->R, q);
    put(t, " pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"", X->p.x, X->p.y, X->p.z,
        q[0], q[1], q[2], q[3]);
}

static int put_geom(text* t, const ccb_shape_def* s, const ccb_pose* X, char* msg, size_t n) {
    switch (s->type) {
    case CCB_SHAPE_SPHERE: put(t, "<geom type=\"sphere\" size=\"%.17g\"", s->radius); break;
    case CCB_SHAPE_BOX:
        put(t, "<geom type=\"box\" size=\"%.17g %.17g %.17g\"", s->half_extents.x,
            s->half_extents.y, s->half_extents.z);
        break;
    case CCB_SHAPE_HALFSPACE: put(t, "<geom type=\"plane\" size=\"0 0 1\""); break;
    case CCB_SHAPE_CAPSULE: { /* MuJoCo's capsule lies along its z axis, ccb's along x */
        put(t, "<geom type=\"capsule\" size=\"%.17g %.17g\"", s->radius, s->half_length);
        ccb_pose Y = *X;
        const ccb_mat3 Ry = ccb_m3_rot_y(0.5 * CCB_PI); /* e_z -> e_x */
        Y.R = ccb_m3_mul(&X->R, &Ry);
        put_pose(t, &Y);
        put(t, " friction=\"%.17g 0.005 0.0001\"/>\n", s->material.mu);
        return 0;
    }
    default:
        snprintf(msg, n,
                 "the MuJoCo peer translates spheres, boxes, capsules and half-spaces, not %s",
                 s->type == CCB_SHAPE_HYDRO    ? "hydroelastic meshes"
                 : s->type == CCB_SHAPE_POINTS ? "point sets"
                                               : "this shape type");
        return -1;
    }
    put_pose(t, X);
    put(t, " friction=\"%.17g 0.005 0.0001\"/>\n", s->material.mu);
    return 0;
}

/* Mass of a body of prescribed motion: its state is reset every step; contact impulses change
 * its velocity by less than 1e-6 of a moving body's between resets. */
#define PEER_PRESCRIBED_MASS 1e6

static const char* const k_slide[3] = {"px", "py", "pz"};
static const char* const k_planar[3] = {"x", "z", "theta"};

/* contact points: spheres of PEER_POINT_RADIUS (R0: the frame's rotation at t = 0, NULL: world) */
static void put_points(text* t, const ccb_shape_def* s, const ccb_pose* X, const ccb_mat3* R0) {
    for (int i = 0; i < peer_shape_npoints(s); ++i) {
        const ccb_vec3 p = peer_point_centre(X, peer_shape_point(s, i), R0);
        put(t,
            "<geom type=\"sphere\" size=\"%.17g\" pos=\"%.17g %.17g %.17g\" friction=\"%.17g "
            "0.005 0.0001\"/>\n",
            PEER_POINT_RADIUS, p.x, p.y, p.z, s->material.mu);
    }
}

/* A half-space on a moving body (MuJoCo's planes are static): a slab (peer.h) */
static void put_slab(text* t, const ccb_shape_def* s, const ccb_pose* X) {
    const ccb_pose Y = peer_slab_pose(X);
    put(t, "<geom type=\"box\" size=\"%.17g %.17g %.17g\"", PEER_SLAB_HALF, PEER_SLAB_HALF,
        PEER_SLAB_HALF);
    put_pose(t, &Y);
    put(t, " friction=\"%.17g 0.005 0.0001\"/>\n", s->material.mu);
}

/* The lightest moving body [kg] and the stiffest finite contact stiffness [N/m] of the model. */
static void literal_scales(const ccb_model* m, double* mass, double* k) {
    *mass = INFINITY;
    *k = 0;
    for (int b = 0; b < ccb_model_nbodies(m); ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        if (d.mobilizer == CCB_MOBILIZER_FREE || d.mobilizer == CCB_MOBILIZER_PLANAR) {
            *mass = fmin(*mass, d.mass);
        }
    }
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        ccb_shape_def s;
        int b;
        ccb_model_shape_def_get(m, i, &b, &s);
        if (isfinite(s.material.k)) {
            *k = fmax(*k, s.material.k);
        }
    }
}

/* One body of the MJCF document and, inside it, the bodies on a joint to it; X_E: the pose of the
 * enclosing MJCF body at t = 0 (NULL: the world body). 0, or -1 with a message. */
static int put_body(text* t, const ccb_model* m, int b, const peer_options* o, const double* q,
                    const ccb_pose* X_E, char* msg, size_t n) {
    const int ns = ccb_model_nshapes(m);
    int rc = 0;
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    ccb_pose X;
    ccb_model_body_pose(m, b, 0.0, q, &X);
    const int planar = d.mobilizer == CCB_MOBILIZER_PLANAR;
    const int prescribed = d.mobilizer == CCB_MOBILIZER_PRESCRIBED;
    const int own = d.mobilizer != CCB_MOBILIZER_FIXED; /* a body of its own in MJCF */
    if (own) {
        ccb_pose Xr = X; /* in the enclosing body's frame */
        if (X_E) {
            const ccb_mat3 RT = ccb_m3_transpose(&X_E->R);
            Xr.R = ccb_m3_mul(&RT, &X.R);
            Xr.p = ccb_m3_mul_v(&RT, ccb_v3_sub(X.p, X_E->p));
        }
        put(t, "<body name=\"%s\"", ccb_model_body_name(m, b));
        put_pose(t, &Xr);
        put(t, ">\n");
        const double* I = d.inertia.m;
        const double* R = X.R.m;
        if (prescribed) { /* slides along world x, y, z (axes R^T e_k in the body frame) */
            for (int k = 0; k < 3; ++k) {
                put(t, "<joint name=\"%s_%s\" type=\"slide\" axis=\"%.17g %.17g %.17g\"/>\n",
                    ccb_model_body_name(m, b), k_slide[k], R[3 * k], R[3 * k + 1], R[3 * k + 2]);
            }
            put(t, "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"1 1 1\"/>\n",
                PEER_PRESCRIBED_MASS);
        } else if (planar) { /* slides along world x and z, hinge about y */
            const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
            for (int k = 0; k < 3; ++k) {
                if (d.locked & lock[k]) {
                    continue;
                }
                if (k < 2) { /* R^T e_x or R^T e_z */
                    const int c = k == 0 ? 0 : 2;
                    put(t,
                        "<joint name=\"%s_%s\" type=\"slide\" axis=\"%.17g %.17g %.17g\" "
                        "damping=\"%.17g\"/>\n",
                        ccb_model_body_name(m, b), k_planar[k], R[3 * c], R[3 * c + 1],
                        R[3 * c + 2], d.damping[k]);
                } else {
                    put(t,
                        "<joint name=\"%s_%s\" type=\"hinge\" axis=\"0 1 0\" "
                        "damping=\"%.17g\"/>\n",
                        ccb_model_body_name(m, b), k_planar[k], d.damping[k]);
                }
            }
            put(t,
                "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g "
                "%.17g\"/>\n",
                d.mass, I[4], I[4], I[4]);
        } else if (d.mobilizer == CCB_MOBILIZER_PRISMATIC) {
            /* a slide along the axis in the body frame, R_BM a (formulation-convex §17.2); its
             * qpos is q - q(0); MuJoCo's Euler integrator takes joint damping implicitly, as
             * ccb, and the spring explicitly, as ccb */
            const ccb_vec3 a = ccb_m3_mul_v(&d.joint.X_BM.R, d.joint.axis);
            int qoff, nqb, voff, nvb;
            ccb_model_body_coords(m, b, &qoff, &nqb, &voff, &nvb);
            put(t,
                "<joint name=\"%s_slide\" type=\"slide\" axis=\"%.17g %.17g %.17g\" "
                "damping=\"%.17g\" stiffness=\"%.17g\" springref=\"%.17g\"/>\n",
                ccb_model_body_name(m, b), a.x, a.y, a.z, d.joint.damping, d.joint.stiffness,
                d.joint.q_rest - q[qoff]);
            put(t,
                "<inertial pos=\"0 0 0\" mass=\"%.17g\" fullinertia=\"%.17g %.17g %.17g %.17g "
                "%.17g %.17g\"/>\n",
                d.mass, I[0], I[4], I[8], I[1], I[2], I[5]);
        } else {
            put(t,
                "<freejoint name=\"%s_free\"/>\n<inertial pos=\"0 0 0\" mass=\"%.17g\" "
                "fullinertia=\"%.17g %.17g %.17g %.17g %.17g %.17g\"/>\n",
                ccb_model_body_name(m, b), d.mass, I[0], I[4], I[8], I[1], I[2], I[5]);
        }
    }
    ccb_vec3 h;
    double mu = 0;
    if (d.mobilizer == CCB_MOBILIZER_FREE && o->geometry == PEER_NATIVE_BOXES &&
        peer_bounding_box(m, b, &h, &mu)) {
        put(t,
            "<geom type=\"box\" size=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 "
            "0.0001\"/>\n",
            h.x, h.y, h.z, mu);
    } else {
        for (int i = 0; i < ns && rc == 0; ++i) {
            ccb_shape_def s;
            int sb;
            ccb_model_shape_def_get(m, i, &sb, &s);
            if (sb != b) {
                continue;
            }
            /* world geoms in the world frame, body geoms in the body frame */
            const ccb_pose Xs = own ? s.pose : ccb_pose_compose(&X, &s.pose);
            if (peer_shape_npoints(&s) > 0) {
                put_points(t, &s, &Xs, own ? &X.R : NULL);
            } else if (s.type == CCB_SHAPE_HALFSPACE && own) {
                put_slab(t, &s, &Xs);
            } else {
                rc = put_geom(t, &s, &Xs, msg, n);
            }
        }
    }
    for (int c = b + 1; c < ccb_model_nbodies(m) && rc == 0 && own; ++c) {
        ccb_body_def dc; /* the bodies on a joint to this one (peer_check_joint: prismatic) */
        ccb_model_body_def_get(m, c, &dc);
        if (dc.mobilizer == CCB_MOBILIZER_PRISMATIC && dc.joint.parent == b) {
            rc = put_body(t, m, c, o, q, &X, msg, n);
        }
    }
    if (own) {
        put(t, "</body>\n");
    }
    return rc;
}

static int jointed(const ccb_model* m, int b) {
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    return d.mobilizer == CCB_MOBILIZER_PRISMATIC || d.mobilizer == CCB_MOBILIZER_REVOLUTE;
}

/* The MJCF body of a ccb body: its own, or the world's for a fixed body. */
static const char* mj_body_name(const ccb_model* m, int b) {
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    return d.mobilizer == CCB_MOBILIZER_FIXED ? "world" : ccb_model_body_name(m, b);
}

/* 1 if ccb's pair rule has a pair of shapes of bodies a and b (or either has none). */
static int bodies_touch(const ccb_model* m, int a, int b) {
    const int ns = ccb_model_nshapes(m);
    int na = 0, nb = 0;
    for (int i = 0; i < ns; ++i) {
        int bi;
        ccb_shape_def si;
        ccb_model_shape_def_get(m, i, &bi, &si);
        na += bi == a;
        nb += bi == b;
        for (int j = 0; j < ns && bi == a; ++j) {
            int bj;
            ccb_shape_def sj;
            ccb_model_shape_def_get(m, j, &bj, &sj);
            if (bj == b && ccb_shape_pair_active(m, i, j)) {
                return 1;
            }
        }
    }
    return na == 0 || nb == 0;
}

/* The MJCF document of a ccb model at configuration q: options and contact defaults, the world
 * body with every body (its joints by mobilizer, its inertia) and shape, and the contact
 * exclusions. The text (malloc'd), or NULL with a message. */
static char* mjcf(const ccb_model* m, double dt, const peer_options* o, const double* q, char* msg,
                  size_t n) {
    text t = {0};
    const ccb_vec3 g = ccb_model_gravity(m);
    for (int b = 0; b < ccb_model_nbodies(m); ++b) {
        if (peer_check_joint(m, b, "MuJoCo", msg, n) != 0) {
            return NULL;
        }
    }
    put(&t, "<mujoco model=\"ccb\">\n");
    const char* solver = o->solver == PEER_SOLVER_PGS  ? "PGS"
                         : o->solver == PEER_SOLVER_CG ? "CG"
                                                       : "Newton";
    put(&t,
        "<option timestep=\"%.17g\" gravity=\"%.17g %.17g %.17g\" solver=\"%s\" "
        "cone=\"%s\" iterations=\"100\" tolerance=\"1e-8\" integrator=\"Euler\">"
        "<flag filterparent=\"disable\"/></option>\n",
        dt, g.x, g.y, g.z, solver, o->solver == PEER_SOLVER_PYRAMIDAL ? "pyramidal" : "elliptic");
    /* buffers for the contacts the scene can have (MuJoCo zeroes its whole arena in mj_makeData:
     * 1000 contacts for the sphere's one pair cost 0.9 s a run); 1000 contacts at most */
    int ngeom = 0;
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        ccb_shape_def s;
        int b;
        ccb_model_shape_def_get(m, i, &b, &s);
        ngeom += s.type == CCB_SHAPE_POINTS ? s.npoints : 1;
    }
    const int ncon = ngeom * 8 + 16 < 1000 ? ngeom * 8 + 16 : 1000;
    put(&t, "<size njmax=\"%d\" nconmax=\"%d\"/>\n", 4 * ncon, ncon); /* pyramidal: 4 rows */
    if (o->stiffness == PEER_STIFF_LITERAL) {
        double mass, k;
        literal_scales(m, &mass, &k);
        if (!(k > 0) || !isfinite(mass)) {
            snprintf(msg, n,
                     "the literal stiffness mapping needs a compliant shape and a moving "
                     "body");
            free(t.s);
            return NULL;
        }
        put(&t, "<default><geom condim=\"3\" solref=\"%.17g %.17g\"/></default>\n", -k / mass,
            -2.0 * sqrt(k / mass));
    } else {
        put(&t, "<default><geom condim=\"3\" solref=\"%.17g 1\"/></default>\n", 2 * dt);
    }
    put(&t, "<worldbody>\n");
    const int nb = ccb_model_nbodies(m);
    /* the bodies on a joint are written inside their parent's (put_body), the others here */
    int rc = 0;
    for (int b = 0; b < nb && rc == 0; ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        if (!((d.mobilizer == CCB_MOBILIZER_PRISMATIC || d.mobilizer == CCB_MOBILIZER_REVOLUTE) &&
              d.joint.parent >= 0)) {
            rc = put_body(&t, m, b, o, q, NULL, msg, n);
        }
    }
    put(&t, "</worldbody>\n<contact>\n");
    /* bodies that do not move under forces do not touch each other (as in ccb) */
    for (int a = 0; a < nb; ++a) {
        ccb_body_def da;
        ccb_model_body_def_get(m, a, &da);
        if (da.mobilizer != CCB_MOBILIZER_PRESCRIBED) {
            continue;
        }
        put(&t, "<exclude body1=\"world\" body2=\"%s\"/>\n", ccb_model_body_name(m, a));
        for (int b = a + 1; b < nb; ++b) {
            ccb_body_def db;
            ccb_model_body_def_get(m, b, &db);
            if (db.mobilizer == CCB_MOBILIZER_PRESCRIBED) {
                put(&t, "<exclude body1=\"%s\" body2=\"%s\"/>\n", ccb_model_body_name(m, a),
                    ccb_model_body_name(m, b));
            }
        }
    }
    /* a body on a joint and another body: excluded where ccb's pair rule has no pair of their
     * shapes (a filtered pair; MuJoCo's own filter of a parent and its child is off, as ccb has
     * none) */
    for (int a = 0; a < nb; ++a) {
        for (int b = a + 1; b < nb; ++b) {
            if ((jointed(m, a) || jointed(m, b)) && !bodies_touch(m, a, b)) {
                put(&t, "<exclude body1=\"%s\" body2=\"%s\"/>\n", mj_body_name(m, a),
                    mj_body_name(m, b));
            }
        }
    }
    put(&t, "</contact>\n</mujoco>\n");
    if (rc != 0 || t.oom) {
        if (t.oom) {
            snprintf(msg, n, "out of memory for the MJCF text");
        }
        free(t.s);
        return NULL;
    }
    return t.s;
}

/* Where a ccb body's coordinates live in MuJoCo. */
typedef struct peer_body {
    ccb_mobilizer kind;
    int qoff, nq, voff, nv; /* ccb */
    int qadr[3], dadr[3];   /* MuJoCo: per ccb coordinate (planar, prescribed slides); free:
                               [0] is the free joint's; prismatic: [0] is its slide's */
    ccb_vec3 p0;            /* prescribed: initial position */
    ccb_mat3 R0;            /* prescribed: the orientation it must keep */
    ccb_vec3 v_set;         /* prescribed: the velocity set for the coming step */
    ccb_vec3 v_stepped;     /* prescribed: the velocity of the last step (at open: at t = 0) */
    ccb_vec3 axis;          /* prismatic: the joint axis in the world (its parent translates) */
    double mass;
} peer_body;

typedef struct peer_mujoco {
    const ccb_model* m;
    mjModel* mm;
    mjData* d;
    double dt;
    double* q0; /* ccb initial state: the planar coordinates' origins */
    int nb;
    peer_body* body;
    ccb_vec3 g;
    int* ccb_body;  /* MuJoCo body id -> ccb body (-1: the world, or a body that does not move) */
    double* f_body; /* 3 per ccb body */
    int* mj_body;   /* ccb body -> MuJoCo body id (-1: the world) */
    int joints;     /* 1 if a body is on a joint */
    peer_loads loads;
} peer_mujoco;

static int mujoco_built(void) {
    return 1;
}

/* Opens MuJoCo's library and checks that it is the version of the header ccb was built with
 * (MuJoCo's own rule: mj_version() == mjVERSION_HEADER; its structures change between
 * versions). 0, or -1 with the reason. */
static int mj_load(char* msg, size_t n) {
    if (peer_dl_open(&mj_lib, msg, n) != 0) {
        return -1;
    }
    if (mj_version() != mjVERSION_HEADER) {
        if (msg && n > 0) {
            snprintf(msg, n, "%s is MuJoCo %d, ccb was built with the header of %d: rebuild ccb",
                     CCB_MUJOCO_SONAME, mj_version(), mjVERSION_HEADER);
        }
        return -1;
    }
    pthread_once(&mj_once, mj_init);
    return 0;
}

static const char* mujoco_absent(void) {
    static char why[400];
    return mj_load(why, sizeof why) == 0 ? NULL : why;
}

static const char* mujoco_version(void) {
    static char v[32];
    if (mj_load(NULL, 0) != 0) {
        return NULL;
    }
    snprintf(v, sizeof v, "%d.%d.%d", mj_version() / 100, (mj_version() / 10) % 10,
             mj_version() % 10);
    return v;
}

static int joint_index(const mjModel* mm, const char* body, const char* suffix) {
    char name[128];
    snprintf(name, sizeof name, "%s_%s", body, suffix);
    return mj_name2id(mm, mjOBJ_JOINT, name);
}

/* Prescribed bodies over the step from t: the force that cancels gravity on them, their velocity
 * at the step's end t + dt, and the position from which that velocity reaches their position at
 * t + dt (semi-implicit Euler). ccb evaluates a body of prescribed motion at the step's end too
 * (lib/src/problem.c), so the contact sees the same belt velocity; at its start instead, a sticking
 * box would lag the belt by its acceleration times dt. */
static int set_prescribed(peer_mujoco* p, double t, char* msg, size_t n) {
    for (int b = 0; b < p->nb; ++b) {
        const peer_body* pb = &p->body[b];
        if (pb->kind != CCB_MOBILIZER_PRESCRIBED) {
            continue;
        }
        ccb_pose X;
        ccb_twist V;
        const double t1 = t + p->dt;
        ccb_model_body_pose(p->m, b, t1, p->q0, &X);
        ccb_model_body_twist(p->m, b, t1, p->q0, NULL, &V);
        X.p = ccb_v3_sub(X.p, ccb_v3_scale(p->dt, V.v));
        double dR = fabs(V.w.x) + fabs(V.w.y) + fabs(V.w.z);
        for (int k = 0; k < 9; ++k) {
            dR += fabs(X.R.m[k] - pb->R0.m[k]);
        }
        if (dR > 1e-12) {
            snprintf(msg, n,
                     "the MuJoCo peer translates prescribed translations; body '%s' "
                     "rotates at t = %g s",
                     ccb_model_body_name(p->m, b), t);
            return -1;
        }
        const double dp[3] = {X.p.x - pb->p0.x, X.p.y - pb->p0.y, X.p.z - pb->p0.z};
        const double vel[3] = {V.v.x, V.v.y, V.v.z}, gk[3] = {p->g.x, p->g.y, p->g.z};
        for (int k = 0; k < 3; ++k) {
            p->d->qpos[pb->qadr[k]] = dp[k];
            p->d->qvel[pb->dadr[k]] = vel[k];
            p->d->qfrc_applied[pb->dadr[k]] = -PEER_PRESCRIBED_MASS * gk[k];
        }
        ((peer_body*)pb)->v_set = V.v;
    }
    return 0;
}

static void mujoco_close(void* scene) {
    peer_mujoco* p = scene;
    if (p == NULL) {
        return;
    }
    if (p->d) {
        mj_deleteData(p->d);
    }
    if (p->mm) {
        mj_deleteModel(p->mm);
    }
    free(p->q0);
    free(p->body);
    free(p->ccb_body);
    free(p->f_body);
    free(p->mj_body);
    peer_loads_free(&p->loads);
    free(p);
}

static mjModel* compile(const char* xml, char* msg, size_t n) {
    mjVFS* vfs = malloc(sizeof *vfs);
    if (vfs == NULL) {
        snprintf(msg, n, "out of memory");
        return NULL;
    }
    mj_defaultVFS(vfs);
    const int len = (int)strlen(xml);
    if (mj_makeEmptyFileVFS(vfs, "ccb_scene.xml", len) != 0) {
        free(vfs);
        snprintf(msg, n, "MuJoCo: cannot create the in-memory scene file");
        return NULL;
    }
    memcpy(vfs->filedata[mj_findFileVFS(vfs, "ccb_scene.xml")], xml, (size_t)len);
    char err[1000] = "";
    mjModel* mm = mj_loadXML("ccb_scene.xml", vfs, err, sizeof err);
    mj_deleteVFS(vfs);
    free(vfs);
    if (mm == NULL) {
        snprintf(msg, n, "MuJoCo rejected the scene: %s", err);
    }
    return mm;
}

static int mujoco_open(const ccb_model* m, double dt, const peer_options* o, void** out, char* msg,
                       size_t n) {
    *out = NULL;
    if (mj_load(msg, n) != 0) {
        return -1;
    }
    if (o->solver == PEER_SOLVER_QUICKSTEP || o->solver == PEER_SOLVER_DANTZIG) {
        snprintf(msg, n, "MuJoCo has no %s solver",
                 o->solver == PEER_SOLVER_QUICKSTEP ? "QuickStep" : "Dantzig MLCP");
        return -1;
    }
    peer_mujoco* p = calloc(1, sizeof *p);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m), nb = ccb_model_nbodies(m);
    double* v = calloc((size_t)nv + 1, sizeof(double));
    if (p == NULL || v == NULL || (p->q0 = calloc((size_t)nq + 1, sizeof(double))) == NULL ||
        (p->body = calloc((size_t)nb + 1, sizeof(peer_body))) == NULL ||
        ccb_model_initial_state(m, p->q0, v) != CCB_OK) {
        free(v);
        mujoco_close(p);
        snprintf(msg, n, "out of memory or no initial state");
        return -1;
    }
    p->m = m;
    p->dt = dt;
    p->nb = nb;
    p->g = ccb_model_gravity(m);
    char* xml = mjcf(m, dt, o, p->q0, msg, n);
    if (xml == NULL || (p->mm = compile(xml, msg, n)) == NULL) {
        free(xml);
        free(v);
        mujoco_close(p);
        return -1;
    }
    free(xml);
    if ((p->d = mj_makeData(p->mm)) == NULL) {
        free(v);
        mujoco_close(p);
        snprintf(msg, n, "MuJoCo: out of memory for mjData");
        return -1;
    }
    /* the map of coordinates, and the initial velocities */
    for (int b = 0; b < nb; ++b) {
        peer_body* pb = &p->body[b];
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        pb->kind = d.mobilizer;
        pb->mass = d.mass;
        p->joints |= d.mobilizer == CCB_MOBILIZER_PRISMATIC;
        ccb_model_body_coords(m, b, &pb->qoff, &pb->nq, &pb->voff, &pb->nv);
        const char* name = ccb_model_body_name(m, b);
        ccb_pose X;
        ccb_twist V;
        ccb_model_body_pose(m, b, 0.0, p->q0, &X);
        ccb_model_body_twist(m, b, 0.0, p->q0, v, &V);
        if (pb->kind == CCB_MOBILIZER_PRESCRIBED) {
            pb->p0 = X.p;
            pb->R0 = X.R;
            pb->v_stepped = V.v;
            for (int k = 0; k < 3; ++k) {
                const int j = joint_index(p->mm, name, k_slide[k]);
                pb->qadr[k] = p->mm->jnt_qposadr[j];
                pb->dadr[k] = p->mm->jnt_dofadr[j];
            }
        } else if (pb->kind == CCB_MOBILIZER_PLANAR) {
            const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
            for (int k = 0, c = 0; k < 3;
                 ++k) { /* ccb's coordinates: the unlocked ones, in order */
                if (d.locked & lock[k]) {
                    continue;
                }
                const int j = joint_index(p->mm, name, k_planar[k]);
                pb->qadr[c] = p->mm->jnt_qposadr[j];
                pb->dadr[c] = p->mm->jnt_dofadr[j];
                p->d->qvel[pb->dadr[c]] = v[pb->voff + c];
                c++;
            }
        } else if (pb->kind == CCB_MOBILIZER_PRISMATIC) {
            const int j = joint_index(p->mm, name, "slide");
            pb->qadr[0] = p->mm->jnt_qposadr[j];
            pb->dadr[0] = p->mm->jnt_dofadr[j];
            p->d->qvel[pb->dadr[0]] = v[pb->voff];
            ccb_pose X_WP;
            ccb_vec3 origin;
            if (d.joint.parent >= 0) {
                ccb_model_body_pose(m, d.joint.parent, 0.0, p->q0, &X_WP);
            }
            peer_slider_frame(&d, d.joint.parent >= 0 ? &X_WP : NULL, &pb->axis, &origin);
        } else if (pb->kind == CCB_MOBILIZER_FREE) {
            /* free joint qvel = (v of the origin in W, omega in the body frame) */
            const int j = joint_index(p->mm, name, "free");
            pb->qadr[0] = p->mm->jnt_qposadr[j];
            pb->dadr[0] = p->mm->jnt_dofadr[j];
            double* qv = p->d->qvel + pb->dadr[0];
            const double* R = X.R.m;
            qv[0] = V.v.x;
            qv[1] = V.v.y;
            qv[2] = V.v.z;
            qv[3] = R[0] * V.w.x + R[3] * V.w.y + R[6] * V.w.z;
            qv[4] = R[1] * V.w.x + R[4] * V.w.y + R[7] * V.w.z;
            qv[5] = R[2] * V.w.x + R[5] * V.w.y + R[8] * V.w.z;
        }
    }
    free(v);
    p->ccb_body = malloc((size_t)p->mm->nbody * sizeof(int));
    p->f_body = calloc(3 * (size_t)nb + 1, sizeof(double));
    p->mj_body = malloc(((size_t)nb + 1) * sizeof(int));
    if (p->ccb_body == NULL || p->f_body == NULL || p->mj_body == NULL ||
        peer_loads_init(&p->loads, m) != 0) {
        mujoco_close(p);
        snprintf(msg, n, "out of memory");
        return -1;
    }
    for (int i = 0; i < p->mm->nbody; ++i) {
        p->ccb_body[i] = -1;
    }
    for (int b = 0; b < nb; ++b) {
        p->mj_body[b] = -1;
        if (p->body[b].kind == CCB_MOBILIZER_FREE || p->body[b].kind == CCB_MOBILIZER_PLANAR ||
            p->body[b].kind == CCB_MOBILIZER_PRISMATIC) {
            p->mj_body[b] = mj_name2id(p->mm, mjOBJ_BODY, ccb_model_body_name(m, b));
            p->ccb_body[p->mj_body[b]] = b;
        }
    }
    if (set_prescribed(p, 0.0, msg, n) != 0) {
        mujoco_close(p);
        return -1;
    }
    mj_forward(p->mm, p->d);
    *out = p;
    return 0;
}

static void mujoco_state(const void* scene, double* q, double* v) {
    const peer_mujoco* p = scene;
    const mjData* d = p->d;
    memcpy(q, p->q0, (size_t)ccb_model_nq(p->m) * sizeof(double));
    for (int b = 0; b < p->nb; ++b) {
        const peer_body* pb = &p->body[b];
        if (pb->kind == CCB_MOBILIZER_PLANAR ||
            pb->kind == CCB_MOBILIZER_PRISMATIC) { /* x0 + slide, theta0 + hinge angle */
            for (int k = 0; k < pb->nv; ++k) {
                q[pb->qoff + k] = p->q0[pb->qoff + k] + d->qpos[pb->qadr[k]];
                v[pb->voff + k] = d->qvel[pb->dadr[k]];
            }
        } else if (pb->kind == CCB_MOBILIZER_FREE) { /* (p, quaternion w x y z) as ccb's q */
            const double* qp = d->qpos + pb->qadr[0];
            const double* qv = d->qvel + pb->dadr[0];
            memcpy(q + pb->qoff, qp, 7 * sizeof(double));
            const ccb_mat3 R = ccb_m3_from_quat(qp + 3);
            const double* r = R.m; /* omega_W = R omega_B; ccb's v = (omega_W, v_W) */
            double* vb = v + pb->voff;
            vb[0] = r[0] * qv[3] + r[1] * qv[4] + r[2] * qv[5];
            vb[1] = r[3] * qv[3] + r[4] * qv[4] + r[5] * qv[5];
            vb[2] = r[6] * qv[3] + r[7] * qv[4] + r[8] * qv[5];
            vb[3] = qv[0];
            vb[4] = qv[1];
            vb[5] = qv[2];
        }
    }
}

static double mujoco_time(const void* scene) {
    const peer_mujoco* p = scene;
    return p->d->time;
}

static int finite_state(const peer_mujoco* p) {
    int ok = 1;
    for (int i = 0; i < p->mm->nq; ++i) {
        ok &= isfinite(p->d->qpos[i]);
    }
    for (int i = 0; i < p->mm->nv; ++i) {
        ok &= isfinite(p->d->qvel[i]);
    }
    return ok;
}

static int mujoco_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    peer_mujoco* p = scene;
    memset(info, 0, sizeof *info);
    info->stop = -1;
    if (set_prescribed(p, p->d->time, msg, n) != 0) {
        return -1;
    }
    if (p->joints) { /* the joints' actuation, at the step's start (springs: the MJCF's) */
        mujoco_state(p, p->loads.q, p->loads.v);
        for (int b = 0; b < p->nb; ++b) {
            const peer_body* pb = &p->body[b];
            if (pb->kind != CCB_MOBILIZER_PRISMATIC) {
                continue;
            }
            ccb_body_def d;
            ccb_model_body_def_get(p->m, b, &d);
            d.joint.stiffness = 0.0;
            double f =
                peer_joint_force(&d, p->d->time, p->loads.q[pb->qoff], p->loads.v[pb->voff], 0);
            if (d.joint.parent >= 0) {
                /* the slide's qvel is relative to its parent, whose velocity this step sets
                 * anew: the change would carry the body along the axis, which only a force
                 * can do; this force takes it back (the engines of maximal coordinates, ODE and
                 * Bullet, need none) */
                const peer_body* pp = &p->body[d.joint.parent];
                const ccb_vec3 dv = ccb_v3_sub(pp->v_set, pp->v_stepped);
                f -= pb->mass * ccb_v3_dot(dv, pb->axis) / p->dt;
            }
            p->d->qfrc_applied[pb->dadr[0]] = f;
        }
    }
    if (p->loads.any) { /* at the step's start, held over it (peer_loads) */
        mujoco_state(p, p->loads.q, p->loads.v);
        peer_loads_eval(&p->loads, p->m, p->d->time);
        for (int b = 0; b < p->nb; ++b) {
            if (p->mj_body[b] >= 0) {
                memcpy(p->d->xfrc_applied + 6 * p->mj_body[b], p->loads.w + 6 * b,
                       6 * sizeof(double));
            }
        }
    }
    const double t0 = p->d->time;
    mj_step(p->mm, p->d);
    for (int b = 0; b < p->nb; ++b) {
        p->body[b].v_stepped = p->body[b].v_set;
    }
    const mjData* d = p->d;
    /* a bad number in the state makes MuJoCo reset it to the initial one (time 0) and go on;
     * full contact or constraint buffers make it drop some: either is a failed run */
    static const struct {
        int w;
        const char* what;
    } k_bad[] = {{mjWARN_BADQPOS, "a non-finite or huge position (mjWARN_BADQPOS)"},
                 {mjWARN_BADQVEL, "a non-finite or huge velocity (mjWARN_BADQVEL)"},
                 {mjWARN_BADQACC, "a non-finite or huge acceleration (mjWARN_BADQACC)"},
                 {mjWARN_CONTACTFULL, "more contacts than its buffer (mjWARN_CONTACTFULL)"},
                 {mjWARN_CNSTRFULL, "more constraints than its buffer (mjWARN_CNSTRFULL)"}};
    for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; ++i) {
        if (d->warning[k_bad[i].w].number > 0) {
            snprintf(msg, n, "MuJoCo: %s in the step from t = %g s%s", k_bad[i].what, t0,
                     k_bad[i].w >= mjWARN_BADQPOS ? ", and it reset the state" : "");
            return 1;
        }
    }
    info->iterations = d->solver_iter;
    const int nstat = d->solver_iter < mjNSOLVER ? d->solver_iter : mjNSOLVER;
    info->stop = -1;
    for (int i = 0; i < nstat; ++i) {
        info->ls_evals += d->solver[i].neval;
        info->changes += d->solver[i].nchange;
    }
    if (nstat > 0) {
        const mjSolverStat* last = &d->solver[nstat - 1];
        const double tol = p->mm->opt.tolerance;
        info->stop = last->gradient < tol ? 0 : last->improvement < tol ? 1 : 2;
        info->changes_last = last->nchange;
    }
    info->ncon = d->ncon;
    int npen = 0;
    if (forces) {
        memset(p->f_body, 0, 3 * (size_t)p->nb * sizeof(double));
        info->f_body = p->f_body;
    }
    for (int c = 0; c < d->ncon; ++c) {
        if (d->contact[c].dist < 0) {
            info->pen_mean -= d->contact[c].dist;
            info->pen_max = fmax(info->pen_max, -d->contact[c].dist);
            npen++;
        }
        if (!forces) {
            continue;
        }
        /* the force on geom2 in the contact frame (rows: normal from geom1 to geom2, t1, t2) */
        double f[6];
        mj_contactForce(p->mm, d, c, f);
        info->fn_sum += f[0];
        const mjtNum* F = d->contact[c].frame;
        const double fw[3] = {F[0] * f[0] + F[3] * f[1] + F[6] * f[2],
                              F[1] * f[0] + F[4] * f[1] + F[7] * f[2],
                              F[2] * f[0] + F[5] * f[1] + F[8] * f[2]};
        const int b1 = p->ccb_body[p->mm->geom_bodyid[d->contact[c].geom1]];
        const int b2 = p->ccb_body[p->mm->geom_bodyid[d->contact[c].geom2]];
        for (int k = 0; k < 3; ++k) {
            if (b1 >= 0) {
                p->f_body[3 * b1 + k] -= fw[k];
            }
            if (b2 >= 0) {
                p->f_body[3 * b2 + k] += fw[k];
            }
        }
    }
    info->npen = npen;
    info->pen_mean = npen ? info->pen_mean / npen : 0.0;
    if (!finite_state(p)) {
        snprintf(msg, n, "MuJoCo: the state became non-finite at t = %g s", d->time);
        return 1;
    }
    return 0;
}

#else /* without MuJoCo: nothing opens (peer.h, peer_absent_*) */

PEER_ABSENT_ENGINE(mujoco, "this ccb was built without MuJoCo (install libmujoco-dev and rebuild)")
#define mujoco_open peer_absent_open
#define mujoco_state peer_absent_state
#define mujoco_step peer_absent_step
#define mujoco_time peer_absent_time
#define mujoco_close peer_absent_close

#endif

static void mujoco_describe(double dt, const peer_options* o, peer_line_fn line, void* user) {
    char b[200];
    snprintf(b, sizeof b, "MuJoCo (mj_step), %s solver, %s cones, condim 3",
             o->solver == PEER_SOLVER_PGS  ? "PGS"
             : o->solver == PEER_SOLVER_CG ? "CG"
                                           : "Newton",
             o->solver == PEER_SOLVER_PYRAMIDAL ? "pyramidal" : "elliptic");
    line("peer", b, user);
    line("tolerance", "1e-8 (MuJoCo's default), at most 100 iterations", user);
    if (o->stiffness == PEER_STIFF_LITERAL) {
        line("stiffness",
             "solref = (-k/m, -2 sqrt(k/m)): ccb's k per unit mass of the lightest "
             "moving body, critically damped (the literal mapping)",
             user);
    } else {
        if (dt > 0) {
            snprintf(b, sizeof b, "solref = (%g s, 1): time constant 2 dt, critically damped",
                     2 * dt);
        } else { /* no case (ccb info VARIANT): h is the case's dt */
            snprintf(b, sizeof b, "solref = (2 h, 1): time constant 2 dt, critically damped");
        }
        line("stiffness", b, user);
    }
    line("margin", "0 (MuJoCo's default; ccb's speculative margin has no counterpart)", user);
    line("geometry",
         o->geometry == PEER_NATIVE_BOXES
             ? "a free body of >= 8 spheres as the box that bounds them"
             : "every ccb shape as it is; a contact point as a 1 mm sphere touching "
               "it from above",
         user);
    line("prescribed motion",
         "a body of 1e6 kg on three slides, reset to the motion at the start "
         "of every step, gravity cancelled; its half-spaces as 20 m slabs",
         user);
    line("joints and loads",
         "a prismatic joint on the world or a prescribed body as a slide nested in its parent "
         "(damping implicit, spring explicit: MuJoCo's own), its actuation in qfrc_applied from "
         "the state at the step's start, with the force that undoes the carry of the parent's "
         "velocity reset; a body's applied load in xfrc_applied",
         user);
}

const peer_engine peer_engine_mujoco = {
    "MuJoCo",    "mujoco",     "libmujoco-dev", mujoco_built, mujoco_absent, mujoco_version,
    mujoco_open, mujoco_state, mujoco_step,     mujoco_time,  mujoco_close,  mujoco_describe};
