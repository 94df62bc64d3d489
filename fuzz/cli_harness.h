/* The command line of `ccb` (cli/) inside a fuzz target. The target links the command line's
 * sources compiled with fuzz/exit_hook.h (fuzz/CMakeLists.txt), so every exit() of its parser (a
 * usage error) comes here and longjmps back to the target's setjmp: one process runs every input.
 * Included once, first, by fuzz_options.c and fuzz_manifest.c. */
#ifndef CCB_FUZZ_CLI_HARNESS_H
#define CCB_FUZZ_CLI_HARNESS_H
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"

static jmp_buf g_fuzz_exit;
void ccb_fuzz_exit(int code) __attribute__((noreturn));
void ccb_fuzz_exit(int code) {
    (void)code;
    longjmp(g_fuzz_exit, 1);
}
#endif
