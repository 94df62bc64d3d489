/* Unit tests of the general hydroelastic contact surface (spec: formulation-tamsi-hydro §F.2,
 * §F.7): two compliant slabs against the closed-form equilibrium plane, a compliant sphere on a
 * rigid box against the half-space slice, equal pressures on every compliant-compliant face, the
 * bounding-volume hierarchy against the brute-force search at random poses, polygons against
 * triangle fans, second-order convergence of the one-point moment, the solid generators and the
 * errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "ccb/sim.h"
#include "test.h"

#define TOL_ROUND 1e-12
#define BASIS_ROUND "round-off of sums over O(1e3) faces of O(1) terms"

static const ccb_pose k_identity = {{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}};

static ccb_hydro_mesh* solid(ccb_hydro_solid_kind kind, double sx, double sy, double sz, double E,
                             double h, int layers) {
    const ccb_hydro_solid d = {kind, {sx, sy, sz}, E, h, layers};
    ccb_hydro_mesh* m = NULL;
    char msg[256];
    const ccb_status st = ccb_hydro_mesh_solid(&d, &m, msg, sizeof msg);
    CHECK(st == CCB_OK, "solid kind %d: %s", (int)kind, msg);
    return m;
}

/* R = Rz(rz) Ry(ry) Rx(rx), translation p. */
static ccb_pose pose(double rx, double ry, double rz, ccb_vec3 p) {
    const double cx = cos(rx), sx = sin(rx), cy = cos(ry), sy = sin(ry), cz = cos(rz), sz = sin(rz);
    const ccb_mat3 Rx = {{1, 0, 0, 0, cx, -sx, 0, sx, cx}};
    const ccb_mat3 Ry = {{cy, 0, sy, 0, 1, 0, -sy, 0, cy}};
    const ccb_mat3 Rz = {{cz, -sz, 0, sz, cz, 0, 0, 0, 1}};
    const ccb_mat3 Ryx = ccb_m3_mul(&Ry, &Rx);
    ccb_pose X;
    X.R = ccb_m3_mul(&Rz, &Ryx);
    X.p = p;
    return X;
}

/* Sum of A p n over the faces (the normal force, formulation-tamsi-hydro §F.4 step 4) and the
 * one-point moment sum of (c - o) x (A p n). */
static void totals(const ccb_hydro_surface* s, ccb_vec3 o, ccb_vec3* F, ccb_vec3* M, double* A) {
    *F = *M = ccb_v3(0, 0, 0);
    *A = 0;
    for (int f = 0; f < s->n; ++f) {
        const ccb_hydro_face* fc = &s->faces[f];
        const ccb_vec3 df = ccb_v3_scale(fc->area * fc->pressure, fc->normal);
        *F = ccb_v3_add(*F, df);
        *M = ccb_v3_add(*M, ccb_v3_cross(ccb_v3_sub(fc->centroid, o), df));
        *A += fc->area;
    }
}

/* Two compliant slabs, A's zero-pressure face up at z = 0, B's down at z = -delta: the
 * equal-pressure plane z* = -delta gB / (gA + gB), p* = gA gB delta / (gA + gB), the overlap of
 * the footprints as the patch (formulation-tamsi-hydro §F.2, P2 eq. 23). */
