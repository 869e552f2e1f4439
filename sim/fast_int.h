/* Private to the fast engine (fast*.c): its state and the functions its
 * files share. fast.c has the design (file comment) and the driver;
 * fast_batch.c resources, op groups and batches (repeat and component
 * shortcuts); fast_flow.c transfers simulated by SimGrid, probes, data and
 * trace; fast_memo.c the component memo.
 *
 * Ownership: every array below is allocated (ar_grow) and freed by the engine
 * (eng_free in fast.c); the result's arrays belong to the caller.
 */
#ifndef AR_SIM_ENGINE_INT_H
#define AR_SIM_ENGINE_INT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "core/lower.h"
#include "core/util.h"
#include "engine.h"
#include "models/model.h"

#define TOK_FULL (UINT64_C(1) << 60)
#define TOK_PROBE (UINT64_C(2) << 60)
#define TOK_EXEC (UINT64_C(1) << 59)
#define TOK_DELAY (UINT64_C(1) << 58) /* a protocol's per-step latency after a transfer (ar_sg_timer) */
/* per-message costs (SimGrid mode): a transfer's side cost paid at its sender (TOK_SEND) or receiver
 * (TOK_RECV), or a side's gap over (TOK_SIDE_FREE, index: side and its generation, eng_side) */
#define TOK_SIDES (UINT64_C(3) << 60)
#define TOK_SEND (UINT64_C(0) << 58)
#define TOK_RECV (UINT64_C(1) << 58)
#define TOK_SIDE_FREE (UINT64_C(2) << 58)
#define TOK_INDEX(t) ((t) & ((UINT64_C(1) << 58) - 1))
#define MEMO_LIMIT_BYTES ((size_t)256 << 20)

/* A growable array: the pointer and its capacity (GROW below). */
#define ARR(type, name) \
    type *name;         \
    size_t name##_cap
/* Grows g->arr (a field path such as b.x) to hold need elements; -1 on failure.
 * The capacity test is inline: GROW sits in per-transfer loops. */
#define GROW(arr, need) ((size_t)(need) <= g->arr##_cap ? 0 : ar_grow(&g->arr, &g->arr##_cap, (need), sizeof *g->arr))
#define OOM() ar_fail(g->e, AR_ENOMEM, "sim: out of memory")

static inline uint64_t eng_mix64(uint64_t h, uint64_t v) {
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xff51afd7ed558ccd);
    return h ^ (h >> 33);
}

static inline uint64_t eng_dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- memo: component key -> per-transfer (network, total) durations ---- */

typedef struct memo_ent {
    uint64_t hash;
    size_t key_off, val_off;
    uint32_t key_len; /* 0 = empty slot */
} memo_ent;

typedef struct memo {
    memo_ent *tab; /* open addressing, cap a power of two */
    size_t cap, n;
    ARR(uint64_t, keys);
    size_t nkeys;
    ARR(double, vals);
    size_t nvals;
} memo;

const memo_ent *eng_memo_find(const memo *m, uint64_t h, const uint64_t *key, uint32_t len);
void eng_memo_clear(memo *m);
int eng_memo_insert(memo *m, uint64_t h, const uint64_t *key, uint32_t len, const double *vals, size_t nv);
size_t eng_memo_bytes(const memo *m);
void eng_memo_free(memo *m);

/* ---- engine state, grouped by concern ---- */

typedef struct opst {
    const ar_op *op;
    int nrounds, round; /* next round to run */
    int pending;        /* transfers of the current round in flight (SimGrid mode) */
    int ready;          /* on the ready list */
    double step;        /* its NCCL protocol's step (ar_op_proto_step) */
} opst;

typedef struct frec { /* a transfer simulated by SimGrid in the run itself */
    ar_xfer x;
    int opi, round;
    double t0, tnet;
    double *payload;
    int sided;    /* pays per-message costs at both ends (ar_platform_msg) */
    double qt;    /* when it was queued on its current side */
    uint64_t seq; /* start order (a side takes the first queued in (qt, op, seq) order) */
} frec;

typedef struct s1rec {
    int slot, src, dst, reduce;
    uint64_t elems;
} s1rec;

enum mode { M_IDLE, M_PROBE, M_FULL, M_DONE };

