/* Host fakes of the CUDA runtime and NCCL (cuda_runtime_api.h, nccl.h, fake.h
 * in this folder). Process-wide state, like the libraries they replace, under
 * one mutex; NCCL calls wait for their matches on one condition variable with
 * a deadline. Owner: the real/ backend's tests. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake.h"
#include "nccl.h"
#include "real/kernels.h"
#include "real/rmeasure.h"

#define MAXS 64      /* streams per device */
#define MAXDEV 64
#define MAXACC 2000000

/* ---- state ------------------------------------------------------------------------------ */

typedef struct alloc {
    char *p;
    size_t n;
    int dev;
} alloc;

typedef struct acc {
    const char *base;   /* allocation */
    size_t lo, hi;
    int write, sid;
    unsigned clock;
} acc;

typedef struct devstate {
    struct fake_stream *live[MAXS]; /* by id (NULL: destroyed) */
    int nstreams;       /* ids handed out */
    int alive;
    acc *acc;
    size_t nacc, capacc;
    int overflow;
} devstate;

struct fake_graph;

struct fake_stream {
    int dev, id;
    unsigned vc[MAXS];
    struct fake_graph *cap; /* being captured into this graph */
    int forked, joined;     /* forked into a capture; joined back since its last op */
};

struct fake_event {
    int dev;
    unsigned vc[MAXS];
    double t;
    int recorded;
    struct fake_graph *cap; /* recorded during a capture (by stream `by`) */
    struct fake_stream *by;
};

/* ---- graphs: a record of calls, replayed in order ---------------------------------------- */

enum { N_COPY, N_SET, N_KERNEL, N_EVREC, N_WAIT, N_NCCL };

typedef struct ncall {
    int kind;           /* 0 send, 1 recv, 2 all-reduce, 3 reduce-scatter, 4 all-gather, 5 reduce, 6 broadcast */
    const void *sb;
    void *rb;
    size_t count;
    int dt, op, root, peer;
    struct fake_comm *comm;
    cudaStream_t s;
} ncall;

typedef struct gnode {
    int kind;
    cudaStream_t s;
    void *dst;
    const void *src;
    size_t n;
    int v;                  /* COPY: kind; SET: value */
    cudaEvent_t ev;
    int dtype, nposts;      /* KERNEL */
    void *buf;
    const void *scratch, *posts;
    const uint64_t *srcs;
    uint64_t max_count;
    ncall *calls;           /* NCCL: one group (owned) */
    size_t ncalls;
} gnode;

struct fake_graph {
    gnode *v;
    size_t n, cap;
    struct fake_stream *origin;
    struct fake_stream *streams[MAXS];
    int nstreams;
};

typedef struct fop fop;

typedef struct shared {
    int n;
    int id;
    struct fake_comm **h;    /* per comm rank */
    uint64_t *coll_seq, *split_seq, *send_seq, *recv_seq; /* send/recv: n x n */
    int aborted;
    int refs;
} shared;

struct fake_comm {
    shared *sc;
    int rank, wrank, dev;
    int destroyed;
};

enum { OP_SEND, OP_RECV, OP_COLL, OP_SPLIT };
enum { C_AR, C_RS, C_AG, C_RED, C_BC };
static const char *const cname[] = {"ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclReduce",
                                    "ncclBroadcast"};

struct fop {
    int kind, call;
    struct fake_comm *h;
    int peer;
    const void *sb;
    void *rb;
    size_t count;
    ncclDataType_t dt;
    ncclRedOp_t op;
    int root;
    uint64_t seq;
    int color, key;
    ncclComm_t *out;
    int done, err;
    fop *next;          /* pending list */
};

typedef struct initreg {
    ncclUniqueId id;
    int n, joined;
    shared *sc;
    struct initreg *next;
} initreg;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ndev, driver;
    cudaError_t count_err;
    double timeout;
    alloc *al;
    size_t nal, capal;
    devstate dev[MAXDEV];
    fop *pending;
    initreg *inits;
    int ncomms, nids;
    fake_fault fault;
    int frank, fnth;
    long nrecv[4096], ncoll[4096], nsplit[4096], ngroup[4096];
    fake_stats st;
    char first_err[512];
    int timing0;
} F = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .ndev = 4, .driver = 13000,
       .count_err = cudaSuccess, .timeout = 10.0};

