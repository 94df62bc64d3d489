/* tree.c — articulated trees: kinematics, the composite-rigid-body mass matrix, the recursive
 * Newton-Euler explicit forces and point Jacobians (spec: formulation-convex §17).
 *
 * Spatial vectors are taken about the world origin O and expressed in the world frame
 * (formulation-convex §17.1): a motion vector is (w, v_O), the angular velocity and the velocity
 * of the body-fixed point passing through O; a force vector is (n_O, f), the moment about O and
 * the force. A tree of one free or planar body keeps the closed forms of model.c. */
#include <string.h>

#include "model_internal.h"

typedef struct sv {
    ccb_vec3 a; /* angular part (w, or the moment n_O) */
    ccb_vec3 l; /* linear part (v_O, or the force f) */
} sv;

static sv sv_make(ccb_vec3 a, ccb_vec3 l) {
    sv r = {a, l};
    return r;
}
static sv sv_add(sv x, sv y) {
    return sv_make(ccb_v3_add(x.a, y.a), ccb_v3_add(x.l, y.l));
}
static sv sv_scale(double s, sv x) {
    return sv_make(ccb_v3_scale(s, x.a), ccb_v3_scale(s, x.l));
}
static double sv_dot(sv m, sv f) {
    return ccb_v3_dot(m.a, f.a) + ccb_v3_dot(m.l, f.l);
}
/* x cross y for motion vectors (formulation-convex §17.1, eq. (17.2)) */
static sv cross_m(sv x, sv y) {
    return sv_make(ccb_v3_cross(x.a, y.a),
                   ccb_v3_add(ccb_v3_cross(x.a, y.l), ccb_v3_cross(x.l, y.a)));
}
/* x cross* f for a motion x and a force f (formulation-convex §17.1, eq. (17.2)) */
static sv cross_f(sv x, sv f) {
    return sv_make(ccb_v3_add(ccb_v3_cross(x.a, f.a), ccb_v3_cross(x.l, f.l)),
                   ccb_v3_cross(x.a, f.l));
}
/* twist (w, velocity v_p of point p) as a motion vector about O: v_O = v_p - w x p */
static sv motion_at_origin(ccb_vec3 w, ccb_vec3 v_p, ccb_vec3 p) {
    return sv_make(w, ccb_v3_sub(v_p, ccb_v3_cross(w, p)));
}
/* velocity of the point at p: v_O + w x p */
static ccb_vec3 point_velocity(sv V, ccb_vec3 p) {
    return ccb_v3_add(V.l, ccb_v3_cross(V.a, p));
}

/* Spatial inertia about O (formulation-convex §17.1, eq. (17.3)): mass m, first moment h = m c,
 * rotational inertia about O, Ibar = I_c + m (|c|^2 1 - c c^T). Composite inertias are sums. */
typedef struct sinertia {
    double m;
    ccb_vec3 h;
    ccb_mat3 I;
} sinertia;

static sinertia body_inertia(const ccb_body* b, const ccb_pose* X) {
    const ccb_mat3 RT = ccb_m3_transpose(&X->R);
    const ccb_mat3 tmp = ccb_m3_mul(&X->R, &b->def.inertia);
    const ccb_mat3 IW = ccb_m3_mul(&tmp, &RT);
    const ccb_vec3 c = X->p;
    const double m = b->def.mass, cc = ccb_v3_dot(c, c);
    const double cv[3] = {c.x, c.y, c.z};
    sinertia S;
    S.m = m;
    S.h = ccb_v3_scale(m, c);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            S.I.m[3 * i + j] = 0.5 * (IW.m[3 * i + j] + IW.m[3 * j + i]) +
                               m * ((i == j ? cc : 0.0) - cv[i] * cv[j]);
        }
    }
    return S;
}

static void inertia_add(sinertia* A, const sinertia* B) {
    A->m += B->m;
    A->h = ccb_v3_add(A->h, B->h);
    for (int i = 0; i < 9; ++i) {
        A->I.m[i] += B->I.m[i];
    }
}

