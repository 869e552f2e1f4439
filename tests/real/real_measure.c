/* real/ host logic, part 2: nccl-tests' bandwidth formulas, statistics, the
 * exact-input pattern and half-precision conversions, machines from host
 * keys, result rows and CSV (write, read back, columns shared with
 * `arlab sim`), the GSL alpha/beta fit on synthetic data, and the calibrated
 * platform JSON (loads, and its routes give back the fitted alpha and bw). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/platform/platform.h"
#include "calib/rcalib.h"
#include "real/rmeasure.h"
#include "../t.h"

static void test_busbw(void) {
    /* nccl-tests doc/PERFORMANCE.md: factors per collective */
    for (int n = 1; n <= 64; n++) {
        double N = n;
        T_NEAR(ar_real_busbw_factor(AR_COLL_ALL_REDUCE, n) + 1, 2 * (N - 1) / N + 1, 1e-15, "allreduce factor");
        T_NEAR(ar_real_busbw_factor(AR_COLL_REDUCE_SCATTER, n) + 1, (N - 1) / N + 1, 1e-15, "rs factor");
        T_NEAR(ar_real_busbw_factor(AR_COLL_ALL_GATHER, n) + 1, (N - 1) / N + 1, 1e-15, "ag factor");
        T_CHECK(ar_real_busbw_factor(AR_COLL_REDUCE, n) == 1 && ar_real_busbw_factor(AR_COLL_BROADCAST, n) == 1 &&
                    ar_real_busbw_factor(AR_COLL_SENDRECV, n) == 1,
                "reduce/broadcast/sendrecv factor 1");
    }
    double alg, bus;
    /* 8 ranks, 1 GB all-reduce in 10 ms: algbw 100 GB/s, busbw 175 GB/s */
    ar_real_bw(AR_COLL_ALL_REDUCE, 1e9, 0.01, 8, &alg, &bus);
    T_NEAR(alg, 100.0, 1e-12, "algbw");
    T_NEAR(bus, 175.0, 1e-12, "busbw allreduce");
    ar_real_bw(AR_COLL_ALL_GATHER, 4e8, 0.004, 4, &alg, &bus);
    T_NEAR(alg, 100.0, 1e-12, "algbw ag");
    T_NEAR(bus, 75.0, 1e-12, "busbw ag");
    ar_real_bw(AR_COLL_BROADCAST, 4e8, 0.004, 4, &alg, &bus);
    T_NEAR(bus, 100.0, 1e-12, "busbw bcast");
    ar_real_bw(AR_COLL_ALL_REDUCE, 1e9, 0, 8, &alg, &bus);
    T_CHECK(isnan(alg) && isnan(bus), "zero time gives NaN");
}

static void test_stats(void) {
    double t[] = {5, 1, 4, 2, 3}, med, mn, mx;
    T_OK(ar_real_stats(t, 5, &med, &mn, &mx));
    T_CHECK(med == 3 && mn == 1 && mx == 5 && t[0] == 5, "odd: %g %g %g (input untouched)", med, mn, mx);
    T_OK(ar_real_stats(t, 4, &med, &mn, &mx));
    T_CHECK(med == 3 && mn == 1 && mx == 5, "even: median of 5 1 4 2 is %g", med);
    T_OK(ar_real_stats(t, 0, &med, &mn, &mx));
    T_CHECK(isnan(med) && isnan(mn) && isnan(mx), "empty");
}

