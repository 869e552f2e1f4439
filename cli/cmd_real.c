/* arlab real | compare (16: the CUDA/NCCL backend); arlab calibrate is cmd_calibrate.c.
 *
 * arlab real [--platform P] [--ranks N] [--algo A ...|all] [--size S,...] [--dtype T]
 *            [--iters N] [--warmup N] [--format table|csv|json] [--out FILE.csv]
 *            [--launch auto|single|mpi|file:PATH] [--gpus N] [--lowering auto|p2p|native]
 *            [--placement both|in|out] [--timing arlab|nccl-tests] [--graph] [--fuse] [--format nccl-tests]
 *            [--dry-run]
 *   Runs every algorithm's schedule on the GPUs with NCCL beside the
 *   ncclAllReduce baseline, measured like nccl-tests (real/real.h), and prints
 *   a table like nccl-tests' (in-place and out-of-place side by side) or rows
 *   with the columns of real/rmeasure.h (algo,platform,ranks,bytes,measured_s,
 *   model_s,rel_err,...). --out also writes the CSV. Launch with
 *   `mpirun -np N arlab real ...` (one GPU per process), or without MPI in one
 *   process driving all local GPUs. The platform (default "flat" with the
 *   run's rank count) is what the planners and the model see; it must have as
 *   many ranks as the run. Exit status AR_EFAIL when any #wrong is not 0.
 *   The measurement itself is real/rrun.h (ar_real_run_points); every
 *   output says the timing convention, placement and transport, and the
 *   launch overhead (empty schedule) of every row. --format nccl-tests
 *   prints one document per algorithm in nccl-tests' format
 *   (calib/nccltests_out.h).
 *   --dry-run needs no GPU (nor CUDA): it compiles the NCCL programs of every
 *   rank and runs them with the host fake of NCCL (real/rplan.h), printing the
 *   call plan (communicators, ncclCommSplit colors, calls per op) and the
 *   simulated #wrong.
 *
 * arlab calibrate --out FILE.json [--size S,...] [--iters N] [--warmup N] [--launch ...]
 *                 [--platform P] [--fit rel|abs] [--name NAME] [--format F]
 *   Ping-pong sweeps per link class (within a machine, across machines;
 *   machines from NCCL_HOSTID/host names, or from --platform), least-squares
 *   alpha/beta (GSL), a platform JSON that `arlab model`/`arlab sim` accept.
 *
 * arlab compare --platform P [--algo A ...] [--size S,...] [--dtype T] [--ranks N]
 *               [--format F] [MEASURED.csv]
 *   Model, simulated and measured time side by side. Needs no GPU: measured
 *   times come from a CSV written by `arlab real` (matched on algo, ranks,
 *   bytes; in-place rows preferred).
 *
 * Without CUDA/NCCL (no AR_HAVE_REAL) `real` and `calibrate` print
 * "arlab real: built without CUDA/NCCL" and return AR_EUNSUPPORTED.
 * Ownership: everything allocated here is freed before returning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "core/util.h"
#include "lab/backend.h"
#include "lab/compare.h"
#include "lab/eval.h"
#include "lab/measured.h"
#include "cmd_real.h"
#include "nt_facts.h"
#include "models/model.h"
#ifdef AR_HAVE_REAL_HOST
#include "calib/rcalib.h"
#include "real/rmeasure.h"
#include "real/rplan.h"
#endif
#ifdef AR_HAVE_REAL
#include "real/real.h"
#include "real/rcalib_run.h"
#include "real/rrun.h"
#endif

#ifdef AR_HAVE_REAL
/* model_s of a planned schedule: the one definition (lab/eval.h). Without
 * options lab_eval_schedule does not modify the schedule. */
static double model_time(const ar_platform *p, const char *spec, uint64_t count, size_t eb, const ar_schedule *s) {
    lab_eval ev;
    lab_eval_schedule(p, spec, count, eb, (ar_schedule *)s, NULL, &ev);
    return ev.model_s;
}
#endif

#if defined(AR_HAVE_REAL_HOST) || defined(AR_HAVE_REAL)
/* Loads the single platform of the options for a run of `ranks` ranks
 * (ranks 0: whatever it has). Default: "flat" with that many ranks. A family
 * given without --ranks is re-generated with the run's rank count. */
ar_status cli_real_load_platform(const cli_opts *o, int ranks, const char *verb, ar_platform **out) {
    ar_err e = {{0}};
    *out = NULL;
    if (o->nplatforms > 1) {
        fprintf(stderr, "arlab %s: give one --platform (got %d)\n", verb, o->nplatforms);
        return AR_EINVAL;
    }
    const char *spec = o->nplatforms ? o->platforms[0] : "flat";
    int want = o->ranks ? o->ranks : ranks;
    ar_status st = ar_platform_load(spec, o->ranks ? o->ranks : (o->nplatforms ? 0 : want), out, &e);
    if (st == AR_OK && ranks > 0 && (*out)->nranks != ranks && !o->ranks) {
        ar_platform *p2 = NULL;
        ar_err e2 = {{0}};
        if (ar_platform_load(spec, ranks, &p2, &e2) == AR_OK) {
            ar_platform_free(*out);
            *out = p2;
        }
    }
    if (st != AR_OK) return cli_error(st, &e);
    if (ranks > 0 && (*out)->nranks != ranks) {
        fprintf(stderr,
                "arlab %s: platform '%s' has %d ranks, this run has %d (give a platform of %d ranks, or a "
                "family such as machines:gpus=2+2)\n",
                verb, (*out)->name, (*out)->nranks, ranks, ranks);
        ar_platform_free(*out);
        *out = NULL;
        return AR_EINVAL;
    }
    return AR_OK;
}
#endif

#ifdef AR_HAVE_REAL
static void cell(cli_table *t, int r, int c, const char *s, int numeric) {
    tbl_str(t, r, c, s);
    if (r >= 0) t->cells[(size_t)r * (size_t)t->ncols + (size_t)c].numeric = numeric;
}

