/* ccb/hydro.h — hydroelastic (pressure-field) contact, discrete version.
 *
 * spec: formulation-tamsi-hydro §F (Masterjohn et al. RA-L 2022; Elandt et al. IROS 2019).
 * A compliant body carries a tetrahedral volume mesh with a piecewise-linear pressure field
 * p(x) [Pa] (one value per vertex, constant gradient per tetrahedron; zero on the surface and the
 * hydroelastic modulus E on the medial axis, formulation-tamsi-hydro §F.1). Against a rigid
 * half-space the contact surface is the slice of the tetrahedra by the plane
 * (formulation-tamsi-hydro §F.2, marching tetrahedra), kept either as one polygon per tetrahedron
 * (≤ 4 vertices; the paper's representation) or with every polygon split into triangles around its
 * centroid (Elandt 2019; formulation-tamsi-hydro §F.3). Each face becomes one point contact at its
 * centroid c with area A, pressure p0 = p(c), gradient g = ∇p·n (rigid limit of
 * formulation-tamsi-hydro §F.4 step 3), stiffness k = A g and signed distance φ0 = −p0/g (§F.4, eqs
 * 15-16): the compliant force (fn0 − h k vn)+ of P2 eq. 16 is then exactly the point-contact law
 * every ccb solver already uses. Faces with A ≤ 1e-14 m² or g < 1e-14 Pa/m are skipped
 * (formulation-tamsi-hydro §F.4 steps 1-2).
 *
 * The other way round (formulation-tamsi-hydro §F.2, third case), the mesh's surface triangles act
 * as a rigid triangle mesh against a compliant half-space (modulus E, slab H_s, p = E depth/H_s):
 * each triangle facing the half-space is clipped to it (ccb_hydro_clip), one face per triangle.
 *
 * In general (formulation-tamsi-hydro §F.2, the last two cases; ccb_hydro_intersect), a compliant
 * mesh meets a rigid triangle mesh (the surface triangles of any mesh, clipped to its tetrahedra)
 * or another compliant mesh (per pair of tetrahedra, the plane where the two linear fields are
 * equal, clipped to both: at most 8 vertices), the element pairs found by bounding-volume
 * hierarchies in the mesh frames (§F.7). ccb_hydro_mesh_solid meshes boxes, ellipsoids and slabs.
 *
 * Model use: a shape of type CCB_SHAPE_HYDRO (ccb/model.h) holds a copy of a mesh; ccb_geometry_
 * query turns its slice by every rigid half-space (compliant mesh), its clip by every compliant
 * half-space (rigid mesh, material.k = INFINITY) and its surface with every other HYDRO shape (at
 * least one compliant; of two compliant meshes the lower-indexed shape is B, the normal from A
 * into B) into contacts (feature = face index). */
#ifndef CCB_HYDRO_H
#define CCB_HYDRO_H

#include <stddef.h>
#include <stdint.h>

#include "ccb/math.h"
#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Area and gradient thresholds of the skip rule (formulation-tamsi-hydro §F.4 steps 1-2). */
#define CCB_HYDRO_MIN_AREA 1e-14     /* [m^2] */
#define CCB_HYDRO_MIN_GRADIENT 1e-14 /* [Pa/m] */

typedef struct ccb_hydro_mesh ccb_hydro_mesh;

/* A mesh from raw data (copied): nverts vertices [m] in the mesh frame, their pressures [Pa]
 * (finite), and ntets tetrahedra of 4 vertex indices each (tets[4 i + k]). Quality check: every
 * index in range, every tetrahedron positively oriented ((x1-x0) x (x2-x0) . (x3-x0) > 0) and
 * not degenerate (volume > 1e-9 times the cube of its longest edge / 6); CCB_E_INVALID names the
 * first offending tetrahedron otherwise. */
CCB_API ccb_status ccb_hydro_mesh_create(int nverts, const ccb_vec3* verts, const double* pressure,
                                         int ntets, const int* tets, ccb_hydro_mesh** out,
                                         char* msg, size_t msg_size);

/* Cap layouts of a disk mesh. */
typedef enum ccb_disk_layout {
    CCB_DISK_FAN = 0,  /* each cap a fan of n triangles around its centre (Drake's short-cylinder
                          mesh, formulation-tamsi-hydro §F.1): n = max(3, ceil(2 pi R / h)) rim
                          vertices */
    CCB_DISK_POLAR = 1 /* each cap a polar grid of Nr = max(1, ceil(R / h)) rings x 8 Nr sectors
                          (cases.md §2.1 polar(Nr)); ring 1 triangles, the other cells quads split
                          along alternating diagonals (checkerboard, so the point set keeps a
                          mirror symmetry) */
} ccb_disk_layout;

