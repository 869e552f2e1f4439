/* arlab-mpi: the MPI backend of arlab. One MPI process per rank.
 *
 *   mpirun -np N arlab-mpi --platform P [--algo A,...|all] [--size S,...] [--dtype f32|f64|i32]
 *          [--iters N] [--warmup N] [--format table|csv|nccl-tests] [--out FILE.csv] [--traffic FILE]
 *          [--calibrate FILE.json] [--cal-sizes S,...] [--testbed] [--scale F]
 *          [--exchange-test FILE [--exchange-size S]] [--max-msg BYTES] [--transport-note TEXT]
 *
 * Runs every algorithm's schedule (ar_algo_plan, the same lowering as every
 * backend; real/mpi/mexec.h) beside the MPI_Allreduce baseline (algo
 * "mpi-allreduce", lowering "mpi"), measured like `arlab real`, and writes rows
 * with the columns of `arlab real` (real/rmeasure.h): nccl_s / vs_nccl hold
 * the MPI_Allreduce baseline of the same size. P must have N ranks; ranks are
 * machine-major as in the platform. Exit status AR_EFAIL when any #wrong is
 * not 0.
 *   --traffic FILE   rank 0 writes, per machine, the payload bytes the
 *                    schedules' runs (warm-up, timed, check) sent to other
 *                    machines: lines "machine M bytes B" (`arlab testbed run`
 *                    compares them with the veth counters).
 *   --calibrate FILE per link class (two ranks of one machine; rank 0 and one
 *                    machine per distinct number of shaped links on the
 *                    route), a ping-pong and an exchange (both directions at
 *                    once) at every size (8 B .. 16 MiB; --cal-sizes); alpha
 *                    by relative-error least squares over the sizes <= 64 KiB
 *                    with its 95 % interval (not identified when the interval
 *                    reaches 0: printed and noted), bandwidth by least squares over the
 *                    sizes >= 1 MiB (calib/rcalib.h); writes the platform
 *                    with the fitted values (real/testbed/tbjson.h): GPU links
 *                    lat alpha_intra/2 (the wake-up of a rank sleeping in its
 *                    poll, ar_mx_wakeup, is printed, not used), bw the rate each way
 *                    of an exchange of one pair per machine at once
 *                    (ar_mx_exchange_pairs, sizes >= 1 MiB); shaped links their
 *                    bandwidth x (exchange rate each way / configured) on
 *                    the farthest route, and latency (alpha_far - 2 o -
 *                    alpha_intra) / its shaped links (a value not
 *                    identified: its point estimate, 0 if negative, said in
 *                    the note); compute reduce: the ranks' measured
 *                    reduction rate; compute message o (between machines):
 *                    the slope over k = 1..8 of a fan-out (rank 0 sends k
 *                    8-byte messages at once to the ranks of other machines,
 *                    each answered; ar_mx_fanout), with its 95 % interval;
 *                    the same to the ranks of its own machine is printed
 *                    (intra o), not used: the platform charges o between
 *                    machines only. Then exits.
 *   --exchange-test FILE  an exchange of --exchange-size bytes (default 4 MiB)
 *                    each way between rank 0 and the farthest machine; rank 0
 *                    writes "exchange_s T" (`testbed run` picks Open MPI's
 *                    btl_tcp_links with it). Then exits.
 *   --max-msg BYTES  every payload as messages of at most BYTES (mexec.h;
 *                    with an eager limit that large: no rendezvous).
 *   --transport-note TEXT  appended to the transport column of every row,
 *                    which holds btl_tcp_links as Open MPI reads it (MPI_T)
 *                    and --max-msg: "tcp:links=N[;eager=B] TEXT".
 *   --testbed        checks that every rank runs in its machine's namespace of
 *                    the testbed (its 10.213.0.0/16 address is machine + 1).
 *   --scale F        printed with every result (the testbed's --scale).
 *   --format nccl-tests  one document per algorithm (and MPI_Allreduce) in
 *                    nccl-tests' text format (calib/nccltests_out.h), so that
 *                    `arlab fit`/`calibrate --from` read it like nccl-tests'
 *                    own output. The runs are in place: the out-of-place half
 *                    is blank; the "device" lines name the rank's machine.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <math.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/algo.h"
#include "core/platform/platform.h"
#include "core/units.h"
#include "core/util.h"
#include "models/model.h"
#include "real/mpi/mexec.h"
#include "calib/nccltests_out.h"
#include "calib/rcalib.h"
#include "real/rmeasure.h"
#include "real/testbed/tbjson.h"

#define MAXL 64

typedef struct mopts {
    const char *platform;
    const char *algos[MAXL];
    int nalgos;
    const char *sizes[MAXL];
    int nsizes;
    const char *calsizes[MAXL];
    int ncalsizes;
    ar_dtype dtype;
    int iters, warmup;
    int csv, nt; /* --format csv | nccl-tests */
    const char *out, *traffic, *calibrate, *scale;
    const char *xtest, *xsize, *tnote; /* --exchange-test FILE, --exchange-size S, --transport-note TEXT */
    uint64_t max_msg;                  /* --max-msg BYTES: messages of at most that many bytes (0: whole) */
    int testbed;
} mopts;

static int split_list(char *s, const char **out, int *n) {
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*n >= MAXL) return -1;
        out[(*n)++] = tok;
    }
    return 0;
}

