/* The fast engine's batches (see fast.c for the design): transfer
 * resources, op groups, gathering a batch, the repeat shortcut, components and
 * their keys, applying a closed batch and its link statistics. */
#include <stdlib.h>
#include <string.h>

#include "fast_int.h"

/* Resources of transfer (src -> dst, reduce) written to g->sc.res from position
 * `at` (the buffer grows to fit): *nres of them, the first *nfwd the route's links. */
ar_status eng_flow_resources(eng *g, int src, int dst, int reduce, size_t at, int *nres, int *nfwd) {
    int n, m;
    ar_status st = ar_platform_route_x_append(g->p, src, dst, reduce, &g->sc.res, &g->sc.res_cap, at, &n, g->e);
    if (st != AR_OK) return st;
    *nfwd = n;
    if (g->crosstraffic) { /* the reverse path's links; a switch at either end (a switch op) routes too */
        st = ar_platform_route_x_append(g->p, dst, src, 0, &g->sc.res, &g->sc.res_cap, at + (size_t)n, &m, g->e);
        if (st != AR_OK) return st;
        n += m;
    }
    if (g->gamma > 0 && reduce && dst >= 0) { /* into a switch: its virtual link is the reduction */
        if (GROW(sc.res, at + (size_t)n + 1) < 0) return OOM();
        g->sc.res[at + (size_t)n++] = g->ndl + dst;
    }
    if (eng_sided(g, src, dst)) { /* per-message costs: its sender's send side, its receiver's receive side */
        if (GROW(sc.res, at + (size_t)n + 2) < 0) return OOM();
        g->sc.res[at + (size_t)n++] = g->ndl + g->p->nranks + src;
        g->sc.res[at + (size_t)n++] = g->ndl + 2 * g->p->nranks + dst;
    }
    *nres = n;
    return AR_OK;
}

/* ---- groups ---- */

static uint32_t next_stamp(eng *g) {
    if (++g->sc.stamp == 0) { /* wrapped: reset every stamp */
        memset(g->sc.own_stamp, 0, (size_t)g->nres * sizeof *g->sc.own_stamp);
        memset(g->sc.loc_stamp, 0, (size_t)g->nres * sizeof *g->sc.loc_stamp);
        memset(g->busy.stamp, 0, (size_t)g->ndl * sizeof *g->busy.stamp);
        g->sc.stamp = 1;
    }
    return g->sc.stamp;
}

/* Set of 64-bit keys (0 = empty), for the distinct transfers of an op. */

typedef struct kset {
    uint64_t *t;
    size_t cap, n;
} kset;

static int kset_reset(kset *k, size_t want) {
    size_t c = 1024;
    while (c < want) c *= 2;
    if (c > k->cap) {
        free(k->t);
        k->t = ar_calloc(c, sizeof *k->t);
        if (!k->t) return -1;
        k->cap = c;
    } else {
        memset(k->t, 0, k->cap * sizeof *k->t);
    }
    k->n = 0;
    return 0;
}

/* Adds key; returns 1 if new, 0 if present, -1 on allocation failure. */
static int kset_add(kset *k, uint64_t key) {
    size_t h = (size_t)eng_mix64(0, key) & (k->cap - 1);
    while (k->t[h] && k->t[h] != key) h = (h + 1) & (k->cap - 1);
    if (k->t[h]) return 0;
    k->t[h] = key;
    if (++k->n * 2 > k->cap) {
        size_t nc = k->cap * 2;
        uint64_t *nt = ar_calloc(nc, sizeof *nt);
        if (!nt) return -1;
        for (size_t q = 0; q < k->cap; q++)
            if (k->t[q]) {
                size_t j = (size_t)eng_mix64(0, k->t[q]) & (nc - 1);
                while (nt[j]) j = (j + 1) & (nc - 1);
                nt[j] = k->t[q];
            }
        free(k->t);
        k->t = nt;
        k->cap = nc;
    }
    return 1;
}

