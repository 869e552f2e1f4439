/* Schedule JSON loader: the inverse of ar_schedule_print_json (schedule.h).
 *
 * Format: {"algo": "...", "detail": "...", "collective": "allreduce" (default when absent),
 *          "ranks": P, "count": N, "elem_bytes": B,
 *          "phases": [{"label": "...", "ops": [{"kind": "reduce-scatter", "impl": "ring",
 *          "offset": 0, "count": N, "chunks": 1, "root": 0, "reduce": 1, "proto": "ll" (absent = none),
 *          "members": [...], "counts": [...], "offs": [...], "parent": [...], "switch": NODE}]}]}
 *   "offs" (optional): the per-member block layout (schedule.h), block i's first element;
 *   absent: the blocks follow one another from "offset" (files without it load as before).
 *   "switch" (impl "switch" only, required there): the reducing switch, by its node
 *   name on the platform (resolved by ar_schedule_resolve_switches when the schedule
 *   meets its platform: `--schedule`) or its node index; whether it is a switch that
 *   can reduce is checked against the platform by the consumers
 *   (ar_platform_check_switch_ops).
 * Every error names the document and the JSON path. The loaded schedule is
 * checked with ar_schedule_check_structure before it is returned.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

#define AR_SCHED_MAX_OPS_TOTAL (1 << 22)

static ar_status get_u64(const cJSON *o, const char *key, int required, uint64_t max, uint64_t *out, const char *where,
                         const char *path, ar_err *e) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        if (required) return ar_fail(e, AR_EINVAL, "%s: %s.%s: missing", where, path, key);
        return AR_OK;
    }
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || !isfinite(d) || d < 0 || d != floor(d) || d > (double)max)
        return ar_fail(e, AR_EINVAL, "%s: %s.%s: expected an integer in 0..%llu", where, path, key,
                       (unsigned long long)max);
    *out = (uint64_t)d;
    return AR_OK;
}

static ar_status get_enum(const cJSON *o, const char *key, const char *(*name)(int), int n, int *out, const char *where,
                          const char *path, ar_err *e) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v)) return ar_fail(e, AR_EINVAL, "%s: %s.%s: expected a string", where, path, key);
    for (int i = 0; i < n; i++)
        if (strcmp(v->valuestring, name(i)) == 0) {
            *out = i;
            return AR_OK;
        }
    return ar_fail(e, AR_EINVAL, "%s: %s.%s: unknown value \"%.60s\"", where, path, key, v->valuestring);
}

static const char *kind_name(int i) { return ar_op_kind_name((ar_op_kind)i); }
static const char *impl_name(int i) { return ar_impl_name((ar_impl)i); }
static const char *proto_name(int i) { return ar_proto_name((ar_proto)i); }

/* Reads an array of n integers in [lo, hi] into out (int or uint64 by `wide`). */
static ar_status get_array(const cJSON *o, const char *key, int n, long long lo, long long hi, void *out, int wide,
                           const char *where, const char *path, ar_err *e) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return ar_fail(e, AR_EINVAL, "%s: %s.%s: expected an array of %d integers", where, path, key, n);
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) {
        double d = x->valuedouble;
        if (!cJSON_IsNumber(x) || !isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi)
            return ar_fail(e, AR_EINVAL, "%s: %s.%s[%d]: expected an integer in %lld..%lld", where, path, key, i, lo,
                           hi);
        if (wide) ((uint64_t *)out)[i] = (uint64_t)d;
        else ((int *)out)[i] = (int)d;
        i++;
    }
    return AR_OK;
}

