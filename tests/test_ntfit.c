/* real/ntfit.h: round trip without a GPU. nccl-tests text is synthesised from arlab's
 * NCCL model on dgx-h100 with KNOWN scales (latency x2, bandwidth x0.8) plus 2 %
 * multiplicative noise (fixed seed), read back by the nccl-tests reader and fitted:
 * the true values lie inside the bootstrap intervals and the point estimates within
 * 3 %. Large sizes only: the latency scale is reported unidentified. #wrong > 0 refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform.h"
#include "models/nccl_model.h"
#include "real/nccltests_in.h"
#include "real/ntfit.h"
#include "t.h"

/* bs: bandwidth efficiency of every (algorithm, protocol) except NVLS, which gets bs_nvls. */
static double true_time(const ar_platform *p, double bytes, double ls, double bs, double bs_nvls) {
    ar_err e = {{0}};
    ar_nccl_in in;
    ar_nccl_table tab;
    ar_nccl_algo a;
    ar_nccl_proto pr;
    double tf = 0, tb = 0;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    T_OK(ar_nccl_model_tune(&in, &tab, &e), e);
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, bytes, &a, &pr, &tf, &e), e);
    tab.lat_us[AR_NCCL_ALLREDUCE][a][pr] = 0;
    T_OK(ar_nccl_table_time(&in, &tab, AR_NCCL_ALLREDUCE, a, pr, bytes, &tb, &e), e);
    return ls * (tf - tb) + tb / (a == AR_NCCL_NVLS ? bs_nvls : bs);
}

/* nccl-tests text for sizes [lo, hi] (factor 2); wrong_at: size with #wrong 3 (0: none). */
static char *synth(const ar_platform *p, uint64_t lo, uint64_t hi, unsigned seed, uint64_t wrong_at, double bs_nvls) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    T_CHECK(buf != NULL, "malloc");
    len += (size_t)snprintf(buf + len, cap - len, "# Collective test starting: all_reduce_perf\n# Using devices\n");
    for (int r = 0; r < p->nranks; r++)
        len += (size_t)snprintf(
            buf + len, cap - len,
            "#  Rank %2d Group  0 Pid  100 on   node-a device %2d [0000:%02d:00] NVIDIA H100 80GB HBM3\n", r, r, r);
    len += (size_t)snprintf(buf + len, cap - len,
                            "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
                            "time   algbw   busbw #wrong\n");
    unsigned long long rng = seed;
    for (uint64_t b = lo; b <= hi; b *= 2) {
        double sum = 0;
        for (int k = 0; k < 12; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            sum += (double)(rng >> 11) / 9007199254740992.0;
        }
        double t = true_time(p, (double)b, 2.0, 0.8, bs_nvls) * (1 + 0.02 * (sum - 6)) * 1e6;
        double alg = (double)b / t / 1e3;
        len += (size_t)snprintf(buf + len, cap - len,
                                "%12llu %12llu float sum -1 %10.3f %7.2f %7.2f %d %10.3f %7.2f %7.2f 0\n",
                                (unsigned long long)b, (unsigned long long)(b / 4), t, alg, alg * 1.75,
                                b == wrong_at ? 3 : 0, t, alg, alg * 1.75);
    }
    len += (size_t)snprintf(buf + len, cap - len, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n");
    T_CHECK(len < cap, "buffer");
    return buf;
}

