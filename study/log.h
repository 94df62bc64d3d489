/* study/log.h — how the suite reports (docs/architecture.md §7). Errors are returned, not
 * printed where they happen: a fallible function returns 0, or non-zero with one message — in
 * the caller's (msg, n), or for a study in its output handle (study_fail, results.h) — and the
 * command that called it prints that message once (cli_error, cli/cli_internal.h). What is not an
 * error — a run's solver failure (recorded in the run), a figure gnuplot could not draw, a study
 * skipped, waiting for a lock, a command's progress — is said with study_log. study_log and
 * cli_error are the only writers of such lines in study/, cases/ and cli/ (CI/check_errors.sh,
 * test docs.errors). */
#ifndef CCB_LOG_H
#define CCB_LOG_H

#include <stdarg.h>

/* One line "ccb: TEXT" on stderr (printf-style), whole when threads log at once. */
void study_log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void study_vlog(const char* fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
