/* The emulated cluster (see testbed.h). Every command is run with fork/exec
 * and an argument vector (no shell), output captured for error messages. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/units.h"
#include "core/util.h"
#include "real/testbed/tbjson.h"
#include "real/testbed/testbed.h"
#include "real/testbed/tb_int.h"

#define NAMELEN 64

/* The one piece of process-wide mutable state: set by the signal handler
 * while a testbed is owned (a handler can only reach a static). */
static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig) { g_interrupted = sig; }

int ar_tb_interrupted(void) { return g_interrupted != 0; }

typedef struct tb_link {
    int link;                /* platform link */
    int child_ns, parent_ns; /* indices into ns[] */
    char child_dev[16], parent_dev[16];
    double rate_Bps, lat_s; /* shaped rate (x scale), one-way latency */
} tb_link;

struct ar_tb {
    const ar_platform *p;
    char id[16], prefix[32], state_dir[256], state[320];
    double scale;
    int no_watchdog, verbose;
    int nns;
    char (*ns)[NAMELEN]; /* machine namespaces first (index = machine), then switches, then head */
    int *is_bridge;      /* per ns */
    int head;            /* index of the head namespace */
    int *ns_of_node;     /* per platform node (-1 for GPUs) */
    int nlinks;
    tb_link *links;
    char transport[256];   /* the MPI transport chosen for its runs (state file, status) */
    int owned;             /* 1 while this process owns a built testbed */
    int no_netem;          /* 1 once tc said the kernel has no netem: latency not shaped */
    char cc[AR_TB_CC_MAX]; /* TCP congestion control set per route in every machine ("": the host's default) */
    pid_t watchdog;
    int wfd; /* write end of the watchdog pipe */
    struct sigaction old[3];
};

/* ---- running commands --------------------------------------------------- */

/* Runs argv, capturing stdout+stderr into out (NUL-terminated, truncated).
 * Returns the exit status, or -1 when it could not run. */
static int run_cap(char *const argv[], char *out, size_t nout) {
    int pfd[2];
    if (out && nout) out[0] = 0;
    if (pipe2(pfd, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t n = 0;
    char tmp[512];
    for (;;) {
        ssize_t r = read(pfd[0], tmp, sizeof tmp);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (ssize_t i = 0; i < r && out && n + 1 < nout; i++) out[n++] = tmp[i];
    }
    if (out && nout) out[n] = 0;
    close(pfd[0]);
    int stt;
    while (waitpid(pid, &stt, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(stt)) return WEXITSTATUS(stt);
    return 128 + (WIFSIGNALED(stt) ? WTERMSIG(stt) : 0);
}

/* First line of s, for one-line messages. */
static const char *line1(char *s) {
    char *nl = strchr(s, '\n');
    if (nl) *nl = 0;
    return s;
}

/* Runs argv (NULL-terminated, n words); on failure fills e. */
static ar_status cmdv(ar_err *e, char *const argv[], int n) {
    char out[1024];
    int rc = run_cap(argv, out, sizeof out);
    if (rc == 0) return AR_OK;
    char what[256] = "";
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < sizeof what; i++)
        k += (size_t)snprintf(what + k, sizeof what - k, "%s%s", i ? " " : "", argv[i]);
    if (k >= sizeof what) k = sizeof what - 1;
    return ar_fail(e, AR_EBACKEND, "'%s' failed (status %d): %s", what, rc, rc < 0 ? "cannot run it" : line1(out));
}

/* Runs a command given as words (NULL-terminated); on failure fills e. */
static ar_status cmd(ar_err *e, const char *first, ...) {
    char *argv[48];
    int n = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 47; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return cmdv(e, argv, n);
}

/* ---- names, state ------------------------------------------------------- */

static ar_status check_id(const char *id, ar_err *e) {
    size_t n = strlen(id);
    if (n < 1 || n > 12) return ar_fail(e, AR_EINVAL, "testbed id \"%s\": 1 to 12 characters of [a-z0-9]", id);
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9')))
            return ar_fail(e, AR_EINVAL, "testbed id \"%s\": 1 to 12 characters of [a-z0-9]", id);
    return AR_OK;
}

typedef struct tb_names {
    char id[16], prefix[32], dir[256], state[320];
} tb_names;

static ar_status names_of(const ar_tb_opts *o, tb_names *nm, ar_err *e) {
    const char *id = o->id ? o->id : "tb";
    ar_status st = check_id(id, e);
    if (st != AR_OK) return st;
    const char *dir = o->state_dir ? o->state_dir : getenv("ARLAB_TESTBED_DIR");
    if (!dir || !*dir) dir = "/run/arlab-testbed";
    snprintf(nm->id, sizeof nm->id, "%s", id);
    snprintf(nm->prefix, sizeof nm->prefix, "arlab-%s-", id);
    if (strlen(dir) >= sizeof nm->dir) return ar_fail(e, AR_EINVAL, "state directory path too long");
    snprintf(nm->dir, sizeof nm->dir, "%s", dir);
    snprintf(nm->state, sizeof nm->state, "%s/%s.state", dir, id);
    return AR_OK;
}

/* Start time of pid (field 22 of /proc/PID/stat), 0 if it does not run. */
static unsigned long long proc_start(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    unsigned long long v = 0;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
        if (++field == 22) {
            v = strtoull(tok, NULL, 10);
            break;
        }
    return v;
}

typedef struct tb_state {
    int exists;
    pid_t pid;
    unsigned long long start;
    char status[16];
    char platform[256];
    double scale;
    int nranks;
    char transport[256]; /* the MPI transport a run chose (btl_tcp_links and how), "" before */
} tb_state;

static void read_state(const char *path, tb_state *s) {
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f) return;
    s->exists = 1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(line, "pid")) s->pid = (pid_t)atoi(v);
        else if (!strcmp(line, "start")) s->start = strtoull(v, NULL, 10);
        else if (!strcmp(line, "status")) snprintf(s->status, sizeof s->status, "%s", v);
        else if (!strcmp(line, "platform")) snprintf(s->platform, sizeof s->platform, "%s", v);
        else if (!strcmp(line, "scale")) s->scale = atof(v);
        else if (!strcmp(line, "ranks")) s->nranks = atoi(v);
        else if (!strcmp(line, "transport")) snprintf(s->transport, sizeof s->transport, "%s", v);
    }
    fclose(f);
}

