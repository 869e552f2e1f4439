/* One evaluation path (eval.h): plan once, closed form, cost walk, model_s. */
#include <math.h>
#include <string.h>

#include "eval.h"
#include "models/nccl_model.h"

double lab_rel(double a, double b) {
    if (!isfinite(a) || !isfinite(b) || !(b > 0)) return NAN;
    return (a - b) / b;
}

double lab_algbw_GBps(double bytes, double time_s) {
    if (!isfinite(time_s) || !(time_s > 0) || !isfinite(bytes)) return NAN;
    return ar_nccl_algbw(bytes, time_s) / 1e9;
}

double lab_busbw_GBps(int coll, int nranks, double bytes, double time_s) {
    double a = lab_algbw_GBps(bytes, time_s);
    if (!isfinite(a) || nranks < 1 || coll < 0 || coll >= AR_NCCL_NCOLLS) return NAN;
    return ar_nccl_busbw((ar_nccl_coll)coll, nranks, a * 1e9) / 1e9;
}

ar_status lab_nccl_choice(const ar_platform *p, int coll, double bytes, double *time_s, const char **algo,
                          const char **proto, ar_err *e) {
    *time_s = NAN;
    *algo = *proto = "";
    if (coll < 0 || coll >= AR_NCCL_NCOLLS) return ar_fail(e, AR_EINVAL, "unknown collective %d", coll);
    ar_nccl_algo a;
    ar_nccl_proto pr;
    double t;
    ar_status st = ar_nccl_model_platform(p, 0, (ar_nccl_coll)coll, -1, bytes, &a, &pr, &t, e);
    if (st != AR_OK) return st;
    *time_s = t;
    *algo = ar_nccl_algo_name(a);
    *proto = ar_nccl_proto_name(pr);
    return AR_OK;
}

/* 1 if some phase runs concurrent pieces of clearly different sizes (> 1 %
 * apart): FlexReduce's uneven reduce calls, not equal shards. A piece is a
 * member's block for reduce-scatter/all-gather, the op's range otherwise. */
static int schedule_uneven(const ar_schedule *sch) {
    for (int ph = 0; ph < sch->nphases; ph++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int o = 0; o < sch->phases[ph].nops; o++) {
            const ar_op *op = &sch->phases[ph].ops[o];
            if (op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_ALL_GATHER) {
                for (int m = 0; m < op->n; m++) {
                    uint64_t off, len;
                    ar_op_block(op, m, &off, &len);
                    if (len < lo) lo = len;
                    if (len > hi) hi = len;
                }
            } else {
                if (op->count < lo) lo = op->count;
                if (op->count > hi) hi = op->count;
            }
        }
        if (hi > 0 && (double)hi > 1.01 * (double)lo + 1) return 1;
    }
    return 0;
}

/* The algorithm's own statistics where it has them (FlexReduce), else the
 * schedule's reduce calls per rank (max and mean; no bound). */
static void stats_of(const ar_platform *p, const char *spec, uint64_t count, size_t eb, const ar_schedule *sch,
                     ar_algo_stats *out) {
    ar_err e = {{0}};
    ar_status st = ar_algo_stats_of(spec, p, count, eb, out, &e);
    if (st != AR_OK) {
        memset(out, 0, sizeof *out);
        out->calls_max = out->calls_avg = out->calls_bound = NAN;
        return;
    }
    if (out->have_calls) return;
    ar_call_stats cs;
    if (ar_schedule_call_stats(sch, &cs, &e) != AR_OK) return;
    double sum = 0, mx = 0;
    for (int r = 0; r < sch->nranks; r++) {
        sum += cs.reduce_calls[r];
        if (cs.reduce_calls[r] > mx) mx = cs.reduce_calls[r];
    }
    out->calls_max = mx;
    out->calls_avg = sch->nranks ? sum / sch->nranks : NAN;
    ar_call_stats_free(&cs);
}

