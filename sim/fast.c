/* The fast engine: drives SimGrid without actors and skips provably redundant
 * work (see sim.h for the user's view).
 *
 * Time. arlab's clock is T = SimGrid's clock + off. SimGrid only ever runs
 * what arlab cannot derive; when arlab advances time on its own (a shortcut)
 * it adds to off, when SimGrid runs a probe (a component simulated alone to
 * learn its durations) arlab subtracts the probe's duration from off, so the
 * probe takes no arlab time.
 *
 * Structure of a phase. The ops of a phase are partitioned into groups: ops
 * are in one group when a transfer of one (in any round) may share a resource
 * (a directed link; with crosstraffic also the links of the reverse route;
 * with gamma > 0 the receiving GPU of a reduction) with a transfer of the
 * other. Groups share nothing, so under SimGrid's models (flows interact only
 * through shared resources) each evolves as if alone: they are simulated one
 * after the other, each from the phase start, and the phase ends with the last.
 *
 * Inside a group, whenever nothing is in flight (an idle instant), the next
 * round of every unfinished op forms a batch, all starting now:
 *  1. repeat: if the batch equals the previous shortcut batch (same ops
 *     partition, same src, dst, size and reduce flag for every transfer, in
 *     order) its outcome is reused: same input, idle network, so by time
 *     translation invariance the same durations.
 *  2. components: transfers are joined when they share a resource; each
 *     component is written as a key (transfers in batch order with size,
 *     reduce flag and resources renamed by first appearance, then every
 *     resource's capacity and latency). Equal keys mean identical systems up to
 *     renaming, so equal durations per transfer. Components share nothing, so
 *     each one's durations are those it has alone. Unknown keys are simulated
 *     alone in SimGrid (a probe, several at once since they are independent)
 *     and remembered.
 *  3. With every duration known: if every op that has rounds left ends its
 *     round at the batch's last instant, nothing starts while the batch runs,
 *     so the batch's outcome is exactly these durations: arlab applies it
 *     (clock, statistics, data, trace) and continues. Otherwise the batch is
 *     started in SimGrid and everything runs there (rounds start as soon as
 *     their op's previous round ends) until the network is idle again.
 * opts.full disables 1-3 and the grouping.
 *
 * Statistics: per directed link, payload bytes and busy time (union of the
 * intervals during which at least one transfer crossing it is in flight;
 * for a shortcut batch all transfers start together, so a link is busy for
 * its longest transfer's network time).
 *
 * Files: this one holds the driver (phases, groups, batches, hand-over to
 * SimGrid and back), the SimGrid callbacks and setup; fast_batch.c the
 * batches and shortcuts; fast_flow.c SimGrid-mode transfers, probes, data
 * and trace; fast_memo.c the memo; fast_int.h the state.
 *
 * Ownership: everything is allocated in ar_engine_fast and freed before it
 * returns, except the result's arrays (caller frees with ar_sim_result_free).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/data.h"
#include "models/model.h"
#include "fast_int.h"

static int budget_over(eng *g) {
    if (g->stopped) return 1;
    if (g->o->budget_s > 0 && ar_now_s() - g->budget0 > g->o->budget_s) g->stopped = 1;
    return g->stopped;
}

/* ---- the driver ---- */

