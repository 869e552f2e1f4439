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
 * LL128: step 2 (2 x 1.25 + 8.5) / 7 = 22/7 us above both routes; N = 300 000 B, a chunk 150 000 B,
 *   160 000 B on the wire: b = 16 us, a transfer h = b + 22/7 = 19.142857 us.
 *   Lockstep (--sync round): 7 h + 14 = 22 + 112 + 14 = 148 us.
 *   Dataflow (the walk, LL128 sends one-sidedly: a sender is free after b, the receiver has the
 *   chunk h after the send): chunk 0 climbs and descends the six hops one after another, 6 h; chunk 1
 *   leaves each rank b after chunk 0 and is never held up by it (at depth 1 the down chunk 0 arrives
 *   at 4 h, after chunk 1 went up at 2 h + b): the last arrival at 6 h + b; + 14 base =
 *   6 x 19.142857 + 16 + 14 = 144.857143 us.
 * LL: step 2 (2 x 0.6 + 5) / 7 = 12.4/7 us; N = 40 000 B, a chunk 20 000 B, 76 000 B on the wire:
 *   b = 7.6 us, h = 7.6 + 12.4/7 = 9.371429 us. Lockstep 7 h + 6.8 = 12.4 + 53.2 + 6.8 = 72.4 us;
 *   dataflow 6 h + b + 6.8 = 70.628571 us.
 * (Before, every round paid the mean step of the tree's edges, (2 intra + net) / 3, and a tree op's c
 * chunks each paid it again: LL128 lockstep 7 x (11/3 + 16) + 14 = 151.67 us, LL 7 x (6.2/3 + 7.6)
 * + 6.8 = 74.47 us.) Without a protocol the same tree: every transfer route + b (N = 300 000 B: X = 1 +
 * 15 = 16 us across, I = 15.5 inside); lockstep: rounds 1, 2, 4 and 5 have the crossing hop, 4 X + 3 I
 * = 110.5 us; dataflow (two-sided: a transfer starts when both ends are ready) the same: the
 * second chunk's crossing down ends at 2 I + 4 X, the last hop at 3 I + 4 X. */
#include "core/lower.h"
#include "sim_util.h"

static const char *const plat = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=0.25us";

static void check(const char *what, ar_proto proto, uint64_t bytes, double hand_round, double hand_df) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    ar_schedule *s = NULL;
    if (sim_chain_tree(what, p, proto, bytes, &s)) sim_modes_vs_hand(what, p, s, hand_df, hand_round, 1);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    const double h128 = 16e-6 + 22e-6 / 7, hll = 7.6e-6 + 12.4e-6 / 7;
    check("LL128 tree, 2 chunks", AR_PROTO_LL128, 300000, 7 * h128 + 14e-6, 6 * h128 + 16e-6 + 14e-6);
    check("LL tree, 2 chunks", AR_PROTO_LL, 40000, 7 * hll + 6.8e-6, 6 * hll + 7.6e-6 + 6.8e-6);
    check("no protocol", AR_PROTO_NONE, 300000, 4 * 16e-6 + 3 * 15.5e-6, 4 * 16e-6 + 3 * 15.5e-6);
    return t_done("sim_proto_tree");
}
