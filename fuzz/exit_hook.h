/* Force-included (-include) into the command line's sources when a fuzz target links them: every
 * exit() of the parser (a usage error) calls the target's ccb_fuzz_exit, which longjmps back to
 * its setjmp, so one process runs every input (fuzz/cli_harness.h defines it). */
#ifndef CCB_FUZZ_EXIT_HOOK_H
#define CCB_FUZZ_EXIT_HOOK_H
void ccb_fuzz_exit(int code) __attribute__((noreturn));
#define exit(c) ccb_fuzz_exit(c)
#endif
