/* result: a study's results as values, rendered by the engine (docs/architecture.md §2).
 *
 * A declaration's finish does not format anything: it sets metrics (the gates read them), named
 * values and texts (what the report quotes), and the rows of the tables its declaration lists
 * (fig_table). After the finish the engine writes each table with a CSV file to the study's
 * directory and renders the declaration's report template, whose placeholders name those values:
 *   {name}        a value, else a metric, printed with %g
 *   {name|FMT}    the same with the printf conversion FMT (one of d i e f g E G, with flags,
 *                 width and precision), e.g. {fig6.ref.t_contact|%.5f}
 *   {text:name}   a text set with study_text
 *   {table:name}  a declared table as markdown: its md header, then one line per row
 *   {?name}...{/} the text between only if name (a value, text or metric) was set (nestable)
 *   {{ and }}     literal braces
 * A placeholder that names nothing set is an error (the template and the finish disagree), as is
 * a row of an undeclared table: the study fails with a message instead of printing a hole.
 * (About 830 lines: the output handle, the table store and the template renderer read one
 * declaration's state; the renderer is tested through the handle alone, unit.results.) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>

#include "analysis.h"
#include "ccb/status.h"
#include "output.h"
#include "results_engine.h"

typedef enum { CELL_NUM, CELL_STR, CELL_BLANK } cell_kind;
typedef struct cell {
    cell_kind kind;
    double v;
    char* s;
} cell;
typedef struct table_rows {
    const fig_table* decl;
    char* header; /* study_table_header (NULL: the declaration's) */
    char* md;     /* study_table_md (NULL: the declaration's) */
    cell* cells;
    int ncells, cap;
    int* row_end; /* cells of rows 0..nrows-1 end at row_end[r] */
    int nrows, cap_rows;
} table_rows;
typedef struct named {
    char name[96];
    double v;
    char* s;
} named;
typedef struct study_results {
    const struct study_out* owner; /* for the metrics the template names */
    const char* report;            /* the declaration's report template (NULL: none) */
    table_rows* tables;
    int ntables;
    named* values;
    int nvalues, cap_values;
    named* texts;
    int ntexts, cap_texts;
    char error[512]; /* the first misuse, reported when the results are rendered */
} study_results;

/* The output handle (results.h): the metrics, the report, the declared results in progress, where
 * the case's files go. */
struct study_out {
    metric* metrics;
    int nmetrics, cap_metrics;
    strbuf report;
    study_results* results; /* the declaration being run (NULL: none) */
    const char* root;       /* <root>/<case_name>/: the case's directory */
    const char* case_name;
    int figures;
    int warnings;
    int status;                    /* 0, or the code of the first study_fail */
    char error[1024];              /* its message */
    struct study_out *prev, *next; /* the handles open in this process (study_out_free_all) */
};
static study_out* g_open; /* created by the command's thread, before its runs start */

static int grow(void** p, int* cap, int need, size_t size) {
    if (need <= *cap) {
        return 0;
    }
    const int n = need > 2 * *cap ? need : 2 * *cap;
    void* q = realloc(*p, (size_t)n * size);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}

static void misuse(study_results* r, const char* fmt, const char* what) {
    if (r->error[0] == '\0') {
        snprintf(r->error, sizeof r->error, fmt, what);
    }
}

static void results_free(study_results* r);

int study_results_begin(study_out* out, const fig_table* tables, const char* report) {
    study_results_end(out);
    study_results* r = calloc(1, sizeof *r);
    if (r == NULL) {
        return -1;
    }
    r->owner = out;
    r->report = report;
    int n = 0;
    while (tables && tables[n].name) {
        ++n;
    }
    r->tables = calloc((size_t)(n > 0 ? n : 1), sizeof *r->tables);
    if (r->tables == NULL) {
        free(r);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        r->tables[i].decl = &tables[i];
    }
    r->ntables = n;
    out->results = r;
    return 0;
}

void study_results_end(study_out* out) {
    results_free(out->results);
    out->results = NULL;
}

