/* --sync dataflow against --sync round (lockstep), both engines.
 *
 * 1. Symmetric platforms, even blocks (a size every block count divides): ring,
 *    BlueConnect and two-level take the same time under both semantics (1e-12):
 *    every transfer of a round then takes the same time, so every rank ends
 *    every round at the same instant and no rank can start earlier.
 * 2. Random trees (tests/randtopo.h, 40 trees x 5 algorithms): the fast and
 *    naive engines agree under dataflow (1e-9, both on the naive engine's
 *    fairbottleneck solver), the default max-min sharing equals fairbottleneck's
 *    (1e-9) except for FlexReduce (range printed; tests/sim/sim_maxmin.c shows
 *    fairbottleneck is not max-min fair), and dataflow is never slower
 *    than lockstep for ring, binomial, halving-doubling and two-level: a
 *    rank's round r+1 starts at the latest when lockstep starts it (the
 *    barrier waits for the rank's own transfers too). FlexReduce is the
 *    exception, and the test prints its range (0.82 .. 1.28 when written):
 *    without the phase barrier its next level starts on a machine's uplink
 *    while another machine's piece of the previous level still crosses it, and
 *    max-min sharing then slows the critical piece (a scheduling anomaly; issue
 *    15 measured "+-5 % for FlexReduce when levels may overlap").
 * 3. Fixed cases with their numbers: binomial on blueconnect-12, 10 MB:
 *    lockstep 6.44 ms, dataflow 5.461 ms (-15.2 %, the "-15 % for
 *    binomial on uneven trees": the fast subtrees go on while the slow uplinks
 *    work); FlexReduce on fr-7, 10 MB: 9.536 ms, dataflow 10.024 ms (+5.1 %).
 * 4. --check under dataflow: every rank's buffer is the exact sum (the data
 *    a rank sends is complete when it sends it) for every algorithm.
 */
#include "../randtopo.h"
#include "sim_util.h"

/* The engines' default networks differ in their solver (the naive engine's mailbox comms keep
 * SimGrid's latencies, so it runs fairbottleneck; tests/sim/sim_maxmin.c): FB runs the fast engine
 * with the naive engine's network, to compare the engines themselves. */
#define FB "CM02,network/solver:fairbottleneck"

static int run_net(const char *plat, const char *algo, uint64_t bytes, ar_sync sync, ar_sim_engine en,
                   const char *network, double *t) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = sync;
    o.engine = en;
    o.network = network;
    sim_run x;
    int rc = sim_run_case(&x, plat, algo, bytes, &o);
    int ok = rc == 0 && x.st == AR_OK && x.r.complete == 1;
    if (rc == 0) {
        T_CHECK(x.st == AR_OK, "%s on %.40s (%s, %s): %s", algo, plat, ar_sync_name(sync),
                en == AR_SIM_NAIVE ? "naive" : "fast", x.e.msg);
        T_CHECK(!strcmp(x.r.sync, ar_sync_name(sync)), "%s: the result names its semantics (%s)", algo, x.r.sync);
    }
    *t = ok ? x.r.time_s : NAN;
    sim_run_free(&x);
    return ok;
}

static int run_pair(const char *plat, const char *algo, uint64_t bytes, ar_sync sync, ar_sim_engine en, double *t) {
    return run_net(plat, algo, bytes, sync, en, NULL, t);
}

