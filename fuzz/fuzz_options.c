/* Fuzz target: the command-line parser of `ccb` (cli/options.c through cli_parse: getopt_long, number and
 * enumeration validation, --set, the solver options of the descriptors). The input is argv: words separated by NUL bytes; its first
 * byte picks the command whose option list applies. Every way out of the parser is either a
 * return or exit() (a usage error), which this harness turns into a return (longjmp), so one
 * process runs every input. */
#include "cli_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const k_allowed[] = {
        RUN_OPTS, ("out jobs tier set no-figures " STUDY_NEWTON_OPTS), "out jobs tier",
        "cases variants quick out jobs no-figures",
        "repeat variants approx dt t-final set peers solver friction SOLVER"};
    if (size < 1 || size > 4096) {
        return 0;
    }
    static char buf[4098];
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    static char* argv[40];
    static int argc;
    argc = 0;
    argv[argc++] = (char*)"ccb";
    argv[argc++] = (char*)"cmd";
    for (size_t i = 0; i < size - 1 && argc < 39;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    static FILE* devnull;
    if (devnull == NULL) {
        devnull = fopen("/dev/null", "w");
    }
    static opts o;
    char msg[1024];
    if (cli_parse(argc, argv, 2, k_allowed[data[0] % 5], &o, "help\n", msg, sizeof msg) != 0) {
        return 0; /* a usage error (or --help): a status and a message, nothing else */
    }
    /* what the commands do next with the values: the parameters of a case */
    double params[CASE_MAX_PARAMS];
    const case_desc* cs = case_get(data[0] % case_count());
    case_default_params(cs, params);
    for (int i = 0; i < o.nsets; ++i) {
        (void)case_set_param(cs, params, o.sets[i], msg, sizeof msg);
    }
    /* and the solver options, through the descriptors, on the case's configuration */
    static run_config cfg;
    run_config_default(cs, &cfg);
    if (o.solver && solver_select(&cfg, o.solver, msg, sizeof msg) != 0) {
        return 0;
    }
    (void)cli_apply_solver_options(&o, &cfg, data[0] & 1, msg, sizeof msg);
    (void)devnull;
    return 0;
}
