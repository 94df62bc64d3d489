/* Fuzz target: the reader of a manifest line (issue 25). A manifest is read by a shell and then
 * by `ccb run`: the input is one line, split into words as a POSIX shell splits the words that
 * ccb writes (blanks separate; '...' quotes; \x outside quotes is x, so '\'' is a quote), and the words go through everything
 * `ccb run` does before it runs: its option parser (RUN_OPTS), the configuration from the
 * options (variant, solver, the applicability table k_reads, --set) and run_config_check. Every
 * way out is a return or exit() with a usage error (turned into a return here); a configuration
 * that passes must be one run_config_check accepts. The corpus (corpus/manifest) starts from
 * lines of real manifests (conveyor fig3, box work-precision, sphere rigid-limit). */
#include "cli_harness.h"

/* Splits line into at most max words (blanks separate; '...' quotes; \x is x); the count, or -1 on an
 * unterminated quote. The words point into store. */
__attribute__((noinline)) /* apart from the setjmp frame */
static int
split_words(const char* line, size_t n, char* store, char** words, int max) {
    int count = 0;
    size_t i = 0, k = 0;
    while (i < n) {
        while (i < n && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        if (i >= n || line[i] == '\n') {
            break;
        }
        if (count == max) {
            return count;
        }
        words[count++] = store + k;
        while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\n') {
            if (line[i] == '\'') {
                for (++i; i < n && line[i] != '\''; ++i) {
                    store[k++] = line[i];
                }
                if (i >= n) {
                    return -1;
                }
                ++i;
            } else if (line[i] == '\\' && i + 1 < n) { /* \x outside quotes: x */
                store[k++] = line[i + 1];
                i += 2;
            } else {
                store[k++] = line[i++];
            }
        }
        store[k++] = '\0';
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) {
        return 0;
    }
    static char store[4096 + 64];
    static char* words[64];
    const int nw = split_words((const char*)data, size, store, words + 1, 62);
    if (nw < 2) {
        return 0;
    }
    /* words[1] is the executable, words[2] "run": as argv, the executable is argv[0] */
    words[0] = (char*)"ccb";
    char** argv = words + 1;
    const int argc = nw;
    argv[argc] = NULL;
    if (strcmp(argv[1], "run") != 0) {
        return 0; /* `ccb run` is the reader; another command is another parser */
    }
    static opts o;
    static run_config cfg;
    char msg[1024];
    if (cli_parse(argc, argv, 2, RUN_OPTS, &o, "help\n", msg, sizeof msg) == 0 &&
        cli_run_config(&o, &cfg, msg, sizeof msg) == 0) {
        long n = 0;
        (void)run_config_check(&cfg, &n, msg, sizeof msg);
    }
    return 0;
}
