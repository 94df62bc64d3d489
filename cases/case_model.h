/* cases/case_model.h — what the case files share (docs/architecture.md §2): the rows of the
 * parameter tables of the point-contact cases and the small model builders (case_model.c). */
#ifndef CCB_CASE_MODEL_H
#define CCB_CASE_MODEL_H

#include "case.h"

/* Rows shared by the parameter tables of the point-contact cases (name, default, unit, range,
 * meaning, source tag). */
#define CASE_PARAM_VS                                                                              \
    {                                                                                              \
        .name = "vs", .def = 1e-4, .unit = "m/s", .hi = 10, .lo_open = 1,                          \
        .meaning = "stiction tolerance v_s (Lagged, Similar)", .tag = "[ICF]"                      \
    }
#define CASE_PARAM_SIGMA                                                                           \
    {                                                                                              \
        .name = "sigma", .def = 1e-3, .unit = "-", .hi = 1, .lo_open = 1,                          \
        .meaning = "SAP R_t = sigma w; ICF eq. (26)", .tag = "[ICF]"                               \
    }
#define CASE_PARAM_BETA                                                                            \
    {                                                                                              \
        .name = "beta", .def = 1.0, .unit = "-", .hi = 100,                                        \
        .meaning = "SAP near-rigid parameter (0 disables the cap)", .tag = "[default?]"            \
    }
#define CASE_PARAM_G                                                                               \
    {                                                                                              \
        .name = "g", .def = 9.81, .unit = "m/s^2", .hi = 100, .lo_open = 1, .meaning = "gravity",  \
        .tag = "[default?]"                                                                        \
    }
#define CASE_PARAM_MARGIN                                                                          \
    {                                                                                              \
        .name = "margin", .def = 0.1, .unit = "m", .hi = 10,                                       \
        .meaning = "speculative contact margin", .tag = "[ICF §X-A]"                              \
    }

/* Sets v_s, sigma, beta and the contact margin of a run from case parameters. */
void case_contact_options(ccb_sim_params* sp, double vs, double sigma, double beta, double margin);
/* The fixed ground body at the origin and its rigid floor (the half-space z <= 0) with friction
 * mu, named "ground" and "floor". */
void case_ground(double mu, ccb_body_def* ground, ccb_shape_def* floor);
/* A finger of the grasping cases: a block of `mass` [kg] and edge lengths `size` [m] on a
 * prismatic joint of body `parent` at p_PF along `axis`, starting at q0 [m], pushed by `act`
 * (called with `user`). */
ccb_body_def case_finger(const char* name, double mass, ccb_vec3 size, int parent, ccb_vec3 p_PF,
                         ccb_vec3 axis, double q0, ccb_joint_force_fn act, void* user);
/* One contact point at its body's origin (the centre of mass) with material mat: the contact of
 * the box and aniso cases, whose closed forms are those of a point mass. */
ccb_shape_def case_point_at_origin(const char* name, ccb_material mat);
/* A sphere of radius r [m] centred at p in its body's frame. */
ccb_shape_def case_sphere_at(const char* name, ccb_vec3 p, double r, ccb_material mat);
/* The side of a vertical cylinder (radius, height [m]) centred at p in its body's frame: a rigid
 * capsule along z whose straight part spans the height (ccb has no cylinder; its caps lie
 * beyond the height), friction mu. */
ccb_shape_def case_side_capsule(const char* name, double radius, double height, ccb_vec3 p,
                                double mu);
/* Ends a builder that added bodies and shapes with status s: finalizes the model into *out and
 * data into *dout (0), or frees both and writes "what: <the model's message>" (-1). */
int case_finish_model(ccb_model* m, ccb_status s, const char* what, void* data, ccb_model** out,
                      void** dout, char* msg, size_t n);
/* Builds and finalizes a model of two bodies with one shape each under gravity (0, 0, -g).
 * 0, or -1 with a message naming `what` (the model is freed). */
int case_build_pair(const char* what, double g, const ccb_body_def* a, const ccb_shape_def* sa,
                    const ccb_body_def* b, const ccb_shape_def* sb, ccb_model** out, char* msg,
                    size_t n);

#endif
