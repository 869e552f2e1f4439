/* Collectives (schedule.h ar_coll): reduce-scatter and all-gather plans of the
 * algorithms that serve them pass the validator and the host executor; a
 * schedule whose end state is not its collective's fails both; the JSON round
 * trip keeps the collective (absent = all-reduce); an algorithm asked for a
 * collective it does not serve is refused; the ring's RS/AG closed form is
 * (n-1)(alpha + S/(n B)) and equals its walk; PAT's is ceil(lg n) alpha +
 * (n-1) S/(n B), its walk on a flat network. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/util.h"
#include "models/model.h"
#include "../t.h"
#include "../t_plan.h"

static void plans_check(void) {
    static const char *const algos[] = {"ring", "pipelined-ring", "halving-doubling", "pat"};
    static const int ranks[] = {1, 2, 5, 8, 16};
    for (size_t pi = 0; pi < sizeof ranks / sizeof ranks[0]; pi++) {
        char spec[64];
        snprintf(spec, sizeof spec, "flat:ranks=%d", ranks[pi]);
        ar_platform *p = NULL;
        ar_err e = {{0}};
        T_OK(ar_platform_load(spec, 0, &p, &e), e);
        if (!p) continue;
        for (size_t ai = 0; ai < sizeof algos / sizeof algos[0]; ai++)
            for (int c = AR_COLL_REDUCESCATTER; c <= AR_COLL_ALLGATHER; c++) {
                ar_schedule *s = NULL;
                ar_status st = ar_algo_plan_coll(algos[ai], (ar_coll)c, p, 1001, 4, &s, &e);
                if (!strcmp(algos[ai], "halving-doubling") && !ar_is_pow2(ranks[pi])) {
                    T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "power-of-two"), "%s %s P=%d: %d %s", algos[ai],
                            ar_coll_name((ar_coll)c), ranks[pi], (int)st, e.msg);
                    continue;
                }
                T_OK(st, e);
                if (!s) continue;
                T_CHECK(s->coll == (ar_coll)c, "%s: coll %d", algos[ai], (int)s->coll);
                T_OK(ar_schedule_validate(s, &e), e);
                T_OK(ar_schedule_execute_host(s, 0, &e), e);
                /* the other collective's end state is not reached */
                if (ranks[pi] > 1) {
                    s->coll = c == AR_COLL_REDUCESCATTER ? AR_COLL_ALLREDUCE : AR_COLL_REDUCESCATTER;
                    T_CHECK(ar_schedule_validate(s, &e) == AR_EFAIL, "%s as %s validated", algos[ai],
                            ar_coll_name(s->coll));
                    T_CHECK(ar_schedule_execute_host(s, 0, &e) == AR_EFAIL, "%s as %s executed", algos[ai],
                            ar_coll_name(s->coll));
                }
                ar_schedule_free(s);
            }
        /* closed forms: ring RS/AG = (n-1)(alpha + S/(n B)), equal to the walk */
        int n = p->nranks;
        double S = 4e6, a = ar_plat_alpha(p), B = ar_plat_min_bw(p);
        for (int c = AR_COLL_REDUCESCATTER; c <= AR_COLL_ALLGATHER; c++) {
            ar_model_result m, w;
            ar_schedule *s = NULL;
            T_OK(ar_algo_closed_coll("ring", (ar_coll)c, p, 1000000, 4, &m, &e), e);
            T_NEAR(m.time_s + 1e-300, (n - 1) * (a + S / (n * B)) + 1e-300, 1e-12, "ring RS/AG closed form");
            T_OK(ar_algo_plan_coll("ring", (ar_coll)c, p, 1000000, 4, &s, &e), e);
            if (s) T_OK(ar_model_walk(p, s, &w, &e), e);
            if (s && n > 1) T_NEAR(w.time_s, m.time_s, 1e-9, "ring RS/AG walk vs closed");
            ar_schedule_free(s);
            /* PAT: ceil(lg n) alpha + (n-1) S/(n B) */
            T_OK(ar_algo_closed_coll("pat", (ar_coll)c, p, 1000000, 4, &m, &e), e);
            T_NEAR(m.time_s + 1e-300, ar_ceil_log2(n) * a + (n - 1) * S / (n * B) + 1e-300, 1e-12, "pat closed form");
            T_OK(ar_algo_plan_coll("pat", (ar_coll)c, p, 1000000, 4, &s, &e), e);
            T_CHECK(s && s->nphases == ar_ceil_log2(n), "pat: %d phases for %d ranks", s ? s->nphases : -1, n);
            if (s && n > 1) T_OK(ar_model_walk(p, s, &w, &e), e);
            if (s && n > 1 && 1000000 % n == 0) T_NEAR(w.time_s, m.time_s, 1e-9, "pat walk vs closed");
            ar_schedule_free(s);
        }
        ar_platform_free(p);
    }
}

