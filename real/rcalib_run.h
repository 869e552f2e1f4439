/* real/ calibration measurement: what `arlab calibrate` measures, as a
 * library call (the verb parses, calls this, prints and writes the JSON with
 * rcalib.h). Needs the executor (AR_HAVE_REAL).
 *
 * Link classes: intra = the first two consecutive ranks on one machine;
 * inter = rank 0 and the first rank of another machine. For each measured
 * class, ar_real_pingpong at every size (one-way = half the median round
 * trip), then ar_real_fit_linear (weighted: relative errors). Collective.
 * Ownership: ar_real_calibration_free frees what ar_real_calibrate filled. */
#ifndef AR_REAL_RCALIB_RUN_H
#define AR_REAL_RCALIB_RUN_H

#include <stdio.h>

#include "calib/rcalib.h"
#include "real/real.h"

typedef struct ar_real_calibration {
    int nranks, nmachines;
    int *machine_of_rank; /* owned, nranks */
    int src[2], dst[2];   /* [0] intra, [1] inter pair; -1: the class was not measured */
    int nsizes;
    double *sizes;       /* owned copy */
    double *oneway_s[2]; /* owned, nsizes each */
    ar_real_fit fit[2];
    int have[2]; /* fit[k] valid */
} ar_real_calibration;

/* machine_of_rank: the machines of the ranks (from --platform), or NULL to
 * detect them (ar_real_machines: NCCL_HOSTID or host names). progress: the
 * leader prints one line per point there (NULL: none). */
ar_status ar_real_calibrate(ar_real_ctx *c, const int *machine_of_rank, int nmachines, const double *sizes, int ns,
                            int warmup, int iters, int weighted, FILE *progress, ar_real_calibration *out, ar_err *e);
void ar_real_calibration_free(ar_real_calibration *k);

#endif
