/* The command line of `ccb` inside a fuzz target: the target links the command-line library
 * (ccb_cli_lib) and calls its status-returning entry points (cli.h: cli_parse, cli_run_config,
 * cli_apply_solver_options), which report a usage error as a status and a message instead of
 * exiting, so one process runs every input. Included first by fuzz_options.c and
 * fuzz_manifest.c. */
#ifndef CCB_FUZZ_CLI_HARNESS_H
#define CCB_FUZZ_CLI_HARNESS_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#endif
