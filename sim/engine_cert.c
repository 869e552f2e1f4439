/* The fast engine under --sync dataflow: the lockstep run with a certificate.
 *
 * Under dataflow (sim/dataflow.c) a transfer starts at max(ready(src), ready(dst)),
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
 */
#include <math.h>
#include <stdlib.h>

#include "engine_int.h"

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
    return AR_OK;
}

/* Position of (rank, op) in the CSR, -1 if absent (a bug). */
static int slot_of(const eng_cert *c, int rank, int opi) {
    for (int k = c->roff[rank]; k < c->roff[rank + 1]; k++)
        if (c->rop[k] == opi) return k;
    return -1;
}

static double ready_of(const eng_cert *c, int k, int rank) { return c->ready[k] >= 0 ? c->ready[k] : c->entry[rank]; }

void eng_cert_start(eng *g, const ar_xfer *x, int opi, double t) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    int ks = x->src >= 0 ? slot_of(c, x->src, opi) : -1, kd = x->dst >= 0 ? slot_of(c, x->dst, opi) : -1;
    if (ks < 0 || kd < 0) { /* (switch ends never come here: sim.c runs switch schedules lockstep) */
        eng_fail(g, AR_EINTERNAL, "sim: certificate: a transfer outside its op");
        return;
    }
    double rs = ready_of(c, ks, x->src), rd = ready_of(c, kd, x->dst);
    if (later(t, rs > rd ? rs : rd)) {
        c->differs = 1;
        g->stopped = 1; /* sim.c runs the dataflow engine instead */
    }
}

void eng_cert_end(eng *g, const ar_xfer *x, int opi, double t) {
    eng_cert *c = &g->cert;
    if (!c->on || c->differs) return;
    int ks = x->src >= 0 ? slot_of(c, x->src, opi) : -1, kd = x->dst >= 0 ? slot_of(c, x->dst, opi) : -1;
    if (ks < 0 || kd < 0) return;
    if (t > c->ready[ks]) c->ready[ks] = t;
    if (t > c->ready[kd]) c->ready[kd] = t;
    if (t > c->done[x->src]) c->done[x->src] = t;
    if (t > c->done[x->dst]) c->done[x->dst] = t;
}

ar_status eng_cert_init(eng *g) {
    eng_cert *c = &g->cert;
    int P = g->s->nranks;
    c->roff = ar_calloc((size_t)P + 2, sizeof *c->roff);
    c->fill = ar_calloc((size_t)P + 1, sizeof *c->fill);
    c->entry = ar_calloc((size_t)P + 1, sizeof *c->entry);
    c->done = ar_calloc((size_t)P + 1, sizeof *c->done);
    if (!c->roff || !c->fill || !c->entry || !c->done) return OOM();
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
}
