/* Minimal test harness: CHECK-style assertions that count and report, and a
 * summary line CTest logs. A test binary exits non-zero if any check failed. */
#ifndef AR_T_H
#define AR_T_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

static int t_checks, t_failed;

#define T_CHECK(cond, ...)                                                           \
    do {                                                                             \
        t_checks++;                                                                  \
        if (!(cond)) {                                                               \
            t_failed++;                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)

/* |got - want| <= rel * max(|want|, tiny) */
#define T_NEAR(got, want, rel, what)                                                                   \
    do {                                                                                               \
        double t_g = (got), t_w = (want);                                                              \
        double t_d = fabs(t_g - t_w), t_s = fabs(t_w) > 1e-300 ? fabs(t_w) : 1e-300;                   \
        T_CHECK(t_d <= (rel)*t_s, "%s: got %.17g want %.17g (rel %.3g)", (what), t_g, t_w, t_d / t_s); \
    } while (0)

/* T_OK(call) or T_OK(call, err): checks that call returned AR_OK. On failure it
 * prints the call, the status name and the ar_err message: that of err (an
 * ar_err, the one the call filled) when given, else that of t_e, an ar_err
 * the macro declares for calls that pass &t_e. Give err whenever the call
 * takes your own ar_err: T_OK(ar_x(..., &e), e). */
#define T_OK(...) T_OK_PICK(__VA_ARGS__, T_OK_E, T_OK_1, t_ok_needs_one_or_two_arguments)(__VA_ARGS__)
#define T_OK_PICK(a, b, name, ...) name
#define T_OK_1(call) T_OK_E(call, t_e)
#define T_OK_E(call, err)                                                                                  \
    do {                                                                                                   \
        ar_err t_e = {{0}};                                                                                \
        (void)t_e;                                                                                         \
        ar_status t_st = (call);                                                                           \
        T_CHECK(t_st == AR_OK, "%s -> %d (%s): %s", #call, (int)t_st, ar_status_name(t_st),                \
                (err).msg[0] ? (err).msg : "(no message; give the call's ar_err as T_OK's 2nd argument)"); \
    } while (0)

/* A refused input (doc): status st not OK, no object made (made = 0), and its message one line that starts with
 * "FILE: " and contains frag. */
static inline void t_refused(ar_status st, int made, const ar_err *e, const char *file, const char *frag,
                             const char *doc) {
    size_t n = strlen(file);
    T_CHECK(st != AR_OK && !made, "accepted: %s", doc);
    T_CHECK(strstr(e->msg, frag) != NULL, "message \"%s\" lacks \"%s\"", e->msg, frag);
    T_CHECK(!strncmp(e->msg, file, n) && !strncmp(e->msg + n, ": ", 2), "message \"%s\" does not name the file %s",
            e->msg, file);
    T_CHECK(strchr(e->msg, '\n') == NULL, "multi-line message \"%s\"", e->msg);
}

static inline int t_done(const char *name) {
    printf("%s: %d checks, %d failed\n", name, t_checks, t_failed);
    return t_failed ? 1 : 0;
}
#endif
