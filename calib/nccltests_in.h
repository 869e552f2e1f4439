/* Reading nccl-tests output: the text table every *_perf binary of
 * NVIDIA/nccl-tests prints, and its JSON report (`-J file.json`, JSON_FILE_VERSION
 * 1-3). Host-only C, no CUDA. Several files (and several runs per file, e.g. a log
 * of all_reduce_perf followed by all_gather_perf) go into one ar_nt_set.
 *
 * Units are nccl-tests': size in bytes, count in elements, time in microseconds
 * (per iteration, mean over the timed iterations), algbw and busbw in GB/s with
 * 1 GB = 1e9 bytes.
 *
 * Text format, as nccl-tests prints it (src/util.cu / older src/common.cu):
 *   # nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703   (newer)
 *   # Collective test starting: all_reduce_perf                          (newer)
 *   # nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...
 *   # Using devices
 *   #  Rank  0 Group  0 Pid  1234 on   host-a device  0 [0000:07:00] NVIDIA H100 80GB HBM3
 *   (older: "#   Rank  0 Pid  1234 on host-a device  0 [0x07] Tesla V100-SXM2-32GB")
 *   host-a:1234:1234 [0] NCCL INFO NCCL version 2.18.3+cuda12.2          (NCCL_DEBUG=INFO or VERSION)
 *   host-a:1234:1240 [0] NCCL INFO NCCL_ALGO set by environment to Ring  (NCCL_DEBUG=INFO)
 *   # NCCL_ALGO=Ring                (also read: a comment, or a bare K=V line outside the table)
 *   #                                                              out-of-place                       in-place
 *   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
 *   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
 *            8             2     float     sum      -1    10.25    0.00    0.00      0    10.10    0.00    0.00      0
 *   # Out of bounds values : 0 OK
 *   # Avg bus bandwidth    : 12.3456
 *   # Collective test concluded: all_reduce_perf                         (newer)
 * Versions (NVIDIA/nccl-tests history of src/common.cu, now src/util.cu): "#wrong" replaced "error"
 * in v2.13.0, "Group" entered the device lines in v2.13.4, "# Collective test starting:" came with
 * v2.16.7 and "# nccl-tests version" with 2.17/2.18 builds; most published logs have neither.
 * Copies are read as they are pasted: lines with their '#' stripped or indented
 * (documentation, issues, markdown code blocks: a header or footer line is known by
 * its first words), and line prefixes of launchers removed first: mpirun
 * --tag-output "[1,0]<stdout>:", Ray/SkyPilot "(head, rank=0, pid=3808)", srun
 * --label "0: ". After the rows, a line that is not a row (a markdown fence, prose)
 * ends the table; without opts->allow_nofooter a table without its footer is
 * refused as truncated.
 * The table is read by its column header: "time" or "cputime"; "#wrong", or the
 * older "error" (nccl-tests before 2.13: the largest relative error, read into maxerr,
 * not a count: nwrong is -1); the per-iteration columns (i_min i_max i_p99 i_cv%) and a
 * trailing "timestamp" (two tokens) are accepted and skipped; "N/A" in #wrong
 * (validation off) reads as -1. A row whose out-of-place half is blank (trace
 * replay) has oop.present = 0. Between the table's rows, NCCL log lines
 * ("... NCCL INFO ...", "NCCL WARN", "NCCL version") and mpirun lines starting
 * with '[' are skipped; anything else there is an error.
 *
 * JSON format (nccl-tests src/util.cu, checked against its source): one object
 * {"version", "start_time", "args": [argv...], "env": ["K=V"...], "nccl_version":
 * <int code>, "config": {"nthreads", "ngpus", "minimum_bytes", "maximum_bytes",
 * "step_factor"|"step_bytes", "warmup_iters", "iterations", ..., "devices": [{"rank",
 * "group", "pid", "hostname", "device", "device_hex", "device_info"}]}, "results":
 * [{"size", "count", "type", "redop", "root" (a string, "%6i"), "out_of_place":
 * {"time"|"cpu_time", "alg_bw", "bus_bw", "nwrong" (number or null)} or null,
 * "in_place": {...}, "actual_iterations", "experiment_name", per-iteration
 * objects (ignored)}], "out_of_bounds": {"count", "okay"}, "average_bus_bandwidth"
 * (version 1: "average_bus_bandwidith") {"bandwidth" ("bandwidith"), "okay"},
 * "errors": [...], "end_time"}. Doubles NaN are written as the string "nan".
 * The collective comes from args[0]'s base name (all_reduce_perf...); NCCL_ALGO
 * and NCCL_PROTO from "env". JSON records have line 0; they are named by
 * "results[i]" in messages.
 *
 * Metadata per run: the collective (from "# Collective test starting:", the JSON
 * args, a "*_perf" command line echoed before the run, the caller's hint, else the
 * table: a root tells broadcast/reduce, busbw/algbw = 2(n-1)/n all_reduce and
 * (n-1)/n reduce_scatter; run->coll_from says which), ranks (device lines that number
 * 0..n-1, else NCCL's "nRanks N", else the n whose bus factor reproduces busbw from
 * algbw, else the caller's hint; a device list cut short with "..." or showing fewer
 * ranks than the numbers say is not taken; run->nranks_from says which), nodes
 * (NCCL's "nNodes N" when logged, else distinct host names of the device lines),
 * the NCCL version (NCCL's "NCCL version X" line, else the "nccl-library=" code of
 * the nccl-tests header / JSON "nccl_version"), algorithm and protocol when forced
 * by NCCL_ALGO / NCCL_PROTO, devices.
 *
 * Errors name the file, the line (or JSON path) and the field, e.g.
 *   x.txt:37: field "time": "abc" is not a number
 * A file that ends inside the table (no "# Avg bus bandwidth" footer, or a row cut
 * mid-line) is refused as truncated unless opts->allow_truncated, which keeps the
 * complete rows and marks the run complete = 0. Rows with #wrong > 0 are kept and
 * flagged; ar_nt_check_fit refuses them, naming the line; ar_nt_drop_wrong takes
 * them out (compare and fit do, with one warning line).
 *
 * Ownership: ar_nt_read_* allocate the set; the caller frees it with ar_nt_free.
 * Records, runs and strings inside belong to the set. No global state.
 */
