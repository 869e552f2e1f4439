/* Interrupts for the process tree of one command (interrupt.h). */
#define _GNU_SOURCE
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define AR_INT_MAX_CHILDREN 256

static volatile pid_t children[AR_INT_MAX_CHILDREN]; /* 0 = free slot */
static volatile pid_t installer;                     /* pid that installed the handler; 0 = none */
static const char *volatile hint_text;
static char remove_path[4096]; /* deleted by the handler while remove_set is 1 */
static volatile sig_atomic_t remove_set;

static void put(const char *s) {
    if (s) {
        ssize_t r = write(2, s, strlen(s));
        (void)r;
    }
}

static void on_signal(int sig) {
    for (int i = 0; i < AR_INT_MAX_CHILDREN; i++)
        if (children[i] > 0) kill(children[i], SIGKILL);
    if (getpid() == installer) {
        if (remove_set) unlink(remove_path);
        put(sig == SIGINT    ? "\narlab: interrupted (SIGINT)"
            : sig == SIGTERM ? "\narlab: interrupted (SIGTERM)"
                             : "\narlab: interrupted (SIGHUP)");
        if (hint_text) {
            put("; ");
            put(hint_text);
        }
        put("\n");
    }
    _exit(128 + sig);
}

void ar_interrupt_install(const char *hint) {
    hint_text = hint;
    installer = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored when arlab started (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void ar_interrupt_hint(const char *hint) { hint_text = hint; }

void ar_interrupt_remove_file(const char *path) {
    remove_set = 0; /* the handler never sees a half-copied path */
    if (!path || strlen(path) >= sizeof remove_path) return;
    memcpy(remove_path, path, strlen(path) + 1);
    remove_set = 1;
}

void ar_interrupt_child_add(pid_t pid) {
    for (int i = 0; i < AR_INT_MAX_CHILDREN; i++)
        if (children[i] == 0) {
            children[i] = pid;
            return;
        }
}

void ar_interrupt_child_remove(pid_t pid) {
    for (int i = 0; i < AR_INT_MAX_CHILDREN; i++)
        if (children[i] == pid) children[i] = 0;
}

void ar_interrupt_child_setup(int own_group, int reset) {
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);                 /* the parent died before prctl */
    for (int i = 0; i < AR_INT_MAX_CHILDREN; i++) children[i] = 0; /* the parent's children are not ours */
    if (own_group) setpgid(0, 0);
    if (reset) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
    }
}
