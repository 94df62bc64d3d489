/* reference/ — independent answers the gates compare against: analytic solutions of the
 * canonical cases and the gate files (reference/<case>.json). Nothing here uses the solver
 * library's physics; the conveyor reference is the ideal rigid Coulomb solution. */
#ifndef CCB_REFERENCE_H
#define CCB_REFERENCE_H

#include <stddef.h>

/* ---- conveyor (spec: cases.md §3.2) ------------------------------------------------------------
 * Box of any mass on a belt x_b(t) = A sin(2 pi f t + phase), ideal Coulomb friction mu under
 * gravity g, starting in stiction with the belt's velocity. Stick holds while |a_b| <= mu g; in
 * slip the box accelerates at -mu g sign(v_rel) until the relative velocity returns to zero. */
typedef struct ccb_ref_conveyor {
    double A, f, phase, mu, g; /* [m], [Hz], [rad], [-], [m/s^2] */
} ccb_ref_conveyor;

#define CCB_REF_MAX_EVENTS 64
typedef struct ccb_ref_events {
    int n;                                     /* number of slip intervals found in [0, T] */
    double slip_start[CCB_REF_MAX_EVENTS];     /* [s] */
    double slip_end[CCB_REF_MAX_EVENTS];       /* [s] (T if still slipping at T) */
    double slip_speed_max[CCB_REF_MAX_EVENTS]; /* largest |v_box - v_belt| in the interval [m/s] */
    double rel_accel_end[CCB_REF_MAX_EVENTS];  /* |d(v_box - v_belt)/dt| at slip_end [m/s^2] */
} ccb_ref_events;

/* Event times to 1e-13 s (bracketing scan of 1e-4 s + Brent). Returns 0, or -1 with a message
 * if the parameters are invalid or the belt never needs slip handling (A, f, mu, g > 0 needed). */
int ccb_ref_conveyor_events(const ccb_ref_conveyor* p, double T, ccb_ref_events* ev, char* msg,
                            size_t msg_size);
/* Belt position/velocity/acceleration at t. */
void ccb_ref_conveyor_belt(const ccb_ref_conveyor* p, double t, double* x, double* v, double* a);

/* ---- gate files ---------------------------------------------------------------------------------
 * reference/<case>.json: {"case": ..., "source": ..., "gates": [{"id", "metric", "op", "value" |
 * "range", "tier", "basis", "description"}]}. op is one of <=, <, >=, >, in (closed range).
 * Measured metrics are looked up by name through a callback. */
typedef struct ccb_gate_result {
    char id[32];
    int expect_fail;    /* the gate file documents a known failure ("expect": "fail") */
    char evidence[768]; /* why it is expected to fail */
    char metric[96];
    char op[4];
    double lo, hi;   /* bound(s): value in lo (and hi for "in") */
    double measured; /* NAN if the metric is missing */
    int pass;
    char tier[16];
    char basis[512];
    char description[256];
} ccb_gate_result;

typedef int (*ccb_metric_lookup)(void* user, const char* name, double* value);

/* Evaluates every gate of the file; results[] must hold max entries; *n receives the count.
 * Returns 0, or -1 with a message for an unreadable or malformed gate file. A missing or
 * non-finite metric fails its gate. A gate with "expect": "fail" must also carry "evidence"
 * (why the stated bound cannot be met); its result is reported as XFAIL/XPASS by the caller. */
int ccb_gates_evaluate(const char* path, ccb_metric_lookup lookup, void* user,
                       ccb_gate_result* results, int max, int* n, char* msg, size_t msg_size);

#endif
