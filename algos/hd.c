/* halving-doubling: recursive halving reduce-scatter + recursive doubling
 * all-gather (Rabenseifner; Thakur et al. 2005; BlueConnect Eq. 2).
 *
 * P = 2^q: phase "reduce-scatter (hd)" with one REDUCE_SCATTER (impl HD) over
 * ranks 0..P-1, then phase "all-gather (hd)" with the matching ALL_GATHER.
 *
 * Otherwise (what MPICH/Rabenseifner do for a non-power-of-two count): let
 * q = the largest power of two <= P and r = P - q. Then
 *   phase "fold":   every rank i in q..P-1 SENDs (reduce=1) its whole buffer
 *                   to rank i-q (the r sends run concurrently);
 *   phases "reduce-scatter (hd)" and "all-gather (hd)" among ranks 0..q-1;
 *   phase "unfold": rank i-q SENDs (reduce=0, copy) the whole result back to
 *                   rank i, for i in q..P-1.
 * Ranks q..P-1 are idle during the HD phases. The schedule's detail string
 * says which variant was planned ("pow2" or "fold q=.. r=..") and the order.
 *
 * Pairing order (parameter `order`):
 *   mpich (default)  MPICH's rab_rdb (MPIR_Allreduce_intra_reduce_scatter_allgather):
 *                    the halving's first step pairs ranks at distance 1 and
 *                    exchanges half the buffer, then 2, 4, ...; the doubling
 *                    mirrors it (its last, largest step at distance 1). Rank i
 *                    ends the halving with block bitrev(i), as in MPICH. Planned
 *                    as the HD ops (core/lower.c: first step at member distance
 *                    n/2) over the members in bit-reversed order: member
 *                    positions j and j ^ n/2 are ranks bitrev(j) and bitrev(j) ^ 1.
 *                    On a hierarchy whose machines hold consecutive ranks, the
 *                    largest exchanges stay inside a machine.
 *   far              ranks at distance q/2 first (the members in rank order):
 *                    the largest exchange crosses the top of a hierarchy.
 * On one switch both cost the same (the closed form, Eq. 2, cannot tell them apart).
 * Reduce-scatter and all-gather (--coll) always use the far order: rank i must
 * end with block i, which MPICH's order would leave on rank bitrev(i).
 *
 * Serves any P >= 1.
 * Ownership: *out belongs to the caller. Owner of this file: classic algorithms.
 */
#include "classic_common.h"

static ar_status hd_sends(ar_schedule *s, int q, int P, int reduce) {
    for (int i = q; i < P; i++) {
        int pair[2] = {reduce ? i : i - q, reduce ? i - q : i};
        ar_op *op = ar_sched_op(s, AR_OP_SEND, AR_IMPL_DIRECT, pair, 2, 0, s->count);
        if (!op) return AR_ENOMEM;
        op->reduce = reduce;
        op->tag = reduce ? 0 : 3;
    }
    return AR_OK;
}

enum { HD_ORDER_MPICH, HD_ORDER_FAR };

static const ar_param_def hd_params[] = {
    {.key = "order",
     .type = AR_PARAM_ENUM,
     .choices = "mpich|far",
     .def = HD_ORDER_MPICH,
     .help = "pairing order: mpich = distance 1 first (MPICH's rab_rdb), far = distance P/2 first"},
    {NULL}};

/* The bit reversal of j over lg bits. */
static int bitrev(int j, int lg) {
    int r = 0;
    for (int b = 0; b < lg; b++) r |= ((j >> b) & 1) << (lg - 1 - b);
    return r;
}

