/* Host fake of NCCL, for tests only: the subset real/exec_*.c calls, same
 * names and signatures, on the fake CUDA runtime's host "device" memory
 * (fake.c). One thread per rank (or one thread for all ranks with
 * ncclCommInitAll). Rules it enforces like NCCL:
 *   - ncclCommInitRank joins the ranks of one ncclUniqueId; ncclCommSplit is
 *     collective over the parent (every parent rank must call it; color
 *     NCCL_SPLIT_NOCOLOR gives NULL; ranks of a color ordered by key, then
 *     parent rank);
 *   - the k-th collective a rank issues on a communicator matches the k-th of
 *     every other member: same call, count, type, op and root, else an error;
 *   - the k-th ncclSend a->b matches the k-th ncclRecv on b from a (same count
 *     and type); inside ncclGroupStart/End a rank posts all its calls before
 *     waiting, so sends and receives of one group cannot deadlock;
 *   - reductions in the real type (f16/bf16 rounded after every addition);
 *   - a call that finds no match within the timeout (fake_nccl_config) fails
 *     with ncclSystemError and a message naming rank, call and peer (a hang
 *     on a GPU), and aborts its communicator so the other ranks fail too.
 * Faults can be injected (fake.h). */
#ifndef AR_FAKE_NCCL_H
#define AR_FAKE_NCCL_H

#include <stddef.h>

#include "cuda_runtime_api.h"

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 0
#define NCCL_SPLIT_NOCOLOR -1

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6
} ncclResult_t;
typedef enum {
    ncclInt8 = 0,
    ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclHalf = 6,
    ncclFloat32 = 7,
    ncclFloat = 7,
    ncclFloat64 = 8,
    ncclDouble = 8,
    ncclBfloat16 = 9
} ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;

typedef struct fake_comm *ncclComm_t;
typedef struct {
    char internal[128];
} ncclUniqueId;
typedef struct {
    int blocking;
} ncclConfig_t;

ncclResult_t ncclGetVersion(int *v);
const char *ncclGetErrorString(ncclResult_t r);
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *devs);
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config);
ncclResult_t ncclCommFinalize(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s);
ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s);
ncclResult_t ncclAllReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t s);
ncclResult_t ncclReduceScatter(const void *sb, void *rb, size_t recvcount, ncclDataType_t t, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t s);
ncclResult_t ncclAllGather(const void *sb, void *rb, size_t sendcount, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t s);
ncclResult_t ncclReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t s);
ncclResult_t ncclBroadcast(const void *sb, void *rb, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t s);

#endif
