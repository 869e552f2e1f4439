/* NCCL's protocol step on a pipelined tree all-reduce, by hand: the walk and both simulator engines
 * in every mode equal a hand-derived time to 1e-9.
 *
 * NCCL's tree latency is the sum of its steps along the tree's depth, each way (tuning.cc: 2 x
 * ((ppn - 1) NVLink steps + log2(nodes) network steps)), paid once by the head of the stream: the
 * chunks behind it follow at the pipeline's rate. A tree op with a protocol therefore has, per
 * round, that sum along the path of its deepest member (hops inside a machine at the intra step,
 * across at the network step, up and down) over its rounds (2 depth + chunks - 1); each transfer
 * pays that step less its own route latency, never below 0: max(route latency, step) + bytes /
 * bandwidth. The base latency is paid once.
 * NCCL 2.30's TREE constants (src/graph/tuning.cc, the platform's default release): NVLink step LL
 * 0.6, LL128 1.25 us; network step LL 5.0, LL128 8.5 us; base LL 6.8, LL128 14 us; bandwidth factor
 * LL 1/3.8, LL128 across nodes 120/128.
 *
 * The tree: one all-reduce op, a chain from the root, members n0.g1 (root) <- n0.g0 <- n1.g0 <-
 * n1.g1 (ranks 1, 0, 2, 3) on machines:gpus=2+2 (GPU - machine switch - root - machine switch -
 * GPU, every link 10 GB/s and 0.25 us: a route inside a machine 0.5 us, across 1 us); depth 3, one
 * hop across: the path's sum 2 x (2 intra + 1 net). With c = 2 chunks, 7 rounds: up, the member at
 * depth d sends chunk j in round 3 - d + j; down, its parent sends it chunk j in round d + 2 + j; no
 * two transfers of a round share a directed link, nor do two transfers overlap on one in time
 * under dataflow (checked by hand below: each link's up and down use are rounds apart).
 *
 * NCCL's model multiplies the tree's bandwidth by its size correction (tuning.cc treeCorrectionFactor
 * by log2(bytes / 64) of the all-reduce, ar_nccl_tree_corr_v), and so does the phase of tree ops across
 * machines with a protocol (walk.c tree_phase_corr): LL128 at 288 000 B (log 12) 0.6, LL at 35 000 B
 * (log 9) 0.7. (The sizes make every transfer's wire bytes whole: the simulator rounds them.)
 * LL128: step 2 (2 x 1.25 + 8.5) / 7 = 22/7 us above both routes; N = 288 000 B, a chunk 144 000 B,
 *   144 000 x 128/120 / 0.6 = 256 000 B on the wire: b = 25.6 us, a transfer h = b + 22/7 =
 *   28.742857 us.
 *   Lockstep (--sync round): 7 h + 14 = 22 + 179.2 + 14 = 215.2 us.
 *   Dataflow (the walk, LL128 sends one-sidedly: a sender is free after b, the receiver has the
 *   chunk h after the send): chunk 0 climbs and descends the six hops one after another, 6 h; chunk 1
 *   leaves each rank b after chunk 0 and is never held up by it (at depth 1 the down chunk 0 arrives
 *   at 4 h, after chunk 1 went up at 2 h + b): the last arrival at 6 h + b; + 14 base =
 *   6 x 28.742857 + 25.6 + 14 = 212.057143 us.
 * LL: step 2 (2 x 0.6 + 5) / 7 = 12.4/7 us; N = 35 000 B, a chunk 17 500 B, 17 500 x 3.8 / 0.7 =
 *   95 000 B on the wire: b = 9.5 us, h = 9.5 + 12.4/7 = 11.271429 us. Lockstep 7 h + 6.8 = 12.4 +
 *   66.5 + 6.8 = 85.7 us; dataflow 6 h + b + 6.8 = 83.928571 us.
 * (Without the size correction: LL128 b = 15.36 us, lockstep 7 x (15.36 + 22/7) + 14 = 143.52 us; LL
 *   b = 6.65 us, lockstep 7 x (6.65 + 12.4/7) + 6.8 = 65.75 us.)
 * (Before, every round paid the mean step of the tree's edges, (2 intra + net) / 3, and a tree op's c
 * chunks each paid it again: LL128 lockstep 7 x (11/3 + 25.6) + 14 = 218.87 us, LL 7 x (6.2/3 + 9.5)
 * + 6.8 = 87.77 us.) Without a protocol the same tree: every transfer route + b (N = 300 000 B: X = 1 +
 * 15 = 16 us across, I = 15.5 inside); lockstep: rounds 1, 2, 4 and 5 have the crossing hop, 4 X + 3 I
 * = 110.5 us; dataflow (two-sided: a transfer starts when both ends are ready) the same: the
 * second chunk's crossing down ends at 2 I + 4 X, the last hop at 3 I + 4 X. */
