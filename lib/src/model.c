/* model: bodies, mobilizers, shapes, materials; kinematics of each mobilizer.
 *
 * Free mobilizer: q = (p, quat) (7), v = (w_W, v_W) (6), velocity map S = I, mass matrix
 * diag(I_W, m I), qdot = (v, 1/2 (0, w) (x) quat); the step q = q0 + dt N(q0) v
 * (formulation-convex §1.1) is followed by renormalizing the quaternion.
 *
 * Planar mobilizer (spec: formulation-convex §1.1 with N = I): position (x, y0, z), rotation
 * R_y(theta); twist w = (0, thetadot, 0), v = (xdot, 0, zdot). Its velocity map S (6 x nv) picks
 * the unlocked coordinates; mass matrix M = S^T diag(R I_B R^T, m I) S; explicit force
 * k2 = S^T [tau - w x (I_W w); f + m g] (the gyroscopic term vanishes for planar motion but is
 * kept so that the same code serves other mobilizers). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "model_internal.h"

const char* const ccb_planar_q_names[3] = {"x", "z", "theta"};

ccb_body_def ccb_body_def_default(void) {
    ccb_body_def d;
    memset(&d, 0, sizeof d);
    d.mobilizer = CCB_MOBILIZER_PLANAR;
    d.mass = 1.0;
    d.inertia = ccb_m3_identity();
    d.pose = ccb_pose_planar(0, 0, 0);
    d.joint.parent = -1;
    d.joint.X_PF = ccb_pose_translation(ccb_v3(0, 0, 0));
    d.joint.X_BM = d.joint.X_PF;
    d.joint.axis = ccb_v3(1, 0, 0);
    return d;
}

ccb_shape_def ccb_shape_def_default(void) {
    ccb_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = CCB_SHAPE_HALFSPACE;
    d.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    d.material.k = INFINITY;
    return d;
}

ccb_status ccb_model_create(ccb_model** model) {
    if (model == NULL) {
        return CCB_E_INVALID;
    }
    *model = ccb_calloc(1, sizeof(ccb_model));
    if (*model == NULL) {
        return CCB_E_NOMEM;
    }
    (*model)->gravity = ccb_v3(0, 0, -9.81);
    return CCB_OK;
}

void ccb_model_destroy(ccb_model* m) {
    if (m == NULL) {
        return;
    }
    for (int i = 0; i < m->nshapes; ++i) {
        ccb_free(m->shapes[i].points);
        ccb_hydro_mesh_destroy(m->shapes[i].mesh);
    }
    ccb_free(m->bodies);
    ccb_free(m->shapes);
    ccb_free(m->filters);
    ccb_free(m->halfspaces);
    ccb_free(m->bounded);
    ccb_free(m->clique_body);
    ccb_free(m->clique_nv);
    ccb_free(m->clique_voff);
    ccb_free(m->clique_bstart);
    ccb_free(m->clique_blist);
    ccb_free(m->qnames);
    ccb_free(m->vnames);
    ccb_free(m->qunits);
    ccb_free(m->vunits);
    ccb_free(m);
}

const char* ccb_model_last_error(const ccb_model* m) {
    return m ? m->msg : "model is NULL";
}

ccb_status ccb_model_fail(ccb_model* m, ccb_status s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ccb_verrorf(m->msg, sizeof m->msg, s, fmt, ap);
    va_end(ap);
    return s;
}

ccb_status ccb_model_set_gravity(ccb_model* m, ccb_vec3 g) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (m->finalized) {
        return ccb_model_fail(m, CCB_E_INVALID, "set_gravity: model is already finalized");
    }
    if (!ccb_v3_isfinite(g)) {
        return ccb_model_fail(m, CCB_E_INVALID, "gravity must be finite (got %g, %g, %g)", g.x, g.y,
                              g.z);
    }
    m->gravity = g;
    return CCB_OK;
}

static int valid_name(const char* s) {
    size_t n = strlen(s);
    if (n == 0 || n >= CCB_NAME_MAX) {
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-')) {
            return 0;
        }
    }
    return 1;
}

static int finite_mat(const ccb_mat3* A) {
    return ccb_all_finite(A->m, 9);
}

/* theta such that R = R_y(theta), or NAN if R is not a rotation about y (tolerance 1e-9). */
static double planar_angle(const ccb_mat3* R) {
    const double th = atan2(R->m[2], R->m[0]);
    const ccb_mat3 Ry = ccb_m3_rot_y(th);
    for (int i = 0; i < 9; ++i) {
        if (!(fabs(R->m[i] - Ry.m[i]) <= 1e-9)) {
            return NAN;
        }
    }
    return th;
}

