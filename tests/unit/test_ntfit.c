/* calib/ntfit.h: round trip without a GPU. nccl-tests text is synthesised from arlab's
 * NCCL model on dgx-h100 with KNOWN scales (latency x2, bandwidth x0.8) plus 2 %
 * multiplicative noise (fixed seed), read back by the nccl-tests reader and fitted:
 * the true values lie inside the bootstrap intervals and the point estimates within
 * 3 %. Large sizes only: the latency scale is reported unidentified. #wrong > 0 refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "core/platform/platform_rail.h"
#include "models/nccl_model.h"
#include "calib/nccltests_in.h"
#include "calib/ntcal.h"
#include "calib/ntfit.h"
#include "../t.h"

/* bs: bandwidth efficiency of every (algorithm, protocol) except NVLS, which gets bs_nvls. */
static double true_time(const ar_platform *p, double bytes, double ls, double bs, double bs_nvls) {
    ar_err e = {{0}};
    ar_nccl_in in;
    ar_nccl_table tab;
    ar_nccl_algo a;
    ar_nccl_proto pr;
    double tf = 0, tb = 0;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    in.tuner_only = 1; /* synthetic truth: the tuner's formula (what the fit scales) */
    T_OK(ar_nccl_model_tune(&in, &tab, &e), e);
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, bytes, &a, &pr, &tf, &e), e);
    tab.lat_us[AR_NCCL_ALLREDUCE][a][pr] = 0;
    T_OK(ar_nccl_table_time(&in, &tab, AR_NCCL_ALLREDUCE, a, pr, bytes, &tb, &e), e);
    return ls * (tf - tb) + tb / (a == AR_NCCL_NVLS ? bs_nvls : bs);
}

/* nccl-tests' device lines of an all_reduce_perf run on p's ranks: all on node-a, device = rank, or
 * (by_node) on node-a, node-b, ... by machine, device = rank mod 8; its length. */
static size_t log_devices(char *buf, size_t cap, const ar_platform *p, int by_node) {
    size_t len = (size_t)snprintf(buf, cap, "# Collective test starting: all_reduce_perf\n# Using devices\n");
    for (int r = 0; r < p->nranks; r++) {
        int dev = by_node ? r % 8 : r;
        len += (size_t)snprintf(buf + len, cap - len,
                                "#  Rank %2d Group  0 Pid  100 on   node-%c device %2d [0000:%02d:00] NVIDIA H100 80GB "
                                "HBM3\n",
                                r, by_node ? 'a' + p->machine_of_rank[r] : 'a', dev, dev);
    }
    return len;
}

/* nccl-tests' column header line; its length. */
static size_t log_columns(char *buf, size_t cap) {
    return (size_t)snprintf(buf, cap,
                            "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
                            "time   algbw   busbw #wrong\n");
}

/* The header of a run: its device lines and the column header; its length. */
static size_t log_header(char *buf, size_t cap, const ar_platform *p, int by_node) {
    size_t len = log_devices(buf, cap, p, by_node);
    return len + log_columns(buf + len, cap - len);
}

/* The next uniform in [0, 1) of a 64-bit LCG (fixed seeds: the synthetic logs are reproducible). */
static double lcg_uniform(unsigned long long *rng) {
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*rng >> 11) / 9007199254740992.0;
}

/* Gaussian-like noise of mean 0 and deviation 1: the sum of 12 uniforms, less 6. */
static double lcg_noise(unsigned long long *rng) {
    double sum = 0;
    for (int k = 0; k < 12; k++) sum += lcg_uniform(rng);
    return sum - 6;
}

/* One table row of size b: time t_us (both halves), algbw b/t, busbw algbw x bus, #wrong of the out-of-place half;
 * its length. */
static size_t log_row(char *buf, size_t cap, uint64_t b, double t_us, double bus, int wrong) {
    double alg = (double)b / t_us / 1e3;
    return (size_t)snprintf(buf, cap, "%12llu %12llu float sum -1 %10.3f %7.2f %7.2f %d %10.3f %7.2f %7.2f 0\n",
                            (unsigned long long)b, (unsigned long long)(b / 4), t_us, alg, alg * bus, wrong, t_us, alg,
                            alg * bus);
}

/* The log's two closing lines after len bytes of buf; buf. */
static char *log_end(char *buf, size_t len, size_t cap) {
    len += (size_t)snprintf(buf + len, cap - len, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n");
    T_CHECK(len < cap, "buffer");
    return buf;
}

/* nccl-tests text for sizes [lo, hi] (factor 2); wrong_at: size with #wrong 3 (0: none). */
static char *synth(const ar_platform *p, uint64_t lo, uint64_t hi, unsigned seed, uint64_t wrong_at, double bs_nvls) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    T_CHECK(buf != NULL, "malloc");
    len += log_header(buf + len, cap - len, p, 0);
    unsigned long long rng = seed;
    for (uint64_t b = lo; b <= hi; b *= 2) {
        double t = true_time(p, (double)b, 2.0, 0.8, bs_nvls) * (1 + 0.02 * lcg_noise(&rng)) * 1e6;
        len += log_row(buf + len, cap - len, b, t, 1.75, b == wrong_at ? 3 : 0);
    }
    return log_end(buf, len, cap);
}

