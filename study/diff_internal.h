/* study/diff_internal.h — what the files of the regression view share (study/diff.c has the
 * design: what is compared, how, and when a change is significant). Not a header of the engine:
 * only study/diff*.c include it.
 *
 *   diff_csv.c       CSV files in memory, column and row pairing
 *   diff_kinds.c     the differences and their texts; gates, study tables, run files
 *   diff_spread.c    the round-off spreads from `ccb gate --sensitivity`, and their digests
 *   diff_tree.c      the trees' file lists, what a baseline is, saving one, binding spreads
 *   diff.c           the comparison of two trees, its outputs and overlay figures */
#ifndef CCB_DIFF_INTERNAL_H
#define CCB_DIFF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "study.h"

#pragma GCC visibility push(hidden) /* not part of what ccb exports to plugins */

/* A CSV file in memory: row r's cells are cell[row0[r] .. row0[r] + ncell[r]); row 0 is the
 * header. Cells point into buf (quotes removed in place). */
typedef struct csv_file {
    char* buf;
    char** cell;
    long* row0;
    int* ncell;
    long nrow, ncap, ccap, ntot;
} csv_file;

/* A key (a column's name, a row's label) and its index; sorted by (key, index), two such lists
 * pair the k-th entry of a key in one with its k-th in the other (pair_sorted). */
typedef struct keyed {
    const char* key;
    long idx;
} keyed;

enum { D_VERDICT, D_GATE, D_TABLE, D_TRAJ, D_FILE };
static const char* const k_kind[] = {"verdict", "gate", "table", "trajectory", "file"};

/* A difference. Its texts live in diff_state.text, whole (no length limit: a path, a gate id, a
 * row label or a column name of any length is reported as it is); a row holds their offsets
 * there, 0 being the empty text. */
typedef struct diff_row {
    int kind;
    size_t file;                          /* relative path */
    size_t item;                          /* gate id, row label, observable */
    size_t column;                        /* metric or column */
    size_t a, b;                          /* the values or texts before and after */
    double delta, rel, spread, threshold; /* NAN where it does not apply */
    int significant;
    size_t note;
} diff_row;

typedef struct diff_state {
    const char *a, *b;
    const suite_diff_opts* o;
    diff_row* rows;
    long n, cap;
    int baseline_a, baseline_b; /* the tree is a baseline without run files */
    char pert_a[SUITE_NPERTURB][64], pert_b[SUITE_NPERTURB][64];
    int npa, npb;
    /* per tree and perturbation: the nominal files as that perturbation's run saw them */
    struct digests* dg[2][SUITE_NPERTURB];
    char** moved; /* files with a significant numeric change, for the figures */
    int nmoved, capmoved;
    strbuf text; /* the rows' texts, each ended by its NUL; starts with the empty text */
    /* per tree: the digest of the file last asked about (a file's spreads ask once per
     * perturbation and gate) */
    char* dg_rel[2];
    unsigned long long dg_h[2];
    int dg_ok[2];
    int failed; /* out of memory */
} diff_state;

/* Spreads belong to the results they were measured beside. A sensitivity run records, in each
 * perturbation's tree ROOT/sensitivity/P/CASE.nominal.csv, a digest (FNV-1a, 64 bits) of every
 * table and run file of ROOT/CASE at that time (suite_sensitivity_bind); a perturbed copy gives a
 * spread for a file only while the file is still the one it was compared with. A later run into
 * the same ROOT without --sensitivity (or with fewer perturbations) rewrites the results and
 * leaves the perturbed trees: their differences to the new results are not round-off and are not
 * used (issue 44, H6). */
typedef struct digest {
    char* rel;
    unsigned long long h;
} digest;
typedef struct digests {
    digest* d;
    long n, cap;
} digests;

typedef struct file_list {
    char** rel;
    int n, cap;
    size_t root_len;
    int failed;
    int baseline;     /* listing for a baseline: the spreads kept, run files only if ... */
    int trajectories; /* ... asked for */
} file_list;

