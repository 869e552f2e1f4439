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
#include "lab/eval.h"

static void stages_str(const ar_model_result *m, char *buf, size_t n) {
    buf[0] = 0;
    for (int i = 0; i < m->nstages; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s:%s:p=%d:%.6g", i ? ";" : "", m->stages[i].label, m->stages[i].impl,
                 m->stages[i].p, m->stages[i].time_s);
    }
}

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

static const char *const cols[] = {"algo",         "platform",  "ranks",      "bytes",  "model_s",    "closed_s",
                                   "walk_s",       "rel_diff",  "detail",     "stages", "algbw_GBps", "busbw_GBps",
                                   "nccl_model_s", "nccl_algo", "nccl_proto", "status", "why",        "scenario"};
enum { NCOLS = sizeof cols / sizeof cols[0], C_MODEL = 4, C_ALGBW = 10, C_STATUS = 15, C_WHY = 16, C_SCEN = 17 };

/* The summary of one platform and size: one line per algorithm, the fastest marked. */
static void print_summary(const cli_table *t, int from, int to, double nccl_s, const char *nalgo, const char *nproto) {
    static const char *const sc[] = {"", "algo", "model_s", "algbw_GBps", "busbw_GBps", "vs_nccl", "note"};
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
        tbl_num(&s, nr, 4, "%.4g", row[C_ALGBW + 1].has_v ? row[C_ALGBW + 1].v : NAN);
        tbl_num(&s, nr, 5, "%.3g", row[C_MODEL].has_v && isfinite(nccl_s) ? nccl_s / row[C_MODEL].v : NAN);
        char note[300];
        if (strcmp(row[C_STATUS].s, "ok")) snprintf(note, sizeof note, "%s: %s", row[C_STATUS].s, row[C_WHY].s);
        else
            snprintf(note, sizeof note, "%s%s%s", r == best ? "fastest" : "", r == best && row[8].s[0] ? "; " : "",
                     row[8].s);
        tbl_str(&s, nr, 6, note);
    }
    tbl_print(&s, FMT_TABLE, stdout);
    tbl_free(&s);
    if (nna) cli_print_na(stdout, t->cells[(size_t)from * NCOLS + 1].s, na, naw, nna);
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

