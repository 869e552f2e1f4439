/* Scenario jobs in one schedule (lab/jobs.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "jobs.h"
#include "models/model.h"

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

void lab_jobs_free(lab_jobs *J) {
    ar_schedule_free(J->sch);
    free(J->phase_first);
    free(J->alone_s);
    free(J->delays);
    memset(J, 0, sizeof *J);
}

/* Appends the phases of job schedule js (ranks mapped through map) to s. */
static ar_status append(ar_schedule *s, const ar_schedule *js, const int *map, int job, ar_err *e) {
    int *mem = NULL;
    size_t cap = 0;
    for (int ph = 0; ph < js->nphases; ph++) {
        const ar_phase *P = &js->phases[ph];
        if (ar_sched_phase(s, "job %d: %s", job, P->label ? P->label : "phase") < 0) goto oom;
        for (int i = 0; i < P->nops; i++) {
            const ar_op *o = &P->ops[i];
            if ((size_t)o->n > cap) {
                free(mem);
                cap = (size_t)o->n;
                if (!(mem = malloc(cap * sizeof *mem))) goto oom;
            }
            for (int m = 0; m < o->n; m++) mem[m] = map[o->members[m]];
            ar_op *q = ar_sched_op(s, o->kind, o->impl, mem, o->n, o->offset, o->count);
            if (!q || (o->counts && ar_op_set_counts(q, o->counts) != AR_OK) ||
                (o->offs && ar_op_set_offs(q, o->offs) != AR_OK) ||
                (o->parent && ar_op_set_parent(q, o->parent) != AR_OK))
                goto oom;
            q->root = o->root;
            q->chunks = o->chunks;
            q->reduce = o->reduce;
            q->tag = o->tag;
            q->proto = o->proto;
        }
    }
    free(mem);
    return AR_OK;
oom:
    free(mem);
    return ar_fail(e, AR_ENOMEM, "out of memory");
}

ar_status lab_jobs_plan(const ar_platform *p, const ar_scenario *sc, uint64_t count, size_t eb, ar_coll coll,
                        lab_jobs *J, ar_err *e) {
    memset(J, 0, sizeof *J);
    J->njobs = sc->njobs;
    int *owner = malloc((size_t)p->nranks * sizeof *owner);
    char *fail = malloc((size_t)p->nranks);
    J->phase_first = calloc((size_t)sc->njobs + 1, sizeof *J->phase_first);
    J->alone_s = calloc((size_t)sc->njobs + 1, sizeof *J->alone_s);
    J->delays = calloc((size_t)p->nranks, sizeof *J->delays);
    J->sch = ar_schedule_new("jobs", p->nranks, count, eb);
    if (J->sch) J->sch->coll = coll;
    ar_status st = owner && fail && J->phase_first && J->alone_s && J->delays && J->sch
                       ? AR_OK
                       : ar_fail(e, AR_ENOMEM, "out of memory");
    for (int r = 0; !st && r < p->nranks; r++) owner[r] = -1;
    for (int j = 0; !st && j < sc->njobs; j++)
        for (int k = 0; !st && k < sc->jobs[j].nranks; k++) {
            int r = sc->jobs[j].ranks[k];
            if (r >= p->nranks)
                st = ar_fail(e, AR_EINVAL, "%s: jobs[%d]: rank %d, the platform has %d", sc->source, j, r, p->nranks);
            else if (owner[r] >= 0)
                st = ar_fail(e, AR_EINVAL,
                             "%s: jobs[%d]: rank %d is already in jobs[%d] (jobs share the fabric, not ranks)",
                             sc->source, j, r, owner[r]);
            else owner[r] = j;
        }
    if (!st) ar_scenario_delays(sc, p->nranks, J->delays);
    for (int j = 0; !st && j < sc->njobs; j++) {
        const ar_job *jb = &sc->jobs[j];
        int *map = malloc((size_t)jb->nranks * sizeof *map);
        ar_platform *sub = NULL;
        ar_schedule *js = NULL;
        if (!map) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        memcpy(map, jb->ranks, (size_t)jb->nranks * sizeof *map);
        qsort(map, (size_t)jb->nranks, sizeof *map, cmp_int); /* sub-platform rank k = the k-th smallest */
        for (int r = 0; r < p->nranks; r++) fail[r] = owner[r] != j;
        ar_err se = {{0}};
        st = ar_platform_degrade(p, NULL, fail, &sub, &se);
        if (!st) st = ar_algo_plan_coll(jb->algo, coll, sub, count, eb, &js, &se);
        if (st) {
            char m[AR_ERR_LEN];
            snprintf(m, sizeof m, "%s", se.msg);
            ar_fail(e, st, "%s: jobs[%d] (%s on %d ranks): %s", sc->source, j, jb->algo, jb->nranks, m);
        }
        ar_model_result mr;
        J->alone_s[j] = !st && ar_model_walk(sub, js, &mr, &se) == AR_OK ? mr.time_s : NAN;
        J->phase_first[j] = J->sch->nphases;
        if (!st) st = append(J->sch, js, map, j, e);
        J->phase_first[j + 1] = J->sch->nphases;
        for (int k = 0; !st && k < jb->nranks; k++) J->delays[jb->ranks[k]] += jb->start_s;
        ar_schedule_free(js);
        ar_platform_free(sub);
        free(map);
    }
    free(owner);
    free(fail);
    if (st) lab_jobs_free(J);
    return st;
}

double lab_jobs_time(const lab_jobs *J, const ar_scenario *sc, const double *phase_end_s, int j) {
    double t = 0;
    for (int ph = J->phase_first[j]; ph < J->phase_first[j + 1]; ph++)
        if (phase_end_s[ph] > t) t = phase_end_s[ph];
    return t - sc->jobs[j].start_s;
}
