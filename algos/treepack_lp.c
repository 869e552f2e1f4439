/* Spanning-tree packing: the solver's driver (ar_treepack_solve): setup of
 * link costs, candidate pairs and routes; column generation in two stages
 * (treepack_cg.c); the exact certificates (treepack_exact.c); the extended
 * formulation as a check (treepack_compact.c); the bounds; the root LP
 * (treepack_roots.c); and the result's bookkeeping. See treepack.h for the
 * mathematics and the ownership rules, treepack_lp.h for the internals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack_lp.h"

ar_treepack_opts ar_treepack_defaults(void) {
    ar_treepack_opts o = {.secondary = -1, .root_lp = 1, .compact = 0, .max_iter = 0, .budget_s = 0, .reference = 0};
    return o;
}

/* ------------------------------------------------------------------------ */
/* result bookkeeping                                                        */

void ar_treepack_result_free(ar_treepack_result *r) {
    if (!r) return;
    free(r->link_c);
    free(r->link_c_exact);
    free(r->pairs);
    free(r->route_off);
    free(r->route);
    for (int i = 0; i < r->ntrees; i++) free(r->trees[i].pairs);
    free(r->trees);
    free(r->link_load);
    free(r->link_load_exact);
    free(r->mwst_pairs);
    for (int i = 0; i < r->nstreams; i++) {
        free(r->streams[i].parent);
        free(r->streams[i].up);
    }
    free(r->streams);
    free(r->dlink_load);
    memset(r, 0, sizeof *r);
}

const ar_dlink *ar_tp_route_of(const ar_treepack_result *r, int pair, int reverse, int *len) {
    int a = r->route_off[2 * pair + (reverse ? 1 : 0)], b = r->route_off[2 * pair + (reverse ? 2 : 1)];
    *len = b - a;
    return r->route + a;
}

/* Route from rank x to rank y where {x,y} is pair p. */
const ar_dlink *ar_tp_route_dir(const ar_treepack_result *r, int p, int x, int *len) {
    return ar_tp_route_of(r, p, r->pairs[p].u == x ? 0 : 1, len);
}

double ar_treepack_tree_cost(const ar_treepack_result *r, const int *pairs, int npairs) {
    int n = r->nranks;
    if (npairs != n - 1) return INFINITY;
    int *uf = ar_calloc((size_t)n, sizeof *uf);
    int *cnt = ar_calloc((size_t)r->nlinks + 1, sizeof *cnt);
    double worst = INFINITY;
    if (uf && cnt) {
        ar_uf_init(uf, n);
        int ok = 1;
        for (int i = 0; i < npairs && ok; i++) {
            int p = pairs[i];
            if (p < 0 || p >= r->npairs || !ar_uf_union(uf, r->pairs[p].u, r->pairs[p].v)) ok = 0;
            else {
                int len;
                const ar_dlink *rt = ar_tp_route_of(r, p, 0, &len);
                for (int k = 0; k < len; k++) cnt[AR_DLINK_LINK(rt[k])]++;
            }
        }
        if (ok) {
            worst = 0;
            for (int l = 0; l < r->nlinks; l++)
                if (cnt[l] && r->link_c[l] * cnt[l] > worst) worst = r->link_c[l] * cnt[l];
        }
    }
    free(uf);
    free(cnt);
    return worst;
}

