/* `arlab report` (report.h): DIR/report.html (self-contained: figures are
 * base64 data: URIs) and its Markdown twin DIR/report.md, from the sweeps'
 * JSON (description, figures) and CSV (rows) in DIR. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/platform/platform.h"
#include "core/util.h"
#include "report.h"

/* Sweeps in the order the report shows them; others follow alphabetically. */
static const char *const known_order[] = {"bc-fig5", "bc-fig6", "fr-fig4", "wang-fig3", "model-vs-sim", "sim-vs-real"};
#define NKNOWN ((int)(sizeof known_order / sizeof known_order[0]))

typedef struct doc {
    FILE *html, *md;
    const char *dir;
} doc;

/* ---- escaping ----------------------------------------------------------- */

static void html_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Markdown: a table cell or a paragraph; '|' escaped, newlines flattened. */
static void md_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else if (*s == '<') fputs("&lt;", f);
        else fputc(*s, f);
    }
}

static void both(doc *d, const char *html_pre, const char *md_pre, const char *text, const char *html_post,
                 const char *md_post) {
    fputs(html_pre, d->html);
    html_text(d->html, text);
    fputs(html_post, d->html);
    fputs(md_pre, d->md);
    md_text(d->md, text);
    fputs(md_post, d->md);
}

static void heading(doc *d, int level, const char *text, const char *id) {
    fprintf(d->html, "<h%d%s%s%s>", level, id ? " id=\"" : "", id ? id : "", id ? "\"" : "");
    html_text(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
    for (int i = 0; i < level; i++) fputc('#', d->md);
    fputc(' ', d->md);
    md_text(d->md, text);
    fputs("\n\n", d->md);
}

static void para(doc *d, const char *text) { both(d, "<p>", "", text, "</p>\n", "\n\n"); }

/* A table: ncols headers, then nrows x ncols cells (row-major). */
static void table(doc *d, int ncols, const char *const *head, int nrows, char **cells, int collapse,
                  const char *summary) {
    if (collapse) {
        fputs("<details><summary>", d->html);
        html_text(d->html, summary);
        fputs("</summary>\n", d->html);
        fputs("**", d->md);
        md_text(d->md, summary);
        fputs("**\n\n", d->md);
    }
    fputs("<table>\n<tr>", d->html);
    for (int c = 0; c < ncols; c++) both(d, "<th>", c ? " | " : "| ", head[c], "</th>", "");
    fputs("</tr>\n", d->html);
    fputs(" |\n|", d->md);
    for (int c = 0; c < ncols; c++) fputs("---|", d->md);
    fputc('\n', d->md);
    for (int r = 0; r < nrows; r++) {
        fputs("<tr>", d->html);
        for (int c = 0; c < ncols; c++)
            both(d, "<td>", c ? " | " : "| ", cells[(size_t)r * (size_t)ncols + (size_t)c], "</td>", "");
        fputs("</tr>\n", d->html);
        fputs(" |\n", d->md);
    }
    fputs("</table>\n", d->html);
    if (collapse) fputs("</details>\n", d->html);
    fputc('\n', d->md);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes the file as base64; returns 0 if it could not be read. */
static int write_base64(FILE *out, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char in[3 * 1024];
    size_t n;
    while ((n = fread(in, 1, sizeof in, f)) > 0) {
        for (size_t i = 0; i < n; i += 3) {
            unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
                         (i + 2 < n ? in[i + 2] : 0);
            fputc(b64[v >> 18 & 63], out);
            fputc(b64[v >> 12 & 63], out);
            fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', out);
            fputc(i + 2 < n ? b64[v & 63] : '=', out);
        }
        if (n < sizeof in) break;
    }
    fclose(f);
    return 1;
}

static void figure(doc *d, const char *id, const char *title, const char *caption) {
    char path[4096];
    /* the SVG where there is one (vector: sharp at any zoom), else the PNG */
    snprintf(path, sizeof path, "%s/fig/%s.svg", d->dir, id);
    FILE *probe = fopen(path, "rb");
    const char *ext = "svg", *mime = "image/svg+xml";
    if (!probe) {
        snprintf(path, sizeof path, "%s/fig/%s.png", d->dir, id);
        probe = fopen(path, "rb");
        ext = "png";
        mime = "image/png";
    }
    if (!probe) {
        char msg[600];
        snprintf(msg, sizeof msg, "[figure %s not built: run experiments/make_figures.sh, or gnuplot plots/%s.gp]", id,
                 id);
        para(d, msg);
        return;
    }
    fclose(probe);
    fprintf(d->html, "<figure id=\"fig-%s\"><img alt=\"", id);
    html_text(d->html, title ? title : id);
    fprintf(d->html, "\" src=\"data:%s;base64,", mime);
    write_base64(d->html, path);
    fputs("\"><figcaption>", d->html);
    if (title) {
        fputs("<b>", d->html);
        html_text(d->html, title);
        fputs(".</b> ", d->html);
    }
    html_text(d->html, caption ? caption : "");
    char pdf[4200];
    snprintf(pdf, sizeof pdf, "%s/fig/%s.pdf", d->dir, id);
    FILE *pf = fopen(pdf, "rb");
    if (pf) fclose(pf);
    fprintf(d->html, pf ? " (PDF: fig/%s.pdf)</figcaption></figure>\n" : "</figcaption></figure>\n", id);
    fprintf(d->md, "![%s](fig/%s.%s)\n\n", id, id, ext);
    if (title || caption) {
        fputs("*", d->md);
        md_text(d->md, title ? title : "");
        fputs(title ? ". " : "", d->md);
        md_text(d->md, caption ? caption : "");
        fprintf(d->md, pf ? "* (PDF: fig/%s.pdf)\n\n" : "*\n\n", id);
    }
}

/* ---- tables from rows ------------------------------------------------- */

static char *fmt_ms(const sweep_row *r, int col) {
    double v = report_num(r, col);
    char buf[32];
    if (!isfinite(v)) snprintf(buf, sizeof buf, "-");
    else snprintf(buf, sizeof buf, "%.4g", v * 1e3);
    return ar_strdup(buf);
}

static char *fmt_num(const sweep_row *r, int col, const char *fmt, double scale) {
    double v = report_num(r, col);
    char buf[32];
    if (!isfinite(v)) snprintf(buf, sizeof buf, "-");
    else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, fmt, v * scale); /* fmt is a literal at every call site */
#pragma GCC diagnostic pop
    }
    return ar_strdup(buf);
}