/* Partitions the phase's ops into groups (see the file comment): one pass over
 * every round of every op, routing each distinct (src, dst, reduce) once. */

ar_status eng_make_groups(eng *g, const ar_phase *ph) {
    int nops = ph->nops;
    if (GROW(ph.uf, (size_t)nops + 1) < 0 || GROW(ph.goff, (size_t)nops + 2) < 0 ||
        GROW(ph.gops, (size_t)nops + 1) < 0 || GROW(sc.cidx, (size_t)nops + 1) < 0)
        return OOM();
    g->c.an_valid = 0;                                                 /* g->sc.res is reused below */
    for (int i = 0; i < nops; i++) g->ph.uf[i] = g->shortcuts ? i : 0; /* no shortcuts: one group */
    if (g->shortcuts && nops > 1) {
        uint32_t st = next_stamp(g);
        kset seen = {0};
        for (int i = 0; i < nops; i++) {
            const ar_op *op = &ph->ops[i];
            int nr = ar_lower_nrounds(op);
            if (GROW(sc.xbuf, ar_lower_max_xfers(op)) < 0 || kset_reset(&seen, 4 * (size_t)op->n) < 0) {
                free(seen.t);
                return OOM();
            }
            for (int r = 0; r < nr; r += ar_lower_same_pairs(op, r)) { /* (the same pairs: the same routes) */
                size_t k = ar_lower_round(op, r, g->sc.xbuf);
                for (size_t t = 0; t < k; t++) {
                    const ar_xfer *x = &g->sc.xbuf[t];
                    uint64_t key = (((uint64_t)(uint32_t)x->src << 32 | (uint32_t)x->dst) << 1 | (x->reduce != 0)) + 1;
                    int a = kset_add(&seen, key);
                    if (a < 0) {
                        free(seen.t);
                        return OOM();
                    }
                    if (a == 0) continue;
                    int nf, nres;
                    ar_status fs = eng_flow_resources(g, x->src, x->dst, x->reduce, 0, &nres, &nf);
                    if (fs != AR_OK) {
                        free(seen.t);
                        return fs;
                    }
                    for (int q = 0; q < nres; q++) {
                        int rs = g->sc.res[q];
                        if (g->sc.own_stamp[rs] == st) {
                            ar_uf_union(g->ph.uf, i, g->sc.own[rs]);
                        } else {
                            g->sc.own_stamp[rs] = st;
                            g->sc.own[rs] = i;
                        }
                    }
                }
            }
        }
        free(seen.t);
    }
    /* groups numbered by their first op; CSR of their ops in op order */
    g->ph.ngroups = 0;
    for (int i = 0; i < nops; i++) {
        int rt = ar_uf_find(g->ph.uf, i);
        if (rt == i) g->sc.cidx[i] = g->ph.ngroups++;
        g->ph.uf[i] = rt;
    }
    memset(g->ph.goff, 0, ((size_t)g->ph.ngroups + 1) * sizeof *g->ph.goff);
    for (int i = 0; i < nops; i++) g->ph.goff[g->sc.cidx[g->ph.uf[i]] + 1]++;
    for (int k = 0; k < g->ph.ngroups; k++) g->ph.goff[k + 1] += g->ph.goff[k];
    for (int i = 0; i < nops; i++) g->ph.gops[g->ph.goff[g->sc.cidx[g->ph.uf[i]]]++] = i;
    for (int k = g->ph.ngroups; k > 0; k--) g->ph.goff[k] = g->ph.goff[k - 1];
    g->ph.goff[0] = 0;
    g->r->groups += g->ph.ngroups;
    return AR_OK;
}

/* ---- the batch ---- */

/* Collects the next non-empty round of every unfinished op of the current
 * group (empty rounds take no time). g->b.n == 0: the group is finished. */