static ar_status write_state(const ar_tb *t, const char *status, ar_err *e) {
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", t->state, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return ar_fail(e, AR_EIO, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "pid %d\nstart %llu\nstatus %s\nplatform %s\nscale %.17g\nranks %d\nprefix %s\n", (int)getpid(),
            proc_start(getpid()), status, t->p->source ? t->p->source : t->p->name, t->scale, t->p->nranks, t->prefix);
    for (int i = 0; i < t->nns; i++) fprintf(f, "ns %s\n", t->ns[i]);
    if (t->transport[0]) fprintf(f, "transport %s\n", t->transport);
    int bad = fclose(f) != 0;
    if (bad || rename(tmp, t->state) != 0) {
        unlink(tmp);
        return ar_fail(e, AR_EIO, "cannot write %s", t->state);
    }
    return AR_OK;
}

/* Namespaces whose name starts with prefix (caller frees the array). */
static int list_ns(const char *prefix, char (**out)[NAMELEN]) {
    *out = NULL;
    DIR *d = opendir(NS_DIR);
    if (!d) return 0;
    int n = 0;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) || strlen(de->d_name) >= NAMELEN) continue;
        if (ar_grow(out, &cap, (size_t)n + 1, sizeof **out) < 0) break;
        memcpy((*out)[n++], de->d_name, strlen(de->d_name) + 1); /* length checked above */
    }
    closedir(d);
    return n;
}

/* Kills what runs inside the namespace, then deletes it. */
static void del_ns(const char *ns) {
    char out[8192];
    char *av[] = {"ip", "netns", "pids", (char *)ns, NULL};
    if (run_cap(av, out, sizeof out) == 0)
        for (char *tok = strtok(out, " \n"); tok; tok = strtok(NULL, " \n")) {
            long pid = strtol(tok, NULL, 10);
            if (pid > 1 && pid != (long)getpid()) kill((pid_t)pid, SIGKILL);
        }
    char *dv[] = {"ip", "netns", "del", (char *)ns, NULL};
    run_cap(dv, out, sizeof out);
}

/* Removes every namespace with the prefix and the state file. Returns how
 * many namespaces it removed. */
static int teardown(const char *prefix, const char *state) {
    char(*ns)[NAMELEN] = NULL;
    int n = list_ns(prefix, &ns);
    for (int i = 0; i < n; i++) del_ns(ns[i]);
    free(ns);
    unlink(state);
    return n;
}

static int stale_names(const tb_names *nm, FILE *msg) {
    tb_state s;
    read_state(nm->state, &s);
    char(*ns)[NAMELEN] = NULL;
    int n = list_ns(nm->prefix, &ns);
    free(ns);
    const char *why = NULL;
    char buf[160];
    if (s.exists && !strcmp(s.status, "owned") && (s.pid <= 0 || proc_start(s.pid) != s.start)) {
        snprintf(buf, sizeof buf, "its builder (pid %d) no longer runs", (int)s.pid);
        why = buf;
    } else if (!s.exists && n > 0) {
        why = "namespaces without a state file";
    } else if (s.exists && n == 0) {
        why = "a state file without its namespaces";
    }
    if (!why) return 0;
    int k = teardown(nm->prefix, nm->state);
    if (msg) fprintf(msg, "arlab testbed: removed a stale testbed '%s' (%s; %d namespaces)\n", nm->id, why, k);
    return 1;
}

