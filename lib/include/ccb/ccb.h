/* ccb/ccb.h — umbrella header of libccb, the ccb contact-solver library.
 *
 * Process-wide effects. libccb keeps no hidden state per call except these, each documented
 * where it is declared:
 *  - SuiteSparse's allocator: the first sparse factorization object (a Newton or TAMSI solve with
 *    two or more cliques) points SuiteSparse_config's malloc/calloc/realloc/free at libccb's
 *    allocator, once (pthread_once), so CHOLMOD's and UMFPACK's memory is counted and can be
 *    failed by injection. A program that uses SuiteSparse itself sees its memory go through
 *    libccb's allocator too (which calls malloc; nothing else changes).
 *  - GSL's error handler: creating a GSL integrator (ccb_ode with CCB_ODE_GSL) turns it off
 *    (gsl_set_error_handler_off), so GSL errors come back as status codes instead of abort().
 *  - The allocation counters and the failure-injection hook (ccb/alloc.h) are process-wide and
 *    atomic; injection is a test hook.
 *  - The log hook (ccb_set_log_fn, ccb/status.h) is one process-wide function pointer; set it
 *    before starting threads.
 *  - Result files (ccb/record.h): the process umask is read once, at the first writer; open
 *    writers' temporary paths are kept in a fixed table for ccb_writer_remove_pending. libccb
 *    installs no signal handler (the ccb program does). */
#ifndef CCB_CCB_H
#define CCB_CCB_H

#include "ccb/alloc.h"
#include "ccb/approx.h"
#include "ccb/deriv.h"
#include "ccb/dual.h"
#include "ccb/friction.h"
#include "ccb/geometry.h"
#include "ccb/hydro.h"
#include "ccb/math.h"
#include "ccb/metrics.h"
#include "ccb/model.h"
#include "ccb/names.h"
#include "ccb/newton.h"
#include "ccb/ode.h"
#include "ccb/problem.h"
#include "ccb/record.h"
#include "ccb/sim.h"
#include "ccb/solver.h"
#include "ccb/status.h"
#include "ccb/tamsi.h"
#include "ccb/version.h"

#endif
