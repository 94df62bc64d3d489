/* Case CLUTTER — objects dropped into a box (spec: cases.md §6; ICF §XII-A, Figs. 14-19).
 *
 * 40 free bodies in 4 columns of 10 (spheres of 10 cm, 0.524 kg, and cubes of 10 cm, 1 kg, in
 * the order S B S S B S S B S B from the bottom) fall into a rigid 80 x 80 x 80 cm container.
 * A cube touches the world only through 26 spheres of radius L/6 on a 3 x 3 x 3 lattice (centre
 * omitted) that reach its faces (the authors' layout). The container is five rigid boxes: a
 * floor with its top at z = 0 and four 4 cm walls with inner faces at +-0.38 m, 0.8 m high.
 * Every pair with phi < 10 cm is a contact (ICF §X-A), so the contact graph holds thousands of
 * pre-contact constraints between the cubes' spheres.
 *
 * Studies: fig15-16 (iterations, kappa(H) and the effective stiction tolerance per step at
 * dt = 2e-3, ICF Figs. 15-16), fig17 (mean iterations and kappa against dt, Fig. 17), fig18-19
 * (steady penetration, iterations and kappa against the stiffness at dt = 5e-3, Figs. 18-19,
 * plus k = 1e13 where the paper reports failure), scale (40, 160 and 640 objects: time per
 * step and where it goes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case.h"

enum {
    P_K,
    P_D,
    P_TAU,
    P_MU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_SIDE,
    P_LEVELS,
    P_SPIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    {"k", 1e7, "N/m", 0, 1e15, 1, 0, 0,
     "stiffness of each object geometry (rigid container: object-wall pairs k, object-object "
     "pairs k/2 in series)",
     "[ICF]"},
    {"d", 10.0, "s/m", 0, 1e6, 0, 0, 0, "Hunt & Crossley dissipation (Lagged, Similar)", "[ICF]"},
    {"tau_d", 1e-4, "s", 0, 10, 0, 0, 0, "SAP relaxation time of each object geometry", "[ICF]"},
    {"mu", 1.0, "-", 0, 10, 0, 0, 0, "friction coefficient of every surface", "[ICF]"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    CASE_PARAM_MARGIN,
    {"side", 2, "-", 1, 16, 0, 0, 1,
     "columns per side of the grid (2: the paper's 4 columns; 4: 16, 8: 64); the container "
     "grows with it, 0.4 m per column",
     "[default?]"},
    {"levels", 10, "-", 1, 40, 0, 0, 1, "objects per column", "[ICF]"},
    {"spin", 0.7, "rad", -10, 10, 0, 0, 0,
     "object i is rotated by spin i about (1,1,1)/sqrt(3) (the paper's random orientations are "
     "not portable)",
     "[default?]"},
};

static const char* const k_notes[] = {
    "Shape order bottom to top S B S S B S S B S B in every column: the first 10 draws of "
    "std::uniform_int_distribution(0,1) on std::mt19937(41) as in the authors' code "
    "[cases.md §6.1; that ICF used this version is default?].",
    "Column centres (+-0.2, +-0.2) m, heights 0.075 + 0.15 i m; columns are numbered along x "
    "then y; object k = 10 c + i is rotated by 0.7 k rad about (1,1,1)/sqrt(3) [default?].",
    "Container: rigid boxes (floor top at z = 0, walls 4 cm thick with inner faces at +-0.38 m, "
    "0.8 m high) [code]. Objects carry the stiffness k per geometry, so an object-wall pair has "
    "k and an object-object pair k/2 (Drake's series combination); d combines to d, tau_d adds "
    "(object-object 2 tau_d) [default?].",
    "A cube touches everything only through its 26 spheres (the authors' cube geometry also met "
    "sphere objects; ccb drops it) [cases.md §6.1].",
    "Mean penetration: average over steps with t in [1.75, 3] s of the mean of -phi over the "
    "contacts with phi < 0 (start-of-step geometry) [cases.md §6.3, default?].",
    "Condition number kappa_2(H) = lambda_max/lambda_min of the unscaled Hessian at the solution "
    "by a dense symmetric eigen-solve (spec formulation-convex §8.9, ccb choice).",
};

static const char* const k_obs[] = {
    "contacts [-]",          "touching [-]",           "penetration_mean [m]",
    "speed_max [m/s]",       "outside_max [m]",        "stiction_tol_min [m/s]",
    "stiction_tol_mean [m/s]", "stiction_tol_max [m/s]"};
enum { O_NC, O_TOUCH, O_PEN, O_SPEED, O_OUT, O_STMIN, O_STMEAN, O_STMAX, O_COUNT };

#define CUBE_L 0.1
#define SPHERE_R 0.05
#define SPHERE_MASS 0.524
#define CUBE_MASS 1.0
#define WALL_HALF_THICK 0.02
#define WALL_HEIGHT 0.8

/* Inner half width of the container for `side` columns per side [m]. */
static double inner_half(const double* P) {
    return 0.2 * P[P_SIDE] - WALL_HALF_THICK;
}

