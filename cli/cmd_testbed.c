/* arlab testbed: the emulated cluster and its MPI backend.
 *
 * arlab testbed up --platform P [--scale F] [--id ID] [--out FILE.json]
 *   Builds the testbed of tree platform P (real/testbed/testbed.h) and leaves
 *   it up; --out writes the platform as shaped (bandwidths x F) for model/sim.
 * arlab testbed down [--id ID]        removes it (and any stale one)
 * arlab testbed status [--id ID]      state, namespaces, qdiscs
 * arlab testbed run --platform P [--scale F] [--id ID] [--algo A,...|all] [--size S,...]
 *       [--dtype f32|f64|i32] [--iters N] [--warmup N] [--format table|csv] [--out FILE.csv]
 *       [--platform-out FILE.json] [--calibrate FILE.json] [--timeout SECONDS]
 *       [--transport auto|links=N[,eager=BYTES]]
 *   Up, then (--transport auto, the default) an exchange test per transport
 *   candidate, twice (choose_xport: 1 with eager messages of at most 1 MiB,
 *   then Open MPI's btl_tcp_links 1, 2, 4), keeping the first within 5 % of the
 *   fastest (printed, kept in the state file for `status` and in every row's
 *   transport column), then mpirun (in the head namespace, one ORTE daemon per machine
 *   namespace, TCP BTL on the shaped network only) of arlab-mpi over the
 *   algorithms and sizes (rows: the columns of `arlab real`, plus the
 *   MPI_Allreduce baseline "mpi-allreduce"), then checks with the veth
 *   counters that every machine's uplink sent at least the payload bytes the
 *   schedules sent off that machine, then down. --calibrate first runs
 *   arlab-mpi --calibrate (ping-pong fits; the calibrated platform for
 *   `arlab compare --platform FILE.json MEASURED.csv`). Every mpirun is bounded
 *   by --timeout (default 300 s). arlab-mpi is $ARLAB_MPI or the arlab-mpi
 *   beside this executable.
 * arlab testbed rsh NS CMD...          mpirun's rsh agent (internal)
 *
 * Exit status: AR_TB_ENOPRIV (77) without the privileges for namespaces; 130
 * after SIGINT/SIGTERM/SIGHUP (the testbed removed);
 * AR_EFAIL when #wrong != 0 or the counters show too few bytes.
 * Ownership: everything allocated here is freed before returning.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opttab.h"
#ifdef AR_HAVE_TESTBED
#include "core/util.h"
#include "real/testbed/testbed.h"

/* How arlab-mpi talks TCP: Open MPI's btl_tcp_links (connections per pair of ranks) and, eager > 0, every
 * payload sent as messages of at most `eager` bytes under an eager limit that takes them whole (no
 * rendezvous handshake). */
typedef struct tb_xport {
    int links;
    long eager;
} tb_xport;

/* "links=N[,eager=BYTES]" (either part, in any order); -1 with a message on bad text. */
static int parse_xport(const char *text, tb_xport *x) {
    x->links = 1;
    x->eager = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
        char *end = NULL;
        if (!strncmp(w, "links=", 6)) {
            long n = strtol(w + 6, &end, 10);
            if (*end || n < 1 || n > 16) goto bad;
            x->links = (int)n;
        } else if (!strncmp(w, "eager=", 6)) {
            ar_err e = {{0}};
            uint64_t v;
            if (ar_parse_size(w + 6, 1, &v, &e) != AR_OK || v < 1024 || v > (64u << 20)) goto bad;
            x->eager = (long)v;
        } else {
            goto bad;
        }
    }
    return 0;
bad:
    fprintf(stderr,
            "arlab testbed run: --transport \"%s\": auto, or links=N (1..16) and/or eager=BYTES (1KiB..64MiB), "
            "comma-separated\n",
            text);
    return -1;
}

static void xport_text(const tb_xport *x, char *buf, size_t n) {
    if (x->eager) snprintf(buf, n, "links=%d,eager=%ld", x->links, x->eager);
    else snprintf(buf, n, "links=%d", x->links);
}

