/* Units: exact parse results, rejections with quoted messages, printers. */
#include <string.h>

#include "core/units.h"
#include "core/util.h"
#include "../t.h"

static void size_ok(const char *s, size_t eb, uint64_t want) {
    ar_err e = {{0}};
    uint64_t got = 0;
    ar_status st = ar_parse_size(s, eb, &got, &e);
    T_CHECK(st == AR_OK && got == want, "size %s (elem %zu): st %d got %llu want %llu: %s", s, eb, (int)st,
            (unsigned long long)got, (unsigned long long)want, e.msg);
}

static void size_bad(const char *s, size_t eb, const char *frag) {
    ar_err e = {{0}};
    uint64_t got = 0;
    ar_status st = ar_parse_size(s, eb, &got, &e);
    /* beyond the documented 1 PiB: a limit (AR_ELIMIT); anything else is bad input */
    ar_status want = strstr(frag, "too large") ? AR_ELIMIT : AR_EINVAL;
    T_CHECK(st == want, "size %s: status %d, want %d (%llu)", s, st, want, (unsigned long long)got);
    T_CHECK(strstr(e.msg, frag) != NULL, "size %s: message \"%s\" lacks \"%s\"", s, e.msg, frag);
    T_CHECK(strchr(e.msg, '\n') == NULL, "multi-line message: %s", e.msg);
}

static void rate_ok(const char *s, double want) {
    ar_err e = {{0}};
    double got = -1;
    ar_status st = ar_parse_rate(s, &got, &e);
    T_CHECK(st == AR_OK && got == want, "rate %s: st %d got %.17g want %.17g: %s", s, (int)st, got, want, e.msg);
}

static void rate_bad(const char *s, const char *frag) {
    ar_err e = {{0}};
    double got = -1;
    ar_status st = ar_parse_rate(s, &got, &e);
    T_CHECK(st == AR_EINVAL, "rate %s accepted (%g)", s, got);
    T_CHECK(strstr(e.msg, frag) != NULL, "rate %s: message \"%s\" lacks \"%s\"", s, e.msg, frag);
}

static void time_ok(const char *s, double want) {
    ar_err e = {{0}};
    double got = -1;
    ar_status st = ar_parse_time(s, &got, &e);
    T_CHECK(st == AR_OK && got == want, "time %s: st %d got %.17g want %.17g: %s", s, (int)st, got, want, e.msg);
}

static void time_bad(const char *s, const char *frag) {
    ar_err e = {{0}};
    double got = -1;
    ar_status st = ar_parse_time(s, &got, &e);
    T_CHECK(st == AR_EINVAL, "time %s accepted (%g)", s, got);
    T_CHECK(strstr(e.msg, frag) != NULL, "time %s: message \"%s\" lacks \"%s\"", s, e.msg, frag);
}

static void fmt_eq(char *got, const char *want) {
    T_CHECK(strcmp(got, want) == 0, "formatted \"%s\", want \"%s\"", got, want);
}

/* ar_closest: edit distance with transpositions, case-insensitive, at most
 * max(1, min(2, len/3)) edits. */
static void closest_checks(void) {
    static const char *const v[] = {"model", "sim", "best", "sweep", "platforms", "platform", "plan"};
    const int n = (int)(sizeof v / sizeof v[0]);
    struct {
        const char *word, *want;
    } k[] = {{"simm", "sim"},            /* one insertion */
             {"modle", "model"},         /* one transposition */
             {"MODEL", "model"},         /* case */
             {"bset", "best"},           /* transposition */
             {"swep", "sweep"},          /* one deletion */
             {"platfroms", "platforms"}, /* transposition, the closer of two */
             {"pln", "plan"},            /* len 3: one edit allowed */
             {"xyzzy", NULL},            /* nothing near */
             {"sm", "sim"},              /* two letters: one edit allowed, one insertion */
             {"", NULL}};                /* empty: "sim" is 3 edits away */
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const char *got = ar_closest(k[i].word, v, n);
        T_CHECK((got == NULL && k[i].want == NULL) || (got && k[i].want && !strcmp(got, k[i].want)),
                "closest(%s) = %s, want %s", k[i].word, got ? got : "NULL", k[i].want ? k[i].want : "NULL");
    }
    char longw[80];
    memset(longw, 'a', sizeof longw - 1);
    longw[79] = 0;
    T_CHECK(ar_closest(longw, v, n) == NULL, "a 79-character word matches nothing");
}

