/* Lowering of group ops to rounds of point-to-point transfers (lower.h).
 *
 * An op is a sequence of "parts" (e.g. a ring all-reduce is RING_RS then
 * RING_AG). Step-based parts (ring, halving/doubling, binomial, direct, send)
 * have a number of steps, each split into `chunks` sub-rounds; pipelined parts
 * (chain, tree) have depth + chunks - 1 rounds. Round r of the op is located
 * in its part and generated from scratch: no state, no allocation.
 */
#include <stdlib.h>
#include "lower.h"
#include "core/platform/platform.h"
#include "util.h"

enum part {
    P_RING_RS,
    P_RING_AG,
    P_HD_RS,
    P_HD_AG,
    P_BIN_GATHER,
    P_BIN_SCATTER,
    P_BIN_REDUCE,
    P_BIN_BCAST,
    P_DIRECT_RS,
    P_DIRECT_AG,
    P_DIRECT_REDUCE,
    P_DIRECT_BCAST,
    P_CHAIN_REDUCE,
    P_CHAIN_BCAST,
    P_TREE_REDUCE,
    P_TREE_BCAST,
    P_TREE_AR,
    P_SEND
};

/* The parts of (kind, impl); returns how many (0..2). */
static int op_parts(const ar_op *op, enum part out[2]) {
    ar_impl im = op->impl == AR_IMPL_NATIVE ? AR_IMPL_RING : op->impl;
    switch (op->kind) {
    case AR_OP_SEND: out[0] = P_SEND; return 1;
    case AR_OP_REDUCE_SCATTER:
        out[0] = im == AR_IMPL_HD ? P_HD_RS : im == AR_IMPL_DIRECT ? P_DIRECT_RS : P_RING_RS;
        return 1;
    case AR_OP_ALL_GATHER:
        out[0] = im == AR_IMPL_HD ? P_HD_AG : im == AR_IMPL_DIRECT ? P_DIRECT_AG : P_RING_AG;
        return 1;
    case AR_OP_ALL_REDUCE:
        switch (im) {
        case AR_IMPL_HD:
            out[0] = P_HD_RS;
            out[1] = P_HD_AG;
            return 2;
        case AR_IMPL_DIRECT:
            out[0] = P_DIRECT_RS;
            out[1] = P_DIRECT_AG;
            return 2;
        case AR_IMPL_BINOMIAL:
            out[0] = P_BIN_REDUCE;
            out[1] = P_BIN_BCAST;
            return 2;
        case AR_IMPL_CHAIN:
            out[0] = P_CHAIN_REDUCE;
            out[1] = P_CHAIN_BCAST;
            return 2;
        case AR_IMPL_TREE: out[0] = P_TREE_AR; return 1;
        default:
            out[0] = P_RING_RS;
            out[1] = P_RING_AG;
            return 2;
        }
    case AR_OP_REDUCE:
        switch (im) {
        case AR_IMPL_HD:
            out[0] = P_HD_RS;
            out[1] = P_BIN_GATHER;
            return 2;
        case AR_IMPL_DIRECT: out[0] = P_DIRECT_REDUCE; return 1;
        case AR_IMPL_BINOMIAL: out[0] = P_BIN_REDUCE; return 1;
        case AR_IMPL_CHAIN: out[0] = P_CHAIN_REDUCE; return 1;
        case AR_IMPL_TREE: out[0] = P_TREE_REDUCE; return 1;
        default:
            out[0] = P_RING_RS;
            out[1] = P_BIN_GATHER;
            return 2;
        }
    case AR_OP_BROADCAST:
        switch (im) {
        case AR_IMPL_HD:
            out[0] = P_BIN_SCATTER;
            out[1] = P_HD_AG;
            return 2;
        case AR_IMPL_DIRECT: out[0] = P_DIRECT_BCAST; return 1;
        case AR_IMPL_BINOMIAL: out[0] = P_BIN_BCAST; return 1;
        case AR_IMPL_CHAIN: out[0] = P_CHAIN_BCAST; return 1;
        case AR_IMPL_TREE: out[0] = P_TREE_BCAST; return 1;
        default:
            out[0] = P_BIN_SCATTER;
            out[1] = P_RING_AG;
            return 2;
        }
    }
    return 0;
}