static char *fmt_bytes(const sweep_row *r) {
    char buf[32];
    double v = report_num(r, SC_BYTES);
    return ar_strdup(isfinite(v) ? ar_fmt_bytes(v, buf, sizeof buf) : "-");
}

/* The rows behind a sweep's figures: the columns that matter for it. */
static void rows_table(doc *d, const char *name, const sweep_rows *rows) {
    int train = 0, base = 0, calls = 0, sim = 0, meas = 0;
    for (int i = 0; i < rows->n; i++) {
        train |= *rows->r[i].f[SC_TRAIN] != 0;
        base |= *rows->r[i].f[SC_BASE] != 0;
        calls |= *rows->r[i].f[SC_CALLS_BOUND] != 0;
        sim |= *rows->r[i].f[SC_SIM] != 0;
        meas |= !strcmp(rows->r[i].f[SC_BACKEND], "real");
    }
    const char *head[16];
    int nc = 0;
    head[nc++] = "platform";
    head[nc++] = "ranks";
    head[nc++] = "algorithm";
    head[nc++] = "size";
    head[nc++] = "backend";
    head[nc++] = "time (ms)";
    head[nc++] = "model (ms)";
    if (sim) head[nc++] = "sim (ms)";
    if (meas) head[nc++] = "measured (ms)";
    head[nc++] = "rel. diff";
    if (base) head[nc++] = "vs baseline";
    if (calls) head[nc++] = "calls mean/max/bound";
    if (train) head[nc++] = "train";
    if (train) head[nc++] = "overhead (ms)";
    if (train) head[nc++] = "images/s";
    if (train) head[nc++] = "efficiency";
    head[nc++] = "status / cause";
    char **cells = ar_calloc((size_t)rows->n * (size_t)nc + 1, sizeof *cells);
    if (!cells) return;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        char **c = cells + (size_t)i * (size_t)nc;
        int k = 0;
        c[k++] = ar_strdup(r->f[SC_PLATFORM]);
        c[k++] = ar_strdup(r->f[SC_RANKS]);
        char lab[300];
        snprintf(lab, sizeof lab, "%s (%s)", r->f[SC_LABEL], r->f[SC_ALGO]);
        c[k++] = ar_strdup(lab);
        c[k++] = fmt_bytes(r);
        c[k++] = ar_strdup(r->f[SC_BACKEND]);
        c[k++] = fmt_ms(r, SC_TIME);
        c[k++] = fmt_ms(r, SC_MODEL);
        if (sim) c[k++] = fmt_ms(r, SC_SIM);
        if (meas) c[k++] = fmt_ms(r, SC_MEASURED);
        c[k++] = fmt_num(r, SC_REL_DIFF, "%+.1f %%", 100);
        if (base) c[k++] = fmt_num(r, SC_VS_BASE, "%.2fx", 1);
        if (calls) {
            char b[64];
            double a = report_num(r, SC_CALLS_AVG), m = report_num(r, SC_CALLS_MAX), bd = report_num(r, SC_CALLS_BOUND);
            if (isfinite(bd)) snprintf(b, sizeof b, "%.2f / %.0f / %.0f", a, m, bd);
            else snprintf(b, sizeof b, "-");
            c[k++] = ar_strdup(b);
        }
        if (train) {
            c[k++] = ar_strdup(r->f[SC_TRAIN]);
            c[k++] = fmt_ms(r, SC_OVERHEAD);
            c[k++] = fmt_num(r, SC_IMAGES, "%.0f", 1);
            c[k++] = fmt_num(r, SC_EFF, "%.3f", 1);
        }
        char st[600];
        if (!strcmp(r->f[SC_STATUS], "ok")) snprintf(st, sizeof st, "%s", *r->f[SC_CAUSE] ? r->f[SC_CAUSE] : "ok");
        else snprintf(st, sizeof st, "%s: %.400s", r->f[SC_STATUS], r->f[SC_MESSAGE]);
        c[k++] = ar_strdup(st);
    }
    char summary[200];
    snprintf(summary, sizeof summary, "All %d rows of %s (CSV: %s.csv)", rows->n, name, name);
    table(d, nc, head, rows->n, cells, 1, summary);
    for (size_t i = 0; i < (size_t)rows->n * (size_t)nc; i++) free(cells[i]);
    free(cells);
}

