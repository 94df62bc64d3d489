/* Unit tests of lib/src/approx*.c: formulation-convex §11 facts 1, 3, 4, 11, 12, 13.
 * Each of the four approximations is checked at random states (deterministic SplitMix64 seed),
 * including the region boundaries of SAP and the breaking velocity of Hunt & Crossley. */
#include "ccb/approx.h"
#include "ccb/math.h"
#include "test.h"

/* Tolerances (basis in brackets) */
/* [round-off: central FD of a smooth function with h = 1e-6 s: truncation O(h^2) ~ 1e-12 and
 *  cancellation eps*|l|/h ~ 1e-10 relative to |gamma| s; 1e-6 leaves four digits of margin] */
static const double TOL_FD_GRAD = 1e-6;
/* [same for FD of gamma against G, one derivative higher: 1e-5] */
static const double TOL_FD_HESS = 1e-5;
/* [round-off: closed forms evaluated two ways agree to k*eps with k ~ 100 operations] */
static const double TOL_CLOSED = 1e-12;
/* [PSD: smallest eigenvalue >= -1e-12 |G| (formulation-convex §11 fact 1)] */
static const double TOL_PSD = 1e-12;
/* [exact: symmetric by construction up to the order of two products: 4 eps] */
static const double TOL_SYM = 1e-15;

/* The properties of formulation-convex §11 that every convex approximation must have (facts 1 and
 * 4) are checked on every entry of the registry; the closed forms of each built-in by name. */
static const ccb_approx* const BUILTIN[4] = {&ccb_approx_sap, &ccb_approx_similar,
                                             &ccb_approx_lagged, &ccb_approx_lagged_reg};

typedef struct scenario {
    ccb_step_context step;
    ccb_approx_options opt;
    ccb_contact_input in;
    ccb_constraint c;
    double vscale; /* velocity scale [m/s] */
} scenario;

static scenario random_scenario(const ccb_approx* ap) {
    scenario s;
    memset(&s, 0, sizeof s);
    s.opt = ccb_approx_options_default();
    s.step = (ccb_step_context){0.0, loguniform(1e-4, 5e-2), loguniform(1e-5, 1e-2)};
    s.opt.sigma = loguniform(1e-4, 1e-1);
    const double b = urand();
    s.opt.beta = b < 0.3 ? 0.0 : (b < 0.6 ? 1.0 : uniform(0.5, 2.0));
    s.vscale = loguniform(1e-2, 3.0);
    s.in.k = loguniform(1e3, 1e9);
    s.in.d = urand() < 0.2 ? 0.0 : loguniform(1e-2, 1e3);
    s.in.tau_d = urand() < 0.2 ? 0.0 : loguniform(1e-5, 1e-1);
    s.in.mu = urand() < 0.1 ? 0.0 : uniform(0.1, 2.5);
    s.in.phi0 = uniform(-2.0, 0.5) * s.step.dt * s.vscale;
    s.in.vn0 = uniform(-1.0, 1.0) * s.vscale;
    s.in.w = loguniform(0.1, 10.0);
    ap->prepare(&s.step, &s.opt, &s.in, &s.c);
    return s;
}

static void random_vc(const scenario* s, double vc[3]) {
    const double V = s->vscale;
    const double tscale = urand() < 0.3 ? V * loguniform(1e-6, 1e-2) : V;
    vc[0] = uniform(-1, 1) * tscale;
    vc[1] = uniform(-1, 1) * tscale;
    vc[2] = uniform(-1.5, 1.0) * V;
}

/* Distance (in units of the FD step) from the nearest kink of the model at vc; large = smooth. */
static double kink_margin(const ccb_approx* ap, const ccb_constraint* c, const double vc[3],
                          double h) {
    if (ap == &ccb_approx_sap) {
        const double y0 = -vc[0] / c->Rt, y1 = -vc[1] / c->Rt, yn = -(vc[2] - c->vn_hat) / c->Rn;
        const double yr = sqrt(y0 * y0 + y1 * y1);
        const double dy = (1.0 + c->mu + c->mu_hat) * h / fmin(c->Rt, c->Rn);
        const double g1 = fabs(yr - c->mu * yn), g2 = fabs(yn + c->mu_hat * yr);
        return fmin(g1, g2) / dy;
    }
    double z = vc[2];
    if (ap == &ccb_approx_similar) {
        z -= c->mu * ccb_softnorm(vc, 2, c->eps_s);
    }
    return fabs(z - c->vhat) / ((1.0 + c->mu) * h);
}