int ar_tb_clean_stale(const ar_tb_opts *o, FILE *msg) {
    tb_names nm;
    ar_err e = {{0}};
    if (names_of(o, &nm, &e) != AR_OK) return -1;
    return stale_names(&nm, msg);
}

/* ---- plan ----------------------------------------------------------------- */

ar_status ar_tb_plan(const ar_platform *p, const ar_tb_opts *o, ar_tb **out, ar_err *e) {
    *out = NULL;
    if (p->root < 0 || (p->kind != AR_PLAT_TREE && p->kind != AR_PLAT_FAT_TREE))
        return ar_fail(e, AR_EUNSUPPORTED, "%s: the testbed needs a tree platform (kind \"tree\"), not this one",
                       p->name);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    if (p->nranks > AR_TB_RANKS_PER_CPU * ncpu)
        return ar_fail(e, AR_ELIMIT, "%s has %d ranks: the testbed runs at most %d x %ld CPUs = %ld processes here",
                       p->name, p->nranks, AR_TB_RANKS_PER_CPU, ncpu, AR_TB_RANKS_PER_CPU * ncpu);
    if (p->nmachines > 60000) return ar_fail(e, AR_ELIMIT, "%s: too many machines", p->name);
    if (o->scale < 0 || !isfinite(o->scale)) return ar_fail(e, AR_EINVAL, "--scale must be > 0 (got %g)", o->scale);
    ar_tb *t = ar_calloc(1, sizeof *t);
    if (!t) return ar_fail(e, AR_ENOMEM, "out of memory");
    tb_names nm;
    ar_status st = names_of(o, &nm, e);
    if (st != AR_OK) {
        free(t);
        return st;
    }
    st = ar_tb_cc_choice(getenv("ARLAB_TESTBED_CC"), t->cc, e);
    if (st != AR_OK) {
        free(t);
        return st;
    }
    t->p = p;
    memcpy(t->id, nm.id, sizeof t->id);
    memcpy(t->prefix, nm.prefix, sizeof t->prefix);
    memcpy(t->state_dir, nm.dir, sizeof t->state_dir);
    memcpy(t->state, nm.state, sizeof t->state);
    t->scale = o->scale;
    const char *nw = getenv("ARLAB_TESTBED_NO_WATCHDOG");
    t->no_watchdog = o->no_watchdog || (nw && !strcmp(nw, "1"));
    t->verbose = o->verbose;
    t->wfd = -1;
    t->ns = ar_calloc((size_t)p->nnodes + 1, sizeof *t->ns);
    t->is_bridge = ar_calloc((size_t)p->nnodes + 1, sizeof *t->is_bridge);
    t->ns_of_node = ar_calloc((size_t)p->nnodes, sizeof *t->ns_of_node);
    t->links = ar_calloc((size_t)p->nnodes, sizeof *t->links);
    if (!t->ns || !t->is_bridge || !t->ns_of_node || !t->links) {
        ar_tb_free(t);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    /* machines first, in machine order */
    t->nns = p->nmachines;
    for (int v = 0; v < p->nnodes; v++) t->ns_of_node[v] = -1;
    for (int m = 0; m < p->nmachines; m++) {
        int g = p->rank_node[p->machine_first_rank[m]];
        int v = p->nodes[g].parent;
        const ar_node *n = &p->nodes[v];
        for (int c = 0; c < n->nchildren; c++)
            if (p->nodes[n->children[c]].kind != AR_NODE_GPU) {
                ar_tb_free(t);
                return ar_fail(e, AR_EUNSUPPORTED,
                               "%s: switch %s has both GPUs and switches below it; the testbed needs machines "
                               "(switches of GPUs only)",
                               p->name, n->name);
            }
        t->ns_of_node[v] = m;
        snprintf(t->ns[m], NAMELEN, "%sm%d", t->prefix, m);
    }
    int nsw = 0;
    for (int v = 0; v < p->nnodes; v++)
        if (p->nodes[v].kind == AR_NODE_SWITCH && t->ns_of_node[v] < 0) {
            t->ns_of_node[v] = t->nns;
            t->is_bridge[t->nns] = 1;
            snprintf(t->ns[t->nns++], NAMELEN, "%ss%d", t->prefix, nsw++);
        }
    t->head = t->nns;
    snprintf(t->ns[t->nns++], NAMELEN, "%sh", t->prefix);
    /* shaped links: every switch's uplink */
    double scale = o->scale > 0 ? o->scale : 1;
    for (int v = 0; v < p->nnodes; v++) {
        const ar_node *n = &p->nodes[v];
        if (n->kind != AR_NODE_SWITCH || n->uplink < 0) continue;
        const ar_link *l = &p->links[n->uplink];
        tb_link *k = &t->links[t->nlinks++];
        k->link = n->uplink;
        k->child_ns = t->ns_of_node[v];
        k->parent_ns = t->ns_of_node[n->parent];
        const ar_node *par = &p->nodes[n->parent];
        int ci = 0;
        while (ci < par->nchildren && par->children[ci] != v) ci++;
        snprintf(k->child_dev, sizeof k->child_dev, "u0");
        snprintf(k->parent_dev, sizeof k->parent_dev, "p%d", ci);
        k->rate_Bps = ar_link_capacity(l) * scale;
        k->lat_s = l->lat_s;
        if (o->scale <= 0 && k->rate_Bps > AR_TB_MAX_SHAPE_BPS) {
            char b1[32];
            st = ar_fail(e, AR_ELIMIT,
                         "%s: link %s (%s = %.3g Gb/s) is faster than the testbed can shape here (2 Gb/s); give "
                         "--scale F (e.g. --scale %.3g) to shape every link to F x its bandwidth",
                         p->name, l->name, ar_fmt_rate(k->rate_Bps, b1, sizeof b1), k->rate_Bps * 8 / 1e9,
                         floor(AR_TB_MAX_SHAPE_BPS / k->rate_Bps * 1000) / 1000 > 0
                             ? floor(AR_TB_MAX_SHAPE_BPS / k->rate_Bps * 1000) / 1000
                             : AR_TB_MAX_SHAPE_BPS / k->rate_Bps);
            ar_tb_free(t);
            return st;
        }
        if (k->rate_Bps < 1000) {
            ar_tb_free(t);
            return ar_fail(e, AR_EINVAL, "%s: link %s would be shaped to %.3g B/s: too slow (check --scale)", p->name,
                           l->name, k->rate_Bps);
        }
    }
    *out = t;
    return AR_OK;
}

void ar_tb_free(ar_tb *t) {
    if (!t) return;
    if (t->owned) ar_tb_release(t);
    free(t->ns);
    free(t->is_bridge);
    free(t->ns_of_node);
    free(t->links);
    free(t);
}

int ar_tb_nmachines(const ar_tb *t) { return t->p->nmachines; }
const char *ar_tb_ns_machine(const ar_tb *t, int k) { return t->ns[k]; }
const char *ar_tb_ns_head(const ar_tb *t) { return t->ns[t->head]; }

ar_status ar_tb_write_platform(const ar_tb *t, const char *path, ar_err *e) {
    const ar_platform *p = t->p;
    double *bw = ar_calloc((size_t)p->nlinks, sizeof *bw);
    if (!bw) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int l = 0; l < p->nlinks; l++) bw[l] = ar_link_capacity(&p->links[l]);
    for (int i = 0; i < t->nlinks; i++) bw[t->links[i].link] = t->links[i].rate_Bps;
    char name[300], note[400];
    if (t->scale > 0) snprintf(name, sizeof name, "%s@scale=%g", p->name, t->scale);
    else snprintf(name, sizeof name, "%s", p->name);
    snprintf(note, sizeof note,
             "arlab testbed: the %d shaped links (machine uplinks, switch-to-switch) at their bandwidth x %g as "
             "configured with tc tbf (bucket max(%.0f B, %.0f us of the rate), GSO packets <= %d B); TCP congestion "
             "control %s; GPU links as in %s (loopback on the testbed, unshaped: calibrate it)",
             t->nlinks, t->scale > 0 ? t->scale : 1, AR_TB_BURST_MIN, AR_TB_BURST_TIME * 1e6, AR_TB_GSO_MAX,
             t->cc[0] ? t->cc : "the host's default", p->name);
    const char *notes[1] = {note};
    ar_status st = ar_tb_write_tree(p, name, bw, NULL, 0, 0, 0, notes, 1, path, e);
    free(bw);
    return st;
}

