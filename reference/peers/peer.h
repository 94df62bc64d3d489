/* peer — outside engines that step a ccb scene: MuJoCo, ODE and Bullet (the peer variants, the
 * cases' peer studies and `ccb bench --peers`).
 *
 * Each engine translates a finalized ccb model (fixed, prescribed-translation, free and planar
 * bodies, their applied loads; spheres, boxes, half-spaces and contact points) into its own scene with the same time
 * step, gravity, masses, inertias, friction and initial state, and steps it with its own contact
 * solver. The state after every step comes back in ccb's coordinates, so a peer run is recorded
 * like a ccb run. What a scene cannot express is refused at open with the reason. Each engine's
 * settings and parameter mapping are listed by its describe(), with their sources (ccb info
 * VARIANT; docs/speed.md §3).
 *
 * An engine is built only when CMake finds its package (Debian: libmujoco-dev, libode-dev,
 * libbullet-dev) and CCB_OPTIONAL is ON; its library is opened at its first use (peer_dl.h). */
#ifndef CCB_PEER_H
#define CCB_PEER_H

#include <stddef.h>

#include "ccb/model.h"

typedef enum peer_geometry {
    PEER_SAME_GEOMETRY = 0, /* every ccb shape as it is (the clutter's cubes: 26 spheres each) */
    PEER_NATIVE_BOXES = 1   /* a free body made of >= 8 spheres becomes the box that bounds them */
} peer_geometry;

/* How ccb's contact stiffness k [N/m] becomes MuJoCo's soft-constraint reference (solref). */
typedef enum peer_stiffness {
    PEER_STIFF_TIMECONST = 0, /* solref = (2 dt, 1): the stiffest time constant MuJoCo integrates
                                 stably, critically damped (MuJoCo's guidance); k is not used */
    PEER_STIFF_LITERAL = 1    /* solref = (-k/m, -2 sqrt(k/m)): ccb's k per unit mass of the
                                 lightest moving body, critically damped, used as it is */
} peer_stiffness;

/* The engine's contact solver. */
typedef enum peer_solver {
    PEER_SOLVER_DEFAULT = 0,   /* MuJoCo: Newton, elliptic cones; ODE: dWorldStep (Dantzig LCP);
                                  Bullet: sequential impulses (btSequentialImpulseConstraintSolver) */
    PEER_SOLVER_PGS = 1,       /* MuJoCo: projected Gauss-Seidel (dual), elliptic cones */
    PEER_SOLVER_CG = 2,        /* MuJoCo: nonlinear conjugate gradient (primal), elliptic cones */
    PEER_SOLVER_PYRAMIDAL = 3, /* MuJoCo: Newton, pyramidal cones */
    PEER_SOLVER_QUICKSTEP = 4, /* ODE: dWorldQuickStep (projected Gauss-Seidel, SOR) */
    PEER_SOLVER_DANTZIG = 5    /* Bullet: btMLCPSolver with btDantzigSolver */
} peer_solver;

typedef struct peer_options {
    peer_geometry geometry;
    peer_stiffness stiffness; /* MuJoCo only */
    peer_solver solver;
} peer_options;

/* What one step did (fields an engine does not report are 0, stop is -1). */
typedef struct peer_step_info {
    int iterations; /* the solver's iterations (0 where the engine does not report them) */
    /* where MuJoCo's iterations went (mjSolverStat of the step, mjdata.h): */
    int stop;             /* the test that ended the solve: 0 the scaled gradient, 1 the scaled cost
                         improvement fell below mjOption.tolerance (MuJoCo stops at either), 2
                         neither (the iteration cap); -1 no iteration or not reported */
    int ls_evals;         /* cost evaluations of the line searches, all iterations */
    int changes_last;     /* constraints whose state changed in the last iteration */
    int changes;          /* the same summed over the iterations */
    int ncon;             /* contacts */
    int npen;             /* contacts that penetrate */
    double pen_mean;      /* mean penetration of the penetrating contacts [m] (0: none) */
    double pen_max;       /* largest penetration [m] */
    double fn_sum;        /* sum of the contacts' normal forces [N] (forces requested) */
    const double* f_body; /* forces requested: total contact force on each ccb body, world frame
                             [N], 3 per body (bodies that do not move under forces: 0); valid
                             until the next step; otherwise NULL */
} peer_step_info;

