/* The CUDA/NCCL executor (real.h), part 3: one measurement. Buffers, the
 * issue of a per-rank program (rplan.h) with streams and events, timing under
 * both conventions, the empty-schedule (launch overhead) run, CUDA-graph
 * capture, and the exact-sum check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "exec_int.h"
#include "kernels.h"
#include "rmeasure.h"

const char *ar_real_timing_name(ar_real_timing t) { return t == AR_REAL_TIMING_NCCL_TESTS ? "nccl-tests" : "arlab"; }

ar_status ar_real_timing_parse(const char *s, ar_real_timing *out, ar_err *e) {
    if (!strcmp(s, "arlab")) *out = AR_REAL_TIMING_ARLAB;
    else if (!strcmp(s, "nccl-tests")) *out = AR_REAL_TIMING_NCCL_TESTS;
    else {
        char q[80];
        return ar_fail(e, AR_EINVAL, "--timing %s is not one of arlab, nccl-tests", ar_quote(s, q, sizeof q));
    }
    return AR_OK;
}

typedef struct lbuf {
    void *buf, *send, *scratch; /* device */
    ar_real_kpost *posts;       /* device */
    ar_real_kpost *posts0;      /* device: the same posts with count 0 (the empty schedule) */
    uint64_t *srcs;             /* device */
    double *times;              /* device, iters doubles */
    ar_real_prog *prog;         /* host */
    ncclComm_t *comm;           /* per plan group (host array) */
    cudaGraphExec_t gexec;      /* --graph: one captured iteration */
    cudaGraph_t graph;
} lbuf;

typedef struct run_ctx {
    ar_real_ctx *c;
    const ar_real_plan *p; /* NULL: baseline */
    lbuf *B;
    uint64_t count;
    size_t esz;
    ar_dtype dt;
    int inplace;
    int zero; /* 1: the empty schedule (every count 0) */
} run_ctx;

/* The stream an instruction of local rank l goes to: the op's side stream
 * in a collective step where l has several ops, else the main stream. */
typedef struct opstream {
    int flat[AR_MAX_SIDE];
    int n;
} opstream;

static ar_status issue(run_ctx *R, int l, const ar_real_instr *in, cudaStream_t s, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    lbuf *b = &R->B[l];
    ncclDataType_t t = ar_real_x_nccl_type(R->dt);
    char *base = b->buf, *scr = b->scratch;
    size_t z = R->esz;
    size_t n = R->zero ? 0 : in->count;
    switch (in->kind) {
    case AR_RI_SEND: NCG(ncclSend(base + in->send_off * z, n, t, in->peer, c->L[l].world, s)); break;
    case AR_RI_RECV:
        NCG(ncclRecv((in->scratch ? scr : base) + in->recv_off * z, n, t, in->peer, c->L[l].world, s));
        break;
    case AR_RI_COLL: {
        ncclComm_t cm = b->comm[in->group];
        if (!cm) {
            st = ar_fail(e, AR_EINTERNAL, "rank %d: no communicator for comm %d", c->L[l].rank, in->group);
            goto out;
        }
        const void *sb = base + in->send_off * z;
        void *rb = base + in->recv_off * z;
        switch (in->call) {
        case AR_RC_REDUCE_SCATTER: NCG(ncclReduceScatter(sb, rb, n, t, ncclSum, cm, s)); break;
        case AR_RC_ALL_GATHER: NCG(ncclAllGather(sb, rb, n, t, cm, s)); break;
        case AR_RC_REDUCE: NCG(ncclReduce(sb, rb, n, t, ncclSum, in->root, cm, s)); break;
        case AR_RC_BROADCAST: NCG(ncclBroadcast(sb, rb, n, t, in->root, cm, s)); break;
        case AR_RC_ALL_REDUCE: NCG(ncclAllReduce(sb, rb, n, t, ncclSum, cm, s)); break;
        default: st = ar_fail(e, AR_EINTERNAL, "bad collective %d", (int)in->call); goto out;
        }
        break;
    }
    }
out:
    return st;
}

