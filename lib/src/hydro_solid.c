/* hydro_solid: tetrahedral meshes and pressure fields of closed solids, a box, an ellipsoid, a
 * cylinder and a slab (spec: formulation-tamsi-hydro §F.1). See ccb_hydro_mesh_solid in ccb/hydro.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "hydro_internal.h"
#include "internal.h"

/* A closed surface, star-shaped about the origin: ns vertices, nt counter-clockwise triangles. */
typedef struct surf {
    ccb_vec3* x;
    int ns;
    int* tri;
    int nt;
} surf;

static void surf_free(surf* s) {
    ccb_free(s->x);
    ccb_free(s->tri);
}

/* Adds triangle (a, b, c), oriented so that its normal points away from the origin. */
static void surf_tri(surf* s, int a, int b, int c) {
    const ccb_vec3 n = ccb_v3_cross(ccb_v3_sub(s->x[b], s->x[a]), ccb_v3_sub(s->x[c], s->x[a]));
    const ccb_vec3 g = ccb_v3_add(ccb_v3_add(s->x[a], s->x[b]), s->x[c]);
    int* t = s->tri + 3 * (size_t)s->nt++;
    t[0] = a;
    t[1] = ccb_v3_dot(n, g) > 0 ? b : c;
    t[2] = ccb_v3_dot(n, g) > 0 ? c : b;
}

/* The surface of the box [-e, e]: every face a grid of n[a] x n[b] cells, two triangles each
 * (diagonals alternating in a checkerboard). */
static int box_surface(surf* s, ccb_vec3 e, const int n[3]) {
    const int nx = n[0], ny = n[1], nz = n[2];
    const size_t nlat = (size_t)(nx + 1) * (ny + 1) * (nz + 1);
    int* id = ccb_alloc(nlat * sizeof(int));
    const int ntri = 4 * (nx * ny + ny * nz + nz * nx);
    s->x = ccb_alloc((size_t)(2 * (nx * ny + ny * nz + nz * nx) + 2) * sizeof(ccb_vec3));
    s->tri = ccb_alloc((size_t)ntri * 3 * sizeof(int));
    if (!id || !s->x || !s->tri) {
        ccb_free(id);
        return -1;
    }
    s->ns = s->nt = 0;
    const double* ev = &e.x;
#define LAT(i, j, k) id[(size_t)(i) + (size_t)(nx + 1) * ((size_t)(j) + (size_t)(ny + 1) * (k))]
    for (int k = 0; k <= nz; ++k) {
        for (int j = 0; j <= ny; ++j) {
            for (int i = 0; i <= nx; ++i) {
                const int bd = i == 0 || i == nx || j == 0 || j == ny || k == 0 || k == nz;
                LAT(i, j, k) = bd ? s->ns : -1;
                if (bd) {
                    s->x[s->ns++] = ccb_v3(ev[0] * (2.0 * i / nx - 1), ev[1] * (2.0 * j / ny - 1),
                                           ev[2] * (2.0 * k / nz - 1));
                }
            }
        }
    }
    for (int ax = 0; ax < 3; ++ax) {
        const int b = (ax + 1) % 3, c = (ax + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            for (int u = 0; u < n[b]; ++u) {
                for (int v = 0; v < n[c]; ++v) {
                    int q[4][3];
                    for (int r = 0; r < 4; ++r) {
                        q[r][ax] = side * n[ax];
                        q[r][b] = u + (r == 1 || r == 2);
                        q[r][c] = v + (r >= 2);
                    }
                    int w[4];
                    for (int r = 0; r < 4; ++r) {
                        w[r] = LAT(q[r][0], q[r][1], q[r][2]);
                    }
                    if ((u + v) % 2 == 0) {
                        surf_tri(s, w[0], w[1], w[2]);
                        surf_tri(s, w[0], w[2], w[3]);
                    } else {
                        surf_tri(s, w[0], w[1], w[3]);
                        surf_tri(s, w[1], w[2], w[3]);
                    }
                }
            }
        }
    }
#undef LAT
    ccb_free(id);
    return 0;
}

/* The ellipsoid with semi-axes e: the octahedron |a| + |b| + |c| = n on the integer lattice,
 * 8 n^2 triangles, its vertices projected onto the unit sphere and scaled by e. */
