/* The CUDA/NCCL executor (real.h), part 1: errors, devices and versions,
 * launch (MPI, single process, unique-id file), open/close, machines and
 * placement. Interprets nothing: see exec_bench.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef AR_HAVE_MPI
#include <mpi.h>
#endif

#include "core/util.h"
#include "exec_int.h"
#include "rmeasure.h"

/* ---- errors ---------------------------------------------------------------- */

/* NCCL's own last message (ncclGetLastError, NCCL >= 2.13) says which rank,
 * peer or call failed; it is appended when there is one. */
static const char *nccl_detail(void) {
    const char *d = ncclGetLastError(NULL);
    return d && *d ? d : NULL;
}

ar_status ar_real_x_cu_fail(ar_real_ctx *c, ar_err *e, const char *what, cudaError_t ce) {
    if (c) c->failed = 1;
    return ar_fail(e, AR_EBACKEND, "%s: %s (%s)", what, cudaGetErrorString(ce), cudaGetErrorName(ce));
}

ar_status ar_real_x_nc_fail(ar_real_ctx *c, ar_err *e, const char *what, ncclResult_t r) {
    if (c) c->failed = 1;
    const char *d = nccl_detail();
    return ar_fail(e, AR_EBACKEND, "%s: %s%s%s", what, ncclGetErrorString(r), d ? ": " : "", d ? d : "");
}

ncclDataType_t ar_real_x_nccl_type(ar_dtype t) {
    switch (t) {
    case AR_DTYPE_F32: return ncclFloat32;
    case AR_DTYPE_F16: return ncclFloat16;
    case AR_DTYPE_BF16: return ncclBfloat16;
    case AR_DTYPE_F64: return ncclFloat64;
    case AR_DTYPE_I32: return ncclInt32;
    }
    return ncclFloat32;
}

/* ---- devices and versions ----------------------------------------------------- */

/* Which cudaGetDeviceCount failures mean "no GPU here" (skip) and which mean
 * "a GPU machine that is broken" (fail), checked on CUDA 13:
 *   - no driver installed at all (libcuda.so.1 absent): cudaGetDeviceCount
 *     returns cudaErrorInsufficientDriver, and cudaDriverGetVersion succeeds
 *     with 0, which the runtime documents as "no driver is installed";
 *   - a driver without devices: cudaErrorNoDevice, or success with a count 0;
 * are "no GPU". Everything else fails, in particular cudaErrorInsufficientDriver
 * with a driver present (cudaDriverGetVersion > 0: the driver is older than
 * the runtime), cudaErrorInitializationError, cudaErrorSystemDriverMismatch. */
ar_status ar_real_devices(int *n, ar_err *e) {
    *n = 0;
    int cnt = 0;
    cudaError_t ce = cudaGetDeviceCount(&cnt);
    if (ce == cudaErrorNoDevice || (ce == cudaSuccess && cnt <= 0))
        return ar_fail(e, AR_EUNSUPPORTED, "no CUDA GPU on this machine (cudaGetDeviceCount: %s)",
                       ce == cudaSuccess ? "0 devices" : cudaGetErrorName(ce));
    if (ce == cudaErrorInsufficientDriver) {
        int dv = -1;
        if (cudaDriverGetVersion(&dv) == cudaSuccess && dv == 0)
            return ar_fail(e, AR_EUNSUPPORTED,
                           "no CUDA GPU on this machine (no CUDA driver installed: "
                           "cudaGetDeviceCount: %s, driver version 0)",
                           cudaGetErrorName(ce));
        return ar_fail(e, AR_EBACKEND,
                       "CUDA driver too old for this runtime: cudaGetDeviceCount: %s (%s), driver "
                       "version %d.%d",
                       cudaGetErrorString(ce), cudaGetErrorName(ce), dv / 1000, (dv % 1000) / 10);
    }
    if (ce != cudaSuccess)
        return ar_fail(e, AR_EBACKEND, "broken CUDA setup: cudaGetDeviceCount: %s (%s)", cudaGetErrorString(ce),
                       cudaGetErrorName(ce));
    *n = cnt;
    return AR_OK;
}

