/* The sweep engine (sweep.h): opening a sweep file, the grid, and evaluating
 * one point on the model, sim or real backend. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/algo.h"
#include "core/params.h"
#include "algos/flexreduce.h"
#include "models/model.h"
#include "models/model_topo.h"
#include "sweep.h"
#ifdef AR_HAVE_SIM
#include "sim/sim.h"
#endif

#ifndef AR_GIT_COMMIT
#define AR_GIT_COMMIT "unknown"
#endif
#ifndef AR_VERSION
#define AR_VERSION "unknown"
#endif

/* Relative differences below this count as agreement. */
#define SW_AGREE 0.01

const char *const sweep_cols[SW_NCOLS] = {
    [SC_SWEEP] = "sweep",         [SC_BACKEND] = "backend",       [SC_PLATFORM] = "platform",
    [SC_RANKS] = "ranks",         [SC_MACHINES] = "machines",     [SC_ALGO] = "algo",
    [SC_LABEL] = "label",         [SC_DTYPE] = "dtype",           [SC_ELEMS] = "elems",
    [SC_BYTES] = "bytes",         [SC_TIME] = "time_s",           [SC_MODEL] = "model_s",
    [SC_CLOSED] = "closed_s",     [SC_WALK] = "walk_s",           [SC_SIM] = "sim_s",
    [SC_MEASURED] = "measured_s", [SC_REL_DIFF] = "rel_diff",     [SC_BASE] = "base_s",
    [SC_VS_BASE] = "vs_base",     [SC_SAVING] = "saving",     [SC_CALLS_MAX] = "calls_max",
    [SC_CALLS_AVG] = "calls_avg", [SC_CALLS_BOUND] = "calls_bound", [SC_TRAIN] = "train",           [SC_COMPUTE] = "compute_s",
    [SC_COMM] = "comm_s",         [SC_ITER] = "iter_s",           [SC_OVERHEAD] = "overhead_s",
    [SC_IMAGES] = "images_s",     [SC_SPEEDUP] = "speedup",       [SC_EFF] = "scaling_eff",
    [SC_STATUS] = "status",       [SC_CAUSE] = "cause",           [SC_PLATFORM_HASH] = "platform_hash",
    [SC_VERSION] = "version",     [SC_COMMIT] = "commit",         [SC_PLATFORM_SRC] = "platform_src",
    [SC_NETWORK] = "network",     [SC_DETAIL] = "detail",         [SC_MESSAGE] = "message",
    [SC_KEY] = "key",
};

int sweep_col_numeric(int col) {
    switch (col) {
    case SC_RANKS: case SC_MACHINES: case SC_ELEMS: case SC_BYTES: case SC_TIME: case SC_MODEL: case SC_CLOSED:
    case SC_WALK: case SC_SIM: case SC_MEASURED: case SC_REL_DIFF: case SC_BASE: case SC_VS_BASE: case SC_SAVING: case SC_CALLS_MAX: case SC_CALLS_AVG:
    case SC_CALLS_BOUND:    case SC_COMPUTE: case SC_COMM: case SC_ITER: case SC_OVERHEAD: case SC_IMAGES: case SC_SPEEDUP: case SC_EFF:
        return 1;
    default:
        return 0;
    }
}

int sweep_have_sim(void) {
#ifdef AR_HAVE_SIM
    return 1;
#else
    return 0;
#endif
}

void sweep_rows_free(sweep_rows *rs) {
    for (int i = 0; i < rs->n; i++)
        for (int c = 0; c < SW_NCOLS; c++) free(rs->r[i].f[c]);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

/* ---- opening ---------------------------------------------------------- */

static char *read_text_file(const char *path, size_t max, ar_err *e) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        ar_fail(e, AR_EIO, "%s: cannot read", path);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > max) {
                free(buf);
                fclose(f);
                ar_fail(e, AR_EINVAL, "%s: larger than %zu bytes", path, max);
                return NULL;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - 1 - n, f);
        n += k;
        if (k == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) {
        ar_fail(e, AR_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (bad) {
        free(buf);
        ar_fail(e, AR_EIO, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        ar_fail(e, AR_EINVAL, "%s: contains a NUL byte", path);
        return NULL;
    }
    return buf;
}

static int is_path_like(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".json"));
}