/* ---- 4. the per-class calibration round trip ----
 * Truth: intra-node latency x1.5, bandwidth x0.85; inter-node latency x1.3, bandwidth x0.7; efficiencies
 * NVLS 0.9, TREE 0.8, RING 1 (every protocol) (RING/SIMPLE is the reference). Files: 1 node forced RING and NVLS,
 * 2 nodes forced RING and TREE, and NCCL's own choice on 1 and 2 nodes, 8 B .. 1 GiB (x4), 1 % Gaussian-like
 * noise (fixed seed). */
static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const double k_tlat[2] = {1.5, 1.3}, k_tbw[2] = {0.85, 0.7};
static double true_eff(int a) { return a == AR_NCCL_NVLS ? 0.9 : a == AR_NCCL_TREE ? 0.8 : 1.0; }

/* What the CLI writes for calibration c of dgx-h100 (factors and switch rates; no efficiencies): platform name. */
static ar_ntcal_in cal_in(const char *name, const ar_ntfit_cal *c) {
    return (ar_ntcal_in){.name = name,
                         .lat_scale = 1,
                         .bw_scale = 1,
                         .calibrated = 1,
                         .cal_lat = {c->cls[0].lat, c->cls[1].lat},
                         .cal_bw = {c->cls[0].bw, c->cls[1].bw},
                         .cal_sw = {{c->sw[0][0].bw, c->sw[0][1].bw}, {c->sw[1][0].bw, c->sw[1][1].bw}},
                         .have_sw = {{c->sw[0][0].n > 0, c->sw[0][1].n > 0}, {c->sw[1][0].n > 0, c->sw[1][1].n > 0}},
                         .base = "dgx-h100"};
}

/* The calibrated truth: NCCL's model on p (1 or 2 nodes) with the true factors, algorithm forced. */
static double cal_true_time(const ar_platform *p, int algo, double bytes) {
    ar_err e = {{0}};
    ar_nccl_in in;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    int c = p->nmachines > 1;
    in.cal_lat = k_tlat[c], in.cal_bw = k_tbw[c];
    in.tuner_only = 1; /* synthetic truth: the tuner's formula (what the fit scales) */
    for (int a = 0; a < AR_NCCL_NALGOS; a++)
        for (int q = 0; q < AR_NCCL_NPROTOS; q++) in.eff[a][q] = true_eff(a);
    double t = 0;
    T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, algo, bytes, NULL, NULL, &t, &e), e);
    return t;
}

static char *synth_cal(const ar_platform *p, int algo, unsigned seed) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    T_CHECK(buf != NULL, "malloc");
    len += log_devices(buf + len, cap - len, p, 1);
    if (algo >= 0)
        len += (size_t)snprintf(buf + len, cap - len, "node-a:1:1 [0] NCCL INFO NCCL_ALGO set by environment to %s\n",
                                ar_nccl_algo_name((ar_nccl_algo)algo));
    len += log_columns(buf + len, cap - len);
    unsigned long long rng = seed;
    for (uint64_t b = 8; b <= (1ull << 30); b *= 4) {
        double t = cal_true_time(p, algo, (double)b) * (1 + 0.01 * lcg_noise(&rng)) * 1e6;
        len += log_row(buf + len, cap - len, b, t, 1.0, 0);
    }
    return log_end(buf, len, cap);
}

#define NCAL 6
static const char *const k_cal_files[NCAL] = {"cal_1node_ring.txt", "cal_1node_nvls.txt", "cal_2node_ring.txt",
                                              "cal_2node_tree.txt", "cal_1node_auto.txt", "cal_2node_auto.txt"};

/* The files' text (caller frees each). */
static void synth_cal_all(char *txt[NCAL]) {
    ar_err e = {{0}};
    ar_platform *p1 = NULL, *p2 = NULL;
    T_OK(ar_platform_load("dgx-h100", 0, &p1, &e), e);
    T_OK(ar_platform_load("dgx-h100:nodes=2", 0, &p2, &e), e);
    txt[0] = synth_cal(p1, AR_NCCL_RING, 21);
    txt[1] = synth_cal(p1, AR_NCCL_NVLS, 22);
    txt[2] = synth_cal(p2, AR_NCCL_RING, 23);
    txt[3] = synth_cal(p2, AR_NCCL_TREE, 24);
    txt[4] = synth_cal(p1, -1, 25); /* NCCL's own choice (no NCCL_ALGO) */
    txt[5] = synth_cal(p2, -1, 26);
    ar_platform_free(p1);
    ar_platform_free(p2);
}

