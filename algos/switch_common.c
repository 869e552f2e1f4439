/* The planner behind nvls, nvlstree, collnet (algos/nvls.c, nvlstree.c,
 * collnet.c; switch_common.h): all-reduce through switches that reduce.
 *
 * A switch that reduces (platform.h reduce_Bps: NVLink SHARP in an NVSwitch,
 * InfiniBand SHARP in a rail switch) runs an op with impl SWITCH (lower.h):
 * the members send up, the switch adds, it multicasts the result down.
 *
 *   nvls      one node: one ALL_REDUCE through the node's NVSwitch. Several
 *             nodes (g GPUs each): REDUCE_SCATTER through every node's
 *             NVSwitch (GPU j ends with the node's sum of block j of g), then
 *             per rail j an ALL_REDUCE (ring) of block j over GPU j of every
 *             node, then ALL_GATHER by every NVSwitch's multicast (NCCL's NVLS),
 *             the three stages software-pipelined over K slices of the buffer
 *             (phase t: stage 0 on slice t, 1 on t-1, 2 on t-2), as NCCL runs them
 *             concurrently chunk by chunk. K and the switch ops' chunks c come from
 *             NCCL's pipeline (nccl_units: U = size / (nvlsChannels x heads x chunk)
 *             steps; K = ceil(sqrt(2U)) <= 64, c = ceil(U/K) <= 64, which balances
 *             the fill of the slices, 2/K, against that of the chunks, 1/c); the
 *             ring across gets chunks so that its 2(M-1) steps take as many rounds
 *             as the switch ops beside it. slices=1: no pipelining; every phase then
 *             holds ops of one shape and the walk's lockstep rounds are what the
 *             simulator does (walk = sim to 1e-9). Pipelined, a phase mixes ops whose
 *             rounds take different times; the simulator and the walk (models/walk.c,
 *             walk_phase_events) run each at its own pace: walk = sim to 1e-9 on the
 *             network alone (the walk adds per-message costs, the simulator does not).
 *   nvlstree  the same with NCCL's double binary tree across nodes (two trees per
 *             rail, half of block j each; nccl_tree.c) (NCCL's NVLS_TREE). On more
 *             than two nodes the trees run edge by edge: a slice crosses one tree
 *             edge per step (one REDUCE per parent and its children up, one BROADCAST
 *             down), 2h + 2 stages, K + 2h + 1 steps, the first and last slices
 *             ramped in size (edge_split, slice_block); on two nodes the trees' reduce
 *             and broadcast are two stages, each tree pipelined in chunks (tree_split).
 *   collnet   reduce-scatter inside the node (through the NVSwitch when it
 *             reduces, else a ring), then per rail j an ALL_REDUCE of block j
 *             through rail switch j (needs sharp= on the rail fabric), then
 *             the all-gather inside the node (NCCL's COLLNET_DIRECT idea).
 * The node's NVSwitch: the reducing switch adjacent to every GPU of the node
 * and to no GPU of another node (the root of a one-node preset, n<m>.nvs of a
 * rail fabric); rail switch j: the reducing switch adjacent to GPU j of every
 * node. A platform without them is refused in one line.
 * A rail fabric that lost NICs (a scenario's failed_links; ar_nccl_heads): NCCL's NVLS heads are
 * the GPUs with a NIC, so with h of g left the slice is split in h blocks, not g: inside the node
 * one REDUCE through the NVSwitch per head (every GPU sends its piece up, the sum comes down to the
 * head: the reduce-scatter's traffic, scattered over the heads), across nodes block i over head i
 * of every node on its own rail, then one BROADCAST per head (the head's block up, multicast down:
 * the all-gather's). Without an NVSwitch (collnet) the in-node REDUCE/BROADCAST are rings.
 * Parameters: chunks (pipeline chunks of every SWITCH op; 0 = auto: one node NCCL's NVLS steps,
 * one_node_chunks, 1..64; several nodes NCCL's, see nvls), slices (several
 * nodes, 0 = auto, see nvls; at most count/g). Serves all-reduce (nvls also
 * reduce-scatter and all-gather on one node). Ownership: *out belongs to the caller.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic_common.h"
#include "models/nccl_model.h"
#include "nccl_algos.h"
#include "switch_common.h"

static int adjacent(const ar_platform *p, int a, int b) {
    for (int k = p->adj_off[a]; k < p->adj_off[a + 1]; k++) {
        const ar_link *l = &p->links[p->adj[k]];
        if (l->a == b || l->b == b) return 1;
    }
    return 0;
}

/* The reducing switch next to GPU rank r that every rank of `ranks` (n) is
 * adjacent to and rank `not` (-1: none) is not; -1 if none. */
static int reducer_near(const ar_platform *p, int r, const int *ranks, int n, int not ) {
    int g = p->rank_node[r];
    for (int k = p->adj_off[g]; k < p->adj_off[g + 1]; k++) {
        const ar_link *l = &p->links[p->adj[k]];
        int s = l->a == g ? l->b : l->a;
        if (p->nodes[s].kind != AR_NODE_SWITCH || !(p->nodes[s].reduce_Bps > 0)) continue;
        int ok = not < 0 || !adjacent(p, p->rank_node[not ], s);
        for (int i = 0; ok && i < n; i++) ok = adjacent(p, p->rank_node[ranks[i]], s);
        if (ok) return s;
    }
    return -1;
}

/* One-node trees: the root, when it reduces and every GPU hangs below it. */
static int node_switch(const ar_platform *p, const int *first, int M, int m, int *tmp) {
    int f = first[m], g = first[m + 1] - f;
    if (M == 1 && p->root >= 0 && p->nodes[p->root].reduce_Bps > 0) return p->root;
    for (int j = 0; j < g; j++) tmp[j] = f + j;
    return reducer_near(p, f, tmp, g, M > 1 ? first[(m + 1) % M] : -1);
}

static int auto_chunks(int want, uint64_t len, size_t elem_bytes) {
    if (want > 0) return (uint64_t)want < len ? want : (int)len;
    double b = (double)len * (double)elem_bytes;
    int c = (int)(b / (4.0 * 1024 * 1024)) + 1;
    if (c > 64) c = 64;
    if ((uint64_t)c > len) c = (int)len;
    return c < 1 ? 1 : c;
}

