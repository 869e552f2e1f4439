/* Schedule core: lowering, symbolic validator and host executor on hand-built
 * schedules, for every (op kind, implementation) pair, even and uneven blocks,
 * every root; and the failures they must catch (double counting, reading
 * undefined data, incomplete results, concurrent conflicts, bad structure). */
#include <string.h>

#include "core/lower.h"
#include "core/schedule.h"
#include "core/util.h"
#include "../t.h"

static int iota[64];

static int both_ok(ar_schedule *s, const char *what) {
    ar_err e = {{0}};
    ar_status v = ar_schedule_validate(s, &e);
    T_CHECK(v == AR_OK, "%s: validator: %s", what, e.msg);
    ar_status x = ar_schedule_execute_host(s, 0, &e);
    T_CHECK(x == AR_OK, "%s: executor: %s", what, e.msg);
    return v == AR_OK && x == AR_OK;
}

static void both_fail(ar_schedule *s, const char *what, const char *needle) {
    ar_err e = {{0}};
    ar_status v = ar_schedule_validate(s, &e);
    T_CHECK(v != AR_OK, "%s: validator accepted a wrong schedule", what);
    if (needle) T_CHECK(strstr(e.msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, e.msg, needle);
    ar_status x = ar_schedule_execute_host(s, 0, &e);
    T_CHECK(x != AR_OK, "%s: executor accepted a wrong schedule", what);
}

/* A random tree over n members rooted at `root` (parent index < own, rotated). */
static void rand_tree(int n, int root, unsigned *seed, int *parent) {
    int order[64];
    for (int i = 0; i < n; i++) order[i] = (root + i) % n;
    parent[order[0]] = -1;
    for (int i = 1; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        parent[order[i]] = order[(*seed >> 8) % (unsigned)i];
    }
}

/* reduce(impl, root) then broadcast(impl, root) over all ranks, or one all-reduce op. */
static void test_impls(void) {
    const ar_impl impls[] = {AR_IMPL_RING,   AR_IMPL_HD,   AR_IMPL_BINOMIAL, AR_IMPL_CHAIN,
                             AR_IMPL_DIRECT, AR_IMPL_TREE, AR_IMPL_NATIVE};
    const uint64_t counts[] = {1, 3, 7, 8, 64, 1001};
    unsigned seed = 7;
    int cases = 0;
    for (size_t ii = 0; ii < sizeof impls / sizeof impls[0]; ii++)
        for (int n = 1; n <= 9; n++) {
            ar_impl im = impls[ii];
            if (im == AR_IMPL_HD && !ar_is_pow2(n)) continue;
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int chunks = 1; chunks <= 3; chunks += 2) {
                    int root = (int)(counts[ci] % (uint64_t)n);
                    int parent[64];
                    rand_tree(n, root, &seed, parent);
                    char what[128];
                    snprintf(what, sizeof what, "reduce+bcast impl=%s n=%d count=%llu chunks=%d root=%d",
                             ar_impl_name(im), n, (unsigned long long)counts[ci], chunks, root);
                    ar_schedule *s = ar_schedule_new("t", n, counts[ci], 4);
                    ar_sched_phase(s, "reduce");
                    ar_op *op = ar_sched_op(s, AR_OP_REDUCE, im, iota, n, 0, counts[ci]);
                    op->root = root;
                    op->chunks = chunks;
                    if (im == AR_IMPL_TREE) ar_op_set_parent(op, parent);
                    ar_sched_phase(s, "bcast");
                    op = ar_sched_op(s, AR_OP_BROADCAST, im, iota, n, 0, counts[ci]);
                    op->root = root;
                    op->chunks = chunks;
                    if (im == AR_IMPL_TREE) ar_op_set_parent(op, parent);
                    both_ok(s, what);
                    ar_schedule_free(s);

                    /* the same as one all-reduce op (tree rooted at member 0) */
                    rand_tree(n, 0, &seed, parent);
                    s = ar_schedule_new("t", n, counts[ci], 4);
                    op = ar_sched_op(s, AR_OP_ALL_REDUCE, im, iota, n, 0, counts[ci]);
                    op->chunks = chunks;
                    if (im == AR_IMPL_TREE) ar_op_set_parent(op, parent);
                    snprintf(what, sizeof what, "all-reduce impl=%s n=%d count=%llu chunks=%d", ar_impl_name(im), n,
                             (unsigned long long)counts[ci], chunks);
                    both_ok(s, what);
                    ar_schedule_free(s);
                    cases += 2;
                }
        }
    T_CHECK(cases > 300, "only %d cases", cases);
}

