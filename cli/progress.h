/* Progress on stderr. A sweep's bar (cli_progress_*): on a terminal it is
 * redrawn twice a second by a ticker thread (so elapsed time and ETA move
 * while a long point runs), fits the terminal's width (TIOCGWINSZ; no stray
 * characters: each redraw clears to the end of the line), and takes its ETA
 * from the recent rate (points over the last ~30 s), not the mean since the
 * start; elsewhere a plain line at most once a second. A status line for long
 * sim/best runs (cli_status): on a terminal only, erased before the verb
 * prints. Ownership: cli_progress_start/stop pair up; nothing else allocates. */
#ifndef AR_CLI_PROGRESS_H
#define AR_CLI_PROGRESS_H

#include <pthread.h>

#define CLI_PROGRESS_SAMPLES 64

typedef struct cli_progress {
    int total, done;
    int tty, quiet;
    double t0, last;
    const char *name;
    double st[CLI_PROGRESS_SAMPLES]; /* (time, done) of recent updates, a ring */
    int sd[CLI_PROGRESS_SAMPLES];
    int ns, head;
    pthread_mutex_t mu;
    pthread_t ticker;
    int running, stop;
} cli_progress;

void cli_progress_start(cli_progress *pg, const char *name, int total, int quiet);
/* done more points finished (0: just redraw). Safe from any thread. */
void cli_progress_add(cli_progress *pg, int done);
void cli_progress_stop(cli_progress *pg);

/* A one-line status on a terminal's stderr ("" or NULL erases it). */
void cli_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
