/* Private to sim/: the thin C++ layer over SimGrid's s4u API (sim/bridge.cpp).
 *
 * Platform. Every GPU rank is a SimGrid host (host r has netpoint id r); every
 * arlab link is a SimGrid split-duplex link of capacity bw*lanes per
 * direction and latency lat_s (direction a->b is its UP link). There is one
 * netzone, a subclass of SimGrid's NetZoneImpl whose get_local_route() asks
 * ar_platform_route() for the route when a communication starts: the same
 * links in the same order as every other arlab consumer, no routing table
 * (memory O(ranks + links), so 16384 ranks cost a few MB), and switches need
 * not exist in SimGrid (a route is a list of links).
 *
 * Transfers. ar_sg_comm() starts a host-to-host communication (no actor, no
 * mailbox); ar_sg_exec() an execution on a host. When one finishes, hooks.done
 * runs with its token; once every activity finishing at that instant has been
 * reported, hooks.step runs (a zero-delay SimGrid timer), still at the same
 * simulated time, so new activities started there start at that instant.
 * Both run inside SimGrid's maestro and may start new activities.
 *
 * SimGrid allows one engine per process and connects completion callbacks to a
 * process-wide signal: ar_sg_open() may be called once per process; the
 * callback reaches the session through the pointer it captured (no global).
 *
 * Ownership: ar_sg_open allocates the session; ar_sg_close frees arlab's part
 * (SimGrid keeps its engine until the process exits). The platform must
 * outlive the session.
 */
#ifndef AR_SIM_BRIDGE_H
#define AR_SIM_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include <simgrid/forward.h> /* sg_comm_t */

