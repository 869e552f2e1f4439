/* FlexReduce's per-algorithm statistics (flexreduce.h): the top-level reduce
 * calls per learner (Fig. 4(c)) with the largest Eq. 12 bound, and the
 * per-level calls table of `arlab plan`. No state; scratch freed on return. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/util.h"
#include "flexreduce.h"

static void summary(const int *calls, int n, double *avg, int *max) {
    long long sum = 0;
    *max = 0;
    for (int r = 0; r < n; r++) {
        sum += calls[r];
        if (calls[r] > *max) *max = calls[r];
    }
    *avg = n ? (double)sum / n : 0;
}

/* Fig. 4(c): top-level reduce calls per learner, max and mean, and the
 * largest Eq. 12 bound where the plan has one level per tree level. */
ar_status ar_fr_stats(const ar_platform *p, const ar_param_val *v, ar_algo_stats *out, ar_err *e) {
    (void)v;
    ar_fr_plan *fp = NULL;
    ar_status st = ar_fr_plan_build(p, &fp, e);
    if (st != AR_OK) return st;
    int L = fp->L, n = fp->nranks;
    int *calls = ar_calloc((size_t)L * (size_t)n, sizeof *calls);
    int *bound = ar_calloc((size_t)p->height * (size_t)n, sizeof *bound);
    if (!calls || !bound) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (st == AR_OK && L >= 1) {
        ar_fr_calls(fp, calls);
        double sum = 0, mx = 0;
        for (int r = 0; r < n; r++) {
            int c = calls[(size_t)(L - 1) * (size_t)n + (size_t)r];
            sum += c;
            if (c > mx) mx = c;
        }
        out->have_calls = 1;
        out->calls_max = mx;
        out->calls_avg = n ? sum / n : NAN;
        ar_err we;
        if (p->height == L && ar_fr_eq12_bound(p, bound, &we) == AR_OK) {
            int b = 0;
            for (int r = 0; r < n; r++)
                if (bound[(size_t)(L - 1) * (size_t)n + (size_t)r] > b)
                    b = bound[(size_t)(L - 1) * (size_t)n + (size_t)r];
            out->calls_bound = b;
        }
    }
    free(calls);
    free(bound);
    ar_fr_plan_free(fp);
    return st;
}

/* Calls per learner per level (Fig. 4(c): plan entries whose destination is
 * the learner; the all-gather replays the same entries, so broadcast counts
 * are equal) against the Eq. 12 bound, and a row over all levels. */
ar_status ar_fr_calls_table(const ar_platform *p, const ar_param_val *v, ar_algo_calls *out, ar_err *e) {
    (void)v;
    ar_fr_plan *fp = NULL;
    ar_status st = ar_fr_plan_build(p, &fp, e);
    if (st != AR_OK) return st;
    int P = fp->nranks, L = fp->L;
    int *calls = ar_calloc((size_t)P * (size_t)L, sizeof *calls),
        *bound = ar_calloc((size_t)P * (size_t)L, sizeof *bound);
    int *total = ar_calloc((size_t)P, sizeof *total);
    out->rows = ar_calloc((size_t)L + 1, sizeof *out->rows);
    if (!calls || !bound || !total || !out->rows) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (st == AR_OK) st = ar_fr_eq12_bound(p, bound, e);
    out->holds = 1;
    for (int l = 0; l < L && st == AR_OK; l++) {
        if (l == 0) ar_fr_calls(fp, calls);
        const int *c = calls + (size_t)l * (size_t)P, *b = bound + (size_t)l * (size_t)P;
        ar_algo_calls_row *row = &out->rows[out->nrows++];
        int ok = 1, bmax = 0;
        for (int r = 0; r < P; r++) {
            total[r] += c[r];
            if (c[r] > b[r]) ok = 0;
            if (b[r] > bmax) bmax = b[r];
        }
        out->holds &= ok;
        summary(c, P, &row->avg, &row->max);
        row->level = l;
        row->bound_max = bmax;
        row->within = ok;
    }
    if (st == AR_OK) {
        ar_algo_calls_row *row = &out->rows[out->nrows++];
        summary(total, P, &row->avg, &row->max);
        row->level = -1;
        row->bound_max = -1;
        row->within = out->holds;
    }
    free(calls);
    free(bound);
    free(total);
    ar_fr_plan_free(fp);
    if (st != AR_OK) ar_algo_calls_free(out);
    return st;
}