#ifndef AR_NCCLTESTS_IN_H
#define AR_NCCLTESTS_IN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"

/* The nccl-tests binaries (<name>_perf). */
typedef enum ar_nt_coll {
    AR_NT_COLL_UNKNOWN = 0,
    AR_NT_ALL_REDUCE,
    AR_NT_ALL_GATHER,
    AR_NT_REDUCE_SCATTER,
    AR_NT_BROADCAST,
    AR_NT_REDUCE,
    AR_NT_ALLTOALL,
    AR_NT_ALLTOALLV,
    AR_NT_GATHER,
    AR_NT_SCATTER,
    AR_NT_SENDRECV,
    AR_NT_HYPERCUBE,
    AR_NT_NCOLL
} ar_nt_coll;

/* "all_reduce", ... ("unknown" for AR_NT_COLL_UNKNOWN). */
const char *ar_nt_coll_name(ar_nt_coll c);
/* Accepts "all_reduce", "all_reduce_perf", "allreduce", a path such as
 * "./build/all_reduce_perf_mpi" (base name), case-insensitively. Returns
 * AR_NT_COLL_UNKNOWN when nothing matches. */
ar_nt_coll ar_nt_coll_parse(const char *s);

/* One half of a row (out-of-place or in-place). */
typedef struct ar_nt_timing {
    int present;       /* 0 when the row has no such half (blank, JSON null) */
    double time_us;    /* "time" (or "cputime" when run->cputime) in us; NaN if printed "nan" */
    double algbw_GBps; /* 1e9 B/s */
    double busbw_GBps;
    double nwrong; /* wrong elements; -1 when "N/A" / null (validation off) or not printed */
    double maxerr; /* the old "error" column (nccl-tests before 2.13): the largest relative numerical
                      error of the results, not a count of wrong elements; NaN when not printed */
} ar_nt_timing;

/* Record flags. */
enum {
    AR_NT_WRONG_OOP = 1, /* out-of-place #wrong > 0 */
    AR_NT_WRONG_IP = 2,  /* in-place #wrong > 0 */
    AR_NT_NAN = 4        /* a time or bandwidth is NaN or infinite */
};

/* One row of a table (one size). */
typedef struct ar_nt_record {
    int file;  /* index into set->files */
    int run;   /* index into set->runs */
    int line;  /* 1-based line of the row; 0 in a JSON file */
    int index; /* 0-based row number within its run (JSON: results[index]) */
    uint64_t size_bytes;
    uint64_t count; /* elements */
    char type[16];  /* "float", "half", "bfloat16", "int32", ... */
    char redop[16]; /* "sum", "none", ... */
    long root;      /* -1 when the collective has no root */
    ar_nt_timing oop, ip;
    int flags; /* AR_NT_WRONG_OOP | AR_NT_WRONG_IP | AR_NT_NAN */
} ar_nt_record;

