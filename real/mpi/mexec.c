/* MPI executor of arlab schedules (see mexec.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "core/lower.h"
#include "core/util.h"
#include "real/mpi/mexec.h"
#include "real/rmeasure.h"

/* One op this rank takes part in, within the current phase. */
typedef struct mx_op {
    const ar_op *op;
    int round, nrounds;
    int tag;
    size_t base, slots; /* request slots [base, base + slots) */
    long *ready_xf;     /* per slot: the transfer whose sends wait for the ready message in it, or -1 */
    size_t capready;
    int phase;        /* the schedule's phase the op is in */
    int *rto, *rfrom; /* per rank: the op's last round with a transfer to it, from it (-1: none yet) */
    size_t caprto, caprfrom;
    int pending; /* requests of the current round not yet complete */
    ar_xfer *xf; /* transfers of the current round */
    size_t nxf, capxf;
    unsigned char *stage; /* received payloads of the current round */
    size_t capstage;
} mx_op;

struct ar_mx {
    MPI_Comm comm;
    int rank, nranks;
    unsigned char *buf, *init; /* the rank's buffer and its inputs */
    size_t cap;                /* bytes allocated for each */
    mx_op *ops;
    size_t capops;
    MPI_Request *req;
    size_t capreq;
    double *times;
    size_t captimes;
    uint64_t max_msg;   /* > 0: every message at most this many bytes (ar_mx_set_max_msg) */
    MPI_Comm ready;     /* ready-to-receive messages (a duplicate of comm), MPI_COMM_NULL when not used */
    int *lto, *lfrom;   /* per rank: the last phase in which an op's last round sent to it, received from it */
    FILE *plog;         /* $ARLAB_MPI_PHASE_LOG/phases.RANK: when each round of each run ended, or NULL */
    const int *machine; /* per rank: its machine (ar_mx_set_machines), or NULL (every pair crosses machines) */
    double t0;          /* the current run's start (MPI_Wtime) */
    uint64_t bytes;     /* the current run's payload */
    int run;            /* runs of the schedule so far */
};

void ar_mx_set_max_msg(ar_mx *x, uint64_t bytes) {
    x->max_msg = bytes;
    /* Eager messages leave as soon as they are posted, before the receiver reaches that round (rendezvous
     * ones wait for the receiver's match): a rank ahead of its partner would push the next round's data into
     * links still busy with the partner's current round, which no simulated transfer does. So with eager
     * messages a receiver first tells its sender that it is ready (one empty message), as rendezvous
     * would, and keeps eager's full-duplex bulk path (post_round says which transfers wait).
     * $ARLAB_MPI_EAGER_READY=0: no such message. */
    const char *env = getenv("ARLAB_MPI_EAGER_READY");
    int want = bytes > 0 && !(env && !strcmp(env, "0"));
    if (want && x->ready == MPI_COMM_NULL && MPI_Comm_dup(x->comm, &x->ready) != MPI_SUCCESS) x->ready = MPI_COMM_NULL;
    if (!want && x->ready != MPI_COMM_NULL) MPI_Comm_free(&x->ready);
}

void ar_mx_set_machines(ar_mx *x, const int *machine_of_rank) { x->machine = machine_of_rank; }

int ar_mx_eager_ready(const ar_mx *x) { return x->ready != MPI_COMM_NULL; }

/* Messages a payload of `bytes` is sent as. */
static uint64_t nmsgs(const ar_mx *x, uint64_t bytes) {
    return x->max_msg && bytes > x->max_msg ? (bytes + x->max_msg - 1) / x->max_msg : 1;
}

/* Waits for one of n requests like MPI_Waitany, but sleeps (50 us) between
 * polls after a short spin, so that ranks waiting on a 2-core machine leave
 * the CPU to the ranks that move or reduce data (oversubscribed testbeds). */
