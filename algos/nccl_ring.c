/* nccl-ring: NCCL's rings.
 *
 * NCCL runs an all-reduce over C channels, each a ring through every rank, the
 * buffer split evenly over the channels (src/graph: one ring graph per channel;
 * C from its topology search, here models/nccl_model's ar_nccl_in_from_platform:
 * search.cc's ring search and channel duplication, e.g. 8 on DGX H100 across
 * nodes, one per NIC/rail). NCCL's runtime copies every ring once more
 * (connect.cc, and on sm90 across nodes up to 4 per searched ring); a copy runs
 * on the same routes, so it changes no link's load, and is not planned as an op
 * of its own.
 * Inside a node of g GPUs channel c visits them starting at local index c mod g
 * (c, c+1, ..., c-1), node after node in order, so the inter-node hop of
 * channel c goes from GPU c-1 of node m to GPU c of node m+1: on a rail fabric
 * (core/platform/platform_rail.h) its route is NVLink to GPU c then rail c (PXN), so the
 * traffic of channel c between nodes stays on rail c mod g.
 * A rail fabric that lost NICs (a scenario's failed_links): NCCL's search builds its rings from the
 * NICs that exist, so the channel count is the model's for the NICs left (7 of 8: 7 channels) and
 * channel c enters each node at the c-th (mod n) GPU whose NIC is alive on every node
 * (ar_nccl_heads), not at a GPU without one whose traffic would cross on another channel's rail.
 *
 * Plan (all-reduce): phase "reduce-scatter (nccl ring, C channels)" with C concurrent
 * REDUCE_SCATTER ops (impl RING), op c over channel c's ring and its contiguous slice c of
 * the buffer; then the matching ALL_GATHER phase (NCCL's all_reduce.h: each channel its own
 * part of the buffer).
 * Reduce-scatter and all-gather: one phase of C concurrent ops, op c over channel c's ring,
 * member i owning slice c (of C even slices) of rank ring[i]'s block of the collective: a
 * per-member block layout (ar_op.offs, core/schedule.h), as NCCL's reduce_scatter.h /
 * all_gather.h give each channel its part of every rank's block (ncclCollCbdPart). So every
 * channel, thus every rail, carries 1/C of the traffic, where one rank-order ring crosses
 * between nodes on one NIC.
 * Parameters: channels (0 = NCCL's count for the platform), proto (the NCCL
 * protocol the walk prices, ar_op.proto; auto = NCCL's choice for the collective and size).
 * Serves all-reduce, reduce-scatter and all-gather.
 * Ownership: *out belongs to the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic_common.h"
#include "models/nccl_model.h"
#include "nccl_algos.h"

void ar_nccl_nodes(const ar_platform *p, int *nodes, const int **first, int one[2]) {
    if (p->nmachines > 0 && p->machine_first_rank) {
        *nodes = p->nmachines;
        *first = p->machine_first_rank;
        return;
    }
    one[0] = 0;
    one[1] = p->nranks;
    *nodes = 1;
    *first = one;
}

int ar_nccl_heads(const ar_platform *p, int **heads) {
    *heads = NULL;
    int g = p->nmachines > 1 && p->machine_first_rank ? p->machine_first_rank[1] - p->machine_first_rank[0] : 0;
    if (g < 2) return 0;
    int *h = ar_calloc((size_t)g, sizeof *h);
    if (!h) return -1;
    int n = ar_nccl_nic_gpus(p, h);
    if (n <= 0 || n >= g) {
        free(h);
        return 0;
    }
    *heads = h;
    return n;
}

void ar_nccl_heads_text(const int *heads, int n, char *buf, size_t len) {
    size_t at = 0;
    int w = snprintf(buf, len, "heads = {");
    at = w > 0 && (size_t)w < len ? (size_t)w : len;
    for (int i = 0; i < n && at < len; i++) {
        w = snprintf(buf + at, len - at, "%s%d", i ? "," : "", heads[i]);
        at = w > 0 && (size_t)w < len - at ? at + (size_t)w : len;
    }
    if (at < len) snprintf(buf + at, len - at, "} (the GPUs whose NIC is alive on every node)");
}

int ar_nccl_ring_channels(const ar_platform *p, const char **why) {
    ar_nccl_in in;
    ar_err e = {{0}};
    *why = "";
    if (ar_nccl_in_from_platform(p, 0, &in, &e) != AR_OK || in.ring.nchannels < 1) {
        *why = " (NCCL model cannot derive the channel count for this platform: 1 channel)";
        return 1;
    }
    return in.ring.nchannels;
}

ar_proto ar_nccl_proto_to_op(int nccl_proto) {
    return nccl_proto == AR_NCCL_LL ? AR_PROTO_LL : nccl_proto == AR_NCCL_LL128 ? AR_PROTO_LL128 : AR_PROTO_SIMPLE;
}

ar_proto ar_nccl_proto_of(const ar_platform *p, int nccl_algo, const char *word, double bytes, const char **why) {
    *why = "";
    if (!strcmp(word, "ll")) return AR_PROTO_LL;
    if (!strcmp(word, "ll128")) return AR_PROTO_LL128;
    if (!strcmp(word, "simple")) return AR_PROTO_SIMPLE;
    if (strcmp(word, "auto")) return AR_PROTO_NONE;
    ar_nccl_proto pr;
    ar_err e = {{0}};
    if (ar_nccl_model_platform(p, 0, AR_NCCL_ALLREDUCE, nccl_algo, bytes, NULL, &pr, NULL, &e) != AR_OK) {
        *why = " (proto=auto: the NCCL model cannot read this platform: none)";
        return AR_PROTO_NONE;
    }
    return ar_nccl_proto_to_op(pr);
}

static const ar_param_def nring_params[] = {
    {.key = "channels",
     .type = AR_PARAM_INT,
     .min = 0,
     .max = 64,
     .def = 0,
     .help = "rings (channels); 0 = NCCL's count for the platform (nccl_model)"},
    {.key = "proto",
     .type = AR_PARAM_ENUM,
     .choices = AR_NCCL_PROTO_WORDS,
     .def = 0,
     .help = "NCCL protocol priced by the walk (auto = NCCL's choice for the size; none = not modelled)"},
    {NULL},
};

/* The protocol of the proto word for collective coll (auto: the tuner's for RING at that size). */
static ar_proto proto_for(const ar_platform *p, ar_coll coll, const char *word, double bytes, const char **why) {
    if (coll == AR_COLL_ALLREDUCE || strcmp(word, "auto")) return ar_nccl_proto_of(p, AR_NCCL_RING, word, bytes, why);
    ar_nccl_proto pr;
    ar_err e = {{0}};
    *why = "";
    if (ar_nccl_model_platform(p, 0, (ar_nccl_coll)coll, AR_NCCL_RING, bytes, NULL, &pr, NULL, &e) != AR_OK) {
        *why = " (proto=auto: the NCCL model cannot read this platform: none)";
        return AR_PROTO_NONE;
    }
    return ar_nccl_proto_to_op(pr);
}

