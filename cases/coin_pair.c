/* Study pair of the coin case: hydroelastic contact between two compliant bodies (spec:
 * formulation-tamsi-hydro §F.2, PFC eq. 23), which no other gate exercises (the coin presses a
 * compliant disk on a half-space, the spatula compliant bubbles on a rigid handle).
 *
 * Two compliant slabs of unequal moduli and thicknesses are two springs in series: where their
 * zero-pressure faces overlap by delta, the contact surface is the plane on which the two linear
 * fields are equal, z* = -delta gA / (gA + gB) below B's face (A above B), with pressure
 * p* = g delta, g = gA gB / (gA + gB) (gA = EA / HA, gB = EB / HB), so the force is p* times the
 * overlap of the footprints. (1) The query (ccb_hydro_intersect) against that closed form at three
 * mesh resolutions with polygons and triangles: a linear field is exact on any tetrahedral mesh, so
 * the force and the plane agree to round-off at every level. (2) A simulation: a compliant block
 * (slab A, upside down) released at first touch onto a fixed compliant slab B settles at the
 * approach delta_eq = m g / (A g) — with Lagged and with SAP, whose compliant contact at rest carries
 * the weight at the sink m g / k (formulation-convex §4.3, §11). A rigid slab, or a model that
 * added the two gradients instead of combining them in series, gives another approach (reported
 * beside it: the gate's sensitivity). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coin.h"

/* the two slabs: moduli [Pa], thicknesses [m], half footprints [m] (A smaller than B) */
#define PAIR_EA 1e5
#define PAIR_EB 4e5
#define PAIR_HA 0.02
#define PAIR_HB 0.05
#define PAIR_A_HALF 0.05
#define PAIR_B_HALF 0.10
#define PAIR_MASS 1.0 /* the block [kg] */
#define PAIR_D 50.0   /* Hunt & Crossley dissipation of both [s/m]: settles within 0.3 s */
#define PAIR_DT 1e-3
#define PAIR_T 2.0
enum { PAIR_NLEV = 3 };
static const double k_pair_h[PAIR_NLEV] = {0.04, 0.02, 0.01};

static ccb_hydro_mesh* pair_slab(double half, double H, double E, double h, char* msg, size_t n) {
    const ccb_hydro_solid d = {CCB_SOLID_SLAB, {half, half, 0.5 * H}, E, h, 0};
    ccb_hydro_mesh* m = NULL;
    return ccb_hydro_mesh_solid(&d, &m, msg, n) == CCB_OK ? m : NULL;
}

/* B's top face at z = 0; A upside down (its zero-pressure face at its bottom) at z = -delta. */
static ccb_pose pair_pose_b(void) {
    return ccb_pose_translation(ccb_v3(0, 0, -0.5 * PAIR_HB));
}

static ccb_pose pair_pose_a(double delta) {
    ccb_pose X = ccb_pose_translation(ccb_v3(0.01, -0.02, 0.5 * PAIR_HA - delta));
    X.R = (ccb_mat3){{1, 0, 0, 0, -1, 0, 0, 0, -1}}; /* pi about x */
    return X;
}

/* (1) the query against the closed form: the largest relative error of the force and the largest
 * error of the plane's height over the faces, at every level and face form. */
