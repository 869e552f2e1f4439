/* What-if scenarios (items 3 and 4): `--scenario FILE.json`.
 *
 * A scenario changes the platform before anything is planned (slow links,
 * failed links, failed ranks: ar_scenario_apply) and adds timing events the
 * simulator runs under --sync dataflow (late ranks, background flows). The
 * format is in scenarios/README.md:
 *
 *   {"name": "late-rank-3",
 *    "stragglers":   [{"rank": 3, "delay": "2ms"}],
 *    "links":        [{"link": "sw0-root", "factor": 0.5}, {"match": "gpu*-sw1", "factor": 0.25}],
 *    "failed_links": ["sw0-sw1"],
 *    "failed_ranks": [5],
 *    "flows":        [{"src": 0, "dst": 4, "rate": "5GBps", "bytes": "1GB", "start": "0s", "stop": "10ms"}],
 *    "jobs":         [{"ranks": [0, 1, 2, 3], "algo": "ring", "start": "1ms"}]}
 *
 * Ranks in stragglers, flows and jobs are those of the platform as the
 * scenario leaves it (after failed ranks are removed, survivors keep their
 * order). Every error names the file and the JSON path.
 *
 * Ownership: ar_scenario_load/_from_json return a scenario the caller frees
 * with ar_scenario_free(); everything inside is owned by it.
 */
#ifndef AR_SCENARIO_H
#define AR_SCENARIO_H

#include "core/platform/platform.h"
#include "status.h"

#define AR_SCENARIO_MAX_ITEMS 4096 /* per list */

typedef struct ar_straggler {
    int rank;
    double delay_s; /* the rank enters phase 0 this late */
    double rate;    /* fraction of its reduction rate, (0, 1] (1 = normal): ar_scenario_apply sets the
                     * platform's rank_compute; needs a reduction rate (compute.reduce or --gamma) */
} ar_straggler;

typedef struct ar_link_change {
    char *link;    /* an exact link name, or NULL */
    char *match;   /* a glob (fnmatch) over link names: a class of links, or NULL */
    double factor; /* bandwidth factor, > 0 */
} ar_link_change;

typedef struct ar_bgflow {
    int src, dst;
    double rate_Bps; /* cap (a private link of that capacity in the simulation); 0 = as fast as sharing lets it */
    double bytes;    /* 0 = until stop, or for ever (then a rate is required) */
    double start_s;
    double stop_s; /* INFINITY = none; a stop needs a rate: the flow carries rate x (stop - start) bytes */
} ar_bgflow;

typedef struct ar_job {
    int *ranks;
    int nranks;
    char *algo;
    double start_s;
} ar_job;

typedef struct ar_scenario {
    char *name;
    char *source; /* the file */
    ar_straggler *stragglers;
    int nstragglers;
    ar_link_change *links;
    int nlinks;
    char **failed_links;
    int nfailed_links;
    int *failed_ranks;
    int nfailed_ranks;
    ar_bgflow *flows;
    int nflows;
    ar_job *jobs;
    int njobs;
} ar_scenario;

ar_status ar_scenario_load(const char *path, ar_scenario **out, ar_err *e);
/* text: the JSON document; where names it in messages and becomes source. */
ar_status ar_scenario_from_json(const char *text, const char *where, ar_scenario **out, ar_err *e);
void ar_scenario_free(ar_scenario *s);
/* A sweep axis over a scenario parameter: loads path, replaces the value at set_path (e.g.
 * "stragglers[0].delay"; the key or index must exist) by the JSON text value, then parses it.
 * set_path NULL: ar_scenario_load. Errors name the file and the path. */
ar_status ar_scenario_load_set(const char *path, const char *set_path, const char *value, ar_scenario **out, ar_err *e);

/* Applies slow links, failed links and failed ranks to *p: bandwidths are
 * scaled in place; failures rebuild the platform (graph kind: routes are
 * recomputed, i.e. rerouted; tree kinds: failed ranks are removed with the
 * switches left empty, a failed link is refused since a tree cannot reroute;
 * torus: refused). Then checks every rank the scenario names against the
 * result. On error *p is unchanged or freed and NULL'd (the message says). */
ar_status ar_scenario_apply(const ar_scenario *sc, ar_platform **p, ar_err *e);

/* 1 when the scenario has a slow-computing straggler (a rate below 1). */
int ar_scenario_has_compute(const ar_scenario *sc);

/* 1 when the scenario has events only the simulator sees (delays, flows, jobs). */
int ar_scenario_has_timing(const ar_scenario *sc);

/* The start delay of each of nranks ranks into d (0 where none); returns the largest. */
double ar_scenario_delays(const ar_scenario *sc, int nranks, double *d);

/* The largest start delay (0 when none): what closed forms add (a late start delays the whole
 * collective by at most d; the dataflow walk, ar_model_walk_from, says by how much). */
double ar_scenario_max_delay(const ar_scenario *sc);

/* One line describing the scenario for outputs ("name: 1 straggler, 2 slow links, ..."). */
void ar_scenario_describe(const ar_scenario *sc, char *buf, size_t n);

/* Platform rebuild (core/platform/platform_degrade.c): a copy of p without the links with
 * link_failed[l] and the GPUs with rank_failed[r] (either may be NULL). Graph kinds
 * reroute; tree kinds drop switches left with nothing below; a failed link on a
 * tree or any failure on a torus is refused with a message. */
ar_status ar_platform_degrade(const ar_platform *p, const char *link_failed, const char *rank_failed, ar_platform **out,
                              ar_err *e);
/* Recomputes the derived symmetric levels after link bandwidths changed in place. */
void ar_platform_refresh_levels(ar_platform *p);

#endif
