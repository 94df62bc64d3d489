/* ode_peer — the ODE engine of the peers (peer.h): a ccb scene built with ODE's bodies, geoms and
 * contact joints and stepped by dWorldStep (the Dantzig LCP of the whole system) or
 * dWorldQuickStep (projected Gauss-Seidel with SOR, ODE's iterative solver).
 *
 * The mapping (ODE 0.16 manual, "Joint error and the error reduction parameter", "Soft constraint
 * and constraint force mixing", "How do I make a spring/damper?"; docs/speed.md §3):
 *   - a contact of stiffness kp = k (ccb's pair rule, formulation-convex §8.8) and damping
 *     kd = k tau_d (SAP's Kelvin-Voigt dissipation; the cases set tau_d) is a soft contact joint
 *     with ERP = h kp/(h kp + kd) and CFM = 1/(h kp + kd), which the manual derives as the
 *     implicit spring-damper of kp, kd at step h (dContactSoftERP | dContactSoftCFM). A rigid pair
 *     (k = infinity) keeps ODE's global ERP 0.2 and CFM 1e-10 (its defaults in double precision);
 *   - friction: dContactApprox1, ODE's documented friction pyramid whose bound is mu times the
 *     normal force of the same step (without it mu is a force bound in newtons), two directions
 *     (ODE picks them), mu of ccb's pair rule;
 *   - bodies: free bodies as ODE bodies with ccb's mass and inertia, rotation integrated by the
 *     exponential map (dBodySetFiniteRotationMode, as ccb, formulation-convex §1.1); planar bodies
 *     (x, z, theta about y) as free bodies held in their plane by a linear motor (y) and an angular
 *     motor (x and z) of zero target velocity and unbounded force, a locked coordinate by one
 *     more axis; prescribed translations as kinematic bodies (dBodySetKinematic) set to the
 *     motion at the start of every step; fixed bodies as geoms without a body; a body's applied
 *     load as dBodyAddForce and dBodyAddTorque at its centre of mass, evaluated at the start of
 *     every step (peer_loads);
 *   - shapes: spheres, boxes; a half-space of a fixed body as a plane, of a moving body as a slab
 *     (peer.h); contact points as 1 mm spheres (peer.h); at most 8 contacts per geom pair;
 *   - everything else is ODE's default (QuickStep: 20 iterations, SOR 1.3; gyroscopic term on).
 * Built only when CMake finds ODE (Debian: libode-dev, double precision); its library is opened at
 * the first use (peer_dl.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/math.h"
#include "model_internal.h"
#include "peer.h"

/* the contacts ODE may return for one geom pair (box-box needs 8) */
#define ODE_MAX_CONTACTS 8

#ifdef CCB_HAVE_ODE
#include <ode/ode.h>
#include <ode/version.h>

#include "peer_dl.h"

/* ODE's functions, opened at the first use of the peer (peer_dl.h); below, each name calls
 * through its pointer */
/* clang-format off */
#define ODE_FUNCTIONS(X)             \
    X(dAllocateODEDataForThread)     \
    X(dBodyAddForce)                 \
    X(dBodyAddTorque)                \
    X(dBodyCreate)                   \
    X(dBodyGetAngularVel)            \
    X(dBodyGetLinearVel)             \
    X(dBodyGetPosition)              \
    X(dBodyGetRotation)              \
    X(dBodyGetQuaternion)            \
    X(dBodySetAngularVel)            \
    X(dBodySetFiniteRotationMode)    \
    X(dBodySetKinematic)             \
    X(dBodySetLinearVel)             \
    X(dBodySetMass)                  \
    X(dBodySetPosition)              \
    X(dBodySetQuaternion)            \
    X(dCollide)                      \
    X(dCreateBox)                    \
    X(dCreateCapsule)                \
    X(dCreatePlane)                  \
    X(dCreateSphere)                 \
    X(dGeomGetBody)                  \
    X(dGeomGetData)                  \
    X(dGeomSetBody)                  \
    X(dGeomSetData)                  \
    X(dGeomSetOffsetPosition)        \
    X(dGeomSetOffsetRotation)        \
    X(dGeomSetPosition)              \
    X(dGeomSetRotation)              \
    X(dGetConfiguration)             \
    X(dHashSpaceCreate)              \
    X(dInitODE2)                     \
    X(dJointAttach)                  \
    X(dJointCreateAMotor)            \
    X(dJointCreateContact)           \
    X(dJointCreateLMotor)            \
    X(dJointGroupCreate)             \
    X(dJointGroupDestroy)            \
    X(dJointGroupEmpty)              \
    X(dJointSetAMotorAxis)           \
    X(dJointSetAMotorMode)           \
    X(dJointSetAMotorNumAxes)        \
    X(dJointSetAMotorParam)          \
    X(dJointSetFeedback)             \
    X(dJointSetLMotorAxis)           \
    X(dJointSetLMotorNumAxes)        \
    X(dJointSetLMotorParam)          \
    X(dJointCreateSlider)            \
    X(dJointSetSliderAxis)           \
    X(dMassSetParameters)            \
    X(dMassSetZero)                  \
    X(dRandGetSeed)                  \
    X(dRandSetSeed)                  \
    X(dSetMessageHandler)            \
    X(dSpaceCollide)                 \
    X(dSpaceDestroy)                 \
    X(dWorldCreate)                  \
    X(dWorldDestroy)                 \
    X(dWorldGetQuickStepNumIterations) \
    X(dWorldQuickStep)               \
    X(dWorldSetGravity)              \
    X(dWorldStep)
