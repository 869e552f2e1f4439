/* `arlab compare` as a one-point sweep: for one (platform, algorithm, size),
 * model_s from the one evaluation path (eval.h), sim_s from the sim entry of
 * the backend table (its defaults: the alpha-beta-exact network, no gamma),
 * and the measured time from rows read by the one measured-CSV reader
 * (measured.h), matched on algorithm, ranks and bytes (in-place preferred),
 * with NCCL's own all-reduce ("nccl-allreduce" rows: `arlab real`, or nccl-tests
 * files read by measured.h) and the MPI baseline ("mpi-allreduce" rows of the
 * MPI backend) beside it, and NCCL's cost model for the same size: the algorithm and
 * protocol the measured NCCL run forced (NCCL_ALGO/NCCL_PROTO of its file, or
 * --nccl-algo/--nccl-proto), else its tuner's choice (eval.h lab_nccl_choice).
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
    /* NCCL's cost model and the baselines; errors relative to the measured NCCL time nccl_s */
    double nccl_model_s;   /* NCCL's model (its tuner's choice), NAN where it does not apply */
    double mpi_s;          /* measured "mpi-allreduce" row, NAN when none */
    double nccl_model_err; /* (nccl_model_s - nccl_s) / nccl_s */
    double model_vs_nccl;  /* (model_s - nccl_s) / nccl_s */
    double sim_vs_nccl;    /* (sim_s - nccl_s) / nccl_s */
    double mpi_vs_nccl;    /* (mpi_s - nccl_s) / nccl_s */
    /* what nccl_model_s priced: the measured NCCL run's forced NCCL_ALGO/NCCL_PROTO (its file's, else
     * --nccl-algo/--nccl-proto), else NCCL's choice; NCCL's spelling, "" where NCCL's model does not apply */
    char nccl_algo[16], nccl_proto[16];
} lab_compare_row;

/* The collective compared (0 = all-reduce; the algorithms' and NCCL's model's). */
typedef struct lab_compare_opts {
    ar_coll coll;
} lab_compare_opts;

/* Returns the planner's status (AR_EUNSUPPORTED with its message where the
 * algorithm does not apply). meas may be NULL (no measured times). */
ar_status lab_compare_point(const ar_platform *p, const char *algo, uint64_t count, size_t elem_bytes,
                            const lab_measures *meas, const lab_compare_opts *co, lab_compare_row *out, ar_err *e);

/* The figure of `arlab compare --plot FILE` (png or svg by FILE's extension):
 * time and busbw vs size, measured NCCL/MPI as points, model, simulation and
 * NCCL's model as lines, one line per algorithm (rows[i] belongs to
 * algos[algo_of[i]]). Writes FILE.gp (the gnuplot script, data inline) and runs
 * gnuplot on it; AR_EUNSUPPORTED when gnuplot cannot be run (the script stays),
 * AR_EINVAL for another extension, AR_EIO when a file cannot be written. */
ar_status lab_compare_plot(const lab_compare_row *rows, const int *algo_of, int n, const char *const *algos, int nalgos,
                           int nranks, const char *title, const char *path, ar_err *e);
/* The same figure for several platforms (h14g): rows[i] belongs to platform plats[plat_of[i]] of plat_ranks[...]
 * ranks (busbw uses it); every platform's predictions are lines of their own dash type (solid, dashed, dotted,
 * ...), its measured rows points of their own marker, titled "WHAT [PLATFORM, N ranks]" when nplats > 1.
 * plat_of NULL: every row on platform 0. */
ar_status lab_compare_plot_multi(const lab_compare_row *rows, const int *algo_of, const int *plat_of, int n,
                                 const char *const *algos, int nalgos, const char *const *plats, const int *plat_ranks,
                                 int nplats, const char *title, const char *path, ar_err *e);

#endif
