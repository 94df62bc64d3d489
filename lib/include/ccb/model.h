/* ccb/model.h — rigid bodies, mobilizers, shapes and materials.
 *
 * A model is built once (add bodies and shapes, then ccb_model_finalize) and is then read-only;
 * simulations borrow it. Each body has one mobilizer to the world:
 *   FIXED       welded at `pose` (no velocity coordinates);
 *   PRESCRIBED  pose and twist are given functions of time (e.g. a conveyor belt); no
 *               velocity coordinates, its motion enters contacts as a velocity bias;
 *   PLANAR      translation in x and z and rotation theta about the world y axis, each of the
 *               three coordinates optionally locked (held at its initial value);
 *   FREE        6 degrees of freedom: q = (x, y, z, qw, qx, qy, qz) (position of the centre of
 *               mass and a unit quaternion, scalar first), v = (w_W, v_W) (angular velocity and
 *               velocity of the centre of mass, world frame); qdot = N(q) v with
 *               quat' = 1/2 (0, w) (x) quat; the quaternion is renormalized after every step.
 *   PRISMATIC  one translation q [m] along `joint.axis` relative to a parent body (or the world);
 *   REVOLUTE   one rotation q [rad] about `joint.axis` relative to a parent body (or the world):
 *               X_WB = X_WP X_PF X_FM(q) X_BM^-1, with F fixed on the parent and M on the body;
 *               X_FM(q) translates by q axis (prismatic) or rotates by q about axis (revolute);
 *               qdot = v. The parent may be any body added before, including a prescribed one
 *               (a gripper moved along a path: its accelerations then enter the joint forces).
 * Bodies joined by prismatic/revolute mobilizers form a tree whose root is a free or planar body
 * or a jointed body whose parent has no coordinates (world, fixed, prescribed). Each tree is
 * one clique; its mass matrix comes from the composite-rigid-body algorithm and its explicit
 * forces (gravity, applied loads, gyroscopic and Coriolis terms, joint actuation and springs)
 * from the recursive Newton-Euler algorithm (spec: formulation-convex §17). Contacts between a
 * body and its parent are filtered.
 * The body frame origin is the centre of mass. Generalized coordinates of a planar body are the
 * unlocked ones among (x [m], z [m], theta [rad]) in that order, with qdot = v (N = I).
 * Coordinates are numbered tree by tree (trees in the order of their roots, bodies of a tree in
 * the order they were added).
 * Mass matrices are S^T diag(I_W, m I) S with I_W = R I_B R^T and S the body's velocity map;
 * the gyroscopic torque -w x (I_W w) is explicit (k2 of spec formulation-convex §1.1).
 * Every body with velocity coordinates is one clique of the contact solver (spec:
 * formulation-convex §8.2); the solver sees cliques, mass blocks and Jacobian blocks only, so
 * new mobilizers (e.g. free 6-dof bodies) do not change it. */
#ifndef CCB_MODEL_H
#define CCB_MODEL_H

#include "ccb/hydro.h"
#include "ccb/math.h"
#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_model ccb_model;

typedef enum ccb_mobilizer {
    CCB_MOBILIZER_FIXED = 0,
    CCB_MOBILIZER_PRESCRIBED = 1,
    CCB_MOBILIZER_PLANAR = 2,
    CCB_MOBILIZER_FREE = 3,
    CCB_MOBILIZER_PRISMATIC = 4,
    CCB_MOBILIZER_REVOLUTE = 5
} ccb_mobilizer;

/* Largest number of velocity coordinates of one tree (clique) and of bodies in one tree. */
#define CCB_MAX_TREE_NV 32
#define CCB_MAX_TREE_BODIES 32

/* Lock bits of a planar mobilizer. */
#define CCB_LOCK_X 1u
#define CCB_LOCK_Z 2u
#define CCB_LOCK_THETA 4u

/* Prescribed motion: writes the body pose X_WB and twist V_WB (angular velocity, velocity of the
 * body origin; world frame) at time t [s]. Must be deterministic and defined for every t. */
typedef void (*ccb_motion_fn)(double t, void* user, ccb_pose* X_WB, ccb_twist* V_WB);

