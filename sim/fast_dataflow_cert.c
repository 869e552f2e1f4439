/* The fast engine under --sync dataflow: the lockstep run with a certificate.
 *
 * Under dataflow (sim/fast_dataflow.c) a transfer starts at max(ready(src), ready(dst)),
 * where ready(member) is when the member's own transfers of the op's earlier
 * rounds ended, or, before its first round of the op, when the rank entered the
 * phase (its own transfers of the earlier phases ended, plus the phase's
 * protocol base latency). Lockstep starts every transfer at its round's start,
 * never earlier than that. If the lockstep run starts EVERY transfer exactly at
 * max(ready(src), ready(dst)), the two runs start the same transfers at the same
 * instants, so under SimGrid's models (deterministic, flows interact only
 * through shared resources) they are the same run, and the lockstep result,
 * shortcuts included, is the dataflow result. The engine checks this for every
 * transfer as it goes (shortcut batches: all start at the batch start, checked
 * before any of their ends is counted; SimGrid mode: at each start and end) and
 * stops at the first transfer that dataflow would have started earlier: the
 * result then says so (dataflow_differs) and sim.c runs the dataflow engine.
 *
 * A member's readiness is kept per (rank, op) of the current phase in a CSR over
 * ranks (a rank is usually in one op per phase), its phase entry per rank.
 *
 * Diverged (uneven blocks, or routes of different latency, let ranks
 * drift apart). When a shortcut batch has a transfer that dataflow starts
 * earlier, the engine does not stop at once: it derives the dataflow run from
 * the lockstep one while every transfer provably has the same duration in
 * both. It starts each transfer at max(ready(src), ready(dst)) and keeps
 * going while
 *   - the transfers of each component of the lockstep batch (the transfers
 *     that share a link there) start together under dataflow too, and
 *   - no link of a transfer is still busy, under dataflow, with a transfer of
 *     an earlier batch when it starts (the network part's end, per link).
 * Then at every instant of the dataflow run the flows that share a link are
 * one lockstep component that started together, alone on its links, so under
 * SimGrid's models (flows interact only through shared links; time
 * translation invariance) each transfer takes what it took in the lockstep
 * batch: the run derived is the dataflow run, readiness, phase ends and link
 * statistics included (on a link one component at a time: the same busy time,
 * bytes and most flows at once). A batch handed to SimGrid, crosstraffic or a
 * trace (whose times are the lockstep run's) stop the derivation, and so does
 * a failed condition: sim.c then runs the dataflow engine. Identical rounds
 * are jumped over once diverged when one of them only shifted the previous
 * one's ends (eng_cert_can_jump): a ring on a rail fabric settles into that
 * after a few rounds.
 *
 * Per-message costs (LogGP o, g): the derivation also carries each rank's send and receive sides
 * and the data pending on them, from the first batch ("per-message costs" below).
 *
 * Stopping early. A shortcut batch whose starts already fail the certificate fails it before its
 * durations are learnt (eng_cert_precheck, called by drive() right after the batch's analysis):
 * a probe is a SimGrid run of the batch, and ps on a 512-rank tree spent 2.7 of its 4.6 s of
 * thrown-away lockstep run probing the second phase's batch whose starts failed.
 */
#include <math.h>
#include <stdlib.h>

#include "fast_int.h"

static void msg_phase(struct cert_msg *m, int nops);

/* a transfer that starts later than this after both its ends were ready could have started earlier */
static int later(double t, double ready) { return t > ready + 1e-12 * fabs(t) + 1e-18; }

ar_status eng_cert_phase(eng *g, double base) {
    if (!g->cert.on) return AR_OK;
    const ar_phase *ph = &g->s->phases[g->ph.phase];
    int P = g->s->nranks;
    eng_cert *c = &g->cert;
    for (int r = 0; r <= P; r++) c->roff[r] = 0;
    size_t tot = 0;
    for (int i = 0; i < ph->nops; i++) {
        for (int m = 0; m < ph->ops[i].n; m++) c->roff[ph->ops[i].members[m] + 1]++;
        tot += (size_t)ph->ops[i].n;
    }
    for (int r = 0; r < P; r++) c->roff[r + 1] += c->roff[r];
    if (ar_grow(&c->rop, &c->caprop, tot + 1, sizeof *c->rop) < 0 ||
        ar_grow(&c->ready, &c->capready, tot + 1, sizeof *c->ready) < 0)
        return OOM();
    for (int r = 0; r < P; r++) c->fill[r] = c->roff[r];
    for (int i = 0; i < ph->nops; i++)
        for (int m = 0; m < ph->ops[i].n; m++) {
            int k = c->fill[ph->ops[i].members[m]]++;
            c->rop[k] = i;
            c->ready[k] = -1; /* not in the op's rounds yet: the phase entry counts */
        }
    for (int r = 0; r < P; r++)
        if (c->roff[r + 1] > c->roff[r]) c->entry[r] = c->done[r] + base;
    if (c->m) msg_phase(c->m, ph->nops);
    eng_cert_group(g);
    return AR_OK;
}