/* clang-format on */
#define ODE_POINTER(f) __typeof__(f)* f;
#define ODE_ENTRY(f) {#f, &odef.f},
static struct { ODE_FUNCTIONS(ODE_POINTER) } odef;
static const peer_dl_sym ode_syms[] = {ODE_FUNCTIONS(ODE_ENTRY){NULL, NULL}};
static peer_dl ode_lib = PEER_DL_INIT(CCB_ODE_SONAME, ode_syms);
#define ODE_CALL(f) (*odef.f)

/* ODE's warnings (e.g. "LCP internal error") go to its message handler, which would print them;
 * they are counted instead, and a scene reports how many came during its run. */
static _Atomic long ode_messages;
static void ode_message(int num, const char* msg, va_list ap) {
    (void)num, (void)msg, (void)ap;
    ode_messages++;
}

/* ODE's global state: its default threading implementation, shared by every world, whose job
 * lists two worlds stepping at once corrupt (ODE INTERNAL ERROR in ReleaseAJob, seen with two
 * study runs in parallel), and the random generator with which dWorldQuickStep reorders its
 * constraints. So every ODE call of a scene's life is made under one lock, and each scene keeps
 * its own generator state (from seed 0): a run's data do not depend on the runs beside it or
 * before it in the process. */
static pthread_mutex_t ode_mutex = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t ode_once = PTHREAD_ONCE_INIT;
static int ode_init_rc = -1;
static void ode_init(void) {
    ode_init_rc = ODE_CALL(dInitODE2)(0) ? 0 : -1;
    ODE_CALL(dSetMessageHandler)(ode_message);
}

/* Opens ODE's library and initializes it once; checks that it is double precision. 0, or -1. */
static int ode_load(char* msg, size_t n) {
    if (peer_dl_open(&ode_lib, msg, n) != 0) {
        return -1;
    }
    pthread_once(&ode_once, ode_init);
    const char* cfg = ODE_CALL(dGetConfiguration)();
    if (ode_init_rc != 0 || cfg == NULL || strstr(cfg, "ODE_double_precision") == NULL) {
        if (msg && n > 0) {
            snprintf(msg, n, "%s: %s", CCB_ODE_SONAME,
                     ode_init_rc != 0 ? "dInitODE2 failed"
                                      : "not built in double precision (ccb needs it)");
        }
        return -1;
    }
    return 0;
}

/* Where a ccb body lives in ODE. */
typedef struct ode_body {
    ccb_mobilizer kind;
    dBodyID id; /* NULL: fixed */
    int qoff, nq, voff, nv;
    int coord[3];  /* planar: ccb's velocity k is planar coordinate coord[k] (0 x, 1 z, 2 theta) */
    double theta;  /* planar: the angle of the last state, for unwrapping */
    int parent;    /* prismatic: the parent body (-1: the world) */
    ccb_vec3 axis; /* prismatic: the joint axis in the world (its parent translates) */
} ode_body;

typedef struct ode_scene {
    const ccb_model* m;
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    peer_solver solver;
    double dt;
    long k;             /* steps made */
    unsigned long seed; /* ODE's random generator between this scene's steps */
    int nb, ns;
    ode_body* body;
    int* shape_of; /* per geom data: the ccb shape it stands for */
    double* q0;
    double* f_body; /* 3 per ccb body */
    int joints;     /* 1 if a body is on a joint */
    peer_loads loads;
    /* this step's contacts (their feedback is attached once all are made: the arrays grow) */
    dJointID* joint;
    dJointFeedback* fb;
    dContactGeom* cg;
    int* cb; /* per contact: the ccb bodies (2 each, -1: none) */
    int ncon, cap;
    int oom;
} ode_scene;

static void set_rotation(dMatrix3 R, const ccb_mat3* M) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R[4 * i + j] = M->m[3 * i + j];
        }
        R[4 * i + 3] = 0;
    }
}

static int grow_contacts(ode_scene* p, int need) {
    if (need <= p->cap) {
        return 0;
    }
    const int cap = 2 * need + 64;
    dJointFeedback* fb = realloc(p->fb, (size_t)cap * sizeof *fb);
    if (fb) {
        p->fb = fb;
    }
    dJointID* joint = realloc(p->joint, (size_t)cap * sizeof *joint);
    if (joint) {
        p->joint = joint;
    }
    dContactGeom* cg = realloc(p->cg, (size_t)cap * sizeof *cg);
    if (cg) {
        p->cg = cg;
    }
    int* cb = realloc(p->cb, 2 * (size_t)cap * sizeof *cb);
    if (cb) {
        p->cb = cb;
    }
    if (fb == NULL || joint == NULL || cg == NULL || cb == NULL) {
        return -1;
    }
    p->cap = cap;
    return 0;
}

