/* arlab model --platform P [--platform P2 ...] --size S[,S2...] [--algo A|all ...] [--detail]
 * For each platform, size and algorithm: the paper's closed form (closed_s),
 * the generic cost walk over the planned schedule (walk_s), model_s (closed
 * form where it agrees with the walk, else the walk: lab/eval.h), nccl-tests' algbw_GBps and busbw_GBps
 * of model_s, and what NCCL's own tuner would choose (nccl_model_s,
 * nccl_algo, nccl_proto: models/nccl_model.h; empty where it does not apply),
 * all from the one evaluation path (lab/eval.h).
 * The table (default) is a summary: one line per algorithm, the fastest marked;
 * --detail adds the per-stage breakdown. CSV and JSON carry every column at
 * full precision (%.17g; missing: empty in CSV, null in JSON), one row per
 * algorithm written as soon as it is priced; an algorithm that does not apply
 * (or hits a documented limit) gets a row with status and why. --digits N
 * (1..17, default 4): significant digits of the times in the tables (CSV/JSON: always 17). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "lab/eval.h"
#include "lab/modelrow.h"

static void print_stages(const char *algo, const char *what, const ar_model_result *m) {
    char b1[32], b2[32], b3[32], b4[32];
    printf("  %s (%s)%s%s\n", algo, what, m->note[0] ? ": " : "", m->note);
    for (int i = 0; i < m->nstages; i++) {
        const ar_model_stage *s = &m->stages[i];
        printf("    %-34s %-8s p=%-4d data %-10s bw %-12s alpha %-8s %s\n", s->label, s->impl, s->p,
               ar_fmt_bytes(s->bytes, b1, sizeof b1), ar_fmt_rate(s->bw_Bps, b2, sizeof b2),
               ar_fmt_time(s->lat_s, b3, sizeof b3), ar_fmt_time(s->time_s, b4, sizeof b4));
    }
}

/* The verb's columns: lab/modelrow.h's table, by name. */
static const char *cols[64];
#define NCOLS lab_modelrow_ncols
static int col(const char *name) { return lab_rowcol_find(lab_modelrow_cols, lab_modelrow_ncols, name); }

/* The summary of one platform and size: one line per algorithm, the fastest marked. */
static void print_summary(const cli_table *t, int from, int to, double nccl_s, const char *nalgo, const char *nproto) {
    static const char *const sc[] = {"", "algo", "model_s", "algbw_GBps", "busbw_GBps", "vs_nccl", "note"};
    const int C_MODEL = col("model_s"), C_ALGBW = col("algbw_GBps"), C_BUSBW = col("busbw_GBps"),
              C_STATUS = col("status"), C_WHY = col("why"), C_DETAIL = col("detail"), C_PLAT = col("platform");
    cli_table s;
    tbl_init(&s, 7, sc);
    s.digits = t->digits;
    tbl_set_unit(&s, 5, TBL_UNIT_RATIO);
    int best = -1;
    for (int r = from; r < to; r++) {
        const cli_cell *m = &t->cells[(size_t)r * NCOLS + C_MODEL];
        if (m->has_v && (best < 0 || m->v < t->cells[(size_t)best * NCOLS + C_MODEL].v)) best = r;
    }
    const char *na[CLI_MAX_LIST * 4], *naw[CLI_MAX_LIST * 4]; /* not applicable: one footer line */
    int nna = 0;
    for (int r = from; r < to; r++) {
        const cli_cell *row = &t->cells[(size_t)r * NCOLS];
        if (!strcmp(row[C_STATUS].s, "unsupported") && nna < CLI_MAX_LIST * 4) {
            na[nna] = row[0].s, naw[nna++] = row[C_WHY].s;
            continue;
        }
        int nr = tbl_row(&s);
        tbl_str(&s, nr, 0, r == best ? "*" : "");
        tbl_str(&s, nr, 1, row[0].s);
        tbl_num(&s, nr, 2, "%.4g", row[C_MODEL].has_v ? row[C_MODEL].v : NAN);
        tbl_num(&s, nr, 3, "%.4g", row[C_ALGBW].has_v ? row[C_ALGBW].v : NAN);
        tbl_num(&s, nr, 4, "%.4g", row[C_BUSBW].has_v ? row[C_BUSBW].v : NAN);
        tbl_num(&s, nr, 5, "%.3g", row[C_MODEL].has_v && isfinite(nccl_s) ? nccl_s / row[C_MODEL].v : NAN);
        char note[300];
        if (strcmp(row[C_STATUS].s, "ok")) snprintf(note, sizeof note, "%s: %s", row[C_STATUS].s, row[C_WHY].s);
        else
            snprintf(note, sizeof note, "%s%s%s", r == best ? "fastest" : "",
                     r == best && row[C_DETAIL].s[0] ? "; " : "", row[C_DETAIL].s);
        tbl_str(&s, nr, 6, note);
    }
    tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
    if (nna) cli_print_na(stdout, t->cells[(size_t)from * NCOLS + C_PLAT].s, na, naw, nna);
    for (int r = from; r < to; r++) { /* where model_s is the walk although a closed form exists: why */
        const cli_cell *row = &t->cells[(size_t)r * NCOLS];
        if (!strcmp(row[C_STATUS].s, "ok") && !strncmp(row[C_WHY].s, LAB_MODEL_WHY, strlen(LAB_MODEL_WHY)))
            printf("%s: %s\n", row[0].s, row[C_WHY].s);
    }
    char b[32];
    if (isfinite(nccl_s))
        printf("NCCL's tuner would run %s/%s: %s (nccl_model_s; vs_nccl = nccl_model_s / model_s, > 1: arlab's "
               "schedule is faster)\n",
               nalgo, nproto, ar_fmt_time(nccl_s, b, sizeof b));
}

