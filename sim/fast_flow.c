/* The fast engine's transfers simulated by SimGrid (SimGrid mode), its probes
 * (components simulated alone), and --check data and the trace. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "fast_int.h"

/* ---- data and trace ---- */

void eng_data_read(const eng *g, const ar_xfer *x, double *dst) {
    const double *b = g->io.data + (size_t)ar_platform_ep_index(g->p, x->src) * g->s->count;
    for (int k = 0; k < x->nseg; k++) {
        memcpy(dst, b + x->off[k], x->len[k] * sizeof *dst);
        dst += x->len[k];
    }
}

void eng_data_write(const eng *g, const ar_xfer *x, const double *src) {
    double *b = g->io.data + (size_t)ar_platform_ep_index(g->p, x->dst) * g->s->count;
    for (int k = 0; k < x->nseg; k++) {
        if (x->reduce)
            for (uint64_t i = 0; i < x->len[k]; i++) b[x->off[k] + i] += src[i];
        else memcpy(b + x->off[k], src, x->len[k] * sizeof *src);
        src += x->len[k];
    }
}

void eng_trace_event(eng *g, const ar_xfer *x, int opi, int round, double t0, double dur) {
    if (!g->io.trace) return;
    fprintf(g->io.trace,
            "%s{\"name\":\"%d->%d\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":0,\"tid\":%d,"
            "\"args\":{\"dst\":%d,\"bytes\":%.0f,\"phase\":%d,\"op\":%d,\"round\":%d}}",
            g->io.trace_first ? "\n" : ",\n", x->src, x->dst, x->reduce ? "reduce" : "copy", t0 * 1e6, dur * 1e6,
            x->src, x->dst, ENG_WIRE(g, ar_xfer_elems(x)), g->ph.phase, opi, round);
    g->io.trace_first = 0;
}

