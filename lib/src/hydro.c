/* hydro: tetrahedral pressure fields, their slice by a rigid half-space, and the per-face
 * equivalent point contacts (spec: formulation-tamsi-hydro §F). See ccb/hydro.h. */
#include "ccb/hydro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "hydro_internal.h"
#include "internal.h"

#define MAX_TETS CCB_HYDRO_MAX_TETS

static double tet_volume6(const ccb_vec3* x, const int* t) {
    const ccb_vec3 a = ccb_v3_sub(x[t[1]], x[t[0]]), b = ccb_v3_sub(x[t[2]], x[t[0]]),
                   c = ccb_v3_sub(x[t[3]], x[t[0]]);
    return ccb_v3_dot(ccb_v3_cross(a, b), c);
}

static double tet_longest_edge(const ccb_vec3* x, const int* t) {
    double e = 0;
    for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) {
            e = fmax(e, ccb_v3_norm(ccb_v3_sub(x[t[j]], x[t[i]])));
        }
    }
    return e;
}

void ccb_hydro_mesh_destroy(ccb_hydro_mesh* m) {
    if (m == NULL) {
        return;
    }
    ccb_free(m->x);
    ccb_free(m->p);
    ccb_free(m->t);
    ccb_free(m->grad);
    ccb_free(m->bt);
    ccb_hydro_bvh_free(&m->tet_tree);
    ccb_hydro_bvh_free(&m->tri_tree);
    ccb_free(m);
}

static ccb_hydro_mesh* mesh_alloc(int nv, int nt) {
    ccb_hydro_mesh* m = ccb_calloc(1, sizeof *m);
    if (m == NULL) {
        return NULL;
    }
    m->nv = nv;
    m->nt = nt;
    m->x = ccb_alloc((size_t)nv * sizeof(ccb_vec3));
    m->p = ccb_alloc((size_t)nv * sizeof(double));
    m->t = ccb_alloc((size_t)nt * 4 * sizeof(int));
    m->grad = ccb_alloc((size_t)nt * sizeof(ccb_vec3));
    if (!m->x || !m->p || !m->t || !m->grad) {
        ccb_hydro_mesh_destroy(m);
        return NULL;
    }
    return m;
}

/* Gradient of the linear interpolant of p on tetrahedron t: solve E g = dp with the edge rows
 * E = [x1 - x0; x2 - x0; x3 - x0] by Cramer's rule (E is well conditioned after the quality
 * check). */
static ccb_vec3 tet_gradient(const ccb_vec3* x, const double* p, const int* t) {
    const ccb_vec3 e1 = ccb_v3_sub(x[t[1]], x[t[0]]), e2 = ccb_v3_sub(x[t[2]], x[t[0]]),
                   e3 = ccb_v3_sub(x[t[3]], x[t[0]]);
    const double d1 = p[t[1]] - p[t[0]], d2 = p[t[2]] - p[t[0]], d3 = p[t[3]] - p[t[0]];
    /* g = (d1 (e2 x e3) + d2 (e3 x e1) + d3 (e1 x e2)) / (e1 . (e2 x e3)) */
    const ccb_vec3 c23 = ccb_v3_cross(e2, e3), c31 = ccb_v3_cross(e3, e1),
                   c12 = ccb_v3_cross(e1, e2);
    const double det = ccb_v3_dot(e1, c23);
    return ccb_v3_scale(1.0 / det,
                        ccb_v3_add(ccb_v3_add(ccb_v3_scale(d1, c23), ccb_v3_scale(d2, c31)),
                                   ccb_v3_scale(d3, c12)));
}

/* A tetrahedron face: sorted vertex key, and the face oriented away from the opposite vertex. */
typedef struct tet_face {
    int key[3];
    int v[3];
} tet_face;

static int cmp_face(const void* x, const void* y) {
    const int* a = ((const tet_face*)x)->key;
    const int* b = ((const tet_face*)y)->key;
    for (int k = 0; k < 3; ++k) {
        if (a[k] != b[k]) {
            return (a[k] > b[k]) - (a[k] < b[k]);
        }
    }
    return 0;
}

/* Boundary triangles = tetrahedron faces that belong to one tetrahedron only, oriented
 * outward, in the sorted order of their vertex keys (deterministic). */
