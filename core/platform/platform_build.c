/* The platform builder every loader uses (platform_build.h): an empty
 * platform, nodes, links, tree children, the structured shapes (symmetric
 * trees, two-level machine trees, tori) shared by the JSON loader and the
 * generated families, the sorted name index, and ar_platform_free. Validation
 * and the derived structure are in platform_finish.c. This module includes no
 * other platform_*.c interface: loaders depend on it, never the reverse. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform_build.h"

/* ---- builder ---- */

ar_status ar_pb_begin(ar_pbuild *b, const char *name, const char *source, ar_platform_kind kind, ar_err *e) {
    memset(b, 0, sizeof *b);
    ar_platform *p = ar_calloc(1, sizeof *p);
    if (!p) return ar_fail(e, AR_ENOMEM, "out of memory");
    b->p = p;
    p->kind = kind;
    p->root = -1;
    p->cal_lat[0] = p->cal_lat[1] = p->cal_bw[0] = p->cal_bw[1] = 1;
    p->name = ar_strdup(name ? name : "");
    p->source = ar_strdup(source ? source : "");
    if (!p->name || !p->source) return ar_fail(e, AR_ENOMEM, "out of memory");
    return AR_OK;
}

ar_status ar_pb_node(ar_pbuild *b, const char *name, ar_node_kind kind, int machine, int *idx, ar_err *e) {
    ar_platform *p = b->p;
    if (p->nnodes >= AR_MAX_NODES) return ar_fail(e, AR_ELIMIT, "too many nodes (the limit is %d)", AR_MAX_NODES);
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

ar_status ar_pb_link(ar_pbuild *b, int a, int bnode, double bw_Bps, double lat_s, int lanes, const char *name, int *idx,
                     ar_err *e) {
    ar_platform *p = b->p;
    char q[96];
    if (a < 0 || a >= p->nnodes || bnode < 0 || bnode >= p->nnodes)
        return ar_fail(e, AR_EINTERNAL, "link to a node that does not exist");
    if (a == bnode) return ar_fail(e, AR_EINVAL, "link joins %s to itself", ar_quote(p->nodes[a].name, q, sizeof q));
    if (!(bw_Bps > 0) || !isfinite(bw_Bps))
        return ar_fail(e, AR_EINVAL, "bandwidth must be finite and > 0 (got %g)", bw_Bps);
    if (!(lat_s >= 0) || !isfinite(lat_s))
        return ar_fail(e, AR_EINVAL, "latency must be finite and >= 0 (got %g)", lat_s);
    if (lanes < 1 || lanes > AR_MAX_LANES)
        return ar_fail(e, AR_EINVAL, "lanes must be an integer in 1..%d (got %d)", AR_MAX_LANES, lanes);
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

ar_status ar_pb_child(ar_pbuild *b, int parent, const char *name, ar_node_kind kind, double bw_Bps, double lat_s,
                      int lanes, int *idx, ar_err *e) {
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
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* ---- free ---- */

void ar_platform_free(ar_platform *p) {
    if (!p) return;
    for (int v = 0; v < p->nnodes; v++) {
        free(p->nodes[v].name);
        free(p->nodes[v].children);
    }
    free(p->nodes);
    for (int l = 0; l < p->nlinks + p->nvlinks; l++) free(p->links[l].name);
    AR_FREE_ALL(p->links, p->rank_node, p->machine_of_rank, p->machine_first_rank, p->rank_compute, p->adj_off, p->adj);
    ar_route_state *rs = p->route_state;
    if (rs) {
        AR_FREE_ALL(rs->machine_switch, rs->plus_link, rs->next_pos, rs->rail_nvl, rs->rail_nic);
        free(rs);
    }
    for (int i = 0; i < p->nnotes; i++) free(p->notes[i]);
    AR_FREE_ALL(p->notes, p->cal_base, p->name, p->source, p->description);
    free(p);
}

/* ---- symmetric trees ---- */

typedef struct sym_ctx {
    ar_pbuild *b;
    const ar_level_spec *lv;
    int lanes[AR_MAX_LEVELS];
    int count[AR_MAX_LEVELS + 1]; /* switches named so far per level */
    int ranks;
} sym_ctx;

static ar_status sym_build(sym_ctx *c, int level, int sw, ar_err *e) {
    const ar_level_spec *l = &c->lv[level];
    char name[48];
    c->b->p->nodes[sw].reduce_Bps = l->reduce_Bps;
    for (long long k = 0; k < l->fanout; k++) {
        int child = -1;
        ar_status st;
        if (level == 0) {
            snprintf(name, sizeof name, "g%d", c->ranks++);
            st = ar_pb_child(c->b, sw, name, AR_NODE_GPU, l->bw_Bps, l->lat_s, c->lanes[0], &child, e);
        } else {
            snprintf(name, sizeof name, "s%d.%d", level - 1, c->count[level - 1]++);
            st = ar_pb_child(c->b, sw, name, AR_NODE_SWITCH, l->bw_Bps, l->lat_s, c->lanes[level], &child, e);
            if (!st) st = sym_build(c, level - 1, child, e);
        }
        if (st) return st;
    }
    return AR_OK;
}

ar_status ar_pb_sym_tree(ar_pbuild *b, const ar_level_spec *lv, int nlev, int full_bisection, ar_err *e) {
    if (nlev < 1 || nlev > AR_MAX_LEVELS)
        return ar_fail(e, AR_EINVAL, "levels: give 1 to %d levels (got %d)", AR_MAX_LEVELS, nlev);
    sym_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.lv = lv;
    long long below = 1; /* GPUs under one switch of the current level */
    for (int i = 0; i < nlev; i++) {
        if (lv[i].fanout < 1 || lv[i].fanout > AR_MAX_RANKS)
            return ar_fail(e, AR_EINVAL, "levels[%d].fanout: must be an integer in 1..%d (got %lld)", i, AR_MAX_RANKS,
                           lv[i].fanout);
        if (lv[i].lanes < 1 || lv[i].lanes > AR_MAX_LANES)
            return ar_fail(e, AR_EINVAL, "levels[%d].lanes: must be an integer in 1..%d (got %lld)", i, AR_MAX_LANES,
                           lv[i].lanes);
        if (!(lv[i].bw_Bps > 0) || !isfinite(lv[i].bw_Bps))
            return ar_fail(e, AR_EINVAL, "levels[%d].bw: must be > 0", i);
        if (!(lv[i].lat_s >= 0) || !isfinite(lv[i].lat_s))
            return ar_fail(e, AR_EINVAL, "levels[%d].lat: must be >= 0", i);
        long long lanes = lv[i].lanes * (full_bisection ? below : 1);
        if (lanes > AR_MAX_LANES)
            return ar_fail(e, AR_EINVAL, "levels[%d]: full-bisection lanes %lld exceed %d", i, lanes, AR_MAX_LANES);
        c.lanes[i] = (int)lanes;
        below *= lv[i].fanout;
        if (below > AR_MAX_RANKS)
            return ar_fail(e, AR_ELIMIT, "levels: the fanouts give more than %d ranks", AR_MAX_RANKS);
    }
    char name[48];
    int root = -1;
    snprintf(name, sizeof name, "s%d.0", nlev - 1);
    ar_status st = ar_pb_child(b, -1, name, AR_NODE_SWITCH, 0, 0, 1, &root, e);
    if (st) return st;
    return sym_build(&c, nlev - 1, root, e);
}

/* ---- two-level machine trees ---- */

ar_status ar_pb_machines(ar_pbuild *b, const int *gpus, int nmachines, double intra_Bps, double inter_Bps, double lat_s,
                         ar_err *e) {
    char name[48];
    int root = -1;
    long long total = 0;
    for (int m = 0; m < nmachines; m++) {
        if (gpus[m] < 1) return ar_fail(e, AR_EINVAL, "gpus: machine %d has no GPUs", m);
        total += gpus[m];
        if (total > AR_MAX_RANKS) return ar_fail(e, AR_ELIMIT, "gpus: more than %d ranks", AR_MAX_RANKS);
    }
    ar_status st = ar_pb_child(b, -1, "root", AR_NODE_SWITCH, 0, 0, 1, &root, e);
    for (int m = 0; !st && m < nmachines; m++) {
        int sw = -1;
        snprintf(name, sizeof name, "m%d", m);
        st = ar_pb_child(b, root, name, AR_NODE_SWITCH, inter_Bps, lat_s, 1, &sw, e);
        for (int g = 0; !st && g < gpus[m]; g++) {
            snprintf(name, sizeof name, "m%d.g%d", m, g);
            st = ar_pb_child(b, sw, name, AR_NODE_GPU, intra_Bps, lat_s, 1, NULL, e);
        }
    }
    return st;
}

/* ---- tori ---- */

ar_status ar_pb_torus(ar_pbuild *b, const int *dims, int ndims, int gpus_per_machine, double intra_Bps,
                      double intra_lat, int intra_lanes, double link_Bps, double link_lat, int link_lanes, ar_err *e) {
    ar_platform *p = b->p;
    if (ndims < 1 || ndims > AR_MAX_DIMS)
        return ar_fail(e, AR_EINVAL, "dims: give 1 to %d dimensions (got %d)", AR_MAX_DIMS, ndims);
    long long nm = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 1 || dims[d] > AR_MAX_RANKS)
            return ar_fail(e, AR_EINVAL, "dims[%d]: must be an integer in 1..%d (got %d)", d, AR_MAX_RANKS, dims[d]);
        nm *= dims[d];
        if (nm > AR_MAX_RANKS) return ar_fail(e, AR_ELIMIT, "dims: more than %d machines", AR_MAX_RANKS);
    }
    if (gpus_per_machine < 1 || gpus_per_machine > AR_MAX_RANKS)
        return ar_fail(e, AR_EINVAL, "gpus_per_machine: must be an integer in 1..%d (got %d)", AR_MAX_RANKS,
                       gpus_per_machine);
    if (nm * gpus_per_machine > AR_MAX_RANKS)
        return ar_fail(e, AR_ELIMIT, "%lld machines x %d GPUs is more than %d ranks", nm, gpus_per_machine,
                       AR_MAX_RANKS);
    ar_route_state *rs = ar_calloc(1, sizeof *rs);
    if (!rs) return ar_fail(e, AR_ENOMEM, "out of memory");
    p->route_state = rs;
    rs->machine_switch = ar_calloc((size_t)nm, sizeof *rs->machine_switch);
    rs->plus_link = ar_calloc((size_t)nm * (size_t)ndims, sizeof *rs->plus_link);
    if (!rs->machine_switch || !rs->plus_link) return ar_fail(e, AR_ENOMEM, "out of memory");
    char name[64];
    ar_status st = AR_OK;
    for (int m = 0; m < nm && !st; m++) {
        int sw = -1;
        snprintf(name, sizeof name, "m%d", m);
        st = ar_pb_node(b, name, AR_NODE_SWITCH, m, &sw, e);
        rs->machine_switch[m] = sw;
        for (int g = 0; g < gpus_per_machine && !st; g++) {
            int gpu = -1;
            snprintf(name, sizeof name, "m%d.g%d", m, g);
            st = ar_pb_node(b, name, AR_NODE_GPU, m, &gpu, e);
            if (!st) st = ar_pb_link(b, sw, gpu, intra_Bps, intra_lat, intra_lanes, NULL, NULL, e);
        }
    }
    for (int m = 0; m < nm && !st; m++) {
        int stride = 1;
        for (int d = 0; d < ndims && !st; d++) {
            int k = dims[d], c = (m / stride) % k;
            int next = c + 1 < k ? m + stride : m - (k - 1) * stride;
            int *slot = &rs->plus_link[m * ndims + d];
            if (k == 1) *slot = -1;
            else if (k == 2 && c == 1) *slot = rs->plus_link[next * ndims + d]; /* the pair shares one link */
            else
                st = ar_pb_link(b, rs->machine_switch[m], rs->machine_switch[next], link_Bps, link_lat, link_lanes,
                                NULL, slot, e);
            stride *= k;
        }
    }
    if (st) return st;
    p->ndims = ndims;
    for (int d = 0; d < ndims; d++) p->dims[d] = dims[d];
    p->gpus_per_machine = gpus_per_machine;
    p->nlevels = 1 + ndims;
    p->levels[0].fanout = gpus_per_machine;
    p->levels[0].bw_Bps = intra_Bps * intra_lanes;
    p->levels[0].lat_s = intra_lat;
    for (int d = 0; d < ndims; d++) {
        p->levels[1 + d].fanout = dims[d];
        p->levels[1 + d].bw_Bps = link_Bps * link_lanes;
        p->levels[1 + d].lat_s = link_lat;
    }
    return AR_OK;
}

const char *const ar_cal_algo_names[AR_CAL_NALGOS] = {"TREE",      "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS",
                                                      "NVLS_TREE", "PAT"};
const char *const ar_cal_proto_names[AR_CAL_NPROTOS] = {"LL", "LL128", "SIMPLE"};

int ar_platform_link_class(const ar_platform *p, int l) {
    int ma = p->nodes[p->links[l].a].machine, mb = p->nodes[p->links[l].b].machine;
    return ma >= 0 && ma == mb ? 0 : 1;
}

void ar_platform_apply_calibration(ar_platform *p) {
    if (!p->calibrated) return;
    for (int l = 0; l < p->nlinks; l++) {
        int c = ar_platform_link_class(p, l);
        p->links[l].bw_Bps *= p->cal_bw[c];
        p->links[l].lat_s *= p->cal_lat[c];
    }
    /* levels: level 0 joins GPUs inside their machine (tree: to the machine switch; torus: the machine
     * level), the levels above cross machines */
    for (int i = 0; i < p->nlevels; i++) {
        int c = i == 0 && p->nmachines >= 1 ? 0 : 1;
        p->levels[i].bw_Bps *= p->cal_bw[c];
        p->levels[i].lat_s *= p->cal_lat[c];
    }
}
