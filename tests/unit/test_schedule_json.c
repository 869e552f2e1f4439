/* Schedule JSON: print -> load -> print is the identity, the loaded schedule
 * validates, and malformed documents are refused with the JSON path at fault
 * (every truncation of a valid document too, without crashing). */
#include <stdlib.h>
#include <string.h>

#include "core/schedule.h"
#include "../t.h"
#include "../t_plan.h"

static ar_schedule *sample(void) {
    int all[6] = {0, 1, 2, 3, 4, 5}, g0[3] = {0, 1, 2}, g1[3] = {3, 4, 5}, tree[6] = {-1, 0, 0, 1, 1, 2};
    ar_schedule *s = ar_schedule_new("sample", 6, 1000, 4);
    ar_schedule_set_detail(s, "a \"quoted\" detail");
    ar_sched_phase(s, "local reduce-scatter");
    uint64_t counts[3] = {100, 0, 400};
    ar_op_set_counts(ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, g0, 3, 0, 500), counts);
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_DIRECT, g1, 3, 0, 500)->chunks = 2;
    ar_sched_phase(s, "local all-gather");
    ar_op_set_counts(ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, g0, 3, 0, 500), counts);
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_DIRECT, g1, 3, 0, 500);
    ar_sched_phase(s, "global");
    ar_op *op = ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_TREE, all, 6, 500, 500);
    op->chunks = 4;
    ar_op_set_parent(op, tree);
    ar_sched_phase(s, "cross");
    for (int i = 0; i < 3; i++) {
        int pair[2] = {g0[i], g1[i]};
        ar_sched_op(s, AR_OP_SEND, AR_IMPL_RING, pair, 2, (uint64_t)i * 100, 100)->reduce = 0;
    }
    ar_sched_phase(s, "channels"); /* a per-member layout: each member's block where offs says */
    uint64_t offs[3] = {900, 100, 500};
    ar_op_set_offs(ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, g1, 3, 0, 150), offs);
    return s;
}

int main(void) {
    ar_err e = {{0}};
    ar_schedule *s = sample();
    char *a = schedule_json(s);
    ar_schedule *l = NULL;
    T_CHECK(ar_schedule_from_json(a, "sample.json", &l, &e) == AR_OK, "load: %s", e.msg);
    if (l) {
        char *b = schedule_json(l);
        T_CHECK(strcmp(a, b) == 0, "round trip differs:\n%s\n%s", a, b);
        const ar_op *lo = l->nphases == 5 ? &l->phases[4].ops[0] : NULL;
        uint64_t o = 0, n1 = 0;
        if (lo) ar_op_block(lo, 1, &o, &n1);
        T_CHECK(lo && lo->offs && lo->offset == 100 && o == 100 && n1 == 50 && !l->phases[0].ops[0].offs,
                "loaded layout: block 1 at %llu (+%llu)", (unsigned long long)o, (unsigned long long)n1);
        T_CHECK(l->nphases == 5 && l->phases[0].ops[0].counts && l->phases[0].ops[0].counts[2] == 400 &&
                    l->phases[2].ops[0].parent && l->phases[2].ops[0].parent[5] == 2 && l->phases[3].ops[1].reduce == 0,
                "loaded fields");
        free(b);
        ar_schedule_free(l);
    }
    /* every truncation is refused, never crashes */
    size_t n = strlen(a);
    int refused = 0;
    for (size_t cut = 0; cut < n; cut++) {
        char *t = strndup(a, cut);
        ar_schedule *x = NULL;
        if (ar_schedule_from_json(t, "cut.json", &x, &e) != AR_OK) refused++;
        ar_schedule_free(x);
        free(t);
    }
    /* the last cut only drops the trailing newline: still a complete document */
    T_CHECK(refused == (int)n - 1, "%d of %zu truncations refused", refused, n - 1);
    free(a);
    ar_schedule_free(s);

    static const struct {
        const char *doc, *needle;
    } bad[] = {
        {"[1,2]", "expected a JSON object"},
        {"{\"count\":10,\"phases\":[]}", "$.ranks: missing"},
        {"{\"ranks\":0,\"count\":10,\"phases\":[]}", "must be >= 1"},
        {"{\"ranks\":2,\"count\":-1,\"phases\":[]}", "$.count"},
        {"{\"ranks\":2,\"count\":10}", "$.phases: expected an array"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"scatter\",\"impl\":\"ring\",\"offset\":0,\"count\":10,\"members\":[0,1]}]}]}",
         "$.phases[0].ops[0].kind: unknown value \"scatter\""},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-reduce\",\"impl\":\"ring\",\"offset\":0,\"count\":10,\"members\":[0,2]}]}]}",
         "$.phases[0].ops[0].members[1]"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-reduce\",\"impl\":\"ring\",\"offset\":0,\"count\":11,\"members\":[0,1]}]}]}",
         "$.phases[0].ops[0].count"},
        {"{\"ranks\":3,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-reduce\",\"impl\":\"hd\",\"offset\":0,\"count\":10,\"members\":[0,1,2]}]}]}",
         "power of two"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"reduce-scatter\",\"impl\":\"ring\",\"offset\":0,\"count\":10,\"members\":[0,1],\"counts\":[1]}]}]}",
         "$.phases[0].ops[0].counts"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-reduce\",\"impl\":\"ring\",\"offset\":0.5,\"count\":1,\"members\":[0,1]}]}]}",
         "$.phases[0].ops[0].offset"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-gather\",\"impl\":\"ring\",\"offset\":0,\"count\":4,\"members\":[0,1],\"offs\":[5,6]}]}]}",
         "overlap"},
        {"{\"ranks\":2,\"count\":10,\"phases\":[{\"ops\":[{\"kind\":\"all-gather\",\"impl\":\"ring\",\"offset\":0,\"count\":4,\"members\":[0,1],\"offs\":[5]}]}]}",
         "$.phases[0].ops[0].offs"},
        {"{\"ranks\":2,\"count\":10,", "malformed JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ar_schedule *x = NULL;
        ar_status st = ar_schedule_from_json(bad[i].doc, "bad.json", &x, &e);
        T_CHECK(st == AR_EINVAL && strstr(e.msg, bad[i].needle) && strstr(e.msg, "bad.json"),
                "case %zu: status %d msg \"%s\" (want \"%s\")", i, st, e.msg, bad[i].needle);
        ar_schedule_free(x);
    }
    return t_done("test_schedule_json");
}
