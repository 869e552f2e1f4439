/* nccl-tests' text format (nccltests_out.h). */
#include "nccltests_out.h"

#include <math.h>

const char *ar_nt_type_name(ar_dtype t) {
    switch (t) {
    case AR_DTYPE_F32: return "float";
    case AR_DTYPE_F16: return "half";
    case AR_DTYPE_BF16: return "bfloat16";
    case AR_DTYPE_F64: return "double";
    case AR_DTYPE_I32: return "int32";
    }
    return "float";
}

void ar_nt_time_str(double us, char *buf, size_t n) {
    if (us >= 10000.0) snprintf(buf, n, "%7.0f", us);
    else if (us >= 100.0) snprintf(buf, n, "%7.1f", us);
    else snprintf(buf, n, "%7.2f", us);
}

void ar_nt_header(FILE *f, const char *const *comments, const ar_nt_params *p, const ar_nt_rank *ranks, int nranks) {
    for (int i = 0; comments && comments[i]; i++) fprintf(f, "%s\n", comments[i]);
    fprintf(f, "# Collective test starting: %s\n", p->test ? p->test : "all_reduce_perf"); /* names the collective */
    fprintf(f,
            "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d "
            "validation: %d graph: %d\n",
            p->nthreads, p->ngpus, p->minbytes, p->maxbytes, p->step, p->step_is_factor ? "factor" : "bytes", p->warmup,
            p->iters, p->agg_iters, p->validation, p->graph);
    fprintf(f, "#\n# Using devices\n");
    for (int r = 0; r < nranks; r++)
        fprintf(f, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s\n", ranks[r].rank, ranks[r].group,
                ranks[r].pid, ranks[r].host, ranks[r].dev, ranks[r].pci_bus, ranks[r].name);
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "",
            "", "", "");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type", "redop",
            "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

static void half(FILE *f, const ar_nt_half *h) {
    char t[32];
    if (isnan(h->time_s)) { /* not measured: blank (the reader takes a row without its out-of-place half) */
        fprintf(f, "%32s", "");
        return;
    }
    ar_nt_time_str(h->time_s * 1e6, t, sizeof t);
    fprintf(f, "  %7s  %6.2f  %6.2f  %5li", t, (float)h->algbw_GBps, (float)h->busbw_GBps, h->wrong);
}

void ar_nt_row_print(FILE *f, const ar_nt_row *r) {
    fprintf(f, "%12li  %12li  %8s  %6s  %6i", r->bytes, r->count, r->type, r->redop, r->root);
    half(f, &r->oop);
    half(f, &r->inp);
    fputc('\n', f);
}

void ar_nt_footer(FILE *f, int errors, double avg_busbw) {
    fprintf(f, "# Out of bounds values : %d %s\n", errors, errors ? "FAILED" : "OK");
    fprintf(f, "# Avg bus bandwidth    : %g \n", avg_busbw);
    fprintf(f, "#\n\n");
}
