/* Spanning-tree packing (Wang, Li, Liberty, Smola, "Optimal message scheduling
 * for aggregation", SysML 2018): the LP over the spanning-tree polytope, the
 * best single tree, the Lemma 2.1 bounds, and the choice of roots, as a
 * reusable API (the planner algos/treepack.c, `arlab trees` and the tests use it).
 *
 * The problem. GPUs are the vertices; a spanning tree over them carries a
 * share of the data, reduced up to a root and broadcast back down. Each tree
 * edge {u,v} (a "pair") is realised along the platform's route between u and
 * v. For every platform link l, c_l = bw_ref / capacity(l) is the time to send
 * the whole gradient over l, in units of "one lane at bw_ref" (bw_ref = the
 * largest per-lane bandwidth of the platform; with one link type c_l =
 * 1/lanes, the paper's normalisation). With tree weights lambda_T (sum 1),
 *     P_l = sum_T lambda_T * (number of pairs of T whose route crosses l)
 * and the solver computes
 *     C(G) = min over lambda of max_l P_l c_l            (paper Eq. 2).
 * On a platform whose links all join two GPUs ("direct": NVLink meshes) the
 * pairs are the links themselves and P_l is the paper's P_e. Elsewhere
 * (switches that cannot aggregate, e.g. the P2.16xlarge PCIe tree) the pairs
 * are all GPU pairs and their routes cross switches: the LP then runs over
 * the set of all spanning trees of GPUs with routed edges (the paper's
 * Section 3 "schedules"), still exactly, by the same column generation.
 *
 * Method (exact): column generation on the path formulation
 *     min t  s.t.  sum_T lambda_T = 1,  c_l sum_T A_lT lambda_T <= t,  lambda >= 0
 * whose pricing problem is a minimum spanning tree with pair weights
 * w_p = sum_{l on route(p)} pi_l c_l (pi = link-row duals): no tree with
 * negative reduced cost exists exactly when MST(w) >= the convexity dual,
 * which is LP optimality. The final dual pi also proves the lower bound
 * C(G) >= MST_{pi c} (weak duality). Where every c_l is a small rational the
 * final simplex basis is re-solved in exact integer arithmetic (fraction-free
 * Gauss-Jordan on __int128) and both certificates are checked exactly
 * (`exact` = 1, C = C_num/C_den, tree weights wexact); on overflow or with
 * more than 400 rows the result stays floating point (exact = 0).
 * Speed: the first columns are the distinct trees of a Frank-Wolfe run on a
 * smoothed max-load objective (2 x rows of them), and each pricing round adds,
 * besides the minimum spanning tree, up to 16 trees priced under perturbed
 * weights whose true reduced cost is negative. On 256-GPU graphs this takes
 * the master from hundreds of rounds to one or a few (see
 * experiments/bench_treepack.sh); optimality is still decided by the exact
 * MST pricing step alone. Behind switches (all n^2/2 GPU pairs candidates) a
 * pricing step sums each pair's route through a trie of the routes (shared
 * prefixes once, in route order) and runs Prim's algorithm on the pairs in
 * place; both give the plain path's weights and trees bit for bit
 * (opts.reference selects the plain path; tests/unit/test_treepack_fast.c).
 * opts.budget_s bounds the solver's wall time, reporting the bounds it has
 * (budget_stop, ar_tp_budget_note).
 * A second, independent exact formulation (the multicommodity-flow extended
 * formulation of the spanning-tree polytope: arborescence in-degrees plus one
 * unit of flow from a root to every other vertex under arc capacities y) can
 * be solved as a check on direct platforms (opts.compact); it has O(n m) rows
 * and columns (tens of seconds at 64 GPUs), which is why it is not the method.
 *
 * Ties and determinism: pairs are numbered by (u, v); MSTs take pairs in
 * order of (weight, index); GLPK runs deterministically; equal inputs give
 * identical results.
 *
 * Among optimal packings the solver then takes one of least total traffic
 * sum_l c_l P_l (a second column-generation stage with t capped at C(G); by
 * default on switched platforms only); on P2.16xlarge this is what fixes the
 * link-class ratio 15:14:8 (see cmd_trees.c).
 *
 * Roots. The reduce phase sends every tree edge's share towards the root, the
 * broadcast back; links are full duplex, so what a phase costs is the load per
 * directed link, Q_a. For each tree a root distribution rho_{T,v} (sum over v
 * = lambda_T) is chosen by a second LP minimising C_dir = max_a c_a Q_a and,
 * among those, the mean tree height (pipeline fill); candidate roots are all
 * ranks, or on large instances the two ends and the middle of each tree's
 * longest path. C(G)/2 <= C_dir <= C(G) (e.g. a chain rooted at both ends
 * with half the weight each loads every link equally both ways: C(G)/2, as
 * on P3.16xlarge and P3.8xlarge). A "stream" is one (tree, root, weight) of
 * that solution; the schedule runs the streams.
 *
 * Ownership: ar_treepack_solve fills a caller-provided result whose arrays it
 * allocates; ar_treepack_result_free releases them (and is safe on a zeroed
 * or partly filled result). Nothing global; GLPK output is off per problem.
 */