/* ODE's near callback: the contacts of two geoms whose bounding boxes overlap, as soft contact
 * joints with ccb's pair material. */
static void near(void* user, dGeomID g1, dGeomID g2) {
    ode_scene* p = user;
    const int s1 = *(const int*)ODE_CALL(dGeomGetData)(g1);
    const int s2 = *(const int*)ODE_CALL(dGeomGetData)(g2);
    const dBodyID b1 = ODE_CALL(dGeomGetBody)(g1), b2 = ODE_CALL(dGeomGetBody)(g2);
    if ((b1 == NULL && b2 == NULL) || !ccb_shape_pair_active(p->m, s1, s2)) {
        return; /* pairs ccb does not query (same body, filtered, neither moves under forces) */
    }
    dContact c[ODE_MAX_CONTACTS];
    const int nc = ODE_CALL(dCollide)(g1, g2, ODE_MAX_CONTACTS, &c[0].geom, sizeof c[0]);
    if (nc <= 0) {
        return;
    }
    if (grow_contacts(p, p->ncon + nc) != 0) {
        p->oom = 1;
        return;
    }
    double w;
    const ccb_material mat = ccb_shape_pair_material(p->m, s1, s2, &w);
    int bi1 = -1, bi2 = -1;
    ccb_model_shape_def_get(p->m, s1, &bi1, &(ccb_shape_def){0});
    ccb_model_shape_def_get(p->m, s2, &bi2, &(ccb_shape_def){0});
    for (int i = 0; i < nc; ++i) {
        dSurfaceParameters* s = &c[i].surface;
        memset(s, 0, sizeof *s);
        s->mode = dContactApprox1;
        s->mu = mat.mu;
        if (isfinite(mat.k)) { /* spec: formulation-convex §8.8; ODE manual, spring/damper */
            const double kp = mat.k, kd = mat.k * mat.tau_d, h = p->dt;
            s->mode |= dContactSoftERP | dContactSoftCFM;
            s->soft_erp = h * kp / (h * kp + kd);
            s->soft_cfm = 1.0 / (h * kp + kd);
        }
        const dJointID j = ODE_CALL(dJointCreateContact)(p->world, p->contacts, &c[i]);
        ODE_CALL(dJointAttach)(j, b1, b2);
        p->joint[p->ncon] = j;
        p->cg[p->ncon] = c[i].geom;
        p->cb[2 * p->ncon] = b1 ? bi1 : -1;
        p->cb[2 * p->ncon + 1] = b2 ? bi2 : -1;
        p->ncon++;
    }
}

static void ode_close_locked(void* scene) {
    ode_scene* p = scene;
    if (p == NULL) {
        return;
    }
    if (p->contacts) {
        ODE_CALL(dJointGroupDestroy)(p->contacts);
    }
    if (p->space) {
        ODE_CALL(dSpaceDestroy)(p->space); /* destroys its geoms (cleanup mode on) */
    }
    if (p->world) {
        ODE_CALL(dWorldDestroy)(p->world); /* and its bodies and joints */
    }
    free(p->body);
    free(p->shape_of);
    free(p->q0);
    free(p->f_body);
    free(p->fb);
    free(p->joint);
    free(p->cg);
    free(p->cb);
    peer_loads_free(&p->loads);
    free(p);
}

/* Prescribed bodies over the step from t: moving at their velocity at the step's end t + dt and
 * placed so that the step ends at their pose at t + dt. ccb evaluates a body of prescribed motion
 * at the step's end too (lib/src/problem.c), so the contact sees the same belt velocity; at its
 * start instead, a sticking box would lag the belt by its acceleration times dt. Translations
 * only. */
static int set_prescribed(ode_scene* p, double t, char* msg, size_t n) {
    for (int b = 0; b < p->nb; ++b) {
        if (p->body[b].kind != CCB_MOBILIZER_PRESCRIBED) {
            continue;
        }
        ccb_pose X;
        ccb_twist V;
        const double t1 = t + p->dt;
        ccb_model_body_pose(p->m, b, t1, p->q0, &X);
        ccb_model_body_twist(p->m, b, t1, p->q0, NULL, &V);
        X.p = ccb_v3_sub(X.p, ccb_v3_scale(p->dt, V.v));
        if (fabs(V.w.x) + fabs(V.w.y) + fabs(V.w.z) > 0) {
            snprintf(msg, n,
                     "the ODE peer translates prescribed translations; body '%s' rotates at "
                     "t = %g s",
                     ccb_model_body_name(p->m, b), t);
            return -1;
        }
        double qt[4];
        ccb_quat_from_m3(&X.R, qt);
        const dBodyID id = p->body[b].id;
        ODE_CALL(dBodySetPosition)(id, X.p.x, X.p.y, X.p.z);
        ODE_CALL(dBodySetQuaternion)(id, qt);
        ODE_CALL(dBodySetLinearVel)(id, V.v.x, V.v.y, V.v.z);
        ODE_CALL(dBodySetAngularVel)(id, 0, 0, 0);
    }
    return 0;
}

