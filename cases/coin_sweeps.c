/* The coin's sweeps (cases/coin.c; PFC paper §V-A, Fig. 6): convergence-dt (e_v, e_omega against
 * the step), convergence-grid (against the size of the polar grid) and faces (faces per step and
 * the time of a step, polygons against triangles). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coin.h"

/* Errors e_v, e_omega of the n runs rec[0..n-1] of one solver against its reference rec[n]
 * (metrics <study>.<solver>.e_v.<tag><key[i]>) and the least-squares orders over x. */
static void sweep_errors(study_out* out, const run_record* rec, int n, const double* x,
                         const double* key, const char* study, const char* solver, const char* tag,
                         double* ev, double* ew, double* ov, double* ow) {
    const run_record* ref = &rec[n];
    for (int i = 0; i < n; ++i) {
        const int ok = rec[i].status == CCB_OK && ref->status == CCB_OK;
        ev[i] = ok ? coin_rel_error(&rec[i], ref, coin_vcols, 2) : NAN;
        ew[i] = ok ? coin_rel_error(&rec[i], ref, coin_wcols, 1) : NAN;
        study_set_metricf(out, ev[i], "%s.%s.e_v.%s%g", study, solver, tag, key[i]);
        study_set_metricf(out, ew[i], "%s.%s.e_omega.%s%g", study, solver, tag, key[i]);
    }
    *ov = *ow = NAN;
    ccb_an_order(n, x, ev, ov, NULL, NULL);
    ccb_an_order(n, x, ew, ow, NULL, NULL);
}

/* Mean of kappa_2(H) over the steps where it was computed (NAN if none: TAMSI). */
static double mean_kappa(const run_record* r) {
    double sum = 0;
    long n = 0;
    for (long k = 1; k <= r->nsteps; ++k) {
        if (r->kappa[k] > 0) {
            sum += r->kappa[k];
            ++n;
        }
    }
    return n > 0 ? sum / (double)n : NAN;
}

/* The rows of <study>/errors.csv of a sweep: per solver and x, e_v, e_omega and the work and
 * conditioning of the run (wall time, mean Newton iterations, mean kappa_2(H)). rec holds nx runs
 * and the reference per solver. */
static void sweep_rows(study_out* out, const char* xname, const char* const* solvers, int ns,
                       const double* x, int nx, double ev[][8], double ew[][8],
                       const run_record* rec) {
    char header[160];
    snprintf(header, sizeof header, "solver,%s,e_v,e_omega,wall [s],mean_iterations,kappa_mean",
             xname);
    study_table_header(out, "errors", header);
    for (int s = 0; s < ns; ++s) {
        for (int i = 0; i < nx; ++i) {
            const run_record* r = &rec[s * (nx + 1) + i];
            const double cells[] = {
                x[i], ev[s][i], ew[s][i], r->wall_time, run_mean_iterations(r), mean_kappa(r)};
            study_row(out, "errors");
            study_str(out, "errors", solvers[s]);
            study_nums(out, "errors", cells, sizeof cells / sizeof cells[0]);
        }
    }
}

/* the sweeps' errors.csv (its header names the sweep's variable) */
#define SWEEP_ERRORS_TABLE                                                                         \
    { .name = "errors", .file = "errors.csv", .cells = "%s|%g|%.6e|%.6e|%.6e|%.4f|%.6e" }
#define SWEEP_PLOT(OUT, XCOL, XLABEL, TITLE)                                                       \
    {                                                                                              \
        .script = "coin_fig6.gp", .out = OUT,                                                      \
        .vars = "solvers='lagged tamsi'; xcol=" #XCOL "; xlabel='" XLABEL "'; title='" TITLE "'"   \
    }

#define NDT 4
static int conv_dt_runs(study_ctx* ctx, study_batch* b) {
    static const char* const solvers[2] = {"lagged", "tamsi"};
    const double dts[NDT] = {1e-3, 5e-4, 2.5e-4, 1.25e-4}, dt_ref = 1.25e-5;
    const double T = ctx->cs->t_final_default;
    const int nrun = 2 * (NDT + 1);
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i <= NDT; ++i) {
            const double dt = i < NDT ? dts[i] : dt_ref;
            char label[96];
            run_label(label, sizeof label, solvers[s], dt);
            run_config* c = &b->cfg[s * (NDT + 1) + i];
            coin_config(ctx, c, "convergence-dt", label, solvers[s], dt, T);
            c->cost = T / dt;
            c->sim.newton.compute_kappa = s == 0; /* conditioning of the convex step (Lagged) */
        }
    }
    b->n = nrun;
    return 0;
}

