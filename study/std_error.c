/* std_error: the error metrics the cases' standard studies share (case.h, case_std.error): e_q,
 * the RMS of |q - q_ref| over the run (cases.md §1.4), and e_loc, the local error of restarted
 * intervals (issue 24) for a chaotic case, whose trajectories diverge. */
#include <math.h>
#include <stdio.h>

#include "analysis.h"
#include "study.h"

double std_error_q(const run_record* r, const run_record* ref, const double* P) {
    (void)P;
    double e = NAN;
    char msg[128];
    if (ref == NULL ||
        ccb_an_rms_error(r->nsteps, r->cfg.sim.dt, r->q, ref->nsteps, ref->cfg.sim.dt, ref->q,
                         r->nq, &e, NULL, msg, sizeof msg) != 0) {
        return NAN;
    }
    return e;
}

double std_local_error(const run_record* r, const run_record* ref, double H) {
    if (ref == NULL || r->status != CCB_OK || ref->status != CCB_OK ||
        r->cfg.peer != RUN_PEER_NONE || !(H > 0) || r->nq != ref->nq || r->nv != ref->nv) {
        return NAN;
    }
    const long n = lround(H / r->cfg.sim.dt), nr = lround(H / ref->cfg.sim.dt);
    if (n < 1 || nr < 1 || fabs((double)n * r->cfg.sim.dt - H) > 1e-9 * H ||
        fabs((double)nr * ref->cfg.sim.dt - H) > 1e-9 * H) {
        return NAN; /* H must be a whole number of steps of both */
    }
    const long K = ref->nsteps / nr; /* intervals [k H, (k + 1) H] inside the reference */
    const int nq = ref->nq, nv = ref->nv;
    run_restart rs;
    double sum = 0.0;
    int ok = K >= 1 && run_restart_open(&r->cfg, &rs) == 0;
    const int opened = ok;
    for (long k = 0; ok && k < K; ++k) { /* restart from the reference's state at k H */
        const double* q0 = ref->q + (size_t)(k * nr) * (size_t)nq;
        const double* v0 = ref->v + (size_t)(k * nr) * (size_t)nv;
        ok = ccb_sim_set_state(rs.sim, (double)(k * nr) * ref->cfg.sim.dt, q0, v0) == CCB_OK;
        for (long j = 0; ok && j < n; ++j) {
            ok = ccb_sim_step(rs.sim) == CCB_OK;
        }
        const double* q1 = ref->q + (size_t)((k + 1) * nr) * (size_t)nq;
        double e2 = 0.0;
        for (int i = 0; ok && i < nq; ++i) {
            const double d = ccb_sim_q(rs.sim)[i] - q1[i];
            e2 += d * d;
        }
        sum += e2;
    }
    if (opened) {
        run_restart_close(&rs);
    }
    return ok ? sqrt(sum / (double)K) : NAN;
}
