/* The sweep engine (sweep.h): evaluating one grid point. The costs come from
 * the one evaluation path (eval.h), the backend's time from its entry in the
 * backend table (backend.h), and the row's fields are set through the schema
 * (schema.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "lab/eval.h"
#include "sweep.h"

/* Relative differences below this count as agreement. */
#define SWEEP_AGREE 0.01

/* (a - b) / b; rounding noise below 1e-12 reads as 0. */
static double rel(double a, double b) {
    double d = lab_rel(a, b);
    return isfinite(d) && fabs(d) < 1e-12 ? 0.0 : d;
}

/* Why time_s parts from model_s: a heuristic label naming the assumption
 * that broke ("agree" within 1 %; "" when there is nothing to compare).
 * walk = the cost walk of the schedule, closed = the paper's closed form;
 * uneven = the schedule has ops with uneven blocks (FlexReduce). */
static const char *cause_of(const lab_backend *b, double t, double model, double closed, double walk, int uneven) {
    double d = rel(t, model);
    if (!isfinite(d)) return "";
    if (fabs(d) < SWEEP_AGREE) return "agree";
    double sw = rel(t, walk);
    if ((b->caps & LAB_CAP_MEASURED) && isfinite(sw) && fabs(sw) >= SWEEP_AGREE)
        return "measurement: overheads not in the model";
    if ((b->caps & LAB_CAP_NEEDS_SIMGRID) && isfinite(sw) && fabs(sw) >= SWEEP_AGREE) {
        if (sw > 0) return "sim: contention the cost walk does not count";
        return uneven ? "sim: uneven calls overlap instead of lockstep rounds"
                      : "sim: max-min sharing beats the walk's equal shares";
    }
    double cw = rel(walk, closed); /* the schedule's own cost vs the closed form */
    if (isfinite(cw) && fabs(cw) >= SWEEP_AGREE) {
        if (uneven && cw > 0) return "uneven blocks: each lockstep round waits for its largest block";
        if (cw > 0) return "link sharing the closed form does not count";
        return "closed form prices every step at the slowest link";
    }
    return "model assumption";
}

/* One grid point while it is evaluated: what it is, its costs and the backend's outcome. */
typedef struct point_state {
    const sweep_point *pt;
    const sweep_algo *sa;
    const char *label, *plabel; /* the algorithm's and the platform's labels */
    ar_platform *p;             /* NULL: the platform (or its scenario) failed */
    size_t eb;
    uint64_t elems;
    lab_point_out po;
    lab_eval ev;
    const char *cause;
    double nccl_s; /* what NCCL's own tuner would do at this point (NaN where not modelled) */
    const char *nalgo, *nproto;
    char name[128]; /* the algorithm's name, its label when neither the sweep nor the registry gives one */
} point_state;

/* The point's algorithm, labels and platform; the costs and outcome start empty. */
static void point_init(sweep_ctx *ctx, int i, point_state *ps) {
    const ar_sweep *s = ctx->spec;
    memset(ps, 0, sizeof *ps);
    ps->pt = &ctx->points[i];
    ps->sa = &s->algos[ps->pt->algo];
    ps->eb = ar_dtype_size(s->dtype);
    ps->elems = s->sizes[ps->pt->size].elems;
    ps->po.status = "ok";
    ps->po.time_s = ps->po.sim_s = ps->po.measured_s = NAN;
    ps->cause = "";
    ps->ev.closed_s = ps->ev.walk_s = ps->ev.model_s = NAN;
    ps->ev.stats.calls_max = ps->ev.stats.calls_avg = ps->ev.stats.calls_bound = NAN;
    ps->ev.detail = "";
    ps->nccl_s = NAN;
    ps->nalgo = ps->nproto = "";

    snprintf(ps->name, sizeof ps->name, "%.*s", (int)strcspn(ps->sa->spec, ":"), ps->sa->spec);
    const ar_algo *al = ar_algo_find(ps->name);
    ps->label = ps->sa->label ? ps->sa->label : al ? al->label : ps->name;

    ar_err le = {{0}};
    ps->plabel = s->platforms[ps->pt->plat].label;
    if (sweep_platform(ctx, ps->pt, &ps->p, &le) != AR_OK) {
        ps->p = NULL;
        ps->po.status = "error";
        snprintf(ps->po.message, sizeof ps->po.message, "platform: %s", le.msg);
    }
}

