/* Per-message costs (LogGP o, g) on a switch schedule, by hand: its receives are pipelined
 * (platform.h msg_piped): a message leaves after its sender's side has spent o on it, as everywhere,
 * and is usable once it has landed and its receiver's side has taken it, which then stays held for
 * G' = max(o, g) (one message per G'), its o overlapping what comes next. A round of one message
 * per side then costs o + alpha + bytes / B, not o + alpha + bytes / B + o. The walk and the fast
 * engine (lockstep rounds, with its shortcuts and with every transfer in SimGrid) equal the hand
 * time to 1e-9.
 *
 * Platform: rail:nodes=2,gpus=2,nvls=100GBps,nic=10GBps,o=2us,g=3us: two nodes of two GPUs, GPU j
 * of each node on rail switch j by a 10 GB/s link of 1 us (between nodes: alpha = 2 us, B = 10
 * GB/s), o = 2 us and g = 3 us on the messages between nodes only.
 * Schedule nvls:slices=1,chunks=1: phase 0 the reduce-scatter through each node's NVSwitch (no
 * message between nodes: no o), phase 1 per rail j an all-reduce ring of GPU j of both nodes over
 * its half of the buffer, phase 2 the all-gather by each NVSwitch (no o). The ring of two is two
 * rounds (reduce-scatter, all-gather), each GPU sending one message of a quarter of the buffer to
 * its peer: one message per side per round.
 *   N = 4 MB (1 000 000 floats): a message of 1 MB, T = 2 us + 1 MB / 10 GB/s = 102 us:
 *     phase 1 = 2 x (2 + 102) = 208 us (main, o at both ends: 2 x (2 + 102 + 2) = 212 us;
 *     o = g = 0: 204 us).
 *   N = 16 KB (4 000 floats): a message of 4 KB, T = 2 us + 0.4 us = 2.4 us:
 *     phase 1 = 2 x (2 + 2.4) = 8.8 us (main: 2 x (2 + 2.4 + 2) = 12.8 us; o = g = 0: 4.8 us).
 * Phases 0 and 2 do not depend on o and g: the whole time is that of o = g = 0 plus 2 o = 4 us.
 *
 * nvlstree across 4 nodes (dgx-h100:nodes=4, its o = 3.44 us and g): ranks send and receive several
 * messages a round (a parent's receive side takes its children's one per G'); there the walk equals
 * the fast engine to 1e-9 (no hand time). */
#include "sim_util.h"

static const char *const plat = "rail:nodes=2,gpus=2,nvls=100GBps,nic=10GBps,o=2us,g=3us";
static const char *const plat0 = "rail:nodes=2,gpus=2,nvls=100GBps,nic=10GBps,o=0,g=0";

/* walk and the fast engine's modes on algo (bytes) against hand (phase `ph`'s time; and the whole
 * time, when whole > 0) */
static void check(const char *algo, uint64_t bytes, int ph, double hand_ph, double whole) {
    static const struct {
        const char *name;
        ar_sync sync;
        int full;
    } modes[] = {{"fast round", AR_SYNC_ROUND, 0},
                 {"fast round simgrid", AR_SYNC_ROUND, 1},
                 {"fast dataflow (runs lockstep)", AR_SYNC_DATAFLOW, 0}};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = modes[k].sync;
        o.full = modes[k].full;
        o.check = 1;
        sim_run x;
        if (sim_run_case(&x, plat, algo, bytes, &o) != 0) continue;
        T_CHECK(x.st == AR_OK && x.r.complete, "%s (%s): %s", algo, modes[k].name, x.e.msg);
        if (x.st == AR_OK && k == 0) {
            ar_model_result m;
            ar_err e = {{0}};
            T_CHECK(ar_model_walk(x.p, x.s, &m, &e) == AR_OK && m.nstages > ph, "%s: walk: %s", algo, e.msg);
            printf("%-32s %8llu B walk phase %d %.9f  hand %.9f us\n", algo, (unsigned long long)bytes, ph,
                   m.stages[ph].time_s * 1e6, hand_ph * 1e6);
            T_CHECK(sim_rel(m.stages[ph].time_s, hand_ph) <= 1e-9, "%s: walk phase %d %.17g, hand %.17g", algo, ph,
                    m.stages[ph].time_s, hand_ph);
            if (whole > 0)
                T_CHECK(sim_rel(m.time_s, whole) <= 1e-9, "%s: walk %.17g, hand %.17g", algo, m.time_s, whole);
        }
        if (x.st == AR_OK && x.r.nphases > ph && ph > 0) {
            double t = x.r.phase_end_s[ph] - x.r.phase_end_s[ph - 1];
            printf("%-32s %8llu B %-30s phase %d %.9f us, all %.9f us\n", algo, (unsigned long long)bytes,
                   modes[k].name, ph, t * 1e6, x.r.time_s * 1e6);
            T_CHECK(sim_rel(t, hand_ph) <= 1e-9, "%s (%s): phase %d %.17g, hand %.17g", algo, modes[k].name, ph, t,
                    hand_ph);
            if (whole > 0)
                T_CHECK(sim_rel(x.r.time_s, whole) <= 1e-9, "%s (%s): %.17g, hand %.17g", algo, modes[k].name,
                        x.r.time_s, whole);
        }
        sim_run_free(&x);
    }
}

/* the time of algo on plat0 (o = g = 0), by the walk */
static double time0(const char *algo, uint64_t bytes) {
    sim_run x;
    double t = NAN;
    if (sim_run_case(&x, plat0, algo, bytes, NULL) == 0) {
        T_CHECK(x.st == AR_OK && sim_rel(x.r.time_s, x.walk) <= 1e-9, "%s on o = g = 0: sim %.17g, walk %.17g", algo,
                x.r.time_s, x.walk);
        t = x.walk;
    }
    sim_run_free(&x);
    return t;
}

int main(void) {
    const char *nvls = "nvls:slices=1,chunks=1";
    check(nvls, 4000000, 1, 208e-6, time0(nvls, 4000000) + 4e-6);
    check(nvls, 16000, 1, 8.8e-6, time0(nvls, 16000) + 4e-6);
    /* several messages per side and round: walk = fast engine */
    ar_sim_opts d;
    memset(&d, 0, sizeof d);
    d.sync = AR_SYNC_DATAFLOW;
    static const uint64_t sizes[] = {65536, 64000000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        sim_run x;
        if (sim_run_case(&x, "dgx-h100:nodes=4", "nvlstree", sizes[i], &d) != 0) continue;
        T_CHECK(x.st == AR_OK && x.r.complete, "nvlstree: %s", x.e.msg);
        printf("dgx-h100:nodes=4 nvlstree %llu B: sim %.9f  walk %.9f us\n", (unsigned long long)sizes[i],
               x.r.time_s * 1e6, x.walk * 1e6);
        T_CHECK(sim_rel(x.r.time_s, x.walk) <= 1e-9, "nvlstree %llu B: sim %.17g, walk %.17g",
                (unsigned long long)sizes[i], x.r.time_s, x.walk);
        sim_run_free(&x);
    }
    return t_done("sim_switch_msg");
}