/* Model vs simulation: the points that part, with their causes. */
static void parting_table(doc *d, const sweep_rows *rows) {
    static const char *const head[] = {"algorithm",  "platform",  "size", "time (ms)",
                                       "model (ms)", "rel. diff", "cause"};
    char **cells = ar_calloc((size_t)rows->n * 7 + 1, sizeof *cells);
    if (!cells) return;
    int n = 0;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        double dd = report_num(r, SC_REL_DIFF);
        if (strcmp(r->f[SC_STATUS], "ok") || !isfinite(dd) || fabs(dd) < 0.01) continue;
        char **c = cells + (size_t)n * 7;
        c[0] = ar_strdup(r->f[SC_LABEL]);
        c[1] = ar_strdup(r->f[SC_PLATFORM]);
        c[2] = fmt_bytes(r);
        c[3] = fmt_ms(r, SC_TIME);
        c[4] = fmt_ms(r, SC_MODEL);
        c[5] = fmt_num(r, SC_REL_DIFF, "%+.1f %%", 100);
        c[6] = ar_strdup(r->f[SC_CAUSE]);
        n++;
    }
    if (n) {
        char sum[120];
        snprintf(sum, sizeof sum, "%d points where the time and the model part by 1 %% or more, with the cause", n);
        para(d, "Where they part (|rel. diff| >= 1 %), and why:");
        table(d, 7, head, n, cells, n > 20, sum);
    } else {
        para(d, "Every point agrees within 1 %.");
    }
    for (size_t i = 0; i < (size_t)n * 7; i++) free(cells[i]);
    free(cells);
}

/* ---- platforms -------------------------------------------------------- */

typedef struct strset {
    int n, cap;
    char **s;
} strset;

static void strset_add(strset *ss, const char *s) {
    for (int i = 0; i < ss->n; i++)
        if (!strcmp(ss->s[i], s)) return;
    if (ss->n == ss->cap) {
        int nc = ss->cap ? 2 * ss->cap : 16;
        char **ns = ar_reallocarray(ss->s, (size_t)nc, sizeof *ns);
        if (!ns) return;
        ss->s = ns;
        ss->cap = nc;
    }
    char *d = ar_strdup(s);
    if (d) ss->s[ss->n++] = d;
}

static void strset_free(strset *ss) {
    for (int i = 0; i < ss->n; i++) free(ss->s[i]);
    free(ss->s);
    memset(ss, 0, sizeof *ss);
}

/* The reference corpus: DIR/reference.csv, written by `arlab fit --reference
 * experiments/reference/published.csv --csv` (experiments/make_figures.sh): every published
 * nccl-tests figure of hardware.md beside the presets' prediction and the error. Absent: nothing. */
