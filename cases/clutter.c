/* Case CLUTTER — objects dropped into a box (spec: cases.md §6; ICF §XII-A, Figs. 14-19).
 *
 * 40 free bodies in 4 columns of 10 (spheres of 10 cm, 0.524 kg, and cubes of 10 cm, 1 kg, in
 * the order S B S S B S S B S B from the bottom) fall into ICF's rigid 80 x 80 x 80 cm container
 * (measured at the wall centres: 76 cm free inside, as in the authors' code).
 * A cube touches the world only through 26 spheres of radius L/6 on a 3 x 3 x 3 lattice (centre
 * omitted) that reach its faces (the authors' layout). The container is five rigid boxes: a
 * floor with its top at z = 0 and four 4 cm walls with inner faces at +-0.38 m, 0.8 m high.
 * Every pair with phi < 10 cm is a contact (ICF §X-A), so the contact graph holds thousands of
 * pre-contact constraints between the cubes' spheres.
 *
 * Studies: fig15-16 (iterations, kappa(H) and the effective stiction tolerance per step at
 * dt = 2e-3, ICF Figs. 15-16), fig17 (mean iterations and kappa against dt, Fig. 17), fig18-19
 * (steady penetration, iterations and kappa against the stiffness at dt = 5e-3, Figs. 18-19,
 * plus k = 1e13 where the paper reports failure), scale (40 to 2,560 objects: time per step,
 * where it goes, its exponent, and the cost of the margin's inactive contacts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "study.h"

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
    P_MAXIT,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "k", .def = 1e7, .unit = "N/m", .hi = 1e15, .lo_open = 1,
     .meaning = "stiffness of each object geometry (rigid container: object-wall pairs k, object-object " "pairs k/2 in series)",
     .tag = "[ICF]"},
    {.name = "d", .def = 10.0, .unit = "s/m", .hi = 1e6,
     .meaning = "Hunt & Crossley dissipation (Lagged, Similar)", .tag = "[ICF]"},
    {.name = "tau_d", .def = 1e-4, .unit = "s", .hi = 10,
     .meaning = "SAP relaxation time of each object geometry", .tag = "[ICF]"},
    {.name = "mu", .def = 1.0, .unit = "-", .hi = 10,
     .meaning = "friction coefficient of every surface", .tag = "[ICF]"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    CASE_PARAM_MARGIN,
    {.name = "side", .def = 2, .unit = "-", .lo = 1, .hi = 16, .integer = 1,
     .meaning = "columns per side of the grid (2: the paper's 4 columns; 4: 16, 8: 64); the container " "grows with it, 0.4 m per column",
     .tag = "[default?]"},
    {.name = "levels", .def = 10, .unit = "-", .lo = 1, .hi = 40, .integer = 1,
     .meaning = "objects per column", .tag = "[ICF]"},
    {.name = "spin", .def = 0.7, .unit = "rad", .lo = -10, .hi = 10,
     .meaning = "object i is rotated by spin i about (1,1,1)/sqrt(3) (the paper's random orientations are " "not portable)",
     .tag = "[default?]"},
    {.name = "max_iterations", .def = 1000, .unit = "-", .lo = 1, .hi = 100000, .integer = 1,
     .meaning = "Newton iterations per step before a failure (full convergence: the paper runs without " "early exit; Drake's cap of 100 stops Similar at dt >= 5e-3 and Lagged at k >= 1e9)",
     .tag = "[default?]"},
    /* clang-format on */
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
    "Steady penetration (Fig. 18): per step the mean of -phi over the contacts with phi < 0 "
    "(start-of-step geometry); over the steps with t in [1.75, 3] s ccb takes the median, not "
    "the spec's time average [cases.md §6.3 default?, changed]: spheres still roll at t > 2 s "
    "and a late impact step sinks ~1e3 x the resting value at k >= 1e10, which the time average "
    "reports instead of the resting sink (measured: Similar, k = 1e11, time mean 9.2e-9 m vs "
    "median 2.9e-11 m). fig18-19.csv lists both.",
    "Gate tiers: the full tier (make test-full, ccb reproduce, ccb study) runs every study on "
    "the paper's scene. The quick tier (make test) runs fig15-16 unchanged, fig17 at dt in "
    "{2e-3, 5e-3, 1e-2} (its 2e-3 runs are fig15-16's), and the k sweep of fig18-19 on one "
    "column of 10 objects (side = 1, same dt, duration and window) for k in [1e5, 1e11] (SAP "
    "also 1e12), plus every model at k = 1e13 on the paper's scene for 0.5 s (Similar 0.2 s: "
    "its first impacts; Lagged fails at step 90: CLU-6's graceful failure); scale is full tier "
    "only.",
    "Condition number kappa_2(H) = lambda_max/lambda_min of the unscaled Hessian at the solution "
    "by a dense symmetric eigen-solve (spec formulation-convex §8.9, ccb choice).",
    "Newton runs to full convergence (eps_r = 1e-5) with up to 1000 iterations per step "
    "(10000 in fig18-19): impact steps need up to ~380 (Similar, dt = 5e-3, k = 1e7), ~530 "
    "(Lagged, k = 1e12) and ~4300 (Similar, k = 1e12) with the exact line search; Drake's "
    "default cap of 100 would fail them [default?].",
};

static const char* const k_obs[] = {
    "contacts [-]",          "touching [-]",           "penetration_mean [m]",
    "speed_max [m/s]",       "slip_max [m/s]",         "outside_max [m]",
    "kinetic_energy [J]",    "stiction_tol_min [m/s]", "stiction_tol_mean [m/s]",
    "stiction_tol_max [m/s]"};
enum { O_NC, O_TOUCH, O_PEN, O_SPEED, O_SLIP, O_OUT, O_KE, O_STMIN, O_STMEAN, O_STMAX, O_COUNT };

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
        {"floor", {0, 0, -t}, {outer, outer, t}},  {"wall_xm", {-(h + t), 0, H}, {t, outer, H}},
        {"wall_xp", {h + t, 0, H}, {t, outer, H}}, {"wall_ym", {0, -(h + t), H}, {h, t, H}},
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
                rc = add_object(m, P, k, k_pattern[i % 10], ccb_v3(x, y, 0.075 + 0.15 * i), msg, n);
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
    sp->newton.max_iterations = (int)lround(P[P_MAXIT]);
}

