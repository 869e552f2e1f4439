/* Deterministic random platforms for tests (shared by test_classic.c and the
 * BlueConnect/FlexReduce tests): seeded xorshift64*, no global state, JSON
 * text in the platform format of platforms/README.md, parsed by the caller
 * with ar_platform_from_json().
 *
 * Shapes (rt_platform_json picks one from the generator state):
 *   RT_SYM    "kind":"tree" symmetric form ("levels"): 1-3 levels, fanouts
 *             1..6 (any factorization when a rank count is forced);
 *   RT_ASYM2  explicit form: root -> machines (1..16) -> GPUs (1..8 each),
 *             per-machine uplink and GPU-link bandwidth/latency, sometimes
 *             per-GPU links and lanes;
 *   RT_ASYM3  explicit form: root -> racks (1..4) -> machines -> GPUs, with
 *             some machines hanging directly off the root (GPUs at different
 *             depths).
 * Bandwidths are log-uniform in 1e9..1e11 B/s, latencies in 1e-7..1e-5 s.
 * Rank counts are at most RT_MAX_RANKS (64); rt_platform_json(g, shape, R)
 * with R > 0 forces exactly R ranks (e.g. primes 7, 13, 31, 61).
 *
 * Ownership: rt_platform_json returns a malloc'd string the caller frees
 * (NULL on allocation failure). Everything else is on the stack.
 */
#ifndef AR_TESTS_RANDTOPO_H
#define AR_TESTS_RANDTOPO_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_MAX_RANKS 64

typedef struct rt_rng {
    uint64_t s;
} rt_rng;

typedef enum rt_shape { RT_SYM = 0, RT_ASYM2 = 1, RT_ASYM3 = 2, RT_NSHAPES = 3 } rt_shape;

static inline rt_rng rt_seed(uint64_t seed) {
    rt_rng g = {seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL};
    if (!g.s) g.s = 1;
    return g;
}

