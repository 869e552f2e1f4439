/* nccl_reference: NCCL's cost model (models/nccl_model.h) against the public
 * nccl-tests measurements in the presets' "reference" blocks.
 *
 *   nccl_reference [--check PCT] [--format table|csv] PRESET...
 *   nccl_reference --sweep PRESET...
 *
 * For every reference point of every PRESET (a preset name or a .json path) it
 * prints the published busbw and NCCL-model's prediction for the same
 * collective, size, rank count and algorithm ("default" = NCCL's own choice;
 * an algorithm name = NCCL_ALGO forced, the protocol still NCCL's choice), both
 * with nccl-tests' busbw definition, and the relative error. With --check PCT it
 * exits 1 if any point's |error| exceeds PCT percent. --sweep prints NCCL's choice
 * and its busbw per size (1 KiB .. 8 GiB) for all-reduce, reduce-scatter and
 * all-gather, and all-reduce with NCCL_ALGO=RING, on each preset or platform spec
 * (e.g. dgx-h100:nodes=4). Built by tests/CMakeLists.txt;
 * experiments/bench_nccl_reference.sh runs it over the presets. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "core/units.h"
#include "core/util.h"
#include "models/nccl_model.h"

static const char *str_field(const cJSON *o, const char *k) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* One preset: prints its rows, counts points and points beyond the limit. */
static ar_status run_preset(const char *name, int csv, double check_pct, int *npoints, int *nbad, ar_err *e) {
    ar_platform *p = NULL;
    ar_status st = ar_platform_load(name, 0, &p, e);
    if (st) return st;
    char path[4096];
    if (strchr(name, '/') || strstr(name, ".json")) snprintf(path, sizeof path, "%s", name);
    else if (!ar_platform_preset_path(name, strlen(name), path, sizeof path)) path[0] = 0;
    char *text = NULL;
    size_t len = 0;
    cJSON *doc = NULL;
    ar_nccl_in in;
    st = ar_read_file(path, 1 << 24, &text, &len, e);
    if (!st && !(doc = cJSON_Parse(text))) st = ar_fail(e, AR_EINVAL, "%s: not JSON", path);
    if (!st) st = ar_nccl_in_from_platform(p, 0, &in, e);
    const cJSON *refs = doc ? cJSON_GetObjectItemCaseSensitive(doc, "reference") : NULL;
    int i = 0;
    for (const cJSON *r = refs ? refs->child : NULL; r && !st; r = r->next, i++) {
        const char *coll_s = str_field(r, "coll"), *size_s = str_field(r, "size"), *bus_s = str_field(r, "busbw");
        const char *algo_s = str_field(r, "algo"), *nccl_s = str_field(r, "nccl"), *src = str_field(r, "source");
        const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(r, "ranks");
        if (!coll_s || !size_s || !bus_s || !algo_s || !src || !cJSON_IsNumber(ranks)) {
            st = ar_fail(e, AR_EINVAL,
                         "%s: reference[%d]: needs strings coll, size, busbw, algo, source and a "
                         "number ranks",
                         path, i);
            break;
        }
        int coll = ar_nccl_coll_parse(coll_s);
        int algo = strcmp(algo_s, "default") ? ar_nccl_algo_parse(algo_s) : -1;
        if (coll < 0 || (algo < 0 && strcmp(algo_s, "default"))) {
            st = ar_fail(e, AR_EINVAL, "%s: reference[%d]: unknown coll \"%s\" or algo \"%s\"", path, i, coll_s,
                         algo_s);
            break;
        }
        if (ranks->valueint != p->nranks) {
            st = ar_fail(e, AR_EINVAL, "%s: reference[%d]: ranks %d, the platform has %d", path, i, ranks->valueint,
                         p->nranks);
            break;
        }
        uint64_t bytes = 0;
        double pub = 0, t = 0;
        ar_nccl_algo ca;
        ar_nccl_proto cp;
        st = ar_parse_size(size_s, 1, &bytes, e);
        if (!st) st = ar_parse_rate(bus_s, &pub, e);
        if (!st) st = ar_nccl_model_choose(&in, (ar_nccl_coll)coll, algo, (double)bytes, &ca, &cp, &t, e);
        if (st) {
            ar_err_prefix(e, "%s: reference[%d]", path, i);
            break;
        }
        double pred = ar_nccl_busbw((ar_nccl_coll)coll, p->nranks, ar_nccl_algbw((double)bytes, t));
        double err = (pred - pub) / pub * 100.0;
        int bad = check_pct > 0 && fabs(err) > check_pct;
        (*npoints)++;
        *nbad += bad;
        if (csv)
            printf("%s,%d,%s,%llu,%s,%s,%.3f,%s,%s,%.3f,%.2f,\"%s\"\n", p->name, p->nranks, coll_s,
                   (unsigned long long)bytes, algo_s, nccl_s ? nccl_s : "", pub / 1e9, ar_nccl_algo_name(ca),
                   ar_nccl_proto_name(cp), pred / 1e9, err, src);
        else {
            char choice[64];
            snprintf(choice, sizeof choice, "%s/%s", ar_nccl_algo_name(ca), ar_nccl_proto_name(cp));
            printf("%-12s %5d %-9s %8s %-8s %-8s %10.1f   %-16s %10.1f %+8.1f%%%s  %s\n", p->name, p->nranks, coll_s,
                   size_s, algo_s, nccl_s ? nccl_s : "?", pub / 1e9, choice, pred / 1e9, err, bad ? " !" : "", src);
        }
    }
    cJSON_Delete(doc);
    free(text);
    ar_platform_free(p);
    return st;
}

