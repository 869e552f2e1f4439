/* arlab trees --platform P [--size S] [--algo treepack:chunks=N,...] [--check]
 *             [--format table|csv|json]
 *
 * Spanning-tree packing (algos/treepack.h): C(G) (exact p/q when certified),
 * the Lemma 2.1 bounds, the best single tree (Boruvka), the rank-order ring,
 * the packing's trees and weights, the streams (tree, root, weight) the
 * schedule runs, and the load of every link; on a platform whose links form a
 * tree (switches, e.g. P2.16xlarge) the loads by link class and their ratio.
 * With --size: the schedule's predicted time (models/model_treepack.h) for the
 * planner's units and chunks. With --check: the extended formulation is solved
 * too and must agree.
 *
 * Units: c_e = bw_ref / capacity(e), bw_ref = the largest per-lane bandwidth:
 * the time to send the whole gradient over e in units of one lane at bw_ref
 * (the paper's 1/lanes on an NVLink graph). Loads P_e are fractions of the
 * gradient; P_e c_e <= C(G) with equality on the bottleneck links.
 *
 * Output sections: summary (key, value, meaning), trees, streams, links,
 * classes. CSV is long-form, one value per line, with columns
 *     platform,section,item,key,value
 * (item = the row's first column: the summary key, tree index, stream index,
 * link name or class). JSON is one object {"platform": ..., "summary": [...],
 * "trees": [...], "streams": [...], "links": [...], "classes": [...]}.
 *
 * Ownership: everything allocated here is freed before returning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/treepack.h"
#include "cli.h"
#include "models/model.h"
#include "core/textio.h"
#include "core/util.h"

static void kv(cli_table *t, const char *key, const char *val, const char *meaning) {
    int r = tbl_row(t);
    tbl_str(t, r, 0, key);
    tbl_str(t, r, 1, val);
    tbl_str(t, r, 2, meaning);
}

static void kvn(cli_table *t, const char *key, double v, const char *meaning) {
    int r = tbl_row(t);
    tbl_str(t, r, 0, key);
    tbl_num(t, r, 1, "%.9g", v);
    tbl_str(t, r, 2, meaning);
}

/* a time in seconds: SI in the table, like every *_s column */
static void kvt(cli_table *t, const char *key, double v, const char *meaning) {
    kvn(t, key, v, meaning);
    tbl_set_cell_unit(t, t->nrows - 1, 1, TBL_UNIT_TIME);
}

static char *frac_str(double x, ar_tp_frac f, char *buf, size_t n) {
    if (f.den > 0) snprintf(buf, n, "%lld/%lld", (long long)f.num, (long long)f.den);
    else snprintf(buf, n, "%.9g", x);
    return buf;
}

static void print_section(const char *title, const cli_table *t) {
    if (!t->nrows) return;
    printf("\n%s\n", title);
    tbl_print(t, FMT_TABLE, stdout);
}

/* Long-form CSV rows: platform,section,item,key,value (item = first column). */
static void csv_section(const char *plat, const char *section, const cli_table *t) {
    int summary = !strcmp(section, "summary");
    for (int r = 0; r < t->nrows; r++)
        for (int c = 1; c < (summary ? 2 : t->ncols); c++) {
            const char *item = t->cells[(size_t)r * (size_t)t->ncols].s;
            const char *val = t->cells[(size_t)r * (size_t)t->ncols + (size_t)c].s;
            ar_csv_field(stdout, plat);
            printf(",%s,", section);
            ar_csv_field(stdout, item ? item : "");
            putchar(',');
            ar_csv_field(stdout, summary ? "value" : t->cols[c]);
            putchar(',');
            ar_csv_field(stdout, val ? val : "");
            putchar('\n');
        }
}

/* One platform's packing and everything printed about it. */
typedef struct trees_out {
    const ar_platform *p;
    const ar_treepack_result *r;
    const ar_treepack_opts *opts;
    int K;     /* units the schedule runs (0: one op per stream) */
    int *per;  /* units per stream */
    int *cls;  /* link class per link (switched tree-shaped platforms) */
    double cq; /* C_dir after rounding to units */
    cli_table sum, tt, stt, lt, ct;
    char ratio_keys[200], ratio_vals[200];
} trees_out;

/* The summary: C(G), its bounds, the solver, --check's extended formulation (*rc = AR_EFAIL when it
 * disagrees) and, with a size, the predicted time. */
