/* case_model: the small model builders the case files share (cases/case_model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_model.h"

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
    floor->material = (ccb_material){INFINITY, 0.0, 0.0, mu, 0.0};
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

ccb_shape_def case_point_at_origin(const char* name, ccb_material mat) {
    static const ccb_vec3 origin = {0, 0, 0};
    ccb_shape_def pt = ccb_shape_def_default();
    pt.name = name;
    pt.type = CCB_SHAPE_POINTS;
    pt.points = &origin;
    pt.npoints = 1;
    pt.material = mat;
    return pt;
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
    s.material = (ccb_material){INFINITY, 0.0, 0.0, mu, 0.0};
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
