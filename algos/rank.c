/* Ranking of every registry algorithm and every searched variant by the
 * generic cost walk of its schedule (ar_algo_rank, core/algo.h; `arlab best`
 * prints it). The closed form is kept beside the walk where one exists; a
 * schedule whose walk would price more than AR_RANK_WALK_XFERS transfers (a
 * 4096-rank ring: 33M) is not walked: it is listed last, unranked, with its
 * closed form (closed forms of different algorithms assume different things,
 * so they are no common yardstick).
 * Ownership: ar_ranking_free releases the candidates and notes. No state.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/units.h"
#include "core/util.h"
#include "models/model.h"

static ar_rank_cand *new_cand(ar_ranking *c) {
    if (ar_grow(&c->v, &c->cap, (size_t)c->n + 1, sizeof *c->v)) return NULL;
    ar_rank_cand *x = &c->v[c->n];
    memset(x, 0, sizeof *x);
    x->index = c->n++;
    return x;
}

ar_status ar_rank_note(ar_ranking *r, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *dup = ar_strdup(buf);
    if (!dup || ar_grow(&r->notes, &r->notes_cap, (size_t)r->nnotes + 1, sizeof *r->notes)) {
        free(dup);
        return AR_ENOMEM;
    }
    r->notes[r->nnotes++] = dup;
    return AR_OK;
}

void ar_ranking_free(ar_ranking *r) {
    if (!r) return;
    for (int i = 0; i < r->nnotes; i++) free(r->notes[i]);
    free(r->notes);
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* Plans spec, walks it, and tries the closed form. AR_EUNSUPPORTED: the
 * algorithm cannot serve this platform (the message says why). */
ar_status ar_rank_eval(const ar_platform *p, uint64_t count, size_t eb, const char *algo, const char *params,
                       ar_ranking *r, ar_rank_cand **added, ar_err *e) {
    char spec[256];
    if (added) *added = NULL;
    snprintf(spec, sizeof spec, "%s%s%s", algo, params[0] ? ":" : "", params);
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan_coll(spec, r->coll, p, count, eb, &s, e);
    if (st != AR_OK) return st;
    ar_rank_cand *x = new_cand(r);
    if (!x) {
        ar_schedule_free(s);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    if (added) *added = x;
    snprintf(x->algo, sizeof x->algo, "%s", algo);
    snprintf(x->params, sizeof x->params, "%s", params);
    ar_model_result walk, closed;
    double xfers = 0; /* what the walk would price: sum over ops of rounds x transfers per round */
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            double per_round = (double)ar_lower_max_xfers(op);
            if (op->impl == AR_IMPL_CHAIN && op->chunks < op->n) /* a pipelined chain has <= chunks in flight */
                per_round = op->chunks;
            xfers += (double)ar_lower_nrounds(op) * per_round;
        }
    x->walk_s = NAN;
    if (xfers <= AR_RANK_WALK_XFERS) {
        st = ar_model_walk_from(p, s, r->start_s, &walk, e);
        ar_schedule_free(s);
        if (st != AR_OK) {
            r->n--; /* the candidate is dropped; the next one takes its index */
            if (added) *added = NULL;
            return st;
        }
        x->walk_s = walk.time_s;
        int worst = 0;
        for (int i = 1; i < walk.nstages; i++)
            if (walk.stages[i].time_s > walk.stages[worst].time_s) worst = i;
        char b1[32];
        if (walk.nstages)
            snprintf(x->slowest, sizeof x->slowest, "%s: %s", walk.stages[worst].label,
                     ar_fmt_time(walk.stages[worst].time_s, b1, sizeof b1));
    } else {
        ar_schedule_free(s);
        snprintf(x->slowest, sizeof x->slowest, "walk skipped (~%.1e transfers > %.0e): not ranked", xfers,
                 AR_RANK_WALK_XFERS);
    }
    x->closed_s = NAN;
    ar_err e2 = {{0}};
    if (ar_algo_closed_coll(spec, r->coll, p, count, eb, &closed, &e2) == AR_OK)
        x->closed_s = closed.time_s + ar_latest_start(r->start_s, p->nranks); /* it cannot see late ranks */
    x->key_s = x->walk_s;
    return AR_OK;
}

static int cmp_cand(const void *a, const void *b) {
    const ar_rank_cand *x = a, *y = b;
    if (isnan(x->key_s) != isnan(y->key_s)) return isnan(x->key_s) ? 1 : -1;
    if (x->key_s != y->key_s) return x->key_s < y->key_s ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

ar_status ar_algo_rank(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes, const double *start_s,
                       ar_ranking *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    out->coll = coll;
    out->start_s = start_s;
    int na;
    const ar_algo *const *all = ar_algos(&na);
    int *searched = ar_calloc((size_t)na, sizeof *searched);
    char **later = ar_calloc((size_t)na, sizeof *later); /* why a search did not apply, noted after the others */
    ar_status st = searched && later ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; i < na && st == AR_OK; i++) {
        ar_err e1 = {{0}};
        if (!(ar_algo_colls(all[i]) & AR_COLL_BIT(coll))) continue; /* e.g. pat: RS/AG only */
        if (all[i]->search && coll == AR_COLL_ALLREDUCE) {          /* the searches plan all-reduce variants */
            if (all[i]->search(p, count, elem_bytes, NULL, &e1) == AR_OK) {
                searched[i] = 1; /* its default is one of the variants, searched below */
                continue;
            }
            later[i] = ar_strdup(e1.msg);
            memset(&e1, 0, sizeof e1);
        }
        st = ar_rank_eval(p, count, elem_bytes, all[i]->name, "", out, NULL, &e1);
        if (st == AR_EUNSUPPORTED || st == AR_ENOMEM || st == AR_ELIMIT) {
            st = ar_rank_note(out, "%s: not applicable: %s", all[i]->name, e1.msg);
            if (st != AR_OK) ar_fail(e, st, "out of memory");
        } else if (st != AR_OK) {
            *e = e1;
        }
    }
    for (int i = 0; i < na && st == AR_OK; i++) {
        if (later[i] && (st = ar_rank_note(out, "%s", later[i])) != AR_OK) ar_fail(e, st, "out of memory");
        if (searched[i]) st = all[i]->search(p, count, elem_bytes, out, e);
    }
    for (int i = 0; later && i < na; i++) free(later[i]);
    free(later);
    free(searched);
    if (st == AR_OK && out->n == 0)
        st = ar_fail(e, AR_EUNSUPPORTED, "no algorithm can serve %s on platform '%s'", ar_coll_name(coll), p->name);
    if (st != AR_OK) return st;
    qsort(out->v, (size_t)out->n, sizeof *out->v, cmp_cand);
    return AR_OK;
}
