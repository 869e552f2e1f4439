/* The fast engine under per-rank dataflow (--sync dataflow): every
 * transfer simulated by SimGrid, no shortcuts.
 *
 * Semantics (the same in the naive engine). Each rank advances on its own:
 *   - in an op it takes part in, a member does round r once its own transfers
 *     of rounds < r (sends and receives, the receive's reduction and the
 *     protocol's step latency included) have completed; rounds in which it has
 *     no transfer are passed at once;
 *   - a transfer of round r starts when both its sender and its receiver are
 *     at round r of that op (the sender holds the data, the receiver has
 *     posted the receive), as MPI ranks posting non-blocking sends and
 *     receives per round and waiting for their own;
 *   - one-sided ops (NCCL's LL and LL128, ar_op_async): a transfer of round r
 *     starts when its sender is at round r; the sender's end is done when its
 *     bytes are out (its flow carries no route latency: ar_sg_comm_eager), the
 *     receiver's a flight, max(route latency, step), later (df_flight); each
 *     round's window slot keeps per member its ends not yet done (need) and is
 *     freed once every member with transfers in it has completed it;
 *   - the ops of one phase run concurrently; a rank enters its next phase
 *     when its own ops of this phase are done (no barrier with other ranks:
 *     the schedule's phase barriers are data dependencies, kept per rank), and
 *     waits the phase's protocol base latency first.
 * Compute costs (sim/README.md "Compute costs"): with a reduction cost (--gamma,
 * else the platform's compute.reduce) a reduce transfer's round is done for its members when
 * its network part (and step latency) is; its reduction then runs on the receiver's GPU, one
 * at a time in arrival order (gq, gbusy), and until it ends the transfer is pending into the
 * receiver (pend): a transfer whose sender's range (or, for a copy, receiver's range) overlaps
 * a pending reduction waits (blk) and is retried when a reduction of that rank ends. A phase
 * ends with its last reduction. compute.launch: a rank's ops start launch_s after it enters
 * a phase (DF_LAUNCH). Without a reduction cost nothing of this runs.
 * The lockstep semantics (--sync round, fast.c) adds a barrier over all
 * members after every round of an op and over all ranks after every phase;
 * with those barriers removed a rank can only start earlier, never later.
 * A run that ends with a rank short of its last phase is a deadlock: an
 * error, never a row. Switch ops (a reducing switch as a transfer's end) are
 * not run here: sim.c runs such schedules lockstep and the row says so.
 *
 * phase_end_s[k]: when the last rank finished phase k (at least the previous
 * phase's end); the time of the schedule is the last of those.
 *
 * Rounds are lowered (ar_lower_round) when the first member reaches them and
 * freed when their last transfer completes; members of an op can be several
 * rounds apart, so each op keeps the window of rounds in use.
 *
 * Ownership: everything is freed before ar_engine_dataflow returns, except
 * the result's arrays (ar_sim_result_free).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "core/data.h"
#include "core/lower.h"
#include "core/util.h"
#include "engine.h"
#include "members.h"
#include "models/model.h"

#define DF_NET 0        /* token kinds (the token's top 4 bits): the transfer's network part ended */
#define DF_EXEC 1       /* its reduction (gamma) ended */
#define DF_DELAY 2      /* its protocol step latency ended */
#define DF_ENTER 3      /* a rank's phase base latency ended (index = rank) */
#define DF_START 4      /* scenario: a late rank's start delay ended (index = rank) */
#define DF_FLOW_GO 5    /* scenario: background flow i starts */
#define DF_FLOW_DONE 6  /* scenario: background flow i ended (its bytes are through) */
#define DF_LAUNCH 7     /* compute costs: a rank's op launch overhead ended (index = rank) */
#define DF_D2H 8        /* a staged transfer's device-to-host copy at its sender ended */
#define DF_H2D 9        /* its host-to-device copy at its receiver ended */
#define DF_SIDE_FREE 10 /* a rank's send (index 2 rank) or receive side (2 rank + 1) is free (gap g) */
enum { ENG_D2H, ENG_H2D, ENG_GPU, ENG_N }; /* per GPU: copy engines and the reduction stream (FIFOs) */
#define DF_TOK(kind, i) ((uint64_t)(kind) << 60 | (uint64_t)(i))

typedef struct df_round { /* one lowered round of an op */
    int r;                /* round index; -1 = free slot */
    ar_xfer *x;
    size_t n, left;  /* transfers, not yet complete */
    int *started;    /* per transfer */
    int *moff, *mix; /* member m's transfers (as sender or receiver): mix[moff[m] .. moff[m+1]) */
    int *need;       /* asynchronous op: per member, its ends of this round's transfers not yet complete */
    int mleft;       /* asynchronous op: members with transfers here that have not completed the round */
} df_round;

typedef struct df_op {
    const ar_op *op;
    int ph, nrounds;
    sim_members mem; /* rank -> member index */
    int *at;         /* per member: the round it is at (-1 before the op, nrounds when done) */
    int *pending;    /* per member: its transfers of that round not yet complete */
    df_round *win;   /* the rounds in use */
    int nwin;
    size_t capwin;
    double step;   /* its NCCL protocol's step (ar_op_proto_step) */
    double stream; /* its stream's flight (ar_op_stream_flight; -1: none) */
    int paced;     /* its stream past NCCL's FIFO (ar_op_stream_paced) */
    int async;     /* an NCCL protocol op: one-sided sends (ar_op_async) */
} df_op;

typedef struct df_xf { /* a transfer in flight */
    int op, slot;      /* df_op index, index in its round's window slot */
    size_t t;          /* index in that round */
    double t0;
    double *payload;
    ar_xfer x;  /* a copy: an overlapped reduction outlives its round's window slot */
    int refs;   /* overlapped reduction: 2 until both its network part and its reduction are done */
    int staged; /* goes through its ends' serial sides (per-message costs, host staging copies) */
    int round;  /* its round (the sides' order: push time, round, op, index) */
    double qt;  /* when it was queued on a side */
    int sent;   /* asynchronous op: its sender's end is done (the network part is through) */
    int eager;  /* asynchronous op: its flow carries no route latency; the receiver pays it after */
    int waited; /* its ready message's wait (ar_xfer_ready_wait) is over, or it has none */
} df_xf;

typedef struct df_ids { /* a growable list of transfer ids (pending reductions, the GPU's FIFO) */
    int *v;
    size_t n, head, cap;
} df_ids;

typedef struct df_blk { /* a transfer whose ends are at its round, waiting for a reduction to end */
    int op, slot;
    size_t t;
} df_blk;

typedef struct df_blks {
    df_blk *v;
    size_t n, cap;
} df_blks;

