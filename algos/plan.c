/* The entry points of core/algo.h, through the descriptor: name lookup,
 * parameters (the one generic parser, core/params.h, against the algorithm's
 * table), planning, closed form, statistics. Lives in algos/ beside the
 * registry it calls, so the core library never depends on the algorithms
 * (core <- models <- algos). */
#include "core/algo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "models/model.h"

/* "unknown algorithm", naming the closest registered one when there is one. */
static ar_status unknown_algo(const char *name, ar_err *e) {
    int n = 0;
    const ar_algo *const *all = ar_algos(&n);
    const char *names[64];
    if (n > 64) n = 64;
    for (int i = 0; i < n; i++) names[i] = all[i]->name;
    const char *near = ar_closest(name, names, n);
    char q[96];
    if (near)
        return ar_fail(e, AR_EINVAL, "unknown algorithm %s: did you mean \"%s\"? (see 'arlab algos')",
                       ar_quote(name, q, sizeof q), near);
    return ar_fail(e, AR_EINVAL, "unknown algorithm %s (see 'arlab algos')", ar_quote(name, q, sizeof q));
}

/* Finds the algorithm of params and binds its values. */
static ar_status bind(const ar_params *params, int nranks, const ar_algo **a, ar_param_val *vals, ar_err *e) {
    *a = ar_algo_find(params->name);
    if (!*a) return unknown_algo(params->name, e);
    return ar_params_bind(params, (*a)->params, nranks, vals, e);
}

ar_status ar_algo_bind(const char *spec, int nranks, const ar_algo **a, ar_param_val *vals, ar_err *e) {
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    st = bind(&params, nranks, a, vals, e);
    ar_params_free(&params);
    return st;
}

unsigned ar_algo_colls(const ar_algo *a) { return a && a->colls ? a->colls : AR_COLL_BIT(AR_COLL_ALLREDUCE); }

/* AR_OK if a serves coll, else the one-line refusal. */
static ar_status coll_served(const ar_algo *a, ar_coll coll, ar_err *e) {
    unsigned m = ar_algo_colls(a);
    if (m & AR_COLL_BIT(coll)) return AR_OK;
    char list[64] = "";
    for (int c = 0; c < AR_COLL_COUNT; c++)
        if (m & AR_COLL_BIT(c))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                     ar_coll_name((ar_coll)c));
    return ar_fail(e, AR_EUNSUPPORTED, "algorithm %s does not serve %s (it serves: %s)", a->name, ar_coll_name(coll),
                   list);
}

static ar_status plan_spec(const char *spec, ar_coll coll, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_schedule **out, ar_err *e) {
    *out = NULL;
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    const ar_algo *a = ar_algo_find(params.name);
    ar_param_val v[AR_MAX_PARAMS];
    if (!a) {
        st = unknown_algo(params.name, e);
    } else if ((unsigned)coll >= AR_COLL_COUNT) {
        st = ar_fail(e, AR_EINVAL, "%s: unknown collective %d", a->name, (int)coll);
    } else if ((st = coll_served(a, coll, e)) != AR_OK) {
    } else if (count < 1) {
        st = ar_fail(e, AR_EINVAL, "%s: the message must hold at least one element", a->name);
    } else if ((st = ar_params_bind(&params, a->params, p ? p->nranks : 0, v, e)) == AR_OK) {
        if (coll != AR_COLL_ALLREDUCE && a->plan_coll) {
            st = a->plan_coll(p, coll, count, elem_bytes, v, out, e);
            if (st == AR_OK) (*out)->coll = coll;
        } else {
            st = a->plan(p, count, elem_bytes, v, out, e);
            if (st == AR_OK && coll != AR_COLL_ALLREDUCE) { /* its reduce-scatter or all-gather half */
                ar_schedule_keep_phases(*out, coll == AR_COLL_REDUCESCATTER ? AR_OP_REDUCE_SCATTER : AR_OP_ALL_GATHER);
                (*out)->coll = coll;
                if ((*out)->nphases == 0 && p->nranks > 1)
                    st = ar_fail(e, AR_EINTERNAL, "%s: its plan has no %s phase", a->name, ar_coll_name(coll));
            }
        }
        if (st == AR_OK) st = ar_schedule_check_structure(*out, e);
        if (st != AR_OK) {
            ar_schedule_free(*out);
            *out = NULL;
        }
    }
    ar_params_free(&params);
    return st;
}

ar_status ar_algo_plan(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes, ar_schedule **out,
                       ar_err *e) {
    return plan_spec(spec, AR_COLL_ALLREDUCE, p, count, elem_bytes, out, e);
}

ar_status ar_algo_plan_coll(const char *spec, ar_coll coll, const ar_platform *p, uint64_t count, size_t elem_bytes,
                            ar_schedule **out, ar_err *e) {
    return plan_spec(spec, coll, p, count, elem_bytes, out, e);
}

