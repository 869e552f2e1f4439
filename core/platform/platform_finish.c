/* ar_pb_finish (platform_build.h): validates a built platform and derives
 * everything else: ranks in node order, machines, the tree view and its
 * symmetric levels, adjacency, and the routing state of tori and graphs. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform_build.h"
#include "core/scenario.h"

/* ---- finishing ---- */

static ar_status build_adjacency(ar_platform *p, ar_err *e) {
    if (p->nlinks > INT_MAX / 2) return ar_fail(e, AR_ELIMIT, "too many links");
    p->adj_off = ar_calloc((size_t)p->nnodes + 1, sizeof *p->adj_off);
    p->adj = ar_calloc((size_t)p->nlinks * 2, sizeof *p->adj);
    if (!p->adj_off || !p->adj) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int l = 0; l < p->nlinks; l++) {
        p->adj_off[p->links[l].a + 1]++;
        p->adj_off[p->links[l].b + 1]++;
    }
    for (int v = 0; v < p->nnodes; v++) p->adj_off[v + 1] += p->adj_off[v];
    int *fill = ar_calloc((size_t)p->nnodes, sizeof *fill);
    if (!fill) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int l = 0; l < p->nlinks; l++) {
        int a = p->links[l].a, b = p->links[l].b;
        p->adj[p->adj_off[a] + fill[a]++] = l;
        p->adj[p->adj_off[b] + fill[b]++] = l;
    }
    free(fill);
    return AR_OK;
}

static int same_num(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)); }

/* levels[] of a tree when it is horizontally symmetric. */
static void tree_levels(ar_platform *p) {
    p->nlevels = 0;
    if (!p->uniform_depth || p->height < 1 || p->height > AR_MAX_LEVELS) return;
    int H = p->height;
    int seen[AR_MAX_LEVELS] = {0};
    ar_level lv[AR_MAX_LEVELS];
    memset(lv, 0, sizeof lv);
    for (int v = 0; v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        if (n->kind == AR_NODE_SWITCH) {
            int i = H - 1 - n->depth; /* level of the switch */
            if (i < 0) return;
            if (!(seen[i] & 1)) {
                lv[i].fanout = n->nchildren;
                seen[i] |= 1;
            } else if (lv[i].fanout != n->nchildren) {
                return;
            }
        }
        if (n->uplink >= 0) {
            int i = H - n->depth; /* level whose links join this node to its parent */
            const ar_link *l = &p->links[n->uplink];
            double cap = ar_link_capacity(l);
            if (i < 0 || i >= H) return;
            if (!(seen[i] & 2)) {
                lv[i].bw_Bps = cap;
                lv[i].lat_s = l->lat_s;
                seen[i] |= 2;
            } else if (!same_num(lv[i].bw_Bps, cap) || !same_num(lv[i].lat_s, l->lat_s)) {
                return;
            }
        }
    }
    for (int i = 0; i < H; i++)
        if (seen[i] != 3) return;
    memcpy(p->levels, lv, sizeof lv);
    p->nlevels = H;
}