/* One node's switch op: as many chunks as NCCL's NVLS kernel takes steps (enqueue.cc calcCollChunking,
 * NVLS): nvlsChannels CTAs (transport/nvls.cc: 16 on compute capability 9.x, NVLS_NCHANNELS_SM100_NVL
 * 24 on one Blackwell node) x the g heads each move one chunk per step, NCCL_NVLS_CHUNKSIZE 128 KiB cut
 * to 64, 32 and 16 KiB below 64, 8 and 2 x those ops x the chunk (ar_nccl_nvls_chunk); a step of the whole node moves
 * ops x chunk bytes, so the op takes ceil(bytes / (ops x chunk)) steps, here 1..64 chunks (at most one
 * per element). A chunk count given (want > 0) is taken as it is. */
static int one_node_chunks(const ar_platform *p, int g, int want, uint64_t len, size_t elem_bytes) {
    if (want > 0) return (uint64_t)want < len ? want : (int)len;
    double b = (double)len * (double)elem_bytes, ops = (double)(p->gpu_cc >= 100 ? 24 : 16) * (g > 0 ? g : 1);
    double u = ceil(b / (ops * ar_nccl_nvls_chunk(b, ops)));
    int c = u > 64 ? 64 : u < 1 ? 1 : (int)u;
    if ((uint64_t)c > len) c = (int)len;
    return c < 1 ? 1 : c;
}

#define SWITCH_PARAMS                                                                                       \
    {.key = "chunks",                                                                                       \
     .type = AR_PARAM_INT,                                                                                  \
     .min = 0,                                                                                              \
     .max = 4096,                                                                                           \
     .def = 0,                                                                                              \
     .help = "pipeline chunks of every switch op (0 = auto: NCCL's NVLS steps on one node, 1..64; nodes "   \
             "NCCL's: algos/switch_common.c)"},                                                             \
    {                                                                                                       \
        .key = "slices", .type = AR_PARAM_INT, .min = 0, .max = 1024, .def = 0,                             \
        .help = "several nodes: slices the three stages are software-pipelined over (0 = auto from NCCL's " \
                "chunk size and channel count, 1 = none; see algos/switch_common.c)"                        \
    }

const ar_param_def ar_switch_params[] = {SWITCH_PARAMS, {NULL}};

const ar_param_def ar_nvls_params[] = {
    SWITCH_PARAMS,
    {.key = "proto",
     .type = AR_PARAM_ENUM,
     .choices = "none|auto",
     .def = 0,
     .help =
         "NCCL's costs (none = the schedule's own hops and per-message costs only; auto = what NCCL_ALGO=NVLS "
         "runs: NCCL's NVLS latency once, Simple on the first step's switch ops; across nodes the ring's own hops)"},
    {NULL},
};

const ar_param_def ar_nvlstree_params[] = {
    SWITCH_PARAMS,
    {.key = "proto",
     .type = AR_PARAM_ENUM,
     .choices = "none|simple|fill|auto",
     .def = 0,
     .help = "NCCL protocol on the trees across nodes (NVLS_TREE's inter-node step runs Simple; none = the "
             "schedule's own hops and per-message costs only; simple = Simple on every slice's trees; fill = "
             "Simple on the first slice's trees only: NCCL's network step paid in the pipeline's fill; auto = "
             "what NCCL_ALGO=NVLS_TREE runs: fill across nodes and NCCL's NVLS latency once, on the first "
             "switch op as Simple)"},
    {.key = "ramp",
     .type = AR_PARAM_ENUM,
     .choices = "auto|none|triangle",
     .def = 0,
     .help = "more than two nodes, pipelined: the first and last slices ramped up and down in size where the "
             "estimate says the shorter fill and drain steps pay (auto), all of one size (none), or every slice "
             "on the ramp (triangle: 1, 2, .. up and down)"},
    {NULL},
};

/* NCCL's pipeline across nodes (2.18-2.28): nch channels, each moving one chunk of chunk_B bytes per
 * head per step, so a step of the whole operation moves nch x H x chunk_B bytes and the operation
 * takes `units` steps. NVLS and NVLS_TREE: nvlsChannels = 16 on compute capability 9.x, 32 on 10.x
 * across nodes (src/transport/nvls.cc NVLS_NCHANNELS_SM90/SM100); chunk NCCL_NVLS_CHUNKSIZE = 128 KiB,
 * cut for small sizes by enqueue.cc's rules with concurrentOps = nch x H: NVLS ar_nccl_nvls_chunk (64 KiB
 * below 64 concurrentOps chunks, 32 KiB below 8, 16 KiB below 2); NVLS_TREE: ar_nccl_nvlstree_chunk (at most 64 KiB
 * from 4 nodes, 64 KiB below 4, 32 KiB below 1).
 * CollNet: the ring's channel count (ar_nccl_ring_channels) and 128 KiB chunks halved (down to
 * 32 KiB) while a channel's head gets fewer than 64 of them (a simplification of enqueue.cc's
 * depth-based rule). NVLS's 32 KiB cap where its modelled bandwidth is below 150 GB/s is left out. */
static double nccl_units(const ar_platform *p, ar_switch_variant var, int H, int M, double bytes, int *nch_out,
                         double *chunk_out) {
    int cc = p->gpu_cc > 0 ? p->gpu_cc : 90, nch;
    double chunk = 128.0 * 1024;
    if (var == AR_SW_COLLNET) {
        const char *why;
        nch = ar_nccl_ring_channels(p, &why);
        while (bytes / ((double)nch * H * chunk) < 64 && chunk > 32768) chunk /= 2;
    } else {
        nch = cc >= 100 ? 32 : 16;
        double ops = (double)nch * H;
        chunk = var == AR_SW_NVLS ? ar_nccl_nvls_chunk(bytes, ops) : ar_nccl_nvlstree_chunk(bytes, ops, M);
    }
    *nch_out = nch;
    *chunk_out = chunk;
    double u = ceil(bytes / ((double)nch * H * chunk));
    return u < 1 ? 1 : u;
}

/* Tree height (longest path to the root) of parent array par over M members. */
static int tree_height(const int *par, int M) {
    int h = 0;
    for (int x = 0; x < M; x++) {
        int d = 0;
        for (int y = x; par[y] >= 0 && d <= M; y = par[y]) d++;
        if (d > h) h = d;
    }
    return h;
}