/* Mass finite > 0 and a finite, symmetric, positive definite inertia (free and jointed bodies). */
static ccb_status check_mass_inertia(ccb_model* m, const ccb_body_def* d, const char* name) {
    if (!(isfinite(d->mass) && d->mass > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "body '%s': mass must be finite and > 0 kg (got %g)", name, d->mass);
    }
    if (d->locked != 0) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "body '%s': only a planar body has lockable coordinates", name);
    }
    const double* I = d->inertia.m;
    const double scale = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    /* [round-off: a symmetric inertia computed from products is symmetric to a few ulps] */
    const int sym = fabs(I[1] - I[3]) <= 1e-12 * scale && fabs(I[2] - I[6]) <= 1e-12 * scale &&
                    fabs(I[5] - I[7]) <= 1e-12 * scale;
    const double m1 = I[0], m2 = I[0] * I[4] - I[1] * I[3];
    const double m3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                      I[2] * (I[3] * I[7] - I[4] * I[6]);
    if (!finite_mat(&d->inertia) || !sym || !(m1 > 0 && m2 > 0 && m3 > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "body '%s': inertia must be finite, symmetric and positive definite "
                              "(diagonal %g, %g, %g kg m^2)",
                              name, I[0], I[4], I[8]);
    }
    return CCB_OK;
}

/* A finite pose whose R is a rotation matrix. */
static ccb_status check_rotation(ccb_model* m, const ccb_pose* X, const char* name,
                                 const char* what) {
    if (!ccb_v3_isfinite(X->p) || !finite_mat(&X->R)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': %s must be finite", name, what);
    }
    const ccb_mat3 RT = ccb_m3_transpose(&X->R);
    const ccb_mat3 RtR = ccb_m3_mul(&RT, &X->R);
    double err = 0.0;
    for (int i = 0; i < 9; ++i) {
        err = fmax(err, fabs(RtR.m[i] - (i % 4 == 0 ? 1.0 : 0.0)));
    }
    const double* R = X->R.m;
    const double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                       R[2] * (R[3] * R[7] - R[4] * R[6]);
    /* [round-off: a rotation built from trigonometric products is orthonormal to ~1e-15] */
    if (!(err <= 1e-9 && det > 0)) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body '%s': %s: orientation is not a rotation matrix (|R^T R - I| = %g, "
            "det = %g)",
            name, what, err, det);
    }
    return CCB_OK;
}

/* A free body: mass > 0, SPD inertia, a rotation matrix as initial orientation, finite twist. */
static ccb_status check_free_body(ccb_model* m, const ccb_body_def* d, const char* name) {
    ccb_status s = check_mass_inertia(m, d, name);
    if (s == CCB_OK) {
        s = check_rotation(m, &d->pose, name, "initial pose");
    }
    if (s != CCB_OK) {
        return s;
    }
    if (!ccb_v3_isfinite(d->twist.v) || !ccb_v3_isfinite(d->twist.w)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': initial twist must be finite", name);
    }
    return CCB_OK;
}

/* A prismatic / revolute body: rigid-body data, a parent added before, frames, a non-zero axis,
 * finite initial state and joint force parameters; a prescribed parent needs its acceleration. */