static int ellipsoid_surface(surf* s, ccb_vec3 e, int n) {
    const int side = 2 * n + 1;
    int* id = ccb_alloc((size_t)side * side * 2 * sizeof(int));
    s->x = ccb_alloc((size_t)(4 * n * n + 2) * sizeof(ccb_vec3));
    s->tri = ccb_alloc((size_t)8 * n * n * 3 * sizeof(int));
    if (!id || !s->x || !s->tri) {
        ccb_free(id);
        return -1;
    }
    for (size_t i = 0; i < (size_t)side * side * 2; ++i) {
        id[i] = -1;
    }
    s->ns = s->nt = 0;
    /* the lattice point (a, b, +-(n - |a| - |b|)); c = 0 in the upper slot */
#define SLOT(a, b, neg) id[((size_t)((a) + n) * side + (size_t)((b) + n)) * 2 + (neg)]
    for (int o = 0; o < 8; ++o) {
        const int sx = o & 1 ? -1 : 1, sy = o & 2 ? -1 : 1, sz = o & 4 ? -1 : 1;
        int pt[3][2];
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j + i < n; ++j) {
                for (int tk = 0; tk < 2; ++tk) {
                    if (tk == 1 && i + j + 2 > n) {
                        break;
                    }
                    if (tk == 0) {
                        pt[0][0] = i, pt[0][1] = j, pt[1][0] = i + 1, pt[1][1] = j;
                        pt[2][0] = i, pt[2][1] = j + 1;
                    } else {
                        pt[0][0] = i + 1, pt[0][1] = j, pt[1][0] = i + 1, pt[1][1] = j + 1;
                        pt[2][0] = i, pt[2][1] = j + 1;
                    }
                    int w[3];
                    for (int r = 0; r < 3; ++r) {
                        const int a = sx * pt[r][0], b = sy * pt[r][1];
                        const int c = sz * (n - pt[r][0] - pt[r][1]);
                        int* slot = &SLOT(a, b, c < 0);
                        if (*slot < 0) {
                            const double len = sqrt((double)a * a + (double)b * b + (double)c * c);
                            s->x[s->ns] = ccb_v3(e.x * a / len, e.y * b / len, e.z * c / len);
                            *slot = s->ns++;
                        }
                        w[r] = *slot;
                    }
                    surf_tri(s, w[0], w[1], w[2]);
                }
            }
        }
    }
#undef SLOT
    ccb_free(id);
    return 0;
}

/* The cylinder with semi-axes e.x, e.y (section) and half-length e.z: n rim vertices per ring, m
 * segments along the axis; each cap a fan about its centre, the side quads split in two. */
static int cylinder_surface(surf* s, ccb_vec3 e, int n, int m) {
    const int ns = 2 + n * (m + 1), nt = 2 * n + 2 * n * m;
    s->x = ccb_alloc((size_t)ns * sizeof(ccb_vec3));
    s->tri = ccb_alloc((size_t)nt * 3 * sizeof(int));
    if (!s->x || !s->tri) {
        return -1;
    }
    s->ns = s->nt = 0;
    s->x[s->ns++] = ccb_v3(0, 0, -e.z);
    s->x[s->ns++] = ccb_v3(0, 0, e.z);
    for (int r = 0; r <= m; ++r) {
        for (int j = 0; j < n; ++j) {
            const double a = 2 * CCB_PI * j / n;
            s->x[s->ns++] = ccb_v3(e.x * cos(a), e.y * sin(a), e.z * (2.0 * r / m - 1));
        }
    }
#define RING(r, j) (2 + (r)*n + ((j) % n))
    for (int j = 0; j < n; ++j) {
        surf_tri(s, 0, RING(0, j), RING(0, j + 1));
        surf_tri(s, 1, RING(m, j), RING(m, j + 1));
        for (int r = 0; r < m; ++r) {
            surf_tri(s, RING(r, j), RING(r, j + 1), RING(r + 1, j + 1));
            surf_tri(s, RING(r, j), RING(r + 1, j + 1), RING(r + 1, j));
        }
    }
#undef RING
    return 0;
}

