/* Column tables of the verbs' rows (lab/simrow.h: arlab sim; lab/modelrow.h: arlab model): a row is a
 * struct, a column names one of its fields (by offset) with its type, printf format and meaning. The
 * verb's table, CSV and JSON, `arlab help columns` and the docs' column lists all derive from the
 * table, and columns are found by name, never by a hand-kept position. */
#ifndef AR_LAB_ROWS_H
#define AR_LAB_ROWS_H

#include <stddef.h>

#include "schema.h" /* lab_coltype */

typedef struct lab_rowcol {
    const char *name;
    lab_coltype type; /* LAB_TEXT, LAB_INT (long long) or LAB_NUM (double) */
    const char *fmt;  /* numbers' printf format; NULL: the verb's time format (--digits) */
    size_t off;       /* of the field in the row */
    int inline_text;  /* LAB_TEXT held in the row (a char array), not pointed to */
    int key;          /* set on every row; the others only on a row that was priced */
    const char *help;
} lab_rowcol;

#define LAB_ROW_TXT(T, f) LAB_TEXT, NULL, offsetof(T, f), 0
#define LAB_ROW_ARR(T, f) LAB_TEXT, NULL, offsetof(T, f), 1
#define LAB_ROW_INT(T, f) LAB_INT, "%lld", offsetof(T, f), 0
#define LAB_ROW_NUM(T, fmt, f) LAB_NUM, fmt, offsetof(T, f), 0
#define LAB_ROW_TIME(T, f) LAB_NUM, NULL, offsetof(T, f), 0

/* Index of the column named name in cols (n entries), or -1. */
int lab_rowcol_find(const lab_rowcol *cols, int n, const char *name);

/* The field of column c in row (by the column's type). */
static inline const char *lab_row_text(const void *row, const lab_rowcol *c) {
    const char *at = (const char *)row + c->off;
    return c->inline_text ? at : *(const char *const *)(const void *)at;
}
static inline long long lab_row_int(const void *row, const lab_rowcol *c) {
    return *(const long long *)(const void *)((const char *)row + c->off);
}
static inline double lab_row_num(const void *row, const lab_rowcol *c) {
    return *(const double *)(const void *)((const char *)row + c->off);
}

#endif
