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
 * Ownership: everything is allocated in ar_engine_fast and freed before it
 * returns, except the result's arrays (caller frees with ar_sim_result_free).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bridge.h"
#include "core/data.h"
#include "core/lower.h"
#include "engine.h"

#define TOK_FULL (UINT64_C(1) << 60)
#define TOK_PROBE (UINT64_C(2) << 60)
#define TOK_EXEC (UINT64_C(1) << 59)
#define TOK_INDEX(t) ((t) & ((UINT64_C(1) << 59) - 1))
#define MEMO_LIMIT_BYTES ((size_t)256 << 20)

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int grow(void *pp, size_t *cap, size_t need, size_t elem) {
    void **p = pp;
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *np = ar_reallocarray(*p, c, elem);
    if (!np) return -1;
    *p = np;
    *cap = c;
    return 0;
}

static uint64_t mix64(uint64_t h, uint64_t v) {
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xff51afd7ed558ccd);
    return h ^ (h >> 33);
}

static uint64_t dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- memo: component key -> per-transfer (network, total) durations ---- */

typedef struct memo_ent {
    uint64_t hash;
    size_t key_off, val_off;
    uint32_t key_len; /* 0 = empty slot */
} memo_ent;

typedef struct memo {
    memo_ent *tab;
    size_t cap, n;
    uint64_t *keys;
    size_t nkeys, capkeys;
    double *vals;
    size_t nvals, capvals;
} memo;

static const memo_ent *memo_find(const memo *m, uint64_t h, const uint64_t *key, uint32_t len) {
    if (!m->cap) return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const memo_ent *en = &m->tab[i];
        if (!en->key_len) return NULL;
        if (en->hash == h && en->key_len == len && !memcmp(m->keys + en->key_off, key, len * sizeof *key)) return en;
    }
}

static void memo_clear(memo *m) {
    if (m->tab) memset(m->tab, 0, m->cap * sizeof *m->tab);
    m->n = m->nkeys = m->nvals = 0;
}

static int memo_insert(memo *m, uint64_t h, const uint64_t *key, uint32_t len, const double *vals, size_t nv) {
    if (memo_find(m, h, key, len)) return 0;
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 1024;
        memo_ent *nt = ar_calloc(nc, sizeof *nt);
        if (!nt) return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->tab[i].key_len) {
                size_t j = m->tab[i].hash & (nc - 1);
                while (nt[j].key_len) j = (j + 1) & (nc - 1);
                nt[j] = m->tab[i];
            }
        free(m->tab);
        m->tab = nt;
        m->cap = nc;
    }
    if (grow(&m->keys, &m->capkeys, m->nkeys + len, sizeof *m->keys) < 0) return -1;
    if (grow(&m->vals, &m->capvals, m->nvals + nv, sizeof *m->vals) < 0) return -1;
    memcpy(m->keys + m->nkeys, key, len * sizeof *key);
    memcpy(m->vals + m->nvals, vals, nv * sizeof *vals);
    size_t j = h & (m->cap - 1);
    while (m->tab[j].key_len) j = (j + 1) & (m->cap - 1);
    m->tab[j] = (memo_ent){.hash = h, .key_off = m->nkeys, .val_off = m->nvals, .key_len = len};
    m->nkeys += len;
    m->nvals += nv;
    m->n++;
    return 0;
}

static size_t memo_bytes(const memo *m) {
    return m->nkeys * sizeof *m->keys + m->nvals * sizeof *m->vals + m->cap * sizeof *m->tab;
}

/* ---- engine state ---- */

typedef struct opst {
    const ar_op *op;
    int nrounds, round; /* next round to run */
    int pending;        /* transfers of the current round in flight (SimGrid mode) */
    int ready;          /* on the ready list */
} opst;

typedef struct frec { /* a transfer simulated by SimGrid in the run itself */
    ar_xfer x;
    int opi, round;
    double t0, tnet;
    double *payload;
    int next_free;
} frec;

typedef struct s1rec {
    int slot, src, dst, reduce;
    uint64_t elems;
} s1rec;

enum mode { M_IDLE, M_PROBE, M_FULL, M_DONE };

#define ARR(type, name) type *name; size_t cap_##name

typedef struct eng {
    const ar_platform *p;
    const ar_schedule *s;
    const ar_sim_opts *o;
    ar_sg *sg;
    ar_sim_result *r;
    ar_err *e;
    ar_status st;
    int shortcuts, crosstraffic;
    double gamma, eb;
    int ndl, nres; /* directed links; resources = directed links + one CPU per rank */
    double wall0, budget0; /* start; start of the simulation proper (after the platform) */
    int stopped;

    enum mode mode;
    double off;
    int phase;
    double phase_t0, phase_tmax;
    /* ops of the phase and their groups: ops of group g are gops[goff[g] .. goff[g+1]) */
    ARR(opst, ops);
    int ngroups, group;
    ARR(int, gops);
    ARR(int, goff);
    ARR(int, uf);
    /* per-resource scratch, valid where the stamp matches */
    uint32_t stamp;
    uint32_t *own_stamp, *loc_stamp;
    int *own, *loc_id;

    /* the batch: transfers, op slot of each, ops of the slots */
    size_t n;
    ARR(ar_xfer, x);
    ARR(int, slot);
    int nslots;
    ARR(int, slot_op);
    /* resources of transfer t: res[roff[t] .. roff[t+1]), the first nfwd[t] its route */
    ARR(int, roff);
    ARR(int, nfwd);
    ARR(int, res);
    /* components: transfers corder[cstart[c] .. cstart[c+1]) in batch order */
    ARR(int, fpar);
    ARR(int, corder);
    ARR(int, cstart);
    ARR(int, cidx);
    int ncomp;
    ARR(uint64_t, ckeys);
    size_t nckeys;
    ARR(size_t, ckoff);
    ARR(uint32_t, cklen);
    ARR(uint64_t, chash);
    ARR(const double *, cval);
    ARR(double, dnet);
    ARR(double, dtot);
    ARR(double, opend);
    /* the last analysed batch: same transfers but for their sizes means same
     * routes, components and keys but for the size words (at ksz[t]) */
    int an_valid;
    size_t s1n_an;
    ARR(s1rec, an);
    ARR(size_t, ksz);

    memo memo;

    /* previous shortcut batch (repeat shortcut) */
    int s1_valid;
    ARR(s1rec, s1);
    size_t s1n;
    int s1_nslots;
    ARR(double, s1_opend);
    double s1_tend;
    ARR(double, s1_dnet);
    ARR(double, s1_dtot);
    ARR(int, s1_dl);
    ARR(double, s1_bytes);
    ARR(double, s1_busy);
    ARR(int, s1_cnt);
    size_t s1nd;

    /* per-batch busy scratch */
    double *ebusy;
    int *ecount; /* transfers of the batch crossing each touched link */
    uint32_t *ebusy_stamp;
    ARR(int, touched);
    size_t ntouched;

    /* SimGrid-mode transfers */
    ARR(frec, fr);
    int fr_free;
    size_t inflight;
    ARR(int, readyq);
    size_t nready;
    int *active;
    double *since;

    /* probes: transfers of the distinct unknown components, in key order */
    size_t np;
    ARR(int, p_src);
    ARR(int, p_dst);
    ARR(int, p_red);
    ARR(uint64_t, p_bytes);
    ARR(double, p_net);
    ARR(double, p_tot);
    size_t p_pending;
    double p_t0;
    ARR(int, pmiss); /* component of each distinct unknown key */
    size_t npmiss;
    ARR(size_t, pm_first); /* first probe transfer of each */

    /* data (--check): rank r's buffer is data[r*count ...] */
    double *data;
    ARR(double, stage);

    FILE *trace;
    int trace_first;
    ARR(ar_xfer, scratch);
} eng;

