/* Output tables: human (aligned), CSV and JSON from the same rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "core/textio.h"

void tbl_init(cli_table *t, int ncols, const char *const *cols) {
    memset(t, 0, sizeof *t);
    t->ncols = ncols < TBL_MAX_COLS ? ncols : TBL_MAX_COLS;
    for (int i = 0; i < t->ncols; i++) t->cols[i] = cols[i];
}

int tbl_row(cli_table *t) {
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        cli_cell *nc = ar_reallocarray(t->cells, (size_t)cap * (size_t)t->ncols, sizeof *nc);
        if (!nc) return -1;
        t->cells = nc;
        t->cap = cap;
    }
    memset(t->cells + (size_t)t->nrows * (size_t)t->ncols, 0, (size_t)t->ncols * sizeof(cli_cell));
    return t->nrows++;
}

static cli_cell *cell(cli_table *t, int row, int col) {
    return row >= 0 && col >= 0 && col < t->ncols ? &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col] : NULL;
}

void tbl_str(cli_table *t, int row, int col, const char *s) {
    cli_cell *c = cell(t, row, col);
    if (!c) return;
    free(c->s);
    c->s = ar_strdup(s ? s : "");
    c->numeric = 0;
    c->has_v = 0;
}

void tbl_num(cli_table *t, int row, int col, const char *fmt, double v) {
    cli_cell *c = cell(t, row, col);
    if (!c) return;
    char buf[64] = ""; /* missing (not finite): empty */
    if (isfinite(v)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, fmt, v); /* fmt is always a literal at the call sites */
#pragma GCC diagnostic pop
    }
    free(c->s);
    c->s = ar_strdup(buf);
    c->numeric = 1;
    c->has_v = isfinite(v);
    c->v = v;
}

void tbl_int(cli_table *t, int row, int col, long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    tbl_str(t, row, col, buf);
    cell(t, row, col)->numeric = 1;
}

/* --- machine formats: one row at a time ------------------------------------------ */

static const char *text_of(const cli_cell *cl) { return cl->s ? cl->s : ""; }

static void csv_header(const cli_table *t, FILE *out) {
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', out);
        ar_csv_field(out, t->cols[c]);
    }
    fputc('\n', out);
}

static void csv_row(const cli_table *t, int r, FILE *out) {
    for (int c = 0; c < t->ncols; c++) {
        const cli_cell *cl = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
        if (c) fputc(',', out);
        if (cl->has_v) fprintf(out, "%.17g", cl->v); /* full precision */
        else ar_csv_field(out, text_of(cl));
    }
    fputc('\n', out);
}

static void json_row(const cli_table *t, int r, int first, FILE *out) {
    fputs(first ? "\n {" : ",\n {", out);
    for (int c = 0; c < t->ncols; c++) {
        const cli_cell *cl = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
        if (c) fputc(',', out);
        ar_json_string(out, t->cols[c]);
        fputc(':', out);
        if (cl->has_v) fprintf(out, "%.17g", cl->v);
        else if (cl->numeric) fputs(text_of(cl)[0] ? text_of(cl) : "null", out); /* missing: null */
        else ar_json_string(out, text_of(cl));
    }
    fputc('}', out);
}

void tbl_stream_begin(cli_table *t, cli_format fmt, FILE *out) {
    t->streamed = 0;
    if (fmt == FMT_CSV) csv_header(t, out);
    else if (fmt == FMT_JSON) fputs("[", out);
    fflush(out);
}

void tbl_stream_row(cli_table *t, int row, cli_format fmt, FILE *out) {
    if (row < 0 || row >= t->nrows) return;
    if (fmt == FMT_CSV) csv_row(t, row, out);
    else if (fmt == FMT_JSON) json_row(t, row, t->streamed == 0, out);
    t->streamed++;
    fflush(out);
}

void tbl_stream_end(cli_table *t, cli_format fmt, FILE *out) {
    (void)t;
    if (fmt == FMT_JSON) fputs("\n]\n", out);
    fflush(out);
}

/* --- the human table ----------------------------------------------------------------- */

int cli_term_width(void) {
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    return v >= 20 && v <= 10000 ? (int)v : 100;
}

/* Prints s in w columns (left- or right-aligned); longer text ends in "~". */
static void put_cell(FILE *out, const char *s, int w, int right, int sep) {
    int l = (int)strlen(s);
    if (sep) fputs("  ", out);
    if (l <= w) fprintf(out, right ? "%*s" : "%-*s", w, s);
    else fprintf(out, "%.*s~", w > 1 ? w - 1 : 0, s);
}

static void print_human(const cli_table *t, FILE *out) {
    int w[TBL_MAX_COLS], text[TBL_MAX_COLS];
    int total = 0;
    for (int c = 0; c < t->ncols; c++) {
        w[c] = (int)strlen(t->cols[c]);
        text[c] = 0;
        for (int r = 0; r < t->nrows; r++) {
            const cli_cell *cl = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
            int l = cl->numeric && !text_of(cl)[0] ? 1 : (int)strlen(text_of(cl));
            if (l > w[c]) w[c] = l;
            if (!cl->numeric) text[c] = 1;
        }
        total += w[c] + (c ? 2 : 0);
    }
    /* fit the terminal: narrow the widest text column, one column at a time (not below 12) */
    int width = cli_term_width();
    while (total > width) {
        int widest = -1;
        for (int c = 0; c < t->ncols; c++)
            if (text[c] && w[c] > 12 && (widest < 0 || w[c] > w[widest])) widest = c;
        if (widest < 0) break;
        int cut = total - width, room = w[widest] - 12;
        if (cut > room) cut = room;
        w[widest] -= cut;
        total -= cut;
    }
    for (int c = 0; c < t->ncols; c++) put_cell(out, t->cols[c], w[c], 0, c > 0);
    fputc('\n', out);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const cli_cell *cl = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
            const char *v = cl->numeric && !text_of(cl)[0] ? "-" : text_of(cl);
            put_cell(out, v, w[c], cl->numeric, c > 0);
        }
        fputc('\n', out);
    }
}

void tbl_print(const cli_table *t, cli_format fmt, FILE *out) {
    if (fmt == FMT_CSV) {
        csv_header(t, out);
        for (int r = 0; r < t->nrows; r++) csv_row(t, r, out);
    } else if (fmt == FMT_JSON) {
        fputs("[", out);
        for (int r = 0; r < t->nrows; r++) json_row(t, r, r == 0, out);
        fputs("\n]\n", out);
    } else {
        print_human(t, out);
    }
}

void tbl_free(cli_table *t) {
    for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++) free(t->cells[i].s);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