static ar_status reference_section(doc *d, const char *dir, ar_err *e) {
    char path[4200];
    snprintf(path, sizeof path, "%s/reference.csv", dir);
    FILE *f = fopen(path, "rb");
    if (!f) return AR_OK;
    static const char *const want[] = {
        "preset",  "ranks",     "bytes", "algorithm", "nccl_algo", "published_busbw_GBps", "predicted_busbw_GBps",
        "rel_err", "loo_pooled"};
    enum { NW = sizeof want / sizeof want[0] };
    static const char *const head[] = {"system",    "GPUs",          "size",
                                       "algorithm", "NCCL's choice", "published busbw (GB/s)",
                                       "predicted", "error",         "leave-one-out"};
    int idx[NW], oom = 0, nrow = 0, cap = 0, bad = 0;
    char **cells = NULL, *line = ar_read_line(f, &oom), **fl = NULL;
    int nf = line ? ar_csv_split(line, &fl, 64) : -1;
    for (int k = 0; k < NW; k++) {
        idx[k] = -1;
        for (int c = 0; c < nf; c++)
            if (!strcmp(fl[c], want[k])) idx[k] = c;
        bad |= idx[k] < 0;
    }
    ar_csv_free(fl, nf);
    free(line);
    if (bad) {
        fclose(f);
        return ar_fail(e, AR_EINVAL, "%s: not the output of `arlab fit --reference --csv` (its header lacks a column)",
                       path);
    }
    while (!bad && (line = ar_read_line(f, &oom)) != NULL) {
        nf = ar_csv_split(line, &fl, 64);
        if (nf > 0) {
            if (nrow == cap) {
                cap = cap ? 2 * cap : 16;
                char **nc = ar_reallocarray(cells, (size_t)cap * NW, sizeof *nc);
                if (!nc) bad = 1;
                else cells = nc;
            }
            for (int k = 0; !bad && k < NW; k++) {
                const char *v = idx[k] < nf ? fl[idx[k]] : "";
                char b[64];
                if (k == 2 && *v) v = ar_fmt_bytes(atof(v), b, sizeof b);
                else if ((k == 5 || k == 6) && *v) snprintf(b, sizeof b, "%.1f", atof(v)), v = b;
                else if ((k == 7 || k == 8) && *v) snprintf(b, sizeof b, "%+.1f %%", 100 * atof(v)), v = b;
                cells[(size_t)nrow * NW + (size_t)k] = ar_strdup(v);
            }
            nrow += !bad;
        }
        ar_csv_free(fl, nf);
        free(line);
    }
    fclose(f);
    if (!bad && nrow) {
        heading(d, 2, "Reference corpus: predicted vs published", "reference");
        para(d,
             "Every public nccl-tests figure of ../shared/hardware.md (experiments/reference/published.csv, with "
             "its source) beside what the presets and NCCL's cost model predict, and the leave-one-out error after "
             "refitting the bandwidth efficiency on the other rows. tests/cli/cli_reference.sh fails when a prediction "
             "moves by more than 1 %.");
        table(d, NW, head, nrow, cells, 0, NULL);
    }
    for (int k = 0; k < nrow * NW; k++) free(cells[k]);
    free(cells);
    return bad ? ar_fail(e, AR_ENOMEM, "out of memory") : AR_OK;
}

/* papers: some sweep is a paper's figure; bc_fig6: BlueConnect Fig. 6 (the generated cluster sizes) is one. */
static void platform_notes(doc *d, const strset *srcs, int papers, int bc_fig6) {
    heading(d, 2, "Platform assumptions", "platforms");
    int any_generated = 0;
    for (int i = 0; i < srcs->n; i++) any_generated |= !strncmp(srcs->s[i], "generated:", 10);
    char intro[800];
    /* only what applies: a report of the user's own sweeps has no papers to cite */
    snprintf(intro, sizeof intro, "%s%s A note already given for an earlier platform is not repeated.",
             papers ? "Every number above is computed on these platforms. Their link bandwidths and latencies come "
                      "from the papers where the papers give them and are our assumptions elsewhere, as each "
                      "platform's notes say (platforms/*.json)."
                    : "Every number above is computed on these platforms, with the link bandwidths and latencies "
                      "their descriptions and notes give.",
             !any_generated ? ""
             : bc_fig6      ? " Generated platforms (the BlueConnect Fig. 6 cluster sizes) carry their parameters in "
                              "their spec."
                            : " Generated platforms carry their parameters in their spec.");
    para(d, intro);
    strset seen = {0, 0, NULL};   /* notes printed so far */
    strset origin = {0, 0, NULL}; /* the platform each was printed for (parallel, may repeat) */
    for (int i = 0; i < srcs->n; i++) {
        const char *src = srcs->s[i];
        char spec[1100];
        int generated = !strncmp(src, "generated:", 10);
        if (!strncmp(src, "preset:", 7)) snprintf(spec, sizeof spec, "%s", src + 7);
        else if (generated) snprintf(spec, sizeof spec, "%s", src + 10);
        else snprintf(spec, sizeof spec, "%s", src);
        ar_platform *p = NULL;
        ar_err e = {{0}};
        if (ar_platform_load(spec, 0, &p, &e) != AR_OK) {
            char msg[800];
            snprintf(msg, sizeof msg, "%s: could not be loaded here (%s)", src, e.msg);
            para(d, msg);
            continue;
        }
        char title[1300];
        snprintf(title, sizeof title, "%s (%d GPUs, %d machine%s; %s)", p->name, p->nranks, p->nmachines,
                 p->nmachines == 1 ? "" : "s", generated ? "generated family" : src);
        heading(d, 3, title, NULL);
        if (p->description) para(d, p->description);
        int printed = 0;
        char omitted_from[256] = "";
        for (int k = 0; k < p->nnotes; k++) {
            int dup = -1;
            for (int m = 0; m < seen.n && dup < 0; m++)
                if (!strcmp(seen.s[m], p->notes[k])) dup = m;
            if (dup >= 0) {
                if (!omitted_from[0])
                    snprintf(omitted_from, sizeof omitted_from, "%s", origin.s[dup < origin.n ? dup : 0]);
                continue;
            }
            if (!printed++) fputs("<ul>\n", d->html);
            both(d, "<li>", "- ", p->notes[k], "</li>\n", "\n");
            int before = seen.n;
            strset_add(&seen, p->notes[k]);
            if (seen.n > before) {
                /* origin is parallel to seen: append even when the name repeats */
                if (origin.n == origin.cap) {
                    int nc = origin.cap ? 2 * origin.cap : 16;
                    char **ns = ar_reallocarray(origin.s, (size_t)nc, sizeof *ns);
                    if (ns) {
                        origin.s = ns;
                        origin.cap = nc;
                    }
                }
                if (origin.n < origin.cap) origin.s[origin.n++] = ar_strdup(p->name);
            }
        }
        if (printed) {
            fputs("</ul>\n", d->html);
            fputc('\n', d->md);
        }
        if (omitted_from[0]) {
            char msg[400];
            snprintf(msg, sizeof msg, "Other notes as for %s.", omitted_from);
            para(d, msg);
        }
        ar_platform_free(p);
    }
    for (int m = 0; m < origin.n; m++) free(origin.s[m]);
    free(origin.s);
    strset_free(&seen);
}

