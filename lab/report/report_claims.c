/* The quantities behind the papers' headline claims (report.h), computed from
 * the rows of the sweep that reproduces the figure. The claims' text (what
 * the paper says, the verdict, the explanation) lives in the sweep file's
 * "report" object (experiments/NAME.json) and names these values; here are
 * only the computations and, where the text depends on the numbers, the case
 * its "choose" entry selects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const sweep_row *report_find(const sweep_rows *rows, const char *algo, const char *platform, int ranks, double elems,
                             const char *train) {
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_STATUS], "ok") != 0) continue;
        if (algo && strcmp(r->f[SC_ALGO], algo) != 0) continue;
        if (platform && strcmp(r->f[SC_PLATFORM], platform) != 0) continue;
        if (ranks > 0 && atoi(r->f[SC_RANKS]) != ranks) continue;
        if (elems > 0 && strtod(r->f[SC_ELEMS], NULL) != elems) continue;
        if (train && strcmp(r->f[SC_TRAIN], train) != 0) continue;
        return r;
    }
    return NULL;
}

double report_num(const sweep_row *r, int col) {
    if (!r || !r->f[col] || !*r->f[col]) return NAN;
    char *end = NULL;
    double v = strtod(r->f[col], &end);
    return end && *end == 0 ? v : NAN;
}

/* Largest elems among ok rows (the right end of a size sweep). */
static double max_elems(const sweep_rows *rows) {
    double m = 0;
    for (int i = 0; i < rows->n; i++)
        if (!strcmp(rows->r[i].f[SC_STATUS], "ok")) {
            double v = strtod(rows->r[i].f[SC_ELEMS], NULL);
            if (v > m) m = v;
        }
    return m;
}

static const char *backend_of(const sweep_rows *rows) {
    for (int i = 0; i < rows->n; i++)
        if (!strcmp(rows->r[i].f[SC_STATUS], "ok")) return rows->r[i].f[SC_BACKEND];
    return "model";
}

static void rv_num(report_vals *v, const char *name, double x) {
    if (v->n >= REPORT_MAX_VALS) return;
    snprintf(v->name[v->n], sizeof v->name[0], "%s", name);
    v->num[v->n] = x;
    v->is_str[v->n] = 0;
    v->n++;
}

static void rv_str(report_vals *v, const char *name, const char *s) {
    if (v->n >= REPORT_MAX_VALS) return;
    snprintf(v->name[v->n], sizeof v->name[0], "%s", name);
    snprintf(v->str[v->n], sizeof v->str[0], "%s", s);
    v->is_str[v->n] = 1;
    v->n++;
}

/* name + "_" + suffix */
static const char *nm(char *buf, size_t cap, const char *name, const char *suffix) {
    snprintf(buf, cap, "%s_%s", name, suffix);
    return buf;
}

static void values_bc5(const sweep_rows *rows, report_vals *v) {
    double top = max_elems(rows);
    const char *plat[2] = {"bc-intel-2x4", "bc-ibm-2x4"}, *suf[2] = {"intel", "ibm"};
    char b[48];
    rv_num(v, "top", top);
    for (int k = 0; k < 2; k++) {
        const sweep_row *ring = report_find(rows, "ring", plat[k], -1, top, NULL);
        const sweep_row *blc = report_find(rows, "blueconnect", plat[k], -1, top, NULL);
        double s = report_num(ring, SC_TIME) / report_num(blc, SC_TIME);
        rv_num(v, nm(b, sizeof b, "speedup", suf[k]), s);
        rv_num(v, nm(b, sizeof b, "blc_ms", suf[k]), 1e3 * report_num(blc, SC_TIME));
        rv_num(v, nm(b, sizeof b, "ring_ms", suf[k]), 1e3 * report_num(ring, SC_TIME));
        rv_str(v, nm(b, sizeof b, "verdict", suf[k]), fabs(s - 1.6) / 1.6 < 0.15 ? "agree" : "differ");
    }
    const sweep_row *a = report_find(rows, "ring", plat[0], -1, top, NULL);
    const sweep_row *bb = report_find(rows, "ring", plat[1], -1, top, NULL);
    const sweep_row *a2 = report_find(rows, "blueconnect", plat[0], -1, top, NULL);
    const sweep_row *b2 = report_find(rows, "blueconnect", plat[1], -1, top, NULL);
    rv_num(v, "ring_intel_over_ibm", report_num(a, SC_TIME) / report_num(bb, SC_TIME));
    rv_num(v, "blc_intel_over_ibm", report_num(a2, SC_TIME) / report_num(b2, SC_TIME));
}

