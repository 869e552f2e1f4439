/* NCCL's cost model (models/nccl_model.c) against values worked out by hand from
 * NCCL 2.30.7's tuning formulas (src/graph/tuning.cc) and topology search
 * (src/graph/search.cc). Each case writes its derivation; the expected value is
 * the hand formula itself, asserted to 1e-9 relative.
 *
 * Notation: bus = nChannels x per-channel bw (GB/s), then the protocol
 * refinements; bw = bus x ratio (ring/NVLS: nranks/nsteps; tree: 0.5);
 * time_us = lat_us + bytes / (1000 x bw). nsteps = 2(n-1) all-reduce, n-1 RS/AG.
 */
#include <string.h>

#include "core/platform/platform.h"
#include "algos/nccl_algos.h"
#include "models/nccl_model.h"
#include "../t.h"

#define REL 1e-9
#define GiB 1073741824.0
#define MiB 1048576.0
#define KiB 1024.0

static ar_nccl_graph gr(int nch, double intra, double inter) {
    ar_nccl_graph g = {nch, intra, inter, 0.0, 1, 1};
    return g;
}

/* 8 x H100 on one node, as ar_nccl_in_from_platform derives it for dgx-h100
 * (see test_from_platform): ring = tree = 12 ch x 30 GB/s, NVLS 8 ch, intra 40, inter 60. */
static ar_nccl_in h100_1node(void) {
    ar_nccl_in in;
    ar_nccl_in_defaults(&in, 90, 8, 1);
    in.ring = in.tree = gr(12, 30, 30);
    in.nvls = gr(8, 40, 60);
    in.nvswitch = 1;
    in.nvls_support = 1;
    in.tuner_only = 1; /* the tuner's own formulas; test_pipeline_fill checks arlab's addition */
    return in;
}

/* 8 x A100 on one node: ring = tree = 12 ch x 20 GB/s, no NVLS. */
static ar_nccl_in a100_1node(void) {
    ar_nccl_in in;
    ar_nccl_in_defaults(&in, 80, 8, 1);
    in.ring = in.tree = gr(12, 20, 20);
    in.nvswitch = 1;
    return in;
}

/* 2 (or 4) nodes x 8 H100, one 400 Gb/s NIC per GPU: ring = tree = 8 ch x 48 GB/s,
 * NVLS graph 8 ch x 40 GB/s. */
static ar_nccl_in h100_nodes(int nnodes) {
    ar_nccl_in in;
    ar_nccl_in_defaults(&in, 90, 8 * nnodes, nnodes);
    in.ring = in.tree = gr(8, 48, 48);
    in.nvls = gr(8, 40, 40);
    in.nvswitch = 1;
    in.nvls_support = 1;
    return in;
}

static double tm(const ar_nccl_in *in, ar_nccl_coll c, ar_nccl_algo a, ar_nccl_proto p, double bytes) {
    double t = -1;
    ar_err e = {{0}};
    ar_status st = ar_nccl_model_time(in, c, a, p, bytes, &t, &e);
    T_CHECK(st == AR_OK, "time %s %s/%s %.0f: %s", ar_nccl_coll_name(c), ar_nccl_algo_name(a), ar_nccl_proto_name(p),
            bytes, e.msg);
    return t;
}

static void near_us(const ar_nccl_in *in, ar_nccl_coll c, ar_nccl_algo a, ar_nccl_proto p, double bytes, double want_us,
                    const char *what) {
    T_NEAR(tm(in, c, a, p, bytes), want_us * 1e-6, REL, what);
}

static void choice(const ar_nccl_in *in, ar_nccl_coll c, double bytes, ar_nccl_algo wa, ar_nccl_proto wp,
                   double want_us, const char *what) {
    ar_nccl_algo a = AR_NCCL_NALGOS;
    ar_nccl_proto p = AR_NCCL_NPROTOS;
    double t = -1;
    ar_err e = {{0}};
    ar_status st = ar_nccl_model_choose(in, c, -1, bytes, &a, &p, &t, &e);
    T_CHECK(st == AR_OK && a == wa && p == wp, "%s: chose %s/%s (want %s/%s): %s", what, ar_nccl_algo_name(a),
            ar_nccl_proto_name(p), ar_nccl_algo_name(wa), ar_nccl_proto_name(wp), e.msg);
    T_NEAR(t, want_us * 1e-6, REL, what);
}

static void unsupported(const ar_nccl_in *in, ar_nccl_coll c, ar_nccl_algo a, ar_nccl_proto p, const char *what) {
    double t = 0;
    ar_err e = {{0}};
    ar_status st = ar_nccl_model_time(in, c, a, p, GiB, &t, &e);
    T_CHECK(st == AR_EUNSUPPORTED && e.msg[0], "%s: got status %d (%s)", what, (int)st, e.msg);
}

static void test_h100_one_node(void) {
    ar_nccl_in in = h100_1node();
    /* All-reduce, 8 ranks: nsteps = 14, ring/NVLS ratio 8/14. Hopper row, 1 node:
     * llMaxBw = 141.0, perChMaxRingLL128 = 36.7, perChMaxTree = 38.7, perChMaxTreeLL128 = 36.7.
     * Latency class NVLINK (one node).
     *
     * RING LL:     bus = min(141, 12*30*0.5 = 180) = 141;          lat = 6.6 + 14*0.6 = 15.0 us
     * RING LL128:  bus = min(360*0.92 = 331.2, 12*36.7 = 440.4) = 331.2; lat = 14.0 + 14*1.9 = 40.6 us
     * RING SIMPLE: bus = 12*30 = 360;                               lat = 8.4 + 14*3.4 = 56.0 us
     * 1 GiB, ring LL128: 40.6 + 2^30 / (1000 * 331.2*8/14) = 40.6 + 5673.5 us = 5714.1 us. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, GiB, 15.0 + GiB / (1000.0 * 141.0 * 8 / 14),
            "h100 ring LL");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, GiB, 40.6 + GiB / (1000.0 * 331.2 * 8 / 14),
            "h100 ring LL128 1GiB");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, 56.0 + GiB / (1000.0 * 360.0 * 8 / 14),
            "h100 ring simple 1GiB");
    /* TREE (all-reduce): bus = 12*30 = 360 -> min(360*0.92 = 331.2, 12*38.7 = 464.4) = 331.2;
     *   LL: min(331.2/3.8, 141) = 87.1578..; LL128: min(331.2*7/9 = 257.6, 12*36.7) = 257.6; SIMPLE 331.2;
     *   ratio 0.5. lat = base + 2*(7*intraLat + log2(1)*interLat):
     *   LL 6.8 + 14*0.6 = 15.2; LL128 14 + 14*1.25 = 31.5; SIMPLE 8.4 + 14*4.0 = 64.4 us.
     * 1 GiB: log2(2^30 >> 6) = 24 >= 23: no correction factor. 1 MiB: log2(2^14) = 14: factors
     *   LL 0.5, LL128 0.6, SIMPLE 0.5 (treeCorrectionFactor[p][14]). */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB, 64.4 + GiB / (1000.0 * 331.2 * 0.5),
            "h100 tree simple 1GiB");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, GiB, 31.5 + GiB / (1000.0 * 257.6 * 0.5),
            "h100 tree LL128 1GiB");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL, MiB, 15.2 + MiB / (1000.0 * 331.2 / 3.8 * 0.5 * 0.5),
            "h100 tree LL 1MiB (x0.5 correction)");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, MiB, 64.4 + MiB / (1000.0 * 331.2 * 0.5 * 0.5),
            "h100 tree simple 1MiB (x0.5 correction)");
    /* NVLS: intraBw = 40 * 0.85 (Hopper) * 7/8 = 29.75, x2 for all-reduce = 59.5; interBw = 60;
     *   bw = min(59.5, 60) = 59.5; bus = 8 * 59.5 = 476 GB/s; algbw = 476*8/14 = 272;
     *   lat = NVLINK NVLS Simple = 25 us (replaces the base).
     * 1 GiB: 25 + 2^30/272000 = 25 + 3947.58 = 3972.58 us -> busbw 2^30/3972.58us*14/8 = 473.0 GB/s. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000.0 * 476.0 * 8 / 14),
            "h100 nvls 1GiB");
    /* Reduce-scatter, NVLS: intraBw = 29.75 x (ppn-1)/ppn = 26.03125; bus = 8 x 26.03125 = 208.25, kept as
     * is (no bus->alg ratio for non-ring RS/AG); lat 25 us. Ring RS Simple: bus 360 x 8/7, lat 8.4 + 7*3.4. */
    near_us(&in, AR_NCCL_REDUCESCATTER, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000.0 * 208.25),
            "h100 nvls reduce-scatter");
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, 32.2 + GiB / (1000.0 * 360.0 * 8 / 7),
            "h100 ring all-gather");
    /* Choices (min over enabled): 1 KiB: ring LL 15.0 + 1024/80571 = 15.0127 beats tree LL
     *   (15.2 + ..) and NVLS (25.0..). 1 MiB: ring LL 15 + 2^20/80571.4 = 28.014 < NVLS 25 + 2^20/272000
     *   = 28.855. 1 GiB: NVLS 3972.58 < ring Simple 56 + 5219.6. */
    choice(&in, AR_NCCL_ALLREDUCE, KiB, AR_NCCL_RING, AR_NCCL_LL, 15.0 + KiB / (1000.0 * 141.0 * 8 / 14), "h100 1KiB");
    choice(&in, AR_NCCL_ALLREDUCE, MiB, AR_NCCL_RING, AR_NCCL_LL, 15.0 + MiB / (1000.0 * 141.0 * 8 / 14), "h100 1MiB");
    choice(&in, AR_NCCL_ALLREDUCE, GiB, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 25.0 + GiB / (1000.0 * 476.0 * 8 / 14),
           "h100 1GiB");
    /* Reduce-scatter at 1 GiB: ring Simple 8.4+7*3.4 + 2^30/(411.43e3) beats NVLS (208.25 GB/s). */
    choice(&in, AR_NCCL_REDUCESCATTER, GiB, AR_NCCL_RING, AR_NCCL_SIMPLE, 32.2 + GiB / (1000.0 * 360.0 * 8 / 7),
           "h100 RS 1GiB");
    /* NCCL_ALGO=RING forced at 8 GB: Simple; busbw = 8e9 / (56 + 8e9/205714.3 us) x 14/8 = 359.5 GB/s. */
    ar_nccl_algo a;
    ar_nccl_proto p;
    double t;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, 8e9, &a, &p, &t, &t_e));
    T_CHECK(a == AR_NCCL_RING && p == AR_NCCL_SIMPLE, "forced ring: %d/%d", (int)a, (int)p);
    T_NEAR(ar_nccl_busbw(AR_NCCL_ALLREDUCE, 8, ar_nccl_algbw(8e9, t)),
           8e9 / ((56.0 + 8e9 / (1000.0 * 360.0 * 8 / 14)) * 1e-6) * 14 / 8, REL, "forced ring busbw");
    /* Disabled: NVLS with LL/LL128, NVLS_TREE on one node, PAT (8 ranks on one node), tree RS,
     * CollNet without a plugin. */
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_LL128, "nvls LL128");
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, "nvls tree on one node");
    unsupported(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, "pat with 8 GPUs per node");
    unsupported(&in, AR_NCCL_REDUCESCATTER, AR_NCCL_TREE, AR_NCCL_SIMPLE, "tree reduce-scatter");
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_COLLNET_DIRECT, AR_NCCL_SIMPLE, "collnet without plugin");
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_PAT, AR_NCCL_SIMPLE, "pat all-reduce");
}

