/* Cost models: the papers' building-block equations and a generic cost walk.
 *
 * Units: n in bytes, w in bytes/s, a (alpha) in seconds, results in seconds.
 * lg(p) for p not a power of two: ceil(log2 p) (the number of binomial-tree
 * steps), stated in every output that uses it.
 *
 * The closed form of each algorithm lives beside its planner in algos/ (the
 * descriptor's `closed`, reached through ar_algo_closed, core/algo.h); it is
 * built from the equations below. The generic walk (ar_model_walk) prices any
 * schedule on any platform from its lowering:
 * per round, each transfer costs route latency + the time the most loaded
 * directed link of its route needs to carry all the bytes of that round
 * (concurrent ops of a phase advance in lockstep; with equal transfers this is
 * the equal share of the papers); a round costs its slowest transfer; rounds
 * add up.
 */
#ifndef AR_MODEL_H
#define AR_MODEL_H

#include <stdint.h>
#include "core/platform/platform.h"
#include "../core/schedule.h"
#include "nccl_model.h"

/* BlueConnect Eqs. 1-7 (EQUATIONS.md). */
double ar_eq1_tr(int p, double n, double a, double w); /* ring RS or AG */
/* Ring all-reduce, c sub-chunks per step, T = a + N/(P c W) per sub-chunk transfer,
 * g = gamma N/(P c) its reduction (FIFO on the receiver's GPU), L launch per op, with
 * dataflow overlap (derivation in eqs.c); c = 1 is the plain ring. */
double ar_eq_ring_pipe(int P, long long c, double T, double g, double L);
/* The same with host staging copies: d device-to-host at the sender per sub-chunk, h
 * host-to-device at the receiver (FIFO per GPU); d = h = 0 gives ar_eq_ring_pipe. */
double ar_eq_ring_pipe_staged(int P, long long c, double T, double d, double h, double g, double L);
double ar_eq2_tc(int p, double n, double a, double w);           /* recursive halving/doubling */
double ar_eq3_trc(int p, double n, double a, double w);          /* Tc if p = 2^q else Tr */
double ar_eq4_treduce(int p, double n, double a, double w);      /* = Tbcast = Tc + Tr */
double ar_eq6_one_level(int P, double N, double a, double minW); /* 2 Tr(P, N, a, minW) */
double ar_eq7_two_level(int p0, int P, double N, double a, double w0, double minW);
double ar_lg_steps(int p); /* ceil(log2 p) */

#define AR_MODEL_MAX_STAGES 64

typedef struct ar_model_stage {
    char label[96]; /* e.g. "stage 0 reduce-scatter" */
    char impl[16];  /* "ring", "hd", "binomial", ... */
    int p;          /* group size */
    double bytes;   /* data size the stage works on (n in Eq. 1/2) */
    double bw_Bps;  /* effective bandwidth per flow */
    double lat_s;   /* alpha used */
    double time_s;
} ar_model_stage;

typedef struct ar_model_result {
    double time_s;
    int nstages;
    ar_model_stage stages[AR_MODEL_MAX_STAGES];
    char note[256]; /* assumptions, e.g. "lg(3) taken as 2 (ceil)" */
    int costs;      /* a closed form that prices the platform's compute costs (reduce, launch) */
} ar_model_result;

/* Appends a stage (clamped at AR_MODEL_MAX_STAGES) and adds its time. */
void ar_model_add_stage(ar_model_result *r, const char *label, const char *impl, int p, double bytes, double bw_Bps,
                        double lat_s, double time_s);

/* Generic walk over schedule s on platform p. Per-phase times go to
 * out->stages (one per phase, label = the phase label). Schedules that lower
 * to more than AR_WALK_MAX_TRANSFERS transfers are refused (AR_ELIMIT) with a
 * message: the walk costs about 60 ns per transfer. */
#define AR_WALK_MAX_TRANSFERS 2000000000.0
/* Per-message costs (platform.h msg_o_s, msg_g_s) alone: the walk follows the per-rank dataflow (equal
 * to the simulation) up to this many transfers in all, and beyond prices them inside lockstep rounds. */
#define AR_WALK_DATAFLOW_MAX 4194304.0
ar_status ar_model_walk(const ar_platform *p, const ar_schedule *s, ar_model_result *out, ar_err *e);

/* The platform the walk and the simulator price schedule s on, for its per-message costs (o, g): p
 * itself, or *copy (a shallow copy of p, read only) when s changes them: NCCL's protocols' step
 * latency holds the per-message costs (core/schedule.h ar_schedule_uses_proto), so none are charged;
 * switch schedules run lockstep with pipelined receives (platform.h msg_piped). */
const ar_platform *ar_platform_msg_for(const ar_platform *p, const ar_schedule *s, ar_platform *copy);

/* ar_model_walk where rank r enters phase 0 start_s[r] seconds late (a what-if straggler;
 * NULL: every rank at 0). With any delay the walk is the per-rank dataflow walk (as with compute
 * costs): a late rank holds back only the transfers that need it, so the whole collective is
 * delayed by at most the largest delay, and by less where its neighbours have slack. */
