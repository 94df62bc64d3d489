/* cmd_bench: `ccb bench [CASE]`. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include "fclib_io.h"
#include "gates.h"
#include "peer.h"
#include "siconos_peer.h"
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_internal.h"

/* ---- bench -------------------------------------------------------------------------------------
 * */

int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static const char* k_bench_help =
    "usage: ccb bench [CASE] [options]\n"
    "\n"
    "Times the stepping loop (no output files) of the case (default conveyor) for the variants\n"
    "of --variants that apply to it (default: every approximation, TAMSI and implicit Euler\n"
    "with full Newton + TALS, h = dt; the clutter: lagged), or for the one configuration of\n"
    "--approx / --solver, and reports the median over --repeat runs.\n"
    "\n"
    "  --repeat N        repetitions (default 5)\n"
    "  --variants SPEC   variant names and sets (convex, paper, all), comma-separated\n"
    "  --approx NAME     only this approximation\n"
    "  --dt S, --t-final S, --set NAME=VALUE   as for ccb run\n"
    "  --solver NAME     only this solver (with --approx: on that approximation)\n"
    "  --peers           the first variant against the outside engines on the same scene,\n"
    "                    in alternating runs: MuJoCo on the same geometry (every ccb shape)\n"
    "                    and with native boxes (a body of spheres as the box that bounds\n"
    "                    them), and every other peer of the build (ccb list: mujoco-pgs,\n"
    "                    mujoco-cg, mujoco-pyramidal, ode-worldstep, ode-quickstep,\n"
    "                    bullet, bullet-mlcp-dantzig) on the same geometry; prints one line\n"
    "                    'ratio CASE VARIANT/PEER R' (medians) per peer, and where ccb's\n"
    "                    and MuJoCo's iterations go, per window of the run (one untimed run\n"
    "                    each; docs/speed.md §4); needs a build with a peer (libmujoco-dev,\n"
    "                    libode-dev, libbullet-dev); a peer that cannot translate the scene\n"
    "                    is named with the reason\n"
    "The solver options below apply to every variant whose solver reads them.\n";

void describe_line(const char* key, const char* value, void* user) {
    (void)user;
    printf("#   %-18s %s\n", key, value); /* as ccb info VARIANT */
}

/* `ccb bench --peers`' iteration breakdown (docs/speed.md §4): per window of the run, for
 * ccb (r[0]) and MuJoCo on the same geometry (r[1]), per step: the iterations (mean, largest),
 * ccb's damped ones (step length < 1/2), the cost evaluations per line search, the share of steps
 * each stopping test ended, the contacts (MuJoCo: constraints) whose state changed in the last
 * iteration; for ccb the median |D r|/bound one iteration before the end and the share of steps
 * whose bound the impulse term set. */
enum { BRK_WINDOWS = 6 };
typedef struct brk_sum {
    long n, it, damped, ls, searches, stop[2], chg, chg_all, nchg, nkn, jt, nr;
    int mx;
    double* ratio;
} brk_sum;

static void brk_add(brk_sum* b, const run_record* r, long k) {
    const run_step_detail* d = &r->detail[k];
    b->n++;
    b->it += r->iters[k];
    b->mx = r->iters[k] > b->mx ? r->iters[k] : b->mx;
    b->damped += d->damped > 0 ? d->damped : 0;
    b->ls += d->ls_evals;
    b->searches += d->line_searches;
    if (d->stop == RUN_STOP_RESIDUAL || d->stop == RUN_STOP_COST) {
        b->stop[d->stop]++;
    }
    if (d->changes_last >= 0) {
        b->nkn++;
        b->chg += d->changes_last;
        b->chg_all += d->changes;
        b->nchg += d->changes_last > 0;
    }
    b->jt += d->stop_term == CCB_STOP_TERM_IMPULSE;
    if (b->ratio && r->iters[k] > 0 && isfinite(d->ratio_prev)) {
        b->ratio[b->nr++] = d->ratio_prev;
    }
}

