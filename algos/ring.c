/* ring: one-level ring all-reduce (Baidu/NCCL style; BlueConnect Eq. 5/6).
 *
 * Plan: phase "reduce-scatter (ring)" with one REDUCE_SCATTER (impl RING) over
 * ranks 0..P-1 and the whole buffer, then phase "all-gather (ring)" with the
 * matching ALL_GATHER. Two phases rather than one ALL_REDUCE so per-stage
 * breakdowns (model walk, simulator, real runs) show both halves.
 * Ranks are numbered so that a machine's GPUs are contiguous (platform.h), so
 * the rank-order ring crosses each machine boundary once: the topology-friendly
 * ring. Each RS/AG lowers to P-1 steps of count/P elements (lower.h).
 *
 * Parameters: none. Serves any P >= 1 (P = 1: single-member ops, no transfers).
 * Ownership: the schedule returned in *out belongs to the caller
 * (ar_schedule_free). Owner of this file: classic algorithms.
 */
#include "classic_common.h"

static ar_status ring_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, ar_params *params,
                           ar_schedule **out, ar_err *e) {
    (void)params;
    ar_status st = ar_classic_check("ring", p, count, elem_bytes, out, e);
    if (st != AR_OK)
        return st;
    int P = p->nranks;
    ar_schedule *s = ar_schedule_new("ring", P, count, elem_bytes);
    int *members = ar_classic_iota(0, P);
    if (!s || !members) {
        free(members);
        return ar_classic_nomem("ring", s, e);
    }
    st = ar_classic_rs_ag(s, "", members, P, AR_IMPL_RING, 1);
    if (st == AR_OK)
        st = ar_schedule_set_detail(s, "ring over ranks 0..%d in rank order", P - 1);
    free(members);
    if (st != AR_OK)
        return ar_classic_nomem("ring", s, e);
    *out = s;
    return AR_OK;
}

const ar_algo ar_algo_ring = {
    .name = "ring",
    .label = "Ring (NCCL-like)",
    .summary = "one-level ring: reduce-scatter then all-gather over all ranks, P-1 steps each",
    .params_help = "",
    .plan = ring_plan,
};
