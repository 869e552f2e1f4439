/* ar_sim_run: validation, the --network spec, and one process per simulation
 * (see sim.h). The child runs the engine and writes the result to a pipe:
 * a fixed header, then the arrays; the parent reads it back. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xbt/base.h> /* simgrid/version.h needs it first */
#include <simgrid/version.h>

#include "core/interrupt.h"
#include "core/util.h"
#include "bridge.h"
#include "engine.h"
#include "models/model.h"
#include "sim.h"

#define MAX_SETTINGS 24
#define SETTING_LEN 96

typedef struct netspec {
    char set[MAX_SETTINGS][SETTING_LEN];
    int n;
    unsigned flags;
    char desc[512];
} netspec;

static const char *const help_text =
    "  CM02   alpha-beta exact (default): network/model:CM02 network/crosstraffic:0 network/TCP-gamma:0\n"
    "         network/solver:maxmin maxmin/precision:1e-12 surf/precision:1e-15, SPLITDUPLEX links,\n"
    "         latency:arlab (a flow's route latency paid before it joins the sharing, so every flow\n"
    "         weighs the same: a saturated link is shared equally); with network/solver:fairbottleneck,\n"
    "         or an override of network/weight-S, network/latency-factor or network/crosstraffic,\n"
    "         latency:simgrid (SimGrid's links carry it; CM02's maxmin then weighs flows by latency)\n"
    "  LV08   SimGrid's default TCP model (latency x13.01, bandwidth x0.97, 5% cross-traffic, TCP window)\n"
    "  SMPI   SimGrid's MPI model (piecewise bandwidth/latency factors by message size)\n"
    "  IB     SimGrid's InfiniBand model (flows interact at each GPU: no shortcuts)\n"
    "         (every model runs with surf/precision:1e-15: completions closer than SimGrid's default 1 ns\n"
    "         are not merged, so the exact shortcuts and the full simulation see the same events)\n"
    "  overrides: MODEL,key:value,... with key one of network/solver (maxmin, fairbottleneck, bmf),\n"
    "  network/crosstraffic (0, 1), network/TCP-gamma, network/latency-factor, network/bandwidth-factor,\n"
    "  network/weight-S, network/optim (Lazy, Full), surf/precision, maxmin/precision\n";

const char *ar_sim_network_help(void) { return help_text; }

const char *ar_sim_simgrid_info(void) {
    static char buf[320];
    int maj = 0, min = 0, patch = 0;
    sg_version_get(&maj, &min, &patch);
    snprintf(buf, sizeof buf, "SimGrid %d.%d.%d, completion-scan fix %s, rate bound %s", maj, min, patch,
             ar_sg_fix_info(), ar_sg_rate_info());
    return buf;
}

static int add_setting(netspec *ns, const char *key, const char *val) {
    for (int i = 0; i < ns->n; i++) { /* later values replace earlier ones */
        size_t kl = strlen(key);
        if (!strncmp(ns->set[i], key, kl) && ns->set[i][kl] == ':') {
            snprintf(ns->set[i], SETTING_LEN, "%s:%s", key, val);
            return 0;
        }
    }
    if (ns->n >= MAX_SETTINGS) return -1;
    snprintf(ns->set[ns->n++], SETTING_LEN, "%s:%s", key, val);
    return 0;
}

static int parse_double(const char *v, double *out) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d)) return -1;
    *out = d;
    return 0;
}

