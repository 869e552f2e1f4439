/* ar_sim_opts.meanwhile (arlab sim prices a schedule while it is simulated): ar_sim_run calls it
 * exactly once, in the calling process (the counter below lives there), whatever happens: a
 * forked run, a dataflow run that hands over to the per-rank engine (a second child), a run in
 * process, a --budget stop, and an error before anything runs. The result is the one without it.
 */
#include "sim_util.h"

static void count_call(void *ctx) { ++*(int *)ctx; }

/* Runs algo on plat with opts o (meanwhile set here); returns the calls, the status in *st. */
static int calls_in(const char *plat, const char *algo, uint64_t bytes, ar_sim_opts o, ar_status *st,
                    ar_sim_result *r) {
    ar_platform *p = sim_platform(plat);
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    int calls = 0;
    T_CHECK(p && ar_algo_plan(algo, p, bytes / 4, 4, &s, &e) == AR_OK, "%s on %s: %s", algo, plat, e.msg);
    if (p && s) {
        o.meanwhile = count_call;
        o.meanwhile_ctx = &calls;
        *st = ar_sim_run(p, s, &o, r, &e);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
    return calls;
}

int main(void) {
    ar_sim_opts o;
    ar_sim_result r;
    ar_status st = AR_EINTERNAL;

    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_ROUND;
    int c = calls_in("flat:ranks=8", "ring", 4000000, o, &st, &r);
    T_CHECK(c == 1 && st == AR_OK, "forked run: %d calls, status %d", c, (int)st);
    sim_run x;
    if (sim_run_case(&x, "flat:ranks=8", "ring", 4000000, &o) == 0 && st == AR_OK)
        T_CHECK(x.r.time_s == r.time_s, "with meanwhile %.17g, without %.17g", r.time_s, x.r.time_s);
    sim_run_free(&x);
    if (st == AR_OK) ar_sim_result_free(&r);

    o.sync = AR_SYNC_DATAFLOW; /* FlexReduce on fr-7, 10 MB: not certified, the per-rank engine runs */
    c = calls_in("fr-7", "flexreduce", 10000000, o, &st, &r);
    T_CHECK(c == 1 && st == AR_OK, "handed-over run: %d calls, status %d", c, (int)st);
    if (st == AR_OK) {
        T_CHECK(r.transfers > 0 && r.transfers_simgrid == r.transfers, "fr-7: the per-rank engine ran (%llu of %llu)",
                (unsigned long long)r.transfers_simgrid, (unsigned long long)r.transfers);
        ar_sim_result_free(&r);
    }

    o.budget_s = 1e-9; /* stopped at once */
    c = calls_in("flat:ranks=64", "ring", 100000001, o, &st, &r);
    T_CHECK(c == 1 && st == AR_OK && !r.complete, "budget stop: %d calls, status %d, complete %d", c, (int)st,
            st == AR_OK ? r.complete : -1);
    if (st == AR_OK) ar_sim_result_free(&r);

    o.budget_s = -1; /* refused before anything runs */
    c = calls_in("flat:ranks=8", "ring", 4000000, o, &st, &r);
    T_CHECK(c == 1 && st == AR_EINVAL, "refused run: %d calls, status %d", c, (int)st);

    o.budget_s = 0;
    o.in_process = 1; /* (the last: SimGrid runs once per process) */
    c = calls_in("flat:ranks=8", "ring", 4000000, o, &st, &r);
    T_CHECK(c == 1 && st == AR_OK, "in-process run: %d calls, status %d", c, (int)st);
    if (st == AR_OK) ar_sim_result_free(&r);
    return t_done("sim_meanwhile");
}