/* Position of (rank, op) in the CSR, -1 if absent (a bug). */
static int slot_of(const eng_cert *c, int rank, int opi) {
    for (int k = c->roff[rank]; k < c->roff[rank + 1]; k++)
        if (c->rop[k] == opi) return k;
    return -1;
}

static double ready_of(const eng_cert *c, int k, int rank) { return c->ready[k] >= 0 ? c->ready[k] : c->entry[rank]; }

static void cert_fails(eng *g) {
    g->cert.differs = 1;
    g->stopped = 1; /* sim.c runs the dataflow engine instead */
}

/* When both ends of transfer x of op opi are ready; its (rank, op) pairs in *ks, *kd. -1 (g->st
 * set) for a transfer outside its op, a bug (switch ends never come here: sim.c runs switch
 * schedules lockstep). */
static double ready_for(eng *g, const ar_xfer *x, int opi, int *ks, int *kd) {
    const eng_cert *c = &g->cert;
    *ks = x->src >= 0 ? slot_of(c, x->src, opi) : -1;
    *kd = x->dst >= 0 ? slot_of(c, x->dst, opi) : -1;
    if (*ks < 0 || *kd < 0) {
        eng_fail(g, AR_EINTERNAL, "sim: certificate: a transfer outside its op");
        return -1;
    }
    double rs = ready_of(c, *ks, x->src), rd = ready_of(c, *kd, x->dst);
    return rs > rd ? rs : rd;
}

/* A transfer in SimGrid's hands (fast_flow.c): its start must be the dataflow start. */
void eng_cert_start(eng *g, const ar_xfer *x, int opi, double t) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    c->solo_bad = 1;
    if (c->diverged) return cert_fails(g);
    int ks, kd;
    double ready = ready_for(g, x, opi, &ks, &kd);
    if (g->st == AR_OK && later(t, ready)) cert_fails(g);
}

/* Transfer x, its ends at pairs ks and kd, ended at t. */
static void end_at(eng_cert *c, const ar_xfer *x, int ks, int kd, double t) {
    if (t > c->ready[ks]) c->ready[ks] = t;
    if (t > c->ready[kd]) c->ready[kd] = t;
    if (t > c->done[x->src]) c->done[x->src] = t;
    if (t > c->done[x->dst]) c->done[x->dst] = t;
}

void eng_cert_end(eng *g, const ar_xfer *x, int opi, double t) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    int ks = x->src >= 0 ? slot_of(c, x->src, opi) : -1, kd = x->dst >= 0 ? slot_of(c, x->dst, opi) : -1;
    if (ks >= 0 && kd >= 0) end_at(c, x, ks, kd, t);
}

/* Batch transfer t holds its links until `end` (its network part's end, under dataflow). */
static void hold_links(eng *g, size_t t, double end) {
    for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++)
        if (end > g->cert.lend[g->sc.res[q]]) g->cert.lend[g->sc.res[q]] = end;
}

/* A shortcut batch: all its transfers start at T0 in the lockstep run, transfer t's network part
 * takes dnet[t], the whole transfer dtot[t]; the routes and components are the batch's analysis
 * (g->b.roff, g->sc.res, g->c.fpar: drive() analyses a repeated batch again after other routes
 * were computed). Every start is checked before any end counts. */
/* The start checks of the batch in g->b (its routes and components analysed) starting at T0: each
 * transfer's dataflow start in c->dstart, its pairs in c->kslot, *earlier if one starts earlier
 * under dataflow. 1 if the certificate fails on them (the reasons in the file comment), -1 on a
 * bug or out of memory (g->st set), else 0. */
