/* NCCL's LL and LL128 caps as a bound on each transfer's rate, by hand: two and four channels of an
 * NCCL ring all-gather on two machines of two GPUs, where the channels share links, equal a
 * hand-derived time in the walk, the fast engine (its per-rank engine and with every transfer in
 * SimGrid) and the naive engine, lockstep and dataflow, to 1e-9.
 *
 * The caps (tuning.cc: llMaxBw over all channels, perChMaxRingLL128Bw per channel) are what one
 * channel's thread block copies per second, not a property of the link: a transfer of such an op
 * carries the protocol's wire bytes (bytes / its factor) and its flow never runs faster than NCCL's
 * rate of one channel (ar_nccl_proto_flow_GBps) over the factor, while the links are shared max-min
 * as ever (models/model.h ar_phase_proto_effect). Before, the cap was a smaller factor on every
 * transfer's wire bytes: a flow sharing a fast link with another ran far past its cap.
 *
 * Platforms: machines:gpus=2+2 (GPU - machine switch - root - machine switch - GPU, every link
 * 0.25 us), gpu=h100 (NCCL's Hopper constants, release 2.30). nccl-ring:channels=C: channel c enters
 * each machine at GPU c mod 2: the even channels run the ring 0 1 2 3, the odd ones 1 0 3 2; each op
 * moves its slice in 3 rounds, every rank sending one block to its ring successor a round: intra hops
 * route 0.5 us, crossing hops 1 us. Channel 0's crossing hop 1 -> 2 and channel 1's 0 -> 3 both
 * take m0 -> root (and 3 -> 0, 2 -> 1 root -> m0): the channels share the machines' links.
 *
 * LL128, 2 channels, intra 800 GB/s, inter 400 GB/s: NCCL's ring graph has 40 GB/s a channel; LL128
 * keeps min(0.92 x 40, perChMaxRingLL128Bw 36.7) = 36.7 GB/s a channel (share 0.9175 < 0.92: the cap
 * binds); a transfer's bound is 36.7 / 0.92 GB/s of wire bytes. All-gather of 1 840 000 four-byte
 * elements: a block of 230 000 elements a channel, 920 000 B, 1 000 000 B on the wire. Alone on
 * the links it would take 1e6 / 200e9 = 5 us (two flows on each 400 GB/s link); the bound:
 * 920 000 / 36.7e9 = 25.068119891 us. LL128's ring step: NVLink 1.9 us, network 4.0 us, the mean over
 * the op's hops (half cross) 2.95 us, above every route: a transfer lands 25.068119891 + 2.95 us
 * after its start. Every transfer alike, so lockstep and one-sided dataflow agree: 3 rounds, and
 * the LL128 ring's base latency 14 us once: 3 x 28.018119891 + 14 = 98.054359673 us.
 * (The cap as a factor, as before: 1e6 / 0.9175 wire bytes at 200 GB/s, 5.45 + 2.95 us a round,
 * 39.2 us.)
 *
 * LL, 4 channels, intra 40 GB/s, inter 100 GB/s, links without latency (every transfer of a round
 * joins the sharing at the round's start, so lockstep's rounds share the links evenly; with 0.25 us
 * the intra hops would join 0.5 us before the crossing ones and take more than their share
 * meanwhile, which the lockstep walk does not price): NCCL's graph 20 GB/s a channel; LL keeps
 * min(4 x 20 / 2 = 40, llMaxBw 39) = 39 GB/s over the 4 channels (share 0.4875 < 0.5): 9.75 GB/s a
 * channel, a bound of 19.5 GB/s of wire bytes. Every directed link carries 4 transfers a round (one
 * per channel), so a GPU's 40 GB/s link gives each 10 GB/s, under the bound: here the links bind,
 * not the cap. All-gather of 2 000 000 elements: a block of 125 000 a channel, 500 000 B, 1 000 000 B
 * on the wire (LL's factor 1/2): 100 us, then LL's mean step (NVLink 0.6, network 2.7 us) 1.65 us
 * (no route to take off it):
 * 3 x 101.65 + LL's base 6.6 = 311.55 us. (Before: 500 000 / 0.4875 wire bytes, 102.56 us a round.) */
