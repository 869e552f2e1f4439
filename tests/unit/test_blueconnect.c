/* BlueConnect (algos/blueconnect.c, models/blueconnect_model.c):
 *   - the validator and the host executor accept its schedules on every
 *     preset and on >= 500 random trees (asymmetric ones too: the fallback
 *     ring, and explicit random decompositions, orders and ring/hd mixes),
 *     with uneven counts (count < P, primes);
 *   - Eq. 9 on blueconnect-12 and blueconnect-192 at 100 MB equals the
 *     hand-computed values below, and the generic walk over the schedule
 *     equals Eq. 9 to 1e-9 there and on random symmetric trees (count a
 *     multiple of P, any order, ring/hd, splits of a level);
 *   - Eq. 10 equals the walk on a torus with ring stages;
 *   - bad parameters fail with AR_EINVAL / AR_EUNSUPPORTED naming the value.
 */
#include <string.h>

#include "algos/blueconnect.h"
#include "core/algo.h"
#include "core/util.h"
#include "models/model.h"
#include "../randtopo.h"
#include "../t.h"
#include "../t_plan.h"

/* walk(schedule of spec) vs Eq. 9/10 for count elements of 4 bytes. */
static void check_walk_eq9(const ar_platform *p, const char *spec, uint64_t count, double rel, const char *what) {
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    ar_model_result walk, closed;
    T_OK(ar_algo_plan(spec, p, count, 4, &s, &e));
    if (!s) return;
    ar_status st = ar_model_walk(p, s, &walk, &e);
    T_CHECK(st == AR_OK, "%s: walk: %s", what, e.msg);
    ar_status sc = ar_algo_closed(spec, p, count, 4, &closed, &e);
    T_CHECK(sc == AR_OK, "%s: closed form of %s: %s", what, spec, e.msg);
    if (st == AR_OK && sc == AR_OK) {
        char w[200];
        snprintf(w, sizeof w, "%s: walk vs Eq. 9/10 for %s", what, spec);
        T_NEAR(walk.time_s, closed.time_s, rel, w);
    }
    ar_schedule_free(s);
}

/* A random ordered factorization of P into factors > 1, a random order and a
 * random ring/hd mix, as "decomp=..,order=..,impl=.." (P > 1). */
static void random_decomp(rt_rng *g, int P, char *buf, size_t n) {
    ar_bc_decomp d;
    memset(&d, 0, sizeof d);
    int left = P;
    while (left > 1) {
        int divs[64], nd = 0;
        for (int x = 2; x <= left && nd < 64; x++)
            if (left % x == 0) divs[nd++] = x;
        d.p[d.k++] = divs[rt_int(g, 0, nd - 1)];
        left /= d.p[d.k - 1];
    }
    for (int i = 0; i < d.k; i++) d.order[i] = i;
    for (int i = d.k - 1; i > 0; i--) {
        int j = rt_int(g, 0, i), t = d.order[i];
        d.order[i] = d.order[j];
        d.order[j] = t;
    }
    for (int i = 0; i < d.k; i++) d.impl[i] = ar_is_pow2(d.p[i]) && rt_int(g, 0, 1) ? AR_IMPL_HD : AR_IMPL_RING;
    ar_bc_format(&d, buf, n);
}

static uint64_t random_count(rt_rng *g, int P) {
    static const uint64_t primes[] = {2, 3, 7, 13, 31, 61, 97, 257, 1009};
    switch (rt_int(g, 0, 4)) {
    case 0: return (uint64_t)rt_int(g, 1, P > 1 ? P - 1 : 1); /* count < P */
    case 1: return primes[rt_int(g, 0, 8)];
    case 2: return (uint64_t)P * (uint64_t)rt_int(g, 1, 20);
    default: return (uint64_t)rt_int(g, 1, 1500);
    }
}

static void test_presets(void) {
    char **names = NULL;
    int n = 0;
    ar_err e = {{0}};
    T_OK(ar_platform_list_presets(&names, &n, &e));
    T_CHECK(n >= 10, "only %d presets", n);
    for (int i = 0; i < n; i++) {
        ar_platform *p = load_spec(names[i]);
        if (!p) {
            free(names[i]);
            continue;
        }
        static const uint64_t counts[] = {1, 5, 97, 1000};
        for (int c = 0; c < 4; c++) check_plan(p, "blueconnect", counts[c], names[i]);
        check_plan(p, "blueconnect:impl=ring", (uint64_t)p->nranks * 3 + 1, names[i]);
        ar_platform_free(p);
        free(names[i]);
    }
    free(names);
}

