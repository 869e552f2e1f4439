/* Output tables: human (aligned), CSV and JSON from the same rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "core/textio.h"
#include "lab/rows.h"

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

void tbl_copy_cell(cli_table *t, int row, int col, const cli_cell *from) {
    cli_cell *c = cell(t, row, col);
    if (!c || !from) return;
    free(c->s);
    c->s = ar_strdup(from->s ? from->s : "");
    c->numeric = from->numeric;
    c->has_v = from->has_v;
    c->v = from->v;
    c->unit = from->unit;
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
    if (!isatty(STDOUT_FILENO)) return 0; /* a pipe or a file: whole cells, as git, ls and kubectl */
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    return v >= 20 && v <= 10000 ? (int)v : 100;
}

void tbl_set_unit(cli_table *t, int col, tbl_unit u) {
    if (col >= 0 && col < t->ncols) t->unit[col] = u;
}

void tbl_set_cell_unit(cli_table *t, int row, int col, tbl_unit u) {
    cli_cell *c = row < t->nrows ? cell(t, row, col) : NULL;
    if (c) c->unit = (int)u;
}

static int ends_with(const char *s, const char *tail) {
    size_t ls = strlen(s), lt = strlen(tail);
    return ls >= lt && !strcmp(s + ls - lt, tail);
}

static tbl_unit unit_of(const cli_table *t, int c) {
    if (t->unit[c] != TBL_UNIT_AUTO) return t->unit[c];
    const char *n = t->cols[c];
    if (ends_with(n, "_s")) return TBL_UNIT_TIME;
    if (!strcmp(n, "bytes") || ends_with(n, "_bytes")) return TBL_UNIT_BYTES;
    if (ends_with(n, "_GBps")) return TBL_UNIT_GBPS;
    if (!strncmp(n, "rel_", 4) || ends_with(n, "_err") || ends_with(n, "_diff")) return TBL_UNIT_REL;
    return TBL_UNIT_NONE;
}

/* v scaled by 1000 into [1, 1000) over units (first = the unit of v), `digits` significant digits. */
static void fmt_si(char *buf, size_t n, double v, const char *const *units, int nunits, int first, int digits) {
    if (v == 0) {
        snprintf(buf, n, "0 %s", units[first]);
        return;
    }
    double a = fabs(v);
    int u = first;
    while (u + 1 < nunits && a >= 1000) a /= 1000, u++;
    while (u > 0 && a < 1) a *= 1000, u--;
    char num[48];
    snprintf(num, sizeof num, "%.*g", digits, a);
    if (strtod(num, NULL) >= 1000 && u + 1 < nunits) { /* rounded up to 1000: the next unit */
        a /= 1000;
        u++;
        snprintf(num, sizeof num, "%.*g", digits, a);
    }
    if (strchr(num, 'e')) snprintf(num, sizeof num, "%.0f", a); /* beyond the largest unit: no exponent */
    snprintf(buf, n, "%s%s %s", v < 0 ? "-" : "", num, units[u]);
}

