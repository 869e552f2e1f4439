/* BlueConnect Eqs. 1-7 (EQUATIONS.md), the model-result helper, and the two
 * platform quantities the one-level closed forms use (alpha and min W).
 *
 * Conventions: n, N in bytes, w in bytes/s, a in seconds; a group of p <= 1
 * costs 0. lg(p) is ar_lg_steps(p) = ceil(log2 p): exact for powers of two,
 * and for other p the number of binomial-tree (or fold + hd) steps; every
 * closed form that applies Eq. 2 to such a p says so in its note.
 * No state; nothing allocated that outlives a call.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/util.h"
#include "model.h"

double ar_lg_steps(int p) { return (double)ar_ceil_log2(p); }

/* Eq. 1: Tr(p,n,a,w) = (p-1) a + (p-1)/p * n/w */
double ar_eq1_tr(int p, double n, double a, double w) {
    if (p <= 1) return 0.0;
    return (p - 1) * a + (double)(p - 1) / p * n / w;
}

/* Eq. 2: Tc(p,n,a,w) = lg(p) a + (p-1)/p * n/w, lg = ceil(log2) */
double ar_eq2_tc(int p, double n, double a, double w) {
    if (p <= 1) return 0.0;
    return ar_lg_steps(p) * a + (double)(p - 1) / p * n / w;
}

/* Eq. 3: Tc if p is a power of two, else Tr */
double ar_eq3_trc(int p, double n, double a, double w) {
    return ar_is_pow2(p) ? ar_eq2_tc(p, n, a, w) : ar_eq1_tr(p, n, a, w);
}

/* Eq. 4: Tbcast = Treduce = Tc + Tr */
double ar_eq4_treduce(int p, double n, double a, double w) { return ar_eq2_tc(p, n, a, w) + ar_eq1_tr(p, n, a, w); }

/* Eq. 5/6: 2 (|P|-1) {a + (N/|P|)/minW} = 2 Tr(|P|, N, a, minW) */
double ar_eq6_one_level(int P, double N, double a, double minW) { return 2.0 * ar_eq1_tr(P, N, a, minW); }

/* Eq. 7: 2 Tc(p0,N,a,w0) + 2 Tr(p0,N,a,w0) + 2 Tr/c(|P|/p0, N, a, minW).
 * |P|/p0 is the number of masters (integer division; callers pass p0 | P). */
double ar_eq7_two_level(int p0, int P, double N, double a, double w0, double minW) {
    if (p0 < 1) return NAN;
    return 2.0 * ar_eq2_tc(p0, N, a, w0) + 2.0 * ar_eq1_tr(p0, N, a, w0) + 2.0 * ar_eq3_trc(P / p0, N, a, minW);
}

void ar_model_add_stage(ar_model_result *r, const char *label, const char *impl, int p, double bytes, double bw_Bps,
                        double lat_s, double time_s) {
    if (!r) return;
    r->time_s += time_s;
    if (r->nstages < 0) r->nstages = 0;
    if (r->nstages >= AR_MODEL_MAX_STAGES) return;
    ar_model_stage *st = &r->stages[r->nstages++];
    memset(st, 0, sizeof *st);
    snprintf(st->label, sizeof st->label, "%s", label ? label : "");
    snprintf(st->impl, sizeof st->impl, "%s", impl ? impl : "");
    st->p = p;
    st->bytes = bytes;
    st->bw_Bps = bw_Bps;
    st->lat_s = lat_s;
    st->time_s = time_s;
}

/* Rank pairs are scanned exhaustively up to this many ranks (P^2 routes). */
#define AR_PLAT_EXACT_RANKS 128

static int plat_is_tree(const ar_platform *p) {
    return (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE) && p->root >= 0 && p->root < p->nnodes;
}

/* ar_plat_min_bw: the narrowest link capacity on any rank-to-rank route, i.e.
 * the min over the links that lie on some route (a switch-switch link no
 * route uses does not count). Computed from route capacities:
 *   - trees: min over the routes rank 0 -> r for every r. Exact: any link on a
 *     route u -> v separates u from v, so it separates rank 0 from u or from v
 *     and lies on the route from 0 to that one. O(P x height).
 *   - other kinds, P <= 128: min over all ordered pairs (exact).
 *   - other kinds, larger P: min over the routes 0 -> r, r -> 0 and r -> r+1
 *     (mod P) for every r: every link next to a GPU and every link the ring
 *     uses; a link only some other pair's shortest path uses may be missed.
 * Returns +inf for a single rank (no route). */
