/* BlueConnect decompositions (blueconnect.h): the platform's default, the
 * semantic checks of decomp=/order=/impl= (their syntax is checked by the
 * generic parser from the descriptor's table) and the printer. No state. */
#include <stdio.h>
#include <string.h>

#include "blueconnect.h"
#include "core/util.h"

long long ar_bc_stride(const ar_bc_decomp *d, int i) {
    long long q = 1;
    for (int j = 0; j < i && j < d->k; j++) q *= d->p[j];
    return q;
}

int ar_bc_default(const ar_platform *p, ar_bc_decomp *d) {
    memset(d, 0, sizeof *d);
    if (p->nranks <= 1) return 1; /* k = 0: nothing to do */
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
static long long bc_token(const char *s, size_t len) {
    if (len == 0 || len > 9) return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static ar_status bc_parse_decomp(const ar_platform *p, const char *s, ar_bc_decomp *d, ar_err *e) {
    const char *pname = p->name ? p->name : "?";
    long long prod = 1;
    d->k = 0;
    for (const char *t = s;;) {
        const char *x = strchr(t, 'x');
        size_t len = x ? (size_t)(x - t) : strlen(t);
        long long v = bc_token(t, len);
        if (v < 0)
            return ar_fail(e, AR_EINVAL,
                           "blueconnect: decomp=%s: \"%.*s\" is not a positive integer (write e.g. decomp=3x2x2)", s,
                           (int)(len > 16 ? 16 : len), t);
        if (v == 1)
            return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s: factor 1 at stage %d (every p_i must be > 1, Eq. 8)",
                           s, d->k);
        if (v == 0 || d->k == AR_BC_MAX_STAGES)
            return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s: %s", s,
                           v ? "too many factors" : "factor 0 (every p_i must be > 1, Eq. 8)");
        d->p[d->k++] = (int)(v > AR_MAX_RANKS ? AR_MAX_RANKS : v);
        prod = prod > (1LL << 40) / v ? (1LL << 40) : prod * v; /* saturates: only compared with P */
        if (!x) break;
        t = x + 1;
    }
    if (prod != p->nranks)
        return ar_fail(e, AR_EINVAL, "blueconnect: decomp=%s multiplies to %s%lld, but platform '%s' has %d ranks", s,
                       prod == (1LL << 40) ? "more than " : "", prod, pname, p->nranks);
    return AR_OK;
}

static ar_status bc_parse_order(const char *s, ar_bc_decomp *d, ar_err *e) {
    int n = 0, ok = 1, seen[AR_BC_MAX_STAGES] = {0}, ord[AR_BC_MAX_STAGES];
    if (!strchr(s, '.') && strlen(s) == (size_t)d->k && d->k <= 10) {
        for (n = 0; n < d->k; n++) ord[n] = s[n] >= '0' && s[n] <= '9' ? s[n] - '0' : -1;
    } else {
        for (const char *t = s; ok;) {
            const char *dot = strchr(t, '.');
            size_t len = dot ? (size_t)(dot - t) : strlen(t);
            long long v = bc_token(t, len);
            if (n == AR_BC_MAX_STAGES) ok = 0;
            else ord[n++] = v >= 0 && v < AR_BC_MAX_STAGES ? (int)v : -1;
            if (!dot) break;
            t = dot + 1;
        }
    }
    ok = ok && n == d->k;
    for (int i = 0; ok && i < n; i++) {
        if (ord[i] < 0 || ord[i] >= d->k || seen[ord[i]]) ok = 0;
        else seen[ord[i]] = 1;
    }
    if (!ok)
        return ar_fail(e, AR_EINVAL,
                       "blueconnect: order=%s is not a permutation of the %d stage indices 0..%d "
                       "(write them separated by '.', e.g. order=%s)",
                       s, d->k, d->k - 1,
                       d->k >= 3   ? "2.0.1"
                       : d->k == 2 ? "1.0"
                                   : "0");
    memcpy(d->order, ord, (size_t)n * sizeof ord[0]);
    return AR_OK;
}

