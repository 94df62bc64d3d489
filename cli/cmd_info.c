/* cmd_info: `ccb list` and `ccb info CASE|SOLVER`. */
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

/* ---- list / info -------------------------------------------------------------------------------
 * */

int cmd_list(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "", &o,
               "usage: ccb list\n\nLists the cases and their studies, the solver variants (with "
               "their sets and the cases they apply to) and the approximations.\n");
    if (o.npos) {
        die_usage("list takes no arguments");
    }
    for (int i = 0; i < case_count(); ++i) {
        const case_desc* cs = case_get(i);
        printf("%-12s %s\n", cs->name, cs->title);
        for (int s = 0; s < case_nstudies(cs); ++s) {
            const case_study* st = case_study_at(cs, s);
            printf("    study %-16s %s (%s)\n", st->name, st->title, st->figure);
        }
    }
    printf("\nvariants (ccb run --variant NAME; sets for --variants: convex, paper, peers, all =\n"
           "every variant but the peers):\n");
    for (int i = 0; i < variant_count(); ++i) {
        variant_def v;
        variant_get(i, &v);
        char sets[32];
        snprintf(sets, sizeof sets, "%s%s%s%s", v.sets & VSET_CONVEX ? "convex" : "",
                 (v.sets & VSET_CONVEX) && (v.sets & VSET_PAPER) ? "," : "",
                 v.sets & VSET_PAPER ? "paper" : "", v.sets & VSET_PEER ? "peers" : "");
        char cases[128] = "";
        size_t len = 0;
        int all = 1;
        for (int c = 0; c < case_count(); ++c) { /* the cases it applies to */
            if (variant_applies(&v, case_get(c))) {
                len += (size_t)snprintf(cases + len, sizeof cases - len, "%s%s", len ? " " : "",
                                        case_get(c)->name);
                len = len < sizeof cases ? len : sizeof cases - 1;
            } else {
                all = 0;
            }
        }
        printf("  %-19s %-8s %-13s %-32s %s\n", v.name,
               v.kind == VARIANT_ADAPTIVE ? "adaptive" : "fixed", sets[0] ? sets : "-",
               all ? "every case" : cases, v.title);
    }
    printf("\napproximations:");
    for (int i = 0; i < ccb_approx_count(); ++i) {
        printf(" %s", ccb_approx_get(i)->name);
    }
    printf("\nsolvers (ccb info SOLVER):");
    for (int i = 0; i < ccb_solver_count(); ++i) {
        printf(" %s", ccb_solver_get(i)->name);
    }
    printf("\nODE methods (--solver METHOD):");
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        printf(" %s", ccb_ode_method_get(i)->name);
    }
    printf("\n");
    return 0;
}

static void peer_line(const char* key, const char* value, void* user) {
    (void)user;
    printf("  %-18s %s\n", key, value);
}

/* `ccb info VARIANT` of a peer variant (reference/peers/peer.h): the engine, whether this build
 * has it, its settings and parameter mapping with their sources, and the cases it applies to.
 * 0, or -1 if name is not a peer variant. */
static int info_peer(const char* name) {
    const peer_variant* pv = peer_variant_named(name);
    if (pv == NULL) {
        return -1;
    }
    const peer_engine* e = pv->engine;
    const char* why = e->absent();
    printf("%s — peer variant: %s\n\nengine: %s %s (Debian: %s)%s%s\n", pv->name, pv->title,
           e->name, why ? "" : e->version(), e->package, why ? "; not here: " : "", why ? why : "");
    printf("\nsettings and parameter mapping (reference/peers, docs/speed.md §3); h is the "
           "case's dt:\n");
    e->describe(0.0, &pv->options, peer_line, NULL);
    printf("\ncases it applies to (those that observe a peer run):");
    for (int i = 0; i < case_count(); ++i) {
        if (case_get(i)->peer_observe) {
            printf(" %s", case_get(i)->name);
        }
    }
    printf("\n");
    return 0;
}

