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
#include <stdint.h>
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
    double prev_t, prev_bw, prev_lat, prev_eb, prev_rate;
    int routed_prev; /* routes/route_off are prev's transfers' routes (same pairs: not routed again) */
    /* per-message costs in lockstep rounds (a schedule too large for the dataflow walk): each rank's
     * send and receive side within the round, from the round's start */
    int msg;
    double *sfree, *rfree, *mdur;
    struct wd_arrival *marr;
    size_t capmd, capma;
    /* the last phase priced by the event pass: what its price depends on (evkey: its ops' rounds and
     * each round's transfers as (src, dst, reduce, elements); its bytes per element and step) and
     * the price. A pipelined schedule's slices repeat phase after phase: priced once. */
    uint64_t *evkey, *evnew;
    size_t nevkey, capevkey, capevnew;
    double ev_eb, ev_step, ev_rate, ev_t, ev_bw, ev_lat;
    int ev_valid;
    /* NCCL protocols: the current phase's ops' steps (ostep, when some op has a step:
     * steps) and the step each transfer of w->xf pays after its network part (xs; prev's in prevxs) */
    int steps;
    double *ostep;
    size_t capostep;
    /* the current phase's ops' stream flights (ar_op_stream_flight, -1: none) and whether each is paced
     * past NCCL's FIFO (ar_op_stream_paced), the dataflow pass's */
    double *stream;
    int *paced;
    size_t capstream, cappaced;
    double *xs, *prevxs;
    size_t capxs, capprevxs;
    /* the current phase's bound on every transfer's rate, wire bytes per second (ar_phase_proto_effect;
     * 0: none): its drain takes at least bytes / rate */
    double rate;
    /* the schedule and the current phase's index, for the ready messages' waits (ar_xfer_wait) */
    const ar_schedule *s;
    int ph;
    ar_proto_ctx proto; /* the schedule's NCCL protocol terms, for every phase's ar_phase_proto_effect */
} walk;

/* The phase's ops' steps (w->ostep, w->steps); 0 on out of memory. */
static int walk_phase_steps(walk *w, const ar_phase *phase, double pstep) {
    w->steps = pstep > 0 || w->p->msg_ready; /* ready messages: a gated transfer's wait (ar_xfer_wait) */
    if (!w->steps) return 1;
    if (ar_grow(&w->ostep, &w->capostep, (size_t)phase->nops + 1, sizeof *w->ostep) < 0) return 0;
    for (int i = 0; i < phase->nops; i++) w->ostep[i] = ar_op_proto_step(w->p, &phase->ops[i]);
    return 1;
}

/* The phase's ops' stream flights and pacing (w->stream, w->paced) at wire_eb wire bytes per element; 0 on
 * out of memory. */
static int walk_phase_streams(walk *w, const ar_phase *phase, double wire_eb) {
    if (ar_grow(&w->stream, &w->capstream, (size_t)phase->nops + 1, sizeof *w->stream) < 0 ||
        ar_grow(&w->paced, &w->cappaced, (size_t)phase->nops + 1, sizeof *w->paced) < 0)
        return 0;
    for (int i = 0; i < phase->nops; i++) {
        w->stream[i] = ar_op_stream_flight(w->p, &phase->ops[i], wire_eb);
        w->paced[i] = ar_op_stream_paced(&phase->ops[i], wire_eb);
    }
    return 1;
}

/* The steps (and ready messages' waits) of transfers w->xf[n0 .. n1), lowered from round r of op i of
 * the phase (w->xs); 0 on out of memory. */
static int walk_xfer_steps(walk *w, int i, int r, size_t n0, size_t n1) {
    if (!w->steps) return 1;
    if (ar_grow(&w->xs, &w->capxs, n1 + 1, sizeof *w->xs) < 0) return 0;
    for (size_t t = n0; t < n1; t++)
        w->xs[t] = ar_xfer_wait(w->p, w->s, w->ph, i, r, w->ostep[i], w->xf[t].src, w->xf[t].dst);
    return 1;
}

/* Prices the round in w->xf, reusing the last priced round's outcome when it moves the same
 * sizes between the same ends in the same order (an idle network each round: the price is
 * a function of (src, dst, reduce, bytes) alone). Exact; a ring's 2(n-1) rounds are priced once. */
static ar_status price_round(walk *w, double elem_bytes, double *t_out, double *bw_out, double *lat_out, double *dur,
                             int rerouted, ar_err *e);
