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

/* The registry (algos/registry.c). */
const ar_algo *const *ar_algos(int *count);
const ar_algo *ar_algo_find(const char *name);

/* Parses "name[:params]", finds the algorithm, plans, checks every param was
 * used and the schedule is structurally sound. */
ar_status ar_algo_plan(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                       ar_schedule **out, ar_err *e);

#endif
