/* Geometry internals shared by the broad phase (geometry.c) and its lazy body pairs
 * (geometry_lazy.c); not installed. */
#ifndef CCB_GEOMETRY_INTERNAL_H
#define CCB_GEOMETRY_INTERNAL_H

#include <stdint.h>

#include "ccb/geometry.h"
#include "ccb/hydro.h"
#include "ccb/math.h"
#include "model_internal.h"

/* Workspace of a contact set: per-shape world poses, the broad-phase grid and the candidates. */
typedef struct geo_ws {
    ccb_pose* X; /* nshapes */
    /* broad phase of bounded shapes: the small ones hashed to a uniform grid (cells of at least
     * the largest reach of two small shapes), the large ones tested against every shape */
    int *small, *large; /* bounded shapes by size (per model) */
    int nsmall, nlarge;
    /* the small shapes grouped by body (per model): group g is body gbody[g], its shapes
     * gshape[gstart[g] .. gstart[g + 1]) in ascending order; per query its centre gc (the body's
     * origin) and radius gr (a sphere about gc containing every grown shape sphere) */
    int *gshape, *gstart, *gbody;
    int ngroup, gbits; /* gbits: bits of a group index in a grid key */
    ccb_vec3* gc;
    double* gr;
    ccb_vec3* gp; /* per query, in the order of gshape: each shape's centre and bound (one */
    double* gb;   /* contiguous pass in the shape-pair loops) */
    int *gsmall, *glarge; /* groups by radius (per query) */
    int ngsmall, nglarge;
    ccb_vec3* bp;      /* nbodies: origin of each body with small shapes (per query) */
    int* bgroup;       /* nbodies: the group of each body, -1 if none (per model) */
    uint64_t *gk, *gt; /* (cell << gbits | group) of the small groups, and the sort buffer */
    uint64_t* cells;   /* unique cell keys, and where each starts in gk */
    int* cstart;
    /* the last query's grid, for ccb_geo_requery_lazy: its corner, cell side, cells per axis and
     * unique cells (0: no grid), and the radius above which a group is large */
    double grid_lo[3], grid_h, glimit;
    uint64_t grid_dim[3];
    int grid_nc;
    int cap, cap_b;
    uint64_t *cand, *tmp; /* candidate pairs (lo << 32 | hi) and the radix-sort buffer */
    int ncand, cap_cand;
    int hibits;             /* bits of hi in a candidate key */
    const ccb_model* model; /* the model the order belongs to */
    /* lazy body pairs (ccb_geometry_query_lazy): per group (per model) 1 if its body may be
     * part of one (a single free or planar body whose small shapes share one material); per
     * query the caller's test */
    unsigned char* glazy;
    uint64_t* pk; /* the lazy pairs' sort: keys, indices and the sorted copy (2, 2, 1 per pair) */
    int* pi;
    ccb_contact_pair* pp;
    int cap_pk;
    ccb_lazy_pair_fn lazy;
    void* lazy_ctx;
    ccb_contact_set* out;
    int lazy_valid;  /* the set holds a complete lazy query: ccb_geo_requery_lazy may follow */
    ccb_contact* ct; /* the merge buffer of ccb_geo_requery_lazy */
    int cap_ct;
    ccb_hydro_surface hs; /* contact surface scratch of hydroelastic pairs */
} geo_ws;

/* Adds the candidate shape pair (i, j) (any order). */
ccb_status ccb_geo_add_candidate(geo_ws* ws, int i, int j);

/* [round-off: the group tests below only prune; they must never drop a pair the exact test
 *  keeps. By the triangle inequality a shape pair in reach lies in two groups (or a large shape
 *  and a group) whose spheres are in reach; the computed norms and sums carry relative errors
 *  of a few ulps, so the group reach is widened by 1e-9 of itself.] */
static inline int ccb_geo_groups_in_reach(ccb_vec3 ci, double ri, ccb_vec3 cj, double rj,
                                          double margin) {
    const ccb_vec3 d = ccb_v3_sub(cj, ci);
    const double reach = (ri + rj + margin) * (1.0 + 1e-9);
    return ccb_v3_dot(d, d) < reach * reach;
}

/* The lazy pair of groups g and h (different bodies, both glazy): the shape pairs in reach
 * beyond the caller's cut left out and recorded, the others added as candidates. */
ccb_status ccb_geo_lazy_group_pair(const ccb_model* m, geo_ws* ws, int g, int h, double margin);
/* The lazy pair of a large box shape i of a body without coordinates and the spheres of group
 * g; 0 (nothing done) if a shape of g is not a sphere, else 1 with *st the status. */
int ccb_geo_lazy_wall_group(const ccb_model* m, geo_ws* ws, int i, int g, double margin,
                            ccb_status* st);
/* The lazy query `out` already holds (ccb_geometry_query_lazy at the same model, time, q and
 * margin, nothing done to the set since) made again after the caller's test changed for the
 * pairs of the bodies flagged in changed[nbodies] and for no other pair: only the shape pairs of
 * those bodies are decided again (formulation-convex §8.11). The set is bit for bit the one a
 * whole query with the new test gives. CCB_E_INVALID if `out` holds no such query. */
ccb_status ccb_geo_requery_lazy(const ccb_model* m, double margin, ccb_lazy_pair_fn lazy, void* ctx,
                                const unsigned char* changed, ccb_contact_set* out, char* msg,
                                size_t msg_size);
/* The contact set's lazy pairs sorted by (body_a, body_b), ties in the order they were made. */
ccb_status ccb_geo_sort_pairs(geo_ws* ws, ccb_contact_set* out);

#endif