/* Distinct ops among the collectives of step sp (at most AR_MAX_SIDE), into flat[]. */
static int step_ops(const ar_real_prog *g, const ar_real_step *sp, int *flat) {
    int nf = 0;
    if (sp->round != -1) return 0;
    for (size_t i = 0; i < sp->ninstr; i++) {
        int f = g->instr[sp->first_instr + i].flat, seen = 0;
        for (int j = 0; j < nf; j++) seen |= flat[j] == f;
        if (!seen && nf < AR_MAX_SIDE) flat[nf++] = f;
    }
    return nf;
}

/* Creates the side streams every step of local rank l's program will need,
 * before anything is timed or captured. */
static ar_status prepare_sides(ar_real_ctx *c, const ar_real_prog *g, int l, ar_err *e) {
    int most = 0, flat[AR_MAX_SIDE];
    for (int k = 0; k < g->nsteps; k++) {
        int nf = step_ops(g, &g->steps[k], flat);
        if (nf > most) most = nf;
    }
    cudaStream_t s;
    return most >= 2 ? ar_real_x_side(c, l, most - 1, &s, e) : AR_OK;
}

/* Side streams of step k on local rank l: one per distinct op among its
 * collectives when there are at least two (os->n = 0: all on the main
 * stream). Forks them from the main stream. */
static ar_status fork_step(run_ctx *R, int l, const ar_real_step *sp, opstream *os, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    const ar_real_prog *g = R->B[l].prog;
    os->n = 0;
    int flat[AR_MAX_SIDE], nf = step_ops(g, sp, flat);
    if (nf < 2) return AR_OK;
    lrank *L = &c->L[l];
    CUG(cudaSetDevice(L->dev));
    CUG(cudaEventRecord(L->fork_ev, L->st));
    for (int j = 0; j < nf; j++) {
        cudaStream_t s;
        st = ar_real_x_side(c, l, j, &s, e);
        if (st != AR_OK) goto out;
        CUG(cudaStreamWaitEvent(s, L->fork_ev, 0));
        os->flat[j] = flat[j];
    }
    os->n = nf;
out:
    return st;
}

static cudaStream_t stream_of(ar_real_ctx *c, int l, const opstream *os, int flat) {
    for (int j = 0; j < os->n; j++)
        if (os->flat[j] == flat) return c->L[l].side[j < AR_MAX_SIDE ? j : AR_MAX_SIDE - 1];
    return c->L[l].st;
}

/* The main stream waits for every side stream used by step os. */
static ar_status join_step(run_ctx *R, int l, const opstream *os, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    lrank *L = &c->L[l];
    for (int j = 0; j < os->n; j++) {
        CUG(cudaEventRecord(L->side_ev[j], L->side[j]));
        CUG(cudaStreamWaitEvent(L->st, L->side_ev[j], 0));
    }
out:
    return st;
}