/* One "#  Rank ..." line (or JSON config.devices entry). */
typedef struct ar_nt_device {
    int rank, group, pid, device; /* group -1 when the line has none (old nccl-tests) */
    char host[64];
    char bus[32];  /* "0000:07:00", "0x07" */
    char name[96]; /* "NVIDIA H100 80GB HBM3" */
} ar_nt_device;

/* One benchmark run (one *_perf invocation) of one file. */
typedef struct ar_nt_run {
    int file;                /* index into set->files */
    int first_line;          /* first line that belongs to it (1 for JSON) */
    ar_nt_coll coll;         /* from the file, else the caller's hint, else UNKNOWN */
    char program[64];        /* "all_reduce_perf" when the file names it, else "" */
    int nranks;              /* 0 when unknown */
    int nnodes;              /* 0 when unknown */
    int nthreads, ngpus;     /* "# nThread N nGpus G" (0 when absent) */
    int warmup_iters, iters; /* 0 when absent */
    int validation;          /* -1 when absent */
    uint64_t min_bytes, max_bytes;
    char nccl_version[32];     /* "2.18.3" (or "2.18.3+cuda12.2" as NCCL printed it); "" unknown */
    char tests_version[32];    /* nccl-tests' own version, "" unknown */
    char algo[64];             /* forced by NCCL_ALGO, as given ("Ring", "allreduce:tree"); "" when not */
    char proto[64];            /* forced by NCCL_PROTO; "" when not */
    char arlab_algo[96];       /* written by arlab (`arlab real`/arlab-mpi --format nccl-tests: a "# arlab real: algo
                               NAME" or "# arlab-mpi: algo NAME" line before the run): the algorithm that ran, e.g.
                               "ring", "nccl-allreduce", "mpi-allreduce"; "" in nccl-tests' own files */
    int cputime;               /* the time columns are "cputime" (nccl-tests -C 1) */
    int coll_from;             /* where coll came from: AR_NT_FROM_* */
    int nranks_from;           /* where nranks came from: AR_NT_FROM_* */
    int ndev_shown;            /* device lines printed (a list cut short with "..." shows fewer than nranks) */
    int dev_cut;               /* the device list was cut short ("..." among the device lines) */
    int footer;                /* the "# Avg bus bandwidth" footer was read */
    double busbw_ratio;        /* busbw / algbw of the row with the largest algbw (0: none usable) */
    int algo_hint, proto_hint; /* algo / proto came from the caller's opts (--nccl-algo, --nccl-proto) */
    int format_json;           /* read from a JSON report */
    int ndevices;
    ar_nt_device *devices;
    double avg_busbw_GBps; /* "# Avg bus bandwidth"; NaN when absent */
    long oob_values;       /* "# Out of bounds values"; -1 when absent */
    int nerrors;           /* JSON "errors" entries */
    int complete;          /* 1 when the footer was read; 0 only with allow_truncated */
    int first_rec, nrecs;  /* its rows: set->recs[first_rec .. first_rec + nrecs) */
} ar_nt_run;

/* Where a run's collective and rank count came from. */
enum {
    AR_NT_FROM_NONE = 0, /* unknown */
    AR_NT_FROM_FILE,     /* named by the file: "# Collective test starting", the JSON args, device lines */
    AR_NT_FROM_COMMAND,  /* a *_perf command line echoed in the file (coll) */
    AR_NT_FROM_NCCL_LOG, /* NCCL's "nRanks N" log line (nranks) */
    AR_NT_FROM_COLUMNS,  /* the table itself: redop/root and busbw/algbw = nccl-tests' factor */
    AR_NT_FROM_OPTION    /* the caller's hint (--coll, --ranks) */
};

typedef struct ar_nt_set {
    int nfiles;
    char **files; /* paths (or names given to ar_nt_read_mem) */
    int nruns;
    ar_nt_run *runs;
    int nrecs;
    ar_nt_record *recs;                   /* in file order, rows in printed order */
    size_t cap_files, cap_runs, cap_recs; /* private */
} ar_nt_set;

typedef struct ar_nt_opts {
    ar_nt_coll coll;     /* hint for files that do not name their collective (0: none);
                          * a file naming a different one is an error */
    int allow_truncated; /* keep the complete rows of a truncated file instead of failing */
    int coll_soft;       /* coll only fills in runs that do not name theirs (no error for a file that names
                          * another; the caller keeps the runs it wants with ar_nt_keep_coll) */
    int allow_nofooter;  /* accept a table whose rows are whole but whose footer is missing (a log pasted
                          * without its last lines); run->footer = 0 says so */
    int ranks;           /* rank count for runs whose file does not give it (0: none) */
    const char *algo;    /* NCCL_ALGO for runs whose file does not name one (NULL: none) */
    const char *proto;   /* NCCL_PROTO likewise */
} ar_nt_opts;

