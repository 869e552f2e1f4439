/* Sweep files: the grid an `arlab sweep FILE.json` run covers, and the
 * training-step model its rows can carry. Pure parsing and arithmetic: nothing
 * here reads files, loads platforms or plans algorithms (the sweep engine in lab/sweep/sweep*.c does, naming
 * the same JSON paths), so the parser can be fuzzed on its own.
 *
 * The format (experiments/README.md has the full description):
 *   {
 *     "name": "bc-fig5",                  required, [A-Za-z0-9._-], names the outputs
 *     "title": "...", "paper": "...", "description": "...",   optional text
 *     "backend": "auto" | "model" | "sim" | "real" | [several],  default "auto"
 *                                         (auto = sim when built in, else model)
 *     "platforms": ["bc-intel-2x4", "tree:fanouts=4x2", "file.json",
 *                   {"spec": "fat-tree", "ranks": [64, 128], "label": "FT", "exclude": ["treepack"]},
 *                   {"spec": "flat:ranks=4", "scenario": "late.json",
 *                    "vary": {"stragglers[0].delay": ["0ms", "1ms"]}}],   (one entry per value)
 *     "ranks": [8, 16],                   rank counts for generated families
 *     "algos": ["ring", "blueconnect:decomp=4x2",
 *               {"algo": "flexreduce", "params": {"k": "v"}, "label": "FR"}],
 *     "sizes": ["120K", "100MB", 4096,
 *               {"from": "1M", "to": "200M", "steps": 8, "scale": "linear"|"log"}],
 *     "dtype": "f32",
 *     "baseline": "ring",                 an algos[] spec: rows get base_s, vs_base, saving
 *     "train": {"label": "fp32", "compute": "163ms", "batch": 32, "overlap": false,
 *               "overlap_fraction": 0.67, "compute_div": 1, "comm_div": 1}  (or an array),
 *     "sim": {"network": "...", "gamma": 0, "budget": "60s"},
 *     "real": {"csv": ["../out/real/NAME.csv"]},  (glob patterns allowed)
 *     "figures": [{"id": "bc-fig5", "script": "plots/bc-fig5.gp", "title": "...", "caption": "..."}],
 *     "report": {"claims": [{"what": T, "paper": T, "arlab": T, "why": T,
 *                            "choose": {"NAME": {"CASE": T}}}]}   the report's narrative
 *                                         (lab/report/sweep_report.c; T = template, lab/report/report_tmpl.h)
 *   }
 * Keys starting with '_' are comments. Unknown or repeated keys are refused.
 * Errors read "WHERE: JSON.PATH: what is wrong", e.g.
 *   sweep.json: sizes[2]: "12XB" is not a size (...)
 *
 * Ownership: sweep_from_json allocates *out; sweep_free releases it and
 * everything reachable from it (all strings are copies, never cJSON's).
 */
#ifndef AR_LAB_SWEEP_SPEC_H
#define AR_LAB_SWEEP_SPEC_H

#include <stdint.h>
#include "core/platform/platform.h" /* AR_MAX_RANKS */
#include "core/status.h"
#include "core/units.h"
#include "lab/backend.h"

#define AR_SWEEP_MAX_AXIS 4096      /* entries per axis (after expanding ranges) */
#define AR_SWEEP_MAX_POINTS 1000000 /* grid points in one sweep */
#define AR_SWEEP_NAME_MAX 64

/* A backend is an entry of the table in lab/backend.h; NULL stands for "auto"
 * (sim when built in, else model; the runner resolves it). */
const char *sweep_backend_name(const lab_backend *b); /* "auto" for NULL */

typedef struct ar_sweep_platform {
    char *spec;  /* preset name, file path (as written) or family spec */
    char *label; /* name in outputs and legends; NULL = the platform's own name */
    int nranks;  /* own rank list (generated families), 0 = use the sweep's */
    int *ranks;
    int nexclude; /* algorithm names (before ':') not run on this platform */
    char **exclude;
    /* what-if: "scenario": FILE.json (relative to the sweep file), applied to the platform
     * and run by the backend; "vary": {"stragglers[0].delay": [v1, v2, ...]} expands the entry into
     * one entry per value, with scen_set/scen_value set (the value as JSON text) */
    char *scenario;
    char *scen_set;
    char *scen_value;
} ar_sweep_platform;

