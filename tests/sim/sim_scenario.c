/* What-if scenarios (items 3 and 4): core/scenario.c and the
 * simulator's late starts and background flows (sim/fast_dataflow.c), each
 * against a hand derivation.
 *
 * Ring on flat:ranks=4 (4 GPUs on one switch, links 12.5 GB/s and 1 us per
 * direction, a GPU-to-GPU route is 2 links: latency 2 us), 100 MB = 25e6 f32:
 * 2(n-1) = 6 steps of s = 25 MB, each step every rank sends s to the next:
 *     T0 = 6 (2e-6 + 25e6 / 12.5e9) = 6 x 2.002e-3 = 0.012012 s.
 * 1. A delay d = 1 ms on rank 2: the ring cannot move past rank 2 before it
 *    starts, and afterwards nothing else waits: T = T0 + d = 0.013012 (1e-12);
 *    the walk adds the largest delay, so walk + d = T as well.
 * 2. A background flow 0 -> 1 capped at f B (f = 0.25, B = 12.5 GB/s), for the
 *    whole run: it shares g0's uplink and g1's downlink with the ring's 0 -> 1
 *    transfer, which max-min sharing gives (1 - f) B; every other transfer is
 *    alone on its links, and under dataflow every rank's round waits for the
 *    slow one (rank 1 receives it, rank 0 sends it), so every step takes
 *    2e-6 + s / ((1 - f) B):  T = 6 (2e-6 + 25e6 / 9.375e9) = 0.016012 s;
 *    the bandwidth term is stretched by exactly 1/(1 - f) = 4/3.
 * 3. Link s0.0-g1 at half bandwidth (factor 0.5): transfers 0 -> 1 (down
 *    s0.0->g1) and 1 -> 2 (up g1->s0.0) run at 6.25 GB/s, so every step takes
 *    2e-6 + 25e6 / 6.25e9:  T = 0.024012 s, the bandwidth term doubled
 *    (0.024 = 2 x 0.012); the walk and the closed form see the same platform.
 * 4. A failed link on a graph: p3.8xlarge (4 V100, NVLink quad; gpu0-gpu1 is
 *    one 25 GB/s lane, gpu0-gpu3, gpu1-gpu2, gpu2-gpu3 two lanes = 50 GB/s,
 *    gpu0-gpu2, gpu1-gpu3 one lane; 1 us). Ring 0->1->2->3->0, s = 25 MB:
 *    bottleneck gpu0->gpu1 (25 GB/s): T = 6 (1e-6 + 1e-3) = 0.006006.
 *    Without gpu0-gpu1, 0 -> 1 is rerouted gpu0 -> gpu2 -> gpu1 (2 hops, the
 *    tie gpu2/gpu3 goes to the lower index): 25 GB/s then 50 GB/s, latency
 *    2 us; gpu2->gpu1 is the reverse direction of the ring's 1 -> 2, so nothing
 *    shares: T = 6 (2e-6 + 1e-3) = 0.006012, and the bottleneck is named
 *    "gpu0-gpu2 (gpu0->gpu2)".
 * 5. Failed rank on a tree (fr-10 without rank 3): 9 ranks, --check exact
 *    for ring and FlexReduce (planned on the survivors).
 * 6. Bad scenario files: one line each, naming the file and the JSON path.
 * 8. The link statistics count background flows (test_flow_stats). Case 2's flow (0 -> 1 at
 *    3.125 GB/s for the whole run, T = 0.016012 s) starts its bytes after its route latency 2 us and
 *    keeps its cap throughout (the ring takes the rest), so it carries 3.125e9 (T - 2e-6) =
 *    50.03125 MB on g0->s0.0 and s0.0->g1; the ring puts 6 x 25 MB = 150 MB on every directed link
 *    it uses. s0.0-g0 (g0->s0.0): 200.03125 MB, 50.03125 MB of them background, busy for all of T
 *    (the flow is in flight from 0), 2 at once, utilisation 200.03125e6 / (12.5e9 T) = 0.99941.
 *    A flow of 10 MB that ends before the collective (case 2's bg2) puts exactly 150 + 10 MB there.
 *    Bytes to 1 KB: a flow without an end is 2^62 bytes in SimGrid, whose remaining count (a double)
 *    has that resolution there.
 *    A flow on a link the schedule never crosses: ring on dgx-h100:nodes=2, 1 GB, crosses the
 *    machines on rail 0 only (n0.g0, n1.g0; 2 x 15/16 GB per direction at 48 GB/s: 39.06 ms at full
 *    rate); a flow rank 1 -> 9 (n0.g1 -> rail1 -> n1.g1, 2 us) of 10 GB without a cap takes all
 *    48 GB/s of rail 1 and leaves the ring's time alone: it carries 48e9 (T - 2e-6) bytes by the end
 *    T = 39.1405 ms (30 x (2.6 us + 62.5 MB / 48 GB/s)), a load of T - 2 us > 39.06 ms, so the bottleneck is n0.g1-rail1 (n0.g1->rail1)
 *    at utilisation (T - 2e-6) / T. Before, the statistics were the schedule's alone: 150 MB, and
 *    n0.g0-rail0 at 50 %.
 * 9. A failed NIC on a rail fabric (test_failed_nic): dgx-h100:nodes=2 (8 GPUs per node on an
 *    NVSwitch, 18 lanes x 20.6 GB/s = 370.8 GB/s a GPU; GPU j of each node on rail j by one 48 GB/s
 *    NIC, 0.3 us an NVLink link, 1 us a NIC link) without n0.g0-rail0. NCCL's search gives every channel a NIC that exists:
 *    healthy 8 ring channels at 48 GB/s, now 7 at 48 (NCCL's model: RING/SIMPLE at 1 GB is
 *    lat + 1e9 / busbw with the same lat = 2 t(1 GB) - t(2 GB) and 7/8 of the bandwidth, so its
 *    bandwidth term grows by exactly 8/7). nccl-ring plans its 7 channels on rails 1..7, one each:
 *    30 steps of 1e9 / (7 x 16) bytes over the PXN route (NVLink to the rail's GPU, its rail:
 *    4 links, 0.3 + 0.3 + 1 + 1 = 2.6 us), the 48 GB/s rail the bottleneck:
 *        T = 30 (2.6e-6 + 1e9 / (7 x 16 x 48e9)) = 5.6583571 ms,
 *    whose rail term is 8/7 of the healthy one (30 x 1e9 / (8 x 16 x 48e9) = 4.8828 ms; healthy the
 *    NVLink is the bottleneck: 5.1001 ms, so the whole run is 1.110 x). Before, channel 0 kept GPU 0,
 *    rerouted through another channel's rail: 9.886 ms, 1.93 x. NCCL's pick (NVLS_TREE -> nvlstree)
 *    puts 1/7 of each slice on each of 7 rails; its NVSwitch reduction stays the bottleneck:
 *    9.3325 ms against 9.1187 ms (before 11.693 ms, its block 0 sharing rail 1).
 * 7. A slow-computing straggler (stragglers[].rate = f): its GPU's reductions take 1/f as long.
 *    Ring on flat:ranks=8 (route 2 links: a = 2 us), N = 80 MB, s = N/8 = 10 MB, gamma = 5e-11 s/B:
 *        T = 2e-6 + 1e7 / 12.5e9 = 8.02e-4 s per transfer, g = 5e-11 x 1e7 = 5e-4 s per reduction.
 *    All ranks at full rate (ar_eq_ring_pipe with c = 1, g <= T): rank r's reduce-scatter send of
 *    step t needs the chunk it received and reduced at step t-1, so step t starts at t (T + g) and
 *    the last reduction ends at A = (P-1)(T + g); the all-gather's P-1 copies follow:
 *        T_1 = (P-1)(T + g) + (P-1) T = 7 x 1.302e-3 + 7 x 8.02e-4 = 0.014728 s.
 *    Rank k = 3 at f: its reductions take G = g/f, d = G - g = g (1/f - 1) longer. A chunk that has
 *    passed rank 3 is late by d from then on (each chunk is reduced at 3 at most once); the others
 *    are on time. It stays d, not more, while d <= g (a rank's round t-1 send, late by d, ends at
 *    (t-1)(T+g) + d + T <= t (T+g), before its round t) and G - g <= T (a GPU's FIFO is free when
 *    the next chunk lands). After the reduce-scatter every chunk but chunk 3 (which started at
 *    rank 3 and is never reduced there) ends at A + d; the all-gather's round t' >= 1 of every
 *    rank waits for a neighbour that is late by d, so all ends d late:
 *        T_f = T_1 + g (1/f - 1):  f = 0.5: 0.014728 + 5e-4 = 0.015228 s;
 *                                  f = 0.8: 0.014728 + 1.25e-4 = 0.014853 s.
 *    The walk, the fast engine and the naive engine (--sync dataflow) give it to 1e-9; without a
 *    reduction rate the scenario is refused (test_bad), and so is --sync round. */
