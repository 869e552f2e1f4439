/* Host fake of the CUDA runtime API, for tests only: the subset real/exec_*.c
 * calls, with the same names and signatures, on host memory (fake.c).
 * Streams run eagerly (an operation completes when it is issued), but every
 * access to "device" memory is checked against a happens-before order of the
 * streams of its device (vector clocks advanced by stream order,
 * cudaEventRecord and cudaStreamWaitEvent): two accesses of different streams
 * to overlapping bytes, one a write, with no event chain between them, are
 * reported (a race on a GPU). Pointers must lie inside a cudaMalloc block and
 * kernels/NCCL calls must use a stream of the current device.
 * Graphs: cudaStreamBeginCapture records what is issued on the stream, and on
 * every stream forked from it by an event, instead of running it (copies,
 * kernels, events, NCCL groups); cudaStreamEndCapture fails with
 * cudaErrorStreamCaptureUnjoined when a forked stream was not joined back;
 * cudaGraphLaunch replays the record in issue order.
 * Test control: fake_cuda_config (fake.h). */
#ifndef AR_FAKE_CUDA_RUNTIME_API_H
#define AR_FAKE_CUDA_RUNTIME_API_H

#include <stddef.h>

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorUnknown = 999
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02

struct cudaDeviceProp {
    char name[256];
    int pciBusID;
    size_t totalGlobalMem;
};

typedef struct fake_stream *cudaStream_t;
typedef struct fake_event *cudaEvent_t;
typedef struct fake_graph *cudaGraph_t;
typedef struct fake_graph_exec *cudaGraphExec_t;

const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int d);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d);
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaMemsetAsync(void *dst, int v, size_t n, cudaStream_t s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags);
cudaError_t cudaEventCreate(cudaEvent_t *ev);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t ev);
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t ev);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x);
cudaError_t cudaGraphDestroy(cudaGraph_t g);

#endif