ar_status eng_gather(eng *g) {
    g->b.n = 0;
    g->b.nslots = 0;
    for (int k = g->ph.goff[g->ph.group]; k < g->ph.goff[g->ph.group + 1]; k++) {
        int i = g->ph.gops[k];
        opst *os = &g->ph.ops[i];
        while (os->round < os->nrounds) {
            size_t mx = ar_lower_max_xfers(os->op);
            if (GROW(b.x, g->b.n + mx) < 0 || GROW(b.slot, g->b.n + mx) < 0) return OOM();
            size_t c = ar_lower_round(os->op, os->round, g->b.x + g->b.n);
            if (c > mx) return ar_fail(g->e, AR_EINTERNAL, "sim: lowering overflow in op %d", i);
            if (c == 0) {
                os->round++;
                continue;
            }
            if (GROW(b.slot_op, (size_t)g->b.nslots + 1) < 0) return OOM();
            for (size_t t = 0; t < c; t++) g->b.slot[g->b.n + t] = g->b.nslots;
            g->b.slot_op[g->b.nslots++] = i;
            g->b.n += c;
            break;
        }
    }
    return AR_OK;
}

/* Repeat shortcut: does the batch equal the saved one? */
int eng_repeat_match(const eng *g) {
    /* ready messages: a round equal to the one before waits for none where the one before did */
    if (!g->rep.valid || g->p->msg_ready || g->rep.n != g->b.n || g->rep.nslots != g->b.nslots) return 0;
    for (size_t t = 0; t < g->b.n; t++) {
        const ar_xfer *x = &g->b.x[t];
        const s1rec *q = &g->rep.rec[t];
        if (q->slot != g->b.slot[t] || q->src != x->src || q->dst != x->dst || q->reduce != x->reduce ||
            q->elems != ar_xfer_elems(x))
            return 0;
    }
    return 1;
}

/* Closed: no op with rounds left ends its round before the batch's end. */
int eng_closed(const eng *g, const double *opend, double tend) {
    for (int k = 0; k < g->b.nslots; k++) {
        const opst *os = &g->ph.ops[g->b.slot_op[k]];
        if (os->round + 1 < os->nrounds && opend[k] != tend) return 0;
    }
    return 1;
}

/* Link statistics of the batch (routes in g->sc.res): bytes to link_bytes, the
 * longest network time per link to ebusy over the touched links. */
static ar_status batch_links(eng *g, const double *dnet) {
    uint32_t st = next_stamp(g);
    g->busy.ntouched = 0;
    for (size_t t = 0; t < g->b.n; t++) {
        double bytes = ENG_WIRE(g, ar_xfer_elems(&g->b.x[t]));
        for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++) {
            int d = g->sc.res[q];
            if (g->busy.stamp[d] != st) {
                g->busy.stamp[d] = st;
                g->busy.t[d] = 0;
                g->busy.count[d] = 0;
                if (GROW(busy.touched, g->busy.ntouched + 1) < 0) return OOM();
                g->busy.touched[g->busy.ntouched++] = d;
            }
            if (dnet[t] > g->busy.t[d]) g->busy.t[d] = dnet[t];
            g->busy.count[d]++;
            g->r->link_bytes[d] += bytes;
        }
    }
    for (size_t k = 0; k < g->busy.ntouched; k++) {
        int d = g->busy.touched[k];
        g->r->link_busy_s[d] += g->busy.t[d];
        if (g->busy.count[d] > g->r->link_max_flows[d]) g->r->link_max_flows[d] = g->busy.count[d];
    }
    return AR_OK;
}

/* Applies a closed batch of known durations starting now. repeat: the link
 * statistics are the saved batch's. */
