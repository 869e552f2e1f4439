/* SimGrid 3.32's completion scan taken off the path (sim/bridge.cpp, sg_unlist).
 *
 * Where configure found SimGrid 3.32's internal headers (sim/simgrid_internal.cmake: AR_SG_FIX,
 * passed here as AR_EXPECT_SG_FIX), the fix must be compiled in and active: ar_sg_fix_info() says
 * "on" (what `arlab --version` prints) and every comm and execution the bridge starts, and every
 * mailbox comm the naive engine's actors start, is taken off SimGrid's list (ar_sg_unlisted counts
 * them). Elsewhere it says "off" and takes nothing off. Either way the results are the known ones:
 *  - ps on tree:ranks=64, 100 MB, --no-shortcuts (4032 comms in flight at once) with the fast
 *    engine, the naive engine, and --gamma 1e-11 --sync round (every reduction an Exec): the times
 *    SimGrid 3.32 gave before the fix (arlab 3c36ef0);
 *  - in this process, on the bridge itself: an all-to-all of 64 ranks behind one switch (4032 comms
 *    at once, each link shared by 63 flows) and 64 executions: every token reported once, at
 *    63 * bytes / capacity + the route's latency, and t for the executions.
 * No timing is asserted. */
#include "sim/bridge.h"
#include "sim_util.h"

#ifndef AR_EXPECT_SG_FIX
#error "tests/CMakeLists.txt passes AR_EXPECT_SG_FIX (0 or 1)"
#endif

static double ps64(ar_sim_engine engine, double gamma, ar_sync sync) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.engine = engine;
    o.sync = sync;
    o.gamma_s_per_B = gamma;
    o.full = 1;
    sim_run x;
    double t = NAN;
    if (sim_run_case(&x, "tree:ranks=64", "ps", 100000000, &o) == 0) {
        T_CHECK(x.st == AR_OK && x.r.complete, "ps on tree:ranks=64: %s", x.e.msg);
        if (x.st == AR_OK) {
            T_CHECK(x.r.transfers == 8064 && x.r.transfers_simgrid == 8064,
                    "ps: %llu transfers, %llu in SimGrid, want 8064", (unsigned long long)x.r.transfers,
                    (unsigned long long)x.r.transfers_simgrid);
            t = x.r.time_s;
        }
    }
    sim_run_free(&x);
    return t;
}

typedef struct {
    int nxfer, nexec;
    unsigned char *seen;
    int dup;
    double last_xfer, last_exec;
} counts;

static void on_done(void *ctx, uint64_t token) {
    counts *c = ctx;
    if (c->seen[token]++) c->dup++;
    if ((int)token < c->nxfer) c->last_xfer = ar_sg_now();
    else c->last_exec = ar_sg_now();
}
static void on_step(void *ctx) { (void)ctx; }

int main(void) {
    const char *info = ar_sg_fix_info();
    printf("completion-scan fix: %s (expected %s)\n", info, AR_EXPECT_SG_FIX ? "on" : "off");
    if (AR_EXPECT_SG_FIX)
        T_CHECK(!strcmp(info, "on"), "configure found SimGrid 3.32's internal headers, the fix says \"%s\"", info);
    else T_CHECK(!strncmp(info, "off", 3), "configure did not enable the fix, it says \"%s\"", info);

    /* the times before the fix (arlab 3c36ef0, SimGrid 3.32) */
    double f = ps64(AR_SIM_FAST, 0, AR_SYNC_DATAFLOW);
    double n = ps64(AR_SIM_NAIVE, 0, AR_SYNC_DATAFLOW);
    double g = ps64(AR_SIM_FAST, 1e-11, AR_SYNC_ROUND);
    printf("ps tree:ranks=64 --no-shortcuts: fast %.17g, naive %.17g, --gamma 1e-11 --sync round %.17g\n", f, n, g);
    T_CHECK(sim_rel(f, 0.112008) <= 1e-12, "fast: %.17g s, want 0.112008", f);
    T_CHECK(sim_rel(n, 0.11200799999999922) <= 1e-12, "naive: %.17g s, want 0.11200799999999922", n);
    T_CHECK(sim_rel(g, 0.112883) <= 1e-12, "gamma (Exec path): %.17g s, want 0.112883", g);

    /* the bridge in this process (ar_sim_run above forked: no SimGrid engine here yet) */
    ar_platform *p = sim_platform("flat:ranks=64");
    T_CHECK(p != NULL, "flat:ranks=64");
    if (!p) return t_done("sim_scan_fix");
    int R = p->nranks;
    counts c = {R * (R - 1), R, NULL, 0, 0, 0};
    c.seen = calloc((size_t)(c.nxfer + c.nexec), 1);
    const char *settings[] = {"network/model:CM02",    "network/crosstraffic:0", "network/TCP-gamma:0",
                              "network/solver:maxmin", "maxmin/precision:1e-12", "surf/precision:1e-15"};
    ar_sg_hooks h = {&c, on_done, on_step};
    ar_sg *s = NULL;
    ar_err e = {{0}};
    ar_status st = ar_sg_open(p, settings, 6, 0, &h, &s, &e);
    T_CHECK(st == AR_OK, "ar_sg_open: %s", e.msg);
    if (st != AR_OK) return t_done("sim_scan_fix");
    const uint64_t bytes = 1000000;
    const double exec_s = 1e-3;
    size_t before = ar_sg_unlisted();
    uint64_t tok = 0;
    for (int a = 0; a < R; a++)
        for (int b = 0; b < R; b++)
            if (a != b) ar_sg_comm(s, a, b, 0, bytes, tok++);
    for (int a = 0; a < R; a++) ar_sg_exec(s, a, exec_s, tok++);
    size_t unlisted = ar_sg_unlisted() - before;
    ar_sg_run(s);
    int missing = 0;
    for (int i = 0; i < c.nxfer + c.nexec; i++) missing += !c.seen[i];
    T_CHECK(missing == 0 && c.dup == 0, "%d of %d tokens never reported, %d reported twice", missing, c.nxfer + c.nexec,
            c.dup);
    /* every rank's uplink and downlink carry 63 flows: all end together */
    const ar_link *lk = &p->links[0];
    double want = (R - 1) * (double)bytes / ar_link_capacity(lk) + 2 * lk->lat_s;
    printf("all-to-all of %d comms: %.17g s (want %.17g), %d executions: %.17g s (want %g); %zu taken off "
           "SimGrid's list\n",
           c.nxfer, c.last_xfer, want, c.nexec, c.last_exec, exec_s, unlisted);
    T_CHECK(sim_rel(c.last_xfer, want) <= 1e-9, "all-to-all: %.17g s, want %.17g", c.last_xfer, want);
    T_CHECK(sim_rel(c.last_exec, exec_s) <= 1e-9, "executions: %.17g s, want %g", c.last_exec, exec_s);
    if (AR_EXPECT_SG_FIX)
        T_CHECK(unlisted == (size_t)(c.nxfer + c.nexec), "the fix took %zu of %d activities off the maestro's list",
                unlisted, c.nxfer + c.nexec);
    else T_CHECK(unlisted == 0, "without the fix %zu activities were taken off a list", unlisted);
    ar_sg_close(s);
    ar_platform_free(p);
    free(c.seen);
    return t_done("sim_scan_fix");
}
