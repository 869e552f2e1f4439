/* SimGrid backend: simulate a schedule on a platform.
 *
 * ar_sim_run() builds the platform in SimGrid (same links, capacities
 * bw*lanes per direction, latencies and routes as ar_platform_route), lowers
 * every op while it runs with ar_lower_round (the same transfers the cost walk,
 * the host executor and the NCCL backend use), and runs it:
 *   - under opts.sync = AR_SYNC_DATAFLOW (the default) every rank advances on
 *     its own (sim/fast_dataflow.c); under AR_SYNC_ROUND (lockstep) rounds of one op
 *     are sequential (round r+1 starts when every transfer of round r has
 *     completed), ops of one phase run concurrently, phase k+1 starts when
 *     phase k has finished everywhere;
 *   - a reduce transfer optionally costs gamma seconds per byte of compute on
 *     the receiving GPU after its data arrived (SimGrid execution, shared
 *     between reductions on the same GPU); off by default, as in the papers.
 *
 * Network model. The default ("CM02") is configured to compute what the
 * alpha-beta models assume: network/model:CM02 (no latency or bandwidth
 * correction factors), network/crosstraffic:0, network/TCP-gamma:0 (no TCP
 * window cap), full-duplex (SPLITDUPLEX) links, network/solver:fairbottleneck
 * (flows with different route latencies share a link equally; CM02's default
 * max-min weights flows by route latency) and surf/precision:1e-15 (SimGrid's
 * default of 1 ns would merge completions less than 1 ns apart, e.g. blocks one
 * element apart). "LV08", "SMPI" and "IB" select SimGrid's models with their
 * defaults; any of them may be followed by ",key:value" overrides from a fixed
 * list (see ar_sim_network_help). The settings used are in the result.
 *
 * Engines. AR_SIM_FAST (default) drives SimGrid without actors (host-to-host
 * communications started from completion callbacks) and skips work that is
 * provably redundant (exact shortcuts, see sim/fast.c):
 *   - independent op groups: ops of a phase whose transfers can never share a
 *     link (or a receiving GPU when gamma > 0) are simulated one group at a
 *     time, each from the phase start;
 *   - idle-start batches: when the network is idle, the next rounds of the
 *     group's ops form a batch; it is split into components (transfers joined
 *     by shared links); a component identical, up to renaming of links of
 *     equal capacity and latency, to one already simulated from an idle
 *     network takes exactly as long per transfer (SimGrid's models are
 *     invariant under renaming and time translation, and components share no
 *     resource). Unknown components are simulated once, alone ("probes").
 *     If every op of the batch then ends at the same instant (no round starts
 *     while others run), the clock is advanced instead of simulating the
 *     batch; otherwise the batch and everything after it until the network is
 *     idle again are simulated in SimGrid;
 *   - a batch identical to the previous one reuses its outcome without being
 *     split again.
 * opts.full = 1 turns every shortcut off (every transfer is simulated by
 * SimGrid); tests compare both. AR_SIM_NAIVE is the baseline: one SimGrid
 * actor per GPU, one mailbox message per transfer, a SimGrid barrier per op
 * round (time only; no --check, trace or link statistics).
 *
 * Processes. SimGrid can be initialised once per process, so by default each
 * ar_sim_run forks a child that runs the simulation and sends the result back
 * through a pipe; a crash or abort inside SimGrid becomes an AR_EINTERNAL
 * message. Every input is validated before SimGrid starts. opts.in_process = 1
 * runs in the calling process (allowed once per process).
 *
 * Ownership: the result's arrays are owned by the result; release them with
 * ar_sim_result_free(). Nothing else is allocated for the caller.
 */
#ifndef AR_SIM_H
#define AR_SIM_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/platform/platform.h"
#include "core/scenario.h"
#include "core/schedule.h"
#include "core/status.h"

typedef enum ar_sim_engine { AR_SIM_FAST = 0, AR_SIM_NAIVE = 1 } ar_sim_engine;

