/* cases/coin.h — what the files of the coin case share (not installed; docs/architecture.md §2):
 * its parameters and observables, what a run shows, the run configuration, the relative error of
 * the PFC paper's Fig. 6 and the declarations of the studies in coin_sweeps.c (convergence-dt,
 * convergence-grid, faces). coin.c holds the model, fig5, continuous and the descriptor. */
#ifndef CCB_CASE_COIN_H
#define CCB_CASE_COIN_H

#include "analysis.h"
#include "case_model.h"
#include "reference.h"
#include "runs.h"

enum {
    P_MASS,
    P_RADIUS,
    P_THICK,
    P_MU,
    P_E,
    P_D,
    P_TAU,
    P_EPS0,
    P_S0,
    P_COMH,
    P_LAYOUT,
    P_FAN_N,
    P_RINGS,
    P_REPR,
    P_SOFT,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_COUNT
};

enum { O_VX, O_VY, O_W, O_EPS, O_S, O_Z, O_FN, O_FACES, O_COUNT };

#define NLEV 3
extern const double coin_levels[NLEV]; /* S/S0 levels of eps_at */
/* what a run of the coin shows (coin_analyse) */
typedef struct coin_facts {
    double eps_at[NLEV]; /* eps where S first reaches level x S0 (NAN if never) */
    double eps_end;      /* last sample with |v| and R|omega| > 10 v_s (cases.md §2.1 protocol) */
    double t_stop;       /* first time S < 10 v_s */
    double lat_max;      /* max |v_y| / S while S > 10 v_s */
    double fn_dev;       /* max |fn - m g| / (m g) over the run */
    double faces_mean;
} coin_facts;
coin_facts coin_analyse(const run_record* r, const double* P);

/* A run of `solver` ("lagged", "sap", ..., or "tamsi") with parameter overrides. */
void coin_config(study_ctx* ctx, run_config* cfg, const char* study, const char* label,
                 const char* solver, double dt, double T);

/* e = |x - x_ref|_2 / |x_ref|_2 over the samples of r at its step; ref's step divides r's.
 * cols: observable columns forming x (1 or 2): coin_vcols (v_x, v_y) or coin_wcols (omega). */
double coin_rel_error(const run_record* r, const run_record* ref, const int* cols, int ncol);
extern const int coin_vcols[2], coin_wcols[1];

extern const fig_study coin_conv_dt, coin_conv_grid, coin_faces;

/* Study pair (coin_pair.c): hydroelastic contact of two compliant bodies against closed forms. */
int coin_pair_run(study_ctx* ctx, study_out* out);

#endif