typedef struct df {
    const sim_job *j;
    const ar_platform *p;
    const ar_schedule *s;
    ar_sim_result *r;
    ar_err *e;
    ar_status st;
    ar_sg *sg;
    df_op *ops; /* all ops of all phases, phase by phase */
    int *opoff; /* ops of phase k: ops[opoff[k] .. opoff[k+1]) */
    int *rops;  /* per phase, the op indices of each rank: rops[roff[k][rank] .. roff[k][rank+1]) */
    int **roff; /* (roff[k] indexes into rops_k[k]) */
    int **rops_k;
    int *phase;               /* per rank: the phase it is in (nphases: finished) */
    int *left;                /* per rank: its ops of that phase not yet done */
    double *eb, *step, *base; /* per phase: wire bytes per element, largest step, base latency (protocol) */
    double *rate;             /* per phase: every flow's rate bound, wire bytes/s (ar_phase_proto_effect; 0: none) */
    df_xf *xf;
    size_t nxf, capxf;
    int *freexf;
    size_t nfree, capfree;
    double *data; /* --check: nranks x count */
    FILE *trace;
    int trace_first;
    double wall0;
    int stopped, finished;
    ar_dlink *route;
    size_t caproute;
    int *active; /* per directed link: transfers in flight */
    double *since;
    uint64_t *done; /* tokens reported at this instant, handled in hook_step (as the round engine does) */
    size_t ndone, capdone;
    char *flow_over; /* scenario: flow i is done or never to start */
    char *flow_on;   /* scenario: flow i runs and is counted on its links (links_count) */
    /* compute costs: gamma > 0 overlaps reductions with the next transfers */
    double gamma, launch;
    df_ids *pend;      /* per rank: transfers into it whose network part is done, data not yet landed */
    df_ids *eq[ENG_N]; /* per engine and rank: its FIFO (v[head] runs while busy) */
    int *ebusy[ENG_N];
    df_blks *blk; /* per rank: transfers waiting for one of its pending reductions */
    /* per-message costs: a side pushed while idle starts at the end of the instant (kick), taking the
     * queued message first in (push time, round, op, index) order, the cost walk's order */
    int msg;
    char *kicked[ENG_N];
    int *kick;
    size_t nkick, capkick;
} df;

static void df_fail(df *d, ar_status st, const char *msg) {
    if (d->st == AR_OK) d->st = ar_fail(d->e, st, "%s", msg);
}

static int member_of(const df_op *o, int rank) { return sim_member_of(&o->mem, rank); }

/* ---- rounds ---- */

static df_round *find_round(df_op *o, int r, int *slot) {
    for (int k = 0; k < o->nwin; k++)
        if (o->win[k].r == r) {
            *slot = k;
            return &o->win[k];
        }
    return NULL;
}

/* The lowered round r of op o (lowering it on first use); NULL when out of memory. */
static df_round *get_round(df *d, df_op *o, int r, int *slot) {
    df_round *w = find_round(o, r, slot);
    if (w) return w;
    int k = 0;
    while (k < o->nwin && o->win[k].r >= 0) k++;
    if (k == o->nwin) {
        if (ar_grow(&o->win, &o->capwin, (size_t)o->nwin + 1, sizeof *o->win) < 0) return NULL;
        memset(&o->win[o->nwin], 0, sizeof *o->win);
        o->win[o->nwin++].r = -1;
    }
    w = &o->win[k];
    size_t mx = ar_lower_max_xfers(o->op) + 1;
    free(w->x);
    free(w->started);
    free(w->moff);
    free(w->mix);
    free(w->need);
    w->need = NULL;
    w->x = ar_calloc(mx, sizeof *w->x);
    w->started = ar_calloc(mx, sizeof *w->started);
    w->moff = ar_calloc((size_t)o->op->n + 1, sizeof *w->moff);
    w->mix = ar_calloc(2 * mx, sizeof *w->mix);
    if (o->async) w->need = ar_calloc((size_t)o->op->n + 1, sizeof *w->need);
    if (!w->x || !w->started || !w->moff || !w->mix || (o->async && !w->need)) return NULL;
    w->n = w->left = ar_lower_round(o->op, r, w->x);
    for (size_t t = 0; t < w->n; t++) {
        int ms = member_of(o, w->x[t].src), md = member_of(o, w->x[t].dst);
        if (ms < 0 || md < 0) {
            df_fail(d, AR_EINTERNAL, "sim dataflow: a transfer outside its op");
            return NULL;
        }
        w->moff[ms + 1]++;
        w->moff[md + 1]++;
    }
    for (int m = 0; m < o->op->n; m++) w->moff[m + 1] += w->moff[m];
    for (size_t t = 0; t < w->n; t++) { /* fill with a moving cursor, then restore */
        w->mix[w->moff[member_of(o, w->x[t].src)]++] = (int)t;
        w->mix[w->moff[member_of(o, w->x[t].dst)]++] = (int)t;
    }
    for (int m = o->op->n; m > 0; m--) w->moff[m] = w->moff[m - 1];
    w->moff[0] = 0;
    w->mleft = 0;
    for (int m = 0; o->async && m < o->op->n; m++)
        if ((w->need[m] = w->moff[m + 1] - w->moff[m]) > 0) w->mleft++;
    w->r = r;
    *slot = k;
    return w;
}

/* ---- transfers ---- */

static void trace_event(df *d, const df_xf *f, const ar_xfer *x, double end) {
    if (!d->trace) return;
    const df_op *o = &d->ops[f->op];
    fprintf(d->trace,
            "%s{\"name\":\"%d->%d\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":0,\"tid\":%d,"
            "\"args\":{\"dst\":%d,\"bytes\":%.0f,\"phase\":%d,\"op\":%d,\"round\":%d}}",
            d->trace_first ? "\n" : ",\n", x->src, x->dst, x->reduce ? "reduce" : "copy", f->t0 * 1e6,
            (end - f->t0) * 1e6, x->src, x->dst, (double)ar_xfer_elems(x) * d->eb[o->ph], o->ph,
            f->op - d->opoff[o->ph], o->win[f->slot].r);
    d->trace_first = 0;
}

/* Counts a transfer src -> dst on the links of its route (start: +1, end: -1; busy time per link);
 * bytes are added at its start (a background flow's at its end, bg: also into link_bg_bytes). */
static void links_count(df *d, int src, int dst, double bytes, int start, int bg) {
    int n;
    if (ar_platform_route_append(d->p, src, dst, &d->route, &d->caproute, 0, &n, d->e) != AR_OK) {
        d->st = AR_EINVAL;
        return;
    }
    double now = ar_sg_now();
    for (int q = 0; q < n; q++) {
        int l = d->route[q];
        if (start) {
            if (d->active[l]++ == 0) d->since[l] = now;
            if (d->active[l] > d->r->link_max_flows[l]) d->r->link_max_flows[l] = d->active[l];
        } else if (--d->active[l] == 0) {
            d->r->link_busy_s[l] += now - d->since[l];
        }
        d->r->link_bytes[l] += bytes;
        if (bg) d->r->link_bg_bytes[l] += bytes;
    }
}

