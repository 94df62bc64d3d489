/* names: the name table of libccb's enumerations (ccb/names.h). Each row lists the names in the
 * order of the enumeration's values 0, 1, ...; the enumerations are contiguous from 0. */
#include "ccb/names.h"

#include <stdio.h>
#include <string.h>

typedef struct name_row {
    const char* title;
    const char* const* names; /* NULL-ended */
} name_row;

const char* const ccb_names_friction[] = {"lin", "quad", "stribeck5", "atan", NULL};
const char* const ccb_names_coupling[] = {"two-way", "one-way", NULL};
const char* const ccb_names_tamsi_lu[] = {"auto", "umfpack", "dense", NULL};
const char* const ccb_names_ie_newton[] = {"full", "quasi", NULL};
const char* const ccb_names_ie_estimator[] = {"trapezoid", "doubling", NULL};
const char* const ccb_names_ie_fixed[] = {"halves", "drake", NULL};
const char* const ccb_names_gsl_method[] = {"rk8pd", "rkf45", "rkck", "msadams", NULL};
const char* const ccb_names_linear_solver[] = {"auto", "cholmod", "dense", "block", NULL};
const char* const ccb_names_stop_scale[] = {"step", "momentum", NULL};
const char* const ccb_names_delassus[] = {"diag", "full", NULL};

static const name_row k_rows[CCB_ENUM_COUNT] = {
    [CCB_ENUM_FRICTION] = {"regularized friction", ccb_names_friction},
    [CCB_ENUM_COUPLING] = {"TAMSI coupling", ccb_names_coupling},
    [CCB_ENUM_TAMSI_LU] = {"TAMSI linear solver", ccb_names_tamsi_lu},
    [CCB_ENUM_IE_NEWTON] = {"implicit Euler Newton variant", ccb_names_ie_newton},
    [CCB_ENUM_IE_ESTIMATOR] = {"implicit Euler error estimate", ccb_names_ie_estimator},
    [CCB_ENUM_IE_FIXED] = {"implicit Euler fixed-step control", ccb_names_ie_fixed},
    [CCB_ENUM_GSL_METHOD] = {"GSL method", ccb_names_gsl_method},
    [CCB_ENUM_LINEAR_SOLVER] = {"Newton linear solver", ccb_names_linear_solver},
    [CCB_ENUM_STOP_SCALE] = {"stopping scale", ccb_names_stop_scale},
    [CCB_ENUM_DELASSUS] = {"Delassus approximation", ccb_names_delassus},
};

/* Each module that owns one of these enumerations asserts that its values are 0, 1, ... in the
 * order of its row here (friction.c, tamsi.c, ode.c, newton.c, problem.c): names.c is in the
 * base layer and includes none of them (docs/architecture.md §1). */

const char* ccb_enum_name(ccb_enum e, int value) {
    if ((int)e < 0 || e >= CCB_ENUM_COUNT || value < 0) {
        return NULL;
    }
    for (int i = 0; i <= value; ++i) {
        if (k_rows[e].names[i] == NULL) {
            return NULL;
        }
    }
    return k_rows[e].names[value];
}

const char* const* ccb_enum_names(ccb_enum e) {
    return ((int)e >= 0 && e < CCB_ENUM_COUNT) ? k_rows[e].names : NULL;
}

ccb_status ccb_enum_value(ccb_enum e, const char* name, int* value) {
    if ((int)e < 0 || e >= CCB_ENUM_COUNT || name == NULL || value == NULL) {
        return CCB_E_INVALID;
    }
    for (int i = 0; k_rows[e].names[i]; ++i) {
        if (strcmp(k_rows[e].names[i], name) == 0) {
            *value = i;
            return CCB_OK;
        }
    }
    return CCB_E_INVALID;
}

void ccb_enum_list(ccb_enum e, const char* sep, char* out, size_t n) {
    if (n == 0) {
        return;
    }
    out[0] = '\0';
    if ((int)e < 0 || e >= CCB_ENUM_COUNT) {
        return;
    }
    size_t len = 0;
    for (int i = 0; k_rows[e].names[i] && len + 1 < n; ++i) {
        const int w = snprintf(out + len, n - len, "%s%s", i ? sep : "", k_rows[e].names[i]);
        if (w < 0) {
            return;
        }
        len += (size_t)w;
    }
}

const char* ccb_enum_title(ccb_enum e) {
    return ((int)e >= 0 && e < CCB_ENUM_COUNT) ? k_rows[e].title : NULL;
}
