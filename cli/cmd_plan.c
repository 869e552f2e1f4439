/* arlab plan --algo A --platform P [--size S] [--check] [--format table|json]
 * Prints the schedule, the reduce/broadcast calls per rank and, with --check,
 * the symbolic validator's and the host executor's verdicts. */
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
    st = ar_schedule_call_stats(s, &cs, &e);
    if (st == AR_OK) {
        double ravg, bavg;
        int rmax, bmax;
        call_summary(cs.reduce_calls, s->nranks, &ravg, &rmax);
        call_summary(cs.bcast_calls, s->nranks, &bavg, &bmax);
        if (o.format == FMT_JSON) {
            printf("{\"platform\":\"%s\",\"reduce_calls_avg\":%.6g,\"reduce_calls_max\":%d,"
                   "\"bcast_calls_avg\":%.6g,\"bcast_calls_max\":%d,\"schedule\":",
                   p->name, ravg, rmax, bavg, bmax);
            st = ar_schedule_print_json(s, stdout, &e);
            printf("}\n");
        } else {
            ar_schedule_print_table(s, stdout);
            printf("calls per rank: reduce avg %.3f max %d, broadcast avg %.3f max %d\n", ravg, rmax, bavg, bmax);
        }
        ar_call_stats_free(&cs);
    }
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
    ar_schedule_free(s);
    ar_platform_free(p);
    return st;
}