typedef struct tb_args {
    const char *platform, *id, *out, *platform_out, *calibrate, *dtype, *format;
    const char *algos, *sizes, *iters, *warmup;
    double scale, timeout_s;
    const char *transport; /* --transport auto|links=N[,eager=BYTES]; NULL: auto */
    tb_xport xp;           /* the transport given (when not auto) */
    const char *scale_text;
} tb_args;

static int parse(int argc, char **argv, tb_args *a, const char *verb) {
    static const cli_ownopt own[] = {{"--timeout", offsetof(tb_args, timeout_s)}};
    char who[64]; /* "testbed run": the messages' verb */
    memset(a, 0, sizeof *a);
    a->timeout_s = 300;
    snprintf(who, sizeof who, "testbed %s", verb);
    if (cli_take_own(&argc, argv, own, (int)(sizeof own / sizeof own[0]), a, who) != AR_OK) return -1;
    for (int i = 0; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **dst = NULL;
        if (!strcmp(k, "--platform")) dst = &a->platform;
        else if (!strcmp(k, "--id")) dst = &a->id;
        else if (!strcmp(k, "--out")) dst = &a->out;
        else if (!strcmp(k, "--platform-out")) dst = &a->platform_out;
        else if (!strcmp(k, "--calibrate")) dst = &a->calibrate;
        else if (!strcmp(k, "--dtype")) dst = &a->dtype;
        else if (!strcmp(k, "--format")) dst = &a->format;
        else if (!strcmp(k, "--algo")) dst = &a->algos;
        else if (!strcmp(k, "--size")) dst = &a->sizes;
        else if (!strcmp(k, "--iters")) dst = &a->iters;
        else if (!strcmp(k, "--warmup")) dst = &a->warmup;
        else if (!strcmp(k, "--scale")) dst = &a->scale_text;
        else if (!strcmp(k, "--transport")) dst = &a->transport;
        else {
            fprintf(stderr, "arlab testbed %s: unknown option \"%s\"\n", verb, k);
            return -1;
        }
        if (!v) {
            fprintf(stderr, "arlab testbed %s: %s needs a value\n", verb, k);
            return -1;
        }
        *dst = v;
        i++;
    }
    if (a->transport && strcmp(a->transport, "auto") && parse_xport(a->transport, &a->xp) != 0) return -1;
    if (a->scale_text) {
        char *end;
        a->scale = strtod(a->scale_text, &end);
        if (*end || !(a->scale > 0) || a->scale > 1e6) {
            fprintf(stderr, "arlab testbed %s: --scale \"%s\" is not a factor > 0\n", verb, a->scale_text);
            return -1;
        }
    }
    return 0;
}

static void opts_of(const tb_args *a, ar_tb_opts *o) {
    memset(o, 0, sizeof *o);
    o->id = a->id;
    o->scale = a->scale;
}

/* Prints the error; 130 after SIGINT/SIGTERM/SIGHUP (the testbed was removed). */
static int fail(const char *verb, ar_status st, const ar_err *e) {
    fprintf(stderr, "arlab testbed %s: %s\n", verb, e->msg);
    return ar_tb_interrupted() ? 130 : (int)st;
}

/* Loads and plans; prints the error. */
static int load_plan(const tb_args *a, const char *verb, ar_platform **p, ar_tb **t) {
    ar_err e = {{0}};
    *p = NULL;
    *t = NULL;
    if (!a->platform) {
        fprintf(stderr, "arlab testbed %s: give --platform P (a tree platform)\n", verb);
        return AR_EINVAL;
    }
    ar_status st = ar_platform_load(a->platform, 0, p, &e);
    if (st != AR_OK) return fail(verb, st, &e);
    ar_tb_opts o;
    opts_of(a, &o);
    st = ar_tb_plan(*p, &o, t, &e);
    if (st != AR_OK) {
        ar_platform_free(*p);
        *p = NULL;
        return fail(verb, st, &e);
    }
    return 0;
}