static void add_real_row(cli_table *t, const ar_real_row *row) {
    int r = tbl_row(t);
    char buf[300];
    for (int c = 0; c < AR_REAL_NCOLS_ALL; c++) {
        int num = ar_real_row_field(row, c, buf, sizeof buf);
        cell(t, r, c, buf, num && buf[0]); /* "" in a numeric cell: missing (CSV empty, JSON null) */
    }
}
#endif

/* ======================================================================== */
/* arlab real --dry-run                                                      */
/* ======================================================================== */

#ifdef AR_HAVE_REAL_HOST
#define AR_DRY_MAX_SIM_RANKS 256

static int real_dry_run(cli_opts *o, const real_flags *f) {
    ar_err e = {{0}};
    ar_real_lowering low = AR_REAL_LOWER_AUTO;
    if (f->lowering && ar_real_lowering_parse(f->lowering, &low, &e) != AR_OK) return cli_error(AR_EINVAL, &e);
    ar_platform *p = NULL;
    ar_status st = cli_real_load_platform(o, o->nplatforms ? 0 : (o->ranks ? o->ranks : 4), "real", &p);
    if (st != AR_OK) return st;
    if (o->nsizes == 0) o->sizes[o->nsizes++] = "64KB";
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    const char *algos[CLI_MAX_LIST * 4];
    int na = cli_algo_list(o, algos, CLI_MAX_LIST * 4);
    size_t eb = ar_dtype_size(o->dtype);
    int P = p->nranks;
    static const char *const cols[] = {"algo",  "platform",      "ranks",     "bytes",       "lowering",    "phases",
                                       "steps", "coll_ops",      "p2p_ops",   "split_comms", "split_calls", "sends",
                                       "recvs", "scratch_bytes", "sim_wrong", "status"};
    cli_table t;
    tbl_init(&t, 16, cols);
    ar_status worst = AR_OK;
    if (o->format == FMT_TABLE)
        printf("# arlab real --dry-run: NCCL programs of every rank, run by the host fake of NCCL (no GPU)\n");
    for (int si = 0; si < o->nsizes && (worst == AR_OK || worst == AR_EFAIL); si++) {
        uint64_t count;
        if (cli_size(o, si, &count) != AR_OK) {
            worst = AR_EINVAL;
            break;
        }
        for (int ai = 0; ai < na; ai++) {
            ar_schedule *s = NULL;
            ar_real_plan *pl = NULL;
            ar_real_prog **progs = NULL;
            char status[AR_ERR_LEN + 32] = "ok";
            uint64_t wrong = 0;
            long long nsend = 0, nrecv = 0;
            uint64_t scratch = 0;
            int simulated = 0;
            e.msg[0] = 0;
            st = ar_algo_plan(algos[ai], p, count, eb, &s, &e);
            if (st == AR_EUNSUPPORTED) {
                if (o->format == FMT_TABLE) printf("  %s: not applicable: %s\n", algos[ai], e.msg);
                continue;
            }
            if (st != AR_OK) { /* a bad spec: stop, as 'arlab model' does */
                worst = cli_error(st, &e);
                break;
            }
            st = ar_real_plan_build(s, low, &pl, &e);
            if (st == AR_OK && f->fuse) st = ar_real_plan_fuse(pl, &e);
            if (st == AR_OK) {
                progs = ar_calloc((size_t)P, sizeof *progs);
                if (!progs) st = ar_fail(&e, AR_ENOMEM, "out of memory");
            }
            int ncomp = P <= AR_DRY_MAX_SIM_RANKS ? P : 1;
            for (int r = 0; r < ncomp && st == AR_OK; r++) {
                st = ar_real_compile(pl, r, &progs[r], &e);
                if (st == AR_OK) {
                    nsend += (long long)progs[r]->nsend;
                    nrecv += (long long)progs[r]->nrecv;
                    if (progs[r]->scratch_elems > scratch) scratch = progs[r]->scratch_elems;
                }
            }
            if (st == AR_OK && ncomp == P) {
                st = ar_real_simulate(pl, progs, 0, &wrong, &e);
                simulated = 1;
            }
            if (st != AR_OK) {
                snprintf(status, sizeof status, "%s: %s", ar_status_name(st), e.msg);
                if (worst == AR_OK) worst = st;
            } else if (!simulated) {
                snprintf(status, sizeof status, "not simulated (> %d ranks); rank 0 compiled", AR_DRY_MAX_SIM_RANKS);
            }
            if (o->format == FMT_TABLE && pl && si == 0) {
                ar_real_plan_print(pl, stdout);
                printf("  -> %s\n", status);
            }
            int r = tbl_row(&t);
            tbl_str(&t, r, 0, algos[ai]);
            tbl_str(&t, r, 1, p->name);
            tbl_int(&t, r, 2, P);
            tbl_num(&t, r, 3, "%.0f", (double)count * (double)eb);
            tbl_str(&t, r, 4, ar_real_lowering_name(low));
            if (pl) {
                int nsplit = 0;
                for (int g = 0; g < pl->ngroups; g++) nsplit += !pl->groups[g].world;
                tbl_int(&t, r, 5, s->nphases);
                tbl_int(&t, r, 6, pl->nsteps);
                tbl_int(&t, r, 7, pl->ncoll_ops);
                tbl_int(&t, r, 8, pl->np2p_ops);
                tbl_int(&t, r, 9, nsplit);
                tbl_int(&t, r, 10, pl->nlayers);
            }
            tbl_int(&t, r, 11, nsend);
            tbl_int(&t, r, 12, nrecv);
            tbl_num(&t, r, 13, "%.0f", (double)scratch * (double)eb);
            if (simulated) tbl_int(&t, r, 14, (long long)wrong);
            else tbl_str(&t, r, 14, "");
            tbl_str(&t, r, 15, status);
            for (int k = 0; progs && k < P; k++) ar_real_prog_free(progs[k]);
            free(progs);
            ar_real_plan_free(pl);
            ar_schedule_free(s);
        }
    }
    if (o->format == FMT_TABLE)
        printf("\nSummary (sim_wrong: elements differing from the exact sum in the host simulation)\n");
    tbl_print(&t, o->format, stdout);
    tbl_free(&t);
    ar_platform_free(p);
    return worst;
}
#endif

