/* `arlab compare` as a one-point sweep (compare.h). */
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "models/nccl_model.h"

#include "backend.h"
#include "compare.h"

/* NCCL's model of coll on p: algorithm fa / protocol fp when given (NCCL's names, "" = NCCL's choice; a protocol
 * that NCCL's model disables there is left to the model), else NCCL's choice. NAN where the model does not apply. */
static double nccl_model(const ar_platform *p, ar_coll coll, const char *fa, const char *fp, double bytes,
                         lab_compare_row *out) {
    int nc = coll == AR_COLL_REDUCESCATTER ? AR_NCCL_REDUCESCATTER
             : coll == AR_COLL_ALLGATHER   ? AR_NCCL_ALLGATHER
                                           : AR_NCCL_ALLREDUCE;
    int fa_i = fa && fa[0] ? ar_nccl_algo_parse(fa) : -1, fp_i = fp && fp[0] ? ar_nccl_proto_parse(fp) : -1;
    ar_nccl_in in;
    ar_nccl_algo a;
    ar_nccl_proto pr;
    double t = NAN, t2;
    ar_err e2 = {{0}};
    if (ar_nccl_in_from_platform(p, 0, &in, &e2) != AR_OK ||
        ar_nccl_model_choose(&in, (ar_nccl_coll)nc, fa_i, bytes, &a, &pr, &t, &e2) != AR_OK)
        return NAN;
    if (fp_i >= 0 && fp_i != (int)pr &&
        ar_nccl_model_time(&in, (ar_nccl_coll)nc, a, (ar_nccl_proto)fp_i, bytes, &t2, &e2) == AR_OK)
        t = t2, pr = (ar_nccl_proto)fp_i;
    snprintf(out->nccl_algo, sizeof out->nccl_algo, "%s", ar_nccl_algo_name(a));
    snprintf(out->nccl_proto, sizeof out->nccl_proto, "%s", ar_nccl_proto_name(pr));
    return t;
}

ar_status lab_compare_point(const ar_platform *p, const char *algo, uint64_t count, size_t elem_bytes,
                            const lab_measures *meas, const lab_compare_opts *co, lab_compare_row *out, ar_err *e) {
    ar_coll coll = co ? co->coll : AR_COLL_ALLREDUCE;
    memset(out, 0, sizeof *out);
    out->bytes = (double)count * (double)elem_bytes;
    out->model_s = out->sim_s = out->measured_s = out->nccl_s = out->sim_err = out->measured_err = NAN;
    out->wrong = -1;
    out->nccl_model_s = out->mpi_s = out->nccl_model_err = out->model_vs_nccl = out->sim_vs_nccl = NAN;
    out->mpi_vs_nccl = NAN;
    lab_eval ev;
    lab_eval_opts eo = {.coll = coll};
    ar_status st = lab_eval_model(p, algo, count, elem_bytes, &eo, &ev, e);
    if (st != AR_OK) return st;
    out->model_s = ev.model_s;
    const lab_backend *sim = lab_backend_find("sim");
    if (sim && sim->available) {
        lab_point_in in = {.p = p, .sch = ev.sch, .algo = algo, .bytes = out->bytes, .walk_s = ev.walk_s};
        lab_point_out po;
        memset(&po, 0, sizeof po);
        po.status = "ok";
        po.time_s = po.sim_s = po.measured_s = NAN;
        sim->run(&in, &po);
        out->sim_s = po.sim_s;
        if (strcmp(po.status, "ok")) snprintf(out->sim_msg, sizeof out->sim_msg, "%s", po.message);
    }
    if (meas) {
        int i = lab_measured_find(meas, algo, p->nranks, out->bytes);
        int k = lab_measured_find(meas, "nccl-allreduce", p->nranks, out->bytes);
        if (i >= 0) {
            out->measured_s = meas->m[i].measured_s;
            out->wrong = meas->wrong[i];
        }
        if (k >= 0) out->nccl_s = meas->m[k].measured_s;
        int q = lab_measured_find(meas, "mpi-allreduce", p->nranks, out->bytes);
        if (q >= 0) out->mpi_s = meas->m[q].measured_s;
        /* the library's own all-reduce as the baseline: ncclAllReduce, else MPI_Allreduce (arlab-mpi's rows on the
         * testbed) */
        if (k < 0 && q >= 0) out->nccl_s = out->mpi_s;
    }
    {
        int k = meas ? lab_measured_find(meas, "nccl-allreduce", p->nranks, out->bytes) : -1;
        const char *fa = k >= 0 && meas->nccl_algo ? meas->nccl_algo[k] : "",
                   *fp = k >= 0 && meas->nccl_proto ? meas->nccl_proto[k] : "";
        out->nccl_model_s = nccl_model(p, coll, fa, fp, out->bytes, out);
    }
    out->nccl_model_err = lab_rel(out->nccl_model_s, out->nccl_s);
    out->model_vs_nccl = lab_rel(out->model_s, out->nccl_s);
    out->sim_vs_nccl = lab_rel(out->sim_s, out->nccl_s);
    out->mpi_vs_nccl = lab_rel(out->mpi_s, out->nccl_s);
    double m = out->model_s;
    out->sim_err = m > 0 ? (out->sim_s - m) / m : NAN;
    out->measured_err = m > 0 ? (out->measured_s - m) / m : NAN;
    lab_eval_free(&ev);
    return AR_OK;
}

