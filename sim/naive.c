/* The naive baseline engine, on SimGrid's C API: one actor per GPU and op,
 * one mailbox per op member, one mailbox message per transfer.
 *
 * Each GPU's actor walks the phases. The ops of a phase are concurrent (the
 * schedule's semantics, as in the fast engine): a GPU in k ops of one phase
 * runs the first itself and starts k-1 helper actors on its host for the
 * others, then waits for them at a barrier. Each op member has its own
 * mailbox, so the transfers of two concurrent ops never mix. Per round of an
 * op, the first member to arrive lowers the round (ar_lower_round) and
 * indexes it by member; every member posts its receives and sends
 * asynchronously, waits for them, then meets the other members at the op's
 * SimGrid barrier. A global barrier separates phases. An NCCL protocol is priced
 * as the walk prices it (ar_phase_proto_effect): wire bytes, after each transfer
 * its step over its route (ar_xfer_proto_step: an actor sleeps until the latest
 * end + step of its transfers), the base latency before the phase. Actors get a 64 KiB
 * stack (SimGrid's default is 8 MiB). A run SimGrid ends with an actor still
 * waiting (a deadlock: a bug, never a result) is an error.
 *
 * --sync dataflow (see fast_dataflow.c for the semantics): no op or phase barrier;
 * each actor lowers its rounds itself and uses one mailbox per (op, receiver,
 * sender), so a sender's messages arrive in its order whatever round the
 * receiver is in. One-sided ops (LL, LL128: ar_op_async) run run_op_df_async: every
 * receiver is its mailboxes' permanent receiver (a send flows at once), and when every op
 * is one-sided SimGrid's links carry no latency (the receiver pays the route's after the
 * flow, as the fast engine).
 *
 * Switches that reduce (ops with impl switch, core/lower.h): two more actors per
 * reducing switch k, on the bridge's two hosts of the switch (bridge.cpp): actor
 * P+2k sends the switch's transfers and receives its copies, actor P+2k+1
 * receives the transfers that reduce into it (their route ends with the
 * switch's virtual link). Both take part in the switch's ops as members n and
 * n+1 (the op's barrier counts n+2).
 *
 * Compute costs under --sync dataflow (the semantics of fast_dataflow.c): every GPU has
 * three engine actors (daemons): device-to-host copies, host-to-device copies and reductions,
 * each one job at a time in arrival order (a FIFO, a semaphore counting its jobs). A GPU actor
 * hands a received transfer to its host-to-device engine (staged) or reducer as soon as the
 * network part completes (nv_wait_any) and goes on; the data lands when the last of them
 * is done (a staged reduce goes from the copy engine to the reducer). A staged send waits for
 * its device-to-host copy before it is posted. Before it posts a send (or a copy's receive) a
 * GPU actor waits, on its GPU's condition variable, until no pending transfer into it overlaps
 * the range; at its end it waits until nothing is pending. One difference from fast_dataflow.c: a
 * staged send's device-to-host copy starts when the SENDER is at its round (the receiver's
 * readiness is only known at the rendezvous), where the fast engine also waits for the
 * receiver; with ranks in step (rings, halving-doubling, binomial, two-level on symmetric
 * platforms) the two agree (tests/sim/sim_pipeline.c), with several staged sends per rank and
 * round from ranks out of step (ps, tree packing, NCCL's tree) they do not. Launch overhead: a
 * sleep before the rank's ops of each phase.
 *
 * Budget: the member that lowers a round checks the wall clock; once over,
 * that op and every op after it stop at their next round, and every actor
 * skips the remaining phases (decided before the phase barrier, so all agree).
 *
 * Ownership: everything is allocated in ar_engine_naive and freed before it
 * returns, except the result's phase_end_s (ar_sim_result_free).
 */
#include <xbt/base.h> /* simgrid/version.h needs it first */
#include <simgrid/version.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>
#if SIMGRID_VERSION >= 40000
#include <simgrid/activity_set.h> /* 4.x: sg_comm_wait_all/any are gone */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "core/lower.h"
#include "core/util.h"
#include "engine.h"
#include "members.h"
#include "models/model.h"

#define NAIVE_STACK_BYTES (64 * 1024)

typedef struct nv_op {
    const ar_op *op;
    int swa; /* switch ops: the switch's first actor (P+2k), else -1 */
    int nrounds;
    int gen_round; /* round currently lowered, -1 before the first */
    int stop;
    sg_bar_t bar;
    ar_xfer *xf; /* the lowered round */
    size_t nx;
    int *out_off; /* member m sends xf[out_idx[out_off[m] .. out_off[m+1])] */
    int *out_idx;
    int *in_cnt;        /* member m receives in_cnt[m] messages */
    sim_members mem;    /* rank -> member index */
    sg_mailbox_t *mbox; /* one per member (--sync round) */
    int ph, idx;        /* its phase and index there (mailbox names under --sync dataflow) */
    double eb, step;    /* the phase's protocol (ar_phase_proto_effect): wire bytes per element, largest step */
    double rate;        /* and its bound on every flow's rate, wire bytes/s (ar_phase_proto_effect; 0: none) */
    double stp;         /* its own step (ar_op_proto_step): a transfer's is ar_xfer_proto_step */
    double stream;      /* its stream's flight (ar_op_stream_flight; -1: none) */
    int paced;          /* its stream past NCCL's FIFO (ar_op_stream_paced) */
} nv_op;

typedef struct nv_job { /* a staging copy or a reduction of one transfer */
    int nseg;
    uint64_t off[2], len[2];
    double bytes;
    int reduce, done;
    int src, dst; /* its ends (a side's cost: per-message o, staging copy) */
} nv_job;

enum { NV_D2H, NV_H2D, NV_GPU, NV_ENG };

typedef struct nv_eng { /* a FIFO served by one daemon actor: q[head] runs */
    nv_job **q;
    size_t head, n, cap;
    sg_sem_t sem;
} nv_eng;

