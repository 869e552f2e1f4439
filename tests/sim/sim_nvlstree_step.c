/* NVLS_TREE across two nodes with NCCL's Simple network step, by hand. proto=simple: every transfer
 * across the nodes pays max(route latency, NCCL's Simple step) (ar_xfer_proto_step), and nvlstree's
 * estimate (algos/switch_common.c tree_split) weighs its slices against that step, not against the
 * wire's latency alone. proto=fill: only the first slice's trees pay it (the pipeline's fill). The
 * walk and both simulator engines in every mode equal the hand times to 1e-9.
 *
 * Platform: rail:nodes=2,gpus=2,nvls=100GBps,nic=1GBps: two nodes of two GPUs, each GPU on its
 * node's NVSwitch by a link of 18 x 20.6 = 370.8 GB/s and 0.3 us (the switch reduces at R = 100
 * GB/s), GPU j of each node on rail switch j by a 1 GB/s link of 1 us (across: 2 us, 1 GB/s); no
 * per-message costs. NCCL 2.30's tree Simple step across nodes: 14 us; its base: 8.4 us, once.
 * Schedule nvlstree:proto=simple,chunks=1, N = 3.84 MB (960 000 floats), H = 2 heads (rails).
 *
 * The estimate (two nodes: tree height h = 1, one chunk per tree is best): with K slices every
 * step costs the larger of the trees, lr + S / (K H nic) (one slice up beside one down, x = S/(2KH)
 * each way on a rail), and the NVSwitch stage, S / K x max(1/nvl, g/R) = S / (50 GB/s K): the trees
 * (S/(2 GB/s K)), plus the first and last NVSwitch stages: T(K) = (K + 1)(lr + 1920 us / K) + 2 x
 * 76.8 us / K = (K + 1) lr + 1920 + 2073.6 / K us, least at K = sqrt(2073.6 / lr): lr = 14 us (the
 * step) gives K = 12 (T(12) = 2274.8, T(13) = 2275.5 us; main, lr = the route's 2 us, took K = 32).
 * 80 000 floats a slice, 20 000 (80 KB) a tree.
 *
 * The schedule: 4 stages (RS in the node, reduce up the trees, broadcast down, AG in the node), K +
 * 3 = 15 steps, each a barrier:
 *   step 0: RS of slice 0 alone: up 0.3 + max(320 KB / 370.8 GB/s, 2 x 320 KB / 100 GB/s) = 6.7 us,
 *     down (each GPU its 160 KB) 0.3 + 160 KB / 370.8 GB/s:               7.43150 us
 *   step 1: slice 0 up the trees (each rail: node 1 -> 0 for tree 0, node 0 -> 1 for tree 1, one
 *     direction each): 14 + 80 KB / 1 GB/s = 94 us, plus the base 8.4 once:  102.4 us
 *   steps 2-12: slice t - 1 up beside slice t - 2 down: two 80 KB flows on every rail direction,
 *     14 + 160 = 174 us each (the NVSwitch stages beside them, < 8 us, do not show): 11 x 174
 *   step 13: slice 11 down alone:                                             94 us
 *   step 14: AG of slice 11: up 0.3 + 160 KB / 370.8 GB/s, down 0.3 + 320 KB / 370.8 GB/s
 *   T = 7.43150 + 102.4 + 1914 + 94 + 1.89450 = 2119.726 us (main: 32 slices, 2394.6 us).
 * Lockstep and dataflow alike (Simple is two-sided; every step's transfers start together).
 *
 * proto=fill (the `nccl` pick's): Simple on the first slice's trees only, the pipeline's fill. The
 * estimate is that of no protocol (the fill is a constant): K = 32, 30 000 floats a slice, 7 500 (30
 * KB) a tree. A Simple transfer pays its step's excess over its route (14 - 2 us) after its network
 * part (ar_xfer_proto_step):
 *   step 0: RS of slice 0: up 0.3 + 2 x 120 KB / 100 GB/s = 2.7 us, down 0.3 + 60 KB / 370.8 GB/s
 *   step 1: slice 0 up (Simple): 2 + 30 + 12 us, plus the trees' Simple base 8.4 once: 52.4 us
 *   step 2: slice 1 up beside slice 0 down (Simple) on each rail direction: both 30 KB flows from 2 us
 *     share 1 GB/s to 62 us, then slice 0's excess 12 us:                   74 us
 *   steps 3-32: two 30 KB flows on the wire: 2 + 60 = 62 us each:           30 x 62 us
 *   step 33: slice 31 down alone: 2 + 30 = 32 us; step 34: AG of slice 31:
 *     0.3 + 60 KB / 370.8 GB/s + 0.3 + 120 KB / 370.8 GB/s
 *   T = 3.16181 + 52.4 + 74 + 1860 + 32 + 1.08544 = 2022.647 us (no protocol: 1990.247 us; main
 *   has no proto=fill).
 *
 * And `nccl` on dgx-h100:nodes=2 where NCCL picks NVLS_TREE (4 MiB) is nvlstree:proto=fill with NCCL's
 * NVLS latency (25 us, less the switch op's own hop, 0.6 us) on its first step's switch ops (one per
 * node): one base per operation, so that base replaces the trees' 8.4 us: the walk of
 * nvlstree:proto=fill - 8.4 + 25 - 0.6 us, to 1e-12 (main: no protocol anywhere, 46.8 us).
 *
 * Blackwell (the same fabric, gpu=b200): NCCL 2.30's model multiplies NVLS_TREE's bandwidth below 1 GiB
 * by its trees' correction (tuning.cc, x86, sm_100+): log2(3.84 MB / 64) = 15, Simple's 0.6. Every
 * phase with tree ops across the nodes (steps 1-33) carries 1 / 0.6 wire bytes per byte; the first
 * reduce-scatter and the last all-gather (switch ops only) keep theirs. The estimate is unchanged
 * (K = 32), each tree's 30 KB now 50 KB on the wire:
 *   step 1: 8.4 + 2 + 50 + 12 = 72.4 us; step 2: 2 + 100 + 12 = 114 us; steps 3-32: 30 x 102 us;
 *   step 33: 2 + 50 = 52 us (the NVSwitch stages beside them, 2.4 / 0.6 = 4 us, do not show)
 *   T = 3.16181 + 72.4 + 114 + 3060 + 52 + 1.08544 = 3302.647 us (main, without the factor: the
 *   Hopper time, 2022.647 us). */
