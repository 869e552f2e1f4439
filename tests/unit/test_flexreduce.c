/* FlexReduce (algos/flexreduce.c, models/flexreduce_model.c):
 *   - the validator and the host executor accept its schedules on every tree
 *     preset and on >= 500 random uniform-depth trees (asymmetric machines,
 *     racks, per-GPU links) with uneven counts (count < P, primes); trees with
 *     GPUs at different depths and non-trees are refused (AR_EUNSUPPORTED);
 *   - Eq. 12: every learner's reduce calls at every level <= the bound, on
 *     every random tree; the bound is 3 on the 2-machine testbeds (fr-4..fr-8)
 *     and 4 on the 3-machine ones (fr-9..fr-12);
 *   - on symmetric trees T_FR (Eq. 6) = T_blc with ring stages (Eq. 9) to
 *     1e-12, and the walk over the FlexReduce schedule = T_FR to 1e-9
 *     (count a multiple of M);
 *   - T_FR on fr-5 at 120M floats equals the hand-computed value below.
 */
#include <string.h>

#include "algos/flexreduce.h"
#include "core/algo.h"
#include "models/model.h"
#include "../randtopo.h"
#include "../t.h"
#include "../t_plan.h"

/* Eq. 12 for every learner and level; returns the largest bound of the top level. */
static int check_eq12(const ar_platform *p, const char *what) {
    ar_fr_plan *fp = NULL;
    ar_err e = {{0}};
    T_OK(ar_fr_plan_build(p, &fp, &e));
    if (!fp) return -1;
    size_t n = (size_t)fp->L * (size_t)fp->nranks;
    int *calls = calloc(n, sizeof *calls), *bound = calloc(n, sizeof *bound), top = 0;
    ar_fr_calls(fp, calls);
    T_OK(ar_fr_eq12_bound(p, bound, &e));
    for (size_t i = 0; i < n; i++) {
        T_CHECK(calls[i] <= bound[i], "%s: learner %zu level %zu makes %d calls > Eq. 12 bound %d", what,
                i % (size_t)fp->nranks, i / (size_t)fp->nranks, calls[i], bound[i]);
        if (i / (size_t)fp->nranks == (size_t)fp->L - 1 && bound[i] > top) top = bound[i];
    }
    free(calls);
    free(bound);
    ar_fr_plan_free(fp);
    return top;
}

static uint64_t random_count(rt_rng *g, int P) {
    static const uint64_t primes[] = {2, 3, 7, 13, 31, 61, 97, 257, 1009};
    switch (rt_int(g, 0, 4)) {
    case 0: return (uint64_t)rt_int(g, 1, P > 1 ? P - 1 : 1);
    case 1: return primes[rt_int(g, 0, 8)];
    case 2: return (uint64_t)P * (uint64_t)rt_int(g, 1, 20);
    default: return (uint64_t)rt_int(g, 1, 1500);
    }
}

static void test_presets(void) {
    char **names = NULL;
    int n = 0, planned = 0;
    ar_err e = {{0}};
    T_OK(ar_platform_list_presets(&names, &n, &e));
    for (int i = 0; i < n; i++) {
        ar_platform *p = load_spec(names[i]);
        if (!p) {
            free(names[i]);
            continue;
        }
        int tree = (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE) && p->uniform_depth;
        if (tree) {
            static const uint64_t counts[] = {1, 5, 97, 1000};
            for (int c = 0; c < 4; c++) planned += check_plan(p, "flexreduce", counts[c], names[i]);
            check_eq12(p, names[i]);
        } else {
            ar_schedule *s = NULL;
            ar_status st = ar_algo_plan("flexreduce", p, 100, 4, &s, &e);
            T_CHECK(st == AR_EUNSUPPORTED && e.msg[0], "%s (not a uniform tree): status %d %s", names[i], st, e.msg);
            ar_schedule_free(s);
        }
        ar_platform_free(p);
        free(names[i]);
    }
    free(names);
    T_CHECK(planned >= 40, "only %d preset plans", planned);
}

static void test_random(void) {
    rt_rng g = rt_seed(7);
    int ok = 0, refused = 0;
    static const char *const variants[] = {"flexreduce:impl=ring", "flexreduce:impl=direct,chunks=2",
                                           "flexreduce:impl=binomial", "flexreduce:chunks=3", "flexreduce:impl=native"};
    for (int t = 0; t < 800; t++) {
        char desc[160];
        int forced = t % 5 == 0 ? (int[]){7, 13, 31, 61, 11, 64, 2}[t / 5 % 7] : 0;
        rt_shape shape = t % 4 == 0 ? RT_SYM : t % 4 == 3 ? RT_ASYM3 : RT_ASYM2;
        ar_platform *p = load_json_text(rt_platform_json(&g, shape, forced, desc, sizeof desc), desc);
        if (!p) continue;
        if (!p->uniform_depth) {
            ar_schedule *s = NULL;
            ar_err e = {{0}};
            ar_status st = ar_algo_plan("flexreduce", p, 100, 4, &s, &e);
            T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "different depths"), "%s: %d %s", desc, st, e.msg);
            ar_schedule_free(s);
            refused++;
            ar_platform_free(p);
            continue;
        }
        ok += check_plan(p, "flexreduce", random_count(&g, p->nranks), desc);
        if (t % 10 == 1) check_plan(p, variants[t / 10 % 5], random_count(&g, p->nranks), desc);
        check_eq12(p, desc);
        ar_platform_free(p);
    }
    T_CHECK(ok >= 500, "only %d random trees validated", ok);
    T_CHECK(refused >= 20, "only %d trees with GPUs at different depths refused", refused);
    printf("random trees: %d validated and executed, %d non-uniform-depth trees refused\n", ok, refused);
}

