/* Private to the hydro module (hydro.c, hydro_bvh.c, hydro_pair.c, hydro_solid.c): the mesh
 * record with its bounding-volume hierarchies and the helpers that turn a convex polygon into
 * faces (spec: formulation-tamsi-hydro §F). Not installed. */
#ifndef CCB_HYDRO_INTERNAL_H
#define CCB_HYDRO_INTERNAL_H

#include <stdint.h>

#include "ccb/hydro.h"

/* The most tetrahedra a mesh may have. */
#define CCB_HYDRO_MAX_TETS 5000000

/* A node of an axis-aligned bounding-box tree in the mesh frame (formulation-tamsi-hydro §F.7):
 * an inner node has children left, right (>= 0); a leaf has left = -1 and holds the element
 * elems[right]. Boxes are padded by a relative 1e-10 of the mesh's bound, so the tree never
 * prunes an element pair whose elements touch up to round-off. */
typedef struct hydro_bvh_node {
    double lo[3], hi[3];
    int left, right;
} hydro_bvh_node;

typedef struct hydro_bvh {
    hydro_bvh_node* node; /* 2 n - 1 nodes, the root first (none for n = 0) */
    int* elems;           /* n element indices, leaf order */
    int n;
} hydro_bvh;

struct ccb_hydro_mesh {
    int nv, nt;
    int rim;        /* rim vertices per cap (disk meshes), else 0 */
    ccb_vec3* x;    /* nv vertices, mesh frame [m] */
    double* p;      /* nv pressures [Pa] */
    int* t;         /* 4 nt vertex indices */
    ccb_vec3* grad; /* nt pressure gradients, mesh frame [Pa/m] */
    int* bt;        /* 3 nbt vertex indices: boundary triangles, counter-clockwise seen from
                       outside (the surface of the body as a rigid triangle mesh) */
    int nbt;
    double bound, volume;
    hydro_bvh tet_tree; /* over the tetrahedra */
    hydro_bvh tri_tree; /* over the boundary triangles */
};

/* Both trees of m from its tetrahedra and boundary triangles (CCB_E_NOMEM on failure, the mesh
 * unchanged); hydro_bvh_free releases one. */
ccb_status ccb_hydro_bvh_build(ccb_hydro_mesh* m);
void ccb_hydro_bvh_free(hydro_bvh* b);
/* Copies src into dst (CCB_E_NOMEM on failure, dst empty). */
ccb_status ccb_hydro_bvh_copy(hydro_bvh* dst, const hydro_bvh* src);

/* The element pairs (a of tree ta in frame A, b of tree tb in frame B) whose padded boxes
 * overlap, X_AB the pose of B in A, as keys (a << 32) | b appended to *keys (capacity *cap,
 * grown), sorted ascending with *tmp (capacity *tcap) as the radix sort's buffer. Returns the
 * number of keys, or -1 without memory. */
long ccb_hydro_bvh_pairs(const hydro_bvh* ta, const hydro_bvh* tb, const ccb_pose* X_AB,
                         uint64_t** keys, int* cap, uint64_t** tmp, int* tcap);

/* Area and area centroid of a convex polygon of m vertices counter-clockwise about n
 * (formulation-tamsi-hydro §F.3). */
void ccb_hydro_polygon_area(const ccb_vec3* v, int m, ccb_vec3 n, double* area, ccb_vec3* c);

/* Emits polygon f (vertices counter-clockwise about f->normal, normal, gradient, elements set)
 * as one face or as triangles about its centroid (formulation-tamsi-hydro §F.3), with pressures
 * from the linear field p(x) = p_ref + gW . (x - x_ref), after the skip rule (§F.4 steps 1-2). */
ccb_status ccb_hydro_emit_faces(ccb_hydro_surface* out, ccb_hydro_face* f, ccb_hydro_repr repr,
                                double p_ref, ccb_vec3 gW, ccb_vec3 x_ref);

/* Appends the 3 positively oriented tetrahedra of the prism (a0 a1 a2) -> (b0 b1 b2) to t (*nt
 * counts), splitting every quadrilateral face along the diagonal through its lowest-indexed
 * vertex, so that neighbouring prisms share their faces (a conforming mesh). */
void ccb_hydro_prism_tets(const ccb_vec3* x, int* t, int* nt, const int a[3], const int b[3]);

#endif
