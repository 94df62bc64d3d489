/* Gate files: reference/<case>.json, evaluated against measured metrics. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

static char* read_file(const char* path, char* msg, size_t msgn) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(msg, msgn, "cannot read gate file '%s'", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s == NULL || fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        fclose(f);
        snprintf(msg, msgn, "cannot read gate file '%s'", path);
        return NULL;
    }
    s[n] = '\0';
    fclose(f);
    return s;
}

static void copy_str(char* dst, size_t n, const cJSON* item) {
    snprintf(dst, n, "%s", cJSON_IsString(item) ? item->valuestring : "");
}

int ccb_gates_evaluate(const char* path, ccb_metric_lookup lookup, void* user, ccb_gate_result* res,
                       int max, int* n, char* msg, size_t msgn) {
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
    const cJSON* g;
    int i = 0;
    cJSON_ArrayForEach(g, gates) {
        if (i >= max) {
            snprintf(msg, msgn, "gate file '%s' has more than %d gates", path, max);
            cJSON_Delete(root);
            return -1;
        }
        ccb_gate_result* r = &res[i];
        memset(r, 0, sizeof *r);
        const cJSON* id = cJSON_GetObjectItemCaseSensitive(g, "id");
        const cJSON* metric = cJSON_GetObjectItemCaseSensitive(g, "metric");
        const cJSON* op = cJSON_GetObjectItemCaseSensitive(g, "op");
        if (!cJSON_IsString(id) || !cJSON_IsString(metric) || !cJSON_IsString(op)) {
            snprintf(msg, msgn, "gate file '%s': gate %d needs string id, metric and op", path, i);
            cJSON_Delete(root);
            return -1;
        }
        copy_str(r->id, sizeof r->id, id);
        copy_str(r->metric, sizeof r->metric, metric);
        copy_str(r->op, sizeof r->op, op);
        copy_str(r->tier, sizeof r->tier, cJSON_GetObjectItemCaseSensitive(g, "tier"));
        copy_str(r->basis, sizeof r->basis, cJSON_GetObjectItemCaseSensitive(g, "basis"));
        copy_str(r->description, sizeof r->description,
                 cJSON_GetObjectItemCaseSensitive(g, "description"));
        const cJSON* expect = cJSON_GetObjectItemCaseSensitive(g, "expect");
        if (expect != NULL) {
            if (!cJSON_IsString(expect) || strcmp(expect->valuestring, "fail") != 0) {
                snprintf(msg, msgn, "gate %s: \"expect\" can only be \"fail\"", r->id);
                cJSON_Delete(root);
                return -1;
            }
            copy_str(r->evidence, sizeof r->evidence,
                     cJSON_GetObjectItemCaseSensitive(g, "evidence"));
            if (r->evidence[0] == '\0') {
                snprintf(msg, msgn, "gate %s: an expected failure needs \"evidence\"", r->id);
                cJSON_Delete(root);
                return -1;
            }
            r->expect_fail = 1;
        }
        const int is_range = strcmp(r->op, "in") == 0;
        if (is_range) {
            const cJSON* range = cJSON_GetObjectItemCaseSensitive(g, "range");
            if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(range, 0)) ||
                !cJSON_IsNumber(cJSON_GetArrayItem(range, 1))) {
                snprintf(msg, msgn, "gate %s: op \"in\" needs \"range\": [lo, hi]", r->id);
                cJSON_Delete(root);
                return -1;
            }
            r->lo = cJSON_GetArrayItem(range, 0)->valuedouble;
            r->hi = cJSON_GetArrayItem(range, 1)->valuedouble;
        } else {
            const cJSON* v = cJSON_GetObjectItemCaseSensitive(g, "value");
            if (!cJSON_IsNumber(v) || (strcmp(r->op, "<=") && strcmp(r->op, "<") &&
                                       strcmp(r->op, ">=") && strcmp(r->op, ">"))) {
                snprintf(msg, msgn, "gate %s: op must be <=, <, >=, > (with \"value\") or in",
                         r->id);
                cJSON_Delete(root);
                return -1;
            }
            r->lo = r->hi = v->valuedouble;
        }
        double m = NAN;
        if (lookup(user, r->metric, &m) != 0 || !isfinite(m)) {
            r->measured = NAN;
            r->pass = 0;
        } else {
            r->measured = m;
            if (is_range) {
                r->pass = m >= r->lo && m <= r->hi;
            } else if (strcmp(r->op, "<=") == 0) {
                r->pass = m <= r->lo;
            } else if (strcmp(r->op, "<") == 0) {
                r->pass = m < r->lo;
            } else if (strcmp(r->op, ">=") == 0) {
                r->pass = m >= r->lo;
            } else {
                r->pass = m > r->lo;
            }
        }
        i++;
    }
    *n = i;
    cJSON_Delete(root);
    return 0;
}