double ar_plat_min_bw(const ar_platform *p) {
    double w = INFINITY;
    if (!p || p->nranks < 2) return w;
    int P = p->nranks;
    if (plat_is_tree(p)) {
        for (int r = 1; r < P; r++) w = fmin(w, ar_platform_route_bw(p, 0, r));
    } else if (P <= AR_PLAT_EXACT_RANKS) {
        for (int u = 0; u < P; u++)
            for (int v = 0; v < P; v++)
                if (u != v) w = fmin(w, ar_platform_route_bw(p, u, v));
    } else {
        for (int r = 1; r < P; r++) {
            w = fmin(w, ar_platform_route_bw(p, 0, r));
            w = fmin(w, ar_platform_route_bw(p, r, 0));
        }
        for (int r = 0; r < P; r++) w = fmin(w, ar_platform_route_bw(p, r, (r + 1) % P));
    }
    return w;
}

/* Weighted leaf diameter of the tree view: for each node the largest latency
 * down to a GPU below it; at each node the two largest child branches meet.
 * Iterative (no recursion depth limit), O(nodes). Returns -1 on failure. */
static double plat_tree_alpha(const ar_platform *p) {
    int nn = p->nnodes;
    int *order = malloc((size_t)nn * sizeof *order);
    int *stack = malloc((size_t)nn * sizeof *stack);
    double *down = malloc((size_t)nn * sizeof *down);
    double best = -1.0;
    if (!order || !stack || !down) goto out;
    int no = 0, ns = 0;
    stack[ns++] = p->root;
    while (ns > 0) { /* preorder */
        int v = stack[--ns];
        if (no >= nn) goto out; /* not a tree */
        order[no++] = v;
        for (int c = 0; c < p->nodes[v].nchildren; c++) {
            int ch = p->nodes[v].children[c];
            if (ch < 0 || ch >= nn || ns >= nn) goto out;
            stack[ns++] = ch;
        }
    }
    best = 0.0;
    for (int i = no - 1; i >= 0; i--) { /* children before parents */
        int v = order[i];
        const ar_node *nd = &p->nodes[v];
        double d1 = -INFINITY, d2 = -INFINITY;
        for (int c = 0; c < nd->nchildren; c++) {
            int ch = nd->children[c];
            int up = p->nodes[ch].uplink;
            double l = down[ch] + (up >= 0 && up < p->nlinks ? p->links[up].lat_s : 0.0);
            if (l > d1) {
                d2 = d1;
                d1 = l;
            } else if (l > d2) {
                d2 = l;
            }
        }
        if (nd->kind == AR_NODE_GPU) {
            /* a GPU is a route end itself (normally a leaf) */
            down[v] = d1 > 0.0 ? d1 : 0.0;
            if (d1 > -INFINITY && d1 > best) best = d1;
        } else {
            down[v] = d1;
        }
        if (d2 > -INFINITY && d1 + d2 > best) best = d1 + d2;
    }
out:
    free(order);
    free(stack);
    free(down);
    return best;
}

/* ar_plat_alpha: the largest route latency between two ranks.
 *   - trees: the latency-weighted diameter over GPU leaves, from the tree
 *     structure in O(nodes) (routes in a tree go through the lowest common
 *     ancestor);
 *   - other kinds, P <= 128: max over all ordered pairs (exact);
 *   - other kinds, larger P: double sweep: u = the rank farthest from rank 0,
 *     then the max over routes from and to u (exact on symmetric tori; a lower
 *     bound in general).
 * Returns 0 for a single rank. */
