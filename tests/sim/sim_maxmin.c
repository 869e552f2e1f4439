/* The simulator's sharing is max-min fair (the default CM02 configuration
 * moved from SimGrid's fairbottleneck solver to its maxmin solver, with the links'
 * latencies paid by arlab so that every flow weighs the same).
 *
 * Four concurrent sends on a chain of switches s1 - s2 - s3 - s4 (access links
 * 1000 GB/s, no latency):
 *     h: A -> X  crosses H1 = s1->s2 (10 GB/s)                     1 GB
 *     k: B -> Y  crosses H1 and K2 = s2->s3 (9 GB/s)               8 GB
 *     m1: C -> Z, m2: D -> W  cross K2 and Mx = s3->s4 (2 GB/s)    1 GB each
 * Max-min fair rates (progressive filling): Mx saturates first at 1 GB/s per m,
 * then H1 at 5 GB/s for h and k (K2 keeps 2 GB/s spare). h ends at 0.2 s; k then
 * gets K2's 7 GB/s until the m flows end at 1 s (8 - 1 - 5.6 = 1.4 GB left),
 * then 9 GB/s: done at 1 + 1.4/9 = 52/45 s.
 * SimGrid's fairbottleneck solver is not max-min fair here: in its first pass
 * every flow takes its own smallest share (h 5, k 3, m 1) and, after Mx
 * saturates, h and k split H1's rest equally, so h keeps its head start (6 vs 4
 * GB/s). h ends at 1/6 s, k has 7 1/3 GB left, gets 7 GB/s to 1 s (1.5 GB left),
 * then 9: done at 1 + 1.5/9 = 7/6 s. The naive engine (mailbox comms whose
 * latency SimGrid's links carry) runs fairbottleneck and must say so.
 *
 * Merged flows: flows that start at the same instant between the same hosts with
 * the same bytes are one SimGrid flow whose route lists each link k times (the
 * link then carries k times its rate). Three 1 GB sends A -> X, A -> X and
 * B -> Y share H1 equally, 10/3 GB/s each: all end at 0.3 s; a merged pair
 * weighing 1 would end at 0.2 s.
 * Many merged flows at one instant: 130 sends A -> X of 10 MB (one group: SimGrid flows of 64,
 * 64 and 2 members) and 20 sends A -> X of 11 .. 30 MB (20 groups of one: past the scan the
 * groups are found by hashing), every shortcut off: every flow crosses H1 only (the access links
 * carry 100 times more), so H1 stays full until the last ends: 1.71 GB / 10 GB/s = 0.171 s,
 * plus the route's 3 us with 1 us links. A member dropped leaves the run incomplete; a merged
 * flow weighing less than its members ends early.
 *
 * And a latency case: with 1 us per link the default run pays each flow's route
 * latency before it joins the sharing, as CM02 does: one 1 GB send over three
 * links (A -> s1 -> s2 -> X) takes 3 us + 1 GB / 10 GB/s exactly.
 */
#include "sim_util.h"

#define CHAIN_JSON                                                                             \
    "{\"name\": \"maxmin-chain\", \"kind\": \"graph\","                                        \
    " \"nodes\": [{\"name\": \"A\", \"type\": \"gpu\"}, {\"name\": \"B\", \"type\": \"gpu\"}," \
    "  {\"name\": \"C\", \"type\": \"gpu\"}, {\"name\": \"D\", \"type\": \"gpu\"},"            \
    "  {\"name\": \"X\", \"type\": \"gpu\"}, {\"name\": \"Y\", \"type\": \"gpu\"},"            \
    "  {\"name\": \"Z\", \"type\": \"gpu\"}, {\"name\": \"W\", \"type\": \"gpu\"},"            \
    "  {\"name\": \"s1\", \"type\": \"switch\"}, {\"name\": \"s2\", \"type\": \"switch\"},"    \
    "  {\"name\": \"s3\", \"type\": \"switch\"}, {\"name\": \"s4\", \"type\": \"switch\"}],"   \
    " \"links\": ["                                                                            \
    "  {\"a\": \"A\", \"b\": \"s1\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"B\", \"b\": \"s1\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"X\", \"b\": \"s2\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"C\", \"b\": \"s2\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"D\", \"b\": \"s2\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"Y\", \"b\": \"s3\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"Z\", \"b\": \"s4\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"W\", \"b\": \"s4\", \"bw\": \"1000GBps\", \"lat\": \"%s\"},"                  \
    "  {\"a\": \"s1\", \"b\": \"s2\", \"bw\": \"10GBps\", \"lat\": \"%s\"},"                   \
    "  {\"a\": \"s2\", \"b\": \"s3\", \"bw\": \"9GBps\", \"lat\": \"%s\"},"                    \
    "  {\"a\": \"s3\", \"b\": \"s4\", \"bw\": \"2GBps\", \"lat\": \"%s\"}]}"

enum { A, B, C, D, X, Y, Z, W };
#define GB (UINT64_C(1000000000) / 4) /* elements of 4 bytes */