static int parse_args(int argc, char **argv, mopts *o, char *err, size_t nerr) {
    memset(o, 0, sizeof *o);
    o->iters = 10;
    o->warmup = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--testbed")) {
            o->testbed = 1;
            takes = 0;
        } else if (!v) {
            snprintf(err, nerr, "%s needs a value", a);
            return -1;
        } else if (!strcmp(a, "--platform")) o->platform = v;
        else if (!strcmp(a, "--algo")) {
            if (split_list(v, o->algos, &o->nalgos) < 0) goto many;
        } else if (!strcmp(a, "--size")) {
            if (split_list(v, o->sizes, &o->nsizes) < 0) goto many;
        } else if (!strcmp(a, "--cal-sizes")) {
            if (split_list(v, o->calsizes, &o->ncalsizes) < 0) goto many;
        } else if (!strcmp(a, "--dtype")) {
            ar_err e = {{0}};
            if (ar_dtype_parse(v, &o->dtype, &e) != AR_OK) {
                snprintf(err, nerr, "--dtype: %.400s", e.msg);
                return -1;
            }
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--warmup")) {
            ar_err e = {{0}};
            long long n;
            if (ar_parse_count(v, !strcmp(a, "--iters") ? 1 : 0, 100000, &n, &e) != AR_OK) {
                snprintf(err, nerr, "%s: %.400s", a, e.msg);
                return -1;
            }
            if (!strcmp(a, "--iters")) o->iters = (int)n;
            else o->warmup = (int)n;
        } else if (!strcmp(a, "--format")) {
            if (!strcmp(v, "csv")) o->csv = 1;
            else if (!strcmp(v, "nccl-tests")) o->nt = 1;
            else if (strcmp(v, "table")) {
                snprintf(err, nerr, "--format: \"%s\" is not table, csv or nccl-tests", v);
                return -1;
            }
        } else if (!strcmp(a, "--out")) o->out = v;
        else if (!strcmp(a, "--traffic")) o->traffic = v;
        else if (!strcmp(a, "--calibrate")) o->calibrate = v;
        else if (!strcmp(a, "--scale")) o->scale = v;
        else if (!strcmp(a, "--exchange-test")) o->xtest = v;
        else if (!strcmp(a, "--exchange-size")) o->xsize = v;
        else if (!strcmp(a, "--transport-note")) o->tnote = v;
        else if (!strcmp(a, "--max-msg")) {
            ar_err e = {{0}};
            if (ar_parse_size(v, 1, &o->max_msg, &e) != AR_OK) {
                snprintf(err, nerr, "--max-msg: %.400s", e.msg);
                return -1;
            }
        } else {
            snprintf(err, nerr, "unknown option \"%s\"", a);
            return -1;
        }
        i += takes;
    }
    if (!o->platform) {
        snprintf(err, nerr, "give --platform P");
        return -1;
    }
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    if (o->nsizes == 0) {
        o->sizes[o->nsizes++] = "64KB";
        o->sizes[o->nsizes++] = "1MB";
    }
    return 0;
many:
    snprintf(err, nerr, "at most %d list entries", MAXL);
    return -1;
}

