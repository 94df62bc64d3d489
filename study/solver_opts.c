/* solver_opts: a run configuration's solver through the option descriptors of libccb's solver
 * and ODE-method registries (ccb/solver.h). The command line, the variant registry and the
 * manifest writer go through these functions; none of them knows a solver kind. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "study.h"

/* The ODE method of a configuration whose solver integrates with one, else NULL. */
static ccb_ode_method method_of(const ccb_sim_params* sp) {
    return sp->solver && (sp->solver->flags & CCB_SOLVER_ODE_METHODS) ? sp->ode.method : NULL;
}

const char* solver_cli_name(const run_config* cfg) {
    const ccb_solver_type* t = cfg->sim.solver;
    if (t->flags & CCB_SOLVER_ODE_METHODS) {
        return cfg->sim.ode.method->name;
    }
    return t->name;
}

void solver_cli_names(char* out, size_t n) {
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < ccb_solver_count() && at < n; ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        if (!(t->flags & CCB_SOLVER_ODE_METHODS)) {
            at += (size_t)snprintf(out + at, n - at, "%s%s", at ? ", " : "", t->name);
        }
    }
    for (int i = 0; i < ccb_ode_method_count() && at < n; ++i) {
        at +=
            (size_t)snprintf(out + at, n - at, "%s%s", at ? ", " : "", ccb_ode_method_get(i)->name);
    }
}

int solver_select(run_config* cfg, const char* name, char* msg, size_t n) {
    const ccb_solver_type* t = ccb_solver_find(name);
    ccb_ode_method m = NULL;
    if (t == NULL || (t->flags & CCB_SOLVER_ODE_METHODS)) {
        m = ccb_ode_method_find(name);
        t = NULL;
        for (int i = 0; m && i < ccb_solver_count() && t == NULL; ++i) {
            t = (ccb_solver_get(i)->flags & CCB_SOLVER_ODE_METHODS) ? ccb_solver_get(i) : NULL;
        }
    }
    if (t == NULL) {
        char names[256];
        solver_cli_names(names, sizeof names);
        snprintf(msg, n, "--solver expects one of %s (got '%s')", names, name);
        return -1;
    }
    ccb_sim_params sp;
    sp = cfg->sim;
    ccb_sim_params_set_solver(&sp, t, m);
    cfg->sim = sp;
    return 0;
}

/* Every descriptor named `name` of every solver and ODE method, with its owner's name. */
static int each_named(const char* name, const ccb_option_desc** d, const char** owner, int max) {
    int k = 0;
    for (int i = 0; i < ccb_solver_count(); ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        const ccb_option_desc* x = ccb_solver_option(t, name);
        if (x && k < max) {
            owner[k] = t->name;
            d[k++] = x;
        }
    }
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        ccb_ode_method m = ccb_ode_method_get(i);
        for (int j = 0; j < m->noptions && k < max; ++j) {
            if (strcmp(m->options[j].name, name) == 0) {
                owner[k] = m->name;
                d[k++] = &m->options[j];
            }
        }
    }
    return k;
}

void solver_option_where(const char* name, char* out, size_t n) {
    const ccb_option_desc* d[32];
    const char* owner[64];
    int k = each_named(name, d, owner, 32);
    for (int i = 0; i < k; ++i) { /* the ODE solver's own options: by its methods' names */
        const ccb_solver_type* t = ccb_solver_find(owner[i]);
        if (t && (t->flags & CCB_SOLVER_ODE_METHODS)) {
            const int nm = ccb_ode_method_count();
            if (k - 1 + nm > 64) {
                break;
            }
            memmove(owner + i + nm, owner + i + 1, (size_t)(k - i - 1) * sizeof owner[0]);
            for (int j = 0; j < nm; ++j) {
                owner[i + j] = ccb_ode_method_get(j)->name;
            }
            k += nm - 1;
            i += nm - 1;
        }
    }
    names_join(owner, k, ", ", " and ", 0, out, n);
}

void names_join(const char* const* names, int k, const char* sep, const char* last, int lead,
                char* out, size_t n) {
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < k && at < n; ++i) {
        const char* s = i == 0 && !lead ? "" : i > 0 && i + 1 == k ? last : sep;
        at += (size_t)snprintf(out + at, n - at, "%s%s", s, names[i]);
    }
}

