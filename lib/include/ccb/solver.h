/* ccb/solver.h — the extension model: option descriptors, solver types and their registry.
 *
 * Three kinds of component plug into libccb, each as a public const type object plus one
 * registration call (docs/architecture.md §4):
 *   - an approximation (ccb_approx, ccb/approx.h): the convex model of one contact;
 *   - a solver (ccb_solver_type, here): what advances a ccb_sim by one step — Newton on the
 *     convex problem, TAMSI, the ODE integrators of the continuous model, or a registered one;
 *   - an ODE method (ccb_ode_method_type, ccb/ode.h): an integrator of the ODE solver.
 * Solvers and ODE methods carry a table of option descriptors: name, type, where the value
 * lives, range, default, unit and a line of documentation. The ccb program generates from them
 * its command-line options, the check that an option applies to the run's solver, `ccb info`,
 * the manifest lines and the "option.*" keys of meta.json (ccb_sim_describe), so a new option is
 * one descriptor and a new solver is one file plus one registration, or one plugin.
 *
 * A plugin is a shared module (no -lccb needed: the host program provides libccb's API) that
 * defines `const int ccb_plugin_abi = CCB_ABI_VERSION;` and
 * `int ccb_plugin_register(char* msg, size_t n)`, which registers its types with the calls
 * below and returns 0 (or non-zero with a message). `ccb --plugin FILE.so` loads one;
 * a module built against another ABI version is refused. See plugins/pgs for one. */
#ifndef CCB_SOLVER_H
#define CCB_SOLVER_H

#include <stddef.h>

#include "ccb/status.h"
#include "ccb/step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the extension interface: the layout of ccb_option_desc, ccb_options_block,
 * ccb_solver_type, ccb_ode_method_type, ccb_approx and the functions a type object calls. A type
 * or a plugin built against another value is refused. The layouts of ccb_sim_params and
 * ccb_ode_params are not part of it: they grow with the built-in solvers' options, and a
 * registered solver or ODE method reads its own options through its options block (below) and
 * the simulation's values through functions (ccb_ode_step_size, the step context), never those
 * structs' fields. */
#define CCB_ABI_VERSION 5

/* ---- option descriptors ------------------------------------------------------------------- */

/* The options of a registered component (a solver, an ODE method) are a struct of its own
 * making, kept by libccb inside its parameters in one of these blocks: the component declares
 * the struct's size (at most CCB_OPTIONS_BLOCK_SIZE bytes, aligned at most as a double, a long
 * or a pointer), its descriptors' offsets are into it, and it reads it back through a pointer
 * (ccb_sim_solver_options, ccb_ode_method_options). So a component never depends on where its
 * options sit among the built-in solvers' (docs/architecture.md §4). */
#define CCB_OPTIONS_BLOCK_SIZE 256
typedef union ccb_options_block {
    unsigned char bytes[CCB_OPTIONS_BLOCK_SIZE];
    double align_double;
    long align_long;
    void* align_pointer;
} ccb_options_block;

typedef enum ccb_option_type {
    CCB_OPT_REAL = 0, /* a finite number in [min, max] */
    CCB_OPT_INT,      /* a whole number in [min, max] */
    CCB_OPT_ENUM,     /* one of values[] (stored as its index) */
    CCB_OPT_SWITCH,   /* on | off (stored as 1 | 0) */
    CCB_OPT_FLAG      /* given without a value: sets 1 (stored as 1 | 0) */
} ccb_option_type;

/* How the value is stored at its location. */
typedef enum ccb_option_storage {
    CCB_STORE_DOUBLE = 0,
    CCB_STORE_INT, /* int, or an enum type */
    CCB_STORE_LONG
} ccb_option_storage;

typedef struct ccb_option_desc {
    const char* name; /* command-line name without "--", a-z 0-9 '-' ("max-iterations") */
    ccb_option_type type;
    ccb_option_storage storage;
    /* Where it lives: a byte offset into the type's parameter block (ccb_sim_params for a
     * solver, ccb_ode_params for an ODE method); offset2 > 0: a second field that receives the
     * same value (GSL's --gsl-tol sets atol and rtol). */
    size_t offset, offset2;
    double min, max; /* range of REAL and INT (inclusive; REAL with min_open: min excluded) */
    int min_open;
    double def;                /* default: the value, or the index of ENUM / 0|1 of a switch */
    const char* const* values; /* ENUM: the names, NULL-ended (e.g. ccb_enum_names) */
    const char* unit;          /* "s", "m/s", "" */
    const char* doc;           /* one line */
    /* NULL, or the name of a FLAG or SWITCH option of the same type that must be on for this one
     * to be read ("error-control"), or, after a '!', off ("!error-control"); given otherwise,
     * the option is refused. */
    const char* requires;
} ccb_option_desc;

