/* The sweep engine (sweep.h): evaluating one grid point. The costs come from
 * the one evaluation path (eval.h), the backend's time from its entry in the
 * backend table (backend.h), and the row's fields are set through the schema
 * (schema.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "eval.h"
#include "sweep.h"

/* Relative differences below this count as agreement. */
#define SW_AGREE 0.01

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
    if (fabs(d) < SW_AGREE) return "agree";
    double sw = rel(t, walk);
    if ((b->caps & LAB_CAP_MEASURED) && isfinite(sw) && fabs(sw) >= SW_AGREE)
        return "measurement: overheads not in the model";
    if ((b->caps & LAB_CAP_NEEDS_SIMGRID) && isfinite(sw) && fabs(sw) >= SW_AGREE) {
        if (sw > 0) return "sim: contention the cost walk does not count";
        return uneven ? "sim: uneven calls overlap instead of lockstep rounds"
                      : "sim: max-min sharing beats the walk's equal shares";
    }
    double cw = rel(walk, closed); /* the schedule's own cost vs the closed form */
    if (isfinite(cw) && fabs(cw) >= SW_AGREE) {
        if (uneven && cw > 0) return "uneven blocks: each lockstep round waits for its largest block";
        if (cw > 0) return "link sharing the closed form does not count";
        return "closed form prices every step at the slowest link";
    }
    return "model assumption";
}

