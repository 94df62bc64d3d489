/* ccb/tamsi.h — the Transition-Aware Line Search (TALS) and the Transition-Aware Modified
 * Semi-Implicit (TAMSI) solver of the TAMSI paper (Castro et al., RA-L 2020).
 *
 * TALS (spec: formulation-tamsi-hydro §C; paper §III-A): given the tangential velocity v of a
 * contact at a Newton iterate and the update dv, returns the largest fraction alpha in (0, 1]
 * of the update that neither jumps across the stiction disk |vt| < v_s nor turns the velocity
 * by more than theta_max. The six cases of formulation-tamsi-hydro §C.2 are numbered I-VI as in the
 * spec.
 *
 * TAMSI (formulation-tamsi-hydro §D; paper §V, eqs. 10-23) solves the per-step problem of a
 * ccb_problem (frozen configuration: mass blocks A = M + dt D, free velocities v* with A v* = p*,
 * contact Jacobians J rows (t1, t2, n), bias b, phi0 and materials) for the velocities v:
 *   vc     = J v + b                          contact velocities (vt = rows t1, t2; vn = row n)
 *   fn(vn) = (1 - d vn)+ (fn0 - dt k vn)+,    fn0 = -k phi0          (two-way coupling, eq. 19)
 *   ft     = -mu~(s) fn t                     (formulation-tamsi-hydro §A.3-§A.4, soft norm eps_v =
 * rho v_s)
 *   r(v)   = A (v - v*) - dt J^T f(J v + b)                                          (eq. 21)
 *   dr/dv  = A + dt J^T G J,  G = -df/dvc = [[Dt, mu~ t dfn/dvn], [0, -dfn/dvn]]      (eq. 23)
 * with Newton steps dv = -(dr/dv)^{-1} r (LU with partial pivoting; dense for one participating
 * clique, UMFPACK otherwise) limited by TALS, until the largest full update of the tangential
 * and normal contact velocities, |dvt|_2 and |dvn|_2 over all contacts, is below rho v_s
 * (formulation-tamsi-hydro §D.4). The one-way variant (§D.2) freezes fn = k (1 - d vn0)+ (-phi0)+
 * and drops the normal terms (dr/dv = A + dt Jt^T Dt Jt, SPD; solved by the same LU, where Drake
 * uses LDL^T: the same direction up to round-off). On failure the step is retried with N = 2, 3,
 * ..., max_substeps equal substeps of the frozen problem (Drake's TamsiDriver,
 * formulation-tamsi-hydro §D.5). */
#ifndef CCB_TAMSI_H
#define CCB_TAMSI_H

#include "ccb/friction.h"
#include "ccb/newton.h"
#include "ccb/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- TALS (formulation-tamsi-hydro §C.2)
 * ------------------------------------------------------------------------ */

typedef enum ccb_tals_case {
    CCB_TALS_SMALL_UPDATE = 1, /* I:   |dv| < eps_v: alpha = 1 */
    CCB_TALS_FROM_ZERO = 2,    /* II:  from ~0 to sliding: land at |vt| ~ v_s/2 */
    CCB_TALS_TO_ZERO = 3,      /* III: from sliding to ~0: stop at v_s/2 short of it */
    CCB_TALS_INSIDE = 4,       /* start inside the disk, or land inside it: alpha = 1 */
    CCB_TALS_CROSSING = 5,     /* V:   the chord crosses the disk: stop at its closest
                                      point (or v_s/2 short of zero) */
    CCB_TALS_ANGLE = 6,        /* VI:  turn limited to theta_max */
    CCB_TALS_ANGLE_FREE = 7,   /* VI:  turn below theta_max: alpha = 1 */
    CCB_TALS_FAILED = 0        /* VI:  no real root (Drake's kAlphaSolverFailed) */
} ccb_tals_case;

typedef struct ccb_tals_params {
    double vs;        /* stiction tolerance v_s [m/s], finite > 0 */
    double rho;       /* relative tolerance: eps_v = rho v_s [-], in (0, 1); default 1e-2 */
    double theta_max; /* largest turn per iteration [rad], in (0, pi); default pi/3 */
} ccb_tals_params;

CCB_API ccb_tals_params ccb_tals_params_default(void); /* v_s = 1e-4, rho = 1e-2, pi/3 */
CCB_API ccb_status ccb_tals_params_check(const ccb_tals_params* p, char* msg, size_t msg_size);

/* alpha in (0, 1] for one contact (v, dv: tangential velocity and its full Newton update
 * [m/s]); *which (may be NULL) receives the case. Returns a negative value only in case
 * CCB_TALS_FAILED. */
CCB_API double ccb_tals_alpha(const ccb_tals_params* p, const double v[2], const double dv[2],
                              ccb_tals_case* which);

/* ---- TAMSI ------------------------------------------------------------------------------------
 * */

typedef enum ccb_tamsi_coupling {
    CCB_TAMSI_TWO_WAY = 0, /* TAMSI proper: implicit normal forces (formulation-tamsi-hydro §D.3) */
    CCB_TAMSI_ONE_WAY = 1  /* semi-implicit friction only, normal forces frozen
                              (formulation-tamsi-hydro §D.2) */
} ccb_tamsi_coupling;

