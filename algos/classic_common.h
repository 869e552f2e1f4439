/* Helpers shared by the classic planners (ring.c, hd.c, binomial.c,
 * pipelined_ring.c, ps.c, two_level.c). Static functions only: no state.
 * Owner: the classic-algorithms files; other planners may include it.
 *
 * Ownership: ar_classic_iota() returns an array the caller frees.
 */
#ifndef AR_ALGOS_CLASSIC_COMMON_H
#define AR_ALGOS_CLASSIC_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include "core/algo.h"
#include "core/platform.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/units.h"
#include "core/util.h"

/* Input checks every planner does first: a platform with >= 1 rank, a
 * non-empty buffer of >= 1-byte elements, within AR_MAX_BYTES. */
static inline ar_status ar_classic_check(const char *algo, const ar_platform *p, uint64_t count,
                                         size_t elem_bytes, ar_schedule **out, ar_err *e) {
    if (!out)
        return ar_fail(e, AR_EINTERNAL, "%s: NULL output schedule pointer", algo);
    *out = NULL;
    if (!p)
        return ar_fail(e, AR_EINVAL, "%s: no platform", algo);
    if (p->nranks < 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: platform '%s' has %d ranks (need >= 1)", algo,
                       p->name ? p->name : "?", p->nranks);
    if (count < 1)
        return ar_fail(e, AR_EINVAL, "%s: element count must be >= 1 (got %llu)", algo,
                       (unsigned long long)count);
    if (elem_bytes < 1)
        return ar_fail(e, AR_EINVAL, "%s: element size must be >= 1 byte", algo);
    if (count > AR_MAX_BYTES / elem_bytes)
        return ar_fail(e, AR_EINVAL, "%s: %llu elements of %zu bytes exceed the %llu-byte limit", algo,
                       (unsigned long long)count, elem_bytes, (unsigned long long)AR_MAX_BYTES);
    return AR_OK;
}

/* Members lo, lo+1, ..., lo+n-1 (caller frees); NULL on allocation failure. */
static inline int *ar_classic_iota(int lo, int n) {
    int *m = ar_calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    if (m)
        for (int i = 0; i < n; i++)
            m[i] = lo + i;
    return m;
}

/* ceil(log2 n) for n >= 1 (binomial-tree steps); 0 for n <= 1. */
static inline int ar_classic_ceil_lg(long long n) {
    int k = 0;
    while (k < 62 && (1LL << k) < n)
        k++;
    return k;
}

/* Largest power of two <= n (n >= 1). */
static inline int ar_classic_pow2_floor(int n) {
    int q = 1;
    while (q <= n / 2)
        q *= 2;
    return q;
}

/* Frees a half-built schedule and reports an allocation failure. */
static inline ar_status ar_classic_nomem(const char *algo, ar_schedule *s, ar_err *e) {
    if (s)
        ar_schedule_free(s);
    return ar_fail(e, AR_ENOMEM, "%s: out of memory while planning", algo);
}

/* Appends two phases to s: "<label> reduce-scatter (<impl>)" with one
 * REDUCE_SCATTER over members[0..n) and the whole buffer, then
 * "<label> all-gather (<impl>)" with the matching ALL_GATHER; both with
 * `chunks` pipeline chunks. Returns AR_OK or AR_ENOMEM (s left for the
 * caller to free). */
static inline ar_status ar_classic_rs_ag(ar_schedule *s, const char *label, const int *members, int n,
                                         ar_impl impl, int chunks) {
    static const ar_op_kind kinds[2] = {AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER};
    static const char *const names[2] = {"reduce-scatter", "all-gather"};
    for (int k = 0; k < 2; k++) {
        if (ar_sched_phase(s, "%s%s%s (%s)", label, *label ? " " : "", names[k], ar_impl_name(impl)) < 0)
            return AR_ENOMEM;
        ar_op *op = ar_sched_op(s, kinds[k], impl, members, n, 0, s->count);
        if (!op)
            return AR_ENOMEM;
        op->chunks = chunks;
        op->tag = k;
    }
    return AR_OK;
}

#endif
