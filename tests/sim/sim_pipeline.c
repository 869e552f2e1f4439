/* Compute costs with overlap: a reduction rate on the platform (or --gamma),
 * the pipelined ring of the PFN post against the plain ring, under --sync dataflow.
 *
 * 1. The closed form (models/eqs.c ar_eq_ring_pipe) against a direct evaluation of its
 *    recurrences (S, E, R of every round, written out below) for P = 2..9, c = 1..6 and
 *    random T, g, L: the max-plus solution is exact (1e-12).
 * 2. By hand, flat:ranks=8 (100 Gbps = 12.5 GB/s per link, 1 us per link: a = 2 us), N = 256 MB,
 *    gamma = 1e-10 s/B (a 10 GB/s reduction):
 *      ring (c = 1): T = 2e-6 + 32e6/12.5e9 = 2.562 ms, g = 1e-10 * 32e6 = 3.2 ms; every RS step
 *        waits for the previous reduction: (P-1)(2T + g) = 7 * 8.324 ms = 58.268 ms;
 *      pipelined ring c = 4: T = 2e-6 + 8e6/12.5e9 = 0.642 ms, g = 0.8 ms > T (the GPU is the
 *        bottleneck), K = 28 rounds: R(q) = T + g + q g, R(27) = 23.042 ms; E_rs =
 *        max(K T = 17.976, 2T + g + (K-1-c) g = 20.484) = 20.484 ms; E_ag(c-1) = max(E_rs + cT =
 *        23.052, R(27) + T = 23.684) = 23.684 ms; total = 23.684 + (K-c) T = 23.684 + 15.408
 *        = 39.092 ms: the pipelined ring beats the ring by 19.176 ms (32.9 %).
 *      gamma = 1e-11 (g = 0.08 ms <= (c-1) T: hidden): pipelined 2 K T = 35.952 ms; ring
 *        7 * (5.124 + 0.32) = 38.108 ms.
 *    The simulation (fast engine, --sync dataflow), the walk and the closed form agree to 1e-9.
 * 3. Launch overhead 20 us (platform "compute"): each op pays it once per rank before its first
 *    round; the all-gather's launch overlaps the last reduce-scatter reduction here (E_rs + L + cT
 *    = 23.072 < R(27) + T = 23.684 ms), so only the first counts: 39.112 ms; ring 58.288 ms.
 * 3b. Host staging copies (test_staging, arithmetic there): ring 7 (2(d+T) + 2h + g), pipelined
 *    2 K (d+T) + h; refused under --sync round.
 * 4. --check under dataflow with a reduction rate: the data a rank sends has been reduced
 *    (every algorithm on blueconnect-12).
 * 5. Bad "compute" objects: one-line errors naming the JSON path; a closed form without a
 *    compute-cost term (halving-doubling) is refused on a platform with a reduction rate.
 * 6. The naive engine (a reducer actor per GPU) = the fast one under dataflow with a reduction
 *    cost (1e-9); under --sync round it refuses one with a clear message. */
#include "sim_util.h"

/* The recurrences of eqs.c, round by round (c sub-chunks, P ranks, all alike; d, h: staging copies). */
static double direct(int P, int c, double T, double d, double h, double g, double L) {
    int K = (P - 1) * c;
    double *S = calloc((size_t)K + 1, sizeof *S), *E = calloc((size_t)K + 1, sizeof *E),
           *H = calloc((size_t)K + 1, sizeof *H), *R = calloc((size_t)K + 1, sizeof *R),
           *Ha = calloc((size_t)K + 1, sizeof *Ha);
    double D = 0;
    for (int q = 0; q < K; q++) {
        S[q] = q ? E[q - 1] : 0;
        if (q >= c && R[q - c] > S[q]) S[q] = R[q - c];
        D = (S[q] > D ? S[q] : D) + d; /* the sender's device-to-host copy (FIFO) */
        E[q] = D + T;
        H[q] = (q && H[q - 1] > E[q] ? H[q - 1] : E[q]) + h; /* the receiver's host-to-device copy */
        R[q] = (q && R[q - 1] > H[q] ? R[q - 1] : H[q]) + g;
    }
    /* all-gather: copies land after their host-to-device copy; sub-chunk j of step 0 needs R[K-c+j] */
    double prev = E[K - 1] + L, hprev = H[K - 1];
    for (int q = 0; q < K; q++) {
        double s = prev;
        if (q < c && R[K - c + q] > s) s = R[K - c + q];
        if (q >= c && Ha[q - c] > s) s = Ha[q - c];
        D = (s > D ? s : D) + d;
        prev = D + T;
        Ha[q] = (hprev > prev ? hprev : prev) + h;
        hprev = Ha[q];
    }
    double end = Ha[K - 1];
    free(S);
    free(E);
    free(H);
    free(R);
    free(Ha);
    return L + end;
}

