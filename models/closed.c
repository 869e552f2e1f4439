/* Closed-form models of the classic algorithms (ar_model_closed), dispatching
 * on params->name through a static table. Later models (BlueConnect Eqs. 9/10,
 * FlexReduce, tree packing) add one line each to closed_table[].
 *
 * Every model fills a per-stage breakdown (ar_model_add_stage) and a note of
 * the assumptions it makes. Common quantities: N = count x elem_bytes bytes,
 * P ranks, a = ar_plat_alpha (largest route latency between two ranks),
 * W = ar_plat_min_bw (narrowest link on a rank-to-rank route); lg = ceil(log2).
 *
 * Parameters are read with the same names, ranges and defaults as the
 * planners in algos/ (chunks, servers, impl), so ar_params_check_used passes.
 * Owner: classic-algorithms models. No state; nothing allocated.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "model.h"
#include "model_topo.h"

/* Keep in sync with algos/pipelined_ring.c. */
#define CL_PRING_DEFAULT_CHUNKS 4
#define CL_PRING_MAX_CHUNKS 4096
/* Above this many members, pairwise scans fall back to rings/stars of routes. */
#define CL_EXACT_PAIRS 128

typedef ar_status (*closed_fn)(const ar_platform *p, double N, ar_params *params, ar_model_result *out,
                               ar_err *e);

static void note_add(ar_model_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(ar_model_result *r, const char *fmt, ...) {
    size_t used = strlen(r->note);
    if (used + 1 >= sizeof r->note)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

static int cl_pow2(int p) { return p >= 1 && (p & (p - 1)) == 0; }

/* --- ring: Eq. 6 ------------------------------------------------------------ */
static ar_status closed_ring(const ar_platform *p, double N, ar_params *params, ar_model_result *out, ar_err *e) {
    (void)params;
    (void)e;
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p), t = ar_eq1_tr(P, N, a, W);
    ar_model_add_stage(out, "reduce-scatter (ring)", "ring", P, N, W, a, t);
    ar_model_add_stage(out, "all-gather (ring)", "ring", P, N, W, a, t);
    note_add(out, "Eq. 6: 2 Tr(P,N,a,minW); a = max route latency, minW = narrowest link on a route; "
                  "every step gated by its slowest pair, no link shared by two ring flows per direction");
    return AR_OK;
}

/* --- pipelined ring: 2 (P-1) (c a + N/(P W)) --------------------------------- */
static ar_status closed_pring(const ar_platform *p, double N, ar_params *params, ar_model_result *out,
                              ar_err *e) {
    long long c = CL_PRING_DEFAULT_CHUNKS;
    ar_status st;
    if (params && (st = ar_params_get_int(params, "chunks", 1, CL_PRING_MAX_CHUNKS, &c, e)) != AR_OK)
        return st;
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    double t = P > 1 ? (P - 1) * ((double)c * a + N / P / W) : 0.0;
    ar_model_add_stage(out, "reduce-scatter (ring, sub-chunks)", "ring", P, N, W, a, t);
    ar_model_add_stage(out, "all-gather (ring, sub-chunks)", "ring", P, N, W, a, t);
    note_add(out, "2(P-1)(c a + N/(P minW)), c=%lld: alpha per sub-chunk; no reduction cost (gamma=0), "
                  "so pipelining only adds latency here; its overlap benefit is not modelled", c);
    return AR_OK;
}

/* --- halving-doubling: 2 Tc(P) or fold + 2 Tc(q) + unfold ---------------------- */
static ar_status closed_hd(const ar_platform *p, double N, ar_params *params, ar_model_result *out, ar_err *e) {
    (void)params;
    (void)e;
    int P = p->nranks, q = 1;
    while (q <= P / 2)
        q *= 2;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    if (q < P)
        ar_model_add_stage(out, "fold (send+reduce)", "send", 2, N, W, a, a + N / W);
    double t = ar_eq2_tc(q, N, a, W);
    ar_model_add_stage(out, "reduce-scatter (hd)", "hd", q, N, W, a, t);
    ar_model_add_stage(out, "all-gather (hd)", "hd", q, N, W, a, t);
    if (q < P)
        ar_model_add_stage(out, "unfold (send)", "send", 2, N, W, a, a + N / W);
    if (q == P)
        note_add(out, "2 Tc(P,N,a,minW) (Eq. 2, P=2^%d); ", (int)ar_lg_steps(P));
    else
        note_add(out, "P=%d not 2^k: fold %d ranks (a+N/minW), 2 Tc(%d,N,a,minW), unfold (a+N/minW); ", P, P - q,
                 q);
    note_add(out, "a = max route latency for every exchange, no link shared by two flows per direction "
                  "(exact on one switch; on trees the upper exchanges share uplinks)");
    return AR_OK;
}

/* --- binomial: 2 ceil(lg P) (a + N/W) ----------------------------------------- */
static ar_status closed_binomial(const ar_platform *p, double N, ar_params *params, ar_model_result *out,
                                 ar_err *e) {
    (void)params;
    (void)e;
    int P = p->nranks;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p), steps = ar_lg_steps(P);
    double t = P > 1 ? steps * (a + N / W) : 0.0;
    ar_model_add_stage(out, "reduce (binomial)", "binomial", P, N, W, a, t);
    ar_model_add_stage(out, "broadcast (binomial)", "binomial", P, N, W, a, t);
    note_add(out, "reduce + broadcast, each ceil(lg %d) = %d steps of (a + N/minW); whole buffer per step", P,
             (int)steps);
    return AR_OK;
}