ar_status eng_apply_batch(eng *g, const double *dnet, const double *dtot, double tend, int repeat) {
    double T0 = eng_now(g);
    ar_sim_result *r = g->r;
    eng_cert_batch(g, T0, dnet, dtot, repeat);
    if (repeat) {
        for (size_t k = 0; k < g->rep.nd; k++) {
            int d = g->rep.dl[k];
            r->link_bytes[d] += g->rep.bytes[k];
            r->link_busy_s[d] += g->rep.busy[k];
            if (g->rep.cnt[k] > r->link_max_flows[d]) r->link_max_flows[d] = g->rep.cnt[k];
        }
    } else {
        ar_status st = batch_links(g, dnet);
        if (st != AR_OK) return st;
    }
    if (g->io.data) { /* every transfer reads at the start, writes at its end */
        size_t tot = 0;
        for (size_t t = 0; t < g->b.n; t++) tot += ar_xfer_elems(&g->b.x[t]);
        if (GROW(sc.stage, tot + 1) < 0) return OOM();
        size_t k = 0;
        for (size_t t = 0; t < g->b.n; t++) {
            eng_data_read(g, &g->b.x[t], g->sc.stage + k);
            k += ar_xfer_elems(&g->b.x[t]);
        }
        k = 0;
        for (size_t t = 0; t < g->b.n; t++) {
            eng_data_write(g, &g->b.x[t], g->sc.stage + k);
            k += ar_xfer_elems(&g->b.x[t]);
        }
    }
    if (g->io.trace)
        for (size_t t = 0; t < g->b.n; t++) {
            int opi = g->b.slot_op[g->b.slot[t]];
            eng_trace_event(g, &g->b.x[t], opi, g->ph.ops[opi].round, T0, dtot[t]);
        }
    for (size_t t = 0; t < g->b.n; t++) r->bytes += ENG_WIRE(g, ar_xfer_elems(&g->b.x[t]));
    r->transfers += g->b.n;
    for (int k = 0; k < g->b.nslots; k++) g->ph.ops[g->b.slot_op[k]].round++;
    g->off += tend;
    return AR_OK;
}

/* Saves the batch just applied by eng_apply_batch(repeat = 0) for the repeat
 * shortcut (batch_links left the touched links and their busy times). */
ar_status eng_repeat_save(eng *g, double tend) {
    size_t n = g->b.n, nd = g->busy.ntouched;
    if (GROW(rep.rec, n) < 0 || GROW(rep.opend, (size_t)g->b.nslots) < 0 || GROW(rep.dnet, n) < 0 ||
        GROW(rep.dtot, n) < 0 || GROW(rep.dl, nd) < 0 || GROW(rep.bytes, nd) < 0 || GROW(rep.busy, nd) < 0 ||
        GROW(rep.cnt, nd) < 0)
        return OOM();
    for (size_t t = 0; t < n; t++) {
        const ar_xfer *x = &g->b.x[t];
        g->rep.rec[t] =
            (s1rec){.slot = g->b.slot[t], .src = x->src, .dst = x->dst, .reduce = x->reduce, .elems = ar_xfer_elems(x)};
        g->rep.dnet[t] = g->c.dnet[t];
        g->rep.dtot[t] = g->c.dtot[t];
    }
    memcpy(g->rep.opend, g->c.opend, (size_t)g->b.nslots * sizeof *g->c.opend);
    g->rep.n = n;
    g->rep.nslots = g->b.nslots;
    g->rep.tend = tend;
    for (size_t k = 0; k < nd; k++) {
        int d = g->busy.touched[k];
        g->rep.dl[k] = d;
        g->rep.busy[k] = g->busy.t[d];
        g->rep.cnt[k] = g->busy.count[d];
        g->rep.bytes[k] = 0;
        g->sc.own[d] = (int)k; /* position of each touched link (own[] is free scratch here) */
    }
    for (size_t t = 0; t < n; t++) {
        double bytes = ENG_WIRE(g, ar_xfer_elems(&g->b.x[t]));
        for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++) g->rep.bytes[g->sc.own[g->sc.res[q]]] += bytes;
    }
    g->rep.nd = nd;
    g->rep.valid = 1;
    return AR_OK;
}