static void test_a100_one_node(void) {
    ar_nccl_in in = a100_1node();
    /* Ampere row, 1 node: llMaxBw 87.7, perChMaxRingLL128 20. Ring 12 ch x 20:
     *   LL: min(87.7, 120) = 87.7 -> algbw 87.7*8/14 = 50.114; lat 15.0
     *   LL128: min(240*0.92 = 220.8, 12*20 = 240) = 220.8 -> 126.171; lat 40.6
     *   SIMPLE: 240 -> 137.143; lat 56.0
     * Crossovers: LL = LL128 at x(1/50114.3 - 1/126171.4) = 25.6 us -> x = 2.13 MB;
     *   LL128 = Simple at x(1/126171.4 - 1/137142.9) = 15.4 us -> x = 24.3 MB.
     * Tree is slower at every size here (bus 220.8 x 0.5 and the correction factors).
     * NVLS: none on Ampere (no graph). */
    choice(&in, AR_NCCL_ALLREDUCE, MiB, AR_NCCL_RING, AR_NCCL_LL, 15.0 + MiB / (1000.0 * 87.7 * 8 / 14), "a100 1MiB");
    choice(&in, AR_NCCL_ALLREDUCE, 8 * MiB, AR_NCCL_RING, AR_NCCL_LL128, 40.6 + 8 * MiB / (1000.0 * 220.8 * 8 / 14),
           "a100 8MiB");
    choice(&in, AR_NCCL_ALLREDUCE, GiB, AR_NCCL_RING, AR_NCCL_SIMPLE, 56.0 + GiB / (1000.0 * 240.0 * 8 / 14),
           "a100 1GiB");
    /* Tree LL128 at 8 MiB: bus min(220.8*7/9 = 171.733, 240) x 0.5, x0.9 (log2(2^17) = 17: factor[LL128][17]);
     * lat 31.5. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, 8 * MiB,
            31.5 + 8 * MiB / (1000.0 * 220.8 * 7 / 9 * 0.5 * 0.9), "a100 tree LL128 8MiB");
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, "nvls on A100");
    /* LL128 needs cc_min == cc_max below Hopper */
    in.cc_max = 86;
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, "LL128 on mixed pre-Hopper GPUs");
}

static void test_two_nodes(void) {
    ar_nccl_in in = h100_nodes(2);
    /* 2 nodes x 8 H100 = 16 ranks, all-reduce nsteps = 30, ratio 16/30. 2 nodes -> bw = bwIntra (48),
     * caps column N2; LL's row: Intel CPU across nodes -> llMaxBw = 39.0.
     * RING: bus 8*48 = 384. LL min(39, 192) = 39; LL128 min(384*0.92 = 353.28, 8*36.7 = 293.6) = 293.6.
     *   latency class NET: interLat = NET ring (2.7, 4.0, 14.0); intraLat = max(NVLINK ring, net overhead
     *   1 us, x3 for Simple): LL max(0.6,1) = 1, LL128 max(1.9,1) = 1.9, Simple max(3.4,3) = 3.4;
     *   inter steps 2(nodes-1) = 2: lat = base + 28*intra + 2*inter:
     *   LL 6.6 + 28 + 5.4 = 40.0; LL128 14 + 53.2 + 8 = 75.2; Simple 8.4 + 95.2 + 28 = 131.6,
     *   Simple all-reduce above 64 B per channel per rank: x1.4 (ring plateau) = 184.24 us. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 40.0 + MiB / (1000.0 * 39.0 * 16 / 30),
            "2n ring LL");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, MiB, 75.2 + MiB / (1000.0 * 293.6 * 16 / 30),
            "2n ring LL128");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, 131.6 * 1.4 + GiB / (1000.0 * 384.0 * 16 / 30),
            "2n ring simple (plateau)");
    /* the two terms apart (ar_nccl_table_terms, what `best` compares): ring/Simple at 1 GiB, latency
     * 131.6 x 1.4 us (the plateau) and transfers GiB / (384 x 16/30 GB/s); tree/LL128 at 1 MiB, latency
     * 48.5 us (below) */
    {
        ar_nccl_table tab;
        ar_err e = {{0}};
        double l = 0, x = 0;
        T_OK(ar_nccl_model_tune(&in, &tab, &e), e);
        T_OK(ar_nccl_table_terms(&in, &tab, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, &l, &x, &e), e);
        T_NEAR(l, 131.6 * 1.4e-6, 1e-12, "2n ring simple: the latency term");
        T_NEAR(x, GiB / (1000.0 * 384.0 * 16 / 30) * 1e-6, 1e-12, "2n ring simple: the transfer term");
        T_OK(ar_nccl_table_terms(&in, &tab, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, MiB, &l, &x, &e), e);
        T_NEAR(l, 48.5e-6, 1e-12, "2n tree LL128: the latency term");
    }
    /* below the plateau threshold: 4096 B / (8 ch * 16 ranks) = 32 < 64: no x1.4 */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 4096, 131.6 + 4096 / (1000.0 * 384.0 * 16 / 30),
            "2n ring simple small");
    /* TREE: bus 384 -> min(384*0.92, 8*41.4 = 331.2) = 331.2; LL min(331.2/3.8, 39) = 39;
     *   LL128 min(331.2*120/128 = 310.5, 8*36.7 = 293.6) = 293.6; Simple 331.2; ratio 0.5.
     *   lat = base + 2*(7*intraLat(NVLINK tree) + log2(2)*interLat(NET tree)):
     *   LL 6.8 + 2*(4.2 + 5) = 25.2; LL128 14 + 2*(8.75 + 8.5) = 48.5; Simple 8.4 + 2*(28 + 14) = 92.4. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB, 92.4 + GiB / (1000.0 * 331.2 * 0.5),
            "2n tree simple");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, GiB, 48.5 + GiB / (1000.0 * 293.6 * 0.5),
            "2n tree LL128");
    /* NVLS_TREE: intra 40*0.85*7/8*2 = 59.5; inter 40*2 (2 nodes) = 80; cap perChMaxNVLSTree[Hopper][N2] = 57.7
     *   -> 57.7; bus 8*57.7 = 461.6; ratio 16/30; lat = 0 + 25 (NVLINK) + 2*log2(2)*20.9 (NET) = 66.8. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB, 66.8 + GiB / (1000.0 * 461.6 * 16 / 30),
            "2n nvls tree");
    /* NVLS across nodes needs CollNet: disabled. */
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, "nvls on 2 nodes without collnet");
    /* Choices: 1 KiB: tree LL 25.2 + 1024/(19500*0.9) (factor[LL][4] = 0.9) = 25.258 < ring LL 40.05;
     * 64 KiB: tree LL (x0.6 at log2(2^10) = 10) 25.2 + 65536/11700 = 30.80 < ring LL 43.15, NVLS_TREE 67.07;
     * 1 GiB: NVLS_TREE 66.8 + 4361.5 = 4428.3 < tree Simple 92.4 + 6484.0, ring Simple 184.24 + 5242.9. */
    choice(&in, AR_NCCL_ALLREDUCE, KiB, AR_NCCL_TREE, AR_NCCL_LL, 25.2 + KiB / (1000.0 * 39.0 * 0.5 * 0.9), "2n 1KiB");
    choice(&in, AR_NCCL_ALLREDUCE, 64 * KiB, AR_NCCL_TREE, AR_NCCL_LL, 25.2 + 64 * KiB / (1000.0 * 39.0 * 0.5 * 0.6),
           "2n 64KiB");
    choice(&in, AR_NCCL_ALLREDUCE, GiB, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, 66.8 + GiB / (1000.0 * 461.6 * 16 / 30),
           "2n 1GiB");
    /* AMD CPU: net overhead 2 us (x3 = 6 > 3.4 for Simple): ring Simple lat = 8.4 + 28*6 + 2*14 = 204.4. */
    in.cpu_amd = 1;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 4096, 204.4 + 4096 / (1000.0 * 384.0 * 16 / 30),
            "2n ring simple AMD");
}

static void test_four_nodes(void) {
    ar_nccl_in in = h100_nodes(4);
    in.ring.bw_intra_GBps = 60; /* > 2 nodes: the model must read bwInter (48), not bwIntra */
    /* 4 x 8 = 32 ranks: nsteps 62, inter steps 6, ratio 32/62. Ring Simple: bus 8*48 = 384;
     *   lat = 8.4 + 56*3.4 + 6*14 = 282.8, x1.4 plateau = 395.92 us.
     * Tree Simple (tree graph keeps 48/48): bus min(384*0.92, 8*36.0 (Hopper N4)) = 288, x0.5;
     *   lat = 8.4 + 2*(7*4.0 + log2(4)*14) = 120.4 us. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, 282.8 * 1.4 + GiB / (1000.0 * 384.0 * 32 / 62),
            "4n ring simple");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB, 120.4 + GiB / (1000.0 * 288.0 * 0.5),
            "4n tree simple");
    /* Ring LL: LL row Intel (0), N4 column: llMaxBw 20.4 = min(20.4, 8*48*0.5); lat 6.6 + 56*1 + 6*2.7 = 78.8. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 78.8 + MiB / (1000.0 * 20.4 * 32 / 62),
            "4n ring LL");
}

static void test_pat(void) {
    /* 4 nodes x 1 GPU (PAT needs one GPU per node), Hopper, tree = ring = 2 ch x 12 GB/s. All-gather:
     * nsteps 3, > 2 nodes -> bwInter. PAT: bus 2*12 = 24 x 0.75 = 18 (no bus->alg ratio for RS/AG);
     *   ppn = 1 -> interLat = NET tree Simple = 14; lat = 8 + log2(4)*14/3.5 + 4*2.8 = 27.2 us.
     * Ring Simple: bus 24 x 4/3 = 32; lat = 8.4 + 0*intra + 3*14 = 50.4 us.
     * Ring LL: min(llMaxBw[Intel][N4] = 20.4, 12) = 12 x 4/3 = 16; lat = 6.6 + 3*5.0 = 21.6 us. */
    ar_nccl_in in;
    ar_nccl_in_defaults(&in, 90, 4, 4);
    in.ring = in.tree = gr(2, 12, 12);
    in.ring.intra_nvlink = in.tree.intra_nvlink = 0;
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, GiB, 27.2 + GiB / (1000.0 * 18.0), "pat AG");
    near_us(&in, AR_NCCL_REDUCESCATTER, AR_NCCL_PAT, AR_NCCL_SIMPLE, MiB, 27.2 + MiB / (1000.0 * 18.0), "pat RS");
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB, 50.4 + GiB / (1000.0 * 32.0), "ring AG 1 ppn");
    /* Choices: 4 KiB: ring LL 21.6 + 4096/16000 = 21.856 < PAT 27.2 + 0.228 = 27.43;
     * 1 GiB: ring Simple 50.4 + 33554.4 < PAT 27.2 + 59652.3. */
    choice(&in, AR_NCCL_ALLGATHER, 4096, AR_NCCL_RING, AR_NCCL_LL, 21.6 + 4096 / (1000.0 * 16.0), "AG 4KiB");
    choice(&in, AR_NCCL_ALLGATHER, GiB, AR_NCCL_RING, AR_NCCL_SIMPLE, 50.4 + GiB / (1000.0 * 32.0), "AG 1GiB");
    in.net_host = 0; /* NIC device offload: PAT off */
    unsupported(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, "pat with device offload");
}