static ar_status parse_net(const char *spec, netspec *ns, ar_err *e) {
    memset(ns, 0, sizeof *ns);
    if (!spec || !*spec) spec = "CM02";
    char buf[512];
    if (strlen(spec) >= sizeof buf) return ar_fail(e, AR_EINVAL, "--network: value too long");
    strcpy(buf, spec);
    char *save = NULL;
    char *model = strtok_r(buf, ",", &save);
    if (!model) return ar_fail(e, AR_EINVAL, "--network: give a model (CM02, LV08, SMPI, IB)");
    char q[128];
    int cm02 = !strcasecmp(model, "CM02"), solver_given = 0, simgrid_latency = 0;
    if (cm02) {
        add_setting(ns, "network/model", "CM02");
        add_setting(ns, "network/crosstraffic", "0");
        add_setting(ns, "network/TCP-gamma", "0");
        add_setting(ns, "network/solver", "maxmin");
        add_setting(ns, "maxmin/precision", "1e-12");
        add_setting(ns, "surf/precision", "1e-15");
    } else if (!strcasecmp(model, "LV08")) {
        add_setting(ns, "network/model", "LV08");
        add_setting(ns, "surf/precision", "1e-15");
        ns->flags |= SIM_NET_CROSSTRAFFIC;
    } else if (!strcasecmp(model, "SMPI")) {
        add_setting(ns, "network/model", "SMPI");
        add_setting(ns, "surf/precision", "1e-15");
        ns->flags |= SIM_NET_CROSSTRAFFIC;
    } else if (!strcasecmp(model, "IB")) {
        if (!ar_sg_has_ib())
            return ar_fail(e, AR_EUNSUPPORTED,
                           "--network IB: this SimGrid library was built without SMPI, which brings IB");
        add_setting(ns, "network/model", "IB");
        add_setting(ns, "surf/precision", "1e-15");
        ns->flags |= SIM_NET_CROSSTRAFFIC | SIM_NET_NOT_LOCAL;
    } else {
        return ar_fail(e, AR_EINVAL, "--network: unknown model %s (use CM02, LV08, SMPI or IB)",
                       ar_quote(model, q, sizeof q));
    }
    for (char *kv; (kv = strtok_r(NULL, ",", &save));) {
        char *colon = strchr(kv, ':');
        if (!colon) return ar_fail(e, AR_EINVAL, "--network: override %s is not key:value", ar_quote(kv, q, sizeof q));
        *colon = 0;
        const char *key = kv, *val = colon + 1;
        double d;
        int ok = 0;
        if (!strcmp(key, "network/solver")) {
            ok = !strcmp(val, "maxmin") || !strcmp(val, "fairbottleneck") || !strcmp(val, "bmf");
            solver_given = 1;
            simgrid_latency |= strcmp(val, "maxmin") != 0;
        } else if (!strcmp(key, "network/crosstraffic")) {
            ok = !strcmp(val, "0") || !strcmp(val, "1");
            simgrid_latency |= val[0] == '1';
            if (ok && val[0] == '1') ns->flags |= SIM_NET_CROSSTRAFFIC;
            else if (ok) ns->flags &= ~(unsigned)SIM_NET_CROSSTRAFFIC;
        } else if (!strcmp(key, "network/optim")) ok = !strcmp(val, "Lazy") || !strcmp(val, "Full");
        else if (!strcmp(key, "network/TCP-gamma") || !strcmp(key, "network/weight-S")) {
            ok = parse_double(val, &d) == 0 && d >= 0;
            simgrid_latency |= !strcmp(key, "network/weight-S");
        } else if (!strcmp(key, "network/latency-factor")) {
            ok = parse_double(val, &d) == 0 && d > 0;
            simgrid_latency = 1;
        } else if (!strcmp(key, "network/bandwidth-factor") || !strcmp(key, "surf/precision") ||
                   !strcmp(key, "maxmin/precision"))
            ok = parse_double(val, &d) == 0 && d > 0;
        else
            return ar_fail(e, AR_EINVAL, "--network: unknown setting %s (see 'arlab sim --help')",
                           ar_quote(key, q, sizeof q));
        if (!ok) return ar_fail(e, AR_EINVAL, "--network: bad value %s for %s", ar_quote(val, q, sizeof q), key);
        if (add_setting(ns, key, val) < 0) return ar_fail(e, AR_EINVAL, "--network: too many settings");
    }
    /* CM02's equal sharing: arlab pays the latency (every flow weighs 1) for the maxmin solver, which
     * re-solves only what an event touches; where a setting makes the latency part of the sharing
     * (weight-S, latency-factor, cross-traffic), SimGrid pays it and the default solver is the
     * fairbottleneck one, which shares a saturated link equally whatever the flows' weights */
    if (cm02 && !simgrid_latency) ns->flags |= SIM_NET_ARLAB_LATENCY;
    else if (cm02 && !solver_given) add_setting(ns, "network/solver", "fairbottleneck");
    size_t l = 0;
    for (int i = 0; i < ns->n; i++)
        l += (size_t)snprintf(ns->desc + l, l < sizeof ns->desc ? sizeof ns->desc - l : 0, "%s%s", i ? " " : "",
                              ns->set[i]);
    if (l < sizeof ns->desc)
        snprintf(ns->desc + l, sizeof ns->desc - l, " links:SPLITDUPLEX latency:%s%s",
                 (ns->flags & SIM_NET_ARLAB_LATENCY) ? "arlab" : "simgrid",
                 (ns->flags & SIM_NET_NOT_LOCAL) ? " shortcuts:off" : "");
    return AR_OK;
}