/* ---- building -------------------------------------------------------------- */

static void addr_of(char *buf, size_t n, int net, int host) {
    snprintf(buf, n, "10.%d.%d.%d/16", net, host >> 8, host & 255);
}

double ar_tb_burst_bytes(double rate_Bps) { return ceil(fmax(AR_TB_BURST_MIN, rate_Bps * AR_TB_BURST_TIME)); }

ar_status ar_tb_cc_choice(const char *env, char cc[AR_TB_CC_MAX], ar_err *e) {
    const char *v = env ? env : AR_TB_CC_DEFAULT;
    cc[0] = 0;
    if (!strcmp(v, "host")) return AR_OK;
    size_t n = strlen(v);
    int ok = n >= 1 && n < AR_TB_CC_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = (v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '_';
    if (!ok)
        return ar_fail(e, AR_EINVAL,
                       "ARLAB_TESTBED_CC=\"%s\": a TCP congestion control (1 to %d characters of [a-z0-9_], e.g. "
                       "cubic) or \"host\"",
                       v, AR_TB_CC_MAX - 1);
    memcpy(cc, v, n + 1);
    return AR_OK;
}

static void shape_words(ar_tb_shape_cmd *c, ...) {
    va_list ap;
    va_start(ap, c);
    c->n = 0;
    for (const char *a = va_arg(ap, const char *); a && c->n < AR_TB_SHAPE_MAXW; a = va_arg(ap, const char *)) {
        snprintf(c->w[c->n], sizeof c->w[c->n], "%s", a);
        c->argv[c->n] = c->w[c->n];
        c->n++;
    }
    va_end(ap);
    c->argv[c->n] = NULL;
}

int ar_tb_shape_plan(const char *ns, const char *dev, double rate_Bps, double lat_s, int netem, const char *queue,
                     ar_tb_shape_cmd cmds[AR_TB_SHAPE_MAXCMD]) {
    char rate[48], burst[48], delay[48], gso[24];
    snprintf(gso, sizeof gso, "%d", AR_TB_GSO_MAX);
    snprintf(rate, sizeof rate, "%.0fbit", rate_Bps * 8);
    snprintf(burst, sizeof burst, "%.0f", ar_tb_burst_bytes(rate_Bps));
    int n = 0;
    /* GSO packets of at most AR_TB_GSO_MAX bytes: each fits the small bucket whole (tbf would otherwise
     * split every larger one into MTU frames in software) */
    shape_words(&cmds[n++], "ip", "-n", ns, "link", "set", "dev", dev, "gso_max_size", gso, NULL);
    shape_words(&cmds[n++], "tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", rate,
                "burst", burst, "latency", queue && *queue ? queue : "100ms", NULL);
    if (netem && lat_s > 0) {
        snprintf(delay, sizeof delay, "%.0fus", fmax(1, lat_s * 1e6));
        shape_words(&cmds[n++], "tc", "-n", ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem",
                    "delay", delay, "limit", "100000", NULL);
    }
    return n;
}

void ar_tb_cc_plan(const char *ns, const char *addr, const char *cc, ar_tb_shape_cmd *cmd) {
    shape_words(cmd, "ip", "-n", ns, "route", "replace", "10.213.0.0/16", "dev", "u0", "proto", "kernel", "scope",
                "link", "src", addr, "congctl", cc, NULL);
}

/* TCP congestion control t->cc on every machine's data route (ar_tb_cc_plan). The default one that this
 * kernel lacks: one line, the host's default stays; one asked for by $ARLAB_TESTBED_CC: an error. */
static ar_status set_cc(ar_tb *t, ar_err *e) {
    ar_status st = AR_OK;
    for (int m = 0; m < t->p->nmachines && t->cc[0] && st == AR_OK; m++) {
        char addr[32];
        snprintf(addr, sizeof addr, "10.213.%d.%d", (m + 1) >> 8, (m + 1) & 255);
        ar_tb_shape_cmd c;
        ar_tb_cc_plan(t->ns[m], addr, t->cc, &c);
        st = cmdv(e, c.argv, c.n);
        if (st != AR_OK && !getenv("ARLAB_TESTBED_CC")) {
            fprintf(stderr, "arlab testbed: TCP keeps the host's congestion control: %s\n", e->msg);
            t->cc[0] = 0;
            st = AR_OK;
        }
    }
    return st;
}

static ar_status shape(ar_tb *t, const char *ns, const char *dev, double rate_Bps, double lat_s, ar_err *e) {
    ar_tb_shape_cmd c[AR_TB_SHAPE_MAXCMD];
    int n = ar_tb_shape_plan(ns, dev, rate_Bps, lat_s, !t->no_netem, getenv("ARLAB_TESTBED_QUEUE"), c);
    ar_status st = AR_OK;
    for (int i = 0; i < n && st == AR_OK; i++) {
        st = cmdv(e, c[i].argv, c[i].n);
        if (st != AR_OK && i == 2 && strstr(e->msg, "qdisc kind is unknown")) {
            t->no_netem = 1;
            fprintf(stderr, "arlab testbed: latency not shaped: this kernel has no netem (CONFIG_NET_SCH_NETEM); "
                            "links keep the veth's own latency (calibrate measures it)\n");
            st = AR_OK;
        }
    }
    return st;
}

static ar_status build(ar_tb *t, ar_err *e) {
    ar_status st = AR_OK;
    char a[48];
    for (int i = 0; i < t->nns && st == AR_OK; i++) {
        st = cmd(e, "ip", "netns", "add", t->ns[i], NULL);
        if (st != AR_OK && i == 0 && (strstr(e->msg, "ermission") || strstr(e->msg, "not permitted")))
            return ar_fail(e, AR_TB_ENOPRIV, "cannot create network namespaces here (%s)", e->msg);
        if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[i], "link", "set", "lo", "up", NULL);
        if (st == AR_OK && (t->is_bridge[i] || i == t->head)) {
            const char *br = i == t->head ? "cb" : "br0";
            st = cmd(e, "ip", "-n", t->ns[i], "link", "add", "name", br, "type", "bridge", NULL);
            if (st == AR_OK && i == t->head) {
                addr_of(a, sizeof a, 214, 65534);
                st = cmd(e, "ip", "-n", t->ns[i], "addr", "add", a, "dev", br, NULL);
            }
            if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[i], "link", "set", br, "up", NULL);
        }
        if (ar_tb_interrupted()) st = ar_fail(e, AR_EFAIL, "interrupted");
    }
    for (int i = 0; i < t->nlinks && st == AR_OK; i++) {
        tb_link *k = &t->links[i];
        const char *cns = t->ns[k->child_ns], *pns = t->ns[k->parent_ns];
        st = cmd(e, "ip", "-n", cns, "link", "add", "name", k->child_dev, "type", "veth", "peer", "name", k->parent_dev,
                 "netns", pns, NULL);
        if (st == AR_OK) st = cmd(e, "ip", "-n", pns, "link", "set", k->parent_dev, "master", "br0", NULL);
        if (st == AR_OK && t->is_bridge[k->child_ns])
            st = cmd(e, "ip", "-n", cns, "link", "set", k->child_dev, "master", "br0", NULL);
        if (st == AR_OK && !t->is_bridge[k->child_ns]) {
            addr_of(a, sizeof a, 213, k->child_ns + 1);
            st = cmd(e, "ip", "-n", cns, "addr", "add", a, "dev", k->child_dev, NULL);
        }
        if (st == AR_OK) st = shape(t, cns, k->child_dev, k->rate_Bps, k->lat_s, e);
        if (st == AR_OK) st = shape(t, pns, k->parent_dev, k->rate_Bps, k->lat_s, e);
        if (st == AR_OK) st = cmd(e, "ip", "-n", cns, "link", "set", k->child_dev, "up", NULL);
        if (st == AR_OK) st = cmd(e, "ip", "-n", pns, "link", "set", k->parent_dev, "up", NULL);
        if (ar_tb_interrupted()) st = ar_fail(e, AR_EFAIL, "interrupted");
    }
    if (st == AR_OK) st = set_cc(t, e);
    /* TCP inside every machine namespace (per-namespace sysctls: nothing of the host's own stack changes):
     * $ARLAB_TESTBED_SYSCTL, words net.ipv4.tcp_KEY=VALUE (commas in VALUE stand for spaces) */
    const char *sc = getenv("ARLAB_TESTBED_SYSCTL");
    if (sc && *sc) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", sc);
        for (char *w = strtok(buf, " "); w && st == AR_OK; w = strtok(NULL, " ")) {
            if (strncmp(w, "net.ipv4.tcp_", 13)) { /* per namespace; net.core.* would be the host's */
                st = ar_fail(e, AR_EINVAL, "ARLAB_TESTBED_SYSCTL: %s is not a net.ipv4.tcp_* setting", w);
                break;
            }
            for (char *c = w; *c; c++)
                if (*c == ',') *c = ' ';
            for (int m = 0; m < t->p->nmachines && st == AR_OK; m++)
                st = cmd(e, "ip", "netns", "exec", t->ns[m], "sysctl", "-q", "-w", w, NULL);
        }
    }
    /* control network */
    for (int m = 0; m < t->p->nmachines && st == AR_OK; m++) {
        char port[16];
        snprintf(port, sizeof port, "c%d", m);
        st = cmd(e, "ip", "-n", t->ns[m], "link", "add", "name", "c0", "type", "veth", "peer", "name", port, "netns",
                 t->ns[t->head], NULL);
        if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[t->head], "link", "set", port, "master", "cb", NULL);
        addr_of(a, sizeof a, 214, m + 1);
        if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[m], "addr", "add", a, "dev", "c0", NULL);
        if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[m], "link", "set", "c0", "up", NULL);
        if (st == AR_OK) st = cmd(e, "ip", "-n", t->ns[t->head], "link", "set", port, "up", NULL);
        if (ar_tb_interrupted()) st = ar_fail(e, AR_EFAIL, "interrupted");
    }
    return st;
}