static void test_collnet(void) {
    /* 2 nodes x 8 Hopper with a CollNet plugin, 8 heads, chain support; collnet graphs 8 ch x 24 GB/s.
     * CollNet Direct all-reduce: bus = 8*24 = 192 (collnet reads bwIntra); GPU:NIC factor ppn/nch = 1 ->
     *   1 - 0 = 1; Hopper x0.85 = 163.2; ratio 0.5 -> 81.6. lat = 0 + 2*(min(1,7)*3.7 + 7*0.4) + 31 = 44.0 us.
     * CollNet Chain: bus 192 x 0.5 = 96; lat = 2*7*2.8 + 30 = 69.2 us.
     * NVLS across nodes with CollNet: intra 40*0.85*7/8*2 = 59.5, inter 40 -> 40; bus 320 x 16/30;
     *   lat = 25 + NET NVLS 18 = 43 us. */
    ar_nccl_in in = h100_nodes(2);
    in.collnet_enable = 1;
    in.collnet_chain_support = 1;
    in.collnet_heads = 8;
    in.collnet_direct = in.collnet_chain = gr(8, 24, 24);
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_COLLNET_DIRECT, AR_NCCL_SIMPLE, GiB, 44.0 + GiB / (1000.0 * 81.6),
            "collnet direct");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_COLLNET_CHAIN, AR_NCCL_SIMPLE, GiB, 69.2 + GiB / (1000.0 * 96.0),
            "collnet chain");
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 43.0 + GiB / (1000.0 * 320.0 * 16 / 30),
            "nvls with collnet");
    /* RS/AG across nodes by CollNet Direct need the plugin's iallgather/ireducescatter: off here. */
    unsupported(&in, AR_NCCL_ALLGATHER, AR_NCCL_COLLNET_DIRECT, AR_NCCL_SIMPLE, "collnet AG without iallgather");
    in.nvswitch = 0;
    unsupported(&in, AR_NCCL_ALLREDUCE, AR_NCCL_COLLNET_DIRECT, AR_NCCL_SIMPLE, "collnet direct without NVSwitch");
}

static void test_busbw(void) {
    /* nccl-tests: busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (reduce-scatter, all-gather). */
    T_NEAR(ar_nccl_busbw(AR_NCCL_ALLREDUCE, 8, 100e9), 175e9, REL, "busbw AR 8");
    T_NEAR(ar_nccl_busbw(AR_NCCL_REDUCESCATTER, 8, 100e9), 87.5e9, REL, "busbw RS 8");
    T_NEAR(ar_nccl_busbw(AR_NCCL_ALLGATHER, 72, 72e9), 71e9, REL, "busbw AG 72");
    T_NEAR(ar_nccl_busbw(AR_NCCL_ALLREDUCE, 2, 10e9), 10e9, REL, "busbw AR 2");
    T_CHECK(ar_nccl_busbw(AR_NCCL_ALLREDUCE, 1, 10e9) == 0.0, "busbw of 1 rank is 0");
    T_NEAR(ar_nccl_algbw(8e9, 0.04), 200e9, REL, "algbw");
    /* names */
    T_CHECK(ar_nccl_algo_parse("nvls_tree") == AR_NCCL_NVLS_TREE && ar_nccl_algo_parse("NVLSTree") == AR_NCCL_NVLS_TREE,
            "algo parse");
    T_CHECK(ar_nccl_algo_parse("collnetdirect") == AR_NCCL_COLLNET_DIRECT && ar_nccl_algo_parse("ring") == AR_NCCL_RING,
            "algo parse 2");
    T_CHECK(ar_nccl_algo_parse("bogus") == -1 && ar_nccl_proto_parse("simple") == AR_NCCL_SIMPLE &&
                ar_nccl_coll_parse("all-gather") == AR_NCCL_ALLGATHER,
            "parse");
}

/* Topology-search emulation on the presets (derivations from search.cc's speed arrays):
 * dgx-h100: 18 x 20.6 = 370.8 GB/s per GPU. Ring, SM90 intra speeds {60, 50, 40, 30, 24..}: at 60,
 *   floor(370.8/60) = 6 channels (360 < 370.8, not done); 50 -> 7 (350), 40 -> 9 (360), 30 -> 12 (360):
 *   none better; 24/60 < 0.49 stops. Duplication (60 >= 50): 12 ch x 30. Pass 2: 40 x 12 > 370.8: stays.
 *   NVLS: 8 channels forced (one node), each using s on every GPU, twice on its head: 9s <= 370.8;
 *   start where 8s <= 370.8*8/7 = 423.8 -> 50; 9*50 = 450 fails, 40 fits (360). Pass 2 raises bwInter
 *   while below 2*40: 50, 60 -> 60.
 * dgx-a100: 12 x 20 = 240. Ring: 40 -> 6 ch = 240 = totalBw: done; duplication (cc 80 is not > 80): 12 x 20.
 * dgx-b200: 18 x 40.1 = 721.8. Ring SM100 {90, 80, 70, 60, 50, 45, 40..}: 90 -> 8 ch (720); none of 80..45
 *   better; 40/90 < 0.49 stops; duplication -> 16 x 45; 50 x 16 > 721.8 stays. NVLS: 9s <= 721.8 -> 80;
 *   bwInter 80 -> 90.
 * gb200-nvl72: ring as B200 (16 x 45); NVLS min(32, 72) = 32 channels: 33s <= 721.8 -> s = 20 (also
 *   32*20 <= 721.8*72/71); bwInter 20 -> 24 -> 30 -> 40 (stops at 2*20). */
static void check_graph(const ar_nccl_graph *g, int nch, double intra, double inter, const char *what) {
    T_CHECK(g->nchannels == nch, "%s: %d channels, want %d", what, g->nchannels, nch);
    T_NEAR(g->bw_intra_GBps, intra, REL, what);
    T_NEAR(g->bw_inter_GBps, inter, REL, what);
}

/* Blackwell's speed arrays per release (search.cc sm100SpeedArrayInter: 2.26 {48, 45, ..} (Hopper's),
 * 2.27-2.28 {96, 48, 45.1, ..}, 2.30 {96, 86, 80, 48, ..}) on 2 x 8 B200 with 800 Gb/s NICs: NIC 100 GB/s,
 * NVLink 721.8 GB/s per GPU. NVLS (several nodes): ch(s) = min(8, floor(721.8/s) - 1), from the first speed
 * <= 100: 2.26: 48 -> 14 -> 8 = all: 8 x 48, bwInter stays 48 (the top of the array).
 *   2.28: 96 -> 6; 48 -> 8: 8 x 48; bwInter raised to 96 (<= 100, < 2 x 48).
 *   2.30: 96 -> 6; 86 -> 7; 80 -> floor(9.02) - 1 = 8: 8 x 80; bwInter 80 -> 86 -> 96.
 * Ring: 2.26: 48 -> 8 NICs x floor(100/48) = 16 ch, NVLink ceil(16 x 7/8) x 48 = 672 <= 721.8, 16 x 48 = 768
 * >= 721.8: done; no duplication (48 < 50, 16 > 4). 2.28 and 2.30: 96 -> 8 ch (768, done), duplicated to
 * 16 x 48; pass 2: 80 or 96 -> 8 ch < 16: stays. The ring is 16 x 48 in all three. */
static void test_speed_arrays(void) {
    static const struct {
        int version;
        double nvls_intra, nvls_inter;
    } k[] = {{22600, 48, 48}, {22700, 48, 96}, {22800, 48, 96}, {23000, 80, 96}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("dgx-b200:nodes=2,nic=800Gbps", 0, &p, &t_e));
    for (size_t i = 0; p && i < sizeof k / sizeof k[0]; i++) {
        ar_nccl_in in;
        char what[64];
        snprintf(what, sizeof what, "b200 x 2, 800G NICs, version %d", k[i].version);
        p->nccl_version = k[i].version;
        T_OK(ar_nccl_in_from_platform(p, 0, &in, &t_e));
        check_graph(&in.ring, 16, 48, 48, what);
        check_graph(&in.nvls, 8, k[i].nvls_intra, k[i].nvls_inter, what);
    }
    ar_platform_free(p);
}