static void test_symmetric(void) {
    static const char *const plats[] = {"flat:ranks=8", "blueconnect-12", "bc-ibm-2x4", "tree:fanouts=4x4"};
    static const char *const algos[] = {"ring", "blueconnect", "two-level"};
    const uint64_t bytes = UINT64_C(4) * 322560; /* 2^10 3^2 5 7 elements: every block count here divides it */
    int ran = 0;
    for (size_t i = 0; i < sizeof plats / sizeof plats[0]; i++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            double tr, tf, trn, tfn;
            if (!run_pair(plats[i], algos[a], bytes, AR_SYNC_ROUND, AR_SIM_FAST, &tr) ||
                !run_pair(plats[i], algos[a], bytes, AR_SYNC_DATAFLOW, AR_SIM_FAST, &tf) ||
                !run_pair(plats[i], algos[a], bytes, AR_SYNC_ROUND, AR_SIM_NAIVE, &trn) ||
                !run_pair(plats[i], algos[a], bytes, AR_SYNC_DATAFLOW, AR_SIM_NAIVE, &tfn))
                continue;
            ran++;
            printf("%-12s %-16s round %.15g  dataflow %.15g  (naive %.15g / %.15g)\n", algos[a], plats[i], tr, tf, trn,
                   tfn);
            T_CHECK(sim_rel(tf, tr) <= 1e-12, "%s on %s: dataflow %.17g != round %.17g", algos[a], plats[i], tf, tr);
            T_CHECK(sim_rel(tfn, tf) <= 1e-12, "%s on %s: naive dataflow %.17g != fast %.17g", algos[a], plats[i], tfn,
                    tf);
            T_CHECK(sim_rel(trn, tr) <= 1e-12, "%s on %s: naive round %.17g != fast %.17g", algos[a], plats[i], trn,
                    tr);
        }
    sim_floor("dataflow = round on symmetric platforms", ran, 0, 12);
}

static void test_random(void) {
    rt_rng g = rt_seed(15);
    int ran = 0, single = 0, faster = 0;
    double fb_lo = 1, fb_hi = 1; /* FlexReduce: max-min / fairbottleneck */
    double worst[5] = {1, 1, 1, 1, 1}, best[5] = {1, 1, 1, 1, 1};
    for (int t = 0; t < 40; t++) {
        char desc[160];
        rt_shape shape = t % 3 == 0 ? RT_SYM : t % 3 == 1 ? RT_ASYM2 : RT_ASYM3;
        int forced = t % 4 == 0 ? 8 : 0; /* a power of two for halving-doubling */
        char *json = rt_platform_json(&g, shape, forced, desc, sizeof desc);
        T_CHECK(json != NULL, "random platform %d", t);
        if (!json) continue;
        static const char *const algos[] = {"ring", "binomial", "halving-doubling", "two-level", "flexreduce"};
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            ar_platform *p = sim_platform(json);
            if (!p) break;
            int np = p->nranks, uni = p->uniform_depth, pow2 = (np & (np - 1)) == 0;
            ar_platform_free(p);
            if ((a == 2 && !pow2) || (a == 4 && !uni) || np < 2) continue;
            uint64_t bytes = UINT64_C(4) * (uint64_t)rt_int(&g, 1000, 400000);
            double tr, tf, tfb, tfn;
            if (!run_pair(json, algos[a], bytes, AR_SYNC_ROUND, AR_SIM_FAST, &tr) ||
                !run_pair(json, algos[a], bytes, AR_SYNC_DATAFLOW, AR_SIM_FAST, &tf) ||
                !run_net(json, algos[a], bytes, AR_SYNC_DATAFLOW, AR_SIM_FAST, FB, &tfb) ||
                !run_pair(json, algos[a], bytes, AR_SYNC_DATAFLOW, AR_SIM_NAIVE, &tfn))
                continue;
            ran++;
            T_CHECK(sim_rel(tfn, tfb) <= 1e-9, "%s on %s: naive dataflow %.17g != fast %.17g (both fairbottleneck)",
                    algos[a], desc, tfn, tfb);
            /* max-min against SimGrid's fairbottleneck heuristic: the same wherever no flow's first share
             * differs from its max-min share (all but FlexReduce here); FlexReduce's range is printed */
            if (a <= 3)
                T_CHECK(sim_rel(tf, tfb) <= 1e-9, "%s on %s: max-min %.17g != fairbottleneck %.17g", algos[a], desc, tf,
                        tfb);
            else {
                if (tf / tfb < fb_lo) fb_lo = tf / tfb;
                if (tf / tfb > fb_hi) fb_hi = tf / tfb;
            }
            if (a <= 3) { /* not FlexReduce: never slower */
                single++;
                T_CHECK(tf <= tr * (1 + 1e-12), "%s on %s: dataflow %.17g > round %.17g", algos[a], desc, tf, tr);
            }
            if (tf / tr > worst[a]) worst[a] = tf / tr;
            if (tf / tr < best[a]) best[a] = tf / tr;
            if (tf < tr * (1 - 1e-9)) faster++;
        }
        free(json);
    }
    printf("random trees: %d pairs (%d not FlexReduce), dataflow faster in %d\n", ran, single, faster);
    static const char *const names[] = {"ring", "binomial", "halving-doubling", "two-level", "flexreduce"};
    for (int a = 0; a < 5; a++) printf("  %-16s dataflow/round in [%.4f, %.4f]\n", names[a], best[a], worst[a]);
    printf("  flexreduce max-min / fairbottleneck in [%.4f, %.4f]\n", fb_lo, fb_hi);
    sim_floor("dataflow on random trees", ran, 0, 100);
    T_CHECK(faster > 0, "dataflow never faster on %d random cases", ran);
}