/* Channel c's ring into ring[]: node after node in order, entering each node at GPU h (heads[c mod
 * nh], or c mod g) and visiting its GPUs h, h+1, ..., h-1. */
static void channel_ring(int M, const int *first, const int *heads, int nh, int c, int *ring) {
    for (int m = 0; m < M; m++) {
        int f = first[m], g = first[m + 1] - first[m];
        int h = nh > 0 ? heads[c % nh] : c;
        for (int j = 0; j < g; j++) ring[f + j] = f + (h + j) % g;
    }
}

/* Channel c's op of a reduce-scatter or all-gather: member i (rank ring[i]) owns the c-th of C even
 * slices of that rank's block of the collective (NCCL: the channel's part of every rank's block,
 * src/device/reduce_scatter.h / all_gather.h), a per-member block layout (schedule.h offs). */
static ar_op *channel_op(ar_schedule *s, ar_op_kind kind, const int *ring, int C, int c, uint64_t *offs,
                         uint64_t *lens) {
    int P = s->nranks, uneven = 0;
    uint64_t total = 0;
    for (int i = 0; i < P; i++) {
        uint64_t bo, bl, so, sl;
        ar_coll_block(P, s->count, ring[i], &bo, &bl);
        ar_coll_block(C, bl, c, &so, &sl);
        offs[i] = bo + so;
        lens[i] = sl;
        total += sl;
        uneven |= sl != lens[0];
    }
    ar_op *op = ar_sched_op(s, kind, AR_IMPL_RING, ring, P, offs[0], total);
    if (!op || ar_op_set_offs(op, offs) != AR_OK || (uneven && ar_op_set_counts(op, lens) != AR_OK)) return NULL;
    return op;
}

