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

/* A lazy body pair (ccb_geometry_query_lazy): the speculative contacts of two bodies that the
 * query did not compute, because a caller-supplied test showed them unable to activate within
 * the step. Every contact it stands for has phi0 >= phi_lb > 0, the material `material`, and a
 * contact point within reach_a of body_a's origin and reach_b of body_b's
 * (formulation-convex §8.11). */
typedef struct ccb_contact_pair {
    int body_a, body_b;    /* body_a < body_b; each a single free or planar body */
    double phi_lb;         /* lower bound of phi0 over its shape pairs [m], > 0 */
    double reach_a;        /* bound of |C - origin of body_a| over its contact points C [m] */
    double reach_b;        /* the same for body_b [m] */
    ccb_material material; /* combined material of every shape pair of the two bodies */
    int shape_pairs;       /* shape pairs it stands for: those in reach, or every pair of the
                              two bodies' shapes when their group spheres alone put the pair
                              beyond the cut */
} ccb_contact_pair;

/* Growable contact list owned by the caller; zero-initialize, release with
 * ccb_contact_set_free. */
typedef struct ccb_contact_set {
    ccb_contact* items;
    int n;
    int cap;
    void* ws; /* broad-phase workspace of the query (owned; NULL until the first query) */
    /* lazy body pairs (ccb_geometry_query_lazy; none from ccb_geometry_query), sorted by
     * (body_a, body_b), a body's walls against one body in their shape order */
    ccb_contact_pair* pairs;
    int npairs;
    int cap_pairs;
} ccb_contact_set;

CCB_API void ccb_contact_set_free(ccb_contact_set* set);

/* All contacts of a finalized model at time t and positions q[nq] with phi0 < margin, in a
 * deterministic order (shape pairs by (lower index, higher index), then features). margin must be finite and
 * >= 0 [m]. Replaces the contents of `out` (reusing its storage). CCB_E_INVALID/E_NONFINITE/
 * E_NOMEM with a message in msg. */
CCB_API ccb_status ccb_geometry_query(const ccb_model* model, double t, const double* q,
                                      double margin, ccb_contact_set* out, char* msg,
                                      size_t msg_size);

/* The cut of a lazy body pair: its shape pairs whose bounding spheres are farther apart than
 * the returned distance [m] produce no contacts and are recorded as one ccb_contact_pair (the
 * others are computed as usual); INFINITY leaves nothing out. `pair` holds the bodies, reaches
 * and material (phi_lb and shape_pairs are not known yet). */
typedef double (*ccb_lazy_pair_fn)(void* ctx, const ccb_contact_pair* pair);

/* As ccb_geometry_query, but each pair of bodies whose small shapes meet as two groups (both
 * single free or planar bodies whose small shapes share one material), and each large box of a
 * body without velocity coordinates (a wall, a floor) against such a body's group of spheres,
 * is offered to `lazy` for a cut (above). The contacts that
 * are computed are those ccb_geometry_query gives, in the same order, minus the ones left out.
 * lazy = NULL is ccb_geometry_query. */
CCB_API ccb_status ccb_geometry_query_lazy(const ccb_model* model, double t, const double* q,
                                           double margin, ccb_lazy_pair_fn lazy, void* ctx,
                                           ccb_contact_set* out, char* msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
