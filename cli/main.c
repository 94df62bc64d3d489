/* ccb — command-line program of the ccb benchmark and validation suite.
 *
 *   ccb list | info CASE|SOLVER | run CASE [...] | study CASE STUDY [...] | gate [CASE...] [...]
 *   ccb reproduce [...] | bench [CASE] [...]
 *
 * Data go to files and stdout, progress and diagnostics to stderr (a progress bar when stderr is a
 * terminal). Exit codes: 0 success, 1 a gate or a solver failed, 2 usage or input error. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_internal.h"
#include "fclib_io.h"
#include "gates.h"
#include "peer.h"
#include "siconos_peer.h"

static const char* k_usage =
    "ccb — benchmark and validation suite for velocity-level frictional-contact solvers\n"
    "\n"
    "usage: ccb [--plugin FILE.so ...] COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  list                      the canonical cases, their studies, the solver variants\n"
    "  info CASE|SOLVER          a case's parameters (defaults, units, ranges, sources), studies,\n"
    "                            gates and documented choices; or a solver's or ODE method's\n"
    "                            options (from its descriptors) and choices\n"
    "  run CASE [options]        one simulation; writes trajectory.csv, steps.csv, times.csv,\n"
    "                            meta.json\n"
    "  study CASE STUDY          one study (runs, tables, figure) under results/CASE/STUDY\n"
    "  gate [CASE...]            run the studies of a gate tier and check reference/CASE.json\n"
    "  reproduce                 every study, figure and gate; writes results/README.md\n"
    "  compare                   variants side by side on the cases: compare.csv, .md, figures\n"
    "  bench [CASE]              wall time of the stepping loop per variant\n"
    "  diff A B                  what moved between two result trees, beyond round-off\n"
    "\n"
    "--plugin FILE.so (repeatable; also CCB_PLUGIN_PATH, colon-separated files or directories)\n"
    "loads a module that registers approximations, solvers or ODE methods: its variants then\n"
    "take part in every command (docs/architecture.md §5; plugins/pgs is one).\n"
    "\n"
    "`ccb COMMAND --help` lists the options of a command. Exit codes: 0 success, 1 a gate or a\n"
    "solver failed, 2 usage or input error.\n";
/* Every run is single-threaded (speed §1). Debian's CHOLMOD opens OpenMP regions
 * with an explicit num_threads(4) inside every supernodal factorization of more than 128 rows:
 * waking those threads costs ~20 % of a clutter step and occupies the other cores that parallel
 * studies use. OMP_THREAD_LIMIT caps them, but libgomp reads it only in its initializer, when it
 * is loaded. The same for OpenBLAS: where Debian's alternatives make it the system BLAS and LAPACK
 * (installing Siconos does), its thread pool spins in sched_yield between the small dense solves
 * of every step — the clutter's quick gates took 121 s instead of 49 s with two jobs — so
 * OPENBLAS_NUM_THREADS = 1 as well (a user's own settings are kept).
 *
 * The variables must be in the environment the process starts with: glibc's own initializer
 * resets `environ` to it, so a setenv before the libraries' initializers is lost. ccb therefore
 * restarts itself once with them, from a pre-initializer (ELF DT_PREINIT_ARRAY, an executable's
 * only): it runs after the libraries are mapped but before any of their initializers, so the
 * first image never starts OpenBLAS's threads or libgomp (8 ms less a start than restarting
 * from main, measured; the suite's tests start ccb hundreds of times). Only libc calls that are
 * system calls or string routines are used here. Not under valgrind, where /proc/self/exe is
 * the tool (CI/valgrind.sh sets the variables itself), and not with an environment of more than
 * k_max_env entries (then the libraries keep their own defaults, as when the exec fails). */
enum { k_max_env = 4096 };
static void single_threaded_libraries(int argc, char** argv, char** envp) {
    (void)argc;
    static const char k_omp[] = "OMP_THREAD_LIMIT=", k_blas[] = "OPENBLAS_NUM_THREADS=";
    size_t n = 0;
    int omp = 0, blas = 0;
    for (; envp != NULL && envp[n] != NULL; ++n) {
        omp |= strncmp(envp[n], k_omp, sizeof k_omp - 1) == 0;
        blas |= strncmp(envp[n], k_blas, sizeof k_blas - 1) == 0;
    }
    struct stat self, prog;
    if ((omp && blas) || n + 3 > k_max_env || argv == NULL || argv[0] == NULL ||
        (strchr(argv[0], '/') != NULL &&
         (stat("/proc/self/exe", &self) != 0 || stat(argv[0], &prog) != 0 ||
          self.st_ino != prog.st_ino || self.st_dev != prog.st_dev))) {
        return;
    }
    static char* env[k_max_env];
    if (n > 0) {
        memcpy(env, envp, n * sizeof env[0]);
    }
    if (!omp) {
        env[n++] = (char*)"OMP_THREAD_LIMIT=1";
    }
    if (!blas) {
        env[n++] = (char*)"OPENBLAS_NUM_THREADS=1";
    }
    env[n] = NULL;
    execve("/proc/self/exe", argv, env);
}
__attribute__((used, section(".preinit_array"))) static void (*const k_single_threaded)(
    int, char**, char**) = single_threaded_libraries;