/* ======================================================================== */
/* arlab real (GPU)                                                          */
/* ======================================================================== */

#ifdef AR_HAVE_REAL
ar_status cli_real_parse_launch(const real_flags *f, ar_real_launch *L) {
    memset(L, 0, sizeof *L);
    L->kind = AR_REAL_LAUNCH_AUTO;
    if (f->launch) {
        if (!strcmp(f->launch, "auto")) L->kind = AR_REAL_LAUNCH_AUTO;
        else if (!strcmp(f->launch, "single")) L->kind = AR_REAL_LAUNCH_SINGLE;
        else if (!strcmp(f->launch, "mpi")) L->kind = AR_REAL_LAUNCH_MPI;
        else if (!strncmp(f->launch, "file:", 5) && f->launch[5]) {
            L->kind = AR_REAL_LAUNCH_FILE;
            L->id_file = f->launch + 5;
        } else if (!strcmp(f->launch, "file")) L->kind = AR_REAL_LAUNCH_FILE;
        else {
            fprintf(stderr, "arlab: --launch \"%s\" is not one of auto, single, mpi, file:PATH\n", f->launch);
            return AR_EINVAL;
        }
    }
    if (f->gpus) {
        ar_err e = {{0}};
        long long n;
        if (ar_parse_count(f->gpus, 1, 4096, &n, &e) != AR_OK) {
            fprintf(stderr, "arlab: --gpus: %s\n", e.msg);
            return AR_EINVAL;
        }
        L->ngpus = (int)n;
    }
    return AR_OK;
}

static const ar_real_row *find_row(const ar_real_row *rows, int n, const char *algo, double bytes, int inplace) {
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].algo, algo) && rows[i].bytes == bytes && rows[i].inplace == inplace) return &rows[i];
    return NULL;
}

static void fmt_us(char *b, size_t n, const ar_real_row *r) {
    if (!r) snprintf(b, n, "%10s %7s %7s %6s %7s", "-", "-", "-", "-", "-");
    else
        snprintf(b, n, "%10.2f %7.2f %7.2f %6lld %7.3f", r->measured_s * 1e6, r->algbw_GBps, r->busbw_GBps, r->wrong,
                 r->vs_nccl);
}

/* nccl-tests-like table: one line per (size, algorithm), in-place and out-of-place side by side. */
static void print_nccl_table(const ar_real_row *rows, int n, const char *const *algos, int na, const double *sizes,
                             int ns, const char *dtype, int P) {
    printf("#%12s %12s %5s  %-24s %-42s %-42s %10s %10s\n", "", "", "", "", "   in-place", "   out-of-place", "", "");
    printf("#%12s %12s %5s  %-24s %10s %7s %7s %6s %7s %10s %7s %7s %6s %7s %10s %10s\n", "size", "count", "type",
           "algo", "time", "algbw", "busbw", "#wrong", "xNCCL", "time", "algbw", "busbw", "#wrong", "xNCCL", "model",
           "launch");
    printf("#%12s %12s %5s  %-24s %10s %7s %7s %6s %7s %10s %7s %7s %6s %7s %10s %10s\n", "(B)", "(elements)", "", "",
           "(us)", "(GB/s)", "(GB/s)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "", "(us)", "(us)");
    size_t eb = 0;
    ar_dtype dt;
    if (ar_dtype_parse(dtype, &dt, NULL) == AR_OK) eb = ar_dtype_size(dt);
    for (int si = 0; si < ns; si++)
        for (int ai = -1; ai < na; ai++) {
            const char *a = ai < 0 ? "nccl-allreduce" : algos[ai];
            const ar_real_row *in = find_row(rows, n, a, sizes[si], 1), *oop = find_row(rows, n, a, sizes[si], 0);
            if (!in && !oop) continue;
            char b1[80], b2[80];
            fmt_us(b1, sizeof b1, in);
            fmt_us(b2, sizeof b2, oop);
            const ar_real_row *any = in ? in : oop;
            printf(" %12.0f %12.0f %5s  %-24s %s %s %10.2f %10.2f\n", sizes[si], eb ? sizes[si] / (double)eb : 0, dtype,
                   a, b1, b2, any->model_s * 1e6, any->empty_s * 1e6);
        }
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].algo, "nccl-allreduce") && isfinite(rows[i].busbw_GBps)) {
            sum += rows[i].busbw_GBps;
            cnt++;
        }
    if (cnt) printf("# Avg bus bandwidth of ncclAllReduce (%d ranks): %.3f GB/s\n", P, sum / cnt);
    printf("# busbw = algbw x 2(n-1)/n (nccl-tests, all-reduce); xNCCL = time / ncclAllReduce time; launch = the "
           "empty schedule's time (same groups, calls and kernels, every count 0: launch overhead)\n");
}

/* One nccl-tests document per algorithm (and the baseline): rows of both placements. */
static void print_nccltests(const ar_real_row *rows, int n, const char *const *algos, int na, const double *sizes,
                            int ns, const cli_opts *o, const ar_real_run_opts *ro, const ar_nt_rank *ranks, int P,
                            const char *head) {
    size_t eb = ar_dtype_size(o->dtype);
    for (int ai = -1; ai < na; ai++) {
        const char *a = ai < 0 ? "nccl-allreduce" : algos[ai];
        int any = 0;
        for (int si = 0; si < ns; si++) any |= find_row(rows, n, a, sizes[si], 1) != NULL;
        if (!any) continue;
        char c1[160], c2[420];
        snprintf(c1, sizeof c1, "# arlab real: algo %s, %d ranks, lowering %s", a, P,
                 ai < 0 ? "nccl" : ar_real_lowering_name(ro->lowering));
        snprintf(c2, sizeof c2, "%s", head);
        const char *com[] = {c1, c2, NULL};
        ar_nt_params prm = {1,         1,   (long)sizes[0], (long)sizes[ns - 1], 0, 0, o->warmup, o->iters, 1, 1,
                            ro->graph, NULL};
        ar_nt_header(stdout, com, &prm, ranks, P);
        double bw = 0;
        int nbw = 0, errors = 0;
        for (int si = 0; si < ns; si++) {
            const ar_real_row *in = find_row(rows, n, a, sizes[si], 1), *oop = find_row(rows, n, a, sizes[si], 0);
            if (!in || !oop) continue;
            ar_nt_row r = {(long)sizes[si],
                           (long)(sizes[si] / (double)eb),
                           ar_nt_type_name(o->dtype),
                           "sum",
                           -1,
                           {oop->measured_s, oop->algbw_GBps, oop->busbw_GBps, (long)oop->wrong},
                           {in->measured_s, in->algbw_GBps, in->busbw_GBps, (long)in->wrong}};
            ar_nt_row_print(stdout, &r);
            bw += oop->busbw_GBps + in->busbw_GBps;
            nbw += 2;
            errors += (oop->wrong != 0) + (in->wrong != 0);
        }
        ar_nt_footer(stdout, errors, nbw ? bw / nbw : 0);
    }
}

