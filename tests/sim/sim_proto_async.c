/* NCCL's LL and LL128 protocols send one-sidedly under --sync dataflow, by hand: a ring all-gather
 * whose crossing hops are slower equals a hand-derived time in the walk, the fast engine (its
 * per-rank engine, and with every transfer in SimGrid) and the naive engine to 1e-9; lockstep
 * (--sync round), Simple and ops without a protocol keep their two-sided rounds.
 *
 * Semantics (models/model.h ar_op_async): a sender starts a transfer of round r when it is at round
 * r (the receiver posts nothing: NCCL writes into the receiver's FIFO) and is free for round r + 1
 * once its bytes are out; the receiver has the data a flight later, max(route latency, step), where
 * the step is the op's NCCL step (ar_op_proto_step). A rank does round r + 1 when its sends of round
 * r are out and its receives of round r have arrived. So along the ring the flights add up along the
 * chain a block travels, instead of each round waiting for its slowest transfer's flight.
 *
 * Platform: two machines of two GPUs (machines:gpus=2+2: GPU - machine switch - root - machine
 * switch - GPU, every link 0.25 us), GPU links 10 GB/s, machine-root links `inter`. The ring
 * all-gather (members 0 1 2 3, P - 1 = 3 rounds; in round r rank k sends the block it got in round
 * r - 1, 10 KB, to k + 1): hops 0->1 and 2->3 inside a machine (route 0.5 us), 1->2 and 3->0 across
 * (route 1 us). No two transfers share a directed link (full duplex), whatever their rounds.
 * NCCL 2.30's ring (src/graph/tuning.cc, the platform's default release): LL: NVLink step 0.6 us,
 * network step 2.7 us, base 6.6 us, bandwidth factor 0.5 (20 KB on the wire); Simple: 3.4, 14, 8.4 us,
 * factor 1. The op's step is the mean over its hops, half of them across: LL 1.65 us, Simple 8.7 us,
 * above both routes: every flight is the step.
 *
 * LL, inter 5 GB/s: bytes intra 2 us, across 4 us.
 *   out (sender free)   intra 2 us, across 4 us
 *   arrival             intra 2 + 1.65 = 3.65 us, across 4 + 1.65 = 5.65 us
 * T_k(r): when rank k may do round r (T(0) = 0; the base latency is added at the end):
 *   T_k(r + 1) = max(T_k(r) + out(k -> k + 1), T_{k-1}(r) + arrival(k - 1 -> k)).
 *   r = 1: T0 = max(2, 5.65) = 5.65   T1 = max(4, 3.65) = 4   T2 = 5.65   T3 = 4
 *   r = 2: T0 = max(7.65, 4 + 5.65) = 9.65   T1 = max(8, 5.65 + 3.65) = 9.3   T2 = 9.65   T3 = 9.3
 *   r = 3: T0 = max(11.65, 9.3 + 5.65) = 14.95   T1 = max(13.3, 9.65 + 3.65) = 13.3   T2 = 14.95   T3 = 13.3
 * The last arrival is 14.95 us, the base latency once: 21.55 us. It is the chain of the block rank 1
 * sends in round 0 to rank 0: 5.65 (1 -> 2) + 3.65 (2 -> 3) + 5.65 (3 -> 0) = 14.95 us, the hops'
 * bytes and flights summed along the chain. Lockstep (--sync round), and the two-sided dataflow that
 * ran before (a transfer started when both ends were at its round, both ends free at its arrival):
 * every round waits for its slowest transfer, 5.65 us: 3 x 5.65 + 6.6 = 23.55 us.
 * LL, inter 10 GB/s (even hops): every transfer out at 2 us, arrived at 3.65 us; the senders' chain
 * (2 us a round) is faster than the arrivals' (3.65 us): 3 x 3.65 + 6.6 = 17.55 us, as lockstep.
 * Simple, inter 1.25 GB/s: two-sided in every mode (its steps wait for the receiver's credit): intra
 * 1 us of bytes + 8.7 = 9.7 us, across 8 + 8.7 = 16.7 us: 3 x 16.7 + 8.4 = 58.5 us.
 * Without a protocol: no step, no base; two-sided rounds of max(intra 1.5, across 9) = 9 us: 27 us in
 * every mode. */
#include "core/lower.h"
#include "sim_util.h"

static const char *const plat_slow = "machines:gpus=2+2,intra=10GBps,inter=1.25GBps,lat=0.25us";
static const char *const plat_mid = "machines:gpus=2+2,intra=10GBps,inter=5GBps,lat=0.25us";
static const char *const plat_even = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=0.25us";

static void check(const char *what, const char *plat, ar_proto proto, double hand_round, double hand_df) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[1] != p->machine_of_rank[2] &&
                p->machine_of_rank[0] == p->machine_of_rank[1],
            "%s: two machines of two GPUs", what);
    /* 4 blocks of 2500 four-byte elements: 10 KB a block */
    if (ar_algo_plan_coll("ring", AR_COLL_ALLGATHER, p, 10000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "%s: plan ring all-gather: %s", what, e.msg);
        ar_platform_free(p);
        return;
    }
    int nops = 0;
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++, nops++) s->phases[ph].ops[i].proto = proto;
    T_CHECK(nops == 1, "%s: the ring is one op (%d)", what, nops);
    /* the lowering the derivation assumes: 3 rounds, in each rank k sends 10 KB to k + 1 */
    if (nops == 1) {
        const ar_op *op = &s->phases[0].ops[0];
        T_CHECK(ar_lower_nrounds(op) == 3, "%s: 3 rounds (%d)", what, ar_lower_nrounds(op));
        ar_xfer xf[16];
        for (int r = 0; r < ar_lower_nrounds(op) && ar_lower_max_xfers(op) <= 16; r++) {
            size_t n = ar_lower_round(op, r, xf);
            T_CHECK(n == 4, "%s: round %d has 4 transfers (%zu)", what, r, n);
            for (size_t t = 0; t < n; t++)
                T_CHECK(xf[t].dst == (xf[t].src + 1) % 4 && ar_xfer_elems(&xf[t]) == 2500,
                        "%s: round %d: %d -> %d, %llu elements", what, r, xf[t].src, xf[t].dst,
                        (unsigned long long)ar_xfer_elems(&xf[t]));
        }
    }
    sim_modes_vs_hand(what, p, s, hand_df, hand_round, 0);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    check("slower crossing, LL", plat_mid, AR_PROTO_LL, 3 * 5.65e-6 + 6.6e-6, 14.95e-6 + 6.6e-6);
    check("even hops, LL", plat_even, AR_PROTO_LL, 3 * 3.65e-6 + 6.6e-6, 3 * 3.65e-6 + 6.6e-6);
    check("slow crossing, Simple", plat_slow, AR_PROTO_SIMPLE, 3 * 16.7e-6 + 8.4e-6, 3 * 16.7e-6 + 8.4e-6);
    check("slow crossing, no protocol", plat_slow, AR_PROTO_NONE, 27e-6, 27e-6);
    return t_done("sim_proto_async");
}
