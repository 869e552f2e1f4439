/* nccl-tree: NCCL's double binary tree.
 *
 * Across nodes NCCL runs two binary trees, each carrying half of the data
 * (src/graph/trees.cc, read for the layout; this is an independent
 * implementation). Tree 0 over node indices 0..M-1: the root is node 0; a node
 * x > 0 whose lowest set bit is b has parent (x - b) + 2b, or x - b where that
 * is >= M; so node 0 has one child and the rest is an in-order binary tree.
 * Tree 1 is tree 0 mirrored (x -> M-1-x) when M is even, shifted by one node
 * (x -> x+1 mod M) when M is odd, so that a node that is a leaf in one tree is
 * an inner node in the other. Inside a node the GPUs form a chain from the
 * node's head; channel c's head is GPU c mod g, so on a rail fabric the
 * inter-node edges of channel c are on rail c mod g (head-to-head routes).
 *
 * NCCL's topology search finds S tree channels (one head GPU and its NIC each); the
 * communicator duplicates them (src/graph/connect.cc): channel c and c + S share
 * search channel c's head and chain, channel c carries tree 0 and c + S tree 1, so
 * every NIC carries both trees, inner in one and a leaf in the other: two chunks a
 * round each way on a NIC where one tree alone puts three on an inner node's.
 * heads=pair plans that: C channels (2 S by default) in P = ceil(C / 2) pairs,
 * channel c in pair c mod P, tree 0 for c < P and tree 1 above; with LL128 the
 * walk holds each pair to its search channel's share of NCCL's per-channel tree
 * rate (models/walk.c tree_stream_rate). heads=rail gives every channel its own
 * head and tree c mod 2 (C = S by default). heads=auto, the default, is pair with
 * LL128 or Simple on several nodes whose tree graph is NCCL's BALANCED_TREE
 * (ar_nccl_tree_pairs: two GPUs behind one NIC's PCIe switch, DGX A100, p4d):
 * the `nccl` pick on dgx-a100:nodes=16 at 128 MiB 1.21 -> 1.00 x NCCL's model.
 * Rail elsewhere: with LL NCCL's model prices llMaxBw, not the NICs, and the
 * pair's lighter NICs took 128 KB on 4-16 nodes to 0.71-0.79 x; on the simple
 * TREE pattern (a NIC per GPU: H100, B200) NCCL's model takes the tree's
 * imbalance as its x0.85, and pairs took the public H100 logs' TREE/LL128 points,
 * already faster than measured, further off (within 20 % uncalibrated 10 -> 9
 * of 16, calibrated on the log 14 -> 12: experiments/README.md). Pair or channel b's chain starts at GPU b mod g, or, on
 * a rail fabric that lost NICs (a scenario's failed_links), at the b-th (mod n)
 * GPU whose NIC is alive on every node (ar_nccl_heads, nccl_ring.c), with the
 * model's channel count for the NICs left, as NCCL's search uses only NICs that
 * exist.
 *
 * Plan: one phase "double binary tree" with C ALL_REDUCE ops (impl TREE,
 * `parent` = channel c's tree, member 0 = the root node's head), op c over
 * slice c of the buffer, pipelined in `chunks` chunks (reduce up the tree,
 * broadcast down, lower.h).
 * Parameters: channels (0 = NCCL's search channels, twice that with pairs; at
 * least 2), heads (auto|rail|pair), chunks
 * (pipeline chunks per tree; 0, the default: NCCL's chunking for the protocol,
 * ar_nccl_tree_chunks, LL's pieces by the walk, ar_nccl_tree_ll_pieces, 8 without one), proto (the NCCL protocol the walk
 * prices, ar_op.proto; auto = NCCL's choice for the size; default none).
 * Serves all-reduce only. Ownership: *out belongs to the caller.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic_common.h"
#include "models/nccl_model.h"
#include "nccl_algos.h"

/* Parent of node x in NCCL's first binary tree over M nodes (-1 at the root, node 0). */
static int btree_parent(int M, int x) {
    if (x == 0) return -1;
    int b = x & -x;
    int up = (x ^ b) | (b << 1);
    return up < M ? up : (x ^ b);
}

/* Parent of node x in tree t (0: btree; 1: mirrored for even M, shifted for odd M). */
int ar_nccl_dtree_parent(int M, int t, int x) {
    if (t == 0) return btree_parent(M, x);
    if (M % 2 == 0) {
        int q = btree_parent(M, M - 1 - x);
        return q < 0 ? -1 : M - 1 - q;
    }
    int q = btree_parent(M, (x - 1 + M) % M);
    return q < 0 ? -1 : (q + 1) % M;
}