static double norm3(const double x[3]) {
    return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

static double norm9(const double G[9]) {
    double s = 0;
    for (int i = 0; i < 9; ++i) {
        s += G[i] * G[i];
    }
    return sqrt(s);
}

/* G symmetric positive semi-definite (fact 1) */
static void check_sym_psd(const ccb_approx* ap, const double G[9]) {
    const double Gn = norm9(G);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < i; ++j) {
            CHECK_ABS(G[3 * i + j], G[3 * j + i], TOL_SYM * Gn + 1e-300, "G symmetric");
        }
    }
    double ev[3];
    sym3_eigvals(G, ev);
    for (int i = 0; i < 3; ++i) {
        CHECK(ev[i] >= -TOL_PSD * Gn, "%s: G eigenvalue %g < -1e-12 |G| (|G| = %g)", ap->name,
              ev[i], Gn);
    }
}

/* Central differences of the constraint (ccb_constraint_eval: the approximation's own law when c
 * is isotropic) with steps hk against -gamma and -G at vc (fact 1) */
static void check_fd(const ccb_approx* ap, const ccb_constraint* c, const double vc[3],
                     const double hk[3], const double g[3], const double G[9], double gscale) {
    const double Gn = norm9(G);
    for (int k = 0; k < 3; ++k) {
        const double h = hk[k];
        double xp[3] = {vc[0], vc[1], vc[2]}, xm[3] = {vc[0], vc[1], vc[2]};
        xp[k] += h;
        xm[k] -= h;
        double gp[3], gm[3];
        const double lp = ccb_constraint_eval(ap, c, xp, gp, NULL);
        const double lm = ccb_constraint_eval(ap, c, xm, gm, NULL);
        /* [+ round-off of the difference quotient: eps (|l+| + |l-|)/h] */
        const double cancel_l = 2.3e-16 * (fabs(lp) + fabs(lm)) / h;
        CHECK_ABS((lp - lm) / (2 * h), -g[k], TOL_FD_GRAD * gscale + cancel_l,
                  "FD of the cost equals -gamma (fact 1)");
        for (int i = 0; i < 3; ++i) {
            const double cancel_g = 2.3e-16 * (fabs(gp[i]) + fabs(gm[i])) / h;
            CHECK_ABS(-(gp[i] - gm[i]) / (2 * h), G[3 * i + k],
                      TOL_FD_HESS * Gn + cancel_g + 1e-300, "FD of gamma equals -G (fact 1)");
        }
    }
}

/* Fact 1: gradients are impulses, FD of gamma is -G, G symmetric PSD. */
static void test_fd_gradients_and_hessians(void) {
    for (int a = 0; a < ccb_approx_count(); ++a) {
        const ccb_approx* ap = ccb_approx_get(a);
        int nhess = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const scenario s = random_scenario(ap);
            double vc[3];
            random_vc(&s, vc);
            double g[3], G[9];
            ap->eval(&s.c, vc, g, G);
            /* FD steps scaled by the local length of each component: the soft norm varies on
             * rho = sqrt(|v_t|^2 + eps_s^2) (Lagged/Similar), SAP's sliding direction on |v_t| */
            const double vt = hypot(vc[0], vc[1]);
            const double s_all = fmax(norm3(vc), 1e-3 * s.vscale);
            const double lt = ap == &ccb_approx_sap ? (vt > 0 ? vt : s_all)
                                                    : sqrt(vt * vt + s.c.eps_s * s.c.eps_s);
            const double hk[3] = {1e-6 * fmin(lt, s_all), 1e-6 * fmin(lt, s_all), 1e-6 * s_all};
            const double margin = kink_margin(ap, &s.c, vc, hk[2] > hk[0] ? hk[2] : hk[0]);
            const double gscale = fmax(norm3(g), norm9(G) * s.vscale * 1e-3);
            check_sym_psd(ap, G);
            if (margin < 10.0) {
                continue; /* the stencil would straddle a kink; boundaries are tested below */
            }
            check_fd(ap, &s.c, vc, hk, g, G, gscale);
            nhess++;
        }
        CHECK(nhess > 200, "%s: only %d smooth samples", ap->name, nhess);
    }
}

