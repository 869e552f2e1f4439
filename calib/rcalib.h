/* real/ host side, part 3: calibration fit and the calibrated platform JSON.
 *
 * `arlab calibrate` measures the one-way time t(S) of a point-to-point
 * transfer of S bytes (half a ping-pong, NCCL send/recv) for each class of
 * link (two ranks of one machine; two ranks of different machines) over a size
 * sweep, and fits t = alpha + beta S by least squares with GSL:
 *   - weighted (default): gsl_fit_wlinear with weights 1/t^2, i.e. relative
 *     errors, so the small sizes pin alpha and the large ones beta;
 *   - unweighted: gsl_fit_linear (absolute errors; large sizes dominate).
 * bw = 1/beta.
 *
 * The platform JSON (kind "tree", explicit form; platforms/README.md) has a
 * root switch, one switch per machine, the machine's GPUs below it:
 *   GPU - machine switch links: lat = alpha_intra / 2, bw = 1/beta_intra
 *   machine - root links:       lat = (alpha_inter - alpha_intra) / 2 (>= 0),
 *                               bw = 1/beta_inter
 * so that a route's latency (sum over its links) is alpha_intra inside a
 * machine and alpha_inter across machines, and its narrowest link is the
 * fitted bandwidth (across machines: min of both; the note says so when the
 * intra bandwidth is the lower one). One machine: the root is the machine.
 * A class that was not measured (one GPU per machine, or one machine) takes
 * lat 0 and the other class's bandwidth, and the notes say so.
 *
 * Ownership: ar_real_calib_json returns a string the caller frees.
 */
#ifndef AR_REAL_RCALIB_H
#define AR_REAL_RCALIB_H

#include "core/status.h"

typedef struct ar_real_fit {
    double alpha_s;       /* intercept */
    double beta_s_per_B;  /* slope */
    double bw_Bps;        /* 1 / beta (INFINITY if beta <= 0) */
    double r2;            /* coefficient of determination (unweighted, on t) */
    double max_rel_resid; /* max |fit - t| / t over the points */
    double cov00, cov01, cov11, chisq;
    int n;
    int weighted;
} ar_real_fit;

/* Fits t = alpha + beta x over n >= 2 points (x distinct, t > 0 when weighted). */
ar_status ar_real_fit_linear(const double *x, const double *t, int n, int weighted, ar_real_fit *out, ar_err *e);

/* Half width of the `level` (e.g. 0.95) confidence interval of the fitted
 * intercept alpha: Student's t with n - 2 degrees of freedom times its
 * standard error (a weighted fit's covariance scaled by chisq / (n - 2): the
 * weights are relative). NAN with fewer than 3 points (no residual left). */
double ar_real_fit_alpha_halfwidth(const ar_real_fit *f, double level);

/* Half width of the `level` confidence interval of the fitted slope beta (as the intercept's above). */
double ar_real_fit_beta_halfwidth(const ar_real_fit *f, double level);

/* The per-message overhead o from a fan-out test: t[i] is the time for k[i] messages sent at once and
 * answered (real/mpi/mexec.h ar_mx_fanout); o is the slope of t over k (plain least squares), hw its
 * 95 % half width (NAN with fewer than 3 counts). Fails on fewer than 2 distinct counts. */
ar_status ar_real_fit_fanout(const double *k, const double *t, int n, double *o_s, double *hw_s, ar_err *e);

/* Mean of n samples and the half width of its 95 % interval (Student's t, n - 1 degrees of freedom; NAN with
 * fewer than 2). Fails on n < 1 or a sample that is not finite. */
ar_status ar_real_mean_interval(const double *x, int n, double *mean, double *hw, ar_err *e);

typedef struct ar_real_calib {
    const char *name; /* platform name */
    int nranks;
    int nmachines;
    const int *machine_of_rank; /* nranks entries, contiguous machines (borrowed) */
    int have_intra, have_inter;
    ar_real_fit intra, inter;
    const char *note; /* extra note (e.g. the command line), may be NULL */
} ar_real_calib;

/* The platform JSON (NUL-terminated, caller frees). Fails when no class was
 * measured or a fit gives a non-positive bandwidth. */
ar_status ar_real_calib_json(const ar_real_calib *c, char **json, ar_err *e);

#endif
