/* ccb/status.h — status codes, messages, log hook, version.
 *
 * Every fallible ccb function returns a ccb_status; results go through out-parameters. The
 * library never prints, exits or aborts on bad input: it returns a code and keeps a message
 * that names the object, the index, the offending value and what was expected
 * (e.g. "body 'box': mass must be finite and > 0 (got -1.5)"). */
#ifndef CCB_STATUS_H
#define CCB_STATUS_H

#include <stddef.h>

#if defined(CCB_BUILDING)
#define CCB_API __attribute__((visibility("default")))
#else
#define CCB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (modelled on gsl_errno.h and CHOLMOD's Common->status). */
typedef enum ccb_status {
    CCB_OK = 0,          /* success */
    CCB_E_INVALID = 1,   /* invalid argument or parameter (range, shape, NULL) */
    CCB_E_NONFINITE = 2, /* NaN or Inf met in an input or produced by an iterate */
    CCB_E_NOMEM = 3,     /* allocation failed */
    CCB_E_NOTCONV = 4,   /* an iterative solver did not meet its tolerance */
    CCB_E_FACTOR = 5,    /* a factorization failed (matrix not positive definite) */
    CCB_E_IO = 6,        /* file could not be read, written or renamed */
    CCB_E_INTERNAL = 7,  /* broken internal invariant (a bug in ccb) */
    CCB_CONTINUE = 8,    /* not an error: an iteration has not converged yet (like GSL_CONTINUE) */
    CCB_E_LIMIT = 9,     /* a work limit was reached (smallest step, evaluation budget) */
    CCB_E_RETRY = 10     /* a lazy contact pair may activate: the step must be solved with its
                            contacts (ccb_geometry_query_lazy; the simulation does so itself) */
} ccb_status;

/* Short constant text for a status code, e.g. "solver did not converge". Never NULL. */
CCB_API const char* ccb_status_string(ccb_status status);

typedef enum ccb_log_level {
    CCB_LOG_DEBUG = 0,
    CCB_LOG_INFO = 1,
    CCB_LOG_WARN = 2,
    CCB_LOG_ERROR = 3
} ccb_log_level;

/* Log hook. The library reports diagnostics (e.g. CHOLMOD's own error messages) only through
 * this hook; with no hook installed (the default) they are dropped. `message` is valid only
 * during the call. Not thread-safe to change while other threads use the library. */
typedef void (*ccb_log_fn)(ccb_log_level level, const char* message, void* user);
CCB_API void ccb_set_log_fn(ccb_log_fn fn, void* user);

/* Library version "MAJOR.MINOR.PATCH" and the git revision it was built from ("unknown"
 * outside a git checkout; "-dirty" appended for uncommitted changes). */
CCB_API const char* ccb_version(void);
CCB_API const char* ccb_revision(void);

#ifdef __cplusplus
}
#endif
#endif
