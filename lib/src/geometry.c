/* geometry: point contacts between shapes, with a broad phase.
 *
 * Narrow phase (normal n from A into B, phi signed distance, < 0 overlap; spec:
 * formulation-convex §0, §1.3):
 *   half-space A {x : n.(x - o) <= 0}, n = R_WH e_z, o = p_WH, against the support points s_k of
 *     B swept by a radius r (box corners and markers r = 0, the sphere centre r = radius, the two
 *     ends of a capsule's segment; against a plane the closest points of a segment are always
 *     its ends): phi = n.(p - o) - r, p_B = p - r n, p_A = p_B - phi n (on the plane);
 *   sphere A vs sphere B (centres c_A, c_B): n = (c_B - c_A)/|c_B - c_A| (+z if they coincide),
 *     phi = |c_B - c_A| - r_A - r_B, p_A = c_A + r_A n, p_B = c_B - r_B n;
 *   box A (half extents h) vs sphere B: with c the sphere centre in the box frame and q = c
 *     clamped to the box, outside: n = R (c - q)/|c - q|, phi = |c - q| - r; inside: the face of
 *     least depth (lowest axis on ties) gives n = R sign(c_i) e_i, phi = -(h_i - |c_i|) - r,
 *     q = c with q_i = sign(c_i) h_i; p_A = X q (on the box), p_B = c_B - r n.
 * The contact point is C = p_B + kA/(kA + kB) (p_A - p_B) (stiffness weighted; on a rigid A it is
 * A's surface point).
 *
 * Broad phase: every shape's world pose once per query; half-spaces are tested against every
 * bounded shape with a bounding-sphere distance test; bounded shapes are paired in two levels
 * (bounded_pairs): the small shapes of a body form a group with one sphere about the body's
 * origin, groups are paired through a uniform grid (cells at least as wide as the reach of two
 * groups, each cell against itself and its 13 following neighbours), the few large shapes
 * (container walls) and large groups against every group, and only the shapes of groups in
 * reach go to the exact bounding-sphere distance test of each shape pair.
 * The candidate pairs are radix-sorted by (lower shape index, higher shape index) before the
 * narrow phase, so contacts come out in that canonical order (features ascending within a pair),
 * independent of the broad phase. */
#include "ccb/geometry.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "geometry_internal.h"
#include "model_internal.h"

void ccb_contact_set_free(ccb_contact_set* set) {
    if (set == NULL) {
        return;
    }
    geo_ws* ws = set->ws;
    if (ws) {
        ccb_free(ws->X);
        ccb_free(ws->small);
        ccb_free(ws->large);
        ccb_free(ws->gshape);
        ccb_free(ws->gstart);
        ccb_free(ws->gbody);
        ccb_free(ws->gc);
        ccb_free(ws->gp);
        ccb_free(ws->gb);
        ccb_free(ws->gr);
        ccb_free(ws->gsmall);
        ccb_free(ws->glarge);
        ccb_free(ws->bp);
        ccb_free(ws->bgroup);
        ccb_free(ws->ct);
        ccb_free(ws->gk);
        ccb_free(ws->gt);
        ccb_free(ws->cells);
        ccb_free(ws->cstart);
        ccb_free(ws->cand);
        ccb_free(ws->tmp);
        ccb_free(ws->glazy);
        ccb_free(ws->pk);
        ccb_free(ws->pi);
        ccb_free(ws->pp);
        ccb_hydro_surface_free(&ws->hs);
        ccb_free(ws);
    }
    ccb_free(set->items);
    ccb_free(set->pairs);
    set->items = NULL;
    set->pairs = NULL;
    set->ws = NULL;
    set->n = set->cap = 0;
    set->npairs = set->cap_pairs = 0;
}