/* momentum of a motion x: (Ibar w + h x v_O, m v_O + w x h) (formulation-convex §17.1) */
static sv inertia_apply(const sinertia* I, sv x) {
    return sv_make(ccb_v3_add(ccb_m3_mul_v(&I->I, x.a), ccb_v3_cross(I->h, x.l)),
                   ccb_v3_add(ccb_v3_scale(I->m, x.l), ccb_v3_cross(x.a, I->h)));
}

static ccb_pose pose_inverse(const ccb_pose* X) {
    ccb_pose Y;
    Y.R = ccb_m3_transpose(&X->R);
    Y.p = ccb_v3_scale(-1.0, ccb_m3_mul_v(&Y.R, X->p));
    return Y;
}

/* Kinematics of one tree at (t, q): poses of its bodies and the motion S_k of each velocity
 * coordinate (formulation-convex §17.2). */
typedef struct tree_kin {
    int nb, nv;
    const int* bl;                   /* the model's bodies of the tree, parents first */
    int up[CCB_MAX_TREE_BODIES];     /* local index of the parent in the tree, -1 root */
    ccb_pose X[CCB_MAX_TREE_BODIES]; /* X_WB */
    int col_body[CCB_MAX_TREE_NV];   /* local body of each coordinate */
    sv S[CCB_MAX_TREE_NV];           /* motion per unit rate of each coordinate */
    sv V0, A0;                       /* anchor velocity and acceleration (0 without anchor) */
} tree_kin;

/* the anchor's motion as spatial vectors at time t (zero for the world and fixed bodies) */
static void anchor_motion(const ccb_model* m, int anchor, double t, sv* V0, sv* A0) {
    const ccb_vec3 z = ccb_v3(0, 0, 0);
    *V0 = *A0 = sv_make(z, z);
    if (anchor < 0 || m->bodies[anchor].def.mobilizer != CCB_MOBILIZER_PRESCRIBED) {
        return;
    }
    const ccb_body* ab = &m->bodies[anchor];
    ccb_pose X;
    ccb_twist V;
    ab->def.motion(t, ab->def.motion_user, &X, &V);
    *V0 = motion_at_origin(V.w, V.v, X.p);
    if (A0 != NULL && ab->def.accel != NULL) {
        ccb_vec3 alpha, a;
        ab->def.accel(t, ab->def.motion_user, &alpha, &a);
        /* d/dt (v_p - w x p) = a_p - alpha x p - w x v_p (formulation-convex §17.2) */
        *A0 = sv_make(alpha,
                      ccb_v3_sub(ccb_v3_sub(a, ccb_v3_cross(alpha, X.p)), ccb_v3_cross(V.w, V.v)));
    }
}