static int pair_query(strbuf* csv, strbuf* md, double* ferr, double* zerr, char* msg, size_t n) {
    const double gA = PAIR_EA / PAIR_HA, gB = PAIR_EB / PAIR_HB, g = gA * gB / (gA + gB);
    const double delta = 1e-3, area = 4 * PAIR_A_HALF * PAIR_A_HALF;
    /* A above (its field grows upward from z = -delta), B below (from z = 0 downward): equal
     * where gA (z + delta) = -gB z */
    const double F = g * delta * area, zs = -delta * gA / (gA + gB);
    *ferr = *zerr = 0.0;
    for (int l = 0; l < PAIR_NLEV; ++l) {
        ccb_hydro_mesh* A = pair_slab(PAIR_A_HALF, PAIR_HA, PAIR_EA, k_pair_h[l], msg, n);
        ccb_hydro_mesh* B =
            A ? pair_slab(PAIR_B_HALF, PAIR_HB, PAIR_EB, k_pair_h[l], msg, n) : NULL;
        if (B == NULL) {
            ccb_hydro_mesh_destroy(A);
            return 2;
        }
        const ccb_pose XA = pair_pose_a(delta), XB = pair_pose_b();
        for (int repr = 0; repr < 2; ++repr) {
            ccb_hydro_surface s = {0};
            if (ccb_hydro_intersect(A, &XA, B, &XB, 0, repr, &s, msg, n) != CCB_OK) {
                ccb_hydro_surface_free(&s);
                ccb_hydro_mesh_destroy(A);
                ccb_hydro_mesh_destroy(B);
                return 2;
            }
            double Fz = 0, z = 0;
            for (int f = 0; f < s.n; ++f) {
                Fz += s.faces[f].area * s.faces[f].pressure;
                z = fmax(z, fabs(s.faces[f].centroid.z - zs));
            }
            const double fe = fabs(Fz - F) / F;
            *ferr = fmax(*ferr, fe);
            *zerr = fmax(*zerr, z);
            const char* form = repr ? "triangles" : "polygons";
            strbuf_printf(csv, "%g,%s,%d,%.12e,%.12e,%.3e,%.3e\n", k_pair_h[l], form, s.n, Fz, F,
                          fe, z);
            strbuf_printf(md, "| %g | %s | %d | %.9g | %.9g | %.2e | %.2e |\n", k_pair_h[l], form,
                          s.n, Fz, F, fe, z);
            ccb_hydro_surface_free(&s);
        }
        ccb_hydro_mesh_destroy(A);
        ccb_hydro_mesh_destroy(B);
    }
    return 0;
}

/* (2) the block released at first touch onto the fixed slab: its approach after PAIR_T. 0, 1 (the
 * solver failed: *approach NaN) or 2 (the model could not be made). */