int cmd_model(int argc, char **argv) {
    /* this verb's own flags: --digits N (significant digits of the times in the tables; default 4), --detail */
    char *rest[CLI_MAX_LIST * 4];
    int nrest = 0, digits = 0, detail = 0, ntfmt = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--detail")) {
            detail = 1;
        } else if (cli_format_nccltests(argc, argv, &i)) {
            ntfmt = 1; /* the table's rows, printed as nccl-tests documents at the end */
        } else if (!strcmp(a, "--digits") || !strncmp(a, "--digits=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            long long d;
            ar_err de = {{0}};
            if (!v || ar_parse_count(v, 1, 17, &d, &de) != AR_OK) {
                fprintf(stderr, "arlab model: --digits: give an integer in 1..17\n");
                return AR_EINVAL;
            }
            digits = (int)d;
        } else if (nrest < (int)(sizeof rest / sizeof rest[0])) {
            rest[nrest++] = argv[i];
        } else {
            fprintf(stderr, "arlab model: too many arguments\n");
            return AR_EINVAL;
        }
    }
    if (ntfmt) detail = 0; /* nccl-tests' table has no stages */
    char tfmt[16];
    snprintf(tfmt, sizeof tfmt, "%%.%dg", digits ? digits : 9);
    argc = nrest;
    argv = rest;
    cli_opts o;
    if (cli_parse(argc, argv,
                  OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_COLL | OPT_SCENARIO |
                      OPT_GAMMA,
                  &o, "model") != AR_OK)
        return AR_EINVAL;
    /* --scenario: slow and failed links come with the platform (cli_load_platform); a late rank adds its delay
     * (every rank's result needs every rank's data); background flows are not in the walk (the note says so) */
    ar_scenario *scen = NULL;
    if (cli_load_scenario(&o, &scen) != AR_OK) return AR_EINVAL;
    if (scen && scen->njobs) {
        fprintf(stderr, "arlab model: %s: jobs share the fabric only in a simulation (arlab sim --scenario %s)\n",
                scen->source, scen->source);
        ar_scenario_free(scen);
        return AR_EUNSUPPORTED;
    }
    double scen_delay = ar_scenario_max_delay(scen);
    char scen_note[200] = "";
    if (scen && scen->nflows)
        snprintf(scen_note, sizeof scen_note,
                 "scenario %s: background flows (%d) are not in the walk (arlab sim runs them)", scen->name,
                 scen->nflows);
    if (o.nplatforms == 0) {
        fprintf(stderr, "arlab model: give --platform P (see 'arlab platforms')\n");
        return AR_EINVAL;
    }
    if (o.nsizes == 0) o.sizes[o.nsizes++] = "100MB";
    if (o.nalgos == 0) o.algos[o.nalgos++] = "all";
    const char *algos[CLI_MAX_LIST * 4];
    int na = cli_algo_list(&o, algos, CLI_MAX_LIST * 4);
    /* every platform, size, algorithm and schedule checked before anything is printed */
    ar_platform *plats[CLI_MAX_LIST];
    uint64_t counts[CLI_MAX_LIST];
    ar_status st = cli_preflight(&o, algos, na, plats, counts, o.nsizes);
    if (st != AR_OK) {
        ar_scenario_free(scen);
        return st;
    }
    cli_table t;
    tbl_init(&t, NCOLS, cols);
    t.digits = digits;
    int stream = o.format != FMT_TABLE, napplied = 0;
    if (stream) tbl_stream_begin(&t, o.format, stdout);
    ar_status worst = AR_OK;
    for (int pi = 0; pi < o.nplatforms; pi++) {
        ar_platform *p = plats[pi];
        plats[pi] = NULL;
        double *delays = scen_delay > 0 ? calloc((size_t)p->nranks, sizeof *delays) : NULL; /* late ranks */
        if (delays) ar_scenario_delays(scen, p->nranks, delays);
        for (int si = 0; si < o.nsizes; si++) {
            uint64_t count = counts[si];
            size_t eb = ar_dtype_size(o.dtype);
            double bytes = (double)count * (double)eb;
            if (o.format == FMT_TABLE && !ntfmt) {
                char b[32];
                printf("%s== %s (%d ranks), %s ==\n", pi + si ? "\n" : "", p->name, p->nranks,
                       ar_fmt_bytes(bytes, b, sizeof b));
            }
            /* what NCCL's tuner would do here (one value for every algorithm of the group) */
            double nccl_s;
            const char *nalgo, *nproto;
            ar_err ne = {{0}};
            (void)lab_nccl_choice(p, (int)o.coll, bytes, &nccl_s, &nalgo, &nproto, &ne);
            int from = t.nrows;
            for (int ai = 0; ai < na; ai++) {
                ar_err e = {{0}};
                lab_eval ev;
                lab_eval_opts eo = {.coll = o.coll, .start_s = delays};
                st = lab_eval_model(p, algos[ai], count, eb, &eo, &ev, &e);
                int r = tbl_row(&t);
                tbl_str(&t, r, 0, algos[ai]);
                tbl_str(&t, r, 1, p->name);
                tbl_int(&t, r, 2, p->nranks);
                tbl_num(&t, r, 3, "%.0f", bytes);
                tbl_num(&t, r, 12, tfmt, nccl_s);
                tbl_str(&t, r, 13, nalgo);
                tbl_str(&t, r, 14, nproto);
                tbl_str(&t, r, C_SCEN, scen ? scen->name : "-");
                if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) { /* a row saying why, never a silent gap */
                    for (int c = 4; c < 12; c++)
                        if (c != 8 && c != 9) tbl_num(&t, r, c, "%g", NAN);
                    tbl_str(&t, r, C_STATUS, st == AR_ELIMIT ? "limit" : "unsupported");
                    tbl_str(&t, r, C_WHY, e.msg);
                    if (stream) tbl_stream_row(&t, r, o.format, stdout);
                    else if (detail) printf("  %s: not applicable: %s\n", algos[ai], e.msg);
                    continue;
                }
                if (st != AR_OK) {
                    for (int k = 0; k < o.nplatforms; k++) ar_platform_free(plats[k]);
                    ar_platform_free(p);
                    free(delays);
                    ar_scenario_free(scen);
                    if (stream) tbl_stream_end(&t, o.format, stdout);
                    tbl_free(&t);
                    return cli_error(st, &e);
                }
                napplied++;
                char whyb[sizeof scen_note + sizeof ev.model_why + 2];
                snprintf(whyb, sizeof whyb, "%s%s%s", ev.model_why, ev.model_why[0] && scen_note[0] ? "; " : "",
                         scen_note);
                const char *why = whyb;
                if (ev.have_walk) {
                } else if (ev.walk_status == AR_ENOMEM || ev.walk_status == AR_ELIMIT) {
                    fprintf(stderr, "arlab: note: %s\n", ev.walk_err.msg); /* a documented limit */
                    why = ev.walk_err.msg;
                } else {
                    worst = cli_error(ev.walk_status, &ev.walk_err);
                    why = ev.walk_err.msg;
                }
                tbl_num(&t, r, 4, tfmt, ev.model_s);
                tbl_num(&t, r, 5, tfmt, ev.closed_s);
                tbl_num(&t, r, 6, tfmt, ev.walk_s);
                tbl_num(&t, r, 7, "%.3g", ev.rel_diff);
                tbl_str(&t, r, 8, ev.detail);
                char st_buf[2048] = "";
                if (ev.model) stages_str(ev.model, st_buf, sizeof st_buf);
                tbl_str(&t, r, 9, st_buf);
                tbl_num(&t, r, 10, "%.6g", lab_algbw_GBps(bytes, ev.model_s));
                tbl_num(&t, r, 11, "%.6g", lab_busbw_GBps((int)o.coll, p->nranks, bytes, ev.model_s));
                tbl_str(&t, r, C_STATUS, "ok");
                tbl_str(&t, r, C_WHY, why);
                if (stream) tbl_stream_row(&t, r, o.format, stdout);
                if (o.format == FMT_TABLE && detail) {
                    char b1[32], b2[32];
                    printf("  %-22s model %-10s walk %-10s%s%s\n", algos[ai],
                           ev.model ? ar_fmt_time(ev.model_s, b1, sizeof b1) : "-",
                           ev.have_walk ? ar_fmt_time(ev.walk_s, b2, sizeof b2) : "-", ev.sch->detail ? "  " : "",
                           ev.detail);
                    if (ev.have_closed) print_stages(algos[ai], "closed form", &ev.closed);
                    if (ev.have_walk) print_stages(algos[ai], "schedule walk", &ev.walk);
                }
                lab_eval_free(&ev);
            }
            if (o.format == FMT_TABLE && !detail && !ntfmt) print_summary(&t, from, t.nrows, nccl_s, nalgo, nproto);
        }
        free(delays);
        ar_platform_free(p);
    }
    if (o.format == FMT_TABLE && detail) {
        printf("\nSummary\n");
        static const char *const keep[] = {"algo",   "platform", "ranks",      "bytes",       "model_s",
                                           "walk_s", "rel_diff", "busbw_GBps", "nccl_model_s"};
        static const int src[] = {0, 1, 2, 3, 4, 6, 7, 11, 12};
        enum { NK = sizeof src / sizeof src[0] };
        cli_table s;
        tbl_init(&s, NK, keep);
        s.digits = digits;
        for (int r = 0; r < t.nrows; r++) {
            if (strcmp(t.cells[(size_t)r * NCOLS + C_STATUS].s, "ok")) continue;
            int nr = tbl_row(&s);
            for (int c = 0; c < NK; c++) {
                const cli_cell *cl = &t.cells[(size_t)r * NCOLS + (size_t)src[c]];
                tbl_copy_cell(&s, nr, c, cl);
            }
        }
        tbl_print(&s, FMT_TABLE, stdout);
        tbl_free(&s);
    }
    if (stream) tbl_stream_end(&t, o.format, stdout);
    if (ntfmt) cli_print_nccltests(&t, "model_s", "model", &o);
    tbl_free(&t);
    if (scen && o.format == FMT_TABLE && !ntfmt) {
        char sd[400];
        ar_scenario_describe(scen, sd, sizeof sd);
        printf("scenario: %s from %s; the walk starts each late rank late (dataflow), the closed form adds the "
               "largest start delay (%g s)%s\n",
               sd, scen->source, scen_delay,
               scen->nflows ? "; background flows are not in the walk (arlab sim runs them)" : "");
    }
    ar_scenario_free(scen);
    if (napplied == 0 && worst == AR_OK) {
        fprintf(stderr, "arlab model: no algorithm applies to the platform(s) asked (see the rows' why)\n");
        worst = AR_EUNSUPPORTED;
    }
    return worst;
}
