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
#include "opttab.h"
#include "progress.h"

#include "lab/backend.h"
#include "lab/eval.h"
#include "lab/jobs.h"
#include "lab/simrow.h"
#include "sim/sim.h" /* types only; the functions come from the backend table */

/* The verb's columns: lab/simrow.h's table, by name. */
static const char *cols[64];
static int col(const char *name) { return lab_rowcol_find(lab_simrow_cols, lab_simrow_ncols, name); }
static void cols_init(void) {
    for (int c = 0; c < lab_simrow_ncols && c < 64; c++) cols[c] = lab_simrow_cols[c].name;
}
#define NCOLS lab_simrow_ncols

/* --brief: one short row per run that applies (the fastest simulated on each platform and size
 * marked), then per platform one line for the algorithms that do not apply. */
#define BRIEF_NA_MAX 64
static void print_brief(const cli_table *t) {
    static const char *const bc[] = {"", "algo", "platform", "bytes", "sim_s", "model_s", "rel_err", "busbw_GBps"};
    const int src[] = {-1,           col("algo"),    col("platform"), col("bytes"),
                       col("sim_s"), col("model_s"), col("rel_err"),  col("busbw_GBps")};
    const int c_plat = col("platform"), c_bytes = col("bytes"), c_sim = col("sim_s"), c_status = col("status"),
              c_why = col("why");
    enum { NB = sizeof bc / sizeof bc[0] };
    cli_table s;
    tbl_init(&s, NB, bc);
    const char *na[BRIEF_NA_MAX], *naw[BRIEF_NA_MAX];
    for (int from = 0, to; from < t->nrows; from = to) { /* one group per platform and size */
        const cli_cell *f = &t->cells[(size_t)from * NCOLS];
        for (to = from + 1; to < t->nrows; to++) {
            const cli_cell *g = &t->cells[(size_t)to * NCOLS];
            if (strcmp(g[c_plat].s, f[c_plat].s) || strcmp(g[c_bytes].s, f[c_bytes].s)) break;
        }
        int best = -1, nna = 0;
        for (int r = from; r < to; r++) {
            const cli_cell *c = &t->cells[(size_t)r * NCOLS];
            if (!strcmp(c[c_status].s, "ok") && c[c_sim].has_v &&
                (best < 0 || c[c_sim].v < t->cells[(size_t)best * NCOLS + c_sim].v))
                best = r;
        }
        for (int r = from; r < to; r++) {
            const cli_cell *c = &t->cells[(size_t)r * NCOLS];
            if (!strcmp(c[c_status].s, "unsupported")) {
                if (nna < BRIEF_NA_MAX) na[nna] = c[src[1]].s, naw[nna++] = c[c_why].s;
                continue;
            }
            int nr = tbl_row(&s);
            tbl_str(&s, nr, 0, r == best ? "*" : "");
            for (int k = 1; k < NB; k++) tbl_copy_cell(&s, nr, k, &c[src[k]]);
            if (strcmp(c[c_status].s, "ok")) tbl_str(&s, nr, 7, c[c_status].s);
        }
        if (nna) {
            tbl_print(&s, FMT_TABLE, stdout);
            tbl_free(&s);
            tbl_init(&s, NB, bc);
            cli_print_na(stdout, f[c_plat].s, na, naw, nna);
        }
    }
    if (s.nrows) tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
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
    cli_help_body("sim"); /* the rows of cli/helptab.c, then the models this build has */
    fputs(sim->network_help(), stdout);
}

/* --scenario with jobs: for each platform and size, every job planned on its own ranks, all in one
 * simulation under dataflow (lab/jobs.h); a row per job: its time from its start, its walk alone on
 * its ranks, and the slowdown sharing the fabric costs it. */