char *ar_tp_budget_note(const ar_treepack_result *r, char *buf, size_t n) {
    if (!n) return buf;
    buf[0] = 0;
    if (r->budget_stop == 1)
        snprintf(buf, n, "LP stopped by budget after %.3g s: C(G) <= %.6g, >= %.6g (gap %.3g %%)", r->budget_stop_s,
                 r->C, r->dual_bound, r->C > 0 ? 100 * (r->C - r->dual_bound) / r->C : 0);
    else if (r->budget_stop == 2 && isnan(r->traffic_lower))
        snprintf(buf, n, "least-traffic stage skipped by budget after %.3g s: C(G) optimal, traffic %.6g not minimised",
                 r->budget_stop_s, r->traffic);
    else if (r->budget_stop == 2)
        snprintf(buf, n,
                 "least-traffic stage stopped by budget after %.3g s: C(G) optimal, traffic %.6g >= %.6g (gap %.3g %%)",
                 r->budget_stop_s, r->traffic, r->traffic_lower,
                 r->traffic > 0 ? 100 * (r->traffic - r->traffic_lower) / r->traffic : 0);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* setup: link costs, candidate pairs and their routes                       */

static ar_status setup(const ar_platform *p, ar_treepack_result *r, ar_err *e) {
    int n = p->nranks, L = p->nlinks;
    r->nranks = n;
    r->nlinks = L;
    r->link_c = ar_calloc((size_t)L + 1, sizeof *r->link_c);
    r->link_c_exact = ar_calloc((size_t)L + 1, sizeof *r->link_c_exact);
    if (!r->link_c || !r->link_c_exact) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    double bw_ref = 0;
    for (int l = 0; l < L; l++)
        if (p->links[l].bw_Bps > bw_ref) bw_ref = p->links[l].bw_Bps;
    r->bw_ref_Bps = bw_ref;
    r->direct = L > 0;
    for (int l = 0; l < L; l++) {
        const ar_link *lk = &p->links[l];
        r->link_c[l] = bw_ref / (lk->bw_Bps * lk->lanes);
        ar_tp_frac ratio;
        if (!ar_tp_rationalize(bw_ref / lk->bw_Bps, 1000, 1e-12, &ratio) ||
            !ar_tp_frac128(ratio.num, (ar_tp_i128)ratio.den * lk->lanes, &r->link_c_exact[l]))
            r->link_c_exact[l].den = 0;
        if (p->nodes[lk->a].kind != AR_NODE_GPU || p->nodes[lk->b].kind != AR_NODE_GPU) r->direct = 0;
    }
    if (n < 2) return AR_OK;
    /* candidate pairs */
    long long np = r->direct ? L : (long long)n * (n - 1) / 2;
    if (np > AR_TP_MAX_PAIRS)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "treepack: %d GPUs behind switches give %lld candidate tree edges (limit %d); "
                       "use a platform with direct GPU links or fewer GPUs",
                       n, np, AR_TP_MAX_PAIRS);
    r->npairs = (int)np;
    r->pairs = ar_calloc((size_t)np, sizeof *r->pairs);
    r->route_off = ar_calloc(2 * (size_t)np + 1, sizeof *r->route_off);
    if (!r->pairs || !r->route_off) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    if (r->direct) {
        /* pairs = links, numbered by (u, v) */
        ar_tp_wi *ord = ar_calloc((size_t)L, sizeof *ord);
        r->route = ar_calloc(2 * (size_t)L, sizeof *r->route);
        if (!ord || !r->route) {
            free(ord);
            return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        }
        for (int l = 0; l < L; l++) {
            int ra = p->nodes[p->links[l].a].rank, rb = p->nodes[p->links[l].b].rank;
            int u = ra < rb ? ra : rb, v = ra < rb ? rb : ra;
            ord[l].w = (double)u * (double)n + v;
            ord[l].i = l;
        }
        qsort(ord, (size_t)L, sizeof *ord, ar_tp_wi_cmp);
        for (int i = 0; i < L; i++) {
            int l = ord[i].i;
            int ra = p->nodes[p->links[l].a].rank, rb = p->nodes[p->links[l].b].rank;
            ar_tp_pair *pp = &r->pairs[i];
            pp->u = ra < rb ? ra : rb;
            pp->v = ra < rb ? rb : ra;
            pp->link = l;
            pp->cost = r->link_c[l];
            /* a->b is direction 0 */
            r->route[2 * i] = AR_DLINK(l, ra == pp->u ? 0 : 1);
            r->route[2 * i + 1] = AR_DLINK(l, ra == pp->u ? 1 : 0);
            r->route_off[2 * i] = 2 * i;
            r->route_off[2 * i + 1] = 2 * i + 1;
        }
        r->route_off[2 * L] = 2 * L;
        free(ord);
        return AR_OK;
    }
    size_t cap = (size_t)np * 8 + 16, used = 0;
    int maxhop = p->nnodes + 1;
    r->route = ar_calloc(cap, sizeof *r->route);
    if (!r->route) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    int i = 0;
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++, i++) {
            ar_tp_pair *pp = &r->pairs[i];
            pp->u = u;
            pp->v = v;
            pp->link = -1;
            for (int dir = 0; dir < 2; dir++) {
                if (used + (size_t)maxhop > cap) {
                    size_t nc = cap * 2;
                    ar_dlink *nr = ar_reallocarray(r->route, nc, sizeof *nr);
                    if (!nr) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
                    r->route = nr;
                    cap = nc;
                }
                r->route_off[2 * i + dir] = (int)used;
                int len = ar_platform_route(p, dir ? v : u, dir ? u : v, r->route + used, maxhop);
                if (len < 0) return ar_fail(e, AR_EINTERNAL, "treepack: no route between ranks %d and %d", u, v);
                if (dir == 0) {
                    pp->cost = 0;
                    for (int k = 0; k < len; k++) pp->cost += r->link_c[AR_DLINK_LINK(r->route[used + (size_t)k])];
                }
                used += (size_t)len;
                if (used > (size_t)INT32_MAX - (size_t)maxhop)
                    return ar_fail(e, AR_ELIMIT, "treepack: routes too long to store");
            }
        }
    r->route_off[2 * np] = (int)used;
    return AR_OK;
}