/* Reduce-scatter + all-gather with even and uneven blocks (zeros included),
 * on a subrange of the buffer, for ring, hd and direct. */
static void test_rs_ag(void) {
    const ar_impl impls[] = {AR_IMPL_RING, AR_IMPL_HD, AR_IMPL_DIRECT};
    for (size_t ii = 0; ii < 3; ii++)
        for (int n = 1; n <= 8; n++) {
            if (impls[ii] == AR_IMPL_HD && !ar_is_pow2(n)) continue;
            for (int uneven = 0; uneven < 2; uneven++) {
                uint64_t cnt[8], total = 0;
                for (int i = 0; i < n; i++) total += cnt[i] = uneven ? (uint64_t)((i * 7 + 3) % 5) : 0;
                if (!uneven) total = 37;
                if (total == 0) continue;
                /* the op covers [5, 5+total) of a buffer with 5 more elements either side,
                 * which a first all-reduce op makes complete */
                uint64_t buf = total + 10;
                ar_schedule *s = ar_schedule_new("t", n, buf, 8);
                ar_sched_phase(s, "rs");
                ar_op *op = ar_sched_op(s, AR_OP_REDUCE_SCATTER, impls[ii], iota, n, 5, total);
                if (uneven) ar_op_set_counts(op, cnt);
                op = ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, n, 0, 5);
                op = ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_BINOMIAL, iota, n, 5 + total, 5);
                ar_sched_phase(s, "ag");
                op = ar_sched_op(s, AR_OP_ALL_GATHER, impls[ii], iota, n, 5, total);
                if (uneven) ar_op_set_counts(op, cnt);
                char what[96];
                snprintf(what, sizeof what, "rs+ag impl=%s n=%d uneven=%d", ar_impl_name(impls[ii]), n, uneven);
                both_ok(s, what);
                ar_schedule_free(s);
            }
        }
}

/* Two-level decomposition by hand (BlueConnect 3x2 on 6 ranks), groups not in rank order. */
static void test_two_stage(void) {
    /* stage 0: RS in {0,1,2} and {3,4,5}; stage 1: RS over pairs holding the same block */
    ar_schedule *s = ar_schedule_new("t", 6, 601, 4);
    int g0[3] = {0, 1, 2}, g1[3] = {3, 4, 5};
    ar_sched_phase(s, "stage0 rs");
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, g0, 3, 0, 601);
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, g1, 3, 0, 601);
    ar_sched_phase(s, "stage1 rs");
    for (int i = 0; i < 3; i++) {
        int pair[2] = {g1[i], g0[i]}; /* reversed order: block 0 of the pair goes to rank 3+i */
        ar_op tmp = {.kind = AR_OP_REDUCE_SCATTER, .n = 3, .offset = 0, .count = 601};
        uint64_t off, len;
        ar_op_block(&tmp, i, &off, &len);
        ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_HD, pair, 2, off, len);
    }
    ar_sched_phase(s, "stage1 ag");
    for (int i = 0; i < 3; i++) {
        int pair[2] = {g1[i], g0[i]};
        ar_op tmp = {.kind = AR_OP_REDUCE_SCATTER, .n = 3, .offset = 0, .count = 601};
        uint64_t off, len;
        ar_op_block(&tmp, i, &off, &len);
        ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, pair, 2, off, len);
    }
    ar_sched_phase(s, "stage0 ag");
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, g0, 3, 0, 601);
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, g1, 3, 0, 601);
    both_ok(s, "3x2 decomposition");
    ar_call_stats cs;
    ar_err e;
    T_CHECK(ar_schedule_call_stats(s, &cs, &e) == AR_OK, "call stats");
    for (int r = 0; r < 6; r++)
        T_CHECK(cs.reduce_calls[r] == 2 && cs.bcast_calls[r] == 2, "rank %d: %d reduce, %d bcast calls", r,
                cs.reduce_calls[r], cs.bcast_calls[r]);
    ar_call_stats_free(&cs);
    ar_schedule_free(s);
}

