/* reference/ — independent answers the gates compare against: analytic solutions of the
 * canonical cases and the gate files (reference/<case>.json). Nothing here uses the solver
 * library's physics; the conveyor reference is the ideal rigid Coulomb solution. */
#ifndef CCB_REFERENCE_H
#define CCB_REFERENCE_H

#include <stddef.h>

/* ---- root finding (roots.c) ---------------------------------------------------------------------
 * Root of f in [a, b] (f(a) f(b) <= 0) to 1e-14 by GSL's Brent solver (NAN if it fails). */
double ccb_ref_brent(double (*f)(double, void*), void* u, double a, double b);
/* First root of f in (t0, T] found by a scan with `step` and refined: dir = +1 only upward
 * crossings (f <= 0 then > 0), -1 only downward (> 0 then <= 0), 0 either. NAN if none. */
double ccb_ref_next_crossing(double (*f)(double, void*), void* u, double t0, double T, double step,
                             int dir);

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

/* ---- falling sphere (spec: cases.md §4.2) ------------------------------------------------------
 * Sphere of radius R, mass m, inertia I about its centre, released at centre height z0 with
 * horizontal speed U0 and no spin, over a rigid plane with Coulomb friction mu. */
typedef struct ccb_ref_sphere {
    double R, m, I, z0, U0, mu, g; /* [m], [kg], [kg m^2], [m], [m/s], [-], [m/s^2] */
} ccb_ref_sphere;

typedef struct ccb_ref_sphere_result {
    double t_contact;         /* first contact sqrt(2h/g), h = z0 - R [s] */
    double v_impact;          /* impact speed sqrt(2 g h) [m/s] */
    double slip_after_impact; /* U0 - (1 + m R^2/I) mu v_impact [m/s]; > 0: still sliding */
    double t_roll;            /* rolling onset after release, U0 / ((1 + m R^2/I) mu g) [s] */
    double u_final;           /* rolling speed U0 / (1 + I/(m R^2)) (angular momentum about the
                           contact point) [m/s] */
    double omega_final;       /* u_final / R [rad/s] */
} ccb_ref_sphere_result;

/* Closed forms; returns 0, or -1 with a message for invalid input or if the impact alone ends the
 * slip (t_roll would then not follow the formula). */
int ccb_ref_sphere_solve(const ccb_ref_sphere* p, ccb_ref_sphere_result* r, char* msg,
                         size_t msg_size);

/* ---- Painleve rod (spec: cases.md §5.2) ---------------------------------------------------------
 * Uniform rod of half length l, mass m, inertia I about its centre, sliding on its lower end A at
 * angle theta to the ground with the end leading. While in sliding contact
 *   z''_A = (N/m) a(theta) + b,  a = 1 + (m l^2/I) cos(theta)(cos(theta) - mu sin(theta)),
 *   b = l thetadot^2 sin(theta) - g. */
typedef struct ccb_ref_rod {
    double l, m, I, mu, g; /* half length [m], mass [kg], inertia [kg m^2], [-], [m/s^2] */
} ccb_ref_rod;

double ccb_ref_rod_a(const ccb_ref_rod* p, double theta);
/* Band of angles (radians) where a < 0 (inconsistent or indeterminate rigid problem):
 * tan(theta) in ((k mu -+ sqrt(k^2 mu^2 - 4(1 + k)))/2), k = m l^2/I. Returns 0, or -1 if
 * there is no band (mu <= 2 sqrt(1 + k)/k, i.e. 4/3 for a uniform rod). */
int ccb_ref_rod_band(const ccb_ref_rod* p, double* lo, double* hi);

typedef struct ccb_ref_rod_rigid {
    double t_singular;        /* time at which a(theta) reaches 0 and N diverges [s] */
    double theta_singular;    /* [rad] */
    double thetadot_singular; /* [rad/s] */
    double end_slide_speed;   /* sliding speed of the end at t_singular for the given U0 [m/s] */
    double N0;                /* normal force at t = 0 [N] */
    double N_at;              /* normal force at t = t_probe [N] */
    double U0_min;            /* smallest U0 for which the end still slides when N diverges [m/s] */
    int reached;              /* 1 if the singularity is reached while sliding */
} ccb_ref_rod_rigid;