static ar_status sim_jobs(const lab_sim_api *sim, const cli_opts *o, const ar_scenario *sc) {
    static const char *const jc[] = {"job",     "algo",     "platform", "ranks",    "bytes",  "start_s", "sim_s",
                                     "alone_s", "slowdown", "sync",     "scenario", "status", "why"};
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

/* The verb's own options (cli_parse takes the common ones). */
typedef struct sim_args {
    ar_sim_engine engine;
    ar_sync sync;
    int full, chunks, digits, model_only, brief, ntfmt;
    char tfmt[16]; /* the time columns' format (--digits) */
} sim_args;

static ar_status sim_parse(int argc, char **argv, sim_args *a, cli_opts *o) {
    static const cli_ownopt own[] = {
        {"--no-shortcuts", offsetof(sim_args, full)}, {"--model-only", offsetof(sim_args, model_only)},
        {"--brief", offsetof(sim_args, brief)},       {"--chunks", offsetof(sim_args, chunks)},
        {"--digits", offsetof(sim_args, digits)},     {"--engine", offsetof(sim_args, engine)},
        {"--sync", offsetof(sim_args, sync)}};
    int nrest = 0;
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        if (cli_format_nccltests(argc, argv, &i)) {
            a->ntfmt = a->brief = 1; /* no per-run breakdown; the rows as nccl-tests documents at the end */
        } else {
            argv[nrest++] = argv[i];
        }
    }
    if (cli_take_own(&nrest, argv, own, (int)(sizeof own / sizeof own[0]), a, "sim") != AR_OK) return AR_EINVAL;
    char **rest = argv;
    snprintf(a->tfmt, sizeof a->tfmt, "%%.%dg", a->digits ? a->digits : 12);
    return cli_parse(nrest, rest,
                     OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK | OPT_TRACE |
                         OPT_NETWORK | OPT_GAMMA | OPT_BUDGET | OPT_COLL | OPT_SCENARIO,
                     o, "sim") == AR_OK
               ? AR_OK
               : AR_EINVAL;
}

/* --scenario with jobs, once the simulator said it can run them as asked. */
static ar_status sim_jobs_checked(const lab_sim_api *sim, const cli_opts *o, const ar_scenario *sc, const sim_args *a) {
    ar_sim_opts jo = {.engine = a->engine, .sync = a->sync, .independent_phases = 1};
    ar_sim_mode m;
    ar_err e = {{0}};
    if (sim->decide(NULL, NULL, &jo, &m, &e) != AR_OK) {
        fprintf(stderr, "arlab sim: --scenario %s has jobs: %s\n", sc->source, e.msg);
        return AR_EUNSUPPORTED;
    }
    return sim_jobs(sim, o, sc);
}

/* Everything one run of the verb works on, checked before anything is printed. */
typedef struct sim_run_ctx {
    const lab_sim_api *sim;
    sim_args a;
    cli_opts o;
    ar_scenario *scen; /* --scenario (its platform changes come with cli_load_platform), or NULL */
    const char *algos[CLI_MAX_LIST * 4];
    int na, nruns, napplied;
    ar_platform *plats[CLI_MAX_LIST];
    uint64_t counts[CLI_MAX_LIST];
    double *delays[CLI_MAX_LIST]; /* the scenario's start delay per rank of each platform, or NULL */
    char netdesc[512];
    cli_table t;
} sim_run_ctx;

static void sim_ctx_free(sim_run_ctx *c) {
    for (int pi = 0; pi < CLI_MAX_LIST; pi++) {
        ar_platform_free(c->plats[pi]);
        free(c->delays[pi]);
    }
    ar_scenario_free(c->scen);
}

/* The options for simulating on platform pi (trace: the run's trace file or NULL). */
static ar_sim_opts sim_opts_for(const sim_run_ctx *c, int pi, const char *trace) {
    ar_sim_opts so = {.network = c->o.network,
                      .gamma_s_per_B = c->o.gamma_s_per_B,
                      .check = c->o.check,
                      .trace_path = trace,
                      .budget_s = c->o.budget_s,
                      .engine = c->a.engine,
                      .sync = c->a.sync,
                      .full = c->a.full,
                      .rank_delay_s = c->delays[pi],
                      .flows = c->scen ? c->scen->flows : NULL,
                      .nflows = c->scen ? c->scen->nflows : 0};
    return so;
}

/* Checks the options, loads every platform and size, the scenario's delays, and asks the simulator
 * whether it can run what was asked (ar_sim_decide) on each platform: one line and a non-zero
 * status on the first problem, before anything is printed. */
