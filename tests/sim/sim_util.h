/* Helpers for the SimGrid backend tests (tests/sim/sim_*.c): plan an algorithm on
 * a platform, simulate it, price it with the closed form and the walk.
 * Everything returned is owned by the caller (sim_run_free).
 * Nothing here passes a case that did not run: a platform that does not load,
 * an algorithm missing from the registry and a planning error are failed
 * checks; AR_EUNSUPPORTED from the planner is a failed check unless the test
 * names the case as expected (sim_run_case's may_be_unsupported), and then it
 * is counted; every test that loops over cases asserts a floor on the number
 * that ran (sim_floor). */
#ifndef AR_SIM_UTIL_H
#define AR_SIM_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/params.h"
#include "models/model.h"
#include "sim/sim.h"
#include "../t.h"

typedef struct sim_run {
    ar_platform *p;
    ar_schedule *s;
    ar_sim_result r;
    ar_status st; /* of ar_sim_run */
    ar_err e;
    double walk;     /* ar_model_walk, NAN if none */
    double closed;   /* ar_algo_closed, NAN if none */
    int unsupported; /* the planner answered AR_EUNSUPPORTED (e says why): nothing ran */
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
 * with opts (NULL: lockstep, --sync round, the closed forms' semantics). Returns
 *    0  it ran (x->st tells how the simulation went);
 *    1  the planner answered AR_EUNSUPPORTED (x->unsupported, x->e says why):
 *       a failed check unless may_be_unsupported, else a line saying so;
 *   -1  anything else kept it from running (platform, spec, an algorithm
 *       missing from the registry, a planning error): a failed check. */
static inline int sim_run_case_ex(sim_run *x, const char *plat, const char *algo, uint64_t bytes,
                                  const ar_sim_opts *opts, int may_be_unsupported) {
    memset(x, 0, sizeof *x);
    x->walk = x->closed = NAN;
    x->p = sim_platform(plat);
    T_CHECK(x->p != NULL, "%s on %.60s: the platform does not load", algo, plat);
    if (!x->p) return -1;
    ar_params prm;
    if (ar_params_parse(algo, &prm, &x->e) != AR_OK) {
        T_CHECK(0, "%s: the spec does not parse: %s", algo, x->e.msg);
        return -1;
    }
    int known = ar_algo_find(prm.name) != NULL;
    T_CHECK(known, "%s: algorithm %s is not in the registry", algo, prm.name);
    if (!known) {
        ar_params_free(&prm);
        return -1;
    }
    ar_model_result m;
    if (ar_algo_closed(algo, x->p, bytes / 4, 4, &m, &x->e) == AR_OK) x->closed = m.time_s;
    ar_params_free(&prm);
    ar_status st = ar_algo_plan(algo, x->p, bytes / 4, 4, &x->s, &x->e);
    if (st == AR_EUNSUPPORTED) {
        x->unsupported = 1;
        T_CHECK(may_be_unsupported, "%s on %s: unexpected %s: %s", algo, x->p->name, ar_status_name(st), x->e.msg);
        if (may_be_unsupported) printf("expected %s: %s on %s: %s\n", ar_status_name(st), algo, x->p->name, x->e.msg);
        return 1;
    }
    T_CHECK(st == AR_OK, "plan %s on %s -> %s: %s", algo, x->p->name, ar_status_name(st), x->e.msg);
    if (st != AR_OK) return -1;
    if (ar_model_walk(x->p, x->s, &m, &x->e) == AR_OK) x->walk = m.time_s;
    ar_sim_opts d;
    memset(&d, 0, sizeof d);
    d.sync = AR_SYNC_ROUND;
    x->st = ar_sim_run(x->p, x->s, opts ? opts : &d, &x->r, &x->e);
    if (x->st != AR_OK) fprintf(stderr, "sim %s on %s -> %s: %s\n", algo, x->p->name, ar_status_name(x->st), x->e.msg);
    return 0;
}

/* A case that must run: any AR_EUNSUPPORTED is a failed check. */
static inline int sim_run_case(sim_run *x, const char *plat, const char *algo, uint64_t bytes,
                               const ar_sim_opts *opts) {
    return sim_run_case_ex(x, plat, algo, bytes, opts, 0);
}

/* sim_run_case for the loops over cases: 1 when it ran; 0 (x freed, a failed check already) when not. */
static inline int sim_case_ran(sim_run *x, const char *plat, const char *algo, uint64_t bytes,
                               const ar_sim_opts *opts) {
    if (sim_run_case(x, plat, algo, bytes, opts) == 0) return 1;
    sim_run_free(x);
    return 0;
}

/* The floor of a test that loops over cases: prints how many ran (and how
 * many answered an expected AR_EUNSUPPORTED) and checks that at least `floor`
 * ran, the number that ran when the floor was set. */
static inline void sim_floor(const char *what, int ran, int unsupported, int floor) {
    printf("%s: %d cases ran, %d expected AR_EUNSUPPORTED (floor: %d ran)\n", what, ran, unsupported, floor);
    T_CHECK(ran >= floor, "%s: only %d cases ran, the floor is %d", what, ran, floor);
}

static inline double sim_rel(double a, double b) { return fabs(a - b) / fabs(b); }

/* Every engine and sync mode a hand-derived case runs in. */
typedef struct sim_mode {
    const char *name;
    ar_sync sync;
    ar_sim_engine engine;
    int full;
} sim_mode;
static const sim_mode sim_modes[] = {
    {"fast round", AR_SYNC_ROUND, AR_SIM_FAST, 0},       {"fast round simgrid", AR_SYNC_ROUND, AR_SIM_FAST, 1},
    {"fast dataflow", AR_SYNC_DATAFLOW, AR_SIM_FAST, 0}, {"fast dataflow simgrid", AR_SYNC_DATAFLOW, AR_SIM_FAST, 1},
    {"naive round", AR_SYNC_ROUND, AR_SIM_NAIVE, 0},     {"naive dataflow", AR_SYNC_DATAFLOW, AR_SIM_NAIVE, 0},
};
#define SIM_NMODES (sizeof sim_modes / sizeof sim_modes[0])

/* Simulates schedule s in mode m into *r (freed by the caller); check: --check on the fast engine. */
static inline ar_status sim_run_mode(const ar_platform *p, const ar_schedule *s, const sim_mode *m, int check,
                                     ar_sim_result *r, ar_err *e) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = m->sync;
    o.engine = m->engine;
    o.full = m->full;
    o.check = check && m->engine == AR_SIM_FAST;
    memset(r, 0, sizeof *r);
    return ar_sim_run(p, s, &o, r, e);
}

/* The walk and every engine mode on schedule s against a time derived by hand: hand_df under
 * --sync dataflow (and the walk, which prices dataflow), hand_round under --sync round, each to
 * 1e-9. check_buffers: --check on the fast engine's runs (the schedule's buffers hold the sums). */
static inline void sim_modes_vs_hand(const char *what, const ar_platform *p, const ar_schedule *s, double hand_df,
                                     double hand_round, int check_buffers) {
    ar_err e = {{0}};
    ar_model_result m;
    T_CHECK(ar_model_walk(p, s, &m, &e) == AR_OK, "%s: walk: %s", what, e.msg);
    printf("%-30s walk %.9f  hand %.9f us\n", what, m.time_s * 1e6, hand_df * 1e6);
    T_CHECK(sim_rel(m.time_s, hand_df) <= 1e-9, "%s: walk %.17g, hand %.17g", what, m.time_s, hand_df);
    for (size_t k = 0; k < SIM_NMODES; k++) {
        ar_sim_result r;
        ar_status st = sim_run_mode(p, s, &sim_modes[k], check_buffers, &r, &e);
        T_CHECK(st == AR_OK && r.complete, "%s (%s): %s", what, sim_modes[k].name, e.msg);
        if (st == AR_OK) {
            double h = sim_modes[k].sync == AR_SYNC_DATAFLOW ? hand_df : hand_round;
            printf("%-30s %-22s sim %.9f us\n", what, sim_modes[k].name, r.time_s * 1e6);
            T_CHECK(sim_rel(r.time_s, h) <= 1e-9, "%s (%s): sim %.17g, hand %.17g", what, sim_modes[k].name, r.time_s,
                    h);
        }
        ar_sim_result_free(&r);
    }
}

/* The chain tree all-reduce of sim_proto_tree.c and sim_proto_stream.c on p (machines:gpus=2+2): one
 * op, members n0.g1 (root) <- n0.g0 <- n1.g0 <- n1.g1 (ranks 1, 0, 2, 3), bytes in 4-byte elements, 2
 * chunks (7 rounds), protocol proto; *s its schedule (the caller frees it). NULL after a failed check. */
static inline ar_op *sim_chain_tree(const char *what, const ar_platform *p, ar_proto proto, uint64_t bytes,
                                    ar_schedule **s) {
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[0] == p->machine_of_rank[1] &&
                p->machine_of_rank[1] != p->machine_of_rank[2] && p->machine_of_rank[2] == p->machine_of_rank[3],
            "%s: two machines of two GPUs", what);
    *s = ar_schedule_new("tree-chain", 4, bytes / 4, 4);
    const int members[4] = {1, 0, 2, 3}, parent[4] = {-1, 0, 1, 2};
    ar_op *op = *s && ar_sched_phase(*s, "tree") >= 0
                    ? ar_sched_op(*s, AR_OP_ALL_REDUCE, AR_IMPL_TREE, members, 4, 0, bytes / 4)
                    : NULL;
    T_CHECK(op != NULL && ar_op_set_parent(op, parent) == AR_OK, "%s: the tree op is built", what);
    if (!op) return NULL;
    op->chunks = 2;
    op->proto = proto;
    T_CHECK(ar_lower_nrounds(op) == 7, "%s: 2 x depth 3 + 2 chunks - 1 = 7 rounds (got %d)", what,
            ar_lower_nrounds(op));
    return ar_lower_nrounds(op) == 7 ? op : NULL;
}

/* Name of the bottleneck link ("" if none), into buf. */
static inline const char *sim_bottleneck(const sim_run *x, char *buf, size_t n) {
    buf[0] = 0;
    if (x->r.bottleneck >= 0) ar_sim_dlink_name(x->p, x->r.bottleneck, buf, n);
    return buf;
}

#endif