typedef enum ccb_tamsi_linear_solver {
    CCB_TAMSI_LU_AUTO = 0, /* dense LU for one participating clique, UMFPACK otherwise */
    CCB_TAMSI_LU_UMFPACK = 1,
    CCB_TAMSI_LU_DENSE = 2
} ccb_tamsi_linear_solver;

typedef struct ccb_tamsi_params {
    ccb_tamsi_coupling coupling; /* default two-way */
    ccb_friction_model friction; /* default CCB_FRICTION_TAMSI_QUAD (Drake,
                                    formulation-tamsi-hydro §D.5) */
    double rho;       /* relative tolerance [-]; eps_v = rho v_s (v_s: the step's); default 1e-2 */
    double theta_max; /* TALS angle limit [rad]; default pi/3 */
    int tals;         /* 1: TALS on (default); 0: full Newton steps (ablation) */
    int max_iterations; /* per (sub)step; default 20 (Drake's TamsiDriver) */
    int max_substeps;   /* retries with N = 2..max_substeps substeps; default 20;
                                      1 disables substepping */
    ccb_tamsi_linear_solver linear_solver;
} ccb_tamsi_params;

CCB_API ccb_tamsi_params ccb_tamsi_params_default(void);
CCB_API ccb_status ccb_tamsi_params_check(const ccb_tamsi_params* p, char* msg, size_t msg_size);

/* One TAMSI iteration (formulation-tamsi-hydro §D.6: the residual history the paper's Fig. 4
 * plots). */
typedef struct ccb_tamsi_iter {
    double residual;  /* |r|_2 at the iterate before the update [N s] */
    double e_t;       /* |dvt|_2 of the full update [m/s] */
    double e_n;       /* |dvn|_2 of the full update [m/s] */
    double alpha;     /* fraction of the update taken [-] */
    int tals_limited; /* contacts whose TALS alpha was < 1 */
} ccb_tamsi_iter;

typedef struct ccb_tamsi_stats {
    ccb_status status;  /* CCB_OK, or why the solve failed (never success if not converged) */
    int iterations;     /* Newton iterations (LU factorizations), all substep attempts */
    int substeps;       /* substeps of the successful attempt (1: none needed) */
    int attempts;       /* attempts made (1 + retries) */
    double residual;    /* |r|_2 at exit [N s] */
    double e_t, e_n;    /* last update sizes [m/s] */
    double tolerance;   /* eps_v = rho v_s [m/s] */
    double alpha_min;   /* smallest alpha taken (1 if none) */
    long tals_cases[8]; /* count of each ccb_tals_case over all iterations and contacts */
    int nv, nc;         /* participating velocities, contacts */
} ccb_tamsi_stats;

typedef struct ccb_tamsi ccb_tamsi;

CCB_API ccb_status ccb_tamsi_create(ccb_tamsi** ws);
CCB_API void ccb_tamsi_destroy(ccb_tamsi* ws); /* accepts NULL */
CCB_API const char* ccb_tamsi_last_error(const ccb_tamsi* ws);

/* Solves the step problem (borrowed for the call) from the guess v_guess (full nv; NULL: the
 * problem's v0). The step h and the stiction tolerance v_s are the problem's (ccb_problem_step). On success writes the
 * velocities (full nv; non-participating = v*) to v_out (may be NULL). CCB_E_NOTCONV if no
 * attempt converged, CCB_E_FACTOR for a singular Jacobian, CCB_E_NONFINITE, CCB_E_NOMEM,
 * CCB_E_INVALID; the message says which attempt and iteration failed, and the statistics and
 * the last iterate stay readable. */
CCB_API ccb_status ccb_tamsi_solve(ccb_tamsi* ws, const ccb_problem* problem,
                                   const ccb_tamsi_params* params, const double* v_guess,
                                   double* v_out, ccb_tamsi_stats* stats);

/* Borrowed views of the last iterate, valid until the next call on ws: velocities (full nv),
 * contact velocities vc (3 nc, frame C), contact forces f (3 nc: ft1, ft2, fn [N]) of the whole
 * step (substeps: of the last substep), per-iteration history (*n entries, all attempts). */
CCB_API const double* ccb_tamsi_velocities(const ccb_tamsi* ws);
CCB_API const double* ccb_tamsi_contact_velocities(const ccb_tamsi* ws);
CCB_API const double* ccb_tamsi_forces(const ccb_tamsi* ws);
/* Contact impulses of the whole step (3 nc: sum over substeps of hs f) [N s]. */
CCB_API const double* ccb_tamsi_impulses(const ccb_tamsi* ws);
CCB_API const ccb_tamsi_iter* ccb_tamsi_history(const ccb_tamsi* ws, int* n);
/* Cumulative LU factorizations and UMFPACK symbolic analyses over the workspace's life. */
CCB_API void ccb_tamsi_counters(const ccb_tamsi* ws, long* analyses, long* factorizations);

#ifdef __cplusplus
}
#endif
#endif
