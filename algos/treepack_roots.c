/* Spanning-tree packing: the root LP (a root distribution per tree minimising
 * the largest directed-link load, then the mean height) and the equal-size
 * units of the planner (treepack_lp.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack_lp.h"

/* ------------------------------------------------------------------------ */
/* roots                                                                     */

typedef struct rooted {
    int *adj_off, *adj, *adj_pair; /* tree adjacency (CSR over ranks) */
    int *queue, *depth;
} rooted;

/* Roots tree `pairs` at v: parent[] (ranks), parent_pair[] (pair of the edge
 * to the parent), returns the height. */
static int root_tree(const ar_treepack_result *r, const int *pairs, int v, rooted *w, int *parent, int *parent_pair) {
    int n = r->nranks;
    for (int x = 0; x <= n; x++) w->adj_off[x] = 0;
    for (int i = 0; i < n - 1; i++) {
        w->adj_off[r->pairs[pairs[i]].u + 1]++;
        w->adj_off[r->pairs[pairs[i]].v + 1]++;
    }
    for (int x = 0; x < n; x++) w->adj_off[x + 1] += w->adj_off[x];
    for (int x = 0; x < n; x++) w->depth[x] = w->adj_off[x]; /* fill cursor */
    for (int i = 0; i < n - 1; i++) {
        int p = pairs[i], a = r->pairs[p].u, b = r->pairs[p].v;
        w->adj[w->depth[a]] = b;
        w->adj_pair[w->depth[a]++] = p;
        w->adj[w->depth[b]] = a;
        w->adj_pair[w->depth[b]++] = p;
    }
    for (int x = 0; x < n; x++) {
        parent[x] = -2;
        w->depth[x] = 0;
    }
    parent[v] = -1;
    if (parent_pair) parent_pair[v] = -1;
    int qh = 0, qt = 0, H = 0;
    w->queue[qt++] = v;
    while (qh < qt) {
        int x = w->queue[qh++];
        for (int k = w->adj_off[x]; k < w->adj_off[x + 1]; k++) {
            int y = w->adj[k];
            if (parent[y] != -2) continue;
            parent[y] = x;
            if (parent_pair) parent_pair[y] = w->adj_pair[k];
            w->depth[y] = w->depth[x] + 1;
            if (w->depth[y] > H) H = w->depth[y];
            w->queue[qt++] = y;
        }
    }
    return H;
}

/* Candidate roots of a tree: all ranks, or (large instances) the two ends of
 * a longest path and its middle vertex. Returns the count written to out. */
static int root_candidates(const ar_treepack_result *r, const int *pairs, int all, rooted *w, int *parent, int *out) {
    int n = r->nranks;
    if (all) {
        for (int v = 0; v < n; v++) out[v] = v;
        return n;
    }
    root_tree(r, pairs, 0, w, parent, NULL);
    int a = 0;
    for (int x = 0; x < n; x++)
        if (w->depth[x] > w->depth[a]) a = x;
    int H = root_tree(r, pairs, a, w, parent, NULL), b = a;
    for (int x = 0; x < n; x++)
        if (w->depth[x] > w->depth[b]) b = x;
    int mid = b;
    for (int s = 0; s < H / 2; s++) mid = parent[mid];
    int k = 0;
    int cand[3] = {a < b ? a : b, a < b ? b : a, mid};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++)
            if (out[j] == cand[i]) dup = 1;
        if (!dup) out[k++] = cand[i];
    }
    return k;
}

typedef struct rootcol {
    int tree, root, height;
} rootcol;

