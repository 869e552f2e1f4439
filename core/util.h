/* Small utilities shared by every module: growable arrays, whole-file and CSV
 * reading, a monotonic clock, integer bit helpers and union-find. One copy of
 * each; modules must not keep their own.
 *
 * Ownership: ar_read_file and ar_csv_split allocate; the caller frees
 * (ar_csv_free for the fields). Nothing here keeps global state.
 */
#ifndef AR_UTIL_H
#define AR_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Grows the array *pp (elements of elem bytes, capacity *cap) to hold at least
 * need elements, doubling from 64. Returns 0, or -1 (array unchanged) when the
 * allocation fails or the size overflows. Usage: ar_grow(&v, &cap, n + 1, sizeof *v). */
int ar_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* Reads the whole file into a NUL-terminated buffer (caller frees); *len gets
 * its length when len is non-NULL. Files over max_bytes are refused (AR_ELIMIT).
 * The message names the file. */
ar_status ar_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ar_err *e);

/* Reads one line of any length from f, without its '\n' (and '\r'); caller
 * frees. Returns NULL at end of file, or on allocation failure with *oom = 1. */
char *ar_read_line(void *file, int *oom);

/* Splits one CSV line (RFC 4180 quoting: "a,""b""" -> a,"b") into at most max
 * fields, each allocated; *fields is an array of max + 1 pointers (caller frees
 * with ar_csv_free). Fields beyond max are dropped. Returns the field count, or
 * -1 when out of memory. */
int ar_csv_split(const char *line, char ***fields, int max);
void ar_csv_free(char **fields, int n);

/* Seconds on the monotonic clock (for wall-time budgets and benchmarks). */
double ar_now_s(void);

/* Integer helpers. */
int ar_is_pow2(long long x);   /* x > 0 and a power of two */
int ar_ceil_log2(long long x); /* smallest q with 2^q >= x (0 for x <= 1) */
uint64_t ar_gcd_u64(uint64_t a, uint64_t b);
int64_t ar_gcd_i64(int64_t a, int64_t b); /* of |a| and |b|; 0 when both are 0 */

/* Union-find over 0..n-1 (path halving; the lower root index wins a union, so
 * results do not depend on the order of unions). ar_uf_init sets uf[i] = i. */
void ar_uf_init(int *uf, int n);
int ar_uf_find(int *uf, int x);
int ar_uf_union(int *uf, int a, int b); /* 1 if two sets were joined, 0 if already one */

/* "Did you mean": the candidate closest to word by edit distance (insertions,
 * deletions, substitutions, adjacent transpositions; case-insensitive), or NULL
 * when none is within max(1, min(2, strlen(word) / 3)) edits. Words longer than
 * 63 characters match nothing. */
const char *ar_closest(const char *word, const char *const *cands, int n);

#endif
