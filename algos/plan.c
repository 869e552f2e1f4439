/* ar_algo_plan: name lookup, planning, parameter and structure checks (algo.h).
 * Lives in algos/ beside the registry it calls, so the core library never
 * depends on the algorithms (core <- algos, not both ways). */
#include "core/algo.h"

#include <stdlib.h>

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