/* What-if pipelining (opts->chunks > 0): the lowering splits every step into `chunks` rounds. */
static void set_chunks(ar_schedule *s, const lab_eval_opts *opts) {
    int chunks = opts ? opts->chunks : 0;
    if (chunks > 0)
        for (int ph = 0; ph < s->nphases; ph++)
            for (int k = 0; k < s->phases[ph].nops; k++) s->phases[ph].ops[k].chunks = chunks;
}

static void init(lab_eval *out) {
    memset(out, 0, sizeof *out);
    out->closed_s = out->walk_s = out->model_s = out->rel_diff = NAN;
    out->stats.calls_max = out->stats.calls_avg = out->stats.calls_bound = NAN;
    out->detail = "";
}

ar_status lab_eval_model(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                         const lab_eval_opts *opts, lab_eval *out, ar_err *e) {
    ar_status st = lab_eval_plan(p, spec, count, elem_bytes, opts, out, e);
    if (st == AR_OK) lab_eval_price(p, spec, count, elem_bytes, opts, out);
    return st;
}

ar_status lab_eval_plan(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                        const lab_eval_opts *opts, lab_eval *out, ar_err *e) {
    init(out);
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan_coll(spec, opts ? opts->coll : AR_COLL_ALLREDUCE, p, count, elem_bytes, &s, e);
    if (st != AR_OK) return st;
    set_chunks(s, opts);
    out->sch = s;
    return AR_OK;
}

void lab_eval_price(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                    const lab_eval_opts *opts, lab_eval *out) {
    ar_schedule *s = out->sch;
    lab_eval_schedule(p, spec, count, elem_bytes, s, opts, out);
    out->sch = s;
}

void lab_eval_schedule(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes, ar_schedule *s,
                       const lab_eval_opts *opts, lab_eval *out) {
    init(out);
    int chunks = opts ? opts->chunks : 0;
    set_chunks(s, opts);
    if (s->detail) out->detail = s->detail;
    out->uneven = schedule_uneven(s);

    const double *start_s = opts ? opts->start_s : NULL;
    double late = ar_latest_start(start_s, p->nranks);
    out->walk_status = ar_model_walk_from(p, s, start_s, &out->walk, &out->walk_err);
    if (out->walk_status == AR_OK) {
        out->have_walk = 1;
        out->walk_s = out->walk.time_s;
    }
    if (chunks == 0) {
        ar_err ce = {{0}};
        out->closed.note[0] = 0;
        if (ar_algo_closed_coll(spec, s->coll, p, count, elem_bytes, &out->closed, &ce) == AR_OK &&
            isfinite(out->closed.time_s)) {
            out->have_closed = 1;
            out->closed.time_s += late;
            out->closed_s = out->closed.time_s;
        }
    }
    if (out->have_closed && out->have_walk) out->rel_diff = (out->walk_s - out->closed_s) / out->closed_s;
    /* model_s (the one definition): the closed form where it prices this schedule on this
     * platform, i.e. it agrees with the walk, or where the walk's lockstep rounds do not hold
     * (uneven concurrent pieces: the closed form is the algorithm's own model of them); else
     * the walk, which prices the schedule on the platform's own links and start times (a
     * paper's equation with one link class is off on a mixed fabric, and cannot see a late rank) */
    int walk_first = out->have_closed && out->have_walk && !out->uneven && fabs(out->rel_diff) > LAB_EVAL_AGREE;
    if (walk_first)
        snprintf(out->model_why, sizeof out->model_why, LAB_MODEL_WHY "; the closed form is %+.3g%% (%s)",
                 100 * (out->closed_s - out->walk_s) / out->walk_s,
                 late > 0 ? "it adds the whole start delay" : "its assumptions, e.g. one link class, do not hold here");
    out->model = walk_first || !out->have_closed ? (out->have_walk ? &out->walk : NULL) : &out->closed;
    if (out->model) out->model_s = out->model->time_s;
    stats_of(p, spec, count, elem_bytes, s, &out->stats);
}

void lab_eval_free(lab_eval *ev) {
    ar_schedule_free(ev->sch);
    ev->sch = NULL;
}
