/* NCCL's protocol step priced per transfer, by hand: the walk and both simulator engines in every
 * mode equal a hand-derived time to 1e-9.
 *
 * An op with a protocol has NCCL's step along its path: its hops within a machine at NCCL's NVLink
 * step, those across machines at its network step, averaged over the op's hops (NCCL sums them along
 * its pipeline). Each of its transfers pays, after its network part, that step less its own route
 * latency, never below 0: the message takes max(route latency, step) + bytes / bandwidth. A lockstep
 * round takes its slowest transfer. The base latency is paid once.
 * NCCL 2.30's ring constants (src/graph/tuning.cc, the platform's default release): NVLink step LL
 * 0.6, Simple 3.4 us; network step LL 2.7, Simple 14 us; base LL 6.6, Simple 8.4 us; bandwidth
 * factor LL 0.5, Simple 1.
 *
 * The ring (all-reduce, 2(P-1) = 6 rounds of one block per rank, members 0 1 2 3) on two machines of
 * two GPUs (machines:gpus=2+2: GPU - machine switch - root - machine switch - GPU; a link's latency
 * lat): hops 0->1 and 2->3 stay in a machine (2 links), 1->2 and 3->0 cross (4 links): half the hops
 * cross. Full duplex: no two transfers of a round share a directed link. N = 1 MB, a block 250 KB.
 *
 * A: lat = 0.25 us, 10 GB/s everywhere, Simple: step (3.4 + 14) / 2 = 8.7 us above both routes
 *    (0.5, 1 us): every transfer 8.7 + 25 us; 6 x 33.7 + 8.4 = 210.6 us.
 * B: lat = 0.5 us, intra 10 GB/s, inter 1.25 GB/s, LL (500 KB on the wire per block): step
 *    (0.6 + 2.7) / 2 = 1.65 us; intra max(1, 1.65) + 50 = 51.65 us, across max(2, 1.65) + 400 = 402
 *    us (its route is slower than the step: no step); lockstep (--sync round) 6 x 402 + 6.6 = 2418.6
 *    us. Under --sync dataflow (and the walk) LL sends one-sidedly (ar_op_async): a
 *    sender is free once its bytes are out (intra 50, across 400 us), the receiver has them a flight,
 *    max(route latency, step), later (intra 1.65, across 2 us). Rank 1 sends across: T1(r + 1) =
 *    max(T1(r) + 400, T0(r) + 51.65) = 400 (r + 1); rank 2 receives its last block of round 5 at
 *    T1(5) + 402 = 2402 us, the last arrival: 2402 + 6.6 = 2408.6 us. A is Simple: two-sided in
 *    every mode (models/model.h ar_op_async).
 * (Before, every round paid the slowest transfer plus one excess, the step less the MEAN hop of the
 * op: A 6 x (26 + 7.95) + 8.4 = 212.1, B 6 x (402 + 0.15) + 6.6 = 2419.5 us.)
 * Without a protocol the same ring does not move: A 6 x (1 + 25) = 156 us, B 6 x (2 + 200) = 1212
 * us. (The naive engine measures time only: no --check there.) */
#include "sim_util.h"

static const char *const plat_a = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=0.25us";
static const char *const plat_b = "machines:gpus=2+2,intra=10GBps,inter=1.25GBps,lat=0.5us";

/* hand: lockstep (--sync round); hand_df: --sync dataflow and the walk (one-sided sends) */
static void check(const char *what, const char *plat, ar_proto proto, double hand, double hand_df) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[1] != p->machine_of_rank[2],
            "%s: two machines of two GPUs", what);
    if (ar_algo_plan("ring", p, 250000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "%s: plan ring: %s", what, e.msg);
        ar_platform_free(p);
        return;
    }
    int nops = 0;
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++, nops++) s->phases[ph].ops[i].proto = proto;
    T_CHECK(nops > 0, "%s: the ring has ops", what);
    sim_modes_vs_hand(what, p, s, hand_df, hand, 1);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    check("A: Simple, lat 0.25 us", plat_a, AR_PROTO_SIMPLE, 6 * 33.7e-6 + 8.4e-6, 6 * 33.7e-6 + 8.4e-6);
    check("B: LL, slow network", plat_b, AR_PROTO_LL, 6 * 402e-6 + 6.6e-6, 2402e-6 + 6.6e-6);
    /* ops without a protocol do not move */
    check("A: no protocol", plat_a, AR_PROTO_NONE, 6 * 26e-6, 6 * 26e-6);
    check("B: no protocol", plat_b, AR_PROTO_NONE, 6 * 202e-6, 6 * 202e-6);
    return t_done("sim_proto_step");
}