static ar_status price_round_reuse(walk *w, double elem_bytes, double *t, double *bw, double *lat, ar_err *e) {
    int pairs = w->prev && w->nprev == w->nxf, same = pairs && w->prev_eb == elem_bytes && w->prev_rate == w->rate;
    for (size_t i = 0; pairs && i < w->nxf; i++) {
        pairs = w->prev[i].src == w->xf[i].src && w->prev[i].dst == w->xf[i].dst &&
                w->prev[i].reduce == w->xf[i].reduce && /* a reduction into a switch crosses its virtual link */
                w->prevxs[i] == (w->steps ? w->xs[i] : 0);
        same = same && pairs && ar_xfer_elems(&w->prev[i]) == ar_xfer_elems(&w->xf[i]);
    }
    if (same) {
        *t = w->prev_t, *bw = w->prev_bw, *lat = w->prev_lat;
        return AR_OK;
    }
    /* the same pairs, other sizes (a ring's steps with uneven blocks): their routes are known */
    ar_status st = price_round(w, elem_bytes, t, bw, lat, NULL, pairs && w->routed_prev, e);
    if (st != AR_OK) return st;
    w->routed_prev = 1;
    if (ar_grow(&w->prev, &w->capprev, w->nxf + 1, sizeof *w->prev) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    memcpy(w->prev, w->xf, w->nxf * sizeof *w->prev);
    if (ar_grow(&w->prevxs, &w->capprevxs, w->nxf + 1, sizeof *w->prevxs) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (size_t i = 0; i < w->nxf; i++) w->prevxs[i] = w->steps ? w->xs[i] : 0;
    w->nprev = w->nxf;
    w->prev_t = *t, w->prev_bw = *bw, w->prev_lat = *lat, w->prev_eb = elem_bytes, w->prev_rate = w->rate;
    return AR_OK;
}

/* The stage of phase ph in out: its label, first op's implementation, largest op and range. */
static void phase_stage(ar_model_result *out, const ar_schedule *s, int ph, double bw_min, double lat_max, double t) {
    const ar_phase *phase = &s->phases[ph];
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
    ar_model_add_stage(out, label, op0 ? ar_impl_name(op0->impl) : "-", pmax, bytes, bw_min, lat_max, t);
}

/* Routes the transfers in w->xf (w->routes, w->route_off) and, with add, adds their bytes to the
 * loads of their links; known: the routes there are already theirs (price_round_reuse). */
static ar_status route_xfers(walk *w, double elem_bytes, int add, int known, ar_err *e) {
    const ar_platform *p = w->p;
    w->routed_prev = 0;
    if (!known && ar_grow(&w->route_off, &w->capoff, w->nxf + 1, sizeof *w->route_off) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    size_t used = 0;
    if (!known) w->route_off[0] = 0;
    for (size_t i = 0; i < w->nxf; i++) {
        int len = known ? w->route_off[i + 1] - w->route_off[i] : 0;
        ar_status st = known ? AR_OK
                             : ar_platform_route_x_append(p, w->xf[i].src, w->xf[i].dst, w->xf[i].reduce, &w->routes,
                                                          &w->caproutes, used, &len, e);
        if (st != AR_OK) {
            ar_err_prefix(e, "cost walk");
            return st;
        }
        double bytes = (double)ar_xfer_elems(&w->xf[i]) * elem_bytes;
        for (int k = 0; add && k < len; k++) {
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
    return AR_OK;
}

/* The slowest of the routed transfers in w->xf under the current loads, its protocol step included
 * (w->xs), if slower than *t_out (then *bw_out, *lat_out: its rate and latency); dur[i]: each one's
 * time on the network (without the step), when given. */
static void eval_xfers(const walk *w, double elem_bytes, double *t_out, double *bw_out, double *lat_out, double *dur) {
    const ar_platform *p = w->p;
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
        if (w->rate > 0 && bytes / w->rate > drain) drain = bytes / w->rate; /* its flow's bound */
        double t = lat + drain;
        if (dur) dur[i] = t;
        if (w->steps) t += w->xs[i];
        if (t > *t_out) {
            *t_out = t;
            *bw_out = drain > 0 ? bytes / drain : 0; /* the rate this transfer effectively got */
            *lat_out = lat;
        }
    }
}

static void clear_loads(walk *w) {
    for (size_t i = 0; i < w->ntouched; i++) w->load[w->touched[i]] = 0;
    w->ntouched = 0;
}

typedef struct wd_arrival { /* a transfer of the round and when its network part ends */
    double net;
    size_t t;
} wd_arrival;

static int wd_arrival_cmp(const void *a, const void *b) {
    const wd_arrival *x = a, *y = b;
    if (x->net != y->net) return x->net < y->net ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Per-message costs inside a lockstep round whose transfers take dur[i] on the network: each rank's
 * send side takes its messages in lowering order, each receive side in arrival order (platform.h);
 * the round lasts until the last message has landed. The dataflow walk's rules, for one round. */
static ar_status round_msg(walk *w, double elem_bytes, const double *dur, double *t_out, ar_err *e) {
    const ar_platform *p = w->p;
    if (ar_grow(&w->marr, &w->capma, w->nxf + 1, sizeof *w->marr) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (size_t i = 0; i < w->nxf; i++) {
        const ar_xfer *x = &w->xf[i];
        double inj = 0;
        if (x->src >= 0 && x->dst >= 0 && ar_platform_sided(p, x->src, x->dst)) {
            double hold, c = ar_platform_side_cost(p, x->src, x->dst, (double)ar_xfer_elems(x) * elem_bytes, 0, &hold);
            inj = w->sfree[x->src] + c;
            w->sfree[x->src] += hold;
        }
        w->marr[i] = (wd_arrival){inj + dur[i], i};
    }
    qsort(w->marr, w->nxf, sizeof *w->marr, wd_arrival_cmp);
    for (size_t k = 0; k < w->nxf; k++) {
        const ar_xfer *x = &w->xf[w->marr[k].t];
        double land = w->marr[k].net;
        if (x->src >= 0 && x->dst >= 0 && ar_platform_sided(p, x->src, x->dst)) {
            double hold, c = ar_platform_side_cost(p, x->src, x->dst, (double)ar_xfer_elems(x) * elem_bytes, 1, &hold);
            double r0 = land > w->rfree[x->dst] ? land : w->rfree[x->dst];
            land = r0 + c;
            w->rfree[x->dst] = r0 + hold;
        }
        if (land > *t_out) *t_out = land;
    }
    for (size_t i = 0; i < w->nxf; i++) { /* the sides are free again for the next round */
        if (w->xf[i].src >= 0) w->sfree[w->xf[i].src] = 0;
        if (w->xf[i].dst >= 0) w->rfree[w->xf[i].dst] = 0;
    }
    return AR_OK;
}

/* Prices the transfers in w->xf; returns the round time and the bottleneck. */
static ar_status price_round(walk *w, double elem_bytes, double *t_out, double *bw_out, double *lat_out, double *dur,
                             int known, ar_err *e) {
    *t_out = *bw_out = *lat_out = 0;
    ar_status st = route_xfers(w, elem_bytes, 1, known, e);
    if (st == AR_OK && w->msg && !dur) {
        if (ar_grow(&w->mdur, &w->capmd, w->nxf + 1, sizeof *w->mdur) < 0)
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
        else dur = w->mdur;
    }
    if (st == AR_OK) eval_xfers(w, elem_bytes, t_out, bw_out, lat_out, dur);
    clear_loads(w);
    if (st == AR_OK && w->msg) st = round_msg(w, elem_bytes, dur, t_out, e);
    return st;
}

/* Rounds of more than WALK_WINDOW transfers (a direct all-to-all: 16.8 M at 4096 ranks) are priced
 * without holding them: the loads over windows of the round, then each window lowered and routed
 * again and priced under the round's loads. The same price as price_round. */
#define WALK_WINDOW ((size_t)1 << 16)

static ar_status price_round_stream(walk *w, const ar_phase *phase, int r, double elem_bytes, double *t_out,
                                    double *bw_out, double *lat_out, ar_err *e) {
    ar_status st = AR_OK;
    *t_out = *bw_out = *lat_out = 0;
    for (int pass = 0; pass < 2 && st == AR_OK; pass++)
        for (int i = 0; i < phase->nops && st == AR_OK; i++) {
            const ar_op *op = &phase->ops[i];
            if (r >= w->nrounds[i]) continue;
            int win = ar_lower_windowed(op, r);
            size_t total = 1;
            for (size_t lo = 0; lo < total && st == AR_OK; lo += WALK_WINDOW) {
                w->nxf = win ? ar_lower_round_window(op, r, lo, lo + WALK_WINDOW, w->xf, &total)
                             : ar_lower_round(op, r, w->xf); /* (at most n + 1 transfers: one window) */
                if (!win) total = 0;
                if (pass == 1 && !walk_xfer_steps(w, i, r, 0, w->nxf))
                    st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                if (st == AR_OK) st = route_xfers(w, elem_bytes, pass == 0, 0, e);
                if (st == AR_OK && pass == 1) eval_xfers(w, elem_bytes, t_out, bw_out, lat_out, NULL);
            }
        }
    clear_loads(w);
    /* nothing to compare the next round with (an empty round then prices 0, as price_round would) */
    w->nprev = 0;
    w->prev_t = w->prev_bw = w->prev_lat = 0;
    return st;
}

/* ---- phases that mix ops of different rounds: each op at its own pace ----
 *
 * A phase whose ops differ in implementation or round count (the pipelined NVLS stages: a switch
 * reduce-scatter on one slice beside a ring across nodes on the slice before) is run the way the
 * simulator runs it (sim/fast.c): every op starts its round r + 1 when the last transfer of its
 * round r has ended (network part, then the protocol's step latency), the ops concurrently. A
 * transfer pays its route latency before it joins the sharing (as CM02 in arlab's configuration,
 * tests/sim/sim_maxmin.c); the transfers on the network share the directed links max-min fairly
 * (progressive filling, every transfer weighing one). Between two events (a latency or a step
 * elapsed, a transfer drained) the rates are constant; the pass advances to the next event and
 * shares again when a transfer joined or left the network (the shares are a function of the set of
 * transfers on it). Ops that share no link run as if alone: the phase takes the longest op's sum of
 * rounds, as the simulation does. */
typedef struct ev_flow {
    double t_evt;             /* state 0: latency paid at; 2: step paid at */
    double rem;               /* state 1: bytes left */
    double rate;              /* state 1: share */
    double bytes, lat, t_net; /* its bytes, route latency, when it joined the sharing */
    int state;                /* 0 latency, 1 on the network, 2 step, 3 done */
    int op;
    size_t roff; /* route: ev_routes[roff .. roff + rlen) */
    int rlen;
    int src, dst; /* src >= 0: it pays per-message costs at both ends */
    double step;  /* its protocol step after its network part (ar_xfer_proto_step) */
} ev_flow;

/* When transfer f, off the network at net, has landed: its receiver's side takes the messages in the
 * order they arrive (round_msg's rule, across the phase). */
static double ev_land(walk *w, const ev_flow *f, double net) {
    if (f->src < 0) return net;
    double hold, c = ar_platform_side_cost(w->p, f->src, f->dst, f->bytes, 1, &hold);
    double r0 = net > w->rfree[f->dst] ? net : w->rfree[f->dst];
    w->rfree[f->dst] = r0 + hold;
    return r0 + c;
}

/* Settles the event pass's instant now: latencies and steps elapsed, ops whose round is over lower
 * and route their next round (routes appended to *rt at *rused). *live: ops still running; *dirty
 * set when a transfer joins the network. Shared by the event pass and its reference. */
static ar_status ev_settle(walk *w, const ar_phase *phase, double eb, double now, int *round, size_t *nf,
                           const size_t *foff, ev_flow *fl, ar_xfer *xb, ar_dlink **rt, size_t *caprt, size_t *rused,
                           double *lat_max, int *live, int *dirty, ar_err *e) {
    const ar_platform *p = w->p;
    int nops = phase->nops;
    ar_status st = AR_OK;
    int changed = 1;
    while (changed && st == AR_OK) {
        changed = 0;
        *live = 0;
        for (int i = 0; i < nops && st == AR_OK; i++) {
            int over = round[i] < w->nrounds[i];
            for (size_t k = 0; round[i] >= 0 && round[i] < w->nrounds[i] && k < nf[i]; k++) {
                ev_flow *f = &fl[foff[i] + k];
                if (f->state == 0 && f->t_evt <= now) {
                    f->state = 1, f->rem = f->bytes, f->t_net = now, changed = 1, *dirty = 1;
                    if (f->rem <= 0 || f->rlen == 0) f->state = 2, f->t_evt = ev_land(w, f, now) + f->step;
                }
                if (f->state == 2 && f->t_evt <= now) f->state = 3, changed = 1;
                if (f->state != 3) over = 0;
            }
            if (!over) {
                *live += round[i] < w->nrounds[i];
                continue;
            }
            if (++round[i] >= w->nrounds[i]) continue; /* the op is done */
            changed = 1, (*live)++;
            /* lower and route round[i] of op i (its routes appended after the others') */
            nf[i] = ar_lower_round(&phase->ops[i], round[i], xb);
            for (size_t k = 0; k < nf[i] && st == AR_OK; k++) {
                int len = 0;
                st = ar_platform_route_x_append(p, xb[k].src, xb[k].dst, xb[k].reduce, rt, caprt, *rused, &len, e);
                if (st != AR_OK) {
                    ar_err_prefix(e, "cost walk");
                    break;
                }
                double lat = 0;
                for (int q = 0; q < len; q++) lat += p->links[AR_DLINK_LINK((*rt)[*rused + (size_t)q])].lat_s;
                double bytes = (double)ar_xfer_elems(&xb[k]) * eb, inj = now;
                int sided = w->msg && xb[k].src >= 0 && xb[k].dst >= 0 && ar_platform_sided(p, xb[k].src, xb[k].dst);
                if (sided) { /* the sender's side, its messages in lowering order (round_msg) */
                    double hold, c = ar_platform_side_cost(p, xb[k].src, xb[k].dst, bytes, 0, &hold);
                    double s0 = now > w->sfree[xb[k].src] ? now : w->sfree[xb[k].src];
                    inj = s0 + c;
                    w->sfree[xb[k].src] = s0 + hold;
                }
                fl[foff[i] + k] = (ev_flow){.t_evt = inj + lat,
                                            .bytes = bytes,
                                            .lat = lat,
                                            .op = i,
                                            .roff = *rused,
                                            .rlen = len,
                                            .src = sided ? xb[k].src : -1,
                                            .dst = xb[k].dst,
                                            .step = w->steps ? ar_xfer_proto_step(p, w->ostep[i], xb[k].src, xb[k].dst)
                                                             : 0};
                if (lat > *lat_max) *lat_max = lat;
                *rused += (size_t)len;
            }
        }
        if (*rused > ((size_t)1 << 22) && st == AR_OK) { /* compact the routes of the flows still running */
            size_t u = 0;
            for (int i = 0; i < nops; i++)
                for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                    ev_flow *f = &fl[foff[i] + k];
                    memmove(*rt + u, *rt + f->roff, (size_t)f->rlen * sizeof *rt);
                    f->roff = u;
                    u += (size_t)f->rlen;
                }
            *rused = u;
        }
    }
    return st;
}

/* A transfer's rate under the phase's bound: every transfer of the phase has the same bound, so the
 * max-min shares under it are the shares without it, capped (progressive filling raises every rate
 * alike: those it would fix above the bound stop at it, the others are fixed as before). */
static double ev_bound(const walk *w, double share) { return w->rate > 0 && share > w->rate ? w->rate : share; }

/* The reference event pass: every event shares all the links again over every live transfer
 * (progressive filling by scanning them all). walk_phase_events computes the same numbers faster;
 * tests run this one beside it (ar_model_walk_events_reference). */
static int walk_events_reference;

void ar_model_walk_events_reference(int on) { walk_events_reference = on; }

static ar_status walk_phase_events_ref(walk *w, const ar_phase *phase, double eb, double *t_out, double *bw_out,
                                       double *lat_out, ar_err *e) {
    const ar_platform *p = w->p;
    int nops = phase->nops;
    size_t nd = ((size_t)p->nlinks + (size_t)p->nvlinks) * 2 + 1, tot = 0;
    int *round = ar_calloc((size_t)nops + 1, sizeof *round), *cnt = ar_calloc(nd, sizeof *cnt);
    size_t *foff = ar_calloc((size_t)nops + 1, sizeof *foff), *nf = ar_calloc((size_t)nops + 1, sizeof *nf);
    for (int i = 0; i < nops; i++) tot += ar_lower_max_xfers(&phase->ops[i]);
    ev_flow *fl = ar_calloc(tot + 1, sizeof *fl);
    ar_xfer *xb = NULL;
    ar_dlink *rt = NULL;
    size_t caprt = 0, capxb = 0;
    ar_status st = AR_OK;
    if (!round || !cnt || !foff || !nf || !fl || ar_grow(&xb, &capxb, tot + 1, sizeof *xb) < 0)
        st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (int i = 0, o = 0; st == AR_OK && i < nops; i++) {
        foff[i] = (size_t)o;
        o += (int)ar_lower_max_xfers(&phase->ops[i]);
    }
    double now = 0, bw_min = 0, lat_max = 0;
    size_t rused = 0; /* routes of the current rounds, appended; compacted when an op moves on */
    int live = 0;
    /* round 0 of every op (an op without rounds is done at once) */
    for (int i = 0; round && i < nops; i++) round[i] = -1;
    for (;;) {
        if (st != AR_OK) break;
        /* settle the instant: latencies and steps elapsed, ops whose round is over start the next */
        st = ev_settle(w, phase, eb, now, round, nf, foff, fl, xb, &rt, &caprt, &rused, &lat_max, &live, &(int){0}, e);
        if (st != AR_OK || live == 0) break;
        /* max-min fair shares of the transfers on the network (progressive filling) */
        int unfixed = 0;
        size_t nt = 0;
        for (int i = 0; i < nops; i++)
            for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                ev_flow *f = &fl[foff[i] + k];
                if (f->state != 1) continue;
                f->rate = -1, unfixed++;
                for (int q = 0; q < f->rlen; q++) {
                    ar_dlink d = rt[f->roff + (size_t)q];
                    if (cnt[d]++ == 0) {
                        if (w->ntouched == w->captouched &&
                            ar_grow(&w->touched, &w->captouched, w->ntouched + 1, sizeof *w->touched) < 0) {
                            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                            break;
                        }
                        w->touched[w->ntouched++] = d;
                        w->load[d] = ar_link_capacity(&p->links[AR_DLINK_LINK(d)]); /* capacity left */
                    }
                }
            }
        nt = w->ntouched;
        while (unfixed > 0 && st == AR_OK) {
            ar_dlink bd = w->touched[0];
            double share = -1;
            for (size_t q = 0; q < nt; q++) {
                ar_dlink d = w->touched[q];
                if (cnt[d] <= 0) continue;
                double s = (w->load[d] > 0 ? w->load[d] : 0) / cnt[d];
                if (share < 0 || s < share) share = s, bd = d;
            }
            for (int i = 0; i < nops; i++)
                for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                    ev_flow *f = &fl[foff[i] + k];
                    if (f->state != 1 || f->rate >= 0) continue;
                    int on = 0;
                    for (int q = 0; q < f->rlen && !on; q++) on = rt[f->roff + (size_t)q] == bd;
                    if (!on) continue;
                    f->rate = ev_bound(w, share), unfixed--;
                    for (int q = 0; q < f->rlen; q++) {
                        ar_dlink d = rt[f->roff + (size_t)q];
                        w->load[d] -= share;
                        cnt[d]--;
                    }
                }
        }
        for (size_t q = 0; q < nt; q++) cnt[w->touched[q]] = 0;
        clear_loads(w);
        if (st != AR_OK) break;
        /* the next event */
        double tn = -1;
        for (int i = 0; i < nops; i++)
            for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                const ev_flow *f = &fl[foff[i] + k];
                double t = f->state == 1 ? (f->rate > 0 ? now + f->rem / f->rate : -1) : f->state != 3 ? f->t_evt : -1;
                if (t >= 0 && (tn < 0 || t < tn)) tn = t;
            }
        if (tn < 0) { /* nothing can move: a transfer with no capacity */
            st = ar_fail(e, AR_EINVAL, "cost walk: a transfer of phase %s gets no bandwidth",
                         phase->label ? phase->label : "?");
            break;
        }
        double dt = tn - now;
        for (int i = 0; i < nops; i++)
            for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                ev_flow *f = &fl[foff[i] + k];
                if (f->state != 1) continue;
                if (now + f->rem / f->rate <= tn * (1 + 1e-13)) { /* drained: then the step */
                    double took = tn - f->t_net;
                    if (took > 0 && (bw_min == 0 || f->bytes / took < bw_min)) bw_min = f->bytes / took;
                    f->state = 2, f->rem = 0, f->t_evt = ev_land(w, f, tn) + f->step;
                } else {
                    f->rem -= f->rate * dt;
                }
            }
        now = tn;
    }
    for (int k = 0; w->msg && k < p->nranks; k++) w->sfree[k] = w->rfree[k] = 0; /* free for the next phase */
    *t_out = now, *bw_out = bw_min, *lat_out = lat_max;
    free(round), free(cnt), free(foff), free(nf), free(fl), free(xb), free(rt);
    return st;
}

/* A link of the progressive filling by its share: the least share first, then the first touched
 * (the reference's scan keeps the first of equal shares). */
typedef struct ev_key {
    double s;
    size_t j;
} ev_key;

static int ev_before(ev_key a, ev_key b) { return a.s < b.s || (a.s == b.s && a.j < b.j); }

static void ev_push(ev_key *h, size_t *n, ev_key k) {
    size_t i = (*n)++;
    while (i > 0 && ev_before(k, h[(i - 1) / 2])) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
    h[i] = k;
}

static ev_key ev_pop(ev_key *h, size_t *n) {
    ev_key top = h[0], k = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && ev_before(h[c + 1], h[c])) c++;
        if (!ev_before(h[c], k)) break;
        h[i] = h[c], i = c;
    }
    if (*n > 0) h[i] = k;
    return top;
}

