/* Host executor (schedule.h: ar_schedule_execute_host).
 *
 * Runs every op through its lowering (lower.h), round by round: all payloads of
 * a round are read from the senders first, then delivered, as concurrent
 * transfers would be. Inputs follow data.h (integers whose sums are exact in a
 * double), so a missing, doubled or misplaced contribution changes the result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "lower.h"
#include "schedule.h"
#include "util.h"

typedef struct xstate {
    const ar_schedule *s;
    double **buf; /* per rank */
    ar_xfer *xf;  /* one round's transfers */
    size_t capxf;
    double *stage; /* payloads of one round */
    size_t capstage;
    double *swbuf; /* the switch's buffer during a SWITCH op (s->count doubles) */
} xstate;

static void poison(double *b, uint64_t off, uint64_t len) {
    for (uint64_t i = 0; i < len; i++) b[off + i] = NAN;
}

/* Marks what the op's semantics leave undefined, so later reads show up. */
static void poison_after(xstate *x, const ar_op *op) {
    if (op->kind == AR_OP_REDUCE_SCATTER) {
        for (int m = 0; m < op->n; m++)
            for (int i = 0; i < op->n; i++) {
                if (i == m) continue;
                uint64_t o, l;
                ar_op_block(op, i, &o, &l);
                poison(x->buf[op->members[m]], o, l);
            }
    } else if (op->kind == AR_OP_REDUCE) {
        for (int m = 0; m < op->n; m++)
            if (m != op->root) poison(x->buf[op->members[m]], op->offset, op->count);
    }
}

static ar_status run_op(xstate *x, const ar_op *op, int phase, int opi, ar_err *e) {
    int nr = ar_lower_nrounds(op);
    size_t maxx = ar_lower_max_xfers(op);
    if (ar_grow(&x->xf, &x->capxf, maxx, sizeof *x->xf) < 0)
        return ar_fail(e, AR_ENOMEM, "host executor: out of memory");
    if (op->impl == AR_IMPL_SWITCH && op->sw < 0)
        return ar_fail(e, AR_EINVAL, "host executor: phase %d op %d: switch \"%.80s\" not resolved on a platform",
                       phase, opi, op->sw_name ? op->sw_name : "?");
    int swep = op->impl == AR_IMPL_SWITCH ? -2 - op->sw : -1; /* the switch endpoint (platform.h AR_EP_NODE) */
    if (op->impl == AR_IMPL_SWITCH) { /* a fresh buffer in the switch: zero to reduce into, NaN to copy into */
        if (!x->swbuf && !(x->swbuf = ar_reallocarray(NULL, (size_t)x->s->count, sizeof(double))))
            return ar_fail(e, AR_ENOMEM, "host executor: out of memory");
        for (uint64_t i = 0; i < x->s->count; i++)
            x->swbuf[i] = op->kind == AR_OP_ALL_GATHER || op->kind == AR_OP_BROADCAST ? NAN : 0.0;
    }
    for (int r = 0; r < nr; r++) {
        size_t n = ar_lower_round(op, r, x->xf);
        if (n > maxx) return ar_fail(e, AR_EINTERNAL, "lowering overflow in phase %d op %d", phase, opi);
        size_t total = 0;
        for (size_t i = 0; i < n; i++) total += ar_xfer_elems(&x->xf[i]);
        if (ar_grow(&x->stage, &x->capstage, total, sizeof *x->stage) < 0)
            return ar_fail(e, AR_ENOMEM, "host executor: out of memory");
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const ar_xfer *t = &x->xf[i];
            int oks = (t->src >= 0 && t->src < x->s->nranks) || (swep != -1 && t->src == swep);
            int okd = (t->dst >= 0 && t->dst < x->s->nranks) || (swep != -1 && t->dst == swep);
            if (!oks || !okd || t->src == t->dst)
                return ar_fail(e, AR_EINTERNAL, "lowering of phase %d op %d: bad transfer %d->%d", phase, opi, t->src,
                               t->dst);
            const double *from = t->src == swep ? x->swbuf : x->buf[t->src];
            for (int g = 0; g < t->nseg; g++) {
                if (t->off[g] > x->s->count || t->len[g] > x->s->count - t->off[g])
                    return ar_fail(e, AR_EINTERNAL, "lowering of phase %d op %d: range out of buffer", phase, opi);
                memcpy(x->stage + k, from + t->off[g], t->len[g] * sizeof(double));
                k += t->len[g];
            }
        }
        k = 0;
        for (size_t i = 0; i < n; i++) {
            const ar_xfer *t = &x->xf[i];
            double *d = t->dst == swep ? x->swbuf : x->buf[t->dst];
            for (int g = 0; g < t->nseg; g++) {
                const double *src = x->stage + k;
                if (t->reduce)
                    for (uint64_t j = 0; j < t->len[g]; j++) d[t->off[g] + j] += src[j];
                else memcpy(d + t->off[g], src, t->len[g] * sizeof(double));
                k += t->len[g];
            }
        }
    }
    poison_after(x, op);
    return AR_OK;
}

