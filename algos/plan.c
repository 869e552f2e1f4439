/* ar_algo_plan: name lookup, planning, parameter and structure checks (algo.h).
 * Lives in algos/ beside the registry it calls, so the core library never
 * depends on the algorithms (core <- algos, not both ways). */
#include "core/algo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/flexreduce.h"
#include "models/model.h"
#include "models/model_topo.h"

ar_status ar_algo_plan(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                       ar_schedule **out, ar_err *e) {
    *out = NULL;
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    const ar_algo *a = ar_algo_find(params.name);
    if (!a) {
        st = ar_fail(e, AR_EINVAL, "unknown algorithm \"%s\" (see 'arlab algos')", params.name);
    } else if (count < 1) {
        st = ar_fail(e, AR_EINVAL, "%s: the message must hold at least one element", a->name);
    } else {
        st = a->plan(p, count, elem_bytes, &params, out, e);
        if (st == AR_OK) st = ar_params_check_used(&params, e);
        if (st == AR_OK) st = ar_schedule_check_structure(*out, e);
        if (st != AR_OK) {
            ar_schedule_free(*out);
            *out = NULL;
        }
    }
    ar_params_free(&params);
    return st;
}

ar_status ar_algo_closed(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                         struct ar_model_result *out, ar_err *e) {
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    if (!ar_algo_find(params.name))
        st = ar_fail(e, AR_EINVAL, "unknown algorithm \"%s\" (see 'arlab algos')", params.name);
    else
        st = ar_model_closed(p, count, elem_bytes, &params, out, e);
    ar_params_free(&params);
    return st;
}

/* FlexReduce Fig. 4(c): top-level reduce calls per learner, max and mean, and
 * the largest Eq. 12 bound where the plan has one level per tree level. */
static ar_status fr_stats(const ar_platform *p, ar_algo_stats *out, ar_err *e) {
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
                if (bound[(size_t)(L - 1) * (size_t)n + (size_t)r] > b) b = bound[(size_t)(L - 1) * (size_t)n + (size_t)r];
            out->calls_bound = b;
        }
    }
    free(calls);
    free(bound);
    ar_fr_plan_free(fp);
    return st;
}

ar_status ar_algo_stats_of(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_algo_stats *out, ar_err *e) {
    (void)count;
    (void)elem_bytes;
    memset(out, 0, sizeof *out);
    out->calls_max = out->calls_avg = out->calls_bound = NAN;
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    if (!ar_algo_find(params.name))
        st = ar_fail(e, AR_EINVAL, "unknown algorithm \"%s\" (see 'arlab algos')", params.name);
    else if (!strcmp(params.name, "flexreduce"))
        st = fr_stats(p, out, e);
    ar_params_free(&params);
    return st;
}
