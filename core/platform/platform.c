/* Platforms by name (families, files, presets), the preset list, and printing.
 * Uses only the public platform.h: the builder is platform_build.c, its
 * validation platform_finish.c, JSON parsing platform_json.c, generated
 * families platform_gen.c, routes platform_route.c. */
#include "platform.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform_rail.h"
#include "core/textio.h"
#include "core/units.h"
#include "core/util.h"

static ar_status unknown_preset(const char *spec, ar_err *e);
#include "core/util.h"

#ifndef AR_PRESET_DIR
#define AR_PRESET_DIR "platforms"
#endif

/* ---- loading ---- */

const char *ar_platform_preset_dir(void) {
    /* An immutable fact of this process, computed once: an installed arlab (cmake --install) finds its
     * presets relative to its executable, so the install can be moved; else the source tree's platforms/. */
    static char dir[PATH_MAX + 32];
    if (dir[0]) return dir;
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(dir, sizeof dir, "%s/../share/arlab/presets", exe);
            DIR *d = opendir(dir);
            if (d) {
                closedir(d);
                return dir;
            }
        }
    }
    snprintf(dir, sizeof dir, "%s", AR_PRESET_DIR);
    return dir;
}

int ar_platform_preset_path(const char *name, size_t len, char *buf, size_t n) {
    const char *env = getenv("ARLAB_PLATFORM_DIR");
    const char *dirs[2] = {env && *env ? env : "", ar_platform_preset_dir()};
    for (int k = 0; k < 2; k++)
        for (const char *d = dirs[k]; *d;) { /* ':'-separated list (the built-in dir: one entry) */
            size_t dl = k ? strlen(d) : strcspn(d, ":");
            if (dl > 0) {
                int w = snprintf(buf, n, "%.*s/%.*s.json", (int)dl, d, (int)len, name);
                FILE *f = w > 0 && (size_t)w < n ? fopen(buf, "rb") : NULL;
                if (f) {
                    fclose(f);
                    return 1;
                }
            }
            d += dl;
            if (*d == ':') d++;
        }
    return 0;
}

#define AR_MAX_FILE_BYTES (256u << 20)

/* Reads a whole JSON file into *out (caller frees). */
static ar_status read_text(const char *path, char **out, ar_err *e) {
    size_t n = 0;
    ar_status st = ar_read_file(path, AR_MAX_FILE_BYTES, out, &n, e);
    if (st != AR_OK) return st;
    if (strlen(*out) != n) {
        free(*out);
        *out = NULL;
        return ar_fail(e, AR_EINVAL, "%s: not a JSON text (it contains a NUL byte)", path);
    }
    return AR_OK;
}

static ar_status load_file(const char *path, const char *source, ar_platform **out, ar_err *e) {
    char *text = NULL;
    ar_status st = read_text(path, &text, e);
    if (st) return st;
    st = ar_platform_from_json(text, path, out, e);
    free(text);
    if (st) return st;
    char *s = ar_strdup(source);
    if (!s) {
        ar_platform_free(*out);
        *out = NULL;
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    free((*out)->source);
    (*out)->source = s;
    return AR_OK;
}

static int preset_name_ok(const char *s, size_t n) {
    if (n == 0 || n > AR_NAME_MAX || s[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '+'))
            return 0;
    }
    return 1;
}