/* The backend's run of the planned schedule (status still "ok"), and why its time parts from the model. */
static void point_backend(sweep_ctx *ctx, point_state *ps, const double *delays) {
    const ar_sweep *s = ctx->spec;
    const ar_scenario *sc = ctx->cache_scen;
    lab_point_out *po = &ps->po;
    lab_eval *ev = &ps->ev;
    if (!ev->have_walk) {
        po->status = "error";
        snprintf(po->message, sizeof po->message, "model walk: %s", ev->walk_err.msg);
    }
    if (!strcmp(po->status, "ok")) {
        lab_point_in in = {.p = ps->p,
                           .rank_delay_s = delays,
                           .flows = sc ? sc->flows : NULL,
                           .nflows = sc ? sc->nflows : 0,
                           .sch = ev->sch,
                           .algo = ps->sa->spec,
                           .plat_label = ps->plabel,
                           .bytes = (double)ps->elems * (double)ps->eb,
                           .walk_s = ev->walk_s,
                           .sim_network = s->sim_network,
                           .sim_gamma_s_per_B = s->sim_gamma_s_per_B,
                           .sim_sync = s->sim_sync,
                           .sim_budget_s = s->sim_budget_s,
                           .measures = ctx->measures.m,
                           .nmeasures = ctx->measures.n};
        ps->pt->backend->run(&in, po);
    }
    if (!strcmp(po->status, "ok"))
        ps->cause = cause_of(ps->pt->backend, po->time_s, ev->model_s, ev->closed_s, ev->walk_s, ev->uneven);
    if (ev->have_closed && ev->closed.note[0] && !po->message[0])
        snprintf(po->message, sizeof po->message, "closed form: %s", ev->closed.note);
}

/* The point's costs (one evaluation path), the backend's time and NCCL's own choice. */
static void point_run(sweep_ctx *ctx, point_state *ps) {
    const ar_scenario *sc = ctx->cache_scen; /* what-if: late ranks start late in the walk and the simulation */
    ar_platform *p = ps->p;
    double *delays = NULL;
    if (p && sc && ar_scenario_max_delay(sc) > 0 && (delays = calloc((size_t)p->nranks, sizeof *delays)))
        ar_scenario_delays(sc, p->nranks, delays);
    if (p) {
        ar_err le = {{0}};
        lab_eval_opts eo = {.start_s = delays};
        ar_status st = lab_eval_model(p, ps->sa->spec, ps->elems, ps->eb, &eo, &ps->ev, &le);
        if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) { /* a documented limit: not applicable here */
            ps->po.status = "unsupported";
            snprintf(ps->po.message, sizeof ps->po.message, "%s", le.msg);
        } else if (st != AR_OK) {
            ps->po.status = "error";
            snprintf(ps->po.message, sizeof ps->po.message, "plan: %s", le.msg);
        }
    }
    if (ps->ev.sch) point_backend(ctx, ps, delays);
    free(delays);
    ar_err ne = {{0}};
    if (p)
        (void)lab_nccl_choice(p, 0 /* all-reduce */, (double)ps->elems * (double)ps->eb, &ps->nccl_s, &ps->nalgo,
                              &ps->nproto, &ne);
}

/* The training columns of a row: train config k applied to the point's time, or empty. */
static void row_train(const ar_sweep *s, int k, const point_state *ps, sweep_row *r) {
    lab_set(r, SC_TRAIN, s->ntrain ? s->train[k].label : "");
    if (s->ntrain && isfinite(ps->po.time_s) && ps->p) {
        sweep_train_result tr = sweep_train_eval(&s->train[k], ps->p->nranks, ps->po.time_s);
        lab_set_num(r, SC_COMPUTE, tr.compute_s);
        lab_set_num(r, SC_COMM, tr.comm_s);
        lab_set_num(r, SC_ITER, tr.iter_s);
        lab_set_num(r, SC_OVERHEAD, tr.overhead_s);
        lab_set_num(r, SC_IMAGES, tr.images_s);
        lab_set_num(r, SC_SPEEDUP, tr.speedup);
        lab_set_num(r, SC_EFF, tr.scaling_eff);
    } else {
        static const int tc[] = {SC_COMPUTE, SC_COMM, SC_ITER, SC_OVERHEAD, SC_IMAGES, SC_SPEEDUP, SC_EFF};
        for (size_t c = 0; c < sizeof tc / sizeof tc[0]; c++) lab_set(r, tc[c], "");
    }
}

