/* cmd_diff: `ccb diff A B` — what moved between two result trees (study/diff.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"

static const char* k_diff_help =
    "usage: ccb diff A B [options]\n"
    "\n"
    "Compares two result trees (outputs of ccb gate, study or reproduce, or a baseline saved by\n"
    "`ccb gate --save-baseline`; A before, B after): every gate's verdict and measured value,\n"
    "every cell of the study tables, and every run's trajectory (largest difference per\n"
    "observable, time of the first difference beyond round-off). Wall times are not compared.\n"
    "A change is significant when it exceeds 3x the value's round-off spread, where\n"
    "`ccb gate --sensitivity` measured one (in either tree), else max(rtol |value|, atol); a\n"
    "changed verdict or text, and files, rows or columns on one side only, always are.\n"
    "Changed verdicts are listed first. Writes OUT/diff.md, OUT/diff.csv and, for every file\n"
    "whose numbers moved significantly, OUT/figures/<file>.png (before dashed, after solid,\n"
    "B - A on the right axis).\n"
    "Exit 0 if nothing moved significantly, 1 if something did, 2 on an error.\n"
    "\n"
    "  --out DIR      where the report goes (default diff)\n"
    "  --diff-rtol X  relative threshold where no spread is known (default 1e-6)\n"
    "  --diff-atol X  absolute threshold where no spread is known (default 1e-12)\n"
    "  --report-only  exit 0 also when something moved (the report is the same)\n"
    "  --no-figures   no overlaid figures\n";

/* The significance options of `ccb diff` and `ccb gate --baseline`. */
void diff_opts_from(const opts* o, suite_diff_opts* d) {
    d->rtol = o->rtol >= 0 ? o->rtol : SUITE_DIFF_RTOL;
    d->atol = o->atol >= 0 ? o->atol : SUITE_DIFF_ATOL;
    d->nsigma = SUITE_DIFF_NSIGMA;
    d->figures = o->figures;
    d->only = NULL;
    d->nonly = 0;
}

int cmd_diff(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "out diff-rtol diff-atol report-only no-figures", &o, k_diff_help);
    if (o.npos != 2) {
        die_usage("ccb diff expects two result trees, A (before) and B (after); got %d "
                  "argument(s)",
                  o.npos);
    }
    suite_diff_opts d;
    diff_opts_from(&o, &d);
    suite_diff_summary sum;
    mkdir_tree_root(o.out ? o.out : "diff");
    char msg[PATH_MAX + 600];
    if (suite_diff(o.pos[0], o.pos[1], o.out ? o.out : "diff", &d, &sum, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    return sum.significant > 0 && !o.report_only ? EXIT_GATE : 0;
}
