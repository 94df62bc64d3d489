/* cli/cli.h — the `ccb` command line (docs/architecture.md §2): main.c parses and dispatches
 * the commands, plugin.c loads plugins. */
#ifndef CCB_CLI_H
#define CCB_CLI_H

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

#endif