static void results_free(study_results* r) {
    if (r == NULL) {
        return;
    }
    for (int t = 0; t < r->ntables; ++t) {
        table_rows* tr = &r->tables[t];
        for (int c = 0; c < tr->ncells; ++c) {
            free(tr->cells[c].s);
        }
        free(tr->cells);
        free(tr->row_end);
        free(tr->header);
        free(tr->md);
    }
    for (int i = 0; i < r->ntexts; ++i) {
        free(r->texts[i].s);
    }
    free(r->tables);
    free(r->values);
    free(r->texts);
    free(r);
}

static named* find_named(named* list, int n, const char* name) {
    for (int i = 0; i < n; ++i) {
        if (strcmp(list[i].name, name) == 0) {
            return &list[i];
        }
    }
    return NULL;
}

/* The entry `name` of a list of values or texts, added if new; NULL (misuse noted) if the name is
 * too long or memory runs out. */
static named* named_slot(study_results* r, named** list, int* n, int* cap, const char* what,
                         const char* name) {
    named* e = find_named(*list, *n, name);
    if (e == NULL) {
        if (strlen(name) >= sizeof e->name || grow((void**)list, cap, *n + 1, sizeof **list) != 0) {
            misuse(r, what, name);
            return NULL;
        }
        e = &(*list)[(*n)++];
        snprintf(e->name, sizeof e->name, "%s", name);
        e->s = NULL;
    }
    return e;
}

void study_value(study_out* out, const char* name, double v) {
    study_results* r = out->results;
    named* e = r ? named_slot(r, &r->values, &r->nvalues, &r->cap_values,
                              "value '%s': name too long or out of memory", name)
                 : NULL;
    if (e) {
        e->v = v;
    }
}

void study_valuef(study_out* out, double v, const char* fmt, ...) {
    char name[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    study_value(out, name, v);
}

void study_text(study_out* out, const char* name, const char* text) {
    study_results* r = out->results;
    named* e = r ? named_slot(r, &r->texts, &r->ntexts, &r->cap_texts,
                              "text '%s': name too long or out of memory", name)
                 : NULL;
    if (e == NULL) {
        return;
    }
    free(e->s);
    e->s = strdup(text ? text : "");
    if (e->s == NULL) {
        misuse(r, "text '%s': out of memory", name);
    }
}

static table_rows* table_of(study_out* out, const char* name) {
    study_results* r = out->results;
    if (r == NULL) {
        return NULL;
    }
    for (int t = 0; t < r->ntables; ++t) {
        if (strcmp(r->tables[t].decl->name, name) == 0) {
            return &r->tables[t];
        }
    }
    misuse(r, "table '%s' is not declared by the study", name);
    return NULL;
}

void study_row(study_out* out, const char* table) {
    table_rows* t = table_of(out, table);
    if (t == NULL) {
        return;
    }
    if (grow((void**)&t->row_end, &t->cap_rows, t->nrows + 1, sizeof *t->row_end) != 0) {
        misuse(out->results, "table '%s': out of memory", table);
        return;
    }
    t->row_end[t->nrows++] = t->ncells;
}

static void add_cell(study_out* out, const char* table, cell c) {
    table_rows* t = table_of(out, table);
    if (t == NULL) {
        free(c.s);
        return;
    }
    if (t->nrows == 0) {
        misuse(out->results, "table '%s': a cell before study_row", table);
        free(c.s);
        return;
    }
    if (grow((void**)&t->cells, &t->cap, t->ncells + 1, sizeof *t->cells) != 0) {
        misuse(out->results, "table '%s': out of memory", table);
        free(c.s);
        return;
    }
    t->cells[t->ncells++] = c;
    t->row_end[t->nrows - 1] = t->ncells;
}

void study_num(study_out* out, const char* table, double v) {
    add_cell(out, table, (cell){CELL_NUM, v, NULL});
}

void study_nums(study_out* out, const char* table, const double* v, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        study_num(out, table, v[i]);
    }
}

void study_str(study_out* out, const char* table, const char* s) {
    char* d = strdup(s ? s : "");
    if (d == NULL) {
        misuse(out->results, "table '%s': out of memory", table);
        return;
    }
    add_cell(out, table, (cell){CELL_STR, 0.0, d});
}

void study_blank(study_out* out, const char* table) {
    add_cell(out, table, (cell){CELL_BLANK, 0.0, NULL});
}

