/* Routes between ranks (see platform.h): trees up to the lowest common
 * ancestor and down, tori in dimension order, graphs by the next-hop table
 * ar_pb_finish computed. One walker per kind feeds a visitor, so that route,
 * latency and bandwidth share the code and need no allocation. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "platform_build.h"
#include "core/schedule.h"
#include "core/util.h"

typedef struct route_visit {
    ar_dlink *out;
    int max, len;
    double lat, bw;
} route_visit;

static void visit(const ar_platform *p, route_visit *v, ar_dlink d) {
    if (v->out && v->len < v->max) v->out[v->len] = d;
    v->len++;
    const ar_link *l = &p->links[AR_DLINK_LINK(d)];
    v->lat += l->lat_s;
    double c = ar_link_capacity(l);
    if (c < v->bw) v->bw = c;
}

/* Direction of link l when leaving node `from`. */
static ar_dlink dlink_from(const ar_platform *p, int l, int from) { return AR_DLINK(l, p->links[l].a == from ? 0 : 1); }

static void walk_tree(const ar_platform *p, int u, int w, route_visit *v) {
    /* hops up from u and up from w to the lowest common ancestor */
    int a = u, b = w, nu = 0, nw = 0;
    while (p->nodes[a].depth > p->nodes[b].depth) {
        a = p->nodes[a].parent;
        nu++;
    }
    while (p->nodes[b].depth > p->nodes[a].depth) {
        b = p->nodes[b].parent;
        nw++;
    }
    while (a != b) {
        a = p->nodes[a].parent;
        b = p->nodes[b].parent;
        nu++;
        nw++;
    }
    for (int x = u, i = 0; i < nu; i++, x = p->nodes[x].parent) visit(p, v, dlink_from(p, p->nodes[x].uplink, x));
    /* downward part: the k-th link down is the uplink of w's ancestor at
     * distance nw-1-k from w */
    for (int k = 0; k < nw; k++) {
        int x = w;
        for (int i = 0; i < nw - 1 - k; i++) x = p->nodes[x].parent;
        visit(p, v, dlink_from(p, p->nodes[x].uplink, p->nodes[x].parent));
    }
}

static void walk_torus(const ar_platform *p, int src, int dst, route_visit *v) {
    const ar_route_state *rs = p->route_state;
    int g = p->gpus_per_machine;
    int ms = src / g, md = dst / g;
    int gs = p->rank_node[src], gd = p->rank_node[dst];
    int up = p->adj[p->adj_off[gs]], down = p->adj[p->adj_off[gd]];
    visit(p, v, dlink_from(p, up, gs));
    int m = ms, stride = 1;
    for (int d = 0; d < p->ndims; d++) {
        int k = p->dims[d];
        int cs = (m / stride) % k, cd = (md / stride) % k;
        int fwd = ((cd - cs) % k + k) % k, back = k - fwd;
        if (fwd && fwd <= back) {
            for (int s = 0; s < fwd; s++) {
                int c = (m / stride) % k;
                int next = c + 1 < k ? m + stride : m - (k - 1) * stride;
                int l = rs->plus_link[m * p->ndims + d];
                visit(p, v, dlink_from(p, l, rs->machine_switch[m]));
                m = next;
            }
        } else if (fwd) {
            for (int s = 0; s < back; s++) {
                int c = (m / stride) % k;
                int prev = c > 0 ? m - stride : m + (k - 1) * stride;
                int l = rs->plus_link[prev * p->ndims + d];
                visit(p, v, dlink_from(p, l, rs->machine_switch[m]));
                m = prev;
            }
        }
        stride *= k;
    }
    visit(p, v, dlink_from(p, down, rs->machine_switch[md]));
}

/* Rail-optimised fabric (platform_rail.h): the route the graph rule (fewest
 * hops, ties to the lower node index, NVSwitches before rails) would pick,
 * computed from the structure: same node -> NVLink; same local index -> its
 * rail; otherwise NVLink to the GPU of the destination's index, then that rail
 * (PXN). tests/unit/test_platform_rail.c checks it pair by pair against the table. */
static void walk_rail(const ar_platform *p, const ar_route_state *rs, int src, int dst, route_visit *v) {
    int g = rs->rail_gpus;
    int ms = src / g, md = dst / g, jd = dst % g;
    if (ms == md) {
        visit(p, v, dlink_from(p, rs->rail_nvl[src], p->rank_node[src]));
        visit(p, v, AR_DLINK(rs->rail_nvl[dst], p->links[rs->rail_nvl[dst]].a == p->rank_node[dst]));
        return;
    }
    int via = src;
    if (src % g != jd) { /* PXN: NVLink to the local GPU on the destination's rail */
        via = ms * g + jd;
        visit(p, v, dlink_from(p, rs->rail_nvl[src], p->rank_node[src]));
        visit(p, v, AR_DLINK(rs->rail_nvl[via], p->links[rs->rail_nvl[via]].a == p->rank_node[via]));
    }
    visit(p, v, dlink_from(p, rs->rail_nic[via], p->rank_node[via]));
    visit(p, v, AR_DLINK(rs->rail_nic[dst], p->links[rs->rail_nic[dst]].a == p->rank_node[dst]));
}