static int pair_rest(const study_ctx* ctx, const ccb_approx* approx, double* approach, char* msg,
                     size_t n) {
    *approach = NAN;
    ccb_hydro_mesh* A = pair_slab(PAIR_A_HALF, PAIR_HA, PAIR_EA, 0.02, msg, n);
    ccb_hydro_mesh* B = A ? pair_slab(PAIR_B_HALF, PAIR_HB, PAIR_EB, 0.02, msg, n) : NULL;
    ccb_model* m = NULL;
    ccb_sim* sim = NULL;
    int rc = 2, ground = -1, block = -1;
    if (B == NULL || ccb_model_create(&m) != CCB_OK) {
        goto out;
    }
    ccb_model_set_gravity(m, ccb_v3(0, 0, -9.81));
    ccb_body_def gd = ccb_body_def_default();
    gd.name = "slab";
    gd.mobilizer = CCB_MOBILIZER_FIXED;
    gd.pose = pair_pose_b();
    ccb_body_def bd = ccb_body_def_default();
    bd.name = "block";
    bd.mobilizer = CCB_MOBILIZER_FREE;
    bd.mass = PAIR_MASS;
    bd.inertia = ccb_m3_identity();
    const double w = 2 * PAIR_A_HALF;
    bd.inertia.m[0] = bd.inertia.m[4] = PAIR_MASS * (w * w + PAIR_HA * PAIR_HA) / 12;
    bd.inertia.m[8] = PAIR_MASS * (2 * w * w) / 12;
    bd.pose = ccb_pose_translation(ccb_v3(0.01, -0.02, 0.5 * PAIR_HA));
    ccb_shape_def sb = ccb_shape_def_default(), sa = ccb_shape_def_default();
    sb.name = "slab_mesh";
    sb.type = CCB_SHAPE_HYDRO;
    sb.mesh = B;
    sb.material = (ccb_material){PAIR_EB, PAIR_D, 0.01, 0.5, 0.0};
    sa.name = "block_mesh";
    sa.type = CCB_SHAPE_HYDRO;
    sa.mesh = A;
    sa.pose.R = (ccb_mat3){{1, 0, 0, 0, -1, 0, 0, 0, -1}}; /* its zero-pressure face down */
    sa.material = (ccb_material){PAIR_EA, PAIR_D, 0.01, 0.5, 0.0};
    if (ccb_model_add_body(m, &gd, &ground) != CCB_OK ||
        ccb_model_add_shape(m, ground, &sb, NULL) != CCB_OK ||
        ccb_model_add_body(m, &bd, &block) != CCB_OK ||
        ccb_model_add_shape(m, block, &sa, NULL) != CCB_OK || ccb_model_finalize(m) != CCB_OK) {
        snprintf(msg, n, "pair: %s", ccb_model_last_error(m));
        goto out;
    }
    /* the round-off perturbations of `ccb gate --sensitivity` as every run of the case gets them
     * (the linear solver and the Hessian's pattern through ctx->sim.newton, the contacts' order, the
     * initial positions below); no solver option of the command line reaches it (`ccb study`
     * refuses them: no run of the case's model is made) */
    ccb_sim_params sp = ccb_sim_params_default();
    sp.dt = PAIR_DT;
    sp.approx = approx;
    sp.newton.linear_solver = ctx->sim.newton.linear_solver;
    sp.newton.pattern_near = ctx->sim.newton.pattern_near;
    sp.contact_order = (ctx->perturb & RUN_PERTURB_CONTACTS) != 0;
    char why[200] = "";
    if (ccb_sim_create(m, &sp, &sim, why, sizeof why) != CCB_OK) {
        snprintf(msg, n, "pair: the simulator could not be made: %s", why);
        goto out;
    }
    if (ctx->perturb & RUN_PERTURB_ULP) { /* every initial position one ulp up */
        double q[7], v[6];
        if (ccb_model_initial_state(m, q, v) != CCB_OK) {
            snprintf(msg, n, "pair: no initial state");
            goto out;
        }
        for (int i = 0; i < 7; ++i) {
            q[i] = nextafter(q[i], INFINITY);
        }
        if (ccb_sim_set_state(sim, 0.0, q, v) != CCB_OK) {
            snprintf(msg, n, "pair: %s", ccb_sim_last_error(sim));
            goto out;
        }
    }
    rc = 0;
    const long steps = lround(PAIR_T / PAIR_DT);
    for (long k = 0; k < steps; ++k) {
        if (ccb_sim_step(sim) != CCB_OK) {
            snprintf(msg, n, "pair (%s): %s", approx->name, ccb_sim_last_error(sim));
            rc = 1;
            break;
        }
    }
    if (rc == 0) { /* the free body's coordinates: position first */
        *approach = 0.5 * PAIR_HA - ccb_sim_q(sim)[2];
    }
out:
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    ccb_hydro_mesh_destroy(A);
    ccb_hydro_mesh_destroy(B);
    return rc;
}