/* T_FR = T_blc(ring) on symmetric trees (Eq. 7-11), and walk(FR) = T_FR. */
static void test_symmetric(void) {
    rt_rng g = rt_seed(11);
    int n = 0;
    for (int t = 0; t < 300; t++) {
        char desc[160];
        ar_platform *p = load_json_text(rt_platform_json(&g, RT_SYM, 0, desc, sizeof desc), desc);
        if (!p) continue;
        if (p->nranks < 2) {
            ar_platform_free(p);
            continue;
        }
        ar_err e = {{0}};
        ar_model_result fr, blc, walk;
        double N = 4.0 * (double)p->nranks * (double)rt_int(&g, 1, 100000);
        T_OK(ar_model_flexreduce(p, N, &fr, &e));
        T_OK(ar_algo_closed("blueconnect:impl=ring", p, (uint64_t)(N / 4), 4, &blc, &e));
        T_NEAR(fr.time_s, blc.time_s, 1e-12, desc);
        ar_schedule *s = NULL;
        uint64_t count = (uint64_t)p->nranks * (uint64_t)rt_int(&g, 1, 3000); /* M = P on a symmetric tree */
        T_OK(ar_algo_plan("flexreduce", p, count, 4, &s, &e));
        if (s) {
            T_OK(ar_model_walk(p, s, &walk, &e));
            T_OK(ar_model_flexreduce(p, 4.0 * (double)count, &fr, &e));
            char w[200];
            snprintf(w, sizeof w, "walk(FR) vs T_FR: %s", desc);
            T_NEAR(walk.time_s, fr.time_s, 1e-9, w);
            ar_schedule_free(s);
        }
        n++;
        ar_platform_free(p);
    }
    T_CHECK(n >= 200, "only %d symmetric trees", n);
}

/* fr-N testbeds: Eq. 12 bound 3 on 2 machines, 4 on 3 machines. T_FR on fr-5
 * (3+2 learners; GPU links 10 GB/s, lat 1 us; machine uplinks 10 Gb/s =
 * 1.25e9 B/s, lat 5 us) for N = 120M floats = 4.8e8 B:
 *   level 0: max(Tr(3, N, 2us, 1e10), Tr(2, N, 2us, 1e10)) = 4e-6 + (2/3) 0.048 = 0.032004
 *   level 1: y = root, alpha = 2 (5 + 1) us = 12 us; links at the root:
 *            Tr(2, N, 12us, 1.25e9) = 12e-6 + 0.5 x 0.384 = 0.192012 (links at the
 *            machines, N/3 or N/2 at 1e10, are far faster)
 *   T_FR = 2 (0.032004 + 0.192012) = 0.448032 s.
 * Ring (Eq. 6): 2 Tr(5, N, 12us, 1.25e9) = 2 (48e-6 + 0.8 x 0.384) = 0.614496 s. */
static void test_testbeds(void) {
    ar_err e = {{0}};
    for (int n = 4; n <= 12; n++) {
        char name[16];
        snprintf(name, sizeof name, "fr-%d", n);
        ar_platform *p = NULL;
        T_OK(ar_platform_load(name, 0, &p, &e));
        if (!p) continue;
        int top = check_eq12(p, name);
        T_CHECK(top == (p->nmachines == 2 ? 3 : 4), "%s (%d machines): Eq. 12 bound %d", name, p->nmachines, top);
        check_plan(p, "flexreduce", 120 * 1000 + 7, name);
        ar_platform_free(p);
    }
    ar_platform *p = NULL;
    T_OK(ar_platform_load("fr-5", 0, &p, &e));
    if (p) {
        ar_model_result m;
        T_OK(ar_algo_closed("flexreduce", p, 120000000, 4, &m, &e));
        T_NEAR(m.time_s, 0.448032, 1e-12, "T_FR fr-5 120M floats");
        T_CHECK(m.nstages == 4, "2 levels x reduce-scatter/all-gather: %d stages", m.nstages);
        T_OK(ar_algo_closed("ring", p, 120000000, 4, &m, &e));
        T_NEAR(m.time_s, 0.614496, 1e-12, "ring fr-5 120M floats");
        ar_platform_free(p);
    }
}

static void test_refusals(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    ar_schedule *s = NULL;
    T_OK(ar_platform_load("fr-7", 0, &p, &e));
    if (p) {
        ar_status st = ar_algo_plan("flexreduce:impl=hd", p, 100, 4, &s, &e);
        T_CHECK(st == AR_EINVAL && strstr(e.msg, "impl=hd"), "impl=hd: %d %s", st, e.msg);
        st = ar_algo_plan("flexreduce:chunks=0", p, 100, 4, &s, &e);
        T_CHECK(st == AR_EINVAL && strstr(e.msg, "chunks=0"), "chunks=0: %d %s", st, e.msg);
        ar_platform_free(p);
    }
    T_OK(ar_platform_load("torus-4x4", 0, &p, &e));
    if (p) {
        ar_status st = ar_algo_plan("flexreduce", p, 100, 4, &s, &e);
        T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "not a tree"), "torus: %d %s", st, e.msg);
        ar_platform_free(p);
    }
    /* one switch of 8192 GPUs: 8192 reduce calls of 8192 members exceed the plan cap */
    T_OK(ar_platform_load("flat:ranks=8192", 0, &p, &e));
    if (p) {
        ar_status st = ar_algo_plan("flexreduce", p, 100000, 4, &s, &e);
        T_CHECK(st == AR_ELIMIT && strstr(e.msg, "group members"), "flat 8192: %d %s", st, e.msg);
        ar_platform_free(p);
    }
}

int main(void) {
    test_presets();
    test_random();
    test_symmetric();
    test_testbeds();
    test_refusals();
    return t_done("test_flexreduce");
}