ar_status ar_sim_network_parse(const char *spec, char *buf, size_t n, ar_err *e) {
    netspec ns;
    ar_status st = parse_net(spec, &ns, e);
    if (st == AR_OK && buf && n) snprintf(buf, n, "%s", ns.desc);
    return st;
}

char *ar_sim_dlink_name(const ar_platform *p, int d, char *buf, size_t n) {
    if (!p || d < 0 || d >= 2 * (p->nlinks + p->nvlinks)) { /* + the reducing switches' virtual links */
        snprintf(buf, n, "-");
        return buf;
    }
    const ar_link *l = &p->links[AR_DLINK_LINK(d)];
    int from = (d & 1) ? l->b : l->a, to = (d & 1) ? l->a : l->b;
    snprintf(buf, n, "%s (%s->%s)", l->name ? l->name : "?", p->nodes[from].name, p->nodes[to].name);
    return buf;
}

double ar_sim_link_util(const ar_platform *p, const ar_sim_result *r, int d) {
    if (!r->link_bytes || d < 0 || d >= r->ndlinks || !(r->time_s > 0)) return NAN;
    return r->link_bytes[d] / (ar_link_capacity(&p->links[AR_DLINK_LINK(d)]) * r->time_s);
}

void ar_sim_result_free(ar_sim_result *r) {
    if (!r) return;
    free(r->phase_end_s);
    free(r->link_bytes);
    free(r->link_busy_s);
    free(r->link_max_flows);
    free(r->link_bg_bytes);
    r->phase_end_s = r->link_bytes = r->link_busy_s = r->link_bg_bytes = NULL;
    r->link_max_flows = NULL;
}

/* ---- validation (before SimGrid starts) ---- */

/* Scenario events: late ranks, background flows, jobs (independent phase ends). */
static int has_events(const ar_sim_opts *o) { return o->rank_delay_s || o->nflows || o->independent_phases; }

static ar_status validate(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_err *e) {
    if (!p || !s || !o) return ar_fail(e, AR_EINVAL, "sim: missing platform, schedule or options");
    if (p->nranks < 1) return ar_fail(e, AR_EINVAL, "sim: platform %s has no GPU", p->name);
    if (s->nranks != p->nranks)
        return ar_fail(e, AR_EINVAL, "sim: schedule %s has %d ranks, platform %s has %d", s->algo, s->nranks, p->name,
                       p->nranks);
    for (int l = 0; l < p->nlinks; l++) {
        const ar_link *k = &p->links[l];
        double c = ar_link_capacity(k);
        if (!(c > 0) || !isfinite(c) || k->lanes < 1)
            return ar_fail(e, AR_EINVAL, "sim: platform %s: link %s: bandwidth must be > 0 (got %g B/s x %d lanes)",
                           p->name, k->name ? k->name : "?", k->bw_Bps, k->lanes);
        if (!(k->lat_s >= 0) || !isfinite(k->lat_s))
            return ar_fail(e, AR_EINVAL, "sim: platform %s: link %s: latency must be >= 0 (got %g s)", p->name,
                           k->name ? k->name : "?", k->lat_s);
        if (k->a < 0 || k->a >= p->nnodes || k->b < 0 || k->b >= p->nnodes)
            return ar_fail(e, AR_EINVAL, "sim: platform %s: link %s has a bad endpoint", p->name,
                           k->name ? k->name : "?");
    }
    if (!(o->gamma_s_per_B >= 0) || !isfinite(o->gamma_s_per_B))
        return ar_fail(e, AR_EINVAL, "sim: gamma must be >= 0 seconds per byte");
    if (!(o->budget_s >= 0)) return ar_fail(e, AR_EINVAL, "sim: budget must be >= 0");
    if (s->elem_bytes < 1 || s->elem_bytes > 64) return ar_fail(e, AR_EINVAL, "sim: element size %zu", s->elem_bytes);
    ar_sim_mode m;
    ar_status ds = ar_sim_decide(p, s, o, &m, e);
    if (ds != AR_OK) return ds;
    for (int r = 0; o->rank_delay_s && r < p->nranks; r++)
        if (!(o->rank_delay_s[r] >= 0) || !isfinite(o->rank_delay_s[r]))
            return ar_fail(e, AR_EINVAL, "sim: rank %d's start delay must be finite and >= 0", r);
    for (int i = 0; i < o->nflows; i++) {
        const ar_bgflow *f = &o->flows[i];
        if (f->src < 0 || f->src >= p->nranks || f->dst < 0 || f->dst >= p->nranks || f->src == f->dst)
            return ar_fail(e, AR_EINVAL, "sim: background flow %d: ranks %d -> %d on %d ranks", i, f->src, f->dst,
                           p->nranks);
        if (!(f->start_s >= 0) || !(f->stop_s > f->start_s) || !(f->rate_Bps >= 0) || !(f->bytes >= 0))
            return ar_fail(e, AR_EINVAL, "sim: background flow %d: bad start, stop, rate or bytes", i);
    }
    ar_status cs = ar_schedule_check_structure(s, e);
    if (cs != AR_OK) return cs;
    if (ar_schedule_uses_switch(s)) {
        cs = ar_platform_check_switch_ops(p, s, e);
        if (cs != AR_OK) ar_err_prefix(e, "sim");
    }
    return cs;
}

