/* Spanning-tree packing: LP over the spanning-tree polytope by column
 * generation, exact certificates, the extended (flow) formulation as a check,
 * Boruvka's best single tree, the Lemma 2.1 bounds, the ring, and the root LP.
 * See treepack.h for the mathematics and the ownership rules.
 *
 * GLPK: every problem is created and deleted here; terminal output is turned
 * off per call (msg_lev = GLP_MSG_OFF), never through the global glp_term_out.
 * Owner: spanning-tree packing (issue 5).
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "treepack.h"

#define TP_DEFAULT_MAX_ITER 100000
#define TP_MAXDEN 1000000      /* denominators tried when rationalising values */
#define TP_RAT_TOL 1e-9
#define TP_WEIGHT_EPS 1e-9     /* floating tree / stream weights below this are dropped (GLPK's tolerance) */
#define TP_ROOT_LP_NNZ (1 << 18) /* above this many entries the root LP uses 3 candidate roots per tree */
#define TP_EXTRA_TREES 16      /* extra columns per pricing round */
#define TP_NOISE 0.3           /* their relative weight perturbation */
#define TP_WARM_MAX 4000       /* Frank-Wolfe warm-start trees, at most */
#define TP_WARM_BETA 60.0      /* its softmax sharpness (10 needs ~15x longer on a 256-GPU DGX cluster) */

/* ------------------------------------------------------------------------ */
/* small helpers                                                             */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

ar_treepack_opts ar_treepack_defaults(void) {
    ar_treepack_opts o = {.secondary = -1, .root_lp = 1, .compact = 0, .max_iter = 0};
    return o;
}

/* --- exact fractions: int64 storage (|num|, den < 2^62), __int128 arithmetic */
typedef __int128 i128;
#define FR_LIM ((int64_t)1 << 62)

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static i128 iabs128(i128 x) { return x < 0 ? -x : x; }

