/* Problem internals shared with newton and sim (not installed). */
#ifndef CCB_PROBLEM_INTERNAL_H
#define CCB_PROBLEM_INTERNAL_H

#include "ccb/problem.h"
#include "internal.h"
#include "model_internal.h"

typedef struct ccb_pcontact {
    int clique[2];        /* -1 if absent; clique[0] >= 0 always */
    int nblk;             /* 1 or 2 */
    size_t joff[2];       /* offsets of the 3 x nv(clique) blocks in jdata */
    double b[3];          /* bias at the end of the step [m/s] */
    ccb_contact_input in; /* material, phi0, vn0, w */
    ccb_constraint c;     /* approximation constants */
    /* deferred contacts (ccb_problem_params.defer_inactive): rows not computed yet; c was
     * prepared with w = 0 and vn0 = centre[2] (the inactive radius does not use them) */
    int deferred;
    double centre[3]; /* v_c at v0 (R_WC^T of the bodies' point velocities) [m/s] */
    double radius;    /* the approximation's inactive radius about centre [m/s] */
    double scale[2];  /* per block: bound of |J_b,r|_2 sqrt(tr A_b^-1) [kg^-1/2] */
    double arm[2];    /* per block of a single free body: |r|, the contact point's distance
                       * from the body's origin [m] (the Euclidean bound of
                       * formulation-convex §8.11); INFINITY for other blocks */
    int contact;      /* index in the contact set (for completing it) */
} ccb_pcontact;

/* A lazy body pair in the problem: the cliques of its two bodies, its radius
 * and the bound scales of its blocks (as a deferred contact's; formulation-convex §8.11). */
typedef struct ccb_ppair {
    int clique[2];
    double radius;
    double scale[2];
    double arm[2]; /* as ccb_pcontact.arm: the reach, or INFINITY */
    int pair;      /* index in the contact set's pairs */
} ccb_ppair;

struct ccb_problem {
    const ccb_approx* approx;
    ccb_problem_params params;
    ccb_step_context step; /* the step the problem was built for (ccb/step.h) */
    /* cliques */
    int nclique, nv, cap_clique;
    int* clique_nv;      /* nclique */
    int* clique_voff;    /* nclique: offset in v */
    size_t* clique_aoff; /* nclique: offset of the nv_c x nv_c block in A (and L) */
    double* A;           /* blocks, row-major */
    double* L;           /* Cholesky factors of the blocks (lower triangles) */
    int L_fresh;         /* 1: L was computed from A as it stands (ccb_problem_build) */
    /* the cliques' terms (A, L, v*, v0, D, the bounds) are those ccb_problem_build computed for
     * its model, step, state and force, unchanged since (cliques_ok); keep_cliques: the next
     * build is of the same and keeps them (ccb_problem_keep_cliques) */
    int cliques_ok, keep_cliques;
    int* clique_exact; /* nclique: A came out of the build symmetric bit for bit (finish) */
    double* clique_fb; /* 3 nclique: for a clique of one free body (generalized velocity
                          * (w, v)), with A^-1 = [P Q; Q^T S]: tr P, |Q|_F, tr S (else -1s);
                          * for the deferral bound of problem.c, point_scale */
    int cap_fb;
    double* clique_ainv; /* nclique: sqrt(trace A_c^-1) >= |A_c^-1/2|_2, so that
                          * |J x| <= |J|_2 clique_ainv |x|_A for x of the clique [kg^-1/2] */
    size_t A_n;
    int cap_A;
    double* vstar; /* nv */
    double* v0;    /* nv */
    double* Adiag; /* nv */
    double* Ddiag; /* nv: joint damping D (A = M + dt D) [N s/m or N m s/rad] */
    double* work;  /* nv scratch */
    int cap_v;
    /* contacts */
    int nc, cap_c;
    ccb_pcontact* contacts;
    double* jdata;
    size_t j_n;
    int cap_j;
    /* participation: cliques touched by >= 1 contact, in index order (formulation-convex §8.2) */
    int np;           /* number of participating cliques */
    int npv;          /* number of participating velocities */
    int* pclique;     /* np: clique of participating index */
    int* clique_pidx; /* nclique: participating index or -1 */
    int* pvoff;       /* np: offset in the reduced (participating) velocity vector */
    int nedge, cap_edge;
    int* edges;      /* 2 nedge participating-index pairs (i < j), sorted, unique */
    uint64_t* ekeys; /* 2 nc: their sort keys and the sort's buffer */
    int cap_ekeys;
    /* what a deferred contact is completed from (valid until the next build) */
    const ccb_model* model;
    const ccb_contact_set* cset;
    const double *q0, *v0_full;
    int ndeferred;
    /* per body (deferral): pose at q0, twist at (q0, v0), or at t0 + dt without coordinates */
    ccb_pose* bX;
    ccb_twist* bV;
    int cap_bX, cap_bV;
    /* per body, for the contact loop of the build (the body records are large): clique (-1
     * without coordinates), 1 if it has none or is a single free or planar body */
    int *bclique, *bplain;
    int cap_bb;
    /* lazy body pairs of the contact set (formulation-convex §8.11): far for the whole solve or
     * the step is solved again with their contacts (CCB_E_RETRY) */
    ccb_ppair* pairs;
    int npairs, cap_pairs;
    char msg[CCB_MSG_SIZE];
};