typedef struct sweep_algo {
    char *spec;  /* "name[:key=value,...]" as ar_algo_plan takes it */
    char *label; /* legend name; NULL = the registry's label */
} sweep_algo;

typedef struct sweep_size {
    char *text;     /* as written, or the generated value in elements */
    uint64_t elems; /* >= 1 */
} sweep_size;

/* Training-step model (BlueConnect Sec. 4.2): one iteration computes for
 * compute_s / compute_div, then all-reduces the gradients (the point's size)
 * in comm_s = allreduce_s / comm_div. With overlap, communication may run
 * during the backward pass, the last overlap_fraction of the compute:
 *   iter_s = compute + max(0, comm - overlap_fraction * compute)
 * and without it iter_s = compute + comm. images/s = batch * P / iter_s;
 * scaling efficiency = (batch * P / iter_s) / (P * batch / compute) =
 * compute / iter_s; speedup = P * efficiency (against one GPU, no all-reduce). */
typedef struct sweep_train_config {
    char *label;             /* e.g. "fp32", "fp16" (never NULL) */
    double compute_s;        /* single-GPU time per iteration before compute_div */
    int batch;               /* samples per GPU per iteration */
    int overlap;             /* 0/1 */
    double overlap_fraction; /* in (0, 1], default 2/3 */
    double compute_div;      /* > 0, default 1 (FP16 projection: 4.8) */
    double comm_div;         /* > 0, default 1 (FP16 projection: 2) */
} sweep_train_config;

typedef struct sweep_train_result {
    double compute_s, comm_s, iter_s;
    double overhead_s;  /* iter_s - compute_s: BlueConnect Fig. 6(a)'s "communication overhead" */
    double images_s;    /* all GPUs together */
    double speedup;     /* vs one GPU */
    double scaling_eff; /* speedup / P */
} sweep_train_result;

/* Evaluates the training model for P ranks and an all-reduce time (s). */
sweep_train_result sweep_train_eval(const sweep_train_config *t, int P, double allreduce_s);

typedef struct sweep_figure {
    char *id;      /* output image stem, e.g. "bc-fig5" */
    char *script;  /* gnuplot script path relative to the repository, may be NULL */
    char *title;   /* may be NULL */
    char *caption; /* may be NULL */
} sweep_figure;

typedef struct ar_sweep {
    char *name;
    char *title, *paper, *description; /* may be NULL */
    int nbackends;
    const lab_backend *backends[4]; /* as written; NULL = auto (resolved by the runner) */
    int nplatforms;
    ar_sweep_platform *platforms;
    int nranks;
    int *ranks; /* sweep-level rank list, may be empty */
    int nalgos;
    sweep_algo *algos;
    int nsizes;
    sweep_size *sizes;
    ar_dtype dtype;
    int baseline; /* index into algos, -1 = none */
    int ntrain;
    sweep_train_config *train; /* may be empty */
    char *sim_network;         /* NULL = the backend's default (alpha-beta exact) */
    double sim_gamma_s_per_B;  /* >= 0 */
    double sim_budget_s;       /* 0 = no limit */
    ar_sync sim_sync;          /* sim.sync: "dataflow" (the default) or "round" (lockstep) */
    int nreal_csv;
    char **real_csv; /* paths or glob patterns, relative to the sweep file */
    int nfigures;
    sweep_figure *figures;
    char *report; /* the validated "report" object as compact JSON, may be NULL */
} ar_sweep;

/* Parses a sweep document (text NUL-terminated). `where` names it in errors. */
ar_status sweep_from_json(const char *text, const char *where, ar_sweep **out, ar_err *e);
void sweep_free(ar_sweep *s);

/* 64-bit FNV-1a of n bytes, continuing from h (start with AR_FNV1A_INIT). */
#define AR_FNV1A_INIT UINT64_C(0xcbf29ce484222325)
uint64_t sweep_fnv1a64(uint64_t h, const void *data, size_t n);

#endif
