/* unit.variants: the variant table and the cases' declarations of their variants
 * (study/variant.c, case_desc.variants and .no_variants). Every built-in variant configures (its
 * option words are its solver's); every name a case lists is a variant of the right kind — an
 * opt-in one in `variants`, an every-case one in `no_variants`, with its reason — so a typo or a
 * renamed variant fails here instead of silently dropping a variant from the case's studies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "registry.h"
#include "study.h"
#include "test.h"

/* Each word of a case's list: a variant of the expected kind that the case then does (or does
 * not) take. */
static void check_list(const case_desc* cs, const char* list, int opt_in) {
    char buf[512];
    CHECK(strlen(list) < sizeof buf, "%s: list too long", cs->name);
    snprintf(buf, sizeof buf, "%s", list);
    for (char* w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
        variant_def v;
        const int found = variant_find(w, &v) == 0;
        CHECK(found, "%s lists '%s', which is no variant", cs->name, w);
        if (found) {
            CHECK(v.opt_in == opt_in, "%s lists '%s' in %s, which is %s", cs->name, w,
                  opt_in ? "variants" : "no_variants", v.opt_in ? "opt-in" : "on every case");
            CHECK(variant_applies(&v, cs) == opt_in, "%s: '%s' %s", cs->name, w,
                  opt_in ? "listed but not applied" : "declined but applied");
        }
    }
}

static void test_table(void) {
    for (int i = 0; i < variant_count(); ++i) {
        variant_def v;
        CHECK(variant_get(i, &v) == 0, "variant %d", i);
        run_config cfg;
        memset(&cfg, 0, sizeof cfg);
        variant_configure(&v, &cfg, NAN); /* aborts on a table entry its solver refuses */
        int takers = 0;
        for (int c = 0; c < case_count(); ++c) {
            takers += variant_applies(&v, case_get(c));
        }
        CHECK(takers > 0 || v.peer, "variant %s applies to no case", v.name);
    }
}

static void test_case_declarations(void) {
    for (int c = 0; c < case_count(); ++c) {
        const case_desc* cs = case_get(c);
        if (cs->variants) {
            check_list(cs, cs->variants, 1);
        }
        if (cs->no_variants) {
            check_list(cs, cs->no_variants, 0);
            CHECK(cs->no_variants_why && cs->no_variants_why[0], "%s declines without a reason",
                  cs->name);
        }
    }
}

int main(void) {
    RUN(test_table);
    RUN(test_case_declarations);
    return TEST_SUMMARY();
}
