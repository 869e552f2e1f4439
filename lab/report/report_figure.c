/* The default figure of a sweep without figures of its own (report.h): time
 * per all-reduce against the message size, one line per algorithm, one panel
 * per platform, drawn by gnuplot from the sweep's CSV. Both axes are log
 * scale over the data's decades, with engineering tick labels ("1 KB",
 * "10 MB", "100 µs", "1 ms") written out as explicit tics, since gnuplot's own
 * log-axis labels mix "100000" with "1x10^6" and "0.000010". The figure is
 * 800 px wide (the report shows it at that size) with 14 px text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "report.h"

#define FIG_W 800   /* px: the report shows the SVG at its own size */
#define FIG_FONT 14 /* px: tick labels, axis labels, panel titles */
#define FIG_KEY 13  /* px: the key */

/* A gnuplot string literal: single quotes, a quote doubled. */
static void gp_str(FILE *g, const char *s) {
    fputc('\'', g);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', g);
        fputc(*s, g);
    }
    fputc('\'', g);
}

/* The label of 10^k: bytes ("1 B", "10 KB", "1 GB"; decimal units like the
 * sweep's sizes) or seconds ("1 ns", "100 µs", "10 ms", "1 s"). */
void report_eng_label(int k, int bytes, char *buf, size_t n) {
    static const char *const bu[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"}; /* 10^0 .. 10^18 */
    static const char *const tu[] = {"ps", "ns", "µs", "ms", "s"};             /* 10^-12 .. 10^0 */
    int u = (int)floor(k / 3.0); /* 10^k is 10^(k - 3u) of the unit 10^(3u) */
    int lo = bytes ? 0 : -4, hi = bytes ? 6 : 0;
    if (u < lo) u = lo;
    if (u > hi) u = hi;
    snprintf(buf, n, "%.15g %s", pow(10, k - 3 * u), bytes ? bu[u] : tu[u + 4]);
}

/* Decades of a log axis over [lo, hi] (both > 0): *k0..*k1 with 10^k0 <= lo
 * and 10^k1 >= hi, and the axis range: those decades and a twentieth of a
 * decade more either side (a point on a decade is not drawn on the frame), or
 * half a decade either side of a single value that is a power of ten. */
static void axis_range(double lo, double hi, int *k0, int *k1, double *r0, double *r1) {
    *k0 = (int)floor(log10(lo) + 1e-9);
    *k1 = (int)ceil(log10(hi) - 1e-9);
    double pad = *k1 <= *k0 ? 0.5 : 0.05;
    *r0 = pow(10, *k0 - pad);
    *r1 = pow(10, (*k1 > *k0 ? *k1 : *k0) + pad);
}

/* How many multiples of step lie in k0..k1. */
static int nmult(int k0, int k1, int step) {
    int n = 0;
    for (int k = k0; k <= k1; k++) n += ((k % step) + step) % step == 0;
    return n;
}

/* set xtics/ytics: a label on every decade of k0..k1, or, when more than
 * maxlab labels would not fit, on every 3rd (1 KB, 1 MB, 1 GB: where that
 * still labels three decades), every 2nd, or every 6th, 9th, ...; the other
 * decades get an unlabelled tic. */
static void tics(FILE *g, char axis, int k0, int k1, int bytes, int maxlab) {
    if (maxlab < 2) maxlab = 2;
    int step = 1;
    if (nmult(k0, k1, 1) > maxlab) step = nmult(k0, k1, 3) >= 3 && nmult(k0, k1, 3) <= maxlab ? 3 : 2;
    while (nmult(k0, k1, step) > maxlab) step = step < 3 ? 3 : step + 3;
    fprintf(g, "set %ctics (", axis);
    for (int k = k0; k <= k1; k++) {
        char lab[32];
        report_eng_label(k, bytes, lab, sizeof lab);
        int major = step == 1 || ((k % step) + step) % step == 0;
        fprintf(g, "%s", k > k0 ? ", " : "");
        gp_str(g, major ? lab : "");
        fprintf(g, " 1e%d %d", k, major ? 0 : 1);
    }
    fputs(")\n", g);
}

/* Writes the gnuplot script of the figure to g. */
static void script(FILE *g, const char *dir, const char *name, const char *out, const sweep_rows *rows, char **plats,
                   int nplats, char **algos, int nalgos) {
    /* one panel a row (800 px wide) up to three platforms, two a row beyond */
    int cols = nplats <= 3 ? 1 : 2, nrow = (nplats + cols - 1) / cols;
    int pw = FIG_W / cols, ph = cols == 1 ? 420 : 380;
    fprintf(g,
            "# The default figure of sweep %s, written by arlab report: gnuplot this file (from the directory\n"
            "# arlab report ran in) draws it again.\n",
            name);
    fprintf(g, "set terminal svg enhanced font 'DejaVu Serif,%d' size %d,%d dashed rounded\n", FIG_FONT, FIG_W,
            ph * nrow + 40);
    fputs("set encoding utf8\nset output ", g);
    gp_str(g, out);
    fputs("\nset datafile separator ','\nset datafile missing NaN\n", g);
    fputs("set logscale xy\nset grid xtics ytics mxtics mytics lc rgb '#d0d0d0' lw 1 dt 3\nset border lw 1\n", g);
    fputs("set tics out nomirror\nset xlabel 'message size'\nset ylabel 'time per all-reduce'\n", g);
    fprintf(g, "set key below horizontal Left reverse noenhanced font ',%d' samplen 2.5 width 1 height 1\n", FIG_KEY);
    fputs("set style data linespoints\n", g);
    fprintf(g, "set multiplot layout %d,%d title ", nrow, cols);
    char title[400];
    snprintf(title, sizeof title, "Sweep %s: time per all-reduce", name);
    gp_str(g, title);
    fprintf(g, " noenhanced font ',%d'\n", FIG_FONT + 2);
    char csv[4200];
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, name);
    for (int p = 0; p < nplats; p++) {
        double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
        for (int i = 0; i < rows->n; i++) {
            const sweep_row *r = &rows->r[i];
            if (strcmp(r->f[SC_STATUS], "ok") || strcmp(r->f[SC_PLATFORM], plats[p])) continue;
            double x = atof(r->f[SC_BYTES]), y = atof(r->f[SC_TIME]);
            if (!(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y)) continue;
            xlo = fmin(xlo, x), xhi = fmax(xhi, x), ylo = fmin(ylo, y), yhi = fmax(yhi, y);
        }
        fputs("set title ", g);
        gp_str(g, plats[p]);
        fputs(" noenhanced\n", g);
        if (xhi > 0) { /* always: only platforms with such a point have a panel */
            int k0, k1;
            double r0, r1;
            axis_range(xlo, xhi, &k0, &k1, &r0, &r1);
            fprintf(g, "set xrange [%.6g:%.6g]\n", r0, r1);
            tics(g, 'x', k0, k1, 1, (pw - 110) / 70 + 1); /* "100 MB" is ~55 px at 14 px, y labels take ~110 */
            axis_range(ylo, yhi, &k0, &k1, &r0, &r1);
            fprintf(g, "set yrange [%.6g:%.6g]\n", r0, r1);
            tics(g, 'y', k0, k1, 0, (ph - 130) / 30 + 1);
        }
        fputs("plot ", g);
        for (int a = 0; a < nalgos; a++) {
            fputs(a ? ", \\\n  " : "", g);
            gp_str(g, csv);
            fputs(" using 'bytes':((strcol('platform') eq ", g);
            gp_str(g, plats[p]);
            fputs(" && strcol('algo') eq ", g);
            gp_str(g, algos[a]);
            fputs(" && strcol('status') eq 'ok') ? column('time_s') : NaN) lw 2 pt 7 ps 0.8 title ", g);
            gp_str(g, algos[a]);
        }
        fputc('\n', g);
    }
    fputs("unset multiplot\nset output\n", g);
}

