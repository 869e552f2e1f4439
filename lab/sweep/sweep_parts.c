/* Part files of a sweep run (sweep.h): rows of points as they finish, one
 * "POINT<TAB>CSV" line each (every column of the schema in table order),
 * read back by the parent, or salvaged by the next run after an interruption. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "sweep.h"

int sweep_part_line(FILE *f, int point, const sweep_row *r) {
    char *l = sweep_row_csv(r);
    if (!l) return -1;
    fprintf(f, "%d\t%s\n", point, l);
    free(l);
    return 0;
}

ar_status sweep_eval_to(sweep_ctx *ctx, const int *todo, int ntodo, int k, int nj, FILE *f, void (*tick)(void *arg),
                        void *arg, ar_err *e) {
    sweep_rows rows = {0, 0, NULL};
    ar_status st = AR_OK;
    for (int t = k; !st && t < ntodo; t += nj) {
        int first = rows.n;
        st = sweep_eval(ctx, todo[t], &rows, e);
        for (int r = first; !st && r < rows.n; r++)
            if (sweep_part_line(f, todo[t], &rows.r[r]) < 0) st = ar_fail(e, AR_ENOMEM, "out of memory");
        if (!st && fflush(f) != 0) st = ar_fail(e, AR_EIO, "cannot write a part file (%s)", strerror(errno));
        sweep_rows_free(&rows);
        if (!st && tick) tick(arg);
    }
    sweep_rows_free(&rows);
    return st;
}

ar_status sweep_read_part(const sweep_ctx *ctx, const char *path, sweep_rows *fresh, int *fresh_of_point, ar_err *e) {
    FILE *f = fopen(path, "rb");
    if (!f) return ar_fail(e, AR_EIO, "%s: cannot read a worker's results", path);
    ar_status st = AR_OK;
    char *line = NULL;
    size_t cap = 0;
    int prev = -1;
    while (!st && getline(&line, &cap, f) >= 0) {
        st = sweep_add_tagged(ctx, line, fresh, fresh_of_point, &prev, e);
        if (st) ar_err_prefix(e, "%s", path);
    }
    free(line);
    fclose(f);
    return st;
}

int sweep_part_rows(const char *path, int (*row)(char **fs, void *ctx), void *ctx) {
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int go = 1;
    while (go && (len = getline(&line, &cap, f)) >= 0) {
        if (len && line[len - 1] == '\n') line[--len] = 0;
        char *tab = strchr(line, '\t'); /* "point-index<TAB>CSV row" */
        if (!tab) continue;
        char **fs = NULL;
        int nf = ar_csv_split(tab + 1, &fs, LAB_NCOLS + 1);
        if (nf == LAB_NCOLS) go = row(fs, ctx);
        ar_csv_free(fs, nf > 0 ? nf : 0);
    }
    free(line);
    fclose(f);
    return go;
}

/* sweep_part_rows: a row appended to the salvaged rows (its fields taken) */
static int salvage_row(char **fs, void *ctx) {
    sweep_row *r = sweep_rows_add(ctx);
    if (!r) return 0;
    for (int c = 0; c < LAB_NCOLS; c++) {
        r->f[c] = fs[c];
        fs[c] = NULL;
    }
    return 1;
}

int sweep_salvage_parts(const sweep_ctx *ctx, const char *dir, sweep_rows *old, ar_err *e) {
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/.%s.part*", dir, ctx->spec->name);
    glob_t g;
    memset(&g, 0, sizeof g);
    if (glob(pat, 0, NULL, &g) != 0) return 0;
    int n0 = old->n, ok = 1;
    for (size_t k = 0; k < g.gl_pathc && ok; k++) ok = sweep_part_rows(g.gl_pathv[k], salvage_row, old);
    globfree(&g);
    if (!ok) return ar_fail(e, AR_ENOMEM, "out of memory"), -1;
    return old->n - n0;
}

void sweep_remove_parts(const sweep_ctx *ctx, const char *dir) {
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/.%s.part*", dir, ctx->spec->name);
    glob_t g;
    memset(&g, 0, sizeof g);
    if (glob(pat, 0, NULL, &g) == 0)
        for (size_t k = 0; k < g.gl_pathc; k++) unlink(g.gl_pathv[k]);
    globfree(&g);
    snprintf(pat, sizeof pat, "%s/.%s.run", dir, ctx->spec->name);
    unlink(pat); /* the run note matters only while part files are left */
}