static int conv_dt_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    static const char* const solvers[2] = {"lagged", "tamsi"};
    const double dts[NDT] = {1e-3, 5e-4, 2.5e-4, 1.25e-4}, dt_ref = 1.25e-5;
    const study_batch* b = fd->b;
    double ev[2][8], ew[2][8];
    for (int s = 0; s < 2; ++s) {
        double ov, ow;
        sweep_errors(out, &b->rec[s * (NDT + 1)], NDT, dts, dts, "convergence-dt", solvers[s], "dt",
                     ev[s], ew[s], &ov, &ow);
        study_set_metricf(out, ov, "coin4.%s.order_v", solvers[s]);
        study_set_metricf(out, ow, "coin4.%s.order_omega", solvers[s]);
        const double cells[] = {ev[s][0], ev[s][1], ev[s][2], ev[s][3], ov, ew[s][0], ew[s][3], ow};
        study_row(out, "orders");
        study_str(out, "orders", solvers[s]);
        study_nums(out, "orders", cells, sizeof cells / sizeof cells[0]);
        for (int i = 0; i < NDT; ++i) {
            const run_record* r = &b->rec[s * (NDT + 1) + i];
            const double kap = mean_kappa(r);
            study_row(out, "work");
            study_str(out, "work", solvers[s]);
            study_num(out, "work", dts[i]);
            study_num(out, "work", ev[s][i]);
            study_num(out, "work", r->wall_time);
            study_num(out, "work", run_mean_iterations(r));
            if (isnan(kap)) {
                study_str(out, "work", "-"); /* TAMSI has no convex Hessian */
            } else {
                study_num(out, "work", kap);
                study_set_metricf(out, kap, "convergence-dt.%s.kappa_mean.dt%g", solvers[s],
                                  dts[i]);
            }
        }
    }
    sweep_rows(out, "dt [s]", solvers, 2, dts, NDT, ev, ew, b->rec);
    study_value(out, "eps0", ctx->params[P_EPS0]);
    study_value(out, "dt_ref", dt_ref);
    return 0;
}

static const fig_table k_conv_dt_tables[] = {
    SWEEP_ERRORS_TABLE,
    {.name = "orders",
     .md =
         "| solver | e_v(1e-3) | e_v(5e-4) | e_v(2.5e-4) | e_v(1.25e-4) | order | e_omega(1e-3) | "
         "e_omega(1.25e-4) | order |\n|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3e|%.3e|%.3e|%.3e|%.3f|%.3e|%.3e|%.3f"},
    {.name = "work",
     .md = "| solver | dt [s] | e_v | wall [s] | mean iterations | mean kappa_2(H) "
           "|\n|---|---|---|---|---|---|\n",
     .cells = "%s|%g|%.3e|%.4f|%.2f|%.3e"},
    {.name = NULL}};
static const fig_plot k_conv_dt_plots[] = {
    SWEEP_PLOT("convergence-dt", 2, "dt [s]",
               "Coin: relative errors against dt (PFC Fig. 6, left)"),
    SWEEP_PLOT("convergence-dt-work", 5, "wall time of the run [s]",
               "Coin: relative errors against dt (PFC Fig. 6, left): work-precision"),
    {.script = NULL}};

/* polar(4 ... 32) against polar(64); the quick tier stops one grid earlier: polar(4 ... 16)
 * against polar(32), a fifth of the cost (the faces grow as N_r^2). */
#define NGRID_MAX 4
static int conv_grid_runs(study_ctx* ctx, study_batch* b) {
    static const char* const solvers[2] = {"lagged", "tamsi"};
    const int quick = ctx->tier == CASE_TIER_QUICK;
    const int NGRID = quick ? NGRID_MAX - 1 : NGRID_MAX;
    const int rings[NGRID_MAX] = {4, 8, 16, 32}, ring_ref = quick ? 32 : 64;
    const double dt = 2.5e-4, T = 0.05;
    const int nrun = 2 * (NGRID + 1);
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i <= NGRID; ++i) {
            const int nr = i < NGRID ? rings[i] : ring_ref;
            char label[96];
            snprintf(label, sizeof label, "%s_polar%d", solvers[s], nr);
            run_config* c = &b->cfg[s * (NGRID + 1) + i];
            coin_config(ctx, c, "convergence-grid", label, solvers[s], dt, T);
            c->params[P_LAYOUT] = 1;
            c->params[P_RINGS] = nr;
            c->cost = (double)nr * nr;
        }
    }
    b->n = nrun;
    return 0;
}