int cmd_info(int argc, char** argv) {
    opts o;
    parse_opts(
        argc, argv, 2, "", &o,
        "usage: ccb info CASE|SOLVER|PEER\n\nPrints the case's parameters (default, unit, valid "
        "range, source tag), observables, studies, gates and documented modelling choices;\n"
        "or a solver's or ODE method's options (from its option descriptors) and the "
        "choices it documents.\n");
    if (o.npos != 1) {
        die_usage("info needs exactly one CASE or SOLVER");
    }
    if (case_find(o.pos[0]) == NULL && info_peer(o.pos[0]) == 0) {
        return 0;
    }
    if (case_find(o.pos[0]) == NULL && info_solver(o.pos[0]) == 0) {
        return 0;
    }
    const case_desc* cs = need_case(o.pos[0]);
    printf("%s — %s\n%s\n\n", cs->name, cs->title, cs->paper);
    printf("parameters (--set name=value):\n");
    printf("  %-10s %-10s %-7s %-22s %-12s %s\n", "name", "default", "unit", "valid range",
           "source", "meaning");
    for (int i = 0; i < cs->nparams; ++i) {
        const case_param* p = &cs->params[i];
        char range[64];
        snprintf(range, sizeof range, "%s%g, %g%s%s", p->lo_open ? "(" : "[", p->lo, p->hi,
                 p->hi_open ? ")" : "]", p->integer ? " int" : "");
        printf("  %-10s %-10g %-7s %-22s %-12s %s%s%s%s\n", p->name, p->def, p->unit, range, p->tag,
               p->meaning, p->read_if ? " (read only by the runs with " : "",
               p->read_if ? p->read_if : "", p->read_if ? ")" : "");
    }
    printf("\nrun defaults: approximation %s, dt = %g s, t_final = %g s\n", cs->approx_default,
           cs->dt_default, cs->t_final_default);
    printf("approximations (--approx):");
    for (int i = 0; i < ccb_approx_count(); ++i) {
        printf(" %s", ccb_approx_get(i)->name);
    }
    printf("\nvariants that apply (studies, ccb compare):");
    for (int i = 0; i < variant_count(); ++i) {
        variant_def v;
        variant_get(i, &v);
        if (variant_applies(&v, cs)) {
            printf(" %s", v.name);
        }
    }
    if (cs->no_variants) { /* the case declines these (case_desc.no_variants) */
        printf("\nvariants it declines: %s: %s", cs->no_variants,
               cs->no_variants_why ? cs->no_variants_why : "");
    }
    printf("\n\nobservables (trajectory.csv columns after t, q, v):");
    for (int i = 0; i < cs->nobs; ++i) {
        printf("%s %s", i ? "," : "", cs->obs_names[i]);
    }
    printf("\n\nstudies:\n");
    for (int s = 0; s < case_nstudies(cs); ++s) {
        const case_study* st = case_study_at(cs, s);
        printf("  %-16s %s (%s)\n", st->name, st->title, st->figure);
    }
    char path[PATH_MAX];
    suite_gate_file(cs, path, sizeof path);
    ccb_gate_result* g = calloc(SUITE_MAX_GATES, sizeof *g);
    int ng = 0;
    char msg[512] = "out of memory";
    if (g && ccb_gates_evaluate(path, 0, suite_no_metric, NULL, g, SUITE_MAX_GATES, &ng, msg,
                                sizeof msg) == 0) {
        printf("\ngates (%s; tier: quick = make test, full = the papers' settings, both):\n", path);
        for (int i = 0; i < ng; ++i) {
            char bound[96];
            ccb_gate_bound(&g[i], bound, sizeof bound);
            printf("  %-18s %-5s %s %s — %s\n", g[i].id, ccb_gate_tier_name(g[i].tiers),
                   g[i].metric, bound, g[i].description);
        }
    } else {
        printf("\ngates: %s\n", msg);
    }
    free(g);
    printf("\nmodelling choices ([default?] items of cases.md and solver defaults):\n");
    for (int i = 0; i < cs->nnotes; ++i) {
        printf("  - %s\n", cs->notes[i]);
    }
    printf("\nsolvers (--solver; `ccb info SOLVER` lists the options and choices of one):\n");
    for (int i = 0; i < ccb_solver_count(); ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        printf("  %-8s %s (%s)\n", t->name, t->title, t->reference ? t->reference : "");
    }
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        ccb_ode_method m = ccb_ode_method_get(i);
        printf("  %-8s ODE method: %s (%s)\n", m->name, m->title, m->reference ? m->reference : "");
    }
    return 0;
}

