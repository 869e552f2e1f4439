/* arlab sim --platform P --algo A|all --size S[,S...] [--check] [--trace FILE]
 *           [--network MODEL[,key:value...]] [--gamma S_PER_B] [--budget T]
 *           [--engine fast|naive] [--no-shortcuts] [--chunks N] [--format table|csv|json|nccl-tests]
 *
 * For each platform, size and algorithm: plans and prices the schedule through
 * the one evaluation path (lab/eval.h: model_s = the closed form where one
 * exists, else the cost walk; the same column as `arlab model`), simulates it
 * on SimGrid (through the backend table, lab/backend.h; one child process per
 * simulation) and prints sim_s, model_s, rel_err (sim against the walk of the
 * simulated schedule), closed_s and closed_rel_err, transfer counts, the link
 * statistics and the bottleneck link, then nccl-tests' algbw_GBps and
 * busbw_GBps of sim_s, what NCCL's tuner would choose (nccl_model_s,
 * nccl_algo, nccl_proto; lab/eval.h lab_nccl_choice), status (ok, budget:
 * stopped by --budget, partial; unsupported / limit: the algorithm does not
 * apply; error: the simulation failed) and why. CSV and JSON rows are
 * written and flushed as each simulation ends (%.17g; missing values empty /
 * null); an algorithm that does not apply is a row, never a gap.
 * --engine, --no-shortcuts, --chunks, --digits, --model-only and --brief are read here; the rest by the shared
 * parser. --chunks N sets every op's pipeline chunks after planning (what-if;
 * the closed form ignores it, the walk and the simulation use it).
 * Without SimGrid (the table's sim entry is not available) the verb says so
 * and returns AR_EUNSUPPORTED. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

#include "lab/backend.h"
#include "lab/eval.h"
#include "lab/jobs.h"
#include "sim/sim.h" /* types only; the functions come from the backend table */

#define SIM_MAX_ARGS 256

static const char *const cols[] = {"algo",
                                   "platform",
                                   "ranks",
                                   "bytes",
                                   "sim_s",
                                   "model_s",
                                   "rel_err",
                                   "closed_s",
                                   "closed_rel_err",
                                   "transfers",
                                   "simgrid_xfers",
                                   "probe_xfers",
                                   "batches",
                                   "shortcut_batches",
                                   "groups",
                                   "wall_s",
                                   "peak_rss_kb",
                                   "bottleneck",
                                   "bottleneck_busy_s",
                                   "bottleneck_util",
                                   "bottleneck_flows",
                                   "check",
                                   "complete",
                                   "engine",
                                   "network",
                                   "algbw_GBps",
                                   "busbw_GBps",
                                   "nccl_model_s",
                                   "nccl_algo",
                                   "nccl_proto",
                                   "status",
                                   "why",
                                   "sync",
                                   "scenario"};
enum {
    NCOLS = sizeof cols / sizeof cols[0],
    C_ALGBW = 25,
    C_NCCL = 27,
    C_STATUS = 30,
    C_WHY = 31,
    C_SYNC = 32,
    C_SCEN = 33
};

/* A row for an algorithm that was not simulated: status (unsupported, limit,
 * error) and why; every number empty. */
/* --brief: one short row per run that applies (the fastest simulated on each platform and size
 * marked), then per platform one line for the algorithms that do not apply. */
#define BRIEF_NA_MAX 64
static void print_brief(const cli_table *t) {
    static const char *const bc[] = {"", "algo", "platform", "bytes", "sim_s", "model_s", "rel_err", "busbw_GBps"};
    static const int src[] = {-1, 0, 1, 3, 4, 5, 6, C_ALGBW + 1};
    enum { NB = sizeof src / sizeof src[0] };
    cli_table s;
    tbl_init(&s, NB, bc);
    const char *na[BRIEF_NA_MAX], *naw[BRIEF_NA_MAX];
    for (int from = 0, to; from < t->nrows; from = to) { /* one group per platform and size */
        const cli_cell *f = &t->cells[(size_t)from * NCOLS];
        for (to = from + 1; to < t->nrows; to++) {
            const cli_cell *g = &t->cells[(size_t)to * NCOLS];
            if (strcmp(g[1].s, f[1].s) || strcmp(g[3].s, f[3].s)) break;
        }
        int best = -1, nna = 0;
        for (int r = from; r < to; r++) {
            const cli_cell *c = &t->cells[(size_t)r * NCOLS];
            if (!strcmp(c[C_STATUS].s, "ok") && c[4].has_v &&
                (best < 0 || c[4].v < t->cells[(size_t)best * NCOLS + 4].v))
                best = r;
        }
        for (int r = from; r < to; r++) {
            const cli_cell *c = &t->cells[(size_t)r * NCOLS];
            if (!strcmp(c[C_STATUS].s, "unsupported")) {
                if (nna < BRIEF_NA_MAX) na[nna] = c[0].s, naw[nna++] = c[C_WHY].s;
                continue;
            }
            int nr = tbl_row(&s);
            tbl_str(&s, nr, 0, r == best ? "*" : "");
            for (int k = 1; k < NB; k++) tbl_copy_cell(&s, nr, k, &c[src[k]]);
            if (strcmp(c[C_STATUS].s, "ok")) tbl_str(&s, nr, 7, c[C_STATUS].s);
        }
        if (nna) {
            tbl_print(&s, FMT_TABLE, stdout);
            tbl_free(&s);
            tbl_init(&s, NB, bc);
            cli_print_na(stdout, f[1].s, na, naw, nna);
        }
    }
    if (s.nrows) tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
}

