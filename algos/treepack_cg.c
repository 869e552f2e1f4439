/* Spanning-tree packing: minimum spanning trees (Kruskal, Boruvka), column
 * generation on the path formulation with minimum-spanning-tree pricing and
 * its Frank-Wolfe warm start, and the Lemma 2.1 bounds (treepack_lp.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack_lp.h"

int ar_tp_wi_cmp(const void *x, const void *y) {
    const ar_tp_wi *a = x, *b = y;
    if (a->w < b->w) return -1;
    if (a->w > b->w) return 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Kruskal: the minimum spanning tree of the pairs under weights w, taking
 * pairs in order of (w, index). scratch: npairs ar_tp_wi; uf: n ints. Writes n-1
 * pair indices (ascending) to out and returns how many it found. */
int ar_tp_kruskal(int n, const ar_tp_pair *pairs, int np, const double *w, ar_tp_wi *scratch, int *uf, int *out,
                  double *total) {
    for (int i = 0; i < np; i++) {
        scratch[i].w = w[i];
        scratch[i].i = i;
    }
    qsort(scratch, (size_t)np, sizeof *scratch, ar_tp_wi_cmp);
    ar_uf_init(uf, n);
    int k = 0;
    double sum = 0;
    for (int j = 0; j < np && k < n - 1; j++) {
        int p = scratch[j].i;
        if (ar_uf_union(uf, pairs[p].u, pairs[p].v)) {
            out[k++] = p;
            sum += w[p];
        }
    }
    if (total) *total = sum;
    return k;
}

