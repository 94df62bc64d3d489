/* model_finalize: the shape pairs of a model (filters, kinds, combined materials, the pairs that
 * can never meet) and ccb_model_finalize, which fixes the model's cliques, coordinates and pairs
 * (model.c builds the model; tree.c its kinematic trees). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "model_internal.h"

/* the names and units of the coordinates and velocities of each mobilizer */
static const char* const k_planar_v[3] = {"vx", "vz", "omega"};
static const char* const k_planar_qu[3] = {"m", "m", "rad"};
static const char* const k_planar_vu[3] = {"m/s", "m/s", "rad/s"};
static const char* const k_free_q[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
static const char* const k_free_v[6] = {"wx", "wy", "wz", "vx", "vy", "vz"};
static const char* const k_free_qu[7] = {"m", "m", "m", "-", "-", "-", "-"};
static const char* const k_free_vu[6] = {"rad/s", "rad/s", "rad/s", "m/s", "m/s", "m/s"};

ccb_status ccb_model_filter_pair(ccb_model* m, int a, int b) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (m->finalized) {
        return ccb_model_fail(m, CCB_E_INVALID, "filter_pair: model is already finalized");
    }
    if (a < 0 || a >= m->nbodies || b < 0 || b >= m->nbodies || a == b) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "filter_pair: invalid body pair (%d, %d) of %d bodies", a, b,
                              m->nbodies);
    }
    if (ccb_grow((void**)&m->filters, &m->cap_filters, 2 * (m->nfilters + 1), sizeof(int)) !=
        CCB_OK) {
        return ccb_model_fail(m, CCB_E_NOMEM, "filter_pair: out of memory");
    }
    m->filters[2 * m->nfilters] = a < b ? a : b;
    m->filters[2 * m->nfilters + 1] = a < b ? b : a;
    m->nfilters++;
    return CCB_OK;
}