static void brk_print(brk_sum* b, const char* win, const char* eng, int own) {
    const double nn = b->n > 0 ? (double)b->n : 1.0;
    char st[32], pc[16] = "-", rt[16] = "-", bj[16] = "-", dm[16] = "-";
    snprintf(st, sizeof st, "%.0f%%|%.0f%%", 100.0 * (double)b->stop[0] / nn,
             100.0 * (double)b->stop[1] / nn);
    if (b->nkn > 0) {
        snprintf(pc, sizeof pc, "%.0f%%", 100.0 * (double)b->nchg / (double)b->nkn);
    }
    if (b->nr > 0) {
        qsort(b->ratio, (size_t)b->nr, sizeof(double), cmp_double);
        snprintf(rt, sizeof rt, "%.3g", b->ratio[b->nr / 2]);
    }
    if (own) {
        snprintf(bj, sizeof bj, "%.0f%%", 100.0 * (double)b->jt / nn);
        snprintf(dm, sizeof dm, "%.2f", (double)b->damped / nn);
    }
    const double nk = b->nkn > 0 ? (double)b->nkn : 1.0;
    printf("%-12s %-7s %-8.2f %-4d %-7s %-7.2f %-10s %-8.2f %-8.3f %-7s %-8s %-6s\n", win, eng,
           (double)b->it / nn, b->mx, dm,
           b->searches > 0 ? (double)b->ls / (double)b->searches : 0.0, st, (double)b->chg_all / nk,
           (double)b->chg / nk, pc, rt, bj);
}

static void bench_breakdown(const run_record r[2], const char* variant, double t_final) {
    /* at most one window per step, so that none is empty (the engines ran the same steps) */
    const long nsteps = r[0].nsteps < r[1].nsteps ? r[0].nsteps : r[1].nsteps;
    const int nw = nsteps < BRK_WINDOWS ? (int)nsteps : BRK_WINDOWS;
    if (nw < 1) {
        printf("# no iteration breakdown: no step ran\n");
        return;
    }
    printf("# where the iterations go: one untimed run of %s and of MuJoCo on the same geometry, "
           "in %d windows of %.3g s; per step: iterations (mean, largest), %s's damped ones "
           "(step length < 1/2), cost evaluations per line search, the share of steps each "
           "test ended (%s: optimality|cost stall; MuJoCo: gradient|improvement, mjSolverStat), "
           "state changes of contacts (MuJoCo: constraints) over the iterations and in the last "
           "one, and the share of steps with any in the last, the median |D r|/bound one iteration "
           "before the end, the "
           "share of steps whose bound the impulse term set\n",
           variant, nw, t_final / nw, variant, variant);
    printf("%-12s %-7s %-8s %-4s %-7s %-7s %-10s %-8s %-8s %-7s %-8s %-6s\n", "window", "engine",
           "it/step", "max", "damped", "ls/srch", "stop", "changes", "chg last", "any chg",
           "r before", "bnd j");
    for (int w = 0; w <= nw; ++w) { /* w == nw: the whole run */
        for (int e = 0; e < 2; ++e) {
            const long N = r[e].nsteps;
            const long k0 = w < nw ? 1 + N * w / nw : 1;
            const long k1 = w < nw ? N * (w + 1) / nw : N;
            brk_sum b;
            memset(&b, 0, sizeof b);
            b.ratio = calloc((size_t)(k1 - k0 + 2), sizeof(double));
            for (long k = k0; k <= k1; ++k) {
                brk_add(&b, &r[e], k);
            }
            char win[32];
            if (w < nw) {
                snprintf(win, sizeof win, "%.3g-%.3g", t_final * w / nw, t_final * (w + 1) / nw);
            } else {
                snprintf(win, sizeof win, "all");
            }
            brk_print(&b, win, e == 0 ? "ccb" : "mujoco", e == 0);
            free(b.ratio);
        }
    }
}

/* The peers `ccb bench --peers` times: MuJoCo on the same geometry and with native boxes, then
 * every other peer variant of this build on the same geometry (mujoco-k, whose literal stiffness
 * is not a setting for speed, is left out). */
typedef struct bench_peer {
    char name[40];
    const peer_variant* pv;
    peer_options o;
} bench_peer;

static int bench_peer_list(bench_peer* out, int max) {
    int n = 0;
    for (int id = 1; id < PEER_COUNT && n < max; ++id) {
        const peer_variant* pv = peer_variant_of(id);
        if (id == PEER_MUJOCO_K || pv->engine->absent() != NULL) {
            continue;
        }
        out[n].pv = pv;
        out[n].o = pv->options;
        snprintf(out[n].name, sizeof out[n].name, "%s%s", pv->name,
                 id == PEER_MUJOCO ? "-same-geometry" : "");
        n++;
        if (id == PEER_MUJOCO && n < max) {
            out[n] = out[n - 1];
            out[n].o.geometry = PEER_NATIVE_BOXES;
            snprintf(out[n].name, sizeof out[n].name, "mujoco-native-boxes");
            n++;
        }
    }
    return n;
}

