/* The sweep engine of the experiment library (arlab_lab), behind `arlab sweep`
 * (cli/cmd_sweep.c) and `arlab-sweep-mpi` (cli/mpi/sweep_mpi.c): expands a
 * sweep file (lab/sweep/sweep_spec.h) into grid points (lab/sweep/sweep.c), evaluates
 * points on a backend of the table (lab/sweep/sweep_eval.c, lab/backend.h, through
 * the one evaluation path lab/eval.h), and reads/writes the results CSV and
 * JSON (lab/sweep/sweep_io.c, schema in lab/schema.h) with resume and salvage of
 * interrupted runs (lab/sweep/sweep_parts.c).
 *
 * Grid order (the order of the output rows, whatever -j or the MPI rank count):
 * platform entry, then its rank counts, then backend, algorithm, size; each
 * point gives one row per training configuration (or one row when the sweep
 * has none).
 *
 * Rows are arrays of LAB_NCOLS strings; the columns are the table of
 * lab/schema.h (see experiments/README.md for their meaning).
 *
 * Ownership: sweep_open() fills a sweep_ctx that sweep_close() releases; rows
 * appended to a sweep_rows are owned by it (sweep_rows_free).
 */
#ifndef AR_LAB_SWEEP_H
#define AR_LAB_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "core/platform/platform.h"
#include "core/status.h"
#include "lab/backend.h"
#include "lab/measured.h"
#include "lab/schema.h"
#include "core/scenario.h"
#include "sweep_spec.h"

/* One grid point: indices into the sweep's arrays. */
typedef struct sweep_point {
    int plat;                   /* platform entry */
    int ranks;                  /* rank count passed to the loader (0 = the platform's own) */
    const lab_backend *backend; /* resolved (never NULL): an entry of lab/backend.h */
    int algo, size;
} sweep_point;

typedef struct sweep_ctx {
    ar_sweep *spec;      /* owned */
    char *file;          /* the sweep file path (owned) */
    char *dir;           /* its directory (owned) */
    char **plat_spec;    /* per platform entry: spec with file paths resolved (owned) */
    int *plat_is_family; /* per platform entry */
    int npoints;
    sweep_point *points;   /* grid order (owned) */
    int nkeys_per_point;   /* rows per point (= max(1, ntrain)) */
    lab_measures measures; /* imported real results (owned) */
    const char *commit;    /* provenance (static strings) */
    const char *version;
    /* cache: the platform of the last evaluated point */
    int cache_plat, cache_ranks;
    ar_platform *cache;
    char cache_hash[24];
    char **scen_file;        /* per platform entry: its scenario file resolved, or NULL (owned) */
    ar_scenario *cache_scen; /* the scenario applied to the cached platform, or NULL (owned) */
} sweep_ctx;

/* Reads and checks the sweep file, resolves relative paths against its
 * directory, loads each platform once to check it (errors name the JSON
 * path, e.g. "sweep.json: platforms[2]: ..."), checks each algorithm exists,
 * imports real-backend CSVs and enumerates the grid. */
ar_status sweep_open(const char *file, sweep_ctx *ctx, ar_err *e);
void sweep_close(sweep_ctx *ctx);

/* Key of the k-th row of point i (caller-owned buffer). Keys identify rows
 * across runs for resume: backend|platform|ranks|algo|elems|dtype|train; a platform entry with a
 * scenario appends "+scenario=FILE[@PATH=VALUE]" to its platform. */
void sweep_key(const sweep_ctx *ctx, int i, int k, char *buf, size_t n);

/* The platform of a point, loaded once and cached in ctx (with its hash in
 * ctx->cache_hash); owned by ctx. */
ar_status sweep_platform(sweep_ctx *ctx, const sweep_point *pt, ar_platform **out, ar_err *e);

/* Evaluates point i, appending its rows (one per training configuration) to
 * out. A point that fails (unsupported algorithm, simulation error, missing
 * measurement) still gives rows, with status and message set; only an
 * internal failure (allocation) returns non-OK. */
ar_status sweep_eval(sweep_ctx *ctx, int i, sweep_rows *out, ar_err *e);

/* --- files ------------------------------------------------------------- */

/* Reads the rows of an existing results CSV, columns by name (lab/schema.h:
 * columns the file lacks read as "", unknown ones are ignored; a header
 * without "key" and "status" is AR_EINVAL naming the file). A missing file
 * gives 0 rows. */
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
/* Resume is honest: a row counts as done only if it was computed by this arlab version, on the
 * platform as it is now (its platform_hash: the file's bytes, or the family spec and ranks) and, for
 * the sim backend, under the same network configuration; other points are run again. nstale counts
 * the points re-run for each reason: [0] version, [1] platform, [2] network. */
int *sweep_todo(sweep_ctx *ctx, const sweep_rows *old, int *ntodo, int nstale[3], ar_err *e);

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

/* Takes DIR/.NAME.lock (flock, exclusive, not waiting) for the whole run and
 * writes this pid into it: a second run of the same sweep on the same
 * directory is refused (AR_EINVAL, naming the holder's pid) instead of
 * deleting the first one's part files; a directory arlab cannot write in is
 * found here, before any point runs (AR_EIO). A lock file whose holder is gone
 * (killed, so no flock) is taken over. The lock lasts until sweep_unlock or
 * the process ends (the descriptor is close-on-exec; workers inherit and keep
 * it harmlessly). */
