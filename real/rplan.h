/* real/ host side, part 1: how a schedule becomes NCCL calls.
 *
 * Pure C, no CUDA or NCCL header: everything here is unit-tested on machines
 * without a GPU (tests/real/real_plan.c), and the GPU executor (real/exec_*.c) only
 * interprets what it produces.
 *
 * 1. Op mapping (ar_real_map_op). Each op of a schedule becomes one call:
 *      - NATIVE ops, and ops NCCL implements the same way without explicit
 *        pipelining (one chunk): RING ops, and CHAIN reduce/broadcast (NCCL's
 *        ncclReduce/ncclBroadcast are pipelined chains along its ring; this is
 *        how FlexReduce's reduce/broadcast calls run), go to NCCL's own
 *        collectives (BlueConnect's "best library per fabric"):
 *          REDUCE_SCATTER -> ncclReduceScatter   (even blocks)
 *          ALL_GATHER     -> ncclAllGather       (even blocks)
 *          REDUCE         -> ncclReduce          (root = op->root)
 *          BROADCAST      -> ncclBroadcast       (root = op->root)
 *          ALL_REDUCE     -> ncclAllReduce
 *        Uneven blocks (FlexReduce's `counts`, or count % n != 0) cannot use
 *        ncclReduceScatter/ncclAllGather: they become one ncclReduce (RS) or
 *        ncclBroadcast (AG) per non-empty block, rooted at the block's owner,
 *        all in one NCCL group (AR_RC_BLOCK_REDUCE / AR_RC_BLOCK_BCAST).
 *      - Everything else (HD, BINOMIAL, DIRECT, TREE, CHAIN all-reduce, any
 *        op with chunks > 1, SEND) is lowered with ar_lower_round (core/lower.h) to rounds of
 *        ncclSend/ncclRecv plus our CUDA reduction kernel (AR_RC_P2P), so it
 *        moves exactly the bytes the models and the simulator count.
 *    Lowering mode AR_REAL_LOWER_P2P sends every op through point-to-point;
 *    AR_REAL_LOWER_NATIVE maps every group op (not SEND, nor an op with a per-member block layout,
 *    schedule.h offs: no collective takes it; those run point-to-point) to a collective.
 *    Pipeline chunks of an op mapped to a collective are ignored (NCCL
 *    pipelines internally).
 *
 * 2. Communicators. Ops mapped to collectives run on a communicator of their
 *    member list, in member order (comm rank i = members[i], so block i of a
 *    reduce-scatter lands on members[i]): one "group" per distinct ordered
 *    member list. The world itself (0..P-1 in order) uses the world
 *    communicator; the others are made with ncclCommSplit of the world. Each
 *    split call is collective over the world, so groups are packed into
 *    "layers" (a rank is in at most one group of a layer): one split per layer,
 *    rank r passes the color of its group in that layer (NCCL_SPLIT_NOCOLOR,
 *    -1, if none) and key = its index in the member list. Layers and colors
 *    are a pure function of the group list, hence the same on every rank.
 *    Point-to-point steps use the world communicator.
 *
 * 3. Programs. For each rank, ar_real_compile produces a program: a list of
 *    steps, the same number on every rank. A step is one
 *    ncclGroupStart/ncclGroupEnd holding the rank's instructions (collectives,
 *    sends, receives), followed by "posts": reduction/copy kernels from the
 *    scratch buffer into the data buffer, run in waves (no two posts of a wave
 *    write overlapping ranges). Per phase: one step with every collective of
 *    the phase (if the phase has any), then one step per round of its
 *    point-to-point ops (round r of every such op of the phase together, so
 *    concurrent ops advance in lockstep, as the cost walk assumes). Every
 *    rank issues everything in the same order (phase, op index, transfer
 *    order of the lowering), which is what NCCL needs to match operations.
 *    A receive that overwrites (copy) goes straight into the data buffer when
 *    its range touches no other range this rank reads or writes in the step;
 *    otherwise, and always for receives that add, it lands in scratch and a
 *    post applies it.
 *
 * 4. ar_real_simulate runs the programs of all ranks on the host with a fake
 *    NCCL (same matching rules, snapshot semantics inside a group, race
 *    detection) and checks the exact all-reduce result: the GPU path minus the
 *    GPU.
 *
 * Ownership: ar_real_plan_build/ar_real_compile allocate; free with
 * ar_real_plan_free/ar_real_prog_free. A plan borrows its schedule (the
 * schedule must outlive the plan and its programs).
 */
