/* Helpers shared by the planners and closed forms in algos/ (ring.c, hd.c,
 * binomial.c, pipelined_ring.c, ps.c, two_level.c; the others use some).
 * Definitions in algos/classic_common.c; no state.
 *
 * Ownership: ar_classic_iota() returns an array the caller frees.
 */
#ifndef AR_ALGOS_CLASSIC_COMMON_H
#define AR_ALGOS_CLASSIC_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include "core/algo.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/units.h"
#include "core/util.h"
#include "models/model.h"

/* Input checks every planner does first: a platform with >= 1 rank, a
 * non-empty buffer of >= 1-byte elements, within AR_MAX_BYTES. */
ar_status ar_classic_check(const char *algo, const ar_platform *p, uint64_t count, size_t elem_bytes, ar_schedule **out,
                           ar_err *e);

/* Members lo, lo+1, ..., lo+n-1 (caller frees); NULL on allocation failure. */
int *ar_classic_iota(int lo, int n);

/* Largest power of two <= n (n >= 1). */
int ar_classic_pow2_floor(int n);

/* Frees a half-built schedule and reports an allocation failure. */
ar_status ar_classic_nomem(const char *algo, ar_schedule *s, ar_err *e);

/* Appends two phases to s: "<label> reduce-scatter (<impl>)" with one
 * REDUCE_SCATTER over members[0..n) and the whole buffer, then
 * "<label> all-gather (<impl>)" with the matching ALL_GATHER; both with
 * `chunks` pipeline chunks. Returns AR_OK or AR_ENOMEM (s left for the
 * caller to free). */
ar_status ar_classic_rs_ag(ar_schedule *s, const char *label, const int *members, int n, ar_impl impl, int chunks);

/* Appends printf text to r->note (truncated at its size). */
void ar_classic_note(struct ar_model_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Ring all-reduce with c sub-chunks when the platform has compute costs (reduce_Bps or
 * launch_s): one stage of ar_eq_ring_pipe (models/eqs.c: dataflow with overlap);
 * 0 (nothing added) when the platform has none. */
int ar_classic_ring_costs(const struct ar_platform *p, double N, long long c, struct ar_model_result *out);

/* Largest route latency and narrowest route capacity among the ranks r[0..n):
 * every ordered pair up to AR_CLASSIC_EXACT_PAIRS members, above that a ring
 * and a star of routes. */
#define AR_CLASSIC_EXACT_PAIRS 128
void ar_classic_pair_scan(const ar_platform *p, const int *r, int n, double *lat, double *bw);

#endif
