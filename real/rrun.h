/* real/ measurement driver: what `arlab real` measures, as a library call
 * (the verb in cli/ parses options, calls this, and prints). Needs the
 * executor (AR_HAVE_REAL).
 *
 * For every size, every placement asked for (in-place first), the
 * ncclAllReduce baseline then every algorithm: plan (ar_algo_plan; algorithms
 * that do not apply are skipped with a line to `notes`), ar_real_bench, and
 * one ar_real_row (rmeasure.h) with the baseline's time as nccl_s, the model
 * time from the caller's callback, and the run's timing convention,
 * placement and transport. Collective: every rank calls it with the same
 * arguments; rows are the same on every rank.
 * Ownership: *rows is allocated here, the caller frees it (free()). */
#ifndef AR_REAL_RRUN_H
#define AR_REAL_RRUN_H

#include <stdio.h>

#include "core/platform/platform.h"
#include "real/real.h"
#include "real/rmeasure.h"

typedef struct ar_real_run_opts {
    ar_dtype dtype;
    int warmup, iters;
    ar_real_lowering lowering;
    ar_real_timing timing;
    int graph, empty, fuse;
    int in_place, out_of_place; /* which placements */
    /* model time of algorithm `algo` with schedule s (NAN: none); may be NULL */
    double (*model)(void *arg, const ar_platform *p, const char *algo, uint64_t count, size_t elem_bytes,
                    const ar_schedule *s);
    void *model_arg;
} ar_real_run_opts;

/* progress: the leader prints one line per measurement there (NULL: none);
 * notes: the leader prints "#  A: not applicable: why" there (NULL: none).
 * *wrong_total: the sum of #wrong over all rows. */
ar_status ar_real_run_points(ar_real_ctx *c, const ar_platform *p, const char *const *algos, int na,
                             const uint64_t *counts, int ns, const ar_real_run_opts *o, FILE *progress, FILE *notes,
                             ar_real_row **rows, int *nrows, long long *wrong_total, ar_err *e);

#endif