int main(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("dgx-h100", 0, &p, &e), e);

    /* 1. the round trip, 8 B .. 1 GiB */
    char *txt = synth(p, 8, 1ull << 30, 7, 0, 0.8);
    ar_nt_set *s = NULL;
    T_OK(ar_nt_read_mem("synth.txt", txt, strlen(txt), NULL, &s, &e), e);
    ar_ntfit_res r;
    T_OK(ar_ntfit_fit(s, p, 1, 200, &r, &e), e);
    printf("lat: true 2 fitted %.4f [%.4f, %.4f] ident %d\n", r.lat_scale, r.lat_lo, r.lat_hi, r.lat_ident);
    printf("bw:  true 0.8 fitted %.4f [%.4f, %.4f] ident %d\n", r.bw_scale, r.bw_lo, r.bw_hi, r.bw_ident);
    for (int b = 0; b < 4; b++)
        printf("bucket %d: n %d median %.4f max %.4f\n", b, r.bucket_n[b], r.bucket_med[b], r.bucket_max[b]);
    printf("leave-one-size-out: median %.4f max %.4f\n", r.loso_med, r.loso_max);
    T_CHECK(r.lat_ident && r.bw_ident, "both identified");
    T_CHECK(r.lat_lo <= 2.0 && 2.0 <= r.lat_hi, "latency 2 in [%g, %g]", r.lat_lo, r.lat_hi);
    T_CHECK(r.bw_lo <= 0.8 && 0.8 <= r.bw_hi, "bw 0.8 in [%g, %g]", r.bw_lo, r.bw_hi);
    T_NEAR(r.lat_scale, 2.0, 0.03, "latency scale");
    T_NEAR(r.bw_scale, 0.8, 0.03, "bw scale");
    T_CHECK(r.n == 28 && r.bucket_n[0] + r.bucket_n[1] + r.bucket_n[2] + r.bucket_n[3] == 28, "n %d", r.n);
    T_CHECK(r.bucket_max[3] < 0.08 && r.loso_max < 0.1, "errors %g %g", r.bucket_max[3], r.loso_max);
    ar_ntfit_free(&r);
    ar_nt_free(s);
    free(txt);

    /* 1b. per (algorithm, protocol): NVLS at 0.6, the others at 0.8; the groups recover them */
    txt = synth(p, 8, 1ull << 30, 11, 0, 0.6);
    T_OK(ar_nt_read_mem("groups.txt", txt, strlen(txt), NULL, &s, &e), e);
    T_OK(ar_ntfit_fit(s, p, 1, 200, &r, &e), e);
    int seen_nvls = 0, seen_other = 0;
    printf("groups: shared latency %.4f [%.4f, %.4f]\n", r.group_lat, r.group_lat_lo, r.group_lat_hi);
    T_CHECK(r.group_lat_lo <= 2.0 && 2.0 <= r.group_lat_hi, "shared latency 2 in [%g, %g]", r.group_lat_lo,
            r.group_lat_hi);
    for (int g = 0; g < r.ngroups; g++) {
        double want = !strcmp(r.group[g].algo, "NVLS") ? 0.6 : 0.8;
        printf("group %s/%s n %d eff %.4f [%.4f, %.4f] ident %d\n", r.group[g].algo, r.group[g].proto, r.group[g].n,
               r.group[g].eff, r.group[g].lo, r.group[g].hi, r.group[g].ident);
        if (!r.group[g].ident) continue;
        T_CHECK(r.group[g].lo <= want && want <= r.group[g].hi, "%s/%s: %g in [%g, %g]", r.group[g].algo,
                r.group[g].proto, want, r.group[g].lo, r.group[g].hi);
        if (want == 0.6) seen_nvls = 1;
        else seen_other = 1;
    }
    T_CHECK(seen_nvls && seen_other, "an NVLS group and another group identified (%d, %d)", seen_nvls, seen_other);
    /* the one-factor fit cannot: its bandwidth scale lies between */
    T_CHECK(r.bw_scale > 0.55 && r.bw_scale < 0.85, "global bw %g", r.bw_scale);
    ar_ntfit_free(&r);
    ar_nt_free(s);
    free(txt);

    /* 2. only >= 256 MiB: bandwidth-bound, the latency scale is not identified */
    txt = synth(p, 256u << 20, 1ull << 30, 9, 0, 0.8);
    T_OK(ar_nt_read_mem("big.txt", txt, strlen(txt), NULL, &s, &e), e);
    T_OK(ar_ntfit_fit(s, p, 1, 200, &r, &e), e);
    printf("big only: lat %.4f [%.4g, %.4g] ident %d; bw %.4f [%.4f, %.4f] ident %d\n", r.lat_scale, r.lat_lo, r.lat_hi,
           r.lat_ident, r.bw_scale, r.bw_lo, r.bw_hi, r.bw_ident);
    T_CHECK(!r.lat_ident && r.lat_scale == 1.0, "latency must be reported unidentified and kept at 1");
    ar_ntfit_free(&r);
    ar_nt_free(s);
    free(txt);

    /* 3. #wrong > 0 refused, naming the line */
    txt = synth(p, 1024, 1u << 20, 3, 4096, 0.8);
    T_OK(ar_nt_read_mem("wrong.txt", txt, strlen(txt), NULL, &s, &e), e);
    ar_err e2 = {{0}};
    ar_status st = ar_ntfit_fit(s, p, 1, 50, &r, &e2);
    printf("wrong: %s\n", e2.msg);
    T_CHECK(st == AR_EFAIL && strstr(e2.msg, "wrong.txt:14") != NULL, "got %d %s", (int)st, e2.msg);
    ar_nt_free(s);
    free(txt);
    ar_platform_free(p);
    return t_done("test_ntfit");
}