#define GROW(arr, need) grow(&g->arr, &g->cap_##arr, (need), sizeof *g->arr)
#define OOM() ar_fail(g->e, AR_ENOMEM, "sim: out of memory")

static double now_T(const eng *g) { return ar_sg_now() + g->off; }

static void fail(eng *g, ar_status st, const char *msg) {
    if (g->st == AR_OK) {
        g->st = ar_fail(g->e, st, "%s", msg);
        g->mode = M_DONE;
    }
}

static int budget_over(eng *g) {
    if (g->stopped) return 1;
    if (g->o->budget_s > 0 && wall_now() - g->budget0 > g->o->budget_s) g->stopped = 1;
    return g->stopped;
}

/* Resources of transfer (src -> dst, reduce) written to g->res from position
 * `at`; returns their count (the first *nfwd are the route's links) or -1. */
static int flow_resources(eng *g, int src, int dst, int reduce, size_t at, int *nfwd) {
    int n, m;
    if (ar_platform_route_append(g->p, src, dst, &g->res, &g->cap_res, at, &n, NULL) != AR_OK) return -1;
    *nfwd = n;
    if (g->crosstraffic) {
        if (ar_platform_route_append(g->p, dst, src, &g->res, &g->cap_res, at + (size_t)n, &m, NULL) != AR_OK)
            return -1;
        n += m;
    }
    if (g->gamma > 0 && reduce) {
        if (GROW(res, at + (size_t)n + 1) < 0) return -1;
        g->res[at + (size_t)n++] = g->ndl + dst;
    }
    return n;
}

/* ---- data and trace ---- */

static void data_read(const eng *g, const ar_xfer *x, double *dst) {
    const double *b = g->data + (size_t)x->src * g->s->count;
    for (int k = 0; k < x->nseg; k++) {
        memcpy(dst, b + x->off[k], x->len[k] * sizeof *dst);
        dst += x->len[k];
    }
}

static void data_write(const eng *g, const ar_xfer *x, const double *src) {
    double *b = g->data + (size_t)x->dst * g->s->count;
    for (int k = 0; k < x->nseg; k++) {
        if (x->reduce)
            for (uint64_t i = 0; i < x->len[k]; i++) b[x->off[k] + i] += src[i];
        else
            memcpy(b + x->off[k], src, x->len[k] * sizeof *src);
        src += x->len[k];
    }
}

static void trace_event(eng *g, const ar_xfer *x, int opi, int round, double t0, double dur) {
    if (!g->trace) return;
    fprintf(g->trace,
            "%s{\"name\":\"%d->%d\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":0,\"tid\":%d,"
            "\"args\":{\"dst\":%d,\"bytes\":%.0f,\"phase\":%d,\"op\":%d,\"round\":%d}}",
            g->trace_first ? "\n" : ",\n", x->src, x->dst, x->reduce ? "reduce" : "copy", t0 * 1e6, dur * 1e6,
            x->src, x->dst, (double)ar_xfer_elems(x) * g->eb, g->phase, opi, round);
    g->trace_first = 0;
}

/* ---- groups ---- */

static int uf_find(int *uf, int a) {
    while (uf[a] != a) {
        uf[a] = uf[uf[a]];
        a = uf[a];
    }
    return a;
}

static void uf_union(int *uf, int a, int b) {
    a = uf_find(uf, a);
    b = uf_find(uf, b);
    if (a < b) uf[b] = a;
    else if (b < a) uf[a] = b;
}

