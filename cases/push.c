/* Case PUSH — a pusher moves a ball to a target by trajectory optimization through contact
 * (spec: cases.md §14; formulation-convex §9.6; in the spirit of ICF §X-B, Fig. 25).
 *
 * Planar (x, z): a ball (planar body x, z, theta) rests on a rigid floor; a spherical pusher on a
 * horizontal prismatic coordinate (a planar body with z and theta locked) starts 2 cm behind it,
 * its centre at the ball's centre height, so that they meet at the ball's equator. The pusher is
 * driven by a generalized force u(t), held over each step (ccb_sim_set_force). The nominal run
 * (`ccb run push`, the standard studies) pushes with a constant force F0.
 *
 * Study `ilqr`: Gauss-Newton shooting (the iLQR linearization: per step the Jacobians A_k, B_k of
 * the step from ccb/deriv.h, chained backwards into the sensitivity of the final state to every
 * control) on the cost
 *   J(U) = 1/2 [ (x_b(T) - x*)^2 / sx^2 + v_b(T)^2 / sv^2 + sum_k dt u_k^2 / su^2 ],
 * Levenberg-Marquardt damping and a backtracking line search on J, no contact schedule (the first
 * guess is the nominal constant push, which touches the ball), for every convex approximation;
 * the optimized controls replayed in a fresh simulation. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "case_model.h"
#include "runs.h"

enum {
    P_MB,
    P_RB,
    P_MP,
    P_RP,
    P_GAP,
    P_F0,
    P_TARGET,
    P_SX,
    P_SV,
    P_SU,
    P_MU,
    P_K,
    P_D,
    P_TAU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "mass_ball", .def = 0.2, .unit = "kg", .hi = 1e3, .lo_open = 1,
     .meaning = "ball mass (solid sphere, I = 2/5 m R^2)", .tag = "[default?]"},
    {.name = "radius_ball", .def = 0.05, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "ball radius", .tag = "[default?]"},
    {.name = "mass_pusher", .def = 0.5, .unit = "kg", .hi = 1e3, .lo_open = 1,
     .meaning = "pusher mass", .tag = "[default?]"},
    {.name = "radius_pusher", .def = 0.03, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "pusher radius (its centre at the ball's centre height)", .tag = "[default?]"},
    {.name = "gap", .def = 0.02, .unit = "m", .hi = 0.09, .lo_open = 1,
     .meaning = "initial gap between pusher and ball (inside the contact margin)",
     .tag = "[default?]"},
    {.name = "F0", .def = 1.0, .unit = "N", .lo = -100, .hi = 100,
     .meaning = "constant push of the nominal run and the optimizer's first guess",
     .tag = "[default?]"},
    {.name = "target", .def = 0.15, .unit = "m", .lo = -10, .hi = 10,
     .meaning = "target x* of the ball's centre at T", .tag = "[default?]"},
    {.name = "sx", .def = 0.005, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "cost scale of the final position error", .tag = "[default?]"},
    {.name = "sv", .def = 0.5, .unit = "m/s", .hi = 100, .lo_open = 1,
     .meaning = "cost scale of the final ball speed", .tag = "[default?]"},
    {.name = "su", .def = 5.0, .unit = "N s^0.5", .hi = 1e4, .lo_open = 1,
     .meaning = "cost scale of the control effort (sum of dt u^2)", .tag = "[default?]"},
    {.name = "mu", .def = 0.5, .unit = "-", .hi = 10,
     .meaning = "friction coefficient (every shape)", .tag = "[default?]"},
    {.name = "k", .def = 1e5, .unit = "N/m", .hi = 1e12, .lo_open = 1,
     .meaning = "contact stiffness of ball and pusher", .tag = "[default?]"},
    {.name = "d", .def = 5.0, .unit = "s/m", .hi = 1e4,
     .meaning = "Hunt & Crossley dissipation (Lagged, Similar)", .tag = "[default?]"},
    {.name = "tau_d", .def = 1e-3, .unit = "s", .hi = 10, .meaning = "SAP relaxation time",
     .tag = "[default?]", .read_if = "approx=sap"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "ICF Fig. 25 optimizes an arm moving a ball with hydroelastic contact (dt = 10 ms, 0.5 s); "
    "its model is not in the text. This case keeps the task (move a ball to a target in 0.5 s "
    "at dt = 10 ms through contact, no contact schedule) with a planar pusher and point contact; "
    "every parameter is [default?].",
    "Target: the ball's centre 15 cm ahead at T = 0.5 s (cost scale 5 mm), its speed weighted "
    "lightly (0.5 m/s: a pusher cannot pull, so a rolling ball cannot be stopped exactly).",
    "First guess: the nominal constant push F0 = 1 N (it reaches the ball at t ~ 0.1 s); with "
    "u = 0 the pusher never touches the ball and every gradient of the ball's state is zero.",
    "Gauss-Newton with Levenberg-Marquardt damping lambda (1e-6 relative to the largest diagonal "
    "term, x10 on a rejected step, /10 on an accepted one) and a backtracking line search "
    "(halving, 20 tries) that accepts only a decrease of J: the cost falls monotonically by "
    "construction, and PUSH-1 checks it. Stops when J falls by less than 1e-9 relative or after "
    "50 iterations.",
};

static const char* const k_obs[] = {"gap [m]", "fn [N]", "u [N]"};
enum { O_GAP, O_FN, O_U, O_COUNT };

typedef struct push_data {
    double F0;
    int ball, pusher;
} push_data;

static void nominal_force(double t, const ccb_pose* X, const ccb_twist* V, void* user, ccb_vec3* f,
                          ccb_vec3* tau) {
    (void)t, (void)X, (void)V;
    const push_data* pd = user;
    *f = ccb_v3(pd->F0, 0, 0);
    *tau = ccb_v3(0, 0, 0);
}

static int push_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    push_data* pd = calloc(1, sizeof *pd);
    if (pd == NULL) {
        snprintf(msg, n, "push: out of memory");
        return -1;
    }
    pd->F0 = P[P_F0];
    const double Rb = P[P_RB], Rp = P[P_RP];
    const ccb_material mat = {P[P_K], P[P_D], P[P_TAU], P[P_MU], 0.0};
    ccb_model* m = NULL;
    ccb_status s = ccb_model_create(&m);
    if (s != CCB_OK) {
        free(pd);
        snprintf(msg, n, "push: out of memory");
        return -1;
    }
    ccb_body_def ground;
    ccb_shape_def floor;
    case_ground(P[P_MU], &ground, &floor);
    int ig = -1;
    s = ccb_model_set_gravity(m, ccb_v3(0, 0, -P[P_G]));
    if (s == CCB_OK) {
        s = ccb_model_add_body(m, &ground, &ig);
    }
    if (s == CCB_OK) {
        s = ccb_model_add_shape(m, ig, &floor, NULL);
    }
    /* the ball at its static sink m g / k on the floor (the floor is rigid: k is the ball's) */
    ccb_body_def ball = ccb_body_def_default();
    ball.name = "ball";
    ball.mass = P[P_MB];
    ball.inertia = ccb_m3_identity();
    ball.inertia.m[0] = ball.inertia.m[4] = ball.inertia.m[8] = 0.4 * P[P_MB] * Rb * Rb;
    ball.pose = ccb_pose_planar(0.0, Rb - P[P_MB] * P[P_G] / P[P_K], 0.0);
    if (s == CCB_OK) {
        s = ccb_model_add_body(m, &ball, &pd->ball);
    }
    ccb_shape_def bs = ccb_shape_def_default();
    bs.name = "ball";
    bs.type = CCB_SHAPE_SPHERE;
    bs.radius = Rb;
    bs.material = mat;
    if (s == CCB_OK) {
        s = ccb_model_add_shape(m, pd->ball, &bs, NULL);
    }
    /* the pusher: x only, its centre at the ball's centre height */
    ccb_body_def pu = ccb_body_def_default();
    pu.name = "pusher";
    pu.mass = P[P_MP];
    pu.locked = CCB_LOCK_Z | CCB_LOCK_THETA;
    pu.pose = ccb_pose_planar(-(Rb + Rp + P[P_GAP]), ball.pose.p.z, 0.0);
    pu.force = nominal_force;
    pu.force_user = pd;
    if (s == CCB_OK) {
        s = ccb_model_add_body(m, &pu, &pd->pusher);
    }
    ccb_shape_def ps = ccb_shape_def_default();
    ps.name = "pusher";
    ps.type = CCB_SHAPE_SPHERE;
    ps.radius = Rp;
    ps.material = mat;
    if (s == CCB_OK) {
        s = ccb_model_add_shape(m, pd->pusher, &ps, NULL);
    }
    if (s == CCB_OK) { /* the pusher rides above the floor on its locked z */
        s = ccb_model_filter_pair(m, ig, pd->pusher);
    }
    return case_finish_model(m, s, "push", pd, out, data, msg, n);
}

