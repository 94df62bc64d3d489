/* diff: what moved between two result trees (`ccb diff A B`, `ccb gate --baseline`;
 * docs/cases.md §15). A and B are outputs of `ccb gate`, `ccb study` or `ccb reproduce` (or a baseline saved by
 * `ccb gate --save-baseline`). Every CSV file of A is paired with the file of the same path in
 * B and compared by its kind:
 *
 *   CASE/gates.csv       per gate, the result (a changed verdict is listed first) and the
 *                        measured value of its metric;
 *   run files            trajectory.csv, steps.csv and physics.csv of a run directory (one with
 *                        meta.json): per column (observable), the largest difference over the
 *                        rows both have and the time of the first difference beyond round-off;
 *   study tables         every other CSV: cell by cell, columns by name, rows by their leading
 *                        text cells and the occurrence of that label (by position without one).
 *
 * Wall times are not compared (times.csv, and every column whose name contains "wall"); the
 * perturbed trees of `ccb gate --sensitivity` (ROOT/sensitivity/) and CASE/sensitivity.csv are
 * not compared either: they are where the round-off spreads come from.
 *
 * Significance. A value that moved by |b - a| is significant when
 *     |b - a| > nsigma * s            where its round-off spread s is known,
 *     |b - a| > max(rtol * max(|a|, |b|), atol)   otherwise,
 * s being the largest change of the value under the round-off-equivalent perturbations of
 * `ccb gate --sensitivity` (the gate's spread in CASE/sensitivity.csv; for a table cell or a
 * trajectory column, its largest difference between ROOT/sensitivity/<p>/FILE and FILE), taken
 * over both trees. Defaults: nsigma = 3 (the sensitivity command's own fragility factor), rtol =
 * 1e-6, atol = 1e-12. A text cell that changed, a verdict that changed, rows or columns that
 * appeared or disappeared, and a file present on one side only are always significant (except
 * the run files a baseline saved without trajectories does not hold). */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "diff_internal.h"

/* ---- output ----------------------------------------------------------------------------------- */

/* The order of the report: changed verdicts, then significant changes by kind, then the rest. */
static int row_rank(const diff_row* r) {
    return r->kind == D_VERDICT ? 0 : r->significant ? 1 + r->kind : 10 + r->kind;
}

static int cmp_rows(const void* x, const void* y) {
    const diff_row* a = x;
    const diff_row* b = y;
    const int ra = row_rank(a), rb = row_rank(b);
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    return a < b ? -1 : a > b; /* stable: the order of the files */
}

static void csv_field(strbuf* o, const char* s) {
    if (strpbrk(s, ",\"\n") == NULL) {
        strbuf_printf(o, "%s", s);
        return;
    }
    strbuf_printf(o, "\"");
    for (; *s; ++s) {
        strbuf_printf(o, *s == '"' ? "\"\"" : "%c", *s);
    }
    strbuf_printf(o, "\"");
}

static void csv_num_field(strbuf* o, double x) {
    if (!isnan(x)) {
        strbuf_printf(o, "%.6g", x);
    }
}

static void md_field(strbuf* o, const char* s) {
    for (; *s; ++s) {
        strbuf_printf(o, *s == '|' ? "\\|" : "%c", *s);
    }
}

static const char* rule_of(const diff_row* r, char* buf, size_t n) {
    if (isfinite(r->spread)) {
        snprintf(buf, n, "spread %.3g", r->spread);
    } else if (isfinite(r->threshold)) {
        snprintf(buf, n, "default %.3g", r->threshold);
    } else {
        snprintf(buf, n, "always");
    }
    return buf;
}

/* The overlaid figure of a moved file: its significantly moved numeric columns (at most six),
 * one panel each, before (A, dashed) and after (B, solid) against time or the row, and their
 * difference B - A on the right axis (so a change far below the curve's scale is seen). The
 * data go to OUT/figures/<file>.csv (x, then A, B and B - A per column, the rows both have). */
/* A file's path flattened: '/' as '_', without ".csv". */
static void flat_name(const char* rel, char* out, size_t n) {
    snprintf(out, n, "%s", rel);
    for (char* p = out; *p; ++p) {
        *p = *p == '/' ? '_' : *p;
    }
    const size_t len = strlen(out);
    if (len >= 4 && strcmp(out + len - 4, ".csv") == 0) {
        out[len - 4] = '\0';
    }
}