/* Parses `text` as the option's value and stores it at base + offset (and offset2): CCB_OK, or
 * CCB_E_INVALID with a message naming the option, the expected values and what was given. A
 * FLAG takes text NULL or "1"/"on". Nothing is stored on failure. */
CCB_API ccb_status ccb_option_parse(const ccb_option_desc* d, const char* text, void* base,
                                    char* msg, size_t msg_size);
/* The one number grammar of ccb's inputs (options, --set, run directories read by --from): a
 * decimal [+-]digits[.digits][(e|E)[+-]digits] (or [+-].digits...), the whole text, finite; no
 * white space, hexadecimal, inf or nan. 0 with *out, or -1. */
CCB_API int ccb_parse_decimal(const char* text, double* out);
/* The value at base + offset as a number (ENUM: its index; SWITCH, FLAG: 0 | 1). */
CCB_API double ccb_option_value(const ccb_option_desc* d, const void* base);
/* Stores a number (ENUM: an index) at base + offset (and offset2), unchecked. */
CCB_API void ccb_option_store(const ccb_option_desc* d, void* base, double value);
/* The value at base + offset as text that ccb_option_parse reads back to the same value
 * (REAL: %.17g; ENUM: its name; SWITCH: on|off; FLAG: on|off). */
CCB_API void ccb_option_format(const ccb_option_desc* d, const void* base, char* out, size_t n);
/* The descriptor's default as text (as ccb_option_format). */
CCB_API void ccb_option_format_default(const ccb_option_desc* d, char* out, size_t n);
/* Checks a descriptor table (names, types, ranges, defaults inside them, offsets inside a block
 * of block_size bytes, `requires` naming a flag of the table): CCB_OK or CCB_E_INVALID naming
 * the first defect. */
CCB_API ccb_status ccb_option_table_check(const ccb_option_desc* d, int n, size_t block_size,
                                          char* msg, size_t msg_size);

/* ---- solver types ------------------------------------------------------------------------- */

/* What a solver and the simulation report about themselves, as dotted keys ("solver.name",
 * "option.rtol", "work.f_evaluations"), for metadata: called once per key with a string (kind
 * CCB_DESCRIBE_TEXT), a number or a flag (0/1). */
typedef enum ccb_describe_kind {
    CCB_DESCRIBE_TEXT = 0,
    CCB_DESCRIBE_NUMBER = 1,
    CCB_DESCRIBE_FLAG = 2
} ccb_describe_kind;
typedef void (*ccb_describe_fn)(void* user, const char* key, ccb_describe_kind kind,
                                const char* text, double number);

struct ccb_sim;
struct ccb_sim_params;

enum {
    /* the solver minimizes the convex approximation of the step problem (--approx applies) */
    CCB_SOLVER_CONVEX = 1u << 0,
    /* the error control of the convex step applies (ccb_sim_ec_params; formulation-convex §15) */
    CCB_SOLVER_ERROR_CONTROL = 1u << 1,
    /* the solver's model is the regularized friction law (--friction applies) */
    CCB_SOLVER_REGULARIZED = 1u << 2,
    /* the solver integrates with an ODE method of the registry (ccb/ode.h): `--solver METHOD`
     * selects it and the method's option descriptors apply too */
    CCB_SOLVER_ODE_METHODS = 1u << 3
};

/* A solver. Frozen-step solvers (solve != NULL) solve the step problem that the simulation built
 * at (t0, q0) (ccb_sim_problem); the simulation then moves q. Integrators (advance != NULL)
 * advance the state over the step themselves. Exactly one of solve and advance is set. The
 * solver's workspace is ccb_sim_solver_data / ccb_sim_set_solver_data. */