/* Prices a planned schedule (lab_eval_price) once: the meanwhile work of a simulation. */
typedef struct price_job {
    const ar_platform *p;
    const char *spec;
    uint64_t count;
    size_t eb;
    const lab_eval_opts *eo;
    lab_eval *ev;
    int done;
} price_job;

static void price_now(void *ctx) {
    price_job *j = ctx;
    if (j->done) return;
    j->done = 1;
    lab_eval_price(j->p, j->spec, j->count, j->eb, j->eo, j->ev);
}

static int why_row(cli_table *t, const char *algo, const ar_platform *p, double bytes, const char *status,
                   const char *why) {
    int row = tbl_row(t);
    if (row < 0) return row;
    tbl_str(t, row, 0, algo);
    tbl_str(t, row, 1, p->name);
    tbl_int(t, row, 2, p->nranks);
    tbl_num(t, row, 3, "%.0f", bytes);
    for (int c = 4; c < NCOLS; c++)
        if (c != 17 && c != 21 && c != 23 && c != 24 && c != C_NCCL + 1 && c != C_NCCL + 2 && c < C_STATUS &&
            c != C_SCEN)
            tbl_num(t, row, c, "%g", NAN);
    tbl_str(t, row, C_STATUS, status);
    tbl_str(t, row, C_WHY, why);
    return row;
}

/* FILE.json -> FILE-<tag>.json when several runs share --trace. */
static void trace_name(const char *base, const char *tag, char *buf, size_t n) {
    const char *dot = strrchr(base, '.');
    const char *slash = strrchr(base, '/');
    if (!dot || (slash && dot < slash)) dot = base + strlen(base);
    snprintf(buf, n, "%.*s-%s%s", (int)(dot - base), base, tag, dot);
    for (char *c = buf + (dot - base); *c; c++)
        if (*c == '/' || *c == ':' || *c == ',' || *c == '=') *c = '_';
}

static double load_s(const ar_platform *p, const ar_sim_result *r, int d) {
    return r->link_bytes[d] / ar_link_capacity(&p->links[AR_DLINK_LINK(d)]);
}

/* The `top` most loaded links (bytes per capacity = time needed at full rate). */
static void print_links(const lab_sim_api *sim, const ar_platform *p, const ar_sim_result *r, int top) {
    if (!r->link_bytes) return;
    char nm_bytes_buf[32];
    int *pick = calloc((size_t)top, sizeof *pick);
    if (!pick) return;
    int np = 0;
    for (int d = 0; d < r->ndlinks; d++) {
        if (r->link_bytes[d] <= 0) continue;
        int pos = np < top ? np++ : top;
        while (pos > 0 && load_s(p, r, pick[pos - 1]) < load_s(p, r, d)) {
            if (pos < top) pick[pos] = pick[pos - 1];
            pos--;
        }
        if (pos < top) pick[pos] = d;
    }
    const double *bg = r->link_bg_bytes; /* the background flows' part of bytes (scenario flows) */
    printf("    %-44s %10s %10s %10s %6s %6s%s\n", "link (most loaded first)", "bytes", "at full", "busy", "util",
           "flows", bg ? "   of which background" : "");
    for (int i = 0; i < np; i++) {
        char nm[160], b1[32], b2[32], b3[32], b4[32];
        int d = pick[i];
        printf("    %-44s %10s %10s %10s %5.1f%% %6d", sim->dlink_name(p, d, nm, sizeof nm),
               ar_fmt_bytes(r->link_bytes[d], b1, sizeof b1), ar_fmt_time(load_s(p, r, d), b2, sizeof b2),
               ar_fmt_time(r->link_busy_s[d], b3, sizeof b3), 100 * sim->link_util(p, r, d), r->link_max_flows[d]);
        if (bg) printf(" %22s", ar_fmt_bytes(bg[d], b4, sizeof b4));
        printf("\n");
    }
    if (bg)
        printf("    (bytes, busy, util, flows and the bottleneck count the schedule's transfers and the background "
               "flows together: %s of background traffic until the collective ended)\n",
               ar_fmt_bytes(r->bg_bytes, nm_bytes_buf, sizeof nm_bytes_buf));
    free(pick);
}