static ccb_status add_contact(ccb_contact_set* out, const ccb_contact* c) {
    if (out->n == out->cap &&
        ccb_grow((void**)&out->items, &out->cap, out->n + 1, sizeof(ccb_contact)) != CCB_OK) {
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

/* The normal of a contact goes to the third column of its frame; the query completes every
 * frame in one pass at its end (frames_from_normals). */
static void set_normal(ccb_mat3* R, ccb_vec3 n) {
    memset(R, 0, sizeof *R);
    R->m[2] = n.x;
    R->m[5] = n.y;
    R->m[8] = n.z;
}

/* The frame of a contact with anisotropic friction (formulation-convex §18.1): t1 along the grain
 * g (the half-space's x axis, which is A's: a half-space is always A) projected on the tangent
 * plane, t2 = n x t1. Against a half-space n is its z axis, so t1 = g. */
static ccb_mat3 grain_frame(ccb_vec3 g, ccb_vec3 n) {
    ccb_vec3 t1 = ccb_v3_sub(g, ccb_v3_scale(ccb_v3_dot(g, n), n));
    t1 = ccb_v3_scale(1.0 / ccb_v3_norm(t1), t1);
    const ccb_vec3 t2 = ccb_v3_cross(n, t1);
    const ccb_mat3 R = {{t1.x, t2.x, n.x, t1.y, t2.y, n.y, t1.z, t2.z, n.z}};
    return R;
}

/* R_WC = ccb_contact_frame(n) (grain_frame with anisotropic friction) of the contacts from `from` on, from the normal in its third column (the
 * frame's third column is n itself). One tight pass: the square root and the division of one
 * frame overlap those of the next, where frame by frame in the narrow phase each waited. */
static void frames_from_normals(const geo_ws* ws, ccb_contact_set* out, int from) {
    for (int k = from; k < out->n; ++k) {
        ccb_contact* c = &out->items[k];
        ccb_mat3* R = &c->R_WC;
        const ccb_vec3 n = ccb_v3(R->m[2], R->m[5], R->m[8]);
        *R = c->material.mu2 > 0 ? grain_frame(ccb_m3_col(&ws->X[c->shape_a].R, 0), n)
                                 : ccb_contact_frame(n);
    }
}

/* Records one contact of the pair (a, b) from A's and B's witness points. */
static ccb_status emit(const ccb_model* m, int a, int b, int feature, double phi, ccb_vec3 n,
                       ccb_vec3 pA, ccb_vec3 pB, ccb_contact_set* out) {
    ccb_contact c;
    double wa;
    c.material = ccb_shape_pair_material(m, a, b, &wa);
    c.body_a = m->shapes[a].body;
    c.body_b = m->shapes[b].body;
    c.shape_a = a;
    c.shape_b = b;
    c.feature = feature;
    c.phi0 = phi;
    c.p = ccb_v3_add(pB, ccb_v3_scale(wa, ccb_v3_sub(pA, pB)));
    set_normal(&c.R_WC, n);
    return add_contact(out, &c);
}

static ccb_status halfspace_contacts(const ccb_model* m, const geo_ws* ws, int a, int b,
                                     double margin, ccb_contact_set* out) {
    const ccb_pose* XH = &ws->X[a];
    const ccb_pose* XS = &ws->X[b];
    const ccb_shape* sb = &m->shapes[b];
    const ccb_vec3 n = ccb_m3_col(&XH->R, 2);
    const double r = shape_radius(sb);
    const int np = shape_npoints(sb);
    for (int k = 0; k < np; ++k) {
        const ccb_vec3 ps = ccb_v3_add(XS->p, ccb_m3_mul_v(&XS->R, shape_point(sb, k)));
        const double phi = ccb_v3_dot(n, ccb_v3_sub(ps, XH->p)) - r;
        if (!(phi < margin)) {
            continue;
        }
        const ccb_vec3 pB = ccb_v3_sub(ps, ccb_v3_scale(r, n));
        const ccb_vec3 pA = ccb_v3_sub(pB, ccb_v3_scale(phi, n));
        if (emit(m, a, b, k, phi, n, pA, pB, out) != CCB_OK) {
            return CCB_E_NOMEM;
        }
    }
    return CCB_OK;
}

/* Two balls: centre ca radius ra of shape a, centre cb radius rb of shape b. */
static ccb_status ball_contact(const ccb_model* m, int a, int b, ccb_vec3 ca, double ra,
                               ccb_vec3 cb, double rb, double margin, ccb_contact_set* out) {
    const ccb_vec3 d = ccb_v3_sub(cb, ca);
    const double dist = ccb_v3_norm(d);
    const double phi = dist - ra - rb;
    if (!(phi < margin)) {
        return CCB_OK;
    }
    const ccb_vec3 n = dist > 0 ? ccb_v3_scale(1.0 / dist, d) : ccb_v3(0, 0, 1);
    return emit(m, a, b, 0, phi, n, ccb_v3_add(ca, ccb_v3_scale(ra, n)),
                ccb_v3_sub(cb, ccb_v3_scale(rb, n)), out);
}

static ccb_status sphere_contact(const ccb_model* m, const geo_ws* ws, int a, int b, double margin,
                                 ccb_contact_set* out) {
    return ball_contact(m, a, b, ws->X[a].p, m->shapes[a].def.radius, ws->X[b].p,
                        m->shapes[b].def.radius, margin, out);
}

/* Capsule (A) against sphere (B): the sphere against the ball of the capsule's radius at the
 * point of its segment closest to the sphere's centre. */
static ccb_status capsule_sphere_contact(const ccb_model* m, const geo_ws* ws, int a, int b,
                                         double margin, ccb_contact_set* out) {
    const ccb_pose* XA = &ws->X[a];
    const double hl = m->shapes[a].def.half_length;
    const ccb_vec3 u = ccb_m3_col(&XA->R, 0);
    const double s = ccb_v3_dot(u, ccb_v3_sub(ws->X[b].p, XA->p));
    const double sc = s < -hl ? -hl : (s > hl ? hl : s);
    return ball_contact(m, a, b, ccb_v3_add(XA->p, ccb_v3_scale(sc, u)), m->shapes[a].def.radius,
                        ws->X[b].p, m->shapes[b].def.radius, margin, out);
}

static ccb_status box_sphere_contact(const ccb_model* m, const geo_ws* ws, int a, int b,
                                     double margin, ccb_contact_set* out) {
    const ccb_pose* XA = &ws->X[a];
    const ccb_vec3 hv = m->shapes[a].def.half_extents;
    const double h[3] = {hv.x, hv.y, hv.z};
    const double rb = m->shapes[b].def.radius;
    const ccb_vec3 cb = ws->X[b].p;
    const ccb_vec3 cl = ccb_m3_tmul_v(&XA->R, ccb_v3_sub(cb, XA->p));
    const double c[3] = {cl.x, cl.y, cl.z};
    double q[3], nl[3] = {0, 0, 0}, phi;
    int inside = 1;
    for (int i = 0; i < 3; ++i) {
        q[i] = c[i] < -h[i] ? -h[i] : (c[i] > h[i] ? h[i] : c[i]);
        inside &= q[i] == c[i];
    }
    if (!inside) {
        const double d[3] = {c[0] - q[0], c[1] - q[1], c[2] - q[2]};
        const double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        phi = dist - rb;
        for (int i = 0; i < 3; ++i) {
            nl[i] = d[i] / dist;
        }
    } else {
        int ax = 0;
        for (int i = 1; i < 3; ++i) {
            if (h[i] - fabs(c[i]) < h[ax] - fabs(c[ax])) {
                ax = i;
            }
        }
        const double sgn = c[ax] >= 0 ? 1.0 : -1.0;
        phi = -(h[ax] - fabs(c[ax])) - rb;
        nl[ax] = sgn;
        q[ax] = sgn * h[ax];
    }
    if (!(phi < margin)) {
        return CCB_OK;
    }
    const ccb_vec3 n = ccb_m3_mul_v(&XA->R, ccb_v3(nl[0], nl[1], nl[2]));
    const ccb_vec3 pA = ccb_v3_add(XA->p, ccb_m3_mul_v(&XA->R, ccb_v3(q[0], q[1], q[2])));
    return emit(m, a, b, 0, phi, n, pA, ccb_v3_sub(cb, ccb_v3_scale(rb, n)), out);
}

/* Hydroelastic pairs, one point contact per face (spec: formulation-tamsi-hydro §F.4): a rigid
 * half-space A against a compliant mesh B (`kind` CCB_PAIR_HALFSPACE_HYDRO: the slice of B's
 * tetrahedra), a compliant half-space A against a rigid mesh B (CCB_PAIR_SOFT_HALFSPACE_HYDRO: B's
 * surface triangles clipped to A), or a mesh A, rigid or compliant, against a compliant mesh B
 * (CCB_PAIR_HYDRO_MESHES: formulation-tamsi-hydro §F.2, the general cases). At the face centroid
 * k = A g, phi0 = -p0/g, normal from A into B (the plane's normal, or the face's); dissipation,
 * relaxation time and friction from the pair rule. Feature = face index. */
static ccb_status hydro_contacts(const ccb_model* m, geo_ws* ws, int a, int b, ccb_pair_kind kind,
                                 ccb_contact_set* out, char* msg, size_t msz) {
    const ccb_pose* XH = &ws->X[a];
    const ccb_vec3 n = ccb_m3_col(&XH->R, 2);
    const ccb_shape* sa = &m->shapes[a];
    const ccb_shape* sb = &m->shapes[b];
    ccb_status s;
    if (kind == CCB_PAIR_HYDRO_MESHES) {
        const int flags = isinf(sa->def.material.k) ? CCB_HYDRO_RIGID_B : 0;
        s = ccb_hydro_intersect(sb->mesh, &ws->X[b], sa->mesh, XH, flags, sb->def.hydro_repr,
                                &ws->hs, msg, msz);
    } else if (kind == CCB_PAIR_SOFT_HALFSPACE_HYDRO) {
        s = ccb_hydro_clip(sb->mesh, &ws->X[b], XH->p, n, sa->def.material.k, sa->def.hydro_slab,
                           sa->def.hydro_repr, &ws->hs, msg, msz);
    } else {
        s = ccb_hydro_slice(sb->mesh, &ws->X[b], XH->p, n, sb->def.hydro_repr, &ws->hs, msg, msz);
    }
    if (s != CCB_OK) {
        return s;
    }
    const int soft = kind != CCB_PAIR_HALFSPACE_HYDRO; /* a normal per face */
    ccb_contact c;
    double wa;
    c.material = ccb_shape_pair_material(m, a, b, &wa);
    c.body_a = sa->body;
    c.body_b = sb->body;
    c.shape_a = a;
    c.shape_b = b;
    if (!soft) {
        set_normal(&c.R_WC, n);
    }
    for (int f = 0; f < ws->hs.n; ++f) {
        const ccb_hydro_face* fc = &ws->hs.faces[f];
        c.feature = f;
        if (soft) {
            set_normal(&c.R_WC, fc->normal); /* the face's normal, from A into B */
        }
        c.phi0 = -fc->pressure / fc->gradient;  /* P2 eq. 16 */
        c.material.k = fc->area * fc->gradient; /* P2 eq. 15 */
        c.p = fc->centroid;
        if (add_contact(out, &c) != CCB_OK) {
            return ccb_errorf(msg, msz, CCB_E_NOMEM, "geometry_query: out of memory");
        }
    }
    return CCB_OK;
}

/* Narrow phase of the shape pair (i, j), both known to be active. */
static ccb_status pair_contacts(const ccb_model* m, geo_ws* ws, int i, int j, double margin,
                                ccb_contact_set* out, char* msg, size_t msz) {
    int a, b;
    const ccb_pair_kind kind = ccb_shape_pair_kind(m, i, j, &a, &b);
    switch (kind) {
    case CCB_PAIR_HALFSPACE_HYDRO:
    case CCB_PAIR_SOFT_HALFSPACE_HYDRO:
    case CCB_PAIR_HYDRO_MESHES: return hydro_contacts(m, ws, a, b, kind, out, msg, msz);
    case CCB_PAIR_HALFSPACE: return halfspace_contacts(m, ws, a, b, margin, out);
    case CCB_PAIR_SPHERES: return sphere_contact(m, ws, a, b, margin, out);
    case CCB_PAIR_BOX_SPHERE: return box_sphere_contact(m, ws, a, b, margin, out);
    case CCB_PAIR_CAPSULE_SPHERE: return capsule_sphere_contact(m, ws, a, b, margin, out);
    case CCB_PAIR_NONE: return CCB_OK; /* filtered pair (checked at finalize) */
    }
    return CCB_OK;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* The value of rank k (0-based) of a[0..n-1] (finite, 0 <= k < n), i.e. what a sort would leave
 * in a[k]: Hoare's selection, a reordered in place (expected O(n), against the O(n log n) of
 * the sort it replaces once per query). */
static double kth_smallest(double* a, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const double pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) {
                i++;
            }
            while (a[j] > pivot) {
                j--;
            }
            if (i <= j) {
                const double t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            break; /* a[j + 1 .. i - 1] all equal the pivot */
        }
    }
    return a[k];
}