static void test_slabs_closed_form(void) {
    const double EA = 2e5, EB = 7e5, HA = 0.1, HB = 0.08, delta = 0.004;
    ccb_hydro_mesh* A = solid(CCB_SOLID_SLAB, 0.3, 0.2, 0.5 * HA, EA, 0.05, 0);
    ccb_hydro_mesh* B = solid(CCB_SOLID_SLAB, 0.2, 0.25, 0.5 * HB, EB, 0.037, 0);
    if (!A || !B) {
        return;
    }
    const ccb_pose XA = pose(0, 0, 0, ccb_v3(0, 0, -0.5 * HA));
    /* B upside down: its top face (p = 0) at its bottom */
    const ccb_pose XB = pose(CCB_PI, 0, 0, ccb_v3(0.05, 0.03, 0.5 * HB - delta));
    const double gA = EA / HA, gB = EB / HB, g = gA * gB / (gA + gB);
    const double zs = -delta * gB / (gA + gB), ps = g * delta;
    const double area = 0.4 * 0.4; /* x in [-0.15, 0.25], y in [-0.2, 0.2] */
    char msg[256];
    for (int repr = 0; repr < 2; ++repr) {
        ccb_hydro_surface s = {0};
        CHECK(ccb_hydro_intersect(A, &XA, B, &XB, 0, repr, &s, msg, sizeof msg) == CCB_OK, "%s",
              msg);
        CHECK(s.n > 50, "faces %d (repr %d)", s.n, repr);
        for (int f = 0; f < s.n; ++f) {
            const ccb_hydro_face* fc = &s.faces[f];
            CHECK_REL(fc->gradient, g, TOL_ROUND, 0, "gA gB/(gA + gB), " BASIS_ROUND);
            CHECK_REL(fc->pressure, ps, 1e-9, 0,
                      "p* on the plane: relative round-off of the "
                      "linear field over a 0.1 m cell");
            CHECK_ABS(fc->centroid.z, zs, 1e-12, "z* of the plane [m]: " BASIS_ROUND);
            CHECK_ABS(fc->normal.z, -1.0, 1e-12, "normal from B (above) into A: -z");
            CHECK_REL(-fc->pressure / fc->gradient, -delta, 1e-9, 0,
                      "phi0 = -p0/g is minus the overlap delta (P2 eq. 16)");
        }
        ccb_vec3 F, M;
        double Asum;
        totals(&s, ccb_v3(0, 0, 0), &F, &M, &Asum);
        CHECK_REL(Asum, area, TOL_ROUND, 0, "patch = overlap of the footprints, " BASIS_ROUND);
        CHECK_REL(F.z, -ps * area, 1e-9, 0, "force = p* x area (the field is constant on it)");
        /* the moment about the origin: F x centroid of the rectangle (0.05, 0, z*) */
        CHECK_ABS(M.x, 0.0, 1e-12 * ps * area * 0.3,
                  "moment x of a patch centred at y = 0 (round-off of F times a 0.3 m lever)");
        CHECK_REL(M.y, -0.05 * F.z, 1e-9, 0, "moment y = -x_c F_z (x_c = 0.05 m)");
        ccb_hydro_surface_free(&s);
    }
    ccb_hydro_mesh_destroy(A);
    ccb_hydro_mesh_destroy(B);
}

/* The linear field of tetrahedron e of m at world point x (mesh at pose X), and its barycentric
 * coordinates (the smallest returned in *bmin). */
static double field_at(const ccb_hydro_mesh* m, const ccb_pose* X, int e, ccb_vec3 x,
                       double* bmin) {
    const ccb_vec3* v = ccb_hydro_mesh_verts(m);
    const double* p = ccb_hydro_mesh_pressure(m);
    const int* t = ccb_hydro_mesh_tets(m) + 4 * (size_t)e;
    const ccb_mat3 RT = ccb_m3_transpose(&X->R);
    const ccb_vec3 xl = ccb_m3_mul_v(&RT, ccb_v3_sub(x, X->p));
    const ccb_vec3 e1 = ccb_v3_sub(v[t[1]], v[t[0]]), e2 = ccb_v3_sub(v[t[2]], v[t[0]]),
                   e3 = ccb_v3_sub(v[t[3]], v[t[0]]), r = ccb_v3_sub(xl, v[t[0]]);
    const double det = ccb_v3_dot(e1, ccb_v3_cross(e2, e3));
    const double b1 = ccb_v3_dot(r, ccb_v3_cross(e2, e3)) / det;
    const double b2 = ccb_v3_dot(e1, ccb_v3_cross(r, e3)) / det;
    const double b3 = ccb_v3_dot(e1, ccb_v3_cross(e2, r)) / det;
    const double b0 = 1 - b1 - b2 - b3;
    *bmin = fmin(fmin(b0, b1), fmin(b2, b3));
    return b0 * p[t[0]] + b1 * p[t[1]] + b2 * p[t[2]] + b3 * p[t[3]];
}

/* Two compliant ellipsoids at a general pose: on every face both fields are equal at the
 * centroid, which lies in both tetrahedra; the faces have 3 to 8 vertices. */