static double model_cb(void *arg, const ar_platform *p, const char *algo, uint64_t count, size_t eb,
                       const ar_schedule *s) {
    (void)arg;
    return model_time(p, algo, count, eb, s);
}

static int real_run(cli_opts *o, const real_flags *f) {
    ar_err e = {{0}};
    ar_real_launch L;
    if (cli_real_parse_launch(f, &L) != AR_OK) return AR_EINVAL;
    ar_real_run_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.lowering = AR_REAL_LOWER_AUTO;
    if (f->lowering && ar_real_lowering_parse(f->lowering, &ro.lowering, &e) != AR_OK) return cli_error(AR_EINVAL, &e);
    if (f->timing && ar_real_timing_parse(f->timing, &ro.timing, &e) != AR_OK) return cli_error(AR_EINVAL, &e);
    ro.in_place = ro.out_of_place = 1;
    if (f->placement) {
        if (!strcmp(f->placement, "in")) ro.out_of_place = 0;
        else if (!strcmp(f->placement, "out")) ro.in_place = 0;
        else if (strcmp(f->placement, "both")) {
            fprintf(stderr, "arlab real: --placement \"%s\" is not one of both, in, out\n", f->placement);
            return AR_EINVAL;
        }
    }
    if (f->nccl_tests && (!ro.in_place || !ro.out_of_place)) {
        fprintf(stderr, "arlab real: --format nccl-tests prints both placements (drop --placement)\n");
        return AR_EINVAL;
    }
    ro.dtype = o->dtype;
    ro.warmup = o->warmup;
    ro.iters = o->iters;
    ro.graph = f->graph;
    ro.fuse = f->fuse;
    ro.empty = 1;
    ro.model = model_cb;
    if (o->nsizes == 0) {
        o->sizes[o->nsizes++] = "1MB";
        o->sizes[o->nsizes++] = "16MB";
        o->sizes[o->nsizes++] = "128MB";
    }
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    uint64_t counts[CLI_MAX_LIST];
    double sizes_b[CLI_MAX_LIST];
    size_t eb = ar_dtype_size(o->dtype);
    for (int i = 0; i < o->nsizes; i++) {
        if (cli_size(o, i, &counts[i]) != AR_OK) return AR_EINVAL;
        sizes_b[i] = (double)counts[i] * (double)eb;
    }
    const char *algos[CLI_MAX_LIST * 4];
    int na = cli_algo_list(o, algos, CLI_MAX_LIST * 4);
    FILE *csv = NULL;

    ar_real_ctx *c = NULL;
    ar_status st = ar_real_open(&L, &c, &e);
    if (st != AR_OK) {
        fprintf(stderr, "arlab real: %s\n", e.msg);
        return st;
    }
    int lead = ar_real_is_leader(c), P = ar_real_nranks(c);
    ar_platform *p = NULL;
    st = cli_real_load_platform(o, P, "real", &p);
    if (st != AR_OK) {
        ar_real_close(c);
        return st;
    }
    const char *place = "";
    ar_nt_rank *ranks = ar_calloc((size_t)P, sizeof *ranks);
    if (!ranks) st = ar_fail(&e, AR_ENOMEM, "out of memory");
    if (st == AR_OK) st = ar_real_placement(c, &place, &e);
    if (st == AR_OK && f->nccl_tests) st = ar_real_rank_info(c, ranks, &e);
    char v[200], head[400];
    snprintf(head, sizeof head, "# %s; %s; timing %s; %s%s%s", ar_real_versions(v, sizeof v), ar_real_describe(c),
             ar_real_timing_name(ro.timing), place, ro.graph ? "; CUDA graph" : "", ro.fuse ? "; fused rounds" : "");
    int csv_failed = lead && o->out && !(csv = fopen(o->out, "w")); /* reported at the end: all ranks run on */
    if (st == AR_OK && lead && o->format == FMT_TABLE && !f->nccl_tests)
        printf("# arlab real: %s\n# %s\n# platform %s (%d ranks), dtype %s, %d warm-up + %d timed iterations, lowering "
               "%s\n# timing %s: %s\n# %s\n",
               ar_real_describe(c), ar_real_versions(v, sizeof v), p->name, P, ar_dtype_name(o->dtype), o->warmup,
               o->iters, ar_real_lowering_name(ro.lowering), ar_real_timing_name(ro.timing),
               ro.timing == AR_REAL_TIMING_ARLAB ? "median over iterations of the max over ranks, a barrier before "
                                                   "each iteration"
                                                 : "nccl-tests' mean of back-to-back iterations, averaged over ranks",
               place);
    ar_real_row *rows = NULL;
    int nrows = 0;
    long long wrong_total = 0;
    if (st == AR_OK)
        st = ar_real_run_points(
            c, p, algos, na, counts, o->nsizes, &ro, o->format == FMT_TABLE && !f->nccl_tests ? stderr : NULL,
            o->format == FMT_TABLE && !f->nccl_tests ? stdout : NULL, &rows, &nrows, &wrong_total, &e);
    if (st != AR_OK) fprintf(stderr, "arlab real: %s\n", e.msg);
    if (lead) {
        if (f->nccl_tests) {
            print_nccltests(rows, nrows, algos, na, sizes_b, o->nsizes, o, &ro, ranks, P, head);
        } else if (o->format == FMT_TABLE) {
            print_nccl_table(rows, nrows, algos, na, sizes_b, o->nsizes, ar_dtype_name(o->dtype), P);
        } else {
            cli_table t;
            tbl_init(&t, AR_REAL_NCOLS_ALL, ar_real_cols);
            for (int i = 0; i < nrows; i++) add_real_row(&t, &rows[i]);
            tbl_print(&t, o->format, stdout);
            tbl_free(&t);
        }
        if (csv) {
            ar_real_csv_header(csv);
            for (int i = 0; i < nrows; i++) ar_real_csv_row(csv, &rows[i]);
            if (fclose(csv) != 0) csv_failed = 1;
            else if (o->format == FMT_TABLE && !f->nccl_tests) printf("# wrote %s\n", o->out);
        }
        if (wrong_total) fprintf(stderr, "arlab real: %lld wrong elements in all (must be 0)\n", wrong_total);
    } else if (csv) {
        fclose(csv);
    }
    free(rows);
    free(ranks);
    ar_platform_free(p);
    ar_real_close(c);
    if (st != AR_OK) return st;
    if (csv_failed) {
        fprintf(stderr, "arlab real: could not write %s\n", o->out);
        return AR_EIO;
    }
    return wrong_total ? AR_EFAIL : AR_OK;
}
#endif