/* NCCL's `units` pipeline steps as K slices of c chunks (K c >= units): see the file comment. */
static void pipeline_split(double units, int *K, int *c) {
    int k = (int)ceil(sqrt(2 * units));
    if (k > units) k = (int)units;
    if (k > 64) k = 64;
    if (k < 1) k = 1;
    int cc = (int)ceil(units / k);
    if (cc > 64) cc = 64;
    *K = k;
    *c = cc < 1 ? 1 : cc;
}

/* nvlstree across nodes: the slices K and every tree's chunks ct that minimise an estimate of the
 * pipelined schedule's time. With K > 1 slices the schedule is four stages (reduce-scatter in the
 * node, reduce up the trees, broadcast down them, all-gather in the node) over K + 3 steps; the
 * steps are barriers per rank, so it costs about K + 1 times its slowest stage plus the first
 * reduce-scatter and the last all-gather (the fill):
 *   T(K, ct) = (K + 1) max(tree, sw) + 2 sw,  sw = max(S/K / nvl, g S/K / R)  (the NVSwitch stages:
 *   every GPU sends its slice up over NVLink at nvl, the switch sums g of them at R),
 *   tree = (h + ct - 1) (lr + f ho) + (ct + (h - 1)/2) 2 f (S/(K H) / 2) / (ct nic)  (one slice up the
 *   trees beside the slice before it coming down: h + ct - 1 rounds, each paying the hop lr (the
 *   route's latency; a receiver's o is pipelined, platform.h msg_piped) and the sender's messages,
 *   f x ho (ho = max(o, g), the time a message holds its side); on the NIC f chunks per direction for
 *   each of the two, f = 2 where each node is inside one tree and a leaf of the other (M > 2), 1 on
 *   two nodes;
 *   ct rounds carry a full load, the h - 1 of the fill about half).
 * K = 1 (only when asked, slices=1): the stages one after the other, the trees' all-reduce one
 * pipeline of 2h + 8 - 1 rounds (8 chunks, the broadcast overlapping the reduce: core/lower.h).
 * NCCL runs the tree as one continuous pipeline whose fill it pays once; here each slice's trees
 * pay their h - 1 rounds of fill and every round its latency. The pick against the best of K in
 * 2..24 and ct in 1..12 by the walk (dgx-h100:nodes=2-16, 64 MiB and 1 GiB): within 3.5 %. */
static void tree_split(double S, int M, int H, int g, int h, double nvl, double R, double nic, double lr, double ho,
                       int kmax, int fix_k, int *K, int *ct) {
    double best = INFINITY, f = M > 2 ? 2 : 1;
    for (int k = fix_k > 0 ? fix_k : kmax > 1 ? 2 : 1; k <= (fix_k > 0 ? fix_k : kmax); k++)
        for (int c = k > 1 ? 1 : 8; c <= (k > 1 ? 64 : 8); c++) {
            double sw = S / k / nvl;
            if (R > 0 && g * S / k / R > sw) sw = g * S / k / R;
            double x = S / ((double)k * H) / 2, t;
            if (k > 1) {
                double tree = (h + c - 1) * (lr + f * ho) + (c + (h - 1) / 2.0) * 2 * f * x / (c * nic);
                t = (k + 1) * (tree > sw ? tree : sw) + 2 * sw;
            } else t = 2 * sw + (2 * h + c - 1) * (lr + f * ho) + (c + h - 1) * 2 * f * x / (c * nic);
            if (t < best * (1 - 1e-12)) {
                best = t;
                *K = k;
                *ct = c;
            }
        }
}

/* Weight of slice i of K with the first and last r ramped (slice_block): i + 1 for the first r, K - i
 * for the last r, r + 1 for the others; *tot their sum. */
static double ramp_w(int K, int r, int i, double *tot) {
    if (tot) *tot = (double)(K - 2 * r) * (r + 1) + (double)r * (r + 1);
    return i < r ? i + 1 : i >= K - r ? K - i : r + 1;
}

/* nvlstree across nodes, the trees staged edge by edge: with K slices, every slice crosses one tree
 * edge per step (a node sends its slice up the tree the step after its children's sums have reached
 * it, and down the step after its parent's), so a slice takes 2h + 2 steps (its reduce-scatter in the
 * node, h up, h down, its all-gather) and the schedule K + 2h + 1: the trees fill once, not once per
 * slice. The steps are barriers, so the schedule costs the sum of its steps, each the larger of
 *   the NVSwitch stages: the reduce-scatter of slice t, max(S_t / nvl, g S_t / R), beside the
 *   all-gather of slice t - 2h - 1, S_t' / nvl (up and down the GPU's NVLink), and
 *   the trees: every edge in flight carries S_s / (2 H) of its slice s (a rail's block, half per
 *   tree); the busiest NIC direction of any node (co: the edges of each stage at each node) sets the
 *   bytes, and that node's sends their per-message holding: lr + sends x ho + bytes / nic
 * (exact where the busiest link stays saturated: tests/cli/cli_nvlstree_edges.sh). Slices of one size
 * leave the fill and drain steps, with the NVSwitch stages of one slice and a few tree levels, partly
 * idle; slices ramped up and down (r, ramp_w) shorten those steps. Picks K in 2..kmax (or fix_k) and r
 * in {0, 2h + 1, (K - 1)/2} (only 0 unless ramp_ok; the smallest slice at least 2 elements per GPU,
 * count / (K (r + 1)) >= 2g) with the least estimate. tt: the trees (parents, heights, depths). */
