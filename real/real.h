/* The CUDA/NCCL executor of arlab (real/exec_open.c, exec_comm.c,
 * exec_bench.c, exec_pingpong.c). Built only where CUDA and NCCL are found
 * (AR_HAVE_REAL); this header has no CUDA or NCCL type, so the CLI can
 * include it from plain C.
 *
 * Launch modes (ar_real_launch.kind):
 *   MPI     one process per rank under mpirun (built with MPI: AR_HAVE_MPI);
 *           rank 0 makes the ncclUniqueId and MPI_Bcasts it; a process uses
 *           GPU (local rank % GPUs), so several ranks may share a GPU (give
 *           each its own NCCL_HOSTID, see experiments/real_one_gpu.sh).
 *   SINGLE  one process drives every local GPU as one rank each
 *           (ncclCommInitAll; every NCCL call of a step issued for all local
 *           ranks inside one ncclGroupStart/End).
 *   FILE    one process per rank without MPI: rank 0 writes the unique id to
 *           a file (written to PATH.tmp.PID, then renamed), the others wait
 *           for it (120 s); rank 0 removes it once every rank has joined. Rank
 *           and size come from ARLAB_RANK / ARLAB_NRANKS or, under mpirun
 *           built without MPI, OMPI_COMM_WORLD_RANK / _SIZE; the GPU is
 *           ARLAB_LOCAL_RANK (or OMPI_COMM_WORLD_LOCAL_RANK, else the rank)
 *           modulo the GPU count. PATH must be fresh for every run.
 *   AUTO    MPI when started by an MPI launcher and built with MPI, FILE
 *           when ARLAB_NRANKS is set (ARLAB_ID_FILE names the file), else
 *           SINGLE.
 *
 * Measurement (ar_real_bench), like nccl-tests: per (schedule or baseline,
 * size, placement): `warmup` untimed runs, then `iters` timed ones, each
 * preceded by a barrier (a 1-element ncclAllReduce on the world, then a
 * stream synchronize) and timed with CUDA events on every rank; the time of an
 * iteration is the max over ranks (an ncclAllReduce(max) of the per-iteration
 * times, so it works the same under every launch mode); the result is the
 * median, min and max over iterations. Then correctness: inputs refilled
 * (rmeasure.h), one more run, every element of every rank compared with the
 * exact sum; `wrong` is the total over ranks (must be 0).
 * Out-of-place (inplace = 0): the baseline is a true out-of-place
 * ncclAllReduce(send, recv); a schedule (whose ops work in place) starts with
 * a device-to-device copy send -> recv inside the timed region.
 * Communicators: one per distinct group (rplan.h), made with ncclCommSplit
 * the first time a plan needs it and cached for the life of the context, so a
 * plan reused across sizes and placements splits nothing more.
 *
 * Streams: each rank has a main stream; in a phase where a rank takes part in
 * several collectives (ops on different communicators), each op runs on its
 * own side stream, forked from the main stream by an event and joined back
 * by one event per side stream (cudaEventRecord + cudaStreamWaitEvent), so
 * NCCL's kernels of the two communicators run concurrently. Point-to-point
 * rounds stay on the main stream (one communicator: NCCL would join them).
 *
 * Errors: NCCL/CUDA failures come back as AR_EBACKEND with the call, its
 * message and NCCL's last error; wrong data is AR_EFAIL. After a failure inside a collective the other ranks may hang:
 * ar_real_close aborts the communicators (ncclCommAbort) when the context is
 * marked failed.
 *
 * Ownership: ar_real_open returns a context freed by ar_real_close; every
 * device buffer is owned by the context or freed before a call returns.
 */
#ifndef AR_REAL_REAL_H
#define AR_REAL_REAL_H

#include <stdint.h>

#include "core/schedule.h"
#include "core/status.h"
#include "core/units.h"
#include "calib/nccltests_out.h"
#include "real/rplan.h"

typedef enum ar_real_launch_kind {
    AR_REAL_LAUNCH_AUTO,
    AR_REAL_LAUNCH_SINGLE,
    AR_REAL_LAUNCH_MPI,
    AR_REAL_LAUNCH_FILE
} ar_real_launch_kind;

typedef struct ar_real_launch {
    ar_real_launch_kind kind;
    const char *id_file; /* FILE: unique-id file (NULL: $ARLAB_ID_FILE) */
    int ngpus;           /* SINGLE: GPUs to drive (0 = all) */
    int verbose;         /* print the rank/GPU map on the leader */
    int set_rank;        /* FILE: 1 = use rank/nranks below instead of the environment (one thread per rank
                           * in one process: the host-fake tests, tests/real/real_exec_fake.c) */
    int rank, nranks;
} ar_real_launch;

typedef struct ar_real_ctx ar_real_ctx;