static ar_status walk_phase_events(walk *w, const ar_phase *phase, double eb, double *t_out, double *bw_out,
                                   double *lat_out, ar_err *e) {
    if (walk_events_reference) return walk_phase_events_ref(w, phase, eb, t_out, bw_out, lat_out, e);
    const ar_platform *p = w->p;
    int nops = phase->nops;
    size_t nd = ((size_t)p->nlinks + (size_t)p->nvlinks) * 2 + 1, tot = 0;
    int *round = ar_calloc((size_t)nops + 1, sizeof *round);
    size_t *foff = ar_calloc((size_t)nops + 1, sizeof *foff), *nf = ar_calloc((size_t)nops + 1, sizeof *nf);
    for (int i = 0; i < nops; i++) tot += ar_lower_max_xfers(&phase->ops[i]);
    ev_flow *fl = ar_calloc(tot + 1, sizeof *fl);
    ar_xfer *xb = NULL;
    ar_dlink *rt = NULL;
    size_t caprt = 0, capxb = 0;
    ar_status st = AR_OK;
    if (!round || !foff || !nf || !fl || ar_grow(&xb, &capxb, tot + 1, sizeof *xb) < 0)
        st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (int i = 0, o = 0; st == AR_OK && i < nops; i++) {
        foff[i] = (size_t)o;
        o += (int)ar_lower_max_xfers(&phase->ops[i]);
    }
    double now = 0, bw_min = 0, lat_max = 0;
    size_t rused = 0; /* routes of the current rounds, appended; compacted when an op moves on */
    int live = 0;
    /* the shares: recomputed only when a transfer joined or left the network (dirty); over the
     * transfers on the network (net) and the links they touch (tl, with each one's capacity left and
     * count of unshared transfers; pos: a directed link's place in tl, -1 when untouched), with the
     * transfers of each touched link (lfl[lst[j] .. lst[j + 1]), in transfer order) */
    int dirty = 1;
    size_t nnet = 0, nt = 0, caplfl = 0;
    size_t *net = ar_calloc(tot + 1, sizeof *net), *lst = ar_calloc(nd + 1, sizeof *lst), *lfl = NULL;
    int *pos = ar_calloc(nd, sizeof *pos), *lc = ar_calloc(nd, sizeof *lc);
    ar_dlink *tl = ar_calloc(nd, sizeof *tl);
    double *left = ar_calloc(nd, sizeof *left);
    ev_key *heap = NULL;
    size_t caphp = 0, *chg = NULL, capchg = 0, *mark = NULL, capmark = 0;
    if (st == AR_OK && (!net || !lst || !pos || !lc || !tl || !left))
        st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (size_t d = 0; pos && d < nd; d++) pos[d] = -1;
    /* round 0 of every op (an op without rounds is done at once) */
    for (int i = 0; round && i < nops; i++) round[i] = -1;
    for (;;) {
        if (st != AR_OK) break;
        /* settle the instant: latencies and steps elapsed, ops whose round is over start the next */
        st = ev_settle(w, phase, eb, now, round, nf, foff, fl, xb, &rt, &caprt, &rused, &lat_max, &live, &dirty, e);
        if (st != AR_OK || live == 0) break;
        /* max-min fair shares of the transfers on the network (progressive filling): the most
         * constrained link (least capacity left per unshared transfer; the first touched of equals)
         * fixes the share of its transfers, until every transfer has one. The same steps as
         * walk_phase_events_ref, each link's transfers found through lfl. */
        if (dirty) {
            dirty = 0, nnet = 0, nt = 0;
            size_t nref = 0;
            for (int i = 0; i < nops; i++)
                for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                    ev_flow *f = &fl[foff[i] + k];
                    if (f->state != 1) continue;
                    f->rate = -1, net[nnet++] = foff[i] + k;
                    for (int q = 0; q < f->rlen; q++) {
                        ar_dlink d = rt[f->roff + (size_t)q];
                        if (pos[d] < 0) {
                            pos[d] = (int)nt, tl[nt] = d, lc[nt] = 0;
                            left[nt++] = ar_link_capacity(&p->links[AR_DLINK_LINK(d)]); /* capacity left */
                        }
                        lc[pos[d]]++, nref++;
                    }
                }
            if (ar_grow(&lfl, &caplfl, nref + 1, sizeof *lfl) < 0) {
                st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                break;
            }
            lst[0] = 0;
            for (size_t j = 0; j < nt; j++) lst[j + 1] = lst[j] + (size_t)lc[j];
            for (size_t m = 0; m < nnet; m++) { /* lst[j]: the next free place of link j meanwhile */
                const ev_flow *f = &fl[net[m]];
                for (int q = 0; q < f->rlen; q++) lfl[lst[pos[rt[f->roff + (size_t)q]]]++] = net[m];
            }
            for (size_t j = nt; j > 0; j--) lst[j] = lst[j - 1];
            lst[0] = 0;
            /* the links by share in a heap (the least first, then the first touched): a link's entry
             * is pushed again whenever its share changes, and an entry that no longer holds its
             * link's share is passed over */
            if (ar_grow(&heap, &caphp, nt + nref + 1, sizeof *heap) < 0 ||
                ar_grow(&chg, &capchg, nt + 1, sizeof *chg) < 0 || ar_grow(&mark, &capmark, nt + 1, sizeof *mark) < 0) {
                st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                break;
            }
            size_t nh = 0, unfixed = nnet, it = 0;
            for (size_t j = 0; j < nt; j++) {
                mark[j] = 0;
                ev_push(heap, &nh, (ev_key){(left[j] > 0 ? left[j] : 0) / lc[j], j}); /* each has a transfer */
            }
            while (unfixed > 0 && nh > 0) {
                ev_key top = ev_pop(heap, &nh);
                size_t bj = top.j;
                if (lc[bj] <= 0 || (left[bj] > 0 ? left[bj] : 0) / lc[bj] != top.s) continue; /* outdated */
                double share = top.s;
                size_t nchg = 0;
                it++;
                for (size_t m = lst[bj]; m < lst[bj + 1]; m++) {
                    ev_flow *f = &fl[lfl[m]];
                    if (f->rate >= 0) continue;
                    f->rate = ev_bound(w, share), unfixed--;
                    for (int q = 0; q < f->rlen; q++) {
                        int j = pos[rt[f->roff + (size_t)q]];
                        left[j] -= share;
                        lc[j]--;
                        if (mark[j] != it) mark[j] = it, chg[nchg++] = (size_t)j;
                    }
                }
                for (size_t c = 0; c < nchg; c++)
                    if (lc[chg[c]] > 0)
                        ev_push(heap, &nh, (ev_key){(left[chg[c]] > 0 ? left[chg[c]] : 0) / lc[chg[c]], chg[c]});
            }
            for (size_t j = 0; j < nt; j++) pos[tl[j]] = -1;
        }
        /* the next event */
        double tn = -1;
        for (int i = 0; i < nops; i++)
            for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                const ev_flow *f = &fl[foff[i] + k];
                double t = f->state == 1 ? (f->rate > 0 ? now + f->rem / f->rate : -1) : f->state != 3 ? f->t_evt : -1;
                if (t >= 0 && (tn < 0 || t < tn)) tn = t;
            }
        if (tn < 0) { /* nothing can move: a transfer with no capacity */
            st = ar_fail(e, AR_EINVAL, "cost walk: a transfer of phase %s gets no bandwidth",
                         phase->label ? phase->label : "?");
            break;
        }
        double dt = tn - now;
        for (int i = 0; i < nops; i++)
            for (size_t k = 0; round[i] < w->nrounds[i] && k < nf[i]; k++) {
                ev_flow *f = &fl[foff[i] + k];
                if (f->state != 1) continue;
                if (now + f->rem / f->rate <= tn * (1 + 1e-13)) { /* drained: then the step */
                    double took = tn - f->t_net;
                    if (took > 0 && (bw_min == 0 || f->bytes / took < bw_min)) bw_min = f->bytes / took;
                    f->state = 2, f->rem = 0, f->t_evt = ev_land(w, f, tn) + f->step, dirty = 1;
                } else {
                    f->rem -= f->rate * dt;
                }
            }
        now = tn;
    }
    for (int k = 0; w->msg && k < p->nranks; k++) w->sfree[k] = w->rfree[k] = 0; /* free for the next phase */
    *t_out = now, *bw_out = bw_min, *lat_out = lat_max;
    free(round), free(foff), free(nf), free(fl), free(xb), free(rt);
    free(net), free(lst), free(lfl), free(pos), free(lc), free(tl), free(left), free(heap), free(chg), free(mark);
    return st;
}