static void test_equal_pressure(void) {
    const double EA = 1e5, EB = 3e5;
    ccb_hydro_mesh* A = solid(CCB_SOLID_ELLIPSOID, 0.1, 0.07, 0.05, EA, 0.02, 0);
    ccb_hydro_mesh* B = solid(CCB_SOLID_ELLIPSOID, 0.06, 0.08, 0.05, EB, 0.015, 0);
    if (!A || !B) {
        return;
    }
    const ccb_pose XA = pose(0.3, -0.2, 0.5, ccb_v3(0, 0, 0));
    const ccb_pose XB = pose(-0.4, 0.7, 0.1, ccb_v3(0.03, 0.05, 0.09));
    ccb_hydro_surface s = {0};
    char msg[256];
    CHECK(ccb_hydro_intersect(A, &XA, B, &XB, 0, CCB_HYDRO_POLYGONS, &s, msg, sizeof msg) == CCB_OK,
          "%s", msg);
    CHECK(s.n > 100, "faces %d", s.n);
    int nmax = 0;
    double worst = 0, bworst = 0;
    for (int f = 0; f < s.n; ++f) {
        const ccb_hydro_face* fc = &s.faces[f];
        double ba, bb;
        const double pa = field_at(A, &XA, fc->tet, fc->centroid, &ba);
        const double pb = field_at(B, &XB, fc->other, fc->centroid, &bb);
        worst = fmax(worst, fabs(pa - pb));
        bworst = fmin(bworst, fmin(ba, bb));
        CHECK_ABS(fc->pressure, pa, 1e-9 * EA, "p(c) of A's field (relative round-off 1e-9 of E)");
        nmax = fc->nverts > nmax ? fc->nverts : nmax;
        CHECK(fc->nverts >= 3 && fc->nverts <= CCB_HYDRO_MAX_POLYGON, "face %d: %d vertices", f,
              fc->nverts);
    }
    CHECK(worst <= 1e-9 * EB, "|p_a - p_b| at the centroids up to %.3g Pa (bound 1e-9 E_B)", worst);
    CHECK(bworst >= -1e-9, "centroids inside both tetrahedra: smallest barycentric %.3g", bworst);
    CHECK(nmax >= 6, "polygons of up to %d vertices (two tetrahedra clip to at most 8)", nmax);
    ccb_hydro_surface_free(&s);
    ccb_hydro_mesh_destroy(A);
    ccb_hydro_mesh_destroy(B);
}

/* A compliant sphere pressed 1 cm into a rigid box: the same patch and force as the slice by the
 * box's top plane (formulation-tamsi-hydro §F.2, first case): one field, one planar patch, two
 * partitions of it. */
static void test_sphere_on_rigid_box(void) {
    ccb_hydro_mesh* S = solid(CCB_SOLID_ELLIPSOID, 0.1, 0.1, 0.1, 1e5, 0.02, 0);
    ccb_hydro_mesh* R = solid(CCB_SOLID_BOX, 0.3, 0.25, 0.1, 1e9, 0.045, 2); /* E_B = 1e4 E_A */
    if (!S || !R) {
        return;
    }
    char msg[256];
    for (int k = 0; k < 3; ++k) {
        const ccb_pose XS = pose(0.2 * k, 0.1, -0.3 * k, ccb_v3(0.02 * k, -0.01, 0.09 - 0.01 * k));
        const ccb_pose XR = pose(0, 0, 0.4, ccb_v3(0, 0, -0.1));
        ccb_hydro_surface a = {0}, b = {0};
        CHECK(ccb_hydro_slice(S, &XS, ccb_v3(0, 0, 0), ccb_v3(0, 0, 1), CCB_HYDRO_POLYGONS, &a, msg,
                              sizeof msg) == CCB_OK,
              "%s", msg);
        CHECK(ccb_hydro_intersect(S, &XS, R, &XR, CCB_HYDRO_RIGID_B, CCB_HYDRO_POLYGONS, &b, msg,
                                  sizeof msg) == CCB_OK,
              "%s", msg);
        ccb_vec3 Fa, Fb, Ma, Mb;
        double Aa, Ab;
        totals(&a, XS.p, &Fa, &Ma, &Aa);
        totals(&b, XS.p, &Fb, &Mb, &Ab);
        CHECK(a.n > 10 && b.n >= a.n, "faces: slice %d, rigid mesh %d", a.n, b.n);
        CHECK_REL(Ab, Aa, 1e-11, 0, "the same patch area, " BASIS_ROUND);
        CHECK_REL(Fb.z, Fa.z, 1e-11, 0, "the same force (p linear per tetrahedron), " BASIS_ROUND);
        CHECK_ABS(Fb.x, 0, 1e-12 * Fa.z, "rigid top face: normal +z");
        /* the same box compliant and 1e4 times stiffer than the sphere: the equal-pressure plane
         * moves into the box by delta gA / (gA + gB), and the force (~ delta^2) by about
         * 2 gA / gB = 2e-4 of itself (formulation-tamsi-hydro §F.2, two compliant meshes) */
        ccb_hydro_surface c = {0};
        CHECK(ccb_hydro_intersect(S, &XS, R, &XR, 0, CCB_HYDRO_POLYGONS, &c, msg, sizeof msg) ==
                  CCB_OK,
              "%s", msg);
        ccb_vec3 Fc, Mc;
        double Ac;
        totals(&c, XS.p, &Fc, &Mc, &Ac);
        fprintf(stderr, "  stiff compliant box: force %.6g against rigid %.6g (rel %.2e)\n", Fc.z,
                Fa.z, fabs(Fc.z / Fa.z - 1));
        CHECK_REL(Fc.z, Fa.z, 1e-3, 0,
                  "stiff compliant box = rigid box: force within 5 x 2 gA/gB = 1e-3");
        ccb_hydro_surface_free(&c);
        for (int f = 0; f < b.n; ++f) {
            CHECK(b.faces[f].normal.z > 1 - 1e-12, "face %d: the top face's normal", f);
        }
        ccb_hydro_surface_free(&a);
        ccb_hydro_surface_free(&b);
    }
    ccb_hydro_mesh_destroy(S);
    ccb_hydro_mesh_destroy(R);
}