#include "sim_util.h"

#include "core/scenario.h"
#include "models/nccl_model.h"

static ar_scenario *scen(const char *json) {
    ar_scenario *s = NULL;
    ar_err e = {{0}};
    ar_status st = ar_scenario_from_json(json, "t.json", &s, &e);
    T_CHECK(st == AR_OK, "scenario %s: %s", json, e.msg);
    return s;
}

/* Plans algo on plat (changed by sc), simulates it under sync with sc's delays and flows. */
static double run(const char *plat, const char *sc_json, const char *algo, uint64_t bytes, ar_sync sync, int check,
                  double *walk, char *bn, size_t nbn) {
    ar_platform *p = sim_platform(plat);
    ar_scenario *sc = sc_json ? scen(sc_json) : NULL;
    ar_err e = {{0}};
    double t = NAN;
    if (walk) *walk = NAN;
    if (!p || (sc_json && !sc)) goto out;
    if (sc) T_OK(ar_scenario_apply(sc, &p, &e), e);
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan(algo, p, bytes / 4, 4, &s, &e), e);
    if (!s) goto out;
    ar_model_result m;
    if (walk && ar_model_walk(p, s, &m, &e) == AR_OK) *walk = m.time_s + ar_scenario_max_delay(sc);
    double *dl = calloc((size_t)p->nranks, sizeof *dl);
    if (sc) ar_scenario_delays(sc, p->nranks, dl);
    ar_sim_opts o = {.sync = sync,
                     .check = check,
                     .rank_delay_s = sc && sc->nstragglers ? dl : NULL,
                     .flows = sc ? sc->flows : NULL,
                     .nflows = sc ? sc->nflows : 0};
    ar_sim_result r;
    ar_status st = ar_sim_run(p, s, &o, &r, &e);
    T_CHECK(st == AR_OK, "%s on %s: %s", algo, plat, e.msg);
    if (st == AR_OK) {
        t = r.time_s;
        if (bn) {
            bn[0] = 0;
            if (r.bottleneck >= 0) ar_sim_dlink_name(p, r.bottleneck, bn, nbn);
        }
        printf("%-10s %-12s %-40.40s %.17g\n", algo, plat, sc_json ? sc_json : "-", t);
        ar_sim_result_free(&r);
    }
    free(dl);
    ar_schedule_free(s);