/* The verb's own options (cli_parse takes the common ones). */
typedef struct model_args {
    int digits, detail, ntfmt;
    char tfmt[16]; /* the time columns' format (--digits) */
} model_args;

static ar_status model_parse(int argc, char **argv, model_args *a, cli_opts *o) {
    static const cli_ownopt own[] = {{"--detail", offsetof(model_args, detail)},
                                     {"--digits", offsetof(model_args, digits)}};
    memset(a, 0, sizeof *a);
    int nrest = 0;
    for (int i = 0; i < argc; i++) /* nccl-tests' table: the rows, printed as nccl-tests documents at the end */
        if (cli_format_nccltests(argc, argv, &i)) a->ntfmt = 1;
        else argv[nrest++] = argv[i];
    if (cli_take_own(&nrest, argv, own, 2, a, "model") != AR_OK) return AR_EINVAL;
    char **rest = argv;
    if (a->ntfmt) a->detail = 0; /* nccl-tests' table has no stages */
    snprintf(a->tfmt, sizeof a->tfmt, "%%.%dg", a->digits ? a->digits : 9);
    return cli_parse(nrest, rest,
                     OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_COLL | OPT_SCENARIO |
                         OPT_GAMMA,
                     o, "model") == AR_OK
               ? AR_OK
               : AR_EINVAL;
}

/* Everything one run of the verb works on, checked before anything is printed. */
typedef struct model_ctx {
    model_args a;
    cli_opts o;
    ar_scenario *scen; /* --scenario: slow and failed links come with the platform (cli_load_platform) */
    char scen_note[200];
    const char *algos[CLI_MAX_LIST * 4];
    int na, napplied;
    ar_platform *plats[CLI_MAX_LIST];
    uint64_t counts[CLI_MAX_LIST];
    cli_table t;
} model_ctx;

static ar_status model_prepare(model_ctx *c) {
    cli_opts *o = &c->o;
    if (c->scen && c->scen->njobs) {
        fprintf(stderr, "arlab model: %s: jobs share the fabric only in a simulation (arlab sim --scenario %s)\n",
                c->scen->source, c->scen->source);
        return AR_EUNSUPPORTED;
    }
    if (c->scen && c->scen->nflows) /* a late rank is in the walk; background flows are not */
        snprintf(c->scen_note, sizeof c->scen_note,
                 "scenario %s: background flows (%d) are not in the walk (arlab sim runs them)", c->scen->name,
                 c->scen->nflows);
    if (o->nplatforms == 0) {
        fprintf(stderr, "arlab model: give --platform P (see 'arlab platforms')\n");
        return AR_EINVAL;
    }
    if (o->nsizes == 0) o->sizes[o->nsizes++] = "100MB";
    if (o->nalgos == 0) o->algos[o->nalgos++] = "all";
    c->na = cli_algo_list(o, c->algos, CLI_MAX_LIST * 4);
    return cli_preflight(o, c->algos, c->na, c->plats, c->counts, o->nsizes);
}

