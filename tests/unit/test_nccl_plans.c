/* nccl-ring and nccl-tree: valid (symbolic validator + host executor) on every
 * new preset (nccl-ring and nccl also for reduce-scatter and all-gather), multi-node rail versions of them and 20 random rail fabrics
 * (fixed seed); nccl-ring's channel c crosses between nodes from GPU c-1 to GPU
 * c (rail c); NCCL's double binary tree: both trees span every node, and no node
 * is an inner node of both (odd node counts: node 0 only); with heads=pair each GPU's NIC carries both trees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/nccl_algos.h"
#include "core/algo.h"
#include "models/model.h"
#include "models/nccl_model.h"
#include "../t.h"
#include "../t_plan.h"

/* nccl-ring's reduce-scatter and all-gather (and nccl's pick for them): exact in the validator and the
 * host executor, on even and uneven rank blocks; one op per channel, each on its rail between nodes, member
 * i owning slice c of rank members[i]'s block (a per-member layout), the channels' slices tiling it. */
static void check_colls(const ar_platform *p, const char *spec) {
    static const char *const algos[] = {"nccl-ring", "nccl-ring:channels=5", "nccl"};
    static const uint64_t counts[] = {2003, 4096};
    ar_err e = {{0}};
    for (int c = AR_COLL_REDUCESCATTER; c <= AR_COLL_ALLGATHER; c++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
            for (size_t k = 0; k < 2; k++) {
                ar_schedule *s = NULL;
                T_OK(ar_algo_plan_coll(algos[a], (ar_coll)c, p, counts[k], 4, &s, &e), e);
                if (!s) continue;
                const char *cn = ar_coll_name((ar_coll)c);
                T_CHECK(s->coll == (ar_coll)c, "%s %s on %s: collective %d", algos[a], cn, spec, (int)s->coll);
                ar_status st = ar_schedule_validate(s, &e);
                T_CHECK(st == AR_OK, "%s %s on %s, %llu: validator: %s", algos[a], cn, spec,
                        (unsigned long long)counts[k], e.msg);
                st = ar_schedule_execute_host(s, 0, &e);
                T_CHECK(st == AR_OK, "%s %s on %s, %llu: host executor: %s", algos[a], cn, spec,
                        (unsigned long long)counts[k], e.msg);
                if (strncmp(algos[a], "nccl-ring", 9) || s->nphases != 1) {
                    ar_schedule_free(s);
                    continue;
                }
                const ar_phase *ph = &s->phases[0];
                int g = p->nranks / (p->nmachines > 0 ? p->nmachines : 1), bad = 0, tiles = 1;
                uint64_t *seen = calloc((size_t)p->nranks, sizeof *seen);
                for (int ch = 0; ch < ph->nops; ch++) {
                    const ar_op *op = &ph->ops[ch];
                    for (int m = 0; m * g + g < p->nranks; m++)
                        bad += op->members[m * g + g - 1] != m * g + (ch + g - 1) % g ||
                               op->members[m * g + g] != (m + 1) * g + ch % g;
                    for (int i = 0; i < op->n && seen; i++) {
                        uint64_t bo, bl, o, l;
                        ar_coll_block(p->nranks, counts[k], op->members[i], &bo, &bl);
                        ar_op_block(op, i, &o, &l);
                        tiles &= op->offs && o == bo + seen[op->members[i]] && o + l <= bo + bl;
                        seen[op->members[i]] += l;
                    }
                }
                for (int r = 0; r < p->nranks && seen; r++) {
                    uint64_t bo, bl;
                    ar_coll_block(p->nranks, counts[k], r, &bo, &bl);
                    tiles &= seen[r] == bl;
                }
                T_CHECK(seen && tiles, "%s %s on %s: the channels' slices do not tile every rank's block", algos[a], cn,
                        spec);
                T_CHECK(bad == 0, "%s %s on %s: %d inter-node hops off their rail", algos[a], cn, spec, bad);
                free(seen);
                ar_schedule_free(s);
            }
}

static void check_plans(const char *spec) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load(spec, 0, &p, &e), e);
    if (!p) return;
    static const char *const algos[] = {"nccl-ring",
                                        "nccl-tree",
                                        "nccl-tree:channels=3,chunks=3",
                                        "nccl-tree:heads=pair",
                                        "nccl-tree:channels=3,heads=pair",
                                        "nccl-ring:channels=5"};
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        ar_schedule *s = NULL;
        T_OK(ar_algo_plan(algos[a], p, 2003, 4, &s, &e), e);
        if (!s) continue;
        ar_status st = ar_schedule_validate(s, &e);
        T_CHECK(st == AR_OK, "%s on %s: validator: %s", algos[a], spec, e.msg);
        st = ar_schedule_execute_host(s, 0, &e);
        T_CHECK(st == AR_OK, "%s on %s: host executor: %s", algos[a], spec, e.msg);
        if (!strncmp(algos[a], "nccl-ring", 9)) { /* channel c: GPU c-1 of node m -> GPU c of node m+1 */
            int g = p->nranks / (p->nmachines > 0 ? p->nmachines : 1);
            const ar_phase *ph = &s->phases[0];
            int bad = 0;
            for (int c = 0; c < ph->nops; c++)
                for (int m = 0; m * g + g < p->nranks; m++) {
                    const int *r = ph->ops[c].members;
                    bad += r[m * g + g - 1] != m * g + (c + g - 1) % g || r[m * g + g] != (m + 1) * g + c % g;
                }
            T_CHECK(bad == 0, "%s on %s: %d inter-node hops off their rail", algos[a], spec, bad);
        }
        ar_schedule_free(s);
    }
    check_colls(p, spec);
    ar_platform_free(p);
}