double ar_plat_alpha(const ar_platform *p) {
    if (!p || p->nranks < 2) return 0.0;
    int P = p->nranks;
    if (plat_is_tree(p)) {
        double a = plat_tree_alpha(p);
        if (a >= 0.0) return a;
    }
    double a = 0.0;
    if (P <= AR_PLAT_EXACT_RANKS) {
        for (int u = 0; u < P; u++)
            for (int v = 0; v < P; v++)
                if (u != v) a = fmax(a, ar_platform_route_lat(p, u, v));
        return a;
    }
    int far = 0;
    for (int r = 1; r < P; r++) {
        double l = ar_platform_route_lat(p, 0, r);
        if (l > a) {
            a = l;
            far = r;
        }
    }
    for (int r = 0; r < P; r++) {
        a = fmax(a, ar_platform_route_lat(p, far, r));
        a = fmax(a, ar_platform_route_lat(p, r, far));
    }
    return a;
}

/* Ring all-reduce with c sub-chunks per step, a reduction cost and a launch
 * overhead, under per-rank dataflow with overlap (sim/fast_dataflow.c).
 *
 * Setting (the model's assumptions): P ranks, every step moves one sub-chunk
 * of N/(P c) bytes between neighbours in T = a + N/(P c W) (flat star: the two
 * links of a route carry one flow at a time), the receiver then reduces it in
 * g = gamma N/(P c) on its GPU, one reduction at a time in arrival order (a
 * FIFO stream); L = launch overhead per op (two ops: RS, AG). All ranks are
 * alike, so one rank's times describe all. Rounds of the reduce-scatter are
 * q = s c + j (step s = 0..P-2, sub-chunk j), K = (P-1) c of them:
 *   S(q) = max(E(q-1), R(q-c))   start: the rank finished round q-1's network
 *                                part; sub-chunk j of step s was reduced into
 *                                the sender at step s-1 (only for q >= c)
 *   E(q) = S(q) + T              network part ends
 *   R(q) = max(E(q), R(q-1)) + g the reduction (FIFO on the receiver's GPU)
 * A max-plus system: R(q) is its longest path. A path that visits m
 * reductions "vertically" (S -> E -> R -> S(q+c): T + g, advancing c rounds)
 * and spends its other advance on network rounds (T each) or GPU-queue steps
 * (g each) costs
 *   R(q) = max over m = 1 .. 1 + floor(q/c) of  m (T+g) + (q - c(m-1)) max(T,g),
 * linear in m, so the maximum is at an end: m = 1 for c >= 2 (c max(T,g) >=
 * T+g), m = q+1 for c = 1. Likewise the network end of the last RS round:
 *   E_rs = max(K T, max over m = 1 .. floor((K-1)/c) of T + m (T+g) + (K-1-cm) max(T,g)).
 * The all-gather copies (no reduction): its round q' starts after the rank's
 * previous round, after E_rs + L for q' = 0, and sub-chunk q' < c of its first
 * step needs R(K-c+q') at the sender; later steps only wait for copies that
 * arrived one round before, so
 *   E_ag(c-1) = max(E_rs + L + c T, max_j R(K-c+j) + (c-j) T),  j = 0..c-1,
 *   total     = L + E_ag(c-1) + (K - c) T  (the first op's launch first).
 * Checks: g = 0, L = 0: 2 (P-1) c T = 2 (P-1)(c a + N/(P W)) (Eq. 6 for c = 1);
 * c = 1: (P-1)(2T + g) (each RS step waits for the previous reduction);
 * c >= 2, g <= (c-1) T: 2 (P-1) c T (the reduction is hidden);
 * g > T, c >= 2: the GPU bounds the reduce-scatter: R(K-1) = T + K g (tests/sim/sim_pipeline.c). */
