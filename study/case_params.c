/* case_params: a case's parameter table read and written — defaults, lookup, `--set name=value`
 * and which runs read a parameter (study/case.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

const case_param* case_find_param(const case_desc* cs, const char* name, int* index) {
    for (int i = 0; i < cs->nparams; ++i) {
        if (strcmp(cs->params[i].name, name) == 0) {
            if (index) {
                *index = i;
            }
            return &cs->params[i];
        }
    }
    return NULL;
}

int case_param_read(const case_desc* cs, int i, const char* approx, const double* params, char* why,
                    size_t n) {
    const char* c = cs->params[i].read_if;
    if (c == NULL) {
        return 1;
    }
    const char* eq = strchr(c, '=');
    const int neg = eq && eq > c && eq[-1] == '!'; /* "PARAM!=VALUE" */
    const size_t len = eq ? (size_t)(eq - c) - (size_t)neg : 0;
    int read = 0;
    if (eq && !neg && len == 6 && strncmp(c, "approx", 6) == 0) {
        read = approx != NULL && strcmp(approx, eq + 1) == 0;
    } else {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), c);
        int k = -1;
        double v = NAN;
        read = eq && case_find_param(cs, name, &k) != NULL && ccb_parse_decimal(eq + 1, &v) == 0 &&
               (params[k] == v) != neg;
    }
    if (!read) {
        snprintf(why, n, "%s is read only by the runs with %s", cs->params[i].name, c);
    }
    return read;
}

void case_default_params(const case_desc* cs, double* params) {
    for (int i = 0; i < cs->nparams; ++i) {
        params[i] = cs->params[i].def;
    }
}

int case_set_param(const case_desc* cs, double* params, const char* assignment, char* msg,
                   size_t n) {
    const char* eq = strchr(assignment, '=');
    if (eq == NULL || eq == assignment) {
        snprintf(msg, n, "--set expects name=value (got '%s')", assignment);
        return -1;
    }
    char name[64];
    const size_t len = (size_t)(eq - assignment);
    if (len >= sizeof name) {
        snprintf(msg, n, "parameter name too long in '%s'", assignment);
        return -1;
    }
    memcpy(name, assignment, len);
    name[len] = '\0';
    int idx = -1;
    const case_param* p = case_find_param(cs, name, &idx);
    if (p == NULL) {
        int off = snprintf(msg, n, "unknown parameter '%s' for case %s; known:", name, cs->name);
        for (int i = 0; i < cs->nparams && off > 0 && (size_t)off < n; ++i) {
            off += snprintf(msg + off, n - (size_t)off, " %s", cs->params[i].name);
        }
        return -1;
    }
    const char* text = eq + 1;
    double v = NAN;
    if (ccb_parse_decimal(text, &v) != 0) {
        snprintf(msg, n, "parameter '%s': '%s' is not a number (a finite decimal is expected)",
                 name, text);
        return -1;
    }
    const int below = p->lo_open ? !(v > p->lo) : !(v >= p->lo);
    const int above = p->hi_open ? !(v < p->hi) : !(v <= p->hi);
    if (below || above) {
        snprintf(msg, n, "parameter '%s' = %g is out of range %s%g, %g%s [%s]", name, v,
                 p->lo_open ? "(" : "[", p->lo, p->hi, p->hi_open ? ")" : "]", p->unit);
        return -1;
    }
    if (p->integer && v != floor(v)) {
        snprintf(msg, n, "parameter '%s' must be a whole number (got %g)", name, v);
        return -1;
    }
    params[idx] = v;
    return 0;
}