/* An event-priced phase's price depends on its ops' transfers only through their ends, whether they
 * reduce and their sizes (the routes, the bytes), round by round, with the phase's bytes per element
 * and step latency; every phase starts on an idle network with its ranks' sides free. A phase with
 * the same key as the last one has its price. Keys beyond WALK_EVKEY_MAX entries are not kept. */
#define WALK_EVKEY_MAX ((size_t)1 << 20)

static ar_status walk_phase_events_cached(walk *w, const ar_phase *phase, double eb, double pstep, double *t_out,
                                          double *bw_out, double *lat_out, ar_err *e) {
    size_t need = 1, maxx = 0;
    for (int i = 0; i < phase->nops; i++) {
        size_t mx = ar_lower_max_xfers(&phase->ops[i]);
        need += 2 + (size_t)w->nrounds[i] * (1 + 4 * mx);
        if (mx > maxx) maxx = mx;
        if (need > WALK_EVKEY_MAX) break;
    }
    if (need > WALK_EVKEY_MAX || walk_events_reference) {
        w->ev_valid = 0;
        return walk_phase_events(w, phase, eb, t_out, bw_out, lat_out, e);
    }
    if (ar_grow(&w->evnew, &w->capevnew, need, sizeof *w->evnew) < 0 ||
        ar_grow(&w->xf, &w->capxf, maxx + 1, sizeof *w->xf) < 0)
        return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    size_t n = 0;
    w->evnew[n++] = (uint64_t)phase->nops;
    for (int i = 0; i < phase->nops; i++) {
        w->evnew[n++] = (uint64_t)w->nrounds[i];
        double st = w->steps ? w->ostep[i] : 0; /* its step */
        memcpy(&w->evnew[n++], &st, sizeof st);
        for (int r = 0; r < w->nrounds[i]; r++) {
            size_t nx = ar_lower_round(&phase->ops[i], r, w->xf);
            w->evnew[n++] = (uint64_t)nx;
            for (size_t k = 0; k < nx; k++) {
                const ar_xfer *x = &w->xf[k];
                w->evnew[n++] = (uint64_t)(int64_t)x->src;
                w->evnew[n++] = (uint64_t)(int64_t)x->dst;
                w->evnew[n++] = (uint64_t)x->reduce;
                w->evnew[n++] = ar_xfer_elems(x);
            }
        }
    }
    if (w->ev_valid && w->nevkey == n && w->ev_eb == eb && w->ev_step == pstep && w->ev_rate == w->rate &&
        !memcmp(w->evkey, w->evnew, n * sizeof *w->evnew)) {
        *t_out = w->ev_t, *bw_out = w->ev_bw, *lat_out = w->ev_lat;
        return AR_OK;
    }
    w->ev_valid = 0;
    ar_status st = walk_phase_events(w, phase, eb, t_out, bw_out, lat_out, e);
    if (st != AR_OK) return st;
    uint64_t *k = w->evkey; /* the new key becomes the last one */
    size_t cap = w->capevkey;
    w->evkey = w->evnew, w->capevkey = w->capevnew;
    w->evnew = k, w->capevnew = cap;
    w->nevkey = n, w->ev_eb = eb, w->ev_step = pstep, w->ev_rate = w->rate, w->ev_valid = 1;
    w->ev_t = *t_out, w->ev_bw = *bw_out, w->ev_lat = *lat_out;
    return AR_OK;
}

/* A phase with a switch op whose ops differ in implementation or round count (the pipelined switch
 * stages): priced by walk_phase_events. Other phases keep their lockstep rounds (the papers' schedules:
 * tree packing's trees of different depths stay priced as their figures are). */
static int phase_mixed(const walk *w, const ar_phase *phase) {
    int sw = 0;
    for (int i = 0; i < phase->nops; i++) sw |= phase->ops[i].impl == AR_IMPL_SWITCH;
    for (int i = 1; sw && i < phase->nops; i++)
        if (phase->ops[i].impl != phase->ops[0].impl || w->nrounds[i] != w->nrounds[0]) return 1;
    return 0;
}

static ar_nccl_algo op_nccl_algo(const ar_op *op) {
    return op->impl == AR_IMPL_TREE ? AR_NCCL_TREE : op->impl == AR_IMPL_SWITCH ? AR_NCCL_NVLS : AR_NCCL_RING;
}

static ar_nccl_proto op_nccl_proto(const ar_op *op) {
    return op->proto == AR_PROTO_LL ? AR_NCCL_LL : op->proto == AR_PROTO_LL128 ? AR_NCCL_LL128 : AR_NCCL_SIMPLE;
}

/* Whether members m and q of op sit on different machines (the platform knows its machines). */
static int op_hop_crosses(const ar_platform *p, const ar_op *op, int m, int q) {
    return p->machine_of_rank[op->members[m]] != p->machine_of_rank[op->members[q]];
}

/* A tree op's step (ar_op_proto_step): NCCL's tree latency is the sum of the steps along the tree's
 * depth, (ppn - 1) NVLink steps and log2(nodes) network steps each way (tuning.cc), paid once by the
 * head of the stream: the chunks behind it follow at the pipeline's rate, their steps in flight
 * behind the head's (NCCL's FIFO holds NCCL_STEPS of them). Here that sum is the path of the deepest
 * member to the root (its hops inside a machine at the intra step, those across at the network
 * step; up and down for an all-reduce), shared by the op's rounds (2 depth + chunks - 1 for an
 * all-reduce, core/lower.h): a pipeline of c chunks pays NCCL's latency once, not c times, and each
 * hop's network step where it is on the path, not the mean over the tree's edges (most of which
 * stay inside a machine). intra, net: the steps in us. */
static double tree_step(const ar_platform *p, const ar_op *op, double intra, double net) {
    int depth = -1, cross = 0;
    for (int m = 0; m < op->n; m++) { /* the deepest member, the most crossings among those */
        int d = 0, x = 0;
        for (int k = m; op->parent[k] >= 0 && d <= op->n; k = op->parent[k], d++)
            x += op_hop_crosses(p, op, k, op->parent[k]);
        if (d > depth || (d == depth && x > cross)) {
            depth = d;
            cross = x;
        }
    }
    int rounds = ar_lower_nrounds(op);
    if (depth <= 0 || rounds <= 0) return 0;
    double sum = (depth - cross) * intra + cross * net;
    if (op->kind == AR_OP_ALL_REDUCE) sum *= 2;
    return sum / rounds * 1e-6;
}

/* A calibrated platform's latency factor on NCCL's latencies (its step tables and base latencies), as
 * NCCL's model on it applies it (ar_nccl_in_from_platform: the inter-node class's on several machines,
 * the intra-node class's on one): the fit scaled NCCL's whole latency, so the schedule's NCCL steps
 * take the same factor, each hop paying the scaled step over its scaled route latency. 1 elsewhere. */
static double cal_lat_factor(const ar_platform *p) {
    double f = p->calibrated ? p->cal_lat[p->nmachines > 1] : 1;
    return f > 0 ? f : 1;
}

/* NCCL charges a step within a node at its NVLink latency and a step between nodes at its network
 * latency, summed along its pipeline (tuning.cc: the ring's 2(n - 1) steps, 2(nodes - 1) of them
 * between nodes; the tree's chain inside a node and its levels across). The op's rounds share that
 * sum: each round the mean step of the op's hops. NCCL's step holds the hop itself. */
double ar_op_proto_step(const ar_platform *p, const ar_op *op) {
    if (op->proto == AR_PROTO_NONE || op->impl == AR_IMPL_SWITCH) return 0;
    int nn = p->nmachines > 0 ? p->nmachines : 1;
    double intra, net;
    if (ar_nccl_proto_effect_v(p->nccl_version, op_nccl_algo(op), op_nccl_proto(op), nn, 0, NULL, &intra, NULL) !=
            AR_OK ||
        ar_nccl_proto_effect_v(p->nccl_version, op_nccl_algo(op), op_nccl_proto(op), nn, 1, NULL, &net, NULL) != AR_OK)
        return 0;
    intra *= cal_lat_factor(p);
    net *= cal_lat_factor(p);
    if (op->impl == AR_IMPL_TREE && op->parent && p->machine_of_rank) return tree_step(p, op, intra, net);
    int cross = 0, nedge = 0; /* hops (member order) crossing machines */
    for (int m = 0; p->machine_of_rank && m < op->n; m++) {
        int q = op->parent ? op->parent[m] : (m + 1) % op->n;
        if (q < 0 || q == m) continue;
        nedge++;
        cross += op_hop_crosses(p, op, m, q);
    }
    double x = nedge ? (double)cross / nedge : 0;
    return ((1 - x) * intra + x * net) * 1e-6;
}

int ar_op_async(const ar_op *op) {
    return (op->proto == AR_PROTO_LL || op->proto == AR_PROTO_LL128) && op->impl != AR_IMPL_SWITCH;
}

int ar_schedule_async_ops(const ar_schedule *s, int *nops) {
    int n = 0, all = 0;
    for (int ph = 0; s && ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++, all++) n += ar_op_async(&s->phases[ph].ops[i]);
    if (nops) *nops = all;
    return n;
}

double ar_xfer_ready_wait(const ar_platform *p, const ar_schedule *s, int ph, int opi, int r, int src, int dst) {
    return p->msg_ready && ar_lower_gated(s, ph, opi, r, src, dst) ? ar_platform_ready_s(p, src, dst) : 0;
}

double ar_xfer_wait(const ar_platform *p, const ar_schedule *s, int ph, int opi, int r, double step_s, int src,
                    int dst) {
    return ar_xfer_proto_step(p, step_s, src, dst) + ar_xfer_ready_wait(p, s, ph, opi, r, src, dst);
}