ar_status ar_schedule_execute_host(const ar_schedule *s, uint64_t max_bytes, ar_err *e) {
    ar_status st = ar_schedule_check_structure(s, e);
    if (st != AR_OK) return st;
    if (max_bytes == 0) max_bytes = UINT64_C(1) << 30;
    if ((uint64_t)s->nranks > max_bytes / 8 / s->count)
        return ar_fail(e, AR_ELIMIT,
                       "host executor: %d ranks x %llu elements needs more than the %llu-byte limit "
                       "(use a smaller size)",
                       s->nranks, (unsigned long long)s->count, (unsigned long long)max_bytes);
    xstate x = {.s = s};
    x.buf = ar_calloc((size_t)s->nranks, sizeof *x.buf);
    if (!x.buf) return ar_fail(e, AR_ENOMEM, "host executor: out of memory");
    for (int r = 0; r < s->nranks && st == AR_OK; r++) {
        x.buf[r] = ar_reallocarray(NULL, (size_t)s->count, sizeof(double));
        if (!x.buf[r]) {
            st = ar_fail(e, AR_ENOMEM, "host executor: out of memory");
            break;
        }
        ar_data_fill(x.buf[r], r, s->count);
        if (s->coll == AR_COLL_ALLGATHER) { /* rank r starts with block r, reduced; nothing else */
            uint64_t o, l;
            ar_coll_block(s->nranks, s->count, r, &o, &l);
            for (uint64_t i = 0; i < s->count; i++)
                x.buf[r][i] = i >= o && i < o + l ? ar_data_expected(s->nranks, i) : NAN;
        }
    }
    for (int p = 0; p < s->nphases && st == AR_OK; p++)
        for (int i = 0; i < s->phases[p].nops && st == AR_OK; i++) st = run_op(&x, &s->phases[p].ops[i], p, i, e);
    for (int r = 0; r < s->nranks && st == AR_OK; r++) {
        uint64_t i;
        if (s->coll != AR_COLL_REDUCESCATTER) {
            i = ar_data_first_wrong(x.buf[r], s->nranks, s->count);
        } else { /* only block r of rank r is defined */
            uint64_t o, l;
            ar_coll_block(s->nranks, s->count, r, &o, &l);
            for (i = o; i < o + l && x.buf[r][i] == ar_data_expected(s->nranks, i); i++) {}
            if (i == o + l) i = s->count;
        }
        if (i < s->count)
            st = ar_fail(e, AR_EFAIL, "schedule %s: rank %d element %llu holds %.17g, exact sum is %.17g", s->algo, r,
                         (unsigned long long)i, x.buf[r][i], ar_data_expected(s->nranks, i));
    }
    for (int r = 0; r < s->nranks; r++) free(x.buf[r]);
    free(x.buf);
    free(x.xf);
    free(x.stage);
    free(x.swbuf);
    return st;
}