static void test_from_platform(void) {
    static const struct {
        const char *name;
        int cc, ring_ch;
        double ring_bw;
        int nvls_ch;
        double nvls_intra, nvls_inter;
    } k[] = {
        {"dgx-h100", 90, 12, 30, 8, 40, 60},  {"aws-p5", 90, 12, 30, 8, 40, 60},
        {"dgx-a100", 80, 12, 20, 0, 0, 0},    {"aws-p4d", 80, 12, 20, 0, 0, 0},
        {"dgx-b200", 100, 16, 45, 8, 80, 90}, {"gb200-nvl72", 100, 16, 45, 32, 20, 40},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ar_platform *p = NULL;
        ar_err e = {{0}};
        ar_status st = ar_platform_load(k[i].name, 0, &p, &e);
        T_CHECK(st == AR_OK, "load %s: %s", k[i].name, e.msg);
        if (st) continue;
        ar_nccl_in in;
        T_CHECK(ar_nccl_cc_of_platform(p) == k[i].cc, "%s: cc %d", k[i].name, ar_nccl_cc_of_platform(p));
        st = ar_nccl_in_from_platform(p, 0, &in, &e);
        T_CHECK(st == AR_OK, "from_platform %s: %s", k[i].name, e.msg);
        if (!st) {
            T_CHECK(in.nranks == p->nranks && in.nnodes == 1 && in.nvswitch == 1, "%s: shape", k[i].name);
            check_graph(&in.ring, k[i].ring_ch, k[i].ring_bw, k[i].ring_bw, k[i].name);
            check_graph(&in.tree, k[i].ring_ch, k[i].ring_bw, k[i].ring_bw, k[i].name);
            check_graph(&in.nvls, k[i].nvls_ch, k[i].nvls_intra, k[i].nvls_inter, k[i].name);
            T_CHECK(in.nvls_support == (k[i].nvls_ch > 0), "%s: nvls support", k[i].name);
        }
        ar_platform_free(p);
    }
    /* B200 NVLS all-reduce: intra 80*0.74*7/8*2 = 103.6 > inter 90 -> bus 8*90 = 720. From a platform the time
     * carries arlab's pipeline fill: one Blackwell node runs 24 NVLS CTAs, ops = 24 x 8 heads = 192; 1 GiB is
     * below 64 x 192 x 128 KiB (1.5 GiB) -> 64 KiB chunks, not below 8 x 192 x 64 KiB (96 MiB); the per-op
     * rate 80e9 / 24: fill = 2 x 65536 / (80e9 / 24) = 39.3216 us. */
    {
        ar_platform *p = NULL;
        ar_nccl_in in;
        T_OK(ar_platform_load("dgx-b200", 0, &p, &t_e));
        if (p && !ar_nccl_in_from_platform(p, 0, &in, NULL))
            near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB,
                    25.0 + GiB / (1000.0 * 720.0 * 8 / 14) + 39.3216, "b200 nvls (+ fill)");
        ar_platform_free(p);
    }
    /* Two machines of 8 GPUs (370.8 GB/s each) under one 400 GB/s uplink per machine: NIC = 400/8 = 50 GB/s.
     * Ring, SM90 inter speeds {48, 45, ..}: 48 <= 50 -> 8 NICs x floor(50/48) = 8 ch; a GPU's NVLink carries
     * 7 of 8 channels: 7*48 = 336 <= 370.8; 8*48 = 384 >= totalBw 370.8: done. No duplication (cc 90,
     * 48 < 50, 8 > 4). NVLS (several nodes): ch(s) = floor(370.8/s) - 1: 48 -> 6, 45 -> 7, 42 -> 7, 40 -> 8 =
 * min(32, 8): stop; bwInter raised while < 2*40 and <= 50: 42, 45, 48 (the top of the array). */
    {
        ar_platform *p = NULL;
        ar_nccl_in in;
        ar_err e = {{0}};
        T_OK(ar_platform_load("tree:fanouts=8x2,bw=370.8GBps/400GBps", 0, &p, &t_e));
        T_CHECK(p && ar_nccl_in_from_platform(p, 0, &in, &e) == AR_EINVAL && strstr(e.msg, "compute capability"),
                "unknown GPU must be refused: %s", e.msg);
        ar_status st = p ? ar_nccl_in_from_platform(p, 90, &in, &e) : AR_EINVAL;
        T_CHECK(st == AR_OK, "from_platform 2 nodes: %s", e.msg);
        if (!st) {
            T_CHECK(in.nranks == 16 && in.nnodes == 2, "2 nodes shape");
            check_graph(&in.ring, 8, 48, 48, "2-node ring");
            check_graph(&in.nvls, 8, 40, 48, "2-node nvls");
        }
        ar_platform_free(p);
    }
    /* One call (ar_nccl_model_platform) = from_platform + choose: dgx-h100 at 1 GiB -> NVLS, 3972.58 us
     * (test_h100_one_node) + the fill 104.8576 us (test_pipeline_fill); forced ring -> Simple,
     * 56 + 2^30/205714.3 us (no fill). */
    {
        ar_platform *p = NULL;
        ar_nccl_algo a = AR_NCCL_NALGOS;
        ar_nccl_proto pr = AR_NCCL_NPROTOS;
        double s = 0;
        T_OK(ar_platform_load("dgx-h100", 0, &p, &t_e));
        T_OK(ar_nccl_model_platform(p, 0, AR_NCCL_ALLREDUCE, -1, GiB, &a, &pr, &s, &t_e));
        T_CHECK(a == AR_NCCL_NVLS && pr == AR_NCCL_SIMPLE, "platform choice %d/%d", (int)a, (int)pr);
        T_NEAR(s, (25.0 + GiB / (1000.0 * 476.0 * 8 / 14) + 104.8576) * 1e-6, REL, "platform choice time");
        p->nccl_tuner_only = 1; /* --nccl-model tuner */
        T_OK(ar_nccl_model_platform(p, 0, AR_NCCL_ALLREDUCE, -1, GiB, &a, &pr, &s, &t_e));
        T_NEAR(s, (25.0 + GiB / (1000.0 * 476.0 * 8 / 14)) * 1e-6, REL, "platform choice time, tuner only");
        p->nccl_tuner_only = 0;
        T_OK(ar_nccl_model_platform(p, 0, AR_NCCL_ALLREDUCE, AR_NCCL_RING, GiB, &a, &pr, &s, &t_e));
        T_CHECK(a == AR_NCCL_RING && pr == AR_NCCL_SIMPLE, "platform forced ring %d/%d", (int)a, (int)pr);
        T_NEAR(s, (56.0 + GiB / (1000.0 * 360.0 * 8 / 14)) * 1e-6, REL, "platform forced ring time");
        ar_platform_free(p);
    }
    /* Uneven machines are refused. */
    {
        ar_platform *p = NULL;
        ar_nccl_in in;
        ar_err e = {{0}};
        T_OK(ar_platform_load("machines:gpus=2+3", 0, &p, &t_e));
        T_CHECK(p && ar_nccl_in_from_platform(p, 80, &in, &e) == AR_EUNSUPPORTED, "uneven machines: %s", e.msg);
        ar_platform_free(p);
    }
}

static void test_errors(void) {
    ar_nccl_in in = h100_1node();
    ar_nccl_table t;
    ar_err e = {{0}};
    in.nnodes = 3; /* 8 ranks on 3 nodes */
    T_CHECK(ar_nccl_model_tune(&in, &t, &e) == AR_EINVAL && e.msg[0], "nnodes must divide nranks");
    in = h100_1node();
    in.ring.bw_intra_GBps = -1;
    T_CHECK(ar_nccl_model_tune(&in, &t, &e) == AR_EINVAL, "negative bandwidth");
    in = h100_1node();
    in.cc_min = in.cc_max = 50;
    T_CHECK(ar_nccl_model_tune(&in, &t, &e) == AR_EINVAL, "cc 50");
    in = h100_1node();
    double s;
    T_CHECK(ar_nccl_model_time(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, -1, &s, &e) == AR_EINVAL,
            "negative bytes");
    T_CHECK(ar_nccl_model_time(&in, (ar_nccl_coll)7, AR_NCCL_RING, AR_NCCL_LL, 1, &s, &e) == AR_EINVAL, "bad coll");
    /* nothing enabled: every graph empty */
    ar_nccl_in_defaults(&in, 90, 8, 1);
    T_CHECK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, MiB, NULL, NULL, &s, &e) == AR_EUNSUPPORTED,
            "no graphs: nothing to choose");
    /* one rank: ring/Simple at no cost */
    ar_nccl_in_defaults(&in, 90, 1, 1);
    ar_nccl_algo a;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, MiB, &a, NULL, &s, &t_e));
    T_CHECK(a == AR_NCCL_RING && s == 0.0, "one rank: %d %g", (int)a, s);
}

/* Calibration: cal_lat multiplies every latency, cal_bw x eff[a][p] the bandwidth of (a, p);
 * a calibrated platform gives the nominal topology search and its class's factors. */
static void test_calibration(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("dgx-h100", 0, &p, &e), e);
    ar_nccl_in in, c;
    ar_nccl_table t0, t1;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    T_CHECK(in.cal_lat == 0 && in.cal_bw == 0 && in.eff[AR_NCCL_RING][AR_NCCL_SIMPLE] == 0, "no calibration");
    c = in;
    c.cal_lat = 2, c.cal_bw = 0.8, c.eff[AR_NCCL_RING][AR_NCCL_SIMPLE] = 0.5;
    T_OK(ar_nccl_model_tune(&in, &t0, &e), e);
    T_OK(ar_nccl_model_tune(&c, &t1, &e), e);
    for (int a = 0; a < AR_NCCL_NALGOS; a++)
        for (int q = 0; q < AR_NCCL_NPROTOS; q++) {
            double f = a == AR_NCCL_RING && q == AR_NCCL_SIMPLE ? 0.4 : 0.8;
            T_NEAR(t1.bw_GBps[0][a][q], t0.bw_GBps[0][a][q] * f, 1e-12, "bw x cal_bw x eff");
            T_NEAR(t1.lat_us[0][a][q], t0.lat_us[0][a][q] * 2, 1e-12, "lat x cal_lat");
        }
    /* ring/Simple at 1 GiB: 2 L + X / 0.4 */
    double tf0 = 0, tf1 = 0, x0 = 0;
    T_OK(ar_nccl_table_time(&in, &t0, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 1073741824.0, &tf0, &e), e);
    T_OK(ar_nccl_table_time(&c, &t1, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 1073741824.0, &tf1, &e), e);
    x0 = 1073741824.0 / (1000.0 * t0.bw_GBps[0][AR_NCCL_RING][AR_NCCL_SIMPLE]) * 1e-6;
    T_NEAR(tf1, 2 * (tf0 - x0) + x0 / 0.4, 1e-12, "time = 2 L + X / 0.4");
    /* a calibrated platform document: the search sees the nominal links (same channels and speeds) */
    const char *doc = "{\"name\":\"dgx-h100-cal\",\"kind\":\"tree\",\"levels\":[{\"fanout\":8,\"bw\":\"20.6GBps\","
                      "\"lanes\":18,\"lat\":\"1us\"}],\"calibration\":{\"intra\":{\"lat\":1.7,\"bw\":0.77},"
                      "\"inter\":{\"lat\":3,\"bw\":0.5}},\"nccl\":{\"efficiency\":{\"NVLS/SIMPLE\":0.9}}}";
    ar_platform *q = NULL;
    T_OK(ar_platform_from_json(doc, "cal.json", &q, &e), e);
    ar_nccl_in ci;
    T_OK(ar_nccl_in_from_platform(q, 0, &ci, &e), e);
    T_CHECK(ci.ring.nchannels == in.ring.nchannels && ci.ring.bw_intra_GBps == in.ring.bw_intra_GBps &&
                ci.nvls.nchannels == in.nvls.nchannels,
            "nominal search: ring %d ch x %g, nvls %d ch", ci.ring.nchannels, ci.ring.bw_intra_GBps, ci.nvls.nchannels);
    T_CHECK(ci.cal_lat == 1.7 && ci.cal_bw == 0.77 && ci.eff[AR_NCCL_NVLS][AR_NCCL_SIMPLE] == 0.9 &&
                ci.eff[AR_NCCL_RING][AR_NCCL_SIMPLE] == 0,
            "one node: the intra-node factors and the efficiency");
    double tn = 0, tc = 0;
    T_CHECK(ci.tuner_only == 1, "a calibrated platform prices the tuner's own terms (no arlab addition)");
    p->nccl_tuner_only = 1; /* the calibrated one prices the tuner only: compare like with like */
    T_OK(ar_nccl_model_platform(p, 0, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, 1073741824.0, NULL, NULL, &tn, &e), e);
    T_OK(ar_nccl_model_platform(q, 0, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, 1073741824.0, NULL, NULL, &tc, &e), e);
    T_CHECK(tc > tn / (0.77 * 0.9) * 0.99 && tc < tn / (0.77 * 0.9) * 1.01, "NVLS at 1 GiB slower by 1/(0.77 x 0.9)");
    ar_platform_free(q);
    ar_platform_free(p);
}

