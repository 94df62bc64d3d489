/* Fuzz target: the gate-file reader and evaluator (analysis/gates.c). The input is the file's
 * text; metrics named "m0" ... "m9" have values, every other name is missing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gates.h"

static int lookup(void* user, const char* name, double* v) {
    (void)user;
    if (name[0] == 'm' && name[1] >= '0' && name[1] <= '9' && name[2] == '\0') {
        *v = (double)(name[1] - '0') / 3.0;
        return 0;
    }
    return -1;
}

static char path[512];

/* The scratch file goes when the process ends: a test leaves nothing in /tmp. */
static void remove_file(void) {
    remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (path[0] == '\0') {
        const char* td = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/ccb_fuzz_gates_%d.json",
                 td != NULL && td[0] != '\0' ? td : "/tmp", (int)getpid());
        atexit(remove_file);
    }
    FILE* f = fopen(path, "wb");
    if (f == NULL) {
        return 0;
    }
    fwrite(data, 1, size, f);
    fclose(f);
    static ccb_gate_result res[64];
    int n = 0;
    char msg[512];
    for (int tier = 1; tier <= 2; ++tier) {
        (void)ccb_gates_evaluate(path, tier, lookup, NULL, res, 64, &n, msg, sizeof msg);
    }
    return 0;
}
