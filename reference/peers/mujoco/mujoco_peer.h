/* mujoco_peer — a ccb scene stepped by MuJoCo (the optional peer of `ccb bench --peers`, of the
 * `mujoco` variant and of the cases' peer studies).
 *
 * Translates a finalized ccb model (fixed, prescribed-translation, free and planar bodies;
 * spheres, boxes, half-spaces and contact points) into MuJoCo's MJCF in memory (nothing is
 * written), with the same time step, gravity, masses, inertias, joint damping, friction and initial
 * state, and steps it with MuJoCo's Newton solver. The state after every step comes back in ccb's
 * coordinates, so a peer run is recorded like a ccb run. MuJoCo's settings and the
 * contact-stiffness mapping are listed by peer_mujoco_describe(); speed §3 explains them.
 * Built only when CMake finds MuJoCo's header and library (Debian: libmujoco-dev). */
#ifndef CCB_MUJOCO_PEER_H
#define CCB_MUJOCO_PEER_H

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

typedef struct peer_options {
    peer_geometry geometry;
    peer_stiffness stiffness;
} peer_options;

typedef struct peer_result {
    double wall; /* stepping loop [s] (model compilation and reset excluded) */
    long steps;
    double mean_iter; /* solver iterations per step */
    double mean_ncon; /* contacts per step */
    double mean_pen;  /* mean penetration depth of the contacts [m] */
    int ok;           /* 0 if the state became non-finite (MuJoCo warnings) */
} peer_result;

/* What one step did. */
typedef struct peer_step_info {
    int iterations; /* MuJoCo's solver iterations */
    /* where they went (mjSolverStat of the step, mjdata.h): */
    int stop;             /* the test that ended the solve: 0 the scaled gradient, 1 the scaled cost
                         improvement fell below mjOption.tolerance (MuJoCo stops at either), 2
                         neither (the iteration cap); -1 no iteration */
    int ls_evals;         /* cost evaluations of the line searches, all iterations */
    int changes_last;     /* constraints whose state changed in the last iteration */
    int changes;          /* the same summed over the iterations */
    int ncon;             /* contacts */
    double pen_mean;      /* mean penetration of the penetrating contacts [m] (0: none) */
    double pen_max;       /* largest penetration [m] */
    double fn_sum;        /* sum of the contacts' normal forces [N] */
    const double* f_body; /* total contact force on each ccb body, world frame [N], 3 per body
                             (bodies that do not move under forces: 0); valid until the next
                             step */
} peer_step_info;

typedef struct peer_mujoco peer_mujoco; /* an open MuJoCo scene */

/* 1 if this build has the MuJoCo peer (its variants exist; the library is opened when one runs,
 * peer_dl.h). */
int peer_mujoco_built(void);
/* 1 if this build has the MuJoCo peer and its library opens (opens it). */
int peer_mujoco_available(void);
/* NULL when available, else why not (not built, or the library does not open). */
const char* peer_mujoco_absent(void);
/* MuJoCo's version string, or NULL when not available. */
const char* peer_mujoco_version(void);
/* Translates and compiles the model with step dt (the model must outlive the scene). 0, or -1 with
 * a message naming what blocks the translation. */
int peer_mujoco_open(const ccb_model* m, double dt, const peer_options* o, peer_mujoco** out,
                     char* msg, size_t n);
/* The current state in ccb's coordinates: q[nq], v[nv] of the model. */
void peer_mujoco_state(const peer_mujoco* p, double* q, double* v);
/* One step of dt. 0, or -1 with a message if the state became non-finite. */
int peer_mujoco_step(peer_mujoco* p, peer_step_info* info, char* msg, size_t n);
double peer_mujoco_time(const peer_mujoco* p);
void peer_mujoco_close(peer_mujoco* p); /* accepts NULL */
/* Steps the model from its initial state for t_final with step dt, timing the loop of mj_step.
 * 0, or -1 with a message. */
int peer_mujoco_run(const ccb_model* m, double dt, double t_final, const peer_options* o,
                    peer_result* out, char* msg, size_t n);
/* One line per setting (solver, cone, tolerance, stiffness mapping, translations), "key: value". */
void peer_mujoco_describe(double dt, const peer_options* o,
                          void (*line)(const char* key, const char* value, void* user), void* user);

#endif