static void clutter_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    (void)data;
    const ccb_model* m = ccb_sim_model(sim);
    const double* v = ccb_sim_v(sim);
    const double* q = ccb_sim_q(sim);
    const int nc = ccb_sim_ncontacts(sim);
    double pen = 0, stsum = 0, stmin = INFINITY, stmax = 0, slip = 0;
    int npen = 0, ntouch = 0;
    for (int i = 0; i < nc; ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        if (c->geometry.phi0 < 0) {
            pen += -c->geometry.phi0;
            npen++;
        }
        if (c->gamma[2] > 0) { /* the effective stiction tolerance of contacts that push */
            ntouch++;
            slip = fmax(slip, hypot(c->vc[0], c->vc[1]));
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
    o[O_SLIP] = slip;
    double smax = 0, out = 0, ke = 0;
    const double h = inner_half(P);
    const int nb = ccb_model_nbodies(m);
    for (int b = 1; b < nb; ++b) { /* body 0 is the container */
        int qo, nq, vo, nv;
        ccb_model_body_coords(m, b, &qo, &nq, &vo, &nv);
        const double* vb = v + vo + 3; /* (w, v): translational part */
        const double* wb = v + vo;
        const double v2 = vb[0] * vb[0] + vb[1] * vb[1] + vb[2] * vb[2];
        smax = fmax(smax, sqrt(v2));
        /* isotropic inertia (spheres, cubes): KE = m v^2/2 + I w^2/2 */
        const double mass = ccb_model_body_mass(m, b);
        const int cube = nq == 7 && mass == CUBE_MASS;
        const double I = cube ? mass * CUBE_L * CUBE_L / 6.0 : 0.4 * mass * SPHERE_R * SPHERE_R;
        ke += 0.5 * mass * v2 + 0.5 * I * (wb[0] * wb[0] + wb[1] * wb[1] + wb[2] * wb[2]);
        const double* p = q + qo;
        out = fmax(out, fmax(fabs(p[0]) - h, fmax(fabs(p[1]) - h, -p[2])));
    }
    o[O_SPEED] = smax;
    o[O_KE] = ke;
    o[O_OUT] = out > 0 ? out : 0.0;
}

/* A peer run (MuJoCo): the state's observables as for ccb; contacts and penetration from the
 * peer (its contacts are within its zero margin: every one touches); the contact-velocity and
 * stiction-tolerance columns have no counterpart (0). */
static void clutter_peer_observe(const ccb_sim* sim, const void* data, const double* P,
                                 const run_peer_step* c, double* o) {
    clutter_observe(sim, data, P, o);
    o[O_NC] = c->ncon;
    o[O_TOUCH] = c->ncon;
    o[O_PEN] = c->pen_mean;
}

/* ---- studies ---------------------------------------------------------------------------------- */

#define NMODEL 4
static const ccb_approx* const k_models[NMODEL] = {&ccb_approx_sap, &ccb_approx_lagged,
                                                   &ccb_approx_lagged_reg, &ccb_approx_similar};

/* A run of `model` at dt with kappa(H) per step, trajectory decimated to ~60 rows. */
static void clutter_config(study_ctx* ctx, run_config* cfg, const char* study, const char* label,
                           const ccb_approx* ap, double dt, int kappa) {
    study_config(ctx, cfg, study, label, ap, dt, ctx->cs->t_final_default);
    cfg->newton.compute_kappa = kappa;
    const long steps = lround(cfg->t_final / dt);
    cfg->record_every = steps >= 60 ? (int)(steps / 60) : 1;
}

/* Windows over time of a run (analysis/extract.h). */
typedef ccb_an_window window_means;
static window_means means(const run_record* r, double t0, double t1, int col) {
    const ccb_an_series s = run_series(r);
    return ccb_an_window_means(&s, t0, t1, col);
}
static double obs_max(const run_record* r, double t0, double t1, int col) {
    const ccb_an_series s = run_series(r);
    return ccb_an_window_max(&s, t0, t1, col);
}
static double obs_median(const run_record* r, double t0, double t1, int col) {
    const ccb_an_series s = run_series(r);
    return ccb_an_window_median(&s, t0, t1, col);
}

/* Draws results/clutter/<fig>.png/.svg with analysis/gnuplot/clutter_<fig>.gp from the tables
 * in dir; `extra` adds gnuplot assignments (may be ""). */
/* A figure of the clutter (analysis/gnuplot/clutter_FIG.gp) of the four models. */
#define CLUTTER_PLOT(FIG, EXTRA, TITLE)                                                            \
    {                                                                                              \
        .script = "clutter_" FIG ".gp", .out = FIG,                                                \
        .vars = "models='sap lagged lagged-reg similar'; titles='SAP Lagged Lagged-reg "           \
                "Similar'; " EXTRA " title='" TITLE "'"                                            \
    }

/* ICF Figs. 15-16 (and CLU-1, CLU-2, CLU-3b). The pile is chaotic: one ulp in the initial state, or
 * another elimination order, gives another pile (`ccb gate clutter --sensitivity`: the iteration
 * ratio of CLU-3 ranged over 0.76 ... 1.11 for single piles, SD 0.09). So besides the four runs
 * the figures show (member 0), the study runs the four models from FIG15_NENS - 1 further
 * initial states, each position one ulp up or down (RUN_PERTURB_MEMBER), without kappa; the
 * gates read the ensemble's mean (NAME.mean, with its standard error NAME.sem) or, for a
 * quantity with outliers (the late speed), its median; the report gives the members' range. */
#define FIG15_NENS 10
static int fig15_runs(study_ctx* ctx, study_batch* b) {
    const double dt = 2e-3;
    if (study_batch_alloc(b, NMODEL * FIG15_NENS) != 0) {
        return 2;
    }
    for (int m = 0; m < FIG15_NENS; ++m) {
        for (int i = 0; i < NMODEL; ++i) {
            char label[96];
            run_label(label, sizeof label, k_models[i]->name, dt);
            if (m > 0) {
                const size_t n = strlen(label);
                snprintf(label + n, sizeof label - n, "_m%d", m);
            }
            run_config* c = &b->cfg[m * NMODEL + i];
            clutter_config(ctx, c, "fig15-16", label, k_models[i], dt, m == 0);
            c->perturb |= RUN_PERTURB_MEMBER(m);
        }
    }
    b->n = NMODEL * FIG15_NENS;
    return 0;
}

/* The ensemble's statistics of a quantity: the mean of the members' values with its standard
 * error, the median, and their range (all NAN if a member is NAN: a failed pile must not hide). */
typedef struct ens_stat {
    double mean, sem, median, lo, hi;
} ens_stat;
#define ENS_MAX 16
static ens_stat ens_of_n(const double* x, int n) {
    double y[ENS_MAX], sum = 0, sq = 0;
    ens_stat s = {NAN, NAN, NAN, INFINITY, -INFINITY};
    for (int m = 0; m < n; ++m) {
        y[m] = x[m];
        sum += x[m];
        s.lo = fmin(s.lo, x[m]);
        s.hi = fmax(s.hi, x[m]);
    }
    s.median = ccb_an_median(y, n);
    s.mean = sum / n;
    for (int m = 0; m < n; ++m) {
        sq += (x[m] - s.mean) * (x[m] - s.mean);
    }
    s.sem = sqrt(sq / (n - 1) / n);
    if (isnan(s.median) || isnan(s.mean)) {
        s.mean = s.sem = s.lo = s.hi = NAN;
    }
    return s;
}
static ens_stat ens_of(const double* x) {
    return ens_of_n(x, FIG15_NENS);
}
/* The metrics NAME.mean, .sem, .median, .ens_min, .ens_max of an ensemble quantity, and its
 * row in the table (ENSEMBLE_TABLE) */
static void ens_set(study_ctx* ctx, const char* name, const double* x, const char* table) {
    const ens_stat s = ens_of(x);
    study_set_metricf(ctx, s.mean, "%s.mean", name);
    study_set_metricf(ctx, s.sem, "%s.sem", name);
    study_set_metricf(ctx, s.median, "%s.median", name);
    study_set_metricf(ctx, s.lo, "%s.ens_min", name);
    study_set_metricf(ctx, s.hi, "%s.ens_max", name);
    const double cells[] = {x[0], s.mean, s.sem, s.median, s.lo, s.hi};
    study_row(ctx, table);
    study_str(ctx, table, name);
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
        study_num(ctx, table, cells[c]);
    }
}
#define ENSEMBLE_TABLE(NAME)                                                                       \
    {                                                                                              \
        .name = NAME,                                                                              \
        .md = "| quantity | figures' run | mean | s.e. | median | min | max "                      \
              "|\n|---|---|---|---|---|---|---|\n",                                                \
        .cells = "`%s`|%.4g|%.4g|%.2g|%.4g|%.4g|%.4g"                                              \
    }

/* The gates' quantities of fig15-16 over the ensemble (metrics NAME.median, .ens_min, .ens_max)
 * and their table in the report. */
static void fig15_ensemble(study_ctx* ctx, const study_batch* b, double T) {
    double speed[NMODEL][FIG15_NENS], eol[NMODEL][FIG15_NENS], it1[NMODEL][FIG15_NENS],
        it2[NMODEL][FIG15_NENS], itl2[NMODEL][FIG15_NENS], itall[NMODEL][FIG15_NENS];
    for (int m = 0; m < FIG15_NENS; ++m) {
        for (int i = 0; i < NMODEL; ++i) {
            const run_record* r = &b->rec[m * NMODEL + i];
            const int ok = r->status == CCB_OK;
            const window_means early = means(r, 0, 1, -1), late = means(r, 2, T + 1, -1),
                               first2 = means(r, 0, 2, -1), all = means(r, 0, T + 1, -1);
            speed[i][m] = ok ? obs_max(r, 2.5, T, O_SPEED) : NAN;
            eol[i][m] = ok ? early.iters / late.iters : NAN;
            it1[i][m] = ok ? early.iters : NAN;
            it2[i][m] = ok ? late.iters : NAN;
            itl2[i][m] = ok ? first2.iters : NAN;
            itall[i][m] = ok ? all.iters : NAN;
        }
    }
    char name[96];
    for (int i = 0; i < NMODEL; ++i) {
        snprintf(name, sizeof name, "clu1.%s.speed_max_late", k_models[i]->name);
        ens_set(ctx, name, speed[i], "ensemble");
        /* CLU-1c in counts: the fraction of piles settled below 5e-3 m/s (a median below the
         * bound is a fraction >= 0.5); a count does not move with round-off unless a pile
         * crosses the bound */
        int settled = 0, valid = 1;
        for (int m = 0; m < FIG15_NENS; ++m) {
            settled += speed[i][m] < 5e-3;
            valid &= !isnan(speed[i][m]);
        }
        study_set_metricf(ctx, valid ? (double)settled / FIG15_NENS : NAN,
                          "clu1.%s.settled_fraction", k_models[i]->name);
        snprintf(name, sizeof name, "clu2.%s.early_over_late", k_models[i]->name);
        ens_set(ctx, name, eol[i], "ensemble");
    }
    /* ratios within each member (the same pile's models share nothing but the initial state) */
    const int L = 1, LR = 2, SAP = 0, SIM = 3; /* k_models order */
    double r3[FIG15_NENS], r4h[FIG15_NENS], rl1[FIG15_NENS], rl2[FIG15_NENS], rs1[FIG15_NENS],
        rs2[FIG15_NENS];
    for (int m = 0; m < FIG15_NENS; ++m) {
        r3[m] = itl2[LR][m] / itl2[L][m];
        r4h[m] = itall[LR][m] / itall[L][m];
        rl1[m] = it1[L][m] / it1[SAP][m];
        rl2[m] = it2[L][m] / it2[SAP][m];
        rs1[m] = it1[SIM][m] / it1[SAP][m];
        rs2[m] = it2[SIM][m] / it2[SAP][m];
    }
    ens_set(ctx, "clu3.lagged_reg_over_lagged_t_lt_2", r3, "ensemble");
    ens_set(ctx, "fig15.lagged_reg_over_lagged.iterations_mean", r4h, "ensemble");
    ens_set(ctx, "fig15.lagged_over_sap.iterations_t_lt_1", rl1, "ensemble");
    ens_set(ctx, "fig15.lagged_over_sap.iterations_t_gt_2", rl2, "ensemble");
    ens_set(ctx, "fig15.similar_over_sap.iterations_t_lt_1", rs1, "ensemble");
    ens_set(ctx, "fig15.similar_over_sap.iterations_t_gt_2", rs2, "ensemble");
    study_value(ctx, "nens", FIG15_NENS);
    study_value(ctx, "nens_more", FIG15_NENS - 1);
}