typedef struct nv_gpu {
    nv_eng eng[NV_ENG]; /* device-to-host copies, host-to-device copies, reductions */
    nv_job **pend;      /* transfers into this GPU whose data has not landed (copy or reduction pending) */
    size_t npend, cappend;
    sg_mutex_t mu;
    sg_cond_t cond;
} nv_gpu;

typedef struct nv_eng_arg {
    struct nv *v;
    int rank, en;
} nv_eng_arg;

typedef struct nv {
    const sim_job *j;
    int nact;             /* actors: the P ranks, then two per reducing switch */
    double gamma, launch; /* compute costs (dataflow only); gpus[] exist with a reduction cost or staging */
    nv_gpu *gpus;
    ar_sg *sg;
    nv_op **ops; /* ops[phase][i] */
    int **rops;  /* per phase, the ops of rank r: rops[ph][roff[ph][r] .. roff[ph][r+1]) */
    int **roff;
    sg_bar_t all;
    int stop;
    double wall0; /* start of the simulation proper (the budget counts from here) */
    uint64_t transfers;
    double bytes;
    double *phase_end;
    double *base;         /* per phase: the protocol's base latency, waited by every GPU before the phase */
    int oom;              /* an allocation failed */
    int bad;              /* a transfer outside its op (a bug) */
    int finished;         /* GPU actors that reached the end (fewer after the run: a deadlock) */
    int eager;            /* every op one-sided: SimGrid's links carry no latency, a receiver pays the route's after */
    struct nv_msg **msgs; /* one-sided messages (freed at the end: a budget stop leaves some unread) */
    size_t nmsgs, capmsgs;
} nv;

/* A one-sided message (an NCCL protocol op, ar_op_async): when its network part ended, written
 * by its sender when its wait returns (unset, -1: the receiver, woken at that same instant, takes now). */
typedef struct nv_msg {
    double end;
} nv_msg;

typedef struct nv_arg {
    nv *v;
    int rank;
} nv_arg;

/* A helper actor's work: rank's part in op o, then the barrier its GPU actor waits at. */
typedef struct nv_sub {
    nv *v;
    nv_op *o;
    int rank;
    sg_bar_t done;
} nv_sub;

/* A mailbox comm started by the calling actor, off its activities_ list (ar_sg_unlist_comm:
 * SimGrid 3.32 scans that list when a wait on the comm completes; ps puts 2(n-1) comms on it). */
static sg_comm_t nv_put_async(nv *v, sg_mailbox_t m, void *payload, long bytes, double rate) {
    sg_comm_t c = ar_sg_put_async_rate(v->sg, m, payload, bytes, rate);
    ar_sg_unlist_comm(c);
    return c;
}
static sg_comm_t nv_get_async(nv *v, sg_mailbox_t m, void **data, double rate) {
    sg_comm_t c = ar_sg_get_async_rate(v->sg, m, data, rate);
    ar_sg_unlist_comm(c);
    return c;
}

/* Waits until every comm of c[0..n) completed; each is released (the caller's reference). */
static void nv_wait_all(sg_comm_t *c, size_t n) {
#if SIMGRID_VERSION >= 40000
    sg_activity_set_t as = sg_activity_set_init();
    for (size_t i = 0; i < n; i++) sg_activity_set_push(as, (sg_activity_t)c[i]);
    sg_activity_set_wait_all(as);
    sg_activity_set_delete(as);
    for (size_t i = 0; i < n; i++) sg_comm_unref(c[i]);
#else
    sg_comm_wait_all(c, n);
#endif
}

static ssize_t nv_wait_any(sg_comm_t *c, size_t n);

/* What transfer x of round r of op o waits after it completes: its step and a gated transfer's ready
 * message (the walk's ar_xfer_wait). */
static double nv_step(const nv *v, const nv_op *o, int r, const ar_xfer *x) {
    return o->step > 0 || v->j->p->msg_ready ? ar_xfer_wait(v->j->p, v->j->s, o->ph, o->idx, r, o->stp, x->src, x->dst)
                                             : 0;
}

/* What the receiver of one-sided transfer x of round r of op o waits after its network part: its
 * flight when its flow carried no latency (ar_xfer_flight), else its step over the route latency the
 * flow carried (of the stream's flight, when o has one), and a gated transfer's ready message. */
static double nv_flight(const nv *v, const nv_op *o, int r, const ar_xfer *x) {
    const ar_platform *p = v->j->p;
    double rw = p->msg_ready ? ar_xfer_ready_wait(p, v->j->s, o->ph, o->idx, r, x->src, x->dst) : 0;
    double stp = o->step > 0 ? o->stp : 0;
    if (v->eager) return ar_xfer_flight(p, stp, o->stream, o->paced, x->src, x->dst) + rw;
    return ar_xfer_proto_step(p, o->stream >= 0 ? o->stream : stp, x->src, x->dst) + rw;
}

/* Waits for comms c[0..n) (released), then until the latest of (a comm's end + its step cs[i]):
 * each transfer pays its own protocol step after its network part. cs NULL or all 0: nv_wait_all. */
static void nv_wait_steps(sg_comm_t *c, double *cs, size_t n) {
    int any = 0;
    for (size_t i = 0; cs && i < n; i++) any |= cs[i] > 0;
    if (!any) {
        nv_wait_all(c, n);
        return;
    }
    double until = 0;
    while (n > 0) {
        ssize_t i = nv_wait_any(c, n);
        if (i < 0) break;
        double t = simgrid_get_clock() + cs[i];
        if (t > until) until = t;
        c[i] = c[n - 1], cs[i] = cs[n - 1];
        n--;
    }
    double now = simgrid_get_clock();
    if (until > now) sg_actor_sleep_for(until - now);
}

/* Waits until one comm of c[0..n) completed and returns its index (-1: none); that one is
 * released, the others stay the caller's. */
