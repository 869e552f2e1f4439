/* Host fakes (fake_int.h), part 3: NCCL: communicators, groups, matching,
 * reductions in the real type, bounded waits, injected faults, captured
 * calls. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_int.h"
#include "real/rmeasure.h"

static const char *const cname[] = {"ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclReduce",
                                    "ncclBroadcast"};

static _Thread_local int t_depth;
static _Thread_local fop **t_group;
static _Thread_local size_t t_ngroup, t_capgroup;
static _Thread_local ncall *t_capcalls; /* NCCL calls of the current group on captured streams */
static _Thread_local size_t t_ncapcalls, t_capcap;

/* ---- NCCL: communicators ------------------------------------------------------------------ */

ncclResult_t ncclGetVersion(int *v) {
    *v = NCCL_MAJOR * 10000 + NCCL_MINOR * 100 + NCCL_PATCH;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclSystemError: return "unhandled system error (fake: a call found no match: a hang on a GPU)";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage (fake: mismatched calls)";
    case ncclRemoteError: return "remote process exited or there was a network error (fake: communicator aborted)";
    default: return "fake NCCL error";
    }
}

const char *ncclGetLastError(ncclComm_t comm) {
    (void)comm;
    return t_err;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    memset(id, 0, sizeof *id);
    fk_lock();
    snprintf(id->internal, sizeof id->internal, "fake-%ld-%d", (long)getpid(), ++F.nids);
    fk_unlock();
    return ncclSuccess;
}

static shared *new_shared(int n) {
    shared *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    sc->n = n;
    sc->id = ++F.ncomms;
    sc->h = calloc((size_t)n, sizeof *sc->h);
    sc->coll_seq = calloc((size_t)n, sizeof *sc->coll_seq);
    sc->split_seq = calloc((size_t)n, sizeof *sc->split_seq);
    sc->send_seq = calloc((size_t)n * (size_t)n, sizeof *sc->send_seq);
    sc->recv_seq = calloc((size_t)n * (size_t)n, sizeof *sc->recv_seq);
    if (!sc->h || !sc->coll_seq || !sc->split_seq || !sc->send_seq || !sc->recv_seq) abort();
    return sc;
}

static void unref(shared *sc) {
    if (--sc->refs > 0) return;
    free(sc->h);
    free(sc->coll_seq);
    free(sc->split_seq);
    free(sc->send_seq);
    free(sc->recv_seq);
    free(sc);
}

static struct fake_comm *new_handle(shared *sc, int rank, int wrank, int dev) {
    struct fake_comm *h = calloc(1, sizeof *h);
    if (!h) abort();
    h->sc = sc;
    h->rank = rank;
    h->wrank = wrank;
    h->dev = dev;
    sc->h[rank] = h;
    sc->refs++;
    return h;
}

static int wait_until(double deadline) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double left = deadline - fk_now();
    if (left <= 0) return ETIMEDOUT;
    if (left > 0.05) left = 0.05;
    ts.tv_nsec += (long)(left * 1e9);
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&F.cv, &F.mu, &ts);
    return 0;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
    fk_lock();
    initreg *r = F.inits;
    while (r && memcmp(&r->id, &id, sizeof id)) r = r->next;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r) abort();
        r->id = id;
        r->n = nranks;
        r->sc = new_shared(nranks);
        r->next = F.inits;
        F.inits = r;
    }
    if (r->n != nranks || r->sc->h[rank]) {
        fk_err("ncclCommInitRank: rank %d of %d joins an id made for %d ranks (or taken twice)", rank, nranks, r->n);
        fk_unlock();
        return ncclInvalidUsage;
    }
    *comm = new_handle(r->sc, rank, rank, t_dev);
    r->joined++;
    pthread_cond_broadcast(&F.cv);
    double deadline = fk_now() + F.timeout;
    while (r->joined < r->n)
        if (wait_until(deadline)) {
            fk_err("ncclCommInitRank: rank %d: only %d of %d ranks joined after %g s", rank, r->joined, r->n,
                   F.timeout);
            fk_unlock();
            return ncclSystemError;
        }
    fk_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *devs) {
    fk_lock();
    shared *sc = new_shared(n);
    for (int i = 0; i < n; i++) comms[i] = new_handle(sc, i, i, devs ? devs[i] : i);
    fk_unlock();
    return ncclSuccess;
}

