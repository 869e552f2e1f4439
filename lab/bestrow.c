/* A row of `arlab best`, its column table and a candidate's simulation under a scenario (bestrow.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "bestrow.h"
#include "eval.h"

#define TXT(f) LAB_ROW_TXT(lab_bestrow, f)
#define ARR(f) LAB_ROW_ARR(lab_bestrow, f)
#define INT(f) LAB_ROW_INT(lab_bestrow, f)
#define NUM(fmt, f) LAB_ROW_NUM(lab_bestrow, fmt, f)

const lab_rowcol lab_bestrow_cols[] = {
    {"rank", INT(rank), 1,
     "competition rank by the key (walk_s, or sim_s under a scenario with timing): equal times share a rank; "
     "- where the candidate was not walked (or simulated)"},
    {"algo", TXT(algo), 1, "algorithm"},
    {"params", ARR(params), 1,
     "a valid --algo spec suffix of the variant; \" (default)\" where it equals the algorithm's defaults"},
    {"walk_s", NUM("%.6g", walk_s), 1, "the generic cost walk over the planned schedule (empty: not walked)"},
    {"closed_s", NUM("%.6g", closed_s), 1, "the paper's closed form (empty where the algorithm has none)"},
    {"rel_diff", NUM("%.2g", rel_diff), 1, "(walk_s - closed_s) / closed_s"},
    {"slowest", TXT(slowest), 1, "the walk's slowest stage, or why the candidate was not walked"},
    {"algbw_GBps", NUM("%.6g", algbw_GBps), 1, "bytes / walk_s in 1e9 B/s (nccl-tests' algbw)"},
    {"busbw_GBps", NUM("%.6g", busbw_GBps), 1, "algbw times the collective's factor (nccl-tests' busbw)"},
    {"vs_nccl", NUM("%.4g", vs_nccl), 1, "nccl_model_s / walk_s: above 1, the candidate beats NCCL's choice"},
    {"nccl_model_s", NUM("%.6g", nccl_model_s), 1,
     "what NCCL's tuner would take (models/nccl_model.h); empty where its model does not apply"},
    {"nccl_algo", TXT(nccl_algo), 1, "the algorithm NCCL's tuner would choose"},
    {"nccl_proto", TXT(nccl_proto), 1, "the protocol NCCL's tuner would choose"},
    {"sim_s", NUM("%.9g", sim_s), 1,
     "simulated under --scenario's delays, flows and slow GPUs (--sync dataflow); empty without such a scenario"},
    {"scenario", TXT(scenario), 1, "the --scenario name, - without one"},
};
const int lab_bestrow_ncols = (int)(sizeof lab_bestrow_cols / sizeof lab_bestrow_cols[0]);

void lab_bestrow_fill(lab_bestrow *w, const ar_rank_cand *x, long long rank, double sim_s, ar_coll coll, int nranks,
                      double bytes, const lab_nccl_pick *nccl, const char *scenario) {
    memset(w, 0, sizeof *w);
    w->rank = rank;
    w->algo = x->algo;
    snprintf(w->params, sizeof w->params, "%s%s", x->params, x->is_default ? " (default)" : "");
    w->walk_s = x->walk_s;
    w->closed_s = x->closed_s;
    w->rel_diff = isnan(x->closed_s) ? NAN : (x->walk_s - x->closed_s) / x->closed_s;
    w->slowest = x->slowest;
    w->algbw_GBps = lab_algbw_GBps(bytes, x->walk_s);
    w->busbw_GBps = lab_busbw_GBps((int)coll, nranks, bytes, x->walk_s);
    w->vs_nccl = isfinite(nccl->time_s) && x->walk_s > 0 ? nccl->time_s / x->walk_s : NAN;
    w->nccl_model_s = nccl->time_s;
    w->nccl_algo = nccl->algo;
    w->nccl_proto = nccl->proto;
    w->sim_s = sim_s;
    w->scenario = scenario ? scenario : "-";
}

double lab_best_sim(const ar_platform *p, const ar_scenario *sc, const double *delays, ar_coll coll, uint64_t count,
                    size_t eb, const ar_rank_cand *x, char *why, size_t nwhy) {
    const lab_sim_api *sim = lab_sim();
    char spec[300];
    snprintf(spec, sizeof spec, "%s%s%s", x->algo, x->params[0] ? ":" : "", x->params);
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    double t = NAN;
    if (!sim) {
        snprintf(why, nwhy, "no SimGrid backend in this build");
        return NAN;
    }
    if (ar_algo_plan_coll(spec, coll, p, count, eb, &s, &e) == AR_OK) {
        ar_sim_opts so = {.sync = AR_SYNC_DATAFLOW,
                          .rank_delay_s = delays,
                          .flows = sc->flows,
                          .nflows = sc->nflows,
                          .budget_s = 120};
        ar_sim_result r;
        if (sim->run(p, s, &so, &r, &e) == AR_OK) {
            t = r.complete ? r.time_s : NAN;
            if (!r.complete) snprintf(why, nwhy, "simulation stopped after 120 s of wall time");
            sim->result_free(&r);
        } else {
            snprintf(why, nwhy, "%s", e.msg);
        }
    } else {
        snprintf(why, nwhy, "%s", e.msg);
    }
    ar_schedule_free(s);
    return t;
}