/* bottom-to-top pattern of each column: 0 sphere, 1 cube (cases.md §6.1) */
static const int k_pattern[10] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 1};

static int add_container(ccb_model* m, const double* P, char* msg, size_t n) {
    ccb_body_def c = ccb_body_def_default();
    c.name = "container";
    c.mobilizer = CCB_MOBILIZER_FIXED;
    c.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    int ib;
    if (ccb_model_add_body(m, &c, &ib) != CCB_OK) {
        snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
        return -1;
    }
    const double h = inner_half(P), t = WALL_HALF_THICK, H = 0.5 * WALL_HEIGHT;
    const double outer = h + 2 * t;
    const struct {
        const char* name;
        ccb_vec3 centre, half;
    } walls[5] = {
        {"floor", {0, 0, -t}, {outer, outer, t}},
        {"wall_xm", {-(h + t), 0, H}, {t, outer, H}},
        {"wall_xp", {h + t, 0, H}, {t, outer, H}},
        {"wall_ym", {0, -(h + t), H}, {h, t, H}},
        {"wall_yp", {0, h + t, H}, {h, t, H}},
    };
    for (int i = 0; i < 5; ++i) {
        ccb_shape_def s = ccb_shape_def_default();
        s.name = walls[i].name;
        s.type = CCB_SHAPE_BOX;
        s.pose = ccb_pose_translation(walls[i].centre);
        s.half_extents = walls[i].half;
        s.material = (ccb_material){INFINITY, 0.0, 0.0, P[P_MU]};
        if (ccb_model_add_shape(m, ib, &s, NULL) != CCB_OK) {
            snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
            return -1;
        }
    }
    return 0;
}

static int add_object(ccb_model* m, const double* P, int k, int cube, ccb_vec3 pos, char* msg,
                      size_t n) {
    ccb_body_def b = ccb_body_def_default();
    char name[32];
    snprintf(name, sizeof name, "%s%d", cube ? "cube" : "sphere", k);
    b.name = name;
    b.mobilizer = CCB_MOBILIZER_FREE;
    b.mass = cube ? CUBE_MASS : SPHERE_MASS;
    const double I = cube ? b.mass * CUBE_L * CUBE_L / 6.0 : 0.4 * b.mass * SPHERE_R * SPHERE_R;
    b.inertia = ccb_m3_identity();
    b.inertia.m[0] = b.inertia.m[4] = b.inertia.m[8] = I;
    const double s3 = 1.0 / sqrt(3.0);
    b.pose.R = ccb_m3_axis_angle(ccb_v3(s3, s3, s3), P[P_SPIN] * (double)k);
    b.pose.p = pos;
    int ib;
    if (ccb_model_add_body(m, &b, &ib) != CCB_OK) {
        snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
        return -1;
    }
    ccb_shape_def s = ccb_shape_def_default();
    s.type = CCB_SHAPE_SPHERE;
    s.material = (ccb_material){P[P_K], P[P_D], P[P_TAU], P[P_MU]};
    if (!cube) {
        s.radius = SPHERE_R;
        if (ccb_model_add_shape(m, ib, &s, NULL) != CCB_OK) {
            snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
            return -1;
        }
        return 0;
    }
    s.radius = CUBE_L / 6.0; /* 26 spheres reaching the faces (cases.md §6.1) */
    for (int i = -1; i <= 1; ++i) {
        for (int j = -1; j <= 1; ++j) {
            for (int l = -1; l <= 1; ++l) {
                if (i == 0 && j == 0 && l == 0) {
                    continue;
                }
                s.pose = ccb_pose_translation(
                    ccb_v3(i * CUBE_L / 3.0, j * CUBE_L / 3.0, l * CUBE_L / 3.0));
                if (ccb_model_add_shape(m, ib, &s, NULL) != CCB_OK) {
                    snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
                    return -1;
                }
            }
        }
    }
    return 0;
}