static uint32_t next_stamp(eng *g) {
    if (++g->stamp == 0) { /* wrapped: reset every stamp */
        memset(g->own_stamp, 0, (size_t)g->nres * sizeof *g->own_stamp);
        memset(g->loc_stamp, 0, (size_t)g->nres * sizeof *g->loc_stamp);
        memset(g->ebusy_stamp, 0, (size_t)g->ndl * sizeof *g->ebusy_stamp);
        g->stamp = 1;
    }
    return g->stamp;
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
    size_t h = (size_t)mix64(0, key) & (k->cap - 1);
    while (k->t[h] && k->t[h] != key) h = (h + 1) & (k->cap - 1);
    if (k->t[h]) return 0;
    k->t[h] = key;
    if (++k->n * 2 > k->cap) {
        size_t nc = k->cap * 2;
        uint64_t *nt = ar_calloc(nc, sizeof *nt);
        if (!nt) return -1;
        for (size_t q = 0; q < k->cap; q++)
            if (k->t[q]) {
                size_t j = (size_t)mix64(0, k->t[q]) & (nc - 1);
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
static ar_status make_groups(eng *g, const ar_phase *ph) {
    int nops = ph->nops;
    if (GROW(uf, (size_t)nops + 1) < 0 || GROW(goff, (size_t)nops + 2) < 0 || GROW(gops, (size_t)nops + 1) < 0 ||
        GROW(cidx, (size_t)nops + 1) < 0)
        return OOM();
    g->an_valid = 0; /* g->res is reused below */
    for (int i = 0; i < nops; i++) g->uf[i] = g->shortcuts ? i : 0; /* no shortcuts: one group */
    if (g->shortcuts && nops > 1) {
        uint32_t st = next_stamp(g);
        kset seen = {0};
        for (int i = 0; i < nops; i++) {
            const ar_op *op = &ph->ops[i];
            int nr = ar_lower_nrounds(op);
            if (GROW(scratch, ar_lower_max_xfers(op)) < 0 || kset_reset(&seen, 4 * (size_t)op->n) < 0) {
                free(seen.t);
                return OOM();
            }
            for (int r = 0; r < nr; r++) {
                size_t k = ar_lower_round(op, r, g->scratch);
                for (size_t t = 0; t < k; t++) {
                    const ar_xfer *x = &g->scratch[t];
                    uint64_t key = (((uint64_t)(uint32_t)x->src << 32 | (uint32_t)x->dst) << 1 | (x->reduce != 0)) + 1;
                    int a = kset_add(&seen, key);
                    if (a < 0) {
                        free(seen.t);
                        return OOM();
                    }
                    if (a == 0) continue;
                    int nf, nres = flow_resources(g, x->src, x->dst, x->reduce, 0, &nf);
                    if (nres < 0) {
                        free(seen.t);
                        return ar_fail(g->e, AR_EINTERNAL, "sim: no route %d->%d", x->src, x->dst);
                    }
                    for (int q = 0; q < nres; q++) {
                        int rs = g->res[q];
                        if (g->own_stamp[rs] == st) {
                            uf_union(g->uf, i, g->own[rs]);
                        } else {
                            g->own_stamp[rs] = st;
                            g->own[rs] = i;
                        }
                    }
                }
            }
        }
        free(seen.t);
    }
    /* groups numbered by their first op; CSR of their ops in op order */
    g->ngroups = 0;
    for (int i = 0; i < nops; i++) {
        int rt = uf_find(g->uf, i);
        if (rt == i) g->cidx[i] = g->ngroups++;
        g->uf[i] = rt;
    }
    memset(g->goff, 0, ((size_t)g->ngroups + 1) * sizeof *g->goff);
    for (int i = 0; i < nops; i++) g->goff[g->cidx[g->uf[i]] + 1]++;
    for (int k = 0; k < g->ngroups; k++) g->goff[k + 1] += g->goff[k];
    for (int i = 0; i < nops; i++) g->gops[g->goff[g->cidx[g->uf[i]]]++] = i;
    for (int k = g->ngroups; k > 0; k--) g->goff[k] = g->goff[k - 1];
    g->goff[0] = 0;
    g->r->groups += g->ngroups;
    return AR_OK;
}

/* ---- the batch ---- */

/* Collects the next non-empty round of every unfinished op of the current
 * group (empty rounds take no time). g->n == 0: the group is finished. */
static ar_status gather(eng *g) {
    g->n = 0;
    g->nslots = 0;
    for (int k = g->goff[g->group]; k < g->goff[g->group + 1]; k++) {
        int i = g->gops[k];
        opst *os = &g->ops[i];
        while (os->round < os->nrounds) {
            size_t mx = ar_lower_max_xfers(os->op);
            if (GROW(x, g->n + mx) < 0 || GROW(slot, g->n + mx) < 0) return OOM();
            size_t c = ar_lower_round(os->op, os->round, g->x + g->n);
            if (c > mx) return ar_fail(g->e, AR_EINTERNAL, "sim: lowering overflow in op %d", i);
            if (c == 0) {
                os->round++;
                continue;
            }
            if (GROW(slot_op, (size_t)g->nslots + 1) < 0) return OOM();
            for (size_t t = 0; t < c; t++) g->slot[g->n + t] = g->nslots;
            g->slot_op[g->nslots++] = i;
            g->n += c;
            break;
        }
    }
    return AR_OK;
}

/* Repeat shortcut: does the batch equal the saved one? */
static int s1_match(const eng *g) {
    if (!g->s1_valid || g->s1n != g->n || g->s1_nslots != g->nslots) return 0;
    for (size_t t = 0; t < g->n; t++) {
        const ar_xfer *x = &g->x[t];
        const s1rec *q = &g->s1[t];
        if (q->slot != g->slot[t] || q->src != x->src || q->dst != x->dst || q->reduce != x->reduce ||
            q->elems != ar_xfer_elems(x))
            return 0;
    }
    return 1;
}

/* Closed: no op with rounds left ends its round before the batch's end. */
static int closed(const eng *g, const double *opend, double tend) {
    for (int k = 0; k < g->nslots; k++) {
        const opst *os = &g->ops[g->slot_op[k]];
        if (os->round + 1 < os->nrounds && opend[k] != tend) return 0;
    }
    return 1;
}

/* Link statistics of the batch (routes in g->res): bytes to link_bytes, the
 * longest network time per link to ebusy over the touched links. */
static ar_status batch_links(eng *g, const double *dnet) {
    uint32_t st = next_stamp(g);
    g->ntouched = 0;
    for (size_t t = 0; t < g->n; t++) {
        double bytes = (double)ar_xfer_elems(&g->x[t]) * g->eb;
        for (int q = g->roff[t]; q < g->roff[t] + g->nfwd[t]; q++) {
            int d = g->res[q];
            if (g->ebusy_stamp[d] != st) {
                g->ebusy_stamp[d] = st;
                g->ebusy[d] = 0;
                g->ecount[d] = 0;
                if (GROW(touched, g->ntouched + 1) < 0) return OOM();
                g->touched[g->ntouched++] = d;
            }
            if (dnet[t] > g->ebusy[d]) g->ebusy[d] = dnet[t];
            g->ecount[d]++;
            g->r->link_bytes[d] += bytes;
        }
    }
    for (size_t k = 0; k < g->ntouched; k++) {
        int d = g->touched[k];
        g->r->link_busy_s[d] += g->ebusy[d];
        if (g->ecount[d] > g->r->link_max_flows[d]) g->r->link_max_flows[d] = g->ecount[d];
    }
    return AR_OK;
}

/* Applies a closed batch of known durations starting now. repeat: the link
 * statistics are the saved batch's. */
static ar_status apply_batch(eng *g, const double *dnet, const double *dtot, double tend, int repeat) {
    double T0 = now_T(g);
    ar_sim_result *r = g->r;
    if (repeat) {
        for (size_t k = 0; k < g->s1nd; k++) {
            int d = g->s1_dl[k];
            r->link_bytes[d] += g->s1_bytes[k];
            r->link_busy_s[d] += g->s1_busy[k];
            if (g->s1_cnt[k] > r->link_max_flows[d]) r->link_max_flows[d] = g->s1_cnt[k];
        }
    } else {
        ar_status st = batch_links(g, dnet);
        if (st != AR_OK) return st;
    }
    if (g->data) { /* every transfer reads at the start, writes at its end */
        size_t tot = 0;
        for (size_t t = 0; t < g->n; t++) tot += ar_xfer_elems(&g->x[t]);
        if (GROW(stage, tot + 1) < 0) return OOM();
        size_t k = 0;
        for (size_t t = 0; t < g->n; t++) {
            data_read(g, &g->x[t], g->stage + k);
            k += ar_xfer_elems(&g->x[t]);
        }
        k = 0;
        for (size_t t = 0; t < g->n; t++) {
            data_write(g, &g->x[t], g->stage + k);
            k += ar_xfer_elems(&g->x[t]);
        }
    }
    if (g->trace)
        for (size_t t = 0; t < g->n; t++) {
            int opi = g->slot_op[g->slot[t]];
            trace_event(g, &g->x[t], opi, g->ops[opi].round, T0, dtot[t]);
        }
    for (size_t t = 0; t < g->n; t++) r->bytes += (double)ar_xfer_elems(&g->x[t]) * g->eb;
    r->transfers += g->n;
    for (int k = 0; k < g->nslots; k++) g->ops[g->slot_op[k]].round++;
    g->off += tend;
    return AR_OK;
}

/* Saves the batch just applied by apply_batch(repeat = 0) for the repeat
 * shortcut (batch_links left the touched links and their busy times). */
static ar_status s1_save(eng *g, double tend) {
    size_t n = g->n, nd = g->ntouched;
    if (GROW(s1, n) < 0 || GROW(s1_opend, (size_t)g->nslots) < 0 || GROW(s1_dnet, n) < 0 || GROW(s1_dtot, n) < 0 ||
        GROW(s1_dl, nd) < 0 || GROW(s1_bytes, nd) < 0 || GROW(s1_busy, nd) < 0 || GROW(s1_cnt, nd) < 0)
        return OOM();
    for (size_t t = 0; t < n; t++) {
        const ar_xfer *x = &g->x[t];
        g->s1[t] = (s1rec){.slot = g->slot[t], .src = x->src, .dst = x->dst, .reduce = x->reduce,
                           .elems = ar_xfer_elems(x)};
        g->s1_dnet[t] = g->dnet[t];
        g->s1_dtot[t] = g->dtot[t];
    }
    memcpy(g->s1_opend, g->opend, (size_t)g->nslots * sizeof *g->opend);
    g->s1n = n;
    g->s1_nslots = g->nslots;
    g->s1_tend = tend;
    for (size_t k = 0; k < nd; k++) {
        int d = g->touched[k];
        g->s1_dl[k] = d;
        g->s1_busy[k] = g->ebusy[d];
        g->s1_cnt[k] = g->ecount[d];
        g->s1_bytes[k] = 0;
        g->own[d] = (int)k; /* position of each touched link (own[] is free scratch here) */
    }
    for (size_t t = 0; t < n; t++) {
        double bytes = (double)ar_xfer_elems(&g->x[t]) * g->eb;
        for (int q = g->roff[t]; q < g->roff[t] + g->nfwd[t]; q++) g->s1_bytes[g->own[g->res[q]]] += bytes;
    }
    g->s1nd = nd;
    g->s1_valid = 1;
    return AR_OK;
}

/* Routes, components and keys of the batch; looks every key up and lists in
 * g->pmiss one component per distinct unknown key. */
static ar_status lookup_keys(eng *g);

/* Same transfers as the last analysed batch, sizes aside? */
static int same_pairs(const eng *g) {
    if (!g->an_valid || g->n != g->s1n_an) return 0;
    for (size_t t = 0; t < g->n; t++) {
        const ar_xfer *x = &g->x[t];
        const s1rec *q = &g->an[t];
        if (q->slot != g->slot[t] || q->src != x->src || q->dst != x->dst || q->reduce != x->reduce) return 0;
    }
    return 1;
}

static ar_status analyse(eng *g) {
    size_t n = g->n;
    if (same_pairs(g)) { /* only the size words of the keys change */
        for (size_t t = 0; t < n; t++) g->ckeys[g->ksz[t]] = ar_xfer_elems(&g->x[t]);
        return lookup_keys(g);
    }
    g->an_valid = 0;
    if (GROW(an, n + 1) < 0 || GROW(ksz, n + 1) < 0) return OOM();
    if (GROW(roff, n + 1) < 0 || GROW(nfwd, n + 1) < 0 || GROW(fpar, n + 1) < 0 || GROW(corder, n + 1) < 0 ||
        GROW(cidx, n + 1) < 0)
        return OOM();
    uint32_t st = next_stamp(g);
    size_t used = 0;
    for (size_t t = 0; t < n; t++) {
        g->roff[t] = (int)used;
        g->fpar[t] = (int)t;
        int nf, k = flow_resources(g, g->x[t].src, g->x[t].dst, g->x[t].reduce, used, &nf);
        if (k < 0) return ar_fail(g->e, AR_EINTERNAL, "sim: no route %d->%d", g->x[t].src, g->x[t].dst);
        g->nfwd[t] = nf;
        for (int q = 0; q < k; q++) {
            int rs = g->res[used + (size_t)q];
            if (g->own_stamp[rs] == st) {
                uf_union(g->fpar, (int)t, g->own[rs]);
            } else {
                g->own_stamp[rs] = st;
                g->own[rs] = (int)t;
            }
        }
        used += (size_t)k;
    }
    g->roff[n] = (int)used;
    /* components numbered by their first transfer; counting sort keeps batch order */
    g->ncomp = 0;
    for (size_t t = 0; t < n; t++) {
        int rt = uf_find(g->fpar, (int)t);
        g->fpar[t] = rt;
        if (rt == (int)t) g->cidx[t] = g->ncomp++;
    }
    size_t nc = (size_t)g->ncomp;
    if (GROW(cstart, nc + 2) < 0 || GROW(ckoff, nc + 1) < 0 || GROW(cklen, nc + 1) < 0 || GROW(chash, nc + 1) < 0 ||
        GROW(cval, nc + 1) < 0)
        return OOM();
    memset(g->cstart, 0, (nc + 2) * sizeof *g->cstart);
    for (size_t t = 0; t < n; t++) g->cstart[g->cidx[g->fpar[t]] + 2]++;
    for (size_t c = 0; c < nc; c++) g->cstart[c + 2] += g->cstart[c + 1];
    for (size_t t = 0; t < n; t++) g->corder[g->cstart[g->cidx[g->fpar[t]] + 1]++] = (int)t;
    /* now cstart[c] .. cstart[c+1] delimit component c */
    g->nckeys = 0;
    for (size_t c = 0; c < nc; c++) {
        uint32_t ls = next_stamp(g);
        int m = g->cstart[c + 1] - g->cstart[c];
        size_t start = g->nckeys, need = g->nckeys + 1;
        for (int k = g->cstart[c]; k < g->cstart[c + 1]; k++) {
            int t = g->corder[k];
            need += 2 + 3 * (size_t)(g->roff[t + 1] - g->roff[t]);
        }
        if (GROW(ckeys, need) < 0) return OOM();
        uint64_t *K = g->ckeys;
        size_t w = start;
        K[w++] = (uint64_t)m;
        int nloc = 0;
        for (int k = g->cstart[c]; k < g->cstart[c + 1]; k++) {
            int t = g->corder[k];
            int nr = g->roff[t + 1] - g->roff[t];
            g->ksz[t] = w;
            K[w++] = ar_xfer_elems(&g->x[t]);
            K[w++] = (uint64_t)(g->x[t].reduce != 0) | (uint64_t)g->nfwd[t] << 1 | (uint64_t)nr << 24;
            for (int q = g->roff[t]; q < g->roff[t + 1]; q++) {
                int rs = g->res[q];
                if (g->loc_stamp[rs] == ls) {
                    K[w++] = (uint64_t)g->loc_id[rs] << 1;
                    continue;
                }
                /* first appearance: local id, then the resource's label */
                g->loc_stamp[rs] = ls;
                g->loc_id[rs] = nloc++;
                if (rs < g->ndl) {
                    const ar_link *l = &g->p->links[AR_DLINK_LINK(rs)];
                    K[w++] = (uint64_t)g->loc_id[rs] << 1;
                    K[w++] = dbits(ar_link_capacity(l));
                    K[w++] = dbits(l->lat_s);
                } else { /* a GPU's compute (all GPUs have the same speed) */
                    K[w++] = (uint64_t)g->loc_id[rs] << 1 | 1;
                    K[w++] = ~UINT64_C(0);
                    K[w++] = ~UINT64_C(0);
                }
            }
        }
        g->ckoff[c] = start;
        g->cklen[c] = (uint32_t)(w - start);
        g->nckeys = w;
    }
    for (size_t t = 0; t < n; t++)
        g->an[t] = (s1rec){.slot = g->slot[t], .src = g->x[t].src, .dst = g->x[t].dst, .reduce = g->x[t].reduce};
    g->s1n_an = n;
    g->an_valid = 1;
    return lookup_keys(g);
}

/* Hashes every component's key and looks it up; lists in g->pmiss one
 * component per distinct unknown key. */
static ar_status lookup_keys(eng *g) {
    const uint64_t *K = g->ckeys;
    g->npmiss = 0;
    for (int c = 0; c < g->ncomp; c++) {
        size_t start = g->ckoff[c];
        uint32_t len = g->cklen[c];
        uint64_t h = UINT64_C(1469598103934665603);
        for (size_t q = start; q < start + len; q++) h = mix64(h, K[q]);
        g->chash[c] = h;
        const memo_ent *en = memo_find(&g->memo, h, K + start, len);
        g->cval[c] = en ? g->memo.vals + en->val_off : NULL;
        if (en) continue;
        int dup = 0;
        for (size_t q = 0; q < g->npmiss && !dup; q++) {
            size_t c0 = (size_t)g->pmiss[q];
            dup = g->chash[c0] == h && g->cklen[c0] == len && !memcmp(K + g->ckoff[c0], K + start, len * sizeof *K);
        }
        if (!dup) {
            if (GROW(pmiss, g->npmiss + 1) < 0) return OOM();
            g->pmiss[g->npmiss++] = c;
        }
    }
    return AR_OK;
}

/* Durations of every transfer from the memo, each op's end; *tend the last. */
static ar_status outcome(eng *g, double *tend) {
    size_t n = g->n;
    if (GROW(dnet, n) < 0 || GROW(dtot, n) < 0 || GROW(opend, (size_t)g->nslots + 1) < 0) return OOM();
    for (int k = 0; k < g->nslots; k++) g->opend[k] = 0;
    double te = 0;
    for (int c = 0; c < g->ncomp; c++) {
        const double *v = g->cval[c];
        if (!v) return ar_fail(g->e, AR_EINTERNAL, "sim: component %d has no durations", c);
        for (int k = g->cstart[c]; k < g->cstart[c + 1]; k++) {
            int t = g->corder[k], j = k - g->cstart[c], sl = g->slot[t];
            g->dnet[t] = v[2 * j];
            g->dtot[t] = v[2 * j + 1];
            if (g->dtot[t] > g->opend[sl]) g->opend[sl] = g->dtot[t];
            if (g->dtot[t] > te) te = g->dtot[t];
        }
    }
    *tend = te;
    return AR_OK;
}

/* ---- transfers simulated by SimGrid in the run itself ---- */

static void full_start_xfer(eng *g, const ar_xfer *x, int opi, int round) {
    if (g->fr_free < 0) {
        size_t old = g->cap_fr;
        if (GROW(fr, old + 1) < 0) {
            fail(g, AR_ENOMEM, "sim: out of memory");
            return;
        }
        for (size_t i = g->cap_fr; i > old; i--) {
            g->fr[i - 1].payload = NULL;
            g->fr[i - 1].next_free = g->fr_free;
            g->fr_free = (int)(i - 1);
        }
    }
    int id = g->fr_free;
    frec *f = &g->fr[id];
    g->fr_free = f->next_free;
    f->x = *x;
    f->opi = opi;
    f->round = round;
    f->t0 = now_T(g);
    f->payload = NULL;
    uint64_t elems = ar_xfer_elems(x);
    if (g->data) {
        f->payload = ar_reallocarray(NULL, elems, sizeof *f->payload);
        if (!f->payload) {
            fail(g, AR_ENOMEM, "sim --check: out of memory for payloads");
            return;
        }
        data_read(g, x, f->payload);
    }
    int nf;
    g->an_valid = 0; /* g->res is reused */
    if (flow_resources(g, x->src, x->dst, 0, 0, &nf) < 0) {
        fail(g, AR_EINTERNAL, "sim: no route");
        return;
    }
    for (int q = 0; q < nf; q++) {
        int d = g->res[q];
        if (g->active[d]++ == 0) g->since[d] = f->t0;
        if (g->active[d] > g->r->link_max_flows[d]) g->r->link_max_flows[d] = g->active[d];
        g->r->link_bytes[d] += (double)elems * g->eb;
    }
    g->inflight++;
    g->r->transfers_simgrid++;
    ar_sg_comm(g->sg, x->src, x->dst, elems * (uint64_t)g->eb, TOK_FULL | (uint64_t)id);
}

/* Starts op i's next non-empty round now; returns 1 if one was started. */
static int full_start_round(eng *g, int i) {
    opst *os = &g->ops[i];
    while (os->round < os->nrounds) {
        if (GROW(scratch, ar_lower_max_xfers(os->op)) < 0) {
            fail(g, AR_ENOMEM, "sim: out of memory");
            return 0;
        }
        size_t c = ar_lower_round(os->op, os->round, g->scratch);
        if (c == 0) {
            os->round++;
            continue;
        }
        os->pending = (int)c;
        for (size_t t = 0; t < c && g->st == AR_OK; t++) full_start_xfer(g, &g->scratch[t], i, os->round);
        return 1;
    }
    return 0;
}

static void full_finish(eng *g, int id) {
    frec *f = &g->fr[id];
    double T = now_T(g);
    if (f->payload) data_write(g, &f->x, f->payload);
    free(f->payload);
    f->payload = NULL;
    trace_event(g, &f->x, f->opi, f->round, f->t0, T - f->t0);
    g->r->transfers++;
    g->r->bytes += (double)ar_xfer_elems(&f->x) * g->eb;
    g->inflight--;
    opst *os = &g->ops[f->opi];
    if (--os->pending == 0) {
        os->round++;
        if (!os->ready) {
            if (GROW(readyq, g->nready + 1) < 0) {
                fail(g, AR_ENOMEM, "sim: out of memory");
                return;
            }
            os->ready = 1;
            g->readyq[g->nready++] = f->opi;
        }
    }
    f->next_free = g->fr_free;
    g->fr_free = id;
}

static void full_net_done(eng *g, int id) {
    frec *f = &g->fr[id];
    double T = now_T(g);
    f->tnet = T;
    int nf;
    g->an_valid = 0; /* g->res is reused */
    if (flow_resources(g, f->x.src, f->x.dst, 0, 0, &nf) >= 0)
        for (int q = 0; q < nf; q++) {
            int d = g->res[q];
            if (--g->active[d] == 0) g->r->link_busy_s[d] += T - g->since[d];
        }
    if (g->gamma > 0 && f->x.reduce) {
        ar_sg_exec(g->sg, f->x.dst, g->gamma * (double)ar_xfer_elems(&f->x) * g->eb, TOK_FULL | TOK_EXEC | (uint64_t)id);
        return;
    }
    full_finish(g, id);
}

/* ---- probes ---- */

static ar_status probe_start(eng *g) {
    g->np = 0;
    if (GROW(pm_first, g->npmiss + 1) < 0) return OOM();
    for (size_t q = 0; q < g->npmiss; q++) {
        int c = g->pmiss[q];
        g->pm_first[q] = g->np;
        size_t need = g->np + (size_t)(g->cstart[c + 1] - g->cstart[c]);
        if (GROW(p_src, need) < 0 || GROW(p_dst, need) < 0 || GROW(p_red, need) < 0 || GROW(p_bytes, need) < 0 ||
            GROW(p_net, need) < 0 || GROW(p_tot, need) < 0)
            return OOM();
        for (int k = g->cstart[c]; k < g->cstart[c + 1]; k++) {
            const ar_xfer *x = &g->x[g->corder[k]];
            g->p_src[g->np] = x->src;
            g->p_dst[g->np] = x->dst;
            g->p_red[g->np] = x->reduce;
            g->p_bytes[g->np] = ar_xfer_elems(x) * (uint64_t)g->eb;
            g->np++;
        }
    }
    g->pm_first[g->npmiss] = g->np;
    g->p_t0 = ar_sg_now();
    g->p_pending = g->np;
    g->r->probes += g->npmiss;
    g->r->probe_transfers += g->np;
    g->mode = M_PROBE;
    for (size_t i = 0; i < g->np; i++) ar_sg_comm(g->sg, g->p_src[i], g->p_dst[i], g->p_bytes[i], TOK_PROBE | i);
    return AR_OK;
}

/* Remembers the probed components and points the batch at their durations. */
static ar_status probe_finish(eng *g) {
    size_t tot = 0;
    for (size_t q = 0; q < g->npmiss; q++)
        tot += g->cklen[g->pmiss[q]] * sizeof(uint64_t) + 2 * (g->pm_first[q + 1] - g->pm_first[q]) * sizeof(double);
    if (memo_bytes(&g->memo) + tot > MEMO_LIMIT_BYTES) memo_clear(&g->memo);
    for (size_t q = 0; q < g->npmiss; q++) {
        int c = g->pmiss[q];
        size_t m = g->pm_first[q + 1] - g->pm_first[q];
        if (GROW(stage, 2 * m) < 0) return OOM();
        for (size_t j = 0; j < m; j++) {
            g->stage[2 * j] = g->p_net[g->pm_first[q] + j];
            g->stage[2 * j + 1] = g->p_tot[g->pm_first[q] + j];
        }
        if (memo_insert(&g->memo, g->chash[c], g->ckeys + g->ckoff[c], g->cklen[c], g->stage, 2 * m) < 0) return OOM();
    }
    /* every component of the batch is known now (the memo may have moved) */
    for (int c = 0; c < g->ncomp; c++) {
        const memo_ent *en = memo_find(&g->memo, g->chash[c], g->ckeys + g->ckoff[c], g->cklen[c]);
        if (!en) return ar_fail(g->e, AR_EINTERNAL, "sim: component %d unknown after its probe", c);
        g->cval[c] = g->memo.vals + en->val_off;
    }
    g->off -= ar_sg_now() - g->p_t0; /* the probe takes no arlab time */
    return AR_OK;
}

/* ---- the driver ---- */

static ar_status phase_begin(eng *g) {
    const ar_phase *ph = &g->s->phases[g->phase];
    if (GROW(ops, (size_t)ph->nops + 1) < 0) return OOM();
    for (int i = 0; i < ph->nops; i++) g->ops[i] = (opst){.op = &ph->ops[i], .nrounds = ar_lower_nrounds(&ph->ops[i])};
    ar_status st = make_groups(g, ph);
    if (st != AR_OK) return st;
    g->group = 0;
    g->phase_t0 = now_T(g);
    g->phase_tmax = g->phase_t0;
    return AR_OK;
}

/* The batch in g->x is analysed (components known): shortcut it if it is
 * closed, else hand it to SimGrid. */
static ar_status decide(eng *g, int *handed) {
    double tend = 0;
    ar_status st = outcome(g, &tend);
    if (st != AR_OK) return st;
    *handed = 0;
    if (closed(g, g->opend, tend)) {
        if ((st = apply_batch(g, g->dnet, g->dtot, tend, 0)) != AR_OK || (st = s1_save(g, tend)) != AR_OK) return st;
        g->r->epochs_memo++;
        return AR_OK;
    }
    g->s1_valid = 0;
    *handed = 1;
    return AR_OK;
}

static void hand_to_simgrid(eng *g) {
    g->r->epochs_simgrid++;
    g->mode = M_FULL;
    g->nready = 0;
    for (int k = 0; k < g->nslots; k++) g->ops[g->slot_op[k]].pending = 0;
    for (size_t t = 0; t < g->n; t++) g->ops[g->slot_op[g->slot[t]]].pending++;
    for (size_t t = 0; t < g->n && g->st == AR_OK; t++) {
        int opi = g->slot_op[g->slot[t]];
        full_start_xfer(g, &g->x[t], opi, g->ops[opi].round);
    }
}

/* Runs from an idle instant until SimGrid has work or the schedule is done. */
static void drive(eng *g) {
    g->mode = M_IDLE;
    while (g->st == AR_OK) {
        if (g->phase >= g->s->nphases || budget_over(g)) {
            g->mode = M_DONE;
            return;
        }
        ar_status st = gather(g);
        if (st != AR_OK) {
            g->st = st;
            break;
        }
        if (g->n == 0) { /* the group is finished */
            double T = now_T(g);
            if (T > g->phase_tmax) g->phase_tmax = T;
            if (++g->group < g->ngroups) {
                g->off = g->phase_t0 - ar_sg_now();
                continue;
            }
            g->r->phase_end_s[g->phase] = g->phase_tmax;
            g->off = g->phase_tmax - ar_sg_now();
            if (++g->phase < g->s->nphases && (st = phase_begin(g)) != AR_OK) {
                g->st = st;
                break;
            }
            continue;
        }
        g->r->epochs++;
        if (g->shortcuts) {
            if (s1_match(g) && closed(g, g->s1_opend, g->s1_tend)) {
                if ((st = apply_batch(g, g->s1_dnet, g->s1_dtot, g->s1_tend, 1)) != AR_OK) {
                    g->st = st;
                    break;
                }
                g->r->epochs_repeat++;
                continue;
            }
            if ((st = analyse(g)) != AR_OK) {
                g->st = st;
                break;
            }
            if (g->npmiss > 0) { /* learn the unknown components, then decide */
                if ((st = probe_start(g)) != AR_OK) g->st = st;
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
    if ((tok >> 60) == 2) { /* probe */
        double d = ar_sg_now() - g->p_t0;
        if (!(tok & TOK_EXEC)) {
            g->p_net[i] = d;
            if (g->gamma > 0 && g->p_red[i]) {
                ar_sg_exec(g->sg, g->p_dst[i], g->gamma * (double)g->p_bytes[i], TOK_PROBE | TOK_EXEC | i);
                return;
            }
        }
        g->p_tot[i] = d;
        g->p_pending--;
        return;
    }
    if (tok & TOK_EXEC) full_finish(g, (int)i);
    else full_net_done(g, (int)i);
}

static void hook_step(void *ctx) {
    eng *g = ctx;
    if (g->st != AR_OK) return;
    if (g->mode == M_PROBE) {
        if (g->p_pending > 0) return;
        ar_status st = probe_finish(g);
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
    size_t nr = g->nready;
    g->nready = 0;
    for (size_t k = 0; k < nr; k++) g->ops[g->readyq[k]].ready = 0;
    if (g->inflight == 0) { /* idle: back to the shortcuts */
        drive(g);
        return;
    }
    if (budget_over(g)) return; /* let the transfers in flight drain */
    for (size_t k = 0; k < nr && g->st == AR_OK; k++) full_start_round(g, g->readyq[k]);
    if (g->inflight == 0 && g->st == AR_OK) drive(g);
}

static long peak_rss_kb(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss;
}

static void eng_free(eng *g) {
    void *arrs[] = {g->ops, g->gops, g->goff, g->uf, g->own_stamp, g->loc_stamp, g->own, g->loc_id, g->x,
                    g->slot, g->slot_op, g->roff, g->nfwd, g->res, g->fpar, g->corder, g->cstart, g->cidx,
                    g->ckeys, g->ckoff, g->cklen, g->chash, (void *)g->cval, g->dnet, g->dtot, g->opend,
                    g->memo.tab, g->memo.keys, g->memo.vals, g->s1, g->s1_opend, g->s1_dnet, g->s1_dtot,
                    g->s1_dl, g->s1_bytes, g->s1_busy, g->s1_cnt, g->ebusy, g->ecount, g->ebusy_stamp, g->touched, g->readyq,
                    g->active, g->since, g->p_src, g->p_dst, g->p_red, g->p_bytes, g->p_net, g->p_tot,
                    g->pmiss, g->pm_first, g->data, g->stage, g->scratch, g->an, g->ksz};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
    if (g->fr)
        for (size_t i = 0; i < g->cap_fr; i++) free(g->fr[i].payload);
    free(g->fr);
}

/* 1 if a > b beyond rounding (sums taken in another order may differ in the last bits). */
static int clearly_more(double a, double b) { return a > b + 1e-9 * fabs(b); }

static void pick_bottleneck(const ar_platform *p, ar_sim_result *r) {
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

static ar_status open_trace(eng *g, const char *path, ar_err *e) {
    g->trace = fopen(path, "w");
    if (!g->trace) return ar_fail(e, AR_EIO, "sim --trace: cannot write \"%s\"", path);
    fprintf(g->trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    g->trace_first = 1;
    for (int rk = 0; rk < g->p->nranks; rk++) {
        fprintf(g->trace, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}",
                g->trace_first ? "\n" : ",\n", rk, rk);
        g->trace_first = 0;
    }
    return AR_OK;
}

ar_status ar_engine_fast(const sim_job *j, ar_sim_result *r, ar_err *e) {
    eng G, *g = &G;
    memset(g, 0, sizeof *g);
    g->p = j->p;
    g->s = j->s;
    g->o = j->o;
    g->r = r;
    g->e = e;
    g->wall0 = wall_now();
    g->shortcuts = !j->o->full && !(j->net_flags & SIM_NET_NOT_LOCAL);
    g->crosstraffic = (j->net_flags & SIM_NET_CROSSTRAFFIC) != 0;
    g->gamma = j->o->gamma_s_per_B;
    g->eb = (double)j->s->elem_bytes;
    g->ndl = 2 * j->p->nlinks;
    g->nres = g->ndl + j->p->nranks;
    g->fr_free = -1;
    snprintf(r->engine, sizeof r->engine, "fast");
    r->nphases = j->s->nphases;
    r->ndlinks = g->ndl;
    r->bottleneck = -1;
    r->complete = 1;
    r->phase_end_s = ar_calloc((size_t)j->s->nphases + 1, sizeof *r->phase_end_s);
    r->link_bytes = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_bytes);
    r->link_busy_s = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_busy_s);
    r->link_max_flows = ar_calloc((size_t)g->ndl + 1, sizeof *r->link_max_flows);
    g->ecount = ar_calloc((size_t)g->ndl + 1, sizeof *g->ecount);
    g->own_stamp = ar_calloc((size_t)g->nres, sizeof *g->own_stamp);
    g->loc_stamp = ar_calloc((size_t)g->nres, sizeof *g->loc_stamp);
    g->own = ar_calloc((size_t)g->nres, sizeof *g->own);
    g->loc_id = ar_calloc((size_t)g->nres, sizeof *g->loc_id);
    g->ebusy = ar_calloc((size_t)g->ndl + 1, sizeof *g->ebusy);
    g->ebusy_stamp = ar_calloc((size_t)g->ndl + 1, sizeof *g->ebusy_stamp);
    g->active = ar_calloc((size_t)g->ndl + 1, sizeof *g->active);
    g->since = ar_calloc((size_t)g->ndl + 1, sizeof *g->since);
    if (!r->phase_end_s || !r->link_bytes || !r->link_busy_s || !r->link_max_flows || !g->ecount || !g->own_stamp || !g->loc_stamp || !g->own ||
        !g->loc_id || !g->ebusy || !g->ebusy_stamp || !g->active || !g->since) {
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
        g->data = ar_reallocarray(NULL, (size_t)j->s->nranks * (size_t)j->s->count, sizeof *g->data);
        if (!g->data) {
            eng_free(g);
            return ar_fail(e, AR_ENOMEM, "sim --check: out of memory");
        }
        for (int rk = 0; rk < j->s->nranks; rk++) ar_data_fill(g->data + (size_t)rk * j->s->count, rk, j->s->count);
    }
    ar_status st = AR_OK;
    if (j->o->trace_path && (st = open_trace(g, j->o->trace_path, e)) != AR_OK) {
        eng_free(g);
        return st;
    }
    double t_setup = wall_now();
    ar_sg_hooks hooks = {.ctx = g, .done = hook_done, .step = hook_step};
    st = ar_sg_open(j->p, j->settings, j->nsettings, &hooks, &g->sg, e);
    r->setup_s = wall_now() - t_setup;
    g->budget0 = wall_now();
    if (st == AR_OK && j->s->nphases > 0) st = phase_begin(g);
    if (st == AR_OK) {
        drive(g);
        if (g->mode != M_DONE) ar_sg_run(g->sg);
        st = g->st;
        if (st == AR_OK && g->mode != M_DONE && !g->stopped)
            st = ar_fail(e, AR_EINTERNAL, "sim: SimGrid stopped before the schedule finished (phase %d)", g->phase);
    }
    if (st == AR_OK) {
        r->complete = !g->stopped;
        r->time_s = g->stopped ? now_T(g) : (j->s->nphases ? r->phase_end_s[j->s->nphases - 1] : 0);
        for (int rk = 0; g->data && r->complete && rk < j->s->nranks && st == AR_OK; rk++) {
            const double *b = g->data + (size_t)rk * j->s->count;
            uint64_t x = ar_data_first_wrong(b, j->s->nranks, j->s->count);
            if (x < j->s->count)
                st = ar_fail(e, AR_EFAIL, "sim --check: %s: rank %d element %llu holds %.17g, exact sum is %.17g",
                             j->s->algo, rk, (unsigned long long)x, b[x], ar_data_expected(j->s->nranks, x));
        }
        pick_bottleneck(j->p, r);
    }
    if (g->trace) {
        fprintf(g->trace, "\n]}\n");
        if (fclose(g->trace) != 0 && (st == AR_OK || st == AR_EFAIL))
            st = ar_fail(e, AR_EIO, "sim --trace: error writing \"%s\"", j->o->trace_path);
        g->trace = NULL;
    }
    ar_sg_close(g->sg);
    eng_free(g);
    r->wall_s = wall_now() - g->wall0;
    r->peak_rss_kb = peak_rss_kb();
    return st;
}