#include "models/nccl_model.h"
#include "sim_util.h"

static const char *const plat = "rail:nodes=2,gpus=2,nvls=100GBps,nic=1GBps";

static void hand_case(void) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "platform %s loads", plat);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->nranks == 4, "two nodes of two GPUs");
    if (ar_algo_plan("nvlstree:proto=simple,chunks=1", p, 960000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "plan nvlstree: %s", e.msg);
        ar_platform_free(p);
        return;
    }
    T_CHECK(s->nphases == 15, "12 slices, 4 stages: 15 steps (got %d phases; detail %s)", s->nphases,
            s->detail ? s->detail : "");
    int simple = 0, tree = 0;
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++)
            if (s->phases[ph].ops[i].impl == AR_IMPL_TREE) {
                tree++;
                simple += s->phases[ph].ops[i].proto == AR_PROTO_SIMPLE;
            }
    T_CHECK(tree == 2 * 2 * 2 * 12 && simple == tree, "every tree op Simple (%d of %d)", simple, tree);
    double nvl = 18 * 20.6e9, us = 1e-6;
    double rs = 0.3 * us + 640e3 / 100e9 + 0.3 * us + 160e3 / nvl;
    double ag = 0.3 * us + 160e3 / nvl + 0.3 * us + 320e3 / nvl;
    double hand = rs + (8.4 + 14 + 80) * us + 11 * (14 + 160) * us + (14 + 80) * us + ag;
    if (s->nphases == 15) sim_modes_vs_hand("nvlstree simple step", p, s, hand, hand, 1);
    ar_schedule_free(s);
    ar_platform_free(p);
}

static void fill_case(void) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "platform %s loads", plat);
    if (!p) return;
    if (ar_algo_plan("nvlstree:proto=fill,chunks=1", p, 960000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "plan nvlstree:proto=fill: %s", e.msg);
        ar_platform_free(p);
        return;
    }
    T_CHECK(s->nphases == 35, "32 slices, 4 stages: 35 steps (got %d phases; detail %s)", s->nphases,
            s->detail ? s->detail : "");
    int simple = 0, tree = 0, first = 0;
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            if (op->impl != AR_IMPL_TREE) continue;
            tree++;
            simple += op->proto == AR_PROTO_SIMPLE;
            first += op->tag == 0;
            T_CHECK((op->proto == AR_PROTO_SIMPLE) == (op->tag == 0),
                    "phase %d op %d (slice %d): Simple only in slice 0", ph, i, op->tag);
        }
    T_CHECK(tree == 2 * 2 * 2 * 32 && simple == first && first == 8, "slice 0's 8 tree ops Simple (%d, %d of %d)",
            simple, first, tree);
    double nvl = 18 * 20.6e9, us = 1e-6;
    double rs = 0.3 * us + 240e3 / 100e9 + 0.3 * us + 60e3 / nvl;
    double ag = 0.3 * us + 60e3 / nvl + 0.3 * us + 120e3 / nvl;
    double hand = rs + (8.4 + 2 + 30 + 12) * us + 74 * us + 30 * 62 * us + 32 * us + ag;
    if (s->nphases == 35) sim_modes_vs_hand("nvlstree fill", p, s, hand, hand, 1);
    ar_schedule_free(s);
    ar_platform_free(p);
}

