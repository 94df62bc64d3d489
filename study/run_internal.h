/* study/run_internal.h — what run.c (a run: step, record, files) shares with run_meta.c (its
 * meta.json); not part of the engine's interface (study.h). */
#ifndef CCB_STUDY_RUN_INTERNAL_H
#define CCB_STUDY_RUN_INTERNAL_H

#include "peer.h"
#include "study.h"

/* The peer's options for a run configuration. */
peer_options run_peer_options(const run_config* cfg);
/* Writes the run's meta.json (case, parameters, approximation, solver options, dt, version,
 * revision, status; the peer's settings for a peer run): 0, or -1 with a message. */
int run_write_meta(const run_config* cfg, const run_record* rec, const ccb_model* model,
                   const ccb_sim* sim, char* msg, size_t n);

#endif