static ar_platform *chain(const char *lat) {
    char json[4096];
    snprintf(json, sizeof json, CHAIN_JSON, lat, lat, lat, lat, lat, lat, lat, lat, lat, lat, lat);
    return sim_platform(json);
}

static void send(ar_schedule *s, int from, int to, uint64_t elems) {
    int m[2] = {from, to};
    T_CHECK(ar_sched_op(s, AR_OP_SEND, AR_IMPL_DIRECT, m, 2, 0, elems) != NULL, "send %d -> %d", from, to);
}

/* Simulates s on p under dataflow with every shortcut off; the time, NAN if it did not run; *in_sg: the
 * transfers SimGrid simulated. */
static double sim_full(const ar_platform *p, const ar_schedule *s, uint64_t *in_sg) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.full = 1;
    o.sync = AR_SYNC_DATAFLOW;
    ar_sim_result r;
    ar_err e = {{0}};
    ar_status st = ar_sim_run(p, s, &o, &r, &e);
    T_CHECK(st == AR_OK && r.complete, "no shortcuts: %s", e.msg);
    double t = st == AR_OK && r.complete ? r.time_s : NAN;
    *in_sg = st == AR_OK ? r.transfers_simgrid : 0;
    if (st == AR_OK) ar_sim_result_free(&r);
    return t;
}

/* 130 sends A -> X of 10 MB and 20 of 11 .. 30 MB in one phase (file comment) */
static ar_schedule *many_merged(const ar_platform *p) {
    ar_schedule *s = ar_schedule_new("many-merged", p->nranks, 30 * GB / 1000, 4);
    ar_sched_phase(s, "150 sends at once");
    for (int i = 0; i < 130; i++) send(s, A, X, 10 * GB / 1000);
    for (int k = 11; k <= 30; k++) send(s, A, X, (uint64_t)k * GB / 1000);
    return s;
}

/* Simulates s on p; returns the time, NAN if it did not run (a failed check). */
static double sim(const ar_platform *p, const ar_schedule *s, const char *network, ar_sim_engine engine, char *net_out,
                  size_t n) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.network = network;
    o.engine = engine;
    o.sync = AR_SYNC_DATAFLOW;
    ar_sim_result r;
    ar_err e = {{0}};
    ar_status st = ar_sim_run(p, s, &o, &r, &e);
    T_CHECK(st == AR_OK && r.complete, "%s (%s): %s", network ? network : "default",
            engine == AR_SIM_NAIVE ? "naive" : "fast", e.msg);
    double t = st == AR_OK && r.complete ? r.time_s : NAN;
    if (st == AR_OK) {
        snprintf(net_out, n, "%s", r.network);
        ar_sim_result_free(&r);
    }
    return t;
}