static int add_once(char ***set, int *n, const char *s) {
    for (int i = 0; i < *n; i++)
        if (!strcmp((*set)[i], s)) return 1;
    char **ns = ar_reallocarray(*set, (size_t)*n + 1, sizeof *ns);
    if (!ns) return 0;
    *set = ns;
    return (ns[*n] = ar_strdup(s)) ? (++*n, 1) : 0;
}

int report_default_figure(const char *dir, const char *name, const sweep_rows *rows) {
    char **plats = NULL, **algos = NULL;
    int np = 0, na = 0, ok = 1;
    for (int i = 0; i < rows->n && ok; i++) {
        /* a panel for each platform with a point to draw on log axes (so each has a range) */
        double x = atof(rows->r[i].f[SC_BYTES]), y = atof(rows->r[i].f[SC_TIME]);
        if (strcmp(rows->r[i].f[SC_STATUS], "ok") || !(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y)) continue;
        ok = add_once(&plats, &np, rows->r[i].f[SC_PLATFORM]) && add_once(&algos, &na, rows->r[i].f[SC_ALGO]);
    }
    char figdir[4200], out[4400], gp[4400];
    snprintf(figdir, sizeof figdir, "%s/fig", dir);
    mkdir(figdir, 0777);
    snprintf(out, sizeof out, "%s/%s-default.svg", figdir, name);
    snprintf(gp, sizeof gp, "%s/%s-default.gp", figdir, name);
    unlink(out);
    /* the script is kept beside the figure (gnuplot fig/NAME-default.gp redraws it) */
    FILE *f = ok && np ? fopen(gp, "wb") : NULL;
    if (f) {
        script(f, dir, name, out, rows, plats, np, algos, na);
        ok = fclose(f) == 0;
    } else {
        ok = 0;
    }
    if (ok) {
        FILE *g = popen("gnuplot 2>/dev/null", "w");
        if (g) {
            fputs("load ", g);
            gp_str(g, gp);
            fputc('\n', g);
        }
        ok = g && pclose(g) == 0;
    }
    for (int i = 0; i < np; i++) free(plats[i]);
    for (int i = 0; i < na; i++) free(algos[i]);
    free(plats);
    free(algos);
    if (!ok) return 0;
    struct stat sb;
    return stat(out, &sb) == 0 && sb.st_size > 0;
}