static void cal_round_trip(void) {
    ar_err e = {{0}};
    char *txt[NCAL];
    synth_cal_all(txt);
    ar_nt_set *s = NULL;
    /* one set from the four files (the reader takes files: write them) */
    char dir[] = "/tmp/test_ntfit_XXXXXX", path[NCAL][256];
    T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    const char *paths[NCAL];
    for (int i = 0; i < NCAL; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s", dir, k_cal_files[i]);
        FILE *f = fopen(path[i], "w");
        T_CHECK(f && fputs(txt[i], f) >= 0 && fclose(f) == 0, "write %s", path[i]);
        paths[i] = path[i];
    }
    T_OK(ar_nt_read_files(paths, NCAL, NULL, &s, &e), e);
    ar_platform *p = NULL;
    T_OK(ar_platform_load("dgx-h100", 0, &p, &e), e);
    ar_ntfit_cal c;
    T_OK(ar_ntfit_calibrate(s, p, 1, 200, &c, &e), e);
    static const char *const cn[2] = {"intra", "inter"};
    T_CHECK(c.n == 84, "84 records (got %d)", c.n);
    for (int k = 0; k < 2; k++) {
        printf("cal %s: n %d lat true %.2f fitted %.4f [%.4f, %.4f]; bw true %.2f fitted %.4f [%.4f, %.4f]\n", cn[k],
               c.cls[k].n, k_tlat[k], c.cls[k].lat, c.cls[k].lat_lo, c.cls[k].lat_hi, k_tbw[k], c.cls[k].bw,
               c.cls[k].bw_lo, c.cls[k].bw_hi);
        T_CHECK(c.cls[k].n == 42 && c.cls[k].lat_ident && c.cls[k].bw_ident, "%s identified", cn[k]);
        /* inside the 95 % intervals at this seed. Over 40 other noise seeds, 31 of the ~440 intervals (classes and
         * groups) missed their true value: 7 %, against 5 % nominal (percentile intervals run a little narrow), so
         * at a seed drawn at random all of them hold about half the time. The intervals are informative:
         * narrower than 2 % (latency) and 6 % (bandwidth) */
        T_CHECK(c.cls[k].lat_lo <= k_tlat[k] && k_tlat[k] <= c.cls[k].lat_hi, "%s latency in its interval", cn[k]);
        T_CHECK(c.cls[k].bw_lo <= k_tbw[k] && k_tbw[k] <= c.cls[k].bw_hi, "%s bandwidth in its interval", cn[k]);
        T_CHECK(c.cls[k].lat_hi - c.cls[k].lat_lo < 0.02 * k_tlat[k] &&
                    c.cls[k].bw_hi - c.cls[k].bw_lo < 0.06 * k_tbw[k],
                "%s intervals narrow", cn[k]);
    }
    int seen_ref = 0, seen_tree = 0, seen_nvls = 0;
    /* NVLS's bandwidth is the NVSwitch's rate, a factor of its own per class: the true class bw x the efficiency
     * of what ran on it (NCCL's model picks NVLS on one node, NVLS_TREE on two: no group of the family ran in both
     * classes, so each class's rate carries its own) */
    for (int k = 0; k < 2; k++) {
        double want = k_tbw[k] * true_eff(k ? AR_NCCL_NVLS_TREE : AR_NCCL_NVLS);
        printf("cal %s NVLS rate: n %d true %.4f fitted %.4f [%.4f, %.4f] ident %d\n", cn[k], c.sw[k][0].n, want,
               c.sw[k][0].bw, c.sw[k][0].lo, c.sw[k][0].hi, c.sw[k][0].ident);
        if (!c.sw[k][0].n || !c.sw[k][0].ident) continue;
        T_CHECK(c.sw[k][0].lo <= want && want <= c.sw[k][0].hi, "%s NVLS rate %g in [%g, %g]", cn[k], want,
                c.sw[k][0].lo, c.sw[k][0].hi);
        seen_nvls = 1;
    }
    for (int g = 0; g < c.ngroups; g++) {
        /* relative to its family's reference (RING/SIMPLE for the links, NVLS/SIMPLE for the NVSwitch) */
        double want = true_eff(c.group[g].algo_i) / true_eff(c.group[g].fam == 1 ? AR_NCCL_NVLS : AR_NCCL_RING);
        printf("cal group %s/%s n %d eff true %.2f fitted %.4f [%.4f, %.4f] ident %d%s\n", c.group[g].algo,
               c.group[g].proto, c.group[g].n, want, c.group[g].eff, c.group[g].lo, c.group[g].hi, c.group[g].ident,
               g == c.fref[c.group[g].fam] ? " (reference)" : "");
        if (g == c.fref[c.group[g].fam]) {
            T_CHECK(c.group[g].eff == 1, "a reference has eff 1");
            if (g == c.ref)
                seen_ref = !strcmp(c.group[g].algo, "RING") && !strcmp(c.group[g].proto, "SIMPLE") &&
                           c.group[g].eff == 1;
            continue;
        }
        if (!c.group[g].ident) continue;
        T_CHECK(c.group[g].lo <= want && want <= c.group[g].hi, "%s/%s: %g in [%g, %g]", c.group[g].algo,
                c.group[g].proto, want, c.group[g].lo, c.group[g].hi);
        T_CHECK(c.group[g].hi - c.group[g].lo < 0.15, "%s/%s interval narrower than 0.15", c.group[g].algo,
                c.group[g].proto);
        if (c.group[g].algo_i == AR_NCCL_TREE) seen_tree = 1;
    }
    T_CHECK(seen_ref && seen_tree && seen_nvls, "reference RING/SIMPLE, TREE and NVLS identified (%d %d %d)", seen_ref,
            seen_tree, seen_nvls);
    printf("cal: %d passes, calibrated |rel err| median %.4f max %.4f\n", c.passes, c.rel_med, c.rel_max);
    T_CHECK(c.rel_med < 0.01 && c.rel_max < 0.03, "calibrated error %g %g (noise 1 %%)", c.rel_med, c.rel_max);

    /* the calibrated platform JSON: NCCL's model on it (1 node) and on FILE:nodes=2 predicts the noise-free
     * truth within 1 % at every size (the noise is 1 %) */
    char keys[AR_NTFIT_MAX_GROUPS][40];
    const char *kp[AR_NTFIT_MAX_GROUPS];
    double ev[AR_NTFIT_MAX_GROUPS];
    for (int g = 0; g < c.ngroups; g++) {
        snprintf(keys[g], sizeof keys[g], "%s/%s", c.group[g].algo, c.group[g].proto);
        kp[g] = keys[g], ev[g] = c.group[g].eff;
    }
    ar_ntcal_in in = cal_in("dgx-h100-calibrated", &c);
    in.neff = c.ngroups, in.eff_key = kp, in.eff = ev;
    char *json = NULL;
    T_OK(ar_ntcal_platform_json(p, &in, &json, &e), e);
    char cal[300], spec[320];
    snprintf(cal, sizeof cal, "%s/cal.json", dir);
    FILE *f = fopen(cal, "w");
    T_CHECK(f && fputs(json, f) >= 0 && fclose(f) == 0, "write %s", cal);
    free(json);
    snprintf(spec, sizeof spec, "%s:nodes=2", cal);
    ar_platform *q[2] = {NULL, NULL}, *truth[2] = {NULL, NULL};
    T_OK(ar_platform_load(cal, 0, &q[0], &e), e);
    T_OK(ar_platform_load(spec, 0, &q[1], &e), e);
    T_OK(ar_platform_load("dgx-h100", 0, &truth[0], &e), e);
    T_OK(ar_platform_load("dgx-h100:nodes=2", 0, &truth[1], &e), e);
    static const int algos[2][3] = {{AR_NCCL_RING, AR_NCCL_NVLS, -1}, {AR_NCCL_RING, AR_NCCL_TREE, -1}};
    double worst = 0, errs[128];
    int nerr = 0;
    for (int k = 0; k < 2; k++) {
        T_CHECK(q[k]->calibrated && q[k]->nmachines == k + 1, "calibrated platform %d", k);
        /* the loader applied the factors to the links: the NVLink link is 20.6 GB/s x intra bw */
        const ar_link *l =
            &q[k]->links[q[k]->nodes[q[k]->rank_node[0]].uplink >= 0 ? q[k]->nodes[q[k]->rank_node[0]].uplink
                                                                     : q[k]->adj[q[k]->adj_off[q[k]->rank_node[0]]]];
        T_NEAR(l->bw_Bps, 20.6e9 * c.cls[0].bw, 1e-9, "NVLink link x intra bandwidth");
        T_NEAR(l->lat_s, 0.3e-6 * c.cls[0].lat, 1e-9, "NVLink link (0.3 us) x intra latency");
        for (int j = 0; j < 3; j++)
            for (uint64_t b = 8; b <= (1ull << 30); b *= 4) {
                double t = 0, want = cal_true_time(truth[k], algos[k][j], (double)b);
                T_OK(ar_nccl_model_platform(q[k], 0, AR_NCCL_ALLREDUCE, algos[k][j], (double)b, NULL, NULL, &t, &e), e);
                if (fabs(t - want) / want > 0.01)
                    printf("  %d nodes %s %llu B: calibrated %.6g s, truth %.6g s\n", k + 1,
                           algos[k][j] < 0 ? "auto" : ar_nccl_algo_name((ar_nccl_algo)algos[k][j]),
                           (unsigned long long)b, t, want);
                worst = fmax(worst, fabs(t - want) / want);
                if (nerr < 128) errs[nerr++] = fabs(t - want) / want;
            }
    }
    qsort(errs, (size_t)nerr, sizeof *errs, cmp_dbl);
    double med = errs[nerr / 2];
    printf("cal: NCCL model on the calibrated JSON vs the noise-free truth (%d points): median |rel err| %.4f max "
           "%.4f\n",
           nerr, med, worst);
    /* the noise is 1 % (sigma): the median inside half of it, every point inside 3 sigma */
    T_CHECK(nerr == 84 && med < 0.005 && worst < 0.03, "calibrated JSON vs truth: median %g max %g", med, worst);
    /* the 2-node fabric's NIC links carry the inter-node bandwidth factor (48 GB/s x inter bw) */
    const ar_link *nic = NULL;
    for (int l = 0; l < q[1]->nlinks; l++)
        if (ar_platform_link_class(q[1], l) == 1) nic = &q[1]->links[l];
    T_CHECK(nic != NULL, "a NIC link");
    T_NEAR(nic->bw_Bps, 48e9 * c.cls[1].bw, 1e-9, "NIC link x inter bandwidth");
    /* the same fabric built as a JSON graph document (the table-routed loader) carries the same calibration */
    ar_platform *tb = NULL;
    T_OK(ar_platform_rail_load_table(spec, 0, &tb, &e), e);
    int same = tb->nlinks == q[1]->nlinks && tb->calibrated;
    for (int l = 0; same && l < tb->nlinks; l++)
        same = fabs(tb->links[l].bw_Bps - q[1]->links[l].bw_Bps) <= 1e-9 * q[1]->links[l].bw_Bps &&
               fabs(tb->links[l].lat_s - q[1]->links[l].lat_s) <= 1e-9 * q[1]->links[l].lat_s;
    T_CHECK(same, "table-built calibrated fabric: the same links");
    ar_platform_free(tb);
    for (int k = 0; k < 2; k++) ar_platform_free(q[k]), ar_platform_free(truth[k]);
    for (int i = 0; i < NCAL; i++) remove(path[i]), free(txt[i]);
    remove(cal);
    remove(dir);
    ar_nt_free(s);
    ar_platform_free(p);
}