static int fig15_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    const double dt = 2e-3, T = ctx->cs->t_final_default;
    const study_batch* b = fd->b;
    (void)dir;
    const long N = b->rec[0].nplanned;
    for (long k = 1; k <= N; ++k) {
        study_row(ctx, "fig15");
        study_num(ctx, "fig15", (double)k * dt);
        study_row(ctx, "fig16");
        study_num(ctx, "fig16", (double)k * dt);
        for (int i = 0; i < NMODEL; ++i) {
            const run_record* r = &b->rec[i];
            if (k <= r->nsteps) {
                study_num(ctx, "fig15", r->iters[k]);
                study_num(ctx, "fig16", run_obs(r, k, O_STMEAN));
                study_num(ctx, "fig16", run_obs(r, k, O_STMIN));
                study_num(ctx, "fig16", run_obs(r, k, O_STMAX));
            } else {
                study_blank(ctx, "fig15");
                for (int c = 0; c < 3; ++c) {
                    study_blank(ctx, "fig16");
                }
            }
        }
        for (int i = 0; i < NMODEL; ++i) {
            const run_record* r = &b->rec[i];
            if (k <= r->nsteps && r->kappa[k] > 0) {
                study_num(ctx, "fig15", r->kappa[k]);
            } else {
                study_blank(ctx, "fig15");
            }
        }
    }
    double ke_peak_all = 0;
    for (int i = 0; i < NMODEL; ++i) {
        const run_record* r = &b->rec[i];
        const char* name = k_models[i]->name;
        const int ok = r->status == CCB_OK;
        const window_means early = means(r, 0, 1, -1), late = means(r, 2, T + 1, -1),
                           first2 = means(r, 0, 2, -1), all = means(r, 0, T + 1, -1);
        const double speed = ok ? obs_max(r, 2.5, T, O_SPEED) : NAN;
        const double ke_end = ok ? obs_max(r, 2.5, T, O_KE) : NAN, ke_peak = obs_max(r, 0, T, O_KE);
        ke_peak_all = fmax(ke_peak_all, ke_peak);
        study_set_metricf(ctx, ok ? 0.0 : 1.0, "clu1.%s.solver_failure", name);
        study_set_metricf(ctx, speed, "clu1.%s.speed_max_late", name);
        study_set_metricf(ctx, ok ? obs_max(r, 0, T, O_OUT) : NAN, "clu1.%s.outside_max", name);
        study_set_metricf(ctx, ke_end / ke_peak, "clu1.%s.ke_late_over_peak", name);
        study_set_metricf(ctx, early.iters / late.iters, "clu2.%s.early_over_late", name);
        study_set_metricf(ctx, first2.iters, "fig15.%s.iterations_t_lt_2", name);
        study_set_metricf(ctx, early.iters, "fig15.%s.iterations_t_lt_1", name);
        study_set_metricf(ctx, late.iters, "fig15.%s.iterations_t_gt_2", name);
        study_set_metricf(ctx, early.kappa, "fig15.%s.kappa_t_lt_1", name);
        study_set_metricf(ctx, first2.kappa, "fig15.%s.kappa_t_lt_2", name);
        study_set_metricf(ctx, late.kappa, "fig15.%s.kappa_t_gt_2", name);
        study_set_metricf(ctx, all.iters, "fig15.%s.iterations_mean", name);
        study_set_metricf(ctx, all.kappa, "fig15.%s.kappa_mean", name);
        const window_means st = means(r, 2, T + 1, O_STMEAN);
        study_set_metricf(ctx, st.obs, "fig16.%s.stiction_tol_late", name);
        const double cells[] = {
            all.iters,        early.iters,
            late.iters,       all.kappa,
            st.obs,           speed,
            ke_end / ke_peak, r->nsteps ? (double)r->ncontacts_total / (double)r->nsteps : 0.0,
            r->wall_time};
        study_row(ctx, "models");
        study_str(ctx, "models", name);
        study_str(ctx, "models", ok ? "ok" : "failed");
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
            study_num(ctx, "models", cells[c]);
        }
    }
    fig15_ensemble(ctx, b, T);
    double l = NAN, lr = NAN;
    study_get_metric(ctx, "fig15.lagged.iterations_t_lt_2", &l);
    study_get_metric(ctx, "fig15.lagged-reg.iterations_t_lt_2", &lr);
    study_set_metric(ctx, "clu3.lagged_reg_over_lagged_t_lt_2", lr / l);
    double kl = NAN, klr = NAN;
    study_get_metric(ctx, "fig15.lagged.kappa_t_lt_2", &kl);
    study_get_metric(ctx, "fig15.lagged-reg.kappa_t_lt_2", &klr);
    study_set_metric(ctx, "fig15.lagged_reg_over_lagged.kappa_t_lt_2", klr / kl);
    /* ICF §XII-A: Lagged and Similar need more iterations (higher kappa) than SAP in the impact
     * transient and fewer (lower) after it */
    static const char* const k_cmp[] = {"lagged", "similar"};
    static const char* const k_what[] = {"iterations_t_lt_1", "iterations_t_gt_2", "kappa_t_lt_1",
                                         "kappa_t_gt_2"};
    for (int i = 0; i < 2; ++i) {
        for (int w = 0; w < 4; ++w) {
            double a = NAN, sap = NAN;
            char key[96];
            snprintf(key, sizeof key, "fig15.%s.%s", k_cmp[i], k_what[w]);
            study_get_metric(ctx, key, &a);
            snprintf(key, sizeof key, "fig15.sap.%s", k_what[w]);
            study_get_metric(ctx, key, &sap);
            study_set_metricf(ctx, a / sap, "fig15.%s_over_sap.%s", k_cmp[i], k_what[w]);
        }
    }
    study_value(ctx, "vs", ctx->params[P_VS]);
    return 0;
}

static const fig_table k_fig15_tables[] = {
    ENSEMBLE_TABLE("ensemble"),
    {.name = "fig15",
     .file = "fig15.csv",
     .header = "t [s],iterations_sap,iterations_lagged,iterations_lagged-reg,iterations_similar,"
               "kappa_sap,kappa_lagged,kappa_lagged-reg,kappa_similar",
     .cells = "%.6g|%d|%d|%d|%d|%.6e"},
    {.name = "fig16",
     .file = "fig16.csv",
     .header = "t [s],stiction_tol_mean_sap [m/s],min_sap,max_sap,stiction_tol_mean_lagged [m/s],"
               "min_lagged,max_lagged,stiction_tol_mean_lagged-reg [m/s],min_lagged-reg,"
               "max_lagged-reg,stiction_tol_mean_similar [m/s],min_similar,max_similar",
     .cells = "%.6g|%.6e"},
    {.name = "models",
     .md = "| model | status | mean it. | it. t < 1 s | it. t > 2 s | mean kappa | stiction tol. t "
           "> 2 s [m/s] | max speed t >= 2.5 s [m/s] | KE(t >= 2.5)/KE peak | contacts per step "
           "| wall [s] |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%.2f|%.2f|%.2f|%.3g|%.3g|%.3g|%.3g|%.1f|%.1f"},
    {.name = NULL}};
static const fig_plot k_fig15_plots[] = {
    CLUTTER_PLOT("fig15", "",
                 "Clutter, dt = 2e-3 s: Newton iterations and condition number per step (ICF Fig. "
                 "15)"),
    CLUTTER_PLOT("fig16", "vs={vs};",
                 "Clutter, dt = 2e-3 s: effective stiction tolerance of the contacts that push "
                 "(ICF Fig. 16)"),
    {.script = NULL}};

/* ICF Fig. 17 (CLU-4): mean iterations and kappa against dt. The quick tier runs the three
 * largest steps; its 2e-3 runs are those of fig15-16 (same configuration: served by the run
 * cache, not run again). */
#define NDT17 5
static const double k_dt17[NDT17] = {5e-4, 1e-3, 2e-3, 5e-3, 1e-2};
#define NDT17_QUICK 3 /* k_dt17[2 ...] */

static int fig17_runs(study_ctx* ctx, study_batch* b) {
    const int quick = ctx->tier == CASE_TIER_QUICK;
    const int ndt = quick ? NDT17_QUICK : NDT17;
    const double* dts = k_dt17 + (NDT17 - ndt);
    if (study_batch_alloc(b, NMODEL * ndt + 2 * (FIG15_NENS - 1)) != 0) {
        return 2;
    }
    for (int i = 0; i < NMODEL; ++i) {
        for (int j = 0; j < ndt; ++j) {
            char label[96];
            run_label(label, sizeof label, k_models[i]->name, dts[j]);
            clutter_config(ctx, &b->cfg[i * ndt + j], "fig17", label, k_models[i], dts[j], 1);
            b->cfg[i * ndt + j].cost = 1.0 / dts[j]; /* the smallest steps run longest */
        }
    }
    /* CLU-4f's ensemble: Lagged and Lagged-reg at the largest step from the further initial
     * states of fig15-16's ensemble (no kappa) */
    const double dtmax = dts[ndt - 1];
    for (int m = 1; m < FIG15_NENS; ++m) {
        for (int k = 0; k < 2; ++k) {
            char label[96];
            const ccb_approx* ap = k == 0 ? &ccb_approx_lagged : &ccb_approx_lagged_reg;
            run_label(label, sizeof label, ap->name, dtmax);
            const size_t n = strlen(label);
            snprintf(label + n, sizeof label - n, "_m%d", m);
            run_config* c = &b->cfg[NMODEL * ndt + 2 * (m - 1) + k];
            clutter_config(ctx, c, "fig17", label, ap, dtmax, 0);
            c->perturb |= RUN_PERTURB_MEMBER(m);
            c->cost = 1.0 / dtmax;
        }
    }
    return 0;
}