static void test_failures(void) {
    ar_schedule *s;
    ar_op *op;
    /* all-reduce twice: every input counted twice */
    s = ar_schedule_new("t", 4, 10, 4);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, 4, 0, 10);
    ar_sched_phase(s, NULL);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, 4, 0, 10);
    both_fail(s, "double all-reduce", "twice");
    ar_schedule_free(s);
    /* reduce-scatter alone: blocks undefined at the end */
    s = ar_schedule_new("t", 4, 10, 4);
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, iota, 4, 0, 10);
    both_fail(s, "rs only", "undefined");
    ar_schedule_free(s);
    /* all-gather in another member order than the reduce-scatter: reads undefined blocks */
    s = ar_schedule_new("t", 4, 10, 4);
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, iota, 4, 0, 10);
    ar_sched_phase(s, NULL);
    int rev[4] = {3, 2, 1, 0};
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, rev, 4, 0, 10);
    both_fail(s, "ag order", "before they are defined");
    ar_schedule_free(s);
    /* a reduce to 0 over {0,1,2} leaves rank 3 out */
    s = ar_schedule_new("t", 4, 10, 4);
    ar_sched_op(s, AR_OP_REDUCE, AR_IMPL_BINOMIAL, iota, 3, 0, 10);
    ar_sched_phase(s, NULL);
    ar_sched_op(s, AR_OP_BROADCAST, AR_IMPL_BINOMIAL, iota, 4, 0, 10);
    both_fail(s, "missing rank", "miss rank 3");
    ar_schedule_free(s);
    /* concurrent ops on overlapping ranges of rank 1 */
    s = ar_schedule_new("t", 3, 10, 4);
    int a[2] = {0, 1}, b[2] = {1, 2};
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, a, 2, 0, 6);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, b, 2, 4, 6);
    ar_err e = {{0}};
    T_CHECK(ar_schedule_validate(s, &e) != AR_OK && strstr(e.msg, "concurrently"), "conflict: %s", e.msg);
    ar_schedule_free(s);
    /* structure: halving/doubling on 3 members, range out of bounds, duplicate rank, bad counts */
    s = ar_schedule_new("t", 3, 10, 4);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_HD, iota, 3, 0, 10);
    T_CHECK(ar_schedule_check_structure(s, &e) != AR_OK && strstr(e.msg, "power of two"), "hd3: %s", e.msg);
    ar_schedule_free(s);
    s = ar_schedule_new("t", 3, 10, 4);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, 3, 5, 6);
    T_CHECK(ar_schedule_check_structure(s, &e) != AR_OK && strstr(e.msg, "outside buffer"), "oob: %s", e.msg);
    ar_schedule_free(s);
    s = ar_schedule_new("t", 3, 10, 4);
    int dup[3] = {0, 1, 1};
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, dup, 3, 0, 10);
    T_CHECK(ar_schedule_check_structure(s, &e) != AR_OK && strstr(e.msg, "twice"), "dup: %s", e.msg);
    ar_schedule_free(s);
    s = ar_schedule_new("t", 3, 10, 4);
    op = ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, iota, 3, 0, 10);
    uint64_t bad[3] = {3, 3, 3};
    ar_op_set_counts(op, bad);
    T_CHECK(ar_schedule_check_structure(s, &e) != AR_OK && strstr(e.msg, "sum to 9"), "counts: %s", e.msg);
    ar_schedule_free(s);
    s = ar_schedule_new("t", 3, 10, 4);
    op = ar_sched_op(s, AR_OP_REDUCE, AR_IMPL_TREE, iota, 3, 0, 10);
    int cyc[3] = {-1, 2, 1};
    ar_op_set_parent(op, cyc);
    T_CHECK(ar_schedule_check_structure(s, &e) != AR_OK && strstr(e.msg, "cycle"), "cycle: %s", e.msg);
    ar_schedule_free(s);
    /* the executor's memory limit is enforced with a message */
    s = ar_schedule_new("t", 4, 1000, 4);
    ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, 4, 0, 1000);
    T_CHECK(ar_schedule_execute_host(s, 1000, &e) == AR_ELIMIT && strstr(e.msg, "limit"), "limit: %s", e.msg);
    ar_schedule_free(s);
    /* documented limits are AR_ELIMIT: a direct op over more than 4096 members, chunks beyond 65536 */
    {
        enum { NBIG = AR_DIRECT_MAX_MEMBERS + 1 };
        static int big[NBIG];
        for (int i = 0; i < NBIG; i++) big[i] = i;
        s = ar_schedule_new("t", NBIG, NBIG, 4);
        ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_DIRECT, big, NBIG, 0, NBIG);
        T_CHECK(ar_schedule_check_structure(s, &e) == AR_ELIMIT && strstr(e.msg, "limit of 4096"), "direct: %s", e.msg);
        ar_schedule_free(s);
        s = ar_schedule_new("t", 4, 1000, 4);
        op = ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_RING, iota, 4, 0, 1000);
        op->chunks = AR_MAX_CHUNKS + 1;
        T_CHECK(ar_schedule_check_structure(s, &e) == AR_ELIMIT && strstr(e.msg, "65536"), "chunks: %s", e.msg);
        op->chunks = 0;
        T_CHECK(ar_schedule_check_structure(s, &e) == AR_EINTERNAL && strstr(e.msg, "chunks 0"), "chunks 0: %s", e.msg);
        ar_schedule_free(s);
    }
}