/* ---- 5. an NVLS-dominated node: the NVSwitch's rate is a class of its own ----
 * Truth on one dgx-h100 node: latency x1.3, links bandwidth x0.9, the NVSwitch's (NVLS) rate x0.77: NVLS's
 * plateau at ~370 GB/s busbw instead of the preset's ~480; every efficiency 1; NCCL's own choice made on the
 * true model; 8 B .. 16 GiB (x2), 1 % noise. The calibration recovers each factor inside its interval, and
 * NCCL's model on the written JSON predicts the records with the same error per size bucket as the calibration
 * says (before, the NVLS rate was not a class: its efficiency was not separable, stayed 1, and the written JSON
 * was ~25 % off at every size >= 64 MB). */
static const double k_n_lat = 1.3, k_n_bw = 0.9, k_n_nvls = 0.77;

/* small_amp > 0: below 1 MB the noise is uniform in +-small_amp/2 instead (a latency-bound ring the links' bandwidth
 * cannot be read from, as in the public logs) */
static char *synth_nvls(const ar_platform *p, unsigned seed, double small_amp) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    T_CHECK(buf != NULL, "malloc");
    ar_err e = {{0}};
    ar_nccl_in in;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    in.tuner_only = 1; /* synthetic truth: the tuner's formula (what the fit scales) */
    in.cal_lat = k_n_lat, in.cal_bw = k_n_bw, in.cal_sw_bw[0] = k_n_nvls;
    len += log_header(buf + len, cap - len, p, 0);
    unsigned long long rng = seed;
    for (uint64_t b = 8; b <= (16ull << 30); b *= 2) {
        double noise = lcg_noise(&rng), t = 0;
        T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, (double)b, NULL, NULL, &t, &e), e);
        double u = lcg_uniform(&rng) - 0.5;
        t *= (small_amp > 0 && b < (1u << 20) ? 1 + small_amp * u : 1 + 0.01 * noise) * 1e6;
        len += log_row(buf + len, cap - len, b, t, 1.75, 0);
    }
    return log_end(buf, len, cap);
}