static ar_status phase_begin(eng *g) {
    const ar_phase *ph = &g->s->phases[g->ph.phase];
    if (GROW(ph.ops, (size_t)ph->nops + 1) < 0) return OOM();
    for (int i = 0; i < ph->nops; i++)
        g->ph.ops[i] = (opst){.op = &ph->ops[i], .nrounds = ar_lower_nrounds(&ph->ops[i])};
    for (int i = 0; g->io.data && i < ph->nops; i++) { /* a switch op reduces into a zeroed range of its switch */
        const ar_op *op = &ph->ops[i];
        int k = op->impl == AR_IMPL_SWITCH ? ar_platform_ep_index(g->p, AR_EP_NODE(op->sw)) : -1;
        if (k >= 0) memset(g->io.data + (size_t)k * g->s->count + op->offset, 0, op->count * sizeof *g->io.data);
    }
    ar_status st = eng_make_groups(g, ph);
    if (st != AR_OK) return st;
    /* the ops' NCCL protocol, priced as the walk prices it: wire bytes, after every transfer its own
     * step (ar_xfer_proto_step: so every round of an op takes its slowest transfer's step), and the
     * base latency before the phase */
    double f, step, base, rate; /* rate: every flow's bound (LL/LL128 caps) */
    ar_phase_proto_effect(&g->proto, g->ph.phase, &f, &step, &base, &rate);
    for (int i = 0; step > 0 && i < ph->nops; i++) g->ph.ops[i].step = ar_op_proto_step(g->p, &ph->ops[i]);
    if (g->eb0 / f != g->eb || rate != g->rate || step > 0 || g->ph.step > 0) g->rep.valid = 0, g->c.an_valid = 0;
    g->eb = g->eb0 / f;
    g->rate = rate;
    if (ar_sg_set_rate(g->sg, rate) != 0)
        return ar_fail(g->e, AR_EBACKEND, "sim: more distinct protocol rate bounds than the simulator holds");
    g->ph.step = step;
    g->off += base;
    if ((st = eng_cert_phase(g, base)) != AR_OK) return st;
    g->ph.group = 0;
    g->ph.t0 = eng_now(g);
    g->ph.tmax = g->ph.t0;
    return AR_OK;
}

/* The batch in g->b.x is analysed (components known): shortcut it if it is
 * closed, else hand it to SimGrid. */
static ar_status decide(eng *g, int *handed) {
    double tend = 0;
    ar_status st = eng_outcome(g, &tend);
    if (st != AR_OK) return st;
    *handed = 0;
    if (eng_closed(g, g->c.opend, tend)) {
        if ((st = eng_apply_batch(g, g->c.dnet, g->c.dtot, tend, 0)) != AR_OK ||
            (st = eng_repeat_save(g, tend)) != AR_OK)
            return st;
        g->r->epochs_memo++;
        return AR_OK;
    }
    g->rep.valid = 0;
    *handed = 1;
    return AR_OK;
}

static void hand_to_simgrid(eng *g) {
    g->r->epochs_simgrid++;
    g->mode = M_FULL;
    g->full.nready = 0;
    for (int k = 0; k < g->b.nslots; k++) g->ph.ops[g->b.slot_op[k]].pending = 0;
    for (size_t t = 0; t < g->b.n; t++) g->ph.ops[g->b.slot_op[g->b.slot[t]]].pending++;
    for (size_t t = 0; t < g->b.n && g->st == AR_OK; t++) {
        int opi = g->b.slot_op[g->b.slot[t]];
        eng_full_start_xfer(g, &g->b.x[t], opi, g->ph.ops[opi].round);
    }
    eng_side_kicks(g);
}

/* Runs from an idle instant until SimGrid has work or the schedule is done. */
static void drive(eng *g) {
    g->mode = M_IDLE;
    if (g->msg) eng_side_reset(g); /* an idle instant: every side is free */
    while (g->st == AR_OK) {
        if (g->ph.phase >= g->s->nphases || budget_over(g)) {
            g->mode = M_DONE;
            return;
        }
        ar_status st = eng_gather(g);
        if (st != AR_OK) {
            g->st = st;
            break;
        }
        if (g->b.n == 0) { /* the group is finished */
            double T = eng_now(g);
            if (T > g->ph.tmax) g->ph.tmax = T;
            eng_cert_group(g);
            if (++g->ph.group < g->ph.ngroups) {
                g->off = g->ph.t0 - ar_sg_now();
                continue;
            }
            g->r->phase_end_s[g->ph.phase] = g->ph.tmax;
            eng_cert_phase_end(g, g->ph.phase);
            g->off = g->ph.tmax - ar_sg_now();
            if (++g->ph.phase < g->s->nphases && (st = phase_begin(g)) != AR_OK) {
                g->st = st;
                break;
            }
            continue;
        }
        g->r->epochs++;
        if (g->shortcuts) {
            /* the certificate may need the batch's routes and components (once diverged): a
             * repeat after other routes were computed (a new phase's groups) is analysed again */
            if (eng_repeat_match(g) && eng_closed(g, g->rep.opend, g->rep.tend) && (g->c.an_valid || !g->cert.on)) {
                if ((st = eng_apply_batch(g, g->rep.dnet, g->rep.dtot, g->rep.tend, 1)) != AR_OK) {
                    g->st = st;
                    break;
                }
                g->r->epochs_repeat++;
                if ((st = eng_repeat_jump(g)) != AR_OK) {
                    g->st = st;
                    break;
                }
                continue;
            }
            if ((st = eng_analyse(g)) != AR_OK) {
                g->st = st;
                break;
            }
            if (g->pr.nmiss > 0) {    /* learn the unknown components, then decide */
                eng_cert_precheck(g); /* unless the batch's starts already fail the certificate */
                if (g->stopped) continue;
                if ((st = eng_probe_start(g)) != AR_OK) g->st = st;
                return;
            }
            int handed;
            if ((st = decide(g, &handed)) != AR_OK) {
                g->st = st;
                break;
            }
            if (!handed) continue;
        }
        hand_to_simgrid(g);
        return;
    }
    g->mode = M_DONE;
}

