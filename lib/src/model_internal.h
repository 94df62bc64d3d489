/* Model internals shared by geometry, problem and sim (not installed). */
#ifndef CCB_MODEL_INTERNAL_H
#define CCB_MODEL_INTERNAL_H

#include "ccb/model.h"
#include "internal.h"

#define CCB_NAME_MAX 48
#define CCB_MAX_BODY_NV 6 /* largest velocity count of one mobilizer (free body) */

/* 1 for the mobilizers that join a body to a parent (prismatic, revolute) */
static inline int ccb_mobilizer_is_joint(ccb_mobilizer k) {
    return k == CCB_MOBILIZER_PRISMATIC || k == CCB_MOBILIZER_REVOLUTE;
}

typedef struct ccb_body {
    char name[CCB_NAME_MAX];
    ccb_body_def def; /* copy; def.name points at `name` */
    int qoff, nq;     /* position coordinates in q */
    int voff, nv;     /* velocity coordinates in v */
    int clique;       /* clique index, -1 if nv == 0 */
    /* PLANAR */
    int coord[3];      /* generalized coordinate i is planar coordinate coord[i] (0 x, 1 z, 2 th) */
    double planar0[3]; /* initial (x, z, theta) (locked ones stay there) */
    double y0;         /* plane offset [m] */
    /* FREE */
    double free0[7]; /* initial (x, y, z, qw, qx, qy, qz) */
    /* trees (finalized) */
    int parent; /* PRISMATIC/REVOLUTE: parent body, -1 world; -1 for every other mobilizer */
    int up;     /* parent in the same clique, -1 for the root of a tree (or nv == 0) */
    int anchor; /* root of a tree hanging from a body without coordinates: that body, else -1 */
    int tvoff;  /* offset of the body's velocity coordinates within its clique */
} ccb_body;

typedef struct ccb_shape {
    char name[CCB_NAME_MAX];
    ccb_shape_def def;    /* copy; def.points points at `points` */
    ccb_vec3* points;     /* owned copy (POINTS) */
    ccb_hydro_mesh* mesh; /* owned copy (HYDRO) */
    int body;
    double bound; /* radius of a sphere about the shape origin that contains the shape [m]
                     (INFINITY for a half-space) */
} ccb_shape;

/* Narrow-phase query of a pair of shape types (geometry.c). */
typedef enum ccb_pair_kind {
    CCB_PAIR_NONE = 0,                 /* no query for these types */
    CCB_PAIR_HALFSPACE = 1,            /* half-space (A) vs the support points of B */
    CCB_PAIR_SPHERES = 2,              /* sphere (A) vs sphere (B) */
    CCB_PAIR_BOX_SPHERE = 3,           /* box (A) vs sphere (B) */
    CCB_PAIR_HALFSPACE_HYDRO = 4,      /* rigid half-space (A) vs compliant hydroelastic mesh (B) */
    CCB_PAIR_SOFT_HALFSPACE_HYDRO = 5, /* compliant half-space (A) vs rigid surface mesh (B) */
    CCB_PAIR_CAPSULE_SPHERE = 6,       /* capsule (A) vs sphere (B) */
    CCB_PAIR_HYDRO_MESHES = 7          /* hydroelastic mesh (A, rigid or compliant) vs compliant
                                          hydroelastic mesh (B): formulation-tamsi-hydro §F.2 */
} ccb_pair_kind;

/* The query of shapes i and j and which one is A (*a) and B (*b); CCB_PAIR_NONE if their types
 * have no query. Does not look at bodies or filters. */
ccb_pair_kind ccb_shape_pair_kind(const ccb_model* m, int i, int j, int* a, int* b);
/* 1 if shapes i and j can generate contacts: different bodies, at least one with velocity
 * coordinates, the body pair not filtered. */
int ccb_shape_pair_active(const ccb_model* m, int i, int j);
/* Combined material of shapes a (A) and b (B) (Drake's rules, spec formulation-convex §8.8) and
 * the weight kA/(kA+kB) of A's witness point in the contact point. */
ccb_material ccb_shape_pair_material(const ccb_model* m, int a, int b, double* weight_a);

struct ccb_model {
    ccb_body* bodies;
    int nbodies, cap_bodies;
    ccb_shape* shapes;
    int nshapes, cap_shapes;
    int* filters; /* pairs (a, b) with a < b */
    int nfilters, cap_filters;
    int* halfspaces; /* shapes that are half-spaces */
    int nhalfspaces;
    int* bounded; /* all other shapes */
    int nbounded;
    ccb_vec3 gravity;
    int finalized;
    int nq, nv, nclique;
    int* clique_body; /* nclique: root body of each clique (tree) */
    int* clique_nv;   /* nclique: velocity coordinates of the tree */
    int* clique_voff; /* nclique: offset of the tree's coordinates in v (contiguous) */
    int*
        clique_bstart; /* nclique + 1: the tree's bodies are clique_blist[bstart[c]..bstart[c+1]) */
    int* clique_blist; /* bodies grouped by tree, in index order within a tree (parents first) */
    int ntree_bodies;  /* bodies with velocity coordinates */
    char (*qnames)[2 * CCB_NAME_MAX];
    char (*vnames)[2 * CCB_NAME_MAX];
    const char** qunits;
    const char** vunits;
    char msg[CCB_MSG_SIZE];
};