static inline uint64_t rt_next(rt_rng *g) { /* xorshift64* */
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return g->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform integer in [lo, hi]. */
static inline int rt_int(rt_rng *g, int lo, int hi) {
    if (hi <= lo) return lo;
    return lo + (int)(rt_next(g) % (uint64_t)(hi - lo + 1));
}

/* Uniform in [0, 1). */
static inline double rt_unit(rt_rng *g) { return (double)(rt_next(g) >> 11) / 9007199254740992.0; }

/* Log-uniform in [lo, hi]. */
static inline double rt_logu(rt_rng *g, double lo, double hi) {
    double u = rt_unit(g);
    return lo * exp(u * log(hi / lo));
}

static inline double rt_bw(rt_rng *g) { return rt_logu(g, 1e9, 1e11); }
static inline double rt_lat(rt_rng *g) { return rt_logu(g, 1e-7, 1e-5); }

/* A growable string. */
typedef struct rt_buf {
    char *s;
    size_t len, cap;
    int oom;
} rt_buf;

static void rt_put(rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rt_put(rt_buf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap : 256);
        while (cap <= b->len + (size_t)n) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* Splits total into n parts, each in [1, maxpart] (requires n <= total <= n*maxpart). */
static void rt_split(rt_rng *g, int total, int n, int maxpart, int *parts) {
    for (int i = 0; i < n; i++) parts[i] = 1;
    for (int left = total - n; left > 0; left--) {
        int i;
        do i = rt_int(g, 0, n - 1);
        while (parts[i] >= maxpart);
        parts[i]++;
    }
}

/* One machine switch with `gpus` GPUs: either "gpus": n with child defaults,
 * or explicit GPU entries with their own links. *rank numbers GPU names. */
static void rt_machine(rt_rng *g, rt_buf *b, int gpus, int *rank, int with_uplink) {
    rt_put(b, "{");
    if (with_uplink) {
        rt_put(b, "\"bw\":%.6g,\"lat\":%.6g,", rt_bw(g), rt_lat(g));
        if (rt_int(g, 0, 4) == 0) rt_put(b, "\"lanes\":%d,", rt_int(g, 2, 4));
    }
    if (rt_int(g, 0, 2) > 0) {
        rt_put(b, "\"child_bw\":%.6g,\"child_lat\":%.6g,\"gpus\":%d}", rt_bw(g), rt_lat(g), gpus);
        *rank += gpus;
        return;
    }
    rt_put(b, "\"child_bw\":%.6g,\"child_lat\":%.6g,\"children\":[", rt_bw(g), rt_lat(g));
    for (int i = 0; i < gpus; i++) {
        rt_put(b, "%s{\"gpu\":\"g%d\"", i ? "," : "", (*rank)++);
        if (rt_int(g, 0, 1)) rt_put(b, ",\"bw\":%.6g,\"lat\":%.6g", rt_bw(g), rt_lat(g));
        rt_put(b, "}");
    }
    rt_put(b, "]}");
}

/* Picks a rank count for a shape when none is forced. */
static int rt_pick_ranks(rt_rng *g) {
    static const int special[] = {1, 2, 3, 5, 6, 7, 12, 13, 16, 31, 32, 61, 64};
    if (rt_int(g, 0, 3) == 0) return special[rt_int(g, 0, (int)(sizeof special / sizeof special[0]) - 1)];
    return rt_int(g, 1, RT_MAX_RANKS);
}

/* Returns the JSON text of a random platform of the given shape with
 * `ranks` GPUs (0: random, else 1..RT_MAX_RANKS). desc (may be NULL)
 * receives a one-line description. */
static char *rt_platform_json(rt_rng *g, rt_shape shape, int ranks, char *desc, size_t desc_len) {
    rt_buf b = {0};
    int R = ranks > 0 ? (ranks > RT_MAX_RANKS ? RT_MAX_RANKS : ranks) : 0;
    char d[160] = "";
    if (shape == RT_SYM) {
        int nlev, f[3];
        if (!R) {
            nlev = rt_int(g, 1, 3);
            R = 1;
            for (int i = 0; i < nlev; i++) {
                f[i] = rt_int(g, 1, 6);
                R *= f[i];
            }
        } else { /* a random ordered factorization of R into 1..3 factors */
            nlev = rt_int(g, 1, 3);
            int left = R;
            for (int i = 0; i < nlev - 1; i++) {
                int divs[RT_MAX_RANKS], nd = 0;
                for (int x = 1; x <= left; x++)
                    if (left % x == 0) divs[nd++] = x;
                f[i] = divs[rt_int(g, 0, nd - 1)];
                left /= f[i];
            }
            f[nlev - 1] = left;
        }
        rt_put(&b, "{\"name\":\"rand-sym\",\"kind\":\"tree\",\"levels\":[");
        for (int i = 0; i < nlev; i++) {
            rt_put(&b, "%s{\"fanout\":%d,\"bw\":%.6g,\"lat\":%.6g", i ? "," : "", f[i], rt_bw(g), rt_lat(g));
            if (rt_int(g, 0, 3) == 0) rt_put(&b, ",\"lanes\":%d", rt_int(g, 2, 8));
            rt_put(&b, "}");
        }
        rt_put(&b, "]}");
        int k = snprintf(d, sizeof d, "sym %d ranks fanouts ", R);
        for (int i = 0; i < nlev && k > 0 && (size_t)k < sizeof d; i++)
            k += snprintf(d + k, sizeof d - (size_t)k, "%s%d", i ? "x" : "", f[i]);
    } else if (shape == RT_ASYM2) {
        if (!R) R = rt_pick_ranks(g);
        int lo = (R + 7) / 8, hi = R < 16 ? R : 16;
        int M = rt_int(g, lo, hi), parts[RT_MAX_RANKS];
        rt_split(g, R, M, 8, parts);
        int rank = 0;
        rt_put(&b, "{\"name\":\"rand-asym2\",\"kind\":\"tree\",\"root\":{\"name\":\"top\",\"children\":[");
        for (int m = 0; m < M; m++) {
            rt_put(&b, "%s", m ? "," : "");
            rt_machine(g, &b, parts[m], &rank, 1);
        }
        rt_put(&b, "]}}");
        int k = snprintf(d, sizeof d, "asym2 %d ranks machines ", R);
        for (int m = 0; m < M && k > 0 && (size_t)k < sizeof d; m++)
            k += snprintf(d + k, sizeof d - (size_t)k, "%s%d", m ? "+" : "", parts[m]);
    } else {
        if (!R) R = rt_pick_ranks(g);
        int lo = (R + 7) / 8, hi = R < 16 ? R : 16;
        int M = rt_int(g, lo, hi), parts[RT_MAX_RANKS];
        rt_split(g, R, M, 8, parts);
        /* machines 0..M-1 grouped in order: each group is a rack (>= 2 machines
         * sometimes) or a machine directly under the root */
        int rank = 0, m = 0, first = 1;
        rt_put(&b, "{\"name\":\"rand-asym3\",\"kind\":\"tree\",\"root\":{\"children\":[");
        int k = snprintf(d, sizeof d, "asym3 %d ranks ", R);
        while (m < M) {
            rt_put(&b, "%s", first ? "" : ",");
            first = 0;
            int rack = rt_int(g, 0, 3) > 0 ? rt_int(g, 1, 4) : 0; /* 0 = bare machine */
            if (rack > M - m) rack = M - m;
            if (rack == 0) {
                rt_machine(g, &b, parts[m], &rank, 1);
                if (k > 0 && (size_t)k < sizeof d) k += snprintf(d + k, sizeof d - (size_t)k, "%d ", parts[m]);
                m++;
                continue;
            }
            rt_put(&b, "{\"bw\":%.6g,\"lat\":%.6g,", rt_bw(g), rt_lat(g));
            int shared = rt_int(g, 0, 1);
            if (shared) rt_put(&b, "\"child_bw\":%.6g,\"child_lat\":%.6g,", rt_bw(g), rt_lat(g));
            rt_put(&b, "\"children\":[");
            if (k > 0 && (size_t)k < sizeof d) k += snprintf(d + k, sizeof d - (size_t)k, "[");
            for (int i = 0; i < rack; i++, m++) {
                rt_put(&b, "%s", i ? "," : "");
                rt_machine(g, &b, parts[m], &rank, !shared || rt_int(g, 0, 1));
                if (k > 0 && (size_t)k < sizeof d)
                    k += snprintf(d + k, sizeof d - (size_t)k, "%s%d", i ? "+" : "", parts[m]);
            }
            rt_put(&b, "]}");
            if (k > 0 && (size_t)k < sizeof d) k += snprintf(d + k, sizeof d - (size_t)k, "] ");
        }
        rt_put(&b, "]}}");
    }
    if (desc && desc_len) snprintf(desc, desc_len, "%s", d);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

#endif
