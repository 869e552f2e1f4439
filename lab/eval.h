/* One evaluation path: every verb (model, sim, compare, best) and the sweep
 * price a point through lab_eval_model, so each cost column has one meaning:
 *
 *   closed_s  the paper's closed form of the algorithm (ar_algo_closed), NAN
 *             where the algorithm has none or the platform lacks what it needs
 *   walk_s    the generic cost walk over the planned schedule (ar_model_walk)
 *   model_s   closed_s where it exists, else walk_s      <- the one definition
 *   rel_diff  (walk_s - closed_s) / closed_s (NAN unless both exist)
 *
 * plus the schedule's detail string, the stage breakdown of model_s, and the
 * per-algorithm statistics (ar_algo_stats_of: FlexReduce's reduce calls per
 * learner; for other algorithms the schedule's reduce calls per rank).
 *
 * Ownership: lab_eval_model fills *out; lab_eval_free releases out->sch.
 */
#ifndef AR_LAB_EVAL_H
#define AR_LAB_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/algo.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "core/status.h"
#include "models/model.h"

typedef struct lab_eval_opts {
    /* > 0: what-if, every op of the planned schedule pipelined in this many
     * chunks; the closed form (which cannot see it) is then not used. */
    int chunks;
    ar_coll coll; /* the collective (0 = all-reduce); the schedule's coll */
    /* what-if late ranks: rank r enters phase 0 start_s[r] seconds late (NULL: none). The walk
     * is then the dataflow walk from those starts (ar_model_walk_from); the closed form, which
     * cannot see them, adds the largest delay (the most a late start can cost). */
    const double *start_s;
} lab_eval_opts;

/* closed form and walk agree (relative) within this: the closed form is model_s (0.1 %: a paper equation that rounds differently still counts) */
#define LAB_EVAL_AGREE 1e-3
/* how lab_eval.model_why starts, so that a verb can pick these lines out of a row's why */
#define LAB_MODEL_WHY "model_s is the walk"

typedef struct lab_eval {
    ar_schedule *sch; /* the plan (owned; lab_eval_free) */
    int have_closed, have_walk;
    ar_model_result closed, walk; /* valid where have_* */
    ar_status walk_status;        /* why have_walk = 0 (AR_OK when it is 1) */
    ar_err walk_err;
    double closed_s, walk_s, model_s, rel_diff; /* NAN where missing */
    const ar_model_result *model;               /* the result model_s comes from (&closed or &walk), NULL if neither */
    const char *detail;                         /* the schedule's detail string ("" if none) */
    int uneven;                                 /* some phase runs concurrent pieces of clearly different sizes */
    char model_why[240];                        /* why model_s is the walk although a closed form exists ("" otherwise);
                            it starts with LAB_MODEL_WHY */
    ar_algo_stats stats;                        /* calls_* NAN where not defined */
} lab_eval;

/* Plans spec on p for count elements of elem_bytes once and prices it. Returns
 * the planner's status (AR_EUNSUPPORTED with its message where the algorithm
 * does not apply; out->sch is NULL then). A failing walk is not an error of
 * the call: have_walk = 0 and walk_status/walk_err say why. opts may be NULL. */
ar_status lab_eval_model(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                         const lab_eval_opts *opts, lab_eval *out, ar_err *e);
void lab_eval_free(lab_eval *ev);

/* lab_eval_model in two steps, so that the pricing can overlap a simulation of out->sch (arlab
 * sim): lab_eval_plan plans (and sets opts->chunks) into out->sch, the rest of *out empty;
 * lab_eval_price then fills the prices of out->sch, as lab_eval_model does. */
ar_status lab_eval_plan(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                        const lab_eval_opts *opts, lab_eval *out, ar_err *e);
void lab_eval_price(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes,
                    const lab_eval_opts *opts, lab_eval *out);

/* The same for a schedule already planned from spec (count, elem_bytes): fills
 * *out without taking s (out->sch stays NULL; the caller keeps s). With
 * opts->chunks > 0 it sets every op's chunks of s first. */
void lab_eval_schedule(const ar_platform *p, const char *spec, uint64_t count, size_t elem_bytes, ar_schedule *s,
                       const lab_eval_opts *opts, lab_eval *out);

/* nccl-tests' bandwidths of one all-reduce-style run (models/nccl_model.h
 * ar_nccl_algbw/ar_nccl_busbw) in GB/s (1e9 bytes/s): algbw = bytes / time_s,
 * busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for reduce-scatter and
 * all-gather (coll: ar_nccl_coll). NAN where time_s is not finite and > 0. */
double lab_algbw_GBps(double bytes, double time_s);
double lab_busbw_GBps(int coll, int nranks, double bytes, double time_s);

/* What NCCL's tuner would choose for an all-reduce-style collective (coll:
 * ar_nccl_coll) of `bytes` on p (models/nccl_model.h ar_nccl_model_platform):
 * its time, algorithm and protocol names. Where NCCL's model does not apply
 * (a platform it cannot describe: unknown GPU, uneven machines), *time_s = NAN
 * and the names are "" and the status says why. */
ar_status lab_nccl_choice(const ar_platform *p, int coll, double bytes, double *time_s, const char **algo,
                          const char **proto, ar_err *e);

/* (a - b) / b; NAN unless both are finite and b > 0. */
double lab_rel(double a, double b);

#endif