/* NCCL 2.27 (v2.27.7-1 tuning.cc): 2.26's tables and all-reduce formulas, not 2.28's NVLS efficiency.
 * 2 nodes x 8 B200, NVLS graph 8 ch x 48/48 (400 Gb/s NICs), all-reduce NVLS_TREE Simple, 1 GiB:
 *   2.27: per channel min(bwIntra 48, bwInter 48) = 48 (2.26's NVLS_TREE form, no cap), bus 8 x 48 = 384,
 *         algbw = 384 x 5/6 = 320; lat = 0 + NVLink NVLS_TREE 25 + 2 x log2(2) x net NVLS_TREE 14 = 53 us.
 *   2.28: min(48 x 0.74 x 7/8 x 2 = 62.16, 2 x 48 = 96, cap 96) = 62.16, bus 497.28, algbw x 16/30;
 *         lat = 25 + 2 x 20.9 = 66.8 us.
 * One H100 node (nvls 8 ch x 40/60), all-gather NVLS Simple, 1 GiB (RS/AG: no bus -> alg conversion):
 *   2.27: min(40 x 7/8 = 35, 0.9 x 60 = 54) = 35, bus 280; 2.26: min(40, 60) = 40, bus 320; lat 25 us. */
static void test_v227(void) {
    ar_nccl_in in = h100_nodes(2); /* as B200: compute capability 100, NVLS graph 8 x 48/48 */
    in.cc_min = in.cc_max = 100;
    in.nvls = gr(8, 48, 48);
    in.version = 22700;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB, 53.0 + GiB / (1000 * 320.0),
            "2.27 B200 NVLS_TREE 2 nodes");
    in.version = 22800;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB,
            66.8 + GiB / (1000 * 8 * (48 * 0.74 * 7 / 8 * 2) * 16 / 30), "2.28 B200 NVLS_TREE 2 nodes");
    in = h100_1node();
    in.version = 22700;
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000 * 280.0), "2.27 NVLS AG");
    in.version = 22600;
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000 * 320.0), "2.26 NVLS AG");
    T_CHECK(ar_nccl_version_parse("2.27.3") == 22700 && !strcmp(ar_nccl_version_name(22700), "2.27.7"),
            "2.27 parse and name");
}

/* NCCL 2.23.4 and 2.24.3 (v2.23.4-1, v2.24.3-1 tuning.cc, connect.cc, search.cc, transport/nvls.cc): 2.26's
 * latencies, Hopper tables and all-reduce formulas; no Blackwell row or arrays yet; 2.23: PAT x0.85.
 * 2 nodes x 8 H100, NVLS_TREE (nvls 8 ch x 40/40), 1 GiB: as 2.26, 53 us + 1 GiB / (320 x 5/6).
 * 2 nodes x 8 B200 (compute capability 100), tree 8 ch x 48/48, all-reduce TREE Simple, 1 GiB (log2(2^30 / 64)
 * = 24: past the tree correction's sizes):
 *   bus = min(8 x 48 x 0.92 = 353.28, 8 x perChMaxTreeBw[row][2 nodes]); 2.24 takes Hopper's row 41.4: 331.2;
 *   2.26 Blackwell's 82.8: 353.28; algbw x0.5: 165.6 / 176.64;
 *   lat = 8.4 + 2 x ((8 - 1) x NVLink tree Simple 4.0 + log2(2) x net tree Simple 14) = 92.4 us.
 *   Ring LL128: 2.24 enables LL128 on Volta, Ampere and Hopper only.
 *   Runtime channels (ring 4 ch x 48 GB/s): 2 x 4 = 8, doubled again (bwIntra 48 > 45, 8 < 16) on Hopper+ from
 *   2.25, on Hopper only before: ring Simple at 100 KiB (512 threads x 64 B = 32 KiB a channel) 3 of 8 at 2.24,
 *   3 of 16 at 2.26. NVLS on one B200 node (8 heads): 2.24 16 CTAs a head (NVLS_NCHANNELS), 2.26 24.
 * PAT all-gather, 4 nodes x 1 H100 (tree 2 ch x 24/24, > 2 nodes: bwInter), 1 MiB (RS/AG: no bus -> alg):
 *   bus = 2 x 24 x 0.85 = 40.8 (2.23) or x0.75 = 36 (2.24); lat = 8 + log2(4) x (net tree Simple 14 / 3.5)
 *   + 4 x 2.8 = 27.2 us. */
static void test_v224(void) {
    T_CHECK(ar_nccl_version_parse("2.24") == 22400 && ar_nccl_version_parse("2.24.3-1") == 22400 &&
                ar_nccl_version_parse("2.23.4") == 22300 && !strcmp(ar_nccl_version_name(22400), "2.24.3") &&
                !strcmp(ar_nccl_version_name(22300), "2.23.4"),
            "2.23, 2.24 parse and name");
    T_CHECK(ar_nccl_version_parse("2.20") < 0 && ar_nccl_version_parse("2.22.3-1") < 0,
            "2.20-2.22 refused (not modelled)");
    ar_nccl_in in = h100_nodes(2);
    in.version = 22400;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB, 53.0 + GiB / (1000 * 320.0 * 5 / 6),
            "2.24 NVLS_TREE 2 nodes as 2.26");
    ar_nccl_in_defaults(&in, 100, 16, 2);
    in.ring = in.tree = gr(8, 48, 48);
    in.nvswitch = 1;
    in.version = 22400;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB, 92.4 + GiB / (1000 * 165.6),
            "2.24 Blackwell tree Simple: Hopper's cap 41.4/ch");
    double t = 0;
    ar_err e = {{0}};
    T_CHECK(ar_nccl_model_time(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, GiB, &t, &e) == AR_EUNSUPPORTED,
            "2.24: no LL128 on Blackwell");
    in.version = 22600;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB, 92.4 + GiB / (1000 * 176.64),
            "2.26 Blackwell tree Simple: cap 82.8/ch");
    in.ring = in.tree = gr(4, 48, 48);
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 100 * KiB), 3.0 / 16, REL,
           "2.26 Blackwell: 16 runtime channels");
    in.version = 22400;
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 100 * KiB), 3.0 / 8, REL,
           "2.24 Blackwell: 8 runtime channels (no doubling)");
    ar_nccl_in_defaults(&in, 100, 8, 1);
    in.ring = in.tree = gr(12, 30, 30);
    in.nvls = gr(8, 40, 60);
    double ops = 0;
    for (int v = 22400; v <= 22600; v += 200) {
        in.version = v;
        T_CHECK(ar_nccl_nvls_fill_bw(&in, &ops) > 0 && ops == (v == 22400 ? 16 : 24) * 8,
                "NVLS CTAs on one B200 node at %d: %g", v, ops);
    }
    ar_nccl_in_defaults(&in, 90, 4, 4);
    in.ring = in.tree = gr(2, 24, 24);
    in.version = 22300;
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, MiB, 27.2 + MiB / (1000 * 40.8), "2.23 PAT x0.85");
    in.version = 22400;
    near_us(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, MiB, 27.2 + MiB / (1000 * 36.0), "2.24 PAT x0.75");
}

/* The modelled releases (ar_nccl_version_parse) and where their tables and formulas differ. */
static void test_versions(void) {
    T_CHECK(ar_nccl_version_parse("2.18") == 21800 && ar_nccl_version_parse("2.19.3-1") == 21800 &&
                ar_nccl_version_parse("2.28.9") == 22800 && ar_nccl_version_parse("2.27") == 22700 &&
                ar_nccl_version_parse("2.30") == 23000 && ar_nccl_version_parse("2.29.7-1") == 23000,
            "version parse: the modelled releases");
    T_CHECK(ar_nccl_version_parse("2.21") < 0 && ar_nccl_version_parse("3.0") < 0 &&
                ar_nccl_version_parse("2.18x") < 0 && ar_nccl_version_parse("2.28.") < 0 &&
                ar_nccl_version_parse("") < 0 && ar_nccl_version_parse(NULL) < 0,
            "version parse: others refused");
    T_CHECK(!strcmp(ar_nccl_version_name(0), "2.30.7") && !strcmp(ar_nccl_version_name(21800), "2.18.6"),
            "version names");

    /* 2 nodes x 8 H100, ring 8 ch x 48 GB/s, all-reduce RING/LL (nsteps 30).
     * 2.30: bus = min(llMaxBw[Intel][2 nodes] 39.0, 8 x 48 x 0.5 = 192) = 39; bw = 39 x 16/30 = 20.8.
     *       lat = 6.6 + (30 - 2(2-1)) x max(NVLink ring LL 0.6, net overhead 1.0) + 2 x net ring LL 2.7 = 40.0 us.
     * 2.18: LL factor 1/4: min(39, 96) = 39, the same bw; inter-node steps 2 nnodes = 4:
     *       lat = 6.6 + 26 x 1.0 + 4 x 2.7 = 43.4 us.
     * 2.28: 2.30's on Hopper. */
    ar_nccl_in in = h100_nodes(2);
    double bw = 39.0 * 16 / 30;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 40.0 + MiB / (1000 * bw), "2.30 ring LL 2 nodes");
    in.version = 22800;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 40.0 + MiB / (1000 * bw), "2.28 ring LL 2 nodes");
    in.version = 21800;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 43.4 + MiB / (1000 * bw), "2.18 ring LL 2 nodes");

    /* Blackwell, 2 nodes, ring LL128 (perChMaxRingLL128Bws[Blackwell][2 nodes]): 2.30 40, 2.28 34.6;
     * bus = min(8 x 48 x 0.92 = 353.28, 8 x cap); bw = bus x 16/30;
     * lat = 14.0 + 28 x max(NVLink ring LL128 1.9, 1.0) + 2 x net ring LL128 4.0 = 75.2 us.
     * 2.18 enables LL128 on Volta, Ampere and Hopper only. */
    ar_nccl_in_defaults(&in, 100, 16, 2);
    in.ring = in.tree = gr(8, 48, 48);
    in.nvswitch = 1;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, GiB, 75.2 + GiB / (1000 * 320.0 * 16 / 30),
            "2.30 Blackwell ring LL128 2 nodes: cap 40/ch");
    in.version = 22800;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, GiB, 75.2 + GiB / (1000 * 8 * 34.6 * 16 / 30),
            "2.28 Blackwell ring LL128 2 nodes: cap 34.6/ch");
    in.version = 21800;
    double t = 0;
    ar_err e = {{0}};
    T_CHECK(ar_nccl_model_time(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL128, GiB, &t, &e) == AR_EUNSUPPORTED,
            "2.18: no LL128 on Blackwell");

    /* NVLS on one H100 node (nvls 8 ch, intra 40, inter 60), 1 GiB.
     * 2.30: per channel min(40 x 0.85 x 7/8 x 2 = 59.5, 60) = 59.5; bus 476; bw = 476 x 8/14 = 272;
     *       lat = NVLink NVLS Simple 25 us.
     * 2.18: no efficiency: bw per channel = bwIntra 40, bus 320, ratio 5/6; lat = base 23 us. */
    in = h100_1node();
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000 * 272.0), "2.30 NVLS");
    in.version = 21800;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 23.0 + GiB / (1000 * 320.0 * 5 / 6),
            "2.18 NVLS");
    /* 2.26 (2.25.x-2.26.x): NVLS per channel min(bwIntra 40, bwInter 60) = 40, bus 320, algbw x 5/6; lat 25 us.
     * 2 nodes NVLS_TREE (nvls 8 ch x 40/40): min(40, 40) = 40 (no cap), bus 320, x 5/6;
     * lat = 0 + NVLink NVLS_TREE 25 + 2 x log2(2) x net NVLS_TREE 14 = 53 us. */
    in.version = 22600;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000 * 320.0 * 5 / 6),
            "2.26 NVLS");
    in = h100_nodes(2);
    in.version = 22600;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB, 53.0 + GiB / (1000 * 320.0 * 5 / 6),
            "2.26 NVLS_TREE 2 nodes");
    T_CHECK(ar_nccl_version_parse("2.26.2") == 22600 && ar_nccl_version_parse("2.25") == 22600 &&
                !strcmp(ar_nccl_version_name(22600), "2.26.2"),
            "2.26 parse and name");
    test_v227();
    test_v224();
    /* 2.18: reduce-scatter and all-gather on rings only (PAT does not exist) */
    in = h100_nodes(2);
    in.nranks = in.nnodes = 2;
    in.version = 21800;
    T_CHECK(ar_nccl_model_time(&in, AR_NCCL_ALLGATHER, AR_NCCL_PAT, AR_NCCL_SIMPLE, MiB, &t, &e) == AR_EUNSUPPORTED,
            "2.18: no PAT");
    double f = 0, step = 0, base = 0;
    T_OK(ar_nccl_proto_effect_v(21800, AR_NCCL_RING, AR_NCCL_LL, 2, 1, &f, &step, &base), e);
    T_CHECK(f == 0.25 && step == 2.7 && base == 6.6, "2.18 ring LL effect: 1/4, 2.7 us net step, 6.6 us base");
}

