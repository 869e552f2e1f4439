/* The generated families of ar_platform_generate (built with the shapes of
 * platform_build.c):
 *
 *   flat      ranks=8 bw=100Gbps lat=1us        N GPUs on one switch
 *   tree      fanouts=3x2x2 bw=32GBps/100Gbps/200Gbps lat=1us ranks=N
 *   fat-tree  as tree, with full bisection (lanes multiplied up the tree)
 *   torus     dims=4x4 gpus=4 intra=32GBps link=100Gbps lat=1us ranks=N
 *   machines  gpus=2+3 intra=10GBps inter=1.25GBps lat=1us ranks=N
 *
 * See platforms/README.md for the defaults derived from ranks. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform_build.h"

/* ---- generated families ---- */

static const char *const families[] = {"flat", "tree", "fat-tree", "torus", "machines", NULL};

int ar_platform_is_family(const char *name, size_t len) {
    for (int i = 0; families[i]; i++)
        if (strlen(families[i]) == len && strncmp(families[i], name, len) == 0) return 1;
    return 0;
}

#define MAX_KEYS 16
typedef struct spec_kv {
    int n;
    char *key[MAX_KEYS];
    char *val[MAX_KEYS];
    int used[MAX_KEYS];
} spec_kv;

/* Splits "k=v,k=v" (in buf, modified in place) into kv. */
static ar_status split_kv(char *s, spec_kv *kv, const char *const *allowed, const char *fam, ar_err *e) {
    char q[96];
    memset(kv, 0, sizeof *kv);
    if (!*s) return AR_OK;
    for (char *tok = s; tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return ar_fail(e, AR_EINVAL, "%s: %s is not key=value", fam, ar_quote(tok, q, sizeof q));
        *eq = '\0';
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(allowed[i], tok) == 0) ok = 1;
        if (!ok) {
            char list[200] = "";
            for (int i = 0; allowed[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, allowed[i], sizeof list - strlen(list) - 1);
            }
            return ar_fail(e, AR_EINVAL, "%s: unknown key %s (keys: %s)", fam, ar_quote(tok, q, sizeof q), list);
        }
        for (int i = 0; i < kv->n; i++)
            if (strcmp(kv->key[i], tok) == 0)
                return ar_fail(e, AR_EINVAL, "%s: key %s given twice", fam, ar_quote(tok, q, sizeof q));
        if (kv->n == MAX_KEYS) return ar_fail(e, AR_EINVAL, "%s: too many keys", fam);
        kv->key[kv->n] = tok;
        kv->val[kv->n] = eq + 1;
        kv->n++;
        tok = comma ? comma + 1 : NULL;
    }
    return AR_OK;
}

static const char *kv_get(const spec_kv *kv, const char *key) {
    for (int i = 0; i < kv->n; i++)
        if (strcmp(kv->key[i], key) == 0) return kv->val[i];
    return NULL;
}

static ar_status kv_rate(const spec_kv *kv, const char *key, const char *def, double *out, const char *fam, ar_err *e) {
    const char *v = kv_get(kv, key);
    ar_status st = ar_parse_rate(v ? v : def, out, e);
    if (st) ar_err_prefix(e, "%s: %s", fam, key);
    return st;
}

static ar_status kv_time(const spec_kv *kv, const char *key, const char *def, double *out, const char *fam, ar_err *e) {
    const char *v = kv_get(kv, key);
    ar_status st = ar_parse_time(v ? v : def, out, e);
    if (st) ar_err_prefix(e, "%s: %s", fam, key);
    return st;
}

static ar_status kv_count(const spec_kv *kv, const char *key, long long def, long long max, long long *out,
                          const char *fam, ar_err *e) {
    const char *v = kv_get(kv, key);
    if (!v) {
        *out = def;
        return AR_OK;
    }
    ar_status st = ar_parse_count(v, 1, max, out, e);
    if (st == AR_EINVAL && max < LLONG_MAX && ar_parse_count(v, max + 1, LLONG_MAX, NULL, NULL) == AR_OK)
        st = AR_ELIMIT; /* a count above the family's documented limit */
    if (st) ar_err_prefix(e, "%s: %s", fam, key);
    return st;
}

