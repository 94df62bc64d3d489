/* Case PANCAKE — a compliant pancake flipped by a rigid spatula (spec: cases.md §18; PFC §V-B,
 * Figs. 7-9).
 *
 * PFC flips a compliant pancake (a flat ellipsoid) from a stove top with a spatula held by a
 * robot arm and a soft-bubble gripper. Here the spatula's blade follows a prescribed path (the arm
 * and the gripper are not needed for the pancake's contacts): it slides in under the pancake,
 * lifts it, and turns over about its far edge, throwing the pancake, which lands upside down in
 * the pan. The pancake is the only compliant body (hydroelastic, formulation-tamsi-hydro §F):
 * against the pan (a rigid half-space) and against the blade (a rigid mesh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case_model.h"
#include "runs.h"

enum {
    P_MASS,
    P_RADIUS,
    P_HALF_THICK,
    P_E,
    P_D,
    P_TAU,
    P_MU,
    P_H,
    P_REPR,
    P_LIFT,
    P_T_SLIDE,
    P_T_LIFT,
    P_T_FLIP,
    P_PAN_R,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* clang-format off */
    {.name = "mass", .def = 0.05, .unit = "kg", .hi = 10, .lo_open = 1,
     .meaning = "pancake mass", .tag = "[default?]"},
    {.name = "radius", .def = 0.06, .unit = "m", .lo = 0.01, .hi = 1,
     .meaning = "pancake radius (semi-axes radius, radius, half_thick)", .tag = "[default?]"},
    {.name = "half_thick", .def = 0.008, .unit = "m", .lo = 0.001, .hi = 0.1,
     .meaning = "pancake half-thickness (the ellipsoid's short semi-axis)", .tag = "[default?]"},
    {.name = "E", .def = 1e5, .unit = "Pa", .hi = 1e10, .lo_open = 1,
     .meaning = "hydroelastic modulus of the pancake (PFC's value is lost)", .tag = "[default?]"},
    {.name = "d", .def = 5.0, .unit = "s/m", .hi = 1e4,
     .meaning = "Hunt & Crossley dissipation of the pancake", .tag = "[default?]"},
    {.name = "tau_d", .def = 0.01, .unit = "s", .hi = 10, .meaning = "SAP relaxation time",
     .tag = "[default?]", .read_if = "approx=sap"},
    {.name = "mu", .def = 0.5, .unit = "-", .hi = 10,
     .meaning = "friction of the pancake on the pan and on the blade", .tag = "[default?]"},
    {.name = "h", .def = 0.01, .unit = "m", .lo = 0.002, .hi = 0.1,
     .meaning = "mesh resolution of the pancake (surface triangle size)", .tag = "[default?]"},
    {.name = "repr", .unit = "-", .hi = 1, .integer = 1,
     .meaning = "contact surface: 0 polygons, 1 triangles (formulation-tamsi-hydro §F.3)",
     .tag = "[PFC]"},
    {.name = "lift", .def = 0.08, .unit = "m", .lo = 0.02, .hi = 1,
     .meaning = "height of the blade's pivot edge after the lift", .tag = "[default?]"},
    {.name = "t_slide", .def = 0.3, .unit = "s", .lo = 0.05, .hi = 10,
     .meaning = "duration of the slide in under the pancake", .tag = "[default?]"},
    {.name = "t_lift", .def = 0.3, .unit = "s", .lo = 0.05, .hi = 10,
     .meaning = "duration of the lift", .tag = "[default?]"},
    {.name = "t_flip", .def = 0.5, .unit = "s", .lo = 0.05, .hi = 10,
     .meaning = "duration of the blade's half turn about its far edge", .tag = "[default?]"},
    {.name = "pan_r", .def = 0.15, .unit = "m", .lo = 0.05, .hi = 10,
     .meaning = "radius of the pan about the blade's pivot (x = 7 cm)", .tag = "[default?]"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

/* the blade: half extents [m]; its pivot edge is its +x edge */
#define BLADE_HX 0.07
#define BLADE_HY 0.06
#define BLADE_HZ 0.002

typedef struct pancake_data {
    double x0, z0, lift, t_slide, t_lift, t_flip;
} pancake_data;

/* smoothstep s(u) = 3u^2 - 2u^3 on [0, 1] and its derivative */
static double smooth(double u, double* ds) {
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    *ds = 6 * u * (1 - u);
    return u * u * (3 - 2 * u);
}

/* The blade's path: slide in along +x below the pan's surface (the two rigid bodies do not touch),
 * lift, then a half turn about the y axis through its far (+x) edge. */
static void blade_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    const pancake_data* d = user;
    double ds;
    const double t1 = d->t_slide, t2 = t1 + d->t_lift;
    double x = d->x0, vx = 0, z = d->z0, vz = 0, th = 0, w = 0;
    if (t < t1) {
        const double s = smooth(t / t1, &ds);
        x = d->x0 * (1 - s);
        vx = -d->x0 * ds / t1;
    } else {
        x = 0;
        const double s = smooth((t - t1) / d->t_lift, &ds);
        z = d->z0 + (d->lift - d->z0) * s;
        vz = t < t2 ? (d->lift - d->z0) * ds / d->t_lift : 0;
        if (t >= t2) {
            const double sf = smooth((t - t2) / d->t_flip, &ds);
            th = CCB_PI * sf;
            w = t < t2 + d->t_flip ? CCB_PI * ds / d->t_flip : 0;
        }
    }
    /* pivot at (x + BLADE_HX, 0, z); the blade's centre at pivot + R_y(th) (-BLADE_HX, 0, 0) */
    const double c = cos(th), s = sin(th);
    const ccb_vec3 r = ccb_v3(-BLADE_HX * c, 0, BLADE_HX * s);
    X->R = ccb_m3_axis_angle(ccb_v3(0, 1, 0), th);
    X->p = ccb_v3(x + BLADE_HX + r.x, 0, z + r.z);
    V->w = ccb_v3(0, w, 0);
    /* v = v_pivot + w x r */
    V->v = ccb_v3(vx + w * r.z, 0, vz - w * r.x);
}

