/* variant: the registry of named solver variants (docs/architecture.md §4.5).
 *
 * A variant is a concrete solver configuration with a name: a convex approximation solved by
 * Newton ("lagged"), TAMSI with its options ("tamsi-1way"), implicit Euler on the continuous
 * model ("ie-qn-ec-tals"), explicit RK3 or a GSL reference. Every entry knows the cases it
 * applies to and the named sets it belongs to (convex, paper; all = every entry). The convex
 * variants are not listed here: they are the approximation registry of libccb, read at every
 * call, so an approximation added with ccb_approx_register is a variant of every case at once.
 *
 * Studies, `ccb compare`, `ccb bench`, `ccb run --variant` and `ccb list` enumerate this table;
 * variant_name() maps a run configuration back to its registry name (meta.json, tables). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "study.h"

/* Accuracy levels of the adaptive variants in the standard studies (work against precision):
 * implicit Euler's error target a (spec formulation-tamsi-hydro §B.6) and GSL's tolerance (rk8pd
 * with atol = rtol). */
static const double k_levels_ie[] = {1e-1, 1e-2, 1e-3, 1e-4};
static const double k_levels_gsl[] = {1e-4, 1e-6, 1e-8};
/* The error-controlled convex step's target a on the local error of q [m, rad]
 * (formulation-convex §15.3); the quick tier's two: where it starts to refine on most cases, and two decades deeper. */
