/* Unit tests of hydro (spec: formulation-tamsi-hydro §F): the slice of one tetrahedron against
 * closed forms, the force of a uniformly pressed disk, continuity of the force as faces appear,
 * polygons vs triangles, mesh construction and quality errors, and the per-face point contacts
 * of the geometry query. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "test.h"

/* Round-off of sums over O(1e3) faces of O(1) terms. */
#define TOL_ROUND 1e-12
#define BASIS_ROUND "round-off of a few hundred floating-point operations"

static const ccb_pose k_identity = {{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}};

/* p = 2 + 3x - y + 5z on the unit tetrahedron */
static double lin_p(ccb_vec3 x) {
    return 2 + 3 * x.x - x.y + 5 * x.z;
}

static ccb_hydro_mesh* unit_tet(void) {
    const ccb_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double p[4];
    for (int i = 0; i < 4; ++i) {
        p[i] = lin_p(v[i]);
    }
    const int t[4] = {0, 1, 2, 3};
    ccb_hydro_mesh* m = NULL;
    char msg[256];
    CHECK(ccb_hydro_mesh_create(4, v, p, 1, t, &m, msg, sizeof msg) == CCB_OK, "%s", msg);
    return m;
}

static void test_single_tet(void) {
    ccb_hydro_mesh* m = unit_tet();
    if (m == NULL) {
        return;
    }
    char msg[256];
    ccb_hydro_surface s = {0};
    /* 1-3 split: plane z = c, n = +z: triangle (0,0,c) (1-c,0,c) (0,1-c,c) */
    const double c = 0.3;
    for (int repr = 0; repr < 2; ++repr) {
        CHECK(ccb_hydro_slice(m, &k_identity, ccb_v3(0, 0, c), ccb_v3(0, 0, 1), repr, &s, msg,
                              sizeof msg) == CCB_OK,
              "%s", msg);
        double A = 0, F = 0;
        ccb_vec3 mom = ccb_v3(0, 0, 0);
        for (int f = 0; f < s.n; ++f) {
            A += s.faces[f].area;
            F += s.faces[f].area * s.faces[f].pressure;
            mom = ccb_v3_add(mom, ccb_v3_scale(s.faces[f].area, s.faces[f].centroid));
            CHECK_ABS(s.faces[f].gradient, 5.0, TOL_ROUND, "g = grad p . n = 5");
            CHECK_ABS(s.faces[f].pressure, lin_p(s.faces[f].centroid), TOL_ROUND,
                      "p(c) of the linear field");
        }
        CHECK(s.n == (repr == 0 ? 1 : 3), "faces %d (repr %d)", s.n, repr);
        const double a = 1 - c, Aex = 0.5 * a * a;
        const ccb_vec3 cex = ccb_v3(a / 3, a / 3, c);
        CHECK_ABS(A, Aex, TOL_ROUND, "area (1-c)^2/2 of the cross-section");
        CHECK_ABS(F, Aex * lin_p(cex), TOL_ROUND, "integral of p = A p(centroid), exact");
        CHECK_ABS(mom.x / A, cex.x, TOL_ROUND, "centroid x = (1-c)/3");
        CHECK_ABS(mom.y / A, cex.y, TOL_ROUND, "centroid y = (1-c)/3");
    }
    /* 2-2 split: plane x + y = s (n = (1,1,0)/sqrt 2): rectangle sqrt2 s by (1 - s), centroid
     * (s/2, s/2, (1-s)/2) */
    const double sp = 0.4, r2 = sqrt(0.5);
    CHECK(ccb_hydro_slice(m, &k_identity, ccb_v3(sp, 0, 0), ccb_v3(r2, r2, 0), CCB_HYDRO_POLYGONS,
                          &s, msg, sizeof msg) == CCB_OK,
          "%s", msg);
    CHECK(s.n == 1 && s.faces[0].nverts == 4, "one quadrilateral (n %d)", s.n);
    if (s.n == 1) {
        const ccb_hydro_face* f = &s.faces[0];
        CHECK_ABS(f->area, sqrt(2.0) * sp * (1 - sp), TOL_ROUND, "area sqrt2 s (1-s)");
        CHECK_ABS(f->centroid.x, sp / 2, TOL_ROUND, "centroid x");
        CHECK_ABS(f->centroid.y, sp / 2, TOL_ROUND, "centroid y");
        CHECK_ABS(f->centroid.z, (1 - sp) / 2, TOL_ROUND, "centroid z");
        CHECK_ABS(f->gradient, (3 - 1) * r2, TOL_ROUND, "g = (3, -1, 5) . n");
        CHECK_ABS(f->pressure, lin_p(f->centroid), TOL_ROUND, "p(c)");
    }
    /* a plane that misses the tetrahedron, and one that contains all of it */
    CHECK(ccb_hydro_slice(m, &k_identity, ccb_v3(0, 0, -1), ccb_v3(0, 0, 1), 0, &s, msg,
                          sizeof msg) == CCB_OK &&
              s.n == 0,
          "no faces below the tetrahedron");
    CHECK(ccb_hydro_slice(m, &k_identity, ccb_v3(0, 0, 2), ccb_v3(0, 0, 1), 0, &s, msg,
                          sizeof msg) == CCB_OK &&
              s.n == 0,
          "no faces when the tetrahedron is fully inside");
    /* bad plane normal */
    CHECK(ccb_hydro_slice(m, &k_identity, ccb_v3(0, 0, 0), ccb_v3(0, 0, 2), 0, &s, msg,
                          sizeof msg) != CCB_OK,
          "non-unit normal rejected");
    ccb_hydro_surface_free(&s);
    ccb_hydro_mesh_destroy(m);
}

