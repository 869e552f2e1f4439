/* Platforms: the builder every loader uses, validation and derived structure
 * (ranks, machines, tree view, levels, adjacency), loading by name, presets,
 * printing. JSON parsing is in platform_json.c, generated families in
 * platform_gen.c, routes in platform_route.c. */
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform_internal.h"
#include "textio.h"

#ifndef AR_PRESET_DIR
#define AR_PRESET_DIR "platforms"
#endif

/* ---- builder ---- */

ar_status ar_pb_begin(ar_pbuild *b, const char *name, const char *source, ar_platform_kind kind,
                      ar_err *e) {
    memset(b, 0, sizeof *b);
    ar_platform *p = ar_calloc(1, sizeof *p);
    if (!p) return ar_fail(e, AR_ENOMEM, "out of memory");
    b->p = p;
    p->kind = kind;
    p->root = -1;
    p->name = ar_strdup(name ? name : "");
    p->source = ar_strdup(source ? source : "");
    if (!p->name || !p->source) return ar_fail(e, AR_ENOMEM, "out of memory");
    return AR_OK;
}

ar_status ar_pb_node(ar_pbuild *b, const char *name, ar_node_kind kind, int machine, int *idx,
                     ar_err *e) {
    ar_platform *p = b->p;
    if (p->nnodes >= AR_MAX_NODES)
        return ar_fail(e, AR_ELIMIT, "too many nodes (the limit is %d)", AR_MAX_NODES);
    if (kind == AR_NODE_GPU && b->ngpus >= AR_MAX_RANKS)
        return ar_fail(e, AR_ELIMIT, "too many GPUs (the limit is %d ranks)", AR_MAX_RANKS);
    if (p->nnodes == b->node_cap) {
        int cap = b->node_cap ? b->node_cap * 2 : 16;
        ar_node *n = ar_reallocarray(p->nodes, (size_t)cap, sizeof *n);
        if (!n) return ar_fail(e, AR_ENOMEM, "out of memory");
        p->nodes = n;
        b->node_cap = cap;
    }
    ar_node *n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof *n);
    n->name = ar_strdup(name);
    if (!n->name) return ar_fail(e, AR_ENOMEM, "out of memory");
    n->kind = kind;
    n->rank = -1;
    n->machine = machine;
    n->parent = -1;
    n->uplink = -1;
    if (idx) *idx = p->nnodes;
    p->nnodes++;
    if (kind == AR_NODE_GPU) b->ngpus++;
    return AR_OK;
}

ar_status ar_pb_link(ar_pbuild *b, int a, int bnode, double bw_Bps, double lat_s, int lanes,
                     const char *name, int *idx, ar_err *e) {
    ar_platform *p = b->p;
    char q[96];
    if (a < 0 || a >= p->nnodes || bnode < 0 || bnode >= p->nnodes)
        return ar_fail(e, AR_EINTERNAL, "link to a node that does not exist");
    if (a == bnode)
        return ar_fail(e, AR_EINVAL, "link joins %s to itself",
                       ar_quote(p->nodes[a].name, q, sizeof q));
    if (!(bw_Bps > 0) || !isfinite(bw_Bps))
        return ar_fail(e, AR_EINVAL, "bandwidth must be finite and > 0 (got %g)", bw_Bps);
    if (!(lat_s >= 0) || !isfinite(lat_s))
        return ar_fail(e, AR_EINVAL, "latency must be finite and >= 0 (got %g)", lat_s);
    if (lanes < 1 || lanes > AR_MAX_LANES)
        return ar_fail(e, AR_EINVAL, "lanes must be an integer in 1..%d (got %d)", AR_MAX_LANES,
                       lanes);
    if (p->nlinks == b->link_cap) {
        if (b->link_cap > INT_MAX / 4) return ar_fail(e, AR_ELIMIT, "too many links");
        int cap = b->link_cap ? b->link_cap * 2 : 16;
        ar_link *l = ar_reallocarray(p->links, (size_t)cap, sizeof *l);
        if (!l) return ar_fail(e, AR_ENOMEM, "out of memory");
        p->links = l;
        b->link_cap = cap;
    }
    ar_link *l = &p->links[p->nlinks];
    memset(l, 0, sizeof *l);
    l->a = a;
    l->b = bnode;
    l->bw_Bps = bw_Bps;
    l->lat_s = lat_s;
    l->lanes = lanes;
    if (name) {
        l->name = ar_strdup(name);
    } else {
        const char *na = p->nodes[a].name, *nb = p->nodes[bnode].name;
        size_t la = strlen(na), lb = strlen(nb);
        l->name = malloc(la + lb + 2);
        if (l->name) {
            memcpy(l->name, na, la);
            l->name[la] = '-';
            memcpy(l->name + la + 1, nb, lb + 1);
        }
    }
    if (!l->name) return ar_fail(e, AR_ENOMEM, "out of memory");
    if (idx) *idx = p->nlinks;
    p->nlinks++;
    return AR_OK;
}

