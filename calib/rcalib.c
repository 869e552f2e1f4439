/* Calibration fit (GSL) and the calibrated platform JSON (rcalib.h).
 * Pure C. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>

#include "rcalib.h"

ar_status ar_real_fit_linear(const double *x, const double *t, int n, int weighted, ar_real_fit *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    if (n < 2) return ar_fail(e, AR_EINVAL, "fit: need at least 2 points (got %d)", n);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(t[i]))
            return ar_fail(e, AR_EINVAL, "fit: point %d is not finite (%g, %g)", i, x[i], t[i]);
        if (weighted && !(t[i] > 0))
            return ar_fail(e, AR_EINVAL, "fit: point %d has time %g (a weighted fit needs times > 0)", i, t[i]);
        if (x[i] != x[0]) distinct = 1;
    }
    if (!distinct) return ar_fail(e, AR_EINVAL, "fit: all %d points have the same size", n);
    double c0, c1, cov00, cov01, cov11, chisq;
    int rc;
    if (weighted) {
        double *w = ar_calloc((size_t)n, sizeof *w);
        if (!w) return ar_fail(e, AR_ENOMEM, "fit: out of memory");
        for (int i = 0; i < n; i++) w[i] = 1.0 / (t[i] * t[i]);
        rc = gsl_fit_wlinear(x, 1, w, 1, t, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
        free(w);
    } else {
        rc = gsl_fit_linear(x, 1, t, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
    }
    if (rc) return ar_fail(e, AR_EFAIL, "fit: GSL failed (code %d)", rc);
    out->alpha_s = c0;
    out->beta_s_per_B = c1;
    out->bw_Bps = c1 > 0 ? 1.0 / c1 : INFINITY;
    out->cov00 = cov00;
    out->cov01 = cov01;
    out->cov11 = cov11;
    out->chisq = chisq;
    out->n = n;
    out->weighted = weighted;
    double mean = 0, sst = 0, sse = 0, mr = 0;
    for (int i = 0; i < n; i++) mean += t[i];
    mean /= n;
    for (int i = 0; i < n; i++) {
        double f = c0 + c1 * x[i], d = t[i] - f;
        sse += d * d;
        sst += (t[i] - mean) * (t[i] - mean);
        if (t[i] != 0 && fabs(d / t[i]) > mr) mr = fabs(d / t[i]);
    }
    out->r2 = sst > 0 ? 1.0 - sse / sst : 1.0;
    out->max_rel_resid = mr;
    return AR_OK;
}

/* The half-width at `level` of a fitted coefficient whose variance is `cov` (Student's t, n - 2 dof). */
static double halfwidth(const ar_real_fit *f, double cov, double level) {
    if (!f || f->n < 3 || !(level > 0 && level < 1) || !(cov >= 0)) return NAN;
    double dof = f->n - 2, var = cov;
    /* gsl_fit_wlinear's covariance takes the weights as exact 1/sigma^2; ours (1/t^2) are relative only,
     * so the residuals set the scale (chisq / dof), as gsl_fit_linear does itself */
    if (f->weighted) var *= f->chisq / dof;
    return gsl_cdf_tdist_Pinv(0.5 + level / 2, dof) * sqrt(var);
}

double ar_real_fit_alpha_halfwidth(const ar_real_fit *f, double level) {
    return f ? halfwidth(f, f->cov00, level) : NAN;
}

double ar_real_fit_beta_halfwidth(const ar_real_fit *f, double level) {
    return f ? halfwidth(f, f->cov11, level) : NAN;
}

ar_status ar_real_fit_fanout(const double *k, const double *t, int n, double *o_s, double *hw_s, ar_err *e) {
    *o_s = *hw_s = NAN;
    ar_real_fit f;
    ar_status st = ar_real_fit_linear(k, t, n, 0, &f, e);
    if (st != AR_OK) return st;
    *o_s = f.beta_s_per_B;
    *hw_s = ar_real_fit_beta_halfwidth(&f, 0.95);
    return AR_OK;
}

ar_status ar_real_mean_interval(const double *x, int n, double *mean, double *hw, ar_err *e) {
    *mean = *hw = NAN;
    if (n < 1) return ar_fail(e, AR_EINVAL, "mean: no sample");
    double m = 0, ss = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) return ar_fail(e, AR_EINVAL, "mean: sample %d is not finite (%g)", i, x[i]);
        m += x[i];
    }
    m /= n;
    for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    if (n >= 2) *hw = gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1) / n);
    return AR_OK;
}

static cJSON *num(double v) { return cJSON_CreateNumber(v); }

static int add_link(cJSON *o, const char *bwk, const char *latk, double bw, double lat) {
    return cJSON_AddItemToObject(o, bwk, num(bw)) && cJSON_AddItemToObject(o, latk, num(lat));
}

