/* FlexReduce Fig. 2 by hand: two machines under root A, B with learners D, E
 * and C with F, G, H; 12 items. The planner (algos/flexreduce.c) must give
 * the ranges and reduce calls derived here from the paper's procedure
 * (Sec. III-A, Fig. 3), and a second case where a destination holds none of
 * its next range (3 + 1 learners).
 *
 * Fig. 2, derivation (ranks in DFS order: D=0, E=1, F=2, G=3, H=4; M = 12,
 * so one unit = one item):
 *   start: every portion 1 (12 items), every range [0,12).
 *   level 0, node B (degree 2): portions 6; sorted D, E (equal ranges, by
 *     name): D takes [0,6), E [6,12). Holders of both: {D, E}.
 *     calls: ([0,6) {D,E} -> D), ([6,12) {D,E} -> E).
 *   level 0, node C (degree 3): portions 4: F [0,4), G [4,8), H [8,12), each
 *     one call over {F,G,H}.
 *   level 1, root A (degree 2): portions D, E: 3; F, G, H: 2.
 *     sort by range end, then start, then name:
 *       F [0,4) end 4; D [0,6) end 6; G [4,8) end 8; E [6,12) and H [8,12)
 *       end 12, E starts first -> order F, D, G, E, H.
 *     assign_range: F [0,2), D [2,5), G [5,7), E [7,10), H [10,12).
 *     find_bounds (holders = leaves whose level-0 range contains the piece;
 *     the piece ends at the first holder's range end):
 *       F [0,2):  at 0 D[0,6), F[0,4)          -> [0,2)   {D,F}
 *       D [2,5):  at 2 D, F -> end min(5,6,4)=4 -> [2,4)   {D,F}
 *                 at 4 D, G[4,8) -> end 5       -> [4,5)   {D,G}
 *       G [5,7):  at 5 D, G -> end min(7,6,8)=6 -> [5,6)   {D,G}
 *                 at 6 E[6,12), G -> end 7      -> [6,7)   {E,G}
 *       E [7,10): at 7 E, G -> end 8            -> [7,8)   {E,G}
 *                 at 8 E, H[8,12) -> end 10     -> [8,10)  {E,H}
 *       H [10,12): at 10 E, H                   -> [10,12) {E,H}
 *     8 calls; per learner (as destination) D 2, E 2, F 1, G 2, H 1.
 *   Eq. 12 at level 1: D, E: ceil((1/4)/(1/2)) + ceil((1/4)/(1/3)) + 1 = 3;
 *     F, G, H: ceil((1/6)/(1/2)) + ceil((1/6)/(1/3)) + 1 = 3.
 *   All-gather: the same 8 + 5 entries as broadcasts, level 1 first.
 *
 * 3 + 1 learners (machine X: a0, a1, a2; machine Y: z; ranks 0..3), 12 items:
 *   M = 2 x lcm(3, 1) = 6 units, one unit = 2 items.
 *   level 0: a0 [0,2), a1 [2,4), a2 [4,6) units; z holds [0,6) alone (no call).
 *   level 1: portions a: 1 unit, z: 3 units; sorted a0 (end 2), a1 (end 4),
 *     then z [0,6) before a2 [4,6) (same end, z starts first).
 *     a0 [0,1): {a0, z}; a1 [1,2): holders a0 (X) and z - a1 holds none of
 *     it, so REDUCE {a0, z} rooted at a0 (the holder under a1's machine),
 *     then a0 copies it to a1; z [2,5): [2,4) {a1,z}, [4,5) {a2,z};
 *     a2 [5,6): {a2,z}.  In items: [0,2) [2,4)+copy [4,8) [8,10) [10,12).
 */
#include <string.h>

#include "algos/flexreduce.h"
#include "core/algo.h"
#include "models/model.h"
#include "../t.h"

static const char *FIG2 =
    "{\"name\":\"fig2\",\"kind\":\"tree\",\"root\":{\"name\":\"A\",\"children\":["
    "{\"name\":\"B\",\"bw\":\"10Gbps\",\"lat\":\"5us\",\"child_bw\":\"10GBps\",\"child_lat\":\"1us\","
    "\"children\":[{\"gpu\":\"D\"},{\"gpu\":\"E\"}]},"
    "{\"name\":\"C\",\"bw\":\"10Gbps\",\"lat\":\"5us\",\"child_bw\":\"10GBps\",\"child_lat\":\"1us\","
    "\"children\":[{\"gpu\":\"F\"},{\"gpu\":\"G\"},{\"gpu\":\"H\"}]}]}}";