static void summary_table(trees_out *x, const cli_opts *o, long long chunks, ar_status *rc) {
    const ar_platform *p = x->p;
    const ar_treepack_result *r = x->r;
    const ar_treepack_opts opts = *x->opts;
    int n = r->nranks, ns = r->nstreams, K = x->K;
    double cq = x->cq;
    ar_err e = {{0}};
    char b1[96], b2[96], b3[160];
    static const char *const scol[] = {"key", "value", "meaning"};
    tbl_init(&x->sum, 3, scol);
    kv(&x->sum, "platform", p->name, p->source ? p->source : "");
    snprintf(b1, sizeof b1, "%d", n);
    kv(&x->sum, "gpus", b1, "ranks = vertices of the spanning trees");
    kv(&x->sum, "graph", r->direct ? "direct" : "switched",
       r->direct ? "every link joins two GPUs: tree edges are links (the paper's Sec. 2)"
                 : "switches cannot aggregate: tree edges are GPU pairs routed through them (Sec. 3)");
    snprintf(b1, sizeof b1, "%s / capacity", ar_fmt_rate(r->bw_ref_Bps, b2, sizeof b2));
    kv(&x->sum, "unit", b1, "c_e: time to send the whole gradient over e, in one lane at bw_ref (1/lanes)");
    kv(&x->sum, "C(G)", frac_str(r->C, (ar_tp_frac){r->C_num, r->C_den}, b1, sizeof b1),
       r->exact ? "min over the spanning-tree polytope of max_e P_e c_e (Eq. 2); exact: primal and dual "
                  "certificates checked in integer arithmetic"
                : "min over the spanning-tree polytope of max_e P_e c_e (Eq. 2); floating point");
    kvn(&x->sum, "C(G) value", r->C, "");
    kvn(&x->sum, "max c_e", r->max_c, "Lemma 2.1: max_e c_e >= C(T_MWST) >= C(G) >= (n-1)/sum_e 1/c_e");
    kvn(&x->sum, "C(T_MWST)", r->mwst,
        r->direct ? "best single tree (Boruvka's minimum spanning tree = minimum bottleneck tree)"
                  : "best single tree found: Boruvka on route lengths or the packing's best tree (not proven "
                    "optimal with switches)");
    kvn(&x->sum, "lower bound", r->lower, r->direct ? "(n-1) / sum_e 1/c_e" : "(only on direct graphs)");
    kvn(&x->sum, "dual bound", r->dual_bound, "MST under the LP dual: a proven lower bound on C(G)");
    kvn(&x->sum, "ring", r->ring, "rank-order ring, per phase: (n-1)/n max_e c_e x (ring hops routed over e)");
    snprintf(b1, sizeof b1, "%d", r->ntrees);
    kv(&x->sum, "trees", b1, "spanning trees with positive weight");
    snprintf(b1, sizeof b1, "%d", ns);
    kv(&x->sum, "streams", b1, opts.root_lp ? "(tree, root) pairs of the root LP" : "every tree rooted at rank 0");
    kvn(&x->sum, "C_dir", r->C_dir,
        "max over directed links of c_e Q_e (reduce-phase load): the cost of one phase; >= C(G)/2 with full duplex");
    snprintf(b1, sizeof b1, "%d", K);
    kv(&x->sum, "units", b1, K ? "equal ops the schedule runs (stream s gets per_s of them)" : "one op per stream");
    kvn(&x->sum, "C_dir (units)", cq, "C_dir after rounding the streams to units");
    snprintf(b1, sizeof b1, "%d", r->max_height);
    kv(&x->sum, "max height", b1, "deepest stream: pipeline fill");
    snprintf(b1, sizeof b1, "%d columns, %d LP solves, %.3f ms; roots %.3f ms (%d candidates)", r->columns,
             r->iterations, r->solve_s * 1e3, r->root_s * 1e3, r->root_columns);
    kv(&x->sum, "solver", b1, "column generation with a minimum-spanning-tree pricing step (GLPK simplex)");
    if (opts.budget_s > 0)
        kv(&x->sum, "budget", r->budget_stop ? ar_tp_budget_note(r, b3, sizeof b3) : "not reached",
           "the LP's wall budget (treepack:budget=T)");
    if (o->check) {
        if (r->direct) {
            snprintf(b1, sizeof b1, "%.12g (%d rows x %d columns, %.3f ms)", r->C_compact, r->compact_rows,
                     r->compact_cols, r->compact_s * 1e3);
            kv(&x->sum, "extended formulation", b1, "multicommodity-flow formulation of the spanning-tree polytope");
            if (!(fabs(r->C_compact - r->C) <= 1e-7 * r->C)) *rc = AR_EFAIL;
        } else {
            kv(&x->sum, "extended formulation", "-", "only on direct graphs");
        }
    }
    if (o->nsizes) {
        uint64_t count;
        if (cli_size(o, 0, &count) != AR_OK) {
            *rc = AR_EINVAL;
        } else {
            double bytes = (double)count * (double)ar_dtype_size(o->dtype);
            ar_tp_prediction pr;
            if (ar_treepack_predict(p, r, K, x->per, (int)chunks, bytes, cq, &pr, &e) == AR_OK) {
                kv(&x->sum, "size", ar_fmt_bytes(bytes, b2, sizeof b2), "");
                snprintf(b1, sizeof b1, "%lld", chunks);
                kv(&x->sum, "chunks", b1, "pipeline chunks per op");
                kvt(&x->sum, "C(G) seconds", pr.C_s, "C(G) x bytes / bw_ref");
                kvt(&x->sum, "predicted s", pr.model.time_s,
                    "schedule time: sum over both phases and their Dmax+c-1 rounds of the slowest tree edge "
                    "(model_treepack.h)");
                snprintf(b3, sizeof b3, "2 C_dir S = %.6g <= T <= 2 (Dmax+c-1)(alpha + C_dir S/c) = %.6g", pr.lower_s,
                         pr.upper_s);
                kv(&x->sum, "bounds s", b3, "S = bytes / bw_ref, alpha = largest link latency");
            }
        }
    }
}

