/* The cost walk's event pass (models/walk.c: the phases that mix ops of different round counts,
 * the pipelined NVLS/NVLS_TREE/CollNet stages) against its reference: the same pass recomputing
 * every max-min share over every live transfer at every event and pricing every phase anew
 * (ar_model_walk_events_reference). The fast pass re-shares only when a transfer joins or leaves
 * the network, finds a link's transfers through an index, and prices a phase equal to the last one
 * once; none of that may move a number: every phase's time, bottleneck rate and latency agree to
 * 1e-9 (in fact to the bit), on
 *  1. the switch planners' all-reduce (nvls, nvlstree, collnet; random slices and chunks) on random
 *     rail fabrics, with and without per-message costs;
 *  2. random hand-built phases on a star around a reducing switch: a switch op beside ring and
 *     direct ops over random members, sizes and uneven blocks.
 * A case counts only when its schedule has a mixed phase (the event pass ran); floors below. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "models/model.h"
#include "../t.h"
#include "../t_plan.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n) { /* 0 .. n-1 */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* 1 if a phase of s mixes ops of different implementations or round counts beside a switch op:
 * the walk prices it by the event pass (models/walk.c phase_mixed). */
static int has_mixed_phase(const ar_schedule *s) {
    for (int ph = 0; ph < s->nphases; ph++) {
        const ar_phase *f = &s->phases[ph];
        int sw = 0, mixed = 0;
        for (int i = 0; i < f->nops; i++) sw |= f->ops[i].impl == AR_IMPL_SWITCH;
        for (int i = 1; i < f->nops; i++)
            mixed |= f->ops[i].impl != f->ops[0].impl || ar_lower_nrounds(&f->ops[i]) != ar_lower_nrounds(&f->ops[0]);
        if (sw && mixed) return 1;
    }
    return 0;
}

/* Walks s on p with the fast event pass and the reference; 1 when both priced it and every phase
 * agrees to 1e-9. */
static int same_walk(const ar_platform *p, const ar_schedule *s, const char *what) {
    ar_model_result fast, ref;
    ar_err e1 = {{0}}, e2 = {{0}};
    ar_model_walk_events_reference(0);
    ar_status s1 = ar_model_walk(p, s, &fast, &e1);
    ar_model_walk_events_reference(1);
    ar_status s2 = ar_model_walk(p, s, &ref, &e2);
    ar_model_walk_events_reference(0);
    T_CHECK(s1 == s2, "%s: fast pass %d (%s), reference %d (%s)", what, (int)s1, e1.msg, (int)s2, e2.msg);
    if (s1 != AR_OK || s2 != AR_OK) return 0;
    T_CHECK(fast.nstages == ref.nstages, "%s: %d stages, reference %d", what, fast.nstages, ref.nstages);
    T_NEAR(fast.time_s, ref.time_s, 1e-9, what);
    T_CHECK(fast.time_s == ref.time_s, "%s: %.17g, reference %.17g (not the same double)", what, fast.time_s,
            ref.time_s);
    T_CHECK(fast.time_s > 0, "%s: time %g", what, fast.time_s);
    for (int k = 0; k < fast.nstages && k < ref.nstages; k++) {
        char w[200];
        snprintf(w, sizeof w, "%s: stage %d (%s) time", what, k, ref.stages[k].label);
        T_NEAR(fast.stages[k].time_s, ref.stages[k].time_s, 1e-9, w);
        snprintf(w, sizeof w, "%s: stage %d (%s) bottleneck rate", what, k, ref.stages[k].label);
        if (ref.stages[k].bw_Bps > 0) T_NEAR(fast.stages[k].bw_Bps, ref.stages[k].bw_Bps, 1e-9, w);
        else T_CHECK(fast.stages[k].bw_Bps == 0, "%s %g, reference 0", w, fast.stages[k].bw_Bps);
        snprintf(w, sizeof w, "%s: stage %d (%s) latency", what, k, ref.stages[k].label);
        if (ref.stages[k].lat_s > 0) T_NEAR(fast.stages[k].lat_s, ref.stages[k].lat_s, 1e-9, w);
    }
    return 1;
}

static void planners(void) {
    static const char *const algos[] = {"nvls", "nvlstree", "collnet"};
    int mixed = 0;
    for (int c = 0; c < 60; c++) {
        char spec[200], algo[80];
        int nodes = 2 + (int)rnd(4), gpus = 2 << rnd(3);
        snprintf(spec, sizeof spec, "rail:nodes=%d,gpus=%d,nvls=%dGBps,sharp=%dGBps,nic=%dGBps,spine=%d%s", nodes, gpus,
                 100 + (int)rnd(400), 20 + (int)rnd(80), 10 + (int)rnd(50), rnd(3) == 0 ? 2 : 0,
                 rnd(3) == 0 ? ",o=2us,g=0.5us" : "");
        ar_platform *p = NULL;
        ar_err e = {{0}};
        T_OK(ar_platform_load(spec, 0, &p, &e), e);
        if (!p) continue;
        const char *a = algos[rnd(3)];
        snprintf(algo, sizeof algo, "%s:slices=%d,chunks=%d", a, 2 + (int)rnd(7), 1 + (int)rnd(6));
        ar_coll coll = AR_COLL_ALLREDUCE; /* (over several nodes the switch planners serve all-reduce) */
        uint64_t count = (uint64_t)p->nranks * (1000 + rnd(200000)) + rnd(97);
        ar_schedule *s = NULL;
        T_OK(ar_algo_plan_coll(algo, coll, p, count, 4, &s, &e), e);
        if (s) {
            char what[400];
            snprintf(what, sizeof what, "%s on %s, %llu elements", algo, spec, (unsigned long long)count);
            if (has_mixed_phase(s) && same_walk(p, s, what)) mixed++;
            ar_schedule_free(s);
        }
        ar_platform_free(p);
    }
    /* slices >= 2 over several nodes pipelines the stages: most cases have mixed phases */
    T_CHECK(mixed >= 36, "planners: %d of 60 cases had a mixed phase priced by both passes", mixed);
    printf("planners: %d mixed cases\n", mixed);
}

