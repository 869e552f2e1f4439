/* `--format nccl-tests` of model and sim: a prediction in nccl-tests' own table, one document
 * per platform and algorithm, so that it can be diffed line by line against a real run of
 * all_reduce_perf (or all_gather_perf, reduce_scatter_perf) on that cluster. Both halves
 * (out-of-place, in-place) carry the predicted time; #wrong is 0; the device lines name the
 * platform's GPUs as "arlab" ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "calib/nccltests_out.h"

static const char *perf_name(ar_coll c) {
    return c == AR_COLL_REDUCESCATTER ? "reduce_scatter_perf"
           : c == AR_COLL_ALLGATHER   ? "all_gather_perf"
                                      : "all_reduce_perf";
}

static int col_of(const cli_table *t, const char *name) {
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c], name)) return c;
    return -1;
}

void cli_print_nccltests(const cli_table *t, const char *time_col, const char *verb, const cli_opts *o) {
    int ca = col_of(t, "algo"), cp = col_of(t, "platform"), cr = col_of(t, "ranks"), cb = col_of(t, "bytes"),
        ct = col_of(t, time_col), cg = col_of(t, "algbw_GBps"), cu = col_of(t, "busbw_GBps"), cs = col_of(t, "status");
    if (ca < 0 || cp < 0 || cr < 0 || cb < 0 || ct < 0 || cg < 0 || cu < 0 || cs < 0) return;
    size_t eb = ar_dtype_size(o->dtype);
    char *done = calloc((size_t)t->nrows + 1, 1);
    if (!done) return;
    for (int r0 = 0; r0 < t->nrows; r0++) {
        const cli_cell *g = &t->cells[(size_t)r0 * (size_t)t->ncols];
        if (done[r0] || strcmp(g[cs].s, "ok")) continue;
        int P = atoi(g[cr].s);
        long lo = -1, hi = -1;
        for (int r = r0; r < t->nrows; r++) { /* this platform and algorithm: its sizes */
            const cli_cell *c = &t->cells[(size_t)r * (size_t)t->ncols];
            if (strcmp(c[ca].s, g[ca].s) || strcmp(c[cp].s, g[cp].s) || strcmp(c[cs].s, "ok")) continue;
            long b = (long)c[cb].v;
            if (lo < 0 || b < lo) lo = b;
            if (b > hi) hi = b;
        }
        ar_nt_rank *ranks = calloc((size_t)P + 1, sizeof *ranks);
        if (!ranks) break;
        for (int k = 0; k < P; k++) {
            ranks[k] = (ar_nt_rank){.rank = k, .group = 0, .pid = 0, .dev = k, .pci_bus = 0};
            snprintf(ranks[k].host, sizeof ranks[k].host, "arlab");
            snprintf(ranks[k].name, sizeof ranks[k].name, "%s", g[cp].s);
        }
        char c1[600];
        snprintf(c1, sizeof c1, "# arlab %s: the prediction of %s on %s (%d ranks): %s, no measurement", verb, g[ca].s,
                 g[cp].s, P, time_col);
        const char *com[] = {c1, NULL};
        ar_nt_params prm = {1, 1, lo, hi, 0, 0, 0, 0, 1, 0, 0, perf_name(o->coll)};
        ar_nt_header(stdout, com, &prm, ranks, P);
        free(ranks);
        double bw = 0;
        int nbw = 0;
        for (int r = r0; r < t->nrows; r++) {
            const cli_cell *c = &t->cells[(size_t)r * (size_t)t->ncols];
            if (strcmp(c[ca].s, g[ca].s) || strcmp(c[cp].s, g[cp].s)) continue;
            done[r] = 1;
            if (strcmp(c[cs].s, "ok") || !c[ct].has_v) continue;
            ar_nt_half h = {c[ct].v, c[cg].v, c[cu].v, 0};
            long b = (long)c[cb].v;
            ar_nt_row row = {b, (long)((double)b / (double)eb), ar_nt_type_name(o->dtype), "sum", -1, h, h};
            ar_nt_row_print(stdout, &row);
            bw += 2 * c[cu].v;
            nbw += 2;
        }
        ar_nt_footer(stdout, 0, nbw ? bw / nbw : 0);
    }
    free(done);
}