static void test_random(void) {
    rt_rng g = rt_seed(3);
    int ok = 0, explicit_ok = 0;
    for (int t = 0; t < 600; t++) {
        char desc[160], decomp[200], spec[256];
        int forced = t % 7 == 0 ? (int[]){7, 13, 31, 61, 12, 64, 1}[t / 7 % 7] : 0;
        ar_platform *p = load_json_text(rt_platform_json(&g, (rt_shape)(t % RT_NSHAPES), forced, desc, sizeof desc),
                                        desc);
        if (!p) continue;
        uint64_t count = random_count(&g, p->nranks);
        ok += check_plan(p, "blueconnect", count, desc);
        if (p->nranks > 1) {
            random_decomp(&g, p->nranks, decomp, sizeof decomp);
            snprintf(spec, sizeof spec, "blueconnect:%s", decomp);
            explicit_ok += check_plan(p, spec, random_count(&g, p->nranks), desc);
        }
        if (p->nlevels == 0 && p->nranks > 1) { /* asymmetric: the paper's fallback */
            ar_schedule *s = NULL;
            ar_err e = {{0}};
            T_OK(ar_algo_plan("blueconnect", p, 10, 4, &s, &e));
            T_CHECK(s && s->detail && strstr(s->detail, "fallback: one-level ring (no symmetric decomposition)"),
                    "%s: detail %s", desc, s && s->detail ? s->detail : "(none)");
            T_CHECK(s && s->nphases == 2 && s->phases[0].nops == 1 && s->phases[0].ops[0].n == p->nranks,
                    "%s: fallback is one ring over all ranks", desc);
            ar_schedule_free(s);
        }
        ar_platform_free(p);
    }
    T_CHECK(ok >= 500, "only %d random trees validated (default decomposition)", ok);
    T_CHECK(explicit_ok >= 400, "only %d random explicit decompositions validated", explicit_ok);
    printf("random trees: %d default plans and %d explicit decompositions validated and executed\n", ok, explicit_ok);
}

/* Eq. 9 on the presets, by hand (N = 1e8 B; alpha = 2 x 1 us per level crossed):
 * blueconnect-12: levels 3 (32 GB/s), 2 (100 Gb/s = 12.5e9), 2 (200 Gb/s = 25e9);
 *   default ring + hd + hd; F = 1, 3, 6 GPUs under a level-0/1/2 link.
 *   stage 0: Tr(3, 1e8, 2us, 32e9)           = 4e-6 + (2/3) 1e8/32e9   = 2.0873333e-3
 *   stage 1: Tc(2, 1e8/3, 4us, 12.5e9/3)      = 4e-6 + (1/2) 1e8/12.5e9 = 4.004e-3
 *   stage 2: Tc(2, 1e8/6, 6us, min(12.5e9/3, 25e9/6)) = 6e-6 + (1/2) 1e8/25e9 = 2.006e-3
 *   T = 2 x 8.0973333e-3 = 16.1946667e-3 s
 * blueconnect-192: levels 4 (2 x 20 GB/s), 16 (100 Gb/s), 3 (16 x 100 Gb/s = 200e9);
 *   default hd + hd + ring; F = 1, 4, 64.
 *   stage 0: Tc(4, 1e8, 2us, 40e9)            = 4e-6 + (3/4) 1e8/40e9   = 1.879e-3
 *   stage 1: Tc(16, 2.5e7, 4us, 12.5e9/4)     = 16e-6 + (15/16) 2.5e7/3.125e9 = 7.516e-3
 *   stage 2: Tr(3, 1.5625e6, 6us, min(3.125e9, 200e9/64)) = 12e-6 + (2/3) 1.5625e6/3.125e9 = 3.4533333e-4
 *   T = 2 x 9.7403333e-3 = 19.4806667e-3 s */