static void walk_graph(const ar_platform *p, int src, int dst, route_visit *v) {
    const ar_route_state *rs = p->route_state;
    if (rs->rail_gpus > 0) {
        walk_rail(p, rs, src, dst, v);
        return;
    }
    const uint16_t *np = rs->next_pos + (size_t)dst * (size_t)p->nnodes;
    int x = p->rank_node[src], target = p->rank_node[dst];
    for (int hops = 0; x != target && hops < p->nnodes; hops++) {
        int l = p->adj[p->adj_off[x] + np[x]];
        visit(p, v, dlink_from(p, l, x));
        x = p->links[l].a == x ? p->links[l].b : p->links[l].a;
    }
}

/* The other end of link l from node x. */
static int other_end(const ar_platform *p, int l, int x) { return p->links[l].a == x ? p->links[l].b : p->links[l].a; }

/* A three-link route: links l1, l2, l3 leaving nodes n1, n2, n3 in that order (up: from the GPU towards
 * the switch), or (down) the same links backwards, each leaving its other end. */
static void hops3(const ar_platform *p, route_visit *v, int up, int l1, int n1, int l2, int n2, int l3, int n3) {
    if (up) {
        visit(p, v, dlink_from(p, l1, n1));
        visit(p, v, dlink_from(p, l2, n2));
        visit(p, v, dlink_from(p, l3, n3));
    } else {
        visit(p, v, dlink_from(p, l3, other_end(p, l3, n3)));
        visit(p, v, dlink_from(p, l2, other_end(p, l2, n2)));
        visit(p, v, dlink_from(p, l1, other_end(p, l1, n1)));
    }
}

/* Rail fabric: GPU rank r to switch node sw (its NVSwitch, its rail, another
 * node's NVSwitch through its rail and that node's GPU of its index, or another
 * rail through the node's GPU of that rail: the routes of the table rule).
 * 0, or -1 without a route (the spine). */
static int rail_to_switch(const ar_platform *p, const ar_route_state *rs, int r, int sw, int up, route_visit *v) {
    int g = rs->rail_gpus, gn = p->rank_node[r];
    int nvl = rs->rail_nvl ? rs->rail_nvl[r] : -1, nic = rs->rail_nic ? rs->rail_nic[r] : -1;
    if ((nvl >= 0 && other_end(p, nvl, gn) == sw) || (nic >= 0 && other_end(p, nic, gn) == sw)) {
        int l = nvl >= 0 && other_end(p, nvl, gn) == sw ? nvl : nic;
        visit(p, v, dlink_from(p, l, up ? gn : sw));
        return 0;
    }
    if (nic >= 0 && nvl >= 0 && sw >= p->nranks && sw - p->nranks < p->nranks / g) {
        /* another node's NVSwitch (nodes are listed after the GPUs, in node order):
         * own rail to that node's GPU of the same index, then its NVLink */
        int via = (sw - p->nranks) * g + r % g, vn = p->rank_node[via];
        if (rs->rail_nvl[via] >= 0 && other_end(p, rs->rail_nvl[via], vn) == sw) {
            hops3(p, v, up, nic, gn, rs->rail_nic[via], other_end(p, nic, gn), rs->rail_nvl[via], vn);
            return 0;
        }
    }
    if (nvl < 0 || nic < 0) return -1;
    int nvs = other_end(p, nvl, gn), m0 = (r / g) * g;
    for (int j = 0; j < g; j++) {
        int via = m0 + j, vn = p->rank_node[via];
        if (rs->rail_nic[via] < 0 || other_end(p, rs->rail_nic[via], vn) != sw) continue;
        hops3(p, v, up, nvl, gn, rs->rail_nvl[via], nvs, rs->rail_nic[via], vn);
        return 0;
    }
    return -1;
}

/* Graph (table): from switch node x to rank dst by the next-hop table; with
 * up, the reverse route (dst to x), each link in the other direction. */