static _Thread_local int t_dev;
static _Thread_local int t_depth;
static _Thread_local fop **t_group;
static _Thread_local size_t t_ngroup, t_capgroup;
static _Thread_local char t_err[512];
static _Thread_local ncall *t_capcalls;     /* NCCL calls of the current group on captured streams */
static _Thread_local size_t t_ncapcalls, t_capcap;

static void lock(void) { pthread_mutex_lock(&F.mu); }
static void unlock(void) { pthread_mutex_unlock(&F.mu); }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* records an error (locked) */
static void err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_err, sizeof t_err, fmt, ap);
    va_end(ap);
    if (!F.first_err[0]) snprintf(F.first_err, sizeof F.first_err, "%s", t_err);
    F.st.errors++;
}

void fake_cuda_config(int ndev, cudaError_t count_error, int driver_version) {
    lock();
    F.ndev = ndev < MAXDEV ? ndev : MAXDEV;
    F.count_err = count_error;
    F.driver = driver_version;
    unlock();
}

void fake_nccl_config(double timeout_s) {
    lock();
    F.timeout = timeout_s;
    unlock();
}

void fake_inject(fake_fault f, int rank, int nth) {
    lock();
    F.fault = f;
    F.frank = rank;
    F.fnth = nth;
    unlock();
}

void fake_reset(void) {
    lock();
    for (int d = 0; d < MAXDEV; d++) {
        free(F.dev[d].acc);
        memset(&F.dev[d], 0, sizeof F.dev[d]);
    }
    while (F.inits) {
        initreg *n = F.inits->next;
        free(F.inits);
        F.inits = n;
    }
    F.fault = FAKE_NONE;
    memset(F.nrecv, 0, sizeof F.nrecv);
    memset(F.ncoll, 0, sizeof F.ncoll);
    memset(F.nsplit, 0, sizeof F.nsplit);
    memset(F.ngroup, 0, sizeof F.ngroup);
    long live = F.st.live_allocs;
    memset(&F.st, 0, sizeof F.st);
    F.st.live_allocs = live;
    F.first_err[0] = 0;
    F.timeout = 10.0;
    F.ndev = 4;
    F.count_err = cudaSuccess;
    F.driver = 13000;
    unlock();
}

fake_stats fake_get_stats(void) {
    lock();
    fake_stats s = F.st;
    s.live_allocs = (long)F.nal;
    unlock();
    return s;
}

const char *fake_first_error(void) { return F.first_err; }

/* ---- memory and the stream order --------------------------------------------------------- */

static alloc *find_alloc(const void *p, size_t n) {
    const char *c = p;
    for (size_t i = 0; i < F.nal; i++)
        if (c >= F.al[i].p && c + n <= F.al[i].p + F.al[i].n && (n || c < F.al[i].p + F.al[i].n + 1)) return &F.al[i];
    return NULL;
}