static int cmp_filter(const void* x, const void* y) {
    const int* a = x;
    const int* b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Filters are sorted at finalize: binary search. */
static int filtered(const ccb_model* m, int a, int b) {
    const int key[2] = {a < b ? a : b, a < b ? b : a};
    return m->nfilters > 0 &&
           bsearch(key, m->filters, (size_t)m->nfilters, 2 * sizeof(int), cmp_filter) != NULL;
}

static const char* shape_type_name(ccb_shape_type t) {
    switch (t) {
    case CCB_SHAPE_HALFSPACE: return "half-space";
    case CCB_SHAPE_BOX: return "box";
    case CCB_SHAPE_POINTS: return "point set";
    case CCB_SHAPE_SPHERE: return "sphere";
    case CCB_SHAPE_CAPSULE: return "capsule";
    case CCB_SHAPE_HYDRO: return "hydroelastic mesh";
    }
    return "unknown";
}

static double harmonic_mu(double a, double b) {
    return (a + b) > 0 ? 2.0 * a * b / (a + b) : 0.0;
}

/* Drake's pair combination (spec: formulation-convex §8.8) with rigid (k = inf) sides. */
static ccb_material combine(const ccb_material* A, const ccb_material* B, double* weight_a) {
    ccb_material c;
    if (isinf(A->k)) {
        c.k = B->k;
        c.d = B->d;
        *weight_a = 1.0;
    } else if (isinf(B->k)) {
        c.k = A->k;
        c.d = A->d;
        *weight_a = 0.0;
    } else {
        const double s = A->k + B->k;
        c.k = A->k * B->k / s;
        c.d = (B->k * A->d + A->k * B->d) / s;
        *weight_a = A->k / s;
    }
    c.tau_d = A->tau_d + B->tau_d;
    c.mu = harmonic_mu(A->mu, B->mu);
    /* anisotropic friction (formulation-convex §18.1): each axis combines with the other side's
     * coefficient; only a half-space has a grain, so at most one side has mu2 > 0 */
    c.mu2 = 0.0;
    if (A->mu2 > 0 || B->mu2 > 0) {
        const double mu2 = harmonic_mu(A->mu2 > 0 ? A->mu2 : A->mu, B->mu2 > 0 ? B->mu2 : B->mu);
        c.mu2 = mu2 != c.mu && c.mu > 0 ? mu2 : 0.0; /* equal axes, or no friction: isotropic */
    }
    return c;
}

ccb_pair_kind ccb_shape_pair_kind(const ccb_model* m, int i, int j, int* a, int* b) {
    const ccb_shape_type ti = m->shapes[i].def.type, tj = m->shapes[j].def.type;
    *a = i;
    *b = j;
    if ((ti == CCB_SHAPE_HALFSPACE) != (tj == CCB_SHAPE_HALFSPACE)) {
        if (tj == CCB_SHAPE_HALFSPACE) {
            *a = j;
            *b = i;
        }
        /* hydroelastic pairs need exactly one compliant side (formulation-tamsi-hydro §F.2): a
         * compliant half-space meets only rigid surface meshes, a rigid one compliant meshes or
         * points */
        const int soft_h = m->shapes[*a].def.hydro_slab > 0,
                  hydro = m->shapes[*b].def.type == CCB_SHAPE_HYDRO,
                  rigid_b = isinf(m->shapes[*b].def.material.k);
        if (soft_h) {
            return hydro && rigid_b ? CCB_PAIR_SOFT_HALFSPACE_HYDRO : CCB_PAIR_NONE;
        }
        if (hydro) {
            return rigid_b ? CCB_PAIR_NONE : CCB_PAIR_HALFSPACE_HYDRO;
        }
        return CCB_PAIR_HALFSPACE;
    }
    if (ti == CCB_SHAPE_HYDRO && tj == CCB_SHAPE_HYDRO) {
        /* B compliant (the lower index of two compliant meshes), A rigid or compliant; two rigid
         * meshes have no query */
        const int ri = isinf(m->shapes[i].def.material.k) != 0,
                  rj = isinf(m->shapes[j].def.material.k) != 0;
        if (ri && rj) {
            return CCB_PAIR_NONE;
        }
        const int b_is_i = rj || (!ri && i < j);
        *a = b_is_i ? j : i;
        *b = b_is_i ? i : j;
        return CCB_PAIR_HYDRO_MESHES;
    }
    if (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_SPHERE) {
        *a = i < j ? i : j;
        *b = i < j ? j : i;
        return CCB_PAIR_SPHERES;
    }
    if ((ti == CCB_SHAPE_BOX && tj == CCB_SHAPE_SPHERE) ||
        (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_BOX)) {
        if (tj == CCB_SHAPE_BOX) {
            *a = j;
            *b = i;
        }
        return CCB_PAIR_BOX_SPHERE;
    }
    if ((ti == CCB_SHAPE_CAPSULE && tj == CCB_SHAPE_SPHERE) ||
        (ti == CCB_SHAPE_SPHERE && tj == CCB_SHAPE_CAPSULE)) {
        if (tj == CCB_SHAPE_CAPSULE) {
            *a = j;
            *b = i;
        }
        return CCB_PAIR_CAPSULE_SPHERE;
    }
    return CCB_PAIR_NONE;
}

int ccb_shape_pair_active(const ccb_model* m, int i, int j) {
    const int bi = m->shapes[i].body, bj = m->shapes[j].body;
    return bi != bj && (m->bodies[bi].nv > 0 || m->bodies[bj].nv > 0) && !filtered(m, bi, bj);
}

ccb_material ccb_shape_pair_material(const ccb_model* m, int a, int b, double* weight_a) {
    return combine(&m->shapes[a].def.material, &m->shapes[b].def.material, weight_a);
}

/* Radius of a sphere about the shape origin containing the shape (broad phase). */
static double shape_bound(const ccb_shape* s) {
    switch (s->def.type) {
    case CCB_SHAPE_HALFSPACE: return INFINITY;
    case CCB_SHAPE_BOX: return ccb_v3_norm(s->def.half_extents);
    case CCB_SHAPE_SPHERE: return s->def.radius;
    case CCB_SHAPE_CAPSULE: return s->def.half_length + s->def.radius;
    case CCB_SHAPE_HYDRO: return ccb_hydro_mesh_bound(s->mesh);
    case CCB_SHAPE_POINTS: {
        double r = 0.0;
        for (int k = 0; k < s->def.npoints; ++k) {
            r = fmax(r, ccb_v3_norm(s->points[k]));
        }
        return r;
    }
    }
    return INFINITY;
}

/* Checks every pair of shapes that can touch: a narrow-phase query must exist and the combined
 * stiffness must be finite. Pairs are not stored: the geometry query finds candidates with a
 * broad phase. Cheap per pair; the filter lookup runs only for pairs that would fail. */
/* Every pair of shapes that can meet (different bodies, at least one of them moving, not
 * filtered) needs a contact query and a finite combined stiffness. Whether a pair has them
 * depends only on the two shapes' classes (type, compliant half-space, rigid), so the check runs
 * over pairs of classes and searches the members only of a failing class pair, for the first
 * pair (i < j, in index order) that can meet: the error names the same pair as a check of all
 * shape pairs would, at a cost linear in the shapes instead of quadratic. */
enum { SHAPE_CLASSES = 4 * (CCB_SHAPE_HYDRO + 1) };
static int shape_class(const ccb_shape* s) {
    return 4 * (int)s->def.type + 2 * (s->def.hydro_slab > 0) + (isinf(s->def.material.k) != 0);
}

static int pair_can_meet(const ccb_model* m, int i, int j) {
    const int bi = m->shapes[i].body, bj = m->shapes[j].body;
    return bi != bj && (m->bodies[bi].nv > 0 || m->bodies[bj].nv > 0) && !filtered(m, bi, bj);
}

static ccb_status check_pairs(ccb_model* m) {
    const int n = m->nshapes;
    int start[SHAPE_CLASSES + 1] = {0};
    int* member = ccb_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (member == NULL) {
        return ccb_model_fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    for (int i = 0; i < n; ++i) { /* members of each class, ascending (counting sort) */
        start[shape_class(&m->shapes[i]) + 1]++;
    }
    for (int c = 0; c < SHAPE_CLASSES; ++c) {
        start[c + 1] += start[c];
    }
    int fill[SHAPE_CLASSES];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < n; ++i) {
        member[fill[shape_class(&m->shapes[i])]++] = i;
    }
    int bi = -1, bj = -1; /* the first failing pair */
    for (int x = 0; x < SHAPE_CLASSES; ++x) {
        for (int y = x; y < SHAPE_CLASSES; ++y) {
            if (start[x] == start[x + 1] || start[y] == start[y + 1]) {
                continue;
            }
            int a, b;
            const int rx = member[start[x]], ry = member[start[y]];
            const ccb_pair_kind kind = ccb_shape_pair_kind(m, rx, ry, &a, &b);
            const int rigid =
                isinf(m->shapes[rx].def.material.k) && isinf(m->shapes[ry].def.material.k);
            if (kind != CCB_PAIR_NONE && !rigid) {
                continue;
            }
            /* the first pair of members (i in x, j in y or the reverse) that can meet */
            for (int u = start[x]; u < start[x + 1]; ++u) {
                for (int w = start[y]; w < start[y + 1]; ++w) {
                    int i = member[u], j = member[w];
                    if (i == j) {
                        continue;
                    }
                    if (i > j) {
                        const int t = i;
                        i = j;
                        j = t;
                    }
                    if ((bi < 0 || i < bi || (i == bi && j < bj)) && pair_can_meet(m, i, j)) {
                        bi = i;
                        bj = j;
                    }
                    if (bi >= 0 && member[u] > bi && member[w] > bi) {
                        break; /* nothing earlier can follow in this row */
                    }
                }
            }
        }
    }
    ccb_free(member);
    if (bi < 0) {
        return CCB_OK;
    }
    const ccb_shape *si = &m->shapes[bi], *sj = &m->shapes[bj];
    int a, b;
    if (ccb_shape_pair_kind(m, bi, bj, &a, &b) == CCB_PAIR_NONE) {
        return ccb_model_fail(m, CCB_E_INVALID,
                              "no contact query for %s '%s' (body '%s') vs %s '%s' (body '%s'); "
                              "filter the pair with ccb_model_filter_pair",
                              shape_type_name(si->def.type), si->name, m->bodies[si->body].name,
                              shape_type_name(sj->def.type), sj->name, m->bodies[sj->body].name);
    }
    return ccb_model_fail(m, CCB_E_INVALID,
                          "shapes '%s' and '%s' are both rigid (k = inf): a compliant contact "
                          "needs a finite combined stiffness",
                          m->shapes[a].name, m->shapes[b].name);
}

/* About 180 lines: the model's checks, the cliques of its kinematic trees, the coordinates and
 * velocity offsets and the shape pairs, in the one order their dependencies allow; each part
 * reads what the previous one filled. */
ccb_status ccb_model_finalize(ccb_model* m) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (m->finalized) {
        return CCB_OK;
    }
    /* mobilizer sizes and trees: a free or planar body, or a jointed body whose parent has no
     * coordinates, roots a tree; a jointed body on a parent with coordinates joins its tree */
    int nq = 0, nv = 0, nclique = 0, ntb = 0;
    for (int i = 0; i < m->nbodies; ++i) {
        ccb_body* b = &m->bodies[i];
        b->nq = b->nv = 0;
        b->clique = -1;
        b->up = b->anchor = -1;
        if (b->def.mobilizer == CCB_MOBILIZER_PLANAR) {
            for (int c = 0; c < 3; ++c) {
                if (!(b->def.locked & (1u << c))) {
                    b->coord[b->nv++] = c;
                }
            }
            b->nq = b->nv;
        }
        if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
            b->nq = 7;
            b->nv = 6;
        }
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            b->nq = b->nv = 1;
            const ccb_body* pb = b->parent >= 0 ? &m->bodies[b->parent] : NULL;
            if (pb != NULL && pb->nv > 0) {
                b->up = b->parent;
                b->clique = pb->clique;
            } else {
                b->anchor = b->parent; /* -1: hangs from the world */
            }
        }
        if (b->nv > 0 && b->clique < 0) {
            b->clique = nclique++;
        }
        nq += b->nq;
        nv += b->nv;
        ntb += b->nv > 0;
    }
    m->nq = nq;
    m->nv = nv;
    m->nclique = nclique;
    m->ntree_bodies = ntb;
    const int nc1 = nclique > 0 ? nclique : 1;
    ccb_free(m->clique_body), ccb_free(m->clique_nv), ccb_free(m->clique_voff);
    ccb_free(m->clique_bstart), ccb_free(m->clique_blist);
    m->clique_body = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_nv = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_voff = ccb_alloc((size_t)nc1 * sizeof(int));
    m->clique_bstart = ccb_alloc((size_t)(nclique + 1) * sizeof(int));
    m->clique_blist = ccb_alloc((size_t)(ntb > 0 ? ntb : 1) * sizeof(int));
    if (!m->clique_body || !m->clique_nv || !m->clique_voff || !m->clique_bstart ||
        !m->clique_blist) {
        return ccb_model_fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    /* bodies grouped by tree (counting sort, stable: index order within a tree, parents first) */
    for (int c = 0; c <= nclique; ++c) {
        m->clique_bstart[c] = 0;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (m->bodies[i].clique >= 0) {
            m->clique_bstart[m->bodies[i].clique + 1]++;
        }
    }
    for (int c = 0; c < nclique; ++c) {
        m->clique_bstart[c + 1] += m->clique_bstart[c];
    }
    {
        int* next = ccb_alloc((size_t)nc1 * sizeof(int));
        if (next == NULL) {
            return ccb_model_fail(m, CCB_E_NOMEM, "finalize: out of memory");
        }
        for (int c = 0; c < nclique; ++c) {
            next[c] = m->clique_bstart[c];
        }
        for (int i = 0; i < m->nbodies; ++i) {
            if (m->bodies[i].clique >= 0) {
                m->clique_blist[next[m->bodies[i].clique]++] = i;
            }
        }
        ccb_free(next);
    }
    /* coordinates numbered tree by tree; bodies without coordinates take none */
    int qo = 0, vo = 0;
    for (int c = 0; c < nclique; ++c) {
        const int* bl = m->clique_blist + m->clique_bstart[c];
        const int nb = m->clique_bstart[c + 1] - m->clique_bstart[c];
        m->clique_body[c] = bl[0];
        m->clique_voff[c] = vo;
        for (int k = 0; k < nb; ++k) {
            ccb_body* b = &m->bodies[bl[k]];
            b->qoff = qo;
            b->voff = vo;
            b->tvoff = vo - m->clique_voff[c];
            if (ccb_mobilizer_is_joint(b->def.mobilizer) && b->up >= 0) {
                b->anchor = m->bodies[b->up].anchor;
            }
            qo += b->nq;
            vo += b->nv;
        }
        m->clique_nv[c] = vo - m->clique_voff[c];
        if (nb > CCB_MAX_TREE_BODIES || m->clique_nv[c] > CCB_MAX_TREE_NV) {
            return ccb_model_fail(
                m, CCB_E_INVALID,
                "finalize: the tree rooted at body '%s' has %d bodies and %d velocity "
                "coordinates (at most %d and %d)",
                m->bodies[bl[0]].name, nb, m->clique_nv[c], CCB_MAX_TREE_BODIES, CCB_MAX_TREE_NV);
        }
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (m->bodies[i].nv == 0) {
            m->bodies[i].qoff = qo;
            m->bodies[i].voff = vo;
        }
    }
    if (m->nfilters > 1) {
        qsort(m->filters, (size_t)m->nfilters, 2 * sizeof(int), cmp_filter);
    }
    ccb_status s = check_pairs(m);
    if (s != CCB_OK) {
        return s;
    }
    ccb_free(m->halfspaces);
    ccb_free(m->bounded);
    m->halfspaces = ccb_alloc((size_t)(m->nshapes > 0 ? m->nshapes : 1) * sizeof(int));
    m->bounded = ccb_alloc((size_t)(m->nshapes > 0 ? m->nshapes : 1) * sizeof(int));
    if (!m->halfspaces || !m->bounded) {
        ccb_free(m->halfspaces), ccb_free(m->bounded);
        m->halfspaces = m->bounded = NULL;
        return ccb_model_fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    m->nhalfspaces = m->nbounded = 0;
    for (int i = 0; i < m->nshapes; ++i) {
        ccb_shape* sh = &m->shapes[i];
        sh->bound = shape_bound(sh);
        if (sh->def.type == CCB_SHAPE_HALFSPACE) {
            m->halfspaces[m->nhalfspaces++] = i;
        } else {
            m->bounded[m->nbounded++] = i;
        }
    }
    const int nq1 = nq > 0 ? nq : 1, nv1 = nv > 0 ? nv : 1;
    m->qnames = ccb_alloc((size_t)nq1 * sizeof *m->qnames);
    m->vnames = ccb_alloc((size_t)nv1 * sizeof *m->vnames);
    m->qunits = ccb_alloc((size_t)nq1 * sizeof(char*));
    m->vunits = ccb_alloc((size_t)nv1 * sizeof(char*));
    if (!m->qnames || !m->vnames || !m->qunits || !m->vunits) {
        ccb_free(m->qnames), ccb_free(m->vnames);
        ccb_free(m->qunits), ccb_free(m->vunits);
        m->qnames = NULL, m->vnames = NULL;
        m->qunits = NULL, m->vunits = NULL;
        return ccb_model_fail(m, CCB_E_NOMEM, "finalize: out of memory");
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        const int free_body = b->def.mobilizer == CCB_MOBILIZER_FREE;
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            const int pr = b->def.mobilizer == CCB_MOBILIZER_PRISMATIC;
            snprintf(m->qnames[b->qoff], sizeof m->qnames[0], "%s.%s", b->name, pr ? "s" : "angle");
            snprintf(m->vnames[b->voff], sizeof m->vnames[0], "%s.%s", b->name,
                     pr ? "vs" : "omega");
            m->qunits[b->qoff] = pr ? "m" : "rad";
            m->vunits[b->voff] = pr ? "m/s" : "rad/s";
            continue;
        }
        for (int k = 0; k < b->nq; ++k) {
            snprintf(m->qnames[b->qoff + k], sizeof m->qnames[0], "%s.%s", b->name,
                     free_body ? k_free_q[k] : ccb_planar_q_names[b->coord[k]]);
            m->qunits[b->qoff + k] = free_body ? k_free_qu[k] : k_planar_qu[b->coord[k]];
        }
        for (int k = 0; k < b->nv; ++k) {
            snprintf(m->vnames[b->voff + k], sizeof m->vnames[0], "%s.%s", b->name,
                     free_body ? k_free_v[k] : k_planar_v[b->coord[k]]);
            m->vunits[b->voff + k] = free_body ? k_free_vu[k] : k_planar_vu[b->coord[k]];
        }
    }
    m->finalized = 1;
    return CCB_OK;
}