/* a motor holding the planar body's velocity along (or about) world axes at 0 */
static void hold(dJointID j, int angular, const int* axes, int na) {
    if (angular) {
        ODE_CALL(dJointSetAMotorMode)(j, dAMotorUser);
        ODE_CALL(dJointSetAMotorNumAxes)(j, na);
    } else {
        ODE_CALL(dJointSetLMotorNumAxes)(j, na);
    }
    static const int params[3][2] = {
        {dParamVel, dParamFMax}, {dParamVel2, dParamFMax2}, {dParamVel3, dParamFMax3}};
    for (int i = 0; i < na; ++i) {
        const double e[3] = {axes[i] == 0, axes[i] == 1, axes[i] == 2};
        if (angular) {
            ODE_CALL(dJointSetAMotorAxis)(j, i, 0, e[0], e[1], e[2]);
            ODE_CALL(dJointSetAMotorParam)(j, params[i][0], 0.0);
            ODE_CALL(dJointSetAMotorParam)(j, params[i][1], dInfinity);
        } else {
            ODE_CALL(dJointSetLMotorAxis)(j, i, 0, e[0], e[1], e[2]);
            ODE_CALL(dJointSetLMotorParam)(j, params[i][0], 0.0);
            ODE_CALL(dJointSetLMotorParam)(j, params[i][1], dInfinity);
        }
    }
}

/* The ODE body of a ccb body (NULL for a fixed one), with its state at t = 0. 0, or -1. */
static int make_body(ode_scene* p, int b, const double* v, char* msg, size_t n) {
    const ccb_model* m = p->m;
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    ode_body* ob = &p->body[b];
    ob->kind = d.mobilizer;
    p->joints |= d.mobilizer == CCB_MOBILIZER_PRISMATIC;
    ccb_model_body_coords(m, b, &ob->qoff, &ob->nq, &ob->voff, &ob->nv);
    if (peer_check_body(m, b, "ODE", msg, n) != 0) {
        return -1;
    }
    if (d.mobilizer == CCB_MOBILIZER_FIXED) {
        return 0;
    }
    ccb_pose X;
    ccb_twist V;
    ccb_model_body_pose(m, b, 0.0, p->q0, &X);
    ccb_model_body_twist(m, b, 0.0, p->q0, v, &V);
    const dBodyID id = ODE_CALL(dBodyCreate)(p->world);
    ob->id = id;
    double qt[4];
    ccb_quat_from_m3(&X.R, qt);
    ODE_CALL(dBodySetPosition)(id, X.p.x, X.p.y, X.p.z);
    ODE_CALL(dBodySetQuaternion)(id, qt);
    ODE_CALL(dBodySetLinearVel)(id, V.v.x, V.v.y, V.v.z);
    ODE_CALL(dBodySetAngularVel)(id, V.w.x, V.w.y, V.w.z);
    if (d.mobilizer == CCB_MOBILIZER_PRESCRIBED) {
        ODE_CALL(dBodySetKinematic)(id);
        return 0;
    }
    ODE_CALL(dBodySetFiniteRotationMode)(id, 1);
    dMass mass;
    ODE_CALL(dMassSetZero)(&mass);
    const double* I = d.inertia.m; /* about the body origin, in the body frame */
    if (d.mobilizer == CCB_MOBILIZER_PLANAR) {
        ODE_CALL(dMassSetParameters)(&mass, d.mass, 0, 0, 0, I[4], I[4], I[4], 0, 0, 0);
    } else {
        ODE_CALL(dMassSetParameters)(&mass, d.mass, 0, 0, 0, I[0], I[4], I[8], I[1], I[2], I[5]);
    }
    ODE_CALL(dBodySetMass)(id, &mass);
    if (d.mobilizer == CCB_MOBILIZER_PRISMATIC) { /* a slider joint to its parent (or the world) */
        ob->parent = d.joint.parent;
        ccb_pose X_WP;
        ccb_vec3 origin;
        if (ob->parent >= 0) {
            ccb_model_body_pose(m, ob->parent, 0.0, p->q0, &X_WP);
        }
        peer_slider_frame(&d, ob->parent >= 0 ? &X_WP : NULL, &ob->axis, &origin);
        const dJointID js = ODE_CALL(dJointCreateSlider)(p->world, 0);
        ODE_CALL(dJointAttach)(js, id, ob->parent >= 0 ? p->body[ob->parent].id : 0);
        ODE_CALL(dJointSetSliderAxis)(js, ob->axis.x, ob->axis.y, ob->axis.z);
    }
    if (d.mobilizer == CCB_MOBILIZER_PLANAR) {
        ob->theta = peer_planar_angle(&X.R, 0.0);
        int lin[3] = {1}, ang[3] = {0, 2}, nl = 1, na = 2;
        if (d.locked & CCB_LOCK_X) {
            lin[nl++] = 0;
        }
        if (d.locked & CCB_LOCK_Z) {
            lin[nl++] = 2;
        }
        if (d.locked & CCB_LOCK_THETA) {
            ang[na++] = 1;
        }
        const dJointID jl = ODE_CALL(dJointCreateLMotor)(p->world, 0);
        ODE_CALL(dJointAttach)(jl, id, 0);
        hold(jl, 0, lin, nl);
        const dJointID ja = ODE_CALL(dJointCreateAMotor)(p->world, 0);
        ODE_CALL(dJointAttach)(ja, id, 0);
        hold(ja, 1, ang, na);
        const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
        for (int k = 0, c = 0; k < 3; ++k) {
            if (!(d.locked & lock[k])) {
                ob->coord[c++] = k;
            }
        }
    }
    return 0;
}

