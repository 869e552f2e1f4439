/* BlueConnect's decomposition search (blueconnect.h, BlueConnect Sec. 3.2.1),
 * the descriptor's `search` for ar_algo_rank (`arlab best`).
 *
 *   decompositions: the platform's level fan-outs f_0 .. f_{m-1} (those > 1)
 *     cut into runs of consecutive levels; a run of one level becomes one
 *     stage or is split into an ordered factorization of its fan-out (16 ->
 *     2x8, 4x4, 2x2x4, ...); a run of several levels is merged into one stage
 *     (their product). Factors that straddle a level boundary are not tried.
 *   orders: all k! stage orders when k <= 4, else bottom-up and top-down;
 *   implementations: ring, or hd on power-of-two stages > 2 (for p = 2 both
 *     are the same single exchange): all 2^h mixes when h <= 4, else all-ring
 *     and all-hd.
 *   Caps: BC_MAX_DECOMPS decompositions, BC_MAX_VARIANTS variants, and a
 *   walk budget of BC_WALK_WORK ranks x rounds: the platform's default is
 *   walked first, then the variants with an Eq. 9/10 closed form in order of
 *   it (best first) alternating with the others; the note line counts what
 *   was left out or not walked.
 * On a platform with no symmetric hierarchy there is no decomposition: the
 * search says so (AR_EUNSUPPORTED) and BlueConnect is ranked as its
 * one-level-ring fallback.
 * Ownership: candidates and notes go to the caller's ar_ranking. No state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blueconnect.h"
#include "core/algo.h"
#include "core/util.h"
#include "models/model.h"

#define BC_MAX_DECOMPS 64
#define BC_MAX_VARIANTS 2048
#define BC_WALK_WORK 3e7 /* ranks x rounds walked for BlueConnect variants (a few seconds) */

typedef struct decomps {
    ar_bc_decomp v[BC_MAX_DECOMPS];
    int n, truncated; /* truncated: more exist than the cap (enumeration stopped) */
} decomps;

static void add_decomp(decomps *D, const int *f, int k) {
    if (D->n == BC_MAX_DECOMPS) {
        D->truncated = 1;
        return;
    }
    ar_bc_decomp *d = &D->v[D->n++];
    memset(d, 0, sizeof *d);
    d->k = k;
    for (int i = 0; i < k; i++) {
        d->p[i] = f[i];
        d->order[i] = i;
        d->impl[i] = AR_IMPL_RING;
    }
}

static void enum_runs(const int *fan, int m, int pos, int *cur, int k, decomps *D);

/* Ordered factorizations of n (factors > 1; n itself first) appended to cur,
 * each followed by the next runs. Stops once the cap is reached. */
static void enum_split(const int *fan, int m, int pos, long long n, int *cur, int k, decomps *D) {
    if (k >= AR_BC_MAX_STAGES) return;
    cur[k] = (int)n;
    enum_runs(fan, m, pos + 1, cur, k + 1, D);
    for (long long a = 2; a < n && !D->truncated; a++) {
        if (n % a) continue;
        cur[k] = (int)a;
        enum_split(fan, m, pos, n / a, cur, k + 1, D);
    }
}

static void enum_runs(const int *fan, int m, int pos, int *cur, int k, decomps *D) {
    if (D->truncated) return;
    if (pos == m) {
        add_decomp(D, cur, k);
        return;
    }
    if (k >= AR_BC_MAX_STAGES) return;
    enum_split(fan, m, pos, fan[pos], cur, k, D); /* one level: itself or split */
    long long prod = fan[pos];
    for (int q = pos + 1; q < m && !D->truncated; q++) { /* levels pos..q merged */
        prod *= fan[q];
        cur[k] = (int)prod;
        enum_runs(fan, m, q + 1, cur, k + 1, D);
    }
}

static int next_perm(int *a, int n) {
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1]) i--;
    if (i < 0) return 0;
    int j = n - 1;
    while (a[j] <= a[i]) j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

