/* FlexReduce's planner state (FlexReduce, Lee et al., Fig. 3), shared by the
 * planner (algos/flexreduce.c), `arlab plan` (cli/cmd_plan.c) and the tests;
 * the closed-form models (models/flexreduce_model.c) use only the static
 * inline tree helpers at the bottom, so models/ never links algos/.
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

#include "core/platform.h"
#include "core/status.h"

/* One reduce call of Fig. 3 (b) line 10: subrange [lo, hi) of the learner
 * `dest`'s next range, reduced over the learners that currently hold it. */
typedef struct ar_fr_entry {
    int level;      /* 0 = lowest branch level */
    int node;       /* the branch node (platform node index) */
    int dest;       /* rank whose next range this is */
    int via;        /* the holder under dest's own child of `node` (= dest when dest holds it) */
    uint64_t lo, hi; /* units of 1/M */
    int nholders;   /* >= 2 (entries with a single holder that is dest are no-ops and not stored) */
    int first;      /* holders are arena[first .. first+nholders), ranks ascending */
} ar_fr_entry;

typedef struct ar_fr_plan {
    int L;             /* levels */
    int nranks;
    uint64_t M;        /* common denominator of all positions */
    uint64_t *lo, *hi; /* range of rank r after level l: [lo, hi)[l * nranks + r], units */
    uint64_t *portion; /* portion of rank r at level l: [l * nranks + r], units */
    int nentries;
    ar_fr_entry *entries;  /* by level, then node, then assignment (sorted) order */
    int *level_first;      /* entries of level l: [level_first[l], level_first[l+1]) (L+1 entries) */
    int *arena;            /* holders */
    char desc[160];        /* e.g. "M=12, 2 levels, 13 reduce calls" */
} ar_fr_plan;

/* Refuse plans holding more group members than this (O(P^2) on a flat level). */
#define AR_FR_MAX_MEMBERS (1 << 24)

/* Runs FlexReduce_plan (Fig. 3) on the platform's tree. AR_EUNSUPPORTED (with
 * a message) when p is not a tree, its GPUs are not all at the same depth, or
 * M would exceed 2^62; AR_ENOMEM past AR_FR_MAX_MEMBERS. */
ar_status ar_fr_plan_build(const ar_platform *p, ar_fr_plan **out, ar_err *e);
void ar_fr_plan_free(ar_fr_plan *fp);

/* floor(u * count / M): the element where position u falls. */
uint64_t ar_fr_elem(const ar_fr_plan *fp, uint64_t u, uint64_t count);

/* Reduce calls per learner per level, calls[l * nranks + r]: the entries
 * whose destination is r (what Eq. 12 bounds; the broadcast calls of the
 * all-gather are the same entries in reverse, so the counts are equal).
 * calls must hold L * nranks ints. */
void ar_fr_calls(const ar_fr_plan *fp, int *calls);

/* --- tree helpers (header-only: the models use them too) ----------------- */

/* AR_OK if p is a tree with every GPU at the same depth >= 1. */
static inline ar_status ar_fr_check_tree(const ar_platform *p, const char *who, ar_err *e) {
    const char *pname = p->name ? p->name : "?";
    if ((p->kind != AR_PLAT_TREE && p->kind != AR_PLAT_FAT_TREE) || p->root < 0 || p->height < 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: platform '%s' is not a tree of switches (FlexReduce plans on trees)", who,
                       pname);
    if (!p->uniform_depth) {
        int r1 = 0, d0 = p->nodes[p->rank_node[0]].depth;
        while (r1 + 1 < p->nranks && p->nodes[p->rank_node[r1]].depth == d0)
            r1++;
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: platform '%s' has GPUs at different depths (rank 0 at depth %d, rank %d at depth %d); "
                       "FlexReduce's levels need every learner at the same depth",
                       who, pname, d0, r1, p->nodes[p->rank_node[r1]].depth);
    }
    return AR_OK;
}

/* FlexReduce level of switch node v (0 = parents of the GPUs). */
static inline int ar_fr_level_of(const ar_platform *p, int v) { return p->height - 1 - p->nodes[v].depth; }

/* Ancestor of node v at level l (v itself when it is at level l). */
static inline int ar_fr_ancestor(const ar_platform *p, int v, int l) {
    while (v >= 0 && (p->nodes[v].kind == AR_NODE_GPU || ar_fr_level_of(p, v) < l))
        v = p->nodes[v].parent;
    return v;
}

#endif