/* Round counts and bytes moved by the lowering (the quantities the models count). */
static void test_lowering(void) {
    ar_op op = {.kind = AR_OP_REDUCE_SCATTER, .impl = AR_IMPL_RING, .n = 8, .members = iota, .count = 800, .chunks = 1};
    T_CHECK(ar_lower_nrounds(&op) == 7, "ring rs rounds %d", ar_lower_nrounds(&op));
    op.chunks = 3;
    T_CHECK(ar_lower_nrounds(&op) == 21, "ring rs chunks=3 rounds %d", ar_lower_nrounds(&op));
    op.chunks = 1;
    op.kind = AR_OP_ALL_REDUCE;
    ar_xfer xf[64];
    uint64_t sent[8] = {0};
    for (int r = 0; r < ar_lower_nrounds(&op); r++) {
        size_t n = ar_lower_round(&op, r, xf);
        T_CHECK(n == 8, "ring round %d has %zu transfers", r, n);
        for (size_t i = 0; i < n; i++) sent[xf[i].src] += ar_xfer_elems(&xf[i]);
    }
    for (int i = 0; i < 8; i++)
        T_CHECK(sent[i] == 2 * 7 * 100, "rank %d sent %llu (want 2(p-1)N/p = 1400)", i, (unsigned long long)sent[i]);
    op.impl = AR_IMPL_HD;
    T_CHECK(ar_lower_nrounds(&op) == 6, "hd ar rounds %d", ar_lower_nrounds(&op));
    memset(sent, 0, sizeof sent);
    for (int r = 0; r < 6; r++) {
        size_t n = ar_lower_round(&op, r, xf);
        for (size_t i = 0; i < n; i++) sent[xf[i].src] += ar_xfer_elems(&xf[i]);
    }
    for (int i = 0; i < 8; i++) T_CHECK(sent[i] == 1400, "hd rank %d sent %llu", i, (unsigned long long)sent[i]);
    /* chain reduce n=5, c=4: n-1+c-1 = 7 rounds of count/4 */
    ar_op ch =
        {.kind = AR_OP_REDUCE, .impl = AR_IMPL_CHAIN, .n = 5, .members = iota, .count = 400, .chunks = 4, .root = 2};
    T_CHECK(ar_lower_nrounds(&ch) == 7, "chain rounds %d", ar_lower_nrounds(&ch));
    size_t n0 = ar_lower_round(&ch, 0, xf);
    T_CHECK(n0 == 1 && xf[0].src == 3 && xf[0].dst == 4 && xf[0].len[0] == 100, "chain round 0: %zu %d->%d", n0,
            xf[0].src, xf[0].dst);
    /* binomial reduce on 5: ceil(lg 5) = 3 rounds */
    ar_op bi = {.kind = AR_OP_REDUCE, .impl = AR_IMPL_BINOMIAL, .n = 5, .members = iota, .count = 10, .chunks = 1};
    T_CHECK(ar_lower_nrounds(&bi) == 3, "binomial rounds %d", ar_lower_nrounds(&bi));
    /* tree of depth 2 with 3 chunks: reduce and broadcast overlapped, 2 x 2 + 3 - 1 = 6 rounds (not 4 each way) */
    int parent[4] = {-1, 0, 1, 0};
    ar_op tr = {.kind = AR_OP_ALL_REDUCE,
                .impl = AR_IMPL_TREE,
                .n = 4,
                .members = iota,
                .count = 9,
                .chunks = 3,
                .parent = parent};
    T_CHECK(ar_lower_nrounds(&tr) == 6, "tree rounds %d", ar_lower_nrounds(&tr));
    /* member 0 the root, 1 and 3 its children, 2 below 1 (height 2, chunks of 3 elements): chunk j goes
     * up from depth d in round 2 - d + j and down from depth d - 1 in round 2 + d - 1 + j, so round 2
     * carries chunk 2 up 2 -> 1, chunk 1 up 1 -> 0 and 3 -> 0, and chunk 0 down 0 -> 1 and 0 -> 3 */
    size_t nt = ar_lower_round(&tr, 2, xf);
    int up2 = 0, up1 = 0, down0 = 0;
    for (size_t i = 0; i < nt; i++) {
        up2 += xf[i].src == 2 && xf[i].dst == 1 && xf[i].reduce && xf[i].off[0] == 6 && xf[i].len[0] == 3;
        up1 += (xf[i].src == 1 || xf[i].src == 3) && xf[i].dst == 0 && xf[i].reduce && xf[i].off[0] == 3;
        down0 += xf[i].src == 0 && (xf[i].dst == 1 || xf[i].dst == 3) && !xf[i].reduce && xf[i].off[0] == 0;
    }
    T_CHECK(nt == 5 && up2 == 1 && up1 == 2 && down0 == 2 && nt <= ar_lower_max_xfers(&tr),
            "tree all-reduce round 2: %zu transfers (up 2->1 %d, up to the root %d, down %d)", nt, up2, up1, down0);
    /* the last round (5): chunk 2 down 1 -> 2 only */
    nt = ar_lower_round(&tr, 5, xf);
    T_CHECK(nt == 1 && xf[0].src == 1 && xf[0].dst == 2 && xf[0].off[0] == 6 && !xf[0].reduce,
            "tree all-reduce round 5: %zu transfers", nt);
    /* direct rs on 4: one round of 12 transfers */
    ar_op di = {.kind = AR_OP_REDUCE_SCATTER, .impl = AR_IMPL_DIRECT, .n = 4, .members = iota, .count = 8, .chunks = 1};
    T_CHECK(ar_lower_nrounds(&di) == 1 && ar_lower_round(&di, 0, xf) == 12, "direct rs");
}

