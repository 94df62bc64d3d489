#define _POSIX_C_SOURCE 200809L
/* Gate files: reference/<case>.json, validated and evaluated against measured metrics (schema in
 * reference.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reference.h"

static char* read_file(const char* path, char* msg, size_t msgn) {
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(msg, msgn, "cannot read gate file '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(msg, msgn, "cannot read gate file '%s': not a regular file", path);
        return NULL;
    }
    FILE* f = fopen(path, "rb");
    char* s = f && st.st_size < (1 << 24) ? malloc((size_t)st.st_size + 1) : NULL;
    const size_t n = s ? fread(s, 1, (size_t)st.st_size, f) : 0;
    if (s == NULL || n != (size_t)st.st_size) {
        free(s);
        if (f) {
            fclose(f);
        }
        snprintf(msg, msgn, "cannot read gate file '%s'%s", path,
                 st.st_size >= (1 << 24) ? ": larger than 16 MiB" : "");
        return NULL;
    }
    s[n] = '\0';
    fclose(f);
    return s;
}

static void copy_str(char* dst, size_t n, const cJSON* item) {
    snprintf(dst, n, "%s", cJSON_IsString(item) ? item->valuestring : "");
}

const char* ccb_gate_tier_name(int tiers) {
    return tiers == CCB_GATE_QUICK ? "quick" : tiers == CCB_GATE_FULL ? "full" : "both";
}

/* A required non-empty string field of gate i; NULL with a message if absent. */
static const char* need_string(const cJSON* g, const char* field, const char* path, int i,
                               const char* id, char* msg, size_t msgn) {
    const cJSON* item = cJSON_GetObjectItemCaseSensitive(g, field);
    if (!cJSON_IsString(item) || item->valuestring[0] == '\0') {
        snprintf(msg, msgn, "gate file '%s': gate %d (%s) needs a non-empty string \"%s\"", path,
                 i, id ? id : "no id", field);
        return NULL;
    }
    return item->valuestring;
}

/* Parses gate i into r (everything but the measurement). 0, or -1 with a message. */
static int parse_gate(const cJSON* g, const char* path, int i, ccb_gate_result* r, char* msg,
                      size_t msgn) {
    memset(r, 0, sizeof *r);
    const char* id = need_string(g, "id", path, i, NULL, msg, msgn);
    if (id == NULL) {
        return -1;
    }
    if (strlen(id) >= sizeof r->id) {
        snprintf(msg, msgn, "gate file '%s': gate %d: id '%s' is longer than %zu characters",
                 path, i, id, sizeof r->id - 1);
        return -1;
    }
    snprintf(r->id, sizeof r->id, "%s", id);
    static const char* const k_fields[] = {"metric", "op", "kind", "tier", "basis"};
    const char* f[5];
    for (int k = 0; k < 5; ++k) {
        if ((f[k] = need_string(g, k_fields[k], path, i, id, msg, msgn)) == NULL) {
            return -1;
        }
    }
    if (strlen(f[0]) >= sizeof r->metric) {
        snprintf(msg, msgn, "gate %s: metric name longer than %zu characters", id,
                 sizeof r->metric - 1);
        return -1;
    }
    snprintf(r->metric, sizeof r->metric, "%s", f[0]);
    snprintf(r->op, sizeof r->op, "%s", f[1]);
    snprintf(r->kind, sizeof r->kind, "%s", f[2]);
    snprintf(r->basis, sizeof r->basis, "%s", f[4]);
    copy_str(r->description, sizeof r->description,
             cJSON_GetObjectItemCaseSensitive(g, "description"));
    r->tiers = strcmp(f[3], "quick") == 0  ? CCB_GATE_QUICK
               : strcmp(f[3], "full") == 0 ? CCB_GATE_FULL
               : strcmp(f[3], "both") == 0 ? CCB_GATE_BOTH
                                           : 0;
    if (r->tiers == 0) {
        snprintf(msg, msgn, "gate %s: \"tier\" must be \"quick\", \"full\" or \"both\" (got '%s')",
                 id, f[3]);
        return -1;
    }
    const cJSON* expect = cJSON_GetObjectItemCaseSensitive(g, "expect");
    if (expect != NULL) {
        if (!cJSON_IsString(expect) || strcmp(expect->valuestring, "fail") != 0) {
            snprintf(msg, msgn, "gate %s: \"expect\" can only be \"fail\"", id);
            return -1;
        }
        copy_str(r->evidence, sizeof r->evidence, cJSON_GetObjectItemCaseSensitive(g, "evidence"));
        if (r->evidence[0] == '\0') {
            snprintf(msg, msgn, "gate %s: an expected failure needs \"evidence\"", id);
            return -1;
        }
        r->expect_fail = 1;
    }
    if (strcmp(r->op, "in") == 0) {
        const cJSON* range = cJSON_GetObjectItemCaseSensitive(g, "range");
        if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2 ||
            !cJSON_IsNumber(cJSON_GetArrayItem(range, 0)) ||
            !cJSON_IsNumber(cJSON_GetArrayItem(range, 1))) {
            snprintf(msg, msgn, "gate %s: op \"in\" needs \"range\": [lo, hi]", id);
            return -1;
        }
        r->lo = cJSON_GetArrayItem(range, 0)->valuedouble;
        r->hi = cJSON_GetArrayItem(range, 1)->valuedouble;
    } else {
        const cJSON* v = cJSON_GetObjectItemCaseSensitive(g, "value");
        if (!cJSON_IsNumber(v) || (strcmp(r->op, "<=") && strcmp(r->op, "<") &&
                                   strcmp(r->op, ">=") && strcmp(r->op, ">"))) {
            snprintf(msg, msgn, "gate %s: op must be <=, <, >=, > (with \"value\") or in", id);
            return -1;
        }
        r->lo = r->hi = v->valuedouble;
    }
    /* cJSON reads 1e400 as inf: a bound that is not a finite number would pass or fail
     * vacuously */
    if (!isfinite(r->lo) || !isfinite(r->hi) || r->lo > r->hi) {
        snprintf(msg, msgn, "gate %s: the bound must be finite%s (got %g, %g)", id,
                 strcmp(r->op, "in") == 0 ? " with lo <= hi" : "", r->lo, r->hi);
        return -1;
    }
    return 0;
}

