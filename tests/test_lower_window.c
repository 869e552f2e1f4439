/* Windows of a round (core/lower.h ar_lower_round_window) and the walk's streamed pricing
 * (issue 18: the walk never holds a whole all-to-all round).
 *   1. For direct all-to-all parts (reduce-scatter, all-gather, both halves of an
 *      all-reduce; even, uneven and empty blocks) and step-based parts (ring, halving-
 *      doubling, binomial), the windows of every size from 1 to past the round, put end to
 *      end, are exactly ar_lower_round's transfers in its order; the candidate count of a
 *      direct part is n (n - 1).
 *   2. ps (a direct all-to-all) on flat:ranks=264: 69 432 transfers a round, past the walk's
 *      window of 65 536, so the walk prices it in windows; it must equal the hand formula
 *      (1e-12), as the unwindowed walk does at 200 ranks.
 */
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/platform.h"
#include "core/schedule.h"
#include "models/model.h"
#include "t.h"

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

int main(void) {
    test_windows();
    test_streamed_walk();
    return t_done("test_lower_window");
}
