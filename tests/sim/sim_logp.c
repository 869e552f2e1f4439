/* Per-message costs (LogGP, the platform's compute.message o and g) by hand: the walk, the fast
 * engine and the naive engine (--sync dataflow) equal a hand-derived time to 1e-9.
 *
 * Platform k4: four GPUs, a link of B = 10 GB/s and alpha = 2 us between every pair (no two
 * transfers of a round share a link: no contention), o = 1 us at each end of every message
 * ("transfers": "all"), g = 0.5 us (then max(o, g) = o) or g = 3 us (then the gap rules the sides).
 * Each rank has a send side and a receive side, each serial: a message holds its side for
 * G' = max(o, g) and its own cost is o; the sender's o comes before the network part (T = alpha +
 * bytes / B), the receiver's o after it, and the data is usable when the receiver's o ends.
 * N = 1 MB (250 000 floats), P = 4.
 *
 * ring: 2(P-1) = 6 steps of one message per rank, each forwarding what the step before delivered:
 *   a step is o + T + o with T = 2 us + 250 KB / 10 GB/s = 27 us: 6 (27 + 2) = 174 us, for both
 *   g (one message per side per step: the side is free again after G' <= 29 us). The closed form
 *   states the term: 2(P-1)(alpha + N/(PB) + 2o).
 * halving-doubling: rounds of 500 KB, 250 KB (reduce-scatter) and 250 KB, 500 KB (all-gather),
 *   one message per rank each: sum (o + alpha + b/B + o) = 4 (2 + 2) + 2 (50 + 25) = 166 us, for both g
 *   (158 us without o).
 * ps (servers = P: direct reduce-scatter, then direct all-gather): each rank sends P-1 = 3
 *   messages in one round, in ascending destination order (core/lower.c); the message of s to d
 *   is s's pos_s(d)-th (pos_s(d) = d if d < s, else d - 1) and is injected at o + pos G', arrives at
 *   o + pos G' + T; each receiver takes its arrivals in order, o each, one per G'.
 *   g = 0.5 (G' = 1 us): arrivals at rank 0: 28, 28, 28 -> landed 29, 30, 31; rank 1: 28, 29, 29 ->
 *     31; rank 2: 29, 29, 30 -> 32; rank 3: 30, 30, 30 -> 33 (A = 31, 31, 32, 33). The all-gather
 *     of rank j's block starts at A_j (every rank entered the phase at 30, its network parts done):
 *     arrivals at rank 2: from 0 (pos 1) 31+1+1+27 = 60, from 1 (pos 1) 60, from 3 (pos 2)
 *     33+1+2+27 = 63 -> landed 61, 62, 64; rank 3: from 0, 1 (pos 2) 61, 61, from 2 (pos 2) 62 ->
 *     62, 63, 64; ranks 0 and 1 end at 62 and 63: ps = 64 us.
 *   g = 3 (G' = 3 us): A = 35, 35, 38, 41; all-gather arrivals at rank 2: 66, 66, 75 -> landed 67,
 *     70, 76; rank 3: 69, 69, 72 -> 70, 73, 76: ps = 76 us.
 *   (Without o and g: ps = 2 T = 54 us: one latency for the round's three messages.)
 * o = g = 0 (the same platform without "message"): ring 162 us, halving-doubling 150 us, ps 54 us,
 * and the walk of a platform whose file says o = g = 0 is that of the plain platform (1e-15).
 *
 * --sync round (lockstep: a round starts when every transfer of the round before has landed, every
 * side free): ring and halving-doubling as above (one message per side per round); ps pays each of
 * its two rounds whole: the all-gather round repeats the reduce-scatter round's pattern from idle
 * sides, so ps = 2 x 33 us (g = 0.5) and 2 x 41 us (g = 3) (A above: the last landing is 33, 41). */
#include "sim_util.h"