/* Disk of radius R, thickness L, modulus E with its bottom cap at depth delta below the plane
 * z = 0 (n = +z), optionally tilted about x by `tilt`. */
static int slice_disk(const ccb_hydro_mesh* m, double H, double delta, double tilt,
                      ccb_hydro_repr repr, ccb_hydro_surface* s) {
    ccb_pose X = k_identity;
    X.R = ccb_m3_axis_angle(ccb_v3(1, 0, 0), tilt);
    X.p = ccb_v3(0, 0, H - delta);
    char msg[256];
    const ccb_status st =
        ccb_hydro_slice(m, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), repr, s, msg, sizeof msg);
    CHECK(st == CCB_OK, "%s", msg);
    return st == CCB_OK ? 0 : -1;
}

static ccb_hydro_mesh* fan_disk(int n, double R, double L, double E) {
    const ccb_hydro_disk d = {R, L, E, CCB_DISK_FAN, 0, n};
    ccb_hydro_mesh* m = NULL;
    char msg[256];
    CHECK(ccb_hydro_mesh_disk(&d, &m, msg, sizeof msg) == CCB_OK, "%s", msg);
    return m;
}

static void test_disk_mesh(void) {
    const double R = 0.1, L = 0.02, E = 1e6, H = 0.01;
    for (int n = 3; n <= 152; n = n * 2 + 1) {
        ccb_hydro_mesh* m = fan_disk(n, R, L, E);
        if (m == NULL) {
            return;
        }
        CHECK(ccb_hydro_mesh_ntets(m) == 9 * n, "FAN: 9n tetrahedra (n %d: %d)", n,
              ccb_hydro_mesh_ntets(m));
        CHECK(ccb_hydro_mesh_nverts(m) == 3 * n + 3, "FAN: 3n+3 vertices (n %d: %d)", n,
              ccb_hydro_mesh_nverts(m));
        /* polygonal cylinder volume: n/2 R^2 sin(2 pi/n) L */
        CHECK_REL(ccb_hydro_mesh_volume(m), 0.5 * n * R * R * sin(2 * CCB_PI / n) * L, TOL_ROUND, 0,
                  "volume of the polygonal cylinder, exact tiling");
        ccb_hydro_mesh_destroy(m);
    }
    /* Drake's resolution rule: n = ceil(2 pi R / h) */
    const ccb_hydro_disk dh = {0.01213, 1.75e-3, 1e7, CCB_DISK_FAN, 0.5e-3, 0};
    ccb_hydro_mesh* m = NULL;
    char msg[256];
    CHECK(ccb_hydro_mesh_disk(&dh, &m, msg, sizeof msg) == CCB_OK, "%s", msg);
    CHECK(ccb_hydro_mesh_rim(m) == 153, "n = ceil(2 pi 12.13 / 0.5) = 153 (got %d)",
          ccb_hydro_mesh_rim(m));
    ccb_hydro_mesh_destroy(m);
    /* polar layout: 8 Nr sectors, volume of the polygonal cylinder */
    const ccb_hydro_disk dp = {R, L, E, CCB_DISK_POLAR, 0, 4};
    CHECK(ccb_hydro_mesh_disk(&dp, &m, msg, sizeof msg) == CCB_OK, "%s", msg);
    CHECK(ccb_hydro_mesh_rim(m) == 32, "POLAR(4): 32 sectors");
    CHECK_REL(ccb_hydro_mesh_volume(m), 0.5 * 32 * R * R * sin(2 * CCB_PI / 32) * L, TOL_ROUND, 0,
              "POLAR volume, exact tiling");
    ccb_hydro_mesh_destroy(m);
    /* bad parameters */
    const ccb_hydro_disk bad[] = {{R, 2 * R, E, CCB_DISK_FAN, 0, 8},
                                  {R, L, 0, CCB_DISK_FAN, 0, 8},
                                  {R, L, E, CCB_DISK_FAN, NAN, 0},
                                  {R, L, E, CCB_DISK_POLAR, 1e-6, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        m = NULL;
        CHECK(ccb_hydro_mesh_disk(&bad[i], &m, msg, sizeof msg) == CCB_E_INVALID && m == NULL &&
                  msg[0] != 0,
              "bad disk %zu rejected with a message", i);
    }
    (void)H;
}

/* The surface of a disk mesh (ccb_hydro_mesh_surface): 4n triangles for a fan (n per cap, 2 per
 * rim edge), closed (every edge in exactly two triangles, traversed once each way: consistently
 * oriented), facing outwards: by the divergence theorem (1/3) sum over triangles of c . A n equals
 * the mesh volume [to round-off of the sums], and sum A n = 0. */
static void test_disk_surface(void) {
    char msg[256];
    const ccb_hydro_disk defs[] = {{0.1, 0.02, 1e6, CCB_DISK_FAN, 0, 7},
                                   {0.1, 0.02, 1e6, CCB_DISK_POLAR, 0, 3}};
    for (int d = 0; d < 2; ++d) {
        ccb_hydro_mesh* m = NULL;
        CHECK(ccb_hydro_mesh_disk(&defs[d], &m, msg, sizeof msg) == CCB_OK, "%s", msg);
        const int nt = ccb_hydro_mesh_nsurface(m), nv = ccb_hydro_mesh_nverts(m);
        const int* tri = ccb_hydro_mesh_surface(m);
        const ccb_vec3* x = ccb_hydro_mesh_verts(m);
        if (d == 0) {
            CHECK(nt == 4 * 7, "FAN(7) surface: 4n = 28 triangles (got %d)", nt);
        }
        /* directed edges: each must occur once, and its reverse once */
        int* cnt = calloc((size_t)nv * (size_t)nv, sizeof(int));
        double vol = 0;
        ccb_vec3 sum = ccb_v3(0, 0, 0);
        for (int t = 0; t < nt && cnt; ++t) {
            const int* v = tri + 3 * t;
            for (int e = 0; e < 3; ++e) {
                cnt[v[e] * nv + v[(e + 1) % 3]]++;
            }
            const ccb_vec3 an = ccb_v3_scale(
                0.5, ccb_v3_cross(ccb_v3_sub(x[v[1]], x[v[0]]), ccb_v3_sub(x[v[2]], x[v[0]])));
            const ccb_vec3 c =
                ccb_v3_scale(1.0 / 3.0, ccb_v3_add(ccb_v3_add(x[v[0]], x[v[1]]), x[v[2]]));
            vol += ccb_v3_dot(c, an) / 3.0;
            sum = ccb_v3_add(sum, an);
        }
        int open = 0, twice = 0;
        for (int i = 0; i < nv && cnt; ++i) {
            for (int j = 0; j < nv; ++j) {
                open += cnt[i * nv + j] != cnt[j * nv + i];
                twice += cnt[i * nv + j] > 1;
            }
        }
        CHECK(cnt != NULL && open == 0 && twice == 0,
              "layout %d: closed and consistently oriented (%d unmatched, %d repeated edges)", d,
              open, twice);
        CHECK_REL(vol, ccb_hydro_mesh_volume(m), TOL_ROUND, 0,
                  "divergence theorem: the surface faces outwards and encloses the mesh");
        CHECK_ABS(ccb_v3_norm(sum), 0, TOL_ROUND * 0.1 * 0.1, "closed surface: sum of A n = 0");
        free(cnt);
        ccb_hydro_mesh_destroy(m);
    }
}

static void test_mesh_quality(void) {
    const ccb_vec3 v[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
    const double p[5] = {0, 0, 0, 1, 0};
    char msg[256];
    ccb_hydro_mesh* m = NULL;
    const int inverted[4] = {0, 2, 1, 3};
    CHECK(ccb_hydro_mesh_create(5, v, p, 1, inverted, &m, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "inverted") != NULL && m == NULL,
          "inverted tetrahedron rejected (%s)", msg);
    const int flat[4] = {0, 1, 2, 4};
    CHECK(ccb_hydro_mesh_create(5, v, p, 1, flat, &m, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "degenerate") != NULL,
          "degenerate tetrahedron rejected (%s)", msg);
    const int range[4] = {0, 1, 2, 7};
    CHECK(ccb_hydro_mesh_create(5, v, p, 1, range, &m, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "out of range") != NULL,
          "index out of range rejected (%s)", msg);
    const double pn[5] = {0, NAN, 0, 1, 0};
    const int ok[4] = {0, 1, 2, 3};
    CHECK(ccb_hydro_mesh_create(5, v, pn, 1, ok, &m, msg, sizeof msg) == CCB_E_INVALID,
          "non-finite pressure rejected (%s)", msg);
}

/* Flat disk pressed to depth delta: inside the medial cone the slice lies where p = E delta/H
 * (uniform); that region is the n-gon of circumradius R - delta, so its faces carry exactly
 * E delta/H (n/2)(R - delta)^2 sin(2 pi/n); the rim strip beyond carries 0 <= p <= E delta/H.
 * Every face integrates its linear field exactly: A p(c) equals the vertex rule. */
static void test_pressed_disk(void) {
    const double R = 0.1, L = 0.02, E = 1e6, H = 0.01, delta = 1e-6;
    const int n = 64;
    ccb_hydro_mesh* m = fan_disk(n, R, L, E);
    if (m == NULL) {
        return;
    }
    ccb_hydro_surface s = {0};
    if (slice_disk(m, H, delta, 0, CCB_HYDRO_POLYGONS, &s) == 0) {
        double F_in = 0, F_rim = 0, A_in = 0;
        const int ninterior = 6 * n; /* the cap prisms' tetrahedra come first */
        const ccb_vec3* x = ccb_hydro_mesh_verts(m);
        const double* pv = ccb_hydro_mesh_pressure(m);
        const int* tets = ccb_hydro_mesh_tets(m);
        double worst = 0;
        for (int f = 0; f < s.n; ++f) {
            const ccb_hydro_face* fc = &s.faces[f];
            const double Fp = fc->area * fc->pressure;
            if (fc->tet < ninterior) {
                F_in += Fp;
                A_in += fc->area;
                CHECK_REL(fc->pressure, E * delta / H, 1e-9, 0,
                          "uniform pressure E delta/H inside the medial cone");
            } else {
                F_rim += Fp;
            }
            /* vertex rule: sum over the fan triangles of area x mean vertex pressure, pressures
             * interpolated barycentrically in the tetrahedron (independent of p(c)) */
            const int* t = tets + 4 * fc->tet;
            double Fv = 0;
            for (int j = 1; j + 1 < fc->nverts; ++j) {
                const ccb_vec3 tri[3] = {fc->verts[0], fc->verts[j], fc->verts[j + 1]};
                const double a = 0.5 * ccb_v3_norm(ccb_v3_cross(ccb_v3_sub(tri[1], tri[0]),
                                                                ccb_v3_sub(tri[2], tri[0])));
                double pm = 0;
                for (int k = 0; k < 3; ++k) {
                    /* barycentric coordinates of tri[k] in the tetrahedron (mesh frame: shift z) */
                    const ccb_vec3 q = ccb_v3(tri[k].x, tri[k].y, tri[k].z - (H - delta));
                    const ccb_vec3 e1 = ccb_v3_sub(x[t[1]], x[t[0]]),
                                   e2 = ccb_v3_sub(x[t[2]], x[t[0]]),
                                   e3 = ccb_v3_sub(x[t[3]], x[t[0]]), r = ccb_v3_sub(q, x[t[0]]);
                    const double det = ccb_v3_dot(e1, ccb_v3_cross(e2, e3));
                    const double b1 = ccb_v3_dot(r, ccb_v3_cross(e2, e3)) / det,
                                 b2 = ccb_v3_dot(e1, ccb_v3_cross(r, e3)) / det,
                                 b3 = ccb_v3_dot(e1, ccb_v3_cross(e2, r)) / det;
                    pm += ((1 - b1 - b2 - b3) * pv[t[0]] + b1 * pv[t[1]] + b2 * pv[t[2]] +
                           b3 * pv[t[3]]) /
                          3;
                }
                Fv += a * pm;
            }
            worst = fmax(worst, fabs(Fv - Fp) / fmax(fabs(Fp), 1e-300));
        }
        const double area_in = 0.5 * n * (R - delta) * (R - delta) * sin(2 * CCB_PI / n);
        CHECK_REL(A_in, area_in, 1e-10, 0, "interior slice = n-gon of circumradius R - delta");
        CHECK_REL(F_in, E * delta / H * area_in, 1e-10, 0,
                  "interior force = E delta/H x n-gon area (integral of p, exact)");
        const double strip = 0.5 * n * (R * R - (R - delta) * (R - delta)) * sin(2 * CCB_PI / n);
        CHECK(F_rim >= 0 && F_rim <= E * delta / H * strip * (1 + 1e-9),
              "rim strip force %.6e within [0, E delta/H x strip area %.6e]", F_rim,
              E * delta / H * strip);
        CHECK(worst <= 1e-9,
              "face force A p(c) = vertex rule to %.3e (tol 1e-9: round-off of "
              "barycentric coordinates of O(delta) slivers)",
              worst);
        /* the skip rule drops slivers of area <= 1e-14 m^2 at p <= E delta/H: negligible */
        CHECK(s.nskipped * CCB_HYDRO_MIN_AREA * E * delta / H <= 1e-10 * F_in,
              "skipped faces (%d) carry < 1e-10 of the force", s.nskipped);
    }
    ccb_hydro_surface_free(&s);
    ccb_hydro_mesh_destroy(m);
}

static void sums(const ccb_hydro_surface* s, double* F, ccb_vec3* M) {
    *F = 0;
    *M = ccb_v3(0, 0, 0);
    for (int f = 0; f < s->n; ++f) {
        const double fn = s->faces[f].area * s->faces[f].pressure;
        *F += fn;
        *M = ccb_v3_add(*M, ccb_v3_cross(s->faces[f].centroid, ccb_v3(0, 0, fn)));
    }
}

/* Polygons and triangles carry the same net force (each polygon's triangles integrate the same
 * linear field over the same area); moments differ at O(face size^2)
 * (formulation-tamsi-hydro §F.5). */
static void test_representations(void) {
    const double R = 0.1, L = 0.02, E = 1e6, H = 0.01;
    ccb_hydro_mesh* m = fan_disk(40, R, L, E);
    if (m == NULL) {
        return;
    }
    ccb_hydro_surface sp = {0}, st = {0};
    const double tilts[3] = {0, 0.02, 0.2};
    for (int i = 0; i < 3; ++i) {
        if (slice_disk(m, H, 2e-3, tilts[i], CCB_HYDRO_POLYGONS, &sp) ||
            slice_disk(m, H, 2e-3, tilts[i], CCB_HYDRO_TRIANGLES, &st)) {
            break;
        }
        double Fp, Ft;
        ccb_vec3 Mp, Mt;
        sums(&sp, &Fp, &Mp);
        sums(&st, &Ft, &Mt);
        CHECK(st.n >= 3 * sp.n - 3 * sp.nskipped, "triangles %d >= 3 x polygons %d", st.n, sp.n);
        CHECK_REL(Ft, Fp, 1e-12, 0, "same net force (sum of A p over a polygon's triangles)");
    }
    ccb_hydro_surface_free(&sp);
    ccb_hydro_surface_free(&st);
    ccb_hydro_mesh_destroy(m);
}

/* As the tilted disk sinks, faces appear with zero area: F(delta) is continuous. A jump J at
 * some depth would show as a step |dF| >= J on every grid; on a grid 10x finer the largest step
 * must shrink about 10x (Lipschitz), bound: 2x the coarse slope times the fine spacing. */
static void test_force_continuity(void) {
    const double R = 0.1, L = 0.02, E = 1e6, H = 0.01, tilt = 0.05;
    ccb_hydro_mesh* m = fan_disk(24, R, L, E);
    if (m == NULL) {
        return;
    }
    ccb_hydro_surface s = {0};
    const double d0 = 1e-5, d1 = 2 * R * sin(tilt) + 2e-3; /* from a corner to beyond flat */
    double slope_coarse = 0, step_fine = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const int N = pass == 0 ? 300 : 3000;
        double prev = NAN;
        for (int k = 0; k <= N; ++k) {
            const double d = d0 + (d1 - d0) * k / N;
            if (slice_disk(m, H, d, tilt, CCB_HYDRO_POLYGONS, &s)) {
                break;
            }
            double F;
            ccb_vec3 M;
            sums(&s, &F, &M);
            if (k > 0) {
                const double dF = fabs(F - prev);
                if (pass == 0) {
                    slope_coarse = fmax(slope_coarse, dF / ((d1 - d0) / N));
                } else {
                    step_fine = fmax(step_fine, dF);
                }
            }
            prev = F;
        }
    }
    const double bound = 2 * slope_coarse * (d1 - d0) / 3000;
    CHECK(step_fine > 0 && step_fine <= bound,
          "largest force step on the fine grid %.6e <= 2 x coarse slope x spacing %.6e (a jump "
          "would not shrink)",
          step_fine, bound);
    ccb_hydro_surface_free(&s);
    ccb_hydro_mesh_destroy(m);
}

/* Unfinalized model: a FREE disk of mass m (inertia of a thin disk of radius R) at pose X with
 * twist V carrying `mesh` (copied by the model) with material `disk`, over a fixed half-space
 * z <= 0 with material `floor` and hydro_slab `slab` (0: rigid). */
static ccb_model* disk_model(const ccb_hydro_mesh* mesh, double m, double R, ccb_pose X,
                             ccb_twist V, ccb_material floor, double slab, ccb_material disk,
                             int* ig, int* ic) {
    ccb_model* model = NULL;
    ccb_model_create(&model);
    ccb_body_def gd = ccb_body_def_default();
    gd.name = "ground";
    gd.mobilizer = CCB_MOBILIZER_FIXED;
    gd.pose = k_identity;
    ccb_body_def c = ccb_body_def_default();
    c.name = "disk";
    c.mobilizer = CCB_MOBILIZER_FREE;
    c.mass = m;
    c.inertia = ccb_m3_identity();
    c.inertia.m[8] = 0.5 * m * R * R;
    c.inertia.m[0] = c.inertia.m[4] = 0.25 * m * R * R;
    c.pose = X;
    c.twist = V;
    ccb_model_add_body(model, &gd, ig);
    ccb_model_add_body(model, &c, ic);
    ccb_shape_def plane = ccb_shape_def_default();
    plane.material = floor;
    plane.hydro_slab = slab;
    ccb_shape_def hs = ccb_shape_def_default();
    hs.type = CCB_SHAPE_HYDRO;
    hs.mesh = mesh;
    hs.material = disk;
    CHECK(ccb_model_add_shape(model, *ig, &plane, NULL) == CCB_OK, "%s",
          ccb_model_last_error(model));
    CHECK(ccb_model_add_shape(model, *ic, &hs, NULL) == CCB_OK, "%s", ccb_model_last_error(model));
    return model;
}

/* Finalized disk_model over a rigid floor with friction 0.5 at height z; the disk has modulus
 * E, dissipation d and relaxation time tau; `mesh` is destroyed. NULL on failure. */
static ccb_model* disk_on_plane(ccb_hydro_mesh* mesh, double m, double R, double z, ccb_twist V,
                                double E, double d, double tau, int* ig, int* ic) {
    ccb_pose X = k_identity;
    X.p = ccb_v3(0, 0, z);
    ccb_model* model = disk_model(mesh, m, R, X, V, (ccb_material){INFINITY, 0, 0, 0.5, 0.0}, 0,
                                  (ccb_material){E, d, tau, 0.5, 0.0}, ig, ic);
    ccb_hydro_mesh_destroy(mesh); /* the model holds its own copy */
    if (ccb_model_finalize(model) != CCB_OK) {
        CHECK(0, "finalize: %s", ccb_model_last_error(model));
        ccb_model_destroy(model);
        return NULL;
    }
    return model;
}

/* The geometry query turns each face into a point contact: k = A g, phi0 = -p0/g, so that
 * k (-phi0) = A p0 (formulation-tamsi-hydro §F.4 eqs 15-16), all at the face centroids, normal +z.
 * */
static void test_geometry_contacts(void) {
    const double R = 0.05, L = 0.01, E = 2e6, H = 0.005, delta = 1e-5;
    ccb_hydro_mesh* mesh = fan_disk(16, R, L, E);
    if (mesh == NULL) {
        return;
    }
    int ig, ic;
    ccb_model* model = disk_on_plane(mesh, 0.1, R, H - delta, (ccb_twist){{0, 0, 0}, {0, 0, 0}}, E,
                                     3.0, 0, &ig, &ic);
    if (model == NULL) {
        return;
    }
    double q[7], v[6];
    ccb_model_initial_state(model, q, v);
    ccb_contact_set cs = {0};
    char msg[256];
    CHECK(ccb_geometry_query(model, 0, q, 0.1, &cs, msg, sizeof msg) == CCB_OK, "%s", msg);
    double F = 0;
    for (int i = 0; i < cs.n; ++i) {
        const ccb_contact* ct = &cs.items[i];
        F += ct->material.k * -ct->phi0;
        CHECK(ct->body_a == ig && ct->body_b == ic, "half-space is body A");
        CHECK_ABS(ct->R_WC.m[8], 1.0, TOL_ROUND, "normal +z");
        CHECK_ABS(ct->material.d, 3.0, 0, "dissipation of the compliant side");
    }
    const int n = 16;
    const double Fex = E * delta / H * 0.5 * n * R * R * sin(2 * CCB_PI / n);
    CHECK_REL(F, Fex, 2 * delta / R, 0,
              "sum k(-phi0) = integral of p: n-gon x E delta/H up to the rim strip (2 delta/R)");
    ccb_contact_set_free(&cs);
    ccb_model_destroy(model);
}

/* Rigid fan disk (its surface triangles) pressed to depth delta into a compliant half-space of
 * modulus E and slab H_s (formulation-tamsi-hydro §F.2, third case): the faces are the n bottom fan
 * triangles and the side triangles' parts below the plane; the fan carries exactly E delta/H_s x
 * the n-gon area (the clipped triangles lie in the plane z = -delta: uniform pressure), the side
 * parts face sideways (g = 0: skipped). Tilted, the force stays continuous and polygons =
 * triangles. */
static void test_clip_rigid_disk(void) {
    const double R = 0.1, L = 0.02, E = 1e6, H = 0.01, Hs = 0.05, delta = 1e-4;
    const int n = 32;
    ccb_hydro_mesh* m = fan_disk(n, R, L, E);
    if (m == NULL) {
        return;
    }
    CHECK(ccb_hydro_mesh_nsurface(m) == 4 * n, "surface: 2 fans of n + 2n side triangles (%d)",
          ccb_hydro_mesh_nsurface(m));
    char msg[256];
    ccb_hydro_surface s = {0};
    ccb_pose X = k_identity;
    X.p = ccb_v3(0, 0, H - delta);
    CHECK(ccb_hydro_clip(m, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), E, Hs, CCB_HYDRO_POLYGONS, &s,
                         msg, sizeof msg) == CCB_OK,
          "%s", msg);
    double F = 0, A = 0;
    int bottom = 0;
    for (int f = 0; f < s.n; ++f) {
        const ccb_hydro_face* fc = &s.faces[f];
        F += fc->area * fc->pressure;
        if (fabs(fc->normal.z - 1) < 1e-12) {
            bottom++;
            A += fc->area;
            CHECK_REL(fc->pressure, E * delta / Hs, 1e-9, 0, "uniform p = E delta/H_s");
            CHECK_REL(fc->gradient, E / Hs, 1e-12, 0, "g = E/H_s (rigid limit)");
        }
    }
    CHECK(bottom == n, "n bottom faces (%d)", bottom);
    const double area = 0.5 * n * R * R * sin(2 * CCB_PI / n);
    CHECK_REL(A, area, 1e-12, 0, "bottom faces tile the n-gon");
    CHECK_REL(F, E * delta / Hs * area, 1e-9, 0, "force = E delta/H_s x n-gon area (exact)");
    CHECK(ccb_hydro_clip(m, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), 0, Hs, CCB_HYDRO_POLYGONS, &s,
                         msg, sizeof msg) == CCB_E_INVALID,
          "modulus 0 rejected");
    /* tilted by 0.05 rad: continuity of F(delta) and equal net force of both representations */
    X.R = ccb_m3_axis_angle(ccb_v3(1, 0, 0), 0.05);
    ccb_hydro_surface st = {0};
    double prev = NAN, step = 0, slope = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const int N = pass ? 2000 : 200;
        prev = NAN;
        for (int k = 0; k <= N; ++k) {
            const double d = 1e-5 + 0.012 * k / N;
            X.p = ccb_v3(0, 0, H - d);
            ccb_hydro_clip(m, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), E, Hs, CCB_HYDRO_POLYGONS, &s,
                           msg, sizeof msg);
            double Fp = 0;
            for (int f = 0; f < s.n; ++f) {
                Fp += s.faces[f].area * s.faces[f].pressure;
            }
            if (pass == 1 && k % 97 == 0) {
                ccb_hydro_clip(m, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), E, Hs, CCB_HYDRO_TRIANGLES,
                               &st, msg, sizeof msg);
                double Ft = 0;
                for (int f = 0; f < st.n; ++f) {
                    Ft += st.faces[f].area * st.faces[f].pressure;
                }
                CHECK_REL(Ft, Fp, 1e-12, 1e-300, "triangles and polygons: same net force");
            }
            if (k > 0) {
                if (pass == 0) {
                    slope = fmax(slope, fabs(Fp - prev) / (0.012 / N));
                } else {
                    step = fmax(step, fabs(Fp - prev));
                }
            }
            prev = Fp;
        }
    }
    CHECK(step > 0 && step <= 2 * slope * 0.012 / 2000,
          "largest force step %.6e <= 2 x coarse slope x spacing %.6e", step,
          2 * slope * 0.012 / 2000);
    ccb_hydro_surface_free(&s);
    ccb_hydro_surface_free(&st);
    ccb_hydro_mesh_destroy(m);
}