static int fig17_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    const int quick = ctx->tier == CASE_TIER_QUICK;
    const int ndt = quick ? NDT17_QUICK : NDT17;
    const double* dts = k_dt17 + (NDT17 - ndt);
    const study_batch* b = fd->b;
    (void)dir;
    for (int i = 0; i < NMODEL; ++i) {
        double kap[NDT17], its[NDT17];
        for (int j = 0; j < ndt; ++j) {
            const run_record* r = &b->rec[i * ndt + j];
            const window_means w = means(r, 0, r->cfg.t_final + 1, -1);
            kap[j] = r->status == CCB_OK ? w.kappa : NAN;
            its[j] = r->status == CCB_OK ? w.iters : NAN;
            study_row(ctx, "fig17");
            study_str(ctx, "fig17", k_models[i]->name);
            study_num(ctx, "fig17", dts[j]);
            study_num(ctx, "fig17", its[j]);
            study_num(ctx, "fig17", kap[j]);
            study_num(ctx, "fig17", r->wall_time);
            study_str(ctx, "fig17", r->status == CCB_OK ? "ok" : "failed");
            study_set_metricf(ctx, its[j], "fig17.%s.iterations.dt%g", k_models[i]->name, dts[j]);
            study_set_metricf(ctx, kap[j], "fig17.%s.kappa.dt%g", k_models[i]->name, dts[j]);
        }
        double slope = NAN, slope_it = NAN;
        ccb_an_order(ndt, dts, kap, &slope, NULL, NULL);
        ccb_an_order(ndt, dts, its, &slope_it, NULL, NULL);
        study_set_metricf(ctx, slope, "clu4.%s.kappa_slope", k_models[i]->name);
        study_set_metricf(ctx, fabs(slope), "clu4.%s.kappa_slope_abs", k_models[i]->name);
        study_set_metricf(ctx, slope_it, "fig17.%s.iterations_slope", k_models[i]->name);
        study_row(ctx, "slopes");
        study_str(ctx, "slopes", k_models[i]->name);
        study_num(ctx, "slopes", slope);
        study_num(ctx, "slopes", slope_it);
    }
    /* ICF §XII-A: regularization helps Lagged at large dt, changes little at small dt */
    for (int j = 0; j < ndt; ++j) {
        double l = NAN, lr = NAN;
        char key[96];
        snprintf(key, sizeof key, "fig17.lagged.iterations.dt%g", dts[j]);
        study_get_metric(ctx, key, &l);
        snprintf(key, sizeof key, "fig17.lagged-reg.iterations.dt%g", dts[j]);
        study_get_metric(ctx, key, &lr);
        study_set_metricf(ctx, lr / l, "fig17.lagged_reg_over_lagged.iterations.dt%g", dts[j]);
    }
    { /* the same ratio at the largest step over the ensemble (member 0: the runs above) */
        double r[FIG15_NENS];
        const int jmax = ndt - 1;
        const window_means l0 = means(&b->rec[1 * ndt + jmax], 0, ctx->cs->t_final_default + 1, -1),
                           lr0 =
                               means(&b->rec[2 * ndt + jmax], 0, ctx->cs->t_final_default + 1, -1);
        r[0] = lr0.iters / l0.iters;
        for (int m = 1; m < FIG15_NENS; ++m) {
            const run_record* rl = &b->rec[NMODEL * ndt + 2 * (m - 1)];
            const run_record* rr = &b->rec[NMODEL * ndt + 2 * (m - 1) + 1];
            const window_means wl = means(rl, 0, ctx->cs->t_final_default + 1, -1),
                               wr = means(rr, 0, ctx->cs->t_final_default + 1, -1);
            r[m] = rl->status == CCB_OK && rr->status == CCB_OK ? wr.iters / wl.iters : NAN;
        }
        char name[96];
        snprintf(name, sizeof name, "fig17.lagged_reg_over_lagged.iterations.dt%g", dts[jmax]);
        ens_set(ctx, name, r, "ensemble");
        study_value(ctx, "dt_max", dts[jmax]);
        study_value(ctx, "nens", FIG15_NENS);
    }
    study_text(ctx, "quick",
               quick ? " Quick tier: dt in {2e-3, 5e-3, 1e-2} only (slopes over "
                       "those three steps)."
                     : "");
    return 0;
}

static const fig_table k_fig17_tables[] = {
    ENSEMBLE_TABLE("ensemble"),
    {.name = "fig17",
     .file = "fig17.csv",
     .header = "approx,dt [s],mean_iterations,mean_kappa,wall_time [s],status",
     .cells = "%s|%g|%.4f|%.6e|%.4f|%s",
     .md = "| model | dt [s] | mean it. | mean kappa | wall [s] | status "
           "|\n|---|---|---|---|---|---|\n",
     .md_cells = "%s|%g|%.2f|%.3g|%.2f|%s"},
    {.name = "slopes",
     .md = "| model | kappa slope | iterations slope |\n|---|---|---|\n",
     .cells = "%s|%.3f|%.3f"},
    {.name = NULL}};
static const fig_plot k_fig17_plots[] = {
    CLUTTER_PLOT("fig17", "",
                 "Clutter: mean Newton iterations and condition number per step against dt (ICF "
                 "Fig. 17)"),
    {.script = NULL}};

/* ICF Figs. 18-19 (CLU-5 ... CLU-7): stiffness sweep at dt = 5e-3, plus k = 1e13. */
#define NK 10
static const double k_k18[NK] = {1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};

