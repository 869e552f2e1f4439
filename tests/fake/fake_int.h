/* Internals shared by the files of the host fakes (fake.c: state, control,
 * memory and stream order, graph records; fake_cuda.c: the CUDA runtime and
 * graphs; fake_nccl.c: NCCL). Tests only. */
#ifndef AR_FAKE_INT_H
#define AR_FAKE_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "fake.h"
#include "nccl.h"

#define MAXS 64 /* streams per device */
#define MAXDEV 64
#define MAXACC 2000000

/* ---- state ------------------------------------------------------------------------------ */

typedef struct alloc {
    char *p;
    size_t n;
    int dev;
} alloc;

typedef struct acc {
    const char *base; /* allocation */
    size_t lo, hi;
    int write, sid;
    unsigned clock;
} acc;

typedef struct devstate {
    struct fake_stream *live[MAXS]; /* by id (NULL: destroyed) */
    int nstreams;                   /* ids handed out */
    int alive;
    acc *acc;
    size_t nacc, capacc;
    int overflow;
} devstate;

struct fake_graph;

struct fake_stream {
    int dev, id;
    unsigned vc[MAXS];
    struct fake_graph *cap; /* being captured into this graph */
    int forked, joined;     /* forked into a capture; joined back since its last op */
};

struct fake_event {
    int dev;
    unsigned vc[MAXS];
    double t;
    int recorded;
    struct fake_graph *cap; /* recorded during a capture (by stream `by`) */
    struct fake_stream *by;
};

/* ---- graphs: a record of calls, replayed in order ---------------------------------------- */

enum { N_COPY, N_SET, N_KERNEL, N_EVREC, N_WAIT, N_NCCL };

typedef struct ncall {
    int kind; /* 0 send, 1 recv, 2 all-reduce, 3 reduce-scatter, 4 all-gather, 5 reduce, 6 broadcast */
    const void *sb;
    void *rb;
    size_t count;
    int dt, op, root, peer;
    struct fake_comm *comm;
    cudaStream_t s;
} ncall;

typedef struct gnode {
    int kind;
    cudaStream_t s;
    void *dst;
    const void *src;
    size_t n;
    int v; /* COPY: kind; SET: value */
    cudaEvent_t ev;
    int dtype, nposts; /* KERNEL */
    void *buf;
    const void *scratch, *posts;
    const uint64_t *srcs;
    uint64_t max_count;
    ncall *calls; /* NCCL: one group (owned) */
    size_t ncalls;
} gnode;

struct fake_graph {
    gnode *v;
    size_t n, cap;
    struct fake_stream *origin;
    struct fake_stream *streams[MAXS];
    int nstreams;
};

typedef struct fop fop;

typedef struct shared {
    int n;
    int id;
    struct fake_comm **h;                                 /* per comm rank */
    uint64_t *coll_seq, *split_seq, *send_seq, *recv_seq; /* send/recv: n x n */
    int aborted;
    int refs;
} shared;

struct fake_comm {
    shared *sc;
    int rank, wrank, dev;
    int destroyed;
};

enum { OP_SEND, OP_RECV, OP_COLL, OP_SPLIT };
enum { C_AR, C_RS, C_AG, C_RED, C_BC };

struct fop {
    int kind, call;
    struct fake_comm *h;
    int peer;
    const void *sb;
    void *rb;
    size_t count;
    ncclDataType_t dt;
    ncclRedOp_t op;
    int root;
    uint64_t seq;
    int color, key;
    ncclComm_t *out;
    int done, err;
    fop *next; /* pending list */
};

typedef struct initreg {
    ncclUniqueId id;
    int n, joined;
    shared *sc;
    struct initreg *next;
} initreg;

/* The process-wide state of the fakes (the libraries they replace have it too). */
struct fake_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ndev, driver;
    cudaError_t count_err;
    double timeout;
    alloc *al;
    size_t nal, capal;
    devstate dev[MAXDEV];
    fop *pending;
    initreg *inits;
    int ncomms, nids;
    fake_fault fault;
    int frank, fnth;
    long nrecv[4096], ncoll[4096], nsplit[4096], ngroup[4096];
    fake_stats st;
    char first_err[512];
    int timing0;
};
extern struct fake_state F;
extern _Thread_local int t_dev;       /* the calling thread's current device */
extern _Thread_local char t_err[512]; /* its last NCCL error message */

void fk_lock(void);
void fk_unlock(void);
double fk_now(void);
/* records an error message (locked) */
void fk_err(const char *fmt, ...);
/* checks [p, p + n) against the cudaMalloc blocks and the stream order (locked) */
int fk_access_locked(cudaStream_t s, const void *p, size_t n, int write, const char *what);
/* appends a node to s's capture (locked) */
gnode *fk_gadd(cudaStream_t s, int kind);
/* re-issues a captured NCCL call (fake_nccl.c) */
ncclResult_t fk_replay_call(const ncall *c);

#endif
