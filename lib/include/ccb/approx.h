/* ccb/approx.h — convex contact approximations as tables of functions.
 *
 * Each approximation (SAP, Similar, Lagged, regularized Lagged) defines, per contact, a convex
 * potential l_i(v_c) of the contact velocity v_c = [v_t1, v_t2, v_n] (contact frame, tangential
 * first, v_n > 0 separating), its impulse gamma_i = -dl_i/dv_c (applied on body B) and its
 * Hessian G_i = -dgamma_i/dv_c (symmetric PSD). spec: formulation-convex §1.2, eq. (4).
 *
 * A variant is `prepare` (per-step constants from frozen inputs) + `eval` (cost, impulse,
 * Hessian at a contact velocity). Adding a variant means one file that defines a const
 * ccb_approx plus one registration: a line in the built-in table of lib/src/approx.c (the build
 * picks up lib/src/approx_*.c), or a call of ccb_approx_register from the program that uses it.
 * Its per-contact constants go in the `user` block of ccb_constraint. Nothing else in the solver,
 * the cases, the studies or the command line changes: they enumerate the registry. */
#ifndef CCB_APPROX_H
#define CCB_APPROX_H

#include "ccb/status.h"
#include "ccb/step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options shared by all contacts (the step dt and the stiction tolerance v_s are not options:
 * they come with the step, ccb/step.h). */
typedef struct ccb_approx_options {
    /* SAP R_t = sigma*w and eq. (26) regularization [-], finite > 0 (formulation-convex §4.3, §7) */
    double sigma;
    /* SAP near-rigid parameter [-], >= 0; 0 disables the cap (formulation-convex §4.3) */
    double beta;
} ccb_approx_options;

/* Defaults of formulation-convex §8.8: sigma = 1e-3, beta = 1. */
CCB_API ccb_approx_options ccb_approx_options_default(void);
/* CCB_E_INVALID (with a message naming the field) if any field is out of range. */
CCB_API ccb_status ccb_approx_options_check(const ccb_approx_options* o, char* msg,
                                            size_t msg_size);

/* Per-contact inputs, frozen for the step. */
typedef struct ccb_contact_input {
    double k;     /* normal stiffness [N/m], finite > 0 */
    double d;     /* Hunt & Crossley dissipation [s/m], finite >= 0 (Lagged, Similar) */
    double tau_d; /* Kelvin-Voigt relaxation time [s], finite >= 0 (SAP) */
    double mu;    /* Coulomb friction coefficient [-], finite >= 0 */
    double phi0;  /* signed distance at the start of the step [m], < 0 overlap */
    double vn0;   /* previous-step normal contact velocity [m/s] (Lagged's gamma_n0) */
    double w;   /* Delassus diagonal approximation [1/kg] (formulation-convex §4.2), finite > 0 */
    double mu2; /* anisotropic friction: the coefficient along t2 [-], mu the one along t1; 0
                   (default): isotropic; else finite > 0, with mu > 0 (formulation-convex §18) */
} ccb_contact_input;

/* Per-contact constants of one step, filled by `prepare`. Fields not used by a variant are 0.
 * An approximation added outside the library keeps its constants in user[]. */
#define CCB_CONSTRAINT_USER 8
typedef struct ccb_constraint {
    double dt, k, d, mu, phi0; /* copies of the inputs [s, N/m, s/m, -, m] */
    /* Hunt & Crossley normal impulse n(v) = dt k (-(phi0 + dt v))_+ (1 - d v)_+
     * (formulation-convex §2.2, eq. (22)-(23)), held in a shifted-origin form about the breaking
     * velocity vhat: */
    double vhat;  /* breaking velocity min(-phi0/dt, 1/d) [m/s] (eq. 23) */
    double xhat;  /* -phi0 - dt*vhat >= 0 [m] */
    double chat;  /* 1 - d*vhat >= 0 [-] */
    double gn0;   /* Lagged: previous-step normal impulse dt f_n(phi0, vn0) [N s]
                     (formulation-convex §5) */
    double eps_s; /* soft-norm regularization of the slip [m/s] (formulation-convex §5, §7) */
    /* SAP (formulation-convex §4.3-§4.4) */
    double Rt, Rn;    /* regularization [1/kg] */
    double vn_hat;    /* bias velocity -phi0/(dt + tau_d) [m/s] */
    double mu_tilde2; /* mu^2 Rt/Rn [-] */
    double mu_hat;    /* mu Rt/Rn [-] */
    double sigma_w;   /* sigma*w [1/kg], for the effective stiction tolerance (eq. 25) */
    /* Anisotropic friction (formulation-convex §18): the scales (A_1, A_2) = (mu, mu2)/min(mu,
     * mu2) >= 1 of the tangential velocity, set by ccb_constraint_prepare; (0, 0): isotropic. */
    double aniso[2];
    /* Per-contact constants of an approximation that is not built in (its own layout). */
    double user[CCB_CONSTRAINT_USER];
} ccb_constraint;