/* The figure of the k-th moved file: its flattened path, with "~k" after it where an earlier
 * moved file flattens to the same name ("a/b_c.csv", "a_b/c.csv"), so that no figure replaces
 * another. */
static void figure_name(const diff_state* s, int k, char* out, size_t n) {
    flat_name(s->moved[k], out, n);
    for (int i = 0; i < k; ++i) {
        char other[PATH_MAX];
        flat_name(s->moved[i], other, sizeof other);
        if (strcmp(other, out) == 0) {
            char base[PATH_MAX];
            snprintf(base, sizeof base, "%s", out);
            snprintf(out, n, "%.*s~%d", (int)(n > 16 ? n - 16 : 0), base, k);
            return;
        }
    }
}

static int draw_overlay(const diff_state* s, const char* out, int km, char* msg, size_t n) {
    const char* rel = s->moved[km];
    char pa[PATH_MAX + 320], pb[PATH_MAX + 320];
    snprintf(pa, sizeof pa, "%s/%s", s->a, rel);
    snprintf(pb, sizeof pb, "%s/%s", s->b, rel);
    csv_file fa, fb;
    if (csv_read(pa, &fa, msg, n) != 0) {
        return -1;
    }
    if (csv_read(pb, &fb, msg, n) != 0) {
        csv_free(&fa);
        return -1;
    }
    int ca[6], cb[6], k = 0, xc = -1; /* xc: A's x column, -1: the row */
    for (long i = 0; i < s->n && k < 6; ++i) {
        const diff_row* r = &s->rows[i];
        if (strcmp(diff_text(s, r->file), rel) != 0 || !r->significant ||
            (r->kind != D_TABLE && r->kind != D_TRAJ) || isnan(r->delta)) {
            continue;
        }
        const char* col = r->kind == D_TRAJ ? diff_text(s, r->item) : diff_text(s, r->column);
        const int c = csv_col(&fa, col), d = csv_col(&fb, col);
        int seen = c < 0 || d < 0;
        for (int j = 0; j < k; ++j) {
            seen |= ca[j] == c;
        }
        if (k == 0) {
            double v;
            xc = r->kind == D_TRAJ                                               ? time_column(&fa)
                 : fa.nrow > 1 && cell_num(csv_at(&fa, 1, 0), &v) == 1 && c != 0 ? 0
                                                                                 : -1;
        }
        if (!seen) {
            ca[k] = c;
            cb[k++] = d;
        }
    }
    int rc = 0;
    if (k > 0) {
        char name[PATH_MAX], fig[PATH_MAX + 16], data[PATH_MAX + 32];
        figure_name(s, km, name, sizeof name);
        snprintf(fig, sizeof fig, "%s/figures/%s", out, name);
        snprintf(data, sizeof data, "%s/figures/%s.csv", out, name);
        strbuf d = {0};
        strbuf_printf(&d, "%s", xc >= 0 ? csv_at(&fa, 0, xc) : "row");
        for (int j = 0; j < k; ++j) {
            const char* h = csv_at(&fa, 0, ca[j]);
            strbuf_printf(&d, ",%s (A),%s (B),%s (B - A)", h, h, h);
        }
        strbuf_printf(&d, "\n");
        for (long r = 1; r < fa.nrow && r < fb.nrow; ++r) {
            if (xc >= 0) {
                strbuf_printf(&d, "%s", csv_at(&fa, r, xc));
            } else {
                strbuf_printf(&d, "%ld", r);
            }
            for (int j = 0; j < k; ++j) {
                double x, y;
                const int kx = cell_num(csv_at(&fa, r, ca[j]), &x) == 1;
                const int ky = cell_num(csv_at(&fb, r, cb[j]), &y) == 1;
                strbuf_printf(&d, kx ? ",%.17g" : ",", x);
                strbuf_printf(&d, ky ? ",%.17g" : ",", y);
                strbuf_printf(&d, kx && ky ? ",%.17g" : ",", y - x);
            }
            strbuf_printf(&d, "\n");
        }
        rc = d.failed ? -1 : write_file(data, d.s, d.n, msg, n);
        if (d.failed) {
            snprintf(msg, n, "out of memory");
        }
        free(d.s);
        const size_t qn = 2 * (PATH_MAX + 320);
        char* q = malloc(2 * qn);
        if (rc == 0 && q == NULL) {
            snprintf(msg, n, "out of memory");
            rc = -1;
        }
        if (rc == 0 &&
            (ccb_an_gp_path(q, qn, data) != 0 || ccb_an_gp_quote(q + qn, qn, rel) != 0)) {
            snprintf(msg, n, "a path has a control character: %s", rel);
            rc = -1;
        }
        if (rc == 0) {
            char* v = malloc(3 * qn);
            if (v == NULL) {
                snprintf(msg, n, "out of memory");
                rc = -1;
            } else {
                snprintf(v, 3 * qn, "f=%s; what=%s; ncols=%d; ", q, q + qn, k);
                char script[PATH_MAX];
                snprintf(script, sizeof script, "%s/analysis/gnuplot/diff_overlay.gp",
                         ccb_source_dir());
                rc = ccb_an_plot(script, NULL, fig, v, msg, n);
                free(v);
            }
        }
        free(q);
    }
    csv_free(&fa);
    csv_free(&fb);
    return rc;
}