/* SAP region boundaries: gamma continuous, both formulas agree on the boundary. */
static void test_sap_boundaries(void) {
    for (int trial = 0; trial < 200; ++trial) {
        scenario s = random_scenario(&ccb_approx_sap);
        if (s.c.mu == 0.0) {
            continue;
        }
        const ccb_constraint* c = &s.c;
        const double th = uniform(0, 2 * CCB_PI);
        const double t[2] = {cos(th), sin(th)};
        const double yn = loguniform(1e-6, 1e-1);
        for (int boundary = 0; boundary < 2; ++boundary) {
            /* boundary 0: y_r = mu y_n (stiction/sliding); 1: y_n = -mu_hat y_r (sliding/sep.) */
            double yr, ynb;
            if (boundary == 0) {
                yr = c->mu * yn;
                ynb = yn;
            } else {
                yr = yn;
                ynb = -c->mu_hat * yn;
            }
            const double vc[3] = {-c->Rt * yr * t[0], -c->Rt * yr * t[1], c->vn_hat - c->Rn * ynb};
            double g0[3], gp[3], gm[3];
            ccb_approx_sap.eval(c, vc, g0, NULL);
            const double dv = 1e-9 * fmax(norm3(vc), 1e-12);
            const double dir[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
            double vp[3], vm[3];
            for (int i = 0; i < 3; ++i) {
                vp[i] = vc[i] + dv * dir[i];
                vm[i] = vc[i] - dv * dir[i];
            }
            ccb_approx_sap.eval(c, vp, gp, NULL);
            ccb_approx_sap.eval(c, vm, gm, NULL);
            /* Lipschitz: |dgamma| <= |dv| * max eigenvalue of G <= |dv| (1+mu)^2 / min(R) */
            const double lip = 2 * dv * norm3(dir) * (1 + c->mu) * (1 + c->mu) / fmin(c->Rt, c->Rn);
            for (int i = 0; i < 3; ++i) {
                CHECK_ABS(gp[i], gm[i], lip + 1e-300, "SAP impulse continuous across a boundary");
            }
            const double expect_n = boundary == 0 ? yn : 0.0;
            /* [round-off: y_n is rebuilt from v_n = vn_hat - R_n y_n, which loses
             *  eps (|vn_hat| + |v_n|)/R_n absolutely, plus TOL_CLOSED on the formula] */
            const double recon = 4e-16 * (fabs(c->vn_hat) + fabs(vc[2])) / c->Rn;
            CHECK_ABS(g0[2], expect_n, TOL_CLOSED * yn + recon, "SAP impulse on the boundary");
        }
    }
}

/* Fact 3: the H&C potential is the antiderivative of n, n(vhat) = 0, n' <= 0, convex; and it
 * equals the spec's -N+(min(v, vhat)) shifted by the constant N+(vhat). */
static double spec_Nplus(const ccb_constraint* c, double v) {
    return c->dt * c->k *
           (-v * (c->phi0 + 0.5 * c->dt * v) +
            c->d * v * v / 2 * (c->phi0 + 2.0 / 3.0 * c->dt * v));
}

static void test_hunt_crossley(void) {
    for (int trial = 0; trial < 300; ++trial) {
        scenario s = random_scenario(&ccb_approx_lagged);
        const ccb_constraint* c = &s.c;
        double n, dn;
        ccb_hc_eval(c, c->vhat, &n, &dn);
        CHECK(n == 0.0 && dn == 0.0, "n(vhat) = 0 exactly (got %g, %g)", n, dn);
        const double v = c->vhat - loguniform(1e-4, 3.0) * s.vscale;
        const double l = ccb_hc_eval(c, v, &n, &dn);
        CHECK(n > 0 && dn <= 0, "n > 0 and n' <= 0 below vhat (n = %g, n' = %g)", n, dn);
        /* spec closed form (cancellation-prone, hence the scale in the tolerance) */
        const double lspec = -spec_Nplus(c, v) + spec_Nplus(c, c->vhat);
        const double scale = c->dt * c->k * (fabs(v) + fabs(c->vhat)) *
                             (fabs(c->phi0) + c->dt * (fabs(v) + fabs(c->vhat))) *
                             (1 + c->d * (fabs(v) + fabs(c->vhat)));
        CHECK_ABS(l, lspec, 1e-13 * scale + 1e-300,
                  "l_n = -N+(v) + N+(vhat) (formulation-convex §2.2), round-off of the spec form");
        const double h = 1e-6 * fmax(fabs(v), 1e-3 * s.vscale);
        double np, nm;
        const double lp = ccb_hc_eval(c, v + h, &np, NULL);
        const double lm = ccb_hc_eval(c, v - h, &nm, NULL);
        if (v + h < c->vhat) {
            CHECK_ABS(-(lp - lm) / (2 * h), n, TOL_FD_GRAD * fmax(n, -dn * s.vscale),
                      "dl_n/dv = -n (fact 3)");
            CHECK_ABS((np - nm) / (2 * h), dn, TOL_FD_HESS * fabs(dn) + 1e-300, "dn/dv = n'");
            CHECK(lp + lm - 2 * l >= -1e-12 * fabs(l), "l_n convex (second difference %g)",
                  lp + lm - 2 * l);
        }
        /* continuity at vhat and zero above */
        const double eps = 1e-10 * fmax(fabs(c->vhat), s.vscale);
        CHECK_ABS(ccb_hc_eval(c, c->vhat - eps, NULL, NULL), 0.0,
                  2 * eps * c->dt * c->k * (c->xhat + c->dt * eps) * (c->chat + c->d * eps) +
                      1e-300,
                  "l_n continuous at vhat");
        CHECK(ccb_hc_eval(c, c->vhat + eps, NULL, NULL) == 0.0, "l_n = 0 above vhat");
    }
}

/* Fact 4: Coulomb bounds (built-ins) and, for every approximation, gamma_n >= 0 and friction
 * opposing slip. */
static void test_coulomb_bounds(void) {
    for (int a = 0; a < ccb_approx_count(); ++a) {
        const ccb_approx* ap = ccb_approx_get(a);
        for (int trial = 0; trial < 300; ++trial) {
            const scenario s = random_scenario(ap);
            double vc[3], g[3];
            random_vc(&s, vc);
            ap->eval(&s.c, vc, g, NULL);
            const double gt = hypot(g[0], g[1]);
            const double bound = ap == &ccb_approx_sap         ? s.c.mu * g[2]
                                 : (ap == &ccb_approx_similar) ? s.c.mu * g[2]
                                                               : s.c.mu * s.c.gn0;
            CHECK(g[2] >= 0, "%s: gamma_n >= 0 (got %g)", ap->name, g[2]);
            if (a >= 4) {
                /* a registered approximation: its friction bound is its own (only the sign of
                 * gamma_n and the direction of gamma_t are universal) */
            } else if (ap == &ccb_approx_sap) {
                CHECK(gt <= bound * (1 + 1e-12) + 1e-300, "SAP |gamma_t| <= mu gamma_n: %g > %g",
                      gt, bound);
            } else {
                CHECK(gt < bound || (gt == 0 && bound == 0), "%s: |gamma_t| < bound: %g >= %g",
                      ap->name, gt, bound);
            }
            /* antiparallel to the slip: gamma_t = -c v_t with c >= 0 */
            const double vt = hypot(vc[0], vc[1]);
            if (vt > 0 && gt > 0) {
                const double cosang = -(g[0] * vc[0] + g[1] * vc[1]) / (gt * vt);
                CHECK_ABS(cosang, 1.0, 1e-12, "friction antiparallel to slip (round-off)");
            }
        }
    }
    /* SAP sliding: equality |gamma_t| = mu gamma_n */
    for (int trial = 0; trial < 100; ++trial) {
        scenario s = random_scenario(&ccb_approx_sap);
        const ccb_constraint* c = &s.c;
        if (c->mu == 0) {
            continue;
        }
        /* y_n strictly between -mu_hat y_r and y_r/mu */
        const double yr = loguniform(1e-6, 1.0);
        const double yn = uniform(-c->mu_hat * yr, yr / c->mu) * 0.98 + 0.01 * (yr / c->mu);
        const double vc[3] = {-c->Rt * yr, 0.0, c->vn_hat - c->Rn * yn};
        double g[3];
        ccb_approx_sap.eval(c, vc, g, NULL);
        CHECK_REL(hypot(g[0], g[1]), c->mu * g[2], TOL_CLOSED, 1e-300, "SAP sliding on the cone");
    }
}

/* Fact 11: stiction thresholds and tangential stiffness at v_t = 0; SAP stiction G = R^{-1}. */
static void test_stiction_stiffness(void) {
    for (int trial = 0; trial < 100; ++trial) {
        for (int a = 0; a < 4; ++a) {
            const ccb_approx* ap = BUILTIN[a];
            scenario s = random_scenario(ap);
            const ccb_constraint* c = &s.c;
            /* v_t = 0 and an active normal velocity */
            const double vn = (ap == &ccb_approx_sap ? c->vn_hat : c->vhat) - s.vscale * 0.3;
            const double vc[3] = {0, 0, vn};
            double g[3], G[9];
            ap->eval(c, vc, g, G);
            double expect;
            if (ap == &ccb_approx_sap) {
                expect = 1.0 / c->Rt;
                CHECK_REL(G[8], 1.0 / c->Rn, TOL_CLOSED, 0, "SAP stiction G_nn = 1/R_n");
                CHECK(G[2] == 0 && G[5] == 0 && G[1] == 0, "SAP stiction G diagonal");
                /* stiction iff |v_t| <= sigma w mu gamma_n (fact 11, ICF eq. 25) */
                const double vtol = ap->stiction_tolerance(c, g);
                CHECK_REL(vtol, c->sigma_w * c->mu * g[2], TOL_CLOSED, 1e-300, "eq. (25)");
                const double in[3] = {0.999 * vtol, 0, vn}, out[3] = {1.001 * vtol, 0, vn};
                double gi[3], go[3], Gi[9], Go[9];
                ap->eval(c, in, gi, Gi);
                ap->eval(c, out, go, Go);
                if (c->mu > 0) {
                    CHECK(Gi[0] == 1.0 / c->Rt && Gi[8] == 1.0 / c->Rn,
                          "SAP stiction just inside sigma w mu gamma_n");
                    CHECK(Go[4] != 1.0 / c->Rt, "SAP sliding just outside sigma w mu gamma_n");
                }
            } else if (ap == &ccb_approx_similar) {
                expect = c->mu * g[2] / c->eps_s;
            } else {
                expect = c->mu * c->gn0 / c->eps_s;
            }
            CHECK_REL(G[0], expect, TOL_CLOSED, 1e-300, "G_t(v_t = 0) (fact 11)");
            CHECK_REL(G[4], expect, TOL_CLOSED, 1e-300, "G_t(v_t = 0) (fact 11)");
        }
    }
}

/* Fact 12: regularized eps_s; fact 13: Lagged friction lags one step. */
/* ccb_approx.inactive_radius: on the whole box about vc it gives, the law is exactly zero
 * (gamma = 0, G = 0, l = 0: the Newton solver relies on exact zeros to skip the contact); and
 * the radius is not needlessly small: the separation margin v_n - mu|v_t| - threshold over
 * 1 + sqrt(2) mu, less the documented 1e-9 relative round-off margin. */
static void test_inactive_radius(void) {
    int boxes = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const ccb_approx* ap = BUILTIN[trial % 4];
        scenario s = random_scenario(ap);
        if (trial % 3 == 0) { /* contacts that start apart, as most speculative ones do */
            s.in.phi0 = uniform(0.0, 0.1);
            ap->prepare(&s.step, &s.opt, &s.in, &s.c);
        }
        double vc[3];
        random_vc(&s, vc);
        vc[2] += uniform(0.0, 3.0) * s.vscale;
        const double r = ap->inactive_radius(&s.c, vc);
        if (!(r >= 0)) {
            continue;
        }
        boxes++;
        const int lagged = ap != &ccb_approx_sap && ap != &ccb_approx_similar;
        const double thr = ap == &ccb_approx_sap ? s.c.vn_hat : s.c.vhat;
        const double mu = lagged ? 0.0 : s.c.mu;
        const double tight = (vc[2] - thr - mu * hypot(vc[0], vc[1])) / (1 + sqrt(2.0) * mu);
        /* [the 1e-9 margin of ccb_separation_radius, relative to the velocities involved] */
        CHECK(r <= tight &&
                  r >= tight - 1e-8 * (fabs(vc[2]) + fabs(thr) + mu * hypot(vc[0], vc[1])),
              "%s: radius %.17g against the separation margin %.17g", ap->name, r, tight);
        for (int p = 0; p < 64; ++p) { /* the 8 corners, then random points of the box */
            double x[3], g[3], G[9];
            for (int k = 0; k < 3; ++k) {
                x[k] = vc[k] + (p < 8 ? ((p >> k) & 1 ? r : -r) : uniform(-r, r));
            }
            const double l = ap->eval(&s.c, x, g, G);
            int zero = l == 0.0 && g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0;
            for (int k = 0; k < 9; ++k) {
                zero = zero && G[k] == 0.0;
            }
            CHECK(zero,
                  "%s: inside the inactive radius the law is exactly zero (l = %g, "
                  "gamma = %g %g %g)",
                  ap->name, l, g[0], g[1], g[2]);
        }
    }
    CHECK(boxes > 1000, "inactive boxes exercised: %d", boxes);
    /* an active contact has none: pressed Lagged contact (mu gamma_n0 > 0), approaching SAP */
    scenario s = random_scenario(&ccb_approx_lagged);
    s.in.phi0 = -1e-3;
    s.in.vn0 = 0.0;
    s.in.mu = 0.5;
    ccb_approx_lagged.prepare(&s.step, &s.opt, &s.in, &s.c);
    const double far_apart[3] = {0.0, 0.0, 1e3};
    CHECK(ccb_approx_lagged.inactive_radius(&s.c, far_apart) < 0,
          "Lagged: friction of a pressed contact acts at every velocity");
}