int ar_tp_int_cmp(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Boruvka's algorithm (as in the paper) on weights w with the total order
 * (w, index): every round, each component takes its cheapest outgoing pair.
 * Writes n-1 pairs (sorted) to out; returns how many. cheapest: n ints. */
static int boruvka(int n, const ar_tp_pair *pairs, int np, const double *w, int *uf, int *cheapest, int *out) {
    ar_uf_init(uf, n);
    int k = 0, comps = n;
    while (comps > 1) {
        for (int v = 0; v < n; v++) cheapest[v] = -1;
        for (int p = 0; p < np; p++) {
            int a = ar_uf_find(uf, pairs[p].u), b = ar_uf_find(uf, pairs[p].v);
            if (a == b) continue;
            int ends[2] = {a, b};
            for (int s = 0; s < 2; s++) {
                int c = cheapest[ends[s]];
                if (c < 0 || w[p] < w[c] || (w[p] == w[c] && p < c)) cheapest[ends[s]] = p;
            }
        }
        int merged = 0;
        for (int v = 0; v < n; v++) {
            int p = cheapest[v];
            if (p >= 0 && ar_uf_union(uf, pairs[p].u, pairs[p].v)) {
                out[k++] = p;
                comps--;
                merged = 1;
            }
        }
        if (!merged) break; /* disconnected: cannot happen on a loaded platform */
    }
    qsort(out, (size_t)k, sizeof *out, ar_tp_int_cmp);
    return k;
}

/* ------------------------------------------------------------------------ */
/* column generation                                                          */

static uint64_t tree_hash(const int *pairs, int k) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < k; i++) {
        h ^= (uint64_t)(unsigned)pairs[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void ar_tp_cg_free(ar_tp_cg *c) {
    if (c->lp) glp_delete_prob(c->lp);
    free(c->row_of_link);
    free(c->tree_pairs);
    free(c->hash);
    free(c->tree_obj);
    free(c->cnt);
    free(c->touched);
    free(c->ind);
    free(c->val);
    free(c->w);
    free(c->ylink);
    free(c->sort);
    free(c->uf);
    free(c->mst);
    free(c->pidx);
    free(c->best);
    free(c->tn_parent);
    free(c->tn_link);
    free(c->pair_node);
    free(c->tn_val);
    free(c->pbw);
    free(c->pw);
    free(c->pbp);
    free(c->prem);
    free(c->pk);
    free(c->poff);
    memset(c, 0, sizeof *c);
}

/* Per-link pair counts of a tree into c->cnt; returns the number of touched links. */
static int count_links(ar_tp_cg *c, const int *pairs) {
    int nt = 0;
    for (int i = 0; i < c->n - 1; i++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(c->r, pairs[i], 0, &len);
        for (int k = 0; k < len; k++) {
            int l = AR_DLINK_LINK(rt[k]);
            if (c->cnt[l]++ == 0) c->touched[nt++] = l;
        }
    }
    return nt;
}

/* Adds the tree (n-1 sorted pairs) as a column; obj = its objective coefficient
 * factor (0 in stage 1, 1 in stage 2). Returns 1 added, 0 duplicate, -1 OOM. */
int ar_tp_cg_add(ar_tp_cg *c, const int *pairs, double objf) {
    int k1 = c->n - 1;
    uint64_t h = tree_hash(pairs, k1);
    for (int j = 0; j < c->ncols; j++)
        if (c->hash[j] == h && !memcmp(c->tree_pairs + (size_t)j * (size_t)k1, pairs, (size_t)k1 * sizeof *pairs))
            return 0;
    if (c->ncols == c->capcols) {
        int nc = c->capcols ? 2 * c->capcols : 64;
        int *tp = ar_reallocarray(c->tree_pairs, (size_t)nc * (size_t)k1, sizeof *tp);
        if (!tp) return -1;
        c->tree_pairs = tp;
        uint64_t *hh = ar_reallocarray(c->hash, (size_t)nc, sizeof *hh);
        if (!hh) return -1;
        c->hash = hh;
        double *to = ar_reallocarray(c->tree_obj, (size_t)nc, sizeof *to);
        if (!to) return -1;
        c->tree_obj = to;
        c->capcols = nc;
    }
    memcpy(c->tree_pairs + (size_t)c->ncols * (size_t)k1, pairs, (size_t)k1 * sizeof *pairs);
    c->hash[c->ncols] = h;
    double obj = 0;
    for (int i = 0; i < k1; i++) obj += c->r->pairs[pairs[i]].cost;
    c->tree_obj[c->ncols] = obj;
    int nt = count_links(c, pairs), len = 0;
    c->ind[++len] = 1;
    c->val[len] = 1.0;
    for (int t = 0; t < nt; t++) {
        int l = c->touched[t];
        c->ind[++len] = c->row_of_link[l];
        c->val[len] = c->r->link_c[l] * c->cnt[l];
        c->cnt[l] = 0;
    }
    int j = glp_add_cols(c->lp, 1);
    glp_set_col_bnds(c->lp, j, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(c->lp, j, objf * obj);
    glp_set_mat_col(c->lp, j, len, c->ind, c->val);
    c->ncols++;
    return 1;
}

static int cg_simplex(glp_prob *lp) {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;
    parm.tol_bnd = 1e-9;
    parm.tol_dj = 1e-9;
    int ret = glp_simplex(lp, &parm);
    if (ret != 0 || glp_get_status(lp) != GLP_OPT) {
        glp_std_basis(lp);
        ret = glp_simplex(lp, &parm);
    }
    return ret == 0 && glp_get_status(lp) == GLP_OPT ? 0 : -1;
}

/* Tie-break key of pair p for the j-th extra tree of a pricing round (a hash). */
static uint32_t tie_key(int p, int j) {
    uint32_t h = (uint32_t)p * 2654435761u ^ (uint32_t)(j + 1) * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return h;
}

typedef struct wki {
    double w;
    uint32_t k;
    int i;
} wki;

static int wki_cmp(const void *x, const void *y) {
    const wki *a = x, *b = y;
    if (a->w < b->w) return -1;
    if (a->w > b->w) return 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The minimum spanning tree over c's pairs under weights w. j < 0: ties by
 * index. j >= 0: every weight perturbed by a relative factor in
 * [1 - TP_NOISE, 1 + TP_NOISE] and ties ordered by tie_key(., j), both
 * deterministic: a near-minimum tree, a different column. The keys (weight,
 * tie key, index) are a strict total order, so the tree is unique: on the
 * complete graph of ranks (every pair a candidate) Prim's O(n^2) scan finds it
 * without sorting n^2/2 pairs (Kruskal's sort was 77 % of treepack's planning
 * at 512 ranks); over a link set (direct) Kruskal. Writes the pairs to out in
 * key order, the (perturbed) total, summed in key order, to *total; returns
 * how many pairs. */
static int key_less(const wki *s, int a, int b) { return wki_cmp(&s[a], &s[b]) < 0; }

/* Every pair of ranks a candidate (switched platforms), pairs in order of (u, v). */
static int complete_graph(const ar_tp_cg *c) {
    return !c->r->direct && c->n >= 2 && (long long)c->np == (long long)c->n * (c->n - 1) / 2;
}

static int prim_tables(ar_tp_cg *c) {
    int n = c->n;
    if (!c->pidx) { /* pair index of (u, v), both orders */
        c->pidx = ar_calloc((size_t)n * (size_t)n, sizeof *c->pidx);
        c->best = ar_calloc((size_t)n + 1, sizeof *c->best);
        if (!c->pidx || !c->best) return -1;
        for (int p = 0; p < c->np; p++) {
            int u = c->r->pairs[p].u, v = c->r->pairs[p].v;
            c->pidx[(size_t)u * (size_t)n + (size_t)v] = c->pidx[(size_t)v * (size_t)n + (size_t)u] = p;
        }
    }
    return 0;
}

/* The tree's edges sel[0..k) (freed here) in key order, as Kruskal adds them, into out, and their
 * sum in that order (the same sum, to the last bit, whichever way the tree was found); returns k. */
static int key_order(wki *sel, int k, int *out, double *total) {
    qsort(sel, (size_t)k, sizeof *sel, wki_cmp);
    double sum = 0;
    for (int q = 0; q < k; q++) {
        out[q] = sel[q].i;
        sum += sel[q].w;
    }
    free(sel);
    *total = sum;
    return k;
}

/* The reference scan (opts.reference): every step scans all n vertices twice. */
static int prim_complete(ar_tp_cg *c, wki *s, int *out, double *total) {
    int n = c->n;
    if (prim_tables(c) != 0) return -1;
    int *best = c->best, k = 0; /* best[v]: the least pair joining v to the tree; -1 once v is in it */
    best[0] = -1;
    for (int v = 1; v < n; v++) best[v] = c->pidx[v];
    for (int it = 1; it < n; it++) {
        int pick = -1;
        for (int v = 1; v < n; v++)
            if (best[v] >= 0 && (pick < 0 || key_less(s, best[v], best[pick]))) pick = v;
        out[k++] = best[pick];
        best[pick] = -1;
        const int *row = c->pidx + (size_t)pick * (size_t)n;
        for (int v = 1; v < n; v++)
            if (best[v] >= 0 && key_less(s, row[v], best[v])) best[v] = row[v];
    }
    wki *sel = ar_calloc((size_t)k + 1, sizeof *sel);
    if (!sel) return -1;
    for (int q = 0; q < k; q++) sel[q] = s[out[q]];
    return key_order(sel, k, out, total);
}

/* Key (w[a], k[a], a) < key (w[b], k[b], b), k NULL meaning all 0: the order of wki_cmp. */
static inline int prim_less(double wa, double wb, const uint32_t *k, int a, int b) {
    if (wa < wb) return 1;
    if (wa > wb) return 0;
    if (k && k[a] != k[b]) return k[a] < k[b];
    return a < b;
}

/* Prim's step at vertex v (list position i) outside the tree: the new tree
 * vertex's pair p may lower v's best key; the least best key so far into m. */
typedef struct prim_min {
    int i, p;
    double w;
} prim_min;

static inline void prim_visit(const double *w, const uint32_t *k, double *bw, int *bp, int v, int p, int i,
                              prim_min *m) {
    double x = w[p], y = bw[v];
    int q = bp[v];
    if (prim_less(x, y, k, p, q)) {
        bw[v] = y = x;
        bp[v] = q = p;
    }
    if (m->p < 0 || prim_less(y, m->w, k, q, m->p)) *m = (prim_min){.i = i, .p = q, .w = y};
}

/* Prim on the pair weights as they are (pairs in order of (u, v): pair {a, b},
 * a < b, is off[a] + b): the vertices outside the tree are kept in a sorted
 * list, so a step reads the new vertex's pairs with smaller partners at
 * increasing addresses and those with larger ones contiguously. */
static int prim_packed(ar_tp_cg *c, const double *w, const uint32_t *k, int *out, double *total) {
    int n = c->n;
    if (!c->pbw) {
        c->pbw = ar_calloc((size_t)n + 1, sizeof *c->pbw);
        c->pbp = ar_calloc((size_t)n + 1, sizeof *c->pbp);
        c->prem = ar_calloc((size_t)n + 1, sizeof *c->prem);
        if (!c->pbw || !c->pbp || !c->prem) return -1;
    }
    if (!c->poff) {
        if (!(c->poff = ar_calloc((size_t)n + 1, sizeof *c->poff))) return -1;
        for (int u = 0; u < n; u++) c->poff[u] = u * (n - 1) - u * (u - 1) / 2 - u - 1;
    }
    const int *off = c->poff;
    double *bw = c->pbw;
    int *bp = c->pbp, *rem = c->prem, nrem = 0, ip = 0, nk = 0;
    for (int v = 1; v < n; v++) {
        rem[nrem++] = v;
        bp[v] = v - 1;
        bw[v] = w[v - 1];
    }
    for (int i = 1; i < nrem; i++)
        if (prim_less(bw[rem[i]], bw[rem[ip]], k, bp[rem[i]], bp[rem[ip]])) ip = i;
    while (nrem > 0) {
        int pick = rem[ip];
        out[nk++] = bp[pick];
        memmove(rem + ip, rem + ip + 1, (size_t)(nrem - ip - 1) * sizeof *rem);
        nrem--;
        prim_min m = {.i = 0, .p = -1, .w = 0};
        for (int i = 0; i < ip; i++) prim_visit(w, k, bw, bp, rem[i], off[rem[i]] + pick, i, &m); /* v < pick */
        for (int i = ip; i < nrem; i++) prim_visit(w, k, bw, bp, rem[i], off[pick] + rem[i], i, &m);
        ip = m.i;
    }
    wki *sel = ar_calloc((size_t)nk + 1, sizeof *sel);
    if (!sel) return -1;
    for (int q = 0; q < nk; q++) sel[q] = (wki){.w = w[out[q]], .k = k ? k[out[q]] : 0, .i = out[q]};
    return key_order(sel, nk, out, total);
}

static double noise(int i, int j) { return 1 + TP_NOISE * ((double)(tie_key(i, j + 1000) % 2001) / 1000.0 - 1); }

static int kruskal_keyed(ar_tp_cg *c, const double *w, int j, wki *scratch, int *out, double *total) {
    int complete = complete_graph(c);
    if (complete && !c->reference) {
        const double *kw = w;
        const uint32_t *kk = NULL;
        if (j >= 0) {
            if (!c->pw) {
                c->pw = ar_calloc((size_t)c->np + 1, sizeof *c->pw);
                c->pk = ar_calloc((size_t)c->np + 1, sizeof *c->pk);
            }
            if (c->pw && c->pk) {
                for (int i = 0; i < c->np; i++) {
                    c->pw[i] = w[i] * noise(i, j);
                    c->pk[i] = tie_key(i, j);
                }
                kw = c->pw;
                kk = c->pk;
            }
        }
        if (j < 0 || kk) {
            int k = prim_packed(c, kw, kk, out, total);
            if (k >= 0) return k; /* (out of memory: the reference path below) */
        }
    }
    for (int i = 0; i < c->np; i++) {
        scratch[i].w = j < 0 ? w[i] : w[i] * noise(i, j);
        scratch[i].k = j < 0 ? 0 : tie_key(i, j);
        scratch[i].i = i;
    }
    if (complete) {
        int k = prim_complete(c, scratch, out, total);
        if (k >= 0) return k; /* (out of memory: Kruskal below) */
    }
    qsort(scratch, (size_t)c->np, sizeof *scratch, wki_cmp);
    ar_uf_init(c->uf, c->n);
    int k = 0;
    double sum = 0;
    for (int q = 0; q < c->np && k < c->n - 1; q++) {
        int p = scratch[q].i;
        if (ar_uf_union(c->uf, c->r->pairs[p].u, c->r->pairs[p].v)) {
            out[k++] = p;
            sum += scratch[q].w;
        }
    }
    *total = sum;
    return k;
}

/* The route trie (see ar_tp_cg). Routes of one source come in order of v, so
 * each route first follows the previous one's trie path as far as they agree,
 * then looks its remaining links up among the children (linked siblings).
 * Returns 0, or -1 out of memory (the caller then sums route by route). */
static int trie_build(ar_tp_cg *c) {
    const ar_treepack_result *r = c->r;
    int maxlen = 0;
    for (int p = 0; p < c->np; p++)
        if (r->route_off[2 * p + 1] - r->route_off[2 * p] > maxlen)
            maxlen = r->route_off[2 * p + 1] - r->route_off[2 * p];
    size_t cap = (size_t)c->n + (size_t)c->np + 16, nn = 0;
    int *par = ar_calloc(cap, sizeof *par), *lk = ar_calloc(cap, sizeof *lk);
    int *fc = ar_calloc(cap, sizeof *fc), *ns = ar_calloc(cap, sizeof *ns);
    int *path = ar_calloc((size_t)maxlen + 1, sizeof *path);
    c->pair_node = ar_calloc((size_t)c->np + 1, sizeof *c->pair_node);
    int ok = par && lk && fc && ns && path && c->pair_node;
    const ar_dlink *prev = NULL;
    int prevlen = 0;
    for (int p = 0; ok && p < c->np; p++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(r, p, 0, &len);
        int fresh = p == 0 || r->pairs[p - 1].u != r->pairs[p].u, k = 0;
        if (fresh) {
            prevlen = 0;
        } else {
            while (k < len && k < prevlen && AR_DLINK_LINK(rt[k]) == AR_DLINK_LINK(prev[k])) k++;
        }
        for (int q = fresh ? -1 : k; ok && q < len; q++) {
            int cur = q >= 0 ? path[q] : -1, l = q >= 0 ? AR_DLINK_LINK(rt[q]) : -1, ch = -1;
            if (cur >= 0)
                for (ch = fc[cur]; ch >= 0 && lk[ch] != l; ch = ns[ch]) {}
            if (ch < 0) { /* a new node (a source's root when q = -1) */
                if (nn == cap || nn >= (size_t)INT32_MAX) {
                    size_t nc = cap * 2;
                    int *a = ar_reallocarray(par, nc, sizeof *a);
                    if (a) par = a;
                    int *b = ar_reallocarray(lk, nc, sizeof *b);
                    if (b) lk = b;
                    int *f = ar_reallocarray(fc, nc, sizeof *f);
                    if (f) fc = f;
                    int *g = ar_reallocarray(ns, nc, sizeof *g);
                    if (g) ns = g;
                    if (!a || !b || !f || !g || nn >= (size_t)INT32_MAX) {
                        ok = 0;
                        break;
                    }
                    cap = nc;
                }
                ch = (int)nn++;
                par[ch] = cur;
                lk[ch] = l;
                fc[ch] = -1;
                ns[ch] = cur >= 0 ? fc[cur] : -1;
                if (cur >= 0) fc[cur] = ch;
            }
            path[q + 1] = ch;
        }
        if (ok) c->pair_node[p] = path[len];
        prev = rt;
        prevlen = len;
    }
    free(fc);
    free(ns);
    free(path);
    c->tn_val = ok ? ar_calloc(nn + 1, sizeof *c->tn_val) : NULL;
    if (!ok || !c->tn_val) {
        free(par);
        free(lk);
        free(c->pair_node);
        c->pair_node = NULL;
        return -1;
    }
    c->tn_parent = par;
    c->tn_link = lk;
    c->ntn = (int)nn;
    return 0;
}

void ar_tp_pair_weights(ar_tp_cg *c, const double *ylink, double *w) {
    if (!c->reference && !c->r->direct && c->ntn == 0 && trie_build(c) != 0) c->ntn = -1; /* (OOM: route by route) */
    if (c->ntn > 0) {
        const int *par = c->tn_parent, *lk = c->tn_link;
        double *val = c->tn_val;
        for (int i = 0; i < c->ntn; i++) val[i] = par[i] < 0 ? 0 : val[par[i]] + ylink[lk[i]];
        for (int p = 0; p < c->np; p++) w[p] = val[c->pair_node[p]];
        return;
    }
    for (int p = 0; p < c->np; p++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(c->r, p, 0, &len);
        double x = 0;
        for (int k = 0; k < len; k++) x += ylink[AR_DLINK_LINK(rt[k])];
        w[p] = x;
    }
}

/* First columns: a Frank-Wolfe run on a smoothed max-load objective.
 * Iteration t takes the minimum spanning tree under
 * w_l = c_l exp(beta (L_l c_l / m_t - 1)) (L = the running average of the
 * trees' link loads, m_t = max_l L_l c_l), then L <- (1 - g) L + g chi_T with
 * g = 2/(t+2). The distinct trees become the first columns: a balanced pool
 * from which the simplex combines an optimum in few pricing rounds (on a
 * 16x16 torus: one round instead of hundreds). */
ar_status ar_tp_warm_pool(ar_tp_cg *c, int iters, double beta, double deadline, ar_err *e) {
    double *load = ar_calloc((size_t)c->L + 1, sizeof *load), *yl = ar_calloc((size_t)c->L + 1, sizeof *yl);
    wki *scratch = ar_calloc((size_t)c->np + 1, sizeof *scratch);
    ar_status st = AR_OK;
    if (!load || !yl || !scratch) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    for (int t = 0; t < iters && st == AR_OK; t++) {
        if (deadline > 0 && ar_now_s() > deadline) break;
        double mx = 0;
        for (int l = 0; l < c->L; l++)
            if (load[l] * c->r->link_c[l] > mx) mx = load[l] * c->r->link_c[l];
        for (int l = 0; l < c->L; l++)
            yl[l] = c->r->link_c[l] * (mx > 0 ? exp(beta * (load[l] * c->r->link_c[l] / mx - 1)) : 1);
        ar_tp_pair_weights(c, yl, c->w);
        double W;
        int k = kruskal_keyed(c, c->w, -1, scratch, c->mst, &W);
        if (k != c->n - 1) break;
        qsort(c->mst, (size_t)k, sizeof *c->mst, ar_tp_int_cmp);
        if (ar_tp_cg_add(c, c->mst, 0) < 0) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        double g = 2.0 / (t + 2);
        for (int l = 0; l < c->L; l++) load[l] *= 1 - g;
        for (int q = 0; q < k; q++) {
            int len;
            const ar_dlink *rt = ar_tp_route_of(c->r, c->mst[q], 0, &len);
            for (int z = 0; z < len; z++) load[AR_DLINK_LINK(rt[z])] += g;
        }
    }
    free(load);
    free(yl);
    free(scratch);
    return st;
}

/* Column generation to optimality with objective factor s on tree columns
 * (stage 1: s = 0, minimise t; stage 2: s = 1, minimise traffic).
 * Each round solves the restricted master and prices at its duals: the
 * minimum spanning tree under w_p (ties by index) decides optimality (reduced
 * cost >= -tol: LP optimal); when it is negative, up to TP_EXTRA_TREES more
 * trees are priced under weights perturbed by +-TP_NOISE (deterministic
 * hashes) and those with negative true reduced cost are added too: near-best
 * columns that cut the number of rounds (and of simplex pivots) several-fold
 * on degenerate masters such as tori, where every link is tight. */
ar_status ar_tp_cg_run(ar_tp_cg *c, double s, int max_iter, double deadline, int *iters, int *stopped, double *lower,
                       ar_err *e) {
    wki *scratch = ar_calloc((size_t)c->np + 1, sizeof *scratch);
    if (!scratch) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    ar_status st = AR_OK;
    for (int it = 0;; it++) {
        if (cg_simplex(c->lp) != 0) {
            st = ar_fail(e, AR_EINTERNAL, "treepack: GLPK simplex failed (stage %d, %d columns)", s > 0 ? 2 : 1,
                         c->ncols);
            break;
        }
        (*iters)++;
        if (it >= max_iter) {
            st = ar_fail(e, AR_EINTERNAL, "treepack: column generation did not converge in %d iterations", max_iter);
            break;
        }
        double yconv = glp_get_row_dual(c->lp, 1);
        for (int l = 0; l < c->L; l++)
            c->ylink[l] = c->row_of_link[l] ? c->r->link_c[l] * (s - glp_get_row_dual(c->lp, c->row_of_link[l])) : 0;
        ar_tp_pair_weights(c, c->ylink, c->w);
        double tol = 1e-9 * (fabs(yconv) > 1 ? fabs(yconv) : 1);
        int added_any = 0;
        for (int j = -1; j < TP_EXTRA_TREES && st == AR_OK; j++) {
            double W;
            int k = kruskal_keyed(c, c->w, j, scratch, c->mst, &W);
            if (k != c->n - 1) {
                st = ar_fail(e, AR_EINTERNAL, "treepack: pricing found no spanning tree");
                break;
            }
            if (j >= 0) { /* true weight of the perturbed tree */
                W = 0;
                for (int q = 0; q < k; q++) W += c->w[c->mst[q]];
                if (W - yconv >= -tol) continue;
            }
            if (W - yconv >= -tol) break;                           /* j = -1: LP optimal */
            if (j == -1 && deadline > 0 && ar_now_s() > deadline) { /* the budget: keep this packing */
                double mu = 0;
                for (int l = 0; l < c->L; l++)
                    if (c->row_of_link[l]) mu -= glp_get_row_dual(c->lp, c->row_of_link[l]);
                *lower = s > 0 ? W - glp_get_col_ub(c->lp, 1) * mu : W;
                *stopped = 1;
                break;
            }
            qsort(c->mst, (size_t)k, sizeof *c->mst, ar_tp_int_cmp);
            int added = ar_tp_cg_add(c, c->mst, s);
            if (added < 0) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
            if (j == -1 && added == 0) break; /* priced a column already present: optimal within tolerance */
            added_any |= added > 0;
        }
        if (st != AR_OK || !added_any || *stopped) break;
    }
    free(scratch);
    return st;
}

/* ------------------------------------------------------------------------ */
/* bounds                                                                    */

ar_status ar_tp_bounds(const ar_platform *p, ar_treepack_result *r, ar_err *e) {
    int n = r->nranks, np = r->npairs, L = r->nlinks;
    double *w = ar_calloc((size_t)np + 1, sizeof *w);
    int *uf = ar_calloc((size_t)n, sizeof *uf), *ch = ar_calloc((size_t)n, sizeof *ch);
    int *cnt = ar_calloc((size_t)L + 1, sizeof *cnt);
    ar_dlink *rt = ar_calloc((size_t)p->nnodes + 2, sizeof *rt);
    r->mwst_pairs = ar_calloc((size_t)n, sizeof *r->mwst_pairs);
    ar_status st = AR_OK;
    if (!w || !uf || !ch || !cnt || !rt || !r->mwst_pairs) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto done;
    }
    r->max_c = 0;
    for (int q = 0; q < np; q++) {
        int len;
        const ar_dlink *ro = ar_tp_route_of(r, q, 0, &len);
        double b = 0;
        for (int k = 0; k < len; k++) {
            double c = r->link_c[AR_DLINK_LINK(ro[k])];
            if (c > b) b = c;
        }
        /* direct: the link's c (Boruvka's MST is a minimum-bottleneck tree);
         * switched: the route's total c (short routes, few shared links) */
        w[q] = r->direct ? b : r->pairs[q].cost;
        if (b > r->max_c) r->max_c = b;
    }
    int k = boruvka(n, r->pairs, np, w, uf, ch, r->mwst_pairs);
    r->mwst = k == n - 1 ? ar_treepack_tree_cost(r, r->mwst_pairs, k) : INFINITY;
    if (r->direct) {
        double s = 0;
        for (int l = 0; l < L; l++) s += 1.0 / r->link_c[l];
        r->lower = (n - 1) / s;
    } else {
        r->lower = NAN;
    }
    /* ring in rank order, undirected hop counts */
    for (int i = 0; i < n; i++) {
        int len = ar_platform_route(p, i, (i + 1) % n, rt, p->nnodes + 1);
        for (int q = 0; q < len; q++) cnt[AR_DLINK_LINK(rt[q])]++;
    }
    r->ring = 0;
    for (int l = 0; l < L; l++)
        if (cnt[l] && r->link_c[l] * cnt[l] > r->ring) r->ring = r->link_c[l] * cnt[l];
    r->ring *= (double)(n - 1) / n;
done:
    free(w);
    free(uf);
    free(ch);
    free(cnt);
    free(rt);
    return st;
}