/* The plugins of CCB_PLUGIN_PATH and of leading --plugin FILE words (removed from argv). */
void load_plugins(int* argc, char** argv) {
    char msg[1024];
    if (plugin_load_env(msg, sizeof msg) != 0) {
        die_usage("%s", msg);
    }
    while (*argc >= 2 && strncmp(argv[1], "--plugin", 8) == 0 &&
           (argv[1][8] == '\0' || argv[1][8] == '=')) {
        const int joined = argv[1][8] == '=';
        if (!joined && *argc < 3) {
            die_usage("--plugin needs a file");
        }
        if (plugin_load(joined ? argv[1] + 9 : argv[2], msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
        const int drop = joined ? 1 : 2;
        memmove(argv + 1, argv + 1 + drop, (size_t)(*argc - 1 - drop + 1) * sizeof argv[0]);
        *argc -= drop;
    }
    if (sopt_build(msg, sizeof msg) != 0) { /* a plugin's option that clashes with another */
        die_usage("a plugin's options: %s", msg);
    }
}

int dispatch(int argc, char** argv) {
    load_plugins(&argc, argv);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(k_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ccb %s (git %s)\ndata: %s\n", ccb_version(), ccb_revision(), ccb_source_dir());
        /* the optional parts of this build (guide §2) */
        printf("optional: mujoco %s, ode %s, bullet %s, fclib %s, siconos %s\n",
               peer_engine_mujoco.absent() ? "no (libmujoco-dev)" : "yes",
               peer_engine_ode.absent() ? "no (libode-dev)" : "yes",
               peer_engine_bullet.absent() ? "no (libbullet-dev)" : "yes",
               fclib_io_available() ? "yes" : "no (libfclib-dev)",
               peer_siconos_available() ? "yes" : "no (libsiconos-numerics-dev)");
        /* what the libraries were started with (single_threaded_libraries) */
        const char* omp = getenv("OMP_THREAD_LIMIT");
        const char* blas = getenv("OPENBLAS_NUM_THREADS");
        printf("threads: OMP_THREAD_LIMIT=%s OPENBLAS_NUM_THREADS=%s\n", omp ? omp : "(unset)",
               blas ? blas : "(unset)");
        return 0;
    }
    static const struct {
        const char* name;
        int (*fn)(int, char**);
    } k_cmds[] = {{"list", cmd_list},   {"info", cmd_info},       {"run", cmd_run},
                  {"study", cmd_study}, {"gate", cmd_gate},       {"reproduce", cmd_reproduce},
                  {"bench", cmd_bench}, {"compare", cmd_compare}, {"diff", cmd_diff}};
    for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; ++i) {
        if (strcmp(argv[1], k_cmds[i].name) == 0) {
            return k_cmds[i].fn(argc, argv);
        }
    }
    die_usage("unknown command '%s'", argv[1]);
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files of the results being written (nothing
 * half-written is left; committed files stay) and the directories this process created that
 * hold nothing, then die of the signal as usual. */
static volatile sig_atomic_t g_nworkers;
static volatile pid_t g_workers[64];

void cli_worker_add(int pid) {
    if (g_nworkers < (int)(sizeof g_workers / sizeof g_workers[0])) {
        g_workers[g_nworkers] = (pid_t)pid;
        g_nworkers = g_nworkers + 1;
    }
}

void cli_worker_forget(int pid) {
    for (int i = 0; i < g_nworkers; ++i) {
        if (g_workers[i] == (pid_t)pid) {
            g_workers[i] = g_workers[g_nworkers - 1];
            g_nworkers = g_nworkers - 1;
            return;
        }
    }
}

void cli_workers_clear(void) {
    g_nworkers = 0;
}

void on_signal(int sig) {
    for (int i = 0; i < g_nworkers; ++i) { /* kill(2) and waitpid(2) are async-signal-safe */
        kill(g_workers[i], sig);
    }
    for (int i = 0; i < g_nworkers; ++i) {
        while (waitpid(g_workers[i], NULL, 0) < 0 && errno == EINTR) {
        }
    }
    ccb_writer_remove_pending();
    remove_created_dirs(); /* those left empty: no empty run directory after a signal */
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int k_handled[] = {SIGINT, SIGTERM, SIGHUP};

static sigset_t g_unblocked; /* the mask before cli_block_signals (the calls do not nest) */

void cli_block_signals(void) {
    sigset_t block;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof k_handled / sizeof k_handled[0]; ++i) {
        sigaddset(&block, k_handled[i]);
    }
    sigprocmask(SIG_BLOCK, &block, &g_unblocked);
}

void cli_restore_signals(void) {
    sigprocmask(SIG_SETMASK, &g_unblocked, NULL);
}

void install_signal_handlers(void) {
    const int* sigs = k_handled;
    for (size_t i = 0; i < sizeof k_handled / sizeof k_handled[0]; ++i) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int ccb_cli_main(int argc, char** argv) {
    install_signal_handlers();
    ccb_set_command_line(argc, argv);
    cli_trap t; /* a usage error anywhere below: its message, exit status 2 */
    cli_trap_push(&t);
    const int jv = setjmp(t.jb);
    int rc = 0;
    if (jv == 0) {
        rc = dispatch(argc, argv);
        cli_trap_pop(&t);
    } else if (jv == CLI_USAGE) {
        study_log("%s\n(see ccb --help)", t.msg);
        rc = EXIT_USAGE;
        study_out_free_all(); /* the study contexts the error unwound past */
    }
    if (rc == EXIT_USAGE) { /* refused or failed: the directories it made and left empty go, as
                             * after a signal (`ccb study C S --from EMPTY` made C/S in EMPTY) */
        remove_created_dirs();
    }
    /* what went to standard output must have arrived (`ccb list > /dev/full`) */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to standard output: %s", strerror(errno));
        return rc != 0 ? rc : EXIT_USAGE;
    }
    return rc;
}