static void test_lagged_regularization(void) {
    for (int trial = 0; trial < 200; ++trial) {
        scenario s = random_scenario(&ccb_approx_lagged_reg);
        const ccb_constraint* c = &s.c;
        CHECK(c->eps_s >= s.step.vs, "eps_s >= v_s");
        const double reg = s.opt.sigma * s.in.w * s.in.mu * c->gn0;
        CHECK_REL(c->eps_s, fmax(s.step.vs, reg), TOL_CLOSED, 1e-300,
                  "eps_s = max(v_s, sigma w mu gn0)");
        /* gamma_n0 = 0 (no overlap at the start) => eps_s = v_s and no friction (fact 13) */
        ccb_contact_input in = s.in;
        in.phi0 = fabs(in.phi0) + 1e-9;
        ccb_constraint c2;
        ccb_approx_lagged_reg.prepare(&s.step, &s.opt, &in, &c2);
        CHECK(c2.gn0 == 0.0 && c2.eps_s == s.step.vs, "phi0 >= 0: gn0 = 0, eps_s = v_s");
        const double vc[3] = {0.3 * s.vscale, -0.2 * s.vscale, -s.vscale};
        double g[3];
        ccb_approx_lagged.prepare(&s.step, &s.opt, &in, &c2);
        ccb_approx_lagged.eval(&c2, vc, g, NULL);
        CHECK(g[0] == 0.0 && g[1] == 0.0, "Lagged: no friction in the first step of contact");
    }
    /* strong impact: eps_s = sigma w mu gn0 */
    const ccb_approx_options o = ccb_approx_options_default();
    const ccb_step_context step = {0.0, 1e-3, 1e-4};
    ccb_contact_input in = {1e7, 0.0, 0.0, 1.0, -1e-3, -1.0, 2.0, 0.0};
    ccb_constraint c;
    ccb_approx_lagged_reg.prepare(&step, &o, &in, &c);
    CHECK_REL(c.gn0, 1e-3 * 1e7 * 1e-3, TOL_CLOSED, 0, "gn0 = dt k (-phi0) (d = 0)");
    CHECK_REL(c.eps_s, 1e-3 * 2.0 * 1.0 * 10.0, TOL_CLOSED, 0, "eps_s = sigma w mu gn0 in impacts");
}

