/* Parsing and printing of sizes, rates and times (see units.h).
 *
 * Numbers are scanned by hand (digits, optional fraction, optional exponent;
 * no sign, no hex, no inf/nan, no whitespace) into an exact decimal mantissa
 * and exponent, so that sizes are computed in exact integer arithmetic and
 * rates/times with a single rounding ("5us" == 5e-6, "100Gbps" == 12.5e9). */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- number scanning ---- */

typedef struct num10 {
    uint64_t mant; /* significant digits (at most 19) */
    long exp10;    /* value = mant * 10^exp10 */
    int inexact;   /* nonzero digits beyond the 19 kept were dropped */
    int neg;       /* a leading '-' was seen */
    const char *end;
} num10;

/* Scans a number at s. Returns 0 if s does not start with one. */
static int num_scan(const char *s, num10 *n) {
    memset(n, 0, sizeof *n);
    const char *p = s;
    if (*p == '-') {
        n->neg = 1;
        p++;
    }
    int ndig = 0, kept = 0;
    for (; *p >= '0' && *p <= '9'; p++, ndig++) {
        int d = *p - '0';
        if (kept == 0 && d == 0) continue;
        if (kept < 19) {
            n->mant = n->mant * 10 + (uint64_t)d;
            kept++;
        } else {
            n->exp10++;
            if (d) n->inexact = 1;
        }
    }
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, ndig++) {
            int d = *p - '0';
            if (kept == 0 && d == 0) {
                n->exp10--;
                continue;
            }
            if (kept < 19) {
                n->mant = n->mant * 10 + (uint64_t)d;
                n->exp10--;
                kept++;
            } else if (d) {
                n->inexact = 1;
            }
        }
    }
    if (ndig == 0) return 0;
    if ((*p == 'e' || *p == 'E') &&
        ((p[1] >= '0' && p[1] <= '9') || ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
        p++;
        int sign = 1;
        if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
        long x = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        n->exp10 += sign * x;
    }
    if (n->mant == 0) n->exp10 = 0;
    n->end = p;
    return 1;
}

static double pow10_exact(long k) {
    static const double t[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (k >= 0 && k <= 22) return t[k];
    return pow(10.0, (double)k);
}

/* mant * 10^e10 * 2^e2 as a double with (for |e10| <= 22) a single rounding. */
static double num_value(uint64_t mant, long e10, int e2) {
    double v = ldexp((double)mant, e2);
    if (e10 >= 0) return v * pow10_exact(e10);
    if (e10 >= -22) return v / pow10_exact(-e10);
    return v * pow(10.0, (double)e10);
}

/* SI / binary prefix at *pp: sets *e10 (powers of ten) or *e2 (powers of two)
 * and advances. Returns 1 if a prefix was consumed. */
static int prefix_scan(const char **pp, long *e10, int *e2) {
    static const char pre[] = "kKMGTP";
    static const int pow3[] = {1, 1, 2, 3, 4, 5};
    const char *p = *pp;
    const char *hit = *p ? strchr(pre, *p) : NULL;
    if (!hit) return 0;
    int k = pow3[hit - pre];
    if (p[1] == 'i') {
        *e2 += 10 * k;
        *pp = p + 2;
    } else {
        *e10 += 3 * k;
        *pp = p + 1;
    }
    return 1;
}

/* ---- dtypes ---- */

ar_status ar_dtype_parse(const char *s, ar_dtype *out, ar_err *e) {
    static const struct {
        const char *name;
        ar_dtype t;
    } tab[] = {{"f32", AR_DTYPE_F32},       {"float", AR_DTYPE_F32}, {"float32", AR_DTYPE_F32},
               {"fp32", AR_DTYPE_F32},      {"f16", AR_DTYPE_F16},   {"half", AR_DTYPE_F16},
               {"float16", AR_DTYPE_F16},   {"fp16", AR_DTYPE_F16},  {"bf16", AR_DTYPE_BF16},
               {"bfloat16", AR_DTYPE_BF16}, {"f64", AR_DTYPE_F64},   {"double", AR_DTYPE_F64},
               {"float64", AR_DTYPE_F64},   {"fp64", AR_DTYPE_F64},  {"i32", AR_DTYPE_I32},
               {"int", AR_DTYPE_I32},       {"int32", AR_DTYPE_I32}};
    char q[96];
    if (!s) return ar_fail(e, AR_EINVAL, "missing data type (use f32, f16, bf16, f64 or i32)");
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].name) == 0) {
            if (out) *out = tab[i].t;
            return AR_OK;
        }
    return ar_fail(e, AR_EINVAL, "%s is not a data type (use f32, f16, bf16, f64 or i32)", ar_quote(s, q, sizeof q));
}

const char *ar_dtype_name(ar_dtype t) {
    switch (t) {
    case AR_DTYPE_F32: return "f32";
    case AR_DTYPE_F16: return "f16";
    case AR_DTYPE_BF16: return "bf16";
    case AR_DTYPE_F64: return "f64";
    case AR_DTYPE_I32: return "i32";
    }
    return "?";
}