static int batch_starts(eng *g, double T0, int *earlier) {
    eng_cert *c = &g->cert;
    size_t n = g->b.n;
    *earlier = 0;
    if (!g->c.an_valid) {
        eng_fail(g, AR_EINTERNAL, "sim: certificate: a batch without its routes");
        return -1;
    }
    if (GROW(cert.dstart, n + 1) < 0 || GROW(cert.lo, n + 1) < 0 || GROW(cert.hi, n + 1) < 0 ||
        GROW(cert.prev_end, n + 1) < 0 || GROW(cert.kslot, 2 * n + 2) < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return -1;
    }
    for (size_t t = 0; t < n; t++) {
        double ready = ready_for(g, &g->b.x[t], g->b.slot_op[g->b.slot[t]], &c->kslot[2 * t], &c->kslot[2 * t + 1]);
        if (g->st != AR_OK) return -1;
        c->dstart[t] = T0;
        if (later(T0, ready)) c->dstart[t] = ready, *earlier = 1;
    }
    if (*earlier && !c->diverged && (c->solo_bad || g->crosstraffic || g->io.trace)) return 1;
    if (!*earlier && !c->diverged) return 0;
    const int *root = g->c.fpar;
    for (size_t t = 0; t < n; t++) c->lo[t] = c->hi[t] = c->dstart[t];
    for (size_t t = 0; t < n; t++) {
        int k = root[t];
        if (c->dstart[t] < c->lo[k]) c->lo[k] = c->dstart[t];
        if (c->dstart[t] > c->hi[k]) c->hi[k] = c->dstart[t];
    }
    for (size_t t = 0; t < n; t++) {
        int k = root[t];
        if (later(c->hi[k], c->lo[k])) return 1; /* a component starts apart */
        for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++)
            if (later(c->lend[g->sc.res[q]], c->dstart[t])) return 1; /* its link is busy */
    }
    return 0;
}

/* The batch just analysed, before its durations are learnt (a probe is a SimGrid run of the
 * batch): if its starts already fail the certificate, stop now rather than after the probe. */
void eng_cert_precheck(eng *g) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs || !g->c.an_valid || c->m) return;
    int earlier;
    if (batch_starts(g, eng_now(g), &earlier) > 0) cert_fails(g);
}

/* ---- per-message costs (LogGP o, g) ----
 *
 * With per-message costs every rank has a send side and a receive side, serial resources that
 * take one message at a time for o and stay held for max(o, g) (fast_dataflow.c, the per-rank
 * engine). Under dataflow a transfer that pays them is pushed on its sender's send side when both
 * its ends are at its round and no data it reads (or, a copy, overwrites) is still pending on its
 * way through a receive side; its network part starts when the side has paid o for it; when that
 * part ends its members move on and the data queues on the receiver's receive side, and lands o
 * later (the transfer is pending until then). A side takes its queued messages in (queue time,
 * round, op, index in the round) order. Lockstep rounds cannot express this (a lockstep round ends
 * when its last message has landed), so the lockstep run is never the dataflow run here: the
 * derivation runs from the first batch and computes the sides itself, taking from the lockstep
 * batch only the network parts. In the lockstep batch the k-th message of a sender leaves its side
 * at o + k max(o, g) (inj) and its network part takes dnet - inj; under dataflow it takes the same
 * while every component of the batch starts its network parts at the lockstep offsets translated
 * by one amount, and no link of a transfer is busy with an earlier batch's network part (the
 * conditions of "Diverged" above, on network parts). The derivation also stops where the order of
 * the per-rank engine's events within one instant would decide (two messages queued on a side at
 * the instant it frees), where a side would take a message queued before one it already took
 * (batches are derived in lockstep order, a side's messages must come in its own order), and where
 * a transfer would wait for data of its own batch. Identical rounds are not jumped over (the
 * pending data of the next round is not known without lowering it). Link statistics are the
 * network parts' own: per directed link the union of their intervals and the most at once. */

typedef struct cm_pend { /* a transfer into a rank: its network part ended at ne, its data lands at land */
    ar_xfer x;
    double ne, land;
    uint64_t batch;
} cm_pend;

typedef struct cm_msg { /* a message queued on a side: the side's order */
    int side, t;
    double qt;
    int round, op, ti;
} cm_msg;

typedef struct cm_iv { /* a network part on a directed link */
    int d;
    double s, e;
} cm_iv;