static void nvls_round_trip(double small_amp) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("dgx-h100", 0, &p, &e), e);
    printf("nvls370: noise below 1 MB %s\n", small_amp > 0 ? "uniform +-30 %" : "1 %");
    char *txt = synth_nvls(p, 31, small_amp);
    ar_nt_set *s = NULL;
    T_OK(ar_nt_read_mem("nvls370.txt", txt, strlen(txt), NULL, &s, &e), e);
    ar_ntfit_cal c;
    T_OK(ar_ntfit_calibrate(s, p, 1, 200, &c, &e), e);
    printf("nvls370: lat %.4f [%.4f, %.4f] ident %d; links bw %.4f [%.4f, %.4f] ident %d (%d records); NVLS rate %.4f "
           "[%.4f, %.4f] ident %d (%d records)\n",
           c.cls[0].lat, c.cls[0].lat_lo, c.cls[0].lat_hi, c.cls[0].lat_ident, c.cls[0].bw, c.cls[0].bw_lo,
           c.cls[0].bw_hi, c.cls[0].bw_ident, c.cls[0].bw_n, c.sw[0][0].bw, c.sw[0][0].lo, c.sw[0][0].hi,
           c.sw[0][0].ident, c.sw[0][0].n);
    T_CHECK(c.n == 32 && c.cls[0].n == 32 && c.cls[1].n == 0, "32 one-node records");
    /* the latency's interval is conditional on the links' bandwidth: where that is not identified (kept at 1, truth
     * 0.9: the noisy file), the latency absorbs it and its interval need not hold 1.3 */
    T_CHECK(!c.cls[0].lat_ident || !c.cls[0].bw_ident || (c.cls[0].lat_lo <= k_n_lat && k_n_lat <= c.cls[0].lat_hi),
            "latency 1.3 inside");
    T_CHECK(small_amp > 0 || c.cls[0].lat_ident, "latency identified (1 %% noise)");
    T_CHECK(c.sw[0][0].n > 0 && c.sw[0][0].ident && c.sw[0][0].lo <= k_n_nvls && k_n_nvls <= c.sw[0][0].hi,
            "NVLS rate 0.77 identified, inside its interval");
    T_CHECK(!c.cls[0].bw_ident || (c.cls[0].bw_lo <= k_n_bw && k_n_bw <= c.cls[0].bw_hi),
            "links bandwidth 0.9 inside its interval where identified");
    for (int g = 0; g < c.ngroups; g++) {
        printf("nvls370 group %s/%s n %d eff %.4f [%.4f, %.4f] ident %d\n", c.group[g].algo, c.group[g].proto,
               c.group[g].n, c.group[g].eff, c.group[g].lo, c.group[g].hi, c.group[g].ident);
        T_CHECK(!c.group[g].ident || (c.group[g].lo <= 1 && 1 <= c.group[g].hi), "%s/%s: 1 inside", c.group[g].algo,
                c.group[g].proto);
    }
    /* the JSON as the CLI writes it; NCCL's model on it (its own choice) against the records, per bucket */
    ar_ntcal_in in = cal_in("nvls370", &c);
    char *json = NULL;
    T_OK(ar_ntcal_platform_json(p, &in, &json, &e), e);
    ar_platform *q = NULL;
    T_OK(ar_platform_from_json(json, "nvls370.json", &q, &e), e);
    free(json);
    double err[3][64];
    int ne[3] = {0, 0, 0};
    for (int i = 0; i < s->nrecs; i++) {
        double t = 0, b = (double)s->recs[i].size_bytes, meas = s->recs[i].ip.time_us * 1e-6;
        T_OK(ar_nccl_model_platform(q, 0, AR_NCCL_ALLREDUCE, -1, b, NULL, NULL, &t, &e), e);
        int k = ar_ntfit_bucket3(b);
        err[k][ne[k]++] = fabs(t - meas) / meas;
    }
    for (int k = 0; k < 3; k++) {
        qsort(err[k], (size_t)ne[k], sizeof err[k][0], cmp_dbl);
        double med = ne[k] % 2 ? err[k][ne[k] / 2] : 0.5 * (err[k][ne[k] / 2 - 1] + err[k][ne[k] / 2]);
        printf("nvls370 bucket %d: n %d, JSON median |rel err| %.6f, calibration's %.6f\n", k, ne[k], med,
               c.bucket_med[k]);
        T_CHECK(ne[k] == c.bucket_n[k] && fabs(med - c.bucket_med[k]) <= 1e-6 + 0.01 * c.bucket_med[k],
                "bucket %d: the JSON's error %g = the calibration's %g", k, med, c.bucket_med[k]);
        /* >= 64 MB is NVLS at 1 % noise in both files: the NVSwitch's rate reproduces it (with the rate not a
         * class of its own, ~22 % off in the noisy file) */
        T_CHECK((small_amp > 0 && k < 2) || med < 0.015, "bucket %d: within the 1 %% noise (median %g)", k, med);
    }
    ar_platform_free(q);
    ar_nt_free(s);
    free(txt);
    ar_platform_free(p);
}

