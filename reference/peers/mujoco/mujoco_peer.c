/* mujoco_peer — see mujoco_peer.h.
 *
 * MuJoCo settings (its documented defaults unless stated): Newton solver, elliptic friction cones
 * (the convex models' cone), condim 3, tolerance 1e-8, at most 100 iterations, semi-implicit
 * Euler, no contact margin (MuJoCo's default; ccb's speculative 10 cm margin has no counterpart).
 * Contact stiffness: MuJoCo's soft constraints are set by a time constant and a damping ratio
 * (solref), not by k. A spring of k = 1e7 N/m on a 1 kg object has a period of 2 ms, the step
 * itself, which MuJoCo's explicit-in-the-constraint-force treatment cannot resolve; the mapping
 * used is MuJoCo's own guidance, solref = (2 dt, 1): the stiffest time constant it integrates
 * stably, critically damped. Friction: each geom carries its shape's mu (MuJoCo takes the
 * larger of a pair's; ccb's pair rule gives the same value for equal coefficients). */
#define _POSIX_C_SOURCE 200809L
#include "mujoco_peer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "ccb/math.h"

#ifdef CCB_HAVE_MUJOCO
#include <mujoco/mujoco.h>

static double wall_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct text {
    char* s;
    size_t len, cap;
    int oom;
} text;