/* locked */
static int access_locked(cudaStream_t s, const void *p, size_t n, int write, const char *what) {
    if (!s) {
        err("%s: NULL stream (exec uses its own non-blocking streams)", what);
        return -1;
    }
    if (n == 0) return 0;
    alloc *a = find_alloc(p, n);
    if (!a) {
        err("%s: %zu bytes at %p are not inside one cudaMalloc block", what, n, p);
        return -1;
    }
    if (a->dev != s->dev) {
        err("%s: memory of device %d used on a stream of device %d", what, a->dev, s->dev);
        return -1;
    }
    devstate *D = &F.dev[s->dev];
    s->vc[s->id]++;
    size_t lo = (size_t)((const char *)p - a->p), hi = lo + n;
    size_t keep = 0;
    for (size_t i = 0; i < D->nacc; i++) {
        acc *x = &D->acc[i];
        if (x->base == a->p && x->sid != s->id && x->lo < hi && lo < x->hi && (x->write || write) &&
            s->vc[x->sid] < x->clock) {
            F.st.races++;
            err("%s: stream %d %s bytes [%zu,%zu) of a block that stream %d %s with no event between them "
                "(a race on a GPU)", what, s->id, write ? "writes" : "reads", lo, hi, x->sid,
                x->write ? "wrote" : "read");
            return -1;
        }
        /* a later access of the same stream to the same range supersedes this one */
        if (x->sid == s->id && x->base == a->p && x->lo >= lo && x->hi <= hi && (write || !x->write)) continue;
        /* every live stream has seen it: nothing can race with it any more */
        int seen = 1;
        for (int k = 0; k < D->nstreams && seen; k++)
            if (D->live[k] && D->live[k]->vc[x->sid] < x->clock) seen = 0;
        if (seen) continue;
        D->acc[keep++] = *x;
    }
    D->nacc = keep;
    if (D->nacc == D->capacc) {
        if (D->capacc >= MAXACC) {
            D->overflow = 1;
            return 0;
        }
        size_t nc = D->capacc ? 2 * D->capacc : 1024;
        acc *na = realloc(D->acc, nc * sizeof *na);
        if (!na) return 0;
        D->acc = na;
        D->capacc = nc;
    }
    D->acc[D->nacc++] = (acc){a->p, lo, hi, write, s->id, s->vc[s->id]};
    return 0;
}

int fake_access(cudaStream_t s, const void *p, size_t n, int write, const char *what) {
    lock();
    int r = access_locked(s, p, n, write, what);
    unlock();
    return r;
}

int fake_stream_current(cudaStream_t s) { return s && s->dev == t_dev; }

void fake_count_kernel(void) {
    lock();
    F.st.kernels++;
    unlock();
}

/* locked: appends a node to s's capture; marks a forked stream unjoined */
static gnode *gadd(cudaStream_t s, int kind) {
    struct fake_graph *g = s->cap;
    if (g->n == g->cap) {
        size_t nc = g->cap ? 2 * g->cap : 64;
        gnode *nv = realloc(g->v, nc * sizeof *nv);
        if (!nv) abort();
        g->v = nv;
        g->cap = nc;
    }
    gnode *x = &g->v[g->n++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->s = s;
    if (s->forked) s->joined = 0;
    return x;
}

int fake_capture_kernel(int dtype, void *buf, const void *scratch, const void *posts, int nposts,
                        const uint64_t *src_offs, uint64_t max_count, cudaStream_t s) {
    if (!s || !s->cap) return 0;
    lock();
    gnode *x = gadd(s, N_KERNEL);
    x->dtype = dtype;
    x->buf = buf;
    x->scratch = scratch;
    x->posts = posts;
    x->nposts = nposts;
    x->srcs = src_offs;
    x->max_count = max_count;
    unlock();
    return 1;
}

/* ---- CUDA runtime ------------------------------------------------------------------------- */

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "fake CUDA error";
    }
}

const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    default: return "cudaErrorUnknown";
    }
}

cudaError_t cudaGetDeviceCount(int *n) {
    lock();
    cudaError_t e = F.count_err;
    if (!e) *n = F.ndev;
    unlock();
    return e;
}