static void test_inputs(void) {
    T_CHECK(ar_real_pattern_m(AR_DTYPE_F32, 4) == 1021, "f32 m");
    T_CHECK(ar_real_pattern_m(AR_DTYPE_F16, 4) == 512, "f16 m");
    T_CHECK(ar_real_pattern_m(AR_DTYPE_BF16, 8) == 32, "bf16 m for 8 ranks");
    T_CHECK(ar_real_pattern_m(AR_DTYPE_BF16, 300) == 0, "bf16 cannot be exact for 300 ranks");
    ar_dtype types[] = {AR_DTYPE_F32, AR_DTYPE_F16, AR_DTYPE_BF16, AR_DTYPE_F64, AR_DTYPE_I32};
    for (int ti = 0; ti < 5; ti++)
        for (int P = 1; P <= 256; P = P * 2 + 1) {
            int m = ar_real_pattern_m(types[ti], P);
            if (!m) continue;
            /* the largest sum, P*m, is exact, and so is every partial sum below it */
            T_CHECK((double)P * m <= ar_real_exact_limit(types[ti]), "%s P=%d m=%d", ar_dtype_name(types[ti]), P, m);
            double *tab = calloc((size_t)m, sizeof *tab);
            ar_real_expected_table(P, m, tab);
            double direct = 0;
            for (int r = 0; r < P; r++) direct += ar_real_input(r, (uint64_t)(m + 3), m);
            T_CHECK(tab[3 % m] == direct, "table");
            /* fill, count wrong through the type's conversion: the exact sums round-trip */
            uint64_t cnt = (uint64_t)m * 3 + 1;
            void *buf = calloc((size_t)cnt, 8);
            ar_real_fill(buf, types[ti], 0, cnt, m);
            uint64_t first = 0;
            /* rank 0's inputs are not the sum unless P == 1 */
            uint64_t bad = ar_real_count_wrong(buf, types[ti], cnt, tab, m, &first);
            T_CHECK(P == 1 ? bad == 0 : bad == cnt, "%s P=%d: %llu wrong of %llu", ar_dtype_name(types[ti]), P,
                    (unsigned long long)bad, (unsigned long long)cnt);
            free(buf);
            free(tab);
        }
    /* half conversions: every integer up to the exact limit round-trips; rounding to even above */
    for (int v = 0; v <= 2048; v++) T_CHECK(ar_real_f16_to_f32(ar_real_f32_to_f16((float)v)) == (float)v, "f16 %d", v);
    for (int v = 0; v <= 256; v++)
        T_CHECK(ar_real_bf16_to_f32(ar_real_f32_to_bf16((float)v)) == (float)v, "bf16 %d", v);
    T_CHECK(ar_real_f16_to_f32(ar_real_f32_to_f16(2049.0f)) == 2048.0f, "f16 2049 -> 2048 (even)");
    T_CHECK(ar_real_f16_to_f32(ar_real_f32_to_f16(2051.0f)) == 2052.0f, "f16 2051 -> 2052 (even)");
    T_CHECK(ar_real_bf16_to_f32(ar_real_f32_to_bf16(257.0f)) == 256.0f, "bf16 257 -> 256");
    T_CHECK(ar_real_f32_to_f16(1.0f) == 0x3c00 && ar_real_f32_to_f16(-2.0f) == 0xc000, "f16 bits");
    T_CHECK(ar_real_f32_to_bf16(1.0f) == 0x3f80, "bf16 bits");
    T_CHECK(ar_real_f32_to_f16(1e6f) == 0x7c00, "f16 overflow -> inf");
    T_NEAR(ar_real_f16_to_f32(ar_real_f32_to_f16(5.9604645e-8f)), 5.9604645e-8, 1e-6, "f16 smallest subnormal");
    T_CHECK(isnan(ar_real_f16_to_f32(ar_real_f32_to_f16(NAN))) && isnan(ar_real_bf16_to_f32(ar_real_f32_to_bf16(NAN))),
            "NaN stays NaN");
}

static void test_machines(void) {
    const char *k1[] = {"a", "a", "b", "b", "c"};
    int m[5], nm = 0;
    ar_err e = {{0}};
    T_OK(ar_real_machines_from_keys(k1, 5, m, &nm, &e));
    T_CHECK(nm == 3 && m[0] == 0 && m[1] == 0 && m[2] == 1 && m[3] == 1 && m[4] == 2, "machines a a b b c");
    const char *k2[] = {"a", "b", "a"};
    T_CHECK(ar_real_machines_from_keys(k2, 3, m, &nm, &e) == AR_EUNSUPPORTED && strstr(e.msg, "rank 2") &&
                strstr(e.msg, "--map-by"),
            "interleaved machines refused: %s", e.msg);
}

