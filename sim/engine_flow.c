/* The fast engine's transfers simulated by SimGrid (SimGrid mode), its probes
 * (components simulated alone), and --check data and the trace. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "engine_int.h"

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
    eng_cert_start(g, x, opi, f->t0);
    uint64_t elems = ar_xfer_elems(x);
    if (g->io.data) {
        f->payload = ar_reallocarray(NULL, elems, sizeof *f->payload);
        if (!f->payload) {
            eng_fail(g, AR_ENOMEM, "sim --check: out of memory for payloads");
            return;
        }
        eng_data_read(g, x, f->payload);
    }
    int nf, nres;
    g->c.an_valid = 0; /* g->sc.res is reused */
    ar_status st = eng_flow_resources(g, x->src, x->dst, x->reduce, 0, &nres, &nf);
    if (st != AR_OK) {
        if (g->st == AR_OK) g->st = st, g->mode = M_DONE;
        return;
    }
    for (int q = 0; q < nf; q++) {
        int d = g->sc.res[q];
        if (g->full.active[d]++ == 0) g->full.since[d] = f->t0;
        if (g->full.active[d] > g->r->link_max_flows[d]) g->r->link_max_flows[d] = g->full.active[d];
        g->r->link_bytes[d] += ENG_WIRE(g, elems);
    }
    g->full.inflight++;
    g->r->transfers_simgrid++;
    ar_sg_comm(g->sg, x->src, x->dst, x->reduce, ENG_WIRE_U64(g, elems), TOK_FULL | (uint64_t)id);
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
    if (g->gamma > 0 && f->x.reduce && f->x.dst >= 0) { /* a switch's reduction is its virtual link */
        ar_sg_exec(g->sg, f->x.dst, g->gamma * (double)ar_xfer_elems(&f->x) * g->eb0,
                   TOK_FULL | TOK_EXEC | (uint64_t)id);
        return;
    }
    eng_full_after(g, id);
}

void eng_full_after(eng *g, int id) {
    if (g->ph.step > 0) ar_sg_timer(g->sg, g->ph.step, TOK_FULL | TOK_DELAY | (uint64_t)id);
    else eng_full_finish(g, id);
}

/* ---- probes ---- */

ar_status eng_probe_start(eng *g) {
    g->pr.n = 0;
    if (GROW(pr.first, g->pr.nmiss + 1) < 0) return OOM();
    for (size_t q = 0; q < g->pr.nmiss; q++) {
        int c = g->pr.miss[q];
        g->pr.first[q] = g->pr.n;
        size_t need = g->pr.n + (size_t)(g->c.cstart[c + 1] - g->c.cstart[c]);
        if (GROW(pr.src, need) < 0 || GROW(pr.dst, need) < 0 || GROW(pr.red, need) < 0 || GROW(pr.bytes, need) < 0 ||
            GROW(pr.net, need) < 0 || GROW(pr.tot, need) < 0)
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
    g->r->probes += g->pr.nmiss;
    g->r->probe_transfers += g->pr.n;
    g->mode = M_PROBE;
    for (size_t i = 0; i < g->pr.n; i++)
        ar_sg_comm(g->sg, g->pr.src[i], g->pr.dst[i], g->pr.red[i], g->pr.bytes[i], TOK_PROBE | i);
    return AR_OK;
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