static void put(text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text* t, const char* fmt, ...) {
    if (t->oom) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int k = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = 1;
            return;
        }
        if (t->s && t->len + (size_t)k < t->cap) {
            t->len += (size_t)k;
            return;
        }
        const size_t cap = 2 * (t->cap + (size_t)k + 256);
        char* s = realloc(t->s, cap);
        if (s == NULL) {
            t->oom = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* pos="x y z" quat="w x y z" of a pose */
static void put_pose(text* t, const ccb_pose* X) {
    double q[4];
    ccb_quat_from_m3(&X->R, q);
    put(t, " pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"", X->p.x, X->p.y, X->p.z,
        q[0], q[1], q[2], q[3]);
}

static int put_geom(text* t, const ccb_shape_def* s, const ccb_pose* X, char* msg, size_t n) {
    switch (s->type) {
    case CCB_SHAPE_SPHERE:
        put(t, "<geom type=\"sphere\" size=\"%.17g\"", s->radius);
        break;
    case CCB_SHAPE_BOX:
        put(t, "<geom type=\"box\" size=\"%.17g %.17g %.17g\"", s->half_extents.x,
            s->half_extents.y, s->half_extents.z);
        break;
    case CCB_SHAPE_HALFSPACE:
        put(t, "<geom type=\"plane\" size=\"0 0 1\"");
        break;
    default:
        snprintf(msg, n, "the MuJoCo peer translates spheres, boxes and half-spaces, not %s",
                 s->type == CCB_SHAPE_CAPSULE  ? "capsules"
                 : s->type == CCB_SHAPE_HYDRO  ? "hydroelastic meshes"
                 : s->type == CCB_SHAPE_POINTS ? "point sets"
                                               : "this shape type");
        return -1;
    }
    put_pose(t, X);
    put(t, " friction=\"%.17g 0.005 0.0001\"/>\n", s->material.mu);
    return 0;
}

/* A free body made only of >= 8 spheres: the box that bounds them (half extents, centre). */
static int bounding_box(const ccb_model* m, int body, ccb_vec3* h, double* mu) {
    int count = 0;
    double e[3] = {0, 0, 0};
    for (int i = 0; i < ccb_model_nshapes(m); ++i) {
        ccb_shape_def s;
        int b;
        ccb_model_shape_def_get(m, i, &b, &s);
        if (b != body) {
            continue;
        }
        if (s.type != CCB_SHAPE_SPHERE) {
            return 0;
        }
        const double c[3] = {s.pose.p.x, s.pose.p.y, s.pose.p.z};
        for (int k = 0; k < 3; ++k) {
            e[k] = fmax(e[k], fabs(c[k]) + s.radius);
        }
        *mu = s.material.mu;
        count++;
    }
    h->x = e[0];
    h->y = e[1];
    h->z = e[2];
    return count >= 8;
}

static char* mjcf(const ccb_model* m, double dt, peer_geometry geometry, char* msg, size_t n) {
    text t = {0};
    const ccb_vec3 g = ccb_model_gravity(m);
    put(&t, "<mujoco model=\"ccb\">\n");
    put(&t,
        "<option timestep=\"%.17g\" gravity=\"%.17g %.17g %.17g\" solver=\"Newton\" "
        "cone=\"elliptic\" iterations=\"100\" tolerance=\"1e-8\" integrator=\"Euler\"/>\n",
        dt, g.x, g.y, g.z);
    put(&t, "<size njmax=\"3000\" nconmax=\"1000\"/>\n");
    put(&t, "<default><geom condim=\"3\" solref=\"%.17g 1\"/></default>\n", 2 * dt);
    put(&t, "<worldbody>\n");
    const int nb = ccb_model_nbodies(m), ns = ccb_model_nshapes(m);
    double* q = calloc((size_t)ccb_model_nq(m) + 1, sizeof(double));
    double* v = calloc((size_t)ccb_model_nv(m) + 1, sizeof(double));
    const int have = q && v && ccb_model_initial_state(m, q, v) == CCB_OK;
    free(v);
    if (!have) {
        free(q);
        free(t.s);
        snprintf(msg, n, "out of memory or no initial state");
        return NULL;
    }
    int rc = 0;
    for (int b = 0; b < nb && rc == 0; ++b) {
        ccb_body_def d;
        ccb_model_body_def_get(m, b, &d);
        ccb_pose X;
        ccb_model_body_pose(m, b, 0.0, q, &X);
        const int planar = d.mobilizer == CCB_MOBILIZER_PLANAR;
        const int is_free = d.mobilizer == CCB_MOBILIZER_FREE || planar; /* a body of its own */
        if ((!is_free && d.mobilizer != CCB_MOBILIZER_FIXED) || d.force != NULL) {
            snprintf(msg, n, "the MuJoCo peer translates fixed, free and planar bodies without "
                             "applied loads; body '%s' has %s",
                     ccb_model_body_name(m, b),
                     d.force ? "an applied load" : "a prescribed motion");
            rc = -1;
            break;
        }
        if (is_free) {
            put(&t, "<body name=\"%s\"", ccb_model_body_name(m, b));
            put_pose(&t, &X);
            const double* I = d.inertia.m;
            if (planar) { /* slides along world x and z (axes in the body frame), hinge about y */
                const double* R = X.R.m;
                static const char* const names[3] = {"x", "z", "theta"};
                const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
                put(&t, ">\n");
                for (int k = 0; k < 3; ++k) {
                    if (d.locked & lock[k]) {
                        continue;
                    }
                    if (k < 2) { /* R^T e_x or R^T e_z */
                        const int c = k == 0 ? 0 : 2;
                        put(&t,
                            "<joint name=\"%s_%s\" type=\"slide\" axis=\"%.17g %.17g %.17g\" "
                            "damping=\"%.17g\"/>\n",
                            ccb_model_body_name(m, b), names[k], R[c], R[3 + c], R[6 + c],
                            d.damping[k]);
                    } else {
                        put(&t,
                            "<joint name=\"%s_%s\" type=\"hinge\" axis=\"0 1 0\" "
                            "damping=\"%.17g\"/>\n",
                            ccb_model_body_name(m, b), names[k], d.damping[k]);
                    }
                }
                put(&t,
                    "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g "
                    "%.17g\"/>\n",
                    d.mass, I[4], I[4], I[4]);
            } else {
                put(&t,
                    ">\n<freejoint/>\n<inertial pos=\"0 0 0\" mass=\"%.17g\" "
                    "fullinertia=\"%.17g %.17g %.17g %.17g %.17g %.17g\"/>\n",
                    d.mass, I[0], I[4], I[8], I[1], I[2], I[5]);
            }
        }
        ccb_vec3 h;
        double mu = 0;
        if (is_free && geometry == PEER_NATIVE_BOXES && bounding_box(m, b, &h, &mu)) {
            put(&t,
                "<geom type=\"box\" size=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 "
                "0.0001\"/>\n",
                h.x, h.y, h.z, mu);
        } else {
            for (int i = 0; i < ns && rc == 0; ++i) {
                ccb_shape_def s;
                int sb;
                ccb_model_shape_def_get(m, i, &sb, &s);
                if (sb != b) {
                    continue;
                }
                /* world geoms in the world frame, body geoms in the body frame */
                const ccb_pose Xs = is_free ? s.pose : ccb_pose_compose(&X, &s.pose);
                rc = put_geom(&t, &s, &Xs, msg, n);
            }
        }
        if (is_free) {
            put(&t, "</body>\n");
        }
    }
    free(q);
    put(&t, "</worldbody>\n</mujoco>\n");
    if (rc != 0 || t.oom) {
        if (t.oom) {
            snprintf(msg, n, "out of memory for the MJCF text");
        }
        free(t.s);
        return NULL;
    }
    return t.s;
}

int peer_mujoco_available(void) {
    return 1;
}

const char* peer_mujoco_version(void) {
    static char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", mj_version() / 100, (mj_version() / 10) % 10,
             mj_version() % 10);
    return v;
}