static void check_dtree(int M) {
    int *kids0 = calloc((size_t)M, sizeof(int)), *kids1 = calloc((size_t)M, sizeof(int));
    for (int t = 0; t < 2; t++) {
        int roots = 0, bad = 0;
        for (int x = 0; x < M; x++) {
            int q = ar_nccl_dtree_parent(M, t, x), steps = 0, y = x;
            if (q < 0) roots++;
            else (t ? kids1 : kids0)[q]++;
            while (y >= 0 && steps <= M) {
                y = ar_nccl_dtree_parent(M, t, y);
                steps++;
            }
            bad += steps > M;
        }
        T_CHECK(roots == 1 && bad == 0, "dtree M=%d tree %d: %d roots, %d nodes off the tree", M, t, roots, bad);
    }
    int both = 0, over = 0;
    for (int x = 0; x < M; x++) {
        both += kids0[x] > 0 && kids1[x] > 0;
        over += kids0[x] > 2 || kids1[x] > 2;
    }
    /* odd M: the shifted tree makes node 0 (tree 0's root, one child) inner in tree 1 too */
    T_CHECK(both <= M % 2 && over == 0, "dtree M=%d: %d nodes inner in both trees, %d with > 2 children", M, both,
            over);
    T_CHECK(ar_nccl_dtree_parent(M, 0, 0) == -1, "tree 0 root is node 0");
    free(kids0);
    free(kids1);
}

/* Protocols: the op field round-trips through JSON; on one NVSwitch node (no
 * contention, equal blocks) the walk of a one-channel ring with protocol X is
 * the protocol-free walk with its bandwidth part divided by NCCL's factor, plus
 * NCCL's NVLink step latency's excess over the hop's latency per round and its
 * base latency per phase. */
static void check_protocols(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("dgx-a100", 0, &p, &e), e);
    if (!p) return;
    static const char *const words[] = {"ll", "ll128", "simple"};
    static const ar_nccl_proto nps[] = {AR_NCCL_LL, AR_NCCL_LL128, AR_NCCL_SIMPLE};
    ar_schedule *s0 = NULL;
    ar_model_result m0, m;
    T_OK(ar_algo_plan("nccl-ring:channels=1", p, 8000000, 4, &s0, &e), e);
    if (s0) T_OK(ar_model_walk(p, s0, &m0, &e), e);
    int rounds = 2 * (p->nranks - 1);
    double alpha = ar_plat_alpha(p);
    for (int k = 0; k < 3 && s0; k++) {
        char spec[64];
        snprintf(spec, sizeof spec, "nccl-ring:channels=1,proto=%s", words[k]);
        ar_schedule *s = NULL, *t = NULL;
        T_OK(ar_algo_plan(spec, p, 8000000, 4, &s, &e), e);
        if (!s) continue;
        T_CHECK(s->phases[0].ops[0].proto == (ar_proto)(k + 1), "%s: op proto %d", spec,
                (int)s->phases[0].ops[0].proto);
        char *j = schedule_json(s), *j2 = NULL;
        T_OK(ar_schedule_from_json(j, spec, &t, &e), e);
        if (t) j2 = schedule_json(t);
        T_CHECK(t && t->phases[0].ops[0].proto == s->phases[0].ops[0].proto && j2 && !strcmp(j, j2),
                "%s: JSON round trip", spec);
        double f, step, base;
        T_OK(ar_nccl_proto_effect(AR_NCCL_RING, nps[k], 1, 0, &f, &step, &base));
        T_OK(ar_model_walk(p, s, &m, &e), e);
        /* NCCL's step includes the hop: a round adds only the step's excess over the hop's route latency (alpha);
         * the base latency once (tuning.cc: baseLat once per operation), not once per phase (two phases here) */
        double excess = step * 1e-6 > alpha ? step * 1e-6 - alpha : 0;
        double want = rounds * alpha + (m0.time_s - rounds * alpha) / f + rounds * excess + base * 1e-6;
        T_NEAR(m.time_s, want, 1e-9, spec);
        free(j);
        free(j2);
        ar_schedule_free(t);
        ar_schedule_free(s);
    }
    ar_schedule_free(s0);
    ar_platform_free(p);
}