#define K4_LINKS                                                                    \
    "\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":\"10GBps\",\"lat\":\"2us\"}," \
    "{\"a\":\"gpu0\",\"b\":\"gpu2\",\"bw\":\"10GBps\",\"lat\":\"2us\"},"            \
    "{\"a\":\"gpu0\",\"b\":\"gpu3\",\"bw\":\"10GBps\",\"lat\":\"2us\"},"            \
    "{\"a\":\"gpu1\",\"b\":\"gpu2\",\"bw\":\"10GBps\",\"lat\":\"2us\"},"            \
    "{\"a\":\"gpu1\",\"b\":\"gpu3\",\"bw\":\"10GBps\",\"lat\":\"2us\"},"            \
    "{\"a\":\"gpu2\",\"b\":\"gpu3\",\"bw\":\"10GBps\",\"lat\":\"2us\"}]}"

static const char *const k4_small_g =
    "{\"name\":\"k4\",\"kind\":\"graph\",\"gpus\":4,"
    "\"compute\":{\"message\":{\"o\":\"1us\",\"g\":\"0.5us\",\"transfers\":\"all\"}}," K4_LINKS;
static const char *const k4_big_g =
    "{\"name\":\"k4\",\"kind\":\"graph\",\"gpus\":4,"
    "\"compute\":{\"message\":{\"o\":\"1us\",\"g\":\"3us\",\"transfers\":\"all\"}}," K4_LINKS;
static const char *const k4_zero = "{\"name\":\"k4\",\"kind\":\"graph\",\"gpus\":4,"
                                   "\"compute\":{\"message\":{\"o\":0,\"g\":0}}," K4_LINKS;
static const char *const k4_plain = "{\"name\":\"k4\",\"kind\":\"graph\",\"gpus\":4," K4_LINKS;

/* sim (fast and naive engines), walk and, where given, the closed form against the hand time. */
static void check(const char *plat, const char *what, const char *algo, double hand, int closed) {
    for (int en = 0; en < 2; en++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_DATAFLOW;
        o.engine = en ? AR_SIM_NAIVE : AR_SIM_FAST;
        sim_run x;
        if (sim_run_case(&x, plat, algo, 1000000, &o) == 0) {
            T_CHECK(x.st == AR_OK && x.r.complete, "%s %s: %s", what, algo, x.e.msg);
            printf("%-14s %-18s %-5s sim %.9f  walk %.9f  closed %.9f  hand %.9f us\n", what, algo,
                   en ? "naive" : "fast", x.r.time_s * 1e6, x.walk * 1e6, x.closed * 1e6, hand * 1e6);
            T_CHECK(sim_rel(x.r.time_s, hand) <= 1e-9, "%s %s (%s): sim %.17g, hand %.17g", what, algo,
                    en ? "naive" : "fast", x.r.time_s, hand);
            T_CHECK(sim_rel(x.walk, hand) <= 1e-9, "%s %s: walk %.17g, hand %.17g", what, algo, x.walk, hand);
            if (closed)
                T_CHECK(sim_rel(x.closed, hand) <= 1e-9, "%s %s: closed %.17g, hand %.17g", what, algo, x.closed, hand);
        }
        sim_run_free(&x);
    }
}

/* --sync round on the fast engine, with its shortcuts and without (SimGrid mode), against the hand time. */
static void check_round(const char *plat, const char *what, const char *algo, double hand) {
    for (int full = 0; full < 2; full++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.full = full;
        o.check = 1;
        sim_run x;
        if (sim_run_case(&x, plat, algo, 1000000, &o) == 0) {
            T_CHECK(x.st == AR_OK && x.r.complete, "round %s %s: %s", what, algo, x.e.msg);
            printf("%-14s %-18s round %-9s sim %.9f  hand %.9f us\n", what, algo, full ? "simgrid" : "shortcuts",
                   x.r.time_s * 1e6, hand * 1e6);
            T_CHECK(sim_rel(x.r.time_s, hand) <= 1e-9, "round %s %s (%s): sim %.17g, hand %.17g", what, algo,
                    full ? "no shortcuts" : "shortcuts", x.r.time_s, hand);
        }
        sim_run_free(&x);
    }
}

/* --sync round with o and g: the shortcuts equal SimGrid mode (every transfer in SimGrid) to 1e-9, and
 * o and g are charged (the time without them is shorter); --check holds. */