static void release(struct fake_comm *h) {
    shared *sc = h->sc;
    sc->h[h->rank] = NULL;
    unref(sc);
    free(h);
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) { return comm ? ncclSuccess : ncclInvalidArgument; }

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    fk_lock();
    release(comm);
    fk_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
    if (!comm) return ncclSuccess;
    fk_lock();
    comm->sc->aborted = 1;
    pthread_cond_broadcast(&F.cv);
    release(comm);
    fk_unlock();
    return ncclSuccess;
}

/* ---- NCCL: matching and execution ---------------------------------------------------------- */

static size_t tsize(ncclDataType_t t) {
    switch (t) {
    case ncclInt8:
    case ncclUint8: return 1;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32: return 4;
    default: return 8;
    }
}

static double ld(const void *b, ncclDataType_t t, size_t i) {
    switch (t) {
    case ncclInt8: return ((const int8_t *)b)[i];
    case ncclUint8: return ((const uint8_t *)b)[i];
    case ncclInt32: return ((const int32_t *)b)[i];
    case ncclUint32: return ((const uint32_t *)b)[i];
    case ncclInt64: return (double)((const int64_t *)b)[i];
    case ncclUint64: return (double)((const uint64_t *)b)[i];
    case ncclFloat16: return ar_real_f16_to_f32(((const uint16_t *)b)[i]);
    case ncclBfloat16: return ar_real_bf16_to_f32(((const uint16_t *)b)[i]);
    case ncclFloat32: return ((const float *)b)[i];
    default: return ((const double *)b)[i];
    }
}

static void st_(void *b, ncclDataType_t t, size_t i, double v) {
    switch (t) {
    case ncclInt8: ((int8_t *)b)[i] = (int8_t)v; break;
    case ncclUint8: ((uint8_t *)b)[i] = (uint8_t)v; break;
    case ncclInt32: ((int32_t *)b)[i] = (int32_t)v; break;
    case ncclUint32: ((uint32_t *)b)[i] = (uint32_t)v; break;
    case ncclInt64: ((int64_t *)b)[i] = (int64_t)v; break;
    case ncclUint64: ((uint64_t *)b)[i] = (uint64_t)v; break;
    case ncclFloat16: ((uint16_t *)b)[i] = ar_real_f32_to_f16((float)v); break;
    case ncclBfloat16: ((uint16_t *)b)[i] = ar_real_f32_to_bf16((float)v); break;
    case ncclFloat32: ((float *)b)[i] = (float)v; break;
    default: ((double *)b)[i] = v; break;
    }
}

/* a op b, rounded to the type (one element of scratch of that type) */
static double combine(double a, double b, ncclRedOp_t op, ncclDataType_t t) {
    double v = op == ncclMax ? fmax(a, b) : op == ncclMin ? fmin(a, b) : op == ncclProd ? a * b : a + b;
    unsigned char tmp[8];
    st_(tmp, t, 0, v);
    return ld(tmp, t, 0);
}

static fop *find_pending(int kind, shared *sc, int rank, int peer, uint64_t seq) {
    for (fop *o = F.pending; o; o = o->next)
        if (o->kind == kind && o->h->sc == sc && o->h->rank == rank && o->seq == seq &&
            (kind == OP_COLL || kind == OP_SPLIT || o->peer == peer))
            return o;
    return NULL;
}

static void unlink_op(fop *x) {
    for (fop **pp = &F.pending; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            return;
        }
}

static void finish(fop *o, int e) {
    unlink_op(o);
    o->done = 1;
    o->err = e;
}

static void do_p2p(fop *s, fop *r) {
    if (s->count != r->count || s->dt != r->dt) {
        fk_err(
            "rank %d ncclSend to %d (#%llu) of %zu elements type %d matches rank %d ncclRecv of %zu elements type %d",
            s->h->rank, r->h->rank, (unsigned long long)s->seq, s->count, (int)s->dt, r->h->rank, r->count, (int)r->dt);
        finish(s, ncclInvalidUsage);
        finish(r, ncclInvalidUsage);
        return;
    }
    memmove(r->rb, s->sb, s->count * tsize(s->dt));
    F.st.sends++;
    F.st.recvs++;
    finish(s, 0);
    finish(r, 0);
}