static void links_update(df *d, const ar_xfer *x, double bytes, int start) {
    links_count(d, x->src, x->dst, bytes, start, 0);
}

/* The rank whose pending reduction x must wait for: the sender's data that x sends (and, for a
 * copy, the receiver's range it overwrites) must not still be being reduced into; -1 if none. */
static int blocked_by(const df *d, const ar_xfer *x) {
    for (int side = 0; side < (x->reduce ? 1 : 2); side++) {
        int k = side ? x->dst : x->src;
        const df_ids *l = &d->pend[k];
        for (size_t i = 0; i < l->n; i++)
            if (ar_xfer_overlap(x, &d->xf[l->v[i]].x)) return k;
    }
    return -1;
}

/* The network part of transfer id (its round's window slot is live until that ends). */
static void issue_comm(df *d, size_t id) {
    df_xf *f = &d->xf[id];
    const df_op *o = &d->ops[f->op];
    const ar_xfer *x = &f->x;
    double bytes = (double)ar_xfer_elems(x) * d->eb[o->ph];
    links_update(d, x, bytes, 1);
    d->r->transfers_simgrid++;
    ar_sg_set_rate(d->sg, d->rate[o->ph]); /* known to the session since the start (ar_engine_dataflow) */
    if (o->async)                          /* one-sided: the sender waits for its bytes; the flight is the receiver's */
        f->eager = ar_sg_comm_eager(d->sg, x->src, x->dst, x->reduce, (uint64_t)llround(bytes), DF_TOK(DF_NET, id));
    else ar_sg_comm(d->sg, x->src, x->dst, x->reduce, (uint64_t)llround(bytes), DF_TOK(DF_NET, id));
}

/* What a transfer's receiver waits after its network part: its step (ar_xfer_proto_step), and the
 * route latency when its flow carried none (a one-sided send: the message's flight, ar_xfer_flight,
 * max(route latency, step) or its op's stream flight). A flow that carried its route latency (SimGrid's
 * latency) pays what the stream's flight has beyond it. (A gated transfer's ready message is waited
 * for before: handle.) */
static double df_flight(const df *d, const df_op *o, const df_xf *f, const ar_xfer *x) {
    double step = d->step[o->ph] > 0 ? o->step : 0;
    if (f->eager) return ar_xfer_flight(d->p, step, o->stream, o->paced, x->src, x->dst);
    return ar_xfer_proto_step(d->p, o->stream >= 0 ? o->stream : step, x->src, x->dst);
}

/* 1 if queued transfer a goes before b on a side: (push time, round, op, index in the round). */
static int side_before(const df_xf *a, const df_xf *b) {
    if (a->qt != b->qt) return a->qt < b->qt;
    if (a->round != b->round) return a->round < b->round;
    if (a->op != b->op) return a->op < b->op;
    return a->t < b->t;
}

static void engine_start(df *d, int en, int k) {
    df_ids *q = &d->eq[en][k];
    if (q->head == q->n) {
        d->ebusy[en][k] = 0;
        q->head = q->n = 0;
        return;
    }
    d->ebusy[en][k] = 1;
    if (d->msg && en != ENG_GPU) /* the first in the walk's order (the queue is short: a round's messages) */
        for (size_t i = q->head + 1; i < q->n; i++)
            if (side_before(&d->xf[q->v[i]], &d->xf[q->v[q->head]])) {
                int tmp = q->v[i];
                q->v[i] = q->v[q->head];
                q->v[q->head] = tmp;
            }
    int id = q->v[q->head];
    const ar_xfer *x = &d->xf[id].x;
    double bytes = (double)ar_xfer_elems(x) * (double)d->s->elem_bytes, hold;
    double t = en == ENG_GPU ? ar_platform_rank_gamma(d->p, d->gamma, k) * bytes /* a slow GPU: 1/rate */
                             : ar_platform_side_cost(d->p, x->src, x->dst, bytes, en == ENG_H2D, &hold);
    ar_sg_timer(d->sg, t, DF_TOK(en == ENG_GPU ? DF_EXEC : en == ENG_D2H ? DF_D2H : DF_H2D, (size_t)id));
}

/* The sides pushed while idle in this instant start now, each with its first message in order. */
static void kicks_run(df *d) {
    for (size_t i = 0; i < d->nkick; i++) {
        int en = d->kick[i] & 1 ? ENG_H2D : ENG_D2H, k = d->kick[i] >> 1;
        d->kicked[en][k] = 0;
        if (!d->ebusy[en][k]) engine_start(d, en, k);
    }
    d->nkick = 0;
}

/* Queues transfer id on engine en of GPU k (one job at a time, in order). */
static void engine_push(df *d, int en, int k, size_t id) {
    df_ids *q = &d->eq[en][k];
    if (ar_grow(&q->v, &q->cap, q->n + 1, sizeof *q->v) < 0) {
        df_fail(d, AR_ENOMEM, "sim: out of memory");
        return;
    }
    q->v[q->n++] = (int)id;
    if (d->msg && en != ENG_GPU) {
        d->xf[id].qt = ar_sg_now();
        if (d->ebusy[en][k] || d->kicked[en][k]) return;
        if (ar_grow(&d->kick, &d->capkick, d->nkick + 1, sizeof *d->kick) < 0) {
            df_fail(d, AR_ENOMEM, "sim: out of memory");
            return;
        }
        d->kicked[en][k] = 1;
        d->kick[d->nkick++] = k * 2 + (en == ENG_H2D);
        return;
    }
    if (!d->ebusy[en][k]) engine_start(d, en, k);
}

static void engine_done(df *d, int en, int k) {
    d->eq[en][k].head++;
    engine_start(d, en, k);
}

/* A side's message is through (its cost paid): the side stays held until max(cost, g) has passed. */
static void side_done(df *d, int en, int k, const ar_xfer *x) {
    double hold, c = ar_platform_side_cost(d->p, x->src, x->dst, (double)ar_xfer_elems(x) * (double)d->s->elem_bytes,
                                           en == ENG_H2D, &hold);
    if (hold > c) ar_sg_timer(d->sg, hold - c, DF_TOK(DF_SIDE_FREE, (size_t)k * 2 + (en == ENG_H2D)));
    else engine_done(d, en, k);
}