static ccb_status check_joint_body(ccb_model* m, const ccb_body_def* d, const char* name) {
    const ccb_joint_def* j = &d->joint;
    ccb_status s = check_mass_inertia(m, d, name);
    if (s == CCB_OK) {
        s = check_rotation(m, &j->X_PF, name, "joint frame X_PF");
    }
    if (s == CCB_OK) {
        s = check_rotation(m, &j->X_BM, name, "joint frame X_BM");
    }
    if (s != CCB_OK) {
        return s;
    }
    if (j->parent < -1 || j->parent >= m->nbodies) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body '%s': joint parent %d is not the world (-1) or a body added before "
            "(0..%d)",
            name, j->parent, m->nbodies - 1);
    }
    if (j->parent >= 0) {
        const ccb_body_def* pd = &m->bodies[j->parent].def;
        if (pd->mobilizer == CCB_MOBILIZER_PRESCRIBED && pd->accel == NULL) {
            return ccb_model_fail(
                m, CCB_E_INVALID,
                "body '%s': its parent '%s' is prescribed without an acceleration "
                "function (ccb_body_def.accel), which the joint forces need",
                name, m->bodies[j->parent].name);
        }
    }
    const double an = ccb_v3_norm(j->axis);
    if (!(isfinite(an) && an > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': joint axis must be finite and non-zero",
                              name);
    }
    const double vals[5] = {j->q0, j->v0, j->damping, j->stiffness, j->q_rest};
    static const char* const what[5] = {"q0", "v0", "damping", "stiffness", "q_rest"};
    for (int i = 0; i < 5; ++i) {
        if (!isfinite(vals[i]) || ((i == 2 || i == 3) && vals[i] < 0)) {
            return ccb_model_fail(m, CCB_E_INVALID, "body '%s': joint %s must be finite%s (got %g)",
                                  name, what[i], (i == 2 || i == 3) ? " and >= 0" : "", vals[i]);
        }
    }
    return CCB_OK;
}

static ccb_status check_body(ccb_model* m, const ccb_body_def* d, const char* name) {
    if (d->mobilizer == CCB_MOBILIZER_FIXED) {
        if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
            return ccb_model_fail(m, CCB_E_INVALID, "body '%s': fixed pose must be finite", name);
        }
        return CCB_OK;
    }
    if (d->mobilizer == CCB_MOBILIZER_PRESCRIBED) {
        if (d->motion == NULL) {
            return ccb_model_fail(m, CCB_E_INVALID,
                                  "body '%s': prescribed mobilizer needs a motion function", name);
        }
        return CCB_OK;
    }
    if (d->mobilizer == CCB_MOBILIZER_FREE) {
        return check_free_body(m, d, name);
    }
    if (ccb_mobilizer_is_joint(d->mobilizer)) {
        return check_joint_body(m, d, name);
    }
    if (d->mobilizer != CCB_MOBILIZER_PLANAR) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': unknown mobilizer type %d", name,
                              (int)d->mobilizer);
    }
    if (!(isfinite(d->mass) && d->mass > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "body '%s': mass must be finite and > 0 kg (got %g)", name, d->mass);
    }
    if (d->locked & ~(CCB_LOCK_X | CCB_LOCK_Z | CCB_LOCK_THETA)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': unknown lock bits 0x%x", name,
                              d->locked);
    }
    const double Iyy = d->inertia.m[4];
    if (!finite_mat(&d->inertia) || (!(d->locked & CCB_LOCK_THETA) && !(Iyy > 0))) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body '%s': inertia must be finite with I_yy > 0 kg m^2 (got I_yy = %g)", name, Iyy);
    }
    if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': initial pose must be finite", name);
    }
    if (isnan(planar_angle(&d->pose.R))) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body '%s': planar body's initial orientation must be a rotation about y", name);
    }
    const ccb_twist* V = &d->twist;
    if (!ccb_v3_isfinite(V->v) || !ccb_v3_isfinite(V->w)) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': initial twist must be finite", name);
    }
    if (V->v.y != 0 || V->w.x != 0 || V->w.z != 0) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body '%s': planar twist needs v_y = 0 and w = (0, omega, 0) (got v_y = %g, "
            "w_x = %g, w_z = %g)",
            name, V->v.y, V->w.x, V->w.z);
    }
    const double v3[3] = {V->v.x, V->v.z, V->w.y};
    for (int i = 0; i < 3; ++i) {
        if ((d->locked & (1u << i)) && v3[i] != 0) {
            return ccb_model_fail(
                m, CCB_E_INVALID,
                "body '%s': locked coordinate %s has a non-zero initial velocity %g", name,
                ccb_planar_q_names[i], v3[i]);
        }
        if (!(isfinite(d->damping[i]) && d->damping[i] >= 0)) {
            return ccb_model_fail(m, CCB_E_INVALID,
                                  "body '%s': damping on %s must be finite and >= 0 (got %g)", name,
                                  ccb_planar_q_names[i], d->damping[i]);
        }
    }
    return CCB_OK;
}