void study_table_header(study_out* out, const char* table, const char* header) {
    table_rows* t = table_of(out, table);
    if (t == NULL) {
        return;
    }
    free(t->header);
    t->header = strdup(header ? header : "");
    if (t->header == NULL) {
        misuse(out->results, "table '%s': out of memory", table);
    }
}

void study_table_md(study_out* out, const char* table, const char* md) {
    table_rows* t = table_of(out, table);
    if (t == NULL) {
        return;
    }
    free(t->md);
    t->md = strdup(md ? md : "");
    if (t->md == NULL) {
        misuse(out->results, "table '%s': out of memory", table);
    }
}

int study_table_rows(study_out* out, const char* table) {
    table_rows* t = table_of(out, table);
    return t ? t->nrows : 0;
}

/* ---- rendering ------------------------------------------------------------------------------ */

/* The k-th of the '|'-separated formats in list (the last one repeats), copied to out. */
static void nth_format(const char* list, int k, char* out, size_t n) {
    const char* p = list;
    for (int i = 0; i < k; ++i) {
        const char* bar = strchr(p, '|');
        if (bar == NULL) {
            break;
        }
        p = bar + 1;
    }
    const char* end = strchr(p, '|');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

/* The conversion of a one-argument printf format: 'd' (an integer), 'f' (a double), 's' (a
 * string) or 0 if fmt is not exactly one such conversion with optional text around it. */
static char conversion(const char* fmt) {
    char kind = 0;
    for (const char* p = fmt; *p; ++p) {
        if (*p != '%') {
            continue;
        }
        if (p[1] == '%') {
            ++p;
            continue;
        }
        if (kind) {
            return 0; /* two conversions */
        }
        ++p;
        while (*p && strchr("-+ #0123456789.l", *p)) {
            ++p;
        }
        if (*p && strchr("di", *p)) {
            kind = 'd';
        } else if (*p && strchr("eEfFgGaA", *p)) {
            kind = 'f';
        } else if (*p == 's') {
            kind = 's';
        } else {
            return 0;
        }
    }
    return kind;
}

/* One cell with format fmt; 0, or -1 (message in err) if the format does not fit the cell. */
static int format_cell(strbuf* b, const cell* c, const char* fmt, char* err, size_t n) {
    if (c->kind == CELL_BLANK) {
        return 0;
    }
    const char k = conversion(fmt);
    if (c->kind == CELL_STR) { /* a text in a column of numbers ("failed") stands as it is */
        strbuf_printf(b, k == 's' ? fmt : "%s", c->s);
        return 0;
    }
    if (k == 'd') {
        if (!(fabs(c->v) < 9.2e18) || c->v != floor(c->v)) {
            /* a count that is not a whole number (NaN: a quantity that could not be computed) */
            if (!isnan(c->v)) {
                snprintf(err, n, "format '%s' for the non-integer %g", fmt, c->v);
                return -1;
            }
            strbuf_printf(b, "nan");
            return 0;
        }
        /* fmt with its conversion as %...lld: the flags, width and precision kept, any 'l'
         * of the declaration dropped */
        char f2[80];
        size_t o = 0;
        const char* p = fmt;
        for (; *p && o + 4 < sizeof f2; ++p) {
            if (*p == '%' && p[1] == '%') {
                f2[o++] = *p++;
                f2[o++] = *p;
                continue;
            }
            if (*p == '%') {
                f2[o++] = *p++;
                while (*p && strchr("-+ #0123456789.", *p) && o + 4 < sizeof f2) {
                    f2[o++] = *p++;
                }
                while (*p == 'l') {
                    ++p;
                }
                f2[o++] = 'l';
                f2[o++] = 'l';
                f2[o++] = *p; /* d or i */
                continue;
            }
            f2[o++] = *p;
        }
        f2[o] = '\0';
        strbuf_printf(b, f2, (long long)c->v);
        return 0;
    }
    if (k == 'f') {
        strbuf_printf(b, fmt, c->v);
        return 0;
    }
    snprintf(err, n, "format '%s' for the number %g", fmt, c->v);
    return -1;
}

/* The rows of a table, cells separated by sep, each row between pre and post; a number that is
 * not finite as the text nonfinite if that is not NULL. */
static int format_rows(strbuf* b, const table_rows* t, const char* fmts, const char* pre,
                       const char* sep, const char* post, const char* nonfinite, char* err,
                       size_t n) {
    int from = 0;
    for (int r = 0; r < t->nrows; ++r) {
        strbuf_printf(b, "%s", pre);
        for (int c = from; c < t->row_end[r]; ++c) {
            char f[64];
            nth_format(fmts, c - from, f, sizeof f);
            if (c > from) {
                strbuf_printf(b, "%s", sep);
            }
            if (nonfinite && t->cells[c].kind == CELL_NUM && !isfinite(t->cells[c].v)) {
                strbuf_printf(b, "%s", nonfinite);
            } else if (format_cell(b, &t->cells[c], f, err, n) != 0) {
                return -1;
            }
        }
        strbuf_printf(b, "%s", post);
        from = t->row_end[r];
    }
    return 0;
}

static int results_table_csv(const study_results* r, const char* name, strbuf* out, char* err,
                             size_t n) {
    for (int t = 0; t < r->ntables; ++t) {
        const table_rows* tr = &r->tables[t];
        if (strcmp(tr->decl->name, name) == 0) {
            const char* fmts = tr->decl->cells ? tr->decl->cells : "%.6g";
            return format_rows(out, tr, fmts, "", ",", "\n", NULL, err, n);
        }
    }
    snprintf(err, n, "no table '%s'", name);
    return -1;
}

static int table_markdown(const table_rows* t, strbuf* out, char* err, size_t n) {
    const fig_table* d = t->decl;
    const char* md = t->md ? t->md : d->md;
    if (md == NULL) {
        snprintf(err, n, "table '%s' has no markdown header (md)", d->name);
        return -1;
    }
    strbuf_printf(out, "%s", md);
    const char* fmts = d->md_cells ? d->md_cells : d->cells ? d->cells : "%.6g";
    return format_rows(out, t, fmts, "| ", " | ", " |\n", d->md_nonfinite, err, n);
}

/* 1 if the template's condition `name` holds: a value, text or metric of that name was set */
static int is_set(const study_results* r, const char* name) {
    double v;
    return find_named(r->values, r->nvalues, name) || find_named(r->texts, r->ntexts, name) ||
           study_get_metric((void*)r->owner, name, &v) == 0;
}

static int results_render(const study_results* r, const char* tmpl, strbuf* out, char* err,
                          size_t n) {
    if (r == NULL) {
        snprintf(err, n, "a template outside a declaration's study");
        return -1;
    }
    if (r->error[0]) {
        snprintf(err, n, "%s", r->error);
        return -1;
    }
    int depth = 0, skip = 0; /* open {?..} blocks; the depth at which a false one opened */
    for (const char* p = tmpl; p && *p;) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            if (!skip) {
                strbuf_printf(out, "%c", p[0]);
            }
            p += 2;
            continue;
        }
        if (*p != '{') {
            const size_t k = strcspn(p, "{}");
            if (k == 0) { /* a lone '}' */
                snprintf(err, n, "unbalanced '}' in the report template");
                return -1;
            }
            if (!skip) {
                strbuf_printf(out, "%.*s", (int)k, p);
            }
            p += k;
            continue;
        }
        const char* end = strchr(p, '}');
        if (end == NULL || end - p - 1 >= 160) {
            snprintf(err, n, "unterminated or too long placeholder in the report template: %.40s",
                     p);
            return -1;
        }
        char key[160];
        snprintf(key, sizeof key, "%.*s", (int)(end - p - 1), p + 1);
        p = end + 1;
        if (key[0] == '?') {
            ++depth;
            if (!skip && !is_set(r, key + 1)) {
                skip = depth;
            }
            continue;
        }
        if (strcmp(key, "/") == 0) {
            if (depth == 0) {
                snprintf(err, n, "'{/}' without an open '{?name}' in the report template");
                return -1;
            }
            if (skip == depth) {
                skip = 0;
            }
            --depth;
            continue;
        }
        if (skip) {
            continue;
        }
        if (strncmp(key, "table:", 6) == 0) {
            const table_rows* t = NULL;
            for (int i = 0; i < r->ntables; ++i) {
                if (strcmp(r->tables[i].decl->name, key + 6) == 0) {
                    t = &r->tables[i];
                }
            }
            if (t == NULL) {
                snprintf(err, n, "the report template names the undeclared table '%s'", key + 6);
                return -1;
            }
            if (table_markdown(t, out, err, n) != 0) {
                return -1;
            }
            continue;
        }
        if (strncmp(key, "text:", 5) == 0) {
            const named* e = find_named(r->texts, r->ntexts, key + 5);
            if (e == NULL) {
                snprintf(err, n, "the report template names the text '%s', which was not set",
                         key + 5);
                return -1;
            }
            strbuf_printf(out, "%s", e->s);
            continue;
        }
        char* bar = strchr(key, '|');
        const char* fmt = "%g";
        if (bar) {
            *bar = '\0';
            fmt = bar + 1;
        }
        double v = NAN;
        const named* e = find_named(r->values, r->nvalues, key);
        if (e) {
            v = e->v;
        } else if (study_get_metric((void*)r->owner, key, &v) != 0) {
            snprintf(err, n,
                     "the report template names '%s', which is neither a value nor a metric", key);
            return -1;
        }
        const cell c = {CELL_NUM, v, NULL};
        if (conversion(fmt) == 's' || conversion(fmt) == 0) {
            snprintf(err, n, "placeholder '{%s|%s}': a number needs one numeric conversion", key,
                     fmt);
            return -1;
        }
        if (format_cell(out, &c, fmt, err, n) != 0) {
            return -1;
        }
    }
    if (depth != 0) {
        snprintf(err, n, "'{?name}' without its '{/}' in the report template");
        return -1;
    }
    return 0;
}

