/* A row of `arlab best`: one ranked candidate (algos/rank.c ar_algo_rank) on one platform and size,
 * and the columns it is reported in (one column table, lab/rows.h), from which the verb's table, CSV
 * and JSON, `arlab help columns best` and docs/cli.md's column list derive; and the simulation of a
 * candidate under a scenario's delays and flows (lab_best_sim), the key best ranks by there.
 *
 * Ownership: a row points into the candidate and the caller's strings (params is its own); it lives
 * as long as they do. */
#ifndef AR_LAB_BESTROW_H
#define AR_LAB_BESTROW_H

#include <stddef.h>
#include <stdint.h>

#include "core/algo.h"
#include "core/scenario.h"
#include "rows.h"
#include "simrow.h" /* lab_nccl_pick */

typedef struct lab_bestrow {
    long long rank; /* competition rank among the rows listed; 0: unranked (not walked or not simulated) */
    const char *algo;
    char params[220]; /* the spec suffix, " (default)" after a variant equal to the algorithm's default */
    double walk_s, closed_s, rel_diff;
    const char *slowest;
    double algbw_GBps, busbw_GBps, vs_nccl, nccl_model_s;
    const char *nccl_algo, *nccl_proto;
    double sim_s;
    const char *scenario;
} lab_bestrow;

extern const lab_rowcol lab_bestrow_cols[];
extern const int lab_bestrow_ncols;

/* The row of candidate x: rank (0: unranked), sim_s (NAN: not simulated), bytes of the collective coll
 * on nranks GPUs, NCCL's choice, the scenario's name (NULL: "-"). */
void lab_bestrow_fill(lab_bestrow *w, const ar_rank_cand *x, long long rank, double sim_s, ar_coll coll, int nranks,
                      double bytes, const lab_nccl_pick *nccl, const char *scenario);

/* Simulates candidate x of coll on p under scenario sc (--sync dataflow, the per-rank start delays,
 * sc's flows; 120 s of wall time at most): its time, or NAN with the reason in why. */
double lab_best_sim(const ar_platform *p, const ar_scenario *sc, const double *delays, ar_coll coll, uint64_t count,
                    size_t eb, const ar_rank_cand *x, char *why, size_t nwhy);

#endif
