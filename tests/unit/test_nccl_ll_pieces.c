/* nccl-tree with LL: the stream's piece count is the fastest of 1, 2, 4, .. 64 pieces by the walk
 * (ar_nccl_tree_ll_pieces), NCCL's per-line forwarding approximated by the pipeline closest to it; the
 * `nccl` pick plans the same count. dgx-h100:nodes=16 (128 ranks, 8 channels) at 32 KB = 8000 f32, 1000
 * per channel: the old fixed 4 KiB pieces gave 1 piece (4000 B < 4096 B), a store-and-forward of the whole
 * channel at each of the 2 x (7 + 4) hops, 1.27 x NCCL's model; 4 pieces give 1.05 x (bench_nccl_schedules.sh
 * --full). 8 B: one element a channel, one piece. */
#include <stdio.h>
#include <string.h>

#include "algos/nccl_algos.h"
#include "core/algo.h"
#include "models/model.h"
#include "../t.h"

static double walk_of(const ar_platform *p, const char *spec, uint64_t count, char *detail, size_t dn) {
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    ar_model_result m = {0};
    T_OK(ar_algo_plan_coll(spec, AR_COLL_ALLREDUCE, p, count, 4, &s, &e), e);
    if (!s) return -1;
    T_OK(ar_model_walk(p, s, &m, &e), e);
    if (detail) snprintf(detail, dn, "%s", s->detail ? s->detail : "");
    ar_schedule_free(s);
    return m.time_s;
}

static void check(const char *plat, uint64_t count, int want) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load(plat, 0, &p, &e), e);
    if (!p) return;
    int got = ar_nccl_tree_ll_pieces(p, count, 4, 8, "rail");
    T_CHECK(got == want, "%s, %llu f32: %d LL pieces, want %d", plat, (unsigned long long)count, got, want);
    char spec[80], detail[512];
    snprintf(spec, sizeof spec, "nccl-tree:channels=8,chunks=%d,proto=ll", got);
    double best = walk_of(p, spec, count, NULL, 0);
    int tried = 0;
    for (int c = 1; c <= AR_NCCL_TREE_MAX_CHUNKS && (c == 1 || (uint64_t)c <= count / 8); c *= 2, tried++) {
        snprintf(spec, sizeof spec, "nccl-tree:channels=8,chunks=%d,proto=ll", c);
        double t = walk_of(p, spec, count, NULL, 0);
        T_CHECK(best <= t * (1 + 1e-12), "%s: %d pieces %.9g s slower than %d pieces %.9g s", plat, got, best, c, t);
    }
    T_CHECK(tried >= 1, "%s: no piece count tried", plat);
    /* the default of nccl-tree:proto=ll and the nccl pick (TREE/LL here) plan the same count */
    double dflt = walk_of(p, "nccl-tree:channels=8,proto=ll", count, NULL, 0);
    T_NEAR(dflt, best, 1e-12, "nccl-tree:proto=ll default");
    double pick = walk_of(p, "nccl", count, detail, sizeof detail);
    char want_txt[32];
    snprintf(want_txt, sizeof want_txt, " %d chunks", want);
    T_CHECK(strstr(detail, "TREE/LL ") && strstr(detail, want_txt), "%s nccl pick: %s (want TREE/LL,%s)", plat, detail,
            want_txt);
    T_NEAR(pick, best, 1e-12, "nccl pick");
    ar_platform_free(p);
}

int main(void) {
    check("dgx-h100:nodes=16", 8000, 4);
    check("dgx-h100:nodes=2", 2, 1);
    /* more pieces pay: 32 KB on 16 nodes, 4 pieces against the old single piece */
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("dgx-h100:nodes=16", 0, &p, &e), e);
    if (p) {
        double one = walk_of(p, "nccl-tree:channels=8,chunks=1,proto=ll", 8000, NULL, 0);
        double four = walk_of(p, "nccl-tree:channels=8,chunks=4,proto=ll", 8000, NULL, 0);
        T_CHECK(four < 0.86 * one, "4 pieces %.6g s, 1 piece %.6g s: want 4 at least 14 %% faster", four, one);
        ar_platform_free(p);
    }
    return t_done("test_nccl_ll_pieces");
}
