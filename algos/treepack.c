/* treepack: spanning-tree packing (Wang, Li, Liberty, Smola, SysML 2018).
 *
 * The planner solves the LP of treepack.h (C(G) over the spanning-tree
 * polytope, by column generation with a minimum-spanning-tree pricing step),
 * then the root LP, and runs the resulting streams (tree, root, weight):
 *
 *   phase "reduce (tree packing ...)":   one REDUCE (impl TREE) per unit, along
 *                                        the stream's tree to its root;
 *   phase "broadcast (tree packing ...)": the matching BROADCAST back down.
 *
 * All trees run concurrently in each phase; each op is pipelined in `chunks`
 * chunks (lower.h: height + chunks - 1 rounds per phase). Each op carries a
 * contiguous element range; the ranges tile [0, count) exactly.
 *
 * Units (how the weights become element ranges):
 *   units=K (1..4096): K ops of count/K elements each (exact integer split:
 *       op u covers [floor(u count/K), floor((u+1) count/K))); stream s gets
 *       floor or ceil of w_s K of them (ar_treepack_units: greedy, keeping the
 *       worst directed link low). Equal-sized ops make every transfer crossing
 *       a link equal, so the equal-share cost walk (models/walk.c) and a
 *       max-min simulator both charge each link exactly its total bytes.
 *   units=0: one op per stream with count * w_s elements (cumulative
 *       rounding): the LP's exact split, but concurrent transfers on a link
 *       then differ in size, which the equal-share walk over-charges.
 *   default: ar_treepack_pick_units(tol 0.5 %, at most 256 units): the
 *       exact common denominator when the stream weights have a small one,
 *       else the smallest power of two >= 64 whose rounding costs at most
 *       0.5 % of C_dir, or the best of 64..256 (on P3.16xlarge and
 *       P2.16xlarge rounding costs about 2 % of C_dir; units=1024 brings it
 *       under 0.5 % at four times the ops; the detail string shows both).
 * Roots: roots=lp (default) chooses them by the root LP (treepack.h: least
 * max directed-link load, then least mean height); roots=first roots every
 * tree at its lowest rank.
 *
 * Budget: budget=T (a time: 2s, 500ms; default none) gives the LP a wall budget
 * (ar_treepack_opts.budget_s): past it the solver keeps the packing it has, and
 * the detail string says so ("; LP stopped by budget after 2 s: C(G) <= U, >= L
 * (gap x %)", or that the least-traffic stage stopped).
 *
 * Parameters: chunks=N (1..4096, default 16), units=K (0..4096), roots=lp|first,
 * budget=T (a positive time, default none).
 * Ownership: *out belongs to the caller (ar_schedule_free).
 * Owner of this file: spanning-tree packing.
 */
#include <math.h>
#include <string.h>

#include "classic_common.h"
#include "core/units.h"
#include "treepack.h"

enum { TP_ROOTS_LP, TP_ROOTS_FIRST };
const ar_param_def ar_tp_params[] = {
    [AR_TP_P_CHUNKS] =
        {.key = "chunks", .type = AR_PARAM_INT, .min = 1, .max = 4096, .def = 16, .help = "pipeline chunks per op"},
    [AR_TP_P_UNITS] = {.key = "units",
                       .type = AR_PARAM_INT,
                       .min = 0,
                       .max = 4096,
                       .def = -1,
                       .def_text = "exact when <= 256, else rounded within 0.5%",
                       .help = "K equal ops of count/K elements (0: one op per stream, the LP's exact split)"},
    [AR_TP_P_ROOTS] = {.key = "roots",
                       .type = AR_PARAM_ENUM,
                       .choices = "lp|first",
                       .def = TP_ROOTS_LP,
                       .help = "lp: roots by the root LP; first: every tree rooted at its lowest rank"},
    [AR_TP_P_BUDGET] = {.key = "budget",
                        .type = AR_PARAM_STR,
                        .def_text = "none",
                        .example = "2s",
                        .help = "wall budget of the LP (e.g. 2s, 500ms): past it the packing found so far, the "
                                "detail says so with the gap"},
    {0},
};

ar_status ar_tp_budget_param(const ar_param_val *v, double *budget_s, ar_err *e) {
    *budget_s = 0;
    if (!v[AR_TP_P_BUDGET].given) return AR_OK;
    ar_err e2 = {{0}};
    if (ar_parse_time(v[AR_TP_P_BUDGET].s, budget_s, &e2) != AR_OK || !(*budget_s > 0))
        return ar_fail(e, AR_EINVAL, "treepack: budget=%s: expected a positive time such as 2s or 500ms",
                       v[AR_TP_P_BUDGET].s);
    return AR_OK;
}