static void watchdog_start(ar_tb *t) {
    t->watchdog = -1;
    t->wfd = -1;
    if (t->no_watchdog) return;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        setsid();
        for (int i = 0; i < 3; i++) signal(k_sigs[i], SIG_IGN);
        close(fds[1]);
        /* hold none of the caller's terminals or pipes open (a caller reading our output waits for EOF) */
        int dn = open("/dev/null", O_RDWR);
        for (int fd = 0; dn >= 0 && fd < 3; fd++) dup2(dn, fd);
        if (dn > 2) close(dn);
        pid_t builder = getppid();
        char c = 0;
        ssize_t n;
        while ((n = read(fds[0], &c, 1)) < 0 && errno == EINTR) {}
        if (n == 1 && c == 'K') _exit(0);
        /* the builder died without handing over: tear down what it owned */
        tb_state s;
        read_state(t->state, &s);
        if (!s.exists || (s.pid == builder && !strcmp(s.status, "owned"))) teardown(t->prefix, t->state);
        _exit(0);
    }
    close(fds[0]);
    t->watchdog = pid;
    t->wfd = fds[1];
}

static void watchdog_stop(ar_tb *t) {
    if (t->wfd >= 0) {
        ssize_t w = write(t->wfd, "K", 1);
        (void)w;
        close(t->wfd);
        t->wfd = -1;
    }
    if (t->watchdog > 0) {
        while (waitpid(t->watchdog, NULL, 0) < 0 && errno == EINTR) {}
        t->watchdog = -1;
    }
}