/* One execution on every local rank (asynchronous on the streams). */
static ar_status run_once(run_ctx *R, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    size_t bytes = R->zero ? 0 : (size_t)R->count * R->esz;
    opstream *os = ar_calloc((size_t)c->nlocal, sizeof *os);
    if (!os) return ar_fail(e, AR_ENOMEM, "out of memory");
    if (!R->p) {
        NCG(ncclGroupStart());
        for (int l = 0; l < c->nlocal; l++) {
            lbuf *b = &R->B[l];
            NCG(ncclAllReduce(R->inplace ? b->buf : b->send, b->buf, R->zero ? 0 : R->count, ar_real_x_nccl_type(R->dt),
                              ncclSum, c->L[l].world, c->L[l].st));
        }
        NCG(ncclGroupEnd());
        goto out;
    }
    if (!R->inplace && bytes)
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaMemcpyAsync(R->B[l].buf, R->B[l].send, bytes, cudaMemcpyDeviceToDevice, c->L[l].st));
        }
    for (int k = 0; k < R->p->nsteps; k++) {
        int any = 0;
        for (int l = 0; l < c->nlocal; l++) any |= R->B[l].prog->steps[k].ninstr > 0;
        if (any) {
            for (int l = 0; l < c->nlocal; l++) {
                st = fork_step(R, l, &R->B[l].prog->steps[k], &os[l], e);
                if (st != AR_OK) goto out;
            }
            NCG(ncclGroupStart());
            for (int l = 0; l < c->nlocal && st == AR_OK; l++) {
                const ar_real_prog *g = R->B[l].prog;
                const ar_real_step *sp = &g->steps[k];
                for (size_t i = 0; i < sp->ninstr && st == AR_OK; i++) {
                    const ar_real_instr *in = &g->instr[sp->first_instr + i];
                    st = issue(R, l, in, stream_of(c, l, &os[l], in->flat), e);
                }
            }
            if (st != AR_OK) {
                ncclGroupEnd();
                goto out;
            }
            NCG(ncclGroupEnd());
            for (int l = 0; l < c->nlocal; l++) {
                st = join_step(R, l, &os[l], e);
                if (st != AR_OK) goto out;
            }
        }
        for (int l = 0; l < c->nlocal; l++) {
            const ar_real_prog *g = R->B[l].prog;
            const ar_real_step *sp = &g->steps[k];
            if (!sp->npost) continue;
            CUG(cudaSetDevice(c->L[l].dev));
            size_t a = 0;
            while (a < sp->npost) {
                size_t z = a;
                int w = g->post[sp->first_post + a].wave;
                while (z < sp->npost && g->post[sp->first_post + z].wave == w) z++;
                ar_real_kpost *kp = R->zero ? R->B[l].posts0 : R->B[l].posts;
                int rc = ar_real_launch_posts((int)R->dt, R->B[l].buf, R->B[l].scratch, kp + sp->first_post + a,
                                              (int)(z - a), R->B[l].srcs, R->zero ? 0 : g->max_post_count, c->L[l].st);
                if (rc) {
                    st = ar_real_x_cu_fail(c, e, "post kernel launch", (cudaError_t)rc);
                    goto out;
                }
                a = z;
            }
        }
    }
out:
    free(os);
    return st;
}

/* --graph: captures one iteration on every local rank's main stream (thread
 * local capture mode, as NCCL's documentation advises for threads). */
static ar_status capture(run_ctx *R, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    if (c->nlocal != 1)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "--graph needs one rank per process (--launch mpi or file): NCCL documents "
                       "deadlocks when one process launches the graphs of several GPUs");
    lbuf *b = &R->B[0];
    CUG(cudaSetDevice(c->L[0].dev));
    CUG(cudaStreamBeginCapture(c->L[0].st, cudaStreamCaptureModeThreadLocal));
    st = run_once(R, e);
    {
        cudaGraph_t gr = NULL;
        cudaError_t ce = cudaStreamEndCapture(c->L[0].st, &gr);
        b->graph = gr;
        if (st != AR_OK) goto out;
        if (ce != cudaSuccess) {
            st = ar_real_x_cu_fail(c, e, "cudaStreamEndCapture", ce);
            goto out;
        }
    }
    CUG(cudaGraphInstantiate(&b->gexec, b->graph, 0));
out:
    return st;
}

static ar_status launch_iter(run_ctx *R, int graph, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    if (!graph) return run_once(R, e);
    CUG(cudaGraphLaunch(R->B[0].gexec, c->L[0].st));
out:
    return st;
}

static void drop_graph(lbuf *b) {
    if (b->gexec) cudaGraphExecDestroy(b->gexec);
    if (b->graph) cudaGraphDestroy(b->graph);
    b->gexec = NULL;
    b->graph = NULL;
}

/* Reduces n doubles over all ranks (op ncclMax or ncclSum) through each local
 * rank's `times` buffer: in[l * n ..] on local rank l, result into res (n). */
