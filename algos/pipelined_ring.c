/* pipelined-ring: ring all-reduce with every step split into sub-chunks (the
 * software pipeline of the PFN blog, allreduce-pfn-blog.txt).
 *
 * Plan: as ring.c (REDUCE_SCATTER then ALL_GATHER, impl RING, ranks 0..P-1,
 * whole buffer), with op->chunks = c on both ops: each of the 2(P-1) ring steps
 * becomes c consecutive rounds carrying 1/c of the step's block (lower.h). In an
 * alpha-beta model without reduction/copy cost this only adds latency
 * (2(P-1) c alpha); its benefit, overlapping transfer with reduction, shows when the
 * platform has a reduction rate (compute.reduce or --gamma): the closed form is then
 * ar_eq_ring_pipe (models/eqs.c, dataflow with overlap), which sim --sync dataflow and the
 * walk reproduce on a flat star (tests/sim/sim_pipeline.c).
 *
 * Parameters: chunks=N (1..4096, default 4). Sub-chunks of an empty or short
 * block may carry nothing (the lowering skips empty transfers).
 * Ownership: *out belongs to the caller. Owner of this file: classic algorithms.
 */
#include "classic_common.h"

enum { PRING_CHUNKS };
static const ar_param_def pring_params[] = {
    [PRING_CHUNKS] =
        {.key = "chunks", .type = AR_PARAM_INT, .min = 1, .max = 4096, .def = 4, .help = "sub-chunks per ring step"},
    {0},
};

static ar_status pring_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                            ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("pipelined-ring", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    long long chunks = v[PRING_CHUNKS].i;
    int P = p->nranks;
    ar_schedule *s = ar_schedule_new("pipelined-ring", P, count, elem_bytes);
    int *members = ar_classic_iota(0, P);
    if (!s || !members) {
        free(members);
        return ar_classic_nomem("pipelined-ring", s, e);
    }
    st = ar_classic_rs_ag(s, "", members, P, AR_IMPL_RING, (int)chunks);
    if (st == AR_OK) st = ar_schedule_set_detail(s, "chunks=%lld", chunks);
    free(members);
    if (st != AR_OK) return ar_classic_nomem("pipelined-ring", s, e);
    *out = s;
    return AR_OK;
}

/* Closed form: 2 (P-1) (c a + N/(P W)). */
static ar_status pring_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    (void)e;
    long long c = v[PRING_CHUNKS].i;
    if (ar_classic_ring_costs(p, N, c, out)) return AR_OK; /* compute costs: overlap (models/eqs.c) */
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    double t = P > 1 ? (P - 1) * ((double)c * a + N / P / W) : 0.0;
    ar_model_add_stage(out, "reduce-scatter (ring, sub-chunks)", "ring", P, N, W, a, t);
    ar_model_add_stage(out, "all-gather (ring, sub-chunks)", "ring", P, N, W, a, t);
    ar_classic_note(out,
                    "2(P-1)(c a + N/(P minW)), c=%lld: alpha per sub-chunk; no reduction cost (gamma=0), "
                    "so pipelining only adds latency here (give the platform a reduction rate for the overlap form)",
                    c);
    return AR_OK;
}

const ar_algo ar_algo_pipelined_ring = {
    .name = "pipelined-ring",
    .label = "Pipelined ring (PFN)",
    .summary = "ring reduce-scatter + all-gather with every step split into sub-chunks",
    .params = pring_params,
    .plan = pring_plan,
    .closed = pring_closed,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
};