static void test_fixed(void) {
    double tr, tf, tfn;
    if (run_pair("blueconnect-12", "binomial", 10000000, AR_SYNC_ROUND, AR_SIM_FAST, &tr) &&
        run_pair("blueconnect-12", "binomial", 10000000, AR_SYNC_DATAFLOW, AR_SIM_FAST, &tf) &&
        run_pair("blueconnect-12", "binomial", 10000000, AR_SYNC_DATAFLOW, AR_SIM_NAIVE, &tfn)) {
        printf("binomial on blueconnect-12, 10 MB: round %.9g s, dataflow %.9g s (%.1f %%)\n", tr, tf,
               100 * (tf / tr - 1));
        T_NEAR(tr, 6.44e-3, 1e-9, "binomial round");
        T_NEAR(tf, 5.461e-3, 1e-9, "binomial dataflow");
        T_NEAR(tfn, tf, 1e-12, "binomial dataflow, naive = fast");
    } else {
        T_CHECK(0, "binomial on blueconnect-12 did not run");
    }
    if (run_pair("fr-7", "flexreduce", 10000000, AR_SYNC_ROUND, AR_SIM_FAST, &tr) &&
        run_pair("fr-7", "flexreduce", 10000000, AR_SYNC_DATAFLOW, AR_SIM_FAST, &tf)) {
        printf("flexreduce on fr-7, 10 MB: round %.9g s, dataflow %.9g s (%+.1f %%)\n", tr, tf, 100 * (tf / tr - 1));
        T_NEAR(tr, 9.536e-3, 1e-9, "flexreduce round");
        T_NEAR(tf, 10.024e-3, 1e-9, "flexreduce dataflow");
    } else {
        T_CHECK(0, "flexreduce on fr-7 did not run");
    }
}

static void test_check(void) {
    static const char *const algos[] = {"ring",       "halving-doubling", "binomial", "two-level",     "blueconnect",
                                        "flexreduce", "treepack",         "ps",       "pipelined-ring"};
    static const char *const plats[] = {"fr-7", "bc-ibm-2x4"};
    int ran = 0;
    for (size_t i = 0; i < 2; i++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            ar_sim_opts o;
            memset(&o, 0, sizeof o);
            o.sync = AR_SYNC_DATAFLOW;
            o.check = 1;
            sim_run x;
            int rc = sim_run_case_ex(&x, plats[i], algos[a], 4 * 10007, &o, 1);
            if (rc == 0) {
                ran++;
                T_CHECK(x.st == AR_OK && x.r.complete, "--check --sync dataflow %s on %s: %s", algos[a], plats[i],
                        x.e.msg);
            }
            sim_run_free(&x);
        }
    sim_floor("--check under dataflow", ran, 0, 18);
}

int main(void) {
    test_symmetric();
    test_random();
    test_fixed();
    test_check();
    return t_done("sim_dataflow");
}