/* diff.csv and diff.md as texts (failed set when out of memory). */
static void render_outputs(const diff_state* s, const suite_diff_summary* sum, strbuf* csvp,
                           strbuf* mdp) {
    strbuf csv = {0}, md = {0};
    strbuf_printf(&csv, "kind,file,item,column,a,b,abs_change,rel_change,spread,threshold,"
                        "significant,note\n");
    for (long i = 0; i < s->n; ++i) {
        const diff_row* r = &s->rows[i];
        strbuf_printf(&csv, "%s,", k_kind[r->kind]);
        csv_field(&csv, diff_text(s, r->file));
        strbuf_printf(&csv, ",");
        csv_field(&csv, diff_text(s, r->item));
        strbuf_printf(&csv, ",");
        csv_field(&csv, diff_text(s, r->column));
        strbuf_printf(&csv, ",");
        csv_field(&csv, diff_text(s, r->a));
        strbuf_printf(&csv, ",");
        csv_field(&csv, diff_text(s, r->b));
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->delta);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->rel);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->spread);
        strbuf_printf(&csv, ",");
        csv_num_field(&csv, r->threshold);
        strbuf_printf(&csv, ",%d,", r->significant);
        csv_field(&csv, diff_text(s, r->note));
        strbuf_printf(&csv, "\n");
    }
    strbuf_printf(&md,
                  "# ccb diff\n\nA (before): `%s`  \nB (after): `%s`\n\n"
                  "%d file(s) compared; %ld difference(s), %d significant, %d gate verdict(s) "
                  "changed, %d file(s) only on one side.\n\n"
                  "A change is significant beyond %g x its round-off spread where `ccb gate "
                  "--sensitivity` measured one (in either tree), else beyond max(%g x |value|, "
                  "%g); a changed verdict or text, and rows, columns or files on one side only, "
                  "always. Wall times are not compared. docs/cases.md §15.\n\n",
                  s->a, s->b, sum->compared, s->n, sum->significant, sum->verdicts, sum->one_side,
                  s->o->nsigma, s->o->rtol, s->o->atol);
    const char* const heads[] = {"Gates whose verdict changed", "Gate metrics", "Study tables",
                                 "Trajectories (largest difference per observable)",
                                 "Files, rows, columns"};
    for (int pass = 0; pass < 2; ++pass) {
        int last = -1;
        long shown = 0;
        if (pass == 1 && s->n > sum->significant) {
            strbuf_printf(&md, "\n## Within round-off (not significant)\n");
        }
        for (long i = 0; i < s->n; ++i) {
            const diff_row* r = &s->rows[i];
            if (r->significant != (pass == 0)) {
                continue;
            }
            if (pass == 1 && ++shown > 500) {
                strbuf_printf(&md, "\n... and more: diff.csv has every row.\n");
                break;
            }
            if (r->kind != last) {
                strbuf_printf(&md,
                              "\n### %s\n\n| file | item | column | A | B | change | relative "
                              "| significance rule | note |\n|---|---|---|---|---|---|---|---|---|"
                              "\n",
                              heads[r->kind]);
                last = r->kind;
            }
            char rule[48];
            strbuf_printf(&md, "| `");
            md_field(&md, diff_text(s, r->file));
            strbuf_printf(&md, "` | ");
            md_field(&md, diff_text(s, r->item));
            strbuf_printf(&md, " | ");
            md_field(&md, diff_text(s, r->column));
            strbuf_printf(&md, " | ");
            md_field(&md, diff_text(s, r->a));
            strbuf_printf(&md, " | ");
            md_field(&md, diff_text(s, r->b));
            strbuf_printf(&md, isnan(r->delta) ? " | | " : " | %.3g | ", r->delta);
            strbuf_printf(&md, isnan(r->rel) ? "| " : "%.3g | ", r->rel);
            strbuf_printf(&md, "%s | ", rule_of(r, rule, sizeof rule));
            md_field(&md, diff_text(s, r->note));
            strbuf_printf(&md, " |\n");
        }
        if (pass == 0 && sum->significant == 0) {
            strbuf_printf(&md, "Nothing moved beyond round-off.\n");
        }
    }
    if (sum->figures) {
        strbuf_printf(&md, "\n## Figures (before dashed, after solid)\n\n");
        for (int i = 0; i < s->nmoved; ++i) {
            char name[PATH_MAX];
            figure_name(s, i, name, sizeof name);
            strbuf_printf(&md, "![%s](figures/%s.png)\n\n", s->moved[i], name);
        }
    }
    *csvp = csv;
    *mdp = md;
}

