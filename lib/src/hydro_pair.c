/* hydro_pair: the contact surface of a compliant tetrahedral mesh with a rigid triangle mesh or
 * with another compliant mesh (spec: formulation-tamsi-hydro §F.2, general cases; §F.7 the
 * search). See ccb_hydro_intersect in ccb/hydro.h. */
#include <math.h>
#include <string.h>

#include "ccb/alloc.h"
#include "hydro_internal.h"
#include "internal.h"

/* Working polygons: a plane cut by a tetrahedron has at most 4 vertices and each of the other
 * tetrahedron's 4 planes adds at most one (8, CCB_HYDRO_MAX_POLYGON); round-off on a sliver can
 * add sign changes, so the buffers are larger and a longer result is dropped (zero area up to
 * round-off). */
#define WORK_POLY 24

/* The inward half-spaces of a positively oriented tetrahedron x[0..3]: (x - o[k]) . nin[k] >= 0
 * on the face opposite vertex k. */
static void tet_planes(const ccb_vec3* x, ccb_vec3* o, ccb_vec3* nin) {
    static const int f[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    for (int k = 0; k < 4; ++k) {
        const ccb_vec3 a = x[f[k][0]];
        ccb_vec3 n = ccb_v3_cross(ccb_v3_sub(x[f[k][1]], a), ccb_v3_sub(x[f[k][2]], a));
        if (ccb_v3_dot(n, ccb_v3_sub(x[k], a)) < 0) {
            n = ccb_v3_scale(-1.0, n);
        }
        o[k] = a;
        nin[k] = n;
    }
}

/* Sutherland-Hodgman: the part of polygon v (m vertices) with (x - o) . n >= 0, into w; returns
 * its vertex count (0 if none, -1 if longer than WORK_POLY). */
static int clip_plane(const ccb_vec3* v, int m, ccb_vec3 o, ccb_vec3 n, ccb_vec3* w) {
    double d[WORK_POLY];
    int nin = 0;
    for (int i = 0; i < m; ++i) {
        d[i] = ccb_v3_dot(ccb_v3_sub(v[i], o), n);
        nin += d[i] >= 0;
    }
    if (nin == m) {
        memcpy(w, v, (size_t)m * sizeof(ccb_vec3));
        return m;
    }
    int k = 0;
    for (int i = 0; i < m; ++i) {
        const int j = (i + 1) % m;
        if (d[i] >= 0) {
            if (k == WORK_POLY) {
                return -1;
            }
            w[k++] = v[i];
        }
        if ((d[i] >= 0) != (d[j] >= 0)) {
            if (k == WORK_POLY) {
                return -1;
            }
            const double t = d[i] / (d[i] - d[j]);
            w[k++] = ccb_v3_add(v[i], ccb_v3_scale(t, ccb_v3_sub(v[j], v[i])));
        }
    }
    return k;
}

/* Clips polygon v (m vertices, in place) to the tetrahedron with inward planes (o, nin). */
static int clip_tet(ccb_vec3* v, int m, const ccb_vec3* o, const ccb_vec3* nin) {
    ccb_vec3 w[WORK_POLY];
    for (int k = 0; k < 4 && m > 0; ++k) {
        m = clip_plane(v, m, o[k], nin[k], w);
        if (m > 0) {
            memcpy(v, w, (size_t)m * sizeof(ccb_vec3));
        }
    }
    return m;
}

/* World positions of the element's vertices. */
static void world_verts(const ccb_hydro_mesh* m, const ccb_pose* X, const int* idx, int nv,
                        ccb_vec3* w) {
    for (int k = 0; k < nv; ++k) {
        w[k] = ccb_v3_add(X->p, ccb_m3_mul_v(&X->R, m->x[idx[k]]));
    }
}

/* The slice of tetrahedron x[0..3] (global vertex ids id[]) by the plane of signed heights h[]
 * (a vertex is above iff h > 0), counter-clockwise about n, into v; its vertex count (0 if the
 * plane misses). Cut points are taken from the lower-indexed vertex of the edge. */
static int slice_tet(const ccb_vec3* x, const int* id, const double* h, ccb_vec3 n, ccb_vec3* v) {
    int in[4], up[4], nin = 0, nup = 0;
    for (int k = 0; k < 4; ++k) {
        if (h[k] > 0) {
            up[nup++] = k;
        } else {
            in[nin++] = k;
        }
    }
    if (nin == 0 || nup == 0) {
        return 0;
    }
#define CUT(i, j)                                                                                  \
    (id[i] < id[j] ? ccb_v3_add(x[i], ccb_v3_scale(h[i] / (h[i] - h[j]), ccb_v3_sub(x[j], x[i])))  \
                   : ccb_v3_add(x[j], ccb_v3_scale(h[j] / (h[j] - h[i]), ccb_v3_sub(x[i], x[j]))))
    int m;
    if (nin == 1 || nup == 1) {
        const int a = nin == 1 ? in[0] : up[0];
        const int* o3 = nin == 1 ? up : in;
        for (int k = 0; k < 3; ++k) {
            v[k] = CUT(a, o3[k]);
        }
        m = 3;
    } else {
        v[0] = CUT(in[0], up[0]);
        v[1] = CUT(in[0], up[1]);
        v[2] = CUT(in[1], up[1]);
        v[3] = CUT(in[1], up[0]);
        m = 4;
    }
#undef CUT
    const double w = ccb_v3_dot(ccb_v3_cross(ccb_v3_sub(v[1], v[0]), ccb_v3_sub(v[2], v[0])), n);
    if (w < 0) {
        for (int k = 0; k < m / 2; ++k) {
            const ccb_vec3 s = v[k];
            v[k] = v[m - 1 - k];
            v[m - 1 - k] = s;
        }
    }
    return m;
}

/* Compliant tetrahedron ea of A against compliant tetrahedron eb of B: the equal-pressure plane
 * (formulation-tamsi-hydro §F.2), sliced by ea, clipped to eb. */
static ccb_status soft_soft(const ccb_hydro_mesh* A, const ccb_pose* XA, int ea,
                            const ccb_hydro_mesh* B, const ccb_pose* XB, int eb,
                            ccb_hydro_repr repr, ccb_hydro_surface* out) {
    const int* ta = A->t + 4 * (size_t)ea;
    const int* tb = B->t + 4 * (size_t)eb;
    ccb_vec3 xa[4], xb[4];
    world_verts(A, XA, ta, 4, xa);
    world_verts(B, XB, tb, 4, xb);
    const ccb_vec3 ga = ccb_m3_mul_v(&XA->R, A->grad[ea]);
    const ccb_vec3 gb = ccb_m3_mul_v(&XB->R, B->grad[eb]);
    /* p_a - p_b grows along n = (ga - gb)/|ga - gb| (from B into A) */
    const ccb_vec3 nr = ccb_v3_sub(ga, gb);
    const double nn = ccb_v3_norm(nr);
    if (!(nn > 0)) {
        return CCB_OK; /* parallel fields: no plane */
    }
    const ccb_vec3 n = ccb_v3_scale(1.0 / nn, nr);
    const double gA = ccb_v3_dot(ga, n), gB = -ccb_v3_dot(gb, n);
    /* signed heights of ea's vertices above the plane p_a = p_b */
    const double pb0 = B->p[tb[0]];
    double h[4];
    for (int k = 0; k < 4; ++k) {
        const double pb = pb0 + ccb_v3_dot(gb, ccb_v3_sub(xa[k], xb[0]));
        h[k] = (A->p[ta[k]] - pb) / nn;
    }
    ccb_hydro_face f;
    int m = slice_tet(xa, ta, h, n, f.verts);
    if (m == 0) {
        return CCB_OK;
    }
    ccb_vec3 v[WORK_POLY], o[4], nin[4];
    memcpy(v, f.verts, (size_t)m * sizeof(ccb_vec3));
    tet_planes(xb, o, nin);
    m = clip_tet(v, m, o, nin);
    if (m < 3 || m > CCB_HYDRO_MAX_POLYGON || !(gA > 0 && gB > 0)) {
        /* a polygon that round-off made longer than 8 vertices (a sliver), or a field that does
         * not grow into its body (formulation-tamsi-hydro §F.4 step 2): skipped */
        out->nskipped += m != 0;
        return CCB_OK;
    }
    memcpy(f.verts, v, (size_t)m * sizeof(ccb_vec3));
    f.nverts = m;
    f.tet = ea;
    f.other = eb;
    f.normal = n;
    f.gradient = gA * gB / (gA + gB); /* P2 eq. 23 */
    return ccb_hydro_emit_faces(out, &f, repr, A->p[ta[0]], ga, xa[0]);
}

/* A tetrahedron of A in world coordinates and its inward planes, kept while the candidate pairs
 * (sorted by A's element first) name the same tetrahedron. */
typedef struct tet_cache {
    int ea; /* -1: empty */
    ccb_vec3 xa[4], o[4], nin[4];
} tet_cache;

/* Compliant tetrahedron ea of A against surface triangle jb of rigid B
 * (formulation-tamsi-hydro §F.2): the triangle clipped to ea. */
static ccb_status soft_rigid(const ccb_hydro_mesh* A, const ccb_pose* XA, int ea,
                             const ccb_hydro_mesh* B, const ccb_pose* XB, int jb, double cos_max,
                             ccb_hydro_repr repr, tet_cache* tc, ccb_hydro_surface* out) {
    const int* ta = A->t + 4 * (size_t)ea;
    const int* tv = B->bt + 3 * (size_t)jb;
    ccb_vec3 v[WORK_POLY];
    world_verts(B, XB, tv, 3, v);
    const ccb_vec3 nt_raw = ccb_v3_cross(ccb_v3_sub(v[1], v[0]), ccb_v3_sub(v[2], v[0]));
    const ccb_vec3 nt = ccb_v3_scale(1.0 / ccb_v3_norm(nt_raw), nt_raw); /* out of B */
    const ccb_vec3 ga = ccb_m3_mul_v(&XA->R, A->grad[ea]);
    /* the triangle must face along A's pressure gradient: angle(n_t, grad p_a) < 5 pi/8 */
    if (!(ccb_v3_dot(nt, ga) > cos_max * ccb_v3_norm(ga))) {
        return CCB_OK;
    }
    if (tc->ea != ea) {
        world_verts(A, XA, ta, 4, tc->xa);
        tet_planes(tc->xa, tc->o, tc->nin);
        tc->ea = ea;
    }
    const int m = clip_tet(v, 3, tc->o, tc->nin);
    if (m < 3 || m > CCB_HYDRO_MAX_POLYGON) {
        out->nskipped += m != 0;
        return CCB_OK;
    }
    ccb_hydro_face f;
    memcpy(f.verts, v, (size_t)m * sizeof(ccb_vec3));
    f.nverts = m;
    f.tet = ea;
    f.other = jb;
    f.normal = nt; /* from B into A; the triangle is counter-clockwise about it */
    f.gradient = ccb_v3_dot(ga, nt);
    return ccb_hydro_emit_faces(out, &f, repr, A->p[ta[0]], ga, tc->xa[0]);
}

static int pose_ok(const ccb_pose* X) {
    return X != NULL && ccb_v3_isfinite(X->p) && ccb_all_finite(X->R.m, 9);
}

ccb_status ccb_hydro_intersect(const ccb_hydro_mesh* A, const ccb_pose* XA, const ccb_hydro_mesh* B,
                               const ccb_pose* XB, int flags, ccb_hydro_repr repr,
                               ccb_hydro_surface* out, char* msg, size_t msz) {
    if (A == NULL || B == NULL || XA == NULL || XB == NULL || out == NULL) {
        return ccb_errorf(msg, msz, CCB_E_INVALID, "hydro intersect: NULL argument");
    }
    if ((flags & ~(CCB_HYDRO_RIGID_B | CCB_HYDRO_BRUTE_FORCE)) != 0) {
        return ccb_errorf(msg, msz, CCB_E_INVALID, "hydro intersect: unknown flags 0x%x", flags);
    }
    if (repr != CCB_HYDRO_POLYGONS && repr != CCB_HYDRO_TRIANGLES) {
        return ccb_errorf(msg, msz, CCB_E_INVALID, "hydro intersect: unknown representation %d",
                          (int)repr);
    }
    if (!pose_ok(XA) || !pose_ok(XB)) {
        return ccb_errorf(msg, msz, CCB_E_NONFINITE, "hydro intersect: non-finite pose");
    }
    out->n = 0;
    out->nskipped = 0;
    out->ncandidates = 0;
    if (ccb_v3_norm(ccb_v3_sub(XA->p, XB->p)) > A->bound + B->bound) {
        return CCB_OK; /* the bounding spheres are apart */
    }
    const int rigid = (flags & CCB_HYDRO_RIGID_B) != 0;
    const int nb = rigid ? B->nbt : B->nt;
    const double cos_max = cos(0.625 * CCB_PI); /* 5 pi / 8 */
    long nc;
    if (flags & CCB_HYDRO_BRUTE_FORCE) {
        nc = (long)A->nt * nb;
    } else {
        /* X_AB = X_WA^-1 X_WB */
        ccb_pose XAB;
        const ccb_mat3 RT = ccb_m3_transpose(&XA->R);
        XAB.R = ccb_m3_mul(&RT, &XB->R);
        XAB.p = ccb_m3_mul_v(&RT, ccb_v3_sub(XB->p, XA->p));
        nc = ccb_hydro_bvh_pairs(&A->tet_tree, rigid ? &B->tri_tree : &B->tet_tree, &XAB,
                                 &out->keys, &out->keys_cap, &out->keys_tmp, &out->keys_tmp_cap);
        if (nc < 0) {
            return ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro intersect: out of memory");
        }
    }
    out->ncandidates = nc;
    ccb_status st = CCB_OK;
    tet_cache tc = {.ea = -1};
    for (long k = 0; k < nc && st == CCB_OK; ++k) {
        int ea, eb;
        if (flags & CCB_HYDRO_BRUTE_FORCE) {
            ea = (int)(k / nb);
            eb = (int)(k % nb);
        } else {
            ea = (int)(out->keys[k] >> 32);
            eb = (int)(out->keys[k] & 0xffffffffu);
        }
        st = rigid ? soft_rigid(A, XA, ea, B, XB, eb, cos_max, repr, &tc, out)
                   : soft_soft(A, XA, ea, B, XB, eb, repr, out);
    }
    if (st != CCB_OK) {
        return ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro intersect: out of memory");
    }
    return CCB_OK;
}
