/* hydro_bvh: axis-aligned bounding-box trees over a mesh's tetrahedra and surface triangles, in
 * the mesh frame, and the overlapping element pairs of two trees at a relative pose (spec:
 * formulation-tamsi-hydro §F.7). Rigid motion needs no refit: the tree of B is read in A's frame
 * through the pose, each of its boxes bounded by the box about the rotated box. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/alloc.h"
#include "hydro_internal.h"
#include "internal.h"

void ccb_hydro_bvh_free(hydro_bvh* b) {
    ccb_free(b->node);
    ccb_free(b->elems);
    b->node = NULL;
    b->elems = NULL;
    b->n = 0;
}

ccb_status ccb_hydro_bvh_copy(hydro_bvh* dst, const hydro_bvh* src) {
    memset(dst, 0, sizeof *dst);
    if (src->n == 0) {
        return CCB_OK;
    }
    dst->node = ccb_alloc((size_t)(2 * src->n - 1) * sizeof(hydro_bvh_node));
    dst->elems = ccb_alloc((size_t)src->n * sizeof(int));
    if (dst->node == NULL || dst->elems == NULL) {
        ccb_hydro_bvh_free(dst);
        return CCB_E_NOMEM;
    }
    memcpy(dst->node, src->node, (size_t)(2 * src->n - 1) * sizeof(hydro_bvh_node));
    memcpy(dst->elems, src->elems, (size_t)src->n * sizeof(int));
    dst->n = src->n;
    return CCB_OK;
}

/* An element's box and centroid while building. */
typedef struct bvh_item {
    double lo[3], hi[3], c[3];
    int elem;
} bvh_item;

typedef struct bvh_key {
    double c;
    int slot;
} bvh_key;

static int cmp_key(const void* x, const void* y) {
    const bvh_key *a = x, *b = y;
    if (a->c != b->c) {
        return a->c < b->c ? -1 : 1;
    }
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* Builds the subtree of items[lo, hi) into node *next (preorder); returns its index. The split
 * is at the median centroid along the longest axis of the centroids' box, ties broken by the
 * element's position, so the tree is a deterministic function of the mesh. */
static int build(hydro_bvh* b, bvh_item* it, bvh_item* tmp, bvh_key* key, int lo, int hi,
                 int* next) {
    const int me = (*next)++;
    hydro_bvh_node* nd = &b->node[me];
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; ++k) {
        nd->lo[k] = INFINITY;
        nd->hi[k] = -INFINITY;
    }
    for (int i = lo; i < hi; ++i) {
        for (int k = 0; k < 3; ++k) {
            nd->lo[k] = fmin(nd->lo[k], it[i].lo[k]);
            nd->hi[k] = fmax(nd->hi[k], it[i].hi[k]);
            clo[k] = fmin(clo[k], it[i].c[k]);
            chi[k] = fmax(chi[k], it[i].c[k]);
        }
    }
    if (hi - lo == 1) {
        nd->left = -1;
        nd->right = lo;
        b->elems[lo] = it[lo].elem;
        return me;
    }
    int ax = 0;
    for (int k = 1; k < 3; ++k) {
        if (chi[k] - clo[k] > chi[ax] - clo[ax]) {
            ax = k;
        }
    }
    for (int i = lo; i < hi; ++i) {
        key[i - lo].c = it[i].c[ax];
        key[i - lo].slot = i;
    }
    qsort(key, (size_t)(hi - lo), sizeof(bvh_key), cmp_key);
    for (int i = lo; i < hi; ++i) {
        tmp[i] = it[key[i - lo].slot];
    }
    memcpy(it + lo, tmp + lo, (size_t)(hi - lo) * sizeof(bvh_item));
    const int mid = lo + (hi - lo) / 2;
    const int l = build(b, it, tmp, key, lo, mid, next);
    const int r = build(b, it, tmp, key, mid, hi, next);
    b->node[me].left = l;
    b->node[me].right = r;
    return me;
}

/* Tree over n elements of nvert vertex indices each (idx), vertices x; pad the boxes by pad. */
static ccb_status bvh_make(hydro_bvh* b, const ccb_vec3* x, const int* idx, int n, int nvert,
                           double pad) {
    memset(b, 0, sizeof *b);
    if (n == 0) {
        return CCB_OK;
    }
    bvh_item* it = ccb_alloc((size_t)n * sizeof(bvh_item));
    bvh_item* tmp = ccb_alloc((size_t)n * sizeof(bvh_item));
    bvh_key* key = ccb_alloc((size_t)n * sizeof(bvh_key));
    b->node = ccb_alloc((size_t)(2 * n - 1) * sizeof(hydro_bvh_node));
    b->elems = ccb_alloc((size_t)n * sizeof(int));
    if (!it || !tmp || !key || !b->node || !b->elems) {
        ccb_free(it);
        ccb_free(tmp);
        ccb_free(key);
        ccb_hydro_bvh_free(b);
        return CCB_E_NOMEM;
    }
    for (int e = 0; e < n; ++e) {
        const int* v = idx + (size_t)nvert * e;
        for (int k = 0; k < 3; ++k) {
            it[e].lo[k] = INFINITY;
            it[e].hi[k] = -INFINITY;
            it[e].c[k] = 0;
        }
        for (int j = 0; j < nvert; ++j) {
            const double* p = &x[v[j]].x;
            for (int k = 0; k < 3; ++k) {
                it[e].lo[k] = fmin(it[e].lo[k], p[k]);
                it[e].hi[k] = fmax(it[e].hi[k], p[k]);
                it[e].c[k] += p[k] / nvert;
            }
        }
        for (int k = 0; k < 3; ++k) {
            it[e].lo[k] -= pad;
            it[e].hi[k] += pad;
        }
        it[e].elem = e;
    }
    int next = 0;
    build(b, it, tmp, key, 0, n, &next);
    b->n = n;
    ccb_free(it);
    ccb_free(tmp);
    ccb_free(key);
    return CCB_OK;
}

