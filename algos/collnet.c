/* collnet: NCCL's CollNet idea: reduce-scatter inside the node, the all-reduce
 * of block j by rail switch j's in-network reduction (InfiniBand SHARP; a rail
 * fabric with sharp=RATE), all-gather inside the node; the plan is in
 * algos/switch_common.c. All-reduce only. Ownership: *out belongs to the caller. */
#include "switch_common.h"

static ar_status collnet_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                              ar_schedule **out, ar_err *e) {
    return ar_switch_plan(AR_SW_COLLNET, p, AR_COLL_ALLREDUCE, count, elem_bytes, v, out, e);
}

const ar_algo ar_algo_collnet = {
    .name = "collnet",
    .label = "CollNet (network SHARP)",
    .summary = "reduce-scatter in the node, all-reduce of block j by rail switch j (sharp=), all-gather in the node",
    .params = ar_switch_params,
    .plan = collnet_plan,
};