static void signals_on(ar_tb *t) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaction(k_sigs[i], &sa, &t->old[i]);
}

static void signals_off(ar_tb *t) {
    for (int i = 0; i < 3; i++) sigaction(k_sigs[i], &t->old[i], NULL);
}

ar_status ar_tb_up(ar_tb *t, int keep, ar_err *e) {
    if (geteuid() != 0)
        return ar_fail(e, AR_TB_ENOPRIV, "the testbed needs root (network namespaces, veth, tc); running as uid %d",
                       (int)geteuid());
    if (mkdir(t->state_dir, 0755) != 0 && errno != EEXIST)
        return ar_fail(e, AR_EIO, "cannot create %s: %s", t->state_dir, strerror(errno));
    tb_names nm;
    memcpy(nm.id, t->id, sizeof nm.id);
    memcpy(nm.prefix, t->prefix, sizeof nm.prefix);
    memcpy(nm.dir, t->state_dir, sizeof nm.dir);
    memcpy(nm.state, t->state, sizeof nm.state);
    stale_names(&nm, stderr);
    /* claim the id: O_EXCL on a lock file avoids two builders racing */
    tb_state s;
    read_state(t->state, &s);
    if (s.exists)
        return ar_fail(e, AR_EINVAL, "testbed '%s' is already %s (%s, pid %d): 'arlab testbed down --id %s' first",
                       t->id, !strcmp(s.status, "up") ? "up" : "in use", s.platform, (int)s.pid, t->id);
    char(*ns)[NAMELEN] = NULL;
    int n = list_ns(t->prefix, &ns);
    free(ns);
    if (n > 0) return ar_fail(e, AR_EINVAL, "testbed '%s': %d namespaces %s* exist already", t->id, n, t->prefix);
    int fd = open(t->state, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return ar_fail(e, errno == EEXIST ? AR_EINVAL : AR_EIO, "testbed '%s': cannot claim %s: %s", t->id, t->state,
                       strerror(errno));
    close(fd);
    g_interrupted = 0;
    signals_on(t);
    ar_status st = write_state(t, "owned", e);
    if (st == AR_OK) {
        watchdog_start(t);
        t->owned = 1;
        st = build(t, e);
    }
    /* test hook: $ARLAB_TESTBED_PAUSE seconds with everything built and the state still "owned", so tests
     * can interrupt or kill the builder at a known point */
    const char *pz = getenv("ARLAB_TESTBED_PAUSE");
    for (double left = pz ? atof(pz) : 0; st == AR_OK && left > 0; left -= 0.05) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (ar_tb_interrupted()) st = ar_fail(e, AR_EFAIL, "interrupted");
    }
    if (st == AR_OK && keep) st = write_state(t, "up", e);
    if (st != AR_OK) {
        teardown(t->prefix, t->state);
        t->owned = 0;
        watchdog_stop(t);
        signals_off(t);
        if (ar_tb_interrupted()) return ar_fail(e, AR_EFAIL, "interrupted: testbed '%s' removed", t->id);
        return st;
    }
    if (keep) {
        t->owned = 0;
        watchdog_stop(t);
        signals_off(t);
    }
    return AR_OK;
}