ar_status ar_tp_solve_roots(ar_treepack_result *r, const ar_treepack_opts *o, ar_err *e) {
    int n = r->nranks, k = r->ntrees, D = 2 * r->nlinks;
    ar_status st = AR_OK;
    rooted w = {0};
    w.adj_off = ar_calloc((size_t)n + 1, sizeof(int));
    w.adj = ar_calloc(2 * (size_t)n, sizeof(int));
    w.adj_pair = ar_calloc(2 * (size_t)n, sizeof(int));
    w.queue = ar_calloc((size_t)n, sizeof(int));
    w.depth = ar_calloc((size_t)n, sizeof(int));
    int *parent = ar_calloc((size_t)n, sizeof(int)), *ppair = ar_calloc((size_t)n, sizeof(int));
    int *cand = ar_calloc((size_t)n, sizeof(int));
    int *row_of = ar_calloc((size_t)D + 1, sizeof(int)), *cnt = ar_calloc((size_t)D + 1, sizeof(int));
    int *touched = ar_calloc((size_t)D + 1, sizeof(int));
    int *ind = ar_calloc((size_t)D + 2, sizeof(int));
    double *val = ar_calloc((size_t)D + 2, sizeof(double));
    rootcol *cols = NULL;
    glp_prob *lp = NULL;
    r->dlink_load = ar_calloc((size_t)D + 1, sizeof *r->dlink_load);
    if (!w.adj_off || !w.adj || !w.adj_pair || !w.queue || !w.depth || !parent || !ppair || !cand || !row_of || !cnt ||
        !touched || !ind || !val || !r->dlink_load) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
        goto done;
    }
    double t0 = ar_now_s();
    /* which candidate set */
    double avg_route = (double)r->route_off[2 * r->npairs] / (2.0 * r->npairs);
    int all = (double)k * n * (n - 1) * avg_route <= TP_ROOT_LP_NNZ;
    int ncols = 0, capc = 0;
    double *rho = NULL;
    if (!o->root_lp) {
        cols = ar_calloc((size_t)k + 1, sizeof *cols);
        rho = ar_calloc((size_t)k + 1, sizeof *rho);
        if (!cols || !rho) {
            free(rho);
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
            goto done;
        }
        for (int i = 0; i < k; i++) {
            cols[i].tree = i;
            cols[i].root = 0;
            rho[i] = r->trees[i].weight;
        }
        ncols = k;
    } else {
        lp = glp_create_prob();
        glp_set_obj_dir(lp, GLP_MIN);
        glp_add_rows(lp, k);
        for (int i = 0; i < k; i++) glp_set_row_bnds(lp, i + 1, GLP_FX, r->trees[i].weight, r->trees[i].weight);
        int nrows = k;
        glp_add_cols(lp, 1); /* s */
        glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
        glp_set_obj_coef(lp, 1, 1.0);
        for (int i = 0; i < k; i++) {
            int nc = root_candidates(r, r->trees[i].pairs, all, &w, parent, cand);
            for (int ci = 0; ci < nc; ci++) {
                int v = cand[ci];
                int H = root_tree(r, r->trees[i].pairs, v, &w, parent, ppair);
                int nt = 0;
                for (int x = 0; x < n; x++) {
                    if (x == v) continue;
                    int len;
                    const ar_dlink *rt = ar_tp_route_dir(r, ppair[x], x, &len);
                    for (int q = 0; q < len; q++)
                        if (cnt[rt[q]]++ == 0) touched[nt++] = rt[q];
                }
                int len = 0;
                ind[++len] = i + 1;
                val[len] = 1.0;
                for (int t = 0; t < nt; t++) {
                    int d = touched[t];
                    if (!row_of[d]) {
                        row_of[d] = ++nrows;
                        glp_add_rows(lp, 1);
                        glp_set_row_bnds(lp, nrows, GLP_UP, 0, 0);
                        /* the row reads c_a Q_a - s <= 0 */
                        int idx[2] = {0, 1};
                        double vv[2] = {0, -1.0};
                        glp_set_mat_row(lp, nrows, 1, idx, vv);
                    }
                    ind[++len] = row_of[d];
                    val[len] = r->link_c[AR_DLINK_LINK(d)] * cnt[d];
                    cnt[d] = 0;
                }
                if (ncols == capc) {
                    int nc2 = capc ? 2 * capc : 256;
                    rootcol *nc3 = ar_reallocarray(cols, (size_t)nc2, sizeof *nc3);
                    if (!nc3) {
                        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
                        goto done;
                    }
                    cols = nc3;
                    capc = nc2;
                }
                cols[ncols].tree = i;
                cols[ncols].root = v;
                cols[ncols].height = H;
                ncols++;
                int j = glp_add_cols(lp, 1);
                glp_set_col_bnds(lp, j, GLP_LO, 0, 0);
                glp_set_mat_col(lp, j, len, ind, val);
            }
        }
        r->root_columns = ncols;
        glp_smcp parm;
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        parm.presolve = GLP_OFF;
        parm.tol_bnd = 1e-9;
        parm.tol_dj = 1e-9;
        glp_std_basis(lp);
        if (glp_simplex(lp, &parm) != 0 || glp_get_status(lp) != GLP_OPT) {
            st = ar_fail(e, AR_EINTERNAL, "treepack: root LP failed");
            goto done;
        }
        double sstar = glp_get_obj_val(lp);
        /* among optimal root choices, the least mean height (pipeline fill) */
        glp_set_col_bnds(lp, 1, GLP_DB, 0, sstar * (1 + 1e-9));
        glp_set_obj_coef(lp, 1, 0);
        for (int j = 0; j < ncols; j++) glp_set_obj_coef(lp, j + 2, cols[j].height);
        int ok2 = glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT;
        if (!ok2) {
            /* fall back to the first stage's solution */
            glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
            glp_set_obj_coef(lp, 1, 1.0);
            for (int j = 0; j < ncols; j++) glp_set_obj_coef(lp, j + 2, 0);
            if (glp_simplex(lp, &parm) != 0 || glp_get_status(lp) != GLP_OPT) {
                st = ar_fail(e, AR_EINTERNAL, "treepack: root LP failed");
                goto done;
            }
        }
        rho = ar_calloc((size_t)ncols + 1, sizeof *rho);
        if (!rho) {
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
            goto done;
        }
        for (int j = 0; j < ncols; j++) rho[j] = glp_get_col_prim(lp, j + 2);
    }
    /* streams: positive rho, renormalised */
    double tot = 0;
    int ns = 0;
    for (int j = 0; j < ncols; j++)
        if (rho[j] > TP_WEIGHT_EPS) {
            tot += rho[j];
            ns++;
        }
    r->streams = ar_calloc((size_t)ns + 1, sizeof *r->streams);
    double *sw = ar_calloc((size_t)ns + 1, sizeof *sw);
    ar_tp_frac *sx = ar_calloc((size_t)ns + 1, sizeof *sx);
    if (!r->streams || !sw || !sx) {
        free(rho);
        free(sw);
        free(sx);
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
        goto done;
    }
    for (int j = 0; j < ncols && st == AR_OK; j++) {
        if (!(rho[j] > TP_WEIGHT_EPS)) continue;
        ar_tp_stream *s = &r->streams[r->nstreams];
        s->tree = cols[j].tree;
        s->root = cols[j].root;
        s->weight = rho[j] / tot;
        s->parent = ar_calloc((size_t)n, sizeof *s->parent);
        if (!s->parent) {
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
            break;
        }
        r->nstreams++;
        s->height = root_tree(r, r->trees[s->tree].pairs, s->root, &w, s->parent, ppair);
        if (s->height > r->max_height) r->max_height = s->height;
        sw[r->nstreams - 1] = s->weight;
        int nup = 0;
        for (int x = 0; x < n; x++) {
            int len = 0;
            if (x != s->root) ar_tp_route_dir(r, ppair[x], x, &len);
            nup += len;
        }
        s->up = ar_calloc((size_t)nup + 1, sizeof *s->up);
        if (!s->up) {
            st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
            break;
        }
        for (int x = 0; x < n; x++) {
            if (x == s->root) continue;
            int len;
            const ar_dlink *rt = ar_tp_route_dir(r, ppair[x], x, &len);
            for (int q = 0; q < len; q++) {
                r->dlink_load[rt[q]] += s->weight;
                s->up[s->nup++] = rt[q];
            }
        }
    }
    free(rho);
    /* exact stream weights where they are small rationals summing to exactly 1 */
    if (st == AR_OK) {
        ar_tp_frac sum = {0, 1};
        int ok = 1;
        for (int i = 0; i < r->nstreams && ok; i++)
            ok = ar_tp_rationalize(sw[i], 4096, 1e-10, &sx[i]) && sx[i].num > 0 && ar_tp_frac_add(sum, sx[i], &sum);
        if (ok && sum.num == 1 && sum.den == 1)
            for (int i = 0; i < r->nstreams; i++) {
                r->streams[i].wexact = sx[i];
                r->streams[i].weight = (double)sx[i].num / (double)sx[i].den;
            }
    }
    free(sw);
    free(sx);
    r->C_dir = 0;
    for (int d = 0; d < D; d++)
        if (r->dlink_load[d] * r->link_c[AR_DLINK_LINK(d)] > r->C_dir)
            r->C_dir = r->dlink_load[d] * r->link_c[AR_DLINK_LINK(d)];
    r->root_s = ar_now_s() - t0;