ccb_status ccb_model_add_body(ccb_model* m, const ccb_body_def* d, int* body_id) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (d == NULL) {
        return ccb_model_fail(m, CCB_E_INVALID, "add_body: definition is NULL");
    }
    if (m->finalized) {
        return ccb_model_fail(m, CCB_E_INVALID, "add_body: model is already finalized");
    }
    char name[CCB_NAME_MAX];
    if (d->name == NULL) {
        snprintf(name, sizeof name, "body%d", m->nbodies);
    } else if (!valid_name(d->name)) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "body %d: name must be 1..%d characters of [A-Za-z0-9_-] (got '%.60s')", m->nbodies,
            CCB_NAME_MAX - 1, d->name);
    } else {
        snprintf(name, sizeof name, "%s", d->name);
    }
    if (ccb_model_find_body(m, name) >= 0) {
        return ccb_model_fail(m, CCB_E_INVALID, "body '%s': a body with this name already exists",
                              name);
    }
    ccb_status s = check_body(m, d, name);
    if (s != CCB_OK) {
        return s;
    }
    if (ccb_grow((void**)&m->bodies, &m->cap_bodies, m->nbodies + 1, sizeof(ccb_body)) != CCB_OK) {
        return ccb_model_fail(m, CCB_E_NOMEM, "add_body: out of memory");
    }
    ccb_body* b = &m->bodies[m->nbodies];
    memset(b, 0, sizeof *b);
    memcpy(b->name, name, sizeof name);
    b->def = *d;
    b->def.name = b->name;
    b->clique = -1;
    if (d->mobilizer == CCB_MOBILIZER_PLANAR) {
        b->planar0[0] = d->pose.p.x;
        b->planar0[1] = d->pose.p.z;
        b->planar0[2] = planar_angle(&d->pose.R);
        b->y0 = d->pose.p.y;
    }
    if (d->mobilizer == CCB_MOBILIZER_FREE) {
        b->free0[0] = d->pose.p.x;
        b->free0[1] = d->pose.p.y;
        b->free0[2] = d->pose.p.z;
        ccb_quat_from_m3(&d->pose.R, b->free0 + 3);
    }
    b->parent = -1;
    if (ccb_mobilizer_is_joint(d->mobilizer)) {
        b->parent = d->joint.parent;
        b->def.joint.axis = ccb_v3_scale(1.0 / ccb_v3_norm(d->joint.axis), d->joint.axis);
    }
    const int id = m->nbodies;
    m->nbodies++;
    if (b->parent >= 0 && ccb_model_filter_pair(m, b->parent, id) != CCB_OK) {
        m->nbodies--; /* the model is unchanged on failure */
        return ccb_model_fail(m, CCB_E_NOMEM, "add_body: out of memory");
    }
    if (body_id) {
        *body_id = id;
    }
    return CCB_OK;
}

static ccb_status check_material(ccb_model* m, const char* who, const ccb_material* mat) {
    if (!(mat->k > 0) || isnan(mat->k)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "%s: stiffness k must be > 0 N/m or INFINITY (got %g)", who, mat->k);
    }
    if (!(isfinite(mat->d) && mat->d >= 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "%s: dissipation d must be finite and >= 0 s/m (got %g)", who,
                              mat->d);
    }
    if (!(isfinite(mat->tau_d) && mat->tau_d >= 0)) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: tau_d must be finite and >= 0 s (got %g)", who,
                              mat->tau_d);
    }
    if (!(isfinite(mat->mu) && mat->mu >= 0)) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: friction mu must be finite and >= 0 (got %g)",
                              who, mat->mu);
    }
    if (!(isfinite(mat->mu2) && mat->mu2 >= 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "%s: friction mu2 (across the grain) must be finite and >= 0, 0 for "
                              "isotropic friction (got %g)",
                              who, mat->mu2);
    }
    if (mat->mu2 > 0 && !(mat->mu > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "%s: anisotropic friction needs mu > 0 along the grain as well as "
                              "mu2 > 0 across it (got mu = %g, mu2 = %g); a frictionless "
                              "direction is a joint, not a friction law",
                              who, mat->mu, mat->mu2);
    }
    return CCB_OK;
}

