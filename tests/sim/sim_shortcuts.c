/* Every exact shortcut of the fast engine against the full simulation (every
 * transfer simulated by SimGrid, opts.full = 1): same time to 1e-10 relative
 * (SimGrid's own rounding at different clock values), same phase ends, same
 * transfers and bytes, same per-link bytes, busy times and transfers at once.
 * The cases cover the repeat shortcut (even sizes), components learned once
 * (uneven sizes, lone and shared links), independent op groups, batches that
 * are not closed (ops drifting apart: run in SimGrid), reductions with
 * gamma > 0 (GPU compute as a shared resource), cross-traffic (LV08: reverse
 * routes join components), and --check (data applied at the right moments).
 * The naive engine (actors per GPU and op, mailboxes per op member) must give
 * the same times, also where a GPU takes part in two ops of one phase
 * (FlexReduce on fr-5/7/10: before, the naive engine ran such ops one after
 * the other, SimGrid found a deadlock and the row still said complete). */
#include "sim/bridge.h"
#include "sim_util.h"

/* pairs of runs compared when the floors were set (all the cases below) */
#define FLOOR 20
#define FLOOR_NAIVE 8

typedef struct scase {
    const char *plat, *algo;
    uint64_t bytes;
    const char *network;
    double gamma;
    int check;
    int expect; /* 1: shortcuts must be used; 2: and some batches must run in SimGrid */
} scase;

static void compare(const char *what, const sim_run *a, const sim_run *b) {
    const ar_sim_result *f = &a->r, *g = &b->r;
    T_NEAR(f->time_s, g->time_s, 1e-10, what);
    T_CHECK(f->transfers == g->transfers, "%s: %llu vs %llu transfers", what, (unsigned long long)f->transfers,
            (unsigned long long)g->transfers);
    T_NEAR(f->bytes, g->bytes, 1e-14, what);
    T_CHECK(f->nphases == g->nphases, "%s: phases", what);
    for (int ph = 0; ph < f->nphases && ph < g->nphases; ph++)
        T_CHECK(fabs(f->phase_end_s[ph] - g->phase_end_s[ph]) <= 1e-10 * g->time_s, "%s: phase %d ends %.17g vs %.17g",
                what, ph, f->phase_end_s[ph], g->phase_end_s[ph]);
    int bad_bytes = 0, bad_busy = 0, bad_flows = 0;
    for (int d = 0; d < f->ndlinks && d < g->ndlinks; d++) {
        if (fabs(f->link_bytes[d] - g->link_bytes[d]) > 1e-12 * (g->link_bytes[d] + 1)) bad_bytes++;
        if (fabs(f->link_busy_s[d] - g->link_busy_s[d]) > 1e-10 * g->time_s) bad_busy++;
        if (f->link_max_flows[d] != g->link_max_flows[d]) bad_flows++;
    }
    T_CHECK(!bad_bytes && !bad_busy && !bad_flows, "%s: links differ: %d bytes, %d busy, %d flows", what, bad_bytes,
            bad_busy, bad_flows);
    T_CHECK(f->bottleneck == g->bottleneck, "%s: bottleneck %d vs %d", what, f->bottleneck, g->bottleneck);
}