static void push_destroy(void* data) {
    free(data);
}

static void push_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

/* coordinates: ball (x, z, theta) then pusher (x) */
enum { QB_X = 0, QB_Z = 1, QP_X = 3, VB_X = 0, VP_X = 3, PUSH_NQ = 4, PUSH_NV = 4 };

static void push_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    const push_data* pd = data;
    const double* q = ccb_sim_q(sim);
    o[O_GAP] = (q[QB_X] - q[QP_X]) - P[P_RB] - P[P_RP];
    o[O_FN] = 0.0;
    for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        if ((c->geometry.body_a == pd->pusher) != (c->geometry.body_b == pd->pusher)) {
            o[O_FN] += c->force[2];
        }
    }
    const double* u = ccb_sim_force(sim);
    o[O_U] = u ? u[VP_X] : pd->F0;
}

/* ---- the optimization (study ilqr) ------------------------------------------------------- */

#define ILQR_MAX_N 100
#define ILQR_MAX_IT 50
#define NX (PUSH_NQ + PUSH_NV)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct ilqr_prob {
    ccb_sim* sim;
    double u_init; /* the first guess, a constant push [N] */
    ccb_deriv* d;
    const double* P;
    double dt;
    int N;
    double q0[PUSH_NQ], v0[PUSH_NV];
    double X[ILQR_MAX_N + 1][NX]; /* the rollout's states */
} ilqr_prob;