static int sleepy_waitany(int n, MPI_Request *req, int *idx) {
    for (int spin = 0;; spin++) {
        int flag = 0;
        int rc = MPI_Testany(n, req, idx, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (spin >= 64) {
            struct timespec ts = {0, 50 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

/* MPI_Barrier through MPI_Ibarrier and sleepy polling. */
static int sleepy_barrier(MPI_Comm comm) {
    MPI_Request r;
    int idx, rc = MPI_Ibarrier(comm, &r);
    if (rc != MPI_SUCCESS) return rc;
    return sleepy_waitany(1, &r, &idx);
}

static ar_status mpi_fail(ar_err *e, int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", rc);
    return ar_fail(e, AR_EBACKEND, "MPI: %s failed: %s", what, msg);
}

ar_status ar_mx_open(MPI_Comm comm, ar_mx **out, ar_err *e) {
    *out = NULL;
    ar_mx *x = ar_calloc(1, sizeof *x);
    if (!x) return ar_fail(e, AR_ENOMEM, "out of memory");
    x->comm = comm;
    x->ready = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &x->rank);
    MPI_Comm_size(comm, &x->nranks);
    /* a diagnostic: the end of every round on this rank, to tell which step of a schedule runs slow */
    const char *dir = getenv("ARLAB_MPI_PHASE_LOG");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/phases.%d", dir, x->rank);
        x->plog = fopen(path, "w");
    }
    *out = x;
    return AR_OK;
}

void ar_mx_close(ar_mx *x) {
    if (!x) return;
    for (size_t i = 0; i < x->capops; i++) {
        free(x->ops[i].xf);
        free(x->ops[i].stage);
        free(x->ops[i].ready_xf);
        free(x->ops[i].rto);
        free(x->ops[i].rfrom);
    }
    if (x->ready != MPI_COMM_NULL) MPI_Comm_free(&x->ready);
    AR_FREE_ALL(x->ops, x->req, x->buf, x->init, x->times, x->lto, x->lfrom);
    if (x->plog) fclose(x->plog);
    free(x);
}

static int is_member(const ar_op *op, int r) {
    for (int i = 0; i < op->n; i++)
        if (op->members[i] == r) return 1;
    return 0;
}

static void add_into(void *dst, const void *src, uint64_t n, ar_dtype t) {
    if (t == AR_DTYPE_F32) {
        float *d = dst;
        const float *s = src;
        for (uint64_t i = 0; i < n; i++) d[i] += s[i];
    } else if (t == AR_DTYPE_F64) {
        double *d = dst;
        const double *s = src;
        for (uint64_t i = 0; i < n; i++) d[i] += s[i];
    } else {
        int32_t *d = dst;
        const int32_t *s = src;
        for (uint64_t i = 0; i < n; i++) d[i] += s[i];
    }
}

/* Messages transfer t is sent as. */
static size_t xfer_msgs(const ar_mx *x, const ar_xfer *t, size_t eb) {
    size_t m = 0;
    for (int g = 0; g < t->nseg; g++) m += (size_t)nmsgs(x, t->len[g] * eb);
    return m;
}

/* Posts this rank's side of transfer t (its Irecvs into o->stage at *k, or its Isends) in the request
 * slots from *q on, advancing *q. */
static ar_status post_xfer(ar_mx *x, mx_op *o, const ar_xfer *t, size_t eb, size_t *k, size_t *q, ar_err *e) {
    for (int g = 0; g < t->nseg; g++) {
        uint64_t bytes = t->len[g] * eb, step = x->max_msg && bytes > x->max_msg ? x->max_msg : bytes;
        if (step > INT_MAX)
            return ar_fail(e, AR_ELIMIT, "a transfer of %llu bytes exceeds the MPI count limit (2 GiB)",
                           (unsigned long long)bytes);
        /* one message, or chunks of max_msg bytes in order (MPI keeps their order on one tag) */
        for (uint64_t at = 0; at < bytes || (bytes == 0 && at == 0); at += step ? step : 1) {
            int len = (int)(bytes - at < step ? bytes - at : step), rc;
            if (t->dst == x->rank) {
                rc = MPI_Irecv(o->stage + *k, len, MPI_BYTE, t->src, o->tag, x->comm, &x->req[(*q)++]);
                *k += (size_t)len;
            } else {
                rc = MPI_Isend(x->buf + t->off[g] * eb + at, len, MPI_BYTE, t->dst, o->tag, x->comm, &x->req[(*q)++]);
            }
            if (rc != MPI_SUCCESS) return mpi_fail(e, rc, t->dst == x->rank ? "MPI_Irecv" : "MPI_Isend");
            if (bytes == 0) break;
        }
    }
    return AR_OK;
}

/* Posts the requests of o's current round (skipping rounds without this
 * rank). Leaves o->pending = 0 and o->round = nrounds when the op is done. */
static ar_status post_round(ar_mx *x, mx_op *o, size_t eb, ar_err *e) {
    for (; o->round < o->nrounds; o->round++) {
        size_t n = ar_lower_round(o->op, o->round, o->xf);
        if (n > o->capxf) return ar_fail(e, AR_EINTERNAL, "lowering overflow (%zu > %zu transfers)", n, o->capxf);
        o->nxf = n;
        size_t need = 0, nreq = 0;
        for (size_t i = 0; i < n; i++) {
            const ar_xfer *t = &o->xf[i];
            if (t->dst == x->rank) need += ar_xfer_elems(t) * eb;
            if (t->dst == x->rank || t->src == x->rank) nreq += xfer_msgs(x, t, eb);
        }
        if (nreq == 0) continue;
        if (nreq + n > o->slots) return ar_fail(e, AR_EINTERNAL, "request slots overflow (%zu > %zu)", nreq, o->slots);
        if (ar_grow(&o->stage, &o->capstage, need ? need : 1, 1) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
        for (size_t j = 0; j < o->slots; j++) o->ready_xf[j] = -1;
        size_t k = 0, q = o->base;
        for (size_t i = 0; i < n; i++) {
            const ar_xfer *t = &o->xf[i];
            if (t->dst != x->rank && t->src != x->rank) continue;
            int rc = MPI_SUCCESS, peer = t->dst == x->rank ? t->src : t->dst;
            /* a transfer waits unless the same sender sent to the same receiver in the round just before (of
             * this op, or an op's last round in the phase before): then its data follows that data on the same
             * path rather than into links the receiver still uses for another transfer (ring's rounds). Both
             * ends decide alike: an op's rounds are posted in order, a phase is over on both before the next.
             * Within a machine nothing waits: its data goes over the loopback, not into a shaped link the receiver
             * may still use, and a ready message there costs the two ranks a wake-up each on the shared CPUs
             * (the machine's last round of halving-doubling at 64 KB on testbed-2x2: ~360 us gated, ~15 us not) */
            int in = t->dst == x->rank;
            int follows = o->round > 0 ? (in ? o->rfrom : o->rto)[peer] == o->round - 1
                                       : (in ? x->lfrom : x->lto)[peer] == o->phase - 1;
            int gate = x->ready != MPI_COMM_NULL && !follows &&
                       (!x->machine || x->machine[t->src] != x->machine[t->dst]);
            if (gate && t->dst == x->rank) {
                /* ready to receive: the Irecvs first, then tell the sender */
                ar_status st = post_xfer(x, o, t, eb, &k, &q, e);
                if (st != AR_OK) return st;
                rc = MPI_Isend(NULL, 0, MPI_BYTE, t->src, o->tag, x->ready, &x->req[q++]);
                nreq++;
            } else if (gate) {
                /* the sends wait for the receiver's ready message; their slots follow its slot */
                o->ready_xf[q - o->base] = (long)i;
                rc = MPI_Irecv(NULL, 0, MPI_BYTE, t->dst, o->tag, x->ready, &x->req[q++]);
                size_t m = xfer_msgs(x, t, eb);
                q += m;
                nreq = nreq - m + 1;
            } else {
                ar_status st = post_xfer(x, o, t, eb, &k, &q, e);
                if (st != AR_OK) return st;
            }
            if (rc != MPI_SUCCESS)
                return mpi_fail(e, rc, t->dst == x->rank ? "MPI_Isend (ready)" : "MPI_Irecv (ready)");
        }
        for (size_t i = 0; i < n; i++) /* after the round: two transfers of one pair in it both wait */
            if (o->xf[i].src == x->rank) o->rto[o->xf[i].dst] = o->round;
            else if (o->xf[i].dst == x->rank) o->rfrom[o->xf[i].src] = o->round;
        o->pending = (int)nreq;
        return AR_OK;
    }
    o->pending = 0;
    return AR_OK;
}

/* Applies the received payloads of o's current round (all its requests done). */
static void finish_round(ar_mx *x, mx_op *o, size_t eb, ar_dtype t) {
    size_t k = 0;
    for (size_t i = 0; i < o->nxf; i++) {
        const ar_xfer *f = &o->xf[i];
        if (f->dst != x->rank) continue;
        for (int g = 0; g < f->nseg; g++) {
            unsigned char *d = x->buf + f->off[g] * eb;
            if (f->reduce) add_into(d, o->stage + k, f->len[g], t);
            else memcpy(d, o->stage + k, f->len[g] * eb);
            k += f->len[g] * eb;
        }
    }
    o->round++;
}

/* One run of s on this rank's buffer. */
static ar_status run_schedule(ar_mx *x, const ar_schedule *s, ar_dtype t, ar_err *e) {
    size_t eb = ar_dtype_size(t);
    if (!x->lto) {
        x->lto = ar_calloc((size_t)x->nranks, sizeof *x->lto);
        x->lfrom = ar_calloc((size_t)x->nranks, sizeof *x->lfrom);
        if (!x->lto || !x->lfrom) return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int r = 0; r < x->nranks; r++) x->lto[r] = x->lfrom[r] = -2;
    for (int p = 0; p < s->nphases; p++) {
        const ar_phase *ph = &s->phases[p];
        size_t nops = 0, nslots = 0;
        if (ph->nops > 32767)
            return ar_fail(e, AR_ELIMIT, "phase %d has %d ops: the MPI backend tags at most 32767 per phase", p,
                           ph->nops);
        size_t oldcap = x->capops;
        if (ar_grow(&x->ops, &x->capops, (size_t)ph->nops, sizeof *x->ops) < 0)
            return ar_fail(e, AR_ENOMEM, "out of memory");
        if (x->capops > oldcap) memset(x->ops + oldcap, 0, (x->capops - oldcap) * sizeof *x->ops);
        for (int i = 0; i < ph->nops; i++) {
            const ar_op *op = &ph->ops[i];
            int nr = ar_lower_nrounds(op);
            if (nr == 0 || !is_member(op, x->rank)) continue;
            mx_op *o = &x->ops[nops++];
            size_t mx = ar_lower_max_xfers(op);
            if (ar_grow(&o->xf, &o->capxf, mx, sizeof *o->xf) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
            o->op = op;
            o->round = 0;
            o->nrounds = nr;
            o->tag = i; /* unique within the phase (checked below); reuse across phases is ordered by MPI */
            o->base = nslots;
            o->slots = 2 * mx * (size_t)nmsgs(x, s->count * eb) + 2 * mx; /* messages, ready messages */
            if (ar_grow(&o->ready_xf, &o->capready, o->slots, sizeof *o->ready_xf) < 0 ||
                ar_grow(&o->rto, &o->caprto, (size_t)x->nranks, sizeof *o->rto) < 0 ||
                ar_grow(&o->rfrom, &o->caprfrom, (size_t)x->nranks, sizeof *o->rfrom) < 0)
                return ar_fail(e, AR_ENOMEM, "out of memory");
            for (int r = 0; r < x->nranks; r++) o->rto[r] = o->rfrom[r] = -1;
            o->phase = p;
            o->pending = 0;
            nslots += o->slots;
        }
        if (nops == 0) continue;
        if (ar_grow(&x->req, &x->capreq, nslots, sizeof *x->req) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
        for (size_t q = 0; q < nslots; q++) x->req[q] = MPI_REQUEST_NULL;
        for (size_t i = 0; i < nops; i++) {
            ar_status st = post_round(x, &x->ops[i], eb, e);
            if (st != AR_OK) return st;
        }
        for (;;) {
            int idx = MPI_UNDEFINED;
            int rc = sleepy_waitany((int)nslots, x->req, &idx);
            if (rc != MPI_SUCCESS) return mpi_fail(e, rc, "MPI_Waitany");
            if (idx == MPI_UNDEFINED) break;
            size_t oi = 0;
            while (oi + 1 < nops && (size_t)idx >= x->ops[oi + 1].base) oi++;
            mx_op *o = &x->ops[oi];
            long ti = o->ready_xf[(size_t)idx - o->base];
            if (ti >= 0) {
                /* the receiver is ready: this transfer's sends, in the slots after its ready message */
                o->ready_xf[(size_t)idx - o->base] = -1;
                size_t q = (size_t)idx + 1, k = 0;
                ar_status st = post_xfer(x, o, &o->xf[ti], eb, &k, &q, e);
                if (st != AR_OK) return st;
                o->pending += (int)(q - (size_t)idx - 1) - 1;
                continue;
            }
            if (--o->pending == 0) {
                finish_round(x, o, eb, t);
                if (x->plog)
                    fprintf(x->plog, "%d %llu %d %d %.9f\n", x->run, (unsigned long long)x->bytes, p, o->round,
                            MPI_Wtime() - x->t0);
                ar_status st = post_round(x, o, eb, e);
                if (st != AR_OK) return st;
            }
        }
        for (size_t i = 0; i < nops; i++)
            if (x->ops[i].round < x->ops[i].nrounds)
                return ar_fail(e, AR_EINTERNAL, "phase %d: op stopped at round %d of %d on rank %d", p, x->ops[i].round,
                               x->ops[i].nrounds, x->rank);
        for (size_t i = 0; i < nops; i++) /* the pairs of the ops' last rounds, for the next phase's first rounds */
            for (int r = 0; r < x->nranks; r++) {
                if (x->ops[i].rto[r] == x->ops[i].nrounds - 1) x->lto[r] = p;
                if (x->ops[i].rfrom[r] == x->ops[i].nrounds - 1) x->lfrom[r] = p;
            }
    }
    x->run++;
    return AR_OK;
}

static MPI_Datatype mpi_type(ar_dtype t) {
    return t == AR_DTYPE_F32 ? MPI_FLOAT : t == AR_DTYPE_F64 ? MPI_DOUBLE : MPI_INT32_T;
}

static ar_status one_run(ar_mx *x, const ar_schedule *s, uint64_t count, ar_dtype t, ar_err *e) {
    if (s) return run_schedule(x, s, t, e);
    if (count > INT_MAX)
        return ar_fail(e, AR_ELIMIT, "MPI_Allreduce of %llu elements exceeds the MPI count limit",
                       (unsigned long long)count);
    int rc = MPI_Allreduce(MPI_IN_PLACE, x->buf, (int)count, mpi_type(t), MPI_SUM, x->comm);
    return rc == MPI_SUCCESS ? AR_OK : mpi_fail(e, rc, "MPI_Allreduce");
}

/* Every rank's status, agreed: a failure anywhere stops every rank together. */
static ar_status agree(ar_mx *x, ar_status st, ar_err *e) {
    int mine = st != AR_OK, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, x->comm);
    if (any && st == AR_OK) return ar_fail(e, AR_EBACKEND, "another rank failed");
    return st;
}

ar_status ar_mx_bench(ar_mx *x, const ar_schedule *s, uint64_t count, ar_dtype t, int warmup, int iters,
                      ar_mx_measure *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    out->med_s = out->min_s = out->max_s = NAN;
    out->wrong = -1;
    ar_status st = AR_OK;
    if (s && ar_schedule_uses_switch(s)) /* (s NULL: MPI_Allreduce, the baseline) */
        return ar_fail(e, AR_EUNSUPPORTED,
                       "MPI backend: %s has ops with impl switch (transfers to a reducing switch), which MPI "
                       "point-to-point cannot run",
                       s->algo);
    if (t != AR_DTYPE_F32 && t != AR_DTYPE_F64 && t != AR_DTYPE_I32)
        return ar_fail(e, AR_EUNSUPPORTED, "the MPI backend reduces f32, f64 and i32 only (not %s)", ar_dtype_name(t));
    if (s && (s->nranks != x->nranks || s->count != count || s->elem_bytes != ar_dtype_size(t)))
        return ar_fail(e, AR_EINVAL, "schedule %s is for %d ranks x %llu elements, the run has %d x %llu", s->algo,
                       s->nranks, (unsigned long long)s->count, x->nranks, (unsigned long long)count);
    size_t eb = ar_dtype_size(t), bytes = (size_t)count * eb;
    int m = ar_real_pattern_m(t, x->nranks);
    if (m < 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%d ranks: no exact check possible in %s", x->nranks, ar_dtype_name(t));
    if (bytes > x->cap) {
        free(x->buf);
        free(x->init);
        x->buf = malloc(bytes ? bytes : 1);
        x->init = malloc(bytes ? bytes : 1);
        x->cap = bytes;
        if (!x->buf || !x->init) {
            x->cap = 0;
            st = ar_fail(e, AR_ENOMEM, "rank %d: cannot allocate 2 x %zu bytes", x->rank, bytes);
        }
    }
    st = agree(x, st, e);
    if (st != AR_OK) return st;
    ar_real_fill(x->init, t, x->rank, count, m);
    if (ar_grow(&x->times, &x->captimes, (size_t)(iters > 0 ? iters : 1), sizeof *x->times) < 0)
        st = ar_fail(e, AR_ENOMEM, "out of memory");
    st = agree(x, st, e);
    for (int i = 0; i < warmup + iters && st == AR_OK; i++) {
        memcpy(x->buf, x->init, bytes);
        sleepy_barrier(x->comm);
        double t0 = MPI_Wtime();
        x->t0 = t0;
        x->bytes = bytes;
        st = one_run(x, s, count, t, e);
        double dt = MPI_Wtime() - t0;
        if (i >= warmup) x->times[i - warmup] = dt;
        st = agree(x, st, e);
    }
    if (st != AR_OK) return st;
    if (iters > 0) {
        MPI_Allreduce(MPI_IN_PLACE, x->times, iters, MPI_DOUBLE, MPI_MAX, x->comm);
        if (ar_real_stats(x->times, iters, &out->med_s, &out->min_s, &out->max_s) != AR_OK)
            return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    out->iters = iters;
    /* correctness, after timing */
    memcpy(x->buf, x->init, bytes);
    sleepy_barrier(x->comm);
    st = agree(x, one_run(x, s, count, t, e), e);
    if (st != AR_OK) return st;
    double *table = ar_calloc((size_t)m, sizeof *table);
    long long bad = -1, total = 0;
    if (table) {
        ar_real_expected_table(x->nranks, m, table);
        uint64_t first = 0;
        bad = (long long)ar_real_count_wrong(x->buf, t, count, table, m, &first);
        free(table);
    }
    st = agree(x, bad < 0 ? ar_fail(e, AR_ENOMEM, "out of memory") : AR_OK, e);
    if (st != AR_OK) return st;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, x->comm);
    out->wrong = total;
    return AR_OK;
}

/* The buffers for `bytes` and room for `iters` timings (grown, never shrunk). */
static ar_status grow_buffers(ar_mx *x, uint64_t bytes, int iters, ar_err *e) {
    ar_status st = AR_OK;
    if (bytes > x->cap) {
        free(x->buf);
        free(x->init);
        x->buf = calloc(1, bytes);
        x->init = calloc(1, bytes);
        x->cap = bytes;
        if (!x->buf || !x->init) {
            x->cap = 0;
            st = ar_fail(e, AR_ENOMEM, "out of memory");
        }
    }
    if (ar_grow(&x->times, &x->captimes, (size_t)iters, sizeof *x->times) < 0)
        st = ar_fail(e, AR_ENOMEM, "out of memory");
    return st;
}

/* A two-rank test (what: its name) of ranks a and b: the arguments checked, and buffers for `bytes` and
 * `iters` timings (grown, never shrunk); every rank agrees on the outcome. */
static ar_status two_rank_test(ar_mx *x, const char *what, int a, int b, uint64_t bytes, int iters, ar_err *e) {
    if (a == b || a < 0 || b < 0 || a >= x->nranks || b >= x->nranks || iters < 1)
        return ar_fail(e, AR_EINVAL, "%s %d<->%d: bad ranks or iterations", what, a, b);
    if (bytes > INT_MAX)
        return ar_fail(e, AR_ELIMIT, "%s of %llu bytes exceeds 2 GiB", what, (unsigned long long)bytes);
    return agree(x, grow_buffers(x, bytes, iters, e), e);
}

/* After a timed test: the median of `root`'s iters times, given to every rank (after a barrier). */
static ar_status timed_median(ar_mx *x, int root, int iters, const char *what, double *out, ar_err *e) {
    sleepy_barrier(x->comm);
    double med = NAN, mn, mxv;
    if (x->rank == root && ar_real_stats(x->times, iters, &med, &mn, &mxv) != AR_OK) med = NAN;
    MPI_Bcast(&med, 1, MPI_DOUBLE, root, x->comm);
    if (!isfinite(med)) return ar_fail(e, AR_ENOMEM, "%s: out of memory", what);
    *out = med;
    return AR_OK;
}

ar_status ar_mx_pingpong(ar_mx *x, int a, int b, uint64_t bytes, int warmup, int iters, double *oneway_s, ar_err *e) {
    *oneway_s = NAN;
    ar_status st = two_rank_test(x, "ping-pong", a, b, bytes, iters, e);
    if (st != AR_OK) return st;
    sleepy_barrier(x->comm);
    for (int i = 0; i < warmup + iters && (x->rank == a || x->rank == b); i++) {
        double t0 = MPI_Wtime();
        int rc = MPI_SUCCESS, peer = x->rank == a ? b : a, idx;
        MPI_Request r;
        for (int leg = 0; leg < 2 && rc == MPI_SUCCESS; leg++) {
            if ((leg == 0) == (x->rank == a)) rc = MPI_Isend(x->buf, (int)bytes, MPI_BYTE, peer, 7, x->comm, &r);
            else rc = MPI_Irecv(x->buf, (int)bytes, MPI_BYTE, peer, 7, x->comm, &r);
            if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &r, &idx);
        }
        if (rc != MPI_SUCCESS) return mpi_fail(e, rc, "ping-pong");
        if (i >= warmup) x->times[i - warmup] = (MPI_Wtime() - t0) / 2;
    }
    return timed_median(x, a, iters, "ping-pong", oneway_s, e);
}

ar_status ar_mx_wakeup(ar_mx *x, int a, int b, double hold_s, int warmup, int iters, double *w_s, ar_err *e) {
    for (int i = 0; i < iters; i++) w_s[i] = NAN;
    ar_status st = two_rank_test(x, "wake-up test", a, b, 8, iters, e);
    if (st == AR_OK && !(hold_s > 0 && hold_s < 1)) st = ar_fail(e, AR_EINVAL, "wake-up test: hold %g s", hold_s);
    if (st != AR_OK) return st;
    sleepy_barrier(x->comm);
    for (int i = 0; i < warmup + iters && (x->rank == a || x->rank == b); i++) {
        double rtt[2] = {0, 0}, held = 0; /* plain, held round trips (a); b's hold as b measured it */
        int rc = MPI_SUCCESS, idx;
        for (int h = 0; h < 2 && rc == MPI_SUCCESS; h++) {
            MPI_Request r;
            double msg = 0;
            if (x->rank == a) {
                double t0 = MPI_Wtime();
                rc = MPI_Isend(&msg, 1, MPI_DOUBLE, b, 12, x->comm, &r);
                if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &r, &idx);
                if (rc == MPI_SUCCESS) rc = MPI_Irecv(&msg, 1, MPI_DOUBLE, b, 13, x->comm, &r);
                if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &r, &idx);
                rtt[h] = MPI_Wtime() - t0;
                if (h) held = msg;
            } else {
                rc = MPI_Irecv(&msg, 1, MPI_DOUBLE, a, 12, x->comm, &r);
                if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &r, &idx);
                double t1 = MPI_Wtime();
                while (h && MPI_Wtime() - t1 < hold_s) { /* hold, sleeping: the CPU stays free for a */
                    struct timespec ts = {0, 50 * 1000};
                    nanosleep(&ts, NULL);
                }
                msg = MPI_Wtime() - t1;
                if (rc == MPI_SUCCESS) rc = MPI_Isend(&msg, 1, MPI_DOUBLE, a, 13, x->comm, &r);
                if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &r, &idx);
            }
        }
        if (rc != MPI_SUCCESS) return mpi_fail(e, rc, "wake-up test");
        if (x->rank == a && i >= warmup) x->times[i - warmup] = (rtt[1] - held) - rtt[0];
    }
    sleepy_barrier(x->comm);
    if (x->rank == a) memcpy(w_s, x->times, (size_t)iters * sizeof *w_s);
    MPI_Bcast(w_s, iters, MPI_DOUBLE, a, x->comm);
    return AR_OK;
}

/* This rank's side of one exchange of `bytes` each way with peer (in max_msg chunks), requests in r[]. */
static int exchange_once(ar_mx *x, int peer, uint64_t bytes, MPI_Request *r) {
    int rc = MPI_SUCCESS, nr = 0;
    uint64_t step = x->max_msg && bytes > x->max_msg ? x->max_msg : (bytes ? bytes : 1);
    for (uint64_t at = 0; rc == MPI_SUCCESS && (at < bytes || (bytes == 0 && at == 0)); at += step) {
        int len = (int)(bytes - at < step ? bytes - at : step);
        rc = MPI_Irecv(x->init + at, len, MPI_BYTE, peer, 8, x->comm, &r[nr++]);
        if (rc == MPI_SUCCESS) rc = MPI_Isend(x->buf + at, len, MPI_BYTE, peer, 8, x->comm, &r[nr++]);
    }
    for (int k = 0, idx; k < nr && rc == MPI_SUCCESS; k++) rc = sleepy_waitany(nr, r, &idx);
    return rc;
}

ar_status ar_mx_exchange(ar_mx *x, int a, int b, uint64_t bytes, int warmup, int iters, double *time_s, ar_err *e) {
    *time_s = NAN;
    ar_status st = two_rank_test(x, "exchange", a, b, bytes, iters, e);
    if (st != AR_OK) return st;
    int me = x->rank == a || x->rank == b, peer = x->rank == a ? b : a;
    MPI_Request *r = ar_calloc((size_t)(2 * nmsgs(x, bytes)), sizeof *r);
    st = agree(x, r ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory"), e);
    if (st != AR_OK) {
        free(r);
        return st;
    }
    for (int i = 0; i < warmup + iters; i++) {
        /* both ends start together: a barrier of the whole communicator before every exchange */
        sleepy_barrier(x->comm);
        if (!me) continue;
        double t0 = MPI_Wtime();
        int rc = exchange_once(x, peer, bytes, r);
        if (rc != MPI_SUCCESS) {
            free(r);
            return mpi_fail(e, rc, "exchange");
        }
        if (i >= warmup) x->times[i - warmup] = MPI_Wtime() - t0;
    }
    free(r);
    sleepy_barrier(x->comm);
    /* the exchange ends when both directions have: the slower end's time */
    if (me) {
        double *other = ar_calloc((size_t)iters, sizeof *other);
        if (!other) return ar_fail(e, AR_ENOMEM, "out of memory");
        MPI_Sendrecv(x->times, iters, MPI_DOUBLE, peer, 9, other, iters, MPI_DOUBLE, peer, 9, x->comm,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < iters; i++) x->times[i] = fmax(x->times[i], other[i]);
        free(other);
    }
    double med = NAN, mn, mxv;
    if (x->rank == a && ar_real_stats(x->times, iters, &med, &mn, &mxv) != AR_OK) med = NAN;
    MPI_Bcast(&med, 1, MPI_DOUBLE, a, x->comm);
    if (!isfinite(med)) return ar_fail(e, AR_ENOMEM, "exchange: out of memory");
    *time_s = med;
    return AR_OK;
}

ar_status ar_mx_exchange_pairs(ar_mx *x, const int *peer, uint64_t bytes, int warmup, int iters, double *time_s,
                               ar_err *e) {
    *time_s = NAN;
    ar_status st = AR_OK;
    int mine = peer[x->rank], any = 0;
    for (int r = 0; r < x->nranks && st == AR_OK; r++) {
        if (peer[r] == -1) continue;
        any = 1;
        if (peer[r] < 0 || peer[r] >= x->nranks || peer[r] == r || peer[peer[r]] != r)
            st = ar_fail(e, AR_EINVAL, "exchange of pairs: rank %d's peer %d is not a pair", r, peer[r]);
    }
    if (st == AR_OK && (!any || iters < 1)) st = ar_fail(e, AR_EINVAL, "exchange of pairs: no pair or no iteration");
    if (st == AR_OK && bytes > INT_MAX)
        st = ar_fail(e, AR_ELIMIT, "exchange of %llu bytes exceeds 2 GiB", (unsigned long long)bytes);
    if (st == AR_OK) st = grow_buffers(x, bytes, iters, e);
    MPI_Request *r = st == AR_OK ? ar_calloc((size_t)(2 * nmsgs(x, bytes)), sizeof *r) : NULL;
    if (st == AR_OK && !r) st = ar_fail(e, AR_ENOMEM, "out of memory");
    st = agree(x, st, e);
    if (st != AR_OK) {
        free(r);
        return st;
    }
    for (int i = 0; i < warmup + iters; i++) {
        sleepy_barrier(x->comm); /* every pair starts together */
        double t0 = MPI_Wtime();
        int rc = mine >= 0 ? exchange_once(x, mine, bytes, r) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) {
            free(r);
            return mpi_fail(e, rc, "exchange of pairs");
        }
        if (i >= warmup) x->times[i - warmup] = mine >= 0 ? MPI_Wtime() - t0 : 0;
    }
    free(r);
    /* an iteration ends when every pair's both directions have: the slowest rank's time */
    MPI_Allreduce(MPI_IN_PLACE, x->times, iters, MPI_DOUBLE, MPI_MAX, x->comm);
    double med = NAN, mn, mxv;
    if (ar_real_stats(x->times, iters, &med, &mn, &mxv) != AR_OK) return ar_fail(e, AR_ENOMEM, "out of memory");
    *time_s = med;
    return AR_OK;
}

ar_status ar_mx_reduce_rate(ar_mx *x, uint64_t count, ar_dtype t, int iters, double *rate_Bps, ar_err *e) {
    *rate_Bps = NAN;
    size_t bytes = (size_t)count * ar_dtype_size(t);
    ar_status st = AR_OK;
    if (t != AR_DTYPE_F32 && t != AR_DTYPE_F64 && t != AR_DTYPE_I32)
        st = ar_fail(e, AR_EUNSUPPORTED, "the MPI backend reduces f32, f64 and i32 only (not %s)", ar_dtype_name(t));
    if (st == AR_OK) st = grow_buffers(x, bytes, iters > 1 ? iters : 1, e);
    st = agree(x, st, e);
    if (st != AR_OK) return st;
    if (iters < 1) iters = 1;
    for (int i = 0; i < iters; i++) {
        sleepy_barrier(x->comm);
        double t0 = MPI_Wtime();
        add_into(x->buf, x->init, count, t);
        x->times[i] = MPI_Wtime() - t0;
    }
    double med, mn, mxv, rate;
    if (ar_real_stats(x->times, iters, &med, &mn, &mxv) != AR_OK) return ar_fail(e, AR_ENOMEM, "out of memory");
    rate = med > 0 ? (double)bytes / med : NAN;
    double *all = ar_calloc((size_t)x->nranks, sizeof *all);
    int ok = all != NULL, okall = 0;
    MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, x->comm);
    if (!okall) {
        free(all);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    MPI_Allgather(&rate, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, x->comm);
    st = ar_real_stats(all, x->nranks, rate_Bps, &mn, &mxv) == AR_OK ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory");
    free(all);
    return st;
}

ar_status ar_mx_cross_bytes(const ar_schedule *s, const int *machine_of_rank, double *out, ar_err *e) {
    ar_xfer *xf = NULL;
    size_t cap = 0;
    for (int p = 0; p < s->nphases; p++)
        for (int i = 0; i < s->phases[p].nops; i++) {
            const ar_op *op = &s->phases[p].ops[i];
            size_t mx = ar_lower_max_xfers(op);
            if (ar_grow(&xf, &cap, mx ? mx : 1, sizeof *xf) < 0) {
                free(xf);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
            int nr = ar_lower_nrounds(op);
            for (int r = 0; r < nr; r++) {
                size_t n = ar_lower_round(op, r, xf);
                for (size_t k = 0; k < n; k++)
                    if (machine_of_rank[xf[k].src] != machine_of_rank[xf[k].dst])
                        out[machine_of_rank[xf[k].src]] += (double)(ar_xfer_elems(&xf[k]) * s->elem_bytes);
            }
        }
    free(xf);
    return AR_OK;
}

ar_status ar_mx_fanout(ar_mx *x, int root, const int *peers, int npeers, int k, uint64_t bytes, int warmup, int iters,
                       double *time_s, ar_err *e) {
    *time_s = NAN;
    ar_status st = AR_OK;
    if (root < 0 || root >= x->nranks || npeers < 1 || k < 1 || iters < 1 || bytes < 1 || bytes > 65536)
        st = ar_fail(e, AR_EINVAL, "fan-out from %d: bad ranks, count or size", root);
    for (int j = 0; j < npeers && st == AR_OK; j++)
        if (peers[j] == root || peers[j] < 0 || peers[j] >= x->nranks)
            st = ar_fail(e, AR_EINVAL, "fan-out from %d: bad peer %d", root, peers[j]);
    if (st == AR_OK) st = grow_buffers(x, (size_t)k * bytes, iters, e);
    MPI_Request *r = st == AR_OK ? ar_calloc((size_t)(2 * k), sizeof *r) : NULL;
    if (st == AR_OK && !r) st = ar_fail(e, AR_ENOMEM, "out of memory");
    st = agree(x, st, e);
    if (st != AR_OK) {
        free(r);
        return st;
    }
    int mine = 0; /* messages this rank receives as a peer */
    for (int i = 0; i < k; i++) mine += peers[i % npeers] == x->rank;
    /* FAN_ROUNDS fan-outs back to back per timed iteration, so that the barrier's skew (ranks leave it when
     * they wake) is paid once, not per fan-out */
    enum { FAN_ROUNDS = 4 };
    for (int i = 0; i < warmup + iters; i++) {
        sleepy_barrier(x->comm);
        int rc = MPI_SUCCESS, idx;
        double t0 = MPI_Wtime();
        for (int round = 0; round < FAN_ROUNDS && rc == MPI_SUCCESS; round++) {
            int nr = 0;
            if (x->rank == root) {
                /* the answers' receives first, then the k sends at once, round-robin over the peers */
                for (int m = 0; m < k && rc == MPI_SUCCESS; m++)
                    rc = MPI_Irecv(x->init + (size_t)m * bytes, (int)bytes, MPI_BYTE, peers[m % npeers], 11, x->comm,
                                   &r[nr++]);
                for (int m = 0; m < k && rc == MPI_SUCCESS; m++)
                    rc = MPI_Isend(x->buf, (int)bytes, MPI_BYTE, peers[m % npeers], 10, x->comm, &r[nr++]);
            } else if (mine) {
                /* a peer answers each message as it arrives */
                for (int m = 0; m < mine && rc == MPI_SUCCESS; m++) {
                    MPI_Request q;
                    rc = MPI_Irecv(x->init + (size_t)m * bytes, (int)bytes, MPI_BYTE, root, 10, x->comm, &q);
                    if (rc == MPI_SUCCESS) rc = sleepy_waitany(1, &q, &idx);
                    if (rc == MPI_SUCCESS) rc = MPI_Isend(x->buf, (int)bytes, MPI_BYTE, root, 11, x->comm, &r[nr++]);
                }
            }
            for (int m = 0; m < nr && rc == MPI_SUCCESS; m++) rc = sleepy_waitany(nr, r, &idx);
        }
        if (rc != MPI_SUCCESS) {
            free(r);
            return mpi_fail(e, rc, "fan-out");
        }
        if (x->rank == root && i >= warmup) x->times[i - warmup] = (MPI_Wtime() - t0) / FAN_ROUNDS;
    }
    free(r);
    return timed_median(x, root, iters, "fan-out", time_s, e);
}
