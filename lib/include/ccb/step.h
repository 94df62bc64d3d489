/* ccb/step.h — the per-step context: what one step of the simulation is, owned by the simulation
 * (ccb_sim_params.dt and .vs) and handed to problem building (ccb_problem_build), to the
 * approximations' prepare (ccb/approx.h) and to the solvers (ccb/solver.h). No parameter block
 * below the simulation keeps its own copy of the step or of v_s (docs/architecture.md §3). */
#ifndef CCB_STEP_H
#define CCB_STEP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_step_context {
    double t0; /* start of the step [s] */
    double dt; /* the step [s] (error control: the internal step h), finite > 0 */
    /* stiction tolerance v_s [m/s] of every model of the step, finite > 0: the soft norm of
     * Lagged and Similar (formulation-convex §5, §6), TAMSI's and the continuous model's
     * regularized friction (formulation-tamsi-hydro §A.3, §D.5) */
    double vs;
} ccb_step_context;

#ifdef __cplusplus
}
#endif
#endif