static void values_bc6(const sweep_rows *rows, report_vals *v) {
    int P = 0;
    for (int i = 0; i < rows->n; i++) {
        int r = atoi(rows->r[i].f[SC_RANKS]);
        if (r > P && !strcmp(rows->r[i].f[SC_STATUS], "ok")) P = r;
    }
    const sweep_row *blc = report_find(rows, "blueconnect", NULL, P, 0, "fp32");
    const sweep_row *gloo = report_find(rows, "two-level", NULL, P, 0, "fp32");
    const sweep_row *ring = report_find(rows, "ring", NULL, P, 0, "fp32");
    const sweep_row *blc16 = report_find(rows, "blueconnect", NULL, P, 0, "fp16");
    const sweep_row *gloo16 = report_find(rows, "two-level", NULL, P, 0, "fp16");
    double ob = report_num(blc, SC_OVERHEAD) * 1e3, og = report_num(gloo, SC_OVERHEAD) * 1e3,
           orr = report_num(ring, SC_OVERHEAD) * 1e3;
    rv_num(v, "P", P);
    rv_num(v, "steps", 2 * (P - 1));
    rv_num(v, "blc_ms", ob);
    rv_num(v, "gloo_ms", og);
    rv_num(v, "gloo_over_blc", og / ob);
    rv_num(v, "ring_ms", orr);
    rv_num(v, "ring_eff", report_num(ring, SC_EFF));
    rv_str(v, "ring_vs_blc", orr < ob ? "faster" : "slower");
    rv_num(v, "thr_blc_gloo_pct", 100 * (report_num(blc, SC_IMAGES) / report_num(gloo, SC_IMAGES) - 1));
    rv_num(v, "thr_blc_ring_pct", 100 * (report_num(blc, SC_IMAGES) / report_num(ring, SC_IMAGES) - 1));
    rv_num(v, "thr16_blc_gloo_pct", 100 * (report_num(blc16, SC_IMAGES) / report_num(gloo16, SC_IMAGES) - 1));
    const sweep_row *any = report_find(rows, NULL, NULL, -1, 0, "fp32");
    double c1 = report_num(any, SC_COMPUTE);
    rv_num(v, "compute_ms", 1e3 * c1);
    rv_num(v, "images_1gpu", 32 / c1);
}

/* FR's time over its Eq. 6 ideal, over rows of learners [lo_r, hi_r], at top. */
static void fr_over_ideal(const sweep_rows *rows, int lo_r, int hi_r, int symmetric, double top, double *mn,
                          double *mx) {
    *mn = INFINITY;
    *mx = -INFINITY;
    for (int r = lo_r; r <= hi_r; r++) {
        int mach = r <= 8 ? 2 : 3;
        if ((r % mach == 0) != symmetric) continue;
        const sweep_row *fr = report_find(rows, "flexreduce", NULL, r, top, NULL);
        double q = report_num(fr, SC_TIME) / report_num(fr, SC_MODEL);
        if (isfinite(q)) {
            *mn = fmin(*mn, q);
            *mx = fmax(*mx, q);
        }
    }
}

