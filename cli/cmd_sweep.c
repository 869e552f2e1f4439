/* arlab sweep FILE.json [-j N] [--out DIR] [--quiet]
 *
 * Runs the grid of a sweep file (lab/sweep/sweep_spec.h, experiments/README.md) and
 * writes DIR/NAME.csv and DIR/NAME.json (DIR defaults to "out"). Points whose
 * rows are already in DIR/NAME.csv are skipped (resume); -j N evaluates the
 * rest in N forked processes, each writing its rows to a private part file
 * (DIR/.NAME.partPID-K, unique per run so salvaged ones are never truncated)
 * that the parent merges in grid order, so the output is the same bytes for
 * any N. Progress goes to stderr: a bar with rate and ETA on a terminal, a
 * plain line at most once a second otherwise. Rows are also appended to the
 * part files as points finish, so a run that is interrupted (Ctrl-C, a crash)
 * loses nothing: the next run salvages them (by key) before it resumes.
 * DIR/.NAME.lock is held while the run lasts and removed when it ends (also
 * on a signal); DIR/.NAME.run notes how the run was started, for `arlab
 * report` to name the command that resumes an interrupted run.
 *
 * -j and --quiet are this verb's own flags (taken out of argv by the option table,
 * cli_take_own, before the shared parser in opts.c sees the rest: FILE and --out). */
#include <errno.h>
#include <stddef.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "opttab.h"
#include "cli.h"
#include "progress.h"
#include "core/util.h"
#include "lab/sweep/sweep.h"

/* Called by the engine as points finish (sweep_run_points; 0 = just redraw). */
static void on_progress(void *arg, int done) { cli_progress_add(arg, done); }

static void usage(void) {
    fprintf(stderr, "usage: arlab sweep FILE.json [-j N] [--out DIR] [--quiet]\n"
                    "  runs the grid of FILE.json, writes DIR/NAME.csv and DIR/NAME.json (DIR: out);\n"
                    "  points already in DIR/NAME.csv are skipped; -j N runs N processes\n");
}

#define SWEEP_HELP (-1) /* sweep_flags: the usage was asked for and printed */

/* The verb's own options as the option table says them (cli_take_own): -j N / -jN / --jobs N, --quiet. */
typedef struct sweep_own {
    int nj, quiet;
} sweep_own;

/* The verb's own flags (the table's, then -h) out of argv, the rest into rest (CLI_MAX_LIST * 2 entries); AR_OK,
 * SWEEP_HELP, or AR_EINVAL after one line. */
static int sweep_flags(int argc, char **argv, char **rest, int *nrest, int *nj, int *quiet) {
    static const cli_ownopt own[] = {{"--jobs", offsetof(sweep_own, nj)}, {"--quiet", offsetof(sweep_own, quiet)}};
    sweep_own so = {.nj = 1, .quiet = 0};
    *nrest = 0;
    /* a copy: argv stays as given for the run note (sweep_note_run) */
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args) {
        fprintf(stderr, "arlab sweep: out of memory\n");
        return AR_EINVAL;
    }
    memcpy(args, argv, (size_t)argc * sizeof *args);
    int nargs = argc, st = AR_OK;
    if (cli_take_own(&nargs, args, own, (int)(sizeof own / sizeof own[0]), &so, "sweep") != AR_OK) st = AR_EINVAL;
    for (int i = 0; st == AR_OK && i < nargs; i++) {
        if (!strcmp(args[i], "-h") || !strcmp(args[i], "--help")) {
            usage();
            st = SWEEP_HELP;
        } else if (*nrest == CLI_MAX_LIST * 2) {
            fprintf(stderr, "arlab sweep: too many arguments\n");
            st = AR_EINVAL;
        } else {
            rest[(*nrest)++] = args[i];
        }
    }
    free(args);
    *nj = so.nj;
    *quiet = so.quiet;
    return st;
}

/* The line on stderr after a run (unless quiet): rows, points run and resumed, where they went, and the rows
 * that did not price; returns the rows with status error. */
static int sweep_summary(const sweep_ctx *ctx, const sweep_rows *all, int ntodo, const char *dir, int quiet) {
    int nerr = 0, nmiss = 0, nuns = 0, nbudget = 0;
    for (int i = 0; i < all->n; i++) {
        const char *s = all->r[i].f[SC_STATUS];
        nerr += !strcmp(s, "error");
        nbudget += !strcmp(s, "budget");
        nmiss += !strcmp(s, "missing");
        nuns += !strcmp(s, "unsupported");
    }
    if (quiet) return nerr;
    fprintf(stderr, "%s: %d rows (%d points run, %d resumed) -> %s/%s.csv, .json", ctx->spec->name, all->n, ntodo,
            ctx->npoints - ntodo, dir, ctx->spec->name);
    if (nuns) fprintf(stderr, "; %d unsupported", nuns);
    if (nmiss) fprintf(stderr, "; %d without measurement", nmiss);
    if (nbudget) fprintf(stderr, "; %d stopped by sim.budget (status budget; kept on resume)", nbudget);
    if (nerr) fprintf(stderr, "; %d errors (see the message column)", nerr);
    fputc('\n', stderr);
    return nerr;
}

