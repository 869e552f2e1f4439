/* Lowering: a group op -> rounds of point-to-point transfers.
 *
 * One function, used by every consumer that needs transfers (host executor,
 * generic cost walk, simulator, NCCL point-to-point executor), so that they all
 * move exactly the same bytes. Rounds are generated on demand (stateless:
 * round r of op is a pure function of op and r), so nothing O(ranks^2) is
 * ever stored. Within a round all transfers are concurrent; round r+1 of an
 * op starts after round r (a backend may relax this to per-rank dependencies).
 *
 * Per implementation (n members, c = op->chunks):
 *   RING      RS: n-1 steps, member i sends block (i-s-1) mod n to i+1 (add).
 *             AG: n-1 steps, member i sends block (i-s) mod n to i+1 (copy).
 *             AR: RS then AG. REDUCE: RS then binomial gather of the blocks
 *             to root (Eq. 4: Tr + Tc). BROADCAST: binomial scatter then AG.
 *   HD        RS: recursive halving, partner i^d for d = n/2 .. 1; AG:
 *             recursive doubling d = 1 .. n/2; AR = both; REDUCE = halving +
 *             binomial gather; BROADCAST = binomial scatter + doubling.
 *   BINOMIAL  REDUCE/BROADCAST: binomial tree over the whole range rooted at
 *             root (ceil(lg n) steps); AR = reduce to member 0 + broadcast.
 *   DIRECT    RS: one step, every member sends block j to member j; AG: one
 *             step, member j sends block j to all; REDUCE/BROADCAST: everyone
 *             to/from root; AR = RS + AG (a sharded parameter server).
 *   CHAIN     REDUCE: members root+1, root+2, ..., root (mod n) in a chain,
 *             pipelined in c chunks: n-1+c-1 rounds of count/c; BROADCAST the
 *             reverse chain root, root+1, ...; AR = reduce + broadcast.
 *   TREE      REDUCE up `parent` / BROADCAST down it, pipelined in c chunks:
 *             height+c-1 rounds (a member of height h sends chunk j in round
 *             h+j when reducing; depth d sends chunk j in round d+j when
 *             broadcasting). AR: one pipeline of 2 height + c - 1 rounds, the
 *             broadcast of chunk j starting the round after the root holds
 *             its sum (round height + j), while later chunks still go up (as
 *             NCCL's tree runs: chunk k down while chunk k+1 goes up).
 *   NATIVE    lowered as RING (the cost model of a library's ring).
 *   SWITCH    through the reducing switch op->sw (NVLink SHARP, InfiniBand SHARP):
 *             c+1 rounds; round r sends piece r of the range up (r < c) and
 *             piece r-1 down (r >= 1), pieces being the range split in c.
 *             AR: up every member's piece (reduce=1: the switch adds them),
 *             down the sum to every member (copy, the switch's multicast).
 *             RS: up as AR; down member i gets the part of the piece in its
 *             block i. AG: up member i sends the part of the piece in its
 *             block i (copy); down the piece to every member. RS and AG with
 *             c > 1: the pieces are per block (piece r = the r-th of c pieces
 *             of every member's block; RS up and AG down one transfer per
 *             block, n^2 + n per round), so every round loads every member's
 *             link alike (contiguous pieces would fall in one member's block).
 *             A switch endpoint is AR_EP_NODE(sw) (platform.h) in src/dst.
 *             Cost: a transfer into the switch with reduce=1 also crosses
 *             the switch's virtual reduction link (platform.h), of capacity
 *             reduce_Bps = the bytes the switch absorbs into sums per second,
 *             over all its concurrent reducing inputs; with n members each
 *             sending S bytes it takes n*S/reduce_Bps beside S/link. The
 *             multicast costs each receiver's downlink only (the switch
 *             replicates). REDUCE: up as AR, down to the root only.
 *             BROADCAST: up the root's piece (copy), down to every other member.
 *   SEND      one step.
 * For RING, HD, BINOMIAL, DIRECT and SEND, c > 1 splits every step into c
 * consecutive rounds each carrying 1/c of every segment (sub-chunks).
 */
#ifndef AR_LOWER_H
#define AR_LOWER_H

#include <stddef.h>
#include <stdint.h>
#include "schedule.h"

