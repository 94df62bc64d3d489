/* Model internals shared by geometry, problem and sim (not installed). */
#ifndef CCB_MODEL_INTERNAL_H
#define CCB_MODEL_INTERNAL_H

#include "ccb/model.h"
#include "internal.h"

#define CCB_NAME_MAX 48
#define CCB_MAX_BODY_NV 6 /* largest velocity count of one mobilizer (free body) */

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
} ccb_body;

typedef struct ccb_shape {
    char name[CCB_NAME_MAX];
    ccb_shape_def def; /* copy; def.points points at `points` */
    ccb_vec3* points;  /* owned copy (POINTS) */
    int body;
} ccb_shape;

/* A pair of shapes that can touch, fixed at finalize. The half-space (if any) is shape `a`. */
typedef struct ccb_shape_pair {
    int a, b;
    ccb_material material; /* combined */
    double weight_a;       /* kA/(kA+kB): contact point = p_B + weight_a (p_A - p_B) */
} ccb_shape_pair;

struct ccb_model {
    ccb_body* bodies;
    int nbodies, cap_bodies;
    ccb_shape* shapes;
    int nshapes, cap_shapes;
    int* filters; /* pairs (a, b) with a < b */
    int nfilters, cap_filters;
    ccb_shape_pair* pairs;
    int npairs, cap_pairs;
    ccb_vec3 gravity;
    int finalized;
    int nq, nv, nclique;
    int* clique_body; /* nclique: body of each clique */
    char (*qnames)[2 * CCB_NAME_MAX];
    char (*vnames)[2 * CCB_NAME_MAX];
    const char** qunits;
    const char** vunits;
    char msg[CCB_MSG_SIZE];
};

/* Velocity map of a body with nv > 0: twist (w; v) = S v_b, S is 6 x nv row-major. */
void ccb_body_velocity_map(const ccb_body* b, const double* qb, double* S);
/* Mass matrix M_b = S^T diag(I_W, m I) S (nv x nv, row-major). */
void ccb_body_mass_matrix(const ccb_body* b, const double* qb, double* M);
/* Explicit generalized force k2 = S^T [tau - w x (I_W w); f + m g] (nv). */
void ccb_body_generalized_force(const ccb_model* m, const ccb_body* b, double t, const double* qb,
                                const double* vb, double* f);
/* qdot_b = N(q_b) v_b (planar: N = I). */
void ccb_body_qdot(const ccb_body* b, const double* qb, const double* vb, double* qdot);
/* q_b = q0_b + dt N(q0_b) v_b (symplectic Euler position update, spec §1.1). */
void ccb_body_integrate(const ccb_body* b, const double* q0b, const double* vb, double dt,
                        double* qb);
/* Pose / twist of any body (qb, vb point at the body's coordinates; unused for nv = 0). */
void ccb_body_pose(const ccb_body* b, double t, const double* qb, ccb_pose* X);
void ccb_body_twist(const ccb_body* b, double t, const double* qb, const double* vb, ccb_twist* V);
/* Jacobian of the velocity of the body-fixed material point at p_W: v_p = Jp vb,
 * Jp is 3 x nv row-major. */
void ccb_body_point_jacobian(const ccb_body* b, const double* qb, ccb_vec3 p_W, double* Jp);

#endif