static void hook_done(void *ctx, uint64_t tok) {
    eng *g = ctx;
    if (g->st != AR_OK) return;
    uint64_t i = TOK_INDEX(tok);
    if ((tok >> 60) == 2) {
        eng_probe_event(g, tok);
        return;
    }
    if ((tok >> 60) == 3) {
        eng_side_event(g, tok);
        return;
    }
    if (tok & TOK_DELAY) eng_full_finish(g, (int)i);
    else if (tok & TOK_EXEC) eng_full_after(g, (int)i);
    else eng_full_net_done(g, (int)i);
}

static void hook_step(void *ctx) {
    eng *g = ctx;
    if (g->st != AR_OK) return;
    if (g->mode == M_PROBE) {
        if (!eng_probe_step(g)) return;
        ar_status st = eng_probe_finish(g);
        int handed = 0;
        if (st == AR_OK) st = decide(g, &handed);
        if (st != AR_OK) {
            g->st = st;
            return;
        }
        if (handed) hand_to_simgrid(g);
        else drive(g);
        return;
    }
    if (g->mode != M_FULL) return;
    size_t nr = g->full.nready;
    g->full.nready = 0;
    for (size_t k = 0; k < nr; k++) g->ph.ops[g->full.readyq[k]].ready = 0;
    if (g->full.inflight == 0) { /* idle: back to the shortcuts */
        drive(g);
        return;
    }
    if (budget_over(g)) { /* let the transfers in flight drain */
        eng_side_kicks(g);
        return;
    }
    for (size_t k = 0; k < nr && g->st == AR_OK; k++) eng_full_start_round(g, g->full.readyq[k]);
    eng_side_kicks(g);
    if (g->full.inflight == 0 && g->st == AR_OK) drive(g);
}

long sim_peak_rss_kb(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss;
}

static void eng_free(eng *g) {
    void *arrs[] = {
        g->ph.ops,        g->ph.gops,      g->ph.goff,  g->ph.uf,                                 /* phase */
        g->sc.own_stamp,  g->sc.loc_stamp, g->sc.own,   g->sc.loc_id,  g->sc.res,     g->sc.cidx, /* scratch */
        g->sc.xbuf,       g->sc.stage,     g->b.x,      g->b.slot,     g->b.slot_op,  g->b.roff,
        g->b.nfwd, /* batch */
        g->c.fpar,        g->c.corder,     g->c.cstart, g->c.keys,     g->c.koff,     g->c.klen,
        g->c.hash, /* components */
        (void *)g->c.val, g->c.dnet,       g->c.dtot,   g->c.opend,    g->c.an,       g->c.ksz,
        g->rep.rec,       g->rep.opend,    g->rep.dnet, g->rep.dtot,   g->rep.dl,     g->rep.bytes,    /* repeat */
        g->rep.busy,      g->rep.cnt,      g->busy.t,   g->busy.count, g->busy.stamp, g->busy.touched, /* busy */
        g->pr.src,        g->pr.dst,       g->pr.red,   g->pr.bytes,   g->pr.net,     g->pr.tot,
        g->pr.inj,        g->pr.land,      g->pr.miss, /* probes */
        g->pr.first,      g->io.data};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
    eng_memo_free(&g->memo);
    eng_full_free(&g->full);
    eng_side_free(&g->side);
    eng_cert_free(&g->cert);
}