/* The layered pyramids of a star-shaped surface (formulation-tamsi-hydro §F.1): the centre, L
 * scaled copies of the surface at s = l / L with p = E (1 - s), a tetrahedron at the centre and
 * L - 1 prisms per surface triangle. */
static ccb_status layered(const surf* s, int L, double E, ccb_hydro_mesh** out, char* msg,
                          size_t msz) {
    const int nv = 1 + L * s->ns, nt_max = s->nt * (3 * L - 2);
    ccb_vec3* x = ccb_alloc((size_t)nv * sizeof(ccb_vec3));
    double* p = ccb_alloc((size_t)nv * sizeof(double));
    int* t = ccb_alloc((size_t)nt_max * 4 * sizeof(int));
    ccb_status st;
    if (!x || !p || !t) {
        st = ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro solid: out of memory");
    } else {
        x[0] = ccb_v3(0, 0, 0);
        p[0] = E;
        for (int l = 1; l <= L; ++l) {
            const double sl = (double)l / L;
            for (int i = 0; i < s->ns; ++i) {
                x[1 + (l - 1) * s->ns + i] = ccb_v3_scale(sl, s->x[i]);
                p[1 + (l - 1) * s->ns + i] = l == L ? 0.0 : E * (1 - sl);
            }
        }
        int nt = 0;
        for (int j = 0; j < s->nt; ++j) {
            const int* c = s->tri + 3 * (size_t)j;
            /* counter-clockwise seen from outside: (0, c0, c1, c2) is positively oriented */
            int* o = t + 4 * (size_t)nt++;
            o[0] = 0;
            o[1] = 1 + c[0];
            o[2] = 1 + c[1];
            o[3] = 1 + c[2];
            for (int l = 2; l <= L; ++l) {
                const int a[3] = {1 + (l - 2) * s->ns + c[0], 1 + (l - 2) * s->ns + c[1],
                                  1 + (l - 2) * s->ns + c[2]};
                const int b[3] = {a[0] + s->ns, a[1] + s->ns, a[2] + s->ns};
                ccb_hydro_prism_tets(x, t, &nt, a, b);
            }
        }
        st = ccb_hydro_mesh_create(nv, x, p, nt, t, out, msg, msz);
    }
    ccb_free(x);
    ccb_free(p);
    ccb_free(t);
    return st;
}

/* A box [-e, e] of n[0] n[1] n[2] cubes, 6 tetrahedra each around the diagonal (0,0,0)-(1,1,1)
 * (the same split in every cube, so the mesh is conforming), p = E (e.z - z) / (2 e.z). */
static ccb_status slab(ccb_vec3 e, const int n[3], double E, ccb_hydro_mesh** out, char* msg,
                       size_t msz) {
    const int nx = n[0], ny = n[1], nz = n[2];
    const int nv = (nx + 1) * (ny + 1) * (nz + 1), ntet = 6 * nx * ny * nz;
    ccb_vec3* x = ccb_alloc((size_t)nv * sizeof(ccb_vec3));
    double* p = ccb_alloc((size_t)nv * sizeof(double));
    int* t = ccb_alloc((size_t)ntet * 4 * sizeof(int));
    ccb_status st;
    if (!x || !p || !t) {
        st = ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro solid: out of memory");
    } else {
#define V(i, j, k) ((i) + (nx + 1) * ((j) + (ny + 1) * (k)))
        for (int k = 0; k <= nz; ++k) {
            for (int j = 0; j <= ny; ++j) {
                for (int i = 0; i <= nx; ++i) {
                    const double z = e.z * (2.0 * k / nz - 1);
                    x[V(i, j, k)] = ccb_v3(e.x * (2.0 * i / nx - 1), e.y * (2.0 * j / ny - 1), z);
                    p[V(i, j, k)] = k == nz ? 0.0 : E * (double)(nz - k) / nz;
                }
            }
        }
        static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        int nt = 0;
        for (int k = 0; k < nz; ++k) {
            for (int j = 0; j < ny; ++j) {
                for (int i = 0; i < nx; ++i) {
                    for (int r = 0; r < 6; ++r) {
                        int c[3] = {i, j, k};
                        int* o = t + 4 * (size_t)nt++;
                        o[0] = V(c[0], c[1], c[2]);
                        for (int q = 0; q < 3; ++q) {
                            c[perm[r][q]]++;
                            o[q + 1] = V(c[0], c[1], c[2]);
                        }
                        const ccb_vec3 a = x[o[0]];
                        if (ccb_v3_dot(ccb_v3_cross(ccb_v3_sub(x[o[1]], a), ccb_v3_sub(x[o[2]], a)),
                                       ccb_v3_sub(x[o[3]], a)) < 0) {
                            const int sw = o[2];
                            o[2] = o[3];
                            o[3] = sw;
                        }
                    }
                }
            }
        }
#undef V
        st = ccb_hydro_mesh_create(nv, x, p, nt, t, out, msg, msz);
    }
    ccb_free(x);
    ccb_free(p);
    ccb_free(t);
    return st;
}

