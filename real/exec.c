/* The CUDA/NCCL executor (real.h): launch, communicators, programs, timing,
 * correctness, ping-pong. Interprets the per-rank programs of rplan.h; all
 * decisions about what to call are made (and unit-tested) there.
 * Owner: the real/ backend. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>
#ifdef AR_HAVE_MPI
#include <mpi.h>
#endif

#include "kernels.h"
#include "real.h"
#include "rmeasure.h"
#include "rplan.h"

#define AR_HOSTKEY 64   /* bytes per rank in the host-key exchange */
#define AR_SMALL 4096   /* per-rank scratch for barriers and counters */

typedef struct lrank {
    int rank, dev;
    ncclComm_t world;
    cudaStream_t st;
    cudaEvent_t e0, e1;
    void *small;        /* AR_SMALL bytes of device memory */
} lrank;

typedef struct comm_entry {
    int n;
    int *members;       /* owned */
    ncclComm_t *comm;   /* per local rank; NULL where not a member (owned array) */
} comm_entry;

struct ar_real_ctx {
    ar_real_launch_kind kind;
    int nranks, nlocal;
    lrank *L;           /* owned, nlocal entries */
    comm_entry *comms;  /* cache: one per distinct group made so far (owned) */
    int ncomms, capcomms;
    int mpi_owned;      /* we called MPI_Init */
    int failed;
    char desc[256];
};

/* ---- errors ---------------------------------------------------------------- */

static ar_status cu_fail(ar_real_ctx *c, ar_err *e, const char *what, cudaError_t ce) {
    if (c) c->failed = 1;
    return ar_fail(e, AR_EFAIL, "%s: %s (%s)", what, cudaGetErrorString(ce), cudaGetErrorName(ce));
}

static ar_status nc_fail(ar_real_ctx *c, ar_err *e, const char *what, ncclResult_t r) {
    if (c) c->failed = 1;
    return ar_fail(e, AR_EFAIL, "%s: %s", what, ncclGetErrorString(r));
}