/* dir + "/" + rel (caller frees); rel as is when absolute or dir is ".". */
static char *join_path(const char *dir, const char *rel) {
    if (rel[0] == '/' || !strcmp(dir, ".")) return ar_strdup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static int is_preset(char **presets, int npresets, const char *s) {
    for (int i = 0; i < npresets; i++)
        if (!strcmp(presets[i], s)) return 1;
    return 0;
}

/* Imports measurements for the real backend: every CSV matching the
 * patterns, columns located by name (algo, platform, ranks, bytes, measured_s). */
static ar_status import_real(sweep_ctx *ctx, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    int cap = 0;
    for (int i = 0; i < s->nreal_csv; i++) {
        char *pat = join_path(ctx->dir, s->real_csv[i]);
        if (!pat) return ar_fail(e, AR_ENOMEM, "out of memory");
        glob_t g;
        memset(&g, 0, sizeof g);
        int gr = glob(pat, 0, NULL, &g);
        free(pat);
        for (size_t k = 0; gr == 0 && k < g.gl_pathc; k++) {
            ar_err e2 = {{0}};
            char *text = read_text_file(g.gl_pathv[k], (size_t)1 << 30, &e2);
            if (!text) {
                globfree(&g);
                return ar_fail(e, AR_EIO, "%s: real.csv[%d]: %s", ctx->file, i, e2.msg);
            }
            int col[5] = {-1, -1, -1, -1, -1};
            static const char *const want[5] = {"algo", "platform", "ranks", "bytes", "measured_s"};
            int line = 0;
            for (char *save = NULL, *l = strtok_r(text, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
                char **f = NULL;
                int nf = sweep_csv_split(l, &f, 256);
                if (nf < 0) {
                    free(text);
                    globfree(&g);
                    return ar_fail(e, AR_ENOMEM, "out of memory");
                }
                if (line++ == 0) {
                    for (int c = 0; c < nf; c++)
                        for (int w = 0; w < 5; w++)
                            if (!strcmp(f[c], want[w])) col[w] = c;
                } else if (col[0] >= 0 && col[1] >= 0 && col[2] >= 0 && col[3] >= 0 && col[4] >= 0) {
                    int ok = 1;
                    for (int w = 0; w < 5; w++) ok &= col[w] < nf;
                    char *end1 = NULL, *end2 = NULL, *end3 = NULL;
                    double ranks = ok ? strtod(f[col[2]], &end1) : 0;
                    double bytes = ok ? strtod(f[col[3]], &end2) : 0;
                    double t = ok ? strtod(f[col[4]], &end3) : 0;
                    if (ok && *end1 == 0 && *end2 == 0 && *end3 == 0 && t > 0 && isfinite(t) && ranks >= 1 &&
                        ranks <= AR_MAX_RANKS && bytes > 0) {
                        if (ctx->nmeasures == cap) {
                            int nc = cap ? 2 * cap : 64;
                            sweep_measure *nm = ar_reallocarray(ctx->measures, (size_t)nc, sizeof *nm);
                            if (!nm) ok = 0;
                            else {
                                ctx->measures = nm;
                                cap = nc;
                            }
                        }
                        if (ok) {
                            sweep_measure *m = &ctx->measures[ctx->nmeasures];
                            m->algo = ar_strdup(f[col[0]]);
                            m->platform = ar_strdup(f[col[1]]);
                            m->ranks = (int)ranks;
                            m->bytes = bytes;
                            m->measured_s = t;
                            if (m->algo && m->platform) ctx->nmeasures++;
                            else {
                                free(m->algo);
                                free(m->platform);
                            }
                        }
                    }
                }
                for (int c = 0; c < nf; c++) free(f[c]);
                free(f);
            }
            free(text);
        }
        globfree(&g);
    }
    return AR_OK;
}

/* Whether the platform entry excludes the algorithm of spec (by name). */
static int excluded(const ar_sweep_platform *pe, const char *spec) {
    size_t n = strcspn(spec, ":");
    for (int k = 0; k < pe->nexclude; k++)
        if (strlen(pe->exclude[k]) == n && !strncmp(pe->exclude[k], spec, n)) return 1;
    return 0;
}

ar_status sweep_open(const char *file, sweep_ctx *ctx, ar_err *e) {
    memset(ctx, 0, sizeof *ctx);
    ctx->cache_plat = -1;
    ctx->commit = AR_GIT_COMMIT;
    ctx->version = AR_VERSION;
    ar_status st = AR_OK;
    char *text = read_text_file(file, (size_t)16 << 20, e);
    if (!text) return e && strstr(e->msg, "out of memory") ? AR_ENOMEM : AR_EIO;
    ctx->file = ar_strdup(file);
    const char *slash = strrchr(file, '/');
    ctx->dir = slash ? strndup(file, (size_t)(slash - file) ? (size_t)(slash - file) : 1) : ar_strdup(".");
    if (!ctx->file || !ctx->dir) {
        free(text);
        sweep_close(ctx);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    st = ar_sweep_from_json(text, file, &ctx->spec, e);
    free(text);
    if (st) {
        sweep_close(ctx);
        return st;
    }
    const ar_sweep *s = ctx->spec;

    /* algorithms exist */
    for (int a = 0; a < s->nalgos; a++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(s->algos[a].spec, ":"), s->algos[a].spec);
        if (!ar_algo_find(name)) {
            char q[96];
            sweep_close(ctx);
            return ar_fail(e, AR_EINVAL, "%s: algos[%d]: unknown algorithm %s (see 'arlab algos')", file, a,
                           ar_quote(name, q, sizeof q));
        }
    }

    /* platforms: resolve files against the sweep's directory, tell families */
    char **presets = NULL;
    int npresets = 0;
    ar_err pe = {{0}};
    if (ar_platform_list_presets(&presets, &npresets, &pe) != AR_OK) npresets = 0;
    ctx->plat_spec = ar_calloc((size_t)s->nplatforms, sizeof *ctx->plat_spec);
    ctx->plat_is_family = ar_calloc((size_t)s->nplatforms, sizeof *ctx->plat_is_family);
    if (!ctx->plat_spec || !ctx->plat_is_family) st = ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; !st && i < s->nplatforms; i++) {
        const char *spec = s->platforms[i].spec;
        char *resolved = NULL;
        if (is_path_like(spec) && spec[0] != '/') {
            char *cand = join_path(ctx->dir, spec);
            if (cand && access(cand, R_OK) == 0) resolved = cand;
            else free(cand);
        }
        int file_like = resolved || (is_path_like(spec) && access(spec, R_OK) == 0);
        ctx->plat_is_family[i] = !file_like && !is_preset(presets, npresets, spec);
        ctx->plat_spec[i] = resolved ? resolved : ar_strdup(spec);
        if (!ctx->plat_spec[i]) st = ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int i = 0; i < npresets; i++) free(presets[i]);
    free(presets);

    /* the grid */
    ar_backend bk[4];
    int nbk = 0;
    for (int b = 0; b < s->nbackends; b++) {
        ar_backend r = s->backends[b];
        if (r == AR_BACKEND_AUTO) r = sweep_have_sim() ? AR_BACKEND_SIM : AR_BACKEND_MODEL;
        int dup = 0;
        for (int k = 0; k < nbk; k++) dup |= bk[k] == r;
        if (!dup) bk[nbk++] = r;
    }
    if (!st && !sweep_have_sim())
        for (int k = 0; k < nbk; k++)
            if (bk[k] == AR_BACKEND_SIM)
                st = ar_fail(e, AR_EUNSUPPORTED,
                             "%s: backend: \"sim\" needs the SimGrid backend, which this build lacks "
                             "(use \"auto\" to fall back to the model)", file);
#ifdef AR_HAVE_SIM
    if (!st && s->sim_network) {
        ar_err ne = {{0}};
        if (ar_sim_network_parse(s->sim_network, NULL, 0, &ne) != AR_OK)
            st = ar_fail(e, AR_EINVAL, "%s: sim.network: %s", file, ne.msg);
    }
#endif
    long long np = 0;
    for (int i = 0; !st && i < s->nplatforms; i++) {
        int nr = s->platforms[i].nranks ? s->platforms[i].nranks : (ctx->plat_is_family[i] && s->nranks) ? s->nranks : 1;
        np += (long long)nr * nbk * s->nalgos * s->nsizes;
    }
    if (!st && np > AR_SWEEP_MAX_POINTS) st = ar_fail(e, AR_EINVAL, "%s: the grid has %lld points; the limit is %d", file, np, AR_SWEEP_MAX_POINTS);
    if (!st && !(ctx->points = ar_calloc((size_t)(np ? np : 1), sizeof *ctx->points)))
        st = ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; !st && i < s->nplatforms; i++) {
        const ar_sweep_platform *pe2 = &s->platforms[i];
        const int *rl = pe2->nranks ? pe2->ranks : (ctx->plat_is_family[i] && s->nranks) ? s->ranks : NULL;
        int nr = pe2->nranks ? pe2->nranks : rl ? s->nranks : 1;
        for (int r = 0; !st && r < nr; r++) {
            int ranks = rl ? rl[r] : 0;
            /* load once to check it, with the JSON path in the message */
            ar_platform *p = NULL;
            ar_err le = {{0}};
            ar_status ls = ar_platform_load(ctx->plat_spec[i], ranks, &p, &le);
            if (ls) {
                st = ar_fail(e, ls, "%s: platforms[%d]%s: %s", file, i, rl ? " (ranks)" : "", le.msg);
                break;
            }
            ar_platform_free(p);
            for (int b = 0; b < nbk; b++)
                for (int a = 0; a < s->nalgos; a++) {
                    if (excluded(pe2, s->algos[a].spec)) continue;
                    for (int z = 0; z < s->nsizes; z++) {
                        sweep_point *pt = &ctx->points[ctx->npoints++];
                        pt->plat = i;
                        pt->ranks = ranks;
                        pt->backend = bk[b];
                        pt->algo = a;
                        pt->size = z;
                    }
                }
        }
    }
    ctx->nkeys_per_point = s->ntrain ? s->ntrain : 1;
    if (!st) st = import_real(ctx, e);
    if (st) sweep_close(ctx);
    return st;
}

