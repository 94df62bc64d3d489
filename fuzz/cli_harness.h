/* The command line of `ccb` (cli/main.c) inside a fuzz target: every exit() of its parser (a
 * usage error) becomes a longjmp back to the target's setjmp, so one process runs every input.
 * Included once, first, by fuzz_options.c and fuzz_manifest.c. */
#ifndef CCB_FUZZ_CLI_HARNESS_H
#define CCB_FUZZ_CLI_HARNESS_H
#define _XOPEN_SOURCE 700 /* as cli/main.c, before any header */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

static jmp_buf g_fuzz_exit;
static void ccb_fuzz_exit(int code) __attribute__((noreturn));
static void ccb_fuzz_exit(int code) {
    (void)code;
    longjmp(g_fuzz_exit, 1);
}
#define exit(c) ccb_fuzz_exit(c)
#include "../cli/main.c"
#undef exit
#endif