/* Prices algorithm ai on p at `count` elements (delays: late ranks or NULL); one row. Returns an
 * evaluation error (which stops the verb) or AR_OK; a failing walk sets *worst and still writes the row. */
static ar_status model_point(model_ctx *c, const ar_platform *p, uint64_t count, int ai, const double *delays,
                             const lab_nccl_pick *nccl, ar_status *worst) {
    const cli_opts *o = &c->o;
    const char *algo = c->algos[ai];
    size_t eb = ar_dtype_size(o->dtype);
    double bytes = (double)count * (double)eb;
    const char *scen = c->scen ? c->scen->name : NULL;
    ar_err e = {{0}};
    lab_eval ev;
    lab_eval_opts eo = {.coll = o->coll, .start_s = delays};
    ar_status st = lab_eval_model(p, algo, count, eb, &eo, &ev, &e);
    lab_modelrow w;
    if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) { /* a row saying why, never a silent gap */
        lab_modelrow_why(&w, algo, p, bytes, nccl, scen, st == AR_ELIMIT ? "limit" : "unsupported", e.msg);
        int r = tbl_put_row(&c->t, lab_modelrow_cols, lab_modelrow_ncols, &w, 0, c->a.tfmt);
        if (o->format != FMT_TABLE) tbl_stream_row(&c->t, r, o->format, stdout);
        else if (c->a.detail) printf("  %s: not applicable: %s\n", algo, e.msg);
        return AR_OK;
    }
    if (st != AR_OK) return cli_error(st, &e);
    c->napplied++;
    char whyb[sizeof c->scen_note + sizeof ev.model_why + 2];
    snprintf(whyb, sizeof whyb, "%s%s%s", ev.model_why, ev.model_why[0] && c->scen_note[0] ? "; " : "", c->scen_note);
    const char *why = whyb;
    if (ev.have_walk) {
    } else if (ev.walk_status == AR_ENOMEM || ev.walk_status == AR_ELIMIT) {
        fprintf(stderr, "arlab: note: %s\n", ev.walk_err.msg); /* a documented limit */
        why = ev.walk_err.msg;
    } else {
        *worst = cli_error(ev.walk_status, &ev.walk_err);
        why = ev.walk_err.msg;
    }
    lab_modelrow_priced(&w, algo, p, bytes, o->coll, &ev, nccl, scen, why);
    int r = tbl_put_row(&c->t, lab_modelrow_cols, lab_modelrow_ncols, &w, 1, c->a.tfmt);
    if (o->format != FMT_TABLE) tbl_stream_row(&c->t, r, o->format, stdout);
    if (o->format == FMT_TABLE && c->a.detail) {
        char b1[32], b2[32];
        printf("  %-22s model %-10s walk %-10s%s%s\n", algo, ev.model ? ar_fmt_time(ev.model_s, b1, sizeof b1) : "-",
               ev.have_walk ? ar_fmt_time(ev.walk_s, b2, sizeof b2) : "-", ev.sch->detail ? "  " : "", ev.detail);
        if (ev.have_closed) print_stages(algo, "closed form", &ev.closed);
        if (ev.have_walk) print_stages(algo, "schedule walk", &ev.walk);
    }
    lab_eval_free(&ev);
    return AR_OK;
}