/* J of the final state and the controls. */
static double cost_of(const ilqr_prob* p, const double* xN, const double* U) {
    const double* P = p->P;
    const double ex = (xN[QB_X] - P[P_TARGET]) / P[P_SX];
    const double ev = xN[PUSH_NQ + VB_X] / P[P_SV];
    double eu = 0.0;
    for (int k = 0; k < p->N; ++k) {
        eu += p->dt * U[k] * U[k];
    }
    return 0.5 * (ex * ex + ev * ev + eu / (P[P_SU] * P[P_SU]));
}

/* Simulates the controls U from the initial state; the states into p->X. 1, or 0 on a failure. */
static int rollout(ilqr_prob* p, const double* U) {
    double u[PUSH_NV] = {0};
    if (ccb_sim_set_state(p->sim, 0.0, p->q0, p->v0) != CCB_OK) {
        return 0;
    }
    memcpy(p->X[0], p->q0, sizeof p->q0);
    memcpy(p->X[0] + PUSH_NQ, p->v0, sizeof p->v0);
    for (int k = 0; k < p->N; ++k) {
        u[VP_X] = U[k];
        if (ccb_sim_set_force(p->sim, u) != CCB_OK || ccb_sim_step(p->sim) != CCB_OK) {
            return 0;
        }
        memcpy(p->X[k + 1], ccb_sim_q(p->sim), PUSH_NQ * sizeof(double));
        memcpy(p->X[k + 1] + PUSH_NQ, ccb_sim_v(p->sim), PUSH_NV * sizeof(double));
    }
    return 1;
}

/* S[k][i] = d x_N[i] / d u_k along the rollout of U (formulation-convex §9.6): per step the
 * Jacobians A_k (NX directions) and B_k (the control) by ccb_deriv_jvp, chained backwards. */