ccb_status ccb_hydro_bvh_build(ccb_hydro_mesh* m) {
    const double pad = 1e-10 * (m->bound > 0 ? m->bound : 1);
    if (bvh_make(&m->tet_tree, m->x, m->t, m->nt, 4, pad) != CCB_OK) {
        return CCB_E_NOMEM;
    }
    if (bvh_make(&m->tri_tree, m->x, m->bt, m->nbt, 3, pad) != CCB_OK) {
        ccb_hydro_bvh_free(&m->tet_tree);
        return CCB_E_NOMEM;
    }
    return CCB_OK;
}

/* The box of B's node b (lo, hi in B's frame) seen in A's frame: bounded by the axis-aligned box
 * about its rotated image, centre R c + p, half-extents |R| e. */
static void box_in_a(const hydro_bvh_node* b, const ccb_pose* X, double lo[3], double hi[3]) {
    const double cb[3] = {0.5 * (b->lo[0] + b->hi[0]), 0.5 * (b->lo[1] + b->hi[1]),
                          0.5 * (b->lo[2] + b->hi[2])};
    const double eb[3] = {0.5 * (b->hi[0] - b->lo[0]), 0.5 * (b->hi[1] - b->lo[1]),
                          0.5 * (b->hi[2] - b->lo[2])};
    const double* p = &X->p.x;
    for (int r = 0; r < 3; ++r) {
        const double* R = X->R.m + 3 * r;
        const double c = R[0] * cb[0] + R[1] * cb[1] + R[2] * cb[2] + p[r];
        const double e = fabs(R[0]) * eb[0] + fabs(R[1]) * eb[1] + fabs(R[2]) * eb[2];
        lo[r] = c - e;
        hi[r] = c + e;
    }
}

/* The longest edge of a node's box (NaN-free: the same as fmax over the edges). */
static double box_size(const hydro_bvh_node* a) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
        const double d = a->hi[k] - a->lo[k];
        s = d > s ? d : s;
    }
    return s;
}

/* A pair of nodes on the traversal's stack, with B's box in A's frame (box_in_a), computed once
 * when B's node is reached and shared by every A node it is tested against. */
typedef struct bvh_pair {
    double lo[3], hi[3];
    int i, j;
} bvh_pair;

long ccb_hydro_bvh_pairs(const hydro_bvh* ta, const hydro_bvh* tb, const ccb_pose* X_AB,
                         uint64_t** keys, int* cap, uint64_t** tmp, int* tcap) {
    if (ta->n == 0 || tb->n == 0) {
        return 0;
    }
    /* depth-first over node pairs: each step replaces a pair by two, so the stack holds at most
     * depth_a + depth_b + 1 pairs; median splits keep a depth of at most 23 for the 5e6
     * tetrahedra a mesh may have */
    bvh_pair stack[256];
    int top = 0;
    long n = 0;
    stack[0].i = stack[0].j = 0;
    box_in_a(&tb->node[0], X_AB, stack[0].lo, stack[0].hi);
    top = 1;
    while (top > 0) {
        const bvh_pair pr = stack[--top];
        const int i = pr.i, j = pr.j;
        const hydro_bvh_node *a = &ta->node[i], *b = &tb->node[j];
        if (pr.lo[0] > a->hi[0] || pr.hi[0] < a->lo[0] || pr.lo[1] > a->hi[1] ||
            pr.hi[1] < a->lo[1] || pr.lo[2] > a->hi[2] || pr.hi[2] < a->lo[2]) {
            continue; /* the boxes are apart along an axis of A */
        }
        const int leaf_a = a->left < 0, leaf_b = b->left < 0;
        if (leaf_a && leaf_b) {
            if (n == *cap && ccb_grow((void**)keys, cap, (int)n + 1, sizeof(uint64_t)) != CCB_OK) {
                return -1;
            }
            (*keys)[n++] = ((uint64_t)ta->elems[a->right] << 32) | (uint32_t)tb->elems[b->right];
            continue;
        }
        /* descend the larger box (by its longest edge), or the one that is not a leaf */
        CCB_ASSERT(top + 2 <= (int)(sizeof stack / sizeof stack[0]));
        if (leaf_b || (!leaf_a && box_size(a) >= box_size(b))) {
            stack[top] = pr;
            stack[top++].i = a->right;
            stack[top] = pr;
            stack[top++].i = a->left;
        } else {
            stack[top].i = i;
            stack[top].j = b->right;
            box_in_a(&tb->node[b->right], X_AB, stack[top].lo, stack[top].hi);
            ++top;
            stack[top].i = i;
            stack[top].j = b->left;
            box_in_a(&tb->node[b->left], X_AB, stack[top].lo, stack[top].hi);
            ++top;
        }
    }
    if (n > *tcap && ccb_grow((void**)tmp, tcap, (int)n, sizeof(uint64_t)) != CCB_OK) {
        return -1;
    }
    ccb_sort_u64(*keys, *tmp, (size_t)n);
    return n;
}
