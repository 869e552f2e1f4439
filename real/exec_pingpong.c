/* The CUDA/NCCL executor (real.h), part 4: the ping-pong of the calibration.
 */
#include <math.h>
#include <stdlib.h>

#include "exec_int.h"
#include "rmeasure.h"

/* ---- ping-pong ------------------------------------------------------------------------------------ */

ar_status ar_real_pingpong(ar_real_ctx *c, int a, int b, uint64_t bytes, int warmup, int iters, double *oneway_s,
                           ar_err *e) {
    ar_status st = AR_OK;
    *oneway_s = NAN;
    if (a == b || a < 0 || b < 0 || a >= c->nranks || b >= c->nranks || iters < 1 || bytes < 1)
        return ar_fail(e, AR_EINVAL, "ping-pong: bad ranks %d, %d or sizes", a, b);
    void **d = ar_calloc((size_t)c->nlocal, sizeof *d);
    double *tl = ar_calloc((size_t)iters, sizeof *tl), *t = ar_calloc((size_t)iters, sizeof *t);
    int la = -1;
    if (!d || !tl || !t) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int l = 0; l < c->nlocal; l++) {
        CUG(cudaSetDevice(c->L[l].dev));
        CUG(cudaMalloc(&d[l], (size_t)bytes));
        st = ar_real_x_memset_sync(c, l, d[l], 1, (size_t)bytes, e);
        if (st != AR_OK) goto out;
        if (c->L[l].rank == a) la = l;
    }
    for (int it = -warmup; it < iters && st == AR_OK; it++) {
        st = ar_real_x_barrier(c, e);
        if (st != AR_OK) break;
        if (la >= 0) {
            CUG(cudaSetDevice(c->L[la].dev));
            CUG(cudaEventRecord(c->L[la].e0, c->L[la].st));
        }
        for (int leg = 0; leg < 2; leg++) {
            int from = leg ? b : a, to = leg ? a : b;
            NCG(ncclGroupStart());
            for (int l = 0; l < c->nlocal; l++) {
                if (c->L[l].rank == from) NCG(ncclSend(d[l], (size_t)bytes, ncclUint8, to, c->L[l].world, c->L[l].st));
                if (c->L[l].rank == to) NCG(ncclRecv(d[l], (size_t)bytes, ncclUint8, from, c->L[l].world, c->L[l].st));
            }
            NCG(ncclGroupEnd());
        }
        if (la >= 0) {
            float ms = 0;
            CUG(cudaEventRecord(c->L[la].e1, c->L[la].st));
            CUG(cudaEventSynchronize(c->L[la].e1));
            CUG(cudaEventElapsedTime(&ms, c->L[la].e0, c->L[la].e1));
            if (it >= 0) tl[it] = (double)ms * 1e-3;
        }
        for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    }
    if (st != AR_OK) goto out;
    /* rank a's times to everyone (the others contribute 0) */
    for (int l = 0; l < c->nlocal; l++) {
        CUG(cudaSetDevice(c->L[l].dev));
        void *x = d[l];
        if ((size_t)bytes < (size_t)iters * sizeof(double)) { /* reuse the transfer buffer only when big enough */
            cudaFree(d[l]);
            d[l] = NULL;
            CUG(cudaMalloc(&d[l], (size_t)iters * sizeof(double)));
            x = d[l];
        }
        double *src = l == la ? tl : t; /* t is all zeros here */
        st = ar_real_x_copy_sync(c, l, x, src, (size_t)iters * sizeof(double), cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce(d[l], d[l], (size_t)iters, ncclFloat64, ncclMax, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = ar_real_x_copy_sync(c, 0, t, d[0], (size_t)iters * sizeof(double), cudaMemcpyDeviceToHost, e);
    if (st != AR_OK) goto out;
    {
        double med, mn, mx;
        if (ar_real_stats(t, iters, &med, &mn, &mx) != AR_OK) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            goto out;
        }
        *oneway_s = med / 2;
    }
out:
    for (int l = 0; d && l < c->nlocal; l++)
        if (d[l]) {
            cudaSetDevice(c->L[l].dev);
            cudaFree(d[l]);
        }
    free(d);
    free(tl);
    free(t);
    return st;
}
