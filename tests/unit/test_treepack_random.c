/* Spanning-tree packing on random connected graphs.
 *
 * 170 graphs: 110 with 2..8 GPUs, 60 with 9..16; random lane counts 1..3; one
 * graph in four mixes two bandwidths (25 and 12.5 GB/s, so c_e stays rational).
 * For every graph:
 *   - Lemma 2.1: max_e c_e >= C(T_MWST) >= C(G) >= (n-1) / sum_e 1/c_e;
 *   - the column-generation optimum equals the extended (flow) formulation's
 *     and the dual's lower bound; the packing's loads attain it;
 *   - the schedule passes ar_schedule_validate and ar_schedule_execute_host
 *     (default units on even graphs, units=0 on odd ones), and on every fifth
 *     graph the cost walk equals the closed form (models/treepack_model.c);
 * and where brute force is feasible:
 *   - n <= 8: C(G) equals the best partition bound max_Pi (|Pi|-1)/cap(delta(Pi))
 *     over all set partitions (Nash-Williams/Tutte: the fractional spanning-tree
 *     packing number is min_Pi cap(delta(Pi))/(|Pi|-1), and C(G) is its inverse),
 *     exactly (rational compare) when the solver certified its value;
 *   - when the graph has at most 3000 spanning trees: all of them are enumerated,
 *     the LP over all of them is solved with GLPK, and its value equals C(G);
 *     the best single tree's bottleneck equals Boruvka's C(T_MWST).
 * The test prints how many graphs each check covered. */
#include <glpk.h>
#include <string.h>

#include "algos/treepack.h"
#include "core/algo.h"
#include "core/util.h"
#include "models/model.h"
#include "../t_plan.h"

#define MAXN 16
#define MAXE (MAXN * (MAXN - 1) / 2)
#define MAX_TREES 3000

typedef struct graph {
    int n, m;
    int a[MAXE], b[MAXE], lanes[MAXE];
    double bw[MAXE]; /* GB/s */
} graph;

static unsigned rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffffu;
}

static void gen(graph *g, int n, unsigned *seed) {
    memset(g, 0, sizeof *g);
    g->n = n;
    int adj[MAXN][MAXN] = {{0}};
    int mixed = rnd(seed) % 4 == 0;
    /* random spanning tree: vertex i joins a random earlier vertex */
    for (int i = 1; i < n; i++) {
        int j = (int)(rnd(seed) % (unsigned)i);
        adj[i][j] = adj[j][i] = 1;
    }
    unsigned dens = 10 + rnd(seed) % 60; /* percent of the remaining pairs */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!adj[i][j] && rnd(seed) % 100 < dens) adj[i][j] = adj[j][i] = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (adj[i][j]) {
                g->a[g->m] = i;
                g->b[g->m] = j;
                g->lanes[g->m] = 1 + (int)(rnd(seed) % 3);
                g->bw[g->m] = mixed && rnd(seed) % 2 ? 12.5 : 25.0;
                g->m++;
            }
    /* shuffle the link order (file order must not matter) */
    for (int k = g->m - 1; k > 0; k--) {
        int r = (int)(rnd(seed) % (unsigned)(k + 1));
        int ta = g->a[k], tb = g->b[k], tl = g->lanes[k];
        double tw = g->bw[k];
        g->a[k] = g->a[r], g->b[k] = g->b[r], g->lanes[k] = g->lanes[r], g->bw[k] = g->bw[r];
        g->a[r] = ta, g->b[r] = tb, g->lanes[r] = tl, g->bw[r] = tw;
    }
}

