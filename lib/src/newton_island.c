/* newton_island: the islands of the Newton solver (newton.c; formulation-convex §8.10): the
 * connected components of the participating cliques through every contact, and the lists of the
 * cliques, unknowns and near contacts of the islands still iterating. */
#include <string.h>

#include "newton_internal.h"

static int uf_find(int* parent, int a) {
    while (parent[a] != a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    return a;
}

/* The islands of the problem: union-find over the participating cliques through every contact,
 * numbered in the order of their first clique (deterministic). One island without prm.islands.
 * The clique labels are kept in rho (np), scratch until the far contacts' first update. */
void ccb_newton_islands_init(ccb_newton* ws) {
    const ccb_problem* pb = ws->pb;
    ws->nisl = 1;
    if (ws->prm.islands && pb->np > 1) {
        int* parent = ws->isl_v; /* np <= npv: the labels are moved out before isl_v is set */
        for (int a = 0; a < pb->np; ++a) {
            parent[a] = a;
        }
        for (int i = 0; i < pb->nc; ++i) {
            const ccb_pcontact* pc = &pb->contacts[i];
            if (pc->nblk == 2) {
                const int x = uf_find(parent, pb->clique_pidx[pc->clique[0]]),
                          y = uf_find(parent, pb->clique_pidx[pc->clique[1]]);
                if (x != y) {
                    parent[x > y ? x : y] = x < y ? x : y; /* the root is the smallest clique */
                }
            }
        }
        /* a lazy pair joins nothing: while its test holds its contacts stay inactive, and the
         * step is solved again with them if it fails (formulation-convex §8.11) */
        /* roots are their component's smallest clique: numbering in clique order */
        int* label = (int*)ws->rho; /* np ints fit in np doubles */
        int n = 0;
        for (int a = 0; a < pb->np; ++a) {
            const int r = uf_find(parent, a);
            label[a] = r == a ? n++ : label[r];
        }
        ws->nisl = n;
        for (int i = 0; i < pb->nc; ++i) {
            const ccb_pcontact* pc = &pb->contacts[i];
            ws->icon[i] = pc->nblk > 0 ? label[pb->clique_pidx[pc->clique[0]]] : 0;
        }
        for (int i = 0; i < pb->npairs; ++i) {
            const int c = pb->pairs[i].clique[pb->pairs[i].clique[0] < 0];
            ws->icon[pb->nc + i] = label[pb->clique_pidx[c]];
        }
        for (int a = 0; a < pb->np; ++a) { /* the union-find is done with isl_v */
            for (int k = 0; k < pb->clique_nv[pb->pclique[a]]; ++k) {
                ws->isl_v[pb->pvoff[a] + k] = label[a];
            }
        }
    } else {
        memset(ws->isl_v, 0, (size_t)(pb->npv > 0 ? pb->npv : 1) * sizeof(int));
        memset(ws->icon, 0,
               (size_t)(pb->nc + pb->npairs > 0 ? pb->nc + pb->npairs : 1) * sizeof(int));
    }
    memset(ws->il, 0, (size_t)ws->nisl * sizeof(ccb_newton_island));
    ws->island_iters = 0;
    ws->acl_full = 1;
}

/* The participating cliques and unknowns of the islands not done (with islands), ascending, and
 * skipb (1 for a clique of an island done). An island once done stays done until every island
 * is (then acl_full): the last list is filtered, and only the cliques that leave it are marked. */
void ccb_newton_build_active(ccb_newton* ws) {
    if (ws->nisl == 1) {
        return;
    }
    const ccb_problem* pb = ws->pb;
    const int full = ws->acl_full, na = full ? pb->np : ws->n_acl;
    ws->acl_full = 0;
    ws->n_acl = ws->n_adof = 0;
    for (int m = 0; m < na; ++m) {
        const int a = full ? m : ws->acl[m];
        const int n = pb->clique_nv[pb->pclique[a]], k0 = pb->pvoff[a];
        const int done = n > 0 && ws->il[ws->isl_v[k0]].done;
        ws->skipb[a] = (unsigned char)done;
        if (done) {
            continue;
        }
        ws->acl[ws->n_acl++] = a;
        for (int k = 0; k < n; ++k) {
            ws->adof[ws->n_adof++] = k0 + k;
        }
    }
}

/* The near contacts of the islands still iterating, grouped by island in ascending order within
 * each (a counting sort of the near list; without islands the near list itself). */
void ccb_newton_build_act(ccb_newton* ws) {
    if (ws->nisl == 1) {
        ws->il[0].off = 0;
        ws->il[0].n = ws->n_near;
        ws->n_act = ws->n_near;
        return;
    }
    for (int I = 0; I < ws->nisl; ++I) {
        ws->il[I].n = 0;
    }
    for (int k = 0; k < ws->n_near; ++k) {
        ws->il[ws->icon[ws->near[k]]].n++;
    }
    int off = 0;
    for (int I = 0; I < ws->nisl; ++I) {
        ccb_newton_island* is = &ws->il[I];
        is->n = is->done ? 0 : is->n;
        is->off = off;
        off += is->n;
        is->n = 0;
    }
    ws->n_act = off;
    for (int k = 0; k < ws->n_near; ++k) {
        const int i = ws->near[k];
        ccb_newton_island* is = &ws->il[ws->icon[i]];
        if (!is->done) {
            ws->act[is->off + is->n++] = i;
        }
    }
}