static void tree_kinematics(const ccb_model* m, int c, double t, const double* q, tree_kin* k) {
    k->bl = m->clique_blist + m->clique_bstart[c];
    k->nb = m->clique_bstart[c + 1] - m->clique_bstart[c];
    k->nv = m->clique_nv[c];
    const ccb_body* root = &m->bodies[k->bl[0]];
    anchor_motion(m, root->anchor, t, &k->V0, &k->A0);
    ccb_pose X_anchor;
    if (root->anchor >= 0) {
        ccb_body_pose(&m->bodies[root->anchor], t, NULL, &X_anchor);
    } else {
        X_anchor = ccb_pose_translation(ccb_v3(0, 0, 0));
    }
    for (int j = 0; j < k->nb; ++j) {
        const ccb_body* b = &m->bodies[k->bl[j]];
        k->up[j] = -1;
        for (int i = 0; i < j && b->up >= 0; ++i) {
            if (k->bl[i] == b->up) {
                k->up[j] = i;
            }
        }
        const double* qb = q + b->qoff;
        if (!ccb_mobilizer_is_joint(b->def.mobilizer)) { /* free or planar root */
            ccb_body_pose(b, t, qb, &k->X[j]);
            double S6[6 * CCB_MAX_BODY_NV];
            ccb_body_velocity_map(b, qb, S6);
            const ccb_vec3 cpos = k->X[j].p;
            for (int i = 0; i < b->nv; ++i) {
                const ccb_vec3 w = ccb_v3(S6[i], S6[b->nv + i], S6[2 * b->nv + i]);
                const ccb_vec3 vc = ccb_v3(S6[3 * b->nv + i], S6[4 * b->nv + i], S6[5 * b->nv + i]);
                k->S[b->tvoff + i] = motion_at_origin(w, vc, cpos);
                k->col_body[b->tvoff + i] = j;
            }
            continue;
        }
        /* X_WB = X_WP X_PF X_FM(q) X_BM^-1 (formulation-convex §17.2, eq. (17.4)) */
        const ccb_joint_def* jd = &b->def.joint;
        const ccb_pose* X_WP = k->up[j] >= 0 ? &k->X[k->up[j]] : &X_anchor;
        const ccb_pose X_WF = ccb_pose_compose(X_WP, &jd->X_PF);
        ccb_pose X_FM;
        if (b->def.mobilizer == CCB_MOBILIZER_PRISMATIC) {
            X_FM = ccb_pose_translation(ccb_v3_scale(qb[0], jd->axis));
        } else {
            X_FM.p = ccb_v3(0, 0, 0);
            X_FM.R = ccb_m3_axis_angle(jd->axis, qb[0]);
        }
        const ccb_pose X_WM = ccb_pose_compose(&X_WF, &X_FM);
        const ccb_pose X_MB = pose_inverse(&jd->X_BM);
        k->X[j] = ccb_pose_compose(&X_WM, &X_MB);
        const ccb_vec3 aW = ccb_m3_mul_v(&X_WF.R, jd->axis);
        const ccb_vec3 z = ccb_v3(0, 0, 0);
        /* revolute: rotation about the axis through F's origin, v_O = p_F x a; prismatic: (0, a) */
        k->S[b->tvoff] = b->def.mobilizer == CCB_MOBILIZER_PRISMATIC
                             ? sv_make(z, aW)
                             : sv_make(aW, ccb_v3_cross(X_WF.p, aW));
        k->col_body[b->tvoff] = j;
    }
}

/* spatial velocity of each body: V_j = V_parent + sum over its coordinates S_k v_k */
static void tree_velocities(const ccb_model* m, const tree_kin* k, const double* vc, sv* V,
                            sv* vJ) {
    for (int j = 0; j < k->nb; ++j) {
        const ccb_body* b = &m->bodies[k->bl[j]];
        sv s = sv_make(ccb_v3(0, 0, 0), ccb_v3(0, 0, 0));
        for (int i = 0; i < b->nv; ++i) {
            s = sv_add(s, sv_scale(vc[b->tvoff + i], k->S[b->tvoff + i]));
        }
        vJ[j] = s;
        V[j] = sv_add(k->up[j] >= 0 ? V[k->up[j]] : k->V0, s);
    }
}

/* composite-rigid-body algorithm (formulation-convex §17.3, eq. (17.6)) */
void ccb_clique_mass_matrix(const ccb_model* m, int c, double t, const double* q, double* M) {
    const ccb_body* root = &m->bodies[m->clique_body[c]];
    if (ccb_clique_is_single(m, c)) {
        ccb_body_mass_matrix(root, q + root->qoff, M);
        return;
    }
    tree_kin k;
    tree_kinematics(m, c, t, q, &k);
    sinertia Ic[CCB_MAX_TREE_BODIES];
    for (int j = 0; j < k.nb; ++j) {
        Ic[j] = body_inertia(&m->bodies[k.bl[j]], &k.X[j]);
    }
    for (int j = k.nb - 1; j > 0; --j) {
        if (k.up[j] >= 0) {
            inertia_add(&Ic[k.up[j]], &Ic[j]);
        }
    }
    const int n = k.nv;
    for (int i = 0; i < n; ++i) {
        const int bj = k.col_body[i];
        const sv F = inertia_apply(&Ic[bj], k.S[i]);
        /* M_il = S_l . (I^c_j S_i) for the coordinates l <= i of body j and its ancestors */
        for (int a = bj; a >= 0; a = k.up[a]) {
            const ccb_body* ab = &m->bodies[k.bl[a]];
            for (int l = ab->tvoff; l < ab->tvoff + ab->nv && l <= i; ++l) {
                M[i * n + l] = M[l * n + i] = sv_dot(k.S[l], F);
            }
        }
    }
    /* coordinates on different branches do not couple */
    for (int i = 0; i < n; ++i) {
        for (int l = 0; l < i; ++l) {
            int related = 0;
            for (int a = k.col_body[i]; a >= 0 && !related; a = k.up[a]) {
                related = a == k.col_body[l];
            }
            if (!related) {
                M[i * n + l] = M[l * n + i] = 0.0;
            }
        }
    }
}