#ifndef AR_ALGOS_TREEPACK_H
#define AR_ALGOS_TREEPACK_H

#include <stdint.h>

#include "core/params.h"
#include "core/platform/platform.h"
#include "core/status.h"
#include "models/model.h"

#define AR_TP_MAX_PAIRS (1 << 21) /* candidate pairs refused beyond, with a message */
#define AR_TP_UNITS_TOL 0.005     /* the planner's default rounding tolerance on C_dir */
#define AR_TP_UNITS_MAX 256       /* ... and its largest number of units */

/* A fraction num/den; den == 0 means "not known exactly". */
typedef struct ar_tp_frac {
    int64_t num, den;
} ar_tp_frac;

typedef struct ar_tp_pair {
    int u, v;    /* ranks, u < v */
    int link;    /* the link joining them on a direct platform, else -1 */
    double cost; /* sum of c_l over the route u->v */
} ar_tp_pair;

typedef struct ar_tp_tree {
    double weight;     /* lambda_T: fraction of the data (sum over trees = 1) */
    ar_tp_frac wexact; /* the same, exactly, when the result is exact */
    int *pairs;        /* nranks-1 pair indices, ascending (owned) */
    double cost;       /* C(T) of this tree alone: max_l c_l * (pairs of T through l) */
} ar_tp_tree;

typedef struct ar_tp_stream {
    int tree;          /* index into trees */
    int root;          /* rank */
    double weight;     /* fraction of the data reduced to `root` along the tree (sum = 1) */
    ar_tp_frac wexact; /* exact weight, den 0 if not exact */
    int height;        /* the tree's height when rooted at root (pipeline depth D) */
    int *parent;       /* parent rank of every rank, -1 at the root (nranks entries, owned) */
    int nup;
    ar_dlink *up; /* the directed links the reduce phase crosses, one entry per
                          crossing (the broadcast crosses their reverses) (owned) */
} ar_tp_stream;

typedef struct ar_treepack_opts {
    int secondary;   /* among optimal packings take one of least total traffic: 1 always,
                          0 never, -1 (default) on switched platforms only (on direct ones
                          it rarely matters and costs a second column generation) */
    int root_lp;     /* 1: roots by the root LP (default); 0: every tree rooted at its
                          lowest rank (for comparison) */
    int compact;     /* 1: also solve the extended (flow) formulation, as a check, on
                          direct platforms: fills C_compact and compact_s */
    int max_iter;    /* column-generation iteration limit, 0 = default (100000) */
    double budget_s; /* wall budget of the solver in seconds, 0 = none (the default). Once it has
                          passed (counted from the call), the warm start takes no more trees and
                          column generation stops after its current LP solve, keeping that
                          feasible packing: see budget_stop. With a budget the result depends on
                          the machine's speed; without one it is deterministic */
    int reference;   /* 1: price with the plain route-by-route pair weights and O(n^2)-per-step
                          Prim scan instead of the route trie and the shrinking scan (same
                          trees, bit for bit; slower: for tests and benchmarks) */
} ar_treepack_opts;

/* Default options: secondary = -1, root_lp = 1, compact = 0, max_iter = 0, budget_s = 0, reference = 0. */
ar_treepack_opts ar_treepack_defaults(void);