/* The current phase: its ops and their groups (ops of group k are
 * gops[goff[k] .. goff[k+1]); uf is the union-find over ops). */
typedef struct eng_phase {
    int phase;
    double t0, tmax;
    double step; /* the ops' protocol: the largest step (ar_phase_proto_effect); 0: no transfer pays one */
    ARR(opst, ops);
    int ngroups, group;
    ARR(int, gops);
    ARR(int, goff);
    ARR(int, uf);
} eng_phase;

/* Per-resource scratch, valid where the stamp matches, and shared buffers. */
typedef struct eng_scratch {
    uint32_t stamp;
    uint32_t *own_stamp, *loc_stamp;
    int *own, *loc_id;
    ARR(int, res);      /* resources of the batch's transfers (routes first); reused by groups and SimGrid mode */
    ARR(int, cidx);     /* number of each union-find root */
    ARR(ar_xfer, xbuf); /* one op round */
    ARR(double, stage); /* payloads and probe durations */
} eng_scratch;

/* The batch: transfers, op slot of each, ops of the slots; resources of
 * transfer t are sc.res[roff[t] .. roff[t+1]), the first nfwd[t] its route. */
typedef struct eng_batch {
    size_t n;
    ARR(ar_xfer, x);
    ARR(int, slot);
    int nslots;
    ARR(int, slot_op);
    ARR(int, roff);
    ARR(int, nfwd);
} eng_batch;

/* Components of the batch (transfers corder[cstart[c] .. cstart[c+1]) in batch
 * order), their keys and durations. The last analysed batch (an): the same
 * transfers but for their sizes means the same routes, components and keys but
 * for the size words (at ksz[t]). */
typedef struct eng_comp {
    ARR(int, fpar);
    ARR(int, corder);
    ARR(int, cstart);
    int ncomp;
    ARR(uint64_t, keys);
    size_t nkeys;
    ARR(size_t, koff);
    ARR(uint32_t, klen);
    ARR(uint64_t, hash);
    ARR(const double *, val);
    ARR(double, dnet);
    ARR(double, dtot);
    ARR(double, opend);
    int an_valid;
    size_t an_n;
    ARR(s1rec, an);
    ARR(size_t, ksz);
} eng_comp;

/* The previous shortcut batch (repeat shortcut) and its link statistics. */
typedef struct eng_repeat {
    int valid;
    ARR(s1rec, rec);
    size_t n;
    int nslots;
    ARR(double, opend);
    double tend;
    ARR(double, dnet);
    ARR(double, dtot);
    ARR(int, dl);
    ARR(double, bytes);
    ARR(double, busy);
    ARR(int, cnt);
    size_t nd;
} eng_repeat;

/* Per-batch link busy times (indexed by directed link; valid where stamped). */
typedef struct eng_busy {
    double *t;
    int *count; /* transfers of the batch crossing each touched link */
    uint32_t *stamp;
    ARR(int, touched);
    size_t ntouched;
} eng_busy;

/* Transfers simulated by SimGrid: records in a growable array with a stack of
 * free indices (a record's index is its token). */
typedef struct eng_full {
    ARR(frec, fr);
    size_t nfr;
    ARR(int, freeidx);
    size_t nfree;
    size_t inflight;
    ARR(int, readyq);
    size_t nready;
    int *active; /* transfers in flight per directed link */
    double *since;
} eng_full;

/* Per-message costs (LogGP o, g; platform.h msg_o_s, msg_g_s): every rank has a send side
 * (side 2 rank) and a receive side (2 rank + 1), each a serial resource that takes one message at
 * a time for o and stays held for max(o, g). In SimGrid mode a side takes its queued messages in
 * (queue time, op, start order) order; the sides pushed while idle start at the end of the instant
 * (kick), so that every message queued in that instant is ordered. At an idle instant (nothing in
 * flight: a lockstep round's start) every side is free: a gap still running is dropped (gen). */