/* Every size and algorithm on platform pi; AR_OK or the first evaluation error (which stops the verb). */
static ar_status model_platform(model_ctx *c, int pi, ar_status *worst) {
    const ar_platform *p = c->plats[pi];
    const cli_opts *o = &c->o;
    double *delays = ar_scenario_max_delay(c->scen) > 0 ? calloc((size_t)p->nranks, sizeof *delays) : NULL;
    if (delays) ar_scenario_delays(c->scen, p->nranks, delays); /* late ranks */
    ar_status st = AR_OK;
    for (int si = 0; si < o->nsizes && st == AR_OK; si++) {
        double bytes = (double)c->counts[si] * (double)ar_dtype_size(o->dtype);
        if (o->format == FMT_TABLE && !c->a.ntfmt) {
            char b[32];
            printf("%s== %s (%d ranks), %s ==\n", pi + si ? "\n" : "", p->name, p->nranks,
                   ar_fmt_bytes(bytes, b, sizeof b));
        }
        lab_nccl_pick nccl; /* what NCCL's tuner would do here (one value for every algorithm of the group) */
        ar_err ne = {{0}};
        (void)lab_nccl_choice(p, (int)o->coll, bytes, &nccl.time_s, &nccl.algo, &nccl.proto, &ne);
        int from = c->t.nrows;
        for (int ai = 0; ai < c->na && st == AR_OK; ai++)
            st = model_point(c, p, c->counts[si], ai, delays, &nccl, worst);
        if (st == AR_OK && o->format == FMT_TABLE && !c->a.detail && !c->a.ntfmt)
            print_summary(&c->t, from, c->t.nrows, nccl.time_s, nccl.algo, nccl.proto);
    }
    free(delays);
    return st;
}

/* --detail's closing table: the main columns of every row that was priced. */
static void print_detail_summary(const model_ctx *c) {
    printf("\nSummary\n");
    static const char *const keep[] = {"algo",   "platform", "ranks",      "bytes",       "model_s",
                                       "walk_s", "rel_diff", "busbw_GBps", "nccl_model_s"};
    cli_table s;
    tbl_select(&s, &c->t, keep, (int)(sizeof keep / sizeof keep[0]), "status", "ok");
    tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
}

int cmd_model(int argc, char **argv) {
    model_ctx c = {.na = 0};
    if (model_parse(argc, argv, &c.a, &c.o) != AR_OK || cli_load_scenario(&c.o, &c.scen) != AR_OK) return AR_EINVAL;
    ar_status worst = model_prepare(&c), st = AR_OK;
    if (worst != AR_OK) goto out;
    for (int k = 0; k < lab_modelrow_ncols && k < 64; k++) cols[k] = lab_modelrow_cols[k].name;
    tbl_init(&c.t, NCOLS, cols);
    c.t.digits = c.a.digits;
    if (c.o.format != FMT_TABLE) tbl_stream_begin(&c.t, c.o.format, stdout);
    for (int pi = 0; pi < c.o.nplatforms && st == AR_OK; pi++) st = model_platform(&c, pi, &worst);
    if (st != AR_OK) { /* an evaluation error: the CSV/JSON closed, nothing more */
        if (c.o.format != FMT_TABLE) tbl_stream_end(&c.t, c.o.format, stdout);
        tbl_free(&c.t);
        worst = st;
        goto out;
    }
    if (c.o.format == FMT_TABLE && c.a.detail) print_detail_summary(&c);
    if (c.o.format != FMT_TABLE) tbl_stream_end(&c.t, c.o.format, stdout);
    if (c.a.ntfmt) cli_print_nccltests(&c.t, "model_s", "model", &c.o);
    tbl_free(&c.t);
    if (c.scen && c.o.format == FMT_TABLE && !c.a.ntfmt) {
        char sd[400];
        ar_scenario_describe(c.scen, sd, sizeof sd);
        printf("scenario: %s from %s; the walk starts each late rank late (dataflow), the closed form adds the "
               "largest start delay (%g s)%s\n",
               sd, c.scen->source, ar_scenario_max_delay(c.scen),
               c.scen->nflows ? "; background flows are not in the walk (arlab sim runs them)" : "");
    }
    if (c.napplied == 0 && worst == AR_OK) {
        fprintf(stderr, "arlab model: no algorithm applies to the platform(s) asked (see the rows' why)\n");
        worst = AR_EUNSUPPORTED;
    }
out:
    for (int pi = 0; pi < CLI_MAX_LIST; pi++) ar_platform_free(c.plats[pi]);
    ar_scenario_free(c.scen);
    return worst;
}
