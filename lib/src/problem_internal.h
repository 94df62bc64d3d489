/* Problem internals shared with newton and sim (not installed). */
#ifndef CCB_PROBLEM_INTERNAL_H
#define CCB_PROBLEM_INTERNAL_H

#include "ccb/problem.h"
#include "internal.h"

typedef struct ccb_pcontact {
    int clique[2];        /* -1 if absent; clique[0] >= 0 always */
    int nblk;             /* 1 or 2 */
    size_t joff[2];       /* offsets of the 3 x nv(clique) blocks in jdata */
    double b[3];          /* bias at the end of the step [m/s] */
    ccb_contact_input in; /* material, phi0, vn0, w */
    ccb_constraint c;     /* approximation constants */
} ccb_pcontact;

struct ccb_problem {
    const ccb_approx* approx;
    ccb_problem_params params;
    /* cliques */
    int nclique, nv, cap_clique;
    int* clique_nv;      /* nclique */
    int* clique_voff;    /* nclique: offset in v */
    size_t* clique_aoff; /* nclique: offset of the nv_c x nv_c block in A (and L) */
    double* A;           /* blocks, row-major */
    double* L;           /* Cholesky factors of the blocks (lower triangles) */
    size_t A_n;
    int cap_A;
    double* vstar; /* nv */
    double* v0;    /* nv */
    double* Adiag; /* nv */
    double* work;  /* nv scratch */
    int cap_v;
    /* contacts */
    int nc, cap_c;
    ccb_pcontact* contacts;
    double* jdata;
    size_t j_n;
    int cap_j;
    /* participation: cliques touched by >= 1 contact, in index order (spec §8.2) */
    int np;           /* number of participating cliques */
    int npv;          /* number of participating velocities */
    int* pclique;     /* np: clique of participating index */
    int* clique_pidx; /* nclique: participating index or -1 */
    int* pvoff;       /* np: offset in the reduced (participating) velocity vector */
    int nedge, cap_edge;
    int* edges; /* 2 nedge participating-index pairs (i < j), sorted, unique */
    char msg[CCB_MSG_SIZE];
};

static inline const double* ccb_pc_block(const ccb_problem* p, const ccb_pcontact* c, int k) {
    return p->jdata + c->joff[k];
}

#endif