/* A hydroelastic shape of `mesh` (copied by the model) on body b. */
static ccb_status add_mesh(ccb_model* m, int b, const char* name, const ccb_hydro_mesh* mesh,
                           ccb_hydro_repr repr, ccb_material mat) {
    ccb_shape_def sh = ccb_shape_def_default();
    sh.name = name;
    sh.type = CCB_SHAPE_HYDRO;
    sh.mesh = mesh;
    sh.hydro_repr = repr;
    sh.material = mat;
    return ccb_model_add_shape(m, b, &sh, NULL);
}

static int pancake_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    pancake_data* d = calloc(1, sizeof *d);
    if (d == NULL) {
        snprintf(msg, n, "pancake: out of memory");
        return -1;
    }
    d->x0 = -0.25;
    d->z0 = -BLADE_HZ - 0.002; /* the blade's top 2 mm below the pan's surface */
    d->lift = P[P_LIFT];
    d->t_slide = P[P_T_SLIDE];
    d->t_lift = P[P_T_LIFT];
    d->t_flip = P[P_T_FLIP];
    ccb_model* m = NULL;
    if (ccb_model_create(&m) != CCB_OK) {
        free(d);
        snprintf(msg, n, "pancake: out of memory");
        return -1;
    }
    ccb_model_set_gravity(m, ccb_v3(0, 0, -P[P_G]));
    char emsg[256];
    ccb_hydro_mesh *cake = NULL, *blade = NULL;
    const ccb_hydro_solid cd = {
        CCB_SOLID_ELLIPSOID, {P[P_RADIUS], P[P_RADIUS], P[P_HALF_THICK]}, P[P_E], P[P_H], 0};
    const ccb_hydro_solid bd = {CCB_SOLID_BOX, {BLADE_HX, BLADE_HY, BLADE_HZ}, P[P_E], P[P_H], 1};
    ccb_status st = ccb_hydro_mesh_solid(&cd, &cake, emsg, sizeof emsg);
    if (st == CCB_OK) {
        st = ccb_hydro_mesh_solid(&bd, &blade, emsg, sizeof emsg);
    }
    if (st != CCB_OK) {
        snprintf(msg, n, "pancake: %s", emsg);
        ccb_hydro_mesh_destroy(cake); /* NULL unless the blade's mesh was the one that failed */
        ccb_model_destroy(m);
        free(d);
        return -1;
    }
    const ccb_hydro_repr repr = lround(P[P_REPR]) ? CCB_HYDRO_TRIANGLES : CCB_HYDRO_POLYGONS;
    int ig = -1, ic = -1, ib = -1;
    ccb_body_def ground = ccb_body_def_default();
    ground.name = "pan";
    ground.mobilizer = CCB_MOBILIZER_FIXED;
    st = ccb_model_add_body(m, &ground, &ig);
    if (st == CCB_OK) {
        ccb_shape_def hs = ccb_shape_def_default();
        hs.name = "pan";
        hs.material = (ccb_material){INFINITY, 0.0, 0.0, P[P_MU], 0.0};
        st = ccb_model_add_shape(m, ig, &hs, NULL);
    }
    if (st == CCB_OK) {
        ccb_body_def cb = ccb_body_def_default();
        cb.name = "pancake";
        cb.mobilizer = CCB_MOBILIZER_FREE;
        cb.mass = P[P_MASS];
        const double a = P[P_RADIUS], c = P[P_HALF_THICK], mm = P[P_MASS];
        cb.inertia = ccb_m3_identity();
        cb.inertia.m[0] = cb.inertia.m[4] = mm * (a * a + c * c) / 5;
        cb.inertia.m[8] = mm * 2 * a * a / 5;
        /* touching the pan; it settles onto its pressure field during the blade's slide */
        cb.pose.p = ccb_v3(0, 0, c);
        st = ccb_model_add_body(m, &cb, &ic);
    }
    if (st == CCB_OK) {
        st = add_mesh(m, ic, "pancake", cake, repr,
                      (ccb_material){P[P_E], P[P_D], P[P_TAU], P[P_MU], 0.0});
    }
    if (st == CCB_OK) {
        ccb_body_def bb = ccb_body_def_default();
        bb.name = "spatula";
        bb.mobilizer = CCB_MOBILIZER_PRESCRIBED;
        bb.motion = blade_motion;
        bb.motion_user = d;
        st = ccb_model_add_body(m, &bb, &ib);
    }
    if (st == CCB_OK) {
        st =
            add_mesh(m, ib, "blade", blade, repr, (ccb_material){INFINITY, 0.0, 0.0, P[P_MU], 0.0});
    }
    ccb_hydro_mesh_destroy(cake);
    ccb_hydro_mesh_destroy(blade);
    return case_finish_model(m, st, "pancake", d, out, data, msg, n);
}

