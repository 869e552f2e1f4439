/* The fast engine's derived dataflow run (sim/fast_dataflow_cert.c, "Diverged") against
 * the per-rank dataflow engine (sim/fast_dataflow.c, every transfer in SimGrid).
 *
 * With uneven blocks (sizes no block count divides) or routes of different
 * latency, ranks drift apart under --sync dataflow and the lockstep run is no
 * longer the dataflow run; the fast engine then derives the dataflow run from
 * the lockstep durations while every transfer provably takes what it took
 * there, and otherwise hands over to the per-rank engine. For every case of a
 * corpus (10 algorithms x 7 presets x 20 random trees x odd sizes; ps and
 * tree packing only up to 24 ranks on random trees, where the per-rank engine
 * is slow) the row must equal the per-rank engine's: the time and every phase
 * end to 1e-9, and per directed link the bytes, the busy time (to 1e-9 of the
 * run's time) and, for derived runs, the most flows at once. The test counts
 * the cases where the derivation stood (dataflow_derived; none of their
 * transfers ran in SimGrid) and holds floors on them: a derivation that never
 * runs would fail here. Without the component condition the corpus fails (ps:
 * link busy times); without the busy-link condition test_busy_link does.
 * A fixed case: the ring on flat:ranks=96 with 100 000 001 bytes derives and
 * takes 0.0162133536 s, as the lockstep run does (the largest block's path
 * through the ring waits at every step, so dataflow gains nothing there).
 */
#include "../randtopo.h"
#include "sim_util.h"

static int derived, compared, flows_apart;

