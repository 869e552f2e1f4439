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

static ar_status ring_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                           ar_schedule **out, ar_err *e) {
    (void)v;
    ar_status st = ar_classic_check("ring", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int P = p->nranks;
    ar_schedule *s = ar_schedule_new("ring", P, count, elem_bytes);
    int *members = ar_classic_iota(0, P);
    if (!s || !members) {
        free(members);
        return ar_classic_nomem("ring", s, e);
    }
    st = ar_classic_rs_ag(s, "", members, P, AR_IMPL_RING, 1);
    if (st == AR_OK) st = ar_schedule_set_detail(s, "ring over ranks 0..%d in rank order", P - 1);
    free(members);
    if (st != AR_OK) return ar_classic_nomem("ring", s, e);
    *out = s;
    return AR_OK;
}

/* Closed form, Eq. 6. */
static ar_status ring_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    (void)v;
    (void)e;
    if (ar_classic_ring_costs(p, N, 1, out)) return AR_OK; /* compute costs: c = 1 of the pipelined form */
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p), t = ar_eq1_tr(P, N, a, W);
    ar_model_add_stage(out, "reduce-scatter (ring)", "ring", P, N, W, a, t);
    ar_model_add_stage(out, "all-gather (ring)", "ring", P, N, W, a, t);
    ar_classic_note(out, "Eq. 6: 2 Tr(P,N,a,minW); a = max route latency, minW = narrowest link on a route; "
                         "every step gated by its slowest pair, no link shared by two ring flows per direction");
    return AR_OK;
}

const ar_algo ar_algo_ring = {
    .name = "ring",
    .label = "Ring (NCCL-like)",
    .summary = "one-level ring: reduce-scatter then all-gather over all ranks, P-1 steps each",
    .plan = ring_plan,
    .closed = ring_closed,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
};