static int tree_depth_of(const ar_op *op, int m) {
    int d = 0;
    while (op->parent[m] >= 0 && d <= op->n) {
        m = op->parent[m];
        d++;
    }
    return d;
}

static int tree_max_depth(const ar_op *op) {
    int D = 0;
    for (int m = 0; m < op->n; m++) {
        int d = tree_depth_of(op, m);
        if (d > D) D = d;
    }
    return D;
}

static int is_pipelined(enum part p) {
    return p == P_CHAIN_REDUCE || p == P_CHAIN_BCAST || p == P_TREE_REDUCE || p == P_TREE_BCAST || p == P_TREE_AR;
}

static int part_steps(const ar_op *op, enum part p) {
    int n = op->n;
    if (n <= 1) return 0;
    switch (p) {
    case P_RING_RS:
    case P_RING_AG: return n - 1;
    case P_HD_RS:
    case P_HD_AG:
    case P_BIN_GATHER:
    case P_BIN_SCATTER:
    case P_BIN_REDUCE:
    case P_BIN_BCAST: return ar_ceil_log2(n);
    case P_CHAIN_REDUCE:
    case P_CHAIN_BCAST: return n - 1;
    case P_TREE_REDUCE:
    case P_TREE_BCAST: return tree_max_depth(op);
    case P_TREE_AR: return 2 * tree_max_depth(op);
    default: return 1;
    }
}

/* A switch op other than a send: lowered by gen_switch (up to the switch, down from it). */
static int switch_op(const ar_op *op) { return op->impl == AR_IMPL_SWITCH && op->kind != AR_OP_SEND; }

static int part_rounds(const ar_op *op, enum part p) {
    int steps = part_steps(op, p);
    if (steps == 0) return 0;
    return is_pipelined(p) ? steps + op->chunks - 1 : steps * op->chunks;
}

int ar_lower_nrounds(const ar_op *op) {
    if (switch_op(op)) return op->n > 1 ? op->chunks + 1 : 0;
    enum part parts[2];
    int np = op_parts(op, parts), total = 0;
    for (int i = 0; i < np; i++) total += part_rounds(op, parts[i]);
    return total;
}

/* The part round r of op falls in: sets *pt and makes *r relative to the part; returns the part's
 * rounds (0: r is past the op's end). */
static int locate(const ar_op *op, int *r, enum part *pt) {
    enum part parts[2];
    int np = op_parts(op, parts);
    for (int i = 0; i < np; i++) {
        int pr = part_rounds(op, parts[i]);
        if (*r < pr) {
            *pt = parts[i];
            return pr;
        }
        *r -= pr;
    }
    return 0;
}

/* The rounds from round r to the end of its ring step part (RS or AG), 1 outside one: a ring
 * step sends from member i to member i+1, in member order, every round of its part. */
static int ring_part_left(const ar_op *op, int r) {
    if (op->impl != AR_IMPL_RING && op->impl != AR_IMPL_NATIVE) return 1;
    enum part pt;
    int pr = locate(op, &r, &pt);
    return pr > 0 && (pt == P_RING_RS || pt == P_RING_AG) ? pr - r : 1;
}

int ar_lower_same_rounds(const ar_op *op, int r) {
    /* even blocks and even pieces: every step sends one block of count/n elements (or its piece
     * count/n/c) */
    if (op->counts || op->n < 2 || op->count % (uint64_t)op->n) return 1;
    if (op->chunks > 1 && (op->count / (uint64_t)op->n) % (uint64_t)op->chunks) return 1;
    return ring_part_left(op, r);
}

int ar_lower_same_pairs(const ar_op *op, int r) {
    uint64_t c = op->chunks > 1 ? (uint64_t)op->chunks : 1; /* the smallest block, count / n, holds c pieces */
    if (op->counts || op->n < 2 || op->count / (uint64_t)op->n < c) return 1;
    return ring_part_left(op, r);
}