/* After a repeated batch: when the next J rounds of every op of the batch lower to the same
 * transfers again (ar_lower_same_rounds: a ring's steps with even blocks), they would repeat it J
 * times, each from an idle network: their outcome is applied J times at once, without lowering
 * them (statistics, clock, rounds; under --sync dataflow the certificate's readiness moves to the
 * last of them: every start there is checked by the same arithmetic as in the repeated batch,
 * translated in time; a diverged run jumps once its rounds only shift, eng_cert_jump). Not with
 * --check or --trace, which need every transfer. */
ar_status eng_repeat_jump(eng *g) {
    if (g->io.data || g->io.trace || !g->rep.valid || g->stopped || !eng_cert_can_jump(g)) return AR_OK;
    int J = INT32_MAX;
    for (int k = 0; k < g->b.nslots && J > 0; k++) {
        const opst *os = &g->ph.ops[g->b.slot_op[k]];
        int j = ar_lower_same_rounds(os->op, os->round - 1) - 1; /* rounds after the one just applied */
        if (j < J) J = j;
    }
    if (J <= 0 || J == INT32_MAX) return AR_OK;
    ar_sim_result *r = g->r;
    for (size_t k = 0; k < g->rep.nd; k++) {
        int d = g->rep.dl[k];
        r->link_bytes[d] += (double)J * g->rep.bytes[k];
        r->link_busy_s[d] += (double)J * g->rep.busy[k];
    }
    double bytes = 0;
    for (size_t t = 0; t < g->b.n; t++) bytes += ENG_WIRE(g, ar_xfer_elems(&g->b.x[t]));
    r->bytes += (double)J * bytes;
    r->transfers += (uint64_t)J * g->b.n;
    r->epochs += (uint64_t)J;
    r->epochs_repeat += (uint64_t)J;
    r->epochs_jumped += (uint64_t)J;
    for (int k = 0; k < g->b.nslots; k++) g->ph.ops[g->b.slot_op[k]].round += J;
    g->off += (double)J * g->rep.tend;
    eng_cert_jump(g, J, eng_now(g) - g->rep.tend); /* the last jumped batch started at now - tend */
    return AR_OK;
}

/* Routes, components and keys of the batch; looks every key up and lists in
 * g->pr.miss one component per distinct unknown key. */
static ar_status lookup_keys(eng *g);

/* Same transfers as the last analysed batch, sizes aside? */
static int same_pairs(const eng *g) {
    if (!g->c.an_valid || g->b.n != g->c.an_n) return 0;
    for (size_t t = 0; t < g->b.n; t++) {
        const ar_xfer *x = &g->b.x[t];
        const s1rec *q = &g->c.an[t];
        if (q->slot != g->b.slot[t] || q->src != x->src || q->dst != x->dst || q->reduce != x->reduce) return 0;
    }
    return 1;
}