static ccb_status reserve_ws(ccb_contact_set* out, const ccb_model* m) {
    geo_ws* ws = out->ws;
    if (ws == NULL) {
        ws = ccb_calloc(1, sizeof(geo_ws));
        if (ws == NULL) {
            return CCB_E_NOMEM;
        }
        out->ws = ws;
    }
    if (ws->model != m) {
        ws->model = m;
        ws->hibits = 1; /* bits of the largest shape index */
        while (ws->hibits < 32 && ((int64_t)1 << ws->hibits) < m->nshapes) {
            ws->hibits++;
        }
        ws->nsmall = -1; /* classify below */
    }
    void** const arr[] = {(void**)&ws->X,      (void**)&ws->small,  (void**)&ws->large,
                          (void**)&ws->gk,     (void**)&ws->gt,     (void**)&ws->cells,
                          (void**)&ws->cstart, (void**)&ws->gshape, (void**)&ws->gstart,
                          (void**)&ws->gbody,  (void**)&ws->gc,     (void**)&ws->gr,
                          (void**)&ws->gsmall, (void**)&ws->glarge, (void**)&ws->glazy,
                          (void**)&ws->gp,     (void**)&ws->gb};
    const size_t sz[] = {
        sizeof(ccb_pose), sizeof(int),    sizeof(int), sizeof(uint64_t), sizeof(uint64_t),
        sizeof(uint64_t), sizeof(int),    sizeof(int), sizeof(int),      sizeof(int),
        sizeof(ccb_vec3), sizeof(double), sizeof(int), sizeof(int),      1,
        sizeof(ccb_vec3), sizeof(double)};
    void** const arr_b[] = {(void**)&ws->bp, (void**)&ws->bgroup};
    const size_t sz_b[] = {sizeof(ccb_vec3), sizeof(int)};
    if ((ws->cap < m->nshapes + 1 && ccb_grow_many(arr, sz, 17, &ws->cap, m->nshapes + 1)) ||
        ccb_grow_many(arr_b, sz_b, 2, &ws->cap_b, m->nbodies > 0 ? m->nbodies : 1)) {
        return CCB_E_NOMEM;
    }
    if (ws->nsmall < 0) { /* small: bound <= 4 x the median bound (most shapes of a scene) */
        double* b = (double*)ws->gk;
        for (int k = 0; k < m->nbounded; ++k) {
            b[k] = m->shapes[m->bounded[k]].bound;
        }
        qsort(b, (size_t)m->nbounded, sizeof(double), cmp_double);
        const double limit = m->nbounded ? 4.0 * b[m->nbounded / 2] : 0.0;
        ws->nsmall = ws->nlarge = 0;
        for (int k = 0; k < m->nbounded; ++k) {
            const int s = m->bounded[k];
            if (m->shapes[s].bound <= limit) {
                ws->small[ws->nsmall++] = s;
            } else {
                ws->large[ws->nlarge++] = s;
            }
        }
        /* groups: the small shapes by body (a counting sort keeps them ascending) */
        int* first = ccb_alloc((size_t)(m->nbodies + 1) * sizeof(int));
        if (first == NULL) {
            ws->nsmall = -1;
            return CCB_E_NOMEM;
        }
        memset(first, 0, (size_t)(m->nbodies + 1) * sizeof(int));
        for (int k = 0; k < ws->nsmall; ++k) {
            first[m->shapes[ws->small[k]].body + 1]++;
        }
        ws->ngroup = 0;
        for (int b0 = 0; b0 < m->nbodies; ++b0) {
            if (first[b0 + 1] > 0) {
                ws->gbody[ws->ngroup++] = b0;
            }
            first[b0 + 1] += first[b0];
        }
        for (int k = 0; k < ws->nsmall; ++k) { /* small[] is ascending: so is every group */
            ws->gshape[first[m->shapes[ws->small[k]].body]++] = ws->small[k];
        }
        for (int g = 0; g < ws->ngroup; ++g) { /* first[b] is now where body b + 1 starts */
            ws->gstart[g + 1] = first[ws->gbody[g]];
        }
        ws->gstart[0] = 0;
        ccb_free(first);
        for (int b0 = 0; b0 < m->nbodies; ++b0) {
            ws->bgroup[b0] = -1;
        }
        for (int g = 0; g < ws->ngroup; ++g) {
            ws->bgroup[ws->gbody[g]] = g;
        }
        for (int g = 0; g < ws->ngroup; ++g) { /* may the group's body be part of a lazy pair */
            const ccb_body* bd = &m->bodies[ws->gbody[g]];
            int ok = bd->nv > 0 && ccb_clique_is_single(m, bd->clique);
            const ccb_material* m0 = &m->shapes[ws->gshape[ws->gstart[g]]].def.material;
            for (int k = ws->gstart[g] + 1; k < ws->gstart[g + 1] && ok; ++k) {
                const ccb_material* mk = &m->shapes[ws->gshape[k]].def.material;
                ok = mk->k == m0->k && mk->d == m0->d && mk->tau_d == m0->tau_d &&
                     mk->mu == m0->mu && mk->mu2 == m0->mu2;
            }
            ws->glazy[g] = (unsigned char)ok;
        }
        ws->gbits = 1;
        while (ws->gbits < 32 && ((int64_t)1 << ws->gbits) < ws->ngroup) {
            ws->gbits++;
        }
    }
    return CCB_OK;
}