static void start_xfer(df *d, int oi, int slot, size_t t) {
    df_op *o = &d->ops[oi];
    df_round *w = &o->win[slot];
    const ar_xfer *x = &w->x[t];
    if (d->pend) {
        int k = blocked_by(d, x);
        if (k >= 0) { /* waits for that reduction; retried when one of k's reductions ends */
            df_blks *b = &d->blk[k];
            if (ar_grow(&b->v, &b->cap, b->n + 1, sizeof *b->v) < 0) {
                df_fail(d, AR_ENOMEM, "sim: out of memory");
                return;
            }
            b->v[b->n++] = (df_blk){oi, slot, t};
            w->started[t] = 2;
            return;
        }
    }
    w->started[t] = 1;
    size_t id;
    if (d->nfree) {
        id = (size_t)d->freexf[--d->nfree];
    } else {
        if (ar_grow(&d->xf, &d->capxf, d->nxf + 1, sizeof *d->xf) < 0 ||
            ar_grow(&d->freexf, &d->capfree, d->nxf + 1, sizeof *d->freexf) < 0) {
            df_fail(d, AR_ENOMEM, "sim: out of memory");
            return;
        }
        id = d->nxf++;
    }
    df_xf *f = &d->xf[id];
    *f = (df_xf){.op = oi, .slot = slot, .t = t, .t0 = ar_sg_now(), .x = *x, .round = w->r};
    if (d->data) { /* the sender's data as it is now */
        f->payload = malloc((ar_xfer_elems(x) + 1) * sizeof *f->payload);
        if (!f->payload) {
            df_fail(d, AR_ENOMEM, "sim --check: out of memory for payloads");
            return;
        }
        const double *b = d->data + (size_t)x->src * d->s->count;
        double *q = f->payload;
        for (int k = 0; k < x->nseg; k++) {
            memcpy(q, b + x->off[k], x->len[k] * sizeof *q);
            q += x->len[k];
        }
    }
    if (d->pend && ar_platform_sided(d->p, x->src, x->dst)) { /* its sender's side first (o, D2H copy) */
        f->staged = 1;
        engine_push(d, ENG_D2H, x->src, id);
        return;
    }
    issue_comm(d, id);
}

static void reach(df *d, int oi, int m, int r);

/* Member m of op oi has completed its round: on to the next. */
static void member_round_done(df *d, int oi, int m) {
    df_op *o = &d->ops[oi];
    reach(d, oi, m, o->at[m] + 1);
}

static void enter_phase(df *d, int rank, int ph);

/* Asynchronous op (one-sided sends): end ms (the sender: the network part is through) and/or end md
 * (the receiver: the data has arrived, its step paid) of a transfer of window slot `slot` are done
 * (-1: not that end). A member at that round with nothing left in it moves on; the slot is freed
 * once every member with transfers in it has completed it (a receiver may reach a round after all
 * of its transfers have ended: the slot must still say they were started). */
static void async_done(df *d, int oi, int slot, int ms, int md) {
    df_op *o = &d->ops[oi];
    df_round *w = &o->win[slot];
    int r = w->r, end[2] = {ms, md}, fire[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        if (end[k] >= 0 && --w->need[end[k]] == 0 && o->at[end[k]] == r) fire[k] = 1, w->mleft--;
    if (w->mleft == 0) w->r = -1;
    for (int k = 0; k < 2 && d->st == AR_OK; k++)
        if (fire[k]) member_round_done(d, oi, end[k]);
}

/* Asynchronous op: transfer id's network part is through, its sender moves on (its step, and the
 * reduction if any, are the receiver's). f is not used after: the sender's next round may grow d->xf. */
static void async_sent(df *d, size_t id) {
    df_xf *f = &d->xf[id];
    if (f->sent) return;
    f->sent = 1;
    int oi = f->op, slot = f->slot, ms = member_of(&d->ops[oi], f->x.src);
    async_done(d, oi, slot, ms, -1);
}

/* Writes the transfer's payload into its receiver (adds or copies). */
static void apply_payload(df *d, df_xf *f) {
    const ar_xfer *x = &f->x;
    if (f->payload) {
        double *b = d->data + (size_t)x->dst * d->s->count;
        const double *q = f->payload;
        for (int k = 0; k < x->nseg; k++) {
            if (x->reduce)
                for (uint64_t i = 0; i < x->len[k]; i++) b[x->off[k] + i] += q[i];
            else memcpy(b + x->off[k], q, x->len[k] * sizeof *q);
            q += x->len[k];
        }
        free(f->payload);
        f->payload = NULL;
    }
}

/* The network part (and step latency) of an overlapped reduction is done: its members move on. */
static void net_progress(df *d, size_t id) {
    df_xf *f = &d->xf[id];
    int oi = f->op, slot = f->slot;
    df_op *o = &d->ops[oi];
    df_round *w = &o->win[slot];
    ar_xfer x = f->x;
    trace_event(d, f, &x, ar_sg_now());
    d->r->transfers++;
    d->r->bytes += (double)ar_xfer_elems(&x) * d->eb[o->ph];
    int ms = member_of(o, x.src), md = member_of(o, x.dst);
    if (o->async) {
        int sent = f->sent;
        if (--f->refs == 0) d->freexf[d->nfree++] = (int)id;
        async_done(d, oi, slot, sent ? -1 : ms, md);
        return;
    }
    if (--f->refs == 0) d->freexf[d->nfree++] = (int)id;
    if (--w->left == 0) w->r = -1;
    if (--o->pending[ms] == 0) member_round_done(d, oi, ms);
    if (--o->pending[md] == 0) member_round_done(d, oi, md);
}

/* A transfer's data has landed in its receiver (after its host-to-device copy and/or its
 * reduction): transfers waiting for it are tried again. */
static void landed(df *d, size_t id) {
    df_xf *f = &d->xf[id];
    int k = f->x.dst, ph = d->ops[f->op].ph;
    apply_payload(d, f);
    double now = ar_sg_now();
    if (now > d->r->phase_end_s[ph]) d->r->phase_end_s[ph] = now;
    df_ids *l = &d->pend[k];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == (int)id) {
            l->v[i] = l->v[--l->n];
            break;
        }
    if (--f->refs == 0) d->freexf[d->nfree++] = (int)id;
    df_blks *b = &d->blk[k];
    if (!b->n) return;
    size_t n = b->n;
    df_blk *v = b->v;
    b->v = NULL;
    b->n = b->cap = 0;
    for (size_t i = 0; i < n && d->st == AR_OK; i++) {
        df_round *w = &d->ops[v[i].op].win[v[i].slot];
        w->started[v[i].t] = 0;
        start_xfer(d, v[i].op, v[i].slot, v[i].t);
    }
    free(v);
}