size_t ar_lower_max_xfers(const ar_op *op) {
    size_t n = (size_t)op->n;
    if (op->impl == AR_IMPL_DIRECT) return n * (n > 0 ? n - 1 : 0) + 1;
    if (op->impl == AR_IMPL_TREE && op->kind == AR_OP_ALL_REDUCE) return 2 * n + 1; /* an edge up and one down */
    if (op->impl == AR_IMPL_SWITCH) /* pieces per block: RS up and AG down, one transfer per block */
        return (op->chunks > 1 && (op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_ALL_GATHER)) ? n * n + n + 1
                                                                                                      : 2 * n + 1;
    return n + 1;
}

/* --- helpers ------------------------------------------------------------ */

/* Elements of member blocks [m0, m1) (contiguous member indices). */
static void blocks_span(const ar_op *op, int m0, int m1, uint64_t *off, uint64_t *len) {
    uint64_t o0, l0, o1, l1;
    ar_op_block(op, m0, &o0, &l0);
    ar_op_block(op, m1 - 1, &o1, &l1);
    *off = o0;
    *len = o1 + l1 - o0;
}

/* Piece j of c of the range [off, off+len). */
static void piece(uint64_t off, uint64_t len, int j, int c, uint64_t *po, uint64_t *pl) {
    if (c == 1) { /* the common case: no division on the per-transfer path */
        *po = off;
        *pl = len;
        return;
    }
    uint64_t q = len / (uint64_t)c, r = len % (uint64_t)c, uj = (uint64_t)j;
    *po = off + uj * q + (uj < r ? uj : r);
    *pl = q + (uj < r ? 1 : 0);
}

typedef struct emit {
    ar_xfer *buf;
    size_t n;
    int sub, chunks;    /* sub-round of a step-based part (applied to every segment) */
    size_t idx, lo, hi; /* a window (ar_lower_round_window): transfers idx in [lo, hi) are written */
} emit;

static void put(emit *em, int src, int dst, int nseg, const uint64_t off[2], const uint64_t len[2], int reduce) {
    ar_xfer x = {.src = src, .dst = dst, .nseg = 0, .reduce = reduce};
    for (int s = 0; s < nseg; s++) {
        uint64_t po, pl;
        piece(off[s], len[s], em->sub, em->chunks, &po, &pl);
        if (pl == 0) continue;
        x.off[x.nseg] = po;
        x.len[x.nseg] = pl;
        x.nseg++;
    }
    size_t i = em->idx++; /* a window counts candidates, empty ones included */
    if (x.nseg == 0) return;
    if (i >= em->lo && i < em->hi) em->buf[em->n++] = x;
}

static void put1(emit *em, int src, int dst, uint64_t off, uint64_t len, int reduce) {
    uint64_t o[2] = {off, 0}, l[2] = {len, 0};
    put(em, src, dst, 1, o, l, reduce);
}

/* Member blocks of vranks [a, b) relative to root, as up to two element ranges. */
static void put_vblocks(emit *em, const ar_op *op, int root, int src, int dst, int a, int b, int reduce) {
    int n = op->n, L = b - a, s = (a + root) % n;
    uint64_t o[2], l[2];
    if (s + L <= n) {
        blocks_span(op, s, s + L, &o[0], &l[0]);
        put(em, src, dst, 1, o, l, reduce);
    } else {
        blocks_span(op, s, n, &o[0], &l[0]);
        blocks_span(op, 0, s + L - n, &o[1], &l[1]);
        put(em, src, dst, 2, o, l, reduce);
    }
}

static int M(const ar_op *op, int i) { return op->members[((i % op->n) + op->n) % op->n]; }

/* A direct part's first outer index for em's window (n - 1 candidates each); em->idx moves there. */
static int direct_first(emit *em, int n) {
    size_t per = n > 1 ? (size_t)(n - 1) : 1, first = em->lo / per;
    em->idx = first * per;
    return (int)first;
}