static ar_platform *to_platform(const graph *g, int id) {
    static const size_t cap = 64 + MAXE * 96;
    char *js = malloc(cap);
    if (!js) return NULL;
    size_t len = (size_t)snprintf(js, cap, "{\"name\":\"rand%d\",\"kind\":\"graph\",\"gpus\":%d,\"links\":[", id, g->n);
    for (int k = 0; k < g->m; k++)
        len += (size_t)snprintf(js + len, cap - len,
                                "%s{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"%gGBps\",\"lat\":\"1us\",\"lanes\":%d}",
                                k ? "," : "", g->a[k], g->b[k], g->bw[k], g->lanes[k]);
    snprintf(js + len, cap - len, "]}");
    char what[32];
    snprintf(what, sizeof what, "graph %d", id);
    return load_json_text(js, what);
}

/* capacity of link k in units of 12.5 GB/s (an integer); c_k = ref / capu(k) with
 * ref = bw_ref / 12.5 GB/s (bw_ref = the largest per-lane bandwidth) */
static int capu(const graph *g, int k) { return g->lanes[k] * (int)(g->bw[k] / 12.5 + 0.5); }

static int ref_units(const graph *g) {
    int ref = 1;
    for (int k = 0; k < g->m; k++)
        if (g->bw[k] > 20) ref = 2;
    return ref;
}

/* --- brute force 1: all set partitions (restricted growth strings) -------- */
static void partitions(const graph *g, int *best_num, int *best_den) {
    int n = g->n, label[MAXN] = {0}, maxl[MAXN] = {0};
    *best_num = 0;
    *best_den = 1;
    for (;;) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (label[i] + 1 > k) k = label[i] + 1;
        if (k >= 2) {
            int cut = 0;
            for (int e = 0; e < g->m; e++)
                if (label[g->a[e]] != label[g->b[e]]) cut += capu(g, e);
            /* (k-1)/cut > best_num/best_den ? */
            if ((long long)(k - 1) * *best_den > (long long)*best_num * cut) {
                *best_num = k - 1;
                *best_den = cut;
            }
        }
        /* next restricted growth string */
        int i = n - 1;
        while (i > 0 && label[i] == maxl[i - 1] + 1) i--;
        if (i == 0) break;
        label[i]++;
        for (int j = i; j < n; j++) {
            if (j > i) label[j] = 0;
            maxl[j] = (j ? maxl[j - 1] : 0) > label[j] ? (j ? maxl[j - 1] : 0) : label[j];
        }
    }
}

/* --- brute force 2: enumerate spanning trees, solve the LP over all -------- */
/* Enumerates (n-1)-subsets of edges that are spanning trees (up to MAX_TREES);
 * returns the count or -1 when there are more (or too many subsets). */
static int enum_trees(const graph *g, unsigned char (*trees)[MAXE]) {
    int n = g->n, m = g->m, k = n - 1, idx[MAXN], count = 0;
    if (k == 0 || k > m) return 0;
    /* C(m, k) guard */
    double comb = 1;
    for (int i = 0; i < k; i++) comb = comb * (m - i) / (i + 1);
    if (comb > 3e5) return -1;
    for (int i = 0; i < k; i++) idx[i] = i;
    for (;;) {
        int u[MAXN];
        ar_uf_init(u, n);
        int ok = 1;
        for (int i = 0; i < k && ok; i++) ok = ar_uf_union(u, g->a[idx[i]], g->b[idx[i]]);
        if (ok) {
            if (count == MAX_TREES) return -1;
            memset(trees[count], 0, MAXE);
            for (int i = 0; i < k; i++) trees[count][idx[i]] = 1;
            count++;
        }
        int i = k - 1;
        while (i >= 0 && idx[i] == m - k + i) i--;
        if (i < 0) break;
        idx[i]++;
        for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    }
    return count;
}

