/* One point of `arlab sim`: plan, price and simulate one algorithm on one platform and size
 * (lab_sim_point), and the row it is reported in: ONE column table (lab_simrow_cols), from which
 * the verb's table, CSV and JSON, `arlab sim --columns` and docs/cli.md's column list derive.
 * Columns are addressed by name (lab_rowcol_find, lab/rows.h), never by a hand-kept position.
 *
 * Ownership: lab_sim_point fills *ev and *r (lab_eval_free, the API's result_free); a row
 * points into them, into the platform and into the caller's strings: it lives as long as they do.
 */
#ifndef AR_LAB_SIMROW_H
#define AR_LAB_SIMROW_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "eval.h"
#include "rows.h"

/* Plans spec on p (lab_eval_plan), then simulates it with so while pricing it (lab_eval_price as
 * the simulation's meanwhile work); model_only prices without simulating (r->time_s NAN, engine
 * "none"). Returns the planner's status (AR_EUNSUPPORTED / AR_ELIMIT: not applicable, e says why;
 * r is then untouched and ev->sch NULL) or the simulation's; *planned says which. */
ar_status lab_sim_point(const ar_platform *p, const char *spec, uint64_t count, size_t eb, lab_eval_opts *eo,
                        const ar_sim_opts *so, int model_only, lab_eval *ev, ar_sim_result *r, int *planned, ar_err *e);

/* A row of `arlab sim`. Numbers are NAN (and texts NULL) where a row was not simulated. */
typedef struct lab_simrow {
    const char *algo, *platform;
    long long ranks;
    double bytes, sim_s, model_s, rel_err, closed_s, closed_rel_err;
    long long transfers, simgrid_xfers, probe_xfers, batches, shortcut_batches, groups;
    double wall_s;
    long long peak_rss_kb;
    char bottleneck[160]; /* the most loaded directed link's name, "-" when none */
    double bottleneck_busy_s, bottleneck_util;
    long long bottleneck_flows;
    const char *check;
    long long complete;
    const char *engine, *network;
    double algbw_GBps, busbw_GBps, nccl_model_s;
    const char *nccl_algo, *nccl_proto, *status, *why, *sync, *scenario;
    int simulated; /* 0: a row saying why (status, why), every number empty */
} lab_simrow;

extern const lab_rowcol lab_simrow_cols[];
extern const int lab_simrow_ncols;

/* What NCCL's tuner would run at a point (lab_nccl_choice), shown beside every row. */
typedef struct lab_nccl_pick {
    double time_s;
    const char *algo, *proto;
} lab_nccl_pick;

/* The row of a simulated point: sim_st is the simulation's status (AR_OK, or AR_EFAIL: --check
 * found a wrong sum; e_msg says what); scenario: its name (NULL: "-"). */
void lab_simrow_simulated(lab_simrow *w, const char *algo, const ar_platform *p, double bytes, ar_coll coll,
                          const lab_eval *ev, const ar_sim_result *r, ar_status sim_st, const char *e_msg, int check,
                          int model_only, const lab_nccl_pick *nccl, const char *scenario);
/* A row for an algorithm that was not simulated: status (unsupported, limit, error) and why. */
void lab_simrow_why(lab_simrow *w, const char *algo, const ar_platform *p, double bytes, const char *status,
                    const char *why);

#endif
