/* Control of the host fakes of CUDA and NCCL (cuda_runtime_api.h, nccl.h in
 * this folder), for tests/real/real_exec_fake.c. The fakes keep process-wide state
 * like the libraries they stand for; fake_reset() clears it between cases.
 */
#ifndef AR_FAKE_H
#define AR_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime_api.h"

/* Devices cudaGetDeviceCount reports, the error it returns instead (0 = none)
 * and the driver version cudaDriverGetVersion reports (0 = no driver). */
void fake_cuda_config(int ndev, cudaError_t count_error, int driver_version);
/* Seconds an NCCL call waits for its match before it fails (default 10). */
void fake_nccl_config(double timeout_s);

typedef enum fake_fault {
    FAKE_NONE,
    FAKE_DROP_RECV, /* the nth ncclRecv of world rank r is dropped (returns success, posts nothing) */
    FAKE_UNGROUP,   /* from its nth group with point-to-point calls on, rank r (-1: every rank) issues each
                        * call of a group as its own blocking call, sends first, as if ncclGroupStart/End
                        * were missing around them (deadlocks where the program relies on its groups) */
    FAKE_COUNT,     /* the nth collective of rank r gets count + 1 (a mismatched call) */
    FAKE_SKIP_SPLIT /* rank r skips its nth ncclCommSplit (returns success, no communicator) */
} fake_fault;
void fake_inject(fake_fault f, int rank, int nth);

/* Clears devices, communicators, faults, counters and messages. */
void fake_reset(void);

typedef struct fake_stats {
    long groups; /* ncclGroupEnd calls (outermost) */
    long sends, recvs, colls, splits, kernels, copies;
    long side_waits;     /* cudaStreamWaitEvent calls */
    long races;          /* unordered conflicting accesses of two streams */
    long graph_launches; /* cudaGraphLaunch calls replayed */
    long errors;         /* NCCL calls that failed (timeouts, mismatches, bad pointers) */
    long live_allocs;    /* cudaMalloc blocks not freed */
    int max_streams;     /* most streams alive on one device */
} fake_stats;
fake_stats fake_get_stats(void);
/* The first error message of the fakes since the last reset ("" if none). */
const char *fake_first_error(void);

/* For fake_kernels.c: checks that [p, p + n) lies in one cudaMalloc block and
 * records an access by stream s (write or read); returns 0 or -1 (an error
 * message is recorded). */
int fake_access(cudaStream_t s, const void *p, size_t n, int write, const char *what);
/* 1 if s belongs to the calling thread's current device. */
int fake_stream_current(cudaStream_t s);
void fake_count_kernel(void);
/* For fake_kernels.c: when s is being captured, records the launch and returns 1. */
int fake_capture_kernel(int dtype, void *buf, const void *scratch, const void *posts, int nposts,
                        const uint64_t *src_offs, uint64_t max_count, cudaStream_t s);

#endif
