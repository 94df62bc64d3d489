/* geometry: narrow-phase point contacts against half-spaces.
 *
 * Half-space H (body A): region {x : n.(x - o) <= 0}, n = R_WH e_z, o = p_WH.
 * A point p_B of body B has signed distance phi = n.(p_B - o) (spec: formulation-convex §1.3)
 * and surface point p_A = p_B - phi n. Box shapes contribute their 8 corners, point sets their
 * markers. Candidate shape pairs are fixed at ccb_model_finalize (all pairs, O(n^2)); a broad
 * phase for large scenes belongs here when the clutter case needs it. */
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

/* Point i of shape s in the shape frame (box corners in a fixed order). */
static int shape_npoints(const ccb_shape* s) {
    return s->def.type == CCB_SHAPE_BOX ? 8 : s->def.npoints;
}

static ccb_vec3 shape_point(const ccb_shape* s, int i) {
    if (s->def.type == CCB_SHAPE_BOX) {
        const ccb_vec3 h = s->def.half_extents;
        return ccb_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
    }
    return s->points[i];
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
        for (int k = 0; k < np; ++k) {
            const ccb_vec3 pS = shape_point(sb, k);
            const ccb_vec3 pB = ccb_v3_add(XS.p, ccb_m3_mul_v(&XS.R, pS));
            const double phi = ccb_v3_dot(n, ccb_v3_sub(pB, XH.p));
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