ccb_status ccb_model_add_shape(ccb_model* m, int body, const ccb_shape_def* d, int* shape_id) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (d == NULL) {
        return ccb_model_fail(m, CCB_E_INVALID, "add_shape: definition is NULL");
    }
    if (m->finalized) {
        return ccb_model_fail(m, CCB_E_INVALID, "add_shape: model is already finalized");
    }
    if (body < 0 || body >= m->nbodies) {
        return ccb_model_fail(m, CCB_E_INVALID, "add_shape: body index %d out of range [0, %d)",
                              body, m->nbodies);
    }
    char who[2 * CCB_NAME_MAX + 16];
    snprintf(who, sizeof who, "shape %d on body '%s'", m->nshapes, m->bodies[body].name);
    if (d->name != NULL && !valid_name(d->name)) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: invalid name '%.60s'", who, d->name);
    }
    if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: pose must be finite", who);
    }
    ccb_status s = check_material(m, who, &d->material);
    if (s != CCB_OK) {
        return s;
    }
    if (!(isfinite(d->hydro_slab) && d->hydro_slab >= 0)) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: hydro_slab must be finite and >= 0 m (got %g)",
                              who, d->hydro_slab);
    }
    if (d->hydro_slab > 0 && (d->type != CCB_SHAPE_HALFSPACE || isinf(d->material.k))) {
        return ccb_model_fail(
            m, CCB_E_INVALID,
            "%s: hydro_slab > 0 makes a compliant hydroelastic half-space: only for a "
            "half-space, with its modulus E in material.k (finite)",
            who);
    }
    if (d->material.mu2 > 0 && (d->type != CCB_SHAPE_HALFSPACE || d->hydro_slab > 0)) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "%s: anisotropic friction (mu2 > 0) is supported on a half-space "
                              "without hydro_slab only, whose x axis is the grain (got a %s)",
                              who,
                              d->type == CCB_SHAPE_HALFSPACE ? "hydroelastic half-space"
                                                             : "shape of another type");
    }
    if (d->type == CCB_SHAPE_BOX) {
        const ccb_vec3 h = d->half_extents;
        if (!(ccb_v3_isfinite(h) && h.x > 0 && h.y > 0 && h.z > 0)) {
            return ccb_model_fail(m, CCB_E_INVALID,
                                  "%s: box half extents must be finite and > 0 m (got %g, %g, %g)",
                                  who, h.x, h.y, h.z);
        }
    } else if (d->type == CCB_SHAPE_POINTS) {
        if (d->npoints < 1 || d->points == NULL) {
            return ccb_model_fail(m, CCB_E_INVALID, "%s: a point set needs npoints >= 1 (got %d)",
                                  who, d->npoints);
        }
        for (int i = 0; i < d->npoints; ++i) {
            if (!ccb_v3_isfinite(d->points[i])) {
                return ccb_model_fail(m, CCB_E_INVALID, "%s: point %d is not finite", who, i);
            }
        }
    } else if (d->type == CCB_SHAPE_SPHERE) {
        if (!(isfinite(d->radius) && d->radius > 0)) {
            return ccb_model_fail(m, CCB_E_INVALID,
                                  "%s: sphere radius must be finite and > 0 m (got %g)", who,
                                  d->radius);
        }
    } else if (d->type == CCB_SHAPE_CAPSULE) {
        if (!(isfinite(d->radius) && d->radius >= 0) ||
            !(isfinite(d->half_length) && d->half_length > 0)) {
            return ccb_model_fail(
                m, CCB_E_INVALID,
                "%s: capsule needs radius >= 0 and half_length > 0 m (got %g, %g)", who, d->radius,
                d->half_length);
        }
    } else if (d->type == CCB_SHAPE_HYDRO) {
        if (d->mesh == NULL) {
            return ccb_model_fail(m, CCB_E_INVALID, "%s: a hydroelastic shape needs a mesh", who);
        }
        if (d->hydro_repr != CCB_HYDRO_POLYGONS && d->hydro_repr != CCB_HYDRO_TRIANGLES) {
            return ccb_model_fail(m, CCB_E_INVALID, "%s: unknown face representation %d", who,
                                  (int)d->hydro_repr);
        }
    } else if (d->type != CCB_SHAPE_HALFSPACE) {
        return ccb_model_fail(m, CCB_E_INVALID, "%s: unknown shape type %d", who, (int)d->type);
    }
    if (ccb_grow((void**)&m->shapes, &m->cap_shapes, m->nshapes + 1, sizeof(ccb_shape)) != CCB_OK) {
        return ccb_model_fail(m, CCB_E_NOMEM, "add_shape: out of memory");
    }
    ccb_shape* sh = &m->shapes[m->nshapes];
    memset(sh, 0, sizeof *sh);
    if (d->type == CCB_SHAPE_POINTS) {
        sh->points = ccb_alloc((size_t)d->npoints * sizeof(ccb_vec3));
        if (sh->points == NULL) {
            return ccb_model_fail(m, CCB_E_NOMEM, "add_shape: out of memory");
        }
        memcpy(sh->points, d->points, (size_t)d->npoints * sizeof(ccb_vec3));
    }
    if (d->type == CCB_SHAPE_HYDRO) {
        sh->mesh = ccb_hydro_mesh_clone(d->mesh);
        if (sh->mesh == NULL) {
            return ccb_model_fail(m, CCB_E_NOMEM, "add_shape: out of memory");
        }
    }
    if (d->name) {
        snprintf(sh->name, sizeof sh->name, "%s", d->name);
    } else {
        snprintf(sh->name, sizeof sh->name, "shape%d", m->nshapes);
    }
    sh->def = *d;
    sh->def.name = sh->name;
    sh->def.points = sh->points;
    sh->def.mesh = sh->mesh;
    sh->body = body;
    if (shape_id) {
        *shape_id = m->nshapes;
    }
    m->nshapes++;
    return CCB_OK;
}