typedef struct ar_treepack_result {
    int nranks, nlinks;
    int direct;               /* 1: every link joins two GPUs; pairs = links (the paper's graph) */
    double bw_ref_Bps;        /* unit: c_l = bw_ref / capacity(l) */
    double *link_c;           /* c_l, nlinks entries (owned) */
    ar_tp_frac *link_c_exact; /* c_l exactly where it is a small rational (owned) */

    int npairs;
    ar_tp_pair *pairs; /* candidate tree edges (owned) */
    int *route_off;    /* pair i: route u->v is route[route_off[2i] .. route_off[2i+1]),
                              v->u is route[route_off[2i+1] .. route_off[2i+2]) (owned) */
    ar_dlink *route;   /* directed links (owned) */

    /* the LP */
    double C;  /* C(G), normalised units (seconds: C * bytes / bw_ref) */
    int exact; /* 1: C = C_num/C_den proven by exact primal and dual certificates */
    int64_t C_num, C_den;
    double dual_bound; /* MST weight under the final dual: a proven lower bound on C(G) */
    int ntrees;
    ar_tp_tree *trees;           /* the packing: trees with weight > 0, by decreasing weight (owned) */
    double *link_load;           /* P_l per link (owned) */
    ar_tp_frac *link_load_exact; /* exact P_l when exact (owned, NULL otherwise) */

    /* bounds (paper Lemma 2.1: max_c >= mwst >= C >= lower on direct platforms) */
    double max_c;    /* max over links that carry pairs of c_l */
    double mwst;     /* direct platforms: C(T) of Boruvka's minimum spanning tree under
                              c_e, a minimum-bottleneck tree = the best single tree (Lemma 2.1);
                              switched: the best of Boruvka's tree on route lengths and the
                              packing's trees, routed cost (no optimality claim) */
    int *mwst_pairs; /* its nranks-1 pairs (owned) */
    double lower;    /* (n-1) / sum_e 1/c_e on direct platforms; NAN otherwise */
    double ring;     /* rank-order ring, per phase: (n-1)/n * max_l c_l (ring hops via l) */

    /* roots */
    int nstreams;
    ar_tp_stream *streams; /* (owned) */
    double *dlink_load;    /* Q_a per directed link in the reduce phase (2 nlinks, owned) */
    double C_dir;          /* max_a c_a Q_a: per-phase cost of the schedule */
    int max_height;        /* largest stream height */

    /* the budget (opts.budget_s) */
    int budget_stop;               /* 0: solved to optimality; 1: the LP stopped by the budget: C is the
                              packing's max load, an upper bound on C(G), and dual_bound a lower
                              bound; 2: the least-traffic stage stopped: C(G) optimal, the
                              packing's traffic (sum_l c_l P_l) not proven least */
    double budget_stop_s;          /* when it stopped, seconds after the call */
    double traffic, traffic_lower; /* budget_stop 2: the packing's traffic and a lower bound on the least */

    /* solver statistics (not deterministic: times) */
    int columns, iterations, root_columns;
    double solve_s, root_s;
    double C_compact; /* the extended formulation's optimum (NAN if not solved) */
    double compact_s;
    int compact_rows, compact_cols;
} ar_treepack_result;

/* Solves everything above for platform p (opts NULL = defaults). On failure r
 * is left freed (zeroed). AR_EUNSUPPORTED for too many candidate pairs. */
ar_status ar_treepack_solve(const ar_platform *p, const ar_treepack_opts *opts, ar_treepack_result *r, ar_err *e);
void ar_treepack_result_free(ar_treepack_result *r);

/* C(T) of the tree given by n-1 pair indices under r's routes and costs:
 * max_l c_l x (number of its pairs routed through l); INFINITY if the pairs do
 * not form a spanning tree. */
double ar_treepack_tree_cost(const ar_treepack_result *r, const int *pairs, int npairs);

/* Equal-size units: with K units of 1/K of the data, stream s gets per[s]
 * (nstreams entries, caller-owned) units: floor or ceil of w_s K, summing to
 * K, the remainder handed out greedily to keep the worst directed link low.
 * Returns the resulting C_dir (max_a c_a Q_a with Q from per/K). */
double ar_treepack_units(const ar_treepack_result *r, int K, int *per);

/* Chooses K: the common denominator of exact stream weights when it is at
 * most kmax (no rounding), else the first K in 64, 128, ..., kmax whose
 * rounded C_dir is within (1 + tol) of the LP's (or the best seen). Fills
 * per[] and *cdir_q (the rounded C_dir); returns K (0 on allocation failure). */
int ar_treepack_pick_units(const ar_treepack_result *r, double tol, int kmax, int *per, double *cdir_q);

/* Rational approximation: the simplest p/q with q <= maxden and
 * |x - p/q| <= tol * max(1, |x|); returns 0 (and den 0) if none. */
int ar_tp_rationalize(double x, int64_t maxden, double tol, ar_tp_frac *out);

/* One line on a budget stop ("" when budget_stop is 0), e.g. "LP stopped by
 * budget after 2.01 s: C(G) <= 5.12, >= 4.98 (gap 2.8 %)"; returns buf. */
char *ar_tp_budget_note(const ar_treepack_result *r, char *buf, size_t n);

/* Formats C as "7/24 (0.291667)" or "0.291667" into buf; returns buf. */
char *ar_tp_fmt(double x, ar_tp_frac f, char *buf, size_t n);

/* The planner's parameter table (the descriptor's) and its indices, for
 * `arlab trees`, which predicts the planner's schedule. */
enum { AR_TP_P_CHUNKS, AR_TP_P_UNITS, AR_TP_P_ROOTS, AR_TP_P_BUDGET };
extern const ar_param_def ar_tp_params[];
/* The budget parameter (budget=2s) in seconds into *budget_s (0 when not given);
 * AR_EINVAL with one line when it is not a positive time. */
ar_status ar_tp_budget_param(const ar_param_val *v, double *budget_s, ar_err *e);