struct cert_msg {
    int P;
    double o, hold;
    double *sfree;  /* per side (2 rank: send, 2 rank + 1: receive): when it is free */
    double *before; /* the side's free time before its last message */
    cm_msg *last;   /* the side's last message (side < 0: none yet) */
    cm_pend **pl;   /* per rank: transfers into it that may still be pending */
    size_t *pn, *pcap;
    double *lbusy; /* per directed link: busy time and most network parts at once */
    int *lflows;
    double pland; /* the current phase's last landing */
    int opbase, nextbase;
    uint64_t batch;
    int *cnt; /* per rank: the sender's messages so far in the batch */
    double *inj, *q, *ns, *ne, *land, *dlo, *dhi;
    size_t capd;
    cm_msg *msg;
    size_t capmsg;
    cm_iv *iv;
    size_t capiv;
    double *ends;
    size_t capends;
};

/* A new phase: its ops' numbers in the sides' order, its landings. */
static void msg_phase(struct cert_msg *m, int nops) {
    m->opbase = m->nextbase;
    m->nextbase += nops;
    m->pland = 0;
}

static void msg_free(struct cert_msg *m) {
    if (!m) return;
    free(m->sfree);
    free(m->before);
    free(m->last);
    for (int k = 0; m->pl && k < m->P; k++) free(m->pl[k]);
    free(m->pl);
    free(m->lbusy);
    free(m->lflows);
    free(m->cnt);
    free(m->inj);
    free(m->q);
    free(m->ns);
    free(m->ne);
    free(m->land);
    free(m->dlo);
    free(m->dhi);
    free(m->msg);
    free(m->iv);
    free(m->ends);
    free(m->pn);
    free(m->pcap);
    free(m);
}

static ar_status msg_init(eng *g) {
    int P = g->p->nranks;
    struct cert_msg *m = ar_calloc(1, sizeof *m);
    if (!m) return OOM();
    g->cert.m = m;
    m->P = P;
    m->o = g->p->msg_o_s;
    m->hold = g->p->msg_g_s > m->o ? g->p->msg_g_s : m->o;
    m->sfree = ar_calloc(2 * (size_t)P + 1, sizeof *m->sfree);
    m->before = ar_calloc(2 * (size_t)P + 1, sizeof *m->before);
    m->last = ar_calloc(2 * (size_t)P + 1, sizeof *m->last);
    m->pl = ar_calloc((size_t)P + 1, sizeof *m->pl);
    m->pn = ar_calloc((size_t)P + 1, sizeof *m->pn);
    m->pcap = ar_calloc((size_t)P + 1, sizeof *m->pcap);
    m->lbusy = ar_calloc((size_t)g->ndl + 1, sizeof *m->lbusy);
    m->lflows = ar_calloc((size_t)g->ndl + 1, sizeof *m->lflows);
    m->cnt = ar_calloc((size_t)P + 1, sizeof *m->cnt);
    if (!m->sfree || !m->before || !m->last || !m->pl || !m->pn || !m->pcap || !m->lbusy || !m->lflows || !m->cnt)
        return OOM();
    for (int k = 0; k < 2 * P; k++) /* never used: no freeing instant (the first messages go in order) */
        m->last[k].side = -1, m->sfree[k] = m->before[k] = -INFINITY;
    g->cert.diverged = 1; /* the dataflow run is derived from the start (see above) */
    return AR_OK;
}

/* a before b on a side (queue times within rounding are one instant) */
static int msg_cmp(const void *pa, const void *pb) {
    const cm_msg *a = pa, *b = pb;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    if (later(a->qt, b->qt)) return 1;
    if (later(b->qt, a->qt)) return -1;
    if (a->round != b->round) return a->round < b->round ? -1 : 1;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    return a->ti < b->ti ? -1 : a->ti > b->ti;
}

static int iv_cmp(const void *pa, const void *pb) {
    const cm_iv *a = pa, *b = pb;
    if (a->d != b->d) return a->d < b->d ? -1 : 1;
    return a->s < b->s ? -1 : a->s > b->s;
}

