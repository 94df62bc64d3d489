/* blockmat — see blockmat.h. */
#include "blockmat.h"

#include <string.h>

#include "ccb/alloc.h"
#include "dense.h"
#include "internal.h"

void ccb_blockmat_init(ccb_blockmat* m, int lower) {
    memset(m, 0, sizeof *m);
    m->nb = -1;
    m->lower = lower;
}

void ccb_blockmat_free(ccb_blockmat* m) {
    ccb_free(m->bs);
    ccb_free(m->boff);
    ccb_free(m->edges);
    ccb_free(m->diag_off);
    ccb_free(m->up_off);
    ccb_free(m->lo_off);
    ccb_free(m->vals);
    ccb_blockmat_init(m, m->lower);
}

int ccb_blockmat_same(const ccb_blockmat* m, int nb, const int* bs, int nedge, const int* edges) {
    return m->nb == nb && m->nedge == nedge &&
           (nb == 0 || memcmp(m->bs, bs, (size_t)nb * sizeof(int)) == 0) &&
           (nedge == 0 || memcmp(m->edges, edges, 2 * (size_t)nedge * sizeof(int)) == 0);
}

ccb_status ccb_blockmat_set(ccb_blockmat* m, int nb, const int* bs, int nedge, const int* edges) {
    m->nb = -1; /* until the storage exists */
    void** const bi[] = {(void**)&m->bs, (void**)&m->boff, (void**)&m->diag_off};
    const size_t bsz[] = {sizeof(int), sizeof(int), sizeof(size_t)};
    void** const ei[] = {(void**)&m->edges, (void**)&m->up_off, (void**)&m->lo_off};
    const size_t esz[] = {2 * sizeof(int), sizeof(size_t), sizeof(size_t)};
    if (ccb_grow_many(bi, bsz, 3, &m->cap_nb, nb > 0 ? nb : 1) ||
        ccb_grow_many(ei, esz, 3, &m->cap_edge, nedge > 0 ? nedge : 1)) {
        return CCB_E_NOMEM;
    }
    int n = 0;
    size_t off = 0;
    for (int a = 0; a < nb; ++a) {
        m->bs[a] = bs[a];
        m->boff[a] = n;
        m->diag_off[a] = off;
        n += bs[a];
        off += (size_t)bs[a] * bs[a];
    }
    for (int e = 0; e < nedge; ++e) {
        m->edges[2 * e] = edges[2 * e];
        m->edges[2 * e + 1] = edges[2 * e + 1];
        const size_t sz = (size_t)bs[edges[2 * e]] * bs[edges[2 * e + 1]];
        m->up_off[e] = off;
        off += sz;
        m->lo_off[e] = m->lower ? off : m->up_off[e];
        off += m->lower ? sz : 0;
    }
    if (off > (size_t)1 << 30 ||
        ccb_grow((void**)&m->vals, &m->cap_vals, off > 0 ? (int)off : 1, sizeof(double))) {
        return CCB_E_NOMEM;
    }
    m->nb = nb;
    m->nedge = nedge;
    m->n = n;
    m->nvals = off;
    return CCB_OK;
}

int ccb_blockmat_find_edge(const ccb_blockmat* m, int a, int b) {
    int lo = 0, hi = m->nedge - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        const int* e = &m->edges[2 * mid];
        if (e[0] == a && e[1] == b) {
            return mid;
        }
        if (e[0] < a || (e[0] == a && e[1] < b)) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

void ccb_blockmat_zero(ccb_blockmat* m) {
    memset(m->vals, 0, m->nvals * sizeof(double));
}

void ccb_blockmat_zero_edges(ccb_blockmat* m, const unsigned char* skip) {
    if (m->nedge == 0) {
        return;
    }
    if (skip == NULL) { /* the edge blocks follow the diagonal ones (ccb_blockmat_set) */
        const size_t off = m->up_off[0];
        memset(m->vals + off, 0, (m->nvals - off) * sizeof(double));
        return;
    }
    for (int e = 0; e < m->nedge; ++e) {
        if (skip[m->edges[2 * e]]) {
            continue;
        }
        const size_t sz = (size_t)m->bs[m->edges[2 * e]] * (size_t)m->bs[m->edges[2 * e + 1]];
        memset(m->vals + m->up_off[e], 0, sz * sizeof(double));
        if (m->lower) {
            memset(m->vals + m->lo_off[e], 0, sz * sizeof(double));
        }
    }
}

void ccb_blockmat_to_dense(const ccb_blockmat* m, double* H) {
    const int n = m->n;
    memset(H, 0, (size_t)n * n * sizeof(double));
    for (int a = 0; a < m->nb; ++a) {
        ccb_dense_put_block(H, n, m->boff[a], m->boff[a], m->vals + m->diag_off[a], m->bs[a],
                            m->bs[a], 0);
    }
    for (int e = 0; e < m->nedge; ++e) { /* upper (a, b); lower (b, a) stored or mirrored */
        const int a = m->edges[2 * e], b = m->edges[2 * e + 1];
        ccb_dense_put_block(H, n, m->boff[a], m->boff[b], m->vals + m->up_off[e], m->bs[a],
                            m->bs[b], 0);
        if (m->lower) {
            ccb_dense_put_block(H, n, m->boff[b], m->boff[a], m->vals + m->lo_off[e], m->bs[b],
                                m->bs[a], 0);
        } else {
            ccb_dense_put_block(H, n, m->boff[b], m->boff[a], m->vals + m->up_off[e], m->bs[a],
                                m->bs[b], 1);
        }
    }
}