out:
    ar_scenario_free(sc);
    ar_platform_free(p);
    return t;
}

static void test_timing(void) {
    const uint64_t B100 = 100000000;
    double w;
    double t0 = run("flat:ranks=4", NULL, "ring", B100, AR_SYNC_DATAFLOW, 0, &w, NULL, 0);
    T_NEAR(t0, 6 * (2e-6 + 25e6 / 12.5e9), 1e-12, "clean ring");
    /* 1. a delay adds exactly d */
    const char *late = "{\"name\":\"late\",\"stragglers\":[{\"rank\":2,\"delay\":\"1ms\"}]}";
    double t1 = run("flat:ranks=4", late, "ring", B100, AR_SYNC_DATAFLOW, 0, &w, NULL, 0);
    T_NEAR(t1, t0 + 1e-3, 1e-12, "ring with rank 2 late by 1 ms = T0 + 1 ms");
    T_NEAR(w, t1, 1e-12, "the walk adds the delay");
    /* 2. a background flow at f B on the bottleneck: bandwidth term x 1/(1-f) */
    const double f = 0.25;
    const char *bg = "{\"name\":\"bg\",\"flows\":[{\"src\":0,\"dst\":1,\"rate\":3.125e9}]}";
    double t2 = run("flat:ranks=4", bg, "ring", B100, AR_SYNC_DATAFLOW, 0, &w, NULL, 0);
    T_NEAR(t2, 6 * (2e-6 + 25e6 / ((1 - f) * 12.5e9)), 1e-12, "ring beside a flow at f B = 6 (lat + s/((1-f)B))");
    T_NEAR((t2 - 6 * 2e-6) / (t0 - 6 * 2e-6), 1 / (1 - f), 1e-12, "bandwidth term stretched by 1/(1-f)");
    T_NEAR(w, t0, 1e-12, "the walk does not see flows");
    /* a flow of 10 MB at the same cap, started at 1 ms: it ends at 1 ms + 10e6/3.125e9 = 4.2 ms */
    const char *bg2 = "{\"name\":\"bg2\",\"flows\":[{\"src\":0,\"dst\":1,\"rate\":\"3.125GBps\",\"bytes\":\"10MB\","
                      "\"start\":\"1ms\"}]}";
    double t2b = run("flat:ranks=4", bg2, "ring", B100, AR_SYNC_DATAFLOW, 0, NULL, NULL, 0);
    T_CHECK(t2b > t0 && t2b < t2, "a 10 MB flow slows the ring less than a flow for the whole run (%g)", t2b);
    /* the same flow stopped at 4.2 ms via a rate and a stop: rate x (stop - start) = the same 10 MB */
    const char *bg3 = "{\"name\":\"bg3\",\"flows\":[{\"src\":0,\"dst\":1,\"rate\":\"3.125GBps\",\"start\":\"1ms\","
                      "\"stop\":\"4.2ms\"}]}";
    double t2c = run("flat:ranks=4", bg3, "ring", B100, AR_SYNC_DATAFLOW, 0, NULL, NULL, 0);
    T_NEAR(t2c, t2b, 1e-12, "rate + stop carries rate x (stop - start) bytes");
    /* 3. half bandwidth on the ring's path doubles that link's share */
    const char *half = "{\"name\":\"half\",\"links\":[{\"link\":\"s0.0-g1\",\"factor\":0.5}]}";
    double t3 = run("flat:ranks=4", half, "ring", B100, AR_SYNC_ROUND, 0, &w, NULL, 0);
    T_NEAR(t3, 6 * (2e-6 + 25e6 / 6.25e9), 1e-12, "ring with one link at half bandwidth");
    T_NEAR(t3 - 6 * 2e-6, 2 * (t0 - 6 * 2e-6), 1e-12, "the bandwidth term doubles");
    T_NEAR(w, t3, 1e-12, "the walk sees the slow link");
    const char *cls = "{\"name\":\"cls\",\"links\":[{\"match\":\"s0.0-g*\",\"factor\":0.5}]}";
    double t3b = run("flat:ranks=4", cls, "ring", B100, AR_SYNC_ROUND, 0, &w, NULL, 0);
    T_NEAR(t3b, t3, 1e-12, "a link class (glob) at half bandwidth: the same ring time");
    /* 4. a failed link on a graph reroutes and names the new bottleneck */
    char bn[160];
    double t4a = run("p3.8xlarge", NULL, "ring", B100, AR_SYNC_ROUND, 0, NULL, bn, sizeof bn);
    T_NEAR(t4a, 6 * (1e-6 + 25e6 / 25e9), 1e-12, "p3.8xlarge ring");
    T_CHECK(!strcmp(bn, "gpu0-gpu1 (gpu0->gpu1)"), "bottleneck before: %s", bn);
    const char *fl = "{\"name\":\"fl\",\"failed_links\":[\"gpu0-gpu1\"]}";
    double t4 = run("p3.8xlarge", fl, "ring", B100, AR_SYNC_ROUND, 0, &w, bn, sizeof bn);
    T_NEAR(t4, 6 * (2e-6 + 25e6 / 25e9), 1e-12, "p3.8xlarge ring without gpu0-gpu1 (rerouted via gpu2)");
    T_NEAR(w, t4, 1e-12, "the walk follows the new route");
    T_CHECK(!strcmp(bn, "gpu0-gpu2 (gpu0->gpu2)"), "the new bottleneck is named: %s", bn);
    /* 5. failed rank on a tree: planned on the survivors, exact sums */
    const char *lose = "{\"name\":\"lose\",\"failed_ranks\":[3]}";
    double t5 = run("fr-10", lose, "flexreduce", 4000000, AR_SYNC_ROUND, 1, NULL, NULL, 0);
    double t5r = run("fr-10", lose, "ring", 4000000, AR_SYNC_ROUND, 1, NULL, NULL, 0);
    T_CHECK(t5 > 0 && t5r > 0, "fr-10 without rank 3: flexreduce %g, ring %g (check exact)", t5, t5r);
    ar_platform *p = sim_platform("fr-10");
    ar_scenario *sc = scen(lose);
    ar_err e = {{0}};
    if (p && sc) {
        T_OK(ar_scenario_apply(sc, &p, &e), e);
        T_CHECK(p->nranks == 9 && p->nmachines == 3, "fr-10 - rank 3: %d ranks on %d machines", p->nranks,
                p->nmachines);
    }
    ar_scenario_free(sc);
    ar_platform_free(p);
}

