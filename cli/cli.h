/* The arlab command: shared options, output tables, and one function per verb.
 * Each verb lives in cli/cmd_<verb>.c and is listed once in cli/main.c. */
#ifndef AR_CLI_H
#define AR_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "core/algo.h"
#include "core/platform/platform.h"
#include "core/scenario.h"
#include "core/status.h"
#include "core/units.h"

#define CLI_MAX_LIST 64

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } cli_format;

/* Options shared by verbs. Lists come from repeated flags or comma lists (--algo ring,blueconnect:decomp=4x2,
 * impl=ring+hd: a comma followed by a bare key=value continues the spec before it; cli/opts.c push_specs),
 * and sizes also from nccl-tests' -b MIN -e MAX -f FACTOR | -i INCREMENT. */
typedef struct cli_opts {
    const char *platforms[CLI_MAX_LIST];
    int nplatforms;
    const char *algos[CLI_MAX_LIST]; /* "all" expands to the registry */
    int nalgos;
    const char *sizes[CLI_MAX_LIST];
    int nsizes;
    int ranks; /* --ranks N for generated families, 0 = default */
    ar_dtype dtype;
    ar_coll coll; /* --coll (default allreduce) */
    cli_format format;
    int check;            /* --check */
    const char *trace;    /* --trace FILE */
    const char *out;      /* --out FILE */
    const char *network;  /* --network MODEL (sim) */
    double gamma_s_per_B; /* --gamma (sim) */
    double budget_s;      /* --budget (sim wall-clock limit) */
    const char *scenario; /* --scenario FILE.json (core/scenario.h; model, sim, best) */
    int nccl_version;     /* --nccl-version (models/nccl_model.h ar_nccl_version_parse; 0 = the newest modelled) */
    int nccl_tuner_only;  /* --nccl-model: 0 arlab (the tuner's time plus arlab's additions), 1 tuner */
    int iters, warmup;    /* real */
    const char *positional[CLI_MAX_LIST];
    int npositional;
    char schedule_specs[CLI_MAX_LIST][280]; /* --schedule FILE -> "schedule:file=FILE" (listed in algos) */
    char size_store[CLI_MAX_LIST][24];      /* sizes made by -b/-e/-f/-i (nccl-tests' range), in bytes */
    int nschedules;
} cli_opts;

/* Flags a verb accepts, as a bitmask. */
enum {
    OPT_PLATFORM = 1 << 0,
    OPT_ALGO = 1 << 1,
    OPT_SIZE = 1 << 2,
    OPT_RANKS = 1 << 3,
    OPT_DTYPE = 1 << 4,
    OPT_FORMAT = 1 << 5,
    OPT_CHECK = 1 << 6,
    OPT_TRACE = 1 << 7,
    OPT_OUT = 1 << 8,
    OPT_NETWORK = 1 << 9,
    OPT_GAMMA = 1 << 10,
    OPT_BUDGET = 1 << 11,
    OPT_ITERS = 1 << 12,
    OPT_POSITIONAL = 1 << 13,
    OPT_COLL = 1 << 14,
    OPT_SCENARIO = 1 << 15
};

/* Parses argv (after the verb). Prints one line to stderr and returns non-OK on error. */
ar_status cli_parse(int argc, char **argv, unsigned allowed, cli_opts *o, const char *verb);

/* Fills names with the algorithms to run (expanding "all"); returns count. */
int cli_algo_list(const cli_opts *o, const char **names, int max);

/* Loads platform i of the options, or prints the error. With --scenario, the scenario's slow,
 * failed links and failed ranks are applied to it (ar_scenario_apply). */
ar_status cli_load_platform(const cli_opts *o, int i, ar_platform **out);
/* The --scenario file (NULL without one), or prints the error. Free with ar_scenario_free. */
ar_status cli_load_scenario(const cli_opts *o, ar_scenario **out);

/* Parses size i into elements; prints the error. */
ar_status cli_size(const cli_opts *o, int i, uint64_t *elems);