static void test_presets_eq9(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_model_result m;
    T_OK(ar_platform_load("blueconnect-12", 0, &p, &e));
    if (p) {
        T_OK(ar_algo_closed("blueconnect", p, 25000000, 4, &m, &e));
        T_NEAR(m.time_s, 2.0 * (4e-6 + 2.0 / 3.0 * 1e8 / 32e9 + 4.004e-3 + 2.006e-3), 1e-12, "Eq. 9 blueconnect-12");
        T_NEAR(m.time_s, 16.1946667e-3, 1e-8, "Eq. 9 blueconnect-12 (rounded)");
        T_CHECK(m.nstages == 6 && strstr(m.stages[2].label, "w2/6"), "stage 2 crosses w2 at w2/6: %s",
                m.stages[2].label);
        T_NEAR(m.stages[2].bw_Bps, 25e9 / 6, 1e-12, "blueconnect-12 stage 2 bandwidth w2/6");
        check_walk_eq9(p, "blueconnect", 24000000, 1e-9, "blueconnect-12 96MB");
        check_walk_eq9(p, "blueconnect:impl=ring", 24000000, 1e-9, "blueconnect-12 96MB");
        check_walk_eq9(p, "blueconnect:order=2.0.1", 1200000, 1e-9, "blueconnect-12");
        check_walk_eq9(p, "blueconnect:decomp=3x2x2,order=120,impl=ring+ring+hd", 1200000, 1e-9, "blueconnect-12");
        ar_platform_free(p);
    }
    T_OK(ar_platform_load("blueconnect-192", 0, &p, &e));
    if (p) {
        T_OK(ar_algo_closed("blueconnect", p, 25000000, 4, &m, &e));
        T_NEAR(m.time_s, 2.0 * (1.879e-3 + 7.516e-3 + 12e-6 + 2.0 / 3.0 * 1.5625e6 / 3.125e9), 1e-12,
               "Eq. 9 blueconnect-192");
        T_NEAR(m.time_s, 19.4806667e-3, 1e-8, "Eq. 9 blueconnect-192 (rounded)");
        check_walk_eq9(p, "blueconnect", 192 * 130000, 1e-9, "blueconnect-192 99.8MB");
        check_walk_eq9(p, "blueconnect:impl=ring", 192 * 130000, 1e-9, "blueconnect-192");
        check_walk_eq9(p, "blueconnect:decomp=2x2x4x4x3,impl=hd+ring+hd+ring+ring", 192 * 1000, 1e-9,
                       "blueconnect-192 split levels");
        /* a merged stage (4x16 = 64) has no Eq. 9 term */
        ar_status st = ar_algo_closed("blueconnect:decomp=64x3", p, 1000, 4, &m, &e);
        T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "spans more than one level"), "merged stage: %d %s", st, e.msg);
        ar_platform_free(p);
    }
    /* Eq. 10 on the torus preset, ring stages: each dimension ring puts the 4 GPUs of a machine on one link */
    T_OK(ar_platform_load("torus-4x4", 0, &p, &e));
    if (p) {
        check_walk_eq9(p, "blueconnect:impl=ring", 64 * 1000, 1e-9, "torus-4x4 Eq. 10");
        check_walk_eq9(p, "blueconnect:impl=ring,order=2.1.0", 64 * 1000, 1e-9, "torus-4x4 Eq. 10");
        ar_platform_free(p);
    }
}

/* Walk == Eq. 9 on random symmetric trees, count a multiple of P. */
static void test_random_symmetric(void) {
    rt_rng g = rt_seed(99);
    int n = 0;
    for (int t = 0; t < 300; t++) {
        char desc[160], spec[256];
        ar_platform *p = load_json_text(rt_platform_json(&g, RT_SYM, 0, desc, sizeof desc), desc);
        if (!p) continue;
        if (p->nranks < 2) {
            ar_platform_free(p);
            continue;
        }
        ar_bc_decomp d;
        T_CHECK(ar_bc_default(p, &d) == 1, "%s: symmetric tree has a decomposition", desc);
        /* default, or a random order / impl mix / split of one level */
        int f[AR_BC_MAX_STAGES], k = 0;
        for (int i = 0; i < d.k; i++) {
            int a = d.p[i], split = 0;
            for (int x = 2; x < a; x++)
                if (a % x == 0 && rt_int(&g, 0, 2) == 0) {
                    split = x;
                    break;
                }
            if (split) {
                f[k++] = split;
                f[k++] = a / split;
            } else {
                f[k++] = a;
            }
        }
        d.k = k;
        for (int i = 0; i < k; i++) {
            d.p[i] = f[i];
            d.order[i] = i;
            d.impl[i] = ar_is_pow2(f[i]) && rt_int(&g, 0, 1) ? AR_IMPL_HD : AR_IMPL_RING;
        }
        for (int i = k - 1; i > 0; i--) {
            int j = rt_int(&g, 0, i), tmp = d.order[i];
            d.order[i] = d.order[j];
            d.order[j] = tmp;
        }
        char params[200];
        snprintf(spec, sizeof spec, "blueconnect:%s", ar_bc_format(&d, params, sizeof params));
        check_walk_eq9(p, t % 2 ? "blueconnect" : spec, (uint64_t)p->nranks * (uint64_t)rt_int(&g, 1, 5000), 1e-9,
                       desc);
        n++;
        ar_platform_free(p);
    }
    T_CHECK(n >= 200, "only %d symmetric trees", n);
}