/* ---- kinematics ------------------------------------------------------------------------- */

static void planar_values(const ccb_body* b, const double* qb, double x[3]) {
    x[0] = b->planar0[0];
    x[1] = b->planar0[1];
    x[2] = b->planar0[2];
    for (int k = 0; k < b->nv; ++k) {
        x[b->coord[k]] = qb[k];
    }
}

void ccb_body_pose(const ccb_body* b, double t, const double* qb, ccb_pose* X) {
    switch (b->def.mobilizer) {
    case CCB_MOBILIZER_FIXED: *X = b->def.pose; return;
    case CCB_MOBILIZER_PRESCRIBED: {
        ccb_twist V;
        b->def.motion(t, b->def.motion_user, X, &V);
        return;
    }
    case CCB_MOBILIZER_PLANAR: {
        double x[3];
        planar_values(b, qb, x);
        *X = ccb_pose_planar(x[0], x[1], x[2]);
        X->p = ccb_v3(x[0], b->y0, x[1]);
        return;
    }
    case CCB_MOBILIZER_FREE:
        X->p = ccb_v3(qb[0], qb[1], qb[2]);
        X->R = ccb_m3_from_quat(qb + 3);
        return;
    case CCB_MOBILIZER_PRISMATIC:
    case CCB_MOBILIZER_REVOLUTE: /* needs the parent: ccb_model_pose_of */
        X->p = ccb_v3(NAN, NAN, NAN);
        X->R.m[0] = NAN;
        return;
    }
}

void ccb_body_twist(const ccb_body* b, double t, const double* qb, const double* vb, ccb_twist* V) {
    (void)qb;
    switch (b->def.mobilizer) {
    case CCB_MOBILIZER_FIXED:
        V->w = ccb_v3(0, 0, 0);
        V->v = ccb_v3(0, 0, 0);
        return;
    case CCB_MOBILIZER_PRESCRIBED: {
        ccb_pose X;
        b->def.motion(t, b->def.motion_user, &X, V);
        return;
    }
    case CCB_MOBILIZER_PLANAR: {
        double u[3] = {0, 0, 0};
        for (int k = 0; k < b->nv; ++k) {
            u[b->coord[k]] = vb[k];
        }
        *V = ccb_twist_planar(u[0], u[1], u[2]);
        return;
    }
    case CCB_MOBILIZER_FREE:
        V->w = ccb_v3(vb[0], vb[1], vb[2]);
        V->v = ccb_v3(vb[3], vb[4], vb[5]);
        return;
    case CCB_MOBILIZER_PRISMATIC:
    case CCB_MOBILIZER_REVOLUTE: /* needs the parent: ccb_model_twist_of */
        V->w = V->v = ccb_v3(NAN, NAN, NAN);
        return;
    }
}