static ccb_status find_boundary(ccb_hydro_mesh* m) {
    tet_face* f = ccb_alloc((size_t)m->nt * 4 * sizeof(tet_face));
    if (f == NULL) {
        return CCB_E_NOMEM;
    }
    static const int opp[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
    for (int e = 0; e < m->nt; ++e) {
        const int* t = m->t + 4 * (size_t)e;
        for (int k = 0; k < 4; ++k) {
            tet_face* g = &f[4 * (size_t)e + k];
            for (int i = 0; i < 3; ++i) {
                g->v[i] = t[opp[k][i]];
            }
            /* outward: the opposite vertex lies behind the face */
            const ccb_vec3 a = m->x[g->v[0]];
            const ccb_vec3 nrm =
                ccb_v3_cross(ccb_v3_sub(m->x[g->v[1]], a), ccb_v3_sub(m->x[g->v[2]], a));
            if (ccb_v3_dot(nrm, ccb_v3_sub(m->x[t[opp[k][3]]], a)) > 0) {
                const int s = g->v[1];
                g->v[1] = g->v[2];
                g->v[2] = s;
            }
            int k0 = g->v[0], k1 = g->v[1], k2 = g->v[2], s;
            if (k0 > k1) {
                s = k0;
                k0 = k1;
                k1 = s;
            }
            if (k1 > k2) {
                s = k1;
                k1 = k2;
                k2 = s;
            }
            if (k0 > k1) {
                s = k0;
                k0 = k1;
                k1 = s;
            }
            g->key[0] = k0;
            g->key[1] = k1;
            g->key[2] = k2;
        }
    }
    const size_t nf = (size_t)m->nt * 4;
    qsort(f, nf, sizeof(tet_face), cmp_face);
    int nb = 0;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && cmp_face(&f[i], &f[j]) == 0) {
            ++j;
        }
        nb += j - i == 1;
        i = j;
    }
    m->bt = ccb_alloc((size_t)(nb > 0 ? nb : 1) * 3 * sizeof(int));
    if (m->bt == NULL) {
        ccb_free(f);
        return CCB_E_NOMEM;
    }
    m->nbt = 0;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && cmp_face(&f[i], &f[j]) == 0) {
            ++j;
        }
        if (j - i == 1) {
            memcpy(m->bt + 3 * (size_t)m->nbt++, f[i].v, sizeof f[i].v);
        }
        i = j;
    }
    ccb_free(f);
    return CCB_OK;
}

ccb_status ccb_hydro_mesh_create(int nverts, const ccb_vec3* verts, const double* pressure,
                                 int ntets, const int* tets, ccb_hydro_mesh** out, char* msg,
                                 size_t n) {
    if (out == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "hydro mesh: NULL output");
    }
    *out = NULL;
    if (nverts < 4 || ntets < 1 || ntets > MAX_TETS || !verts || !pressure || !tets) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "hydro mesh: needs >= 4 vertices and 1..%d tetrahedra with their data "
                          "(got %d vertices, %d tetrahedra)",
                          MAX_TETS, nverts, ntets);
    }
    for (int i = 0; i < nverts; ++i) {
        if (!ccb_v3_isfinite(verts[i]) || !isfinite(pressure[i])) {
            return ccb_errorf(msg, n, CCB_E_INVALID,
                              "hydro mesh: vertex %d has a non-finite position or pressure", i);
        }
    }
    for (int e = 0; e < ntets; ++e) {
        const int* t = tets + 4 * (size_t)e;
        for (int k = 0; k < 4; ++k) {
            if (t[k] < 0 || t[k] >= nverts) {
                return ccb_errorf(msg, n, CCB_E_INVALID,
                                  "hydro mesh: tetrahedron %d: vertex index %d out of range "
                                  "[0, %d)",
                                  e, t[k], nverts);
            }
        }
        const double v6 = tet_volume6(verts, t), l = tet_longest_edge(verts, t);
        if (v6 < 0) {
            return ccb_errorf(msg, n, CCB_E_INVALID,
                              "hydro mesh: tetrahedron %d (vertices %d %d %d %d) is inverted "
                              "(volume %.3g m^3)",
                              e, t[0], t[1], t[2], t[3], v6 / 6);
        }
        if (!(v6 > 1e-9 * l * l * l)) {
            return ccb_errorf(msg, n, CCB_E_INVALID,
                              "hydro mesh: tetrahedron %d (vertices %d %d %d %d) is degenerate "
                              "(volume %.3g m^3, longest edge %.3g m)",
                              e, t[0], t[1], t[2], t[3], v6 / 6, l);
        }
    }
    ccb_hydro_mesh* m = mesh_alloc(nverts, ntets);
    if (m == NULL) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "hydro mesh: out of memory");
    }
    memcpy(m->x, verts, (size_t)nverts * sizeof(ccb_vec3));
    memcpy(m->p, pressure, (size_t)nverts * sizeof(double));
    memcpy(m->t, tets, (size_t)ntets * 4 * sizeof(int));
    for (int i = 0; i < nverts; ++i) {
        m->bound = fmax(m->bound, ccb_v3_norm(verts[i]));
    }
    for (int e = 0; e < ntets; ++e) {
        m->grad[e] = tet_gradient(m->x, m->p, m->t + 4 * (size_t)e);
        m->volume += tet_volume6(m->x, m->t + 4 * (size_t)e) / 6;
    }
    if (find_boundary(m) != CCB_OK || ccb_hydro_bvh_build(m) != CCB_OK) {
        ccb_hydro_mesh_destroy(m);
        return ccb_errorf(msg, n, CCB_E_NOMEM, "hydro mesh: out of memory");
    }
    *out = m;
    return CCB_OK;
}