/* 1 if a > b beyond rounding (sums taken in another order may differ in the last bits). */
static int clearly_more(double a, double b) { return a > b + 1e-9 * fabs(b); }

void sim_pick_bottleneck(const ar_platform *p, ar_sim_result *r) {
    r->bottleneck = -1;
    double bl = 0;
    for (int d = 0; d < r->ndlinks; d++) {
        if (r->link_bytes[d] <= 0) continue;
        double load = r->link_bytes[d] / ar_link_capacity(&p->links[AR_DLINK_LINK(d)]);
        int b = r->bottleneck;
        int take = b < 0 || clearly_more(load, bl);
        if (!take && !clearly_more(bl, load)) { /* equal load: longer busy, then more transfers at once */
            if (clearly_more(r->link_busy_s[d], r->link_busy_s[b])) take = 1;
            else if (!clearly_more(r->link_busy_s[b], r->link_busy_s[d]) && r->link_max_flows[d] > r->link_max_flows[b])
                take = 1;
        }
        if (take) {
            r->bottleneck = d;
            bl = load;
        }
    }
}

ar_status ar_engine_fast(const sim_job *j, ar_sim_result *r, ar_err *e) {
    eng G, *g = &G;
    memset(g, 0, sizeof *g);
    g->p = j->p;
    g->s = j->s;
    ar_proto_ctx_init(&g->proto, j->p, j->s);
    g->o = j->o;
    g->r = r;
    g->e = e;
    g->wall0 = ar_now_s();
    g->shortcuts = !j->o->full && !(j->net_flags & SIM_NET_NOT_LOCAL);
    g->crosstraffic = (j->net_flags & SIM_NET_CROSSTRAFFIC) != 0;
    g->gamma = j->o->gamma_s_per_B;
    g->eb0 = g->eb = (double)j->s->elem_bytes;
    g->ndl = 2 * (j->p->nlinks + j->p->nvlinks); /* + the reducing switches' virtual links */
    g->msg = ar_platform_has_msg(j->p);
    g->nres = g->ndl + 3 * j->p->nranks; /* + per rank: its GPU, its send side and its receive side */
    snprintf(r->engine, sizeof r->engine, "fast");
    r->nphases = j->s->nphases;
    r->ndlinks = g->ndl;
    r->bottleneck = -1;
    r->complete = 1;
    r->phase_end_s = ar_calloc((size_t)j->s->nphases + 1, sizeof *r->phase_end_s);
    r->link_bytes = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_bytes);
    r->link_busy_s = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_busy_s);
    r->link_max_flows = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_max_flows);
    g->busy.count = ar_calloc((size_t)g->ndl + 1, sizeof *g->busy.count);
    g->sc.own_stamp = ar_calloc((size_t)g->nres, sizeof *g->sc.own_stamp);
    g->sc.loc_stamp = ar_calloc((size_t)g->nres, sizeof *g->sc.loc_stamp);
    g->sc.own = ar_calloc((size_t)g->nres, sizeof *g->sc.own);
    g->sc.loc_id = ar_calloc((size_t)g->nres, sizeof *g->sc.loc_id);
    g->busy.t = ar_calloc((size_t)g->ndl + 1, sizeof *g->busy.t);
    g->busy.stamp = ar_calloc((size_t)g->ndl + 1, sizeof *g->busy.stamp);
    g->full.active = ar_calloc((size_t)g->ndl + 1, sizeof *g->full.active);
    g->full.since = ar_calloc((size_t)g->ndl + 1, sizeof *g->full.since);
    if (!r->phase_end_s || !r->link_bytes || !r->link_busy_s || !r->link_max_flows || !g->busy.count ||
        !g->sc.own_stamp || !g->sc.loc_stamp || !g->sc.own || !g->sc.loc_id || !g->busy.t || !g->busy.stamp ||
        !g->full.active || !g->full.since) {
        eng_free(g);
        return ar_fail(e, AR_ENOMEM, "sim: out of memory");
    }
    if (j->o->check) {
        uint64_t lim = j->o->check_max_bytes ? j->o->check_max_bytes : UINT64_C(1) << 30;
        if ((uint64_t)j->s->nranks > lim / 8 / j->s->count) {
            eng_free(g);
            return ar_fail(e, AR_ELIMIT,
                           "sim --check: %d ranks x %llu elements need more than the %llu-byte limit (use a "
                           "smaller size)",
                           j->s->nranks, (unsigned long long)j->s->count, (unsigned long long)lim);
        }
        /* one buffer per rank, then one per reducing switch (ar_platform_ep_index) */
        g->io.data = ar_reallocarray(NULL, ((size_t)j->s->nranks + (size_t)j->p->nvlinks) * (size_t)j->s->count,
                                     sizeof *g->io.data);
        if (!g->io.data) {
            eng_free(g);
            return ar_fail(e, AR_ENOMEM, "sim --check: out of memory");
        }
        for (int rk = 0; rk < j->s->nranks; rk++) ar_data_fill(g->io.data + (size_t)rk * j->s->count, rk, j->s->count);
    }
    ar_status st = AR_OK;
    if (g->msg && (st = eng_side_init(g)) != AR_OK) {
        eng_free(g);
        return st;
    }
    if (j->o->sync == AR_SYNC_DATAFLOW && (st = eng_cert_init(g)) != AR_OK) {
        eng_free(g);
        return st;
    }
    if (j->o->trace_path && (st = eng_open_trace(g, j->o->trace_path, e)) != AR_OK) {
        eng_free(g);
        return st;
    }
    double t_setup = ar_now_s();
    ar_sg_hooks hooks = {.ctx = g, .done = hook_done, .step = hook_step};
    st = ar_sg_open(j->p, j->settings, j->nsettings, sg_flags(j), &hooks, &g->sg, e);
    r->setup_s = ar_now_s() - t_setup;
    g->budget0 = ar_now_s();
    sim_job_ready(j);
    if (st == AR_OK && j->s->nphases > 0) st = phase_begin(g);
    if (st == AR_OK) {
        drive(g);
        if (g->mode != M_DONE) ar_sg_run(g->sg);
        st = g->st;
        if (st == AR_OK && g->mode != M_DONE && !g->stopped)
            st = ar_fail(e, AR_EINTERNAL, "sim: SimGrid stopped before the schedule finished (phase %d)", g->ph.phase);
    }
    r->dataflow_differs = g->cert.differs;
    if (st == AR_OK) {
        r->complete = !g->stopped;
        r->time_s = g->stopped ? eng_now(g) : (j->s->nphases ? r->phase_end_s[j->s->nphases - 1] : 0);
        eng_cert_result(g, r);
        for (int rk = 0; g->io.data && r->complete && rk < j->s->nranks && st == AR_OK; rk++) {
            const double *b = g->io.data + (size_t)rk * j->s->count;
            uint64_t x = ar_data_first_wrong(b, j->s->nranks, j->s->count);
            if (x < j->s->count)
                st = ar_fail(e, AR_EFAIL, "sim --check: %s: rank %d element %llu holds %.17g, exact sum is %.17g",
                             j->s->algo, rk, (unsigned long long)x, b[x], ar_data_expected(j->s->nranks, x));
        }
        sim_pick_bottleneck(j->p, r);
    }
    if (g->io.trace) {
        fprintf(g->io.trace, "\n]}\n");
        if (fclose(g->io.trace) != 0 && (st == AR_OK || st == AR_EFAIL))
            st = ar_fail(e, AR_EIO, "sim --trace: error writing \"%s\"", j->o->trace_path);
        g->io.trace = NULL;
    }
    ar_sg_close(g->sg);
    eng_free(g);
    r->wall_s = ar_now_s() - g->wall0;
    r->peak_rss_kb = sim_peak_rss_kb();
    return st;
}