ccb_status ccb_geo_add_candidate(geo_ws* ws, int i, int j) {
    if (ws->ncand == ws->cap_cand) {
        void** const arr[] = {(void**)&ws->cand, (void**)&ws->tmp};
        const size_t sz[] = {sizeof(uint64_t), sizeof(uint64_t)};
        if (ccb_grow_many(arr, sz, 2, &ws->cap_cand, ws->ncand + 1) != CCB_OK) {
            return CCB_E_NOMEM;
        }
    }
    const uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    ws->cand[ws->ncand++] = lo << ws->hibits | hi; /* (lo, hi) order, as few bytes as it takes */
    return CCB_OK;
}

/* The exact test's distance part: grown bounding spheres overlapping,
 * |c_j - c_i| < bound_i + bound_j + margin. */
static ccb_status test_pair_reach(const ccb_model* m, geo_ws* ws, int i, int j, double margin) {
    const ccb_vec3 d = ccb_v3_sub(ws->X[j].p, ws->X[i].p);
    const double reach = m->shapes[i].bound + m->shapes[j].bound + margin;
    return ccb_v3_dot(d, d) >= reach * reach ? CCB_OK : ccb_geo_add_candidate(ws, i, j);
}

/* The exact broad-phase test of two bounded shapes: an active pair (different bodies, one
 * moving, not filtered) in reach. Group pairs decide activity once per body pair and call
 * test_pair_reach. */
