/* A row of `arlab model` and its column table (modelrow.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modelrow.h"

#define TXT(f) LAB_ROW_TXT(lab_modelrow, f)
#define ARR(f) LAB_ROW_ARR(lab_modelrow, f)
#define INT(f) LAB_ROW_INT(lab_modelrow, f)
#define NUM(fmt, f) LAB_ROW_NUM(lab_modelrow, fmt, f)
#define TIME(f) LAB_ROW_TIME(lab_modelrow, f)

const lab_rowcol lab_modelrow_cols[] = {
    {"algo", TXT(algo), 1, "algorithm spec as written"},
    {"platform", TXT(platform), 1, "platform name"},
    {"ranks", INT(ranks), 1, "GPUs of the platform"},
    {"bytes", NUM("%.0f", bytes), 1, "bytes per rank buffer"},
    {"model_s", TIME(model_s), 0,
     "closed_s where it agrees with the walk (0.1 %) or the walk's lockstep rounds do not hold, else walk_s "
     "(lab/eval.h; why then says by how much the closed form is off)"},
    {"closed_s", TIME(closed_s), 0, "the paper's closed form (empty where the algorithm has none)"},
    {"walk_s", TIME(walk_s), 0, "the generic cost walk over the planned schedule"},
    {"rel_diff", NUM("%.3g", rel_diff), 0, "(walk_s - closed_s) / closed_s"},
    {"detail", TXT(detail), 0, "the planner's variant string"},
    {"stages", ARR(stages), 0, "label:impl:p=N:seconds;... of the stages model_s comes from"},
    {"algbw_GBps", NUM("%.6g", algbw_GBps), 0, "bytes / model_s in 1e9 B/s (nccl-tests' algbw)"},
    {"busbw_GBps", NUM("%.6g", busbw_GBps), 0, "algbw times the collective's factor (nccl-tests' busbw)"},
    {"nccl_model_s", TIME(nccl_model_s), 1,
     "what NCCL's tuner would take (models/nccl_model.h); empty where its model does not apply"},
    {"nccl_algo", TXT(nccl_algo), 1, "the algorithm NCCL's tuner would choose"},
    {"nccl_proto", TXT(nccl_proto), 1, "the protocol NCCL's tuner would choose"},
    {"status", TXT(status), 1, "ok, unsupported or limit"},
    {"why", ARR(why), 1, "why an algorithm does not apply, or why model_s is the walk"},
    {"scenario", TXT(scenario), 1, "the --scenario name, - without one"},
};
const int lab_modelrow_ncols = (int)(sizeof lab_modelrow_cols / sizeof lab_modelrow_cols[0]);

static void stages_str(const ar_model_result *m, char *buf, size_t n) {
    buf[0] = 0;
    for (int i = 0; i < m->nstages; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s:%s:p=%d:%.6g", i ? ";" : "", m->stages[i].label, m->stages[i].impl,
                 m->stages[i].p, m->stages[i].time_s);
    }
}

static void row_key(lab_modelrow *w, const char *algo, const ar_platform *p, double bytes, const lab_nccl_pick *nccl,
                    const char *scenario) {
    memset(w, 0, sizeof *w);
    w->algo = algo;
    w->platform = p->name;
    w->ranks = p->nranks;
    w->bytes = bytes;
    w->nccl_model_s = nccl->time_s;
    w->nccl_algo = nccl->algo;
    w->nccl_proto = nccl->proto;
    w->scenario = scenario ? scenario : "-";
}

void lab_modelrow_why(lab_modelrow *w, const char *algo, const ar_platform *p, double bytes, const lab_nccl_pick *nccl,
                      const char *scenario, const char *status, const char *why) {
    row_key(w, algo, p, bytes, nccl, scenario);
    w->status = status;
    snprintf(w->why, sizeof w->why, "%s", why);
}

void lab_modelrow_priced(lab_modelrow *w, const char *algo, const ar_platform *p, double bytes, ar_coll coll,
                         const lab_eval *ev, const lab_nccl_pick *nccl, const char *scenario, const char *why) {
    row_key(w, algo, p, bytes, nccl, scenario);
    w->priced = 1;
    w->model_s = ev->model_s;
    w->closed_s = ev->closed_s;
    w->walk_s = ev->walk_s;
    w->rel_diff = ev->rel_diff;
    w->detail = ev->detail;
    if (ev->model) stages_str(ev->model, w->stages, sizeof w->stages);
    w->algbw_GBps = lab_algbw_GBps(bytes, ev->model_s);
    w->busbw_GBps = lab_busbw_GBps((int)coll, p->nranks, bytes, ev->model_s);
    w->status = "ok";
    snprintf(w->why, sizeof w->why, "%s", why);
}