ccb_hydro_mesh* ccb_hydro_mesh_clone(const ccb_hydro_mesh* s) {
    if (s == NULL) {
        return NULL;
    }
    ccb_hydro_mesh* m = mesh_alloc(s->nv, s->nt);
    if (m == NULL) {
        return NULL;
    }
    memcpy(m->x, s->x, (size_t)s->nv * sizeof(ccb_vec3));
    memcpy(m->p, s->p, (size_t)s->nv * sizeof(double));
    memcpy(m->t, s->t, (size_t)s->nt * 4 * sizeof(int));
    memcpy(m->grad, s->grad, (size_t)s->nt * sizeof(ccb_vec3));
    m->bt = ccb_alloc((size_t)(s->nbt > 0 ? s->nbt : 1) * 3 * sizeof(int));
    if (m->bt == NULL) {
        ccb_hydro_mesh_destroy(m);
        return NULL;
    }
    memcpy(m->bt, s->bt, (size_t)s->nbt * 3 * sizeof(int));
    m->nbt = s->nbt;
    m->rim = s->rim;
    m->bound = s->bound;
    m->volume = s->volume;
    if (ccb_hydro_bvh_copy(&m->tet_tree, &s->tet_tree) != CCB_OK ||
        ccb_hydro_bvh_copy(&m->tri_tree, &s->tri_tree) != CCB_OK) {
        ccb_hydro_mesh_destroy(m);
        return NULL;
    }
    return m;
}

int ccb_hydro_mesh_nverts(const ccb_hydro_mesh* m) {
    return m ? m->nv : 0;
}
int ccb_hydro_mesh_ntets(const ccb_hydro_mesh* m) {
    return m ? m->nt : 0;
}
const ccb_vec3* ccb_hydro_mesh_verts(const ccb_hydro_mesh* m) {
    return m ? m->x : NULL;
}
const double* ccb_hydro_mesh_pressure(const ccb_hydro_mesh* m) {
    return m ? m->p : NULL;
}
const int* ccb_hydro_mesh_tets(const ccb_hydro_mesh* m) {
    return m ? m->t : NULL;
}
double ccb_hydro_mesh_bound(const ccb_hydro_mesh* m) {
    return m ? m->bound : 0.0;
}
double ccb_hydro_mesh_volume(const ccb_hydro_mesh* m) {
    return m ? m->volume : 0.0;
}
int ccb_hydro_mesh_rim(const ccb_hydro_mesh* m) {
    return m ? m->rim : 0;
}
int ccb_hydro_mesh_nsurface(const ccb_hydro_mesh* m) {
    return m ? m->nbt : 0;
}
const int* ccb_hydro_mesh_surface(const ccb_hydro_mesh* m) {
    return m ? m->bt : NULL;
}

/* ---- disk meshes (formulation-tamsi-hydro §F.1)
 * ---------------------------------------------------------------- */

/* Cap triangulation of the unit disk: np points (xy), nt2 counter-clockwise triangles, nrim rim
 * edges (counter-clockwise). */
typedef struct cap2d {
    double* xy;
    int np;
    int* tri;
    int ntri;
    int* rim; /* 2 per rim edge */
    int nrim;
} cap2d;

static void cap_free(cap2d* c) {
    ccb_free(c->xy);
    ccb_free(c->tri);
    ccb_free(c->rim);
}

static int cap_alloc(cap2d* c, int np, int ntri, int nrim) {
    c->xy = ccb_alloc((size_t)np * 2 * sizeof(double));
    c->tri = ccb_alloc((size_t)ntri * 3 * sizeof(int));
    c->rim = ccb_alloc((size_t)nrim * 2 * sizeof(int));
    c->np = c->ntri = c->nrim = 0;
    return c->xy && c->tri && c->rim ? 0 : -1;
}

static void cap_point(cap2d* c, double r, double angle) {
    c->xy[2 * c->np] = r * cos(angle);
    c->xy[2 * c->np + 1] = r * sin(angle);
    c->np++;
}

