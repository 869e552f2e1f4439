/* The measurement driver of `arlab real` (rrun.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/util.h"
#include "rrun.h"

ar_status ar_real_run_points(ar_real_ctx *c, const ar_platform *p, const char *const *algos, int na,
                             const uint64_t *counts, int ns, const ar_real_run_opts *o, FILE *progress, FILE *notes,
                             ar_real_row **rows_out, int *nrows_out, long long *wrong_total, ar_err *e) {
    *rows_out = NULL;
    *nrows_out = 0;
    *wrong_total = 0;
    int lead = ar_real_is_leader(c), P = ar_real_nranks(c);
    size_t eb = ar_dtype_size(o->dtype);
    const char *pl = NULL;
    ar_status st = ar_real_placement(c, &pl, e);
    if (st != AR_OK) return st;
    char place[32] = "", transport[40] = "";
    sscanf(pl, "placement=%31s transport=%39s", place, transport);
    ar_real_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    for (int si = 0; si < ns && st == AR_OK; si++) {
        for (int inplace = 1; inplace >= 0 && st == AR_OK; inplace--) {
            if ((inplace && !o->in_place) || (!inplace && !o->out_of_place)) continue;
            ar_real_bench_opts bo = {o->dtype,  o->warmup, o->iters, inplace, o->lowering,
                                     o->timing, o->graph,  o->empty, o->fuse};
            double nccl_s = NAN;
            for (int ai = -1; ai < na && st == AR_OK; ai++) {
                const char *name = ai < 0 ? "nccl-allreduce" : algos[ai];
                ar_schedule *s = NULL;
                if (ai >= 0) {
                    st = ar_algo_plan(name, p, counts[si], eb, &s, e);
                    if (st == AR_EUNSUPPORTED) {
                        if (lead && notes && inplace == (o->in_place ? 1 : 0))
                            fprintf(notes, "#  %s: not applicable: %s\n", name, e->msg);
                        st = AR_OK;
                        continue;
                    }
                    if (st != AR_OK) break;
                }
                ar_real_measure m;
                st = ar_real_bench(c, s, counts[si], &bo, &m, e);
                if (st == AR_OK && ar_grow(&rows, &cap, nrows + 1, sizeof *rows))
                    st = ar_fail(e, AR_ENOMEM, "out of memory");
                if (st != AR_OK) {
                    ar_schedule_free(s);
                    break;
                }
                ar_real_row *r = &rows[nrows++];
                memset(r, 0, sizeof *r);
                snprintf(r->algo, sizeof r->algo, "%s", name);
                snprintf(r->platform, sizeof r->platform, "%s", p->name);
                r->ranks = P;
                r->bytes = (double)counts[si] * (double)eb;
                r->measured_s = m.med_s;
                r->min_s = m.min_s;
                r->max_s = m.max_s;
                r->model_s = s && o->model ? o->model(o->model_arg, p, name, counts[si], eb, s) : NAN;
                r->wrong = m.wrong;
                r->inplace = inplace;
                snprintf(r->dtype, sizeof r->dtype, "%s", ar_dtype_name(o->dtype));
                r->iters = m.iters;
                snprintf(r->lowering, sizeof r->lowering, "%s", s ? ar_real_lowering_name(o->lowering) : "nccl");
                if (ai < 0) nccl_s = m.med_s;
                r->nccl_s = nccl_s;
                r->empty_s = m.empty_s;
                snprintf(r->timing, sizeof r->timing, "%s", ar_real_timing_name(o->timing));
                snprintf(r->placement, sizeof r->placement, "%s", place);
                snprintf(r->transport, sizeof r->transport, "%s", transport);
                r->graph = o->graph;
                ar_real_row_derive(r);
                if (m.wrong > 0) *wrong_total += m.wrong;
                if (lead && progress)
                    fprintf(progress, "  %-22s %12.0f B %s: %10.2f us (empty schedule %.2f us), #wrong %lld\n", name,
                            r->bytes, inplace ? "in-place" : "out-of-place", m.med_s * 1e6, m.empty_s * 1e6, m.wrong);
                ar_schedule_free(s);
            }
        }
    }
    *rows_out = rows;
    *nrows_out = (int)nrows;
    return st;
}
