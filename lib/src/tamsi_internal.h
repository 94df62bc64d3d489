/* TAMSI internals for the unit tests (not installed). */
#ifndef CCB_TAMSI_INTERNAL_H
#define CCB_TAMSI_INTERNAL_H

#include "ccb/tamsi.h"

/* Residual r (npv) and Jacobian dr/dv (npv x npv dense, row-major) of the whole step (no
 * substeps) at the full velocity vector v (nv), in the reduced (participating) ordering. */
ccb_status ccb_tamsi_eval(ccb_tamsi* ws, const ccb_problem* pb, const ccb_tamsi_params* prm,
                          const double* v, double* r, double* Jd);

/* The range checks of TALS's rho and theta_max (ccb_tals_params_check without v_s, which comes
 * with the step: ccb/step.h). */
ccb_status ccb_tals_check_limits(double rho, double theta_max, char* msg, size_t n);

#endif