static void pancake_destroy(void* data) {
    free(data);
}

static void pancake_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

static const char* const k_notes[] = {
    "PFC's pancake flip is a robot's (a Kinova Jaco arm and a soft-bubble gripper holding the "
    "spatula); its numbers beyond the polygon/triangle counts are lost [UNVERIFIED in the spec]. "
    "Here the spatula's blade (a rigid 14 x 12 x 0.4 cm box) follows a prescribed path and the "
    "pancake is the only compliant body: a flat ellipsoid of radius 6 cm and half-thickness 8 mm, "
    "50 g, E = 1e5 Pa (the spatula case's bubbles), d = 5 s/m, mu = 0.5 [default?].",
    "The blade's path [default?]: in 0.3 s it slides in along +x from 25 cm away with its top 2 mm "
    "below the pan's surface (the pan and the blade are both rigid: they have no contact, so the "
    "scoop is kinematic); in 0.3 s it lifts its far edge to 8 cm; in t_flip = 0.5 s it turns half "
    "a turn about that edge (smoothstep profiles, at rest at each phase's ends), throwing the "
    "pancake over.",
    "The pan is the rigid plane z = 0; its rim is the circle of radius pan_r = 15 cm about the "
    "blade's pivot (x = 7 cm), the point about which the half turn mirrors the pancake's start: "
    "the pancake starts 7 cm from its centre [default?].",
    "Task [PFC §V-B, 'the robot completed the task']: airborne (no contact, neither pan nor "
    "blade) for at least 20 ms; turned over (its normal's z below -0.99, within 8 degrees of "
    "down) at the end; its centre inside the pan; at rest (speed below 1 mm/s, where a rocking "
    "pancake moves cm/s) at T = 3 s.",
    "The refinement study refines the pancake's mesh (h = 2, 1.4, 1, 0.7 cm; the blade follows at "
    "the same h), polygons and triangles, with SAP, PFC's solver of the study.",
};

static const char* const k_obs[] = {"x [m]",      "y [m]",       "z [m]",       "up_z [-]",
                                    "bottom [m]", "speed [m/s]", "contacts [-]"};
enum { O_X, O_Y, O_Z, O_UP, O_BOTTOM, O_SPEED, O_NC, O_COUNT };

