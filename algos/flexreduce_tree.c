/* FlexReduce's tree helpers (flexreduce.h), used by the planner, the closed
 * form and the statistics. No state. */
#include "flexreduce.h"

/* AR_OK if p is a tree with every GPU at the same depth >= 1. */
ar_status ar_fr_check_tree(const ar_platform *p, const char *who, ar_err *e) {
    const char *pname = p->name ? p->name : "?";
    if (p->kind == AR_PLAT_GRAPH && p->nlinks == p->nnodes - 1)
        /* connected (the loader checks it) with one link fewer than nodes: a tree drawn as a graph */
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: platform '%s' is a tree written as \"kind\": \"graph\"; describe it with \"kind\": "
                       "\"tree\" (platforms/README.md) so that FlexReduce can plan on its levels",
                       who, pname);
    if ((p->kind != AR_PLAT_TREE && p->kind != AR_PLAT_FAT_TREE) || p->root < 0 || p->height < 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: platform '%s' is not a tree of switches (FlexReduce plans on trees)",
                       who, pname);
    if (!p->uniform_depth) {
        int r1 = 0, d0 = p->nodes[p->rank_node[0]].depth;
        while (r1 + 1 < p->nranks && p->nodes[p->rank_node[r1]].depth == d0) r1++;
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: platform '%s' has GPUs at different depths (rank 0 at depth %d, rank %d at depth %d); "
                       "FlexReduce's levels need every learner at the same depth",
                       who, pname, d0, r1, p->nodes[p->rank_node[r1]].depth);
    }
    return AR_OK;
}

/* FlexReduce level of switch node v (0 = parents of the GPUs). */
int ar_fr_level_of(const ar_platform *p, int v) { return p->height - 1 - p->nodes[v].depth; }

/* Ancestor of node v at level l (v itself when it is at level l). */
int ar_fr_ancestor(const ar_platform *p, int v, int l) {
    while (v >= 0 && (p->nodes[v].kind == AR_NODE_GPU || ar_fr_level_of(p, v) < l)) v = p->nodes[v].parent;
    return v;
}