ar_status ar_sim_decide(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, ar_sim_mode *m, ar_err *e) {
    m->sync = o->sync;
    m->engine = o->engine;
    m->per_rank = 0;
    if (o->engine != AR_SIM_FAST && o->engine != AR_SIM_NAIVE) return ar_fail(e, AR_EINVAL, "sim: unknown engine");
    if (o->sync != AR_SYNC_ROUND && o->sync != AR_SYNC_DATAFLOW) return ar_fail(e, AR_EINVAL, "sim: unknown --sync");
    int events = has_events(o), df = o->sync == AR_SYNC_DATAFLOW;
    double gamma = o->gamma_s_per_B > 0 ? o->gamma_s_per_B : p && p->reduce_Bps > 0 ? 1.0 / p->reduce_Bps : 0;
    if (events && !df)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: scenario delays, flows and jobs run under --sync dataflow only (the lockstep shortcuts "
                       "assume every rank starts together on an idle network)");
    if (events && o->engine != AR_SIM_FAST)
        return ar_fail(e, AR_EUNSUPPORTED, "sim: scenario delays, flows and jobs run on the fast engine only");
    if (p && p->stage_d2h_Bps > 0 && !df)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: host staging copies (platform %s compute.stage) are simulated under --sync dataflow only",
                       p->name);
    if (p && ar_platform_has_msg(p) && !df && o->engine == AR_SIM_NAIVE)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: per-message costs (platform %s compute.message o, g) are simulated by the naive engine "
                       "under --sync dataflow only (the fast engine runs them under --sync round too)",
                       p->name);
    if (p && p->msg_ready && o->engine == AR_SIM_NAIVE && (ar_platform_has_costs(p) || gamma > 0) &&
        !(s && (ar_schedule_uses_proto(s) || ar_schedule_uses_switch(s))))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: ready messages (platform %s compute.message.ready) with compute or per-message costs are "
                       "simulated by the fast engine only (the naive engine's receive sides do not wait for them)",
                       p->name);
    if (p && p->rank_compute && !df)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: a slow-computing straggler (scenario stragglers[].rate) is simulated under --sync "
                       "dataflow only");
    if (o->engine == AR_SIM_NAIVE && (o->check || o->trace_path || (gamma > 0 && !df)))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "sim: the naive engine measures time only (no --check or --trace; a reduction cost (--gamma, "
                       "platform compute.reduce) only under --sync dataflow)");
    if (df && s && ar_schedule_uses_switch(s)) {
        if (events)
            return ar_fail(e, AR_EUNSUPPORTED,
                           "sim: %s uses switch ops, which run lockstep only: scenario delays, flows "
                           "and jobs need the per-rank engine",
                           s->algo);
        if (o->engine == AR_SIM_NAIVE && p && ar_platform_has_msg(p))
            return ar_fail(e, AR_EUNSUPPORTED,
                           "sim: %s uses switch ops, which run lockstep only: per-message costs (platform %s "
                           "compute.message o, g) there need the fast engine",
                           s->algo, p->name);
        m->sync = AR_SYNC_ROUND; /* switch ops (a switch as a transfer's end) run lockstep only for now */
        return AR_OK;
    }
    /* per-message costs alone keep the certified lockstep run: it derives the dataflow run with the
     * sides (sim/fast_dataflow_cert.c), or hands over to the per-rank engine */
    /* ready messages: the certificate knows one step per phase, not a wait per gated transfer */
    int costs = p && (p->launch_s > 0 || p->stage_d2h_Bps > 0 || p->reduce_Bps > 0 || p->msg_ready);
    /* NCCL's protocols send one-sidedly under dataflow (ar_op_async): the lockstep run's certificate
     * (sim/fast_dataflow_cert.c) knows two-sided rounds only, so such a schedule runs per rank */
    int async = ar_schedule_async_ops(s, NULL) > 0;
    m->per_rank = df && o->engine == AR_SIM_FAST && (o->full || o->in_process || events || gamma > 0 || costs || async);
    return AR_OK;
}