/* Number of CUDA devices (touches no NCCL). AR_OK with *n >= 1;
 * AR_EUNSUPPORTED with *n = 0 when this machine has no GPU: no CUDA driver
 * installed (cudaGetDeviceCount fails with cudaErrorInsufficientDriver and
 * cudaDriverGetVersion reports 0, "no driver installed" in CUDA's
 * documentation: libcuda.so.1 is absent), cudaErrorNoDevice, or 0 devices;
 * AR_EBACKEND on every other CUDA error (a driver older than the runtime, a
 * failed initialization...): a broken GPU machine must not look like one
 * without a GPU. */
ar_status ar_real_devices(int *n, ar_err *e);

/* "NCCL 2.28.3, CUDA runtime 13.0, driver 13.0" into buf; returns buf. */
const char *ar_real_versions(char *buf, size_t n);

ar_status ar_real_open(const ar_real_launch *l, ar_real_ctx **out, ar_err *e);
void ar_real_close(ar_real_ctx *c);

int ar_real_nranks(const ar_real_ctx *c);
/* 1 on the process that prints (the one holding rank 0). */
int ar_real_is_leader(const ar_real_ctx *c);
/* One line: launch mode, ranks, processes, GPUs. */
const char *ar_real_describe(const ar_real_ctx *c);

/* Machine of every rank, from one key per rank ($NCCL_HOSTID, else the host
 * name) exchanged with ncclAllGather; see ar_real_machines_from_keys. */
ar_status ar_real_machines(ar_real_ctx *c, int *machine_of_rank, int *nmachines, ar_err *e);

/* Where the ranks ran, one line: "placement=P transport=T" with P one of
 * one-gpu-per-rank (no two ranks on one GPU of one host), shared-gpu-mps
 * (ranks share a GPU and the launcher started MPS: ARLAB_MPS=1),
 * shared-gpu-timeslice (they share one without MPS), and T socket(...) when
 * ranks share a GPU under distinct NCCL_HOSTIDs (NCCL's socket transport),
 * else nccl-auto (whatever NCCL picks). Collective (exchanges host name and
 * PCI bus id of every rank); computed once per context, *line owned by it. */
ar_status ar_real_placement(ar_real_ctx *c, const char **line, ar_err *e);

/* Every rank's pid, host, device, PCI bus and device name (nccl-tests'
 * "Using devices" lines), out[nranks] on every process. Collective. */
ar_status ar_real_rank_info(ar_real_ctx *c, ar_nt_rank *out, ar_err *e);

/* Timing conventions (ar_real_bench_opts.timing):
 *   ARLAB       (default) a barrier before each timed iteration, each timed
 *               with CUDA events on every rank, an iteration's time is the max
 *               over ranks; the result is the median (min, max) over iterations.
 *   NCCL_TESTS  nccl-tests' convention: one barrier, then `iters` iterations
 *               back to back, timed on the host around them (up to the stream
 *               synchronize) on every rank; time = elapsed / iters, averaged
 *               over ranks; min = med = max = that mean. */
typedef enum ar_real_timing { AR_REAL_TIMING_ARLAB, AR_REAL_TIMING_NCCL_TESTS } ar_real_timing;
const char *ar_real_timing_name(ar_real_timing t); /* "arlab", "nccl-tests" */
ar_status ar_real_timing_parse(const char *s, ar_real_timing *out, ar_err *e);

typedef struct ar_real_bench_opts {
    ar_dtype dtype;
    int warmup, iters;
    int inplace;
    ar_real_lowering lowering;
    ar_real_timing timing;
    int graph; /* 1: capture one iteration per rank in a CUDA graph and time graph launches
                           * (one rank per process only: NCCL documents deadlocks with several GPUs
                           * per process; AR_EUNSUPPORTED otherwise) */
    int empty; /* 1: also time the empty schedule (see ar_real_measure.empty_s) */
    int fuse;  /* 1: fuse independent point-to-point rounds into one NCCL group (ar_real_plan_fuse) */
} ar_real_bench_opts;

typedef struct ar_real_measure {
    double med_s, min_s, max_s;
    long long wrong; /* elements differing from the exact sum, all ranks; -1: not checked */
    int iters;
    double empty_s; /* launch overhead: the same NCCL groups, calls and kernel launches with every
                           * count 0 (NAN: not measured), under the same timing convention */
} ar_real_measure;

/* Measures schedule s (planned for ar_real_nranks ranks, elem size of
 * o->dtype), or the ncclAllReduce baseline on `count` elements when s is
 * NULL. Collective: every rank must call it with the same arguments. */
ar_status ar_real_bench(ar_real_ctx *c, const ar_schedule *s, uint64_t count, const ar_real_bench_opts *o,
                        ar_real_measure *out, ar_err *e);

/* One-way time of `bytes` from rank a to rank b: half the median round trip
 * of a ping-pong (ncclSend/ncclRecv), timed on rank a, over `iters` after
 * `warmup`. Collective (the other ranks only join the barriers). */
ar_status ar_real_pingpong(ar_real_ctx *c, int a, int b, uint64_t bytes, int warmup, int iters, double *oneway_s,
                           ar_err *e);

#endif