/* The radius of a lazy pair (formulation-convex §8.11): a box half-width about every one of its
 * contacts' velocities v_c(v0) inside which the approximation's law is exactly zero, from the
 * pair's phi_lb and material and the bodies' twists at (q0, v0); <= 0 or NaN if there is none
 * (then the pair's contacts must be computed). Built-in approximations only. */
double ccb_lazy_pair_radius(const ccb_approx* approx, const ccb_approx_options* opt,
                            const ccb_step_context* step, const ccb_contact_pair* pr,
                            const ccb_twist* Va, const ccb_twist* Vb);

static inline const double* ccb_pc_block(const ccb_problem* p, const ccb_pcontact* c, int k) {
    return p->jdata + c->joff[k];
}

/* ---- shared by problem.c (the build) and problem_defer.c (deferral, lazy pairs) ---- */
/* Records a formatted error in p->msg; returns s. */
ccb_status ccb_problem_failf(ccb_problem* p, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The checks of a contact's inputs (k > 0, d, tau_d, mu >= 0, phi0 and vn0 finite), as contact i. */
ccb_status ccb_problem_check_input(ccb_problem* p, int i, const ccb_contact_input* in);
/* The frozen inputs of a contact (w: computed with the rows, 0 until then). */
void ccb_problem_set_inputs(ccb_pcontact* pc, const ccb_contact* ct, double vn0);
/* Velocity of the material point at p_W of a body with twist V and pose X. */
static inline ccb_vec3 ccb_point_velocity(const ccb_twist* V, const ccb_pose* X, ccb_vec3 p_W) {
    return ccb_v3_add(V->v, ccb_v3_cross(V->w, ccb_v3_sub(p_W, X->p)));
}
/* sqrt(trace A^-1) of a factored n x n block (y: n scratch). */
double ccb_problem_ainv_bound(int n, const double* L, double* y);
/* tr P, |Q|_F, tr S of A^-1 = [P Q; Q^T S] for a clique of one free body, from its A and
 * factor L (y: 6 scratch): the terms of the far and deferral bounds (formulation-convex §8.11). */
void ccb_problem_free_body_terms(const double* A, const double* L, double* y, double fb[3]);
/* Defers contact pc (item ct of the set, bodies body[0..1] = B, A) if the approximation shows it
 * inactive about its velocity at v0: its centre, radius, scales and arms, no rows. 1 if
 * deferred. */
int ccb_problem_defer_contact(ccb_problem* p, ccb_pcontact* pc, const ccb_contact* ct,
                              const int body[2]);
/* The contact set's lazy pairs into the problem, or CCB_E_RETRY if one cannot stay far (ok = 0:
 * the problem does not defer, or not a built-in approximation). */
ccb_status ccb_problem_lazy_pairs(ccb_problem* p, const ccb_contact_set* set, int ok);

/* Velocity of the material point at p_W of a body without coordinates (fixed or prescribed) at
 * time t [m/s]. */
ccb_vec3 ccb_passive_point_velocity(const ccb_body* b, double t, ccb_vec3 p_W);
/* Jacobian block of contact ct for `body` (with coordinates) at time t and positions q: the
 * 3 x n block of the body's clique (n its velocity count), rows t1, t2, n of sign R_WC^T J_p,
 * J_p the Jacobian of the body's material point at the contact point (sign +1 for body B, -1 for
 * body A: v_c = v_B - v_A, formulation-convex §0). fresh: the block is written; else (the second
 * side of a contact within one tree, formulation-convex §17.5) it is added to J. */
void ccb_contact_jacobian_block(const ccb_model* m, int body, double t, const double* q,
                                const ccb_contact* ct, double sign, int fresh, double* J);

/* Operations on the reduced vector of participating velocities (npv entries;
 * formulation-convex §8.2): offset of a participating clique's velocities in it, */
static inline int ccb_problem_coff(const ccb_problem* p, int clique) {
    return p->pvoff[p->clique_pidx[clique]];
}
/* v_full (nv) = v* with the participating cliques' entries taken from v (npv), */
void ccb_problem_expand(const ccb_problem* p, const double* v, double* v_full);
/* y = A x (block diagonal over participating cliques), */
void ccb_problem_A_mul(const ccb_problem* p, const double* x, double* y);
/* The same on the participating cliques acl[0..n-1] only (the others of y untouched). */
void ccb_problem_A_mul_some(const ccb_problem* p, const int* acl, int n, const double* x,
                            double* y);
/* y_i = J_i x (+ b_i if with_bias), 3 rows per contact (y has 3 nc entries), */
void ccb_problem_J_mul(const ccb_problem* p, const double* x, int with_bias, double* y);
/* Completes deferred contact i (rows, bias, w, constants: what the build would have computed);
 * CCB_OK at once for a complete one. The problem is a cache here: const-qualified callers (the
 * solvers) may complete contacts. */
ccb_status ccb_problem_complete(const ccb_problem* p, int i);
/* v_c of the contacts idx[0..n-1] at the reduced velocities v, from the bodies' point
 * velocities (no Jacobian rows needed; equal to J v + b up to round-off). */
void ccb_problem_point_velocities(const ccb_problem* p, const int* idx, int n, const double* v,
                                  double* vc);
/* the same for the contacts idx[0..n-1] only (y_i at 3 idx[k]; the others are not touched) */
void ccb_problem_J_mul_some(const ccb_problem* p, const int* idx, int n, const double* x,
                            int with_bias, double* y);
/* y = J^T g (g has 3 nc entries). */
void ccb_problem_Jt_mul(const ccb_problem* p, const double* g, double* y);
/* the same over the contacts idx[0..n-1] (ascending; idx NULL: 0..n-1), the others taken as
 * gamma = 0 */
void ccb_problem_Jt_mul_some(const ccb_problem* p, const int* idx, int n, const double* g,
                             double* y);
/* out (na x nb, row-major) += Ja^T G Jb with Ja 3 x na, G 3 x 3, Jb 3 x nb. */
void ccb_problem_add_JtGJ(const double* Ja, int na, const double* G, const double* Jb, int nb,
                          double* out);

/* The next ccb_problem_build is of the same model, approximation's step (t0, dt), state (q0, v0)
 * and applied force as the last one, which succeeded (a step solved again, sim.c): it keeps the
 * cliques' terms instead of computing them again (the same numbers: they read nothing else). */
void ccb_problem_keep_cliques(ccb_problem* p);

#endif