/* The packing's trees: weight, C(T), edges. */
static void trees_table(trees_out *x) {
    const ar_treepack_result *r = x->r;
    int n = r->nranks;
    char b1[96];
    /* trees */
    static const char *const tcol[] = {"tree", "weight", "weight_value", "C(T)", "edges"};
    tbl_init(&x->tt, 5, tcol);
    for (int i = 0; i < r->ntrees; i++) {
        int row = tbl_row(&x->tt);
        tbl_int(&x->tt, row, 0, i);
        tbl_str(&x->tt, row, 1, frac_str(r->trees[i].weight, r->trees[i].wexact, b1, sizeof b1));
        tbl_num(&x->tt, row, 2, "%.9g", r->trees[i].weight);
        tbl_num(&x->tt, row, 3, "%.6g", r->trees[i].cost);
        size_t cap = (size_t)n * 16 + 1, len = 0;
        char *ed = malloc(cap);
        if (ed) {
            ed[0] = 0;
            for (int j = 0; j < n - 1; j++)
                len += (size_t)snprintf(ed + len, cap - len, "%s%d-%d", j ? " " : "", r->pairs[r->trees[i].pairs[j]].u,
                                        r->pairs[r->trees[i].pairs[j]].v);
            tbl_str(&x->tt, row, 4, ed);
            free(ed);
        }
    }
}

/* The streams the schedule runs: (tree, root, weight, units, height). */
static void streams_table(trees_out *x) {
    const ar_treepack_result *r = x->r;
    int ns = r->nstreams;
    /* streams */
    static const char *const stcol[] = {"stream", "tree", "root", "weight", "units", "height"};
    tbl_init(&x->stt, 6, stcol);
    for (int i = 0; i < ns; i++) {
        int row = tbl_row(&x->stt);
        tbl_int(&x->stt, row, 0, i);
        tbl_int(&x->stt, row, 1, r->streams[i].tree);
        tbl_int(&x->stt, row, 2, r->streams[i].root);
        tbl_num(&x->stt, row, 3, "%.9g", r->streams[i].weight);
        tbl_int(&x->stt, row, 4, x->K ? x->per[i] : 0);
        tbl_int(&x->stt, row, 5, r->streams[i].height);
    }
}

