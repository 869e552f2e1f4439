/* `arlab fit --from FILE... --platform P [--seed N] [--boot B]` (issue 14): fits the NCCL
 * model's latency and bandwidth scales on P to nccl-tests output (real/ntfit.h) and prints
 * the fit, the 95 % bootstrap intervals, the residuals, the error by size bucket and the
 * leave-one-size-out error. Table output only for now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef AR_HAVE_REAL_HOST
#include "real/nccltests_in.h"
#include "real/ntfit.h"
#include "models/nccl_model.h"
#endif

int cmd_fit(int argc, char **argv) {
#ifndef AR_HAVE_REAL_HOST
    (void)argc, (void)argv;
    fprintf(stderr, "arlab fit: built without real/ (the nccl-tests reader)\n");
    return AR_EUNSUPPORTED;
#else
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    const char *plat = NULL;
    int nf = 0, boot = 200;
    unsigned seed = 1;
    if (!files) return AR_ENOMEM;
    for (int i = 0; i < argc; i++) {
        if (i == 0 && !strcmp(argv[i], "fit")) continue;
        if (!strcmp(argv[i], "--platform") && i + 1 < argc) plat = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--boot") && i + 1 < argc) boot = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--from")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) files[nf++] = argv[++i];
        } else {
            fprintf(stderr, "arlab fit: unknown or incomplete option \"%s\"\n", argv[i]);
            free(files);
            return AR_EINVAL;
        }
    }
    if (!plat || nf == 0 || boot < 0 || boot > 100000) {
        fprintf(stderr, "arlab fit: usage: fit --from FILE... --platform P [--seed N] [--boot B]\n");
        free(files);
        return AR_EINVAL;
    }
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    ar_platform *p = NULL;
    ar_ntfit_res r;
    ar_status st = ar_nt_read_files(files, nf, NULL, &s, &e);
    if (!st) st = ar_platform_load(plat, 0, &p, &e);
    if (!st) st = ar_ntfit_fit(s, p, seed, boot, &r, &e);
    if (st) {
        fprintf(stderr, "arlab fit: %s\n", e.msg);
    } else {
        printf("fit of %s to %d all_reduce records (NCCL model %s, weights 1/t, %d bootstrap resamples, seed %u)\n",
               plat, r.n, "" AR_NCCL_MODEL_VERSION, r.nboot, seed);
        printf("%-16s %10s %22s  %s\n", "parameter", "value", "95% interval", "identified");
        printf("%-16s %10.4f [%9.4f, %9.4f]  %s\n", "latency_scale", r.lat_scale, r.lat_lo, r.lat_hi,
               r.lat_ident ? "yes" : "NO (kept at the preset's value 1)");
        printf("%-16s %10.4f [%9.4f, %9.4f]  %s\n", "bandwidth_scale", r.bw_scale, r.bw_lo, r.bw_hi,
               r.bw_ident ? "yes" : "NO (kept at the preset's value 1)");
        printf("\nresiduals (pred-meas)/meas:\n");
        int k = 0;
        char where[300];
        for (int i = 0; i < s->nrecs; i++) {
            if (s->runs[s->recs[i].run].coll != AR_NT_ALL_REDUCE) continue;
            printf("  %-40s %12llu B %+8.4f\n", ar_nt_where(s, &s->recs[i], where, sizeof where),
                   (unsigned long long)s->recs[i].size_bytes, r.rel_err[k++]);
        }
        static const char *bn[4] = {"< 1 MB", "1-64 MB", "64-512 MB", ">= 512 MB"};
        printf("\n%-10s %4s %10s %10s\n", "bucket", "n", "median|e|", "max|e|");
        for (int b = 0; b < 4; b++)
            printf("%-10s %4d %10.4f %10.4f\n", bn[b], r.bucket_n[b], r.bucket_med[b], r.bucket_max[b]);
        printf("\nleave-one-size-out prediction error: median %.4f max %.4f\n", r.loso_med, r.loso_max);
        ar_ntfit_free(&r);
    }
    ar_nt_free(s);
    ar_platform_free(p);
    free(files);
    return st ? (int)st : 0;
#endif
}