int main(void) {
    ar_platform *p = chain("0us");
    T_CHECK(p != NULL, "chain platform");
    if (!p) return t_done("sim_maxmin");
    ar_schedule *s = ar_schedule_new("four-flows", p->nranks, 8 * GB, 4);
    ar_sched_phase(s, "all at once");
    send(s, A, X, GB);
    send(s, B, Y, 8 * GB);
    send(s, C, Z, GB);
    send(s, D, W, GB);

    char net[512];
    double t = sim(p, s, NULL, AR_SIM_FAST, net, sizeof net);
    printf("default (%s): %.17g s, max-min fair %.17g s\n", net, t, 52.0 / 45);
    T_CHECK(sim_rel(t, 52.0 / 45) <= 1e-9, "default: %.17g s, max-min fair 52/45 = %.17g s", t, 52.0 / 45);
    T_CHECK(strstr(net, "network/solver:maxmin") && strstr(net, "latency:arlab"), "default names its sharing: %s", net);

    double fb = sim(p, s, "CM02,network/solver:fairbottleneck", AR_SIM_FAST, net, sizeof net);
    printf("fairbottleneck (%s): %.17g s, hand 7/6 = %.17g s\n", net, fb, 7.0 / 6);
    T_CHECK(sim_rel(fb, 7.0 / 6) <= 1e-9, "fairbottleneck: %.17g s, hand 7/6 = %.17g s", fb, 7.0 / 6);
    T_CHECK(strstr(net, "latency:simgrid"), "fairbottleneck keeps latency in SimGrid: %s", net);

    double nv = sim(p, s, NULL, AR_SIM_NAIVE, net, sizeof net);
    T_CHECK(sim_rel(nv, 7.0 / 6) <= 1e-9, "naive: %.17g s, fairbottleneck's 7/6 = %.17g s", nv, 7.0 / 6);
    T_CHECK(strstr(net, "network/solver:fairbottleneck") && strstr(net, "latency:simgrid"),
            "naive names its sharing: %s", net);
    ar_schedule_free(s);

    /* a merged pair against one flow */
    s = ar_schedule_new("merged", p->nranks, GB, 4);
    ar_sched_phase(s, "two the same, one other");
    send(s, A, X, GB);
    send(s, A, X, GB);
    send(s, B, Y, GB);
    t = sim(p, s, NULL, AR_SIM_FAST, net, sizeof net);
    nv = sim(p, s, NULL, AR_SIM_NAIVE, net, sizeof net);
    printf("merged pair + one: default %.17g s, naive %.17g s, hand 0.3 s\n", t, nv);
    T_CHECK(sim_rel(t, 0.3) <= 1e-12 && sim_rel(nv, 0.3) <= 1e-12, "merged pair: %.17g s (naive %.17g), want 0.3", t,
            nv);
    ar_schedule_free(s);

    /* many merged flows at one instant, no latency (file comment) */
    s = many_merged(p);
    uint64_t in_sg = 0;
    t = sim_full(p, s, &in_sg);
    printf("150 sends in 21 groups: %.17g s (%llu in SimGrid), hand 0.171 s\n", t, (unsigned long long)in_sg);
    T_CHECK(sim_rel(t, 0.171) <= 1e-9 && in_sg == 150, "150 sends: %.17g s, %llu in SimGrid; want 0.171 s, 150", t,
            (unsigned long long)in_sg);
    ar_schedule_free(s);
    ar_platform_free(p);

    /* latency paid before the flow joins the sharing: 3 links of 1 us, 1 GB at 10 GB/s */
    p = chain("1us");
    T_CHECK(p != NULL, "chain platform with latencies");
    if (!p) return t_done("sim_maxmin");
    s = ar_schedule_new("one-flow", p->nranks, GB, 4);
    ar_sched_phase(s, "one send");
    send(s, A, X, GB);
    double want = 3e-6 + 0.1;
    t = sim(p, s, NULL, AR_SIM_FAST, net, sizeof net);
    fb = sim(p, s, "CM02,network/solver:fairbottleneck", AR_SIM_FAST, net, sizeof net);
    nv = sim(p, s, NULL, AR_SIM_NAIVE, net, sizeof net);
    printf("one send with latency: default %.17g s, fairbottleneck %.17g s, naive %.17g s, hand %.17g s\n", t, fb, nv,
           want);
    T_CHECK(sim_rel(t, want) <= 1e-12 && sim_rel(fb, want) <= 1e-12 && sim_rel(nv, want) <= 1e-12,
            "one send: %.17g / %.17g / %.17g s, want %.17g", t, fb, nv, want);
    ar_schedule_free(s);

    /* the same 150 sends, each paying the route's 3 us first: they wait for one date together */
    s = many_merged(p);
    t = sim_full(p, s, &in_sg);
    printf("150 sends after 3 us: %.17g s (%llu in SimGrid), hand %.17g s\n", t, (unsigned long long)in_sg,
           3e-6 + 0.171);
    T_CHECK(sim_rel(t, 3e-6 + 0.171) <= 1e-9 && in_sg == 150, "150 sends after 3 us: %.17g s, %llu in SimGrid", t,
            (unsigned long long)in_sg);
    ar_schedule_free(s);

    /* ops of different round counts in one phase, sharing no link: a ring all-reduce of 2 GB over
     * {A, B} (2 rounds of 1 GB each way over A - s1 - B: 2 us + 1 ms) beside one of 3 MB over
     * {X, C, D} (4 rounds of 1 MB through s2: 2 us + 1 us each). The simulator runs each op at its own
     * pace: 2 x 1.002 ms = 2.004 ms. The walk runs ops at their own pace only in phases with a switch
     * op (the pipelined switch stages, tests/cli/cli_switch_nodes.sh: walk = sim there); this phase keeps
     * its lockstep rounds, an upper bound: 2.004 ms + the small ring's last two rounds = 2.010 ms */
    s = ar_schedule_new("two-rings", p->nranks, 2 * GB, 4);
    ar_sched_phase(s, "a big ring beside a small one");
    int ab[2] = {A, B}, xcd[3] = {X, C, D};
    T_CHECK(ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, ab, 2, 0, 2 * GB) != NULL, "ring A B");
    T_CHECK(ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, xcd, 3, 0, 3 * GB / 1000) != NULL, "ring X C D");
    ar_model_result mr;
    ar_err e = {{0}};
    T_CHECK(ar_model_walk(p, s, &mr, &e) == AR_OK, "walk: %s", e.msg);
    want = 2 * (2e-6 + 1e-3);
    t = sim(p, s, NULL, AR_SIM_FAST, net, sizeof net);
    printf("two rings at their own pace: walk %.17g s, sim %.17g s, hand %.17g s\n", mr.time_s, t, want);
    T_CHECK(sim_rel(t, want) <= 1e-9, "sim %.17g s, want %.17g", t, want);
    T_CHECK(sim_rel(mr.time_s, want + 2 * 3e-6) <= 1e-9, "walk %.17g s, lockstep %.17g s", mr.time_s, want + 2 * 3e-6);
    ar_schedule_free(s);
    ar_platform_free(p);
    return t_done("sim_maxmin");
}
