/* A toy convex approximation added the way a user adds one: this file, through the public API
 * only (ccb/ccb.h), and one registration call. The program is then `ccb` with the toy as a
 * variant of every case: CI/toy_variant_test.sh checks that `ccb list`, `ccb compare` and the
 * three standard studies pick it up with no other change (guide §12). Built with
 * CCB_TOY_PLUGIN the same file is a plugin (plugins/toy.so, the approximation kind of
 * CI/plugin_test.sh): the registration moves into ccb_plugin_register.
 *
 * The toy is Lagged without dissipation: a linear normal penalty and friction from the previous
 * step's normal impulse with a soft norm (spec formulation-convex §5 with d = 0),
 *   l(v) = dt^2 k/2 (v_n - vhat)_-^2 + mu gn0 (sqrt(|v_t|^2 + eps^2) - eps),
 *   vhat = -phi0/dt, gn0 = dt k (-phi0)_+, eps = v_s,
 * convex with gamma = -dl/dv and G = -dgamma/dv PSD. Its constants live in the user block. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccb/ccb.h"
#ifndef CCB_TOY_PLUGIN
#include "cli.h"
#endif

enum { U_VHAT, U_FRIC, U_EPS, U_KN }; /* user[]: vhat, mu gn0, eps, dt^2 k */

static void toy_prepare(const ccb_step_context* step, const ccb_approx_options* o,
                        const ccb_contact_input* in, ccb_constraint* c) {
    (void)o;
    const double dt = step->dt;
    memset(c, 0, sizeof *c);
    c->dt = dt, c->k = in->k, c->mu = in->mu, c->phi0 = in->phi0;
    c->user[U_VHAT] = -in->phi0 / dt;
    c->user[U_FRIC] = in->mu * dt * in->k * fmax(-in->phi0, 0.0);
    c->user[U_EPS] = step->vs;
    c->user[U_KN] = dt * dt * in->k;
}

static double toy_eval(const ccb_constraint* c, const double vc[3], double g[3], double G[9]) {
    const double gap = fmin(vc[2] - c->user[U_VHAT], 0.0), kn = c->user[U_KN];
    const double eps = c->user[U_EPS], f = c->user[U_FRIC];
    const double s = sqrt(vc[0] * vc[0] + vc[1] * vc[1] + eps * eps);
    g[0] = -f * vc[0] / s;
    g[1] = -f * vc[1] / s;
    g[2] = -kn * gap;
    if (G) {
        memset(G, 0, 9 * sizeof(double));
        const double s3 = s * s * s;
        G[0] = f * (s * s - vc[0] * vc[0]) / s3;
        G[1] = G[3] = -f * vc[0] * vc[1] / s3;
        G[4] = f * (s * s - vc[1] * vc[1]) / s3;
        G[8] = gap < 0 ? kn : 0.0;
    }
    return 0.5 * kn * gap * gap + f * (s - eps);
}

static double toy_stiction(const ccb_constraint* c, const double gamma[3]) {
    (void)gamma;
    return c->user[U_EPS];
}

static const ccb_approx k_toy = {"toy-penalty",
                                 "toy: linear penalty, Lagged friction without dissipation "
                                 "(cases/tests/toy_variant.c)",
                                 "toy_variant.c",
                                 toy_prepare,
                                 toy_eval,
                                 toy_stiction,
                                 NULL}; /* no inactive radius: evaluated at every iterate */

#ifdef CCB_TOY_PLUGIN
const int ccb_plugin_abi = CCB_ABI_VERSION;
int ccb_plugin_register(char* msg, size_t n);
int ccb_plugin_register(char* msg, size_t n) {
    return ccb_approx_register(&k_toy, msg, n) == CCB_OK ? 0 : 1;
}
#else
int main(int argc, char** argv) {
    char msg[256];
    if (ccb_approx_register(&k_toy, msg, sizeof msg) != CCB_OK) {
        fprintf(stderr, "toy: %s\n", msg);
        return 2;
    }
    return ccb_cli_main(argc, argv);
}
#endif