ar_status sweep_eval(sweep_ctx *ctx, int i, sweep_rows *out, ar_err *e) {
    const sweep_point *pt = &ctx->points[i];
    const ar_sweep *s = ctx->spec;
    const ar_sweep_algo *sa = &s->algos[pt->algo];
    size_t eb = ar_dtype_size(s->dtype);
    uint64_t elems = s->sizes[pt->size].elems;
    lab_point_out po;
    memset(&po, 0, sizeof po);
    po.status = "ok";
    po.time_s = po.sim_s = po.measured_s = NAN;
    const char *cause = "";
    lab_eval ev;
    memset(&ev, 0, sizeof ev);
    ev.closed_s = ev.walk_s = ev.model_s = NAN;
    ev.stats.calls_max = ev.stats.calls_avg = ev.stats.calls_bound = NAN;
    ev.detail = "";

    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(sa->spec, ":"), sa->spec);
    const ar_algo *al = ar_algo_find(name);
    const char *label = sa->label ? sa->label : al ? al->label : name;

    ar_platform *p = NULL;
    ar_err le = {{0}};
    const char *plabel = s->platforms[pt->plat].label;
    if (sweep_platform(ctx, pt, &p, &le) != AR_OK) {
        p = NULL;
        po.status = "error";
        snprintf(po.message, sizeof po.message, "platform: %s", le.msg);
    }
    const ar_scenario *sc = ctx->cache_scen; /* what-if: late ranks start late in the walk and the simulation */
    double *delays = NULL;
    if (p && sc && ar_scenario_max_delay(sc) > 0 && (delays = calloc((size_t)p->nranks, sizeof *delays)))
        ar_scenario_delays(sc, p->nranks, delays);
    if (p) {
        lab_eval_opts eo = {.start_s = delays};
        ar_status st = lab_eval_model(p, sa->spec, elems, eb, &eo, &ev, &le);
        if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) { /* a documented limit: not applicable here */
            po.status = "unsupported";
            snprintf(po.message, sizeof po.message, "%s", le.msg);
        } else if (st != AR_OK) {
            po.status = "error";
            snprintf(po.message, sizeof po.message, "plan: %s", le.msg);
        }
    }
    if (ev.sch) {
        if (!ev.have_walk) {
            po.status = "error";
            snprintf(po.message, sizeof po.message, "model walk: %s", ev.walk_err.msg);
        }
        if (!strcmp(po.status, "ok")) {
            lab_point_in in = {.p = p,
                               .rank_delay_s = delays,
                               .flows = sc ? sc->flows : NULL,
                               .nflows = sc ? sc->nflows : 0,
                               .sch = ev.sch,
                               .algo = sa->spec,
                               .plat_label = plabel,
                               .bytes = (double)elems * (double)eb,
                               .walk_s = ev.walk_s,
                               .sim_network = s->sim_network,
                               .sim_gamma_s_per_B = s->sim_gamma_s_per_B,
                               .sim_sync = s->sim_sync,
                               .sim_budget_s = s->sim_budget_s,
                               .measures = ctx->measures.m,
                               .nmeasures = ctx->measures.n};
            pt->backend->run(&in, &po);
        }
        if (!strcmp(po.status, "ok"))
            cause = cause_of(pt->backend, po.time_s, ev.model_s, ev.closed_s, ev.walk_s, ev.uneven);
        if (ev.have_closed && ev.closed.note[0] && !po.message[0])
            snprintf(po.message, sizeof po.message, "closed form: %s", ev.closed.note);
    }

    free(delays);

    double nccl_s = NAN; /* what NCCL's own tuner would do at this point (empty where not modelled) */
    const char *nalgo = "", *nproto = "";
    ar_err ne = {{0}};
    if (p) (void)lab_nccl_choice(p, 0 /* all-reduce */, (double)elems * (double)eb, &nccl_s, &nalgo, &nproto, &ne);
    for (int k = 0; k < ctx->nkeys_per_point; k++) {
        sweep_row *r = sweep_rows_add(out);
        if (!r) {
            lab_eval_free(&ev);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
        lab_set(r, SC_SWEEP, s->name);
        lab_set(r, SC_BACKEND, pt->backend->name);
        lab_set(r, SC_PLATFORM, plabel ? plabel : p ? p->name : s->platforms[pt->plat].spec);
        if (p) {
            lab_set_int(r, SC_RANKS, p->nranks);
            lab_set_int(r, SC_MACHINES, p->nmachines);
        } else { /* the platform (or its scenario) failed: the row says why, not "out of memory" */
            lab_set(r, SC_RANKS, "");
            lab_set(r, SC_MACHINES, "");
        }
        lab_set(r, SC_ALGO, sa->spec);
        lab_set(r, SC_LABEL, label);
        lab_set(r, SC_DTYPE, ar_dtype_name(s->dtype));
        lab_set_int(r, SC_ELEMS, (long long)elems);
        lab_set_num(r, SC_BYTES, (double)elems * (double)eb);
        lab_set_num(r, SC_TIME, po.time_s);
        lab_set_num(r, SC_MODEL, ev.model_s);
        lab_set_num(r, SC_CLOSED, ev.closed_s);
        lab_set_num(r, SC_WALK, ev.walk_s);
        lab_set_num(r, SC_SIM, po.sim_s);
        lab_set_num(r, SC_MEASURED, po.measured_s);
        lab_set_num(r, SC_REL_DIFF, rel(po.time_s, ev.model_s));
        lab_set(r, SC_BASE, "");
        lab_set(r, SC_VS_BASE, "");
        lab_set(r, SC_SAVING, "");
        lab_set_num(r, SC_CALLS_MAX, ev.stats.calls_max);
        lab_set_num(r, SC_CALLS_AVG, ev.stats.calls_avg);
        lab_set_num(r, SC_CALLS_BOUND, ev.stats.calls_bound);
        lab_set(r, SC_TRAIN, s->ntrain ? s->train[k].label : "");
        if (s->ntrain && isfinite(po.time_s) && p) {
            ar_train_result tr = ar_train_eval(&s->train[k], p->nranks, po.time_s);
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
        lab_set(r, SC_STATUS, po.status);
        lab_set(r, SC_CAUSE, cause);
        lab_set(r, SC_PLATFORM_HASH, p ? ctx->cache_hash : "");
        lab_set(r, SC_VERSION, ctx->version);
        lab_set(r, SC_COMMIT, ctx->commit);
        lab_set(r, SC_PLATFORM_SRC, p && p->source ? p->source : s->platforms[pt->plat].spec);
        lab_set(r, SC_NETWORK, po.network);
        char detail[256]; /* as long as results have always carried */
        snprintf(detail, sizeof detail, "%s", ev.detail);
        lab_set(r, SC_DETAIL, detail);
        lab_set(r, SC_MESSAGE, po.message);
        char key[2048];
        sweep_key(ctx, i, k, key, sizeof key);
        lab_set(r, SC_KEY, key);
        double bytes = (double)elems * (double)eb;
        lab_set_num(r, SC_ALGBW, lab_algbw_GBps(bytes, po.time_s));
        lab_set_num(r, SC_BUSBW, p ? lab_busbw_GBps(0, p->nranks, bytes, po.time_s) : NAN);
        lab_set_num(r, SC_NCCL_MODEL, nccl_s);
        lab_set(r, SC_NCCL_ALGO, nalgo);
        lab_set(r, SC_NCCL_PROTO, nproto);
        for (int c = 0; c < SW_NCOLS; c++)
            if (!r->f[c]) {
                lab_eval_free(&ev);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
    }
    lab_eval_free(&ev);
    return AR_OK;
}