/* ---- 6. LogGP o from the small sizes ----
 * Truth: NCCL's model on dgx-h100:nodes=N (its own choice) plus 2 o per network message of NCCL's tree between
 * nodes (ar_ntfit_msg_chain), o = 3 us, 1 % noise; sizes lo..hi (x2). Fitted back inside its interval; a log
 * without sizes below 64 KB, and a one-node log, say o is not identified; the calibrated file carries
 * compute.message and loads back (also as CAL.json:nodes=2). */
static char *synth_msg(const ar_platform *p, uint64_t lo, uint64_t hi, double o, unsigned seed) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    T_CHECK(buf != NULL, "malloc");
    len += log_header(buf + len, cap - len, p, 1);
    ar_err e = {{0}};
    ar_nccl_in in;
    T_OK(ar_nccl_in_from_platform(p, 0, &in, &e), e);
    in.tuner_only = 1; /* synthetic truth: the tuner's formula (what the fit scales) */
    unsigned long long rng = seed;
    for (uint64_t b = lo; b <= hi; b *= 2) {
        double noise = lcg_noise(&rng), t = 0;
        T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, -1, (double)b, NULL, NULL, &t, &e), e);
        t = (t + 2.0 * ar_ntfit_msg_chain(p->nmachines) * o) * (1 + 0.01 * noise) * 1e6;
        len += log_row(buf + len, cap - len, b, t, 1.0, 0);
    }
    return log_end(buf, len, cap);
}

