/* `arlab compare` as a one-point sweep: for one (platform, algorithm, size),
 * model_s from the one evaluation path (eval.h), sim_s from the sim entry of
 * the backend table (its defaults: the alpha-beta-exact network, no gamma),
 * and the measured time from rows read by the one measured-CSV reader
 * (measured.h), matched on algorithm, ranks and bytes (in-place preferred),
 * with NCCL's own all-reduce ("nccl-allreduce" rows) beside it.
 *
 * Ownership: plain values.
 */
#ifndef AR_LAB_COMPARE_H
#define AR_LAB_COMPARE_H

#include "eval.h"
#include "measured.h"

typedef struct lab_compare_row {
    double bytes, model_s, sim_s, measured_s, nccl_s;
    double sim_err, measured_err;  /* relative to model_s, NAN where missing */
    long long wrong;               /* #wrong of the measured row, -1 when unknown */
    char sim_msg[AR_ERR_LEN + 64]; /* why sim_s is missing ("" when it is there or sim is not built) */
} lab_compare_row;

/* Returns the planner's status (AR_EUNSUPPORTED with its message where the
 * algorithm does not apply). meas may be NULL (no measured times). */
ar_status lab_compare_point(const ar_platform *p, const char *algo, uint64_t count, size_t elem_bytes,
                            const lab_measures *meas, lab_compare_row *out, ar_err *e);

#endif