static int finite_array(const double* x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

static int all_finite_record(const run_record* r) {
    const size_t rows = (size_t)r->nsteps + 1;
    return finite_array(r->q, rows * (size_t)r->nq) && finite_array(r->v, rows * (size_t)r->nv) &&
           finite_array(r->obs, rows * (size_t)r->nobs);
}

/* The quick tier's k sweep (README "Gates"): one column of 10 objects (side = 1, a 40 cm
 * container) instead of four, the same dt, duration and penetration window, k in [1e5, 1e11] for
 * every model (CLU-5, CLU-7) and 1e12 for SAP (its cap, CLU-5c); k = 1e13 on the paper's scene
 * for its first 0.5 s, where Lagged fails at step 90 (the graceful failure of CLU-6), and 0.2 s
 * for Similar (its first impacts, up to ~2500 iterations in a step, but 1 s of work instead of
 * 150). The full tier runs every model at every k on the paper's scene. */
#define QUICK_SIDE 1
static double quick_t13(int model) {
    return k_models[model] == &ccb_approx_similar ? 0.2 : 0.5;
}
static int fig18_quick_run(int model, int j) {
    const double k = k_k18[j];
    const ccb_approx* ap = k_models[model];
    return k == 1e13 || (k >= 1e5 && k <= 1e11) || (ap == &ccb_approx_sap && k == 1e12);
}

/* The grid of fig18-19 (model x k) and the runs of the tier in it (ran). */
static int fig18_grid(study_ctx* ctx, run_config* cfg, int* ran) {
    const double dt = 5e-3;
    const int quick = ctx->tier == CASE_TIER_QUICK;
    int nrun = 0;
    for (int i = 0; i < NMODEL; ++i) {
        for (int j = 0; j < NK; ++j) {
            char label[96];
            snprintf(label, sizeof label, "%s_k%g", k_models[i]->name, k_k18[j]);
            run_config* c = &cfg[i * NK + j];
            clutter_config(ctx, c, "fig18-19", label, k_models[i], dt, 1);
            c->params[P_K] = k_k18[j];
            /* full convergence: Similar needs up to ~8100 iterations in impact steps at
             * k = 1e13 (measured); the cap only has to end a run that cannot converge */
            c->params[P_MAXIT] = 10000;
            /* Similar's run time grows ~2x per decade above 1e8 (66 s at 1e12): start those first */
            c->cost = k_models[i] == &ccb_approx_similar && k_k18[j] > 1e8
                          ? 6.0 * pow(2.0, log10(k_k18[j]) - 8.0)
                          : 5.0;
            if (j == NK - 1) {
                c->expect_failure = "k = 1e13: the paper reports that the solver fails (round-off)";
            }
            ran[i * NK + j] = !quick || fig18_quick_run(i, j);
            if (quick && j == NK - 1) { /* the paper's scene, its first impacts */
                snprintf(c->label, sizeof c->label, "%s_k%g_T%g", k_models[i]->name, k_k18[j],
                         quick_t13(i));
                snprintf(c->out_dir, sizeof c->out_dir, "%s/%s/fig18-19/%s", ctx->out_root,
                         ctx->cs->name, c->label);
                c->t_final = quick_t13(i);
                c->record_every = 1;
                c->cost = 1.0;
            } else if (quick) {
                c->params[P_SIDE] = QUICK_SIDE;
            }
            nrun += ran[i * NK + j];
        }
    }
    return nrun;
}

/* The quick tier's ensemble of the k sweep (CLU-5b-q): the one-column pile settles differently
 * for every k and for every ulp of its initial state (the slope of one pile per k moved by up to
 * 0.056 under `ccb gate --sensitivity`, against a margin of 0.05), so Lagged and Similar also run
 * the sweep k in [1e5, 1e11] from FIG18_NENS - 1 further initial states (RUN_PERTURB_MEMBER,
 * without kappa), and the penetration's slope is fitted to the per-k median over the members. */
#define FIG18_NENS 6
#define FIG18_NKP 7 /* k_k18[1 .. 7]: 1e5 ... 1e11 */
static int fig18_ens_model(int i) {
    return k_models[i] == &ccb_approx_lagged || k_models[i] == &ccb_approx_similar;
}
static int fig18_nens(const study_ctx* ctx) {
    int n = 0;
    for (int i = 0; i < NMODEL; ++i) {
        n += fig18_ens_model(i);
    }
    return ctx->tier == CASE_TIER_QUICK ? n * (FIG18_NENS - 1) * FIG18_NKP : 0;
}

/* fig18-19: the runs of the tier in the grid, then the quick tier's ensemble members (model, member
 * 1 ..., k) */
static int fig18_runs(study_ctx* ctx, study_batch* b) {
    run_config grid[NMODEL * NK];
    int ran[NMODEL * NK];
    const int nrun = fig18_grid(ctx, grid, ran);
    if (study_batch_alloc(b, nrun + fig18_nens(ctx)) != 0) {
        return 2;
    }
    int m = 0;
    for (int x = 0; x < NMODEL * NK; ++x) {
        if (ran[x]) {
            b->cfg[m++] = grid[x];
        }
    }
    for (int i = 0; i < NMODEL && fig18_nens(ctx) > 0; ++i) {
        for (int e = 1; fig18_ens_model(i) && e < FIG18_NENS; ++e) {
            for (int j = 1; j <= FIG18_NKP; ++j) {
                run_config* c = &b->cfg[m++];
                *c = grid[i * NK + j];
                c->newton.compute_kappa = 0;
                c->perturb |= RUN_PERTURB_MEMBER(e);
                const size_t n = strlen(c->label);
                snprintf(c->label + n, sizeof c->label - n, "_m%d", e);
                snprintf(c->out_dir, sizeof c->out_dir, "%s/%s/fig18-19/%s", ctx->out_root,
                         ctx->cs->name, c->label);
            }
        }
    }
    b->n = m;
    return 0;
}

/* CLU-5's fixed pile: the pile that `from` (a run at another k) settled into, restarted from its
 * final state with the configuration cfg (the same scene at another k) and left to settle for
 * FIXED_T; returns the median over the second half of that window of the mean penetration of the
 * overlapping contacts (the observable of fig18), and in *touch the median number of contacts
 * that push. The contact set is the same pile's at every k, so linear compliance makes the
 * penetration exactly ~1/k: no chaotic choice of pile between the stiffnesses. NAN on failure. */
#define FIXED_T 0.5
static double fixed_pile_pen(const run_config* cfg, const run_record* from, double* touch) {
    *touch = NAN;
    if (from->status != CCB_OK) {
        return NAN;
    }
    const long N = lround(FIXED_T / cfg->dt), n0 = N / 2;
    double pen[2048], nt[2048], o[O_COUNT];
    run_restart rs;
    if (N > 2048 || run_restart_open(cfg, &rs) != 0) {
        return NAN;
    }
    int ok = rs.rec.nq == from->nq && rs.rec.nv == from->nv &&
             ccb_sim_set_state(rs.sim, 0.0, from->q + (size_t)from->nsteps * (size_t)from->nq,
                               from->v + (size_t)from->nsteps * (size_t)from->nv) == CCB_OK;
    for (long k = 0; ok && k < N; ++k) {
        ok = ccb_sim_step(rs.sim) == CCB_OK;
        if (ok && k >= n0) {
            cfg->cs->observe(rs.sim, rs.data, rs.rec.cfg.params, o);
            pen[k - n0] = o[O_PEN];
            nt[k - n0] = o[O_TOUCH];
        }
    }
    double r = NAN;
    if (ok) {
        r = ccb_an_median(pen, (int)(N - n0));
        *touch = ccb_an_median(nt, (int)(N - n0));
    }
    run_restart_close(&rs);
    return r;
}

/* The record of ensemble member e >= 1 of model i at k_k18[1 + x] (the order of fig18_runs). */
static const run_record* fig18_member(const fig_data* fd, const study_ctx* ctx, int i, int e,
                                      int x) {
    const int nens = fig18_nens(ctx);
    int before = 0; /* ensemble models before i */
    for (int l = 0; l < i; ++l) {
        before += fig18_ens_model(l);
    }
    const int first = fd->b->n - nens;
    return &fd->b->rec[first + (before * (FIG18_NENS - 1) + (e - 1)) * FIG18_NKP + x];
}

/* fig18-19, together: penetration, iterations and kappa against k (each record in its place of
 * the grid; a run the tier does not make has no data) */
/* About 200 lines: analysis and report of the fig18-19 grid inside the case file, as every
 * finish callback still is (docs/architecture.md §8: declared table templates will move it). */
static int fig18_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    const int quick = ctx->tier == CASE_TIER_QUICK;
    run_config grid[NMODEL * NK];
    int ran[NMODEL * NK];
    fig18_grid(ctx, grid, ran);
    run_record* rec = calloc(NMODEL * NK, sizeof *rec);
    if (rec == NULL) {
        fprintf(stderr, "ccb: out of memory\n");
        return 2;
    }
    for (int x = 0, m = 0; x < NMODEL * NK; ++x) {
        if (ran[x]) {
            rec[x] = fd->b->rec[m++]; /* a view: freed with the study's batch */
        } else {
            rec[x].status = CCB_E_INVALID; /* not run: no data */
            snprintf(rec[x].msg, sizeof rec[x].msg, "not run in the quick tier");
        }
    }
    (void)dir;
    int nens_rows = 0;
    for (int i = 0; i < NMODEL; ++i) {
        const char* name = k_models[i]->name;
        double pen[NK], pen_tmean[NK], its[NK], kap[NK];
        for (int j = 0; j < NK; ++j) {
            const run_record* r = &rec[i * NK + j];
            const int ok = r->status == CCB_OK;
            const double t0 = r->cfg.t_final - 1.25, t1 = r->cfg.t_final + 1;
            const window_means w = means(r, t0, t1, O_PEN), a = means(r, 0, t1, -1);
            /* steady penetration: the median over the steps of the window; the time mean is
             * kept in the table (a late impact step of a rolling sphere, 1e3 x the resting
             * sink at k >= 1e10, dominates it) */
            pen[j] = ok ? obs_median(r, t0, t1, O_PEN) : NAN;
            pen_tmean[j] = ok ? w.obs : NAN;
            its[j] = ok ? a.iters : NAN;
            kap[j] = ok ? a.kappa : NAN;
            const double cells[] = {k_k18[j],    pen[j], pen_tmean[j],
                                    its[j],      kap[j], ok ? (double)r->max_iters : -1.0,
                                    r->wall_time};
            study_row(ctx, "fig18");
            study_str(ctx, "fig18", name);
            for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
                study_num(ctx, "fig18", cells[c]);
            }
            study_str(ctx, "fig18", !ran[i * NK + j] ? "not run" : ok ? "ok" : "failed");
            study_set_metricf(ctx, pen[j], "fig18.%s.penetration.k%g", name, k_k18[j]);
            study_set_metricf(ctx, pen_tmean[j], "fig18.%s.penetration_time_mean.k%g", name,
                              k_k18[j]);
            study_set_metricf(ctx, its[j], "fig19.%s.iterations.k%g", name, k_k18[j]);
            study_set_metricf(ctx, kap[j], "fig19.%s.kappa.k%g", name, k_k18[j]);
            if (j == NK - 1) {
                /* CLU-6: an explicit status either way, never a non-finite value */
                const int fin = all_finite_record(r);
                study_set_metricf(ctx,
                                  !ran[i * NK + j]                    ? NAN
                                  : fin && (ok || strlen(r->msg) > 0) ? 1.0
                                                                      : 0.0,
                                  "clu6.%s.graceful", name);
                study_row(ctx, "k1e13");
                study_str(ctx, "k1e13", name);
                study_str(ctx, "k1e13", ok ? "finished" : "failed");
                study_num(ctx, "k1e13", (double)r->nsteps);
                study_num(ctx, "k1e13", (double)r->nplanned);
                study_str(ctx, "k1e13", fin ? "yes" : "NO");
                study_str(ctx, "k1e13", ok ? "" : r->msg);
            }
        }
        /* CLU-5: k x penetration over k in [1e5, 1e11] (Lagged, Similar); SAP's saturation */
        double kp[7], kps[7];
        const int nkp = 7;
        for (int x = 0; x < nkp; ++x) {
            kp[x] = kps[x] = k_k18[x + 1] * pen[x + 1];
        }
        const double med = ccb_an_median(kps, nkp);
        double spread = 0;
        for (int x = 0; x < nkp; ++x) { /* a failed run (NaN) makes the spread NaN */
            const double dev = fabs(kp[x] / med - 1.0);
            spread = isnan(dev) || isnan(spread) ? NAN : fmax(spread, dev);
        }
        study_set_metricf(ctx, spread, "clu5.%s.kpen_spread", name);
        /* derived: log-log slope of the penetration over the same range (-1: linear compliance) */
        double slope = NAN;
        if (ccb_an_order(nkp, &k_k18[1], &pen[1], &slope, NULL, NULL) != 0) {
            slope = NAN;
        }
        study_set_metricf(ctx, slope, "clu5.%s.pen_slope", name);
        /* the fixed pile: the k = 1e7 run's final pile at every k of 1e5 ... 1e11 */
        if (fig18_ens_model(i)) {
            double fp[FIG18_NKP], ft[FIG18_NKP], kfp[FIG18_NKP];
            for (int x = 0; x < FIG18_NKP; ++x) {
                fp[x] = fixed_pile_pen(&grid[i * NK + 1 + x], &rec[i * NK + 3], &ft[x]);
                kfp[x] = k_k18[1 + x] * fp[x];
            }
            double fs = NAN, kmin = INFINITY, kmax = -INFINITY;
            if (ccb_an_order(FIG18_NKP, &k_k18[1], fp, &fs, NULL, NULL) != 0) {
                fs = NAN;
            }
            for (int x = 0; x < FIG18_NKP; ++x) {
                kmin = fmin(kmin, kfp[x]);
                kmax = fmax(kmax, kfp[x]);
            }
            study_set_metricf(ctx, fs, "clu5.%s.pen_slope.fixed_pile", name);
            study_set_metricf(ctx, kmax / kmin, "clu5.%s.kpen_max_over_min.fixed_pile", name);
            study_row(ctx, "fixed");
            study_str(ctx, "fixed", name);
            study_num(ctx, "fixed", fs);
            for (int x = 0; x < FIG18_NKP; ++x) {
                study_num(ctx, "fixed", kfp[x]);
            }
            study_num(ctx, "fixed", kmax / kmin);
            study_num(ctx, "fixed", ft[0]);
            study_num(ctx, "fixed", ft[FIG18_NKP - 1]);
        }
        if (fig18_nens(ctx) > 0 && fig18_ens_model(i)) { /* the quick tier's ensemble */
            double pm[FIG18_NKP], mem[FIG18_NENS][FIG18_NKP], sl[FIG18_NENS];
            for (int e = 0; e < FIG18_NENS; ++e) {
                for (int x = 0; x < FIG18_NKP; ++x) {
                    const run_record* r =
                        e == 0 ? &rec[i * NK + 1 + x] : fig18_member(fd, ctx, i, e, x);
                    const double t0 = r->cfg.t_final - 1.25, t1 = r->cfg.t_final + 1;
                    mem[e][x] = r->status == CCB_OK ? obs_median(r, t0, t1, O_PEN) : NAN;
                }
                if (ccb_an_order(FIG18_NKP, &k_k18[1], mem[e], &sl[e], NULL, NULL) != 0) {
                    sl[e] = NAN;
                }
            }
            for (int x = 0; x < FIG18_NKP; ++x) {
                double col[FIG18_NENS];
                for (int e = 0; e < FIG18_NENS; ++e) {
                    col[e] = mem[e][x];
                }
                pm[x] = ens_of_n(col, FIG18_NENS).median;
            }
            double es = NAN;
            if (ccb_an_order(FIG18_NKP, &k_k18[1], pm, &es, NULL, NULL) != 0) {
                es = NAN;
            }
            const ens_stat st = ens_of_n(sl, FIG18_NENS);
            study_set_metricf(ctx, es, "clu5.%s.pen_slope.ens_median_pen", name);
            study_set_metricf(ctx, st.mean, "clu5.%s.pen_slope.members_mean", name);
            study_set_metricf(ctx, st.sem, "clu5.%s.pen_slope.members_sem", name);
            study_set_metricf(ctx, st.lo, "clu5.%s.pen_slope.ens_min", name);
            study_set_metricf(ctx, st.hi, "clu5.%s.pen_slope.ens_max", name);
            const double cells[] = {slope, es, st.mean, st.sem, st.lo, st.hi};
            study_row(ctx, "members");
            study_str(ctx, "members", name);
            for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
                study_num(ctx, "members", cells[c]);
            }
            nens_rows++;
        }
        study_set_metricf(ctx, pen[8] / pen[3], "clu5.%s.pen_1e12_over_1e7", name);
        study_set_metricf(ctx, its[3] / its[1], "clu7.%s.iterations_1e7_over_1e5", name);
        const double cells[] = {pen[0], pen[1], pen[3],          pen[5],         pen[8],
                                spread, slope,  pen[8] / pen[3], its[3] / its[1]};
        study_row(ctx, "models");
        study_str(ctx, "models", name);
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
            study_num(ctx, "models", cells[c]);
        }
    }
    study_text(ctx, "quick",
               quick
                   ? " **Quick tier** (`ccb gate`, `make test`): one column of 10 objects (side = "
                     "1) for k in [1e5, 1e11] (SAP also 1e12; nan: not run); k = 1e13 on the "
                     "paper's scene for its first 0.5 s (Similar 0.2 s)."
                   : "");
    if (nens_rows > 0) {
        study_value(ctx, "members", nens_rows);
    }
    free(rec);
    return 0;
}