static i128 gcd128(i128 a, i128 b) {
    a = iabs128(a);
    b = iabs128(b);
    while (b) {
        i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* n/d reduced into *o; returns 0 when d == 0 or it does not fit. */
static int frac128(i128 n, i128 d, ar_tp_frac *o) {
    if (d == 0) return 0;
    if (d < 0) {
        n = -n;
        d = -d;
    }
    i128 g = gcd128(n, d);
    if (g > 1) {
        n /= g;
        d /= g;
    }
    if (iabs128(n) >= (i128)FR_LIM || d >= (i128)FR_LIM) return 0;
    o->num = (int64_t)n;
    o->den = (int64_t)d;
    return 1;
}

static int fr_ok(ar_tp_frac a) { return a.den > 0 && a.den < FR_LIM && a.num < FR_LIM && a.num > -FR_LIM; }

static int fr_add(ar_tp_frac a, ar_tp_frac b, ar_tp_frac *o) {
    if (!fr_ok(a) || !fr_ok(b)) return 0;
    return frac128((i128)a.num * b.den + (i128)b.num * a.den, (i128)a.den * b.den, o);
}

static int fr_cmp(ar_tp_frac a, ar_tp_frac b) {
    i128 l = (i128)a.num * b.den, r = (i128)b.num * a.den;
    return (l > r) - (l < r);
}

int ar_tp_rationalize(double x, int64_t maxden, double tol, ar_tp_frac *out) {
    out->num = 0;
    out->den = 0;
    if (!isfinite(x) || fabs(x) > 1e9 || maxden < 1) return 0;
    double y = fabs(x), tolabs = tol * (y > 1 ? y : 1), r = y;
    int64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
    for (int it = 0; it < 64; it++) {
        double a = floor(r);
        if (a > 1e12) break;
        int64_t ai = (int64_t)a;
        if (ai > 0 && (h1 > (INT64_MAX - h0) / ai || k1 > (INT64_MAX - k0) / ai)) break;
        int64_t h2 = ai * h1 + h0, k2 = ai * k1 + k0;
        if (k2 > maxden) break;
        h0 = h1;
        h1 = h2;
        k0 = k1;
        k1 = k2;
        if (fabs(y - (double)h1 / (double)k1) <= tolabs) {
            out->num = x < 0 ? -h1 : h1;
            out->den = k1;
            return 1;
        }
        double f = r - a;
        if (f < 1e-300) break;
        r = 1.0 / f;
    }
    return 0;
}

char *ar_tp_fmt(double x, ar_tp_frac f, char *buf, size_t n) {
    if (f.den > 0)
        snprintf(buf, n, "%lld/%lld (%.6g)", (long long)f.num, (long long)f.den, x);
    else
        snprintf(buf, n, "%.9g", x);
    return buf;
}

/* --- union-find ----------------------------------------------------------- */
static int uf_find(int *uf, int x) {
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

/* Joins the sets of a and b (the lower root index becomes the root);
 * returns 0 if they were already joined. */
static int uf_union(int *uf, int a, int b) {
    a = uf_find(uf, a);
    b = uf_find(uf, b);
    if (a == b) return 0;
    if (a < b) uf[b] = a;
    else uf[a] = b;
    return 1;
}

typedef struct wi {
    double w;
    int i;
} wi;

static int wi_cmp(const void *x, const void *y) {
    const wi *a = x, *b = y;
    if (a->w < b->w) return -1;
    if (a->w > b->w) return 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Kruskal: the minimum spanning tree of the pairs under weights w, taking
 * pairs in order of (w, index). scratch: npairs wi; uf: n ints. Writes n-1
 * pair indices (ascending) to out and returns how many it found. */
static int kruskal(int n, const ar_tp_pair *pairs, int np, const double *w, wi *scratch, int *uf, int *out,
                   double *total) {
    for (int i = 0; i < np; i++) {
        scratch[i].w = w[i];
        scratch[i].i = i;
    }
    qsort(scratch, (size_t)np, sizeof *scratch, wi_cmp);
    for (int v = 0; v < n; v++) uf[v] = v;
    int k = 0;
    double sum = 0;
    for (int j = 0; j < np && k < n - 1; j++) {
        int p = scratch[j].i;
        if (uf_union(uf, pairs[p].u, pairs[p].v)) {
            out[k++] = p;
            sum += w[p];
        }
    }
    if (total) *total = sum;
    return k;
}

static int int_cmp(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Boruvka's algorithm (as in the paper) on weights w with the total order
 * (w, index): every round, each component takes its cheapest outgoing pair.
 * Writes n-1 pairs (sorted) to out; returns how many. cheapest: n ints. */
static int boruvka(int n, const ar_tp_pair *pairs, int np, const double *w, int *uf, int *cheapest, int *out) {
    for (int v = 0; v < n; v++) uf[v] = v;
    int k = 0, comps = n;
    while (comps > 1) {
        for (int v = 0; v < n; v++) cheapest[v] = -1;
        for (int p = 0; p < np; p++) {
            int a = uf_find(uf, pairs[p].u), b = uf_find(uf, pairs[p].v);
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
            if (p >= 0 && uf_union(uf, pairs[p].u, pairs[p].v)) {
                out[k++] = p;
                comps--;
                merged = 1;
            }
        }
        if (!merged) break; /* disconnected: cannot happen on a loaded platform */
    }
    qsort(out, (size_t)k, sizeof *out, int_cmp);
    return k;
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

static const ar_dlink *route_of(const ar_treepack_result *r, int pair, int reverse, int *len) {
    int a = r->route_off[2 * pair + (reverse ? 1 : 0)], b = r->route_off[2 * pair + (reverse ? 2 : 1)];
    *len = b - a;
    return r->route + a;
}

/* Route from rank x to rank y where {x,y} is pair p. */
static const ar_dlink *route_dir(const ar_treepack_result *r, int p, int x, int *len) {
    return route_of(r, p, r->pairs[p].u == x ? 0 : 1, len);
}

double ar_treepack_tree_cost(const ar_treepack_result *r, const int *pairs, int npairs) {
    int n = r->nranks;
    if (npairs != n - 1) return INFINITY;
    int *uf = ar_calloc((size_t)n, sizeof *uf);
    int *cnt = ar_calloc((size_t)r->nlinks + 1, sizeof *cnt);
    double worst = INFINITY;
    if (uf && cnt) {
        for (int v = 0; v < n; v++) uf[v] = v;
        int ok = 1;
        for (int i = 0; i < npairs && ok; i++) {
            int p = pairs[i];
            if (p < 0 || p >= r->npairs || !uf_union(uf, r->pairs[p].u, r->pairs[p].v)) ok = 0;
            else {
                int len;
                const ar_dlink *rt = route_of(r, p, 0, &len);
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
            !frac128(ratio.num, (i128)ratio.den * lk->lanes, &r->link_c_exact[l]))
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
        wi *ord = ar_calloc((size_t)L, sizeof *ord);
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
        qsort(ord, (size_t)L, sizeof *ord, wi_cmp);
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
                if (len < 0)
                    return ar_fail(e, AR_EINTERNAL, "treepack: no route between ranks %d and %d", u, v);
                if (dir == 0) {
                    pp->cost = 0;
                    for (int k = 0; k < len; k++) pp->cost += r->link_c[AR_DLINK_LINK(r->route[used + (size_t)k])];
                }
                used += (size_t)len;
                if (used > (size_t)INT32_MAX - (size_t)maxhop)
                    return ar_fail(e, AR_ENOMEM, "treepack: routes too long to store");
            }
        }
    r->route_off[2 * np] = (int)used;
    return AR_OK;
}

/* ------------------------------------------------------------------------ */
/* column generation                                                          */

typedef struct cg {
    const ar_treepack_result *r;
    glp_prob *lp;
    int n, np, L;
    int *row_of_link;   /* GLPK row of link l, 0 if no pair crosses it */
    int nrows;
    /* columns (trees): col j (GLPK) = 1 + k for tree k */
    int ncols, capcols;
    int *tree_pairs;    /* ncols * (n-1) */
    uint64_t *hash;
    double *tree_obj;   /* sum of pair costs (second-stage objective) */
    /* scratch */
    int *cnt, *touched; /* per link */
    int *ind;
    double *val, *w, *ylink;
    wi *sort;
    int *uf, *mst;
} cg;

static uint64_t tree_hash(const int *pairs, int k) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < k; i++) {
        h ^= (uint64_t)(unsigned)pairs[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void cg_free(cg *c) {
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
    memset(c, 0, sizeof *c);
}

/* Per-link pair counts of a tree into c->cnt; returns the number of touched links. */
static int count_links(cg *c, const int *pairs) {
    int nt = 0;
    for (int i = 0; i < c->n - 1; i++) {
        int len;
        const ar_dlink *rt = route_of(c->r, pairs[i], 0, &len);
        for (int k = 0; k < len; k++) {
            int l = AR_DLINK_LINK(rt[k]);
            if (c->cnt[l]++ == 0) c->touched[nt++] = l;
        }
    }
    return nt;
}

/* Adds the tree (n-1 sorted pairs) as a column; obj = its objective coefficient
 * factor (0 in stage 1, 1 in stage 2). Returns 1 added, 0 duplicate, -1 OOM. */
static int cg_add(cg *c, const int *pairs, double objf) {
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

/* Kruskal over c's pairs under weights w. j < 0: the minimum spanning tree,
 * ties by index. j >= 0: every weight perturbed by a relative factor in
 * [1 - TP_NOISE, 1 + TP_NOISE] and ties ordered by tie_key(., j), both
 * deterministic: a near-minimum tree, a different column. Writes the pairs to
 * out, the (perturbed) total to *total; returns how many pairs. */
static int kruskal_keyed(cg *c, const double *w, int j, wki *scratch, int *out, double *total) {
    for (int i = 0; i < c->np; i++) {
        scratch[i].w = j < 0 ? w[i] : w[i] * (1 + TP_NOISE * ((double)(tie_key(i, j + 1000) % 2001) / 1000.0 - 1));
        scratch[i].k = j < 0 ? 0 : tie_key(i, j);
        scratch[i].i = i;
    }
    qsort(scratch, (size_t)c->np, sizeof *scratch, wki_cmp);
    for (int v = 0; v < c->n; v++) c->uf[v] = v;
    int k = 0;
    double sum = 0;
    for (int q = 0; q < c->np && k < c->n - 1; q++) {
        int p = scratch[q].i;
        if (uf_union(c->uf, c->r->pairs[p].u, c->r->pairs[p].v)) {
            out[k++] = p;
            sum += scratch[q].w;
        }
    }
    *total = sum;
    return k;
}

/* Pair weights w_p = sum over p's route of per-link weights ylink. */
static void pair_weights(cg *c, const double *ylink, double *w) {
    for (int p = 0; p < c->np; p++) {
        int len;
        const ar_dlink *rt = route_of(c->r, p, 0, &len);
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
static ar_status warm_pool(cg *c, int iters, double beta, ar_err *e) {
    double *load = ar_calloc((size_t)c->L + 1, sizeof *load), *yl = ar_calloc((size_t)c->L + 1, sizeof *yl);
    wki *scratch = ar_calloc((size_t)c->np + 1, sizeof *scratch);
    ar_status st = AR_OK;
    if (!load || !yl || !scratch) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    for (int t = 0; t < iters && st == AR_OK; t++) {
        double mx = 0;
        for (int l = 0; l < c->L; l++)
            if (load[l] * c->r->link_c[l] > mx) mx = load[l] * c->r->link_c[l];
        for (int l = 0; l < c->L; l++)
            yl[l] = c->r->link_c[l] * (mx > 0 ? exp(beta * (load[l] * c->r->link_c[l] / mx - 1)) : 1);
        pair_weights(c, yl, c->w);
        double W;
        int k = kruskal_keyed(c, c->w, -1, scratch, c->mst, &W);
        if (k != c->n - 1) break;
        qsort(c->mst, (size_t)k, sizeof *c->mst, int_cmp);
        if (cg_add(c, c->mst, 0) < 0) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        double g = 2.0 / (t + 2);
        for (int l = 0; l < c->L; l++) load[l] *= 1 - g;
        for (int q = 0; q < k; q++) {
            int len;
            const ar_dlink *rt = route_of(c->r, c->mst[q], 0, &len);
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
static ar_status cg_run(cg *c, double s, int max_iter, int *iters, ar_err *e) {
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
        pair_weights(c, c->ylink, c->w);
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
            if (W - yconv >= -tol) break; /* j = -1: LP optimal */
            qsort(c->mst, (size_t)k, sizeof *c->mst, int_cmp);
            int added = cg_add(c, c->mst, s);
            if (added < 0) st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
            if (j == -1 && added == 0) break; /* priced a column already present: optimal within tolerance */
            added_any |= added > 0;
        }
        if (st != AR_OK || !added_any) break;
    }
    free(scratch);
    return st;
}

/* ------------------------------------------------------------------------ */
/* exact certificates                                                        */
/*
 * GLPK's optimal basis is re-solved in exact integer arithmetic. Link row l
 * is scaled by b_l, the denominator of c_l = a_l / b_l, so that the master
 * LP's matrix is integral with small entries:
 *     conv:   sum_T lambda_T = 1
 *     link l: sum_T a_l cnt_lT lambda_T - b_l t <= 0
 * With B the basic columns and N the nonbasic (tight) rows, the primal is
 * A[N,B] x_B = b_N - A[N,nonbasic cols] x_nonbasic and the dual
 * A[N,B]^T y_N = obj_B; both are solved by fraction-free Gauss-Jordan
 * (Bareiss/Montante: every intermediate entry is a minor, so each division is
 * exact), giving x = num/det exactly. Then:
 *   primal certificate: lambda >= 0, every basic link row's activity <= 0, so
 *       max_l c_l P_l <= t = C exactly;
 *   dual certificate: pi_l = -b_l y_l >= 0 with sum_l pi_l = 1 (t is basic),
 *       and the exact MST of w_p = sum_{l on route p} pi_l c_l is >= C; for
 *       any packing, t >= sum_l pi_l c_l P_l = sum_T lambda_T w(T) >= MST(w),
 *       so C(G) >= C.
 * __int128 holds the minors; any entry beyond 2^62 abandons the attempt
 * (the result is then reported as not exact, never wrong).
 */
#define I128_LIM ((i128)1 << 62)
#define TP_EXACT_MAX_ROWS 400

/* Solves M x = rhs (k x k, row-major; both overwritten) exactly. On success
 * returns 1, *det > 0 and num[i] with x_i = num[i] / *det. */
static int bareiss_solve(int k, i128 *M, i128 *rhs, i128 *det, i128 *num) {
    /* every entry stays below 2^62 so that each product fits in 127 bits */
    for (size_t i = 0; i < (size_t)k * (size_t)k; i++)
        if (iabs128(M[i]) >= I128_LIM) return 0;
    for (int i = 0; i < k; i++)
        if (iabs128(rhs[i]) >= I128_LIM) return 0;
    i128 prev = 1;
    for (int c = 0; c < k; c++) {
        int pr = -1;
        for (int i = c; i < k; i++)
            if (M[(size_t)i * k + c] != 0) {
                pr = i;
                break;
            }
        if (pr != c) {
            for (int j = 0; j < k; j++) {
                i128 t = M[(size_t)pr * k + j];
                M[(size_t)pr * k + j] = M[(size_t)c * k + j];
                M[(size_t)c * k + j] = t;
            }
            i128 t = rhs[pr];
            rhs[pr] = rhs[c];
            rhs[c] = t;
        }
        i128 piv = M[(size_t)c * k + c];
        for (int i = 0; i < k; i++) {
            if (i == c) continue;
            i128 f = M[(size_t)i * k + c];
            for (int j = 0; j < k; j++) {
                if (j == c) continue;
                i128 v = (piv * M[(size_t)i * k + j] - f * M[(size_t)c * k + j]) / prev;
                if (iabs128(v) >= I128_LIM) return 0;
                M[(size_t)i * k + j] = v;
            }
            i128 v = (piv * rhs[i] - f * rhs[c]) / prev;
            if (iabs128(v) >= I128_LIM) return 0;
            rhs[i] = v;
            M[(size_t)i * k + c] = 0;
        }
        prev = piv;
    }
    /* every diagonal entry now equals the last pivot (+-det) */
    i128 d = M[(size_t)(k - 1) * k + (k - 1)];
    if (d == 0) return 0;
    for (int i = 0; i < k; i++)
        if (M[(size_t)i * k + i] != d) return 0;
    int neg = d < 0;
    *det = neg ? -d : d;
    for (int i = 0; i < k; i++) num[i] = neg ? -rhs[i] : rhs[i];
    return 1;
}

typedef struct iwi {
    i128 w;
    int i;
} iwi;

static int iwi_cmp(const void *x, const void *y) {
    const iwi *a = x, *b = y;
    if (a->w != b->w) return a->w < b->w ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The exact master LP: link row l is scaled by b_l, the denominator of
 * c_l = a_l / b_l, so that its entries are small integers. */
typedef struct xlp {
    int64_t *a, *b; /* per link */
} xlp;

static int xlp_init(const ar_treepack_result *r, xlp *x) {
    x->a = ar_calloc((size_t)r->nlinks + 1, sizeof *x->a);
    x->b = ar_calloc((size_t)r->nlinks + 1, sizeof *x->b);
    if (!x->a || !x->b) return 0;
    for (int l = 0; l < r->nlinks; l++) {
        ar_tp_frac f = r->link_c_exact[l];
        if (f.den <= 0 || f.den > (1 << 20) || f.num > (1 << 20)) return 0;
        x->a[l] = f.num;
        x->b[l] = f.den;
    }
    return 1;
}

static void xlp_free(xlp *x) {
    free(x->a);
    free(x->b);
}

/* Dense integer column j (GLPK numbering: 1 = t, 1 + k = tree k) over rows 1..nrows. */
static void xcol(cg *c, const xlp *x, int j, i128 *col) {
    for (int i = 0; i <= c->nrows; i++) col[i] = 0;
    if (j == 1) {
        for (int l = 0; l < c->L; l++)
            if (c->row_of_link[l]) col[c->row_of_link[l]] = -(i128)x->b[l];
        return;
    }
    const int *pairs = c->tree_pairs + (size_t)(j - 2) * (size_t)(c->n - 1);
    col[1] = 1;
    for (int i = 0; i < c->n - 1; i++) {
        int len;
        const ar_dlink *rt = route_of(c->r, pairs[i], 0, &len);
        for (int q = 0; q < len; q++) {
            int l = AR_DLINK_LINK(rt[q]);
            col[c->row_of_link[l]] += x->a[l];
        }
    }
}

/* The exact solution of the current basis of c->lp.
 * C_known: when t is nonbasic at its upper bound, its exact value (stage 2).
 * Outputs: lam[k] exact weights of every column (0 for nonbasic), tval exact t,
 * and, when want_dual, pi (per link, exact, over one denominator) proven by the
 * MST check against tval. Returns 1 when the primal (and the dual, if asked)
 * certificate holds. */
static int exact_basis(cg *c, const xlp *x, ar_tp_frac C_known, int want_dual, ar_tp_frac *lam, ar_tp_frac *tval) {
    int m = c->nrows, ncol = 1 + c->ncols, ok = 1;
    if (m > TP_EXACT_MAX_ROWS) return 0;
    int *brow = ar_calloc((size_t)m + 1, sizeof *brow), *bcol = ar_calloc((size_t)ncol + 1, sizeof *bcol);
    i128 *A = ar_calloc((size_t)(m + 1) * (size_t)(ncol + 1), sizeof *A); /* A[j*(m+1)+i] */
    i128 *M = NULL, *rhs = NULL, *num = NULL;
    int nb = 0, nn = 0;
    if (!brow || !bcol || !A) ok = 0;
    for (int j = 1; ok && j <= ncol; j++) xcol(c, x, j, A + (size_t)j * (m + 1));
    /* nonbasic rows (the equations) and basic columns (the unknowns) */
    for (int i = 1; ok && i <= m; i++)
        if (glp_get_row_stat(c->lp, i) != GLP_BS) brow[nn++] = i;
    for (int j = 1; ok && j <= ncol; j++)
        if (glp_get_col_stat(c->lp, j) == GLP_BS) bcol[nb++] = j;
    if (ok && (nb != nn || nb == 0)) ok = 0;
    int k = nb;
    if (ok) {
        M = ar_calloc((size_t)k * (size_t)k, sizeof *M);
        rhs = ar_calloc((size_t)k, sizeof *rhs);
        num = ar_calloc((size_t)k, sizeof *num);
        if (!M || !rhs || !num) ok = 0;
    }
    /* t nonbasic at upper: value C_known = Cn/Cd; scale the system by Cd */
    int t_upper = glp_get_col_stat(c->lp, 1) == GLP_NU;
    i128 Cn = C_known.num, Cd = t_upper ? C_known.den : 1;
    if (t_upper && C_known.den <= 0) ok = 0;
    for (int a = 0; ok && a < k; a++) {
        int i = brow[a];
        for (int b = 0; b < k; b++) M[(size_t)a * k + b] = A[(size_t)bcol[b] * (m + 1) + i];
        i128 bi = i == 1 ? 1 : 0; /* conv = 1, link rows at 0 */
        rhs[a] = bi * Cd - (t_upper ? A[(size_t)1 * (m + 1) + i] * Cn : 0);
    }
    i128 det = 0;
    if (ok) ok = bareiss_solve(k, M, rhs, &det, num);
    /* x_j = num / (det * Cd) */
    i128 D = det * Cd;
    i128 *xv = NULL;
    if (ok) {
        xv = ar_calloc((size_t)ncol + 1, sizeof *xv);
        if (!xv) ok = 0;
    }
    if (ok) {
        for (int b = 0; b < k; b++) xv[bcol[b]] = num[b];
        if (t_upper) xv[1] = Cn * det;
        for (int j = 1; j <= ncol; j++)
            if (xv[j] < 0) ok = 0;
    }
    /* every row: activity <= 0 (links), = 1 (conv), exactly */
    for (int i = 1; ok && i <= m; i++) {
        i128 act = 0;
        for (int j = 1; ok && j <= ncol; j++) {
            i128 a = A[(size_t)j * (m + 1) + i];
            if (!a || !xv[j]) continue;
            if (iabs128(a) >= ((i128)1 << 30) || iabs128(xv[j]) >= ((i128)1 << 90)) ok = 0;
            else act += a * xv[j];
        }
        if (ok && (i == 1 ? act != D : act > 0)) ok = 0;
    }
    if (ok) {
        ok = frac128(xv[1], D, tval);
        for (int j = 2; ok && j <= ncol; j++) ok = frac128(xv[j], D, &lam[j - 2]);
    }
    if (ok && t_upper == 0 && want_dual) {
        /* dual: A[N,B]^T y = obj_B (stage 1: t has objective 1, trees 0) */
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++) M[(size_t)b * k + a] = A[(size_t)bcol[b] * (m + 1) + brow[a]];
        }
        for (int b = 0; b < k; b++) rhs[b] = bcol[b] == 1 ? 1 : 0;
        i128 ddet = 0;
        ok = bareiss_solve(k, M, rhs, &ddet, num);
        /* pi_l = -y_l = pnum / ddet over the nonbasic link rows */
        i128 *pnum = NULL;
        if (ok) {
            pnum = ar_calloc((size_t)c->L + 1, sizeof *pnum);
            if (!pnum) ok = 0;
        }
        /* y'_l (scaled row l) = num/ddet; pi_l = -b_l y'_l; pi_l c_l = -a_l y'_l */
        i128 psum = 0;
        for (int a = 0; ok && a < k; a++) {
            int i = brow[a];
            if (i == 1) continue;
            for (int l = 0; l < c->L; l++)
                if (c->row_of_link[l] == i) {
                    pnum[l] = -num[a]; /* -y'_l numerator */
                    if (pnum[l] < 0) ok = 0;
                    psum += pnum[l] * x->b[l];
                }
        }
        /* sum_l pi_l = 1 */
        if (ok && psum != ddet) ok = 0;
        /* exact MST of w_p = sum_l pi_l c_l = sum_l a_l (-y'_l) (numerators over ddet) */
        iwi *s = NULL;
        int *uf = NULL;
        if (ok) {
            s = ar_calloc((size_t)c->np, sizeof *s);
            uf = ar_calloc((size_t)c->n, sizeof *uf);
            if (!s || !uf) ok = 0;
        }
        for (int p = 0; ok && p < c->np; p++) {
            int len;
            const ar_dlink *rt = route_of(c->r, p, 0, &len);
            i128 w = 0;
            for (int q = 0; q < len; q++) {
                int l = AR_DLINK_LINK(rt[q]);
                if (iabs128(pnum[l]) >= ((i128)1 << 62)) ok = 0;
                else w += pnum[l] * x->a[l];
            }
            s[p].w = w;
            s[p].i = p;
        }
        if (ok) {
            qsort(s, (size_t)c->np, sizeof *s, iwi_cmp);
            for (int v = 0; v < c->n; v++) uf[v] = v;
            i128 tot = 0;
            int got = 0;
            for (int j = 0; j < c->np && got < c->n - 1; j++)
                if (uf_union(uf, c->r->pairs[s[j].i].u, c->r->pairs[s[j].i].v)) {
                    tot += s[j].w;
                    got++;
                }
            /* MST/ddet >= t = tval.num/tval.den */
            if (got != c->n - 1 || iabs128(tot) >= ((i128)1 << 62) || tot * (i128)tval->den < (i128)tval->num * ddet)
                ok = 0;
        }
        free(s);
        free(uf);
        free(pnum);
    }
    free(brow);
    free(bcol);
    free(A);
    free(M);
    free(rhs);
    free(num);
    free(xv);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* the extended (multicommodity-flow) formulation, direct platforms only      */

static ar_status solve_compact(ar_treepack_result *r, ar_err *e) {
    int n = r->nranks, m = r->npairs, A = 2 * m, root = 0;
    /* arc a = 2p (u->v) or 2p+1 (v->u) */
    /* columns: t = 1; y_a = 2 + a; f^k_a = 2 + A + (k-1)*A + a for k = 1..n-1 */
    long long ncols = 1 + (long long)A + (long long)(n - 1) * A;
    /* rows: indeg v (n-1), conservation (k, v != root) (n-1)^2, capacity (n-1)*A, load m */
    long long nrows = (n - 1) + (long long)(n - 1) * (n - 1) + (long long)(n - 1) * A + m;
    long long nnz = (long long)A + (long long)(n - 1) * 2 * A + (long long)(n - 1) * A * 2 + 3LL * m;
    if (ncols > 50000000 || nrows > 50000000 || nnz > 200000000)
        return ar_fail(e, AR_ENOMEM, "treepack: extended formulation too large (%lld columns)", ncols);
    int *ia = ar_calloc((size_t)nnz + 1, sizeof *ia), *ja = ar_calloc((size_t)nnz + 1, sizeof *ja);
    double *ar = ar_calloc((size_t)nnz + 1, sizeof *ar);
    if (!ia || !ja || !ar) {
        free(ia);
        free(ja);
        free(ar);
        return ar_fail(e, AR_ENOMEM, "treepack: out of memory (extended formulation)");
    }
    double t0 = now_s();
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, (int)nrows);
    glp_add_cols(lp, (int)ncols);
    glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
    glp_set_obj_coef(lp, 1, 1.0);
    for (long long j = 2; j <= ncols; j++) glp_set_col_bnds(lp, (int)j, GLP_LO, 0, 0);
    long long z = 0;
#define PUT(i, j, v) (z++, ia[z] = (int)(i), ja[z] = (int)(j), ar[z] = (v))
    int row = 0;
    /* in-degree rows: vertices != root, in ascending order */
    int *indeg_row = ar_calloc((size_t)n, sizeof *indeg_row);
    if (!indeg_row) {
        glp_delete_prob(lp);
        free(ia);
        free(ja);
        free(ar);
        return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    }
    for (int v = 0; v < n; v++)
        if (v != root) {
            indeg_row[v] = ++row;
            glp_set_row_bnds(lp, row, GLP_FX, 1.0, 1.0);
        }
    for (int a = 0; a < A; a++) {
        int head = a % 2 == 0 ? r->pairs[a / 2].v : r->pairs[a / 2].u;
        if (head == root) glp_set_col_bnds(lp, 2 + a, GLP_FX, 0, 0);
        else PUT(indeg_row[head], 2 + a, 1.0);
    }
    /* conservation: inflow - outflow = [v == k] for v != root */
    for (int k = 1; k < n; k++) {
        int base = row; /* row of (k, v) = base + index of v among non-root vertices */
        for (int v = 0; v < n; v++)
            if (v != root) {
                ++row;
                double b = v == k ? 1.0 : 0.0;
                glp_set_row_bnds(lp, row, GLP_FX, b, b);
            }
        for (int a = 0; a < A; a++) {
            int tail = a % 2 == 0 ? r->pairs[a / 2].u : r->pairs[a / 2].v;
            int head = a % 2 == 0 ? r->pairs[a / 2].v : r->pairs[a / 2].u;
            int col = 2 + A + (k - 1) * A + a;
            if (head != root) PUT(base + indeg_row[head], col, 1.0);
            if (tail != root) PUT(base + indeg_row[tail], col, -1.0);
        }
    }
    /* capacity f^k_a <= y_a */
    for (int k = 1; k < n; k++)
        for (int a = 0; a < A; a++) {
            ++row;
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            PUT(row, 2 + A + (k - 1) * A + a, 1.0);
            PUT(row, 2 + a, -1.0);
        }
    /* load c_e (y_uv + y_vu) <= t */
    for (int p = 0; p < m; p++) {
        ++row;
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        double c = r->link_c[r->pairs[p].link];
        PUT(row, 2 + 2 * p, c);
        PUT(row, 2 + 2 * p + 1, c);
        PUT(row, 1, -1.0);
    }
#undef PUT
    glp_load_matrix(lp, (int)z, ia, ja, ar);
    free(ia);
    free(ja);
    free(ar);
    free(indeg_row);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int ret = glp_simplex(lp, &parm);
    ar_status st = AR_OK;
    if (ret != 0 || glp_get_status(lp) != GLP_OPT)
        st = ar_fail(e, AR_EINTERNAL, "treepack: extended formulation: GLPK simplex failed (%d)", ret);
    else
        r->C_compact = glp_get_obj_val(lp);
    r->compact_rows = (int)nrows;
    r->compact_cols = (int)ncols;
    glp_delete_prob(lp);
    r->compact_s = now_s() - t0;
    return st;
}

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
static int root_candidates(const ar_treepack_result *r, const int *pairs, int all, rooted *w, int *parent,
                           int *out) {
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

static ar_status solve_roots(ar_treepack_result *r, const ar_treepack_opts *o, ar_err *e) {
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
    if (!w.adj_off || !w.adj || !w.adj_pair || !w.queue || !w.depth || !parent || !ppair || !cand || !row_of ||
        !cnt || !touched || !ind || !val || !r->dlink_load) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory (roots)");
        goto done;
    }
    double t0 = now_s();
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
                    const ar_dlink *rt = route_dir(r, ppair[x], x, &len);
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
            if (x != s->root) route_dir(r, ppair[x], x, &len);
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
            const ar_dlink *rt = route_dir(r, ppair[x], x, &len);
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
            ok = ar_tp_rationalize(sw[i], 4096, 1e-10, &sx[i]) && sx[i].num > 0 && fr_add(sum, sx[i], &sum);
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
        if (r->dlink_load[d] * r->link_c[AR_DLINK_LINK(d)] > r->C_dir) r->C_dir = r->dlink_load[d] * r->link_c[AR_DLINK_LINK(d)];
    r->root_s = now_s() - t0;
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
/* bounds                                                                    */

static ar_status bounds(const ar_platform *p, ar_treepack_result *r, ar_err *e) {
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
        const ar_dlink *ro = route_of(r, q, 0, &len);
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

/* ------------------------------------------------------------------------ */
/* the solver                                                                */

/* Strictly heavier (exactly, when exact): a goes before b. */
static int tree_before(const ar_tp_tree *a, const ar_tp_tree *b, int exact) {
    if (exact) return fr_cmp(a->wexact, b->wexact) > 0;
    return a->weight > b->weight;
}

ar_status ar_treepack_solve(const ar_platform *p, const ar_treepack_opts *opts, ar_treepack_result *r, ar_err *e) {
    memset(r, 0, sizeof *r);
    r->C_compact = NAN;
    r->lower = NAN;
    if (!p || p->nranks < 1) return ar_fail(e, AR_EINVAL, "treepack: no platform or no ranks");
    ar_treepack_opts o = opts ? *opts : ar_treepack_defaults();
    int max_iter = o.max_iter > 0 ? o.max_iter : TP_DEFAULT_MAX_ITER;
    double t0 = now_s();
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
        r->solve_s = now_s() - t0;
        return AR_OK;
    }
    st = bounds(p, r, e);
    if (st != AR_OK) {
        ar_treepack_result_free(r);
        return st;
    }
    /* master LP */
    cg c = {0};
    c.r = r;
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
    xlp x = {0};
    if (!c.row_of_link || !c.cnt || !c.touched || !c.ind || !c.val || !c.w || !c.ylink || !c.sort || !c.uf || !c.mst || !pi) {
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
        const ar_dlink *rt = route_of(r, q, 0, &len);
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
    if (cg_add(&c, r->mwst_pairs, 0) < 0) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto fail;
    }
    /* a balanced pool of first columns: 2 x (rows) Frank-Wolfe trees */
    st = warm_pool(&c, 2 * c.nrows < TP_WARM_MAX ? 2 * c.nrows : TP_WARM_MAX, TP_WARM_BETA, e);
    if (st != AR_OK) goto fail;
    glp_std_basis(c.lp);
    st = cg_run(&c, 0.0, max_iter, &r->iterations, e);
    if (st != AR_OK) goto fail;
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
        const ar_dlink *rt = route_of(r, q, 0, &len);
        double w = 0;
        for (int k = 0; k < len; k++) w += pi[AR_DLINK_LINK(rt[k])] * r->link_c[AR_DLINK_LINK(rt[k])];
        c.w[q] = w;
    }
    kruskal(n, r->pairs, c.np, c.w, c.sort, c.uf, c.mst, &r->dual_bound);
    int ncols1 = c.ncols;
    lam1 = ar_calloc((size_t)ncols1 + 1, sizeof *lam1);
    lamx1 = ar_calloc((size_t)ncols1 + 1, sizeof *lamx1);
    if (!lam1 || !lamx1) {
        st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
        goto fail;
    }
    for (int j = 0; j < ncols1; j++) lam1[j] = glp_get_col_prim(c.lp, j + 2);
    /* exact certificates of stage 1 (value, weights, dual) */
    int have_x = xlp_init(r, &x);
    ar_tp_frac C1x = {0, 0}, t2x = {0, 0};
    int exact1 = have_x && exact_basis(&c, &x, C1x, 1, lamx1, &C1x);
    if (exact1) r->C = (double)C1x.num / (double)C1x.den;
    const double *lam = lam1;
    const ar_tp_frac *lamx = exact1 ? lamx1 : NULL;
    int ncols_final = ncols1;
    if (o.secondary > 0 || (o.secondary < 0 && !r->direct)) {
        glp_set_obj_coef(c.lp, 1, 0.0);
        glp_set_col_bnds(c.lp, 1, GLP_DB, 0.0, r->C * (1 + 1e-11));
        for (int j = 0; j < c.ncols; j++) glp_set_obj_coef(c.lp, j + 2, c.tree_obj[j]);
        ar_err e2 = {{0}};
        if (cg_run(&c, 1.0, max_iter, &r->iterations, &e2) == AR_OK) {
            lam2 = ar_calloc((size_t)c.ncols + 1, sizeof *lam2);
            lamx2 = ar_calloc((size_t)c.ncols + 1, sizeof *lamx2);
            if (!lam2 || !lamx2) {
                st = ar_fail(e, AR_ENOMEM, "treepack: out of memory");
                goto fail;
            }
            for (int j = 0; j < c.ncols; j++) lam2[j] = glp_get_col_prim(c.lp, j + 2);
            int exact2 = exact1 && exact_basis(&c, &x, C1x, 0, lamx2, &t2x) && fr_cmp(t2x, C1x) <= 0;
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
            const ar_dlink *rt = route_of(r, r->trees[i].pairs[j], 0, &len);
            for (int q = 0; q < len; q++) {
                int l = AR_DLINK_LINK(rt[q]);
                r->link_load[l] += r->trees[i].weight;
                if (r->link_load_exact &&
                    !fr_add(r->link_load_exact[l], r->trees[i].wexact, &r->link_load_exact[l])) {
                    free(r->link_load_exact);
                    r->link_load_exact = NULL;
                }
            }
        }
    r->solve_s = now_s() - t0;
    cg_free(&c);
    free(pi);
    free(lam1);
    free(lam2);
    free(lamx1);
    free(lamx2);
    xlp_free(&x);
    if (o.compact && r->direct) {
        st = solve_compact(r, e);
        if (st != AR_OK) {
            ar_treepack_result_free(r);
            return st;
        }
    }
    st = solve_roots(r, &o, e);
    if (st != AR_OK) ar_treepack_result_free(r);
    return st;
fail:
    cg_free(&c);
    free(pi);
    free(lam1);
    free(lam2);
    free(lamx1);
    free(lamx2);
    xlp_free(&x);
    ar_treepack_result_free(r);
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
        int64_t g = gcd64(l, d);
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
