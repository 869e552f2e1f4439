/* ps: parameter server, the baseline of Wang et al. (Blink / "optimal message
 * scheduling") and of the PFN blog's "simple algorithm".
 *
 * servers=k (1..P, default P). The servers are ranks 0..k-1; server j owns an
 * even share of the buffer (count/k elements, plus one for j < count%k); the
 * other ranks own nothing. Plan:
 *   phase "push (reduce-scatter direct)": one REDUCE_SCATTER (impl DIRECT) over
 *     ranks 0..P-1 with uneven counts: every rank sends server j its copy of
 *     j's share, which the server adds up (one step);
 *   phase "pull (all-gather direct)": the matching ALL_GATHER (impl DIRECT):
 *     every server sends its reduced share to every rank (one step).
 * k = P is the sharded PS "that uses all-to-all communication"; k = 1 is a
 * single central server on rank 0 (the master gathers (P-1) N and sends it
 * back). Servers are not spread over machines: with k below the GPUs of one
 * machine they all sit on machine 0 (keep it simple; the closed form states
 * the bottleneck it assumes).
 *
 * Ownership: *out belongs to the caller. Owner of this file: classic algorithms.
 */
#include "classic_common.h"

enum { PS_SERVERS };
static const ar_param_def ps_params[] = {
    [PS_SERVERS] = {.key = "servers",
                    .type = AR_PARAM_INT,
                    .min = 1,
                    .max_is_ranks = 1,
                    .def_text = "P",
                    .help = "number of servers, ranks 0..K-1 (P = sharded all-to-all)"},
    {0},
};

static ar_status ps_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                         ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("ps", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int P = p->nranks;
    long long k = v[PS_SERVERS].i;
    ar_schedule *s = ar_schedule_new("ps", P, count, elem_bytes);
    int *members = ar_classic_iota(0, P);
    uint64_t *counts = ar_calloc((size_t)P, sizeof *counts);
    if (!s || !members || !counts) goto nomem;
    for (int j = 0; j < k; j++) counts[j] = count / (uint64_t)k + ((uint64_t)j < count % (uint64_t)k ? 1 : 0);
    if (ar_schedule_set_detail(s, "servers=%lld (ranks 0..%lld), %s", k, k - 1,
                               k == P   ? "sharded all-to-all"
                               : k == 1 ? "central server"
                                        : "sharded") != AR_OK)
        goto nomem;
    static const ar_op_kind kinds[2] = {AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER};
    static const char *const labels[2] = {"push (reduce-scatter direct)", "pull (all-gather direct)"};
    for (int ph = 0; ph < 2; ph++) {
        if (ar_sched_phase(s, "%s", labels[ph]) < 0) goto nomem;
        ar_op *op = ar_sched_op(s, kinds[ph], AR_IMPL_DIRECT, members, P, 0, count);
        if (!op || ar_op_set_counts(op, counts) != AR_OK) goto nomem;
        op->tag = ph;
    }
    free(members);
    free(counts);
    *out = s;
    return AR_OK;
nomem:
    free(members);
    free(counts);
    return ar_classic_nomem("ps", s, e);
}

/* Closed form. k servers (ranks 0..k-1), each owning N/k. Push: every server
 * receives N/k from each of the other P-1 ranks over its own link, i.e.
 * (P-1) N/k bytes; pull: the same out. Time per phase a + (P-1) N / (k minW):
 *   k = P: 2(a + (P-1)/P N/minW);  k = 1: 2(a + (P-1) N/minW).
 * (A non-server sends only N in all, so for k <= P the servers' links are the
 * bottleneck.) */
static ar_status ps_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    (void)e;
    int P = p->nranks;
    long long k = v[PS_SERVERS].i;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    double t = P > 1 ? a + (double)(P - 1) * N / ((double)k * W) : 0.0;
    ar_model_add_stage(out, "push (reduce-scatter direct)", "direct", P, N, W, a, t);
    ar_model_add_stage(out, "pull (all-gather direct)", "direct", P, N, W, a, t);
    ar_classic_note(out,
                    "k=%lld servers: each server's own link carries (P-1)N/k per direction at minW, shared "
                    "equally; assumes it is the bottleneck (star/tree with uplinks >= the servers' shares)",
                    k);
    return AR_OK;
}

const ar_algo ar_algo_ps = {
    .name = "ps",
    .label = "Parameter server (Wang et al.)",
    .summary = "servers 0..k-1 each own 1/k of the buffer: everyone pushes to and pulls from them directly",
    .params = ps_params,
    .plan = ps_plan,
    .closed = ps_closed,
};
