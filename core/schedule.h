/* Schedules: what every algorithm plans and every backend consumes.
 *
 * A schedule is a list of phases; a phase is a set of group operations that run
 * concurrently; phase k+1 starts when phase k has finished (a barrier over the
 * ranks involved). Each op works on an element range [offset, offset+count) of
 * every member's buffer (the buffer holds s->count elements of s->elem_bytes).
 *
 * Op semantics (what the validator and host executor enforce):
 *   REDUCE_SCATTER  members[i] ends with the sum over all members of block i;
 *                   the other blocks of every member become undefined.
 *   ALL_GATHER      every member ends with block i copied from members[i].
 *   REDUCE          members[root] ends with the sum over all members of the
 *                   range; other members' ranges become undefined.
 *   BROADCAST       every member ends with members[root]'s range.
 *   ALL_REDUCE      every member ends with the sum over all members.
 *   SEND            members[1] receives members[0]'s range (reduce=1: adds it
 *                   to its own; reduce=0: overwrites). members[0] unchanged.
 * Blocks: with counts == NULL the range is split evenly: block i has
 * count/n elements plus one for i < count%n (ar_op_block). With counts != NULL
 * (uneven, FlexReduce) block i has counts[i] elements, in member order.
 * Per-member layout (offs != NULL, n entries; ar_op_set_offs): block i starts
 * at offs[i] instead of after block i-1, its length as above (counts[i] or the
 * even split of count); the blocks lie in the buffer and are pairwise disjoint
 * but need not be adjacent nor in member order, and the op's range is the
 * union of its blocks (count = their total; offset = the lowest offs[i], for
 * reports only). NCCL's multi-channel rings need it: channel c's reduce-scatter
 * or all-gather gives member i the c-th slice of rank members[i]'s block of the
 * collective. With offs, REDUCE_SCATTER leaves member i with the sum of block
 * i and every other block of the op undefined at it; ALL_GATHER gives every
 * member every block; ALL_REDUCE gives every member the sum over every block
 * (elements between the blocks are untouched). Only these three kinds, with
 * implementation RING, NATIVE or DIRECT, take a layout (the others move the op's
 * range or spans of adjacent blocks as one piece; the structure check refuses).
 * For REDUCE/BROADCAST, `parent` (optional, n entries, indices into members,
 * -1 at the root) gives the tree the implementation follows (AR_IMPL_TREE).
 *
 * Implementation (how the op becomes point-to-point transfers, which decides
 * its cost) and pipeline chunks are per op; see lower.h.
 *
 * Size: an op stores its member list (n ints) and optional per-member arrays,
 * so a schedule is O(ranks x levels), never O(ranks^2).
 *
 * Ownership: the schedule owns every array reachable from it; build it with
 * the ar_sched_* helpers, free with ar_schedule_free().
 */
#ifndef AR_SCHEDULE_H
#define AR_SCHEDULE_H

#include <stdint.h>
#include <stdio.h>
#include "status.h"

typedef enum ar_op_kind {
    AR_OP_REDUCE_SCATTER,
    AR_OP_ALL_GATHER,
    AR_OP_REDUCE,
    AR_OP_BROADCAST,
    AR_OP_ALL_REDUCE,
    AR_OP_SEND
} ar_op_kind;
#define AR_OP_KIND_COUNT 6

typedef enum ar_impl {
    AR_IMPL_RING,     /* ring over members in order (RS, AG, AR; REDUCE/BCAST = RS+gather / scatter+AG) */
    AR_IMPL_HD,       /* recursive halving (RS) / doubling (AG); n must be a power of two */
    AR_IMPL_BINOMIAL, /* binomial tree rooted at root (REDUCE, BROADCAST, AR = reduce+bcast) */
    AR_IMPL_CHAIN,    /* pipelined chain through members in order, ending/starting at root */
    AR_IMPL_DIRECT,   /* every member exchanges directly with the owner (parameter-server style) */
    AR_IMPL_TREE,     /* along `parent`, pipelined in chunks (spanning-tree packing) */
    AR_IMPL_NATIVE,   /* the backend library's own implementation (NCCL); costed as RING */
    AR_IMPL_SWITCH    /* through a reducing switch (op->sw): members send up, the switch reduces and
                         multicasts (NVLink SHARP / InfiniBand SHARP); RS, AG, AR, REDUCE, BCAST */
} ar_impl;
#define AR_IMPL_COUNT 8