/* enqueue.cc's channel tuning (ar_nccl_channel_share) and the time of what runs (runtime_channels). */
static void test_channels(void) {
    /* 2 nodes x 8 H100, ring = tree = 8 ch: the communicator's channels N = 2 x 8 = 16 (not < 16: not doubled
     * again). Ring Simple: 512 threads x 64 B = 32 KiB per channel; 100 KiB -> 3 channels (3 x 32 KiB <= 100 KiB
     * < 4 x 32 KiB); 1 MiB -> all 16. Ring LL: 512 x 8 x 16 ranks = 64 KiB per channel: 100 KiB -> 1.
     * Tree LL128: 640 x 8 = 5 KiB per channel: 8 KiB -> 1. NVLS: its own channels, 1. */
    ar_nccl_in in = h100_nodes(2);
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 100 * KiB), 3.0 / 16, REL,
           "ring Simple 100 KiB: 3 of 16 channels");
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, MiB), 1.0, REL,
           "ring Simple 1 MiB: every channel");
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, 100 * KiB), 1.0 / 16, REL,
           "ring LL 100 KiB: one channel");
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, 8 * KiB), 1.0 / 16, REL,
           "tree LL128 8 KiB: one channel");
    T_NEAR(ar_nccl_channel_share(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 8 * KiB), 1.0, REL, "NVLS: 1");
    /* With runtime_channels: ring Simple at 100 KiB on 3/16 of the graph's 8 channels:
     * bus = 8 x 3/16 x 48 = 72, bw = 72 x 16/30 = 38.4; lat = 8.4 + 28 x max(3.4, 3 x 1.0) + 2 x 14 = 131.6,
     * x 1.4 (ring plateau: 102400 / (8 x 16) >= 64) = 184.24 us. Without: bw = 384 x 16/30 = 204.8. */
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 100 * KiB, 184.24 + 102400 / (1000 * 204.8),
            "tuner's estimate: every channel");
    in.runtime_channels = 1;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 100 * KiB, 184.24 + 102400 / (1000 * 38.4),
            "what runs: 3 of 16 channels");
    /* the choice is the tuner's either way (RING/SIMPLE is not NCCL's pick at 100 KiB: the same pick) */
    ar_nccl_algo a1, a2;
    ar_nccl_proto p1, p2;
    ar_err e = {{0}};
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, 100 * KiB, &a1, &p1, NULL, &e), e);
    in.runtime_channels = 0;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, 100 * KiB, &a2, &p2, NULL, &e), e);
    T_CHECK(a1 == a2 && p1 == p2, "runtime channels do not move the choice");
    /* One node of 8 H100 at 32 KiB, where the time on fewer channels would move the pick (tree LL on
     * what runs is faster than ring LL on what runs): NCCL picks on the tuner's estimate, ring LL at
     * 6.6 + 14 x 0.6 = 15.0 us + 32768 / (1000 x 141 x 8/14) = 15.4067 us (LL cap 141 of bus 8 x 48 / 2),
     * then runs it on nc = 1 of N = 2 x 8 = 16 channels (ring LL: 512 threads x 8 B x 8 ranks = 32 KiB per
     * channel, 32 KiB < 2 x 32 KiB): bus = 8/16 x 48 x 1/2 = 12, bw = 12 x 8/14 = 6.857142857 GB/s,
     * time = 15.0 + 32768 / 6857.142857 = 19.778666667 us. */
    in = h100_nodes(1);
    in.runtime_channels = 1;
    double t1 = 0;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, 32 * KiB, &a1, &p1, &t1, &e), e);
    T_CHECK(a1 == AR_NCCL_RING && p1 == AR_NCCL_LL, "1 node, 32 KiB: the tuner's pick RING/LL (got %s/%s)",
            ar_nccl_algo_name(a1), ar_nccl_proto_name(p1));
    T_NEAR(t1, (15.0 + 32768.0 / (1000.0 * 12.0 * 8.0 / 14.0)) * 1e-6, REL,
           "its time on the 1 of 16 channels it runs on");
    in.runtime_channels = 0;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, 32 * KiB, &a2, &p2, &t1, &e), e);
    T_CHECK(a2 == AR_NCCL_RING && p2 == AR_NCCL_LL, "the same pick without runtime channels");
    T_NEAR(t1, (15.0 + 32768.0 / (1000.0 * 141.0 * 8.0 / 14.0)) * 1e-6, REL, "the tuner's estimate");
}

/* A platform's hop latency above its class's reference (AR_NCCL_REF_HOP_NVLINK_US 2 us inside a node,
 * AR_NCCL_REF_HOP_NET_US 2 us across) adds to NCCL's per-step latency of that class. */
static void test_hop_latency(void) {
    /* 2 nodes, ring LL: hop_lat_us[1] = 12 -> net steps 2.7 + (12 - 2) = 12.7; intra 0.5 (< 2): NVLink steps
     * 0.6, under the ring's 1 us network overhead, so 1.0 each:
     * lat = 6.6 + 28 x 1.0 + 2 x 12.7 = 60.0 us (bw 20.8 as in test_versions). */
    ar_nccl_in in = h100_nodes(2);
    in.hop_lat_us[0] = 0.5;
    in.hop_lat_us[1] = 12;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 60.0 + MiB / (1000 * 39.0 * 16 / 30),
            "net hop 12 us: +10 us per inter-node step");
    /* intra 2.9 (0.9 above the 2 us reference): NVLink steps 0.6 + 0.9 = 1.5, above the 1 us
     * overhead: lat = 6.6 + 28 x 1.5 + 2 x 12.7 = 74.0 us */
    in.hop_lat_us[0] = 2.9;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_LL, MiB, 74.0 + MiB / (1000 * 39.0 * 16 / 30),
            "NVLink hop 2.9 us: +0.9 us per intra-node step");
    /* the presets: GPU-to-GPU 0.6 us in a node (two 0.3 us links through the NVSwitch, NCCL's LL step over
     * NVLink) and 2 us across (two 1 us links through the rail switch): nothing added; a family's lat= moves
     * the inter-node one */
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("dgx-h100:nodes=2", 0, &p, &e), e);
    ar_nccl_in pi;
    T_OK(ar_nccl_in_from_platform(p, 0, &pi, &e), e);
    T_NEAR(pi.hop_lat_us[0], 0.6, REL, "dgx-h100:nodes=2 NVLink hop 0.6 us");
    T_NEAR(pi.hop_lat_us[1], 2.0, REL, "dgx-h100:nodes=2 network hop 2 us");
    ar_platform_free(p);
    p = NULL;
    T_OK(ar_platform_load("dgx-h100:nodes=2,lat=10us", 0, &p, &e), e);
    T_OK(ar_nccl_in_from_platform(p, 0, &pi, &e), e);
    T_NEAR(pi.hop_lat_us[1], 20.0, REL, "lat=10us: network hop 2 x 10 us");
    ar_platform_free(p);
    /* every NVSwitch preset and the rail family: GPU -> NVSwitch -> GPU is NCCL's 0.6 us LL step over NVLink
     * (two 0.3 us links), below the 2 us reference, so NCCL's model adds nothing inside a node */
    const char *nvs[] = {"dgx-a100", "dgx-h100", "dgx-b200",      "gb200-nvl72",
                         "aws-p4d",  "aws-p5",   "rail:gpu=h100", "dgx-b200:nodes=3"};
    for (size_t i = 0; i < sizeof nvs / sizeof nvs[0]; i++) {
        p = NULL;
        T_OK(ar_platform_load(nvs[i], 0, &p, &e), e);
        if (!p) continue;
        T_OK(ar_nccl_in_from_platform(p, 0, &pi, &e), e);
        T_CHECK(fabs(pi.hop_lat_us[0] - 0.6) <= 1e-9 && pi.hop_lat_us[0] < AR_NCCL_REF_HOP_NVLINK_US,
                "%s: NVLink hop %.17g us = NCCL's 0.6 us LL step", nvs[i], pi.hop_lat_us[0]);
        ar_platform_free(p);
    }
}