/* set st and jump to `out` on failure */
#define CUG(call)                                                  \
    do {                                                           \
        cudaError_t ce_ = (call);                                  \
        if (ce_ != cudaSuccess) {                                  \
            st = cu_fail(c, e, #call, ce_);                        \
            goto out;                                              \
        }                                                          \
    } while (0)
#define NCG(call)                                                  \
    do {                                                           \
        ncclResult_t nr_ = (call);                                 \
        if (nr_ != ncclSuccess) {                                  \
            st = nc_fail(c, e, #call, nr_);                        \
            goto out;                                              \
        }                                                          \
    } while (0)

static ncclDataType_t nccl_type(ar_dtype t) {
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

int ar_real_device_count(ar_err *e) {
    int n = 0;
    cudaError_t ce = cudaGetDeviceCount(&n);
    if (ce != cudaSuccess) {
        ar_fail(e, AR_EUNSUPPORTED, "no usable CUDA GPU: cudaGetDeviceCount: %s", cudaGetErrorString(ce));
        return 0;
    }
    if (n <= 0) {
        ar_fail(e, AR_EUNSUPPORTED, "no CUDA GPU on this machine (cudaGetDeviceCount returned 0)");
        return 0;
    }
    return n;
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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ar_status file_id(const char *path, int rank, ncclUniqueId *id, ar_err *e) {
    char q[200];
    if (rank == 0) {
        struct stat sb;
        if (stat(path, &sb) == 0)
            return ar_fail(e, AR_EINVAL, "unique-id file %s already exists: remove it (a stale id would make the "
                           "other ranks join an old job) or give a fresh path", ar_quote(path, q, sizeof q));
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
            return ar_fail(e, AR_EIO, "cannot write unique-id file %s: %s", ar_quote(path, q, sizeof q), strerror(errno));
        }
        return AR_OK;
    }
    double deadline = now_s() + 120.0;
    for (;;) {
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, id, sizeof *id);
            close(fd);
            if (n == (ssize_t)sizeof *id) return AR_OK;
        }
        if (now_s() > deadline)
            return ar_fail(e, AR_EIO, "rank %d: no unique id in %s after 120 s (is rank 0 running with the same "
                           "--launch file:PATH?)", rank, ar_quote(path, q, sizeof q));
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Copies on local rank l's own stream and waits for it: the streams are
 * non-blocking, so a plain cudaMemcpy (legacy stream; for pageable host memory
 * it may return before the DMA lands) would not be ordered with their work. */
static ar_status copy_sync(ar_real_ctx *c, int l, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                           ar_err *e) {
    ar_status st = AR_OK;
    CUG(cudaSetDevice(c->L[l].dev));
    CUG(cudaMemcpyAsync(dst, src, n, kind, c->L[l].st));
    CUG(cudaStreamSynchronize(c->L[l].st));
out:
    return st;
}

static ar_status memset_sync(ar_real_ctx *c, int l, void *dst, int v, size_t n, ar_err *e) {
    ar_status st = AR_OK;
    CUG(cudaSetDevice(c->L[l].dev));
    CUG(cudaMemsetAsync(dst, v, n, c->L[l].st));
    CUG(cudaStreamSynchronize(c->L[l].st));
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
    CUG(cudaMalloc(&L->small, AR_SMALL));
    st = memset_sync(c, l, L->small, 0, AR_SMALL, e);
out:
    return st;
}

static ar_status barrier(ar_real_ctx *c, ar_err *e) {
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
    ar_real_launch l = lp ? *lp : (ar_real_launch){AR_REAL_LAUNCH_AUTO, NULL, 0, 0};
    if (l.kind == AR_REAL_LAUNCH_AUTO) {
#ifdef AR_HAVE_MPI
        if (under_mpi_launcher()) l.kind = AR_REAL_LAUNCH_MPI;
        else
#endif
            if (env("ARLAB_NRANKS") || (under_mpi_launcher() && env("OMPI_COMM_WORLD_SIZE")))
            l.kind = AR_REAL_LAUNCH_FILE;
        else
            l.kind = AR_REAL_LAUNCH_SINGLE;
    }
#ifndef AR_HAVE_MPI
    if (l.kind == AR_REAL_LAUNCH_MPI)
        return ar_fail(e, AR_EUNSUPPORTED, "--launch mpi: this arlab was built without MPI (use --launch file:PATH "
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
    int ndev = ar_real_device_count(e);
    if (ndev <= 0) {
        ar_real_close(c);
        return AR_EUNSUPPORTED;
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
        if (r != ncclSuccess) st = nc_fail(c, e, "ncclCommInitAll", r);
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
            rank = env_int("ARLAB_RANK", env_int("OMPI_COMM_WORLD_RANK", -1));
            size = env_int("ARLAB_NRANKS", env_int("OMPI_COMM_WORLD_SIZE", 0));
            local = env_int("ARLAB_LOCAL_RANK", env_int("OMPI_COMM_WORLD_LOCAL_RANK", rank));
            path = l.id_file ? l.id_file : env("ARLAB_ID_FILE");
            if (rank < 0 || size < 1 || rank >= size || local < 0)
                st = ar_fail(e, AR_EINVAL, "--launch file: set ARLAB_RANK (0..N-1) and ARLAB_NRANKS (N) for every "
                             "process (got rank %d of %d)", rank, size);
            else if (!path)
                st = ar_fail(e, AR_EINVAL, "--launch file: give file:PATH or set ARLAB_ID_FILE (a fresh path every "
                             "process can read)");
            else
                st = file_id(path, rank, &id, e);
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
            if (ce != cudaSuccess) st = cu_fail(c, e, "cudaSetDevice", ce);
        }
        if (st == AR_OK) {
            ncclResult_t r = ncclCommInitRank(&c->L[0].world, size, id, rank);
            if (r != ncclSuccess) {
                c->L[0].world = NULL;
                st = nc_fail(c, e, "ncclCommInitRank", r);
            }
        }
        if (st == AR_OK)
            snprintf(c->desc, sizeof c->desc, "launch %s: %d ranks, one per process; rank 0 on GPU %d",
                     l.kind == AR_REAL_LAUNCH_MPI ? "mpi" : "file", size, c->L[0].dev);
        /* streams, events and barrier memory before the first barrier */
        for (int i = 0; i < c->nlocal && st == AR_OK; i++) st = make_local(c, i, e);
        if (st == AR_OK && path) {
            st = barrier(c, e); /* every rank has joined: the id file is no longer needed */
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

ar_status ar_real_machines(ar_real_ctx *c, int *machine_of_rank, int *nmachines, ar_err *e) {
    ar_status st = AR_OK;
    int P = c->nranks;
    char key[AR_HOSTKEY];
    memset(key, 0, sizeof key);
    const char *hid = env("NCCL_HOSTID");
    if (hid) snprintf(key, sizeof key, "hostid:%s", hid);
    else {
        char hn[AR_HOSTKEY - 8] = {0}; /* "host:" + name fits the key; longer names are cut */
        gethostname(hn, sizeof hn - 1);
        snprintf(key, sizeof key, "host:%s", hn);
    }
    void **d = ar_calloc((size_t)c->nlocal, sizeof *d);
    char *all = ar_calloc((size_t)P, AR_HOSTKEY);
    const char **keys = ar_calloc((size_t)P, sizeof *keys);
    if (!d || !all || !keys) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int l = 0; l < c->nlocal; l++) {
        CUG(cudaSetDevice(c->L[l].dev));
        CUG(cudaMalloc(&d[l], (size_t)P * AR_HOSTKEY));
        st = copy_sync(c, l, (char *)d[l] + (size_t)c->L[l].rank * AR_HOSTKEY, key, AR_HOSTKEY, cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllGather((char *)d[l] + (size_t)c->L[l].rank * AR_HOSTKEY, d[l], AR_HOSTKEY, ncclChar, c->L[l].world,
                          c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = copy_sync(c, 0, all, d[0], (size_t)P * AR_HOSTKEY, cudaMemcpyDeviceToHost, e);
    if (st != AR_OK) goto out;
    for (int r = 0; r < P; r++) {
        all[(size_t)r * AR_HOSTKEY + AR_HOSTKEY - 1] = 0;
        keys[r] = all + (size_t)r * AR_HOSTKEY;
    }
    st = ar_real_machines_from_keys(keys, P, machine_of_rank, nmachines, e);
out:
    for (int l = 0; d && l < c->nlocal; l++)
        if (d[l]) cudaFree(d[l]);
    free(d);
    free(all);
    free(keys);
    return st;
}

/* ---- communicators ---------------------------------------------------------------------- */

static comm_entry *cache_find(ar_real_ctx *c, const int *members, int n) {
    for (int k = 0; k < c->ncomms; k++)
        if (c->comms[k].n == n && !memcmp(c->comms[k].members, members, (size_t)n * sizeof *members))
            return &c->comms[k];
    return NULL;
}

/* Splits the communicators plan p needs and the cache lacks (one
 * ncclCommSplit per layer, every rank, same order everywhere). */
static ar_status ensure_comms(ar_real_ctx *c, ar_real_plan *p, ar_err *e) {
    ar_status st = AR_OK;
    int *need = ar_calloc((size_t)p->ngroups + 1, sizeof *need);
    ncclComm_t *nc = ar_calloc((size_t)c->nlocal, sizeof *nc);
    int *gof = ar_calloc((size_t)c->nlocal, sizeof *gof);
    int any = 0, nl = 0;
    if (!need || !nc || !gof) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int g = 0; g < p->ngroups; g++) {
        need[g] = !p->groups[g].world && !cache_find(c, p->groups[g].members, p->groups[g].n);
        any |= need[g];
    }
    if (!any) goto out;
    st = ar_real_layers(p->groups, p->ngroups, need, c->nranks, &nl, e);
    if (st != AR_OK) goto out;
    if (c->ncomms + p->ngroups > c->capcomms) {
        int cap = c->capcomms * 2 > c->ncomms + p->ngroups ? c->capcomms * 2 : c->ncomms + p->ngroups + 8;
        comm_entry *ne = ar_reallocarray(c->comms, (size_t)cap, sizeof *ne);
        if (!ne) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            goto out;
        }
        c->comms = ne;
        c->capcomms = cap;
    }
    for (int layer = 0; layer < nl; layer++) {
        NCG(ncclGroupStart());
        for (int l = 0; l < c->nlocal; l++) {
            int color, key;
            gof[l] = ar_real_split_args(p->groups, p->ngroups, layer, c->L[l].rank, &color, &key);
            nc[l] = NULL;
            NCG(ncclCommSplit(c->L[l].world, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &nc[l], NULL));
        }
        NCG(ncclGroupEnd());
        for (int g = 0; g < p->ngroups; g++) {
            if (!need[g] || p->groups[g].layer != layer) continue;
            comm_entry *ce = &c->comms[c->ncomms];
            ce->n = p->groups[g].n;
            ce->members = ar_calloc((size_t)ce->n, sizeof *ce->members);
            ce->comm = ar_calloc((size_t)c->nlocal, sizeof *ce->comm);
            if (!ce->members || !ce->comm) {
                free(ce->members);
                free(ce->comm);
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                goto out;
            }
            memcpy(ce->members, p->groups[g].members, (size_t)ce->n * sizeof *ce->members);
            for (int l = 0; l < c->nlocal; l++) ce->comm[l] = gof[l] == g ? nc[l] : NULL;
            c->ncomms++;
        }
    }
out:
    free(need);
    free(nc);
    free(gof);
    return st;
}

static ncclComm_t comm_of(ar_real_ctx *c, const ar_real_plan *p, int g, int l) {
    const ar_real_group *G = &p->groups[g];
    if (G->world) return c->L[l].world;
    comm_entry *ce = cache_find(c, G->members, G->n);
    return ce ? ce->comm[l] : NULL;
}

/* ---- benchmark -------------------------------------------------------------------------------- */

typedef struct lbuf {
    void *buf, *send, *scratch;   /* device */
    ar_real_kpost *posts;         /* device */
    uint64_t *srcs;               /* device */
    double *times;                /* device, iters doubles */
    ar_real_prog *prog;           /* host */
    ncclComm_t *comm;             /* per plan group (host array) */
} lbuf;

typedef struct run_ctx {
    ar_real_ctx *c;
    const ar_real_plan *p;        /* NULL: baseline */
    lbuf *B;
    uint64_t count;
    size_t esz;
    ar_dtype dt;
    int inplace;
} run_ctx;

static ar_status issue(run_ctx *R, int l, const ar_real_instr *in, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    lbuf *b = &R->B[l];
    ncclDataType_t t = nccl_type(R->dt);
    cudaStream_t s = c->L[l].st;
    char *base = b->buf, *scr = b->scratch;
    size_t z = R->esz;
    switch (in->kind) {
    case AR_RI_SEND: NCG(ncclSend(base + in->send_off * z, in->count, t, in->peer, c->L[l].world, s)); break;
    case AR_RI_RECV:
        NCG(ncclRecv((in->scratch ? scr : base) + in->recv_off * z, in->count, t, in->peer, c->L[l].world, s));
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
        case AR_RC_REDUCE_SCATTER: NCG(ncclReduceScatter(sb, rb, in->count, t, ncclSum, cm, s)); break;
        case AR_RC_ALL_GATHER: NCG(ncclAllGather(sb, rb, in->count, t, cm, s)); break;
        case AR_RC_REDUCE: NCG(ncclReduce(sb, rb, in->count, t, ncclSum, in->root, cm, s)); break;
        case AR_RC_BROADCAST: NCG(ncclBroadcast(sb, rb, in->count, t, in->root, cm, s)); break;
        case AR_RC_ALL_REDUCE: NCG(ncclAllReduce(sb, rb, in->count, t, ncclSum, cm, s)); break;
        default: st = ar_fail(e, AR_EINTERNAL, "bad collective %d", (int)in->call); goto out;
        }
        break;
    }
    }
out:
    return st;
}

/* One execution on every local rank (asynchronous on the streams). */
static ar_status run_once(run_ctx *R, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    size_t bytes = (size_t)R->count * R->esz;
    if (!R->p) {
        NCG(ncclGroupStart());
        for (int l = 0; l < c->nlocal; l++) {
            lbuf *b = &R->B[l];
            NCG(ncclAllReduce(R->inplace ? b->buf : b->send, b->buf, R->count, nccl_type(R->dt), ncclSum,
                              c->L[l].world, c->L[l].st));
        }
        NCG(ncclGroupEnd());
        goto out;
    }
    if (!R->inplace)
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaMemcpyAsync(R->B[l].buf, R->B[l].send, bytes, cudaMemcpyDeviceToDevice, c->L[l].st));
        }
    for (int k = 0; k < R->p->nsteps; k++) {
        int any = 0;
        for (int l = 0; l < c->nlocal; l++) any |= R->B[l].prog->steps[k].ninstr > 0;
        if (any) {
            NCG(ncclGroupStart());
            for (int l = 0; l < c->nlocal && st == AR_OK; l++) {
                const ar_real_prog *g = R->B[l].prog;
                const ar_real_step *sp = &g->steps[k];
                for (size_t i = 0; i < sp->ninstr && st == AR_OK; i++) st = issue(R, l, &g->instr[sp->first_instr + i], e);
            }
            if (st != AR_OK) {
                ncclGroupEnd();
                goto out;
            }
            NCG(ncclGroupEnd());
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
                int rc = ar_real_launch_posts((int)R->dt, R->B[l].buf, R->B[l].scratch, R->B[l].posts + sp->first_post + a,
                                              (int)(z - a), R->B[l].srcs, g->max_post_count, c->L[l].st);
                if (rc) {
                    st = cu_fail(c, e, "post kernel launch", (cudaError_t)rc);
                    goto out;
                }
                a = z;
            }
        }
    }
out:
    return st;
}

static ar_status fill_inputs(run_ctx *R, int m, void *host, ar_err *e) {
    ar_real_ctx *c = R->c;
    ar_status st = AR_OK;
    for (int l = 0; l < c->nlocal; l++) {
        ar_real_fill(host, R->dt, c->L[l].rank, R->count, m);
        st = copy_sync(c, l, R->inplace ? R->B[l].buf : R->B[l].send, host, (size_t)R->count * R->esz,
                       cudaMemcpyHostToDevice, e);
        if (st != AR_OK) break;
    }
    return st;
}

static void free_bufs(ar_real_ctx *c, lbuf *B) {
    if (!B) return;
    for (int l = 0; l < c->nlocal; l++) {
        cudaSetDevice(c->L[l].dev);
        if (B[l].buf) cudaFree(B[l].buf);
        if (B[l].send) cudaFree(B[l].send);
        if (B[l].scratch) cudaFree(B[l].scratch);
        if (B[l].posts) cudaFree(B[l].posts);
        if (B[l].srcs) cudaFree(B[l].srcs);
        if (B[l].times) cudaFree(B[l].times);
        ar_real_prog_free(B[l].prog);
        free(B[l].comm);
    }
    free(B);
}

ar_status ar_real_bench(ar_real_ctx *c, const ar_schedule *s, uint64_t count, const ar_real_bench_opts *o,
                        ar_real_measure *out, ar_err *e) {
    ar_status st = AR_OK;
    memset(out, 0, sizeof *out);
    out->med_s = out->min_s = out->max_s = NAN;
    out->wrong = -1;
    size_t esz = ar_dtype_size(o->dtype);
    if (s) {
        if (s->nranks != c->nranks)
            return ar_fail(e, AR_EINVAL, "schedule %s is for %d ranks, this run has %d", s->algo, s->nranks, c->nranks);
        if (s->elem_bytes != esz)
            return ar_fail(e, AR_EINVAL, "schedule %s has %zu-byte elements, --dtype %s has %zu", s->algo, s->elem_bytes,
                           ar_dtype_name(o->dtype), esz);
        count = s->count;
    }
    if (count < 1 || o->iters < 1 || o->warmup < 0) return ar_fail(e, AR_EINVAL, "bench: bad count or iterations");
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
        if (st == AR_OK) st = ensure_comms(c, plan, e);
        if (st != AR_OK) goto out;
    }
    for (int l = 0; l < c->nlocal; l++) {
        lbuf *b = &B[l];
        CUG(cudaSetDevice(c->L[l].dev));
        CUG(cudaMalloc(&b->buf, (size_t)count * esz));
        if (!o->inplace) CUG(cudaMalloc(&b->send, (size_t)count * esz));
        CUG(cudaMalloc((void **)&b->times, (size_t)o->iters * sizeof(double)));
        if (!plan) continue;
        st = ar_real_compile(plan, c->L[l].rank, &b->prog, e);
        if (st != AR_OK) goto out;
        b->comm = ar_calloc((size_t)plan->ngroups + 1, sizeof *b->comm);
        if (!b->comm) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            goto out;
        }
        for (int g = 0; g < plan->ngroups; g++) b->comm[g] = comm_of(c, plan, g, l);
        const ar_real_prog *g = b->prog;
        CUG(cudaMalloc(&b->scratch, (size_t)(g->scratch_elems ? g->scratch_elems : 1) * esz));
        if (g->npost) {
            ar_real_kpost *kp = ar_calloc(g->npost, sizeof *kp);
            if (!kp) {
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                goto out;
            }
            for (size_t i = 0; i < g->npost; i++)
                kp[i] = (ar_real_kpost){g->post[i].dst_off, g->post[i].count, g->post[i].first_src, g->post[i].nsrc,
                                        g->post[i].add, 0};
            cudaError_t ce = cudaMalloc((void **)&b->posts, g->npost * sizeof *kp);
            if (ce == cudaSuccess) st = copy_sync(c, l, b->posts, kp, g->npost * sizeof *kp, cudaMemcpyHostToDevice, e);
            else st = cu_fail(c, e, "cudaMalloc(post descriptors)", ce);
            free(kp);
            if (st != AR_OK) goto out;
            CUG(cudaMalloc((void **)&b->srcs, g->nsrc * sizeof *g->src_off));
            st = copy_sync(c, l, b->srcs, g->src_off, g->nsrc * sizeof *g->src_off, cudaMemcpyHostToDevice, e);
            if (st != AR_OK) goto out;
        }
    }
    run_ctx R = {c, plan, B, count, esz, o->dtype, o->inplace};
    /* timing runs on the exact-input pattern too (no NaN or denormal surprises) */
    st = fill_inputs(&R, m > 0 ? m : 1, host, e);
    for (int w = 0; w < o->warmup && st == AR_OK; w++) st = run_once(&R, e);
    for (int l = 0; l < c->nlocal && st == AR_OK; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    for (int it = 0; it < o->iters && st == AR_OK; it++) {
        st = barrier(c, e);
        if (st != AR_OK) break;
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaEventRecord(c->L[l].e0, c->L[l].st));
        }
        st = run_once(&R, e);
        if (st != AR_OK) break;
        for (int l = 0; l < c->nlocal; l++) {
            CUG(cudaSetDevice(c->L[l].dev));
            CUG(cudaEventRecord(c->L[l].e1, c->L[l].st));
        }
        for (int l = 0; l < c->nlocal; l++) {
            float ms = 0;
            CUG(cudaEventSynchronize(c->L[l].e1));
            CUG(cudaEventElapsedTime(&ms, c->L[l].e0, c->L[l].e1));
            tl[(size_t)l * (size_t)o->iters + (size_t)it] = (double)ms * 1e-3;
        }
    }
    if (st != AR_OK) goto out;
    /* max over ranks, per iteration */
    for (int l = 0; l < c->nlocal; l++) {
        st = copy_sync(c, l, B[l].times, tl + (size_t)l * (size_t)o->iters, (size_t)o->iters * sizeof(double),
                       cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce(B[l].times, B[l].times, (size_t)o->iters, ncclFloat64, ncclMax, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = copy_sync(c, 0, t, B[0].times, (size_t)o->iters * sizeof(double), cudaMemcpyDeviceToHost, e);
    if (st != AR_OK) goto out;
    if (ar_real_stats(t, o->iters, &out->med_s, &out->min_s, &out->max_s) != AR_OK) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    out->iters = o->iters;
    /* correctness after timing */
    if (m > 0) {
        ar_real_expected_table(c->nranks, m, table);
        st = fill_inputs(&R, m, host, e);
        if (st == AR_OK) st = run_once(&R, e);
        if (st != AR_OK) goto out;
        long long bad = 0;
        for (int l = 0; l < c->nlocal; l++) {
            st = copy_sync(c, l, host, B[l].buf, (size_t)count * esz, cudaMemcpyDeviceToHost, e);
            if (st != AR_OK) goto out;
            uint64_t first = 0;
            uint64_t w = ar_real_count_wrong(host, o->dtype, count, table, m, &first);
            if (w && c->L[l].rank == 0)
                fprintf(stderr, "arlab real: %s: rank 0 has %llu wrong elements (first at %llu)\n",
                        s ? s->algo : "nccl-allreduce", (unsigned long long)w, (unsigned long long)first);
            bad += (long long)w;
        }
        /* sum over ranks: one int64 per local rank in `small` */
        for (int l = 0; l < c->nlocal; l++) {
            long long v = l == 0 ? bad : 0;
            st = copy_sync(c, l, (char *)c->L[l].small + 64, &v, sizeof v, cudaMemcpyHostToDevice, e);
            if (st != AR_OK) goto out;
        }
        NCG(ncclGroupStart());
        for (int l = 0; l < c->nlocal; l++)
            NCG(ncclAllReduce((char *)c->L[l].small + 64, (char *)c->L[l].small + 64, 1, ncclInt64, ncclSum,
                              c->L[l].world, c->L[l].st));
        NCG(ncclGroupEnd());
        for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
        st = copy_sync(c, 0, &bad, (char *)c->L[0].small + 64, sizeof bad, cudaMemcpyDeviceToHost, e);
        if (st != AR_OK) goto out;
        out->wrong = bad;
    }
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
        st = memset_sync(c, l, d[l], 1, (size_t)bytes, e);
        if (st != AR_OK) goto out;
        if (c->L[l].rank == a) la = l;
    }
    for (int it = -warmup; it < iters && st == AR_OK; it++) {
        st = barrier(c, e);
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
        st = copy_sync(c, l, x, src, (size_t)iters * sizeof(double), cudaMemcpyHostToDevice, e);
        if (st != AR_OK) goto out;
    }
    NCG(ncclGroupStart());
    for (int l = 0; l < c->nlocal; l++)
        NCG(ncclAllReduce(d[l], d[l], (size_t)iters, ncclFloat64, ncclMax, c->L[l].world, c->L[l].st));
    NCG(ncclGroupEnd());
    for (int l = 0; l < c->nlocal; l++) CUG(cudaStreamSynchronize(c->L[l].st));
    st = copy_sync(c, 0, t, d[0], (size_t)iters * sizeof(double), cudaMemcpyDeviceToHost, e);
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
