/* Algorithms and their registry.
 *
 * An algorithm is one descriptor: `const ar_algo ar_algo_<name>` in
 * algos/<name>.c (designated initializers), listed once in algos/registry.c.
 * The descriptor holds everything the rest of arlab knows about it:
 *   - params: its parameter table (key, type, range or words, default, help),
 *     read by the one generic parser (ar_params_bind, core/params.h); the
 *     planner, closed form and statistics get the typed values, indexed like
 *     the table; `arlab algos` prints the table;
 *   - plan: (platform, element count, element size, values) -> schedule;
 *   - closed (optional): the papers' closed form of the schedule's time;
 *   - stats, calls (optional): per-algorithm statistics (e.g. FlexReduce's
 *     reduce calls per learner, Fig. 4(c), against the Eq. 12 bound);
 *   - search (optional): a search over its parameter space (BlueConnect's
 *     decompositions), used by `arlab best` (ar_algo_rank).
 * Planners must not include SimGrid, CUDA or NCCL headers (the algos library
 * links only core, models and GLPK). A function returns AR_EUNSUPPORTED with a
 * message when the platform or rank count is one it cannot serve.
 * See algos/README.md for how to add one.
 */
#ifndef AR_ALGO_H
#define AR_ALGO_H

#include <stddef.h>
#include <stdint.h>
#include "params.h"
#include "core/platform/platform.h"
#include "schedule.h"

struct ar_model_result; /* models/model.h */
struct ar_ranking;      /* below */

/* Per-algorithm statistics of a plan, beside the time (e.g. FlexReduce's
 * top-level reduce calls per learner, Fig. 4(c), and the largest Eq. 12
 * bound). have_calls = 0 where the algorithm has none. */
typedef struct ar_algo_stats {
    int have_calls;
    double calls_max, calls_avg, calls_bound; /* calls_bound NAN where not defined */
} ar_algo_stats;

/* Calls per learner per level (FlexReduce Fig. 4(c)) against a bound (Eq. 12):
 * one row per level, then a row "all" (level -1, bound_max -1) with the totals. */
typedef struct ar_algo_calls_row {
    int level;  /* -1: all levels */
    double avg; /* mean over the ranks */
    int max;
    int bound_max; /* largest bound of the level; -1 where none */
    int within;    /* every rank within its bound */
} ar_algo_calls_row;

typedef struct ar_algo_calls {
    int nrows;               /* 0: the algorithm reports none */
    ar_algo_calls_row *rows; /* owned; ar_algo_calls_free */
    int holds;               /* every row within its bound */
} ar_algo_calls;
void ar_algo_calls_free(ar_algo_calls *c);

typedef struct ar_algo {
    const char *name;           /* registry key, e.g. "ring" */
    const char *label;          /* name as the papers print it, e.g. "Ring (NCCL-like)" */
    const char *summary;        /* one line */
    const ar_param_def *params; /* parameter table ending with {NULL}; NULL: no parameters */
    ar_status (*plan)(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v, ar_schedule **out,
                      ar_err *e);
    /* Closed form for `bytes` bytes (out zeroed by the caller); NULL: none. */
    ar_status (*closed)(const ar_platform *p, double bytes, const ar_param_val *v, struct ar_model_result *out,
                        ar_err *e);
    /* Scalar statistics (*out preset to have_calls 0, NANs); NULL: none. */
    ar_status (*stats)(const ar_platform *p, const ar_param_val *v, ar_algo_stats *out, ar_err *e);
    /* Per-level calls table; NULL: none. */
    ar_status (*calls)(const ar_platform *p, const ar_param_val *v, ar_algo_calls *out, ar_err *e);
    /* Parameter search for ar_algo_rank. With r == NULL: AR_OK if p has a
     * space to search, else AR_EUNSUPPORTED with the reason (the default is
     * then ranked like any algorithm's). With r: appends the evaluated
     * variants (ar_rank_eval) and a note line. NULL: no search. */
    ar_status (*search)(const ar_platform *p, uint64_t count, size_t elem_bytes, struct ar_ranking *r, ar_err *e);
    /* Collectives served, a mask of AR_COLL_BIT(ar_coll); 0 = all-reduce only.
     * With plan_coll NULL, reduce-scatter / all-gather are the all-reduce plan's
     * reduce-scatter / all-gather phases alone (and its closed form's stages of
     * those names). */
    unsigned colls;
    /* Plans a collective other than all-reduce (schedule's coll set); NULL: as above. */
    ar_status (*plan_coll)(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                           ar_schedule **out, ar_err *e);
} ar_algo;

/* The collectives algorithm a serves (colls, with 0 read as all-reduce only). */
unsigned ar_algo_colls(const ar_algo *a);

/* The registry (algos/registry.c). */
const ar_algo *const *ar_algos(int *count);
/* Found by ar_algo_find but not in ar_algos(): they need a parameter (the
 * user-written schedule, algos/user_schedule.c). */