static const char *THREE_ONE =
    "{\"name\":\"3+1\",\"kind\":\"tree\",\"root\":{\"name\":\"top\",\"children\":["
    "{\"name\":\"X\",\"bw\":\"10Gbps\",\"lat\":\"5us\",\"child_bw\":\"10GBps\",\"child_lat\":\"1us\","
    "\"children\":[{\"gpu\":\"a0\"},{\"gpu\":\"a1\"},{\"gpu\":\"a2\"}]},"
    "{\"name\":\"Y\",\"bw\":\"10Gbps\",\"lat\":\"5us\",\"child_bw\":\"10GBps\",\"child_lat\":\"1us\","
    "\"children\":[{\"gpu\":\"z\"}]}]}}";

enum { D, E, F, G, H };

typedef struct want {
    int dest;
    uint64_t lo, hi;
    int h0, h1, h2; /* holders ascending, -1 = none */
} want;

static void check_entries(const ar_fr_plan *fp, int level, const want *w, int n, const char *what) {
    int first = fp->level_first[level], cnt = fp->level_first[level + 1] - first;
    T_CHECK(cnt == n, "%s level %d: %d entries, want %d", what, level, cnt, n);
    for (int i = 0; i < n && i < cnt; i++) {
        const ar_fr_entry *en = &fp->entries[first + i];
        const int *h = fp->arena + en->first;
        int hw[3] = {w[i].h0, w[i].h1, w[i].h2}, nh = hw[2] >= 0 ? 3 : 2;
        int same = en->nholders == nh;
        for (int k = 0; same && k < nh; k++) same = h[k] == hw[k];
        T_CHECK(en->dest == w[i].dest && en->lo == w[i].lo && en->hi == w[i].hi && same,
                "%s level %d entry %d: dest %d [%llu,%llu) %d holders (%d,%d,...), want dest %d [%llu,%llu) (%d,%d,%d)",
                what, level, i, en->dest, (unsigned long long)en->lo, (unsigned long long)en->hi, en->nholders, h[0],
                en->nholders > 1 ? h[1] : -1, w[i].dest, (unsigned long long)w[i].lo, (unsigned long long)w[i].hi,
                hw[0], hw[1], hw[2]);
    }
}

static void check_ranges(const ar_fr_plan *fp, int level, const uint64_t (*r)[2], const char *what) {
    for (int k = 0; k < fp->nranks; k++) {
        size_t i = (size_t)level * (size_t)fp->nranks + (size_t)k;
        T_CHECK(fp->lo[i] == r[k][0] && fp->hi[i] == r[k][1], "%s level %d rank %d: [%llu,%llu), want [%llu,%llu)",
                what, level, k, (unsigned long long)fp->lo[i], (unsigned long long)fp->hi[i],
                (unsigned long long)r[k][0], (unsigned long long)r[k][1]);
    }
}

static void test_fig2(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_from_json(FIG2, "fig2", &p, &e));
    if (!p) return;
    ar_fr_plan *fp = NULL;
    T_OK(ar_fr_plan_build(p, &fp, &e));
    if (!fp) {
        ar_platform_free(p);
        return;
    }
    T_CHECK(fp->M == 12 && fp->L == 2, "M %llu L %d", (unsigned long long)fp->M, fp->L);
    static const uint64_t r0[5][2] = {{0, 6}, {6, 12}, {0, 4}, {4, 8}, {8, 12}};
    static const uint64_t r1[5][2] = {{2, 5}, {7, 10}, {0, 2}, {5, 7}, {10, 12}};
    check_ranges(fp, 0, r0, "fig2");
    check_ranges(fp, 1, r1, "fig2");
    static const want w0[] = {{D, 0, 6, D, E, -1},
                              {E, 6, 12, D, E, -1},
                              {F, 0, 4, F, G, H},
                              {G, 4, 8, F, G, H},
                              {H, 8, 12, F, G, H}};
    static const want w1[] = {{F, 0, 2, D, F, -1}, {D, 2, 4, D, F, -1}, {D, 4, 5, D, G, -1},  {G, 5, 6, D, G, -1},
                              {G, 6, 7, E, G, -1}, {E, 7, 8, E, G, -1}, {E, 8, 10, E, H, -1}, {H, 10, 12, E, H, -1}};
    check_entries(fp, 0, w0, 5, "fig2");
    check_entries(fp, 1, w1, 8, "fig2");
    for (int i = 0; i < fp->nentries; i++)
        T_CHECK(fp->entries[i].via == fp->entries[i].dest, "fig2: every destination holds its pieces (entry %d)", i);
    int calls[10], bound[10];
    ar_fr_calls(fp, calls);
    T_OK(ar_fr_eq12_bound(p, bound, &e));
    static const int want_calls[10] = {1, 1, 1, 1, 1, 2, 2, 1, 2, 1};
    for (int i = 0; i < 10; i++) {
        T_CHECK(calls[i] == want_calls[i], "fig2 calls[level %d][%d] = %d, want %d", i / 5, i % 5, calls[i],
                want_calls[i]);
        T_CHECK(bound[i] == (i < 5 ? 1 : 3), "fig2 Eq. 12 bound[level %d][%d] = %d", i / 5, i % 5, bound[i]);
    }
    ar_fr_plan_free(fp);

    /* the schedule: 5 + 8 reduces, 8 + 5 broadcasts, roots = destinations */
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("flexreduce", p, 12, 4, &s, &e));
    if (s) {
        T_CHECK(s->nphases == 4, "fig2: %d phases", s->nphases);
        if (s->nphases == 4) {
            T_CHECK(s->phases[0].nops == 5 && s->phases[1].nops == 8 && s->phases[2].nops == 8 &&
                        s->phases[3].nops == 5,
                    "fig2 ops per phase %d %d %d %d", s->phases[0].nops, s->phases[1].nops, s->phases[2].nops,
                    s->phases[3].nops);
            for (int i = 0; i < s->phases[1].nops && i < 8; i++) {
                const ar_op *op = &s->phases[1].ops[i];
                T_CHECK(op->kind == AR_OP_REDUCE && op->members[op->root] == w1[i].dest && op->offset == w1[i].lo &&
                            op->count == w1[i].hi - w1[i].lo,
                        "fig2 level-1 reduce %d", i);
                const ar_op *bc = &s->phases[2].ops[i];
                T_CHECK(bc->kind == AR_OP_BROADCAST && bc->members[bc->root] == w1[i].dest && bc->offset == w1[i].lo,
                        "fig2 level-1 broadcast %d", i);
            }
        }
        T_OK(ar_schedule_validate(s, &e));
        T_OK(ar_schedule_execute_host(s, 0, &e));
        ar_schedule_free(s);
    }
    /* uneven counts: the same plan mapped to 7 and 1000003 items still partitions exactly */
    static const uint64_t counts[] = {1, 4, 7, 13, 1000003};
    for (int c = 0; c < 5; c++) {
        T_OK(ar_algo_plan("flexreduce", p, counts[c], 4, &s, &e));
        if (s) {
            ar_status st = ar_schedule_validate(s, &e);
            T_CHECK(st == AR_OK, "fig2 count %llu: %s", (unsigned long long)counts[c], e.msg);
            if (st == AR_OK) T_OK(ar_schedule_execute_host(s, 0, &e));
            ar_schedule_free(s);
        }
    }
    ar_platform_free(p);
}