/* Applied load (explicit, part of k2 in formulation-convex §1.1): writes a force f_W [N] through
 * the centre of mass and a torque tau_W [N m], world frame, at time t with the body at X_WB, V_WB.
 * */
typedef void (*ccb_force_fn)(double t, const ccb_pose* X_WB, const ccb_twist* V_WB, void* user,
                             ccb_vec3* f_W, ccb_vec3* tau_W);

/* Acceleration of a prescribed motion at time t: angular acceleration alpha_W [rad/s^2] and
 * acceleration a_W [m/s^2] of the body origin, world frame; the time derivatives of the twist
 * that ccb_motion_fn writes. */
typedef void (*ccb_accel_fn)(double t, void* user, ccb_vec3* alpha_W, ccb_vec3* a_W);

/* Joint actuation of a prismatic / revolute mobilizer: the generalized force [N | N m] at time t,
 * joint coordinate q and rate v (explicit, part of k2 in formulation-convex §1.1). */
typedef double (*ccb_joint_force_fn)(double t, double q, double v, void* user);

/* A prismatic or revolute mobilizer to a parent body. */
typedef struct ccb_joint_def {
    int parent;       /* index of the parent body (added before this one), -1 for the world */
    ccb_pose X_PF;    /* joint frame F in the parent's body frame (world frame for -1) */
    ccb_pose X_BM;    /* joint frame M in this body's frame (whose origin is the COM) */
    ccb_vec3 axis;    /* joint axis in F (= in M), non-zero; normalized when added */
    double q0, v0;    /* initial coordinate [m | rad] and rate [m/s | rad/s] */
    double damping;   /* joint damping, implicit (formulation-convex §1.1), finite >= 0
                          [N s/m | N m s/rad] */
    double stiffness; /* joint spring -stiffness (q - q_rest), explicit, finite >= 0
                          [N/m | N m/rad] */
    double q_rest;    /* [m | rad] */
    ccb_joint_force_fn actuation; /* optional (NULL: none) */
    void* actuation_user;
} ccb_joint_def;
typedef struct ccb_body_def {
    const char* name; /* copied; [A-Za-z0-9_-], 1..47 chars; names coordinates "name.x" */
    ccb_mobilizer mobilizer;
    double mass;          /* [kg], finite > 0 (PLANAR) */
    ccb_mat3 inertia;     /* rotational inertia about the COM, body frame [kg m^2]; PLANAR
                                 uses the yy entry, which must be finite > 0 unless theta is locked;
                                 FREE needs it symmetric positive definite */
    unsigned locked;      /* PLANAR: CCB_LOCK_* bits of coordinates held at their initial value */
    ccb_pose pose;        /* FIXED: the pose; PLANAR: initial pose, a rotation about y; FREE:
                             initial pose (R a rotation matrix) */
    ccb_twist twist;      /* PLANAR: initial twist (planar: v_y = 0, w = (0, omega, 0)); FREE:
                             initial twist */
    double damping[3];    /* PLANAR: joint damping on (x, z, theta), implicit
                             (formulation-convex §1.1), [N s/m, N s/m, N m s/rad], finite >= 0 */
    ccb_motion_fn motion; /* PRESCRIBED: required */
    void* motion_user;    /* passed to motion */
    ccb_force_fn force;   /* optional applied load (NULL: none) */
    void* force_user;     /* passed to force */
    ccb_accel_fn accel;   /* PRESCRIBED: the motion's acceleration; required when a jointed
                             body has this body as parent, optional otherwise */
    ccb_joint_def joint;  /* PRISMATIC, REVOLUTE: the mobilizer (mass and inertia as FREE) */
} ccb_body_def;

/* A planar body of mass 1 kg and inertia 1 kg m^2 at the origin, at rest, nothing locked; its
 * joint (used only by PRISMATIC / REVOLUTE) hangs from the world with identity frames, axis x. */
CCB_API ccb_body_def ccb_body_def_default(void);

