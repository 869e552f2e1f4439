/* Host fakes (fake_int.h), part 2: the CUDA runtime API exec uses, and graph
 * capture/replay. */
#include <stdlib.h>
#include <string.h>

#include "fake_int.h"
#include "real/kernels.h"

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
    fk_lock();
    cudaError_t e = F.count_err;
    if (!e) *n = F.ndev;
    fk_unlock();
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
    fk_lock();
    if (F.nal == F.capal) {
        size_t nc = F.capal ? 2 * F.capal : 256;
        alloc *na = realloc(F.al, nc * sizeof *na);
        if (!na) {
            fk_unlock();
            free(m);
            return cudaErrorMemoryAllocation;
        }
        F.al = na;
        F.capal = nc;
    }
    F.al[F.nal++] = (alloc){m, n, t_dev};
    fk_unlock();
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
    fk_lock();
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
            fk_unlock();
            free(p);
            return cudaSuccess;
        }
    fk_unlock();
    return cudaErrorInvalidValue;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
    fk_lock();
    if (s && s->cap) {
        gnode *x = fk_gadd(s, N_COPY);
        x->dst = dst;
        x->src = src;
        x->n = n;
        x->v = (int)kind;
        fk_unlock();
        return cudaSuccess;
    }
    int bad = 0;
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
        bad |= fk_access_locked(s, dst, n, 1, "cudaMemcpyAsync(dst)");
    if (!bad && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice))
        bad |= fk_access_locked(s, src, n, 0, "cudaMemcpyAsync(src)");
    if (!bad) F.st.copies++;
    fk_unlock();
    if (bad) return cudaErrorInvalidValue;
    memmove(dst, src, n);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int v, size_t n, cudaStream_t s) {
    if (s && s->cap) {
        fk_lock();
        gnode *x = fk_gadd(s, N_SET);
        x->dst = dst;
        x->n = n;
        x->v = v;
        fk_unlock();
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
    fk_lock();
    devstate *D = &F.dev[t_dev];
    if (D->nstreams >= MAXS) {
        fk_unlock();
        free(x);
        return cudaErrorMemoryAllocation;
    }
    x->dev = t_dev;
    x->id = D->nstreams++;
    D->live[x->id] = x;
    D->alive++;
    if (D->alive > F.st.max_streams) F.st.max_streams = D->alive;
    fk_unlock();
    *s = x;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s) return cudaErrorInvalidResourceHandle;
    fk_lock();
    F.dev[s->dev].alive--;
    F.dev[s->dev].live[s->id] = NULL;
    if (F.dev[s->dev].alive == 0) { /* the device's streams are all gone: start ids afresh */
        F.dev[s->dev].nstreams = 0;
        F.dev[s->dev].nacc = 0;
    }
    fk_unlock();
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
    fk_lock();
    if (s->cap) {
        gnode *x = fk_gadd(s, N_EVREC);
        x->ev = ev;
        ev->cap = s->cap;
        ev->by = s;
        fk_unlock();
        return cudaSuccess;
    }
    ev->cap = NULL;
    s->vc[s->id]++;
    memcpy(ev->vc, s->vc, sizeof ev->vc);
    ev->t = fk_now();
    ev->recorded = 1;
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags) {
    (void)flags;
    if (!ev || !s) return cudaErrorInvalidResourceHandle;
    fk_lock();
    if (ev->cap) {
        struct fake_graph *g = ev->cap;
        if (!s->cap) { /* a fork: s joins the capture */
            if (g->nstreams == MAXS) abort();
            s->cap = g;
            s->forked = 1;
            g->streams[g->nstreams++] = s;
        }
        if (s == g->origin && ev->by && ev->by->forked) ev->by->joined = 1; /* a join back */
        gnode *x = fk_gadd(s, N_WAIT);
        x->ev = ev;
        F.st.side_waits++;
        fk_unlock();
        return cudaSuccess;
    }
    if (s->cap) { /* waiting on an event from outside the capture */
        gnode *x = fk_gadd(s, N_WAIT);
        x->ev = ev;
        fk_unlock();
        return cudaSuccess;
    }
    for (int i = 0; i < MAXS; i++)
        if (ev->vc[i] > s->vc[i]) s->vc[i] = ev->vc[i];
    F.st.side_waits++;
    fk_unlock();
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
    fk_lock();
    g->origin = s;
    g->streams[g->nstreams++] = s;
    s->cap = g;
    s->forked = 0;
    fk_unlock();
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
    fk_lock();
    struct fake_graph *g = s->cap;
    int unjoined = -1;
    for (int i = 0; i < g->nstreams; i++)
        if (g->streams[i]->forked && !g->streams[i]->joined && unjoined < 0) unjoined = g->streams[i]->id;
    for (int i = 0; i < g->nstreams; i++) {
        g->streams[i]->cap = NULL;
        g->streams[i]->forked = g->streams[i]->joined = 0;
    }
    if (unjoined >= 0) {
        fk_err("cudaStreamEndCapture: stream %d was forked into the capture and not joined back", unjoined);
        fk_unlock();
        graph_free(g);
        return cudaErrorStreamCaptureUnjoined;
    }
    fk_unlock();
    *out = (cudaGraph_t)g;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
    (void)flags;
    *x = (cudaGraphExec_t)g; /* the exec is the graph (destroyed by cudaGraphDestroy) */
    return g ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
    struct fake_graph *g = (struct fake_graph *)x;
    if (!g || !s) return cudaErrorInvalidValue;
    fk_lock();
    F.st.graph_launches++;
    fk_unlock();
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
            for (size_t k = 0; k < v->ncalls && r == ncclSuccess; k++) r = fk_replay_call(&v->calls[k]);
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
