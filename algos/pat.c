/* pat: PAT, NCCL's "Parallel Aggregated Trees" for reduce-scatter and
 * all-gather (NCCL 2.23+; used by NCCL with one rank per node), as a
 * Bruck-style logarithmic exchange with aggregation: ceil(lg n) steps instead of
 * the ring's n-1, each step sending every block gathered so far in one message.
 *
 * All-gather, step k = 0..K-1 (K = ceil(lg n), d = 2^k, m = min(d, n-d)): rank r
 * SENDs (copy) blocks [r, r+m) mod n to rank r-d mod n; after step k rank r holds
 * blocks [r, r + min(2d, n)), so at the end every block. Reduce-scatter is its
 * transpose: steps k = K-1..0, rank r-d SENDs (reduce) its partial sums of blocks
 * [r, r+m) to rank r, so at the end rank r holds the sum of block r. A wrapped
 * block range is two SEND ops. Blocks are the collective's (ar_coll_block).
 *
 * Closed form: sum over steps of (alpha + m_k S / (n B)) = K alpha + (n-1) S/(n B)
 * (alpha = max route latency, B = narrowest route bandwidth, one message per
 * rank per step).
 * Parameters: none. Serves reduce-scatter and all-gather only.
 * Ownership: *out belongs to the caller.
 */
#include "classic_common.h"

/* SEND of blocks [b, b+m) mod n from rank src to dst (1 or 2 ops when the range wraps). */
static ar_status send_blocks(ar_schedule *s, int n, int src, int dst, int b, int m, int reduce) {
    while (m > 0) {
        int run = b + m <= n ? m : n - b; /* blocks up to the end of the buffer */
        uint64_t o0, l0, o1, l1;
        ar_coll_block(n, s->count, b, &o0, &l0);
        ar_coll_block(n, s->count, b + run - 1, &o1, &l1);
        if (o1 + l1 > o0) {
            int pair[2] = {src, dst};
            ar_op *op = ar_sched_op(s, AR_OP_SEND, AR_IMPL_DIRECT, pair, 2, o0, o1 + l1 - o0);
            if (!op) return AR_ENOMEM;
            op->reduce = reduce;
        }
        m -= run;
        b = (b + run) % n;
    }
    return AR_OK;
}

static ar_status pat_plan_coll(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                               const ar_param_val *v, ar_schedule **out, ar_err *e) {
    (void)v;
    ar_status st = ar_classic_check("pat", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int n = p->nranks, K = ar_ceil_log2(n), rs = coll == AR_COLL_REDUCESCATTER;
    ar_schedule *s = ar_schedule_new("pat", n, count, elem_bytes);
    if (!s || ar_schedule_set_detail(s, "%d steps (ceil lg %d), Bruck-style aggregated sends", K, n) != AR_OK)
        return ar_classic_nomem("pat", s, e);
    s->coll = coll;
    for (int i = 0; i < K; i++) {
        int k = rs ? K - 1 - i : i, d = 1 << k, m = d < n - d ? d : n - d;
        if (ar_sched_phase(s, "%s step %d (distance %d, %d block%s)", rs ? "reduce-scatter" : "all-gather", i, d, m,
                           m > 1 ? "s" : "") < 0)
            return ar_classic_nomem("pat", s, e);
        for (int r = 0; r < n; r++) {
            int lo = (r - d + n) % n; /* AG: r -> r-d carries [r, r+m); RS: r-d -> r carries [r, r+m) */
            if (send_blocks(s, n, rs ? lo : r, rs ? r : lo, r, m, rs) != AR_OK) return ar_classic_nomem("pat", s, e);
        }
    }
    *out = s;
    return AR_OK;
}

static ar_status pat_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                          ar_schedule **out, ar_err *e) {
    (void)p, (void)count, (void)elem_bytes, (void)v, (void)out;
    return ar_fail(e, AR_EUNSUPPORTED, "pat: serves reducescatter and allgather only (use --coll)");
}

/* Closed form: the reduce-scatter steps then the all-gather steps (ar_algo_closed_coll keeps one half). */
static ar_status pat_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    (void)v;
    (void)e;
    int n = p->nranks, K = ar_ceil_log2(n);
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < K; i++) {
            int k = h == 0 ? K - 1 - i : i, d = 1 << k, m = d < n - d ? d : n - d;
            char label[64];
            snprintf(label, sizeof label, "%s step %d", h == 0 ? "reduce-scatter" : "all-gather", i);
            double bytes = (double)m * N / n;
            ar_model_add_stage(out, label, "pat", n, bytes, W, a, a + bytes / W);
        }
    ar_classic_note(out, "PAT: ceil(lg n) steps, step k sends min(2^k, n-2^k) blocks of S/n: "
                         "K alpha + (n-1) S/(n minW)");
    return AR_OK;
}

const ar_algo ar_algo_pat = {
    .name = "pat",
    .label = "PAT (NCCL)",
    .summary = "NCCL's PAT for reduce-scatter/all-gather: ceil(lg n) Bruck-style steps with aggregated sends",
    .plan = pat_plan,
    .closed = pat_closed,
    .colls = AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = pat_plan_coll,
};
