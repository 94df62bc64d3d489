/* Library-internal helpers shared across lib/src: assertions for internal invariants, error
 * message formatting, logging. Not installed. */
#ifndef CCB_INTERNAL_H
#define CCB_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "ccb/status.h"

/* Message buffers kept by handles (ccb_model_last_error() etc.). */
#define CCB_MSG_SIZE 512

/* Internal invariants only (never user input): on in every build type, reports and aborts. */
#define CCB_ASSERT(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ccb_assert_fail(#cond, __FILE__, __LINE__);                                            \
        }                                                                                          \
    } while (0)
void ccb_assert_fail(const char* cond, const char* file, int line);

/* Writes a printf-style message into buf (if buf != NULL and size > 0) and returns `status`,
 * so that callers can write `return ccb_errorf(msg, n, CCB_E_INVALID, "...", ...);`. */
ccb_status ccb_errorf(char* buf, size_t size, ccb_status status, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
ccb_status ccb_verrorf(char* buf, size_t size, ccb_status status, const char* fmt, va_list ap);

/* Sends a message to the installed log hook (no-op without a hook). */
void ccb_log(ccb_log_level level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic wall-clock time [s] (for the statistics' time splits). */
double ccb_wall_time(void);

/* 1 if all n entries are finite. */
int ccb_all_finite(const double* x, size_t n);

/* Sorts x[0..n-1] ascending (tmp holds n keys): least-significant-digit radix sort, 11 bits a
 * pass, skipping the passes whose digit is the same in every key; fewer than 64 keys by
 * insertion. The order is the unique ascending one (qsort's, bit for bit). */
void ccb_sort_u64(uint64_t* x, uint64_t* tmp, size_t n);

/* Grows *p (element size elsize) to hold at least `need` elements; *cap is updated. Returns
 * CCB_E_NOMEM (leaving *p and *cap untouched) on failure. */
ccb_status ccb_grow(void** p, int* cap, int need, size_t elsize);

/* Grows `count` arrays that share one capacity *cap (element sizes elsize[k]) to hold at least
 * `need` elements. On failure returns CCB_E_NOMEM with *cap unchanged (arrays already grown
 * are simply larger than recorded, which is safe). */
ccb_status ccb_grow_many(void** const* arrays, const size_t* elsize, int count, int* cap, int need);

/* Error control (errctl.c; formulation-tamsi-hydro §B.6). ccb_errctl_adjust: from the error
 * estimate err of a step h and the accuracy a, the next step *h_new (at most h_max); returns 1 if
 * the step is accepted. ccb_errctl_step: the step to try from t0 towards t_end given the ideal
 * step (the remainder if it is within 5 % below or 0.1 % above: *last = 1; *limited = 1 if the
 * step was shortened, so the ideal step is kept for the next interval). ccb_errctl_floor: the
 * smallest step that still advances t by round-off-free amounts. */
int ccb_errctl_adjust(double a, double err, double h, double h_max, double* h_new);
double ccb_errctl_step(double h_ideal, double h_max, double t0, double t_end, int* limited,
                       int* last);
double ccb_errctl_floor(double t);

#endif