static ar_status finish_tree(ar_pbuild *b, ar_err *e) {
    ar_platform *p = b->p;
    char q[96];
    if (p->nnodes == 0 || p->nodes[0].parent != -1) return ar_fail(e, AR_EINTERNAL, "tree without a root");
    for (int v = 1; v < p->nnodes; v++)
        if (p->nodes[v].parent < 0 || p->nodes[v].parent >= v)
            return ar_fail(e, AR_EINTERNAL, "tree node %d has no parent", v);
    if (p->nodes[0].kind != AR_NODE_SWITCH)
        return ar_fail(e, AR_EINVAL, "the root %s must be a switch, not a GPU",
                       ar_quote(p->nodes[0].name, q, sizeof q));
    p->root = 0;
    /* children, in index (= file) order */
    for (int v = 1; v < p->nnodes; v++) p->nodes[p->nodes[v].parent].nchildren++;
    for (int v = 0; v < p->nnodes; v++) {
        ar_node *n = &p->nodes[v];
        if (n->kind == AR_NODE_SWITCH && n->nchildren == 0)
            return ar_fail(e, AR_EINVAL, "switch %s has nothing below it (give \"children\" or \"gpus\")",
                           ar_quote(n->name, q, sizeof q));
        if (n->kind == AR_NODE_GPU && n->nchildren) return ar_fail(e, AR_EINTERNAL, "GPU with children");
        if (n->nchildren) {
            n->children = ar_calloc((size_t)n->nchildren, sizeof *n->children);
            if (!n->children) return ar_fail(e, AR_ENOMEM, "out of memory");
            n->nchildren = 0;
        }
    }
    for (int v = 1; v < p->nnodes; v++) {
        ar_node *par = &p->nodes[p->nodes[v].parent];
        par->children[par->nchildren++] = v;
        p->nodes[v].depth = par->depth + 1;
    }
    /* ranks in DFS preorder, children in file order */
    int *stack = ar_calloc((size_t)p->nnodes, sizeof *stack);
    p->rank_node = ar_calloc((size_t)b->ngpus, sizeof *p->rank_node);
    if (!stack || !p->rank_node) {
        free(stack);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    int sp = 0, r = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        int v = stack[--sp];
        ar_node *n = &p->nodes[v];
        if (n->kind == AR_NODE_GPU) {
            n->rank = r;
            p->rank_node[r++] = v;
        }
        for (int c = n->nchildren - 1; c >= 0; c--) stack[sp++] = n->children[c];
    }
    free(stack);
    p->nranks = r;
    /* subtree rank ranges: children have larger indices than their parent */
    for (int v = 0; v < p->nnodes; v++) {
        ar_node *n = &p->nodes[v];
        n->rank_lo = n->kind == AR_NODE_GPU ? n->rank : INT_MAX;
        n->rank_hi = n->kind == AR_NODE_GPU ? n->rank + 1 : -1;
    }
    for (int v = p->nnodes - 1; v > 0; v--) {
        ar_node *n = &p->nodes[v], *par = &p->nodes[n->parent];
        if (n->rank_lo < par->rank_lo) par->rank_lo = n->rank_lo;
        if (n->rank_hi > par->rank_hi) par->rank_hi = n->rank_hi;
    }
    /* machines: the parent switch of each GPU, numbered by first rank */
    p->machine_of_rank = ar_calloc((size_t)p->nranks, sizeof *p->machine_of_rank);
    if (!p->machine_of_rank) return ar_fail(e, AR_ENOMEM, "out of memory");
    int nm = 0;
    for (int k = 0; k < p->nranks; k++) {
        ar_node *g = &p->nodes[p->rank_node[k]];
        ar_node *m = &p->nodes[g->parent];
        if (m->machine < 0) m->machine = nm++;
        g->machine = m->machine;
        p->machine_of_rank[k] = m->machine;
    }
    p->nmachines = nm;
    /* height, uniform depth, levels */
    p->height = 0;
    p->uniform_depth = 1;
    for (int k = 0; k < p->nranks; k++) {
        int d = p->nodes[p->rank_node[k]].depth;
        if (k > 0 && d != p->height) p->uniform_depth = 0;
        if (d > p->height) p->height = d;
    }
    tree_levels(p);
    return AR_OK;
}

/* Torus and graph: ranks are the GPUs in node order, machines from node.machine. */
static ar_status ranks_in_node_order(ar_pbuild *b, ar_err *e) {
    ar_platform *p = b->p;
    p->nranks = b->ngpus;
    p->rank_node = ar_calloc((size_t)p->nranks, sizeof *p->rank_node);
    p->machine_of_rank = ar_calloc((size_t)p->nranks, sizeof *p->machine_of_rank);
    if (!p->rank_node || !p->machine_of_rank) return ar_fail(e, AR_ENOMEM, "out of memory");
    int r = 0, nm = 0;
    for (int v = 0; v < p->nnodes; v++) {
        ar_node *n = &p->nodes[v];
        n->depth = 0;
        n->parent = -1;
        n->uplink = -1;
        if (n->kind != AR_NODE_GPU) continue;
        n->rank = r;
        n->rank_lo = r;
        n->rank_hi = r + 1;
        p->rank_node[r] = v;
        p->machine_of_rank[r] = n->machine;
        if (n->machine + 1 > nm) nm = n->machine + 1;
        r++;
    }
    p->nmachines = nm;
    p->root = -1;
    p->height = 0;
    p->uniform_depth = 0;
    return AR_OK;
}

