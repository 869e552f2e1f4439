/* The sweep engine behind `arlab sweep` (cli/cmd_sweep.c) and
 * `arlab-sweep-mpi` (cli/mpi/sweep_mpi.c): expands a sweep file
 * (core/sweep_spec.h) into grid points, evaluates points on a backend, and
 * reads/writes the results CSV and JSON. It uses nothing of the cli's option
 * parser or tables, so the MPI driver can compile it alone.
 *
 * Grid order (the order of the output rows, whatever -j or the MPI rank count):
 * platform entry, then its rank counts, then backend, algorithm, size; each
 * point gives one row per training configuration (or one row when the sweep
 * has none).
 *
 * Rows are arrays of SW_NCOLS strings; columns are listed in sweep_cols (see
 * experiments/README.md for their meaning). Free-text columns come last, so
 * plotting tools that split on ',' see every number before any quoted field.
 *
 * Ownership: sweep_open() fills a sweep_ctx that sweep_close() releases; rows
 * appended to a sweep_rows are owned by it (sweep_rows_free).
 */
#ifndef AR_CLI_SWEEP_H
#define AR_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "core/platform.h"
#include "core/status.h"
#include "core/sweep_spec.h"

enum sweep_col {
    SC_SWEEP, SC_BACKEND, SC_PLATFORM, SC_RANKS, SC_MACHINES, SC_ALGO, SC_LABEL, SC_DTYPE, SC_ELEMS, SC_BYTES,
    SC_TIME, SC_MODEL, SC_CLOSED, SC_WALK, SC_SIM, SC_MEASURED, SC_REL_DIFF, SC_BASE, SC_VS_BASE, SC_SAVING,
    SC_CALLS_MAX, SC_CALLS_AVG,
    SC_CALLS_BOUND, SC_TRAIN, SC_COMPUTE, SC_COMM, SC_ITER, SC_OVERHEAD, SC_IMAGES, SC_SPEEDUP, SC_EFF,
    SC_STATUS, SC_CAUSE, SC_PLATFORM_HASH, SC_VERSION, SC_COMMIT, SC_PLATFORM_SRC, SC_NETWORK, SC_DETAIL,
    SC_MESSAGE, SC_KEY,
    SW_NCOLS
};
extern const char *const sweep_cols[SW_NCOLS];
/* 1 if the column holds a number (JSON output writes it unquoted unless "nan"). */
int sweep_col_numeric(int col);

typedef struct sweep_row {
    char *f[SW_NCOLS]; /* owned; never NULL once the row is complete */
} sweep_row;

typedef struct sweep_rows {
    int n, cap;
    sweep_row *r;
} sweep_rows;
void sweep_rows_free(sweep_rows *rs);

/* One grid point: indices into the sweep's arrays. */
typedef struct sweep_point {
    int plat;       /* platform entry */
    int ranks;      /* rank count passed to the loader (0 = the platform's own) */
    ar_backend backend; /* resolved: model, sim or real */
    int algo, size;
} sweep_point;

/* A measurement imported for the real backend. */
typedef struct sweep_measure {
    char *algo, *platform;
    int ranks;
    double bytes, measured_s;
} sweep_measure;

typedef struct sweep_ctx {
    ar_sweep *spec;            /* owned */
    char *file;                /* the sweep file path (owned) */
    char *dir;                 /* its directory (owned) */
    char **plat_spec;          /* per platform entry: spec with file paths resolved (owned) */
    int *plat_is_family;       /* per platform entry */
    int npoints;
    sweep_point *points;       /* grid order (owned) */
    int nkeys_per_point;       /* rows per point (= max(1, ntrain)) */
    int nmeasures;
    sweep_measure *measures;   /* imported real results (owned) */
    const char *commit;        /* provenance (static strings) */
    const char *version;
    /* cache: the platform of the last evaluated point */
    int cache_plat, cache_ranks;
    ar_platform *cache;
    char cache_hash[24];
} sweep_ctx;