/* Pairs without a query and bad shape definitions are rejected with a message. */
static void test_hydro_shape_errors(void) {
    ccb_hydro_mesh* mesh = fan_disk(8, 0.05, 0.01, 1e6);
    if (mesh == NULL) {
        return;
    }
    ccb_model* model = NULL;
    ccb_model_create(&model);
    ccb_body_def b = ccb_body_def_default();
    b.mobilizer = CCB_MOBILIZER_FREE;
    b.inertia = ccb_m3_identity();
    b.name = "disk";
    int id, is;
    ccb_model_add_body(model, &b, &id);
    b.name = "ball";
    b.pose.p = ccb_v3(1, 0, 0);
    ccb_model_add_body(model, &b, &is);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.type = CCB_SHAPE_HYDRO;
    hs.material = (ccb_material){1e6, 0, 0, 0.5, 0.0};
    CHECK(ccb_model_add_shape(model, id, &hs, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(model), "needs a mesh"),
          "hydro shape without a mesh rejected (%s)", ccb_model_last_error(model));
    hs.mesh = mesh;
    hs.hydro_slab = 0.01;
    CHECK(ccb_model_add_shape(model, id, &hs, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(model), "only for a half-space"),
          "hydro_slab on a mesh rejected (%s)", ccb_model_last_error(model));
    hs.hydro_slab = 0;
    hs.material.k = 1e6;
    CHECK(ccb_model_add_shape(model, id, &hs, NULL) == CCB_OK, "%s", ccb_model_last_error(model));
    ccb_shape_def sp = ccb_shape_def_default();
    sp.type = CCB_SHAPE_SPHERE;
    sp.radius = 0.05;
    sp.material = (ccb_material){1e6, 0, 0, 0.5, 0.0};
    ccb_model_add_shape(model, is, &sp, NULL);
    CHECK(ccb_model_finalize(model) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(model), "no contact query for hydroelastic mesh"),
          "hydro mesh vs sphere: finalize names the pair (%s)", ccb_model_last_error(model));
    ccb_model_destroy(model);
    /* rigid mesh on a rigid half-space, and a compliant mesh on a compliant half-space: no
     * hydroelastic query (exactly one side must be compliant) */
    for (int v = 0; v < 2; ++v) {
        int ig, ic;
        ccb_pose X = k_identity;
        X.p = ccb_v3(0, 0, 0.004);
        const ccb_material mat = {v ? 1e6 : INFINITY, 0, 0, 0.5, 0.0};
        ccb_model* mm = disk_model(mesh, 1, 0.05, X, (ccb_twist){{0, 0, 0}, {0, 0, 0}}, mat,
                                   v ? 0.01 : 0, mat, &ig, &ic);
        CHECK(ccb_model_finalize(mm) == CCB_E_INVALID &&
                  strstr(ccb_model_last_error(mm), "no contact query"),
              "%s hydro pair rejected at finalize (%s)", v ? "compliant-compliant" : "rigid-rigid",
              ccb_model_last_error(mm));
        ccb_model_destroy(mm);
    }
    ccb_hydro_mesh_destroy(mesh);
}