static int do_up(const tb_args *a) {
    ar_platform *p;
    ar_tb *t;
    int rc = load_plan(a, "up", &p, &t);
    if (rc) return rc;
    ar_err e = {{0}};
    ar_status st = AR_OK;
    if (a->out) st = ar_tb_write_platform(t, a->out, &e);
    if (st == AR_OK) st = ar_tb_up(t, 1, &e);
    if (st == AR_OK) {
        printf("arlab testbed: '%s' up: %d machines, %d ranks of %s%s%s\n", a->id ? a->id : "tb", p->nmachines,
               p->nranks, p->name, a->scale_text ? ", scale " : "", a->scale_text ? a->scale_text : "");
        if (a->out) printf("arlab testbed: shaped platform written to %s\n", a->out);
    }
    ar_tb_free(t);
    ar_platform_free(p);
    return st == AR_OK ? 0 : fail("up", st, &e);
}

/* Path of arlab-mpi: $ARLAB_MPI or beside /proc/self/exe. */
static int find_mpi(char *buf, size_t n) {
    const char *env = getenv("ARLAB_MPI");
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return access(buf, X_OK) == 0 ? 0 : -1;
    }
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return -1;
    self[k] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return -1;
    *slash = 0;
    snprintf(buf, n, "%s/arlab-mpi", self);
    return access(buf, X_OK) == 0 ? 0 : -1;
}

#define MAXARGV 80

enum { RUN_ALGOS, RUN_CALIBRATE, RUN_EXCHANGE };

/* Runs arlab-mpi under mpirun in the head namespace with Open MPI's TCP BTL at `links` connections per
 * pair of ranks; what: RUN_ALGOS (file: the traffic file), RUN_CALIBRATE, RUN_EXCHANGE (file: its result).
 * note: the transport note of every row. Returns its status. */
static int mpirun(const tb_args *a, const ar_platform *p, ar_tb *t, const char *mpi, const char *plat,
                  const char *hosts, const char *file, int what, const tb_xport *xp, const char *note) {
    char self[4096], agent[4200], np[16], nl[16], el[32], mm[32];
    snprintf(nl, sizeof nl, "%d", xp->links);
    snprintf(el, sizeof el, "%ld", xp->eager + 256); /* + room for the match header */
    snprintf(mm, sizeof mm, "%ld", xp->eager);
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return -1;
    self[k] = 0;
    snprintf(agent, sizeof agent, "%s testbed rsh", self);
    snprintf(np, sizeof np, "%d", p->nranks);
    const char *av[MAXARGV];
    int n = 0;
    const char *fixed[] = {"mpirun",
                           "--allow-run-as-root",
                           "--hostfile",
                           hosts,
                           "--mca",
                           "plm_rsh_agent",
                           agent,
                           "--mca",
                           "plm_rsh_no_tree_spawn",
                           "1",
                           "--mca",
                           "oob_tcp_if_include",
                           "10.214.0.0/16",
                           "--mca",
                           "pml",
                           "ob1",
                           "--mca",
                           "btl",
                           "tcp,self",
                           "--mca",
                           "btl_tcp_if_include",
                           "10.213.0.0/16",
                           "--mca",
                           "mpi_yield_when_idle",
                           "1",
                           "--mca",
                           "btl_tcp_links",
                           nl,
                           "--mca",
                           "btl_tcp_eager_limit",
                           xp->eager > 0 ? el : "65536",
                           "--bind-to",
                           "none",
                           "--oversubscribe",
                           "--map-by",
                           "slot",
                           "-np",
                           np,
                           mpi,
                           "--platform",
                           plat,
                           "--testbed"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) av[n++] = fixed[i];
    if (xp->eager > 0) {
        /* after the executable: arlab-mpi's own option (mpirun passes everything after it through) */
        av[n++] = "--max-msg";
        av[n++] = mm;
    }
    if (a->scale_text) {
        av[n++] = "--scale";
        av[n++] = a->scale_text;
    }
    if (note) {
        av[n++] = "--transport-note";
        av[n++] = note;
    }
    if (what == RUN_CALIBRATE) {
        av[n++] = "--calibrate";
        av[n++] = a->calibrate;
    } else if (what == RUN_EXCHANGE) {
        av[n++] = "--exchange-test";
        av[n++] = file;
    } else {
        const char *pairs[][2] = {{"--algo", a->algos},  {"--size", a->sizes},    {"--dtype", a->dtype},
                                  {"--iters", a->iters}, {"--warmup", a->warmup}, {"--format", a->format},
                                  {"--out", a->out},     {"--traffic", file}};
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (pairs[i][1]) {
                av[n++] = pairs[i][0];
                av[n++] = pairs[i][1];
            }
    }
    if (a->iters && what == RUN_CALIBRATE) {
        av[n++] = "--iters";
        av[n++] = a->iters;
    }
    av[n] = NULL;
    return ar_tb_spawn_wait(ar_tb_ns_head(t), (char *const *)av, a->timeout_s,
                            what == RUN_CALIBRATE  ? "calibration"
                            : what == RUN_EXCHANGE ? "exchange test"
                                                   : "mpirun");
}

