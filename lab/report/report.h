/* `arlab report`: one self-contained HTML page and a Markdown twin built from
 * the sweep results in a directory (lab/report/report.c), with the papers' headline
 * claims next to arlab's numbers: the claims' text comes from the sweep file's
 * "report" object (lab/report/sweep_report.c), the numbers it names are computed in
 * lab/report/report_claims.c and filled in by lab/report/report_render.c (report_tmpl.h).
 *
 * Inputs in DIR: NAME.json (the sweep's description and figures, written by
 * `arlab sweep`), NAME.csv (its rows) and fig/ID.png for every figure id.
 * Outputs: DIR/report.html (images embedded as base64 data: URIs) and
 * DIR/report.md (images referenced as fig/ID.png, relative to DIR).
 *
 * Ownership: nothing global; every function frees what it allocates.
 */
#ifndef AR_LAB_REPORT_H
#define AR_LAB_REPORT_H

#include "lab/sweep/sweep.h"

/* One headline claim of a paper next to what arlab computes. */
typedef struct report_claim {
    char what[200];  /* the quantity, e.g. "BLC over NCCL2, Intel 2x4, 2e8 FP32" */
    char paper[120]; /* what the paper reports */
    char arlab[200]; /* what arlab gets ("n/a" when the rows are missing) */
    char why[900];   /* agreement, or the reason for the difference */
} report_claim;

#define REPORT_MAX_CLAIMS 16
#define REPORT_MAX_VALS 96

/* The named quantities a sweep's claims use: numbers, or short strings (a
 * list, a backend name, or the case a "choose" entry selects its text by). */
typedef struct report_vals {
    int n;
    char name[REPORT_MAX_VALS][48];
    char str[REPORT_MAX_VALS][320];
    double num[REPORT_MAX_VALS];
    int is_str[REPORT_MAX_VALS];
} report_vals;

/* Fills v with the quantities for the sweep `name` (bc-fig5, bc-fig6, fr-fig4,
 * wang-fig3, model-vs-sim, sim-vs-real) computed from its rows; returns 0 (and
 * leaves v empty) for other sweeps. */
int report_values(const char *name, const sweep_rows *rows, report_vals *v);

struct cJSON;
/* Renders the claims of a "report" object (from the sweep's results file `file`) with the values v; *n = number of claims. A template
 * naming an unknown value, a bad placeholder or a missing case fails with
 * AR_EINVAL "FILE: report.claims[i].FIELD: ..." (one line). */
ar_status report_claims_render(const char *file, const struct cJSON *report, const report_vals *v, report_claim *out,
                               int max, int *n, ar_err *e);

/* Row lookup helpers shared with report.c. NULL/-1/0 arguments match any. */
const sweep_row *report_find(const sweep_rows *rows, const char *algo, const char *platform, int ranks, double elems,
                             const char *train);
double report_num(const sweep_row *r, int col); /* NAN when r is NULL or the field empty */

/* The default figure of a sweep without figures of its own (lab/report/report_figure.c):
 * time against message size per algorithm, one panel per platform, log-log
 * with engineering tick labels over the data's decades, 800 px wide with
 * 14 px text; gnuplot draws DIR/fig/NAME-default.svg from the script it
 * writes to DIR/fig/NAME-default.gp. Returns 1 when the SVG exists. */
int report_default_figure(const char *dir, const char *name, const sweep_rows *rows);

/* The tick label of 10^k: bytes ("1 B", "10 KB", "1 GB", decimal units) or,
 * bytes 0, seconds ("1 ns", "100 µs", "10 ms", "1 s"). */
void report_eng_label(int k, int bytes, char *buf, size_t n);

/* Builds DIR/report.html and DIR/report.md. */
ar_status report_build(const char *dir, ar_err *e);

#endif