/* One ODE geom, in the body frame (own) or the world frame (fixed bodies); data: the shape. */
static dGeomID make_geom(ode_scene* p, const ccb_shape_def* s, int own, dBodyID id,
                         const ccb_pose* X, int* data, char* msg, size_t n) {
    dGeomID g = NULL;
    ccb_pose Y = *X;
    switch (s->type) {
    case CCB_SHAPE_SPHERE: g = ODE_CALL(dCreateSphere)(p->space, s->radius); break;
    case CCB_SHAPE_BOX:
        g = ODE_CALL(dCreateBox)(p->space, 2 * s->half_extents.x, 2 * s->half_extents.y,
                                 2 * s->half_extents.z);
        break;
    case CCB_SHAPE_HALFSPACE:
        if (!own) { /* ODE's planes are static: n . x = n . p */
            const ccb_vec3 nrm = ccb_m3_mul_v(&X->R, ccb_v3(0, 0, 1));
            g = ODE_CALL(dCreatePlane)(p->space, nrm.x, nrm.y, nrm.z, ccb_v3_dot(nrm, X->p));
            ODE_CALL(dGeomSetData)(g, data);
            return g;
        }
        Y = peer_slab_pose(X);
        g = ODE_CALL(dCreateBox)(p->space, 2 * PEER_SLAB_HALF, 2 * PEER_SLAB_HALF,
                                 2 * PEER_SLAB_HALF);
        break;
    case CCB_SHAPE_CAPSULE: { /* ODE's capsule lies along its z axis, ccb's along x */
        g = ODE_CALL(dCreateCapsule)(p->space, s->radius, 2 * s->half_length);
        const ccb_mat3 Ry = ccb_m3_rot_y(0.5 * CCB_PI); /* e_z -> e_x */
        Y.R = ccb_m3_mul(&X->R, &Ry);
        break;
    }
    default:
        snprintf(msg, n, "the ODE peer translates spheres, boxes, capsules and half-spaces, not %s",
                 s->type == CCB_SHAPE_HYDRO ? "hydroelastic meshes" : "this shape type");
        return NULL;
    }
    ODE_CALL(dGeomSetData)(g, data);
    dMatrix3 R;
    set_rotation(R, &Y.R);
    if (own) {
        ODE_CALL(dGeomSetBody)(g, id);
        ODE_CALL(dGeomSetOffsetPosition)(g, Y.p.x, Y.p.y, Y.p.z);
        ODE_CALL(dGeomSetOffsetRotation)(g, R);
    } else {
        ODE_CALL(dGeomSetPosition)(g, Y.p.x, Y.p.y, Y.p.z);
        ODE_CALL(dGeomSetRotation)(g, R);
    }
    return g;
}

/* The geoms of body b (its shapes, or the box that bounds its spheres). 0, or -1. */
static int make_geoms(ode_scene* p, int b, const peer_options* o, char* msg, size_t n) {
    const ccb_model* m = p->m;
    ccb_body_def d;
    ccb_model_body_def_get(m, b, &d);
    const int own = d.mobilizer != CCB_MOBILIZER_FIXED;
    ccb_pose Xb;
    ccb_model_body_pose(m, b, 0.0, p->q0, &Xb);
    const dBodyID id = p->body[b].id;
    ccb_vec3 h;
    double mu;
    int first = -1;
    for (int i = 0; i < p->ns && first < 0; ++i) {
        int sb;
        ccb_shape_def s;
        ccb_model_shape_def_get(m, i, &sb, &s);
        first = sb == b ? i : -1;
    }
    if (d.mobilizer == CCB_MOBILIZER_FREE && o->geometry == PEER_NATIVE_BOXES && first >= 0 &&
        peer_bounding_box(m, b, &h, &mu)) { /* the box stands for every sphere: the first's id */
        ccb_shape_def box = ccb_shape_def_default();
        box.type = CCB_SHAPE_BOX;
        box.half_extents = h;
        const ccb_pose I = ccb_pose_translation(ccb_v3(0, 0, 0));
        return make_geom(p, &box, 1, id, &I, &p->shape_of[first], msg, n) ? 0 : -1;
    }
    for (int i = 0; i < p->ns; ++i) {
        int sb;
        ccb_shape_def s;
        ccb_model_shape_def_get(m, i, &sb, &s);
        if (sb != b) {
            continue;
        }
        const ccb_pose Xs = own ? s.pose : ccb_pose_compose(&Xb, &s.pose);
        if (peer_shape_npoints(&s) > 0) { /* points, and a capsule of radius 0: its two ends */
            for (int k = 0; k < peer_shape_npoints(&s); ++k) {
                ccb_shape_def ball = ccb_shape_def_default();
                ball.type = CCB_SHAPE_SPHERE;
                ball.radius = PEER_POINT_RADIUS;
                const ccb_pose Xk = ccb_pose_translation(
                    peer_point_centre(&Xs, peer_shape_point(&s, k), own ? &Xb.R : NULL));
                if (make_geom(p, &ball, own, id, &Xk, &p->shape_of[i], msg, n) == NULL) {
                    return -1;
                }
            }
        } else if (make_geom(p, &s, own, id, &Xs, &p->shape_of[i], msg, n) == NULL) {
            return -1;
        }
    }
    return 0;
}

