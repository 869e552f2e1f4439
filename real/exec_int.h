/* Internals shared by the files of the CUDA/NCCL executor (real.h):
 *   exec_open.c     devices, versions, launch, open/close, side streams, machines, placement
 *   exec_comm.c     the communicator cache (ncclCommSplit per layer)
 *   exec_bench.c    buffers, issuing a program (streams, groups, graphs), timing, correctness
 *   exec_pingpong.c the ping-pong of the calibration
 * Not a public header: only these files include it. They use the CUDA runtime
 * and NCCL APIs and nothing else of CUDA, so tests/fake/ can compile them a
 * second time against a host fake of both (tests/real/real_exec_fake.c).
 */
#ifndef AR_REAL_EXEC_INT_H
#define AR_REAL_EXEC_INT_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "real.h"
#include "rplan.h"

#define AR_HOSTKEY 64  /* bytes per rank in the host-key exchange */
#define AR_SMALL 4096  /* per-rank scratch for barriers and counters */
#define AR_MAX_SIDE 16 /* side streams per rank: concurrent ops of a phase beyond this share the last one */

typedef struct lrank {
    int rank, dev;
    ncclComm_t world;
    cudaStream_t st;                  /* the rank's main stream */
    cudaStream_t side[AR_MAX_SIDE];   /* one per concurrent op of a phase (made on first use) */
    cudaEvent_t side_ev[AR_MAX_SIDE]; /* join events of the side streams */
    cudaEvent_t fork_ev;              /* fork event on the main stream */
    int nside;
    cudaEvent_t e0, e1;
    void *small; /* AR_SMALL bytes of device memory */
} lrank;

typedef struct comm_entry {
    int n;
    int *members;     /* owned */
    ncclComm_t *comm; /* per local rank; NULL where not a member (owned array) */
} comm_entry;

struct ar_real_ctx {
    ar_real_launch_kind kind;
    int nranks, nlocal;
    lrank *L;          /* owned, nlocal entries */
    comm_entry *comms; /* cache: one per distinct group made so far (owned) */
    int ncomms, capcomms;
    int mpi_owned; /* we called MPI_Init */
    int failed;
    char desc[256];
    char placement[160]; /* ar_real_placement's line, filled once (empty: not yet) */
};

ar_status ar_real_x_cu_fail(ar_real_ctx *c, ar_err *e, const char *what, cudaError_t ce);
ar_status ar_real_x_nc_fail(ar_real_ctx *c, ar_err *e, const char *what, ncclResult_t r);
ncclDataType_t ar_real_x_nccl_type(ar_dtype t);

/* set st and jump to `out` on failure (needs c and e in scope) */
#define CUG(call)                                     \
    do {                                              \
        cudaError_t ce_ = (call);                     \
        if (ce_ != cudaSuccess) {                     \
            st = ar_real_x_cu_fail(c, e, #call, ce_); \
            goto out;                                 \
        }                                             \
    } while (0)
#define NCG(call)                                     \
    do {                                              \
        ncclResult_t nr_ = (call);                    \
        if (nr_ != ncclSuccess) {                     \
            st = ar_real_x_nc_fail(c, e, #call, nr_); \
            goto out;                                 \
        }                                             \
    } while (0)

/* Copies/sets on local rank l's own stream and waits for it (the streams are
 * non-blocking, so the legacy stream would not be ordered with their work). */
ar_status ar_real_x_copy_sync(ar_real_ctx *c, int l, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                              ar_err *e);
ar_status ar_real_x_memset_sync(ar_real_ctx *c, int l, void *dst, int v, size_t n, ar_err *e);
/* A 1-element ncclAllReduce on the world, then every local stream synchronized. */
ar_status ar_real_x_barrier(ar_real_ctx *c, ar_err *e);
/* Side stream k of local rank l (created, with its event, on first use). */
ar_status ar_real_x_side(ar_real_ctx *c, int l, int k, cudaStream_t *out, ar_err *e);

/* exec_comm.c: splits what plan p needs and the cache lacks; the communicator
 * of plan group g for local rank l (NULL where l is not a member). */
ar_status ar_real_x_ensure_comms(ar_real_ctx *c, ar_real_plan *p, ar_err *e);
ncclComm_t ar_real_x_comm_of(ar_real_ctx *c, const ar_real_plan *p, int g, int l);

#endif