static const fig_table k_fig18_tables[] = {
    {.name = "fig18",
     .file = "fig18-19.csv",
     .header = "approx,k [N/m],penetration_median [m],penetration_time_mean [m],mean_iterations,"
               "mean_kappa,max_iterations,wall_time [s],status",
     .cells = "%s|%g|%.6e|%.6e|%.4f|%.6e|%d|%.6g|%s"},
    {.name = "models",
     .md =
         "| model | pen. 1e4 [m] | 1e5 | 1e7 | 1e9 | 1e12 | spread of k pen, 1e5-1e11 | slope, "
         "1e5-1e11 | pen(1e12)/pen(1e7) | it(1e7)/it(1e5) |\n|---|---|---|---|---|---|---|---|---|"
         "---|\n",
     .cells = "%s|%.3g|%.3g|%.3g|%.3g|%.3g|%.3f|%.3f|%.3g|%.2f"},
    {.name = "k1e13",
     .md = "| model | outcome | steps | of | all values finite | message "
           "|\n|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%d|%d|%s|%s"},
    {.name = "members",
     .md = "| model | member 0 | per-k median | members' mean | s.e. | min | max "
           "|\n|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3f|%.3f|%.3f|%.2g|%.3f|%.3f"},
    {.name = "fixed",
     .md = "| model | slope | k x pen, k = 1e5 | 1e6 | 1e7 | 1e8 | 1e9 | 1e10 | 1e11 | max/min | "
           "contacts at 1e5 | at 1e11 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.4f|%.3g|%.3g|%.3g|%.3g|%.3g|%.3g|%.3g|%.3f|%.0f|%.0f"},
    {.name = NULL}};
static const fig_plot k_fig18_plots[] = {
    CLUTTER_PLOT(
        "fig18", "",
        "Clutter, dt = 5e-3 s: steady penetration over the last 1.25 s against k (ICF Fig. "
        "18)"),
    CLUTTER_PLOT("fig19", "",
                 "Clutter, dt = 5e-3 s: mean iterations and condition number against k (ICF Fig. "
                 "19)"),
    {.script = NULL}};

/* Scale: 40, 160, 640 and 2,560 objects with Lagged at dt = 2e-3 over the first 0.4 s (the fall
 * and the first impacts of the lowest layers; the whole 3 s of 2,560 objects takes hours, see
 * the report) -- time per step and its split, and the exponent of the cost per step in the number
 * of objects -- and the 40 objects once more with a 1 mm margin: what the 10 cm margin's contacts
 * that carry no impulse cost. */
enum { SCALE_N = 4 };
#define SCALE_T 0.4 /* [s] */
static const int k_scale_sides[SCALE_N] = {2, 4, 8, 16};

static int scale_runs(study_ctx* ctx, study_batch* b) {
    const double dt = 2e-3;
    if (study_batch_alloc(b, SCALE_N + 1) != 0) {
        return 2;
    }
    for (int i = 0; i <= SCALE_N; ++i) {
        const int side = i < SCALE_N ? k_scale_sides[i] : 2;
        char label[96];
        snprintf(label, sizeof label, "lagged_objects%d%s", 10 * side * side,
                 i < SCALE_N ? "" : "_margin1mm");
        clutter_config(ctx, &b->cfg[i], "scale", label, &ccb_approx_lagged, dt, 0);
        b->cfg[i].t_final = SCALE_T; /* the fall and the first impacts of the lowest layers */
        b->cfg[i].record_every = 1;
        b->cfg[i].params[P_SIDE] = side;
        b->cfg[i].params[P_LEVELS] = 10;
        if (i == SCALE_N) {
            b->cfg[i].params[P_MARGIN] = 1e-3;
        }
    }
    b->n = SCALE_N + 1;
    return 0;
}