/* One data block of the script: x and y where both are finite, rows of platform pl (and algorithm a >= 0). */
static int block(FILE *f, const char *name, const lab_compare_row *rows, const int *algo_of, const int *plat_of, int n,
                 int pl, int a, int field, int busbw, int nranks) {
    fprintf(f, "$%s << EOD\n", name);
    int c = 0;
    for (int i = 0; i < n; i++) {
        if (a >= 0 && algo_of[i] != a) continue;
        if (plat_of && plat_of[i] != pl) continue;
        const lab_compare_row *r = &rows[i];
        double t = field == 0   ? r->model_s
                   : field == 1 ? r->sim_s
                   : field == 2 ? r->nccl_model_s
                   : field == 3 ? r->nccl_s
                                : r->mpi_s;
        if (!(t > 0) || !isfinite(t)) continue;
        double y = busbw ? lab_busbw_GBps(AR_NCCL_ALLREDUCE, nranks, r->bytes, t) : t * 1e6;
        fprintf(f, "%.17g %.17g\n", r->bytes, y);
        c++;
    }
    fprintf(f, "EOD\n");
    return c;
}

/* ", " before every entry but the first. */
static void entry(FILE *f, int *first, const char *style, const char *name, const char *title) {
    fprintf(f, "%s$%s with %s title \"%s\"", *first ? "plot " : ", ", name, style, title);
    *first = 0;
}

ar_status lab_compare_plot(const lab_compare_row *rows, const int *algo_of, int n, const char *const *algos, int nalgos,
                           int nranks, const char *title, const char *path, ar_err *e) {
    const char *one[1] = {""};
    return lab_compare_plot_multi(rows, algo_of, NULL, n, algos, nalgos, one, &nranks, 1, title, path, e);
}

/* A title safe inside gnuplot's double quotes. */
static void clean(char *s) {
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) *s = '_';
}

