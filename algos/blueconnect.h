/* BlueConnect decompositions (BlueConnect SysML 2019, Sec. 3, Eq. 8): the type,
 * the platform's default, the parameter parser and a printer. Shared by the
 * planner (algos/blueconnect.c), its closed-form models
 * (models/blueconnect_model.c) and `arlab best` (cli/cmd_best.c). Header-only
 * (static inline, no state) so that models/ and cli/ need not link algos/.
 *
 * A decomposition |P| = p0 p1 ... p(k-1) (every p_i > 1) gives each rank r
 * mixed-radix digits, p0 fastest: digit_i(r) = (r / Q_i) mod p_i with
 * Q_i = p0 ... p(i-1). Stage i works on the groups c(r, i) = the ranks that
 * differ from r only in digit i. Ranks are numbered machine-major, lowest
 * tree level first (platform.h), so the default decomposition - the
 * platform's own level fan-outs - puts stage i on level i (BlueConnect Fig. 4).
 *
 * Parameters (algorithm spec "blueconnect:key=value,..."):
 *   decomp=3x2x2      the factors p0 x p1 x ...; default: the platform's level
 *                     fan-outs that are > 1 (tree: GPUs per machine, machines
 *                     per switch, ...; torus: GPUs per machine, then the dims).
 *   order=2.0.1       the order in which the reduce-scatter stages run (the
 *                     all-gathers run in the reverse order); stage indices
 *                     separated by '.' (',' separates parameters), or written
 *                     as one digit string ("201") when there are <= 10 stages.
 *                     Default: 0.1.2... (bottom-up, Algorithm 1).
 *   impl=ring+hd+ring per-stage implementation, in stage-index order (not
 *                     execution order): ring (Eq. 1), hd (Eq. 2, recursive
 *                     halving/doubling, p_i must be a power of two) or auto
 *                     (Eq. 3: hd when p_i is a power of two, else ring). One
 *                     word (impl=ring) applies to every stage. Default auto.
 * Without decomp= on a platform with no symmetric hierarchy (nlevels == 0),
 * there is no decomposition: BlueConnect falls back to the one-level ring
 * (Sec. 3.4); `fallback` is set and the decomposition is the single stage P
 * (impl ring unless impl= says otherwise).
 */
#ifndef AR_ALGOS_BLUECONNECT_H
#define AR_ALGOS_BLUECONNECT_H

#include <stdio.h>
#include <string.h>

#include "core/params.h"
#include "core/platform.h"
#include "core/schedule.h"
#include "core/util.h"
#include "core/status.h"

#define AR_BC_MAX_STAGES 24 /* > log2(AR_MAX_RANKS): any factorization fits */

typedef struct ar_bc_decomp {
    int k;                          /* number of stages (0 only for a 1-rank platform) */
    int p[AR_BC_MAX_STAGES];        /* p_i: group size of stage i (digit i, p0 fastest) */
    int order[AR_BC_MAX_STAGES];    /* order[s] = stage index run s-th in the reduce-scatter */
    ar_impl impl[AR_BC_MAX_STAGES]; /* per stage index: AR_IMPL_RING or AR_IMPL_HD */
    int from_platform;              /* 1: decomp taken from the platform's levels */
    int fallback;                   /* 1: no decomposition exists: one-level ring */
} ar_bc_decomp;

/* Q_i = p0 ... p(i-1) (Q_0 = 1). */
static inline long long ar_bc_stride(const ar_bc_decomp *d, int i) {
    long long q = 1;
    for (int j = 0; j < i && j < d->k; j++)
        q *= d->p[j];
    return q;
}

/* The platform's own decomposition: its level fan-outs > 1, lowest first.
 * Returns 1 if the platform has one (symmetric hierarchy, or a single rank),
 * 0 if not (d is then the fallback: one stage of P, ring). */
