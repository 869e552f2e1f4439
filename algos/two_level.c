/* two-level: reduce to a master GPU per machine, all-reduce among the masters,
 * broadcast back (Horovod/Gloo hierarchical all-reduce; Jia et al. 2018;
 * BlueConnect Fig. 2 and Eq. 7).
 *
 * Machines come from the platform (machine_first_rank: machine m owns ranks
 * [first[m], first[m+1])); the master of a machine is its first rank. Plan:
 *   phase "reduce to masters (ring)": per machine of >= 2 GPUs, one REDUCE
 *     (impl RING, root member 0) over the machine's ranks: a ring
 *     reduce-scatter then a binomial gather to the master, Tr + Tc (Eq. 4);
 *   phase "all-reduce among M masters (hd|ring)": one ALL_REDUCE over the
 *     masters, impl HD (recursive halving + doubling) or RING (Eq. 7's
 *     Tr/c); skipped when there is a single machine;
 *   phase "broadcast from masters (ring)": per machine of >= 2 GPUs, one
 *     BROADCAST (impl RING, root member 0): binomial scatter + ring all-gather.
 * Machines of one GPU take no part in the local phases (and when every machine
 * has one GPU those phases are not emitted). Machines of different sizes are
 * fine: each runs its own local ops concurrently in the same phase.
 *
 * Parameters: impl=ring|hd|auto (default auto: hd when the number of machines
 * is a power of two, else ring); impl=hd on a non-power-of-two machine count
 * is refused (AR_EUNSUPPORTED).
 * Ownership: *out belongs to the caller. Owner of this file: classic algorithms.
 */
#include <math.h>
#include <string.h>

#include "classic_common.h"

enum { TL_IMPL };
enum { TL_AUTO, TL_RING, TL_HD }; /* the words of impl= */
static const ar_param_def tl_params[] = {
    [TL_IMPL] = {.key = "impl",
                 .type = AR_PARAM_ENUM,
                 .choices = "auto|ring|hd",
                 .def = TL_AUTO,
                 .help = "all-reduce among the masters (auto: hd if the number of machines is 2^k, else ring)"},
    {0},
};

static ar_status two_level_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                                ar_schedule **out, ar_err *e) {
    const char *const A = "two-level";
    ar_status st = ar_classic_check(A, p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    int P = p->nranks, M = p->nmachines;
    const int *first = p->machine_first_rank;
    if (M < 1 || !first || first[0] != 0 || first[M] != P)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: platform '%s' has no machine structure (%d machines)", A,
                       p->name ? p->name : "?", M);
    int maxg = 0;
    for (int m = 0; m < M; m++) {
        int g = first[m + 1] - first[m];
        if (g < 1)
            return ar_fail(e, AR_EUNSUPPORTED, "%s: machine %d of platform '%s' has no GPU", A, m,
                           p->name ? p->name : "?");
        if (g > maxg) maxg = g;
    }

    ar_impl impl = v[TL_IMPL].i == TL_RING ? AR_IMPL_RING
                   : v[TL_IMPL].i == TL_HD ? AR_IMPL_HD
                   : ar_is_pow2(M)         ? AR_IMPL_HD
                                           : AR_IMPL_RING;
    if (impl == AR_IMPL_HD && !ar_is_pow2(M))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: impl=hd needs a power-of-two number of machines (platform '%s' has %d); use impl=ring", A,
                       p->name ? p->name : "?", M);

    ar_schedule *s = ar_schedule_new(A, P, count, elem_bytes);
    int *masters = ar_calloc((size_t)M, sizeof *masters);
    int *members = ar_classic_iota(0, maxg);
    if (!s || !masters || !members) goto nomem;
    for (int m = 0; m < M; m++) masters[m] = first[m];
    int ming = maxg;
    for (int m = 0; m < M; m++)
        if (first[m + 1] - first[m] < ming) ming = first[m + 1] - first[m];
    ar_status rc = ming == maxg
                       ? ar_schedule_set_detail(s, "machines=%d gpus/machine=%d masters-impl=%s", M, maxg,
                                                ar_impl_name(impl))
                       : ar_schedule_set_detail(s, "machines=%d gpus/machine=%d..%d (asymmetric) masters-impl=%s", M,
                                                ming, maxg, ar_impl_name(impl));
    if (rc != AR_OK) goto nomem;

    for (int ph = 0; ph < 3; ph++) {
        if (ph == 1) {
            if (M == 1) continue;
            if (ar_sched_phase(s, "all-reduce among %d masters (%s)", M, ar_impl_name(impl)) < 0) goto nomem;
            ar_op *op = ar_sched_op(s, AR_OP_ALL_REDUCE, impl, masters, M, 0, count);
            if (!op) goto nomem;
            op->tag = ph;
            continue;
        }
        if (maxg < 2) continue; /* every machine has one GPU: nothing local to do */
        if (ar_sched_phase(s, ph == 0 ? "reduce to masters (ring)" : "broadcast from masters (ring)") < 0) goto nomem;
        for (int m = 0; m < M; m++) {
            int g = first[m + 1] - first[m];
            if (g < 2) continue;
            for (int i = 0; i < g; i++) members[i] = first[m] + i;
            ar_op *op = ar_sched_op(s, ph == 0 ? AR_OP_REDUCE : AR_OP_BROADCAST, AR_IMPL_RING, members, g, 0, count);
            if (!op) goto nomem;
            op->root = 0;
            op->tag = ph;
        }
    }
    free(masters);
    free(members);
    *out = s;
    return AR_OK;