/* With host staging copies (compute.stage): d = the sub-chunk's device-to-host copy at the
 * sender (before the network part; the copy engine is free again by the time the next round
 * starts, so the network chain just takes T' = d + T per round) and h = its host-to-device copy
 * at the receiver, a FIFO like the reduction:
 *   H(q) = max(E(q), H(q-1)) + h,   R(q) = max(H(q), R(q-1)) + g,   data = R (RS), H (AG copies).
 * The same longest-path argument with A = T' + h + g per vertical (S -> E -> H -> R -> S(q+c))
 * and M = max(T', h, g) per round of any chain:
 *   R(q) = max over m in {1, 1 + floor(q/c)} of m A + (q - c(m-1)) M
 *   H(q) = max(T' + h + q max(T',h),  max over m = 1 .. floor(q/c) of T' + h + m A + (q - cm) M)
 *   E_rs = max(K T',  max over m = 1 .. floor((K-1)/c) of T' + m A + (K-1-cm) M)
 * The all-gather lands copies: its chains are E' (T') and H' (h), a vertical H'(q'-c) -> S'(q')
 * costs A2 = T' + h, M2 = max(T', h); its sources are S'(0) >= E_rs + L, S'(j) >= R(K-c+j) for
 * j < c, and H'(0) >= H_rs(K-1) + h (the receiver's copy engine is still busy with the RS):
 *   from S'(j) = X:   H'(K-1) >= X + max over m in {1, 1 + floor((K-1-j)/c)} of m A2 + (K-1-j-c(m-1)) M2
 *   from H'(0) = Y:   H'(K-1) >= Y + max((K-1) h, max over m = 1 .. floor((K-1)/c) of m A2 + (K-1-cm) M2)
 *   total = L + H'(K-1). With d = h = 0 this is the form above. */
static double lin_max(long long m1, long long m2, double base, double per_m, double rest, long long c, double M) {
    /* max over m in [m1, m2] of base + m per_m + (rest - c m) M: linear in m, so its ends */
    if (m2 < m1) return -INFINITY;
    double a = base + (double)m1 * per_m + (double)(rest - c * m1) * M;
    double b = base + (double)m2 * per_m + (double)(rest - c * m2) * M;
    return a > b ? a : b;
}

double ar_eq_ring_pipe_staged(int P, long long c, double T, double d, double h, double g, double L) {
    if (P <= 1 || c < 1) return 0.0;
    long long K = (long long)(P - 1) * c;
    double Tp = d + T, A = Tp + h + g, M = fmax(Tp, fmax(h, g)), A2 = Tp + h, M2 = fmax(Tp, h);
    /* R(q) = m A + (q - c(m-1)) M = 0 + m A + ((q + c) - c m) M */
#define RQ(q) lin_max(1, 1 + (q) / c, 0, A, (q) + c, c, M)
    double ers = fmax((double)K * Tp, lin_max(1, (K - 1) / c, Tp, A, K - 1, c, M));
    double hrs = fmax(Tp + h + (double)(K - 1) * M2, lin_max(1, (K - 1) / c, Tp + h, A, K - 1, c, M));
    double end = -INFINITY;
    for (long long j = 0; j < c; j++) {
        double X = RQ(K - c + j);
        if (j == 0) X = fmax(X, ers + L);
        double v = X + lin_max(1, 1 + (K - 1 - j) / c, 0, A2, K - 1 - j + c, c, M2);
        end = fmax(end, v);
    }
    double Y = hrs + h;
    end = fmax(end, Y + fmax((double)(K - 1) * h, lin_max(1, (K - 1) / c, 0, A2, K - 1, c, M2)));
#undef RQ
    return L + end;
}

static double ring_pipe_R(long long q, long long c, double T, double g) {
    double M = T > g ? T : g;
    long long m1 = 1, m2 = 1 + q / c;
    double a = (double)m1 * (T + g) + (double)(q - c * (m1 - 1)) * M;
    double b = (double)m2 * (T + g) + (double)(q - c * (m2 - 1)) * M;
    return a > b ? a : b;
}

double ar_eq_ring_pipe(int P, long long c, double T, double g, double L) {
    if (P <= 1 || c < 1) return 0.0;
    long long K = (long long)(P - 1) * c;
    double M = T > g ? T : g;
    double ers = (double)K * T;
    long long mmax = (K - 1) / c;
    for (long long m = 1; m <= mmax; m += mmax > 1 ? mmax - 1 : 1) { /* linear in m: its two ends */
        double v = T + (double)m * (T + g) + (double)(K - 1 - c * m) * M;
        if (v > ers) ers = v;
    }
    double eag = ers + L + (double)c * T;
    for (long long j = 0; j < c; j++) {
        double v = ring_pipe_R(K - c + j, c, T, g) + (double)(c - j) * T;
        if (v > eag) eag = v;
    }
    return L + eag + (double)(K - c) * T;
}
