/* variant: the registry of named solver variants (ARCHITECTURE.md "Variants are data").
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

#include "case.h"
#include "mujoco_peer.h"

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
/* The continuous-model integrators apply where their cost is bounded: implicit Euler's
 * finite-difference Jacobian on the clutter's 240 velocities and 5000 contacts, and on the coin's
 * 300-8000 faces at dt = 1e-4, takes minutes per run. */
#define IE_CASES "conveyor sphere rod box"
static const variant_def k_solvers[] = {
    /* the consistent convex approximations with error control (CENIC; formulation-convex §15.4
     * says why not SAP and Similar) */
    {"lagged-ec", "Lagged, error control by step doubling (CENIC)", VSET_CONVEX,
     VARIANT_ADAPTIVE, "*", &ccb_approx_lagged, {CCB_SOLVER_NEWTON, 0, 0, 0, 0, 1, 0},
     LEVELS(k_levels_ec), LEVELS(k_levels_ec_quick)},
    {"lagged-reg-ec", "regularized Lagged, error control by step doubling", VSET_CONVEX,
     VARIANT_ADAPTIVE, "*", &ccb_approx_lagged_reg, {CCB_SOLVER_NEWTON, 0, 0, 0, 0, 1, 0},
     LEVELS(k_levels_ec), LEVELS(k_levels_ec_quick)},
    {"tamsi", "TAMSI, two-way coupling, TALS (TAMSI paper)", VSET_PAPER, VARIANT_FIXED, "*",
     NULL, {CCB_SOLVER_TAMSI, 0, 0, 0, 1, 0, 0}, NULL, 0, NULL, 0},
    {"tamsi-1way", "TAMSI, one-way coupling (normal forces lagged), TALS", 0, VARIANT_FIXED, "box",
     NULL, {CCB_SOLVER_TAMSI, 0, 1, 0, 1, 0, 0}, NULL, 0, NULL, 0},
    {"tamsi-notals", "TAMSI without TALS (full Newton steps)", 0, VARIANT_FIXED, "box", NULL,
     {CCB_SOLVER_TAMSI, 0, 0, 0, 0, 0, 0}, NULL, 0, NULL, 0},
    {"ie-fn", "implicit Euler, full Newton, fixed step", VSET_PAPER, VARIANT_FIXED, IE_CASES, NULL,
     {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 0, 0, 0, 0}, NULL, 0, NULL, 0},
    {"ie-fn-tals", "implicit Euler, full Newton + TALS, fixed step", VSET_PAPER, VARIANT_FIXED,
     IE_CASES, NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 0, 1, 0, 0}, NULL, 0, NULL, 0},
    {"ie-qn", "implicit Euler, quasi Newton, fixed step", VSET_PAPER, VARIANT_FIXED, IE_CASES, NULL,
     {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 1, 0, 0, 0}, NULL, 0, NULL, 0},
    {"ie-qn-tals", "implicit Euler, quasi Newton + TALS, fixed step", VSET_PAPER, VARIANT_FIXED,
     IE_CASES, NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 1, 1, 0, 0}, NULL, 0, NULL, 0},
    {"ie-fn-ec", "implicit Euler, full Newton, error control", VSET_PAPER, VARIANT_ADAPTIVE,
     "sphere box", NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 0, 0, 1, 0}, LEVELS(k_levels_ie), NULL, 0},
    {"ie-fn-ec-tals", "implicit Euler, full Newton + TALS, error control", VSET_PAPER,
     VARIANT_ADAPTIVE, "sphere box gripper", NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 0, 1, 1, 0},
     LEVELS(k_levels_ie), NULL, 0},
    {"ie-qn-ec", "implicit Euler, quasi Newton, error control", VSET_PAPER, VARIANT_ADAPTIVE,
     "sphere box", NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 1, 0, 1, 0}, LEVELS(k_levels_ie), NULL, 0},
    {"ie-qn-ec-tals", "implicit Euler, quasi Newton + TALS, error control", VSET_PAPER,
     VARIANT_ADAPTIVE, "sphere box", NULL, {CCB_SOLVER_ODE, CCB_ODE_IE, 0, 1, 1, 1, 0},
     LEVELS(k_levels_ie), NULL, 0},
    {"rk3", "explicit RK3 (Drake's tableau), fixed step", 0, VARIANT_FIXED, "box", NULL,
     {CCB_SOLVER_ODE, CCB_ODE_RK3, 0, 0, 0, 0, 0}, NULL, 0, NULL, 0},
    {"gsl-rk8pd", "GSL rk8pd, adaptive (reference integrator)", 0, VARIANT_ADAPTIVE, "box", NULL,
     {CCB_SOLVER_ODE, CCB_ODE_GSL, 0, 0, 0, 0, 0}, LEVELS(k_levels_gsl), NULL, 0},
};
#define NSOLVERS ((int)(sizeof k_solvers / sizeof k_solvers[0]))

/* The peers: listed when this build has them (reference/peers/mujoco; CMake finds MuJoCo). They
 * apply to the cases whose descriptor observes a peer run (case_desc.peer_observe). */
