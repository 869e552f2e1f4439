/* The results schema of `arlab sweep` (and arlab-sweep-mpi): ONE column table
 * from which the CSV and JSON writers, the readers and the tests derive.
 * Columns are addressed by their enum (an index into lab_cols) or by name
 * (lab_col_find); never by a hand-kept position. Free-text columns come last,
 * so plotting tools that split on ',' see every number before a quoted field.
 *
 * Readers locate columns by NAME in the file's header: columns a file lacks
 * read as "", columns this arlab does not know are ignored, so results written
 * before a column was added still resume. The worker/part-file lines ("POINT
 * <TAB> CSV") are written and read by the same binary and hold every column in
 * table order.
 *
 * Ownership: rows own their strings (lab_rows_free).
 */
#ifndef AR_LAB_SCHEMA_H
#define AR_LAB_SCHEMA_H

#include <stdio.h>

#include "core/status.h"

enum sweep_col {
    SC_SWEEP,
    SC_BACKEND,
    SC_PLATFORM,
    SC_RANKS,
    SC_MACHINES,
    SC_ALGO,
    SC_LABEL,
    SC_DTYPE,
    SC_ELEMS,
    SC_BYTES,
    SC_TIME,
    SC_MODEL,
    SC_CLOSED,
    SC_WALK,
    SC_SIM,
    SC_MEASURED,
    SC_REL_DIFF,
    SC_BASE,
    SC_VS_BASE,
    SC_SAVING,
    SC_CALLS_MAX,
    SC_CALLS_AVG,
    SC_CALLS_BOUND,
    SC_TRAIN,
    SC_COMPUTE,
    SC_COMM,
    SC_ITER,
    SC_OVERHEAD,
    SC_IMAGES,
    SC_SPEEDUP,
    SC_EFF,
    SC_STATUS,
    SC_CAUSE,
    SC_PLATFORM_HASH,
    SC_VERSION,
    SC_COMMIT,
    SC_PLATFORM_SRC,
    SC_NETWORK,
    SC_DETAIL,
    SC_MESSAGE,
    SC_KEY,
    SC_ALGBW, /* nccl-tests' bandwidths of time_s and NCCL's own choice; after the key, so that */
    SC_BUSBW, /* readers of older results (which lack them) map every earlier column by name as before */
    SC_NCCL_MODEL,
    SC_NCCL_ALGO,
    SC_NCCL_PROTO,
    LAB_NCOLS
};

typedef enum lab_coltype {
    LAB_TEXT,  /* any text, quoted in CSV where needed */
    LAB_PLAIN, /* text that plots read: ',' -> ';', '"' -> '\'', controls -> ' ' */
    LAB_INT,   /* integer (format takes a long long) */
    LAB_NUM,   /* real number (format takes a double); empty when not finite */
} lab_coltype;

typedef struct lab_col {
    const char *name;
    lab_coltype type;
    const char *fmt; /* printf format of numbers, NULL for text */
    const char *help;
} lab_col;

extern const lab_col lab_cols[LAB_NCOLS];

/* Index of the column named name, or -1. */
int lab_col_find(const char *name);
/* 1 if the column holds a number (JSON writes it unquoted, or null). */
int sweep_col_numeric(int col);

typedef struct sweep_row {
    char *f[LAB_NCOLS]; /* owned; never NULL once the row is complete */
} sweep_row;

typedef struct sweep_rows {
    int n, cap;
    sweep_row *r;
} sweep_rows;
void sweep_rows_free(sweep_rows *rs);
/* Appends *r (moving its strings; *r is zeroed). */
ar_status sweep_rows_push(sweep_rows *rs, sweep_row *r, ar_err *e);
/* A new empty row at the end (all fields NULL), or NULL when out of memory. */
sweep_row *sweep_rows_add(sweep_rows *rs);

/* Setting fields through the table: lab_set copies v (a LAB_PLAIN column is
 * made plain), lab_set_num formats v with the column's format ("" when not
 * finite), lab_set_int formats an integer. A field stays NULL on allocation
 * failure (check every field once the row is complete). */
void lab_set(sweep_row *r, int col, const char *v);
void lab_set_num(sweep_row *r, int col, double v);
void lab_set_int(sweep_row *r, int col, long long v);

/* One CSV line (no newline) of a row, fields quoted where needed. Returns a
 * malloc'd string (caller frees) or NULL on allocation failure. */
char *sweep_row_csv(const sweep_row *r);
/* The header line (no newline). */
void lab_csv_header(FILE *f);
/* One JSON object of a row (numbers unquoted, null when not a number). */
void lab_json_row(FILE *f, const sweep_row *r);

/* Maps a header (nf field names) to the table: map[c] = the field index of
 * column c in the file, or -1. Returns the number of table columns found. */
int lab_header_map(char *const *fields, int nf, int map[LAB_NCOLS]);
/* Builds a row from a split line with a header map (moves the strings out of
 * fields; absent columns become ""). Returns AR_ENOMEM on allocation failure. */
ar_status lab_row_from_fields(char **fields, int nf, const int map[LAB_NCOLS], sweep_row *out, ar_err *e);

#endif
