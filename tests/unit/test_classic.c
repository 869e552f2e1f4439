/* The classic algorithms (ring, pipelined-ring, halving-doubling, binomial, ps,
 * two-level) on every preset platform and 240 random topologies, several
 * element counts: each schedule must pass ar_schedule_check_structure,
 * ar_schedule_validate and ar_schedule_execute_host; plus structural
 * properties (rounds, phases, owners) and refusals of bad input.
 * Algorithms added to the registry later are skipped here (they have their
 * own tests). */
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "core/params.h"
#include "core/util.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "../randtopo.h"
#include "../t.h"
#include "../t_plan.h"

/* Variants tested per algorithm of this set (params after ':'). */
static const char *const variants[] = {
    "ring",
    "pipelined-ring",
    "pipelined-ring:chunks=1",
    "pipelined-ring:chunks=3",
    "halving-doubling",
    "binomial",
    "ps",
    "ps:servers=1",
    "ps:servers=2",
    "ps:servers=3",
    "two-level",
    "two-level:impl=ring",
    "two-level:impl=hd",
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

static int name_is(const char *spec, const char *name) {
    size_t n = strlen(name);
    return !strncmp(spec, name, n) && (spec[n] == '\0' || spec[n] == ':');
}

static int is_mine(const char *name) {
    for (int v = 0; v < NVARIANTS; v++)
        if (name_is(variants[v], name)) return 1;
    return 0;
}

/* Plans spec on p; returns the status and the schedule in *out (or NULL). */
static ar_status plan(const ar_platform *p, const char *spec, uint64_t count, ar_schedule **out, ar_err *e) {
    ar_param_val v[AR_MAX_PARAMS];
    const ar_algo *a = NULL;
    *out = NULL;
    /* the descriptor's table checks the parameters; the planner runs without
     * ar_algo_plan's structure check (the validator below does more) */
    ar_status st = ar_algo_bind(spec, p ? p->nranks : 0, &a, v, e);
    if (st == AR_OK) st = a->plan(p, count, 4, v, out, e);
    if (st != AR_OK && *out) {
        ar_schedule_free(*out);
        *out = NULL;
    }
    return st;
}

static int clg(int n) {
    int k = 0;
    while ((1 << k) < n) k++;
    return k;
}
static int max_machine(const ar_platform *p) {
    int g = 0;
    for (int m = 0; m < p->nmachines; m++)
        if (p->machine_first_rank[m + 1] - p->machine_first_rank[m] > g)
            g = p->machine_first_rank[m + 1] - p->machine_first_rank[m];
    return g;
}

/* Whether a variant is expected to be refused on p (and with which status). */
static ar_status expected(const ar_platform *p, const char *spec) {
    int P = p->nranks;
    if ((!strcmp(spec, "ps:servers=2") && P < 2) || (!strcmp(spec, "ps:servers=3") && P < 3)) return AR_EINVAL;
    if (!strcmp(spec, "two-level:impl=hd") && !ar_is_pow2(p->nmachines)) return AR_EUNSUPPORTED;
    return AR_OK;
}

/* Structural properties of one schedule (spec planned on p). */
static void properties(const ar_platform *p, const char *spec, const ar_schedule *s, const char *where) {
    int P = p->nranks;
    uint64_t count = s->count;
    if (name_is(spec, "ring") || name_is(spec, "pipelined-ring")) {
        int c = !strcmp(spec, "pipelined-ring:chunks=3") ? 3 : !strcmp(spec, "pipelined-ring") ? 4 : 1;
        T_CHECK(s->nphases == 2 && s->phases[0].nops == 1 && s->phases[1].nops == 1, "%s %s: phases %d", where, spec,
                s->nphases);
        if (s->nphases == 2) {
            const ar_op *rs = &s->phases[0].ops[0], *ag = &s->phases[1].ops[0];
            T_CHECK(rs->kind == AR_OP_REDUCE_SCATTER && ag->kind == AR_OP_ALL_GATHER && rs->n == P && ag->n == P,
                    "%s %s: RS+AG over P", where, spec);
            T_CHECK(ar_lower_nrounds(rs) == c * (P - 1) && ar_lower_nrounds(ag) == c * (P - 1),
                    "%s %s: RS rounds %d, want %d", where, spec, ar_lower_nrounds(rs), c * (P - 1));
        }
    } else if (name_is(spec, "halving-doubling")) {
        int q = 1;
        while (q * 2 <= P) q *= 2;
        int want = q == P ? 2 : 4;
        T_CHECK(s->nphases == want, "%s %s: %d phases, want %d", where, spec, s->nphases, want);
        if (s->nphases == want) {
            const ar_op *rs = &s->phases[want == 4].ops[0];
            T_CHECK(rs->impl == AR_IMPL_HD && rs->n == q && ar_lower_nrounds(rs) == clg(q),
                    "%s: hd RS over %d members, %d rounds", where, rs->n, ar_lower_nrounds(rs));
            if (want == 4) {
                const ar_phase *f = &s->phases[0], *u = &s->phases[3];
                T_CHECK(f->nops == P - q && u->nops == P - q, "%s: fold %d / unfold %d sends, want %d", where, f->nops,
                        u->nops, P - q);
                T_CHECK(f->label && !strncmp(f->label, "fold", 4) && u->label && !strncmp(u->label, "unfold", 6),
                        "%s: labels %s / %s", where, f->label ? f->label : "-", u->label ? u->label : "-");
                for (int i = 0; i < f->nops && i < u->nops; i++) {
                    T_CHECK(f->ops[i].kind == AR_OP_SEND && f->ops[i].reduce == 1 && f->ops[i].members[0] == q + i &&
                                f->ops[i].members[1] == i,
                            "%s: fold op %d", where, i);
                    T_CHECK(u->ops[i].kind == AR_OP_SEND && u->ops[i].reduce == 0 && u->ops[i].members[0] == i &&
                                u->ops[i].members[1] == q + i,
                            "%s: unfold op %d", where, i);
                }
                T_CHECK(s->detail && strstr(s->detail, "fold"), "%s: detail '%s' names the fold", where,
                        s->detail ? s->detail : "");
            }
        }
    } else if (name_is(spec, "binomial")) {
        T_CHECK(s->nphases == 2, "%s: binomial phases %d", where, s->nphases);
        if (s->nphases == 2)
            T_CHECK(s->phases[0].ops[0].kind == AR_OP_REDUCE && s->phases[1].ops[0].kind == AR_OP_BROADCAST &&
                        ar_lower_nrounds(&s->phases[0].ops[0]) == clg(P) &&
                        ar_lower_nrounds(&s->phases[1].ops[0]) == clg(P),
                    "%s: binomial reduce+bcast of ceil(lg %d) rounds", where, P);
    } else if (name_is(spec, "ps")) {
        int k = !strcmp(spec, "ps:servers=1")   ? 1
                : !strcmp(spec, "ps:servers=2") ? 2
                : !strcmp(spec, "ps:servers=3") ? 3
                                                : P;
        T_CHECK(s->nphases == 2, "%s %s: phases %d", where, spec, s->nphases);
        for (int ph = 0; ph < s->nphases && ph < 2; ph++) {
            const ar_op *op = &s->phases[ph].ops[0];
            T_CHECK(op->impl == AR_IMPL_DIRECT && op->counts && op->n == P, "%s %s: direct with counts", where, spec);
            if (!op->counts) continue;
            uint64_t sum = 0, lo = count / (uint64_t)k;
            int bad = 0;
            for (int i = 0; i < P; i++) {
                sum += op->counts[i];
                if (i < k ? (op->counts[i] < lo || op->counts[i] > lo + 1) : op->counts[i] != 0) bad = 1;
            }
            T_CHECK(sum == count && !bad, "%s %s: counts sum %llu, owners = ranks 0..%d", where, spec,
                    (unsigned long long)sum, k - 1);
            if (k == 1) T_CHECK(op->counts[0] == count, "%s: servers=1: rank 0 owns everything", where);
        }
    } else if (name_is(spec, "two-level")) {
        int M = p->nmachines, G = max_machine(p);
        int want = (G > 1 ? 2 : 0) + (M > 1 ? 1 : 0);
        if (want == 0) want = 0; /* a single one-GPU rank: no phase at all */
        T_CHECK(s->nphases == want, "%s %s: %d phases, want %d (M=%d, max gpus %d)", where, spec, s->nphases, want, M,
                G);
        if (s->nphases == want && M > 1) {
            const ar_op *ar = &s->phases[G > 1 ? 1 : 0].ops[0];
            int ok = ar->kind == AR_OP_ALL_REDUCE && ar->n == M;
            for (int m = 0; ok && m < M; m++) ok = ar->members[m] == p->machine_first_rank[m];
            T_CHECK(ok, "%s %s: all-reduce among the masters", where, spec);
            ar_impl want_impl = (!strcmp(spec, "two-level:impl=ring") || (!strcmp(spec, "two-level") && !ar_is_pow2(M)))
                                    ? AR_IMPL_RING
                                    : AR_IMPL_HD;
            T_CHECK(ar->impl == want_impl, "%s %s: masters impl %s", where, spec, ar_impl_name(ar->impl));
        }
        if (s->nphases == want && G > 1) {
            int local = 0;
            for (int m = 0; m < M; m++) local += p->machine_first_rank[m + 1] - p->machine_first_rank[m] > 1;
            T_CHECK(s->phases[0].nops == local && s->phases[want - 1].nops == local,
                    "%s %s: %d local reduces/broadcasts, want %d", where, spec, s->phases[0].nops, local);
            T_CHECK(s->phases[0].ops[0].kind == AR_OP_REDUCE && s->phases[want - 1].ops[0].kind == AR_OP_BROADCAST,
                    "%s %s: reduce first, broadcast last", where, spec);
        }
    }
}

typedef struct stats {
    int schedules, refusals;
} stats;

/* Every variant of this set on p for a list of counts. */
static void run_platform(const ar_platform *p, const char *where, int nalgos, const ar_algo *const *algos, int full,
                         stats *S) {
    int P = p->nranks;
    uint64_t counts[8];
    int nc = 0;
    counts[nc++] = 1;
    if (P > 2) counts[nc++] = (uint64_t)P - 1;
    if (P > 1) counts[nc++] = (uint64_t)P;
    if (P > 4) counts[nc++] = (uint64_t)P / 2 + 1; /* count < P */
    counts[nc++] = 1000;
    if (full) counts[nc++] = 12345;
    for (int a = 0; a < nalgos; a++) {
        if (!is_mine(algos[a]->name)) continue;
        for (int v = 0; v < NVARIANTS; v++) {
            if (!name_is(variants[v], algos[a]->name)) continue;
            ar_status want = expected(p, variants[v]);
            for (int c = 0; c < nc; c++) {
                ar_err e = {{0}};
                ar_schedule *s = NULL;
                ar_status st = plan(p, variants[v], counts[c], &s, &e);
                if (want != AR_OK) {
                    T_CHECK(st == want && !s && e.msg[0], "%s %s: expected refusal %d, got %d (%s)", where, variants[v],
                            (int)want, (int)st, e.msg);
                    S->refusals++;
                    if (s) ar_schedule_free(s);
                    break;
                }
                T_CHECK(st == AR_OK && s, "%s %s count %llu: plan -> %s: %s", where, variants[v],
                        (unsigned long long)counts[c], ar_status_name(st), e.msg);
                if (!s) continue;
                S->schedules++;
                T_CHECK(s->nranks == P && s->count == counts[c] && s->elem_bytes == 4 && s->algo &&
                            !strcmp(s->algo, algos[a]->name),
                        "%s %s: schedule header", where, variants[v]);
                st = ar_schedule_check_structure(s, &e);
                T_CHECK(st == AR_OK, "%s %s count %llu: structure: %s", where, variants[v],
                        (unsigned long long)counts[c], e.msg);
                st = ar_schedule_validate(s, &e);
                T_CHECK(st == AR_OK, "%s %s count %llu: validate: %s", where, variants[v],
                        (unsigned long long)counts[c], e.msg);
                st = ar_schedule_execute_host(s, 0, &e);
                T_CHECK(st == AR_OK, "%s %s count %llu: host exec: %s", where, variants[v],
                        (unsigned long long)counts[c], e.msg);
                properties(p, variants[v], s, where);
                ar_schedule_free(s);
            }
        }
    }
}

int main(void) {
    int nalgos = 0;
    const ar_algo *const *algos = ar_algos(&nalgos);
    stats S = {0, 0};

    /* the registry: unique names, every one of this set present, lookups */
    int found = 0;
    for (int a = 0; a < nalgos; a++) {
        T_CHECK(algos[a]->name && algos[a]->label && algos[a]->summary && algos[a]->plan,
                "algorithm %d has every field", a);
        for (int k = 0; k < ar_param_count(algos[a]->params); k++) {
            const ar_param_def *d = &algos[a]->params[k];
            T_CHECK(d->help && d->help[0] && (d->type != AR_PARAM_ENUM || (d->choices && d->choices[0])) &&
                        (d->type != AR_PARAM_LIST || d->sep),
                    "%s: parameter %s has help and its allowed values", algos[a]->name, d->key);
        }
        T_CHECK(ar_algo_find(algos[a]->name) == algos[a], "find %s", algos[a]->name);
        for (int b = 0; b < a; b++)
            T_CHECK(strcmp(algos[a]->name, algos[b]->name), "duplicate name %s", algos[a]->name);
        found += is_mine(algos[a]->name);
    }
    T_CHECK(found == 6, "all 6 classic algorithms registered (found %d)", found);
    T_CHECK(ar_algo_find("no-such-algo") == NULL && ar_algo_find(NULL) == NULL, "unknown names");

    /* presets */
    char **names = NULL;
    int npresets = 0;
    ar_err e = {{0}};
    T_CHECK(ar_platform_list_presets(&names, &npresets, &e) == AR_OK, "list presets: %s", e.msg);
    T_CHECK(npresets > 0, "some presets (%d)", npresets);
    for (int i = 0; i < npresets; i++) {
        ar_platform *p = load_spec(names[i]);
        if (p) {
            char where[128];
            snprintf(where, sizeof where, "preset %s (P=%d)", names[i], p->nranks);
            run_platform(p, where, nalgos, algos, p->nranks <= 256, &S);
            ar_platform_free(p);
        }
        free(names[i]);
    }
    free(names);

    /* generated families: flat with odd/prime/power-of-two counts, machines */
    static const char *const gens[] = {
        "flat:ranks=1",  "flat:ranks=2",      "flat:ranks=5",        "flat:ranks=6",          "flat:ranks=8",
        "flat:ranks=13", "machines:gpus=2+3", "machines:gpus=1+1+1", "machines:gpus=4+4+4+4", "machines:gpus=1+4+2"};
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        ar_platform *p = load_spec(gens[i]);
        if (p) {
            run_platform(p, gens[i], nalgos, algos, 1, &S);
            ar_platform_free(p);
        }
    }

    /* 240 random topologies; some forced to odd/prime rank counts */
    static const int forced[] = {7, 13, 31, 61, 1, 2, 64, 37, 3, 5, 11, 29};
    int nrand = 0, shapes[RT_NSHAPES] = {0};
    for (int i = 0; i < 240; i++) {
        rt_rng g = rt_seed((uint64_t)i + 1);
        rt_shape shape = (rt_shape)(i % RT_NSHAPES);
        int R = i % 4 == 0 ? forced[(i / 4) % (int)(sizeof forced / sizeof forced[0])] : 0;
        char desc[160];
        char *json = rt_platform_json(&g, shape, R, desc, sizeof desc);
        T_CHECK(json != NULL, "random %d: json", i);
        if (!json) continue;
        ar_platform *p = NULL;
        ar_status st = ar_platform_from_json(json, "random", &p, &e);
        T_CHECK(st == AR_OK, "random %d (%s): %s\n%s", i, desc, e.msg, json);
        if (st == AR_OK) {
            T_CHECK(R == 0 || p->nranks == R, "random %d: %d ranks, forced %d", i, p->nranks, R);
            char where[220];
            snprintf(where, sizeof where, "random %d (%s)", i, desc);
            run_platform(p, where, nalgos, algos, i % 4 == 1, &S);
            nrand++;
            shapes[shape]++;
            ar_platform_free(p);
        }
        free(json);
    }
    T_CHECK(nrand == 240, "240 random platforms loaded (%d)", nrand);

    /* specific properties on generated platforms */
    {
        ar_platform *p = load_spec("flat:ranks=6");
        ar_schedule *s = NULL;
        if (p && plan(p, "halving-doubling", 60, &s, &e) == AR_OK) {
            T_CHECK(s->nphases == 4, "hd on P=6: fold, RS, AG, unfold (%d phases)", s->nphases);
            ar_schedule_free(s);
        }
        if (p && plan(p, "ps:servers=1", 60, &s, &e) == AR_OK) {
            const ar_op *op = &s->phases[0].ops[0];
            int only0 = op->counts && op->counts[0] == 60;
            for (int i = 1; only0 && i < 6; i++) only0 = op->counts[i] == 0;
            T_CHECK(only0, "ps servers=1: rank 0 is the only owner");
            ar_schedule_free(s);
        }
        ar_platform_free(p);
    }
    {
        ar_platform *p = load_spec("blueconnect-12");
        ar_schedule *s = NULL;
        if (p && plan(p, "two-level", 1200, &s, &e) == AR_OK) {
            T_CHECK(s->nphases == 3 && s->phases[0].nops == 4 && s->phases[1].nops == 1 && s->phases[1].ops[0].n == 4 &&
                        s->phases[1].ops[0].impl == AR_IMPL_HD && s->phases[2].nops == 4,
                    "two-level on blueconnect-12: 4 reduces, HD among 4 masters, 4 broadcasts");
            ar_schedule_free(s);
        }
        if (p && plan(p, "ring", 1200, &s, &e) == AR_OK) {
            T_CHECK(ar_lower_nrounds(&s->phases[0].ops[0]) == 11, "ring RS on 12 ranks: 11 rounds");
            ar_schedule_free(s);
        }
        /* the official entry point: parse, plan, check params and structure */
        T_CHECK(ar_algo_plan("pipelined-ring:chunks=8", p, 1200, 4, &s, &e) == AR_OK && s &&
                    s->phases[0].ops[0].chunks == 8,
                "ar_algo_plan pipelined-ring:chunks=8: %s", e.msg);
        if (s) ar_schedule_free(s);
        s = NULL;

        /* refusals: each with a status and a message */
        static const struct {
            const char *spec;
            uint64_t count;
            ar_status want;
        } bad[] = {
            {"ring", 0, AR_EINVAL},
            {"pipelined-ring:chunks=0", 10, AR_EINVAL},
            {"pipelined-ring:chunks=5000", 10, AR_EINVAL},
            {"ps:servers=13", 10, AR_EINVAL},
            {"ps:servers=0", 10, AR_EINVAL},
            {"two-level:impl=tree", 10, AR_EINVAL},
            {"ring:chunks=2", 10, AR_EINVAL}, /* unknown key */
            {"binomial:root=3", 10, AR_EINVAL},
        };
        for (size_t i = 0; p && i < sizeof bad / sizeof bad[0]; i++) {
            ar_err e2 = {{0}};
            ar_status st = plan(p, bad[i].spec, bad[i].count, &s, &e2);
            T_CHECK(st == bad[i].want && !s && e2.msg[0], "%s count %llu: got %s (%s)", bad[i].spec,
                    (unsigned long long)bad[i].count, ar_status_name(st), e2.msg);
            if (s) ar_schedule_free(s);
            s = NULL;
        }
        ar_platform_free(p);
    }
    {
        ar_platform *p = load_spec("machines:gpus=1+1+1");
        ar_schedule *s = NULL;
        if (p && plan(p, "two-level:impl=hd", 10, &s, &e) != AR_OK)
            T_CHECK(strstr(e.msg, "power-of-two"), "two-level impl=hd on 3 machines names why: %s", e.msg);
        if (s) ar_schedule_free(s);
        ar_platform_free(p);
    }

    printf("test_classic: %d schedules checked, %d refusals, %d random platforms (%d sym, %d asym2, %d asym3)\n",
           S.schedules, S.refusals, nrand, shapes[0], shapes[1], shapes[2]);
    return t_done("test_classic");
}