static void xfer_done(df *d, size_t id) {
    df_xf *f = &d->xf[id];
    int oi = f->op, slot = f->slot;
    df_op *o = &d->ops[oi];
    df_round *w = &o->win[slot];
    const ar_xfer *x = &w->x[f->t];
    double now = ar_sg_now();
    apply_payload(d, f);
    trace_event(d, f, x, now);
    d->r->transfers++;
    d->r->bytes += (double)ar_xfer_elems(x) * d->eb[o->ph];
    int ms = member_of(o, x->src), md = member_of(o, x->dst);
    d->freexf[d->nfree++] = (int)id;
    if (o->async) { /* the receiver's end (and the sender's, when its network part ended just now) */
        async_done(d, oi, slot, f->sent ? -1 : ms, md);
        return;
    }
    int last = --w->left == 0;
    if (last) w->r = -1; /* the slot is free (its arrays are reused) */
    if (--o->pending[ms] == 0) member_round_done(d, oi, ms);
    if (--o->pending[md] == 0) member_round_done(d, oi, md);
}

/* Member m of op oi reaches round r: starts its transfers whose other end is there too. */
static void reach(df *d, int oi, int m, int r) {
    df_op *o = &d->ops[oi];
    while (d->st == AR_OK) {
        o->at[m] = r;
        if (r >= o->nrounds) { /* done with this op */
            int rank = o->op->members[m];
            if (--d->left[rank] == 0) {
                int ph = o->ph;
                double now = ar_sg_now();
                if (now > d->r->phase_end_s[ph]) d->r->phase_end_s[ph] = now;
                enter_phase(d, rank, ph + 1);
            }
            return;
        }
        int slot;
        df_round *w = get_round(d, o, r, &slot);
        if (!w) {
            df_fail(d, AR_ENOMEM, "sim: out of memory");
            return;
        }
        int cnt = w->moff[m + 1] - w->moff[m];
        if (cnt == 0) { /* nothing for this member in round r */
            if (o->async ? w->mleft == 0 : w->left == 0) w->r = -1;
            r++;
            continue;
        }
        if (o->async) { /* one-sided: it starts its sends now; its receives start at their senders */
            if (d->stopped) return;
            for (int k = w->moff[m]; k < w->moff[m + 1] && d->st == AR_OK; k++) {
                size_t t = (size_t)w->mix[k];
                if (!w->started[t] && w->x[t].src == o->op->members[m]) start_xfer(d, oi, slot, t);
                w = &o->win[slot];
            }
            if (w->need[m] > 0) return;
            if (--w->mleft == 0) w->r = -1; /* all of its ends already done (it was behind) */
            r++;
            continue;
        }
        o->pending[m] = cnt;
        if (d->stopped) return;
        for (int k = w->moff[m]; k < w->moff[m + 1]; k++) {
            size_t t = (size_t)w->mix[k];
            if (w->started[t]) continue;
            const ar_xfer *x = &w->x[t];
            int other = member_of(o, x->src) == m ? member_of(o, x->dst) : member_of(o, x->src);
            if (o->at[other] == r) start_xfer(d, oi, slot, t);
            w = &o->win[slot]; /* start_xfer does not move the window, but keep it honest */
        }
        return;
    }
}

/* ---- scenario: late starts and background flows (nothing else in this file knows them) ---- */

/* Rank rk's start: phase 0 now, or after its scenario delay (a SimGrid timer). */
static void start_rank(df *d, int rk) {
    const double *dl = d->j->o->rank_delay_s;
    if (dl && dl[rk] > 0) ar_sg_timer(d->sg, dl[rk], DF_TOK(DF_START, rk));
    else enter_phase(d, rk, 0);
}

/* A timer for every flow's start. */
static void flows_begin(df *d) {
    const ar_sim_opts *o = d->j->o;
    if (!o->nflows) return;
    d->flow_over = ar_calloc((size_t)o->nflows, 1);
    d->flow_on = ar_calloc((size_t)o->nflows, 1);
    if (!d->flow_over || !d->flow_on) {
        df_fail(d, AR_ENOMEM, "sim: out of memory");
        return;
    }
    for (int i = 0; i < o->nflows; i++) ar_sg_timer(d->sg, o->flows[i].start_s, DF_TOK(DF_FLOW_GO, i));
}

/* Flow i leaves the link statistics with `bytes` carried (its end, or the collective's). The link
 * statistics are the network's, not only the schedule's: a flow that shares a link loads it, and the
 * bottleneck is chosen on the total (link_bg_bytes keeps the flows' part apart). */
static void flow_off(df *d, size_t i, double bytes) {
    if (!d->flow_on[i]) return;
    d->flow_on[i] = 0;
    const ar_bgflow *f = &d->j->o->flows[i];
    links_count(d, f->src, f->dst, bytes, 0, 1);
    d->r->bg_bytes += bytes;
}

/* The collective is over: flows not started yet never start (running ones finish in SimGrid after
 * the collective's end, which they no longer affect: SimGrid 3.32 cannot cancel them); running ones
 * are counted with the bytes they carried until now. */
static void flows_end(df *d) {
    for (int i = 0; d->flow_over && i < d->j->o->nflows; i++) {
        if (!d->flow_over[i]) flow_off(d, (size_t)i, ar_sg_flow_sent(d->sg, i));
        d->flow_over[i] = 1;
    }
}

static void scenario_event(df *d, int kind, size_t i) {
    if (kind == DF_START) {
        enter_phase(d, (int)i, 0);
        return;
    }
    if (!d->flow_over || d->flow_over[i]) return;
    const ar_bgflow *f = &d->j->o->flows[i];
    if (kind == DF_FLOW_GO) { /* a stop carries rate*(stop-start) bytes; neither: 2^62 bytes, for ever here */
        double b = f->bytes > 0 ? f->bytes : 0x1p62;
        if (isfinite(f->stop_s) && f->rate_Bps > 0) b = fmin(b, f->rate_Bps * (f->stop_s - f->start_s));
        ar_sg_flow(d->sg, (int)i, (uint64_t)fmax(1, llround(b)), DF_TOK(DF_FLOW_DONE, i));
        d->flow_on[i] = 1; /* in flight from now, as a transfer is from its ar_sg_comm */
        links_count(d, f->src, f->dst, 0, 1, 1);
        return;
    }
    flow_off(d, i, ar_sg_flow_sent(d->sg, (int)i)); /* its bytes are through */
    d->flow_over[i] = 1;
}

