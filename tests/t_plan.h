/* Test helpers shared by the planner tests: load a platform from a spec or JSON text,
 * plan + validate + execute a schedule, recording checks in t.h, and a schedule's JSON text. */
#ifndef AR_T_PLAN_H
#define AR_T_PLAN_H

#include "core/algo.h"
#include "core/platform/platform.h"
#include "t.h"

/* s as schedule JSON text (malloc'd; NULL when out of memory). */
static inline char *schedule_json(const ar_schedule *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    ar_err e;
    ar_schedule_print_json(s, f, &e);
    fclose(f);
    return buf;
}

/* The platform of spec (a preset, file or family); NULL and a failed check when it does not load. */
static inline ar_platform *load_spec(const char *spec) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(spec, 0, &p, &e);
    T_CHECK(st == AR_OK && p, "load %s: %s", spec, e.msg);
    return st == AR_OK ? p : NULL;
}

static inline ar_platform *load_json(const char *json) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    if (ar_platform_from_json(json, "<test>", &p, &e) != AR_OK) fprintf(stderr, "platform: %s\n", e.msg);
    return p;
}

/* Loads the platform in js (malloc'd JSON text, freed here; NULL when its writer ran out of memory); a
 * failed check naming `what` when it does not load. */
static inline ar_platform *load_json_text(char *js, const char *what) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_CHECK(js != NULL, "%s: out of memory", what);
    if (!js) return NULL;
    ar_status st = ar_platform_from_json(js, what, &p, &e);
    T_CHECK(st == AR_OK, "%s: %s", what, e.msg);
    free(js);
    return st == AR_OK ? p : NULL;
}

/* Plans spec on p for count elements; validates and executes. 1 = ok. */
static inline int check_plan(const ar_platform *p, const char *spec, uint64_t count, const char *what) {
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan(spec, p, count, 4, &s, &e);
    T_CHECK(st == AR_OK, "%s: plan %s count %llu: %s", what, spec, (unsigned long long)count, e.msg);
    if (st != AR_OK) return 0;
    st = ar_schedule_validate(s, &e);
    T_CHECK(st == AR_OK, "%s: validate %s count %llu: %s", what, spec, (unsigned long long)count, e.msg);
    if (st == AR_OK) {
        st = ar_schedule_execute_host(s, 0, &e);
        T_CHECK(st == AR_OK, "%s: execute %s count %llu: %s", what, spec, (unsigned long long)count, e.msg);
    }
    ar_schedule_free(s);
    return st == AR_OK;
}

#endif