static void check_modes(const char *plat, const char *algo, uint64_t bytes, double gamma) {
    if (!strcmp(plat, "k4_big_g")) plat = k4_big_g;
    double t[2] = {NAN, NAN};
    for (int full = 0; full < 2; full++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.full = full;
        o.check = 1;
        o.gamma_s_per_B = gamma;
        sim_run x;
        if (sim_run_case(&x, plat, algo, bytes, &o) == 0) {
            T_CHECK(x.st == AR_OK && x.r.complete, "%s %s: %s", plat, algo, x.e.msg);
            t[full] = x.r.time_s;
            if (!full && x.st == AR_OK) {
                ar_platform q = *x.p;
                q.msg_o_s = q.msg_g_s = 0;
                ar_sim_result r0;
                ar_err e = {{0}};
                o.check = 0;
                T_CHECK(ar_sim_run(&q, x.s, &o, &r0, &e) == AR_OK && r0.time_s < x.r.time_s - 1e-7,
                        "%s %s: o and g add to the time (%.17g without, %.17g with)", plat, algo, r0.time_s,
                        x.r.time_s);
                ar_sim_result_free(&r0);
            }
        }
        sim_run_free(&x);
    }
    printf("round %.24s %-16s %8llu B gamma %g: shortcuts %.9f  simgrid %.9f us\n", plat[0] == '{' ? "k4" : plat, algo,
           (unsigned long long)bytes, gamma, t[0] * 1e6, t[1] * 1e6);
    T_CHECK(sim_rel(t[0], t[1]) <= 1e-9, "%s %s gamma %g: shortcuts %.17g, SimGrid mode %.17g", plat, algo, gamma, t[0],
            t[1]);
}