int study_results_finish(study_out* out, const char* what, const char* dir) {
    study_results* r = out->results;
    if (r == NULL) {
        return 0;
    }
    char err[600];
    int rc = 0;
    for (int t = 0; rc == 0 && t < r->ntables; ++t) {
        const table_rows* tr = &r->tables[t];
        if (tr->decl->file == NULL) {
            continue;
        }
        strbuf body = {0};
        char path[PATH_MAX + 128];
        snprintf(path, sizeof path, "%s/%s", dir, tr->decl->file);
        const char* header = tr->header ? tr->header : tr->decl->header;
        if (r->error[0]) {
            snprintf(err, sizeof err, "%s", r->error);
            rc = -1;
        } else if (header == NULL) {
            snprintf(err, sizeof err, "table '%s' has no header", tr->decl->name);
            rc = -1;
        } else if (results_table_csv(r, tr->decl->name, &body, err, sizeof err) != 0) {
            rc = -1;
        } else if (study_write_table(out, path, header, body.s ? body.s : "") != 0) {
            rc = 2; /* study_write_table failed the study */
        }
        free(body.s);
    }
    if (rc == 0 && r->report) {
        strbuf text = {0};
        if (results_render(r, r->report, &text, err, sizeof err) != 0) {
            rc = -1;
        } else {
            study_report(out, "%s", text.s ? text.s : "");
        }
        free(text.s);
    }
    if (rc < 0) {
        rc = study_fail(out, CCB_E_INVALID, "%s: %s", what, err);
    }
    return rc;
}

