/* Scenario jobs (scenarios/README.md): several jobs sharing the fabric in one
 * simulation. Each job's algorithm is planned on a platform holding only its ranks
 * (ar_platform_degrade without the others: the same links and routes among them), its ranks
 * mapped back (the k-th rank of the sub-platform is the job's k-th smallest rank), and its phases
 * appended after the previous job's to one schedule over every rank. Under --sync dataflow a rank
 * skips phases without its ops, so the jobs run concurrently; each rank starts at its job's start
 * (plus any straggler delay), and a job's time is the latest end of its phases minus its start
 * (ar_sim_opts.independent_phases keeps the phase ends apart).
 *
 * Ownership: lab_jobs_plan fills *out (the caller frees it with lab_jobs_free). */
#ifndef AR_LAB_JOBS_H
#define AR_LAB_JOBS_H

#include "core/platform/platform.h"
#include "core/scenario.h"
#include "core/schedule.h"
#include "core/units.h"

typedef struct lab_jobs {
    ar_schedule *sch; /* every job's phases, job by job, over p's ranks */
    int *phase_first; /* job j's phases: [phase_first[j], phase_first[j+1]) (njobs + 1 entries) */
    double *alone_s;  /* job j's cost walk on its own ranks, alone on the fabric (NaN if none) */
    double *delays;   /* per rank of p: its job's start + its straggler delay */
    int njobs;
} lab_jobs;

/* Ranks must be distinct within and across jobs; algorithms as --algo takes them. */
ar_status lab_jobs_plan(const ar_platform *p, const ar_scenario *sc, uint64_t count, size_t elem_bytes, ar_coll coll,
                        lab_jobs *out, ar_err *e);
/* Job j's time from the simulation's phase ends: the latest end of its phases minus its start. */
double lab_jobs_time(const lab_jobs *J, const ar_scenario *sc, const double *phase_end_s, int j);
void lab_jobs_free(lab_jobs *J);

#endif