static int same_face(const ccb_hydro_face* a, const ccb_hydro_face* b) {
    if (a->tet != b->tet || a->other != b->other || a->nverts != b->nverts ||
        memcmp(&a->centroid, &b->centroid, sizeof a->centroid) != 0 || a->area != b->area ||
        a->pressure != b->pressure || a->gradient != b->gradient ||
        memcmp(&a->normal, &b->normal, sizeof a->normal) != 0) {
        return 0;
    }
    return memcmp(a->verts, b->verts, (size_t)a->nverts * sizeof(ccb_vec3)) == 0;
}

/* The hierarchy's candidates give exactly the brute-force faces, in the same order, bit for bit,
 * at random poses, compliant-compliant and compliant-rigid (formulation-tamsi-hydro §F.7), and
 * examine far fewer pairs. */
static void test_bvh_matches_brute_force(void) {
    ccb_hydro_mesh* A = solid(CCB_SOLID_ELLIPSOID, 0.08, 0.06, 0.05, 1e5, 0.03, 0);
    ccb_hydro_mesh* B = solid(CCB_SOLID_BOX, 0.07, 0.05, 0.03, 4e5, 0.025, 0);
    if (!A || !B) {
        return;
    }
    char msg[256];
    ccb_hydro_surface s1 = {0}, s2 = {0};
    int touching = 0;
    long cand = 0, brute = 0;
    for (int trial = 0; trial < 16; ++trial) {
        const ccb_pose XA = pose(3 * urand(), 3 * urand(), 3 * urand(), ccb_v3(0, 0, 0));
        const ccb_pose XB =
            pose(3 * urand(), 3 * urand(), 3 * urand(),
                 ccb_v3(0.16 * (urand() - 0.5), 0.16 * (urand() - 0.5), 0.16 * (urand() - 0.5)));
        const int flags = trial % 2 ? CCB_HYDRO_RIGID_B : 0;
        const ccb_hydro_repr repr = trial % 4 < 2 ? CCB_HYDRO_POLYGONS : CCB_HYDRO_TRIANGLES;
        CHECK(ccb_hydro_intersect(A, &XA, B, &XB, flags, repr, &s1, msg, sizeof msg) == CCB_OK,
              "%s", msg);
        CHECK(ccb_hydro_intersect(A, &XA, B, &XB, flags | CCB_HYDRO_BRUTE_FORCE, repr, &s2, msg,
                                  sizeof msg) == CCB_OK,
              "%s", msg);
        int same = s1.n == s2.n && s1.nskipped == s2.nskipped;
        for (int f = 0; same && f < s1.n; ++f) {
            same = same_face(&s1.faces[f], &s2.faces[f]);
        }
        CHECK(same, "trial %d (flags %d): hierarchy %d faces, brute force %d", trial, flags, s1.n,
              s2.n);
        touching += s1.n > 0;
        cand += s1.ncandidates;
        brute += s2.ncandidates;
    }
    fprintf(stderr, "  %d of 16 poses touching; candidate pairs: hierarchy %ld, brute force %ld\n",
            touching, cand, brute);
    CHECK(touching >= 8, "poses with contact: %d of 16 (the test must exercise faces)", touching);
    CHECK(cand * 10 < brute, "candidates: hierarchy %ld, brute force %ld (>= 10x fewer)", cand,
          brute);
    ccb_hydro_surface_free(&s1);
    ccb_hydro_surface_free(&s2);
    ccb_hydro_mesh_destroy(A);
    ccb_hydro_mesh_destroy(B);
}

