/* Spanning-tree packing: the LP's wall budget (opts.budget_s, the planner's
 * budget=T) is honoured and reported.
 *   - A budget already spent when the solver starts pricing (1 us): the warm
 *     start takes no tree and column generation stops after its first LP
 *     solve, so the packing is the one starting column (Boruvka's tree): 1
 *     column, 1 LP solve, budget_stop 1; C is that packing's max load, an
 *     upper bound on the unbudgeted C(G), and the dual bound a lower one; the
 *     exact certificate is not claimed (p2.16xlarge: C(G) = 15/8 unbudgeted).
 *   - The planner with budget=1ms on tree:ranks=512 (whose candidate routes
 *     alone take longer than 1 ms to set up) says so in the schedule's detail
 *     ("LP stopped by budget after ... s: C(G) <= U, >= L (gap x %)"), and
 *     its schedule still passes the validator and the host executor.
 *   - Budgets of 2, 10, 40 ms on fat-tree-64 (about 0.2 s unbudgeted, most of
 *     it in the least-traffic stage): whichever stage the budget stops,
 *     its claims hold: stage 1 stopped: C >= C(G) >= dual bound; stage 2
 *     stopped or skipped: C = C(G), the packing's traffic sum_l c_l P_l >=
 *     the least traffic (the unbudgeted run's) >= the reported lower bound;
 *     and the packing is real: max_l c_l P_l = C. */
#include <math.h>
#include <string.h>

#include "algos/treepack.h"
#include "core/algo.h"
#include "core/util.h"
#include "../t.h"

static ar_platform *load(const char *name) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_CHECK(ar_platform_load(name, 0, &p, &e) == AR_OK, "load %s: %s", name, e.msg);
    return p;
}

static double max_load(const ar_treepack_result *r) {
    double m = 0;
    for (int l = 0; l < r->nlinks; l++)
        if (r->link_load[l] * r->link_c[l] > m) m = r->link_load[l] * r->link_c[l];
    return m;
}

static double traffic(const ar_treepack_result *r) {
    double t = 0;
    for (int l = 0; l < r->nlinks; l++) t += r->link_load[l] * r->link_c[l];
    return t;
}

static void tiny_budget(const char *name) {
    ar_platform *p = load(name);
    if (!p) return;
    ar_err e = {{0}};
    ar_treepack_result full, r;
    T_OK(ar_treepack_solve(p, NULL, &full, &e));
    ar_treepack_opts o = ar_treepack_defaults();
    o.budget_s = 1e-6;
    T_OK(ar_treepack_solve(p, &o, &r, &e));
    T_CHECK(r.budget_stop == 1, "%s: budget_stop %d, want 1", name, r.budget_stop);
    T_CHECK(r.columns == 1 && r.iterations == 1, "%s: %d columns, %d LP solves after the budget; want 1 and 1", name,
            r.columns, r.iterations);
    T_CHECK(r.C >= full.C * (1 - 1e-9), "%s: budgeted C %.12g below C(G) %.12g", name, r.C, full.C);
    T_CHECK(r.dual_bound <= full.C * (1 + 1e-9), "%s: dual bound %.12g above C(G) %.12g", name, r.dual_bound, full.C);
    T_NEAR(max_load(&r), r.C, 1e-9, "budgeted packing's max load = its C");
    T_CHECK(!r.exact, "%s: a budget-stopped LP claims an exact C(G)", name);
    T_CHECK(r.budget_stop_s >= 0 && r.budget_stop_s < 5, "%s: stopped after %g s", name, r.budget_stop_s);
    char note[200];
    ar_tp_budget_note(&r, note, sizeof note);
    T_CHECK(!strncmp(note, "LP stopped by budget after ", 27) && strstr(note, "C(G) <= ") && strstr(note, "gap"),
            "%s: note \"%s\"", name, note);
    if (!strcmp(name, "p2.16xlarge"))
        T_CHECK(full.exact && full.C_num == 15 && full.C_den == 8 && r.C > 15.0 / 8 + 1e-9,
                "p2.16xlarge: unbudgeted %lld/%lld, budgeted %.12g", (long long)full.C_num, (long long)full.C_den, r.C);
    /* no budget: no note */
    T_CHECK(full.budget_stop == 0 && !ar_tp_budget_note(&full, note, sizeof note)[0], "%s: unbudgeted note", name);
    ar_treepack_result_free(&full);
    ar_treepack_result_free(&r);
    ar_platform_free(p);
}

static void planner_detail(void) {
    ar_platform *p = load("tree:ranks=512");
    if (!p) return;
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("treepack:budget=1ms", p, 4096, 4, &s, &e), e);
    if (s) {
        const char *d = s->detail;
        T_CHECK(d && strstr(d, "; LP stopped by budget after ") && strstr(d, "gap"), "detail \"%s\"", d ? d : "");
        T_OK(ar_schedule_validate(s, &e), e);
        T_OK(ar_schedule_execute_host(s, 0, &e), e);
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

static void stages(void) {
    ar_platform *p = load("fat-tree-64");
    if (!p) return;
    ar_err e = {{0}};
    ar_treepack_result full;
    T_OK(ar_treepack_solve(p, NULL, &full, &e));
    double least = traffic(&full);
    static const double budgets[] = {0.002, 0.010, 0.040};
    int seen[3] = {0};
    for (int b = 0; b < 3; b++) {
        ar_treepack_opts o = ar_treepack_defaults();
        o.budget_s = budgets[b];
        ar_treepack_result r;
        T_OK(ar_treepack_solve(p, &o, &r, &e));
        seen[r.budget_stop]++;
        T_NEAR(max_load(&r), r.C, 1e-9, "budgeted packing's max load = its C");
        if (r.budget_stop == 1) {
            T_CHECK(r.C >= full.C * (1 - 1e-9) && r.dual_bound <= full.C * (1 + 1e-9),
                    "budget %g: %.12g >= %.12g >= %.12g", budgets[b], r.C, full.C, r.dual_bound);
        } else if (r.budget_stop == 2) {
            T_NEAR(r.C, full.C, 1e-9, "stage 2 stopped: C(G) as unbudgeted");
            T_NEAR(traffic(&r), r.traffic, 1e-7, "reported traffic = the packing's");
            T_CHECK(r.traffic >= least * (1 - 1e-9), "budget %g: traffic %.12g below the least %.12g", budgets[b],
                    r.traffic, least);
            T_CHECK(isnan(r.traffic_lower) || r.traffic_lower <= least * (1 + 1e-9),
                    "budget %g: traffic lower bound %.12g above the least %.12g", budgets[b], r.traffic_lower, least);
        }
        char note[200];
        ar_tp_budget_note(&r, note, sizeof note);
        T_CHECK(r.budget_stop ? strstr(note, "by budget after ") != NULL : note[0] == 0,
                "budget %g: stop %d note \"%s\"", budgets[b], r.budget_stop, note);
        ar_treepack_result_free(&r);
    }
    printf("fat-tree-64 budgets 2/10/40 ms: %d none, %d stage 1, %d stage 2 stops\n", seen[0], seen[1], seen[2]);
    T_CHECK(seen[1] + seen[2] >= 1, "no budget stop at 2..40 ms on a 0.2 s solve");
    ar_treepack_result_free(&full);
    ar_platform_free(p);
}

int main(void) {
    tiny_budget("p2.16xlarge");
    tiny_budget("tree:ranks=256");
    tiny_budget("fat-tree-64");
    planner_detail();
    stages();
    return t_done("test_treepack_budget");
}