static void sim_help(const lab_sim_api *sim) {
    printf(
        "usage: arlab sim --platform P [--platform P2 ...] [--algo A|all ...] [--schedule F.json]\n"
        "                 [--size S[,S2...]|-b MIN -e MAX [-f F|-i N]] [--ranks N] [--dtype T] [--coll C] [--check]\n"
        "                 [--trace FILE] [--network MODEL[,key:value...]] [--gamma S_PER_BYTE] [--budget TIME]\n"
        "                 [--engine fast|naive] [--sync round|dataflow] [--no-shortcuts] [--chunks N]\n"
        "                 [--scenario F.json] [--model-only] [--brief] [--digits N] [--format F]\n"
        "Simulates each algorithm's schedule on SimGrid and compares it with the cost walk (model_s) and\n"
        "the closed form (closed_s). Defaults: --algo all --size 100MB. CSV/JSON rows are streamed, with\n"
        "algbw/busbw, NCCL's choice, status and why (docs/simulator.md).\n"
        "  --schedule F.json  also simulate a user-written schedule\n"
        "  --ranks N       rank count for a generated family; --dtype T: f32 (default), f16, bf16, f64, i32\n"
        "  --coll C        allreduce (default), reducescatter or allgather (--check: all-reduce only)\n"
        "  --check         carry real data; every rank's buffer must be the exact sum\n"
        "  --trace FILE    Chrome trace-event JSON of every transfer (Perfetto, chrome://tracing);\n"
        "                  several runs write FILE-<algo>-<platform>-<size>.json\n"
        "  --gamma G       reduction cost in seconds per byte on the receiving GPU (default: the platform's\n"
        "                  compute.reduce rate, else 0); --sync round: inside its round; --sync dataflow:\n"
        "                  overlapped with the next transfers, one reduction at a time per GPU\n"
        "  --budget T      wall-clock limit per simulation (e.g. 60s); the row says complete=0\n"
        "  --engine naive  baseline: one SimGrid actor per GPU and op, one mailbox message per transfer\n"
        "  --sync S        dataflow (default): every rank does its next round once its own transfers of the\n"
        "                  previous one are done, a transfer starts when both ends are at its round, no\n"
        "                  phase barrier (as MPI and NCCL ranks); round: lockstep, an op's round starts\n"
        "                  when all of its previous round is done, a phase when the previous phase is done\n"
        "                  everywhere (the closed forms' semantics)\n"
        "  --no-shortcuts  simulate every transfer in SimGrid (the exact shortcuts are off)\n"
        "  --chunks N      what-if: pipeline every op of the planned schedule in N chunks (1..65536)\n"
        "  --scenario F    what-if scenario (scenarios/README.md): late or slow-computing ranks, slow/failed\n"
        "                  links and ranks, background flows; delays, flows and slow GPUs run under\n"
        "                  --sync dataflow; with jobs, one simulation of every job (each its ranks,\n"
        "                  algorithm, start) and a row per job\n"
        "  --model-only    print the model's columns (model_s, closed_s) of every row without simulating\n"
        "  --format F      table (default), csv, json, or nccl-tests: the simulated times in nccl-tests'\n"
        "                  own table, one per platform and algorithm, to diff against a real run\n"
        "  --brief         the table: one short row per algorithm and platform (sim_s, model_s, busbw),\n"
        "                  one line for the algorithms that do not apply; no per-run breakdown\n"
        "  --digits N      significant digits of the times in the table (1..17, default 4)\n"
        "network models (--network):\n%s",
        sim->network_help());
}

/* --scenario with jobs: for each platform and size, every job planned on its own ranks, all in one
 * simulation under dataflow (lab/jobs.h); a row per job: its time from its start, its walk alone on
 * its ranks, and the slowdown sharing the fabric costs it. */