/* A rigid disk tilted on a compliant half-space: the geometry query gives one contact per
 * clipped triangle with the triangle's inward normal, k = A g, k (-phi0) = A p0. */
static void test_soft_halfspace_contacts(void) {
    const double R = 0.05, L = 0.01, E = 2e6, Hs = 0.02, tilt = 0.1;
    ccb_hydro_mesh* mesh = fan_disk(12, R, L, E);
    if (mesh == NULL) {
        return;
    }
    int ig, ic;
    ccb_pose X = k_identity;
    X.R = ccb_m3_axis_angle(ccb_v3(1, 0, 0), tilt);
    X.p = ccb_v3(0, 0, 0.004);
    ccb_model* model = disk_model(mesh, 1, R, X, (ccb_twist){{0, 0, 0}, {0, 0, 0}},
                                  (ccb_material){E, 7.0, 0, 0.5, 0.0}, Hs,
                                  (ccb_material){INFINITY, 0, 0, 0.5, 0.0}, &ig, &ic);
    CHECK(ccb_model_finalize(model) == CCB_OK, "%s", ccb_model_last_error(model));
    double q[7], v[6];
    ccb_model_initial_state(model, q, v);
    ccb_contact_set cs = {0};
    char msg[256];
    CHECK(ccb_geometry_query(model, 0, q, 0.1, &cs, msg, sizeof msg) == CCB_OK, "%s", msg);
    ccb_hydro_surface s = {0};
    ccb_hydro_clip(mesh, &X, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), E, Hs, CCB_HYDRO_POLYGONS, &s, msg,
                   sizeof msg);
    CHECK(cs.n == s.n && cs.n > 0, "one contact per clipped face (%d, %d)", cs.n, s.n);
    const ccb_vec3 nb = ccb_m3_mul_v(&X.R, ccb_v3(0, 0, 1)); /* inward normal of the bottom cap */
    int bottom = 0;
    for (int i = 0; i < cs.n && i < s.n; ++i) {
        const ccb_contact* ct = &cs.items[i];
        const ccb_vec3 n = ccb_m3_col(&ct->R_WC, 2);
        CHECK_ABS(ct->material.k * -ct->phi0, s.faces[i].area * s.faces[i].pressure, 1e-9,
                  "k (-phi0) = A p0");
        CHECK_ABS(ct->material.d, 7.0, 0, "dissipation of the compliant half-space");
        if (ccb_v3_norm(ccb_v3_sub(n, nb)) < 1e-12) {
            bottom++;
            CHECK_REL(s.faces[i].gradient, E / Hs * cos(tilt), 1e-12, 0,
                      "g = (E/H_s) cos(tilt) along the tilted face normal");
        }
    }
    CHECK(bottom > 0, "bottom faces carry the tilted cap normal (%d)", bottom);
    ccb_hydro_surface_free(&s);
    ccb_contact_set_free(&cs);
    ccb_model_destroy(model);
    ccb_hydro_mesh_destroy(mesh);
}

