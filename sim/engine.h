/* Private to sim/: the simulation engines, run inside the simulating process.
 *
 * ar_engine_fast (fast.c) and ar_engine_naive (naive.c) fill an
 * ar_sim_result whose arrays they allocate (freed with ar_sim_result_free).
 * settings are the validated "key:value" SimGrid settings; flags is the
 * sim_net_flags of the network spec (sim.c).
 */
#ifndef AR_SIM_ENGINE_H
#define AR_SIM_ENGINE_H

#include "bridge.h"
#include "sim.h"

enum {
    SIM_NET_CROSSTRAFFIC = 1,  /* flows also load their reverse route (5 %) */
    SIM_NET_NOT_LOCAL = 2,     /* flows interact beyond shared links (IB): no shortcuts */
    SIM_NET_ARLAB_LATENCY = 4, /* CM02 with every flow weighing 1: the bridge pays latencies (AR_SG_ARLAB_LATENCY) */
    SIM_NET_NAIVE_OF_ARLAB = 8 /* the naive engine's fairbottleneck stand-in for SIM_NET_ARLAB_LATENCY (naive.c: a
                                  one-sided schedule may then carry its flows without latency, as the fast engines) */
};

typedef struct sim_job {
    const ar_platform *p;
    const ar_schedule *s;
    const ar_sim_opts *o;
    const char *const *settings;
    int nsettings;
    unsigned net_flags;
    int *ready_fd; /* forked runs: the pipe to the parent, to which sim_job_ready writes one byte when the
                      simulation proper starts (after the platform setup: --budget counts from there); NULL in
                      process */
} sim_job;

/* The bridge's flags for a job's network (AR_SG_ARLAB_LATENCY). */
static inline unsigned sg_flags(const sim_job *j) {
    return (j->net_flags & SIM_NET_ARLAB_LATENCY) ? (unsigned)AR_SG_ARLAB_LATENCY : 0u;
}

/* Tells the parent that the setup is over (once; see ready_fd). */
void sim_job_ready(const sim_job *j);

ar_status ar_engine_fast(const sim_job *j, ar_sim_result *r, ar_err *e);
ar_status ar_engine_naive(const sim_job *j, ar_sim_result *r, ar_err *e);
ar_status ar_engine_dataflow(const sim_job *j, ar_sim_result *r, ar_err *e); /* fast engine, --sync dataflow */

/* Sets r->bottleneck: the directed link with the most bytes per capacity (fast.c). */
void sim_pick_bottleneck(const ar_platform *p, ar_sim_result *r);

/* Peak resident memory of this process in KiB (getrusage), -1 if unknown (fast.c). */
long sim_peak_rss_kb(void);

#endif