/* a == b to 1e-9 of b (0 == 0: a one-rank schedule takes no time) */
static int same(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

/* Fast engine (default: lockstep + certificate, derived when it diverges) against the per-rank
 * engine (o.full) on one case; returns 1 if both ran. */
static int compare(const char *plat, const char *desc, const char *algo, uint64_t bytes) {
    ar_sim_opts of, od;
    memset(&of, 0, sizeof of);
    of.sync = AR_SYNC_DATAFLOW;
    od = of;
    od.full = 1;
    sim_run f, d;
    memset(&d, 0, sizeof d);
    int rf = sim_run_case_ex(&f, plat, algo, bytes, &of, 1),
        rd = rf == 0 ? sim_run_case_ex(&d, plat, algo, bytes, &od, 1) : -1;
    int ok = rf == 0 && rd == 0 && f.st == AR_OK && d.st == AR_OK && f.r.complete && d.r.complete;
    if (rf == 0 && rd == 0) T_CHECK(f.st == AR_OK && d.st == AR_OK, "%s on %s: %s / %s", algo, desc, f.e.msg, d.e.msg);
    if (ok) {
        compared++;
        if (f.r.dataflow_derived) {
            derived++;
            T_CHECK(f.r.transfers_simgrid == 0, "%s on %s: derived, yet %llu transfers ran in SimGrid", algo, desc,
                    (unsigned long long)f.r.transfers_simgrid);
        }
        T_CHECK(same(f.r.time_s, d.r.time_s), "%s on %s (%s): fast %.17g != per-rank %.17g", algo, desc,
                f.r.dataflow_derived ? "derived" : "certified or handed over", f.r.time_s, d.r.time_s);
        T_CHECK(f.r.nphases == d.r.nphases, "%s on %s: phases %d != %d", algo, desc, f.r.nphases, d.r.nphases);
        for (int k = 0; k < f.r.nphases && k < d.r.nphases; k++)
            T_CHECK(same(f.r.phase_end_s[k], d.r.phase_end_s[k]), "%s on %s: phase %d ends %.17g != %.17g", algo, desc,
                    k, f.r.phase_end_s[k], d.r.phase_end_s[k]);
        T_CHECK(f.r.transfers == d.r.transfers, "%s on %s: transfers", algo, desc);
        int bad = 0;
        for (int l = 0; l < f.r.ndlinks && l < d.r.ndlinks && !bad; l++) {
            /* most flows at once: the per-rank engine starts a transfer at the instant another one on
             * the same link ends before it counts that end (FlexReduce's certified lockstep runs count
             * 1 where it counts 2, with the same busy time); a derived run must match it */
            int flows = f.r.link_max_flows[l] != d.r.link_max_flows[l];
            if (flows && !f.r.dataflow_derived) flows_apart++, flows = 0;
            bad = !same(f.r.link_bytes[l], d.r.link_bytes[l]) ||
                  fabs(f.r.link_busy_s[l] - d.r.link_busy_s[l]) > 1e-9 * d.r.time_s || flows;
            T_CHECK(!bad, "%s on %s (%s): link %d: bytes %.17g / %.17g, busy %.17g / %.17g, flows %d / %d", algo, desc,
                    f.r.dataflow_derived ? "derived" : "certified or handed over", l, f.r.link_bytes[l],
                    d.r.link_bytes[l], f.r.link_busy_s[l], d.r.link_busy_s[l], f.r.link_max_flows[l],
                    d.r.link_max_flows[l]);
        }
    }
    sim_run_free(&f); /* (also after an unsupported plan: the platform was loaded) */
    sim_run_free(&d);
    return ok;
}

static const char *const algos[] = {"ring",        "pipelined-ring:chunks=3",
                                    "blueconnect", "blueconnect:impl=ring",
                                    "two-level",   "halving-doubling",
                                    "binomial",    "ps",
                                    "flexreduce",  "treepack"};

static void test_presets(void) {
    static const char *const plats[] = {
        "flat:ranks=12", "tree:fanouts=3x4", "dgx-h100:nodes=2,o=0,g=0", "blueconnect-12",
        "fr-7",          "bc-ibm-2x4",       "tree:fanouts=2x2x3"};
    const uint64_t sizes[] = {4 * UINT64_C(10007),
                              100000001}; /* a prime count of elements; bytes not a multiple of 4 */
    int ran = 0, d0 = derived;
    for (size_t i = 0; i < sizeof plats / sizeof plats[0]; i++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
            ran += compare(plats[i], plats[i], algos[a], sizes[(i + a) % 2]);
    printf("presets: %d cases compared, %d derived\n", ran, derived - d0);
    sim_floor("derived dataflow on presets", ran, 0, 65);
    T_CHECK(derived - d0 >= 25, "presets: only %d derived runs", derived - d0);
}

static void test_random(void) {
    rt_rng g = rt_seed(18);
    int ran = 0, d0 = derived;
    for (int t = 0; t < 20; t++) {
        char desc[160];
        rt_shape shape = t % 3 == 0 ? RT_SYM : t % 3 == 1 ? RT_ASYM2 : RT_ASYM3;
        char *json = rt_platform_json(&g, shape, t % 4 == 0 ? 8 : 0, desc, sizeof desc);
        T_CHECK(json != NULL, "random platform %d", t);
        if (!json) continue;
        ar_platform *p = sim_platform(json);
        int np = p ? p->nranks : 0;
        ar_platform_free(p);
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            uint64_t bytes = UINT64_C(4) * (uint64_t)rt_int(&g, 1000, 400000) + 1;
            /* the per-rank engine runs ps's and tree packing's many flows slowly past 24 ranks */
            if (np > 24 && (!strcmp(algos[a], "ps") || !strcmp(algos[a], "treepack"))) continue;
            ran += compare(json, desc, algos[a], bytes);
        }
        free(json);
    }
    printf("random trees: %d cases compared, %d derived\n", ran, derived - d0);
    sim_floor("derived dataflow on random trees", ran, 0, 170);
    T_CHECK(derived - d0 >= 80, "random trees: only %d derived runs", derived - d0);
}

/* A ring on a rail fabric (even blocks: its NVLink steps end before its rail steps): derived,
 * and once its rounds only shift each other, identical rounds jumped over (eng_cert_can_jump);
 * the row = the per-rank engine's. */
static void test_rail_jump(void) {
    /* without per-message costs: with them the derivation does not jump over identical rounds */
    static const char *const plats[] = {"dgx-h100:nodes=4,o=0,g=0", "dgx-h100:nodes=8,o=0,g=0"};
    for (int i = 0; i < 2; i++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_DATAFLOW;
        sim_run x;
        if (sim_run_case(&x, plats[i], "ring", 100000000, &o) != 0) {
            sim_run_free(&x);
            continue;
        }
        printf("ring on %s, 100 MB, dataflow: %.17g s, derived %d, %llu of %llu rounds jumped\n", plats[i], x.r.time_s,
               x.r.dataflow_derived, (unsigned long long)x.r.epochs_jumped, (unsigned long long)x.r.epochs);
        T_CHECK(x.st == AR_OK && x.r.dataflow_derived && x.r.epochs_jumped * 2 > x.r.epochs,
                "ring on %s: derived with most rounds jumped (%s)", plats[i], x.e.msg);
        sim_run_free(&x);
        T_CHECK(compare(plats[i], plats[i], "ring", 100000000), "ring on %s against the per-rank engine", plats[i]);
    }
}

/* Per-message costs (LogGP o, g between the nodes of the rail presets): the derivation carries each
 * rank's send and receive sides (sim/fast_dataflow_cert.c, "per-message costs") and must equal the
 * per-rank engine's run, uneven blocks included; where channels of NCCL's ring drift apart on
 * shared NVLink it hands over. Without the sides in the derivation every such run was the per-rank
 * engine's: the floor on derived runs fails. */
static void test_msg(void) {
    static const char *const plats[] = {"aws-p5:nodes=4", "dgx-h100:nodes=2", "dgx-h100:nodes=3,o=5us,g=8us"};
    static const char *const more[] = {"nccl-ring", "nccl-ring:channels=1", "nccl-ring:channels=2"};
    const uint64_t sizes[] = {4 * UINT64_C(10007) + 2, 100000001, 100000004};
    int ran = 0, d0 = derived;
    for (size_t i = 0; i < sizeof plats / sizeof plats[0]; i++) {
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
            ran += compare(plats[i], plats[i], algos[a], sizes[(i + a) % 3]);
        for (size_t a = 0; a < sizeof more / sizeof more[0]; a++)
            ran += compare(plats[i], plats[i], more[a], sizes[(i + a + 1) % 3]);
    }
    printf("per-message costs: %d cases compared, %d derived\n", ran, derived - d0);
    sim_floor("derived dataflow with per-message costs", ran, 0, 36);
    T_CHECK(derived - d0 >= 15, "per-message costs: only %d derived runs", derived - d0);
}

/* The fixed case of the file comment: dataflow = lockstep for the ring, derived. */
static void test_fixed(void) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_DATAFLOW;
    sim_run x, y;
    int rx = sim_run_case(&x, "flat:ranks=96", "ring", 100000001, &o);
    o.sync = AR_SYNC_ROUND;
    int ry = sim_run_case(&y, "flat:ranks=96", "ring", 100000001, &o);
    T_CHECK(rx == 0 && ry == 0, "ring on flat:ranks=96 did not run");
    if (rx == 0 && ry == 0) {
        T_CHECK(x.st == AR_OK && x.r.dataflow_derived, "ring on flat:ranks=96: derived (%s)", x.e.msg);
        printf("ring on flat:ranks=96, 100 000 001 bytes: dataflow (derived) %.17g s, round %.17g s\n", x.r.time_s,
               y.r.time_s);
        T_NEAR(x.r.time_s, y.r.time_s, 1e-12, "ring on flat:ranks=96, 100 000 001 bytes: dataflow = round");
        T_NEAR(x.r.time_s, 0.0162133536, 1e-9, "ring on flat:ranks=96, 100 000 001 bytes, dataflow");
    }
    sim_run_free(&x);
    sim_run_free(&y);
}