cudaError_t cudaDriverGetVersion(int *v) {
    *v = F.driver;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    *v = 13000;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= F.ndev) return cudaErrorInvalidDevice;
    t_dev = d;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int d) {
    if (d < 0 || d >= F.ndev || len < 13) return cudaErrorInvalidValue;
    snprintf(bus, (size_t)len, "0000:%02x:00.0", d + 1);
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) {
    if (d < 0 || d >= F.ndev) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Fake GPU %d", d);
    p->pciBusID = d + 1;
    p->totalGlobalMem = (size_t)1 << 30;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n) {
    char *m = malloc(n ? n : 1);
    if (!m) return cudaErrorMemoryAllocation;
    memset(m, 0xA5, n); /* garbage, as device memory */
    lock();
    if (F.nal == F.capal) {
        size_t nc = F.capal ? 2 * F.capal : 256;
        alloc *na = realloc(F.al, nc * sizeof *na);
        if (!na) {
            unlock();
            free(m);
            return cudaErrorMemoryAllocation;
        }
        F.al = na;
        F.capal = nc;
    }
    F.al[F.nal++] = (alloc){m, n, t_dev};
    unlock();
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
    lock();
    for (size_t i = 0; i < F.nal; i++)
        if (F.al[i].p == p) {
            devstate *D = &F.dev[F.al[i].dev];
            size_t keep = 0;
            for (size_t k = 0; k < D->nacc; k++)
                if (D->acc[k].base != (char *)p) D->acc[keep++] = D->acc[k];
            D->nacc = keep;
            F.al[i] = F.al[--F.nal];
            if (F.nal == 0) {
                free(F.al);
                F.al = NULL;
                F.capal = 0;
            }
            unlock();
            free(p);
            return cudaSuccess;
        }
    unlock();
    return cudaErrorInvalidValue;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
    lock();
    if (s && s->cap) {
        gnode *x = gadd(s, N_COPY);
        x->dst = dst;
        x->src = src;
        x->n = n;
        x->v = (int)kind;
        unlock();
        return cudaSuccess;
    }
    int bad = 0;
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
        bad |= access_locked(s, dst, n, 1, "cudaMemcpyAsync(dst)");
    if (!bad && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice))
        bad |= access_locked(s, src, n, 0, "cudaMemcpyAsync(src)");
    if (!bad) F.st.copies++;
    unlock();
    if (bad) return cudaErrorInvalidValue;
    memmove(dst, src, n);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int v, size_t n, cudaStream_t s) {
    if (s && s->cap) {
        lock();
        gnode *x = gadd(s, N_SET);
        x->dst = dst;
        x->n = n;
        x->v = v;
        unlock();
        return cudaSuccess;
    }
    if (fake_access(s, dst, n, 1, "cudaMemsetAsync")) return cudaErrorInvalidValue;
    memset(dst, v, n);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
    (void)flags;
    struct fake_stream *x = calloc(1, sizeof *x);
    if (!x) return cudaErrorMemoryAllocation;
    lock();
    devstate *D = &F.dev[t_dev];
    if (D->nstreams >= MAXS) {
        unlock();
        free(x);
        return cudaErrorMemoryAllocation;
    }
    x->dev = t_dev;
    x->id = D->nstreams++;
    D->live[x->id] = x;
    D->alive++;
    if (D->alive > F.st.max_streams) F.st.max_streams = D->alive;
    unlock();
    *s = x;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s) return cudaErrorInvalidResourceHandle;
    lock();
    F.dev[s->dev].alive--;
    F.dev[s->dev].live[s->id] = NULL;
    if (F.dev[s->dev].alive == 0) { /* the device's streams are all gone: start ids afresh */
        F.dev[s->dev].nstreams = 0;
        F.dev[s->dev].nacc = 0;
    }
    unlock();
    free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) { return s ? cudaSuccess : cudaErrorInvalidResourceHandle; }

cudaError_t cudaEventCreate(cudaEvent_t *ev) { return cudaEventCreateWithFlags(ev, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags) {
    (void)flags;
    struct fake_event *x = calloc(1, sizeof *x);
    if (!x) return cudaErrorMemoryAllocation;
    x->dev = t_dev;
    *ev = x;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t ev) {
    free(ev);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s) {
    if (!ev || !s) return cudaErrorInvalidResourceHandle;
    if (ev->dev != s->dev) return cudaErrorInvalidResourceHandle;
    lock();
    if (s->cap) {
        gnode *x = gadd(s, N_EVREC);
        x->ev = ev;
        ev->cap = s->cap;
        ev->by = s;
        unlock();
        return cudaSuccess;
    }
    ev->cap = NULL;
    s->vc[s->id]++;
    memcpy(ev->vc, s->vc, sizeof ev->vc);
    ev->t = now();
    ev->recorded = 1;
    unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags) {
    (void)flags;
    if (!ev || !s) return cudaErrorInvalidResourceHandle;
    lock();
    if (ev->cap) {
        struct fake_graph *g = ev->cap;
        if (!s->cap) { /* a fork: s joins the capture */
            if (g->nstreams == MAXS) abort();
            s->cap = g;
            s->forked = 1;
            g->streams[g->nstreams++] = s;
        }
        if (s == g->origin && ev->by && ev->by->forked) ev->by->joined = 1; /* a join back */
        gnode *x = gadd(s, N_WAIT);
        x->ev = ev;
        F.st.side_waits++;
        unlock();
        return cudaSuccess;
    }
    if (s->cap) { /* waiting on an event from outside the capture */
        gnode *x = gadd(s, N_WAIT);
        x->ev = ev;
        unlock();
        return cudaSuccess;
    }
    for (int i = 0; i < MAXS; i++)
        if (ev->vc[i] > s->vc[i]) s->vc[i] = ev->vc[i];
    F.st.side_waits++;
    unlock();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev) { return ev ? cudaSuccess : cudaErrorInvalidResourceHandle; }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    if (!a || !b || !a->recorded || !b->recorded) return cudaErrorInvalidResourceHandle;
    *ms = (float)((b->t - a->t) * 1e3);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
    (void)mode;
    if (!s || s->cap) return cudaErrorInvalidValue;
    struct fake_graph *g = calloc(1, sizeof *g);
    if (!g) return cudaErrorMemoryAllocation;
    lock();
    g->origin = s;
    g->streams[g->nstreams++] = s;
    s->cap = g;
    s->forked = 0;
    unlock();
    return cudaSuccess;
}