void sim_job_ready(const sim_job *j) {
    if (!j->ready_fd || *j->ready_fd < 0) return;
    ssize_t w;
    do w = write(*j->ready_fd, "r", 1);
    while (w < 0 && errno == EINTR);
    *j->ready_fd = -1;
}

static ar_status run_here(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, const netspec *ns,
                          int *ready_fd, ar_sim_result *out, ar_err *e) {
    netspec naive_ns;
    if (o->engine == AR_SIM_NAIVE && (ns->flags & SIM_NET_ARLAB_LATENCY)) {
        /* the naive engine's mailbox comms take their latency from SimGrid's links: the same sharing
         * with the fairbottleneck solver (an independent check of the fast engines' configuration) */
        char spec[600];
        snprintf(spec, sizeof spec, "%s,network/solver:fairbottleneck",
                 o->network && *o->network ? o->network : "CM02");
        ar_status st = parse_net(spec, &naive_ns, e);
        if (st != AR_OK) return st;
        naive_ns.flags |= SIM_NET_NAIVE_OF_ARLAB;
        ns = &naive_ns;
    }
    const char *set[MAX_SETTINGS];
    for (int i = 0; i < ns->n; i++) set[i] = ns->set[i];
    sim_job j =
        {.p = p, .s = s, .o = o, .settings = set, .nsettings = ns->n, .net_flags = ns->flags, .ready_fd = ready_fd};
    snprintf(out->network, sizeof out->network, "%s", ns->desc);
    snprintf(out->sync, sizeof out->sync, "%s", ar_sync_name(o->sync));
    ar_sim_mode m;
    ar_status st = ar_sim_decide(p, s, o, &m, e);
    if (st != AR_OK) return st;
    if (m.engine == AR_SIM_NAIVE) return ar_engine_naive(&j, out, e);
    if (m.per_rank) return ar_engine_dataflow(&j, out, e);
    return ar_engine_fast(&j, out, e);
}

/* ---- the pipe protocol ---- */

typedef struct wire_head {
    int32_t status;
    char msg[AR_ERR_LEN];
    ar_sim_result r; /* pointers meaningless on the wire */
    int32_t has_links;
    int32_t has_bg; /* link_bg_bytes follows the link arrays */
} wire_head;

