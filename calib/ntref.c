/* See ntref.h. */
#include "calib/ntref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "models/nccl_model.h"

static void predict_one(const ar_nt_ref *r, ar_ntref_pred *o) {
    ar_err e = {{0}};
    o->loo_pooled = o->loo_algo = NAN;
    o->pub_busbw_GBps = r->busbw_GBps;
    o->bytes = r->size_bytes ? (double)r->size_bytes : AR_NTREF_DEFAULT_BYTES;
    o->size_assumed = r->size_bytes == 0;
    if (r->coll != AR_NT_ALL_REDUCE) {
        snprintf(o->why, sizeof o->why, "collective %s: only all_reduce is predicted", ar_nt_coll_name(r->coll));
        return;
    }
    if (r->nodes > 1) snprintf(o->platform, sizeof o->platform, "%s:nodes=%d", r->preset, r->nodes);
    else snprintf(o->platform, sizeof o->platform, "%s", r->preset);
    ar_platform *p = NULL;
    if (ar_platform_load(o->platform, 0, &p, &e)) {
        snprintf(o->why, sizeof o->why, "%s", e.msg);
        return;
    }
    if (r->ranks && r->ranks != p->nranks) {
        snprintf(o->why, sizeof o->why, "%d ranks, %s has %d", r->ranks, o->platform, p->nranks);
        ar_platform_free(p);
        return;
    }
    int n = p->nranks;
    ar_nccl_in in;
    ar_nccl_table tab;
    ar_nccl_algo a;
    ar_nccl_proto pr;
    double tf = 0, tb = 0;
    int algo = r->algorithm[0] ? ar_nccl_algo_parse(r->algorithm) : -1;
    ar_status st = ar_nccl_in_from_platform(p, 0, &in, &e);
    ar_platform_free(p);
    if (!st && r->algorithm[0] && algo < 0)
        st = ar_fail(&e, AR_EINVAL, "algorithm \"%s\" is not one of NCCL's", r->algorithm);
    if (!st) st = ar_nccl_model_tune(&in, &tab, &e);
    if (!st) st = ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, algo, o->bytes, &a, &pr, &tf, &e);
    if (!st) {
        ar_nccl_table t0 = tab;
        t0.lat_us[AR_NCCL_ALLREDUCE][a][pr] = 0;
        st = ar_nccl_table_time(&in, &t0, AR_NCCL_ALLREDUCE, a, pr, o->bytes, &tb, &e);
    }
    if (st) {
        snprintf(o->why, sizeof o->why, "%s", e.msg);
        return;
    }
    double f = n > 1 ? 2.0 * (n - 1) / n : 1;
    snprintf(o->algo, sizeof o->algo, "%s", ar_nccl_algo_name(a));
    snprintf(o->proto, sizeof o->proto, "%s", ar_nccl_proto_name(pr));
    o->pred_s = tf;
    o->pred_busbw_GBps = o->bytes / tf * f / 1e9;
    o->rel_err = (o->pred_busbw_GBps - r->busbw_GBps) / r->busbw_GBps;
    o->L = tf - tb, o->X = tb;
    o->t = r->busbw_GBps > 0 ? o->bytes / (r->busbw_GBps * 1e9 / f) : NAN;
    o->ok = isfinite(o->t) && o->t > 0;
    if (!o->ok) snprintf(o->why, sizeof o->why, "busbw %g is not > 0", r->busbw_GBps);
}

/* u minimising sum over rows in use of ((L + u X - t) / t)^2; NAN when none. eff = 1 / u. */
static double fit_u(const ar_ntref_pred *p, int n, const int *use) {
    double sxx = 0, sx = 0;
    for (int i = 0; i < n; i++) {
        if (!use[i]) continue;
        double l = p[i].L / p[i].t, x = p[i].X / p[i].t;
        sxx += x * x, sx += x * (1 - l);
    }
    return sxx > 0 ? sx / sxx : NAN;
}

static int bucket_of(double b) { return b < 1048576.0 ? 0 : b < 67108864.0 ? 1 : b < 536870912.0 ? 2 : 3; }

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

ar_status ar_ntref_predict(const ar_nt_ref *refs, int n, ar_ntref_pred **out, ar_ntref_fit *fit, ar_err *e) {
    *out = NULL;
    memset(fit, 0, sizeof *fit);
    if (n < 1) return ar_fail(e, AR_EINVAL, "reference: no rows");
    ar_ntref_pred *p = calloc((size_t)n, sizeof *p);
    int *use = calloc((size_t)n, sizeof *use);
    double *v = calloc((size_t)n, sizeof *v);
    if (!p || !use || !v) {
        free(p), free(use), free(v);
        return ar_fail(e, AR_ENOMEM, "reference: out of memory");
    }
    for (int i = 0; i < n; i++) predict_one(&refs[i], &p[i]);
    /* pooled and per-algorithm efficiency */
    for (int i = 0; i < n; i++) use[i] = p[i].ok;
    double u = fit_u(p, n, use);
    fit->eff_pooled = u > 0 ? 1 / u : NAN;
    for (int i = 0; i < n; i++) {
        if (!p[i].ok) continue;
        int g = 0;
        while (g < fit->nalgo && strcmp(fit->algo[g], p[i].algo)) g++;
        if (g == fit->nalgo && g < 8) snprintf(fit->algo[fit->nalgo++], sizeof fit->algo[0], "%s", p[i].algo);
        if (g < 8) fit->n_algo[g]++;
    }
    for (int g = 0; g < fit->nalgo; g++) {
        for (int i = 0; i < n; i++) use[i] = p[i].ok && !strcmp(p[i].algo, fit->algo[g]);
        double ug = fit_u(p, n, use);
        fit->eff_algo[g] = ug > 0 ? 1 / ug : NAN;
    }
    /* leave-one-out */
    for (int i = 0; i < n; i++) {
        if (!p[i].ok) continue;
        for (int k = 0; k < 2; k++) {
            for (int j = 0; j < n; j++) use[j] = j != i && p[j].ok && (k == 0 || !strcmp(p[j].algo, p[i].algo));
            double ui = fit_u(p, n, use);
            double err = ui > 0 ? fabs((p[i].L + ui * p[i].X - p[i].t) / p[i].t) : NAN;
            if (k == 0) p[i].loo_pooled = err;
            else p[i].loo_algo = err;
        }
    }
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++) {
            int c = 0;
            for (int i = 0; i < n; i++) {
                double err = k ? p[i].loo_algo : p[i].loo_pooled;
                if (p[i].ok && bucket_of(p[i].bytes) == b && isfinite(err)) v[c++] = err;
            }
            fit->bucket_n[k][b] = c;
            fit->bucket_med[k][b] = fit->bucket_max[k][b] = NAN;
            if (c) {
                qsort(v, (size_t)c, sizeof *v, cmp_d);
                fit->bucket_med[k][b] = c % 2 ? v[c / 2] : 0.5 * (v[c / 2 - 1] + v[c / 2]);
                fit->bucket_max[k][b] = v[c - 1];
            }
        }
    free(use), free(v);
    *out = p;
    return AR_OK;
}