/* Open MPI's TCP BTL opens btl_tcp_links connections per pair of ranks (default 1) and sends a large message
 * after a rendezvous handshake, whose reply waits behind whatever data the replying rank is already sending
 * on that connection: two ranks sending to each other at once then take turns. With 2 or more links the
 * reply sometimes takes another connection, decided when the connections are set up: fast in one mpirun,
 * slow in the next. Measured, not assumed: an exchange test (4 MiB each way between rank 0 and the farthest
 * machine, median of 5) per candidate (1 with eager messages of at most 1 MiB; btl_tcp_links 1, 2, 4), in
 * two separate mpiruns each, a candidate counting its slower one; kept: the first candidate, in that order,
 * within 5 % of the fastest. Eager first: it is full duplex in every mpirun, while 2 or 4 links that were
 * fast in both test runs can take turns again in the calibration's and the algorithms' own mpiruns (a
 * calibrated exchange at 0.49 x, every simulated time doubled). Fills *xp and a line saying how. */
static ar_status choose_xport(const tb_args *a, const ar_platform *p, ar_tb *t, const char *mpi, const char *plat,
                              const char *hosts, const char *xfile, tb_xport *xp, char *how, size_t nhow, ar_err *e) {
    static const tb_xport cand[] = {{1, 1048576}, {1, 0}, {2, 0}, {4, 0}};
    enum { NC = sizeof cand / sizeof cand[0], NREP = 2 };
    double tm[NC];
    int best = -1;
    for (int i = 0; i < NC; i++) {
        tm[i] = 0;
        char c[48];
        xport_text(&cand[i], c, sizeof c);
        for (int rep = 0; rep < NREP && isfinite(tm[i]); rep++) {
            double v = NAN;
            remove(xfile);
            int r = mpirun(a, p, t, mpi, plat, hosts, xfile, RUN_EXCHANGE, &cand[i], NULL);
            if (ar_tb_interrupted()) return ar_fail(e, AR_EFAIL, "interrupted");
            FILE *f = fopen(xfile, "r");
            if (r == 0 && f && fscanf(f, "exchange_s %lf", &v) == 1 && v > 0) {
                tm[i] = fmax(tm[i], v);
            } else {
                fprintf(stderr, "arlab testbed run: exchange test with %s failed (exit %d): not a candidate\n", c, r);
                tm[i] = NAN;
            }
            if (f) fclose(f);
        }
        if (isfinite(tm[i]) && (best < 0 || tm[i] < tm[best])) best = i;
    }
    remove(xfile);
    if (best < 0) return ar_fail(e, AR_EBACKEND, "the exchange test failed with every transport candidate");
    int pick = best;
    for (int i = 0; i < NC; i++)
        if (isfinite(tm[i]) && tm[i] <= 1.05 * tm[best]) {
            pick = i;
            break;
        }
    *xp = cand[pick];
    char c[48];
    xport_text(xp, c, sizeof c);
    int k = snprintf(how, nhow, "%s (exchange test, 4 MiB each way, slower of 2 runs:", c);
    for (int i = 0; i < NC && k > 0 && (size_t)k < nhow; i++) {
        xport_text(&cand[i], c, sizeof c);
        k += isfinite(tm[i])
                 ? snprintf(how + k, nhow - (size_t)k, " %s %.1f ms%s", c, tm[i] * 1e3, i < NC - 1 ? "," : "")
                 : snprintf(how + k, nhow - (size_t)k, " %s failed%s", c, i < NC - 1 ? "," : "");
    }
    if (k > 0 && (size_t)k < nhow) snprintf(how + k, nhow - (size_t)k, "; the first within 5 %% of the fastest)");
    return AR_OK;
}

