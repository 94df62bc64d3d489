/* ccb/sim.h — the time stepper.
 *
 * One step (spec: formulation-convex §1.1, symplectic Euler; ICF §X-A):
 *   1. contacts at (t0, q0) with phi0 < margin (ccb_geometry_query);
 *   2. the step problem (ccb_problem_build): A, v*, J, b, per-contact constants;
 *   3. v = argmin of the convex cost (ccb_newton_solve), warm-started at v0;
 *   4. q = q0 + dt N(q0) v,  t = t_start + (n + 1) dt.
 * A step whose solve fails leaves (t, q, v) bit-identical and returns the failure; its
 * statistics stay readable. Time is counted in whole steps from the last set_state, so long
 * runs accumulate no round-off in t. */
#ifndef CCB_SIM_H
#define CCB_SIM_H

#include "ccb/geometry.h"
#include "ccb/newton.h"
#include "ccb/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_sim ccb_sim;

typedef struct ccb_sim_params {
    double dt;                  /* time step [s], finite > 0 */
    const ccb_approx* approx;   /* contact approximation; default &ccb_approx_lagged */
    ccb_problem_params problem; /* v_s, sigma, beta, Delassus variant (its dt is set from dt) */
    ccb_newton_params newton;   /* solver options */
    double margin;              /* speculative contact margin [m]; default CCB_DEFAULT_MARGIN */
} ccb_sim_params;

CCB_API ccb_sim_params ccb_sim_params_default(void);
CCB_API ccb_status ccb_sim_params_check(const ccb_sim_params* p, char* msg, size_t n);

/* What one step reports about one contact. */
typedef struct ccb_contact_result {
    ccb_contact geometry; /* query at the start of the step */
    double vc[3];         /* contact velocity at the end of the step, frame C [m/s] */
    double gamma[3];      /* impulse on body B, frame C [N s] */
    double force[3];      /* gamma / dt [N] */
    double stiction_tol;  /* effective stiction tolerance of the approximation [m/s] */
} ccb_contact_result;

typedef struct ccb_step_stats {
    ccb_newton_stats newton;
    int ncontacts;
    double time_geometry; /* wall time of the query [s] */
    double time_problem;  /* wall time of the assembly [s] */
    double time_solve;    /* wall time of the Newton solve [s] */
} ccb_step_stats;

/* Creates a simulation of a finalized model (borrowed; must outlive the sim) at the model's
 * initial state and t = 0. CCB_E_INVALID (bad parameters or model), CCB_E_NOMEM. On failure
 * *sim is NULL and msg (may be NULL) says why. */
CCB_API ccb_status ccb_sim_create(const ccb_model* model, const ccb_sim_params* params,
                                  ccb_sim** sim, char* msg, size_t msg_size);
CCB_API void ccb_sim_destroy(ccb_sim* sim); /* accepts NULL */
CCB_API const char* ccb_sim_last_error(const ccb_sim* sim);

/* Sets the state: time t [s], q[nq], v[nv] (copied; all finite, else CCB_E_NONFINITE). */
CCB_API ccb_status ccb_sim_set_state(ccb_sim* sim, double t, const double* q, const double* v);
CCB_API double ccb_sim_time(const ccb_sim* sim);
/* Borrowed, valid until the next step/set_state. */
CCB_API const double* ccb_sim_q(const ccb_sim* sim);
CCB_API const double* ccb_sim_v(const ccb_sim* sim);

/* Advances one step. Returns CCB_OK, or the failure of the query, assembly or solve (e.g.
 * CCB_E_NOTCONV, CCB_E_FACTOR, CCB_E_NONFINITE) with the state unchanged. */
CCB_API ccb_status ccb_sim_step(ccb_sim* sim);

/* Statistics and contacts of the last step (borrowed, valid until the next step). */
CCB_API const ccb_step_stats* ccb_sim_step_stats(const ccb_sim* sim);
CCB_API int ccb_sim_ncontacts(const ccb_sim* sim);
CCB_API const ccb_contact_result* ccb_sim_contact(const ccb_sim* sim, int i);
/* The step problem and the solver workspace of the last step (borrowed; for analysis). */
CCB_API const ccb_problem* ccb_sim_problem(const ccb_sim* sim);
CCB_API ccb_newton* ccb_sim_newton(const ccb_sim* sim);
CCB_API const ccb_model* ccb_sim_model(const ccb_sim* sim);
CCB_API const ccb_sim_params* ccb_sim_params_get(const ccb_sim* sim);

#ifdef __cplusplus
}
#endif
#endif