static int sensitivities(ilqr_prob* p, const double* U, double (*S)[NX]) {
    static _Thread_local double A[ILQR_MAX_N][NX][NX], B[ILQR_MAX_N][NX];
    double u[PUSH_NV] = {0};
    for (int k = 0; k < p->N; ++k) {
        const double* x = p->X[k];
        u[VP_X] = U[k];
        if (ccb_sim_set_force(p->sim, u) != CCB_OK ||
            ccb_sim_set_state(p->sim, k * p->dt, x, x + PUSH_NQ) != CCB_OK ||
            ccb_sim_step(p->sim) != CCB_OK ||
            ccb_deriv_linearize(p->d, p->sim, NULL, k * p->dt, x, x + PUSH_NQ, ccb_sim_v(p->sim)) !=
                CCB_OK) {
            return 0;
        }
        for (int j = 0; j <= NX; ++j) { /* column j of A_k, then B_k */
            double e[NX] = {0}, du[PUSH_NV] = {0}, out[NX];
            ccb_step_dir dir = ccb_step_dir_zero();
            if (j < NX) {
                e[j] = 1.0;
                dir.dq0 = e;
                dir.dv0 = e + PUSH_NQ;
            } else {
                du[VP_X] = 1.0;
                dir.du = du;
            }
            if (ccb_deriv_jvp(p->d, &dir, out, out + PUSH_NQ) != CCB_OK) {
                return 0;
            }
            for (int i = 0; i < NX; ++i) {
                if (j < NX) {
                    A[k][i][j] = out[i];
                } else {
                    B[k][i] = out[i];
                }
            }
        }
    }
    double Phi[NX][NX], T[NX][NX]; /* d x_N / d x_{k+1} */
    for (int i = 0; i < NX; ++i) {
        for (int j = 0; j < NX; ++j) {
            Phi[i][j] = i == j;
        }
    }
    for (int k = p->N - 1; k >= 0; --k) {
        for (int i = 0; i < NX; ++i) {
            double s = 0.0;
            for (int j = 0; j < NX; ++j) {
                s += Phi[i][j] * B[k][j];
            }
            S[k][i] = s;
        }
        for (int i = 0; i < NX; ++i) {
            for (int j = 0; j < NX; ++j) {
                double s = 0.0;
                for (int l = 0; l < NX; ++l) {
                    s += Phi[i][l] * A[k][l][j];
                }
                T[i][j] = s;
            }
        }
        memcpy(Phi, T, sizeof Phi);
    }
    return 1;
}