static ar_status check_machines(ar_platform *p, ar_err *e) {
    char q[96];
    for (int r = 0; r < p->nranks; r++) {
        int m = p->machine_of_rank[r], prev = r ? p->machine_of_rank[r - 1] : 0;
        int bad = m < 0 || m >= p->nmachines || (r == 0 && m != 0) || (r > 0 && m != prev && m != prev + 1);
        const ar_node *g = &p->nodes[p->rank_node[r]];
        if (bad && g->parent >= 0) {
            char q2[96];
            return ar_fail(e, AR_EINVAL,
                           "the GPUs of switch %s are not consecutive ranks (%s, rank %d, comes after "
                           "GPUs of another machine): list a switch's GPUs together, before or after "
                           "its sub-switches",
                           ar_quote(p->nodes[g->parent].name, q2, sizeof q2), ar_quote(g->name, q, sizeof q), r);
        }
        if (bad)
            return ar_fail(e, AR_EINVAL,
                           "the GPUs of each machine must be consecutive ranks, machines numbered "
                           "0, 1, 2, ... in rank order: rank %d (%s) is on machine %d after a GPU "
                           "of machine %d",
                           r, ar_quote(p->nodes[p->rank_node[r]].name, q, sizeof q), m, prev);
    }
    p->machine_first_rank = ar_calloc((size_t)p->nmachines + 1, sizeof *p->machine_first_rank);
    if (!p->machine_first_rank) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int r = p->nranks - 1; r >= 0; r--) p->machine_first_rank[p->machine_of_rank[r]] = r;
    p->machine_first_rank[p->nmachines] = p->nranks;
    return AR_OK;
}

/* Graph: every node reachable; next-hop table per destination rank. */
static ar_status finish_graph(ar_platform *p, ar_err *e) {
    char q1[96], q2[96];
    int n = p->nnodes;
    for (int v = 0; v < n; v++)
        if (p->adj_off[v + 1] - p->adj_off[v] >= UINT16_MAX)
            return ar_fail(e, AR_EINVAL, "node %s has too many links", ar_quote(p->nodes[v].name, q1, sizeof q1));
    if ((double)p->nranks * ((double)n + 2.0 * p->nlinks) > 2e9)
        return ar_fail(e, AR_ELIMIT, "graph too large for the routing table (%d ranks, %d nodes, %d links)", p->nranks,
                       n, p->nlinks);
    int *dist = ar_calloc((size_t)n, sizeof *dist);
    int *queue = ar_calloc((size_t)n, sizeof *queue);
    ar_route_state *rs = ar_calloc(1, sizeof *rs);
    if (rs) p->route_state = rs;
    if (rs) rs->next_pos = ar_calloc((size_t)p->nranks * (size_t)n, sizeof *rs->next_pos);
    ar_status st = AR_OK;
    if (!dist || !queue || !rs || !rs->next_pos) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int r = 0; r < p->nranks; r++) {
        int dst = p->rank_node[r];
        for (int v = 0; v < n; v++) dist[v] = -1;
        int qh = 0, qt = 0;
        dist[dst] = 0;
        queue[qt++] = dst;
        while (qh < qt) {
            int v = queue[qh++];
            for (int k = p->adj_off[v]; k < p->adj_off[v + 1]; k++) {
                const ar_link *l = &p->links[p->adj[k]];
                int u = l->a == v ? l->b : l->a;
                if (dist[u] < 0) {
                    dist[u] = dist[v] + 1;
                    queue[qt++] = u;
                }
            }
        }
        if (qt < n) {
            int v = 0;
            while (dist[v] >= 0) v++;
            st = ar_fail(e, AR_EINVAL, "the graph is disconnected: %s cannot reach %s",
                         ar_quote(p->nodes[v].name, q1, sizeof q1), ar_quote(p->nodes[dst].name, q2, sizeof q2));
            goto out;
        }
        uint16_t *np = rs->next_pos + (size_t)r * (size_t)n;
        for (int v = 0; v < n; v++) {
            np[v] = UINT16_MAX;
            if (v == dst) continue;
            int best = -1;
            for (int k = p->adj_off[v]; k < p->adj_off[v + 1]; k++) {
                const ar_link *l = &p->links[p->adj[k]];
                int u = l->a == v ? l->b : l->a;
                if (dist[u] == dist[v] - 1 && (best < 0 || u < best)) {
                    best = u;
                    np[v] = (uint16_t)(k - p->adj_off[v]);
                }
            }
        }
    }