int coin_pair_run(study_ctx* ctx, study_out* out) {
    if (ctx->emit) { /* no runs to hand out: the study is in-process (as push's ilqr) */
        return 0;
    }
    char msg[256] = "", dir[PATH_MAX], path[PATH_MAX + 32];
    strbuf qcsv = {0}, qmd = {0}, rcsv = {0}, rmd = {0};
    double ferr, zerr;
    int rc = 0, failed = 0;
    if (study_dir(out, "pair", dir, sizeof dir) != 0 ||
        pair_query(&qcsv, &qmd, &ferr, &zerr, msg, sizeof msg) != 0) {
        rc = msg[0] ? study_fail(out, CCB_E_INVALID, "coin pair: %s", msg) : CCB_E_IO;
        goto out;
    }
    study_set_metric(out, "pair.force_rel_err_max", ferr);
    study_set_metric(out, "pair.plane_err_max", zerr);
    const double gA = PAIR_EA / PAIR_HA, gB = PAIR_EB / PAIR_HB,
                 area = 4 * PAIR_A_HALF * PAIR_A_HALF;
    const double W = PAIR_MASS * 9.81, g = gA * gB / (gA + gB);
    const double series = W / (area * g), rigid = W / (area * gA), sum = W / (area * (gA + gB));
    const ccb_approx* ap[2] = {&ccb_approx_lagged, &ccb_approx_sap};
    for (int i = 0; i < 2; ++i) {
        double a;
        const int r = pair_rest(ctx, ap[i], &a, msg, sizeof msg);
        if (r == 2) {
            rc = study_fail(out, CCB_E_INVALID, "coin pair: %s", msg);
            goto out;
        }
        if (r == 1) { /* a run's solver failure: the study goes on, and fails at its end */
            study_fail(out, STUDY_E_SOLVE, "coin pair: %s", msg);
        }
        failed |= r;
        const double e = fabs(a - series) / series;
        study_set_metricf(out, e, "pair.rest.%s.approach_rel_err", ap[i]->name);
        strbuf_printf(&rcsv, "%s,%.12e,%.12e,%.3e\n", ap[i]->name, a, series, e);
        strbuf_printf(&rmd, "| %s | %.6g | %.6g | %.2e |\n", ap[i]->name, 1e3 * a, 1e3 * series, e);
    }
    snprintf(path, sizeof path, "%s/query.csv", dir);
    rc = study_write_table(out, path,
                           "h [m],form,faces [-],force [N],force_closed_form [N],force_rel_err [-],"
                           "plane_err [m]",
                           qcsv.s ? qcsv.s : "");
    snprintf(path, sizeof path, "%s/rest.csv", dir);
    if (rc == 0) {
        rc = study_write_table(out, path,
                               "approximation,approach [m],approach_closed_form [m],rel_err [-]",
                               rcsv.s ? rcsv.s : "");
    }
    if (rc == 0) {
        study_report(
            out,
            "### pair — two compliant bodies in contact: the equal-pressure plane (PFC eq. 23)\n\n"
            "Two compliant slabs, E_A = %g Pa over H_A = %g m and E_B = %g Pa over H_B = %g m "
            "(gradients g_A = %g, g_B = %g Pa/m), their zero-pressure faces overlapping by 1 mm "
            "over %g m x %g m: two springs in series, the contact the plane where both fields are "
            "equal, z* = -delta g_A / (g_A + g_B) (A above), with pressure g delta, g = g_A g_B / "
            "(g_A + "
            "g_B) "
            "= %.6g Pa/m (formulation-tamsi-hydro §F.2). The query against that closed form at "
            "three mesh resolutions (linear fields are exact on any tetrahedral mesh: round-off "
            "is the only error):\n\n"
            "| h [m] | face form | faces | force [N] | closed form [N] | relative error | plane "
            "height "
            "error [m] |\n|---|---|---|---|---|---|---|\n%s\n"
            "A block of slab A (%g kg, upside down) released at first touch onto a fixed slab B "
            "(both d = %g s/m), after %g s at dt = %g s, against the approach of two springs in "
            "series, m g / (A g). A rigid slab B would give %.0f %% less, a model that added the "
            "two gradients %.0f %% less: the gate separates them.\n\n"
            "| approximation | approach [mm] | closed form [mm] | relative error |\n"
            "|---|---|---|---|\n%s\n",
            PAIR_EA, PAIR_HA, PAIR_EB, PAIR_HB, gA, gB, 2 * PAIR_A_HALF, 2 * PAIR_A_HALF, g,
            qmd.s ? qmd.s : "", PAIR_MASS, PAIR_D, PAIR_T, PAIR_DT, 100 * (series - rigid) / series,
            100 * (series - sum) / series, rmd.s ? rmd.s : "");
    }
out:
    free(qcsv.s);
    free(qmd.s);
    free(rcsv.s);
    free(rmd.s);
    return rc != 0 ? rc : failed ? STUDY_E_SOLVE : 0;
}
