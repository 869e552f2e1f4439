/* arlab plan --algo A --platform P [--size S] [--coll C] [--check] [--format table|json]
 * Prints the schedule; the reduce/broadcast calls per rank, per phase and
 * overall (a call = an op the rank takes part in; avg over all ranks, max);
 * where the algorithm has a calls table (its descriptor's `calls`: FlexReduce)
 * also the calls per learner per level in the paper's sense (plan entries whose
 * destination is the learner, Fig. 4(c)) against the Eq. 12 bound; and, with --check, the symbolic validator's and the host
 * executor's verdicts. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void call_summary(const int *calls, int n, double *avg, int *max) {
    long long sum = 0;
    *max = 0;
    for (int r = 0; r < n; r++) {
        sum += calls[r];
        if (calls[r] > *max) *max = calls[r];
    }
    *avg = n ? (double)sum / n : 0;
}

static int op_reduces(const ar_op *op) {
    return op->kind == AR_OP_REDUCE_SCATTER || op->kind == AR_OP_REDUCE || op->kind == AR_OP_ALL_REDUCE ||
           (op->kind == AR_OP_SEND && op->reduce);
}

/* One row per phase: reduce and broadcast calls per rank (avg, max). */
static ar_status phase_calls_table(const ar_schedule *s, cli_table *t) {
    static const char *const cols[] = {"phase", "label", "reduce_avg", "reduce_max", "bcast_avg", "bcast_max"};
    tbl_init(t, 6, cols);
    int *red = ar_calloc((size_t)s->nranks, sizeof *red), *bc = ar_calloc((size_t)s->nranks, sizeof *bc);
    if (!red || !bc) {
        free(red);
        free(bc);
        return AR_ENOMEM;
    }
    for (int ph = 0; ph < s->nphases; ph++) {
        memset(red, 0, (size_t)s->nranks * sizeof *red);
        memset(bc, 0, (size_t)s->nranks * sizeof *bc);
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            for (int m = 0; m < op->n; m++) (op_reduces(op) ? red : bc)[op->members[m]]++;
        }
        double ra, ba;
        int rm, bm, r = tbl_row(t);
        call_summary(red, s->nranks, &ra, &rm);
        call_summary(bc, s->nranks, &ba, &bm);
        tbl_int(t, r, 0, ph);
        tbl_str(t, r, 1, s->phases[ph].label ? s->phases[ph].label : "");
        tbl_num(t, r, 2, "%.3f", ra);
        tbl_int(t, r, 3, rm);
        tbl_num(t, r, 4, "%.3f", ba);
        tbl_int(t, r, 5, bm);
    }
    free(red);
    free(bc);
    return AR_OK;
}

/* The algorithm's calls table (FlexReduce: calls per learner per level,
 * Fig. 4(c), against the Eq. 12 bound; algos/flexreduce_stats.c) as a table. */
static void calls_table(const ar_algo_calls *c, cli_table *t) {
    static const char *const cols[] = {"level",     "reduce_avg",     "reduce_max",  "bcast_avg",
                                       "bcast_max", "eq12_bound_max", "within_bound"};
    tbl_init(t, 7, cols);
    for (int i = 0; i < c->nrows; i++) {
        const ar_algo_calls_row *x = &c->rows[i];
        int row = tbl_row(t);
        if (x->level >= 0) tbl_int(t, row, 0, x->level);
        else tbl_str(t, row, 0, "all");
        tbl_num(t, row, 1, "%.3f", x->avg); /* the all-gather replays the same entries: equal counts */
        tbl_int(t, row, 2, x->max);
        tbl_num(t, row, 3, "%.3f", x->avg);
        tbl_int(t, row, 4, x->max);
        if (x->bound_max >= 0) tbl_int(t, row, 5, x->bound_max);
        else tbl_str(t, row, 5, "");
        tbl_str(t, row, 6, x->within ? "yes" : "NO");
    }
}