void ccb_body_velocity_map(const ccb_body* b, const double* qb, double* S) {
    (void)qb;
    const int nv = b->nv;
    for (int i = 0; i < 6 * nv; ++i) {
        S[i] = 0.0;
    }
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) { /* v_b = (w; v): S = I */
        for (int k = 0; k < 6; ++k) {
            S[k * 6 + k] = 1.0;
        }
        return;
    }
    /* rows 0-2: angular velocity, rows 3-5: velocity of the origin (COM) */
    static const int row_of_coord[3] = {3, 5, 1}; /* x -> v.x, z -> v.z, theta -> w.y */
    for (int k = 0; k < nv; ++k) {
        S[row_of_coord[b->coord[k]] * nv + k] = 1.0;
    }
}

void ccb_body_mass_matrix(const ccb_body* b, const double* qb, double* M) {
    const int nv = b->nv;
    ccb_pose X;
    ccb_body_pose(b, 0.0, qb, &X);
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_mat3 tmp = ccb_m3_mul(&X.R, &b->def.inertia);
    const ccb_mat3 IW = ccb_m3_mul(&tmp, &RT); /* I_W = R I_B R^T */
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
        /* S = I: the sums below reduce to these entries exactly (every other term is a zero) */
        for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
                M[i * 6 + j] = i < 3 && j < 3     ? 0.5 * (IW.m[3 * i + j] + IW.m[3 * j + i])
                               : i == j && i >= 3 ? b->def.mass
                                                  : 0.0;
            }
        }
        return;
    }
    double S[6 * CCB_MAX_BODY_NV];
    ccb_body_velocity_map(b, qb, S);
    for (int i = 0; i < nv; ++i) {
        for (int j = i; j < nv; ++j) { /* upper triangle, mirrored: M is exactly symmetric */
            double s = 0.0;
            for (int r = 0; r < 3; ++r) {
                for (int c = 0; c < 3; ++c) {
                    s += S[r * nv + i] * 0.5 * (IW.m[3 * r + c] + IW.m[3 * c + r]) * S[c * nv + j];
                }
                s += S[(3 + r) * nv + i] * b->def.mass * S[(3 + r) * nv + j];
            }
            M[i * nv + j] = M[j * nv + i] = s;
        }
    }
}

void ccb_body_generalized_force(const ccb_model* m, const ccb_body* b, double t, const double* qb,
                                const double* vb, double* f) {
    const int nv = b->nv;
    ccb_pose X;
    ccb_twist V;
    ccb_body_pose(b, t, qb, &X);
    ccb_body_twist(b, t, qb, vb, &V);
    ccb_vec3 force = ccb_v3_scale(b->def.mass, m->gravity);
    ccb_vec3 torque = ccb_v3(0, 0, 0);
    if (b->def.force) {
        ccb_vec3 fu = ccb_v3(0, 0, 0), tu = ccb_v3(0, 0, 0);
        b->def.force(t, &X, &V, b->def.force_user, &fu, &tu);
        force = ccb_v3_add(force, fu);
        torque = ccb_v3_add(torque, tu);
    }
    /* gyroscopic term -w x (I_W w), explicit (k2 of formulation-convex §1.1) */
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_vec3 wB = ccb_m3_mul_v(&RT, V.w);
    const ccb_vec3 IwW = ccb_m3_mul_v(&X.R, ccb_m3_mul_v(&b->def.inertia, wB));
    torque = ccb_v3_sub(torque, ccb_v3_cross(V.w, IwW));
    double S[6 * CCB_MAX_BODY_NV];
    ccb_body_velocity_map(b, qb, S);
    const double w6[6] = {torque.x, torque.y, torque.z, force.x, force.y, force.z};
    for (int k = 0; k < nv; ++k) {
        double s = 0.0;
        for (int r = 0; r < 6; ++r) {
            s += S[r * nv + k] * w6[r];
        }
        f[k] = s;
    }
}