/* A smooth approximation defined here, as a user of the library would (through the public API):
 * a quadratic penalty, cost (k dt^2/2) (vn - vhat)_-^2 + (mu/2) |vt|^2. */
static void toy_prepare(const ccb_step_context* step, const ccb_approx_options* o,
                        const ccb_contact_input* in, ccb_constraint* c) {
    (void)o;
    memset(c, 0, sizeof *c);
    c->dt = step->dt, c->k = in->k, c->mu = in->mu, c->phi0 = in->phi0;
    c->vhat = c->user[0] = -in->phi0 / step->dt; /* the normal kink, where kink_margin looks */
}
static double toy_eval(const ccb_constraint* c, const double vc[3], double g[3], double G[9]) {
    const double gap = vc[2] < c->user[0] ? vc[2] - c->user[0] : 0.0, kn = c->k * c->dt * c->dt;
    g[0] = -c->mu * vc[0], g[1] = -c->mu * vc[1], g[2] = -kn * gap;
    if (G) {
        memset(G, 0, 9 * sizeof(double));
        G[0] = G[4] = c->mu;
        G[8] = gap < 0 ? kn : 0.0;
    }
    return 0.5 * kn * gap * gap + 0.5 * c->mu * (vc[0] * vc[0] + vc[1] * vc[1]);
}
static double toy_stiction(const ccb_constraint* c, const double gamma[3]) {
    (void)c, (void)gamma;
    return 0.0;
}
static const ccb_approx k_toy = {"toy-quadratic",
                                 "smooth quadratic penalty (registry test)",
                                 "test_approx.c",
                                 toy_prepare,
                                 toy_eval,
                                 toy_stiction,
                                 NULL};