static void pancake_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    (void)data;
    const double* q = ccb_sim_q(sim);
    const double* v = ccb_sim_v(sim);
    o[O_X] = q[0];
    o[O_Y] = q[1];
    o[O_Z] = q[2];
    const double qx = q[4], qy = q[5];
    const double nz = 1 - 2 * (qx * qx + qy * qy); /* R_zz: the pancake's normal's z */
    o[O_UP] = nz;
    /* the ellipsoid's lowest point: z less its support along -z, sqrt(a^2 (1 - nz^2) + c^2 nz^2) */
    const double a = P[P_RADIUS], c = P[P_HALF_THICK];
    o[O_BOTTOM] = q[2] - sqrt(a * a * fmax(0.0, 1 - nz * nz) + c * c * nz * nz);
    o[O_SPEED] = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    o[O_NC] = ccb_sim_ncontacts(sim);
}

/* ---- the task ------------------------------------------------------------------------------ */

#define PAN_CX BLADE_HX /* the pan's centre: the blade's pivot (x) */
#define AIR_MIN 0.02    /* [s] */

typedef struct flip_facts {
    double airborne;  /* time with no contact at all [s] */
    double up_end;    /* the normal's z at the end */
    double dist;      /* the centre's distance from the pan's centre at the end [m] */
    double speed_end; /* [m/s] */
    double height;    /* largest height of the lowest point above the pan [m] */
    double faces;     /* mean contact constraints per step */
    int ok;           /* the task: airborne, turned over, inside, at rest */
} flip_facts;

static flip_facts flip_eval(const run_record* r) {
    const double* P = r->cfg.params;
    flip_facts f = {NAN, NAN, NAN, NAN, NAN, NAN, 0};
    if (r->status != CCB_OK || r->nsteps < 1) {
        return f;
    }
    const long N = r->nsteps;
    double air = 0, hmax = -INFINITY, nc = 0;
    for (long k = 1; k <= N; ++k) {
        air += run_obs(r, k, O_NC) == 0 ? r->cfg.sim.dt : 0.0;
        hmax = fmax(hmax, run_obs(r, k, O_BOTTOM));
        nc += run_obs(r, k, O_NC);
    }
    f.airborne = air;
    f.height = hmax;
    f.faces = nc / (double)N;
    f.up_end = run_obs(r, N, O_UP);
    f.dist = hypot(run_obs(r, N, O_X) - PAN_CX, run_obs(r, N, O_Y));
    f.speed_end = run_obs(r, N, O_SPEED);
    f.ok =
        f.airborne >= AIR_MIN && f.up_end <= -0.99 && f.dist <= P[P_PAN_R] && f.speed_end <= 1e-3;
    return f;
}

/* ---- study flip (PFC Fig. 7, the task) --------------------------------------------------------- */

#define FLIP_RUN(v) {.variant = v, .label = v},
static const fig_run k_flip_runs[] = {
    FLIP_RUN("sap") FLIP_RUN("similar") FLIP_RUN("lagged") FLIP_RUN("lagged-reg")
        FLIP_RUN("tamsi"){.variant = "lagged", .label = "fast", .set = "t_flip=0.3"},
    {.variant = "lagged", .label = "slow", .set = "t_flip=3"},
};

static void flip_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    (void)ctx;
    const flip_facts f = flip_eval(r);
    const double* P = r->cfg.params;
    const double row[8] = {f.airborne,          f.height,    f.up_end, f.dist,
                           f.dist / P[P_PAN_R], f.speed_end, f.faces,  (double)f.ok};
    memcpy(v, row, sizeof row);
    const char* l = r->cfg.label;
    study_set_metricf(out, f.airborne, "flip.%s.airborne", l);
    study_set_metricf(out, f.up_end, "flip.%s.up_end", l);
    study_set_metricf(out, f.dist / P[P_PAN_R], "flip.%s.dist_over_pan_r", l);
    study_set_metricf(out, f.speed_end, "flip.%s.speed_end", l);
    study_set_metricf(out, f.ok, "flip.%s.task", l);
}

static int flip_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    /* the landing points' spread over the solvers (the controls aside) */
    double xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        if (strcmp(r->cfg.label, "fast") == 0 || strcmp(r->cfg.label, "slow") == 0) {
            continue;
        }
        const double x = r->status == CCB_OK ? run_obs(r, r->nsteps, O_X) : NAN;
        xmin = fmin(xmin, x);
        xmax = fmax(xmax, x);
    }
    study_set_metric(out, "flip.landing_spread", xmax - xmin);
    study_value(out, "spread_mm", 1e3 * (xmax - xmin));
    study_value(out, "pan_r", ctx->params[P_PAN_R]);
    study_value(out, "t_flip", ctx->params[P_T_FLIP]);
    return 0;
}