/* One BlueConnect variant: a decomposition with an order and an impl mix. */
typedef struct variant {
    ar_bc_decomp d;
    double closed_s; /* Eq. 9/10, NaN where it does not apply */
    double work;     /* walk cost estimate: ranks x rounds */
    int is_default;
} variant;

/* Appends every order and ring/hd mix of decomposition d to v (cap
 * BC_MAX_VARIANTS; the rest counted in *left_out). hd is tried only where
 * p_i is a power of two > 2 (for p_i = 2 it is the ring's single exchange). */
static void gen_variants(ar_bc_decomp d, variant *v, int *n, int *left_out) {
    int k = d.k, hdable[AR_BC_MAX_STAGES], h = 0, perm[AR_BC_MAX_STAGES];
    for (int i = 0; i < k; i++) {
        perm[i] = i;
        if (ar_is_pow2(d.p[i]) && d.p[i] > 2) hdable[h++] = i;
    }
    int all_orders = k <= 4, nmask = h <= 4 ? 1 << h : 2;
    for (int o = 0;; o++) {
        if (!all_orders && o == 1)
            for (int i = 0; i < k; i++) perm[i] = k - 1 - i; /* top-down */
        if (!all_orders && o == 2) break;
        memcpy(d.order, perm, sizeof perm);
        for (int mask = 0; mask < nmask; mask++) {
            for (int i = 0; i < k; i++) d.impl[i] = AR_IMPL_RING;
            for (int j = 0; j < h; j++)
                if (h <= 4 ? (mask >> j & 1) : mask == 1) d.impl[hdable[j]] = AR_IMPL_HD;
            if (*n >= BC_MAX_VARIANTS) {
                (*left_out)++;
                continue;
            }
            memset(&v[*n], 0, sizeof v[*n]);
            v[(*n)++].d = d;
        }
        if (all_orders && !next_perm(perm, k)) break;
    }
}

/* Same schedule as the default decomposition (p=2 stages: ring == hd). */
static int same_as_default(const ar_bc_decomp *a, const ar_bc_decomp *b) {
    if (a->k != b->k) return 0;
    for (int i = 0; i < a->k; i++) /* only the first k entries are set */
        if (a->p[i] != b->p[i] || a->order[i] != b->order[i] || (a->p[i] > 2 && a->impl[i] != b->impl[i])) return 0;
    return 1;
}

/* Enumerates the variants, prices each with Eq. 9/10 (cheap), then walks them
 * within BC_WALK_WORK: the default first, then the aligned variants by
 * their closed form (best first) alternating with the others (no closed form)
 * in enumeration order. Variants left unwalked are counted in *unwalked. */