ar_status ar_tb_set_transport(ar_tb *t, const char *text, ar_err *e) {
    snprintf(t->transport, sizeof t->transport, "%s", text);
    for (char *c = t->transport; *c; c++)
        if (*c == '\n') *c = ' ';
    if (!t->owned) return AR_OK;
    return write_state(t, "owned", e);
}

void ar_tb_release(ar_tb *t) {
    if (!t->owned) return;
    teardown(t->prefix, t->state);
    t->owned = 0;
    watchdog_stop(t);
    signals_off(t);
}

ar_status ar_tb_down(const ar_tb_opts *o, FILE *msg, ar_err *e) {
    tb_names nm;
    ar_status st = names_of(o, &nm, e);
    if (st != AR_OK) return st;
    if (geteuid() != 0) return ar_fail(e, AR_TB_ENOPRIV, "the testbed needs root; running as uid %d", (int)geteuid());
    tb_state s;
    read_state(nm.state, &s);
    if (s.exists && !strcmp(s.status, "owned") && s.pid > 0 && proc_start(s.pid) == s.start && s.pid != getpid())
        return ar_fail(e, AR_EINVAL, "testbed '%s' is in use by a running 'arlab testbed' (pid %d): stop it first",
                       nm.id, (int)s.pid);
    int k = teardown(nm.prefix, nm.state);
    if (msg) {
        if (k || s.exists) fprintf(msg, "arlab testbed: '%s' down (%d namespaces removed)\n", nm.id, k);
        else fprintf(msg, "arlab testbed: '%s' is not up\n", nm.id);
    }
    return AR_OK;
}

