/* Parsing and printing of sizes, rates and times.
 *
 * Sizes:  a trailing "B" means bytes, otherwise the number counts elements of
 *         the data type: "100MB" = 1e8 bytes, "1GiB" = 2^30 bytes, "120M" =
 *         120e6 elements, "4096" = 4096 elements. SI prefixes k/K M G T P are
 *         powers of 1000, Ki Mi Gi Ti powers of 1024. Fractions are accepted
 *         when the result is a whole number of bytes/elements ("1.5KB").
 * Rates:  "12.5GBps", "12.5GB/s" (bytes/s), "100Gbps", "100Gb/s" (bits/s),
 *         a bare number is bytes/s. Must be finite and > 0.
 * Times:  "5us", "1.5ms", "10ns", "2s", "100ps"; a bare number is seconds.
 *         Must be finite and >= 0.
 * Anything else is rejected with a message quoting the text and an example.
 */
#ifndef AR_UNITS_H
#define AR_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

/* Upper bound on any message size arlab accepts (documented in docs/cli.md). */
#define AR_MAX_BYTES (UINT64_C(1) << 50) /* 1 PiB */

typedef enum ar_dtype { AR_DTYPE_F32, AR_DTYPE_F16, AR_DTYPE_BF16, AR_DTYPE_F64, AR_DTYPE_I32 } ar_dtype;

ar_status ar_dtype_parse(const char *s, ar_dtype *out, ar_err *e);
const char *ar_dtype_name(ar_dtype t);
size_t ar_dtype_size(ar_dtype t);

/* Parses a message size; returns the number of elements of size elem_bytes.
 * A byte size that is not a multiple of elem_bytes is rejected. The result is
 * >= 1 and elems*elem_bytes <= AR_MAX_BYTES. */
ar_status ar_parse_size(const char *s, size_t elem_bytes, uint64_t *elems, ar_err *e);

ar_status ar_parse_rate(const char *s, double *bw_Bps, ar_err *e);
ar_status ar_parse_time(const char *s, double *t_s, ar_err *e);
/* A positive integer (no suffix other than k/M/G SI prefixes). */
ar_status ar_parse_count(const char *s, long long min, long long max, long long *out, ar_err *e);

/* Human formatting into buf (returns buf): "100 MB", "12.5 GB/s", "31.0 ms". */
char *ar_fmt_bytes(double bytes, char *buf, size_t n);
char *ar_fmt_rate(double bw_Bps, char *buf, size_t n);
char *ar_fmt_time(double t_s, char *buf, size_t n);

#endif
