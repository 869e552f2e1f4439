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
 * Stopping early. A shortcut batch whose starts already fail the certificate fails it before its
 * durations are learnt (eng_cert_precheck, called by drive() right after the batch's analysis):
 * a probe is a SimGrid run of the batch, and ps on a 512-rank tree spent 2.7 of its 4.6 s of
 * thrown-away lockstep run probing the second phase's batch whose starts failed.
 */
#include <math.h>
#include <stdlib.h>

#include "fast_int.h"

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
    if (!c->on || c->differs || !g->c.an_valid) return;
    int earlier;
    if (batch_starts(g, eng_now(g), &earlier) > 0) cert_fails(g);
}

/* A shortcut batch: all its transfers start at T0 in the lockstep run, transfer t's network part
 * takes dnet[t], the whole transfer dtot[t]; the routes and components are the batch's analysis
 * (g->b.roff, g->sc.res, g->c.fpar: drive() analyses a repeated batch again after other routes
 * were computed). Every start is checked before any end counts. */
void eng_cert_batch(eng *g, double T0, const double *dnet, const double *dtot, int repeat) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
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
    return !c->on || !c->diverged || c->shifted;
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
    return AR_OK;
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
}