static int scale_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    const study_batch* b = fd->b;
    (void)dir;
    double objects_v[SCALE_N], cost_v[SCALE_N], iter_v[SCALE_N], per_it_v[SCALE_N];
    for (int i = 0; i <= SCALE_N; ++i) {
        const run_record* r = &b->rec[i];
        const double n = r->nsteps > 0 ? (double)r->nsteps : 1.0;
        const int side = i < SCALE_N ? k_scale_sides[i] : 2;
        const int objects = 10 * side * side;
        const double margin = i < SCALE_N ? r->cfg.params[P_MARGIN] : 1e-3;
        const double cps = (double)r->ncontacts_total / n;
        const double other = r->t_solve - r->t_assemble - r->t_factor - r->t_linesearch - r->t_eval;
        const double tab[] = {objects,
                              margin,
                              r->nv,
                              cps,
                              r->ncontacts_max,
                              run_mean_iterations(r),
                              r->wall_time / n,
                              r->t_geometry / n,
                              r->t_problem / n,
                              r->t_assemble / n,
                              r->t_factor / n,
                              r->t_linesearch / n,
                              r->t_eval / n,
                              other / n,
                              (double)r->analyses,
                              (double)r->factorizations};
        study_row(ctx, "scale");
        for (size_t c = 0; c < sizeof tab / sizeof tab[0]; ++c) {
            study_num(ctx, "scale", tab[c]);
        }
        study_str(ctx, "scale", r->status == CCB_OK ? "ok" : "failed");
        const double md[] = {objects,
                             100 * margin,
                             r->nv,
                             cps,
                             run_mean_iterations(r),
                             1e3 * r->wall_time / n,
                             1e6 * r->t_geometry / n,
                             1e6 * r->t_problem / n,
                             1e6 * r->t_assemble / n,
                             1e6 * r->t_factor / n,
                             1e6 * r->t_linesearch / n,
                             1e6 * (r->t_eval + other) / n,
                             1e9 * r->t_geometry / (n * fmax(cps, 1)),
                             r->wall_time};
        study_row(ctx, "steps");
        for (size_t c = 0; c < sizeof md / sizeof md[0]; ++c) {
            study_num(ctx, "steps", md[c]);
        }
        if (i < SCALE_N) {
            objects_v[i] = objects;
            cost_v[i] = r->wall_time / n;
            iter_v[i] = run_mean_iterations(r);
            per_it_v[i] = cost_v[i] / fmax(iter_v[i], 1e-300);
            study_set_metricf(ctx, r->wall_time / n, "scale.objects%d.wall_per_step", objects);
            study_set_metricf(ctx, cps, "scale.objects%d.contacts_per_step", objects);
            study_set_metricf(ctx, r->t_geometry / (n * fmax(cps, 1)),
                              "scale.objects%d.geometry_per_contact", objects);
            study_set_metricf(ctx, r->status == CCB_OK ? 0.0 : 1.0, "scale.objects%d.failure",
                              objects);
        }
    }
    /* cost per step ~ objects^E (least squares in log-log, the order fit of analysis/) */
    ccb_an_fit fit, fit_it, fit_per;
    ccb_an_fit_order(SCALE_N, objects_v, cost_v, &fit);
    ccb_an_fit_order(SCALE_N, objects_v, iter_v, &fit_it);
    ccb_an_fit_order(SCALE_N, objects_v, per_it_v, &fit_per);
    study_set_metric(ctx, "scale.exponent", fit.order);
    study_set_metric(ctx, "scale.exponent_iterations", fit_it.order);
    study_set_metric(ctx, "scale.exponent_per_iteration", fit_per.order);
    /* contacts that carry no impulse: the 10 cm margin's extra contacts against a 1 mm margin */
    const run_record *r10 = &b->rec[0], *r1 = &b->rec[SCALE_N];
    const double s10 = r10->wall_time / fmax(1, (double)r10->nsteps),
                 s1 = r1->wall_time / fmax(1, (double)r1->nsteps);
    const double c10 = (double)r10->ncontacts_total / fmax(1, (double)r10->nsteps),
                 c1 = (double)r1->ncontacts_total / fmax(1, (double)r1->nsteps);
    const double share = (s10 - s1) / s10;
    study_set_metric(ctx, "scale.margin_share", share);
    study_set_metric(ctx, "scale.per_extra_contact", (s10 - s1) / fmax(1.0, c10 - c1));
    printf("scaling exponent %.3f (95%% interval +-%.3f) of the cost per step in the objects: "
           "iterations per step %.3f, cost per iteration %.3f\n",
           fit.order, fit.ci95, fit_it.order, fit_per.order);
    const double values[] = {
        fit.order, fit.ci95, fit_it.order, fit_per.order,
        c1,        c10,      100 * share,  1e9 * (s10 - s1) / fmax(1.0, c10 - c1)};
    static const char* const names[] = {"E",  "E_ci95", "E_iterations", "E_per_iteration",
                                        "c1", "c10",    "share_pct",    "ns_per_extra"};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; ++v) {
        study_value(ctx, names[v], values[v]);
    }
    return 0;
}

static const fig_table k_scale_tables[] = {
    {.name = "scale",
     .file = "scale.csv",
     .header = "objects,margin [m],velocities,contacts_per_step,contacts_max,mean_iterations,"
               "wall_per_step [s],geometry_per_step [s],problem_per_step [s],assembly_per_step [s],"
               "factorization_per_step [s],line_search_per_step [s],evaluation_per_step [s],"
               "other_solve_per_step [s],symbolic_analyses,factorizations,status",
     .cells = "%d|%g|%d|%.1f|%d|%.4f|%.6e|%.6e|%.6e|%.6e|%.6e|%.6e|%.6e|%.6e|%d|%d|%s"},
    {.name = "steps",
     .md = "| objects | margin [cm] | velocities | contacts/step | mean it. | ms/step | geometry "
           "[us] | problem [us] | assembly [us] | factorization [us] | line search [us] | "
           "evaluation + other [us] | geometry per contact [ns] | wall [s] "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%d|%g|%d|%.0f|%.2f|%.3g|%.0f|%.0f|%.0f|%.0f|%.0f|%.0f|%.1f|%.3g"},
    {.name = NULL}};

/* ---- standard studies (std.c): the local error of restarted intervals ------------------------ */
/* The interval of the restarts: the ladder's largest dt, a whole number of steps of every run. */
#define STD_H 4e-3
static double clutter_std_error(const run_record* r, const run_record* ref, const double* P) {
    (void)P;
    return std_local_error(r, ref, STD_H);
}
static const case_std k_std = {
    .error_name = "e_loc",
    .error_unit = "m and -",
    .error_what =
        "the local error of restarted intervals, not the error of one trajectory: from the "
        "reference's state (Lagged at the smallest dt / 10) at every multiple of 4 ms in [0, 0.16] "
        "s "
        "the run's variant integrates one interval of 4 ms at its own dt, and e_loc is the RMS "
        "over "
        "the restarts of |q - q_ref| at the interval's end (positions and unit quaternions of the "
        "40 "
        "bodies; std_local_error). The pile is chaotic (at T = 0.3 s a 2x change of dt moves "
        "single "
        "objects by centimetres), so the RMS of one trajectory against another measures their "
        "divergence (measured before: Lagged e_q 0.188, 0.191, 0.017 at dt = 4, 2, 1 ms, no "
        "order); a 4 ms interval from a common state measures the method. The window holds the "
        "first "
        "impacts of the two lowest layers. Figs. 15-19 study the whole 3 s with ensembles.",
    .error = clutter_std_error,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .t_final = 0.16,
    .t_final_quick = 0.16,
    .dts = {4e-3, 2e-3, 1e-3},
    .ndt = 3,
    .dts_quick = {4e-3, 2e-3},
    .ndt_quick = 2};

static const fig_study k_fig15 = {
    .claim = "impacts dominate until ~2 s with more iterations and higher kappa; during that "
             "transient Lagged and Similar show higher iterations and kappa than SAP, and the "
             "situation is reversed after it; the regularized stiction tolerance (26) lowers "
             "Lagged's iterations and kappa in the transient; past the transient SAP's stiction "
             "tolerance is much tighter than v_s (ICF §XII-A).",
    .make_runs = fig15_runs,
    .finish = fig15_finish,
    .tables = k_fig15_tables,
    .report =
        "The pile is chaotic, so the gates read an ensemble: the four models from {nens|%d} "
        "initial states (the figures' run, and {nens_more|%d} more with every initial position one "
        "ulp up or down); mean with its standard error, median and range of the {nens|%d} "
        "members:\n\n{table:ensemble}\nPaper: impacts dominate until ~2 s with more iterations "
        "and higher kappa; Lagged and Similar worse than SAP early, better later; Lagged-reg "
        "lowers the transient iterations and kappa; Lagged/Similar stiction tolerance constant "
        "v_s, SAP's and Lagged-reg's follow gamma_n, SAP's much tighter than v_s after the "
        "transient.\n\n{table:models}\nLagged-reg / Lagged over t < 2 s: iterations "
        "{clu3.lagged_reg_over_lagged_t_lt_2|%.3f}, mean kappa "
        "{fig15.lagged_reg_over_lagged.kappa_t_lt_2|%.3f}. The objects do not all come to rest: "
        "spheres that reach the floor keep rolling without slip (no rolling resistance in the "
        "model), which is what the late speeds measure.\n\n",
    .plots = k_fig15_plots,
};

static const fig_study k_fig17 = {
    .claim = "SAP's kappa nearly flat in dt; Lagged's and Similar's grow with dt, and so do "
             "their iterations.",
    .make_runs = fig17_runs,
    .finish = fig17_finish,
    .tables = k_fig17_tables,
    .report =
        "Lagged-reg / Lagged at dt = {dt_max} s over the ensemble of {nens|%d} piles "
        "(CLU-4f):\n\n{table:ensemble}\nPaper: SAP's kappa nearly flat (G_t = 1/R_t does "
        "not depend on dt); Lagged and Similar kappa and iterations drop as dt shrinks (G_t = "
        "mu gamma_n/v_s ~ dt); Lagged-reg helps at large dt.{text:quick}\n\n{table:fig17}\n"
        "{table:slopes}\n",
    .plots = k_fig17_plots,
};

static const fig_study k_fig18 = {
    .claim = "penetration approaches the rigid limit and the solver stays robust up to 1e12 N/m; "
             "it fails at 1e13 (round-off); SAP's near-rigid cap saturates its penetration; "
             "iterations grow by at most ~20 % even at steel stiffness.",
    .make_runs = fig18_runs,
    .finish = fig18_finish,
    .tables = k_fig18_tables,
    .report =
        "Paper: penetration approaches the rigid limit and the solver stays robust up to 1e12 N/m; "
        "it fails at 1e13 (round-off); SAP's near-rigid cap saturates its penetration (~1e6 N/m "
        "at this step); iterations grow by at most ~20 % even at steel stiffness.\n\nSteady "
        "penetration = median over the steps of the last 1.25 s (the time mean, raised by late "
        "impact steps of rolling spheres, is in fig18-19.csv and dashed in the "
        "figure).{text:quick}\n\n{table:models}\nk = 1e13 N/m:\n\n{table:k1e13}\n{?members}Quick "
        "tier, CLU-5b-q: the one-column sweep from 6 initial states (member 0 above, 5 more each "
        "position one ulp up or down); slope of log pen against log k over 1e5 ... 1e11: member "
        "0's, that of the per-k median over the members (the gate's), and the members' own "
        "slopes.\n\n{table:members}{/}\nThe fixed pile (CLU-5b-q, the CLU-5a evidence): the pile "
        "the k = 1e7 run settled into, restarted at each k of 1e5 ... 1e11 and settled for 0.5 s; "
        "k x pen [N] and the slope of log pen against log k, with the pushing contacts at 1e5 and "
        "1e11.\n\n{table:fixed}\n",
    .plots = k_fig18_plots,
};

static const fig_study k_scale = {
    .claim = "the cost per step as the scene grows, one run at a time.",
    .make_runs = scale_runs,
    .serial = 1,
    .finish = scale_finish,
    .tables = k_scale_tables,
    .report = "{table:steps}\nPer step, averaged over the first 0.4 s (the fall and the first "
              "impacts). Cost per step ~ objects^E with **E = {E|%.2f} ± {E_ci95|%.2f}** (least "
              "squares over 40 ... 2,560 objects): the Newton iterations per step grow as "
              "objects^{E_iterations|%.2f} and the cost of one iteration as "
              "objects^{E_per_iteration|%.2f}. One Newton solve serves the whole scene, so its "
              "iterations are those of the hardest group of objects in contact; solving the groups "
              "(islands of the contact graph) separately is the way to E ~ 1. The 10 cm contact "
              "margin (ICF §X-A) makes most contacts pre-contact constraints that carry no impulse "
              "(the Newton solver leaves them out of its iterations and the problem computes their "
              "rows only if they may activate); against a 1 mm margin ({c1|%.0f} instead of "
              "{c10|%.0f} contacts per step), they take **{share_pct|%.0f} %** of the 40-object "
              "step, {ns_per_extra|%.0f} ns each.\n\n",
};

/* ---- study peers (MuJoCo beside the convex models) -------------------------------------------- */

typedef struct peers_facts {
    double wall_per_step, contacts, pen_mean, pen_max, out_max, ke_final;
} peers_facts;

static peers_facts peers_analyse(const run_record* r) {
    peers_facts f = {0, 0, 0, 0, 0, 0};
    const double n = fmax(1.0, (double)r->nsteps);
    f.wall_per_step = r->wall_time / n;
    for (long k = 1; k <= r->nsteps; ++k) {
        f.contacts += run_obs(r, k, O_NC) / n;
        f.pen_mean += run_obs(r, k, O_PEN) / n;
        f.pen_max = fmax(f.pen_max, run_obs(r, k, O_PEN));
        f.out_max = fmax(f.out_max, run_obs(r, k, O_OUT));
    }
    f.ke_final = r->nsteps > 0 ? run_obs(r, r->nsteps, O_KE) : NAN;
    return f;
}

static void peers_row(study_ctx* ctx, const run_record* r, double* v) {
    const peers_facts f = peers_analyse(r);
    char name[32];
    variant_name(&r->cfg, name, sizeof name);
    const double row[6] = {
        1e6 * f.wall_per_step, f.contacts, f.pen_mean, f.pen_max, f.out_max, f.ke_final};
    memcpy(v, row, sizeof row);
    study_set_metricf(ctx, f.pen_mean, "peers.%s.penetration_mean", name);
    study_set_metricf(ctx, f.out_max, "peers.%s.outside_max", name);
    study_set_metricf(ctx, run_mean_iterations(r), "peers.%s.mean_iterations", name);
}

static int peers_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    (void)dir;
    const study_batch* b = fd->b;
    for (int i = 0; i < b->n; ++i) {
        const run_record* r = &b->rec[i];
        char name[32];
        variant_name(&r->cfg, name, sizeof name);
        study_row(ctx, "runs");
        study_str(ctx, "runs", name);
        if (r->status != CCB_OK) {
            study_str(ctx, "runs", "failed");
            study_num(ctx, "runs", (double)r->fail_step);
            study_str(ctx, "runs", r->msg);
            continue;
        }
        const peers_facts f = peers_analyse(r);
        const double cells[] = {1e6 * f.wall_per_step,
                                run_mean_iterations(r),
                                f.contacts,
                                f.pen_mean,
                                f.pen_max,
                                f.out_max,
                                f.ke_final};
        study_str(ctx, "runs", "ok");
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
            study_num(ctx, "runs", cells[c]);
        }
    }
    return 0;
}