static ssize_t nv_wait_any(sg_comm_t *c, size_t n) {
#if SIMGRID_VERSION >= 40000
    sg_activity_set_t as = sg_activity_set_init();
    for (size_t i = 0; i < n; i++) sg_activity_set_push(as, (sg_activity_t)c[i]);
    sg_activity_t done = sg_activity_set_wait_any(as);
    sg_activity_set_delete(as);
    for (size_t i = 0; i < n; i++)
        if ((sg_activity_t)c[i] == done) {
            sg_comm_unref(c[i]);
            return (ssize_t)i;
        }
    return -1;
#else
    return sg_comm_wait_any(c, n);
#endif
}

static int member_of(const nv_op *o, int rank) {
    if (o->swa >= 0 && (rank == o->swa || rank == o->swa + 1)) return o->op->n + (rank - o->swa);
    return sim_member_of(&o->mem, rank);
}

/* The actor of a transfer's end (a rank, or a switch's send/copy or reduce actor). */
static int actor_of(const nv *v, int ep, int reduce_dst) {
    if (ep >= 0) return ep;
    return v->j->p->nranks + 2 * (v->j->p->nodes[AR_EP_NODE_OF(ep)].vlink - v->j->p->nlinks) + (reduce_dst ? 1 : 0);
}

/* Lowers round r of o and indexes it by member. */
static int lower_round(nv *v, nv_op *o, int r) {
    const ar_op *op = o->op;
    o->nx = ar_lower_round(op, r, o->xf);
    int nm = op->n + (o->swa >= 0 ? 2 : 0); /* members, with a switch's two actors */
    memset(o->out_off, 0, ((size_t)nm + 1) * sizeof *o->out_off);
    memset(o->in_cnt, 0, (size_t)nm * sizeof *o->in_cnt);
    for (size_t t = 0; t < o->nx; t++) {
        const ar_xfer *x = &o->xf[t];
        int ms = member_of(o, actor_of(v, x->src, 0)), md = member_of(o, actor_of(v, x->dst, x->reduce));
        if (ms < 0 || md < 0) return -1;
        o->out_off[ms + 1]++;
        o->in_cnt[md]++;
    }
    for (int m = 0; m < nm; m++) o->out_off[m + 1] += o->out_off[m];
    int *fill = o->out_off; /* second pass with a moving cursor, then restore */
    for (size_t t = 0; t < o->nx; t++) o->out_idx[fill[member_of(o, actor_of(v, o->xf[t].src, 0))]++] = (int)t;
    for (int m = nm; m > 0; m--) o->out_off[m] = o->out_off[m - 1];
    o->out_off[0] = 0;
    o->gen_round = r;
    if (v->j->o->budget_s > 0 && ar_now_s() - v->wall0 > v->j->o->budget_s) v->stop = 1;
    if (v->stop) o->stop = 1;
    return 0;
}

static void run_op(nv *v, nv_op *o, int rank) {
    int me = member_of(o, rank);
    size_t maxc = ar_lower_max_xfers(o->op) + 1;
    sg_comm_t *c = malloc(maxc * 2 * sizeof *c);
    double *cs = malloc(maxc * 2 * sizeof *cs); /* each comm's step: a send's transfer's, 0 for a receive */
    if (!c || !cs || me < 0) {
        if (!c || !cs) v->oom = 1;
        else v->bad = 1;
        free(c);
        free(cs);
        return;
    }
    for (int r = 0; r < o->nrounds; r++) {
        if (o->gen_round < r && lower_round(v, o, r) < 0) v->bad = 1;
        if (o->stop || v->oom || v->bad) break;
        size_t nc = 0;
        void *got;
        for (int k = 0; k < o->in_cnt[me]; k++) cs[nc] = 0, c[nc++] = nv_get_async(v, o->mbox[me], &got, o->rate);
        for (int k = o->out_off[me]; k < o->out_off[me + 1]; k++) {
            const ar_xfer *x = &o->xf[o->out_idx[k]];
            double bytes = (double)ar_xfer_elems(x) * o->eb;
            cs[nc] = nv_step(v, o, r, x); /* the sender pays it; the barrier holds the receiver */
            c[nc++] = nv_put_async(v, o->mbox[member_of(o, actor_of(v, x->dst, x->reduce))], v, (long)llround(bytes),
                                   o->rate);
            v->transfers++;
            v->bytes += bytes;
        }
        nv_wait_steps(c, cs, nc);
        sg_barrier_wait(o->bar);
    }
    free(c);
    free(cs);
}

/* The mailbox of transfers from rank src to rank dst in op o (--sync dataflow): one per pair, so
 * that the messages of one sender arrive in its order (FIFO) whatever round the receiver is in. */
static sg_mailbox_t pair_mbox(const nv_op *o, int dst, int src) {
    char name[64];
    snprintf(name, sizeof name, "p%d.o%d.%d<%d", o->ph, o->idx, dst, src);
    return sg_mailbox_by_name(name);
}

/* 1 if a pending transfer into GPU g overlaps x's ranges. */
static int gpu_hazard(const nv_gpu *g, const ar_xfer *x) {
    for (size_t i = 0; i < g->npend; i++) {
        const nv_job *j = g->pend[i];
        for (int a = 0; a < x->nseg; a++)
            for (int b = 0; b < j->nseg; b++)
                if (x->len[a] && j->len[b] && x->off[a] < j->off[b] + j->len[b] && j->off[b] < x->off[a] + x->len[a])
                    return 1;
    }
    return 0;
}

static void gpu_wait_clear(nv *v, int rank, const ar_xfer *x) {
    nv_gpu *g = &v->gpus[rank];
    sg_mutex_lock(g->mu);
    while (gpu_hazard(g, x)) sg_cond_wait(g->cond, g->mu);
    sg_mutex_unlock(g->mu);
}