int cmd_real(int argc, char **argv) {
    real_flags f;
    memset(&f, 0, sizeof f);
    static const cli_ownopt own[] = {
        {"--launch", offsetof(real_flags, launch)},       {"--lowering", offsetof(real_flags, lowering)},
        {"--placement", offsetof(real_flags, placement)}, {"--gpus", offsetof(real_flags, gpus)},
        {"--dry-run", offsetof(real_flags, dry_run)},     {"--timing", offsetof(real_flags, timing)},
        {"--graph", offsetof(real_flags, graph)},         {"--fuse", offsetof(real_flags, fuse)}};
    int n = 0;
    for (int i = 0; i < argc; i++) /* --format nccl-tests is this verb's own; the shared parser knows table|csv|json */
        if (cli_format_nccltests(argc, argv, &i)) f.nccl_tests = 1;
        else argv[n++] = argv[i];
    argc = n;
    if (cli_take_own(&argc, argv, own, (int)(sizeof own / sizeof own[0]), &f, "real") != AR_OK) return AR_EINVAL;
#ifndef AR_HAVE_REAL
    if (!f.dry_run) {
        fprintf(stderr, "arlab real: built without CUDA/NCCL (rebuild where CUDA and NCCL are found; "
                        "'arlab real --dry-run' shows the NCCL plan without a GPU)\n");
        return AR_EUNSUPPORTED;
    }
#endif
    cli_opts o;
    if (cli_parse(argc, argv,
                  OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK | OPT_OUT |
                      OPT_ITERS,
                  &o, "real") != AR_OK)
        return AR_EINVAL;
    if (f.dry_run) {
#ifdef AR_HAVE_REAL_HOST
        return real_dry_run(&o, &f);
#else
        fprintf(stderr, "arlab real --dry-run: built without the real/ backend (configure with ARLAB_REAL=ON)\n");
        return AR_EUNSUPPORTED;
#endif
    }
#ifdef AR_HAVE_REAL
    return real_run(&o, &f);
#else
    return AR_EUNSUPPORTED;
#endif
}

/* ======================================================================== */
/* arlab compare                                                             */
/* ======================================================================== */

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One `arlab compare`: what was asked, the measurements read, the table built, the figure's rows. */
typedef struct compare_ctx {
    cli_opts o;
    ar_coll coll;      /* --coll: the collective of the measured runs and of the algorithms compared with them */
    const char *mfile; /* the measured CSV given as an argument, or NULL */
    int nmf;           /* --measured files */
    const char *plot;  /* --plot FILE, or NULL */
    lab_measures meas;
    cli_nt_facts fx;
    ar_nt_opts nto;
    const char *algos[CLI_MAX_LIST * 4];
    int na;
    size_t eb;
    int have_meas, meas_sizes; /* meas_sizes: the measured sizes of the platform's rank count, not --size */
    cli_table t;
    int nwrong; /* rows whose measured run had #wrong > 0 */
    lab_compare_opts copts;
    lab_compare_row *prow; /* every platform's rows, for --plot */
    int *palgo, *pplat, np;
    char *pname[CLI_MAX_LIST];
    int pranks[CLI_MAX_LIST], npl;
    size_t pcap;
} compare_ctx;

/* The common options, the measured CSV argument and --coll; AR_OK or the exit status after one line. */
static ar_status compare_parse(compare_ctx *x, int argc, char **argv, const cli_nt_facts *facts) {
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_POSITIONAL,
                  &x->o, "compare") != AR_OK)
        return AR_EINVAL;
    if (x->o.nplatforms == 0) {
        fprintf(stderr, "arlab compare: give --platform P (e.g. the JSON written by 'arlab calibrate')\n");
        return AR_EINVAL;
    }
    if (x->o.npositional > 1) {
        fprintf(stderr, "arlab compare: give at most one measured CSV (from 'arlab real --out FILE.csv')\n");
        return AR_EINVAL;
    }
    x->mfile = x->o.npositional ? x->o.positional[0] : NULL;
    ar_coll coll = AR_COLL_ALLREDUCE;
    int coll_ok = 1;
    if (facts->coll_arg) {
        coll_ok = facts->coll == AR_NT_ALL_REDUCE || facts->coll == AR_NT_ALL_GATHER ||
                  facts->coll == AR_NT_REDUCE_SCATTER;
        coll = facts->coll == AR_NT_ALL_GATHER       ? AR_COLL_ALLGATHER
               : facts->coll == AR_NT_REDUCE_SCATTER ? AR_COLL_REDUCESCATTER
                                                     : AR_COLL_ALLREDUCE;
    }
    if (!coll_ok) {
        fprintf(stderr,
                "arlab compare: --coll %s: arlab models all-reduce, all-gather and reduce-scatter (--coll allreduce, "
                "allgather or reducescatter); its runs cannot be compared\n",
                facts->coll_arg);
        return AR_EINVAL;
    }
    x->o.coll = x->coll = coll;
    x->copts.coll = coll;
    return AR_OK;
}