static int write_outputs(const diff_state* s, const char* out, const suite_diff_summary* sum,
                         char* msg, size_t n) {
    strbuf csv, md;
    render_outputs(s, sum, &csv, &md);
    char path[PATH_MAX + 16];
    int rc = csv.failed || md.failed ? -1 : 0;
    if (rc != 0) {
        snprintf(msg, n, "out of memory");
    }
    snprintf(path, sizeof path, "%s/diff.csv", out);
    if (rc == 0 && write_file(path, csv.s, csv.n, msg, n) != 0) {
        rc = -1;
    }
    snprintf(path, sizeof path, "%s/diff.md", out);
    if (rc == 0 && write_file(path, md.s, md.n, msg, n) != 0) {
        rc = -1;
    }
    free(csv.s);
    free(md.s);
    return rc;
}

/* The terminal: the changed verdicts and the gate metrics that moved, one line each; then one
 * line per file whose tables or trajectories moved (how many values, the largest relative
 * change); diff.md has every row. */
static void print_summary(const diff_state* s, const suite_diff_summary* sum, const char* out) {
    for (long i = 0; i < s->n && s->rows[i].significant; ++i) {
        const diff_row* r = &s->rows[i];
        char rule[48];
        const char* slash = strchr(diff_text(s, r->file), '/');
        const int nc =
            slash ? (int)(slash - diff_text(s, r->file)) : (int)strlen(diff_text(s, r->file));
        if (r->kind == D_VERDICT) {
            printf("VERDICT %.*s %s: %s -> %s  %s (%s)\n", nc, diff_text(s, r->file),
                   diff_text(s, r->item), diff_text(s, r->a), diff_text(s, r->b),
                   diff_text(s, r->column), diff_text(s, r->note));
        } else if (r->kind == D_GATE) {
            printf("GATE    %.*s %s %s: %s -> %s", nc, diff_text(s, r->file), diff_text(s, r->item),
                   diff_text(s, r->column), diff_text(s, r->a), diff_text(s, r->b));
            if (!isnan(r->delta)) {
                printf("  (rel %.3g; %s)", r->rel, rule_of(r, rule, sizeof rule));
            }
            printf("\n");
        }
    }
    for (long i = 0; i < s->n && s->rows[i].significant;) {
        const diff_row* r = &s->rows[i];
        if (r->kind == D_VERDICT || r->kind == D_GATE) {
            ++i;
            continue;
        }
        long k = i, count = 0;
        const diff_row* big = NULL;
        for (; k < s->n && s->rows[k].significant && s->rows[k].kind == r->kind &&
               strcmp(diff_text(s, s->rows[k].file), diff_text(s, r->file)) == 0;
             ++k) {
            count++;
            if (!isnan(s->rows[k].rel) && (big == NULL || s->rows[k].rel > big->rel)) {
                big = &s->rows[k];
            }
        }
        if (r->kind == D_FILE) {
            printf("FILE    %s: %s\n", diff_text(s, r->file), diff_text(s, r->note));
        } else if (big) {
            printf("%-7s %s: %ld %s moved; largest rel %.3g (%s%s%s: %s -> %s)\n",
                   r->kind == D_TABLE ? "TABLE" : "TRAJ", diff_text(s, r->file), count,
                   r->kind == D_TABLE ? "value(s)" : "observable(s)", big->rel,
                   diff_text(s, big->item), r->kind == D_TABLE ? " " : "",
                   r->kind == D_TABLE ? diff_text(s, big->column) : "", diff_text(s, big->a),
                   diff_text(s, big->b));
        } else {
            printf("%-7s %s: %ld value(s) changed (text, or on one side only)\n",
                   r->kind == D_TABLE ? "TABLE" : "TRAJ", diff_text(s, r->file), count);
        }
        i = k;
    }
    printf("diff: %d file(s) compared, %ld difference(s), %d significant, %d verdict(s) changed, "
           "%d figure(s); %s/diff.md, %s/diff.csv\n",
           sum->compared, s->n, sum->significant, sum->verdicts, sum->figures, out, out);
}