static int clutter_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    *data = NULL;
    ccb_model* m = NULL;
    if (ccb_model_create(&m) != CCB_OK) {
        snprintf(msg, n, "clutter: out of memory");
        return -1;
    }
    ccb_model_set_gravity(m, ccb_v3(0, 0, -P[P_G]));
    int rc = add_container(m, P, msg, n);
    const int side = (int)lround(P[P_SIDE]), levels = (int)lround(P[P_LEVELS]);
    for (int cy = 0; cy < side && rc == 0; ++cy) {
        for (int cx = 0; cx < side && rc == 0; ++cx) {
            const int c = cy * side + cx;
            const double x = 0.4 * cx - 0.2 * (side - 1), y = 0.4 * cy - 0.2 * (side - 1);
            for (int i = 0; i < levels && rc == 0; ++i) {
                const int k = c * levels + i;
                rc = add_object(m, P, k, k_pattern[i % 10], ccb_v3(x, y, 0.075 + 0.15 * i), msg,
                                n);
            }
        }
    }
    if (rc == 0 && ccb_model_finalize(m) != CCB_OK) {
        snprintf(msg, n, "clutter: %s", ccb_model_last_error(m));
        rc = -1;
    }
    if (rc != 0) {
        ccb_model_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
}

static void clutter_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

static void clutter_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    (void)data;
    const ccb_model* m = ccb_sim_model(sim);
    const double* v = ccb_sim_v(sim);
    const double* q = ccb_sim_q(sim);
    const int nc = ccb_sim_ncontacts(sim);
    double pen = 0, stsum = 0, stmin = INFINITY, stmax = 0;
    int npen = 0, ntouch = 0;
    for (int i = 0; i < nc; ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        if (c->geometry.phi0 < 0) {
            pen += -c->geometry.phi0;
            npen++;
        }
        if (c->gamma[2] > 0) { /* the effective stiction tolerance of contacts that push */
            ntouch++;
            stsum += c->stiction_tol;
            stmin = fmin(stmin, c->stiction_tol);
            stmax = fmax(stmax, c->stiction_tol);
        }
    }
    o[O_NC] = nc;
    o[O_TOUCH] = ntouch;
    o[O_PEN] = npen ? pen / npen : 0.0;
    o[O_STMIN] = ntouch ? stmin : 0.0;
    o[O_STMAX] = stmax;
    o[O_STMEAN] = ntouch ? stsum / ntouch : 0.0;
    double smax = 0, out = 0;
    const double h = inner_half(P);
    const int nb = ccb_model_nbodies(m);
    for (int b = 1; b < nb; ++b) { /* body 0 is the container */
        int qo, nq, vo, nv;
        ccb_model_body_coords(m, b, &qo, &nq, &vo, &nv);
        const double* vb = v + vo + 3; /* (w, v): translational part */
        smax = fmax(smax, sqrt(vb[0] * vb[0] + vb[1] * vb[1] + vb[2] * vb[2]));
        const double* p = q + qo;
        out = fmax(out, fmax(fabs(p[0]) - h, fmax(fabs(p[1]) - h, -p[2])));
    }
    o[O_SPEED] = smax;
    o[O_OUT] = out > 0 ? out : 0.0;
}

/* ---- studies ---------------------------------------------------------------------------------- */

__attribute__((unused)) static const ccb_approx* const k_models[4] = {&ccb_approx_sap, &ccb_approx_lagged,
                                              &ccb_approx_lagged_reg, &ccb_approx_similar};
__attribute__((unused)) static const char* const k_titles = "SAP Lagged Lagged-reg Similar";

static const case_study k_studies[] = {
    {"fig15-16", "iterations, kappa(H) and stiction tolerance per step at dt = 2e-3 s",
     "ICF Figs. 15-16", NULL},
};

static const char* const k_quick[] = {NULL};

const case_desc case_clutter = {
    "clutter",
    "Clutter: 40 objects dropped into a box (conditioning, stiffness robustness, speed)",
    "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, §XII-A, Figs. 14-19",
    k_params,
    P_COUNT,
    k_notes,
    (int)(sizeof k_notes / sizeof k_notes[0]),
    2e-3,
    3.0,
    "lagged",
    clutter_build,
    NULL,
    NULL,
    clutter_sim_options,
    O_COUNT,
    k_obs,
    clutter_observe,
    k_studies,
    0,
    k_quick,
};