/* Machine of this process from its testbed address (10.213.H.L = machine + 1). */
static int testbed_machine(void) {
    struct ifaddrs *ifa = NULL;
    int m = -1;
    if (getifaddrs(&ifa) != 0) return -1;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        uint32_t a = ntohl(((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr);
        if ((a >> 16) == ((10u << 8) | 213u)) m = (int)(a & 0xffffu) - 1;
    }
    freeifaddrs(ifa);
    return m;
}

static double model_time(const ar_platform *p, const char *spec, uint64_t count, size_t eb, const ar_schedule *s) {
    ar_err e = {{0}};
    ar_model_result r;
    double t = NAN;
    if (ar_algo_closed(spec, p, count, eb, &r, &e) == AR_OK) t = r.time_s;
    if (!isfinite(t) && s && ar_model_walk(p, s, &r, &e) == AR_OK) t = r.time_s;
    return t;
}

/* Shaped links on the route between ranks a and b. */
static int shaped_on_route(const ar_platform *p, int a, int b, double *conf_bw, double *conf_lat) {
    ar_dlink route[4 * AR_MAX_LEVELS + 4];
    int len = ar_platform_route(p, a, b, route, (int)(sizeof route / sizeof route[0])), n = 0;
    if (conf_bw) *conf_bw = INFINITY;
    if (conf_lat) *conf_lat = 0;
    for (int i = 0; i < len; i++) {
        int l = AR_DLINK_LINK(route[i]);
        if (!ar_tb_link_shaped(p, l)) continue;
        n++;
        if (conf_lat) *conf_lat += p->links[l].lat_s;
        if (conf_bw && ar_link_capacity(&p->links[l]) < *conf_bw) *conf_bw = ar_link_capacity(&p->links[l]);
    }
    return n;
}

/* One link class of the calibration: a pair of ranks, its ping-pong and exchange times per size and fits. */
typedef struct cal_class {
    char name[24];
    int a, b, nshaped;
    double conf_bw, conf_lat;
    double pp[MAXL], ex[MAXL];
    ar_real_fit alpha, bw, xalpha, xbw; /* ping-pong: alpha (small sizes), bw (large); the same for the exchange */
    double alpha_hw, xalpha_hw;         /* 95 % half widths; NAN: too few sizes */
    int nsmall, nlarge;
} cal_class;

#define CAL_SMALL_MAX 65536.0   /* alpha: sizes up to 64 KiB */
#define CAL_LARGE_MIN 1048576.0 /* bandwidth: sizes from 1 MiB */

/* Fits class k: alpha by relative-error least squares (gsl_fit_wlinear) over the small sizes, with its
 * interval; bandwidth by plain least squares over the large ones (all sizes if fewer than 2 are large). */
static ar_status cal_fit(cal_class *c, const double *sizes, int ns, ar_err *e) {
    double sx[MAXL], st[MAXL], sxe[MAXL], lx[MAXL], lt[MAXL], lxe[MAXL];
    int nsm = 0, nl = 0;
    for (int i = 0; i < ns; i++) {
        if (sizes[i] <= CAL_SMALL_MAX) {
            sx[nsm] = sizes[i];
            st[nsm] = c->pp[i];
            sxe[nsm++] = c->ex[i];
        }
        if (sizes[i] >= CAL_LARGE_MIN) {
            lx[nl] = sizes[i];
            lt[nl] = c->pp[i];
            lxe[nl++] = c->ex[i];
        }
    }
    c->nsmall = nsm;
    c->nlarge = nl;
    ar_status st1 = AR_OK;
    c->alpha_hw = c->xalpha_hw = NAN;
    if (nsm >= 2) {
        st1 = ar_real_fit_linear(sx, st, nsm, 1, &c->alpha, e);
        if (st1 == AR_OK) st1 = ar_real_fit_linear(sx, sxe, nsm, 1, &c->xalpha, e);
        c->alpha_hw = ar_real_fit_alpha_halfwidth(&c->alpha, 0.95);
        c->xalpha_hw = ar_real_fit_alpha_halfwidth(&c->xalpha, 0.95);
    } else {
        c->alpha.alpha_s = c->xalpha.alpha_s = NAN;
    }
    if (st1 == AR_OK)
        st1 = nl >= 2 ? ar_real_fit_linear(lx, lt, nl, 0, &c->bw, e)
                      : ar_real_fit_linear(sizes, c->pp, ns, 0, &c->bw, e);
    if (st1 == AR_OK)
        st1 = nl >= 2 ? ar_real_fit_linear(lx, lxe, nl, 0, &c->xbw, e)
                      : ar_real_fit_linear(sizes, c->ex, ns, 0, &c->xbw, e);
    return st1;
}

/* alpha is identified when its 95 % interval lies above 0. */
static int alpha_known(double a, double hw) { return isfinite(a) && isfinite(hw) && a - hw > 0; }

static const char *alpha_text(double a, double hw, char *buf, size_t n) {
    if (!isfinite(a)) snprintf(buf, n, "not fitted (fewer than 2 sizes <= 64 KiB)");
    else if (!isfinite(hw)) snprintf(buf, n, "%.2f us (2 sizes: no interval)", a * 1e6);
    else
        snprintf(buf, n, "%.2f us [%.2f, %.2f]%s", a * 1e6, (a - hw) * 1e6, (a + hw) * 1e6,
                 alpha_known(a, hw) ? "" : " NOT IDENTIFIED (interval reaches 0)");
    return buf;
}

#define WAKE_HOLD_S 500e-6 /* the wake-up test's hold: well beyond the polling spin (sleepy_waitany) */
#define WAKE_ITERS 31      /* its iterations */
#define FAN_K 8            /* fan-outs of 1..FAN_K messages */
#define FAN_BYTES 8        /* of this many bytes each */

/* The fan-out test of one class: rank 0 to the ranks of other machines (inter) or of its own (intra). */
typedef struct fan_class {
    int npeers;
    double t[FAN_K], o, hw; /* times per k, the slope o and its 95 % half width */
} fan_class;

static ar_status fan_measure(ar_mx *x, const ar_platform *p, int inter, int iters, int rank, fan_class *f, ar_err *e) {
    memset(f, 0, sizeof *f);
    f->o = f->hw = NAN;
    int *peers = ar_calloc((size_t)p->nranks, sizeof *peers);
    if (!peers) return ar_fail(e, AR_ENOMEM, "out of memory");
    for (int r = 1; r < p->nranks; r++)
        if ((p->machine_of_rank[r] != p->machine_of_rank[0]) == inter) peers[f->npeers++] = r;
    ar_status st = AR_OK;
    double ks[FAN_K];
    for (int k = 1; k <= FAN_K && f->npeers && st == AR_OK; k++) {
        ks[k - 1] = k;
        st = ar_mx_fanout(x, 0, peers, f->npeers, k, FAN_BYTES, 2, iters < 9 ? 9 : iters, &f->t[k - 1], e);
        if (st == AR_OK && rank == 0)
            printf("# calibrate fan-out %-5s %d message%s to %d peer%s: %10.2f us\n", inter ? "inter" : "intra", k,
                   k > 1 ? "s" : "", f->npeers, f->npeers > 1 ? "s" : "", f->t[k - 1] * 1e6);
    }
    if (st == AR_OK && f->npeers) st = ar_real_fit_fanout(ks, f->t, FAN_K, &f->o, &f->hw, e);
    free(peers);
    return st;
}

static const char *fan_hw_text(const fan_class *f, char *buf, size_t n) {
    if (!f->npeers) snprintf(buf, n, "(no peer)");
    else if (!isfinite(f->hw)) snprintf(buf, n, "(no interval)");
    else
        snprintf(buf, n, "[%.2f, %.2f]%s", (f->o - f->hw) * 1e6, (f->o + f->hw) * 1e6,
                 f->o - f->hw > 0 ? "" : " NOT IDENTIFIED (interval reaches 0)");
    return buf;
}

/* Calibration (see the header comment). Collective; rank 0 writes the file. */
static ar_status calibrate(ar_mx *x, const ar_platform *p, const mopts *o, int rank, const char *transport, ar_err *e) {
    double sizes[MAXL];
    int ns = 0;
    if (o->ncalsizes == 0) {
        static const double def[] = {8, 64, 512, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216};
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) sizes[ns++] = def[i];
    }
    for (int i = 0; i < o->ncalsizes; i++) {
        uint64_t v;
        if (ar_parse_size(o->calsizes[i], 1, &v, e) != AR_OK) return AR_EINVAL;
        sizes[ns++] = (double)v;
    }
    if (ns < 2) return ar_fail(e, AR_EINVAL, "--cal-sizes: need at least 2 sizes for a fit");
    /* classes: two ranks of one machine (intra), then rank 0 and the first rank of one machine per distinct
     * number of shaped links on the route (inter: nearest to farthest) */
    cal_class cls[6];
    int nc = 0;
    memset(cls, 0, sizeof cls);
    for (int r = 1; r < p->nranks; r++)
        if (p->machine_of_rank[r] == p->machine_of_rank[r - 1]) {
            snprintf(cls[nc].name, sizeof cls[nc].name, "intra");
            cls[nc].a = r - 1;
            cls[nc++].b = r;
            break;
        }
    int nintra = nc;
    for (int m = 0; m < p->nmachines && nc < 6; m++) {
        int r = p->machine_first_rank[m];
        if (p->machine_of_rank[r] == p->machine_of_rank[0]) continue;
        double cb, cl;
        int k = shaped_on_route(p, 0, r, &cb, &cl), dup = 0;
        for (int i = nintra; i < nc; i++) dup |= cls[i].nshaped == k;
        if (dup) continue;
        int at = nc++;
        while (at > nintra && cls[at - 1].nshaped > k) { /* nearest first */
            cls[at] = cls[at - 1];
            at--;
        }
        memset(&cls[at], 0, sizeof cls[at]);
        snprintf(cls[at].name, sizeof cls[at].name, "inter-%d", k);
        cls[at].a = 0;
        cls[at].b = r;
        cls[at].nshaped = k;
        cls[at].conf_bw = cb;
        cls[at].conf_lat = cl;
    }
    int iters = o->iters < 5 ? 5 : o->iters;
    for (int k = 0; k < nc; k++) {
        cal_class *c = &cls[k];
        for (int i = 0; i < ns; i++) {
            ar_status st = ar_mx_pingpong(x, c->a, c->b, (uint64_t)sizes[i], 2, iters, &c->pp[i], e);
            if (st == AR_OK) st = ar_mx_exchange(x, c->a, c->b, (uint64_t)sizes[i], 1, iters, &c->ex[i], e);
            if (st != AR_OK) return st;
            if (rank == 0)
                printf("# calibrate %-8s %d<->%d %10.0f B: ping-pong %10.2f us one-way (%8.2f Mbit/s), exchange "
                       "%10.2f us both ways (%8.2f Mbit/s each)\n",
                       c->name, c->a, c->b, sizes[i], c->pp[i] * 1e6, sizes[i] * 8 / c->pp[i] / 1e6, c->ex[i] * 1e6,
                       sizes[i] * 8 / c->ex[i] / 1e6);
        }
        ar_status st = cal_fit(c, sizes, ns, e);
        if (st != AR_OK) return st;
    }
    /* the intra-machine rate each way with one pair of every machine exchanging at once, as an algorithm's
     * intra-machine step runs: the GPU links' bandwidth (a pair alone has the host's CPUs to itself) */
    ar_real_fit allfit;
    int npairs = 0, nall = 0;
    memset(&allfit, 0, sizeof allfit);
    if (nintra) {
        int *peer = ar_calloc((size_t)p->nranks, sizeof *peer);
        double ax[MAXL], at[MAXL];
        if (!peer) return ar_fail(e, AR_ENOMEM, "out of memory");
        for (int r = 0; r < p->nranks; r++) peer[r] = -1;
        for (int r = 1; r < p->nranks; r++)
            if (p->machine_of_rank[r] == p->machine_of_rank[r - 1] && peer[r - 1] < 0 &&
                (r < 2 || p->machine_of_rank[r - 2] != p->machine_of_rank[r])) {
                peer[r - 1] = r;
                peer[r] = r - 1;
                npairs++;
            }
        ar_status st = AR_OK;
        for (int i = 0; i < ns && st == AR_OK; i++) {
            if (sizes[i] < CAL_LARGE_MIN) continue;
            ax[nall] = sizes[i];
            st = ar_mx_exchange_pairs(x, peer, (uint64_t)sizes[i], 1, iters, &at[nall], e);
            if (st == AR_OK && rank == 0)
                printf("# calibrate intra-all %d pair%s %10.0f B: exchange %10.2f us both ways (%8.2f Mbit/s each)\n",
                       npairs, npairs > 1 ? "s" : "", sizes[i], at[nall] * 1e6, sizes[i] * 8 / at[nall] / 1e6);
            nall++;
        }
        free(peer);
        if (st == AR_OK && nall >= 2) st = ar_real_fit_linear(ax, at, nall, 0, &allfit, e);
        if (st != AR_OK) return st;
    }
    /* the ranks' reduction rate (32 MiB of the run's type, beyond the caches, every rank at once): the calibrated platform's
     * compute.reduce, so that model and simulation charge the reductions the CPU runs */
    double red = NAN;
    {
        ar_status st = ar_mx_reduce_rate(x, 33554432 / ar_dtype_size(o->dtype), o->dtype, 5, &red, e);
        if (st != AR_OK) return st;
    }
    /* the per-message overhead o: fan-outs of k = 1..FAN_K small messages from rank 0, to the ranks of other
     * machines (inter: the transfers the platform charges o) and to those of its own machine (intra: reported) */
    fan_class fan[2];
    for (int c = 0; c < 2; c++) {
        ar_status st = fan_measure(x, p, c == 0, o->iters, rank, &fan[c], e);
        if (st != AR_OK) return st;
    }
    /* the wake-up delay w, printed, not in the platform: a rank waiting on a transfer that outlasts its polling
     * spin sleeps and notices the transfer's end late; w is what a held answer (the waiting end asleep) costs
     * beyond a plain ping-pong's, whose alpha already holds its own waits. Ring at 64 KB (14 rounds that each
     * outlast the spin) agrees with alpha alone, and adding an identified w overshot it by 14 % (docs/testbed.md) */
    double wake = NAN, wake_hw = NAN, ws[WAKE_ITERS];
    if (nc) {
        ar_status st = ar_mx_wakeup(x, cls[nc - 1].a, cls[nc - 1].b, WAKE_HOLD_S, 2, WAKE_ITERS, ws, e);
        if (st == AR_OK) st = ar_real_mean_interval(ws, WAKE_ITERS, &wake, &wake_hw, e);
        if (st != AR_OK) return st;
    }
    int wake_known = isfinite(wake) && isfinite(wake_hw) && wake - wake_hw > 0;
    if (rank != 0) return AR_OK;
    char b1[96], b2[96], b3[32], b4[32];
    if (nall >= 2)
        printf("# fit intra-all exchange bw %s each way (%d pair%s at once, one per machine; %d sizes >= 1 MiB) = "
               "%.3f x the intra ping-pong's: the GPU links' bandwidth\n",
               ar_fmt_rate(allfit.bw_Bps, b3, sizeof b3), npairs, npairs > 1 ? "s" : "", nall,
               allfit.bw_Bps / cls[0].bw.bw_Bps);
    if (isfinite(wake))
        printf("# fit wake-up %.2f us [%.2f, %.2f]%s (ranks %d<->%d: 8 B ping-pong held %.0f us by the far end "
               "minus the plain one, mean of %d, 95 %%; printed, not in the platform)\n",
               wake * 1e6, (wake - wake_hw) * 1e6, (wake + wake_hw) * 1e6,
               wake_known ? "" : " NOT IDENTIFIED (interval reaches 0)", cls[nc - 1].a, cls[nc - 1].b,
               WAKE_HOLD_S * 1e6, WAKE_ITERS);
    for (int c = 0; c < 2; c++)
        if (fan[c].npeers)
            printf("# fit o %-5s %.2f us per message %s (fan-out of 1..%d messages of %d B to %d peer%s, slope over k, "
                   "95 %%)\n",
                   c == 0 ? "inter" : "intra", fan[c].o * 1e6, fan_hw_text(&fan[c], b1, sizeof b1), FAN_K, FAN_BYTES,
                   fan[c].npeers, fan[c].npeers > 1 ? "s" : "");
    double msg_o = fan[0].npeers && isfinite(fan[0].o) ? fmax(0, fan[0].o) : 0;
    printf("# reduce: %s adds at %s (every rank at once, median over ranks)\n", ar_dtype_name(o->dtype),
           ar_fmt_rate(red, b3, sizeof b3));
    for (int k = 0; k < nc; k++) {
        const cal_class *c = &cls[k];
        printf("# fit %-8s alpha %s (95 %%, %d sizes <= 64 KiB, gsl_fit_wlinear), bw %s (%d sizes >= 1 MiB); "
               "exchange: alpha %s, bw %s each way = %.3f x ping-pong\n",
               c->name, alpha_text(c->alpha.alpha_s, c->alpha_hw, b1, sizeof b1), c->nsmall,
               ar_fmt_rate(c->bw.bw_Bps, b3, sizeof b3), c->nlarge,
               alpha_text(c->xalpha.alpha_s, c->xalpha_hw, b2, sizeof b2), ar_fmt_rate(c->xbw.bw_Bps, b4, sizeof b4),
               c->xbw.bw_Bps / c->bw.bw_Bps);
        if (c->nshaped > 0 && c->xbw.bw_Bps < 0.75 * c->bw.bw_Bps)
            printf("# %s: the exchange runs at %.2f x the ping-pong's rate each way: its two directions take turns "
                   "(the transport's rendezvous; see testbed run --transport)\n",
                   c->name, c->xbw.bw_Bps / c->bw.bw_Bps);
    }
    double *bw = ar_calloc((size_t)p->nlinks, sizeof *bw), *lat = ar_calloc((size_t)p->nlinks, sizeof *lat);
    if (!bw || !lat) {
        free(bw);
        free(lat);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int l = 0; l < p->nlinks; l++) {
        bw[l] = ar_link_capacity(&p->links[l]);
        lat[l] = p->links[l].lat_s;
    }
    /* GPU links (loopback): lat alpha_intra / 2, bw the intra fit. Shaped links: bandwidth x (measured /
     * configured) on the farthest route; latency (alpha_far - the intra route's) / its shaped links. A value
     * whose 95 % interval reaches 0 is not identified: its point estimate is used where >= 0, else 0, and
     * the note says so (netem is often absent, so the configured latencies are not what the links have). */
    const cal_class *ci = nintra ? &cls[0] : NULL, *cf = nc > nintra ? &cls[nc - 1] : NULL;
    char why_in[200] = "", why[240] = "";
    double a_in_used = 0; /* the intra route's latency in the calibrated platform */
    if (ci) {
        double a = ci->alpha.alpha_s;
        if (!alpha_known(a, ci->alpha_hw))
            snprintf(why_in, sizeof why_in,
                     "; intra alpha not identified: GPU links get lat %.3g us (point estimate%s)", fmax(0, a) / 2 * 1e6,
                     a < 0 ? " < 0: 0" : "");
        for (int l = 0; l < p->nlinks; l++)
            if (!ar_tb_link_shaped(p, l)) {
                bw[l] = allfit.bw_Bps > 0 && isfinite(allfit.bw_Bps) ? allfit.bw_Bps : ci->bw.bw_Bps;
                lat[l] = isfinite(a) ? fmax(0, a) / 2 : lat[l];
                a_in_used = 2 * lat[l];
            }
    }
    /* the shaped links' rate: the exchange's, each way (every algorithm here loads both directions of the
     * machine uplinks at once: a machine sends as much as it receives), the ping-pong's where the exchange
     * fit gives none */
    double eff = 1, per = NAN, xb = NAN;
    if (cf && cf->nshaped > 0 && isfinite(cf->conf_bw)) {
        xb = isfinite(cf->xbw.bw_Bps) && cf->xbw.bw_Bps > 0 ? cf->xbw.bw_Bps : cf->bw.bw_Bps;
        eff = xb / cf->conf_bw;
        /* a message between machines pays o at each end on top of its route's latency (compute.message) */
        per = (cf->alpha.alpha_s - 2 * msg_o - a_in_used) / cf->nshaped;
        double hw = sqrt((isfinite(cf->alpha_hw) ? cf->alpha_hw * cf->alpha_hw : INFINITY) +
                         (ci && isfinite(ci->alpha_hw) ? ci->alpha_hw * ci->alpha_hw : 0)) /
                    cf->nshaped;
        if (!(isfinite(per) && isfinite(hw) && per - hw > 0))
            snprintf(why, sizeof why,
                     "; shaped-link latency not identified (%.2f us +- %.2f per link, 95 %%): set to %.3g us",
                     per * 1e6, hw * 1e6, isfinite(per) ? fmax(0, per) * 1e6 : 0);
        per = isfinite(per) ? fmax(0, per) : 0;
        for (int l = 0; l < p->nlinks; l++)
            if (ar_tb_link_shaped(p, l)) {
                bw[l] *= eff;
                lat[l] = per;
            }
    }
    char n1[600], n2[600], n3[600], name[300];
    int k1 = snprintf(n1, sizeof n1,
                      "calibrated by arlab-mpi (ping-pong and exchange; alpha: relative-error least squares over sizes "
                      "<= 64 KiB with its 95 %% interval, bw: least squares over sizes >= 1 MiB): ");
    if (ci)
        snprintf(n1 + k1, sizeof n1 - (size_t)k1, "intra alpha %s bw %s%s",
                 alpha_text(ci->alpha.alpha_s, ci->alpha_hw, b1, sizeof b1), ar_fmt_rate(ci->bw.bw_Bps, b3, sizeof b3),
                 why_in);
    else snprintf(n1 + k1, sizeof n1 - (size_t)k1, "intra not measured (one rank per machine): GPU links kept");
    k1 = (int)strlen(n1);
    if (nall >= 2 && allfit.bw_Bps > 0 && isfinite(allfit.bw_Bps))
        snprintf(n1 + k1, sizeof n1 - (size_t)k1, "; GPU links bw %s each way (exchange, %d pairs at once)",
                 ar_fmt_rate(allfit.bw_Bps, b3, sizeof b3), npairs);
    if (cf) {
        alpha_text(cf->alpha.alpha_s, cf->alpha_hw, b1, sizeof b1);
        snprintf(n2, sizeof n2,
                 "%s (%d shaped links, configured %s): alpha %s bw %s (exchange: %.3f x each way), shaped links x "
                 "%.4f (the exchange's rate), latency %.3g us each%s%s",
                 cf->name, cf->nshaped, ar_fmt_rate(cf->conf_bw, b3, sizeof b3), b1,
                 ar_fmt_rate(cf->bw.bw_Bps, b4, sizeof b4), cf->xbw.bw_Bps / cf->bw.bw_Bps, eff, per * 1e6, why,
                 o->scale ? " (testbed scale in the name)" : "");
    } else {
        snprintf(n2, sizeof n2, "inter: not measured (one machine)");
    }
    snprintf(n3, sizeof n3,
             "MPI transport: %s; compute.reduce: %s adds, every rank at once (median over ranks); compute.message.o: "
             "%.3g us %s (inter-machine fan-out, slope over 1..%d messages; shaped-link latency = (alpha - 2 o - "
             "intra alpha) / links)%s%s",
             transport, ar_dtype_name(o->dtype), msg_o * 1e6, fan_hw_text(&fan[0], b2, sizeof b2), FAN_K,
             fan[0].npeers ? "" : "; not measured (one machine): 0",
             ar_mx_eager_ready(x) ? "; compute.message.ready: a transfer between machines that does not follow its "
                                    "pair's data of the round before waits for its receiver's ready message (the "
                                    "executor's rule)"
                                  : "");
    const char *notes[3] = {n1, n2, n3};
    snprintf(name, sizeof name, "%s-calibrated", p->name);
    ar_status st = ar_tb_write_tree(p, name, bw, lat, isfinite(red) ? red : 0, msg_o, ar_mx_eager_ready(x), notes, 3,
                                    o->calibrate, e);
    if (st == AR_OK) {
        printf("# %s\n# %s\n# %s\n# wrote %s\n", n1, n2, n3, o->calibrate);
        if (cf)
            printf("# shaping: configured %.2f Mbit/s, measured %.2f Mbit/s (%.1f %%) on ranks %d<->%d; exchange %.2f "
                   "Mbit/s each way (%.1f %%); calibrated: %.1f %%\n",
                   cf->conf_bw * 8 / 1e6, cf->bw.bw_Bps * 8 / 1e6, 100 * cf->bw.bw_Bps / cf->conf_bw, cf->a, cf->b,
                   cf->xbw.bw_Bps * 8 / 1e6, 100 * cf->xbw.bw_Bps / cf->conf_bw, 100 * eff);
    }
    free(bw);
    free(lat);
    return st;
}