/* Integrates the rigid sliding motion (GSL odeiv2, rk8pd, rtol 1e-12) from theta0 at rest in
 * rotation with horizontal speed U0 until a(theta) <= 1e-10 (the singularity) or the end sticks.
 * N(t_probe) is reported (t_probe < t_singular). Returns 0, or -1 with a message. */
int ccb_ref_rod_rigid_solve(const ccb_ref_rod* p, double theta0, double U0, double t_probe,
                            ccb_ref_rod_rigid* r, char* msg, size_t msg_size);

/* ---- stick-slip box (spec: cases.md §7.2) -------------------------------------------------------
 * Box of mass m on a horizontal plane with Coulomb friction mu under gravity g, pushed by
 * f(t) = F sin(2 pi freq t + phase), at rest at x = 0 at t = 0. */
typedef struct ccb_ref_box {
    double m, mu, g, F, freq, phase; /* [kg], [-], [m/s^2], [N], [Hz], [rad] */
    double vs;                       /* stiction tolerance of the regularized model [m/s] */
} ccb_ref_box;

#define CCB_REF_BOX_MAX_EVENTS 256
typedef struct ccb_ref_box_events {
    int n;                                /* slides in [0, T] */
    double t_on[CCB_REF_BOX_MAX_EVENTS];  /* slide onset [s] */
    double t_off[CCB_REF_BOX_MAX_EVENTS]; /* re-stick [s] (T if still sliding, ended = 0) */
    int ended[CCB_REF_BOX_MAX_EVENTS];
    double dir[CCB_REF_BOX_MAX_EVENTS];    /* +1 or -1 */
    double x_on[CCB_REF_BOX_MAX_EVENTS];   /* position at onset [m] */
    double x_off[CCB_REF_BOX_MAX_EVENTS];  /* position at re-stick [m] */
    double t_peak[CCB_REF_BOX_MAX_EVENTS]; /* time of the largest speed [s] */
    double v_peak[CCB_REF_BOX_MAX_EVENTS]; /* largest speed [m/s] */
} ccb_ref_box_events;

/* The exact Coulomb (v_s -> 0) solution on [0, T]: events to 1e-14 s. 0, or -1 with a message. */
int ccb_ref_box_solve(const ccb_ref_box* p, double T, ccb_ref_box_events* ev, char* msg,
                      size_t msg_size);
/* Position and velocity of the exact solution at t (x, v may be NULL). */
void ccb_ref_box_exact(const ccb_ref_box* p, const ccb_ref_box_events* ev, double t, double* x,
                       double* v);
/* The regularized model x' = v, m v' = f(t) - mu min(|v|/v_s, 1) W sgn(v) (TAMSI eq. 7). */
void ccb_ref_box_f(const ccb_ref_box* p, double t, const double x[2], double xdot[2]);
/* Its flow over tau from (t0, x) by explicit RK3 with the fewest equal steps <= h
 * (formulation-tamsi-hydro §E.2); x is updated in place. Returns the number of evaluations of the
 * right-hand side. */
long ccb_ref_box_rk3(const ccb_ref_box* p, double t0, double x[2], double tau, double h);

/* ---- sliding and spinning coin (spec: cases.md §2.2; Farkas et al., PRL 90, 248302, 2003) -------
 * A flat disk of radius R slides with speed v and spins with omega on a plane, Coulomb friction
 * mu on every area element, load N = m g, inertia I = i_ratio m R^2. With eps = v/(R omega):
 *   dv/dt = -mu g F(eps),   domega/dt = -(mu g/(i_ratio R)) T(eps),
 * F, T the load-weighted averages of the unit slip direction along v and of its moment (units of
 * R). Uniform pressure: closed forms with complete elliptic integrals (cases.md §2.2). */