nomem:
    free(masters);
    free(members);
    return ar_classic_nomem(A, s, e);
}

/* Closed form, Eq. 7:
 * reduce to master: Tr(p0,N,a0,w0) + Tc(p0,N,a0,w0)  (ring RS + binomial gather, Eq. 4)
 * all-reduce among M = P/p0 masters: 2 Tr/c(M, N, a, Wm)  (or 2Tr / 2Tc when impl is forced)
 * broadcast from master: Tc + Tr, as the reduce.
 * p0 = GPUs per machine (all machines equal), a0 / w0 = largest route latency /
 * narrowest route capacity between two GPUs of machine 0, a = ar_plat_alpha,
 * Wm = narrowest route capacity between two masters. */
static ar_status two_level_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out,
                                  ar_err *e) {
    int P = p->nranks, M = p->nmachines;
    const int *first = p->machine_first_rank;
    const char *pname = p->name ? p->name : "?";
    if (M < 1 || !first || first[0] != 0 || first[M] != P)
        return ar_fail(e, AR_EUNSUPPORTED, "two-level: platform '%s' has no machine structure", pname);
    int p0 = first[1] - first[0];
    for (int m = 1; m < M; m++)
        if (first[m + 1] - first[m] != p0)
            return ar_fail(e, AR_EUNSUPPORTED,
                           "two-level: the closed form (Eq. 7) needs machines of equal size; platform '%s' has "
                           "machine 0 with %d GPUs and machine %d with %d",
                           pname, p0, m, first[m + 1] - first[m]);
    int hd = v[TL_IMPL].i == TL_AUTO ? ar_is_pow2(M) : v[TL_IMPL].i == TL_HD;
    if (hd && !ar_is_pow2(M))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "two-level: impl=hd needs a power-of-two number of machines "
                       "(platform '%s' has %d)",
                       pname, M);

    int *ranks = ar_calloc((size_t)(p0 > M ? p0 : M), sizeof *ranks);
    if (!ranks) return ar_fail(e, AR_ENOMEM, "two-level: out of memory");
    double a0 = 0.0, w0 = INFINITY, am = 0.0, wm = INFINITY;
    for (int i = 0; i < p0; i++) ranks[i] = i;
    ar_classic_pair_scan(p, ranks, p0, &a0, &w0);
    for (int m = 0; m < M; m++) ranks[m] = first[m];
    if (M > 1) {
        double dummy;
        ar_classic_pair_scan(p, ranks, M, &dummy, &wm);
        am = ar_plat_alpha(p);
    }
    free(ranks);

    double local = ar_eq1_tr(p0, N, a0, w0) + ar_eq2_tc(p0, N, a0, w0);
    double amr = hd ? 2.0 * ar_eq2_tc(M, N, am, wm) : 2.0 * ar_eq1_tr(M, N, am, wm);
    /* the same stages as the planner's phases: none for 1-GPU machines or 1 machine */
    if (p0 > 1) ar_model_add_stage(out, "reduce to masters (ring RS + binomial gather)", "ring", p0, N, w0, a0, local);
    if (M > 1)
        ar_model_add_stage(out, hd ? "all-reduce among masters (hd)" : "all-reduce among masters (ring)",
                           hd ? "hd" : "ring", M, N, wm, am, amr);
    if (p0 > 1)
        ar_model_add_stage(out, "broadcast from masters (binomial scatter + ring AG)", "ring", p0, N, w0, a0, local);
    ar_classic_note(out,
                    "Eq. 7: p0=%d GPUs/machine, %d masters; lg(p0)=ceil(log2)=%d%s; local a0/w0 = GPU pairs "
                    "of machine 0, masters use a = max route latency and min route bw among masters",
                    p0, M, (int)ar_lg_steps(p0), ar_is_pow2(p0) ? "" : " (p0 not 2^k)");
    return AR_OK;
}

const ar_algo ar_algo_two_level = {
    .name = "two-level",
    .label = "Two-level (Horovod/Gloo)",
    .summary = "reduce to a master GPU per machine, all-reduce among masters, broadcast back (BlueConnect Eq. 7)",
    .params = tl_params,
    .plan = two_level_plan,
    .closed = two_level_closed,
};