#ifndef AR_REAL_RPLAN_H
#define AR_REAL_RPLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/schedule.h"
#include "core/status.h"

typedef enum ar_real_lowering {
    AR_REAL_LOWER_AUTO,  /* NATIVE, 1-chunk RING and CHAIN reduce/bcast -> collectives, the rest p2p */
    AR_REAL_LOWER_P2P,   /* every op lowered to ncclSend/ncclRecv + kernel */
    AR_REAL_LOWER_NATIVE /* every group op -> an NCCL collective (SEND stays p2p) */
} ar_real_lowering;

ar_status ar_real_lowering_parse(const char *s, ar_real_lowering *out, ar_err *e);
const char *ar_real_lowering_name(ar_real_lowering l);

typedef enum ar_real_call {
    AR_RC_NONE,           /* nothing to move (one member or an empty range) */
    AR_RC_REDUCE_SCATTER, /* ncclReduceScatter */
    AR_RC_ALL_GATHER,     /* ncclAllGather */
    AR_RC_REDUCE,         /* ncclReduce */
    AR_RC_BROADCAST,      /* ncclBroadcast */
    AR_RC_ALL_REDUCE,     /* ncclAllReduce */
    AR_RC_BLOCK_REDUCE,   /* uneven reduce-scatter: ncclReduce per block */
    AR_RC_BLOCK_BCAST,    /* uneven all-gather: ncclBroadcast per block */
    AR_RC_P2P             /* ncclSend/ncclRecv rounds + reduction kernel */
} ar_real_call;

const char *ar_real_call_name(ar_real_call c); /* e.g. "ncclReduceScatter", "p2p" */

/* The call op maps to under `mode` (rules above). */
ar_real_call ar_real_map_op(const ar_op *op, ar_real_lowering mode);

/* 1 if the op's blocks are all the same size (ncclReduceScatter/AllGather can serve it). */
int ar_real_op_even(const ar_op *op);

typedef struct ar_real_group {
    int n;
    int *members; /* ordered global ranks (owned) */
    int world;    /* 1: 0..P-1 in order: the world communicator, no split */
    int layer;    /* split layer (-1: world, or not assigned) */
    int color;    /* color within its layer (0, 1, ...) */
} ar_real_group;

typedef struct ar_real_plan {
    const ar_schedule *s; /* borrowed */
    ar_real_lowering mode;
    int nops;           /* ops over all phases ("flat" index) */
    int *phase_first;   /* nphases+1: flat ops of phase p are [phase_first[p], phase_first[p+1]) */
    ar_real_call *call; /* per flat op */
    int *group;         /* per flat op: group index for collectives, else -1 */
    int ngroups;
    ar_real_group *groups;
    int nlayers;             /* layers of all non-world groups (ar_real_layers) */
    int *phase_coll;         /* per phase: 1 if it has a step of collectives */
    int *phase_rounds;       /* per phase: point-to-point rounds (max over its p2p ops) */
    int *phase_step0;        /* per phase: index of its first step */
    int nsteps;              /* steps over all phases */
    int ncoll_ops, np2p_ops; /* ops mapped to collectives / to point-to-point */
    /* Round fusion (ar_real_plan_fuse; NULL/0 when not fused: one step per round):
     * phase ph has phase_psteps[ph] point-to-point steps; step j of it holds rounds
     * [pstep_r0[phase_pfirst[ph] + j], next one's r0 or phase_rounds[ph]). */
    int *phase_psteps, *phase_pfirst, *pstep_r0;
    int fused_rounds; /* rounds that joined an earlier round's group */
} ar_real_plan;

ar_status ar_real_plan_build(const ar_schedule *s, ar_real_lowering mode, ar_real_plan **out, ar_err *e);

/* Round fusion (real/rfuse.c): issues consecutive point-to-point rounds of a
 * phase in one NCCL group (one step) when no round of the group sends, on any
 * rank, data that an earlier round of the group receives (a read after a
 * write: the only hazard left, since compile moves every receive that
 * overlaps another range of its step to scratch and applies the posts in
 * order after the group). The same on every rank (a pure function of the
 * schedule), so every rank still issues the same steps. Recomputes nsteps and
 * phase_step0; programs compiled afterwards follow it. Fewer NCCL groups and
 * kernel launches for schedules whose rounds are independent (pipelined
 * chunks, several trees). */
ar_status ar_real_plan_fuse(ar_real_plan *p, ar_err *e);
void ar_real_plan_free(ar_real_plan *p);

