/* Interrupts (SIGINT, SIGTERM, SIGHUP) for the whole process tree of one
 * arlab command. The only process-wide mutable state outside main: a signal
 * handler cannot be given a context.
 *
 * ar_interrupt_install (cli/main.c, once, before the verb runs): on a signal
 * the handler sends SIGKILL to every child registered with
 * ar_interrupt_child_add (the SimGrid process of a simulation, the workers of
 * a sweep), writes one line "arlab: interrupted (SIG...); <hint>" to stderr
 * (only in the process that installed it, not in forked workers) and ends the
 * process with 128 + the signal (130 for SIGINT, 143 for SIGTERM). Output
 * already written stays: CSV/JSON rows are streamed and flushed, sweeps keep
 * finished points in their part files (the next run resumes from them).
 *
 * ar_interrupt_child_setup (in a forked child, first thing): PR_SET_PDEATHSIG
 * so the child dies with its parent even on SIGKILL of the parent; `own_group`
 * 1 also moves it into its own process group, so a terminal's Ctrl-C reaches
 * only the parent (SimGrid's own SIGINT handler never runs: the parent kills
 * it). Handlers inherited from the parent stay (a sweep worker kills its own
 * SimGrid children); `reset` 1 restores the defaults instead.
 * ar_interrupt_remove_file: a file the handler deletes (in the installing
 * process only) before it ends the process: a sweep's lock file, which would
 * otherwise outlive the run with a dead pid in it. NULL forgets it.
 * Every function is safe to call without ar_interrupt_install (no-op).
 */
#ifndef AR_INTERRUPT_H
#define AR_INTERRUPT_H

#include <sys/types.h>

/* hint: static text printed after "interrupted; " (may be NULL). */
void ar_interrupt_install(const char *hint);
/* Replaces the hint (a verb knows best how to resume; static text). */
void ar_interrupt_hint(const char *hint);
void ar_interrupt_child_add(pid_t pid);
void ar_interrupt_child_remove(pid_t pid);
void ar_interrupt_child_setup(int own_group, int reset);
void ar_interrupt_remove_file(const char *path);

#endif