static const variant_def k_peers[] = {
    {"mujoco", "MuJoCo 2.2 Newton, elliptic cones; stiffness as time constant 2 dt (peer)",
     VSET_PEER, VARIANT_FIXED, "*", NULL, {CCB_SOLVER_NEWTON, 0, 0, 0, 0, 0, RUN_PEER_MUJOCO},
     NULL, 0, NULL, 0},
    {"mujoco-k", "MuJoCo 2.2 Newton, elliptic cones; ccb's k used literally (peer)", VSET_PEER,
     VARIANT_FIXED, "*", NULL, {CCB_SOLVER_NEWTON, 0, 0, 0, 0, 0, RUN_PEER_MUJOCO_K}, NULL, 0,
     NULL, 0},
};
static int npeers(void) {
    return peer_mujoco_available() ? (int)(sizeof k_peers / sizeof k_peers[0]) : 0;
}

/* Cases of the built-in approximations ("*" for any other, registered ones too): SAP and Similar
 * do not apply to the coin, whose sliding faces they lift off (case notes of coin.c). */
static const char* convex_cases(const char* name) {
    if (strcmp(name, "sap") == 0 || strcmp(name, "similar") == 0) {
        return "conveyor sphere rod box clutter gripper grasp";
    }
    return "*";
}
static int builtin_approx(const ccb_approx* a) {
    return a == &ccb_approx_sap || a == &ccb_approx_similar || a == &ccb_approx_lagged ||
           a == &ccb_approx_lagged_reg;
}

int variant_count(void) {
    return ccb_approx_count() + NSOLVERS + npeers();
}

int variant_get(int i, variant_def* out) {
    const int na = ccb_approx_count();
    if (i < 0 || i >= na + NSOLVERS + npeers()) {
        return -1;
    }
    if (i >= na + NSOLVERS) {
        *out = k_peers[i - na - NSOLVERS];
        return 0;
    }
    if (i >= na) {
        *out = k_solvers[i - na];
        return 0;
    }
    const ccb_approx* a = ccb_approx_get(i);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", a->name);
    out->title = a->title;
    out->sets = VSET_CONVEX | (builtin_approx(a) ? VSET_PAPER : 0u);
    out->kind = VARIANT_FIXED;
    out->cases = convex_cases(a->name);
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
    if (v->opts.peer != RUN_PEER_NONE && cs->peer_observe == NULL) {
        return 0;
    }
    return strcmp(v->cases, "*") == 0 || in_list(v->cases, cs->name);
}

void variant_configure(const variant_def* v, run_config* cfg, double level) {
    solver_cfg* s = &cfg->solver;
    solver_cfg_default(s);
    if (v->approx) {
        cfg->approx = v->approx;
        s->ec.enabled = v->opts.error_control; /* formulation-convex §15 */
        if (v->opts.error_control && !isnan(level)) {
            s->ec.accuracy = level;
        }
        return;
    }
    const variant_opts* o = &v->opts;
    s->solver = o->solver;
    s->peer = o->peer;
    s->tamsi.coupling = o->one_way ? CCB_TAMSI_ONE_WAY : CCB_TAMSI_TWO_WAY;
    s->tamsi.tals = s->ode.tals = o->tals;
    s->ode.method = o->method;
    s->ode.newton = o->quasi ? CCB_IE_QUASI_NEWTON : CCB_IE_FULL_NEWTON;
    s->ode.error_control = o->error_control;
    if (!isnan(level)) { /* the accuracy of an adaptive variant (NAN: the library's default) */
        if (o->method == CCB_ODE_GSL) {
            s->ode.gsl_atol = s->ode.gsl_rtol = level;
        } else {
            s->ode.accuracy = level;
        }
    }
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
            if (strncmp(w, "mujoco", 6) == 0 && !peer_mujoco_available()) {
                snprintf(msg, n, "variant '%s': this ccb was built without MuJoCo (install "
                                 "libmujoco-dev and rebuild)", w);
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

void variant_name(const run_config* cfg, char* out, size_t n) {
    const solver_cfg* s = &cfg->solver;
    if (s->peer != RUN_PEER_NONE) {
        snprintf(out, n, "%s", s->peer == RUN_PEER_MUJOCO_K ? "mujoco-k" : "mujoco");
        return;
    }
    switch (s->solver) {
    case CCB_SOLVER_NEWTON:
        snprintf(out, n, "%s%s", cfg->approx->name, s->ec.enabled ? "-ec" : "");
        return;
    case CCB_SOLVER_TAMSI:
        snprintf(out, n, "tamsi%s%s", s->tamsi.coupling == CCB_TAMSI_ONE_WAY ? "-1way" : "",
                 s->tamsi.tals ? "" : "-notals");
        return;
    case CCB_SOLVER_ODE:
        if (s->ode.method == CCB_ODE_IE) {
            snprintf(out, n, "ie-%s%s%s", s->ode.newton == CCB_IE_QUASI_NEWTON ? "qn" : "fn",
                     s->ode.error_control ? "-ec" : "", s->ode.tals ? "-tals" : "");
        } else if (s->ode.method == CCB_ODE_RK3) {
            snprintf(out, n, "rk3");
        } else {
            snprintf(out, n, "gsl-%s", ccb_ode_gsl_method_name(s->ode.gsl_method));
        }
        return;
    }
    snprintf(out, n, "unknown");
}