typedef enum ccb_shape_type {
    CCB_SHAPE_HALFSPACE = 0, /* the region z <= 0 of the shape frame; outward normal +z */
    CCB_SHAPE_BOX = 1,       /* centred box with half extents (8 corners act as contact points) */
    CCB_SHAPE_POINTS = 2,    /* a set of contact points (markers) fixed in the shape frame */
    CCB_SHAPE_SPHERE = 3,    /* sphere of `radius` centred at the shape origin */
    CCB_SHAPE_CAPSULE = 4,   /* segment from (-half_length, 0, 0) to (+half_length, 0, 0) of the
                                shape frame swept by a sphere of `radius` (radius 0: a segment,
                                i.e. two end points); it touches half-spaces and spheres */
    CCB_SHAPE_HYDRO = 5      /* tetrahedral mesh with a pressure field (ccb/hydro.h): compliant
                                (finite material.k) against a rigid half-space, one contact per
                                face of the slice; or rigid (k = INFINITY, its surface triangles)
                                against a compliant half-space, one per clipped triangle */
} ccb_shape_type;

/* Contact material of a shape. A rigid surface has k = INFINITY. Pair values combine as in
 * Drake (spec: formulation-convex §8.8): k = kA kB/(kA+kB), d = (kB dA + kA dB)/(kA+kB),
 * tau_d = tauA + tauB, mu = 2 muA muB/(muA + muB); a rigid side contributes nothing to k, d.
 *
 * Anisotropic friction (ICF Appendix B; formulation-convex §18): a rigid half-space may have a
 * grain, its shape frame's x axis, with friction mu along it and mu2 across it (along its y
 * axis): the friction tensor diag(mu, mu2) and the elliptic cone |diag(mu, mu2)^-1 gamma_t| <=
 * gamma_n. Its contacts' frames are (x, y, z) of the half-space, so t1 is the grain. Each axis
 * combines with the other side's (isotropic) mu by the rule above. mu2 = 0: isotropic. */
typedef struct ccb_material {
    double k;     /* normal stiffness [N/m], > 0, may be INFINITY (rigid) */
    double d;     /* Hunt & Crossley dissipation [s/m], finite >= 0 */
    double tau_d; /* SAP relaxation time [s], finite >= 0 */
    double mu;    /* Coulomb friction [-], finite >= 0 (along the grain, or along t1 of a
                     contact's pair material, if mu2 > 0) */
    double mu2;   /* friction across the grain [-] (along t2 of a contact), finite >= 0; 0: the
                     material is isotropic; > 0 only on a rigid half-space, and then mu > 0 */
} ccb_material;

typedef struct ccb_shape_def {
    const char* name; /* copied, optional (NULL: "shape<i>") */
    ccb_shape_type type;
    ccb_pose pose;              /* X_BS, shape frame in the body frame */
    ccb_vec3 half_extents;      /* BOX: [m], finite > 0 */
    const ccb_vec3* points;     /* POINTS: npoints positions in the shape frame [m]; copied */
    int npoints;                /* POINTS: >= 1 */
    double radius;              /* SPHERE: > 0; CAPSULE: >= 0 [m] */
    double half_length;         /* CAPSULE: > 0 [m] */
    const ccb_hydro_mesh* mesh; /* HYDRO: the mesh in the shape frame (copied) */
    ccb_hydro_repr hydro_repr;  /* HYDRO: polygons (default) or triangles,
                                   formulation-tamsi-hydro §F.3; also used by a compliant
                                   half-space's faces */
    double hydro_slab;          /* HALFSPACE: 0 (default) rigid; > 0 a compliant hydroelastic
                               half-space of this slab thickness H_s [m] and modulus
                               material.k (formulation-tamsi-hydro §F.1); it touches only rigid HYDRO shapes */
    ccb_material material;      /* HYDRO and compliant half-space: k stands for the modulus E
                               (INFINITY: a rigid HYDRO surface; weights the dissipation in the
                               pair rule, formulation-tamsi-hydro §F.4 step 6); each face has k = A g */
} ccb_shape_def;

/* A rigid, frictionless half-space at the identity pose. */
CCB_API ccb_shape_def ccb_shape_def_default(void);

/* Creates an empty model with gravity (0, 0, -9.81) m/s^2. CCB_E_NOMEM on failure. */
CCB_API ccb_status ccb_model_create(ccb_model** model);
/* Accepts NULL. */
CCB_API void ccb_model_destroy(ccb_model* model);
/* Message of the last failed call on this model ("" if none). Valid until the next call. */
CCB_API const char* ccb_model_last_error(const ccb_model* model);