typedef struct eng_side {
    int **q; /* per side: queued frec ids, q[s][head[s] .. n[s]) */
    size_t *n, *head, *cap;
    char *busy, *kicked;
    uint32_t *gen; /* a side-free timer of an older generation is stale (26 bits) */
    size_t nsides;
    ARR(int, kick);
    size_t nkick;
    double o, hold; /* the side cost of a message (o) and how long it holds its side (max(o, g)) */
    double orecv;   /* a receive side's cost: o, or 0 for pipelined receives (platform.h msg_piped) */
    uint64_t seq;
    double *sfree;           /* probes: per rank, when its send (then receive) side is free */
    struct eng_arrival *arr; /* probes: the transfers in arrival order */
    size_t arr_cap;
} eng_side;

/* Probes: transfers of the distinct unknown components, in key order. */
typedef struct eng_probe {
    size_t n;
    ARR(int, src);
    ARR(int, dst);
    ARR(int, red);
    ARR(uint64_t, bytes);
    ARR(double, net);
    ARR(double, tot);
    ARR(double, inj);  /* per-message costs: when each transfer leaves its sender's side */
    ARR(double, land); /* and when it has passed its receiver's side (after its network part) */
    int stage;         /* per-message costs with a reduction cost: 0 network parts, 1 reductions */
    size_t pending;
    double t0, t1;  /* probe start; its reductions' start (stage 1) */
    ARR(int, miss); /* component of each distinct unknown key */
    size_t nmiss;
    ARR(size_t, first); /* first probe transfer of each */
} eng_probe;

/* --check data and the trace. */
typedef struct eng_io {
    double *data; /* rank r's buffer is data[r*count ...] */
    FILE *trace;
    int trace_first;
} eng_io;

/* The dataflow certificate (fast_dataflow_cert.c). */
typedef struct eng_cert {
    int on, differs;
    int *roff, *fill; /* CSR over ranks of the current phase's (op, member) pairs */
    int *rop;         /* op index of each pair */
    size_t caprop;
    double *ready; /* per pair: end of the member's transfers in the op so far (-1: none yet) */
    size_t capready;
    double *entry, *done; /* per rank: phase entry; end of its last transfer */
    /* the dataflow run itself once it leaves the lockstep run (fast_dataflow_cert.c, "Diverged") */
    int diverged;        /* a transfer starts earlier under dataflow: the times below are the result */
    int solo_bad;        /* a transfer ran in SimGrid: no diverged run can be derived */
    double *lend;        /* per directed link: when its last transfer's network part ends */
    double *pend;        /* per phase: when its last rank finished it */
    ARR(double, dstart); /* per transfer of the batch: its dataflow start */
    ARR(int, kslot);     /* per transfer of the batch: its sender's and receiver's (rank, op) pairs */
    ARR(double, lo);     /* per component (indexed by its root transfer): earliest and latest start */
    ARR(double, hi);
    /* a repeated batch, diverged: the ends of the previous identical batch, and whether this one's
     * are those translated by one shift for every transfer (then the next ones are too) */
    ARR(double, prev_end);
    size_t prev_n; /* transfers in prev_end; 0: no previous identical batch */
    int shifted;
    double shift;
    struct cert_msg *m; /* per-message costs: the sides, derived from the first batch (fast_dataflow_cert.c) */
} eng_cert;

/* Wire bytes of a transfer of elems elements in the current phase (SimGrid takes whole bytes). */
#define ENG_WIRE(g, elems) ((double)(elems) * (g)->eb)
#define ENG_WIRE_U64(g, elems) ((uint64_t)llround(ENG_WIRE(g, elems)))

typedef struct eng {
    const ar_platform *p;
    const ar_schedule *s;
    const ar_sim_opts *o;
    ar_sg *sg;
    ar_sim_result *r;
    ar_err *e;
    ar_status st;
    int shortcuts, crosstraffic;
    double gamma;
    int msg;        /* per-message costs (eng_side): every rank-to-rank transfer that pays them (ar_platform_msg) */
    double eb0, eb; /* bytes per element: payload; on the wire in this phase (eb0 / the protocol's factor) */
    double rate;    /* the phase's bound on every flow's rate, wire bytes/s (ar_phase_proto_effect; 0: none) */
    int ndl, nres;  /* directed links; resources = directed links + one CPU per rank + two sides per rank */
    double wall0, budget0; /* start; start of the simulation proper (after the platform) */
    int stopped;
    enum mode mode;
    double off; /* arlab's clock = SimGrid's + off */

    ar_proto_ctx proto; /* the schedule's NCCL protocol terms, for every phase's ar_phase_proto_effect */
    eng_phase ph;
    eng_scratch sc;
    eng_batch b;
    eng_comp c;
    memo memo;
    eng_repeat rep;
    eng_busy busy;
    eng_full full;
    eng_side side;
    eng_probe pr;
    eng_cert cert;
    eng_io io;
} eng;