/* Reads the measured CSV and the --measured files; rows of a file without its rank count get the
 * platform's (said on stderr). AR_OK or the exit status after one line. */
static ar_status compare_read(compare_ctx *x, const char **mfiles, const cli_nt_facts *facts) {
    x->fx = *facts;
    if (!x->fx.ranks) x->fx.ranks = x->o.ranks; /* --ranks also gives the rank count a file lacks */
    cli_nt_opts(&x->fx, &x->nto);
    x->meas.nt_opts = &x->nto;
    x->meas.verb = "compare";
    x->meas.nt_coll = facts->coll_arg ? facts->coll : 0;
    for (int i = -1; i < x->nmf; i++) {
        const char *f = i < 0 ? x->mfile : mfiles[i];
        ar_err e = {{0}};
        ar_status st = f ? lab_measured_read(f, 1, &x->meas, &e) : AR_OK;
        if (st != AR_OK) return cli_error(st, &e);
    }
    if (!x->meas.nt_noranks) return AR_OK;
    if (x->o.nplatforms != 1) {
        fprintf(stderr,
                "arlab compare: %s: the rank count is not in the file (no whole device list, no NCCL log, "
                "busbw/algbw does not tell it); give --ranks N\n",
                x->meas.nt_noranks_file);
        return AR_EINVAL;
    }
    ar_platform *p0 = NULL;
    if (cli_load_platform(&x->o, 0, &p0) != AR_OK) return AR_EINVAL;
    fprintf(stderr,
            "arlab compare: %s: the rank count is not in the file (no whole device list, no NCCL log, busbw/algbw "
            "does not tell it); %s's %d assumed (--ranks sets it)\n",
            x->meas.nt_noranks_file, p0->name, p0->nranks);
    for (int i = 0; i < x->meas.n; i++)
        if (x->meas.m[i].ranks < 1) x->meas.m[i].ranks = p0->nranks;
    ar_platform_free(p0);
    return AR_OK;
}

/* The algorithms and sizes compared (defaults where none were given) and the table's columns. */
static void compare_lists(compare_ctx *x) {
    cli_opts *o = &x->o;
    x->have_meas = x->mfile || x->nmf;
    x->meas_sizes = x->nmf && o->nsizes == 0;
    if (x->nmf && o->nalgos == 0) { /* a measured NCCL run: NCCL's choice and NCCL's own algorithms beside it */
        static const char *const nccl_algos[] = {"nccl", "nccl-ring", "nccl-tree", "nvls", "nvlstree"};
        for (size_t k = 0; k < sizeof nccl_algos / sizeof nccl_algos[0]; k++) { /* those serving the collective */
            const ar_algo *a = ar_algo_find(nccl_algos[k]);
            if (a && (ar_algo_colls(a) & AR_COLL_BIT(x->coll))) o->algos[o->nalgos++] = nccl_algos[k];
        }
    }
    if (o->nsizes == 0) {
        o->sizes[o->nsizes++] = "1MB";
        o->sizes[o->nsizes++] = "16MB";
        o->sizes[o->nsizes++] = "128MB";
    }
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    x->na = cli_algo_list(o, x->algos, CLI_MAX_LIST * 4);
    x->eb = ar_dtype_size(o->dtype);
    static const char *const cols[] = {"algo",        "platform",     "ranks",     "bytes",          "model_s",
                                       "sim_s",       "measured_s",   "sim_err",   "measured_err",   "nccl_s",
                                       "wrong",       "nccl_model_s", "mpi_s",     "nccl_model_err", "model_vs_nccl",
                                       "sim_vs_nccl", "mpi_vs_nccl",  "nccl_algo", "nccl_proto"};
    tbl_init(&x->t, x->nmf ? 19 : 11, cols); /* the NCCL-model/MPI columns with --measured only (stable header) */
    /* *_vs_nccl: relative to nccl_s */
    for (int c = 14; c < 17; c++) tbl_set_unit(&x->t, c, TBL_UNIT_REL);
}

/* 1 if measured row m is a measured all-reduce (NCCL's or MPI's) of nranks ranks (0: any). */
static int measured_ar(const lab_measure *m, int nranks) {
    return (!nranks || m->ranks == nranks) && (!strcmp(m->algo, "nccl-allreduce") || !strcmp(m->algo, "mpi-allreduce"));
}

/* With the measured sizes: every platform's rank count has a measured all-reduce, else one line naming
 * the rank counts the files hold. */
static ar_status compare_check_ranks(const compare_ctx *x, ar_platform *const *plats) {
    for (int pi = 0; pi < x->o.nplatforms; pi++) {
        int found = 0;
        for (int i = 0; i < x->meas.n && !found; i++) found = measured_ar(&x->meas.m[i], plats[pi]->nranks);
        if (found) continue;
        /* the rank counts the files do hold, so that the user sees which platform fits */
        char have[200] = "";
        int at = 0, nh = 0, seen[8];
        for (int i = 0; i < x->meas.n && nh < 8; i++) {
            if (!measured_ar(&x->meas.m[i], 0)) continue;
            int dup = 0;
            for (int k = 0; k < nh && !dup; k++) dup = seen[k] == x->meas.m[i].ranks;
            if (dup) continue;
            seen[nh++] = x->meas.m[i].ranks;
            at += snprintf(have + at, sizeof have - (size_t)at, "%s%d", nh > 1 ? ", " : "", x->meas.m[i].ranks);
        }
        fprintf(stderr, "arlab compare: no measured all-reduce of %d ranks in the --measured files (%s has %d%s%s%s)\n",
                plats[pi]->nranks, plats[pi]->name, plats[pi]->nranks, nh ? "; the files hold " : "", have,
                nh ? " ranks" : "");
        return AR_EINVAL;
    }
    return AR_OK;
}