static int dbl_cmp(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static int same_instant(double a, double b) { return !later(a, b) && !later(b, a); }

/* The messages in m->msg[0 .. k) (one side's run each, sorted) through their sides from their queue
 * times: *at[t] the side's start for message t. 1 if the derivation cannot stand (see above). */
static int msg_sides(struct cert_msg *m, size_t k, double *at) {
    for (size_t i = 0; i < k; i++) {
        cm_msg *x = &m->msg[i];
        int s = x->side;
        cm_msg *p = &m->last[s];
        if (p->side >= 0) {
            cm_msg a = *x, b = *p;
            a.side = b.side = 0;
            if (msg_cmp(&a, &b) <= 0) return 1; /* queued before a message the side already took */
            if (same_instant(x->qt, p->qt) && same_instant(m->before[s], x->qt)) return 1; /* a tie at a freeing */
        }
        double a0 = x->qt > m->sfree[s] ? x->qt : m->sfree[s];
        m->before[s] = m->sfree[s];
        m->sfree[s] = a0 + m->hold;
        *p = *x;
        at[x->t] = a0;
    }
    return 0;
}

/* Drops rank k's pending entries that can block nothing any more: landed before the earliest
 * instant any of its (rank, op) pairs can start a transfer. */
static void msg_prune(eng *g, int k) {
    struct cert_msg *m = g->cert.m;
    const eng_cert *c = &g->cert;
    if (m->pn[k] < 8 || c->roff[k + 1] == c->roff[k]) return;
    double lo = INFINITY;
    for (int s = c->roff[k]; s < c->roff[k + 1]; s++) {
        double r = ready_of(c, s, k);
        if (r < lo) lo = r;
    }
    size_t w = 0;
    for (size_t i = 0; i < m->pn[k]; i++)
        if (m->pl[k][i].land > lo) m->pl[k][w++] = m->pl[k][i];
    m->pn[k] = w;
}

/* When transfer x, ready at s, is no longer blocked by data pending into rank k from an earlier
 * batch (the per-rank engine retries it at every landing into k). */
static double msg_unblocked(const struct cert_msg *m, int k, const ar_xfer *x, double s) {
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < m->pn[k]; i++) {
            const cm_pend *e = &m->pl[k][i];
            if (e->batch != m->batch && !later(e->ne, s) && e->land > s && ar_xfer_overlap(x, &e->x))
                s = e->land, again = 1;
        }
    }
    return s;
}

/* 1 if transfer x, pushed at s, would wait for data of its own batch pending into rank k. */
static int msg_waits_own(const struct cert_msg *m, int k, const ar_xfer *x, double s) {
    for (size_t i = 0; i < m->pn[k]; i++) {
        const cm_pend *e = &m->pl[k][i];
        if (e->batch == m->batch && !later(e->ne, s) && later(e->land, s) && ar_xfer_overlap(x, &e->x)) return 1;
    }
    return 0;
}

static int msg_grow(void *pp, size_t *cap, size_t need, size_t elem) { return ar_grow(pp, cap, need, elem); }

/* Per directed link, the network parts of the batch: busy time (their union) and most at once (a
 * part starting at another's end counts with it, as the per-rank engine counts them). */
static int msg_links(eng *g) {
    struct cert_msg *m = g->cert.m;
    size_t n = g->b.n, ni = 0;
    for (size_t t = 0; t < n; t++) ni += (size_t)g->b.nfwd[t];
    if (msg_grow(&m->iv, &m->capiv, ni + 1, sizeof *m->iv) < 0 ||
        msg_grow(&m->ends, &m->capends, ni + 1, sizeof *m->ends) < 0)
        return -1;
    ni = 0;
    for (size_t t = 0; t < n; t++)
        for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++)
            m->iv[ni++] = (cm_iv){g->sc.res[q], m->ns[t], m->ne[t]};
    qsort(m->iv, ni, sizeof *m->iv, iv_cmp);
    for (size_t i = 0; i < ni;) {
        size_t j = i;
        while (j < ni && m->iv[j].d == m->iv[i].d) j++;
        int d = m->iv[i].d, most = 1;
        double busy = 0, s0 = m->iv[i].s, e0 = m->iv[i].e;
        for (size_t k = i + 1; k < j; k++) { /* union of the intervals, sorted by start */
            if (m->iv[k].s > e0) busy += e0 - s0, s0 = m->iv[k].s, e0 = m->iv[k].e;
            else if (m->iv[k].e > e0) e0 = m->iv[k].e;
        }
        busy += e0 - s0;
        if (j - i > 1) {
            for (size_t k = i; k < j; k++) m->ends[k - i] = m->iv[k].e;
            qsort(m->ends, j - i, sizeof *m->ends, dbl_cmp);
            size_t gone = 0;
            for (size_t k = i; k < j; k++) {
                while (gone < j - i && m->ends[gone] < m->iv[k].s) gone++;
                int on = (int)(k - i + 1 - gone);
                if (on > most) most = on;
            }
        }
        m->lbusy[d] += busy;
        if (most > m->lflows[d]) m->lflows[d] = most;
        i = j;
    }
    return 0;
}