static void edge_split(double S, uint64_t count, int M, int H, int g, int h, const int *tt, double nvl, double R,
                       double nic, double lr, double ho, int kmax, int fix_k, int ramp_ok, int *K_out, int *r_out) {
    int ns = 2 * h, *co = ar_calloc((size_t)ns * M * 3 + 1, sizeof *co); /* stage, node: out, in, sends */
    *K_out = fix_k > 0 ? fix_k : 2;
    *r_out = 0;
    if (!co) return;
    for (int tr = 0; tr < 2; tr++) {
        const int *tp = tt + 3 * tr * M, *ht = tp + M, *dep = tp + 2 * M;
        for (int c = 0; c < M; c++) {
            int pa = tp[c];
            if (pa < 0) continue;
            int up = ht[pa] - 1, dn = h + dep[pa]; /* the stages (0-based, after the reduce-scatter) */
            if (up >= 0 && up < ns) {
                co[(up * M + c) * 3 + 0]++, co[(up * M + c) * 3 + 2]++;
                co[(up * M + pa) * 3 + 1]++;
            }
            if (dn >= 0 && dn < ns) {
                co[(dn * M + pa) * 3 + 0]++, co[(dn * M + pa) * 3 + 2]++;
                co[(dn * M + c) * 3 + 1]++;
            }
        }
    }
    double best = INFINITY, sw_b = 1 / nvl > (R > 0 ? g / R : 0) ? 1 / nvl : g / R;
    int k0 = fix_k > 0 ? fix_k : 2, k1 = fix_k > 0 ? fix_k : kmax;
    for (int k = k0; k <= k1; k += k < 64 ? 1 : (k + 15) / 16) {
        int rs[3] = {0, 2 * h + 1, (k - 1) / 2};
        for (int ri = 0; ri < (ramp_ok ? 3 : 1); ri++) {
            int r = rs[ri] < (k - 1) / 2 ? rs[ri] : (k - 1) / 2;
            if (ri > 0 && (r == rs[ri - 1] || r <= 0)) continue;
            if (r > 0 && count / ((uint64_t)k * (uint64_t)(r + 1)) < 2 * (uint64_t)g) continue;
            double tot, t = 0;
            ramp_w(k, r, 0, &tot);
            for (int st = 0; st < k + ns + 1; st++) {
                double sw = 0, tree = 0, bmax = 0, smax = 0;
                if (st < k) sw = S * ramp_w(k, r, st, NULL) / tot * sw_b;
                if (st - ns - 1 >= 0 && st - ns - 1 < k) {
                    double ag = S * ramp_w(k, r, st - ns - 1, NULL) / tot / nvl;
                    if (ag > sw) sw = ag;
                }
                for (int m = 0; m < M; m++) {
                    double o = 0, in = 0, sends = 0;
                    for (int u = 0; u < ns; u++) {
                        int sl = st - 1 - u;
                        if (sl < 0 || sl >= k) continue;
                        double x = S * ramp_w(k, r, sl, NULL) / tot / (2.0 * H);
                        o += co[(u * M + m) * 3 + 0] * x;
                        in += co[(u * M + m) * 3 + 1] * x;
                        sends += co[(u * M + m) * 3 + 2];
                    }
                    if (o > bmax) bmax = o;
                    if (in > bmax) bmax = in;
                    if (sends > smax) smax = sends;
                }
                if (bmax > 0) tree = lr + (smax + 1) / 2 * ho + bmax / nic;
                t += tree > sw ? tree : sw;
            }
            if (t < best * (1 - 1e-12)) {
                best = t;
                *K_out = k;
                *r_out = r;
            }
        }
    }
    free(co);
}

/* Slice sl of K over count elements, the first and last r slices ramped (weights 1/(r+1) .. r/(r+1)
 * of a full slice, the others 1; ramp_w), each boundary the element where its cumulative weight
 * falls: the ramp shortens the pipeline's fill and drain steps, whose stages run partly idle.
 * r = 0: ar_coll_block's even split. */
static void slice_block(int K, uint64_t count, int sl, int r, uint64_t *off, uint64_t *len) {
    if (r <= 0 || 2 * r >= K) {
        ar_coll_block(K, count, sl, off, len);
        return;
    }
    double tot, w = 0;
    ramp_w(K, r, 0, &tot);
    for (int i = 0; i < sl; i++) w += ramp_w(K, r, i, NULL);
    uint64_t b0 = (uint64_t)((double)count * (w / tot)),
             b1 = sl + 1 >= K ? count : (uint64_t)((double)count * ((w + ramp_w(K, r, sl, NULL)) / tot));
    *off = b0;
    *len = b1 - b0;
}

/* c chunks, at most one per element of len (>= 1). */
static int chunks_of(int c, uint64_t len) {
    if ((uint64_t)c > len) c = (int)len;
    return c < 1 ? 1 : c;
}

static const char *const vname[] = {"nvls", "nvlstree", "collnet"};