/* arlab's addition (ar_nccl_pipeline_fill_s): NVLS all-reduce on one node pays two more chunk times than
 * the tuner's latency + bytes / bandwidth. H100 node: NVLS graph 8 heads x bwIntra 40 GB/s, 16 runtime
 * NVLS CTAs (Hopper) -> ops = 16 x 8 = 128; per-op rate r = 40e9 / 16 = 2.5e9 B/s.
 * Chunk (enqueue.cc): 128 KiB; 64 KiB below 64 x 128 x 128 KiB = 1 GiB; 32 KiB below 8 x 128 x 64 KiB
 * = 64 MiB; 16 KiB below 2 x 128 x 32 KiB = 8 MiB. Fill = 2 x min(chunk, bytes / 128) / r:
 *   1 MiB:   16 KiB, but bytes / ops = 8 KiB -> 2 x 8192 / 2.5e9   =  6.5536 us
 *   4 MiB:   16 KiB (bytes / ops = 32 KiB) -> 2 x 16384 / 2.5e9    = 13.1072 us
 *   8 MiB:   32 KiB (8 MiB is not below 8 MiB) -> 2 x 32768 / 2.5e9 = 26.2144 us
 *   64 MiB:  64 KiB -> 52.4288 us;  1 GiB: 128 KiB -> 104.8576 us.
 * The tuner's NVLS time (test_h100_one_node): 25 + bytes / (1000 x 272) us. */
static void test_pipeline_fill(void) {
    ar_nccl_in in = h100_1node();
    in.tuner_only = 0;
    const double sz[] = {MiB, 4 * MiB, 8 * MiB, 64 * MiB, GiB};
    const double fill_us[] = {6.5536, 13.1072, 26.2144, 52.4288, 104.8576};
    for (int i = 0; i < 5; i++) {
        T_NEAR(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, sz[i]), fill_us[i] * 1e-6,
               REL, "nvls fill");
        near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, sz[i],
                25.0 + sz[i] / (1000.0 * 476.0 * 8 / 14) + fill_us[i], "nvls time with the fill");
    }
    /* the choice stays the tuner's: at 1 GiB NVLS (3972.58 us) beats ring Simple (56 + 5219.6 us); the time
     * it reports carries the fill; at 1 MiB ring LL (28.014 us) still wins over NVLS (28.855 + 6.55) */
    choice(&in, AR_NCCL_ALLREDUCE, GiB, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 25.0 + GiB / (1000.0 * 272.0) + 104.8576,
           "choice 1GiB with the fill");
    choice(&in, AR_NCCL_ALLREDUCE, MiB, AR_NCCL_RING, AR_NCCL_LL, 15.0 + MiB / (1000.0 * 141.0 * 8 / 14),
           "choice 1MiB: ring LL, no fill");
    /* a choice the fill would flip stays the tuner's: at 1.5 MiB ring LL 15 + 1572864/80571.43 = 34.521 us,
     * NVLS 25 + 1572864/272000 = 30.783 us (+ fill 2 x 12 KiB / 2.5e9 = 9.8304 us = 40.61 us > ring LL):
     * NCCL runs NVLS, and the time is NVLS's with its fill */
    choice(&in, AR_NCCL_ALLREDUCE, 1.5 * MiB, AR_NCCL_NVLS, AR_NCCL_SIMPLE,
           25.0 + 1.5 * MiB / (1000.0 * 272.0) + 2 * 12288 / 2.5e9 * 1e6, "choice 1.5MiB: NVLS with its fill");
    /* tuner_only: the tuner's value */
    in.tuner_only = 1;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB, 25.0 + GiB / (1000.0 * 272.0), "tuner only");
    in.tuner_only = 0;
    /* no fill elsewhere: ring, tree, NVLS reduce-scatter, LL128, two nodes, one rank */
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB) == 0, "ring: no fill");
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_REDUCESCATTER, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB) == 0, "rs: no fill");
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_LL128, GiB) == 0, "tree: no fill");
    ar_nccl_in two = in;
    two.nranks = 16;
    two.nnodes = 2;
    T_CHECK(ar_nccl_pipeline_fill_s(&two, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB) == 0, "2 nodes: none");
    /* Blackwell, one node: 24 CTAs; an NVLS graph of 8 x 80 GB/s -> ops 192, r = 80e9 / 24. 64 MiB is below
     * 64 x 192 x 128 KiB (1.5 GiB): 64 KiB; below 8 x 192 x 64 KiB (96 MiB): 32 KiB; not below
     * 2 x 192 x 32 KiB (12 MiB). Fill = 2 x 32768 / (80e9 / 24) = 19.6608 us */
    ar_nccl_in b = in;
    b.cc_min = b.cc_max = 100;
    b.nvls = gr(8, 80, 80);
    T_NEAR(ar_nccl_pipeline_fill_s(&b, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 64 * MiB), 19.6608e-6, REL,
           "b200 nvls fill 64MiB");
}

/* nvlstree_fill (opt-in): NVLS_TREE all-reduce across nodes on Hopper pays 2 c / r on top of the tuner.
 * 2 x 8 H100 (h100_nodes(2), test_two_nodes): NVLS_TREE bus 461.6, algbw 461.6 x 16/30 = 246.18667 GB/s,
 * lat 66.8 us; ops = 16 runtime NVLS CTAs x 8 heads = 128; r = 246.18667e9 / 128 B/s per op.
 * Chunk (enqueue.cc, 2 nodes: from 128 KiB): 64 KiB below 4 x 128 x 128 KiB = 64 MiB, 32 KiB below
 * 128 x 64 KiB = 8 MiB; c = min(chunk, bytes / 128):
 *   1 MiB:  32 KiB, bytes / ops = 8 KiB -> fill = 2 x 8192 x 128 / 246.18667e9   =   8.51854 us
 *   16 MiB: 64 KiB (not below 8 MiB), bytes / ops 128 KiB -> 2 x 65536 x 128 / 246.18667e9 = 68.1484 us
 *   64 MiB: 128 KiB (not below 64 MiB) -> 136.2967 us;  1 GiB: 128 KiB -> 136.2967 us
 * (exactly 2 c x 128 x 30 / (461.6 x 16) ns per byte of c).
 * 4 x 8 H100 (h100_nodes(4)): NVLS_TREE intra 59.5, inter 40 (beyond 2 nodes no x2), cap 45.5 -> 40;
 *   bus 320, algbw 320 x 32/62 GB/s; chunk at most 64 KiB from 4 nodes: 64 MiB (not below 128 x 64 KiB
 *   = 8 MiB) -> 64 KiB: fill = 2 x 65536 x 128 / (320 x 32/62 x 1e9) = 101.5808 us. */
static double nvlstree_fill_us(double c_bytes, double algbw_GBps) { return 2 * c_bytes * 128 / (algbw_GBps * 1e3); }

static void test_nvlstree_fill(void) {
    ar_nccl_in in = h100_nodes(2);
    const double a2 = 461.6 * 16 / 30;
    /* off by default: the tuner's time (test_two_nodes) */
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB) == 0, "off");
    in.nvlstree_fill = 1;
    const double sz[] = {MiB, 16 * MiB, 64 * MiB, GiB}, c[] = {8192, 65536, 131072, 131072};
    for (int i = 0; i < 4; i++) {
        T_NEAR(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, sz[i]),
               nvlstree_fill_us(c[i], a2) * 1e-6, REL, "nvls tree fill 2 nodes");
        near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, sz[i],
                66.8 + sz[i] / (1000.0 * a2) + nvlstree_fill_us(c[i], a2), "nvls tree time with the fill");
    }
    T_NEAR(nvlstree_fill_us(131072, a2), 136.2967, 1e-6, "the comment's 136.2967 us");
    /* the pick stays the tuner's (test_two_nodes: NVLS_TREE at 1 GiB); the time it reports has the fill */
    choice(&in, AR_NCCL_ALLREDUCE, GiB, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE,
           66.8 + GiB / (1000.0 * a2) + nvlstree_fill_us(131072, a2), "2n 1GiB with the fill");
    /* tuner_only wins over it */
    in.tuner_only = 1;
    near_us(&in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB, 66.8 + GiB / (1000.0 * a2), "tuner only");
    in.tuner_only = 0;
    /* 4 nodes: 64 KiB chunks */
    ar_nccl_in four = h100_nodes(4);
    four.nvlstree_fill = 1;
    T_NEAR(ar_nccl_pipeline_fill_s(&four, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, 64 * MiB), 101.5808e-6,
           REL, "nvls tree fill 4 nodes");
    /* none: other algorithms and protocols, reduce-scatter, Blackwell, NCCL 2.18, one node */
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_TREE, AR_NCCL_SIMPLE, GiB) == 0, "tree: none");
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, GiB) == 0, "ring: none");
    T_CHECK(ar_nccl_pipeline_fill_s(&in, AR_NCCL_REDUCESCATTER, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB) == 0, "rs");
    ar_nccl_in b = in;
    b.cc_min = b.cc_max = 100;
    T_CHECK(ar_nccl_pipeline_fill_s(&b, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB) == 0, "blackwell");
    ar_nccl_in v = in;
    v.version = ar_nccl_version_parse("2.18");
    T_CHECK(ar_nccl_pipeline_fill_s(&v, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, GiB) == 0, "2.18");
    /* one node: the NVLS fill as before (test_pipeline_fill: 104.8576 us at 1 GiB) */
    ar_nccl_in one = h100_1node();
    one.tuner_only = 0;
    one.nvlstree_fill = 1;
    T_NEAR(ar_nccl_pipeline_fill_s(&one, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS, AR_NCCL_SIMPLE, GiB), 104.8576e-6, REL,
           "one node nvls fill unchanged");
    /* the shared pieces (the nvlstree schedule's slices and its bound, algos/switch_common.c, models/walk.c):
     * the rate, the tuner's NVLS_TREE algbw whatever nvlstree_fill says, and the chunk */
    double ops = 0;
    T_NEAR(ar_nccl_nvlstree_fill_bw(&in, &ops), a2 * 1e9, REL, "fill rate 2 nodes");
    T_CHECK(ops == 128, "ops = 16 x 8 (got %g)", ops);
    T_NEAR(ar_nccl_nvlstree_fill_bw(&four, NULL), 320.0 * 32 / 62 * 1e9, REL, "fill rate 4 nodes");
    T_CHECK(ar_nccl_nvlstree_fill_bw(&b, &ops) == 0 && ops == 0, "no fill rate on Blackwell");
    T_CHECK(ar_nccl_nvlstree_fill_bw(&v, NULL) == 0 && ar_nccl_nvlstree_fill_bw(&one, NULL) == 0, "nor 2.18, one node");
    /* one node's NVLS (the nvls schedule's bound and chunks): 8 heads x bwIntra 40 GB/s, ops 16 x 8; none
     * across nodes; the chunks of test_pipeline_fill */
    T_NEAR(ar_nccl_nvls_fill_bw(&one, &ops), 320e9, REL, "nvls fill rate one node");
    T_CHECK(ops == 128, "nvls ops = 16 x 8 (got %g)", ops);
    T_CHECK(ar_nccl_nvls_fill_bw(&in, &ops) == 0 && ops == 0, "no nvls fill rate across nodes");
    T_CHECK(ar_nccl_nvls_chunk(GiB, 128) == 131072 && ar_nccl_nvls_chunk(64 * MiB, 128) == 65536 &&
                ar_nccl_nvls_chunk(8 * MiB, 128) == 32768 && ar_nccl_nvls_chunk(4 * MiB, 128) == 16384,
            "NVLS chunks 128/64/32/16 KiB");
    T_CHECK(ar_nccl_nvlstree_chunk(64 * MiB, 128, 2) == 131072 && ar_nccl_nvlstree_chunk(16 * MiB, 128, 2) == 65536 &&
                ar_nccl_nvlstree_chunk(MiB, 128, 2) == 32768 && ar_nccl_nvlstree_chunk(GiB, 128, 4) == 65536,
            "NVLS_TREE chunks 128/64/32 KiB, 64 KiB from 4 nodes");
    /* from a platform: on by default, off with --nccl-model tuner (nccl_tuner_only 1) */
    ar_platform *p = NULL;
    ar_nccl_in pi;
    T_OK(ar_platform_load("dgx-h100:nodes=2", 0, &p, &t_e));
    for (int k = 0; k < 2; k++) {
        p->nccl_tuner_only = k;
        T_OK(ar_nccl_in_from_platform(p, 0, &pi, &t_e));
        T_CHECK(pi.nvlstree_fill == (k == 0) && pi.tuner_only == (k == 1), "from platform, --nccl-model %d", k);
    }
    ar_platform_free(p);
}