/* --exchange-test FILE: an exchange (both directions at once) of S bytes between rank 0 and the first rank of
 * the machine farthest from it; rank 0 writes "exchange_s T" (median of 5 after 1 warm-up) and the transport. */
static ar_status exchange_test(ar_mx *x, const ar_platform *p, const mopts *o, int rank, const char *transport,
                               ar_err *e) {
    uint64_t bytes = 4194304;
    if (o->xsize && ar_parse_size(o->xsize, 1, &bytes, e) != AR_OK) return AR_EINVAL;
    int b = -1, best = -1;
    for (int m = 0; m < p->nmachines; m++) {
        int r = p->machine_first_rank[m];
        if (p->machine_of_rank[r] == p->machine_of_rank[0]) continue;
        int k = shaped_on_route(p, 0, r, NULL, NULL);
        if (k > best) {
            best = k;
            b = r;
        }
    }
    if (b < 0 && p->nranks > 1) b = 1;
    if (b < 0) return ar_fail(e, AR_EINVAL, "--exchange-test needs two ranks");
    double t;
    ar_status st = ar_mx_exchange(x, 0, b, bytes, 1, o->iters < 5 ? 5 : o->iters, &t, e);
    if (st != AR_OK || rank != 0) return st;
    printf("# exchange 0<->%d %llu B each way: %.3f ms (%.2f Mbit/s each way), %s\n", b, (unsigned long long)bytes,
           t * 1e3, (double)bytes * 8 / t / 1e6, transport);
    FILE *f = fopen(o->xtest, "w");
    if (!f) return ar_fail(e, AR_EIO, "cannot write %s", o->xtest);
    fprintf(f, "exchange_s %.9g\nbytes %llu\ntransport %s\n", t, (unsigned long long)bytes, transport);
    if (fclose(f) != 0) return ar_fail(e, AR_EIO, "cannot write %s", o->xtest);
    return AR_OK;
}