int main(void) {
    const scase cases[] = {
        {"flat:ranks=64", "ring", 8u << 20, NULL, 0, 0, 1}, /* repeat */
        {"flat:ranks=64", "ring", 1000004, NULL, 0, 1, 1},  /* lone flows, uneven */
        {"blueconnect-12", "pipelined-ring:chunks=3", 1000012, NULL, 0, 1, 1},
        {"bc-ibm-2x4", "halving-doubling", 1000004, NULL, 0, 1, 1}, /* shared uplink components */
        {"blueconnect-192", "blueconnect", 1000012, NULL, 0, 0, 2}, /* groups + drift */
        {"blueconnect-192", "blueconnect:impl=ring", 12u << 20, NULL, 0, 0, 1},
        {"fat-tree-64", "ps", 1000064, NULL, 0, 0, 1}, /* one big component */
        {"torus-4x4", "blueconnect", 1000064, NULL, 0, 1, 1},
        {"fr-7", "two-level", 1000004, NULL, 0, 1, 1},   /* asymmetric groups */
        {"fr-10", "flexreduce", 2520000, NULL, 0, 1, 2}, /* not closed: SimGrid */
        {"fr-10", "flexreduce:chunks=4", 1000000, NULL, 0, 0, 2},
        {"fr-10", "treepack:chunks=2", 1000000, NULL, 0, 1, 0}, /* concurrent trees */
        {"p3.16xlarge", "treepack", 262144, NULL, 0, 0, 0},
        {"p2.16xlarge", "ring", 1000000, NULL, 0, 1, 1},        /* graph routes */
        {"blueconnect-12", "ring", 1000008, NULL, 2e-10, 1, 1}, /* gamma: GPU compute */
        {"fr-10", "flexreduce", 2520000, NULL, 1e-10, 0, 1},
        {"blueconnect-12", "blueconnect", 1000008, "LV08", 0, 0, 1}, /* cross-traffic */
        {"fr-7", "ring", 1000004, "SMPI", 0, 0, 1},
        {"fr-7", "ring", 1000004, "CM02,network/solver:maxmin", 0, 0, 1},
        {"bc-ibm-2x4", "ring", 1000004, "IB", 0, 0, 0}, /* IB: shortcuts off */
    };
    int ran = 0, ran_naive = 0, no_ib = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const scase *c = &cases[i];
        char what[256];
        snprintf(what, sizeof what, "%s on %s, %llu B%s%s%s", c->algo, c->plat, (unsigned long long)c->bytes,
                 c->network ? ", " : "", c->network ? c->network : "", c->gamma > 0 ? ", gamma" : "");
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.network = c->network;
        o.gamma_s_per_B = c->gamma;
        o.check = c->check;
        sim_run fast, full;
        if (c->network && !strcmp(c->network, "IB") && !ar_sg_has_ib()) { /* a SimGrid built without SMPI */
            if (sim_run_case(&fast, c->plat, c->algo, c->bytes, &o) == 0)
                T_CHECK(fast.st == AR_EUNSUPPORTED && strstr(fast.e.msg, "SMPI"),
                        "%s: SimGrid without SMPI: %s, want AR_EUNSUPPORTED naming SMPI", what, fast.e.msg);
            printf("%-58s refused: %s\n", what, fast.e.msg);
            sim_run_free(&fast);
            no_ib++;
            continue;
        }
        if (!sim_case_ran(&fast, c->plat, c->algo, c->bytes, &o)) continue;
        o.full = 1;
        if (sim_run_case(&full, c->plat, c->algo, c->bytes, &o) != 0) {
            sim_run_free(&fast);
            sim_run_free(&full);
            continue;
        }
        T_CHECK(fast.st == AR_OK && full.st == AR_OK, "%s: %s / %s", what, fast.e.msg, full.e.msg);
        if (fast.st == AR_OK && full.st == AR_OK) {
            ran++;
            const ar_sim_result *r = &fast.r;
            printf("%-58s %.12g s  %llu transfers, %llu by SimGrid (+%llu probe) vs %llu; batches %llu: %llu repeat, "
                   "%llu memo, %llu SimGrid\n",
                   what, r->time_s, (unsigned long long)r->transfers, (unsigned long long)r->transfers_simgrid,
                   (unsigned long long)r->probe_transfers, (unsigned long long)full.r.transfers_simgrid,
                   (unsigned long long)r->epochs, (unsigned long long)r->epochs_repeat,
                   (unsigned long long)r->epochs_memo, (unsigned long long)r->epochs_simgrid);
            compare(what, &fast, &full);
            T_CHECK(full.r.transfers_simgrid == full.r.transfers && full.r.probes == 0, "%s: full mode skipped work",
                    what);
            if (c->expect >= 1)
                T_CHECK(r->epochs_repeat + r->epochs_memo > 0 && r->transfers_simgrid < r->transfers,
                        "%s: no shortcut used", what);
            if (c->expect >= 2) T_CHECK(r->epochs_simgrid > 0, "%s: expected batches run by SimGrid", what);
        }
        sim_run_free(&fast);
        sim_run_free(&full);
    }

    sim_floor("sim_shortcuts, fast vs full", ran, 0, FLOOR - no_ib);

    /* the naive baseline agrees, also with a GPU in two ops of one phase (flexreduce on fr-5/7/10) */
    const scase naive[] = {
        {"flat:ranks=16", "ring", 1000004, NULL, 0, 0, 0},
        {"bc-ibm-2x4", "halving-doubling", 1000004, NULL, 0, 0, 0},
        {"blueconnect-12", "blueconnect", 1000008, NULL, 0, 0, 0},
        {"fr-7", "two-level", 1000004, NULL, 0, 0, 0},
        {"blueconnect-12", "ring", 1000008, "LV08", 0, 0, 0},
        {"fr-5", "flexreduce", 100000000, NULL, 0, 0, 0},
        {"fr-7", "flexreduce", 100000000, NULL, 0, 0, 0},
        {"fr-10", "flexreduce", 100000000, NULL, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof naive / sizeof naive[0]; i++) {
        const scase *c = &naive[i];
        char what[256];
        snprintf(what, sizeof what, "naive %s on %s%s%s", c->algo, c->plat, c->network ? ", " : "",
                 c->network ? c->network : "");
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.network = c->network;
        sim_run fast, nv;
        if (!sim_case_ran(&fast, c->plat, c->algo, c->bytes, &o)) continue;
        o.engine = AR_SIM_NAIVE;
        if (sim_run_case(&nv, c->plat, c->algo, c->bytes, &o) != 0) {
            sim_run_free(&fast);
            sim_run_free(&nv);
            continue;
        }
        T_CHECK(fast.st == AR_OK && nv.st == AR_OK, "%s: %s / %s", what, fast.e.msg, nv.e.msg);
        if (fast.st == AR_OK && nv.st == AR_OK) {
            ran_naive++;
            printf("%-58s %.12g s vs naive %.12g s\n", what, fast.r.time_s, nv.r.time_s);
            T_NEAR(nv.r.time_s, fast.r.time_s, 1e-10, what);
            T_CHECK(nv.r.transfers == fast.r.transfers, "%s: transfers", what);
            T_CHECK(nv.r.complete == 1, "%s: complete", what);
            T_CHECK(!strcmp(nv.r.engine, "naive") && nv.r.link_bytes == NULL, "%s: engine", what);
        }
        sim_run_free(&fast);
        sim_run_free(&nv);
    }
    sim_floor("sim_shortcuts, fast vs naive", ran_naive, 0, FLOOR_NAIVE);
    return t_done("sim_shortcuts");
}
