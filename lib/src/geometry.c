/* geometry: narrow-phase point contacts against half-spaces.
 *
 * Half-space H (body A): region {x : n.(x - o) <= 0}, n = R_WH e_z, o = p_WH.
 * Every other shape is a set of support points s_k (shape frame) swept by a radius r: box corners
 * and markers (r = 0), the sphere centre (r = radius), the two ends of a capsule's segment
 * (r = radius; for a segment against a plane the closest points are always its ends). For a
 * support point at p in W:
 *   phi = n.(p - o) - r           signed distance (spec: formulation-convex §1.3)
 *   p_B = p - r n                 deepest point of B,   p_A = p_B - phi n  (on the plane).
 * Candidate shape pairs are fixed at ccb_model_finalize (all pairs). */
#include "ccb/geometry.h"

#include <math.h>

#include "ccb/alloc.h"
#include "model_internal.h"

void ccb_contact_set_free(ccb_contact_set* set) {
    if (set == NULL) {
        return;
    }
    ccb_free(set->items);
    set->items = NULL;
    set->n = set->cap = 0;
}

static ccb_status add_contact(ccb_contact_set* out, const ccb_contact* c) {
    if (ccb_grow((void**)&out->items, &out->cap, out->n + 1, sizeof(ccb_contact)) != CCB_OK) {
        return CCB_E_NOMEM;
    }
    out->items[out->n++] = *c;
    return CCB_OK;
}

/* Support points of a shape (shape frame) and the radius that sweeps them. */
static int shape_npoints(const ccb_shape* s) {
    switch (s->def.type) {
    case CCB_SHAPE_BOX: return 8;
    case CCB_SHAPE_SPHERE: return 1;
    case CCB_SHAPE_CAPSULE: return 2;
    default: return s->def.npoints;
    }
}

static ccb_vec3 shape_point(const ccb_shape* s, int i) {
    switch (s->def.type) {
    case CCB_SHAPE_BOX: {
        const ccb_vec3 h = s->def.half_extents;
        return ccb_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
    }
    case CCB_SHAPE_SPHERE: return ccb_v3(0, 0, 0);
    case CCB_SHAPE_CAPSULE: return ccb_v3(i ? s->def.half_length : -s->def.half_length, 0, 0);
    default: return s->points[i];
    }
}

static double shape_radius(const ccb_shape* s) {
    return (s->def.type == CCB_SHAPE_SPHERE || s->def.type == CCB_SHAPE_CAPSULE) ? s->def.radius
                                                                                 : 0.0;
}

ccb_status ccb_geometry_query(const ccb_model* m, double t, const double* q, double margin,
                              ccb_contact_set* out, char* msg, size_t msg_size) {
    if (m == NULL || out == NULL || (m->nq > 0 && q == NULL)) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID, "geometry_query: NULL argument");
    }
    if (!m->finalized) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID, "geometry_query: model not finalized");
    }
    if (!(isfinite(margin) && margin >= 0)) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                          "contact margin must be finite and >= 0 m (got %g)", margin);
    }
    out->n = 0;
    for (int ip = 0; ip < m->npairs; ++ip) {
        const ccb_shape_pair* pr = &m->pairs[ip];
        const ccb_shape* sa = &m->shapes[pr->a];
        const ccb_shape* sb = &m->shapes[pr->b];
        const ccb_body* ba = &m->bodies[sa->body];
        const ccb_body* bb = &m->bodies[sb->body];
        ccb_pose XA, XB;
        ccb_body_pose(ba, t, ba->nq ? q + ba->qoff : NULL, &XA);
        ccb_body_pose(bb, t, bb->nq ? q + bb->qoff : NULL, &XB);
        const ccb_pose XH = ccb_pose_compose(&XA, &sa->def.pose);
        const ccb_pose XS = ccb_pose_compose(&XB, &sb->def.pose);
        const ccb_vec3 n = ccb_m3_col(&XH.R, 2);
        if (!ccb_v3_isfinite(XH.p) || !ccb_v3_isfinite(XS.p) || !ccb_v3_isfinite(n)) {
            return ccb_errorf(msg, msg_size, CCB_E_NONFINITE,
                              "geometry_query: non-finite pose of body '%s' or '%s' at t = %g",
                              ba->name, bb->name, t);
        }
        const ccb_mat3 R_WC = ccb_contact_frame(n);
        const int np = shape_npoints(sb);
        const double r = shape_radius(sb);
        for (int k = 0; k < np; ++k) {
            const ccb_vec3 pS = shape_point(sb, k);
            const ccb_vec3 ps = ccb_v3_add(XS.p, ccb_m3_mul_v(&XS.R, pS));
            const double phi = ccb_v3_dot(n, ccb_v3_sub(ps, XH.p)) - r;
            const ccb_vec3 pB = ccb_v3_sub(ps, ccb_v3_scale(r, n));
            if (!(phi < margin)) {
                continue;
            }
            const ccb_vec3 pA = ccb_v3_sub(pB, ccb_v3_scale(phi, n));
            ccb_contact c;
            c.body_a = sa->body;
            c.body_b = sb->body;
            c.shape_a = pr->a;
            c.shape_b = pr->b;
            c.feature = k;
            c.phi0 = phi;
            c.p = ccb_v3_add(pB, ccb_v3_scale(pr->weight_a, ccb_v3_sub(pA, pB)));
            c.R_WC = R_WC;
            c.material = pr->material;
            if (add_contact(out, &c) != CCB_OK) {
                return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
            }
        }
    }
    return CCB_OK;
}