static const fig_plot k_flip_plots[] = {
    {.script = "peers_series.gp",
     .out = "flip",
     .vars = "runs='sap similar lagged lagged-reg tamsi fast slow'; titles='sap similar lagged "
             "lagged-reg tamsi fast(0.3s) slow(3s)'; col1='up_z [-]'; col2='x [m]'; "
             "title='Pancake flip: the normal z and the position x of the pancake'"},
    {.script = NULL}};

static const fig_study k_flip = {
    .claim = "PFC §V-B, Fig. 7: the spatula scoops, raises and flips the pancake over in the pan. "
             "Here every solver family with the blade on a prescribed path: the pancake leaves "
             "the pan, turns over and lands, at rest, inside the pan; a flip too fast throws it "
             "beyond the rim, one too slow lets it slide off unturned.",
    .t_final = 3.0,
    .runs = k_flip_runs,
    .nruns = (int)(sizeof k_flip_runs / sizeof k_flip_runs[0]),
    .columns = "airborne [s],height_max [m],up_z_end [-],distance_to_centre [m],"
               "distance_over_pan_r [-],speed_end [m/s],constraints_per_step [-],task [-]",
    .row = flip_row,
    .finish = flip_finish,
    .report = "The landing points of the five solvers lie within {spread_mm|%.2f} mm of each "
              "other; the pan's radius is {pan_r} m, the half turn takes {t_flip} s.\n\n",
    .plots = k_flip_plots,
};

/* ---- study refinement (PFC §V-B, Figs. 8-9) ------------------------------------------------------ */

#define REF_N 4
#define REF_N_QUICK 3
static const double k_ref_h[REF_N] = {0.02, 0.014, 0.01, 0.007};
static int ref_n(const study_ctx* ctx) {
    return ctx->tier == CASE_TIER_QUICK ? REF_N_QUICK : REF_N;
}

static int ref_runs(study_ctx* ctx, study_batch* b) {
    const int nref = ref_n(ctx);
    if (study_batch_alloc(ctx, b, 2 * nref) != 0) {
        return 2;
    }
    variant_def v;
    variant_find("sap", &v);
    for (int i = 0; i < 2 * nref; ++i) {
        const int k = i / 2, tri = i % 2;
        char label[64];
        snprintf(label, sizeof label, "h%g_%s", k_ref_h[k], tri ? "triangles" : "polygons");
        study_config(ctx, &b->cfg[i], "refinement", label, &ccb_approx_sap, 1e-3, 3.0);
        variant_configure(&v, &b->cfg[i], NAN);
        b->cfg[i].params[P_H] = k_ref_h[k];
        b->cfg[i].params[P_REPR] = tri;
    }
    b->n = 2 * nref;
    return 0;
}

static void ref_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    (void)ctx, (void)out;
    const flip_facts f = flip_eval(r);
    const double n = r->nsteps > 0 ? (double)r->nsteps : NAN;
    const double row[5] = {f.faces, 1e6 * r->t_geometry / n, 1e6 * r->t_solve / n, f.up_end,
                           (double)f.ok};
    memcpy(v, row, sizeof row);
}

static int ref_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const int nref = ref_n(ctx);
    double faces[2][REF_N], tg[2][REF_N], ts[2][REF_N];
    int ok_all = 1;
    double ratio_min = INFINITY, ratio_sum = 0;
    for (int i = 0; i < 2 * nref; ++i) {
        const run_record* r = &fd->b->rec[i];
        const flip_facts f = flip_eval(r);
        const double n = r->nsteps > 0 ? (double)r->nsteps : NAN;
        faces[i % 2][i / 2] = f.faces;
        tg[i % 2][i / 2] = r->t_geometry / n;
        ts[i % 2][i / 2] = r->t_solve / n;
        ok_all &= f.ok;
    }
    for (int k = 0; k < nref; ++k) {
        const double ratio = faces[1][k] / faces[0][k];
        ratio_min = fmin(ratio_min, ratio);
        ratio_sum += ratio / nref;
        study_row(out, "levels");
        const double cells[] = {k_ref_h[k],     faces[0][k],    faces[1][k],
                                ratio,          1e6 * tg[0][k], 1e6 * tg[1][k],
                                1e6 * ts[0][k], 1e6 * ts[1][k], ts[1][k] / ts[0][k]};
        study_nums(out, "levels", cells, sizeof cells / sizeof cells[0]);
    }
    double p_faces = NAN;
    ccb_an_order(nref, k_ref_h, faces[0], &p_faces, NULL, NULL);
    study_set_metric(out, "refinement.task_all", ok_all);
    study_set_metric(out, "refinement.faces_ratio_min", ratio_min);
    study_set_metric(out, "refinement.faces_ratio_mean", ratio_sum);
    study_set_metric(out, "refinement.faces_exponent", p_faces);
    study_text(out, "quick",
               nref < REF_N ? " Quick tier: the three coarsest meshes (h = 2, 1.4 and 1 cm); the "
                              "full tier adds 0.7 cm."
                            : "");
    return 0;
}