/* Ring on flat:ranks=8 with gamma and sc_json (a slow GPU) applied: walk, fast and naive sims. */
static void slow_ring(const char *sc_json, double want, const char *what) {
    ar_platform *p = sim_platform("flat:ranks=8");
    ar_scenario *sc = sc_json ? scen(sc_json) : NULL;
    ar_err e = {{0}};
    if (!p || (sc_json && !sc)) goto out;
    p->reduce_Bps = 1 / 5e-11; /* what --gamma 5e-11 does */
    if (sc) T_OK(ar_scenario_apply(sc, &p, &e), e);
    T_CHECK(!sc || p->rank_compute, "%s: the platform has per-rank compute fractions", what);
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("ring", p, 80000000 / 4, 4, &s, &e), e);
    if (!s) goto out;
    ar_model_result m;
    T_OK(ar_model_walk(p, s, &m, &e), e);
    T_NEAR(m.time_s, want, 1e-9, what);
    for (int en = 0; en < 2; en++) {
        ar_sim_opts o = {.sync = AR_SYNC_DATAFLOW, .engine = en ? AR_SIM_NAIVE : AR_SIM_FAST};
        ar_sim_result r;
        ar_status st = ar_sim_run(p, s, &o, &r, &e);
        T_CHECK(st == AR_OK, "%s (%s): %s", what, en ? "naive" : "fast", e.msg);
        if (st != AR_OK) continue;
        T_NEAR(r.time_s, want, 1e-9, what);
        printf("slow ring %-28s walk %.12g sim(%s) %.12g want %.12g\n", what, m.time_s, en ? "naive" : "fast", r.time_s,
               want);
        ar_sim_result_free(&r);
    }
    if (sc) { /* the lockstep engine does not take a slow GPU: one line */
        ar_sim_opts o = {.sync = AR_SYNC_ROUND};
        ar_sim_result r;
        ar_status st = ar_sim_run(p, s, &o, &r, &e);
        T_CHECK(st != AR_OK && strstr(e.msg, "--sync dataflow") && !strchr(e.msg, '\n'), "%s: --sync round: %s", what,
                st == AR_OK ? "accepted" : e.msg);
        if (st == AR_OK) ar_sim_result_free(&r);
    }
    ar_schedule_free(s);