/* Parses "AxBxC" (sep 'x') or "A+B+C" (sep '+') into positive ints. */
static ar_status int_list(const char *s, char sep, int *out, int max, int *n, const char *what, ar_err *e) {
    char q[96], tok[32];
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (*n == max)
            return ar_fail(e, AR_EINVAL, "%s: more than %d entries in %s", what, max, ar_quote(s, q, sizeof q));
        if (len == 0 || len >= sizeof tok)
            return ar_fail(e, AR_EINVAL, "%s: %s is not a list like 4x4 or 2+3", what, ar_quote(s, q, sizeof q));
        memcpy(tok, p, len);
        tok[len] = '\0';
        long long v = 0;
        ar_status st = ar_parse_count(tok, 1, AR_MAX_RANKS, &v, e);
        if (st) {
            ar_err_prefix(e, "%s", what);
            return st;
        }
        out[(*n)++] = (int)v;
        if (!end) break;
        p = end + 1;
    }
    return AR_OK;
}

/* Default fanouts for --ranks N: machines of 8 GPUs, 32 machines per leaf
 * switch, then a root. */
static ar_status fanouts_from_ranks(long long n, int *fan, int *nlev, const char *fam, ar_err *e) {
    if (n % 8)
        return ar_fail(e, AR_EINVAL,
                       "%s: ranks=%lld is not a multiple of 8 (machines of 8 GPUs); give fanouts= instead", fam, n);
    if (n <= 256) {
        fan[0] = 8;
        fan[1] = (int)(n / 8);
        *nlev = 2;
    } else {
        if (n % 256)
            return ar_fail(e, AR_EINVAL,
                           "%s: ranks=%lld is not a multiple of 256 (8 GPUs x 32 machines per leaf "
                           "switch); give fanouts= instead",
                           fam, n);
        fan[0] = 8;
        fan[1] = 32;
        fan[2] = (int)(n / 256);
        *nlev = 3;
    }
    return AR_OK;
}

/* "a/b/c" or "a": one rate per level. */
static ar_status per_level_rates(const char *s, int nlev, double *out, const char *fam, const char *key, ar_err *e) {
    char q[96], tok[64];
    int n = 0;
    const char *p = s;
    double v[AR_MAX_LEVELS];
    for (;;) {
        const char *end = strchr(p, '/');
        /* "12.5GB/s" contains '/': a rate ending in "B/s" or "b/s" keeps its slash */
        while (end && (end[1] == 's') && end > p && (end[-1] == 'B' || end[-1] == 'b') &&
               (end[2] == '\0' || end[2] == '/'))
            end = strchr(end + 1, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n == AR_MAX_LEVELS || len >= sizeof tok)
            return ar_fail(e, AR_EINVAL, "%s: %s: %s has too many entries", fam, key, ar_quote(s, q, sizeof q));
        memcpy(tok, p, len);
        tok[len] = '\0';
        ar_status st = !strcmp(key, "lat") ? ar_parse_time(tok, &v[n], e) : ar_parse_rate(tok, &v[n], e);
        if (st) {
            ar_err_prefix(e, "%s: %s", fam, key);
            return st;
        }
        n++;
        if (!end) break;
        p = end + 1;
    }
    if (n != 1 && n != nlev)
        return ar_fail(e, AR_EINVAL, "%s: %s: give one value or one per level (%d), got %d", fam, key, nlev, n);
    for (int i = 0; i < nlev; i++) out[i] = v[n == 1 ? 0 : i];
    return AR_OK;
}

static ar_status gen_tree(ar_pbuild *b, const spec_kv *kv, long long ranks, int fat, const char *fam, ar_err *e) {
    int fan[AR_MAX_LEVELS], nlev = 0;
    const char *fs = kv_get(kv, "fanouts");
    ar_status st;
    if (fs) {
        st = int_list(fs, 'x', fan, AR_MAX_LEVELS, &nlev, "fanouts", e);
        if (st) {
            ar_err_prefix(e, "%s", fam);
            return st;
        }
        long long prod = 1;
        for (int i = 0; i < nlev; i++) {
            prod *= fan[i];
            if (prod > AR_MAX_RANKS)
                return ar_fail(e, AR_ELIMIT, "%s: fanouts=%s gives more than %d ranks", fam, fs, AR_MAX_RANKS);
        }
        if (ranks > 0 && prod != ranks)
            return ar_fail(e, AR_EINVAL, "%s: ranks=%lld does not match fanouts=%s (%lld GPUs)", fam, ranks, fs, prod);
    } else if (ranks > 0) {
        st = fanouts_from_ranks(ranks, fan, &nlev, fam, e);
        if (st) return st;
    } else {
        fan[0] = 3;
        fan[1] = 2;
        fan[2] = 2;
        nlev = 3;
    }
    double bw[AR_MAX_LEVELS], lat[AR_MAX_LEVELS];
    const char *bws = kv_get(kv, "bw");
    if (bws) {
        st = per_level_rates(bws, nlev, bw, fam, "bw", e);
        if (st) return st;
    } else {
        bw[0] = 32e9;
        for (int i = 1; i < nlev; i++) bw[i] = 12.5e9 * (double)(1 << (i - 1));
    }
    st = per_level_rates(kv_get(kv, "lat") ? kv_get(kv, "lat") : "1us", nlev, lat, fam, "lat", e);
    if (st) return st;
    ar_level_spec lv[AR_MAX_LEVELS];
    for (int i = 0; i < nlev; i++) {
        lv[i].fanout = fan[i];
        lv[i].bw_Bps = bw[i];
        lv[i].lat_s = lat[i];
        lv[i].lanes = 1;
        lv[i].reduce_Bps = 0;
    }
    st = ar_pb_sym_tree(b, lv, nlev, fat, e);
    if (st) ar_err_prefix(e, "%s", fam);
    return st;
}