/* ---- the document ------------------------------------------------------ */

static const char *jstr(const cJSON *o, const char *k) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int cmp_name(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int ix = NKNOWN, iy = NKNOWN;
    for (int i = 0; i < NKNOWN; i++) {
        if (!strcmp(known_order[i], x)) ix = i;
        if (!strcmp(known_order[i], y)) iy = i;
    }
    return ix != iy ? ix - iy : strcmp(x, y);
}

/* Sweep result names in DIR (NAME.json with a matching NAME.csv). */
static ar_status list_sweeps(const char *dir, strset *names, ar_err *e) {
    DIR *dd = opendir(dir);
    if (!dd)
        return ar_fail(e, AR_EIO, "%s: cannot open the results directory (%s); run the sweeps first", dir,
                       strerror(errno));
    struct dirent *de;
    while ((de = readdir(dd))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || de->d_name[0] == '.' || strcmp(de->d_name + l - 5, ".json")) continue;
        char name[256], csv[4096];
        snprintf(name, sizeof name, "%.*s", (int)(l - 5), de->d_name);
        snprintf(csv, sizeof csv, "%s/%s.csv", dir, name);
        FILE *f = fopen(csv, "rb");
        if (!f) continue;
        fclose(f);
        strset_add(names, name);
    }
    closedir(dd);
    if (names->n > 1) qsort(names->s, (size_t)names->n, sizeof *names->s, cmp_name); /* (s is NULL when empty) */
    return AR_OK;
}