/* The transport in effect, for every row's provenance: Open MPI's btl_tcp_links as the library reads it
 * (MPI_T control variable), else as the environment sets it. */
static void transport_of(char *buf, size_t n, uint64_t max_msg, int ready, const char *note) {
    int links = -1, provided, idx;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
        if (MPI_T_cvar_get_index("btl_tcp_links", &idx) == MPI_SUCCESS) {
            MPI_Datatype dt;
            int verb, bind, scope, nl = 0, dl = 0;
            MPI_T_enum en;
            if (MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &dt, &en, NULL, &dl, &bind, &scope) == MPI_SUCCESS &&
                (dt == MPI_INT || dt == MPI_UNSIGNED)) {
                MPI_T_cvar_handle h;
                int cnt, v = -1;
                if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt) == MPI_SUCCESS) {
                    if (cnt == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS) links = v;
                    MPI_T_cvar_handle_free(&h);
                }
            }
        }
        MPI_T_finalize();
    }
    const char *env = getenv("OMPI_MCA_btl_tcp_links");
    if (links < 0 && env && *env) links = atoi(env);
    char eg[32] = "";
    if (max_msg) /* no comma: a CSV cell; ready: eager data waits for the receiver's ready message */
        snprintf(eg, sizeof eg, ";eager=%llu%s", (unsigned long long)max_msg, ready ? ";ready" : "");
    if (links >= 0) snprintf(buf, n, "tcp:links=%d%s%s%s", links, eg, note ? " " : "", note ? note : "");
    else snprintf(buf, n, "mpi%s%s%s", eg, note ? " " : "", note ? note : "");
}