ar_status ar_platform_generate(const char *spec, int ranks_arg, ar_platform **out, ar_err *e) {
    static const char *const k_flat[] = {"ranks", "bw", "lat", "gpu", "sm", NULL};
    static const char *const k_tree[] = {"fanouts", "bw", "lat", "ranks", "gpu", "sm", NULL};
    static const char *const k_torus[] = {"dims", "gpus", "intra", "link", "lat", "ranks", "gpu", "sm", NULL};
    static const char *const k_mach[] = {"gpus", "intra", "inter", "lat", "ranks", "gpu", "sm", NULL};
    char q[160];
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_platform_generate: no output");
    *out = NULL;
    if (!spec || !*spec) return ar_fail(e, AR_EINVAL, "empty platform family");
    if (strlen(spec) > 1000) return ar_fail(e, AR_EINVAL, "platform spec is too long");
    if (ranks_arg < 0 || ranks_arg > AR_MAX_RANKS)
        return ar_fail(e, ranks_arg < 0 ? AR_EINVAL : AR_ELIMIT, "ranks %d is out of range (1..%d)", ranks_arg,
                       AR_MAX_RANKS);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *colon = strchr(buf, ':');
    char *args = colon ? colon + 1 : buf + strlen(buf);
    if (colon) *colon = '\0';
    const char *fam = buf;
    const char *const *keys = NULL;
    if (!strcmp(fam, "flat")) keys = k_flat;
    else if (!strcmp(fam, "tree") || !strcmp(fam, "fat-tree")) keys = k_tree;
    else if (!strcmp(fam, "torus")) keys = k_torus;
    else if (!strcmp(fam, "machines")) keys = k_mach;
    else
        return ar_fail(e, AR_EINVAL, "unknown platform family %s (families: flat, tree, fat-tree, torus, machines)",
                       ar_quote(fam, q, sizeof q));
    spec_kv kv;
    ar_status st = split_kv(args, &kv, keys, fam, e);
    if (st) return st;
    long long ranks = 0;
    if (kv_get(&kv, "ranks")) {
        st = kv_count(&kv, "ranks", 0, AR_MAX_RANKS, &ranks, fam, e);
        if (st) return st;
    }
    if (ranks_arg > 0) ranks = ranks_arg;
    /* the GPU (gpu=h100, gpu=sm_89 or sm=89), for NCCL's model */
    char gpu[24] = "";
    int gpu_cc = 0;
    if (kv_get(&kv, "gpu") && kv_get(&kv, "sm")) return ar_fail(e, AR_EINVAL, "%s: give gpu= or sm=, not both", fam);
    if (kv_get(&kv, "gpu") || kv_get(&kv, "sm")) {
        const char *g = kv_get(&kv, "gpu");
        if (g) snprintf(gpu, sizeof gpu, "%.23s", g);
        else snprintf(gpu, sizeof gpu, "sm_%.20s", kv_get(&kv, "sm"));
        if ((st = ar_gpu_cc(gpu, &gpu_cc, e)) != AR_OK) {
            ar_err_prefix(e, "%s", fam);
            return st;
        }
    }

    /* name: the spec, plus the --ranks override */
    char name[1100];
    if (ranks_arg > 0) snprintf(name, sizeof name, "%s%sranks=%d", spec, strchr(spec, ':') ? "," : ":", ranks_arg);
    else snprintf(name, sizeof name, "%s", spec);
    char source[1200];
    snprintf(source, sizeof source, "generated:%s", name);

    ar_pbuild b;
    ar_platform_kind kind = !strcmp(fam, "fat-tree") ? AR_PLAT_FAT_TREE
                            : !strcmp(fam, "torus")  ? AR_PLAT_TORUS
                                                     : AR_PLAT_TREE;
    st = ar_pb_begin(&b, name, source, kind, e);
    if (!st) {
        if (!strcmp(fam, "flat")) {
            ar_level_spec lv = {ranks > 0 ? ranks : 8, 0, 0, 1, 0};
            st = kv_rate(&kv, "bw", "100Gbps", &lv.bw_Bps, fam, e);
            if (!st) st = kv_time(&kv, "lat", "1us", &lv.lat_s, fam, e);
            if (!st) st = ar_pb_sym_tree(&b, &lv, 1, 0, e);
        } else if (!strcmp(fam, "tree") || !strcmp(fam, "fat-tree")) {
            st = gen_tree(&b, &kv, ranks, kind == AR_PLAT_FAT_TREE, fam, e);
        } else if (!strcmp(fam, "torus")) {
            int dims[AR_MAX_DIMS], nd = 0;
            long long g = 4;
            double intra = 0, link = 0, lat = 0;
            st = kv_count(&kv, "gpus", 4, AR_MAX_RANKS, &g, fam, e);
            if (!st) st = kv_rate(&kv, "intra", "32GBps", &intra, fam, e);
            if (!st) st = kv_rate(&kv, "link", "100Gbps", &link, fam, e);
            if (!st) st = kv_time(&kv, "lat", "1us", &lat, fam, e);
            const char *ds = kv_get(&kv, "dims");
            if (!st && ds) {
                st = int_list(ds, 'x', dims, AR_MAX_DIMS, &nd, "dims", e);
                if (st) ar_err_prefix(e, "%s", fam);
                long long prod = g;
                for (int d = 0; !st && d < nd; d++) {
                    prod *= dims[d];
                    if (prod > AR_MAX_RANKS) st = ar_fail(e, AR_ELIMIT, "%s: more than %d ranks", fam, AR_MAX_RANKS);
                }
                if (!st && ranks > 0 && prod != ranks)
                    st = ar_fail(e, AR_EINVAL, "%s: ranks=%lld does not match dims=%s with gpus=%lld (%lld GPUs)", fam,
                                 ranks, ds, g, prod);
            } else if (!st && ranks > 0) {
                if (ranks % g)
                    st = ar_fail(e, AR_EINVAL, "%s: ranks=%lld is not a multiple of gpus=%lld", fam, ranks, g);
                long long m = ranks / g, a = 1;
                for (long long x = 1; x * x <= m; x++)
                    if (m % x == 0) a = x;
                dims[0] = (int)(m / a);
                dims[1] = (int)a;
                nd = 2;
            } else if (!st) {
                dims[0] = dims[1] = 4;
                nd = 2;
            }
            if (!st) st = ar_pb_torus(&b, dims, nd, (int)g, intra, lat, 1, link, lat, 1, e);
        } else { /* machines */
            int gpus[4096], nm = 0;
            double intra = 0, inter = 0, lat = 0;
            st = kv_rate(&kv, "intra", "10GBps", &intra, fam, e);
            if (!st) st = kv_rate(&kv, "inter", "1.25GBps", &inter, fam, e);
            if (!st) st = kv_time(&kv, "lat", "1us", &lat, fam, e);
            const char *gs = kv_get(&kv, "gpus");
            if (!st && gs) {
                st = int_list(gs, '+', gpus, 4096, &nm, "gpus", e);
                if (st) ar_err_prefix(e, "%s", fam);
                long long sum = 0;
                for (int m = 0; !st && m < nm; m++) sum += gpus[m];
                if (!st && ranks > 0 && sum != ranks)
                    st = ar_fail(e, AR_EINVAL, "%s: ranks=%lld does not match gpus=%s (%lld GPUs)", fam, ranks, gs,
                                 sum);
            } else if (!st && ranks > 0) {
                /* at most 4 GPUs per machine, split evenly, larger machines first */
                long long m = (ranks + 3) / 4;
                if (m > 4096) st = ar_fail(e, AR_ELIMIT, "%s: ranks=%lld needs more than 4096 machines", fam, ranks);
                for (long long i = 0; !st && i < m; i++) gpus[i] = (int)(ranks / m + (i < ranks % m ? 1 : 0));
                nm = (int)m;
            } else if (!st) {
                gpus[0] = 2;
                gpus[1] = 3;
                nm = 2;
            }
            if (!st) st = ar_pb_machines(&b, gpus, nm, intra, inter, lat, e);
        }
    }
    if (!st) st = ar_pb_finish(&b, e);
    if (st) {
        ar_platform_free(b.p);
        return st;
    }
    snprintf(b.p->gpu, sizeof b.p->gpu, "%s", gpu);
    b.p->gpu_cc = gpu_cc;
    *out = b.p;
    return AR_OK;
}