/* A link busy under dataflow: two leaf switches joined by a 10 GB/s trunk (l1 -> l2), GPUs 1, 6, 7
 * on l1 and 0, 2, 3, 4, 5 on l2 (100 GB/s each), a binomial reduce to GPU 0 of 10 MB:
 *   round 0: 1 -> 0 (the trunk, 1 ms), 3 -> 2, 5 -> 4, 7 -> 6 (0.1 ms);
 *   round 1: 2 -> 0, 6 -> 4 (the trunk);   round 2: 4 -> 0.
 * Lockstep: 1 + 1 + 0.1 ms (2.110 ms with latencies). Dataflow starts 6 -> 4 at 0.1 ms, while
 * 1 -> 0 crosses the trunk: they share it, 1 -> 0 ends at 1.9 ms, 6 -> 4 at 2 ms, the reduce at
 * 2.106 ms. A derived run that missed the busy trunk would give 6 -> 4 the whole trunk and end
 * near 1.2 ms; the engine must hand over instead (not derived; the row = the per-rank engine's). */
#define GPU(n, sw) "{\"name\": \"g" #n "\", \"type\": \"gpu\"}"
#define UP(n, sw) "{\"a\": \"g" #n "\", \"b\": \"" sw "\", \"bw\": \"100GBps\", \"lat\": \"1us\"}"
#define TRUNK_JSON                                                                                                                               \
    "{\"name\": \"trunk\", \"kind\": \"graph\", \"nodes\": [" GPU(0, ) "," GPU(1, ) "," GPU(2, ) "," GPU(3, ) "," GPU(4, ) "," GPU(5, ) "," GPU( \
        6, ) "," GPU(7, ) ","                                                                                                                    \
                          "{\"name\": \"l1\", \"type\": \"switch\"}, {\"name\": \"l2\", \"type\": \"switch\"}], \"links\": [" UP(                \
                              0,                                                                                                                 \
                              "l2") "," UP(1,                                                                                                    \
                                           "l1") "," UP(2,                                                                                       \
                                                        "l2") "," UP(3,                                                                          \
                                                                     "l2") "," UP(4,                                                             \
                                                                                  "l2") "," UP(5,                                                \
                                                                                               "l2") "," UP(6,                                   \
                                                                                                            "l1") "," UP(7,                      \
                                                                                                                         "l1") ", {\"a\": \"l1\", \"b\": \"l2\", \"bw\": \"10GBps\", \"lat\": \"2us\"}]}"

