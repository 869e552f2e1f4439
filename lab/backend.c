/* The backend table (backend.h): the one place that knows which backends this
 * build compiled in (AR_HAVE_SIM, AR_HAVE_REAL, AR_HAVE_REAL_HOST). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#define MODEL_NETWORK "model: cost walk (alpha-beta; lockstep rounds; equal link shares per round)"

#ifdef AR_HAVE_SIM
static const lab_sim_api sim_api = {
    .run = ar_sim_run,
    .result_free = ar_sim_result_free,
    .network_parse = ar_sim_network_parse,
    .network_help = ar_sim_network_help,
    .dlink_name = ar_sim_dlink_name,
    .link_util = ar_sim_link_util,
    .decide = ar_sim_decide,
};
#define SIM_API (&sim_api)
#define SIM_AVAILABLE 1
#else
#define SIM_API NULL
#define SIM_AVAILABLE 0
#endif

#ifdef AR_HAVE_REAL
#define NCCL_AVAILABLE 1
#else
#define NCCL_AVAILABLE 0
#endif

const lab_sim_api *lab_sim(void) { return SIM_API; }

int lab_have_real_host(void) {
#ifdef AR_HAVE_REAL_HOST
    return 1;
#else
    return 0;
#endif
}

/* Simulates the point; sets sim_s and network, or status "budget" (stopped by sim.budget) or
 * "error" and message. */
static void simulate(const lab_point_in *in, lab_point_out *out) {
    const lab_sim_api *sim = lab_sim();
    if (!sim) {
        out->status = "error";
        snprintf(out->message, sizeof out->message, "sim: this build has no SimGrid backend");
        return;
    }
    ar_err e = {{0}};
    ar_sim_opts so;
    memset(&so, 0, sizeof so);
    so.network = in->sim_network; /* NULL = CM02 configured as the alpha-beta models assume */
    so.gamma_s_per_B = in->sim_gamma_s_per_B;
    so.budget_s = in->sim_budget_s;
    so.sync = in->sim_sync;
    so.rank_delay_s = in->rank_delay_s; /* scenario events (ar_sim_decide: dataflow only) */
    so.flows = in->flows;
    so.nflows = in->nflows;
    ar_sim_result res;
    memset(&res, 0, sizeof res);
    ar_status st = sim->run(in->p, in->sch, &so, &res, &e);
    if (st == AR_OK && res.complete) {
        out->sim_s = res.time_s;
        snprintf(out->network, sizeof out->network, "sim (%s engine, %s): %s", res.engine, res.sync, res.network);
    } else if (st == AR_OK) { /* a point of its own status: not an error, not retried on resume */
        out->status = "budget";
        if (isfinite(res.time_s))
            snprintf(out->message, sizeof out->message, "sim: stopped by sim.budget after %.3g s of simulated time",
                     res.time_s);
        else
            snprintf(out->message, sizeof out->message,
                     "sim: stopped by sim.budget inside SimGrid (no simulated time)");
    } else {
        out->status = "error";
        snprintf(out->message, sizeof out->message, "sim: %s", e.msg);
    }
    sim->result_free(&res);
}

static void run_model(const lab_point_in *in, lab_point_out *out) {
    snprintf(out->network, sizeof out->network, MODEL_NETWORK);
    out->time_s = in->walk_s;
}

static void run_sim(const lab_point_in *in, lab_point_out *out) {
    snprintf(out->network, sizeof out->network, MODEL_NETWORK);
    simulate(in, out);
    out->time_s = out->sim_s;
}

static void run_real(const lab_point_in *in, lab_point_out *out) {
    snprintf(out->network, sizeof out->network, MODEL_NETWORK);
    int nmeas = 0;
    out->measured_s = lab_measure_find(in->measures, in->nmeasures, in->algo, in->p->name, in->plat_label,
                                       in->p->nranks, in->bytes, &nmeas);
    /* real rows get the simulated time next to the measurement, when there is one */
    if (nmeas && lab_sim()) simulate(in, out);
    out->time_s = out->measured_s;
    if (!nmeas && !strcmp(out->status, "ok")) {
        out->status = "missing";
        snprintf(out->message, sizeof out->message, "no measurement in real.csv for this point");
    } else if (nmeas) {
        size_t l = strlen(out->network);
        snprintf(out->network + l, sizeof out->network - l, "; real: median of %d imported measurement%s", nmeas,
                 nmeas == 1 ? "" : "s");
    }
}