static int ode_open_locked(const ccb_model* m, double dt, const peer_options* o, void** out,
                           char* msg, size_t n) {
    *out = NULL;
    if (ode_load(msg, n) != 0) {
        return -1;
    }
    if (o->solver != PEER_SOLVER_DEFAULT && o->solver != PEER_SOLVER_QUICKSTEP) {
        snprintf(msg, n, "ODE's solvers are dWorldStep and dWorldQuickStep");
        return -1;
    }
    ODE_CALL(dAllocateODEDataForThread)(dAllocateMaskAll);
    ode_scene* p = calloc(1, sizeof *p);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m), nb = ccb_model_nbodies(m),
              ns = ccb_model_nshapes(m);
    double* v = calloc((size_t)nv + 1, sizeof(double));
    if (p == NULL || v == NULL || (p->q0 = calloc((size_t)nq + 1, sizeof(double))) == NULL ||
        (p->body = calloc((size_t)nb + 1, sizeof(ode_body))) == NULL ||
        (p->shape_of = calloc((size_t)ns + 1, sizeof(int))) == NULL ||
        (p->f_body = calloc(3 * (size_t)nb + 1, sizeof(double))) == NULL ||
        peer_loads_init(&p->loads, m) != 0 || ccb_model_initial_state(m, p->q0, v) != CCB_OK) {
        free(v);
        ode_close_locked(p);
        snprintf(msg, n, "out of memory or no initial state");
        return -1;
    }
    p->m = m;
    p->dt = dt;
    p->nb = nb;
    p->ns = ns;
    p->solver = o->solver;
    for (int i = 0; i < ns; ++i) {
        p->shape_of[i] = i;
    }
    p->world = ODE_CALL(dWorldCreate)();
    p->space = ODE_CALL(dHashSpaceCreate)(NULL);
    p->contacts = ODE_CALL(dJointGroupCreate)(0);
    const ccb_vec3 g = ccb_model_gravity(m);
    ODE_CALL(dWorldSetGravity)(p->world, g.x, g.y, g.z);
    int rc = 0;
    for (int b = 0; b < nb && rc == 0; ++b) {
        rc = make_body(p, b, v, msg, n);
    }
    for (int b = 0; b < nb && rc == 0; ++b) {
        rc = make_geoms(p, b, o, msg, n);
    }
    free(v);
    if (rc == 0) {
        rc = set_prescribed(p, 0.0, msg, n);
    }
    if (rc != 0) {
        ode_close_locked(p);
        return -1;
    }
    *out = p;
    return 0;
}

static double ode_time(const void* scene) {
    const ode_scene* p = scene;
    return (double)p->k * p->dt;
}

/* An ODE body's pose and the velocity of its origin. */
static void body_state(dBodyID id, ccb_pose* X, ccb_vec3* v) {
    const double* x = ODE_CALL(dBodyGetPosition)(id);
    const double* vl = ODE_CALL(dBodyGetLinearVel)(id);
    X->p = ccb_v3(x[0], x[1], x[2]);
    X->R = ccb_m3_from_quat(ODE_CALL(dBodyGetQuaternion)(id));
    *v = ccb_v3(vl[0], vl[1], vl[2]);
}

static void ode_state(const void* scene, double* q, double* v) {
    const ode_scene* p = scene;
    memcpy(q, p->q0, (size_t)ccb_model_nq(p->m) * sizeof(double));
    for (int b = 0; b < p->nb; ++b) {
        const ode_body* ob = &p->body[b];
        if (ob->kind == CCB_MOBILIZER_PRISMATIC) {
            ccb_body_def d;
            ccb_model_body_def_get(p->m, b, &d);
            ccb_pose X_WB, X_WP;
            ccb_vec3 v_B, v_P = ccb_v3(0, 0, 0);
            body_state(ob->id, &X_WB, &v_B);
            if (ob->parent >= 0) { /* its motion now (ODE's is set for the coming step) */
                ccb_twist V_P;
                ccb_model_body_pose(p->m, ob->parent, ode_time(p), p->q0, &X_WP);
                ccb_model_body_twist(p->m, ob->parent, ode_time(p), p->q0, NULL, &V_P);
                v_P = V_P.v;
            }
            peer_slider_state(&d, ob->parent >= 0 ? &X_WP : NULL, v_P, &X_WB, v_B, &q[ob->qoff],
                              &v[ob->voff]);
            continue;
        }
        if (ob->kind != CCB_MOBILIZER_FREE && ob->kind != CCB_MOBILIZER_PLANAR) {
            continue;
        }
        const double* x = ODE_CALL(dBodyGetPosition)(ob->id);
        const double* qt = ODE_CALL(dBodyGetQuaternion)(ob->id); /* w x y z */
        const double* vl = ODE_CALL(dBodyGetLinearVel)(ob->id);
        const double* w = ODE_CALL(dBodyGetAngularVel)(ob->id); /* world frame */
        if (ob->kind == CCB_MOBILIZER_FREE) {                   /* ccb: (p, q), (omega_W, v_W) */
            const double s[7] = {x[0], x[1], x[2], qt[0], qt[1], qt[2], qt[3]};
            memcpy(q + ob->qoff, s, sizeof s);
            const double u[6] = {w[0], w[1], w[2], vl[0], vl[1], vl[2]};
            memcpy(v + ob->voff, u, sizeof u);
        } else {
            const ccb_mat3 R = ccb_m3_from_quat(qt);
            const double th = peer_planar_angle(&R, ob->theta);
            ((ode_body*)ob)->theta = th; /* the unwrapping's memory */
            const double xs[3] = {x[0], x[2], th}, us[3] = {vl[0], vl[2], w[1]};
            for (int k = 0; k < ob->nv; ++k) {
                q[ob->qoff + k] = xs[ob->coord[k]];
                v[ob->voff + k] = us[ob->coord[k]];
            }
        }
    }
}