typedef struct ccb_approx {
    const char* name;      /* command-line name, e.g. "lagged-reg" */
    const char* title;     /* e.g. "Lagged, regularized stiction tolerance (ICF eq. 26)" */
    const char* reference; /* spec section */
    /* Per-step constants. Inputs must be valid (the problem builder checks them). */
    void (*prepare)(const ccb_step_context* step, const ccb_approx_options* opt,
                    const ccb_contact_input* in, ccb_constraint* c);
    /* Returns the cost l_i(vc) [J]; writes gamma[3] = -dl/dvc [N s] and, if G != NULL,
     * G[9] = -dgamma/dvc [kg], row-major, symmetric PSD. */
    double (*eval)(const ccb_constraint* c, const double vc[3], double gamma[3], double G[9]);
    /* Effective stiction tolerance [m/s] of the contact at impulse gamma: v_s (or eq. 26's
     * eps_s) for Lagged/Similar, sigma*w*mu*gamma_n for SAP (ICF eq. 25). */
    double (*stiction_tolerance)(const ccb_constraint* c, const double gamma[3]);
    /* Optional (NULL: the solver evaluates the contact at every iterate). A radius r >= 0 such
     * that the contact is exactly inactive -- gamma = 0, G = 0 and l_i = 0 -- at every v_c with
     * max_k |v_c,k - vc[k]| <= r; a negative value if it may be active at vc itself. A lower bound
     * is enough: a smaller r only costs work. The Newton solver leaves such contacts out of its
     * iterations while its iterates provably stay inside the radius (newton.c, "far contacts"). */
    double (*inactive_radius)(const ccb_constraint* c, const double vc[3]);
} ccb_approx;

CCB_API extern const ccb_approx ccb_approx_sap;     /* formulation-convex §4 */
CCB_API extern const ccb_approx ccb_approx_similar; /* formulation-convex §6 */
CCB_API extern const ccb_approx ccb_approx_lagged;  /* formulation-convex §5, eps_s = v_s */
CCB_API extern const ccb_approx
    ccb_approx_lagged_reg; /* formulation-convex §7, eps_s = max(v_s, sigma w mu gn0) */

/* ---- A contact's constraint, with anisotropic friction (formulation-convex §18; ICF
 * Appendix B) ----
 * The friction tensor M = diag(mu, mu2) of a contact is mu_min A with mu_min = min(mu, mu2) and
 * A = diag(A_1, A_2) >= I. Every approximation's isotropic potential l_iso (coefficient mu_min)
 * taken at the scaled velocity T v_c, T = diag(A_1, A_2, 1), is the anisotropic potential
 *     l(v_c) = l_iso(T v_c),  gamma = T gamma_iso(T v_c),  G = T G_iso(T v_c) T,
 * convex when l_iso is, with a symmetric Hessian (ICF eq. 32), the elliptic cone |M^-1 gamma_t|
 * <= gamma_n and the friction of maximum dissipation gamma_t = -gamma_n M t^(M v_t) (eq. 31) in
 * sliding. The isotropic law's regularization applies to |A v_t|: every direction's stiction
 * tolerance is at most the isotropic one's (v_s, eq. 26's eps_s, SAP's sigma w mu_min gamma_n)
 * and equals it along the axis of least friction. With mu2 = 0 or mu2 = mu each function is the
 * approximation's own, unchanged. An approximation needs nothing of its own for this. */
/* a->prepare on in, with mu_min in place of (mu, mu2) and c->aniso set (zeroed if isotropic) */
CCB_API void ccb_constraint_prepare(const ccb_approx* a, const ccb_step_context* step,
                                    const ccb_approx_options* opt, const ccb_contact_input* in,
                                    ccb_constraint* c);
/* a->eval of the constraint (the formulas above) */
CCB_API double ccb_constraint_eval(const ccb_approx* a, const ccb_constraint* c, const double vc[3],
                                   double gamma[3], double G[9]);
/* a->inactive_radius in v_c (-1 if a has none): the scaled radius over max(A_1, A_2) */
CCB_API double ccb_constraint_inactive_radius(const ccb_approx* a, const ccb_constraint* c,
                                              const double vc[3]);
/* a->stiction_tolerance at the impulse gamma, over max(A_1, A_2): the tolerance along the axis of
 * most friction, the smallest of any direction [m/s] */
CCB_API double ccb_constraint_stiction_tolerance(const ccb_approx* a, const ccb_constraint* c,
                                                 const double gamma[3]);
/* The largest friction coefficient of the constraint, mu_min max(A_1, A_2) (c->mu if isotropic) */
CCB_API double ccb_constraint_mu_max(const ccb_constraint* c);

/* Registry: the built-in approximations first, then the registered ones, in order.
 * ccb_approx_get returns NULL outside [0, count); ccb_approx_find NULL for an unknown name. */
CCB_API int ccb_approx_count(void);
CCB_API const ccb_approx* ccb_approx_get(int i);
CCB_API const ccb_approx* ccb_approx_find(const char* name);
/* Adds an approximation to the registry (borrowed: it must outlive every use; not thread-safe:
 * register before creating simulations). CCB_E_INVALID with a message if a field is missing,
 * the name is empty, holds characters other than a-z, 0-9 and '-', or is taken, or if
 * CCB_APPROX_MAX_REGISTERED approximations were already added. */
#define CCB_APPROX_MAX_REGISTERED 16
CCB_API ccb_status ccb_approx_register(const ccb_approx* approx, char* msg, size_t msg_size);

/* ---- Hunt & Crossley normal law (formulation-convex §2.2), shared by Lagged, Similar and their
 * tests ---- Fills the H&C fields (vhat, xhat, chat) of c from dt, k, d, phi0 already set in c. */
CCB_API void ccb_hc_prepare(ccb_constraint* c);
/* Normal potential l_n(v) = -(N(v) - N(vhat)) [J], i.e. the spec's -N(v) shifted by the
 * constant N(vhat) so that an inactive contact costs exactly 0; n(v) = -dl_n/dv [N s] and
 * dn = n'(v) <= 0 [kg] (either pointer may be NULL). */
CCB_API double ccb_hc_eval(const ccb_constraint* c, double v, double* n, double* dn);

#ifdef __cplusplus
}
#endif
#endif