/* Exact integral of p (x - o) x n over a face's polygon: fan about the centroid, three edge
 * midpoints per triangle (exact for the quadratic integrand). */
static ccb_vec3 exact_moment(const ccb_hydro_face* fc, ccb_vec3 o, ccb_vec3 grad_tangent) {
    ccb_vec3 M = ccb_v3(0, 0, 0);
    for (int k = 0; k < fc->nverts; ++k) {
        const ccb_vec3 v[3] = {fc->centroid, fc->verts[k], fc->verts[(k + 1) % fc->nverts]};
        const double At =
            0.5 *
            ccb_v3_dot(ccb_v3_cross(ccb_v3_sub(v[1], v[0]), ccb_v3_sub(v[2], v[0])), fc->normal);
        for (int q = 0; q < 3; ++q) {
            const ccb_vec3 x = ccb_v3_scale(0.5, ccb_v3_add(v[q], v[(q + 1) % 3]));
            const double p = fc->pressure + ccb_v3_dot(grad_tangent, ccb_v3_sub(x, fc->centroid));
            M = ccb_v3_add(M, ccb_v3_cross(ccb_v3_sub(x, o), ccb_v3_scale(At * p / 3, fc->normal)));
        }
    }
    return M;
}

/* A slab pressed into another tilted by 0.3 rad: p varies along the plane. The one-point
 * moment's error against the exact integral over the same faces falls at second order in the
 * face size (formulation-tamsi-hydro §F.5; P2 Fig. 6); polygons and triangle fans give the same
 * force, and fans at least twice the faces. */
static void test_moment_order_and_fans(void) {
    double err[3], nf[2][3];
    char msg[256];
    for (int r = 0; r < 3; ++r) {
        const double h = 0.04 / (1 << r);
        ccb_hydro_mesh* A = solid(CCB_SOLID_SLAB, 0.1, 0.1, 0.05, 1e5, h, 0);
        ccb_hydro_mesh* B = solid(CCB_SOLID_SLAB, 0.06, 0.06, 0.05, 2e5, h * 0.9, 0);
        if (!A || !B) {
            return;
        }
        const ccb_pose XA = k_identity;
        /* B's zero-pressure face tilted by 0.3 rad, 2.5 cm into A at x = y = 0 */
        const ccb_pose XB = pose(CCB_PI + 0.3, 0, 0, ccb_v3(0, 0, 0.05 + 0.05 * cos(0.3) - 0.025));
        ccb_vec3 F[2], M[2];
        double Asum;
        for (int repr = 0; repr < 2; ++repr) {
            ccb_hydro_surface s = {0};
            CHECK(ccb_hydro_intersect(A, &XA, B, &XB, 0, repr, &s, msg, sizeof msg) == CCB_OK, "%s",
                  msg);
            totals(&s, ccb_v3(0, 0, 0), &F[repr], &M[repr], &Asum);
            nf[repr][r] = s.n;
            if (repr == 0) {
                /* exact moment: the tangential gradient of p on each face from A's field */
                ccb_vec3 Mex = ccb_v3(0, 0, 0);
                for (int f = 0; f < s.n; ++f) {
                    const ccb_hydro_face* fc = &s.faces[f];
                    /* A's field is E (0.05 - z)/0.1 everywhere: gradient (0, 0, -1e6) */
                    const ccb_vec3 g = ccb_v3(0, 0, -1e5 / 0.1);
                    const ccb_vec3 gt =
                        ccb_v3_sub(g, ccb_v3_scale(ccb_v3_dot(g, fc->normal), fc->normal));
                    Mex = ccb_v3_add(Mex, exact_moment(fc, ccb_v3(0, 0, 0), gt));
                }
                err[r] = ccb_v3_norm(ccb_v3_sub(M[0], Mex)) / ccb_v3_norm(Mex);
            }
            ccb_hydro_surface_free(&s);
        }
        CHECK(nf[0][r] > 20, "faces %g at h = %g", nf[0][r], h);
        CHECK_REL(F[1].z, F[0].z, 1e-11, 0, "fans and polygons: the same force (exact quadrature)");
        CHECK(nf[1][r] > 2 * nf[0][r], "fans %g faces, polygons %g (ratio > 2)", nf[1][r],
              nf[0][r]);
        ccb_hydro_mesh_destroy(A);
        ccb_hydro_mesh_destroy(B);
    }
    for (int r = 1; r < 3; ++r) {
        const double order = log2(err[r - 1] / err[r]);
        fprintf(stderr, "  moment error %.3e -> %.3e (faces %g -> %g): order %.2f\n", err[r - 1],
                err[r], nf[0][r - 1], nf[0][r], order);
        CHECK(order > 1.5 && order < 2.5,
              "moment error %.3g -> %.3g: order %.2f (second order, +-0.5 for the changing "
              "patch partition)",
              err[r - 1], err[r], order);
    }
}

