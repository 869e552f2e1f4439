/* Generic cost walk (model.h: ar_model_walk).
 *
 * For each phase, round k of every op runs together (lockstep). In a round, a
 * transfer finishes when the most loaded directed link on its route has carried
 * all the bytes the round puts on it: route latency + max over its links of
 * (bytes on the link / capacity); the round takes its slowest transfer. With
 * equal transfers this is the papers' equal share (BlueConnect's w2/6 for six
 * streams on one uplink); with unequal ones (FlexReduce's uneven calls, tree
 * packing's shares) it is the time a work-conserving link needs, which is what
 * a flow-level simulator computes at a single bottleneck. A transfer into a
 * reducing switch (AR_IMPL_SWITCH) also loads the switch's virtual reduction
 * link (platform.h), priced like any link.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/lower.h"
#include "../core/util.h"
#include "model.h"
#include "nccl_model.h"

typedef struct walk {
    const ar_platform *p;
    double *load;      /* bytes per directed link in the current round */
    ar_dlink *touched; /* directed links with load > 0 */
    size_t ntouched, captouched;
    ar_xfer *xf; /* transfers of the round (all ops) */
    size_t nxf, capxf;
    int *route_off; /* route of transfer i: routes[route_off[i] .. route_off[i+1]) */
    ar_dlink *routes;
    size_t caproutes, capoff;
    int *nrounds; /* rounds of each op of the current phase */
    size_t capnr;
    ar_xfer *prev; /* the last priced round (same transfers and sizes: same price, not routed again) */
    size_t nprev, capprev;
    double prev_t, prev_bw, prev_lat, prev_eb;
} walk;

/* Prices the round in w->xf, reusing the last priced round's outcome when it moves the same
 * sizes between the same ends in the same order (an idle network each round: the price is
 * a function of (src, dst, reduce, bytes) alone). Exact; a ring's 2(n-1) rounds are priced once. */