static double lp_over_trees(const graph *g, unsigned char (*trees)[MAXE], int nt) {
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, 1 + g->m);
    glp_set_row_bnds(lp, 1, GLP_FX, 1, 1);
    for (int e = 0; e < g->m; e++) glp_set_row_bnds(lp, 2 + e, GLP_UP, 0, 0);
    glp_add_cols(lp, 1 + nt);
    glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
    glp_set_obj_coef(lp, 1, 1);
    int ind[MAXE + 2];
    double val[MAXE + 2];
    for (int e = 0; e < g->m; e++) {
        ind[e + 1] = 2 + e;
        val[e + 1] = -1;
    }
    glp_set_mat_col(lp, 1, g->m, ind, val);
    for (int t = 0; t < nt; t++) {
        int len = 0;
        ind[++len] = 1;
        val[len] = 1;
        for (int e = 0; e < g->m; e++)
            if (trees[t][e]) {
                ind[++len] = 2 + e;
                val[len] = (double)ref_units(g) / capu(g, e);
            }
        glp_set_col_bnds(lp, 2 + t, GLP_LO, 0, 0);
        glp_set_mat_col(lp, 2 + t, len, ind, val);
    }
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    double v = glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT ? glp_get_obj_val(lp) : NAN;
    glp_delete_prob(lp);
    return v;
}

