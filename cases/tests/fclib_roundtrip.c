/* fclib.roundtrip: the FCLIB export (formulation-convex §16) read back with libfclib gives the
 * same problem.
 *
 * For the sphere (one contact, Lagged and SAP) and the clutter (hundreds of contacts, two-block
 * ones among them, Lagged), `ccb run`'s export of two steps (run_execute with export_steps) is
 * read back (fclib_read_global, fclib_read_solution) and compared with the step problem formed
 * in memory from an identical simulation stepped to the same step: every entry of M, H, f, w,
 * mu and dt equal bit for bit [HDF5 stores doubles exactly; the runs are deterministic], the
 * stored solution is the simulation's v and impulses, and it balances momentum in the global form,
 * |M v - H r - f| <= 1e-5 |f| [the momentum residual Newton's test bounds by eps_r = 1e-5,
 * formulation-convex §8.5]. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/tests/test.h"
#include "fclib_io.h"
#include "registry.h"
#include "study.h"

static int same_ints(const int* a, const int* b, int n) {
    return n == 0 || memcmp(a, b, (size_t)n * sizeof(int)) == 0;
}
static int same_doubles(const double* a, const double* b, int n) {
    return n == 0 || memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

static void roundtrip(const char* case_name, const char* approx, const long* steps, int nsteps,
                      const char* dir) {
    const case_desc* cs = case_find(case_name);
    CHECK(cs != NULL, "case %s", case_name);
    run_config cfg;
    run_config_default(cs, &cfg);
    cfg.sim.approx = ccb_approx_find(approx);
    cfg.t_final = (double)(steps[nsteps - 1] + 1) * cfg.sim.dt;
    snprintf(cfg.label, sizeof cfg.label, "%s-%s", case_name, approx);
    snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s/%s-%s", dir, case_name, approx);
    cfg.nexport = nsteps;
    memcpy(cfg.export_steps, steps, (size_t)nsteps * sizeof(long));
    run_record rec;
    char msg[600];
    CHECK(run_execute(&cfg, &rec, msg, sizeof msg) == 0 && rec.status == CCB_OK, "%s %s: %s",
          case_name, approx, msg);
    run_record_free(&rec);
    /* the same simulation in memory */
    run_record r2;
    ccb_model* model = NULL;
    void* data = NULL;
    ccb_sim* sim = NULL;
    CHECK(run_setup(&cfg, &r2, &model, &data, &sim, msg, sizeof msg) == 0, "setup: %s", msg);
    long k = 0;
    for (int e = 0; e < nsteps; ++e) {
        while (k < steps[e]) {
            CHECK(ccb_sim_step(sim) == CCB_OK, "step %ld: %s", k + 1, ccb_sim_last_error(sim));
            ++k;
        }
        ccb_global_problem g, h;
        CHECK(ccb_problem_to_global(ccb_sim_problem(sim), &g) == CCB_OK, "to_global");
        char path[PATH_MAX + 64];
        run_export_path(&cfg, k, path, sizeof path);
        double *v = NULL, *r = NULL;
        CHECK(fclib_io_read(path, &h, &v, &r, msg, sizeof msg) == 0, "read %s: %s", path, msg);
        const int m = 3 * g.nc;
        CHECK(h.nv == g.nv && h.nc == g.nc && h.dt == g.dt, "%s step %ld: sizes and dt", case_name,
              k);
        CHECK(same_ints(h.M_colptr, g.M_colptr, g.nv + 1) &&
                  same_ints(h.M_row, g.M_row, g.M_colptr[g.nv]) &&
                  same_doubles(h.M_val, g.M_val, g.M_colptr[g.nv]),
              "%s step %ld: M bit for bit", case_name, k);
        CHECK(same_ints(h.H_colptr, g.H_colptr, m + 1) &&
                  same_ints(h.H_row, g.H_row, g.H_colptr[m]) &&
                  same_doubles(h.H_val, g.H_val, g.H_colptr[m]),
              "%s step %ld: H bit for bit", case_name, k);
        CHECK(same_doubles(h.f, g.f, g.nv) && same_doubles(h.w, g.w, m) &&
                  same_doubles(h.mu, g.mu, g.nc),
              "%s step %ld: f, w, mu bit for bit", case_name, k);
        double* gam = calloc((size_t)m + 1, sizeof(double));
        double* rr = calloc((size_t)m + 1, sizeof(double));
        ccb_sim_problem_impulses(sim, gam);
        ccb_global_from_ccb_order(g.nc, gam, rr);
        CHECK(v && r && same_doubles(v, ccb_sim_v(sim), g.nv) && same_doubles(r, rr, m),
              "%s step %ld: the stored solution is the simulation's", case_name, k);
        double* res = calloc((size_t)g.nv, sizeof(double));
        double fn = 0, rn = 0;
        for (int j = 0; j < g.nv; ++j) {
            for (int a = h.M_colptr[j]; a < h.M_colptr[j + 1]; ++a) {
                res[h.M_row[a]] += h.M_val[a] * v[j];
            }
            fn = fmax(fn, fabs(h.f[j]));
        }
        for (int c = 0; c < m; ++c) {
            for (int a = h.H_colptr[c]; a < h.H_colptr[c + 1]; ++a) {
                res[h.H_row[a]] -= h.H_val[a] * r[c];
            }
        }
        for (int j = 0; j < g.nv; ++j) {
            rn = fmax(rn, fabs(res[j] - h.f[j]));
        }
        CHECK(rn <= 1e-5 * fn, "%s step %ld (%d contacts): |M v - H r - f| = %g, |f| = %g",
              case_name, k, g.nc, rn, fn);
        printf("%s %s step %ld: %d contacts, nnz(H) %d, momentum residual %.3g of |f| %.3g\n",
               case_name, approx, k, g.nc, g.H_colptr[m], rn, fn);
        free(res);
        free(gam);
        free(rr);
        free(v);
        free(r);
        ccb_global_problem_free(&g);
        ccb_global_problem_free(&h);
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(model);
    if (cs->destroy) {
        cs->destroy(data);
    }
    run_record_free(&r2);
}

int main(void) {
    g_test_name = "fclib.roundtrip";
    if (!fclib_io_available()) {
        printf("fclib.roundtrip: skipped, this build has no FCLIB (install libfclib-dev, and build "
               "with CCB_OPTIONAL=ON)\n");
        return 77; /* CTest: skipped */
    }
    char dir[PATH_MAX];
    test_tmp_template(dir, sizeof dir, "ccb-fclib");
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    const long sphere_steps[2] = {40, 75}; /* sliding after the impact; still sliding */
    const long clutter_steps[2] = {100, 150};
    roundtrip("sphere", "lagged", sphere_steps, 2, dir);
    roundtrip("sphere", "sap", sphere_steps, 2, dir);
    roundtrip("clutter", "lagged", clutter_steps, 2, dir);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
    return TEST_SUMMARY();
}
