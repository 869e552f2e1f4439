/* FlexReduce's planner state (FlexReduce, Lee et al., Fig. 3), shared by the
 * planner (algos/flexreduce.c), its closed form (algos/flexreduce_model.c),
 * its statistics (algos/flexreduce_stats.c) and the tests.
 *
 * Positions are exact: every portion is 1/prod(degrees on the learner's path)
 * and every range end a sum of such portions, so all of them are integer
 * multiples of 1/M with M = d_root * lcm over the root's children of their M
 * (M_leaf = 1). The plan works in these units; ar_fr_elem() maps a position u
 * to the element floor(u * count / M) (exact, 128-bit), the same map for every
 * boundary, so element ranges partition the buffer exactly as the unit ranges
 * partition [0, M) - for any count, even count < P (empty ranges then).
 *
 * Levels: l = 0 is the lowest branch level (machine switches), l = L-1 the
 * root (L = platform height); the tree must have every GPU at depth L.
 *
 * Ownership: ar_fr_plan_build() returns a plan the caller frees with
 * ar_fr_plan_free(); everything reachable from it is owned by it.
 */
#ifndef AR_ALGOS_FLEXREDUCE_H
#define AR_ALGOS_FLEXREDUCE_H

#include <stdint.h>

#include "core/params.h"
#include "core/platform/platform.h"
#include "core/status.h"

struct ar_algo_stats;
struct ar_algo_calls;

/* One reduce call of Fig. 3 (b) line 10: subrange [lo, hi) of the learner
 * `dest`'s next range, reduced over the learners that currently hold it. */
typedef struct ar_fr_entry {
    int level;       /* 0 = lowest branch level */
    int node;        /* the branch node (platform node index) */
    int dest;        /* rank whose next range this is */
    int via;         /* the holder under dest's own child of `node` (= dest when dest holds it) */
    uint64_t lo, hi; /* units of 1/M */
    int nholders;    /* >= 2 (entries with a single holder that is dest are no-ops and not stored) */
    int first;       /* holders are arena[first .. first+nholders), ranks ascending */
} ar_fr_entry;

typedef struct ar_fr_plan {
    int L; /* levels */
    int nranks;
    uint64_t M;        /* common denominator of all positions */
    uint64_t *lo, *hi; /* range of rank r after level l: [lo, hi)[l * nranks + r], units */
    uint64_t *portion; /* portion of rank r at level l: [l * nranks + r], units */
    int nentries;
    ar_fr_entry *entries; /* by level, then node, then assignment (sorted) order */
    int *level_first;     /* entries of level l: [level_first[l], level_first[l+1]) (L+1 entries) */
    int *arena;           /* holders */
    char desc[160];       /* e.g. "M=12, 2 levels, 13 reduce calls" */
} ar_fr_plan;

/* Refuse plans holding more group members than this (O(P^2) on a flat level). */
#define AR_FR_MAX_MEMBERS (1 << 24)

/* Runs FlexReduce_plan (Fig. 3) on the platform's tree. AR_EUNSUPPORTED (with
 * a message) when p is not a tree, its GPUs are not all at the same depth, or
 * M would exceed 2^62; AR_ELIMIT past AR_FR_MAX_MEMBERS. */
ar_status ar_fr_plan_build(const ar_platform *p, ar_fr_plan **out, ar_err *e);
void ar_fr_plan_free(ar_fr_plan *fp);

/* floor(u * count / M): the element where position u falls. */
uint64_t ar_fr_elem(const ar_fr_plan *fp, uint64_t u, uint64_t count);

/* Reduce calls per learner per level, calls[l * nranks + r]: the entries
 * whose destination is r (what Eq. 12 bounds; the broadcast calls of the
 * all-gather are the same entries in reverse, so the counts are equal).
 * calls must hold L * nranks ints. */
void ar_fr_calls(const ar_fr_plan *fp, int *calls);

/* --- tree helpers (algos/flexreduce_tree.c) --------------------------------- */

/* AR_OK if p is a tree with every GPU at the same depth >= 1. */
ar_status ar_fr_check_tree(const ar_platform *p, const char *who, ar_err *e);

/* FlexReduce level of switch node v (0 = parents of the GPUs). */
int ar_fr_level_of(const ar_platform *p, int v);

/* Ancestor of node v at level l (v itself when it is at level l). */
int ar_fr_ancestor(const ar_platform *p, int v, int l);

/* --- closed form and statistics (algos/flexreduce_model.c, flexreduce_stats.c) */

struct ar_model_result;

/* T_FR, Eq. 6, on a uniform-depth tree, one stage per level and direction.
 * w_x = narrowest link between node x and its children; alpha of a level-l
 * term = the largest route latency between leaves under different children
 * of the level-l ancestor. */
ar_status ar_model_flexreduce(const ar_platform *p, double N, struct ar_model_result *out, ar_err *e);

/* Eq. 12 bound on the reduce calls of every learner at every level:
 * bound[l * nranks + r]. Level l >= 1: sum over the children m of r's level-l
 * ancestor of ceil(portion_r(l) / min_{u under m} portion_u(l-1)), plus 1.
 * Level 0: 1 (every learner holds the whole range; Eq. 12 needs L >= 1).
 * bound must hold height * nranks ints. */
ar_status ar_fr_eq12_bound(const ar_platform *p, int *bound, ar_err *e);

/* The descriptor's parameters by index, closed form, statistics, calls table. */
enum { AR_FR_P_IMPL, AR_FR_P_CHUNKS };
ar_status ar_fr_closed(const ar_platform *p, double N, const ar_param_val *v, struct ar_model_result *out, ar_err *e);
ar_status ar_fr_stats(const ar_platform *p, const ar_param_val *v, struct ar_algo_stats *out, ar_err *e);
ar_status ar_fr_calls_table(const ar_platform *p, const ar_param_val *v, struct ar_algo_calls *out, ar_err *e);

#endif