/* The generators: closed, conforming surfaces (Euler characteristic 2), volume and field. */
static void test_solids(void) {
    struct {
        ccb_hydro_solid_kind kind;
        double sx, sy, sz, h;
        double volume, vtol;
    } c[] = {
        {CCB_SOLID_BOX, 0.1, 0.05, 0.02, 0.01, 8 * 0.1 * 0.05 * 0.02, 1e-12},
        {CCB_SOLID_SLAB, 0.1, 0.05, 0.02, 0.01, 8 * 0.1 * 0.05 * 0.02, 1e-12},
        /* a prism over the 63-gon inscribed in the ellipse (63 = ceil(2 pi 0.05 / 0.005)) */
        {CCB_SOLID_CYLINDER, 0.05, 0.03, 0.08, 0.005,
         0.5 * 63 * sin(2 * CCB_PI / 63) * 0.05 * 0.03 * 0.16, 1e-12},
        /* the inscribed polyhedron: volume below the ellipsoid's by O(h^2) */
        {CCB_SOLID_ELLIPSOID, 0.1, 0.05, 0.04, 0.01, 4.0 / 3 * CCB_PI * 0.1 * 0.05 * 0.04, 0.03}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; ++k) {
        ccb_hydro_mesh* m = solid(c[k].kind, c[k].sx, c[k].sy, c[k].sz, 1e5, c[k].h, 0);
        if (!m) {
            continue;
        }
        CHECK_REL(ccb_hydro_mesh_volume(m), c[k].volume, c[k].vtol, 0,
                  c[k].vtol > 1e-6 ? "inscribed polyhedron: its volume deficit (see the table)"
                                   : "exact volume, " BASIS_ROUND);
        /* closed surface: every edge in two triangles, V - E + F = 2 */
        const int nb = ccb_hydro_mesh_nsurface(m);
        const int* bt = ccb_hydro_mesh_surface(m);
        int nvs = 0;
        const int nv = ccb_hydro_mesh_nverts(m);
        char* on = calloc((size_t)nv, 1);
        for (int i = 0; i < 3 * nb; ++i) {
            nvs += on[bt[i]] == 0;
            on[bt[i]] = 1;
        }
        CHECK(nb % 2 == 0 && nvs - 3 * nb / 2 + nb == 2, "kind %d: V %d, F %d: not a sphere",
              (int)c[k].kind, nvs, nb);
        /* p = 0 on the surface (box, ellipsoid), E at the centre; slab: 0 on top only */
        const double* p = ccb_hydro_mesh_pressure(m);
        const ccb_vec3* x = ccb_hydro_mesh_verts(m);
        int bad = 0;
        for (int i = 0; i < nv; ++i) {
            if (c[k].kind == CCB_SOLID_SLAB) {
                bad += fabs(p[i] - 1e5 * (c[k].sz - x[i].z) / (2 * c[k].sz)) > 1e-9;
            } else {
                bad += on[i] && p[i] != 0;
                bad += !(p[i] >= 0 && p[i] <= 1e5);
            }
        }
        CHECK(bad == 0, "kind %d: %d vertices with a wrong pressure", (int)c[k].kind, bad);
        free(on);
        ccb_hydro_mesh_destroy(m);
    }
}

