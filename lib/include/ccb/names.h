/* ccb/names.h — the one table of names of libccb's enumerations.
 *
 * Every enumerated option has exactly one name, used by the command line (its options), by
 * meta.json (what a run used) and by the library's own name functions (ccb_friction_name, ...).
 * Solvers and ODE methods are not enumerations but registries of type objects (ccb/solver.h,
 * ccb/ode.h): their names are the types' own. A name is lower case and stable: scripts and tables key on it. */
#ifndef CCB_NAMES_H
#define CCB_NAMES_H

#include <stddef.h>

#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ccb_enum {
    CCB_ENUM_FRICTION = 0,  /* ccb_friction_model: lin, quad, stribeck5, atan */
    CCB_ENUM_COUPLING,      /* ccb_tamsi_coupling: two-way, one-way */
    CCB_ENUM_TAMSI_LU,      /* ccb_tamsi_linear_solver: auto, umfpack, dense */
    CCB_ENUM_IE_NEWTON,     /* ccb_ie_newton: full, quasi */
    CCB_ENUM_IE_ESTIMATOR,  /* ccb_ie_estimator: trapezoid, doubling */
    CCB_ENUM_IE_FIXED,      /* ccb_ie_fixed: halves, drake */
    CCB_ENUM_GSL_METHOD,    /* ccb_ode_gsl_method: rk8pd, rkf45, rkck, msadams */
    CCB_ENUM_LINEAR_SOLVER, /* ccb_linear_solver: auto, cholmod, dense */
    CCB_ENUM_STOP_SCALE,    /* ccb_stop_scale: step, momentum */
    CCB_ENUM_DELASSUS,      /* ccb_delassus: diag, full */
    CCB_ENUM_COUNT
} ccb_enum;

/* The rows themselves, NULL-ended (for the `values` of option descriptors, ccb/solver.h). */
CCB_API extern const char* const ccb_names_friction[];
CCB_API extern const char* const ccb_names_coupling[];
CCB_API extern const char* const ccb_names_tamsi_lu[];
CCB_API extern const char* const ccb_names_ie_newton[];
CCB_API extern const char* const ccb_names_ie_estimator[];
CCB_API extern const char* const ccb_names_ie_fixed[];
CCB_API extern const char* const ccb_names_gsl_method[];
CCB_API extern const char* const ccb_names_linear_solver[];
CCB_API extern const char* const ccb_names_stop_scale[];
CCB_API extern const char* const ccb_names_delassus[];

/* The name of `value` in enumeration e; NULL for an unknown value or enumeration. */
CCB_API const char* ccb_enum_name(ccb_enum e, int value);
/* The names of e, NULL-ended, in the order of its values (for option descriptors); NULL if
 * unknown. */
CCB_API const char* const* ccb_enum_names(ccb_enum e);
/* The value named `name` in e: CCB_OK, or CCB_E_INVALID (unknown name, NULL arguments). */
CCB_API ccb_status ccb_enum_value(ccb_enum e, const char* name, int* value);
/* The names of e joined by `sep` into out (for messages: "two-way|one-way"); truncated to n. */
CCB_API void ccb_enum_list(ccb_enum e, const char* sep, char* out, size_t n);
/* What the enumeration is, for messages ("TAMSI coupling"); NULL if unknown. */
CCB_API const char* ccb_enum_title(ccb_enum e);

#ifdef __cplusplus
}
#endif
#endif