static void do_coll(fop **ops, int n) {
    fop *a = ops[0];
    for (int r = 1; r < n; r++) {
        fop *b = ops[r];
        if (b->call != a->call || b->count != a->count || b->dt != a->dt || b->op != a->op ||
            ((a->call == C_RED || a->call == C_BC) && b->root != a->root)) {
            fk_err("%s #%llu on comm %d: rank 0 has count %zu type %d op %d root %d, rank %d has %s count %zu type %d "
                   "op %d root %d (mismatched calls)",
                   cname[a->call], (unsigned long long)a->seq, a->h->sc->id, a->count, (int)a->dt, (int)a->op, a->root,
                   r, cname[b->call], b->count, (int)b->dt, (int)b->op, b->root);
            for (int k = 0; k < n; k++) finish(ops[k], ncclInvalidUsage);
            return;
        }
    }
    size_t c = a->count, z = tsize(a->dt);
    ncclDataType_t t = a->dt;
    size_t tot = a->call == C_RS || a->call == C_AG ? c * (size_t)n : c;
    double *res = calloc(tot ? tot : 1, sizeof *res);
    if (!res) abort();
    switch (a->call) {
    case C_AR:
    case C_RED:
        for (size_t i = 0; i < c; i++) {
            double v = ld(ops[0]->sb, t, i);
            for (int r = 1; r < n; r++) v = combine(v, ld(ops[r]->sb, t, i), a->op, t);
            res[i] = v;
        }
        for (int r = 0; r < n; r++)
            if (a->call == C_AR || r == a->root)
                for (size_t i = 0; i < c; i++) st_(ops[r]->rb, t, i, res[i]);
        break;
    case C_RS:
        for (size_t i = 0; i < tot; i++) {
            double v = ld(ops[0]->sb, t, i);
            for (int r = 1; r < n; r++) v = combine(v, ld(ops[r]->sb, t, i), a->op, t);
            res[i] = v;
        }
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < c; i++) st_(ops[r]->rb, t, i, res[(size_t)r * c + i]);
        break;
    case C_AG:
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < c; i++) res[(size_t)r * c + i] = ld(ops[r]->sb, t, i);
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < tot; i++) st_(ops[r]->rb, t, i, res[i]);
        break;
    case C_BC:
        for (size_t i = 0; i < c; i++) res[i] = ld(ops[a->root]->sb, t, i);
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < c; i++) st_(ops[r]->rb, t, i, res[i]);
        break;
    }
    (void)z;
    free(res);
    F.st.colls++;
    for (int r = 0; r < n; r++) finish(ops[r], 0);
}

static int keycmp(const void *x, const void *y) {
    const fop *a = *(fop *const *)x, *b = *(fop *const *)y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->h->rank > b->h->rank) - (a->h->rank < b->h->rank);
}

static void do_split(fop **ops, int n) {
    fop **tmp = calloc((size_t)n, sizeof *tmp);
    int *used = calloc((size_t)n, sizeof *used);
    if (!tmp || !used) abort();
    for (int r = 0; r < n; r++) {
        if (used[r]) continue;
        if (ops[r]->color == NCCL_SPLIT_NOCOLOR) {
            *ops[r]->out = NULL;
            used[r] = 1;
            continue;
        }
        int m = 0;
        for (int q = r; q < n; q++)
            if (!used[q] && ops[q]->color == ops[r]->color) {
                tmp[m++] = ops[q];
                used[q] = 1;
            }
        qsort(tmp, (size_t)m, sizeof *tmp, keycmp);
        shared *sc = new_shared(m);
        for (int k = 0; k < m; k++) *tmp[k]->out = new_handle(sc, k, tmp[k]->h->wrank, tmp[k]->h->dev);
    }
    free(tmp);
    free(used);
    F.st.splits++;
    for (int r = 0; r < n; r++) finish(ops[r], 0);
}

/* Posts o and completes whatever it completes (locked). */
static void post(fop *o) {
    shared *sc = o->h->sc;
    if (sc->aborted) {
        o->done = 1;
        o->err = ncclRemoteError;
        return;
    }
    o->next = F.pending;
    F.pending = o;
    int n = sc->n;
    if (o->kind == OP_SEND) {
        fop *r = find_pending(OP_RECV, sc, o->peer, o->h->rank, o->seq);
        if (r) do_p2p(o, r);
    } else if (o->kind == OP_RECV) {
        fop *s = find_pending(OP_SEND, sc, o->peer, o->h->rank, o->seq);
        if (s) do_p2p(s, o);
    } else {
        fop **ops = calloc((size_t)n, sizeof *ops);
        if (!ops) abort();
        int all = 1;
        for (int r = 0; r < n && all; r++) all = (ops[r] = find_pending(o->kind, sc, r, -1, o->seq)) != NULL;
        if (all) {
            if (o->kind == OP_COLL) do_coll(ops, n);
            else do_split(ops, n);
        }
        free(ops);
    }
    pthread_cond_broadcast(&F.cv);
}