/* One option descriptor as a line of `ccb info SOLVER`. */
void print_option(const ccb_option_desc* d) {
    char def[64], range[96] = "";
    ccb_option_format_default(d, def, sizeof def);
    if (d->type == CCB_OPT_REAL || d->type == CCB_OPT_INT) {
        snprintf(range, sizeof range, "%s%g, %g]%s", d->min_open ? "(" : "[", d->min, d->max,
                 d->type == CCB_OPT_INT ? " int" : "");
    } else if (d->type == CCB_OPT_ENUM) {
        size_t at = 0;
        for (int k = 0; d->values[k] && at < sizeof range; ++k) {
            at +=
                (size_t)snprintf(range + at, sizeof range - at, "%s%s", k ? "|" : "", d->values[k]);
        }
    } else {
        snprintf(range, sizeof range, "%s", d->type == CCB_OPT_FLAG ? "flag" : "on|off");
    }
    const int off = d->requires && d->requires[0] == '!';
    printf("  --%-15s %-10s %-6s %-24s %s%s%s%s\n", d->name, def, d->unit, range, d->doc,
           d->requires ? (off ? " (without --" : " (with --") : "",
           d->requires ? d->requires + off : "", d->requires ? ")" : "");
}

/* `ccb info SOLVER`: a solver or ODE method, its option descriptors and its documented choices. */
int info_solver(const char* name) {
    const ccb_solver_type* t = ccb_solver_find(name);
    ccb_ode_method m = t ? NULL : ccb_ode_method_find(name);
    if (t == NULL && m == NULL) {
        return -1;
    }
    printf("%s — %s %s\n%s\n", name, m ? "ODE method:" : "solver:", m ? m->title : t->title,
           m ? m->reference : t->reference);
    printf("\noptions (name, default, unit, range, meaning):\n");
    const ccb_option_desc* d = m ? m->options : t->options;
    const int nd = m ? m->noptions : t->noptions;
    for (int i = 0; i < nd; ++i) {
        print_option(&d[i]);
    }
    if (m || (t->flags & CCB_SOLVER_ODE_METHODS)) {
        const ccb_solver_type* ode = NULL;
        for (int i = 0; i < ccb_solver_count(); ++i) {
            ode = (ccb_solver_get(i)->flags & CCB_SOLVER_ODE_METHODS) ? ccb_solver_get(i) : ode;
        }
        if (m && ode) {
            printf("  and those of the %s solver that runs it:\n", ode->name);
            for (int i = 0; i < ode->noptions; ++i) {
                print_option(&ode->options[i]);
            }
        }
    }
    if (nd == 0) {
        printf("  (none)\n");
    }
    const unsigned fl = m ? 0u : t->flags;
    printf("\nreads: %s%s%s\n",
           (fl & CCB_SOLVER_CONVEX) ? "--approx (a convex approximation) " : "",
           (fl & CCB_SOLVER_REGULARIZED) || m ? "--friction (the regularized friction law) " : "",
           (fl & CCB_SOLVER_ERROR_CONTROL) ? "error control of the convex step" : "");
    const char* notes = m ? m->notes : t->notes;
    if (notes) {
        printf("\nchoices the papers or the spec leave open, and the defaults taken:\n  %s\n",
               notes);
    }
    return 0;
}