/* Rank enters phase ph (after its base latency), skipping phases without its ops. */
static void enter_now(df *d, int rank, int ph) {
    int nph = d->s->nphases;
    while (ph < nph && d->roff[ph][rank + 1] == d->roff[ph][rank]) ph++;
    d->phase[rank] = ph;
    if (ph >= nph) {
        if (++d->finished == d->s->nranks) flows_end(d);
        return;
    }
    int k0 = d->roff[ph][rank], k1 = d->roff[ph][rank + 1];
    d->left[rank] = k1 - k0;
    if (d->launch > 0 && !d->stopped) { /* its ops launch (concurrently), then start */
        ar_sg_timer(d->sg, d->launch, DF_TOK(DF_LAUNCH, rank));
        return;
    }
    for (int k = k0; k < k1 && d->st == AR_OK; k++) {
        int oi = d->rops_k[ph][k];
        reach(d, oi, member_of(&d->ops[oi], rank), 0);
    }
}

static void enter_phase(df *d, int rank, int ph) {
    int nph = d->s->nphases;
    while (ph < nph && d->roff[ph][rank + 1] == d->roff[ph][rank]) ph++;
    if (ph < nph && d->base[ph] > 0 && !d->stopped) {
        d->phase[rank] = ph;
        ar_sg_timer(d->sg, d->base[ph], DF_TOK(DF_ENTER, rank));
        return;
    }
    enter_now(d, rank, ph);
}

/* ---- SimGrid callbacks ---- */

/* One completion (kind in the token's top bits), once every completion of this instant is known. */
static void handle(df *d, uint64_t tok) {
    int kind = (int)(tok >> 60);
    size_t i = (size_t)(tok & ((UINT64_C(1) << 60) - 1));
    if (!d->stopped && d->j->o->budget_s > 0 && ar_now_s() - d->wall0 > d->j->o->budget_s) d->stopped = 1;
    if (kind == DF_START || kind == DF_FLOW_GO || kind == DF_FLOW_DONE) {
        scenario_event(d, kind, i);
        return;
    }
    if (kind == DF_ENTER) {
        enter_now(d, (int)i, d->phase[i]);
        return;
    }
    if (kind == DF_LAUNCH) {
        int ph = d->phase[i];
        for (int k = d->roff[ph][i]; k < d->roff[ph][i + 1] && d->st == AR_OK; k++) {
            int oi = d->rops_k[ph][k];
            reach(d, oi, member_of(&d->ops[oi], (int)i), 0);
        }
        return;
    }
    if (kind == DF_SIDE_FREE) { /* the gap after a message has passed */
        engine_done(d, i & 1 ? ENG_H2D : ENG_D2H, (int)(i >> 1));
        return;
    }
    df_xf *f = &d->xf[i];
    df_op *o = &d->ops[f->op];
    const ar_xfer *x = &f->x;
    if (kind == DF_D2H) { /* the sender's side is done (o, copy to host memory); the network part now */
        side_done(d, ENG_D2H, x->src, x);
        issue_comm(d, i);
        return;
    }
    if (kind == DF_H2D) { /* the receiver's side is done (o, copy to GPU memory); then its reduction, if any */
        int k = x->dst, red = x->reduce && d->gamma > 0;
        side_done(d, ENG_H2D, k, x);
        if (red) engine_push(d, ENG_GPU, k, i);
        else landed(d, i);
        return;
    }
    if (d->pend && kind == DF_EXEC && f->refs > 0) { /* an overlapped reduction ended */
        engine_done(d, ENG_GPU, x->dst);
        landed(d, i);
        return;
    }
    if (d->pend && kind == DF_DELAY && f->refs > 0) {
        net_progress(d, i);
        return;
    }
    if (kind == DF_NET && !f->waited && d->p->msg_ready) {
        /* a gated transfer's ready message: the walk's ar_xfer_ready_wait, after the network part and
         * before what follows the data (the receiver's side, its reduction, the round's end) */
        f->waited = 1;
        double wt = ar_xfer_ready_wait(d->p, d->s, o->ph, f->op - d->opoff[o->ph], f->round, x->src, x->dst);
        if (wt > 0) {
            ar_sg_timer(d->sg, wt, DF_TOK(DF_NET, i));
            return;
        }
    }
    int async = o->async;
    if (kind == DF_NET && d->pend && (f->staged || (x->reduce && d->gamma > 0))) {
        /* overlap: the copy to GPU memory and/or the reduction on the receiver's FIFOs; move on now */
        links_update(d, x, 0, 0);
        df_ids *l = &d->pend[x->dst];
        if (ar_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v) < 0) {
            df_fail(d, AR_ENOMEM, "sim: out of memory");
            return;
        }
        f->refs = 2;
        l->v[l->n++] = (int)i;
        engine_push(d, f->staged ? ENG_H2D : ENG_GPU, x->dst, i);
        double step = df_flight(d, o, f, x);
        if (step > 0) {
            ar_sg_timer(d->sg, step, DF_TOK(DF_DELAY, i));
            if (async) async_sent(d, i);
        } else {
            net_progress(d, i);
        }
        return;
    }
    x = &o->win[f->slot].x[f->t];
    if (kind == DF_NET) {
        links_update(d, x, 0, 0);
        if (d->j->o->gamma_s_per_B > 0 && x->reduce) {
            ar_sg_exec(d->sg, x->dst,
                       ar_platform_rank_gamma(d->p, d->j->o->gamma_s_per_B, x->dst) * (double)ar_xfer_elems(x) *
                           (double)d->s->elem_bytes,
                       DF_TOK(DF_EXEC, i));
            if (async) async_sent(d, i);
            return;
        }
        kind = DF_EXEC;
    }
    double step = kind == DF_EXEC ? df_flight(d, o, f, x) : 0;
    if (step > 0) { /* its own step (the walk's ar_xfer_proto_step), its flight when one-sided */
        ar_sg_timer(d->sg, step, DF_TOK(DF_DELAY, i));
        if (async) async_sent(d, i);
        return;
    }
    xfer_done(d, i);
}

static void hook_done(void *ctx, uint64_t tok) {
    df *d = ctx;
    if (d->st != AR_OK) return;
    if (ar_grow(&d->done, &d->capdone, d->ndone + 1, sizeof *d->done) < 0) {
        df_fail(d, AR_ENOMEM, "sim: out of memory");
        return;
    }
    d->done[d->ndone++] = tok;
}

static void hook_step(void *ctx) {
    df *d = ctx;
    for (size_t k = 0; k < d->ndone && d->st == AR_OK; k++) handle(d, d->done[k]);
    d->ndone = 0;
    if (d->st == AR_OK) kicks_run(d);
}

/* ---- setup ---- */