typedef struct ccb_solver_type {
    int abi;               /* CCB_ABI_VERSION */
    const char* name;      /* a-z 0-9 '-': "newton", "tamsi", "ode", "pgs" */
    const char* title;     /* one line */
    const char* reference; /* where its method is specified */
    unsigned flags;        /* CCB_SOLVER_* */
    /* Optional: the choices the papers or the spec leave open and the defaults taken (`ccb info`) */
    const char* notes;
    /* Optional: what its counter[CCB_CNT_ITERATIONS] counts, for output ("Newton iterations",
     * "sweeps"); NULL: "iterations". An ODE method names its own (ccb_ode_method_type). */
    const char* iterations;
    /* Option descriptors. A registered solver's offsets are into its options block (a struct of
     * its own of options_size bytes <= CCB_OPTIONS_BLOCK_SIZE; ccb_sim_params_solver_options);
     * the built-in solvers' (options_size 0) are into ccb_sim_params. */
    const ccb_option_desc* options;
    int noptions;
    size_t options_size;
    /* Checks the solver's own parameters in p (the rest is checked by the simulation; a
     * registered solver reads its options with ccb_sim_params_solver_options(p)). */
    ccb_status (*check)(const struct ccb_sim_params* p, char* msg, size_t n);
    ccb_status (*create)(struct ccb_sim* sim, char* msg, size_t n);
    void (*destroy)(struct ccb_sim* sim); /* accepts a NULL workspace */
    /* Frozen-step solvers: solves ccb_sim_problem(sim) from the guess (nv entries); fills its
     * rows of counter[CCB_CNT_COUNT] (the others stay NAN); on success *v, *vc, *gamma point at
     * the new velocities (nv), contact velocities and impulses (3 per contact, frame C, in the
     * problem's contact order), borrowed from the workspace. */
    ccb_status (*solve)(struct ccb_sim* sim, const ccb_step_context* step, const double* guess,
                        double* counter, const double** v, const double** vc, const double** gamma);
    /* Integrators: advances the state by one step from t0 (ccb_sim_step). */
    ccb_status (*advance)(struct ccb_sim* sim, double t0);
    /* Optional: the state changed (set_state) at time t. */
    ccb_status (*set_state)(struct ccb_sim* sim, double t);
    /* Effective stiction tolerance [m/s] of contact i at impulse gamma. */
    double (*stiction)(const struct ccb_sim* sim, int i, const double gamma[3]);
    /* Optional: symbolic analyses and numeric factorizations since creation (NULL: 0, 0). */
    void (*factor_counts)(const struct ccb_sim* sim, long* analyses, long* factorizations);
    const char* (*last_error)(const struct ccb_sim* sim);
    /* Optional: its settings and work beyond its options, for metadata (ccb_sim_describe). */
    void (*describe)(const struct ccb_sim* sim, ccb_describe_fn fn, void* user);
    /* Optional: 1 if the problem may defer far contacts for this solver
     * (ccb_problem_params.defer_inactive). */
    int (*defer_contacts)(const struct ccb_sim_params* p);
} ccb_solver_type;

CCB_API extern const ccb_solver_type ccb_solver_newton; /* convex approximation + Newton */
CCB_API extern const ccb_solver_type ccb_solver_tamsi;  /* TAMSI (+ TALS) */
CCB_API extern const ccb_solver_type ccb_solver_ode;    /* an ODE method on the continuous model */

/* Registry: the built-in solvers first, then the registered ones, in order. */
CCB_API int ccb_solver_count(void);
CCB_API const ccb_solver_type* ccb_solver_get(int i);
CCB_API const ccb_solver_type* ccb_solver_find(const char* name);
/* The descriptor named `name` of a solver (NULL if it has none). */
CCB_API const ccb_option_desc* ccb_solver_option(const ccb_solver_type* t, const char* name);
/* Adds a solver (borrowed; must outlive every use; register before creating simulations; not
 * thread-safe). CCB_E_INVALID with a message if its abi is not CCB_ABI_VERSION, a function is
 * missing, its option table is malformed, the name is malformed or taken (by a solver or an ODE
 * method), or CCB_SOLVER_MAX_REGISTERED were already added. */
#define CCB_SOLVER_MAX_REGISTERED 16
CCB_API ccb_status ccb_solver_register(const ccb_solver_type* type, char* msg, size_t msg_size);

/* 1 if name is a valid component name (1-31 characters of a-z, 0-9, '-', starting with a
 * letter). */
CCB_API int ccb_component_name_ok(const char* name);

#ifdef __cplusplus
}
#endif
#endif