static const char *kind_name(const fop *o) {
    return o->kind == OP_SEND    ? "ncclSend"
           : o->kind == OP_RECV  ? "ncclRecv"
           : o->kind == OP_SPLIT ? "ncclCommSplit"
                                 : cname[o->call];
}

/* Waits for ops[0..n) (locked); returns the first error. */
static ncclResult_t wait_ops(fop **ops, size_t n) {
    double deadline = fk_now() + F.timeout;
    ncclResult_t res = ncclSuccess;
    for (size_t i = 0; i < n; i++) {
        fop *o = ops[i];
        while (!o->done) {
            if (o->h->sc->aborted) {
                unlink_op(o);
                o->done = 1;
                o->err = ncclRemoteError;
                break;
            }
            if (wait_until(deadline)) {
                if (o->kind == OP_SEND || o->kind == OP_RECV)
                    fk_err(
                        "rank %d (world %d): %s %s rank %d (#%llu, %zu elements) on comm %d never matched after %g s",
                        o->h->rank, o->h->wrank, kind_name(o), o->kind == OP_SEND ? "to" : "from", o->peer,
                        (unsigned long long)o->seq, o->count, o->h->sc->id, F.timeout);
                else
                    fk_err("rank %d (world %d): %s #%llu on comm %d (%d ranks): not every rank called it within %g s",
                           o->h->rank, o->h->wrank, kind_name(o), (unsigned long long)o->seq, o->h->sc->id, o->h->sc->n,
                           F.timeout);
                unlink_op(o);
                o->done = 1;
                o->err = ncclSystemError;
                o->h->sc->aborted = 1;
                pthread_cond_broadcast(&F.cv);
                break;
            }
        }
        if (o->err && !res) res = (ncclResult_t)o->err;
    }
    return res;
}

static ncclResult_t run_group(fop **ops, size_t n) {
    /* an injected UNGROUP: the point-to-point calls one by one */
    int ungroup = 0;
    if (F.fault == FAKE_UNGROUP) {
        int has_p2p = 0, who = -1;
        for (size_t i = 0; i < n; i++)
            if (ops[i]->kind == OP_SEND || ops[i]->kind == OP_RECV) {
                has_p2p = 1;
                who = ops[i]->h->wrank;
            }
        if (has_p2p && who >= 0 && who < 4096 && (F.frank < 0 || F.frank == who) && F.ngroup[who]++ >= F.fnth)
            ungroup = 1;
    }
    ncclResult_t res = ncclSuccess;
    if (ungroup) {
        /* sends first, each blocking until matched, then the receives: the
         * classic code without a group */
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n && !res; i++) {
                if ((ops[i]->kind == OP_SEND) != (pass == 0)) continue;
                post(ops[i]);
                res = wait_ops(&ops[i], 1);
            }
        for (size_t i = 0; i < n; i++)
            if (!ops[i]->done) unlink_op(ops[i]);
    } else {
        for (size_t i = 0; i < n; i++) post(ops[i]);
        res = wait_ops(ops, n);
    }
    return res;
}

static ncclResult_t submit(fop *o) {
    fop *x = malloc(sizeof *x);
    if (!x) return ncclSystemError;
    *x = *o;
    if (t_depth > 0) {
        if (t_ngroup == t_capgroup) {
            size_t nc = t_capgroup ? 2 * t_capgroup : 64;
            fop **ng = realloc(t_group, nc * sizeof *ng);
            if (!ng) {
                free(x);
                return ncclSystemError;
            }
            t_group = ng;
            t_capgroup = nc;
        }
        t_group[t_ngroup++] = x;
        return ncclSuccess;
    }
    fk_lock();
    F.st.groups++;
    ncclResult_t r = run_group(&x, 1);
    fk_unlock();
    free(x);
    return r;
}