/* The measured sizes of p's rank count (nccl-allreduce / mpi-allreduce rows), ascending, into *msz
 * (the caller frees); AR_OK, or AR_EINVAL after one line where there is none. */
static ar_status compare_sizes(const compare_ctx *x, const ar_platform *p, double **msz, int *nmsz) {
    *nmsz = 0;
    if (!(*msz = calloc((size_t)x->meas.n + 1, sizeof **msz))) return AR_ENOMEM;
    for (int i = 0; i < x->meas.n; i++) {
        const lab_measure *m = &x->meas.m[i];
        if (!measured_ar(m, p->nranks)) continue;
        if (fmod(m->bytes, (double)x->eb) != 0 || !(m->bytes > 0)) continue; /* 0 B rows: nothing to model */
        int dup = 0;
        for (int k = 0; k < *nmsz && !dup; k++) dup = (*msz)[k] == m->bytes;
        if (!dup) (*msz)[(*nmsz)++] = m->bytes;
    }
    qsort(*msz, (size_t)*nmsz, sizeof **msz, cmp_dbl);
    if (*nmsz) return AR_OK;
    fprintf(stderr, "arlab compare: no measured all-reduce of %d ranks in the --measured files (%s has %d)\n",
            p->nranks, p->name, p->nranks);
    return AR_EINVAL;
}

/* The table's row of one compared point, and the figure's copy of it. */
static ar_status compare_put(compare_ctx *x, const ar_platform *p, int ai, const lab_compare_row *cr) {
    cli_table *t = &x->t;
    int r = tbl_row(t);
    tbl_str(t, r, 0, x->algos[ai]);
    tbl_str(t, r, 1, p->name);
    tbl_int(t, r, 2, p->nranks);
    tbl_num(t, r, 3, "%.0f", cr->bytes);
    tbl_num(t, r, 4, "%.9g", cr->model_s);
    tbl_num(t, r, 5, "%.9g", cr->sim_s);
    tbl_num(t, r, 6, "%.9g", cr->measured_s);
    tbl_num(t, r, 7, "%.3g", cr->sim_err);
    tbl_num(t, r, 8, "%.3g", cr->measured_err);
    tbl_num(t, r, 9, "%.9g", cr->nccl_s);
    if (cr->wrong > 0 && x->o.format == FMT_TABLE) { /* flagged: the results were wrong, the time suspect */
        char wb[48];
        snprintf(wb, sizeof wb, "%lld WRONG", cr->wrong);
        tbl_str(t, r, 10, wb);
    } else if (cr->wrong >= 0) tbl_int(t, r, 10, cr->wrong);
    else tbl_str(t, r, 10, "");
    x->nwrong += cr->wrong > 0;
    if (x->nmf) {
        tbl_num(t, r, 11, "%.9g", cr->nccl_model_s);
        tbl_num(t, r, 12, "%.9g", cr->mpi_s);
        tbl_num(t, r, 13, "%.3g", cr->nccl_model_err);
        tbl_num(t, r, 14, "%.3g", cr->model_vs_nccl);
        tbl_num(t, r, 15, "%.3g", cr->sim_vs_nccl);
        tbl_num(t, r, 16, "%.3g", cr->mpi_vs_nccl);
        tbl_str(t, r, 17, cr->nccl_algo);
        tbl_str(t, r, 18, cr->nccl_proto);
    }
    if (!x->plot) return AR_OK;
    size_t c1 = x->pcap, c2 = x->pcap, c3 = x->pcap;
    if (ar_grow(&x->prow, &c1, (size_t)x->np + 1, sizeof *x->prow) < 0 ||
        ar_grow(&x->palgo, &c2, (size_t)x->np + 1, sizeof *x->palgo) < 0 ||
        ar_grow(&x->pplat, &c3, (size_t)x->np + 1, sizeof *x->pplat) < 0)
        return AR_ENOMEM;
    x->pcap = c1 < c2 ? c1 : c2;
    x->pcap = x->pcap < c3 ? x->pcap : c3;
    x->prow[x->np] = *cr, x->palgo[x->np] = ai, x->pplat[x->np++] = x->npl;
    return AR_OK;
}

/* Every size and algorithm on platform p (lab_compare_point, lab/compare.h): a row each, a line for an
 * algorithm that does not apply. */
static ar_status compare_platform(compare_ctx *x, const ar_platform *p, const uint64_t *counts) {
    ar_status worst = AR_OK;
    double *msz = NULL; /* sizes: the measured ones (nccl-allreduce / mpi-allreduce rows of this rank count) */
    int nmsz = 0;
    if (x->meas_sizes && (worst = compare_sizes(x, p, &msz, &nmsz)) != AR_OK) {
        free(msz);
        return worst;
    }
    int nsz = x->meas_sizes ? nmsz : x->o.nsizes;
    for (int si = 0; si < nsz && worst == AR_OK; si++) {
        uint64_t count = x->meas_sizes ? (uint64_t)(msz[si] / (double)x->eb) : counts[si];
        for (int ai = 0; ai < x->na; ai++) {
            ar_err e = {{0}};
            lab_compare_row cr; /* a one-point sweep: lab/compare.h */
            ar_status st = lab_compare_point(p, x->algos[ai], count, x->eb, x->have_meas ? &x->meas : NULL, &x->copts,
                                             &cr, &e);
            if (st == AR_EUNSUPPORTED) {
                if (x->o.format == FMT_TABLE) printf("  %s: not applicable on %s: %s\n", x->algos[ai], p->name, e.msg);
                continue;
            }
            if (st != AR_OK) {
                worst = cli_error(st, &e);
                break;
            }
            if (cr.sim_msg[0] && x->o.format == FMT_TABLE) fprintf(stderr, "arlab compare: %s\n", cr.sim_msg);
            if ((worst = compare_put(x, p, ai, &cr)) != AR_OK) break;
        }
    }
    if (x->plot && worst == AR_OK && x->npl < CLI_MAX_LIST) {
        x->pranks[x->npl] = p->nranks;
        if (!(x->pname[x->npl++] = ar_strdup(p->name))) worst = AR_ENOMEM;
    }
    free(msz);
    return worst;
}