/* NCCL's pipeline chunks for a tree channel of `bytes` (NCCL 2.30, enqueue.cc calcCollChunking:
 * chunkSize = the protocol's buffer step, init.cc's default buffers over NCCL_STEPS = 8: LL 512 KiB ->
 * 64 KiB of lines, half of it data; LL128 4.69 MiB -> 600 KiB of lines, 15 of 16 words data; Simple
 * 4 MiB -> 512 KiB; TREE with LL128 halves its chunk while the channels get fewer than (1 + lg nodes +
 * 0.1 ppn) x 64 / ppn chunks, down to 128 KiB, then x 16 / ppn down to 32 KiB; no other TREE rule).
 * The tree's depth (the chain inside a node and the levels across) is the fill of the pipeline, 2
 * depth - 1 chunk times against the chunks: NCCL's own chunk count keeps that fill as short as NCCL's
 * (dgx-a100:nodes=16 at 64 and 128 MiB on 8 channels: 144 000 and 288 000 B chunks, 59 a channel; the
 * walk 1.18 / 1.31 x NCCL's model with 32 chunks, 1.14 / 1.24 x with NCCL's 59; on NCCL's 16: 72 000
 * and 144 000 B, 59 a channel). The count is capped at
 * AR_NCCL_TREE_MAX_CHUNKS for the simulation's cost, linear in the chunks (about 2.3 ms of wall time
 * a chunk on 128 ranks): Simple at 8 GiB would be 2 048 chunks a channel. */