static int write_all(int fd, const void *buf, size_t n) {
    const char *b = buf;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n) {
    char *b = buf;
    while (n) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static void child(int fd, const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, const netspec *ns) {
    ar_sim_result r;
    memset(&r, 0, sizeof r);
    ar_err e = {{0}};
    int ready = fd; /* the one marker byte comes first: from the engine after its setup, else here */
    ar_status st = run_here(p, s, o, ns, &ready, &r, &e);
    sim_job j0 = {.ready_fd = &ready};
    sim_job_ready(&j0);
    wire_head h;
    memset(&h, 0, sizeof h);
    h.status = (int32_t)st;
    memcpy(h.msg, e.msg, sizeof h.msg);
    h.r = r;
    if (st != AR_OK && st != AR_EFAIL) h.r.nphases = h.r.ndlinks = 0; /* no arrays after an error */
    if (h.r.nphases > 0 && !r.phase_end_s) h.r.nphases = 0;
    h.has_links = h.r.ndlinks > 0 && r.link_bytes && r.link_busy_s && r.link_max_flows;
    h.has_bg = h.has_links && r.link_bg_bytes;
    int bad = write_all(fd, &h, sizeof h);
    if (!bad && h.r.nphases > 0) bad = write_all(fd, r.phase_end_s, (size_t)h.r.nphases * sizeof(double));
    if (!bad && h.has_links)
        bad = write_all(fd, r.link_bytes, (size_t)r.ndlinks * sizeof(double)) ||
              write_all(fd, r.link_busy_s, (size_t)r.ndlinks * sizeof(double)) ||
              write_all(fd, r.link_max_flows, (size_t)r.ndlinks * sizeof(int));
    if (!bad && h.has_bg) bad = write_all(fd, r.link_bg_bytes, (size_t)r.ndlinks * sizeof(double));
    close(fd);
    _exit(bad ? 3 : 0); /* skip SimGrid's exit-time cleanup */
}

/* One simulation in a forked child (the result comes back through a pipe). */
static ar_status run_forked(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *o, const netspec *nsp,
                            ar_sim_result *out, ar_err *e, int *meanwhile_ran) {
    netspec ns = *nsp;
    ar_status st;

    int fd[2];
    if (pipe(fd) != 0) return ar_fail(e, AR_EIO, "sim: pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return ar_fail(e, AR_EIO, "sim: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* dies with its parent; its own process group, so a terminal's Ctrl-C reaches only the
         * parent, which kills it (SimGrid's own SIGINT handler never runs) */
        ar_interrupt_child_setup(1, 1);
        close(fd[0]);
        child(fd[1], p, s, o, &ns);
    }
    ar_interrupt_child_add(pid);
    close(fd[1]);
    /* The child's first byte says its setup is over. --budget counts from there (as the engines' own
     * checks do) and is honoured within 1 s or 10 % even while SimGrid runs one long probe, which
     * the engine's checks between batches cannot interrupt: past the deadline the simulating
     * process is killed and the run reports complete = 0 without a time. */
    char mark = 0;
    int bad = read_all(fd[0], &mark, 1) || mark != 'r';
    double deadline = ar_now_s() + o->budget_s + fmax(1.0, 0.1 * o->budget_s);
    if (o->meanwhile && !*meanwhile_ran) { /* while the child simulates */
        *meanwhile_ran = 1;
        o->meanwhile(o->meanwhile_ctx);
    }
    /* (the naive engine checks its budget at every transfer and stops by itself) */
    if (!bad && o->budget_s > 0 && o->engine != AR_SIM_NAIVE) {
        for (;;) { /* (a result already there after the meanwhile work is taken, late or not) */
            double left = deadline - ar_now_s();
            struct pollfd pf = {.fd = fd[0], .events = POLLIN};
            int rc = poll(&pf, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
            if (rc > 0) break;
            if (rc < 0 && errno == EINTR) continue;
            kill(pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
            ar_interrupt_child_remove(pid);
            close(fd[0]);
            out->time_s = NAN;
            out->complete = 0;
            out->bottleneck = -1;
            snprintf(out->engine, sizeof out->engine, "%s", o->engine == AR_SIM_NAIVE ? "naive" : "fast");
            snprintf(out->sync, sizeof out->sync, "%s", ar_sync_name(o->sync));
            snprintf(out->network, sizeof out->network, "stopped by --budget %g s inside SimGrid (no time)",
                     o->budget_s);
            return AR_OK;
        }
    }
    wire_head h;
    if (!bad) bad = read_all(fd[0], &h, sizeof h);
    ar_sim_result r;
    memset(&r, 0, sizeof r);
    if (!bad) {
        r = h.r;
        r.phase_end_s = r.link_bytes = r.link_busy_s = r.link_bg_bytes = NULL;
        r.link_max_flows = NULL;
        if (r.nphases < 0 || r.nphases > s->nphases || r.ndlinks < 0 || r.ndlinks > 2 * (p->nlinks + p->nvlinks))
            bad = 1;
    }
    if (!bad && r.nphases > 0) {
        r.phase_end_s = ar_calloc((size_t)r.nphases, sizeof(double));
        bad = !r.phase_end_s || read_all(fd[0], r.phase_end_s, (size_t)r.nphases * sizeof(double));
    }
    if (!bad && h.has_links) {
        r.link_bytes = ar_calloc((size_t)r.ndlinks + 1, sizeof(double));
        r.link_busy_s = ar_calloc((size_t)r.ndlinks + 1, sizeof(double));
        r.link_max_flows = ar_calloc((size_t)r.ndlinks + 1, sizeof(int));
        bad = !r.link_bytes || !r.link_busy_s || !r.link_max_flows ||
              read_all(fd[0], r.link_bytes, (size_t)r.ndlinks * sizeof(double)) ||
              read_all(fd[0], r.link_busy_s, (size_t)r.ndlinks * sizeof(double)) ||
              read_all(fd[0], r.link_max_flows, (size_t)r.ndlinks * sizeof(int));
    }
    if (!bad && h.has_links && h.has_bg) {
        r.link_bg_bytes = ar_calloc((size_t)r.ndlinks + 1, sizeof(double));
        bad = !r.link_bg_bytes || read_all(fd[0], r.link_bg_bytes, (size_t)r.ndlinks * sizeof(double));
    }
    close(fd[0]);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {}
    ar_interrupt_child_remove(pid);
    if (bad) {
        ar_sim_result_free(&r);
        if (WIFSIGNALED(wst))
            return ar_fail(e, AR_EBACKEND,
                           "sim: the SimGrid process died (signal %d: %s); run with --format "
                           "table to see SimGrid's message above",
                           WTERMSIG(wst), strsignal(WTERMSIG(wst)));
        return ar_fail(e, AR_EBACKEND, "sim: the SimGrid process ended without a result (exit status %d)",
                       WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    }
    st = (ar_status)h.status;
    if (st != AR_OK && e) memcpy(e->msg, h.msg, sizeof e->msg);
    if (st == AR_OK || st == AR_EFAIL) {
        *out = r;
    } else {
        ar_sim_result_free(&r);
    }
    return st;
}

static ar_status sim_run(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *opts, ar_sim_result *out,
                         ar_err *e, int *meanwhile_ran);

ar_status ar_sim_run(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *opts, ar_sim_result *out,
                     ar_err *e) {
    int ran = 0;
    ar_status st = sim_run(p, s, opts, out, e, &ran);
    if (opts && opts->meanwhile && !ran) opts->meanwhile(opts->meanwhile_ctx); /* no child ran it */
    return st;
}

static ar_status sim_run(const ar_platform *p, const ar_schedule *s, const ar_sim_opts *opts, ar_sim_result *out,
                         ar_err *e, int *meanwhile_ran) {
    memset(out, 0, sizeof *out);
    out->bottleneck = -1;
    ar_sim_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    const ar_sim_opts *o = opts ? opts : &defaults;
    ar_sim_opts eff; /* the platform's reduction rate, unless --gamma overrides it */
    if (!(o->gamma_s_per_B > 0) && p && p->reduce_Bps > 0) {
        eff = *o;
        eff.gamma_s_per_B = 1.0 / p->reduce_Bps;
        o = &eff;
    }
    /* the per-message costs as the walk charges them (ar_platform_msg_for): none under NCCL's protocols,
     * pipelined receives on switch schedules, which run lockstep (ar_sim_decide) */
    ar_platform net;
    p = ar_platform_msg_for(p, s, &net);
    ar_status st = validate(p, s, o, e);
    if (st != AR_OK) return st;
    netspec ns;
    if ((st = parse_net(o->network, &ns, e)) != AR_OK) return st;
    ar_sim_mode m;
    if ((st = ar_sim_decide(p, s, o, &m, e)) != AR_OK) return st;
    ar_sim_opts lock; /* the semantics that runs (switch ops: lockstep; the row says sync=round) */
    if (m.sync != o->sync) {
        lock = *o;
        lock.sync = m.sync;
        o = &lock;
    }
    if (o->in_process) return run_here(p, s, o, &ns, NULL, out, e);
    double t0 = ar_now_s();
    st = run_forked(p, s, o, &ns, out, e, meanwhile_ran);
    if (st != AR_OK || !out->dataflow_differs) return st;
    /* dataflow would have started a transfer earlier than the lockstep run did: run the dataflow
     * engine (every transfer in SimGrid), within what is left of the budget */
    ar_sim_result_free(out);
    memset(out, 0, sizeof *out);
    out->bottleneck = -1;
    ar_sim_opts o2 = *o;
    o2.full = 1;
    if (o2.budget_s > 0) o2.budget_s = fmax(o2.budget_s - (ar_now_s() - t0), 1e-3);
    return run_forked(p, s, &o2, &ns, out, e, meanwhile_ran);
}