static void graph_free(struct fake_graph *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) free(g->v[i].calls);
    free(g->v);
    free(g);
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *out) {
    *out = NULL;
    if (!s || !s->cap || s->cap->origin != s) return cudaErrorInvalidValue;
    lock();
    struct fake_graph *g = s->cap;
    int unjoined = -1;
    for (int i = 0; i < g->nstreams; i++)
        if (g->streams[i]->forked && !g->streams[i]->joined && unjoined < 0) unjoined = g->streams[i]->id;
    for (int i = 0; i < g->nstreams; i++) {
        g->streams[i]->cap = NULL;
        g->streams[i]->forked = g->streams[i]->joined = 0;
    }
    if (unjoined >= 0) {
        err("cudaStreamEndCapture: stream %d was forked into the capture and not joined back", unjoined);
        unlock();
        graph_free(g);
        return cudaErrorStreamCaptureUnjoined;
    }
    unlock();
    *out = (cudaGraph_t)g;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
    (void)flags;
    *x = (cudaGraphExec_t)g; /* the exec is the graph (destroyed by cudaGraphDestroy) */
    return g ? cudaSuccess : cudaErrorInvalidValue;
}

static ncclResult_t replay_call(const ncall *c);

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
    struct fake_graph *g = (struct fake_graph *)x;
    if (!g || !s) return cudaErrorInvalidValue;
    lock();
    F.st.graph_launches++;
    unlock();
    for (size_t i = 0; i < g->n; i++) {
        const gnode *v = &g->v[i];
        cudaError_t ce = cudaSuccess;
        switch (v->kind) {
        case N_COPY: ce = cudaMemcpyAsync(v->dst, v->src, v->n, (enum cudaMemcpyKind)v->v, v->s); break;
        case N_SET: ce = cudaMemsetAsync(v->dst, v->v, v->n, v->s); break;
        case N_EVREC: ce = cudaEventRecord(v->ev, v->s); break;
        case N_WAIT: ce = cudaStreamWaitEvent(v->s, v->ev, 0); break;
        case N_KERNEL: {
            int dev = t_dev;
            t_dev = v->s->dev; /* a graph's kernel runs on its stream's device */
            ce = (cudaError_t)ar_real_launch_posts(v->dtype, v->buf, v->scratch, v->posts, v->nposts, v->srcs,
                                                   v->max_count, v->s);
            t_dev = dev;
            break;
        }
        case N_NCCL: {
            ncclResult_t r = ncclGroupStart();
            for (size_t k = 0; k < v->ncalls && r == ncclSuccess; k++) r = replay_call(&v->calls[k]);
            ncclResult_t r2 = ncclGroupEnd();
            if (r == ncclSuccess) r = r2;
            if (r != ncclSuccess) ce = cudaErrorUnknown;
            break;
        }
        }
        if (ce != cudaSuccess) return ce;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
    (void)x;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t g) {
    graph_free((struct fake_graph *)g);
    return cudaSuccess;
}

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
    lock();
    snprintf(id->internal, sizeof id->internal, "fake-%ld-%d", (long)getpid(), ++F.nids);
    unlock();
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
    double left = deadline - now();
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
    lock();
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
        err("ncclCommInitRank: rank %d of %d joins an id made for %d ranks (or taken twice)", rank, nranks, r->n);
        unlock();
        return ncclInvalidUsage;
    }
    *comm = new_handle(r->sc, rank, rank, t_dev);
    r->joined++;
    pthread_cond_broadcast(&F.cv);
    double deadline = now() + F.timeout;
    while (r->joined < r->n)
        if (wait_until(deadline)) {
            err("ncclCommInitRank: rank %d: only %d of %d ranks joined after %g s", rank, r->joined, r->n, F.timeout);
            unlock();
            return ncclSystemError;
        }
    unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *devs) {
    lock();
    shared *sc = new_shared(n);
    for (int i = 0; i < n; i++) comms[i] = new_handle(sc, i, i, devs ? devs[i] : i);
    unlock();
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
    lock();
    release(comm);
    unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
    if (!comm) return ncclSuccess;
    lock();
    comm->sc->aborted = 1;
    pthread_cond_broadcast(&F.cv);
    release(comm);
    unlock();
    return ncclSuccess;
}