static int compare(const ccb_gate_result* r, double m) {
    if (strcmp(r->op, "in") == 0) {
        return m >= r->lo && m <= r->hi;
    }
    if (strcmp(r->op, "<=") == 0) {
        return m <= r->lo;
    }
    if (strcmp(r->op, "<") == 0) {
        return m < r->lo;
    }
    if (strcmp(r->op, ">=") == 0) {
        return m >= r->lo;
    }
    return m > r->lo;
}

int ccb_gates_evaluate(const char* path, int tier, ccb_metric_lookup lookup, void* user,
                       ccb_gate_result* res, int max, int* n, char* msg, size_t msgn) {
    *n = 0;
    char* text = read_file(path, msg, msgn);
    if (text == NULL) {
        return -1;
    }
    cJSON* root = cJSON_Parse(text);
    free(text);
    const cJSON* gates = root ? cJSON_GetObjectItemCaseSensitive(root, "gates") : NULL;
    if (!cJSON_IsArray(gates)) {
        snprintf(msg, msgn, "gate file '%s' is not valid JSON with a \"gates\" array", path);
        cJSON_Delete(root);
        return -1;
    }
    if (cJSON_GetArraySize(gates) == 0) {
        snprintf(msg, msgn, "gate file '%s' has no gates (an empty list would pass vacuously)",
                 path);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON* g;
    int i = 0;
    cJSON_ArrayForEach(g, gates) {
        if (i >= max) {
            snprintf(msg, msgn, "gate file '%s' has more than %d gates", path, max);
            cJSON_Delete(root);
            return -1;
        }
        ccb_gate_result* r = &res[i];
        if (parse_gate(g, path, i, r, msg, msgn) != 0) {
            cJSON_Delete(root);
            return -1;
        }
        for (int j = 0; j < i; ++j) {
            if (strcmp(res[j].id, r->id) == 0) {
                snprintf(msg, msgn, "gate file '%s': duplicate gate id '%s' (gates %d and %d)",
                         path, r->id, j, i);
                cJSON_Delete(root);
                return -1;
            }
        }
        r->measured = NAN;
        r->evaluated = (r->tiers & tier) != 0;
        double m = NAN;
        if (r->evaluated && lookup(user, r->metric, &m) == 0 && isfinite(m)) {
            r->measured = m;
            r->pass = compare(r, m);
        }
        i++;
    }
    *n = i;
    cJSON_Delete(root);
    return 0;
}
