/* Closed-form models of the topology-aware planners: BlueConnect (Eq. 9 on
 * trees / fat-trees, Eq. 10 on tori; models/blueconnect_model.c) and
 * FlexReduce (Eq. 6 on any uniform-depth tree, the Eq. 12 bound on reduce
 * calls; models/flexreduce_model.c). Units as in model.h: N in bytes, results
 * in seconds. No state; callers own every output buffer.
 */
#ifndef AR_MODEL_TOPO_H
#define AR_MODEL_TOPO_H

#include "algos/blueconnect.h"
#include "model.h"

/* --- BlueConnect ------------------------------------------------------------ */

/* How stage i of a decomposition maps onto the platform. */
typedef struct ar_bc_stage_info {
    int aligned;       /* 1: the closed form applies to this stage */
    int level;         /* the platform level the stage's groups span */
    int bottleneck;    /* level l <= `level` whose links give the narrowest share */
    long long sharers; /* concurrent flows per direction on a level-`bottleneck` link */
    double bw_Bps;     /* effective bandwidth per flow: min_l w_l / sharers_l (Eq. 9/10) */
    double lat_s;      /* alpha: route latency between neighbours in the stage's groups */
    char why[160];     /* when !aligned: why the closed form does not apply */
} ar_bc_stage_info;

/* Analyses stage i of d on p. Trees/fat-trees with levels: a stage aligns when
 * its groups lie within one level j (its factor divides that level's fan-out:
 * the level itself or a split of it), and then bw = min_{l<=j} w_l / F_l, F_l
 * = GPUs under one level-l link (= prod_{k<l} p_k of Eq. 9 when the stages are
 * the levels). Tori: a stage aligns when it is exactly one level (GPUs of a
 * machine, or one dimension), bw per Eq. 10. Everything else: aligned = 0. */
void ar_bc_stage_analyze(const ar_platform *p, const ar_bc_decomp *d, int i, ar_bc_stage_info *out);

/* Eq. 9 / Eq. 10 for decomposition d (stages in d->order; stage s works on
 * N / prod of the factors run before it), per-stage breakdown. Fallback
 * decompositions give Eq. 6 (one-level ring). AR_EUNSUPPORTED when a stage
 * does not align (the generic walk covers those). */
ar_status ar_model_bc_decomp(const ar_platform *p, double N, const ar_bc_decomp *d, ar_model_result *out, ar_err *e);

/* ar_model_closed entry for "blueconnect" (params decomp=, order=, impl=). */
ar_status ar_closed_blueconnect(const ar_platform *p, double N, ar_params *params, ar_model_result *out, ar_err *e);

/* --- FlexReduce --------------------------------------------------------------- */

/* T_FR, Eq. 6, on a uniform-depth tree, one stage per level and direction.
 * w_x = narrowest link between node x and its children; alpha of a level-l
 * term = the largest route latency between leaves under different children
 * of the level-l ancestor. */
ar_status ar_model_flexreduce(const ar_platform *p, double N, ar_model_result *out, ar_err *e);

/* ar_model_closed entry for "flexreduce" (reads impl=, chunks= like the planner). */
ar_status ar_closed_flexreduce(const ar_platform *p, double N, ar_params *params, ar_model_result *out, ar_err *e);

/* Eq. 12 bound on the reduce calls of every learner at every level:
 * bound[l * nranks + r]. Level l >= 1: sum over the children m of r's level-l
 * ancestor of ceil(portion_r(l) / min_{u under m} portion_u(l-1)), plus 1.
 * Level 0: 1 (every learner holds the whole range; Eq. 12 needs L >= 1).
 * bound must hold height * nranks ints. */
ar_status ar_fr_eq12_bound(const ar_platform *p, int *bound, ar_err *e);

#endif