static void bad_param(const ar_platform *p, const char *spec, ar_status want, const char *needle) {
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan(spec, p, 100, 4, &s, &e);
    T_CHECK(st == want && strstr(e.msg, needle) && !strchr(e.msg, '\n'), "%s: status %d (want %d), message \"%s\"",
            spec, (int)st, (int)want, e.msg);
    ar_schedule_free(s);
}

static void test_bad_params(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("blueconnect-12", 0, &p, &e));
    if (!p) return;
    bad_param(p, "blueconnect:decomp=3x2x3", AR_EINVAL, "decomp=3x2x3 multiplies to 18");
    bad_param(p, "blueconnect:decomp=3x1x4", AR_EINVAL, "factor 1");
    bad_param(p, "blueconnect:decomp=3xx4", AR_EINVAL, "decomp=3xx4");
    bad_param(p, "blueconnect:decomp=24", AR_EINVAL, "decomp=24");
    bad_param(p, "blueconnect:impl=ring+fast+ring", AR_EINVAL, "\"fast\"");
    bad_param(p, "blueconnect:impl=ri", AR_EINVAL, "\"ri\"");
    bad_param(p, "blueconnect:impl=ring+hd", AR_EINVAL, "impl=ring+hd has 2 entries for 3 stages");
    bad_param(p, "blueconnect:impl=hd", AR_EUNSUPPORTED, "p0=3");
    bad_param(p, "blueconnect:decomp=6x2,impl=hd+ring", AR_EUNSUPPORTED, "p0=6");
    bad_param(p, "blueconnect:order=2.0.0", AR_EINVAL, "order=2.0.0");
    bad_param(p, "blueconnect:order=3.0.1", AR_EINVAL, "order=3.0.1");
    bad_param(p, "blueconnect:order=0.1", AR_EINVAL, "order=0.1");
    bad_param(p, "blueconnect:order=21", AR_EINVAL, "order=21");
    bad_param(p, "blueconnect:color=red", AR_EINVAL, "color");
    /* accepted forms */
    check_plan(p, "blueconnect:order=201", 120, "order digits");
    check_plan(p, "blueconnect:decomp=3x4,order=1.0,impl=ring+hd", 120, "merged levels");
    check_plan(p, "blueconnect:decomp=12", 120, "one stage");
    ar_platform_free(p);
    /* 96 = 16 x 6 (BlueConnect Sec. 3.2): hd on the 16-stage, ring on the 6-stage */
    T_OK(ar_platform_load("tree:fanouts=16x6,bw=50GBps/100Gbps", 0, &p, &e));
    if (p) {
        ar_schedule *s = NULL;
        T_OK(ar_algo_plan("blueconnect", p, 96 * 7 + 5, 4, &s, &e));
        T_CHECK(s && s->nphases == 4 && s->phases[0].ops[0].impl == AR_IMPL_HD &&
                    s->phases[1].ops[0].impl == AR_IMPL_RING,
                "96 = 16x6: hd then ring");
        T_CHECK(s && s->phases[0].nops == 6 && s->phases[1].nops == 16, "96 = 16x6: 6 groups of 16, 16 groups of 6");
        ar_schedule_free(s);
        check_plan(p, "blueconnect", 96 * 7 + 5, "96 = 16x6");
        check_walk_eq9(p, "blueconnect", 96 * 1000, 1e-9, "96 = 16x6");
        ar_platform_free(p);
    }
}

int main(void) {
    test_presets();
    test_random();
    test_presets_eq9();
    test_random_symmetric();
    test_bad_params();
    return t_done("test_blueconnect");
}