/* NCCL's FIFO on one connection, bytes on the wire: NCCL_STEPS (8) slots of one step each; an LL step
 * is 512 threads x 8 lines of 16 bytes, an LL128 step 640 threads x 120 words of 8 bytes (NCCL's
 * device.h: NCCL_LL_BUFF_SIZE, NCCL_LL128_BUFF_SIZE). */
static double proto_fifo_bytes(ar_proto pr) {
    if (pr == AR_PROTO_LL) return 8.0 * 512 * 8 * 16;
    if (pr == AR_PROTO_LL128) return 8.0 * 640 * 120 * 8;
    return 0;
}

/* NCCL's reference hop latency for a hop of class x (across machines or not), seconds: the hop its
 * step tables were measured on (models/nccl_model.h), the calibrated platform's factor on it. */
static double ref_hop_s(const ar_platform *p, int x) {
    return (x ? AR_NCCL_REF_HOP_NET_US : AR_NCCL_REF_HOP_NVLINK_US) * 1e-6 * cal_lat_factor(p);
}

int ar_op_stream_paced(const ar_op *op, double wire_elem_bytes) {
    return ar_op_async(op) && op->impl == AR_IMPL_TREE && op->proto == AR_PROTO_LL128 &&
           (double)op->count * wire_elem_bytes > proto_fifo_bytes(op->proto);
}

double ar_op_stream_flight(const ar_platform *p, const ar_op *op, double wire_elem_bytes) {
    if (!ar_op_async(op) || op->impl != AR_IMPL_TREE || !op->parent || !p->machine_of_rank || op->n < 2) return -1;
    if ((double)op->count * wire_elem_bytes > proto_fifo_bytes(op->proto) && !ar_op_stream_paced(op, wire_elem_bytes))
        return -1;
    int rounds = ar_lower_nrounds(op);
    if (rounds <= 0) return -1;
    double extra = 0; /* the most any member's way to the root has of latency beyond NCCL's reference hops */
    for (int m = 0; m < op->n; m++) {
        double sum = 0;
        int d = 0;
        for (int k = m; op->parent[k] >= 0 && op->parent[k] != k && d <= op->n; k = op->parent[k], d++) {
            int a = op->members[k], b = op->members[op->parent[k]];
            double up = ar_platform_route_lat(p, a, b), down = ar_platform_route_lat(p, b, a);
            double ref = ref_hop_s(p, op_hop_crosses(p, op, k, op->parent[k]));
            if (!(up == up) || !(down == down)) return -1;
            if (op->kind != AR_OP_BROADCAST && up > ref) sum += up - ref;
            if ((op->kind == AR_OP_BROADCAST || op->kind == AR_OP_ALL_REDUCE) && down > ref) sum += down - ref;
        }
        if (sum > extra) extra = sum;
    }
    return ar_op_proto_step(p, op) + extra / rounds;
}

int ar_schedule_streams(const ar_platform *p, const ar_schedule *s) {
    int n = 0;
    ar_proto_ctx pc;
    ar_proto_ctx_init(&pc, p, s);
    for (int ph = 0; ph < s->nphases; ph++) {
        double f, step, base;
        ar_phase_proto_effect(&pc, ph, &f, &step, &base, NULL);
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            if (op->proto == AR_PROTO_NONE) continue;
            if (ar_op_stream_flight(p, op, (double)s->elem_bytes / f) < 0) return 0;
            n++;
        }
    }
    return n > 0;
}

double ar_xfer_flight(const ar_platform *p, double step_s, double stream_s, int paced, int src, int dst) {
    double lat = ar_platform_route_lat(p, src, dst);
    if (!(lat == lat)) lat = 0; /* no route: the walk and the simulator refuse the transfer anyway */
    if (stream_s < 0) return ar_xfer_proto_step(p, step_s, src, dst) + lat;
    if (paced) return stream_s;
    if (p->machine_of_rank && src >= 0 && dst >= 0 && src < p->nranks && dst < p->nranks) {
        double ref = ref_hop_s(p, p->machine_of_rank[src] != p->machine_of_rank[dst]);
        if (lat > ref) lat = ref;
    }
    return lat > stream_s ? lat : stream_s;
}

double ar_xfer_proto_step(const ar_platform *p, double step_s, int src, int dst) {
    if (!(step_s > 0) || src < 0 || dst < 0 || src >= p->nranks || dst >= p->nranks) return 0;
    double lat = ar_platform_route_lat(p, src, dst);
    if (!(lat == lat)) lat = 0; /* no route: the walk and the simulator refuse the transfer anyway */
    return step_s > lat ? step_s - lat : 0;
}

/* NCCL protocols (ar_op.proto): NCCL's bandwidth factor (models/nccl_model.h ar_nccl_proto_effect;
 * TREE ops take the tree's, others the ring's) for the phase's ops with a protocol: every round's
 * bytes are divided by the smallest factor. Each transfer of such an op pays its op's step over its
 * own route latency (ar_xfer_proto_step); *step_s is the largest step, as a flag and a key. A
 * SWITCH op takes NVLS's: no step, its NVLink latency as the base, less the mean latency of the
 * op's hops; the base latency once per schedule (ar_phase_proto_effect). No protocol: factor 1, no
 * latency.
 *
 * LL's and LL128's caps (llMaxBw over the channels, perChMaxRingLL128Bw, perChMaxTreeLL128Bw: what
 * one channel's thread block copies per second, not a property of the link) bind where NCCL's model
 * gives the protocol less than its factor of Simple's bandwidth (ar_nccl_proto_bw_share). When every
 * op of the phase is a ring op with a protocol, such a cap is a bound on each transfer's rate
 * (*rate_Bps, wire bytes per second: NCCL's rate of one channel's flow, ar_nccl_proto_flow_GBps,
 * over the factor; the smallest of the ops'), the wire carrying the factor's bytes only: while one
 * channel's message waits another channel uses the link. A ring's rounds pipeline its blocks as
 * NCCL's steps do, so each round pays its block at the channel's rate once, as NCCL does. Tree ops
 * (but NCCL's LL128 tree, tree_stream_rate) keep the cap as a smaller factor: the tree schedule sends each chunk hop after hop, where NCCL's LL
 * streams it through the chain at the channel's rate (the rate bound on every hop: `nccl` on
 * dgx-h100:nodes=2 at 64 KB, TREE/LL, 75.8 us against NCCL's model's 29.9 us; the factor 30.9 us).
 * So does a phase that mixes ring ops with others (every transfer of a phase shares one factor and
 * one bound). *rate_Bps 0: no bound. In a schedule of NCCL's TREE algorithm (tree_algo: no switch
 * op, unlike NVLS_TREE's, whose trees NCCL prices without it) the TREE ops' factor and cap also carry
 * the tree graph's pattern factor (ar_nccl_tree_pattern_factor: x0.85 on the simple TREE pattern). */
static void phase_effect(const ar_platform *p, const ar_nccl_in *in, const ar_phase *ph, int tree_algo,
                         double *bw_factor, double *step_s, double *base_s, double *rate_Bps) {
    *bw_factor = 1.0;
    *step_s = *base_s = *rate_Bps = 0;
    int nch[2] = {0, 0};      /* the phase's channels: its RING and its TREE ops with a protocol */
    int bound = ph->nops > 0; /* every op a ring op with a protocol: the caps as a rate bound */
    for (int i = 0; i < ph->nops; i++) {
        ar_nccl_algo a = op_nccl_algo(&ph->ops[i]);
        if (ph->ops[i].proto != AR_PROTO_NONE && (a == AR_NCCL_RING || a == AR_NCCL_TREE)) nch[a == AR_NCCL_TREE]++;
        if (ph->ops[i].proto == AR_PROTO_NONE || a != AR_NCCL_RING) bound = 0;
    }
    double capf = 1.0, rate = 0; /* the caps as a factor; as a bound (the smallest) */
    for (int i = 0; i < ph->nops; i++) {
        const ar_op *op = &ph->ops[i];
        if (op->proto == AR_PROTO_NONE) continue;
        ar_nccl_algo a = op_nccl_algo(op);
        ar_nccl_proto pr = op_nccl_proto(op);
        int nn = p->nmachines > 0 ? p->nmachines : 1;
        double f, base;
        if (ar_nccl_proto_effect_v(p->nccl_version, a, pr, nn, 0, &f, NULL, &base) != AR_OK) continue;
        base *= cal_lat_factor(p);
        if (a == AR_NCCL_RING || a == AR_NCCL_TREE) { /* LL's and LL128's caps, where they bind */
            int c = nch[a == AR_NCCL_TREE];
            double share = in ? ar_nccl_proto_bw_share(in, a, pr, c) : -1;
            double flow = share > 0 && share < f ? ar_nccl_proto_flow_GBps(in, a, pr, c) : -1;
            /* NCCL's TREE algorithm (not NVLS_TREE's trees): its graph's pattern factor on every protocol */
            double tp = a == AR_NCCL_TREE && tree_algo && in ? ar_nccl_tree_pattern_factor(in) : 1.0;
            if (share > 0 && share < f && share * tp < capf) capf = share * tp;
            if (flow > 0 && (rate == 0 || flow * 1e9 / f < rate)) rate = flow * 1e9 / f;
            f *= tp;
        }
        if (a == AR_NCCL_NVLS) { /* NVLS's latency holds the op's own hop: less the mean hop */
            int nedge = 0;
            double hop = 0; /* us */
            for (int m = 0; p->machine_of_rank && m < op->n; m++) {
                int q = op->parent ? op->parent[m] : (m + 1) % op->n;
                if (q < 0 || q == m) continue;
                nedge++;
                ar_dlink rt[64];
                int len = ar_platform_route(p, op->members[m], op->members[q], rt, 64);
                for (int k = 0; k < len; k++) hop += p->links[AR_DLINK_LINK(rt[k])].lat_s * 1e6;
            }
            if (nedge) hop /= nedge;
            base = base > hop ? base - hop : 0;
        }
        double step = ar_op_proto_step(p, op);
        if (f < *bw_factor) *bw_factor = f;
        if (step > *step_s) *step_s = step;
        if (base * 1e-6 > *base_s) *base_s = base * 1e-6;
    }
    if (bound && rate > 0) *rate_Bps = rate;
    else if (capf < *bw_factor) *bw_factor = capf;
}

/* 1 when a tree op of the phase has an edge that crosses machines. */
static int phase_tree_across(const ar_platform *p, const ar_phase *phase) {
    for (int i = 0; i < phase->nops; i++) {
        const ar_op *op = &phase->ops[i];
        if (op->impl != AR_IMPL_TREE || !op->parent) continue;
        for (int m = 0; m < op->n; m++)
            if (op->parent[m] >= 0 && op->parent[m] != m && op_hop_crosses(p, op, m, op->parent[m])) return 1;
    }
    return 0;
}