out:
    ar_scenario_free(sc);
    ar_platform_free(p);
}

static void test_slow_compute(void) {
    const double T = 2e-6 + 1e7 / 12.5e9, g = 5e-11 * 1e7, P = 8;
    const double T1 = (P - 1) * (T + g) + (P - 1) * T;
    T_NEAR(T1, 0.014728, 1e-15, "T_1 by hand");
    slow_ring(NULL, T1, "all at full rate");
    slow_ring("{\"name\":\"slow3\",\"stragglers\":[{\"rank\":3,\"rate\":0.5}]}", T1 + g * (1 / 0.5 - 1),
              "rank 3 at f = 0.5");
    T_NEAR(T1 + g * (1 / 0.5 - 1), 0.015228, 1e-15, "T_0.5 by hand");
    slow_ring("{\"name\":\"slow3\",\"stragglers\":[{\"rank\":3,\"rate\":0.8}]}", T1 + g * (1 / 0.8 - 1),
              "rank 3 at f = 0.8");
    T_NEAR(T1 + g * (1 / 0.8 - 1), 0.014853, 1e-15, "T_0.8 by hand");
    /* with failed ranks 4..7 the survivors keep the reduction rate (ar_platform_degrade): P = 4,
     * s = 20 MB: T' = 2e-6 + 2e7 / 12.5e9 = 1.602e-3, g' = 1e-3 (g' <= T', d = g'):
     * T' = 3 (T' + g') + 3 T' + g' = 7.806e-3 + 4.806e-3 + 1e-3 = 0.013612 s */
    slow_ring("{\"name\":\"half\",\"failed_ranks\":[4,5,6,7],\"stragglers\":[{\"rank\":3,\"rate\":0.5}]}", 0.013612,
              "ranks 4..7 failed, rank 3 at f = 0.5");
    /* the slow rank anywhere on the ring: rank 0 gives the same T_1 + g (1/f - 1) */
    slow_ring("{\"name\":\"slow0\",\"stragglers\":[{\"rank\":0,\"rate\":0.5}]}", T1 + g, "rank 0 at f = 0.5");
}

/* Bad files: the error names the file and the path, and says what is wrong. */
static void bad(const char *plat, const char *json, const char *want) {
    ar_scenario *s = NULL;
    ar_err e = {{0}};
    ar_status st = ar_scenario_from_json(json, "bad.json", &s, &e);
    if (st == AR_OK && plat) {
        ar_platform *p = sim_platform(plat);
        st = p ? ar_scenario_apply(s, &p, &e) : AR_EINVAL;
        ar_platform_free(p);
    }
    T_CHECK(st != AR_OK, "%s: accepted", json);
    T_CHECK(strstr(e.msg, want) != NULL && strstr(e.msg, "bad.json") != NULL && !strchr(e.msg, '\n'),
            "%s: message \"%s\" lacks \"%s\"", json, e.msg, want);
    printf("bad: %s\n", e.msg);
    ar_scenario_free(s);
}

static void test_bad(void) {
    bad(NULL, "[1]", "must be a JSON object");
    bad(NULL, "{\"nme\":1}", "nme");
    bad(NULL, "{\"stragglers\":[{\"rank\":1.5,\"delay\":1}]}", "stragglers[0].rank");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"delay\":-1}]}", "stragglers[0].delay");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"delay\":\"5 parsecs\"}]}", "stragglers[0].delay");
    bad("flat:ranks=4", "{\"stragglers\":[{\"rank\":1,\"rate\":0.5}]}", "needs a reduction rate");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"rate\":0}]}", "stragglers[0].rate");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"rate\":-0.5}]}", "stragglers[0].rate");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"rate\":1.5}]}", "in (0, 1]");
    bad(NULL, "{\"stragglers\":[{\"rank\":1,\"rate\":\"fast\"}]}", "stragglers[0].rate");
    bad(NULL, "{\"stragglers\":[{\"rank\":1}]}", "give a delay or a rate");
    bad(NULL, "{\"links\":[{\"link\":\"a\",\"match\":\"b*\",\"factor\":0.5}]}", "links[0]");
    bad(NULL, "{\"links\":[{\"link\":\"a\",\"factor\":0}]}", "links[0].factor");
    bad(NULL, "{\"flows\":[{\"src\":0,\"dst\":0,\"bytes\":10}]}", "flows[0]");
    bad(NULL, "{\"flows\":[{\"src\":0,\"dst\":1,\"stop\":\"1ms\"}]}", "needs a \"rate\"");
    bad(NULL, "{\"flows\":[{\"src\":0,\"dst\":1}]}", "flows[0]");
    bad(NULL, "{\"flows\":[{\"src\":0,\"dst\":1,\"rate\":1e9,\"start\":\"2ms\",\"stop\":\"1ms\"}]}", "must be after");
    bad(NULL, "{\"jobs\":[{\"ranks\":[0],\"algo\":\"ring\"}]}", "jobs[0].ranks");
    bad("flat:ranks=4", "{\"links\":[{\"link\":\"nope\",\"factor\":0.5}]}", "names no link");
    bad("flat:ranks=4", "{\"failed_links\":[\"s0.0-g1\"]}", "cannot reroute");
    bad("flat:ranks=4", "{\"stragglers\":[{\"rank\":4,\"delay\":1}]}", "stragglers[0].rank");
    bad("flat:ranks=4", "{\"failed_ranks\":[0,1,2,3]}", "every rank failed");
    bad("torus-4x4", "{\"failed_ranks\":[0]}", "torus");
    /* p3.8xlarge without gpu0's three links: gpu0 is cut off */
    bad("p3.8xlarge", "{\"failed_links\":[\"gpu0-gpu1\",\"gpu0-gpu2\",\"gpu0-gpu3\"]}", "no route");
}