int study_results_render(const study_out* out, const char* tmpl, strbuf* text, char* err,
                         size_t n) {
    return results_render(out->results, tmpl, text, err, n);
}

int study_results_table_csv(const study_out* out, const char* name, strbuf* csv, char* err,
                            size_t n) {
    if (out->results == NULL) {
        snprintf(err, n, "no table '%s' outside a declaration's study", name);
        return -1;
    }
    return results_table_csv(out->results, name, csv, err, n);
}

/* ---- the output handle: metrics, report, files and figures ---------------------------------- */

study_out* study_out_create(const char* root, const char* case_name) {
    study_out* out = calloc(1, sizeof *out);
    if (out) {
        out->root = root;
        out->case_name = case_name;
        out->figures = 1;
        out->next = g_open;
        if (g_open) {
            g_open->prev = out;
        }
        g_open = out;
    }
    return out;
}

int study_fail(study_out* out, int code, const char* fmt, ...) {
    code = code ? code : CCB_E_INTERNAL;
    if (out->status == 0) {
        out->status = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(out->error, sizeof out->error, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char* study_error(const study_out* out) {
    if (out == NULL) {
        return "out of memory";
    }
    return out->error[0] ? out->error : "failed without a message (a bug in ccb: please report it)";
}

void study_out_clear_error(study_out* out) {
    out->status = 0;
    out->error[0] = '\0';
}

void study_out_free(study_out* out) {
    if (out == NULL) {
        return;
    }
    if (out->prev) {
        out->prev->next = out->next;
    } else {
        g_open = out->next;
    }
    if (out->next) {
        out->next->prev = out->prev;
    }
    study_results_end(out);
    free(out->metrics);
    free(out->report.s);
    free(out);
}

void study_out_free_all(void) {
    while (g_open) {
        study_out_free(g_open);
    }
}

void study_out_set_figures(study_out* out, int on) {
    out->figures = on;
}

int study_out_figures(const study_out* out) {
    return out->figures;
}

int study_out_warnings(const study_out* out) {
    return out->warnings;
}

int study_out_nmetrics(const study_out* out) {
    return out->nmetrics;
}

const metric* study_out_metric(const study_out* out, int i) {
    return i >= 0 && i < out->nmetrics ? &out->metrics[i] : NULL;
}

const char* study_out_report(const study_out* out) {
    return out->report.s ? out->report.s : "";
}

void study_set_metric(study_out* out, const char* name, double value) {
    for (int i = 0; i < out->nmetrics; ++i) {
        if (strcmp(out->metrics[i].name, name) == 0) {
            out->metrics[i].value = value;
            return;
        }
    }
    if (grow((void**)&out->metrics, &out->cap_metrics, out->nmetrics + 1, sizeof(metric)) != 0) {
        return; /* the gate then reports the metric as missing */
    }
    snprintf(out->metrics[out->nmetrics].name, sizeof out->metrics[0].name, "%s", name);
    out->metrics[out->nmetrics].value = value;
    out->nmetrics++;
}

int study_get_metric(void* user, const char* name, double* value) {
    const study_out* out = user;
    for (int i = 0; out && i < out->nmetrics; ++i) {
        if (strcmp(out->metrics[i].name, name) == 0) {
            *value = out->metrics[i].value;
            return 0;
        }
    }
    return -1;
}

void study_set_metricf(study_out* out, double value, const char* fmt, ...) {
    char name[sizeof(((metric*)0)->name)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    study_set_metric(out, name, value);
}

void study_report(study_out* out, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(&out->report, fmt, ap);
    va_end(ap);
}

int study_dir(study_out* out, const char* sub, char* path, size_t n) {
    snprintf(path, n, "%s/%s/%s", out->root, out->case_name, sub);
    char msg[512];
    if (mkdir_p(path, msg, sizeof msg) != 0) {
        return study_fail(out, CCB_E_IO, "%s", msg);
    }
    return 0;
}

void study_plot(study_out* out, const char* script, const char* datadir, const char* name,
                const char* vars) {
    if (!out->figures) {
        return;
    }
    char path[PATH_MAX], file[PATH_MAX + 160], msg[600];
    snprintf(path, sizeof path, "%s/analysis/gnuplot/%s", ccb_source_dir(), script);
    snprintf(file, sizeof file, "%s/%s/%s", out->root, out->case_name, name);
    if (ccb_an_plot(path, datadir, file, vars, msg, sizeof msg) != 0) {
        study_log("figure %s: %s", script, msg);
        out->warnings++;
        return;
    }
    for (int k = 0; k < 2; ++k) { /* the study's outputs (inventory.c) */
        char f[PATH_MAX + 170];
        snprintf(f, sizeof f, "%s.%s", file, k ? "svg" : "png");
        inventory_note_file(f);
    }
}

int study_write_table(study_out* out, const char* path, const char* header, const char* body) {
    char msg[600];
    strbuf b = {0};
    strbuf_printf(&b, "%s\n%s", header, body ? body : "");
    int rc = 0;
    if (b.failed || b.s == NULL) {
        rc = study_fail(out, CCB_E_NOMEM, "%s: out of memory", path);
    } else if (write_file(path, b.s, b.n, msg, sizeof msg) != 0) {
        rc = study_fail(out, CCB_E_IO, "%s", msg);
    }
    free(b.s);
    return rc;
}
