/* Test data for executors that carry real values (host executor, simulator
 * --check, NCCL check): the input convention and the exact expected sum.
 *
 * Rank r, element x holds (r + 1) + (x mod 65521) * 2^20. Every value is an
 * integer below 2^53, and so is every partial sum of up to 2^20 ranks, so
 * additions in any order are exact in a double: a missing, doubled or
 * misplaced contribution changes the result. Pure functions, no state.
 */
#ifndef AR_DATA_H
#define AR_DATA_H

#include <stdint.h>

/* Input of rank r at element x. */
static inline double ar_data_input(int r, uint64_t x) { return (double)(r + 1) + (double)(x % 65521u) * 1048576.0; }

/* Exact all-reduce result at element x for nranks ranks (sum of ar_data_input). */
static inline double ar_data_expected(int nranks, uint64_t x) {
    double P = (double)nranks;
    return P * (P + 1) / 2 + P * (double)(x % 65521u) * 1048576.0;
}

/* Fills buf[0 .. count) with rank r's input. */
void ar_data_fill(double *buf, int r, uint64_t count);

/* Index of the first element of buf[0 .. count) that differs from the exact
 * sum over nranks ranks, or count if all are exact. */
uint64_t ar_data_first_wrong(const double *buf, int nranks, uint64_t count);

#endif
