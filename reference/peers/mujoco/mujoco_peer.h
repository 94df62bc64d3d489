/* mujoco_peer — a ccb scene stepped by MuJoCo (optional peer of `ccb bench --peers`).
 *
 * Translates a finalized ccb model (fixed, free and planar bodies; spheres, boxes, half-spaces) into
 * MuJoCo's MJCF in memory (nothing is written) and times MuJoCo's stepping loop with the same
 * time step, gravity, masses, inertias, friction and initial state. MuJoCo's settings and the
 * contact-stiffness mapping are listed by peer_mujoco_describe(); README "Speed" explains them.
 * Built only when CMake finds MuJoCo's header and library (Debian: libmujoco-dev). */
#ifndef CCB_MUJOCO_PEER_H
#define CCB_MUJOCO_PEER_H

#include <stddef.h>

#include "ccb/model.h"

typedef enum peer_geometry {
    PEER_SAME_GEOMETRY = 0, /* every ccb shape as it is (the clutter's cubes: 26 spheres each) */
    PEER_NATIVE_BOXES = 1   /* a free body made of >= 8 spheres becomes the box that bounds them */
} peer_geometry;

typedef struct peer_result {
    double wall;       /* stepping loop [s] (model compilation and reset excluded) */
    long steps;
    double mean_iter;  /* solver iterations per step */
    double mean_ncon;  /* contacts per step */
    double mean_pen;   /* mean penetration depth of the contacts [m] */
    int ok;            /* 0 if the state became non-finite (MuJoCo warnings) */
} peer_result;

/* 1 if this build has the MuJoCo peer. */
int peer_mujoco_available(void);
/* MuJoCo's version string, or NULL without the peer. */
const char* peer_mujoco_version(void);
/* Steps the model from its initial state for t_final with step dt. 0, or -1 with a message. */
int peer_mujoco_run(const ccb_model* m, double dt, double t_final, peer_geometry geometry,
                    peer_result* out, char* msg, size_t n);
/* One line per setting (solver, cone, tolerance, stiffness mapping), "key: value". */
void peer_mujoco_describe(double dt, void (*line)(const char* key, const char* value, void* user),
                          void* user);

#endif