static ar_status sim_jobs(const lab_sim_api *sim, const cli_opts *o, const ar_scenario *sc, ar_sim_engine engine,
                          ar_sim_sync sync) {
    static const char *const jc[] = {"job",     "algo",     "platform", "ranks",    "bytes",  "start_s", "sim_s",
                                     "alone_s", "slowdown", "sync",     "scenario", "status", "why"};
    if (sync != AR_SYNC_DATAFLOW || engine != AR_SIM_FAST) {
        fprintf(stderr,
                "arlab sim: --scenario %s has jobs: they run in one simulation under --sync dataflow with "
                "the fast engine only\n",
                sc->source);
        return AR_EUNSUPPORTED;
    }
    if (o->nalgos) {
        fprintf(stderr, "arlab sim: --scenario %s has jobs: each job names its algorithm (no --algo)\n", sc->source);
        return AR_EINVAL;
    }
    cli_table t;
    tbl_init(&t, (int)(sizeof jc / sizeof jc[0]), jc);
    tbl_set_unit(&t, 8, TBL_UNIT_RATIO); /* slowdown */
    ar_status worst = AR_OK;
    const char *sizes[CLI_MAX_LIST];
    int nsizes = o->nsizes;
    for (int i = 0; i < nsizes; i++) sizes[i] = o->sizes[i];
    if (!nsizes) sizes[nsizes++] = "100MB";
    size_t eb = ar_dtype_size(o->dtype);
    for (int pi = 0; pi < o->nplatforms && worst == AR_OK; pi++) {
        ar_platform *p = NULL;
        if (cli_load_platform(o, pi, &p) != AR_OK) {
            worst = AR_EINVAL;
            break;
        }
        for (int si = 0; si < nsizes && worst == AR_OK; si++) {
            uint64_t count;
            ar_err e = {{0}};
            if (ar_parse_size(sizes[si], eb, &count, &e) != AR_OK) {
                fprintf(stderr, "arlab: --size: %s\n", e.msg);
                worst = AR_EINVAL;
                break;
            }
            lab_jobs J;
            ar_status st = lab_jobs_plan(p, sc, count, eb, o->coll, &J, &e);
            if (st != AR_OK) {
                worst = cli_error(st, &e);
                break;
            }
            ar_sim_opts so = {.network = o->network,
                              .budget_s = o->budget_s,
                              .engine = AR_SIM_FAST,
                              .sync = AR_SYNC_DATAFLOW,
                              .rank_delay_s = J.delays,
                              .flows = sc->flows,
                              .nflows = sc->nflows,
                              .independent_phases = 1};
            ar_sim_result r;
            st = sim->run(p, J.sch, &so, &r, &e);
            for (int j = 0; j < J.njobs; j++) {
                const ar_job *jb = &sc->jobs[j];
                int row = tbl_row(&t);
                tbl_int(&t, row, 0, j);
                tbl_str(&t, row, 1, jb->algo);
                tbl_str(&t, row, 2, p->name);
                tbl_int(&t, row, 3, jb->nranks);
                tbl_num(&t, row, 4, "%.0f", (double)count * (double)eb);
                tbl_num(&t, row, 5, "%.9g", jb->start_s);
                double tj = st == AR_OK && r.complete ? lab_jobs_time(&J, sc, r.phase_end_s, j) : NAN;
                tbl_num(&t, row, 6, "%.12g", tj);
                tbl_num(&t, row, 7, "%.12g", J.alone_s[j]);
                tbl_num(&t, row, 8, "%.6g", tj / J.alone_s[j]);
                tbl_str(&t, row, 9, "dataflow");
                tbl_str(&t, row, 10, sc->name);
                tbl_str(&t, row, 11, st != AR_OK ? "error" : r.complete ? "ok" : "budget");
                tbl_str(&t, row, 12, st != AR_OK ? e.msg : "");
            }
            if (st == AR_OK) sim->result_free(&r);
            else worst = cli_error(st, &e);
            lab_jobs_free(&J);
        }
        ar_platform_free(p);
    }
    if (t.nrows) tbl_print(&t, o->format, stdout);
    if (o->format == FMT_TABLE && t.nrows) {
        char sd[400];
        ar_scenario_describe(sc, sd, sizeof sd);
        printf("scenario: %s from %s; the jobs run in one simulation under --sync dataflow; sim_s: a job's time "
               "from its start, alone_s: its cost walk alone on its ranks, slowdown = sim_s / alone_s\n",
               sd, sc->source);
    }
    tbl_free(&t);
    return worst;
}

