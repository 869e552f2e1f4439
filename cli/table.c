/* Output tables: human (aligned), CSV and JSON from the same rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
}

void tbl_num(cli_table *t, int row, int col, const char *fmt, double v) {
    cli_cell *c = cell(t, row, col);
    if (!c) return;
    char buf[64];
    if (!isfinite(v)) snprintf(buf, sizeof buf, "nan");
    else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, fmt, v); /* fmt is always a literal at the call sites */
#pragma GCC diagnostic pop
    }
    free(c->s);
    c->s = ar_strdup(buf);
    c->numeric = isfinite(v);
}

void tbl_int(cli_table *t, int row, int col, long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    tbl_str(t, row, col, buf);
    cell(t, row, col)->numeric = 1;
}

void tbl_print(const cli_table *t, cli_format fmt, FILE *out) {
    const cli_cell *cells = t->cells;
#define C(r, c) \
    (cells[(size_t)(r) * (size_t)t->ncols + (size_t)(c)].s ? cells[(size_t)(r) * (size_t)t->ncols + (size_t)(c)].s : "")
    if (fmt == FMT_CSV) {
        for (int c = 0; c < t->ncols; c++) {
            if (c) fputc(',', out);
            ar_csv_field(out, t->cols[c]);
        }
        fputc('\n', out);
        for (int r = 0; r < t->nrows; r++) {
            for (int c = 0; c < t->ncols; c++) {
                if (c) fputc(',', out);
                ar_csv_field(out, C(r, c));
            }
            fputc('\n', out);
        }
    } else if (fmt == FMT_JSON) {
        fputs("[", out);
        for (int r = 0; r < t->nrows; r++) {
            fputs(r ? ",\n {" : "\n {", out);
            for (int c = 0; c < t->ncols; c++) {
                if (c) fputc(',', out);
                ar_json_string(out, t->cols[c]);
                fputc(':', out);
                const cli_cell *cl = &cells[(size_t)r * (size_t)t->ncols + (size_t)c];
                if (cl->numeric) fputs(cl->s, out);
                else ar_json_string(out, C(r, c));
            }
            fputc('}', out);
        }
        fputs("\n]\n", out);
    } else {
        int w[TBL_MAX_COLS];
        for (int c = 0; c < t->ncols; c++) {
            w[c] = (int)strlen(t->cols[c]);
            for (int r = 0; r < t->nrows; r++) {
                int l = (int)strlen(C(r, c));
                if (l > w[c]) w[c] = l;
            }
        }
        for (int c = 0; c < t->ncols; c++) fprintf(out, "%s%-*s", c ? "  " : "", w[c], t->cols[c]);
        fputc('\n', out);
        for (int r = 0; r < t->nrows; r++) {
            for (int c = 0; c < t->ncols; c++) {
                const cli_cell *cl = &cells[(size_t)r * (size_t)t->ncols + (size_t)c];
                if (cl->numeric) fprintf(out, "%s%*s", c ? "  " : "", w[c], C(r, c));
                else fprintf(out, "%s%-*s", c ? "  " : "", w[c], C(r, c));
            }
            fputc('\n', out);
        }
    }
#undef C
}

void tbl_free(cli_table *t) {
    for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++) free(t->cells[i].s);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