static int cells(double len, double h) {
    const double c = ceil(len / h);
    return c < 1 ? 1 : c > 1e6 ? 1000000 : (int)c;
}

ccb_status ccb_hydro_mesh_solid(const ccb_hydro_solid* d, ccb_hydro_mesh** out, char* msg,
                                size_t msz) {
    if (d == NULL || out == NULL) {
        return ccb_errorf(msg, msz, CCB_E_INVALID, "hydro solid: NULL argument");
    }
    *out = NULL;
    const ccb_vec3 e = d->size;
    const double E = d->modulus, h = d->resolution_hint;
    if (!(isfinite(e.x) && e.x > 0 && isfinite(e.y) && e.y > 0 && isfinite(e.z) && e.z > 0) ||
        !(isfinite(E) && E > 0) || !(isfinite(h) && h > 0) || d->layers < 0) {
        return ccb_errorf(msg, msz, CCB_E_INVALID,
                          "hydro solid: needs finite sizes > 0, modulus E > 0, resolution h > 0 "
                          "and layers >= 0 (got size %g %g %g m, E = %g Pa, h = %g m, %d layers)",
                          e.x, e.y, e.z, E, h, d->layers);
    }
    const double emin = fmin(e.x, fmin(e.y, e.z)), emax = fmax(e.x, fmax(e.y, e.z));
    const int L = d->layers > 0 ? d->layers : cells(emin, h);
    double ntets;
    int n[3] = {cells(2 * e.x, h), cells(2 * e.y, h), cells(2 * e.z, h)}, no = 0;
    switch (d->kind) {
    case CCB_SOLID_BOX:
        ntets =
            4.0 * ((double)n[0] * n[1] + (double)n[1] * n[2] + (double)n[2] * n[0]) * (3.0 * L - 2);
        break;
    case CCB_SOLID_ELLIPSOID:
        no = cells(0.5 * CCB_PI * emax, h);
        ntets = 8.0 * no * no * (3.0 * L - 2);
        break;
    case CCB_SOLID_SLAB: ntets = 6.0 * n[0] * n[1] * n[2]; break;
    case CCB_SOLID_CYLINDER:
        no = cells(2 * CCB_PI * fmax(e.x, e.y), h);
        no = no < 8 ? 8 : no;
        ntets = (2.0 * no + 2.0 * no * n[2]) * (3.0 * L - 2);
        break;
    default:
        return ccb_errorf(msg, msz, CCB_E_INVALID, "hydro solid: unknown kind %d", (int)d->kind);
    }
    if (ntets > CCB_HYDRO_MAX_TETS) {
        return ccb_errorf(msg, msz, CCB_E_INVALID,
                          "hydro solid: the resolution gives %.3g tetrahedra (limit %d)", ntets,
                          CCB_HYDRO_MAX_TETS);
    }
    if (d->kind == CCB_SOLID_SLAB) {
        return slab(e, n, E, out, msg, msz);
    }
    surf s = {0};
    const int rc = d->kind == CCB_SOLID_BOX        ? box_surface(&s, e, n)
                   : d->kind == CCB_SOLID_CYLINDER ? cylinder_surface(&s, e, no, n[2])
                                                   : ellipsoid_surface(&s, e, no);
    ccb_status st = rc != 0 ? ccb_errorf(msg, msz, CCB_E_NOMEM, "hydro solid: out of memory")
                            : layered(&s, L, E, out, msg, msz);
    surf_free(&s);
    return st;
}