static nv_job *job_new(nv *v, const ar_xfer *x) {
    nv_job *j = ar_calloc(1, sizeof *j);
    if (!j) {
        v->oom = 1;
        return NULL;
    }
    *j = (nv_job){.nseg = x->nseg,
                  .off = {x->off[0], x->off[1]},
                  .len = {x->len[0], x->len[1]},
                  .bytes = (double)ar_xfer_elems(x) * (double)v->j->s->elem_bytes,
                  .reduce = x->reduce,
                  .src = x->src,
                  .dst = x->dst};
    return j;
}

static void eng_push(nv *v, int rank, int en, nv_job *j) {
    nv_eng *q = &v->gpus[rank].eng[en];
    if (ar_grow(&q->q, &q->cap, q->n + 1, sizeof *q->q) < 0) {
        v->oom = 1;
        return;
    }
    q->q[q->n++] = j;
    sg_sem_release(q->sem);
}

/* A transfer's data has landed in GPU rank: no longer pending (the caller holds the mutex). */
static void landed(nv *v, int rank, nv_job *j) {
    nv_gpu *g = &v->gpus[rank];
    for (size_t i = 0; i < g->npend; i++)
        if (g->pend[i] == j) {
            g->pend[i] = g->pend[--g->npend];
            break;
        }
    free(j);
}

static void engine_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    const nv_eng_arg *a = sg_actor_self_get_data();
    nv *v = a->v;
    nv_gpu *g = &v->gpus[a->rank];
    nv_eng *q = &g->eng[a->en];
    for (;;) {
        sg_sem_acquire(q->sem);
        nv_job *j = q->q[q->head];
        const ar_platform *p = v->j->p;
        double hold = 0, t = a->en == NV_GPU
                                 ? ar_platform_rank_gamma(p, v->gamma, a->rank) * j->bytes /* slow GPU */
                                 : ar_platform_side_cost(p, j->src, j->dst, j->bytes, a->en == NV_H2D, &hold);
        sg_actor_sleep_for(t);
        sg_mutex_lock(g->mu);
        if (++q->head == q->n) q->head = q->n = 0;
        if (a->en == NV_D2H) j->done = 1; /* the sender posts its send now (and frees the job) */
        else if (a->en == NV_H2D && j->reduce && v->gamma > 0) eng_push(v, a->rank, NV_GPU, j);
        else landed(v, a->rank, j);
        sg_cond_notify_all(g->cond);
        sg_mutex_unlock(g->mu);
        if (hold > t) sg_actor_sleep_for(hold - t); /* the gap g: the side's next message starts after it */
    }
}

/* Transfer x has arrived in GPU rank (network part done): its staging copy and/or reduction. */
static void arrived(nv *v, int rank, const ar_xfer *x) {
    int staged = ar_platform_sided(v->j->p, x->src, x->dst); /* its receiver's side: o, H2D copy */
    if (!staged && !(x->reduce && v->gamma > 0)) return;
    nv_gpu *g = &v->gpus[rank];
    nv_job *j = job_new(v, x);
    if (!j || ar_grow(&g->pend, &g->cappend, g->npend + 1, sizeof *g->pend) < 0) {
        v->oom = 1;
        free(j);
        return;
    }
    g->pend[g->npend++] = j;
    eng_push(v, rank, staged ? NV_H2D : NV_GPU, j);
}

/* A staged send: its device-to-host copy on the sender's engine first. */
static void d2h_wait(nv *v, int rank, const ar_xfer *x) {
    nv_job *j = job_new(v, x);
    if (!j) return;
    nv_gpu *g = &v->gpus[rank];
    eng_push(v, rank, NV_D2H, j);
    sg_mutex_lock(g->mu);
    while (!j->done) sg_cond_wait(g->cond, g->mu);
    sg_mutex_unlock(g->mu);
    free(j);
}

/* --sync dataflow with a reduction cost: as run_op_df, but a reduce transfer's reduction is
 * queued on the receiver's GPU when its network part completes, and a send (or a copy's
 * receive) waits until its range is no longer being reduced into. */
static void run_op_df_costs(nv *v, nv_op *o, int rank) {
    size_t maxc = ar_lower_max_xfers(o->op) + 1;
    sg_comm_t *c = malloc(maxc * 2 * sizeof *c);
    int *ci = malloc(maxc * 2 * sizeof *ci); /* transfer of each comm; -1 - t for a send */
    ar_xfer *xf = malloc(maxc * sizeof *xf);
    int *later = malloc(maxc * 2 * sizeof *later);
    if (!c || !ci || !xf || !later) {
        v->oom = 1;
        free(c);
        free(ci);
        free(xf);
        free(later);
        return;
    }
    for (int r = 0; r < o->nrounds && !v->stop && !v->oom; r++) {
        if (v->j->o->budget_s > 0 && ar_now_s() - v->wall0 > v->j->o->budget_s) {
            v->stop = 1;
            break;
        }
        size_t n = ar_lower_round(o->op, r, xf), nc = 0, nl = 0;
        void *got;
        for (int pass = 0; pass < 2; pass++) /* pass 0: what can start now; pass 1: the rest, in order */
            for (size_t k = 0; k < (pass ? nl : 2 * n); k++) {
                int code =
                    pass ? later[k]
                    : k < n
                        ? 2 * (int)k
                        : 2 * (int)(k - n) +
                              1; /* 2t: receive t, 2t+1: send t; pass 0: receives first (a staged send blocks for its copy) */
                const ar_xfer *x = &xf[code / 2];
                int send = code & 1;
                if (send ? x->src != rank : x->dst != rank) continue;
                int hz = send || !x->reduce;
                if (!pass && hz && gpu_hazard(&v->gpus[rank], x)) {
                    later[nl++] = code;
                    continue;
                }
                if (pass) gpu_wait_clear(v, rank, x);
                if (send) {
                    if (ar_platform_sided(v->j->p, x->src, x->dst)) d2h_wait(v, rank, x); /* o, D2H copy */
                    double bytes = (double)ar_xfer_elems(x) * o->eb;
                    ci[nc] = -1 - code / 2;
                    c[nc++] = nv_put_async(v, pair_mbox(o, x->dst, rank), v, (long)llround(bytes), o->rate);
                    v->transfers++;
                    v->bytes += bytes;
                } else {
                    ci[nc] = code / 2;
                    c[nc++] = nv_get_async(v, pair_mbox(o, rank, x->src), &got, o->rate);
                }
            }
        if (nc == 0) continue;
        double until = 0; /* the latest (end + step) of its transfers */
        while (nc > 0) {
            ssize_t i = nv_wait_any(c, nc);
            if (i < 0) break;
            const ar_xfer *x = &xf[ci[i] >= 0 ? ci[i] : -1 - ci[i]];
            double tu = simgrid_get_clock() + nv_step(v, o, r, x);
            if (tu > until) until = tu;
            if (ci[i] >= 0) arrived(v, rank, x);
            c[i] = c[nc - 1];
            ci[i] = ci[nc - 1];
            nc--;
        }
        if (until > simgrid_get_clock()) sg_actor_sleep_for(until - simgrid_get_clock());
    }
    free(c);
    free(ci);
    free(xf);
    free(later);
}