/* NCCL's model slows NVLS_TREE all-reduce below 1 GiB on Blackwell (ar_nccl_nvlstree_corr: its trees'
 * bandwidth correction, 0.7 at 16-32 MiB): the factor on a phase of an NVLS_TREE schedule (switch ops
 * in the node, tree ops across nodes) whose tree ops cross nodes, the wire carrying 1 / factor bytes
 * per byte; 1 elsewhere. The factor is NCCL's measured efficiency of its NVLS_TREE pipeline at these
 * sizes, which the schedule's edge-by-edge trees at the NICs' rate do not have (dgx-b200:nodes=8 at 16
 * MiB: 0.77 x NCCL's model without it). A phase with only switch ops (the first reduce-scatter, the
 * last all-gather) keeps its rate. As the protocols' factors, an NCCL term: only in a schedule with
 * NCCL's protocols (one NCCL operation, ar_schedule_uses_proto: the `nccl` pick, nvlstree:proto=...);
 * a schedule without them pays the platform's own per-message costs and no NCCL efficiency. The factor
 * of an NVLS_TREE schedule (nvlstree_across; in: NCCL's model of p); ar_phase_proto_effect applies it to
 * the phases whose tree ops cross nodes. */
static double nvlstree_sched_corr(const ar_schedule *s, const ar_nccl_in *in) {
    double f = ar_nccl_nvlstree_corr(in, AR_NCCL_ALLREDUCE, AR_NCCL_SIMPLE, (double)s->count * (double)s->elem_bytes);
    return f > 0 && f < 1 ? f : 1.0;
}

/* 1 if s is an NVLS_TREE all-reduce across machines priced with NCCL's model (in): switch ops inside the
 * nodes (uses_switch) and a phase of tree ops that cross machines. What its NVLS_TREE terms apply to: the
 * trees' correction (nvlstree_sched_corr), the op rate across nodes (nvls_sched_rate) and NCCL's proxy
 * posts of its first step (ar_nccl_nvlstree_proxy_s, charged with the base latency of the first phase with a
 * protocol). */
static int nvlstree_across(const ar_platform *p, const ar_schedule *s, const ar_nccl_in *in, int uses_switch) {
    if (s->coll != AR_COLL_ALLREDUCE || p->nmachines < 2 || !p->machine_of_rank || !in || !uses_switch) return 0;
    for (int q = 0; q < s->nphases; q++)
        if (phase_tree_across(p, &s->phases[q])) return 1;
    return 0;
}

/* NCCL's NVLS_TREE all-reduce across nodes on Hopper runs every stage of its pipeline (the scatter to and
 * the reduce in the NVSwitch, the trees across nodes, the broadcast back) in warp groups of the same
 * CTAs, each chunk of every concurrent op at the op's share of the tuner's NVLS_TREE bandwidth: a stage
 * inside the node is no faster than the one across (NCCL's model's fill, ar_nccl_nvlstree_fill_bw). So
 * does its NVLS all-reduce on one node (the scatter into the NVLS buffer, the multimem reduce and
 * multicast, the copy out), each op at bwIntra over the channels (ar_nccl_nvls_fill_bw). The bound on
 * every transfer of such a schedule, bytes per second: the ops' bandwidth together, so that a slice of
 * ops x chunk bytes moved in one piece per member (NCCL's slices: the nvlstree planner's, the nvls
 * switch op's chunks) takes about a chunk's time at every stage.
 * Only in an all-reduce with NCCL's protocols (ar_schedule_uses_proto) through the NVSwitch (switch ops)
 * on Hopper: on one node, or across nodes with tree ops across them (nvlstree: nvlstree_across); 0 (no bound)
 * elsewhere. */
static double nvls_sched_rate(const ar_platform *p, const ar_schedule *s, const ar_nccl_in *in, int uses_switch,
                              int nvlstree) {
    if (nvlstree) return ar_nccl_nvlstree_fill_bw(in, NULL);
    if (s->coll != AR_COLL_ALLREDUCE || !in || !uses_switch || p->nmachines > 1) return 0;
    return in->cc_min >= 90 && in->cc_min < 100 ? ar_nccl_nvls_fill_bw(in, NULL) : 0;
}

/* The head of tree op op's chain on rank 0's machine (its member there whose parent is on another machine,
 * or the root): the GPU whose NIC carries the op across nodes, what NCCL's search channel fixes; -1 where
 * the op has no such member (no tree, one machine). */
static int tree_head0(const ar_platform *p, const ar_op *op) {
    if (!op->parent || !p->machine_of_rank || p->nmachines < 2) return -1;
    int m0 = p->machine_of_rank[0];
    for (int m = 0; m < op->n; m++) {
        int q = op->parent[m];
        if (p->machine_of_rank[op->members[m]] == m0 && (q < 0 || q == m || op_hop_crosses(p, op, m, q)))
            return op->members[m];
    }
    return -1;
}

/* NCCL's LL128 tree at the channels' rate: its model prices the tree at the search channels' rate, S
 * channels (one head GPU and its NIC each) capped at perChMaxTreeBw and perChMaxTreeLL128Bw each (tuning.cc;
 * bwIntra on <= 2 nodes, bwInter above; the tree's 0.5 from bus to algorithm bandwidth), while every tree
 * channel is one thread block whose halves reduce up and broadcast down (runTreeSplit), each half moving
 * the channel's slice at that rate, and LL128 forwards each line as it lands, so a channel's slice streams
 * through the whole tree in slice / that rate. The communicator runs each search channel twice (connect.cc:
 * channel c and c + S on one head, trees 0 and 1; nccl-tree's heads=pair), the two sharing the search
 * channel's rate: the phase's search channels are its ops' distinct heads (tree_head0; every op its own
 * where the heads are unknown), NCCL's algorithm bandwidth over that many channels
 * (ar_nccl_proto_flow_GBps x channels) split evenly over the ops. The schedule moves a chunk hop by hop,
 * store-and-forward, in ar_lower_nrounds rounds for its `chunks` chunks: the stream's time spread over the
 * rounds bounds every transfer at that rate x rounds / chunks (wire bytes per second: over the protocol's
 * factor, which the wire then carries as LL128's own; the smallest of the phase's ops'). Without it the
 * schedule ran at the links' rate where they are faster: on two nodes every NIC carries one channel's
 * flow each way (`nccl` on dgx-a100:nodes=2 at 2-8 MiB: 0.73-0.76 x NCCL's model), on 16 with NCCL's
 * wiring two chunks a round (nccl-tree:heads=pair on dgx-a100:nodes=16 at 128 MiB: 0.80 -> 1.00 x).
 * Only where every op of the phase is a TREE op with LL128, on at most two nodes or where ops share a
 * head (NCCL's wiring); 0 elsewhere: with one head a channel across more nodes an inner node's NIC takes
 * three chunks a round and binds first, and the bound on top of it took the `nccl` pick on
 * dgx-h100:nodes=4 at 8 MiB from 1.14 to 1.24 x the model. *factor: LL128's tree factor, where the
 * bound is set. */
static double tree_stream_rate(const ar_platform *p, const ar_nccl_in *in, const ar_phase *ph, double *factor) {
    int nn = p->nmachines > 0 ? p->nmachines : 1;
    if (ph->nops < 1) return 0;
    for (int i = 0; i < ph->nops; i++)
        if (ph->ops[i].proto != AR_PROTO_LL128 || op_nccl_algo(&ph->ops[i]) != AR_NCCL_TREE) return 0;
    int nsearch = ph->nops; /* distinct heads (each op its own where they cannot be counted) */
    int *head = malloc((size_t)ph->nops * sizeof *head);
    if (head) {
        nsearch = 0;
        for (int i = 0; i < ph->nops; i++) {
            int seen = 0;
            head[i] = tree_head0(p, &ph->ops[i]);
            for (int j = 0; j < i && head[i] >= 0 && !seen; j++) seen = head[j] == head[i];
            nsearch += !seen;
        }
        free(head);
    }
    if (nn > 2 && nsearch == ph->nops) return 0; /* one head a channel across more than two nodes */
    double f;
    if (!in || ar_nccl_proto_effect_v(p->nccl_version, AR_NCCL_TREE, AR_NCCL_LL128, nn, 0, &f, NULL, NULL) != AR_OK ||
        !(f > 0))
        return 0;
    double flow = ar_nccl_proto_flow_GBps(in, AR_NCCL_TREE, AR_NCCL_LL128, nsearch) * nsearch / ph->nops, rate = 0;
    if (!(flow > 0)) return 0;
    for (int i = 0; i < ph->nops; i++) {
        const ar_op *op = &ph->ops[i];
        int k = op->chunks > 0 ? op->chunks : 1, rounds = ar_lower_nrounds(op);
        double r = flow * 1e9 / f * (rounds > k ? (double)rounds / k : 1.0);
        if (rate == 0 || r < rate) rate = r;
    }
    *factor = f;
    return rate;
}

/* NCCL's model of p (a topology search) only where an op has a protocol: every term that reads it
 * prices ops with one. */
void ar_proto_ctx_init(ar_proto_ctx *c, const ar_platform *p, const ar_schedule *s) {
    c->p = p;
    c->s = s;
    c->first_proto = s->nphases;
    for (int q = 0; q < s->nphases && c->first_proto == s->nphases; q++)
        for (int i = 0; i < s->phases[q].nops; i++)
            if (s->phases[q].ops[i].proto != AR_PROTO_NONE) {
                c->first_proto = q;
                break;
            }
    c->have_in = c->first_proto < s->nphases && ar_nccl_in_from_platform(p, 0, &c->in, NULL) == AR_OK;
    const ar_nccl_in *in = c->have_in ? &c->in : NULL;
    c->tree_algo = !ar_schedule_uses_switch(s);
    int nvlstree = nvlstree_across(p, s, in, !c->tree_algo);
    c->nvlstree_corr = nvlstree ? nvlstree_sched_corr(s, in) : 1.0;
    c->nvls_rate = nvls_sched_rate(p, s, in, !c->tree_algo, nvlstree);
    c->nvlstree_proxy_s = nvlstree ? ar_nccl_nvlstree_proxy_s(in, (double)s->count * (double)s->elem_bytes) : 0;
}

/* NCCL charges a protocol's base latency once per operation (tuning.cc: baseLat + the steps), and a
 * schedule with protocols is one NCCL operation (nccl-ring's all-reduce: its reduce-scatter and
 * all-gather phases are one kernel): the base is charged in the first phase that has an op with a
 * protocol, none after it. */
void ar_phase_proto_effect(const ar_proto_ctx *c, int ph, double *bw_factor, double *step_s, double *base_s,
                           double *rate_Bps) {
    const ar_platform *p = c->p;
    const ar_schedule *s = c->s;
    const ar_nccl_in *in = c->have_in ? &c->in : NULL;
    double rate;
    double *rb = rate_Bps ? rate_Bps : &rate;
    phase_effect(p, in, &s->phases[ph], c->tree_algo, bw_factor, step_s, base_s, rb);
    double tf, trate = tree_stream_rate(p, in, &s->phases[ph], &tf);
    if (trate > 0) *bw_factor = tf, *rb = trate;
    if (c->nvlstree_corr != 1.0 && phase_tree_across(p, &s->phases[ph])) *bw_factor *= c->nvlstree_corr;
    if (c->nvls_rate > 0 && (*rb == 0 || c->nvls_rate < *rb)) *rb = c->nvls_rate;
    if (ph > c->first_proto) *base_s = 0;
    else if (ph == c->first_proto) *base_s += c->nvlstree_proxy_s;
}