static void cap_tri(cap2d* c, int a, int b, int d) {
    int* t = c->tri + 3 * c->ntri++;
    t[0] = a;
    t[1] = b;
    t[2] = d;
}

static void cap_rim(cap2d* c, int a, int b) {
    c->rim[2 * c->nrim] = a;
    c->rim[2 * c->nrim + 1] = b;
    c->nrim++;
}

/* FAN: centre + n rim points, n triangles. */
static int cap_fan(cap2d* c, int n) {
    if (cap_alloc(c, n + 1, n, n) != 0) {
        return -1;
    }
    cap_point(c, 0, 0);
    for (int j = 0; j < n; ++j) {
        cap_point(c, 1, 2 * CCB_PI * j / n);
    }
    for (int j = 0; j < n; ++j) {
        cap_tri(c, 0, 1 + j, 1 + (j + 1) % n);
        cap_rim(c, 1 + j, 1 + (j + 1) % n);
    }
    return 0;
}

/* POLAR: centre + Nr rings of S = 8 Nr points at radii i/Nr; ring 1 triangles, then quads split
 * along alternating diagonals. */
static int cap_polar(cap2d* c, int nr) {
    const int S = 8 * nr;
    if (cap_alloc(c, 1 + nr * S, S + 2 * (nr - 1) * S, S) != 0) {
        return -1;
    }
    cap_point(c, 0, 0);
    for (int i = 1; i <= nr; ++i) {
        for (int j = 0; j < S; ++j) {
            cap_point(c, (double)i / nr, 2 * CCB_PI * j / S);
        }
    }
#define P(i, j) (1 + ((i)-1) * S + ((j) % S))
    for (int j = 0; j < S; ++j) {
        cap_tri(c, 0, P(1, j), P(1, j + 1));
    }
    for (int i = 2; i <= nr; ++i) {
        for (int j = 0; j < S; ++j) {
            const int a = P(i - 1, j), b = P(i, j), d = P(i, j + 1), e = P(i - 1, j + 1);
            if ((i + j) % 2 == 0) {
                cap_tri(c, a, b, d);
                cap_tri(c, a, d, e);
            } else {
                cap_tri(c, a, b, e);
                cap_tri(c, b, d, e);
            }
        }
    }
    for (int j = 0; j < S; ++j) {
        cap_rim(c, P(nr, j), P(nr, j + 1));
    }
#undef P
    return 0;
}

/* Appends the 3 tetrahedra of the prism (a0 a1 a2) -> (b0 b1 b2) (ai - bi its edges), each
 * positively oriented. Every quadrilateral face is split along the diagonal through its
 * lowest-indexed vertex (Dompierre et al. 1999), so neighbouring prisms share their faces and
 * the mesh is conforming (its boundary is the body's surface). */
void ccb_hydro_prism_tets(const ccb_vec3* x, int* t, int* nt, const int a[3], const int b[3]) {
    static const int rot[6][6] = {{0, 1, 2, 3, 4, 5}, {1, 2, 0, 4, 5, 3}, {2, 0, 1, 5, 3, 4},
                                  {3, 5, 4, 0, 2, 1}, {4, 3, 5, 1, 0, 2}, {5, 4, 3, 2, 1, 0}};
    const int p[6] = {a[0], a[1], a[2], b[0], b[1], b[2]};
    int im = 0;
    for (int k = 1; k < 6; ++k) {
        if (p[k] < p[im]) {
            im = k;
        }
    }
    int v[6];
    for (int k = 0; k < 6; ++k) {
        v[k] = p[rot[im][k]];
    }
    const int lo15 = v[1] < v[5] ? v[1] : v[5], lo24 = v[2] < v[4] ? v[2] : v[4];
    const int tets[2][3][4] = {
        {{v[0], v[1], v[2], v[5]}, {v[0], v[1], v[5], v[4]}, {v[0], v[4], v[5], v[3]}},
        {{v[0], v[1], v[2], v[4]}, {v[0], v[4], v[2], v[5]}, {v[0], v[4], v[5], v[3]}}};
    const int c = lo15 < lo24 ? 0 : 1;
    for (int k = 0; k < 3; ++k) {
        int* o = t + 4 * (size_t)(*nt)++;
        memcpy(o, tets[c][k], sizeof tets[c][k]);
        if (tet_volume6(x, o) < 0) {
            const int s = o[2];
            o[2] = o[3];
            o[3] = s;
        }
    }
}

