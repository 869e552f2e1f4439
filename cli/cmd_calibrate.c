/* arlab calibrate (16): the verb. The measurement is
 * real/rcalib_run.h (ar_real_calibrate), the fit and the platform JSON
 * calib/rcalib.h; this file parses, calls, prints and writes.
 *
 * arlab calibrate --out FILE.json [--size S,...] [--iters N] [--warmup N] [--launch ...]
 *                 [--platform P] [--fit rel|abs] [--name NAME] [--format F]
 * Without CUDA/NCCL: "built without CUDA/NCCL", AR_EUNSUPPORTED.
 * Ownership: everything allocated here is freed before returning. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "cmd_real.h"
#ifdef AR_HAVE_REAL_HOST
#include "calib/rcalib.h"
#endif
#ifdef AR_HAVE_REAL
#include "real/rcalib_run.h"
#endif

/* ======================================================================== */
/* arlab calibrate                                                           */
/* ======================================================================== */

#ifdef AR_HAVE_REAL
#define AR_CAL_MAX_SIZES 64

/* --fit (weighted: rel), --out and the sizes (--size, else 8 B..128 MiB by 4x); AR_OK or AR_EINVAL after
 * one line. */
static ar_status calibrate_args(const cli_opts *o, const real_flags *f, int *weighted, double *sizes, int *ns) {
    ar_err e = {{0}};
    *weighted = 1;
    if (f->fit && !strcmp(f->fit, "abs")) *weighted = 0;
    else if (f->fit && strcmp(f->fit, "rel")) {
        fprintf(stderr, "arlab calibrate: --fit \"%s\" is not rel or abs\n", f->fit);
        return AR_EINVAL;
    }
    if (!o->out) {
        fprintf(stderr, "arlab calibrate: give --out FILE.json (the calibrated platform)\n");
        return AR_EINVAL;
    }
    *ns = 0;
    if (o->nsizes == 0)
        for (double b = 8; b <= 134217728.0 && *ns < AR_CAL_MAX_SIZES; b *= 4) sizes[(*ns)++] = b;
    for (int i = 0; i < o->nsizes && *ns < AR_CAL_MAX_SIZES; i++) {
        uint64_t v;
        if (ar_parse_size(o->sizes[i], 1, &v, &e) != AR_OK) {
            fprintf(stderr, "arlab calibrate: --size: %s\n", e.msg);
            return AR_EINVAL;
        }
        sizes[(*ns)++] = (double)v;
    }
    if (*ns < 2) {
        fprintf(stderr, "arlab calibrate: need at least 2 sizes for a fit\n");
        return AR_EINVAL;
    }
    return AR_OK;
}

static const char *const cal_cls[2] = {"intra", "inter"};

/* The measured one-way times against each class's fit, and (human table) the fits and the file written
 * (st: whether it was). */
static void calibrate_print(const cli_opts *o, const ar_real_calib *cal, const ar_real_calibration *kc,
                            const double *sizes, int ns, int weighted, ar_status st) {
    static const char *const cols[] = {"class", "src", "dst", "bytes", "oneway_s", "fit_s", "rel_resid"};
    cli_table tb;
    tbl_init(&tb, 7, cols);
    for (int k = 0; k < 2; k++) {
        const ar_real_fit *fit = k ? &cal->inter : &cal->intra;
        if (!(k ? cal->have_inter : cal->have_intra)) continue;
        const double *t = kc->oneway_s[k];
        for (int i = 0; i < ns; i++) {
            int r = tbl_row(&tb);
            double fs = fit->alpha_s + fit->beta_s_per_B * sizes[i];
            tbl_str(&tb, r, 0, cal_cls[k]);
            tbl_int(&tb, r, 1, kc->src[k]);
            tbl_int(&tb, r, 2, kc->dst[k]);
            tbl_num(&tb, r, 3, "%.0f", sizes[i]);
            tbl_num(&tb, r, 4, "%.9g", t[i]);
            tbl_num(&tb, r, 5, "%.9g", fs);
            tbl_num(&tb, r, 6, "%.3g", (fs - t[i]) / t[i]);
        }
    }
    tbl_print(&tb, o->format, stdout);
    tbl_free(&tb);
    if (o->format != FMT_TABLE) return;
    for (int k = 0; k < 2; k++) {
        const ar_real_fit *fit = k ? &cal->inter : &cal->intra;
        if (!(k ? cal->have_inter : cal->have_intra)) {
            printf("# %s-machine: not measured\n", cal_cls[k]);
            continue;
        }
        char b1[32], b2[32];
        printf("# %s-machine fit (%s): alpha %s, bw %s, r2 %.6f, max relative residual %.3g\n", cal_cls[k],
               weighted ? "gsl_fit_wlinear, weights 1/t^2" : "gsl_fit_linear", ar_fmt_time(fit->alpha_s, b1, sizeof b1),
               ar_fmt_rate(fit->bw_Bps, b2, sizeof b2), fit->r2, fit->max_rel_resid);
    }
    if (st == AR_OK) printf("# wrote %s (arlab model/sim --platform %s)\n", o->out, o->out);
}

