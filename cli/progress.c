/* Progress on stderr (progress.h). */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

static int term_width(void) {
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

static void fmt_dur(double s, char *buf, size_t n) {
    if (!(s >= 0) || s > 1e7) snprintf(buf, n, "--:--");
    else if (s >= 3600) snprintf(buf, n, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else snprintf(buf, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

/* Points per second over the recent samples (the last ~30 s), else since the start. */
static double recent_rate(const cli_progress *pg, double t) {
    double t_old = pg->t0;
    int d_old = 0;
    for (int k = 0; k < pg->ns; k++) {
        int i = (pg->head - 1 - k + CLI_PROGRESS_SAMPLES) % CLI_PROGRESS_SAMPLES;
        if (t - pg->st[i] > 30) break;
        t_old = pg->st[i];
        d_old = pg->sd[i];
    }
    if (d_old == pg->done) { /* nothing recent: the mean since the start */
        t_old = pg->t0;
        d_old = 0;
    }
    return t > t_old ? (pg->done - d_old) / (t - t_old) : 0;
}

/* Called with the mutex held. */
static void show(cli_progress *pg, int force) {
    if (pg->quiet || pg->total == 0) return;
    double t = ar_now_s();
    if (!force && t - pg->last < (pg->tty ? 0.1 : 1.0)) return;
    pg->last = t;
    double el = t - pg->t0, rate = recent_rate(pg, t);
    char eta[32], spent[32], line[512], tail[160];
    fmt_dur(rate > 0 ? (pg->total - pg->done) / rate : -1, eta, sizeof eta);
    fmt_dur(el, spent, sizeof spent);
    int pct = (int)(100.0 * pg->done / pg->total);
    if (!pg->tty) {
        fprintf(stderr, "%s: %d/%d points (%d%%), %.2g points/s, elapsed %s, ETA %s\n", pg->name, pg->done, pg->total,
                pct, rate, spent, eta);
        return;
    }
    snprintf(tail, sizeof tail, " %d/%d %3d%%  %.2g pt/s  %s  ETA %s", pg->done, pg->total, pct, rate, spent, eta);
    int w = term_width() - 1, room = w - (int)strlen(pg->name) - (int)strlen(tail) - 3, bw = room < 30 ? room : 30;
    if (bw >= 5) {
        char bar[31];
        int fill = (int)((double)bw * pg->done / pg->total);
        for (int i = 0; i < bw; i++) bar[i] = i < fill ? '#' : '.';
        bar[bw] = 0;
        snprintf(line, sizeof line, "%s [%s]%s", pg->name, bar, tail);
    } else {
        snprintf(line, sizeof line, "%s%s", pg->name, tail);
    }
    if ((int)strlen(line) > w && w > 0) line[w] = 0; /* narrow terminal: cut, never wrap */
    fprintf(stderr, "\r%s\033[K%s", line, pg->done == pg->total ? "\n" : "");
    fflush(stderr);
}

static void *tick(void *arg) {
    cli_progress *pg = arg;
    for (;;) {
        struct timespec ts = {0, 500 * 1000 * 1000};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&pg->mu);
        int stop = pg->stop;
        if (!stop) show(pg, 1);
        pthread_mutex_unlock(&pg->mu);
        if (stop) return NULL;
    }
}

void cli_progress_start(cli_progress *pg, const char *name, int total, int quiet) {
    memset(pg, 0, sizeof *pg);
    pg->total = total;
    pg->quiet = quiet;
    pg->tty = isatty(2);
    pg->name = name;
    pg->t0 = ar_now_s();
    pthread_mutex_init(&pg->mu, NULL);
    if (pg->tty && !quiet && total > 0) pg->running = pthread_create(&pg->ticker, NULL, tick, pg) == 0;
}

void cli_progress_add(cli_progress *pg, int done) {
    pthread_mutex_lock(&pg->mu);
    pg->done += done;
    if (done) {
        pg->st[pg->head] = ar_now_s();
        pg->sd[pg->head] = pg->done;
        pg->head = (pg->head + 1) % CLI_PROGRESS_SAMPLES;
        if (pg->ns < CLI_PROGRESS_SAMPLES) pg->ns++;
    }
    show(pg, pg->done == pg->total);
    pthread_mutex_unlock(&pg->mu);
}

void cli_progress_stop(cli_progress *pg) {
    pthread_mutex_lock(&pg->mu);
    pg->stop = 1;
    pthread_mutex_unlock(&pg->mu);
    if (pg->running) pthread_join(pg->ticker, NULL);
    pg->running = 0;
    pthread_mutex_destroy(&pg->mu);
}

void cli_status(const char *fmt, ...) {
    if (!isatty(2)) return;
    char line[512] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
    }
    int w = term_width() - 1;
    if ((int)strlen(line) > w && w > 0) line[w] = 0;
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}