static void gen_step(const ar_op *op, enum part p, int step, emit *em) {
    int n = op->n, root = (op->kind == AR_OP_REDUCE || op->kind == AR_OP_BROADCAST) ? op->root : 0;
    uint64_t off, len;
    switch (p) {
    case P_RING_RS:
        for (int i = 0; i < n; i++) {
            int b = ((i - step - 1) % n + n) % n;
            ar_op_block(op, b, &off, &len);
            put1(em, M(op, i), M(op, i + 1), off, len, 1);
        }
        break;
    case P_RING_AG:
        for (int i = 0; i < n; i++) {
            int b = ((i - step) % n + n) % n;
            ar_op_block(op, b, &off, &len);
            put1(em, M(op, i), M(op, i + 1), off, len, 0);
        }
        break;
    case P_HD_RS: {
        int d = n >> (step + 1);
        for (int i = 0; i < n; i++) {
            int lo = i & ~(2 * d - 1);
            int s0 = (i & d) ? lo : lo + d;
            blocks_span(op, s0, s0 + d, &off, &len);
            put1(em, M(op, i), M(op, i ^ d), off, len, 1);
        }
        break;
    }
    case P_HD_AG: {
        int d = 1 << step;
        for (int i = 0; i < n; i++) {
            int lo = i & ~(d - 1);
            blocks_span(op, lo, lo + d, &off, &len);
            put1(em, M(op, i), M(op, i ^ d), off, len, 0);
        }
        break;
    }
    case P_BIN_GATHER:
    case P_BIN_REDUCE: {
        int k = step, h = 1 << k;
        for (int v = h; v < n; v += 2 * h) {
            int src = M(op, v + root), dst = M(op, v - h + root);
            if (p == P_BIN_REDUCE) put1(em, src, dst, op->offset, op->count, 1);
            else put_vblocks(em, op, root, src, dst, v, v + h < n ? v + h : n, 0);
        }
        break;
    }
    case P_BIN_SCATTER:
    case P_BIN_BCAST: {
        int S = ar_ceil_log2(n), k = S - 1 - step, h = 1 << k;
        for (int v = 0; v + h < n; v += 2 * h) {
            int src = M(op, v + root), dst = M(op, v + h + root);
            int end = v + 2 * h < n ? v + 2 * h : n;
            if (p == P_BIN_BCAST) put1(em, src, dst, op->offset, op->count, 0);
            else put_vblocks(em, op, root, src, dst, v + h, end, 0);
        }
        break;
    }
    case P_DIRECT_RS: /* n - 1 candidates per sender: a window starts at its first sender */
        for (int i = direct_first(em, n); i < n && em->idx < em->hi; i++)
            for (int j = 0; j < n; j++)
                if (i != j) {
                    ar_op_block(op, j, &off, &len);
                    put1(em, M(op, i), M(op, j), off, len, 1);
                }
        break;
    case P_DIRECT_AG: /* n - 1 candidates per block */
        for (int j = direct_first(em, n); j < n && em->idx < em->hi; j++) {
            ar_op_block(op, j, &off, &len);
            for (int i = 0; i < n; i++)
                if (i != j) put1(em, M(op, j), M(op, i), off, len, 0);
        }
        break;
    case P_DIRECT_REDUCE:
        for (int i = 0; i < n; i++)
            if (i != root) put1(em, M(op, i), M(op, root), op->offset, op->count, 1);
        break;
    case P_DIRECT_BCAST:
        for (int i = 0; i < n; i++)
            if (i != root) put1(em, M(op, root), M(op, i), op->offset, op->count, 0);
        break;
    case P_SEND: put1(em, op->members[0], op->members[1], op->offset, op->count, op->reduce); break;
    default: break;
    }
}

static void put_chunk(const ar_op *op, ar_xfer *buf, size_t *nout, int src, int dst, int j, int reduce) {
    uint64_t off, len;
    piece(op->offset, op->count, j, op->chunks, &off, &len);
    if (!len) return;
    ar_xfer x = {.src = src, .dst = dst, .nseg = 1, .reduce = reduce};
    x.off[0] = off;
    x.len[0] = len;
    buf[(*nout)++] = x;
}