ccb_status ccb_hydro_mesh_disk(const ccb_hydro_disk* d, ccb_hydro_mesh** out, char* msg, size_t n) {
    if (d == NULL || out == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "hydro disk: NULL argument");
    }
    *out = NULL;
    const double R = d->radius, L = d->thickness, E = d->modulus, h = d->resolution_hint;
    if (!(isfinite(R) && R > 0) || !(isfinite(L) && L > 0 && L < 2 * R) ||
        !(isfinite(E) && E > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "hydro disk: needs radius R > 0, thickness 0 < L < 2 R (a short "
                          "cylinder) and modulus E > 0 (got R = %g m, L = %g m, E = %g Pa)",
                          R, L, E);
    }
    if (d->layout != CCB_DISK_FAN && d->layout != CCB_DISK_POLAR) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "hydro disk: unknown layout %d", (int)d->layout);
    }
    if (d->sectors <= 0 && !(isfinite(h) && h > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "hydro disk: resolution hint must be finite and > 0 m (got %g)", h);
    }
    double count;
    if (d->sectors > 0) {
        count = d->sectors;
    } else {
        count =
            d->layout == CCB_DISK_FAN ? fmax(3, ceil(2 * CCB_PI * R / h)) : fmax(1, ceil(R / h));
    }
    /* tetrahedra: FAN 9n; POLAR 6 per cap triangle (16 Nr^2 - 8 Nr of them) + 3 per rim edge */
    const double ntets_est = d->layout == CCB_DISK_FAN ? 9 * count : 96 * count * count;
    if (ntets_est > MAX_TETS) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "hydro disk: resolution gives about %.3g tetrahedra (limit %d)",
                          ntets_est, MAX_TETS);
    }
    cap2d cap = {0};
    const int nc = (int)count;
    if ((d->layout == CCB_DISK_FAN ? cap_fan(&cap, nc) : cap_polar(&cap, nc)) != 0) {
        cap_free(&cap);
        return ccb_errorf(msg, n, CCB_E_NOMEM, "hydro disk: out of memory");
    }
    const double H = 0.5 * L, s = (R - H) / R;
    const int np = cap.np, nv = 3 * np, nt_max = 6 * cap.ntri + 3 * cap.nrim;
    ccb_vec3* x = ccb_alloc((size_t)nv * sizeof(ccb_vec3));
    double* p = ccb_alloc((size_t)nv * sizeof(double));
    int* t = ccb_alloc((size_t)nt_max * 4 * sizeof(int));
    ccb_status st = CCB_OK;
    if (!x || !p || !t) {
        st = ccb_errorf(msg, n, CCB_E_NOMEM, "hydro disk: out of memory");
    } else {
        /* vertex layers: bottom cap (z = -H, p = 0), top cap (z = H, p = 0), medial mid-plane
         * disk scaled by (R - H)/R (z = 0, p = E): p = E d/H, formulation-tamsi-hydro §F.1 */
        for (int k = 0; k < np; ++k) {
            const double cx = R * cap.xy[2 * k], cy = R * cap.xy[2 * k + 1];
            x[k] = ccb_v3(cx, cy, -H);
            x[np + k] = ccb_v3(cx, cy, H);
            x[2 * np + k] = ccb_v3(s * cx, s * cy, 0);
            p[k] = p[np + k] = 0;
            p[2 * np + k] = E;
        }
        int nt = 0;
        for (int j = 0; j < cap.ntri; ++j) {
            const int* c = cap.tri + 3 * j;
            const int bot[3] = {c[0], c[1], c[2]}, top[3] = {np + c[0], np + c[1], np + c[2]},
                      mid[3] = {2 * np + c[0], 2 * np + c[1], 2 * np + c[2]};
            ccb_hydro_prism_tets(x, t, &nt, bot, mid);
            ccb_hydro_prism_tets(x, t, &nt, mid, top);
        }
        for (int j = 0; j < cap.nrim; ++j) {
            const int u = cap.rim[2 * j], w = cap.rim[2 * j + 1];
            const int a[3] = {2 * np + u, np + u, u}, b[3] = {2 * np + w, np + w, w};
            ccb_hydro_prism_tets(x, t, &nt, a, b);
        }
        st = ccb_hydro_mesh_create(nv, x, p, nt, t, out, msg, n);
        if (st == CCB_OK) {
            (*out)->rim = d->layout == CCB_DISK_FAN ? nc : 8 * nc;
        }
    }
    ccb_free(x);
    ccb_free(p);
    ccb_free(t);
    cap_free(&cap);
    return st;
}

/* ---- slice by a half-space (formulation-tamsi-hydro §F.2 "compliant tet mesh vs rigid
 * half-space") --------------- */

void ccb_hydro_surface_free(ccb_hydro_surface* s) {
    if (s == NULL) {
        return;
    }
    ccb_free(s->faces);
    ccb_free(s->scratch);
    ccb_free(s->keys);
    ccb_free(s->keys_tmp);
    s->faces = NULL;
    s->scratch = NULL;
    s->keys = s->keys_tmp = NULL;
    s->scratch_size = 0;
    s->n = s->cap = s->nskipped = s->keys_cap = s->keys_tmp_cap = 0;
    s->ncandidates = 0;
}

