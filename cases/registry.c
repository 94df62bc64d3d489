/* registry: the list of cases and parameter handling (--set name=value). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"

extern const case_desc case_conveyor;
extern const case_desc case_sphere;
extern const case_desc case_rod;
extern const case_desc case_box;
extern const case_desc case_clutter;
extern const case_desc case_coin;
extern const case_desc case_gripper;
extern const case_desc case_grasp;
extern const case_desc case_spatula;
extern const case_desc case_push;

static const case_desc* const g_cases[] = {&case_conveyor, &case_sphere, &case_rod,     &case_box,
                                           &case_clutter,  &case_coin,   &case_gripper, &case_grasp,
                                           &case_spatula,  &case_push};

int case_count(void) {
    return (int)(sizeof g_cases / sizeof g_cases[0]);
}

const case_desc* case_get(int i) {
    return (i >= 0 && i < case_count()) ? g_cases[i] : NULL;
}

const case_desc* case_find(const char* name) {
    for (int i = 0; i < case_count(); ++i) {
        if (strcmp(g_cases[i]->name, name) == 0) {
            return g_cases[i];
        }
    }
    return NULL;
}

const case_param* case_find_param(const case_desc* cs, const char* name, int* index) {
    for (int i = 0; i < cs->nparams; ++i) {
        if (strcmp(cs->params[i].name, name) == 0) {
            if (index) {
                *index = i;
            }
            return &cs->params[i];
        }
    }
    return NULL;
}

int case_param_read(const case_desc* cs, int i, const char* approx, const double* params, char* why,
                    size_t n) {
    const char* c = cs->params[i].read_if;
    if (c == NULL) {
        return 1;
    }
    const char* eq = strchr(c, '=');
    const size_t len = eq ? (size_t)(eq - c) : 0;
    int read = 0;
    if (eq && len == 6 && strncmp(c, "approx", 6) == 0) {
        read = approx != NULL && strcmp(approx, eq + 1) == 0;
    } else {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), c);
        int k = -1;
        double v = NAN;
        read = eq && case_find_param(cs, name, &k) != NULL && ccb_parse_decimal(eq + 1, &v) == 0 &&
               params[k] == v;
    }
    if (!read) {
        snprintf(why, n, "%s is read only by the runs with %s", cs->params[i].name, c);
    }
    return read;
}

void case_default_params(const case_desc* cs, double* params) {
    for (int i = 0; i < cs->nparams; ++i) {
        params[i] = cs->params[i].def;
    }
}

int case_set_param(const case_desc* cs, double* params, const char* assignment, char* msg,
                   size_t n) {
    const char* eq = strchr(assignment, '=');
    if (eq == NULL || eq == assignment) {
        snprintf(msg, n, "--set expects name=value (got '%s')", assignment);
        return -1;
    }
    char name[64];
    const size_t len = (size_t)(eq - assignment);
    if (len >= sizeof name) {
        snprintf(msg, n, "parameter name too long in '%s'", assignment);
        return -1;
    }
    memcpy(name, assignment, len);
    name[len] = '\0';
    int idx = -1;
    const case_param* p = case_find_param(cs, name, &idx);
    if (p == NULL) {
        int off = snprintf(msg, n, "unknown parameter '%s' for case %s; known:", name, cs->name);
        for (int i = 0; i < cs->nparams && off > 0 && (size_t)off < n; ++i) {
            off += snprintf(msg + off, n - (size_t)off, " %s", cs->params[i].name);
        }
        return -1;
    }
    const char* text = eq + 1;
    double v = NAN;
    if (ccb_parse_decimal(text, &v) != 0) {
        snprintf(msg, n, "parameter '%s': '%s' is not a number (a finite decimal is expected)",
                 name, text);
        return -1;
    }
    const int below = p->lo_open ? !(v > p->lo) : !(v >= p->lo);
    const int above = p->hi_open ? !(v < p->hi) : !(v <= p->hi);
    if (below || above) {
        snprintf(msg, n, "parameter '%s' = %g is out of range %s%g, %g%s [%s]", name, v,
                 p->lo_open ? "(" : "[", p->lo, p->hi, p->hi_open ? ")" : "]", p->unit);
        return -1;
    }
    if (p->integer && v != floor(v)) {
        snprintf(msg, n, "parameter '%s' must be a whole number (got %g)", name, v);
        return -1;
    }
    params[idx] = v;
    return 0;
}

void case_contact_options(ccb_sim_params* sp, double vs, double sigma, double beta, double margin) {
    sp->vs = vs;
    sp->problem.approx.sigma = sigma;
    sp->problem.approx.beta = beta;
    sp->margin = margin;
}

void case_ground(double mu, ccb_body_def* ground, ccb_shape_def* floor) {
    *ground = ccb_body_def_default();
    ground->name = "ground";
    ground->mobilizer = CCB_MOBILIZER_FIXED;
    ground->pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    *floor = ccb_shape_def_default();
    floor->name = "floor";
    floor->material = (ccb_material){INFINITY, 0.0, 0.0, mu};
}

ccb_body_def case_finger(const char* name, double mass, ccb_vec3 size, int parent, ccb_vec3 p_PF,
                         ccb_vec3 axis, double q0, ccb_joint_force_fn act, void* user) {
    ccb_body_def f = ccb_body_def_default();
    f.name = name;
    f.mobilizer = CCB_MOBILIZER_PRISMATIC;
    f.mass = mass;
    f.inertia = ccb_m3_identity(); /* a solid block about its centre */
    f.inertia.m[0] = mass * (size.y * size.y + size.z * size.z) / 12.0;
    f.inertia.m[4] = mass * (size.x * size.x + size.z * size.z) / 12.0;
    f.inertia.m[8] = mass * (size.x * size.x + size.y * size.y) / 12.0;
    f.joint.parent = parent;
    f.joint.X_PF = ccb_pose_translation(p_PF);
    f.joint.axis = axis;
    f.joint.q0 = q0;
    f.joint.actuation = act;
    f.joint.actuation_user = user;
    return f;
}

