/* bullet_module — the C interface of ccb's Bullet module (bullet_module.cpp, C++ behind it), a
 * shared object that bullet_peer.c opens at the first use of the Bullet peer (peer_dl.h). The
 * module knows nothing of ccb's model: bullet_peer.c describes the scene body by body and shape by
 * shape, and answers through callbacks which shape pairs touch and with which material.
 *
 * Conventions: positions [m] and velocities in the world frame; quaternions (w, x, y, z); angular
 * velocity in the world frame. Every function that can fail returns 0, or -1 with a message. */
#ifndef CCB_BULLET_MODULE_H
#define CCB_BULLET_MODULE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_bt_world ccb_bt_world;

typedef struct ccb_bt_callbacks {
    void* user;
    /* 1 if the shapes may touch (ccb's pair rule: different bodies, one moves, not filtered) */
    int (*pair_active)(void* user, int shape_a, int shape_b);
    /* the pair's material: stiffness k [N/m] (INFINITY: rigid), damping kd [N s/m], friction mu */
    void (*pair_material)(void* user, int shape_a, int shape_b, double* k, double* kd, double* mu);
} ccb_bt_callbacks;

enum { CCB_BT_STATIC = 0, CCB_BT_DYNAMIC = 1, CCB_BT_KINEMATIC = 2 };
enum { CCB_BT_SPHERE = 0, CCB_BT_BOX = 1, CCB_BT_PLANE = 2, CCB_BT_CAPSULE_X = 3 };
enum { CCB_BT_SEQUENTIAL_IMPULSE = 0, CCB_BT_MLCP_DANTZIG = 1 };

typedef struct ccb_bt_stats {
    int iterations; /* the solver's iterations (sequential impulses: its fixed count; MLCP: 0) */
    int ncon;       /* contact points of the step's manifolds */
    int npen;       /* of them, those that penetrate */
    double pen_mean, pen_max;
    double fn_sum; /* the normal forces [N] (forces asked for) */
} ccb_bt_stats;

/* The module's table: one symbol, ccb_bullet_module, that bullet_peer.c looks up. */
typedef struct ccb_bt_api {
    int abi; /* CCB_BT_ABI */
    const char* (*version)(void);
    ccb_bt_world* (*create)(const double gravity[3], int solver, double dt,
                            const ccb_bt_callbacks* cb, char* msg, size_t n);
    /* A body; its index (0, 1, ...), or -1. inertia: principal moments in the body frame;
     * lin_factor, ang_factor: 1 free, 0 held (world axes x, y, z). */
    int (*add_body)(ccb_bt_world* w, int kind, double mass, const double inertia[3],
                    const double pos[3], const double quat[4], const double lin_factor[3],
                    const double ang_factor[3]);
    /* A shape of a body at pos/quat in the body frame (a static body: the world frame); size:
     * sphere radius, box half extents, plane normal (and size[3]: its offset n . x), capsule
     * along x radius and half length. shape: the ccb
     * shape index the callbacks receive. 0, or -1. */
    int (*add_shape)(ccb_bt_world* w, int body, int type, const double size[4], const double pos[3],
                     const double quat[4], int shape, char* msg, size_t n);
    /* After the last shape: the bodies enter the world. 0, or -1. */
    int (*finish)(ccb_bt_world* w, char* msg, size_t n);
    void (*set_state)(ccb_bt_world* w, int body, const double pos[3], const double quat[4],
                      const double v[3], const double omega[3]);
    void (*get_state)(const ccb_bt_world* w, int body, double pos[3], double quat[4], double v[3],
                      double omega[3]);
    /* One step of dt; f_body (3 per body, or NULL): the contact force on each body. */
    void (*step)(ccb_bt_world* w, ccb_bt_stats* st, double* f_body);
    void (*destroy)(ccb_bt_world* w);
    /* An applied load over the next step: force f through the centre of mass and torque tau,
     * world frame (a dynamic body; Bullet clears it after the step). */
    void (*add_load)(ccb_bt_world* w, int body, const double f[3], const double tau[3]);
    /* After finish: a slider joint (btSliderConstraint) that lets a dynamic body move along the
     * world axis `axis` (unit) relative to `parent` (a body, or -1: the world) and holds the other
     * five relative coordinates. 0, or -1. */
    int (*add_slider)(ccb_bt_world* w, int body, int parent, const double axis[3], char* msg,
                      size_t n);
} ccb_bt_api;

#define CCB_BT_ABI 3

#ifdef __cplusplus
}
#endif

#endif
