/* Fuzz target: the `--from` loader (run_load, study/manifest.c), which reads a run directory made
 * elsewhere as untrusted input (issue 25). The input is a run directory in one file: the texts of
 * meta.json, trajectory.csv and steps.csv separated by a line "%%\n" (missing parts are empty
 * files). They are written into a fresh directory and read back as the run `ccb run conveyor
 * --dt 0.01 --t-final 0.05` (five steps, Lagged); run_load must return 0 or 2 with a message,
 * never crash, hang or read outside the record (ASan/UBSan in the libFuzzer build). A loaded
 * record must be consistent: ok with all five steps, or failed at the step after the last. The
 * corpus (corpus/from) starts from the real directory of that run and its mutations. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"
#include "study.h"

static void put(const char* dir, const char* name, const uint8_t* data, size_t n) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static char dir[512];
static const char* const names[3] = {"meta.json", "trajectory.csv", "steps.csv"};

/* The scratch directory goes when the process ends (replay and fuzzing alike): a test leaves
 * nothing in /tmp. */
static void remove_dir(void) {
    char path[600];
    for (int part = 0; part < 3; ++part) {
        snprintf(path, sizeof path, "%s/%s", dir, names[part]);
        remove(path);
    }
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (dir[0] == '\0') {
        const char* td = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/ccb_fuzz_from_%d", td != NULL && td[0] != '\0' ? td : "/tmp",
                 (int)getpid());
        mkdir(dir, 0700);
        atexit(remove_dir);
    }
    const uint8_t* p = data;
    const uint8_t* end = data + size;
    for (int part = 0; part < 3; ++part) {
        const uint8_t* q = p;
        while (q < end && !(q + 3 <= end && q[0] == '%' && q[1] == '%' && q[2] == '\n' &&
                            (q == data || q[-1] == '\n'))) {
            ++q;
        }
        put(dir, names[part], p, (size_t)(q - p));
        p = q + 3 <= end ? q + 3 : end;
    }
    const case_desc* cs = case_find("conveyor");
    if (cs == NULL) {
        abort();
    }
    run_config cfg;
    run_config_default(cs, &cfg);
    cfg.sim.dt = 0.01;
    cfg.t_final = 0.05;
    snprintf(cfg.label, sizeof cfg.label, "fuzz");
    run_record rec;
    char msg[1024];
    const int rc = run_load(&cfg, dir, &rec, msg, sizeof msg);
    if (rc == 0) {
        const int consistent = rec.status == CCB_OK
                                   ? rec.nsteps == 5
                                   : rec.nsteps < 5 && rec.fail_step == rec.nsteps + 1;
        if (!consistent) {
            abort(); /* the loader accepted a record that lies about its steps */
        }
        run_record_free(&rec);
    } else if (rc != 2 || msg[0] == '\0') {
        abort(); /* a refusal must say why */
    }
    return 0;
}
