/* The MPI backend's ready messages priced by hand (platform.h msg_ready): the walk and both simulator
 * engines in every mode equal a hand-derived time to 1e-9.
 *
 * With eager messages the MPI executor (real/mpi/mexec.c) makes a transfer between machines wait for one
 * empty message from its receiver unless its sender sent to the same receiver in the round just before
 * (of its op, or in an op's last round of the phase before); a transfer within a machine never waits.
 * Every evaluator charges that wait after the transfer's network part, as an NCCL step: the route's
 * latency back (plus o at each end when the message pays the per-message costs; none here).
 *
 * Platform: two machines of two GPUs (machines:gpus=2+2: GPU - machine switch - root - machine switch -
 * GPU), 10 GB/s on every link, 2 us per link: a route within a machine 4 us (2 links), across 8 us
 * (4 links). Full duplex. N = 1 MB of f32.
 *
 * Ring (all-reduce, members 0 1 2 3, 2(P-1) = 6 rounds of one 250 KB block; hops 0->1, 2->3 within a
 * machine, 1->2, 3->0 across): round 0 is gated (the schedule's first round), rounds 1-5 follow their
 * pair (each rank sends to the same neighbour every round): not gated.
 *   round 0: across 8 + 25 + 8 (ready) = 41 us, within 4 + 25 = 29 us (no wait within a machine): 41 us;
 *   rounds 1-5: across 8 + 25 = 33 us each. Lockstep: 41 + 5 x 33 = 206 us. Dataflow: every rank
 *   has a transfer across in round 0 (as sender or receiver), so all end round 0 at 41 us and the
 *   rounds stay in step: 206 us. Without ready messages 6 x 33 = 198 us.
 * Halving-doubling (members 0 1 2 3; reduce-scatter partner i^1 then i^2, all-gather i^2 then i^1):
 *   round 0 (0<->1, 2<->3, 500 KB within: the first round, but within a machine: no wait): 4 + 50 = 54 us;
 *   round 1 (0<->2, 1<->3, 250 KB across; the two flows of a direction share the machine uplink at
 *   5 GB/s each): 8 + 50 + 8 (ready: the pair changed) = 66 us;
 *   round 2 (0<->2 again: follows its pair, not gated): 8 + 50 = 58 us;
 *   round 3 (0<->1 within, pair changed, but within a machine: no wait): 54 us.
 *   Lockstep and dataflow (every rank in every round, symmetric): 54 + 66 + 58 + 54 = 232 us (with rounds
 *   0 and 3 gated as well, 240 us). Without ready messages 54 + 58 + 58 + 54 = 224 us.
 * With o = 3 us between machines (LogGP, compute.message.o; under dataflow, which the walk prices) a
 * ready message across costs 8 + 2 x 3 = 14 us, and under dataflow the wait comes before what follows
 * the data (the receiver's o): halving-doubling without ready messages 54 + 2 x (3 + 58 + 3) + 54 =
 * 236 us; with them round 1 waits 14 us, rounds 0 and 3 (within a machine) nothing: 14 us more (250 us). The ring's round 0
 * has a transfer across at every rank (as sender or receiver), each waiting 14 us, and its other rounds
 * follow their pairs: 14 us more. The walk and the fast engine under dataflow agree to 1e-9. (The
 * naive engine refuses ready messages with per-message costs: its receive sides do not wait.) */
#include "sim_util.h"

static const char *const plat = "machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=2us";

static ar_schedule *plan(const char *algo, const ar_platform *p) {
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    if (ar_algo_plan(algo, p, 250000, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "plan %s: %s", algo, e.msg);
        return NULL;
    }
    return s;
}

static double walk_time(const ar_platform *p, const ar_schedule *s) {
    ar_err e = {{0}};
    ar_model_result m;
    T_CHECK(ar_model_walk(p, s, &m, &e) == AR_OK, "walk: %s", e.msg);
    return m.time_s;
}

static void check(const char *algo, double hand_off, double hand_on) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "platform %s loads", plat);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[1] != p->machine_of_rank[2],
            "two machines of two GPUs");
    ar_schedule *s = plan(algo, p);
    if (s) {
        char what[64];
        snprintf(what, sizeof what, "%s, no ready", algo);
        sim_modes_vs_hand(what, p, s, hand_off, hand_off, 1);
        p->msg_ready = 1;
        snprintf(what, sizeof what, "%s, ready", algo);
        sim_modes_vs_hand(what, p, s, hand_on, hand_on, 1);
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

/* o = 3 us between machines: the walk against the fast engine under dataflow, and the ready messages'
 * part by hand (ready_part). */
static void check_o(const char *algo, double ready_part) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "platform %s loads", plat);
    if (!p) return;
    ar_schedule *s = plan(algo, p);
    if (s) {
        p->msg_o_s = 3e-6;
        double off = walk_time(p, s);
        p->msg_ready = 1;
        double on = walk_time(p, s);
        printf("%-30s walk %.9f -> %.9f us (ready part %.9f, hand %.9f)\n", algo, off * 1e6, on * 1e6, (on - off) * 1e6,
               ready_part * 1e6);
        T_CHECK(fabs((on - off) - ready_part) <= 1e-9 * on, "%s with o: ready part %.17g, hand %.17g", algo, on - off,
                ready_part);
        for (size_t k = 0; k < SIM_NMODES; k++) { /* the dataflow fast engine, with and without SimGrid */
            const sim_mode *m = &sim_modes[k];
            if (m->sync != AR_SYNC_DATAFLOW || m->engine != AR_SIM_FAST) continue;
            ar_sim_result r;
            ar_err e = {{0}};
            ar_status st = sim_run_mode(p, s, m, 0, &r, &e);
            T_CHECK(st == AR_OK && r.complete, "%s with o (%s): %s", algo, m->name, e.msg);
            if (st == AR_OK) {
                printf("%-30s %-22s sim %.9f us\n", algo, m->name, r.time_s * 1e6);
                T_CHECK(sim_rel(r.time_s, on) <= 1e-9, "%s with o (%s): sim %.17g, walk %.17g", algo, m->name, r.time_s,
                        on);
            }
            ar_sim_result_free(&r);
        }
        ar_sim_opts o; /* the naive engine: one line, no run */
        memset(&o, 0, sizeof o);
        o.engine = AR_SIM_NAIVE;
        ar_sim_result r;
        memset(&r, 0, sizeof r);
        ar_err e = {{0}};
        T_CHECK(ar_sim_run(p, s, &o, &r, &e) == AR_EUNSUPPORTED && strstr(e.msg, "compute.message.ready"),
                "%s with o: the naive engine refuses ready messages with per-message costs (%s)", algo, e.msg);
        ar_sim_result_free(&r);
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

int main(void) {
    check("ring", 198e-6, 206e-6);
    check("halving-doubling", 224e-6, 232e-6);
    check_o("ring", 14e-6);
    check_o("halving-doubling", 14e-6);
    return t_done("sim_ready");
}
