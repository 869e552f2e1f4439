/* Closed forms of the classic algorithms (models/closed.c):
 *   - against hand-computed formulas on the blueconnect-12 and -192 presets
 *     (level values read from the loaded platform; the shape is asserted);
 *   - against the generic walk over the planned schedule (ar_model_walk) where
 *     the closed form's assumptions hold, to 1e-9 relative;
 *   - ar_plat_alpha / ar_plat_min_bw against brute force over all rank pairs;
 *   - refusals (unknown algorithm, asymmetric machines for Eq. 7).
 */
#include <string.h>

#include "core/algo.h"
#include "core/params.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "models/model.h"
#include "../randtopo.h"
#include "../t.h"
#include "../t_plan.h"

#define REL 1e-12
#define WALK_REL 1e-9

/* Closed form of spec on p for count 4-byte elements (NAN on failure). */
static double closed(const ar_platform *p, const char *spec, uint64_t count, ar_model_result *r) {
    ar_err e = {{0}};
    ar_status st = ar_algo_closed(spec, p, count, 4, r, &e); /* checks every parameter against the table */
    T_CHECK(st == AR_OK, "closed %s on %s: %s", spec, p->name, e.msg);
    if (st == AR_OK) {
        double sum = 0;
        for (int i = 0; i < r->nstages; i++) sum += r->stages[i].time_s;
        T_NEAR(sum, r->time_s, REL, "stages add up");
        T_CHECK(r->note[0], "closed %s: has a note", spec);
    }
    return st == AR_OK ? r->time_s : NAN;
}

/* Walk over the planned schedule of spec on p. */
static double walk(const ar_platform *p, const char *spec, uint64_t count) {
    ar_schedule *s = NULL;
    ar_err e = {{0}};
    ar_status st = ar_algo_plan(spec, p, count, 4, &s, &e); /* parameters, planner, structure check */
    T_CHECK(st == AR_OK, "plan %s on %s: %s", spec, p->name, e.msg);
    if (st != AR_OK) {
        if (s) ar_schedule_free(s);
        return NAN;
    }
    static ar_model_result r;
    st = ar_model_walk(p, s, &r, &e);
    T_CHECK(st == AR_OK, "walk %s on %s: %s", spec, p->name, e.msg);
    ar_schedule_free(s);
    return st == AR_OK ? r.time_s : NAN;
}

static void closed_eq_walk(const ar_platform *p, const char *spec, uint64_t count) {
    static ar_model_result r;
    double c = closed(p, spec, count, &r), w = walk(p, spec, count);
    char what[200];
    snprintf(what, sizeof what, "closed == walk: %s on %s (P=%d, count %llu)", spec, p->name, p->nranks,
             (unsigned long long)count);
    if (w == 0.0) T_CHECK(c == 0.0, "%s: closed %g, walk 0", what, c);
    else T_NEAR(c, w, WALK_REL, what);
}

/* Brute force over all ordered rank pairs. */
static void brute(const ar_platform *p, double *alpha, double *minbw) {
    double a = 0, w = INFINITY;
    for (int u = 0; u < p->nranks; u++)
        for (int v = 0; v < p->nranks; v++)
            if (u != v) {
                a = fmax(a, ar_platform_route_lat(p, u, v));
                w = fmin(w, ar_platform_route_bw(p, u, v));
            }
    *alpha = a;
    *minbw = w;
}

static void check_plat_quantities(const ar_platform *p, const char *where) {
    double a, w;
    brute(p, &a, &w);
    if (p->nranks < 2) {
        T_CHECK(ar_plat_alpha(p) == 0.0 && isinf(ar_plat_min_bw(p)), "%s: one rank: alpha 0, min bw inf", where);
        return;
    }
    char what[220];
    snprintf(what, sizeof what, "%s: ar_plat_alpha == max route latency", where);
    T_NEAR(ar_plat_alpha(p), a, REL, what);
    snprintf(what, sizeof what, "%s: ar_plat_min_bw == min route capacity", where);
    T_NEAR(ar_plat_min_bw(p), w, REL, what);
}

/* Tr and Tc written out (EQUATIONS.md Eq. 1, 2) for the hand computations. */
static double tr(int p, double n, double a, double w) { return (p - 1) * a + (p - 1.0) / p * n / w; }

