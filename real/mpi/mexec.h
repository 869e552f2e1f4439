/* The MPI backend of arlab: any schedule executed with MPI
 * point-to-point calls on CPU buffers, one MPI process per rank.
 *
 * Execution (ar_mx_run): the same lowering as every backend (core/lower.h).
 * A rank walks the phases in order; in a phase it runs every op it is a
 * member of concurrently: each op posts the MPI_Irecv/MPI_Isend of its current
 * round that involve this rank (a 2-segment transfer is two messages), and
 * the rank advances that op to its next round as soon as its own requests of
 * the round have completed (received payloads are then added or copied from a
 * staging buffer into the rank's buffer). A phase ends, on this rank, when
 * all its ops have run all their rounds; there is no barrier between rounds or
 * phases (each rank advances on its own data). Tags: the op's index in its
 * phase, so messages of concurrent ops never match each other (at most 32767
 * ops per phase, AR_ELIMIT); MPI's non-overtaking rule orders the rounds of
 * one op, and the phases, between a pair of ranks.
 * Reductions: element-wise sums on the CPU, f32, f64 or i32 (f16/bf16 are
 * refused: AR_EUNSUPPORTED).
 *
 * Measurement (ar_mx_bench), as the NCCL backend (real/real.h): `warmup`
 * untimed runs, then `iters` timed ones; before each run the inputs are
 * restored (outside the timed region), then MPI_Barrier, then the run timed
 * with MPI_Wtime on every rank; the time of an iteration is the max over ranks
 * (MPI_Allreduce MAX of the per-iteration times); median/min/max over
 * iterations (ar_real_stats). Then correctness: inputs restored, one more run,
 * every element compared with the exact sum (real/rmeasure.h patterns);
 * `wrong` is the sum over ranks. s == NULL measures the MPI_Allreduce
 * baseline (in place, MPI_SUM) the same way. In place only.
 *
 * Ownership: the context owns its buffers; ar_mx_close frees them.
 */
#ifndef AR_REAL_MPI_MEXEC_H
#define AR_REAL_MPI_MEXEC_H

#include <mpi.h>
#include <stdint.h>

#include "core/schedule.h"
#include "core/status.h"
#include "core/units.h"

typedef struct ar_mx ar_mx;

/* Collective over comm. */
ar_status ar_mx_open(MPI_Comm comm, ar_mx **out, ar_err *e);
/* bytes > 0: send every payload as messages of at most `bytes` (in order, on
 * the op's tag), so that with an eager limit at least that large no message
 * waits for a rendezvous handshake (Open MPI's TCP transport queues the
 * handshake behind the data already going the other way on the connection);
 * 0 (default): one message per segment. */
void ar_mx_set_max_msg(ar_mx *x, uint64_t bytes);
/* The machine of each rank (the platform's machine_of_rank, kept by reference; NULL: every pair crosses
 * machines): transfers within a machine never wait for a ready message. */
void ar_mx_set_machines(ar_mx *x, const int *machine_of_rank);
/* 1 when eager transfers of a schedule wait for their receiver's ready message (the default with eager
 * messages; $ARLAB_MPI_EAGER_READY=0 turns it off): a transfer starts when both ends reached it, as with
 * rendezvous and as in the simulation, except one whose sender sent to the same receiver in the round
 * just before (its data follows that data on the same path). */
int ar_mx_eager_ready(const ar_mx *x);
void ar_mx_close(ar_mx *x);

typedef struct ar_mx_measure {
    double med_s, min_s, max_s;
    long long wrong; /* elements differing from the exact sum, all ranks */
    int iters;
} ar_mx_measure;

/* Measures schedule s (or the MPI_Allreduce baseline when s is NULL) on
 * `count` elements of dtype t. Collective. */
ar_status ar_mx_bench(ar_mx *x, const ar_schedule *s, uint64_t count, ar_dtype t, int warmup, int iters,
                      ar_mx_measure *out, ar_err *e);

/* One-way time of `bytes` from rank a to rank b: half the median round trip
 * over `iters` after `warmup`; the result is valid on every rank. Collective. */
ar_status ar_mx_pingpong(ar_mx *x, int a, int b, uint64_t bytes, int warmup, int iters, double *oneway_s, ar_err *e);

/* The wake-up delay w of a rank that waits for a message (sleepy polling: a short spin, then 50 us sleeps
 * between polls): per iteration, a plain 8-byte ping-pong between a and b (both legs arrive while the
 * waiting end still spins) and a held one, where b holds the ping for hold_s (> the spin) before it
 * answers, so that a sleeps when the answer arrives; w = (held round trip - b's hold, as b measured it
 * on its own clock) - plain round trip, one per iteration in w_s[0..iters) (valid on every rank). A
 * round of a schedule whose transfers outlast the spin ends w after its last message arrived, beyond what
 * a ping-pong's own waits hold (the spin is a few us: a plain ping-pong's waits may sleep too). Collective. */
ar_status ar_mx_wakeup(ar_mx *x, int a, int b, double hold_s, int warmup, int iters, double *w_s, ar_err *e);

/* Time of an exchange of `bytes` each way between ranks a and b, both
 * directions at once (MPI_Irecv + MPI_Isend on both ends after a barrier):
 * the median over `iters` of the slower end's time; valid on every rank.
 * Collective. */
ar_status ar_mx_exchange(ar_mx *x, int a, int b, uint64_t bytes, int warmup, int iters, double *time_s, ar_err *e);

/* Time of exchanges of `bytes` each way between every pair of ranks at once: peer[r] is rank r's partner
 * (peer[peer[r]] == r) or -1 (no exchange); after a barrier every pair runs both directions at once
 * (as ar_mx_exchange); the median over `iters` of the slowest rank's time; valid on every rank. The
 * calibration's intra-machine exchange, one pair per machine at once: on the testbed every machine's
 * loopback runs on the host's CPUs, which one pair alone does not share. Collective. */
ar_status ar_mx_exchange_pairs(ar_mx *x, const int *peer, uint64_t bytes, int warmup, int iters, double *time_s,
                               ar_err *e);

/* Fan-out: rank root sends k messages of `bytes` (<= 64 KiB) at once, round-robin to the npeers
 * ranks peers[], and every peer answers each message with one of the same size as it arrives; the
 * median over `iters` of the root's time from posting to the last answer (4 fan-outs back to back
 * after each barrier, their mean: the ranks' wake-up from the barrier is paid once). Over k, its slope is the
 * root's serial cost per message (sending one and receiving its answer): the per-message overhead o
 * of LogGP as the platform charges it (platform.h msg_o_s: a send side and a receive side per rank,
 * each serial). Valid on every rank. Collective. */
ar_status ar_mx_fanout(ar_mx *x, int root, const int *peers, int npeers, int k, uint64_t bytes, int warmup, int iters,
                       double *time_s, ar_err *e);

/* The rate at which ranks reduce (element-wise add of `count` elements of t,
 * every rank at once after a barrier, as in a run where the ranks of a
 * machine share its CPU): the median over ranks of each rank's median over
 * `iters`, in bytes of received data per second; valid on every rank.
 * Collective. */
ar_status ar_mx_reduce_rate(ar_mx *x, uint64_t count, ar_dtype t, int iters, double *rate_Bps, ar_err *e);

/* Payload bytes of one run of s that leave each machine (transfers whose
 * source and destination ranks are on different machines), added to
 * out[machine] (nmachines entries). Pure computation, no MPI. */
ar_status ar_mx_cross_bytes(const ar_schedule *s, const int *machine_of_rank, double *out, ar_err *e);

#endif