/* recursive Newton-Euler algorithm at zero joint acceleration (formulation-convex §17.4,
 * eqs. (17.7)-(17.9)): k2 = -tau(q, v, 0) + joint actuation and springs */
void ccb_clique_generalized_force(const ccb_model* m, int c, double t, const double* q,
                                  const double* v, double* f) {
    const ccb_body* root = &m->bodies[m->clique_body[c]];
    if (ccb_clique_is_single(m, c)) {
        ccb_body_generalized_force(m, root, t, q + root->qoff, v + root->voff, f);
        return;
    }
    tree_kin k;
    tree_kinematics(m, c, t, q, &k);
    const double* vc = v + m->clique_voff[c];
    sv V[CCB_MAX_TREE_BODIES], vJ[CCB_MAX_TREE_BODIES], F[CCB_MAX_TREE_BODIES];
    tree_velocities(m, &k, vc, V, vJ);
    /* gravity as an upward acceleration of the base (formulation-convex §17.4) */
    const sv A0 = sv_make(k.A0.a, ccb_v3_sub(k.A0.l, m->gravity));
    sv A[CCB_MAX_TREE_BODIES];
    for (int j = 0; j < k.nb; ++j) {
        const ccb_body* b = &m->bodies[k.bl[j]];
        const ccb_vec3 cpos = k.X[j].p;
        const ccb_vec3 vcom = point_velocity(V[j], cpos);
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            /* a_j = a_parent + V_j x (S_j v_j): S_j moves with body j */
            A[j] = sv_add(k.up[j] >= 0 ? A[k.up[j]] : A0, cross_m(V[j], vJ[j]));
        } else {
            /* free/planar root: d/dt of (w, v_c - w x c) at rest rates = (0, v_c x w) */
            A[j] = sv_add(A0, sv_make(ccb_v3(0, 0, 0), ccb_v3_cross(vcom, V[j].a)));
        }
        const sinertia I = body_inertia(b, &k.X[j]);
        F[j] = sv_add(inertia_apply(&I, A[j]), cross_f(V[j], inertia_apply(&I, V[j])));
        if (b->def.force) {
            ccb_twist Vb;
            Vb.w = V[j].a;
            Vb.v = vcom;
            ccb_vec3 fu = ccb_v3(0, 0, 0), tu = ccb_v3(0, 0, 0);
            b->def.force(t, &k.X[j], &Vb, b->def.force_user, &fu, &tu);
            /* a force through the COM c and a torque: (tau + c x f, f) about O */
            F[j].a = ccb_v3_sub(F[j].a, ccb_v3_add(tu, ccb_v3_cross(cpos, fu)));
            F[j].l = ccb_v3_sub(F[j].l, fu);
        }
    }
    for (int j = k.nb - 1; j > 0; --j) {
        if (k.up[j] >= 0) {
            F[k.up[j]] = sv_add(F[k.up[j]], F[j]);
        }
    }
    for (int i = 0; i < k.nv; ++i) {
        f[i] = -sv_dot(k.S[i], F[k.col_body[i]]);
    }
    for (int j = 0; j < k.nb; ++j) {
        const ccb_body* b = &m->bodies[k.bl[j]];
        if (!ccb_mobilizer_is_joint(b->def.mobilizer)) {
            continue;
        }
        const ccb_joint_def* jd = &b->def.joint;
        const double qj = q[b->qoff], vj = vc[b->tvoff];
        double tau = -jd->stiffness * (qj - jd->q_rest);
        if (jd->actuation) {
            tau += jd->actuation(t, qj, vj, jd->actuation_user);
        }
        f[b->tvoff] += tau;
    }
}