static void test_closed_vs_recurrence(void) {
    unsigned x = 15;
    int n = 0;
    for (int P = 2; P <= 9; P++)
        for (int c = 1; c <= 6; c++)
            for (int k = 0; k < 6; k++) {
                x = x * 1103515245u + 12345u;
                double T = 1e-4 * (1 + (x >> 16) % 100);
                x = x * 1103515245u + 12345u;
                double g = k == 0 ? 0 : 1e-4 * ((x >> 16) % 300);
                double L = k % 3 == 2 ? 3e-4 : 0;
                double want = direct(P, c, T, 0, 0, g, L), got = ar_eq_ring_pipe(P, c, T, g, L);
                T_CHECK(sim_rel(got, want) <= 1e-12, "P=%d c=%d T=%g g=%g L=%g: closed %.17g, recurrence %.17g", P, c,
                        T, g, L, got, want);
                x = x * 1103515245u + 12345u;
                double dd = k < 2 ? 0 : 1e-4 * ((x >> 16) % 200);
                x = x * 1103515245u + 12345u;
                double hh = k < 2 ? 0 : 1e-4 * ((x >> 16) % 200);
                want = direct(P, c, T, dd, hh, g, L);
                got = ar_eq_ring_pipe_staged(P, c, T, dd, hh, g, L);
                T_CHECK(sim_rel(got, want) <= 1e-12,
                        "staged P=%d c=%d T=%g d=%g h=%g g=%g L=%g: closed %.17g, recurrence %.17g", P, c, T, dd, hh, g,
                        L, got, want);
                n++;
            }
    T_CHECK(n == 8 * 6 * 6, "recurrence cases %d", n);
    /* the special cases of the derivation */
    T_NEAR(ar_eq_ring_pipe(8, 1, 2.562e-3, 3.2e-3, 0), 7 * (2 * 2.562e-3 + 3.2e-3), 1e-12, "c=1: (P-1)(2T+g)");
    T_NEAR(ar_eq_ring_pipe(8, 4, 0.642e-3, 0.08e-3, 0), 2 * 28 * 0.642e-3, 1e-12, "g <= (c-1)T: 2KT");
    T_NEAR(ar_eq_ring_pipe(8, 4, 0.642e-3, 0, 0), 2 * 7 * (4 * 2e-6 + 32e6 / 12.5e9), 1e-12,
           "g = 0: 2(P-1)(ca+N/(PW))");
}

static double run_one(const char *plat, const char *algo, double gamma, double *walk, double *closed) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_DATAFLOW;
    o.gamma_s_per_B = gamma;
    sim_run x;
    double t = NAN;
    if (sim_run_case(&x, plat, algo, 256000000, &o) == 0) {
        T_CHECK(x.st == AR_OK && x.r.complete, "%s on %s: %s", algo, plat, x.e.msg);
        if (x.st == AR_OK) t = x.r.time_s;
    }
    /* the walk and the closed form read the reduction rate from the platform (--gamma sets it) */
    if (x.p && x.s && gamma > 0) {
        x.p->reduce_Bps = 1 / gamma;
        ar_model_result m;
        ar_err e = {{0}};
        T_OK(ar_model_walk(x.p, x.s, &m, &e), e);
        x.walk = m.time_s;
        T_OK(ar_algo_closed(algo, x.p, 64000000, 4, &m, &e), e);
        x.closed = m.time_s;
    }
    *walk = x.walk;
    *closed = x.closed;
    sim_run_free(&x);
    return t;
}