/* a failed run: its status, the step it failed at and the message */
static const fig_table k_peers_tables[] = {
    {.name = "runs",
     .md = "| run | status | us per step (failed: at step) | iterations | contacts per step | mean "
           "penetration [m] | largest step mean [m] | most outside the box [m] | kinetic energy "
           "at the end [J] |\n|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%.0f|%.2f|%.0f|%.3g|%.3g|%.3g|%.3g"},
    {.name = NULL}};

static const fig_study k_peers = {
    .claim = "ccb's convex models beside MuJoCo on the same 40 objects (each cube as its 26 "
             "spheres): wall time, iterations, contacts and penetration.",
    .peer = 1,
    .variants = "sap,similar,lagged,mujoco,mujoco-k",
    .serial = 1,
    .columns = "wall_per_step [us],contacts_mean,penetration_mean [m],penetration_max [m],"
               "outside_max [m],kinetic_energy_final [J]",
    .row = peers_row,
    .finish = peers_finish,
    .tables = k_peers_tables,
    .report = "{table:runs}\nOne run each, one at a time; `ccb bench clutter --peers` times "
              "alternating runs (median and spread) and MuJoCo with native boxes. ccb counts the "
              "contacts within its 10 cm speculative margin, MuJoCo those within its margin 0. "
              "mujoco-k uses ccb's k literally (README \"Speed\").\n\n",
};

/* ---- study rigid-limit: exported steps against Siconos' rigid solution
 * (formulation-convex §16.3; rigid_study.c) ---------------------------------------------------- */
STUDY_HOOKS(rigidlim_clutter, rigidlim, rigid_def,
            {2e-3, {1e5, 1e6, 1e7, 1e8, 1e9}, 5, 1e7, {0.2, 0.3}, 2})
static const fig_study k_rigid_limit = {
    .claim = RIGID_CLAIM,
    .make_runs = rigidlim_clutter_runs,
    .finish = rigidlim_clutter_finish,
    .script = "rigid_limit.gp",
    .plot = "title='clutter: impulse gap to the rigid solution (Siconos) against k and dt'; "
            "dt0 = 0.002; k0 = 1e7",
};

static const case_study k_studies[] = {
    {.name = "fig15-16",
     .title = "iterations, kappa(H) and stiction tolerance per step at dt = 2e-3 s",
     .figure = "ICF Figs. 15-16",
     .decl = &k_fig15},
    {.name = "fig17",
     .title = "mean iterations and kappa(H) against dt in {5e-4 ... 1e-2}",
     .figure = "ICF Fig. 17",
     .decl = &k_fig17},
    {.name = "fig18-19",
     .title = "steady penetration, iterations and kappa(H) against k in {1e4 ... 1e13}",
     .figure = "ICF Figs. 18-19",
     .decl = &k_fig18},
    {.name = "scale",
     .title = "40, 160, 640 and 2,560 objects: time per step, its split and its exponent",
     .figure = "ccb scaling",
     .decl = &k_scale},
    {.name = "peers",
     .title = "SAP, Similar, Lagged and MuJoCo: wall time, iterations, contacts, penetration",
     .figure = "ccb peer comparison",
     .decl = &k_peers},
    {.name = "rigid-limit",
     .title = "steps at t = 0.2, 0.3 s exported to FCLIB and solved rigidly by Siconos: "
              "Lagged over k, Lagged and SAP over dt",
     .figure = "ccb (CLU-9)",
     .decl = &k_rigid_limit}};

static const char* const k_quick[] = {"fig15-16", "fig17", "fig18-19", NULL};

const case_desc case_clutter = {
    .name = "clutter",
    .title = "Clutter: 40 objects dropped into a box (conditioning, stiffness robustness, speed)",
    .paper = "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, §XII-A, "
             "Figs. 14-19",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 2e-3,
    .t_final_default = 3.0,
    .approx_default = "lagged",
    .build = clutter_build,
    .sim_options = clutter_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = clutter_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .bench_approx = "lagged",
    .std = &k_std,
    .peer_observe = clutter_peer_observe,
    .peer_note =
        "contacts, touching: MuJoCo's contacts (margin 0); slip_max and stiction_tol_* have no "
        "counterpart (0)"};