double ccb_clique_damping(const ccb_model* m, int c, int k) {
    const int* bl = m->clique_blist + m->clique_bstart[c];
    const int nb = m->clique_bstart[c + 1] - m->clique_bstart[c];
    for (int j = 0; j < nb; ++j) {
        const ccb_body* b = &m->bodies[bl[j]];
        if (k >= b->tvoff && k < b->tvoff + b->nv) {
            return ccb_mobilizer_is_joint(b->def.mobilizer) ? b->def.joint.damping
                                                            : ccb_body_damping(b, k - b->tvoff);
        }
    }
    return 0.0;
}

/* local index of a body in its tree */
static int local_index(const tree_kin* k, int body) {
    for (int j = 0; j < k->nb; ++j) {
        if (k->bl[j] == body) {
            return j;
        }
    }
    return -1;
}

void ccb_model_pose_of(const ccb_model* m, int body, double t, const double* q, ccb_pose* X) {
    const ccb_body* b = &m->bodies[body];
    if (b->nv == 0 || ccb_clique_is_single(m, b->clique)) {
        ccb_body_pose(b, t, b->nq ? q + b->qoff : NULL, X);
        return;
    }
    tree_kin k;
    tree_kinematics(m, b->clique, t, q, &k);
    *X = k.X[local_index(&k, body)];
}

void ccb_model_twist_of(const ccb_model* m, int body, double t, const double* q, const double* v,
                        ccb_twist* Vout) {
    const ccb_body* b = &m->bodies[body];
    if (b->nv == 0 || ccb_clique_is_single(m, b->clique)) {
        ccb_body_twist(b, t, b->nq ? q + b->qoff : NULL, b->nv ? v + b->voff : NULL, Vout);
        return;
    }
    tree_kin k;
    tree_kinematics(m, b->clique, t, q, &k);
    sv V[CCB_MAX_TREE_BODIES], vJ[CCB_MAX_TREE_BODIES];
    tree_velocities(m, &k, v + m->clique_voff[b->clique], V, vJ);
    const int j = local_index(&k, body);
    Vout->w = V[j].a;
    Vout->v = point_velocity(V[j], k.X[j].p);
}

void ccb_tree_point_jacobian(const ccb_model* m, int body, double t, const double* q, ccb_vec3 p_W,
                             const ccb_mat3* R, double sign, double* J) {
    const ccb_body* b = &m->bodies[body];
    const int n = m->clique_nv[b->clique];
    double Jp[3 * CCB_MAX_TREE_NV];
    tree_kin k;
    tree_kinematics(m, b->clique, t, q, &k);
    memset(Jp, 0, 3 * (size_t)n * sizeof(double));
    for (int a = local_index(&k, body); a >= 0; a = k.up[a]) {
        const ccb_body* ab = &m->bodies[k.bl[a]];
        for (int l = ab->tvoff; l < ab->tvoff + ab->nv; ++l) {
            const ccb_vec3 u = point_velocity(k.S[l], p_W);
            Jp[l] = u.x;
            Jp[n + l] = u.y;
            Jp[2 * n + l] = u.z;
        }
    }
    for (int r = 0; r < 3; ++r) { /* rows t1, t2, n: sign R^T Jp */
        for (int l = 0; l < n; ++l) {
            J[r * n + l] +=
                sign * (R->m[r] * Jp[l] + R->m[3 + r] * Jp[n + l] + R->m[6 + r] * Jp[2 * n + l]);
        }
    }
}

ccb_vec3 ccb_tree_anchor_point_velocity(const ccb_model* m, int body, double t, ccb_vec3 p_W) {
    const ccb_body* b = &m->bodies[body];
    if (b->nv == 0 || b->anchor < 0) {
        return ccb_v3(0, 0, 0);
    }
    sv V0, A0;
    anchor_motion(m, b->anchor, t, &V0, &A0);
    return point_velocity(V0, p_W);
}
