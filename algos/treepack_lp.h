/* Internals of the spanning-tree-packing solver (treepack.h), shared by its
 * files: treepack_lp.c (the driver ar_treepack_solve, setup, bookkeeping),
 * treepack_cg.c (column generation with minimum-spanning-tree pricing,
 * Boruvka's tree and the Lemma 2.1 bounds), treepack_exact.c (exact
 * fractions and the exact re-solve of the final basis), treepack_compact.c
 * (the extended flow formulation, a check) and treepack_roots.c (the root LP
 * and the equal-size units). Not for use outside algos/treepack*.c.
 *
 * GLPK: every problem is created and deleted in these files; terminal output
 * is turned off per call (msg_lev = GLP_MSG_OFF), never through the global
 * glp_term_out. Ownership: ar_tp_cg and ar_tp_xlp own their arrays (freed by
 * ar_tp_cg_free / ar_tp_xlp_free).
 */
#ifndef AR_ALGOS_TREEPACK_LP_H
#define AR_ALGOS_TREEPACK_LP_H

#include <glpk.h>
#include <stdint.h>

#include "core/util.h"
#include "treepack.h"

#define TP_DEFAULT_MAX_ITER 100000
#define TP_MAXDEN 1000000 /* denominators tried when rationalising values */
#define TP_RAT_TOL 1e-9
#define TP_WEIGHT_EPS 1e-9       /* floating tree / stream weights below this are dropped (GLPK's tolerance) */
#define TP_ROOT_LP_NNZ (1 << 18) /* above this many entries the root LP uses 3 candidate roots per tree */
#define TP_EXTRA_TREES 16        /* extra columns per pricing round */
#define TP_NOISE 0.3             /* their relative weight perturbation */
#define TP_WARM_MAX 4000         /* Frank-Wolfe warm-start trees, at most */
#define TP_WARM_BETA 60.0        /* its softmax sharpness (10 needs ~15x longer on a 256-GPU DGX cluster) */

/* --- exact fractions (treepack_exact.c): int64 storage (|num|, den < 2^62),
 * __int128 arithmetic (products of two 62-bit values and the Bareiss minors
 * need 128 bits, so this gcd stays beside ar_gcd_i64). */
typedef __int128 ar_tp_i128;
#define FR_LIM ((int64_t)1 << 62)

/* n/d reduced into *o; returns 0 when d == 0 or it does not fit. */
int ar_tp_frac128(ar_tp_i128 n, ar_tp_i128 d, ar_tp_frac *o);
int ar_tp_frac_ok(ar_tp_frac a);
/* a + b into *o; 0 when it does not fit. */
int ar_tp_frac_add(ar_tp_frac a, ar_tp_frac b, ar_tp_frac *o);
/* -1, 0, 1 as a <, ==, > b. */
int ar_tp_frac_cmp(ar_tp_frac a, ar_tp_frac b);

/* --- routes of candidate pairs (treepack_lp.c) */
const ar_dlink *ar_tp_route_of(const ar_treepack_result *r, int pair, int reverse, int *len);
/* Route from rank x to rank y where {x,y} is pair p. */
const ar_dlink *ar_tp_route_dir(const ar_treepack_result *r, int p, int x, int *len);

/* --- spanning trees and column generation (treepack_cg.c) */
typedef struct ar_tp_wi {
    double w;
    int i;
} ar_tp_wi;

int ar_tp_wi_cmp(const void *x, const void *y);
int ar_tp_int_cmp(const void *x, const void *y);
/* Kruskal: the minimum spanning tree of the pairs under weights w, taking
 * pairs in order of (w, index). scratch: npairs ar_tp_wi; uf: n ints. Writes
 * n-1 pair indices (ascending) to out and returns how many it found. */
int ar_tp_kruskal(int n, const ar_tp_pair *pairs, int np, const double *w, ar_tp_wi *scratch, int *uf, int *out,
                  double *total);