static const double k_levels_ec[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
static const double k_levels_ec_quick[] = {1e-4, 1e-6};

#define LEVELS(a) a, (int)(sizeof a / sizeof a[0])
#define ADAPTIVE_LEVELS(opt, a, q) .level = opt, LEVELS_OF(a, levels), LEVELS_OF(q, levels_quick)
#define LEVELS_OF(a, f) .f = a, .n##f = (int)(sizeof a / sizeof a[0])
static const variant_def k_solvers[] = {
    /* the consistent convex approximations with error control (CENIC; formulation-convex §15.4
     * says why not SAP and Similar) */
    {.name = "lagged-ec",
     .title = "Lagged, error control by step doubling (CENIC)",
     .sets = VSET_CONVEX,
     .kind = VARIANT_ADAPTIVE,
     .approx = &ccb_approx_lagged,
     .options = "error-control",
     ADAPTIVE_LEVELS("accuracy", k_levels_ec, k_levels_ec_quick)},
    {.name = "lagged-reg-ec",
     .title = "regularized Lagged, error control by step doubling",
     .sets = VSET_CONVEX,
     .kind = VARIANT_ADAPTIVE,
     .approx = &ccb_approx_lagged_reg,
     .options = "error-control",
     ADAPTIVE_LEVELS("accuracy", k_levels_ec, k_levels_ec_quick)},
    {.name = "tamsi",
     .title = "TAMSI, two-way coupling, TALS (TAMSI paper)",
     .sets = VSET_PAPER,
     .solver = "tamsi",
     .options = "coupling=two-way tals=on"},
    {.name = "tamsi-1way",
     .title = "TAMSI, one-way coupling (normal forces lagged), TALS",
     .opt_in = 1,
     .solver = "tamsi",
     .options = "coupling=one-way tals=on"},
    {.name = "tamsi-notals",
     .title = "TAMSI without TALS (full Newton steps)",
     .opt_in = 1,
     .solver = "tamsi",
     .options = "coupling=two-way tals=off"},
    {.name = "ie-fn",
     .title = "implicit Euler, full Newton, fixed step",
     .sets = VSET_PAPER,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=full tals=off"},
    {.name = "ie-fn-tals",
     .title = "implicit Euler, full Newton + TALS, fixed step",
     .sets = VSET_PAPER,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=full tals=on"},
    {.name = "ie-qn",
     .title = "implicit Euler, quasi Newton, fixed step",
     .sets = VSET_PAPER,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=quasi tals=off"},
    {.name = "ie-qn-tals",
     .title = "implicit Euler, quasi Newton + TALS, fixed step",
     .sets = VSET_PAPER,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=quasi tals=on"},
    {.name = "ie-fn-ec",
     .title = "implicit Euler, full Newton, error control",
     .sets = VSET_PAPER,
     .kind = VARIANT_ADAPTIVE,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=full tals=off error-control",
     .level = "accuracy",
     LEVELS_OF(k_levels_ie, levels)},
    {.name = "ie-fn-ec-tals",
     .title = "implicit Euler, full Newton + TALS, error control",
     .sets = VSET_PAPER,
     .kind = VARIANT_ADAPTIVE,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=full tals=on error-control",
     .level = "accuracy",
     LEVELS_OF(k_levels_ie, levels)},
    {.name = "ie-qn-ec",
     .title = "implicit Euler, quasi Newton, error control",
     .sets = VSET_PAPER,
     .kind = VARIANT_ADAPTIVE,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=quasi tals=off error-control",
     .level = "accuracy",
     LEVELS_OF(k_levels_ie, levels)},
    {.name = "ie-qn-ec-tals",
     .title = "implicit Euler, quasi Newton + TALS, error control",
     .sets = VSET_PAPER,
     .kind = VARIANT_ADAPTIVE,
     .opt_in = 1,
     .solver = "ie",
     .options = "jacobian=quasi tals=on error-control",
     .level = "accuracy",
     LEVELS_OF(k_levels_ie, levels)},
    {.name = "rk3",
     .title = "explicit RK3 (Drake's tableau), fixed step",
     .opt_in = 1,
     .solver = "rk3"},
    {.name = "gsl-rk8pd",
     .title = "GSL rk8pd, adaptive (reference integrator)",
     .kind = VARIANT_ADAPTIVE,
     .opt_in = 1,
     .solver = "gsl",
     .options = "gsl-method=rk8pd",
     .level = "gsl-tol",
     LEVELS_OF(k_levels_gsl, levels)},
};
#define NSOLVERS ((int)(sizeof k_solvers / sizeof k_solvers[0]))

/* The peers (reference/peers/peer.h): listed when this build has their engine (CMake found its
 * package). They apply to the cases whose descriptor observes a peer run (case_desc.peer_observe). */
static const peer_variant* built_peer(int k) {
    for (int id = 1; id < PEER_COUNT; ++id) {
        const peer_variant* pv = peer_variant_of(id);
        if (pv && pv->engine->built() && k-- == 0) {
            return pv;
        }
    }
    return NULL;
}
static int npeers(void) {
    int n = 0;
    while (built_peer(n)) {
        n++;
    }
    return n;
}

static int builtin_solver(const ccb_solver_type* t) {
    return t == &ccb_solver_newton || t == &ccb_solver_tamsi || t == &ccb_solver_ode;
}
static int builtin_approx(const ccb_approx* a) {
    return a == &ccb_approx_sap || a == &ccb_approx_similar || a == &ccb_approx_lagged ||
           a == &ccb_approx_lagged_reg;
}

/* The solvers registered at run time (ccb_solver_register, a plugin): one variant each, on the
 * case's approximation if the solver minimizes the convex one. */
static int nregistered(void) {
    int n = 0;
    for (int i = 0; i < ccb_solver_count(); ++i) {
        n += !builtin_solver(ccb_solver_get(i));
    }
    return n;
}
static const ccb_solver_type* registered(int k) {
    for (int i = 0; i < ccb_solver_count(); ++i) {
        if (!builtin_solver(ccb_solver_get(i)) && k-- == 0) {
            return ccb_solver_get(i);
        }
    }
    return NULL;
}

/* The ODE methods registered at run time (ccb_ode_method_register, a plugin): one variant each,
 * run by the ODE solver (`--solver METHOD`), on every case as a registered solver. */
static int builtin_method(ccb_ode_method m) {
    return m == &ccb_ode_ie || m == &ccb_ode_rk3 || m == &ccb_ode_gsl;
}
static int nregistered_ode(void) {
    int n = 0;
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        n += !builtin_method(ccb_ode_method_get(i));
    }
    return n;
}
static ccb_ode_method registered_ode(int k) {
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        if (!builtin_method(ccb_ode_method_get(i)) && k-- == 0) {
            return ccb_ode_method_get(i);
        }
    }
    return NULL;
}

int variant_count(void) {
    return ccb_approx_count() + NSOLVERS + nregistered() + nregistered_ode() + npeers();
}

int variant_get(int i, variant_def* out) {
    const int na = ccb_approx_count(), nr = nregistered(), no = nregistered_ode();
    if (i < 0 || i >= na + NSOLVERS + nr + no + npeers()) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (i >= na + NSOLVERS + nr + no) {
        const peer_variant* pv = built_peer(i - na - NSOLVERS - nr - no);
        snprintf(out->name, sizeof out->name, "%s", pv->name);
        out->title = pv->title;
        out->sets = VSET_PEER;
        out->peer = pv->id;
        return 0;
    }
    if (i >= na + NSOLVERS + nr) {
        const ccb_ode_method m = registered_ode(i - na - NSOLVERS - nr);
        snprintf(out->name, sizeof out->name, "%s", m->name);
        out->title = m->title;
        out->solver = m->name;
        return 0;
    }
    if (i >= na + NSOLVERS) {
        const ccb_solver_type* t = registered(i - na - NSOLVERS);
        snprintf(out->name, sizeof out->name, "%s", t->name);
        out->title = t->title;
        out->solver = t->name;
        return 0;
    }
    if (i >= na) {
        *out = k_solvers[i - na];
        return 0;
    }
    const ccb_approx* a = ccb_approx_get(i);
    snprintf(out->name, sizeof out->name, "%s", a->name);
    out->title = a->title;
    out->sets = VSET_CONVEX | (builtin_approx(a) ? VSET_PAPER : 0u);
    out->kind = VARIANT_FIXED;
    out->approx = a;
    return 0;
}

int variant_find(const char* name, variant_def* out) {
    for (int i = 0; i < variant_count(); ++i) {
        if (variant_get(i, out) == 0 && strcmp(out->name, name) == 0) {
            return 0;
        }
    }
    return -1;
}

/* Word match of `word` in a space-separated list. */
static int in_list(const char* list, const char* word) {
    const size_t n = strlen(word);
    for (const char* p = strstr(list, word); p; p = strstr(p + 1, word)) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
            return 1;
        }
    }
    return 0;
}

int variant_applies(const variant_def* v, const case_desc* cs) {
    if (v->peer != RUN_PEER_NONE && cs->peer_observe == NULL) {
        return 0;
    }
    if (v->opt_in) { /* the case lists it */
        return cs->variants != NULL && in_list(cs->variants, v->name);
    }
    return cs->no_variants == NULL || !in_list(cs->no_variants, v->name);
}

void variant_configure(const variant_def* v, run_config* cfg, double level) {
    run_config_solver_default(cfg);
    cfg->peer = v->peer;
    if (v->approx) {
        cfg->sim.approx = v->approx;
    }
    char msg[256];
    if (solver_configure(cfg, v->solver, v->options, msg, sizeof msg) != 0) {
        /* the built-in table is checked by unit.variants; a registered solver has no words */
        study_log("internal error: variant %s: %s", v->name, msg);
        abort();
    }
    if (v->level && !isnan(level)) { /* the accuracy of an adaptive variant (NAN: its default) */
        char text[32];
        snprintf(text, sizeof text, "%.17g", level);
        if (solver_set_option(cfg, v->level, text, msg, sizeof msg) != 0) {
            study_log("internal error: variant %s: %s", v->name, msg);
            abort();
        }
    }
}

int variant_option_on(const variant_def* v, const char* name) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    variant_configure(v, &cfg, NAN);
    char msg[128];
    ccb_sim_params sp;
    sp = cfg.sim;
    size_t block = 0;
    const ccb_option_desc* d = ccb_sim_params_option(&sp, name, &block);
    (void)msg;
    return d && ccb_option_value(d, (const char*)&sp + block) != 0;
}