out:
    free(dist);
    free(queue);
    return st;
}

static ar_status finish_kind(ar_pbuild *b, ar_err *e) {
    ar_platform *p = b->p;
    char q[96];
    if (b->ngpus == 0) return ar_fail(e, AR_EINVAL, "the platform has no GPUs");
    int *index = ar_name_index_build(p);
    if (!index) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 1; i < p->nnodes; i++)
        if (strcmp(p->nodes[index[i]].name, p->nodes[index[i - 1]].name) == 0) {
            ar_fail(e, AR_EINVAL, "duplicate node name %s", ar_quote(p->nodes[index[i]].name, q, sizeof q));
            free(index);
            return AR_EINVAL;
        }
    free(index);
    ar_status st = build_adjacency(p, e);
    if (st) return st;
    switch (p->kind) {
    case AR_PLAT_TREE:
    case AR_PLAT_FAT_TREE: st = finish_tree(b, e); break;
    case AR_PLAT_TORUS: st = ranks_in_node_order(b, e); break;
    case AR_PLAT_GRAPH:
        st = ranks_in_node_order(b, e);
        if (!st) st = check_machines(p, e);
        /* a rail fabric routes from its structure (platform_rail.c): no table */
        if (!st && !(p->route_state && ((ar_route_state *)p->route_state)->rail_gpus > 0)) st = finish_graph(p, e);
        return st;
    }
    if (st) return st;
    st = check_machines(p, e);
    if (st) return st;
    if (p->kind == AR_PLAT_TORUS) {
        ar_route_state *rs = p->route_state;
        if (!rs) return ar_fail(e, AR_EINTERNAL, "torus without routes");
        for (int m = 0; m < p->nmachines; m++) {
            ar_node *sw = &p->nodes[rs->machine_switch[m]];
            sw->rank_lo = p->machine_first_rank[m];
            sw->rank_hi = p->machine_first_rank[m + 1];
        }
    }
    return AR_OK;
}

/* One virtual link per reducing switch, after the real links (platform.h). */
static ar_status add_reduce_links(ar_pbuild *b, ar_err *e) {
    ar_platform *p = b->p;
    int nv = 0;
    for (int v = 0; v < p->nnodes; v++) {
        p->nodes[v].vlink = -1;
        if (p->nodes[v].reduce_Bps > 0) {
            if (p->nodes[v].kind != AR_NODE_SWITCH)
                return ar_fail(e, AR_EINVAL, "node %s: only a switch can reduce (reduce_bw)", p->nodes[v].name);
            nv++;
        }
    }
    p->nvlinks = 0;
    if (!nv) return AR_OK;
    ar_link *nl = ar_reallocarray(p->links, (size_t)p->nlinks + (size_t)nv, sizeof *nl);
    if (!nl) return ar_fail(e, AR_ENOMEM, "out of memory");
    p->links = nl;
    b->link_cap = p->nlinks + nv;
    for (int v = 0; v < p->nnodes; v++) {
        if (!(p->nodes[v].reduce_Bps > 0)) continue;
        ar_link *l = &p->links[p->nlinks + p->nvlinks];
        size_t len = strlen(p->nodes[v].name) + 8;
        *l = (ar_link){.a = v, .b = v, .bw_Bps = p->nodes[v].reduce_Bps, .lat_s = 0, .lanes = 1, .name = malloc(len)};
        if (!l->name) return ar_fail(e, AR_ENOMEM, "out of memory");
        snprintf(l->name, len, "%s/reduce", p->nodes[v].name);
        p->nodes[v].vlink = p->nlinks + p->nvlinks++;
    }
    return AR_OK;
}

ar_status ar_pb_finish(ar_pbuild *b, ar_err *e) {
    ar_status st = finish_kind(b, e);
    if (st) return st;
    return add_reduce_links(b, e);
}

/* Declared in core/scenario.h: after a scenario scaled link bandwidths in place. A tree's levels
 * are derived again (they vanish when the tree is no longer symmetric); on other kinds the
 * symmetric description no longer holds once any link differs, so it is dropped (closed forms
 * that need it give way to the walk). */
void ar_platform_refresh_levels(ar_platform *p) {
    if (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE) tree_levels(p);
    else p->nlevels = 0;
}