static void test_errors(void) {
    char msg[256];
    ccb_hydro_mesh* m = NULL;
    ccb_hydro_solid d = {CCB_SOLID_BOX, {0.1, 0.1, 0.1}, 1e5, 0.01, 0};
    d.size.y = -1;
    CHECK(ccb_hydro_mesh_solid(&d, &m, msg, sizeof msg) == CCB_E_INVALID && m == NULL,
          "negative size");
    CHECK(strstr(msg, "size") != NULL, "message names the size: %s", msg);
    d.size.y = 0.1;
    d.resolution_hint = 1e-5;
    CHECK(ccb_hydro_mesh_solid(&d, &m, msg, sizeof msg) == CCB_E_INVALID && m == NULL,
          "too fine: %s", msg);
    d.resolution_hint = 0.05;
    d.kind = (ccb_hydro_solid_kind)7;
    CHECK(ccb_hydro_mesh_solid(&d, &m, msg, sizeof msg) == CCB_E_INVALID, "unknown kind");
    d.kind = CCB_SOLID_BOX;
    d.modulus = NAN;
    CHECK(ccb_hydro_mesh_solid(&d, &m, msg, sizeof msg) == CCB_E_INVALID, "NaN modulus");
    ccb_hydro_mesh* A = solid(CCB_SOLID_BOX, 0.1, 0.1, 0.1, 1e5, 0.05, 0);
    if (!A) {
        return;
    }
    ccb_hydro_surface s = {0};
    CHECK(ccb_hydro_intersect(A, &k_identity, A, &k_identity, 8, 0, &s, msg, sizeof msg) ==
              CCB_E_INVALID,
          "unknown flag");
    CHECK(ccb_hydro_intersect(A, &k_identity, NULL, &k_identity, 0, 0, &s, msg, sizeof msg) ==
              CCB_E_INVALID,
          "NULL mesh");
    ccb_pose bad = k_identity;
    bad.p.x = NAN;
    CHECK(ccb_hydro_intersect(A, &k_identity, A, &bad, 0, 0, &s, msg, sizeof msg) ==
              CCB_E_NONFINITE,
          "NaN pose");
    CHECK(ccb_hydro_intersect(A, &k_identity, A, &k_identity, 0, (ccb_hydro_repr)5, &s, msg,
                              sizeof msg) == CCB_E_INVALID,
          "unknown representation");
    /* a clone answers as the original, bit for bit */
    ccb_hydro_mesh* C = ccb_hydro_mesh_clone(A);
    ccb_hydro_surface s2 = {0};
    const ccb_pose XB = pose(0.3, 0.2, 0.1, ccb_v3(0.05, 0.02, 0.15));
    CHECK(ccb_hydro_intersect(A, &k_identity, A, &XB, 0, 0, &s, msg, sizeof msg) == CCB_OK, "%s",
          msg);
    CHECK(ccb_hydro_intersect(C, &k_identity, C, &XB, 0, 0, &s2, msg, sizeof msg) == CCB_OK, "%s",
          msg);
    int same = s.n == s2.n && s.n > 0;
    for (int f = 0; same && f < s.n; ++f) {
        same = same_face(&s.faces[f], &s2.faces[f]);
    }
    CHECK(same, "clone: %d faces, original %d", s2.n, s.n);
    ccb_hydro_surface_free(&s);
    ccb_hydro_surface_free(&s2);
    ccb_hydro_mesh_destroy(C);
    ccb_hydro_mesh_destroy(A);
}

/* A compliant ball (ellipsoid mesh, R = 5 cm, E = 1e5 Pa, 0.2 kg) resting on a fixed box mesh,
 * rigid or compliant (formulation-tamsi-hydro §F.2 through the geometry query): the faces become
 * point contacts from the ground (A) into the ball (B), normal +z, and after 0.5 s they carry the
 * weight; no heap allocation per step once the workspaces have grown (STYLE §4). */