static const fig_table k_ref_tables[] = {
    {.name = "levels",
     .file = "levels.csv",
     .header = "h [m],constraints_polygons [-],constraints_triangles [-],ratio [-],"
               "geometry_wall_polygons [us],geometry_wall_triangles [us],"
               "solver_wall_polygons [us],solver_wall_triangles [us],solver_wall_ratio [-]",
     .md = "| pancake mesh h [m] | constraints per step, polygons | triangles | ratio | "
           "geometry, polygons [µs/step] | triangles | solver, polygons [µs/step] | triangles | "
           "ratio |\n|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%g|%.1f|%.1f|%.2f|%.0f|%.0f|%.0f|%.0f|%.2f"},
    {.name = NULL}};

static const fig_plot k_ref_plots[] = {
    {.script = "pancake_refinement.gp",
     .out = "refinement",
     .vars = "title='Pancake flip: constraints per step and wall time against the mesh (SAP)'"},
    {.script = "peers_series.gp",
     .out = "faces",
     .vars = "runs='h0.01_polygons h0.01_triangles'; titles='polygons triangles'; "
             "col1='contacts [-]'; title='Pancake flip: contact constraints over time, h = 1 cm, "
             "SAP (PFC Fig. 9)'"},
    {.script = NULL}};

static const fig_study k_refinement = {
    .claim = "PFC §V-B, Figs. 8-9: polygons give 4.05x fewer contact faces than triangles (and a "
             "4.09x faster solve); the task succeeds at every grid refinement. Here the pancake's "
             "mesh refined at four resolutions, polygons and triangles, with SAP.",
    .make_runs = ref_runs,
    .columns = "constraints [-],geometry_wall [us/step],solver_wall [us/step],up_z_end [-],"
               "task [-]",
    .row = ref_row,
    .finish = ref_finish,
    .tables = k_ref_tables,
    .report = "Per refinement of the pancake's mesh (SAP, dt = 1 ms, 3 s).{text:quick} The wall "
              "times are this machine's (a median of one run each, not gated).\n\n"
              "{table:levels}\n",
    .plots = k_ref_plots,
};

/* ---- standard studies (std.c): e_q against Lagged at dt / 10 ------------------------------- */
static const case_std k_std = {
    .error_name = "e_q",
    .error_unit = "m and -",
    .error_what = "RMS over [0, T] of |q - q_ref| on the run's grid (cases.md §1.4), q_ref: Lagged "
                  "at the smallest dt / 10.",
    .error = std_error_q,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .dts = {4e-3, 2e-3, 1e-3},
    .ndt = 3,
    .dts_quick = {4e-3, 2e-3},
    .ndt_quick = 2};

static const case_study k_studies[] = {
    {.name = "flip",
     .title = "the flip with every solver family: airborne, turned over, inside the pan, at rest; "
              "controls too fast and too slow",
     .figure = "PFC Fig. 7",
     .decl = &k_flip},
    {.name = "refinement",
     .title = "SAP on four pancake meshes, polygons and triangles: constraints, wall time, the "
              "task at every level",
     .figure = "PFC Figs. 8-9",
     .decl = &k_refinement}};

static const char* const k_quick[] = {"flip", "refinement", "gradients", NULL};

const case_desc case_pancake = {
    .name = "pancake",
    .title = "Pancake flip: a compliant pancake thrown over by a rigid spatula",
    .paper = "Masterjohn, Guoy, Shepherd, Castro, Velocity level approximation of pressure field "
             "contact patches, RA-L 2022 (arXiv 2110.04157), §V-B, Figs. 7-9",
    .params = k_params,
    .nparams = P_COUNT,
    .dt_default = 1e-3,
    .t_final_default = 3.0,
    .approx_default = "sap",
    .build = pancake_build,
    .destroy = pancake_destroy,
    .sim_options = pancake_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = pancake_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .std = &k_std,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
};
