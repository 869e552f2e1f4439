/* A pipelined LL / LL128 tree all-reduce on hops slower than NCCL's steps, by hand: the walk and both
 * simulator engines in every mode equal a hand-derived time to 1e-9.
 *
 * NCCL's sender posts its next step as soon as a FIFO slot is free (NCCL_STEPS slots a connection),
 * so a stream of chunks pays each hop's latency once, at its head, while its bytes fit the FIFO (no
 * slot waits for its credit): LL 8 x 512 x 8 lines of 16 B = 524 288 B, LL128 8 x 640 x 120 words of 8 B =
 * 4 915 200 B on the wire. NCCL's model prices a hop at its step plus what the hop's own latency has
 * beyond the hop its tables were measured on (2 us, models/nccl_model.c hw_step). Under --sync
 * dataflow such a one-sided tree op's transfers fly max(their route latency up to that 2 us, the op's
 * stream flight) (ar_op_stream_flight, ar_xfer_flight): the op's step (ar_op_proto_step: NCCL's steps
 * along its deepest member's way to the root, up and down, over its rounds) plus, over its rounds, the
 * route latency beyond 2 us along the same way, paid once by the head. Lockstep rounds (--sync round)
 * end when their data has landed: every round pays its route latency, max(route latency, step) +
 * bytes / bandwidth.
 * NCCL 2.30's TREE constants (src/graph/tuning.cc, the platform's default release): NVLink step LL
 * 0.6, LL128 1.25 us; network step LL 5.0, LL128 8.5 us; base LL 6.8, LL128 14 us; bandwidth factor
 * LL 1/3.8, LL128 across nodes 120/128.
 *
 * The tree: one all-reduce op, a chain from the root, members n0.g1 (root) <- n0.g0 <- n1.g0 <-
 * n1.g1 (ranks 1, 0, 2, 3) on machines:gpus=2+2 (GPU - machine switch - root - machine switch - GPU,
 * every link 10 GB/s and 5 us: a route inside a machine 10 us, across 20 us); depth 3, one hop across.
 * With c = 2 chunks, 7 rounds: up, the member at depth d sends chunk j in round 3 - d + j; down, its
 * parent sends it chunk j in round d + 2 + j; rounds 1, 2, 4 and 5 hold the crossing hop.
 *
 * LL128, N = 300 000 B (a chunk 150 000 B, 160 000 B on the wire: b = 16 us; 320 000 B < 4 915 200):
 *   the step 2 (2 x 1.25 + 8.5) / 7 = 22/7 us, the latency beyond 2 us up and down 2 x (8 + 18 + 8) =
 *   68 us: the stream flight (22 + 68) / 7 = 90/7 us (above 2 us), a transfer h = b + 90/7 us.
 *   Dataflow (a sender is free after b, the receiver has the chunk h after the send): chunk 0 climbs
 *   and descends the six hops, 6 h; chunk 1 follows b behind at every hop (rank 0 sends chunk 1 up at
 *   2 h + b and chunk 0 down at 4 h >= 2 h + 2 b: its up-link is free; the root sends chunk 1 down at
 *   3 h + b, when it has it), the last arrival 6 h + b; + 14 base: 6 x 16 + 540/7 + 16 + 14 =
 *   203.142857 us (each transfer paying its route latency, chunk 0's chain flies 10 + 20 + 10 + 10 +
 *   20 + 10 = 80 us instead of 6 x 90/7: 6 x 16 + 80 + 30 = 206 us).
 *   Lockstep: each round its slowest transfer, route latency + b (the step share 22/7 us is below
 *   both routes): 4 x (20 + 16) + 3 x (10 + 16) + 14 = 236 us.
 * LL, N = 40 000 B (a chunk 20 000 B, 76 000 B on the wire: b = 7.6 us; 76 000 B < 524 288):
 *   the step 2 (2 x 0.6 + 5) / 7 = 12.4/7 us, the stream flight (12.4 + 68) / 7 = 80.4/7 us: h = 7.6 +
 *   80.4/7 us; dataflow 6 h + b + 6.8 = 45.6 + 482.4/7 + 14.4 = 128.914286 us (each transfer paying
 *   its route: 6 x 7.6 + 80 + 14.4 = 140 us); lockstep 4 x (20 + 7.6) + 3 x (10 + 7.6) + 6.8 = 170 us.
 * LL, N = 300 000 B (a chunk 150 000 B, 570 000 B on the wire > 524 288: the stream outruns the FIFO,
 *   each transfer flies max(route latency, step), the step share 12.4/7 us below both routes):
 *   b = 57 us, h = 67 us inside, 77 us across. Dataflow, as above with the hops' own h: chunk 0's
 *   chain 4 x 67 + 2 x 77 = 422 us; chunk 1 b behind (rank 0 sends it up at 201 us, chunk 0 down at
 *   278 us >= 258: its up-link is free): 422 + 57 + 6.8 = 485.8 us; lockstep 4 x (20 + 57) +
 *   3 x (10 + 57) + 6.8 = 515.8 us.
 * LL128, N = 6 000 000 B (a chunk 3 000 000 B, 3 200 000 B on the wire: b = 320 us; 6 400 000 B > 4 915 200:
 *   past the FIFO, a stream of NCCL's steps, ar_op_stream_paced): each transfer flies the stream flight
 *   alone, 90/7 us as above, below both routes (each round paying its route instead: 10 + 20 + 10 + 10 +
 *   20 + 10 = 80 us for chunk 0's chain, 6 x 320 + 80 + 320 + 14 = 2334 us): h = 320 + 90/7 us,
 *   dataflow as the 2-chunk LL128 stream (rank 0 sends chunk 0 down at 4 h >= 2 h + 2 b; every member's
 *   ingress carries one chunk at a time), 6 h + b + 14 = 2254 + 540/7 = 2331.142857 us; lockstep as
 *   before, 4 x (20 + 320) + 3 x (10 + 320) + 14 = 2364 us. */