ar_status eng_open_trace(eng *g, const char *path, ar_err *e) {
    g->io.trace = fopen(path, "w");
    if (!g->io.trace) return ar_fail(e, AR_EIO, "sim --trace: cannot write \"%s\"", path);
    fprintf(g->io.trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    g->io.trace_first = 1;
    for (int rk = 0; rk < g->p->nranks; rk++) {
        fprintf(g->io.trace,
                "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}",
                g->io.trace_first ? "\n" : ",\n", rk, rk);
        g->io.trace_first = 0;
    }
    return AR_OK;
}

/* ---- transfers simulated by SimGrid in the run itself ---- */

/* A free transfer record: the most recently released one, else a new one at
 * the end of the array. The free-index stack holds as many entries as there
 * are records, so releasing never allocates. -1 when out of memory. */
static int frec_take(eng *g) {
    eng_full *fl = &g->full;
    if (fl->nfree) return fl->freeidx[--fl->nfree];
    if (fl->nfr >= INT32_MAX || GROW(full.fr, fl->nfr + 1) < 0 || GROW(full.freeidx, fl->nfr + 1) < 0) return -1;
    fl->fr[fl->nfr].payload = NULL;
    return (int)fl->nfr++;
}

static void frec_release(eng *g, int id) { g->full.freeidx[g->full.nfree++] = id; }

void eng_full_free(eng_full *fl) {
    for (size_t i = 0; i < fl->nfr; i++) free(fl->fr[i].payload);
    free(fl->fr);
    free(fl->freeidx);
    free(fl->readyq);
    free(fl->active);
    free(fl->since);
    memset(fl, 0, sizeof *fl);
}

/* The network part of transfer id starts now (after its sender's side, when it pays one). */
static void full_issue(eng *g, int id) {
    frec *f = &g->full.fr[id];
    const ar_xfer *x = &f->x;
    uint64_t elems = ar_xfer_elems(x);
    double T = eng_now(g);
    int nf, nres;
    g->c.an_valid = 0; /* g->sc.res is reused */
    ar_status st = eng_flow_resources(g, x->src, x->dst, x->reduce, 0, &nres, &nf);
    if (st != AR_OK) {
        if (g->st == AR_OK) g->st = st, g->mode = M_DONE;
        return;
    }
    for (int q = 0; q < nf; q++) {
        int d = g->sc.res[q];
        if (g->full.active[d]++ == 0) g->full.since[d] = T;
        if (g->full.active[d] > g->r->link_max_flows[d]) g->r->link_max_flows[d] = g->full.active[d];
        g->r->link_bytes[d] += ENG_WIRE(g, elems);
    }
    g->r->transfers_simgrid++;
    ar_sg_comm(g->sg, x->src, x->dst, x->reduce, ENG_WIRE_U64(g, elems), TOK_FULL | (uint64_t)id);
}

static void side_push(eng *g, int sd, int id);

void eng_full_start_xfer(eng *g, const ar_xfer *x, int opi, int round) {
    int id = frec_take(g);
    if (id < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return;
    }
    frec *f = &g->full.fr[id];
    f->x = *x;
    f->opi = opi;
    f->round = round;
    f->t0 = eng_now(g);
    f->payload = NULL;
    f->sided = eng_sided(g, x->src, x->dst);
    f->seq = g->side.seq++;
    eng_cert_start(g, x, opi, f->t0);
    if (g->io.data) {
        f->payload = ar_reallocarray(NULL, ar_xfer_elems(x), sizeof *f->payload);
        if (!f->payload) {
            eng_fail(g, AR_ENOMEM, "sim --check: out of memory for payloads");
            return;
        }
        eng_data_read(g, x, f->payload);
    }
    g->full.inflight++;
    if (f->sided) side_push(g, 2 * x->src, id); /* its sender's side first (o) */
    else full_issue(g, id);
}

/* Starts op i's next non-empty round now; returns 1 if one was started. */
int eng_full_start_round(eng *g, int i) {
    opst *os = &g->ph.ops[i];
    while (os->round < os->nrounds) {
        if (GROW(sc.xbuf, ar_lower_max_xfers(os->op)) < 0) {
            eng_fail(g, AR_ENOMEM, "sim: out of memory");
            return 0;
        }
        size_t c = ar_lower_round(os->op, os->round, g->sc.xbuf);
        if (c == 0) {
            os->round++;
            continue;
        }
        os->pending = (int)c;
        for (size_t t = 0; t < c && g->st == AR_OK; t++) eng_full_start_xfer(g, &g->sc.xbuf[t], i, os->round);
        return 1;
    }
    return 0;
}

void eng_full_finish(eng *g, int id) {
    frec *f = &g->full.fr[id];
    double T = eng_now(g);
    eng_cert_end(g, &f->x, f->opi, T);
    if (f->payload) eng_data_write(g, &f->x, f->payload);
    free(f->payload);
    f->payload = NULL;
    eng_trace_event(g, &f->x, f->opi, f->round, f->t0, T - f->t0);
    g->r->transfers++;
    g->r->bytes += ENG_WIRE(g, ar_xfer_elems(&f->x));
    g->full.inflight--;
    opst *os = &g->ph.ops[f->opi];
    if (--os->pending == 0) {
        os->round++;
        if (!os->ready) {
            if (GROW(full.readyq, g->full.nready + 1) < 0) {
                eng_fail(g, AR_ENOMEM, "sim: out of memory");
                return;
            }
            os->ready = 1;
            g->full.readyq[g->full.nready++] = f->opi;
        }
    }
    frec_release(g, id);
}

static void full_reduce(eng *g, int id);

void eng_full_net_done(eng *g, int id) {
    frec *f = &g->full.fr[id];
    double T = eng_now(g);
    f->tnet = T;
    int nf, nres;
    g->c.an_valid = 0; /* g->sc.res is reused */
    ar_status st = eng_flow_resources(g, f->x.src, f->x.dst, f->x.reduce, 0, &nres, &nf);
    if (st != AR_OK) {
        if (g->st == AR_OK) g->st = st, g->mode = M_DONE;
        return;
    }
    for (int q = 0; q < nf; q++) {
        int d = g->sc.res[q];
        if (--g->full.active[d] == 0) g->r->link_busy_s[d] += T - g->full.since[d];
    }
    if (f->sided) { /* its receiver's side (o), then its reduction */
        side_push(g, 2 * f->x.dst + 1, id);
        return;
    }
    full_reduce(g, id);
}

/* After the network part (and the receiver's side): the reduction, if it costs, then the step. */
static void full_reduce(eng *g, int id) {
    frec *f = &g->full.fr[id];
    if (g->gamma > 0 && f->x.reduce && f->x.dst >= 0) { /* a switch's reduction is its virtual link */
        ar_sg_exec(g->sg, f->x.dst, g->gamma * (double)ar_xfer_elems(&f->x) * g->eb0,
                   TOK_FULL | TOK_EXEC | (uint64_t)id);
        return;
    }
    eng_full_after(g, id);
}

void eng_full_after(eng *g, int id) {
    double step = eng_xfer_step(g, g->full.fr[id].opi, g->full.fr[id].round, &g->full.fr[id].x);
    if (step > 0) ar_sg_timer(g->sg, step, TOK_FULL | TOK_DELAY | (uint64_t)id);
    else eng_full_finish(g, id);
}

/* ---- per-message costs in SimGrid mode (eng_side) ---- */

int eng_sided(const eng *g, int src, int dst) {
    return g->msg && src >= 0 && dst >= 0 && ar_platform_msg(g->p, src, dst);
}

ar_status eng_side_init(eng *g) {
    eng_side *s = &g->side;
    size_t ns = 2 * (size_t)g->p->nranks + 1;
    s->o = g->p->msg_o_s;
    s->hold = g->p->msg_g_s > s->o ? g->p->msg_g_s : s->o;
    s->orecv = g->p->msg_piped ? 0 : s->o; /* pipelined receives: held, not waited for (platform.h) */
    s->q = ar_calloc(ns, sizeof *s->q);
    s->n = ar_calloc(ns, sizeof *s->n);
    s->head = ar_calloc(ns, sizeof *s->head);
    s->cap = ar_calloc(ns, sizeof *s->cap);
    s->busy = ar_calloc(ns, 1);
    s->kicked = ar_calloc(ns, 1);
    s->gen = ar_calloc(ns, sizeof *s->gen);
    s->sfree = ar_calloc(ns, sizeof *s->sfree);
    s->nsides = ns - 1;
    if (!s->q || !s->n || !s->head || !s->cap || !s->busy || !s->kicked || !s->gen || !s->sfree) return OOM();
    return AR_OK;
}

void eng_side_free(eng_side *s) {
    for (size_t k = 0; s->q && k < s->nsides; k++) free(s->q[k]);
    void *arrs[] = {s->q, s->n, s->head, s->cap, s->busy, s->kicked, s->gen, s->kick, s->sfree, s->arr};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
    memset(s, 0, sizeof *s);
}

/* 1 if queued transfer a goes before b on a side: (queue time, op, start order). */
static int side_before(const frec *a, const frec *b) {
    if (a->qt != b->qt) return a->qt < b->qt;
    if (a->opi != b->opi) return a->opi < b->opi;
    return a->seq < b->seq;
}

/* Side sd takes its first queued message (o on it), or goes idle. */
static void side_start(eng *g, int sd) {
    eng_side *s = &g->side;
    if (s->head[sd] == s->n[sd]) {
        s->busy[sd] = 0;
        s->head[sd] = s->n[sd] = 0;
        return;
    }
    s->busy[sd] = 1;
    int *q = s->q[sd];
    for (size_t i = s->head[sd] + 1; i < s->n[sd]; i++) /* (a short queue: a round's messages) */
        if (side_before(&g->full.fr[q[i]], &g->full.fr[q[s->head[sd]]])) {
            int t = q[i];
            q[i] = q[s->head[sd]];
            q[s->head[sd]] = t;
        }
    ar_sg_timer(g->sg, sd & 1 ? s->orecv : s->o, TOK_SIDES | (sd & 1 ? TOK_RECV : TOK_SEND) | (uint64_t)q[s->head[sd]]);
}

static void side_push(eng *g, int sd, int id) {
    eng_side *s = &g->side;
    if (s->n[sd] == s->cap[sd] && ar_grow(&s->q[sd], &s->cap[sd], s->n[sd] + 1, sizeof **s->q) < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return;
    }
    s->q[sd][s->n[sd]++] = id;
    g->full.fr[id].qt = ar_sg_now();
    if (s->busy[sd] || s->kicked[sd]) return;
    if (GROW(side.kick, s->nkick + 1) < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return;
    }
    s->kicked[sd] = 1;
    s->kick[s->nkick++] = sd;
}

void eng_side_kicks(eng *g) {
    eng_side *s = &g->side;
    for (size_t i = 0; i < s->nkick && g->st == AR_OK; i++) {
        int sd = s->kick[i];
        s->kicked[sd] = 0;
        if (!s->busy[sd]) side_start(g, sd);
    }
    s->nkick = 0;
}

/* An idle instant: every side is free (a gap still running is dropped: its timer is stale). */
void eng_side_reset(eng *g) {
    eng_side *s = &g->side;
    for (size_t sd = 0; s->busy && sd < s->nsides; sd++)
        if (s->busy[sd]) {
            s->busy[sd] = 0;
            s->head[sd] = s->n[sd] = 0;
            s->gen[sd] = (s->gen[sd] + 1) & 0x3ffffffu;
        }
}

static void side_done(eng *g, int sd) {
    if (g->side.head[sd] < g->side.n[sd]) g->side.head[sd]++;
    side_start(g, sd);
}

void eng_side_event(eng *g, uint64_t tok) {
    eng_side *s = &g->side;
    uint64_t kind = tok & (UINT64_C(3) << 58), i = TOK_INDEX(tok);
    if (kind == TOK_SIDE_FREE) {
        int sd = (int)(i & 0xffffffffu);
        if ((uint32_t)(i >> 32) == s->gen[sd] && s->busy[sd]) side_done(g, sd);
        return;
    }
    int id = (int)i;
    const frec *f = &g->full.fr[id];
    int sd = kind == TOK_RECV ? 2 * f->x.dst + 1 : 2 * f->x.src;
    double c = kind == TOK_RECV ? s->orecv : s->o; /* (hold >= either) */
    if (s->hold > c)
        ar_sg_timer(g->sg, s->hold - c, TOK_SIDES | TOK_SIDE_FREE | (uint64_t)s->gen[sd] << 32 | (uint64_t)sd);
    else side_done(g, sd);
    if (kind == TOK_RECV) full_reduce(g, id);
    else full_issue(g, id);
}

/* ---- probes ---- */

typedef struct eng_arrival { /* a probe transfer and when its network part ended */
    double net;
    size_t i;
} eng_arrival;

static int arrival_cmp(const void *a, const void *b) {
    const eng_arrival *x = a, *y = b;
    if (x->net != y->net) return x->net < y->net ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void probe_comm(eng *g, size_t i) {
    ar_sg_comm(g->sg, g->pr.src[i], g->pr.dst[i], g->pr.red[i], g->pr.bytes[i], TOK_PROBE | i);
}

ar_status eng_probe_start(eng *g) {
    g->pr.n = 0;
    if (GROW(pr.first, g->pr.nmiss + 1) < 0) return OOM();
    for (size_t q = 0; q < g->pr.nmiss; q++) {
        int c = g->pr.miss[q];
        g->pr.first[q] = g->pr.n;
        size_t need = g->pr.n + (size_t)(g->c.cstart[c + 1] - g->c.cstart[c]);
        if (GROW(pr.src, need) < 0 || GROW(pr.dst, need) < 0 || GROW(pr.red, need) < 0 || GROW(pr.bytes, need) < 0 ||
            GROW(pr.net, need) < 0 || GROW(pr.tot, need) < 0 || GROW(pr.inj, need) < 0 || GROW(pr.land, need) < 0)
            return OOM();
        for (int k = g->c.cstart[c]; k < g->c.cstart[c + 1]; k++) {
            const ar_xfer *x = &g->b.x[g->c.corder[k]];
            g->pr.src[g->pr.n] = x->src;
            g->pr.dst[g->pr.n] = x->dst;
            g->pr.red[g->pr.n] = x->reduce;
            g->pr.bytes[g->pr.n] = ENG_WIRE_U64(g, ar_xfer_elems(x));
            g->pr.n++;
        }
    }
    g->pr.first[g->pr.nmiss] = g->pr.n;
    g->pr.t0 = ar_sg_now();
    g->pr.pending = g->pr.n;
    g->pr.stage = 0;
    g->r->probes += g->pr.nmiss;
    g->r->probe_transfers += g->pr.n;
    g->mode = M_PROBE;
    if (g->msg) { /* each sender's side takes its messages in batch order, from the batch's start */
        eng_side *s = &g->side;
        for (size_t i = 0; i < g->pr.n; i++)
            if (eng_sided(g, g->pr.src[i], g->pr.dst[i])) s->sfree[g->pr.src[i]] = 0;
        for (size_t i = 0; i < g->pr.n; i++) {
            g->pr.inj[i] = 0;
            if (!eng_sided(g, g->pr.src[i], g->pr.dst[i])) continue;
            g->pr.inj[i] = s->sfree[g->pr.src[i]] + s->o;
            s->sfree[g->pr.src[i]] += s->hold;
        }
    }
    for (size_t i = 0; i < g->pr.n; i++) {
        if (g->msg && g->pr.inj[i] > 0) ar_sg_timer(g->sg, g->pr.inj[i], TOK_PROBE | TOK_DELAY | i);
        else probe_comm(g, i);
    }
    return AR_OK;
}

static void probe_exec(eng *g, size_t i) {
    ar_sg_exec(g->sg, g->pr.dst[i], g->gamma * (double)g->pr.bytes[i] * (g->eb0 / g->eb), TOK_PROBE | TOK_EXEC | i);
}

/* A probe's completion (hook_done): a network part, a reduction, or a side's cost paid. */
void eng_probe_event(eng *g, uint64_t tok) {
    size_t i = (size_t)TOK_INDEX(tok);
    double d = ar_sg_now() - g->pr.t0;
    if ((tok & TOK_DELAY) && (tok & TOK_EXEC)) { /* landed (stage 1): its reduction */
        probe_exec(g, i);
        return;
    }
    if (tok & TOK_DELAY) { /* its sender's side is done: the network part */
        probe_comm(g, i);
        return;
    }
    if (!(tok & TOK_EXEC)) {
        g->pr.net[i] = d;
        if (!g->msg && g->gamma > 0 && g->pr.red[i] && g->pr.dst[i] >= 0) {
            probe_exec(g, i);
            return;
        }
    } else if (g->msg) {
        d = ar_sg_now() - g->pr.t1; /* stage 1 runs the reductions from its own origin (see eng_probe_step) */
    }
    g->pr.tot[i] = d;
    g->pr.pending--;
}

/* At the end of an instant of a probe: 1 once every duration is known. With per-message costs the
 * network parts run first (stage 0); then each receiver's side takes its messages in arrival order
 * (arithmetic: nothing else uses a side) and, with a reduction cost, the reductions run from their
 * landing times (stage 1, in SimGrid: reductions into one GPU share it), translated to start at
 * the stage's origin: they share no resource with the network parts, so the translation is exact. */
int eng_probe_step(eng *g) {
    if (g->pr.pending > 0) return 0;
    if (!g->msg || g->pr.stage) return 1;
    eng_side *s = &g->side;
    size_t n = g->pr.n;
    if (n + 1 > s->arr_cap && ar_grow(&s->arr, &s->arr_cap, n + 1, sizeof *s->arr) < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        s->arr[i] = (eng_arrival){g->pr.net[i], i};
        if (eng_sided(g, g->pr.src[i], g->pr.dst[i])) s->sfree[g->pr.dst[i]] = 0;
    }
    qsort(s->arr, n, sizeof *s->arr, arrival_cmp);
    for (size_t k = 0; k < n; k++) {
        size_t i = s->arr[k].i;
        double land = g->pr.net[i];
        if (eng_sided(g, g->pr.src[i], g->pr.dst[i])) {
            double r0 = land > s->sfree[g->pr.dst[i]] ? land : s->sfree[g->pr.dst[i]];
            land = r0 + s->orecv;
            s->sfree[g->pr.dst[i]] = r0 + s->hold;
        }
        g->pr.land[i] = g->pr.tot[i] = land;
    }
    g->pr.stage = 1;
    g->pr.t1 = ar_sg_now();
    for (size_t i = 0; i < n && g->gamma > 0; i++) {
        if (!g->pr.red[i] || g->pr.dst[i] < 0) continue;
        g->pr.pending++;
        if (g->pr.land[i] > 0) ar_sg_timer(g->sg, g->pr.land[i], TOK_PROBE | TOK_DELAY | TOK_EXEC | i);
        else probe_exec(g, i);
    }
    return g->pr.pending == 0;
}

/* Remembers the probed components and points the batch at their durations. */
ar_status eng_probe_finish(eng *g) {
    size_t tot = 0;
    for (size_t q = 0; q < g->pr.nmiss; q++)
        tot += g->c.klen[g->pr.miss[q]] * sizeof(uint64_t) + 2 * (g->pr.first[q + 1] - g->pr.first[q]) * sizeof(double);
    if (eng_memo_bytes(&g->memo) + tot > MEMO_LIMIT_BYTES) eng_memo_clear(&g->memo);
    for (size_t q = 0; q < g->pr.nmiss; q++) {
        int c = g->pr.miss[q];
        size_t m = g->pr.first[q + 1] - g->pr.first[q];
        if (GROW(sc.stage, 2 * m) < 0) return OOM();
        for (size_t j = 0; j < m; j++) {
            g->sc.stage[2 * j] = g->pr.net[g->pr.first[q] + j];
            g->sc.stage[2 * j + 1] = g->pr.tot[g->pr.first[q] + j];
        }
        if (eng_memo_insert(&g->memo, g->c.hash[c], g->c.keys + g->c.koff[c], g->c.klen[c], g->sc.stage, 2 * m) < 0)
            return OOM();
    }
    /* every component of the batch is known now (the memo may have moved) */
    for (int c = 0; c < g->c.ncomp; c++) {
        const memo_ent *en = eng_memo_find(&g->memo, g->c.hash[c], g->c.keys + g->c.koff[c], g->c.klen[c]);
        if (!en) return ar_fail(g->e, AR_EINTERNAL, "sim: component %d unknown after its probe", c);
        g->c.val[c] = g->memo.vals + en->val_off;
    }
    g->off -= ar_sg_now() - g->pr.t0; /* the probe takes no arlab time */
    return AR_OK;
}
