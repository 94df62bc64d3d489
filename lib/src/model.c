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

static const char* const k_planar_q[3] = {"x", "z", "theta"};
static const char* const k_planar_v[3] = {"vx", "vz", "omega"};
static const char* const k_planar_qu[3] = {"m", "m", "rad"};
static const char* const k_planar_vu[3] = {"m/s", "m/s", "rad/s"};
static const char* const k_free_q[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
static const char* const k_free_v[6] = {"wx", "wy", "wz", "vx", "vy", "vz"};
static const char* const k_free_qu[7] = {"m", "m", "m", "-", "-", "-", "-"};
static const char* const k_free_vu[6] = {"rad/s", "rad/s", "rad/s", "m/s", "m/s", "m/s"};

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

static ccb_status fail(ccb_model* m, ccb_status s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ccb_status fail(ccb_model* m, ccb_status s, const char* fmt, ...) {
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
        return fail(m, CCB_E_INVALID, "set_gravity: model is already finalized");
    }
    if (!ccb_v3_isfinite(g)) {
        return fail(m, CCB_E_INVALID, "gravity must be finite (got %g, %g, %g)", g.x, g.y, g.z);
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
        return fail(m, CCB_E_INVALID, "body '%s': mass must be finite and > 0 kg (got %g)", name,
                    d->mass);
    }
    if (d->locked != 0) {
        return fail(m, CCB_E_INVALID, "body '%s': only a planar body has lockable coordinates",
                    name);
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
        return fail(m, CCB_E_INVALID,
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
        return fail(m, CCB_E_INVALID, "body '%s': %s must be finite", name, what);
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
        return fail(m, CCB_E_INVALID,
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
        return fail(m, CCB_E_INVALID, "body '%s': initial twist must be finite", name);
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
        return fail(m, CCB_E_INVALID,
                    "body '%s': joint parent %d is not the world (-1) or a body added before "
                    "(0..%d)",
                    name, j->parent, m->nbodies - 1);
    }
    if (j->parent >= 0) {
        const ccb_body_def* pd = &m->bodies[j->parent].def;
        if (pd->mobilizer == CCB_MOBILIZER_PRESCRIBED && pd->accel == NULL) {
            return fail(m, CCB_E_INVALID,
                        "body '%s': its parent '%s' is prescribed without an acceleration "
                        "function (ccb_body_def.accel), which the joint forces need",
                        name, m->bodies[j->parent].name);
        }
    }
    const double an = ccb_v3_norm(j->axis);
    if (!(isfinite(an) && an > 0)) {
        return fail(m, CCB_E_INVALID, "body '%s': joint axis must be finite and non-zero", name);
    }
    const double vals[5] = {j->q0, j->v0, j->damping, j->stiffness, j->q_rest};
    static const char* const what[5] = {"q0", "v0", "damping", "stiffness", "q_rest"};
    for (int i = 0; i < 5; ++i) {
        if (!isfinite(vals[i]) || ((i == 2 || i == 3) && vals[i] < 0)) {
            return fail(m, CCB_E_INVALID, "body '%s': joint %s must be finite%s (got %g)", name,
                        what[i], (i == 2 || i == 3) ? " and >= 0" : "", vals[i]);
        }
    }
    return CCB_OK;
}

static ccb_status check_body(ccb_model* m, const ccb_body_def* d, const char* name) {
    if (d->mobilizer == CCB_MOBILIZER_FIXED) {
        if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
            return fail(m, CCB_E_INVALID, "body '%s': fixed pose must be finite", name);
        }
        return CCB_OK;
    }
    if (d->mobilizer == CCB_MOBILIZER_PRESCRIBED) {
        if (d->motion == NULL) {
            return fail(m, CCB_E_INVALID, "body '%s': prescribed mobilizer needs a motion function",
                        name);
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
        return fail(m, CCB_E_INVALID, "body '%s': unknown mobilizer type %d", name,
                    (int)d->mobilizer);
    }
    if (!(isfinite(d->mass) && d->mass > 0)) {
        return fail(m, CCB_E_INVALID, "body '%s': mass must be finite and > 0 kg (got %g)", name,
                    d->mass);
    }
    if (d->locked & ~(CCB_LOCK_X | CCB_LOCK_Z | CCB_LOCK_THETA)) {
        return fail(m, CCB_E_INVALID, "body '%s': unknown lock bits 0x%x", name, d->locked);
    }
    const double Iyy = d->inertia.m[4];
    if (!finite_mat(&d->inertia) || (!(d->locked & CCB_LOCK_THETA) && !(Iyy > 0))) {
        return fail(m, CCB_E_INVALID,
                    "body '%s': inertia must be finite with I_yy > 0 kg m^2 (got I_yy = %g)", name,
                    Iyy);
    }
    if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
        return fail(m, CCB_E_INVALID, "body '%s': initial pose must be finite", name);
    }
    if (isnan(planar_angle(&d->pose.R))) {
        return fail(m, CCB_E_INVALID,
                    "body '%s': planar body's initial orientation must be a rotation about y",
                    name);
    }
    const ccb_twist* V = &d->twist;
    if (!ccb_v3_isfinite(V->v) || !ccb_v3_isfinite(V->w)) {
        return fail(m, CCB_E_INVALID, "body '%s': initial twist must be finite", name);
    }
    if (V->v.y != 0 || V->w.x != 0 || V->w.z != 0) {
        return fail(m, CCB_E_INVALID,
                    "body '%s': planar twist needs v_y = 0 and w = (0, omega, 0) (got v_y = %g, "
                    "w_x = %g, w_z = %g)",
                    name, V->v.y, V->w.x, V->w.z);
    }
    const double v3[3] = {V->v.x, V->v.z, V->w.y};
    for (int i = 0; i < 3; ++i) {
        if ((d->locked & (1u << i)) && v3[i] != 0) {
            return fail(m, CCB_E_INVALID,
                        "body '%s': locked coordinate %s has a non-zero initial velocity %g", name,
                        k_planar_q[i], v3[i]);
        }
        if (!(isfinite(d->damping[i]) && d->damping[i] >= 0)) {
            return fail(m, CCB_E_INVALID,
                        "body '%s': damping on %s must be finite and >= 0 (got %g)", name,
                        k_planar_q[i], d->damping[i]);
        }
    }
    return CCB_OK;
}

ccb_status ccb_model_add_body(ccb_model* m, const ccb_body_def* d, int* body_id) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (d == NULL) {
        return fail(m, CCB_E_INVALID, "add_body: definition is NULL");
    }
    if (m->finalized) {
        return fail(m, CCB_E_INVALID, "add_body: model is already finalized");
    }
    char name[CCB_NAME_MAX];
    if (d->name == NULL) {
        snprintf(name, sizeof name, "body%d", m->nbodies);
    } else if (!valid_name(d->name)) {
        return fail(m, CCB_E_INVALID,
                    "body %d: name must be 1..%d characters of [A-Za-z0-9_-] (got '%.60s')",
                    m->nbodies, CCB_NAME_MAX - 1, d->name);
    } else {
        snprintf(name, sizeof name, "%s", d->name);
    }
    if (ccb_model_find_body(m, name) >= 0) {
        return fail(m, CCB_E_INVALID, "body '%s': a body with this name already exists", name);
    }
    ccb_status s = check_body(m, d, name);
    if (s != CCB_OK) {
        return s;
    }
    if (ccb_grow((void**)&m->bodies, &m->cap_bodies, m->nbodies + 1, sizeof(ccb_body)) != CCB_OK) {
        return fail(m, CCB_E_NOMEM, "add_body: out of memory");
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
        return fail(m, CCB_E_NOMEM, "add_body: out of memory");
    }
    if (body_id) {
        *body_id = id;
    }
    return CCB_OK;
}

static ccb_status check_material(ccb_model* m, const char* who, const ccb_material* mat) {
    if (!(mat->k > 0) || isnan(mat->k)) {
        return fail(m, CCB_E_INVALID, "%s: stiffness k must be > 0 N/m or INFINITY (got %g)", who,
                    mat->k);
    }
    if (!(isfinite(mat->d) && mat->d >= 0)) {
        return fail(m, CCB_E_INVALID, "%s: dissipation d must be finite and >= 0 s/m (got %g)", who,
                    mat->d);
    }
    if (!(isfinite(mat->tau_d) && mat->tau_d >= 0)) {
        return fail(m, CCB_E_INVALID, "%s: tau_d must be finite and >= 0 s (got %g)", who,
                    mat->tau_d);
    }
    if (!(isfinite(mat->mu) && mat->mu >= 0)) {
        return fail(m, CCB_E_INVALID, "%s: friction mu must be finite and >= 0 (got %g)", who,
                    mat->mu);
    }
    return CCB_OK;
}

ccb_status ccb_model_add_shape(ccb_model* m, int body, const ccb_shape_def* d, int* shape_id) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (d == NULL) {
        return fail(m, CCB_E_INVALID, "add_shape: definition is NULL");
    }
    if (m->finalized) {
        return fail(m, CCB_E_INVALID, "add_shape: model is already finalized");
    }
    if (body < 0 || body >= m->nbodies) {
        return fail(m, CCB_E_INVALID, "add_shape: body index %d out of range [0, %d)", body,
                    m->nbodies);
    }
    char who[2 * CCB_NAME_MAX + 16];
    snprintf(who, sizeof who, "shape %d on body '%s'", m->nshapes, m->bodies[body].name);
    if (d->name != NULL && !valid_name(d->name)) {
        return fail(m, CCB_E_INVALID, "%s: invalid name '%.60s'", who, d->name);
    }
    if (!ccb_v3_isfinite(d->pose.p) || !finite_mat(&d->pose.R)) {
        return fail(m, CCB_E_INVALID, "%s: pose must be finite", who);
    }
    ccb_status s = check_material(m, who, &d->material);
    if (s != CCB_OK) {
        return s;
    }
    if (!(isfinite(d->hydro_slab) && d->hydro_slab >= 0)) {
        return fail(m, CCB_E_INVALID, "%s: hydro_slab must be finite and >= 0 m (got %g)", who,
                    d->hydro_slab);
    }
    if (d->hydro_slab > 0 && (d->type != CCB_SHAPE_HALFSPACE || isinf(d->material.k))) {
        return fail(m, CCB_E_INVALID,
                    "%s: hydro_slab > 0 makes a compliant hydroelastic half-space: only for a "
                    "half-space, with its modulus E in material.k (finite)",
                    who);
    }
    if (d->type == CCB_SHAPE_BOX) {
        const ccb_vec3 h = d->half_extents;
        if (!(ccb_v3_isfinite(h) && h.x > 0 && h.y > 0 && h.z > 0)) {
            return fail(m, CCB_E_INVALID,
                        "%s: box half extents must be finite and > 0 m (got %g, %g, %g)", who, h.x,
                        h.y, h.z);
        }
    } else if (d->type == CCB_SHAPE_POINTS) {
        if (d->npoints < 1 || d->points == NULL) {
            return fail(m, CCB_E_INVALID, "%s: a point set needs npoints >= 1 (got %d)", who,
                        d->npoints);
        }
        for (int i = 0; i < d->npoints; ++i) {
            if (!ccb_v3_isfinite(d->points[i])) {
                return fail(m, CCB_E_INVALID, "%s: point %d is not finite", who, i);
            }
        }
    } else if (d->type == CCB_SHAPE_SPHERE) {
        if (!(isfinite(d->radius) && d->radius > 0)) {
            return fail(m, CCB_E_INVALID, "%s: sphere radius must be finite and > 0 m (got %g)",
                        who, d->radius);
        }
    } else if (d->type == CCB_SHAPE_CAPSULE) {
        if (!(isfinite(d->radius) && d->radius >= 0) ||
            !(isfinite(d->half_length) && d->half_length > 0)) {
            return fail(m, CCB_E_INVALID,
                        "%s: capsule needs radius >= 0 and half_length > 0 m (got %g, %g)", who,
                        d->radius, d->half_length);
        }
    } else if (d->type == CCB_SHAPE_HYDRO) {
        if (d->mesh == NULL) {
            return fail(m, CCB_E_INVALID, "%s: a hydroelastic shape needs a mesh", who);
        }
        if (d->hydro_repr != CCB_HYDRO_POLYGONS && d->hydro_repr != CCB_HYDRO_TRIANGLES) {
            return fail(m, CCB_E_INVALID, "%s: unknown face representation %d", who,
                        (int)d->hydro_repr);
        }
    } else if (d->type != CCB_SHAPE_HALFSPACE) {
        return fail(m, CCB_E_INVALID, "%s: unknown shape type %d", who, (int)d->type);
    }
    if (ccb_grow((void**)&m->shapes, &m->cap_shapes, m->nshapes + 1, sizeof(ccb_shape)) != CCB_OK) {
        return fail(m, CCB_E_NOMEM, "add_shape: out of memory");
    }
    ccb_shape* sh = &m->shapes[m->nshapes];
    memset(sh, 0, sizeof *sh);
    if (d->type == CCB_SHAPE_POINTS) {
        sh->points = ccb_alloc((size_t)d->npoints * sizeof(ccb_vec3));
        if (sh->points == NULL) {
            return fail(m, CCB_E_NOMEM, "add_shape: out of memory");
        }
        memcpy(sh->points, d->points, (size_t)d->npoints * sizeof(ccb_vec3));
    }
    if (d->type == CCB_SHAPE_HYDRO) {
        sh->mesh = ccb_hydro_mesh_clone(d->mesh);
        if (sh->mesh == NULL) {
            return fail(m, CCB_E_NOMEM, "add_shape: out of memory");
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

ccb_status ccb_model_filter_pair(ccb_model* m, int a, int b) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (m->finalized) {
        return fail(m, CCB_E_INVALID, "filter_pair: model is already finalized");
    }
    if (a < 0 || a >= m->nbodies || b < 0 || b >= m->nbodies || a == b) {
        return fail(m, CCB_E_INVALID, "filter_pair: invalid body pair (%d, %d) of %d bodies", a, b,
                    m->nbodies);
    }
    if (ccb_grow((void**)&m->filters, &m->cap_filters, 2 * (m->nfilters + 1), sizeof(int)) !=
        CCB_OK) {
        return fail(m, CCB_E_NOMEM, "filter_pair: out of memory");
    }
    m->filters[2 * m->nfilters] = a < b ? a : b;
    m->filters[2 * m->nfilters + 1] = a < b ? b : a;
    m->nfilters++;
    return CCB_OK;
}

static int cmp_filter(const void* x, const void* y) {
    const int* a = x;
    const int* b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Filters are sorted at finalize: binary search. */
static int filtered(const ccb_model* m, int a, int b) {
    const int key[2] = {a < b ? a : b, a < b ? b : a};
    return m->nfilters > 0 &&
           bsearch(key, m->filters, (size_t)m->nfilters, 2 * sizeof(int), cmp_filter) != NULL;
}

static const char* shape_type_name(ccb_shape_type t) {
    switch (t) {
    case CCB_SHAPE_HALFSPACE: return "half-space";
    case CCB_SHAPE_BOX: return "box";
    case CCB_SHAPE_POINTS: return "point set";
    case CCB_SHAPE_SPHERE: return "sphere";
    case CCB_SHAPE_CAPSULE: return "capsule";
    case CCB_SHAPE_HYDRO: return "hydroelastic mesh";
    }
    return "unknown";
}

/* Drake's pair combination (spec: formulation-convex §8.8) with rigid (k = inf) sides. */
static ccb_material combine(const ccb_material* A, const ccb_material* B, double* weight_a) {
    ccb_material c;
    if (isinf(A->k)) {
        c.k = B->k;
        c.d = B->d;
        *weight_a = 1.0;
    } else if (isinf(B->k)) {
        c.k = A->k;
        c.d = A->d;
        *weight_a = 0.0;
    } else {
        const double s = A->k + B->k;
        c.k = A->k * B->k / s;
        c.d = (B->k * A->d + A->k * B->d) / s;
        *weight_a = A->k / s;
    }
    c.tau_d = A->tau_d + B->tau_d;
    c.mu = (A->mu + B->mu) > 0 ? 2.0 * A->mu * B->mu / (A->mu + B->mu) : 0.0;
    return c;
}

ccb_pair_kind ccb_shape_pair_kind(const ccb_model* m, int i, int j, int* a, int* b) {
    const ccb_shape_type ti = m->shapes[i].def.type, tj = m->shapes[j].def.type;
    *a = i;
    *b = j;
    if ((ti == CCB_SHAPE_HALFSPACE) != (tj == CCB_SHAPE_HALFSPACE)) {
        if (tj == CCB_SHAPE_HALFSPACE) {
            *a = j;
            *b = i;
        }
        /* hydroelastic pairs need exactly one compliant side (formulation-tamsi-hydro §F.2): a
         * compliant half-space meets only rigid surface meshes, a rigid one compliant meshes or
         * points */
        const int soft_h = m->shapes[*a].def.hydro_slab > 0,
                  hydro = m->shapes[*b].def.type == CCB_SHAPE_HYDRO,
                  rigid_b = isinf(m->shapes[*b].def.material.k);
        if (soft_h) {
            return hydro && rigid_b ? CCB_PAIR_SOFT_HALFSPACE_HYDRO : CCB_PAIR_NONE;
        }
        if (hydro) {
            return rigid_b ? CCB_PAIR_NONE : CCB_PAIR_HALFSPACE_HYDRO;
        }
        return CCB_PAIR_HALFSPACE;
    }
    if (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_SPHERE) {
        *a = i < j ? i : j;
        *b = i < j ? j : i;
        return CCB_PAIR_SPHERES;
    }
    if ((ti == CCB_SHAPE_BOX && tj == CCB_SHAPE_SPHERE) ||
        (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_BOX)) {
        if (tj == CCB_SHAPE_BOX) {
            *a = j;
            *b = i;
        }
        return CCB_PAIR_BOX_SPHERE;
    }
    if ((ti == CCB_SHAPE_CAPSULE && tj == CCB_SHAPE_SPHERE) ||
        (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_CAPSULE)) {
        if (tj == CCB_SHAPE_CAPSULE) {
            *a = j;
            *b = i;
        }
        return CCB_PAIR_CAPSULE_SPHERE;
    }
    return CCB_PAIR_NONE;
}

int ccb_shape_pair_active(const ccb_model* m, int i, int j) {
    const int bi = m->shapes[i].body, bj = m->shapes[j].body;
    return bi != bj && (m->bodies[bi].nv > 0 || m->bodies[bj].nv > 0) && !filtered(m, bi, bj);
}

ccb_material ccb_shape_pair_material(const ccb_model* m, int a, int b, double* weight_a) {
    return combine(&m->shapes[a].def.material, &m->shapes[b].def.material, weight_a);
}

/* Radius of a sphere about the shape origin containing the shape (broad phase). */
static double shape_bound(const ccb_shape* s) {
    switch (s->def.type) {
    case CCB_SHAPE_HALFSPACE: return INFINITY;
    case CCB_SHAPE_BOX: return ccb_v3_norm(s->def.half_extents);
    case CCB_SHAPE_SPHERE: return s->def.radius;
    case CCB_SHAPE_CAPSULE: return s->def.half_length + s->def.radius;
    case CCB_SHAPE_HYDRO: return ccb_hydro_mesh_bound(s->mesh);
    case CCB_SHAPE_POINTS: {
        double r = 0.0;
        for (int k = 0; k < s->def.npoints; ++k) {
            r = fmax(r, ccb_v3_norm(s->points[k]));
        }
        return r;
    }
    }
    return INFINITY;
}

/* Checks every pair of shapes that can touch: a narrow-phase query must exist and the combined
 * stiffness must be finite. Pairs are not stored: the geometry query finds candidates with a
 * broad phase. Cheap per pair; the filter lookup runs only for pairs that would fail. */
/* Every pair of shapes that can meet (different bodies, at least one of them moving, not
 * filtered) needs a contact query and a finite combined stiffness. Whether a pair has them
 * depends only on the two shapes' classes (type, compliant half-space, rigid), so the check runs
 * over pairs of classes and searches the members only of a failing class pair, for the first
 * pair (i < j, in index order) that can meet: the error names the same pair as a check of all
 * shape pairs would, at a cost linear in the shapes instead of quadratic. */
enum { SHAPE_CLASSES = 4 * (CCB_SHAPE_HYDRO + 1) };
static int shape_class(const ccb_shape* s) {
    return 4 * (int)s->def.type + 2 * (s->def.hydro_slab > 0) + (isinf(s->def.material.k) != 0);
}

static int pair_can_meet(const ccb_model* m, int i, int j) {
    const int bi = m->shapes[i].body, bj = m->shapes[j].body;
    return bi != bj && (m->bodies[bi].nv > 0 || m->bodies[bj].nv > 0) && !filtered(m, bi, bj);
}

static ccb_status check_pairs(ccb_model* m) {
    const int n = m->nshapes;
    int start[SHAPE_CLASSES + 1] = {0};
    int* member = ccb_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (member == NULL) {
        return fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    for (int i = 0; i < n; ++i) { /* members of each class, ascending (counting sort) */
        start[shape_class(&m->shapes[i]) + 1]++;
    }
    for (int c = 0; c < SHAPE_CLASSES; ++c) {
        start[c + 1] += start[c];
    }
    int fill[SHAPE_CLASSES];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < n; ++i) {
        member[fill[shape_class(&m->shapes[i])]++] = i;
    }
    int bi = -1, bj = -1; /* the first failing pair */
    for (int x = 0; x < SHAPE_CLASSES; ++x) {
        for (int y = x; y < SHAPE_CLASSES; ++y) {
            if (start[x] == start[x + 1] || start[y] == start[y + 1]) {
                continue;
            }
            int a, b;
            const int rx = member[start[x]], ry = member[start[y]];
            const ccb_pair_kind kind = ccb_shape_pair_kind(m, rx, ry, &a, &b);
            const int rigid =
                isinf(m->shapes[rx].def.material.k) && isinf(m->shapes[ry].def.material.k);
            if (kind != CCB_PAIR_NONE && !rigid) {
                continue;
            }
            /* the first pair of members (i in x, j in y or the reverse) that can meet */
            for (int u = start[x]; u < start[x + 1]; ++u) {
                for (int w = start[y]; w < start[y + 1]; ++w) {
                    int i = member[u], j = member[w];
                    if (i == j) {
                        continue;
                    }
                    if (i > j) {
                        const int t = i;
                        i = j;
                        j = t;
                    }
                    if ((bi < 0 || i < bi || (i == bi && j < bj)) && pair_can_meet(m, i, j)) {
                        bi = i;
                        bj = j;
                    }
                    if (bi >= 0 && member[u] > bi && member[w] > bi) {
                        break; /* nothing earlier can follow in this row */
                    }
                }
            }
        }
    }
    ccb_free(member);
    if (bi < 0) {
        return CCB_OK;
    }
    const ccb_shape *si = &m->shapes[bi], *sj = &m->shapes[bj];
    int a, b;
    if (ccb_shape_pair_kind(m, bi, bj, &a, &b) == CCB_PAIR_NONE) {
        return fail(m, CCB_E_INVALID,
                    "no contact query for %s '%s' (body '%s') vs %s '%s' (body '%s'); "
                    "filter the pair with ccb_model_filter_pair",
                    shape_type_name(si->def.type), si->name, m->bodies[si->body].name,
                    shape_type_name(sj->def.type), sj->name, m->bodies[sj->body].name);
    }
    return fail(m, CCB_E_INVALID,
                "shapes '%s' and '%s' are both rigid (k = inf): a compliant contact "
                "needs a finite combined stiffness",
                m->shapes[a].name, m->shapes[b].name);
}

/* About 180 lines: the model's checks, the cliques of its kinematic trees, the coordinates and
 * velocity offsets and the shape pairs, in the one order their dependencies allow; each part
 * reads what the previous one filled. */
ccb_status ccb_model_finalize(ccb_model* m) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (m->finalized) {
        return CCB_OK;
    }
    /* mobilizer sizes and trees: a free or planar body, or a jointed body whose parent has no
     * coordinates, roots a tree; a jointed body on a parent with coordinates joins its tree */
    int nq = 0, nv = 0, nclique = 0, ntb = 0;
    for (int i = 0; i < m->nbodies; ++i) {
        ccb_body* b = &m->bodies[i];
        b->nq = b->nv = 0;
        b->clique = -1;
        b->up = b->anchor = -1;
        if (b->def.mobilizer == CCB_MOBILIZER_PLANAR) {
            for (int c = 0; c < 3; ++c) {
                if (!(b->def.locked & (1u << c))) {
                    b->coord[b->nv++] = c;
                }
            }
            b->nq = b->nv;
        }
        if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
            b->nq = 7;
            b->nv = 6;
        }
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            b->nq = b->nv = 1;
            const ccb_body* pb = b->parent >= 0 ? &m->bodies[b->parent] : NULL;
            if (pb != NULL && pb->nv > 0) {
                b->up = b->parent;
                b->clique = pb->clique;
            } else {
                b->anchor = b->parent; /* -1: hangs from the world */
            }
        }
        if (b->nv > 0 && b->clique < 0) {
            b->clique = nclique++;
        }
        nq += b->nq;
        nv += b->nv;
        ntb += b->nv > 0;
    }
    m->nq = nq;
    m->nv = nv;
    m->nclique = nclique;
    m->ntree_bodies = ntb;
    const int nc1 = nclique > 0 ? nclique : 1;
    ccb_free(m->clique_body), ccb_free(m->clique_nv), ccb_free(m->clique_voff);
    ccb_free(m->clique_bstart), ccb_free(m->clique_blist);
    m->clique_body = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_nv = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_voff = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_bstart = ccb_alloc((size_t)(nclique + 1) * sizeof(int));
    m->clique_blist = ccb_alloc((size_t)(ntb > 0 ? ntb : 1) * sizeof(int));
    if (!m->clique_body || !m->clique_nv || !m->clique_voff || !m->clique_bstart ||
        !m->clique_blist) {
        return fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    /* bodies grouped by tree (counting sort, stable: index order within a tree, parents first) */
    for (int c = 0; c <= nclique; ++c) {
        m->clique_bstart[c] = 0;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (m->bodies[i].clique >= 0) {
            m->clique_bstart[m->bodies[i].clique + 1]++;
        }
    }
    for (int c = 0; c < nclique; ++c) {
        m->clique_bstart[c + 1] += m->clique_bstart[c];
    }
    {
        int* next = ccb_alloc((size_t)nc1 * sizeof(int));
        if (next == NULL) {
            return fail(m, CCB_E_NOMEM, "finalize: out of memory");
        }
        for (int c = 0; c < nclique; ++c) {
            next[c] = m->clique_bstart[c];
        }
        for (int i = 0; i < m->nbodies; ++i) {
            if (m->bodies[i].clique >= 0) {
                m->clique_blist[next[m->bodies[i].clique]++] = i;
            }
        }
        ccb_free(next);
    }
    /* coordinates numbered tree by tree; bodies without coordinates take none */
    int qo = 0, vo = 0;
    for (int c = 0; c < nclique; ++c) {
        const int* bl = m->clique_blist + m->clique_bstart[c];
        const int nb = m->clique_bstart[c + 1] - m->clique_bstart[c];
        m->clique_body[c] = bl[0];
        m->clique_voff[c] = vo;
        for (int k = 0; k < nb; ++k) {
            ccb_body* b = &m->bodies[bl[k]];
            b->qoff = qo;
            b->voff = vo;
            b->tvoff = vo - m->clique_voff[c];
            if (ccb_mobilizer_is_joint(b->def.mobilizer) && b->up >= 0) {
                b->anchor = m->bodies[b->up].anchor;
            }
            qo += b->nq;
            vo += b->nv;
        }
        m->clique_nv[c] = vo - m->clique_voff[c];
        if (nb > CCB_MAX_TREE_BODIES || m->clique_nv[c] > CCB_MAX_TREE_NV) {
            return fail(m, CCB_E_INVALID,
                        "finalize: the tree rooted at body '%s' has %d bodies and %d velocity "
                        "coordinates (at most %d and %d)",
                        m->bodies[bl[0]].name, nb, m->clique_nv[c], CCB_MAX_TREE_BODIES,
                        CCB_MAX_TREE_NV);
        }
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (m->bodies[i].nv == 0) {
            m->bodies[i].qoff = qo;
            m->bodies[i].voff = vo;
        }
    }
    if (m->nfilters > 1) {
        qsort(m->filters, (size_t)m->nfilters, 2 * sizeof(int), cmp_filter);
    }
    ccb_status s = check_pairs(m);
    if (s != CCB_OK) {
        return s;
    }
    ccb_free(m->halfspaces);
    ccb_free(m->bounded);
    m->halfspaces = ccb_alloc((size_t)(m->nshapes > 0 ? m->nshapes : 1) * sizeof(int));
    m->bounded = ccb_alloc((size_t)(m->nshapes > 0 ? m->nshapes : 1) * sizeof(int));
    if (!m->halfspaces || !m->bounded) {
        ccb_free(m->halfspaces), ccb_free(m->bounded);
        m->halfspaces = m->bounded = NULL;
        return fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    m->nhalfspaces = m->nbounded = 0;
    for (int i = 0; i < m->nshapes; ++i) {
        ccb_shape* sh = &m->shapes[i];
        sh->bound = shape_bound(sh);
        if (sh->def.type == CCB_SHAPE_HALFSPACE) {
            m->halfspaces[m->nhalfspaces++] = i;
        } else {
            m->bounded[m->nbounded++] = i;
        }
    }
    const int nq1 = nq > 0 ? nq : 1, nv1 = nv > 0 ? nv : 1;
    m->qnames = ccb_alloc((size_t)nq1 * sizeof *m->qnames);
    m->vnames = ccb_alloc((size_t)nv1 * sizeof *m->vnames);
    m->qunits = ccb_alloc((size_t)nq1 * sizeof(char*));
    m->vunits = ccb_alloc((size_t)nv1 * sizeof(char*));
    if (!m->qnames || !m->vnames || !m->qunits || !m->vunits) {
        ccb_free(m->qnames), ccb_free(m->vnames);
        ccb_free(m->qunits), ccb_free(m->vunits);
        m->qnames = NULL, m->vnames = NULL;
        m->qunits = NULL, m->vunits = NULL;
        return fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        const int free_body = b->def.mobilizer == CCB_MOBILIZER_FREE;
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            const int pr = b->def.mobilizer == CCB_MOBILIZER_PRISMATIC;
            snprintf(m->qnames[b->qoff], sizeof m->qnames[0], "%s.%s", b->name, pr ? "s" : "angle");
            snprintf(m->vnames[b->voff], sizeof m->vnames[0], "%s.%s", b->name,
                     pr ? "vs" : "omega");
            m->qunits[b->qoff] = pr ? "m" : "rad";
            m->vunits[b->voff] = pr ? "m/s" : "rad/s";
            continue;
        }
        for (int k = 0; k < b->nq; ++k) {
            snprintf(m->qnames[b->qoff + k], sizeof m->qnames[0], "%s.%s", b->name,
                     free_body ? k_free_q[k] : k_planar_q[b->coord[k]]);
            m->qunits[b->qoff + k] = free_body ? k_free_qu[k] : k_planar_qu[b->coord[k]];
        }
        for (int k = 0; k < b->nv; ++k) {
            snprintf(m->vnames[b->voff + k], sizeof m->vnames[0], "%s.%s", b->name,
                     free_body ? k_free_v[k] : k_planar_v[b->coord[k]]);
            m->vunits[b->voff + k] = free_body ? k_free_vu[k] : k_planar_vu[b->coord[k]];
        }
    }
    m->finalized = 1;
    return CCB_OK;
}

int ccb_model_nq(const ccb_model* m) {
    return m ? m->nq : 0;
}
int ccb_model_nv(const ccb_model* m) {
    return m ? m->nv : 0;
}
int ccb_model_nbodies(const ccb_model* m) {
    return m ? m->nbodies : 0;
}
int ccb_model_nshapes(const ccb_model* m) {
    return m ? m->nshapes : 0;
}
ccb_vec3 ccb_model_gravity(const ccb_model* m) {
    return m ? m->gravity : ccb_v3(0, 0, 0);
}

const char* ccb_model_body_name(const ccb_model* m, int i) {
    return (m && i >= 0 && i < m->nbodies) ? m->bodies[i].name : NULL;
}

int ccb_model_find_body(const ccb_model* m, const char* name) {
    if (m == NULL || name == NULL) {
        return -1;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (strcmp(m->bodies[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

double ccb_model_body_mass(const ccb_model* m, int i) {
    return (m && i >= 0 && i < m->nbodies) ? m->bodies[i].def.mass : NAN;
}

ccb_status ccb_model_body_def_get(const ccb_model* m, int i, ccb_body_def* def) {
    if (m == NULL || def == NULL || i < 0 || i >= m->nbodies) {
        return CCB_E_INVALID;
    }
    *def = m->bodies[i].def;
    return CCB_OK;
}

ccb_status ccb_model_shape_def_get(const ccb_model* m, int i, int* body, ccb_shape_def* def) {
    if (m == NULL || def == NULL || i < 0 || i >= m->nshapes) {
        return CCB_E_INVALID;
    }
    *def = m->shapes[i].def;
    if (body) {
        *body = m->shapes[i].body;
    }
    return CCB_OK;
}

ccb_status ccb_model_body_coords(const ccb_model* m, int i, int* qoff, int* nq, int* voff,
                                 int* nv) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (!m->finalized || i < 0 || i >= m->nbodies) {
        return CCB_E_INVALID;
    }
    const ccb_body* b = &m->bodies[i];
    if (qoff)
        *qoff = b->qoff;
    if (nq)
        *nq = b->nq;
    if (voff)
        *voff = b->voff;
    if (nv)
        *nv = b->nv;
    return CCB_OK;
}

const char* ccb_model_q_name(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nq) ? m->qnames[i] : NULL;
}
const char* ccb_model_q_unit(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nq) ? m->qunits[i] : NULL;
}
const char* ccb_model_v_name(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nv) ? m->vnames[i] : NULL;
}
const char* ccb_model_v_unit(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nv) ? m->vunits[i] : NULL;
}

ccb_status ccb_model_initial_state(const ccb_model* m, double* q, double* v) {
    if (m == NULL || (m->nq > 0 && q == NULL) || (m->nv > 0 && v == NULL)) {
        return CCB_E_INVALID;
    }
    if (!m->finalized) {
        return CCB_E_INVALID;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
            const ccb_twist* V = &b->def.twist;
            const double v6[6] = {V->w.x, V->w.y, V->w.z, V->v.x, V->v.y, V->v.z};
            memcpy(q + b->qoff, b->free0, 7 * sizeof(double));
            memcpy(v + b->voff, v6, sizeof v6);
            continue;
        }
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            q[b->qoff] = b->def.joint.q0;
            v[b->voff] = b->def.joint.v0;
            continue;
        }
        const double v3[3] = {b->def.twist.v.x, b->def.twist.v.z, b->def.twist.w.y};
        for (int k = 0; k < b->nv; ++k) {
            q[b->qoff + k] = b->planar0[b->coord[k]];
            v[b->voff + k] = v3[b->coord[k]];
        }
    }
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
    double S[6 * CCB_MAX_BODY_NV];
    ccb_body_velocity_map(b, qb, S);
    ccb_pose X;
    ccb_body_pose(b, 0.0, qb, &X);
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_mat3 tmp = ccb_m3_mul(&X.R, &b->def.inertia);
    const ccb_mat3 IW = ccb_m3_mul(&tmp, &RT); /* I_W = R I_B R^T */
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