int variant_explicit(const variant_def* v) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    variant_configure(v, &cfg, NAN);
    return cfg.peer == RUN_PEER_NONE && (cfg.sim.solver->flags & CCB_SOLVER_ODE_METHODS) &&
           (cfg.sim.ode.method->flags & CCB_ODE_EXPLICIT);
}

static int set_of(const char* word, unsigned* set) {
    if (strcmp(word, "convex") == 0) {
        *set = VSET_CONVEX;
    } else if (strcmp(word, "paper") == 0) {
        *set = VSET_PAPER;
    } else if (strcmp(word, "peers") == 0) {
        *set = VSET_PEER;
    } else if (strcmp(word, "all") == 0) {
        *set = ~0u;
    } else {
        return -1;
    }
    return 0;
}

int variant_select(const char* spec, const case_desc* cs, variant_def* out, int max, char* msg,
                   size_t n) {
    char buf[512];
    if (strlen(spec) >= sizeof buf || spec[0] == '\0') {
        snprintf(msg, n, "variant list '%s': empty or too long", spec);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    int count = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        unsigned set = 0;
        const int is_set = set_of(w, &set) == 0;
        variant_def v;
        if (!is_set && variant_find(w, &v) != 0) {
            const peer_variant* pv = peer_variant_named(w);
            if (pv != NULL && !pv->engine->built()) {
                snprintf(msg, n, "variant '%s': %s", w, pv->engine->absent());
            } else {
                snprintf(msg, n,
                         "unknown variant '%s' (a name of `ccb list`, or a set: convex, paper, "
                         "peers, all)",
                         w);
            }
            return -1;
        }
        for (int i = 0; i < variant_count(); ++i) {
            if (variant_get(i, &v) != 0) {
                continue;
            }
            const int in_set = set == ~0u ? !(v.sets & VSET_PEER) : (v.sets & set) != 0;
            if (is_set ? !in_set : strcmp(v.name, w) != 0) {
                continue;
            }
            if (cs && !variant_applies(&v, cs)) {
                continue;
            }
            int dup = 0;
            for (int j = 0; j < count; ++j) {
                dup |= strcmp(out[j].name, v.name) == 0;
            }
            if (!dup) {
                if (count == max) {
                    snprintf(msg, n, "variant list '%s': more than %d variants", spec, max);
                    return -1;
                }
                out[count++] = v;
            }
        }
    }
    return count;
}