#ifdef __cplusplus
extern "C" { /* arlab's core headers are C */
#endif

#include "core/platform/platform.h"
#include "core/status.h"

typedef struct ar_sg ar_sg;

typedef struct ar_sg_hooks {
    void *ctx;
    void (*done)(void *ctx, uint64_t token);
    void (*step)(void *ctx);
} ar_sg_hooks;

/* Host speed in flop/s; an execution of t seconds is t * AR_SG_HOST_SPEED flops. */
#define AR_SG_HOST_SPEED 1e9

/* ar_sg_open's flags. AR_SG_ARLAB_LATENCY: SimGrid's links carry no latency; ar_sg_comm and
 * ar_sg_flow pay a transfer's route latency (the sum over its links, as SimGrid sums it) with a
 * timer and then start its flow. CM02 gives a flow no bandwidth until its latency is paid, so the
 * flow runs over the same interval; what changes is the sharing weight: CM02 weights a flow by its
 * route latency, a flow without latency weighs 1. With every weight 1 SimGrid's maxmin solver
 * shares a saturated link equally (what the models assume, and what the fairbottleneck solver
 * computes with latencies in SimGrid), and it re-solves only the links an event touches where
 * fairbottleneck re-solves every live flow at every event (sim/README.md: Network model). */
enum { AR_SG_ARLAB_LATENCY = 1 };

/* Starts SimGrid with the given "key:value" settings (already validated),
 * builds p. hooks may be NULL (actor-based engines, which must not set AR_SG_ARLAB_LATENCY:
 * their mailbox comms take their latency from SimGrid's links). */
ar_status ar_sg_open(const ar_platform *p, const char *const *settings, int nsettings, unsigned flags,
                     const ar_sg_hooks *hooks, ar_sg **out, ar_err *e);
/* src, dst: transfer endpoints (a rank, or a reducing switch as AR_EP_NODE(v));
 * reduce: a transfer into a switch that adds (it crosses the switch's virtual link). */
void ar_sg_comm(ar_sg *s, int src, int dst, int reduce, uint64_t bytes, uint64_t token);
/* ar_sg_comm without the route latency (AR_SG_ARLAB_LATENCY only: 1; else it is ar_sg_comm, 0): the
 * flow joins the sharing at once, done when its bytes are through; the caller pays the latency
 * after it (a one-sided send: the sender is free once its bytes are out, the flight is the
 * receiver's). */
int ar_sg_comm_eager(ar_sg *s, int src, int dst, int reduce, uint64_t bytes, uint64_t token);
/* A bound on the rate of every flow ar_sg_comm and ar_sg_comm_eager start from now on, bytes per
 * second (0: none): the flow's own bound beside max-min sharing (an NCCL protocol's per-channel cap,
 * ar_phase_proto_effect). SimGrid 3.32 takes no rate on a host-to-host comm: with its internal
 * headers (and no network/weight-S) the bridge bounds the comm's own max-min variable once it
 * started, any number of distinct rates; else the flow's route ends with a FATPIPE link of that
 * bandwidth from a pool made at open, which couples every flow of one rate in SimGrid's solver,
 * and -1 (no bound set) when the pool has no link left for one more distinct rate
 * (ar_sg_rate_info says which path runs). */
int ar_sg_set_rate(ar_sg *s, double rate_Bps);
/* The pool link ar_sg_put_async_rate's comms of bound rate_Bps cross where the bound cannot be the
 * flow's own (see ar_sg_set_rate), reserved now: 0, or -1 when the pool has no link left for one
 * more distinct rate (their bound would be lost). There, on SimGrid 3.32 with network/TCP-gamma 0,
 * it sets TCP-gamma to the largest double, so that CM02 keeps Comm::set_rate's bound. Called
 * before the run. */
int ar_sg_mbox_rate(ar_sg *s, double rate_Bps);
/* sg_mailbox_put_async with the comm's rate bounded to rate_Bps (0: none), from the calling actor.
 * Where the bridge bounds flows on their own max-min variable, the comm's variable, once the put or
 * the matching receive (ar_sg_get_async_rate) made its action. Else the bound of every comm its host
 * sends from now on (the route's pool link when the comm starts: an actor engine's sends from one
 * host carry one bound at a time, a phase's), and Comm::set_rate, which SimGrid keeps (4.x; 3.32
 * with the TCP-gamma ar_sg_mbox_rate sets): a FATPIPE pool link alone under the fairbottleneck
 * solver lets a flow past its bound when flows of other bottlenecks share the link.
 * Every rate must have been reserved with ar_sg_mbox_rate. */
sg_comm_t ar_sg_put_async_rate(ar_sg *s, sg_mailbox_t m, void *payload, long bytes, double rate_Bps);
/* sg_mailbox_get_async for a comm of bound rate_Bps (0: none): when the receive matches a send, the
 * comm's action is made now, and bounded (on its own variable, where the bridge does that). */
sg_comm_t ar_sg_get_async_rate(ar_sg *s, sg_mailbox_t m, void **data, double rate_Bps);
/* How ar_sg_set_rate bounds a flow in this build and library: "per flow (...)" or "pool link (why)". */
const char *ar_sg_rate_info(void);
void ar_sg_exec(ar_sg *s, int rank, double seconds, uint64_t token);
/* A pure delay: hooks.done(token) `seconds` from now (no resource; a protocol's per-step latency). */
void ar_sg_timer(ar_sg *s, double seconds, uint64_t token);
/* "on" when SimGrid 3.32's completion scan is taken off the path (bridge.cpp, sg_unlist:
 * compiled in with SimGrid's internal headers, sim/simgrid_internal.cmake, and the library loaded is
 * 3.32.0), else "off (why)". */
const char *ar_sg_fix_info(void);

/* Whether the SimGrid library loaded has the IB network model: it comes with SMPI, which a
 * SimGrid can be built without (scripts/simgrid4.sh builds 4.1 so); SMPI's entry point,
 * smpi_main, tells. */
int ar_sg_has_ib(void);
/* The same for a mailbox comm an actor just started (sg_mailbox_put_async / get_async, called from
 * that actor): SimGrid 3.32 puts it on the actor's own activities_ and list::remove()s it when a
 * wait on it completes; the naive engine keeps the comm itself until sg_comm_wait_all/any. No-op
 * without the fix. */
void ar_sg_unlist_comm(sg_comm_t c);
/* How many activities this process took off SimGrid's lists so far (tests/sim/sim_scan_fix.c). */
size_t ar_sg_unlisted(void);
/* Scenario background flows: ar_sg_open_flows also builds, for flow i, a SimGrid host (netpoint
 * nranks+i) and a private FATPIPE link of capacity flows[i].rate_Bps (1e30 when 0) that starts
 * the route from that host, followed by the route from flows[i].src. A flow started with
 * ar_sg_flow(i) is therefore capped at its rate by max-min sharing itself (SimGrid 3.32's
 * Comm::set_rate refuses host-to-host comms, and cancelling one crashes: a flow ends when its
 * bytes are through). */
#include "core/scenario.h"
ar_status ar_sg_open_flows(const ar_platform *p, const char *const *settings, int nsettings, unsigned flags,
                           const ar_sg_hooks *hooks, const ar_bgflow *flows, int nflows, ar_sg **out, ar_err *e);
void ar_sg_flow(ar_sg *s, int i, uint64_t bytes, uint64_t token);
/* Bytes flow i has carried so far: 0 before ar_sg_flow or while it pays its route latency, all of
 * them once it completed (the link statistics count a flow still running at the collective's end
 * with this). */
double ar_sg_flow_sent(const ar_sg *s, int i);
void ar_sg_run(ar_sg *s);
double ar_sg_now(void);
/* SimGrid host of rank r, as the C API's sg_host_t. */
void *ar_sg_host(const ar_sg *s, int rank);
void ar_sg_close(ar_sg *s);

#ifdef __cplusplus
}
#endif

#endif