/* A shortcut batch under per-message costs: dnet[t] is transfer t's network end in the lockstep
 * batch, from the batch's start (its sender's side first). Derives its dataflow times (see above). */
static void msg_batch(eng *g, const double *dnet) {
    eng_cert *c = &g->cert;
    struct cert_msg *m = c->m;
    size_t n = g->b.n;
    if (g->crosstraffic || g->io.trace) return cert_fails(g); /* (the trace has the lockstep run's times) */
    /* its receivers pay o here; pipelined costs are the switch schedules', which run lockstep */
    if (g->p->msg_piped) return cert_fails(g);
    if (!g->c.an_valid) {
        eng_fail(g, AR_EINTERNAL, "sim: certificate: a batch without its routes");
        return;
    }
    if (GROW(cert.kslot, 2 * n + 2) < 0 || msg_grow(&m->msg, &m->capmsg, n + 1, sizeof *m->msg) < 0) {
        eng_fail(g, AR_ENOMEM, "sim: out of memory");
        return;
    }
    if (n + 1 > m->capd) {
        size_t cap = m->capd;
        double **arr[] = {&m->inj, &m->q, &m->ns, &m->ne, &m->land, &m->dlo, &m->dhi};
        for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
            cap = m->capd;
            if (ar_grow(arr[i], &cap, n + 1, sizeof **arr[i]) < 0) {
                eng_fail(g, AR_ENOMEM, "sim: out of memory");
                return;
            }
        }
        m->capd = cap;
    }
    m->batch++;
    /* lockstep offsets, push times (readiness, then pending data), the send sides */
    size_t k = 0;
    int slot0 = -1;
    size_t first = 0;
    for (size_t t = 0; t < n; t++) {
        const ar_xfer *x = &g->b.x[t];
        int sided = eng_sided(g, x->src, x->dst), opi = g->b.slot_op[g->b.slot[t]];
        if (g->b.slot[t] != slot0) slot0 = g->b.slot[t], first = t;
        m->inj[t] = sided ? m->o + (double)m->cnt[x->src]++ * m->hold : 0;
        double s = ready_for(g, x, opi, &c->kslot[2 * t], &c->kslot[2 * t + 1]);
        if (g->st != AR_OK) return;
        msg_prune(g, x->src);
        if (!x->reduce) msg_prune(g, x->dst);
        for (double s0 = -1; s0 != s;) { /* a copy waits for both its ends' pending data */
            s0 = s;
            s = msg_unblocked(m, x->src, x, s);
            if (!x->reduce) s = msg_unblocked(m, x->dst, x, s);
        }
        m->q[t] = m->ns[t] = s;
        if (sided)
            m->msg[k++] = (cm_msg){2 * x->src, (int)t, s, g->ph.ops[opi].round, m->opbase + opi, (int)(t - first)};
    }
    for (size_t t = 0; t < n; t++) m->cnt[g->b.x[t].src] = 0;
    qsort(m->msg, k, sizeof *m->msg, msg_cmp);
    if (msg_sides(m, k, m->ns)) return cert_fails(g);
    for (size_t i = 0; i < k; i++) m->ns[m->msg[i].t] += m->o;
    /* network parts: each component at its lockstep offsets, translated; its links free */
    const int *root = g->c.fpar;
    for (size_t t = 0; t < n; t++) m->dlo[t] = INFINITY, m->dhi[t] = -INFINITY;
    for (size_t t = 0; t < n; t++) {
        int r = root[t];
        double d = m->ns[t] - m->inj[t];
        if (d < m->dlo[r]) m->dlo[r] = d;
        if (d > m->dhi[r]) m->dhi[r] = d;
    }
    for (size_t t = 0; t < n; t++) {
        int r = root[t];
        if (later(m->dhi[r], m->dlo[r])) return cert_fails(g); /* a component starts apart */
        for (int q = g->b.roff[t]; q < g->b.roff[t] + g->b.nfwd[t]; q++)
            if (later(c->lend[g->sc.res[q]], m->ns[t])) return cert_fails(g); /* its link is busy */
    }
    for (size_t t = 0; t < n; t++) {
        m->ns[t] = m->dhi[root[t]] + m->inj[t];
        m->ne[t] = m->dhi[root[t]] + dnet[t];
    }
    /* receive sides, from the network parts' ends */
    k = 0;
    slot0 = -1;
    for (size_t t = 0; t < n; t++) {
        const ar_xfer *x = &g->b.x[t];
        int opi = g->b.slot_op[g->b.slot[t]];
        if (g->b.slot[t] != slot0) slot0 = g->b.slot[t], first = t;
        m->land[t] = m->ne[t];
        if (eng_sided(g, x->src, x->dst))
            m->msg[k++] = (cm_msg){2 * x->dst + 1,       (int)t,          m->ne[t],
                                   g->ph.ops[opi].round, m->opbase + opi, (int)(t - first)};
    }
    qsort(m->msg, k, sizeof *m->msg, msg_cmp);
    if (msg_sides(m, k, m->land)) return cert_fails(g);
    for (size_t i = 0; i < k; i++) {
        size_t t = (size_t)m->msg[i].t;
        const ar_xfer *x = &g->b.x[t];
        m->land[t] += m->o;
        if (msg_grow(&m->pl[x->dst], &m->pcap[x->dst], m->pn[x->dst] + 1, sizeof **m->pl) < 0) {
            eng_fail(g, AR_ENOMEM, "sim: out of memory");
            return;
        }
        m->pl[x->dst][m->pn[x->dst]++] = (cm_pend){*x, m->ne[t], m->land[t], m->batch};
    }
    for (size_t t = 0; t < n; t++) {
        const ar_xfer *x = &g->b.x[t];
        if (msg_waits_own(m, x->src, x, m->q[t]) || (!x->reduce && msg_waits_own(m, x->dst, x, m->q[t])))
            return cert_fails(g);
    }
    /* the batch's outcome: links, readiness, landings */
    for (size_t t = 0; t < n; t++) {
        hold_links(g, t, m->ne[t]);
        end_at(c, &g->b.x[t], c->kslot[2 * t], c->kslot[2 * t + 1], m->ne[t] + g->ph.step);
        if (m->land[t] > m->pland) m->pland = m->land[t];
    }
    if (msg_links(g) < 0) eng_fail(g, AR_ENOMEM, "sim: out of memory");
    c->prev_n = 0;
    c->shifted = 0;
}