/* Every link's cost and load; returns whether the links have classes (switched tree-shaped platforms). */
static int links_table(trees_out *x) {
    const ar_platform *p = x->p;
    const ar_treepack_result *r = x->r;
    char b1[96];
    /* links */
    static const char *const lcol[] = {"link",       "a",        "b",    "lanes", "c_e",  "load",
                                       "load_value", "load_x_c", "util", "Q_ab",  "Q_ba", "gpus_cut"};
    tbl_init(&x->lt, 12, lcol);
    int have_cls = !r->direct && ar_treepack_link_classes(p, x->cls);
    for (int l = 0; l < r->nlinks; l++) {
        const ar_link *lk = &p->links[l];
        int row = tbl_row(&x->lt);
        tbl_str(&x->lt, row, 0, lk->name);
        tbl_str(&x->lt, row, 1, p->nodes[lk->a].name);
        tbl_str(&x->lt, row, 2, p->nodes[lk->b].name);
        tbl_int(&x->lt, row, 3, lk->lanes);
        tbl_str(&x->lt, row, 4, frac_str(r->link_c[l], r->link_c_exact[l], b1, sizeof b1));
        tbl_str(
            &x->lt, row, 5,
            frac_str(r->link_load[l], r->link_load_exact ? r->link_load_exact[l] : (ar_tp_frac){0, 0}, b1, sizeof b1));
        tbl_num(&x->lt, row, 6, "%.9g", r->link_load[l]);
        tbl_num(&x->lt, row, 7, "%.9g", r->link_load[l] * r->link_c[l]);
        tbl_num(&x->lt, row, 8, "%.4f", r->C > 0 ? r->link_load[l] * r->link_c[l] / r->C : 0);
        tbl_num(&x->lt, row, 9, "%.6g", r->dlink_load[AR_DLINK(l, 0)]);
        tbl_num(&x->lt, row, 10, "%.6g", r->dlink_load[AR_DLINK(l, 1)]);
        if (have_cls) tbl_int(&x->lt, row, 11, x->cls[l]);
        else tbl_str(&x->lt, row, 11, "-");
    }
    return have_cls;
}

/* Mean and max load per link class, and the utilisation ratio between classes (into the summary). */
static void classes_table(trees_out *x, int have_cls) {
    char b1[96];
    /* link classes (tree-shaped switched platforms): mean and max load per class */
    static const char *const ccol[] = {"class", "links", "mean_load", "max_load", "mean_util", "ratio"};
    tbl_init(&x->ct, 6, ccol);
    if (have_cls) {
        ar_tp_classes cl;
        ar_treepack_class_loads(x->r, x->cls, &cl);
        size_t len = 0, lenk = 0;
        for (int k = 0; k < cl.n; k++) {
            int row = tbl_row(&x->ct);
            snprintf(b1, sizeof b1, "%d GPU%s", cl.gpus[k], cl.gpus[k] == 1 ? "" : "s");
            tbl_str(&x->ct, row, 0, b1);
            tbl_int(&x->ct, row, 1, cl.links[k]);
            tbl_num(&x->ct, row, 2, "%.9g", cl.mean[k]);
            tbl_num(&x->ct, row, 3, "%.9g", cl.max[k]);
            tbl_num(&x->ct, row, 4, "%.4f", cl.util[k]);
            if (cl.have_ratio) {
                tbl_int(&x->ct, row, 5, cl.ratio[k]);
                len += (size_t)snprintf(x->ratio_vals + len, sizeof x->ratio_vals - len, "%s%lld", k ? " : " : "",
                                        cl.ratio[k]);
                lenk += (size_t)snprintf(x->ratio_keys + lenk, sizeof x->ratio_keys - lenk, "%s%d GPU%s",
                                         k ? " : " : "", cl.gpus[k], cl.gpus[k] == 1 ? "" : "s");
            } else {
                tbl_num(&x->ct, row, 5, "%.6g", cl.rel[k]);
            }
        }
        if (cl.have_ratio)
            kv(&x->sum, "class ratio", x->ratio_vals,
               "mean load by link class, classes = GPUs on the smaller side of the link (P2.16xlarge: intra-card "
               "PLX : inter-card PLX : central bridge; the paper reports 15:14:8)");
    }
}

/* The tables in the asked format (pi: the platform's position, for JSON's separators). */
static void print_trees(const trees_out *x, const cli_opts *o, int pi) {
    const ar_platform *p = x->p;
    if (o->format == FMT_TABLE) {
        printf("== %s: %d GPUs, %d links ==\n", p->name, x->r->nranks, p->nlinks);
        tbl_print(&x->sum, FMT_TABLE, stdout);
        print_section("trees (weight = fraction of the data; edges are rank pairs)", &x->tt);
        print_section("streams (the schedule: each reduces its share up its tree to root, then broadcasts)", &x->stt);
        print_section("links (load = P_e, fraction of the data crossing e; Q = reduce-phase load per direction)",
                      &x->lt);
        print_section("link classes", &x->ct);
        if (x->ratio_vals[0]) printf("utilisation ratio by link class (%s) = %s\n", x->ratio_keys, x->ratio_vals);
    } else if (o->format == FMT_CSV) {
        csv_section(p->name, "summary", &x->sum);
        csv_section(p->name, "trees", &x->tt);
        csv_section(p->name, "streams", &x->stt);
        csv_section(p->name, "links", &x->lt);
        csv_section(p->name, "classes", &x->ct);
    } else {
        printf("%s{\"platform\":\"%s\",\"summary\":", pi ? "," : "", p->name);
        tbl_print(&x->sum, FMT_JSON, stdout);
        printf(",\"trees\":");
        tbl_print(&x->tt, FMT_JSON, stdout);
        printf(",\"streams\":");
        tbl_print(&x->stt, FMT_JSON, stdout);
        printf(",\"links\":");
        tbl_print(&x->lt, FMT_JSON, stdout);
        printf(",\"classes\":");
        tbl_print(&x->ct, FMT_JSON, stdout);
        printf("}\n");
    }
}