static ar_status sim_prepare(sim_run_ctx *c) {
    cli_opts *o = &c->o;
    ar_err e = {{0}};
    if (o->nplatforms == 0) {
        fprintf(stderr, "arlab sim: give --platform P (see 'arlab platforms')\n");
        return AR_EINVAL;
    }
    if (c->sim->network_parse(o->network, c->netdesc, sizeof c->netdesc, &e) != AR_OK) return cli_error(AR_EINVAL, &e);
    if (c->a.model_only && (o->check || o->trace)) {
        fprintf(stderr, "arlab sim: --model-only simulates nothing (no --check or --trace)\n");
        return AR_EINVAL;
    }
    if (o->check && o->coll != AR_COLL_ALLREDUCE) {
        fprintf(stderr,
                "arlab sim: --check verifies all-reduce sums only (check --coll %s with 'arlab plan --check')\n",
                ar_coll_name(o->coll));
        return AR_EUNSUPPORTED;
    }
    if (o->nsizes == 0) o->sizes[o->nsizes++] = "100MB";
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    c->na = cli_algo_list(o, c->algos, CLI_MAX_LIST * 4);
    ar_status st = cli_preflight(o, c->algos, c->na, c->plats, c->counts, o->nsizes);
    if (st != AR_OK) return st;
    c->nruns = o->nplatforms * o->nsizes * c->na;
    for (int pi = 0; pi < o->nplatforms; pi++) {
        if (c->scen && ar_scenario_max_delay(c->scen) > 0) { /* late starts (a slow GPU alone is in the platform) */
            c->delays[pi] = calloc((size_t)c->plats[pi]->nranks, sizeof *c->delays[pi]);
            if (!c->delays[pi]) return cli_error(ar_fail(&e, AR_ENOMEM, "out of memory"), &e);
            ar_scenario_delays(c->scen, c->plats[pi]->nranks, c->delays[pi]);
        }
        ar_sim_opts so = sim_opts_for(c, pi, o->trace);
        ar_sim_mode m;
        if (!c->a.model_only && c->sim->decide(c->plats[pi], NULL, &so, &m, &e) != AR_OK)
            return cli_error(AR_EUNSUPPORTED, &e);
    }
    return AR_OK;
}

/* The per-run lines of the table format (not --brief): times, counts, phases, bottleneck, links. */
static void print_detail(const sim_run_ctx *c, const ar_platform *p, const char *algo, const lab_eval *ev,
                         const ar_sim_result *r, const lab_simrow *w, ar_status st) {
    char b1[32], b2[32], b3[32], b4[32];
    printf("  %s: sim %s  model %s  walk %s  rel_err %.3g  closed form %s%s%s\n", algo,
           ar_fmt_time(r->time_s, b1, sizeof b1), ev->model ? ar_fmt_time(ev->model_s, b2, sizeof b2) : "-",
           ev->have_walk ? ar_fmt_time(ev->walk_s, b3, sizeof b3) : "-", w->rel_err,
           ev->have_closed ? ar_fmt_time(ev->closed_s, b4, sizeof b4) : "-",
           r->complete ? "" : "  (stopped by --budget: partial)",
           c->o.check ? (st == AR_OK ? "  check: exact" : "  check: WRONG") : "");
    printf("    %llu transfers, %llu simulated by SimGrid (+%llu in %llu probes); %llu batches, %llu "
           "advanced exactly; %d op groups; wall %s (setup %s), peak %ld MB\n",
           (unsigned long long)r->transfers, (unsigned long long)r->transfers_simgrid,
           (unsigned long long)r->probe_transfers, (unsigned long long)r->probes, (unsigned long long)r->epochs,
           (unsigned long long)(r->epochs_repeat + r->epochs_memo), r->groups, ar_fmt_time(r->wall_s, b1, sizeof b1),
           ar_fmt_time(r->setup_s, b3, sizeof b3), r->peak_rss_kb / 1024);
    printf("    per phase (sim | walk):");
    for (int ph = 0; ph < r->nphases && ph < 12; ph++) {
        double d = r->phase_end_s[ph] - (ph ? r->phase_end_s[ph - 1] : 0);
        printf(" %s|%s", ar_fmt_time(d, b1, sizeof b1),
               ev->have_walk && ph < ev->walk.nstages ? ar_fmt_time(ev->walk.stages[ph].time_s, b2, sizeof b2) : "-");
    }
    printf("%s\n", r->nphases > 12 ? " ..." : "");
    if (r->bottleneck >= 0)
        printf("    bottleneck: %s: %s at full rate, busy %s, utilisation %.1f%%, up to %d transfers at once\n",
               w->bottleneck, ar_fmt_time(load_s(p, r, r->bottleneck), b1, sizeof b1),
               ar_fmt_time(r->link_busy_s[r->bottleneck], b2, sizeof b2), 100 * w->bottleneck_util,
               r->link_max_flows[r->bottleneck]);
    print_links(c->sim, p, r, 5);
}