static int do_run(const tb_args *a) {
    char mpi[4200];
    if (find_mpi(mpi, sizeof mpi) != 0) {
        fprintf(stderr, "arlab testbed run: arlab-mpi not found (build arlab with ARLAB_REAL=ON where MPI is found, "
                        "or set ARLAB_MPI)\n");
        return AR_EUNSUPPORTED;
    }
    ar_platform *p;
    ar_tb *t;
    int rc = load_plan(a, "run", &p, &t);
    if (rc) return rc;
    ar_err e = {{0}};
    const char *dir = getenv("ARLAB_TESTBED_DIR");
    if (!dir || !*dir) dir = "/run/arlab-testbed";
    const char *id = a->id ? a->id : "tb";
    char plat[512], hosts[512], traffic[512];
    snprintf(plat, sizeof plat, "%s/%s.platform.json", dir, id);
    snprintf(hosts, sizeof hosts, "%s/%s.hosts", dir, id);
    snprintf(traffic, sizeof traffic, "%s/%s.traffic", dir, id);
    double *tx0 = ar_calloc((size_t)p->nmachines * 4, sizeof *tx0), *rx0 = tx0 + p->nmachines,
           *tx1 = rx0 + p->nmachines, *rx1 = tx1 + p->nmachines;
    ar_status st = tx0 ? AR_OK : ar_fail(&e, AR_ENOMEM, "out of memory");
    if (st == AR_OK) st = ar_tb_up(t, 0, &e);
    if (st == AR_OK) st = ar_tb_write_platform(t, a->platform_out ? a->platform_out : plat, &e);
    if (st == AR_OK) {
        FILE *f = fopen(hosts, "w");
        for (int m = 0; f && m < p->nmachines; m++)
            fprintf(f, "%s slots=%d\n", ar_tb_ns_machine(t, m),
                    p->machine_first_rank[m + 1] - p->machine_first_rank[m]);
        if (!f || fclose(f) != 0) st = ar_fail(&e, AR_EIO, "cannot write %s", hosts);
    }
    const char *pfile = a->platform_out ? a->platform_out : plat;
    if (st == AR_OK)
        printf("# testbed '%s': %d machines, %d ranks of %s%s%s (platform as shaped: %s)\n", id, p->nmachines,
               p->nranks, p->name, a->scale_text ? ", scale " : "", a->scale_text ? a->scale_text : "", pfile);
    fflush(stdout);
    tb_xport xp = {1, 0};
    char how[400];
    int given = a->transport && strcmp(a->transport, "auto");
    if (given) xp = a->xp;
    if (st == AR_OK && !given) st = choose_xport(a, p, t, mpi, pfile, hosts, traffic, &xp, how, sizeof how, &e);
    else if (st == AR_OK) {
        xport_text(&xp, how, sizeof how);
        snprintf(how + strlen(how), sizeof how - strlen(how), " (given: --transport)");
    }
    const char *note = given ? "(given)" : "(measured)";
    if (st == AR_OK) {
        printf("# MPI transport: %s\n", how);
        fflush(stdout);
        st = ar_tb_set_transport(t, how, &e);
    }
    if (st == AR_OK && a->calibrate) {
        int r = mpirun(a, p, t, mpi, pfile, hosts, traffic, RUN_CALIBRATE, &xp, note);
        if (r != 0)
            st = ar_fail(&e, ar_tb_interrupted() ? AR_EFAIL : AR_EBACKEND, "calibration (mpirun) exited with %d%s", r,
                         ar_tb_interrupted() ? " (interrupted)" : "");
    }
    for (int m = 0; st == AR_OK && m < p->nmachines; m++) st = ar_tb_uplink_bytes(t, m, &tx0[m], &rx0[m], &e);
    int mrc = 0;
    if (st == AR_OK) {
        remove(traffic);
        mrc = mpirun(a, p, t, mpi, pfile, hosts, traffic, RUN_ALGOS, &xp, note);
        if (mrc != 0 && mrc != AR_EFAIL)
            st = ar_fail(&e, ar_tb_interrupted() ? AR_EFAIL : AR_EBACKEND, "mpirun of arlab-mpi exited with %d%s", mrc,
                         ar_tb_interrupted() ? " (interrupted)" : "");
    }
    for (int m = 0; st == AR_OK && m < p->nmachines; m++) st = ar_tb_uplink_bytes(t, m, &tx1[m], &rx1[m], &e);
    int short_bytes = 0;
    if (st == AR_OK && p->nmachines > 1) {
        FILE *f = fopen(traffic, "r");
        if (!f) st = ar_fail(&e, AR_EIO, "arlab-mpi wrote no traffic file %s", traffic);
        printf(
            "# traffic over the shaped links (machine uplink u0 counters, ip -s -j link; payload = bytes the schedules "
            "sent off the machine, warm-up + timed + check runs; the counters add headers and MPI_Allreduce):\n");
        int mm;
        double want;
        while (f && fscanf(f, "machine %d bytes %lf\n", &mm, &want) == 2) {
            if (mm < 0 || mm >= p->nmachines) continue;
            double dtx = tx1[mm] - tx0[mm], drx = rx1[mm] - rx0[mm];
            int ok = dtx >= want;
            short_bytes += !ok;
            printf("#   machine %d (%s): payload sent %.0f B, uplink tx %.0f B, rx %.0f B: %s\n", mm,
                   ar_tb_ns_machine(t, mm), want, dtx, drx, ok ? "ok" : "TOO FEW BYTES");
        }
        if (f) fclose(f);
    }
    ar_tb_release(t);
    remove(hosts);
    remove(traffic);
    if (!a->platform_out) remove(plat);
    if (st == AR_OK && short_bytes)
        st = ar_fail(&e, AR_EFAIL, "%d machine uplinks carried fewer bytes than the schedules sent", short_bytes);
    if (st == AR_OK && mrc == AR_EFAIL) st = ar_fail(&e, AR_EFAIL, "wrong results (see #wrong)");
    if (st == AR_OK && a->scale_text)
        printf("# scale %s: every shaped link at %s x its platform bandwidth\n", a->scale_text, a->scale_text);
    free(tx0);
    ar_tb_free(t);
    ar_platform_free(p);
    if (st != AR_OK) return fail("run", st, &e);
    return 0;
}
#endif