static ar_status add_op(ar_schedule *s, ar_op_kind kind, const int *members, int n, uint64_t off, uint64_t len,
                        const ar_tp_stream *st, int chunks, int tag) {
    if (!len) return AR_OK;
    ar_op *op = ar_sched_op(s, kind, AR_IMPL_TREE, members, n, off, len);
    if (!op || ar_op_set_parent(op, st->parent) != AR_OK) return AR_ENOMEM;
    op->root = st->root;
    op->chunks = chunks;
    op->tag = tag;
    return AR_OK;
}

static ar_status tp_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                         ar_schedule **out, ar_err *e) {
    ar_status st = ar_classic_check("treepack", p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    long long chunks = v[AR_TP_P_CHUNKS].i, units = v[AR_TP_P_UNITS].i;
    const char *roots = v[AR_TP_P_ROOTS].s;
    ar_treepack_opts o = ar_treepack_defaults();
    o.root_lp = v[AR_TP_P_ROOTS].i == TP_ROOTS_LP;
    if ((st = ar_tp_budget_param(v, &o.budget_s, e)) != AR_OK) return st;
    ar_treepack_result r;
    if ((st = ar_treepack_solve(p, &o, &r, e)) != AR_OK) return st;
    int n = p->nranks, ns = r.nstreams, K = 0;
    double cdir = r.C_dir;
    int *per = ar_calloc((size_t)ns + 1, sizeof *per);
    int *members = ar_classic_iota(0, n);
    ar_schedule *s = ar_schedule_new("treepack", n, count, elem_bytes);
    if (!per || !members || !s) goto nomem;
    if (units < 0) {
        K = ar_treepack_pick_units(&r, AR_TP_UNITS_TOL, AR_TP_UNITS_MAX, per, &cdir);
        if (K == 0) goto nomem;
    } else if (units > 0) {
        K = (int)units;
        cdir = ar_treepack_units(&r, K, per);
    }
    char cbuf[64], bbuf[200];
    ar_tp_budget_note(&r, bbuf, sizeof bbuf);
    if (ar_schedule_set_detail(
            s, "C(G)=%s C_dir=%.6g (LP %.6g) trees=%d streams=%d units=%d chunks=%lld roots=%s Dmax=%d%s%s",
            ar_tp_fmt(r.C, (ar_tp_frac){r.C_num, r.C_den}, cbuf, sizeof cbuf), cdir, r.C_dir, r.ntrees, ns, K, chunks,
            roots, r.max_height, bbuf[0] ? "; " : "", bbuf) != AR_OK)
        goto nomem;
    static const ar_op_kind kinds[2] = {AR_OP_REDUCE, AR_OP_BROADCAST};
    static const char *const names[2] = {"reduce", "broadcast"};
    for (int ph = 0; ph < 2; ph++) {
        if (ar_sched_phase(s, "%s (tree packing, %d streams, chunks=%lld)", names[ph], ns, chunks) < 0) goto nomem;
        if (K > 0) {
            int u = 0;
            for (int i = 0; i < ns; i++)
                for (int k = 0; k < per[i]; k++, u++) {
                    uint64_t a = count * (uint64_t)u / (uint64_t)K, b = count * (uint64_t)(u + 1) / (uint64_t)K;
                    if (add_op(s, kinds[ph], members, n, a, b - a, &r.streams[i], (int)chunks, i) != AR_OK) goto nomem;
                }
        } else {
            double cum = 0;
            uint64_t prev = 0;
            for (int i = 0; i < ns; i++) {
                cum += r.streams[i].weight;
                uint64_t b = i == ns - 1 ? count : (uint64_t)llround((double)count * cum);
                if (b > count) b = count;
                if (b < prev) b = prev;
                if (add_op(s, kinds[ph], members, n, prev, b - prev, &r.streams[i], (int)chunks, i) != AR_OK)
                    goto nomem;
                prev = b;
            }
        }
    }
    free(per);
    free(members);
    ar_treepack_result_free(&r);
    *out = s;
    return AR_OK;
nomem:
    free(per);
    free(members);
    ar_treepack_result_free(&r);
    return ar_classic_nomem("treepack", s, e);
}

const ar_algo ar_algo_treepack = {
    .name = "treepack",
    .label = "Spanning-tree packing (Wang et al.)",
    .summary = "LP-optimal weighted spanning trees (C(G)), each reducing its share to a root and broadcasting it, "
               "pipelined, all concurrently",
    .params = ar_tp_params,
    .plan = tp_plan,
};
