/* A row of `arlab model`: what the model gives for one algorithm on one platform and size, and the
 * columns it is reported in (one column table, lab/rows.h), from which the verb's table, CSV and JSON,
 * `arlab help columns model` and docs/cli.md's column list derive.
 *
 * Ownership: a row points into the evaluation, the platform and the caller's strings (the inline
 * texts are its own); it lives as long as they do. */
#ifndef AR_LAB_MODELROW_H
#define AR_LAB_MODELROW_H

#include "eval.h"
#include "rows.h"
#include "simrow.h" /* lab_nccl_pick */

typedef struct lab_modelrow {
    const char *algo, *platform;
    long long ranks;
    double bytes, model_s, closed_s, walk_s, rel_diff;
    const char *detail;
    char stages[2048]; /* label:impl:p=N:seconds;... of the stages model_s comes from */
    double algbw_GBps, busbw_GBps, nccl_model_s;
    const char *nccl_algo, *nccl_proto, *status;
    char why[600];
    const char *scenario;
    int priced; /* 0: a row saying why (status, why), the model's numbers empty */
} lab_modelrow;

extern const lab_rowcol lab_modelrow_cols[];
extern const int lab_modelrow_ncols;

/* The row of a priced point: why = the evaluation's model_why, then note (a scenario's) after "; ". */
void lab_modelrow_priced(lab_modelrow *w, const char *algo, const ar_platform *p, double bytes, ar_coll coll,
                         const lab_eval *ev, const lab_nccl_pick *nccl, const char *scenario, const char *why);
/* A row for an algorithm that does not apply: status (unsupported, limit) and why. */
void lab_modelrow_why(lab_modelrow *w, const char *algo, const ar_platform *p, double bytes, const lab_nccl_pick *nccl,
                      const char *scenario, const char *status, const char *why);

#endif