done:
    if (lp) glp_delete_prob(lp);
    free(w.adj_off);
    free(w.adj);
    free(w.adj_pair);
    free(w.queue);
    free(w.depth);
    free(parent);
    free(ppair);
    free(cand);
    free(row_of);
    free(cnt);
    free(touched);
    free(ind);
    free(val);
    free(cols);
    return st;
}

/* ------------------------------------------------------------------------ */
/* units: equal-size shares of the data                                      */

double ar_treepack_units(const ar_treepack_result *r, int K, int *per) {
    int ns = r->nstreams, D = 2 * r->nlinks;
    double *load = ar_calloc((size_t)D + 1, sizeof *load);
    if (!load || K < 1 || ns < 1) {
        free(load);
        return INFINITY;
    }
    int used = 0;
    for (int s = 0; s < ns; s++) {
        per[s] = (int)floor(r->streams[s].weight * K + 1e-9);
        used += per[s];
        for (int q = 0; q < r->streams[s].nup; q++) load[r->streams[s].up[q]] += per[s];
    }
    /* hand out the rest one unit at a time, each to the stream (among those
     * still below w_s K) whose unit raises the worst link it crosses least;
     * ties: larger remainder, then lower index */
    while (used < K) {
        int best = -1, any_below = 0;
        double bw = INFINITY, bf = -1;
        for (int t = 0; t < ns && !any_below; t++) any_below = r->streams[t].weight * K - per[t] > 1e-9;
        for (int s = 0; s < ns; s++) {
            double f = r->streams[s].weight * K - per[s];
            if (any_below && f <= 1e-9) continue; /* already at its share */
            double worst = 0;
            for (int q = 0; q < r->streams[s].nup; q++) {
                ar_dlink d = r->streams[s].up[q];
                double v = (load[d] + 1) * r->link_c[AR_DLINK_LINK(d)];
                if (v > worst) worst = v;
            }
            if (worst < bw - 1e-12 || (worst <= bw + 1e-12 && f > bf)) {
                bw = worst;
                bf = f;
                best = s;
            }
        }
        if (best < 0) break;
        per[best]++;
        used++;
        for (int q = 0; q < r->streams[best].nup; q++) load[r->streams[best].up[q]] += 1;
    }
    double worst = 0;
    for (int d = 0; d < D; d++)
        if (load[d] * r->link_c[AR_DLINK_LINK(d)] > worst) worst = load[d] * r->link_c[AR_DLINK_LINK(d)];
    free(load);
    return worst / K;
}

