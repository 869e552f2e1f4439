/* nccl: what NCCL's tuner would run. models/nccl_model chooses the
 * algorithm and protocol for the platform, collective and size (NCCL 2.30.7's
 * tables); the schedule is then planned by the matching planner:
 *   RING -> nccl-ring,
 *   TREE -> nccl-tree, PAT -> pat,
 *   NVLS, NVLS_TREE, COLLNET_* -> nvls / nvlstree / collnet (algos/nvls.c, nvlstree.c, collnet.c);
 *   where that planner refuses the platform (no reducing switch declared, a
 *   collective it does not serve there) or the NCCL model cannot read it, the
 *   faster by the cost walk of the ring and tree planners (all-reduce: nccl-ring,
 *   nccl-tree, else ring; RS/AG: nccl-ring, pat), and the
 *   detail says so in one line.
 * Where NCCL picks RING or TREE, every op gets the tuner's protocol (ar_op.proto,
 * priced by the walk); it is named in the detail either way. Where it picks NVLS or
 * NVLS_TREE, nvls:proto=auto / nvlstree:proto=auto, what NCCL_ALGO=NVLS / NVLS_TREE runs
 * (algos/switch_common.c): on one node Simple on the switch op, so the walk and the
 * simulator charge NCCL's NVLS latency (tuning.cc, 25 us; 23 us on 2.18) once, less the
 * op's own hop; NVLS_TREE across nodes the same latency on its first step's switch ops and
 * proto=fill on its trees: the first slice's trees pay NCCL's Simple network step at every
 * edge up and down, the pipeline's fill (docs/simulator.md).
 * Parameters: none. Serves all-reduce, reduce-scatter and all-gather.
 * Ownership: *out belongs to the caller.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classic_common.h"
#include "models/nccl_model.h"
#include "nccl_algos.h"

static const char *planner_of(ar_nccl_algo a, ar_coll coll) {
    (void)coll; /* nccl-ring serves every collective */
    switch (a) {
    case AR_NCCL_RING: return "nccl-ring";
    case AR_NCCL_TREE: return "nccl-tree";
    case AR_NCCL_PAT: return "pat";
    case AR_NCCL_NVLS: return "nvls";
    case AR_NCCL_NVLS_TREE: return "nvlstree";
    default: return "collnet";
    }
}

/* Plans name for coll and returns its walk time (INFINITY where it does not apply). */
static double walked(const char *name, ar_coll coll, const ar_platform *p, uint64_t count, size_t eb, ar_schedule **s) {
    ar_err e = {{0}};
    ar_model_result m;
    *s = NULL;
    if (ar_algo_plan_coll(name, coll, p, count, eb, s, &e) != AR_OK) return INFINITY;
    if (ar_model_walk(p, *s, &m, &e) != AR_OK) return INFINITY;
    return m.time_s;
}

