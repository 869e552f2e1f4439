/* Processes inside the testbed's namespaces (testbed.h): a command run in a
 * machine's namespace with a time bound, and the rsh agent mpirun uses. */
#define _GNU_SOURCE /* setns */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "real/testbed/testbed.h"
#include "real/testbed/tb_int.h"

/* ---- processes inside namespaces ------------------------------------------- */

static int join_ns(const char *ns) {
    char path[128];
    snprintf(path, sizeof path, NS_DIR "/%s", ns);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

int ar_tb_spawn_wait(const char *ns, char *const argv[], double timeout_s, const char *what) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        for (int i = 0; i < 3; i++) signal(k_sigs[i], SIG_DFL);
        if (ns && join_ns(ns) != 0) {
            fprintf(stderr, "arlab testbed: cannot enter namespace %s: %s\n", ns, strerror(errno));
            _exit(126);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "arlab testbed: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    double t0 = ar_now_s();
    int stt = 0, killed = 0;
    double kill_at = 0;
    for (;;) {
        pid_t r = waitpid(pid, &stt, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) return -1;
        double now = ar_now_s();
        if (!killed && (ar_tb_interrupted() || now - t0 > timeout_s)) {
            if (!ar_tb_interrupted())
                fprintf(stderr, "arlab testbed: %s ran past its %.0f s limit: stopped\n", what, timeout_s);
            kill(-pid, SIGTERM);
            killed = 1;
            kill_at = now + 3;
        } else if (killed == 1 && now > kill_at) {
            kill(-pid, SIGKILL);
            killed = 2;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (WIFEXITED(stt)) return killed ? 124 : WEXITSTATUS(stt);
    return 128 + (WIFSIGNALED(stt) ? WTERMSIG(stt) : 0);
}

int ar_tb_rsh(const char *ns, int argc, char **argv) {
    if (strncmp(ns, "arlab-", 6) != 0 || strchr(ns, '/')) {
        fprintf(stderr, "arlab testbed rsh: \"%s\" is not a testbed namespace (arlab-ID-...)\n", ns);
        return AR_EINVAL;
    }
    if (join_ns(ns) != 0) {
        fprintf(stderr, "arlab testbed rsh: cannot enter namespace %s: %s\n", ns, strerror(errno));
        return AR_EBACKEND;
    }
    /* The namespaces share the host's UTS name, so every orted would report the
     * same hostname as mpirun and as each other; Open MPI 4.1 then sometimes
     * never routes to the second daemon (mpirun waits until its bound). Each
     * daemon gets its own UTS namespace named like its node in the hostfile. */
    if (unshare(CLONE_NEWUTS) != 0 || sethostname(ns, strlen(ns)) != 0) {
        fprintf(stderr, "arlab testbed rsh: cannot name namespace %s: %s\n", ns, strerror(errno));
        return AR_EBACKEND;
    }
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    char *c = malloc(len);
    if (!c) return AR_ENOMEM;
    c[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (i) strcat(c, " ");
        strcat(c, argv[i]);
    }
    execl("/bin/sh", "sh", "-c", c, (char *)NULL);
    fprintf(stderr, "arlab testbed rsh: cannot run /bin/sh: %s\n", strerror(errno));
    free(c);
    return AR_EBACKEND;
}
