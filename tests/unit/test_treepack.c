/* Spanning-tree packing on the paper's platforms:
 *   - P3.16xlarge: C(G) = 7/24 exactly (primal and dual certificates), P3.8xlarge: 1/3;
 *     the Lemma 2.1 chain; the extended formulation agrees; Boruvka's tree;
 *   - P2.16xlarge (PCIe switches that cannot aggregate): C(G) = 15/8 in units of one
 *     x16 link, link loads by class 15/8 : 14/8 : 1 = 15:14:8 (the paper's ratio);
 *   - the schedule passes the validator and the host executor on all three, and the
 *     generic cost walk equals the closed form of models/treepack_model.c. */
#include <string.h>

#include "algos/treepack.h"
#include "core/algo.h"
#include "core/lower.h"
#include "models/model.h"
#include "../t.h"

static ar_platform *load(const char *name) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(name, 0, &p, &e);
    T_CHECK(st == AR_OK, "load %s: %s", name, e.msg);
    return st == AR_OK ? p : NULL;
}

static void check_schedule(const ar_platform *p, const char *spec, uint64_t count) {
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan(spec, p, count, 4, &s, &e);
    T_CHECK(st == AR_OK, "%s on %s: plan: %s", spec, p->name, e.msg);
    if (st != AR_OK) return;
    st = ar_schedule_validate(s, &e);
    T_CHECK(st == AR_OK, "%s on %s count %llu: validator: %s", spec, p->name, (unsigned long long)count, e.msg);
    st = ar_schedule_execute_host(s, 0, &e);
    T_CHECK(st == AR_OK, "%s on %s count %llu: executor: %s", spec, p->name, (unsigned long long)count, e.msg);
    ar_schedule_free(s);
}

/* Walk of the planned schedule vs the closed form from the solver's streams. */
static void check_model(const ar_platform *p, const ar_treepack_result *r, int chunks, uint64_t count) {
    char spec[64];
    snprintf(spec, sizeof spec, "treepack:chunks=%d", chunks);
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    if (ar_algo_plan(spec, p, count, 4, &s, &e) != AR_OK) {
        T_CHECK(0, "plan %s: %s", spec, e.msg);
        return;
    }
    ar_model_result walk, cf;
    T_OK(ar_model_walk(p, s, &walk, &e));
    /* the planner's default units: stream s carries per[s] / K of the data */
    ar_tp_model_stream ms[512];
    int per[512], ns = 0;
    double cq = 0;
    int K = r->nstreams <= 512 ? ar_treepack_pick_units(r, AR_TP_UNITS_TOL, AR_TP_UNITS_MAX, per, &cq) : 0;
    T_CHECK(K > 0 && cq <= r->C_dir * 1.03 + 1e-12, "%s: units K=%d C_dir %g -> %g", p->name, K, r->C_dir, cq);
    for (int i = 0; i < r->nstreams && K > 0; i++)
        if (per[i] > 0) ms[ns++] = (ar_tp_model_stream){r->streams[i].parent, (double)per[i] / K};
    T_OK(ar_model_treepack(p, ms, ns, (double)count * 4, chunks, &cf, &e));
    T_NEAR(walk.time_s, cf.time_s, 1e-6, p->name);
    double cdir_s = cq * (double)count * 4 / r->bw_ref_Bps;
    double up = ar_model_treepack_upper(r->max_height, chunks, 1e-6, cdir_s), lo = ar_model_treepack_lower(cdir_s);
    T_CHECK(cf.time_s <= up * (1 + 1e-9) && cf.time_s >= lo * (1 - 1e-9), "%s: %g not in [%g, %g]", p->name, cf.time_s,
            lo, up);
    printf("%s: %s %llu B, %d units: walk %.6f ms, closed form %.6f ms, bounds [%.6f, %.6f] ms, Dmax %d\n", p->name,
           spec, (unsigned long long)count * 4, K, walk.time_s * 1e3, cf.time_s * 1e3, lo * 1e3, up * 1e3,
           r->max_height);
    ar_schedule_free(s);
}