typedef struct peer_result {
    double wall; /* stepping loop [s] (scene construction excluded) */
    long steps;
    double mean_iter; /* solver iterations per step */
    double mean_ncon; /* contacts per step */
    double mean_pen;  /* mean penetration depth of the penetrating contacts [m] */
    int ok;           /* 0 if the state became non-finite */
} peer_result;

typedef void (*peer_line_fn)(const char* key, const char* value, void* user);

/* One engine. A scene is the engine's own object behind void*. */
typedef struct peer_engine {
    const char* name;    /* "MuJoCo", "ODE", "Bullet" */
    const char* id;      /* meta.json's solver.name: "mujoco", "libode" (ccb has a solver "ode"),
                            "bullet" */
    const char* package; /* the Debian package that brings it */
    int (*built)(void);  /* 1 if this ccb was built with it */
    /* NULL when built and its library opens (opens it), else why not */
    const char* (*absent)(void);
    const char* (*version)(void); /* NULL when absent */
    /* Translates the model with step dt (the model must outlive the scene). 0, or -1 with a
     * message naming what blocks the translation. */
    int (*open)(const ccb_model* m, double dt, const peer_options* o, void** scene, char* msg,
                size_t n);
    void (*state)(const void* scene, double* q, double* v); /* q[nq], v[nv] of the model */
    /* One step of dt; forces: fill fn_sum and f_body (costs a pass over the contacts). 0; 1 with
     * a message if the state became non-finite (the run failed: a result); -1 with a message if
     * the step could not be made (e.g. a prescribed motion the scene cannot follow). */
    int (*step)(void* scene, peer_step_info* info, int forces, char* msg, size_t n);
    double (*time)(const void* scene);
    void (*close)(void* scene); /* accepts NULL */
    /* One line per setting and mapping, "key: value", each with its source. */
    void (*describe)(double dt, const peer_options* o, peer_line_fn line, void* user);
} peer_engine;

extern const peer_engine peer_engine_mujoco;
extern const peer_engine peer_engine_ode;
extern const peer_engine peer_engine_bullet;

/* The peer variants (run_config.peer is their id; 0 is "not a peer"). */
enum {
    PEER_NONE = 0,
    PEER_MUJOCO = 1,
    PEER_MUJOCO_K = 2,
    PEER_MUJOCO_PGS = 3,
    PEER_MUJOCO_CG = 4,
    PEER_MUJOCO_PYRAMIDAL = 5,
    PEER_ODE = 6,
    PEER_ODE_QUICKSTEP = 7,
    PEER_BULLET = 8,
    PEER_BULLET_DANTZIG = 9,
    PEER_COUNT = 10
};

typedef struct peer_variant {
    int id;
    const char* name;  /* the variant's name (ccb list) */
    const char* title; /* one line */
    const peer_engine* engine;
    peer_options options;
} peer_variant;

/* The variant of an id, or NULL (PEER_NONE or out of range). */
const peer_variant* peer_variant_of(int id);
/* The variant of a name, or NULL. */
const peer_variant* peer_variant_named(const char* name);

/* Steps the model from its initial state for t_final with step dt, timing the stepping loop.
 * 0, or -1 with a message. */
int peer_run(const peer_variant* pv, const ccb_model* m, double dt, double t_final,
             peer_result* out, char* msg, size_t n);

/* The functions of an engine this build lacks (its built() is 0, its absent() says why): the
 * variants of such an engine are not listed, so nothing opens a scene of it; open fails with a
 * message, the others are never reached. */
int peer_absent_open(const ccb_model* m, double dt, const peer_options* o, void** scene, char* msg,
                     size_t n);
void peer_absent_state(const void* scene, double* q, double* v);
int peer_absent_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n);
double peer_absent_time(const void* scene);
void peer_absent_close(void* scene);

/* The engine functions of a build without it (prefix p: p##_built ... p##_close; `why`: what
 * to install), for the #else branch of an engine's file. */
#define PEER_ABSENT_ENGINE(p, why)                                                                 \
    static int p##_built(void) {                                                                   \
        return 0;                                                                                  \
    }                                                                                              \
    static const char* p##_absent(void) {                                                          \
        return why;                                                                                \
    }                                                                                              \
    static const char* p##_version(void) {                                                         \
        return NULL;                                                                               \
    }

/* Shared by the engines' translations. */

/* What the ODE and Bullet translations take of a body: free, planar (without joint damping),
 * fixed and prescribed bodies, and prismatic joints (peer_check_joint). 0, or -1 with a message naming the body
 * and what `engine` ("ODE") does not translate. */