static ar_status reduce_times(run_ctx *R, const double *in, int n, ncclRedOp_t op, double *res, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    for (int l = 0; l < c->nlocal; l++) {
        st = ar_real_x_copy_sync(c, l, R->B[l].times, in + (size_t)l * (size_t)n, (size_t)n * sizeof(double),
                                 cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce(R->B[l].times, R->B[l].times, (size_t)n, ncclFloat64, op, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = ar_real_x_copy_sync(c, 0, res, R->B[0].times, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, e);
out:
    return st;
}

/* Times `iters` iterations after `warmup` under convention tm; med/min/max
 * into the three outputs. tl: nlocal x iters scratch, t: iters scratch. */
static ar_status timed(run_ctx *R, const ar_real_bench_opts *o, int graph, double *tl, double *t, double *med,
                       double *mn, double *mx, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    int iters = o->iters;
    for (int w = 0; w < o->warmup && st == AR_OK; w++) st = launch_iter(R, graph, e);
    for (int l = 0; l < c->nlocal && st == AR_OK; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    if (st != AR_OK) goto out;
    if (o->timing == AR_REAL_TIMING_NCCL_TESTS) {
        /* nccl-tests: one barrier, iterations back to back, host timer up to
         * the synchronize, per-rank mean, then the mean over ranks */
        st = ar_real_x_barrier(c, e);
        if (st != AR_OK) goto out;
        double t0 = ar_now_s();
        for (int it = 0; it < iters && st == AR_OK; it++) st = launch_iter(R, graph, e);
        if (st != AR_OK) goto out;
        for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
        double dt = (ar_now_s() - t0) / iters;
        for (int l = 0; l < c->nlocal; l++) tl[l] = dt;
        double sum = 0;
        st = reduce_times(R, tl, 1, ncclSum, &sum, e);
        if (st != AR_OK) goto out;
        *med = *mn = *mx = sum / c->nranks;
        goto out;
    }
    for (int it = 0; it < iters && st == AR_OK; it++) {
        st = ar_real_x_barrier(c, e);
        if (st != AR_OK) break;
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaEventRecord(c->L[l].e0, c->L[l].st));
        }
        st = launch_iter(R, graph, e);
        if (st != AR_OK) break;
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaEventRecord(c->L[l].e1, c->L[l].st));
        }
        for (int l = 0; l < c->nlocal; l++) {
            float ms = 0;
            CUG(cudaEventSynchronize(c->L[l].e1));
            CUG(cudaEventElapsedTime(&ms, c->L[l].e0, c->L[l].e1));
            tl[(size_t)l * (size_t)iters + (size_t)it] = (double)ms * 1e-3;
        }
    }
    if (st != AR_OK) goto out;
    st = reduce_times(R, tl, iters, ncclMax, t, e); /* max over ranks, per iteration */
    if (st != AR_OK) goto out;
    if (ar_real_stats(t, iters, med, mn, mx) != AR_OK) st = ar_fail(e, AR_ENOMEM, "out of memory");
out:
    return st;
}

static ar_status fill_inputs(run_ctx *R, int m, void *host, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    for (int l = 0; l < c->nlocal; l++) {
        ar_real_fill(host, R->dt, c->L[l].rank, R->count, m);
        st = ar_real_x_copy_sync(c, l, R->inplace ? R->B[l].buf : R->B[l].send, host, (size_t)R->count * R->esz,
                                 cudaMemcpyHostToDevice, e);
        if (st != AR_OK) break;
    }
    return st;
}

static void free_bufs(ar_real_ctx *c, lbuf *B) {
    if (!B) return;
    for (int l = 0; l < c->nlocal; l++) {
        cudaSetDevice(c->L[l].dev);
        drop_graph(&B[l]);
        if (B[l].buf) cudaFree(B[l].buf);
        if (B[l].send) cudaFree(B[l].send);
        if (B[l].scratch) cudaFree(B[l].scratch);
        if (B[l].posts) cudaFree(B[l].posts);
        if (B[l].posts0) cudaFree(B[l].posts0);
        if (B[l].srcs) cudaFree(B[l].srcs);
        if (B[l].times) cudaFree(B[l].times);
        ar_real_prog_free(B[l].prog);
        free(B[l].comm);
    }
    free(B);
}