static inline int ar_bc_default(const ar_platform *p, ar_bc_decomp *d) {
    memset(d, 0, sizeof *d);
    if (p->nranks <= 1)
        return 1; /* k = 0: nothing to do */
    long long prod = 1;
    for (int l = 0; l < p->nlevels && d->k < AR_BC_MAX_STAGES; l++)
        if (p->levels[l].fanout > 1) {
            d->p[d->k++] = p->levels[l].fanout;
            prod *= p->levels[l].fanout;
        }
    if (p->nlevels > 0 && d->k > 0 && prod == p->nranks) {
        for (int i = 0; i < d->k; i++) {
            d->order[i] = i;
            d->impl[i] = ar_is_pow2(d->p[i]) ? AR_IMPL_HD : AR_IMPL_RING;
        }
        d->from_platform = 1;
        return 1;
    }
    memset(d, 0, sizeof *d);
    d->k = 1;
    d->p[0] = p->nranks;
    d->impl[0] = AR_IMPL_RING;
    d->fallback = 1;
    return 0;
}

/* Parses a non-negative decimal integer token [s, s+len); -1 if malformed. */
static inline long long ar_bc_token(const char *s, size_t len) {
    if (len == 0 || len > 9)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static inline ar_status ar_bc_parse_decomp(const ar_platform *p, const char *s, ar_bc_decomp *d, ar_err *e) {
    const char *pname = p->name ? p->name : "?";
    long long prod = 1;
    d->k = 0;
    for (const char *t = s;;) {
        const char *x = strchr(t, 'x');
        size_t len = x ? (size_t)(x - t) : strlen(t);
        long long v = ar_bc_token(t, len);
        if (v < 0)
            return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s: \"%.*s\" is not a positive integer (write e.g. decomp=3x2x2)",
                           s, (int)(len > 16 ? 16 : len), t);
        if (v == 1)
            return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s: factor 1 at stage %d (every p_i must be > 1, Eq. 8)", s,
                           d->k);
        if (v == 0 || d->k == AR_BC_MAX_STAGES)
            return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s: %s", s,
                           v ? "too many factors" : "factor 0 (every p_i must be > 1, Eq. 8)");
        d->p[d->k++] = (int)(v > AR_MAX_RANKS ? AR_MAX_RANKS : v);
        prod = prod > (1LL << 40) / v ? (1LL << 40) : prod * v; /* saturates: only compared with P */
        if (!x)
            break;
        t = x + 1;
    }
    if (prod != p->nranks)
        return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s multiplies to %s%lld, but platform '%s' has %d ranks", s,
                       prod == (1LL << 40) ? "more than " : "", prod, pname, p->nranks);
    return AR_OK;
}

static inline ar_status ar_bc_parse_order(const char *s, ar_bc_decomp *d, ar_err *e) {
    int n = 0, ok = 1, seen[AR_BC_MAX_STAGES] = {0}, ord[AR_BC_MAX_STAGES];
    if (!strchr(s, '.') && strlen(s) == (size_t)d->k && d->k <= 10) {
        for (n = 0; n < d->k; n++)
            ord[n] = s[n] >= '0' && s[n] <= '9' ? s[n] - '0' : -1;
    } else {
        for (const char *t = s; ok;) {
            const char *dot = strchr(t, '.');
            size_t len = dot ? (size_t)(dot - t) : strlen(t);
            long long v = ar_bc_token(t, len);
            if (n == AR_BC_MAX_STAGES)
                ok = 0;
            else
                ord[n++] = v >= 0 && v < AR_BC_MAX_STAGES ? (int)v : -1;
            if (!dot)
                break;
            t = dot + 1;
        }
    }
    ok = ok && n == d->k;
    for (int i = 0; ok && i < n; i++) {
        if (ord[i] < 0 || ord[i] >= d->k || seen[ord[i]])
            ok = 0;
        else
            seen[ord[i]] = 1;
    }
    if (!ok)
        return ar_fail(e, AR_EINVAL,
                       "blueconnect: order=%s is not a permutation of the %d stage indices 0..%d "
                       "(write them separated by '.', e.g. order=%s)",
                       s, d->k, d->k - 1, d->k >= 3 ? "2.0.1" : d->k == 2 ? "1.0" : "0");
    memcpy(d->order, ord, (size_t)n * sizeof ord[0]);
    return AR_OK;
}

