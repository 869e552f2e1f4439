/* The algorithm registry: every planner, listed exactly once.
 *
 * To add an algorithm: define its descriptor `const ar_algo ar_algo_<id>` in
 * algos/<file>.c (core/algo.h, algos/README.md) and add one line X(<id>) to
 * AR_ALGO_LIST below (this both declares it and lists it; the order is the
 * order `arlab algos` prints).
 * Ownership: everything here is static and read-only.
 */
#include <string.h>

#include "core/algo.h"

#define AR_ALGO_LIST(X) \
    X(ring)             \
    X(pipelined_ring)   \
    X(hd)               \
    X(binomial)         \
    X(ps)               \
    X(two_level)        \
    X(blueconnect)      \
    X(flexreduce)       \
    X(treepack)         \
    X(nccl_ring)        \
    X(nccl_tree)        \
    X(pat)              \
    X(nvls)             \
    X(nvlstree)         \
    X(collnet)          \
    X(nccl)

#define AR_ALGO_DECLARE(id) extern const ar_algo ar_algo_##id;
AR_ALGO_LIST(AR_ALGO_DECLARE)
#undef AR_ALGO_DECLARE

#define AR_ALGO_ENTRY(id) &ar_algo_##id,
static const ar_algo *const ar_algo_table[] = {AR_ALGO_LIST(AR_ALGO_ENTRY)};
#undef AR_ALGO_ENTRY

const ar_algo *const *ar_algos(int *count) {
    if (count) *count = (int)(sizeof ar_algo_table / sizeof ar_algo_table[0]);
    return ar_algo_table;
}

/* Algorithms found by name but not listed by ar_algos() (so `--algo all` and
 * every loop over the registry leave them out): they need a parameter to plan
 * anything. `arlab algos` lists them after the others. */
extern const ar_algo ar_algo_user_schedule;
static const ar_algo *const ar_algo_explicit_table[] = {&ar_algo_user_schedule};

const ar_algo *const *ar_algos_explicit(int *count) {
    if (count) *count = (int)(sizeof ar_algo_explicit_table / sizeof ar_algo_explicit_table[0]);
    return ar_algo_explicit_table;
}

const ar_algo *ar_algo_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof ar_algo_table / sizeof ar_algo_table[0]; i++)
        if (!strcmp(ar_algo_table[i]->name, name)) return ar_algo_table[i];
    for (size_t i = 0; i < sizeof ar_algo_explicit_table / sizeof ar_algo_explicit_table[0]; i++)
        if (!strcmp(ar_algo_explicit_table[i]->name, name)) return ar_algo_explicit_table[i];
    return NULL;
}