/* The collective a schedule performs (its end state; the validator and the
 * host executor check it). Blocks of the collective: the buffer split evenly
 * into nranks blocks (block i: count/nranks elements plus one for i <
 * count%nranks, like ar_op_block), block i belonging to rank i.
 *   ALLREDUCE      every rank ends with the sum of every rank's buffer.
 *   REDUCESCATTER  rank i ends with the sum of block i (other blocks undefined).
 *   ALLGATHER      rank i starts with block i only (the rest undefined) and every
 *                  rank ends with every block. */
typedef enum ar_coll { AR_COLL_ALLREDUCE, AR_COLL_REDUCESCATTER, AR_COLL_ALLGATHER } ar_coll;
#define AR_COLL_COUNT 3
#define AR_COLL_BIT(c) (1u << (unsigned)(c))
const char *ar_coll_name(ar_coll c); /* "allreduce", "reducescatter", "allgather" */
ar_status ar_coll_parse(const char *s, ar_coll *out, ar_err *e);
/* Block i of the collective of a schedule with nranks ranks and count elements. */
void ar_coll_block(int nranks, uint64_t count, int i, uint64_t *off, uint64_t *len);

/* NCCL protocol an op runs with (its latency and bandwidth effect, models/walk.c
 * from models/nccl_model's tables, on RING and TREE ops); NONE: not modelled. */
typedef enum ar_proto { AR_PROTO_NONE, AR_PROTO_LL, AR_PROTO_LL128, AR_PROTO_SIMPLE } ar_proto;
#define AR_PROTO_COUNT 4
const char *ar_proto_name(ar_proto p); /* "none", "ll", "ll128", "simple" */

#define AR_MAX_CHUNKS 65536         /* pipeline chunks per op (documented limit) */
#define AR_VALIDATE_MAX_RANKS 65536 /* the symbolic validator refuses more ranks */
#define AR_DIRECT_MAX_MEMBERS 4096  /* a direct op moves n(n-1) transfers in one round */

typedef struct ar_op {
    ar_op_kind kind;
    ar_impl impl;
    int n;            /* number of members (>= 1; SEND: exactly 2) */
    int *members;     /* ranks, in group order (owned) */
    uint64_t offset;  /* first element of the range */
    uint64_t count;   /* elements in the range */
    uint64_t *counts; /* uneven blocks (n entries summing to count) or NULL (owned) */
    uint64_t *offs;   /* per-member layout: block i starts at offs[i] (n entries) or NULL (owned) */
    int root;         /* index into members for REDUCE/BROADCAST, else 0 */
    int *parent;      /* tree for AR_IMPL_TREE (n entries) or NULL (owned) */
    int chunks;       /* pipeline chunks, 1..AR_MAX_CHUNKS */
    int reduce;       /* SEND: 1 = add on arrival, 0 = copy */
    int tag;          /* planner's label (e.g. stage index), for reports; not semantic */
    ar_proto proto;   /* NCCL protocol (cost only; JSON "proto", absent = none) */
    int sw;           /* AR_IMPL_SWITCH: the platform's node index of the reducing switch
                         (JSON "switch": its node index, or its name, see sw_name); -1 otherwise */
    char *sw_name;    /* the switch's name as a schedule file gave it, until
                         ar_schedule_resolve_switches (platform.h) sets sw; NULL otherwise (owned) */
} ar_op;

typedef struct ar_phase {
    int nops, cap;
    ar_op *ops;
    char *label; /* e.g. "stage 1 reduce-scatter (w1)"; may be NULL */
} ar_phase;

typedef struct ar_schedule {
    char *algo;   /* algorithm name */
    char *detail; /* variant, e.g. "decomp=3x2x2 impl=ring,hd,ring"; may be NULL */
    ar_coll coll; /* the collective (ar_schedule_new: AR_COLL_ALLREDUCE) */
    int nranks;
    uint64_t count; /* elements per rank buffer */
    size_t elem_bytes;
    int nphases, cap;
    ar_phase *phases;
} ar_schedule;