/* `ccb bench --peers`: cfg and every peer (bench_peer_list) in alternating runs. A peer that
 * cannot translate the scene is reported and left out; none that can is an error. */
int bench_peers(const case_desc* cs, const run_config* cfg, const char* variant, int repeat) {
    enum { MAXP = 1 + 2 * PEER_COUNT };
    bench_peer peers[MAXP];
    const int npeer = bench_peer_list(peers + 1, MAXP - 1);
    if (npeer == 0) {
        return cli_error("--peers: no peer engine in this build (%s)", peer_engine_mujoco.absent());
    }
    ccb_model* model = NULL;
    void* data = NULL;
    char msg[600];
    run_record rec;
    memset(&rec, 0, sizeof rec);
    if (run_execute(cfg, &rec, msg, sizeof msg) != 0) { /* checks the input, warms up */
        return cli_error("%s", msg);
    }
    run_record_free(&rec);
    if (cs->build(cfg->params, &model, &data, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    /* which peers translate the scene (one step each) */
    const int NP = 1 + npeer;
    int use[MAXP] = {1}, nuse = 0;
    char refused[MAXP][256];
    for (int p = 1; p < NP; ++p) {
        void* s = NULL;
        refused[p][0] = '\0';
        use[p] = peers[p].pv->engine->open(model, cfg->sim.dt, &peers[p].o, &s, refused[p],
                                           sizeof refused[p]) == 0;
        peers[p].pv->engine->close(s);
        nuse += use[p];
    }
    snprintf(peers[0].name, sizeof peers[0].name, "%s", variant);
    double* t = calloc((size_t)(NP * repeat), sizeof(double));
    double it[MAXP] = {0}, nc[MAXP] = {0}, pen[MAXP] = {0}, fac = 0, per_it = 0;
    long steps[MAXP] = {0};
    int ok[MAXP], rc = t ? 0 : EXIT_USAGE;
    for (int p = 0; p < NP; ++p) {
        ok[p] = 1;
    }
    if (nuse == 0) {
        rc = cli_error("--peers: %s", refused[1]);
    }
    run_config timed = *cfg; /* no clock reads inside the solver in the timed runs */
    timed.sim.newton.time_phases = 0;
    for (int r = 0; r < repeat && rc == 0; ++r) {
        if (run_execute(&timed, &rec, msg, sizeof msg) != 0) {
            rc = cli_error("%s", msg);
            break;
        }
        t[r] = rec.wall_time;
        steps[0] = rec.nsteps;
        it[0] = rec.nsteps ? (double)rec.total_iters / (double)rec.nsteps : 0;
        nc[0] = rec.nsteps ? (double)rec.ncontacts_total / (double)rec.nsteps : 0;
        ok[0] &= rec.status == CCB_OK;
        run_record_free(&rec);
        for (int p = 1; p < NP && rc == 0; ++p) {
            if (!use[p]) {
                continue;
            }
            peer_result pr;
            const peer_variant pv = {peers[p].pv->id, peers[p].name, peers[p].pv->title,
                                     peers[p].pv->engine, peers[p].o};
            if (peer_run(&pv, model, cfg->sim.dt, cfg->t_final, &pr, msg, sizeof msg) != 0) {
                rc = cli_error("--peers: %s: %s", peers[p].name, msg);
                break;
            }
            t[p * repeat + r] = pr.wall;
            steps[p] = pr.steps;
            it[p] = pr.mean_iter;
            nc[p] = pr.mean_ncon;
            pen[p] = pr.mean_pen;
            ok[p] &= pr.ok;
        }
    }
    /* untimed runs: the phases of ccb's solve, and where each engine's iterations go (MuJoCo) */
    run_record brk[2];
    memset(brk, 0, sizeof brk);
    run_config phased = *cfg, peer = *cfg;
    phased.detail = peer.detail = 1;
    phased.sim.newton.count_states = 1; /* the contacts' stick/slip/separate changes */
    peer.peer = PEER_MUJOCO;            /* the same geometry, MuJoCo's time-constant stiffness */
    const int mj = use[1] && peers[1].pv->id == PEER_MUJOCO;
    if (rc == 0 && run_execute(&phased, &brk[0], msg, sizeof msg) == 0 &&
        brk[0].total_iters > 0) { /* per Newton iteration: whole solve, and its factorizations */
        per_it = brk[0].t_solve / (double)brk[0].total_iters;
        fac = brk[0].t_factor / (double)brk[0].total_iters;
    }
    const int have_brk = rc == 0 && mj && brk[0].detail != NULL && brk[0].status == CCB_OK &&
                         run_execute(&peer, &brk[1], msg, sizeof msg) == 0 &&
                         brk[1].status == CCB_OK;
    if (rc == 0) {
        printf("\n# --peers: %d alternating runs each of %s and of every peer, stepping loop "
               "only; median [min, max]\n",
               repeat, variant);
        for (int p = 1; p < NP; ++p) {
            const peer_engine* e = peers[p].pv->engine;
            if (!use[p]) {
                printf("# %s: not run: %s\n", peers[p].name, refused[p]);
                continue;
            }
            if (p > 1 && peers[p - 1].pv->engine == e) {
                continue;
            }
            printf("# %s %s:\n", e->name, e->version());
            e->describe(cfg->sim.dt, &peers[p].o, describe_line, NULL);
        }
        printf("%-22s %-8s %-12s %-25s %-14s %-10s %-10s %s\n", "solver", "steps", "wall [s]",
               "spread [s]", "per step [us]", "mean it.", "contacts", "status");
        double med[MAXP];
        for (int p = 0; p < NP; ++p) {
            if (!use[p]) {
                continue;
            }
            double* tp = t + p * repeat;
            qsort(tp, (size_t)repeat, sizeof(double), cmp_double);
            med[p] = tp[repeat / 2];
            char spread[64];
            snprintf(spread, sizeof spread, "[%.4f, %.4f]", tp[0], tp[repeat - 1]);
            printf("%-22s %-8ld %-12.4f %-25s %-14.1f %-10.2f %-10.0f %s\n", peers[p].name,
                   steps[p], med[p], spread, steps[p] ? 1e6 * med[p] / (double)steps[p] : 0.0,
                   it[p], nc[p], ok[p] ? "ok" : "FAILED");
        }
        printf("# per Newton iteration of %s (last run): whole solve %.1f us, of it "
               "factorization + solve %.1f us (ratio %.2f)\n",
               variant, 1e6 * per_it, 1e6 * fac, fac > 0 ? per_it / fac : 0.0);
        if (brk[0].total_iters > 0) {
            const double ni = (double)brk[0].total_iters;
            const double ns = brk[0].nsteps > 0 ? (double)brk[0].nsteps : 1.0;
            printf("# the same split in phases: assembly %.1f us, factorization + solve %.1f us, "
                   "line search %.1f us, evaluation and test %.1f us; per step, outside the "
                   "solve: contact query %.1f us, problem %.1f us\n",
                   1e6 * brk[0].t_assemble / ni, 1e6 * brk[0].t_factor / ni,
                   1e6 * brk[0].t_linesearch / ni, 1e6 * brk[0].t_eval / ni,
                   1e6 * brk[0].t_geometry / ns, 1e6 * brk[0].t_problem / ns);
        }
        printf("# mean penetration of the peers' penetrating contacts:");
        for (int p = 1; p < NP; ++p) {
            if (use[p]) {
                printf("%s %s %.3g m", p > 1 ? "," : "", peers[p].name, pen[p]);
            }
        }
        printf("\n");
        if (have_brk) {
            bench_breakdown(brk, variant, cfg->t_final);
        } else {
            printf("# no iteration breakdown: %s\n",
                   !mj                     ? "it compares with MuJoCo, which is not here"
                   : brk[0].detail == NULL ? "the variant is not solved by Newton"
                                           : msg);
        }
        for (int p = 1; p < NP; ++p) {
            if (use[p]) {
                printf("ratio %s %s/%s %.3f\n", cs->name, variant, peers[p].name, med[0] / med[p]);
            }
        }
        /* ccb's run failing fails the bench; a peer's failure is a finding, shown in its row */
        rc = ok[0] ? 0 : EXIT_GATE;
    }
    run_record_free(&brk[0]);
    run_record_free(&brk[1]);
    free(t);
    ccb_model_destroy(model);
    if (cs->destroy) {
        cs->destroy(data);
    }
    return rc;
}

/* The run configurations a bench times (into list, at most max): the one of --approx / --solver,
 * or the registry's variants named by --variants (default: the case's bench variant, or every
 * approximation, TAMSI and implicit Euler FN + TALS) that apply to the case. Their number, or -1
 * with a message. */
__attribute__((noinline)) /* not into cmd_bench, whose setjmp would make its locals volatile */
static int
bench_list(const opts* o, const case_desc* cs, run_config* list, int max, char* msg, size_t msgn) {
    if (o->solver || o->approx) {
        run_config_default(cs, &list[0]);
        list[0].sim.approx = ccb_approx_find(o->approx ? o->approx : cs->approx_default);
        return o->solver && solver_select(&list[0], o->solver, msg, msgn) != 0 ? -1 : 1;
    }
    const char* spec = o->variants        ? o->variants
                       : cs->bench_approx ? cs->bench_approx
                                          : "convex,tamsi,ie-fn-tals";
    variant_def* vs = calloc((size_t)max, sizeof *vs);
    if (vs == NULL) {
        snprintf(msg, msgn, "out of memory");
        return -1;
    }
    const int n = variant_select(spec, cs, vs, max, msg, msgn);
    if (n == 0) {
        snprintf(msg, msgn, "no variant of '%s' applies to %s", spec, cs->name);
    }
    for (int i = 0; i < n; ++i) {
        run_config_default(cs, &list[i]);
        variant_configure(&vs[i], &list[i], NAN);
    }
    free(vs);
    return n > 0 ? n : -1;
}

/* Times cfg's stepping loop `repeat` times (no clock read inside the solver) and once more with
 * its solver phases timed: prints its line (median wall time) and appends its time split to
 * split; *all_ok: every run succeeded. 0, or EXIT_USAGE with a message. */
static int bench_one(const run_config* cfg, const char* variant, int repeat, strbuf* split,
                     int* all_ok) {
    double* times = calloc((size_t)repeat, sizeof(double));
    if (times == NULL) {
        return cli_error("out of memory");
    }
    run_record rec;
    memset(&rec, 0, sizeof rec);
    double mean_it = 0, last_split[8] = {0}, contacts = 0;
    long steps = 0, retries = 0, retried = 0;
    int ok = 1;
    /* the timed runs read no clock inside the solver; one more run times its phases */
    run_config timed = *cfg;
    timed.sim.newton.time_phases = 0;
    for (int r = 0; r <= repeat; ++r) {
        char msg[600];
        if (run_execute(r < repeat ? &timed : cfg, &rec, msg, sizeof msg) != 0) {
            cli_error("%s", msg);
            free(times);
            return EXIT_USAGE;
        }
        if (r < repeat) {
            times[r] = rec.wall_time;
        }
        steps = rec.nsteps;
        mean_it = rec.nsteps ? (double)rec.total_iters / (double)rec.nsteps : 0;
        contacts = rec.nsteps ? (double)rec.ncontacts_total / (double)rec.nsteps : 0;
        retries = rec.lazy_retries;
        retried = rec.lazy_retried_steps;
        ok &= rec.status == CCB_OK;
        const double sp[8] = {rec.t_geometry,
                              rec.t_problem,
                              rec.t_assemble,
                              rec.t_factor,
                              rec.t_linesearch,
                              rec.t_eval,
                              rec.t_kappa,
                              rec.t_solve - rec.t_assemble - rec.t_factor - rec.t_linesearch -
                                  rec.t_eval - rec.t_kappa};
        memcpy(last_split, sp, sizeof sp);
        run_record_free(&rec);
    }
    qsort(times, (size_t)repeat, sizeof(double), cmp_double);
    const double med = times[repeat / 2];
    const double* med_split = last_split;
    if (steps > 0) {
        strbuf_printf(split, "%-22s %-9.0f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f\n",
                      variant, contacts, 1e6 * med_split[0] / steps, 1e6 * med_split[1] / steps,
                      1e6 * med_split[2] / steps, 1e6 * med_split[3] / steps,
                      1e6 * med_split[4] / steps, 1e6 * med_split[5] / steps,
                      1e6 * med_split[7] / steps);
        if (cfg->sim.newton.lazy_pairs && retries > 0) { /* the same in every run */
            strbuf_printf(split,
                          "#   %s, lazy pairs: %ld of %ld steps solved again (%ld solves "
                          "repeated: a lazy pair's bound failed, formulation-convex §8.11)\n",
                          variant, retried, steps, retries);
        }
    }
    printf("%-22s %-9g %-8ld %-12.6f %-14.3f %-12.0f %-10.3f %s\n", variant, cfg->sim.dt, steps,
           med, steps ? 1e6 * med / (double)steps : 0.0, med > 0 ? (double)steps / med : 0.0,
           mean_it, ok ? "ok" : "FAILED");
    free(times);
    *all_ok = ok;
    return 0;
}

int cmd_bench(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "repeat variants approx dt t-final set peers solver friction SOLVER",
               &o, k_bench_help);
    if (o.npos > 1) {
        die_usage("bench takes at most one CASE");
    }
    const case_desc* cs = need_case(o.npos ? o.pos[0] : "conveyor");
    if (o.approx) {
        need_approx(o.approx); /* before anything is allocated: a usage error names them */
    }
    /* the variants: every approximation, TAMSI and implicit Euler (FN + TALS, h = dt); or the
     * one named by --approx / --solver */
    enum { MAXV = 64 };
    run_config* list = calloc(MAXV, sizeof *list);
    if (list == NULL) {
        return cli_error("out of memory");
    }
    char lmsg[512];
    const int n = bench_list(&o, cs, list, MAXV, lmsg, sizeof lmsg);
    if (n < 0) {
        free(list);
        die_usage("%s", lmsg);
    }
    /* every solver option (and --friction) must reach a variant that is run (issue 44, part 3):
     * one applied to none of them would be ignored; with --peers only the first is run */
    option_use u;
    memset(&u, 0, sizeof u);
    u.o = &o;
    cli_trap t; /* a usage error here frees the list on its way out */
    cli_trap_push(&t);
    const int jv = setjmp(t.jb);
    if (jv != 0) {
        free(list);
        cli_fail(jv, t.msg);
    }
    for (int v = 0; v < n; ++v) { /* every variant configured once, here */
        run_config* cfg = &list[v];
        apply_sets(cs, cfg->params, &o);
        if (o.have_dt) {
            cfg->sim.dt = o.dt;
        }
        if (o.have_t) {
            cfg->t_final = o.t_final;
        }
        apply_solver_options(&o, cfg, o.solver || o.approx);
        if (!o.peers || v == 0) {
            option_use_note(&u, cfg);
        }
    }
    option_use_check(&u, o.peers ? "variant this bench runs (--peers: the first)"
                                 : "variant of this bench");
    cli_trap_pop(&t);
    printf("# ccb bench %s: median of %d runs of the stepping loop (libccb %s, %s)\n", cs->name,
           o.repeat, ccb_version(), ccb_revision());
    if (!o.peers) {
        printf("%-22s %-9s %-8s %-12s %-14s %-12s %-10s %s\n", "variant", "dt [s]", "steps",
               "wall [s]", "per step [us]", "steps/s", "mean it.", "status");
    }
    int fails = 0;
    strbuf split = {0};
    for (int v = 0; v < n; ++v) {
        run_config cfg = list[v];
        char variant[64];
        variant_name(&cfg, variant, sizeof variant);
        if (o.peers) { /* the first variant against MuJoCo */
            snprintf(cfg.label, sizeof cfg.label, "bench-%s", variant);
            free(split.s);
            free(list);
            return bench_peers(cs, &cfg, variant, o.repeat);
        }
        snprintf(cfg.label, sizeof cfg.label, "bench-%s", variant);
        int ok = 1;
        if (bench_one(&cfg, variant, o.repeat, &split, &ok) != 0) {
            free(split.s);
            free(list);
            return EXIT_USAGE;
        }
        fails += !ok;
    }
    printf("\n# time split per step [us] (one more run, its solver phases timed): geometry query, "
           "problem assembly, "
           "Newton: Hessian assembly, factorization + solve, line search (incl. J dv), "
           "evaluation at the new iterate, rest of the solve\n");
    printf("%-22s %-9s %-9s %-9s %-9s %-9s %-9s %-9s %-9s\n", "variant", "contacts", "geometry",
           "problem", "assemble", "factor", "l.search", "eval", "other");
    fputs(split.s ? split.s : "", stdout);
    free(split.s);
    free(list);
    return fails ? EXIT_GATE : 0;
}