int ar_treepack_pick_units(const ar_treepack_result *r, double tol, int kmax, int *per, double *cdir_q) {
    int ns = r->nstreams, bestK = 0;
    double best = INFINITY;
    int *tmp = ar_calloc((size_t)ns + 1, sizeof *tmp);
    if (!tmp) return 0;
    /* exact rational weights with a small common denominator need no rounding */
    int64_t l = 1;
    int exact = ns > 0;
    for (int s = 0; s < ns && exact; s++) {
        int64_t d = r->streams[s].wexact.den;
        if (d <= 0) {
            exact = 0;
            break;
        }
        int64_t g = ar_gcd_i64(l, d);
        if (l / g > kmax / d) exact = 0;
        else l = l / g * d;
    }
    if (exact && l <= kmax) {
        for (int s = 0; s < ns; s++) per[s] = (int)(r->streams[s].wexact.num * (l / r->streams[s].wexact.den));
        if (cdir_q) *cdir_q = r->C_dir;
        free(tmp);
        return (int)l;
    }
    for (int K = 64; K <= kmax; K *= 2) {
        double c = ar_treepack_units(r, K, tmp);
        if (c < best - 1e-15) {
            best = c;
            bestK = K;
            memcpy(per, tmp, (size_t)ns * sizeof *per);
        }
        if (c <= r->C_dir * (1 + tol)) break;
    }
    free(tmp);
    if (cdir_q) *cdir_q = best;
    return bestK;
}
