/* cases/spatula.h — what the spatula's files share (spatula.c: the model and its descriptor;
 * spatula_slip.c: the slip and sensitivity studies; spatula_refinement.c: the refinement
 * study): the parameter and observable indices, the case data, the quasi-static patches. */
#ifndef CCB_SPATULA_H
#define CCB_SPATULA_H

#include "case_model.h"
#include "runs.h"

enum {
    P_F_HIGH,
    P_F_LOW,
    P_PERIOD,
    P_DUTY,
    P_MU,
    P_E,
    P_D,
    P_TAU,
    P_BUBBLE_A,
    P_BUBBLE_C,
    P_BUBBLE_H,
    P_FINGER_MASS,
    P_HANDLE_MASS,
    P_BLADE_MASS,
    P_BLADE_DIST,
    P_GRASP_OFF,
    P_INERTIA,
    P_HANDLE_LEN,
    P_HANDLE_W,
    P_HANDLE_E,
    P_REPR,
    P_G,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_MARGIN,
    P_COUNT
};

enum {
    O_THETA,
    O_WY,
    O_GRIP,
    O_FNL,
    O_FNR,
    O_AL,
    O_AR,
    O_EX,
    O_EZ,
    O_DZ,
    O_FACES,
    O_CAND,
    O_COUNT
};

typedef struct spat_data {
    double f_high, f_low, period, duty;
    double d;               /* centre of mass beyond the grasp [m] */
    double xh;              /* the handle's middle beyond the grasp [m] */
    int finger[2], spatula; /* bodies */
    ccb_hydro_mesh *bubble, *handle;
    ccb_hydro_repr repr;  /* the bubbles' faces */
    int handle_flags;     /* CCB_HYDRO_RIGID_B for a rigid handle, 0 for a compliant one */
    ccb_hydro_surface ws; /* observe's workspace */
} spat_data;

/* the model (spatula.c) */
int spatula_build(const double* P, ccb_model** out, void** data, char* msg, size_t n);
void spatula_destroy(void* data);
double spatula_com(const double* P); /* the centre of mass beyond the grasp [m] */
void spatula_inertia(const double* P, ccb_mat3* I);

/* the slip study's reading of a run (spatula_slip.c), which the refinement study shares */
enum { SLIP_NLOW = 3 }; /* periods run: the staircase over three cycles */

typedef struct slip_metrics {
    double hold_max;           /* largest |theta change| within a high phase after 0.5 s [rad] */
    int nlow;                  /* low phases completed */
    double low0[SLIP_NLOW];    /* theta at the start of each low phase [rad] */
    double low_rot[SLIP_NLOW]; /* theta change over each low phase [rad] */
    double theta_end1;         /* theta at the end of the first low phase [rad] */
    double wmax;               /* largest |omega_y| [rad/s] */
    double dz_max;             /* largest |dz| [m] */
    double elong; /* extent along / across the handle at the end of the first high phase */
} slip_metrics;
void slip_eval(const run_record* r, const double* P, slip_metrics* sm);
typedef struct patch_qs {
    int n;
    double *x, *z, *f;
    double area, force;
} patch_qs;
/* The estimates of every run's low phases against their turns (spatula_slip.c, which says how):
 * rows of `table`, per run the smallest and the largest ratio of a turn to its estimate. */
int slip_estimates(study_ctx* ctx, study_out* out, const fig_data* fd, const patch_qs* given,
                   int need, int own_mesh, const char* study, const char* table, double* all_min,
                   double* all_max);
/* the table of those turns, in the slip and refinement studies' declarations */
#define SPAT_TURNS_TABLE                                                                           \
    {                                                                                              \
        .name = "turns", .file = "turns.csv",                                                      \
        .header =                                                                                  \
            "run,low phase,theta0 [rad],turn [rad],estimate_coulomb [rad],estimate_own [rad],"     \
            "turn/coulomb [-],turn/own [-]",                                                       \
        .md = "| run | low phase | theta at its start [rad] | turn [rad] | Coulomb estimate "      \
              "[rad] | "                                                                           \
              "estimate of its own law [rad] | turn / Coulomb | turn / own |\n"                    \
              "|---|---|---|---|---|---|---|---|\n",                                               \
        .cells = "%s|%g|%.4f|%.4f|%.4f|%.4f|%.3f|%.3f"                                             \
    }

/* the studies (spatula_slip.c, spatula_refinement.c) */
extern const fig_study spatula_slip_study, spatula_sensitivity_study, spatula_refinement_study;

#endif