/* Flat op index -> the op. */
const ar_op *ar_real_plan_op(const ar_real_plan *p, int flat, int *phase);

/* Index of rank in group g's member list, or -1. */
int ar_real_group_index(const ar_real_group *g, int rank);

/* Packs the groups g with need[g] != 0 (need == NULL: all) and world == 0
 * into split layers: group by group in index order, each into the first layer
 * where none of its members is taken; color = its position in that layer.
 * Sets layer/color of those groups (others get layer -1) and *nlayers.
 * The executor calls it with need = "not yet in the communicator cache". */
ar_status ar_real_layers(ar_real_group *groups, int ngroups, const int *need, int nranks, int *nlayers, ar_err *e);

/* ncclCommSplit arguments of `rank` in layer `layer`: *color is the color of
 * its group in that layer, or -1 (NCCL_SPLIT_NOCOLOR) when it is in none;
 * *key its index in that group's members (0 when none). Returns the group
 * index or -1. */
int ar_real_split_args(const ar_real_group *groups, int ngroups, int layer, int rank, int *color, int *key);

/* --- programs ------------------------------------------------------------- */

typedef enum ar_real_ikind { AR_RI_COLL, AR_RI_SEND, AR_RI_RECV } ar_real_ikind;

typedef struct ar_real_instr {
    ar_real_ikind kind;
    ar_real_call call; /* COLL: AR_RC_REDUCE_SCATTER .. AR_RC_ALL_REDUCE */
    int group;         /* COLL: plan group (its communicator) */
    int root;          /* COLL REDUCE/BROADCAST: root's index in the group */
    int peer;          /* SEND/RECV: global rank */
    int scratch;       /* RECV: 1 = recv_off is in scratch, 0 = in the data buffer */
    int flat;          /* the op it comes from (flat index) */
    uint64_t send_off; /* COLL: sendbuff offset; SEND: offset of the data sent (elements) */
    uint64_t recv_off; /* COLL: recvbuff offset; RECV: destination offset */
    uint64_t count;    /* NCCL's count (RS: recvcount, AG: sendcount; SEND/RECV: elements) */
} ar_real_instr;

/* After a step's NCCL group: dst (+)= the sources (scratch offsets). */
typedef struct ar_real_post {
    uint64_t dst_off; /* in the data buffer */
    uint64_t count;
    int add;            /* 1: dst += sum of sources; 0: dst = the one source */
    int wave;           /* posts of one wave are independent (one kernel launch) */
    uint32_t first_src; /* sources: prog->src_off[first_src .. first_src + nsrc) */
    uint32_t nsrc;
} ar_real_post;

typedef struct ar_real_step {
    int phase, round; /* round -1: the step of collectives */
    size_t first_instr, ninstr;
    size_t first_post, npost; /* posts sorted by wave */
    int nwaves;
} ar_real_step;

typedef struct ar_real_prog {
    int rank;
    int nsteps;          /* == plan->nsteps */
    ar_real_step *steps; /* owned */
    size_t ninstr, npost, nsrc;
    ar_real_instr *instr;       /* owned */
    ar_real_post *post;         /* owned */
    uint64_t *src_off;          /* owned */
    uint64_t scratch_elems;     /* scratch this rank needs (max over steps) */
    uint64_t max_post_count;    /* largest post (kernel grid sizing) */
    size_t nsend, nrecv, ncoll; /* instruction counts, for reports */
} ar_real_prog;

ar_status ar_real_compile(const ar_real_plan *p, int rank, ar_real_prog **out, ar_err *e);
void ar_real_prog_free(ar_real_prog *g);

/* Runs the programs of all ranks (progs[r] for rank r) with a host fake of
 * NCCL on double buffers holding ar_real_input values (m from
 * ar_real_pattern_m(dtype, P) for f32), then checks every element of every rank
 * against the exact sum. Fails with a message on a mismatched or unmatched
 * NCCL call, a race inside a step, or (AR_EFAIL) a wrong result; *wrong gets
 * the number of wrong elements over all ranks. Memory: about 2 x P x count
 * doubles plus scratch (refused above max_bytes, 0 = 512 MiB). */
ar_status ar_real_simulate(const ar_real_plan *p, ar_real_prog *const *progs, uint64_t max_bytes, uint64_t *wrong,
                           ar_err *e);

/* Human description of the plan (mapping per op, groups, layers, steps). */
void ar_real_plan_print(const ar_real_plan *p, FILE *f);

#endif