ar_status ar_model_walk_from(const ar_platform *p, const ar_schedule *s, const double *start_s, ar_model_result *out,
                             ar_err *e);

/* The largest of start_s[0 .. n) (0 when start_s is NULL): what a closed form, which cannot
 * see which ranks are late, adds to its time. */
double ar_latest_start(const double *start_s, int n);

/* Tests only: with on, ar_model_walk prices the phases that mix ops of different rounds with the
 * reference event pass (every share recomputed over every transfer at every event), the slow
 * algorithm the walk's event pass must match. Not thread safe; off by default. */
void ar_model_walk_events_reference(int on);

/* What NCCL's protocols cost a schedule s on platform p as a whole, found once per schedule by
 * ar_proto_ctx_init for every phase's ar_phase_proto_effect (each evaluator fills one before its phase
 * loop; p and s must outlive it, unchanged): NCCL's model of p (a topology search) where an op has a
 * protocol, NCCL's NVLS op rate, NCCL's NVLS_TREE factor and the first phase with a protocol. */
typedef struct ar_proto_ctx {
    const ar_platform *p;
    const ar_schedule *s;
    int have_in; /* 1: in is NCCL's model of p (ar_nccl_in_from_platform); 0: no op has a protocol, or none */
    ar_nccl_in in;
    double nvls_rate;        /* NCCL's NVLS op rate, wire bytes/s (models/walk.c nvls_sched_rate); 0: none */
    double nvlstree_corr;    /* NCCL's NVLS_TREE factor on the phases whose tree ops cross machines; 1: none */
    int first_proto;         /* the first phase with an op with a protocol; s->nphases when none */
    int tree_algo;           /* no switch op: NCCL's TREE algorithm, not NVLS_TREE (the tree pattern's factor) */
    double nvlstree_proxy_s; /* NCCL's proxy posts of NVLS_TREE's first step across nodes, s */
} ar_proto_ctx;
void ar_proto_ctx_init(ar_proto_ctx *c, const ar_platform *p, const ar_schedule *s);

/* NCCL protocols of phase ph's ops (ar_op.proto, models/walk.c) of the context's schedule, as the
 * walk and the simulator price them: every transfer of the phase carries its bytes / *bw_factor (the
 * smallest factor of its ops; 1 without a protocol), every transfer of an op with a protocol pays its own step
 * latency after its network part (ar_xfer_proto_step; *step_s: the largest NCCL step of the
 * phase's ops, 0 when no transfer pays one), and the phase *base_s more once (the largest base
 * latency), in the schedule's first phase with a protocol only: NCCL charges it once per
 * operation, 0 in the phases after it. */
/* *rate_Bps (when not NULL): the bound on the rate of every transfer of the phase, wire bytes per
 * second (0: none): NCCL's LL and LL128 caps, per channel, where they bind and every op of the phase
 * is a ring op with a protocol (models/walk.c phase_effect; *bw_factor then leaves them out); NCCL's
 * tree channels' rate (each search channel's shared by the ops on its head) x the op's rounds / chunks
 * where every op is a TREE op with LL128, on at most two machines or with ops sharing heads
 * (tree_stream_rate); NCCL's NVLS op rate (nvls_sched_rate). A transfer's flow never runs faster; the
 * links are shared max-min as ever. */
void ar_phase_proto_effect(const ar_proto_ctx *c, int ph, double *bw_factor, double *step_s, double *base_s,
                           double *rate_Bps);

/* An op's NCCL step, seconds: NCCL's per-step latency of the op's algorithm (TREE ops the tree's,
 * others the ring's) and protocol, for the release the platform names, along the op's path: its hops
 * (ring: member order) within a machine at NCCL's NVLink step and those across machines at its
 * network step, averaged over the hops (NCCL sums them along its pipeline; the op's rounds share
 * that sum). A tree op: the sum along its deepest member's path to the root (up and down for an
 * all-reduce) over all of its rounds, 2 depth + chunks - 1 (the stream's head pays each step once).
 * 0 for an op without a protocol and for a switch op (NVLS charges its latency once, as the phase's
 * base). */
double ar_op_proto_step(const ar_platform *p, const ar_op *op);

/* The step latency a transfer src -> dst of an op of step step_s (ar_op_proto_step) pays after its
 * network part: the step less the transfer's own route latency, 0 when the route is slower (NCCL's
 * step holds the hop: the message takes max(route latency, step) + bytes / bandwidth). 0 for a
 * transfer to or from a switch. */
double ar_xfer_proto_step(const ar_platform *p, double step_s, int src, int dst);

/* What transfer src -> dst of round r of op opi of phase ph of s waits after its network part: its
 * protocol step (ar_xfer_proto_step) and, on a platform with ready messages (platform.h msg_ready) when
 * the transfer is gated (core/lower.h ar_lower_gated), its receiver's ready message
 * (ar_platform_ready_s). The ready message precedes the data in the MPI backend; every evaluator charges
 * it after the network part, as a step, so a gated transfer's data share the links as an ungated one's
 * (the same round time where a round's transfers are all gated or all not: the exchanges', the ring's). */