/* The derived run's link statistics are its network parts' (msg_links). */
static void msg_result(const eng *g, ar_sim_result *r) {
    const struct cert_msg *m = g->cert.m;
    for (int d = 0; d < r->ndlinks && d < g->ndl; d++) {
        r->link_busy_s[d] = m->lbusy[d];
        r->link_max_flows[d] = m->lflows[d];
    }
}

/* A shortcut batch: all its transfers start at T0 in the lockstep run, transfer t's network part
 * takes dnet[t], the whole transfer dtot[t]; the routes and components are the batch's analysis
 * (g->b.roff, g->sc.res, g->c.fpar: drive() analyses a repeated batch again after other routes
 * were computed). Every start is checked before any end counts. */
void eng_cert_batch(eng *g, double T0, const double *dnet, const double *dtot, int repeat) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    if (c->m) return msg_batch(g, dnet);
    size_t n = g->b.n;
    int earlier, f = batch_starts(g, T0, &earlier);
    if (f < 0) return;
    if (f > 0) return cert_fails(g);
    if (earlier) c->diverged = 1;
    for (size_t t = 0; t < n; t++) hold_links(g, t, c->dstart[t] + dnet[t]);
    for (size_t t = 0; t < n; t++) end_at(c, &g->b.x[t], c->kslot[2 * t], c->kslot[2 * t + 1], c->dstart[t] + dtot[t]);
    /* the chain of identical batches: shifted when every end moved by the same amount */
    c->shifted = c->diverged && repeat && c->prev_n == n && n > 0;
    if (c->shifted) c->shift = c->dstart[0] + dtot[0] - c->prev_end[0];
    for (size_t t = 0; t < n; t++) {
        double end = c->dstart[t] + dtot[t];
        if (c->shifted && fabs(end - c->prev_end[t] - c->shift) > 1e-12 * fabs(end)) c->shifted = 0;
        c->prev_end[t] = end;
    }
    c->prev_n = c->diverged ? n : 0;
}