/* Device buffers, program and post descriptors of local rank l. */
static ar_status setup_rank(ar_real_ctx *c, const ar_real_plan *plan, lbuf *b, int l, uint64_t count, size_t esz,
                            const ar_real_bench_opts *o, ar_err *e) {
    ar_status st = AR_OK;
    ar_real_kpost *kp = NULL;
    CUG(cudaSetDevice(c->L[l].dev));
    CUG(cudaMalloc(&b->buf, (size_t)count * esz));
    if (!o->inplace) CUG(cudaMalloc(&b->send, (size_t)count * esz));
    CUG(cudaMalloc((void **)&b->times, (size_t)(o->iters > 1 ? o->iters : 1) * sizeof(double)));
    if (!plan) goto out;
    st = ar_real_compile(plan, c->L[l].rank, &b->prog, e);
    if (st == AR_OK) st = prepare_sides(c, b->prog, l, e);
    if (st != AR_OK) goto out;
    b->comm = ar_calloc((size_t)plan->ngroups + 1, sizeof *b->comm);
    if (!b->comm) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int g = 0; g < plan->ngroups; g++) b->comm[g] = ar_real_x_comm_of(c, plan, g, l);
    const ar_real_prog *g = b->prog;
    CUG(cudaMalloc(&b->scratch, (size_t)(g->scratch_elems ? g->scratch_elems : 1) * esz));
    if (!g->npost) goto out;
    kp = ar_calloc(g->npost, sizeof *kp);
    if (!kp) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < g->npost; i++)
        kp[i] = (ar_real_kpost){g->post[i].dst_off, 0, g->post[i].first_src, g->post[i].nsrc, g->post[i].add, 0};
    CUG(cudaMalloc((void **)&b->posts0, g->npost * sizeof *kp));
    st = ar_real_x_copy_sync(c, l, b->posts0, kp, g->npost * sizeof *kp, cudaMemcpyHostToDevice, e);
    if (st != AR_OK) goto out;
    for (size_t i = 0; i < g->npost; i++) kp[i].count = g->post[i].count;
    CUG(cudaMalloc((void **)&b->posts, g->npost * sizeof *kp));
    st = ar_real_x_copy_sync(c, l, b->posts, kp, g->npost * sizeof *kp, cudaMemcpyHostToDevice, e);
    if (st != AR_OK) goto out;
    CUG(cudaMalloc((void **)&b->srcs, g->nsrc * sizeof *g->src_off));
    st = ar_real_x_copy_sync(c, l, b->srcs, g->src_off, g->nsrc * sizeof *g->src_off, cudaMemcpyHostToDevice, e);
out:
    free(kp);
    return st;
}

/* Correctness after timing: refill, one more run (a launch of the captured
 * graph under --graph), compare every element of every rank with the exact
 * sum; the total over ranks into *wrong. */