static void values_fr4(const sweep_rows *rows, report_vals *v) {
    double top = max_elems(rows);
    const char *bk = backend_of(rows);
    char b[48];
    rv_num(v, "top", top);
    rv_str(v, "backend", bk);
    rv_str(v, "backend_kind", strcmp(bk, "model") ? "other" : "model");
    for (int mach = 2; mach <= 3; mach++) {
        const char *suf = mach == 2 ? "2" : "3";
        double lo = INFINITY, hi = -INFINITY, ilo = INFINITY, ihi = -INFINITY;
        char sym[128] = "", asym[128] = "";
        int lo_r = mach == 2 ? 4 : 9, hi_r = mach == 2 ? 8 : 12;
        for (int r = lo_r; r <= hi_r; r++) {
            const sweep_row *fr = report_find(rows, "flexreduce", NULL, r, top, NULL);
            const sweep_row *ring = report_find(rows, "ring", NULL, r, top, NULL);
            double sv = report_num(fr, SC_SAVING);
            double ideal = 1 - report_num(fr, SC_MODEL) / report_num(ring, SC_TIME);
            if (isfinite(sv)) {
                lo = fmin(lo, sv);
                hi = fmax(hi, sv);
                char *dst = r % mach == 0 ? sym : asym;
                size_t l = strlen(dst);
                snprintf(dst + l, 128 - l, "%s%d: %.0f %%", l ? ", " : "", r, 100 * sv);
            }
            if (isfinite(ideal)) {
                ilo = fmin(ilo, ideal);
                ihi = fmax(ihi, ideal);
            }
        }
        rv_num(v, nm(b, sizeof b, "saving_min_pct", suf), 100 * lo);
        rv_num(v, nm(b, sizeof b, "saving_max_pct", suf), 100 * hi);
        rv_str(v, nm(b, sizeof b, "saving_sym", suf), sym);
        rv_str(v, nm(b, sizeof b, "saving_asym", suf), asym);
        rv_num(v, nm(b, sizeof b, "ideal_min_pct", suf), 100 * ilo);
        rv_num(v, nm(b, sizeof b, "ideal_max_pct", suf), 100 * ihi);
        double amn, amx;
        fr_over_ideal(rows, lo_r, hi_r, 0, top, &amn, &amx);
        rv_num(v, nm(b, sizeof b, "asym_over_min_pct", suf), 100 * (amn - 1));
        rv_num(v, nm(b, sizeof b, "asym_over_max_pct", suf), 100 * (amx - 1));
        rv_str(v, nm(b, sizeof b, "asym", suf), !isfinite(amx) ? "none" : amx < 1.01 ? "meets" : "above");
    }
    double amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    char over[160] = "";
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_ALGO], "flexreduce") || strcmp(r->f[SC_STATUS], "ok")) continue;
        double a = report_num(r, SC_CALLS_AVG), bd = report_num(r, SC_CALLS_BOUND);
        if (isfinite(a)) {
            if (a > 1.5 && !strstr(over, r->f[SC_PLATFORM])) {
                size_t l = strlen(over);
                snprintf(over + l, sizeof over - l, "%s%s (%.2f)", l ? ", " : "", r->f[SC_PLATFORM], a);
            }
            amax = fmax(amax, a);
        }
        if (isfinite(bd)) {
            bmin = fmin(bmin, bd);
            bmax = fmax(bmax, bd);
        }
    }
    rv_num(v, "calls_mean_max", amax);
    rv_num(v, "calls_bound_min", bmin);
    rv_num(v, "calls_bound_max", bmax);
    rv_str(v, "calls_over", over);
    rv_str(v, "calls", amax <= 1.5 ? "agree" : "over");
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_ALGO], "flexreduce") || strcmp(r->f[SC_STATUS], "ok")) continue;
        double q = report_num(r, SC_MODEL) / report_num(r, SC_TIME);
        if (isfinite(q)) {
            lo = fmin(lo, q);
            hi = fmax(hi, q);
        }
    }
    rv_num(v, "ideal_over_time_min_pct", 100 * lo);
    rv_num(v, "ideal_over_time_max_pct", 100 * hi);
}