static void check3(const char *what, double sim, double walk, double closed, double hand) {
    printf("%-40s sim %.9f  walk %.9f  closed %.9f  hand %.9f ms\n", what, sim * 1e3, walk * 1e3, closed * 1e3,
           hand * 1e3);
    T_CHECK(sim_rel(sim, hand) <= 1e-9, "%s: sim %.17g, hand %.17g", what, sim, hand);
    T_CHECK(sim_rel(walk, sim) <= 1e-9, "%s: walk %.17g, sim %.17g", what, walk, sim);
    T_CHECK(sim_rel(closed, hand) <= 1e-9, "%s: closed %.17g, hand %.17g", what, closed, hand);
}

static void test_by_hand(void) {
    double w, c;
    double ring = run_one("flat:ranks=8", "ring", 1e-10, &w, &c);
    check3("ring, gamma 1e-10", ring, w, c, 58.268e-3);
    double pipe = run_one("flat:ranks=8", "pipelined-ring:chunks=4", 1e-10, &w, &c);
    check3("pipelined ring c=4, gamma 1e-10", pipe, w, c, 39.092e-3);
    T_NEAR(ring - pipe, 19.176e-3, 1e-9, "the pipelined ring's saving (closed form: 58.268 - 39.092 ms)");
    double ring2 = run_one("flat:ranks=8", "ring", 1e-11, &w, &c);
    check3("ring, gamma 1e-11", ring2, w, c, 38.108e-3);
    double pipe2 = run_one("flat:ranks=8", "pipelined-ring:chunks=4", 1e-11, &w, &c);
    check3("pipelined ring c=4, gamma 1e-11 (hidden)", pipe2, w, c, 35.952e-3);
    /* the same platform with the rate in its file and a launch overhead */
    static const char *const star =
        "{\"name\":\"star8c\",\"kind\":\"tree\",\"levels\":[{\"fanout\":8,\"bw\":\"100Gbps\",\"lat\":\"1us\"}],"
        "\"compute\":{\"reduce\":\"10GBps\",\"launch\":\"20us\"}}";
    ring = run_one(star, "ring", 0, &w, &c);
    check3("ring, platform 10GBps + launch 20us", ring, w, c, 58.288e-3);
    pipe = run_one(star, "pipelined-ring:chunks=4", 0, &w, &c);
    check3("pipelined c=4, platform 10GBps + 20us", pipe, w, c, 39.112e-3);
}

/* Host staging copies (compute.stage), by hand: st8 = flat:ranks=8 with each GPU behind its own
 * machine switch (a 100 GB/s, 0 us hop: every transfer crosses machines and stages), reduce
 * 20 GB/s, d2h 12 GB/s, h2d 10 GB/s, 256 MB:
 *   ring, sub = 32e6 B: T = 2e-6 + 32e6/12.5e9, d = 32e6/12e9, h = 32e6/10e9, g = 32e6/20e9; every
 *     RS step is D2H, network, H2D, reduction in series and every AG step D2H, network, H2D:
 *     7 (2(d+T) + 2h + g) = 129.2013 ms;
 *   pipelined c = 4, sub = 8e6 B: T' = d + T = 1.30867 ms is the largest stage (h = 0.8, g = 0.4):
 *     the sender's chain of D2H + network runs back to back through both phases, then the last
 *     copy's H2D: 2 K T' + h = 56 x 1.30867 + 0.8 = 74.0853 ms. */