const char *ar_real_versions(char *buf, size_t n) {
    int nv = 0, rv = 0, dv = 0;
    ncclGetVersion(&nv);
    cudaRuntimeGetVersion(&rv);
    if (cudaDriverGetVersion(&dv) != cudaSuccess) dv = 0;
    snprintf(buf, n, "NCCL %d.%d.%d (built against %d.%d.%d), CUDA runtime %d.%d, driver %d.%d", nv / 10000,
             (nv / 100) % 100, nv % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, rv / 1000, (rv % 1000) / 10, dv / 1000,
             (dv % 1000) / 10);
    return buf;
}

/* ---- launch ---------------------------------------------------------------------- */

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int env_int(const char *name, int def) {
    const char *v = env(name);
    if (!v) return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < 0 || x > 1 << 24) return -2;
    return (int)x;
}

static int under_mpi_launcher(void) {
    return env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK") || env("MPI_LOCALNRANKS");
}

static ar_status file_id(const char *path, int rank, ncclUniqueId *id, ar_err *e) {
    char q[200];
    if (rank == 0) {
        struct stat sb;
        if (stat(path, &sb) == 0)
            return ar_fail(e, AR_EINVAL,
                           "unique-id file %s already exists: remove it (a stale id would make the "
                           "other ranks join an old job) or give a fresh path",
                           ar_quote(path, q, sizeof q));
        ncclResult_t r = ncclGetUniqueId(id);
        if (r != ncclSuccess) return ar_fail(e, AR_EFAIL, "ncclGetUniqueId: %s", ncclGetErrorString(r));
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0) return ar_fail(e, AR_EIO, "%s: %s", ar_quote(tmp, q, sizeof q), strerror(errno));
        ssize_t w = write(fd, id, sizeof *id);
        int ok = w == (ssize_t)sizeof *id && fsync(fd) == 0;
        close(fd);
        if (!ok || rename(tmp, path) != 0) {
            unlink(tmp);
            return ar_fail(e, AR_EIO, "cannot write unique-id file %s: %s", ar_quote(path, q, sizeof q),
                           strerror(errno));
        }
        return AR_OK;
    }
    double deadline = ar_now_s() + 120.0;
    for (;;) {
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, id, sizeof *id);
            close(fd);
            if (n == (ssize_t)sizeof *id) return AR_OK;
        }
        if (ar_now_s() > deadline)
            return ar_fail(e, AR_EIO,
                           "rank %d: no unique id in %s after 120 s (is rank 0 running with the same "
                           "--launch file:PATH?)",
                           rank, ar_quote(path, q, sizeof q));
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Copies on local rank l's own stream and waits for it: the streams are
 * non-blocking, so a plain cudaMemcpy (legacy stream; for pageable host memory
 * it may return before the DMA lands) would not be ordered with their work. */
ar_status ar_real_x_copy_sync(ar_real_ctx *c, int l, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                              ar_err *e) {
    ar_status st = AR_OK;
    CUG(cudaSetDevice(c->L[l].dev));
    CUG(cudaMemcpyAsync(dst, src, n, kind, c->L[l].st));
    CUG(cudaStreamSynchronize(c->L[l].st));
out:
    return st;
}

ar_status ar_real_x_memset_sync(ar_real_ctx *c, int l, void *dst, int v, size_t n, ar_err *e) {
    ar_status st = AR_OK;
    CUG(cudaSetDevice(c->L[l].dev));
    CUG(cudaMemsetAsync(dst, v, n, c->L[l].st));
    CUG(cudaStreamSynchronize(c->L[l].st));
out:
    return st;
}

ar_status ar_real_x_side(ar_real_ctx *c, int l, int k, cudaStream_t *out, ar_err *e) {
    ar_status st = AR_OK;
    lrank *L = &c->L[l];
    if (k >= AR_MAX_SIDE) k = AR_MAX_SIDE - 1;
    while (L->nside <= k) {
        CUG(cudaSetDevice(L->dev));
        int n = L->nside;
        CUG(cudaStreamCreateWithFlags(&L->side[n], cudaStreamNonBlocking));
        L->nside = n + 1; /* destroyed by ar_real_close from here on */
        CUG(cudaEventCreateWithFlags(&L->side_ev[n], cudaEventDisableTiming));
    }
    *out = L->side[k];
out:
    return st;
}