typedef struct ccb_hydro_disk {
    double radius;    /* R [m], > 0 */
    double thickness; /* L [m], 0 < L < 2 R (a short cylinder: H = L/2 < R) */
    double modulus;   /* hydroelastic modulus E [Pa], > 0 */
    ccb_disk_layout layout;
    double resolution_hint; /* h [m], > 0 (ignored if `sectors` > 0) */
    int sectors;            /* > 0: FAN rim vertices n, POLAR rings Nr (overrides h) */
} ccb_hydro_disk;

/* Medial-axis conforming tetrahedral mesh of a short cylinder (axis z, centred at the origin) and
 * its pressure field p = E d/H, d = distance to the boundary, H = L/2
 * (formulation-tamsi-hydro §F.1, margin 0). The medial axis of the disk is the mid-plane disk of
 * radius R - H and the two cones from its rim to the rim circles; the mesh has one vertex layer on
 * each cap (p = 0), one on the mid-plane disk scaled by (R - H)/R (p = E) and, per cap triangle, a
 * prism of 3 tetrahedra to each cap, plus a prism of 3 tetrahedra per rim edge between the
 * mid-plane rim and both cap rims. FAN: 9n tetrahedra, 3n + 3 vertices, as Drake's
 * MakeCylinderVolumeMeshWithMa. The field is exactly E d/H of the polygonal cylinder. CCB_E_INVALID
 * for bad parameters or too many elements (> 5e6 tetrahedra). */
CCB_API ccb_status ccb_hydro_mesh_disk(const ccb_hydro_disk* def, ccb_hydro_mesh** out, char* msg,
                                       size_t msg_size);

CCB_API ccb_hydro_mesh* ccb_hydro_mesh_clone(const ccb_hydro_mesh* mesh); /* NULL: no memory */
CCB_API void ccb_hydro_mesh_destroy(ccb_hydro_mesh* mesh);                /* accepts NULL */

CCB_API int ccb_hydro_mesh_nverts(const ccb_hydro_mesh* mesh);
CCB_API int ccb_hydro_mesh_ntets(const ccb_hydro_mesh* mesh);
CCB_API const ccb_vec3* ccb_hydro_mesh_verts(const ccb_hydro_mesh* mesh);
CCB_API const double* ccb_hydro_mesh_pressure(const ccb_hydro_mesh* mesh);
CCB_API const int* ccb_hydro_mesh_tets(const ccb_hydro_mesh* mesh);
/* Radius of a sphere about the mesh-frame origin containing every vertex [m]. */
CCB_API double ccb_hydro_mesh_bound(const ccb_hydro_mesh* mesh);
/* Sum of the tetrahedra volumes [m^3]. */
CCB_API double ccb_hydro_mesh_volume(const ccb_hydro_mesh* mesh);
/* Rim vertices per cap of a disk mesh (0 for a mesh from raw data). */
CCB_API int ccb_hydro_mesh_rim(const ccb_hydro_mesh* mesh);
/* The body's surface: the tetrahedron faces that belong to one tetrahedron only, 3 vertex
 * indices each, counter-clockwise seen from outside (a disk mesh: each cap a fan or polar
 * triangulation, 2 triangles per rim edge). Used as the rigid surface mesh of ccb_hydro_clip. */
CCB_API int ccb_hydro_mesh_nsurface(const ccb_hydro_mesh* mesh);
CCB_API const int* ccb_hydro_mesh_surface(const ccb_hydro_mesh* mesh);

/* Face representation (formulation-tamsi-hydro §F.3). */
typedef enum ccb_hydro_repr {
    CCB_HYDRO_POLYGONS = 0, /* one face per sliced tetrahedron (P2) */
    CCB_HYDRO_TRIANGLES = 1 /* each polygon as triangles around its centroid (Elandt 2019) */
} ccb_hydro_repr;

/* Vertices of a face at most: a plane cut by two tetrahedra (formulation-tamsi-hydro §F.2). */
#define CCB_HYDRO_MAX_POLYGON 8