static void test_csv(void) {
    /* the first columns are arlab sim's, with measured_s in place of sim_s */
    T_CHECK(!strcmp(ar_real_cols[0], "algo") && !strcmp(ar_real_cols[1], "platform") &&
                !strcmp(ar_real_cols[2], "ranks") && !strcmp(ar_real_cols[3], "bytes") &&
                !strcmp(ar_real_cols[4], "measured_s") && !strcmp(ar_real_cols[5], "model_s") &&
                !strcmp(ar_real_cols[6], "rel_err"),
            "leading columns");
    ar_real_row rows[3];
    memset(rows, 0, sizeof rows);
    snprintf(rows[0].algo, sizeof rows[0].algo, "nccl-allreduce");
    snprintf(rows[1].algo, sizeof rows[1].algo, "blueconnect:decomp=2x2,impl=ring+hd");
    snprintf(rows[2].algo, sizeof rows[2].algo, "blueconnect:decomp=2x2,impl=ring+hd");
    for (int i = 0; i < 3; i++) {
        snprintf(rows[i].platform, sizeof rows[i].platform, "machines:gpus=2+2");
        snprintf(rows[i].dtype, sizeof rows[i].dtype, "f32");
        snprintf(rows[i].lowering, sizeof rows[i].lowering, i ? "auto" : "nccl");
        rows[i].ranks = 4;
        rows[i].bytes = 16e6;
        rows[i].measured_s = 1e-3 * (i + 1);
        rows[i].min_s = rows[i].measured_s * 0.9;
        rows[i].max_s = rows[i].measured_s * 1.2;
        rows[i].model_s = i ? 1.5e-3 : NAN;
        rows[i].nccl_s = 1e-3;
        rows[i].iters = 20;
        rows[i].inplace = i != 2;
        rows[i].wrong = 0;
        ar_real_row_derive(&rows[i]);
    }
    T_NEAR(rows[1].algbw_GBps, 8.0, 1e-12, "algbw 16 MB / 2 ms");
    T_NEAR(rows[1].busbw_GBps, 12.0, 1e-12, "busbw = algbw * 2*3/4");
    T_NEAR(rows[1].rel_err, 1.0 / 3.0, 1e-12, "rel_err (2 - 1.5) / 1.5");
    T_NEAR(rows[2].vs_nccl, 3.0, 1e-12, "vs_nccl");
    T_CHECK(isnan(rows[0].rel_err), "baseline has no model");
    char path[] = "/tmp/arlab-real-csv-XXXXXX";
    int fd = mkstemp(path);
    T_CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    ar_real_csv_header(f);
    for (int i = 0; i < 3; i++) ar_real_csv_row(f, &rows[i]);
    fclose(f);
    /* the header line is exactly the documented column list (the last five added later; the reader
     * below ignores them) */
    f = fopen(path, "r");
    char line[1024] = {0};
    T_CHECK(fgets(line, sizeof line, f) != NULL, "header");
    fclose(f);
    T_CHECK(!strcmp(line,
                    "algo,platform,ranks,bytes,measured_s,model_s,rel_err,min_s,max_s,algbw_GBps,busbw_GBps,"
                    "wrong,inplace,dtype,iters,lowering,nccl_s,vs_nccl,empty_s,timing,placement,transport,graph\n"),
            "header: %s", line);
    ar_real_row *back = NULL;
    int n = 0;
    ar_err e = {{0}};
    T_OK(ar_real_csv_read(path, &back, &n, &e));
    T_CHECK(n == 3, "read %d rows", n);
    for (int i = 0; i < n && i < 3; i++) {
        T_CHECK(!strcmp(back[i].algo, rows[i].algo), "algo with a comma survives quoting: %s", back[i].algo);
        T_CHECK(back[i].ranks == 4 && back[i].bytes == 16e6 && back[i].inplace == rows[i].inplace, "fields");
        T_NEAR(back[i].measured_s, rows[i].measured_s, 1e-9, "measured_s");
        T_NEAR(back[i].busbw_GBps, rows[i].busbw_GBps, 1e-3, "busbw");
        T_CHECK(!strcmp(back[i].lowering, rows[i].lowering) && !strcmp(back[i].dtype, "f32"), "strings");
    }
    if (n == 3) T_CHECK(isnan(back[0].model_s), "nan model survives");
    const ar_real_row *r = ar_real_rows_find(back, n, rows[1].algo, 4, 16e6, 0);
    T_CHECK(r && r->inplace == 0 && r->measured_s > 2.5e-3, "find out-of-place row");
    r = ar_real_rows_find(back, n, rows[1].algo, 4, 16e6, 1);
    T_CHECK(r && r->inplace == 1, "find in-place row");
    T_CHECK(!ar_real_rows_find(back, n, rows[1].algo, 8, 16e6, 1), "other rank count: none");
    free(back);
    /* errors name the file and line */
    f = fopen(path, "w");
    fputs("algo,ranks,bytes,measured_s\nring,4,100,abc\n", f);
    fclose(f);
    T_CHECK(ar_real_csv_read(path, &back, &n, &e) == AR_EINVAL && strstr(e.msg, ":2:") && strstr(e.msg, "measured_s"),
            "bad number: %s", e.msg);
    f = fopen(path, "w");
    fputs("x,y\n", f);
    fclose(f);
    T_CHECK(ar_real_csv_read(path, &back, &n, &e) == AR_EINVAL && strstr(e.msg, "header"), "bad header: %s", e.msg);
    unlink(path);
    T_CHECK(ar_real_csv_read(path, &back, &n, &e) == AR_EIO, "missing file");
}