ar_status ar_pb_child(ar_pbuild *b, int parent, const char *name, ar_node_kind kind,
                      double bw_Bps, double lat_s, int lanes, int *idx, ar_err *e) {
    int v = -1, l = -1;
    ar_status st = ar_pb_node(b, name, kind, -1, &v, e);
    if (st) return st;
    if (parent >= 0) {
        st = ar_pb_link(b, parent, v, bw_Bps, lat_s, lanes, NULL, &l, e);
        if (st) return st;
        b->p->nodes[v].parent = parent;
        b->p->nodes[v].uplink = l;
    }
    if (idx) *idx = v;
    return AR_OK;
}

/* ---- name index ---- */

/* qsort has no context argument: sort (name, index) pairs instead. */
typedef struct name_ref {
    const char *name;
    int idx;
} name_ref;

static int name_ref_cmp(const void *x, const void *y) {
    const name_ref *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

int *ar_name_index_build(const ar_platform *p) {
    name_ref *r = ar_calloc((size_t)p->nnodes, sizeof *r);
    int *idx = ar_calloc((size_t)p->nnodes, sizeof *idx);
    if (!r || !idx) {
        free(r);
        free(idx);
        return NULL;
    }
    for (int i = 0; i < p->nnodes; i++) {
        r[i].name = p->nodes[i].name;
        r[i].idx = i;
    }
    qsort(r, (size_t)p->nnodes, sizeof *r, name_ref_cmp);
    for (int i = 0; i < p->nnodes; i++) idx[i] = r[i].idx;
    free(r);
    return idx;
}

int ar_name_index_find(const ar_platform *p, const int *index, const char *name) {
    int lo = 0, hi = p->nnodes;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(p->nodes[index[mid]].name, name);
        if (c == 0) return index[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

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

static int same_num(double a, double b) {
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

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
    if (p->nnodes == 0 || p->nodes[0].parent != -1)
        return ar_fail(e, AR_EINTERNAL, "tree without a root");
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
        if (n->kind == AR_NODE_GPU && n->nchildren)
            return ar_fail(e, AR_EINTERNAL, "GPU with children");
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
                           ar_quote(p->nodes[g->parent].name, q2, sizeof q2), ar_quote(g->name, q, sizeof q),
                           r);
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
            return ar_fail(e, AR_EINVAL, "node %s has too many links",
                           ar_quote(p->nodes[v].name, q1, sizeof q1));
    if ((double)p->nranks * ((double)n + 2.0 * p->nlinks) > 2e9)
        return ar_fail(e, AR_ELIMIT, "graph too large for the routing table (%d ranks, %d nodes, %d links)",
                       p->nranks, n, p->nlinks);
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
                         ar_quote(p->nodes[v].name, q1, sizeof q1),
                         ar_quote(p->nodes[dst].name, q2, sizeof q2));
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

ar_status ar_pb_finish(ar_pbuild *b, ar_err *e) {
    ar_platform *p = b->p;
    char q[96];
    if (b->ngpus == 0) return ar_fail(e, AR_EINVAL, "the platform has no GPUs");
    int *index = ar_name_index_build(p);
    if (!index) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 1; i < p->nnodes; i++)
        if (strcmp(p->nodes[index[i]].name, p->nodes[index[i - 1]].name) == 0) {
            ar_fail(e, AR_EINVAL, "duplicate node name %s",
                    ar_quote(p->nodes[index[i]].name, q, sizeof q));
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
        if (!st) st = finish_graph(p, e);
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

/* ---- free ---- */

void ar_platform_free(ar_platform *p) {
    if (!p) return;
    for (int v = 0; v < p->nnodes; v++) {
        free(p->nodes[v].name);
        free(p->nodes[v].children);
    }
    free(p->nodes);
    for (int l = 0; l < p->nlinks; l++) free(p->links[l].name);
    free(p->links);
    free(p->rank_node);
    free(p->machine_of_rank);
    free(p->machine_first_rank);
    free(p->adj_off);
    free(p->adj);
    ar_route_state *rs = p->route_state;
    if (rs) {
        free(rs->machine_switch);
        free(rs->plus_link);
        free(rs->next_pos);
        free(rs);
    }
    for (int i = 0; i < p->nnotes; i++) free(p->notes[i]);
    free(p->notes);
    free(p->name);
    free(p->source);
    free(p->description);
    free(p);
}

/* ---- loading ---- */

const char *ar_platform_preset_dir(void) {
    const char *d = getenv("ARLAB_PLATFORM_DIR");
    return d && *d ? d : AR_PRESET_DIR;
}

#define AR_MAX_FILE_BYTES (256u << 20)

/* Reads a whole file into *out (caller frees). */
static ar_status read_text(const char *path, char **out, ar_err *e) {
    char q[160];
    FILE *f = fopen(path, "rb");
    if (!f) return ar_fail(e, AR_EIO, "cannot open %s: %s", ar_quote(path, q, sizeof q), strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ar_status st = AR_OK;
    if (!buf) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= AR_MAX_FILE_BYTES) {
                st = ar_fail(e, AR_EIO, "%s is larger than %u MiB", ar_quote(path, q, sizeof q),
                             AR_MAX_FILE_BYTES >> 20);
                goto out;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        st = ar_fail(e, AR_EIO, "cannot read %s", ar_quote(path, q, sizeof q));
        goto out;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        st = ar_fail(e, AR_EINVAL, "%s: not a JSON text (it contains a NUL byte)", path);
        goto out;
    }
out:
    fclose(f);
    if (st) {
        free(buf);
        return st;
    }
    *out = buf;
    return AR_OK;
}

static ar_status load_file(const char *path, const char *source, ar_platform **out, ar_err *e) {
    char *text = NULL;
    ar_status st = read_text(path, &text, e);
    if (st) return st;
    st = ar_platform_from_json(text, path, out, e);
    free(text);
    if (st) return st;
    char *s = ar_strdup(source);
    if (!s) {
        ar_platform_free(*out);
        *out = NULL;
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    free((*out)->source);
    (*out)->source = s;
    return AR_OK;
}

static int preset_name_ok(const char *s, size_t n) {
    if (n == 0 || n > AR_NAME_MAX || s[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-' || c == '+'))
            return 0;
    }
    return 1;
}

ar_status ar_platform_load(const char *spec, int ranks, ar_platform **out, ar_err *e) {
    char q[160];
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_platform_load: no output");
    *out = NULL;
    if (!spec || !*spec) return ar_fail(e, AR_EINVAL, "empty platform name (see 'arlab platforms')");
    if (ranks < 0 || ranks > AR_MAX_RANKS)
        return ar_fail(e, AR_EINVAL, "--ranks %d is out of range (1..%d)", ranks, AR_MAX_RANKS);
    size_t len = strlen(spec);
    ar_status st;
    int generated = 0;
    /* A family spec may hold '/' (bw=32GBps/100Gbps), so families come first. */
    const char *colon = strchr(spec, ':');
    size_t flen = colon ? (size_t)(colon - spec) : len;
    if (ar_platform_is_family(spec, flen)) {
        generated = 1;
        st = ar_platform_generate(spec, ranks, out, e);
    } else if (strchr(spec, '/') || (len >= 5 && strcmp(spec + len - 5, ".json") == 0)) {
        st = load_file(spec, spec, out, e);
    } else {
        if (colon) {
            char fam[64], q2[96];
            snprintf(fam, sizeof fam, "%.*s", (int)(flen < 63 ? flen : 63), spec);
            return ar_fail(e, AR_EINVAL,
                           "unknown platform family %s in %s (families: flat, tree, fat-tree, torus, "
                           "machines)",
                           ar_quote(fam, q2, sizeof q2), ar_quote(spec, q, sizeof q));
        } else if (!preset_name_ok(spec, len)) {
            return ar_fail(e, AR_EINVAL, "unknown platform %s (see 'arlab platforms')",
                           ar_quote(spec, q, sizeof q));
        } else {
            const char *dir = ar_platform_preset_dir();
            size_t plen = strlen(dir) + len + 8;
            char *path = malloc(plen);
            if (!path) return ar_fail(e, AR_ENOMEM, "out of memory");
            snprintf(path, plen, "%s/%s.json", dir, spec);
            FILE *f = fopen(path, "rb");
            if (!f) {
                free(path);
                return ar_fail(e, AR_EINVAL, "unknown platform %s (see 'arlab platforms')",
                               ar_quote(spec, q, sizeof q));
            }
            fclose(f);
            char *src = malloc(len + 8);
            if (!src) {
                free(path);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
            snprintf(src, len + 8, "preset:%s", spec);
            st = load_file(path, src, out, e);
            free(src);
            free(path);
        }
    }
    if (st) return st;
    if (!generated && ranks > 0 && ranks != (*out)->nranks) {
        st = ar_fail(e, AR_EINVAL,
                     "platform %s has %d ranks; --ranks %d applies to generated families "
                     "(e.g. tree, flat, torus)",
                     ar_quote((*out)->name, q, sizeof q), (*out)->nranks, ranks);
        ar_platform_free(*out);
        *out = NULL;
    }
    return st;
}

static int str_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

ar_status ar_platform_list_presets(char ***names, int *count, ar_err *e) {
    char q[160];
    *names = NULL;
    *count = 0;
    const char *dir = ar_platform_preset_dir();
    DIR *d = opendir(dir);
    if (!d)
        return ar_fail(e, AR_EIO, "cannot open the preset directory %s: %s", ar_quote(dir, q, sizeof q),
                       strerror(errno));
    char **v = NULL;
    int n = 0, cap = 0;
    ar_status st = AR_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
        if (!preset_name_ok(de->d_name, len - 5)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nv = ar_reallocarray(v, (size_t)cap, sizeof *nv);
            if (!nv) {
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                break;
            }
            v = nv;
        }
        v[n] = malloc(len - 4);
        if (!v[n]) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        memcpy(v[n], de->d_name, len - 5);
        v[n][len - 5] = '\0';
        n++;
    }
    closedir(d);
    if (st) {
        for (int i = 0; i < n; i++) free(v[i]);
        free(v);
        return st;
    }
    if (n > 1) qsort(v, (size_t)n, sizeof *v, str_cmp);
    *names = v;
    *count = n;
    return AR_OK;
}

/* ---- printing ---- */

static const char *kind_name(ar_platform_kind k) {
    switch (k) {
    case AR_PLAT_TREE: return "tree";
    case AR_PLAT_FAT_TREE: return "fat-tree";
    case AR_PLAT_TORUS: return "torus";
    case AR_PLAT_GRAPH: return "graph";
    }
    return "?";
}

/* Shortest of %.15g / %.17g that reads back exactly. */
static void json_num(FILE *f, double x) {
    char buf[40];
    if (!isfinite(x)) {
        fputs("null", f);
        return;
    }
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, sizeof buf, "%.17g", x);
    fputs(buf, f);
}

ar_status ar_platform_print_json(const ar_platform *p, FILE *f, ar_err *e) {
    fputs("{\n  \"name\": ", f);
    ar_json_string(f, p->name);
    fputs(",\n  \"kind\": ", f);
    ar_json_string(f, kind_name(p->kind));
    fputs(",\n  \"source\": ", f);
    ar_json_string(f, p->source);
    if (p->description) {
        fputs(",\n  \"description\": ", f);
        ar_json_string(f, p->description);
    }
    if (p->nnotes) {
        fputs(",\n  \"notes\": [", f);
        for (int i = 0; i < p->nnotes; i++) {
            fputs(i ? ",\n    " : "\n    ", f);
            ar_json_string(f, p->notes[i]);
        }
        fputs("\n  ]", f);
    }
    fprintf(f, ",\n  \"ranks\": %d,\n  \"machines\": %d", p->nranks, p->nmachines);
    if (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE) {
        fputs(",\n  \"root\": ", f);
        ar_json_string(f, p->root >= 0 ? p->nodes[p->root].name : "");
        fprintf(f, ",\n  \"height\": %d,\n  \"uniform_depth\": %s", p->height,
                p->uniform_depth ? "true" : "false");
    }
    if (p->kind == AR_PLAT_TORUS) {
        fputs(",\n  \"dims\": [", f);
        for (int d = 0; d < p->ndims; d++) fprintf(f, "%s%d", d ? ", " : "", p->dims[d]);
        fprintf(f, "],\n  \"gpus_per_machine\": %d", p->gpus_per_machine);
    }
    fputs(",\n  \"levels\": [", f);
    for (int i = 0; i < p->nlevels; i++) {
        fprintf(f, "%s{\"fanout\": %d, \"bw_Bps\": ", i ? ",\n    " : "\n    ", p->levels[i].fanout);
        json_num(f, p->levels[i].bw_Bps);
        fputs(", \"lat_s\": ", f);
        json_num(f, p->levels[i].lat_s);
        fputc('}', f);
    }
    fputs(p->nlevels ? "\n  ],\n  \"nodes\": [" : "],\n  \"nodes\": [", f);
    for (int v = 0; v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        fputs(v ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        ar_json_string(f, n->name);
        fprintf(f, ", \"type\": \"%s\"", n->kind == AR_NODE_GPU ? "gpu" : "switch");
        if (n->kind == AR_NODE_GPU) fprintf(f, ", \"rank\": %d", n->rank);
        if (n->machine >= 0) fprintf(f, ", \"machine\": %d", n->machine);
        if (n->parent >= 0) {
            fputs(", \"parent\": ", f);
            ar_json_string(f, p->nodes[n->parent].name);
        }
        fputc('}', f);
    }
    fputs("\n  ],\n  \"links\": [", f);
    for (int l = 0; l < p->nlinks; l++) {
        const ar_link *k = &p->links[l];
        fputs(l ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        ar_json_string(f, k->name);
        fputs(", \"a\": ", f);
        ar_json_string(f, p->nodes[k->a].name);
        fputs(", \"b\": ", f);
        ar_json_string(f, p->nodes[k->b].name);
        fputs(", \"bw_Bps\": ", f);
        json_num(f, k->bw_Bps);
        fputs(", \"lat_s\": ", f);
        json_num(f, k->lat_s);
        fprintf(f, ", \"lanes\": %d}", k->lanes);
    }
    fputs("\n  ]\n}\n", f);
    if (ferror(f)) return ar_fail(e, AR_EIO, "write error while printing platform JSON");
    return AR_OK;
}

void ar_platform_print_summary(const ar_platform *p, FILE *f) {
    char b1[32], b2[32];
    int nsw = p->nnodes - p->nranks;
    fprintf(f, "platform %s (%s, %s)\n", p->name, kind_name(p->kind), p->source);
    if (p->description) fprintf(f, "  %s\n", p->description);
    fprintf(f, "  %d ranks on %d machine%s; %d switch%s, %d link%s", p->nranks, p->nmachines,
            p->nmachines == 1 ? "" : "s", nsw, nsw == 1 ? "" : "es", p->nlinks,
            p->nlinks == 1 ? "" : "s");
    if (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE)
        fprintf(f, "; height %d%s", p->height, p->uniform_depth ? "" : " (GPUs at different depths)");
    if (p->kind == AR_PLAT_TORUS) {
        fputs("; torus ", f);
        for (int d = 0; d < p->ndims; d++) fprintf(f, "%s%d", d ? "x" : "", p->dims[d]);
        fprintf(f, " of %d-GPU machines", p->gpus_per_machine);
    }
    fputc('\n', f);
    if (p->nlevels) {
        fprintf(f, "  %-6s %7s %12s %10s\n", "level", "fanout", "capacity", "latency");
        for (int i = 0; i < p->nlevels; i++)
            fprintf(f, "  %-6d %7d %12s %10s\n", i, p->levels[i].fanout,
                    ar_fmt_rate(p->levels[i].bw_Bps, b1, sizeof b1),
                    ar_fmt_time(p->levels[i].lat_s, b2, sizeof b2));
    } else {
        double lo = INFINITY, hi = 0;
        for (int l = 0; l < p->nlinks; l++) {
            double c = ar_link_capacity(&p->links[l]);
            if (c < lo) lo = c;
            if (c > hi) hi = c;
        }
        fprintf(f, "  no symmetric levels; link capacities %s .. %s\n", ar_fmt_rate(lo, b1, sizeof b1),
                ar_fmt_rate(hi, b2, sizeof b2));
    }
}