static ar_status make_local(ar_real_ctx *c, int l, ar_err *e) {
    ar_status st = AR_OK;
    lrank *L = &c->L[l];
    CUG(cudaSetDevice(L->dev));
    CUG(cudaStreamCreateWithFlags(&L->st, cudaStreamNonBlocking));
    CUG(cudaEventCreate(&L->e0));
    CUG(cudaEventCreate(&L->e1));
    CUG(cudaEventCreateWithFlags(&L->fork_ev, cudaEventDisableTiming));
    CUG(cudaMalloc(&L->small, AR_SMALL));
    st = ar_real_x_memset_sync(c, l, L->small, 0, AR_SMALL, e);
out:
    return st;
}

ar_status ar_real_x_barrier(ar_real_ctx *c, ar_err *e) {
    ar_status st = AR_OK;
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce(c->L[l].small, c->L[l].small, 1, ncclFloat32, ncclSum, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
out:
    return st;
}

ar_status ar_real_open(const ar_real_launch *lp, ar_real_ctx **out, ar_err *e) {
    *out = NULL;
    ar_real_launch l;
    memset(&l, 0, sizeof l);
    if (lp) l = *lp;
    if (l.kind == AR_REAL_LAUNCH_AUTO) {
#ifdef AR_HAVE_MPI
        if (under_mpi_launcher()) l.kind = AR_REAL_LAUNCH_MPI;
        else
#endif
            if (env("ARLAB_NRANKS") || (under_mpi_launcher() && env("OMPI_COMM_WORLD_SIZE")))
            l.kind = AR_REAL_LAUNCH_FILE;
        else l.kind = AR_REAL_LAUNCH_SINGLE;
    }
#ifndef AR_HAVE_MPI
    if (l.kind == AR_REAL_LAUNCH_MPI)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "--launch mpi: this arlab was built without MPI (use --launch file:PATH "
                       "with ARLAB_RANK/ARLAB_NRANKS, or rebuild with libopenmpi-dev)");
#endif
    ar_real_ctx *c = ar_calloc(1, sizeof *c);
    if (!c) return ar_fail(e, AR_ENOMEM, "out of memory");
    c->kind = l.kind;
    ar_status st = AR_OK;
    int rank = -1, size = 0, local = 0;
#ifdef AR_HAVE_MPI
    /* MPI first (it is finalized by ar_real_close whatever happens next) */
    if (l.kind == AR_REAL_LAUNCH_MPI) {
        int inited = 0;
        MPI_Initialized(&inited);
        if (!inited) {
            MPI_Init(NULL, NULL);
            c->mpi_owned = 1;
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
#endif
    int ndev = 0;
    st = ar_real_devices(&ndev, e);
    if (st != AR_OK) {
        ar_real_close(c);
        return st;
    }
    if (l.kind == AR_REAL_LAUNCH_SINGLE) {
        int n = l.ngpus > 0 && l.ngpus < ndev ? l.ngpus : ndev;
        c->nlocal = c->nranks = n;
        c->L = ar_calloc((size_t)n, sizeof *c->L);
        ncclComm_t *comms = ar_calloc((size_t)n, sizeof *comms);
        int *devs = ar_calloc((size_t)n, sizeof *devs);
        if (!c->L || !comms || !devs) {
            free(comms);
            free(devs);
            ar_real_close(c);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
        for (int i = 0; i < n; i++) devs[i] = i;
        ncclResult_t r = ncclCommInitAll(comms, n, devs);
        for (int i = 0; i < n; i++) {
            c->L[i].rank = i;
            c->L[i].dev = i;
            c->L[i].world = r == ncclSuccess ? comms[i] : NULL;
        }
        free(comms);
        free(devs);
        if (r != ncclSuccess) st = ar_real_x_nc_fail(c, e, "ncclCommInitAll", r);
        snprintf(c->desc, sizeof c->desc, "launch single: %d ranks on %d GPUs driven by one process", n, n);
    } else {
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        const char *path = NULL;
        if (l.kind == AR_REAL_LAUNCH_MPI) {
#ifdef AR_HAVE_MPI
            ncclResult_t r = ncclSuccess;
            if (rank == 0) r = ncclGetUniqueId(&id);
            int ok = r == ncclSuccess;
            MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!ok) st = ar_fail(e, AR_EFAIL, "ncclGetUniqueId on rank 0 failed");
            else MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
        } else {
            if (l.set_rank) {
                rank = l.rank;
                size = l.nranks;
                local = rank;
            } else {
                rank = env_int("ARLAB_RANK", env_int("OMPI_COMM_WORLD_RANK", -1));
                size = env_int("ARLAB_NRANKS", env_int("OMPI_COMM_WORLD_SIZE", 0));
                local = env_int("ARLAB_LOCAL_RANK", env_int("OMPI_COMM_WORLD_LOCAL_RANK", rank));
            }
            path = l.id_file ? l.id_file : env("ARLAB_ID_FILE");
            if (rank < 0 || size < 1 || rank >= size || local < 0)
                st = ar_fail(e, AR_EINVAL,
                             "--launch file: set ARLAB_RANK (0..N-1) and ARLAB_NRANKS (N) for every "
                             "process (got rank %d of %d)",
                             rank, size);
            else if (!path)
                st = ar_fail(e, AR_EINVAL,
                             "--launch file: give file:PATH or set ARLAB_ID_FILE (a fresh path every "
                             "process can read)");
            else st = file_id(path, rank, &id, e);
        }
        if (st == AR_OK) {
            c->nlocal = 1;
            c->nranks = size;
            c->L = ar_calloc(1, sizeof *c->L);
            if (!c->L) st = ar_fail(e, AR_ENOMEM, "out of memory");
        }
        if (st == AR_OK) {
            c->L[0].rank = rank;
            c->L[0].dev = local % ndev;
            cudaError_t ce = cudaSetDevice(c->L[0].dev);
            if (ce != cudaSuccess) st = ar_real_x_cu_fail(c, e, "cudaSetDevice", ce);
        }
        if (st == AR_OK) {
            ncclResult_t r = ncclCommInitRank(&c->L[0].world, size, id, rank);
            if (r != ncclSuccess) {
                c->L[0].world = NULL;
                st = ar_real_x_nc_fail(c, e, "ncclCommInitRank", r);
            }
        }
        if (st == AR_OK)
            snprintf(c->desc, sizeof c->desc, "launch %s: %d ranks, one per process; rank 0 on GPU %d",
                     l.kind == AR_REAL_LAUNCH_MPI ? "mpi" : "file", size, c->L[0].dev);
        /* streams, events and barrier memory before the first barrier */
        for (int i = 0; i < c->nlocal && st == AR_OK; i++) st = make_local(c, i, e);
        if (st == AR_OK && path) {
            st = ar_real_x_barrier(c, e); /* every rank has joined: the id file is no longer needed */
            if (st == AR_OK && rank == 0) unlink(path);
        }
    }
    if (st == AR_OK && l.kind == AR_REAL_LAUNCH_SINGLE)
        for (int i = 0; i < c->nlocal && st == AR_OK; i++) st = make_local(c, i, e);
    if (st != AR_OK) {
        ar_real_close(c);
        return st;
    }
    *out = c;
    return AR_OK;
}

static void destroy_comms(ar_real_ctx *c, ncclComm_t *comms, int n) {
    if (c->failed) {
        for (int i = 0; i < n; i++)
            if (comms[i]) ncclCommAbort(comms[i]);
        return;
    }
    ncclGroupStart();
    for (int i = 0; i < n; i++)
        if (comms[i]) ncclCommFinalize(comms[i]);
    ncclGroupEnd();
    for (int i = 0; i < n; i++)
        if (comms[i]) ncclCommDestroy(comms[i]);
}

void ar_real_close(ar_real_ctx *c) {
    if (!c) return;
    for (int l = 0; l < c->nlocal && c->L && !c->failed; l++)
        if (c->L[l].st) cudaStreamSynchronize(c->L[l].st);
    for (int k = 0; k < c->ncomms; k++) {
        destroy_comms(c, c->comms[k].comm, c->nlocal);
        free(c->comms[k].comm);
        free(c->comms[k].members);
    }
    free(c->comms);
    if (c->L) {
        ncclComm_t *w = ar_calloc((size_t)c->nlocal + 1, sizeof *w);
        for (int l = 0; l < c->nlocal && w; l++) w[l] = c->L[l].world;
        if (w) destroy_comms(c, w, c->nlocal);
        free(w);
        for (int l = 0; l < c->nlocal; l++) {
            lrank *L = &c->L[l];
            cudaSetDevice(L->dev);
            if (L->small) cudaFree(L->small);
            if (L->e0) cudaEventDestroy(L->e0);
            if (L->e1) cudaEventDestroy(L->e1);
            if (L->fork_ev) cudaEventDestroy(L->fork_ev);
            for (int k = 0; k < L->nside; k++) {
                if (L->side_ev[k]) cudaEventDestroy(L->side_ev[k]);
                if (L->side[k]) cudaStreamDestroy(L->side[k]);
            }
            if (L->st) cudaStreamDestroy(L->st);
        }
        free(c->L);
    }
#ifdef AR_HAVE_MPI
    if (c->mpi_owned) {
        if (c->failed) MPI_Abort(MPI_COMM_WORLD, 1); /* the other ranks may be stuck in NCCL */
        else MPI_Finalize();
    }
#endif
    free(c);
}

int ar_real_nranks(const ar_real_ctx *c) { return c->nranks; }
int ar_real_is_leader(const ar_real_ctx *c) { return c->L[0].rank == 0; }
const char *ar_real_describe(const ar_real_ctx *c) { return c->desc; }

/* ---- machines ------------------------------------------------------------------------ */

/* Every rank's klen-byte key (NUL-terminated; mine: nlocal keys) into
 * all[P * klen] on every process (ncclAllGather on the world). */
static ar_status gather_keys(ar_real_ctx *c, const char *mine, size_t klen, char *all, ar_err *e) {
    ar_status st = AR_OK;
    int P = c->nranks;
    void **d = ar_calloc((size_t)c->nlocal, sizeof *d);
    if (!d) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int l = 0; l < c->nlocal; l++) {
        CUG(cudaSetDevice(c->L[l].dev));
        CUG(cudaMalloc(&d[l], (size_t)P * klen));
        st = ar_real_x_copy_sync(c, l, (char *)d[l] + (size_t)c->L[l].rank * klen, mine + (size_t)l * klen, klen,
                                 cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllGather((char *)d[l] + (size_t)c->L[l].rank * klen, d[l], klen, ncclChar, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = ar_real_x_copy_sync(c, 0, all, d[0], (size_t)P * klen, cudaMemcpyDeviceToHost, e);
    for (int r = 0; r < P; r++) all[(size_t)r * klen + klen - 1] = 0;
out:
    for (int l = 0; l < c->nlocal; l++)
        if (d[l]) {
            cudaSetDevice(c->L[l].dev);
            cudaFree(d[l]);
        }
    free(d);
    return st;
}

static void host_name(char *buf, size_t n) {
    memset(buf, 0, n);
    gethostname(buf, n - 1);
}

ar_status ar_real_machines(ar_real_ctx *c, int *machine_of_rank, int *nmachines, ar_err *e) {
    int P = c->nranks;
    char(*mine)[AR_HOSTKEY] = ar_calloc((size_t)c->nlocal, sizeof *mine);
    char *all = ar_calloc((size_t)P, AR_HOSTKEY);
    const char **keys = ar_calloc((size_t)P, sizeof *keys);
    ar_status st = AR_OK;
    if (!mine || !all || !keys) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    const char *hid = env("NCCL_HOSTID");
    for (int l = 0; l < c->nlocal; l++) {
        if (hid) snprintf(mine[l], AR_HOSTKEY, "hostid:%s", hid);
        else {
            char hn[AR_HOSTKEY - 8]; /* "host:" + name fits the key; longer names are cut */
            host_name(hn, sizeof hn);
            snprintf(mine[l], AR_HOSTKEY, "host:%s", hn);
        }
    }
    st = gather_keys(c, mine[0], AR_HOSTKEY, all, e);
    if (st != AR_OK) goto out;
    for (int r = 0; r < P; r++) keys[r] = all + (size_t)r * AR_HOSTKEY;
    st = ar_real_machines_from_keys(keys, P, machine_of_rank, nmachines, e);
out:
    free(mine);
    free(all);
    free(keys);
    return st;
}

/* ---- placement ------------------------------------------------------------------------ */

ar_status ar_real_placement(ar_real_ctx *c, const char **line, ar_err *e) {
    *line = c->placement;
    if (c->placement[0]) return AR_OK;
    int P = c->nranks;
    char(*mine)[AR_HOSTKEY] = ar_calloc((size_t)c->nlocal, sizeof *mine);
    char *all = ar_calloc((size_t)P, AR_HOSTKEY);
    ar_status st = AR_OK;
    if (!mine || !all) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    char hn[40];
    host_name(hn, sizeof hn);
    for (int l = 0; l < c->nlocal; l++) {
        char bus[20] = "?";
        cudaError_t ce = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, c->L[l].dev);
        if (ce != cudaSuccess) {
            st = ar_real_x_cu_fail(c, e, "cudaDeviceGetPCIBusId", ce);
            goto out;
        }
        snprintf(mine[l], AR_HOSTKEY, "%s|%s", hn, bus);
    }
    st = gather_keys(c, mine[0], AR_HOSTKEY, all, e);
    if (st != AR_OK) goto out;
    int shared = 0;
    for (int a = 0; a < P && !shared; a++)
        for (int b = a + 1; b < P && !shared; b++)
            shared = !strcmp(all + (size_t)a * AR_HOSTKEY, all + (size_t)b * AR_HOSTKEY);
    const char *mps = env("ARLAB_MPS");
    int mps_on = mps && !strcmp(mps, "1");
    const char *hid = env("NCCL_HOSTID");
    snprintf(c->placement, sizeof c->placement, "placement=%s transport=%s",
             !shared  ? "one-gpu-per-rank"
             : mps_on ? "shared-gpu-mps"
                      : "shared-gpu-timeslice",
             shared && hid ? "socket(NCCL_HOSTID-per-rank)" : "nccl-auto");
out:
    free(mine);
    free(all);
    return st;
}

/* ---- rank information (nccl-tests' "Using devices" lines) -------------------------------- */

#define AR_INFOKEY 192

ar_status ar_real_rank_info(ar_real_ctx *c, ar_nt_rank *out, ar_err *e) {
    int P = c->nranks;
    char *mine = ar_calloc((size_t)c->nlocal, AR_INFOKEY), *all = ar_calloc((size_t)P, AR_INFOKEY);
    ar_status st = AR_OK;
    if (!mine || !all) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    char hn[64];
    host_name(hn, sizeof hn);
    for (int l = 0; l < c->nlocal; l++) {
        struct cudaDeviceProp prop;
        CUG(cudaGetDeviceProperties(&prop, c->L[l].dev));
        prop.name[sizeof prop.name - 1] = 0;
        snprintf(mine + (size_t)l * AR_INFOKEY, AR_INFOKEY, "%d|%d|%d|%.63s|%.63s", (int)getpid(), c->L[l].dev,
                 prop.pciBusID, prop.name, hn);
    }
    st = gather_keys(c, mine, AR_INFOKEY, all, e);
    for (int r = 0; r < P && st == AR_OK; r++) {
        ar_nt_rank *x = &out[r];
        memset(x, 0, sizeof *x);
        x->rank = r;
        const char *k = all + (size_t)r * AR_INFOKEY;
        int used = 0;
        if (sscanf(k, "%d|%d|%d|%n", &x->pid, &x->dev, &x->pci_bus, &used) != 3) {
            st = ar_fail(e, AR_EINTERNAL, "rank %d: malformed device information", r);
            break;
        }
        const char *bar = strchr(k + used, '|');
        size_t nl = bar ? (size_t)(bar - (k + used)) : strlen(k + used);
        snprintf(x->name, sizeof x->name, "%.*s", (int)(nl < sizeof x->name - 1 ? nl : sizeof x->name - 1), k + used);
        snprintf(x->host, sizeof x->host, "%s", bar ? bar + 1 : "?");
    }
out:
    free(mine);
    free(all);
    return st;
}