static int graph_switch(const ar_platform *p, int x0, int dst, int up, route_visit *v) {
    const ar_route_state *rs = p->route_state;
    const uint16_t *np = rs->next_pos + (size_t)dst * (size_t)p->nnodes;
    int target = p->rank_node[dst], len = 0;
    for (int x = x0; x != target; len++) {
        if (len >= p->nnodes || np[x] == UINT16_MAX) return -1;
        int l = p->adj[p->adj_off[x] + np[x]];
        x = other_end(p, l, x);
    }
    for (int k = 0; k < len; k++) {
        /* down: the k-th link from x0; up: the (len-1-k)-th, reversed */
        int want = up ? len - 1 - k : k, x = x0, l = -1;
        for (int i = 0; i <= want; i++) {
            l = p->adj[p->adj_off[x] + np[x]];
            if (i < want) x = other_end(p, l, x);
        }
        visit(p, v, up ? dlink_from(p, l, other_end(p, l, x)) : dlink_from(p, l, x));
    }
    return 0;
}

/* A transfer between a rank and a switch node (one of src/dst is AR_EP_NODE). */
static int walk_switch(const ar_platform *p, int src, int dst, route_visit *v) {
    int up = AR_EP_IS_NODE(dst), r = up ? src : dst, sw = AR_EP_NODE_OF(up ? dst : src);
    if (r < 0 || r >= p->nranks || sw < 0 || sw >= p->nnodes || p->nodes[sw].kind != AR_NODE_SWITCH) return -1;
    const ar_route_state *rs = p->route_state;
    switch (p->kind) {
    case AR_PLAT_TREE:
    case AR_PLAT_FAT_TREE: {
        int g = p->rank_node[r], x = g;
        while (x >= 0 && x != sw) x = p->nodes[x].parent;
        if (x < 0) return -1; /* routes to a switch only go up the tree */
        if (up) walk_tree(p, g, sw, v);
        else walk_tree(p, sw, g, v);
        return 0;
    }
    case AR_PLAT_GRAPH:
        if (!rs) return -1;
        if (rs->rail_gpus > 0) return rail_to_switch(p, rs, r, sw, up, v);
        return graph_switch(p, sw, r, up, v);
    case AR_PLAT_TORUS: return -1;
    }
    return -1;
}

static int walk_x(const ar_platform *p, int src, int dst, int reduce, route_visit *v) {
    v->len = 0;
    v->lat = 0;
    v->bw = INFINITY;
    if (!p || src == -1 || dst == -1 || src >= p->nranks || dst >= p->nranks) return -1;
    if (src == dst) return 0;
    if (AR_EP_IS_NODE(src) || AR_EP_IS_NODE(dst)) {
        if (AR_EP_IS_NODE(src) && AR_EP_IS_NODE(dst)) return -1;
        if (walk_switch(p, src, dst, v) < 0) return -1;
        if (reduce && AR_EP_IS_NODE(dst)) {
            int vl = p->nodes[AR_EP_NODE_OF(dst)].vlink;
            if (vl < 0) return -1;
            visit(p, v, AR_DLINK(vl, 0));
        }
        return 0;
    }
    switch (p->kind) {
    case AR_PLAT_TREE:
    case AR_PLAT_FAT_TREE: walk_tree(p, p->rank_node[src], p->rank_node[dst], v); break;
    case AR_PLAT_TORUS:
        if (!p->route_state) return -1;
        walk_torus(p, src, dst, v);
        break;
    case AR_PLAT_GRAPH:
        if (!p->route_state) return -1;
        walk_graph(p, src, dst, v);
        break;
    }
    return 0;
}

/* Rank to rank only (ar_platform_route and its kin): a negative id is no rank. */
static int walk(const ar_platform *p, int src, int dst, route_visit *v) {
    if (src < 0 || dst < 0) {
        v->len = 0;
        return -1;
    }
    return walk_x(p, src, dst, 0, v);
}

int ar_platform_route_x(const ar_platform *p, int src, int dst, int reduce, ar_dlink *out, int max) {
    route_visit v = {out, max < 0 ? 0 : max, 0, 0, 0};
    if (walk_x(p, src, dst, reduce, &v) < 0) return -1;
    return v.len > v.max ? -1 : v.len;
}

ar_status ar_platform_route_x_append(const ar_platform *p, int src, int dst, int reduce, ar_dlink **buf, size_t *cap,
                                     size_t at, int *len, ar_err *e) {
    size_t room = *buf && *cap > at ? *cap - at : 0;
    int n = ar_platform_route_x(p, src, dst, reduce, room ? *buf + at : NULL, room > INT32_MAX ? INT32_MAX : (int)room);
    if (n >= 0) {
        *len = n;
        return AR_OK;
    }
    route_visit v = {NULL, 0, 0, 0, 0};
    *len = 0;
    if (walk_x(p, src, dst, reduce, &v) < 0) {
        char a[48], b[48];
        if (AR_EP_IS_NODE(src) && AR_EP_NODE_OF(src) < (p ? p->nnodes : 0))
            snprintf(a, sizeof a, "switch %s", p->nodes[AR_EP_NODE_OF(src)].name);
        else snprintf(a, sizeof a, "%d", src);
        if (AR_EP_IS_NODE(dst) && AR_EP_NODE_OF(dst) < (p ? p->nnodes : 0))
            snprintf(b, sizeof b, "switch %s", p->nodes[AR_EP_NODE_OF(dst)].name);
        else snprintf(b, sizeof b, "%d", dst);
        return ar_fail(e, AR_EINVAL, "route %s->%s%s: no such route on platform %s", a, b,
                       reduce && AR_EP_IS_NODE(dst) ? " (reducing)" : "", p ? p->name : "(none)");
    }
    if (ar_grow(buf, cap, at + (size_t)v.len, sizeof **buf) < 0)
        return ar_fail(e, AR_ENOMEM, "route: out of memory for %d links", v.len);
    v = (route_visit){*buf + at, v.len, 0, 0, 0};
    walk_x(p, src, dst, reduce, &v);
    *len = v.len;
    return AR_OK;
}