ar_status ar_platform_load(const char *spec, int ranks, ar_platform **out, ar_err *e) {
    char q[160];
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_platform_load: no output");
    *out = NULL;
    if (!spec || !*spec) return ar_fail(e, AR_EINVAL, "empty platform name (see 'arlab platforms')");
    if (ranks < 0 || ranks > AR_MAX_RANKS)
        return ar_fail(e, AR_EINVAL, "--ranks %d is out of range (1..%d)", ranks, AR_MAX_RANKS);
    size_t len = strlen(spec);
    ar_status st;
    int generated = 0;
    /* A family spec may hold '/' (bw=32GBps/100Gbps), so families come first. */
    const char *colon = strchr(spec, ':');
    size_t flen = colon ? (size_t)(colon - spec) : len;
    /* rail-optimised multi-node fabrics: "rail[:...]" and "PRESET:nodes=N" (core/platform/platform_rail.c) */
    if (ar_platform_rail_match(spec)) return ar_platform_rail_load(spec, ranks, out, e);
    if (ar_platform_is_family(spec, flen)) {
        generated = 1;
        st = ar_platform_generate(spec, ranks, out, e);
    } else if (strchr(spec, '/') || (len >= 5 && strcmp(spec + len - 5, ".json") == 0)) {
        st = load_file(spec, spec, out, e);
    } else {
        if (colon) {
            char fam[64], q2[96];
            snprintf(fam, sizeof fam, "%.*s", (int)(flen < 63 ? flen : 63), spec);
            return ar_fail(e, AR_EINVAL,
                           "unknown platform family %s in %s (families: flat, tree, fat-tree, torus, "
                           "machines)",
                           ar_quote(fam, q2, sizeof q2), ar_quote(spec, q, sizeof q));
        } else if (!preset_name_ok(spec, len)) {
            return unknown_preset(spec, e);
        } else {
            char *path = malloc(PATH_MAX + 512);
            if (!path) return ar_fail(e, AR_ENOMEM, "out of memory");
            if (!ar_platform_preset_path(spec, len, path, PATH_MAX + 512)) {
                free(path);
                return unknown_preset(spec, e);
            }
            char *src = malloc(len + 8);
            if (!src) {
                free(path);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
            snprintf(src, len + 8, "preset:%s", spec);
            st = load_file(path, src, out, e);
            free(src);
            free(path);
        }
    }
    if (st) return st;
    if (!generated && ranks > 0 && ranks != (*out)->nranks) {
        st = ar_fail(e, AR_EINVAL,
                     "platform %s has %d ranks; --ranks %d applies to generated families "
                     "(e.g. tree, flat, torus)",
                     ar_quote((*out)->name, q, sizeof q), (*out)->nranks, ranks);
        ar_platform_free(*out);
        *out = NULL;
    }
    return st;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends the preset names of one directory to v (duplicates of earlier directories skipped). */
static ar_status list_dir(const char *dir, char ***v, int *n, int *cap, int must, ar_err *e) {
    char q[160];
    DIR *d = opendir(dir);
    if (!d)
        return must ? ar_fail(e, AR_EIO, "cannot open the preset directory %s: %s", ar_quote(dir, q, sizeof q),
                              strerror(errno))
                    : AR_OK;
    ar_status st = AR_OK;
    struct dirent *de;
    while (st == AR_OK && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
        if (!preset_name_ok(de->d_name, len - 5)) continue;
        int dup = 0;
        for (int i = 0; i < *n && !dup; i++) dup = strlen((*v)[i]) == len - 5 && !strncmp((*v)[i], de->d_name, len - 5);
        if (dup) continue;
        if (*n == *cap) {
            int nc = *cap ? *cap * 2 : 32;
            char **nv = ar_reallocarray(*v, (size_t)nc, sizeof *nv);
            if (!nv) {
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                break;
            }
            *v = nv;
            *cap = nc;
        }
        if (!((*v)[*n] = malloc(len - 4))) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        memcpy((*v)[*n], de->d_name, len - 5);
        (*v)[*n][len - 5] = '\0';
        (*n)++;
    }
    closedir(d);
    return st;
}

ar_status ar_platform_list_presets(char ***names, int *count, ar_err *e) {
    *names = NULL;
    *count = 0;
    char **v = NULL;
    int n = 0, cap = 0;
    ar_status st = AR_OK;
    const char *env = getenv("ARLAB_PLATFORM_DIR");
    for (const char *d = env ? env : ""; st == AR_OK && *d;) { /* the user's directories first */
        size_t dl = strcspn(d, ":");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)(dl < sizeof dir ? dl : sizeof dir - 1), d);
        if (dl) st = list_dir(dir, &v, &n, &cap, 0, e);
        d += dl;
        if (*d == ':') d++;
    }
    if (st == AR_OK) st = list_dir(ar_platform_preset_dir(), &v, &n, &cap, 1, e);
    if (st) {
        for (int i = 0; i < n; i++) free(v[i]);
        free(v);
        return st;
    }
    if (n > 1) qsort(v, (size_t)n, sizeof *v, str_cmp);
    *names = v;
    *count = n;
    return AR_OK;
}

/* ---- printing ---- */

static const char *kind_name(ar_platform_kind k) {
    switch (k) {
    case AR_PLAT_TREE: return "tree";
    case AR_PLAT_FAT_TREE: return "fat-tree";
    case AR_PLAT_TORUS: return "torus";
    case AR_PLAT_GRAPH: return "graph";
    }
    return "?";
}

