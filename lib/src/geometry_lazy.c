/* geometry_lazy: the lazy body pairs of the broad phase (ccb_geometry_query_lazy; spec:
 * formulation-convex §8.11): for two groups of small shapes, or a wall and a group of spheres,
 * the shape pairs beyond the caller's cut are left out and recorded as one ccb_contact_pair with
 * a bound of their phi0, their reaches and material; the pairs sorted for the caller. The broad
 * phase (geometry.c, bounded_pairs) decides which group pairs are offered. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ccb/alloc.h"
#include "geometry_internal.h"
#include "model_internal.h"

/* Records the lazy pair pr unless it stands for no shape pair. */
static ccb_status add_lazy_pair(geo_ws* ws, const ccb_contact_pair* pr) {
    ccb_contact_set* out = ws->out;
    if (pr->shape_pairs == 0) {
        return CCB_OK;
    }
    if (out->npairs == out->cap_pairs &&
        ccb_grow((void**)&out->pairs, &out->cap_pairs, out->npairs + 1, sizeof(ccb_contact_pair)) !=
            CCB_OK) {
        return CCB_E_NOMEM;
    }
    out->pairs[out->npairs++] = *pr;
    return CCB_OK;
}

/* group_pair of two groups that may form a lazy pair (formulation-convex §8.11). The caller's
 * test gives a cut: the shape pairs in reach whose bounding spheres are farther apart than the
 * cut are left out, the others are candidates as in group_pair. Every narrow phase's phi0 of
 * two shapes is at least the distance of their bounding spheres, |c_j - c_i| - bound_i -
 * bound_j, so the pair's phi_lb is the least of those distances over the shape pairs left out.
 * A contact point lies on the segment of its witness points p_a, p_b, one on each shape's
 * surface, |p_a - p_b| = phi0 < margin: C = p_b + w (p_a - p_b) with w = k_a/(k_a + k_b) (emit;
 * 1 for a rigid a), the same point whichever shape the narrow phase names first. So
 * |C - origin_a| <= group radius + (1 - w) margin and |C - origin_b| <= group radius + w margin:
 * half the margin on each side for two equal stiffnesses (formulation-convex §8.11's reach; the
 * angular part of Newton's far bound is proportional to it). A shape whose sphere is farther than
 * the cut from the other group's sphere leaves its whole row out with that distance as bound.
 * [round-off: the distances are narrowed and the reaches widened by 1e-9 of the magnitudes
 *  involved; the narrow phase computes the same distance to a few ulps] */
ccb_status ccb_geo_lazy_group_pair(const ccb_model* m, geo_ws* ws, int g, int h, double margin) {
    const int ba = ws->gbody[g], bb = ws->gbody[h];
    const int a = ba < bb ? g : h, b = ba < bb ? h : g;
    const int sa = ws->gshape[ws->gstart[a]], sb = ws->gshape[ws->gstart[b]];
    double w; /* the weight of a's witness point (above); two rigid shapes: either end */
    const ccb_material mat = ccb_shape_pair_material(m, sa, sb, &w);
    const int rigid2 = isinf(m->shapes[sa].def.material.k) && isinf(m->shapes[sb].def.material.k);
    ccb_contact_pair pr = {
        .body_a = ws->gbody[a],
        .body_b = ws->gbody[b],
        .phi_lb = INFINITY,
        .reach_a = (ws->gr[a] + (rigid2 ? 1.0 : 1.0 - w) * margin) * (1.0 + 1e-9),
        .reach_b = (ws->gr[b] + (rigid2 ? 1.0 : w) * margin) * (1.0 + 1e-9),
        .material = mat,
        .shape_pairs = 0,
    };
    const double cut = ws->lazy(ws->lazy_ctx, &pr);
    /* the groups' bound: |c_l - c_i| - b_i - b_l >= |c_h - c_g| - r_g - r_h for every pair */
    const double dg = ccb_v3_norm(ccb_v3_sub(ws->gc[h], ws->gc[g]));
    const double whole = dg - ws->gr[g] - ws->gr[h] - 1e-9 * (dg + ws->gr[g] + ws->gr[h]);
    if (whole > cut) { /* every shape pair is left out, none counted one by one */
        pr.phi_lb = whole;
        pr.shape_pairs = (ws->gstart[g + 1] - ws->gstart[g]) * (ws->gstart[h + 1] - ws->gstart[h]);
        return add_lazy_pair(ws, &pr);
    }
    double phi_lb = INFINITY; /* in registers: pr's address went to the caller's test */
    int count = 0;
    const int h0 = ws->gstart[h], h1 = ws->gstart[h + 1];
    for (int k = ws->gstart[g]; k < ws->gstart[g + 1]; ++k) {
        const ccb_vec3 ci = ws->gp[k];
        const double bi = ws->gb[k];
        if (!ccb_geo_groups_in_reach(ci, bi, ws->gc[h], ws->gr[h], margin)) {
            continue;
        }
        /* the row's bound: |c_l - c_i| - b_i - b_l >= |c_h - c_i| - b_i - r_h for every shape l
         * of h, as |c_l - c_h| + b_l <= r_h (the group sphere): above the cut, the whole row is
         * left out with it */
        const double dr = ccb_v3_norm(ccb_v3_sub(ws->gc[h], ci));
        const double row = dr - bi - ws->gr[h] - 1e-9 * (dr + bi + ws->gr[h]);
        if (row > cut) {
            phi_lb = row < phi_lb ? row : phi_lb;
            count += h1 - h0;
            continue;
        }
        for (int l = h0; l < h1; ++l) {
            const double bj = ws->gb[l];
            const ccb_vec3 d = ccb_v3_sub(ws->gp[l], ci);
            const double d2 = ccb_v3_dot(d, d), reach = bi + bj + margin;
            if (d2 >= reach * reach) {
                continue;
            }
            const double dist = sqrt(d2);
            const double lb = dist - bi - bj - 1e-9 * (dist + bi + bj);
            if (lb > cut) { /* left out: a member of the lazy pair */
                phi_lb = lb < phi_lb ? lb : phi_lb;
                count++;
            } else if (ccb_geo_add_candidate(ws, ws->gshape[k], ws->gshape[l]) != CCB_OK) {
                return CCB_E_NOMEM;
            }
        }
    }
    pr.phi_lb = phi_lb;
    pr.shape_pairs = count;
    return add_lazy_pair(ws, &pr);
}