const ar_algo *const *ar_algos_explicit(int *count);
const ar_algo *ar_algo_find(const char *name);

/* Parses "name[:params]", finds the algorithm, checks the parameters against
 * its table (ar_params_bind), plans, and checks the schedule is structurally
 * sound. */
ar_status ar_algo_plan(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes, ar_schedule **out,
                       ar_err *e);

/* ar_algo_plan for collective coll: AR_EUNSUPPORTED, in one line, where the
 * algorithm does not serve it. */
ar_status ar_algo_plan_coll(const char *spec, ar_coll coll, const ar_platform *p, uint64_t count, size_t elem_bytes,
                            ar_schedule **out, ar_err *e);
/* ar_algo_closed for collective coll (same refusal). */
ar_status ar_algo_closed_coll(const char *spec, ar_coll coll, const ar_platform *p, uint64_t count, size_t elem_bytes,
                              struct ar_model_result *out, ar_err *e);

/* Closed form of "name[:params]" on p for count * elem_bytes bytes (the
 * papers' equation for that algorithm; parameters checked as for planning).
 * AR_EINVAL for an unknown algorithm or a bad parameter; AR_EUNSUPPORTED, with
 * a message, where the algorithm has none or p lacks what the formula needs. Every evaluator
 * (model, sim, best, sweeps) gets closed forms through this one function. */
ar_status ar_algo_closed(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                         struct ar_model_result *out, ar_err *e);

/* Statistics of "name[:params]" on p (*out zeroed, have_calls = 0, where the
 * algorithm reports none). */
ar_status ar_algo_stats_of(const char *spec, const ar_platform *p, uint64_t count, size_t elem_bytes,
                           ar_algo_stats *out, ar_err *e);

/* Calls table of "name[:params]" on p (out->nrows = 0 where none; free with
 * ar_algo_calls_free). */
ar_status ar_algo_calls_of(const char *spec, const ar_platform *p, ar_algo_calls *out, ar_err *e);

/* Parses "name[:params]" and checks it against the algorithm's table: *a gets
 * the algorithm, vals (AR_MAX_PARAMS entries) the typed values. nranks bounds
 * rank-count parameters. */
ar_status ar_algo_bind(const char *spec, int nranks, const ar_algo **a, ar_param_val *vals, ar_err *e);

/* --- ranking (`arlab best`, algos/rank.c) -------------------------------------- */

/* One evaluated candidate: the generic cost walk of its schedule (the common
 * yardstick) and its closed form where one exists. */
typedef struct ar_rank_cand {
    char algo[32];
    char params[200];        /* a valid spec suffix ("" = defaults) */
    double walk_s, closed_s; /* NAN: not walked / no closed form */
    char slowest[160];       /* the walk's slowest stage, or why it was not walked */
    int is_default;          /* a searched variant equal to the algorithm's default */
    int index;               /* evaluation order: ties keep it */
    double key_s;            /* ranking key: walk_s (NAN: not walked, listed last) */
} ar_rank_cand;

typedef struct ar_ranking {
    ar_rank_cand *v; /* sorted best first after ar_algo_rank (owned) */
    int n;
    size_t cap;
    char **notes; /* lines about what was not ranked or how a search went (owned) */
    int nnotes;
    size_t notes_cap;
    ar_coll coll; /* the collective ranked (ar_algo_rank sets it; ar_rank_eval plans it) */
    /* what-if late ranks (ar_algo_rank sets it; NULL: none): rank r enters phase 0 start_s[r]
     * seconds late; walks start them late (ar_model_walk_from), closed forms add the largest delay */
    const double *start_s;
} ar_ranking;

/* A schedule whose walk would price more transfers is not walked. */
#define AR_RANK_WALK_XFERS 1e7

/* Ranks every registry algorithm serving collective coll (default parameters)
 * and every variant of the algorithms with a search, on p for count elements of
 * elem_bytes; out is sorted best first. AR_EUNSUPPORTED when no algorithm serves
 * p. On any return out holds what was gathered (notes included): ar_ranking_free it. */
ar_status ar_algo_rank(const ar_platform *p, ar_coll coll, uint64_t count, size_t elem_bytes, const double *start_s,
                       ar_ranking *out, ar_err *e);
void ar_ranking_free(ar_ranking *r);

/* Plans algo:params for r->coll, walks it (within AR_RANK_WALK_XFERS) and tries its closed
 * form, appending a candidate to r. AR_EUNSUPPORTED: the algorithm cannot
 * serve p (message says why; nothing appended). */
ar_status ar_rank_eval(const ar_platform *p, uint64_t count, size_t elem_bytes, const char *algo, const char *params,
                       ar_ranking *r, ar_rank_cand **added, ar_err *e);
/* Appends a printf-formatted note line. */
ar_status ar_rank_note(ar_ranking *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