/* impl=auto|ring|hd or a '+' list of them, one per stage. */
static ar_status bc_parse_impl(const char *s, int fallback, ar_bc_decomp *d, ar_err *e) {
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
            return ar_fail(e, AR_EINVAL,
                           "blueconnect: impl=%s: \"%.*s\" is not ring, hd or auto (write e.g. impl=ring+hd+hd)", s,
                           (int)(len > 16 ? 16 : len), t);
        n++;
        if (!plus) break;
        t = plus + 1;
    }
    if (n != 1 && n != d->k)
        return ar_fail(e, AR_EINVAL, "blueconnect: impl=%s has %d entries for %d stages (give one, or one per stage)",
                       s, n, d->k);
    for (int i = 0; i < d->k; i++) {
        const char *w = word[n == 1 ? 0 : i];
        if (!strcmp(w, "auto")) d->impl[i] = !fallback && ar_is_pow2(d->p[i]) ? AR_IMPL_HD : AR_IMPL_RING;
        else if (!strcmp(w, "hd")) {
            if (!ar_is_pow2(d->p[i]))
                return ar_fail(e, AR_EUNSUPPORTED,
                               "blueconnect: impl=%s: halving/doubling at stage %d needs a power-of-two group (p%d=%d)",
                               s, i, i, d->p[i]);
            d->impl[i] = AR_IMPL_HD;
        } else d->impl[i] = AR_IMPL_RING;
    }
    return AR_OK;
}

ar_status ar_bc_parse(const ar_platform *p, const ar_param_val *v, ar_bc_decomp *d, ar_err *e) {
    const char *ds = NULL, *os = NULL, *is = NULL;
    if (v) {
        ds = v[AR_BC_P_DECOMP].given ? v[AR_BC_P_DECOMP].s : NULL;
        os = v[AR_BC_P_ORDER].given ? v[AR_BC_P_ORDER].s : NULL;
        is = v[AR_BC_P_IMPL].given ? v[AR_BC_P_IMPL].s : NULL;
    }
    ar_bc_default(p, d);
    if (ds) {
        memset(d, 0, sizeof *d);
        ar_status st = bc_parse_decomp(p, ds, d, e);
        if (st != AR_OK) return st;
        for (int i = 0; i < d->k; i++) {
            d->order[i] = i;
            d->impl[i] = ar_is_pow2(d->p[i]) ? AR_IMPL_HD : AR_IMPL_RING;
        }
    }
    if (os) {
        ar_status st = bc_parse_order(os, d, e);
        if (st != AR_OK) return st;
    }
    if (is) {
        ar_status st = bc_parse_impl(is, d->fallback, d, e);
        if (st != AR_OK) return st;
    }
    return AR_OK;
}

char *ar_bc_format(const ar_bc_decomp *d, char *buf, size_t n) {
    size_t u = 0;
    buf[0] = '\0';
#define AR_BC_PUT(...)                                      \
    do {                                                    \
        if (u < n) {                                        \
            int w_ = snprintf(buf + u, n - u, __VA_ARGS__); \
            u = w_ < 0 ? n : u + (size_t)w_;                \
        }                                                   \
    } while (0)
    AR_BC_PUT("decomp=");
    for (int i = 0; i < d->k; i++) AR_BC_PUT("%s%d", i ? "x" : "", d->p[i]);
    AR_BC_PUT(",order=");
    for (int i = 0; i < d->k; i++) AR_BC_PUT("%s%d", i ? "." : "", d->order[i]);
    AR_BC_PUT(",impl=");
    for (int i = 0; i < d->k; i++) AR_BC_PUT("%s%s", i ? "+" : "", d->impl[i] == AR_IMPL_HD ? "hd" : "ring");
#undef AR_BC_PUT
    if (d->k == 0) snprintf(buf, n, "single rank");
    return buf;
}
