/* Bad input is rejected with arlab's one-line message before SimGrid starts
 * (never SimGrid's abort): zero or infinite bandwidth, negative latency, a
 * schedule for another rank count, unknown --network models and settings,
 * options the naive engine does not support, a second in-process run.
 * Also: a budget stops a run early and says so; the result of a forked run
 * comes back intact (per-link arrays, phase ends). */
#include "sim_util.h"

static ar_status run(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_err *e) {
    ar_sim_result r;
    ar_status st = ar_sim_run(p, s, o, &r, e);
    ar_sim_result_free(&r);
    return st;
}

int main(void) {
    ar_err e = {{0}};
    ar_platform *p = sim_platform("machines:gpus=2+2");
    ar_schedule *s = NULL;
    T_CHECK(p != NULL, "platform");
    if (!p) return t_done("sim_errors");
    T_OK(ar_algo_plan("ring", p, 1024, 4, &s, &e), e);
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_ROUND;

    /* links the platform loader would refuse, made by hand */
    double bw = p->links[0].bw_Bps;
    p->links[0].bw_Bps = 0;
    T_CHECK(run(p, s, &o, &e) == AR_EINVAL && strstr(e.msg, "bandwidth must be > 0"), "zero bandwidth: %s", e.msg);
    p->links[0].bw_Bps = INFINITY;
    T_CHECK(run(p, s, &o, &e) == AR_EINVAL && strstr(e.msg, "bandwidth"), "infinite bandwidth: %s", e.msg);
    p->links[0].bw_Bps = bw;
    double lat = p->links[1].lat_s;
    p->links[1].lat_s = -1e-6;
    T_CHECK(run(p, s, &o, &e) == AR_EINVAL && strstr(e.msg, "latency must be >= 0"), "negative latency: %s", e.msg);
    p->links[1].lat_s = lat;

    /* schedule and platform disagree */
    ar_platform *q = sim_platform("flat:ranks=3");
    T_CHECK(q && run(q, s, &o, &e) == AR_EINVAL && strstr(e.msg, "ranks"), "rank mismatch: %s", e.msg);
    ar_platform_free(q);

    /* --network */
    const char *bad_net[] = {"CM03",
                             "CM02,network/solver:magic",
                             "CM02,network/model:LV08",
                             "LV08,foo:1",
                             "CM02,network/TCP-gamma:-1",
                             "CM02,surf/precision:0",
                             "CM02,network/crosstraffic"};
    for (size_t i = 0; i < sizeof bad_net / sizeof bad_net[0]; i++) {
        o.network = bad_net[i];
        T_CHECK(run(p, s, &o, &e) == AR_EINVAL && !strncmp(e.msg, "--network:", 10), "%s: %s", bad_net[i], e.msg);
    }
    char desc[512];
    T_OK(ar_sim_network_parse("lv08,network/crosstraffic:0,network/TCP-gamma:0", desc, sizeof desc, &e), e);
    T_CHECK(strstr(desc, "network/model:LV08") && strstr(desc, "network/crosstraffic:0"), "%s", desc);
    T_OK(ar_sim_network_parse(NULL, desc, sizeof desc, &e), e);
    T_CHECK(strstr(desc, "network/model:CM02") && strstr(desc, "network/solver:maxmin") &&
                strstr(desc, "latency:arlab") && strstr(desc, "network/TCP-gamma:0") && strstr(desc, "SPLITDUPLEX"),
            "default settings: %s", desc);
    o.network = NULL;

    /* engine options */
    o.engine = AR_SIM_NAIVE;
    o.check = 1;
    T_CHECK(run(p, s, &o, &e) == AR_EUNSUPPORTED, "naive --check: %s", e.msg);
    o.check = 0;
    o.engine = AR_SIM_FAST;
    o.gamma_s_per_B = -1;
    T_CHECK(run(p, s, &o, &e) == AR_EINVAL, "negative gamma: %s", e.msg);
    o.gamma_s_per_B = 0;
    o.trace_path = "/nonexistent-dir/trace.json";
    T_CHECK(run(p, s, &o, &e) == AR_EIO && strstr(e.msg, "--trace"), "unwritable trace: %s", e.msg);
    o.trace_path = NULL;
    o.check = 1; /* --check's buffer limit is a documented limit */
    o.check_max_bytes = 64;
    T_CHECK(run(p, s, &o, &e) == AR_ELIMIT && strstr(e.msg, "limit"), "check limit: %s", e.msg);
    o.check = 0;
    o.check_max_bytes = 0;

    /* a forked run returns everything; in-process runs are once per process */
    ar_sim_result r;
    T_OK(ar_sim_run(p, s, &o, &r, &e), e);
    T_CHECK(r.complete && r.nphases == s->nphases && r.phase_end_s && r.link_bytes && r.link_busy_s &&
                r.link_max_flows && r.ndlinks == 2 * p->nlinks && r.phase_end_s[r.nphases - 1] == r.time_s,
            "forked result incomplete");
    T_CHECK(r.bottleneck >= 0 && r.link_bytes[r.bottleneck] > 0, "bottleneck");
    ar_sim_result_free(&r);

    /* a budget stops the naive engine early (its 130560 transfers take well over 20 ms) */
    ar_platform *big = sim_platform("flat:ranks=256");
    ar_schedule *bs = NULL;
    ar_status bst = big ? ar_algo_plan("ring", big, 1 << 20, 4, &bs, &e) : AR_EINVAL;
    T_CHECK(bst == AR_OK, "budget: flat:ranks=256 did not load or plan: %s", e.msg); /* never skipped silently */
    if (bst == AR_OK) {
        o.engine = AR_SIM_NAIVE;
        o.budget_s = 0.02;
        T_OK(ar_sim_run(big, bs, &o, &r, &e), e);
        T_CHECK(!r.complete && r.transfers > 0 && r.transfers < (uint64_t)2 * 255 * 256, "budget: complete %d, %llu",
                r.complete, (unsigned long long)r.transfers);
        ar_sim_result_free(&r);
        o.engine = AR_SIM_FAST;
        o.budget_s = 0;
    }
    ar_schedule_free(bs);
    ar_platform_free(big);

    o.in_process = 1;
    T_OK(ar_sim_run(p, s, &o, &r, &e), e);
    ar_sim_result_free(&r);
    T_CHECK(ar_sim_run(p, s, &o, &r, &e) == AR_EUNSUPPORTED && strstr(e.msg, "one simulation per process"),
            "second in-process run: %s", e.msg);
    ar_sim_result_free(&r);

    ar_schedule_free(s);
    ar_platform_free(p);
    return t_done("sim_errors");
}