void ccb_body_qdot(const ccb_body* b, const double* qb, const double* vb, double* qdot) {
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
        qdot[0] = vb[3];
        qdot[1] = vb[4];
        qdot[2] = vb[5];
        /* quat' = 1/2 (0, w) (x) quat = 1/2 (-w.u, s w + w x u), quat = (s, u), w in W */
        const double s = qb[3], ux = qb[4], uy = qb[5], uz = qb[6];
        const double wx = vb[0], wy = vb[1], wz = vb[2];
        qdot[3] = -0.5 * (wx * ux + wy * uy + wz * uz);
        qdot[4] = 0.5 * (s * wx + wy * uz - wz * uy);
        qdot[5] = 0.5 * (s * wy + wz * ux - wx * uz);
        qdot[6] = 0.5 * (s * wz + wx * uy - wy * ux);
        return;
    }
    for (int k = 0; k < b->nq; ++k) {
        qdot[k] = vb[k]; /* planar: N = I (formulation-convex §1.1) */
    }
}

void ccb_body_normalize(const ccb_body* b, double* qb) {
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
        const double n = sqrt(qb[3] * qb[3] + qb[4] * qb[4] + qb[5] * qb[5] + qb[6] * qb[6]);
        for (int k = 3; k < 7; ++k) {
            qb[k] /= n;
        }
    }
}

void ccb_body_integrate(const ccb_body* b, const double* q0b, const double* vb, double dt,
                        double* qb) {
    if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
        double qd[7];
        ccb_body_qdot(b, q0b, vb, qd);
        for (int k = 0; k < 7; ++k) {
            qb[k] = q0b[k] + dt * qd[k];
        }
        ccb_body_normalize(b, qb); /* back onto the unit quaternions */
        return;
    }
    for (int k = 0; k < b->nq; ++k) {
        qb[k] = q0b[k] + dt * vb[k]; /* planar: N = I (formulation-convex §1.1) */
    }
}

void ccb_body_point_jacobian(const ccb_body* b, const double* qb, ccb_vec3 p_W, double* Jp) {
    const int nv = b->nv;
    double S[6 * CCB_MAX_BODY_NV];
    ccb_body_velocity_map(b, qb, S);
    ccb_pose X;
    ccb_body_pose(b, 0.0, qb, &X);
    const ccb_vec3 r = ccb_v3_sub(p_W, X.p);
    /* v_p = v + w x r = [-[r]x | I] (w; v) */
    const double P[3][6] = {
        {0, r.z, -r.y, 1, 0, 0}, {-r.z, 0, r.x, 0, 1, 0}, {r.y, -r.x, 0, 0, 0, 1}};
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < nv; ++k) {
            double s = 0.0;
            for (int r6 = 0; r6 < 6; ++r6) {
                s += P[i][r6] * S[r6 * nv + k];
            }
            Jp[i * nv + k] = s;
        }
    }
}

ccb_status ccb_model_body_pose(const ccb_model* m, int i, double t, const double* q, ccb_pose* X) {
    if (m == NULL || X == NULL || !m->finalized || i < 0 || i >= m->nbodies ||
        (m->bodies[i].nq > 0 && q == NULL)) {
        return CCB_E_INVALID;
    }
    ccb_model_pose_of(m, i, t, q, X);
    return CCB_OK;
}

ccb_status ccb_model_body_twist(const ccb_model* m, int i, double t, const double* q,
                                const double* v, ccb_twist* V) {
    if (m == NULL || V == NULL || !m->finalized || i < 0 || i >= m->nbodies ||
        (m->bodies[i].nv > 0 && (q == NULL || v == NULL))) {
        return CCB_E_INVALID;
    }
    ccb_model_twist_of(m, i, t, q, v, V);
    return CCB_OK;
}

ccb_status ccb_model_qdot(const ccb_model* m, const double* q, const double* v, double* qdot) {
    if (m == NULL || !m->finalized || q == NULL || v == NULL || qdot == NULL) {
        return CCB_E_INVALID;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->nq > 0) {
            ccb_body_qdot(b, q + b->qoff, v + b->voff, qdot + b->qoff);
        }
    }
    return CCB_OK;
}
