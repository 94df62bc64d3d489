/* sim_registry: the registry of solver types (ccb/solver.h) and the registration of ODE methods
 * (ccb/ode.h; their table is ode.c's): both in the sim layer, which sees every kind, so that a
 * name is taken by one solver or one method only (docs/architecture.md §1, §4). */
#include <string.h>

#include "ccb/ode.h"
#include "ccb/sim.h"
#include "ccb/solver.h"
#include "internal.h"
#include "ode_internal.h"

static const ccb_solver_type* const k_builtin[] = {&ccb_solver_newton, &ccb_solver_tamsi,
                                                   &ccb_solver_ode};
#define NBUILTIN ((int)(sizeof k_builtin / sizeof k_builtin[0]))
static const ccb_solver_type* g_registered[CCB_SOLVER_MAX_REGISTERED];
static int g_nregistered;

int ccb_solver_count(void) {
    return NBUILTIN + g_nregistered;
}

const ccb_solver_type* ccb_solver_get(int i) {
    if (i < 0 || i >= ccb_solver_count()) {
        return NULL;
    }
    return i < NBUILTIN ? k_builtin[i] : g_registered[i - NBUILTIN];
}

const ccb_solver_type* ccb_solver_find(const char* name) {
    for (int i = 0; name && i < ccb_solver_count(); ++i) {
        if (strcmp(ccb_solver_get(i)->name, name) == 0) {
            return ccb_solver_get(i);
        }
    }
    return NULL;
}

const ccb_option_desc* ccb_solver_option(const ccb_solver_type* t, const char* name) {
    for (int i = 0; t && name && i < t->noptions; ++i) {
        if (strcmp(t->options[i].name, name) == 0) {
            return &t->options[i];
        }
    }
    return NULL;
}

/* A registered component's options are its own block (ccb/solver.h): a size of 1 to
 * CCB_OPTIONS_BLOCK_SIZE bytes when it has options, every descriptor inside it. */
static ccb_status check_options(const char* kind, const char* name, const ccb_option_desc* d,
                                int nd, size_t size, char* msg, size_t n) {
    if (size > CCB_OPTIONS_BLOCK_SIZE || (nd > 0 && size == 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "%s '%s': its options need a block of 1 to %d bytes (options_size %zu)",
                          kind, name, CCB_OPTIONS_BLOCK_SIZE, size);
    }
    return ccb_option_table_check(d, nd, size, msg, n);
}

ccb_status ccb_solver_register(const ccb_solver_type* t, char* msg, size_t n) {
    if (t == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "solver: NULL type");
    }
    if (t->abi != CCB_ABI_VERSION) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "solver '%s': built for ABI version %d, this libccb has %d",
                          t->name ? t->name : "?", t->abi, CCB_ABI_VERSION);
    }
    if (!ccb_component_name_ok(t->name) || t->title == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "solver: a name of a-z, 0-9 and '-' (got '%s') and a title are required",
                          t->name ? t->name : "(null)");
    }
    if ((t->solve == NULL) == (t->advance == NULL) || t->check == NULL || t->create == NULL ||
        t->destroy == NULL || t->stiction == NULL || t->last_error == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "solver '%s': check, create, destroy, stiction, last_error and exactly "
                          "one of solve and advance are required",
                          t->name);
    }
    if ((t->flags & CCB_SOLVER_ODE_METHODS) ||
        ((t->flags & CCB_SOLVER_ERROR_CONTROL) && t->solve == NULL)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "solver '%s': the ODE methods are the built-in ODE solver's; error "
                          "control of the convex step needs a frozen-step solver",
                          t->name);
    }
    if (ccb_solver_find(t->name) || ccb_ode_method_find(t->name)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "solver '%s': the name is taken", t->name);
    }
    const ccb_status s =
        check_options("solver", t->name, t->options, t->noptions, t->options_size, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (g_nregistered == CCB_SOLVER_MAX_REGISTERED) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "solver '%s': more than %d registered", t->name,
                          CCB_SOLVER_MAX_REGISTERED);
    }
    g_registered[g_nregistered++] = t;
    return CCB_OK;
}

ccb_status ccb_ode_method_register(ccb_ode_method t, char* msg, size_t n) {
    if (t == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE method: NULL type");
    }
    if (t->abi != CCB_ABI_VERSION) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE method '%s': built for ABI version %d, this libccb has %d",
                          t->name ? t->name : "?", t->abi, CCB_ABI_VERSION);
    }
    if (!ccb_component_name_ok(t->name) || t->title == NULL || t->advance == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "ODE method: a name of a-z, 0-9 and '-' (got '%s'), a title and an "
                          "advance are required",
                          t->name ? t->name : "(null)");
    }
    if (ccb_ode_method_find(t->name) || ccb_solver_find(t->name)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE method '%s': the name is taken", t->name);
    }
    const ccb_status s =
        check_options("ODE method", t->name, t->options, t->noptions, t->options_size, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    if (ccb_ode_method_add(t) != 0) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "ODE method '%s': more than %d registered",
                          t->name, CCB_ODE_MAX_REGISTERED);
    }
    return CCB_OK;
}
