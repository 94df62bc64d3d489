/* problem_ops: the accessors of a built step problem and the operations on its reduced
 * (participating) velocity vector that the Newton and TAMSI solvers share: A x, J x + b, J^T g
 * (spec: formulation-convex §1.2, §8.2). problem.c assembles the problem. */
#include <math.h>
#include <string.h>

#include "problem_internal.h"

/* ---- accessors ----------------------------------------------------------------------------- */

int ccb_problem_nv(const ccb_problem* p) {
    return p ? p->nv : 0;
}
const ccb_step_context* ccb_problem_step(const ccb_problem* p) {
    return p && p->approx ? &p->step : NULL;
}
int ccb_problem_nc(const ccb_problem* p) {
    return p ? p->nc : 0;
}
const double* ccb_problem_vstar(const ccb_problem* p) {
    return p ? p->vstar : NULL;
}
const double* ccb_problem_v0(const ccb_problem* p) {
    return p ? p->v0 : NULL;
}
/* the accessors complete a deferred contact first (NULL if that fails) */
const ccb_constraint* ccb_problem_constraint(const ccb_problem* p, int i) {
    return (p && i >= 0 && i < p->nc && ccb_problem_complete(p, i) == CCB_OK) ? &p->contacts[i].c
                                                                              : NULL;
}
const ccb_contact_input* ccb_problem_contact_input(const ccb_problem* p, int i) {
    return (p && i >= 0 && i < p->nc && ccb_problem_complete(p, i) == CCB_OK) ? &p->contacts[i].in
                                                                              : NULL;
}
const ccb_approx* ccb_problem_approx(const ccb_problem* p) {
    return p ? p->approx : NULL;
}

ccb_status ccb_problem_contact_velocity(const ccb_problem* p, int i, const double* v,
                                        double vc[3]) {
    if (p == NULL || v == NULL || vc == NULL || i < 0 || i >= p->nc) {
        return CCB_E_INVALID;
    }
    const ccb_status s = ccb_problem_complete(p, i);
    if (s != CCB_OK) {
        return s;
    }
    const ccb_pcontact* pc = &p->contacts[i];
    for (int r = 0; r < 3; ++r) {
        vc[r] = pc->b[r];
    }
    for (int k = 0; k < pc->nblk; ++k) {
        const int c = pc->clique[k];
        const int n = p->clique_nv[c];
        const double* J = ccb_pc_block(p, pc, k);
        const double* vb = v + p->clique_voff[c];
        for (int r = 0; r < 3; ++r) {
            for (int j = 0; j < n; ++j) {
                vc[r] += J[r * n + j] * vb[j];
            }
        }
    }
    return CCB_OK;
}

/* ---- reduced (participating) vector operations, shared by the Newton and TAMSI solvers ---- */

void ccb_problem_expand(const ccb_problem* p, const double* v, double* v_full) {
    memcpy(v_full, p->vstar, (size_t)p->nv * sizeof(double));
    for (int a = 0; a < p->np; ++a) {
        const int c = p->pclique[a];
        memcpy(v_full + p->clique_voff[c], v + p->pvoff[a],
               (size_t)p->clique_nv[c] * sizeof(double));
    }
}

/* y = A x for one n x n block (row by row, each sum in column order) */
static inline __attribute__((always_inline)) void block_A_mul(const double* A, const double* xb,
                                                              int n, double* yb) {
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) {
            s += A[i * n + j] * xb[j];
        }
        yb[i] = s;
    }
}

/* y_a = A_a x_a for participating clique a */
static inline void clique_A_mul(const ccb_problem* p, int a, const double* x, double* y) {
    const int c = p->pclique[a];
    const int n = p->clique_nv[c];
    const double* A = p->A + p->clique_aoff[c];
    if (n == 6) { /* a free body: the same sums, unrolled */
        block_A_mul(A, x + p->pvoff[a], 6, y + p->pvoff[a]);
    } else {
        block_A_mul(A, x + p->pvoff[a], n, y + p->pvoff[a]);
    }
}

void ccb_problem_A_mul(const ccb_problem* p, const double* x, double* y) {
    for (int a = 0; a < p->np; ++a) {
        clique_A_mul(p, a, x, y);
    }
}

