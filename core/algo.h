/* Algorithms and their registry.
 *
 * An algorithm is a pure planner: (platform, element count, element size,
 * parameters) -> schedule. Each lives in one file algos/<name>.c defining one
 * `const struct ar_algo ar_algo_<name>` with designated initializers, listed
 * once in algos/registry.c. Planners must not include SimGrid, CUDA or NCCL
 * headers (the algos library links only core and GLPK).
 *
 * A planner reads its parameters with the ar_params getters; the caller checks
 * afterwards that every key was used. It returns AR_EUNSUPPORTED with a message
 * when the platform or rank count is one it cannot serve.
 */
#ifndef AR_ALGO_H
#define AR_ALGO_H

#include <stddef.h>
#include <stdint.h>
#include "params.h"
#include "platform.h"
#include "schedule.h"

typedef struct ar_algo {
    const char *name;       /* registry key, e.g. "ring" */
    const char *label;      /* name as the papers print it, e.g. "Ring (NCCL-like)" */
    const char *summary;    /* one line */
    const char *params_help;/* e.g. "chunks=N (default 4)"; "" if none */
    ar_status (*plan)(const ar_platform *p, uint64_t count, size_t elem_bytes, ar_params *params,
                      ar_schedule **out, ar_err *e);
} ar_algo;

struct ar_model_result; /* models/model.h */

/* Per-algorithm statistics of a plan, beside the time (e.g. FlexReduce's
 * top-level reduce calls per learner, Fig. 4(c), and the largest Eq. 12
 * bound). have_calls = 0 where the algorithm has none. */
typedef struct ar_algo_stats {
    int have_calls;
    double calls_max, calls_avg, calls_bound; /* calls_bound NAN where not defined */
} ar_algo_stats;

/* The registry (algos/registry.c). */
const ar_algo *const *ar_algos(int *count);
const ar_algo *ar_algo_find(const char *name);

/* Parses "name[:params]", finds the algorithm, plans, checks every param was
 * used and the schedule is structurally sound. */
ar_status ar_algo_plan(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                       ar_schedule **out, ar_err *e);

/* Closed form of "name[:params]" on p for count * elem_bytes bytes (the
 * papers' equation for that algorithm). AR_EUNSUPPORTED, with a message, where
 * the algorithm has none or p lacks what the formula needs. Every evaluator
 * (model, sim, best, sweeps) gets closed forms through this one function. */
ar_status ar_algo_closed(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                         struct ar_model_result *out, ar_err *e);

/* Statistics of "name[:params]" on p (*out zeroed, have_calls = 0, where the
 * algorithm reports none). */
ar_status ar_algo_stats_of(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_algo_stats *out, ar_err *e);

#endif