static ar_status bc_variants(const ar_platform *p, uint64_t count, size_t eb, const ar_bc_decomp *dflt, ar_ranking *c,
                             int *ndecomp, int *truncated, int *left_out, int *nvariants, int *unwalked, ar_err *e) {
    int fan[AR_MAX_LEVELS], m = 0, cur[AR_BC_MAX_STAGES], n = 0;
    for (int l = 0; l < p->nlevels; l++)
        if (p->levels[l].fanout > 1) fan[m++] = p->levels[l].fanout;
    decomps D; /* ~20 KB */
    memset(&D, 0, sizeof D);
    enum_runs(fan, m, 0, cur, 0, &D);
    variant *v = ar_calloc(BC_MAX_VARIANTS, sizeof *v);
    int *order = ar_calloc(BC_MAX_VARIANTS, sizeof *order);
    if (!v || !order) {
        free(v);
        free(order);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int i = 0; i < D.n; i++) gen_variants(D.v[i], v, &n, left_out);
    *ndecomp = D.n;
    *truncated = D.truncated;
    *nvariants = n;
    int na = 0, nb = 0, def = -1;
    for (int i = 0; i < n; i++) {
        ar_model_result mr;
        ar_err e1 = {{0}};
        v[i].closed_s = ar_model_bc_decomp(p, (double)count * (double)eb, &v[i].d, &mr, &e1) == AR_OK ? mr.time_s : NAN;
        v[i].work = 0;
        for (int k = 0; k < v[i].d.k; k++)
            v[i].work += 2.0 * p->nranks * (v[i].d.impl[k] == AR_IMPL_HD ? ar_lg_steps(v[i].d.p[k]) : v[i].d.p[k] - 1);
        v[i].is_default = same_as_default(&v[i].d, dflt);
        if (v[i].is_default && def < 0) {
            def = i;
            v[i].d = *dflt; /* the planner's own default (hd also on p = 2 stages: the same exchange) */
        }
    }
    /* aligned ones (closed form) sorted by it into order[0..na), the others after */
    for (int i = 0; i < n; i++)
        if (!isnan(v[i].closed_s) && i != def) order[na++] = i;
    for (int i = 1; i < na; i++)
        for (int j = i; j > 0 && v[order[j]].closed_s < v[order[j - 1]].closed_s; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        if (isnan(v[i].closed_s) && i != def) order[na + nb++] = i;
    double work = 0;
    ar_status st = AR_OK;
    for (int a = 0, b = 0, turn = -1; st == AR_OK && (turn < 0 || a < na || b < nb); turn++) {
        int i = turn < 0 ? def : (turn % 2 == 0 && a < na) || b >= nb ? order[a++] : order[na + b++];
        if (i < 0) continue;
        if (work > BC_WALK_WORK && !v[i].is_default) {
            (*unwalked)++;
            continue;
        }
        work += v[i].work;
        char params[200];
        ar_bc_format(&v[i].d, params, sizeof params);
        ar_rank_cand *x = NULL;
        st = ar_rank_eval(p, count, eb, "blueconnect", params, c, &x, e);
        if (x) x->is_default = v[i].is_default;
    }
    free(v);
    free(order);
    return st;
}

ar_status ar_bc_search(const ar_platform *p, uint64_t count, size_t elem_bytes, ar_ranking *r, ar_err *e) {
    ar_bc_decomp dflt;
    int has_decomp = ar_bc_default(p, &dflt) && dflt.k > 0;
    if (!has_decomp)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "blueconnect: platform '%s' has no symmetric decomposition (Eq. 8): BlueConnect falls back to "
                       "the one-level ring (Sec. 3.4)",
                       p->name);
    if (!r) return AR_OK;
    int ndecomp = 0, truncated = 0, left_out = 0, nvariants = 0, unwalked = 0;
    ar_status st = bc_variants(p, count, elem_bytes, &dflt, r, &ndecomp, &truncated, &left_out, &nvariants, &unwalked,
                               e);
    if (st != AR_OK) return st;
    char line[1024];
    size_t u = 0;
#define BC_PUT(...)                                                                     \
    do {                                                                                \
        int w_ = snprintf(line + u, sizeof line - u, __VA_ARGS__);                      \
        u = w_ < 0 || (size_t)w_ >= sizeof line - u ? sizeof line - 1 : u + (size_t)w_; \
    } while (0)
    BC_PUT("blueconnect: %d variants: %d decompositions of the levels", nvariants, ndecomp);
    for (int l = 0; l < p->nlevels; l++)
        if (p->levels[l].fanout > 1) BC_PUT(" %d", p->levels[l].fanout);
    BC_PUT(" (each level whole or split, adjacent levels merged) x stage orders x ring/hd mixes");
    if (truncated) BC_PUT("; more decompositions exist (cap %d)", BC_MAX_DECOMPS);
    if (left_out) BC_PUT("; %d orders/mixes left out (cap %d variants)", left_out, BC_MAX_VARIANTS);
    if (unwalked)
        BC_PUT("; %d not walked (walk budget %.0e rank-rounds; the aligned ones are the worst by Eq. 9)", unwalked,
               BC_WALK_WORK);
#undef BC_PUT
    return ar_rank_note(r, "%s", line);
}