static const char *css =
    "body{font-family:'DejaVu Serif',Georgia,serif;max-width:1180px;margin:2em auto;padding:0 1em;color:#111;"
    "line-height:1.45}\nh1,h2,h3{font-weight:normal}h2{border-bottom:1px solid #999;margin-top:2em}\n"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.85em}th,td{border:1px solid #bbb;padding:.25em .5em;"
    "vertical-align:top}th{background:#eee}\nfigure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}"
    "figcaption{font-size:.9em;color:#333}\n.meta{color:#555;font-size:.9em}details{margin:.5em 0}"
    "summary{cursor:pointer;color:#234}\n";

/* ---- a user's own sweep: a default figure and the winner per platform x size ---- */

/* What a user's own sweep ran: its platforms, algorithms and sizes, in the order of its rows. */
static void grid_line(doc *d, const sweep_rows *rows) {
    strset sets[3] = {{0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}};
    for (int i = 0; i < rows->n; i++) {
        char b[32];
        strset_add(&sets[0], rows->r[i].f[SC_PLATFORM]);
        strset_add(&sets[1], rows->r[i].f[SC_ALGO]);
        strset_add(&sets[2], ar_fmt_bytes(atof(rows->r[i].f[SC_BYTES]), b, sizeof b));
    }
    static const char *const what[3] = {"Platforms", "Algorithms", "Sizes"};
    char line[2000] = "";
    size_t l = 0;
    for (int k = 0; k < 3; k++) {
        l += (size_t)snprintf(line + l, sizeof line - l, "%s%s: ", k ? " " : "", what[k]);
        for (int i = 0; i < sets[k].n && l < sizeof line; i++)
            l += (size_t)snprintf(line + l, sizeof line - l, "%s%s", i ? ", " : "", sets[k].s[i]);
        if (l < sizeof line) l += (size_t)snprintf(line + l, sizeof line - l, ".");
        if (l >= sizeof line) break; /* cut: a very long list */
    }
    for (int k = 0; k < 3; k++) strset_free(&sets[k]);
    both(d, "<p class=\"meta\">", "", line, "</p>\n", "\n\n");
}

/* The fastest algorithm (status ok, time_s) of each (platform, bytes), with the runner-up. */
static void winners_table(doc *d, const sweep_rows *rows) {
    char **cells = ar_calloc((size_t)rows->n * 6 + 6, sizeof *cells);
    if (!cells) return;
    int nr = 0;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        int seen = 0; /* one line per (platform, bytes), in the order they first appear */
        for (int k = 0; k < i && !seen; k++)
            seen = !strcmp(rows->r[k].f[SC_PLATFORM], r->f[SC_PLATFORM]) &&
                   !strcmp(rows->r[k].f[SC_BYTES], r->f[SC_BYTES]);
        if (seen) continue;
        int best = -1, next = -1;
        for (int k = i; k < rows->n; k++) {
            const sweep_row *q = &rows->r[k];
            if (strcmp(q->f[SC_PLATFORM], r->f[SC_PLATFORM]) || strcmp(q->f[SC_BYTES], r->f[SC_BYTES]) ||
                strcmp(q->f[SC_STATUS], "ok") || !*q->f[SC_TIME])
                continue;
            double t = atof(q->f[SC_TIME]);
            if (best < 0 || t < atof(rows->r[best].f[SC_TIME])) {
                next = best;
                best = k;
            } else if (next < 0 || t < atof(rows->r[next].f[SC_TIME])) {
                next = k;
            }
        }
        if (best < 0) continue;
        char b[32], t1[32], gap[64];
        double tb = atof(rows->r[best].f[SC_TIME]);
        ar_fmt_time(tb, t1, sizeof t1);
        double tn = next >= 0 ? atof(rows->r[next].f[SC_TIME]) : NAN;
        if (next >= 0 && tn - tb <= 1e-12 * tb) snprintf(gap, sizeof gap, "%s (tie)", rows->r[next].f[SC_ALGO]);
        else if (next >= 0) snprintf(gap, sizeof gap, "%s (+%.1f %%)", rows->r[next].f[SC_ALGO], 100 * (tn / tb - 1));
        else snprintf(gap, sizeof gap, "-");
        char bw[32] = "-";
        if (*rows->r[best].f[SC_BUSBW]) snprintf(bw, sizeof bw, "%.4g", atof(rows->r[best].f[SC_BUSBW]));
        cells[nr * 6 + 0] = ar_strdup(r->f[SC_PLATFORM]);
        cells[nr * 6 + 1] = ar_strdup(ar_fmt_bytes(atof(r->f[SC_BYTES]), b, sizeof b));
        cells[nr * 6 + 2] = ar_strdup(rows->r[best].f[SC_ALGO]);
        cells[nr * 6 + 3] = ar_strdup(t1);
        cells[nr * 6 + 4] = ar_strdup(bw);
        cells[nr * 6 + 5] = ar_strdup(gap);
        nr++;
    }
    static const char *const head[] = {"platform", "size", "winner", "time", "busbw (GB/s)", "runner-up"};
    if (nr) {
        heading(d, 3, "Winner per platform and size", NULL);
        table(d, 6, head, nr, cells, 0, NULL);
    }
    for (int k = 0; k < nr * 6; k++) free(cells[k]);
    free(cells);
}

/* Nothing to report: say why, and for an interrupted sweep how to resume it. */
static ar_status report_nothing(const char *dir, sweep_pending *pend, int npend, ar_err *e) {
    if (!npend) {
        free(pend);
        return ar_fail(e, AR_EINVAL,
                       "%s: no sweep results (NAME.json + NAME.csv); run arlab sweep FILE.json --out %s first "
                       "(experiments/make_figures.sh runs the papers' sweeps)",
                       dir, dir);
    }
    char line[SWEEP_CMD_MAX + 6000];
    sweep_pending_text(&pend[0], dir, line, sizeof line);
    ar_status st = ar_fail(e, AR_EINVAL, "%s%s", line,
                           npend > 1 ? " (and more unfinished sweeps: see arlab report after)" : "");
    free(pend);
    return st;
}

/* How many sweeps are the user's own (no "figures"): when all are, the report is not the papers'. */
static int count_own(const char *dir, const strset *names) {
    int own = 0;
    for (int i = 0; i < names->n; i++) {
        char jp[4096], *text = NULL;
        ar_err fe;
        snprintf(jp, sizeof jp, "%s/%s.json", dir, names->s[i]);
        cJSON *root = ar_read_file(jp, (size_t)1 << 30, &text, NULL, &fe) == AR_OK ? cJSON_Parse(text) : NULL;
        free(text);
        own += !root || !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "figures"));
        cJSON_Delete(root);
    }
    return own;
}