static ccb_status test_pair(const ccb_model* m, geo_ws* ws, int i, int j, double margin) {
    return ccb_shape_pair_active(m, i, j) ? test_pair_reach(m, ws, i, j, margin) : CCB_OK;
}

/* Every shape pair of groups g and h (different bodies) through the exact test; a shape whose
 * sphere does not reach h's sphere skips its row. */
static ccb_status group_pair(const ccb_model* m, geo_ws* ws, int g, int h, double margin) {
    if (!ccb_geo_groups_in_reach(ws->gc[g], ws->gr[g], ws->gc[h], ws->gr[h], margin) ||
        !ccb_shape_pair_active(m, ws->gshape[ws->gstart[g]], ws->gshape[ws->gstart[h]])) {
        return CCB_OK; /* out of reach, or a pair of bodies that makes no contact */
    }
    ccb_status s = CCB_OK;
    if (ws->lazy && ws->glazy[g] && ws->glazy[h]) {
        return ccb_geo_lazy_group_pair(m, ws, g, h, margin);
    }
    for (int k = ws->gstart[g]; k < ws->gstart[g + 1] && s == CCB_OK; ++k) {
        const ccb_vec3 ci = ws->gp[k];
        const double bi = ws->gb[k];
        if (!ccb_geo_groups_in_reach(ci, bi, ws->gc[h], ws->gr[h], margin)) {
            continue; /* shape k reaches no shape of h */
        }
        for (int l = ws->gstart[h]; l < ws->gstart[h + 1] && s == CCB_OK; ++l) {
            /* test_pair_reach's test on the group's copies */
            const ccb_vec3 d = ccb_v3_sub(ws->gp[l], ci);
            const double reach = bi + ws->gb[l] + margin;
            if (ccb_v3_dot(d, d) < reach * reach) {
                s = ccb_geo_add_candidate(ws, ws->gshape[k], ws->gshape[l]);
            }
        }
    }
    return s;
}

/* The grid cell of the point c (the last query's grid: grid_lo, grid_h, grid_dim). */
static uint64_t grid_cell(const geo_ws* ws, ccb_vec3 c) {
    const double h = ws->grid_h;
    const uint64_t ix = (uint64_t)floor((c.x - ws->grid_lo[0]) / h),
                   iy = (uint64_t)floor((c.y - ws->grid_lo[1]) / h),
                   iz = (uint64_t)floor((c.z - ws->grid_lo[2]) / h);
    return (ix * ws->grid_dim[1] + iy) * ws->grid_dim[2] + iz;
}