/* NVLS's latency in the `nccl` pick. tuning.cc charges NVLS (Simple only) one latency per operation, not
 * per step: 2.30 baseLat[NVLS] 0 + hwLat[NVLINK][NVLS][SIMPLE] 25 us; 2.18 baseLat 23 us + hwLat 0. Its
 * network part (hwLat[NET], 18 us) belongs to the step across nodes: 0 here. On dgx-h100 (one node) at
 * 16 MiB NCCL picks NVLS: the pick is nvls's schedule with Simple on its one switch op, so its walk is
 * nvls's plus 25 us less the op's hop (GPU -> NVSwitch -> GPU: two 1 us links = 2 us): 23 us. */
static void check_nvls_latency(void) {
    double f = 0, step = -1, base = 0;
    T_OK(ar_nccl_proto_effect_v(0, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 1, 0, &f, &step, &base));
    T_CHECK(f == 1.0 && step == 0 && base == 25.0, "2.30 NVLS: factor %g step %g base %g, want 1, 0, 25", f, step,
            base);
    T_OK(ar_nccl_proto_effect_v(21800, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, 2, 0, NULL, NULL, &base));
    T_CHECK(base == 23.0, "2.18 NVLS_TREE: base %g, want 23 (baseLat)", base);
    T_OK(ar_nccl_proto_effect_v(0, AR_NCCL_NVLS, AR_NCCL_SIMPLE, 2, 1, NULL, &step, &base));
    T_CHECK(step == 0 && base == 0, "NVLS across nodes: no step, no base (%g, %g)", step, base);
    ar_platform *p = NULL;
    ar_err e = {{0}};
    /* a Blackwell node: on Hopper the pick's transfers also run at NCCL's NVLS op rate (sim_proto_rate),
     * which the plain nvls does not; here the latency alone tells them apart */
    T_OK(ar_platform_load("dgx-b200", 0, &p, &e), e);
    if (!p) return;
    ar_schedule *sn = NULL, *sv = NULL;
    ar_model_result mn, mv;
    uint64_t count = 16 * 1024 * 1024 / 4;
    T_OK(ar_algo_plan("nccl", p, count, 4, &sn, &e), e);
    T_OK(ar_algo_plan("nvls", p, count, 4, &sv, &e), e);
    if (sn && sv) {
        T_CHECK(sn->detail && strstr(sn->detail, "NVLS/SIMPLE -> nvls"), "dgx-b200 16 MiB: NCCL picks NVLS (%s)",
                sn->detail ? sn->detail : "");
        T_CHECK(sn->nphases == 1 && sn->phases[0].ops[0].impl == AR_IMPL_SWITCH &&
                    sn->phases[0].ops[0].proto == AR_PROTO_SIMPLE,
                "the pick's switch op carries Simple");
        T_OK(ar_model_walk(p, sn, &mn, &e), e);
        T_OK(ar_model_walk(p, sv, &mv, &e), e);
        T_NEAR(mn.time_s, mv.time_s + 24.4e-6, 1e-9, "nccl (NVLS) = nvls + 25 us - 0.6 us hop");
    }
    ar_schedule_free(sn);
    ar_schedule_free(sv);
    ar_platform_free(p);
}

/* NCCL's tree chunking (NCCL 2.30, enqueue.cc calcCollChunking), by hand on dgx-a100:nodes=16 (128
 * ranks, 16 nodes, ppn 8) over 8 channels. LL128: the step 4 915 200 / 8 = 614 400 B of lines, 576 000 B
 * of data; TREE halves it while nBytes / (8 chunk) < (1 + lg 16 + 0.1 x 8) x 64 / 8 = 46.4 (down to
 * 128 KiB). 64 MiB: 67 108 864 / 4 608 000 = 14 -> / 2 304 000 = 29 -> / 1 152 000 = 58, stop at
 * 144 000 B: 8 388 608 / 144 000 = 58.25, 59 chunks a channel. 128 MiB: 29 -> 58 at 288 000 B: 59.
 * 512 MiB: 116 at 576 000 B, 117 chunks: AR_NCCL_TREE_MAX_CHUNKS (64). Simple: 512 KiB; 192 MiB over
 * 8 channels: 24 MiB / 512 KiB = 48. LL: 4 KiB pieces; 1 MiB: 128 KiB / 4 KiB = 32; 2 MiB: 64. */