static void test_registry(void) {
    CHECK(ccb_approx_count() == 4, "four built-in approximations");
    const char* names[] = {"sap", "similar", "lagged", "lagged-reg"};
    for (int i = 0; i < 4; ++i) {
        const ccb_approx* ap = ccb_approx_find(names[i]);
        CHECK(ap != NULL && ap == BUILTIN[i] && ap == ccb_approx_get(i), "find '%s'", names[i]);
    }
    /* registration: bad entries are refused with a message and change nothing */
    char rmsg[256] = "";
    ccb_approx bad = k_toy;
    bad.eval = NULL;
    CHECK(ccb_approx_register(&bad, rmsg, sizeof rmsg) == CCB_E_INVALID && strstr(rmsg, "eval"),
          "an approximation without eval is refused (%s)", rmsg);
    bad = k_toy;
    bad.name = "Toy Quadratic";
    CHECK(ccb_approx_register(&bad, rmsg, sizeof rmsg) == CCB_E_INVALID && strstr(rmsg, "a-z"),
          "a name with capitals and blanks is refused (%s)", rmsg);
    bad = k_toy;
    bad.name = "lagged";
    CHECK(ccb_approx_register(&bad, rmsg, sizeof rmsg) == CCB_E_INVALID && strstr(rmsg, "exists"),
          "a taken name is refused (%s)", rmsg);
    CHECK(ccb_approx_register(NULL, rmsg, sizeof rmsg) == CCB_E_INVALID, "NULL is refused");
    CHECK(ccb_approx_count() == 4, "refusals register nothing");
    /* a good one joins the registry after the built-ins; the generic tests (fact 1, fact 4) that
     * follow in main() then check it too */
    CHECK(ccb_approx_register(&k_toy, rmsg, sizeof rmsg) == CCB_OK, "register: %s", rmsg);
    CHECK(ccb_approx_count() == 5 && ccb_approx_get(4) == &k_toy &&
              ccb_approx_find("toy-quadratic") == &k_toy,
          "a registered approximation is found by index and name");
    CHECK(ccb_approx_find("tamsi") == NULL && ccb_approx_find(NULL) == NULL, "unknown name");
    ccb_approx_options o = ccb_approx_options_default();
    char msg[256] = "";
    o.sigma = -1;
    CHECK(ccb_approx_options_check(&o, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "sigma"),
          "negative sigma rejected with a message (%s)", msg);
    o = ccb_approx_options_default();
    o.beta = NAN;
    CHECK(ccb_approx_options_check(&o, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "beta"),
          "NaN beta rejected (%s)", msg);
}