/* Simulates algo on plat under sc_json (dataflow) into r; p is kept for the link names. */
static int sim_result(const char *plat, const char *sc_json, const char *algo, uint64_t bytes, ar_platform **pp,
                      ar_sim_result *r) {
    ar_platform *p = sim_platform(plat);
    ar_scenario *sc = scen(sc_json);
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    int ok = 0;
    memset(r, 0, sizeof *r);
    if (p && sc && ar_scenario_apply(sc, &p, &e) == AR_OK && ar_algo_plan(algo, p, bytes / 4, 4, &s, &e) == AR_OK) {
        ar_sim_opts o = {.sync = AR_SYNC_DATAFLOW, .flows = sc->flows, .nflows = sc->nflows};
        ok = ar_sim_run(p, s, &o, r, &e) == AR_OK;
    }
    T_CHECK(ok, "%s on %s under %s: %s", algo, plat, sc_json, e.msg);
    ar_schedule_free(s);
    ar_scenario_free(sc);
    *pp = p;
    return ok;
}

/* 8. (file comment) background flows in the link statistics and the bottleneck */
static void test_flow_stats(void) {
    ar_platform *p = NULL;
    ar_sim_result r;
    char bn[160] = "";
    const char *bg = "{\"name\":\"bg\",\"flows\":[{\"src\":0,\"dst\":1,\"rate\":3.125e9}]}";
    if (sim_result("flat:ranks=4", bg, "ring", 100000000, &p, &r)) {
        double T = r.time_s, fb = 3.125e9 * (T - 2e-6);
        T_NEAR(T, 0.016012, 1e-12, "ring beside the flow");
        ar_sim_dlink_name(p, r.bottleneck, bn, sizeof bn);
        T_CHECK(!strcmp(bn, "s0.0-g0 (g0->s0.0)"), "the flow's first link is the bottleneck: %s", bn);
        int b = r.bottleneck;
        if (b >= 0) {
            T_CHECK(fabs(r.link_bytes[b] - (150e6 + fb)) <= 1024,
                    "bottleneck bytes = the ring's 150 MB + 3.125e9 (T - 2 us) "
                    "= %.17g: %.17g",
                    150e6 + fb, r.link_bytes[b]);
            T_CHECK(r.link_bg_bytes && fabs(r.link_bg_bytes[b] - fb) <= 1024, "of which background: %.17g",
                    r.link_bg_bytes ? r.link_bg_bytes[b] : NAN);
            T_NEAR(r.link_busy_s[b], T, 1e-12, "busy for the whole run (the flow is in flight from 0)");
            T_CHECK(r.link_max_flows[b] == 2, "the ring's transfer and the flow at once: %d", r.link_max_flows[b]);
            T_NEAR(ar_sim_link_util(p, &r, b), (150e6 + fb) / (12.5e9 * T), 1e-5, "utilisation 0.99941 (to 1 KB)");
        }
        T_CHECK(fabs(r.bg_bytes - fb) <= 1024, "background bytes until the end: %.17g", r.bg_bytes);
        for (int d = 0; d < r.ndlinks; d++) /* a link only the ring crosses: its 150 MB, no background */
            if (r.link_bytes[d] > 0 && r.link_bg_bytes && r.link_bg_bytes[d] == 0)
                T_NEAR(r.link_bytes[d], 150e6, 1e-12, "a link without the flow carries the ring's bytes");
    }
    ar_sim_result_free(&r);
    ar_platform_free(p);
    /* a flow that ends before the collective (10 MB at 3.125 GB/s from 1 ms, case 2's bg2): all its bytes */
    const char *bg2 = "{\"name\":\"bg2\",\"flows\":[{\"src\":0,\"dst\":1,\"rate\":\"3.125GBps\",\"bytes\":\"10MB\","
                      "\"start\":\"1ms\"}]}";
    if (sim_result("flat:ranks=4", bg2, "ring", 100000000, &p, &r) && r.bottleneck >= 0) {
        ar_sim_dlink_name(p, r.bottleneck, bn, sizeof bn);
        T_CHECK(!strcmp(bn, "s0.0-g0 (g0->s0.0)"), "a finished flow's link is the bottleneck: %s", bn);
        T_NEAR(r.link_bytes[r.bottleneck], 160e6, 1e-12, "the ring's 150 MB + the flow's 10 MB");
        T_NEAR(r.link_bg_bytes ? r.link_bg_bytes[r.bottleneck] : NAN, 10e6, 1e-12, "of which background: 10 MB");
        T_NEAR(r.bg_bytes, 10e6, 1e-12, "the flow's bytes, all through");
    }
    ar_sim_result_free(&r);
    ar_platform_free(p);
    /* a saturating flow on a rail the ring never crosses */
    const char *rail = "{\"name\":\"rail1\",\"flows\":[{\"src\":1,\"dst\":9,\"bytes\":\"10GB\"}]}";
    if (sim_result("dgx-h100:nodes=2,o=0,g=0", rail, "ring", 1000000000, &p, &r)) { /* alpha-beta: no o, g */
        double T = r.time_s;
        /* 30 steps of 62.5 MB over a 48 GB/s NIC, each behind the 2.6 us route across nodes (two 0.3 us NVLink
         * links to the PXN GPU, two 1 us NIC links) */
        T_NEAR(T, 30 * (2.6e-6 + 62.5e6 / 48e9), 1e-4, "the ring is not slowed (its rail is rail 0)");
        ar_sim_dlink_name(p, r.bottleneck, bn, sizeof bn);
        T_CHECK(!strcmp(bn, "n0.g1-rail1 (n0.g1->rail1)"), "the saturated rail link is the bottleneck: %s", bn);
        if (r.bottleneck >= 0) {
            T_CHECK(fabs(r.link_bytes[r.bottleneck] - 48e9 * (T - 2e-6)) <= 1024, "48 GB/s from 2 us to the end: %.17g",
                    r.link_bytes[r.bottleneck]);
            T_NEAR(ar_sim_link_util(p, &r, r.bottleneck), (T - 2e-6) / T, 1e-9, "the rail link is saturated");
        }
        T_CHECK(fabs(r.bg_bytes - 48e9 * (T - 2e-6)) <= 1024, "background bytes until the end: %.17g", r.bg_bytes);
        printf("flow stats: %s util %.6f, background %.6g B\n", bn,
               r.bottleneck >= 0 ? ar_sim_link_util(p, &r, r.bottleneck) : NAN, r.bg_bytes);
    }
    ar_sim_result_free(&r);
    ar_platform_free(p);
}