int cmd_plan(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv,
                  OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK | OPT_COLL, &o,
                  "plan") != AR_OK)
        return AR_EINVAL;
    if (o.nplatforms != 1 || o.nalgos != 1 || o.nsizes > 1 || !strcmp(o.algos[0], "all")) {
        fprintf(stderr, "arlab plan: give one --algo A and one --platform P (and at most one --size)\n");
        return AR_EINVAL;
    }
    if (o.format == FMT_CSV) {
        fprintf(stderr, "arlab plan: --format csv is not available for schedules (use table or json)\n");
        return AR_EINVAL;
    }
    if (o.nsizes == 0) o.sizes[o.nsizes++] = "1M";
    uint64_t count;
    if (cli_size(&o, 0, &count) != AR_OK) return AR_EINVAL;
    ar_platform *p;
    ar_status st = cli_load_platform(&o, 0, &p);
    if (st != AR_OK) return st;
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    st = ar_algo_plan_coll(o.algos[0], o.coll, p, count, ar_dtype_size(o.dtype), &s, &e);
    if (st != AR_OK) {
        ar_platform_free(p);
        return cli_error(st, &e);
    }
    ar_call_stats cs;
    cli_table phases = {0}, fr = {0};
    ar_algo_calls calls = {0};
    st = ar_schedule_call_stats(s, &cs, &e);
    int have_cs = st == AR_OK;
    if (st == AR_OK && (st = phase_calls_table(s, &phases)) != AR_OK) ar_fail(&e, st, "out of memory");
    if (st == AR_OK) st = ar_algo_calls_of(o.algos[0], p, &calls, &e);
    int is_fr = calls.nrows > 0, fr_holds = calls.holds;
    if (st == AR_OK && is_fr) calls_table(&calls, &fr);
    ar_algo_calls_free(&calls);
    if (st == AR_OK) {
        double ravg, bavg;
        int rmax, bmax;
        call_summary(cs.reduce_calls, s->nranks, &ravg, &rmax);
        call_summary(cs.bcast_calls, s->nranks, &bavg, &bmax);
        if (o.format == FMT_JSON) {
            printf("{\"platform\":\"%s\",\"reduce_calls_avg\":%.6g,\"reduce_calls_max\":%d,"
                   "\"bcast_calls_avg\":%.6g,\"bcast_calls_max\":%d,\"phase_calls\":",
                   p->name, ravg, rmax, bavg, bmax);
            tbl_print(&phases, FMT_JSON, stdout);
            if (is_fr) {
                printf(",\"flexreduce_calls_per_learner\":");
                tbl_print(&fr, FMT_JSON, stdout);
            }
            printf(",\"schedule\":");
            st = ar_schedule_print_json(s, stdout, &e);
            printf("}\n");
        } else {
            ar_schedule_print_table(s, stdout);
            printf("\ncalls per rank per phase (ops a rank takes part in; avg over all %d ranks):\n", s->nranks);
            tbl_print(&phases, FMT_TABLE, stdout);
            printf("calls per rank: reduce avg %.3f max %d, broadcast avg %.3f max %d\n", ravg, rmax, bavg, bmax);
            if (is_fr) {
                printf("\nFlexReduce calls per learner (Fig. 4(c): plan entries whose destination is the learner; "
                       "Eq. 12 bounds them per level, level 0 is exactly 1):\n");
                tbl_print(&fr, FMT_TABLE, stdout);
            }
        }
    }
    if (have_cs) ar_call_stats_free(&cs);
    if (st == AR_OK && o.check) {
        FILE *msg = o.format == FMT_JSON ? stderr : stdout;
        st = ar_schedule_validate(s, &e);
        static const char *const ok[AR_COLL_COUNT] = {"ok (every element of every rank holds every input exactly once)",
                                                      "ok (block i of rank i holds every input exactly once)",
                                                      "ok (every rank holds every block)"};
        fprintf(msg, "validator: %s\n", st == AR_OK ? ok[s->coll] : e.msg);
        if (st == AR_OK) {
            st = ar_schedule_execute_host(s, 0, &e);
            fprintf(msg, "host executor: %s\n",
                    st == AR_OK ? (s->coll == AR_COLL_ALLGATHER       ? "ok (every block on every rank)"
                                   : s->coll == AR_COLL_REDUCESCATTER ? "ok (exact sum of block i on rank i)"
                                                                      : "ok (exact sums on every rank)")
                                : e.msg);
        }
        if (st != AR_OK) cli_error(st, &e);
    } else if (st != AR_OK) {
        cli_error(st, &e);
    }
    if (st == AR_OK && !fr_holds) {
        fprintf(stderr, "arlab plan: a learner makes more reduce calls than the Eq. 12 bound\n");
        st = AR_EFAIL;
    }
    tbl_free(&phases);
    tbl_free(&fr);
    ar_schedule_free(s);
    ar_platform_free(p);
    return st;
}