static void msg_fit_one(const char *plat, uint64_t lo, uint64_t hi, int want_ident, ar_ntfit_msg *m) {
    ar_err e = {{0}};
    ar_platform *p = NULL, *p1 = NULL;
    T_OK(ar_platform_load(plat, 0, &p, &e), e);
    T_OK(ar_platform_load("dgx-h100", 0, &p1, &e), e);
    char *txt = synth_msg(p, lo, hi, 3e-6, 41);
    ar_nt_set *s = NULL;
    T_OK(ar_nt_read_mem("msg.txt", txt, strlen(txt), NULL, &s, &e), e);
    T_OK(ar_ntfit_msg_fit(s, p1, 1, 200, m, &e), e);
    printf("o %s %llu..%llu B: n %d o %.4g [%.4g, %.4g] us ident %d%s%s\n", plat, (unsigned long long)lo,
           (unsigned long long)hi, m->n, m->o * 1e6, m->o_lo * 1e6, m->o_hi * 1e6, m->o_ident, m->o_ident ? "" : ": ",
           m->why);
    T_CHECK(m->o_ident == want_ident, "%s: o identified %d, expected %d", plat, m->o_ident, want_ident);
    if (want_ident) {
        T_CHECK(m->o_lo <= 3e-6 && 3e-6 <= m->o_hi, "o: true 3 us outside [%g, %g]", m->o_lo, m->o_hi);
        T_CHECK(fabs(m->o / 3e-6 - 1) < 0.15, "o: fitted %g, true 3 us", m->o);
        T_CHECK(m->nodes_lo == p->nmachines && m->nodes_hi == p->nmachines, "o: node counts %d..%d", m->nodes_lo,
                m->nodes_hi);
    } else {
        T_CHECK(m->o == 0 && m->why[0], "o not identified: value %g, reason \"%s\"", m->o, m->why);
    }
    ar_nt_free(s);
    free(txt);
    ar_platform_free(p);
    ar_platform_free(p1);
}