static int conv_grid_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    static const char* const solvers[2] = {"lagged", "tamsi"};
    const int quick = ctx->tier == CASE_TIER_QUICK;
    const int NGRID = quick ? NGRID_MAX - 1 : NGRID_MAX;
    const int rings[NGRID_MAX] = {4, 8, 16, 32}, ring_ref = quick ? 32 : 64;
    const double dt = 2.5e-4, T = 0.05;
    (void)dir;
    const study_batch* b = fd->b;
    double h[NGRID_MAX]; /* grid size R / N_r */
    for (int i = 0; i < NGRID; ++i) {
        h[i] = ctx->params[P_RADIUS] / rings[i];
    }
    double ev[2][8], ew[2][8];
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < 8; ++i) {
            ev[s][i] = ew[s][i] = NAN; /* grids the tier does not run */
        }
    }
    double rkey[NGRID_MAX];
    for (int i = 0; i < NGRID; ++i) {
        rkey[i] = rings[i];
    }
    for (int s = 0; s < 2; ++s) {
        double ov, ow;
        sweep_errors(out, &b->rec[s * (NGRID + 1)], NGRID, h, rkey, "convergence-grid", solvers[s],
                     "rings", ev[s], ew[s], &ov, &ow);
        study_set_metricf(out, ov, "coin5.%s.order_v", solvers[s]);
        study_set_metricf(out, ow, "coin5.%s.order_omega", solvers[s]);
        const double cells[] = {ev[s][0], ev[s][1], ev[s][2], ev[s][3], ov,
                                ew[s][0], ew[s][1], ew[s][2], ew[s][3], ow};
        study_row(out, "orders");
        study_str(out, "orders", solvers[s]);
        study_nums(out, "orders", cells, sizeof cells / sizeof cells[0]);
    }
    sweep_rows(out, "h [m]", solvers, 2, h, NGRID, ev, ew, b->rec);
    study_text(out, "last", quick ? " (quick tier)" : ", 32");
    study_value(out, "eps0", ctx->params[P_EPS0]);
    study_value(out, "dt", dt);
    study_value(out, "T", T);
    study_value(out, "ring_ref", ring_ref);
    return 0;
}

static const fig_table k_conv_grid_tables[] = {
    SWEEP_ERRORS_TABLE,
    {.name = "orders",
     .md = "| solver | e_v(4) | e_v(8) | e_v(16) | e_v(32) | order | e_omega(4) | e_omega(8) | "
           "e_omega(16) | e_omega(32) | order |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3e|%.3e|%.3e|%.3e|%.3f|%.3e|%.3e|%.3e|%.3e|%.3f"},
    {.name = NULL}};
static const fig_plot k_conv_grid_plots[] = {
    SWEEP_PLOT("convergence-grid", 2, "grid size R/N_r [m]",
               "Coin: relative errors against the grid size (PFC Fig. 6, right)"),
    {.script = NULL}};

/* faces: faces per step and wall time, polygons vs triangles, on fan and polar meshes. */
#define NFM 6
static int faces_runs(study_ctx* ctx, study_batch* b) {
    static const int layout[NFM] = {0, 0, 0, 1, 1, 1};
    static const int res[NFM] = {38, 152, 608, 4, 8, 16};
    const double dt = ctx->cs->dt_default, T = 0.05;
    const int nrun = 2 * NFM;
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    for (int i = 0; i < nrun; ++i) {
        const int m = i / 2, tri = i % 2;
        char label[96];
        snprintf(label, sizeof label, "%s%d_%s", layout[m] ? "polar" : "fan", res[m],
                 tri ? "triangles" : "polygons");
        coin_config(ctx, &b->cfg[i], "faces", label, "lagged", dt, T);
        b->cfg[i].params[P_LAYOUT] = layout[m];
        b->cfg[i].params[layout[m] ? P_RINGS : P_FAN_N] = res[m];
        b->cfg[i].params[P_REPR] = tri;
    }
    b->n = nrun;
    return 0;
}