/* What a verb does before it prints anything, so that bad input never leaves a header or half
 * a table behind: parses the first nc sizes into counts, loads every platform into plats
 * (o->nplatforms entries), and checks that every algorithm spec names a registered algorithm
 * whose parameters bind on every platform and that every user schedule plans on every platform
 * at every size. On a problem: one line (cli_error), every platform freed (plats all NULL), its
 * status. */
ar_status cli_preflight(const cli_opts *o, const char *const *algos, int na, ar_platform **plats, uint64_t *counts,
                        int nc);

/* 1 when argv[*i] is this verb's own `--format nccl-tests` (or `--format=nccl-tests`), which the
 * shared parser (table|csv|json) does not know; *i then points at its last word. */
int cli_format_nccltests(int argc, char **argv, int *i);

/* One footer line under a human table for the algorithms that do not apply to platform plat:
 * "not applicable on PLAT: a, b (reason); c (reason)", the reasons without the algorithm's and
 * the platform's names or the closing hint, algorithms with the same reason together. n = 0:
 * nothing. */
void cli_print_na(FILE *out, const char *plat, const char *const *algos, const char *const *whys, int n);

/* Prints "arlab: <msg>" to stderr and returns st. */
ar_status cli_error(ar_status st, const ar_err *e);

/* --- output tables ------------------------------------------------------ */
#define TBL_MAX_COLS 64
typedef struct cli_cell {
    char *s;     /* text (owned); "" in a numeric cell = missing (CSV empty, JSON null, table "-") */
    int numeric; /* emitted unquoted in JSON */
    int has_v;   /* v holds the number of a tbl_num cell: CSV and JSON print it with %.17g */
    double v;
    int unit; /* a tbl_unit for this cell only (a key/value table's value column), 0 = the column's */
} cli_cell;

/* How the human table prints a column's numbers (CSV and JSON always print %.17g). TBL_UNIT_AUTO:
 * from the column's name, the naming convention of every verb's columns: "*_s" a time in seconds,
 * "bytes" / "*_bytes" a size in bytes, "*_GBps" a bandwidth in GB/s (1e9 B/s), each printed with an
 * SI prefix ("290.3 µs", "100 MB", "128 MiB", "313.6 GB/s"); "rel_*", "*_err", "*_diff" a relative
 * difference (TBL_UNIT_REL); any other name: the cell's own format. */
typedef enum {
    TBL_UNIT_AUTO,
    TBL_UNIT_NONE,  /* the tbl_num format */
    TBL_UNIT_TIME,  /* seconds: ps .. s */
    TBL_UNIT_BYTES, /* bytes: exact KB/MB/GB or KiB/MiB/GiB when the size is a whole multiple, else B .. PB */
    TBL_UNIT_GBPS,  /* GB/s: B/s .. PB/s */
    TBL_UNIT_REL,   /* a relative difference: percent, one decimal, signed ("+22.0%") */
    TBL_UNIT_RATIO  /* a ratio: three decimals ("0.791") */
} tbl_unit;

typedef struct cli_table {
    int ncols;
    const char *cols[TBL_MAX_COLS];
    tbl_unit unit[TBL_MAX_COLS]; /* TBL_UNIT_AUTO after tbl_init; tbl_set_unit changes one */
    int digits;                  /* significant digits of the times (0: 4; sizes, bandwidths: 4) */
    int nrows, cap;
    cli_cell *cells; /* nrows * ncols */
    int streamed;    /* rows written by tbl_stream_row so far */
} cli_table;

