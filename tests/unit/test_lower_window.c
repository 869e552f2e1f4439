/* Windows of a round (core/lower.h ar_lower_round_window) and the walk's streamed pricing
 * (the walk never holds a whole all-to-all round).
 *   1. For direct all-to-all parts (reduce-scatter, all-gather, both halves of an
 *      all-reduce; even, uneven and empty blocks) and step-based parts (ring, halving-
 *      doubling, binomial), the windows of every size from 1 to past the round, put end to
 *      end, are exactly ar_lower_round's transfers in its order; the candidate count of a
 *      direct part is n (n - 1).
 *   2. ps (a direct all-to-all) on flat:ranks=264: 69 432 transfers a round, past the walk's
 *      window of 65 536, so the walk prices it in windows; it must equal the hand formula
 *      (1e-12), as the unwindowed walk does at 200 ranks.
 *   3. ar_lower_same_pairs: every round it spans has its first round's pairs, on even, uneven
 *      and empty-block rings, with and without pieces.
 */
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "models/model.h"
#include "../t.h"

static int same_xfer(const ar_xfer *a, const ar_xfer *b) {
    if (a->src != b->src || a->dst != b->dst || a->nseg != b->nseg || a->reduce != b->reduce) return 0;
    for (int s = 0; s < a->nseg; s++)
        if (a->off[s] != b->off[s] || a->len[s] != b->len[s]) return 0;
    return 1;
}

/* Every window size against the whole round, for every round of op; returns the windows checked. */
static int check_op(const ar_op *op, const char *what) {
    int nr = ar_lower_nrounds(op), checked = 0;
    size_t mx = ar_lower_max_xfers(op);
    ar_xfer *full = calloc(mx + 1, sizeof *full), *win = calloc(mx + 1, sizeof *win),
            *cat = calloc(mx + 1, sizeof *cat);
    T_CHECK(full && win && cat, "memory");
    for (int r = 0; full && win && cat && r < nr; r++) {
        if (!ar_lower_windowed(op, r)) continue;
        size_t n = ar_lower_round(op, r, full);
        for (size_t w = 1; w <= mx + 1; w++) {
            size_t total = SIZE_MAX, got = 0;
            for (size_t lo = 0; lo < total; lo += w) {
                size_t k = ar_lower_round_window(op, r, lo, lo + w, win, &total);
                T_CHECK(k <= w && got + k <= n, "%s round %d window %zu at %zu: %zu transfers", what, r, w, lo, k);
                if (k > w || got + k > n) break;
                memcpy(cat + got, win, k * sizeof *win);
                got += k;
            }
            int same = got == n;
            for (size_t i = 0; same && i < n; i++) same = same_xfer(&cat[i], &full[i]);
            T_CHECK(same, "%s round %d, windows of %zu: %zu transfers, the round has %zu", what, r, w, got, n);
            checked++;
        }
    }
    free(full);
    free(win);
    free(cat);
    return checked;
}

static void test_windows(void) {
    static const struct {
        ar_op_kind kind;
        ar_impl impl;
        const char *name;
    } ops[] = {{AR_OP_REDUCE_SCATTER, AR_IMPL_DIRECT, "direct reduce-scatter"},
               {AR_OP_ALL_GATHER, AR_IMPL_DIRECT, "direct all-gather"},
               {AR_OP_ALL_REDUCE, AR_IMPL_DIRECT, "direct all-reduce"},
               {AR_OP_ALL_REDUCE, AR_IMPL_RING, "ring all-reduce"},
               {AR_OP_ALL_REDUCE, AR_IMPL_HD, "halving-doubling all-reduce"},
               {AR_OP_REDUCE, AR_IMPL_BINOMIAL, "binomial reduce"}};
    static const int sizes[] = {8, 7};
    static const uint64_t counts[] = {56, 23, 3}; /* even, uneven, empty blocks */
    int checked = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t z = 0; z < 2; z++)
            for (size_t c = 0; c < 3; c++) {
                int n = sizes[z], m[8];
                if (ops[o].impl == AR_IMPL_HD && (n & (n - 1))) continue; /* halving-doubling: powers of two */
                for (int i = 0; i < n; i++) m[i] = (i * 3) % n;           /* members out of rank order */
                ar_schedule *s = ar_schedule_new("w", n, counts[c], 4);
                ar_sched_phase(s, "p");
                ar_op *op = ar_sched_op(s, ops[o].kind, ops[o].impl, m, n, 0, counts[c]);
                T_CHECK(op != NULL, "%s: op", ops[o].name);
                if (op) {
                    char what[96];
                    snprintf(what, sizeof what, "%s, %d members, %llu elements", ops[o].name, n,
                             (unsigned long long)counts[c]);
                    checked += check_op(op, what);
                    if (ops[o].impl == AR_IMPL_DIRECT && ops[o].kind != AR_OP_ALL_REDUCE) {
                        ar_xfer one[64];
                        size_t total = 0;
                        ar_lower_round_window(op, 0, 0, 1, one, &total);
                        T_CHECK(total == (size_t)n * (size_t)(n - 1), "%s: %zu candidates, want n (n - 1) = %d", what,
                                total, n * (n - 1));
                    }
                }
                ar_schedule_free(s);
            }
    printf("windows: %d (op, round, size) cases equal to the whole round\n", checked);
    T_CHECK(checked >= 500, "only %d window cases ran", checked);
}