size_t ar_dtype_size(ar_dtype t) {
    switch (t) {
    case AR_DTYPE_F32: return 4;
    case AR_DTYPE_F16: return 2;
    case AR_DTYPE_BF16: return 2;
    case AR_DTYPE_F64: return 8;
    case AR_DTYPE_I32: return 4;
    }
    return 0;
}

/* ---- exact integers ---- */

/* value = mant * 10^e10 * 2^e2 as an exact integer <= cap.
 * Returns 0 ok, 1 not a whole number, 2 larger than cap. mant > 0. */
static int exact_int(uint64_t mant, long e10, int e2, uint64_t cap, uint64_t *out) {
    while (mant % 10 == 0) {
        mant /= 10;
        e10++;
    }
    if (e10 < 0) {
        long m = -e10;
        if (m > 27) return 1; /* 5^28 > 2^64 > mant */
        for (long i = 0; i < m; i++) {
            if (mant % 5) return 1;
            mant /= 5;
        }
        e2 -= (int)m;
        while (e2 < 0 && mant % 2 == 0) {
            mant /= 2;
            e2++;
        }
        if (e2 < 0) return 1;
        e10 = 0;
    }
    uint64_t v = mant;
    for (long i = 0; i < e10; i++) {
        if (v > cap / 10) return 2;
        v *= 10;
    }
    for (int i = 0; i < e2; i++) {
        if (v > cap / 2) return 2;
        v *= 2;
    }
    if (v > cap) return 2;
    *out = v;
    return 0;
}

/* ---- sizes ---- */

#define SIZE_HINT "use e.g. 100MB, 1GiB, 120M (elements), 4096"

ar_status ar_parse_size(const char *s, size_t elem_bytes, uint64_t *elems, ar_err *e) {
    char q[96];
    if (!s || !*s) return ar_fail(e, AR_EINVAL, "empty size (" SIZE_HINT ")");
    if (elem_bytes == 0 || elem_bytes > 64)
        return ar_fail(e, AR_EINTERNAL, "element size %zu is not valid", elem_bytes);
    ar_quote(s, q, sizeof q);
    num10 n;
    if (!num_scan(s, &n)) return ar_fail(e, AR_EINVAL, "%s is not a size (" SIZE_HINT ")", q);
    long e10 = n.exp10;
    int e2 = 0, bytes = 0;
    const char *p = n.end;
    prefix_scan(&p, &e10, &e2);
    if (*p == 'B') {
        bytes = 1;
        p++;
    }
    if (*p) return ar_fail(e, AR_EINVAL, "%s is not a size (" SIZE_HINT ")", q);
    if (n.neg) return ar_fail(e, AR_EINVAL, "%s: a size must be positive", q);
    if (n.mant == 0) return ar_fail(e, AR_EINVAL, "%s: a size must be positive", q);
    if (n.inexact) return ar_fail(e, AR_EINVAL, "%s: too many significant digits", q);
    uint64_t v = 0;
    uint64_t cap = bytes ? AR_MAX_BYTES : AR_MAX_BYTES / elem_bytes;
    int r = exact_int(n.mant, e10, e2, cap, &v);
    if (r == 1) return ar_fail(e, AR_EINVAL, "%s is not a whole number of %s", q, bytes ? "bytes" : "elements");
    if (r == 2) return ar_fail(e, AR_ELIMIT, "%s is too large (the limit is 1 PiB)", q);
    if (bytes) {
        if (v % elem_bytes)
            return ar_fail(e, AR_EINVAL, "%s is not a whole number of %zu-byte elements", q, elem_bytes);
        v /= elem_bytes;
    }
    if (elems) *elems = v;
    return AR_OK;
}

/* ---- rates ---- */

#define RATE_HINT "use e.g. 12.5GBps, 100Gbps"

ar_status ar_parse_rate(const char *s, double *bw_Bps, ar_err *e) {
    char q[96];
    if (!s || !*s) return ar_fail(e, AR_EINVAL, "empty rate (" RATE_HINT ")");
    ar_quote(s, q, sizeof q);
    num10 n;
    if (!num_scan(s, &n)) return ar_fail(e, AR_EINVAL, "%s is not a rate (" RATE_HINT ")", q);
    long e10 = n.exp10;
    int e2 = 0;
    const char *p = n.end;
    int had_prefix = prefix_scan(&p, &e10, &e2);
    if (*p == 'b') e2 -= 3; /* bits */
    if (!(*p == '\0' && !had_prefix) && strcmp(p, "Bps") != 0 && strcmp(p, "B/s") != 0 && strcmp(p, "bps") != 0 &&
        strcmp(p, "b/s") != 0)
        return ar_fail(e, AR_EINVAL, "%s is not a rate (" RATE_HINT ")", q);
    if (n.neg) return ar_fail(e, AR_EINVAL, "%s: a rate must be > 0", q);
    if (n.mant == 0) return ar_fail(e, AR_EINVAL, "%s: a rate must be > 0", q);
    double v = num_value(n.mant, e10, e2);
    if (!isfinite(v)) return ar_fail(e, AR_EINVAL, "%s: rate is too large", q);
    if (!(v > 0)) return ar_fail(e, AR_EINVAL, "%s: a rate must be > 0", q);
    if (bw_Bps) *bw_Bps = v;
    return AR_OK;
}