int ccb_model_nq(const ccb_model* m) {
    return m ? m->nq : 0;
}
int ccb_model_nv(const ccb_model* m) {
    return m ? m->nv : 0;
}
int ccb_model_nbodies(const ccb_model* m) {
    return m ? m->nbodies : 0;
}
int ccb_model_nshapes(const ccb_model* m) {
    return m ? m->nshapes : 0;
}
ccb_vec3 ccb_model_gravity(const ccb_model* m) {
    return m ? m->gravity : ccb_v3(0, 0, 0);
}

const char* ccb_model_body_name(const ccb_model* m, int i) {
    return (m && i >= 0 && i < m->nbodies) ? m->bodies[i].name : NULL;
}

int ccb_model_find_body(const ccb_model* m, const char* name) {
    if (m == NULL || name == NULL) {
        return -1;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (strcmp(m->bodies[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

double ccb_model_body_mass(const ccb_model* m, int i) {
    return (m && i >= 0 && i < m->nbodies) ? m->bodies[i].def.mass : NAN;
}

ccb_status ccb_model_body_def_get(const ccb_model* m, int i, ccb_body_def* def) {
    if (m == NULL || def == NULL || i < 0 || i >= m->nbodies) {
        return CCB_E_INVALID;
    }
    *def = m->bodies[i].def;
    return CCB_OK;
}

ccb_status ccb_model_shape_def_get(const ccb_model* m, int i, int* body, ccb_shape_def* def) {
    if (m == NULL || def == NULL || i < 0 || i >= m->nshapes) {
        return CCB_E_INVALID;
    }
    *def = m->shapes[i].def;
    if (body) {
        *body = m->shapes[i].body;
    }
    return CCB_OK;
}

ccb_status ccb_model_body_coords(const ccb_model* m, int i, int* qoff, int* nq, int* voff,
                                 int* nv) {
    if (m == NULL) {
        return CCB_E_INVALID;
    }
    if (!m->finalized || i < 0 || i >= m->nbodies) {
        return CCB_E_INVALID;
    }
    const ccb_body* b = &m->bodies[i];
    if (qoff)
        *qoff = b->qoff;
    if (nq)
        *nq = b->nq;
    if (voff)
        *voff = b->voff;
    if (nv)
        *nv = b->nv;
    return CCB_OK;
}

const char* ccb_model_q_name(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nq) ? m->qnames[i] : NULL;
}
const char* ccb_model_q_unit(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nq) ? m->qunits[i] : NULL;
}
const char* ccb_model_v_name(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nv) ? m->vnames[i] : NULL;
}
const char* ccb_model_v_unit(const ccb_model* m, int i) {
    return (m && m->finalized && i >= 0 && i < m->nv) ? m->vunits[i] : NULL;
}

ccb_status ccb_model_initial_state(const ccb_model* m, double* q, double* v) {
    if (m == NULL || (m->nq > 0 && q == NULL) || (m->nv > 0 && v == NULL)) {
        return CCB_E_INVALID;
    }
    if (!m->finalized) {
        return CCB_E_INVALID;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        const ccb_body* b = &m->bodies[i];
        if (b->def.mobilizer == CCB_MOBILIZER_FREE) {
            const ccb_twist* V = &b->def.twist;
            const double v6[6] = {V->w.x, V->w.y, V->w.z, V->v.x, V->v.y, V->v.z};
            memcpy(q + b->qoff, b->free0, 7 * sizeof(double));
            memcpy(v + b->voff, v6, sizeof v6);
            continue;
        }
        if (ccb_mobilizer_is_joint(b->def.mobilizer)) {
            q[b->qoff] = b->def.joint.q0;
            v[b->voff] = b->def.joint.v0;
            continue;
        }
        const double v3[3] = {b->def.twist.v.x, b->def.twist.v.z, b->def.twist.w.y};
        for (int k = 0; k < b->nv; ++k) {
            q[b->qoff + k] = b->planar0[b->coord[k]];
            v[b->voff + k] = v3[b->coord[k]];
        }
    }
    return CCB_OK;
}
