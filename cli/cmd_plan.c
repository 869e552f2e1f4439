/* arlab plan --algo A --platform P [--size S] [--check] [--format table|json]
 * Prints the schedule; the reduce/broadcast calls per rank, per phase and
 * overall (a call = an op the rank takes part in; avg over all ranks, max);
 * for flexreduce also the calls per learner per level in the paper's sense
 * (plan entries whose destination is the learner, Fig. 4(c)) against the
 * Eq. 12 bound; and, with --check, the symbolic validator's and the host
 * executor's verdicts. */
#include <stdlib.h>
#include <string.h>

#include "algos/flexreduce.h"
#include "cli.h"
#include "models/model_topo.h"

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

/* FlexReduce: calls per learner per level (Fig. 4(c)) and the Eq. 12 bound.
 * *holds = 0 if some learner exceeds its bound. */
static ar_status fr_calls_table(const ar_platform *p, cli_table *t, int *holds, ar_err *e) {
    static const char *const cols[] = {"level", "reduce_avg", "reduce_max", "bcast_avg", "bcast_max", "eq12_bound_max",
                                       "within_bound"};
    tbl_init(t, 7, cols);
    ar_fr_plan *fp = NULL;
    ar_status st = ar_fr_plan_build(p, &fp, e);
    if (st != AR_OK) return st;
    int P = fp->nranks, L = fp->L;
    int *calls = ar_calloc((size_t)P * (size_t)L, sizeof *calls), *bound = ar_calloc((size_t)P * (size_t)L, sizeof *bound);
    int *total = ar_calloc((size_t)P, sizeof *total);
    if (!calls || !bound || !total) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (st == AR_OK) st = ar_fr_eq12_bound(p, bound, e);
    *holds = 1;
    for (int l = 0; l < L && st == AR_OK; l++) {
        if (l == 0) ar_fr_calls(fp, calls);
        const int *c = calls + (size_t)l * (size_t)P, *b = bound + (size_t)l * (size_t)P;
        int ok = 1, bmax = 0, cmax, row = tbl_row(t);
        double cavg;
        for (int r = 0; r < P; r++) {
            total[r] += c[r];
            if (c[r] > b[r]) ok = 0;
            if (b[r] > bmax) bmax = b[r];
        }
        *holds &= ok;
        call_summary(c, P, &cavg, &cmax);
        tbl_int(t, row, 0, l);
        tbl_num(t, row, 1, "%.3f", cavg); /* the all-gather replays the same entries: equal counts */
        tbl_int(t, row, 2, cmax);
        tbl_num(t, row, 3, "%.3f", cavg);
        tbl_int(t, row, 4, cmax);
        tbl_int(t, row, 5, bmax);
        tbl_str(t, row, 6, ok ? "yes" : "NO");
    }
    if (st == AR_OK) {
        double avg;
        int max, row = tbl_row(t);
        call_summary(total, P, &avg, &max);
        tbl_str(t, row, 0, "all");
        tbl_num(t, row, 1, "%.3f", avg);
        tbl_int(t, row, 2, max);
        tbl_num(t, row, 3, "%.3f", avg);
        tbl_int(t, row, 4, max);
        tbl_str(t, row, 5, "");
        tbl_str(t, row, 6, *holds ? "yes" : "NO");
    }
    free(calls);
    free(bound);
    free(total);
    ar_fr_plan_free(fp);
    return st;
}

int cmd_plan(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_ALGO | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_CHECK,
                  &o, "plan") != AR_OK)
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
    st = ar_algo_plan(o.algos[0], p, count, ar_dtype_size(o.dtype), &s, &e);
    if (st != AR_OK) {
        ar_platform_free(p);
        return cli_error(st, &e);
    }
    ar_call_stats cs;
    cli_table phases = {0}, fr = {0};
    int is_fr = !strcmp(s->algo, "flexreduce"), fr_holds = 1;
    st = ar_schedule_call_stats(s, &cs, &e);
    int have_cs = st == AR_OK;
    if (st == AR_OK && (st = phase_calls_table(s, &phases)) != AR_OK) ar_fail(&e, st, "out of memory");
    if (st == AR_OK && is_fr) st = fr_calls_table(p, &fr, &fr_holds, &e);
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
        fprintf(msg, "validator: %s\n", st == AR_OK ? "ok (every element of every rank holds every input exactly once)" : e.msg);
        if (st == AR_OK) {
            st = ar_schedule_execute_host(s, 0, &e);
            fprintf(msg, "host executor: %s\n", st == AR_OK ? "ok (exact sums on every rank)" : e.msg);
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