int cmd_testbed(int argc, char **argv) {
    if (argc < 1 || !strcmp(argv[0], "--help")) {
        fprintf(argc < 1 ? stderr : stdout,
                "usage: arlab testbed up|down|status|run --platform P [--scale F] [--id ID] ... (see README)\n");
        return argc < 1 ? AR_EINVAL : 0;
    }
#ifndef AR_HAVE_TESTBED
    fprintf(stderr, "arlab testbed: built without the testbed (real/testbed)\n");
    return AR_EUNSUPPORTED;
#else
    const char *sub = argv[0];
    if (!strcmp(sub, "rsh")) {
        if (argc < 3) {
            fprintf(stderr, "arlab testbed rsh: usage: arlab testbed rsh NAMESPACE COMMAND...\n");
            return AR_EINVAL;
        }
        return ar_tb_rsh(argv[1], argc - 2, argv + 2);
    }
    tb_args a;
    if (parse(argc - 1, argv + 1, &a, sub) != 0) return AR_EINVAL;
    ar_tb_opts o;
    opts_of(&a, &o);
    ar_err e = {{0}};
    if (!strcmp(sub, "up")) return do_up(&a);
    if (!strcmp(sub, "run")) return do_run(&a);
    if (!strcmp(sub, "down")) {
        ar_tb_clean_stale(&o, stdout);
        ar_status st = ar_tb_down(&o, stdout, &e);
        return st == AR_OK ? 0 : fail("down", st, &e);
    }
    if (!strcmp(sub, "status")) {
        ar_status st = ar_tb_status(&o, stdout, &e);
        return st == AR_OK ? 0 : fail("status", st, &e);
    }
    fprintf(stderr, "arlab testbed: unknown subcommand \"%s\" (up, down, status, run)\n", sub);
    return AR_EINVAL;
#endif
}