typedef struct ccb_hydro_face {
    ccb_vec3 centroid; /* area centroid c, world [m] */
    double area;       /* A [m^2] */
    double pressure;   /* p0 = p(c) [Pa] */
    double gradient;   /* g [Pa/m]: slice: ∇p . n of the mesh's field; clip: the half-space's
                          gradient along the face normal (formulation-tamsi-hydro §F.4 step 2,
                          rigid limit) */
    ccb_vec3 normal;   /* contact normal, from the half-space into the mesh body: slice: the
                          plane's outward normal; clip: minus the rigid triangle's normal */
    int tet;           /* slice: tetrahedron the face lies in; clip: surface triangle;
                          intersect: the tetrahedron of the compliant mesh A */
    int other;         /* intersect: B's tetrahedron (compliant B) or surface triangle (rigid
                          B); -1 for a slice or clip */
    int nverts;        /* 3 to CCB_HYDRO_MAX_POLYGON */
    ccb_vec3 verts[CCB_HYDRO_MAX_POLYGON]; /* counter-clockwise about `normal`, world [m] */
} ccb_hydro_face;

/* Contact surface of a slice; zero-initialize, release with ccb_hydro_surface_free. */
typedef struct ccb_hydro_surface {
    ccb_hydro_face* faces;
    int n, cap;
    int nskipped;     /* faces dropped by the skip rule */
    long ncandidates; /* ccb_hydro_intersect: element pairs examined (after the bounding-volume
                         hierarchy, or every pair with CCB_HYDRO_BRUTE_FORCE) */
    void* scratch;    /* per-vertex workspace, reused between slices (owned) */
    size_t scratch_size;
    uint64_t *keys, *keys_tmp; /* candidate element pairs of ccb_hydro_intersect (owned) */
    int keys_cap, keys_tmp_cap;
} ccb_hydro_surface;

CCB_API void ccb_hydro_surface_free(ccb_hydro_surface* s);
/* Grows the workspace to hold `faces` faces and `pairs` candidate pairs of ccb_hydro_intersect,
 * so that queries within those sizes allocate nothing (CCB_E_NOMEM, s unchanged, on failure). */
CCB_API ccb_status ccb_hydro_surface_reserve(ccb_hydro_surface* s, int faces, int pairs);

/* Slice of the mesh at pose X_WM by the rigid half-space {x : n.(x - o) <= 0} (|n| = 1): the
 * faces where the mesh overlaps the half-space (a vertex is outside iff n.(x - o) > 0 strictly),
 * in tetrahedron order (triangles of a polygon in vertex order), after the skip rule. Cut-edge
 * points are computed from the edge's lower-indexed vertex so that neighbouring faces share them
 * bit for bit. Replaces the contents of out. CCB_E_INVALID/E_NONFINITE/E_NOMEM with a message. */
CCB_API ccb_status ccb_hydro_slice(const ccb_hydro_mesh* mesh, const ccb_pose* X_WM, ccb_vec3 o,
                                   ccb_vec3 n, ccb_hydro_repr repr, ccb_hydro_surface* out,
                                   char* msg, size_t msg_size);

/* The mesh's surface (ccb_hydro_mesh_surface) as a RIGID triangle mesh at pose X_WM against a
 * COMPLIANT half-space {x : n.(x - o) <= 0} with hydroelastic modulus E and slab thickness H_s,
 * p = -n.(x - o) E/H_s (formulation-tamsi-hydro §F.1, §F.2 third case): every surface triangle
 * facing into the half-space (its outward normal within 5 pi/8 of the half-space's pressure
 * gradient -n) is clipped to the half-space (Sutherland-Hodgman); the face's normal is minus the
 * triangle's, g = -(E/H_s) n . n_t (= E/H_s for a face parallel to the plane), p0 = p(c); faces as
 * in ccb_hydro_slice (representation, skip rule). CCB_E_INVALID for E, H_s not finite > 0. */
CCB_API ccb_status ccb_hydro_clip(const ccb_hydro_mesh* mesh, const ccb_pose* X_WM, ccb_vec3 o,
                                  ccb_vec3 n, double modulus, double slab, ccb_hydro_repr repr,
                                  ccb_hydro_surface* out, char* msg, size_t msg_size);

/* Flags of ccb_hydro_intersect. */
#define CCB_HYDRO_RIGID_B 1 /* B's surface triangles as a rigid mesh (B's field unused) */
#define CCB_HYDRO_BRUTE_FORCE                                                                      \
    2 /* examine every element pair instead of the hierarchies' (the
                                   reference of the hierarchy's test; same faces, same order) */