int cmd_sweep(int argc, char **argv) {
    char *rest[CLI_MAX_LIST * 2];
    int nrest, nj, quiet;
    int fl = sweep_flags(argc, argv, rest, &nrest, &nj, &quiet);
    if (fl == SWEEP_HELP) return 0;
    if (fl != AR_OK) return fl;
    cli_opts o;
    if (cli_parse(nrest, rest, OPT_OUT | OPT_POSITIONAL, &o, "sweep") != AR_OK) return AR_EINVAL;
    if (o.npositional != 1) {
        usage();
        return AR_EINVAL;
    }
    const char *dir = o.out ? o.out : "out";
    ar_err e = {{0}};
    sweep_ctx ctx;
    ar_status st = sweep_open(o.positional[0], &ctx, &e);
    if (st) return cli_error(st, &e);

    size_t plen = strlen(dir) + strlen(ctx.spec->name) + 8;
    char *csv = malloc(plen);
    sweep_rows old = {0, 0, NULL}, fresh = {0, 0, NULL}, all = {0, 0, NULL};
    int *todo = NULL, ntodo = 0, *fresh_of_point = ar_calloc((size_t)ctx.npoints + 1, sizeof(int));
    if (!csv || !fresh_of_point) st = ar_fail(&e, AR_ENOMEM, "out of memory");
    int lockfd = -1; /* held until the run ends: see sweep_lock */
    if (!st) st = sweep_mkdirs(dir, &e);
    if (!st) st = sweep_lock(dir, ctx.spec->name, &lockfd, &e);
    if (!st) {
        /* on a signal the handler removes the lock file (it would stay, with a dead pid) */
        char lockpath[4200];
        snprintf(lockpath, sizeof lockpath, "%s/.%s.lock", dir, ctx.spec->name);
        ar_interrupt_remove_file(lockpath);
        /* how this run was started: an interrupted run's report says how to resume it */
        sweep_note_run(dir, ctx.spec->name, argc, argv, ctx.npoints);
    }
    if (!st) {
        snprintf(csv, plen, "%s/%s.csv", dir, ctx.spec->name);
        st = sweep_read_csv(csv, &old, &e);
    }
    if (!st) {
        int salvaged = sweep_salvage_parts(&ctx, dir, &old, &e);
        if (salvaged < 0) st = AR_ENOMEM;
        else if (salvaged && !quiet)
            fprintf(stderr, "%s: %d rows salvaged from an interrupted run\n", ctx.spec->name, salvaged);
    }
    int nstale[3];
    if (!st && !(todo = sweep_todo(&ctx, &old, &ntodo, nstale, &e))) st = AR_ENOMEM;
    if (!st && !quiet && nstale[0] + nstale[1] + nstale[2] > 0)
        fprintf(stderr,
                "%s: running again %d point(s) whose rows are stale: %d computed by another arlab version, %d on a "
                "platform that has changed, %d under another sim network\n",
                ctx.spec->name, nstale[0] + nstale[1] + nstale[2], nstale[0], nstale[1], nstale[2]);
    if (!st) {
        for (int i = 0; i < ctx.npoints; i++) fresh_of_point[i] = -1;
        cli_progress pg;
        cli_progress_start(&pg, ctx.spec->name, ntodo, quiet);
        if (!quiet && ntodo < ctx.npoints)
            fprintf(stderr, "%s: %d of %d points already in %s, running %d\n", ctx.spec->name, ctx.npoints - ntodo,
                    ctx.npoints, csv, ntodo);
        /* on Ctrl-C: the finished points are in DIR's part files; the next run salvages them */
        ar_interrupt_hint("the finished points are kept in the --out directory: run the same command again to "
                          "resume");
        st = sweep_run_points(&ctx, dir, todo, ntodo, nj, on_progress, &pg, &fresh, fresh_of_point, &e);
        cli_progress_stop(&pg);
    }
    if (!st) st = sweep_merge(&ctx, fresh_of_point, &fresh, &old, &all, &e);
    if (!st) st = sweep_fill_baseline(&ctx, &all, &e);
    if (!st) st = sweep_write(&ctx, dir, &all, &e);
    if (!st) sweep_remove_parts(&ctx, dir);
    int nerr = st ? 0 : sweep_summary(&ctx, &all, ntodo, dir, quiet);
    sweep_rows_free(&old);
    sweep_rows_free(&fresh);
    sweep_rows_free(&all);
    free(todo);
    free(fresh_of_point);
    free(csv);
    ar_interrupt_remove_file(NULL);
    sweep_unlock(dir, ctx.spec->name, lockfd); /* no lock file outlives the run */
    sweep_close(&ctx);
    if (st) return cli_error(st, &e);
    return nerr ? AR_EFAIL : AR_OK;
}
