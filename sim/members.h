/* Private to sim/: the member index of a rank in an op, for the engines that index a round's
 * transfers by member (naive.c, fast_dataflow.c): open addressing over 2^k >= 2n slots (key -1 =
 * empty), O(n) memory per op, O(1) lookups. Owned by the caller: sim_members_free. */
#ifndef AR_SIM_MEMBERS_H
#define AR_SIM_MEMBERS_H

#include <stdlib.h>
#include <string.h>

#include "core/schedule.h"

typedef struct sim_members {
    int *key, *val, mask;
} sim_members;

/* Builds the index of op's members; -1 when out of memory (h is then freeable). */
static inline int sim_members_init(sim_members *h, const ar_op *op) {
    int hs = 16;
    while (hs < 2 * op->n) hs *= 2;
    h->mask = hs - 1;
    h->key = malloc((size_t)hs * sizeof *h->key);
    h->val = malloc((size_t)hs * sizeof *h->val);
    if (!h->key || !h->val) return -1;
    memset(h->key, 0xff, (size_t)hs * sizeof *h->key);
    for (int m = 0; m < op->n; m++) {
        int k = (int)((unsigned)op->members[m] * 2654435761u) & h->mask;
        while (h->key[k] >= 0) k = (k + 1) & h->mask;
        h->key[k] = op->members[m];
        h->val[k] = m;
    }
    return 0;
}

/* rank's member index in the op, -1 if it is not a member. */
static inline int sim_member_of(const sim_members *h, int rank) {
    for (int k = (int)((unsigned)rank * 2654435761u) & h->mask;; k = (k + 1) & h->mask) {
        if (h->key[k] == rank) return h->val[k];
        if (h->key[k] < 0) return -1;
    }
}

static inline void sim_members_free(sim_members *h) {
    free(h->key);
    free(h->val);
    h->key = h->val = NULL;
}

#endif