int cmd_sim(int argc, char **argv) {
    const lab_sim_api *sim = lab_sim();
    if (!sim) {
        fprintf(stderr, "arlab sim: this build has no SimGrid backend (install libsimgrid-dev, pkg-config simgrid, "
                        "and reconfigure)\n");
        return AR_EUNSUPPORTED;
    }
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sim_help(sim);
            return AR_OK;
        }
    /* options of this verb only */
    char *rest[SIM_MAX_ARGS];
    int nrest = 0;
    ar_sim_engine engine = AR_SIM_FAST;
    ar_sim_sync sync = AR_SYNC_DATAFLOW;
    int full = 0, chunks = 0, digits = 0, model_only = 0, sync_given = 0, brief = 0, ntfmt = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-shortcuts")) {
            full = 1;
        } else if (!strcmp(a, "--model-only")) {
            model_only = 1;
        } else if (!strcmp(a, "--brief")) {
            brief = 1;
        } else if (cli_format_nccltests(argc, argv, &i)) {
            ntfmt = brief = 1; /* no per-run breakdown; the rows as nccl-tests documents at the end */
        } else if (!strcmp(a, "--chunks") || !strncmp(a, "--chunks=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            long long c;
            ar_err ce = {{0}};
            if (!v || ar_parse_count(v, 1, 65536, &c, &ce) != AR_OK) {
                fprintf(stderr, "arlab sim: --chunks: give an integer in 1..65536\n");
                return AR_EINVAL;
            }
            chunks = (int)c;
        } else if (!strcmp(a, "--digits") || !strncmp(a, "--digits=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            long long d;
            ar_err de = {{0}};
            if (!v || ar_parse_count(v, 1, 17, &d, &de) != AR_OK) {
                fprintf(stderr, "arlab sim: --digits: give an integer in 1..17\n");
                return AR_EINVAL;
            }
            digits = (int)d;
        } else if (!strcmp(a, "--engine") || !strncmp(a, "--engine=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || (strcmp(v, "fast") && strcmp(v, "naive"))) {
                fprintf(stderr, "arlab sim: --engine: give fast or naive\n");
                return AR_EINVAL;
            }
            engine = strcmp(v, "naive") ? AR_SIM_FAST : AR_SIM_NAIVE;
        } else if (!strcmp(a, "--sync") || !strncmp(a, "--sync=", 7)) {
            const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || (strcmp(v, "round") && strcmp(v, "dataflow"))) {
                fprintf(stderr, "arlab sim: --sync: give round (lockstep rounds and phases, the closed forms' "
                                "semantics) or dataflow (every rank on its own data)\n");
                return AR_EINVAL;
            }
            sync = strcmp(v, "dataflow") ? AR_SYNC_ROUND : AR_SYNC_DATAFLOW;
            sync_given = 1;
        } else {
            if (nrest >= SIM_MAX_ARGS) {
                fprintf(stderr, "arlab sim: too many arguments\n");
                return AR_EINVAL;
            }
            rest[nrest++] = argv[i];
        }
    }
    char tfmt[16];
    snprintf(tfmt, sizeof tfmt, "%%.%dg", digits ? digits : 12);
    cli_opts o;
    if (cli_parse(nrest, rest,
                  OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK | OPT_TRACE |
                      OPT_NETWORK | OPT_GAMMA | OPT_BUDGET | OPT_COLL | OPT_SCENARIO,
                  &o, "sim") != AR_OK)
        return AR_EINVAL;
    ar_scenario *scen = NULL; /* --scenario: its platform changes come with cli_load_platform */
    if (cli_load_scenario(&o, &scen) != AR_OK) return AR_EINVAL;
    char scen_desc[400] = "-";
    ar_scenario_describe(scen, scen_desc, sizeof scen_desc);
    if (scen && scen->njobs) { /* several jobs sharing the fabric: one simulation, a row per job */
        ar_status js = sim_jobs(sim, &o, scen, engine, sync_given ? sync : AR_SYNC_DATAFLOW);
        ar_scenario_free(scen);
        return js;
    }
    if (ar_scenario_has_timing(scen)) { /* delays and flows: only the per-rank engine sees them */
        if (sync_given && sync != AR_SYNC_DATAFLOW) {
            fprintf(stderr,
                    "arlab sim: --scenario %s has delays or flows: they run under --sync dataflow only (the "
                    "lockstep shortcuts assume every rank starts together on an idle network)\n",
                    scen->source);
            ar_scenario_free(scen);
            return AR_EUNSUPPORTED;
        }
        sync = AR_SYNC_DATAFLOW;
        if (engine == AR_SIM_NAIVE) {
            fprintf(stderr, "arlab sim: --scenario with delays or flows runs on the fast engine only\n");
            ar_scenario_free(scen);
            return AR_EUNSUPPORTED;
        }
    }
    double scen_delay = ar_scenario_max_delay(scen);
    if (o.nplatforms == 0) {
        fprintf(stderr, "arlab sim: give --platform P (see 'arlab platforms')\n");
        return AR_EINVAL;
    }
    ar_err e = {{0}};
    char netdesc[512];
    if (sim->network_parse(o.network, netdesc, sizeof netdesc, &e) != AR_OK) {
        ar_scenario_free(scen);
        return cli_error(AR_EINVAL, &e);
    }
    if (model_only && (o.check || o.trace)) {
        fprintf(stderr, "arlab sim: --model-only simulates nothing (no --check or --trace)\n");
        return AR_EINVAL;
    }
    if (o.check && o.coll != AR_COLL_ALLREDUCE) {
        fprintf(stderr,
                "arlab sim: --check verifies all-reduce sums only (check --coll %s with 'arlab plan --check')\n",
                ar_coll_name(o.coll));
        return AR_EUNSUPPORTED;
    }
    if (engine == AR_SIM_NAIVE && (o.check || o.trace || (o.gamma_s_per_B > 0 && sync != AR_SYNC_DATAFLOW))) {
        fprintf(stderr, "arlab sim: --engine naive measures time only (no --check or --trace; --gamma only with "
                        "--sync dataflow)\n");
        return AR_EUNSUPPORTED;
    }
    if (o.nsizes == 0) o.sizes[o.nsizes++] = "100MB";
    if (o.nalgos == 0) o.algos[o.nalgos++] = "all";
    const char *algos[CLI_MAX_LIST * 4];
    int na = cli_algo_list(&o, algos, CLI_MAX_LIST * 4);
    size_t eb = ar_dtype_size(o.dtype);

    /* validate every platform and size before any simulation starts */
    ar_platform *plats[CLI_MAX_LIST];
    uint64_t counts[CLI_MAX_LIST];
    ar_status worst = cli_preflight(&o, algos, na, plats, counts, o.nsizes);
    if (worst != AR_OK) {
        ar_scenario_free(scen);
        return worst;
    }
    int nruns = o.nplatforms * o.nsizes * na;
    /* lockstep rounds price the network alone: a platform's per-message costs (o, g) are taken off for
     * every column (model, walk, simulation), and stderr says so; --sync dataflow (the default) prices them */
    for (int pi = 0; pi < o.nplatforms && sync != AR_SYNC_DATAFLOW; pi++)
        if (ar_platform_has_msg(plats[pi])) {
            fprintf(stderr,
                    "arlab sim: --sync round: %s's per-message costs (o, g) are not priced (lockstep rounds, the "
                    "network alone); --sync dataflow prices them\n",
                    plats[pi]->name);
            plats[pi]->msg_o_s = plats[pi]->msg_g_s = 0;
        }

    cli_table t;
    tbl_init(&t, NCOLS, cols);
    t.digits = digits;
    int stream = o.format != FMT_TABLE, napplied = 0;
    if (stream) tbl_stream_begin(&t, o.format, stdout);
    for (int pi = 0; pi < o.nplatforms && worst != AR_EINVAL; pi++) {
        ar_platform *p = plats[pi];
        double *delays = NULL;                         /* the scenario's start delay per rank of this platform */
        if (scen && ar_scenario_max_delay(scen) > 0) { /* late starts (a slow GPU alone is in the platform) */
            delays = calloc((size_t)p->nranks, sizeof *delays);
            if (!delays) {
                worst = AR_ENOMEM;
                fprintf(stderr, "arlab sim: out of memory\n");
                break;
            }
            ar_scenario_delays(scen, p->nranks, delays);
        }
        for (int si = 0; si < o.nsizes; si++) {
            double bytes = (double)counts[si] * (double)eb;
            if (o.format == FMT_TABLE && !brief) {
                char b[32];
                printf("== %s (%d ranks), %s ==\n", p->name, p->nranks, ar_fmt_bytes(bytes, b, sizeof b));
            }
            double nccl_s; /* what NCCL's tuner would do here */
            const char *nalgo, *nproto;
            ar_err ne = {{0}};
            (void)lab_nccl_choice(p, (int)o.coll, bytes, &nccl_s, &nalgo, &nproto, &ne);
            for (int ai = 0; ai < na; ai++) {
                lab_eval ev;
                lab_eval_opts eo = {.chunks = chunks, .coll = o.coll, .start_s = delays};
                char szb[32];
                cli_status("sim %d/%d: %s on %s, %s ...", (pi * o.nsizes + si) * na + ai + 1, nruns, algos[ai], p->name,
                           ar_fmt_bytes(bytes, szb, sizeof szb)); /* a terminal only; erased below */
                ar_status st = lab_eval_plan(p, algos[ai], counts[si], eb, &eo, &ev, &e); /* priced below */
                if (st != AR_OK) cli_status(NULL);
                if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) { /* a row saying why, never a silent gap */
                    int row = why_row(&t, algos[ai], p, bytes, st == AR_ELIMIT ? "limit" : "unsupported", e.msg);
                    if (stream && row >= 0) tbl_stream_row(&t, row, o.format, stdout);
                    if (o.format == FMT_TABLE && !brief) printf("  %s: not applicable: %s\n", algos[ai], e.msg);
                    continue;
                }
                if (st != AR_OK) {
                    worst = cli_error(st, &e);
                    break;
                }
                char tr[1024];
                if (o.trace) {
                    if (nruns > 1) {
                        char tag[256];
                        snprintf(tag, sizeof tag, "%s-%s-%s", algos[ai], p->name, o.sizes[si]);
                        trace_name(o.trace, tag, tr, sizeof tr);
                    } else {
                        snprintf(tr, sizeof tr, "%s", o.trace);
                    }
                }
                ar_sim_opts so = {.network = o.network,
                                  .gamma_s_per_B = o.gamma_s_per_B,
                                  .check = o.check,
                                  .trace_path = o.trace ? tr : NULL,
                                  .budget_s = o.budget_s,
                                  .engine = engine,
                                  .sync = sync,
                                  .full = full,
                                  .rank_delay_s = delays,
                                  .flows = scen ? scen->flows : NULL,
                                  .nflows = scen ? scen->nflows : 0};
                /* the walk and the closed form, while the simulation runs (ar_sim_opts.meanwhile) */
                price_job pj = {.p = p, .spec = algos[ai], .count = counts[si], .eb = eb, .eo = &eo, .ev = &ev};
                so.meanwhile = price_now;
                so.meanwhile_ctx = &pj;
                ar_sim_result r;
                if (model_only) { /* the rows with the model's columns, nothing simulated */
                    memset(&r, 0, sizeof r);
                    r.time_s = NAN;
                    r.bottleneck = -1;
                    snprintf(r.engine, sizeof r.engine, "none");
                    snprintf(r.network, sizeof r.network, "not simulated (--model-only)");
                    st = AR_OK;
                } else {
                    st = sim->run(p, ev.sch, &so, &r, &e);
                }
                price_now(&pj); /* (once: a no-op after ar_sim_run called it; a backend that does not) */
                cli_status(NULL);
                if (st != AR_OK && st != AR_EFAIL) {
                    worst = cli_error(st, &e);
                    lab_eval_free(&ev);
                    if (st == AR_EINVAL) break;
                    int row = why_row(&t, algos[ai], p, bytes, st == AR_ELIMIT ? "limit" : "error", e.msg);
                    if (stream && row >= 0) tbl_stream_row(&t, row, o.format, stdout);
                    continue;
                }
                napplied++;
                if (st == AR_EFAIL) {
                    cli_error(st, &e);
                    worst = AR_EFAIL;
                }
                /* model_s: the one definition (lab/eval.h); rel_err: against the walk of
                 * this very schedule, closed_rel_err: against the closed form */
                double rel = ev.have_walk && ev.walk_s > 0 ? (r.time_s - ev.walk_s) / ev.walk_s : NAN;
                char bn[160] = "-";
                if (r.bottleneck >= 0) sim->dlink_name(p, r.bottleneck, bn, sizeof bn);
                int row = tbl_row(&t);
                tbl_str(&t, row, 0, algos[ai]);
                tbl_str(&t, row, 1, p->name);
                tbl_int(&t, row, 2, p->nranks);
                tbl_num(&t, row, 3, "%.0f", (double)counts[si] * (double)eb);
                tbl_num(&t, row, 4, tfmt, r.time_s);
                tbl_num(&t, row, 5, tfmt, ev.model_s);
                tbl_num(&t, row, 6, "%.3g", rel);
                tbl_num(&t, row, 7, tfmt, ev.closed_s);
                tbl_num(&t, row, 8, "%.3g",
                        ev.have_closed && ev.closed_s > 0 ? (r.time_s - ev.closed_s) / ev.closed_s : NAN);
                tbl_int(&t, row, 9, (long long)r.transfers);
                tbl_int(&t, row, 10, (long long)r.transfers_simgrid);
                tbl_int(&t, row, 11, (long long)r.probe_transfers);
                tbl_int(&t, row, 12, (long long)r.epochs);
                tbl_int(&t, row, 13, (long long)(r.epochs_repeat + r.epochs_memo));
                tbl_int(&t, row, 14, r.groups);
                tbl_num(&t, row, 15, "%.3f", r.wall_s);
                tbl_int(&t, row, 16, r.peak_rss_kb);
                tbl_str(&t, row, 17, bn);
                tbl_num(&t, row, 18, "%.9g", r.bottleneck >= 0 ? r.link_busy_s[r.bottleneck] : NAN);
                tbl_num(&t, row, 19, "%.4f", r.bottleneck >= 0 ? sim->link_util(p, &r, r.bottleneck) : NAN);
                tbl_int(&t, row, 20, r.bottleneck >= 0 ? r.link_max_flows[r.bottleneck] : 0);
                tbl_str(&t, row, 21, !o.check ? "-" : st == AR_OK ? "exact" : "WRONG");
                tbl_int(&t, row, 22, r.complete);
                tbl_str(&t, row, 23, r.engine);
                tbl_str(&t, row, 24, r.network);
                tbl_str(&t, row, C_SYNC, model_only ? "-" : r.sync);
                tbl_str(&t, row, C_SCEN, scen ? scen->name : "-");
                tbl_num(&t, row, C_ALGBW, "%.6g", lab_algbw_GBps(bytes, r.time_s));
                tbl_num(&t, row, C_ALGBW + 1, "%.6g", lab_busbw_GBps((int)o.coll, p->nranks, bytes, r.time_s));
                tbl_num(&t, row, C_NCCL, tfmt, nccl_s);
                tbl_str(&t, row, C_NCCL + 1, nalgo);
                tbl_str(&t, row, C_NCCL + 2, nproto);
                tbl_str(&t, row, C_STATUS,
                        model_only       ? "model-only"
                        : st == AR_EFAIL ? "error"
                        : r.complete     ? "ok"
                                         : "budget");
                tbl_str(&t, row, C_WHY,
                        st == AR_EFAIL ? e.msg
                        : r.complete   ? ev.model_why
                                       : "stopped by --budget: partial");
                if (stream) tbl_stream_row(&t, row, o.format, stdout);
                if (o.format == FMT_TABLE && !brief) {
                    char b1[32], b2[32], b3[32];
                    char b4[32];
                    printf("  %s: sim %s  model %s  walk %s  rel_err %.3g  closed form %s%s%s\n", algos[ai],
                           ar_fmt_time(r.time_s, b1, sizeof b1),
                           ev.model ? ar_fmt_time(ev.model_s, b2, sizeof b2) : "-",
                           ev.have_walk ? ar_fmt_time(ev.walk_s, b3, sizeof b3) : "-", rel,
                           ev.have_closed ? ar_fmt_time(ev.closed_s, b4, sizeof b4) : "-",
                           r.complete ? "" : "  (stopped by --budget: partial)",
                           o.check ? (st == AR_OK ? "  check: exact" : "  check: WRONG") : "");
                    printf("    %llu transfers, %llu simulated by SimGrid (+%llu in %llu probes); %llu batches, %llu "
                           "advanced exactly; %d op groups; wall %s (setup %s), peak %ld MB\n",
                           (unsigned long long)r.transfers, (unsigned long long)r.transfers_simgrid,
                           (unsigned long long)r.probe_transfers, (unsigned long long)r.probes,
                           (unsigned long long)r.epochs, (unsigned long long)(r.epochs_repeat + r.epochs_memo),
                           r.groups, ar_fmt_time(r.wall_s, b1, sizeof b1), ar_fmt_time(r.setup_s, b3, sizeof b3),
                           r.peak_rss_kb / 1024);
                    printf("    per phase (sim | walk):");
                    for (int ph = 0; ph < r.nphases && ph < 12; ph++) {
                        double d = r.phase_end_s[ph] - (ph ? r.phase_end_s[ph - 1] : 0);
                        printf(" %s|%s", ar_fmt_time(d, b1, sizeof b1),
                               ev.have_walk && ph < ev.walk.nstages
                                   ? ar_fmt_time(ev.walk.stages[ph].time_s, b2, sizeof b2)
                                   : "-");
                    }
                    printf("%s\n", r.nphases > 12 ? " ..." : "");
                    if (r.bottleneck >= 0)
                        printf("    bottleneck: %s: %s at full rate, busy %s, utilisation %.1f%%, up to %d transfers "
                               "at once\n",
                               bn, ar_fmt_time(load_s(p, &r, r.bottleneck), b1, sizeof b1),
                               ar_fmt_time(r.link_busy_s[r.bottleneck], b2, sizeof b2),
                               100 * sim->link_util(p, &r, r.bottleneck), r.link_max_flows[r.bottleneck]);
                    print_links(sim, p, &r, 5);
                }
                sim->result_free(&r);
                lab_eval_free(&ev);
            }
            if (worst == AR_EINVAL) break;
        }
        free(delays);
    }
    for (int pi = 0; pi < o.nplatforms; pi++) ar_platform_free(plats[pi]);
    if (ntfmt) {
        cli_print_nccltests(&t, model_only ? "model_s" : "sim_s", "sim", &o);
    } else if (o.format == FMT_TABLE && brief) {
        print_brief(&t);
    } else if (o.format == FMT_TABLE) {
        printf("\nnetwork: %s\nsemantics: %s\n\n", netdesc,
               sync == AR_SYNC_DATAFLOW ? "dataflow (every rank advances on its own data; --sync round for lockstep)"
                                        : "round (lockstep: an op's round after all of the previous, a phase after "
                                          "all of the previous)");
        if (scen)
            printf("scenario: %s from %s; the walk starts each late rank late (dataflow), the closed form adds "
                   "the largest start delay (%g s); background flows are not in the walk, only in the simulation "
                   "(and in its link statistics)\n\n",
                   scen_desc, scen->source, scen_delay);
        static const int keep[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, C_ALGBW + 1, 9, 15, 21, C_STATUS};
        enum { NK = sizeof keep / sizeof keep[0] };
        const char *kc[NK];
        for (int c = 0; c < NK; c++) kc[c] = cols[keep[c]];
        cli_table s;
        tbl_init(&s, NK, kc);
        s.digits = digits;
        for (int r = 0; r < t.nrows; r++) {
            int nr = tbl_row(&s);
            for (int c = 0; c < NK; c++) {
                const cli_cell *cl = &t.cells[(size_t)r * NCOLS + (size_t)keep[c]];
                tbl_copy_cell(&s, nr, c, cl);
            }
        }
        tbl_print(&s, FMT_TABLE, stdout);
        tbl_free(&s);
    } else {
        tbl_stream_end(&t, o.format, stdout);
    }
    tbl_free(&t);
    ar_scenario_free(scen);
    if (napplied == 0 && worst == AR_OK) {
        fprintf(stderr, "arlab sim: no algorithm applies to the platform(s) asked (see the rows' why)\n");
        worst = AR_EUNSUPPORTED;
    }
    return worst;
}