/* Contact surface of the COMPLIANT mesh A at pose X_WA with mesh B at X_WB
 * (formulation-tamsi-hydro §F.2, the general cases; §F.7 the search):
 * - compliant B: for every pair of overlapping tetrahedra (a, b) the plane where their linear
 *   fields are equal, p_a = p_b, with normal n = (grad p_a - grad p_b)/|...| (from B into A),
 *   kept if both fields increase into their body (g_A = grad p_a . n > 0, g_B = -grad p_b . n >
 *   0), sliced by a and clipped to b: a convex polygon of at most 8 vertices; effective gradient
 *   g = g_A g_B / (g_A + g_B) (P2 eq. 23);
 * - rigid B (CCB_HYDRO_RIGID_B): every surface triangle of B whose outward normal n_t is within
 *   5 pi/8 of grad p_a, clipped to a: at most 7 vertices; n = n_t, g = grad p_a . n_t.
 * Pressures are A's field. Candidate pairs come from the two meshes' bounding-volume hierarchies
 * (built once in the mesh frames, queried at the relative pose: no refit on rigid motion) and are
 * processed in ascending (a, b) order, so the faces are those and in the order of the brute-force
 * search. Faces as in ccb_hydro_slice (representation, skip rule; tet = a, other = b). Replaces
 * the contents of out. CCB_E_INVALID/E_NONFINITE/E_NOMEM with a message. */
CCB_API ccb_status ccb_hydro_intersect(const ccb_hydro_mesh* a, const ccb_pose* X_WA,
                                       const ccb_hydro_mesh* b, const ccb_pose* X_WB, int flags,
                                       ccb_hydro_repr repr, ccb_hydro_surface* out, char* msg,
                                       size_t msg_size);

/* Closed solids with a layered medial pressure field (formulation-tamsi-hydro §F.1). */
typedef enum ccb_hydro_solid_kind {
    CCB_SOLID_BOX = 0,       /* half-extents `size`; each face a grid of squares split into two
                                triangles, ceil(2 size / h) cells per edge */
    CCB_SOLID_ELLIPSOID = 1, /* semi-axes `size`; an octahedron's faces split into n^2
                                triangles, n = ceil(pi max(size) / (2 h)), projected onto the
                                sphere and scaled by the semi-axes */
    CCB_SOLID_CYLINDER = 3,  /* semi-axes size.x, size.y of its section, half-length size.z along
                                z; n = max(8, ceil(2 pi max(size.x, size.y) / h)) sides,
                                ceil(2 size.z / h) segments; each cap a fan about its centre */
    CCB_SOLID_SLAB = 2       /* half-extents `size`; a grid of cubes of edge about h, 6
                                tetrahedra each; p = E (size.z - z) / (2 size.z): zero on the top
                                face, E on the bottom (a compliant half-space of slab thickness
                                2 size.z, cut to a box) */
} ccb_hydro_solid_kind;

typedef struct ccb_hydro_solid {
    ccb_hydro_solid_kind kind; /* BOX, ELLIPSOID and CYLINDER: layered pyramids (below) */
    ccb_vec3 size;             /* half-extents or semi-axes [m], each > 0 */
    double modulus;            /* E [Pa] > 0 */
    double resolution_hint;    /* h [m] > 0 */
    int layers; /* BOX, ELLIPSOID, CYLINDER: > 0 the layers between the centre and the
                               surface, else ceil(min(size) / h) */
} ccb_hydro_solid;

/* Tetrahedral mesh and pressure field of a solid. BOX, ELLIPSOID and CYLINDER: the surface triangles joined
 * to the centre, each such pyramid cut into `layers` prisms of 3 tetrahedra (and a tetrahedron at
 * the centre), the vertex at the fraction s of the way from the centre to the surface with
 * p = E (1 - s): the field is linear in each pyramid, E depth / d_f in the pyramid over a planar
 * face at distance d_f from the centre (a box: the depth below that face over its half-extent),
 * zero on the surface, E at the centre. CCB_E_INVALID for bad parameters or more than 5e6
 * tetrahedra. */
CCB_API ccb_status ccb_hydro_mesh_solid(const ccb_hydro_solid* def, ccb_hydro_mesh** out, char* msg,
                                        size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