/* The page's head, title and introduction, the unfinished sweeps and the contents line. */
static void report_front(doc *d, const strset *names, int own, sweep_pending *pend, int npend) {
    fprintf(d->html,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>arlab report</title>\n<style>\n%s</style></head><body>\n",
            css);
    if (own == names->n) {
        heading(d, 1, "arlab report", NULL);
        para(d, "Each section is one sweep run by `arlab sweep`: a figure of time against message size per "
                "algorithm and platform, the fastest algorithm of every platform and size, and the rows behind "
                "them. The backend column says where a time comes from: the SimGrid simulator (sim), the cost "
                "walk of the planned schedule (model) or measurements (real, measured).");
    } else {
        heading(d, 1, own ? "arlab: sweeps and the papers' figures" : "arlab: the papers' figures, reproduced", NULL);
    }
    if (own < names->n)
        para(d, "Each section is one sweep (experiments/NAME.json, run by `arlab sweep`), its figure (plots/NAME.gp), "
                "the paper's headline claims next to arlab's numbers with the reason where they differ, and the rows "
                "behind the figure. Times are for one all-reduce unless a training column says otherwise. The backend "
                "column says where a time comes from: the SimGrid simulator (sim), the cost walk of the planned "
                "schedule (model) or GPU measurements (real).");

    for (int i = 0; i < npend; i++) { /* a sweep not finished: not in this report, and how to finish it */
        char line[SWEEP_CMD_MAX + 6000];
        sweep_pending_text(&pend[i], d->dir, line, sizeof line);
        both(d, "<p class=\"meta\"><b>Unfinished:</b> ", "**Unfinished:** ", line, "</p>\n", "\n\n");
    }

    /* contents */
    fputs("<p class=\"meta\">Contents: ", d->html);
    for (int i = 0; i < names->n; i++)
        fprintf(d->html, "%s<a href=\"#%s\">%s</a>", i ? " &middot; " : "", names->s[i], names->s[i]);
    fputs(" &middot; <a href=\"#platforms\">platform assumptions</a></p>\n", d->html);
}

/* A sweep's meta line, description, grid, the backends it used (and the platforms' sources into srcs). */
static void sweep_meta(doc *d, const char *name, const cJSON *root, const sweep_rows *rows, strset *srcs) {
    const char *title = jstr(root, "title");
    heading(d, 2, title ? title : name, name);
    const char *paper = jstr(root, "paper"), *desc = jstr(root, "description");
    char meta[1200], source[400] = "";
    if (paper) snprintf(source, sizeof source, "Source: %s. ", paper); /* a user's sweep cites no paper */
    snprintf(meta, sizeof meta, "%sSweep %s (%s), arlab %s, commit %s; %d rows.", source, name,
             jstr(root, "file") ? jstr(root, "file") : "?", jstr(root, "version") ? jstr(root, "version") : "?",
             jstr(root, "commit") ? jstr(root, "commit") : "?", rows->n);
    both(d, "<p class=\"meta\">", "", meta, "</p>\n", "\n\n");
    if (desc) para(d, desc);
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "figures"))) grid_line(d, rows);
    /* backends and network models used */
    strset nets = {0, 0, NULL};
    for (int r = 0; r < rows->n; r++) {
        char b[400];
        snprintf(b, sizeof b, "%s", rows->r[r].f[SC_NETWORK]);
        if (*b) strset_add(&nets, b);
        strset_add(srcs, rows->r[r].f[SC_PLATFORM_SRC]);
    }
    for (int k = 0; k < nets.n; k++) {
        char b[500];
        snprintf(b, sizeof b, "Backend: %s.", nets.s[k]);
        both(d, "<p class=\"meta\">", "", b, "</p>\n", "\n\n");
    }
    strset_free(&nets);
}

/* A sweep's figures: its own, or for a user's sweep without any a default figure and the winners. */
static void sweep_figures(doc *d, const char *name, const cJSON *root, const sweep_rows *rows) {
    const cJSON *figs = cJSON_GetObjectItemCaseSensitive(root, "figures");
    const cJSON *fg;
    if (!cJSON_GetArraySize(figs)) { /* a user's own sweep: a default figure and the winners */
        char id[300], cap[600];
        snprintf(id, sizeof id, "%s-default", name);
        snprintf(cap, sizeof cap,
                 "Time per all-reduce against the message size, one line per algorithm, one panel per platform "
                 "(log-log; rows with status ok). Drawn by arlab report for a sweep without figures of its own "
                 "(gnuplot script: fig/%s-default.gp).",
                 name);
        if (report_default_figure(d->dir, name, rows)) figure(d, id, "Time vs size", cap);
        else para(d, "[default figure not drawn: gnuplot is not installed or no row has status ok]");
        winners_table(d, rows);
    }
    cJSON_ArrayForEach(fg, figs) {
        const char *id = jstr(fg, "id");
        if (id && strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(id))
            figure(d, id, jstr(fg, "title"), jstr(fg, "caption"));
    }
}

