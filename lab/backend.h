/* The backend table: every way arlab can put a time on a planned schedule,
 * filled in ONE place (lab/backend.c, the only file that knows what this build
 * compiled in). Verbs and the sweep ask the table (lab_backend_find, the
 * capability bits, `available`) instead of the preprocessor.
 *
 * Entries, in this order:
 *   model  the cost walk of the schedule (time_s = walk_s); always available
 *   sim    SimGrid (sim/): time_s = sim_s; available when SimGrid was found
 *   real   measured times imported from CSVs (`arlab real --out`, nccl-tests
 *          converted, ...): time_s = the median of the matching rows; the sim
 *          time is added beside it when SimGrid is built. Always available
 *          (it reads files); the name is the one sweep files and results use.
 *   nccl   running the schedule on GPUs with NCCL (real/, `arlab real`);
 *          available when CUDA and NCCL were found; not run inside a sweep
 *          (its results come back through `real`).
 *   measured NCCL's own all-reduce as nccl-tests measured it (nccl-tests
 *          files listed in real.csv, rows "nccl-allreduce" of lab/measured.h):
 *          time_s = the median for the point's size and rank count.
 *
 * Ownership: the table is static and constant; results are plain values.
 */
#ifndef AR_LAB_BACKEND_H
#define AR_LAB_BACKEND_H

#include <stdint.h>

#include "core/platform/platform.h"
#include "core/schedule.h"
#include "core/status.h"
#include "sim/sim.h" /* types only: ar_sim_opts, ar_sim_result (no SimGrid header) */

/* Capabilities of a backend. */
enum {
    LAB_CAP_SWEEP = 1,         /* can evaluate sweep points (lab_backend.run) */
    LAB_CAP_NEEDS_SIMGRID = 2, /* built only with SimGrid */
    LAB_CAP_SIM_S = 4,         /* produces sim_s */
    LAB_CAP_MEASURED = 8,      /* imports measured_s from CSV files */
    LAB_CAP_NEEDS_GPU = 16,    /* runs on GPUs (CUDA/NCCL) */
};

/* SimGrid entry points (NULL in the table when this build has no SimGrid). */
typedef struct lab_sim_api {
    ar_status (*run)(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_sim_result *out, ar_err *e);
    void (*result_free)(ar_sim_result *r);
    ar_status (*network_parse)(const char *spec, char *buf, size_t n, ar_err *e);
    const char *(*network_help)(void);
    char *(*dlink_name)(const ar_platform *p, int d, char *buf, size_t n);
    double (*link_util)(const ar_platform *p, const ar_sim_result *r, int d);
    ar_status (*decide)(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_sim_mode *m, ar_err *e);
} lab_sim_api;

/* One imported measurement (lab/measured.h reads them). */
typedef struct lab_measure {
    char *algo, *platform;
    int ranks;
    double bytes, measured_s;
} lab_measure;

/* What a backend needs to time one point. */
typedef struct lab_point_in {
    const ar_platform *p;
    const ar_schedule *sch;
    const char *algo;       /* "name[:params]" */
    const char *plat_label; /* the sweep's label of the platform, may be NULL */
    double bytes;
    double walk_s;           /* the cost walk (lab/eval.h) */
    const char *sim_network; /* NULL = the alpha-beta-exact default */
    double sim_gamma_s_per_B, sim_budget_s;
    ar_sync sim_sync; /* --sync (sim/sim.h; ar_sim_decide decides what runs) */
    const lab_measure *measures;
    int nmeasures;
    /* what-if scenario events (core/scenario.h), NULL/0 = none: simulated under --sync dataflow */
    const double *rank_delay_s;
    const ar_bgflow *flows;
    int nflows;
} lab_point_in;

/* What it gives back (filled on top of the caller's NAN/"ok" defaults). */
typedef struct lab_point_out {
    double time_s, sim_s, measured_s;
    const char *status; /* "ok", "error", "missing" (static strings) */
    char message[AR_ERR_LEN + 64];
    char network[700]; /* what computed the time */
} lab_point_out;

typedef struct lab_backend {
    const char *name;
    const char *help;
    unsigned caps;
    int available;                                           /* compiled into this build */
    void (*run)(const lab_point_in *in, lab_point_out *out); /* NULL without LAB_CAP_SWEEP */
    const lab_sim_api *sim; /* the SimGrid entry points, "sim" only, NULL when not built */
} lab_backend;

/* The table (count in *n). */
const lab_backend *lab_backends(int *n);
/* The entry named name, or NULL. */
const lab_backend *lab_backend_find(const char *name);
/* What "auto" means in a sweep: sim when available, else model. */
const lab_backend *lab_backend_auto(void);
/* The SimGrid entry points, or NULL when this build has none. */
const lab_sim_api *lab_sim(void);
/* What this build holds, for `arlab --version`: one line naming the git commit
 * at configure time and, for each backend, whether it was built. */
void lab_build_info(char *buf, size_t n);
/* Whether the real/ host library (measured CSV formats of `arlab real`) is built. */
int lab_have_real_host(void);

/* Median of the measurements of one point (algorithm by spec or by name,
 * platform by name or label, ranks, bytes); NAN when none, count in *count. */
double lab_measure_find(const lab_measure *m, int nm, const char *algo, const char *plat_name, const char *label,
                        int ranks, double bytes, int *count);

#endif
