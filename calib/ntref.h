/* The reference corpus against the presets: every row of
 * experiments/reference/published.csv (calib/nccltests_in.h ar_nt_ref) predicted by
 * NCCL's cost model on its preset, and a fit of the presets' bandwidth efficiency to it.
 *
 * Prediction of a row: platform = its preset ("NAME:nodes=N" for N > 1 nodes); the
 * algorithm forced by the row (ring, nvls, ...) or, when empty, NCCL's model's own
 * choice; the size, or AR_NTREF_DEFAULT_BYTES (8 GiB, the end of a usual nccl-tests
 * sweep) when the source gives none; predicted busbw = size / time x 2(n-1)/n.
 * A row that cannot be predicted (unknown preset, ranks that do not match, an
 * algorithm NCCL's model does not enable there) gets ok = 0 and why.
 *
 * Fit: the measured time t = size / algbw (algbw = busbw x n / (2(n-1))) against
 * t ~ L + X / eff (L, X: NCCL's model's latency and bandwidth parts), one efficiency
 * eff for every row (pooled) or one per algorithm NCCL ran, least squares on relative
 * residuals. Leave-one-out: each row predicted by the fit on the others (of its
 * algorithm for the per-algorithm fit), |rel err| of its time, summarised per size bucket
 * (< 1 MB, 1-64 MB, 64-512 MB, >= 512 MB).
 *
 * Ownership: *out (ar_ntref_pred array) is malloc'ed; the caller frees it with free(). */
#ifndef AR_NTREF_H
#define AR_NTREF_H

#include "core/status.h"
#include "calib/nccltests_in.h"

#define AR_NTREF_DEFAULT_BYTES 8589934592.0

typedef struct ar_ntref_pred {
    int ok;
    char why[AR_ERR_LEN + 64];
    char platform[96];                                       /* the spec predicted on */
    char algo[16], proto[16];                                /* NCCL's spelling, of the prediction */
    double bytes;                                            /* the size used */
    int size_assumed;                                        /* 1 when the row gives no size */
    double pred_s, pred_busbw_GBps, pub_busbw_GBps, rel_err; /* rel_err = (pred - pub) / pub, of busbw */
    double L, X, t;                                          /* latency part, bandwidth part, measured time (s) */
    double loo_pooled, loo_algo; /* leave-one-out |rel err| of the time; NAN when not computable */
} ar_ntref_pred;

typedef struct ar_ntref_fit {
    double eff_pooled; /* pooled efficiency; NAN when no row */
    int nalgo;
    char algo[8][16];
    double eff_algo[8];
    int n_algo[8];
    double bucket_med[2][4], bucket_max[2][4]; /* [pooled, per algo][bucket] of the leave-one-out errors */
    int bucket_n[2][4];
} ar_ntref_fit;

ar_status ar_ntref_predict(const ar_nt_ref *refs, int n, ar_ntref_pred **out, ar_ntref_fit *fit, ar_err *e);

#endif