void sweep_close(sweep_ctx *ctx) {
    if (ctx->spec) {
        for (int i = 0; i < ctx->spec->nplatforms; i++)
            if (ctx->plat_spec) free(ctx->plat_spec[i]);
        ar_sweep_free(ctx->spec);
    }
    free(ctx->plat_spec);
    free(ctx->plat_is_family);
    free(ctx->points);
    free(ctx->file);
    free(ctx->dir);
    for (int i = 0; i < ctx->nmeasures; i++) {
        free(ctx->measures[i].algo);
        free(ctx->measures[i].platform);
    }
    free(ctx->measures);
    ar_platform_free(ctx->cache);
    memset(ctx, 0, sizeof *ctx);
}

void sweep_key(const sweep_ctx *ctx, int i, int k, char *buf, size_t n) {
    const sweep_point *pt = &ctx->points[i];
    const ar_sweep *s = ctx->spec;
    snprintf(buf, n, "%s|%s|%d|%s|%llu|%s|%s", ar_backend_name(pt->backend), s->platforms[pt->plat].spec, pt->ranks,
             s->algos[pt->algo].spec, (unsigned long long)s->sizes[pt->size].elems, ar_dtype_name(s->dtype),
             s->ntrain ? s->train[k].label : "");
}

/* ---- evaluation ------------------------------------------------------- */