/* How ranks synchronise: the one definition of --sync (and a sweep's "sim.sync").
 * DATAFLOW, the zero value and every front end's default: every rank advances on its own data
 * (sim/fast_dataflow.c); the fast engine runs the lockstep simulation with a certificate that it is also
 * the dataflow run (sim/fast_dataflow_cert.c) and otherwise the dataflow engine (every transfer in SimGrid;
 * also with opts.full or in process). ROUND (lockstep): round r+1 of an op starts when every
 * transfer of its round r has completed, phase k+1 when phase k has finished everywhere; the closed
 * forms assume it. What actually runs is decided by ar_sim_decide. */
typedef enum ar_sync { AR_SYNC_DATAFLOW = 0, AR_SYNC_ROUND = 1 } ar_sync;

static inline const char *ar_sync_name(ar_sync s) { return s == AR_SYNC_ROUND ? "round" : "dataflow"; }

/* "round" or "dataflow" (header-only: front ends parse it whether or not SimGrid was built). */
static inline ar_status ar_sync_parse(const char *text, ar_sync *out, ar_err *e) {
    if (text && !strcmp(text, "dataflow")) *out = AR_SYNC_DATAFLOW;
    else if (text && !strcmp(text, "round")) *out = AR_SYNC_ROUND;
    else
        return ar_fail(e, AR_EINVAL,
                       "--sync: give dataflow (every rank on its own data, the default) or round (lockstep "
                       "rounds and phases, the closed forms' semantics), not \"%s\"",
                       text ? text : "");
    return AR_OK;
}

typedef struct ar_sim_opts {
    const char *network;      /* "CM02" (default when NULL), "LV08", "SMPI", "IB", [",key:value"...] */
    double gamma_s_per_B;     /* reduction cost per byte at the receiver; 0 = off */
    int check;                /* carry real data; AR_EFAIL if any rank's buffer is not the exact sum */
    uint64_t check_max_bytes; /* limit of the per-rank buffers (nranks*count*8), 0 = 1 GiB */
    const char *trace_path;   /* Chrome trace-event JSON of every transfer, NULL = none */
    double budget_s;          /* wall-clock limit; the run stops early (result.complete = 0); 0 = none */
    ar_sim_engine engine;
    ar_sync sync;   /* AR_SYNC_DATAFLOW (the zero value) or AR_SYNC_ROUND; see ar_sim_decide */
    int full;       /* 1: no shortcuts, SimGrid simulates every transfer */
    int in_process; /* 1: run in this process instead of a forked child */
    /* what-if scenario events (core/scenario.h), --sync dataflow only: rank r enters phase 0
     * rank_delay_s[r] seconds late (NULL = none; nranks entries); background flows share the
     * links with the schedule (not counted in the link statistics) */
    const double *rank_delay_s;
    const ar_bgflow *flows;
    int nflows;
    /* scenario jobs (lab/jobs.h): phase_end_s[k] is the raw end of phase k (not raised to the
     * previous phase's end), since each job has phases of its own; time_s the latest. Dataflow only. */
    int independent_phases;
    /* Work to overlap with the simulation (arlab sim: the cost walk): ar_sim_run calls
     * meanwhile(meanwhile_ctx) exactly once, in the calling process, while the forked child
     * simulates (after its setup: --budget counts from there), or before it returns where no
     * child runs. NULL: none. */
    void (*meanwhile)(void *ctx);
    void *meanwhile_ctx;
} ar_sim_opts;