/* --sync dataflow: rank does each round of o once its own transfers of the previous one have
 * completed; a transfer starts when sender and receiver are both at its round (SimGrid's
 * rendezvous); no barrier. Each actor lowers the rounds itself (members can be rounds apart). */
static void run_op_df(nv *v, nv_op *o, int rank) {
    size_t maxc = ar_lower_max_xfers(o->op) + 1;
    sg_comm_t *c = malloc(maxc * 2 * sizeof *c);
    double *cs = malloc(maxc * 2 * sizeof *cs); /* each comm's transfer's step */
    ar_xfer *xf = malloc(maxc * sizeof *xf);
    if (!c || !cs || !xf) {
        v->oom = 1;
        free(c);
        free(cs);
        free(xf);
        return;
    }
    for (int r = 0; r < o->nrounds && !v->stop; r++) {
        if (v->j->o->budget_s > 0 && ar_now_s() - v->wall0 > v->j->o->budget_s) {
            v->stop = 1;
            break;
        }
        size_t n = ar_lower_round(o->op, r, xf), nc = 0;
        void *got;
        for (size_t t = 0; t < n; t++) {
            const ar_xfer *x = &xf[t];
            int as = actor_of(v, x->src, 0), ad = actor_of(v, x->dst, x->reduce); /* ranks or switch actors */
            double sx = nv_step(v, o, r, x);
            if (ad == rank) cs[nc] = sx, c[nc++] = nv_get_async(v, pair_mbox(o, rank, as), &got, o->rate);
            if (as == rank) {
                double bytes = (double)ar_xfer_elems(x) * o->eb;
                cs[nc] = sx;
                c[nc++] = nv_put_async(v, pair_mbox(o, ad, rank), v, (long)llround(bytes), o->rate);
                v->transfers++;
                v->bytes += bytes;
            }
        }
        if (nc == 0) continue;
        nv_wait_steps(c, cs, nc);
    }
    free(c);
    free(cs);
    free(xf);
}

/* The mailboxes rank receives op o's transfers on get it as their permanent receiver: a send then
 * flows at once, whether or not the receiver has posted its receive (SimGrid starts comms to a
 * permanent receiver eagerly). Called by rank's actor before its first phase; another actor of
 * the same host may take the messages. */
static void declare_receiver(nv *v, nv_op *o, int rank) {
    ar_xfer *xf = malloc((ar_lower_max_xfers(o->op) + 1) * sizeof *xf);
    if (!xf) {
        v->oom = 1;
        return;
    }
    for (int r = 0; r < o->nrounds; r++) {
        size_t n = ar_lower_round(o->op, r, xf);
        for (size_t t = 0; t < n; t++)
            if (actor_of(v, xf[t].dst, xf[t].reduce) == rank) {
                char name[64];
                snprintf(name, sizeof name, "p%d.o%d.%d<%d", o->ph, o->idx, rank, actor_of(v, xf[t].src, 0));
                sg_mailbox_set_receiver(name);
            }
    }
    free(xf);
}

/* --sync dataflow, an op with an NCCL protocol (ar_op_async; the semantics of fast_dataflow.c):
 * one-sided sends. The rank posts its sends of round r when it reaches r (they flow at once: its
 * receivers are their mailboxes' permanent receivers) and its receives; it does round r + 1 once its
 * sends' network parts have ended and its receives have arrived, each with its step after its end. */