/* A star of n GPUs around switch "nvs" (reducing at R) with random link rates. */
static ar_platform *star(int n) {
    char js[400];
    snprintf(js, sizeof js,
             "{\"name\": \"star\", \"kind\": \"tree\", \"root\": {\"name\": \"nvs\", \"reduce_bw\": %de9, "
             "\"gpus\": %d, \"child_bw\": %de9, \"child_lat\": %de-7}}",
             50 + (int)rnd(400), n, 10 + (int)rnd(100), 1 + (int)rnd(30));
    return load_json(js);
}

static void random_members(int n, int *m, int k) { /* k distinct ranks of 0..n-1, shuffled */
    int all[64];
    for (int i = 0; i < n; i++) all[i] = i;
    for (int i = 0; i < k; i++) {
        int j = i + (int)rnd((unsigned)(n - i)), t = all[i];
        all[i] = all[j], all[j] = t;
        m[i] = all[i];
    }
}

static void handmade(void) {
    int mixed = 0;
    for (int c = 0; c < 60; c++) {
        int n = 4 + (int)rnd(9);
        ar_platform *p = star(n);
        T_CHECK(p != NULL, "star of %d", n);
        if (!p) continue;
        uint64_t count = 4096 + rnd(100000);
        ar_schedule *s = ar_schedule_new("walk-events-test", n, count, 4);
        int nph = 1 + (int)rnd(4);
        uint64_t seed = rng;
        for (int ph = 0; ph < nph; ph++) {
            ar_sched_phase(s, "mixed %d", ph);
            /* a phase again (the walk prices it once), or again with one op one element longer */
            int again = ph > 0 ? (int)rnd(3) : 0;
            if (again) rng = seed;
            seed = rng;
            int nops = 2 + (int)rnd(4);
            for (int o = 0; o < nops; o++) {
                int m[64], k = 2 + (int)rnd((unsigned)(n - 1));
                random_members(n, m, k);
                uint64_t off = rnd((unsigned)(count / 2)), len = 1 + rnd((unsigned)(count - off));
                if (len < (uint64_t)k) len = (uint64_t)k;
                if (again == 2 && o == 0 && len < count) len++;
                if (off + len > count) off = count - len;
                ar_op *op;
                if (o == 0) { /* the switch op */
                    ar_op_kind kind = (ar_op_kind[]){AR_OP_ALL_REDUCE, AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER}[rnd(3)];
                    op = ar_sched_op(s, kind, AR_IMPL_SWITCH, m, k, off, len);
                    if (op) op->sw = p->root, op->chunks = 1 + (int)rnd(8);
                } else {
                    ar_op_kind kind = (ar_op_kind[]){AR_OP_ALL_REDUCE, AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER}[rnd(3)];
                    ar_impl impl = (ar_impl[]){AR_IMPL_RING, AR_IMPL_DIRECT, AR_IMPL_RING}[rnd(3)];
                    op = ar_sched_op(s, kind, impl, m, k, off, len);
                    if (op && rnd(2)) { /* uneven blocks */
                        uint64_t cs[64], left = len;
                        for (int i = 0; i < k - 1; i++) { /* at least one element left for each next block */
                            uint64_t most = left - (uint64_t)(k - 1 - i), fair = 2 * len / (uint64_t)k + 1;
                            cs[i] = 1 + rnd((unsigned)(most < fair ? most : fair));
                            if (cs[i] > most) cs[i] = most;
                            left -= cs[i];
                        }
                        cs[k - 1] = left;
                        T_OK(ar_op_set_counts(op, cs));
                    }
                    if (op && kind == AR_OP_ALL_REDUCE && rnd(2)) op->chunks = 1 + (int)rnd(4);
                }
                T_CHECK(op != NULL, "op");
            }
        }
        char what[120];
        snprintf(what, sizeof what, "hand-made case %d (%d ranks, %d phases)", c, n, nph);
        if (has_mixed_phase(s) && same_walk(p, s, what)) mixed++;
        ar_schedule_free(s);
        ar_platform_free(p);
    }
    T_CHECK(mixed >= 40, "hand-made: %d of 60 cases had a mixed phase priced by both passes", mixed);
    printf("hand-made: %d mixed cases\n", mixed);
}

int main(void) {
    planners();
    handmade();
    return t_done("test_walk_events");
}