/* ---- the walk with compute costs ----
 *
 * When the platform has a reduction rate or a launch overhead, the walk follows
 * the simulator's --sync dataflow semantics (sim/fast_dataflow.c) instead of lockstep:
 *   - each op member has its own clock: it may start round r when the network
 *     parts of its transfers of rounds < r are done (and, before round 0, when
 *     it entered the phase: the rank's previous phase done, the protocol base
 *     latency and the launch overhead paid);
 *   - a transfer starts when both ends may start its round and its sender holds
 *     the data: every reduction INTO the sender whose element range overlaps what
 *     it sends has ended (a copy also waits for such reductions at its receiver);
 *   - its network part takes the time the lockstep pricing gives that transfer
 *     in its round (route latency + the most loaded link's bytes / capacity) plus
 *     the protocol step latency; a reduce transfer then costs bytes / reduce_Bps
 *     on the receiver's GPU, one reduction at a time in the order they arrive
 *     (rounds in order, transfers in lowering order within a round).
 * Assumptions where it equals the simulation: transfers that the lockstep
 * pricing puts in one round are also the ones that overlap in time (a flat star
 * with even blocks, where every rank is in step), and a GPU's reductions arrive
 * in round order. Elsewhere it is an estimate of the dataflow run. */

typedef struct wd_ent { /* a reduction into a rank: its range and when it ends */
    double t;
    int nseg;
    uint64_t off[2], len[2];
} wd_ent;

typedef struct wd_list {
    wd_ent *v;
    size_t n, cap;
} wd_list;

/* When rank k's range of x is no longer being reduced into (entries at or before floor are dropped). */
static double wd_data(wd_list *l, const ar_xfer *x, double floor) {
    double t = 0;
    for (size_t i = 0; i < l->n;) {
        if (l->v[i].t <= floor) {
            l->v[i] = l->v[--l->n];
            continue;
        }
        if (ar_ranges_overlap(x->nseg, x->off, x->len, l->v[i].nseg, l->v[i].off, l->v[i].len) && l->v[i].t > t)
            t = l->v[i].t;
        i++;
    }
    return t;
}

/* The receiving end of transfer x whose network part ends at net: the receiver's side (per-message
 * overhead, staging copy), then its reduction on the receiver's GPU (FIFO); a transfer that does
 * either is listed in red[dst] until its data has landed. */
static ar_status wd_receive(const ar_platform *p, const ar_xfer *x, double net, double bytes, double gamma, int sw_dst,
                            double *rside, double *gpu, wd_list *red, double *tphase_red, ar_err *e) {
    int sided = !sw_dst && !AR_EP_IS_NODE(x->src) && ar_platform_sided(p, x->src, x->dst);
    double land = net;
    if (sided) {
        double hold, c = ar_platform_side_cost(p, x->src, x->dst, bytes, 1, &hold);
        double r0 = net > rside[x->dst] ? net : rside[x->dst];
        land = r0 + c;
        rside[x->dst] = r0 + hold;
    }
    int gpu_reduce = x->reduce && gamma > 0 && !sw_dst; /* a switch reduces on its virtual link */
    if (!sided && !gpu_reduce) return AR_OK;
    double rend = land;
    if (gpu_reduce) {
        rend = (land > gpu[x->dst] ? land : gpu[x->dst]) +
               ar_platform_rank_gamma(p, gamma, x->dst) * bytes; /* a slow GPU: 1/rate */
        gpu[x->dst] = rend;
    }
    if (rend > *tphase_red) *tphase_red = rend;
    wd_list *l = &red[x->dst];
    if (ar_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v) < 0) return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    l->v[l->n++] = (wd_ent){.t = rend, .nseg = x->nseg, .off = {x->off[0], x->off[1]}, .len = {x->len[0], x->len[1]}};
    return AR_OK;
}

static ar_status walk_dataflow(walk *w, const ar_schedule *s, const double *start_s, ar_model_result *out, ar_err *e) {
    const ar_platform *p = w->p;
    int P = s->nranks;
    double gamma = p->reduce_Bps > 0 ? 1.0 / p->reduce_Bps : 0, L = p->launch_s;
    double *entry = ar_calloc((size_t)P + 1, sizeof *entry);   /* when the rank entered (or may enter) the phase */
    double *floor_ = ar_calloc((size_t)P + 1, sizeof *floor_); /* a lower bound on the rank's next start */
    double *gpu = ar_calloc((size_t)P + 1, sizeof *gpu);       /* when its GPU is free */
    double *sside = ar_calloc((size_t)P + 1, sizeof *sside),
           *rside = ar_calloc((size_t)P + 1, sizeof *rside); /* when each rank's send / receive side is free */
    int msg = ar_platform_has_msg(p);
    double *exitt = ar_calloc((size_t)P + 1, sizeof *exitt); /* when its ops of this phase are done */
    int *nops = ar_calloc((size_t)P + 1, sizeof *nops), *memb = ar_calloc((size_t)P + 1, sizeof *memb);
    wd_list *red = ar_calloc((size_t)P + 1, sizeof *red);
    double *ready = NULL, *next = NULL, *dur = NULL;
    wd_arrival *arr = NULL;
    int *mo = NULL, *xop = NULL; /* slots of op i: ready[mo[i] .. mo[i+1]); op of each transfer */
    size_t capr = 0, capn = 0, capd = 0, capm = 0, capx = 0, capa = 0;
    ar_status st = AR_OK;
    if (!entry || !floor_ || !gpu || !sside || !rside || !exitt || !nops || !memb || !red)
        st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    for (int k = 0; start_s && st == AR_OK && k < P; k++) entry[k] = start_s[k];
    double prev_end = 0, t_end = 0;
    for (int ph = 0; ph < s->nphases && st == AR_OK; ph++) {
        const ar_phase *phase = &s->phases[ph];
        double pf, pstep, pbase;
        w->ph = ph;
        ar_phase_proto_effect(&w->proto, ph, &pf, &pstep, &pbase, &w->rate);
        if (!walk_phase_steps(w, phase, pstep) || !walk_phase_streams(w, phase, (double)s->elem_bytes / pf)) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        size_t tot = 0, maxx = 0;
        int maxr = 0;
        if (ar_grow(&mo, &capm, (size_t)phase->nops + 1, sizeof *mo) < 0 ||
            ar_grow(&w->nrounds, &w->capnr, (size_t)phase->nops + 1, sizeof *w->nrounds) < 0) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        for (int i = 0; i < phase->nops; i++) { /* a slot per member, and one for a reducing switch */
            mo[i] = (int)tot;
            tot += (size_t)phase->ops[i].n + (size_t)(phase->ops[i].impl == AR_IMPL_SWITCH);
            int r = w->nrounds[i] = ar_lower_nrounds(&phase->ops[i]);
            if (r > maxr) maxr = r;
            maxx += ar_lower_max_xfers(&phase->ops[i]);
        }
        mo[phase->nops] = (int)tot;
        if (ar_grow(&ready, &capr, tot + 1, sizeof *ready) < 0 || ar_grow(&next, &capn, tot + 1, sizeof *next) < 0 ||
            ar_grow(&w->xf, &w->capxf, maxx + 1, sizeof *w->xf) < 0 ||
            ar_grow(&dur, &capd, maxx + 1, sizeof *dur) < 0 || ar_grow(&xop, &capx, maxx + 1, sizeof *xop) < 0 ||
            ar_grow(&arr, &capa, maxx + 1, sizeof *arr) < 0) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        for (int k = 0; k < P; k++) nops[k] = 0;
        for (int i = 0; i < phase->nops; i++)
            for (int m = 0; m < phase->ops[i].n; m++) nops[phase->ops[i].members[m]]++;
        for (int k = 0; k < P; k++) {
            if (nops[k]) entry[k] += pbase + L; /* the phase's base latency, then the op launches (concurrent) */
            exitt[k] = entry[k];
            floor_[k] = entry[k];
        }
        for (int i = 0; i < phase->nops; i++) {
            for (int m = 0; m < phase->ops[i].n; m++)
                ready[mo[i] + m] = next[mo[i] + m] = entry[phase->ops[i].members[m]];
            if (phase->ops[i].impl == AR_IMPL_SWITCH) ready[mo[i + 1] - 1] = next[mo[i + 1] - 1] = 0;
        }
        double tphase_red = 0, bw_min = 0, lat_max = 0;
        for (int r = 0; r < maxr && st == AR_OK; r++) {
            w->nxf = 0;
            for (int i = 0; i < phase->nops; i++) {
                if (r >= w->nrounds[i]) continue;
                size_t n0 = w->nxf;
                w->nxf += ar_lower_round(&phase->ops[i], r, w->xf + w->nxf);
                for (size_t t = n0; t < w->nxf; t++) xop[t] = i;
                if (!walk_xfer_steps(w, i, r, n0, w->nxf)) st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            }
            if (st != AR_OK) break;
            double tr = 0, bw = 0, lat = 0;
            st = price_round(w, (double)s->elem_bytes / pf, &tr, &bw, &lat, dur, 0, e);
            if (st != AR_OK) break;
            if (bw > 0 && (bw_min == 0 || bw < bw_min)) bw_min = bw;
            if (lat > lat_max) lat_max = lat;
            int cur = -1;
            for (size_t t = 0; t < w->nxf && st == AR_OK; t++) {
                const ar_xfer *x = &w->xf[t];
                int i = xop[t];
                if (i != cur) { /* rank -> member of op i */
                    cur = i;
                    for (int m = 0; m < phase->ops[i].n; m++) memb[phase->ops[i].members[m]] = m;
                }
                /* a switch end is the op's last slot: it sends piece r down once every
                 * member's piece r has arrived (the switch has no GPU, no reduction list) */
                int sw_src = AR_EP_IS_NODE(x->src), sw_dst = AR_EP_IS_NODE(x->dst);
                int ms = sw_src ? mo[i + 1] - 1 : mo[i] + memb[x->src];
                int md = sw_dst ? mo[i + 1] - 1 : mo[i] + memb[x->dst];
                /* one-sided (ar_op_async): the sender alone decides when it sends */
                int async = ar_op_async(&phase->ops[i]);
                double start = async || ready[ms] > ready[md] ? ready[ms] : ready[md];
                if (!sw_src) {
                    double dsrc = wd_data(&red[x->src], x, floor_[x->src]);
                    if (dsrc > start) start = dsrc;
                }
                if (!x->reduce && !sw_dst) {
                    double ddst = wd_data(&red[x->dst], x, floor_[x->dst]);
                    if (ddst > start) start = ddst;
                }
                double bytes = (double)ar_xfer_elems(x) * (double)s->elem_bytes;
                if (!sw_src && !sw_dst && ar_platform_sided(p, x->src, x->dst)) {
                    /* the sender's side (per-message overhead o, staging copy; held max(cost, g)) */
                    double hold, c = ar_platform_side_cost(p, x->src, x->dst, bytes, 0, &hold);
                    double s0 = start > sside[x->src] ? start : sside[x->src];
                    start = s0 + c;
                    sside[x->src] = s0 + hold;
                }
                /* a gated transfer's ready message: its wait before its receiver's side and reduction */
                double wt = p->msg_ready ? ar_xfer_ready_wait(p, s, ph, i, r, x->src, x->dst) : 0;
                double net = start + dur[t] + wt, prog = start + dur[t] + (w->steps ? w->xs[t] : 0);
                /* a one-sided sender is free once its bytes are out: the flight (ar_xfer_flight) is the
                 * receiver's (the simulator's flow carries no latency then) */
                double snd = async ? net - ar_platform_route_lat(p, x->src, x->dst) : prog;
                if (async)
                    prog = snd +
                           ar_xfer_flight(p, w->steps ? w->ostep[i] : 0, w->stream[i], w->paced[i], x->src, x->dst);
                if (snd > next[ms]) next[ms] = snd;
                if (prog > next[md]) next[md] = prog;
                arr[t] = (wd_arrival){net, t};
                if (!msg) st = wd_receive(p, x, net, bytes, gamma, sw_dst, rside, gpu, red, &tphase_red, e);
            }
            /* per-message costs: each receiver's side takes its messages in the order they arrive */
            if (msg && st == AR_OK) qsort(arr, w->nxf, sizeof *arr, wd_arrival_cmp);
            for (size_t k = 0; msg && k < w->nxf && st == AR_OK; k++) {
                const ar_xfer *x = &w->xf[arr[k].t];
                st = wd_receive(p, x, arr[k].net, (double)ar_xfer_elems(x) * (double)s->elem_bytes, gamma,
                                AR_EP_IS_NODE(x->dst), rside, gpu, red, &tphase_red, e);
            }
            if (st != AR_OK) break;
            for (int i = 0; i < phase->nops; i++) {
                for (int m = 0; m < phase->ops[i].n; m++) {
                    int k = phase->ops[i].members[m];
                    ready[mo[i] + m] = next[mo[i] + m];
                    if (nops[k] == 1) floor_[k] = next[mo[i] + m];
                }
                if (phase->ops[i].impl == AR_IMPL_SWITCH) ready[mo[i + 1] - 1] = next[mo[i + 1] - 1];
            }
        }
        if (st != AR_OK) break;
        double pend = prev_end;
        for (int i = 0; i < phase->nops; i++)
            for (int m = 0; m < phase->ops[i].n; m++) {
                int k = phase->ops[i].members[m];
                if (ready[mo[i] + m] > exitt[k]) exitt[k] = ready[mo[i] + m];
            }
        for (int k = 0; k < P; k++) {
            if (nops[k]) entry[k] = exitt[k];
            if (entry[k] > pend) pend = entry[k];
        }
        if (tphase_red > pend) pend = tphase_red;
        if (pend > t_end) t_end = pend;
        phase_stage(out, s, ph, bw_min, lat_max, pend - prev_end);
        prev_end = pend;
    }
    for (int k = 0; red && k < P; k++) free(red[k].v);
    void *arrs[] = {entry, floor_, gpu, sside, rside, exitt, nops, memb, red, ready, next, dur, mo, xop, arr};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
    snprintf(out->note, sizeof out->note,
             "generic walk: per-rank dataflow (sim --sync dataflow)%s, reduction %.6g s/B FIFO per "
             "GPU overlapped with the next transfers, launch %.6g s per op%s",
             start_s ? ", late ranks start late" : "", gamma, L,
             p->stage_d2h_Bps > 0 ? ", staging copies (FIFO copy engines)" : "");
    if (msg) { /* appended, cut where the note is full */
        size_t used = strlen(out->note);
        snprintf(out->note + used, sizeof out->note - used, "%s", ", o and g per message (serial sides per rank)");
    }
    (void)t_end;
    return st;
}