void ccb_ref_coin_uniform_FT(double eps, double* F, double* T);
/* Root of F(eps) = eps T(eps) / i_ratio for uniform pressure (i_ratio 0.5: 0.6530018); NAN if
 * there is none in (1e-3, 1e3). */
double ccb_ref_coin_uniform_fixed_point(double i_ratio);

typedef struct ccb_ref_coin {
    double R, mu, g, i_ratio; /* [m], [-], [m/s^2], I/(m R^2) */
    int npts;                 /* 0: uniform pressure (closed forms); else a point set: */
    const double* xy;         /* npts points (x, y) in the disk frame [m] */
    const double* w;          /* their load fractions (sum 1) */
} ccb_ref_coin;

/* Integrates the disk from v = eps0 S0/(1 + eps0) along x and R omega = S0/(1 + eps0) (S = v +
 * R omega) with GSL rk8pd (rtol 1e-10, steps limited to 0.3 % of S) until S <= levels[n-1] S0.
 * levels[] descending in (0, 1]; eps_at[j] and t_at[j] receive eps and t where S first reaches
 * levels[j] S0 (linear in log S between steps). A point set also moves laterally: lat_max = max
 * |v_y|/S over the run. Returns 0, or -1 with a message. */
int ccb_ref_coin_solve(const ccb_ref_coin* p, double eps0, double S0, const double* levels,
                       int nlevels, double* eps_at, double* t_at, double* lat_max, char* msg,
                       size_t msg_size);

/* ---- anisotropic plane (spec: formulation-convex §18.5; ICF Appendix B) ------------------------
 * A point mass on a plane with the friction tensor diag(mu1, mu2) along (across) the grain, normal
 * force m g, ideal Coulomb friction of maximum dissipation f = -m g M^2 v / |M v|. */
typedef struct ccb_ref_aniso {
    double mu1, mu2, g; /* [-], [-], [m/s^2], all finite > 0 */
} ccb_ref_aniso;

/* A free slide from the velocity (v1, v2) (grain frame) to rest, eqs. (18.4)-(18.5). */
typedef struct ccb_ref_aniso_slide {
    double T;      /* stopping time [s] */
    double X1, X2; /* displacement along and across the grain at rest [m] */
    double r;      /* exponent mu1^2/mu2^2 of the invariant |v1| |v2|^-r */
    double lnC;    /* ln(|v1| |v2|^-r) at the start (NAN if a component is 0) */
} ccb_ref_aniso_slide;
/* By GSL's adaptive Gauss-Kronrod quadrature (QAGIU) to a relative 1e-12 in u = ln(w0/|v2|),
 * where the integrands are smooth. 0, or -1 with a message (invalid input, quadrature failure). */
int ccb_ref_aniso_slide_solve(const ccb_ref_aniso* p, double v1, double v2,
                              ccb_ref_aniso_slide* out, char* msg, size_t msg_size);
/* The point of the slide where |v2| has fallen to s |v2(0)| (0 <= s <= 1; s = 0: rest): the time
 * t, the displacement (x1, x2) and the velocity (w1, w2) there, by the same quadrature over
 * [s w0, w0] (a slide along an axis: s is the fraction of that axis's speed). 0, or -1. */
int ccb_ref_aniso_slide_point(const ccb_ref_aniso* p, double v1, double v2, double s, double* t,
                              double x[2], double w[2], char* msg, size_t msg_size);

/* A constant horizontal force f m g at angle theta in [0, pi/2] to the grain, from rest:
 * eqs. (18.6)-(18.7). */
typedef struct ccb_ref_aniso_push {
    int slides;    /* 0: the force is inside the cone's ellipse, the body stays at rest */
    double phi;    /* direction of the straight slide to the grain [rad] (theta if at rest) */
    double lambda; /* its acceleration [m/s^2] (0 at rest) */
} ccb_ref_aniso_push;
/* 0, or -1 with a message (invalid input; a bracket without a root). */
int ccb_ref_aniso_push_solve(const ccb_ref_aniso* p, double f, double theta,
                             ccb_ref_aniso_push* out, char* msg, size_t msg_size);

#endif