static void test_non_holder(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_OK(ar_platform_from_json(THREE_ONE, "3+1", &p, &e));
    if (!p) return;
    ar_fr_plan *fp = NULL;
    T_OK(ar_fr_plan_build(p, &fp, &e));
    if (fp) {
        T_CHECK(fp->M == 6, "3+1: M %llu", (unsigned long long)fp->M);
        static const want w0[] = {{0, 0, 2, 0, 1, 2}, {1, 2, 4, 0, 1, 2}, {2, 4, 6, 0, 1, 2}};
        static const want w1[] = {{0, 0, 1, 0, 3, -1},
                                  {1, 1, 2, 0, 3, -1},
                                  {3, 2, 4, 1, 3, -1},
                                  {3, 4, 5, 2, 3, -1},
                                  {2, 5, 6, 2, 3, -1}};
        check_entries(fp, 0, w0, 3, "3+1");
        check_entries(fp, 1, w1, 5, "3+1");
        if (fp->nentries == 8)
            T_CHECK(fp->entries[4].dest == 1 && fp->entries[4].via == 0, "3+1: a1's piece goes via a0 (via %d)",
                    fp->entries[4].via);
        ar_fr_plan_free(fp);
    }
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("flexreduce", p, 12, 4, &s, &e));
    if (s) {
        /* reduce 0, reduce 1, broadcast 1, broadcast 0: a1's piece [2,4) is reduced at a0 and broadcast from a0
         * (the copy a0 -> a1 and straight back a1 -> a0 of the top level are gone); a1 still ends
         * with it (the validator and the host executor below) */
        T_CHECK(s->nphases == 4, "3+1: %d phases", s->nphases);
        int sends = 0;
        for (int ph = 0; ph < s->nphases; ph++)
            for (int k = 0; k < s->phases[ph].nops; k++) sends += s->phases[ph].ops[k].kind == AR_OP_SEND;
        T_CHECK(sends == 0, "3+1: no copies (%d)", sends);
        if (s->nphases == 4) {
            const ar_op *r = &s->phases[1].ops[1], *b = &s->phases[2].ops[1];
            T_CHECK(r->kind == AR_OP_REDUCE && r->n == 2 && r->members[r->root] == 0 && r->offset == 2,
                    "3+1: the piece is reduced at a0, not at a1");
            T_CHECK(b->kind == AR_OP_BROADCAST && b->members[b->root] == 0 && b->offset == 2 && b->count == 2,
                    "3+1: and broadcast from a0");
        }
        T_OK(ar_schedule_validate(s, &e));
        T_OK(ar_schedule_execute_host(s, 0, &e));
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

int main(void) {
    test_fig2();
    test_non_holder();
    return t_done("test_fr_fig2");
}
