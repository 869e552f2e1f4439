/* Minimal test harness: CHECK-style assertions that count and report, and a
 * summary line CTest logs. A test binary exits non-zero if any check failed. */
#ifndef AR_T_H
#define AR_T_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int t_checks, t_failed;

#define T_CHECK(cond, ...)                                                          \
    do {                                                                            \
        t_checks++;                                                                 \
        if (!(cond)) {                                                              \
            t_failed++;                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
        }                                                                           \
    } while (0)

/* |got - want| <= rel * max(|want|, tiny) */
#define T_NEAR(got, want, rel, what)                                                       \
    do {                                                                                   \
        double t_g = (got), t_w = (want);                                                  \
        double t_d = fabs(t_g - t_w), t_s = fabs(t_w) > 1e-300 ? fabs(t_w) : 1e-300;       \
        T_CHECK(t_d <= (rel) * t_s, "%s: got %.17g want %.17g (rel %.3g)", (what), t_g, t_w, \
                t_d / t_s);                                                                \
    } while (0)

#define T_OK(call)                                                                   \
    do {                                                                             \
        ar_err t_e = {{0}};                                                          \
        (void)t_e;                                                                   \
        ar_status t_st = (call);                                                     \
        T_CHECK(t_st == AR_OK, "%s -> %d", #call, (int)t_st);                        \
    } while (0)

static inline int t_done(const char *name) {
    printf("%s: %d checks, %d failed\n", name, t_checks, t_failed);
    return t_failed ? 1 : 0;
}
#endif
