/* arlab-mpi: the MPI backend of arlab. One MPI process per rank.
 *
 *   mpirun -np N arlab-mpi --platform P [--algo A,...|all] [--size S,...] [--dtype f32|f64|i32]
 *          [--iters N] [--warmup N] [--format table|csv|nccl-tests] [--out FILE.csv] [--traffic FILE]
 *          [--calibrate FILE.json] [--cal-sizes S,...] [--testbed] [--scale F]
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
 *   --calibrate FILE ping-pongs within a machine and across the widest route,
 *                    fits alpha/beta (real/rcalib.h) and writes the platform
 *                    with the fitted values (real/testbed/tbjson.h): GPU links
 *                    lat alpha_intra/2, bw 1/beta_intra; shaped links their
 *                    bandwidth x (measured / configured) and their latency
 *                    plus the measured extra, spread over the route's shaped
 *                    links. Then exits (no algorithms).
 *   --testbed        checks that every rank runs in its machine's namespace of
 *                    the testbed (its 10.213.0.0/16 address is machine + 1).
 *   --scale F        printed with every result (the testbed's --scale).
 *   --format nccl-tests  one document per algorithm (and MPI_Allreduce) in
 *                    nccl-tests' text format (real/nccltests_out.h), so that
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
#include "core/platform.h"
#include "core/units.h"
#include "core/util.h"
#include "models/model.h"
#include "real/mpi/mexec.h"
#include "real/nccltests_out.h"
#include "real/rcalib.h"
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
        else {
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

/* Calibration (see the header comment). Collective; rank 0 writes the file. */
static ar_status calibrate(ar_mx *x, const ar_platform *p, const mopts *o, int rank, ar_err *e) {
    double sizes[MAXL];
    int ns = 0;
    if (o->ncalsizes == 0)
        for (double b = 1024; b <= 4194304.0; b *= 4) sizes[ns++] = b; /* 1 KiB .. 4 MiB */
    for (int i = 0; i < o->ncalsizes; i++) {
        uint64_t v;
        if (ar_parse_size(o->calsizes[i], 1, &v, e) != AR_OK) return AR_EINVAL;
        sizes[ns++] = (double)v;
    }
    if (ns < 2) return ar_fail(e, AR_EINVAL, "--cal-sizes: need at least 2 sizes for a fit");
    int pa[2] = {-1, -1}, pb[2] = {-1, -1};
    for (int r = 1; r < p->nranks && pa[0] < 0; r++)
        if (p->machine_of_rank[r] == p->machine_of_rank[r - 1]) {
            pa[0] = r - 1;
            pb[0] = r;
        }
    ar_dlink route[4 * AR_MAX_LEVELS + 4];
    int best = -1;
    for (int m = 0; m < p->nmachines; m++) {
        int r = p->machine_first_rank[m];
        if (p->machine_of_rank[r] == p->machine_of_rank[0]) continue;
        int len = ar_platform_route(p, 0, r, route, (int)(sizeof route / sizeof route[0]));
        if (len > best) {
            best = len;
            pa[1] = 0;
            pb[1] = r;
        }
    }
    double t[2][MAXL];
    ar_real_fit fit[2];
    int have[2] = {0, 0};
    static const char *const cls[2] = {"intra", "inter"};
    for (int k = 0; k < 2; k++) {
        if (pa[k] < 0) continue;
        for (int i = 0; i < ns; i++) {
            ar_status st = ar_mx_pingpong(x, pa[k], pb[k], (uint64_t)sizes[i], 2, o->iters < 5 ? 5 : o->iters, &t[k][i],
                                          e);
            if (st != AR_OK) return st;
            if (rank == 0)
                printf("# calibrate %s %d<->%d %10.0f B: %10.3f us one-way, %8.2f Mbit/s\n", cls[k], pa[k], pb[k],
                       sizes[i], t[k][i] * 1e6, sizes[i] * 8 / t[k][i] / 1e6);
        }
        /* bandwidth: unweighted least squares over the sizes >= 256 KiB (all sizes if fewer than 2 are), so
         * that the bandwidth-bound sizes decide it (a small message fits in tbf's burst and would inflate it);
         * alpha: the smallest size's time minus its transfer time */
        double bx[MAXL], bt[MAXL];
        int nb = 0;
        for (int i = 0; i < ns; i++)
            if (sizes[i] >= 262144) {
                bx[nb] = sizes[i];
                bt[nb++] = t[k][i];
            }
        ar_status st = nb >= 2 ? ar_real_fit_linear(bx, bt, nb, 0, &fit[k], e)
                               : ar_real_fit_linear(sizes, t[k], ns, 0, &fit[k], e);
        if (st != AR_OK) return st;
        int i0 = 0;
        for (int i = 1; i < ns; i++)
            if (sizes[i] < sizes[i0]) i0 = i;
        fit[k].alpha_s = fmax(0, t[k][i0] - fit[k].beta_s_per_B * sizes[i0]);
        have[k] = 1;
    }
    if (rank != 0) return AR_OK;
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
    double eff = 1, extra = 0, conf_bw = INFINITY, conf_lat = 0;
    int nshaped = 0;
    if (have[1]) {
        int len = ar_platform_route(p, pa[1], pb[1], route, (int)(sizeof route / sizeof route[0]));
        for (int i = 0; i < len; i++) {
            int l = AR_DLINK_LINK(route[i]);
            if (!ar_tb_link_shaped(p, l)) continue;
            nshaped++;
            conf_lat += p->links[l].lat_s;
            if (ar_link_capacity(&p->links[l]) < conf_bw) conf_bw = ar_link_capacity(&p->links[l]);
        }
        if (nshaped > 0 && isfinite(conf_bw)) {
            eff = fit[1].bw_Bps / conf_bw;
            double a_in = have[0] ? fit[0].alpha_s : 0;
            extra = (fit[1].alpha_s - a_in - conf_lat) / nshaped;
        }
    }
    for (int l = 0; l < p->nlinks; l++) {
        if (ar_tb_link_shaped(p, l)) {
            if (nshaped > 0) {
                bw[l] *= eff;
                lat[l] = fmax(0, lat[l] + extra);
            }
        } else if (have[0]) {
            bw[l] = fit[0].bw_Bps;
            lat[l] = fmax(0, fit[0].alpha_s / 2);
        }
    }
    char n1[512], n2[512], name[300];
    char b1[32], b2[32], b3[32], b4[32];
    snprintf(
        n1, sizeof n1,
        "calibrated by arlab-mpi (ping-pong; bw: gsl_fit_linear over sizes >= 256 KiB, alpha: smallest size): intra %s: alpha %s bw %s",
        have[0] ? "measured" : "not measured (one rank per machine): links kept",
        ar_fmt_time(have[0] ? fit[0].alpha_s : 0, b1, sizeof b1),
        ar_fmt_rate(have[0] ? fit[0].bw_Bps : 0, b2, sizeof b2));
    snprintf(n2, sizeof n2,
             "inter (%d shaped links, configured %s): alpha %s bw %s, shaped links x %.4f, latency %+.3g s each%s",
             nshaped, ar_fmt_rate(isfinite(conf_bw) ? conf_bw : 0, b3, sizeof b3),
             ar_fmt_time(have[1] ? fit[1].alpha_s : 0, b4, sizeof b4),
             ar_fmt_rate(have[1] ? fit[1].bw_Bps : 0, b1, sizeof b1), eff, extra,
             o->scale ? " (testbed scale in the name)" : "");
    const char *notes[2] = {n1, n2};
    snprintf(name, sizeof name, "%s-calibrated", p->name);
    ar_status st = ar_tb_write_tree(p, name, bw, lat, notes, 2, o->calibrate, e);
    if (st == AR_OK) {
        printf("# %s\n# %s\n# wrote %s\n", n1, n2, o->calibrate);
        if (have[1])
            printf("# shaping: configured %.2f Mbit/s, measured %.2f Mbit/s (%.1f %%) on ranks %d<->%d\n",
                   conf_bw * 8 / 1e6, fit[1].bw_Bps * 8 / 1e6, 100 * eff, pa[1], pb[1]);
    }
    free(bw);
    free(lat);
    return st;
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
    if (st == AR_OK && o.calibrate) {
        st = calibrate(x, p, &o, rank, &e);
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