static int calibrate_run(cli_opts *o, const real_flags *f) {
    ar_err e = {{0}};
    ar_real_launch L;
    if (cli_real_parse_launch(f, &L) != AR_OK) return AR_EINVAL;
    int weighted, ns;
    double sizes[AR_CAL_MAX_SIZES];
    if (calibrate_args(o, f, &weighted, sizes, &ns) != AR_OK) return AR_EINVAL;
    ar_real_ctx *c = NULL;
    ar_status st = ar_real_open(&L, &c, &e);
    if (st != AR_OK) {
        fprintf(stderr, "arlab calibrate: %s\n", e.msg);
        return st;
    }
    int lead = ar_real_is_leader(c), P = ar_real_nranks(c);
    /* machines from --platform when given, else detected by the library */
    int *mach = NULL, nm = 0;
    ar_real_calibration kc;
    memset(&kc, 0, sizeof kc);
    if (o->nplatforms) {
        ar_platform *p = NULL;
        st = cli_real_load_platform(o, P, "calibrate", &p); /* prints its own message */
        if (st == AR_OK) {
            mach = ar_calloc((size_t)P, sizeof *mach);
            if (!mach) st = ar_fail(&e, AR_ENOMEM, "out of memory");
            for (int r = 0; mach && r < P; r++) mach[r] = p->machine_of_rank[r];
            nm = p->nmachines;
            ar_platform_free(p);
        }
    }
    if (st == AR_OK)
        st = ar_real_calibrate(c, mach, nm, sizes, ns, o->warmup, o->iters, weighted,
                               o->format == FMT_TABLE ? stderr : NULL, &kc, &e);
    free(mach);
    nm = kc.nmachines;
    ar_real_calib cal;
    memset(&cal, 0, sizeof cal);
    char note[512];
    if (st == AR_OK) {
        cal.intra = kc.fit[0];
        cal.inter = kc.fit[1];
        cal.have_intra = kc.have[0];
        cal.have_inter = kc.have[1];
        snprintf(note, sizeof note,
                 "%s; %d ranks on %d machines; %d sizes %.0f..%.0f B; %d warm-up + %d timed "
                 "round trips per size (median)",
                 ar_real_describe(c), P, nm, ns, sizes[0], sizes[ns - 1], o->warmup, o->iters);
        cal.name = f->name ? f->name : "calibrated";
        cal.nranks = P;
        cal.nmachines = nm;
        cal.machine_of_rank = kc.machine_of_rank;
        cal.note = note;
    }
    char *json = NULL;
    if (st == AR_OK && lead) {
        st = ar_real_calib_json(&cal, &json, &e);
        ar_platform *chk = NULL;
        if (st == AR_OK) st = ar_platform_from_json(json, o->out, &chk, &e);
        ar_platform_free(chk);
        if (st == AR_OK) {
            FILE *fo = fopen(o->out, "w");
            if (!fo || fputs(json, fo) < 0 || fputc('\n', fo) == EOF)
                st = ar_fail(&e, AR_EIO, "cannot write %s", o->out);
            if (fo && fclose(fo) != 0 && st == AR_OK) st = ar_fail(&e, AR_EIO, "cannot write %s", o->out);
        }
        calibrate_print(o, &cal, &kc, sizes, ns, weighted, st);
    }
    if (st != AR_OK && e.msg[0]) fprintf(stderr, "arlab calibrate: %s\n", e.msg);
    free(json);
    ar_real_calibration_free(&kc);
    ar_real_close(c);
    return st;
}
#endif

int cmd_calibrate(int argc, char **argv) {
    real_flags f;
    memset(&f, 0, sizeof f);
    static const cli_ownopt own[] = {{"--launch", offsetof(real_flags, launch)},
                                     {"--fit", offsetof(real_flags, fit)},
                                     {"--name", offsetof(real_flags, name)},
                                     {"--gpus", offsetof(real_flags, gpus)}};
    if (cli_take_own(&argc, argv, own, (int)(sizeof own / sizeof own[0]), &f, "calibrate") != AR_OK) return AR_EINVAL;
#ifndef AR_HAVE_REAL
    fprintf(stderr, "arlab calibrate: built without CUDA/NCCL (rebuild where CUDA and NCCL are found)\n");
    return AR_EUNSUPPORTED;
#else
    cli_opts o;
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_RANKS | OPT_SIZE | OPT_FORMAT | OPT_OUT | OPT_ITERS, &o,
                  "calibrate") != AR_OK)
        return AR_EINVAL;
    return calibrate_run(&o, &f);
#endif
}