ccb_shape_def case_sphere_at(const char* name, ccb_vec3 p, double r, ccb_material mat) {
    ccb_shape_def s = ccb_shape_def_default();
    s.name = name;
    s.type = CCB_SHAPE_SPHERE;
    s.radius = r;
    s.pose = ccb_pose_translation(p);
    s.material = mat;
    return s;
}

ccb_shape_def case_side_capsule(const char* name, double radius, double height, ccb_vec3 p,
                                double mu) {
    ccb_shape_def s = ccb_shape_def_default();
    s.name = name;
    s.type = CCB_SHAPE_CAPSULE;
    s.radius = radius;
    s.half_length = 0.5 * height;
    s.pose.p = p;
    s.pose.R = ccb_m3_rot_y(-0.5 * CCB_PI); /* the capsule's x axis along z */
    s.material = (ccb_material){INFINITY, 0.0, 0.0, mu};
    return s;
}

int case_finish_model(ccb_model* m, ccb_status s, const char* what, void* data, ccb_model** out,
                      void** dout, char* msg, size_t n) {
    if (s == CCB_OK) {
        s = ccb_model_finalize(m);
    }
    if (s != CCB_OK) {
        snprintf(msg, n, "%s: %s", what, ccb_model_last_error(m));
        ccb_model_destroy(m);
        free(data);
        return -1;
    }
    *out = m;
    *dout = data;
    return 0;
}

int case_build_pair(const char* what, double g, const ccb_body_def* a, const ccb_shape_def* sa,
                    const ccb_body_def* b, const ccb_shape_def* sb, ccb_model** out, char* msg,
                    size_t n) {
    ccb_model* m = NULL;
    if (ccb_model_create(&m) != CCB_OK) {
        snprintf(msg, n, "%s model: out of memory", what);
        return -1;
    }
    int ia = -1, ib = -1;
    if (ccb_model_set_gravity(m, ccb_v3(0, 0, -g)) != CCB_OK ||
        ccb_model_add_body(m, a, &ia) != CCB_OK || ccb_model_add_shape(m, ia, sa, NULL) != CCB_OK ||
        ccb_model_add_body(m, b, &ib) != CCB_OK || ccb_model_add_shape(m, ib, sb, NULL) != CCB_OK ||
        ccb_model_finalize(m) != CCB_OK) {
        snprintf(msg, n, "%s model: %s", what, ccb_model_last_error(m));
        ccb_model_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
}
