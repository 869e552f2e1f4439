/* One point of `arlab sim` and its row (simrow.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simrow.h"

/* The simulation's meanwhile work: price the planned schedule (lab_eval_price) once. */
typedef struct price_job {
    const ar_platform *p;
    const char *spec;
    uint64_t count;
    size_t eb;
    const lab_eval_opts *eo;
    lab_eval *ev;
    int done;
} price_job;

static void price_now(void *ctx) {
    price_job *j = ctx;
    if (j->done) return;
    j->done = 1;
    lab_eval_price(j->p, j->spec, j->count, j->eb, j->eo, j->ev);
}

ar_status lab_sim_point(const ar_platform *p, const char *spec, uint64_t count, size_t eb, lab_eval_opts *eo,
                        const ar_sim_opts *so, int model_only, lab_eval *ev, ar_sim_result *r, int *planned,
                        ar_err *e) {
    *planned = 0;
    ar_status st = lab_eval_plan(p, spec, count, eb, eo, ev, e); /* priced while it is simulated */
    if (st != AR_OK) return st;
    *planned = 1;
    price_job pj = {.p = p, .spec = spec, .count = count, .eb = eb, .eo = eo, .ev = ev};
    ar_sim_opts o = *so;
    o.meanwhile = price_now;
    o.meanwhile_ctx = &pj;
    const lab_sim_api *sim = lab_sim();
    if (model_only || !sim) { /* the model's columns, nothing simulated */
        memset(r, 0, sizeof *r);
        r->time_s = NAN;
        r->bottleneck = -1;
        snprintf(r->engine, sizeof r->engine, "none");
        snprintf(r->network, sizeof r->network, "not simulated (--model-only)");
        st = model_only ? AR_OK : ar_fail(e, AR_EUNSUPPORTED, "sim: this build has no SimGrid backend");
    } else {
        st = sim->run(p, ev->sch, &o, r, e);
    }
    price_now(&pj); /* once: a no-op when the simulation ran it */
    return st;
}

#define TXT(f) LAB_ROW_TXT(lab_simrow, f)
#define ARR(f) LAB_ROW_ARR(lab_simrow, f)
#define INT(f) LAB_ROW_INT(lab_simrow, f)
#define NUM(fmt, f) LAB_ROW_NUM(lab_simrow, fmt, f)
#define TIME(f) LAB_ROW_TIME(lab_simrow, f)

const lab_rowcol lab_simrow_cols[] = {
    {"algo", TXT(algo), 1, "algorithm spec as written"},
    {"platform", TXT(platform), 1, "platform name"},
    {"ranks", INT(ranks), 1, "GPUs of the platform"},
    {"bytes", NUM("%.0f", bytes), 1, "bytes per rank buffer"},
    {"sim_s", TIME(sim_s), 0, "simulated time (SimGrid)"},
    {"model_s", TIME(model_s), 0, "the model's time (lab/eval.h: the closed form, or the walk where they disagree)"},
    {"rel_err", NUM("%.3g", rel_err), 0, "(sim_s - walk) / walk, the walk of this very schedule"},
    {"closed_s", TIME(closed_s), 0, "the algorithm's closed form, where it has one"},
    {"closed_rel_err", NUM("%.3g", closed_rel_err), 0, "(sim_s - closed_s) / closed_s"},
    {"transfers", INT(transfers), 0, "point-to-point transfers of the schedule"},
    {"simgrid_xfers", INT(simgrid_xfers), 0, "of those, simulated by SimGrid in the run itself"},
    {"probe_xfers", INT(probe_xfers), 0, "extra transfers simulated alone to learn a component"},
    {"batches", INT(batches), 0, "idle-start batches (fast engine)"},
    {"shortcut_batches", INT(shortcut_batches), 0, "batches advanced exactly without SimGrid"},
    {"groups", INT(groups), 0, "op groups"},
    {"wall_s", NUM("%.3f", wall_s), 0, "wall-clock time of the simulation"},
    {"peak_rss_kb", INT(peak_rss_kb), 0, "peak resident memory of the simulating process"},
    {"bottleneck", ARR(bottleneck), 0, "the most loaded directed link"},
    {"bottleneck_busy_s", NUM("%.9g", bottleneck_busy_s), 0, "time the bottleneck carried traffic"},
    {"bottleneck_util", NUM("%.4f", bottleneck_util), 0, "bytes at full rate / the schedule's time, on the bottleneck"},
    {"bottleneck_flows", INT(bottleneck_flows), 0, "most transfers at once on the bottleneck"},
    {"check", TXT(check), 0, "--check: exact or WRONG; - without it"},
    {"complete", INT(complete), 0, "1, or 0 when --budget stopped the run"},
    {"engine", TXT(engine), 0, "the engine that ran"},
    {"network", TXT(network), 0, "the network model"},
    {"algbw_GBps", NUM("%.6g", algbw_GBps), 0, "bytes / sim_s (nccl-tests' algbw)"},
    {"busbw_GBps", NUM("%.6g", busbw_GBps), 0, "algbw times the collective's factor (nccl-tests' busbw)"},
    {"nccl_model_s", TIME(nccl_model_s), 0, "NCCL's own cost model for its choice"},
    {"nccl_algo", TXT(nccl_algo), 0, "the algorithm NCCL's tuner would choose"},
    {"nccl_proto", TXT(nccl_proto), 0, "the protocol NCCL's tuner would choose"},
    {"status", TXT(status), 1, "ok, model-only, budget, unsupported, limit or error"},
    {"why", TXT(why), 1, "why a row is not ok, or why model_s is the walk"},
    {"sync", TXT(sync), 0, "the semantics that ran: dataflow or round"},
    {"scenario", TXT(scenario), 0, "the what-if scenario's name, - without one"},
};
const int lab_simrow_ncols = (int)(sizeof lab_simrow_cols / sizeof lab_simrow_cols[0]);