/* Plans, prices and simulates algorithm ai on platform pi at size si; one row. Returns the
 * worst status (AR_EINVAL stops the verb). */
static ar_status sim_point(sim_run_ctx *c, int pi, int si, int ai, const lab_nccl_pick *nccl) {
    const cli_opts *o = &c->o;
    const ar_platform *p = c->plats[pi];
    const char *algo = c->algos[ai];
    size_t eb = ar_dtype_size(o->dtype);
    double bytes = (double)c->counts[si] * (double)eb;
    int stream = o->format != FMT_TABLE, planned;
    char szb[32], tr[1024];
    cli_status("sim %d/%d: %s on %s, %s ...", (pi * o->nsizes + si) * c->na + ai + 1, c->nruns, algo, p->name,
               ar_fmt_bytes(bytes, szb, sizeof szb)); /* a terminal only; erased below */
    if (o->trace && c->nruns > 1) {
        char tag[256];
        snprintf(tag, sizeof tag, "%s-%s-%s", algo, p->name, o->sizes[si]);
        trace_name(o->trace, tag, tr, sizeof tr);
    } else if (o->trace) {
        snprintf(tr, sizeof tr, "%s", o->trace);
    }
    lab_eval ev;
    lab_eval_opts eo = {.chunks = c->a.chunks, .coll = o->coll, .start_s = c->delays[pi]};
    ar_sim_opts so = sim_opts_for(c, pi, o->trace ? tr : NULL);
    ar_sim_result r;
    ar_err e = {{0}};
    ar_status st = lab_sim_point(p, algo, c->counts[si], eb, &eo, &so, c->a.model_only, &ev, &r, &planned, &e);
    cli_status(NULL);
    lab_simrow w;
    if (!planned && st != AR_EUNSUPPORTED && st != AR_ELIMIT) return cli_error(st, &e);
    if (st != AR_OK && st != AR_EFAIL) { /* a row saying why, never a silent gap */
        ar_status worst = planned ? cli_error(st, &e) : AR_OK;
        if (planned) lab_eval_free(&ev);
        if (st == AR_EINVAL) return worst;
        lab_simrow_why(&w, algo, p, bytes, st == AR_ELIMIT ? "limit" : planned ? "error" : "unsupported", e.msg);
        int row = tbl_put_row(&c->t, lab_simrow_cols, lab_simrow_ncols, &w, w.simulated, c->a.tfmt);
        if (stream && row >= 0) tbl_stream_row(&c->t, row, o->format, stdout);
        if (!planned && o->format == FMT_TABLE && !c->a.brief) printf("  %s: not applicable: %s\n", algo, e.msg);
        return worst;
    }
    c->napplied++;
    ar_status worst = st == AR_EFAIL ? cli_error(st, &e) : AR_OK;
    lab_simrow_simulated(&w, algo, p, bytes, o->coll, &ev, &r, st, e.msg, o->check, c->a.model_only, nccl,
                         c->scen ? c->scen->name : NULL);
    int row = tbl_put_row(&c->t, lab_simrow_cols, lab_simrow_ncols, &w, w.simulated, c->a.tfmt);
    if (stream) tbl_stream_row(&c->t, row, o->format, stdout);
    if (o->format == FMT_TABLE && !c->a.brief) print_detail(c, p, algo, &ev, &r, &w, st);
    c->sim->result_free(&r);
    lab_eval_free(&ev);
    return worst;
}

