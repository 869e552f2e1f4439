/* NCCL's proxy posts in NVLS_TREE across nodes, by hand: the term (ar_nccl_nvlstree_proxy_s), its place
 * in the schedule's first phase with a protocol (ar_phase_proto_effect's base), and the `nccl` schedule
 * with it = the walk in every engine.
 *
 * dgx-h100 (NCCL's model of it: 8 NVLS heads a node, one per GPU and NIC, NVLS graph bwInter 48 GB/s, 16
 * runtime NVLS channels on Hopper, so 16 x 8 = 128 concurrent ops). One post AR_NCCL_PROXY_POST_US =
 * 0.40 us: a tree edge's first step takes at least 16 x 0.40 = 6.4 us of posts, less the step's bytes on
 * the head's NIC, on each of the 2 log2(nodes) network steps:
 *   2 nodes, 1 MiB: chunk 128 KiB cut to 64 KiB (1 MiB < 4 x 128 x 128 KiB) and 32 KiB (< 128 x 64 KiB);
 *     the step: min(1 MiB, 128 x 32 KiB = 4 MiB) = 1 MiB, 131 072 B a head, 131072 / 48e9 = 2.730667 us;
 *     2 x (6.4 - 2.730667) = 7.338666667 us.
 *   2 nodes, 4 MiB: chunk 32 KiB (4 MiB < 128 x 64 KiB = 8 MiB), step 4 MiB, 524 288 B a head,
 *     10.922667 us > 6.4: 0.
 *   4 nodes, 2 MiB: chunk 64 KiB (at most 64 KiB from 4 nodes) cut to 32 KiB (< 8 MiB); step 2 MiB,
 *     262 144 B a head, 5.461333 us; 2 log2(4) = 4 network steps: 4 x (6.4 - 5.461333) = 3.754666667 us.
 *   1 node: 0 (no network step); dgx-b200:nodes=2: 0 (Blackwell: NCCL's NVLS_TREE fill and its terms are
 *     Hopper's only, ar_nccl_nvlstree_fill_bw).
 * The `nccl` schedule at NCCL 2.26.2 (NVLS_TREE/Simple, `nvlstree:proto=auto`) at 1 MiB and at 4 MiB on 2 nodes has the
 * same first phase (the first step's switch ops, NCCL's NVLS latency less their hop), so the base of that
 * phase at 1 MiB less the one at 4 MiB is the term: 7.338666667 us (0 before the term). At 1 MiB the walk
 * = the fast and naive engines, dataflow, to 1e-9. */
#include "sim_util.h"

static double proxy_us(const char *plat, double bytes) {
    ar_platform *p = sim_platform(plat);
    ar_nccl_in in;
    double t = -1;
    if (p && ar_nccl_in_from_platform(p, 0, &in, NULL) == AR_OK) t = ar_nccl_nvlstree_proxy_s(&in, bytes) * 1e6;
    ar_platform_free(p);
    return t;
}

/* the base of the `nccl` schedule's first phase with a protocol at `bytes` (4-byte floats); *s kept */
static double first_base(const ar_platform *p, uint64_t bytes, ar_schedule **s) {
    ar_err e = {{0}};
    *s = NULL;
    if (ar_algo_plan_coll("nccl", AR_COLL_ALLREDUCE, p, bytes / 4, 4, s, &e) != AR_OK) {
        T_CHECK(0, "plan nccl %llu B: %s", (unsigned long long)bytes, e.msg);
        return -1;
    }
    T_CHECK(strstr((*s)->detail, "NVLS_TREE") != NULL, "nccl %llu B is NVLS_TREE (%s)", (unsigned long long)bytes,
            (*s)->detail);
    ar_proto_ctx pc;
    ar_proto_ctx_init(&pc, p, *s);
    double f, step, base = -1;
    if (pc.first_proto < (*s)->nphases) ar_phase_proto_effect(&pc, pc.first_proto, &f, &step, &base, NULL);
    return base;
}

int main(void) {
    struct {
        const char *plat;
        double bytes, hand_us;
    } c[] = {{"dgx-h100:nodes=2", 1048576, 2 * (6.4 - 131072 / 48e9 * 1e6)},
             {"dgx-h100:nodes=2", 4194304, 0},
             {"dgx-h100:nodes=4", 2097152, 4 * (6.4 - 262144 / 48e9 * 1e6)},
             {"dgx-h100", 1048576, 0},
             {"dgx-b200:nodes=2", 1048576, 0}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        double t = proxy_us(c[k].plat, c[k].bytes);
        printf("%-18s %9.0f B: proxy %.9f us, hand %.9f us\n", c[k].plat, c[k].bytes, t, c[k].hand_us);
        T_CHECK(fabs(t - c[k].hand_us) <= 1e-9, "%s %.0f B: proxy %.17g us, by hand %.17g", c[k].plat, c[k].bytes, t,
                c[k].hand_us);
    }
    ar_platform *p = sim_platform("dgx-h100:nodes=2");
    T_CHECK(p != NULL, "dgx-h100:nodes=2 loads");
    if (!p) return t_done("sim_nvlstree_proxy");
    p->nccl_version = ar_nccl_version_parse("2.26.2"); /* the log's release: NCCL picks NVLS_TREE at 1-4 MiB */
    ar_schedule *s1 = NULL, *s4 = NULL;
    double b1 = first_base(p, 1048576, &s1), b4 = first_base(p, 4194304, &s4);
    printf("first phase's base: 1 MiB %.9f us, 4 MiB %.9f us\n", b1 * 1e6, b4 * 1e6);
    T_CHECK(b4 > 0 && fabs((b1 - b4) * 1e6 - 2 * (6.4 - 131072 / 48e9 * 1e6)) <= 1e-9,
            "base at 1 MiB - at 4 MiB %.17g us, by hand 7.338666667", (b1 - b4) * 1e6);
    if (s1) {
        ar_err e = {{0}};
        ar_model_result m;
        T_CHECK(ar_model_walk(p, s1, &m, &e) == AR_OK, "walk: %s", e.msg);
        for (size_t k = 0; k < SIM_NMODES; k++) {
            if (sim_modes[k].sync != AR_SYNC_DATAFLOW) continue;
            ar_sim_result r;
            ar_status st = sim_run_mode(p, s1, &sim_modes[k], 0, &r, &e);
            T_CHECK(st == AR_OK && r.complete, "nccl 1 MiB (%s): %s", sim_modes[k].name, e.msg);
            if (st == AR_OK) {
                printf("nccl 1 MiB %-22s sim %.9f us, walk %.9f us\n", sim_modes[k].name, r.time_s * 1e6,
                       m.time_s * 1e6);
                T_CHECK(sim_rel(r.time_s, m.time_s) <= 1e-9, "nccl 1 MiB (%s): sim %.17g, walk %.17g",
                        sim_modes[k].name, r.time_s, m.time_s);
            }
            ar_sim_result_free(&r);
        }
    }
    ar_schedule_free(s1);
    ar_schedule_free(s4);
    ar_platform_free(p);
    return t_done("sim_nvlstree_proxy");
}