static void msg_round_trip(void) {
    ar_ntfit_msg m;
    T_CHECK(ar_ntfit_msg_chain(1) == 0 && ar_ntfit_msg_chain(2) == 2 && ar_ntfit_msg_chain(3) == 4 &&
                ar_ntfit_msg_chain(8) == 6,
            "chain");
    msg_fit_one("dgx-h100:nodes=4", 8, 1u << 20, 1, &m);
    msg_fit_one("dgx-h100:nodes=2", 8, 1u << 20, 1, &m);
    ar_ntfit_msg big;
    msg_fit_one("dgx-h100:nodes=2", 64u << 10, 1u << 26, 0, &big);
    T_CHECK(big.n == 0, "no record below 64 KB: n %d", big.n);
    ar_ntfit_msg one;
    msg_fit_one("dgx-h100", 8, 1u << 20, 0, &one);

    /* the calibrated file carries compute.message and loads back */
    ar_err e = {{0}};
    ar_platform *p2 = NULL, *q = NULL;
    T_OK(ar_platform_load("dgx-h100:nodes=2", 0, &p2, &e), e);
    ar_ntcal_in in = {.name = "msgcal",
                      .lat_scale = 1,
                      .bw_scale = 1,
                      .calibrated = 1,
                      .cal_lat = {1, 1},
                      .cal_bw = {1, 1},
                      .base = "dgx-h100",
                      .have_msg = 1,
                      .msg_o = m.o,
                      .msg_g = 0.5e-6};
    char *json = NULL;
    T_OK(ar_ntcal_platform_json(p2, &in, &json, &e), e);
    T_CHECK(strstr(json, "\"message\"") != NULL, "compute.message written");
    T_OK(ar_platform_from_json(json, "msgcal", &q, &e), e);
    T_CHECK(fabs(q->msg_o_s - m.o) <= 1e-15 && fabs(q->msg_g_s - 0.5e-6) <= 1e-15, "loaded o %g g %g", q->msg_o_s,
            q->msg_g_s);
    ar_platform_free(q);
    q = NULL;
    const char *path = "./test_ntfit_msgcal.json"; /* in the test's working directory */
    FILE *f = fopen(path, "w");
    T_CHECK(f && fputs(json, f) >= 0 && fclose(f) == 0, "write %s", path);
    char spec[4200];
    snprintf(spec, sizeof spec, "%s:nodes=2", path);
    T_OK(ar_platform_load(spec, 0, &q, &e), e);
    T_CHECK(q->nmachines == 2 && fabs(q->msg_o_s - m.o) <= 1e-15 && fabs(q->msg_g_s - 0.5e-6) <= 1e-15,
            "CAL.json:nodes=2: machines %d o %g g %g", q->nmachines, q->msg_o_s, q->msg_g_s);
    remove(path);
    ar_platform_free(q);
    ar_platform_free(p2);
    free(json);
}

int main(int argc, char **argv) {
    ar_err e = {{0}};
    if (argc == 3 && !strcmp(argv[1], "--synth")) { /* the files of section 4 into a directory (cli_fit.sh) */
        char *txt[NCAL];
        synth_cal_all(txt);
        for (int i = 0; i < NCAL; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[2], k_cal_files[i]);
            FILE *f = fopen(path, "w");
            T_CHECK(f && fputs(txt[i], f) >= 0 && fclose(f) == 0, "write %s", path);
            free(txt[i]);
        }
        ar_platform *p1 = NULL;
        T_OK(ar_platform_load("dgx-h100", 0, &p1, &e), e);
        for (int k = 0; k < 2; k++) {
            char *nv = synth_nvls(p1, 31, k ? 0.6 : 0), path[4096];
            snprintf(path, sizeof path, "%s/nvls370%s_1node_auto.txt", argv[2], k ? "_noisy" : "");
            FILE *f = fopen(path, "w");
            T_CHECK(f && fputs(nv, f) >= 0 && fclose(f) == 0, "write %s", path);
            free(nv);
        }
        ar_platform_free(p1);
        return 0;
    }
    msg_round_trip();
    cal_round_trip();
    nvls_round_trip(0);
    nvls_round_trip(0.6);
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
    /* the per-class calibration says the same: intra-node latency kept at 1, the bandwidth fitted (these files
     * have 0.8 on every group), the inter-node class without data kept at 1 */
    ar_ntfit_cal cb;
    T_OK(ar_ntfit_calibrate(s, p, 1, 200, &cb, &e), e);
    printf("big only, calibration: intra lat %.4f ident %d, bw %.4f [%.4f, %.4f] ident %d; inter n %d\n", cb.cls[0].lat,
           cb.cls[0].lat_ident, cb.cls[0].bw, cb.cls[0].bw_lo, cb.cls[0].bw_hi, cb.cls[0].bw_ident, cb.cls[1].n);
    T_CHECK(!cb.cls[0].lat_ident && cb.cls[0].lat == 1 && cb.cls[0].lat_lo == 1 && cb.cls[0].lat_hi == 1,
            "intra latency unidentified, kept at 1");
    /* >= 256 MiB on one node: NCCL's model runs NVLS, whose rate is the NVSwitch's (not the links') */
    printf("big only, calibration: links records %d; NVLS rate n %d %.4f [%.4f, %.4f] ident %d\n", cb.cls[0].bw_n,
           cb.sw[0][0].n, cb.sw[0][0].bw, cb.sw[0][0].lo, cb.sw[0][0].hi, cb.sw[0][0].ident);
    T_CHECK(cb.cls[0].bw_n == 0 && cb.cls[0].bw == 1, "no records on the links: links bandwidth kept at 1");
    T_CHECK(cb.sw[0][0].n == 3 && cb.sw[0][0].ident && cb.sw[0][0].lo <= 0.8 && 0.8 <= cb.sw[0][0].hi,
            "intra NVLS rate identified, 0.8 inside its interval");
    T_CHECK(cb.cls[1].n == 0 && !cb.cls[1].lat_ident && !cb.cls[1].bw_ident && cb.cls[1].lat == 1 && cb.cls[1].bw == 1,
            "inter-node: no data, kept at 1");
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