/* The restricted master LP and its columns (trees). */
typedef struct ar_tp_cg {
    const ar_treepack_result *r;
    glp_prob *lp;
    int n, np, L;
    int *row_of_link; /* GLPK row of link l, 0 if no pair crosses it */
    int nrows;
    /* columns (trees): col j (GLPK) = 1 + k for tree k */
    int ncols, capcols;
    int *tree_pairs; /* ncols * (n-1) */
    uint64_t *hash;
    double *tree_obj; /* sum of pair costs (second-stage objective) */
    /* scratch */
    int *cnt, *touched; /* per link */
    int *ind;
    double *val, *w, *ylink;
    ar_tp_wi *sort;
    int *uf, *mst;
    int *pidx, *best; /* complete graph: pair index of (u, v) (n x n) and Prim's scratch (built on first use) */
    /* fast pricing (treepack_cg.c, built on first use on switched platforms):
     * the route trie: every source rank's routes u->v (v > u) merged on common
     * prefixes; node i extends node tn_parent[i] (-1: a source) by link
     * tn_link[i], parents before children, so one pass tn_val[i] =
     * tn_val[parent] + y[link] gives every pair's route sum, added in route
     * order (bit for bit the route-by-route sum); pair p ends at pair_node[p]. */
    int ntn, *tn_parent, *tn_link, *pair_node;
    double *tn_val;
    /* Prim over the remaining vertices: best key per vertex (weight, pair), the
     * sorted list of those vertices, and the perturbed weights and tie keys of
     * an extra tree */
    double *pbw, *pw;
    int *pbp, *prem;
    uint32_t *pk;
    int *poff;     /* complete graphs: pair {a, b}, a < b, is poff[a] + b */
    int reference; /* 1: the plain route-by-route weights and Prim scan (opts.reference) */
} ar_tp_cg;

void ar_tp_cg_free(ar_tp_cg *c);
/* Adds the tree (n-1 sorted pairs) as a column; objf = its objective
 * coefficient factor (0 in stage 1, 1 in stage 2). Returns 1 added, 0
 * duplicate, -1 out of memory. */
int ar_tp_cg_add(ar_tp_cg *c, const int *pairs, double objf);
/* Pair weights w_p = sum over p's route (u->v) of per-link weights ylink, added
 * in route order (through the route trie when built, else route by route). */
void ar_tp_pair_weights(ar_tp_cg *c, const double *ylink, double *w);
/* Frank-Wolfe warm start: up to `iters` distinct trees of a smoothed max-load
 * run, fewer once ar_now_s() passes deadline (0: none). */
ar_status ar_tp_warm_pool(ar_tp_cg *c, int iters, double beta, double deadline, ar_err *e);
/* Column generation to optimality (stage 1: s = 0, minimise t; stage 2:
 * s = 1, minimise traffic); *iters counts the master solves. deadline (0:
 * none): when an LP solve ends after it and the pricing finds an improving
 * tree, stop there: *stopped = 1 and *lower = the Lagrangian lower bound on
 * the stage's optimum at those duals (stage 2: MST - t_max sum_l mu_l). */
ar_status ar_tp_cg_run(ar_tp_cg *c, double s, int max_iter, double deadline, int *iters, int *stopped, double *lower,
                       ar_err *e);
/* Boruvka's best single tree and the Lemma 2.1 bounds into r. */
ar_status ar_tp_bounds(const ar_platform *p, ar_treepack_result *r, ar_err *e);

/* --- exact re-solve of the final basis (treepack_exact.c) */
/* The exact master LP: link row l is scaled by b_l, the denominator of
 * c_l = a_l / b_l, so that its entries are small integers. */
typedef struct ar_tp_xlp {
    int64_t *a, *b; /* per link */
} ar_tp_xlp;

int ar_tp_xlp_init(const ar_treepack_result *r, ar_tp_xlp *x);
void ar_tp_xlp_free(ar_tp_xlp *x);
/* The exact solution of the current basis of c->lp.
 * C_known: when t is nonbasic at its upper bound, its exact value (stage 2).
 * Outputs: lam[k] exact weights of every column (0 for nonbasic), tval exact t,
 * and, when want_dual, the dual proven by the MST check against tval. Returns 1
 * when the primal (and the dual, if asked) certificate holds. */
int ar_tp_exact_basis(ar_tp_cg *c, const ar_tp_xlp *x, ar_tp_frac C_known, int want_dual, ar_tp_frac *lam,
                      ar_tp_frac *tval);

/* --- the extended formulation, a check (treepack_compact.c) */
ar_status ar_tp_solve_compact(ar_treepack_result *r, ar_err *e);

/* --- roots (treepack_roots.c) */
ar_status ar_tp_solve_roots(ar_treepack_result *r, const ar_treepack_opts *o, ar_err *e);

#endif