ar_status eng_analyse(eng *g) {
    size_t n = g->b.n;
    if (same_pairs(g)) { /* only the size words of the keys change */
        for (size_t t = 0; t < n; t++) g->c.keys[g->c.ksz[t]] = ar_xfer_elems(&g->b.x[t]);
        return lookup_keys(g);
    }
    g->c.an_valid = 0;
    if (GROW(c.an, n + 1) < 0 || GROW(c.ksz, n + 1) < 0) return OOM();
    if (GROW(b.roff, n + 1) < 0 || GROW(b.nfwd, n + 1) < 0 || GROW(c.fpar, n + 1) < 0 || GROW(c.corder, n + 1) < 0 ||
        GROW(sc.cidx, n + 1) < 0)
        return OOM();
    uint32_t st = next_stamp(g);
    size_t used = 0;
    for (size_t t = 0; t < n; t++) {
        g->b.roff[t] = (int)used;
        g->c.fpar[t] = (int)t;
        int nf, k;
        ar_status fs = eng_flow_resources(g, g->b.x[t].src, g->b.x[t].dst, g->b.x[t].reduce, used, &k, &nf);
        if (fs != AR_OK) return fs;
        g->b.nfwd[t] = nf;
        for (int q = 0; q < k; q++) {
            int rs = g->sc.res[used + (size_t)q];
            if (g->sc.own_stamp[rs] == st) {
                ar_uf_union(g->c.fpar, (int)t, g->sc.own[rs]);
            } else {
                g->sc.own_stamp[rs] = st;
                g->sc.own[rs] = (int)t;
            }
        }
        used += (size_t)k;
    }
    g->b.roff[n] = (int)used;
    /* components numbered by their first transfer; counting sort keeps batch order */
    g->c.ncomp = 0;
    for (size_t t = 0; t < n; t++) {
        int rt = ar_uf_find(g->c.fpar, (int)t);
        g->c.fpar[t] = rt;
        if (rt == (int)t) g->sc.cidx[t] = g->c.ncomp++;
    }
    size_t nc = (size_t)g->c.ncomp;
    if (GROW(c.cstart, nc + 2) < 0 || GROW(c.koff, nc + 1) < 0 || GROW(c.klen, nc + 1) < 0 ||
        GROW(c.hash, nc + 1) < 0 || GROW(c.val, nc + 1) < 0)
        return OOM();
    memset(g->c.cstart, 0, (nc + 2) * sizeof *g->c.cstart);
    for (size_t t = 0; t < n; t++) g->c.cstart[g->sc.cidx[g->c.fpar[t]] + 2]++;
    for (size_t c = 0; c < nc; c++) g->c.cstart[c + 2] += g->c.cstart[c + 1];
    for (size_t t = 0; t < n; t++) g->c.corder[g->c.cstart[g->sc.cidx[g->c.fpar[t]] + 1]++] = (int)t;
    /* now cstart[c] .. cstart[c+1] delimit component c */
    g->c.nkeys = 0;
    for (size_t c = 0; c < nc; c++) {
        uint32_t ls = next_stamp(g);
        int m = g->c.cstart[c + 1] - g->c.cstart[c];
        size_t start = g->c.nkeys, need = g->c.nkeys + 3;
        for (int k = g->c.cstart[c]; k < g->c.cstart[c + 1]; k++) {
            int t = g->c.corder[k];
            need += 2 + 3 * (size_t)(g->b.roff[t + 1] - g->b.roff[t]);
        }
        if (GROW(c.keys, need) < 0) return OOM();
        uint64_t *K = g->c.keys;
        size_t w = start;
        K[w++] = (uint64_t)m;
        K[w++] = eng_dbits(g->eb);   /* wire bytes per element (the phase's protocol) */
        K[w++] = eng_dbits(g->rate); /* and its bound on every flow's rate */
        int nloc = 0;
        for (int k = g->c.cstart[c]; k < g->c.cstart[c + 1]; k++) {
            int t = g->c.corder[k];
            int nr = g->b.roff[t + 1] - g->b.roff[t];
            g->c.ksz[t] = w;
            K[w++] = ar_xfer_elems(&g->b.x[t]);
            K[w++] = (uint64_t)(g->b.x[t].reduce != 0) | (uint64_t)g->b.nfwd[t] << 1 | (uint64_t)nr << 24;
            for (int q = g->b.roff[t]; q < g->b.roff[t + 1]; q++) {
                int rs = g->sc.res[q];
                if (g->sc.loc_stamp[rs] == ls) {
                    K[w++] = (uint64_t)g->sc.loc_id[rs] << 1;
                    continue;
                }
                /* first appearance: local id, then the resource's label */
                g->sc.loc_stamp[rs] = ls;
                g->sc.loc_id[rs] = nloc++;
                if (rs < g->ndl) {
                    const ar_link *l = &g->p->links[AR_DLINK_LINK(rs)];
                    K[w++] = (uint64_t)g->sc.loc_id[rs] << 1;
                    K[w++] = eng_dbits(ar_link_capacity(l));
                    K[w++] = eng_dbits(l->lat_s);
                } else { /* a GPU's compute (all GPUs have the same speed), or a send or receive side
                          * (every side has the same o and g) */
                    int kind = (rs - g->ndl) / g->p->nranks;
                    K[w++] = (uint64_t)g->sc.loc_id[rs] << 1 | 1;
                    K[w++] = kind ? (uint64_t)kind : ~UINT64_C(0);
                    K[w++] = ~UINT64_C(0);
                }
            }
        }
        g->c.koff[c] = start;
        g->c.klen[c] = (uint32_t)(w - start);
        g->c.nkeys = w;
    }
    for (size_t t = 0; t < n; t++)
        g->c.an[t] =
            (s1rec){.slot = g->b.slot[t], .src = g->b.x[t].src, .dst = g->b.x[t].dst, .reduce = g->b.x[t].reduce};
    g->c.an_n = n;
    g->c.an_valid = 1;
    return lookup_keys(g);
}