/* How far a body may go [m]: ODE's hash space turns a geom's bounds into integer cells and aborts
 * the process (an internal error in collide()) when they overflow, which a body flung away by a
 * step far too large reaches before its state is non-finite (seen: the grasp at dt = 0.5 s). */
#define ODE_FAR 1e9

static int finite_state(const ode_scene* p) {
    int ok = 1;
    for (int b = 0; b < p->nb; ++b) {
        const ode_body* ob = &p->body[b];
        if (ob->id == NULL) {
            continue;
        }
        const double* x = ODE_CALL(dBodyGetPosition)(ob->id);
        const double* qt = ODE_CALL(dBodyGetQuaternion)(ob->id);
        const double* vl = ODE_CALL(dBodyGetLinearVel)(ob->id);
        const double* w = ODE_CALL(dBodyGetAngularVel)(ob->id);
        for (int k = 0; k < 3; ++k) {
            ok &= isfinite(x[k]) && isfinite(vl[k]) && isfinite(w[k]) && isfinite(qt[k]) &&
                  fabs(x[k]) < ODE_FAR;
        }
        ok &= isfinite(qt[3]);
    }
    return ok;
}

static int ode_step_locked(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    ode_scene* p = scene;
    memset(info, 0, sizeof *info);
    info->stop = -1;
    if (p->joints) { /* the joints' actuation, spring and damping, explicit, at the step's
                      * start (before the parents move on) */
        ode_state(p, p->loads.q, p->loads.v);
        for (int b = 0; b < p->nb; ++b) {
            const ode_body* ob = &p->body[b];
            if (ob->kind == CCB_MOBILIZER_PRISMATIC) {
                ccb_body_def d;
                ccb_model_body_def_get(p->m, b, &d);
                const double f = peer_joint_force(&d, ode_time(p), p->loads.q[ob->qoff],
                                                  p->loads.v[ob->voff], 1);
                ODE_CALL(dBodyAddForce)(ob->id, f * ob->axis.x, f * ob->axis.y, f * ob->axis.z);
            }
        }
    }
    if (p->loads.any) { /* at the step's start, held over it (peer_loads); ODE clears them */
        ode_state(p, p->loads.q, p->loads.v);
        peer_loads_eval(&p->loads, p->m, ode_time(p));
        for (int b = 0; b < p->nb; ++b) {
            const ode_body* ob = &p->body[b];
            const double* w = p->loads.w + 6 * b;
            if (ob->kind == CCB_MOBILIZER_FREE || ob->kind == CCB_MOBILIZER_PLANAR ||
                ob->kind == CCB_MOBILIZER_PRISMATIC) {
                ODE_CALL(dBodyAddForce)(ob->id, w[0], w[1], w[2]);
                ODE_CALL(dBodyAddTorque)(ob->id, w[3], w[4], w[5]);
            }
        }
    }
    if (set_prescribed(p, ode_time(p), msg, n) != 0) {
        return -1;
    }
    p->ncon = 0;
    p->oom = 0;
    ODE_CALL(dRandSetSeed)(p->seed);
    ODE_CALL(dSpaceCollide)(p->space, p, near);
    if (p->oom) {
        ODE_CALL(dJointGroupEmpty)(p->contacts);
        snprintf(msg, n, "ODE: out of memory for the contacts");
        return -1;
    }
    for (int c = 0; c < p->ncon; ++c) {
        ODE_CALL(dJointSetFeedback)(p->joint[c], &p->fb[c]);
    }
    if (p->solver == PEER_SOLVER_QUICKSTEP) {
        ODE_CALL(dWorldQuickStep)(p->world, p->dt);
        info->iterations = ODE_CALL(dWorldGetQuickStepNumIterations)(p->world);
    } else {
        ODE_CALL(dWorldStep)(p->world, p->dt);
    }
    p->k++;
    p->seed = ODE_CALL(dRandGetSeed)();
    info->ncon = p->ncon;
    if (forces) {
        memset(p->f_body, 0, 3 * (size_t)p->nb * sizeof(double));
        info->f_body = p->f_body;
    }
    for (int c = 0; c < p->ncon; ++c) {
        const dContactGeom* cg = &p->cg[c];
        if (cg->depth > 0) {
            info->pen_mean += cg->depth;
            info->pen_max = fmax(info->pen_max, cg->depth);
            info->npen++;
        }
        if (!forces) {
            continue;
        }
        /* the normal points into g1 (ODE: the direction that separates g1); the feedback holds
         * the joint's force on each body, world frame */
        const int b1 = p->cb[2 * c], b2 = p->cb[2 * c + 1];
        const dJointFeedback* f = &p->fb[c];
        const double* nrm = cg->normal;
        info->fn_sum += b1 >= 0 ? nrm[0] * f->f1[0] + nrm[1] * f->f1[1] + nrm[2] * f->f1[2]
                                : -(nrm[0] * f->f2[0] + nrm[1] * f->f2[1] + nrm[2] * f->f2[2]);
        for (int k = 0; k < 3; ++k) {
            if (b1 >= 0) {
                p->f_body[3 * b1 + k] += f->f1[k];
            }
            if (b2 >= 0) {
                p->f_body[3 * b2 + k] += f->f2[k];
            }
        }
    }
    info->pen_mean = info->npen ? info->pen_mean / info->npen : 0.0;
    ODE_CALL(dJointGroupEmpty)(p->contacts);
    if (!finite_state(p)) {
        snprintf(msg, n,
                 "ODE: the state became non-finite, or a body went beyond %g m (where ODE's "
                 "collision detection aborts), at t = %g s",
                 ODE_FAR, ode_time(p));
        return 1;
    }
    return 0;
}