int solver_option_validate(const char* name, const char* text, char* msg, size_t n) {
    const ccb_option_desc* d[32];
    const char* owner[32];
    const int k = each_named(name, d, owner, 32);
    ccb_sim_params scratch;
    for (int i = 0; i < k; ++i) {
        if (ccb_option_parse(d[i], text, &scratch, msg, n) == CCB_OK) {
            return 0;
        }
    }
    return k > 0 ? -1 : (snprintf(msg, n, "--%s: no solver has this option", name), -1);
}

int solver_set_option(run_config* cfg, const char* name, const char* text, char* msg, size_t n) {
    ccb_sim_params sp;
    sp = cfg->sim;
    size_t block = 0;
    const ccb_option_desc* d = ccb_sim_params_option(&sp, name, &block);
    if (d == NULL) {
        char where[256];
        solver_option_where(name, where, sizeof where);
        snprintf(msg, n, "--%s applies to --solver %s only; this run (%s) would ignore it", name,
                 where, solver_cli_name(cfg));
        return 1;
    }
    if (ccb_option_parse(d, text, (char*)&sp + block, msg, n) != CCB_OK) {
        return -1;
    }
    cfg->sim = sp;
    return 0;
}

int solver_option_requires(const run_config* cfg, const char* name, char* msg, size_t n) {
    ccb_sim_params sp;
    sp = cfg->sim;
    size_t block = 0;
    const ccb_option_desc* d = ccb_sim_params_option(&sp, name, &block);
    if (d == NULL || d->requires == NULL) {
        return 0;
    }
    const int off = d->requires[0] == '!'; /* "!flag": read only while the flag is off */
    const ccb_option_desc* r = ccb_sim_params_option(&sp, d->requires + off, &block);
    if (r && (ccb_option_value(r, (const char*)&sp + block) != 0) != off) {
        return 0;
    }
    snprintf(msg, n, "--%s applies to --solver %s %s --%s only; this run would ignore it", name,
             solver_cli_name(cfg), off ? "without" : "with", d->requires + off);
    return -1;
}

void solver_options_each(const run_config* cfg, solver_option_fn fn, void* user) {
    ccb_sim_params sp;
    sp = cfg->sim;
    const ccb_solver_type* t = sp.solver;
    ccb_ode_method m = method_of(&sp);
    for (int k = 0; k < 2; ++k) {
        const ccb_option_desc* d = k == 0 ? t->options : m ? m->options : NULL;
        const int nd = k == 0 ? t->noptions : m ? m->noptions : 0;
        const void* base = (const char*)&sp + (k == 0 ? ccb_sim_params_solver_block(t)
                                                      : ccb_sim_params_method_block(m));
        for (int i = 0; i < nd; ++i) {
            char text[64];
            ccb_option_format(&d[i], base, text, sizeof text);
            const double v = ccb_option_value(&d[i], base);
            fn(user, &d[i], text, v == d[i].def);
        }
    }
}

void run_config_solver_normalize(run_config* cfg) {
    const ccb_sim_params sp = cfg->sim;
    const ccb_sim_params d = ccb_sim_params_default();
    ccb_sim_params clean = sp; /* the step, the case's settings: kept */
    clean.newton = d.newton;
    clean.problem.delassus = d.problem.delassus;
    run_sim_solver_part(&clean, &d);
    ccb_sim_params_set_solver(&clean, sp.solver, method_of(&sp));
    clean.approx = (sp.solver->flags & CCB_SOLVER_CONVEX) ? sp.approx : d.approx;
    const ccb_ode_method m = method_of(&sp);
    for (int k = 0; k < 2; ++k) {
        const ccb_option_desc* dd = k == 0 ? sp.solver->options : m ? m->options : NULL;
        const int nd = k == 0 ? sp.solver->noptions : m ? m->noptions : 0;
        const size_t block =
            k == 0 ? ccb_sim_params_solver_block(sp.solver) : ccb_sim_params_method_block(m);
        for (int i = 0; i < nd; ++i) {
            ccb_option_store(&dd[i], (char*)&clean + block,
                             ccb_option_value(&dd[i], (const char*)&sp + block));
        }
    }
    cfg->sim = clean;
}

int solver_configure(run_config* cfg, const char* solver, const char* words, char* msg, size_t n) {
    if (solver && solver_select(cfg, solver, msg, n) != 0) {
        return -1;
    }
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", words ? words : "") >= (int)sizeof buf) {
        snprintf(msg, n, "solver options '%.60s...': too long", words);
        return -1;
    }
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char* eq = strchr(w, '=');
        if (eq) {
            *eq = '\0';
        }
        if (solver_set_option(cfg, w, eq ? eq + 1 : NULL, msg, n) != 0) {
            return -1;
        }
    }
    return 0;
}
