/* Helpers shared by the planners and closed forms (classic_common.h). */
#include "classic_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ar_status ar_classic_check(const char *algo, const ar_platform *p, uint64_t count, size_t elem_bytes, ar_schedule **out,
                           ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "%s: NULL output schedule pointer", algo);
    *out = NULL;
    if (!p) return ar_fail(e, AR_EINVAL, "%s: no platform", algo);
    if (p->nranks < 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: platform '%s' has %d ranks (need >= 1)", algo, p->name ? p->name : "?",
                       p->nranks);
    if (count < 1)
        return ar_fail(e, AR_EINVAL, "%s: element count must be >= 1 (got %llu)", algo, (unsigned long long)count);
    if (elem_bytes < 1) return ar_fail(e, AR_EINVAL, "%s: element size must be >= 1 byte", algo);
    if (count > AR_MAX_BYTES / elem_bytes)
        return ar_fail(e, AR_EINVAL, "%s: %llu elements of %zu bytes exceed the %llu-byte limit", algo,
                       (unsigned long long)count, elem_bytes, (unsigned long long)AR_MAX_BYTES);
    return AR_OK;
}

int *ar_classic_iota(int lo, int n) {
    int *m = ar_calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    if (m)
        for (int i = 0; i < n; i++) m[i] = lo + i;
    return m;
}

int ar_classic_pow2_floor(int n) {
    int q = 1;
    while (q <= n / 2) q *= 2;
    return q;
}

ar_status ar_classic_nomem(const char *algo, ar_schedule *s, ar_err *e) {
    if (s) ar_schedule_free(s);
    return ar_fail(e, AR_ENOMEM, "%s: out of memory while planning", algo);
}

ar_status ar_classic_rs_ag(ar_schedule *s, const char *label, const int *members, int n, ar_impl impl, int chunks) {
    static const ar_op_kind kinds[2] = {AR_OP_REDUCE_SCATTER, AR_OP_ALL_GATHER};
    static const char *const names[2] = {"reduce-scatter", "all-gather"};
    for (int k = 0; k < 2; k++) {
        if (ar_sched_phase(s, "%s%s%s (%s)", label, *label ? " " : "", names[k], ar_impl_name(impl)) < 0)
            return AR_ENOMEM;
        ar_op *op = ar_sched_op(s, kinds[k], impl, members, n, 0, s->count);
        if (!op) return AR_ENOMEM;
        op->chunks = chunks;
        op->tag = k;
    }
    return AR_OK;
}

void ar_classic_note(ar_model_result *r, const char *fmt, ...) {
    size_t used = strlen(r->note);
    if (used + 1 >= sizeof r->note) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

void ar_classic_pair_scan(const ar_platform *p, const int *r, int n, double *lat, double *bw) {
    double l = 0.0, w = INFINITY;
    if (n <= AR_CLASSIC_EXACT_PAIRS) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j) {
                    l = fmax(l, ar_platform_route_lat(p, r[i], r[j]));
                    w = fmin(w, ar_platform_route_bw(p, r[i], r[j]));
                }
    } else {
        for (int i = 0; i < n; i++) {
            int pairs[3][2] = {{r[0], r[i]}, {r[i], r[0]}, {r[i], r[(i + 1) % n]}};
            for (int k = 0; k < 3; k++)
                if (pairs[k][0] != pairs[k][1]) {
                    l = fmax(l, ar_platform_route_lat(p, pairs[k][0], pairs[k][1]));
                    w = fmin(w, ar_platform_route_bw(p, pairs[k][0], pairs[k][1]));
                }
        }
    }
    *lat = l;
    *bw = w;
}

int ar_classic_ring_costs(const ar_platform *p, double N, long long c, ar_model_result *out) {
    if (!ar_platform_has_costs(p)) return 0;
    if (p->rank_compute) return 0; /* a slow-computing straggler: uneven g per rank, the walk prices it */
    int P = p->nranks, staged = 0, msg = 0;
    for (int r = 0; r < P && P > 1; r++) {
        staged += ar_platform_staged(p, r, (r + 1) % P);
        msg += ar_platform_msg(p, r, (r + 1) % P);
    }
    if (staged && staged != P) return 0; /* some ring hops stage, others not: no closed form */
    if (msg && msg != P) return 0;       /* some hops pay per-message costs, others not: the walk */
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    double sub = P > 0 ? N / P / (double)c : 0; /* bytes of one sub-chunk */
    double T = a + sub / W, g = p->reduce_Bps > 0 ? sub / p->reduce_Bps : 0, L = p->launch_s;
    /* per-message costs (LogGP): the sender's o joins its D2H side, the receiver's o its H2D side (one
     * serial side each, platform.h), so each ring step is o + T + o: 2(P-1)(alpha + N/(P minW) + 2o)
     * without other costs. The gap g holds a side max(o, g) per message: with one message per side
     * per step (c = 1) it never binds while g <= d + T + h (a step's period); otherwise no closed form. */
    double o = msg ? p->msg_o_s : 0;
    double dd = (staged ? sub / p->stage_d2h_Bps : 0) + o, hh = (staged ? sub / p->stage_h2d_Bps : 0) + o;
    if (msg && p->msg_g_s > dd && (c > 1 || p->msg_g_s > dd + T + hh)) return 0;
    ar_model_add_stage(out, "all-reduce (ring, reduction overlapped)", "ring", P, N, W, a,
                       staged || msg ? ar_eq_ring_pipe_staged(P, c, T, dd, hh, g, L) : ar_eq_ring_pipe(P, c, T, g, L));
    out->costs = 1;
    ar_classic_note(
        out,
        "dataflow with overlap (models/eqs.c ar_eq_ring_pipe), c=%lld sub-chunks: T = a + N/(P c minW) = "
        "%.6g s per transfer, g = N/(P c reduce) = %.6g s per reduction (FIFO per GPU), launch %.6g s per op, "
        "send/receive sides (staging copies + per-message o) %.6g + %.6g s",
        c, T, g, L, dd, hh);
    return 1;
}
