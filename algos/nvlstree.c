/* nvlstree: NCCL's NVLS_TREE: NVSwitch reduce-scatter and multicast all-gather
 * inside the node, NCCL's double binary tree per rail across nodes; the plan is
 * in algos/switch_common.c. All-reduce only. Ownership: *out belongs to the caller. */
#include "switch_common.h"

static ar_status nvlstree_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                               ar_schedule **out, ar_err *e) {
    return ar_switch_plan(AR_SW_NVLSTREE, p, AR_COLL_ALLREDUCE, count, elem_bytes, v, out, e);
}

const ar_algo ar_algo_nvlstree = {
    .name = "nvlstree",
    .label = "NVLS tree",
    .summary = "NVSwitch reduce-scatter and multicast all-gather in the node, double binary trees per rail across",
    .params = ar_nvlstree_params,
    .plan = nvlstree_plan,
};