int ar_nccl_tree_chunks(const ar_platform *p, ar_proto pr, double bytes, int channels) {
    /* LL: the 32 KiB step is not what moves through the tree: a rank forwards each 16-byte line as it
     * arrives, 512 threads a line each per iteration of the kernel's loop (prims_ll.h), 4 KiB of data;
     * the planners size LL's pieces by the walk instead (ar_nccl_tree_ll_pieces) */
    double chunk = pr == AR_PROTO_LL ? 4096.0 : pr == AR_PROTO_LL128 ? 614400.0 / 16 * 15 : 524288.0;
    double per = channels > 0 ? bytes / channels : bytes;
    if (pr == AR_PROTO_LL128) {
        int nn = p->nmachines > 0 ? p->nmachines : 1, l2 = 0;
        while ((2 << l2) <= nn) l2++;
        double ppn = (double)p->nranks / nn, steps = 1 + l2 + 0.1 * ppn;
        while (floor(per / chunk) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
        while (floor(per / chunk) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
    }
    double k = ceil(per / chunk);
    return k < 1 ? 1 : k > AR_NCCL_TREE_MAX_CHUNKS ? AR_NCCL_TREE_MAX_CHUNKS : (int)k;
}

/* LL's stream pieces for a tree channel: NCCL's LL forwards each 16-byte line (8 bytes of data) as it
 * arrives (prims_ll.h), so its tree is cut-through: NCCL's model pays the hops' steps once and the bytes
 * once. A schedule moves whole pieces from round to round, store-and-forward: few pieces pay the bytes at
 * every hop, many pay a round's latency at every piece. The pipeline closest to the cut-through stream is
 * the piece count its own walk finds fastest (the classic optimal segment of a pipelined tree); powers of
 * two from 1 to AR_NCCL_TREE_MAX_CHUNKS, at most one element each. */
int ar_nccl_tree_ll_pieces(const ar_platform *p, uint64_t count, size_t eb, int channels, const char *heads) {
    uint64_t per = channels > 0 ? count / (uint64_t)channels : count;
    int best = 1;
    double best_t = INFINITY;
    for (int c = 1; c <= AR_NCCL_TREE_MAX_CHUNKS && (c == 1 || (uint64_t)c <= per); c *= 2) {
        char spec[96];
        snprintf(spec, sizeof spec, "nccl-tree:channels=%d,chunks=%d,proto=ll,heads=%s", channels, c, heads);
        ar_schedule *s = NULL;
        ar_err e = {{0}};
        ar_model_result m;
        if (ar_algo_plan_coll(spec, AR_COLL_ALLREDUCE, p, count, eb, &s, &e) == AR_OK &&
            ar_model_walk(p, s, &m, &e) == AR_OK && m.time_s < best_t * (1 - 1e-12)) {
            best_t = m.time_s;
            best = c;
        }
        ar_schedule_free(s);
    }
    return best;
}

int ar_nccl_tree_pairs(const ar_platform *p, ar_proto pr) {
    ar_nccl_in in;
    return (pr == AR_PROTO_LL128 || pr == AR_PROTO_SIMPLE) && p->nmachines >= 2 &&
           ar_nccl_in_from_platform(p, 0, &in, NULL) == AR_OK && in.tree_balanced;
}

static const ar_param_def ntree_params[] = {
    {.key = "channels",
     .type = AR_PARAM_INT,
     .min = 0,
     .max = 64,
     .def = 0,
     .help = "trees (channels, >= 2 used); 0 = NCCL's ring channel count for the platform (twice it with pairs)"},
    {.key = "chunks",
     .type = AR_PARAM_INT,
     .min = 0,
     .max = 4096,
     .def = 0,
     .help = "pipeline chunks per tree; 0 = NCCL's chunking for the protocol (8 without one)"},
    {.key = "proto",
     .type = AR_PARAM_ENUM,
     .choices = AR_NCCL_PROTO_WORDS,
     .def = 0,
     .help = "NCCL protocol priced by the walk (auto = NCCL's choice for the size; none = not modelled)"},
    {.key = "heads",
     .type = AR_PARAM_ENUM,
     .choices = "auto|rail|pair",
     .def = 0,
     .help = "rail: channel c on head c, tree c mod 2; pair: channels c and c + ceil(C/2) on one head, trees 0 "
             "and 1; auto: pair with LL128 or Simple on several nodes of NCCL's balanced tree graph, else rail"},
    {NULL},
};

static ar_status ntree_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                            ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("nccl-tree", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int M, one[2];
    const int *first;
    ar_nccl_nodes(p, &M, &first, one);
    const char *why = "", *pwhy;
    ar_proto proto = ar_nccl_proto_of(p, AR_NCCL_TREE, v[2].s, (double)count * (double)elem_bytes, &pwhy);
    int pair = !strcmp(v[3].s, "pair") || (!strcmp(v[3].s, "auto") && ar_nccl_tree_pairs(p, proto));
    int T = (int)v[0].i > 0 ? (int)v[0].i : ar_nccl_ring_channels(p, &why) * (pair ? 2 : 1);
    if (T < 2) T = 2;
    if (T > 64) T = 64;
    if ((uint64_t)T > count) T = (int)count;
    /* heads=pair: channel t on the head of pair t mod npair, tree 0 below npair, tree 1 above */
    int npair = pair ? (T + 1) / 2 : T;
    int chunks = (int)v[1].i > 0          ? (int)v[1].i
                 : proto == AR_PROTO_NONE ? 8
                 : proto == AR_PROTO_LL   ? ar_nccl_tree_ll_pieces(p, count, elem_bytes, T, pair ? "pair" : "rail")
                                          : ar_nccl_tree_chunks(p, proto, (double)count * (double)elem_bytes, T);
    int P = p->nranks;
    ar_schedule *s = ar_schedule_new("nccl-tree", P, count, elem_bytes);
    int *members = ar_calloc((size_t)P, sizeof *members), *parent = ar_calloc((size_t)P, sizeof *parent);
    int *pos = ar_calloc((size_t)M, sizeof *pos); /* member index of node x's head */
    int *heads = NULL, nh = ar_nccl_heads(p, &heads);
    char hw[160] = "";
    if (!s || !members || !parent || !pos || nh < 0) goto nomem;
    if (nh > 0) ar_nccl_heads_text(heads, nh, hw, sizeof hw);
    if (ar_schedule_set_detail(
            s, "channels=%d%s proto=%s%s: double binary tree over %d nodes, chain inside each, %d chunks%s%s%s", T, why,
            ar_proto_name(proto), pwhy, M, chunks,
            pair ? ", channels c and c + ceil(C/2) on one head, trees 0 and 1" : "",
            nh > 0 ? ", head b at GPU heads[b mod (their count)], " : "", hw) != AR_OK ||
        ar_sched_phase(s, "double binary tree (nccl tree)") < 0)
        goto nomem;
    for (int t = 0; t < T; t++) {
        int tree = pair ? t / npair : t % 2, b = t % npair, root = 0;
        for (int x = 0; x < M; x++)
            if (ar_nccl_dtree_parent(M, tree, x) < 0) root = x;
        /* members: root node first, then the others in order; each node's chain from its head */
        int k = 0;
        for (int i = 0; i < M; i++) {
            int x = i == 0 ? root : (i <= root ? i - 1 : i);
            int f = first[x], g = first[x + 1] - first[x];
            pos[x] = k;
            int h = nh > 0 ? heads[b % nh] : b;
            for (int j = 0; j < g; j++) members[k++] = f + (h + j) % g;
        }
        for (int x = 0; x < M; x++) {
            int q = ar_nccl_dtree_parent(M, tree, x);
            parent[pos[x]] = q < 0 ? -1 : pos[q];
            for (int j = 1; j < first[x + 1] - first[x]; j++) parent[pos[x] + j] = pos[x] + j - 1;
        }
        uint64_t off, len;
        ar_coll_block(T, count, t, &off, &len);
        ar_op *op = ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_TREE, members, P, off, len);
        if (!op || ar_op_set_parent(op, parent) != AR_OK) goto nomem;
        op->chunks = (uint64_t)chunks < len ? chunks : (int)len;
        op->tag = t;
        op->proto = proto;
    }
    free(members);
    free(parent);
    free(pos);
    free(heads);
    *out = s;
    return AR_OK;
nomem:
    free(members);
    free(parent);
    free(pos);
    free(heads);
    return ar_classic_nomem("nccl-tree", s, e);
}

const ar_algo ar_algo_nccl_tree = {
    .name = "nccl-tree",
    .label = "NCCL double binary tree",
    .summary = "NCCL's double binary tree across nodes (two trees, half the data each), chain inside a node",
    .params = ntree_params,
    .plan = ntree_plan,
};