ar_status lab_compare_plot_multi(const lab_compare_row *rows, const int *algo_of, const int *plat_of, int n,
                                 const char *const *algos, int nalgos, const char *const *plats, const int *plat_ranks,
                                 int nplats, const char *title, const char *path, ar_err *e) {
    size_t len = strlen(path);
    const char *term;
    if (len > 4 && !strcmp(path + len - 4, ".png")) term = "pngcairo size 1200,500 noenhanced";
    else if (len > 4 && !strcmp(path + len - 4, ".svg")) term = "svg size 1200,500 noenhanced";
    else return ar_fail(e, AR_EINVAL, "--plot %s: give a .png or .svg file", path);
    if (strchr(path, '"') || strchr(path, '\\'))
        return ar_fail(e, AR_EINVAL, "--plot %s: the name may not contain quotes or backslashes", path);
    if (nplats < 1) return ar_fail(e, AR_EINVAL, "--plot: no platform");
    char *gp = malloc(len + 4);
    if (!gp) return ar_fail(e, AR_ENOMEM, "out of memory");
    snprintf(gp, len + 4, "%s.gp", path);
    FILE *f = fopen(gp, "w");
    if (!f) {
        ar_status st = ar_fail(e, AR_EIO, "cannot write %s", gp);
        free(gp);
        return st;
    }
    static const char *const what[5] = {"model", "sim", "nccl_model", "nccl", "mpi"};
    int nslot = nalgos * 2 + 3;
    int *has = calloc((size_t)(2 * nslot * nplats), sizeof *has); /* [busbw][platform][slot] */
    if (!has) {
        fclose(f), free(gp);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    char name[64], ttl[512], pn[256];
    /* one series per platform: the data blocks are named WHAT_pPLATFORM_ALGO_BUSBW */
    for (int busbw = 0; busbw < 2; busbw++)
        for (int pl = 0; pl < nplats; pl++)
            for (int w = 0; w < 5; w++)
                for (int a = 0; a < (w <= 1 ? nalgos : 1); a++) {
                    int slot = w <= 1 ? w * nalgos + a : 2 * nalgos + (w - 2);
                    snprintf(name, sizeof name, "%s_p%d_%d_%d", what[w], pl, w <= 1 ? a : 0, busbw);
                    has[(busbw * nplats + pl) * nslot + slot] = block(f, name, rows, algo_of, plat_of, n, pl,
                                                                      w <= 1 ? a : -1, w, busbw, plat_ranks[pl]);
                }
    fprintf(f, "set terminal %s\nset output \"%s\"\nset multiplot layout 1,2 title \"%s\"\n", term, path,
            title ? title : "");
    fprintf(f, "set logscale x 2\nset format x \"%%.0b%%B\"\nset xlabel \"size (bytes)\"\nset key left top\n"
               "set grid\n");
    for (int busbw = 0; busbw < 2; busbw++) {
        fprintf(f, busbw ? "unset logscale y\nset ylabel \"busbw (GB/s)\"\n"
                         : "set logscale y\nset ylabel \"time (us)\"\n");
        int first = 1;
        for (int pl = 0; pl < nplats; pl++) {
            /* line style per platform: solid, dashed, dotted, ...; measured points: a marker per platform */
            int dt = 1 + pl % 5, pt = (int[]){7, 5, 9, 11, 13}[pl % 5];
            snprintf(pn, sizeof pn, "%s", plats[pl] ? plats[pl] : "");
            clean(pn);
            for (int w = 0; w < 5; w++)
                for (int a = 0; a < (w <= 1 ? nalgos : 1); a++) {
                    int slot = w <= 1 ? w * nalgos + a : 2 * nalgos + (w - 2);
                    if (!has[(busbw * nplats + pl) * nslot + slot]) continue;
                    snprintf(name, sizeof name, "%s_p%d_%d_%d", what[w], pl, w <= 1 ? a : 0, busbw);
                    char style[64];
                    if (w == 3) snprintf(style, sizeof style, "points pt %d ps 1.5", pt);
                    else if (w == 4) snprintf(style, sizeof style, "points pt %d ps 1.0", pt + 1);
                    else if (nplats > 1) snprintf(style, sizeof style, "lines lw %d dt %d", w == 1 ? 1 : 2, dt);
                    else snprintf(style, sizeof style, "%s", w == 1 ? "lines dt 2" : "lines lw 2");
                    if (w == 0) snprintf(ttl, sizeof ttl, "model %s", algos[a]);
                    else if (w == 1) snprintf(ttl, sizeof ttl, "sim %s", algos[a]);
                    else
                        snprintf(ttl, sizeof ttl, "%s",
                                 w == 2   ? "NCCL model"
                                 : w == 3 ? "measured NCCL"
                                          : "measured MPI");
                    if (nplats > 1) {
                        size_t tl = strlen(ttl);
                        snprintf(ttl + tl, sizeof ttl - tl, " [%s, %d ranks]", pn, plat_ranks[pl]);
                    }
                    entry(f, &first, style, name, ttl);
                }
        }
        fprintf(f, first ? "plot 0 notitle\n" : "\n");
    }
    free(has);
    fprintf(f, "unset multiplot\n");
    if (fclose(f) != 0) {
        ar_status st = ar_fail(e, AR_EIO, "cannot write %s", gp);
        free(gp);
        return st;
    }
    pid_t pid;
    char *argv[] = {"gnuplot", gp, NULL};
    extern char **environ;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    int ws = 0;
    if (rc == 0 && waitpid(pid, &ws, 0) < 0) rc = -1;
    ar_status st = AR_OK;
    if (rc != 0) st = ar_fail(e, AR_EUNSUPPORTED, "--plot: cannot run gnuplot (the script is %s)", gp);
    else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        st = ar_fail(e, AR_EIO, "--plot: gnuplot %s failed (exit %d)", gp, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    free(gp);
    return st;
}