/* Reads and checks the sweep file, resolves relative paths against its
 * directory, loads each platform once to check it (errors name the JSON
 * path, e.g. "sweep.json: platforms[2]: ..."), checks each algorithm exists,
 * imports real-backend CSVs and enumerates the grid. */
ar_status sweep_open(const char *file, sweep_ctx *ctx, ar_err *e);
void sweep_close(sweep_ctx *ctx);

/* Whether this build has the SimGrid backend. */
int sweep_have_sim(void);

/* Key of the k-th row of point i (caller-owned buffer). Keys identify rows
 * across runs for resume: backend|platform|ranks|algo|elems|dtype|train. */
void sweep_key(const sweep_ctx *ctx, int i, int k, char *buf, size_t n);

/* Evaluates point i, appending its rows (one per training configuration) to
 * out. A point that fails (unsupported algorithm, simulation error, missing
 * measurement) still gives rows, with status and message set; only an
 * internal failure (allocation) returns non-OK. */
ar_status sweep_eval(sweep_ctx *ctx, int i, sweep_rows *out, ar_err *e);

/* --- files ------------------------------------------------------------- */

/* One CSV line (no newline) of a row; fields quoted where needed. Returns a
 * malloc'd string (caller frees) or NULL on allocation failure. */
char *sweep_row_csv(const sweep_row *r);

/* Splits one CSV line into at most max fields (caller frees each and the
 * array). Handles "quoted, fields" and "" escapes. Returns the count or -1. */
int sweep_csv_split(const char *line, char ***fields, int max);

/* Reads the rows of an existing results CSV (header must match sweep_cols;
 * otherwise AR_EINVAL naming the file). A missing file gives 0 rows. */
ar_status sweep_read_csv(const char *path, sweep_rows *out, ar_err *e);

/* Status values with which a row counts as done (resume skips its point):
 * "ok" and "unsupported". "missing" (no measurement yet) and "error" rows
 * are evaluated again. */
int sweep_row_done(const sweep_row *r);

/* Worker output: one line "POINT<TAB>CSV" per row, a point's rows
 * consecutive. Appends the row to fresh and sets fresh_of_point[POINT] to
 * its first row (*prev: the last point seen, start with -1). Modifies line. */
ar_status sweep_add_tagged(const sweep_ctx *ctx, char *line, sweep_rows *fresh, int *fresh_of_point, int *prev,
                           ar_err *e);

/* Points of the grid not done in `old` (all of their rows present with a
 * done status), in grid order: a malloc'd array (caller frees) of *ntodo
 * point indices, or NULL on allocation failure. */
int *sweep_todo(const sweep_ctx *ctx, const sweep_rows *old, int *ntodo, ar_err *e);

/* Writes rows (in the given order) as CSV and as JSON to <dir>/<name>.csv and
 * .json, atomically (temp file + rename). The JSON is an object with the
 * sweep's description, its figures and "rows": [...]. */
ar_status sweep_write(const sweep_ctx *ctx, const char *dir, const sweep_rows *rows, ar_err *e);

/* Orders the final rows: for every point in grid order, its rows from `fresh`
 * (index -> rows evaluated now) or else from `old` (by key); then the old
 * rows whose keys are not in this grid, in their old order. Moves strings
 * out of fresh/old into out. fresh_of_point[i] is the first index in fresh
 * of point i's rows or -1; each point has ctx->nkeys_per_point rows. */
ar_status sweep_merge(const sweep_ctx *ctx, const int *fresh_of_point, sweep_rows *fresh, sweep_rows *old,
                      sweep_rows *out, ar_err *e);

/* Fills base_s, vs_base (base_s / time_s) and saving (1 - time_s / base_s)
 * of every row from the row of the sweep's baseline algorithm with the same
 * sweep, backend, platform, ranks, elems, dtype and train (nothing without a
 * baseline). Run on the final rows, so resumed rows are filled alike. */
ar_status sweep_fill_baseline(const sweep_ctx *ctx, sweep_rows *rows, ar_err *e);

/* Creates a directory and its parents (like mkdir -p). */
ar_status sweep_mkdirs(const char *dir, ar_err *e);

#endif