#include "sim_util.h"

static const char *const plat = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=5us";

static void check(const char *what, ar_proto proto, uint64_t bytes, double hand_round, double hand_df, int streams) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    T_CHECK(sim_rel(ar_platform_route_lat(p, 0, 1), 10e-6) <= 1e-12 &&
                sim_rel(ar_platform_route_lat(p, 0, 2), 20e-6) <= 1e-12,
            "%s: routes 10 us inside a machine, 20 us across", what);
    ar_schedule *s = NULL;
    if (sim_chain_tree(what, p, proto, bytes, &s)) {
        T_CHECK(ar_schedule_streams(p, s) == streams, "%s: the op %s NCCL's FIFO", what,
                streams ? "streams within" : "outruns");
        sim_modes_vs_hand(what, p, s, hand_df, hand_round, 1);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    const double h128 = 16e-6 + 90e-6 / 7, hll = 7.6e-6 + 80.4e-6 / 7;
    check("LL128 stream, 2 chunks", AR_PROTO_LL128, 300000, 4 * 36e-6 + 3 * 26e-6 + 14e-6, 6 * h128 + 16e-6 + 14e-6, 1);
    check("LL stream, 2 chunks", AR_PROTO_LL, 40000, 4 * 27.6e-6 + 3 * 17.6e-6 + 6.8e-6, 6 * hll + 7.6e-6 + 6.8e-6, 1);
    check("LL beyond the FIFO", AR_PROTO_LL, 300000, 4 * 77e-6 + 3 * 67e-6 + 6.8e-6, 422e-6 + 57e-6 + 6.8e-6, 0);
    const double hp = 320e-6 + 90e-6 / 7;
    check("LL128 past the FIFO, paced", AR_PROTO_LL128, 6000000, 4 * 340e-6 + 3 * 330e-6 + 14e-6,
          6 * hp + 320e-6 + 14e-6, 1);
    return t_done("sim_proto_stream");
}