/* ---- NCCL: matching and execution ---------------------------------------------------------- */

static size_t tsize(ncclDataType_t t) {
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
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
        err("rank %d ncclSend to %d (#%llu) of %zu elements type %d matches rank %d ncclRecv of %zu elements type %d",
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
            err("%s #%llu on comm %d: rank 0 has count %zu type %d op %d root %d, rank %d has %s count %zu type %d "
                "op %d root %d (mismatched calls)", cname[a->call], (unsigned long long)a->seq, a->h->sc->id,
                a->count, (int)a->dt, (int)a->op, a->root, r, cname[b->call], b->count, (int)b->dt, (int)b->op,
                b->root);
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
    return o->kind == OP_SEND ? "ncclSend" : o->kind == OP_RECV ? "ncclRecv" : o->kind == OP_SPLIT ? "ncclCommSplit"
                                                                                               : cname[o->call];
}

/* Waits for ops[0..n) (locked); returns the first error. */
static ncclResult_t wait_ops(fop **ops, size_t n) {
    double deadline = now() + F.timeout;
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
                    err("rank %d (world %d): %s %s rank %d (#%llu, %zu elements) on comm %d never matched after %g s",
                        o->h->rank, o->h->wrank, kind_name(o), o->kind == OP_SEND ? "to" : "from", o->peer,
                        (unsigned long long)o->seq, o->count, o->h->sc->id, F.timeout);
                else
                    err("rank %d (world %d): %s #%llu on comm %d (%d ranks): not every rank called it within %g s",
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
    lock();
    F.st.groups++;
    ncclResult_t r = run_group(&x, 1);
    unlock();
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
    gnode *x = gadd(t_capcalls[0].s, N_NCCL);
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
    lock();
    capture_flush();
    F.st.groups++;
    ncclResult_t r = t_ngroup ? run_group(t_group, t_ngroup) : ncclSuccess;
    unlock();
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
        err("%s: NULL communicator", what);
        return ncclInvalidArgument;
    }
    if (!s || s->dev != h->dev) {
        err("%s: rank %d: stream of device %d, communicator of device %d", what, h->wrank, s ? s->dev : -1, h->dev);
        return ncclInvalidArgument;
    }
    return ncclSuccess;
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
    ncall c = {0, buf, NULL, count, (int)t, 0, 0, peer, comm, s};
    if (capture_call(&c)) return ncclSuccess;
    lock();
    ncclResult_t r = check_call(comm, s, "ncclSend");
    if (!r && (peer < 0 || peer >= comm->sc->n || peer == comm->rank)) {
        err("ncclSend: rank %d: bad peer %d", comm->rank, peer);
        r = ncclInvalidArgument;
    }
    if (!r && access_locked(s, buf, count * tsize(t), 0, "ncclSend")) r = ncclInvalidArgument;
    fop o = {0};
    if (!r) o = (fop){.kind = OP_SEND, .h = comm, .peer = peer, .sb = buf, .count = count, .dt = t,
                      .seq = comm->sc->send_seq[(size_t)comm->rank * (size_t)comm->sc->n + (size_t)peer]++};
    unlock();
    return r ? r : submit(&o);
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
    ncall c = {1, NULL, buf, count, (int)t, 0, 0, peer, comm, s};
    if (capture_call(&c)) return ncclSuccess;
    lock();
    ncclResult_t r = check_call(comm, s, "ncclRecv");
    if (!r && (peer < 0 || peer >= comm->sc->n || peer == comm->rank)) {
        err("ncclRecv: rank %d: bad peer %d", comm->rank, peer);
        r = ncclInvalidArgument;
    }
    if (!r && access_locked(s, buf, count * tsize(t), 1, "ncclRecv")) r = ncclInvalidArgument;
    int drop = 0;
    if (!r && F.fault == FAKE_DROP_RECV && comm->wrank == F.frank && comm->wrank < 4096 &&
        F.nrecv[comm->wrank]++ == F.fnth)
        drop = 1;
    fop o = {0};
    if (!r && !drop) o = (fop){.kind = OP_RECV, .h = comm, .peer = peer, .rb = buf, .count = count, .dt = t,
                               .seq = comm->sc->recv_seq[(size_t)comm->rank * (size_t)comm->sc->n + (size_t)peer]++};
    unlock();
    return r || drop ? r : submit(&o);
}

static ncclResult_t coll(int call, const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op,
                         int root, ncclComm_t comm, cudaStream_t s) {
    ncall cc = {2 + call, sb, rb, count, (int)t, (int)op, root, 0, comm, s};
    if (capture_call(&cc)) return ncclSuccess;
    lock();
    ncclResult_t r = check_call(comm, s, cname[call]);
    int n = comm ? comm->sc->n : 1;
    size_t z = tsize(t), in = count * z, outb = count * z;
    if (call == C_RS) in *= (size_t)n;
    if (call == C_AG) outb *= (size_t)n;
    if (!r && (call == C_RED || call == C_BC) && (root < 0 || root >= n)) {
        err("%s: bad root %d", cname[call], root);
        r = ncclInvalidArgument;
    }
    int reads = call != C_BC || comm->rank == root, writes = call != C_RED || comm->rank == root;
    if (!r && reads && access_locked(s, sb, in, 0, cname[call])) r = ncclInvalidArgument;
    if (!r && writes && access_locked(s, rb, outb, 1, cname[call])) r = ncclInvalidArgument;
    if (!r && F.fault == FAKE_COUNT && comm->wrank == F.frank && comm->wrank < 4096 &&
        F.ncoll[comm->wrank]++ == F.fnth)
        count++;
    fop o = {0};
    if (!r) o = (fop){.kind = OP_COLL, .call = call, .h = comm, .sb = sb, .rb = rb, .count = count, .dt = t, .op = op,
                      .root = root, .seq = comm->sc->coll_seq[comm->rank]++};
    unlock();
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
    lock();
    *newcomm = NULL;
    int skip = F.fault == FAKE_SKIP_SPLIT && comm->wrank == F.frank && comm->wrank < 4096 &&
               F.nsplit[comm->wrank]++ == F.fnth;
    fop o = {0};
    if (!skip) o = (fop){.kind = OP_SPLIT, .h = comm, .color = color, .key = key, .out = newcomm,
                         .seq = comm->sc->split_seq[comm->rank]++};
    unlock();
    return skip ? ncclSuccess : submit(&o);
}

static ncclResult_t replay_call(const ncall *c) {
    switch (c->kind) {
    case 0: return ncclSend(c->sb, c->count, (ncclDataType_t)c->dt, c->peer, c->comm, c->s);
    case 1: return ncclRecv(c->rb, c->count, (ncclDataType_t)c->dt, c->peer, c->comm, c->s);
    default:
        return coll(c->kind - 2, c->sb, c->rb, c->count, (ncclDataType_t)c->dt, (ncclRedOp_t)c->op, c->root, c->comm,
                    c->s);
    }
}