/* Solves the packing on p and prints it. */
static ar_status one_platform(const ar_platform *p, const cli_opts *o, const ar_treepack_opts *opts, int pi,
                              long long units, long long chunks) {
    ar_err e = {{0}};
    ar_treepack_result r;
    ar_status rc = ar_treepack_solve(p, opts, &r, &e);
    if (rc != AR_OK) return cli_error(rc, &e);
    trees_out x = {.p = p, .r = &r, .opts = opts};
    x.per = calloc((size_t)r.nstreams + 1, sizeof *x.per);
    x.cls = calloc((size_t)r.nlinks + 1, sizeof *x.cls);
    if (!x.per || !x.cls) {
        rc = cli_error(AR_ENOMEM, &(ar_err){"out of memory"});
        goto out;
    }
    x.cq = r.C_dir;
    x.K = units < 0 ? ar_treepack_pick_units(&r, AR_TP_UNITS_TOL, AR_TP_UNITS_MAX, x.per, &x.cq) : (int)units;
    if (units > 0) x.cq = ar_treepack_units(&r, x.K, x.per);
    summary_table(&x, o, chunks, &rc);
    trees_table(&x);
    streams_table(&x);
    classes_table(&x, links_table(&x));
    print_trees(&x, o, pi);
    tbl_free(&x.sum);
    tbl_free(&x.tt);
    tbl_free(&x.stt);
    tbl_free(&x.lt);
    tbl_free(&x.ct);
out:
    free(x.per);
    free(x.cls);
    ar_treepack_result_free(&r);
    return rc;
}

int cmd_trees(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_SIZE | OPT_ALGO | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK, &o,
                  "trees") != AR_OK)
        return AR_EINVAL;
    if (o.nplatforms < 1 || o.nsizes > 1 || o.nalgos > 1) {
        fprintf(stderr, "arlab trees: give --platform P (and at most one --size and one --algo treepack:...)\n");
        return AR_EINVAL;
    }
    /* planner parameters the prediction uses */
    ar_err e = {{0}};
    ar_param_val pv[AR_MAX_PARAMS];
    const ar_algo *a = NULL;
    ar_status bst = ar_algo_bind(o.nalgos ? o.algos[0] : "treepack", 0, &a, pv, &e);
    if (bst == AR_OK && a->params != ar_tp_params) bst = ar_fail(&e, AR_EINVAL, "trees: --algo must be treepack[:...]");
    if (bst != AR_OK) return cli_error(bst, &e);
    ar_treepack_opts opts = ar_treepack_defaults();
    opts.compact = o.check;
    opts.root_lp = strcmp(pv[AR_TP_P_ROOTS].s, "first") != 0;
    if ((bst = ar_tp_budget_param(pv, &opts.budget_s, &e)) != AR_OK) return cli_error(bst, &e);
    /* every platform and the size checked before anything is printed */
    ar_platform *plats[CLI_MAX_LIST];
    uint64_t count0;
    int rc = cli_preflight(&o, NULL, 0, plats, &count0, o.nsizes);
    if (rc != AR_OK) return rc;
    if (o.format == FMT_CSV) printf("platform,section,item,key,value\n");
    if (o.format == FMT_JSON && o.nplatforms > 1) printf("[\n");
    for (int pi = 0; pi < o.nplatforms && (rc == AR_OK || rc == AR_EFAIL); pi++) {
        ar_status st = one_platform(plats[pi], &o, &opts, pi, pv[AR_TP_P_UNITS].i, pv[AR_TP_P_CHUNKS].i);
        if (st != AR_OK && rc != AR_EFAIL) rc = st;
        if (st != AR_OK && st != AR_EFAIL) break;
    }
    for (int pi = 0; pi < o.nplatforms; pi++) ar_platform_free(plats[pi]);
    if (o.format == FMT_JSON && o.nplatforms > 1) printf("]\n");
    if (rc == AR_EFAIL) fprintf(stderr, "arlab trees: the extended formulation disagrees with column generation\n");
    return rc;
}