/* --- parameter server -----------------------------------------------------------
 * k servers (ranks 0..k-1), each owning N/k. Push: every server receives N/k
 * from each of the other P-1 ranks over its own link, i.e. (P-1) N/k bytes;
 * pull: the same out. Time per phase a + (P-1) N / (k minW):
 *   k = P: 2(a + (P-1)/P N/minW);  k = 1: 2(a + (P-1) N/minW).
 * (A non-server sends only N in all, so for k <= P the servers' links are the
 * bottleneck.) */
static ar_status closed_ps(const ar_platform *p, double N, ar_params *params, ar_model_result *out, ar_err *e) {
    int P = p->nranks;
    long long k = P;
    ar_status st;
    if (params && (st = ar_params_get_int(params, "servers", 1, P, &k, e)) != AR_OK)
        return st;
    double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
    double t = P > 1 ? a + (double)(P - 1) * N / ((double)k * W) : 0.0;
    ar_model_add_stage(out, "push (reduce-scatter direct)", "direct", P, N, W, a, t);
    ar_model_add_stage(out, "pull (all-gather direct)", "direct", P, N, W, a, t);
    note_add(out, "k=%lld servers: each server's own link carries (P-1)N/k per direction at minW, shared "
                  "equally; assumes it is the bottleneck (star/tree with uplinks >= the servers' shares)", k);
    return AR_OK;
}

/* --- two-level: Eq. 7 -------------------------------------------------------------
 * reduce to master: Tr(p0,N,a0,w0) + Tc(p0,N,a0,w0)  (ring RS + binomial gather, Eq. 4)
 * all-reduce among M = P/p0 masters: 2 Tr/c(M, N, a, Wm)  (or 2Tr / 2Tc when impl is forced)
 * broadcast from master: Tc + Tr, as the reduce.
 * p0 = GPUs per machine (all machines equal), a0 / w0 = largest route latency /
 * narrowest route capacity between two GPUs of machine 0, a = ar_plat_alpha,
 * Wm = narrowest route capacity between two masters. */