/* Files over this size are refused (AR_ELIMIT). */
#define AR_NT_MAX_FILE_BYTES ((size_t)256 << 20)

/* Reads one file (text or JSON, told apart by its first non-blank byte '{').
 * opts may be NULL. On success *out is a new set (caller frees with ar_nt_free);
 * on failure *out is NULL and e names file, line/path and field. */
ar_status ar_nt_read_file(const char *path, const ar_nt_opts *opts, ar_nt_set **out, ar_err *e);

/* Reads n files into one set (records keep their file index). Fails on the first
 * bad file. */
ar_status ar_nt_read_files(const char *const *paths, int n, const ar_nt_opts *opts, ar_nt_set **out, ar_err *e);

/* Parses text[0..len) (NUL bytes are refused) named name in messages. */
ar_status ar_nt_read_mem(const char *name, const char *text, size_t len, const ar_nt_opts *opts, ar_nt_set **out,
                         ar_err *e);

void ar_nt_free(ar_nt_set *s);

/* Removes the halves whose #wrong > 0 (wrong results) and the rows left with no half; runs keep their
 * other rows. Returns the number of rows that had a wrong half. */
int ar_nt_drop_wrong(ar_nt_set *s);

/* Keeps only the runs of collective c (and their rows); returns the number of runs left. */
int ar_nt_keep_coll(ar_nt_set *s, ar_nt_coll c);

/* One line per run whose collective or rank count was not named by the file (taken from a command
 * line, the table's columns, or an option), written to f prefixed with "arlab VERB: ", e.g.
 *   arlab fit: x.txt:3: collective all_reduce assumed from the table (redop sum, no root, busbw/algbw
 *   1.750 = 2(n-1)/n for 8 ranks); --coll sets it
 * Returns the number of lines written. */
int ar_nt_print_assumed(const ar_nt_set *s, const char *verb, FILE *f);

/* Halves for ar_nt_check_fit. */
enum { AR_NT_HALF_OOP = 1, AR_NT_HALF_IP = 2, AR_NT_HALF_BOTH = 3 };

/* Checks that every record of s can be used to fit a model, on the halves asked
 * for: the run's collective is known, the half is there (for HALF_OOP/HALF_IP:
 * one of them at least), its time is finite and > 0, and its #wrong is 0 or N/A.
 * Returns AR_OK, or AR_EFAIL (wrong results) / AR_EINVAL (unusable value or
 * unknown collective) with a message naming file and line (or results[i]) of the
 * first offending row. An empty set is AR_EINVAL. */
ar_status ar_nt_check_fit(const ar_nt_set *s, int halves, ar_err *e);

/* Writes "file:line" (text) or "file: results[i]" (JSON) for r into buf. */
char *ar_nt_where(const ar_nt_set *s, const ar_nt_record *r, char *buf, size_t n);

/* nccl-tests' bus-bandwidth factor for coll on n ranks (busbw = algbw * factor):
 * all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall(v), gather, scatter
 * (n-1)/n; broadcast, reduce, sendrecv 1; hypercube (n-1)/n. 0 when unknown or
 * n < 1. */
double ar_nt_busbw_factor(ar_nt_coll coll, int n);

/* --- The reference corpus (experiments/reference/published.csv) ---------------
 * One CSV with a header line naming the columns (any order; extra columns
 * ignored): system, preset, collective, ranks, nodes, size_bytes, busbw_GBps,
 * algbw_GBps, algorithm, nccl_version, kind ("measured" or "stated": a maintainer's
 * expected figure), source, note. Empty numbers read as 0
 * (unknown) for ranks/nodes/size_bytes and NaN for algbw_GBps; busbw_GBps is
 * required; collective defaults to all_reduce. Lines starting with '#' and blank lines are skipped. */
typedef struct ar_nt_ref {
    int line; /* 1-based line in the CSV */
    char system[64], preset[32], algorithm[32], nccl_version[32], kind[16], source[96], note[256];
    ar_nt_coll coll;
    int ranks, nodes;    /* 0 unknown */
    uint64_t size_bytes; /* 0 unknown */
    double busbw_GBps;
    double algbw_GBps; /* NaN unknown */
} ar_nt_ref;

/* Reads the corpus; *out (caller frees with free()) gets *n entries. */
ar_status ar_nt_read_reference(const char *path, ar_nt_ref **out, int *n, ar_err *e);
/* The same on text[0..len) named path in messages (NUL bytes refused). */
ar_status ar_nt_read_reference_mem(const char *path, const char *text, size_t len, ar_nt_ref **out, int *n, ar_err *e);

#endif