/* The distance of the point p outside the box of pose X and half extents h (0 inside), as the
 * narrow phase computes it (box_sphere_contact). */
static double box_distance(const ccb_pose* X, const double h[3], ccb_vec3 p) {
    const ccb_vec3 cl = ccb_m3_tmul_v(&X->R, ccb_v3_sub(p, X->p));
    const double c[3] = {cl.x, cl.y, cl.z};
    double e2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        const double q = c[a] < -h[a] ? -h[a] : (c[a] > h[a] ? h[a] : c[a]);
        e2 += (c[a] - q) * (c[a] - q);
    }
    return sqrt(e2);
}

/* The lazy pair of a large box shape i of a body without velocity coordinates (a container
 * wall, the floor) and the spheres of group g (formulation-convex §8.11): as lazy_group_pair,
 * with the box-sphere distance of the narrow phase as each pair's bound (a wall's bounding
 * sphere is far too large to bound anything). A contact point lies within margin of the sphere's
 * surface, so within group radius + margin of g's origin and within |o_g - o_i| + group radius
 * + margin of the wall body's origin. Returns 0 (nothing done) if a shape of g is not a sphere. */
int ccb_geo_lazy_wall_group(const ccb_model* m, geo_ws* ws, int i, int g, double margin,
                            ccb_status* st) {
    for (int k = ws->gstart[g]; k < ws->gstart[g + 1]; ++k) {
        if (m->shapes[ws->gshape[k]].def.type != CCB_SHAPE_SPHERE) {
            return 0;
        }
    }
    /* the group's bound: the distance outside the box is 1-Lipschitz, so a sphere j of g has
     * D(c_j) - r_j >= D(c_g) - |c_j - c_g| - b_j >= D(c_g) - r_g (and is outside when that is
     * > 0); every shape pair is left out when it exceeds the cut, and none can touch within
     * the margin when it reaches the margin: then there is nothing to record (the narrow phase
     * would list none of them) and no cut to compute */
    const ccb_pose* XA = &ws->X[i];
    const ccb_vec3 hv = m->shapes[i].def.half_extents;
    const double h[3] = {hv.x, hv.y, hv.z};
    const double dg = box_distance(XA, h, ws->gc[g]);
    const double whole = dg - ws->gr[g] - 1e-9 * (dg + ws->gr[g]);
    *st = CCB_OK;
    if (whole >= margin) {
        return 1;
    }
    const int bw = m->shapes[i].body, bg = ws->gbody[g];
    const double rw = (ccb_v3_norm(ccb_v3_sub(ws->gc[g], ws->bp[bw])) + ws->gr[g] + margin) *
                      (1.0 + 1e-9),
                 rg = (ws->gr[g] + margin) * (1.0 + 1e-9);
    double w;
    ccb_contact_pair pr = {
        .body_a = bw < bg ? bw : bg,
        .body_b = bw < bg ? bg : bw,
        .phi_lb = INFINITY,
        .reach_a = bw < bg ? rw : rg,
        .reach_b = bw < bg ? rg : rw,
        .material = ccb_shape_pair_material(m, i, ws->gshape[ws->gstart[g]], &w),
        .shape_pairs = 0,
    };
    const double cut = ws->lazy(ws->lazy_ctx, &pr);
    if (whole > cut) {
        pr.phi_lb = whole;
        pr.shape_pairs = ws->gstart[g + 1] - ws->gstart[g];
        *st = add_lazy_pair(ws, &pr);
        return 1;
    }
    double phi_lb = INFINITY; /* in registers: pr's address went to the caller's test */
    int count = 0;
    const double bound_w = m->shapes[i].bound;
    for (int k = ws->gstart[g]; k < ws->gstart[g + 1]; ++k) {
        const int j = ws->gshape[k];
        const double reach = bound_w + ws->gb[k] + margin;
        const ccb_vec3 d = ccb_v3_sub(ws->gp[k], XA->p);
        if (ccb_v3_dot(d, d) >= reach * reach) {
            continue; /* test_pair_reach's test */
        }
        /* the narrow phase's distance outside the box (box_sphere_contact); inside: no bound */
        const double dist = box_distance(XA, h, ws->gp[k]), r = m->shapes[j].def.radius;
        const double lb = dist > 0 ? dist - r - 1e-9 * (dist + r) : -INFINITY;
        if (lb > cut) {
            phi_lb = lb < phi_lb ? lb : phi_lb;
            count++;
        } else if ((*st = ccb_geo_add_candidate(ws, i, j)) != CCB_OK) {
            return 1;
        }
    }
    pr.phi_lb = phi_lb;
    pr.shape_pairs = count;
    *st = add_lazy_pair(ws, &pr);
    return 1;
}