static ar_status load_op(ar_schedule *s, const cJSON *jo, const char *where, const char *path, ar_err *e) {
    if (!cJSON_IsObject(jo)) return ar_fail(e, AR_EINVAL, "%s: %s: expected an object", where, path);
    int kind = 0, impl = 0;
    ar_status st;
    if ((st = get_enum(jo, "kind", kind_name, AR_OP_KIND_COUNT, &kind, where, path, e)) != AR_OK) return st;
    if ((st = get_enum(jo, "impl", impl_name, AR_IMPL_COUNT, &impl, where, path, e)) != AR_OK) return st;
    int proto = AR_PROTO_NONE;
    if (cJSON_GetObjectItemCaseSensitive(jo, "proto") &&
        (st = get_enum(jo, "proto", proto_name, AR_PROTO_COUNT, &proto, where, path, e)) != AR_OK)
        return st;
    uint64_t off = 0, cnt = 0, chunks = 1, root = 0, reduce = 1, sw = 0;
    const cJSON *jsw = cJSON_GetObjectItemCaseSensitive(jo, "switch");
    if (impl == AR_IMPL_SWITCH && !jsw)
        return ar_fail(e, AR_EINVAL, "%s: %s: impl \"switch\" needs \"switch\" (the switch's node index)", where, path);
    if (impl != AR_IMPL_SWITCH && jsw)
        return ar_fail(e, AR_EINVAL, "%s: %s.switch: only an op with impl \"switch\" names a switch", where, path);
    const char *swname = cJSON_IsString(jsw) ? jsw->valuestring : NULL;
    if (jsw && !swname && (st = get_u64(jo, "switch", 1, (uint64_t)((1 << 22) - 1), &sw, where, path, e)) != AR_OK)
        return st;
    if ((st = get_u64(jo, "offset", 1, s->count, &off, where, path, e)) != AR_OK) return st;
    if ((st = get_u64(jo, "count", 1, s->count, &cnt, where, path, e)) != AR_OK) return st;
    if ((st = get_u64(jo, "chunks", 0, AR_MAX_CHUNKS, &chunks, where, path, e)) != AR_OK) return st;
    if ((st = get_u64(jo, "root", 0, (uint64_t)s->nranks, &root, where, path, e)) != AR_OK) return st;
    if ((st = get_u64(jo, "reduce", 0, 1, &reduce, where, path, e)) != AR_OK) return st;
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(jo, "members");
    int n = cJSON_IsArray(mem) ? cJSON_GetArraySize(mem) : 0;
    if (n < 1 || n > s->nranks)
        return ar_fail(e, AR_EINVAL, "%s: %s.members: expected 1..%d ranks", where, path, s->nranks);
    int *members = ar_calloc((size_t)n, sizeof *members);
    int *parent = NULL;
    uint64_t *counts = NULL, *offs = NULL;
    if (!members) return ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
    st = get_array(jo, "members", n, 0, s->nranks - 1, members, 0, where, path, e);
    if (st == AR_OK && cJSON_GetObjectItemCaseSensitive(jo, "counts")) {
        counts = ar_calloc((size_t)n, sizeof *counts);
        st = counts ? get_array(jo, "counts", n, 0, (long long)s->count, counts, 1, where, path, e)
                    : ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
    }
    if (st == AR_OK && cJSON_GetObjectItemCaseSensitive(jo, "offs")) {
        offs = ar_calloc((size_t)n, sizeof *offs);
        st = offs ? get_array(jo, "offs", n, 0, (long long)s->count, offs, 1, where, path, e)
                  : ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
    }
    if (st == AR_OK && cJSON_GetObjectItemCaseSensitive(jo, "parent")) {
        parent = ar_calloc((size_t)n, sizeof *parent);
        st = parent ? get_array(jo, "parent", n, -1, n - 1, parent, 0, where, path, e)
                    : ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
    }
    if (st == AR_OK) {
        ar_op *op = ar_sched_op(s, (ar_op_kind)kind, (ar_impl)impl, members, n, off, cnt);
        if (!op) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
        else {
            op->chunks = (int)chunks;
            op->root = (int)root;
            op->reduce = (int)reduce;
            op->proto = (ar_proto)proto;
            if (impl == AR_IMPL_SWITCH) op->sw = swname ? -1 : (int)sw;
            if (swname && !(op->sw_name = ar_strdup(swname))) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
            if (counts && ar_op_set_counts(op, counts) != AR_OK) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
            if (parent && ar_op_set_parent(op, parent) != AR_OK) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
            if (offs && ar_op_set_offs(op, offs) != AR_OK) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
        }
    }
    free(members);
    free(offs);
    free(counts);
    free(parent);
    return st;
}