/* --- building ---------------------------------------------------------- */
ar_schedule *ar_schedule_new(const char *algo, int nranks, uint64_t count, size_t elem_bytes);
void ar_schedule_free(ar_schedule *s);
ar_status ar_schedule_set_detail(ar_schedule *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends an empty phase and returns its index (or -1 on allocation failure). */
int ar_sched_phase(ar_schedule *s, const char *label_fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends an op to the last phase, copying `members` (and counts/parent when
 * given). Returns the op (owned by s) or NULL on allocation failure. */
ar_op *ar_sched_op(ar_schedule *s, ar_op_kind kind, ar_impl impl, const int *members, int n, uint64_t offset,
                   uint64_t count);
/* Keeps only the phases whose ops are all of `kind` (frees the others). */
void ar_schedule_keep_phases(ar_schedule *s, ar_op_kind kind);
ar_status ar_op_set_counts(ar_op *op, const uint64_t *counts); /* copies n entries */
ar_status ar_op_set_parent(ar_op *op, const int *parent);      /* copies n entries */
/* Copies n block starts (the per-member layout above) and sets offset to the lowest. */
ar_status ar_op_set_offs(ar_op *op, const uint64_t *offs);

/* --- queries ------------------------------------------------------------- */
/* Block i of op: [*off, *off + *len) in absolute elements. */
void ar_op_block(const ar_op *op, int i, uint64_t *off, uint64_t *len);
const char *ar_op_kind_name(ar_op_kind k);
const char *ar_impl_name(ar_impl i);
ar_status ar_impl_parse(const char *s, ar_impl *out, ar_err *e);

/* Reduce and broadcast "calls" per rank: the number of ops (any kind) in
 * which the rank takes part, per phase kind. Arrays of nranks, caller frees. */
typedef struct ar_call_stats {
    int *reduce_calls; /* REDUCE_SCATTER, REDUCE, ALL_REDUCE, SEND(reduce) */
    int *bcast_calls;  /* ALL_GATHER, BROADCAST, SEND(copy) */
} ar_call_stats;
ar_status ar_schedule_call_stats(const ar_schedule *s, ar_call_stats *out, ar_err *e);
void ar_call_stats_free(ar_call_stats *c);

/* 1 if some op of s runs through a switch (AR_IMPL_SWITCH); backends that
 * cannot (the NCCL point-to-point executor, MPI) refuse it. */
int ar_schedule_uses_switch(const ar_schedule *s);

/* 1 if some op of s carries an NCCL protocol (op->proto): its rounds cost NCCL's per-step latency,
 * which already holds NCCL's per-message software costs, so a platform's per-message costs (LogGP o, g)
 * are not charged again on such a schedule (the walk and the simulator price it on the network alone). */
int ar_schedule_uses_proto(const ar_schedule *s);

/* --- checking ------------------------------------------------------------ */
/* Structural checks: ranks in range and distinct within an op, ranges in
 * bounds, counts sum, root/parent valid, HD on a power of two, chunks >= 1,
 * a per-member layout's blocks in bounds and disjoint on a kind/impl that takes one. */
ar_status ar_schedule_check_structure(const ar_schedule *s, ar_err *e);

/* Symbolic validator: tracks, for every element range of every rank, the set
 * of ranks whose input it holds. Fails if an op reads an undefined range, a
 * reduction would count a rank twice, or at the end any element of any rank
 * does not hold every rank's input exactly once. Cost O(ranks^2/64 x pieces);
 * meant for up to a few thousand ranks. */
ar_status ar_schedule_validate(const ar_schedule *s, ar_err *e);

/* Host executor: runs the schedule on real arrays (one buffer of s->count
 * doubles per rank, integer-valued inputs so every sum is exact), lowering each
 * op to its point-to-point transfers exactly as a backend does (lower.h), and
 * checks every element of every rank equals the exact sum. Undefined ranges
 * are poisoned with NaN, so a schedule that reads them fails. Memory:
 * nranks x count doubles (refused above `max_bytes`, 0 = 1 GiB). */
ar_status ar_schedule_execute_host(const ar_schedule *s, uint64_t max_bytes, ar_err *e);

/* --- output and input ------------------------------------------------------ */
ar_status ar_schedule_print_json(const ar_schedule *s, FILE *f, ar_err *e);
/* Parses what ar_schedule_print_json writes (text NUL-terminated; `where` names
 * the document in errors) and checks its structure. The schedule may also be
 * the "schedule" member of a document without "phases" (what `arlab plan
 * --format json` prints); paths in errors then start "$.schedule". Caller frees *out. */
#define AR_SCHED_MAX_RANKS (1 << 20)
ar_status ar_schedule_from_json(const char *text, const char *where, ar_schedule **out, ar_err *e);
void ar_schedule_print_table(const ar_schedule *s, FILE *f);

#endif