ar_status sweep_lock(const char *dir, const char *name, int *fd, ar_err *e);

/* Removes DIR/.NAME.lock and releases it (fd from sweep_lock; -1: nothing):
 * every run that ends, with or without an error, leaves no lock file behind
 * (on a signal the interrupt handler removes it: ar_interrupt_remove_file). */
void sweep_unlock(const char *dir, const char *name, int fd);

/* --- part files: rows of points as they finish (lab/sweep/sweep_parts.c) ------- */

/* Writes one part-file line "POINT<TAB>CSV" of a row (every column of the
 * schema in table order): the one serialisation of rows between processes.
 * Returns -1 when out of memory. */
int sweep_part_line(FILE *f, int point, const sweep_row *r);

/* Evaluates todo[k], todo[k+nj], ... appending "POINT<TAB>CSV" lines to the
 * open file f (flushed per point); calls tick() after each point. Returns
 * non-OK only on an internal failure (allocation, write). */
ar_status sweep_eval_to(sweep_ctx *ctx, const int *todo, int ntodo, int k, int nj, FILE *f, void (*tick)(void *arg),
                        void *arg, ar_err *e);

#define SWEEP_MAX_JOBS 256 /* worker processes of one run */

/* Evaluates the todo points with nj processes (nj = 1: in this process; at
 * most SWEEP_MAX_JOBS), appending their rows to fresh (fresh_of_point[i] = the first row
 * of point i). Rows also go to DIR/.NAME.part<PID>-<K> as points finish, so an
 * interrupted run is salvaged by the next; they are left for the caller to
 * remove once the results are written. progress(arg, n) is called as n more
 * points finish (may be NULL). */
ar_status sweep_run_points(sweep_ctx *ctx, const char *dir, const int *todo, int ntodo, int nj,
                           void (*progress)(void *arg, int done), void *arg, sweep_rows *fresh, int *fresh_of_point,
                           ar_err *e);

/* Reads a part file back into fresh rows (fresh_of_point set per index). */
ar_status sweep_read_part(const sweep_ctx *ctx, const char *path, sweep_rows *fresh, int *fresh_of_point, ar_err *e);

/* Rows an interrupted run left in DIR/.NAME.part* are appended to `old` (by
 * key, so a changed grid does no harm; later rows win). Returns the number
 * of rows salvaged, or -1 with e set. */
int sweep_salvage_parts(const sweep_ctx *ctx, const char *dir, sweep_rows *old, ar_err *e);
/* Calls row(fs, ctx) for every whole row of part file `path` (its LAB_NCOLS fields; row may take
 * a field by setting it to NULL), until row returns 0. Returns 1 when every row was read and
 * row never stopped it, 0 otherwise (a file that cannot be opened: 1, nothing read). */
int sweep_part_rows(const char *path, int (*row)(char **fs, void *ctx), void *ctx);

/* Removes DIR/.NAME.part* and the run note DIR/.NAME.run (after the results
 * are written). */
void sweep_remove_parts(const sweep_ctx *ctx, const char *dir);

/* --- a run's state in its directory (lab/sweep/sweep_state.c) ------------------ */

#define SWEEP_CMD_MAX 2048

/* Writes DIR/.NAME.run, the run note: the working directory, the command
 * ("arlab sweep" and the verb's arguments argv, shell-quoted) and the grid's
 * number of points, so that `arlab report` can say how to resume an
 * interrupted run. Best effort: a note that cannot be written is skipped. */
void sweep_note_run(const char *dir, const char *name, int argc, char **argv, int npoints);

/* 0 when no run holds DIR/.NAME.lock (a lock file left by a killed run, with
 * a dead pid, is removed); else the holder's pid (1 when it is unreadable). */
long sweep_lock_probe(const char *dir, const char *name);

/* A sweep in a directory that has not finished: part files without the
 * results that merge them, or a run holding the lock. */
typedef struct sweep_pending {
    char name[256];
    int nparts;                  /* DIR/.NAME.partPID-K files */
    char parts[1200];            /* the first few of their paths, ", "-separated */
    int done;                    /* finished points in them (kept on resume) */
    int total;                   /* the grid's points (run note); -1 unknown */
    long pid;                    /* > 0: a run holds the lock now */
    int has_results;             /* DIR/NAME.csv and NAME.json exist (an earlier run's) */
    char cwd[4096];              /* where the run was started (run note); "" unknown */
    char command[SWEEP_CMD_MAX]; /* how (run note); "" unknown */
} sweep_pending;

/* The unfinished sweeps in DIR (*out allocated, the caller frees); removes
 * stale lock files on the way (sweep_lock_probe). Returns how many. */
int sweep_pending_list(const char *dir, sweep_pending **out);

/* One line for p: what is left, and the command that resumes it (with a
 * "cd DIR &&" when it was started elsewhere), or that it is still running. */
void sweep_pending_text(const sweep_pending *p, const char *dir, char *buf, size_t n);

#endif