static void test_ball_rests_on_meshes(void) {
    const double R = 0.05, mass = 0.2, g = 9.81;
    for (int soft = 0; soft < 2; ++soft) {
        ccb_hydro_mesh* ball = solid(CCB_SOLID_ELLIPSOID, R, R, R, 1e5, 0.012, 0);
        ccb_hydro_mesh* floor = soft ? solid(CCB_SOLID_SLAB, 0.2, 0.2, 0.05, 1e6, 0.025, 0)
                                     : solid(CCB_SOLID_BOX, 0.2, 0.2, 0.05, 1e6, 0.05, 1);
        if (!ball || !floor) {
            return;
        }
        ccb_model* model = NULL;
        ccb_model_create(&model);
        ccb_body_def gd = ccb_body_def_default();
        gd.name = "ground";
        gd.mobilizer = CCB_MOBILIZER_FIXED;
        gd.pose = pose(0, 0, 0, ccb_v3(0, 0, -0.05));
        ccb_body_def bd = ccb_body_def_default();
        bd.name = "ball";
        bd.mobilizer = CCB_MOBILIZER_FREE;
        bd.mass = mass;
        bd.inertia = ccb_m3_identity();
        for (int k = 0; k < 9; k += 4) {
            bd.inertia.m[k] = 0.4 * mass * R * R;
        }
        bd.pose = pose(0, 0, 0, ccb_v3(0, 0, R));
        int ig, ib;
        ccb_model_add_body(model, &gd, &ig);
        ccb_model_add_body(model, &bd, &ib);
        ccb_shape_def fs = ccb_shape_def_default();
        fs.type = CCB_SHAPE_HYDRO;
        fs.mesh = floor;
        fs.material = (ccb_material){soft ? 1e6 : INFINITY, 0, 0, 0.5, 0.0};
        ccb_shape_def bs = ccb_shape_def_default();
        bs.type = CCB_SHAPE_HYDRO;
        bs.mesh = ball;
        bs.material = (ccb_material){1e5, 10.0, 0, 0.5, 0.0};
        CHECK(ccb_model_add_shape(model, ig, &fs, NULL) == CCB_OK, "%s",
              ccb_model_last_error(model));
        CHECK(ccb_model_add_shape(model, ib, &bs, NULL) == CCB_OK, "%s",
              ccb_model_last_error(model));
        ccb_hydro_mesh_destroy(ball);
        ccb_hydro_mesh_destroy(floor);
        if (ccb_model_finalize(model) != CCB_OK) {
            CHECK(0, "finalize: %s", ccb_model_last_error(model));
            ccb_model_destroy(model);
            return;
        }
        for (int solver = 0; solver < 2; ++solver) {
            ccb_sim_params p = ccb_sim_params_default();
            p.dt = 1e-3;
            p.solver = solver ? CCB_SOLVER_TAMSI : CCB_SOLVER_NEWTON;
            p.approx = &ccb_approx_lagged;
            ccb_sim* sim = NULL;
            char msg[256];
            CHECK(ccb_sim_create(model, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
            if (sim == NULL) {
                continue;
            }
            check_steps_without_allocation(sim, 100, 400, solver ? "tamsi" : "lagged");
            /* the force on the ball in the world frame: R_WC gamma/dt on body B, minus it on A */
            ccb_vec3 Fb = ccb_v3(0, 0, 0);
            int up = 1;
            for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
                const ccb_contact_result* ct = ccb_sim_contact(sim, i);
                const ccb_vec3 fw = ccb_m3_mul_v(&ct->geometry.R_WC,
                                                 ccb_v3(ct->force[0], ct->force[1], ct->force[2]));
                const int on_b = ct->geometry.body_b == ib;
                Fb = ccb_v3_add(Fb, ccb_v3_scale(on_b ? 1.0 : -1.0, fw));
                /* rigid floor: from the floor (A) into the ball, +z; two compliant meshes: from
                 * the higher-indexed shape (the ball) into the floor, about -z */
                up &= ct->geometry.body_a == (soft ? ib : ig) &&
                      (soft ? -ct->geometry.R_WC.m[8] > 0.99 : ct->geometry.R_WC.m[8] > 1 - 1e-12);
            }
            CHECK(ccb_sim_ncontacts(sim) > 10, "%s floor, %s: %d faces",
                  soft ? "compliant" : "rigid", solver ? "tamsi" : "lagged",
                  ccb_sim_ncontacts(sim));
            CHECK(up, "contact bodies and normals (%s floor)", soft ? "compliant" : "rigid");
            CHECK_REL(Fb.z, mass * g, 1e-4, 0, "faces carry the weight (Newton tolerance)");
            CHECK_ABS(Fb.x, 0, 1e-4 * mass * g, "no net horizontal force at rest");
            CHECK_ABS(Fb.y, 0, 1e-4 * mass * g, "no net horizontal force at rest");
            ccb_sim_destroy(sim);
        }
        ccb_model_destroy(model);
    }
}

int main(void) {
    RUN(test_ball_rests_on_meshes);
    RUN(test_solids);
    RUN(test_slabs_closed_form);
    RUN(test_equal_pressure);
    RUN(test_sphere_on_rigid_box);
    RUN(test_bvh_matches_brute_force);
    RUN(test_moment_order_and_fans);
    RUN(test_errors);
    return TEST_SUMMARY();
}