static ar_status price_round(walk *w, double elem_bytes, double *t_out, double *bw_out, double *lat_out, ar_err *e);
static ar_status price_round_reuse(walk *w, double elem_bytes, double *t, double *bw, double *lat, ar_err *e) {
    int same = w->prev && w->nprev == w->nxf && w->prev_eb == elem_bytes;
    for (size_t i = 0; same && i < w->nxf; i++)
        same = w->prev[i].src == w->xf[i].src && w->prev[i].dst == w->xf[i].dst &&
               w->prev[i].reduce == w->xf[i].reduce && /* a reduction into a switch crosses its virtual link */
               ar_xfer_elems(&w->prev[i]) == ar_xfer_elems(&w->xf[i]);
    if (same) {
        *t = w->prev_t, *bw = w->prev_bw, *lat = w->prev_lat;
        return AR_OK;
    }
    ar_status st = price_round(w, elem_bytes, t, bw, lat, e);
    if (st != AR_OK) return st;
    if (ar_grow(&w->prev, &w->capprev, w->nxf + 1, sizeof *w->prev) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    memcpy(w->prev, w->xf, w->nxf * sizeof *w->prev);
    w->nprev = w->nxf;
    w->prev_t = *t, w->prev_bw = *bw, w->prev_lat = *lat, w->prev_eb = elem_bytes;
    return AR_OK;
}

/* Prices the transfers in w->xf; returns the round time and the bottleneck. */
static ar_status price_round(walk *w, double elem_bytes, double *t_out, double *bw_out, double *lat_out, ar_err *e) {
    const ar_platform *p = w->p;
    if (ar_grow(&w->route_off, &w->capoff, w->nxf + 1, sizeof *w->route_off) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    size_t used = 0;
    w->route_off[0] = 0;
    for (size_t i = 0; i < w->nxf; i++) {
        int len;
        ar_status st = ar_platform_route_x_append(p, w->xf[i].src, w->xf[i].dst, w->xf[i].reduce, &w->routes,
                                                  &w->caproutes, used, &len, e);
        if (st != AR_OK) {
            ar_err_prefix(e, "cost walk");
            return st;
        }
        double bytes = (double)ar_xfer_elems(&w->xf[i]) * elem_bytes;
        for (int k = 0; k < len; k++) {
            ar_dlink d = w->routes[used + (size_t)k];
            int fresh = w->load[d] == 0;
            w->load[d] += bytes;
            if (fresh) {
                if (w->ntouched == w->captouched &&
                    ar_grow(&w->touched, &w->captouched, w->ntouched + 1, sizeof *w->touched) < 0)
                    return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                w->touched[w->ntouched++] = d;
            }
        }
        used += (size_t)len;
        w->route_off[i + 1] = (int)used;
    }
    double tmax = 0, bw_at = 0, lat_at = 0;
    for (size_t i = 0; i < w->nxf; i++) {
        double lat = 0, drain = 0; /* slowest link of the route to carry its round's bytes */
        for (int k = w->route_off[i]; k < w->route_off[i + 1]; k++) {
            ar_dlink d = w->routes[k];
            const ar_link *l = &p->links[AR_DLINK_LINK(d)];
            double s = w->load[d] / ar_link_capacity(l);
            if (s > drain) drain = s;
            lat += l->lat_s;
        }
        double bytes = (double)ar_xfer_elems(&w->xf[i]) * elem_bytes;
        double t = lat + drain;
        if (t > tmax) {
            tmax = t;
            bw_at = drain > 0 ? bytes / drain : 0; /* the rate this transfer effectively got */
            lat_at = lat;
        }
    }
    for (size_t i = 0; i < w->ntouched; i++) w->load[w->touched[i]] = 0;
    w->ntouched = 0;
    *t_out = tmax;
    *bw_out = bw_at;
    *lat_out = lat_at;
    return AR_OK;
}

/* NCCL protocols (ar_op.proto, issue 13): NCCL's bandwidth factor and per-step
 * latency (models/nccl_model.h ar_nccl_proto_effect; TREE ops take the tree's,
 * others the ring's; per step the NVLink and network latencies weighted by the
 * share of the op's hops that cross machines, as NCCL charges intra/inter steps)
 * for the phase's ops with a protocol: every round's bytes are divided by the
 * smallest factor and the largest step latency is added to every round; the
 * base latency once per phase. No protocol: factor 1, no latency. */
void ar_phase_proto_effect(const ar_platform *p, const ar_phase *ph, double *bw_factor, double *step_s,
                           double *base_s) {
    *bw_factor = 1.0;
    *step_s = *base_s = 0;
    for (int i = 0; i < ph->nops; i++) {
        const ar_op *op = &ph->ops[i];
        if (op->proto == AR_PROTO_NONE) continue;
        ar_nccl_algo a = op->impl == AR_IMPL_TREE ? AR_NCCL_TREE : AR_NCCL_RING;
        ar_nccl_proto pr = op->proto == AR_PROTO_LL      ? AR_NCCL_LL
                           : op->proto == AR_PROTO_LL128 ? AR_NCCL_LL128
                                                         : AR_NCCL_SIMPLE;
        int cross = 0, nedge = 0; /* hops (ring: member order; tree: parent edges) crossing machines */
        for (int m = 0; p->machine_of_rank && m < op->n; m++) {
            int q = op->parent ? op->parent[m] : (m + 1) % op->n;
            if (q < 0 || q == m) continue;
            nedge++;
            cross += p->machine_of_rank[op->members[m]] != p->machine_of_rank[op->members[q]];
        }
        int nn = p->nmachines > 0 ? p->nmachines : 1;
        double f, step, base, step_net, x = nedge ? (double)cross / nedge : 0;
        if (ar_nccl_proto_effect(a, pr, nn, 0, &f, &step, &base) != AR_OK ||
            ar_nccl_proto_effect(a, pr, nn, 1, NULL, &step_net, NULL) != AR_OK)
            continue;
        step = (1 - x) * step + x * step_net; /* NCCL: intra steps at NVLink latency, inter-node ones at the net's */
        if (f < *bw_factor) *bw_factor = f;
        if (step * 1e-6 > *step_s) *step_s = step * 1e-6;
        if (base * 1e-6 > *base_s) *base_s = base * 1e-6;
    }
}

ar_status ar_model_walk(const ar_platform *p, const ar_schedule *s, ar_model_result *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    if (s->nranks != p->nranks)
        return ar_fail(e, AR_EINVAL, "schedule has %d ranks, platform %s has %d", s->nranks, p->name, p->nranks);
    double work = 0;
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++)
            work += (double)ar_lower_nrounds(&s->phases[ph].ops[i]) * (double)ar_lower_max_xfers(&s->phases[ph].ops[i]);
    if (work > AR_WALK_MAX_TRANSFERS)
        return ar_fail(e, AR_ELIMIT, "cost walk: %s lowers to about %.3g transfers, beyond the walk's limit of %.3g",
                       s->algo, work, AR_WALK_MAX_TRANSFERS);
    ar_status cs = ar_platform_check_switch_ops(p, s, e);
    if (cs != AR_OK) {
        ar_err_prefix(e, "cost walk");
        return cs;
    }
    walk w = {.p = p};
    w.load = ar_calloc(((size_t)p->nlinks + (size_t)p->nvlinks) * 2 + 1, sizeof *w.load); /* + virtual links */
    if (!w.load) return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    ar_status st = AR_OK;
    for (int ph = 0; ph < s->nphases && st == AR_OK; ph++) {
        const ar_phase *phase = &s->phases[ph];
        int maxr = 0;
        size_t maxx = 0;
        if (ar_grow(&w.nrounds, &w.capnr, (size_t)phase->nops, sizeof *w.nrounds) < 0) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        for (int i = 0; i < phase->nops; i++) {
            int r = w.nrounds[i] = ar_lower_nrounds(&phase->ops[i]); /* once per op, not per round */
            if (r > maxr) maxr = r;
            maxx += ar_lower_max_xfers(&phase->ops[i]);
        }
        if (ar_grow(&w.xf, &w.capxf, maxx, sizeof *w.xf) < 0) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        double tphase = 0, bw_min = 0, lat_max = 0, pf, pstep, pbase;
        ar_phase_proto_effect(p, phase, &pf, &pstep, &pbase);
        for (int r = 0; r < maxr && st == AR_OK; r++) {
            w.nxf = 0;
            for (int i = 0; i < phase->nops; i++)
                if (r < w.nrounds[i]) w.nxf += ar_lower_round(&phase->ops[i], r, w.xf + w.nxf);
            double t = 0, bw = 0, lat = 0;
            st = price_round_reuse(&w, (double)s->elem_bytes / pf, &t, &bw, &lat, e);
            tphase += t + pstep;
            if (bw > 0 && (bw_min == 0 || bw < bw_min)) bw_min = bw;
            if (lat > lat_max) lat_max = lat;
        }
        if (st != AR_OK) break;
        tphase += pbase;
        const ar_op *op0 = phase->nops ? &phase->ops[0] : NULL;
        int pmax = 0;
        double bytes = 0;
        for (int i = 0; i < phase->nops; i++) {
            if (phase->ops[i].n > pmax) pmax = phase->ops[i].n;
            double b = (double)phase->ops[i].count * (double)s->elem_bytes;
            if (b > bytes) bytes = b;
        }
        char label[96];
        snprintf(label, sizeof label, "%s", phase->label ? phase->label : "");
        if (!phase->label) snprintf(label, sizeof label, "phase %d", ph);
        ar_model_add_stage(out, label, op0 ? ar_impl_name(op0->impl) : "-", pmax, bytes, bw_min, lat_max, tphase);
    }
    free(w.load);
    free(w.touched);
    free(w.xf);
    free(w.route_off);
    free(w.routes);
    free(w.nrounds);
    free(w.prev);
    snprintf(out->note, sizeof out->note,
             "generic walk: lockstep rounds, equal share of each directed link per round, alpha = route latency");
    return st;
}