/* Pipelined parts: round t of a chain/tree with c chunks. */
static void gen_pipelined(const ar_op *op, enum part p, int t, ar_xfer *buf, size_t *nout) {
    int n = op->n, c = op->chunks, root = op->kind == AR_OP_ALL_REDUCE ? 0 : op->root;
    if (p == P_CHAIN_REDUCE || p == P_CHAIN_BCAST) {
        int base = p == P_CHAIN_REDUCE ? root + 1 : root;
        for (int h = 0; h < n - 1; h++) {
            int j = t - h;
            if (j < 0 || j >= c) continue;
            put_chunk(op, buf, nout, M(op, base + h), M(op, base + h + 1), j, p == P_CHAIN_REDUCE);
        }
        return;
    }
    int D = tree_max_depth(op);
    for (int m = 0; m < n; m++) {
        int q = op->parent[m];
        if (q < 0) continue;
        int d = tree_depth_of(op, m);
        /* reduce: member at depth d sends chunk j up in round D-d+j;
         * broadcast: its parent (depth d-1) sends chunk j down in round d-1+j; all-reduce: both, the
         * broadcast D rounds late (the root holds chunk j's sum after round D-1+j and sends it down in
         * round D+j), so chunk j goes down while chunk j + 2d - 1 goes up on the same edge */
        int up = p == P_TREE_REDUCE || p == P_TREE_AR, down = p == P_TREE_BCAST || p == P_TREE_AR;
        int ju = t - (D - d), jd = t - (d - 1) - (p == P_TREE_AR ? D : 0);
        if (up && ju >= 0 && ju < c) put_chunk(op, buf, nout, op->members[m], op->members[q], ju, 1);
        if (down && jd >= 0 && jd < c) put_chunk(op, buf, nout, op->members[q], op->members[m], jd, 0);
    }
}

/* Intersection of [a, a+al) and [b, b+bl) into *o, *l (l = 0 if empty). */
static void isect(uint64_t a, uint64_t al, uint64_t b, uint64_t bl, uint64_t *o, uint64_t *l) {
    uint64_t lo = a > b ? a : b, hi = a + al < b + bl ? a + al : b + bl;
    *o = lo;
    *l = hi > lo ? hi - lo : 0;
}

static void put_x(ar_xfer *buf, size_t *n, int src, int dst, uint64_t off, uint64_t len, int reduce) {
    if (!len) return;
    buf[(*n)++] = (ar_xfer){.src = src, .dst = dst, .nseg = 1, .off = {off, 0}, .len = {len, 0}, .reduce = reduce};
}

/* SWITCH: round r carries chunk r up (r < c) and chunk r-1 down (r >= 1). A reduce-scatter or
 * all-gather with c > 1 cuts every member's block in c pieces and chunk r is piece r of every block
 * (as NCCL's NVLS hands every head its chunk of each step): each round delivers to (RS) or takes from
 * (AG) every member alike. Contiguous chunks of the range would fall in one member's block each,
 * loading that member's link alone in a round (c/n rounds in a row); an all-gather beside a
 * reduce-scatter of the same shape (a pipelined NVLS) would then stack both on one downlink. */
static void switch_blocked(const ar_op *op, int r, int up, ar_xfer *buf, size_t *k) {
    int n = op->n, c = op->chunks, sw = AR_EP_NODE(op->sw), rs = op->kind == AR_OP_REDUCE_SCATTER;
    uint64_t bo, bl, po, pl;
    for (int m = 0; m < n; m++)
        for (int i = 0; i < n; i++) {
            /* RS up / AG down: piece r of every block i from / to member m; RS down / AG up: piece r
             * of member m's own block only */
            int every = rs == up;
            if (!every && i != m) continue;
            ar_op_block(op, i, &bo, &bl);
            piece(bo, bl, r, c, &po, &pl);
            if (up) put_x(buf, k, op->members[m], sw, po, pl, rs);
            else put_x(buf, k, sw, op->members[m], po, pl, 0);
        }
}