static inline double eng_now(const eng *g) { return ar_sg_now() + g->off; }

/* Records the first error and stops the run (from SimGrid callbacks). */
static inline void eng_fail(eng *g, ar_status st, const char *msg) {
    if (g->st == AR_OK) {
        g->st = ar_fail(g->e, st, "%s", msg);
        g->mode = M_DONE;
    }
}

/* fast_batch.c */
ar_status eng_flow_resources(eng *g, int src, int dst, int reduce, size_t at, int *nres, int *nfwd);
ar_status eng_make_groups(eng *g, const ar_phase *ph);
ar_status eng_gather(eng *g);
int eng_repeat_match(const eng *g);
int eng_closed(const eng *g, const double *opend, double tend);
ar_status eng_apply_batch(eng *g, const double *dnet, const double *dtot, double tend, int repeat);
ar_status eng_repeat_save(eng *g, double tend);
ar_status eng_analyse(eng *g);
ar_status eng_outcome(eng *g, double *tend);

/* fast_flow.c */
void eng_data_read(const eng *g, const ar_xfer *x, double *dst);
void eng_data_write(const eng *g, const ar_xfer *x, const double *src);
void eng_trace_event(eng *g, const ar_xfer *x, int opi, int round, double t0, double dur);
ar_status eng_open_trace(eng *g, const char *path, ar_err *e);
void eng_full_start_xfer(eng *g, const ar_xfer *x, int opi, int round);
int eng_full_start_round(eng *g, int i);
void eng_full_finish(eng *g, int id);
void eng_full_net_done(eng *g, int id);
void eng_full_after(eng *g, int id);
ar_status eng_repeat_jump(eng *g); /* fast_batch.c: identical rounds after a repeat, applied at once */

/* fast_dataflow_cert.c: the dataflow certificate of a lockstep run */
ar_status eng_cert_init(eng *g);
void eng_cert_free(eng_cert *c);
ar_status eng_cert_phase(eng *g, double base);
void eng_cert_start(eng *g, const ar_xfer *x, int opi, double t);
void eng_cert_end(eng *g, const ar_xfer *x, int opi, double t);
void eng_cert_precheck(eng *g);
void eng_cert_batch(eng *g, double T0, const double *dnet, const double *dtot, int repeat);
int eng_cert_can_jump(const eng *g);
void eng_cert_jump(eng *g, int J, double T0);
void eng_cert_group(eng *g);
void eng_cert_phase_end(eng *g, int phase);
void eng_cert_result(const eng *g, ar_sim_result *r);
/* after the network (and gamma): the protocol delay, then finish */
void eng_full_free(eng_full *f);
/* per-message costs in SimGrid mode (fast_flow.c) */
int eng_sided(const eng *g, int src, int dst);
ar_status eng_side_init(eng *g);
void eng_side_free(eng_side *s);
void eng_side_event(eng *g, uint64_t tok);
void eng_side_kicks(eng *g);
void eng_side_reset(eng *g);
void eng_probe_event(eng *g, uint64_t tok);
int eng_probe_step(eng *g);

/* What transfer x of round `round` of op opi of the phase waits after its network part (the walk's
 * ar_xfer_wait: its op's NCCL step over its route latency, and a gated transfer's ready message; 0
 * without either). */
static inline double eng_xfer_step(const eng *g, int opi, int round, const ar_xfer *x) {
    return g->ph.step > 0 || g->p->msg_ready
               ? ar_xfer_wait(g->p, g->s, g->ph.phase, opi, round, g->ph.ops[opi].step, x->src, x->dst)
               : 0;
}
ar_status eng_probe_start(eng *g);
ar_status eng_probe_finish(eng *g);

#endif
