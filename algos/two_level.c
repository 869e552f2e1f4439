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
#include <string.h>

#include "classic_common.h"

static ar_status two_level_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, ar_params *params,
                                ar_schedule **out, ar_err *e) {
    const char *const A = "two-level";
    ar_status st = ar_classic_check(A, p, count, elem_bytes, out, e);
    if (st != AR_OK)
        return st;
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
        if (g > maxg)
            maxg = g;
    }

    const char *impl_s = "auto";
    if (params)
        ar_params_get_str(params, "impl", &impl_s);
    ar_impl impl;
    if (!strcmp(impl_s, "auto"))
        impl = ar_is_pow2(M) ? AR_IMPL_HD : AR_IMPL_RING;
    else if (!strcmp(impl_s, "ring"))
        impl = AR_IMPL_RING;
    else if (!strcmp(impl_s, "hd"))
        impl = AR_IMPL_HD;
    else
        return ar_fail(e, AR_EINVAL, "%s: impl=%s: expected ring, hd or auto", A, impl_s);
    if (impl == AR_IMPL_HD && !ar_is_pow2(M))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: impl=hd needs a power-of-two number of machines (platform '%s' has %d); use impl=ring",
                       A, p->name ? p->name : "?", M);

    ar_schedule *s = ar_schedule_new(A, P, count, elem_bytes);
    int *masters = ar_calloc((size_t)M, sizeof *masters);
    int *members = ar_classic_iota(0, maxg);
    if (!s || !masters || !members)
        goto nomem;
    for (int m = 0; m < M; m++)
        masters[m] = first[m];
    int ming = maxg;
    for (int m = 0; m < M; m++)
        if (first[m + 1] - first[m] < ming)
            ming = first[m + 1] - first[m];
    ar_status rc = ming == maxg
                       ? ar_schedule_set_detail(s, "machines=%d gpus/machine=%d masters-impl=%s", M, maxg,
                                                ar_impl_name(impl))
                       : ar_schedule_set_detail(s, "machines=%d gpus/machine=%d..%d (asymmetric) masters-impl=%s", M,
                                                ming, maxg, ar_impl_name(impl));
    if (rc != AR_OK)
        goto nomem;

    for (int ph = 0; ph < 3; ph++) {
        if (ph == 1) {
            if (M == 1)
                continue;
            if (ar_sched_phase(s, "all-reduce among %d masters (%s)", M, ar_impl_name(impl)) < 0)
                goto nomem;
            ar_op *op = ar_sched_op(s, AR_OP_ALL_REDUCE, impl, masters, M, 0, count);
            if (!op)
                goto nomem;
            op->tag = ph;
            continue;
        }
        if (maxg < 2)
            continue; /* every machine has one GPU: nothing local to do */
        if (ar_sched_phase(s, ph == 0 ? "reduce to masters (ring)" : "broadcast from masters (ring)") < 0)
            goto nomem;
        for (int m = 0; m < M; m++) {
            int g = first[m + 1] - first[m];
            if (g < 2)
                continue;
            for (int i = 0; i < g; i++)
                members[i] = first[m] + i;
            ar_op *op = ar_sched_op(s, ph == 0 ? AR_OP_REDUCE : AR_OP_BROADCAST, AR_IMPL_RING, members, g, 0,
                                    count);
            if (!op)
                goto nomem;
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

const ar_algo ar_algo_two_level = {
    .name = "two-level",
    .label = "Two-level (Horovod/Gloo)",
    .summary = "reduce to a master GPU per machine, all-reduce among masters, broadcast back (BlueConnect Eq. 7)",
    .params_help = "impl=ring|hd|auto all-reduce among masters (default auto: hd if #machines is 2^k)",
    .plan = two_level_plan,
};
