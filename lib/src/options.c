/* options: option descriptors — parse, format, check (ccb/solver.h). A base-layer module: it knows
 * the descriptors, not the types that own them; the registries are sim_registry.c (solvers,
 * and the registration of ODE methods), ode.c (the ODE methods' table) and approx.c. */
#include "ccb/solver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int ccb_parse_decimal(const char* text, double* out) {
    if (text == NULL) {
        return -1;
    }
    const char* p = text;
    p += *p == '+' || *p == '-';
    const size_t ni = strspn(p, "0123456789");
    p += ni;
    size_t nf = 0;
    if (*p == '.') {
        nf = strspn(p + 1, "0123456789");
        p += 1 + nf;
    }
    if (ni + nf == 0) {
        return -1;
    }
    if (*p == 'e' || *p == 'E') {
        const char* q = p + 1;
        q += *q == '+' || *q == '-';
        const size_t ne = strspn(q, "0123456789");
        if (ne == 0) {
            return -1;
        }
        p = q + ne;
    }
    if (*p != '\0') {
        return -1;
    }
    const double x = strtod(text, NULL);
    if (!isfinite(x)) {
        return -1;
    }
    if (out) {
        *out = x;
    }
    return 0;
}

int ccb_component_name_ok(const char* name) {
    if (name == NULL || !(name[0] >= 'a' && name[0] <= 'z') || strlen(name) > 31) {
        return 0;
    }
    for (const char* p = name; *p; ++p) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) {
            return 0;
        }
    }
    return 1;
}

/* ---- option descriptors ---------------------------------------------------------------------- */

static const char* const k_switch[] = {"off", "on", NULL};

static void store_at(const ccb_option_desc* d, void* base, size_t off, double x) {
    char* p = (char*)base + off;
    switch (d->storage) {
    case CCB_STORE_DOUBLE: memcpy(p, &x, sizeof x); break;
    case CCB_STORE_INT: {
        const int v = (int)x;
        memcpy(p, &v, sizeof v);
        break;
    }
    case CCB_STORE_LONG: {
        const long v = (long)x;
        memcpy(p, &v, sizeof v);
        break;
    }
    }
}

void ccb_option_store(const ccb_option_desc* d, void* base, double x) {
    store_at(d, base, d->offset, x);
    if (d->offset2 > 0) {
        store_at(d, base, d->offset2, x);
    }
}