/* Shortest of %.15g / %.17g that reads back exactly. */
static void json_num(FILE *f, double x) {
    char buf[40];
    if (!isfinite(x)) {
        fputs("null", f);
        return;
    }
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, sizeof buf, "%.17g", x);
    fputs(buf, f);
}

/* The switch rates of calibration class c that were given (", \"nvls\": x, \"collnet\": y"). */
static void cal_sw_json(FILE *f, const ar_platform *p, int c) {
    static const char *const k[2] = {"nvls", "collnet"};
    for (int i = 0; i < 2; i++)
        if (p->cal_sw_bw[c][i] > 0) {
            fprintf(f, ", \"%s\": ", k[i]);
            json_num(f, p->cal_sw_bw[c][i]);
        }
}

ar_status ar_platform_print_json(const ar_platform *p, FILE *f, ar_err *e) {
    fputs("{\n  \"name\": ", f);
    ar_json_string(f, p->name);
    fputs(",\n  \"kind\": ", f);
    ar_json_string(f, kind_name(p->kind));
    fputs(",\n  \"source\": ", f);
    ar_json_string(f, p->source);
    if (p->description) {
        fputs(",\n  \"description\": ", f);
        ar_json_string(f, p->description);
    }
    if (p->gpu[0]) {
        fputs(",\n  \"gpu\": ", f);
        ar_json_string(f, p->gpu);
    }
    if (p->nnotes) {
        fputs(",\n  \"notes\": [", f);
        for (int i = 0; i < p->nnotes; i++) {
            fputs(i ? ",\n    " : "\n    ", f);
            ar_json_string(f, p->notes[i]);
        }
        fputs("\n  ]", f);
    }
    if (ar_platform_has_costs(p) || p->msg_ready) { /* compute costs, as the file gives them */
        fputs(",\n  \"compute\": {", f);
        if (p->reduce_Bps > 0) fprintf(f, "\"reduce\": %.17g%s", p->reduce_Bps, p->launch_s > 0 ? ", " : "");
        if (p->launch_s > 0) fprintf(f, "\"launch\": %.17g", p->launch_s);
        if (p->stage_d2h_Bps > 0)
            fprintf(f, "%s\"stage\": {\"d2h\": %.17g, \"h2d\": %.17g, \"transfers\": \"%s\"}",
                    p->reduce_Bps > 0 || p->launch_s > 0 ? ", " : "", p->stage_d2h_Bps, p->stage_h2d_Bps,
                    p->stage_all ? "all" : "inter-machine");
        if (ar_platform_has_msg(p) || p->msg_ready)
            fprintf(f, "%s\"message\": {\"o\": %.17g, \"g\": %.17g, \"transfers\": \"%s\"%s}",
                    p->reduce_Bps > 0 || p->launch_s > 0 || p->stage_d2h_Bps > 0 ? ", " : "", p->msg_o_s, p->msg_g_s,
                    p->msg_all ? "all" : "inter-machine", p->msg_ready ? ", \"ready\": true" : "");
        fputs("}", f);
    }
    fprintf(f, ",\n  \"ranks\": %d,\n  \"machines\": %d", p->nranks, p->nmachines);
    if (p->calibrated) { /* the factors, already applied to the links and levels below */
        fputs(",\n  \"calibration\": {\"intra\": {\"lat\": ", f);
        json_num(f, p->cal_lat[0]);
        fputs(", \"bw\": ", f);
        json_num(f, p->cal_bw[0]);
        cal_sw_json(f, p, 0);
        fputs("}, \"inter\": {\"lat\": ", f);
        json_num(f, p->cal_lat[1]);
        fputs(", \"bw\": ", f);
        json_num(f, p->cal_bw[1]);
        cal_sw_json(f, p, 1);
        fputs("}, \"applied_to_links\": true", f);
        if (p->cal_base) {
            fputs(", \"base\": ", f);
            ar_json_string(f, p->cal_base);
        }
        fputc('}', f);
    }
    int neff = 0;
    for (int a = 0; a < AR_CAL_NALGOS; a++)
        for (int q = 0; q < AR_CAL_NPROTOS; q++)
            if (p->nccl_eff[a][q] > 0) {
                fprintf(f, "%s\"%s/%s\": ", neff++ ? ", " : ",\n  \"nccl\": {\"efficiency\": {", ar_cal_algo_names[a],
                        ar_cal_proto_names[q]);
                json_num(f, p->nccl_eff[a][q]);
            }
    if (neff) fputs("}}", f);
    if (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE) {
        fputs(",\n  \"root\": ", f);
        ar_json_string(f, p->root >= 0 ? p->nodes[p->root].name : "");
        fprintf(f, ",\n  \"height\": %d,\n  \"uniform_depth\": %s", p->height, p->uniform_depth ? "true" : "false");
    }
    if (p->kind == AR_PLAT_TORUS) {
        fputs(",\n  \"dims\": [", f);
        for (int d = 0; d < p->ndims; d++) fprintf(f, "%s%d", d ? ", " : "", p->dims[d]);
        fprintf(f, "],\n  \"gpus_per_machine\": %d", p->gpus_per_machine);
    }
    fputs(",\n  \"levels\": [", f);
    for (int i = 0; i < p->nlevels; i++) {
        fprintf(f, "%s{\"fanout\": %d, \"bw_Bps\": ", i ? ",\n    " : "\n    ", p->levels[i].fanout);
        json_num(f, p->levels[i].bw_Bps);
        fputs(", \"lat_s\": ", f);
        json_num(f, p->levels[i].lat_s);
        fputc('}', f);
    }
    fputs(p->nlevels ? "\n  ],\n  \"nodes\": [" : "],\n  \"nodes\": [", f);
    for (int v = 0; v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        fputs(v ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        ar_json_string(f, n->name);
        fprintf(f, ", \"type\": \"%s\"", n->kind == AR_NODE_GPU ? "gpu" : "switch");
        if (n->kind == AR_NODE_GPU) fprintf(f, ", \"rank\": %d", n->rank);
        if (n->machine >= 0) fprintf(f, ", \"machine\": %d", n->machine);
        if (n->reduce_Bps > 0) {
            fputs(", \"reduce_Bps\": ", f);
            json_num(f, n->reduce_Bps);
        }
        if (n->parent >= 0) {
            fputs(", \"parent\": ", f);
            ar_json_string(f, p->nodes[n->parent].name);
        }
        fputc('}', f);
    }
    fputs("\n  ],\n  \"links\": [", f);
    for (int l = 0; l < p->nlinks; l++) {
        const ar_link *k = &p->links[l];
        fputs(l ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        ar_json_string(f, k->name);
        fputs(", \"a\": ", f);
        ar_json_string(f, p->nodes[k->a].name);
        fputs(", \"b\": ", f);
        ar_json_string(f, p->nodes[k->b].name);
        fputs(", \"bw_Bps\": ", f);
        json_num(f, k->bw_Bps);
        fputs(", \"lat_s\": ", f);
        json_num(f, k->lat_s);
        fprintf(f, ", \"lanes\": %d}", k->lanes);
    }
    fputs("\n  ]\n}\n", f);
    if (ferror(f)) return ar_fail(e, AR_EIO, "write error while printing platform JSON");
    return AR_OK;
}

void ar_platform_print_summary(const ar_platform *p, FILE *f) {
    char b1[32], b2[32];
    int nsw = p->nnodes - p->nranks;
    fprintf(f, "platform %s (%s, %s)\n", p->name, kind_name(p->kind), p->source);
    if (p->description) fprintf(f, "  %s\n", p->description);
    if (p->gpu[0]) fprintf(f, "  GPU: %s (compute capability %d.%d)\n", p->gpu, p->gpu_cc / 10, p->gpu_cc % 10);
    fprintf(f, "  %d ranks on %d machine%s; %d switch%s, %d link%s", p->nranks, p->nmachines,
            p->nmachines == 1 ? "" : "s", nsw, nsw == 1 ? "" : "es", p->nlinks, p->nlinks == 1 ? "" : "s");
    if (p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE)
        fprintf(f, "; height %d%s", p->height, p->uniform_depth ? "" : " (GPUs at different depths)");
    if (p->kind == AR_PLAT_TORUS) {
        fputs("; torus ", f);
        for (int d = 0; d < p->ndims; d++) fprintf(f, "%s%d", d ? "x" : "", p->dims[d]);
        fprintf(f, " of %d-GPU machines", p->gpus_per_machine);
    }
    fputc('\n', f);
    if (p->nlevels) {
        fprintf(f, "  %-6s %7s %12s %10s\n", "level", "fanout", "capacity", "latency");
        for (int i = 0; i < p->nlevels; i++)
            fprintf(f, "  %-6d %7d %12s %10s\n", i, p->levels[i].fanout,
                    ar_fmt_rate(p->levels[i].bw_Bps, b1, sizeof b1), ar_fmt_time(p->levels[i].lat_s, b2, sizeof b2));
    } else {
        double lo = INFINITY, hi = 0;
        for (int l = 0; l < p->nlinks; l++) {
            double c = ar_link_capacity(&p->links[l]);
            if (c < lo) lo = c;
            if (c > hi) hi = c;
        }
        fprintf(f, "  no symmetric levels; link capacities %s .. %s\n", ar_fmt_rate(lo, b1, sizeof b1),
                ar_fmt_rate(hi, b2, sizeof b2));
    }
    for (int v = 0; v < p->nnodes; v++)
        if (p->nodes[v].reduce_Bps > 0) { /* the first; the others counted */
            fprintf(f, "  reducing switches: %d (%s reduces at %s)\n", p->nvlinks, p->nodes[v].name,
                    ar_fmt_rate(p->nodes[v].reduce_Bps, b1, sizeof b1));
            break;
        }
    if (ar_platform_has_msg(p))
        fprintf(f, "  per-message costs (LogGP): o %s at each end, g %s between one endpoint's messages (%s)\n",
                ar_fmt_time(p->msg_o_s, b1, sizeof b1), ar_fmt_time(p->msg_g_s, b2, sizeof b2),
                p->msg_all ? "every transfer" : "transfers between machines");
    if (p->msg_ready)
        fprintf(f, "  ready messages: a transfer between machines not following its pair's data of the round before "
                   "waits for one empty message from its receiver\n");
}

/* "unknown platform", naming the closest preset or family when there is one. */
static ar_status unknown_preset(const char *spec, ar_err *e) {
    char q[160];
    char **names = NULL;
    int n = 0;
    ar_err ignore = {0};
    const char *near = NULL;
    static const char *const families[] = {"flat", "tree", "fat-tree", "torus", "machines", "rail"};
    if (ar_platform_list_presets(&names, &n, &ignore) == AR_OK) near = ar_closest(spec, (const char *const *)names, n);
    if (!near) near = ar_closest(spec, families, (int)(sizeof families / sizeof families[0]));
    ar_status st = near ? ar_fail(e, AR_EINVAL, "unknown platform %s: did you mean \"%s\"? (see 'arlab platforms')",
                                  ar_quote(spec, q, sizeof q), near)
                        : ar_fail(e, AR_EINVAL, "unknown platform %s (see 'arlab platforms')",
                                  ar_quote(spec, q, sizeof q));
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

ar_status ar_gpu_cc(const char *gpu, int *cc, ar_err *e) {
    static const struct {
        const char *model;
        int cc;
    } k[] = {{"k80", 37},   {"p100", 60},    {"gtx1080ti", 61}, {"v100", 70},    {"t4", 75},   {"a100", 80},
             {"a30", 80},   {"a10", 86},     {"a40", 86},       {"rtx3090", 86}, {"l4", 89},   {"l40", 89},
             {"l40s", 89},  {"rtx4090", 89}, {"h100", 90},      {"h200", 90},    {"h800", 90}, {"gh200", 90},
             {"b200", 100}, {"gb200", 100},  {"b300", 103},     {"rtx5090", 120}};
    char low[32], q[64];
    *cc = 0;
    if (!gpu || strlen(gpu) >= sizeof low)
        return ar_fail(e, AR_EINVAL, "gpu: %s is not a GPU", ar_quote(gpu, q, sizeof q));
    size_t n = 0;
    for (const char *s = gpu; *s; s++)
        if (*s != '-' && *s != ' ') low[n++] = (char)tolower((unsigned char)*s);
    low[n] = 0;
    const char *m = !strncmp(low, "nvidia", 6) ? low + 6 : low;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(m, k[i].model)) return (*cc = k[i].cc), AR_OK;
    const char *d = !strncmp(m, "sm_", 3) ? m + 3 : !strncmp(m, "sm", 2) ? m + 2 : m;
    char *end;
    long v = strtol(d, &end, 10);
    if (*d && !*end && v >= 10 && v <= 199) return (*cc = (int)v), AR_OK;
    char list[400] = "";
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", k[i].model);
    return ar_fail(e, AR_EINVAL, "gpu: %s is not a known GPU (%s) nor a compute capability sm_NN",
                   ar_quote(gpu, q, sizeof q), list);
}