ncclResult_t ncclGroupStart(void) {
    t_depth++;
    return ncclSuccess;
}

/* A call on a captured stream: kept for the group's node (returns 1). */
static int capture_call(const ncall *c) {
    if (!c->s || !c->s->cap) return 0;
    if (t_ncapcalls == t_capcap) {
        size_t nc = t_capcap ? 2 * t_capcap : 32;
        ncall *n = realloc(t_capcalls, nc * sizeof *n);
        if (!n) abort();
        t_capcalls = n;
        t_capcap = nc;
    }
    t_capcalls[t_ncapcalls++] = *c;
    if (t_depth == 0) { /* outside a group: a node of its own */
        t_depth = 1;
        ncclGroupEnd();
    }
    return 1;
}

/* locked: the captured calls of the group become one node (on the first call's stream) */
static void capture_flush(void) {
    if (!t_ncapcalls) return;
    gnode *x = fk_gadd(t_capcalls[0].s, N_NCCL);
    x->calls = malloc(t_ncapcalls * sizeof *x->calls);
    if (!x->calls) abort();
    memcpy(x->calls, t_capcalls, t_ncapcalls * sizeof *x->calls);
    x->ncalls = t_ncapcalls;
    for (size_t i = 1; i < t_ncapcalls; i++)
        if (t_capcalls[i].s->forked) t_capcalls[i].s->joined = 0;
    t_ncapcalls = 0;
}

ncclResult_t ncclGroupEnd(void) {
    if (t_depth <= 0) return ncclInvalidUsage;
    if (--t_depth > 0) return ncclSuccess;
    fk_lock();
    capture_flush();
    F.st.groups++;
    ncclResult_t r = t_ngroup ? run_group(t_group, t_ngroup) : ncclSuccess;
    fk_unlock();
    for (size_t i = 0; i < t_ngroup; i++) free(t_group[i]);
    t_ngroup = 0;
    free(t_group);
    t_group = NULL;
    t_capgroup = 0;
    if (!t_depth) {
        free(t_capcalls);
        t_capcalls = NULL;
        t_capcap = 0;
    }
    return r;
}

/* Common checks and the stream-order accesses of a call (locked). */
static ncclResult_t check_call(struct fake_comm *h, cudaStream_t s, const char *what) {
    if (!h) {
        fk_err("%s: NULL communicator", what);
        return ncclInvalidArgument;
    }
    if (!s || s->dev != h->dev) {
        fk_err("%s: rank %d: stream of device %d, communicator of device %d", what, h->wrank, s ? s->dev : -1, h->dev);
        return ncclInvalidArgument;
    }
    return ncclSuccess;
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
    ncall c = {0, buf, NULL, count, (int)t, 0, 0, peer, comm, s};
    if (capture_call(&c)) return ncclSuccess;
    fk_lock();
    ncclResult_t r = check_call(comm, s, "ncclSend");
    if (!r && (peer < 0 || peer >= comm->sc->n || peer == comm->rank)) {
        fk_err("ncclSend: rank %d: bad peer %d", comm->rank, peer);
        r = ncclInvalidArgument;
    }
    if (!r && fk_access_locked(s, buf, count * tsize(t), 0, "ncclSend")) r = ncclInvalidArgument;
    fop o = {0};
    if (!r)
        o = (fop){.kind = OP_SEND,
                  .h = comm,
                  .peer = peer,
                  .sb = buf,
                  .count = count,
                  .dt = t,
                  .seq = comm->sc->send_seq[(size_t)comm->rank * (size_t)comm->sc->n + (size_t)peer]++};
    fk_unlock();
    return r ? r : submit(&o);
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
    ncall c = {1, NULL, buf, count, (int)t, 0, 0, peer, comm, s};
    if (capture_call(&c)) return ncclSuccess;
    fk_lock();
    ncclResult_t r = check_call(comm, s, "ncclRecv");
    if (!r && (peer < 0 || peer >= comm->sc->n || peer == comm->rank)) {
        fk_err("ncclRecv: rank %d: bad peer %d", comm->rank, peer);
        r = ncclInvalidArgument;
    }
    if (!r && fk_access_locked(s, buf, count * tsize(t), 1, "ncclRecv")) r = ncclInvalidArgument;
    int drop = 0;
    if (!r && F.fault == FAKE_DROP_RECV && comm->wrank == F.frank && comm->wrank < 4096 &&
        F.nrecv[comm->wrank]++ == F.fnth)
        drop = 1;
    fop o = {0};
    if (!r && !drop)
        o = (fop){.kind = OP_RECV,
                  .h = comm,
                  .peer = peer,
                  .rb = buf,
                  .count = count,
                  .dt = t,
                  .seq = comm->sc->recv_seq[(size_t)comm->rank * (size_t)comm->sc->n + (size_t)peer]++};
    fk_unlock();
    return r || drop ? r : submit(&o);
}