typedef struct ar_sim_result {
    double time_s; /* simulated time of the whole schedule */
    int complete;  /* 1, or 0 when the budget stopped the run */
    int nphases;
    double *phase_end_s; /* end time of each phase (nphases entries, owned) */

    uint64_t transfers;         /* point-to-point transfers of the schedule (all engines) */
    uint64_t transfers_simgrid; /* of those, simulated by SimGrid in the run itself */
    uint64_t probe_transfers;   /* extra transfers simulated alone to learn a component */
    uint64_t epochs;            /* idle-start batches (fast engine) */
    uint64_t epochs_repeat;     /* ... reusing the previous batch's outcome */
    uint64_t epochs_jumped;     /* ... of those, jumped over without being lowered (identical rounds) */
    uint64_t epochs_memo;       /* ... advanced from known components */
    uint64_t epochs_simgrid;    /* ... simulated by SimGrid */
    uint64_t probes;            /* component simulations */
    int groups;                 /* independent op groups over all phases */
    double bytes;               /* payload bytes of all transfers */

    /* per directed link d = AR_DLINK(link, rev): payload bytes that crossed it,
     * the time at least one transfer crossing it was in flight, and the most
     * transfers that crossed it at once (owned; NULL for the naive engine).
     * With scenario background flows (opts.flows) these are totals: the schedule's
     * transfers and the flows' traffic until the collective ends, each flow counted
     * as one transfer in flight from its start; link_bg_bytes[d] is the flows' part of
     * link_bytes[d] (owned; NULL when the run had no background flows) */
    int ndlinks;
    double *link_bytes;
    double *link_busy_s;
    int *link_max_flows;
    double *link_bg_bytes;
    double bg_bytes; /* bytes the background flows carried until the collective ended */
    int bottleneck;  /* directed link with the most bytes per capacity, i.e. the longest
                                   time at full rate (ties: busy time, then flows), background
                                   traffic included; -1 if none */

    char network[512];    /* model and every setting used */
    char engine[16];      /* "fast" or "naive" */
    char sync[16];        /* "round" or "dataflow": the semantics that ran */
    int dataflow_differs; /* internal: the fast engine's lockstep run is not the dataflow run (sim.c reruns) */
    int dataflow_derived; /* the fast engine derived the dataflow run from its lockstep run (fast_dataflow_cert.c) */
    double wall_s;        /* wall-clock time of the simulation */
    double setup_s;       /* of which building the SimGrid platform */
    long peak_rss_kb;     /* peak resident memory of the simulating process */
} ar_sim_result;

/* Runs schedule s on platform p. On AR_OK the result is filled; on AR_EFAIL
 * (--check found a wrong value) the result is filled too and e names the rank
 * and element. Other errors leave the result empty. */
/* What a simulation runs, decided in this one place from the user's choice (o->sync, o->engine), the
 * scenario (o's delays, flows, jobs), the costs (o->gamma_s_per_B, the platform's reduction rate,
 * staging and slow GPUs) and the schedule (s, may be NULL before it is planned: its switch ops):
 *   - delays, flows and jobs need dataflow and the fast engine;
 *   - host staging and slow-computing GPUs need dataflow;
 *   - the naive engine measures time only (no check or trace), with a reduction cost or per-message costs
 *     (the platform's o, g) only under dataflow;
 *   - per-message costs run under either semantics on the fast engine (lockstep: its rounds' send and
 *     receive sides, fast_int.h eng_side); an NCCL protocol's schedule does not pay them (ar_sim_run);
 *   - switch ops run lockstep: under dataflow they run as ROUND (the row says so), refused with events;
 *   - under dataflow the fast engine runs per rank (fast_dataflow.c) when shortcuts are off, in process,
 *     with events or with compute costs, else lockstep with a certificate (fast_dataflow_cert.c).
 * Fails (one line) on a combination that cannot run. ar_sim_run calls it; front ends call it to refuse
 * before printing anything. */
typedef struct ar_sim_mode {
    ar_sync sync;         /* the semantics that runs */
    ar_sim_engine engine; /* the engine that runs */
    int per_rank;         /* fast engine under dataflow: the per-rank engine rather than the certified lockstep */
} ar_sim_mode;
ar_status ar_sim_decide(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_sim_mode *m, ar_err *e);

ar_status ar_sim_run(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *opts, ar_sim_result *out,
                     ar_err *e);

void ar_sim_result_free(ar_sim_result *r);

/* Checks a --network value without starting SimGrid; on success writes the
 * settings it stands for into buf (NULL allowed). */
ar_status ar_sim_network_parse(const char *spec, char *buf, size_t n, ar_err *e);

/* "SimGrid X.Y.Z, completion-scan fix on|off (why)" (whether this build takes
 * SimGrid 3.32's scan of every activity in flight off each completion); for --version. */
const char *ar_sim_simgrid_info(void);

/* One line per model and override key, for help texts. */
const char *ar_sim_network_help(void);

/* "name (a->b)" of directed link d into buf; returns buf. */
char *ar_sim_dlink_name(const ar_platform *p, int d, char *buf, size_t n);

/* Utilisation of directed link d: bytes / (capacity * time_s). */
double ar_sim_link_util(const ar_platform *p, const ar_sim_result *r, int d);

#endif