/* ---- times ---- */

#define TIME_HINT "use e.g. 5us, 1.5ms, 10ns, 2s"

ar_status ar_parse_time(const char *s, double *t_s, ar_err *e) {
    static const struct {
        const char *suf;
        int e10;
    } tab[] = {{"", 0}, {"s", 0}, {"ms", -3}, {"us", -6}, {"\xc2\xb5s", -6}, {"ns", -9}, {"ps", -12}};
    char q[96];
    if (!s || !*s) return ar_fail(e, AR_EINVAL, "empty time (" TIME_HINT ")");
    ar_quote(s, q, sizeof q);
    num10 n;
    if (!num_scan(s, &n)) return ar_fail(e, AR_EINVAL, "%s is not a time (" TIME_HINT ")", q);
    int unit = -1;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(n.end, tab[i].suf) == 0) unit = (int)i;
    if (unit < 0) return ar_fail(e, AR_EINVAL, "%s is not a time (" TIME_HINT ")", q);
    if (n.neg && n.mant) return ar_fail(e, AR_EINVAL, "%s: a time must not be negative", q);
    double v = n.mant ? num_value(n.mant, n.exp10 + tab[unit].e10, 0) : 0.0;
    if (!isfinite(v)) return ar_fail(e, AR_EINVAL, "%s: time is too large", q);
    if (t_s) *t_s = v;
    return AR_OK;
}

/* ---- counts ---- */

ar_status ar_parse_count(const char *s, long long min, long long max, long long *out, ar_err *e) {
    char q[96];
    if (!s || !*s) return ar_fail(e, AR_EINVAL, "empty count (use e.g. 8, 64, 1k)");
    ar_quote(s, q, sizeof q);
    num10 n;
    if (!num_scan(s, &n)) return ar_fail(e, AR_EINVAL, "%s is not a count (use e.g. 8, 64, 1k)", q);
    long e10 = n.exp10;
    int e2 = 0;
    const char *p = n.end;
    if (*p == 'k' || *p == 'K' || *p == 'M' || *p == 'G') {
        static const char pre[] = "kKMG";
        static const int pw[] = {3, 3, 6, 9};
        e10 += pw[strchr(pre, *p) - pre];
        p++;
    }
    if (*p) return ar_fail(e, AR_EINVAL, "%s is not a count (use e.g. 8, 64, 1k)", q);
    if (n.inexact) return ar_fail(e, AR_EINVAL, "%s: too many significant digits", q);
    uint64_t v = 0;
    if (n.mant) {
        int r = exact_int(n.mant, e10, e2, (uint64_t)INT64_MAX, &v);
        if (r == 1) return ar_fail(e, AR_EINVAL, "%s is not a whole number", q);
        if (r == 2) return ar_fail(e, AR_EINVAL, "%s is out of range (%lld..%lld)", q, min, max);
    }
    long long x = n.neg ? -(long long)v : (long long)v;
    if (x < min || x > max) return ar_fail(e, AR_EINVAL, "%s is out of range (%lld..%lld)", q, min, max);
    if (out) *out = x;
    return AR_OK;
}

/* ---- printing ---- */

/* Scales |v| into [1, 1000) over units[], prints 3 significant digits. */
static char *fmt_scaled(double v, const char *const *units, int nunits, int first, int time_style, char *buf,
                        size_t n) {
    if (!buf || n == 0) return buf;
    if (!isfinite(v)) {
        snprintf(buf, n, "%s %s", isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"), units[first]);
        return buf;
    }
    if (v == 0) {
        snprintf(buf, n, "0 %s", units[first]);
        return buf;
    }
    double a = fabs(v);
    int u = first;
    while (u + 1 < nunits && a >= 999.5) {
        a /= 1000;
        u++;
    }
    while (u > 0 && a < 0.9995) {
        a *= 1000;
        u--;
    }
    const char *sign = v < 0 ? "-" : "";
    if (time_style && a >= 99.95) snprintf(buf, n, "%s%.0f %s", sign, a, units[u]);
    else if (time_style && a >= 9.995) snprintf(buf, n, "%s%.1f %s", sign, a, units[u]);
    else snprintf(buf, n, "%s%.3g %s", sign, a, units[u]);
    return buf;
}

char *ar_fmt_bytes(double bytes, char *buf, size_t n) {
    static const char *const u[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    return fmt_scaled(bytes, u, 6, 0, 0, buf, n);
}

char *ar_fmt_rate(double bw_Bps, char *buf, size_t n) {
    static const char *const u[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    return fmt_scaled(bw_Bps, u, 6, 0, 0, buf, n);
}

char *ar_fmt_time(double t_s, char *buf, size_t n) {
    static const char *const u[] = {"ps", "ns", "us", "ms", "s"};
    return fmt_scaled(t_s, u, 5, 4, 1, buf, n);
}