static ar_status hd_plan_order(const ar_platform *p, uint64_t count, size_t elem_bytes, int order, ar_schedule **out,
                               ar_err *e) {
    ar_status st = ar_classic_check("halving-doubling", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int P = p->nranks;
    int q = ar_classic_pow2_floor(P), r = P - q, lg = ar_ceil_log2(q);
    ar_schedule *s = ar_schedule_new("halving-doubling", P, count, elem_bytes);
    int *members = ar_classic_iota(0, q);
    if (!s || !members) goto nomem;
    if (order == HD_ORDER_MPICH)
        for (int j = 0; j < q; j++) members[j] = bitrev(j, lg);
    const char *on = order == HD_ORDER_MPICH ? "order=mpich (distance 1 first)" : "order=far (distance q/2 first)";
    if (r == 0) {
        if (ar_schedule_set_detail(s, "pow2 P=%d lg=%d %s", P, lg, on) != AR_OK) goto nomem;
    } else if (ar_schedule_set_detail(s, "fold q=%d r=%d: ranks %d..%d fold into 0..%d, hd among 0..%d, unfold; %s", q,
                                      r, q, P - 1, r - 1, q - 1, on) != AR_OK) {
        goto nomem;
    }
    if (r > 0 && (ar_sched_phase(s, "fold (ranks %d..%d add into %d..%d)", q, P - 1, 0, r - 1) < 0 ||
                  hd_sends(s, q, P, 1) != AR_OK))
        goto nomem;
    if (ar_classic_rs_ag(s, "", members, q, AR_IMPL_HD, 1) != AR_OK) goto nomem;
    if (r > 0 && (ar_sched_phase(s, "unfold (ranks %d..%d copy to %d..%d)", 0, r - 1, q, P - 1) < 0 ||
                  hd_sends(s, q, P, 0) != AR_OK))
        goto nomem;
    free(members);
    *out = s;
    return AR_OK;
nomem:
    free(members);
    return ar_classic_nomem("halving-doubling", s, e);
}

static ar_status hd_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                         ar_schedule **out, ar_err *e) {
    return hd_plan_order(p, count, elem_bytes, (int)v[0].i, out, e);
}

/* Reduce-scatter / all-gather: the HD half alone, on a power of two only (the
 * fold/unfold variant has no rank-i-owns-block-i state in between). */
static ar_status hd_plan_coll(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes,
                              const ar_param_val *v, ar_schedule **out, ar_err *e) {
    if (p && p->nranks > 0 && !ar_is_pow2(p->nranks))
        return ar_fail(e, AR_EUNSUPPORTED, "halving-doubling: %s needs a power-of-two rank count (have %d)",
                       ar_coll_name(coll), p->nranks);
    /* reduce-scatter/all-gather: rank i must end with (start from) block i, so the members stay in rank order
     * (MPICH's order would leave rank i with block bitrev(i)); `order` applies to all-reduce */
    (void)v;
    ar_status st = hd_plan_order(p, count, elem_bytes, HD_ORDER_FAR, out, e);
    if (st == AR_OK)
        ar_schedule_keep_phases(*out, coll == AR_COLL_REDUCESCATTER ? AR_OP_REDUCE_SCATTER : AR_OP_ALL_GATHER);
    return st;
}

/* Closed form: 2 Tc(P) or fold + 2 Tc(q) + unfold. */
static ar_status hd_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    (void)v;
    (void)e;
    int P = p->nranks, q = ar_classic_pow2_floor(P);
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    if (q < P) ar_model_add_stage(out, "fold (send+reduce)", "send", 2, N, W, a, a + N / W);
    double t = ar_eq2_tc(q, N, a, W);
    ar_model_add_stage(out, "reduce-scatter (hd)", "hd", q, N, W, a, t);
    ar_model_add_stage(out, "all-gather (hd)", "hd", q, N, W, a, t);
    if (q < P) ar_model_add_stage(out, "unfold (send)", "send", 2, N, W, a, a + N / W);
    if (q == P) ar_classic_note(out, "2 Tc(P,N,a,minW) (Eq. 2, P=2^%d); ", (int)ar_lg_steps(P));
    else
        ar_classic_note(out, "P=%d not 2^k: fold %d ranks (a+N/minW), 2 Tc(%d,N,a,minW), unfold (a+N/minW); ", P, P - q,
                        q);
    ar_classic_note(out, "a = max route latency for every exchange, no link shared by two flows per direction "
                         "(exact on one switch; on trees the upper exchanges share uplinks)");
    return AR_OK;
}

const ar_algo ar_algo_hd = {
    .name = "halving-doubling",
    .label = "Recursive halving/doubling (Rabenseifner)",
    .summary = "recursive-halving reduce-scatter + recursive-doubling all-gather; "
               "non-power-of-two P folds the extra ranks in first",
    .params = hd_params,
    .plan = hd_plan,
    .closed = hd_closed,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = hd_plan_coll,
};