/* The walk of ps on flat:ranks=P, count = P * 100000: every rank's link carries P - 1 blocks each
 * way in each phase (reduce-scatter, then all-gather), so each phase takes the route's two
 * latencies plus (P - 1) blocks over the link. */
static void ps_flat(int P, int streamed) {
    char spec[64];
    snprintf(spec, sizeof spec, "flat:ranks=%d", P);
    ar_platform *p = NULL;
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load(spec, 0, &p, &e), e);
    if (!p) return;
    uint64_t block = 100000, count = (uint64_t)P * block;
    static ar_model_result r;
    double t = NAN;
    if (ar_algo_plan("ps", p, count, 4, &s, &e) == AR_OK && ar_model_walk(p, s, &r, &e) == AR_OK) t = r.time_s;
    T_CHECK(!isnan(t), "walk ps on %s: %s", spec, e.msg);
    const ar_link *l = &p->links[0];
    double want = 2 * (2 * l->lat_s + (double)(P - 1) * (double)block * 4 / ar_link_capacity(l));
    printf("ps on %s (%s): walk %.17g s, hand %.17g s\n", spec, streamed ? "streamed: P (P - 1) > 65536" : "whole", t,
           want);
    T_CHECK(fabs(t - want) <= 1e-12 * want, "ps on %s: walk %.17g, 2 (2 lat + (P - 1) blocks / bw) = %.17g", spec, t,
            want);
    ar_schedule_free(s);
    ar_platform_free(p);
}

static void test_streamed_walk(void) {
    ps_flat(200, 0); /* 39 800 transfers a round: one array */
    ps_flat(264, 1); /* 69 432: windows */
}

/* ar_lower_same_pairs: the rounds it spans lower to the same (src, dst, reduce) sequence as its
 * first; it spans more than one round somewhere on uneven rings (what the fast engine's op groups
 * skip), and one round where a block or piece is empty. */
static void test_same_pairs(void) {
    static const uint64_t counts[] = {56, 23, 7, 3}; /* even, uneven, one element per block at 7, empty blocks */
    static const ar_op_kind kinds[] = {AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER, AR_OP_ALL_REDUCE};
    int spans = 0, checked = 0;
    ar_xfer a[16], b[16];
    for (size_t c = 0; c < 4; c++)
        for (size_t k = 0; k < 3; k++)
            for (int chunks = 1; chunks <= 3; chunks++) {
                int n = 7, m[7];
                for (int i = 0; i < n; i++) m[i] = (i * 3) % n;
                ar_schedule *s = ar_schedule_new("p", n, counts[c], 4);
                ar_sched_phase(s, "p");
                ar_op *op = ar_sched_op(s, kinds[k], AR_IMPL_RING, m, n, 0, counts[c]);
                T_CHECK(op != NULL, "ring op");
                if (op) op->chunks = chunks;
                for (int r = 0; op && r < ar_lower_nrounds(op); r++) {
                    int J = ar_lower_same_pairs(op, r);
                    T_CHECK(J >= 1 && r + J <= ar_lower_nrounds(op), "same pairs from round %d: %d", r, J);
                    size_t na = ar_lower_round(op, r, a);
                    for (int q = r + 1; q < r + J && q < ar_lower_nrounds(op); q++) {
                        size_t nb = ar_lower_round(op, q, b);
                        int same = na == nb;
                        for (size_t i = 0; same && i < na; i++)
                            same = a[i].src == b[i].src && a[i].dst == b[i].dst && a[i].reduce == b[i].reduce;
                        T_CHECK(same, "%llu elements, kind %d, %d chunks: round %d pairs != round %d's (span %d)",
                                (unsigned long long)counts[c], (int)kinds[k], chunks, q, r, J);
                        checked++;
                    }
                    if (J > 1 && counts[c] == 23) spans++;
                }
                ar_schedule_free(s);
            }
    printf("same pairs: %d rounds checked against the first of their span, %d spans on uneven rings\n", checked, spans);
    T_CHECK(checked >= 100 && spans > 0, "same pairs: %d rounds, %d uneven spans", checked, spans);
}

int main(void) {
    test_windows();
    test_same_pairs();
    test_streamed_walk();
    return t_done("test_lower_window");
}