int peer_mujoco_run(const ccb_model* m, double dt, double t_final, peer_geometry geometry,
                    peer_result* out, char* msg, size_t n) {
    memset(out, 0, sizeof *out);
    char* xml = mjcf(m, dt, geometry, msg, n);
    if (xml == NULL) {
        return -1;
    }
    mjVFS* vfs = malloc(sizeof *vfs);
    if (vfs == NULL) {
        free(xml);
        snprintf(msg, n, "out of memory");
        return -1;
    }
    mj_defaultVFS(vfs);
    const int len = (int)strlen(xml);
    if (mj_makeEmptyFileVFS(vfs, "ccb_scene.xml", len) != 0) {
        free(xml);
        free(vfs);
        snprintf(msg, n, "MuJoCo: cannot create the in-memory scene file");
        return -1;
    }
    memcpy(vfs->filedata[mj_findFileVFS(vfs, "ccb_scene.xml")], xml, (size_t)len);
    free(xml);
    char err[1000] = "";
    mjModel* mm = mj_loadXML("ccb_scene.xml", vfs, err, sizeof err);
    mj_deleteVFS(vfs);
    free(vfs);
    if (mm == NULL) {
        snprintf(msg, n, "MuJoCo rejected the scene: %s", err);
        return -1;
    }
    mjData* d = mj_makeData(mm);
    if (d == NULL) {
        mj_deleteModel(mm);
        snprintf(msg, n, "MuJoCo: out of memory for mjData");
        return -1;
    }
    /* initial velocities: freejoint qvel = (v of the origin in W, omega in the body frame) */
    double* q = calloc((size_t)ccb_model_nq(m) + 1, sizeof(double));
    double* v = calloc((size_t)ccb_model_nv(m) + 1, sizeof(double));
    int ok = q && v && ccb_model_initial_state(m, q, v) == CCB_OK;
    for (int b = 0, j = 0; ok && b < ccb_model_nbodies(m); ++b) {
        ccb_body_def bd;
        ccb_model_body_def_get(m, b, &bd);
        if (bd.mobilizer != CCB_MOBILIZER_FREE && bd.mobilizer != CCB_MOBILIZER_PLANAR) {
            continue;
        }
        ccb_pose X;
        ccb_twist V;
        ccb_model_body_pose(m, b, 0.0, q, &X);
        ccb_model_body_twist(m, b, 0.0, q, v, &V);
        double* qv = d->qvel + j;
        if (bd.mobilizer == CCB_MOBILIZER_PLANAR) { /* the joints' rates: v_x, v_z, omega_y */
            const double rate[3] = {V.v.x, V.v.z, V.w.y};
            const unsigned lock[3] = {CCB_LOCK_X, CCB_LOCK_Z, CCB_LOCK_THETA};
            for (int k = 0; k < 3; ++k) {
                if (!(bd.locked & lock[k])) {
                    d->qvel[j++] = rate[k];
                }
            }
            continue;
        }
        const double* R = X.R.m;
        qv[0] = V.v.x;
        qv[1] = V.v.y;
        qv[2] = V.v.z;
        qv[3] = R[0] * V.w.x + R[3] * V.w.y + R[6] * V.w.z;
        qv[4] = R[1] * V.w.x + R[4] * V.w.y + R[7] * V.w.z;
        qv[5] = R[2] * V.w.x + R[5] * V.w.y + R[8] * V.w.z;
        j += 6;
    }
    free(q);
    free(v);
    if (!ok) {
        mj_deleteData(d);
        mj_deleteModel(mm);
        snprintf(msg, n, "out of memory or no initial state");
        return -1;
    }
    mj_forward(mm, d);
    const long steps = lround(t_final / dt);
    double iters = 0, ncon = 0, pen = 0;
    long npen = 0;
    const double tic = wall_time();
    for (long s = 0; s < steps; ++s) {
        mj_step(mm, d);
        iters += d->solver_iter;
        ncon += d->ncon;
        for (int c = 0; c < d->ncon; ++c) {
            if (d->contact[c].dist < 0) {
                pen -= d->contact[c].dist;
                npen++;
            }
        }
    }
    out->wall = wall_time() - tic;
    out->steps = steps;
    out->mean_iter = steps ? iters / (double)steps : 0;
    out->mean_ncon = steps ? ncon / (double)steps : 0;
    out->mean_pen = npen ? pen / (double)npen : 0;
    out->ok = 1;
    for (int i = 0; i < mm->nq; ++i) {
        out->ok &= isfinite(d->qpos[i]);
    }
    mj_deleteData(d);
    mj_deleteModel(mm);
    return 0;
}

#else /* without MuJoCo */

int peer_mujoco_available(void) {
    return 0;
}
const char* peer_mujoco_version(void) {
    return NULL;
}
int peer_mujoco_run(const ccb_model* m, double dt, double t_final, peer_geometry geometry,
                    peer_result* out, char* msg, size_t n) {
    (void)m, (void)dt, (void)t_final, (void)geometry;
    memset(out, 0, sizeof *out);
    snprintf(msg, n, "this ccb was built without MuJoCo (install libmujoco-dev and rebuild)");
    return -1;
}

#endif

void peer_mujoco_describe(double dt, void (*line)(const char* key, const char* value, void* user),
                          void* user) {
    char b[128];
    line("peer", "MuJoCo (mj_step), Newton solver, elliptic cones, condim 3", user);
    line("tolerance", "1e-8 (MuJoCo's default), at most 100 iterations", user);
    snprintf(b, sizeof b, "solref = (%g s, 1): time constant 2 dt, critically damped", 2 * dt);
    line("stiffness", b, user);
    line("margin", "0 (MuJoCo's default; ccb's speculative margin has no counterpart)", user);
}