/* --- closed form of the schedule's time (algos/treepack_model.c) -------------
 *
 * The schedule: streams s = (spanning tree, root, weight w_s, sum 1); phase 1
 * reduces every stream's share up its tree, phase 2 broadcasts it down; both
 * pipelined in c chunks, all streams concurrently, round by round as the
 * lowering (core/lower.c) emits them: a stream of height D_s has D_s + c - 1
 * rounds per phase; in reduce round t the member at depth d sends chunk
 * j = t - (D_s - d) to its parent, in broadcast round t the member at depth
 * d - 1 sends chunk j = t - (d - 1) to its child at depth d (0 <= j < c).
 * A round moves, over every directed link a, B_a(t) = sum of w_s N / c over
 * the streams' active tree edges whose route crosses a. With equal-size ops
 * (treepack units=K) or single-hop routes, sharing a link costs exactly its
 * total bytes, so
 *
 *   T = sum_{phase in {reduce, broadcast}} sum_{t=0}^{Dmax+c-2}
 *         max over active transfers x of [ lat(route x) + max_{a in route x} B_a(t) / cap_a ]
 *
 * (Dmax = max_s D_s; on one link type lat is the link latency alpha.) In
 * steady state (Dmax-1 <= t <= c-1, every tree edge busy) B_a(t) = Q_a N / c,
 * where Q_a is the stream data fraction crossing a, so each such round costs
 * alpha + C_dir N / (c bw_ref) with C_dir = max_a Q_a c_a, and
 *
 *   2 C_dir N / bw_ref  <=  T  <=  2 (Dmax + c - 1) (alpha + C_dir N / (c bw_ref)),
 *
 * the upper bound being exact when the critical link is busy in every round.
 * For a direct (NVLink) platform with full-duplex links C_dir >= C(G)/2.
 * Nothing allocated outlives a call; inputs are borrowed. */

struct ar_model_result;

typedef struct ar_tp_model_stream {
    const int *parent; /* parent rank of every rank, -1 at the root (nranks entries) */
    double weight;     /* fraction of the data (the streams' weights sum to 1) */
} ar_tp_model_stream;

/* The round-by-round closed form above for `bytes` bytes and `chunks` chunks.
 * out gets two stages (reduce, broadcast) and a note. */
ar_status ar_model_treepack(const ar_platform *p, const ar_tp_model_stream *streams, int nstreams, double bytes,
                            int chunks, struct ar_model_result *out, ar_err *e);

/* The bounds above: upper = 2 (Dmax + c - 1)(alpha + cdir_s / c), lower = 2 cdir_s,
 * where cdir_s = C_dir * bytes / bw_ref is the critical link's busy time per phase. */
double ar_model_treepack_upper(int dmax, int chunks, double alpha_s, double cdir_s);
double ar_model_treepack_lower(double cdir_s);

/* --- post-processing for `arlab trees` (algos/treepack_report.c) ------------- */

/* When the platform's links form a tree: gpus_cut[l] = GPUs on the smaller
 * side of link l (its class); returns 1, or 0 when they do not form a tree. */
int ar_treepack_link_classes(const ar_platform *p, int *gpus_cut);

#define AR_TP_MAX_CLASSES 64
typedef struct ar_tp_classes {
    int n;                                                  /* classes, by increasing GPU count */
    int gpus[AR_TP_MAX_CLASSES];                            /* the class: GPUs on the smaller side */
    int links[AR_TP_MAX_CLASSES];                           /* links in it */
    double mean[AR_TP_MAX_CLASSES], max[AR_TP_MAX_CLASSES]; /* load P_l */
    double util[AR_TP_MAX_CLASSES];                         /* mean of P_l c_l / C */
    double rel[AR_TP_MAX_CLASSES];                          /* mean / the smallest positive mean */
    int have_ratio;                                         /* the means are small integer multiples of one another */
    long long ratio[AR_TP_MAX_CLASSES];                     /* ... these (e.g. 15 : 14 : 8) */
} ar_tp_classes;

/* Mean and max load per link class (gpus_cut from ar_treepack_link_classes). */
void ar_treepack_class_loads(const ar_treepack_result *r, const int *gpus_cut, ar_tp_classes *out);

typedef struct ar_tp_prediction {
    ar_model_result model;   /* the round-by-round closed form (time_s, two stages) */
    double C_s;              /* C(G) x bytes / bw_ref */
    double lower_s, upper_s; /* the bounds above */
} ar_tp_prediction;

/* Predicted time of the planner's schedule for `bytes` bytes: K units given
 * out as per[] (K = 0: the streams' own weights), `chunks` chunks, cdir = the
 * C_dir after rounding to units (for the bounds). */
ar_status ar_treepack_predict(const ar_platform *p, const ar_treepack_result *r, int K, const int *per, int chunks,
                              double bytes, double cdir, ar_tp_prediction *out, ar_err *e);

#endif