static void test_p3(const char *name, int64_t num, int64_t den) {
    ar_platform *p = load(name);
    if (!p) return;
    ar_treepack_opts o = ar_treepack_defaults();
    o.compact = 1;
    ar_treepack_result r;
    ar_err e = {{0}};
    ar_status st = ar_treepack_solve(p, &o, &r, &e);
    T_CHECK(st == AR_OK, "%s: %s", name, e.msg);
    if (st != AR_OK) {
        ar_platform_free(p);
        return;
    }
    T_CHECK(r.direct == 1, "%s: NVLink graph should be direct", name);
    T_CHECK(r.exact == 1 && r.C_num == num && r.C_den == den, "%s: C(G) = %lld/%lld (exact %d, %.12g), want %lld/%lld",
            name, (long long)r.C_num, (long long)r.C_den, r.exact, r.C, (long long)num, (long long)den);
    T_NEAR(r.C, (double)num / (double)den, 1e-12, "C(G)");
    T_NEAR(r.C_compact, (double)num / (double)den, 1e-7, "C(G) by the extended formulation");
    T_NEAR(r.dual_bound, r.C, 1e-9, "dual bound");
    /* Lemma 2.1 chain */
    T_CHECK(r.max_c >= r.mwst - 1e-12 && r.mwst >= r.C - 1e-12 && r.C >= r.lower - 1e-12,
            "%s: chain %g >= %g >= %g >= %g", name, r.max_c, r.mwst, r.C, r.lower);
    T_NEAR(r.lower, (double)num / (double)den, 1e-12, "Lemma 2.1 lower bound");
    T_NEAR(r.max_c, 1.0, 1e-12, "max c_e");
    /* every link's load times c_e equals C(G) (the bound is tight) */
    for (int l = 0; l < r.nlinks; l++) T_NEAR(r.link_load[l] * r.link_c[l], r.C, 1e-9, "P_e c_e");
    double sum = 0;
    for (int i = 0; i < r.ntrees; i++) sum += r.trees[i].weight;
    T_NEAR(sum, 1.0, 1e-12, "tree weights");
    /* directed: the roots split every link's load between its directions */
    T_CHECK(r.C_dir <= r.C + 1e-12 && r.C_dir >= r.C / 2 - 1e-12, "%s: C_dir %g", name, r.C_dir);
    printf("%s: C(G) = %lld/%lld, %d trees, %d streams, C_dir = %.6g, MWST %.6g, ring %.6g, %d columns, %.3f ms "
           "(extended formulation %.3f ms, %d x %d)\n",
           name, (long long)r.C_num, (long long)r.C_den, r.ntrees, r.nstreams, r.C_dir, r.mwst, r.ring, r.columns,
           r.solve_s * 1e3, r.compact_s * 1e3, r.compact_rows, r.compact_cols);
    check_schedule(p, "treepack", 1000);
    check_schedule(p, "treepack:chunks=3", 7);
    check_schedule(p, "treepack:chunks=5,units=0", 1001);
    check_schedule(p, "treepack:units=7,roots=first", 333);
    check_model(p, &r, 16, 1u << 26);
    ar_treepack_result_free(&r);
    ar_platform_free(p);
}

/* Boruvka's tree on P3.16xlarge: the dual NVLinks form the Hamiltonian cycle
 * 0-3-2-1-5-6-7-4-0, so the best single tree is a chain of 7 dual links,
 * C(T_MWST) = 1/2 (the paper: "the chain connecting all nodes with dual NVLink
 * edges"). */