/* Gravity [m/s^2], finite. CCB_E_INVALID after finalize or for non-finite values. */
CCB_API ccb_status ccb_model_set_gravity(ccb_model* model, ccb_vec3 g);
/* Adds a body; validates the definition (CCB_E_INVALID with a message naming the body and the
 * field). *body_id receives its index. The model is unchanged on failure. */
CCB_API ccb_status ccb_model_add_body(ccb_model* model, const ccb_body_def* def, int* body_id);
/* Attaches a shape to a body; validates it. *shape_id (may be NULL) receives its index. */
CCB_API ccb_status ccb_model_add_shape(ccb_model* model, int body, const ccb_shape_def* def,
                                       int* shape_id);
/* No contacts are generated between the two bodies (order does not matter). */
CCB_API ccb_status ccb_model_filter_pair(ccb_model* model, int body_a, int body_b);
/* Freezes the model: numbers the coordinates and cliques and checks that every pair of shapes
 * that can touch has a contact query and a finite combined stiffness (CCB_E_INVALID naming the
 * pair otherwise). Required before geometry queries and simulation. */
CCB_API ccb_status ccb_model_finalize(ccb_model* model);

CCB_API int ccb_model_nq(const ccb_model* model);
CCB_API int ccb_model_nv(const ccb_model* model);
CCB_API int ccb_model_nbodies(const ccb_model* model);
CCB_API int ccb_model_nshapes(const ccb_model* model);
CCB_API ccb_vec3 ccb_model_gravity(const ccb_model* model);
/* Body name, or NULL for an invalid index. */
CCB_API const char* ccb_model_body_name(const ccb_model* model, int body);
/* Index of the body with this name, or -1. */
CCB_API int ccb_model_find_body(const ccb_model* model, const char* name);
CCB_API double ccb_model_body_mass(const ccb_model* model, int body);
/* The definition body / shape was added with (copies; the pointers in them -- names, points,
 * mesh, callbacks -- stay owned by the model), and the body a shape belongs to. For exporters
 * (the MuJoCo peer). CCB_E_INVALID for an index out of range. */
CCB_API ccb_status ccb_model_body_def_get(const ccb_model* model, int body, ccb_body_def* def);
CCB_API ccb_status ccb_model_shape_def_get(const ccb_model* model, int shape, int* body,
                                           ccb_shape_def* def);
/* Offsets and counts of the body's coordinates in q and v (finalized model). */
CCB_API ccb_status ccb_model_body_coords(const ccb_model* model, int body, int* qoff, int* nq,
                                         int* voff, int* nv);
/* Name ("box.x") and unit ("m", "rad") of position coordinate i, and of velocity coordinate i
 * ("box.vx", "m/s"). NULL for an invalid index or an unfinalized model. */
CCB_API const char* ccb_model_q_name(const ccb_model* model, int i);
CCB_API const char* ccb_model_q_unit(const ccb_model* model, int i);
CCB_API const char* ccb_model_v_name(const ccb_model* model, int i);
CCB_API const char* ccb_model_v_unit(const ccb_model* model, int i);

/* Initial state from the body definitions: q[nq], v[nv]. */
CCB_API ccb_status ccb_model_initial_state(const ccb_model* model, double* q, double* v);
/* qdot[nq] = N(q) v of every body (formulation-convex §1.1): the position direction of a velocity
 * direction, e.g. a derivative direction tangent to a free body's unit quaternion (ccb/deriv.h).
 * CCB_E_INVALID for NULL or a model not finalized. */
CCB_API ccb_status ccb_model_qdot(const ccb_model* model, const double* q, const double* v,
                                  double* qdot);
/* Pose and twist of a body at time t and state (q, v) (v may be NULL for the pose only). */
CCB_API ccb_status ccb_model_body_pose(const ccb_model* model, int body, double t, const double* q,
                                       ccb_pose* X_WB);
CCB_API ccb_status ccb_model_body_twist(const ccb_model* model, int body, double t, const double* q,
                                        const double* v, ccb_twist* V_WB);

#ifdef __cplusplus
}
#endif
#endif