/* The lazy pairs sorted by (body_a, body_b), pairs of the same two bodies (a body's walls
 * against one group) in the order the broad phase made them, which is the walls' shape order:
 * a stable radix sort of the keys body_a << 32 | body_b, 8 bits a pass over the bits that
 * vary, carrying each pair's index. */
ccb_status ccb_geo_sort_pairs(geo_ws* ws, ccb_contact_set* out) {
    const int n = out->npairs;
    if (ws->cap_pk < n) {
        void** const arr[] = {(void**)&ws->pk, (void**)&ws->pi, (void**)&ws->pp};
        const size_t sz[] = {2 * sizeof(uint64_t), 2 * sizeof(int), sizeof(ccb_contact_pair)};
        if (ccb_grow_many(arr, sz, 3, &ws->cap_pk, n) != CCB_OK) {
            return CCB_E_NOMEM;
        }
    }
    uint64_t *k = ws->pk, *k2 = ws->pk + n, all_or = 0, all_and = ~(uint64_t)0;
    int *ix = ws->pi, *ix2 = ws->pi + n;
    for (int i = 0; i < n; ++i) {
        k[i] = (uint64_t)(uint32_t)out->pairs[i].body_a << 32 | (uint32_t)out->pairs[i].body_b;
        ix[i] = i;
        all_or |= k[i];
        all_and &= k[i];
    }
    for (int shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0) {
            continue;
        }
        int count[256] = {0};
        for (int i = 0; i < n; ++i) {
            count[(k[i] >> shift) & 0xff]++;
        }
        for (int d = 0, at = 0; d < 256; ++d) {
            const int c = count[d];
            count[d] = at;
            at += c;
        }
        for (int i = 0; i < n; ++i) {
            const int to = count[(k[i] >> shift) & 0xff]++;
            k2[to] = k[i];
            ix2[to] = ix[i];
        }
        uint64_t* tk = k;
        k = k2;
        k2 = tk;
        int* ti = ix;
        ix = ix2;
        ix2 = ti;
    }
    for (int i = 0; i < n; ++i) {
        ws->pp[i] = out->pairs[ix[i]];
    }
    memcpy(out->pairs, ws->pp, (size_t)n * sizeof(ccb_contact_pair));
    return CCB_OK;
}
