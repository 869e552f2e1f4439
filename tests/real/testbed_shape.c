/* The testbed's shaping commands (real/testbed/testbed.h ar_tb_shape_plan): the GSO cap, the tbf with its
 * small bucket, the netem child only with a latency and a kernel that has netem; the per-route TCP
 * congestion control (ar_tb_cc_choice, ar_tb_cc_plan); and the fan-out fit of
 * the per-message overhead o (calib/rcalib.h ar_real_fit_fanout) against hand-computed slopes, and the
 * wake-up's mean with its interval (ar_real_mean_interval) against a hand-computed one. No root,
 * no namespaces: the words are checked, not run. */
#include "calib/rcalib.h"
#include "real/testbed/testbed.h"
#include "../t.h"

/* The command's words joined by spaces. */
static const char *joined(const ar_tb_shape_cmd *c, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < c->n && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? " " : "", c->w[i]);
    T_CHECK(c->argv[c->n] == NULL, "argv not NULL-terminated");
    return buf;
}

int main(void) {
    char b[512];
    ar_tb_shape_cmd c[AR_TB_SHAPE_MAXCMD];

    /* 500 Mbit/s: bucket max(10000 B, 160 us x 62.5 MB/s = 10000 B) = 10000 B, far below 64 KiB */
    T_NEAR(ar_tb_burst_bytes(62.5e6), 10000, 0, "burst at 500 Mbit/s");
    T_NEAR(ar_tb_burst_bytes(25e6), 10000, 0, "burst at 200 Mbit/s (the minimum)");
    T_NEAR(ar_tb_burst_bytes(250e6), 40000, 0, "burst at 2 Gb/s (160 us of the rate)");
    T_CHECK(ar_tb_burst_bytes(62.5e6) < 65536.0 / 4, "a 64 KiB message must not fit the bucket: %g",
            ar_tb_burst_bytes(62.5e6));
    /* the bucket holds one whole capped GSO packet with its headers (tbf drops or splits a larger one) */
    T_CHECK(ar_tb_burst_bytes(1e6) >= AR_TB_GSO_MAX + 1500, "bucket %g below one GSO packet", ar_tb_burst_bytes(1e6));

    int n = ar_tb_shape_plan("arlab-tb-m0", "u0", 62.5e6, 50e-6, 1, NULL, c);
    T_CHECK(n == 3, "with latency and netem: 3 commands, got %d", n);
    T_CHECK(!strcmp(joined(&c[0], b, sizeof b), "ip -n arlab-tb-m0 link set dev u0 gso_max_size 8192"), "gso: %s", b);
    T_CHECK(
        !strcmp(joined(&c[1], b, sizeof b),
                "tc -n arlab-tb-m0 qdisc add dev u0 root handle 1: tbf rate 500000000bit burst 10000 latency 100ms"),
        "tbf: %s", b);
    T_CHECK(!strcmp(joined(&c[2], b, sizeof b),
                    "tc -n arlab-tb-m0 qdisc add dev u0 parent 1:1 handle 10: netem delay 50us limit 100000"),
            "netem: %s", b);
    /* no netem in the kernel, or no latency: no netem child; the queue latency from the caller */
    n = ar_tb_shape_plan("arlab-tb-s0", "p1", 62.5e6, 50e-6, 0, "5ms", c);
    T_CHECK(n == 2, "without netem: 2 commands, got %d", n);
    T_CHECK(!strcmp(joined(&c[1], b, sizeof b),
                    "tc -n arlab-tb-s0 qdisc add dev p1 root handle 1: tbf rate 500000000bit burst 10000 latency 5ms"),
            "tbf, queue 5ms: %s", b);
    n = ar_tb_shape_plan("arlab-tb-s0", "p1", 250e6, 0, 1, NULL, c);
    T_CHECK(n == 2, "no latency: 2 commands, got %d", n);
    T_CHECK(strstr(joined(&c[1], b, sizeof b), "rate 2000000000bit burst 40000 ") != NULL, "2 Gb/s: %s", b);

    /* TCP congestion control per machine route: cubic unless $ARLAB_TESTBED_CC says otherwise ("host": none) */
    char cc[AR_TB_CC_MAX];
    T_OK(ar_tb_cc_choice(NULL, cc, &t_e));
    T_CHECK(!strcmp(cc, "cubic"), "default congestion control: %s", cc);
    T_OK(ar_tb_cc_choice("reno", cc, &t_e));
    T_CHECK(!strcmp(cc, "reno"), "given congestion control: %s", cc);
    T_OK(ar_tb_cc_choice("host", cc, &t_e));
    T_CHECK(cc[0] == 0, "host: no per-route congestion control, got %s", cc);
    const char *bad[] = {"", "Cubic", "cubic;reboot", "a_congestion_ctl", "bbr 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ar_err ce = {{0}};
        T_CHECK(ar_tb_cc_choice(bad[i], cc, &ce) == AR_EINVAL, "\"%s\" must be refused", bad[i]);
        T_CHECK(strstr(ce.msg, "ARLAB_TESTBED_CC") != NULL, "message names the variable: %s", ce.msg);
    }
    ar_tb_cc_plan("arlab-tb-m1", "10.213.0.2", "cubic", &c[0]);
    T_CHECK(!strcmp(joined(&c[0], b, sizeof b), "ip -n arlab-tb-m1 route replace 10.213.0.0/16 dev u0 proto kernel "
                                                "scope link src 10.213.0.2 congctl cubic"),
            "route: %s", b);

    /* fan-out fit: exact t = 300 us + 7 us x k gives o = 7 us and a zero interval */
    double k[8], t[8], o, hw;
    for (int i = 0; i < 8; i++) {
        k[i] = i + 1;
        t[i] = 300e-6 + 7e-6 * k[i];
    }
    T_OK(ar_real_fit_fanout(k, t, 8, &o, &hw, &t_e));
    T_NEAR(o, 7e-6, 1e-9, "o of an exact line");
    T_CHECK(hw >= 0 && hw < 1e-12, "exact line: half width %g", hw);
    /* noisy: t = 100, 112, 118, 133 us at k = 1..4 (mean 115.75); slope by hand: sum (k - 2.5)(t - mean) /
     * sum (k - 2.5)^2 = (-1.5 x -15.75 - 0.5 x -3.75 + 0.5 x 2.25 + 1.5 x 17.25) / 5 = 52.5 / 5 = 10.5 us,
     * intercept 115.75 - 2.5 x 10.5 = 89.5 us; residuals 0, 1.5, -3, 1.5 us: s^2 = 13.5 / 2,
     * se = sqrt(s^2 / 5), t(0.975, 2 dof) = 4.302652729749464 */
    double k4[4] = {1, 2, 3, 4}, t4[4] = {100e-6, 112e-6, 118e-6, 133e-6};
    T_OK(ar_real_fit_fanout(k4, t4, 4, &o, &hw, &t_e));
    T_NEAR(o, 10.5e-6, 1e-9, "o of four noisy points");
    T_NEAR(hw, 4.302652729749464 * sqrt(13.5e-12 / 2 / 5), 1e-6, "o's 95 % half width");
    /* two counts: a slope, no interval; one count: refused */
    T_OK(ar_real_fit_fanout(k4, t4, 2, &o, &hw, &t_e));
    T_NEAR(o, 12e-6, 1e-9, "o of two points");
    T_CHECK(isnan(hw), "two points: no interval, got %g", hw);
    ar_err e = {{0}};
    T_CHECK(ar_real_fit_fanout(k4, t4, 1, &o, &hw, &e) != AR_OK, "one point must be refused");
    /* the wake-up's mean and interval (ar_real_mean_interval): 10, 20, 30, 40 us: mean 25 us, sample variance
     * (225 + 25 + 25 + 225) / 3 = 500 / 3 us^2, half width t(0.975, 3 dof) sqrt(500 / 3 / 4) us with
     * t = 3.182446305284263 */
    double w4[4] = {10e-6, 20e-6, 30e-6, 40e-6}, m, mh;
    T_OK(ar_real_mean_interval(w4, 4, &m, &mh, &t_e));
    T_NEAR(m, 25e-6, 1e-12, "mean of four wake-ups");
    T_NEAR(mh, 3.182446305284263 * sqrt(500.0 / 3 / 4) * 1e-6, 1e-12, "its 95 % half width");
    T_OK(ar_real_mean_interval(w4, 1, &m, &mh, &t_e));
    T_CHECK(m == 10e-6 && isnan(mh), "one sample: its value, no interval (%g, %g)", m, mh);
    double nonfinite[2] = {1e-6, NAN};
    T_CHECK(ar_real_mean_interval(nonfinite, 2, &m, &mh, &e) != AR_OK, "a sample that is not finite must be refused");
    T_CHECK(ar_real_mean_interval(w4, 0, &m, &mh, &e) != AR_OK, "no sample must be refused");
    return t_done("testbed_shape");
}