/* In-place Cholesky solve of the n x n SPD system M x = b (row-major); 0 if not SPD. */
static int chol_solve(int n, double* M, double* b) {
    for (int j = 0; j < n; ++j) {
        double s = M[j * n + j];
        for (int k = 0; k < j; ++k) {
            s -= M[j * n + k] * M[j * n + k];
        }
        if (!(s > 0)) {
            return 0;
        }
        M[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; ++i) {
            double t = M[i * n + j];
            for (int k = 0; k < j; ++k) {
                t -= M[i * n + k] * M[j * n + k];
            }
            M[i * n + j] = t / M[j * n + j];
        }
    }
    for (int i = 0; i < n; ++i) {
        double t = b[i];
        for (int k = 0; k < i; ++k) {
            t -= M[i * n + k] * b[k];
        }
        b[i] = t / M[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double t = b[i];
        for (int k = i + 1; k < n; ++k) {
            t -= M[k * n + i] * b[k];
        }
        b[i] = t / M[i * n + i];
    }
    return 1;
}

typedef struct ilqr_result {
    int ok, iterations, increases;
    double cost0, cost, err, speed, replay_diff, wall, wall_deriv;
    /* the chained d x_b,N / d u_k against differences of rollouts, relative, and the
     * disagreement of the differences' two steps: at the first guess and at the final controls */
    double traj_err[2], traj_kink[2];
    double hist[ILQR_MAX_IT + 1];
    int nhist;
    double U[ILQR_MAX_N];
    double X[ILQR_MAX_N + 1][NX];
    char msg[200];
} ilqr_result;

/* The derivative the optimizer uses, d x_b,N / d u_k chained over the N steps (sensitivities),
 * against central differences of whole rollouts at h = 1e-3 N and h/2, combined by Richardson:
 * the largest error over k relative to the largest derivative (*err), and the largest relative
 * disagreement of the two difference steps (*kink: ~0 where the trajectory is smooth in every
 * u_k; where it is not, a contact or stick-slip event sits within h, the derivative is that of
 * one side and the differences are not a reference). The rollouts solve each step to the case's
 * Newton tolerance, as the optimizer's do. Leaves p->X as the rollout of U. */
static void traj_check(ilqr_prob* p, const double* U, double* Ut, double* err, double* kink) {
    static _Thread_local double S[ILQR_MAX_N][NX];
    const int N = p->N;
    const double h = 1e-3;
    *err = *kink = NAN;
    if (!rollout(p, U) || !sensitivities(p, U, S)) {
        return;
    }
    double emax = 0.0, smax = 0.0, kmax = 0.0;
    for (int k = 0; k < N && !isnan(emax); ++k) {
        double d[2];
        for (int l = 0; l < 2; ++l) {
            const double hl = h / (1 + l);
            double xp = NAN, xm = NAN;
            memcpy(Ut, U, (size_t)N * sizeof U[0]);
            Ut[k] = U[k] + hl;
            if (rollout(p, Ut)) {
                xp = p->X[N][QB_X];
            }
            Ut[k] = U[k] - hl;
            if (rollout(p, Ut)) {
                xm = p->X[N][QB_X];
            }
            d[l] = (xp - xm) / (2 * hl);
        }
        const double fd = (4 * d[1] - d[0]) / 3;
        emax = isnan(fd) ? NAN : fmax(emax, fabs(fd - S[k][QB_X]));
        smax = fmax(smax, fabs(S[k][QB_X]));
        kmax = fmax(kmax, fabs(d[0] - d[1]));
    }
    *err = emax / smax;
    *kink = kmax / smax;
    if (!rollout(p, U)) {
        *err = NAN;
    }
}

/* Gauss-Newton shooting with Levenberg-Marquardt damping on the residuals
 * e = [(x_b,N - x*)/sx, v_b,N/sv, sqrt(dt) u_k/su] (formulation-convex §9.6). */
static void optimize(ilqr_prob* p, ilqr_result* R) {
    const double* P = p->P;
    const int N = p->N;
    static _Thread_local double S[ILQR_MAX_N][NX], M[ILQR_MAX_N * ILQR_MAX_N], g[ILQR_MAX_N],
        Ut[ILQR_MAX_N];
    double* U = R->U;
    for (int k = 0; k < N; ++k) {
        U[k] = p->u_init;
    }
    /* the derivative at the first guess (see traj_check; outside the timed optimization) */
    traj_check(p, U, Ut, &R->traj_err[0], &R->traj_kink[0]);
    const double t0 = now();
    if (!rollout(p, U)) {
        snprintf(R->msg, sizeof R->msg, "first rollout: %s", ccb_sim_last_error(p->sim));
        return;
    }
    double J = cost_of(p, p->X[N], U), lambda = 1e-6;
    R->cost0 = J;
    R->hist[R->nhist++] = J;
    const double wu = p->dt / (P[P_SU] * P[P_SU]);
    int it = 0;
    for (; it < ILQR_MAX_IT; ++it) {
        const double td = now();
        if (!sensitivities(p, U, S)) {
            snprintf(R->msg, sizeof R->msg, "derivatives at iteration %d: %s", it,
                     ccb_deriv_last_error(p->d));
            return;
        }
        R->wall_deriv += now() - td;
        /* J^T J and J^T e of the three groups of residuals */
        const double ex = (p->X[N][QB_X] - P[P_TARGET]) / P[P_SX];
        const double ev = p->X[N][PUSH_NQ + VB_X] / P[P_SV];
        for (int a = 0; a < N; ++a) {
            const double ja = S[a][QB_X] / P[P_SX], va = S[a][PUSH_NQ + VB_X] / P[P_SV];
            g[a] = ja * ex + va * ev + wu * U[a];
            for (int b = 0; b < N; ++b) {
                M[a * N + b] = ja * S[b][QB_X] / P[P_SX] + va * S[b][PUSH_NQ + VB_X] / P[P_SV] +
                               (a == b ? wu : 0.0);
            }
        }
        double dmax = 0.0;
        for (int a = 0; a < N; ++a) {
            dmax = fmax(dmax, M[a * N + a]);
        }
        int accepted = 0;
        for (int tries = 0; tries < 8 && !accepted; ++tries) {
            static _Thread_local double Mc[ILQR_MAX_N * ILQR_MAX_N], du[ILQR_MAX_N];
            memcpy(Mc, M, (size_t)N * N * sizeof(double));
            for (int a = 0; a < N; ++a) {
                Mc[a * N + a] += lambda * dmax;
                du[a] = -g[a];
            }
            if (!chol_solve(N, Mc, du)) {
                lambda *= 10.0;
                continue;
            }
            for (double alpha = 1.0; alpha > 1e-6 && !accepted; alpha *= 0.5) {
                for (int k = 0; k < N; ++k) {
                    Ut[k] = U[k] + alpha * du[k];
                }
                if (!rollout(p, Ut)) {
                    continue; /* a failed rollout counts as no decrease */
                }
                const double Jt = cost_of(p, p->X[N], Ut);
                if (Jt < J) {
                    accepted = 1;
                    const double rel = (J - Jt) / J;
                    memcpy(U, Ut, (size_t)N * sizeof(double));
                    J = Jt;
                    R->hist[R->nhist++] = J;
                    lambda = fmax(lambda / 10.0, 1e-12);
                    if (rel < 1e-9) {
                        it = ILQR_MAX_IT; /* converged */
                    }
                }
            }
            if (!accepted) {
                lambda *= 10.0;
            }
        }
        if (!accepted) { /* no decrease along the damped steps: a local minimum */
            break;
        }
    }
    if (!rollout(p, U)) { /* the rollout of the final controls (X for the record) */
        snprintf(R->msg, sizeof R->msg, "final rollout: %s", ccb_sim_last_error(p->sim));
        return;
    }
    R->wall = now() - t0;
    R->iterations = R->nhist - 1;
    R->cost = J;
    R->err = fabs(p->X[N][QB_X] - P[P_TARGET]);
    R->speed = p->X[N][PUSH_NQ + VB_X];
    memcpy(R->X, p->X, (size_t)(N + 1) * sizeof p->X[0]);
    for (int h = 1; h < R->nhist; ++h) { /* the cost of every accepted iterate fell */
        R->increases += !(R->hist[h] < R->hist[h - 1]);
    }
    /* the derivative the optimizer used, at its final controls (see traj_check) */
    traj_check(p, U, Ut, &R->traj_err[1], &R->traj_kink[1]);
    if (!rollout(p, U)) { /* the record's rollout again */
        snprintf(R->msg, sizeof R->msg, "final rollout: %s", ccb_sim_last_error(p->sim));
        return;
    }
    R->ok = 1;
}

#define ILQR_MAX_VAR 8

typedef struct ilqr_job {
    run_config cfg; /* F0 = 0: the optimizer's force alone drives the pusher */
    double u_init;
    ilqr_result res;
} ilqr_job;

static void ilqr_one(void* user, int i) {
    ilqr_job* job = (ilqr_job*)user + i;
    ilqr_result* R = &job->res;
    run_restart rs, fresh;
    if (run_restart_open(&job->cfg, &rs) != 0) {
        snprintf(R->msg, sizeof R->msg, "the simulator could not be made");
        return;
    }
    static _Thread_local ilqr_prob p;
    memset(&p, 0, sizeof p);
    p.sim = rs.sim;
    p.u_init = job->u_init;
    p.P = job->cfg.params;
    p.dt = job->cfg.sim.dt;
    p.N = (int)lround(job->cfg.t_final / job->cfg.sim.dt);
    if (p.N > ILQR_MAX_N || ccb_deriv_create(&p.d) != CCB_OK ||
        ccb_model_initial_state(rs.model, p.q0, p.v0) != CCB_OK) {
        snprintf(R->msg, sizeof R->msg, "%d steps (at most %d) or out of memory", p.N, ILQR_MAX_N);
        ccb_deriv_destroy(p.d);
        run_restart_close(&rs);
        return;
    }
    optimize(&p, R);
    ccb_deriv_destroy(p.d);
    run_restart_close(&rs);
    /* the optimized controls replayed in a fresh simulation */
    R->replay_diff = NAN;
    if (R->ok && run_restart_open(&job->cfg, &fresh) == 0) {
        memset(&p, 0, sizeof p);
        p.sim = fresh.sim;
        p.P = job->cfg.params;
        p.dt = job->cfg.sim.dt;
        p.N = (int)lround(job->cfg.t_final / job->cfg.sim.dt);
        ccb_model_initial_state(fresh.model, p.q0, p.v0);
        if (rollout(&p, R->U)) {
            double dmax = 0.0;
            for (int k = 0; k <= p.N; ++k) {
                for (int j = 0; j < NX; ++j) {
                    dmax = fmax(dmax, fabs(p.X[k][j] - R->X[k][j]));
                }
            }
            R->replay_diff = dmax;
        }
        run_restart_close(&fresh);
    }
}

static int ilqr_run(study_ctx* ctx, study_out* out) {
    const case_desc* cs = ctx->cs;
    if (ctx->emit) { /* no runs to hand out: the optimization is in-process, made where the
                        results are read (--from) */
        return 0;
    }
    variant_def vs[ILQR_MAX_VAR];
    char msg[256];
    const int nv = variant_select_differentiable(cs, vs, ILQR_MAX_VAR, msg, sizeof msg);
    if (nv < 0) {
        return study_fail(out, CCB_E_INVALID, "ilqr: %s", msg);
    }
    static ilqr_job jobs[ILQR_MAX_VAR];
    const char* names[ILQR_MAX_VAR];
    for (int i = 0; i < nv; ++i) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        study_config(ctx, &jobs[i].cfg, "ilqr", vs[i].name, vs[i].approx, cs->dt_default,
                     cs->t_final_default);
        variant_configure(&vs[i], &jobs[i].cfg, NAN);
        jobs[i].cfg.out_dir[0] = '\0';
        jobs[i].u_init = jobs[i].cfg.params[P_F0];
        jobs[i].cfg.params[P_F0] = 0.0; /* the optimizer drives the pusher */
        names[i] = vs[i].approx->name;
    }
    study_parallel_for(ctx, nv, ilqr_one, jobs);
    char dir[PATH_MAX];
    if (study_dir(out, "ilqr", dir, sizeof dir) != 0) {
        return 2;
    }
    strbuf tab = {0}, hist = {0}, traj = {0}, md = {0}, vars = {0};
    const double* P = ctx->params;
    const int N = (int)lround(cs->t_final_default / cs->dt_default);
    int failed = 0;
    for (int i = 0; i < nv; ++i) {
        const ilqr_result* R = &jobs[i].res;
        const char* v = names[i];
        failed += !R->ok;
        study_set_metricf(out, R->ok ? (double)R->increases : NAN, "ilqr.%s.cost_increases", v);
        study_set_metricf(out, R->ok ? R->err : NAN, "ilqr.%s.final_error", v);
        study_set_metricf(out, R->ok ? R->cost / R->cost0 : NAN, "ilqr.%s.cost_ratio", v);
        study_set_metricf(out, R->ok ? R->replay_diff : NAN, "ilqr.%s.replay_diff", v);
        study_set_metricf(out, R->ok ? R->traj_err[0] : NAN, "ilqr.%s.traj_deriv_err_first", v);
        study_set_metricf(out, R->ok ? R->traj_kink[0] : NAN, "ilqr.%s.traj_fd_kink_first", v);
        study_set_metricf(out, R->ok ? R->traj_err[1] : NAN, "ilqr.%s.traj_deriv_err_final", v);
        study_set_metricf(out, R->ok ? R->traj_kink[1] : NAN, "ilqr.%s.traj_fd_kink_final", v);
        study_set_metricf(out, (double)R->iterations, "ilqr.%s.iterations", v);
        strbuf_printf(&tab, "%s,%d,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6g,%.6g\n", v,
                      R->ok, R->iterations, R->cost0, R->cost, R->err, R->speed, R->replay_diff,
                      R->traj_err[0], R->traj_kink[0], R->traj_err[1], R->traj_kink[1], R->wall,
                      R->wall_deriv);
        strbuf_printf(&md,
                      "| %s | %d | %.4g | %.4g | %.2f | %.3f | %.3g | %.2g (%.1g) | %.2g (%.1g) | "
                      "%.3g | %.3g | %s |\n",
                      v, R->iterations, R->cost0, R->cost, 1e3 * R->err, R->speed, R->replay_diff,
                      R->traj_err[0], R->traj_kink[0], R->traj_err[1], R->traj_kink[1], R->wall,
                      R->wall_deriv, R->ok ? "" : R->msg);
        for (int h = 0; h < R->nhist; ++h) {
            strbuf_printf(&hist, "%s,%d,%.9e\n", v, h, R->hist[h]);
        }
        for (int k = 0; R->ok && k <= N; ++k) {
            strbuf_printf(&traj, "%s,%.6g,%.9g,%.9g,%.9g,%.9g\n", v, k * cs->dt_default,
                          k < N ? R->U[k] : NAN, R->X[k][QP_X], R->X[k][QB_X],
                          R->X[k][PUSH_NQ + VB_X]);
        }
        strbuf_printf(&vars, "%s%s", i ? " " : "", v);
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/ilqr.csv", dir);
    int rc = study_write_table(out, path,
                               "variant,ok,iterations,cost_initial,cost_final,final_error [m],"
                               "final_ball_speed [m/s],replay_diff,deriv_err_first,"
                               "fd_kink_first,deriv_err_final,fd_kink_final,wall_time [s],"
                               "wall_time_derivatives [s]",
                               tab.s ? tab.s : "");
    snprintf(path, sizeof path, "%s/history.csv", dir);
    if (rc == 0) {
        rc = study_write_table(out, path, "variant,iteration,cost", hist.s ? hist.s : "");
    }
    snprintf(path, sizeof path, "%s/trajectory.csv", dir);
    if (rc == 0) {
        rc = study_write_table(out, path,
                               "variant,t [s],u [N],pusher_x [m],ball_x [m],ball_vx [m/s]",
                               traj.s ? traj.s : "");
    }
    if (rc == 0) {
        study_report(
            out,
            "### ilqr — push the ball to x* = %g m at T = %g s (dt = %g s, %d controls)\n\n"
            "![ilqr](push/ilqr.png)\n\n"
            "Gauss-Newton shooting through contact (formulation-convex §9.6): per iteration one "
            "rollout, the step Jacobians A_k, B_k of every step from ccb/deriv.h (9 directions "
            "per step) chained backwards into d x(T) / d u_k, a Levenberg-Marquardt step and a "
            "backtracking line search that accepts only a decrease of J. First guess: the "
            "constant push F0 = %g N; no contact schedule. Replay: the optimized controls in a "
            "fresh simulation, largest difference of the states. The derivative the optimizer "
            "uses, d x_b(T) / d u_k chained over the steps, against central differences of whole "
            "rollouts (h = 1e-3 N and h/2, Richardson): the largest error over k relative to the "
            "largest derivative, at the first guess (PUSH-5) and at the final controls; in "
            "parentheses the relative disagreement of the two difference steps, ~0 where the "
            "rollout is smooth in every u_k, larger where a contact or stick-slip event lies "
            "within h (there the derivative is one side's, and the differences are no "
            "reference). Wall times are reported, not "
            "gated. Data: `push/ilqr/ilqr.csv`, `history.csv`, `trajectory.csv`.\n\n"
            "| approximation | iterations | J initial | J final | error at T [mm] | ball speed "
            "at T [m/s] | replay difference | derivative vs differences, first guess | at the "
            "final controls | wall [s] | wall, derivatives [s] | note |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n%s\n",
            P[P_TARGET], cs->t_final_default, cs->dt_default, N, P[P_F0], md.s ? md.s : "");
        char v[512];
        snprintf(v, sizeof v,
                 "variants='%s'; target=%g; title='push: Gauss-Newton through contact'",
                 vars.s ? vars.s : "", P[P_TARGET]);
        study_plot(out, "push_ilqr.gp", dir, "ilqr", v);
    }
    free(tab.s);
    free(hist.s);
    free(traj.s);
    free(md.s);
    free(vars.s);
    return rc != 0 ? rc : failed ? 1 : 0;
}

/* ---- standard studies ---------------------------------------------------------------------- */

static const case_std k_std = {
    .error_name = "e_q",
    .error_unit = "m",
    .error_what = "RMS over [0, 0.5] s of |q - q_ref| (ball x, z, theta and pusher x) under the "
                  "nominal constant push, reference Lagged at dt/10.",
    .error = std_error_q,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .dts = {1e-2, 5e-3, 2.5e-3},
    .ndt = 3,
    .dts_quick = {1e-2, 5e-3},
    .ndt_quick = 2};

static const case_study k_studies[] = {
    {.name = "ilqr",
     .title = "Gauss-Newton shooting through contact: push the ball 15 cm in 0.5 s, every "
              "convex approximation",
     .figure = "ICF Fig. 25 (task)",
     .run = ilqr_run}};

static const char* const k_quick[] = {"ilqr", "gradients", NULL};

const case_desc case_push = {
    .name = "push",
    .title = "Pusher and ball: trajectory optimization through contact with step derivatives",
    .paper = "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, §X-B, "
             "Fig. 25 (the task; ccb's model)",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 1e-2,
    .t_final_default = 0.5,
    .approx_default = "lagged",
    .build = push_build,
    .destroy = push_destroy,
    .sim_options = push_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = push_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .std = &k_std};