static void refusals(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("flat:ranks=8", 0, &p, &e), e);
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan_coll("binomial", AR_COLL_REDUCESCATTER, p, 100, 4, &s, &e);
    T_CHECK(st == AR_EUNSUPPORTED && s == NULL && strstr(e.msg, "does not serve reducescatter"), "%d %s", (int)st,
            e.msg);
    ar_model_result m;
    st = ar_algo_closed_coll("binomial", AR_COLL_ALLGATHER, p, 100, 4, &m, &e);
    T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "does not serve allgather"), "%d %s", (int)st, e.msg);
    T_CHECK(ar_algo_plan("pat", p, 100, 4, &s, &e) == AR_EUNSUPPORTED && strstr(e.msg, "does not serve allreduce"),
            "pat planned an all-reduce: %s", e.msg);
    T_CHECK(ar_algo_closed("pat", p, 100, 4, &m, &e) == AR_EUNSUPPORTED, "pat has an all-reduce closed form");
    ar_coll c;
    T_CHECK(ar_coll_parse("reduce", &c, &e) == AR_EINVAL, "bad collective name accepted");
    T_CHECK(ar_coll_parse("allgather", &c, &e) == AR_OK && c == AR_COLL_ALLGATHER, "allgather");
    ar_platform_free(p);
}

static void json(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_load("flat:ranks=4", 0, &p, &e), e);
    ar_schedule *s = NULL, *t = NULL;
    T_OK(ar_algo_plan_coll("ring", AR_COLL_ALLGATHER, p, 100, 4, &s, &e), e);
    char *j = s ? schedule_json(s) : NULL;
    T_CHECK(j && strstr(j, "\"collective\":\"allgather\""), "json lacks the collective: %s", j ? j : "");
    if (j) T_OK(ar_schedule_from_json(j, "t", &t, &e), e);
    T_CHECK(t && t->coll == AR_COLL_ALLGATHER, "round trip lost the collective");
    char *j2 = t ? schedule_json(t) : NULL;
    T_CHECK(j && j2 && !strcmp(j, j2), "print -> load -> print differs");
    ar_schedule_free(t);
    t = NULL;
    /* an old document (no "collective") loads as all-reduce */
    const char *old = "{\"algo\":\"x\",\"ranks\":2,\"count\":2,\"elem_bytes\":4,\"phases\":[{\"label\":\"ar\",\"ops\":"
                      "[{\"kind\":\"all-reduce\",\"impl\":\"ring\",\"members\":[0,1],\"offset\":0,\"count\":2}]}]}";
    T_OK(ar_schedule_from_json(old, "old", &t, &e), e);
    T_CHECK(t && t->coll == AR_COLL_ALLREDUCE, "absent collective is not all-reduce");
    ar_schedule_free(t);
    t = NULL;
    const char *bad = "{\"algo\":\"x\",\"collective\":\"gather\",\"ranks\":2,\"count\":2,\"elem_bytes\":4,"
                      "\"phases\":[]}";
    T_CHECK(ar_schedule_from_json(bad, "bad", &t, &e) == AR_EINVAL && strstr(e.msg, "$.collective"), "bad: %s", e.msg);
    ar_schedule_free(t);
    free(j);
    free(j2);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    plans_check();
    refusals();
    json();
    return t_done("test_coll");
}
