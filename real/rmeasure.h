/* real/ host side, part 2: measurement arithmetic, inputs, result rows, CSV.
 *
 * Pure C (no CUDA/NCCL), unit-tested in tests/real/real_measure.c.
 *
 * Bandwidths follow nccl-tests (doc/PERFORMANCE.md): algbw = S / t with S the
 * operation size in bytes (all-reduce, reduce, broadcast: the buffer; reduce-
 * scatter: the input of one rank, all blocks; all-gather: the output of one
 * rank), in GB/s (1e9 B/s), and busbw = algbw x factor:
 *     all-reduce                 2 (n-1) / n
 *     reduce-scatter, all-gather (n-1) / n
 *     reduce, broadcast, send/recv  1
 * Times: each iteration is timed on every rank with CUDA events; the time of
 * an iteration is the max over ranks; a measurement reports the median, min and
 * max of those over the iterations.
 *
 * Inputs for the correctness check: rank r, element x holds
 *     1 + ((7 r + x) mod m)
 * with m chosen so that P x m is exactly representable in the data type
 * (ar_real_pattern_m): every partial sum is then a small integer and exact,
 * whatever order the reduction runs in, so a correct run matches bit for bit
 * and #wrong counts elements that differ.
 *
 * Ownership: rows are plain values (fixed-size strings); ar_real_csv_read
 * returns an array the caller frees with free().
 */
#ifndef AR_REAL_RMEASURE_H
#define AR_REAL_RMEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"
#include "core/units.h"

/* --- bandwidths -------------------------------------------------------- */
typedef enum ar_real_coll {
    AR_COLL_ALL_REDUCE,
    AR_COLL_REDUCE_SCATTER,
    AR_COLL_ALL_GATHER,
    AR_COLL_REDUCE,
    AR_COLL_BROADCAST,
    AR_COLL_SENDRECV
} ar_real_coll;

double ar_real_busbw_factor(ar_real_coll c, int nranks);
/* algbw and busbw in GB/s for S = bytes moved in time_s (NAN when time_s <= 0). */
void ar_real_bw(ar_real_coll c, double bytes, double time_s, int nranks, double *algbw_GBps, double *busbw_GBps);

/* --- statistics ---------------------------------------------------------- */
/* Median (mean of the two middle values for even n), min and max of t[0..n).
 * Does not modify t. n == 0 gives NANs. Returns AR_ENOMEM if it cannot copy. */
ar_status ar_real_stats(const double *t, int n, double *med, double *min, double *max);

/* --- inputs --------------------------------------------------------------- */
/* Largest integer such that every integer in [0, it] is exact in the type. */
double ar_real_exact_limit(ar_dtype t);
/* m for P ranks: min(1021, floor(limit / P)); 0 when even m = 1 is not exact
 * (P > limit), i.e. no exact check is possible. */
int ar_real_pattern_m(ar_dtype t, int nranks);
static inline double ar_real_input(int rank, uint64_t x, int m) {
    return 1.0 + (double)(((uint64_t)rank * 7u + x) % (uint64_t)m);
}
/* table[k] = sum over ranks of ar_real_input(r, x, m) for x % m == k (m
 * entries, caller-owned): the expected result of element x is table[x % m]. */
void ar_real_expected_table(int nranks, int m, double *table);

/* Host conversions (round to nearest even; NaN/Inf preserved). */
uint16_t ar_real_f32_to_f16(float f);
float ar_real_f16_to_f32(uint16_t h);
uint16_t ar_real_f32_to_bf16(float f);
float ar_real_bf16_to_f32(uint16_t h);

/* Writes the inputs of `rank` for elements [0, count) in type t into buf
 * (count x ar_dtype_size(t) bytes). */
void ar_real_fill(void *buf, ar_dtype t, int rank, uint64_t count, int m);
/* Counts elements of buf (type t) that differ from table[x % m]. */
uint64_t ar_real_count_wrong(const void *buf, ar_dtype t, uint64_t count, const double *table, int m,
                             uint64_t *first_bad);