static void test_busy_link(void) {
    ar_platform *p = sim_platform(TRUNK_JSON);
    T_CHECK(p != NULL, "trunk platform");
    if (!p) return;
    const uint64_t count = 2500000; /* 10 MB */
    ar_schedule *s = ar_schedule_new("busy-trunk", 8, count, 4);
    int m[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    T_CHECK(s && ar_sched_phase(s, "reduce") == 0 && ar_sched_op(s, AR_OP_REDUCE, AR_IMPL_BINOMIAL, m, 8, 0, count),
            "busy-trunk schedule");
    ar_sim_result r[3];
    ar_sync sync[3] = {AR_SYNC_DATAFLOW, AR_SYNC_DATAFLOW, AR_SYNC_ROUND};
    int ran = 0;
    for (int k = 0; k < 3 && s; k++, ran++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = sync[k];
        o.full = k == 1; /* the per-rank engine */
        ar_err e = {{0}};
        ar_status st = ar_sim_run(p, s, &o, &r[k], &e);
        T_CHECK(st == AR_OK && r[k].complete, "busy trunk, run %d: %s", k, e.msg);
        if (st != AR_OK) break;
    }
    if (ran == 3) {
        printf("busy trunk: dataflow %.17g s (per-rank engine %.17g s), round %.17g s\n", r[0].time_s, r[1].time_s,
               r[2].time_s);
        T_CHECK(!r[0].dataflow_derived, "busy trunk: the derived run missed the busy trunk");
        T_CHECK(same(r[0].time_s, r[1].time_s), "busy trunk: %.17g != per-rank %.17g", r[0].time_s, r[1].time_s);
        T_NEAR(r[1].time_s, 2.106e-3, 1e-9, "busy trunk, dataflow (the trunk shared from 0.1 ms)");
    }
    for (int k = 0; k < ran; k++) ar_sim_result_free(&r[k]);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    test_msg();
    test_busy_link();
    test_rail_jump();
    test_fixed();
    test_presets();
    test_random();
    printf("all: %d compared, %d derived; most flows at once apart on %d links of certified runs\n", compared, derived,
           flows_apart);
    return t_done("sim_diverged");
}
