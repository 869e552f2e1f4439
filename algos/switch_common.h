/* The planner shared by nvls, nvlstree and collnet (algos/switch_common.c, whose
 * file comment gives the plans): schedules with ops of impl switch (core/lower.h)
 * through switches that declare reduce_bw. Nothing here keeps state; the planned
 * schedule (*out) belongs to the caller. */
#ifndef AR_SWITCH_COMMON_H
#define AR_SWITCH_COMMON_H

#include "core/algo.h"

typedef enum ar_switch_variant { AR_SW_NVLS, AR_SW_NVLSTREE, AR_SW_COLLNET } ar_switch_variant;

/* The parameters of all three (chunks, slices), ending with {NULL}. */
extern const ar_param_def ar_switch_params[];
/* nvls's: chunks, slices and proto (none|auto: NCCL's NVLS latency once), ending with {NULL}. */
extern const ar_param_def ar_nvls_params[];
/* nvlstree's: chunks, slices, proto (none|simple|fill|auto: NCCL's Simple on the trees across nodes;
 * auto: fill and NCCL's NVLS latency once) and ramp, ending with {NULL}; ar_switch_plan reads v[2]
 * for nvls and nvlstree only. */
extern const ar_param_def ar_nvlstree_params[];

/* Plans variant for collective coll (nvls serves reduce-scatter and all-gather on one
 * node; the others all-reduce only); AR_EUNSUPPORTED in one line where the platform
 * lacks the reducing switch the variant needs. */
ar_status ar_switch_plan(ar_switch_variant var, const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                         const ar_param_val *v, ar_schedule **out, ar_err *e);

#endif
