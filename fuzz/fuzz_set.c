/* Fuzz target: `--set NAME=VALUE` (cases/registry.c case_set_param) on every case. */
#include <stdint.h>
#include <string.h>

#include "registry.h"
#include "study.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char s[512];
    if (size >= sizeof s) {
        return 0;
    }
    memcpy(s, data, size);
    s[size] = '\0';
    for (int c = 0; c < case_count(); ++c) {
        const case_desc* cs = case_get(c);
        double params[CASE_MAX_PARAMS];
        case_default_params(cs, params);
        char msg[512];
        if (case_set_param(cs, params, s, msg, sizeof msg) == 0) {
            for (int i = 0; i < cs->nparams; ++i) { /* an accepted value is in its range */
                const case_param* p = &cs->params[i];
                if (!(params[i] >= p->lo && params[i] <= p->hi)) {
                    __builtin_trap();
                }
            }
        }
    }
    return 0;
}