static void test_staging(void) {
    static const char *const st8 =
        "{\"name\":\"st8\",\"kind\":\"tree\",\"levels\":[{\"fanout\":1,\"bw\":\"100GBps\",\"lat\":\"0us\"},"
        "{\"fanout\":8,\"bw\":\"100Gbps\",\"lat\":\"1us\"}],"
        "\"compute\":{\"reduce\":\"20GBps\",\"stage\":{\"d2h\":\"12GBps\",\"h2d\":\"10GBps\"}}}";
    double w, c, sub = 32e6;
    double T = 2e-6 + sub / 12.5e9, d = sub / 12e9, h = sub / 10e9, g = sub / 20e9;
    double ring = run_one(st8, "ring", 0, &w, &c);
    check3("ring, staging copies", ring, w, c, 7 * (2 * (d + T) + 2 * h + g));
    sub = 8e6;
    T = 2e-6 + sub / 12.5e9, d = sub / 12e9, h = sub / 10e9;
    double pipe = run_one(st8, "pipelined-ring:chunks=4", 0, &w, &c);
    check3("pipelined c=4, staging copies", pipe, w, c, 2 * 28 * (d + T) + h);
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_DATAFLOW;
    o.check = 1;
    sim_run x;
    if (sim_run_case(&x, st8, "halving-doubling", 4 * 322560, &o) == 0)
        T_CHECK(x.st == AR_OK && x.r.complete, "--check with staging copies: %s", x.e.msg);
    sim_run_free(&x);
    o.check = 0;
    static const char *const algos[] = {"ring", "pipelined-ring:chunks=4", "halving-doubling", "binomial", "two-level"};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) { /* naive = fast with staging */
        double t[2] = {NAN, NAN};
        for (int en = 0; en < 2; en++) {
            o.engine = en ? AR_SIM_NAIVE : AR_SIM_FAST;
            if (sim_run_case(&x, st8, algos[i], 4 * 322560, &o) == 0 && x.st == AR_OK && x.r.complete)
                t[en] = x.r.time_s;
            sim_run_free(&x);
        }
        T_CHECK(sim_rel(t[1], t[0]) <= 1e-9, "%s with staging: naive %.17g, fast %.17g", algos[i], t[1], t[0]);
    }
    o.engine = AR_SIM_FAST;
    o.sync = AR_SYNC_ROUND;
    if (sim_run_case(&x, st8, "ring", 4 * 322560, &o) == 0)
        T_CHECK(x.st == AR_EUNSUPPORTED && strstr(x.e.msg, "compute.stage") && strstr(x.e.msg, "--sync dataflow"),
                "staging under --sync round is refused: %s", x.e.msg);
    sim_run_free(&x);
}

static void test_check(void) {
    static const char *const algos[] = {
        "ring", "pipelined-ring:chunks=3", "halving-doubling", "binomial", "two-level", "blueconnect", "flexreduce"};
    int ran = 0;
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_DATAFLOW;
        o.gamma_s_per_B = 2e-10;
        o.check = 1;
        sim_run x;
        if (sim_run_case(&x, "blueconnect-12", algos[i], 4 * 322560, &o) == 0) {
            T_CHECK(x.st == AR_OK && x.r.complete, "%s --check with gamma: %s", algos[i], x.e.msg);
            ran += x.st == AR_OK;
        }
        sim_run_free(&x);
    }
    sim_floor("--check with a reduction rate", ran, 0, 7);
}