/* Two channels of a 3-rank reduce-scatter / all-gather on 12 elements (rank r's block of the collective:
 * [4r, 4r+4)), each channel a ring in its own order owning half of every rank's block: a per-member
 * layout (offs). Channel A: ranks 0,1,2, blocks [0,2) [4,6) [8,10); channel B: ranks 1,2,0, blocks
 * [6,8) [10,12) [2,4). */
static ar_schedule *two_channels(ar_coll coll, const uint64_t *offs_b) {
    static const int ra[3] = {0, 1, 2}, rb[3] = {1, 2, 0};
    static const uint64_t oa[3] = {0, 4, 8};
    ar_schedule *s = ar_schedule_new("channels", 3, 12, 8);
    s->coll = coll;
    for (int k = 0; k < 2; k++) {
        ar_op_kind kind = k == 0 ? AR_OP_REDUCE_SCATTER : AR_OP_ALL_GATHER;
        if ((coll == AR_COLL_REDUCESCATTER && k == 1) || (coll == AR_COLL_ALLGATHER && k == 0)) continue;
        ar_sched_phase(s, "%s", k == 0 ? "rs" : "ag");
        ar_op_set_offs(ar_sched_op(s, kind, AR_IMPL_RING, ra, 3, 0, 6), oa);
        ar_op_set_offs(ar_sched_op(s, kind, AR_IMPL_RING, rb, 3, 0, 6), offs_b);
    }
    return s;
}

