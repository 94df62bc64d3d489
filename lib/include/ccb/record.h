/* ccb/record.h — result files: atomic writers, CSV tables and JSON metadata.
 *
 * Every file is written to a temporary file in the destination directory and renamed into
 * place on commit (atomic on POSIX file systems), so a crash or a failed run never leaves a
 * half-written result. CSV files have one header row whose column names carry their units in
 * brackets ("t [s]", "box.x [m]") and rows of values printed with %.17g (they read back
 * bit-identically). Non-finite values are refused: nothing NaN or Inf reaches a result file. */
#ifndef CCB_RECORD_H
#define CCB_RECORD_H

#include "ccb/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_writer ccb_writer;

/* Opens a temporary file next to `path` for writing. CCB_E_IO with a message naming the path and
 * the system error if the directory does not exist or is not writable, or if `path` exists and is
 * not a regular file (a symbolic link, device, FIFO, socket or directory: the commit's rename
 * would replace it; ccb_writer_commit checks again). */
CCB_API ccb_status ccb_writer_open(const char* path, ccb_writer** w, char* msg, size_t msg_size);

/* CCB_OK if `path` does not exist or is a regular file (not a symbolic link): what a writer may
 * replace or ccb may remove; otherwise CCB_E_IO with a message naming the path and what it is. */
CCB_API ccb_status ccb_writer_check_target(const char* path, char* msg, size_t msg_size);
CCB_API ccb_status ccb_writer_printf(ccb_writer* w, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Flushes, syncs, closes and renames the temporary file to its path, then frees w (also on
 * failure, after removing the temporary file). */
CCB_API ccb_status ccb_writer_commit(ccb_writer* w, char* msg, size_t msg_size);
/* Writes n bytes as they are (binary data). */
CCB_API ccb_status ccb_writer_write(ccb_writer* w, const void* data, size_t n);
/* The temporary file's path, for a writer of another library that writes to a path (HDF5):
 * it writes there, nothing goes through w, and commit syncs and renames it as any other. */
CCB_API const char* ccb_writer_temp_path(const ccb_writer* w);
/* Removes the temporary file and frees w. Accepts NULL. */
CCB_API void ccb_writer_abort(ccb_writer* w);
/* Removes the temporary files of every writer still open (up to 256 writers whose temporary
 * path is shorter than 2048 bytes). Async-signal-safe (it only calls unlink(2)): for a program's
 * SIGINT/SIGTERM handler, which then re-raises the signal. The library installs no handler. The
 * files a writer commits get mode 0666 less the process's umask, read once at the first open. */
CCB_API void ccb_writer_remove_pending(void);

/* CSV header from n column names (written as given; quote-free names only). */
CCB_API ccb_status ccb_csv_header(ccb_writer* w, int n, const char* const* names);
/* One CSV row of n finite values (CCB_E_NONFINITE naming the column otherwise). */
CCB_API ccb_status ccb_csv_row(ccb_writer* w, int n, const double* values);

/* Step-statistics CSV: header and one row per step (step index, time at the start of the step,
 * status, the solver's counters up to CCB_CNT_SUBSTEPS — iterations, line-search evaluations,
 * residual, tolerance, cost, kappa, smallest alpha, f evaluations, substeps — and the contacts).
 * Everything in it is a result of the computation: identical runs give identical files. */
CCB_API ccb_status ccb_steps_header(ccb_writer* w);
CCB_API ccb_status ccb_steps_row(ccb_writer* w, long step, double t, const ccb_step_stats* st);
/* Wall-time CSV, the same steps: geometry, problem assembly and solve, then the solve's split
 * (the counters from CCB_CNT_TIME_ASSEMBLE on). Kept apart from the step statistics because it
 * differs between identical runs. */
CCB_API ccb_status ccb_times_header(ccb_writer* w);
CCB_API ccb_status ccb_times_row(ccb_writer* w, long step, const ccb_step_stats* st);

/* JSON metadata document. Keys may be dotted paths ("solver.eps_r") which create nested objects.
 * Setting an existing key replaces it. Non-finite numbers are refused (CCB_E_NONFINITE). */
typedef struct ccb_meta ccb_meta;
CCB_API ccb_status ccb_meta_create(ccb_meta** meta);
CCB_API void ccb_meta_destroy(ccb_meta* meta); /* accepts NULL */
CCB_API ccb_status ccb_meta_set_string(ccb_meta* meta, const char* key, const char* value);
CCB_API ccb_status ccb_meta_set_number(ccb_meta* meta, const char* key, double value);
CCB_API ccb_status ccb_meta_set_bool(ccb_meta* meta, const char* key, int value);
/* The simulation's solver and its settings and work (ccb_sim_describe) as keys of meta. */
CCB_API ccb_status ccb_meta_set_sim(ccb_meta* meta, const ccb_sim* sim);
/* Writes the document (pretty-printed) atomically to path. */
CCB_API ccb_status ccb_meta_write(const ccb_meta* meta, const char* path, char* msg,
                                  size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