static ar_status nring_build(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                             const ar_param_val *v, ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("nccl-ring", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int M, one[2];
    const int *first;
    ar_nccl_nodes(p, &M, &first, one);
    const char *why = "";
    int C = (int)v[0].i > 0 ? (int)v[0].i : ar_nccl_ring_channels(p, &why);
    int P = p->nranks;
    /* every channel gets >= 1 element (all-reduce: of the buffer; RS/AG: of the smallest rank block) */
    uint64_t room = coll == AR_COLL_ALLREDUCE ? count : count / (uint64_t)P;
    if ((uint64_t)C > room) C = room > 0 ? (int)room : 1;
    const char *pwhy;
    ar_proto proto = proto_for(p, coll, v[1].s, (double)count * (double)elem_bytes, &pwhy);
    ar_schedule *s = ar_schedule_new("nccl-ring", P, count, elem_bytes);
    int *ring = ar_calloc((size_t)P, sizeof *ring), *heads = NULL;
    uint64_t *offs = ar_calloc((size_t)P, sizeof *offs), *lens = ar_calloc((size_t)P, sizeof *lens);
    int nh = ar_nccl_heads(p, &heads);
    char hw[160] = "";
    if (!s || !ring || !offs || !lens || nh < 0) goto nomem;
    if (nh > 0) ar_nccl_heads_text(heads, nh, hw, sizeof hw);
    if (ar_schedule_set_detail(
            s, "channels=%d%s proto=%s%s nodes=%d, channel c enters each node at its GPU %s%s%s", C, why,
            ar_proto_name(proto), pwhy, M, nh > 0 ? "heads[c mod (their count)], " : "c mod (GPUs of the node)", hw,
            coll == AR_COLL_ALLREDUCE ? "" : ", channel c owns slice c of every rank's block") != AR_OK)
        goto nomem;
    static const ar_op_kind kinds[2] = {AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER};
    static const char *const names[2] = {"reduce-scatter", "all-gather"};
    for (int k = 0; k < 2; k++) {
        if ((coll == AR_COLL_REDUCESCATTER && k == 1) || (coll == AR_COLL_ALLGATHER && k == 0)) continue;
        if (ar_sched_phase(s, "%s (nccl ring, %d channel%s)", names[k], C, C > 1 ? "s" : "") < 0) goto nomem;
        for (int c = 0; c < C; c++) {
            channel_ring(M, first, heads, nh, c, ring);
            ar_op *op;
            if (coll == AR_COLL_ALLREDUCE) {
                uint64_t off, len;
                ar_coll_block(C, count, c, &off, &len);
                op = ar_sched_op(s, kinds[k], AR_IMPL_RING, ring, P, off, len);
            } else {
                op = channel_op(s, kinds[k], ring, C, c, offs, lens);
            }
            if (!op) goto nomem;
            op->tag = c;
            op->proto = proto;
        }
    }
    s->coll = coll;
    free(ring);
    free(heads);
    free(offs);
    free(lens);
    *out = s;
    return AR_OK;
nomem:
    free(ring);
    free(heads);
    free(offs);
    free(lens);
    return ar_classic_nomem("nccl-ring", s, e);
}

static ar_status nring_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                            ar_schedule **out, ar_err *e) {
    return nring_build(p, AR_COLL_ALLREDUCE, count, elem_bytes, v, out, e);
}

static ar_status nring_plan_coll(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                                 const ar_param_val *v, ar_schedule **out, ar_err *e) {
    return nring_build(p, coll, count, elem_bytes, v, out, e);
}

const ar_algo ar_algo_nccl_ring = {
    .name = "nccl-ring",
    .label = "NCCL rings",
    .summary = "NCCL's rings: C channels (NCCL's count), data split over them, channel c on rail c between nodes",
    .params = nring_params,
    .plan = nring_plan,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = nring_plan_coll,
};