/* The closed form of a parsed spec (the checks every closed form needs first). */
static ar_status closed_of(const ar_params *params, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_model_result *out, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_algo_closed: NULL result");
    memset(out, 0, sizeof *out);
    if (!params || !params->name) return ar_fail(e, AR_EINVAL, "ar_algo_closed: no algorithm name");
    const ar_algo *a = ar_algo_find(params->name);
    if (!a) return unknown_algo(params->name, e);
    if (!p || p->nranks < 1)
        return ar_fail(e, AR_EINVAL, "%s: closed form needs a platform with >= 1 rank", params->name);
    if (count < 1 || elem_bytes < 1)
        return ar_fail(e, AR_EINVAL, "%s: closed form needs a non-empty buffer", params->name);
    ar_param_val v[AR_MAX_PARAMS];
    ar_status st = ar_params_bind(params, a->params, p->nranks, v, e);
    if (st != AR_OK) return st;
    if (!a->closed) return ar_fail(e, AR_EUNSUPPORTED, "no closed-form model for algorithm %s", params->name);
    st = a->closed(p, (double)count * (double)elem_bytes, v, out, e);
    /* a closed form without a reduction/launch term must not stand for a platform with them
     * (model_s then falls back to the walk, which prices them) */
    if (st == AR_OK && ar_platform_has_costs(p) && !out->costs)
        return ar_fail(
            e, AR_EUNSUPPORTED,
            "%s: its closed form has no reduction, launch or staging term (platform compute costs); the walk "
            "prices them",
            params->name);
    /* nor one without the MPI backend's ready messages (compute.message.ready): no closed form has their term */
    if (st == AR_OK && p->msg_ready)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: its closed form has no ready-message term (platform compute.message.ready); the walk "
                       "prices them",
                       params->name);
    return st;
}

ar_status ar_algo_closed(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                         struct ar_model_result *out, ar_err *e) {
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    const ar_algo *a = ar_algo_find(params.name);
    st = a ? coll_served(a, AR_COLL_ALLREDUCE, e) : AR_OK;
    if (st == AR_OK) st = closed_of(&params, p, count, elem_bytes, out, e);
    ar_params_free(&params);
    return st;
}

ar_status ar_algo_closed_coll(const char *spec, ar_coll coll, const ar_platform *p, uint64_t count, size_t elem_bytes,
                              struct ar_model_result *out, ar_err *e) {
    if (coll == AR_COLL_ALLREDUCE) return ar_algo_closed(spec, p, count, elem_bytes, out, e);
    ar_params params;
    ar_status st = ar_params_parse(spec, &params, e);
    if (st != AR_OK) return st;
    const ar_algo *a = ar_algo_find(params.name);
    if (!a) st = unknown_algo(params.name, e);
    else if ((unsigned)coll >= AR_COLL_COUNT)
        st = ar_fail(e, AR_EINVAL, "%s: unknown collective %d", a->name, (int)coll);
    else st = coll_served(a, coll, e);
    if (st == AR_OK) st = closed_of(&params, p, count, elem_bytes, out, e);
    ar_params_free(&params);
    if (st != AR_OK) return st;
    /* the closed form's stages of that collective */
    const char *want = coll == AR_COLL_REDUCESCATTER ? "reduce-scatter" : "all-gather";
    int k = 0;
    out->time_s = 0;
    for (int i = 0; i < out->nstages; i++)
        if (!strncmp(out->stages[i].label, want, strlen(want))) {
            out->stages[k] = out->stages[i];
            out->time_s += out->stages[k++].time_s;
        }
    if (k == 0 && p->nranks > 1)
        return ar_fail(e, AR_EUNSUPPORTED, "%s: its closed form has no %s stage", params.name, want);
    out->nstages = k;
    return AR_OK;
}

ar_status ar_algo_stats_of(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_algo_stats *out, ar_err *e) {
    (void)count;
    (void)elem_bytes;
    memset(out, 0, sizeof *out);
    out->calls_max = out->calls_avg = out->calls_bound = NAN;
    const ar_algo *a;
    ar_param_val v[AR_MAX_PARAMS];
    ar_status st = ar_algo_bind(spec, p ? p->nranks : 0, &a, v, e);
    if (st == AR_OK && a->stats) st = a->stats(p, v, out, e);
    return st;
}

ar_status ar_algo_calls_of(const char *spec, const ar_platform *p, ar_algo_calls *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    out->holds = 1;
    const ar_algo *a;
    ar_param_val v[AR_MAX_PARAMS];
    ar_status st = ar_algo_bind(spec, p ? p->nranks : 0, &a, v, e);
    if (st == AR_OK && a->calls) st = a->calls(p, v, out, e);
    return st;
}

void ar_algo_calls_free(ar_algo_calls *c) {
    if (!c) return;
    free(c->rows);
    c->rows = NULL;
    c->nrows = 0;
}