ccb_status ccb_hydro_surface_reserve(ccb_hydro_surface* s, int faces, int pairs) {
    if (s == NULL || faces < 0 || pairs < 0) {
        return CCB_E_INVALID;
    }
    if ((faces > s->cap &&
         ccb_grow((void**)&s->faces, &s->cap, faces, sizeof(ccb_hydro_face)) != CCB_OK) ||
        (pairs > s->keys_cap &&
         ccb_grow((void**)&s->keys, &s->keys_cap, pairs, sizeof(uint64_t)) != CCB_OK) ||
        (pairs > s->keys_tmp_cap &&
         ccb_grow((void**)&s->keys_tmp, &s->keys_tmp_cap, pairs, sizeof(uint64_t)) != CCB_OK)) {
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

/* Point where edge (i, j) crosses the plane, from the lower-indexed vertex (bit-identical in
 * every tetrahedron sharing the edge). h = signed heights, xw = world positions. */
static ccb_vec3 cut_point(const ccb_vec3* xw, const double* h, int i, int j) {
    if (j < i) {
        const int s = i;
        i = j;
        j = s;
    }
    const double t = h[i] / (h[i] - h[j]);
    return ccb_v3_add(xw[i], ccb_v3_scale(t, ccb_v3_sub(xw[j], xw[i])));
}

/* Area and area centroid of a convex polygon counter-clockwise about n
 * (formulation-tamsi-hydro §F.3: fan about vertex 0, w_j = ((v_j - v_0) x (v_{j+1} - v_0)) . n). */
void ccb_hydro_polygon_area(const ccb_vec3* v, int m, ccb_vec3 n, double* area, ccb_vec3* c) {
    double W = 0;
    ccb_vec3 s = ccb_v3(0, 0, 0);
    for (int j = 1; j + 1 < m; ++j) {
        const double w =
            ccb_v3_dot(ccb_v3_cross(ccb_v3_sub(v[j], v[0]), ccb_v3_sub(v[j + 1], v[0])), n);
        W += w;
        s = ccb_v3_add(s, ccb_v3_scale(w / 3, ccb_v3_add(ccb_v3_add(v[0], v[j]), v[j + 1])));
    }
    if (W != 0) {
        *c = ccb_v3_scale(1.0 / W, s);
    } else {
        ccb_vec3 a = ccb_v3(0, 0, 0);
        for (int j = 0; j < m; ++j) {
            a = ccb_v3_add(a, v[j]);
        }
        *c = ccb_v3_scale(1.0 / m, a);
    }
    *area = 0.5 * W;
}

static ccb_status push_face(ccb_hydro_surface* out, const ccb_hydro_face* f) {
    if (!(f->area > CCB_HYDRO_MIN_AREA) || !(f->gradient >= CCB_HYDRO_MIN_GRADIENT)) {
        out->nskipped++; /* formulation-tamsi-hydro §F.4 steps 1-2 */
        return CCB_OK;
    }
    if (out->n == out->cap &&
        ccb_grow((void**)&out->faces, &out->cap, out->n + 1, sizeof(ccb_hydro_face)) != CCB_OK) {
        return CCB_E_NOMEM;
    }
    out->faces[out->n++] = *f;
    return CCB_OK;
}

/* Emits polygon f (vertices counter-clockwise about f->normal, normal and gradient set) as one
 * face or as triangles about its centroid (formulation-tamsi-hydro §F.3), with pressures from the
 * linear field p(x) = p_ref + gW . (x - x_ref). */
ccb_status ccb_hydro_emit_faces(ccb_hydro_surface* out, ccb_hydro_face* f, ccb_hydro_repr repr,
                                double p_ref, ccb_vec3 gW, ccb_vec3 x_ref) {
    double A;
    ccb_vec3 c;
    ccb_hydro_polygon_area(f->verts, f->nverts, f->normal, &A, &c);
    if (repr == CCB_HYDRO_POLYGONS) {
        f->area = A;
        f->centroid = c;
        f->pressure = p_ref + ccb_v3_dot(gW, ccb_v3_sub(c, x_ref));
        return push_face(out, f);
    }
    ccb_status st = CCB_OK;
    for (int k = 0; k < f->nverts && st == CCB_OK; ++k) {
        ccb_hydro_face tr = *f;
        tr.nverts = 3;
        tr.verts[0] = c;
        tr.verts[1] = f->verts[k];
        tr.verts[2] = f->verts[(k + 1) % f->nverts];
        ccb_hydro_polygon_area(tr.verts, 3, f->normal, &tr.area, &tr.centroid);
        tr.pressure = p_ref + ccb_v3_dot(gW, ccb_v3_sub(tr.centroid, x_ref));
        st = push_face(out, &tr);
    }
    return st;
}

/* Validates the common arguments of a slice or clip and fills the scratch with the world
 * positions xw and heights h = n . (xw - o) of the mesh vertices. 1 if the mesh's bounding
 * sphere misses the half-space (nothing to do), 0 to go on, or a negative status. */
static int prepare_cut(const ccb_hydro_mesh* m, const ccb_pose* X, ccb_vec3 o, ccb_vec3 nrm,
                       ccb_hydro_repr repr, ccb_hydro_surface* out, const char* what, char* msg,
                       size_t msz, ccb_vec3** xw_out, double** h_out) {
    if (m == NULL || X == NULL || out == NULL) {
        return -(int)ccb_errorf(msg, msz, CCB_E_INVALID, "hydro %s: NULL argument", what);
    }
    if (!ccb_v3_isfinite(o) || !ccb_v3_isfinite(nrm) || fabs(ccb_v3_norm(nrm) - 1) > 1e-9 ||
        !ccb_v3_isfinite(X->p) || !ccb_all_finite(X->R.m, 9)) {
        return -(int)ccb_errorf(msg, msz, CCB_E_NONFINITE,
                                "hydro %s: non-finite pose or plane, or a plane normal that is "
                                "not a unit vector",
                                what);
    }
    if (repr != CCB_HYDRO_POLYGONS && repr != CCB_HYDRO_TRIANGLES) {
        return -(int)ccb_errorf(msg, msz, CCB_E_INVALID, "hydro %s: unknown representation %d",
                                what, (int)repr);
    }
    out->n = 0;
    out->nskipped = 0;
    out->ncandidates = 0;
    if (ccb_v3_dot(nrm, ccb_v3_sub(X->p, o)) - m->bound > 0) {
        return 1;
    }
    const size_t need = (size_t)m->nv * (sizeof(ccb_vec3) + sizeof(double));
    if (out->scratch_size < need) {
        void* w = ccb_alloc(need);
        if (w == NULL) {
            return -(int)ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro %s: out of memory", what);
        }
        ccb_free(out->scratch);
        out->scratch = w;
        out->scratch_size = need;
    }
    ccb_vec3* xw = out->scratch;
    double* h = (double*)(xw + m->nv);
    for (int i = 0; i < m->nv; ++i) {
        xw[i] = ccb_v3_add(X->p, ccb_m3_mul_v(&X->R, m->x[i]));
        h[i] = ccb_v3_dot(nrm, ccb_v3_sub(xw[i], o));
    }
    *xw_out = xw;
    *h_out = h;
    return 0;
}

ccb_status ccb_hydro_slice(const ccb_hydro_mesh* m, const ccb_pose* X, ccb_vec3 o, ccb_vec3 nrm,
                           ccb_hydro_repr repr, ccb_hydro_surface* out, char* msg, size_t msz) {
    ccb_vec3* xw = NULL;
    double* h = NULL;
    const int pc = prepare_cut(m, X, o, nrm, repr, out, "slice", msg, msz, &xw, &h);
    if (pc != 0) {
        return pc > 0 ? CCB_OK : (ccb_status)(-pc);
    }
    ccb_status st = CCB_OK;
    for (int e = 0; e < m->nt && st == CCB_OK; ++e) {
        const int* t = m->t + 4 * (size_t)e;
        int in[4], outv[4], nin = 0, nout = 0;
        for (int k = 0; k < 4; ++k) {
            if (h[t[k]] > 0) {
                outv[nout++] = t[k];
            } else {
                in[nin++] = t[k];
            }
        }
        if (nin == 0 || nout == 0) {
            continue;
        }
        ccb_hydro_face f;
        f.tet = e;
        f.other = -1;
        if (nin == 1 || nout == 1) {
            const int a = nin == 1 ? in[0] : outv[0];
            const int* o3 = nin == 1 ? outv : in;
            f.nverts = 3;
            for (int k = 0; k < 3; ++k) {
                f.verts[k] = cut_point(xw, h, a, o3[k]);
            }
        } else {
            f.nverts = 4;
            f.verts[0] = cut_point(xw, h, in[0], outv[0]);
            f.verts[1] = cut_point(xw, h, in[0], outv[1]);
            f.verts[2] = cut_point(xw, h, in[1], outv[1]);
            f.verts[3] = cut_point(xw, h, in[1], outv[0]);
        }
        /* counter-clockwise about n */
        const double w = ccb_v3_dot(
            ccb_v3_cross(ccb_v3_sub(f.verts[1], f.verts[0]), ccb_v3_sub(f.verts[2], f.verts[0])),
            nrm);
        if (w < 0) {
            for (int k = 0; k < f.nverts / 2; ++k) {
                const ccb_vec3 s = f.verts[k];
                f.verts[k] = f.verts[f.nverts - 1 - k];
                f.verts[f.nverts - 1 - k] = s;
            }
        }
        /* the tetrahedron's linear field in W: p(x) = p(x0) + gW . (x - x0) */
        const ccb_vec3 gW = ccb_m3_mul_v(&X->R, m->grad[e]);
        f.normal = nrm;
        f.gradient = ccb_v3_dot(gW, nrm);
        st = ccb_hydro_emit_faces(out, &f, repr, m->p[t[0]], gW, xw[t[0]]);
    }
    if (st != CCB_OK) {
        return ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro slice: out of memory");
    }
    return CCB_OK;
}

/* ---- rigid surface mesh vs compliant half-space (formulation-tamsi-hydro §F.2, third case)
 * ------------------------ */

ccb_status ccb_hydro_clip(const ccb_hydro_mesh* m, const ccb_pose* X, ccb_vec3 o, ccb_vec3 nrm,
                          double modulus, double slab, ccb_hydro_repr repr, ccb_hydro_surface* out,
                          char* msg, size_t msz) {
    if (!(isfinite(modulus) && modulus > 0) || !(isfinite(slab) && slab > 0)) {
        return ccb_errorf(msg, msz, CCB_E_INVALID,
                          "hydro clip: modulus and slab thickness must be finite and > 0 (got "
                          "%g Pa, %g m)",
                          modulus, slab);
    }
    ccb_vec3* xw = NULL;
    double* h = NULL;
    const int pc = prepare_cut(m, X, o, nrm, repr, out, "clip", msg, msz, &xw, &h);
    if (pc != 0) {
        return pc > 0 ? CCB_OK : (ccb_status)(-pc);
    }
    /* half-space field p = -h E/H_s, gradient -(E/H_s) n (into the half-space),
     * formulation-tamsi-hydro §F.1 */
    const double s = modulus / slab;
    const ccb_vec3 gW = ccb_v3_scale(-s, nrm);
    const double cos_max = cos(0.625 * CCB_PI); /* 5 pi / 8 */
    ccb_status st = CCB_OK;
    for (int j = 0; j < m->nbt && st == CCB_OK; ++j) {
        const int* tv = m->bt + 3 * (size_t)j;
        if (h[tv[0]] > 0 && h[tv[1]] > 0 && h[tv[2]] > 0) {
            continue;
        }
        const ccb_vec3 nt_raw =
            ccb_v3_cross(ccb_v3_sub(xw[tv[1]], xw[tv[0]]), ccb_v3_sub(xw[tv[2]], xw[tv[0]]));
        const ccb_vec3 nt = ccb_v3_scale(1.0 / ccb_v3_norm(nt_raw), nt_raw); /* outward */
        /* keep triangles facing into the half-space: angle(n_t, grad p) < 5 pi/8 */
        if (!(ccb_v3_dot(nt, ccb_v3_scale(-1.0, nrm)) > cos_max)) {
            continue;
        }
        /* Sutherland-Hodgman against h <= 0 (cut points from the lower-indexed vertex) */
        ccb_hydro_face f;
        f.tet = j;
        f.other = -1;
        f.nverts = 0;
        for (int k = 0; k < 3; ++k) {
            const int a = tv[k], b = tv[(k + 1) % 3];
            if (h[a] <= 0) {
                f.verts[f.nverts++] = xw[a];
            }
            if ((h[a] <= 0) != (h[b] <= 0)) {
                f.verts[f.nverts++] = cut_point(xw, h, a, b);
            }
        }
        /* contact normal from the half-space into the rigid body: -n_t; the face is
         * counter-clockwise about n_t, so reverse it for -n_t */
        for (int k = 0; k < f.nverts / 2; ++k) {
            const ccb_vec3 t = f.verts[k];
            f.verts[k] = f.verts[f.nverts - 1 - k];
            f.verts[f.nverts - 1 - k] = t;
        }
        f.normal = ccb_v3_scale(-1.0, nt);
        f.gradient = -s * ccb_v3_dot(nrm, nt); /* g_A = grad p_M . n_BA, rigid B: g = g_A */
        st = ccb_hydro_emit_faces(out, &f, repr, 0.0, gW, o);
    }
    if (st != CCB_OK) {
        return ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro clip: out of memory");
    }
    return CCB_OK;
}