typedef struct ar_xfer {
    int src, dst; /* ranks, or a switch as AR_EP_NODE(node) (< -1; SWITCH ops only) */
    int nseg;     /* 1 or 2 element ranges (a wrap-around block set) */
    uint64_t off[2], len[2];
    int reduce; /* 1: dst adds the data; 0: dst overwrites */
} ar_xfer;

static inline uint64_t ar_xfer_elems(const ar_xfer *x) { return x->len[0] + (x->nseg > 1 ? x->len[1] : 0); }

/* Whether two sets of element ranges (na, nb: 1 or 2 ranges each) share an element. */
static inline int ar_ranges_overlap(int na, const uint64_t *aoff, const uint64_t *alen, int nb, const uint64_t *boff,
                                    const uint64_t *blen) {
    for (int i = 0; i < na; i++)
        for (int k = 0; k < nb; k++)
            if (alen[i] && blen[k] && aoff[i] < boff[k] + blen[k] && boff[k] < aoff[i] + alen[i]) return 1;
    return 0;
}

/* Whether transfers a and b touch a common element. */
static inline int ar_xfer_overlap(const ar_xfer *a, const ar_xfer *b) {
    return ar_ranges_overlap(a->nseg, a->off, a->len, b->nseg, b->off, b->len);
}

/* Number of rounds op lowers to (0 for a 1-member op). */
int ar_lower_nrounds(const ar_op *op);

/* How many consecutive rounds from round r (>= 1; 1 when unknown) lower to the same transfers as
 * round r: the same src, dst, element count and reduce flag, in the same order (offsets aside).
 * Known for ring parts with even blocks (count divisible by n, and by n*chunks with chunks > 1):
 * every step of a ring reduce-scatter, every step of its all-gather. The walk and the fast engine
 * price such rounds once (exact: an idle network each round, the same transfers). */
int ar_lower_same_rounds(const ar_op *op, int r);

/* How many consecutive rounds from round r (>= 1; 1 when unknown) lower to the same pairs as
 * round r: the same src, dst and reduce flag, in the same order (sizes and offsets aside). Known
 * for ring parts whose every block (and piece) is non-empty, even or not: every step sends from
 * member i to member i+1. Enough for what depends on routes alone (the fast engine's op groups). */
int ar_lower_same_pairs(const ar_op *op, int r);

/* Upper bound on the transfers in any round of op. */
size_t ar_lower_max_xfers(const ar_op *op);

/* Writes round r's transfers (those with a non-empty payload) to buf, which
 * must hold ar_lower_max_xfers(op) entries; returns how many were written. */
size_t ar_lower_round(const ar_op *op, int r, ar_xfer *buf);

/* A slice of round r, for rounds too large to hold (a direct all-to-all of 4096 members lowers to
 * 16.8 M transfers): writes the transfers whose candidate index in ar_lower_round's order is in
 * [lo, hi) (candidates: the transfers, and the empty ones ar_lower_round leaves out; buf holds
 * hi - lo entries), sets *total to the round's candidate count, returns how many were written.
 * A direct all-to-all part starts at the window (time O(window + n)); other parts generate
 * the round from its start (at most n + 1 candidates).
 * Only for rounds that ar_lower_windowed accepts (step-based parts: not pipelined chains, not
 * switch ops, whose rounds hold at most n transfers); 0 with *total 0 otherwise. */
size_t ar_lower_round_window(const ar_op *op, int r, size_t lo, size_t hi, ar_xfer *buf, size_t *total);
int ar_lower_windowed(const ar_op *op, int r);

/* 1 if transfer src -> dst of round r of op opi of phase ph of s waits for its receiver's ready message
 * (the MPI backend with eager messages, real/mpi/mexec.c post_round; platform.h msg_ready; the wait is 0
 * within a machine, ar_platform_ready_s, where the executor does not gate): unless its
 * sender sent to the same receiver in round r - 1 of the same op, or (r = 0) in the last round of an op of
 * phase ph - 1, where its data follows that data on the same path. 0 for a switch end. Lowers the round
 * before (time O(its transfers)); on out of memory, 1. */
int ar_lower_gated(const ar_schedule *s, int ph, int opi, int r, int src, int dst);

#endif