int main(void) {
    closest_checks();
    /* sizes: bytes (B suffix) and elements */
    size_ok("100MB", 4, 25000000);
    size_ok("100MB", 1, 100000000);
    size_ok("1GiB", 4, 268435456);
    size_ok("1GiB", 1, UINT64_C(1) << 30);
    size_ok("120M", 4, 120000000);
    size_ok("4096", 2, 4096);
    size_ok("1.5KB", 1, 1500);
    size_ok("1.5KiB", 1, 1536);
    size_ok("0.5Ki", 4, 512);
    size_ok("64KB", 8, 8000);
    size_ok("1kB", 4, 250);
    size_ok("2e3", 4, 2000);
    size_ok("1e2MB", 1, 100000000);
    size_ok("1PiB", 1, UINT64_C(1) << 50);
    size_ok("256Ti", 4, UINT64_C(256) << 40);
    size_ok("12B", 4, 3);
    size_ok("007", 4, 7);
    size_bad("", 4, "empty size");
    size_bad("1.5", 4, "not a whole number of elements");
    size_bad("0.3KB", 8, "\"0.3KB\"");
    size_bad("10B", 4, "4-byte elements");
    size_bad("0", 4, "must be positive");
    size_bad("-5MB", 4, "must be positive");
    size_bad("100Mb", 4, "is not a size");
    size_bad("100MBx", 4, "\"100MBx\"");
    size_bad("100 MB", 4, "is not a size");
    size_bad("2PiB", 1, "too large");
    size_bad("1Pi", 4, "too large"); /* 2^50 f32 elements = 4 PiB */
    size_bad("nan", 4, "is not a size");
    size_bad("inf", 4, "is not a size");
    size_bad("0x10", 4, "is not a size");
    size_bad("1e400", 4, "too large");
    size_bad("12345678901234567890123", 1, "\"12345678901234567890123\"");
    size_bad("MB", 4, "is not a size");
    size_bad("1.5.5MB", 4, "is not a size");
    size_bad("1e-3", 4, "not a whole number");

    /* rates: bytes/s and bits/s, exact */
    rate_ok("100Gbps", 12.5e9);
    rate_ok("100Gb/s", 12.5e9);
    rate_ok("12.5GBps", 12.5e9);
    rate_ok("12.5GB/s", 12.5e9);
    rate_ok("10Gbps", 1.25e9);
    rate_ok("1.25GBps", 1.25e9);
    rate_ok("32GBps", 32e9);
    rate_ok("1e9", 1e9);
    rate_ok("1000", 1000);
    rate_ok("1KiBps", 1024);
    rate_ok("8bps", 1);
    rate_ok("25GBps", 25e9);
    rate_bad("12.5GBs", "\"12.5GBs\" is not a rate (use e.g. 12.5GBps, 100Gbps)");
    rate_bad("", "empty rate");
    rate_bad("0Gbps", "must be > 0");
    rate_bad("-1GBps", "must be > 0");
    rate_bad("12.5G", "is not a rate");
    rate_bad("12.5GB", "is not a rate");
    rate_bad("inf", "is not a rate");
    rate_bad("NaN", "is not a rate");
    rate_bad("1e999Bps", "too large");
    rate_bad("1e-999Bps", "must be > 0");
    rate_bad("5 GBps", "is not a rate");
    rate_bad("5GBps ", "is not a rate");

    /* times */
    time_ok("5us", 5e-6);
    time_ok("1.5ms", 1.5e-3);
    time_ok("10ns", 10e-9);
    time_ok("2s", 2);
    time_ok("100ps", 100e-12);
    time_ok("0", 0);
    time_ok("0us", 0);
    time_ok("0.000005", 5e-6);
    time_ok("50us", 50e-6);
    time_ok("3\xc2\xb5s", 3e-6);
    time_bad("-5us", "must not be negative");
    time_bad("5 us", "is not a time");
    time_bad("5min", "\"5min\" is not a time");
    time_bad("", "empty time");
    time_bad("us", "is not a time");
    time_bad("1e999s", "too large");
    time_bad("5us\n", "\\x0a");

    /* counts */
    {
        ar_err e = {{0}};
        long long v = 0;
        T_CHECK(ar_parse_count("8", 1, 64, &v, &e) == AR_OK && v == 8, "count 8 -> %lld", v);
        T_CHECK(ar_parse_count("1k", 1, 1 << 20, &v, &e) == AR_OK && v == 1000, "count 1k -> %lld", v);
        T_CHECK(ar_parse_count("2M", 1, 1 << 30, &v, &e) == AR_OK && v == 2000000, "count 2M -> %lld", v);
        T_CHECK(ar_parse_count("0", 1, 64, &v, &e) == AR_EINVAL && strstr(e.msg, "out of range"), "%s", e.msg);
        T_CHECK(ar_parse_count("65", 1, 64, &v, &e) == AR_EINVAL && strstr(e.msg, "\"65\""), "%s", e.msg);
        T_CHECK(ar_parse_count("1.5", 1, 64, &v, &e) == AR_EINVAL && strstr(e.msg, "whole"), "%s", e.msg);
        T_CHECK(ar_parse_count("8x", 1, 64, &v, &e) == AR_EINVAL && strstr(e.msg, "not a count"), "%s", e.msg);
        T_CHECK(ar_parse_count("99999999999999999999", 1, 64, &v, &e) == AR_EINVAL, "%s", e.msg);
    }

    /* dtypes */
    {
        ar_dtype t;
        ar_err e = {{0}};
        T_CHECK(ar_dtype_parse("f32", &t, &e) == AR_OK && t == AR_DTYPE_F32 && ar_dtype_size(t) == 4, "f32");
        T_CHECK(ar_dtype_parse("bf16", &t, &e) == AR_OK && ar_dtype_size(t) == 2, "bf16");
        T_CHECK(ar_dtype_parse("double", &t, &e) == AR_OK && t == AR_DTYPE_F64 && ar_dtype_size(t) == 8, "f64");
        T_CHECK(strcmp(ar_dtype_name(AR_DTYPE_F16), "f16") == 0, "f16 name");
        T_CHECK(ar_dtype_parse("f8", &t, &e) == AR_EINVAL && strstr(e.msg, "\"f8\""), "%s", e.msg);
    }

    /* printers */
    {
        char b[32];
        fmt_eq(ar_fmt_bytes(100e6, b, sizeof b), "100 MB");
        fmt_eq(ar_fmt_bytes(1.5e9, b, sizeof b), "1.5 GB");
        fmt_eq(ar_fmt_bytes(512, b, sizeof b), "512 B");
        fmt_eq(ar_fmt_bytes(0, b, sizeof b), "0 B");
        fmt_eq(ar_fmt_bytes(999.9e3, b, sizeof b), "1 MB");
        fmt_eq(ar_fmt_rate(12.5e9, b, sizeof b), "12.5 GB/s");
        fmt_eq(ar_fmt_rate(1.25e9, b, sizeof b), "1.25 GB/s");
        fmt_eq(ar_fmt_rate(32e9, b, sizeof b), "32 GB/s");
        fmt_eq(ar_fmt_time(0.031, b, sizeof b), "31.0 ms");
        fmt_eq(ar_fmt_time(5e-6, b, sizeof b), "5 us");
        fmt_eq(ar_fmt_time(1.5e-3, b, sizeof b), "1.5 ms");
        fmt_eq(ar_fmt_time(2, b, sizeof b), "2 s");
        fmt_eq(ar_fmt_time(163e-3, b, sizeof b), "163 ms");
        fmt_eq(ar_fmt_time(0, b, sizeof b), "0 s");
        fmt_eq(ar_fmt_time(250e-9, b, sizeof b), "250 ns");
        char tiny[4];
        ar_fmt_rate(12.5e9, tiny, sizeof tiny);
        T_CHECK(strlen(tiny) == 3, "truncated print \"%s\"", tiny);
    }

    /* status helpers */
    {
        ar_err e = {{0}};
        T_CHECK(ar_fail(&e, AR_EINVAL, "x=%d", 5) == AR_EINVAL && !strcmp(e.msg, "x=5"), "%s", e.msg);
        ar_err_prefix(&e, "file %s", "a.json");
        T_CHECK(!strcmp(e.msg, "file a.json: x=5"), "%s", e.msg);
        T_CHECK(ar_fail(NULL, AR_EIO, "dropped") == AR_EIO, "NULL err");
        T_CHECK(ar_calloc((size_t)-1, 16) == NULL, "calloc overflow");
        T_CHECK(ar_reallocarray(NULL, (size_t)-1 / 2, 4) == NULL, "reallocarray overflow");
        char *d = ar_strdup("abc");
        T_CHECK(d && !strcmp(d, "abc"), "strdup");
        free(d);
        char q[16];
        ar_quote("a\"b\\c\x01long text here", q, sizeof q);
        T_CHECK(strlen(q) < sizeof q && q[0] == '"' && strstr(q, "...\""), "quote %s", q);
        T_CHECK(strcmp(ar_status_name(AR_EINVAL), "invalid input") == 0, "status name");
    }
    return t_done("test_units");
}