static ar_status build(df *d) {
    const ar_schedule *s = d->s;
    int P = s->nranks, nph = s->nphases;
    d->opoff = ar_calloc((size_t)nph + 1, sizeof *d->opoff);
    d->roff = ar_calloc((size_t)nph + 1, sizeof *d->roff);
    d->rops_k = ar_calloc((size_t)nph + 1, sizeof *d->rops_k);
    d->eb = ar_calloc((size_t)nph + 1, sizeof *d->eb);
    d->step = ar_calloc((size_t)nph + 1, sizeof *d->step);
    d->base = ar_calloc((size_t)nph + 1, sizeof *d->base);
    d->rate = ar_calloc((size_t)nph + 1, sizeof *d->rate);
    d->phase = ar_calloc((size_t)P, sizeof *d->phase);
    d->left = ar_calloc((size_t)P, sizeof *d->left);
    if (!d->opoff || !d->roff || !d->rops_k || !d->eb || !d->step || !d->base || !d->rate || !d->phase || !d->left)
        return ar_fail(d->e, AR_ENOMEM, "sim: out of memory");
    int nops = 0;
    for (int ph = 0; ph < nph; ph++) {
        d->opoff[ph] = nops;
        nops += s->phases[ph].nops;
    }
    d->opoff[nph] = nops;
    d->ops = ar_calloc((size_t)nops + 1, sizeof *d->ops);
    if (!d->ops) return ar_fail(d->e, AR_ENOMEM, "sim: out of memory");
    ar_proto_ctx pc; /* the schedule's NCCL protocol terms, once for every phase */
    ar_proto_ctx_init(&pc, d->p, s);
    for (int ph = 0; ph < nph; ph++) {
        const ar_phase *phase = &s->phases[ph];
        double f;
        ar_phase_proto_effect(&pc, ph, &f, &d->step[ph], &d->base[ph], &d->rate[ph]);
        d->eb[ph] = (double)s->elem_bytes / f;
        d->roff[ph] = ar_calloc((size_t)P + 1, sizeof **d->roff);
        if (!d->roff[ph]) return ar_fail(d->e, AR_ENOMEM, "sim: out of memory");
        size_t tot = 0;
        for (int i = 0; i < phase->nops; i++) {
            const ar_op *op = &phase->ops[i];
            df_op *o = &d->ops[d->opoff[ph] + i];
            o->op = op;
            o->ph = ph;
            o->nrounds = ar_lower_nrounds(op);
            o->step = ar_op_proto_step(d->p, op);
            o->stream = ar_op_stream_flight(d->p, op, d->eb[ph]);
            o->paced = ar_op_stream_paced(op, d->eb[ph]);
            o->async = ar_op_async(op);
            o->at = malloc((size_t)op->n * sizeof *o->at);
            o->pending = ar_calloc((size_t)op->n, sizeof *o->pending);
            if (sim_members_init(&o->mem, op) < 0 || !o->at || !o->pending)
                return ar_fail(d->e, AR_ENOMEM, "sim: out of memory");
            for (int m = 0; m < op->n; m++) {
                o->at[m] = -1;
                d->roff[ph][op->members[m] + 1]++;
            }
            tot += (size_t)op->n;
        }
        for (int rk = 0; rk < P; rk++) d->roff[ph][rk + 1] += d->roff[ph][rk];
        d->rops_k[ph] = ar_calloc(tot + 1, sizeof **d->rops_k);
        int *fill = ar_calloc((size_t)P + 1, sizeof *fill);
        if (!d->rops_k[ph] || !fill) {
            free(fill);
            return ar_fail(d->e, AR_ENOMEM, "sim: out of memory");
        }
        memcpy(fill, d->roff[ph], ((size_t)P + 1) * sizeof *fill);
        for (int i = 0; i < phase->nops; i++)
            for (int m = 0; m < phase->ops[i].n; m++)
                d->rops_k[ph][fill[phase->ops[i].members[m]]++] = d->opoff[ph] + i;
        free(fill);
    }
    return AR_OK;
}

static void df_free(df *d) {
    int nph = d->s->nphases;
    for (int k = 0; d->ops && k < (d->opoff ? d->opoff[nph] : 0); k++) {
        df_op *o = &d->ops[k];
        for (int w = 0; w < o->nwin; w++) {
            free(o->win[w].x);
            free(o->win[w].started);
            free(o->win[w].moff);
            free(o->win[w].mix);
            free(o->win[w].need);
        }
        free(o->win);
        sim_members_free(&o->mem);
        free(o->at);
        free(o->pending);
    }
    for (int ph = 0; ph < nph; ph++) {
        if (d->roff) free(d->roff[ph]);
        if (d->rops_k) free(d->rops_k[ph]);
    }
    for (size_t i = 0; i < d->nxf; i++) free(d->xf[i].payload);
    for (int k = 0; k < d->s->nranks; k++) {
        if (d->pend) free(d->pend[k].v);
        for (int en = 0; en < ENG_N; en++)
            if (d->eq[en]) free(d->eq[en][k].v);
        if (d->blk) free(d->blk[k].v);
    }
    free(d->pend);
    for (int en = 0; en < ENG_N; en++) {
        free(d->eq[en]);
        free(d->ebusy[en]);
    }
    free(d->blk);
    for (int en = 0; en < ENG_N; en++) free(d->kicked[en]);
    free(d->kick);
    void *arrs[] = {d->ops,    d->opoff, d->roff, d->rops_k,    d->eb,     d->step, d->base,
                    d->rate,   d->phase, d->left, d->xf,        d->freexf, d->data, d->route,
                    d->active, d->since, d->done, d->flow_over, d->flow_on};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
}

/* The rank and op a deadlocked rank waits in (for the message). */
static void describe_wait(const df *d, char *buf, size_t n) {
    for (int rk = 0; rk < d->s->nranks; rk++) {
        int ph = d->phase[rk];
        if (ph >= d->s->nphases) continue;
        for (int k = d->roff[ph][rk]; k < d->roff[ph][rk + 1]; k++) {
            const df_op *o = &d->ops[d->rops_k[ph][k]];
            int m = member_of(o, rk);
            if (o->at[m] < o->nrounds) {
                snprintf(buf, n, "rank %d waits in phase %d, op %d, round %d of %d", rk, ph,
                         d->rops_k[ph][k] - d->opoff[ph], o->at[m], o->nrounds);
                return;
            }
        }
    }
    snprintf(buf, n, "no rank found waiting");
}

