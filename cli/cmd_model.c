/* arlab model --platform P [--platform P2 ...] --size S[,S2...] [--algo A|all ...]
 * For each platform, size and algorithm: the paper's closed form (closed_s),
 * the generic cost walk over the planned schedule (walk_s), model_s (closed
 * form where one exists, else the walk), and the per-stage breakdown, all
 * from the one evaluation path (lab/eval.h). --digits N (1..17, default 9):
 * significant digits of model_s, closed_s and walk_s. */
#include <math.h>
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

int cmd_model(int argc, char **argv) {
    /* this verb's own flag: --digits N (significant digits of the time columns; default 9) */
    char *rest[CLI_MAX_LIST * 4];
    int nrest = 0, digits = 9;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--digits") || !strncmp(a, "--digits=", 9)) {
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
    char tfmt[16];
    snprintf(tfmt, sizeof tfmt, "%%.%dg", digits);
    argc = nrest;
    argv = rest;
    cli_opts o;
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT, &o, "model") !=
        AR_OK)
        return AR_EINVAL;
    if (o.nplatforms == 0) {
        fprintf(stderr, "arlab model: give --platform P (see 'arlab platforms')\n");
        return AR_EINVAL;
    }
    if (o.nsizes == 0) o.sizes[o.nsizes++] = "100MB";
    if (o.nalgos == 0) o.algos[o.nalgos++] = "all";
    const char *algos[CLI_MAX_LIST * 4];
    int na = cli_algo_list(&o, algos, CLI_MAX_LIST * 4);
    static const char *const cols[] = {"algo",     "platform", "ranks",    "bytes",  "model_s",
                                       "closed_s", "walk_s",   "rel_diff", "detail", "stages"};
    cli_table t;
    tbl_init(&t, 10, cols);
    ar_status worst = AR_OK;
    for (int pi = 0; pi < o.nplatforms; pi++) {
        ar_platform *p;
        ar_status st = cli_load_platform(&o, pi, &p);
        if (st != AR_OK) {
            tbl_free(&t);
            return st;
        }
        for (int si = 0; si < o.nsizes; si++) {
            uint64_t count;
            if (cli_size(&o, si, &count) != AR_OK) {
                ar_platform_free(p);
                tbl_free(&t);
                return AR_EINVAL;
            }
            size_t eb = ar_dtype_size(o.dtype);
            if (o.format == FMT_TABLE) {
                char b[32];
                printf("== %s (%d ranks), %s ==\n", p->name, p->nranks,
                       ar_fmt_bytes((double)count * (double)eb, b, sizeof b));
            }
            for (int ai = 0; ai < na; ai++) {
                ar_err e = {{0}};
                lab_eval ev;
                st = lab_eval_model(p, algos[ai], count, eb, NULL, &ev, &e);
                if (st == AR_EUNSUPPORTED || st == AR_ELIMIT) {
                    if (o.format == FMT_TABLE) printf("  %s: not applicable: %s\n", algos[ai], e.msg);
                    continue;
                }
                if (st != AR_OK) {
                    ar_platform_free(p);
                    tbl_free(&t);
                    return cli_error(st, &e);
                }
                if (ev.have_walk) {
                } else if (ev.walk_status == AR_ENOMEM || ev.walk_status == AR_ELIMIT) {
                    fprintf(stderr, "arlab: note: %s\n", ev.walk_err.msg); /* a documented limit */
                } else {
                    worst = cli_error(ev.walk_status, &ev.walk_err);
                }
                int r = tbl_row(&t);
                tbl_str(&t, r, 0, algos[ai]);
                tbl_str(&t, r, 1, p->name);
                tbl_int(&t, r, 2, p->nranks);
                tbl_num(&t, r, 3, "%.0f", (double)count * (double)eb);
                tbl_num(&t, r, 4, tfmt, ev.model_s);
                tbl_num(&t, r, 5, tfmt, ev.closed_s);
                tbl_num(&t, r, 6, tfmt, ev.walk_s);
                tbl_num(&t, r, 7, "%.3g", ev.rel_diff);
                tbl_str(&t, r, 8, ev.detail);
                char st_buf[2048] = "";
                if (ev.model) stages_str(ev.model, st_buf, sizeof st_buf);
                tbl_str(&t, r, 9, st_buf);
                if (o.format == FMT_TABLE) {
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
        }
        ar_platform_free(p);
    }
    if (o.format == FMT_TABLE) {
        printf("\nSummary\n");
        static const char *const keep[] = {"algo", "platform", "ranks", "bytes", "model_s", "walk_s", "rel_diff"};
        cli_table s;
        tbl_init(&s, 7, keep);
        for (int r = 0; r < t.nrows; r++) {
            int nr = tbl_row(&s);
            static const int src[] = {0, 1, 2, 3, 4, 6, 7};
            for (int c = 0; c < 7; c++) {
                const cli_cell *cl = &t.cells[(size_t)r * 10 + (size_t)src[c]];
                tbl_str(&s, nr, c, cl->s);
                s.cells[(size_t)nr * 7 + (size_t)c].numeric = cl->numeric;
            }
        }
        tbl_print(&s, FMT_TABLE, stdout);
        tbl_free(&s);
    } else {
        tbl_print(&t, o.format, stdout);
    }
    tbl_free(&t);
    return worst;
}
