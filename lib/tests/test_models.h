/* lib/tests/test_models.h — small models the tests share (test_sim.c, test_errctl.c, test_bodies.c). */
#ifndef CCB_TEST_MODELS_H
#define CCB_TEST_MODELS_H

#include <stdio.h>
#include <stdlib.h>

#include "ccb/ccb.h"

/* A model these helpers could not build is a broken test: stop with the model's message (an
 * unchecked add_body would leave the body index unset, and the shape on whatever it held). */
static inline void model_ok(ccb_model* m, ccb_status s) {
    if (s != CCB_OK) {
        fprintf(stderr, "test model: %s\n", ccb_model_last_error(m));
        abort();
    }
}

/* A model with a floor half-space of friction mu (not finalized). */
static inline ccb_model* floor_model(double mu) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    int ig = -1;
    model_ok(m, ccb_model_add_body(m, &g, &ig));
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = mu;
    model_ok(m, ccb_model_add_shape(m, ig, &hs, NULL));
    return m;
}

/* Adds a free sphere (r = 5 cm, 0.5 kg) centred at height z with velocity v and material mat. */
static inline void add_ball_at(ccb_model* m, const char* name, ccb_vec3 p, ccb_vec3 v,
                               ccb_material mat) {
    ccb_body_def d = ccb_body_def_default();
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.name = name;
    d.mass = 0.5;
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = d.inertia.m[4] = d.inertia.m[8] = 0.4 * 0.5 * 0.05 * 0.05;
    d.pose.p = p;
    d.twist.v = v;
    int ib = -1;
    model_ok(m, ccb_model_add_body(m, &d, &ib));
    ccb_shape_def sp = ccb_shape_def_default();
    sp.type = CCB_SHAPE_SPHERE;
    sp.radius = 0.05;
    sp.material = mat;
    model_ok(m, ccb_model_add_shape(m, ib, &sp, NULL));
}

static inline void add_ball(ccb_model* m, const char* name, double z, ccb_vec3 v,
                            ccb_material mat) {
    add_ball_at(m, name, ccb_v3(0, 0, z), v, mat);
}

#endif