static void values_wang(const sweep_rows *rows, report_vals *v) {
    const char *small[2] = {"p3.8xlarge", "p2.8xlarge"}, *big[2] = {"p3.16xlarge", "p2.16xlarge"};
    const char *suf[2] = {"p3", "p2"};
    char b[48];
    for (int k = 0; k < 2; k++) {
        const sweep_row *ps = report_find(rows, "ps", small[k], -1, 0, NULL);
        const sweep_row *ring = report_find(rows, "ring", small[k], -1, 0, NULL);
        const sweep_row *tp = report_find(rows, "treepack", small[k], -1, 0, NULL);
        double tps = report_num(ps, SC_TIME), ttp = report_num(tp, SC_TIME), tr = report_num(ring, SC_TIME);
        rv_num(v, nm(b, sizeof b, "ps_ms", suf[k]), 1e3 * tps);
        rv_num(v, nm(b, sizeof b, "tp_ms", suf[k]), 1e3 * ttp);
        rv_num(v, nm(b, sizeof b, "ring_ms", suf[k]), 1e3 * tr);
        int agree = ttp <= 1.1 * tps && ttp < 0.95 * tr && tps < 0.95 * tr;
        rv_str(v, nm(b, sizeof b, "order", suf[k]), agree ? "agree" : "differ");
        const sweep_row *t1 = report_find(rows, "treepack", small[k], -1, 0, NULL);
        const sweep_row *t2 = report_find(rows, "treepack", big[k], -1, 0, NULL);
        const sweep_row *p1 = report_find(rows, "ps", small[k], -1, 0, NULL);
        const sweep_row *p2 = report_find(rows, "ps", big[k], -1, 0, NULL);
        /* speed = 1 / time for the same gradient; change when doubling the GPUs */
        double r_tp = report_num(t1, SC_TIME) / report_num(t2, SC_TIME) - 1;
        double r_ps = report_num(p1, SC_TIME) / report_num(p2, SC_TIME) - 1;
        rv_num(v, nm(b, sizeof b, "tp_speed_change_pct", suf[k]), 100 * r_tp);
        rv_num(v, nm(b, sizeof b, "ps_speed_change_pct", suf[k]), 100 * r_ps);
        rv_str(v, nm(b, sizeof b, "tp_trend", suf[k]), r_tp > 0 ? "gain" : "loss");
    }
}

static void values_mvs(const sweep_rows *rows, report_vals *v) {
    int total = 0, walk_ok = 0, closed_n = 0, closed_ok = 0;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_STATUS], "ok")) continue;
        total++;
        double t = report_num(r, SC_TIME), w = report_num(r, SC_WALK), cl = report_num(r, SC_CLOSED);
        if (isfinite(t) && isfinite(w) && fabs(t / w - 1) < 0.01) walk_ok++;
        if (isfinite(t) && isfinite(cl)) {
            closed_n++;
            if (fabs(t / cl - 1) < 0.01) closed_ok++;
        }
    }
    rv_num(v, "walk_ok", walk_ok);
    rv_num(v, "total", total);
    rv_str(v, "backend", backend_of(rows));
    rv_num(v, "closed_ok", closed_ok);
    rv_num(v, "closed_n", closed_n);
}

static void values_svr(const sweep_rows *rows, report_vals *v) {
    int ok = 0, miss = 0;
    for (int i = 0; i < rows->n; i++) {
        ok += !strcmp(rows->r[i].f[SC_STATUS], "ok");
        miss += !strcmp(rows->r[i].f[SC_STATUS], "missing");
    }
    rv_num(v, "measured", ok);
    rv_num(v, "missing", miss);
    rv_str(v, "found", ok ? "some" : "none");
}

int report_values(const char *name, const sweep_rows *rows, report_vals *v) {
    v->n = 0;
    if (!strcmp(name, "bc-fig5")) values_bc5(rows, v);
    else if (!strcmp(name, "bc-fig6")) values_bc6(rows, v);
    else if (!strcmp(name, "fr-fig4")) values_fr4(rows, v);
    else if (!strcmp(name, "wang-fig3")) values_wang(rows, v);
    else if (!strcmp(name, "model-vs-sim")) values_mvs(rows, v);
    else if (!strcmp(name, "sim-vs-real")) values_svr(rows, v);
    else return 0;
    return 1;
}