static void set(sweep_row *r, int col, const char *v) {
    free(r->f[col]);
    r->f[col] = ar_strdup(v ? v : "");
}

/* Text for columns that plots read: commas and quotes become ';' and '\''. */
static void set_plain(sweep_row *r, int col, const char *v) {
    set(r, col, v);
    for (char *p = r->f[col]; p && *p; p++) {
        if (*p == ',') *p = ';';
        else if (*p == '"') *p = '\'';
        else if ((unsigned char)*p < 0x20) *p = ' ';
    }
}

static void setf(sweep_row *r, int col, const char *fmt, double v) {
    char buf[64] = "";
    if (isfinite(v)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, fmt, v); /* fmt is a literal at every call site */
#pragma GCC diagnostic pop
    }
    set(r, col, buf);
}

static void seti(sweep_row *r, int col, long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    set(r, col, buf);
}

/* FNV-1a of the platform's file (presets, files) or of its spec (families). */
static void platform_hash(const ar_platform *p, const char *spec, int ranks, char *out, size_t n) {
    uint64_t h = AR_FNV1A_INIT;
    const char *src = p->source ? p->source : "";
    char *path = NULL;
    if (!strncmp(src, "preset:", 7)) {
        const char *dir = ar_platform_preset_dir();
        size_t len = strlen(dir) + strlen(src + 7) + 8;
        if ((path = malloc(len))) snprintf(path, len, "%s/%s.json", dir, src + 7);
    } else if (strncmp(src, "generated:", 10) != 0 && *src) {
        path = ar_strdup(src);
    }
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) {
        unsigned char buf[8192];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) h = ar_fnv1a64(h, buf, k);
        fclose(f);
    } else {
        char rb[32];
        snprintf(rb, sizeof rb, "|ranks=%d", ranks);
        h = ar_fnv1a64(h, spec, strlen(spec));
        h = ar_fnv1a64(h, rb, strlen(rb));
    }
    free(path);
    snprintf(out, n, "%016llx", (unsigned long long)h);
}