/* --- machines --------------------------------------------------------------- */
/* Machines from one host key per rank (NCCL_HOSTID or hostname): machine ids
 * in order of first appearance. Fails (AR_EUNSUPPORTED) when a machine's ranks
 * are not contiguous (arlab numbers ranks machine-major), naming the rank. */
ar_status ar_real_machines_from_keys(const char *const *keys, int nranks, int *machine_of_rank, int *nmachines,
                                     ar_err *e);

/* --- result rows ------------------------------------------------------------ */
/* AR_REAL_NCOLS: the columns ar_real_csv_read knows (the first 18);
 * AR_REAL_NCOLS_ALL: every column written (the reader ignores the others). */
#define AR_REAL_NCOLS 18
#define AR_REAL_NCOLS_ALL 23
/* The CSV/JSON columns of `arlab real`, in order. The first four and model_s,
 * rel_err match `arlab sim` (algo,platform,ranks,bytes,sim_s,model_s,rel_err)
 * with measured_s in place of sim_s:
 *   algo        algorithm spec, or "nccl-allreduce" for the baseline
 *   platform    platform name the schedule was planned on
 *   ranks       NCCL ranks
 *   bytes       buffer size per rank (S of nccl-tests' all-reduce)
 *   measured_s  median over iterations of the max over ranks
 *   model_s     as `arlab model` (lab/eval.h: the closed form where it agrees with the walk, else the walk; NaN for the baseline)
 *   rel_err     (measured_s - model_s) / model_s
 *   min_s max_s min/max over iterations (of the max over ranks)
 *   algbw_GBps busbw_GBps  nccl-tests' all-reduce formulas on measured_s
 *   wrong       elements differing from the exact sum after timing (all ranks)
 *   inplace     1 in-place, 0 out-of-place
 *   dtype       f32, f16, bf16, f64, i32
 *   iters       timed iterations (after warm-up)
 *   lowering    auto, p2p, native ("nccl" for the baseline)
 *   nccl_s      the ncclAllReduce baseline's measured_s, same size/placement
 *   vs_nccl     measured_s / nccl_s (> 1: slower than NCCL)
 * Then (added later; the reader skips them):
 *   empty_s     launch overhead: the same NCCL groups, calls and kernels with every count 0
 *   timing      arlab (median of per-iteration max, barrier before each) or nccl-tests (mean
 *               of back-to-back iterations, averaged over ranks)
 *   placement   one-gpu-per-rank, shared-gpu-mps or shared-gpu-timeslice (real.h)
 *   transport   socket(NCCL_HOSTID-per-rank) or nccl-auto
 *   graph       1: timed as CUDA-graph launches of one captured iteration */
extern const char *const ar_real_cols[AR_REAL_NCOLS_ALL];

typedef struct ar_real_row {
    char algo[96];
    char platform[256];
    int ranks;
    double bytes;
    double measured_s, model_s, rel_err, min_s, max_s, algbw_GBps, busbw_GBps;
    long long wrong;
    int inplace;
    char dtype[8];
    int iters;
    char lowering[8];
    double nccl_s, vs_nccl;
    double empty_s;
    char timing[12];
    char placement[32];
    char transport[64];
    int graph;
} ar_real_row;

/* Fills algbw/busbw (all-reduce), rel_err and vs_nccl from the other fields. */
void ar_real_row_derive(ar_real_row *r);

/* Formats column c of r into buf (a missing number: ""; times %.17g); returns 1 if numeric. */
int ar_real_row_field(const ar_real_row *r, int c, char *buf, size_t n);

/* Every column (AR_REAL_NCOLS_ALL). */
void ar_real_csv_header(FILE *f);
void ar_real_csv_row(FILE *f, const ar_real_row *r);

/* Reads a CSV written by `arlab real --format csv` (or --out): a header line
 * naming at least algo, ranks, bytes, measured_s (other known columns are
 * read when present, unknown ones ignored). *rows is caller-freed. */
ar_status ar_real_csv_read(const char *path, ar_real_row **rows, int *nrows, ar_err *e);

/* The row for (algo, ranks, bytes), preferring inplace == want_inplace; NULL if none. */
const ar_real_row *ar_real_rows_find(const ar_real_row *rows, int n, const char *algo, int ranks, double bytes,
                                     int want_inplace);

#endif