/* root/baseline.json, the marker of a baseline ccb saved: its version, whether the run files were
 * kept, its file count and (format 2) the inventory of its files, sorted. 0, or -1 with a message
 * if there is none or it is not a baseline's (strict JSON, the fields of its format). */
typedef struct baseline_info {
    int version, trajectories, files;
    char** inv;
    int ninv;
} baseline_info;

/* ---- diff_csv.c ---- */
void csv_free(csv_file* f);
/* Splits the NUL-terminated text buf (f owns it from here on): 0, or -1 when out of memory. */
int csv_parse(char* buf, csv_file* f);
/* Reads and splits path: 0, or -1 with a message. */
int csv_read(const char* path, csv_file* f, char* msg, size_t n);
/* Cell c of row r, "" where the row is shorter. */
const char* csv_at(const csv_file* f, long r, int c);
/* The column of f named name, or -1. */
int csv_col(const csv_file* f, const char* name);
int cmp_keyed(const void* x, const void* y);
void pair_sorted(const keyed* a, long na, const keyed* b, long nb, long* m);
/* For each column of a's header, the column of b with the same name and the same occurrence
 * of that name (a's second "x" is b's second "x"), or -1: both headers sorted by (name, column)
 * and merged, O(w log w) for files of any width (a file of 10,000 columns has 10^8 name pairs),
 * and the same pairs for diff B A. NULL when out of memory. */
int* col_map(const csv_file* a, const csv_file* b);
/* A cell as a number: 1 (a number, NaN and inf included), 0 (empty), -1 (text). */
int cell_num(const char* s, double* x);

/* ---- diff_kinds.c ---- */
void diff_state_init(diff_state* s, const char* a, const char* b, const suite_diff_opts* o);
void diff_state_free(diff_state* s);
size_t text_add(diff_state* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text at offset at of s->text. */
const char* diff_text(const diff_state* s, size_t at);
/* What a change must exceed to be significant (the header of diff.c). */
double diff_threshold(const suite_diff_opts* o, double s, double a, double b);
/* A difference of structure (a file on one side, unreadable, rows or columns changed). */
void diff_structure(diff_state* s, const char* rel, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The time column of a run file: "t [s]" or "t", else the first column. */
int time_column(const csv_file* f);
/* Compares the parsed file rel of the two trees by its kind; diff_file reads it first. */
void diff_parsed(diff_state* s, const char* rel, const csv_file* a, const csv_file* b);
void diff_file(diff_state* s, const char* rel);

/* ---- diff_spread.c ---- */
void digests_free(digests* d);
/* The FNV-1a digest of a file's bytes (*ok = 0 if it cannot be read). */
unsigned long long file_digest(const char* path, int* ok);
/* Every DIR/CASE.nominal.csv, sorted by file; NULL when out of memory. */
digests* load_digests(const char* dir);
/* The perturbation directories of ROOT/sensitivity/ (at most max): their number. */
int list_perturbations(const char* root, char names[][64], int max);
void file_spread(diff_state* s, const char* rel, const csv_file* a, const csv_file* b,
                 double* spread, int w, int per_row);
void gate_spreads_load(diff_state* s, const char* rel_gates, csv_file sens[2]);
double gate_spread(const csv_file sens[2], const char* id);
/* Remembers that rel changed significantly (for its overlay figure). */
void note_moved(diff_state* s, const char* rel);

/* ---- diff_tree.c ---- */
/* 1 for trajectory.csv, steps.csv and physics.csv. */
int is_run_file(const char* base);
int file_list_read(const char* root, file_list* l, char* msg, size_t n);
void file_list_free(file_list* l);
/* 1 if root/baseline.json says the run files were left out. */
int baseline_without_runs(const char* root);
/* An absolute path for p (what exists resolved, the rest folded): 0, or -1. */
int diff_abs_path(const char* p, char* out, size_t n);
/* 1 if the absolute path a is b or lies inside it. */
int path_within(const char* a, const char* b);

#pragma GCC visibility pop

#endif