static void run_op_df_async(nv *v, nv_op *o, int rank) {
    size_t maxc = ar_lower_max_xfers(o->op) + 1;
    sg_comm_t *c = malloc(maxc * 2 * sizeof *c);
    double *cs = malloc(maxc * 2 * sizeof *cs); /* a receive's step; -1 for a send */
    void **got = malloc(maxc * 2 * sizeof *got);
    nv_msg **mine = malloc(maxc * 2 * sizeof *mine); /* a send's message */
    ar_xfer *xf = malloc(maxc * sizeof *xf);
    size_t *ix = malloc(maxc * 2 * sizeof *ix); /* c[i]'s slot in cs, got, mine (SimGrid writes got[slot]) */
    if (!c || !cs || !got || !mine || !xf || !ix) {
        v->oom = 1;
        free(c), free(cs), free(got), free(mine), free(xf), free(ix);
        return;
    }
    for (int r = 0; r < o->nrounds && !v->stop && !v->oom; r++) {
        if (v->j->o->budget_s > 0 && ar_now_s() - v->wall0 > v->j->o->budget_s) {
            v->stop = 1;
            break;
        }
        size_t n = ar_lower_round(o->op, r, xf), nc = 0;
        for (size_t t = 0; t < n && !v->oom; t++) {
            const ar_xfer *x = &xf[t];
            int as = actor_of(v, x->src, 0), ad = actor_of(v, x->dst, x->reduce);
            if (as == rank) {
                double bytes = (double)ar_xfer_elems(x) * o->eb;
                nv_msg *m = malloc(sizeof *m);
                if (!m || ar_grow(&v->msgs, &v->capmsgs, v->nmsgs + 1, sizeof *v->msgs) < 0) {
                    free(m);
                    v->oom = 1;
                    break;
                }
                m->end = -1;
                v->msgs[v->nmsgs++] = m;
                cs[nc] = -1, mine[nc] = m, ix[nc] = nc;
                c[nc++] = nv_put_async(v, pair_mbox(o, ad, rank), m, (long)llround(bytes), o->rate);
                v->transfers++;
                v->bytes += bytes;
            }
            if (ad == rank) {
                cs[nc] = nv_flight(v, o, r, x);
                mine[nc] = NULL, got[nc] = NULL, ix[nc] = nc;
                c[nc] = nv_get_async(v, pair_mbox(o, rank, as), &got[nc], o->rate);
                nc++;
            }
        }
        double until = 0;
        while (nc > 0) {
            ssize_t i = nv_wait_any(c, nc);
            if (i < 0) break;
            double now = simgrid_get_clock(), t = now;
            size_t k = ix[i];
            if (cs[k] < 0) {
                mine[k]->end = now; /* the sender is free: its network part is through */
            } else {
                const nv_msg *m = got[k];
                t = (m && m->end >= 0 ? m->end : now) + cs[k]; /* arrived at its end, then its flight */
            }
            if (t > until) until = t;
            c[i] = c[nc - 1], ix[i] = ix[nc - 1];
            nc--;
        }
        /* (below SimGrid's accuracy a sleep is refused with a warning: a rounding of the sum) */
        if (until - simgrid_get_clock() > 1e-15) sg_actor_sleep_for(until - simgrid_get_clock());
    }
    free(c), free(cs), free(got), free(mine), free(xf), free(ix);
}

static void run_op_any(nv *v, nv_op *o, int rank) {
    if (v->j->o->sync == AR_SYNC_DATAFLOW && ar_op_async(o->op) && !v->gpus) run_op_df_async(v, o, rank);
    else if (v->j->o->sync == AR_SYNC_DATAFLOW && v->gpus) run_op_df_costs(v, o, rank);
    else if (v->j->o->sync == AR_SYNC_DATAFLOW) run_op_df(v, o, rank);
    else run_op(v, o, rank);
}

static void sub_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    nv_sub *a = sg_actor_self_get_data();
    run_op_any(a->v, a->o, a->rank);
    sg_barrier_wait(a->done);
}

/* Rank's ops of phase ph, concurrently: helper actors for all but the first. */
static void run_phase(nv *v, int ph, int rank) {
    int k0 = v->roff[ph][rank], k = v->roff[ph][rank + 1] - k0;
    if (k == 0) return;
    nv_sub *subs = k > 1 ? ar_calloc((size_t)k, sizeof *subs) : NULL;
    sg_bar_t done = k > 1 ? sg_barrier_init((unsigned)k) : NULL;
    if (k > 1 && (!subs || !done)) {
        v->oom = 1;
        free(subs);
        return;
    }
    char name[48];
    for (int i = 1; i < k; i++) {
        subs[i] = (nv_sub){.v = v, .o = &v->ops[ph][v->rops[ph][k0 + i]], .rank = rank, .done = done};
        snprintf(name, sizeof name, "gpu%d.op%d", rank, v->rops[ph][k0 + i]);
        sg_actor_t act = sg_actor_init(name, (sg_host_t)ar_sg_host(v->sg, rank));
        sg_actor_set_stacksize(act, NAIVE_STACK_BYTES);
        sg_actor_set_data(act, &subs[i]);
        sg_actor_start(act, sub_main, 0, NULL);
    }
    run_op_any(v, &v->ops[ph][v->rops[ph][k0]], rank);
    if (k > 1) {
        sg_barrier_wait(done);
        sg_barrier_destroy(done);
    }
    free(subs);
}

static void actor_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    const nv_arg *a = sg_actor_self_get_data();
    nv *v = a->v;
    const ar_schedule *s = v->j->s;
    int df = v->j->o->sync == AR_SYNC_DATAFLOW;
    for (int ph = 0; df && !v->gpus && ph < s->nphases; ph++) /* one-sided ops: their receives are eager */
        for (int k = v->roff[ph][a->rank]; k < v->roff[ph][a->rank + 1]; k++) {
            nv_op *o = &v->ops[ph][v->rops[ph][k]];
            if (ar_op_async(o->op)) declare_receiver(v, o, a->rank);
        }
    for (int ph = 0; ph < s->nphases; ph++) {
        int mine = v->roff[ph][a->rank + 1] > v->roff[ph][a->rank]; /* under dataflow only its own phases wait */
        if (!v->stop && v->base[ph] > 0 && (!df || mine)) sg_actor_sleep_for(v->base[ph]);
        if (!v->stop && df && mine && v->launch > 0) sg_actor_sleep_for(v->launch); /* its ops launch */
        if (!v->stop) run_phase(v, ph, a->rank);
        if (df) { /* no barrier: the phase ends when its last rank is done with it */
            if (mine && simgrid_get_clock() > v->phase_end[ph]) v->phase_end[ph] = simgrid_get_clock();
            continue;
        }
        sg_barrier_wait(v->all);
        if (a->rank == 0) v->phase_end[ph] = simgrid_get_clock();
    }
    if (v->gpus) { /* its GPU's last copies and reductions */
        nv_gpu *g = &v->gpus[a->rank];
        sg_mutex_lock(g->mu);
        while (g->npend > 0) sg_cond_wait(g->cond, g->mu);
        sg_mutex_unlock(g->mu);
        int last = s->nphases - 1;
        if (last >= 0 && simgrid_get_clock() > v->phase_end[last]) v->phase_end[last] = simgrid_get_clock();
    }
    v->finished++;
}