/* Bytes: a whole multiple of 1000^k or 1024^k prints exactly ("100 MB", "128 MiB"); else SI. */
static void fmt_bytes(char *buf, size_t n, double v, int digits) {
    static const char *const si[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (v >= 1 && v < 9e15 && v == floor(v)) {
        unsigned long long x = (unsigned long long)v, d = x, b = x;
        int kd = 0, kb = 0;
        while (kd < 5 && d % 1000 == 0) d /= 1000, kd++;
        while (kb < 5 && b % 1024 == 0) b /= 1024, kb++;
        if (kd && d < 1000 && kd >= kb) {
            snprintf(buf, n, "%llu %s", d, si[kd]);
            return;
        }
        if (kb && b < 1024) {
            snprintf(buf, n, "%llu %s", b, bin[kb]);
            return;
        }
    }
    fmt_si(buf, n, v, si, 6, 0, digits);
}

/* The text a numeric cell shows in the human table: its column's unit, or its own format. */
static const char *human_num(const cli_table *t, int c, const cli_cell *cl, char *buf, size_t n) {
    static const char *const tu[] = {"ps", "ns", "µs", "ms", "s"};
    static const char *const ru[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    int digits = t->digits > 0 ? t->digits : 4; /* times; sizes and bandwidths: always 4 */
    if (!cl->has_v) return cl->s && cl->s[0] ? cl->s : "-";
    switch (cl->unit ? (tbl_unit)cl->unit : unit_of(t, c)) {
    case TBL_UNIT_TIME: fmt_si(buf, n, cl->v, tu, 5, 4, digits); break;
    case TBL_UNIT_BYTES: fmt_bytes(buf, n, cl->v, 4); break;
    case TBL_UNIT_GBPS: fmt_si(buf, n, cl->v * 1e9, ru, 6, 0, 4); break;
    case TBL_UNIT_REL: snprintf(buf, n, "%+.1f%%", 100 * cl->v); break;
    case TBL_UNIT_RATIO: snprintf(buf, n, "%.3f", cl->v); break;
    default: return cl->s ? cl->s : "";
    }
    return buf;
}

/* Display width of UTF-8 text (µ is one column, two bytes). */
static int text_width(const char *s) {
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Prints s in w columns (left- or right-aligned; the last column unpadded); longer text: its first
 * w - 1 columns and "~". */
static void put_cell(FILE *out, const char *s, int w, int right, int sep, int last) {
    int l = text_width(s);
    if (sep) fputs("  ", out);
    if (l <= w) {
        if (right) fprintf(out, "%*s", w - l, "");
        fputs(s, out);
        if (!right && !last) fprintf(out, "%*s", w - l, "");
        return;
    }
    int keep = w > 1 ? w - 1 : 0;
    const char *e = s; /* the end of the first `keep` characters */
    for (int k = 0; *e; e++)
        if (((unsigned char)*e & 0xC0) != 0x80 && k++ == keep) break;
    fwrite(s, 1, (size_t)(e - s), out);
    fputc('~', out);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The narrowest width at which column c's different texts still print differently when cut (a text
 * longer than w prints as its first w - 1 characters and "~"): the column that tells rows apart stays
 * readable. Sorted, the closest pair of texts is adjacent; a pair sharing a prefix of L characters
 * needs L + 2 columns, or room for the longer one whole. */
static int distinct_width(const char *const *txt, int n) {
    const char **v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return 1 << 20; /* never cut */
    memcpy(v, txt, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    int need = 1;
    for (int i = 1; i < n; i++) {
        if (!strcmp(v[i - 1], v[i])) continue;
        int L = 0;
        while (v[i - 1][L] && v[i - 1][L] == v[i][L]) L++;
        int la = text_width(v[i - 1]), lb = text_width(v[i]), lmax = la > lb ? la : lb;
        /* L counts bytes; in columns the prefix is no wider */
        int req = L + 2 < lmax ? L + 2 : lmax;
        if (req > need) need = req;
    }
    free(v);
    return need;
}

static void print_human(const cli_table *t, FILE *out) {
    int w[TBL_MAX_COLS], minw[TBL_MAX_COLS], text[TBL_MAX_COLS];
    int total = 0;
    size_t nr = (size_t)t->nrows, nc = (size_t)t->ncols;
    /* every cell's text first: numbers in their column's unit */
    char **cells = calloc(nr * nc + 1, sizeof *cells);
    if (!cells) return;
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            const cli_cell *cl = &t->cells[(size_t)r * nc + (size_t)c];
            char buf[64];
            const char *s = cl->numeric ? human_num(t, c, cl, buf, sizeof buf) : text_of(cl);
            if (cl->numeric && !s[0]) s = "-";
            cells[(size_t)r * nc + (size_t)c] = ar_strdup(s);
        }
    const char **col = malloc((nr + 1) * sizeof *col);
    int key = -1; /* the leftmost named text column names the row (algo, name, link): never cut */
    for (int c = 0; c < t->ncols; c++) {
        w[c] = text_width(t->cols[c]);
        text[c] = 0;
        for (int r = 0; r < t->nrows; r++) {
            const char *s = cells[(size_t)r * nc + (size_t)c] ? cells[(size_t)r * nc + (size_t)c] : "";
            int l = text_width(s);
            if (l > w[c]) w[c] = l;
            if (!t->cells[(size_t)r * nc + (size_t)c].numeric) text[c] = 1;
            if (col) col[r] = s;
        }
        minw[c] = w[c] < 12 ? w[c] : 12;
        if (text[c] && key < 0 && t->cols[c][0]) key = c; /* a marker column has no name */
        if (c == key) {
            minw[c] = w[c];
        } else if (text[c] && col) {
            int d = distinct_width(col, t->nrows);
            if (d > minw[c]) minw[c] = d < w[c] ? d : w[c];
        } else if (text[c]) {
            minw[c] = w[c];
        }
        total += w[c] + (c ? 2 : 0);
    }
    free(col);
    /* fit a terminal: narrow the widest text column that may still be cut, one column at a time */
    int width = cli_term_width();
    while (width > 0 && total > width) {
        int widest = -1;
        for (int c = 0; c < t->ncols; c++)
            if (text[c] && w[c] > minw[c] && (widest < 0 || w[c] > w[widest])) widest = c;
        if (widest < 0) break;
        int cut = total - width, room = w[widest] - minw[widest];
        if (cut > room) cut = room;
        w[widest] -= cut;
        total -= cut;
    }
    for (int c = 0; c < t->ncols; c++) put_cell(out, t->cols[c], w[c], 0, c > 0, c == t->ncols - 1);
    fputc('\n', out);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = cells[(size_t)r * nc + (size_t)c];
            put_cell(out, s ? s : "", w[c], t->cells[(size_t)r * nc + (size_t)c].numeric, c > 0, c == t->ncols - 1);
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < nr * nc; i++) free(cells[i]);
    free(cells);
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

int tbl_put_row(cli_table *t, const lab_rowcol *cols, int n, const void *row, int priced, const char *tfmt) {
    int r = tbl_row(t);
    if (r < 0) return r;
    for (int c = 0; c < n; c++) {
        const lab_rowcol *k = &cols[c];
        if (k->type == LAB_TEXT || k->type == LAB_PLAIN) {
            const char *v = k->inline_text && !priced && !k->key ? NULL : lab_row_text(row, k);
            if (v) tbl_str(t, r, c, v);
        } else if (!priced && !k->key) {
            tbl_num(t, r, c, "%g", NAN);
        } else if (k->type == LAB_INT) {
            tbl_int(t, r, c, lab_row_int(row, k));
        } else {
            tbl_num(t, r, c, k->fmt ? k->fmt : tfmt, lab_row_num(row, k));
        }
    }
    return r;
}

void tbl_select(cli_table *dst, const cli_table *src, const char *const *keep, int nk, const char *only_col,
                const char *only_val) {
    tbl_init(dst, nk, keep);
    dst->digits = src->digits;
    int from[64], only = -1;
    for (int k = 0; k < nk && k < 64; k++) {
        from[k] = -1;
        for (int c = 0; c < src->ncols; c++)
            if (!strcmp(src->cols[c], keep[k])) from[k] = c;
    }
    for (int c = 0; only_col && c < src->ncols; c++)
        if (!strcmp(src->cols[c], only_col)) only = c;
    for (int r = 0; r < src->nrows; r++) {
        const cli_cell *row = &src->cells[(size_t)r * (size_t)src->ncols];
        if (only >= 0 && strcmp(row[only].s ? row[only].s : "", only_val)) continue;
        int nr = tbl_row(dst);
        for (int k = 0; k < nk && k < 64; k++)
            if (from[k] >= 0) tbl_copy_cell(dst, nr, k, &row[from[k]]);
    }
}