static int ode_open(const ccb_model* m, double dt, const peer_options* o, void** out, char* msg,
                    size_t n) {
    pthread_mutex_lock(&ode_mutex);
    const int rc = ode_open_locked(m, dt, o, out, msg, n);
    pthread_mutex_unlock(&ode_mutex);
    return rc;
}

static int ode_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    pthread_mutex_lock(&ode_mutex);
    const int rc = ode_step_locked(scene, info, forces, msg, n);
    pthread_mutex_unlock(&ode_mutex);
    return rc;
}

static void ode_close(void* scene) {
    pthread_mutex_lock(&ode_mutex);
    ode_close_locked(scene);
    pthread_mutex_unlock(&ode_mutex);
}

static int ode_built(void) {
    return 1;
}

static const char* ode_absent(void) {
    static char why[400];
    return ode_load(why, sizeof why) == 0 ? NULL : why;
}

static const char* ode_version(void) {
    return ode_load(NULL, 0) == 0 ? dODE_VERSION : NULL;
}

#else /* without ODE: nothing opens (peer.h, peer_absent_*) */

PEER_ABSENT_ENGINE(ode, "this ccb was built without ODE (install libode-dev and rebuild)")
#define ode_open peer_absent_open
#define ode_state peer_absent_state
#define ode_step peer_absent_step
#define ode_time peer_absent_time
#define ode_close peer_absent_close

#endif

static void ode_describe(double dt, const peer_options* o, peer_line_fn line, void* user) {
    (void)dt;
    line("peer",
         o->solver == PEER_SOLVER_QUICKSTEP
             ? "ODE 0.16 (dWorldQuickStep: projected Gauss-Seidel, SOR 1.3, 20 iterations, "
               "ODE's defaults)"
             : "ODE 0.16 (dWorldStep: Dantzig LCP of the whole system)",
         user);
    line("stiffness",
         "soft contact, ERP = h k/(h k + k tau_d), CFM = 1/(h k + k tau_d): the spring-damper "
         "k, k tau_d of ccb's pair (ODE manual, 'How do I make a spring/damper?'); a rigid pair "
         "keeps ERP 0.2, CFM 1e-10",
         user);
    line("friction",
         "dContactApprox1: a friction pyramid of two directions bounded by mu times the normal "
         "force (ODE manual, contact parameters); mu of ccb's pair rule",
         user);
    line("margin", "0 (ODE has no speculative contacts)", user);
    line("geometry",
         o->geometry == PEER_NATIVE_BOXES
             ? "a free body of >= 8 spheres as the box that bounds them"
             : "every ccb shape as it is; a contact point as a 1 mm sphere touching it from "
               "above; at most 8 contacts per pair",
         user);
    line("bodies",
         "rotation by the exponential map (finite rotation mode); planar bodies held in the "
         "x-z plane by linear and angular motors of unbounded force; prescribed translations "
         "as kinematic bodies, their half-spaces as 20 m slabs",
         user);
    line("joints and loads",
         "a prismatic joint on the world or a prescribed body as a slider joint; its actuation, "
         "spring and damping (explicit) and a body's applied load as forces (dBodyAddForce, "
         "dBodyAddTorque) from the state at the step's start",
         user);
}

const peer_engine peer_engine_ode = {"ODE",      "libode",    "libode-dev", ode_built,
                                     ode_absent, ode_version, ode_open,     ode_state,
                                     ode_step,   ode_time,    ode_close,    ode_describe};