/* Row k of point i (train config k); the caller checks every field was set. */
static void row_fill(sweep_ctx *ctx, int i, int k, const point_state *ps, sweep_row *r) {
    const ar_sweep *s = ctx->spec;
    const ar_platform *p = ps->p;
    const lab_point_out *po = &ps->po;
    const lab_eval *ev = &ps->ev;
    double bytes = (double)ps->elems * (double)ps->eb;
    lab_set(r, SC_SWEEP, s->name);
    lab_set(r, SC_BACKEND, ps->pt->backend->name);
    lab_set(r, SC_PLATFORM, ps->plabel ? ps->plabel : p ? p->name : s->platforms[ps->pt->plat].spec);
    if (p) {
        lab_set_int(r, SC_RANKS, p->nranks);
        lab_set_int(r, SC_MACHINES, p->nmachines);
    } else { /* the platform (or its scenario) failed: the row says why, not "out of memory" */
        lab_set(r, SC_RANKS, "");
        lab_set(r, SC_MACHINES, "");
    }
    lab_set(r, SC_ALGO, ps->sa->spec);
    lab_set(r, SC_LABEL, ps->label);
    lab_set(r, SC_DTYPE, ar_dtype_name(s->dtype));
    lab_set_int(r, SC_ELEMS, (long long)ps->elems);
    lab_set_num(r, SC_BYTES, bytes);
    lab_set_num(r, SC_TIME, po->time_s);
    lab_set_num(r, SC_MODEL, ev->model_s);
    lab_set_num(r, SC_CLOSED, ev->closed_s);
    lab_set_num(r, SC_WALK, ev->walk_s);
    lab_set_num(r, SC_SIM, po->sim_s);
    lab_set_num(r, SC_MEASURED, po->measured_s);
    lab_set_num(r, SC_REL_DIFF, rel(po->time_s, ev->model_s));
    lab_set(r, SC_BASE, "");
    lab_set(r, SC_VS_BASE, "");
    lab_set(r, SC_SAVING, "");
    lab_set_num(r, SC_CALLS_MAX, ev->stats.calls_max);
    lab_set_num(r, SC_CALLS_AVG, ev->stats.calls_avg);
    lab_set_num(r, SC_CALLS_BOUND, ev->stats.calls_bound);
    row_train(s, k, ps, r);
    lab_set(r, SC_STATUS, po->status);
    lab_set(r, SC_CAUSE, ps->cause);
    lab_set(r, SC_PLATFORM_HASH, p ? ctx->cache_hash : "");
    lab_set(r, SC_VERSION, ctx->version);
    lab_set(r, SC_COMMIT, ctx->commit);
    lab_set(r, SC_PLATFORM_SRC, p && p->source ? p->source : s->platforms[ps->pt->plat].spec);
    lab_set(r, SC_NETWORK, po->network);
    char detail[256]; /* as long as results have always carried */
    snprintf(detail, sizeof detail, "%s", ev->detail);
    lab_set(r, SC_DETAIL, detail);
    lab_set(r, SC_MESSAGE, po->message);
    char key[2048];
    sweep_key(ctx, i, k, key, sizeof key);
    lab_set(r, SC_KEY, key);
    lab_set_num(r, SC_ALGBW, lab_algbw_GBps(bytes, po->time_s));
    lab_set_num(r, SC_BUSBW, p ? lab_busbw_GBps(0, p->nranks, bytes, po->time_s) : NAN);
    lab_set_num(r, SC_NCCL_MODEL, ps->nccl_s);
    lab_set(r, SC_NCCL_ALGO, ps->nalgo);
    lab_set(r, SC_NCCL_PROTO, ps->nproto);
}

ar_status sweep_eval(sweep_ctx *ctx, int i, sweep_rows *out, ar_err *e) {
    point_state ps;
    point_init(ctx, i, &ps);
    point_run(ctx, &ps);
    for (int k = 0; k < ctx->nkeys_per_point; k++) {
        sweep_row *r = sweep_rows_add(out);
        if (!r) {
            lab_eval_free(&ps.ev);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
        row_fill(ctx, i, k, &ps, r);
        for (int c = 0; c < LAB_NCOLS; c++)
            if (!r->f[c]) {
                lab_eval_free(&ps.ev);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
    }
    lab_eval_free(&ps.ev);
    return AR_OK;
}