/* --sweep: NCCL's choice per size for the three collectives. */
static ar_status sweep_preset(const char *name, ar_err *e) {
    ar_platform *p = NULL;
    ar_nccl_in in;
    ar_status st = ar_platform_load(name, 0, &p, e);
    if (!st) st = ar_nccl_in_from_platform(p, 0, &in, e);
    if (!st) {
        printf("%s: %d ranks, %d node(s); ring %d ch x %.1f GB/s, NVLS %d ch x %.1f/%.1f GB/s\n", p->name, p->nranks,
               p->nmachines, in.ring.nchannels, in.ring.bw_intra_GBps, in.nvls.nchannels, in.nvls.bw_intra_GBps,
               in.nvls.bw_inter_GBps);
        printf("  %10s  %-18s %9s  %-18s %9s  %-18s %9s  %-14s %9s\n", "size", "allreduce", "busbw", "reducescatter",
               "busbw", "allgather", "busbw", "AR RING forced", "busbw");
    }
    for (double bytes = 1024; !st && bytes <= 8.0 * 1073741824.0; bytes *= 8) {
        char sz[32];
        printf("  %10s", ar_fmt_bytes(bytes, sz, sizeof sz));
        for (int c = 0; c < AR_NCCL_NCOLLS && !st; c++) {
            ar_nccl_algo a;
            ar_nccl_proto pr;
            double t;
            st = ar_nccl_model_choose(&in, (ar_nccl_coll)c, -1, bytes, &a, &pr, &t, e);
            if (st) break;
            char choice[64];
            snprintf(choice, sizeof choice, "%s/%s", ar_nccl_algo_name(a), ar_nccl_proto_name(pr));
            printf("  %-18s %9.1f", choice, ar_nccl_busbw((ar_nccl_coll)c, p->nranks, ar_nccl_algbw(bytes, t)) / 1e9);
        }
        if (!st) {
            ar_nccl_proto pr;
            double t;
            st = ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, bytes, NULL, &pr, &t, e);
            if (!st)
                printf("  RING/%-9s %9.1f", ar_nccl_proto_name(pr),
                       ar_nccl_busbw(AR_NCCL_ALLREDUCE, p->nranks, ar_nccl_algbw(bytes, t)) / 1e9);
        }
        printf("\n");
    }
    ar_platform_free(p);
    return st;
}

int main(int argc, char **argv) {
    double check = 0;
    int csv = 0, first = 1, sweep = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--check") && first + 1 < argc) {
            check = atof(argv[++first]);
            if (!(check > 0)) {
                fprintf(stderr, "nccl_reference: --check needs a percentage > 0\n");
                return 2;
            }
        } else if (!strcmp(argv[first], "--sweep")) {
            sweep = 1;
        } else if (!strcmp(argv[first], "--format") && first + 1 < argc) {
            const char *f = argv[++first];
            if (strcmp(f, "csv") && strcmp(f, "table")) {
                fprintf(stderr, "nccl_reference: --format must be table or csv (got %s)\n", f);
                return 2;
            }
            csv = !strcmp(f, "csv");
        } else {
            fprintf(stderr, "usage: nccl_reference [--check PCT] [--format table|csv] [--sweep] PRESET...\n");
            return 2;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "usage: nccl_reference [--check PCT] [--format table|csv] [--sweep] PRESET...\n");
        return 2;
    }
    if (sweep) {
        for (int i = first; i < argc; i++) {
            ar_err e = {{0}};
            ar_status st = sweep_preset(argv[i], &e);
            if (st) {
                fprintf(stderr, "nccl_reference: %s\n", e.msg);
                return (int)st;
            }
        }
        return 0;
    }
    if (csv)
        printf("platform,ranks,coll,bytes,published_algo,nccl_version,published_busbw_GBps,model_algo,model_proto,"
               "model_busbw_GBps,rel_err_pct,source\n");
    else
        printf("# NCCL model (tuning constants of NCCL %s) vs published nccl-tests busbw (GB/s)\n"
               "%-12s %5s %-9s %8s %-8s %-8s %10s   %-16s %10s %9s  %s\n",
               AR_NCCL_MODEL_VERSION, "platform", "ranks", "coll", "size", "algo", "nccl", "published", "model choice",
               "model", "error", "source");
    int npoints = 0, nbad = 0;
    for (int i = first; i < argc; i++) {
        ar_err e = {{0}};
        ar_status st = run_preset(argv[i], csv, check, &npoints, &nbad, &e);
        if (st) {
            fprintf(stderr, "nccl_reference: %s\n", e.msg);
            return (int)st;
        }
    }
    if (check > 0) {
        fprintf(stderr, "nccl_reference: %d reference points, %d beyond +-%g %%\n", npoints, nbad, check);
        if (npoints == 0 || nbad) return 1;
    }
    return 0;
}
