/* The dataflow certificate's early stop (sim/fast_dataflow_cert.c, "Stopping early"): the fast
 * engine's lockstep run under --sync dataflow stops as soon as it is sure to fail, instead of
 * simulating the rest of the phase (SimGrid mode) or probing the batch whose starts fail it
 * (shortcuts). ps on a tree: every rank finishes its first phase at its own instant, so the
 * second phase's transfers start later in lockstep than under dataflow. Each run is the engine
 * itself (sim/engine.h, as sim.c runs it, without sim.c's rerun), in a child process: SimGrid
 * runs once per process. */
#include <sys/wait.h>
#include <unistd.h>

#include "sim/engine.h"
#include "sim_util.h"

typedef struct {
    int ok, differs, complete;
    unsigned long long probes, transfers, simgrid;
} outcome;

static outcome lockstep_run(const char *plat, int full) { /* full: --no-shortcuts */
    outcome out = {0};
    int fd[2];
    if (pipe(fd) != 0) return out;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        outcome o = {0};
        ar_platform *p = sim_platform(plat);
        ar_schedule *s = NULL;
        ar_err e = {{0}};
        if (p && ar_algo_plan("ps", p, 100000000 / 4, 4, &s, &e) == AR_OK) {
            ar_sim_opts opt;
            memset(&opt, 0, sizeof opt);
            opt.sync = AR_SYNC_DATAFLOW;
            opt.full = full;
            const char *set[] = {"network/model:CM02",    "network/crosstraffic:0", "network/TCP-gamma:0",
                                 "network/solver:maxmin", "maxmin/precision:1e-12", "surf/precision:1e-15"};
            sim_job j =
                {.p = p, .s = s, .o = &opt, .settings = set, .nsettings = 6, .net_flags = SIM_NET_ARLAB_LATENCY};
            ar_sim_result r;
            memset(&r, 0, sizeof r);
            if (ar_engine_fast(&j, &r, &e) == AR_OK) {
                o = (outcome){1, r.dataflow_differs, r.complete, r.probes, r.transfers, r.transfers_simgrid};
            } else fprintf(stderr, "%s: %s\n", plat, e.msg);
            ar_sim_result_free(&r);
        } else fprintf(stderr, "%s: no plan: %s\n", plat, e.msg);
        ssize_t w = write(fd[1], &o, sizeof o);
        _exit(w == (ssize_t)sizeof o ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0 && read(fd[0], &out, sizeof out) != (ssize_t)sizeof out) out.ok = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return out;
}

int main(void) {
    /* BlueConnect's 12 learners (3 GPUs per node, 2 nodes per rack switch, 2 racks) */
    const char *plat = "tree:fanouts=3x2x2,bw=32GBps/100Gbps/200Gbps";
    outcome o = lockstep_run(plat, 0);
    printf("ps on %s: differs %d, complete %d, %llu probes, %llu transfers ended (%llu in SimGrid)\n", plat, o.differs,
           o.complete, o.probes, o.transfers, o.simgrid);
    T_CHECK(o.ok, "ps on %s: the lockstep run did not run", plat);
    T_CHECK(o.differs && !o.complete, "ps on %s: the lockstep run is not stopped as not the dataflow run", plat);
    /* the first phase's batch (12 x 11 transfers) is probed and applied; the second's starts fail */
    T_CHECK(o.probes == 1, "%llu probes, want 1 (the second phase's batch needs none)", o.probes);
    T_CHECK(o.transfers == 132 && o.simgrid == 0, "%llu transfers (%llu in SimGrid), want the first phase's 132 (0)",
            o.transfers, o.simgrid);
    return t_done("sim_certstop");
}