static void free_ops(nv *v) {
    const ar_schedule *s = v->j->s;
    for (int ph = 0; v->ops && ph < s->nphases; ph++) {
        for (int i = 0; v->ops[ph] && i < s->phases[ph].nops; i++) {
            nv_op *o = v->ops[ph] + i;
            free(o->xf);
            free(o->out_off);
            free(o->out_idx);
            free(o->in_cnt);
            sim_members_free(&o->mem);
            free(o->mbox);
        }
        free(v->ops[ph]);
        if (v->rops) free(v->rops[ph]);
        if (v->roff) free(v->roff[ph]);
    }
    free(v->ops);
    free(v->rops);
    free(v->roff);
    free(v->base);
}

/* Per phase: op tables and, per rank, the ops it is a member of. */
static ar_status build(nv *v, ar_err *e) {
    const ar_schedule *s = v->j->s;
    int P = v->nact; /* ranks, then the switches' actors */
    v->ops = ar_calloc((size_t)s->nphases + 1, sizeof *v->ops);
    v->rops = ar_calloc((size_t)s->nphases + 1, sizeof *v->rops);
    v->roff = ar_calloc((size_t)s->nphases + 1, sizeof *v->roff);
    v->base = ar_calloc((size_t)s->nphases + 1, sizeof *v->base);
    if (!v->ops || !v->rops || !v->roff || !v->base) return ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
    ar_proto_ctx pc; /* the schedule's NCCL protocol terms, once for every phase */
    ar_proto_ctx_init(&pc, v->j->p, s);
    for (int ph = 0; ph < s->nphases; ph++) {
        const ar_phase *phase = &s->phases[ph];
        double f, step, rate;
        ar_phase_proto_effect(&pc, ph, &f, &step, &v->base[ph], &rate);
        if (ar_sg_mbox_rate(v->sg, rate) != 0) /* its comms would run unbounded: none runs */
            return ar_fail(e, AR_EBACKEND, "sim: more distinct protocol rate bounds than the simulator holds");
        v->ops[ph] = ar_calloc((size_t)phase->nops + 1, sizeof **v->ops);
        v->roff[ph] = ar_calloc((size_t)P + 1, sizeof **v->roff);
        if (!v->ops[ph] || !v->roff[ph]) return ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
        size_t tot = 0;
        for (int i = 0; i < phase->nops; i++) {
            const ar_op *op = &phase->ops[i];
            nv_op *o = &v->ops[ph][i];
            o->op = op;
            o->ph = ph;
            o->idx = i;
            o->eb = (double)s->elem_bytes / f;
            o->rate = rate;
            o->step = step;
            o->stp = ar_op_proto_step(v->j->p, op);
            o->stream = ar_op_stream_flight(v->j->p, op, o->eb);
            o->paced = ar_op_stream_paced(op, o->eb);
            o->swa = op->impl == AR_IMPL_SWITCH ? actor_of(v, AR_EP_NODE(op->sw), 0) : -1;
            o->nrounds = ar_lower_nrounds(op);
            o->gen_round = -1;
            size_t mx = ar_lower_max_xfers(op) + 1;
            o->xf = ar_calloc(mx, sizeof *o->xf);
            o->out_idx = ar_calloc(mx, sizeof *o->out_idx);
            o->out_off = ar_calloc((size_t)op->n + 3, sizeof *o->out_off);
            o->in_cnt = ar_calloc((size_t)op->n + 3, sizeof *o->in_cnt);
            o->mbox = ar_calloc((size_t)op->n + 2, sizeof *o->mbox); /* + a switch's two actors */
            if (sim_members_init(&o->mem, op) < 0 || !o->xf || !o->out_idx || !o->out_off || !o->in_cnt || !o->mbox)
                return ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
            for (int m = 0; m < op->n; m++) {
                v->roff[ph][op->members[m] + 1]++;
                char name[48];
                snprintf(name, sizeof name, "p%d.o%d.m%d", ph, i, m);
                o->mbox[m] = sg_mailbox_by_name(name);
            }
            if (o->swa >= 0) { /* the switch's two actors take part, as members n and n+1 */
                v->roff[ph][o->swa + 1]++;
                v->roff[ph][o->swa + 2]++;
                for (int m = op->n; m < op->n + 2; m++) {
                    char name[48];
                    snprintf(name, sizeof name, "p%d.o%d.m%d", ph, i, m);
                    o->mbox[m] = sg_mailbox_by_name(name);
                }
            }
            o->bar = sg_barrier_init((unsigned)op->n + (o->swa >= 0 ? 2u : 0u));
            tot += (size_t)op->n + (o->swa >= 0 ? 2 : 0);
        }
        for (int r = 0; r < P; r++) v->roff[ph][r + 1] += v->roff[ph][r];
        v->rops[ph] = ar_calloc(tot + 1, sizeof **v->rops);
        int *fill = ar_calloc((size_t)P + 1, sizeof *fill);
        if (!v->rops[ph] || !fill) {
            free(fill);
            return ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
        }
        memcpy(fill, v->roff[ph], ((size_t)P + 1) * sizeof *fill);
        for (int i = 0; i < phase->nops; i++) {
            for (int m = 0; m < phase->ops[i].n; m++) v->rops[ph][fill[phase->ops[i].members[m]]++] = i;
            int a = v->ops[ph][i].swa;
            if (a >= 0) {
                v->rops[ph][fill[a]++] = i;
                v->rops[ph][fill[a + 1]++] = i;
            }
        }
        free(fill);
    }
    return AR_OK;
}