/* 9. (file comment) a failed NIC: NCCL's algorithms planned on the NICs left */
static void test_failed_nic(void) {
    const char *nic = "{\"name\":\"nic0\",\"failed_links\":[\"n0.g0-rail0\"]}";
    const char *plat = "dgx-h100:nodes=2,o=0,g=0"; /* the alpha-beta arithmetic above: no per-message costs */
    /* NCCL's model: 7 channels at 48 GB/s, the bandwidth term x 8/7 */
    double bw[2], ch[2];
    for (int k = 0; k < 2; k++) {
        ar_platform *p = sim_platform(plat);
        ar_scenario *sc = k ? scen(nic) : NULL;
        ar_err e = {{0}};
        ar_nccl_in in;
        double t1 = NAN, t2 = NAN;
        if (p && (!k || sc) && (!k || ar_scenario_apply(sc, &p, &e) == AR_OK) &&
            ar_nccl_in_from_platform(p, 0, &in, &e) == AR_OK) {
            ch[k] = in.ring.nchannels;
            T_OK(ar_nccl_model_time(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 1e9, &t1, &e), e);
            T_OK(ar_nccl_model_time(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, AR_NCCL_SIMPLE, 2e9, &t2, &e), e);
            T_NEAR(in.ring.bw_inter_GBps, 48.0, 1e-12, "a ring channel runs at one NIC's 48 GB/s");
        } else {
            T_CHECK(0, "nccl model on %s: %s", plat, e.msg);
        }
        bw[k] = t1 - (2 * t1 - t2); /* the bandwidth term: t(1 GB) less the latency */
        ar_scenario_free(sc);
        ar_platform_free(p);
    }
    T_CHECK(ch[0] == 8 && ch[1] == 7, "NCCL's ring channels: %g healthy, %g with 7 NICs (one per NIC)", ch[0], ch[1]);
    T_NEAR(bw[1] / bw[0], 8.0 / 7.0, 1e-9, "NCCL's model: RING's bandwidth term x 8/7 with 7 of 8 NICs");
    /* nccl-ring simulated: 7 channels on rails 1..7 */
    double w, h = run(plat, NULL, "nccl-ring", 1000000000, AR_SYNC_DATAFLOW, 0, NULL, NULL, 0);
    char bn[160] = "";
    double t = run(plat, nic, "nccl-ring", 1000000000, AR_SYNC_DATAFLOW, 0, &w, bn, sizeof bn);
    double rail7 = 30 * 1e9 / (7 * 16 * 48e9), rail8 = 30 * 1e9 / (8 * 16 * 48e9);
    /* a step: the 2.6 us route (two 0.3 us NVLink links to the NIC's GPU, two 1 us NIC links) + its bytes */
    T_NEAR(t, 30 * 2.6e-6 + rail7, 1e-7, "nccl-ring without a NIC = 30 (2.6 us + 1e9 / (7 x 16 x 48e9))");
    T_NEAR(t - 30 * 2.6e-6, rail8 * 8 / 7, 1e-7, "its rail term is 8/7 of the healthy one");
    T_NEAR(w, t, 1e-7, "the walk plans and prices the same 7 channels");
    T_CHECK(strstr(bn, "rail") != NULL, "a rail link is the bottleneck: %s", bn);
    T_CHECK(t / h > 1.05 && t / h <= 8.0 / 7.0 + 1e-9,
            "nccl-ring: %.6g ms / %.6g ms = %.4f x, not the 1.93 x of a "
            "channel on a GPU without its NIC",
            t * 1e3, h * 1e3, t / h);
    /* the schedule: 7 channels, none entering a node at GPU 0 */
    ar_platform *p = sim_platform(plat);
    ar_scenario *sc = scen(nic);
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    if (p && sc && ar_scenario_apply(sc, &p, &e) == AR_OK && ar_algo_plan("nccl-ring", p, 1000, 4, &s, &e) == AR_OK &&
        s) {
        T_CHECK(s->nphases == 2 && s->phases[0].nops == 7, "nccl-ring plans 7 channels: %d",
                s->nphases ? s->phases[0].nops : -1);
        for (int c = 0; s->nphases && c < s->phases[0].nops; c++)
            T_CHECK(s->phases[0].ops[c].members[0] == c + 1, "channel %d enters node 0 at GPU %d (its NIC's)", c,
                    s->phases[0].ops[c].members[0]);
    }
    ar_schedule_free(s);
    ar_scenario_free(sc);
    ar_platform_free(p);
    /* NCCL's pick (NVLS_TREE -> nvlstree): 1/7 of each slice per rail, under the NVSwitch reduction */
    double nh = run(plat, NULL, "nccl", 1000000000, AR_SYNC_DATAFLOW, 0, NULL, NULL, 0);
    double nt = run(plat, nic, "nccl", 1000000000, AR_SYNC_DATAFLOW, 0, NULL, NULL, 0);
    T_CHECK(nt / nh > 1 && nt / nh < 8.0 / 7.0, "nccl (nvlstree): %.6g ms / %.6g ms = %.4f x (before 1.28 x)", nt * 1e3,
            nh * 1e3, nt / nh);
    printf("failed NIC: nccl-ring %.9g -> %.9g s (%.4f x), nccl %.9g -> %.9g s (%.4f x), NCCL model bw x %.6f\n", h, t,
           t / h, nh, nt, nt / nh, bw[1] / bw[0]);
    /* nccl-ring's reduce-scatter and all-gather without the NIC: 7 channels, each owning 1/7 of every rank's
     * block, one per rail 1..7: 15 steps of 2.6 us + 1e9 / (7 x 16 x 48e9) each, the walk the same */
    for (int c = AR_COLL_REDUCESCATTER; c <= AR_COLL_ALLGATHER; c++) {
        ar_platform *q = sim_platform(plat);
        ar_scenario *qs = scen(nic);
        ar_schedule *qsch = NULL;
        ar_model_result m;
        ar_sim_result r;
        ar_sim_opts o = {.sync = AR_SYNC_DATAFLOW};
        if (q && qs && ar_scenario_apply(qs, &q, &e) == AR_OK &&
            ar_algo_plan_coll("nccl-ring", (ar_coll)c, q, 250000000, 4, &qsch, &e) == AR_OK &&
            ar_model_walk(q, qsch, &m, &e) == AR_OK && ar_sim_run(q, qsch, &o, &r, &e) == AR_OK) {
            double want = 15 * 2.6e-6 + 15 * 1e9 / (7 * 16 * 48e9);
            T_CHECK(qsch->phases[0].nops == 7, "%s: %d channels", ar_coll_name((ar_coll)c), qsch->phases[0].nops);
            T_NEAR(r.time_s, want, 1e-7,
                   c == AR_COLL_ALLGATHER
                       ? "nccl-ring allgather without a NIC = 15 (2.6 us + 1e9 / (7 x 16 x 48e9))"
                       : "nccl-ring reducescatter without a NIC = 15 (2.6 us + 1e9 / (7 x 16 x 48e9))");
            T_NEAR(m.time_s, r.time_s, 1e-7, "nccl-ring RS/AG: the walk prices the same 7 channels");
            ar_sim_result_free(&r);
        } else {
            T_CHECK(0, "nccl-ring %s without a NIC: %s", ar_coll_name((ar_coll)c), e.msg);
        }
        ar_schedule_free(qsch);
        ar_scenario_free(qs);
        ar_platform_free(q);
    }
}

int main(void) {
    test_timing();
    test_slow_compute();
    test_bad();
    test_flow_stats();
    test_failed_nic();
    return t_done("sim_scenario");
}