int peer_check_body(const ccb_model* m, int b, const char* engine, char* msg, size_t n);

/* What every engine takes of a jointed body: a prismatic joint whose parent is the world or a
 * body of prescribed translation (its frames in ccb's tree, formulation-convex §17.2); not a
 * revolute joint, nor a joint on a free, planar or jointed parent. 0, or -1 with a message. */
int peer_check_joint(const ccb_model* m, int b, const char* engine, char* msg, size_t n);
/* A prismatic body's joint in the world, its parent at pose X_WP (NULL: the world): the axis a_W
 * (unit) and the origin o_W of its frame F. X_WB = X_WP X_PF X_FM(q) X_BM^-1, X_FM(q) a
 * translation by q along the axis (formulation-convex §17.2, eq. (17.4)). */
void peer_slider_frame(const ccb_body_def* d, const ccb_pose* X_WP, ccb_vec3* a_W, ccb_vec3* o_W);
/* ccb's coordinate and rate of a prismatic body from its world pose and velocity and its
 * parent's (a translating parent: v_P is its velocity; NULL X_WP: the world):
 * q = a_W . (p_M - o_W), v = a_W . (v_B - v_P), p_M the origin of the joint frame M. */
void peer_slider_state(const ccb_body_def* d, const ccb_pose* X_WP, ccb_vec3 v_P,
                       const ccb_pose* X_WB, ccb_vec3 v_B, double* q, double* v);
/* The joint's explicit generalized force at t, q, v: its actuation and its spring, and its
 * damping -c v when `damping` (the engines without ccb's implicit joint damping). */
double peer_joint_force(const ccb_body_def* d, double t, double q, double v, int damping);

/* The applied loads of a model's bodies (ccb_body_def.force), as an engine applies them: evaluated
 * at the start of each step with the engine's state then, and held over the step, as ccb treats
 * them (explicit, part of k2 of formulation-convex §1.1; lib/src/problem.c). */
typedef struct peer_loads {
    int any;   /* 1 if some body has an applied load */
    double* q; /* the state at the step's start, filled by the engine: q[nq], v[nv] (also the
                  engines' scratch state for the joints' forces) */
    double* v;
    double* w; /* per body: force [N] then torque [N m], world frame (6 each; 0 without a load) */
} peer_loads;

/* 0, or -1 (out of memory; L is then empty). */
int peer_loads_init(peer_loads* L, const ccb_model* m);
void peer_loads_free(peer_loads* L);
/* Fills L->w with the loads at time t of the state in L->q, L->v. */
void peer_loads_eval(peer_loads* L, const ccb_model* m, double t);

/* Radius of the sphere that stands for a contact point (CCB_SHAPE_POINTS, and the ends of a
 * capsule of radius 0): it touches the point from above at the body's initial pose, so against a
 * horizontal surface its lowest point is the point (a turn of the body by a moves it by
 * r (1 - cos a)). */
#define PEER_POINT_RADIUS 1e-3
/* A half-space on a moving body (the engines' planes are static): a slab PEER_SLAB_HALF wide and
 * deep whose top face is the half-space's boundary. */
#define PEER_SLAB_HALF 10.0

/* A free body made only of >= 8 spheres: the box that bounds them (half extents, and mu of its
 * spheres); 0 if the body is not such a body. */
int peer_bounding_box(const ccb_model* m, int body, ccb_vec3* h, double* mu);
/* Planar angle about +y of a rotation that turns about y only, unwrapped to within pi of prev. */
double peer_planar_angle(const ccb_mat3* R, double prev);
/* The centre of a contact point's sphere (PEER_POINT_RADIUS) in the frame of X: the point
 * (in X's shape frame) raised by the radius along world z at the initial pose, R0 the rotation
 * of that frame to the world at t = 0 (NULL: the frame is the world's). */
ccb_vec3 peer_point_centre(const ccb_pose* X, ccb_vec3 point, const ccb_mat3* R0);
/* The contact points a shape stands for: a POINTS shape's, or the two ends of a capsule of radius
 * 0 (a segment); 0 for the other shapes. And the k-th of them, in the shape frame. */
int peer_shape_npoints(const ccb_shape_def* s);
ccb_vec3 peer_shape_point(const ccb_shape_def* s, int k);
/* The pose of the slab that stands for a half-space of pose X (see PEER_SLAB_HALF). */
ccb_pose peer_slab_pose(const ccb_pose* X);

#endif