static void test_mwst(void) {
    ar_platform *p = load("p3.16xlarge");
    if (!p) return;
    ar_treepack_result r;
    ar_err e = {{0}};
    if (ar_treepack_solve(p, NULL, &r, &e) != AR_OK) {
        T_CHECK(0, "%s", e.msg);
        ar_platform_free(p);
        return;
    }
    T_NEAR(r.mwst, 0.5, 1e-12, "C(T_MWST) on P3.16xlarge (a Hamiltonian chain of dual NVLinks)");
    int duals = 0;
    for (int i = 0; i < r.nranks - 1; i++) duals += p->links[r.pairs[r.mwst_pairs[i]].link].lanes == 2;
    T_CHECK(duals == 7, "MWST uses %d dual links", duals);
    /* ring in rank order: 3->4 has no NVLink: routed over two hops */
    T_CHECK(r.ring > r.C, "ring %g vs C %g", r.ring, r.C);
    ar_treepack_result_free(&r);
    ar_platform_free(p);
}

/* P2.16xlarge: every link is x16; C(G) = 15/8 of one link's time. */
static void test_p2(void) {
    ar_platform *p = load("p2.16xlarge");
    if (!p) return;
    ar_treepack_result r;
    ar_err e = {{0}};
    ar_status st = ar_treepack_solve(p, NULL, &r, &e);
    T_CHECK(st == AR_OK, "p2: %s", e.msg);
    if (st != AR_OK) {
        ar_platform_free(p);
        return;
    }
    T_CHECK(r.direct == 0, "p2 has switches");
    T_CHECK(r.exact && r.C_num == 15 && r.C_den == 8, "p2: C(G) = %lld/%lld exact %d (%.12g), want 15/8",
            (long long)r.C_num, (long long)r.C_den, r.exact, r.C);
    /* classes: GPU-card links, card-plx links, the bridge */
    double sum[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
    int cnt[3] = {0, 0, 0};
    for (int l = 0; l < p->nlinks; l++) {
        const ar_link *lk = &p->links[l];
        int gpu = p->nodes[lk->a].kind == AR_NODE_GPU || p->nodes[lk->b].kind == AR_NODE_GPU;
        int bridge = !strcmp(lk->name, "bridge");
        int k = gpu ? 0 : bridge ? 2 : 1;
        sum[k] += r.link_load[l];
        if (r.link_load[l] > mx[k]) mx[k] = r.link_load[l];
        cnt[k]++;
    }
    T_CHECK(cnt[0] == 16 && cnt[1] == 8 && cnt[2] == 1, "p2 classes %d %d %d", cnt[0], cnt[1], cnt[2]);
    double m0 = sum[0] / cnt[0], m1 = sum[1] / cnt[1], m2 = sum[2] / cnt[2];
    T_NEAR(m0, 15.0 / 8, 1e-9, "intra-card PLX mean load");
    T_NEAR(m1, 14.0 / 8, 1e-9, "inter-card PLX mean load");
    T_NEAR(m2, 1.0, 1e-9, "central bridge load");
    T_NEAR(mx[0], 15.0 / 8, 1e-9, "intra-card PLX max load");
    printf("p2.16xlarge: C(G) = %lld/%lld; mean loads intra-card %.6g : inter-card %.6g (max %.6g) : bridge %.6g "
           "= %.6g : %.6g : 8; %d trees, %d streams, C_dir %.6g, %d columns, %.3f ms\n",
           (long long)r.C_num, (long long)r.C_den, m0, m1, mx[1], m2, m0 * 8 / m2, m1 * 8 / m2, r.ntrees, r.nstreams,
           r.C_dir, r.columns, r.solve_s * 1e3);
    check_schedule(p, "treepack", 1000);
    check_schedule(p, "treepack:chunks=4,units=0", 777);
    check_model(p, &r, 16, 1u << 24);
    ar_treepack_result_free(&r);
    ar_platform_free(p);
}

int main(void) {
    /* (also pulls the registry in ahead of core/algo.c in the static link) */
    const ar_algo *a = ar_algo_find("treepack");
    T_CHECK(a && !strcmp(a->name, "treepack"), "treepack is registered");
    test_p3("p3.16xlarge", 7, 24);
    test_p3("p3.8xlarge", 1, 3);
    test_mwst();
    test_p2();
    return t_done("test_treepack");
}
