/* `arlab compare` as a one-point sweep (compare.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "compare.h"

ar_status lab_compare_point(const ar_platform *p, const char *algo, uint64_t count, size_t elem_bytes,
                            const lab_measures *meas, lab_compare_row *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    out->bytes = (double)count * (double)elem_bytes;
    out->model_s = out->sim_s = out->measured_s = out->nccl_s = out->sim_err = out->measured_err = NAN;
    out->wrong = -1;
    lab_eval ev;
    ar_status st = lab_eval_model(p, algo, count, elem_bytes, NULL, &ev, e);
    if (st != AR_OK) return st;
    out->model_s = ev.model_s;
    const lab_backend *sim = lab_backend_find("sim");
    if (sim && sim->available) {
        lab_point_in in = {.p = p, .sch = ev.sch, .algo = algo, .bytes = out->bytes, .walk_s = ev.walk_s};
        lab_point_out po;
        memset(&po, 0, sizeof po);
        po.status = "ok";
        po.time_s = po.sim_s = po.measured_s = NAN;
        sim->run(&in, &po);
        out->sim_s = po.sim_s;
        if (strcmp(po.status, "ok")) snprintf(out->sim_msg, sizeof out->sim_msg, "%s", po.message);
    }
    if (meas) {
        int i = lab_measured_find(meas, algo, p->nranks, out->bytes);
        int k = lab_measured_find(meas, "nccl-allreduce", p->nranks, out->bytes);
        if (i >= 0) {
            out->measured_s = meas->m[i].measured_s;
            out->wrong = meas->wrong[i];
        }
        if (k >= 0) out->nccl_s = meas->m[k].measured_s;
    }
    double m = out->model_s;
    out->sim_err = m > 0 ? (out->sim_s - m) / m : NAN;
    out->measured_err = m > 0 ? (out->measured_s - m) / m : NAN;
    lab_eval_free(&ev);
    return AR_OK;
}