/* A sliding, spinning disk on hydroelastic contact steps without allocating once the contact
 * surface and solver workspaces have grown (STYLE §4) [exact: 0], for the convex solver and
 * TAMSI; the step's faces carry the weight. */
static void test_disk_steps_without_allocation(void) {
    const double R = 0.05, L = 0.01, E = 2e6, H = 0.005, m = 0.1, g = 9.81;
    ccb_hydro_mesh* mesh = fan_disk(24, R, L, E);
    if (mesh == NULL) {
        return;
    }
    const double area = 0.5 * 24 * R * R * sin(2 * CCB_PI / 24);
    const double sink = m * g * L / (2 * E * area);
    int ig, ic;
    ccb_model* model = disk_on_plane(mesh, m, R, H - sink, (ccb_twist){{0, 0, 5}, {0.2, 0, 0}}, E,
                                     10.0, 1e-3, &ig, &ic);
    if (model == NULL) {
        return;
    }
    for (int solver = 0; solver < 2; ++solver) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = 1e-4;
        p.solver = solver ? CCB_SOLVER_TAMSI : CCB_SOLVER_NEWTON;
        p.approx = &ccb_approx_lagged;
        ccb_sim* sim = NULL;
        CHECK(ccb_sim_create(model, &p, &sim, NULL, 0) == CCB_OK, "sim");
        check_steps_without_allocation(sim, 20, 200, solver ? "tamsi" : "lagged");
        double fn = 0;
        for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
            fn += ccb_sim_contact(sim, i)->force[2];
        }
        CHECK_REL(fn, m * g, 1e-4, 0, "faces carry the weight (Newton tolerance)");
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(model);
}

int main(void) {
    RUN(test_disk_steps_without_allocation);
    RUN(test_single_tet);
    RUN(test_disk_mesh);
    RUN(test_disk_surface);
    RUN(test_mesh_quality);
    RUN(test_pressed_disk);
    RUN(test_representations);
    RUN(test_force_continuity);
    RUN(test_geometry_contacts);
    RUN(test_hydro_shape_errors);
    RUN(test_clip_rigid_disk);
    RUN(test_soft_halfspace_contacts);
    return TEST_SUMMARY();
}
