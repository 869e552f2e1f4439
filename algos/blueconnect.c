/* blueconnect: topology-aware decomposed all-reduce (BlueConnect, SysML 2019,
 * Sec. 3, Algorithm 1, Fig. 4).
 *
 * For a decomposition |P| = p0 p1 ... p(k-1) (algos/blueconnect.h: digits of
 * the rank, p0 fastest; default the platform's level fan-outs) the plan is:
 *   reduce-scatter stages, in the order order[0], order[1], ...: stage i is
 *     one phase holding one REDUCE_SCATTER per group c(r, i) (the p_i ranks
 *     that differ only in digit i: r0 + t Q_i, t = 0..p_i-1, in digit order),
 *     all P/p_i groups concurrent, each on its members' current range; the
 *     member with digit t keeps block t (ar_op_block: the range shrinks by p_i
 *     per stage, uneven counts spread one element at a time, Algorithm 1
 *     lines 7-11);
 *   all-gather stages, in the reverse order: the same groups and ranges, as
 *     ALL_GATHER (lines 12-16).
 * Each stage is ring (Eq. 1) or recursive halving/doubling (Eq. 2), chosen
 * per stage (impl=, default Eq. 3). On a platform with no symmetric hierarchy
 * and no decomp= given, no decomposition exists and the plan is the one-level
 * ring (Sec. 3.4), said so in the schedule's detail string.
 *
 * Size: k phases of P/p_i ops each, P members per phase: O(P k).
 * Ownership: *out belongs to the caller (ar_schedule_free). Owner of this
 * file: the BlueConnect/FlexReduce engineer.
 */
#include <stdio.h>

#include "blueconnect.h"
#include "classic_common.h"

static const ar_param_def bc_params[] = {
    [AR_BC_P_DECOMP] = {.key = "decomp",
                        .type = AR_PARAM_LIST,
                        .sep = 'x',
                        .example = "3x2x2",
                        .def_text = "the platform's levels",
                        .help = "the factors p0 x p1 x ... of P (stage i: groups of the ranks differing in digit i)"},
    [AR_BC_P_ORDER] = {.key = "order",
                       .type = AR_PARAM_LIST,
                       .sep = '.',
                       .example = "2.0.1",
                       .def_text = "0.1.2...",
                       .help = "order of the reduce-scatter stages ('.'-separated, or one digit string for <= 10 "
                               "stages); the all-gathers run in reverse"},
    [AR_BC_P_IMPL] = {.key = "impl",
                      .type = AR_PARAM_LIST,
                      .sep = '+',
                      .choices = "ring|hd|auto",
                      .example = "ring+hd+hd",
                      .def_text = "auto",
                      .help = "per stage, or one word for all: ring (Eq. 1), hd (Eq. 2, p_i = 2^k), auto (hd where "
                              "p_i is 2^k)"},
    {0},
};

/* Appends the reduce-scatter phase of stage i: one op per group, ranges from
 * off/cnt (updated to each member's block). */
static ar_status bc_rs_stage(ar_schedule *s, const ar_bc_decomp *d, int pos, int i, uint64_t *off, uint64_t *cnt,
                             int *members) {
    long long q = ar_bc_stride(d, i);
    int P = s->nranks, pi = d->p[i];
    if (ar_sched_phase(s, "reduce-scatter %d/%d: stage %d, p%d=%d (%s)", pos + 1, d->k, i, i, pi,
                       ar_impl_name(d->impl[i])) < 0)
        return AR_ENOMEM;
    for (int r = 0; r < P; r++) {
        if ((r / q) % pi) continue; /* r is not the digit-0 member of its group */
        for (int t = 0; t < pi; t++) members[t] = r + (int)(t * q);
        ar_op *op = ar_sched_op(s, AR_OP_REDUCE_SCATTER, d->impl[i], members, pi, off[r], cnt[r]);
        if (!op) return AR_ENOMEM;
        op->tag = i;
        for (int t = 0; t < pi; t++) ar_op_block(op, t, &off[members[t]], &cnt[members[t]]);
    }
    return AR_OK;
}

/* Appends an all-gather phase mirroring reduce-scatter phase `src`. */
static ar_status bc_ag_stage(ar_schedule *s, const ar_bc_decomp *d, int pos, int src) {
    int i = s->phases[src].ops[0].tag;
    if (ar_sched_phase(s, "all-gather %d/%d: stage %d, p%d=%d (%s)", d->k - pos, d->k, i, i, d->p[i],
                       ar_impl_name(d->impl[i])) < 0)
        return AR_ENOMEM;
    for (int j = 0; j < s->phases[src].nops; j++) {
        const ar_op *rs = &s->phases[src].ops[j]; /* re-read: the phase array is stable here */
        ar_op *op = ar_sched_op(s, AR_OP_ALL_GATHER, rs->impl, rs->members, rs->n, rs->offset, rs->count);
        if (!op) return AR_ENOMEM;
        op->tag = rs->tag;
    }
    return AR_OK;
}

static ar_status bc_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                         ar_schedule **out, ar_err *e) {
    static const char *A = "blueconnect";
    ar_status st = ar_classic_check(A, p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    ar_bc_decomp d;
    st = ar_bc_parse(p, v, &d, e);
    if (st != AR_OK) return st;
    int P = p->nranks;
    char desc[200];
    ar_bc_format(&d, desc, sizeof desc);
    ar_schedule *s = ar_schedule_new(A, P, count, elem_bytes);
    if (!s) return ar_classic_nomem(A, s, e);

    if (d.fallback) {
        int *all = ar_classic_iota(0, P);
        st = all ? ar_classic_rs_ag(s, "one-level", all, P, d.impl[0], 1) : AR_ENOMEM;
        free(all);
        if (st == AR_OK)
            st = ar_schedule_set_detail(s, "fallback: one-level ring (no symmetric decomposition) over %d ranks%s", P,
                                        d.impl[0] == AR_IMPL_HD ? ", impl=hd" : "");
        if (st != AR_OK) return ar_classic_nomem(A, s, e);
        *out = s;
        return AR_OK;
    }

    uint64_t *off = ar_calloc((size_t)P, sizeof *off), *cnt = ar_calloc((size_t)P, sizeof *cnt);
    int maxp = 1;
    for (int i = 0; i < d.k; i++)
        if (d.p[i] > maxp) maxp = d.p[i];
    int *members = ar_calloc((size_t)maxp, sizeof *members);
    st = off && cnt && members ? AR_OK : AR_ENOMEM;
    for (int r = 0; r < P && st == AR_OK; r++) cnt[r] = count;
    for (int pos = 0; pos < d.k && st == AR_OK; pos++) st = bc_rs_stage(s, &d, pos, d.order[pos], off, cnt, members);
    for (int pos = d.k - 1; pos >= 0 && st == AR_OK; pos--) st = bc_ag_stage(s, &d, pos, pos);
    if (st == AR_OK) st = ar_schedule_set_detail(s, "%s%s", desc, d.from_platform ? " (the platform's levels)" : "");
    free(off);
    free(cnt);
    free(members);
    if (st != AR_OK) return ar_classic_nomem(A, s, e);
    *out = s;
    return AR_OK;
}

const ar_algo ar_algo_blueconnect = {
    .name = "blueconnect",
    .label = "BlueConnect",
    .summary = "decomposed all-reduce: concurrent reduce-scatters per hierarchy level, then all-gathers in reverse "
               "(Algorithm 1, Eq. 9/10)",
    .params = bc_params,
    .plan = bc_plan,
    .closed = ar_bc_closed,
    .search = ar_bc_search,
};