double ccb_option_value(const ccb_option_desc* d, const void* base) {
    const char* p = (const char*)base + d->offset;
    switch (d->storage) {
    case CCB_STORE_DOUBLE: {
        double x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    case CCB_STORE_INT: {
        int v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    case CCB_STORE_LONG: {
        long v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    }
    return NAN;
}

static const char* const* names_of(const ccb_option_desc* d) {
    return d->type == CCB_OPT_ENUM ? d->values : k_switch;
}

static void join_names(const char* const* names, char* out, size_t n) {
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; names && names[i] && at + 1 < n; ++i) {
        const int w = snprintf(out + at, n - at, "%s%s", i ? ", " : "", names[i]);
        if (w < 0) {
            break;
        }
        at += (size_t)w;
    }
}

static int in_range(const ccb_option_desc* d, double x) {
    return isfinite(x) && (d->min_open ? x > d->min : x >= d->min) && x <= d->max;
}

ccb_status ccb_option_parse(const ccb_option_desc* d, const char* text, void* base, char* msg,
                            size_t n) {
    if (d == NULL || base == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "option: NULL descriptor or location");
    }
    double x = NAN;
    switch (d->type) {
    case CCB_OPT_FLAG:
        if (text != NULL && strcmp(text, "1") != 0 && strcmp(text, "on") != 0) {
            return ccb_errorf(msg, n, CCB_E_INVALID, "--%s takes no value (got '%s')", d->name,
                              text);
        }
        x = 1.0;
        break;
    case CCB_OPT_ENUM:
    case CCB_OPT_SWITCH: {
        const char* const* names = names_of(d);
        for (int i = 0; text && names && names[i]; ++i) {
            if (strcmp(names[i], text) == 0) {
                x = i;
            }
        }
        if (isnan(x)) {
            char list[256];
            join_names(names, list, sizeof list);
            return ccb_errorf(msg, n, CCB_E_INVALID, "--%s expects one of %s (got '%s')", d->name,
                              list, text ? text : "");
        }
        break;
    }
    case CCB_OPT_REAL:
    case CCB_OPT_INT: {
        x = NAN;
        const int whole = d->type == CCB_OPT_INT;
        if (ccb_parse_decimal(text, &x) != 0 || !in_range(d, x) || (whole && x != floor(x))) {
            return ccb_errorf(
                msg, n, CCB_E_INVALID, "--%s expects %s in %s%.17g, %.17g]%s%s (got '%s')", d->name,
                whole ? "a whole number" : "a number", d->min_open ? "(" : "[", d->min, d->max,
                d->unit && d->unit[0] ? " " : "", d->unit ? d->unit : "", text ? text : "");
        }
        break;
    }
    default: return ccb_errorf(msg, n, CCB_E_INVALID, "--%s: unknown option type", d->name);
    }
    ccb_option_store(d, base, x);
    return CCB_OK;
}

static void format_number(const ccb_option_desc* d, double x, char* out, size_t n) {
    switch (d->type) {
    case CCB_OPT_REAL: /* the shortest form that reads back to x */
        for (int digits = 6; digits <= 17; ++digits) {
            snprintf(out, n, "%.*g", digits, x);
            if (strtod(out, NULL) == x) {
                break;
            }
        }
        break;
    case CCB_OPT_INT: snprintf(out, n, "%.0f", x); break;
    case CCB_OPT_ENUM:
    case CCB_OPT_SWITCH:
    case CCB_OPT_FLAG: {
        const char* const* names = names_of(d);
        int k = 0;
        while (names[k] && k < (int)x) {
            ++k;
        }
        snprintf(out, n, "%s", x >= 0 && names[k] ? names[k] : "?");
        break;
    }
    }
}

void ccb_option_format(const ccb_option_desc* d, const void* base, char* out, size_t n) {
    format_number(d, ccb_option_value(d, base), out, n);
}

void ccb_option_format_default(const ccb_option_desc* d, char* out, size_t n) {
    format_number(d, d->def, out, n);
}

ccb_status ccb_option_table_check(const ccb_option_desc* t, int n, size_t block, char* msg,
                                  size_t msgn) {
    if (n < 0 || (n > 0 && t == NULL)) {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "option table: %d options, table %s", n,
                          t ? "given" : "NULL");
    }
    for (int i = 0; i < n; ++i) {
        const ccb_option_desc* d = &t[i];
        const size_t size = d->storage == CCB_STORE_DOUBLE ? sizeof(double)
                            : d->storage == CCB_STORE_LONG ? sizeof(long)
                                                           : sizeof(int);
        if (!ccb_component_name_ok(d->name) || d->doc == NULL || d->unit == NULL) {
            return ccb_errorf(msg, msgn, CCB_E_INVALID,
                              "option %d ('%s'): a name of a-z, 0-9 and '-', a unit (may be "
                              "\"\") and a doc line are required",
                              i, d->name ? d->name : "(null)");
        }
        if (d->offset + size > block || (d->offset2 > 0 && d->offset2 + size > block) ||
            (unsigned)d->type > CCB_OPT_FLAG || (unsigned)d->storage > CCB_STORE_LONG) {
            return ccb_errorf(msg, msgn, CCB_E_INVALID,
                              "option '%s': its location or type is outside the parameter block",
                              d->name);
        }
        if ((d->type == CCB_OPT_REAL || d->type == CCB_OPT_INT) &&
            !(d->min <= d->max && in_range(d, d->def))) {
            return ccb_errorf(msg, msgn, CCB_E_INVALID,
                              "option '%s': default %g outside its range [%g, %g]", d->name, d->def,
                              d->min, d->max);
        }
        if (d->type == CCB_OPT_ENUM) {
            int k = 0;
            while (d->values && d->values[k]) {
                ++k;
            }
            if (k == 0 || !(d->def >= 0 && d->def < k && d->def == floor(d->def))) {
                return ccb_errorf(msg, msgn, CCB_E_INVALID,
                                  "option '%s': an enumeration needs values and a default index",
                                  d->name);
            }
        }
        if ((d->type == CCB_OPT_SWITCH || d->type == CCB_OPT_FLAG) && d->def != 0 && d->def != 1) {
            return ccb_errorf(msg, msgn, CCB_E_INVALID, "option '%s': default must be 0 or 1",
                              d->name);
        }
        for (int j = 0; j < i; ++j) {
            if (strcmp(t[j].name, d->name) == 0) {
                return ccb_errorf(msg, msgn, CCB_E_INVALID, "option '%s' is listed twice", d->name);
            }
        }
        if (d->requires) {
            const char* rq = d->requires + (d->requires[0] == '!'); /* "!flag": must be off */
            int ok = 0;
            for (int j = 0; j < n; ++j) {
                ok |= strcmp(t[j].name, rq) == 0 &&
                      (t[j].type == CCB_OPT_FLAG || t[j].type == CCB_OPT_SWITCH);
            }
            if (!ok) {
                return ccb_errorf(msg, msgn, CCB_E_INVALID,
                                  "option '%s' requires '%s', which is not a flag of the table",
                                  d->name, d->requires);
            }
        }
    }
    return CCB_OK;
}
