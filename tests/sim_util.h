/* Helpers for the SimGrid backend tests (tests/sim_*.c): plan an algorithm on
 * a platform, simulate it, price it with the closed form and the walk.
 * Everything returned is owned by the caller (sim_run_free). */
#ifndef AR_SIM_UTIL_H
#define AR_SIM_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/params.h"
#include "models/model.h"
#include "sim/sim.h"
#include "t.h"

typedef struct sim_run {
    ar_platform *p;
    ar_schedule *s;
    ar_sim_result r;
    ar_status st;     /* of ar_sim_run */
    ar_err e;
    double walk;      /* ar_model_walk, NAN if none */
    double closed;    /* ar_model_closed, NAN if none */
    int skipped;      /* the algorithm is not in the registry or not applicable */
} sim_run;

/* plat: a platform name/spec, or JSON text when it starts with '{'. */
static inline ar_platform *sim_platform(const char *plat) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = plat[0] == '{' ? ar_platform_from_json(plat, "test", &p, &e) : ar_platform_load(plat, 0, &p, &e);
    if (st != AR_OK) {
        fprintf(stderr, "platform %.40s: %s\n", plat, e.msg);
        return NULL;
    }
    return p;
}

static inline void sim_run_free(sim_run *x) {
    ar_sim_result_free(&x->r);
    ar_schedule_free(x->s);
    ar_platform_free(x->p);
    memset(x, 0, sizeof *x);
}

/* Plans algo on plat for `bytes` bytes of 4-byte elements and simulates it
 * with opts (NULL: defaults). Returns 0 when it ran (x->st tells how). */
static inline int sim_run_case(sim_run *x, const char *plat, const char *algo, uint64_t bytes, const ar_sim_opts *opts) {
    memset(x, 0, sizeof *x);
    x->walk = x->closed = NAN;
    x->p = sim_platform(plat);
    if (!x->p) return -1;
    ar_params prm;
    if (ar_params_parse(algo, &prm, &x->e) != AR_OK) return -1;
    int known = ar_algo_find(prm.name) != NULL;
    if (!known) {
        printf("SKIP %s: algorithm %s is not in the registry yet\n", algo, prm.name);
        ar_params_free(&prm);
        x->skipped = 1;
        return -1;
    }
    ar_model_result m;
    if (ar_model_closed(x->p, bytes / 4, 4, &prm, &m, &x->e) == AR_OK) x->closed = m.time_s;
    ar_params_free(&prm);
    ar_status st = ar_algo_plan(algo, x->p, bytes / 4, 4, &x->s, &x->e);
    if (st == AR_EUNSUPPORTED) {
        printf("SKIP %s on %s: %s\n", algo, x->p->name, x->e.msg);
        x->skipped = 1;
        return -1;
    }
    if (st != AR_OK) {
        fprintf(stderr, "plan %s on %s: %s\n", algo, x->p->name, x->e.msg);
        return -1;
    }
    if (ar_model_walk(x->p, x->s, &m, &x->e) == AR_OK) x->walk = m.time_s;
    ar_sim_opts d;
    memset(&d, 0, sizeof d);
    x->st = ar_sim_run(x->p, x->s, opts ? opts : &d, &x->r, &x->e);
    if (x->st != AR_OK) fprintf(stderr, "sim %s on %s: %s\n", algo, x->p->name, x->e.msg);
    return 0;
}

static inline double sim_rel(double a, double b) { return fabs(a - b) / fabs(b); }

/* Name of the bottleneck link ("" if none), into buf. */
static inline const char *sim_bottleneck(const sim_run *x, char *buf, size_t n) {
    buf[0] = 0;
    if (x->r.bottleneck >= 0) ar_sim_dlink_name(x->p, x->r.bottleneck, buf, n);
    return buf;
}

#endif