/* The end of the table format: the network, the semantics, the scenario, and the main columns. */
static void print_summary(const sim_run_ctx *c) {
    printf("\nnetwork: %s\nsemantics: %s\n\n", c->netdesc,
           c->a.sync == AR_SYNC_DATAFLOW ? "dataflow (every rank advances on its own data; --sync round for lockstep)"
                                         : "round (lockstep: an op's round after all of the previous, a phase after "
                                           "all of the previous)");
    if (c->scen) {
        char sd[400];
        ar_scenario_describe(c->scen, sd, sizeof sd);
        printf("scenario: %s from %s; the walk starts each late rank late (dataflow), the closed form adds "
               "the largest start delay (%g s); background flows are not in the walk, only in the simulation "
               "(and in its link statistics)\n\n",
               sd, c->scen->source, ar_scenario_max_delay(c->scen));
    }
    static const char *const keep[] = {"algo",      "platform", "ranks",    "bytes",          "sim_s",
                                       "model_s",   "rel_err",  "closed_s", "closed_rel_err", "busbw_GBps",
                                       "transfers", "wall_s",   "check",    "status"};
    cli_table s;
    tbl_select(&s, &c->t, keep, (int)(sizeof keep / sizeof keep[0]), NULL, NULL);
    tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
}

int cmd_sim(int argc, char **argv) {
    sim_run_ctx c = {.sim = lab_sim()};
    if (!c.sim) {
        fprintf(stderr, "arlab sim: this build has no SimGrid backend (install libsimgrid-dev, pkg-config simgrid, "
                        "and reconfigure)\n");
        return AR_EUNSUPPORTED;
    }
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sim_help(c.sim);
            return AR_OK;
        }
    if (sim_parse(argc, argv, &c.a, &c.o) != AR_OK || cli_load_scenario(&c.o, &c.scen) != AR_OK) return AR_EINVAL;
    ar_status worst;
    if (c.scen && c.scen->njobs) { /* several jobs sharing the fabric: one simulation, a row per job */
        worst = sim_jobs_checked(c.sim, &c.o, c.scen, &c.a);
        goto out;
    }
    if ((worst = sim_prepare(&c)) != AR_OK) goto out;
    cols_init();
    tbl_init(&c.t, NCOLS, cols);
    c.t.digits = c.a.digits;
    if (c.o.format != FMT_TABLE) tbl_stream_begin(&c.t, c.o.format, stdout);
    for (int pi = 0; pi < c.o.nplatforms && worst != AR_EINVAL; pi++)
        for (int si = 0; si < c.o.nsizes && worst != AR_EINVAL; si++) {
            if (c.o.format == FMT_TABLE && !c.a.brief) {
                char b[32];
                printf("== %s (%d ranks), %s ==\n", c.plats[pi]->name, c.plats[pi]->nranks,
                       ar_fmt_bytes((double)c.counts[si] * (double)ar_dtype_size(c.o.dtype), b, sizeof b));
            }
            lab_nccl_pick nccl; /* what NCCL's tuner would do here */
            ar_err ne = {{0}};
            (void)lab_nccl_choice(c.plats[pi], (int)c.o.coll, (double)c.counts[si] * (double)ar_dtype_size(c.o.dtype),
                                  &nccl.time_s, &nccl.algo, &nccl.proto, &ne);
            for (int ai = 0; ai < c.na && worst != AR_EINVAL; ai++) {
                ar_status st = sim_point(&c, pi, si, ai, &nccl);
                if (st != AR_OK) worst = st;
            }
        }
    if (c.a.ntfmt) cli_print_nccltests(&c.t, c.a.model_only ? "model_s" : "sim_s", "sim", &c.o);
    else if (c.o.format == FMT_TABLE && c.a.brief) print_brief(&c.t);
    else if (c.o.format == FMT_TABLE) print_summary(&c);
    else tbl_stream_end(&c.t, c.o.format, stdout);
    tbl_free(&c.t);
    if (c.napplied == 0 && worst == AR_OK) {
        fprintf(stderr, "arlab sim: no algorithm applies to the platform(s) asked (see the rows' why)\n");
        worst = AR_EUNSUPPORTED;
    }
out:
    sim_ctx_free(&c);
    return worst;
}