/* The figure (--plot), the line on rows with wrong results, the table and the human table's notes. */
static ar_status compare_print(compare_ctx *x) {
    if (x->plot) { /* one figure, every platform */
        ar_err e = {{0}};
        char title[600];
        if (x->npl == 1) snprintf(title, sizeof title, "all-reduce on %s (%d ranks)", x->pname[0], x->pranks[0]);
        else snprintf(title, sizeof title, "all-reduce on %d platforms", x->npl);
        ar_status pst = lab_compare_plot_multi(x->prow, x->palgo, x->pplat, x->np, x->algos, x->na,
                                               (const char *const *)x->pname, x->pranks, x->npl, title, x->plot, &e);
        if (pst != AR_OK) return cli_error(pst, &e);
    }
    if (x->nwrong)
        fprintf(stderr,
                "arlab compare: %d row%s matched a measured run with #wrong > 0 (its results were wrong: the time is "
                "suspect); see the wrong column\n",
                x->nwrong, x->nwrong == 1 ? "" : "s");
    tbl_print(&x->t, x->o.format, stdout);
    if (x->o.format != FMT_TABLE) return AR_OK;
    printf(
        "# model_s: as 'arlab model' (the closed form where it agrees with the schedule cost walk, else the walk)\n");
    const lab_backend *sim = lab_backend_find("sim");
    if (sim && sim->available) printf("# sim_s: SimGrid backend with its default settings (as 'arlab sim')\n");
    else printf("# sim_s: this build has no SimGrid backend\n");
    if (x->nmf)
        printf("# nccl_s / mpi_s: measured NCCL / MPI %s (--measured files, nccl-tests rows as "
               "nccl-allreduce, in-place preferred); nccl_model_s: NCCL's cost model of nccl_algo/nccl_proto "
               "(the run's NCCL_ALGO/NCCL_PROTO, or --nccl-algo/--nccl-proto, else its tuner's choice); "
               "*_vs_nccl and nccl_model_err are relative to nccl_s\n",
               x->coll == AR_COLL_ALLGATHER       ? "all-gather"
               : x->coll == AR_COLL_REDUCESCATTER ? "reduce-scatter"
                                                  : "all-reduce");
    if (x->plot) printf("# figure: %s (gnuplot script %s.gp)\n", x->plot, x->plot);
    if (x->mfile)
        printf("# measured_s: from %s, matched on algo, ranks and bytes (in-place rows preferred); errors are "
               "relative to model_s\n",
               x->mfile);
    else if (!x->nmf) printf("# measured_s: give the CSV of 'arlab real --out FILE.csv' as an argument\n");
    return AR_OK;
}

static int compare_main(int argc, char **argv, const char **mfiles, int nmf, const char *plot,
                        const cli_nt_facts *facts) {
    compare_ctx *x = calloc(1, sizeof *x);
    if (!x) return AR_ENOMEM;
    x->nmf = nmf;
    x->plot = plot;
    ar_platform *plats[CLI_MAX_LIST] = {0};
    uint64_t counts[CLI_MAX_LIST];
    ar_status worst = compare_parse(x, argc, argv, facts);
    if (worst == AR_OK) worst = compare_read(x, mfiles, facts);
    if (worst != AR_OK) goto done;
    compare_lists(x);
    /* every platform, size and algorithm checked before anything is printed */
    worst = cli_preflight(&x->o, x->algos, x->na, plats, counts, x->meas_sizes ? 0 : x->o.nsizes);
    if (worst == AR_OK && x->meas_sizes) worst = compare_check_ranks(x, plats);
    for (int pi = 0; pi < x->o.nplatforms && worst == AR_OK; pi++) {
        worst = compare_platform(x, plats[pi], counts);
        ar_platform_free(plats[pi]);
        plats[pi] = NULL;
    }
    if (worst == AR_OK) worst = compare_print(x);
done:
    for (int pi = 0; pi < CLI_MAX_LIST; pi++) ar_platform_free(plats[pi]);
    for (int i = 0; i < x->npl; i++) free(x->pname[i]);
    tbl_free(&x->t);
    free(x->prow), free(x->palgo), free(x->pplat);
    lab_measures_free(&x->meas);
    free(x);
    return worst;
}

/* compare's own options as the option table says them (cli_take_own) */
typedef struct compare_own {
    const char *plot;
} compare_own;

/* `--plot FILE` (the option table's row) and `--measured FILE...` (nccl-tests files or measured CSVs) are
 * taken out of argv before cli_parse; rest keeps the others. */
int cmd_compare(int argc, char **argv) {
    static const cli_ownopt own[] = {{"--plot", offsetof(compare_own, plot)}};
    const char **mfiles = calloc((size_t)argc + 1, sizeof *mfiles);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    compare_own co = {NULL};
    int nm = 0, nrest = 0, nargs = argc;
    if (!mfiles || !rest) {
        free(mfiles), free(rest);
        return AR_ENOMEM;
    }
    memcpy(rest, argv, (size_t)argc * sizeof *rest);
    if (cli_take_own(&nargs, rest, own, (int)(sizeof own / sizeof own[0]), &co, "compare") != AR_OK) {
        free(mfiles), free(rest);
        return AR_EINVAL;
    }
    const char *plot = co.plot;
    for (int i = 0; i < nargs; i++) {
        if (!strcmp(rest[i], "--measured")) {
            int k0 = nm;
            while (i + 1 < nargs && strncmp(rest[i + 1], "--", 2)) mfiles[nm++] = rest[++i];
            if (nm == k0) {
                fprintf(stderr, "arlab compare: --measured needs at least one file (nccl-tests output or a CSV)\n");
                free(mfiles), free(rest);
                return AR_EINVAL;
            }
        } else {
            rest[nrest++] = rest[i];
        }
    }
    cli_nt_facts facts;
    if (cli_nt_take(&nrest, rest, &facts, "compare", 0) != AR_OK) {
        free(mfiles), free(rest);
        return AR_EINVAL;
    }
    int rc = compare_main(nrest, rest, mfiles, nm, plot, &facts);
    free(mfiles), free(rest);
    return rc;
}
