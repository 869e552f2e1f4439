/* Results in nccl-tests' text format (the output of all_reduce_perf), so that
 * arlab's measurements and nccl-tests' can be read by the same reader and put
 * side by side. Pure C, no CUDA; unit-tested line by line in
 * tests/real/real_nccltests_out.c.
 *
 * A document is: "# Collective test starting: all_reduce_perf" (as newer
 * nccl-tests print it; the reader takes the collective from it), the parameter line ("# nThread 1 nGpus 1 minBytes ..."), "#",
 * "# Using devices" and one "#  Rank .. Group .. Pid .. on HOST device ..
 * [0xBUS] NAME" line per rank, the three table header lines (out-of-place and
 * in-place halves), one row per size ("%12li  %12li  %8s  %6s  %6i" then per
 * half "  %7s  %6.2f  %6.2f  %5li": time in us with nccl-tests' precision
 * rule, algbw and busbw in GB/s, #wrong), then "# Out of bounds values : N
 * OK|FAILED", "# Avg bus bandwidth    : %g " (mean busbw over every half
 * printed), "#" and an empty line (nccl-tests prints ncclGetLastError there).
 * arlab adds its own comment lines ("# arlab ...": algorithm, timing
 * convention, placement, versions) before the parameter line; nccl-tests'
 * readers skip comments. Sizes in bytes, count in elements, root -1 (all-reduce).
 * Ownership: nothing is kept; the caller owns every argument. */
#ifndef AR_REAL_NCCLTESTS_OUT_H
#define AR_REAL_NCCLTESTS_OUT_H

#include <stdio.h>

#include "core/units.h"

typedef struct ar_nt_rank {
    int rank, group, pid, dev, pci_bus;
    char host[64];
    char name[64];
} ar_nt_rank;

typedef struct ar_nt_params {
    int nthreads, ngpus;
    long minbytes, maxbytes, step;
    int step_is_factor;
    int warmup, iters, agg_iters, validation, graph;
    const char *test; /* nccl-tests' binary: "all_gather_perf", ...; NULL = "all_reduce_perf" */
} ar_nt_params;

typedef struct ar_nt_half {
    double time_s; /* the half's time (nccl-tests prints it in us); NaN: not measured, printed blank */
    double algbw_GBps, busbw_GBps;
    long wrong;
} ar_nt_half;

typedef struct ar_nt_row {
    long bytes, count;
    const char *type;    /* ar_nt_type_name */
    const char *redop;   /* "sum" */
    int root;            /* -1 for all-reduce */
    ar_nt_half oop, inp; /* out-of-place, in-place */
} ar_nt_row;

/* nccl-tests' type names: float, half, bfloat16, double, int32. */
const char *ar_nt_type_name(ar_dtype t);
/* nccl-tests' time string: %7.0f from 10000 us, %7.1f from 100 us, else %7.2f. */
void ar_nt_time_str(double time_us, char *buf, size_t n);

/* comments: NULL-terminated "# ..." lines printed first (may be NULL). */
void ar_nt_header(FILE *f, const char *const *comments, const ar_nt_params *p, const ar_nt_rank *ranks, int nranks);
void ar_nt_row_print(FILE *f, const ar_nt_row *r);
/* errors: rows with #wrong != 0; avg_busbw: mean busbw of the halves printed. */
void ar_nt_footer(FILE *f, int errors, double avg_busbw);

#endif
