/* nvls: NCCL's NVLS (NVLink SHARP) all-reduce through the node's reducing
 * NVSwitch; the plan is in algos/switch_common.c. Also reduce-scatter and
 * all-gather on one node. Ownership: *out belongs to the caller. */
#include "switch_common.h"

static ar_status nvls_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                           ar_schedule **out, ar_err *e) {
    return ar_switch_plan(AR_SW_NVLS, p, AR_COLL_ALLREDUCE, count, elem_bytes, v, out, e);
}

static ar_status nvls_plan_coll(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                                const ar_param_val *v, ar_schedule **out, ar_err *e) {
    return ar_switch_plan(AR_SW_NVLS, p, coll, count, elem_bytes, v, out, e);
}

const ar_algo ar_algo_nvls = {
    .name = "nvls",
    .label = "NVLS (NVLink SHARP)",
    .summary = "NVSwitch reduction: one node AR by the switch; nodes: RS by the switch, ring per rail, AG by multicast",
    .params = ar_nvls_params,
    .plan = nvls_plan,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = nvls_plan_coll,
};