/* The discrete options (enumerations, switches, flags) of two configurations are equal. */
/* The options that tell the variants of one solver apart: every name in the option words of the
 * registry's variants of v's solver ("error-control" for Newton; coupling and tals for TAMSI).
 * Others (kappa, linear-solver, tolerances) refine a run without renaming it. */
static int names_variant(const variant_def* v, const char* name) {
    const char* sv = v->solver ? v->solver : "newton";
    for (int i = 0; i < NSOLVERS; ++i) {
        const variant_def* w = &k_solvers[i];
        if (strcmp(w->solver ? w->solver : "newton", sv) != 0 || w->options == NULL) {
            continue;
        }
        const size_t n = strlen(name);
        for (const char* p = strstr(w->options, name); p; p = strstr(p + 1, name)) {
            if ((p == w->options || p[-1] == ' ') && (p[n] == '=' || p[n] == ' ' || !p[n])) {
                return 1;
            }
        }
    }
    return 0;
}

typedef struct discrete_cmp {
    const variant_def* v;
    const run_config* other;
    int equal;
} discrete_cmp;
static void cmp_one(void* user, const ccb_option_desc* d, const char* text, int is_default) {
    (void)is_default;
    discrete_cmp* c = user;
    if (d->type == CCB_OPT_REAL || d->type == CCB_OPT_INT || !names_variant(c->v, d->name)) {
        return;
    }
    ccb_sim_params sp;
    sp = c->other->sim;
    size_t block = 0;
    const ccb_option_desc* e = ccb_sim_params_option(&sp, d->name, &block);
    char t2[64] = "";
    if (e) {
        ccb_option_format(e, (const char*)&sp + block, t2, sizeof t2);
    }
    c->equal &= e != NULL && strcmp(text, t2) == 0;
}