/* The index of the cell `key` among the unique cells from index `from` on, -1 if absent. */
static int find_cell(const geo_ws* ws, int from, uint64_t key) {
    int a = from, b = ws->grid_nc; /* binary search */
    while (a < b) {
        const int mid = a + (b - a) / 2;
        if (ws->cells[mid] < key) {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    return a < ws->grid_nc && ws->cells[a] == key ? a : -1;
}

/* The large shape i against every shape of group g (bounded_pairs): a lazy pair of a wall and
 * the group where it may be one, else the exact test of each shape. */
static ccb_status large_group_pair(const ccb_model* m, geo_ws* ws, int i, int g, double margin) {
    if (!ccb_geo_groups_in_reach(ws->X[i].p, m->shapes[i].bound, ws->gc[g], ws->gr[g], margin) ||
        !ccb_shape_pair_active(m, i, ws->gshape[ws->gstart[g]])) {
        return CCB_OK;
    }
    ccb_status s = CCB_OK;
    if (ws->lazy && ws->glazy[g] && m->shapes[i].def.type == CCB_SHAPE_BOX &&
        m->bodies[m->shapes[i].body].nv == 0 && ccb_geo_lazy_wall_group(m, ws, i, g, margin, &s)) {
        return s;
    }
    for (int k = ws->gstart[g]; k < ws->gstart[g + 1] && s == CCB_OK; ++k) {
        s = test_pair_reach(m, ws, i, ws->gshape[k], margin);
    }
    return s;
}

/* Bounded pairs, in two levels. The small shapes of a body form a group with a sphere about the
 * body's origin that holds their grown spheres; only groups in reach test their shape pairs.
 * Small groups go to a uniform grid of cells of side h >= 2 max radius + margin (two groups in
 * reach lie in the same or adjacent cells), keyed (cell << gbits | group) and radix-sorted;
 * each cell meets itself and its 13 neighbours that follow it. Large groups (radius above 4 x
 * the median) meet every group, large shapes (walls) every group and every large shape. Linear
 * in the bodies for a scene of similar objects; the candidate set is the one the exact test of
 * every shape pair gives. */
/* (About 150 lines: the two levels above share the groups and the grid they build.) */
static ccb_status bounded_pairs(const ccb_model* m, geo_ws* ws, double margin) {
    ccb_status s = CCB_OK;
    const int ng = ws->ngroup;
    if (ng + ws->nlarge < 2) {
        return CCB_OK; /* one body's shapes or none (the rod, the sphere): no pair */
    }
    /* group spheres */
    for (int g = 0; g < ng; ++g) {
        const ccb_vec3 c = ws->bp[ws->gbody[g]];
        double r = 0.0;
        for (int k = ws->gstart[g]; k < ws->gstart[g + 1]; ++k) {
            const int sh = ws->gshape[k];
            ws->gp[k] = ws->X[sh].p;
            ws->gb[k] = m->shapes[sh].bound;
            const double e = ccb_v3_norm(ccb_v3_sub(ws->gp[k], c)) + ws->gb[k];
            r = e > r ? e : r; /* fmax for the finite poses checked above, without its call */
        }
        ws->gc[g] = c;
        ws->gr[g] = r;
    }
    for (int a = 0; a < ws->nlarge && s == CCB_OK; ++a) { /* large shapes against everything */
        const int i = ws->large[a];
        for (int b = a + 1; b < ws->nlarge && s == CCB_OK; ++b) {
            s = test_pair(m, ws, i, ws->large[b], margin);
        }
        for (int g = 0; g < ng && s == CCB_OK; ++g) {
            s = large_group_pair(m, ws, i, g, margin);
        }
    }
    ws->grid_nc = 0; /* no grid yet (ccb_geo_requery_lazy) */
    if (ng < 2 || s != CCB_OK) {
        return s;
    }
    /* small and large groups: the median radius */
    double* rs = (double*)ws->gt;
    memcpy(rs, ws->gr, (size_t)ng * sizeof(double));
    const double limit = 4.0 * kth_smallest(rs, ng, ng / 2);
    ws->glimit = limit;
    double rmax = 0.0;
    ws->ngsmall = ws->nglarge = 0;
    for (int g = 0; g < ng; ++g) {
        if (ws->gr[g] <= limit) {
            ws->gsmall[ws->ngsmall++] = g;
            rmax = fmax(rmax, ws->gr[g]);
        } else {
            ws->glarge[ws->nglarge++] = g;
        }
    }
    for (int a = 0; a < ws->nglarge && s == CCB_OK; ++a) { /* large groups against every group */
        const int g = ws->glarge[a];
        for (int h = 0; h < ng && s == CCB_OK; ++h) {
            if (h != g && (ws->gr[h] <= limit || h > g)) {
                s = group_pair(m, ws, g, h, margin);
            }
        }
    }
    const int n = ws->ngsmall;
    if (n < 2 || s != CCB_OK) {
        return s;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < n; ++k) {
        const ccb_vec3 c = ws->gc[ws->gsmall[k]];
        const double x[3] = {c.x, c.y, c.z};
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(lo[d], x[d]);
            hi[d] = fmax(hi[d], x[d]);
        }
    }
    double h = (2.0 * rmax + margin) * (1.0 + 1e-9);
    if (!(h > 0)) {
        h = 1.0;
    }
    /* coarser cells until the cell index and the group index fit one key (always correct) */
    uint64_t dim[3];
    for (;;) {
        double cells = 1.0;
        for (int d = 0; d < 3; ++d) {
            cells *= floor((hi[d] - lo[d]) / h) + 1.0;
        }
        if (cells * (double)((uint64_t)1 << ws->gbits) < 0x1p62) {
            break;
        }
        h *= 2.0;
    }
    for (int d = 0; d < 3; ++d) {
        dim[d] = (uint64_t)floor((hi[d] - lo[d]) / h) + 1;
        ws->grid_lo[d] = lo[d];
        ws->grid_dim[d] = dim[d];
    }
    ws->grid_h = h;
    for (int k = 0; k < n; ++k) {
        const int g = ws->gsmall[k];
        ws->gk[k] = grid_cell(ws, ws->gc[g]) << ws->gbits | (uint64_t)g;
    }
    ccb_sort_u64(ws->gk, ws->gt, (size_t)n);
    int nc = 0; /* unique cells */
    for (int k = 0; k < n; ++k) {
        const uint64_t cell = ws->gk[k] >> ws->gbits;
        if (nc == 0 || ws->cells[nc - 1] != cell) {
            ws->cells[nc] = cell;
            ws->cstart[nc++] = k;
        }
    }
    ws->cstart[nc] = n;
    ws->grid_nc = nc;
    const uint64_t mask = ((uint64_t)1 << ws->gbits) - 1;
    for (int u = 0; u < nc && s == CCB_OK; ++u) {
        const uint64_t cell = ws->cells[u];
        const int64_t iz = (int64_t)(cell % dim[2]), iy = (int64_t)((cell / dim[2]) % dim[1]),
                      ix = (int64_t)(cell / (dim[2] * dim[1]));
        for (int k = ws->cstart[u]; k < ws->cstart[u + 1] && s == CCB_OK; ++k) { /* in the cell */
            for (int l = k + 1; l < ws->cstart[u + 1] && s == CCB_OK; ++l) {
                s = group_pair(m, ws, (int)(ws->gk[k] & mask), (int)(ws->gk[l] & mask), margin);
            }
        }
        for (int o = 14; o < 27 && s == CCB_OK; ++o) { /* the 13 neighbours after it */
            const int64_t jx = ix + o / 9 - 1, jy = iy + (o / 3) % 3 - 1, jz = iz + o % 3 - 1;
            if (jx < 0 || jy < 0 || jz < 0 || jx >= (int64_t)dim[0] || jy >= (int64_t)dim[1] ||
                jz >= (int64_t)dim[2]) {
                continue;
            }
            const uint64_t key = ((uint64_t)jx * dim[1] + (uint64_t)jy) * dim[2] + (uint64_t)jz;
            const int a = find_cell(ws, u + 1, key); /* among the cells after u */
            if (a < 0) {
                continue;
            }
            for (int k = ws->cstart[u]; k < ws->cstart[u + 1] && s == CCB_OK; ++k) {
                for (int l = ws->cstart[a]; l < ws->cstart[a + 1] && s == CCB_OK; ++l) {
                    s = group_pair(m, ws, (int)(ws->gk[k] & mask), (int)(ws->gk[l] & mask), margin);
                }
            }
        }
    }
    return s;
}

/* The narrow phase of the candidates in the canonical order, the contacts appended to out. */
static ccb_status narrow_phase(const ccb_model* m, geo_ws* ws, double margin, ccb_contact_set* out,
                               char* msg, size_t msg_size) {
    const int from = out->n;
    ccb_sort_u64(ws->cand, ws->tmp, (size_t)ws->ncand);
    for (int k = 0; k < ws->ncand; ++k) {
        const int i = (int)(ws->cand[k] >> ws->hibits),
                  j = (int)(ws->cand[k] & ((UINT64_C(1) << ws->hibits) - 1));
        const ccb_status s = pair_contacts(m, ws, i, j, margin, out, msg, msg_size);
        if (s != CCB_OK) {
            return s == CCB_E_NOMEM
                       ? ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory")
                       : s;
        }
    }
    frames_from_normals(ws, out, from);
    return CCB_OK;
}

ccb_status ccb_geometry_query(const ccb_model* m, double t, const double* q, double margin,
                              ccb_contact_set* out, char* msg, size_t msg_size) {
    return ccb_geometry_query_lazy(m, t, q, margin, NULL, NULL, out, msg, msg_size);
}

ccb_status ccb_geometry_query_lazy(const ccb_model* m, double t, const double* q, double margin,
                                   ccb_lazy_pair_fn lazy, void* ctx, ccb_contact_set* out,
                                   char* msg, size_t msg_size) {
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
    out->npairs = 0;
    if (reserve_ws(out, m) != CCB_OK) {
        return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
    }
    geo_ws* ws = out->ws;
    ws->lazy_valid = 0;
    ws->ncand = 0;
    ws->lazy = lazy;
    ws->lazy_ctx = ctx;
    ws->out = out;
    /* world poses of every shape */
    int last = -1; /* a body's shapes are often consecutive: one pose per run of them */
    ccb_pose XB;
    int rot_ok = 1;
    for (int s = 0; s < m->nshapes; ++s) {
        const ccb_shape* sh = &m->shapes[s];
        const ccb_body* bd = &m->bodies[sh->body];
        if (sh->body != last) {
            ccb_model_pose_of(m, sh->body, t, q, &XB);
            ws->bp[sh->body] = XB.p;
            last = sh->body;
            rot_ok = ccb_all_finite(XB.R.m, 9);
        }
        const int sphere = sh->def.type == CCB_SHAPE_SPHERE;
        if (sphere) { /* no test reads a sphere's own orientation (its support point is its
                       * centre): the body's, checked once per body (rot_ok) */
            ws->X[s].p = ccb_v3_add(XB.p, ccb_m3_mul_v(&XB.R, sh->def.pose.p));
            ws->X[s].R = XB.R;
        } else {
            ws->X[s] = ccb_pose_compose(&XB, &sh->def.pose);
        }
        if (!rot_ok || !ccb_v3_isfinite(ws->X[s].p) ||
            (!sphere && !ccb_all_finite(ws->X[s].R.m, 9))) {
            return ccb_errorf(msg, msg_size, CCB_E_NONFINITE,
                              "geometry_query: non-finite pose of body '%s' at t = %g", bd->name,
                              t);
        }
    }
    /* half-spaces against every bounded shape */
    for (int h = 0; h < m->nhalfspaces; ++h) {
        const int a = m->halfspaces[h];
        const ccb_vec3 n = ccb_m3_col(&ws->X[a].R, 2);
        for (int k = 0; k < m->nbounded; ++k) {
            const int b = m->bounded[k];
            const double d = ccb_v3_dot(n, ccb_v3_sub(ws->X[b].p, ws->X[a].p));
            if (d - m->shapes[b].bound >= margin || !ccb_shape_pair_active(m, a, b)) {
                continue;
            }
            if (ccb_geo_add_candidate(ws, a, b) != CCB_OK) {
                return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
            }
        }
    }
    /* bounded pairs */
    if (bounded_pairs(m, ws, margin) != CCB_OK) {
        return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
    }
    if (out->npairs > 1) {
        if (ccb_geo_sort_pairs(ws, out) != CCB_OK) {
            return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
        }
    }
    const ccb_status s = narrow_phase(m, ws, margin, out, msg, msg_size);
    ws->lazy_valid = s == CCB_OK && lazy != NULL;
    return s;
}

/* A contact's shape pair as the canonical order sorts it: (lower, higher) shape index. */
static uint64_t contact_key(const ccb_contact* c) {
    const uint64_t a = (uint64_t)c->shape_a, b = (uint64_t)c->shape_b;
    return a < b ? a << 32 | b : b << 32 | a;
}

/* The bounded pairs of ccb_geo_requery_lazy: those of bounded_pairs with a body flagged in chg,
 * each made by the function bounded_pairs makes it with, its two groups in the same order (the
 * lower grid key first: a group pair's lazy bound depends on the order), so its lazy pair and
 * candidates are those of a whole query. Pairs of two flagged groups are made once, from the
 * lower group index. */
static ccb_status changed_pairs(const ccb_model* m, geo_ws* ws, const unsigned char* chg,
                                double margin) {
    ccb_status s = CCB_OK;
    const int ng = ws->ngroup;
    if (ng + ws->nlarge < 2) {
        return CCB_OK;
    }
    for (int a = 0; a < ws->nlarge && s == CCB_OK; ++a) {
        const int i = ws->large[a], ci = chg[m->shapes[i].body];
        for (int b = a + 1; b < ws->nlarge && s == CCB_OK; ++b) {
            if (ci || chg[m->shapes[ws->large[b]].body]) {
                s = test_pair(m, ws, i, ws->large[b], margin);
            }
        }
        for (int g = 0; g < ng && s == CCB_OK; ++g) {
            if (ci || chg[ws->gbody[g]]) {
                s = large_group_pair(m, ws, i, g, margin);
            }
        }
    }
    if (ng < 2 || s != CCB_OK) {
        return s;
    }
    const double limit = ws->glimit;
    for (int a = 0; a < ws->nglarge && s == CCB_OK; ++a) {
        const int g = ws->glarge[a], cg = chg[ws->gbody[g]];
        for (int h = 0; h < ng && s == CCB_OK; ++h) {
            if (h != g && (ws->gr[h] <= limit || h > g) && (cg || chg[ws->gbody[h]])) {
                s = group_pair(m, ws, g, h, margin);
            }
        }
    }
    if (ws->grid_nc == 0) {
        return s;
    }
    const uint64_t mask = ((uint64_t)1 << ws->gbits) - 1, *dim = ws->grid_dim;
    for (int g = 0; g < ng && s == CCB_OK; ++g) {
        if (!chg[ws->gbody[g]] || !(ws->gr[g] <= limit)) {
            continue; /* not flagged, or a large group (above) */
        }
        const uint64_t cell = grid_cell(ws, ws->gc[g]), kg = cell << ws->gbits | (uint64_t)g;
        const int64_t iz = (int64_t)(cell % dim[2]), iy = (int64_t)((cell / dim[2]) % dim[1]),
                      ix = (int64_t)(cell / (dim[2] * dim[1]));
        for (int o = 0; o < 27 && s == CCB_OK; ++o) { /* its cell and the 26 around it */
            const int64_t jx = ix + o / 9 - 1, jy = iy + (o / 3) % 3 - 1, jz = iz + o % 3 - 1;
            if (jx < 0 || jy < 0 || jz < 0 || jx >= (int64_t)dim[0] || jy >= (int64_t)dim[1] ||
                jz >= (int64_t)dim[2]) {
                continue;
            }
            const uint64_t key = ((uint64_t)jx * dim[1] + (uint64_t)jy) * dim[2] + (uint64_t)jz;
            const int u = find_cell(ws, 0, key);
            for (int l = u < 0 ? 0 : ws->cstart[u]; u >= 0 && l < ws->cstart[u + 1] && s == CCB_OK;
                 ++l) {
                const int h = (int)(ws->gk[l] & mask);
                if (h == g || (chg[ws->gbody[h]] && h < g)) {
                    continue; /* itself, or a flagged group that made the pair */
                }
                s = kg < ws->gk[l] ? group_pair(m, ws, g, h, margin)
                                   : group_pair(m, ws, h, g, margin);
            }
        }
    }
    return s;
}

ccb_status ccb_geo_requery_lazy(const ccb_model* m, double margin, ccb_lazy_pair_fn lazy, void* ctx,
                                const unsigned char* changed, ccb_contact_set* out, char* msg,
                                size_t msg_size) {
    geo_ws* ws = out != NULL ? out->ws : NULL;
    if (m == NULL || ws == NULL || lazy == NULL || changed == NULL || !ws->lazy_valid ||
        ws->model != m) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                          "geometry requery: the contact set holds no lazy query of this model");
    }
    ws->lazy_valid = 0; /* until this one is complete */
    ws->ncand = 0;
    ws->lazy = lazy;
    ws->lazy_ctx = ctx;
    ws->out = out;
    /* kept: the contacts of the pairs decided as before (no flagged body, or a half-space:
     * half-space pairs are never lazy) and the lazy pairs of no flagged body, in their order */
    int nk = 0;
    for (int k = 0; k < out->n; ++k) {
        const ccb_contact* c = &out->items[k];
        if ((!changed[c->body_a] && !changed[c->body_b]) ||
            m->shapes[c->shape_a].def.type == CCB_SHAPE_HALFSPACE ||
            m->shapes[c->shape_b].def.type == CCB_SHAPE_HALFSPACE) {
            out->items[nk++] = *c;
        }
    }
    out->n = nk;
    int np = 0;
    for (int k = 0; k < out->npairs; ++k) {
        if (!changed[out->pairs[k].body_a] && !changed[out->pairs[k].body_b]) {
            out->pairs[np++] = out->pairs[k];
        }
    }
    out->npairs = np;
    if (changed_pairs(m, ws, changed, margin) != CCB_OK ||
        (out->npairs > 1 && ccb_geo_sort_pairs(ws, out) != CCB_OK)) {
        return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
    }
    const ccb_status s = narrow_phase(m, ws, margin, out, msg, msg_size);
    if (s != CCB_OK) {
        return s;
    }
    if (nk > 0 && nk < out->n) { /* the kept and the new contacts merged in the canonical order */
        if (ccb_grow((void**)&ws->ct, &ws->cap_ct, out->n, sizeof(ccb_contact)) != CCB_OK) {
            return ccb_errorf(msg, msg_size, CCB_E_NOMEM, "geometry_query: out of memory");
        }
        const ccb_contact* c = out->items;
        int a = 0, b = nk, o = 0;
        while (a < nk && b < out->n) {
            ws->ct[o++] = contact_key(&c[b]) < contact_key(&c[a]) ? c[b++] : c[a++];
        }
        while (a < nk) {
            ws->ct[o++] = c[a++];
        }
        while (b < out->n) {
            ws->ct[o++] = c[b++];
        }
        ccb_contact* t = out->items;
        const int cap = out->cap;
        out->items = ws->ct;
        out->cap = ws->cap_ct;
        ws->ct = t;
        ws->cap_ct = cap;
    }
    ws->lazy_valid = 1;
    return CCB_OK;
}