#include "core/lower.h"
#include "models/nccl_model.h"
#include "sim_util.h"

static const char *const plat = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=0.25us";

static void check(const char *what, ar_proto proto, uint64_t bytes, double hand_round, double hand_df) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[0] == p->machine_of_rank[1] &&
                p->machine_of_rank[1] != p->machine_of_rank[2] && p->machine_of_rank[2] == p->machine_of_rank[3],
            "%s: two machines of two GPUs", what);
    ar_schedule *s = ar_schedule_new("tree-chain", 4, bytes / 4, 4);
    const int members[4] = {1, 0, 2, 3}, parent[4] = {-1, 0, 1, 2};
    ar_op *op = s && ar_sched_phase(s, "tree") >= 0
                    ? ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_TREE, members, 4, 0, bytes / 4)
                    : NULL;
    T_CHECK(op != NULL && ar_op_set_parent(op, parent) == AR_OK, "%s: the tree op is built", what);
    if (op) {
        op->chunks = 2;
        op->proto = proto;
        T_CHECK(ar_lower_nrounds(op) == 7, "%s: 2 x depth 3 + 2 chunks - 1 = 7 rounds (got %d)", what,
                ar_lower_nrounds(op));
        sim_modes_vs_hand(what, p, s, hand_df, hand_round, 1);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    /* the correction itself, against tuning.cc's table (row per protocol, by log2(bytes / 64)) */
    double c128 = ar_nccl_tree_corr_v(0, AR_NCCL_ALLREDUCE, AR_NCCL_LL128, 288000),
           cll = ar_nccl_tree_corr_v(0, AR_NCCL_ALLREDUCE, AR_NCCL_LL, 35000),
           c4m = ar_nccl_tree_corr_v(0, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 4194304),
           c512 = ar_nccl_tree_corr_v(0, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 536870912),
           cag = ar_nccl_tree_corr_v(0, AR_NCCL_ALLGATHER, AR_NCCL_SIMPLE, 4194304),
           cag218 = ar_nccl_tree_corr_v(21806, AR_NCCL_ALLGATHER, AR_NCCL_SIMPLE, 4194304);
    T_CHECK(c128 == 0.6 && cll == 0.7 && c4m == 0.7 && c512 == 1.0 && cag == 1.0 && cag218 == 0.7,
            "TREE correction: LL128 288 KB %g (0.6), LL 35 KB %g (0.7), Simple 4 MiB %g (0.7), 512 MiB %g (1), "
            "all-gather %g (1), all-gather on 2.18 %g (0.7)",
            c128, cll, c4m, c512, cag, cag218);
    const double h128 = 25.6e-6 + 22e-6 / 7, hll = 9.5e-6 + 12.4e-6 / 7;
    check("LL128 tree, 2 chunks", AR_PROTO_LL128, 288000, 7 * h128 + 14e-6, 6 * h128 + 25.6e-6 + 14e-6);
    check("LL tree, 2 chunks", AR_PROTO_LL, 35000, 7 * hll + 6.8e-6, 6 * hll + 9.5e-6 + 6.8e-6);
    check("no protocol", AR_PROTO_NONE, 300000, 4 * 16e-6 + 3 * 15.5e-6, 4 * 16e-6 + 3 * 15.5e-6);
    return t_done("sim_proto_tree");
}