int ar_platform_route(const ar_platform *p, int src, int dst, ar_dlink *out, int max) {
    route_visit v = {out, max < 0 ? 0 : max, 0, 0, 0};
    if (walk(p, src, dst, &v) < 0) return -1;
    return v.len > v.max ? -1 : v.len;
}

double ar_platform_route_lat(const ar_platform *p, int src, int dst) {
    route_visit v = {NULL, 0, 0, 0, 0};
    if (walk(p, src, dst, &v) < 0) return NAN;
    return v.lat;
}

double ar_platform_route_bw(const ar_platform *p, int src, int dst) {
    route_visit v = {NULL, 0, 0, 0, 0};
    if (walk(p, src, dst, &v) < 0) return NAN;
    return v.bw;
}

ar_status ar_platform_route_append_slow(const ar_platform *p, int src, int dst, ar_dlink **buf, size_t *cap, size_t at,
                                        int *len, ar_err *e) {
    route_visit v = {NULL, 0, 0, 0, 0};
    *len = 0;
    if (walk(p, src, dst, &v) < 0)
        return ar_fail(e, AR_EINVAL, "route %d->%d: no such ranks on platform %s (%d ranks)", src, dst,
                       p ? p->name : "(none)", p ? p->nranks : 0);
    if (ar_grow(buf, cap, at + (size_t)v.len, sizeof **buf) < 0)
        return ar_fail(e, AR_ENOMEM, "route %d->%d: out of memory for %d links", src, dst, v.len);
    v = (route_visit){*buf + at, v.len, 0, 0, 0};
    walk(p, src, dst, &v);
    *len = v.len;
    return AR_OK;
}

ar_status ar_schedule_resolve_switches(ar_schedule *s, const ar_platform *p, ar_err *e) {
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            ar_op *op = &s->phases[ph].ops[i];
            if (op->impl != AR_IMPL_SWITCH || !op->sw_name) continue;
            int v = 0;
            while (v < p->nnodes && strcmp(p->nodes[v].name, op->sw_name)) v++;
            if (v == p->nnodes)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: switch \"%.80s\" is no node of platform %s", ph, i,
                               op->sw_name, p->name);
            if (p->nodes[v].kind != AR_NODE_SWITCH)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: \"%.80s\" is a GPU of platform %s, not a switch", ph, i,
                               op->sw_name, p->name);
            op->sw = v;
        }
    return AR_OK;
}

ar_status ar_platform_check_switch_ops(const ar_platform *p, const ar_schedule *s, ar_err *e) {
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            if (op->impl != AR_IMPL_SWITCH) continue;
            if (op->sw < 0 && op->sw_name)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: switch \"%.80s\" is not resolved on platform %s", ph, i,
                               op->sw_name, p->name);
            if (op->sw < 0 || op->sw >= p->nnodes)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: switch node %d is not a node of platform %s (0..%d)", ph,
                               i, op->sw, p->name, p->nnodes - 1);
            const ar_node *n = &p->nodes[op->sw];
            if (n->kind != AR_NODE_SWITCH)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: node %s of platform %s is a GPU, not a switch", ph, i,
                               n->name, p->name);
            if (!(n->reduce_Bps > 0) || n->vlink < 0)
                return ar_fail(e, AR_EINVAL, "phase %d op %d: switch %s of platform %s cannot reduce (no reduce_bw)",
                               ph, i, n->name, p->name);
            for (int m = 0; m < op->n; m++) {
                route_visit v = {NULL, 0, 0, 0, 0};
                if (walk_x(p, op->members[m], AR_EP_NODE(op->sw), 1, &v) < 0 ||
                    walk_x(p, AR_EP_NODE(op->sw), op->members[m], 0, &v) < 0)
                    return ar_fail(e, AR_EINVAL, "phase %d op %d: rank %d has no route to switch %s of platform %s", ph,
                                   i, op->members[m], n->name, p->name);
            }
        }
    return AR_OK;
}