int main(void) {
    static ar_model_result r;

    /* ---- blueconnect-12: 3 GPUs/node x 2 nodes/rack x 2 racks ---- */
    ar_platform *bc = load_spec("blueconnect-12");
    if (bc) {
        T_CHECK(bc->nranks == 12 && bc->nlevels == 3 && bc->levels[0].fanout == 3 && bc->levels[1].fanout == 2 &&
                    bc->levels[2].fanout == 2 && bc->nmachines == 4,
                "blueconnect-12 shape: 12 ranks, levels 3x2x2, 4 machines");
        double w0 = bc->levels[0].bw_Bps, w1 = bc->levels[1].bw_Bps, w2 = bc->levels[2].bw_Bps;
        double l0 = bc->levels[0].lat_s, l1 = bc->levels[1].lat_s, l2 = bc->levels[2].lat_s;
        /* the paper's reading: w0 = 32 GB/s NVLink > w1 = 100 Gb/s < w2 = 200 Gb/s */
        T_CHECK(w0 > w1 && w2 >= w1, "blueconnect-12: w1 is the narrowest level");
        double a = 2 * (l0 + l1 + l2); /* GPU -> node -> rack -> root and back down */
        double a0 = 2 * l0;            /* two GPUs of one node */
        double W = w1;
        double N = 12e6 * 4; /* 12e6 float elements = 48 MB */
        uint64_t cnt = 12000000;
        T_NEAR(ar_plat_alpha(bc), a, REL, "bc12 alpha = 2(l0+l1+l2)");
        T_NEAR(ar_plat_min_bw(bc), W, REL, "bc12 minW = w1");

        /* ring, Eq. 6: 2 (11 a + 11/12 N/W). With the preset's 1 us, 100 Gb/s:
         * 2 (11 * 6e-6 + 11/12 * 48e6 / 12.5e9) = 2 (6.6e-5 + 3.52e-3) = 7.172e-3 s */
        T_NEAR(closed(bc, "ring", cnt, &r), 2 * (11 * a + 11.0 / 12 * N / W), REL, "bc12 ring");
        T_CHECK(r.nstages == 2, "ring: 2 stages");
        if (l0 == 1e-6 && l1 == 1e-6 && l2 == 1e-6 && W == 12.5e9)
            T_NEAR(r.time_s, 7.172e-3, REL, "bc12 ring with the preset's constants");

        /* halving-doubling, P = 12 = 8 + 4: fold (a + N/W), 2 Tc(8) = 2 (3 a + 7/8 N/W), unfold (a + N/W) */
        T_NEAR(closed(bc, "halving-doubling", cnt, &r), 2 * (a + N / W) + 2 * (3 * a + 7.0 / 8 * N / W), REL,
               "bc12 hd");
        T_CHECK(r.nstages == 4, "hd non-pow2: fold, RS, AG, unfold stages (%d)", r.nstages);

        /* binomial: 2 ceil(lg 12) (a + N/W) = 8 (a + N/W) */
        T_NEAR(closed(bc, "binomial", cnt, &r), 8 * (a + N / W), REL, "bc12 binomial");

        /* pipelined ring, c = 4 (default) and 3: 2 * 11 * (c a + N/(12 W)) */
        T_NEAR(closed(bc, "pipelined-ring", cnt, &r), 22 * (4 * a + N / 12 / W), REL, "bc12 pring c=4");
        T_NEAR(closed(bc, "pipelined-ring:chunks=3", cnt, &r), 22 * (3 * a + N / 12 / W), REL, "bc12 pring c=3");

        /* ps: k = 12: 2 (a + 11/12 N/W); k = 1: 2 (a + 11 N/W); k = 3: 2 (a + 11 N/(3W)) */
        T_NEAR(closed(bc, "ps", cnt, &r), 2 * (a + 11.0 / 12 * N / W), REL, "bc12 ps k=P");
        T_NEAR(closed(bc, "ps:servers=1", cnt, &r), 2 * (a + 11 * N / W), REL, "bc12 ps k=1");
        T_NEAR(closed(bc, "ps:servers=3", cnt, &r), 2 * (a + 11 * N / (3 * W)), REL, "bc12 ps k=3");

        /* two-level, Eq. 7 with p0 = 3 on w0 (a0 = 2 l0) and 4 masters (HD) on minW:
         *   reduce = Tr(3) + Tc(3) = (2 a0 + 2/3 N/w0) + (ceil(lg 3) a0 + 2/3 N/w0) = 4 a0 + 4/3 N/w0
         *   masters = 2 Tc(4, N, a, W) = 2 (2 a + 3/4 N/W); broadcast = reduce */
        double tl = 2 * (4 * a0 + 4.0 / 3 * N / w0) + 2 * (2 * a + 0.75 * N / W);
        T_NEAR(closed(bc, "two-level", cnt, &r), tl, REL, "bc12 two-level (Eq. 7)");
        T_CHECK(r.nstages == 3, "two-level: reduce, all-reduce, broadcast stages (%d)", r.nstages);
        /* with a0 = a it is exactly ar_eq7_two_level */
        T_NEAR(tl - 8 * a0 + 8 * a, ar_eq7_two_level(3, 12, N, a, w0, W), REL, "bc12 two-level vs Eq. 7 function");
        /* impl=ring among the 4 masters: 2 Tr(4, N, a, W) */
        T_NEAR(closed(bc, "two-level:impl=ring", cnt, &r), 2 * (4 * a0 + 4.0 / 3 * N / w0) + 2 * tr(4, N, a, W), REL,
               "bc12 two-level impl=ring");

        /* the generic walk: ring holds exactly (every step has the wrap-around pair
         * 11 -> 0 crossing the root: max latency and min bandwidth; no link carries
         * two ring flows per direction) */
        closed_eq_walk(bc, "ring", 12000);
        closed_eq_walk(bc, "pipelined-ring:chunks=3", 36000);
        /* two-level: the closed form charges alpha = 6 links on both HD steps among
         * the masters; the walk charges the second step (A0 <-> B0, same rack) its
         * actual 4-link route: the closed form is higher by 2 x 2 l0 (RS and AG). */
        double c2 = closed(bc, "two-level", 12000, &r), w2l = walk(bc, "two-level", 12000);
        T_NEAR(c2 - w2l, 2 * (a - ar_platform_route_lat(bc, 0, 3)), 1e-9,
               "bc12 two-level: closed - walk = HD step-2 latency overcharge");
        ar_platform_free(bc);
    }

    /* ---- blueconnect-192: 4 GPUs/node x 16 nodes/rack x 3 racks ---- */
    ar_platform *b192 = load_spec("blueconnect-192");
    if (b192) {
        T_CHECK(b192->nranks == 192 && b192->nlevels == 3 && b192->levels[0].fanout == 4 &&
                    b192->levels[1].fanout == 16 && b192->levels[2].fanout == 3 && b192->nmachines == 48,
                "blueconnect-192 shape: 4x16x3, 48 machines");
        double w0 = b192->levels[0].bw_Bps, W = fmin(w0, fmin(b192->levels[1].bw_Bps, b192->levels[2].bw_Bps));
        double a = 2 * (b192->levels[0].lat_s + b192->levels[1].lat_s + b192->levels[2].lat_s);
        double a0 = 2 * b192->levels[0].lat_s;
        double N = 192e5 * 4;
        uint64_t cnt = 19200000;
        T_NEAR(ar_plat_alpha(b192), a, REL, "bc192 alpha");
        T_NEAR(ar_plat_min_bw(b192), W, REL, "bc192 minW");
        /* ring: 2 (191 a + 191/192 N/W) */
        T_NEAR(closed(b192, "ring", cnt, &r), 2 * (191 * a + 191.0 / 192 * N / W), REL, "bc192 ring");
        /* hd: P = 192 = 128 + 64: fold + 2 Tc(128) = 2(7a + 127/128 N/W) + unfold */
        T_NEAR(closed(b192, "halving-doubling", cnt, &r), 2 * (a + N / W) + 2 * (7 * a + 127.0 / 128 * N / W), REL,
               "bc192 hd");
        /* binomial: 2 ceil(lg 192) = 2 x 8 steps */
        T_NEAR(closed(b192, "binomial", cnt, &r), 16 * (a + N / W), REL, "bc192 binomial");
        /* two-level: p0 = 4 (power of two: Tc(4) = 2 a0 + 3/4 N/w0, Tr(4) = 3 a0 + 3/4 N/w0),
         * 48 masters (not 2^k -> ring): 2 Tr(48, N, a, W) */
        double tl = 2 * (5 * a0 + 1.5 * N / w0) + 2 * tr(48, N, a, W);
        T_NEAR(closed(b192, "two-level", cnt, &r), tl, REL, "bc192 two-level (Eq. 7)");
        T_NEAR(tl - 10 * a0 + 10 * a, ar_eq7_two_level(4, 192, N, a, w0, W), REL, "bc192 vs Eq. 7 function");
        /* ring on the 3-level tree: closed == walk */
        closed_eq_walk(b192, "ring", 192 * 100);
        /* two-level with a ring among the 48 masters: every ring step has the
         * wrap-around pair crossing the director, so it holds exactly too */
        closed_eq_walk(b192, "two-level", 192 * 100);
        ar_platform_free(b192);
    }

    /* ---- closed == walk where the assumptions hold ---- */
    static const char *const flats[] = {"flat:ranks=8", "flat:ranks=6", "flat:ranks=16",
                                        "flat:ranks=5", "flat:ranks=2", "flat:ranks=1"};
    for (size_t i = 0; i < sizeof flats / sizeof flats[0]; i++) {
        ar_platform *p = load_spec(flats[i]);
        if (!p) continue;
        uint64_t c = 240 * 16 * 4; /* divisible by P, q, chunks and servers */
        closed_eq_walk(p, "ring", c);
        closed_eq_walk(p, "halving-doubling", c);
        closed_eq_walk(p, "pipelined-ring", c);
        closed_eq_walk(p, "pipelined-ring:chunks=8", c);
        closed_eq_walk(p, "binomial", c);
        closed_eq_walk(p, "ps", c);
        closed_eq_walk(p, "ps:servers=1", c);
        if (p->nranks >= 3) closed_eq_walk(p, "ps:servers=3", c);
        closed_eq_walk(p, "two-level", c); /* one machine: reduce + broadcast */
        check_plat_quantities(p, flats[i]);
        ar_platform_free(p);
    }
    /* two-level on symmetric machines under one switch: every master pair has
     * the same route, each machine uplink carries one flow per direction */
    static const char *const mach[] = {"machines:gpus=4+4+4+4", "machines:gpus=3+3+3", "machines:gpus=2+2",
                                       "machines:gpus=1+1+1+1"};
    for (size_t i = 0; i < sizeof mach / sizeof mach[0]; i++) {
        ar_platform *p = load_spec(mach[i]);
        if (!p) continue;
        closed_eq_walk(p, "two-level", 1200);
        closed_eq_walk(p, "two-level:impl=ring", 1200);
        check_plat_quantities(p, mach[i]);
        ar_platform_free(p);
    }
    /* ring on random symmetric trees: the wrap-around pair crosses the highest
     * branching level, so it has the max latency and the min bandwidth; a
     * DFS-ordered ring puts one flow per direction on every link */
    for (int i = 0; i < 60; i++) {
        rt_rng g = rt_seed(1000 + (uint64_t)i);
        char desc[160];
        char *json = rt_platform_json(&g, RT_SYM, 0, desc, sizeof desc);
        ar_platform *p = NULL;
        ar_err e = {{0}};
        if (json && ar_platform_from_json(json, desc, &p, &e) == AR_OK) {
            closed_eq_walk(p, "ring", (uint64_t)p->nranks * 1000);
            ar_platform_free(p);
        } else {
            T_CHECK(0, "random sym %d: %s", i, e.msg);
        }
        free(json);
    }

    /* ---- alpha and min bw against brute force: presets and random trees ---- */
    char **names = NULL;
    int npresets = 0;
    ar_err e = {{0}};
    T_CHECK(ar_platform_list_presets(&names, &npresets, &e) == AR_OK, "presets: %s", e.msg);
    for (int i = 0; i < npresets; i++) {
        ar_platform *p = load_spec(names[i]);
        if (p && p->nranks <= 256) check_plat_quantities(p, names[i]);
        ar_platform_free(p);
        free(names[i]);
    }
    free(names);
    for (int i = 0; i < 150; i++) {
        rt_rng g = rt_seed(5000 + (uint64_t)i);
        char desc[160];
        char *json = rt_platform_json(&g, (rt_shape)(i % RT_NSHAPES), i % 5 == 0 ? 61 - i % 7 : 0, desc, sizeof desc);
        ar_platform *p = NULL;
        if (json && ar_platform_from_json(json, desc, &p, &e) == AR_OK) {
            check_plat_quantities(p, desc);
            ar_platform_free(p);
        } else {
            T_CHECK(0, "random %d: %s", i, e.msg);
        }
        free(json);
    }

    /* ---- refusals ---- */
    ar_platform *fr = load_spec("fr-7");
    if (fr) {
        ar_status st = ar_algo_closed("two-level", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "equal size"), "two-level on 4+3 machines: %s", e.msg);
        st = ar_algo_closed("treepack", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EUNSUPPORTED && strstr(e.msg, "no closed-form model for algorithm treepack"),
                "algorithm without a closed form: %s", e.msg);
        st = ar_algo_closed("no-such-algo", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EINVAL && strstr(e.msg, "unknown algorithm \"no-such-algo\""), "unknown algorithm: %s", e.msg);
        st = ar_algo_closed("pipelined-ring:chunks=0", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EINVAL, "chunks=0 refused: %s", e.msg);
        st = ar_algo_closed("ring:chunks=2", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EINVAL && strstr(e.msg, "unknown parameter \"chunks\" (it takes none)"),
                "ring does not read chunks: %s", e.msg);
        st = ar_algo_closed("pipelined-ring:chunk=2", fr, 1000, 4, &r, &e);
        T_CHECK(st == AR_EINVAL &&
                    strstr(e.msg, "unknown parameter \"chunk\": did you mean \"chunks\"? (valid: chunks)"),
                "the message names the closest key and lists the valid keys: %s", e.msg);
        /* the other closed forms do not need symmetry */
        closed(fr, "ring", 7000, &r);
        closed(fr, "ps:servers=2", 7000, &r);
        ar_platform_free(fr);
    }

    return t_done("test_closed");
}
