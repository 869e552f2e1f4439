/* A user-written schedule as an algorithm: `--algo schedule:file=FILE.json`
 * (or `--schedule FILE.json` on the verbs). The file is what `arlab plan
 * --format json` writes (core/schedule.h ar_schedule_from_json; docs/algorithms.md's
 * "User-written schedules" section documents the format).
 *
 * Planning: read the file, check its structure (errors name the JSON path),
 * check that it has the platform's rank count, run the symbolic validator on
 * it as written (every rank must end with every input exactly once; a file whose
 * "collective" is reducescatter or allgather serves that collective, `--coll`,
 * and is validated as one), then
 * scale it to the size asked: a schedule written for C elements serves any
 * multiple k x C; every offset, count, uneven block and per-member block start
 * (offs) grows by k. Even
 * reduce-scatter/all-gather blocks that do not divide evenly (C % n != 0) are
 * written out as explicit counts first, so block boundaries scale exactly and
 * the scaled schedule is the written one with every element repeated k times.
 * The element size is the verb's --dtype (the file's elem_bytes is ignored).
 *
 * It is not in `ar_algos()` (it needs its file; `--algo all` leaves it out)
 * but ar_algo_find knows it (algos/registry.c). No closed form.
 * Ownership: the planned schedule is the caller's.
 */
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/util.h"

#define AR_USER_SCHEDULE_MAX_BYTES ((size_t)256 << 20)

static const ar_param_def params[] = {{.key = "file",
                                       .type = AR_PARAM_STR,
                                       .example = "experiments/schedules/two-rings.json",
                                       .help = "the schedule's JSON file (the format of `arlab plan --format json`)"},
                                      {NULL}};

/* Every offset, count and block (and per-member block start) of s times k; even blocks that do not
 * divide evenly become explicit counts first. */
static ar_status scale(ar_schedule *s, uint64_t k, ar_err *e) {
    for (int ph = 0; ph < s->nphases; ph++)
        for (int o = 0; o < s->phases[ph].nops; o++) {
            ar_op *op = &s->phases[ph].ops[o];
            int blocks = op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_ALL_GATHER || op->offs;
            if (!op->counts && blocks && op->count % (uint64_t)op->n != 0) {
                uint64_t *c = malloc((size_t)op->n * sizeof *c);
                if (!c) return ar_fail(e, AR_ENOMEM, "out of memory");
                for (int m = 0; m < op->n; m++) {
                    uint64_t off;
                    ar_op_block(op, m, &off, &c[m]);
                }
                ar_status st = ar_op_set_counts(op, c);
                free(c);
                if (st != AR_OK) return ar_fail(e, st, "out of memory");
            }
            op->offset *= k;
            op->count *= k;
            for (int m = 0; op->counts && m < op->n; m++) op->counts[m] *= k;
            for (int m = 0; op->offs && m < op->n; m++) op->offs[m] *= k;
        }
    s->count *= k;
    return AR_OK;
}

static ar_status load(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                      ar_schedule **out, ar_err *e) {
    *out = NULL;
    const char *path = v[0].s;
    if (!v[0].given) return ar_fail(e, AR_EINVAL, "schedule: give its file: schedule:file=FILE.json (or --schedule)");
    char *text = NULL;
    size_t len = 0;
    ar_status st = ar_read_file(path, AR_USER_SCHEDULE_MAX_BYTES, &text, &len, e);
    if (st != AR_OK) return st;
    ar_schedule *s = NULL;
    st = ar_schedule_from_json(text, path, &s, e);
    free(text);
    if (st != AR_OK) return st;
    if (st == AR_OK && s->coll != coll) /* the file's "collective" (absent: allreduce) */
        st = ar_fail(e, AR_EINVAL, "%s: the schedule performs %s, not %s (--coll %s)", path, ar_coll_name(s->coll),
                     ar_coll_name(coll), ar_coll_name(s->coll));
    if (st == AR_OK && s->nranks != p->nranks)
        st = ar_fail(e, AR_EINVAL, "%s: the schedule has %d ranks, platform %s has %d", path, s->nranks, p->name,
                     p->nranks);
    if (st == AR_OK && (st = ar_schedule_resolve_switches(s, p, e)) != AR_OK) { /* "switch": NAME */
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        ar_fail(e, st, "%s: %s", path, m);
    }
    if (st == AR_OK && (st = ar_platform_check_switch_ops(p, s, e)) != AR_OK) {
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        ar_fail(e, st, "%s: %s", path, m);
    }
    if (st == AR_OK && (st = ar_schedule_check_structure(s, e)) != AR_OK) {
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        ar_fail(e, st, "%s: %s", path, m);
    }
    if (st == AR_OK && (st = ar_schedule_validate(s, e)) != AR_OK) {
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        if (coll == AR_COLL_ALLREDUCE) ar_fail(e, st, "%s: not an all-reduce: %s", path, m);
        else ar_fail(e, st, "%s: not a %s: %s", path, ar_coll_name(coll), m);
    }
    if (st == AR_OK && count % s->count != 0)
        st = ar_fail(e, AR_EINVAL,
                     "%s: the schedule is written for %llu elements; sizes must be a multiple of it (asked %llu "
                     "elements)",
                     path, (unsigned long long)s->count, (unsigned long long)count);
    if (st == AR_OK) st = scale(s, count / s->count, e);
    if (st != AR_OK) {
        ar_schedule_free(s);
        return st;
    }
    s->elem_bytes = elem_bytes;
    *out = s;
    return AR_OK;
}

static ar_status plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v, ar_schedule **out,
                      ar_err *e) {
    return load(p, AR_COLL_ALLREDUCE, count, elem_bytes, v, out, e);
}

const ar_algo ar_algo_user_schedule = {
    .name = "schedule",
    .label = "User-written schedule",
    .summary = "a schedule read from a JSON file (schedule:file=F, or --schedule F), validated, scaled to the size",
    .params = params,
    .plan = plan,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = load,
};