static void test_errors(void) {
    static const struct {
        const char *json, *want;
    } bad[] = {
        {"\"compute\":{\"reduce\":\"fast\"}", "test: compute.reduce: \"fast\" is not a rate"},
        {"\"compute\":{\"reduse\":\"1GBps\"}", "test: compute: unknown key \"reduse\""},
        {"\"compute\":{\"launch\":-1}", "test: compute.launch: a time must not be negative"},
        {"\"compute\":{\"reduce\":0}", "test: compute.reduce: a rate must be > 0"},
        {"\"compute\":[1]", "test: compute: must be an object"},
        {"\"compute\":{\"stage\":{\"d2h\":\"1GBps\"}}", "test: compute.stage.h2d: missing"},
        {"\"compute\":{\"stage\":{\"d2h\":\"1GBps\",\"h2d\":\"1GBps\",\"transfers\":\"some\"}}",
         "test: compute.stage.transfers: must be \"inter-machine\" or \"all\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"name\":\"x\",\"kind\":\"tree\",\"levels\":[{\"fanout\":2,\"bw\":\"1GBps\",\"lat\":\"1us\"}],%s}",
                 bad[i].json);
        ar_platform *p = NULL;
        ar_err e = {{0}};
        T_CHECK(ar_platform_from_json(doc, "test", &p, &e) == AR_EINVAL, "%s is refused", bad[i].json);
        T_CHECK(strstr(e.msg, bad[i].want) == e.msg && !strchr(e.msg, '\n'), "%s: one line: %s", bad[i].json, e.msg);
        ar_platform_free(p);
    }
    ar_platform *p = sim_platform("flat:ranks=4");
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    if (p) { /* a closed form without a compute-cost term does not stand for a platform with one */
        ar_model_result m;
        p->reduce_Bps = 1e10;
        T_CHECK(ar_algo_closed("halving-doubling", p, 1000, 4, &m, &e) == AR_EUNSUPPORTED &&
                    strstr(e.msg, "no reduction, launch or staging term"),
                "halving-doubling closed form with a reduction rate: %s", e.msg);
        T_OK(ar_algo_closed("ring", p, 1000, 4, &m, &e), e);
        T_CHECK(m.costs == 1, "the ring's closed form prices the reduction");
        p->reduce_Bps = 0;
    }
    if (p) T_OK(ar_algo_plan("ring", p, 1000, 4, &s, &e), e);
    if (s) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.engine = AR_SIM_NAIVE;
        o.gamma_s_per_B = 1e-10;
        ar_sim_result r;
        T_CHECK(ar_sim_run(p, s, &o, &r, &e) == AR_EUNSUPPORTED && strstr(e.msg, "naive") && strstr(e.msg, "dataflow"),
                "naive + gamma under --sync round: %s", e.msg);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* 6. The naive engine under dataflow with a reduction cost (a reducer actor per GPU) = the fast one. */
static void test_naive(void) {
    static const char *const plats[] = {"flat:ranks=8", "blueconnect-12", "bc-ibm-2x4", "fr-7"};
    static const char *const algos[] = {
        "ring", "pipelined-ring:chunks=4", "halving-doubling", "binomial", "two-level", "blueconnect", "flexreduce"};
    int ran = 0;
    for (size_t i = 0; i < sizeof plats / sizeof plats[0]; i++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            double t[2] = {NAN, NAN};
            for (int en = 0; en < 2; en++) {
                ar_sim_opts o;
                memset(&o, 0, sizeof o);
                o.sync = AR_SYNC_DATAFLOW;
                o.engine = en ? AR_SIM_NAIVE : AR_SIM_FAST;
                o.gamma_s_per_B = 3e-10;
                sim_run x;
                if (sim_run_case_ex(&x, plats[i], algos[a], 4 * 322560, &o, 1) == 0 && x.st == AR_OK && x.r.complete)
                    t[en] = x.r.time_s;
                sim_run_free(&x);
            }
            if (isnan(t[0]) || isnan(t[1])) continue;
            ran++;
            T_CHECK(sim_rel(t[1], t[0]) <= 1e-9, "%s on %s, gamma 3e-10: naive %.17g, fast %.17g", algos[a], plats[i],
                    t[1], t[0]);
        }
    sim_floor("naive = fast under dataflow with a reduction cost", ran, 0, 28);
}

int main(void) {
    test_closed_vs_recurrence();
    test_by_hand();
    test_check();
    test_errors();
    test_naive();
    test_staging();
    return t_done("sim_pipeline");
}