/* A new op group or phase: no batch before is identical to the next in the certificate's sense. */
void eng_cert_group(eng *g) { g->cert.prev_n = 0, g->cert.shifted = 0; }

/* Whether identical rounds after the batch just applied may be jumped over (eng_repeat_jump):
 * always while the lockstep run is the dataflow run; once diverged, when the batch's ends are the
 * previous identical batch's shifted by one amount for every transfer. Every start of the next
 * identical batch is then the max of ends shifted by that amount, so it is this batch's start
 * shifted, and so on (the max commutes with a shift): each jumped batch is this one translated,
 * its checks included (a component's starts stay together; a link's last end moves with them). */
int eng_cert_can_jump(const eng *g) {
    const eng_cert *c = &g->cert;
    return !c->on || !c->diverged || (c->shifted && !c->m);
}

/* After J identical rounds were jumped: readiness and link ends move to the last of them, which
 * started at T0 in the lockstep run; diverged, it is the batch just applied shifted J times. */
void eng_cert_jump(eng *g, int J, double T0) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    for (size_t t = 0; t < g->b.n; t++) {
        double d0 = c->diverged ? c->dstart[t] + (double)J * c->shift : T0;
        hold_links(g, t, d0 + g->rep.dnet[t]);
        end_at(c, &g->b.x[t], c->kslot[2 * t], c->kslot[2 * t + 1], d0 + g->rep.dtot[t]);
    }
    c->prev_n = 0; /* the next batch is another round */
    c->shifted = 0;
}

/* Phase `phase` is over in the lockstep run: when its last rank finished it under dataflow (its last
 * transfer's end, or its entry if it has none: its ops are passed at once). */
void eng_cert_phase_end(eng *g, int phase) {
    eng_cert *c = &g->cert;
    if (!c->on) return;
    double pe = 0;
    for (int r = 0; r < g->s->nranks; r++) {
        if (c->roff[r + 1] == c->roff[r]) continue;
        double t = c->done[r] > c->entry[r] ? c->done[r] : c->entry[r];
        if (t > pe) pe = t;
    }
    if (c->m && c->m->pland > pe) pe = c->m->pland; /* the phase's last data through its receive side */
    c->pend[phase] = pe;
}

/* A diverged run that went to the end: its phase ends and time are the dataflow run's. */
void eng_cert_result(const eng *g, ar_sim_result *r) {
    const eng_cert *c = &g->cert;
    if (!c->on || !c->diverged || c->differs || g->stopped) return;
    int nph = g->s->nphases;
    for (int ph = 0; ph < nph; ph++) {
        r->phase_end_s[ph] = c->pend[ph];
        if (ph > 0 && r->phase_end_s[ph] < r->phase_end_s[ph - 1]) r->phase_end_s[ph] = r->phase_end_s[ph - 1];
    }
    r->time_s = nph ? r->phase_end_s[nph - 1] : 0;
    r->dataflow_derived = 1;
    if (c->m) msg_result(g, r);
}

ar_status eng_cert_init(eng *g) {
    eng_cert *c = &g->cert;
    int P = g->s->nranks;
    c->roff = ar_calloc((size_t)P + 2, sizeof *c->roff);
    c->fill = ar_calloc((size_t)P + 1, sizeof *c->fill);
    c->entry = ar_calloc((size_t)P + 1, sizeof *c->entry);
    c->done = ar_calloc((size_t)P + 1, sizeof *c->done);
    c->lend = ar_calloc((size_t)g->ndl + 1, sizeof *c->lend);
    c->pend = ar_calloc((size_t)g->s->nphases + 1, sizeof *c->pend);
    if (!c->roff || !c->fill || !c->entry || !c->done || !c->lend || !c->pend) return OOM();
    c->on = 1;
    return g->msg ? msg_init(g) : AR_OK;
}

void eng_cert_free(eng_cert *c) {
    free(c->roff);
    free(c->fill);
    free(c->entry);
    free(c->done);
    free(c->rop);
    free(c->ready);
    free(c->lend);
    free(c->pend);
    free(c->dstart);
    free(c->lo);
    free(c->hi);
    free(c->prev_end);
    free(c->kslot);
    msg_free(c->m);
    c->m = NULL;
}