/* The fallback name: the solver's, then each of its discrete options off its default that tells
 * its variants apart: an enumeration by its value ("-one-way", "-rkf45"), a switch as "-NAME" or
 * "-noNAME", a flag as "-NAME". */
typedef struct name_buf {
    const variant_def* v;
    char* out;
    size_t n, at;
} name_buf;
static void name_one(void* user, const ccb_option_desc* d, const char* text, int is_default) {
    name_buf* b = user;
    if (is_default || d->type == CCB_OPT_REAL || d->type == CCB_OPT_INT || b->at >= b->n ||
        !names_variant(b->v, d->name)) {
        return;
    }
    const int on = strcmp(text, "on") == 0;
    b->at += (size_t)(d->type == CCB_OPT_ENUM
                          ? snprintf(b->out + b->at, b->n - b->at, "-%s", text)
                          : snprintf(b->out + b->at, b->n - b->at, "-%s%s",
                                     d->type == CCB_OPT_SWITCH && !on ? "no" : "", d->name));
}

void variant_name(const run_config* cfg, char* out, size_t n) {
    variant_def v;
    for (int i = 0; i < variant_count(); ++i) { /* the registry entry that configures this */
        if (variant_get(i, &v) != 0 || v.peer != cfg->peer) {
            continue;
        }
        if (v.peer != RUN_PEER_NONE) {
            snprintf(out, n, "%s", v.name);
            return;
        }
        run_config c;
        memset(&c, 0, sizeof c);
        c.sim.approx = cfg->sim.approx;
        variant_configure(&v, &c, NAN);
        if (c.sim.solver != cfg->sim.solver ||
            ((cfg->sim.solver->flags & CCB_SOLVER_ODE_METHODS) &&
             c.sim.ode.method != cfg->sim.ode.method) ||
            ((cfg->sim.solver->flags & CCB_SOLVER_CONVEX) && v.approx &&
             v.approx != cfg->sim.approx)) {
            continue;
        }
        discrete_cmp cmp = {&v, cfg, 1};
        solver_options_each(&c, cmp_one, &cmp);
        if (cmp.equal) {
            snprintf(out, n, "%s", v.name);
            return;
        }
    }
    /* not in the registry: the solver (or the approximation) and its options off their defaults */
    snprintf(out, n, "%s",
             (cfg->sim.solver->flags & CCB_SOLVER_CONVEX) ? cfg->sim.approx->name
                                                          : solver_cli_name(cfg));
    variant_def self;
    memset(&self, 0, sizeof self);
    self.solver = solver_cli_name(cfg);
    name_buf b = {&self, out, n, strlen(out)};
    solver_options_each(cfg, name_one, &b);
}

int variant_select_differentiable(const case_desc* cs, variant_def* out, int max, char* msg,
                                  size_t n) {
    variant_def all[64];
    const int nall = variant_select("convex", cs, all, 64, msg, n);
    int count = 0;
    for (int i = 0; i < nall && count < max; ++i) {
        const variant_def* v = &all[i];
        if (v->approx && v->kind == VARIANT_FIXED && v->solver == NULL && v->options == NULL &&
            v->peer == RUN_PEER_NONE) {
            out[count++] = *v;
        }
    }
    return nall < 0 ? -1 : count;
}