void tbl_init(cli_table *t, int ncols, const char *const *cols);
int tbl_row(cli_table *t); /* appends an empty row, returns its index (-1 on OOM) */
void tbl_str(cli_table *t, int row, int col, const char *s);
void tbl_num(cli_table *t, int row, int col, const char *fmt, double v);
void tbl_int(cli_table *t, int row, int col, long long v);
void tbl_set_unit(cli_table *t, int col, tbl_unit u);
void tbl_set_cell_unit(cli_table *t, int row, int col, tbl_unit u); /* one cell's, over its column's */
/* Copies a cell of another table (its text and number) into row, col. */
void tbl_copy_cell(cli_table *t, int row, int col, const cli_cell *from);
/* dst = the columns named keep (nk, at most 64) of src's rows, in that order; with only_col, only the rows
 * whose only_col cell is only_val. dst is initialised here (tbl_free it). */
void tbl_select(cli_table *dst, const cli_table *src, const char *const *keep, int nk, const char *only_col,
                const char *only_val);
/* Appends a row of a lab/rows.h column table (n columns, in table order): numbers in their column's
 * format (tfmt for times), texts where set; where the row was not priced, only its key columns are
 * set and every other number is empty. Returns the row or -1. */
struct lab_rowcol;
int tbl_put_row(cli_table *t, const struct lab_rowcol *cols, int n, const void *row, int priced, const char *tfmt);
void tbl_print(const cli_table *t, cli_format f, FILE *out);
void tbl_free(cli_table *t);
/* Streaming (csv, json): the header (CSV) or "[" (JSON), then each row as it is
 * made (flushed), then the end ("]" for JSON: the whole is one valid array). */
void tbl_stream_begin(cli_table *t, cli_format f, FILE *out);
void tbl_stream_row(cli_table *t, int row, cli_format f, FILE *out);
void tbl_stream_end(cli_table *t, cli_format f, FILE *out);
/* The human table fits a terminal only: when stdout is one, its columns (TIOCGWINSZ, else $COLUMNS,
 * else 100); a pipe or a file gets every cell whole (0 = no limit). Cut cells end in "~", and a column
 * is never cut so far that two of its different values would print the same. */
int cli_term_width(void);

/* Prints VERB's help (cli/help.c); 0 if VERB has no entry there (sim prints its own). */
int cli_help(const char *verb);
/* Prints VERB's help rows without the closing line (sim adds its network models); 0 if VERB has none. */
int cli_help_body(const char *verb);
/* `arlab help columns sweep|sim|model`: a column table (lab/schema.c, simrow.c, modelrow.c) in Markdown. */
int cli_help_columns(const char *which);
/* `arlab help --man`: the man page (roff), its VERBS section from usage (cli/helpgen.c). */
int cli_help_man(void (*usage)(FILE *));
/* `arlab help --completion bash`: the bash completion script (cli/helpgen.c). */
int cli_help_completion(const char *shell);

/* --- verbs ------------------------------------------------------------- */
int cmd_platforms(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_algos(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_best(int argc, char **argv);  /* decomposition search (cli/cmd_best.c) */
int cmd_sim(int argc, char **argv);   /* SimGrid backend (cli/cmd_sim.c) */
int cmd_trees(int argc, char **argv); /* spanning-tree packing (cli/cmd_trees.c) */
int cmd_real(int argc, char **argv);  /* CUDA/NCCL backend (cli/cmd_real.c) */
int cmd_calibrate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fit(int argc, char **argv);       /* fit to nccl-tests output (cli/cmd_fit.c); also calibrate --from */
int cmd_best_emit(int argc, char **argv); /* best --emit nccl-tuner FILE (cli/cmd_tuner.c) */
int cmd_sweep(int argc, char **argv);     /* sweeps (cli/cmd_sweep.c) */
int cmd_report(int argc, char **argv);    /* report (cli/cmd_report.c) */
int cmd_testbed(int argc, char **argv);   /* emulated cluster + MPI backend (cli/cmd_testbed.c) */

/* `--format nccl-tests` (model, sim): the ok rows of t as nccl-tests documents, one per platform
 * and algorithm, time_col ("model_s", "sim_s") as both halves' time (cli/ntpredict.c). */
void cli_print_nccltests(const cli_table *t, const char *time_col, const char *verb, const cli_opts *o);

#endif