int main(void) {
    const ar_algo *al = ar_algo_find("treepack"); /* also pulls the registry in ahead of core/algo.c */
    T_CHECK(al != NULL, "treepack registered");
    unsigned seed = 20180101u;
    static unsigned char trees[MAX_TREES][MAXE];
    int graphs = 0, small = 0, exact = 0, exact_bf = 0, enumerated = 0, scheduled = 0, maxn = 0;
    for (int gi = 0; gi < 170; gi++) {
        int n = gi < 110 ? 2 + gi % 7 : 9 + (gi - 110) % 8;
        graph g;
        gen(&g, n, &seed);
        ar_platform *p = to_platform(&g, gi);
        if (!p) continue;
        graphs++;
        if (n > maxn) maxn = n;
        ar_treepack_opts o = ar_treepack_defaults();
        o.compact = 1;
        ar_treepack_result r;
        ar_err e = {{0}};
        ar_status st = ar_treepack_solve(p, &o, &r, &e);
        T_CHECK(st == AR_OK, "graph %d: %s", gi, e.msg);
        if (st != AR_OK) {
            ar_platform_free(p);
            continue;
        }
        char what[64];
        snprintf(what, sizeof what, "graph %d (n=%d m=%d)", gi, n, g.m);
        const double tol = 1e-9;
        T_CHECK(r.max_c >= r.mwst * (1 - tol) && r.mwst >= r.C * (1 - tol) && r.C >= r.lower * (1 - tol),
                "%s: Lemma 2.1 chain %.12g >= %.12g >= %.12g >= %.12g", what, r.max_c, r.mwst, r.C, r.lower);
        T_NEAR(r.C_compact, r.C, 1e-7, what);
        T_NEAR(r.dual_bound, r.C, 1e-7, what);
        double worst = 0, wsum = 0;
        for (int l = 0; l < r.nlinks; l++)
            if (r.link_load[l] * r.link_c[l] > worst) worst = r.link_load[l] * r.link_c[l];
        for (int i = 0; i < r.ntrees; i++) {
            wsum += r.trees[i].weight;
            T_CHECK(ar_treepack_tree_cost(&r, r.trees[i].pairs, n - 1) < INFINITY, "%s: tree %d not spanning", what, i);
        }
        T_NEAR(worst, r.C, 1e-9, what);
        T_NEAR(wsum, 1.0, 1e-9, what);
        T_CHECK(r.C_dir <= r.C * (1 + 1e-9) && r.C_dir >= r.C / 2 * (1 - 1e-9), "%s: C_dir %g vs C %g", what, r.C_dir,
                r.C);
        exact += r.exact;
        if (n <= 8) {
            int bn, bd;
            partitions(&g, &bn, &bd);
            /* C = ref * bn/bd (capacities in 12.5 GB/s units, c_e relative to bw_ref) */
            int ref = ref_units(&g);
            T_NEAR(r.C, (double)ref * bn / bd, 1e-9, what);
            if (r.exact) {
                T_CHECK((long long)r.C_num * bd == (long long)ref * bn * r.C_den,
                        "%s: exact C %lld/%lld vs partitions %d*%d/%d", what, (long long)r.C_num, (long long)r.C_den,
                        ref, bn, bd);
                exact_bf++;
            }
            small++;
        }
        int nt = enum_trees(&g, trees);
        if (nt > 0) {
            double v = lp_over_trees(&g, trees, nt);
            T_NEAR(r.C, v, 1e-9, what);
            double bott = INFINITY;
            for (int t = 0; t < nt; t++) {
                double b = 0;
                for (int k = 0; k < g.m; k++)
                    if (trees[t][k] && (double)ref_units(&g) / capu(&g, k) > b) b = (double)ref_units(&g) / capu(&g, k);
                if (b < bott) bott = b;
            }
            /* Boruvka's tree is a minimum-bottleneck tree; C(T) of a single tree is its bottleneck */
            T_NEAR(r.mwst, bott, 1e-12, what);
            enumerated++;
        }
        /* schedules: default units on even graphs, the exact split (units=0) on odd ones */
        uint64_t count = 40 + rnd(&seed) % 200;
        const char *specs[2] = {"treepack:chunks=3", "treepack:units=0,chunks=2"};
        int sched_ok = 1;
        for (int k = gi % 2; k < 2; k += 2) {
            ar_schedule *s = NULL;
            st = ar_algo_plan(specs[k], p, count, 4, &s, &e);
            T_CHECK(st == AR_OK, "%s: plan %s: %s", what, specs[k], e.msg);
            if (st != AR_OK) {
                sched_ok = 0;
                continue;
            }
            st = ar_schedule_validate(s, &e);
            T_CHECK(st == AR_OK, "%s: %s count %llu: validator: %s", what, specs[k], (unsigned long long)count, e.msg);
            sched_ok &= st == AR_OK;
            st = ar_schedule_execute_host(s, 0, &e);
            T_CHECK(st == AR_OK, "%s: %s count %llu: executor: %s", what, specs[k], (unsigned long long)count, e.msg);
            sched_ok &= st == AR_OK;
            ar_schedule_free(s);
        }
        scheduled += sched_ok;
        /* walk of the default schedule == closed form, on a large message */
        if (gi % 5 == 0 && n > 1) {
            uint64_t big = 1u << 22;
            ar_schedule *s = NULL;
            if (ar_algo_plan("treepack", p, big, 4, &s, &e) == AR_OK) {
                ar_model_result w, cf;
                int per[4096];
                double cq;
                int K = r.nstreams <= 4096 ? ar_treepack_pick_units(&r, AR_TP_UNITS_TOL, AR_TP_UNITS_MAX, per, &cq) : 0;
                ar_tp_model_stream ms[4096];
                int ns = 0;
                for (int i = 0; i < r.nstreams && K > 0; i++)
                    if (per[i]) ms[ns++] = (ar_tp_model_stream){r.streams[i].parent, (double)per[i] / K};
                T_OK(ar_model_walk(p, s, &w, &e));
                T_OK(ar_model_treepack(p, ms, ns, (double)big * 4, 16, &cf, &e));
                T_NEAR(w.time_s, cf.time_s, 1e-5, what);
                ar_schedule_free(s);
            }
        }
        ar_treepack_result_free(&r);
        ar_platform_free(p);
    }
    printf("random graphs: %d (2..%d GPUs, lanes 1..3); Lemma 2.1 chain, column generation = extended formulation = "
           "dual bound on all; partition brute force on %d graphs with <= 8 GPUs (%d compared exactly); LP over all "
           "enumerated spanning trees on %d graphs; %d certified exact; schedules validated and executed on %d\n",
           graphs, maxn, small, exact_bf, enumerated, exact, scheduled);
    T_CHECK(graphs >= 100 && small >= 100 && scheduled == graphs, "coverage");
    return t_done("test_treepack_random");
}