ar_status ar_engine_naive(const sim_job *j, ar_sim_result *r, ar_err *e) {
    nv V, *v = &V;
    memset(v, 0, sizeof *v);
    v->j = j;
    double w0 = ar_now_s();
    snprintf(r->engine, sizeof r->engine, "naive");
    r->nphases = j->s->nphases;
    r->bottleneck = -1;
    r->phase_end_s = ar_calloc((size_t)j->s->nphases + 1, sizeof *r->phase_end_s);
    v->phase_end = r->phase_end_s;
    if (!v->phase_end) return ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
    double t0 = ar_now_s();
    /* one-sided sends (every op ar_op_async, under dataflow, no compute or per-message costs) flow
     * without their route latency, paid by the receiver after (fast_dataflow.c's semantics): SimGrid's
     * links then carry none (the network's sharing is unchanged: fairbottleneck weighs every flow 1) */
    v->eager = j->o->sync == AR_SYNC_DATAFLOW && (j->net_flags & SIM_NET_NAIVE_OF_ARLAB) && j->o->gamma_s_per_B <= 0 &&
               !(j->p->stage_d2h_Bps > 0) && !ar_platform_has_msg(j->p);
    int nops = 0;
    if (v->eager) v->eager = ar_schedule_async_ops(j->s, &nops) == nops && nops > 0;
    ar_status st = ar_sg_open(j->p, j->settings, j->nsettings, v->eager ? AR_SG_ARLAB_LATENCY : 0u, NULL, &v->sg, e);
    r->setup_s = ar_now_s() - t0;
    v->nact = j->p->nranks + 2 * j->p->nvlinks;
    if (st == AR_OK) st = build(v, e);
    int P = v->nact;
    nv_arg *args = NULL;
    nv_eng_arg *eargs = NULL;
    if (st == AR_OK) {
        args = ar_calloc((size_t)P, sizeof *args);
        if (!args) st = ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
    }
    if (st == AR_OK && j->o->sync == AR_SYNC_DATAFLOW) { /* compute costs */
        v->gamma = j->o->gamma_s_per_B;
        v->launch = j->p->launch_s;
        if (v->gamma > 0 || j->p->stage_d2h_Bps > 0 || ar_platform_has_msg(j->p)) {
            v->gpus = ar_calloc((size_t)P, sizeof *v->gpus);
            eargs = ar_calloc((size_t)P * NV_ENG, sizeof *eargs);
            if (!v->gpus || !eargs) st = ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
            for (int k = 0; st == AR_OK && k < P; k++) {
                v->gpus[k].mu = sg_mutex_init();
                v->gpus[k].cond = sg_cond_init();
                for (int en = 0; en < NV_ENG; en++) {
                    static const char *const nm[NV_ENG] = {"d2h", "h2d", "reduce"};
                    v->gpus[k].eng[en].sem = sg_sem_init(0);
                    eargs[k * NV_ENG + en] = (nv_eng_arg){.v = v, .rank = k, .en = en};
                    char name[32];
                    snprintf(name, sizeof name, "gpu%d.%s", k, nm[en]);
                    sg_actor_t act = sg_actor_init(name, (sg_host_t)ar_sg_host(v->sg, k));
                    sg_actor_set_stacksize(act, NAIVE_STACK_BYTES);
                    sg_actor_set_data(act, &eargs[k * NV_ENG + en]);
                    sg_actor_daemonize(act);
                    sg_actor_start(act, engine_main, 0, NULL);
                }
            }
        }
    }
    if (st == AR_OK) {
        v->all = sg_barrier_init((unsigned)P);
        char name[32];
        for (int k = 0; k < P; k++) {
            args[k] = (nv_arg){.v = v, .rank = k};
            if (k < j->p->nranks) snprintf(name, sizeof name, "gpu%d", k);
            else
                snprintf(name, sizeof name, "switch%d.%s", (k - j->p->nranks) / 2,
                         (k - j->p->nranks) % 2 ? "red" : "copy");
            sg_actor_t act = sg_actor_init(name, (sg_host_t)ar_sg_host(v->sg, k));
            sg_actor_set_stacksize(act, NAIVE_STACK_BYTES);
            sg_actor_set_data(act, &args[k]);
            sg_actor_start(act, actor_main, 0, NULL);
        }
        v->wall0 = ar_now_s();
        sim_job_ready(j);
        ar_sg_run(v->sg);
        if (v->oom) st = ar_fail(e, AR_ENOMEM, "sim naive: out of memory");
        else if (v->bad) st = ar_fail(e, AR_EINTERNAL, "sim naive: a transfer outside its op");
        else if (v->finished < P && !v->stop) /* (a budget stop under dataflow leaves partners waiting) */
            st = ar_fail(e, AR_EINTERNAL, "sim naive: SimGrid found a deadlock: %d of %d GPUs never finished %s",
                         P - v->finished, P, j->s->algo);
    }
    if (st == AR_OK) {
        r->complete = !v->stop;
        for (int ph = 1; ph < j->s->nphases; ph++) /* dataflow: a phase ends no earlier than the one before */
            if (r->phase_end_s[ph] < r->phase_end_s[ph - 1]) r->phase_end_s[ph] = r->phase_end_s[ph - 1];
        r->time_s = simgrid_get_clock();
        r->transfers = v->transfers;
        r->transfers_simgrid = v->transfers;
        r->bytes = v->bytes;
    }
    free_ops(v);
    for (int k = 0; v->gpus && k < P; k++) {
        for (size_t i = 0; i < v->gpus[k].npend; i++) free(v->gpus[k].pend[i]);
        free(v->gpus[k].pend);
        for (int en = 0; en < NV_ENG; en++) free(v->gpus[k].eng[en].q);
    }
    free(v->gpus);
    for (size_t i = 0; i < v->nmsgs; i++) free(v->msgs[i]);
    free(v->msgs);
    free(eargs);
    free(args);
    ar_sg_close(v->sg);
    r->wall_s = ar_now_s() - w0;
    r->peak_rss_kb = sim_peak_rss_kb();
    return st;
}