/* The sweep's "report" claims (JSON path jp), rendered against its rows, as a table. */
static ar_status sweep_claims(doc *d, const char *name, const char *jp, const cJSON *root, const sweep_rows *rows,
                              ar_err *e) {
    ar_status st = AR_OK;
    report_claim cl[REPORT_MAX_CLAIMS];
    int nclaims = 0;
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(root, "report");
    report_vals *vals = rep ? ar_calloc(1, sizeof *vals) : NULL;
    if (rep && !vals) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (vals) {
        report_values(name, rows, vals);
        st = report_claims_render(jp, rep, vals, cl, REPORT_MAX_CLAIMS, &nclaims, e);
        free(vals);
    }
    if (nclaims) {
        static const char *const head[] = {"claim", "paper", "arlab", "why"};
        char **cells = ar_calloc((size_t)nclaims * 4, sizeof *cells);
        if (cells) {
            for (int k = 0; k < nclaims; k++) {
                cells[k * 4 + 0] = cl[k].what;
                cells[k * 4 + 1] = cl[k].paper;
                cells[k * 4 + 2] = cl[k].arlab;
                cells[k * 4 + 3] = cl[k].why;
            }
            heading(d, 3, "The paper's claims and arlab's numbers", NULL);
            table(d, 4, head, nclaims, cells, 0, NULL);
            free(cells);
        }
    }
    return st;
}

/* One sweep's section: DIR/NAME.json and DIR/NAME.csv; an unreadable pair is an error, not a gap. */
static ar_status sweep_section(doc *d, const char *name, strset *srcs, ar_err *e) {
    char jp[4096], cp[4096];
    snprintf(jp, sizeof jp, "%s/%s.json", d->dir, name);
    snprintf(cp, sizeof cp, "%s/%s.csv", d->dir, name);
    char *text = NULL;
    ar_err fe = {{0}};
    if (ar_read_file(jp, (size_t)1 << 30, &text, NULL, &fe) != AR_OK) text = NULL;
    int unreadable = !text;
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    sweep_rows rows;
    ar_err re = {{0}};
    if (!root || !cJSON_IsObject(root) || sweep_read_csv(cp, &rows, &re) != AR_OK) { /* an error, not a gap */
        ar_status st = ar_fail(e, unreadable ? AR_EIO : AR_EINVAL, "%s: not a readable sweep result (%s)", jp,
                               re.msg[0]    ? re.msg
                               : unreadable ? fe.msg
                                            : "malformed JSON");
        cJSON_Delete(root);
        return st;
    }
    sweep_meta(d, name, root, &rows, srcs);
    sweep_figures(d, name, root, &rows);
    ar_status st = sweep_claims(d, name, jp, root, &rows, e);
    if (!strcmp(name, "model-vs-sim")) parting_table(d, &rows);
    rows_table(d, name, &rows);
    sweep_rows_free(&rows);
    cJSON_Delete(root);
    return st;
}

ar_status report_build(const char *dir, ar_err *e) {
    strset names = {0, 0, NULL}, srcs = {0, 0, NULL};
    ar_status st = list_sweeps(dir, &names, e);
    if (st) return st;
    sweep_pending *pend = NULL;
    int npend = sweep_pending_list(dir, &pend);
    if (!names.n) {
        strset_free(&names);
        return report_nothing(dir, pend, npend, e);
    }
    char hp[4096], mp[4096], htmp[4096], mtmp[4096];
    snprintf(hp, sizeof hp, "%s/report.html", dir);
    snprintf(mp, sizeof mp, "%s/report.md", dir);
    snprintf(htmp, sizeof htmp, "%s/.report.html.tmp", dir);
    snprintf(mtmp, sizeof mtmp, "%s/.report.md.tmp", dir);
    doc d = {fopen(htmp, "wb"), fopen(mtmp, "wb"), dir};
    if (!d.html || !d.md) {
        if (d.html) fclose(d.html);
        if (d.md) fclose(d.md);
        strset_free(&names);
        free(pend);
        return ar_fail(e, AR_EIO, "%s: cannot write the report", dir);
    }
    int own = count_own(dir, &names);
    report_front(&d, &names, own, pend, npend);
    free(pend);
    for (int i = 0; i < names.n && !st; i++) st = sweep_section(&d, names.s[i], &srcs, e);
    if (!st) st = reference_section(&d, dir, e);
    int bc_fig6 = 0;
    for (int i = 0; i < names.n; i++) bc_fig6 |= !strcmp(names.s[i], "bc-fig6");
    platform_notes(&d, &srcs, own < names.n, bc_fig6);
    fputs("</body></html>\n", d.html);
    int bad = ferror(d.html) || ferror(d.md);
    bad |= fclose(d.html) != 0;
    bad |= fclose(d.md) != 0;
    if (!st && (bad || rename(htmp, hp) != 0 || rename(mtmp, mp) != 0))
        st = ar_fail(e, AR_EIO, "%s: cannot write the report", dir);
    if (st) {
        unlink(htmp);
        unlink(mtmp);
    }
    strset_free(&names);
    strset_free(&srcs);
    return st;
}