static void print_row(const ar_real_row *r, int csv, const char *scale) {
    if (csv) {
        ar_real_csv_row(stdout, r);
        return;
    }
    printf("%-28s %12.0f %12.1f %12.1f %12.1f %10.4f %10.4f %8lld %8.3f%s%s\n", r->algo, r->bytes, r->measured_s * 1e6,
           r->model_s * 1e6, r->min_s * 1e6, r->algbw_GBps, r->busbw_GBps, r->wrong, r->vs_nccl,
           scale ? "  scale " : "", scale ? scale : "");
}

/* --format nccl-tests: one document per algorithm, in the order the rows came (rank 0). */
static void print_nccltests(const ar_real_row *rows, int n, const ar_platform *p, const mopts *o, const int *pids) {
    ar_nt_rank *rk = ar_calloc((size_t)p->nranks, sizeof *rk);
    for (int r = 0; rk && r < p->nranks; r++) {
        rk[r].rank = r;
        rk[r].pid = pids[r];
        rk[r].dev = p->machine_of_rank[r];
        snprintf(rk[r].host, sizeof rk[r].host, "machine%d", p->machine_of_rank[r]);
        snprintf(rk[r].name, sizeof rk[r].name, "cpu (arlab-mpi)");
    }
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int k = 0; k < i && first; k++) first = strcmp(rows[k].algo, rows[i].algo) != 0;
        if (!first) continue;
        char c1[200], c2[200];
        snprintf(c1, sizeof c1, "# arlab-mpi: algo %s, %d ranks on %d machines of %s, lowering %s%s%s", rows[i].algo,
                 p->nranks, p->nmachines, p->name, rows[i].lowering, o->scale ? ", testbed scale " : "",
                 o->scale ? o->scale : "");
        snprintf(c2, sizeof c2, "# arlab-mpi: time = median over iterations of the max over ranks; in place only");
        const char *com[] = {c1, c2, NULL};
        double lo = rows[i].bytes, hi = rows[i].bytes, bw = 0;
        for (int k = i; k < n; k++)
            if (!strcmp(rows[k].algo, rows[i].algo)) {
                lo = fmin(lo, rows[k].bytes);
                hi = fmax(hi, rows[k].bytes);
            }
        ar_nt_params prm = {1, 1, (long)lo, (long)hi, 0, 0, o->warmup, o->iters, 1, 1, 0, NULL};
        ar_nt_header(stdout, com, &prm, rk, rk ? p->nranks : 0);
        int nbw = 0, errors = 0;
        for (int k = i; k < n; k++) {
            const ar_real_row *r = &rows[k];
            if (strcmp(r->algo, rows[i].algo)) continue;
            size_t eb = ar_dtype_size(o->dtype);
            ar_nt_row nr = {(long)r->bytes,
                            (long)(r->bytes / (double)eb),
                            ar_nt_type_name(o->dtype),
                            "sum",
                            -1,
                            {NAN, 0, 0, 0},
                            {r->measured_s, r->algbw_GBps, r->busbw_GBps, (long)r->wrong}};
            ar_nt_row_print(stdout, &nr);
            bw += r->busbw_GBps;
            nbw++;
            errors += r->wrong != 0;
        }
        ar_nt_footer(stdout, errors, nbw ? bw / nbw : 0);
    }
    free(rk);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mopts o;
    char err[512];
    ar_err e = {{0}};
    ar_status st = AR_OK;
    ar_platform *p = NULL;
    ar_mx *x = NULL;
    FILE *fo = NULL;
    double *cross = NULL, *tmpc = NULL;
    ar_real_row *ntrows = NULL; /* --format nccl-tests: printed at the end */
    int nnt = 0, nt_oom = 0, *pids = NULL;
    size_t capnt = 0;
    if (parse_args(argc, argv, &o, err, sizeof err) != 0) st = ar_fail(&e, AR_EINVAL, "%s", err);
    if (st == AR_OK) st = ar_platform_load(o.platform, 0, &p, &e);
    if (st == AR_OK && p->nranks != size)
        st = ar_fail(&e, AR_EINVAL, "platform %s has %d ranks, this run %d (mpirun -np %d)", p->name, p->nranks, size,
                     p->nranks);
    if (st == AR_OK && o.testbed) {
        int m = testbed_machine(), want = p->machine_of_rank[rank], bad = 0, any = 0;
        bad = m != want;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad)
            fprintf(stderr, "arlab-mpi: rank %d runs on testbed machine %d, the platform puts it on machine %d\n", rank,
                    m, want);
        if (any) st = ar_fail(&e, AR_EINTERNAL, "ranks are not in their machines' namespaces (see above)");
    }
    if (st == AR_OK) st = ar_mx_open(MPI_COMM_WORLD, &x, &e);
    char transport[64];
    if (x) ar_mx_set_max_msg(x, o.max_msg);
    if (x) ar_mx_set_machines(x, p->machine_of_rank);
    transport_of(transport, sizeof transport, o.max_msg, x && ar_mx_eager_ready(x), o.tnote);
    if (st == AR_OK && o.xtest) {
        st = exchange_test(x, p, &o, rank, transport, &e);
        goto done;
    }
    if (st == AR_OK && o.calibrate) {
        st = calibrate(x, p, &o, rank, transport, &e);
        goto done;
    }
    const char *names[256];
    int na = 0;
    for (int i = 0; st == AR_OK && i < o.nalgos; i++) {
        if (!strcmp(o.algos[i], "all")) {
            int n;
            const ar_algo *const *all = ar_algos(&n);
            for (int k = 0; k < n && na < 256; k++)
                if (ar_algo_colls(all[k]) & AR_COLL_BIT(AR_COLL_ALLREDUCE)) names[na++] = all[k]->name;
        } else if (na < 256) names[na++] = o.algos[i];
    }
    if (st == AR_OK) {
        cross = ar_calloc((size_t)p->nmachines, sizeof *cross);
        tmpc = ar_calloc((size_t)p->nmachines, sizeof *tmpc);
        if (!cross || !tmpc) st = ar_fail(&e, AR_ENOMEM, "out of memory");
    }
    if (st == AR_OK && rank == 0 && o.out && !(fo = fopen(o.out, "w")))
        st = ar_fail(&e, AR_EIO, "cannot write %s", o.out);
    if (st == AR_OK && rank == 0) {
        if (fo) ar_real_csv_header(fo);
        if (o.csv) ar_real_csv_header(stdout);
        else if (!o.nt) {
            printf("# arlab-mpi: %d ranks on %d machines of %s, %s, %d warm-up + %d timed iterations, in place%s%s\n",
                   size, p->nmachines, p->name, ar_dtype_name(o.dtype), o.warmup, o.iters,
                   o.scale ? ", testbed scale " : "", o.scale ? o.scale : "");
            printf("%-28s %12s %12s %12s %12s %10s %10s %8s %8s\n", "algo", "bytes", "time_us", "model_us", "min_us",
                   "algbw", "busbw", "#wrong", "vs_mpi");
        }
    }
    size_t eb = ar_dtype_size(o.dtype);
    long long total_wrong = 0;
    for (int si = 0; st == AR_OK && si < o.nsizes; si++) {
        uint64_t count;
        st = ar_parse_size(o.sizes[si], eb, &count, &e);
        if (st != AR_OK) break;
        ar_mx_measure base;
        st = ar_mx_bench(x, NULL, count, o.dtype, o.warmup, o.iters, &base, &e);
        if (st != AR_OK) break;
        for (int ai = -1; st == AR_OK && ai < na; ai++) {
            ar_real_row r;
            memset(&r, 0, sizeof r);
            snprintf(r.platform, sizeof r.platform, "%s", p->name);
            r.ranks = size;
            r.bytes = (double)count * (double)eb;
            r.inplace = 1;
            snprintf(r.dtype, sizeof r.dtype, "%s", ar_dtype_name(o.dtype));
            snprintf(r.transport, sizeof r.transport, "%s", transport);
            snprintf(r.timing, sizeof r.timing, "arlab");
            r.nccl_s = base.med_s;
            ar_mx_measure m = base;
            if (ai < 0) {
                snprintf(r.algo, sizeof r.algo, "mpi-allreduce");
                snprintf(r.lowering, sizeof r.lowering, "mpi");
                r.model_s = NAN;
            } else {
                ar_schedule *s = NULL;
                ar_err pe = {{0}};
                ar_status ps = ar_algo_plan(names[ai], p, count, eb, &s, &pe);
                if (ps == AR_EUNSUPPORTED) {
                    if (rank == 0) /* the table's own line; beside a CSV or nccl-tests document, on stderr */
                        fprintf(o.csv || o.nt ? stderr : stdout, "# %s: not applicable on %s: %s\n", names[ai], p->name,
                                pe.msg);
                    continue;
                }
                if (ps != AR_OK) {
                    st = ps;
                    e = pe;
                    break;
                }
                st = ar_mx_bench(x, s, count, o.dtype, o.warmup, o.iters, &m, &e);
                if (st == AR_OK) {
                    memset(tmpc, 0, (size_t)p->nmachines * sizeof *tmpc);
                    st = ar_mx_cross_bytes(s, p->machine_of_rank, tmpc, &e);
                    for (int k = 0; k < p->nmachines; k++) cross[k] += tmpc[k] * (o.warmup + o.iters + 1);
                }
                snprintf(r.algo, sizeof r.algo, "%s", names[ai]);
                snprintf(r.lowering, sizeof r.lowering, "p2p");
                r.model_s = model_time(p, names[ai], count, eb, s);
                ar_schedule_free(s);
                if (st != AR_OK) break;
            }
            r.measured_s = m.med_s;
            r.min_s = m.min_s;
            r.max_s = m.max_s;
            r.wrong = m.wrong;
            r.iters = m.iters;
            ar_real_row_derive(&r);
            if (m.wrong != 0) total_wrong += m.wrong ? m.wrong : 0;
            if (rank == 0 && o.nt) {
                /* no break on failure: the other ranks go on with the collective runs */
                if (ar_grow(&ntrows, &capnt, (size_t)nnt + 1, sizeof *ntrows) != 0) nt_oom = 1;
                else ntrows[nnt++] = r;
            }
            if (rank == 0) {
                if (!o.nt) print_row(&r, o.csv, o.scale);
                if (fo) ar_real_csv_row(fo, &r);
                fflush(stdout);
            }
        }
    }
    if (st == AR_OK && rank == 0 && o.traffic) {
        FILE *ft = fopen(o.traffic, "w");
        if (!ft) st = ar_fail(&e, AR_EIO, "cannot write %s", o.traffic);
        for (int k = 0; ft && k < p->nmachines; k++) fprintf(ft, "machine %d bytes %.0f\n", k, cross[k]);
        if (ft && fclose(ft) != 0) st = ar_fail(&e, AR_EIO, "cannot write %s", o.traffic);
    }
    if (o.nt) { /* collective: every rank reaches it */
        int me = (int)getpid();
        pids = ar_calloc((size_t)size, sizeof *pids);
        MPI_Gather(&me, 1, MPI_INT, pids, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (st == AR_OK && rank == 0 && (nt_oom || !pids)) st = ar_fail(&e, AR_ENOMEM, "out of memory");
        if (st == AR_OK && rank == 0) print_nccltests(ntrows, nnt, p, &o, pids);
    }
    if (st == AR_OK && rank == 0 && !o.csv && !o.nt)
        printf("# time: median over iterations of the max over ranks; vs_mpi = time / MPI_Allreduce's; model: closed "
               "form or cost walk on %s\n",
               p->name);
    if (st == AR_OK && total_wrong != 0) st = ar_fail(&e, AR_EFAIL, "%lld wrong elements (see #wrong)", total_wrong);
done:
    if (fo && fclose(fo) != 0 && st == AR_OK) st = ar_fail(&e, AR_EIO, "cannot write %s", o.out);
    if (st != AR_OK && rank == 0) fprintf(stderr, "arlab-mpi: %s\n", e.msg[0] ? e.msg : "failed");
    free(cross);
    free(tmpc);
    free(ntrows);
    free(pids);
    ar_mx_close(x);
    ar_platform_free(p);
    MPI_Finalize();
    return (int)st;
}