static void test_fit(void) {
    /* synthetic t = alpha + beta x, exactly: both fits recover it to 1e-9 */
    double alpha = 7.5e-6, beta = 1.0 / 24e9;
    double x[13], t[13];
    int n = 0;
    for (double b = 8; b <= 134217728.0; b *= 4) {
        x[n] = b;
        t[n] = alpha + beta * b;
        n++;
    }
    ar_err e = {{0}};
    for (int w = 0; w < 2; w++) {
        ar_real_fit f;
        T_OK(ar_real_fit_linear(x, t, n, w, &f, &e));
        T_NEAR(f.alpha_s, alpha, 1e-9, w ? "weighted alpha" : "alpha");
        T_NEAR(f.beta_s_per_B, beta, 1e-9, w ? "weighted beta" : "beta");
        T_NEAR(f.bw_Bps, 24e9, 1e-9, "bw");
        T_NEAR(f.r2, 1.0, 1e-9, "r2");
        T_CHECK(f.max_rel_resid < 1e-9 && f.n == n && f.weighted == w, "residual %g", f.max_rel_resid);
    }
    /* with noise: the relative-error fit keeps alpha, the plain one loses it to the large sizes */
    double tn[13];
    for (int i = 0; i < n; i++) tn[i] = t[i] * (1.0 + ((i % 2) ? 0.02 : -0.02));
    ar_real_fit fw, fa;
    T_OK(ar_real_fit_linear(x, tn, n, 1, &fw, &e));
    T_OK(ar_real_fit_linear(x, tn, n, 0, &fa, &e));
    T_CHECK(fabs(fw.alpha_s - alpha) / alpha < 0.05, "weighted alpha within 5%%: %g", fw.alpha_s);
    T_CHECK(fabs(fw.beta_s_per_B - beta) / beta < 0.05 && fabs(fa.beta_s_per_B - beta) / beta < 0.05, "beta");
    T_CHECK(fabs(fa.alpha_s - alpha) / alpha > fabs(fw.alpha_s - alpha) / alpha, "plain fit: alpha %g is further off",
            fa.alpha_s);
    /* bad input */
    T_CHECK(ar_real_fit_linear(x, t, 1, 0, &fa, &e) == AR_EINVAL, "one point");
    double same[3] = {5, 5, 5};
    T_CHECK(ar_real_fit_linear(same, t, 3, 0, &fa, &e) == AR_EINVAL && strstr(e.msg, "same size"), "same x");
    double neg[3] = {1, -1, 2};
    T_CHECK(ar_real_fit_linear(x, neg, 3, 1, &fa, &e) == AR_EINVAL, "weighted needs t > 0");
    /* the intercept's 95 % interval, by hand: x = 0..3, t = 1 3 2 4: alpha 1.3, residual variance 1.8 / 2,
     * var(alpha) = 0.9 (1/4 + 1.5^2 / 5) = 0.63; Student's t(0.975, 2 dof) = 0.95 / sqrt(2 x 0.975 x 0.025) */
    double hx[4] = {0, 1, 2, 3}, ht[4] = {1, 3, 2, 4}, ht10[4];
    T_OK(ar_real_fit_linear(hx, ht, 4, 0, &fa, &e));
    T_NEAR(fa.alpha_s, 1.3, 1e-12, "hand fit alpha");
    T_NEAR(ar_real_fit_alpha_halfwidth(&fa, 0.95), 0.95 / sqrt(2 * 0.975 * 0.025) * sqrt(0.63), 1e-9, "alpha interval");
    /* a weighted fit's interval scales with the times (relative weights: the residuals set the scale) */
    for (int i = 0; i < 4; i++) ht10[i] = 10 * ht[i];
    T_OK(ar_real_fit_linear(hx, ht, 4, 1, &fw, &e));
    double h1 = ar_real_fit_alpha_halfwidth(&fw, 0.95);
    T_OK(ar_real_fit_linear(hx, ht10, 4, 1, &fw, &e));
    T_NEAR(ar_real_fit_alpha_halfwidth(&fw, 0.95), 10 * h1, 1e-9, "weighted interval scales with t");
    T_CHECK(h1 > 0, "weighted interval %g > 0", h1);
    T_OK(ar_real_fit_linear(hx, ht, 2, 0, &fa, &e));
    T_CHECK(isnan(ar_real_fit_alpha_halfwidth(&fa, 0.95)), "two points: no interval");
}

