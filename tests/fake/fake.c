/* Host fakes of the CUDA runtime and NCCL (cuda_runtime_api.h, nccl.h, fake.h
 * in this folder), part 1: the process-wide state under one mutex, the test
 * control API, device memory and the stream order (vector clocks), graph
 * records. fake_cuda.c has the CUDA runtime, fake_nccl.c NCCL; fake_int.h
 * what they share. NCCL calls wait for their matches on one condition
 * variable with a deadline. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_int.h"

struct fake_state F = {.mu = PTHREAD_MUTEX_INITIALIZER,
                       .cv = PTHREAD_COND_INITIALIZER,
                       .ndev = 4,
                       .driver = 13000,
                       .count_err = cudaSuccess,
                       .timeout = 10.0};

_Thread_local int t_dev;
_Thread_local char t_err[512];

void fk_lock(void) { pthread_mutex_lock(&F.mu); }
void fk_unlock(void) { pthread_mutex_unlock(&F.mu); }

double fk_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* records an error (locked) */
void fk_err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_err, sizeof t_err, fmt, ap);
    va_end(ap);
    if (!F.first_err[0]) snprintf(F.first_err, sizeof F.first_err, "%s", t_err);
    F.st.errors++;
}

void fake_cuda_config(int ndev, cudaError_t count_error, int driver_version) {
    fk_lock();
    F.ndev = ndev < MAXDEV ? ndev : MAXDEV;
    F.count_err = count_error;
    F.driver = driver_version;
    fk_unlock();
}

void fake_nccl_config(double timeout_s) {
    fk_lock();
    F.timeout = timeout_s;
    fk_unlock();
}

void fake_inject(fake_fault f, int rank, int nth) {
    fk_lock();
    F.fault = f;
    F.frank = rank;
    F.fnth = nth;
    fk_unlock();
}

void fake_reset(void) {
    fk_lock();
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
    fk_unlock();
}

fake_stats fake_get_stats(void) {
    fk_lock();
    fake_stats s = F.st;
    s.live_allocs = (long)F.nal;
    fk_unlock();
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
int fk_access_locked(cudaStream_t s, const void *p, size_t n, int write, const char *what) {
    if (!s) {
        fk_err("%s: NULL stream (exec uses its own non-blocking streams)", what);
        return -1;
    }
    if (n == 0) return 0;
    alloc *a = find_alloc(p, n);
    if (!a) {
        fk_err("%s: %zu bytes at %p are not inside one cudaMalloc block", what, n, p);
        return -1;
    }
    if (a->dev != s->dev) {
        fk_err("%s: memory of device %d used on a stream of device %d", what, a->dev, s->dev);
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
            fk_err("%s: stream %d %s bytes [%zu,%zu) of a block that stream %d %s with no event between them "
                   "(a race on a GPU)",
                   what, s->id, write ? "writes" : "reads", lo, hi, x->sid, x->write ? "wrote" : "read");
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
    fk_lock();
    int r = fk_access_locked(s, p, n, write, what);
    fk_unlock();
    return r;
}

int fake_stream_current(cudaStream_t s) { return s && s->dev == t_dev; }

void fake_count_kernel(void) {
    fk_lock();
    F.st.kernels++;
    fk_unlock();
}

/* locked: appends a node to s's capture; marks a forked stream unjoined */
gnode *fk_gadd(cudaStream_t s, int kind) {
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
    fk_lock();
    gnode *x = fk_gadd(s, N_KERNEL);
    x->dtype = dtype;
    x->buf = buf;
    x->scratch = scratch;
    x->posts = posts;
    x->nposts = nposts;
    x->srcs = src_offs;
    x->max_count = max_count;
    fk_unlock();
    return 1;
}