double ar_xfer_wait(const ar_platform *p, const ar_schedule *s, int ph, int opi, int r, double step_s, int src,
                    int dst);
/* The ready message's part of ar_xfer_wait alone (0 when not gated or without ready messages). Under
 * --sync dataflow (the walk's dataflow pass, the per-rank engine) it is charged right after the network
 * part, before the receiver's side (o, copy) and reduction: what follows the data waits for it. */
double ar_xfer_ready_wait(const ar_platform *p, const ar_schedule *s, int ph, int opi, int r, int src, int dst);

/* The stream flight of a one-sided tree op (ar_op_async, impl TREE) whose stream fits NCCL's FIFO,
 * seconds: NCCL's sender posts its next step as soon as a FIFO slot is free (NCCL_STEPS slots a
 * connection), and while the op's bytes on the wire (count x wire_elem_bytes) fit the FIFO (LL 512 KiB,
 * LL128 4.69 MiB) no slot waits for its credit, so the chunks pay a hop's latency once, at the stream's
 * head. NCCL's model prices a hop at its step plus the hop's latency beyond the hop its tables were
 * measured on (AR_NCCL_REF_HOP_*_US, models/nccl_model.h): the flight is the op's step
 * (ar_op_proto_step, shared by its rounds) plus that latency beyond the reference along the op's
 * slowest way to the root (up and down for an all-reduce) over its rounds. An LL128 tree op past the
 * FIFO streams too (ar_op_stream_paced). -1 for any other op. */
double ar_op_stream_flight(const ar_platform *p, const ar_op *op, double wire_elem_bytes);
/* 1 if op is a one-sided LL128 tree op whose bytes on the wire outrun NCCL's FIFO (4.69 MiB): a long
 * stream of NCCL's own steps (the planners' LL128 chunks are NCCL's, ar_nccl_tree_chunks). NCCL runs
 * its up and down streams on their own threads, each with its FIFO of NCCL_STEPS slots (all_reduce.h
 * runTreeSplit), and an LL128 step is in flight on a hop for as long as its bytes take (a 144 000 B
 * chunk: 6 us at 25 GB/s, 8 slots 48 us) against a credit's round trip of twice the hop's latency
 * (1-2 us): no slot waits for its credit, and the hop's latency is paid once, at the stream's head,
 * inside NCCL's step along the path (ar_op_proto_step holds the hop). The schedule runs a member's
 * up and down transfers in one round and starts its next round when its receives have landed, so
 * a flight floored at the hop's latency would be paid every round along the rounds' chain: such an
 * op's transfers fly the stream flight alone (ar_xfer_flight). */
int ar_op_stream_paced(const ar_op *op, double wire_elem_bytes);
/* 1 if s has ops with an NCCL protocol and every one of them streams (ar_op_stream_flight >= 0). */
int ar_schedule_streams(const ar_platform *p, const ar_schedule *s);
/* What the receiver of a one-sided transfer src -> dst waits after its network part, its flow having
 * carried no latency: with a stream flight stream_s >= 0 (ar_op_stream_flight), the larger of it and
 * the route latency up to NCCL's reference hop (the hop NCCL's step holds, every round), or stream_s
 * alone when the stream is paced past the FIFO (paced: ar_op_stream_paced); else max(route latency,
 * step_s) (ar_xfer_proto_step + the route latency). */
double ar_xfer_flight(const ar_platform *p, double step_s, double stream_s, int paced, int src, int dst);

/* 1 if op sends one-sidedly under --sync dataflow: an op with NCCL's LL or LL128 protocol (not a
 * switch op). These write data and flag together into the receiver's FIFO (flags in every 8 / 128-byte
 * line): the sender of such a transfer starts it when it
 * is at the transfer's round (the receiver posts nothing) and is free for its next round once its
 * bytes are out (the network part less the route latency: its share of the links); the receiver
 * has the data a flight later, max(route latency, step) (ar_xfer_proto_step: the step holds the
 * hop; a tree op's stream, ar_xfer_flight). A member's round r + 1 starts when its sends of round r are out and its receives of round r
 * have arrived. Simple keeps two-sided rounds: its large steps wait for the receiver's credit (the
 * FIFO's slot back) before the next, the flight on the sender's path; measured, one-sided Simple
 * pipelines the steps' latency away and falls 10-40 % under NCCL's model at >= 64 MB
 * (docs/simulator.md, "Semantics"). */
int ar_op_async(const ar_op *op);
/* How many of s's ops send one-sidedly (ar_op_async); *nops (may be NULL): how many ops s has. */
int ar_schedule_async_ops(const ar_schedule *s, int *nops);

/* Platform quantities the closed forms use. */
double ar_plat_min_bw(const ar_platform *p); /* min link capacity on any rank-to-rank route */
double ar_plat_alpha(const ar_platform *p);  /* max route latency between two ranks */

#endif
