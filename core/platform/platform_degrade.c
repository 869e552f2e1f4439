/* ar_platform_degrade (core/scenario.h): a platform rebuilt without failed links
 * and GPUs, through the same builder and finishing as every loader, so that
 * ranks, machines, the tree view, levels and routes are derived again (a graph
 * reroutes around what failed: its next-hop table is recomputed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform_build.h"
#include "core/scenario.h"

/* Copies name/lanes/latency of link l of p onto link nl of the new platform. */
static ar_status copy_link_name(ar_platform *q, int nl, const ar_link *l, ar_err *e) {
    char *nm = ar_strdup(l->name);
    if (!nm) return ar_fail(e, AR_ENOMEM, "out of memory");
    free(q->links[nl].name);
    q->links[nl].name = nm;
    return AR_OK;
}

static ar_status rebuild_tree(const ar_platform *p, const char *rank_failed, ar_pbuild *b, ar_err *e) {
    int *map = malloc((size_t)p->nnodes * sizeof *map);
    int *alive = ar_calloc((size_t)p->nranks + 1, sizeof *alive); /* prefix counts of surviving ranks */
    ar_status st = AR_OK;
    if (!map || !alive) st = ar_fail(e, AR_ENOMEM, "out of memory");
    for (int r = 0; !st && r < p->nranks; r++) alive[r + 1] = alive[r] + !(rank_failed && rank_failed[r]);
    for (int v = 0; !st && v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        map[v] = -1;
        int keep = n->kind == AR_NODE_GPU ? !(rank_failed && rank_failed[n->rank])
                                          : alive[n->rank_hi] - alive[n->rank_lo] > 0;
        if (!keep) continue;
        int par = n->parent >= 0 ? map[n->parent] : -1;
        if (n->parent >= 0 && par < 0) continue; /* below a dropped switch (cannot happen: it has GPUs) */
        const ar_link *l = n->uplink >= 0 ? &p->links[n->uplink] : NULL;
        st = ar_pb_child(b, par, n->name, n->kind, l ? l->bw_Bps : 0, l ? l->lat_s : 0, l ? l->lanes : 1, &map[v], e);
        if (!st) b->p->nodes[map[v]].reduce_Bps = n->reduce_Bps; /* a switch that reduces keeps doing so */
        if (!st && l) st = copy_link_name(b->p, b->p->nodes[map[v]].uplink, l, e);
    }
    if (!st && alive[p->nranks] == 0) st = ar_fail(e, AR_EINVAL, "every rank failed");
    free(map);
    free(alive);
    return st;
}

static ar_status rebuild_graph(const ar_platform *p, const char *link_failed, const char *rank_failed, ar_pbuild *b,
                               ar_err *e) {
    int *map = malloc((size_t)p->nnodes * sizeof *map);
    int *mmap = malloc(((size_t)p->nmachines + 1) * sizeof *mmap);
    ar_status st = AR_OK;
    if (!map || !mmap) st = ar_fail(e, AR_ENOMEM, "out of memory");
    for (int m = 0; !st && m < p->nmachines; m++) mmap[m] = -1;
    int nm = 0;
    for (int v = 0; !st && v < p->nnodes; v++) { /* machines renumbered over the surviving GPUs, in rank order */
        const ar_node *n = &p->nodes[v];
        if (n->kind == AR_NODE_GPU && !(rank_failed && rank_failed[n->rank]) && n->machine >= 0 &&
            n->machine < p->nmachines && mmap[n->machine] < 0)
            mmap[n->machine] = nm++;
    }
    int ngpu = 0;
    for (int v = 0; !st && v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        map[v] = -1;
        if (n->kind == AR_NODE_GPU && rank_failed && rank_failed[n->rank]) continue;
        int m = n->machine >= 0 && n->machine < p->nmachines ? mmap[n->machine] : -1;
        st = ar_pb_node(b, n->name, n->kind, m, &map[v], e);
        if (!st) b->p->nodes[map[v]].reduce_Bps = n->reduce_Bps; /* a switch that reduces keeps doing so */
        ngpu += n->kind == AR_NODE_GPU;
    }
    if (!st && ngpu == 0) st = ar_fail(e, AR_EINVAL, "every rank failed");
    for (int l = 0; !st && l < p->nlinks; l++) {
        const ar_link *k = &p->links[l];
        if ((link_failed && link_failed[l]) || map[k->a] < 0 || map[k->b] < 0) continue;
        st = ar_pb_link(b, map[k->a], map[k->b], k->bw_Bps, k->lat_s, k->lanes, k->name, NULL, e);
    }
    free(map);
    free(mmap);
    return st;
}

ar_status ar_platform_degrade(const ar_platform *p, const char *link_failed, const char *rank_failed, ar_platform **out,
                              ar_err *e) {
    *out = NULL;
    char q[96];
    int nfl = 0, nfr = 0, fl = -1;
    for (int l = 0; link_failed && l < p->nlinks; l++)
        if (link_failed[l] && nfl++ == 0) fl = l;
    for (int r = 0; rank_failed && r < p->nranks; r++) nfr += rank_failed[r] != 0;
    int tree = p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE;
    if (p->kind == AR_PLAT_TORUS && (nfl || nfr))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "platform %s is a torus (dimension-order routes): it cannot reroute around failures", p->name);
    if (tree && nfl)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "failed link %s: platform %s is a tree, which has one route between two ranks and cannot "
                       "reroute (fail the ranks below it with failed_ranks, or use a graph platform)",
                       ar_quote(p->links[fl].name, q, sizeof q), p->name);
    ar_pbuild b;
    ar_status st = ar_pb_begin(&b, p->name, p->source, tree ? p->kind : AR_PLAT_GRAPH, e);
    if (!st && p->description && !(b.p->description = ar_strdup(p->description)))
        st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (!st) {
        memcpy(b.p->gpu, p->gpu, sizeof b.p->gpu);
        b.p->gpu_cc = p->gpu_cc;
    }
    if (!st) st = tree ? rebuild_tree(p, rank_failed, &b, e) : rebuild_graph(p, link_failed, rank_failed, &b, e);
    if (!st) st = ar_pb_finish(&b, e);
    if (st) {
        if (st == AR_EINVAL && strstr(e->msg, "disconnected")) {
            char m[AR_ERR_LEN];
            snprintf(m, sizeof m, "%s", e->msg);
            ar_fail(e, AR_EINVAL, "the failures leave no route: %s", m);
        }
        ar_platform_free(b.p);
        return st;
    }
    /* the compute costs are the GPUs' and the transports': the survivors keep them */
    b.p->reduce_Bps = p->reduce_Bps;
    b.p->launch_s = p->launch_s;
    b.p->stage_d2h_Bps = p->stage_d2h_Bps;
    b.p->stage_h2d_Bps = p->stage_h2d_Bps;
    b.p->stage_all = p->stage_all;
    b.p->msg_o_s = p->msg_o_s;
    b.p->msg_g_s = p->msg_g_s;
    b.p->msg_all = p->msg_all;
    b.p->msg_ready = p->msg_ready;
    if (p->rank_compute) { /* a slow GPU that survives stays slow (its new rank) */
        if (!(b.p->rank_compute = ar_calloc((size_t)b.p->nranks + 1, sizeof *b.p->rank_compute))) {
            ar_platform_free(b.p);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
        for (int r = 0, k = 0; r < p->nranks; r++)
            if (!(rank_failed && rank_failed[r]) && k < b.p->nranks) b.p->rank_compute[k++] = p->rank_compute[r];
    }
    *out = b.p;
    return AR_OK;
}