/* ------------------------------------------------------------------------ */
/* the solver                                                                */

/* Strictly heavier (exactly, when exact): a goes before b. */
static int tree_before(const ar_tp_tree *a, const ar_tp_tree *b, int exact) {
    if (exact) return ar_tp_frac_cmp(a->wexact, b->wexact) > 0;
    return a->weight > b->weight;
}

ar_status ar_treepack_solve(const ar_platform *p, const ar_treepack_opts *opts, ar_treepack_result *r, ar_err *e) {
    memset(r, 0, sizeof *r);
    r->C_compact = NAN;
    r->lower = NAN;
    if (!p || p->nranks < 1) return ar_fail(e, AR_EINVAL, "treepack: no platform or no ranks");
    ar_treepack_opts o = opts ? *opts : ar_treepack_defaults();
    int max_iter = o.max_iter > 0 ? o.max_iter : TP_DEFAULT_MAX_ITER;
    double t0 = ar_now_s();
    ar_status st = setup(p, r, e);
    if (st != AR_OK) {
        ar_treepack_result_free(r);
        return st;
    }
    int n = r->nranks, L = r->nlinks;
    r->link_load = ar_calloc((size_t)L + 1, sizeof *r->link_load);
    if (!r->link_load) {
        ar_treepack_result_free(r);
        return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    }
    if (n == 1) {
        /* nothing to aggregate: C(G) = 0, one trivial tree */
        r->exact = 1;
        r->C_den = 1;
        r->lower = 0;
        r->dlink_load = ar_calloc((size_t)2 * L + 1, sizeof *r->dlink_load);
        r->mwst_pairs = ar_calloc(1, sizeof *r->mwst_pairs);
        r->trees = ar_calloc(1, sizeof *r->trees);
        r->streams = ar_calloc(1, sizeof *r->streams);
        if (!r->dlink_load || !r->mwst_pairs || !r->trees || !r->streams) {
            ar_treepack_result_free(r);
            return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        }
        r->ntrees = 1;
        r->trees[0] = (ar_tp_tree){.weight = 1, .wexact = {1, 1}, .pairs = NULL, .cost = 0};
        r->streams[0] = (ar_tp_stream){.tree = 0, .root = 0, .weight = 1, .wexact = {1, 1}, .height = 0};
        r->streams[0].parent = ar_calloc(1, sizeof(int));
        if (!r->streams[0].parent) {
            ar_treepack_result_free(r);
            return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        }
        r->streams[0].parent[0] = -1;
        r->nstreams = 1;
        r->solve_s = ar_now_s() - t0;
        return AR_OK;
    }
    st = ar_tp_bounds(p, r, e);
    if (st != AR_OK) {
        ar_treepack_result_free(r);
        return st;
    }
    /* master LP */
    ar_tp_cg c = {0};
    c.r = r;
    c.reference = o.reference;
    c.n = n;
    c.np = r->npairs;
    c.L = L;
    c.row_of_link = ar_calloc((size_t)L + 1, sizeof *c.row_of_link);
    c.cnt = ar_calloc((size_t)L + 1, sizeof *c.cnt);
    c.touched = ar_calloc((size_t)L + 1, sizeof *c.touched);
    c.ind = ar_calloc((size_t)L + 2, sizeof *c.ind);
    c.val = ar_calloc((size_t)L + 2, sizeof *c.val);
    c.w = ar_calloc((size_t)c.np, sizeof *c.w);
    c.ylink = ar_calloc((size_t)L + 1, sizeof *c.ylink);
    c.sort = ar_calloc((size_t)c.np, sizeof *c.sort);
    c.uf = ar_calloc((size_t)n, sizeof *c.uf);
    c.mst = ar_calloc((size_t)n, sizeof *c.mst);
    double *pi = ar_calloc((size_t)L + 1, sizeof *pi);
    double *lam1 = NULL, *lam2 = NULL;
    ar_tp_frac *lamx1 = NULL, *lamx2 = NULL;
    ar_tp_xlp x = {0};
    if (!c.row_of_link || !c.cnt || !c.touched || !c.ind || !c.val || !c.w || !c.ylink || !c.sort || !c.uf || !c.mst ||
        !pi) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto fail;
    }
    c.lp = glp_create_prob();
    glp_set_obj_dir(c.lp, GLP_MIN);
    glp_add_rows(c.lp, 1);
    glp_set_row_bnds(c.lp, 1, GLP_FX, 1.0, 1.0);
    c.nrows = 1;
    for (int q = 0; q < c.np; q++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(r, q, 0, &len);
        for (int k = 0; k < len; k++) {
            int l = AR_DLINK_LINK(rt[k]);
            if (!c.row_of_link[l]) c.row_of_link[l] = ++c.nrows;
        }
    }
    glp_add_rows(c.lp, c.nrows - 1);
    for (int i = 2; i <= c.nrows; i++) glp_set_row_bnds(c.lp, i, GLP_UP, 0.0, 0.0);
    glp_add_cols(c.lp, 1);
    glp_set_col_bnds(c.lp, 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(c.lp, 1, 1.0);
    {
        /* t enters every link row with -1 */
        int *ind = ar_calloc((size_t)c.nrows + 1, sizeof *ind);
        double *val = ar_calloc((size_t)c.nrows + 1, sizeof *val);
        if (!ind || !val) {
            free(ind);
            free(val);
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
            goto fail;
        }
        for (int i = 2; i <= c.nrows; i++) {
            ind[i - 1] = i;
            val[i - 1] = -1.0;
        }
        glp_set_mat_col(c.lp, 1, c.nrows - 1, ind, val);
        free(ind);
        free(val);
    }
    /* first column: the minimum-weight spanning tree */
    if (ar_tp_cg_add(&c, r->mwst_pairs, 0) < 0) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto fail;
    }
    /* a balanced pool of first columns: 2 x (rows) Frank-Wolfe trees */
    double deadline = o.budget_s > 0 ? t0 + o.budget_s : 0, lower = NAN;
    int stopped = 0;
    st = ar_tp_warm_pool(&c, 2 * c.nrows < TP_WARM_MAX ? 2 * c.nrows : TP_WARM_MAX, TP_WARM_BETA, deadline, e);
    if (st != AR_OK) goto fail;
    glp_std_basis(c.lp);
    st = ar_tp_cg_run(&c, 0.0, max_iter, deadline, &r->iterations, &stopped, &lower, e);
    if (st != AR_OK) goto fail;
    if (stopped) {
        r->budget_stop = 1;
        r->budget_stop_s = ar_now_s() - t0;
    }
    r->C = glp_get_obj_val(c.lp);
    double pisum = 0;
    for (int l = 0; l < L; l++) {
        pi[l] = c.row_of_link[l] ? -glp_get_row_dual(c.lp, c.row_of_link[l]) : 0;
        if (pi[l] < 0) pi[l] = 0;
        pisum += pi[l];
    }
    if (pisum > 0)
        for (int l = 0; l < L; l++) pi[l] /= pisum;
    /* the dual's lower bound: MST under pi c */
    for (int q = 0; q < c.np; q++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(r, q, 0, &len);
        double w = 0;
        for (int k = 0; k < len; k++) w += pi[AR_DLINK_LINK(rt[k])] * r->link_c[AR_DLINK_LINK(rt[k])];
        c.w[q] = w;
    }
    ar_tp_kruskal(n, r->pairs, c.np, c.w, c.sort, c.uf, c.mst, &r->dual_bound);
    int ncols1 = c.ncols;
    lam1 = ar_calloc((size_t)ncols1 + 1, sizeof *lam1);
    lamx1 = ar_calloc((size_t)ncols1 + 1, sizeof *lamx1);
    if (!lam1 || !lamx1) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto fail;
    }
    for (int j = 0; j < ncols1; j++) lam1[j] = glp_get_col_prim(c.lp, j + 2);
    /* exact certificates of stage 1 (value, weights, dual) */
    int have_x = ar_tp_xlp_init(r, &x);
    ar_tp_frac C1x = {0, 0}, t2x = {0, 0};
    int exact1 = have_x && ar_tp_exact_basis(&c, &x, C1x, 1, lamx1, &C1x);
    if (exact1) r->C = (double)C1x.num / (double)C1x.den;
    const double *lam = lam1;
    const ar_tp_frac *lamx = exact1 ? lamx1 : NULL;
    int ncols_final = ncols1;
    int second = !r->budget_stop && (o.secondary > 0 || (o.secondary < 0 && !r->direct));
    if (second && deadline > 0 && ar_now_s() > deadline) { /* no time left for it */
        r->budget_stop = 2;
        r->budget_stop_s = ar_now_s() - t0;
        r->traffic = 0;
        for (int j = 0; j < c.ncols; j++) r->traffic += lam1[j] * c.tree_obj[j];
        r->traffic_lower = NAN;
        second = 0;
    }
    if (second) {
        glp_set_obj_coef(c.lp, 1, 0.0);
        glp_set_col_bnds(c.lp, 1, GLP_DB, 0.0, r->C * (1 + 1e-11));
        for (int j = 0; j < c.ncols; j++) glp_set_obj_coef(c.lp, j + 2, c.tree_obj[j]);
        ar_err e2 = {{0}};
        stopped = 0;
        if (ar_tp_cg_run(&c, 1.0, max_iter, deadline, &r->iterations, &stopped, &lower, &e2) == AR_OK) {
            if (stopped) {
                r->budget_stop = 2;
                r->budget_stop_s = ar_now_s() - t0;
                r->traffic = glp_get_obj_val(c.lp);
                r->traffic_lower = lower;
            }
            lam2 = ar_calloc((size_t)c.ncols + 1, sizeof *lam2);
            lamx2 = ar_calloc((size_t)c.ncols + 1, sizeof *lamx2);
            if (!lam2 || !lamx2) {
                st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
                goto fail;
            }
            for (int j = 0; j < c.ncols; j++) lam2[j] = glp_get_col_prim(c.lp, j + 2);
            int exact2 = exact1 && ar_tp_exact_basis(&c, &x, C1x, 0, lamx2, &t2x) && ar_tp_frac_cmp(t2x, C1x) <= 0;
            /* the second stage's solution, unless only the first one is exact */
            if (exact2 || !exact1) {
                lam = lam2;
                lamx = exact2 ? lamx2 : NULL;
                ncols_final = c.ncols;
            }
        }
    }
    r->columns = c.ncols;
    r->exact = lamx != NULL;
    if (r->exact) {
        r->C_num = C1x.num;
        r->C_den = C1x.den;
    }
    /* trees with positive weight */
    {
        int k = 0;
        double tot = 0;
        for (int j = 0; j < ncols_final; j++)
            if (lamx ? lamx[j].num > 0 : lam[j] > TP_WEIGHT_EPS) {
                tot += lam[j];
                k++;
            }
        r->trees = ar_calloc((size_t)k + 1, sizeof *r->trees);
        r->link_load_exact = lamx ? ar_calloc((size_t)L + 1, sizeof *r->link_load_exact) : NULL;
        if (!r->trees || (lamx && !r->link_load_exact)) {
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
            goto fail;
        }
        for (int j = 0; j < ncols_final; j++) {
            if (!(lamx ? lamx[j].num > 0 : lam[j] > TP_WEIGHT_EPS)) continue;
            ar_tp_tree *t = &r->trees[r->ntrees];
            if (lamx) {
                t->wexact = lamx[j];
                t->weight = (double)lamx[j].num / (double)lamx[j].den;
            } else {
                t->weight = lam[j] / tot;
            }
            t->pairs = ar_calloc((size_t)n, sizeof *t->pairs);
            if (!t->pairs) {
                st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
                goto fail;
            }
            memcpy(t->pairs, c.tree_pairs + (size_t)j * (size_t)(n - 1), (size_t)(n - 1) * sizeof *t->pairs);
            t->cost = ar_treepack_tree_cost(r, t->pairs, n - 1);
            r->ntrees++;
        }
        /* order: by weight (exactly, when exact), then by column (creation) order */
        for (int i = 1; i < r->ntrees; i++) {
            ar_tp_tree t = r->trees[i];
            int j = i - 1;
            while (j >= 0 && tree_before(&t, &r->trees[j], r->exact)) {
                r->trees[j + 1] = r->trees[j];
                j--;
            }
            r->trees[j + 1] = t;
        }
    }
    /* with switches Boruvka's tree is only a heuristic: keep the best single tree seen */
    if (!r->direct)
        for (int i = 0; i < r->ntrees; i++)
            if (r->trees[i].cost < r->mwst) {
                r->mwst = r->trees[i].cost;
                memcpy(r->mwst_pairs, r->trees[i].pairs, (size_t)(n - 1) * sizeof *r->mwst_pairs);
            }
    /* loads (exact ones too when exact; the exact check above proved them <= C) */
    for (int l = 0; l < L && r->link_load_exact; l++) r->link_load_exact[l] = (ar_tp_frac){0, 1};
    for (int i = 0; i < r->ntrees; i++)
        for (int j = 0; j < n - 1; j++) {
            int len;
            const ar_dlink *rt = ar_tp_route_of(r, r->trees[i].pairs[j], 0, &len);
            for (int q = 0; q < len; q++) {
                int l = AR_DLINK_LINK(rt[q]);
                r->link_load[l] += r->trees[i].weight;
                if (r->link_load_exact &&
                    !ar_tp_frac_add(r->link_load_exact[l], r->trees[i].wexact, &r->link_load_exact[l])) {
                    free(r->link_load_exact);
                    r->link_load_exact = NULL;
                }
            }
        }
    r->solve_s = ar_now_s() - t0;
    ar_tp_cg_free(&c);
    free(pi);
    free(lam1);
    free(lam2);
    free(lamx1);
    free(lamx2);
    ar_tp_xlp_free(&x);
    if (o.compact && r->direct) {
        st = ar_tp_solve_compact(r, e);
        if (st != AR_OK) {
            ar_treepack_result_free(r);
            return st;
        }
    }
    st = ar_tp_solve_roots(r, &o, e);
    if (st != AR_OK) ar_treepack_result_free(r);
    return st;
fail:
    ar_tp_cg_free(&c);
    free(pi);
    free(lam1);
    free(lam2);
    free(lamx1);
    free(lamx2);
    ar_tp_xlp_free(&x);
    ar_treepack_result_free(r);
    return st;
}
