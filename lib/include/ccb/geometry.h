/* ccb/geometry.h — point contacts between shapes at a configuration.
 *
 * Conventions (spec: formulation-convex §0): the contact normal n points from body A into body
 * B; phi is the signed distance along n (< 0 overlap); the contact frame C has columns
 * (t1, t2, n) (tangential first, right-handed, see ccb_contact_frame). A half-space is always
 * body A of its pairs. Pairs are reported while phi0 < margin ("speculative" contacts,
 * ICF §X-A: 10 cm by default); they stay inactive until the approach velocity closes the gap.
 *
 * Queries: half-space vs box corners, point markers, spheres and capsules; sphere vs sphere;
 * box vs sphere. A broad phase (a uniform grid over bounding spheres grown by the margin)
 * keeps the cost close to linear in the number of shapes and contacts.
 *
 * Contact point: the midpoint between the two surface points, weighted by stiffness:
 * C = p_B + kA/(kA + kB) (p_A - p_B), so that against a rigid half-space C lies on the plane.
 * Both bodies' Jacobians use the material points coincident with C. */
#ifndef CCB_GEOMETRY_H
#define CCB_GEOMETRY_H

#include "ccb/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default speculative margin [m] (ICF §X-A). */
#define CCB_DEFAULT_MARGIN 0.1

typedef struct ccb_contact {
    int body_a, body_b; /* normal points from A into B */
    int shape_a, shape_b;
    int feature;           /* index of the point (corner, marker) on shape B */
    double phi0;           /* signed distance at the query configuration [m], < 0 overlap */
    ccb_vec3 p;            /* contact point C in W [m] */
    ccb_mat3 R_WC;         /* contact frame: columns t1, t2, n in W */
    ccb_material material; /* combined material of the pair */
} ccb_contact;

/* Growable contact list owned by the caller; zero-initialize, release with
 * ccb_contact_set_free. */
typedef struct ccb_contact_set {
    ccb_contact* items;
    int n;
    int cap;
    void* ws; /* broad-phase workspace of the query (owned; NULL until the first query) */
} ccb_contact_set;

CCB_API void ccb_contact_set_free(ccb_contact_set* set);

/* All contacts of a finalized model at time t and positions q[nq] with phi0 < margin, in a
 * deterministic order (shape pairs by (lower index, higher index), then features). margin must be finite and
 * >= 0 [m]. Replaces the contents of `out` (reusing its storage). CCB_E_INVALID/E_NONFINITE/
 * E_NOMEM with a message in msg. */
CCB_API ccb_status ccb_geometry_query(const ccb_model* model, double t, const double* q,
                                      double margin, ccb_contact_set* out, char* msg,
                                      size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
