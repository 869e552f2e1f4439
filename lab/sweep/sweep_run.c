/* Running the points of a sweep (sweep.h): in this process or in N forked
 * workers, each writing its rows to a private part file (sweep_parts.c) that
 * the parent reads back, so the results are the same bytes for every N. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "sweep.h"

static void tick_write(void *arg) {
    int fd = *(const int *)arg;
    char b = 1;
    while (write(fd, &b, 1) < 0 && errno == EINTR) {}
}

/* Child k of nj: evaluates todo[k], todo[k+nj], ... into part file `path`
 * (lines "INDEX<TAB>CSV"), one byte to `tick` per point. Never returns. */
static void child_run(sweep_ctx *ctx, const int *todo, int ntodo, int k, int nj, const char *path, int tick) {
    FILE *f = fopen(path, "wb");
    if (!f) _exit(AR_EIO);
    ar_err e = {{0}};
    ar_status st = sweep_eval_to(ctx, todo, ntodo, k, nj, f, tick_write, &tick, &e);
    if (st) {
        fprintf(stderr, "arlab sweep: %s\n", e.msg);
        _exit(st);
    }
    if (fclose(f) != 0) _exit(AR_EIO);
    _exit(0);
}

/* Evaluates the todo points with nj processes (nj = 1: in this process). */
ar_status sweep_run_points(sweep_ctx *ctx, const char *dir, const int *todo, int ntodo, int nj,
                           void (*progress)(void *arg, int done), void *arg, sweep_rows *fresh, int *fresh_of_point,
                           ar_err *e) {
    if (nj > ntodo) nj = ntodo;
    if (nj > SWEEP_MAX_JOBS) nj = SWEEP_MAX_JOBS;
    if (nj <= 1) {
        /* rows also go to a part file as they come: an interrupted run is salvaged by the next */
        char path[4096];
        snprintf(path, sizeof path, "%s/.%s.part%ld-0", dir, ctx->spec->name, (long)getpid());
        FILE *pf = fopen(path, "wb");
        for (int t = 0; t < ntodo; t++) {
            int first = fresh->n;
            ar_status st = sweep_eval(ctx, todo[t], fresh, e);
            if (st) {
                if (pf) fclose(pf);
                return st;
            }
            fresh_of_point[todo[t]] = first;
            for (int r = first; pf && r < fresh->n; r++) sweep_part_line(pf, todo[t], &fresh->r[r]);
            if (pf) fflush(pf);
            if (progress) progress(arg, 1);
        }
        if (pf) fclose(pf);
        return AR_OK;
    }
    int tick[2];
    if (pipe(tick) != 0) return ar_fail(e, AR_EIO, "pipe: %s", strerror(errno));
    pid_t pids[SWEEP_MAX_JOBS];
    char paths[SWEEP_MAX_JOBS][1024];
    int started = 0;
    ar_status st = AR_OK;
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < nj; k++) {
        snprintf(paths[k], sizeof paths[k], "%s/.%s.part%ld-%d", dir, ctx->spec->name, (long)getpid(), k);
        pid_t pid = fork();
        if (pid < 0) {
            st = ar_fail(e, AR_EIO, "fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            ar_interrupt_child_setup(0, 0); /* dies with the parent; on SIGINT kills its own simulations */
            close(tick[0]);
            child_run(ctx, todo, ntodo, k, nj, paths[k], tick[1]);
        }
        ar_interrupt_child_add(pid);
        pids[started++] = pid;
    }
    close(tick[1]);
    char buf[256];
    ssize_t got;
    while ((got = read(tick[0], buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (progress) progress(arg, (int)got);
    }
    close(tick[0]);
    for (int k = 0; k < started; k++) {
        int ws = 0;
        while (waitpid(pids[k], &ws, 0) < 0 && errno == EINTR) {}
        ar_interrupt_child_remove(pids[k]);
        if (!st && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0))
            st = ar_fail(e, AR_EINTERNAL, "worker %d failed (%s %d)", k, WIFEXITED(ws) ? "exit" : "signal",
                         WIFEXITED(ws)     ? WEXITSTATUS(ws)
                         : WIFSIGNALED(ws) ? WTERMSIG(ws)
                                           : -1);
    }
    for (int k = 0; k < started && !st; k++) st = sweep_read_part(ctx, paths[k], fresh, fresh_of_point, e);
    return st; /* the part files are removed once the results are written */
}