/* ---- trees (tree.c; spec: formulation-convex §17) ------------------------------------------
 * Clique-level functions take the full state q, v and the full contact Jacobian block of a
 * tree. A tree of one free or planar body uses that body's closed forms below (bit-identical to
 * the single-body model); other trees use the composite-rigid-body and recursive Newton-Euler
 * algorithms in world-frame spatial vectors. */

/* 1 if clique c is one free or planar body (the closed-form path). */
static inline int ccb_clique_is_single(const ccb_model* m, int c) {
    return m->clique_bstart[c + 1] - m->clique_bstart[c] == 1 &&
           !ccb_mobilizer_is_joint(m->bodies[m->clique_body[c]].def.mobilizer);
}
/* Mass matrix A = M(q) of clique c (n x n row-major, n = clique_nv[c]). */
void ccb_clique_mass_matrix(const ccb_model* m, int c, double t, const double* q, double* M);
/* Explicit generalized force k2 of clique c at (t, q, v): gravity, applied loads, gyroscopic and
 * Coriolis terms, prescribed-parent accelerations, joint actuation and springs; no damping. */
void ccb_clique_generalized_force(const ccb_model* m, int c, double t, const double* q,
                                  const double* v, double* f);
/* Damping of velocity coordinate k of clique c. */
double ccb_clique_damping(const ccb_model* m, int c, int k);
/* Pose and twist of any body from the full state (q, v may be NULL for bodies without
 * coordinates; v is not read by the pose). */
void ccb_model_pose_of(const ccb_model* m, int body, double t, const double* q, ccb_pose* X);
void ccb_model_twist_of(const ccb_model* m, int body, double t, const double* q, const double* v,
                        ccb_twist* V);
/* Point Jacobian of the material point of `body` (in a tree that is not a single body) at p_W:
 * adds sign R^T Jp (3 x n, rows t1, t2, n of the frame R = R_WC) into J, the block of the body's
 * clique; Jp v = velocity of the point relative to the tree's anchor. */
void ccb_tree_point_jacobian(const ccb_model* m, int body, double t, const double* q, ccb_vec3 p_W,
                             const ccb_mat3* R, double sign, double* J);
/* Velocity of the material point at p_W of `body` due to its tree's anchor alone (joints at
 * rest), at time t; 0 for trees without an anchor. */
ccb_vec3 ccb_tree_anchor_point_velocity(const ccb_model* m, int body, double t, ccb_vec3 p_W);

/* Velocity map of a body with nv > 0: twist (w; v) = S v_b, S is 6 x nv row-major. */
void ccb_body_velocity_map(const ccb_body* b, const double* qb, double* S);
/* Mass matrix M_b = S^T diag(I_W, m I) S (nv x nv, row-major). */
void ccb_body_mass_matrix(const ccb_body* b, const double* qb, double* M);
/* Explicit generalized force k2 = S^T [tau - w x (I_W w); f + m g] (nv). */
void ccb_body_generalized_force(const ccb_model* m, const ccb_body* b, double t, const double* qb,
                                const double* vb, double* f);
/* Joint damping of velocity coordinate k of a body (0 for free bodies) [N s/m or N m s/rad]. */
static inline double ccb_body_damping(const ccb_body* b, int k) {
    return b->def.mobilizer == CCB_MOBILIZER_PLANAR ? b->def.damping[b->coord[k]] : 0.0;
}
/* qdot_b = N(q_b) v_b (planar: N = I; free: quat' = 1/2 (0, w) (x) quat). */
void ccb_body_qdot(const ccb_body* b, const double* qb, const double* vb, double* qdot);
/* Puts a free body's quaternion back onto the unit sphere (other bodies: nothing to do). */
void ccb_body_normalize(const ccb_body* b, double* qb);
/* q_b = q0_b + dt N(q0_b) v_b (symplectic Euler position update, formulation-convex §1.1). */
void ccb_body_integrate(const ccb_body* b, const double* q0b, const double* vb, double dt,
                        double* qb);
/* Pose / twist of any body (qb, vb point at the body's coordinates; unused for nv = 0). */
void ccb_body_pose(const ccb_body* b, double t, const double* qb, ccb_pose* X);
void ccb_body_twist(const ccb_body* b, double t, const double* qb, const double* vb, ccb_twist* V);
/* Jacobian of the velocity of the body-fixed material point at p_W: v_p = Jp vb,
 * Jp is 3 x nv row-major. */
void ccb_body_point_jacobian(const ccb_body* b, const double* qb, ccb_vec3 p_W, double* Jp);

/* The planar mobilizer's coordinate names x, z, theta (model.c). */
extern const char* const ccb_planar_q_names[3];
/* Records the failure message in m and returns s (model.c; model_finalize.c reports through it). */
ccb_status ccb_model_fail(ccb_model* m, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