static void row_key(lab_simrow *w, const char *algo, const ar_platform *p, double bytes) {
    memset(w, 0, sizeof *w);
    w->algo = algo;
    w->platform = p->name;
    w->ranks = p->nranks;
    w->bytes = bytes;
}

void lab_simrow_why(lab_simrow *w, const char *algo, const ar_platform *p, double bytes, const char *status,
                    const char *why) {
    row_key(w, algo, p, bytes);
    w->status = status;
    w->why = why;
}

void lab_simrow_simulated(lab_simrow *w, const char *algo, const ar_platform *p, double bytes, ar_coll coll,
                          const lab_eval *ev, const ar_sim_result *r, ar_status sim_st, const char *e_msg, int check,
                          int model_only, const lab_nccl_pick *nccl, const char *scenario) {
    row_key(w, algo, p, bytes);
    w->simulated = 1;
    const lab_sim_api *sim = lab_sim();
    int bn = r->bottleneck;
    w->sim_s = r->time_s;
    w->model_s = ev->model_s;
    w->rel_err = ev->have_walk && ev->walk_s > 0 ? (r->time_s - ev->walk_s) / ev->walk_s : NAN;
    w->closed_s = ev->closed_s;
    w->closed_rel_err = ev->have_closed && ev->closed_s > 0 ? (r->time_s - ev->closed_s) / ev->closed_s : NAN;
    w->transfers = (long long)r->transfers;
    w->simgrid_xfers = (long long)r->transfers_simgrid;
    w->probe_xfers = (long long)r->probe_transfers;
    w->batches = (long long)r->epochs;
    w->shortcut_batches = (long long)(r->epochs_repeat + r->epochs_memo);
    w->groups = r->groups;
    w->wall_s = r->wall_s;
    w->peak_rss_kb = r->peak_rss_kb;
    snprintf(w->bottleneck, sizeof w->bottleneck, "-");
    if (bn >= 0 && sim) sim->dlink_name(p, bn, w->bottleneck, sizeof w->bottleneck);
    w->bottleneck_busy_s = bn >= 0 ? r->link_busy_s[bn] : NAN;
    w->bottleneck_util = bn >= 0 && sim ? sim->link_util(p, r, bn) : NAN;
    w->bottleneck_flows = bn >= 0 ? r->link_max_flows[bn] : 0;
    w->check = !check ? "-" : sim_st == AR_OK ? "exact" : "WRONG";
    w->complete = r->complete;
    w->engine = r->engine;
    w->network = r->network;
    w->sync = model_only ? "-" : r->sync;
    w->scenario = scenario ? scenario : "-";
    w->algbw_GBps = lab_algbw_GBps(bytes, r->time_s);
    w->busbw_GBps = lab_busbw_GBps((int)coll, p->nranks, bytes, r->time_s);
    w->nccl_model_s = nccl->time_s;
    w->nccl_algo = nccl->algo;
    w->nccl_proto = nccl->proto;
    w->status = model_only ? "model-only" : sim_st == AR_EFAIL ? "error" : r->complete ? "ok" : "budget";
    w->why = sim_st == AR_EFAIL ? e_msg : r->complete ? ev->model_why : "stopped by --budget: partial";
}