static int faces_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    static const int layout[NFM] = {0, 0, 0, 1, 1, 1};
    static const int res[NFM] = {38, 152, 608, 4, 8, 16};
    const double dt = ctx->cs->dt_default, T = 0.05;
    const study_batch* b = fd->b;
    (void)dir;
    for (int m = 0; m < NFM; ++m) {
        const run_record* rp = &b->rec[2 * m];
        const run_record* rt = &b->rec[2 * m + 1];
        if (rp->status != CCB_OK || rt->status != CCB_OK) {
            continue;
        }
        const coin_facts fp = coin_analyse(rp, rp->cfg.params),
                         ft = coin_analyse(rt, rt->cfg.params);
        const double np = (double)rp->nsteps, nt = (double)rt->nsteps;
        const double wp = rp->wall_time / np, wt = rt->wall_time / nt;
        const double sp = rp->t_solve / np, st = rt->t_solve / nt;
        char mesh[32];
        snprintf(mesh, sizeof mesh, "%s%d", layout[m] ? "polar" : "fan", res[m]);
        const double tab[] = {fp.faces_mean,
                              ft.faces_mean,
                              ft.faces_mean / fp.faces_mean,
                              wp,
                              wt,
                              rp->t_geometry / np,
                              rt->t_geometry / nt,
                              sp,
                              st,
                              run_obs(rp, rp->nsteps, O_EPS),
                              run_obs(rt, rt->nsteps, O_EPS)};
        const double md[] = {fp.faces_mean, ft.faces_mean, ft.faces_mean / fp.faces_mean,
                             1e6 * wp,      1e6 * wt,      1e6 * sp,
                             1e6 * st,      st / sp};
        study_row(out, "faces");
        study_str(out, "faces", mesh);
        study_nums(out, "faces", tab, sizeof tab / sizeof tab[0]);
        study_row(out, "steps");
        study_str(out, "steps", mesh);
        study_nums(out, "steps", md, sizeof md / sizeof md[0]);
        study_set_metricf(out, ft.faces_mean / fp.faces_mean, "faces.%s.triangles_over_polygons",
                          mesh);
        study_set_metricf(out, st / sp, "faces.%s.solve_time_ratio", mesh);
    }
    study_value(out, "eps0", ctx->params[P_EPS0]);
    study_value(out, "dt", dt);
    study_value(out, "T", T);
    return 0;
}

static const fig_table k_faces_tables[] = {
    {.name = "faces",
     .file = "faces.csv",
     .header = "mesh,faces_polygons,faces_triangles,ratio,wall_per_step_polygons [s],"
               "wall_per_step_triangles [s],wall_geometry_polygons [s],wall_geometry_triangles [s],"
               "wall_solve_polygons [s],wall_solve_triangles [s],eps_T_polygons,eps_T_triangles",
     .cells = "%s|%.1f|%.1f|%.3f|%.6e|%.6e|%.6e|%.6e|%.6e|%.6e|%.8f|%.8f"},
    {.name = "steps",
     .md = "| mesh | faces (polygons) | faces (triangles) | ratio | step polygons | step triangles "
           "| solve polygons | solve triangles | solve ratio "
           "|\n|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.0f|%.0f|%.2f|%.1f|%.1f|%.1f|%.1f|%.2f"},
    {.name = NULL}};

const fig_study coin_conv_dt = {
    .claim = "first order in dt (e_v, e_omega against the same solver at dt / 10).",
    .make_runs = conv_dt_runs,
    .finish = conv_dt_finish,
    .tables = k_conv_dt_tables,
    .report = "fan152, eps0 = {eps0}, reference the same solver at dt = {dt_ref} s. Paper: first "
              "order.\n\n{table:orders}\nWork and conditioning (runs two at a time; the errors "
              "against the wall time in convergence-dt-work.png): mean kappa_2(H) of the Lagged "
              "steps grows as dt^2 k / m with the faces' stiffness.\n\n{table:work}\n",
    .plots = k_conv_dt_plots,
};

const fig_study coin_conv_grid = {
    .claim = "second order in the grid size (the centroid rule integrates forces exactly and "
             "moments to O(h^2)).",
    .make_runs = conv_grid_runs,
    .finish = conv_grid_finish,
    .tables = k_conv_grid_tables,
    .report = "polar(N_r), N_r = 4, 8, 16{text:last} (h = R/N_r), eps0 = {eps0}, dt = {dt} s, T = "
              "{T} s; reference polar({ring_ref|%d}) at the same dt. Paper: second order (the "
              "centroid rule integrates forces exactly and moments to O(h^2)).\n\n"
              "{table:orders}\n",
    .plots = k_conv_grid_plots,
};

const fig_study coin_faces = {
    .claim = "a polygon face costs less than its triangles: fewer contact points, the same "
             "result (PFC §III-B).",
    .make_runs = faces_runs,
    .serial = 1,
    .finish = faces_finish,
    .tables = k_faces_tables,
    .report =
        "Lagged, eps0 = {eps0}, dt = {dt} s, T = {T} s, one run at a time; faces per step and "
        "time per step [us].\n\n{table:steps}\n",
};