/* NCCL's own all-reduce as nccl-tests measured it (rows "nccl-allreduce" of lab/measured.h) */
static void run_measured(const lab_point_in *in, lab_point_out *out) {
    snprintf(out->network, sizeof out->network, "measured: nccl-tests (NCCL's own all-reduce)");
    int nmeas = 0;
    out->measured_s = lab_measure_find(in->measures, in->nmeasures, "nccl-allreduce", in->p->name, in->plat_label,
                                       in->p->nranks, in->bytes, &nmeas);
    out->time_s = out->measured_s;
    if (!nmeas && !strcmp(out->status, "ok")) {
        out->status = "missing";
        snprintf(out->message, sizeof out->message, "no nccl-tests measurement for this size and rank count");
    }
}

static const lab_backend table[] = {
    {.name = "model",
     .help = "the cost walk of the schedule (alpha-beta, lockstep rounds)",
     .caps = LAB_CAP_SWEEP,
     .available = 1,
     .run = run_model},
    {.name = "sim",
     .help = "SimGrid flow-level simulation of the schedule",
     .caps = LAB_CAP_SWEEP | LAB_CAP_NEEDS_SIMGRID | LAB_CAP_SIM_S,
     .available = SIM_AVAILABLE,
     .run = run_sim,
     .sim = SIM_API},
    {.name = "real",
     .help = "measured times imported from CSV files (real.csv), with the simulated time beside them",
     .caps = LAB_CAP_SWEEP | LAB_CAP_MEASURED | LAB_CAP_SIM_S,
     .available = 1,
     .run = run_real},
    {.name = "nccl",
     .help = "the schedule run on GPUs with NCCL ('arlab real'); its CSV comes back through 'real'",
     .caps = LAB_CAP_NEEDS_GPU,
     .available = NCCL_AVAILABLE},
    {.name = "measured",
     .help = "NCCL's all-reduce measured by nccl-tests (files in real.csv): the time of the point's size and ranks",
     .caps = LAB_CAP_SWEEP | LAB_CAP_MEASURED,
     .available = 1,
     .run = run_measured},
};

const lab_backend *lab_backends(int *n) {
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}

const lab_backend *lab_backend_find(const char *name) {
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name)) return &table[i];
    return NULL;
}

#ifndef AR_GIT_COMMIT
#define AR_GIT_COMMIT "unknown"
#endif
#if defined(AR_HAVE_MPI_BACKEND)
#define MPI_BUILT "built"
#elif !defined(AR_HAVE_REAL_HOST) /* arlab-mpi links the real/ host library */
#define MPI_BUILT "not built (configured with ARLAB_REAL=OFF)"
#else
#define MPI_BUILT "not built (no Open MPI at configure time)"
#endif

void lab_build_info(char *buf, size_t n) {
    size_t at = (size_t)snprintf(buf, n, "commit %s; backends:", AR_GIT_COMMIT);
    for (size_t i = 0; i < sizeof table / sizeof table[0] && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s %s (%s)", i ? "," : "", table[i].name,
                               table[i].available ? "built" : "not built");
    if (at < n) at += (size_t)snprintf(buf + at, n - at, ", mpi/testbed (arlab-mpi %s)", MPI_BUILT);
#ifdef AR_HAVE_SIM
    if (at < n) snprintf(buf + at, n - at, "\nsim: %s", ar_sim_simgrid_info());
#endif
}

const lab_backend *lab_backend_auto(void) { return lab_backend_find(SIM_AVAILABLE ? "sim" : "model"); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double lab_measure_find(const lab_measure *ms, int nm, const char *algo, const char *plat_name, const char *label,
                        int ranks, double bytes, int *count) {
    double v[64];
    int n = 0;
    size_t alen = strcspn(algo, ":");
    for (int i = 0; i < nm && n < 64; i++) {
        const lab_measure *m = &ms[i];
        int algo_ok = !strcmp(m->algo, algo) || (strlen(m->algo) == alen && !strncmp(m->algo, algo, alen));
        int plat_ok = !m->platform[0] || !strcmp(m->platform, plat_name) || (label && !strcmp(m->platform, label));
        if (algo_ok && plat_ok && m->ranks == ranks && m->bytes == bytes) v[n++] = m->measured_s;
    }
    *count = n;
    if (!n) return NAN;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