static ncclResult_t coll(int call, const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                         ncclComm_t comm, cudaStream_t s) {
    ncall cc = {2 + call, sb, rb, count, (int)t, (int)op, root, 0, comm, s};
    if (capture_call(&cc)) return ncclSuccess;
    fk_lock();
    ncclResult_t r = check_call(comm, s, cname[call]);
    int n = comm ? comm->sc->n : 1;
    size_t z = tsize(t), in = count * z, outb = count * z;
    if (call == C_RS) in *= (size_t)n;
    if (call == C_AG) outb *= (size_t)n;
    if (!r && (call == C_RED || call == C_BC) && (root < 0 || root >= n)) {
        fk_err("%s: bad root %d", cname[call], root);
        r = ncclInvalidArgument;
    }
    int reads = call != C_BC || comm->rank == root, writes = call != C_RED || comm->rank == root;
    if (!r && reads && fk_access_locked(s, sb, in, 0, cname[call])) r = ncclInvalidArgument;
    if (!r && writes && fk_access_locked(s, rb, outb, 1, cname[call])) r = ncclInvalidArgument;
    if (!r && F.fault == FAKE_COUNT && comm->wrank == F.frank && comm->wrank < 4096 && F.ncoll[comm->wrank]++ == F.fnth)
        count++;
    fop o = {0};
    if (!r)
        o = (fop){.kind = OP_COLL,
                  .call = call,
                  .h = comm,
                  .sb = sb,
                  .rb = rb,
                  .count = count,
                  .dt = t,
                  .op = op,
                  .root = root,
                  .seq = comm->sc->coll_seq[comm->rank]++};
    fk_unlock();
    return r ? r : submit(&o);
}

ncclResult_t ncclAllReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t s) {
    return coll(C_AR, sb, rb, count, t, op, 0, comm, s);
}
ncclResult_t ncclReduceScatter(const void *sb, void *rb, size_t recvcount, ncclDataType_t t, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t s) {
    return coll(C_RS, sb, rb, recvcount, t, op, 0, comm, s);
}
ncclResult_t ncclAllGather(const void *sb, void *rb, size_t sendcount, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t s) {
    return coll(C_AG, sb, rb, sendcount, t, ncclSum, 0, comm, s);
}
ncclResult_t ncclReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t s) {
    return coll(C_RED, sb, rb, count, t, op, root, comm, s);
}
ncclResult_t ncclBroadcast(const void *sb, void *rb, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t s) {
    return coll(C_BC, sb, rb, count, t, ncclSum, root, comm, s);
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config) {
    (void)config;
    if (!comm || !newcomm) return ncclInvalidArgument;
    fk_lock();
    *newcomm = NULL;
    int skip = F.fault == FAKE_SKIP_SPLIT && comm->wrank == F.frank && comm->wrank < 4096 &&
               F.nsplit[comm->wrank]++ == F.fnth;
    fop o = {0};
    if (!skip)
        o = (fop){.kind = OP_SPLIT,
                  .h = comm,
                  .color = color,
                  .key = key,
                  .out = newcomm,
                  .seq = comm->sc->split_seq[comm->rank]++};
    fk_unlock();
    return skip ? ncclSuccess : submit(&o);
}

ncclResult_t fk_replay_call(const ncall *c) {
    switch (c->kind) {
    case 0: return ncclSend(c->sb, c->count, (ncclDataType_t)c->dt, c->peer, c->comm, c->s);
    case 1: return ncclRecv(c->rb, c->count, (ncclDataType_t)c->dt, c->peer, c->comm, c->s);
    default:
        return coll(c->kind - 2, c->sb, c->rb, c->count, (ncclDataType_t)c->dt, (ncclRedOp_t)c->op, c->root, c->comm,
                    c->s);
    }
}
