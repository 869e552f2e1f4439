/* binomial: binomial-tree reduce to rank 0, then binomial-tree broadcast from
 * rank 0, each over the whole buffer (the "tree all-reduce" of the blogs:
 * 2 ceil(lg P) steps of N bytes; good when latency dominates).
 *
 * Plan: phase "reduce (binomial)" with one REDUCE (impl BINOMIAL, root member 0)
 * over ranks 0..P-1; phase "broadcast (binomial)" with one BROADCAST (impl
 * BINOMIAL, root member 0).
 *
 * Parameters: none. Serves any P >= 1.
 * Ownership: *out belongs to the caller. Owner of this file: classic algorithms.
 */
#include "classic_common.h"

static ar_status binomial_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                               ar_schedule **out, ar_err *e) {
    (void)v;
    ar_status st = ar_classic_check("binomial", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int P = p->nranks;
    ar_op *op = NULL;
    ar_schedule *s = ar_schedule_new("binomial", P, count, elem_bytes);
    int *members = ar_classic_iota(0, P);
    if (!s || !members) goto nomem;
    if (ar_sched_phase(s, "reduce (binomial)") < 0) goto nomem;
    op = ar_sched_op(s, AR_OP_REDUCE, AR_IMPL_BINOMIAL, members, P, 0, count);
    if (!op) goto nomem;
    op->root = 0;
    op->tag = 0;
    if (ar_sched_phase(s, "broadcast (binomial)") < 0) goto nomem;
    op = ar_sched_op(s, AR_OP_BROADCAST, AR_IMPL_BINOMIAL, members, P, 0, count);
    if (!op) goto nomem;
    op->root = 0;
    op->tag = 1;
    if (ar_schedule_set_detail(s, "root=0 steps=2x%d", ar_ceil_log2(P)) != AR_OK) goto nomem;
    free(members);
    *out = s;
    return AR_OK;
nomem:
    free(members);
    return ar_classic_nomem("binomial", s, e);
}

/* Closed form: 2 ceil(lg P) (a + N/W). */
static ar_status binomial_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out,
                                 ar_err *e) {
    (void)v;
    (void)e;
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p), steps = ar_lg_steps(P);
    double t = P > 1 ? steps * (a + N / W) : 0.0;
    ar_model_add_stage(out, "reduce (binomial)", "binomial", P, N, W, a, t);
    ar_model_add_stage(out, "broadcast (binomial)", "binomial", P, N, W, a, t);
    ar_classic_note(out, "reduce + broadcast, each ceil(lg %d) = %d steps of (a + N/minW); whole buffer per step", P,
                    (int)steps);
    return AR_OK;
}

const ar_algo ar_algo_binomial = {
    .name = "binomial",
    .label = "Binomial tree (reduce + broadcast)",
    .summary = "binomial-tree reduce to rank 0 then binomial-tree broadcast, whole buffer",
    .plan = binomial_plan,
    .closed = binomial_closed,
};
