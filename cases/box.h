/* cases/box.h — what the files of the stick-slip box case share (not installed;
 * docs/architecture.md §2): its parameters and observables, the model, the implicit Euler
 * configurations and the windowed error of the TAMSI paper's protocol, and the declarations of the
 * solver studies in box_solvers.c (fig4, fig5, tamsi-convex, variants) and of the peers study
 * (box_peers.c). box.c holds the model, the reference study and the case's descriptor. */
#ifndef CCB_CASE_BOX_H
#define CCB_CASE_BOX_H

#include "analysis.h"
#include "case_model.h"
#include "reference.h"
#include "runs.h"

enum {
    P_MASS,
    P_MU,
    P_G,
    P_AMP,
    P_FREQ,
    P_PHASE,
    P_VS,
    P_FRICTION,
    P_NORMAL,
    P_K,
    P_SIGMA,
    P_BETA,
    P_MARGIN,
    P_DW,
    P_HREF,
    P_AFIX,
    P_COUNT
};

enum { O_F, O_VEX, O_FT, O_FN, O_SLIP, O_STOL, O_COUNT };

int box_build(const double* P, ccb_model** out, void** data, char* msg, size_t n);
/* The exact solution's parameters of the case's parameters. */
ccb_ref_box box_ref_params(const double* P);
/* The observables of a run (box.c), and of a peer run (box_peers.c). */
void box_observe(const ccb_sim* sim, const void* data, const double* P, double* o);
void box_peer_observe(const ccb_sim* sim, const void* data, const double* P, const run_peer_step* c,
                      double* o);
void box_destroy(void* data);

/* the fixed steps and the accuracies of the work-precision sweeps (TAMSI Fig. 5) */
#define NH_WP 8
extern const double box_h_wp[NH_WP];
#define NA_WP 6
extern const double box_a_wp[NA_WP];

/* Configures an implicit Euler run: FN/QN, TALS, fixed step h (sampled every dt) or error
 * control with accuracy a (first and largest step dt). */
void box_ie_config(study_ctx* ctx, run_config* cfg, const char* study, int qn, int tals, int ec,
                   double h_or_a, double dt, double T);
/* Windowed error e_v of a run (formulation-tamsi-hydro §E.2-E.3): test samples every `dw` (a whole
 * number of the run's steps), reference RK3 at h_ref from each test state over one window. */
typedef struct wjob {
    const run_record* rec;
    ccb_ref_box ref;
    double dw, h_ref;
    double raw, rms; /* out; NAN if the run failed */
    int M;
} wjob;
/* The reference step of the windowed error (the quick tier's is coarser). */
double box_windowed_h_ref(const study_ctx* ctx);
/* e_v of runs rec[0..n-1] over windows of dw, in parallel. */
void box_windowed_errors(study_ctx* ctx, const run_record* rec, int n, double dw, wjob* jobs);
/* RMS over the run of v - v_Coulomb (the exact solution, observable v_exact) */
double box_rms_vs_exact(const run_record* r);

extern const fig_study box_fig4, box_fig5, box_tals_range, box_tamsi_convex, box_variants,
    box_peers;

#endif