static void pair_scan(const ar_platform *p, const int *r, int n, double *lat, double *bw) {
    double l = 0.0, w = INFINITY;
    if (n <= CL_EXACT_PAIRS) {
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

static ar_status closed_two_level(const ar_platform *p, double N, ar_params *params, ar_model_result *out,
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
    const char *impl_s = "auto";
    if (params)
        ar_params_get_str(params, "impl", &impl_s);
    int hd;
    if (!strcmp(impl_s, "auto"))
        hd = cl_pow2(M);
    else if (!strcmp(impl_s, "ring"))
        hd = 0;
    else if (!strcmp(impl_s, "hd"))
        hd = 1;
    else
        return ar_fail(e, AR_EINVAL, "two-level: impl=%s: expected ring, hd or auto", impl_s);
    if (hd && !cl_pow2(M))
        return ar_fail(e, AR_EUNSUPPORTED, "two-level: impl=hd needs a power-of-two number of machines "
                                           "(platform '%s' has %d)", pname, M);

    int *ranks = ar_calloc((size_t)(p0 > M ? p0 : M), sizeof *ranks);
    if (!ranks)
        return ar_fail(e, AR_ENOMEM, "two-level: out of memory");
    double a0 = 0.0, w0 = INFINITY, am = 0.0, wm = INFINITY;
    for (int i = 0; i < p0; i++)
        ranks[i] = i;
    pair_scan(p, ranks, p0, &a0, &w0);
    for (int m = 0; m < M; m++)
        ranks[m] = first[m];
    if (M > 1) {
        double dummy;
        pair_scan(p, ranks, M, &dummy, &wm);
        am = ar_plat_alpha(p);
    }
    free(ranks);

    double local = ar_eq1_tr(p0, N, a0, w0) + ar_eq2_tc(p0, N, a0, w0);
    double amr = hd ? 2.0 * ar_eq2_tc(M, N, am, wm) : 2.0 * ar_eq1_tr(M, N, am, wm);
    /* the same stages as the planner's phases: none for 1-GPU machines or 1 machine */
    if (p0 > 1)
        ar_model_add_stage(out, "reduce to masters (ring RS + binomial gather)", "ring", p0, N, w0, a0, local);
    if (M > 1)
        ar_model_add_stage(out, hd ? "all-reduce among masters (hd)" : "all-reduce among masters (ring)",
                           hd ? "hd" : "ring", M, N, wm, am, amr);
    if (p0 > 1)
        ar_model_add_stage(out, "broadcast from masters (binomial scatter + ring AG)", "ring", p0, N, w0, a0,
                           local);
    note_add(out, "Eq. 7: p0=%d GPUs/machine, %d masters; lg(p0)=ceil(log2)=%d%s; local a0/w0 = GPU pairs "
                  "of machine 0, masters use a = max route latency and min route bw among masters",
             p0, M, (int)ar_lg_steps(p0), cl_pow2(p0) ? "" : " (p0 not 2^k)");
    return AR_OK;
}

/* --- dispatch ------------------------------------------------------------------ */
static const struct {
    const char *name;
    closed_fn fn;
} closed_table[] = {
    {"ring", closed_ring},
    {"pipelined-ring", closed_pring},
    {"halving-doubling", closed_hd},
    {"binomial", closed_binomial},
    {"ps", closed_ps},
    {"two-level", closed_two_level},
    {"blueconnect", ar_closed_blueconnect}, /* models/blueconnect_model.c (issue 3) */
    {"flexreduce", ar_closed_flexreduce},   /* models/flexreduce_model.c (issue 3) */
};

ar_status ar_model_closed(const ar_platform *p, uint64_t count, size_t elem_bytes, ar_params *params,
                          ar_model_result *out, ar_err *e) {
    if (!out)
        return ar_fail(e, AR_EINTERNAL, "ar_model_closed: NULL result");
    memset(out, 0, sizeof *out);
    if (!params || !params->name)
        return ar_fail(e, AR_EINVAL, "ar_model_closed: no algorithm name");
    if (!p || p->nranks < 1)
        return ar_fail(e, AR_EINVAL, "%s: closed form needs a platform with >= 1 rank", params->name);
    if (count < 1 || elem_bytes < 1)
        return ar_fail(e, AR_EINVAL, "%s: closed form needs a non-empty buffer", params->name);
    for (size_t i = 0; i < sizeof closed_table / sizeof closed_table[0]; i++)
        if (!strcmp(closed_table[i].name, params->name))
            return closed_table[i].fn(p, (double)count * (double)elem_bytes, params, out, e);
    return ar_fail(e, AR_EUNSUPPORTED, "no closed-form model for algorithm %s", params->name);
}
