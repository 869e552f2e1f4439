/* The sweep engine (sweep.h): opening a sweep file, the grid, row keys and
 * the platform cache. Points are evaluated in sweep_eval.c, results files
 * are in sweep_io.c. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/algo.h"
#include "core/util.h"
#include "sweep.h"

#ifndef AR_GIT_COMMIT
#define AR_GIT_COMMIT "unknown"
#endif
#ifndef AR_VERSION
#define AR_VERSION "unknown"
#endif

/* ---- opening ---------------------------------------------------------- */

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
 * patterns, read by the one measured-CSV reader (measured.h). */
static ar_status import_real(sweep_ctx *ctx, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    for (int i = 0; i < s->nreal_csv; i++) {
        char *pat = join_path(ctx->dir, s->real_csv[i]);
        if (!pat) return ar_fail(e, AR_ENOMEM, "out of memory");
        glob_t g;
        memset(&g, 0, sizeof g);
        int gr = glob(pat, 0, NULL, &g);
        free(pat);
        for (size_t k = 0; gr == 0 && k < g.gl_pathc; k++) {
            ar_err e2 = {{0}};
            ar_status st = lab_measured_read(g.gl_pathv[k], 0, &ctx->measures, &e2);
            if (st) {
                globfree(&g);
                return ar_fail(e, st == AR_ENOMEM ? AR_ENOMEM : AR_EIO, "%s: real.csv[%d]: %s", ctx->file, i, e2.msg);
            }
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

/* Reads the sweep file into ctx (its path, directory and parsed spec). */
static ar_status open_spec(const char *file, sweep_ctx *ctx, ar_err *e) {
    char *text = NULL;
    size_t tlen = 0;
    ar_status st = ar_read_file(file, (size_t)16 << 20, &text, &tlen, e);
    if (st) return st;
    if (strlen(text) != tlen) {
        free(text);
        return ar_fail(e, AR_EINVAL, "%s: contains a NUL byte", file);
    }
    ctx->file = ar_strdup(file);
    const char *slash = strrchr(file, '/');
    ctx->dir = slash ? strndup(file, (size_t)(slash - file) ? (size_t)(slash - file) : 1) : ar_strdup(".");
    if (!ctx->file || !ctx->dir) {
        free(text);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    st = sweep_from_json(text, file, &ctx->spec, e);
    free(text);
    return st;
}

/* Every algorithm of the sweep is registered. */
static ar_status check_algos(const char *file, const ar_sweep *s, ar_err *e) {
    for (int a = 0; a < s->nalgos; a++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(s->algos[a].spec, ":"), s->algos[a].spec);
        if (!ar_algo_find(name)) {
            char q[96];
            return ar_fail(e, AR_EINVAL, "%s: algos[%d]: unknown algorithm %s (see 'arlab algos')", file, a,
                           ar_quote(name, q, sizeof q));
        }
    }
    return AR_OK;
}

/* Platforms: files resolved against the sweep's directory; what is neither a file nor a preset is a family. */
static ar_status resolve_platforms(sweep_ctx *ctx, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    ar_status st = AR_OK;
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
    return st;
}

/* Scenario files, relative to the sweep's directory; each entry's scenario is loaded once to check it. */
static ar_status resolve_scenarios(sweep_ctx *ctx, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    if (!(ctx->scen_file = ar_calloc((size_t)s->nplatforms, sizeof *ctx->scen_file)))
        return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; i < s->nplatforms; i++) {
        const ar_sweep_platform *sp = &s->platforms[i];
        if (!sp->scenario) continue;
        ctx->scen_file[i] = sp->scenario[0] == '/' ? ar_strdup(sp->scenario) : join_path(ctx->dir, sp->scenario);
        if (!ctx->scen_file[i]) return ar_fail(e, AR_ENOMEM, "out of memory");
        ar_scenario *sc = NULL;
        ar_err se = {{0}};
        ar_status ss = ar_scenario_load_set(ctx->scen_file[i], sp->scen_set, sp->scen_value, &sc, &se);
        if (!ss && sc->njobs) ss = ar_fail(&se, AR_EUNSUPPORTED, "%s: jobs: not run by sweeps yet", sc->source);
        ar_scenario_free(sc);
        if (ss) return ar_fail(e, ss, "%s: platforms[%d].scenario: %s", ctx->file, i, se.msg);
    }
    return AR_OK;
}

/* The sweep's distinct backends (at most 4) into bk; each must be built in, and sim.network must parse. */
static ar_status grid_backends(const sweep_ctx *ctx, const lab_backend *bk[4], int *nbk, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    *nbk = 0;
    for (int b = 0; b < s->nbackends; b++) {
        const lab_backend *r = s->backends[b] ? s->backends[b] : lab_backend_auto();
        int dup = 0;
        for (int k = 0; k < *nbk; k++) dup |= bk[k] == r;
        if (!dup) bk[(*nbk)++] = r;
    }
    for (int k = 0; k < *nbk; k++)
        if (!bk[k]->available)
            return ar_fail(e, AR_EUNSUPPORTED,
                           "%s: backend: \"%s\" needs the %s backend, which this build lacks "
                           "(use \"auto\" to fall back to the model)",
                           ctx->file, bk[k]->name, (bk[k]->caps & LAB_CAP_NEEDS_SIMGRID) ? "SimGrid" : "CUDA/NCCL");
    const lab_sim_api *sim = lab_sim();
    if (s->sim_network && sim) {
        ar_err ne = {{0}};
        if (sim->network_parse(s->sim_network, NULL, 0, &ne) != AR_OK)
            return ar_fail(e, AR_EINVAL, "%s: sim.network: %s", ctx->file, ne.msg);
    }
    return AR_OK;
}

/* The grid's points: platform entry x ranks x backend x algorithm x size, in that order; each platform
 * (and rank count) is loaded once to check it, with the JSON path in the message. */
static ar_status build_grid(sweep_ctx *ctx, const lab_backend *const *bk, int nbk, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    long long np = 0;
    for (int i = 0; i < s->nplatforms; i++) {
        int nr = s->platforms[i].nranks                  ? s->platforms[i].nranks
                 : (ctx->plat_is_family[i] && s->nranks) ? s->nranks
                                                         : 1;
        np += (long long)nr * nbk * s->nalgos * s->nsizes;
    }
    if (np > AR_SWEEP_MAX_POINTS)
        return ar_fail(e, AR_EINVAL, "%s: the grid has %lld points; the limit is %d", ctx->file, np,
                       AR_SWEEP_MAX_POINTS);
    if (!(ctx->points = ar_calloc((size_t)(np ? np : 1), sizeof *ctx->points)))
        return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; i < s->nplatforms; i++) {
        const ar_sweep_platform *pe2 = &s->platforms[i];
        const int *rl = pe2->nranks ? pe2->ranks : (ctx->plat_is_family[i] && s->nranks) ? s->ranks : NULL;
        int nr = pe2->nranks ? pe2->nranks : rl ? s->nranks : 1;
        for (int r = 0; r < nr; r++) {
            int ranks = rl ? rl[r] : 0;
            ar_platform *p = NULL;
            ar_err le = {{0}};
            ar_status ls = ar_platform_load(ctx->plat_spec[i], ranks, &p, &le);
            if (ls) return ar_fail(e, ls, "%s: platforms[%d]%s: %s", ctx->file, i, rl ? " (ranks)" : "", le.msg);
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
    return AR_OK;
}

ar_status sweep_open(const char *file, sweep_ctx *ctx, ar_err *e) {
    memset(ctx, 0, sizeof *ctx);
    ctx->cache_plat = -1;
    ctx->commit = AR_GIT_COMMIT;
    ctx->version = AR_VERSION;
    const lab_backend *bk[4];
    int nbk = 0;
    ar_status st = open_spec(file, ctx, e);
    if (!st) st = check_algos(file, ctx->spec, e);
    if (!st) st = resolve_platforms(ctx, e);
    if (!st) st = resolve_scenarios(ctx, e);
    if (!st) st = grid_backends(ctx, bk, &nbk, e);
    if (!st) st = build_grid(ctx, bk, nbk, e);
    ctx->nkeys_per_point = ctx->spec ? (ctx->spec->ntrain ? ctx->spec->ntrain : 1) : 0;
    if (!st) st = import_real(ctx, e);
    if (st) sweep_close(ctx);
    return st;
}

void sweep_close(sweep_ctx *ctx) {
    if (ctx->spec) {
        for (int i = 0; i < ctx->spec->nplatforms; i++) {
            if (ctx->plat_spec) free(ctx->plat_spec[i]);
            if (ctx->scen_file) free(ctx->scen_file[i]);
        }
        sweep_free(ctx->spec);
    }
    AR_FREE_ALL(ctx->scen_file, ctx->plat_spec, ctx->plat_is_family, ctx->points, ctx->file, ctx->dir);
    lab_measures_free(&ctx->measures);
    ar_platform_free(ctx->cache);
    ar_scenario_free(ctx->cache_scen);
    memset(ctx, 0, sizeof *ctx);
}

#define SWEEP_KEY_PLAT 1600

void sweep_key(const sweep_ctx *ctx, int i, int k, char *buf, size_t n) {
    const sweep_point *pt = &ctx->points[i];
    const ar_sweep *s = ctx->spec;
    const ar_sweep_platform *sp = &s->platforms[pt->plat];
    char plat[SWEEP_KEY_PLAT];
    if (sp->scenario)
        snprintf(plat, sizeof plat, "%s+scenario=%s%s%s%s%s", sp->spec, sp->scenario, sp->scen_set ? "@" : "",
                 sp->scen_set ? sp->scen_set : "", sp->scen_set ? "=" : "", sp->scen_value ? sp->scen_value : "");
    else snprintf(plat, sizeof plat, "%s", sp->spec);
    snprintf(buf, n, "%s|%s|%d|%s|%llu|%s|%s", pt->backend->name, plat, pt->ranks, s->algos[pt->algo].spec,
             (unsigned long long)s->sizes[pt->size].elems, ar_dtype_name(s->dtype), s->ntrain ? s->train[k].label : "");
}

/* FNV-1a of the platform's file (presets, files) or of its spec (families). */
static void platform_hash(const ar_platform *p, const char *spec, int ranks, char *out, size_t n) {
    uint64_t h = AR_FNV1A_INIT;
    const char *src = p->source ? p->source : "";
    char *path = NULL;
    if (!strncmp(src, "preset:", 7)) {
        if ((path = malloc(4608)) && !ar_platform_preset_path(src + 7, strlen(src + 7), path, 4608)) path[0] = 0;
    } else if (strncmp(src, "generated:", 10) != 0 && *src) {
        path = ar_strdup(src);
    }
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) {
        unsigned char buf[8192];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) h = sweep_fnv1a64(h, buf, k);
        fclose(f);
    } else {
        char rb[32];
        snprintf(rb, sizeof rb, "|ranks=%d", ranks);
        h = sweep_fnv1a64(h, spec, strlen(spec));
        h = sweep_fnv1a64(h, rb, strlen(rb));
    }
    free(path);
    snprintf(out, n, "%016llx", (unsigned long long)h);
}

ar_status sweep_platform(sweep_ctx *ctx, const sweep_point *pt, ar_platform **out, ar_err *e) {
    if (ctx->cache && ctx->cache_plat == pt->plat && ctx->cache_ranks == pt->ranks) {
        *out = ctx->cache;
        return AR_OK;
    }
    ar_platform_free(ctx->cache);
    ar_scenario_free(ctx->cache_scen);
    ctx->cache = NULL;
    ctx->cache_scen = NULL;
    ctx->cache_plat = -1;
    ar_status st = ar_platform_load(ctx->plat_spec[pt->plat], pt->ranks, &ctx->cache, e);
    if (st) return st;
    const ar_sweep_platform *sp = &ctx->spec->platforms[pt->plat];
    if (ctx->scen_file && ctx->scen_file[pt->plat]) { /* what-if: the platform as the scenario leaves it */
        st = ar_scenario_load_set(ctx->scen_file[pt->plat], sp->scen_set, sp->scen_value, &ctx->cache_scen, e);
        if (!st) st = ar_scenario_apply(ctx->cache_scen, &ctx->cache, e);
        if (st) {
            ar_platform_free(ctx->cache);
            ar_scenario_free(ctx->cache_scen);
            ctx->cache = NULL;
            ctx->cache_scen = NULL;
            return st;
        }
    }
    ctx->cache_plat = pt->plat;
    ctx->cache_ranks = pt->ranks;
    platform_hash(ctx->cache, ctx->spec->platforms[pt->plat].spec, pt->ranks, ctx->cache_hash, sizeof ctx->cache_hash);
    *out = ctx->cache;
    return AR_OK;
}