ar_status ar_schedule_from_json(const char *text, const char *where, ar_schedule **out, ar_err *e) {
    *out = NULL;
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *ep = cJSON_GetErrorPtr();
        long off = ep && ep >= text ? (long)(ep - text) : -1;
        return ar_fail(e, AR_EINVAL, "%s: malformed JSON near byte %ld", where, off);
    }
    ar_status st = AR_OK;
    ar_schedule *s = NULL;
    uint64_t ranks = 0, count = 0, eb = 4;
    cJSON *doc = root; /* the schedule object: the document, or its "schedule" (`arlab plan --format json`) */
    const char *P = "$";
    if (!cJSON_IsObject(root)) st = ar_fail(e, AR_EINVAL, "%s: expected a JSON object", where);
    else if (!cJSON_HasObjectItem(root, "phases") &&
             cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "schedule"))) {
        root = cJSON_GetObjectItemCaseSensitive(doc, "schedule");
        P = "$.schedule";
    }
    if (st == AR_OK) st = get_u64(root, "ranks", 1, AR_SCHED_MAX_RANKS, &ranks, where, P, e);
    if (st == AR_OK) st = get_u64(root, "count", 1, UINT64_C(1) << 50, &count, where, P, e);
    if (st == AR_OK) st = get_u64(root, "elem_bytes", 0, 16, &eb, where, P, e);
    if (st == AR_OK && (ranks < 1 || count < 1 || eb < 1))
        st = ar_fail(e, AR_EINVAL, "%s: ranks, count and elem_bytes must be >= 1", where);
    const cJSON *algo = cJSON_GetObjectItemCaseSensitive(root, "algo");
    if (st == AR_OK) {
        s = ar_schedule_new(cJSON_IsString(algo) ? algo->valuestring : "loaded", (int)ranks, count, (size_t)eb);
        if (!s) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
    }
    const cJSON *detail = cJSON_GetObjectItemCaseSensitive(root, "detail");
    if (st == AR_OK && cJSON_IsString(detail) && detail->valuestring[0])
        st = ar_schedule_set_detail(s, "%s", detail->valuestring);
    const cJSON *coll = cJSON_GetObjectItemCaseSensitive(root, "collective");
    if (st == AR_OK && coll) {
        if (!cJSON_IsString(coll)) st = ar_fail(e, AR_EINVAL, "%s: $.collective: expected a string", where);
        else if ((st = ar_coll_parse(coll->valuestring, &s->coll, e)) != AR_OK)
            ar_err_prefix(e, "%s: $.collective", where);
    }
    const cJSON *phases = cJSON_GetObjectItemCaseSensitive(root, "phases");
    if (st == AR_OK && !cJSON_IsArray(phases)) st = ar_fail(e, AR_EINVAL, "%s: %s.phases: expected an array", where, P);
    long total_ops = 0;
    int pi = 0;
    const cJSON *ph;
    if (st == AR_OK) cJSON_ArrayForEach(ph, phases) {
            char path[80];
            snprintf(path, sizeof path, "%s.phases[%d]", P, pi);
            const cJSON *label = cJSON_GetObjectItemCaseSensitive(ph, "label");
            const cJSON *ops = cJSON_GetObjectItemCaseSensitive(ph, "ops");
            if (!cJSON_IsObject(ph) || !cJSON_IsArray(ops)) {
                st = ar_fail(e, AR_EINVAL, "%s: %s: expected an object with an \"ops\" array", where, path);
                break;
            }
            if (ar_sched_phase(s, "%s", cJSON_IsString(label) ? label->valuestring : "") < 0) {
                st = ar_fail(e, AR_ENOMEM, "%s: out of memory", where);
                break;
            }
            int oi = 0;
            const cJSON *jo;
            cJSON_ArrayForEach(jo, ops) {
                if (++total_ops > AR_SCHED_MAX_OPS_TOTAL) {
                    st = ar_fail(e, AR_ELIMIT, "%s: more than %d ops", where, AR_SCHED_MAX_OPS_TOTAL);
                    break;
                }
                char opath[96];
                snprintf(opath, sizeof opath, "%s.ops[%d]", path, oi++);
                if ((st = load_op(s, jo, where, opath, e)) != AR_OK) break;
            }
            if (st != AR_OK) break;
            pi++;
        }
    cJSON_Delete(doc);
    if (st == AR_OK) {
        st = ar_schedule_check_structure(s, e);
        if (st != AR_OK) {
            ar_err_prefix(e, "%s", where);
            st = AR_EINVAL;
        }
    }
    if (st != AR_OK) {
        ar_schedule_free(s);
        return st;
    }
    *out = s;
    return AR_OK;
}