#include "core/lower.h"
#include "sim_util.h"

/* phase ph's bound on every transfer's rate (ar_phase_proto_effect's *rate_Bps) */
static double phase_rate(const ar_platform *p, const ar_schedule *s, int ph) {
    double f, step, base, rate;
    ar_proto_ctx pc;
    ar_proto_ctx_init(&pc, p, s);
    ar_phase_proto_effect(&pc, ph, &f, &step, &base, &rate);
    return rate;
}

static void check(const char *what, const char *plat, const char *algo, uint64_t count, double rate_Bps, double hand) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "%s: platform %s loads", what, plat);
    if (!p) return;
    if (ar_algo_plan_coll(algo, AR_COLL_ALLGATHER, p, count, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "%s: plan %s: %s", what, algo, e.msg);
        ar_platform_free(p);
        return;
    }
    T_CHECK(s->nphases == 1, "%s: one phase (%d)", what, s->nphases);
    if (s->nphases == 1) {
        /* the derivation's rate bound and the lowering it assumes: 3 rounds of one block to the successor */
        double rate = phase_rate(p, s, 0);
        T_CHECK(sim_rel(rate, rate_Bps) <= 1e-12, "%s: rate bound %.17g, by hand %.17g", what, rate, rate_Bps);
        const ar_phase *ph = &s->phases[0];
        for (int i = 0; i < ph->nops; i++) {
            const ar_op *op = &ph->ops[i];
            T_CHECK(ar_lower_nrounds(op) == 3, "%s: op %d has 3 rounds (%d)", what, i, ar_lower_nrounds(op));
            ar_xfer xf[16];
            for (int r = 0; r < ar_lower_nrounds(op) && ar_lower_max_xfers(op) <= 16; r++) {
                size_t n = ar_lower_round(op, r, xf);
                T_CHECK(n == 4, "%s: op %d round %d has 4 transfers (%zu)", what, i, r, n);
                for (size_t t = 0; t < n; t++)
                    T_CHECK(ar_xfer_elems(&xf[t]) * 4 * (uint64_t)ph->nops == count,
                            "%s: op %d round %d: a block of %llu elements", what, i, r,
                            (unsigned long long)ar_xfer_elems(&xf[t]));
            }
        }
    }
    sim_modes_vs_hand(what, p, s, hand, hand, 0);
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* A tree phase keeps the cap as a factor (no simulation): nccl-tree:proto=ll on dgx-h100:nodes=2, 8
 * channels: NCCL's tree LL keeps min(331.2 / 3.8, llMaxBw 39) = 39 GB/s of Simple's 331.2
 * (tests/unit/test_nccl_model.c), a share 39 / 331.2 below LL's tree factor 1/3.8: the factor is the
 * share, times the tree graph's pattern factor 0.85 (a NIC per H100: NCCL's simple TREE pattern, which
 * 2.26+ price x0.85 on every protocol: 39 x 0.85 / 331.2), and there is no rate bound. The tree schedule's chunk goes hop after hop where LL forwards
 * each line as it lands; a bound on every hop paid the cap once a hop (`nccl` on dgx-h100:nodes=2 at
 * 64 KB: 2.5 x NCCL's model). A ring phase with an op without a protocol has no bound either. */
static void check_tree(void) {
    ar_platform *p = sim_platform("dgx-h100:nodes=2");
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "tree: dgx-h100:nodes=2 loads");
    if (!p) return;
    const char *specs[] = {"nccl-tree:proto=ll,channels=8,chunks=1", "nccl-tree:proto=ll,channels=8,chunks=4"};
    for (int k = 0; k < 2; k++) {
        if (ar_algo_plan_coll(specs[k], AR_COLL_ALLREDUCE, p, 1 << 20, 4, &s, &e) != AR_OK) {
            T_CHECK(0, "tree: plan %s: %s", specs[k], e.msg);
            break;
        }
        T_CHECK(s->nphases == 1 && s->phases[0].nops == 8, "tree %s: one phase of 8 ops", specs[k]);
        double f, step, base;
        ar_proto_ctx pc;
        ar_proto_ctx_init(&pc, p, s);
        ar_phase_proto_effect(&pc, 0, &f, &step, &base, NULL);
        T_CHECK(sim_rel(f, 39.0 * 0.85 / 331.2) <= 1e-12, "tree %s: factor %.17g, by hand 39 x 0.85 / 331.2", specs[k],
                f);
        T_CHECK(phase_rate(p, s, 0) == 0, "tree %s: no rate bound", specs[k]);
        ar_schedule_free(s);
        s = NULL;
    }
    if (ar_algo_plan_coll("nccl-ring:proto=ll,channels=8", AR_COLL_ALLGATHER, p, 1 << 20, 4, &s, &e) == AR_OK) {
        T_CHECK(phase_rate(p, s, 0) > 0, "ring LL on 8 channels: a rate bound");
        s->phases[0].ops[1].proto = AR_PROTO_NONE;
        T_CHECK(phase_rate(p, s, 0) == 0, "ring LL with an op without a protocol: no bound");
    } else {
        T_CHECK(0, "ring: plan: %s", e.msg);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* NCCL's LL128 tree on two nodes at the channels' copy rate (ar_phase_proto_effect): the chain tree of
 * sim_proto_tree.c (members n0.g1 (root) <- n0.g0 <- n1.g0 <- n1.g1, depth 3, 2 chunks, 7 rounds) with
 * LL128 on machines:gpus=2+2,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100 (routes 0.5 us inside a
 * machine, 1 us across). NCCL's tree graph has 40 GB/s a channel (as its ring's above); one channel: the
 * tree's bus bandwidth min(40 x 0.92, perChMaxTreeBw) x LL128's 120/128 = 34.5 GB/s (the LL128 cap does
 * not bind), the algorithm bandwidth half of it, 17.25 GB/s: the rate at which the channel's thread
 * block streams the slice through the tree. Spread over the schedule's 7 rounds for its 2 chunks, each
 * transfer moves at most 17.25 x 7 / 2 = 60.375 GB/s of data, 60.375 / 0.9375 = 64.4 GB/s of wire bytes
 * (two such flows on a link at most: the links never bind). N = 2 415 000 B, a chunk 1 207 500 B:
 * b = 1 207 500 / 60.375e9 = 20 us. The step, as in sim_proto_tree.c: 2 (2 x 1.25 + 8.5) / 7 = 22/7 us,
 * above both routes: h = 20 + 22/7 = 23.142857 us. Lockstep 7 h + 14 (the base) = 176 us; dataflow
 * (LL128 one-sided, sim_proto_tree.c's argument: 2 h + b < 4 h) 6 h + b + 14 = 172.857143 us. (Before:
 * no bound, each chunk at the links' rate, 2 576 000 / 2 wire bytes on 400-800 GB/s links: b below
 * 3.3 us.) For the LL tree, no bound.
 *
 * On three machines, NCCL's wiring: machines:gpus=1+1+1,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100
 * (rank x is node x's one GPU, a route across 1 us), nccl-tree:proto=ll128,channels=2,heads=pair,chunks=2
 * over 870 000 four-byte elements: one pair, op 0 on tree 0 (node 0 the root <- 2 <- 1), op 1 on tree 1
 * (1 <- 0 <- 2), both headed at each node's one GPU: one search channel for the two. NCCL's tree graph
 * has 10 channels of 40 GB/s; over one channel on three nodes (bwInter) the tree's bus bandwidth is
 * min(40 x 0.92, perChMaxTreeBw 36.0) = 36 GB/s, with LL128 min(36 x 120/128 = 33.75, perChMaxTreeLL128Bw
 * 29.0) = 29 GB/s, x 0.85 for the simple TREE pattern (one GPU a node) = 24.65 GB/s, the algorithm
 * bandwidth 12.325 GB/s: the two ops share it, 6.1625 GB/s each. An op is a chain of depth 2 in 2 chunks,
 * 2 x 2 + 2 - 1 = 5 rounds: each transfer moves at most 6.1625 x 5/2 = 15.40625 GB/s of data, / 0.9375 =
 * 16.4333 GB/s of wire bytes (at most four such flows on a link of 400 GB/s or more: the links never
 * bind). A chunk 217 500 elements, 870 000 B (928 000 on the wire, whole bytes as the simulator sends
 * them): b = 870 000 / 15.40625e9 = 56.470588 us. The step: two network hops each way on the deepest
 * member's path, 2 (8.5 + 8.5) / 5 = 6.8 us, above the 1 us routes: h = b + 6.8 us = 63.270588 us.
 * Lockstep 5 h + 14 = 330.35294 us; dataflow (the argument of sim_proto_tree.c on a chain of depth 2:
 * chunk 0 up and down four hops, 4 h, chunk 1 b behind it and never held up) 4 h + b + 14 = 323.55294 us.
 * (Before:
 * no bound on more than two nodes, each chunk at the links' rate, 928 000 wire bytes at 400 GB/s: b
 * below 2.4 us.)
 * Two GPUs a node (machines:gpus=2+2+2, the same graph): channels=2 with heads=pair shares one head and one
 * search channel, 7.25 GB/s an op; each op a chain of depth 3 (head, head, the last node's second GPU), 2
 * chunks, 7 rounds: a bound of 7.25 x 7/2 / 0.9375 GB/s. With heads=rail the ops head at GPUs 0 and 1,
 * one head a channel on three nodes: no bound. */
static void check_tree_ll128(void) {
    const char *plat = "machines:gpus=2+2,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100";
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    T_CHECK(p != NULL, "tree LL128: %s loads", plat);
    if (!p) return;
    if (sim_chain_tree("tree LL128", p, AR_PROTO_LL128, 2415000, &s)) {
        T_CHECK(sim_rel(phase_rate(p, s, 0), 17.25e9 * 7 / 2 / 0.9375) <= 1e-12,
                "tree LL128: bound %.17g, by hand %.17g", phase_rate(p, s, 0), 17.25e9 * 7 / 2 / 0.9375);
        const double h = 20e-6 + 22e-6 / 7;
        sim_modes_vs_hand("tree LL128, 2 chunks", p, s, 6 * h + 20e-6 + 14e-6, 7 * h + 14e-6, 1);
        s->phases[0].ops[0].proto = AR_PROTO_LL;
        T_CHECK(phase_rate(p, s, 0) == 0, "tree LL: no bound");
    }
    ar_schedule_free(s);
    s = NULL;
    ar_platform_free(p);
    p = sim_platform("machines:gpus=1+1+1,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100");
    ar_err e = {{0}};
    T_CHECK(p != NULL, "tree LL128: three machines load");
    if (p && ar_algo_plan_coll("nccl-tree:proto=ll128,channels=2,heads=pair,chunks=2", AR_COLL_ALLREDUCE, p, 870000, 4,
                               &s, &e) == AR_OK) {
        T_CHECK(s->nphases == 1 && s->phases[0].nops == 2 && ar_lower_nrounds(&s->phases[0].ops[0]) == 5 &&
                    ar_lower_nrounds(&s->phases[0].ops[1]) == 5,
                "tree LL128 on three machines: two ops of 5 rounds");
        const double bound = 6.1625e9 * 5 / 2 / 0.9375, b = 870000 / (6.1625e9 * 5 / 2), h = b + 6.8e-6;
        T_CHECK(sim_rel(phase_rate(p, s, 0), bound) <= 1e-12,
                "tree LL128 on three machines: bound %.17g, by hand %.17g", phase_rate(p, s, 0), bound);
        sim_modes_vs_hand("tree LL128, 3 machines, a pair", p, s, 4 * h + b + 14e-6, 5 * h + 14e-6, 1);
    } else {
        T_CHECK(0, "tree LL128 on three machines: plan: %s", e.msg);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
    p = sim_platform("machines:gpus=2+2+2,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100");
    T_CHECK(p != NULL, "tree LL128: three machines of two GPUs load");
    for (int pair = 0; p && pair < 2; pair++) {
        s = NULL;
        const char *spec = pair ? "nccl-tree:proto=ll128,channels=2,heads=pair,chunks=2"
                                : "nccl-tree:proto=ll128,channels=2,heads=rail,chunks=2";
        double want = pair ? 7.25e9 * 7 / 2 / 0.9375 : 0;
        if (ar_algo_plan_coll(spec, AR_COLL_ALLREDUCE, p, 870000, 4, &s, &e) == AR_OK)
            T_CHECK(ar_lower_nrounds(&s->phases[0].ops[0]) == 7 &&
                        (pair ? sim_rel(phase_rate(p, s, 0), want) <= 1e-12 : phase_rate(p, s, 0) == 0),
                    "%s: bound %.17g, by hand %.17g", spec, phase_rate(p, s, 0), want);
        else T_CHECK(0, "%s: plan: %s", spec, e.msg);
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

/* NVLS_TREE across nodes on Hopper with NCCL's protocols (nvlstree:proto=auto, what the `nccl` pick runs):
 * NCCL's op pipeline moves every stage at the ops' share of the tuner's NVLS_TREE bandwidth, so every
 * transfer of the schedule is bounded by that bandwidth, 461.6 x 16/30 = 246.18667 GB/s on
 * dgx-h100:nodes=2 (tests/unit/test_nccl_model.c test_nvlstree_fill), and the slices are NCCL's: one
 * chunk of each of the 16 x 8 concurrent ops each, 64 MiB / (128 x 128 KiB) = 4 slices, 4 + 3 steps
 * (reduce-scatter, up the trees, down, all-gather), and 1 GiB: 64 slices, 67 steps; 16 MiB: NCCL's chunk
 * is 64 KiB there, 16 MiB / (128 x 64 KiB) = 2 slices, 5 steps. proto=none (no NCCL protocol): no bound.
 * The walk and both engines in every mode agree to 1e-9 on 16 and 64 MiB (177.529 and 435.927 us).
 *
 * By hand, 16 MiB: NVLS's latency less the switch op's hop, 25 - 0.6 = 24.4 us, before step 0. Every
 * switch op (the reduce-scatter's, the all-gather's) runs its slice of one NCCL step in 2 pieces (the two
 * warp groups of each stage inside the node: scatter then reduce, multicast then gather), 3 rounds of
 * half pieces per block, each round after its hop's 0.3 us. The reduce-scatter: rounds 0 and 1 send
 * every GPU's 4 MiB into the switch, which reduces 8 x 4 MiB at its 2240 GB/s (each GPU's 8 transfers
 * of 512 KiB at most B each, 4 MiB / 370.8 GB/s on its NVLink: both faster), round 1 beside the first
 * 512 KiB coming back to each GPU at B, round 2 the second:
 * 2 (33554432 / 2240e9 + 0.3 us) + 524288 / B + 0.3 us = 32.988851 us (steps 0 and 1; in step 1 the
 * trees' transfers run beside it on the network and end first). The all-gather: round 0 every GPU's
 * 512 KiB up at B, rounds 1 and 2 the 8 blocks' 512 KiB down to every GPU on its NVLink (each transfer
 * below B): 524288 / B + 0.3 us + 2 (4194304 / 370.8e9 + 0.3 us) = 25.652593 us (steps 3 and 4; in step 3
 * beside the trees' last broadcast, which ends first). (In one piece, the switch ops' 9 MiB at B:
 * 9437184 / B + 0.6 us = 38.933461 us a step.) */
static void check_nvlstree(void) {
    ar_platform *p = sim_platform("dgx-h100:nodes=2");
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "nvlstree: dgx-h100:nodes=2 loads");
    if (!p) return;
    const double B = 461.6 * 16 / 30 * 1e9;
    const uint64_t counts[] = {4u << 20, 16u << 20, 256u << 20};
    const int steps[] = {5, 7, 67};
    const double rs_step = 2 * (33554432 / 2240e9 + 0.3e-6) + 524288 / B + 0.3e-6, /* by hand (above) */
        ag_step = 524288 / B + 0.3e-6 + 2 * (4194304 / 370.8e9 + 0.3e-6), base = 24.4e-6;
    for (int k = 0; k < 3; k++) {
        if (ar_algo_plan_coll("nvlstree:proto=auto", AR_COLL_ALLREDUCE, p, counts[k], 4, &s, &e) != AR_OK) {
            T_CHECK(0, "nvlstree: plan: %s", e.msg);
            break;
        }
        T_CHECK(s->nphases == steps[k], "nvlstree %llu elements: %d steps (%d)", (unsigned long long)counts[k],
                steps[k], s->nphases);
        int nsw = 0; /* every switch op in 2 pieces per NCCL step, one step a slice */
        for (int ph = 0; ph < s->nphases; ph++) {
            T_CHECK(sim_rel(phase_rate(p, s, ph), B) <= 1e-12, "nvlstree step %d: bound %.17g, by hand %.17g", ph,
                    phase_rate(p, s, ph), B);
            for (int i = 0; i < s->phases[ph].nops; i++)
                if (s->phases[ph].ops[i].impl == AR_IMPL_SWITCH) {
                    nsw++;
                    T_CHECK(s->phases[ph].ops[i].chunks == 2, "nvlstree step %d op %d: %d chunks, by hand 2", ph, i,
                            s->phases[ph].ops[i].chunks);
                }
        }
        T_CHECK(nsw == 4 * (steps[k] - 3), "nvlstree: %d switch ops, by hand %d", nsw, 4 * (steps[k] - 3));
        if (k < 2) { /* the walk against every engine and mode */
            ar_model_result m;
            T_CHECK(ar_model_walk(p, s, &m, &e) == AR_OK, "nvlstree: walk: %s", e.msg);
            for (size_t md = 0; md < SIM_NMODES; md++) {
                ar_sim_result r;
                ar_status st = sim_run_mode(p, s, &sim_modes[md], 0, &r, &e);
                T_CHECK(st == AR_OK && r.complete, "nvlstree (%s): %s", sim_modes[md].name, e.msg);
                if (st == AR_OK)
                    T_CHECK(sim_rel(r.time_s, m.time_s) <= 1e-9, "nvlstree %llu elements (%s): sim %.17g, walk %.17g",
                            (unsigned long long)counts[k], sim_modes[md].name, r.time_s, m.time_s);
                /* 16 MiB: the switch steps 0, 1, 3 and 4 by hand */
                T_CHECK(k > 0 || (st == AR_OK && r.nphases == 5 && r.phase_end_s), "nvlstree 16 MiB (%s): 5 phase ends",
                        sim_modes[md].name);
                for (int ph = 0; k == 0 && st == AR_OK && r.nphases == 5 && r.phase_end_s && ph < 5; ph++) {
                    if (ph == 2) continue; /* the trees' step */
                    double d = r.phase_end_s[ph] - (ph ? r.phase_end_s[ph - 1] : base), h = ph < 2 ? rs_step : ag_step;
                    T_CHECK(sim_rel(d, h) <= 1e-9, "nvlstree 16 MiB (%s): step %d %.17g s, by hand %.17g",
                            sim_modes[md].name, ph, d, h);
                }
                ar_sim_result_free(&r);
            }
        }
        ar_schedule_free(s);
        s = NULL;
    }
    if (ar_algo_plan_coll("nvlstree", AR_COLL_ALLREDUCE, p, 16u << 20, 4, &s, &e) == AR_OK) {
        for (int ph = 0; ph < s->nphases; ph++)
            T_CHECK(phase_rate(p, s, ph) == 0, "nvlstree proto=none step %d: no bound", ph);
    } else {
        T_CHECK(0, "nvlstree proto=none: plan: %s", e.msg);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* NVLS all-reduce on one H100 node with NCCL's protocols (nvls:proto=auto, the `nccl` pick): every transfer
 * at most at the ops' bandwidth together, 8 heads x bwIntra 40 GB/s = 320 GB/s (ops = 16 CTAs x 8 heads =
 * 128, each at 40e9 / 16 = 2.5e9 B/s: NCCL's model's fill rate). The switch op's chunks are NCCL's steps:
 * 64 MiB: chunk 64 KiB (below 64 x 128 x 128 KiB = 1 GiB, not below 8 x 128 x 64 KiB = 64 MiB), 64 MiB /
 * (128 x 64 KiB) = 8 steps; 1 GiB: 128 KiB, 1 GiB / (128 x 128 KiB) = 64 steps. Without protocols, and on a
 * Blackwell node (NCCL's model's fill there is its own bound), no bound. */
static void check_nvls_one_node(void) {
    ar_platform *p = sim_platform("dgx-h100");
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "nvls: dgx-h100 loads");
    if (!p) return;
    const uint64_t counts[] = {16u << 20, 256u << 20};
    const int steps[] = {8, 64};
    for (int k = 0; k < 2; k++) {
        if (ar_algo_plan_coll("nvls:proto=auto", AR_COLL_ALLREDUCE, p, counts[k], 4, &s, &e) != AR_OK) {
            T_CHECK(0, "nvls: plan: %s", e.msg);
            break;
        }
        T_CHECK(s->nphases == 1 && s->phases[0].nops == 1 && s->phases[0].ops[0].chunks == steps[k],
                "nvls %llu elements: one switch op of %d chunks", (unsigned long long)counts[k], steps[k]);
        T_CHECK(sim_rel(phase_rate(p, s, 0), 320e9) <= 1e-12, "nvls: bound %.17g, by hand 320e9", phase_rate(p, s, 0));
        if (k == 0) { /* the walk against every engine and mode; 9 rounds of 8 MiB at 320 GB/s at least */
            ar_model_result m;
            T_CHECK(ar_model_walk(p, s, &m, &e) == AR_OK, "nvls: walk: %s", e.msg);
            T_CHECK(m.time_s >= 9 * 8 * 1048576 / 320e9, "nvls: walk %.17g below 9 rounds at the bound", m.time_s);
            for (size_t md = 0; md < SIM_NMODES; md++) {
                ar_sim_result r;
                ar_status st = sim_run_mode(p, s, &sim_modes[md], 0, &r, &e);
                T_CHECK(st == AR_OK && r.complete, "nvls (%s): %s", sim_modes[md].name, e.msg);
                if (st == AR_OK)
                    T_CHECK(sim_rel(r.time_s, m.time_s) <= 1e-9, "nvls (%s): sim %.17g, walk %.17g", sim_modes[md].name,
                            r.time_s, m.time_s);
                ar_sim_result_free(&r);
            }
        }
        ar_schedule_free(s);
        s = NULL;
    }
    if (ar_algo_plan_coll("nvls", AR_COLL_ALLREDUCE, p, 16u << 20, 4, &s, &e) == AR_OK)
        T_CHECK(phase_rate(p, s, 0) == 0, "nvls proto=none: no bound");
    else T_CHECK(0, "nvls proto=none: plan: %s", e.msg);
    ar_schedule_free(s);
    s = NULL;
    ar_platform_free(p);
    p = sim_platform("dgx-b200");
    T_CHECK(p != NULL, "nvls: dgx-b200 loads");
    if (p && ar_algo_plan_coll("nvls:proto=auto", AR_COLL_ALLREDUCE, p, 16u << 20, 4, &s, &e) == AR_OK)
        T_CHECK(phase_rate(p, s, 0) == 0, "nvls on Blackwell: no bound");
    else T_CHECK(0, "nvls on dgx-b200: plan: %s", e.msg);
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* One protocol context for a whole NVLS_TREE schedule (ar_proto_ctx_init, as every evaluator fills it
 * before its phase loop) prices each of its steps as the per-phase terms say, by hand:
 * dgx-h100:nodes=2, nvlstree:proto=auto at 16 MiB (check_nvlstree: 5 steps; steps 1-3 hold the trees
 * across the nodes): every step bounded at B = 461.6 x 16/30 GB/s; NVLS's latency less the switch op's
 * hop, 24.4 us, in step 0 only, the trees' own base in steps 1-3 not charged again (one NCCL operation);
 * no NVLS_TREE factor on Hopper: every step's factor 1 (Simple). dgx-b200:nodes=2 at 4 MiB (its steps:
 * switch ops alone first and last, the trees across the nodes in every step between): NCCL's NVLS_TREE
 * correction on Blackwell (Simple, log2(4 MiB / 64) = 16: 0.7) as the factor of the steps between, 1 in
 * the first and the last; the same 24.4 us in step 0 only; no bound (NCCL's fill rate is Hopper's). */
static void check_ctx_nvlstree(void) {
    const char *plat[] = {"dgx-h100:nodes=2", "dgx-b200:nodes=2"};
    const uint64_t counts[] = {4u << 20, 1u << 20};
    for (int k = 0; k < 2; k++) {
        ar_platform *p = sim_platform(plat[k]);
        ar_schedule *s = NULL;
        ar_err e = {{0}};
        T_CHECK(p != NULL, "context: %s loads", plat[k]);
        if (!p) continue;
        if (ar_algo_plan_coll("nvlstree:proto=auto", AR_COLL_ALLREDUCE, p, counts[k], 4, &s, &e) != AR_OK) {
            T_CHECK(0, "context %s: plan: %s", plat[k], e.msg);
            ar_platform_free(p);
            continue;
        }
        int n = s->nphases;
        T_CHECK(k ? n >= 3 : n == 5, "context %s: %s steps (%d)", plat[k], k ? "3 or more" : "5", n);
        ar_proto_ctx pc;
        ar_proto_ctx_init(&pc, p, s);
        for (int ph = 0; ph < n; ph++) {
            double f, step, base, rate;
            ar_phase_proto_effect(&pc, ph, &f, &step, &base, &rate);
            double hf = k == 1 && ph > 0 && ph < n - 1 ? 0.7 : 1.0, hb = ph == 0 ? 24.4e-6 : 0,
                   hr = k == 0 ? 461.6e9 * 16 / 30 : 0;
            T_CHECK(sim_rel(f, hf) <= 1e-12, "context %s step %d: factor %.17g, by hand %g", plat[k], ph, f, hf);
            T_CHECK(hb ? sim_rel(base, hb) <= 1e-12 : base == 0, "context %s step %d: base %.17g s, by hand %g",
                    plat[k], ph, base, hb);
            T_CHECK(hr ? sim_rel(rate, hr) <= 1e-12 : rate == 0, "context %s step %d: bound %.17g, by hand %.17g",
                    plat[k], ph, rate, hr);
        }
        ar_schedule_free(s);
        ar_platform_free(p);
    }
}

int main(void) {
    check_tree();
    check_tree_ll128();
    check_nvlstree();
    check_ctx_nvlstree();
    check_nvls_one_node();
    check("LL128 cap binds, 2 channels", "machines:gpus=2+2,intra=800GBps,inter=400GBps,lat=0.25us,gpu=h100",
          "nccl-ring:proto=ll128,channels=2", 1840000, 36.7e9 / 0.92, 3 * (920000 / 36.7e9 + 2.95e-6) + 14e-6);
    check("LL links bind, 4 channels", "machines:gpus=2+2,intra=40GBps,inter=100GBps,lat=0us,gpu=h100",
          "nccl-ring:proto=ll,channels=4", 2000000, 9.75e9 / 0.5, 3 * (100e-6 + 1.65e-6) + 6.6e-6);
    return t_done("sim_proto_rate");
}