static ar_status pick(const ar_platform *p, ar_coll coll, uint64_t count, size_t eb, ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("nccl", p, count, eb, out, e);
    if (st != AR_OK) return st;
    ar_nccl_algo a = AR_NCCL_RING;
    ar_nccl_proto pr = AR_NCCL_SIMPLE;
    double t = NAN;
    ar_err me = {{0}};
    ar_status ms = ar_nccl_model_platform(p, 0, (ar_nccl_coll)coll, -1, (double)count * (double)eb, &a, &pr, &t, &me);
    const char *name = ms == AR_OK ? planner_of(a, coll) : NULL;
    char why[300] = "";
    ar_schedule *s = NULL;
    ar_err pe = {{0}};
    ar_status ps = AR_EUNSUPPORTED;
    char spec[64];
    if (name && ms == AR_OK && a == AR_NCCL_TREE && !strcmp(name, "nccl-tree")) {
        const char *cw = "";
        int ch = ar_nccl_ring_channels(p, &cw);
        int pair = ar_nccl_tree_pairs(p, ar_nccl_proto_to_op(pr)); /* nccl-tree's heads=auto */
        ch = (ch < 2 ? 2 : ch) * (pair ? 2 : 1);
        snprintf(spec, sizeof spec, "nccl-tree:chunks=%d,heads=%s",
                 pr == AR_NCCL_LL ? ar_nccl_tree_ll_pieces(p, count, eb, (uint64_t)ch > count ? (int)count : ch, "rail")
                                  : ar_nccl_tree_chunks(p, ar_nccl_proto_to_op(pr), (double)count * (double)eb, ch),
                 pair ? "pair" : "rail");
    } else if (name && ms == AR_OK && (a == AR_NCCL_NVLS_TREE || a == AR_NCCL_NVLS)) {
        /* what NCCL_ALGO=NVLS / NVLS_TREE runs (algos/switch_common.c, proto=auto): NCCL's NVLS latency
         * once; NVLS_TREE across nodes Simple on its trees, the network step paid in the pipeline's fill */
        snprintf(spec, sizeof spec, "%s:proto=auto", name);
    } else {
        snprintf(spec, sizeof spec, "%s", name ? name : "");
    }
    if (name && ar_algo_find(name)) {
        ps = ar_algo_plan_coll(spec, coll, p, count, eb, &s, &pe);
        if (ps != AR_OK && ps != AR_EUNSUPPORTED) {
            *e = pe;
            return ps;
        }
    }
    if (ps != AR_OK) { /* fall back: the faster of the ring and tree planners by the walk */
        if (ms == AR_OK && ar_algo_find(name))
            snprintf(why, sizeof why, "; %.200s: best of ring/tree by the walk", pe.msg);
        else if (ms == AR_OK)
            snprintf(why, sizeof why, "; planner %s does not exist yet: best of ring/tree by the walk", name);
        else snprintf(why, sizeof why, "; NCCL model: %.200s: best of ring/tree by the walk", me.msg);
        const char *ring = "nccl-ring";
        const char *tree = coll == AR_COLL_ALLREDUCE ? "nccl-tree" : "pat";
        ar_schedule *s2 = NULL;
        double t1 = walked(ring, coll, p, count, eb, &s), t2 = walked(tree, coll, p, count, eb, &s2);
        if (t2 < t1) {
            ar_schedule_free(s);
            s = s2;
            name = tree;
        } else {
            ar_schedule_free(s2);
            name = ring;
        }
        if (!s && coll == AR_COLL_ALLREDUCE) { /* neither applies: the plain ring */
            name = "ring";
            (void)walked(name, coll, p, count, eb, &s);
        }
        if (!s) return ar_fail(e, AR_EUNSUPPORTED, "nccl: neither %s nor %s serves platform '%s'", ring, tree, p->name);
    }
    if (ms == AR_OK && (a == AR_NCCL_RING || a == AR_NCCL_TREE) && ar_algo_find(name) && strcmp(name, "pat"))
        for (int ph = 0; ph < s->nphases; ph++) /* the tuner's protocol, priced by the walk */
            for (int i = 0; i < s->phases[ph].nops; i++) s->phases[ph].ops[i].proto = ar_nccl_proto_to_op(pr);
    char *inner = s->detail;
    s->detail = NULL;
    int proto_set = ms == AR_OK && (a == AR_NCCL_RING || a == AR_NCCL_TREE) && ar_algo_find(name) &&
                    strcmp(name, "pat");
    char *pn = inner && proto_set ? strstr(inner, "proto=none") : NULL;
    char fixed[512] = "", lat[400] = "";
    if (pn) /* the planner's own parameter echo: the ops now carry the tuner's protocol */
        snprintf(fixed, sizeof fixed, "%.*sproto=%s%s", (int)(pn - inner), inner,
                 ar_proto_name(ar_nccl_proto_to_op(pr)), pn + strlen("proto=none"));
    if (proto_set && !ar_schedule_streams(p, s)) { /* why the schedule's small-message time differs from
                                                    * NCCL's: its hops' own latency, paid every round */
        double step_nv = 0, step_net = 0, hop[2] = {0, 0};
        ar_nccl_in in;
        ar_err le = {{0}};
        if (ar_nccl_proto_effect_v(p->nccl_version, a, pr, p->nmachines, 0, NULL, &step_nv, NULL) == AR_OK &&
            ar_nccl_proto_effect_v(p->nccl_version, a, pr, p->nmachines, 1, NULL, &step_net, NULL) == AR_OK &&
            ar_nccl_in_from_platform(p, 0, &in, &le) == AR_OK) {
            hop[0] = in.hop_lat_us[0];
            hop[1] = in.hop_lat_us[1];
            int net = !(hop[0] > step_nv + 1e-9) && p->nmachines > 1 && hop[1] > step_net + 1e-9;
            if (hop[0] > step_nv + 1e-9 || net)
                snprintf(lat, sizeof lat,
                         "; slower than nccl_model_s: a step costs the larger of the %s hop (%.3g us) and NCCL's %s "
                         "step (%.3g us)",
                         net ? "network" : "NVLink", net ? hop[1] : hop[0], ar_nccl_proto_name(pr),
                         net ? step_net : step_nv);
        }
    }
    st = ar_schedule_set_detail(s, "NCCL tuner: %s/%s%s -> %s (%s)%s", ms == AR_OK ? ar_nccl_algo_name(a) : "?",
                                ms == AR_OK ? ar_nccl_proto_name(pr) : "?", why, name,
                                pn      ? fixed
                                : inner ? inner
                                        : "",
                                lat);
    free(inner);
    char *algo = ar_strdup("nccl");
    if (st != AR_OK || !algo) {
        free(algo);
        return ar_classic_nomem("nccl", s, e);
    }
    free(s->algo);
    s->algo = algo;
    *out = s;
    return AR_OK;
}

static ar_status nccl_plan(const ar_platform *p, uint64_t count, size_t eb, const ar_param_val *v, ar_schedule **out,
                           ar_err *e) {
    (void)v;
    return pick(p, AR_COLL_ALLREDUCE, count, eb, out, e);
}

static ar_status nccl_plan_coll(const ar_platform *p, ar_coll coll, uint64_t count, size_t eb, const ar_param_val *v,
                                ar_schedule **out, ar_err *e) {
    (void)v;
    return pick(p, coll, count, eb, out, e);
}

const ar_algo ar_algo_nccl = {
    .name = "nccl",
    .label = "NCCL's choice",
    .summary = "the algorithm and protocol NCCL's tuner (nccl_model) picks for the platform and size, planned",
    .plan = nccl_plan,
    .colls = AR_COLL_BIT(AR_COLL_ALLREDUCE) | AR_COLL_BIT(AR_COLL_REDUCESCATTER) | AR_COLL_BIT(AR_COLL_ALLGATHER),
    .plan_coll = nccl_plan_coll,
};