static void test_layout(void) {
    static const uint64_t ob[3] = {6, 10, 2};
    for (int c = 0; c < AR_COLL_COUNT; c++) {
        ar_schedule *s = two_channels((ar_coll)c, ob);
        char what[64];
        snprintf(what, sizeof what, "two channels, %s", ar_coll_name((ar_coll)c));
        both_ok(s, what);
        ar_schedule_free(s);
    }
    /* by hand: channel A's ring reduce-scatter, step 0: member i sends its block i-1 to member i+1 */
    ar_schedule *s = two_channels(AR_COLL_REDUCESCATTER, ob);
    const ar_op *a = &s->phases[0].ops[0], *b = &s->phases[0].ops[1];
    T_CHECK(a->offset == 0 && b->offset == 2, "lowest block starts %llu %llu", (unsigned long long)a->offset,
            (unsigned long long)b->offset);
    ar_xfer xf[8];
    size_t n = ar_lower_round(a, 0, xf);
    T_CHECK(n == 3 && xf[0].src == 0 && xf[0].dst == 1 && xf[0].off[0] == 8 && xf[0].len[0] == 2 && xf[1].src == 1 &&
                xf[1].dst == 2 && xf[1].off[0] == 0 && xf[2].src == 2 && xf[2].dst == 0 && xf[2].off[0] == 4,
            "channel A step 0: %zu transfers, first %d->%d [%llu,+%llu)", n, xf[0].src, xf[0].dst,
            (unsigned long long)xf[0].off[0], (unsigned long long)xf[0].len[0]);
    /* channel B step 1 (round 1): member i sends block i-2 = i+1 (mod 3): rank 1 -> 2 block 1 ([10,12)),
     * rank 2 -> 0 block 2 ([2,4)), rank 0 -> 1 block 0 ([6,8)) */
    n = ar_lower_round(b, 1, xf);
    T_CHECK(n == 3 && xf[0].src == 1 && xf[0].dst == 2 && xf[0].off[0] == 10 && xf[1].src == 2 && xf[1].dst == 0 &&
                xf[1].off[0] == 2 && xf[2].src == 0 && xf[2].dst == 1 && xf[2].off[0] == 6 && xf[2].len[0] == 2,
            "channel B step 1: %zu transfers, first %d->%d [%llu,+%llu)", n, xf[0].src, xf[0].dst,
            (unsigned long long)xf[0].off[0], (unsigned long long)xf[0].len[0]);
    ar_schedule_free(s);
    /* channel B's blocks in rank order instead of its ring's: rank 1 would end with the sum of [2,4), not
     * its own [6,8) (an all-reduce still completes: any layout does) */
    static const uint64_t wrong[3] = {2, 6, 10};
    s = two_channels(AR_COLL_REDUCESCATTER, wrong);
    both_fail(s, "layout in the wrong order", NULL);
    ar_schedule_free(s);
    s = two_channels(AR_COLL_ALLREDUCE, wrong);
    both_ok(s, "layout in the wrong order, all-reduce");
    ar_schedule_free(s);
    /* all-reduce ops with a layout: two channels of ring / direct / native all-reduce, each over the union of
     * its blocks; together the whole buffer */
    static const ar_impl ar_impls[] = {AR_IMPL_RING, AR_IMPL_DIRECT, AR_IMPL_NATIVE};
    for (size_t k = 0; k < 3; k++)
        for (int chunks = 1; chunks <= 2; chunks++) {
            static const int ra[3] = {0, 1, 2}, rb[3] = {1, 2, 0};
            static const uint64_t oa[3] = {0, 4, 8};
            s = ar_schedule_new("ar-layout", 3, 12, 8);
            ar_sched_phase(s, "ar");
            ar_op *x = ar_sched_op(s, AR_OP_ALL_REDUCE, ar_impls[k], ra, 3, 0, 6);
            ar_op_set_offs(x, oa);
            x->chunks = chunks;
            x = ar_sched_op(s, AR_OP_ALL_REDUCE, ar_impls[k], rb, 3, 0, 6);
            ar_op_set_offs(x, ob);
            x->chunks = chunks;
            char what[64];
            snprintf(what, sizeof what, "all-reduce with a layout, %s, chunks %d", ar_impl_name(ar_impls[k]), chunks);
            both_ok(s, what);
            ar_schedule_free(s);
        }
    /* channel B overlapping channel A at rank 0 ([0,2)): a concurrent conflict */
    static const uint64_t clash[3] = {6, 10, 0};
    s = two_channels(AR_COLL_ALLREDUCE, clash);
    ar_err e = {{0}};
    T_CHECK(ar_schedule_validate(s, &e) != AR_OK && strstr(e.msg, "concurrently"), "clash: \"%s\"", e.msg);
    ar_schedule_free(s);
    /* ill-formed layouts: refused by the structure check, so by the validator and the executor alike */
    static const struct {
        uint64_t offs[3];
        ar_op_kind kind;
        ar_impl impl;
        const char *needle;
    } bad[] = {
        {{6, 7, 2}, AR_OP_ALL_GATHER, AR_IMPL_RING, "overlap"},
        {{6, 11, 2}, AR_OP_ALL_GATHER, AR_IMPL_RING, "outside buffer"},
        {{6, 10, 2}, AR_OP_REDUCE, AR_IMPL_RING, "reduce-scatter, all-gather and all-reduce ops only"},
        {{6, 10, 2}, AR_OP_ALL_REDUCE, AR_IMPL_BINOMIAL, "cannot carry a per-member block layout"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static const int rb[3] = {1, 2, 0};
        s = ar_schedule_new("bad", 3, 12, 8);
        ar_sched_phase(s, "p");
        ar_op_set_offs(ar_sched_op(s, bad[i].kind, bad[i].impl, rb, 3, 0, 6), bad[i].offs);
        char what[64];
        snprintf(what, sizeof what, "ill-formed layout %zu", i);
        both_fail(s, what, bad[i].needle);
        ar_status x = ar_schedule_execute_host(s, 0, &e);
        T_CHECK(x != AR_OK && strstr(e.msg, bad[i].needle), "%s: executor says \"%s\"", what, e.msg);
        ar_schedule_free(s);
    }
}

int main(void) {
    for (int i = 0; i < 64; i++) iota[i] = i;
    test_layout();
    test_lowering();
    test_impls();
    test_rs_ag();
    test_two_stage();
    test_failures();
    return t_done("test_schedule");
}