ar_status ar_switch_plan(ar_switch_variant var, const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                         const ar_param_val *v, ar_schedule **out, ar_err *e) {
    const char *name = vname[var];
    ar_status st = ar_classic_check(name, p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int M, one[2];
    const int *first;
    ar_nccl_nodes(p, &M, &first, one);
    int P = p->nranks, g = first[1] - first[0];
    /* proto=auto (nvls 1, nvlstree 3): what NCCL_ALGO=NVLS / NVLS_TREE runs. NCCL's NVLS latency inside
     * the node (tuning.cc, 25 us; 23 us on 2.18), charged once per operation: Simple on the first step's switch ops,
     * so the walk and the simulator charge it once, less the op's own hop (ar_phase_proto_effect);
     * NVLS_TREE across nodes besides runs Simple on its trees, its network step paid in the pipeline's
     * fill (tproto = 2, fill). NVLS across nodes (NCCL runs it with CollNet only): the same latency once,
     * its network latency left to the ring's own hops (NCCL's model adds one net step, tuning.cc).
     * tproto: nvlstree's protocol on the trees (0 none, 1 simple, 2 fill) */
    int autop = (var == AR_SW_NVLS && v[2].i == 1) || (var == AR_SW_NVLSTREE && v[2].i == 3);
    int tproto = var != AR_SW_NVLSTREE ? 0 : autop ? (M > 1 ? 2 : 0) : (int)v[2].i;
    for (int m = 0; m < M; m++)
        if (first[m + 1] - first[m] != g)
            return ar_fail(e, AR_EUNSUPPORTED, "%s: nodes of different sizes on %s (node %d has %d GPUs, node 0 %d)",
                           name, p->name, m, first[m + 1] - first[m], g);
    if (coll != AR_COLL_ALLREDUCE && (var != AR_SW_NVLS || M > 1))
        return ar_fail(e, AR_EUNSUPPORTED, "%s: %s is served on one node by nvls only (%s has %d nodes)", name,
                       ar_coll_name(coll), p->name, M);
    int *tmp = ar_calloc((size_t)P + 1, sizeof *tmp), *nvs = ar_calloc((size_t)M, sizeof *nvs),
        *rail = ar_calloc((size_t)g, sizeof *rail), *par = ar_calloc((size_t)M, sizeof *par);
    ar_schedule *s = NULL;
    int *tt = NULL; /* nvlstree across nodes: the trees (below) */
    /* the NVLS heads: GPU hd[i] of every node carries block i of H across nodes (every GPU, or the
     * GPUs whose NIC is alive on every node once some failed) */
    int *hd = NULL, H = M > 1 ? ar_nccl_heads(p, &hd) : 0, lost = H > 0;
    if (!lost && H == 0 && g > 0) {
        hd = ar_calloc((size_t)g, sizeof *hd);
        for (int j = 0; hd && j < g; j++) hd[j] = j;
        H = g;
    }
    if (!tmp || !nvs || !rail || !par || H < 0 || !hd) goto nomem;
    int have_nvs = 1;
    for (int m = 0; m < M; m++) {
        nvs[m] = g > 1 ? node_switch(p, first, M, m, tmp) : -1;
        if (nvs[m] < 0) have_nvs = 0;
    }
    if (var != AR_SW_COLLNET && !have_nvs) {
        st = ar_fail(e, AR_EUNSUPPORTED,
                     "%s: platform %s has no reducing NVSwitch in every node (declare \"reduce_bw\" on it; presets "
                     "dgx-h100, dgx-b200, gb200-nvl72, aws-p5 do)",
                     name, p->name);
        goto fail;
    }
    if (var == AR_SW_COLLNET) {
        if (M < 2) {
            st = ar_fail(e, AR_EUNSUPPORTED, "%s: platform %s is one node (collnet reduces across nodes)", name,
                         p->name);
            goto fail;
        }
        for (int i = 0; i < H; i++) {
            int j = hd[i];
            for (int m = 0; m < M; m++) tmp[m] = first[m] + j;
            rail[i] = reducer_near(p, first[0] + j, tmp, M, -1);
            if (rail[i] < 0 || rail[i] == nvs[0]) {
                st = ar_fail(e, AR_EUNSUPPORTED,
                             "%s: platform %s has no reducing rail switch for GPU %d of every node (a rail fabric "
                             "with sharp=RATE has)",
                             name, p->name, j);
                goto fail;
            }
        }
    }
    if (M > 1 && (uint64_t)g > count) {
        st = ar_fail(e, AR_EUNSUPPORTED, "%s: %llu elements cannot be split over the %d GPUs of a node", name,
                     (unsigned long long)count, g);
        goto fail;
    }
    s = ar_schedule_new(name, P, count, elem_bytes);
    if (!s) goto nomem;
    s->coll = coll;
    int c0 = (int)v[0].i;
    char hw[160] = "";
    if (lost) ar_nccl_heads_text(hd, H, hw, sizeof hw);
    if (ar_schedule_set_detail(s, "nodes=%d gpus=%d%s%s%s", M, g,
                               M > 1 ? ""
                               : c0  ? " chunks=given"
                                     : " chunks=auto",
                               lost ? ", across nodes block i of the heads' count on GPU heads[i], " : "", hw) != AR_OK)
        goto nomem;
    if (M == 1 && var != AR_SW_COLLNET) { /* one switch op over every rank */
        ar_op_kind k = coll == AR_COLL_ALLREDUCE       ? AR_OP_ALL_REDUCE
                       : coll == AR_COLL_REDUCESCATTER ? AR_OP_REDUCE_SCATTER
                                                       : AR_OP_ALL_GATHER;
        if (ar_sched_phase(s, "%s through %s", ar_op_kind_name(k), p->nodes[nvs[0]].name) < 0) goto nomem;
        for (int j = 0; j < P; j++) tmp[j] = j;
        ar_op *op = ar_sched_op(s, k, AR_IMPL_SWITCH, tmp, P, 0, count);
        if (!op) goto nomem;
        op->sw = nvs[0];
        op->chunks = one_node_chunks(p, g, c0, count, elem_bytes);
        goto done;
    }
    /* Several nodes: three stages, software-pipelined over K slices of the buffer
     * (NCCL pipelines them too): pipeline step t runs stage 0 on slice t, stage 1
     * on slice t-1, stage 2 on slice t-2, on disjoint ranges, K+2 phases.
     *   stage 0: reduce-scatter inside every node (the slice's block j to GPU j)
     *   stage 1: across nodes, per rail j on block j of the slice
     *   stage 2: all-gather inside every node */
    int nch = 0, K, cs; /* slices, and chunks of every switch op */
    double chunk_B = 0, units = nccl_units(p, var, H, M, (double)count * (double)elem_bytes, &nch, &chunk_B);
    pipeline_split(units, &K, &cs);
    if (v[1].i > 0) K = (int)v[1].i;
    if (c0 > 0) cs = c0;
    int ramp = 0;   /* nvlstree edge by edge: the first and last `ramp` slices ramped (edge_split) */
    int ct_est = 0; /* nvlstree, trees per slice: the trees' chunks from tree_split (0: the rule below) */
    int nccl_k = 0; /* nvlstree proto=fill at NCCL's op rate: NCCL's steps as the slices (below) */
    /* nvlstree: the two trees of every rail (parents, subtree heights, depths; tree t at 3 t M) and
     * their height h; edge = the trees staged edge by edge (edge_split), not per slice (tree_split) */
    int th = 0;
    tt = var == AR_SW_NVLSTREE ? ar_calloc((size_t)8 * M + 2, sizeof *tt) : NULL;
    int edge = var == AR_SW_NVLSTREE && M > 2;
    if (var == AR_SW_NVLSTREE) {
        if (!tt) goto nomem;
        for (int tr = 0; tr < 2; tr++) {
            int *tp = tt + 3 * tr * M, *ht = tp + M, *dep = tp + 2 * M;
            for (int x = 0; x < M; x++) tp[x] = ar_nccl_dtree_parent(M, tr, x);
            for (int x = 0; x < M; x++) {
                ht[x] = 0;
                dep[x] = 0;
                for (int y = x; tp[y] >= 0 && dep[x] <= M; y = tp[y]) dep[x]++;
            }
            for (int x = 0; x < M; x++) /* x's depth below each ancestor raises that ancestor's height */
                for (int y = x, d = 0; tp[y] >= 0 && d <= M; y = tp[y]) {
                    d++;
                    if (ht[tp[y]] < d) ht[tp[y]] = d;
                }
            for (int x = 0; x < M; x++)
                if (tp[x] < 0 && ht[x] > th) th = ht[x];
        }
        if (th < 1) th = 1;
    }
    uint64_t kmax = count / (uint64_t)g < 64 ? count / (uint64_t)g : 64;
    if (edge) kmax = count / (uint64_t)g < 1024 ? count / (uint64_t)g : 1024;
    if (var == AR_SW_NVLSTREE && g > 1 && kmax >= 1) {
        int a = first[0] + hd[0], b = first[1] + hd[0], h = th;
        /* lr: the hop's route latency alone (a receiver's o is pipelined on switch schedules: platform.h) */
        double nic = ar_platform_route_bw(p, a, b), nvl = ar_platform_route_bw(p, first[0], first[0] + 1),
               lr = ar_platform_route_lat(p, a, b),
               ho = ar_platform_msg(p, a, b) ? (p->msg_o_s > p->msg_g_s ? p->msg_o_s : p->msg_g_s) : 0;
        /* proto=simple: every transfer across nodes pays NCCL's Simple network step (the proxy's post,
         * the RDMA write and the flush; tuning.cc hwLat[NET][TREE][SIMPLE]) where it exceeds the
         * route's latency (ar_xfer_proto_step), so a round of the trees costs the larger of the two:
         * the estimates below weigh slices and chunks against that, not against the wire alone.
         * proto=fill pays it in the first slice only, a constant the estimates leave out. With either,
         * the schedule is priced without o and g (NCCL's step holds them: ar_platform_msg_for) */
        if (tproto >= 1) ho = 0;
        /* With NCCL's protocols, NVLS_TREE across nodes on Hopper moves every stage at most at NCCL's op
         * rate (models/walk.c bounds every transfer by ar_nccl_nvlstree_fill_bw): the NVSwitch and the
         * NICs no faster in the estimates. proto=fill (auto): NCCL's slices, one chunk of every
         * concurrent op each (nccl_units: K = the steps), so that the schedule's fill and drain are
         * NCCL's model's fill (ar_nccl_pipeline_fill_s), not the estimates' pick of K. */
        double opbw = 0;
        ar_nccl_in nin;
        if (tproto >= 1 && ar_nccl_in_from_platform(p, 0, &nin, NULL) == AR_OK)
            opbw = ar_nccl_nvlstree_fill_bw(&nin, NULL);
        if (opbw > 0 && nvl > opbw) nvl = opbw;
        if (opbw > 0 && nic > opbw) nic = opbw;
        if (opbw > 0 && tproto == 2 && v[1].i <= 0) {
            nccl_k = units > 1024 ? 1024 : (int)units;
            if ((uint64_t)nccl_k > count / (uint64_t)g) nccl_k = (int)(count / (uint64_t)g);
            if (nccl_k < 1) nccl_k = 1;
            K = nccl_k;
            if (kmax < (uint64_t)K) kmax = (uint64_t)K;
        }
        double step_us = 0;
        if (tproto == 1 &&
            ar_nccl_proto_effect_v(p->nccl_version, AR_NCCL_TREE, AR_NCCL_SIMPLE, M, 1, NULL, &step_us, NULL) ==
                AR_OK &&
            step_us * 1e-6 > lr)
            lr = step_us * 1e-6;
        if (nic > 0 && nvl > 0 && isfinite(nic) && isfinite(nvl) && isfinite(lr) && isfinite(ho)) {
            double S = (double)count * (double)elem_bytes, R = p->nodes[nvs[0]].reduce_Bps;
            if (edge && v[1].i != 1 && kmax >= 2) {
                edge_split(S, count, M, H, g, h, tt, nvl, R, nic, lr, ho, (int)kmax, v[1].i > 0 || nccl_k ? K : 0,
                           v[3].i == 0 && !nccl_k, &K, &ramp);
                if (c0 <= 0 && !nccl_k) { /* NCCL's steps over the slices, as chunks of every switch op */
                    double c = ceil(units / K);
                    cs = c > 64 ? 64 : c < 1 ? 1 : (int)c;
                }
            } else if (!edge) {
                int k = K;
                tree_split(S, M, H, g, h, nvl, R, nic, lr, ho, (int)kmax, v[1].i > 0 || nccl_k ? K : 0, &k, &ct_est);
                K = k;
            }
        }
    }
    if ((uint64_t)K * (uint64_t)g > count) K = (int)(count / (uint64_t)g);
    if (K < 1) K = 1;
    /* NCCL's steps as the slices (nccl_k): each in-node stage of NVLS_TREE is two warp groups handing
     * over one step at a time through the NVLS buffer (all_reduce.h: scatter into it, then the multimem
     * reduce; the multicast from the tree, then the gather out of it; ProtoSimple<1, 1>: a step is one
     * chunk), so a slice's switch op pipelines its way up and its way down in two pieces per step */
    if (nccl_k && c0 <= 0) {
        double c = 2 * ceil(units / K);
        cs = c > 64 ? 64 : (int)c;
    }
    /* one slice: the stages one after the other, chunked one per 4 MiB, the ring
     * across in one piece, trees in 8 chunks: the chunks that match rounds only matter where
     * stages share a phase */
    int pipe = K > 1;
    char cw[32];
    if (pipe) snprintf(cw, sizeof cw, "%d%s", cs, c0 > 0 ? "" : " (auto)");
    else snprintf(cw, sizeof cw, "%s", c0 > 0 ? "given" : "auto (one per 4 MiB)");
    if (pipe && edge && v[3].i == 2) /* triangle: ramp_w's r = (K - 1)/2 where the smallest slice allows */
        for (ramp = (K - 1) / 2; ramp > 0 && count / ((uint64_t)K * (uint64_t)(ramp + 1)) < 2 * (uint64_t)g; ramp--) {}
    if (!pipe || 2 * ramp >= K) ramp = 0;
    char tw[96] = "";
    if (pipe && ct_est > 0) snprintf(tw, sizeof tw, " tree chunks=%d (estimate)", ct_est);
    if (pipe && edge) snprintf(tw, sizeof tw, " trees edge by edge (%d steps a slice), ramp=%d", 2 * th + 2, ramp);
    if (var == AR_SW_NVLSTREE && tproto >= 1) {
        size_t l = strlen(tw);
        snprintf(tw + l, sizeof tw - l, tproto == 1 ? " proto=simple across nodes" : " proto=simple in the fill");
    }
    char *det = s->detail;
    s->detail = NULL;
    if (ar_schedule_set_detail(
            s, "%s slices=%d%s chunks=%s (NCCL: %d channels x %d heads x %.0f KiB chunks = %.0f steps)%s",
            det ? det : "", K,
            v[1].i > 0                     ? ""
            : ct_est > 0 || (pipe && edge) ? " (auto: estimate)"
                                           : " (auto)",
            cw, nch, H, chunk_B / 1024, units, tw) != AR_OK) {
        free(det);
        goto nomem;
    }
    free(det);
    static const char *const cross_name[] = {"ring per rail", "double binary tree per rail", "rail switches"};
    /* nvlstree pipelined: the trees' reduce and broadcast are stages of their own, so that in one step
     * slice t + 1 goes up the trees while slice t comes down (NCCL's continuous tree pipeline): four
     * stages, K + 3 steps; otherwise three (a tree op's own broadcast follows its reduce chunk by
     * chunk, core/lower.h) */
    int split = var == AR_SW_NVLSTREE && pipe && !edge, nst = split ? 4 : 3;
    edge = edge && pipe;
    if (edge) nst = 2 * th + 2;
    for (int t = 0; t < K + nst - 1; t++) {
        char lab[4][96], both[400]; /* the stages that run in this step, with their slice */
        snprintf(lab[0], sizeof lab[0], "RS in node (%s)", have_nvs ? "NVSwitch" : "ring");
        if (split) {
            snprintf(lab[1], sizeof lab[1], "reduce up the trees (%s)", cross_name[var]);
            snprintf(lab[2], sizeof lab[2], "broadcast down the trees");
        } else snprintf(lab[1], sizeof lab[1], "AR across nodes (%s)", cross_name[var]);
        snprintf(lab[edge ? 3 : nst - 1], sizeof lab[0], "AG in node (%s)", have_nvs ? "NVSwitch" : "ring");
        size_t at = 0;
        both[0] = 0;
        for (int stage = 0; stage < nst && !edge; stage++) {
            int sl = t - stage;
            if (sl < 0 || sl >= K) continue;
            int w = K > 1 ? snprintf(both + at, sizeof both - at, "%s%s slice %d", at ? "; " : "", lab[stage], sl)
                          : snprintf(both + at, sizeof both - at, "%s%s", at ? "; " : "", lab[stage]);
            if (w > 0 && (size_t)w < sizeof both - at) at += (size_t)w;
        }
        if (edge) { /* RS slice t, the trees slices t - 2h .. t - 1 (up h levels, down h), AG slice t - 2h - 1 */
            int lo = t - 2 * th > 0 ? t - 2 * th : 0, hi = t - 1 < K - 1 ? t - 1 : K - 1;
            at = 0;
            both[0] = 0;
            int w = t < K ? snprintf(both, sizeof both, "RS in node (%s) slice %d", have_nvs ? "NVSwitch" : "ring", t)
                          : 0;
            if (w > 0 && (size_t)w < sizeof both) at += (size_t)w;
            if (lo <= hi) {
                w = snprintf(both + at, sizeof both - at, "%strees edge by edge (%s) slices %d-%d", at ? "; " : "",
                             cross_name[var], lo, hi);
                if (w > 0 && (size_t)w < sizeof both - at) at += (size_t)w;
            }
            if (t - nst + 1 >= 0 && t - nst + 1 < K) {
                w = snprintf(both + at, sizeof both - at, "%sAG in node (%s) slice %d", at ? "; " : "",
                             have_nvs ? "NVSwitch" : "ring", t - nst + 1);
                if (w > 0 && (size_t)w < sizeof both - at) at += (size_t)w;
            }
        }
        if (ar_sched_phase(s, "step %d: %s", t, both) < 0) goto nomem;
        for (int st4 = 0; st4 < nst; st4++) {
            int sl = t - st4;
            if (sl < 0 || sl >= K) continue;
            /* stage: 0 RS, 1 across nodes (tree: down = 0 the reduce or the whole all-reduce, 1 the
             * broadcast), 2 AG */
            int stage = st4 == 0 ? 0 : st4 == nst - 1 ? 2 : 1, down = split && st4 == 2;
            uint64_t so, sn;
            slice_block(K, count, sl, ramp, &so, &sn);
            if (stage != 1 && lost) { /* inside every node, one REDUCE / BROADCAST per head */
                for (int m = 0; m < M; m++)
                    for (int i = 0; i < H; i++) {
                        uint64_t off, len;
                        ar_coll_block(H, sn, i, &off, &len);
                        if (!len) continue;
                        for (int j = 0; j < g; j++) tmp[j] = first[m] + j;
                        ar_op *op = ar_sched_op(s, stage == 0 ? AR_OP_REDUCE : AR_OP_BROADCAST,
                                                have_nvs ? AR_IMPL_SWITCH : AR_IMPL_RING, tmp, g, so + off, len);
                        if (!op) goto nomem;
                        op->root = hd[i];
                        op->sw = have_nvs ? nvs[m] : -1;
                        op->chunks = !have_nvs ? 1 : pipe ? chunks_of(cs, len) : auto_chunks(c0, len, elem_bytes);
                        op->tag = sl;
                    }
                continue;
            }
            if (stage != 1) { /* inside every node */
                for (int m = 0; m < M; m++) {
                    for (int j = 0; j < g; j++) tmp[j] = first[m] + j;
                    ar_op *op = ar_sched_op(s, stage == 0 ? AR_OP_REDUCE_SCATTER : AR_OP_ALL_GATHER,
                                            have_nvs ? AR_IMPL_SWITCH : AR_IMPL_RING, tmp, g, so, sn);
                    if (!op) goto nomem;
                    op->sw = have_nvs ? nvs[m] : -1;
                    /* NCCL's one slice at the op rate (nccl_k = 1): one piece, every member's transfer
                     * whole, so that the bound holds each stage to the op rate (a piece per block would
                     * run g transfers of a member at that bound each) */
                    op->chunks = !have_nvs       ? 1
                                 : pipe          ? chunks_of(cs, sn / (uint64_t)g)
                                 : nccl_k && !c0 ? 1
                                                 : auto_chunks(c0, sn, elem_bytes);
                    op->tag = sl;
                }
                continue;
            }
            for (int i = 0; i < H; i++) { /* across nodes, per rail (head) i on block i of the slice */
                uint64_t off, len;
                ar_coll_block(H, sn, i, &off, &len);
                off += so;
                if (!len) continue;
                for (int m = 0; m < M; m++) tmp[m] = first[m] + hd[i];
                if (var == AR_SW_NVLS || var == AR_SW_COLLNET) {
                    ar_op *op = ar_sched_op(s, AR_OP_ALL_REDUCE, var == AR_SW_NVLS ? AR_IMPL_RING : AR_IMPL_SWITCH, tmp,
                                            M, off, len);
                    if (!op) goto nomem;
                    if (var == AR_SW_COLLNET) {
                        op->sw = rail[i];
                        op->chunks = pipe ? chunks_of(cs, len) : auto_chunks(c0, len, elem_bytes);
                    } else { /* as many rounds as the switch ops beside it (c + 1), at most */
                        int cr = (cs + 1) / (2 * (M - 1));
                        op->chunks = pipe ? chunks_of(cr < 1 ? 1 : cr, len / (uint64_t)M) : 1;
                    }
                    op->tag = sl;
                    continue;
                }
                for (int tr = 0; tr < 2 && edge; tr++) { /* two trees, half of the block each, edge by edge */
                    uint64_t o2, l2;
                    ar_coll_block(2, len, tr, &o2, &l2);
                    if (!l2) continue;
                    /* stage 1 + u (u < h): every node x whose children's sums are due (height(x) - 1 = u)
                     * takes them in one reduce; stage 1 + h + d: every node at depth d sends the sum
                     * down to its children in one broadcast */
                    int u = st4 - 1, dn = u >= th, lvl = dn ? u - th : u;
                    const int *tp = tt + 3 * tr * M, *ht = tp + M, *dep = tp + 2 * M;
                    int *em = tt + 6 * M, *lp = em + M + 1;
                    for (int x = 0; x < M; x++) {
                        if (dn ? dep[x] != lvl : ht[x] - 1 != lvl) continue;
                        int n = 0;
                        em[n] = tmp[x];
                        lp[n++] = -1;
                        for (int y = 0; y < M; y++)
                            if (tp[y] == x) {
                                em[n] = tmp[y];
                                lp[n++] = 0;
                            }
                        if (n < 2) continue;
                        ar_op *op = ar_sched_op(s, dn ? AR_OP_BROADCAST : AR_OP_REDUCE, AR_IMPL_TREE, em, n, off + o2,
                                                l2);
                        if (!op || ar_op_set_parent(op, lp) != AR_OK) goto nomem;
                        op->root = 0;
                        op->chunks = 1;
                        op->tag = sl;
                        if (tproto == 1 || (tproto == 2 && sl == 0)) op->proto = AR_PROTO_SIMPLE;
                    }
                }
                for (int tr = 0; tr < 2 && !edge; tr++) { /* two trees, half of the block each */
                    uint64_t o2, l2;
                    ar_coll_block(2, len, tr, &o2, &l2);
                    if (!l2) continue;
                    int root = 0;
                    for (int x = 0; x < M; x++)
                        if ((par[x] = ar_nccl_dtree_parent(M, tr, x)) < 0) root = x;
                    ar_op *op = ar_sched_op(s,
                                            !split ? AR_OP_ALL_REDUCE
                                            : down ? AR_OP_BROADCAST
                                                   : AR_OP_REDUCE,
                                            AR_IMPL_TREE, tmp, M, off + o2, l2);
                    if (!op || ar_op_set_parent(op, par) != AR_OK) goto nomem;
                    op->root = root;
                    /* reduce up and broadcast down, 2 (height h + chunks - 1) rounds: as many as the
                     * switch ops' c + 1 beside it, and at least 4h chunks, so that the tree's fill
                     * (h - 1 rounds each way, paid in every slice: the phases are barriers) stays
                     * below a fifth of it (dgx-h100:nodes=16, 8 GiB: 61.9 ms with 2h, 55.9 ms) */
                    int h = tree_height(par, M), ct = (cs + 1) / 2 - h + 1;
                    if (ct < 4 * h) ct = 4 * h;
                    if (ct_est > 0) ct = ct_est; /* the estimate's (tree_split) */
                    op->chunks = pipe ? chunks_of(ct < 1 ? 1 : ct, l2) : l2 < 8 ? (int)l2 : 8;
                    op->tag = sl;
                    if (tproto == 1 || (tproto == 2 && sl == 0)) op->proto = AR_PROTO_SIMPLE;
                }
            }
        }
    }
done:
    if (autop) { /* NCCL's NVLS latency once: Simple on the switch ops of the first phase that has any (one per node) */
        int marked = 0;
        for (int ph = 0; ph < s->nphases && !marked; ph++)
            for (int i = 0; i < s->phases[ph].nops; i++)
                if (s->phases[ph].ops[i].impl == AR_IMPL_SWITCH) {
                    s->phases[ph].ops[i].proto = AR_PROTO_SIMPLE;
                    marked = 1;
                }
        double base = 0;
        char *d0 = s->detail;
        s->detail = NULL;
        ar_status ds = marked && ar_nccl_proto_effect_v(p->nccl_version,
                                                        var == AR_SW_NVLS ? AR_NCCL_NVLS : AR_NCCL_NVLS_TREE,
                                                        AR_NCCL_SIMPLE, M, 0, NULL, NULL, &base) == AR_OK
                           ? ar_schedule_set_detail(
                                 s,
                                 "%s proto=auto; NVLS's latency (%.3g us, less the switch op's hop) once, "
                                 "before its first phase",
                                 d0 ? d0 : "", base)
                           : ar_schedule_set_detail(s, "%s proto=auto", d0 ? d0 : "");
        free(d0);
        if (ds != AR_OK) goto nomem;
    }
    free(tt);
    free(tmp);
    free(nvs);
    free(rail);
    free(hd);
    free(par);
    *out = s;
    return AR_OK;
nomem:
    free(tt);
    free(tmp);
    free(nvs);
    free(rail);
    free(hd);
    free(par);
    return ar_classic_nomem(name, s, e);
fail:
    free(tt);
    free(tmp);
    free(nvs);
    free(rail);
    free(hd);
    free(par);
    ar_schedule_free(s);
    return st;
}