int main(void) {
    const double T = 2e-6 + 250e3 / 10e9, o = 1e-6;
    check(k4_small_g, "o=1us g=0.5us", "ring", 6 * (T + 2 * o), 1);
    check(k4_big_g, "o=1us g=3us", "ring", 6 * (T + 2 * o), 1);
    check(k4_small_g, "o=1us g=0.5us", "halving-doubling", 4 * (2e-6 + 2 * o) + 2 * (50e-6 + 25e-6), 0);
    check(k4_big_g, "o=1us g=3us", "halving-doubling", 4 * (2e-6 + 2 * o) + 2 * (50e-6 + 25e-6), 0);
    check(k4_small_g, "o=1us g=0.5us", "ps", 64e-6, 0);
    check(k4_big_g, "o=1us g=3us", "ps", 76e-6, 0);
    /* o = g = 0: the alpha-beta times */
    check(k4_zero, "o=g=0", "ring", 6 * T, 1);
    check(k4_zero, "o=g=0", "halving-doubling", 4 * 2e-6 + 2 * (50e-6 + 25e-6), 0);
    check(k4_zero, "o=g=0", "ps", 2 * T, 0);
    static const char *const algos[] = {"ring", "halving-doubling", "ps", "binomial", "two-level"};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        ar_platform *a = sim_platform(k4_zero), *b = sim_platform(k4_plain);
        ar_schedule *s = NULL;
        ar_err e = {{0}};
        ar_model_result ma, mb;
        T_CHECK(a && b, "k4 platforms load");
        if (a && b && ar_algo_plan(algos[i], a, 250000, 4, &s, &e) == AR_OK) {
            T_CHECK(ar_model_walk(a, s, &ma, &e) == AR_OK && ar_model_walk(b, s, &mb, &e) == AR_OK, "walk %s: %s",
                    algos[i], e.msg);
            T_CHECK(sim_rel(ma.time_s, mb.time_s) <= 1e-15, "%s: o = g = 0 walk %.17g, plain %.17g", algos[i],
                    ma.time_s, mb.time_s);
        } else {
            T_CHECK(0, "plan %s on k4: %s", algos[i], e.msg);
        }
        ar_schedule_free(s);
        ar_platform_free(a);
        ar_platform_free(b);
    }
    /* --sync round: the fast engine's lockstep rounds (every side free at a round's start) */
    check_round(k4_small_g, "o=1us g=0.5us", "ring", 6 * (T + 2 * o));
    check_round(k4_big_g, "o=1us g=3us", "ring", 6 * (T + 2 * o));
    check_round(k4_small_g, "o=1us g=0.5us", "halving-doubling", 4 * (2e-6 + 2 * o) + 2 * (50e-6 + 25e-6));
    check_round(k4_big_g, "o=1us g=3us", "halving-doubling", 4 * (2e-6 + 2 * o) + 2 * (50e-6 + 25e-6));
    check_round(k4_small_g, "o=1us g=0.5us", "ps", 2 * 33e-6);
    check_round(k4_big_g, "o=1us g=3us", "ps", 2 * 41e-6);
    check_round(k4_zero, "o=g=0", "ps", 2 * T);
    /* the shortcuts (components with their sides, probes, memo, repeats) against SimGrid mode, with and without
     * a reduction cost, on a rail preset with its o and g (between machines only) and uneven blocks */
    static const char *const pre[] = {"ring", "ps", "halving-doubling", "nccl-ring", "two-level", "blueconnect"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        for (int gm = 0; gm < 2; gm++) {
            check_modes("dgx-h100:nodes=2", pre[i], 1000028, gm ? 1e-11 : 0);
            check_modes("rail:nodes=4,gpus=2,o=2us,g=3us", pre[i], 4096, gm ? 1e-11 : 0);
        }
    check_modes("k4_big_g", "ps", 1000000, 0);
    /* a switch schedule keeps o and g, its receives pipelined (lockstep rounds; a transfer to or from a switch
     * pays none; platform.h msg_piped, sim_switch_msg.c by hand): the walk's price, which charges them the
     * same way, where no two transfers contend (nvls). nvlstree's trees send
     * chunk k down beside chunk k + 1 up, two messages per rank and round on one pair of sides: there the
     * simulator overlaps one message's o with the other's transfer and the walk's rounds do not, so the
     * walk is at or above the simulation (dgx-h100:nodes=2, 4 MB: 27.04 against 26.38 us) */
    static const char *const sw[] = {"nvls", "nvlstree"};
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        ar_sim_opts d;
        memset(&d, 0, sizeof d);
        d.sync = AR_SYNC_DATAFLOW;
        sim_run x;
        if (sim_run_case(&x, "dgx-h100:nodes=2", sw[i], 1000000, &d) == 0) {
            T_CHECK(x.st == AR_OK && x.r.complete, "%s: %s", sw[i], x.e.msg);
            printf("dgx-h100:nodes=2 %-9s sim %.9f  walk %.9f us (sync %s)\n", sw[i], x.r.time_s * 1e6, x.walk * 1e6,
                   x.r.sync);
            if (i == 0)
                T_CHECK(sim_rel(x.r.time_s, x.walk) <= 1e-9, "%s: sim %.17g, walk %.17g", sw[i], x.r.time_s, x.walk);
            else
                T_CHECK(x.walk >= x.r.time_s * (1 - 1e-9) && x.walk <= 1.1 * x.r.time_s,
                        "%s: walk %.17g in [sim, 1.1 sim], sim %.17g", sw[i], x.walk, x.r.time_s);
            ar_platform q = *x.p; /* without o and g the time is shorter: they are charged */
            q.msg_o_s = q.msg_g_s = 0;
            ar_sim_result r0;
            ar_err e = {{0}};
            T_CHECK(ar_sim_run(&q, x.s, &d, &r0, &e) == AR_OK && r0.time_s < x.r.time_s - 1e-6,
                    "%s: o and g add to the time (%.17g without, %.17g with)", sw[i], r0.time_s, x.r.time_s);
            ar_sim_result_free(&r0);
        }
        sim_run_free(&x);
    }
    /* the naive engine runs them under --sync dataflow only: one line */
    {
        ar_sim_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.sync = AR_SYNC_ROUND;
        ro.engine = AR_SIM_NAIVE;
        sim_run x;
        if (sim_run_case(&x, k4_small_g, "ring", 1000000, &ro) == 0)
            T_CHECK(x.st == AR_EUNSUPPORTED && strstr(x.e.msg, "per-message"), "naive --sync round: %s", x.e.msg);
        sim_run_free(&x);
    }
    return t_done("sim_logp");
}