static void test_calib_json(void) {
    ar_err e = {{0}};
    ar_real_calib c;
    memset(&c, 0, sizeof c);
    int mach[6] = {0, 0, 0, 1, 1, 1};
    c.name = "cal-test";
    c.nranks = 6;
    c.nmachines = 2;
    c.machine_of_rank = mach;
    c.have_intra = c.have_inter = 1;
    c.intra.alpha_s = 4e-6;
    c.intra.beta_s_per_B = 1.0 / 100e9;
    c.inter.alpha_s = 20e-6;
    c.inter.beta_s_per_B = 1.0 / 12.5e9;
    c.note = "test note";
    char *json = NULL;
    T_OK(ar_real_calib_json(&c, &json, &e));
    ar_platform *p = NULL;
    if (json) T_OK(ar_platform_from_json(json, "calibrated.json", &p, &e));
    if (p) {
        T_CHECK(p->nranks == 6 && p->nmachines == 2 && !strcmp(p->name, "cal-test"), "6 ranks on 2 machines");
        T_NEAR(ar_platform_route_lat(p, 0, 1), 4e-6, 1e-12, "intra route latency = alpha_intra");
        T_NEAR(ar_platform_route_bw(p, 0, 2), 100e9, 1e-12, "intra route bw = 1/beta_intra");
        T_NEAR(ar_platform_route_lat(p, 0, 5), 20e-6, 1e-12, "inter route latency = alpha_inter");
        T_NEAR(ar_platform_route_bw(p, 2, 3), 12.5e9, 1e-12, "inter route bw = 1/beta_inter");
        T_CHECK(p->nlevels == 2 && p->levels[0].fanout == 3 && p->levels[1].fanout == 2, "symmetric levels: %d",
                p->nlevels);
        T_CHECK(p->nnotes >= 3, "notes carry the fit");
        ar_platform_free(p);
    }
    free(json);
    /* one machine: only the intra class */
    int one[4] = {0, 0, 0, 0};
    c.nranks = 4;
    c.nmachines = 1;
    c.machine_of_rank = one;
    c.have_inter = 0;
    T_OK(ar_real_calib_json(&c, &json, &e));
    p = NULL;
    if (json) T_OK(ar_platform_from_json(json, "one.json", &p, &e));
    if (p) {
        T_CHECK(p->nranks == 4 && p->nmachines == 1, "one machine");
        T_NEAR(ar_platform_route_lat(p, 1, 3), 4e-6, 1e-12, "one machine: alpha");
        ar_platform_free(p);
    }
    free(json);
    /* machines of one GPU: only the inter class */
    int sep[3] = {0, 1, 2};
    c.nranks = 3;
    c.nmachines = 3;
    c.machine_of_rank = sep;
    c.have_intra = 0;
    c.have_inter = 1;
    T_OK(ar_real_calib_json(&c, &json, &e));
    p = NULL;
    if (json) T_OK(ar_platform_from_json(json, "sep.json", &p, &e));
    if (p) {
        T_NEAR(ar_platform_route_lat(p, 0, 2), 20e-6, 1e-12, "inter only: alpha");
        T_NEAR(ar_platform_route_bw(p, 0, 2), 12.5e9, 1e-12, "inter only: bw");
        ar_platform_free(p);
    }
    free(json);
    c.have_inter = 0;
    T_CHECK(ar_real_calib_json(&c, &json, &e) == AR_EINVAL, "nothing measured");
    c.have_inter = 1;
    c.inter.beta_s_per_B = -1;
    T_CHECK(ar_real_calib_json(&c, &json, &e) == AR_EFAIL && strstr(e.msg, "slope"), "negative slope: %s", e.msg);
}

int main(void) {
    test_busbw();
    test_stats();
    test_inputs();
    test_machines();
    test_csv();
    test_fit();
    test_calib_json();
    return t_done("real_measure");
}