/* Hashes every component's key and looks it up; lists in g->pr.miss one
 * component per distinct unknown key. */
static ar_status lookup_keys(eng *g) {
    const uint64_t *K = g->c.keys;
    g->pr.nmiss = 0;
    for (int c = 0; c < g->c.ncomp; c++) {
        size_t start = g->c.koff[c];
        uint32_t len = g->c.klen[c];
        uint64_t h = UINT64_C(1469598103934665603);
        for (size_t q = start; q < start + len; q++) h = eng_mix64(h, K[q]);
        g->c.hash[c] = h;
        const memo_ent *en = eng_memo_find(&g->memo, h, K + start, len);
        g->c.val[c] = en ? g->memo.vals + en->val_off : NULL;
        if (en) continue;
        int dup = 0;
        for (size_t q = 0; q < g->pr.nmiss && !dup; q++) {
            size_t c0 = (size_t)g->pr.miss[q];
            dup = g->c.hash[c0] == h && g->c.klen[c0] == len && !memcmp(K + g->c.koff[c0], K + start, len * sizeof *K);
        }
        if (!dup) {
            if (GROW(pr.miss, g->pr.nmiss + 1) < 0) return OOM();
            g->pr.miss[g->pr.nmiss++] = c;
        }
    }
    return AR_OK;
}

/* Durations of every transfer from the memo, each op's end; *tend the last. */
ar_status eng_outcome(eng *g, double *tend) {
    size_t n = g->b.n;
    if (GROW(c.dnet, n) < 0 || GROW(c.dtot, n) < 0 || GROW(c.opend, (size_t)g->b.nslots + 1) < 0) return OOM();
    for (int k = 0; k < g->b.nslots; k++) g->c.opend[k] = 0;
    double te = 0;
    for (int c = 0; c < g->c.ncomp; c++) {
        const double *v = g->c.val[c];
        if (!v) return ar_fail(g->e, AR_EINTERNAL, "sim: component %d has no durations", c);
        for (int k = g->c.cstart[c]; k < g->c.cstart[c + 1]; k++) {
            int t = g->c.corder[k], j = k - g->c.cstart[c], sl = g->b.slot[t];
            g->c.dnet[t] = v[2 * j];
            g->c.dtot[t] = v[2 * j + 1] +
                           eng_xfer_step(g, g->b.slot_op[sl], g->ph.ops[g->b.slot_op[sl]].round, &g->b.x[t]);
            if (g->c.dtot[t] > g->c.opend[sl]) g->c.opend[sl] = g->c.dtot[t];
            if (g->c.dtot[t] > te) te = g->c.dtot[t];
        }
    }
    *tend = te;
    return AR_OK;
}