static void blackwell_case(void) {
    /* the factor itself, against tuning.cc's table (Simple's row by log2(bytes / 64)) */
    ar_nccl_in in;
    ar_nccl_in_defaults(&in, 100, 16, 2);
    double c16 = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 16777216.0);
    double c64 = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 67108864.0);
    double c1g = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 1073741824.0);
    double c384 = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 3840000.0);
    ar_nccl_in_defaults(&in, 90, 16, 2);
    double h16 = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 16777216.0);
    ar_nccl_in_defaults(&in, 100, 16, 2);
    in.version = 22800;
    double v228 = ar_nccl_nvlstree_corr(&in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, 16777216.0);
    T_CHECK(c16 == 0.7 && c64 == 0.8 && c1g == 1.0 && c384 == 0.6 && h16 == 1.0 && v228 == 1.0,
            "NVLS_TREE correction: 16 MiB %g (0.7), 64 MiB %g (0.8), 1 GiB %g (1), 3.84 MB %g (0.6), Hopper %g (1), "
            "2.28 %g (1)",
            c16, c64, c1g, c384, h16, v228);

    const char *bplat = "rail:nodes=2,gpus=2,nvls=100GBps,nic=1GBps,gpu=b200";
    ar_platform *p = sim_platform(bplat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_CHECK(p != NULL, "platform %s loads", bplat);
    if (!p) return;
    if (ar_algo_plan("nvlstree:proto=fill,chunks=1", p, 960000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "plan nvlstree:proto=fill on b200: %s", e.msg);
        ar_platform_free(p);
        return;
    }
    T_CHECK(s->nphases == 35, "b200: 32 slices, 4 stages: 35 steps (got %d phases; detail %s)", s->nphases,
            s->detail ? s->detail : "");
    double nvl = 18 * 20.6e9, us = 1e-6;
    double rs = 0.3 * us + 240e3 / 100e9 + 0.3 * us + 60e3 / nvl;
    double ag = 0.3 * us + 60e3 / nvl + 0.3 * us + 120e3 / nvl;
    double hand = rs + (8.4 + 2 + 50 + 12) * us + 114 * us + 30 * 102 * us + 52 * us + ag;
    if (s->nphases == 35) sim_modes_vs_hand("nvlstree fill b200", p, s, hand, hand, 1);
    ar_schedule_free(s);
    ar_platform_free(p);
}

static double walk_of(const ar_platform *p, const char *algo, uint64_t count, ar_schedule **keep) {
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    ar_model_result m;
    double t = NAN;
    if (ar_algo_plan(algo, p, count, 4, &s, &e) == AR_OK && ar_model_walk(p, s, &m, &e) == AR_OK) t = m.time_s;
    T_CHECK(t == t, "%s: %s", algo, e.msg);
    if (keep) *keep = s;
    else ar_schedule_free(s);
    return t;
}

static void nccl_case(void) {
    ar_platform *p = sim_platform("dgx-h100:nodes=2");
    T_CHECK(p != NULL, "dgx-h100:nodes=2 loads");
    if (!p) return;
    ar_schedule *s = NULL;
    uint64_t count = 1048576; /* 4 MiB of floats: NCCL picks NVLS_TREE/Simple */
    double tn = walk_of(p, "nccl", count, &s), tf = walk_of(p, "nvlstree:proto=fill", count, NULL);
    int bad = 0, tree = 0, sw = 0;
    for (int ph = 0; s && ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            if (op->impl == AR_IMPL_TREE) {
                tree++;
                bad += (op->proto == AR_PROTO_SIMPLE) != (op->tag == 0);
            } else if (op->impl == AR_IMPL_SWITCH && op->proto == AR_PROTO_SIMPLE) sw++;
        }
    double hop = ar_platform_route_lat(p, 0, 1), want = tf - 8.4e-6 + 25e-6 - hop;
    printf("nccl dgx-h100:nodes=2 4 MiB walk %.6f us, nvlstree:proto=fill %.6f us - 8.4 + 25 us - hop %.3f us\n",
           tn * 1e6, tf * 1e6, hop * 1e6);
    T_CHECK(s && strstr(s->detail, "NVLS_TREE") && tree > 0 && bad == 0 && sw == 2,
            "nccl: slice 0's trees Simple (%d wrong of %d), the first step's two switch ops Simple (%d; %s)", bad, tree,
            sw, s ? s->detail : "");
    T_CHECK(hop > 0 && hop < 25e-6 && sim_rel(tn, want) <= 1e-12,
            "nccl %.17g = nvlstree:proto=fill - 8.4 + 25 us - hop %.17g", tn, want);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    hand_case();
    fill_case();
    blackwell_case();
    nccl_case();
    return t_done("sim_nvlstree_step");
}