static size_t gen_switch(const ar_op *op, int r, ar_xfer *buf) {
    int n = op->n, c = op->chunks, sw = AR_EP_NODE(op->sw);
    size_t k = 0;
    uint64_t po, pl, bo, bl, o, l;
    if (c > 1 && (op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_ALL_GATHER)) {
        if (r < c) switch_blocked(op, r, 1, buf, &k);
        if (r >= 1) switch_blocked(op, r - 1, 0, buf, &k);
        return k;
    }
    if (r < c) { /* up */
        piece(op->offset, op->count, r, c, &po, &pl);
        for (int m = 0; m < n; m++) {
            if (op->kind == AR_OP_BROADCAST) {
                if (m == op->root) put_x(buf, &k, op->members[m], sw, po, pl, 0);
            } else if (op->kind == AR_OP_ALL_GATHER) {
                ar_op_block(op, m, &bo, &bl);
                isect(po, pl, bo, bl, &o, &l);
                put_x(buf, &k, op->members[m], sw, o, l, 0);
            } else {
                put_x(buf, &k, op->members[m], sw, po, pl, 1);
            }
        }
    }
    if (r >= 1) { /* down */
        piece(op->offset, op->count, r - 1, c, &po, &pl);
        for (int m = 0; m < n; m++) {
            if ((op->kind == AR_OP_REDUCE && m != op->root) || (op->kind == AR_OP_BROADCAST && m == op->root)) {
                continue; /* REDUCE: down to the root only; BROADCAST: to the others */
            } else if (op->kind == AR_OP_REDUCE_SCATTER) {
                ar_op_block(op, m, &bo, &bl);
                isect(po, pl, bo, bl, &o, &l);
                put_x(buf, &k, sw, op->members[m], o, l, 0);
            } else {
                put_x(buf, &k, sw, op->members[m], po, pl, 0);
            }
        }
    }
    return k;
}

/* Round r's step-based part in *pt (r becomes the round within it): 0 for a switch op, a pipelined
 * part or a round past the op. */
static int step_part(const ar_op *op, int *r, enum part *pt) {
    return !switch_op(op) && locate(op, r, pt) != 0 && !is_pipelined(*pt);
}

/* The candidates [lo, hi) of a step-based part's round r into buf; *idx: the candidates generated. */
static size_t gen_window(const ar_op *op, int r, enum part pt, size_t lo, size_t hi, ar_xfer *buf, size_t *idx) {
    emit em = {.buf = buf, .n = 0, .sub = r % op->chunks, .chunks = op->chunks, .lo = lo, .hi = hi};
    gen_step(op, pt, r / op->chunks, &em);
    *idx = em.idx;
    return em.n;
}

size_t ar_lower_round(const ar_op *op, int r, ar_xfer *buf) {
    if (switch_op(op)) return op->n > 1 ? gen_switch(op, r, buf) : 0;
    enum part pt;
    if (locate(op, &r, &pt) == 0) return 0;
    size_t n = 0;
    if (is_pipelined(pt)) gen_pipelined(op, pt, r, buf, &n);
    else n = gen_window(op, r, pt, 0, SIZE_MAX, buf, &(size_t){0});
    return n;
}

size_t ar_lower_round_window(const ar_op *op, int r, size_t lo, size_t hi, ar_xfer *buf, size_t *total) {
    *total = 0;
    enum part pt;
    if (!step_part(op, &r, &pt)) return 0;
    size_t n = gen_window(op, r, pt, lo, hi, buf, total);
    /* a direct part stops at the window's end: its candidates are n (n - 1) */
    if (pt == P_DIRECT_RS || pt == P_DIRECT_AG) *total = (size_t)op->n * (size_t)(op->n - 1);
    return n;
}

int ar_lower_windowed(const ar_op *op, int r) {
    enum part pt;
    return step_part(op, &r, &pt);
}

/* 1 if round r of op has a transfer src -> dst. -1 on out of memory. */
static int round_has_pair(const ar_op *op, int r, int src, int dst) {
    size_t mx = ar_lower_max_xfers(op);
    ar_xfer *buf = malloc((mx ? mx : 1) * sizeof *buf);
    if (!buf) return -1;
    size_t n = ar_lower_round(op, r, buf);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) found = buf[i].src == src && buf[i].dst == dst;
    free(buf);
    return found;
}

int ar_lower_gated(const ar_schedule *s, int ph, int opi, int r, int src, int dst) {
    if (src < 0 || dst < 0 || ph < 0 || ph >= s->nphases || opi < 0 || opi >= s->phases[ph].nops) return 0;
    if (r > 0) return round_has_pair(&s->phases[ph].ops[opi], r - 1, src, dst) != 1;
    if (ph == 0) return 1;
    const ar_phase *prev = &s->phases[ph - 1];
    for (int j = 0; j < prev->nops; j++) {
        int nr = ar_lower_nrounds(&prev->ops[j]);
        if (nr == 0) continue;
        int f = round_has_pair(&prev->ops[j], nr - 1, src, dst);
        if (f != 0) return f != 1;
    }
    return 1;
}