/* ---- anisotropic friction (formulation-convex §18; ICF Appendix B) ---- */

/* A scenario with the friction tensor diag(mu, mu2), mu != mu2, both > 0. */
static scenario random_aniso(const ccb_approx* ap) {
    scenario s = random_scenario(ap);
    s.in.mu = uniform(0.1, 2.5);
    do {
        s.in.mu2 = s.in.mu * loguniform(0.2, 5.0);
    } while (fabs(s.in.mu2 / s.in.mu - 1.0) < 1e-3);
    ccb_constraint_prepare(ap, &s.step, &s.opt, &s.in, &s.c);
    return s;
}

/* The anisotropic constraint of every approximation: the potential's derivatives (ICF eq. 32's
 * symmetric Jacobian: G symmetric PSD, FD of l is -gamma, FD of gamma is -G), the elliptic cone,
 * friction in the direction of maximum dissipation -M^2 v_t (eq. 31), the isotropic limit. */
static void test_anisotropic(void) {
    for (int a = 0; a < ccb_approx_count(); ++a) {
        const ccb_approx* ap = ccb_approx_get(a);
        int nfd = 0, nslide = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const scenario s = random_aniso(ap);
            const double A[2] = {s.c.aniso[0], s.c.aniso[1]}, amax = fmax(A[0], A[1]);
            const double mu_min = fmin(s.in.mu, s.in.mu2);
            CHECK(fmin(A[0], A[1]) == 1.0 && s.c.mu == mu_min,
                  "%s: A = (%g, %g) has min 1, the law's mu = mu_min", ap->name, A[0], A[1]);
            /* [one rounding of mu/mu_min] */
            CHECK_REL(A[0] * mu_min, s.in.mu, 4e-16, 0, "A_1 = mu/mu_min");
            double vc[3];
            random_vc(&s, vc);
            double g[3], G[9];
            ccb_constraint_eval(ap, &s.c, vc, g, G);
            check_sym_psd(ap, G);
            /* the elliptic cone |A^-1 gamma_t| <= mu_min gamma_n (|M^-1 gamma_t| <= gamma_n);
             * Lagged's bound is the previous step's gamma_n0 */
            const double ge = hypot(g[0] / A[0], g[1] / A[1]);
            const double gn = ap->eval == ccb_approx_lagged.eval ? s.c.gn0 : g[2];
            if (a < 4) {
                CHECK(ge <= mu_min * gn * (1 + 1e-12) + 1e-300,
                      "%s: |M^-1 gamma_t| <= gamma_n: %g > %g", ap->name, ge, mu_min * gn);
            }
            /* maximum dissipation (eq. 31): gamma_t antiparallel to M^2 v_t */
            const double m2v[2] = {A[0] * A[0] * vc[0], A[1] * A[1] * vc[1]};
            const double gt = hypot(g[0], g[1]), mv = hypot(m2v[0], m2v[1]);
            if (gt > 0 && mv > 0) {
                const double cosang = -(g[0] * m2v[0] + g[1] * m2v[1]) / (gt * mv);
                /* [round-off of the scaled products, a few ulps] */
                CHECK_ABS(cosang, 1.0, 1e-12, "gamma_t along -M^2 v_t (ICF eq. 31)");
                nslide++;
            }
            /* derivatives: FD steps as the isotropic test's, over max(A) (the law's variables
             * are A v_t), where the stencil stays off the kinks of the scaled law */
            const double u[3] = {A[0] * vc[0], A[1] * vc[1], vc[2]};
            const double ut = hypot(u[0], u[1]), s_all = fmax(norm3(u), 1e-3 * s.vscale);
            const double lt = ap == &ccb_approx_sap ? (ut > 0 ? ut : s_all)
                                                    : sqrt(ut * ut + s.c.eps_s * s.c.eps_s);
            const double hk[3] = {1e-6 * fmin(lt, s_all) / amax, 1e-6 * fmin(lt, s_all) / amax,
                                  1e-6 * s_all};
            if (a >= 4 || kink_margin(ap, &s.c, u, 1e-6 * fmax(fmin(lt, s_all), s_all)) < 10.0) {
                continue;
            }
            check_fd(ap, &s.c, vc, hk, g, G, fmax(norm3(g), norm9(G) * s.vscale * 1e-3));
            nfd++;
        }
        CHECK(nslide > 100, "%s: only %d sliding samples", ap->name, nslide);
        CHECK(a >= 4 || nfd > 100, "%s: only %d smooth samples", ap->name, nfd);
    }
    /* Lagged's potential is ICF Appendix B's gamma_n0 eps F(|M v_t|/eps), F(x) = sqrt(1 + x^2) - 1,
     * with eps = mu_min eps_s (formulation-convex §18.2), plus the normal potential */
    for (int trial = 0; trial < 200; ++trial) {
        const scenario s = random_aniso(&ccb_approx_lagged);
        double vc[3], g[3];
        random_vc(&s, vc);
        const double l = ccb_constraint_eval(&ccb_approx_lagged, &s.c, vc, g, NULL);
        const double mv = hypot(s.in.mu * vc[0], s.in.mu2 * vc[1]);
        const double eps = fmin(s.in.mu, s.in.mu2) * s.c.eps_s;
        const double lt = s.c.gn0 * (mv * mv / (sqrt(mv * mv + eps * eps) + eps));
        CHECK_REL(l, lt + ccb_hc_eval(&s.c, vc[2], NULL, NULL), 1e-12, 1e-300,
                  "Lagged anisotropic potential = gamma_n0 eps F(|M v_t|/eps) + l_n");
    }
    /* the isotropic limit: mu2 = mu, and mu2 = 0, are the approximation's own law bit for bit;
     * mu2 = mu (1 + 1e-9) is within 1e-8 of it (continuity of the change of variables) */
    for (int trial = 0; trial < 200; ++trial) {
        const ccb_approx* ap = BUILTIN[trial % 4];
        scenario s = random_scenario(ap);
        if (!(s.in.mu > 0)) {
            continue;
        }
        double vc[3], g0[3], G0[9], g1[3], G1[9];
        random_vc(&s, vc);
        const double l0 = ap->eval(&s.c, vc, g0, G0);
        for (int k = 0; k < 2; ++k) {
            s.in.mu2 = k == 0 ? 0.0 : s.in.mu;
            ccb_constraint_prepare(ap, &s.step, &s.opt, &s.in, &s.c);
            const double l1 = ccb_constraint_eval(ap, &s.c, vc, g1, G1);
            CHECK(l1 == l0 && memcmp(g0, g1, sizeof g0) == 0 && memcmp(G0, G1, sizeof G0) == 0,
                  "%s: mu2 = %g is the isotropic law exactly", ap->name, s.in.mu2);
        }
        s.in.mu2 = s.in.mu * (1 + 1e-9);
        ccb_constraint_prepare(ap, &s.step, &s.opt, &s.in, &s.c);
        ccb_constraint_eval(ap, &s.c, vc, g1, NULL);
        for (int i = 0; i < 3; ++i) {
            /* [1e-9 relative change of the tensor moves gamma by O(1e-9) of its scale] */
            CHECK_ABS(g1[i], g0[i], 1e-8 * (norm3(g0) + 1e-300), "continuity at mu2 -> mu");
        }
    }
    /* the inactive radius of the scaled law: the whole box is exactly inactive */
    int boxes = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const ccb_approx* ap = BUILTIN[trial % 4];
        scenario s = random_aniso(ap);
        s.in.phi0 = uniform(0.0, 0.1);
        ccb_constraint_prepare(ap, &s.step, &s.opt, &s.in, &s.c);
        double vc[3];
        random_vc(&s, vc);
        vc[2] += uniform(0.0, 3.0) * s.vscale;
        const double r = ccb_constraint_inactive_radius(ap, &s.c, vc);
        if (!(r >= 0)) {
            continue;
        }
        boxes++;
        for (int p = 0; p < 8; ++p) {
            double x[3], g[3];
            for (int k = 0; k < 3; ++k) {
                x[k] = vc[k] + ((p >> k) & 1 ? r : -r);
            }
            const double l = ccb_constraint_eval(ap, &s.c, x, g, NULL);
            CHECK(l == 0.0 && g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0,
                  "%s: anisotropic law zero inside its inactive radius", ap->name);
        }
    }
    CHECK(boxes > 300, "anisotropic inactive boxes exercised: %d", boxes);
}

int main(void) {
    RUN(test_registry);
    RUN(test_fd_gradients_and_hessians);
    RUN(test_sap_boundaries);
    RUN(test_hunt_crossley);
    RUN(test_coulomb_bounds);
    RUN(test_stiction_stiffness);
    RUN(test_lagged_regularization);
    RUN(test_inactive_radius);
    RUN(test_anisotropic);
    return TEST_SUMMARY();
}