double ar_latest_start(const double *start_s, int n) {
    double late = 0;
    for (int k = 0; start_s && k < n; k++)
        if (start_s[k] > late) late = start_s[k];
    return late;
}

const ar_platform *ar_platform_msg_for(const ar_platform *p, const ar_schedule *s, ar_platform *copy) {
    if (!p || !s || !(ar_platform_has_msg(p) || p->msg_ready) ||
        !(ar_schedule_uses_proto(s) || ar_schedule_uses_switch(s)))
        return p;
    *copy = *p;          /* a shallow copy, read only */
    copy->msg_ready = 0; /* NCCL's steps and switch ops run no MPI ready messages */
    if (ar_schedule_uses_proto(s)) copy->msg_o_s = copy->msg_g_s = 0;
    else if (ar_platform_has_msg(p)) copy->msg_piped = 1;
    return copy;
}

ar_status ar_model_walk(const ar_platform *p, const ar_schedule *s, ar_model_result *out, ar_err *e) {
    return ar_model_walk_from(p, s, NULL, out, e);
}

ar_status ar_model_walk_from(const ar_platform *p, const ar_schedule *s, const double *start_s, ar_model_result *out,
                             ar_err *e) {
    memset(out, 0, sizeof *out);
    ar_platform net;
    p = ar_platform_msg_for(p, s, &net);
    if (!(ar_latest_start(start_s, s->nranks) > 0)) start_s = NULL;
    if (s->nranks != p->nranks)
        return ar_fail(e, AR_EINVAL, "schedule has %d ranks, platform %s has %d", s->nranks, p->name, p->nranks);
    double work = 0; /* transfers the walk lowers: rounds equal to the one before are priced once */
    double all = 0;  /* every transfer: the dataflow walk lowers them all */
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            int nr = ar_lower_nrounds(op), distinct = 0;
            for (int r = 0; r < nr; r += ar_lower_same_rounds(op, r)) distinct++;
            work += (double)distinct * (double)ar_lower_max_xfers(op);
            all += (double)nr * (double)ar_lower_max_xfers(op);
        }
    if (work > AR_WALK_MAX_TRANSFERS)
        return ar_fail(e, AR_ELIMIT, "cost walk: %s lowers to about %.3g transfers, beyond the walk's limit of %.3g",
                       s->algo, work, AR_WALK_MAX_TRANSFERS);
    ar_status cs = ar_platform_check_switch_ops(p, s, e);
    if (cs != AR_OK) {
        ar_err_prefix(e, "cost walk");
        return cs;
    }
    walk w = {.p = p, .s = s};
    ar_proto_ctx_init(&w.proto, p, s);
    w.load = ar_calloc(((size_t)p->nlinks + (size_t)p->nvlinks) * 2 + 1, sizeof *w.load); /* + virtual links */
    if (!w.load) return ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    ar_status st = AR_OK;
    /* the dataflow walk (it writes its own note); per-message costs alone on a schedule of more transfers
     * than AR_WALK_DATAFLOW_MAX, or with switch ops (the simulator runs those lockstep): lockstep rounds
     * with the sides priced inside each round (round_msg; a transfer to or from a switch pays none) */
    int other = p->reduce_Bps > 0 || p->launch_s > 0 || p->stage_d2h_Bps > 0;
    /* NCCL's protocols send one-sidedly (ar_op_async) under the simulator's dataflow semantics: the
     * dataflow walk follows them (lockstep rounds would wait for every step); switch schedules run
     * lockstep in the simulator and keep the lockstep walk */
    int async = ar_schedule_async_ops(s, NULL) > 0;
    int dataflow = other || start_s ||
                   ((ar_platform_has_msg(p) || async) && all <= AR_WALK_DATAFLOW_MAX && !ar_schedule_uses_switch(s));
    if (!dataflow && ar_platform_has_msg(p)) {
        w.msg = 1;
        w.sfree = ar_calloc((size_t)p->nranks + 1, sizeof *w.sfree);
        w.rfree = ar_calloc((size_t)p->nranks + 1, sizeof *w.rfree);
        if (!w.sfree || !w.rfree) st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
    }
    if (dataflow) st = walk_dataflow(&w, s, start_s, out, e);
    for (int ph = 0; !dataflow && ph < s->nphases && st == AR_OK; ph++) {
        const ar_phase *phase = &s->phases[ph];
        w.ph = ph;
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
        int stream = maxx > WALK_WINDOW; /* price_round_stream: a window of transfers at a time */
        if (stream) { /* a window, or an op whose rounds cannot be windowed (at most n + 1 transfers) */
            maxx = WALK_WINDOW;
            for (int i = 0; i < phase->nops; i++)
                if (ar_lower_max_xfers(&phase->ops[i]) > maxx && !ar_lower_windowed(&phase->ops[i], 0))
                    maxx = ar_lower_max_xfers(&phase->ops[i]);
        }
        if (ar_grow(&w.xf, &w.capxf, maxx, sizeof *w.xf) < 0) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        double tphase = 0, bw_min = 0, lat_max = 0, pf, pstep, pbase;
        ar_phase_proto_effect(&w.proto, ph, &pf, &pstep, &pbase, &w.rate);
        if (!walk_phase_steps(&w, phase, pstep)) {
            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
            break;
        }
        if (!stream && phase_mixed(&w, phase)) {
            st = walk_phase_events_cached(&w, phase, (double)s->elem_bytes / pf, pstep, &tphase, &bw_min, &lat_max, e);
            maxr = 0; /* priced: no lockstep rounds */
            w.nprev = 0;
        }
        for (int r = 0; r < maxr && st == AR_OK; r++) {
            double t = 0, bw = 0, lat = 0;
            if (stream) {
                st = price_round_stream(&w, phase, r, (double)s->elem_bytes / pf, &t, &bw, &lat, e);
            } else {
                w.nxf = 0;
                for (int i = 0; i < phase->nops && st == AR_OK; i++)
                    if (r < w.nrounds[i]) {
                        size_t n0 = w.nxf;
                        w.nxf += ar_lower_round(&phase->ops[i], r, w.xf + w.nxf);
                        if (!walk_xfer_steps(&w, i, r, n0, w.nxf))
                            st = ar_fail(e, AR_ENOMEM, "cost walk: out of memory");
                    }
                if (st == AR_OK) st = price_round_reuse(&w, (double)s->elem_bytes / pf, &t, &bw, &lat, e);
            }
            tphase += t; /* its transfers' protocol steps included */
            /* the next J rounds of every op still running lower to these same transfers
             * (ar_lower_same_rounds): the same price, without lowering them */
            int J = p->msg_ready ? 0 : INT32_MAX; /* ready messages: a ring's first round waits, the rest not */
            for (int i = 0; i < phase->nops && J > 0; i++)
                if (r < w.nrounds[i]) {
                    int k = ar_lower_same_rounds(&phase->ops[i], r) - 1;
                    if (k < J) J = k;
                }
            if (J > 0 && J < INT32_MAX) {
                tphase += (double)J * t;
                r += J;
            }
            if (bw > 0 && (bw_min == 0 || bw < bw_min)) bw_min = bw;
            if (lat > lat_max) lat_max = lat;
        }
        if (st != AR_OK) break;
        tphase += pbase;
        phase_stage(out, s, ph, bw_min, lat_max, tphase);
    }
    free(w.load);
    free(w.touched);
    free(w.xf);
    free(w.route_off);
    free(w.routes);
    free(w.nrounds);
    free(w.prev);
    free(w.sfree);
    free(w.rfree);
    free(w.mdur);
    free(w.marr);
    free(w.evkey);
    free(w.evnew);
    free(w.ostep);
    free(w.stream);
    free(w.paced);
    free(w.xs);
    free(w.prevxs);
    if (!dataflow)
        snprintf(out->note, sizeof out->note,
                 "generic walk: lockstep rounds, equal share of each directed link per round, alpha = route latency%s",
                 w.msg ? "; o and g per message inside each round" : "");
    return st;
}