ar_status ar_tb_uplink_bytes(const ar_tb *t, int k, double *tx, double *rx, ar_err *e) {
    *tx = *rx = NAN;
    char out[16384];
    char *av[] = {"ip", "-n", (char *)t->ns[k], "-s", "-j", "link", "show", "dev", "u0", NULL};
    int rc = run_cap(av, out, sizeof out);
    if (rc != 0) return ar_fail(e, AR_EBACKEND, "ip -n %s -s -j link show dev u0: %s", t->ns[k], line1(out));
    cJSON *j = cJSON_Parse(out);
    const cJSON *l0 = j ? cJSON_GetArrayItem(j, 0) : NULL;
    const cJSON *s64 = l0 ? cJSON_GetObjectItemCaseSensitive(l0, "stats64") : NULL;
    const cJSON *ctx = s64 ? cJSON_GetObjectItemCaseSensitive(s64, "tx") : NULL;
    const cJSON *crx = s64 ? cJSON_GetObjectItemCaseSensitive(s64, "rx") : NULL;
    const cJSON *btx = ctx ? cJSON_GetObjectItemCaseSensitive(ctx, "bytes") : NULL;
    const cJSON *brx = crx ? cJSON_GetObjectItemCaseSensitive(crx, "bytes") : NULL;
    ar_status st = AR_OK;
    if (cJSON_IsNumber(btx) && cJSON_IsNumber(brx)) {
        *tx = btx->valuedouble;
        *rx = brx->valuedouble;
    } else {
        st = ar_fail(e, AR_EBACKEND, "ip -s -j link show in %s: no stats64 tx/rx bytes", t->ns[k]);
    }
    cJSON_Delete(j);
    return st;
}

/* " gso_max_size N" of dev in ns (what the shaping set: ar_tb_shape_plan), "" if it cannot be read. */
static void shaped_gso(const char *ns, const char *dev, char *buf, size_t n) {
    char out[16384];
    buf[0] = 0;
    char *av[] = {"ip", "-n", (char *)ns, "-d", "-j", "link", "show", "dev", (char *)dev, NULL};
    if (run_cap(av, out, sizeof out) != 0) return;
    cJSON *j = cJSON_Parse(out);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(j, 0), "gso_max_size");
    if (cJSON_IsNumber(g)) snprintf(buf, n, " gso_max_size %.0f", g->valuedouble);
    cJSON_Delete(j);
}

ar_status ar_tb_status(const ar_tb_opts *o, FILE *f, ar_err *e) {
    tb_names nm;
    ar_status st = names_of(o, &nm, e);
    if (st != AR_OK) return st;
    stale_names(&nm, f);
    tb_state s;
    read_state(nm.state, &s);
    char(*ns)[NAMELEN] = NULL;
    int n = list_ns(nm.prefix, &ns);
    if (!s.exists && n == 0) {
        fprintf(f, "testbed '%s': not up\n", nm.id);
        free(ns);
        return AR_OK;
    }
    fprintf(f, "testbed '%s': %s, platform %s, %d ranks, scale %g, pid %d, %d namespaces\n", nm.id, s.status,
            s.platform, s.nranks, s.scale > 0 ? s.scale : 1, (int)s.pid, n);
    fprintf(f, "  MPI transport: %s\n",
            s.transport[0] ? s.transport : "not chosen yet (testbed run picks btl_tcp_links by an exchange test)");
    for (int i = 0; i < n; i++) {
        char out[4096];
        char *av[] = {"tc", "-n", ns[i], "qdisc", "show", NULL};
        fprintf(f, "  %s\n", ns[i]);
        if (run_cap(av, out, sizeof out) == 0)
            for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
                if (strstr(l, "tbf") || strstr(l, "netem")) {
                    char dev[32] = "", gso[48] = "";
                    const char *d = strstr(l, " dev ");
                    if (d && sscanf(d, " dev %31s", dev) == 1) shaped_gso(ns[i], dev, gso, sizeof gso);
                    fprintf(f, "    %s%s\n", l, gso);
                }
        /* a machine's data route, with the congestion control the testbed set on it (set_cc) */
        char *rv[] = {"ip", "-n", ns[i], "route", "show", "dev", "u0", NULL};
        if (run_cap(rv, out, sizeof out) == 0)
            for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
                if (strstr(l, "10.213.")) fprintf(f, "    route %s\n", l);
    }
    free(ns);
    return AR_OK;
}
