/* cli/cli.h — the `ccb` command line (docs/architecture.md §2): main.c parses and dispatches
 * the commands, plugin.c loads plugins. */
#ifndef CCB_CLI_H
#define CCB_CLI_H

#include "registry.h"
#include "study.h"

/* The `ccb` command line (main.c); ccb.c's main calls it. A program that registers its own
 * approximations (ccb_approx_register) before calling it is `ccb` with them as variants. */
int ccb_cli_main(int argc, char** argv);
/* Plugins (plugin.c): loads one module (0, or -1 with a message), the modules of
 * CCB_PLUGIN_PATH, and lists those loaded (absolute paths, for manifests). */
int plugin_load(const char* path, char* msg, size_t n);
int plugin_load_env(char* msg, size_t n);
int plugin_count(void);
const char* plugin_path(int i);

/* The command line as library calls that return a status and a message instead of exiting (the
 * `opts` and option lists of cli_internal.h): parses argv[first..] for a command accepting the
 * options of `allowed` (0; 1: --help printed; 2: a usage error, msg says what); the solver
 * options on a run configuration (0 or 2); `ccb run`'s configuration from its options (0 or 2). */
struct opts;
int cli_parse(int argc, char** argv, int first, const char* allowed, struct opts* o,
              const char* help, char* msg, size_t n);
int cli_apply_solver_options(const struct opts* o, run_config* cfg, int strict, char* msg,
                             size_t n);
int cli_run_config(const struct opts* o, run_config* cfg, char* msg, size_t n);

#endif