/* The share of Simple's bus bandwidth LL and LL128 keep, caps included (tuning.cc, NCCL 2.30.7's
 * constants; Hopper row, Intel host; ring = tree = 8 channels x 48 GB/s):
 *   8 nodes, ring LL: Simple 8 x 48 = 384 GB/s (bwInter beyond 2 nodes); LL min(llMaxBw[0][2] = 20.4,
 *     384 / 2 = 192) = 20.4 -> 20.4 / 384 = 0.053125 (the cap binds, not the factor 1/2)
 *   2 nodes, ring LL128: min(384 x 0.92 = 353.28, 8 x perChMaxRingLL128Bw 36.7 = 293.6) -> 293.6 / 384
 *   2 nodes, tree LL: Simple min(384 x 0.92, 8 x perChMaxTreeBw 41.4 = 331.2) = 331.2; LL min(331.2 / 3.8
 *     = 87.16, llMaxBw[0][1] = 39.0) = 39 -> 39 / 331.2
 *   ring Simple 1; NVLS (no such entry) and one rank: -1. */
static void test_proto_share(void) {
    ar_nccl_in in8 = h100_nodes(8), in2 = h100_nodes(2);
    T_NEAR(ar_nccl_proto_bw_share(&in8, AR_NCCL_RING, AR_NCCL_LL, 8), 20.4 / 384, 1e-12, "8 nodes ring LL share");
    T_NEAR(ar_nccl_proto_bw_share(&in2, AR_NCCL_RING, AR_NCCL_LL128, 8), 293.6 / 384, 1e-12,
           "2 nodes ring LL128 share");
    T_NEAR(ar_nccl_proto_bw_share(&in2, AR_NCCL_TREE, AR_NCCL_LL, 8), 39.0 / 331.2, 1e-12, "2 nodes tree LL share");
    T_NEAR(ar_nccl_proto_bw_share(&in2, AR_NCCL_RING, AR_NCCL_SIMPLE, 8), 1.0, 1e-12, "ring Simple share");
    /* one channel of the eight: ring LL min(20.4, 48 / 2 = 24) = 20.4 of 48 (the cap over all channels
     * still binds beyond two nodes); 2 nodes tree LL on one channel: min(41.4 / 3.8, 39) of 41.4 */
    T_NEAR(ar_nccl_proto_bw_share(&in8, AR_NCCL_RING, AR_NCCL_LL, 1), 20.4 / 48, 1e-12, "8 nodes ring LL, 1 channel");
    T_NEAR(ar_nccl_proto_bw_share(&in2, AR_NCCL_TREE, AR_NCCL_LL, 1), 1 / 3.8, 1e-12, "2 nodes tree LL, 1 channel");
    T_CHECK(ar_nccl_proto_bw_share(&in2, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 8) == -1, "NVLS has no protocol share");
    ar_nccl_in one;
    ar_nccl_in_defaults(&one, 90, 1, 1);
    T_CHECK(ar_nccl_proto_bw_share(&one, AR_NCCL_RING, AR_NCCL_LL, 1) == -1, "one rank has no protocol share");
}

/* One channel's flow rate under a protocol, the same model and cases as test_proto_share: a ring
 * channel's link carries its data at the bus rate over the channels, a tree channel's edge the whole
 * buffer at the algorithm rate (all-reduce: bus / 2) over them:
 *   8 nodes, ring LL, 8 channels: llMaxBw 20.4 over all of them -> 20.4 / 8 = 2.55 GB/s each
 *   8 nodes, ring LL, 1 channel: min(20.4, 48 / 2 = 24) = 20.4 on it alone
 *   2 nodes, ring LL128, 8 channels: 293.6 / 8 = perChMaxRingLL128Bw 36.7 each
 *   2 nodes, tree LL, 8 channels: 39 x 0.5 / 8 = 2.4375 each
 *   2 nodes, ring Simple, 8 channels: 384 / 8 = 48 (the graph's bandwidth per channel)
 *   NVLS and one rank: -1. */
static void test_proto_flow(void) {
    ar_nccl_in in8 = h100_nodes(8), in2 = h100_nodes(2);
    T_NEAR(ar_nccl_proto_flow_GBps(&in8, AR_NCCL_RING, AR_NCCL_LL, 8), 2.55, 1e-12, "8 nodes ring LL flow");
    T_NEAR(ar_nccl_proto_flow_GBps(&in8, AR_NCCL_RING, AR_NCCL_LL, 1), 20.4, 1e-12, "8 nodes ring LL, 1 channel");
    T_NEAR(ar_nccl_proto_flow_GBps(&in2, AR_NCCL_RING, AR_NCCL_LL128, 8), 36.7, 1e-12, "2 nodes ring LL128 flow");
    T_NEAR(ar_nccl_proto_flow_GBps(&in2, AR_NCCL_TREE, AR_NCCL_LL, 8), 2.4375, 1e-12, "2 nodes tree LL flow");
    T_NEAR(ar_nccl_proto_flow_GBps(&in2, AR_NCCL_RING, AR_NCCL_SIMPLE, 8), 48, 1e-12, "ring Simple flow");
    T_CHECK(ar_nccl_proto_flow_GBps(&in2, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 8) == -1, "NVLS has no protocol flow");
    ar_nccl_in one;
    ar_nccl_in_defaults(&one, 90, 1, 1);
    T_CHECK(ar_nccl_proto_flow_GBps(&one, AR_NCCL_RING, AR_NCCL_LL, 1) == -1, "one rank has no protocol flow");
}

/* NCCL's tree graph on Hopper with a NIC per GPU (search.cc ncclTopoCompute): the balanced tree needs a
 * second GPU at PCIe distance of the channel's NIC, none has one, and Hopper+ tries the simple TREE
 * pattern next, which the search keeps; 2.26+ price the tree x0.85 on it (tuning.cc maxTreePattern).
 * dgx-h100:nodes=8 at 2.26: the tree graph 8 x 48 GB/s (the ring's), 64 ranks, > 2 nodes (N4 caps):
 *   Simple: min(8 x 48 x 0.92 = 353.28, 8 x perChMaxTreeBw 36.0 = 288) = 288
 *   LL128:  min(288 x 120/128 = 270, 8 x perChMaxTreeLL128Bw 29.0 = 232) = 232
 *   x0.85: Simple 244.8, LL128 197.2; a channel's flow (algorithm bandwidth, x0.5, over 8 channels):
 *   Simple 15.3, LL128 12.325 GB/s (14.5 without the pattern's factor)
 * dgx-a100:nodes=8 (Ampere: no fallback), 2.18 (no factor in its tuner) and one node: the balanced tree. */
static void test_tree_pattern(void) {
    static const struct {
        const char *name;
        int version, want, balanced; /* the x0.85 (2.23+); BALANCED_TREE, in every release */
    } k[] = {{"dgx-h100:nodes=8", 22600, 1, 0}, {"dgx-h100:nodes=2", 23000, 1, 0}, {"dgx-b200:nodes=4", 22800, 1, 0},
             {"dgx-h100:nodes=8", 21800, 0, 0}, {"dgx-h100:nodes=4", 22400, 1, 0}, {"dgx-a100:nodes=8", 22600, 0, 1},
             {"dgx-a100:nodes=2", 21800, 0, 1}, {"dgx-h100", 22600, 0, 0},         {"dgx-a100", 23000, 0, 0}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ar_platform *p = NULL;
        ar_nccl_in in;
        T_OK(ar_platform_load(k[i].name, 0, &p, &t_e));
        if (!p) continue;
        p->nccl_version = k[i].version;
        T_OK(ar_nccl_in_from_platform(p, 0, &in, &t_e));
        T_CHECK(in.tree_pattern_tree == k[i].want, "%s at %d: tree pattern %d (want %d)", k[i].name, k[i].version,
                in.tree_pattern_tree, k[i].want);
        T_NEAR(ar_nccl_tree_pattern_factor(&in), k[i].want ? 0.85 : 1.0, 1e-15, "the pattern's factor");
        /* nccl-tree's heads=auto: NCCL's paired channels with LL128 / Simple on a balanced graph only */
        T_CHECK(in.tree_balanced == k[i].balanced, "%s at %d: balanced tree %d (want %d)", k[i].name, k[i].version,
                in.tree_balanced, k[i].balanced);
        T_CHECK(ar_nccl_tree_pairs(p, AR_PROTO_LL128) == k[i].balanced &&
                    ar_nccl_tree_pairs(p, AR_PROTO_SIMPLE) == k[i].balanced && !ar_nccl_tree_pairs(p, AR_PROTO_LL) &&
                    !ar_nccl_tree_pairs(p, AR_PROTO_NONE),
                "%s at %d: nccl-tree pairs with LL128 and Simple only where balanced", k[i].name, k[i].version);
        if (i == 0) {
            check_graph(&in.tree, 8, 48, 48, "h100 x 8 tree graph");
            T_NEAR(ar_nccl_proto_flow_GBps(&in, AR_NCCL_TREE, AR_NCCL_SIMPLE, 8), 15.3, 1e-12, "h100 x 8 tree Simple");
            T_NEAR(ar_nccl_proto_flow_GBps(&in, AR_NCCL_TREE, AR_NCCL_LL128, 8), 12.325, 1e-12, "h100 x 8 tree LL128");
        }
        ar_platform_free(p);
    }
}

int main(void) {
    test_tree_pattern();
    test_proto_share();
    test_proto_flow();
    test_pipeline_fill();
    test_nvlstree_fill();
    test_calibration();
    test_h100_one_node();
    test_a100_one_node();
    test_two_nodes();
    test_four_nodes();
    test_pat();
    test_collnet();
    test_busbw();
    test_from_platform();
    test_speed_arrays();
    test_errors();
    test_versions();
    test_channels();
    test_hop_latency();
    return t_done("test_nccl_model");
}