/* impl=auto|ring|hd or a '+' list of them, one per stage. */
static inline ar_status ar_bc_parse_impl(const char *s, int fallback, ar_bc_decomp *d, ar_err *e) {
    char word[AR_BC_MAX_STAGES][8];
    int n = 0;
    for (const char *t = s;;) {
        const char *plus = strchr(t, '+');
        size_t len = plus ? (size_t)(plus - t) : strlen(t);
        if (n < AR_BC_MAX_STAGES && len < sizeof word[0]) {
            memcpy(word[n], t, len);
            word[n][len] = '\0';
        }
        if (n == AR_BC_MAX_STAGES || len >= sizeof word[0] ||
            (strcmp(word[n], "ring") && strcmp(word[n], "hd") && strcmp(word[n], "auto")))
            return ar_fail(e, AR_EINVAL, "blueconnect: impl=%s: \"%.*s\" is not ring, hd or auto (write e.g. impl=ring+hd+hd)",
                           s, (int)(len > 16 ? 16 : len), t);
        n++;
        if (!plus)
            break;
        t = plus + 1;
    }
    if (n != 1 && n != d->k)
        return ar_fail(e, AR_EINVAL, "blueconnect: impl=%s has %d entries for %d stages (give one, or one per stage)", s,
                       n, d->k);
    for (int i = 0; i < d->k; i++) {
        const char *w = word[n == 1 ? 0 : i];
        if (!strcmp(w, "auto"))
            d->impl[i] = !fallback && ar_is_pow2(d->p[i]) ? AR_IMPL_HD : AR_IMPL_RING;
        else if (!strcmp(w, "hd")) {
            if (!ar_is_pow2(d->p[i]))
                return ar_fail(e, AR_EUNSUPPORTED,
                               "blueconnect: impl=%s: halving/doubling at stage %d needs a power-of-two group (p%d=%d)",
                               s, i, i, d->p[i]);
            d->impl[i] = AR_IMPL_HD;
        } else
            d->impl[i] = AR_IMPL_RING;
    }
    return AR_OK;
}

/* Reads decomp=, order=, impl= from params (may be NULL) for platform p. */
static inline ar_status ar_bc_parse(const ar_platform *p, ar_params *params, ar_bc_decomp *d, ar_err *e) {
    const char *ds = NULL, *os = NULL, *is = NULL;
    if (params) {
        ar_params_get_str(params, "decomp", &ds);
        ar_params_get_str(params, "order", &os);
        ar_params_get_str(params, "impl", &is);
    }
    ar_bc_default(p, d);
    if (ds) {
        memset(d, 0, sizeof *d);
        ar_status st = ar_bc_parse_decomp(p, ds, d, e);
        if (st != AR_OK)
            return st;
        for (int i = 0; i < d->k; i++) {
            d->order[i] = i;
            d->impl[i] = ar_is_pow2(d->p[i]) ? AR_IMPL_HD : AR_IMPL_RING;
        }
    }
    if (os) {
        ar_status st = ar_bc_parse_order(os, d, e);
        if (st != AR_OK)
            return st;
    }
    if (is) {
        ar_status st = ar_bc_parse_impl(is, d->fallback, d, e);
        if (st != AR_OK)
            return st;
    }
    return AR_OK;
}

/* "decomp=3x2x2,order=0.1.2,impl=ring+hd+hd" (a valid parameter list) into buf. */
static inline char *ar_bc_format(const ar_bc_decomp *d, char *buf, size_t n) {
    size_t u = 0;
    buf[0] = '\0';
#define AR_BC_PUT(...)                                              \
    do {                                                            \
        if (u < n) {                                                \
            int w_ = snprintf(buf + u, n - u, __VA_ARGS__);         \
            u = w_ < 0 ? n : u + (size_t)w_;                        \
        }                                                           \
    } while (0)
    AR_BC_PUT("decomp=");
    for (int i = 0; i < d->k; i++)
        AR_BC_PUT("%s%d", i ? "x" : "", d->p[i]);
    AR_BC_PUT(",order=");
    for (int i = 0; i < d->k; i++)
        AR_BC_PUT("%s%d", i ? "." : "", d->order[i]);
    AR_BC_PUT(",impl=");
    for (int i = 0; i < d->k; i++)
        AR_BC_PUT("%s%s", i ? "+" : "", d->impl[i] == AR_IMPL_HD ? "hd" : "ring");
#undef AR_BC_PUT
    if (d->k == 0)
        snprintf(buf, n, "single rank");
    return buf;
}

#endif