/* 1 if rel's first component is one of o->only (or o->only is empty). */
static int in_scope(const suite_diff_opts* o, const char* rel) {
    if (o->nonly == 0) {
        return 1;
    }
    const char* e = strchr(rel, '/');
    const size_t n = e ? (size_t)(e - rel) : strlen(rel);
    for (int k = 0; k < o->nonly; ++k) {
        if (strlen(o->only[k]) == n && strncmp(o->only[k], rel, n) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The report may not go inside a tree it compares (the next diff would read it as results),
 * except ROOT/diff/, which no tree listing holds (`ccb gate --baseline` writes its diff there). */
static int out_placement(const char* a, const char* b, const char* out, char* msg, size_t n) {
    char ao[PATH_MAX], t[PATH_MAX], td[PATH_MAX + 8];
    if (diff_abs_path(out, ao, sizeof ao) != 0) {
        snprintf(msg, n, "--out '%s': cannot resolve the path", out);
        return -1;
    }
    for (int k = 0; k < 2; ++k) {
        if (diff_abs_path(k ? b : a, t, sizeof t) != 0) {
            snprintf(msg, n, "'%s': cannot resolve the path", k ? b : a);
            return -1;
        }
        snprintf(td, sizeof td, "%s/diff", strcmp(t, "/") == 0 ? "" : t);
        if (path_within(ao, t) && !path_within(ao, td)) {
            snprintf(msg, n,
                     "the report '%s' would go inside the tree %s ('%s') that it compares; "
                     "choose an --out outside it (or its diff/ directory)",
                     out, k ? "B" : "A", k ? b : a);
            return -1;
        }
    }
    return 0;
}

int suite_diff(const char* a, const char* b, const char* out, const suite_diff_opts* o,
               suite_diff_summary* sum, char* msg, size_t nmsg) {
    memset(sum, 0, sizeof *sum);
    if (out_placement(a, b, out, msg, nmsg) != 0) {
        return CCB_E_INVALID;
    }
    file_list la, lb;
    if (file_list_read(a, &la, msg, nmsg) != 0) {
        return CCB_E_IO;
    }
    if (file_list_read(b, &lb, msg, nmsg) != 0) {
        file_list_free(&la);
        return CCB_E_IO;
    }
    if (la.n == 0 && lb.n == 0) {
        snprintf(msg, nmsg, "neither %s nor %s holds a result table (CSV)", a, b);
        file_list_free(&la);
        file_list_free(&lb);
        return CCB_E_INVALID;
    }
    diff_state s;
    diff_state_init(&s, a, b, o);
    s.baseline_a = baseline_without_runs(a);
    s.baseline_b = baseline_without_runs(b);
    s.npa = list_perturbations(a, s.pert_a, SUITE_NPERTURB);
    s.npb = list_perturbations(b, s.pert_b, SUITE_NPERTURB);
    for (int t = 0; t < 2; ++t) {
        for (int p = 0; p < (t ? s.npb : s.npa); ++p) {
            char dir[PATH_MAX + 96];
            snprintf(dir, sizeof dir, "%s/sensitivity/%s", t ? b : a,
                     t ? s.pert_b[p] : s.pert_a[p]);
            s.dg[t][p] = load_digests(dir);
        }
    }
    int i = 0, j = 0;
    while ((i < la.n || j < lb.n) && !s.failed) {
        const int c = i == la.n ? 1 : j == lb.n ? -1 : strcmp(la.rel[i], lb.rel[j]);
        if (c == 0 && !in_scope(o, la.rel[i])) {
            ++i;
            ++j;
            continue;
        }
        if (c == 0) {
            diff_file(&s, la.rel[i]);
            sum->compared++;
            ++i;
            ++j;
            continue;
        }
        const char* rel = c < 0 ? la.rel[i] : lb.rel[j];
        if (!in_scope(o, rel)) {
            c < 0 ? ++i : ++j;
            continue;
        }
        const char* base = strrchr(rel, '/');
        base = base ? base + 1 : rel;
        /* run files a baseline without trajectories does not hold */
        const int skip = is_run_file(base) && (c < 0 ? s.baseline_b : s.baseline_a);
        if (!skip) {
            diff_structure(&s, rel, "only in %s", c < 0 ? "A" : "B");
            sum->one_side++;
        }
        c < 0 ? ++i : ++j;
    }
    file_list_free(&la);
    file_list_free(&lb);
    int rc = 0;
    if (s.failed) {
        snprintf(msg, nmsg, "diff: out of memory");
        rc = CCB_E_NOMEM;
    }
    if (rc == 0) {
        if (s.n > 0) {
            qsort(s.rows, (size_t)s.n, sizeof *s.rows, cmp_rows);
        }
        for (long k = 0; k < s.n; ++k) {
            sum->significant += s.rows[k].significant;
            sum->verdicts += s.rows[k].kind == D_VERDICT;
        }
        if (mkdir_p(out, msg, nmsg) != 0 || lock_tree(out, msg, nmsg) != 0) {
            rc = CCB_E_IO;
        }
    }
    if (rc == 0 && o->figures && s.nmoved > 0) {
        char dir[PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/figures", out);
        if (mkdir_p(dir, msg, nmsg) != 0) {
            rc = CCB_E_IO;
        }
        for (int k = 0; rc == 0 && k < s.nmoved; ++k) {
            char why[PATH_MAX + 300];
            if (draw_overlay(&s, out, k, why, sizeof why) != 0) {
                snprintf(msg, nmsg, "diff figure of %s: %s", s.moved[k], why);
                rc = CCB_E_IO;
            } else {
                sum->figures++;
            }
        }
    }
    if (rc == 0 && write_outputs(&s, out, sum, msg, nmsg) != 0) {
        rc = CCB_E_IO;
    }
    if (rc == 0) {
        print_summary(&s, sum, out);
    }
    diff_state_free(&s);
    return rc;
}

int suite_diff_texts(const char* rel, const char* ta, const char* tb, const suite_diff_opts* o,
                     long* rows, long* significant, long* values) {
    diff_state s;
    diff_state_init(&s, "A", "B", o);
    csv_file a, b;
    char* pa = strdup(ta);
    char* pb = strdup(tb);
    int rc = 2;
    if (pa && csv_parse(pa, &a) == 0) {
        pa = NULL; /* a's now */
        if (pb && csv_parse(pb, &b) == 0) {
            pb = NULL;
            diff_parsed(&s, rel, &a, &b);
            csv_free(&b);
            rc = s.failed ? 2 : 0;
        }
        csv_free(&a);
    }
    free(pa);
    free(pb);
    *rows = s.n;
    *significant = *values = 0;
    for (long k = 0; k < s.n; ++k) {
        *significant += s.rows[k].significant;
        *values += s.rows[k].kind != D_FILE;
    }
    if (rc == 0) { /* the report's texts, as a diff of trees writes them */
        suite_diff_summary sum = {0};
        strbuf csv, md;
        if (s.n > 0) {
            qsort(s.rows, (size_t)s.n, sizeof *s.rows, cmp_rows);
        }
        render_outputs(&s, &sum, &csv, &md);
        rc = csv.failed || md.failed ? 2 : 0;
        free(csv.s);
        free(md.s);
    }
    diff_state_free(&s);
    return rc;
}