ar_status ar_real_calib_json(const ar_real_calib *c, char **json, ar_err *e) {
    *json = NULL;
    if (!c->have_intra && !c->have_inter) return ar_fail(e, AR_EINVAL, "calibration: no link class was measured");
    if (c->nranks < 1 || c->nmachines < 1 || !c->machine_of_rank)
        return ar_fail(e, AR_EINVAL, "calibration: no ranks or machines");
    const ar_real_fit *fi = c->have_intra ? &c->intra : &c->inter;
    const ar_real_fit *fo = c->have_inter ? &c->inter : &c->intra;
    if (!(fi->beta_s_per_B > 0) || !(fo->beta_s_per_B > 0))
        return ar_fail(e, AR_EFAIL,
                       "calibration: a fit has slope <= 0 (intra %g s/B, inter %g s/B): no bandwidth; "
                       "measure larger sizes",
                       fi->beta_s_per_B, fo->beta_s_per_B);
    double bw0 = 1.0 / fi->beta_s_per_B, bw1 = 1.0 / fo->beta_s_per_B;
    double lat0 = c->have_intra ? fmax(0.0, c->intra.alpha_s) / 2 : 0.0;
    double a_out = c->have_inter ? fmax(0.0, c->inter.alpha_s) : 2 * lat0;
    double lat1 = fmax(0.0, a_out / 2 - lat0);
    for (int r = 1; r < c->nranks; r++)
        if (c->machine_of_rank[r] != c->machine_of_rank[r - 1] &&
            c->machine_of_rank[r] != c->machine_of_rank[r - 1] + 1)
            return ar_fail(e, AR_EINVAL, "calibration: machines of ranks %d and %d are not in order", r - 1, r);

    cJSON *doc = cJSON_CreateObject(), *notes = cJSON_CreateArray(), *root = cJSON_CreateObject();
    int ok = doc && notes && root;
    ok = ok && cJSON_AddStringToObject(doc, "name", c->name ? c->name : "calibrated");
    ok = ok && cJSON_AddStringToObject(doc, "kind", "tree");
    ok = ok &&
         cJSON_AddStringToObject(doc, "description",
                                 "Measured by arlab calibrate (NCCL send/recv ping-pong, alpha-beta least squares)");
    char buf[512];
    const ar_real_fit *fits[2] = {c->have_intra ? &c->intra : NULL, c->have_inter ? &c->inter : NULL};
    static const char *const cls[2] = {"intra-machine", "inter-machine"};
    for (int k = 0; k < 2 && ok; k++) {
        if (!fits[k]) {
            snprintf(buf, sizeof buf, "%s: not measured (%s); the model uses %s", cls[k],
                     k ? "one machine" : "no machine has two GPUs",
                     k ? "the intra-machine link only"
                       : "latency 0 and the inter-machine bandwidth below the machines");
        } else {
            const ar_real_fit *f = fits[k];
            snprintf(buf, sizeof buf,
                     "%s: alpha = %.6g s, beta = %.6g s/B (bw %.6g B/s), %s least squares over %d sizes, r2 = %.6f, "
                     "max relative residual %.3g",
                     cls[k], f->alpha_s, f->beta_s_per_B, f->bw_Bps,
                     f->weighted ? "relative-error (1/t^2 weighted, gsl_fit_wlinear)" : "unweighted (gsl_fit_linear)",
                     f->n, f->r2, f->max_rel_resid);
        }
        ok = cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
    }
    if (ok) {
        snprintf(
            buf, sizeof buf,
            "links: GPU-machine lat = alpha_intra/2, machine-root lat = (alpha_inter - alpha_intra)/2, so a route's "
            "latency is the fitted alpha of its class; bw = 1/beta%s",
            c->have_inter && bw0 < bw1 ? " (here the intra bandwidth is the lower, so routes across machines "
                                         "see the intra bandwidth, not the fitted inter one)"
                                       : "");
        ok = cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
    }
    if (ok && c->note) ok = cJSON_AddItemToArray(notes, cJSON_CreateString(c->note));
    if (ok) ok = cJSON_AddItemToObject(doc, "notes", notes);
    else cJSON_Delete(notes);
    notes = NULL;
    if (ok && c->nmachines == 1) {
        ok = cJSON_AddStringToObject(root, "name", "m0") && add_link(root, "child_bw", "child_lat", bw0, lat0) &&
             cJSON_AddNumberToObject(root, "gpus", c->nranks);
    } else if (ok) {
        cJSON *kids = cJSON_CreateArray();
        ok = kids && cJSON_AddStringToObject(root, "name", "net") && cJSON_AddItemToObject(root, "children", kids);
        int r = 0;
        for (int m = 0; m < c->nmachines && ok; m++) {
            int g = 0;
            while (r < c->nranks && c->machine_of_rank[r] == m) {
                r++;
                g++;
            }
            if (!g) {
                ok = 0;
                break;
            }
            cJSON *mo = cJSON_CreateObject();
            char name[32];
            snprintf(name, sizeof name, "m%d", m);
            ok = mo && cJSON_AddItemToArray(kids, mo) && cJSON_AddStringToObject(mo, "name", name) &&
                 add_link(mo, "bw", "lat", bw1, lat1) && add_link(mo, "child_bw", "child_lat", bw0, lat0) &&
                 cJSON_AddNumberToObject(mo, "gpus", g);
        }
        if (ok && r != c->nranks) ok = 0;
    }
    if (ok) ok = cJSON_AddItemToObject(doc, "root", root);
    else cJSON_Delete(root);
    char *text = ok ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) return ar_fail(e, AR_ENOMEM, "calibration: could not build the JSON (out of memory or bad machines)");
    /* cJSON allocates with malloc by default: hand back a copy freed with free() */
    char *copy = ar_strdup(text);
    cJSON_free(text);
    if (!copy) return ar_fail(e, AR_ENOMEM, "calibration: out of memory");
    *json = copy;
    return AR_OK;
}