void ccb_problem_A_mul_some(const ccb_problem* p, const int* acl, int n, const double* x,
                            double* y) {
    for (int m = 0; m < n; ++m) {
        clique_A_mul(p, acl[m], x, y);
    }
}

/* y_i = J_i x (+ b_i) of one contact; every product with J goes through here, so a contact's
 * value does not depend on which others are computed with it. */
static inline __attribute__((always_inline)) void block_J_mul(const double* J, const double* xb,
                                                              int n, double* yi) {
    for (int r = 0; r < 3; ++r) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) {
            s += J[r * n + j] * xb[j];
        }
        yi[r] += s;
    }
}

static inline void contact_J_mul(const ccb_problem* p, const ccb_pcontact* pc, const double* x,
                                 int with_bias, double* yi) {
    for (int r = 0; r < 3; ++r) {
        yi[r] = with_bias ? pc->b[r] : 0.0;
    }
    for (int k = 0; k < pc->nblk; ++k) {
        const int n = p->clique_nv[pc->clique[k]];
        const double* J = ccb_pc_block(p, pc, k);
        const double* xb = x + ccb_problem_coff(p, pc->clique[k]);
        if (n == 6) { /* a free body: the same sums, unrolled */
            block_J_mul(J, xb, 6, yi);
        } else {
            block_J_mul(J, xb, n, yi);
        }
    }
}

void ccb_problem_J_mul(const ccb_problem* p, const double* x, int with_bias, double* y) {
    for (int i = 0; i < p->nc; ++i) {
        contact_J_mul(p, &p->contacts[i], x, with_bias, y + 3 * i);
    }
}

void ccb_problem_J_mul_some(const ccb_problem* p, const int* idx, int n, const double* x,
                            int with_bias, double* y) {
    for (int k = 0; k < n; ++k) {
        contact_J_mul(p, &p->contacts[idx[k]], x, with_bias, y + 3 * idx[k]);
    }
}

void ccb_problem_Jt_mul(const ccb_problem* p, const double* g, double* y) {
    ccb_problem_Jt_mul_some(p, NULL, p->nc, g, y);
}

void ccb_problem_Jt_mul_some(const ccb_problem* p, const int* idx, int count, const double* g,
                             double* y) {
    memset(y, 0, (size_t)p->npv * sizeof(double));
    for (int m = 0; m < count; ++m) {
        const int i = idx ? idx[m] : m;
        const ccb_pcontact* pc = &p->contacts[i];
        const double* gi = g + 3 * i;
        if (gi[0] == 0.0 && gi[1] == 0.0 && gi[2] == 0.0) {
            continue; /* adds exactly nothing */
        }
        for (int k = 0; k < pc->nblk; ++k) {
            const int n = p->clique_nv[pc->clique[k]];
            const double* J = ccb_pc_block(p, pc, k);
            double* yb = y + ccb_problem_coff(p, pc->clique[k]);
            for (int j = 0; j < n; ++j) {
                yb[j] += J[j] * gi[0] + J[n + j] * gi[1] + J[2 * n + j] * gi[2];
            }
        }
    }
}

static inline __attribute__((always_inline)) void
add_JtGJ(const double* Ja, int na, const double* G, const double* Jb, int nb, double* out) {
    for (int i = 0; i < na; ++i) {
        double gj[3]; /* (Ja^T G)_i,: */
        for (int s = 0; s < 3; ++s) {
            gj[s] = Ja[i] * G[s] + Ja[na + i] * G[3 + s] + Ja[2 * na + i] * G[6 + s];
        }
        for (int j = 0; j < nb; ++j) {
            out[i * nb + j] += gj[0] * Jb[j] + gj[1] * Jb[nb + j] + gj[2] * Jb[2 * nb + j];
        }
    }
}

void ccb_problem_add_JtGJ(const double* Ja, int na, const double* G, const double* Jb, int nb,
                          double* out) {
    if (na == 6 && nb == 6) { /* two free bodies: the same sums, unrolled */
        add_JtGJ(Ja, 6, G, Jb, 6, out);
    } else {
        add_JtGJ(Ja, na, G, Jb, nb, out);
    }
}