static ar_status check(run_ctx *R, const char *name, int m, void *host, double *table, long long *wrong, int graph,
                       ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    ar_real_expected_table(c->nranks, m, table);
    st = fill_inputs(R, m, host, e);
    if (st == AR_OK) st = launch_iter(R, graph, e); /* --graph: the captured graph is what is checked */
    if (st != AR_OK) goto out;
    long long bad = 0;
    for (int l = 0; l < c->nlocal; l++) {
        st = ar_real_x_copy_sync(c, l, host, R->B[l].buf, (size_t)R->count * R->esz, cudaMemcpyDeviceToHost, e);
        if (st != AR_OK) goto out;
        uint64_t first = 0;
        uint64_t w = ar_real_count_wrong(host, R->dt, R->count, table, m, &first);
        if (w)
            fprintf(stderr, "arlab real: %s: rank %d has %llu wrong elements (first at %llu)\n", name, c->L[l].rank,
                    (unsigned long long)w, (unsigned long long)first);
        bad += (long long)w;
    }
    /* sum over ranks: one int64 per local rank in `small` */
    for (int l = 0; l < c->nlocal; l++) {
        long long v = bad * (l == 0);
        st = ar_real_x_copy_sync(c, l, (char *)c->L[l].small + 64, &v, sizeof v, cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce((char *)c->L[l].small + 64, (char *)c->L[l].small + 64, 1, ncclInt64, ncclSum, c->L[l].world,
                          c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = ar_real_x_copy_sync(c, 0, &bad, (char *)c->L[0].small + 64, sizeof bad, cudaMemcpyDeviceToHost, e);
    if (st == AR_OK) *wrong = bad;
out:
    return st;
}

ar_status ar_real_bench(ar_real_ctx *c, const ar_schedule *s, uint64_t count, const ar_real_bench_opts *o,
                        ar_real_measure *out, ar_err *e) {
    ar_status st = AR_OK;
    memset(out, 0, sizeof *out);
    out->med_s = out->min_s = out->max_s = out->empty_s = NAN;
    out->wrong = -1;
    size_t esz = ar_dtype_size(o->dtype);
    if (s) {
        if (s->nranks != c->nranks)
            return ar_fail(e, AR_EINVAL, "schedule %s is for %d ranks, this run has %d", s->algo, s->nranks, c->nranks);
        if (s->elem_bytes != esz)
            return ar_fail(e, AR_EINVAL, "schedule %s has %zu-byte elements, --dtype %s has %zu", s->algo,
                           s->elem_bytes, ar_dtype_name(o->dtype), esz);
        count = s->count;
    }
    if (count < 1 || o->iters < 1 || o->warmup < 0) return ar_fail(e, AR_EINVAL, "bench: bad count or iterations");
    if (o->graph && c->nlocal != 1)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "--graph needs one rank per process (--launch mpi or file): NCCL documents "
                       "deadlocks when one process launches the graphs of several GPUs");
    ar_real_plan *plan = NULL;
    lbuf *B = ar_calloc((size_t)c->nlocal, sizeof *B);
    double *t = ar_calloc((size_t)o->iters, sizeof *t);
    double *tl = ar_calloc((size_t)o->iters * (size_t)c->nlocal, sizeof *tl);
    void *host = ar_reallocarray(NULL, (size_t)count, esz);
    int m = ar_real_pattern_m(o->dtype, c->nranks);
    double *table = ar_calloc((size_t)(m > 0 ? m : 1), sizeof *table);
    if (!B || !t || !tl || !host || !table) {
        st = ar_fail(e, AR_ENOMEM, "out of host memory for %llu elements", (unsigned long long)count);
        goto out;
    }
    if (s) {
        st = ar_real_plan_build(s, o->lowering, &plan, e);
        if (st == AR_OK && o->fuse) st = ar_real_plan_fuse(plan, e);
        if (st == AR_OK) st = ar_real_x_ensure_comms(c, plan, e);
        if (st != AR_OK) goto out;
    }
    for (int l = 0; l < c->nlocal && st == AR_OK; l++) st = setup_rank(c, plan, &B[l], l, count, esz, o, e);
    if (st != AR_OK) goto out;
    run_ctx R = {c, plan, B, count, esz, o->dtype, o->inplace, 0};
    /* timing runs on the exact-input pattern too (no NaN or denormal surprises) */
    st = fill_inputs(&R, m > 0 ? m : 1, host, e);
    /* --graph: one plain run first, so NCCL has set up its connections (p2p ones
     * too) before the capture, as NCCL's notes on CUDA graphs advise */
    if (st == AR_OK && o->graph) st = run_once(&R, e);
    for (int l = 0; l < c->nlocal && st == AR_OK && o->graph; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    if (st == AR_OK && o->graph) st = capture(&R, e);
    if (st == AR_OK) st = timed(&R, o, o->graph, tl, t, &out->med_s, &out->min_s, &out->max_s, e);
    if (st != AR_OK) goto out;
    out->iters = o->iters;
    if (o->empty) {
        /* launch overhead: the same sequence with every count 0 */
        double mn, mx;
        R.zero = 1;
        drop_graph(&B[0]);
        if (o->graph) st = capture(&R, e);
        if (st == AR_OK) st = timed(&R, o, o->graph, tl, t, &out->empty_s, &mn, &mx, e);
        R.zero = 0;
        if (st != AR_OK) goto out;
    }
    if (m > 0 && o->graph && o->empty) { /* the empty run replaced the graph: capture the real one again */
        drop_graph(&B[0]);
        st = capture(&R, e);
    }
    if (m > 0 && st == AR_OK) st = check(&R, s ? s->algo : "nccl-allreduce", m, host, table, &out->wrong, o->graph, e);
out:
    if (st != AR_OK)
        for (int l = 0; l < c->nlocal; l++) cudaStreamSynchronize(c->L[l].st);
    free_bufs(c, B);
    ar_real_plan_free(plan);
    free(t);
    free(tl);
    free(host);
    free(table);
    return st;
}