ar_status ar_engine_dataflow(const sim_job *j, ar_sim_result *r, ar_err *e) {
    df D, *d = &D;
    memset(d, 0, sizeof *d);
    d->j = j;
    d->p = j->p;
    d->s = j->s;
    d->r = r;
    d->e = e;
    double w0 = ar_now_s();
    snprintf(r->engine, sizeof r->engine, "fast");
    r->nphases = j->s->nphases;
    r->ndlinks = 2 * (j->p->nlinks + j->p->nvlinks); /* (sim.c sends switch schedules to the lockstep engine) */
    r->bottleneck = -1;
    r->phase_end_s = ar_calloc((size_t)j->s->nphases + 1, sizeof *r->phase_end_s);
    r->link_bytes = ar_calloc((size_t)r->ndlinks + 1, sizeof *r->link_bytes);
    r->link_busy_s = ar_calloc((size_t)r->ndlinks + 1, sizeof *r->link_busy_s);
    r->link_max_flows = ar_calloc((size_t)r->ndlinks + 1, sizeof *r->link_max_flows);
    d->active = ar_calloc((size_t)r->ndlinks + 1, sizeof *d->active);
    d->since = ar_calloc((size_t)r->ndlinks + 1, sizeof *d->since);
    if (j->o->nflows) r->link_bg_bytes = ar_calloc((size_t)r->ndlinks + 1, sizeof *r->link_bg_bytes);
    ar_status st = AR_OK;
    if (!r->phase_end_s || !r->link_bytes || !r->link_busy_s || !r->link_max_flows || !d->active || !d->since ||
        (j->o->nflows && !r->link_bg_bytes))
        st = ar_fail(e, AR_ENOMEM, "sim: out of memory");
    if (st == AR_OK) st = build(d);
    /* compute costs: --gamma, else the platform's reduction rate; its launch overhead */
    d->gamma = j->o->gamma_s_per_B > 0 ? j->o->gamma_s_per_B : j->p->reduce_Bps > 0 ? 1.0 / j->p->reduce_Bps : 0;
    d->launch = j->p->launch_s;
    d->msg = ar_platform_has_msg(j->p);
    if (st == AR_OK && (d->gamma > 0 || j->p->stage_d2h_Bps > 0 || d->msg)) {
        int P = j->s->nranks;
        d->pend = ar_calloc((size_t)P + 1, sizeof *d->pend);
        d->blk = ar_calloc((size_t)P + 1, sizeof *d->blk);
        int ok = d->pend && d->blk;
        for (int en = 0; en < ENG_N; en++) {
            d->eq[en] = ar_calloc((size_t)P + 1, sizeof *d->eq[en]);
            d->ebusy[en] = ar_calloc((size_t)P + 1, sizeof *d->ebusy[en]);
            d->kicked[en] = ar_calloc((size_t)P + 1, 1);
            ok = ok && d->eq[en] && d->ebusy[en] && d->kicked[en];
        }
        if (!ok) st = ar_fail(e, AR_ENOMEM, "sim: out of memory");
    }
    if (st == AR_OK && j->o->check) {
        uint64_t lim = j->o->check_max_bytes ? j->o->check_max_bytes : UINT64_C(1) << 30;
        if ((uint64_t)j->s->nranks > lim / 8 / j->s->count)
            st = ar_fail(e, AR_ELIMIT, "sim --check: %d ranks x %llu elements need more than the %llu-byte limit",
                         j->s->nranks, (unsigned long long)j->s->count, (unsigned long long)lim);
        else if (!(d->data = ar_reallocarray(NULL, (size_t)j->s->nranks * (size_t)j->s->count, sizeof *d->data)))
            st = ar_fail(e, AR_ENOMEM, "sim --check: out of memory");
        for (int rk = 0; st == AR_OK && rk < j->s->nranks; rk++)
            ar_data_fill(d->data + (size_t)rk * j->s->count, rk, j->s->count);
    }
    if (st == AR_OK && j->o->trace_path) {
        d->trace = fopen(j->o->trace_path, "w");
        if (!d->trace) st = ar_fail(e, AR_EIO, "sim --trace: cannot write \"%s\"", j->o->trace_path);
        else {
            fprintf(d->trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
            d->trace_first = 1;
        }
    }
    double t0 = ar_now_s();
    ar_sg_hooks hooks = {.ctx = d, .done = hook_done, .step = hook_step};
    if (st == AR_OK)
        st = ar_sg_open_flows(j->p, j->settings, j->nsettings, sg_flags(j), &hooks, j->o->flows, j->o->nflows, &d->sg,
                              e);
    for (int ph = 0; st == AR_OK && ph < j->s->nphases; ph++) /* every phase's rate bound, once */
        if (ar_sg_set_rate(d->sg, d->rate[ph]) != 0)
            st = ar_fail(e, AR_EBACKEND, "sim: more distinct protocol rate bounds than the simulator holds");
    r->setup_s = ar_now_s() - t0;
    d->wall0 = ar_now_s();
    sim_job_ready(j);
    if (st == AR_OK) {
        flows_begin(d);
        for (int rk = 0; rk < j->s->nranks && d->st == AR_OK; rk++) start_rank(d, rk);
        if (d->st == AR_OK) kicks_run(d);
        if (d->st == AR_OK) ar_sg_run(d->sg);
        st = d->st;
        if (st == AR_OK && d->finished < j->s->nranks && !d->stopped) {
            char why[160];
            describe_wait(d, why, sizeof why);
            st = ar_fail(e, AR_EINTERNAL, "sim dataflow: deadlock in %s: %d of %d ranks never finished (%s)",
                         j->s->algo, j->s->nranks - d->finished, j->s->nranks, why);
        }
    }
    if (st == AR_OK) {
        r->complete = !d->stopped;
        for (int ph = 1; ph < j->s->nphases && !j->o->independent_phases; ph++)
            if (r->phase_end_s[ph] < r->phase_end_s[ph - 1]) r->phase_end_s[ph] = r->phase_end_s[ph - 1];
        r->time_s = d->stopped ? ar_sg_now() : (j->s->nphases ? r->phase_end_s[j->s->nphases - 1] : 0);
        for (int ph = 0; ph < j->s->nphases && j->o->independent_phases && !d->stopped; ph++) /* scenario jobs */
            if (r->phase_end_s[ph] > r->time_s) r->time_s = r->phase_end_s[ph];
        for (int rk = 0; d->data && r->complete && rk < j->s->nranks && st == AR_OK; rk++) {
            const double *b = d->data + (size_t)rk * j->s->count;
            uint64_t x = ar_data_first_wrong(b, j->s->nranks, j->s->count);
            if (x < j->s->count)
                st = ar_fail(e, AR_EFAIL, "sim --check: %s: rank %d element %llu holds %.17g, exact sum is %.17g",
                             j->s->algo, rk, (unsigned long long)x, b[x], ar_data_expected(j->s->nranks, x));
        }
        sim_pick_bottleneck(j->p, r);
    }
    if (d->trace) {
        fprintf(d->trace, "\n]}\n");
        if (fclose(d->trace) != 0 && (st == AR_OK || st == AR_EFAIL))
            st = ar_fail(e, AR_EIO, "sim --trace: error writing \"%s\"", j->o->trace_path);
    }
    ar_sg_close(d->sg);
    df_free(d);
    r->wall_s = ar_now_s() - w0;
    r->peak_rss_kb = sim_peak_rss_kb();
    return st;
}