static void check_tree_chunks(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("dgx-a100:nodes=16", 0, &p, &e), e);
    if (!p) return;
    const double MiB = 1048576.0;
    static const struct {
        ar_proto pr;
        double mib;
        int want;
    } c[] = {{AR_PROTO_LL128, 64, 59},   {AR_PROTO_LL128, 128, 59}, {AR_PROTO_LL128, 512, AR_NCCL_TREE_MAX_CHUNKS},
             {AR_PROTO_SIMPLE, 192, 48}, {AR_PROTO_LL, 1, 32},      {AR_PROTO_LL, 2, 64}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int got = ar_nccl_tree_chunks(p, c[i].pr, c[i].mib * MiB, 8);
        T_CHECK(got == c[i].want, "tree chunks %s %g MiB: %d, want %d", ar_proto_name(c[i].pr), c[i].mib, got,
                c[i].want);
    }
    T_CHECK(AR_NCCL_TREE_MAX_CHUNKS == 64, "the cap is 64 chunks");
    ar_platform_free(p);
}

/* heads=pair: every NIC carries both trees. rail:nodes=4,gpus=2 (rank 2x + g is GPU g of node x,
 * its own NIC), nccl-tree:channels=4,heads=pair over 4000 elements: channels 0 and 2 head at GPU 0,
 * 1 and 3 at GPU 1; 0 and 1 carry tree 0, 2 and 3 tree 1, 1000 elements each. Tree 0 over 4 nodes:
 * 1 -> 2, 3 -> 2, 2 -> 0 (root 0), node degrees by node 0..3: 1, 1, 3, 1; tree 1 (mirrored): 0 -> 1,
 * 2 -> 1, 1 -> 3 (root 3), degrees 1, 3, 1, 1. A GPU's NIC takes one channel of each tree, its
 * node's inter-node edges in both: 1 + 1 = 2, 1 + 3 = 4, 3 + 1 = 4, 1 + 1 = 2 edges of 1000
 * elements each way, on both GPUs of a node. heads=rail (channel c on GPU c mod 2 with tree c mod 2)
 * gives GPU 0 tree 0 twice (node 2: 6 edges) and GPU 1 tree 1 twice (node 1: 6), the other GPU 2. */
static void check_tree_nics(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("rail:nodes=4,gpus=2", 0, &p, &e), e);
    if (!p) return;
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("nccl-tree:channels=4,heads=pair", p, 4000, 4, &s, &e), e);
    T_CHECK(s && s->nphases == 1 && s->phases[0].nops == 4, "nccl-tree:channels=4,heads=pair: one phase of 4 ops");
    if (s && s->nphases == 1 && s->phases[0].nops == 4 && p->nranks == 8) {
        uint64_t load[8] = {0};
        for (int c = 0; c < 4; c++) {
            const ar_op *op = &s->phases[0].ops[c];
            for (int m = 0; m < op->n; m++) {
                int q = op->parent[m];
                if (q < 0 || p->machine_of_rank[op->members[m]] == p->machine_of_rank[op->members[q]]) continue;
                load[op->members[m]] += op->count;
                load[op->members[q]] += op->count;
            }
        }
        static const uint64_t want[8] = {2000, 2000, 4000, 4000, 4000, 4000, 2000, 2000};
        for (int r = 0; r < 8; r++)
            T_CHECK(load[r] == want[r], "nccl-tree heads=pair NIC of rank %d: %llu elements, want %llu", r,
                    (unsigned long long)load[r], (unsigned long long)want[r]);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    check_tree_chunks();
    check_tree_nics();
    check_protocols();
    check_nvls_latency();
    static const char *const presets[] = {"dgx-a100",         "dgx-h100",        "dgx-b200",         "gb200-nvl72",
                                          "aws-p4d",          "aws-p5",          "dgx-a100:nodes=2", "dgx-h100:nodes=3",
                                          "dgx-b200:nodes=4", "aws-p4d:nodes=5", "aws-p5:nodes=2"};
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) check_plans(presets[i]);
    unsigned seed = 12345;
    for (int k = 0; k < 20; k++) {
        seed = seed * 1103515245u + 12345u;
        int nodes = 1 + (int)(seed >> 16) % 9;
        seed = seed * 1103515245u + 12345u;
        int gpus = 1 + (int)(seed >> 16) % 8;
        char spec[96];
        snprintf(spec, sizeof spec, "rail:nodes=%d,gpus=%d%s", nodes, gpus, k % 3 == 0 ? ",spine=2" : "");
        check_plans(spec);
    }
    for (int M = 1; M <= 70; M++) check_dtree(M);
    check_dtree(1024);
    return t_done("test_nccl_plans");
}