static ar_status ctx_platform(sweep_ctx *ctx, const sweep_point *pt, ar_platform **out, ar_err *e) {
    if (ctx->cache && ctx->cache_plat == pt->plat && ctx->cache_ranks == pt->ranks) {
        *out = ctx->cache;
        return AR_OK;
    }
    ar_platform_free(ctx->cache);
    ctx->cache = NULL;
    ctx->cache_plat = -1;
    ar_status st = ar_platform_load(ctx->plat_spec[pt->plat], pt->ranks, &ctx->cache, e);
    if (st) return st;
    ctx->cache_plat = pt->plat;
    ctx->cache_ranks = pt->ranks;
    platform_hash(ctx->cache, ctx->spec->platforms[pt->plat].spec, pt->ranks, ctx->cache_hash, sizeof ctx->cache_hash);
    *out = ctx->cache;
    return AR_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the imported measurements of this point, NAN if none. */
static double find_measure(const sweep_ctx *ctx, const char *algo, const char *plat_name, const char *label, int ranks,
                           double bytes, int *count) {
    double v[64];
    int n = 0;
    size_t alen = strcspn(algo, ":");
    for (int i = 0; i < ctx->nmeasures && n < 64; i++) {
        const sweep_measure *m = &ctx->measures[i];
        int algo_ok = !strcmp(m->algo, algo) || (strlen(m->algo) == alen && !strncmp(m->algo, algo, alen));
        int plat_ok = !strcmp(m->platform, plat_name) || (label && !strcmp(m->platform, label));
        if (algo_ok && plat_ok && m->ranks == ranks && m->bytes == bytes) v[n++] = m->measured_s;
    }
    *count = n;
    if (!n) return NAN;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* (a - b) / b; rounding noise below 1e-12 reads as 0. */
static double rel(double a, double b) {
    if (!isfinite(a) || !isfinite(b) || !(b > 0)) return NAN;
    double d = (a - b) / b;
    return fabs(d) < 1e-12 ? 0.0 : d;
}

/* 1 if some phase runs concurrent pieces of clearly different sizes (> 1 %
 * apart): FlexReduce's uneven reduce calls, not equal shards. A piece is a
 * member's block for reduce-scatter/all-gather, the op's range otherwise. */
static int schedule_uneven(const ar_schedule *sch) {
    for (int ph = 0; ph < sch->nphases; ph++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int o = 0; o < sch->phases[ph].nops; o++) {
            const ar_op *op = &sch->phases[ph].ops[o];
            if (op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_ALL_GATHER) {
                for (int m = 0; m < op->n; m++) {
                    uint64_t off, len;
                    ar_op_block(op, m, &off, &len);
                    if (len < lo) lo = len;
                    if (len > hi) hi = len;
                }
            } else {
                if (op->count < lo) lo = op->count;
                if (op->count > hi) hi = op->count;
            }
        }
        if (hi > 0 && (double)hi > 1.01 * (double)lo + 1) return 1;
    }
    return 0;
}

/* Why time_s parts from model_s: a heuristic label naming the assumption
 * that broke ("agree" within 1 %; "" when there is nothing to compare).
 * walk = the cost walk of the schedule, closed = the paper's closed form;
 * uneven = the schedule has ops with uneven blocks (FlexReduce). */
static const char *cause_of(ar_backend b, double t, double model, double closed, double walk, int uneven) {
    double d = rel(t, model);
    if (!isfinite(d)) return "";
    if (fabs(d) < SW_AGREE) return "agree";
    double sw = rel(t, walk);
    if (b == AR_BACKEND_REAL && isfinite(sw) && fabs(sw) >= SW_AGREE)
        return "measurement: overheads not in the model";
    if (b == AR_BACKEND_SIM && isfinite(sw) && fabs(sw) >= SW_AGREE) {
        if (sw > 0) return "sim: contention the cost walk does not count";
        return uneven ? "sim: uneven calls overlap instead of lockstep rounds"
                      : "sim: max-min sharing beats the walk's equal shares";
    }
    double cw = rel(walk, closed); /* the schedule's own cost vs the closed form */
    if (isfinite(cw) && fabs(cw) >= SW_AGREE) {
        if (uneven && cw > 0) return "uneven blocks: each lockstep round waits for its largest block";
        if (cw > 0) return "link sharing the closed form does not count";
        return "closed form prices every step at the slowest link";
    }
    return "model assumption";
}

/* Everything a point computes, before it is spread over rows. */
typedef struct point_result {
    const char *status;
    char message[AR_ERR_LEN + 64];
    char detail[256];
    char network[700];
    double time_s, model_s, closed_s, walk_s, sim_s, measured_s;
    double calls_max, calls_avg, calls_bound;
    const char *cause;
} point_result;

/* FlexReduce Fig. 4(c): reduce calls per learner at the top level (the step
 * Eq. 12 bounds), max and mean over learners, and the largest Eq. 12 bound. */
static void fr_calls(const ar_platform *p, point_result *pr) {
    ar_fr_plan *fp = NULL;
    ar_err e = {{0}};
    if (ar_fr_plan_build(p, &fp, &e) != AR_OK) return;
    int L = fp->L, n = fp->nranks;
    int *calls = ar_calloc((size_t)L * (size_t)n, sizeof *calls);
    int *bound = ar_calloc((size_t)p->height * (size_t)n, sizeof *bound);
    if (calls && bound && L >= 1) {
        ar_fr_calls(fp, calls);
        double sum = 0, mx = 0;
        for (int r = 0; r < n; r++) {
            int c = calls[(size_t)(L - 1) * (size_t)n + (size_t)r];
            sum += c;
            if (c > mx) mx = c;
        }
        pr->calls_max = mx;
        pr->calls_avg = n ? sum / n : NAN;
        if (p->height == L && ar_fr_eq12_bound(p, bound, &e) == AR_OK) {
            int b = 0;
            for (int r = 0; r < n; r++)
                if (bound[(size_t)(L - 1) * (size_t)n + (size_t)r] > b) b = bound[(size_t)(L - 1) * (size_t)n + (size_t)r];
            pr->calls_bound = b;
        }
    }
    free(calls);
    free(bound);
    ar_fr_plan_free(fp);
}

static void run_backends(sweep_ctx *ctx, const sweep_point *pt, ar_platform *p, const ar_schedule *sch,
                         const char *label, point_result *pr) {
    const ar_sweep *s = ctx->spec;
    const char *algo = s->algos[pt->algo].spec;
    snprintf(pr->network, sizeof pr->network,
             "model: cost walk (alpha-beta; lockstep rounds; equal link shares per round)");
    int nmeas = 0;
    if (pt->backend == AR_BACKEND_REAL) {
        double bytes = (double)s->sizes[pt->size].elems * (double)ar_dtype_size(s->dtype);
        pr->measured_s = find_measure(ctx, algo, p->name, label, p->nranks, bytes, &nmeas);
    }
    /* real rows get the simulated time next to the measurement, when there is one */
    int want_sim = pt->backend == AR_BACKEND_SIM || (pt->backend == AR_BACKEND_REAL && nmeas && sweep_have_sim());
    if (want_sim) {
#ifdef AR_HAVE_SIM
        ar_err e = {{0}};
        ar_sim_opts so;
        memset(&so, 0, sizeof so);
        so.network = s->sim_network; /* NULL = CM02 configured as the alpha-beta models assume */
        so.gamma_s_per_B = s->sim_gamma_s_per_B;
        so.budget_s = s->sim_budget_s;
        ar_sim_result res;
        memset(&res, 0, sizeof res);
        ar_status st = ar_sim_run(p, sch, &so, &res, &e);
        if (st == AR_OK && res.complete) {
            pr->sim_s = res.time_s;
            snprintf(pr->network, sizeof pr->network, "sim (%s engine): %s", res.engine, res.network);
        } else if (st == AR_OK) {
            pr->status = "error";
            snprintf(pr->message, sizeof pr->message, "sim: stopped by sim.budget after %.3g s of simulated time",
                     res.time_s);
        } else {
            pr->status = "error";
            snprintf(pr->message, sizeof pr->message, "sim: %s", e.msg);
        }
        ar_sim_result_free(&res);
#else
        (void)sch;
        pr->status = "error";
        snprintf(pr->message, sizeof pr->message, "sim: this build has no SimGrid backend");
#endif
    }
    switch (pt->backend) {
    case AR_BACKEND_MODEL:
        pr->time_s = pr->walk_s;
        break;
    case AR_BACKEND_SIM:
        pr->time_s = pr->sim_s;
        break;
    case AR_BACKEND_REAL:
        pr->time_s = pr->measured_s;
        if (!nmeas && !strcmp(pr->status, "ok")) {
            pr->status = "missing";
            snprintf(pr->message, sizeof pr->message, "no measurement in real.csv for this point");
        } else if (nmeas) {
            size_t l = strlen(pr->network);
            snprintf(pr->network + l, sizeof pr->network - l, "; real: median of %d imported measurement%s", nmeas,
                     nmeas == 1 ? "" : "s");
        }
        break;
    case AR_BACKEND_AUTO:
        break;
    }
}

ar_status sweep_eval(sweep_ctx *ctx, int i, sweep_rows *out, ar_err *e) {
    const sweep_point *pt = &ctx->points[i];
    const ar_sweep *s = ctx->spec;
    const ar_sweep_algo *sa = &s->algos[pt->algo];
    size_t eb = ar_dtype_size(s->dtype);
    uint64_t elems = s->sizes[pt->size].elems;
    point_result pr;
    memset(&pr, 0, sizeof pr);
    pr.status = "ok";
    pr.time_s = pr.model_s = pr.closed_s = pr.walk_s = pr.sim_s = pr.measured_s = NAN;
    pr.calls_max = pr.calls_avg = pr.calls_bound = NAN;
    pr.cause = "";

    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(sa->spec, ":"), sa->spec);
    const ar_algo *al = ar_algo_find(name);
    const char *label = sa->label ? sa->label : al ? al->label : name;

    ar_platform *p = NULL;
    ar_err le = {{0}};
    ar_schedule *sch = NULL;
    const char *plabel = s->platforms[pt->plat].label;
    if (ctx_platform(ctx, pt, &p, &le) != AR_OK) {
        pr.status = "error";
        snprintf(pr.message, sizeof pr.message, "platform: %s", le.msg);
    } else {
        ar_status st = ar_algo_plan(sa->spec, p, elems, eb, &sch, &le);
        if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) {
            pr.status = "unsupported";
            snprintf(pr.message, sizeof pr.message, "%s", le.msg);
        } else if (st != AR_OK) {
            pr.status = "error";
            snprintf(pr.message, sizeof pr.message, "plan: %s", le.msg);
        }
    }
    if (sch) {
        snprintf(pr.detail, sizeof pr.detail, "%s", sch->detail ? sch->detail : "");
        int uneven = schedule_uneven(sch);
        ar_model_result walk, closed;
        ar_err we = {{0}};
        if (ar_model_walk(p, sch, &walk, &we) == AR_OK) pr.walk_s = walk.time_s;
        else {
            pr.status = "error";
            snprintf(pr.message, sizeof pr.message, "model walk: %s", we.msg);
        }
        ar_params params;
        closed.note[0] = 0;
        if (ar_params_parse(sa->spec, &params, &we) == AR_OK) {
            if (ar_model_closed(p, elems, eb, &params, &closed, &we) == AR_OK) pr.closed_s = closed.time_s;
            ar_params_free(&params);
        }
        pr.model_s = isfinite(pr.closed_s) ? pr.closed_s : pr.walk_s;
        ar_call_stats cs;
        if (!strcmp(name, "flexreduce")) {
            fr_calls(p, &pr);
        } else if (ar_schedule_call_stats(sch, &cs, &we) == AR_OK) {
            double sum = 0, mx = 0;
            for (int r = 0; r < sch->nranks; r++) {
                sum += cs.reduce_calls[r];
                if (cs.reduce_calls[r] > mx) mx = cs.reduce_calls[r];
            }
            pr.calls_max = mx;
            pr.calls_avg = sch->nranks ? sum / sch->nranks : NAN;
            ar_call_stats_free(&cs);
        }
        if (!strcmp(pr.status, "ok")) run_backends(ctx, pt, p, sch, plabel, &pr);
        if (!strcmp(pr.status, "ok"))
            pr.cause = cause_of(pt->backend, pr.time_s, pr.model_s, pr.closed_s, pr.walk_s, uneven);
        if (closed.note[0] && !pr.message[0] && isfinite(pr.closed_s))
            snprintf(pr.message, sizeof pr.message, "closed form: %s", closed.note);
        ar_schedule_free(sch);
    }

    for (int k = 0; k < ctx->nkeys_per_point; k++) {
        if (out->n == out->cap) {
            int nc = out->cap ? 2 * out->cap : 16;
            sweep_row *nr = ar_reallocarray(out->r, (size_t)nc, sizeof *nr);
            if (!nr) return ar_fail(e, AR_ENOMEM, "out of memory");
            out->r = nr;
            out->cap = nc;
        }
        sweep_row *r = &out->r[out->n++];
        memset(r, 0, sizeof *r);
        set(r, SC_SWEEP, s->name);
        set(r, SC_BACKEND, ar_backend_name(pt->backend));
        set_plain(r, SC_PLATFORM, plabel ? plabel : p ? p->name : s->platforms[pt->plat].spec);
        if (p) {
            seti(r, SC_RANKS, p->nranks);
            seti(r, SC_MACHINES, p->nmachines);
        }
        set_plain(r, SC_ALGO, sa->spec);
        set_plain(r, SC_LABEL, label);
        set(r, SC_DTYPE, ar_dtype_name(s->dtype));
        seti(r, SC_ELEMS, (long long)elems);
        setf(r, SC_BYTES, "%.0f", (double)elems * (double)eb);
        setf(r, SC_TIME, "%.9g", pr.time_s);
        setf(r, SC_MODEL, "%.9g", pr.model_s);
        setf(r, SC_CLOSED, "%.9g", pr.closed_s);
        setf(r, SC_WALK, "%.9g", pr.walk_s);
        setf(r, SC_SIM, "%.9g", pr.sim_s);
        setf(r, SC_MEASURED, "%.9g", pr.measured_s);
        setf(r, SC_REL_DIFF, "%.6g", rel(pr.time_s, pr.model_s));
        set(r, SC_BASE, "");
        set(r, SC_VS_BASE, "");
        set(r, SC_SAVING, "");
        setf(r, SC_CALLS_MAX, "%.0f", pr.calls_max);
        setf(r, SC_CALLS_AVG, "%.6g", pr.calls_avg);
        setf(r, SC_CALLS_BOUND, "%.0f", pr.calls_bound);
        set(r, SC_TRAIN, s->ntrain ? s->train[k].label : "");
        if (s->ntrain && isfinite(pr.time_s) && p) {
            ar_train_result tr = ar_train_eval(&s->train[k], p->nranks, pr.time_s);
            setf(r, SC_COMPUTE, "%.9g", tr.compute_s);
            setf(r, SC_COMM, "%.9g", tr.comm_s);
            setf(r, SC_ITER, "%.9g", tr.iter_s);
            setf(r, SC_OVERHEAD, "%.9g", tr.overhead_s);
            setf(r, SC_IMAGES, "%.6g", tr.images_s);
            setf(r, SC_SPEEDUP, "%.6g", tr.speedup);
            setf(r, SC_EFF, "%.6g", tr.scaling_eff);
        } else {
            static const int tc[] = {SC_COMPUTE, SC_COMM, SC_ITER, SC_OVERHEAD, SC_IMAGES, SC_SPEEDUP, SC_EFF};
            for (size_t c = 0; c < sizeof tc / sizeof tc[0]; c++) set(r, tc[c], "");
        }
        set(r, SC_STATUS, pr.status);
        set(r, SC_CAUSE, pr.cause);
        set(r, SC_PLATFORM_HASH, p ? ctx->cache_hash : "");
        set(r, SC_VERSION, ctx->version);
        set(r, SC_COMMIT, ctx->commit);
        set(r, SC_PLATFORM_SRC, p && p->source ? p->source : s->platforms[pt->plat].spec);
        set(r, SC_NETWORK, pr.network);
        set(r, SC_DETAIL, pr.detail);
        set_plain(r, SC_MESSAGE, pr.message);
        char key[2048];
        sweep_key(ctx, i, k, key, sizeof key);
        set(r, SC_KEY, key);
        for (int c = 0; c < SW_NCOLS; c++)
            if (!r->f[c]) return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    return AR_OK;
}
