/* Op mapping, communicator groups and per-rank NCCL programs (rplan.h).
 * Pure C: no CUDA or NCCL header. */
#include <stdlib.h>
#include <string.h>

#include "core/lower.h"
#include "core/util.h"
#include "rplan.h"

/* ---- names ---------------------------------------------------------------- */

ar_status ar_real_lowering_parse(const char *s, ar_real_lowering *out, ar_err *e) {
    char q[96];
    if (s && !strcmp(s, "auto")) *out = AR_REAL_LOWER_AUTO;
    else if (s && !strcmp(s, "p2p")) *out = AR_REAL_LOWER_P2P;
    else if (s && !strcmp(s, "native")) *out = AR_REAL_LOWER_NATIVE;
    else return ar_fail(e, AR_EINVAL, "lowering %s is not one of auto, p2p, native", ar_quote(s ? s : "", q, sizeof q));
    return AR_OK;
}

const char *ar_real_lowering_name(ar_real_lowering l) {
    switch (l) {
    case AR_REAL_LOWER_AUTO: return "auto";
    case AR_REAL_LOWER_P2P: return "p2p";
    case AR_REAL_LOWER_NATIVE: return "native";
    }
    return "?";
}

const char *ar_real_call_name(ar_real_call c) {
    switch (c) {
    case AR_RC_NONE: return "none";
    case AR_RC_REDUCE_SCATTER: return "ncclReduceScatter";
    case AR_RC_ALL_GATHER: return "ncclAllGather";
    case AR_RC_REDUCE: return "ncclReduce";
    case AR_RC_BROADCAST: return "ncclBroadcast";
    case AR_RC_ALL_REDUCE: return "ncclAllReduce";
    case AR_RC_BLOCK_REDUCE: return "ncclReduce per block";
    case AR_RC_BLOCK_BCAST: return "ncclBroadcast per block";
    case AR_RC_P2P: return "p2p";
    }
    return "?";
}

static int is_coll(ar_real_call c) { return c != AR_RC_NONE && c != AR_RC_P2P; }

/* ---- mapping -------------------------------------------------------------- */

int ar_real_op_even(const ar_op *op) {
    if (op->n < 1) return 0;
    if (!op->counts) return op->count % (uint64_t)op->n == 0;
    for (int i = 1; i < op->n; i++)
        if (op->counts[i] != op->counts[0]) return 0;
    return 1;
}

ar_real_call ar_real_map_op(const ar_op *op, ar_real_lowering mode) {
    if (!op || op->n < 2 || op->count == 0) return AR_RC_NONE;
    if (op->kind == AR_OP_SEND) return AR_RC_P2P;
    /* a per-member block layout (schedule.h): no NCCL collective takes non-adjacent blocks, so it
     * runs as its lowering's point-to-point transfers in every mode */
    if (op->offs) return AR_RC_P2P;
    int coll;
    switch (mode) {
    case AR_REAL_LOWER_P2P: coll = 0; break;
    case AR_REAL_LOWER_NATIVE: coll = 1; break;
    default:
        /* what NCCL itself implements, without explicit pipelining: its ring
         * (RS, AG, AR, and ring reduce/broadcast) and its chain reduce/broadcast */
        coll = op->impl == AR_IMPL_NATIVE || op->impl == AR_IMPL_SWITCH || /* NCCL runs it (NVLS where it can) */
               (op->chunks <= 1 &&
                (op->impl == AR_IMPL_RING ||
                 (op->impl == AR_IMPL_CHAIN && (op->kind == AR_OP_REDUCE || op->kind == AR_OP_BROADCAST))));
        break;
    }
    if (!coll) return AR_RC_P2P;
    switch (op->kind) {
    case AR_OP_REDUCE_SCATTER: return ar_real_op_even(op) ? AR_RC_REDUCE_SCATTER : AR_RC_BLOCK_REDUCE;
    case AR_OP_ALL_GATHER: return ar_real_op_even(op) ? AR_RC_ALL_GATHER : AR_RC_BLOCK_BCAST;
    case AR_OP_REDUCE: return AR_RC_REDUCE;
    case AR_OP_BROADCAST: return AR_RC_BROADCAST;
    case AR_OP_ALL_REDUCE: return AR_RC_ALL_REDUCE;
    case AR_OP_SEND: return AR_RC_P2P;
    }
    return AR_RC_P2P;
}

/* ---- groups and layers ---------------------------------------------------- */

int ar_real_group_index(const ar_real_group *g, int rank) {
    for (int i = 0; i < g->n; i++)
        if (g->members[i] == rank) return i;
    return -1;
}

static int group_find_or_add(ar_real_plan *p, int *cap, const int *members, int n, int nranks) {
    for (int g = 0; g < p->ngroups; g++)
        if (p->groups[g].n == n && !memcmp(p->groups[g].members, members, (size_t)n * sizeof *members)) return g;
    if (p->ngroups == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        ar_real_group *ng = ar_reallocarray(p->groups, (size_t)nc, sizeof *ng);
        if (!ng) return -1;
        p->groups = ng;
        *cap = nc;
    }
    ar_real_group *g = &p->groups[p->ngroups];
    memset(g, 0, sizeof *g);
    g->members = ar_calloc((size_t)n, sizeof *g->members);
    if (!g->members) return -1;
    memcpy(g->members, members, (size_t)n * sizeof *members);
    g->n = n;
    g->world = n == nranks;
    for (int i = 0; i < n && g->world; i++)
        if (members[i] != i) g->world = 0;
    g->layer = -1;
    return p->ngroups++;
}

ar_status ar_real_layers(ar_real_group *groups, int ngroups, const int *need, int nranks, int *nlayers, ar_err *e) {
    *nlayers = 0;
    if (ngroups <= 0) return AR_OK;
    /* taken[l * nranks + r]: rank r already in a group of layer l */
    unsigned char *taken = NULL;
    int *colors = NULL;
    int nl = 0;
    for (int g = 0; g < ngroups; g++) {
        ar_real_group *gr = &groups[g];
        gr->layer = -1;
        gr->color = 0;
        if (gr->world || (need && !need[g])) continue;
        int l = 0;
        for (; l < nl; l++) {
            int ok = 1;
            for (int i = 0; i < gr->n && ok; i++)
                if (taken[(size_t)l * (size_t)nranks + (size_t)gr->members[i]]) ok = 0;
            if (ok) break;
        }
        if (l == nl) {
            unsigned char *nt = realloc(taken, (size_t)(nl + 1) * (size_t)nranks);
            int *nc = realloc(colors, (size_t)(nl + 1) * sizeof *nc);
            if (nt) taken = nt;
            if (nc) colors = nc;
            if (!nt || !nc) {
                free(taken);
                free(colors);
                return ar_fail(e, AR_ENOMEM, "communicator layers: out of memory");
            }
            memset(taken + (size_t)nl * (size_t)nranks, 0, (size_t)nranks);
            colors[nl] = 0;
            nl++;
        }
        for (int i = 0; i < gr->n; i++) {
            if (gr->members[i] < 0 || gr->members[i] >= nranks) {
                free(taken);
                free(colors);
                return ar_fail(e, AR_EINTERNAL, "group %d: rank %d out of range", g, gr->members[i]);
            }
            taken[(size_t)l * (size_t)nranks + (size_t)gr->members[i]] = 1;
        }
        gr->layer = l;
        gr->color = colors[l]++;
    }
    free(taken);
    free(colors);
    *nlayers = nl;
    return AR_OK;
}

int ar_real_split_args(const ar_real_group *groups, int ngroups, int layer, int rank, int *color, int *key) {
    *color = -1;
    *key = 0;
    for (int g = 0; g < ngroups; g++) {
        if (groups[g].world || groups[g].layer != layer) continue;
        int i = ar_real_group_index(&groups[g], rank);
        if (i >= 0) {
            *color = groups[g].color;
            *key = i;
            return g;
        }
    }
    return -1;
}

/* ---- plan ----------------------------------------------------------------- */

void ar_real_plan_free(ar_real_plan *p) {
    if (!p) return;
    for (int g = 0; g < p->ngroups; g++) free(p->groups[g].members);
    AR_FREE_ALL(p->groups, p->phase_first, p->call, p->group, p->phase_coll, p->phase_rounds, p->phase_step0,
                p->phase_psteps, p->phase_pfirst, p->pstep_r0);
    free(p);
}

const ar_op *ar_real_plan_op(const ar_real_plan *p, int flat, int *phase) {
    const ar_schedule *s = p->s;
    for (int ph = 0; ph < s->nphases; ph++)
        if (flat < p->phase_first[ph + 1]) {
            if (phase) *phase = ph;
            return &s->phases[ph].ops[flat - p->phase_first[ph]];
        }
    return NULL;
}

ar_status ar_real_plan_build(const ar_schedule *s, ar_real_lowering mode, ar_real_plan **out, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_real_plan_build: no output");
    *out = NULL;
    if (!s) return ar_fail(e, AR_EINTERNAL, "ar_real_plan_build: no schedule");
    ar_status st = ar_schedule_check_structure(s, e);
    if (st != AR_OK) return st;
    for (int ph = 0; mode == AR_REAL_LOWER_P2P && ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++)
            if (s->phases[ph].ops[i].impl == AR_IMPL_SWITCH)
                return ar_fail(e, AR_EUNSUPPORTED,
                               "real: phase %d op %d (%s, impl switch) moves data to and from a switch, which "
                               "point-to-point sends cannot do (use --lowering auto: NCCL's own collective)",
                               ph, i, ar_op_kind_name(s->phases[ph].ops[i].kind));
    ar_real_plan *p = ar_calloc(1, sizeof *p);
    if (!p) return ar_fail(e, AR_ENOMEM, "real plan: out of memory");
    p->s = s;
    p->mode = mode;
    int np = s->nphases;
    for (int ph = 0; ph < np; ph++) p->nops += s->phases[ph].nops;
    p->phase_first = ar_calloc((size_t)np + 1, sizeof *p->phase_first);
    p->call = ar_calloc((size_t)p->nops + 1, sizeof *p->call);
    p->group = ar_calloc((size_t)p->nops + 1, sizeof *p->group);
    p->phase_coll = ar_calloc((size_t)np + 1, sizeof *p->phase_coll);
    p->phase_rounds = ar_calloc((size_t)np + 1, sizeof *p->phase_rounds);
    p->phase_step0 = ar_calloc((size_t)np + 1, sizeof *p->phase_step0);
    if (!p->phase_first || !p->call || !p->group || !p->phase_coll || !p->phase_rounds || !p->phase_step0) {
        ar_real_plan_free(p);
        return ar_fail(e, AR_ENOMEM, "real plan: out of memory");
    }
    int cap = 0, f = 0;
    for (int ph = 0; ph < np; ph++) {
        p->phase_first[ph] = f;
        for (int i = 0; i < s->phases[ph].nops; i++, f++) {
            const ar_op *op = &s->phases[ph].ops[i];
            ar_real_call c = ar_real_map_op(op, mode);
            p->call[f] = c;
            p->group[f] = -1;
            if (is_coll(c)) {
                int g = group_find_or_add(p, &cap, op->members, op->n, s->nranks);
                if (g < 0) {
                    ar_real_plan_free(p);
                    return ar_fail(e, AR_ENOMEM, "real plan: out of memory");
                }
                p->group[f] = g;
                p->phase_coll[ph] = 1;
                p->ncoll_ops++;
            } else if (c == AR_RC_P2P) {
                int r = ar_lower_nrounds(op);
                if (r > p->phase_rounds[ph]) p->phase_rounds[ph] = r;
                p->np2p_ops++;
            }
        }
        p->phase_step0[ph] = p->nsteps;
        if (p->phase_rounds[ph] > (1 << 30) - p->nsteps) {
            ar_real_plan_free(p);
            return ar_fail(e, AR_ELIMIT, "real plan: too many steps");
        }
        p->nsteps += p->phase_coll[ph] + p->phase_rounds[ph];
    }
    p->phase_first[np] = f;
    p->phase_step0[np] = p->nsteps;
    st = ar_real_layers(p->groups, p->ngroups, NULL, s->nranks, &p->nlayers, e);
    if (st != AR_OK) {
        ar_real_plan_free(p);
        return st;
    }
    *out = p;
    return AR_OK;
}

/* ---- programs ------------------------------------------------------------- */

typedef struct ivl {
    uint64_t off, end;
    size_t id; /* instruction index within the step */
    int write;
} ivl;

static int ivl_cmp(const void *a, const void *b) {
    const ivl *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

typedef struct cbuf {
    ar_real_prog *g;
    size_t cap_instr, cap_post, cap_src;
    unsigned char *radd; /* per instruction of the current step: RECV adds */
    size_t cap_radd;
    ar_xfer *xf;
    size_t cap_xf;
    ivl *iv;
    size_t cap_iv;
    int *flag;
    size_t cap_flag;
} cbuf;

static int push_instr(cbuf *b, const ar_real_instr *in, int add) {
    ar_real_prog *g = b->g;
    if (ar_grow(&g->instr, &b->cap_instr, g->ninstr + 1, sizeof *g->instr) ||
        ar_grow(&b->radd, &b->cap_radd, g->ninstr + 1, 1))
        return -1;
    g->instr[g->ninstr] = *in;
    b->radd[g->ninstr] = (unsigned char)add;
    g->ninstr++;
    return 0;
}

/* Ranges a collective reads/writes on this rank (in elements). */
static void coll_ranges(const ar_real_instr *in, int gn, uint64_t *ro, uint64_t *rl, uint64_t *wo, uint64_t *wl) {
    *ro = in->send_off;
    *rl = in->count;
    *wo = in->recv_off;
    *wl = in->count;
    if (in->call == AR_RC_REDUCE_SCATTER) *rl = in->count * (uint64_t)gn;
    if (in->call == AR_RC_ALL_GATHER) *wl = in->count * (uint64_t)gn;
}

/* Decides which receives go to scratch, lays scratch out, builds the posts. */
static ar_status finish_step(const ar_real_plan *p, cbuf *b, ar_real_step *st, ar_err *e) {
    ar_real_prog *g = b->g;
    size_t i0 = st->first_instr, k = g->ninstr - i0;
    st->ninstr = k;
    st->first_post = g->npost;
    st->npost = 0;
    st->nwaves = 0;
    if (k == 0) return AR_OK;
    /* 1. intervals: reads and writes of every instruction on the data buffer */
    if (ar_grow(&b->iv, &b->cap_iv, 2 * k, sizeof *b->iv) || ar_grow(&b->flag, &b->cap_flag, k, sizeof *b->flag))
        return ar_fail(e, AR_ENOMEM, "real program: out of memory");
    size_t ni = 0;
    for (size_t j = 0; j < k; j++) {
        const ar_real_instr *in = &g->instr[i0 + j];
        b->flag[j] = 0;
        if (in->kind == AR_RI_SEND) {
            b->iv[ni++] = (ivl){in->send_off, in->send_off + in->count, j, 0};
        } else if (in->kind == AR_RI_RECV) {
            b->iv[ni++] = (ivl){in->recv_off, in->recv_off + in->count, j, 1};
        } else {
            uint64_t ro, rl, wo, wl;
            coll_ranges(in, p->groups[in->group].n, &ro, &rl, &wo, &wl);
            if (rl) b->iv[ni++] = (ivl){ro, ro + rl, j, 0};
            if (wl) b->iv[ni++] = (ivl){wo, wo + wl, j, 1};
        }
    }
    qsort(b->iv, ni, sizeof *b->iv, ivl_cmp);
    /* Only receives need the flag, and a receive has one interval: it overlaps
     * another instruction's range iff an earlier interval (sorted by start)
     * ends after its start or the next one starts before its end. */
    uint64_t maxend = 0;
    for (size_t a = 0; a < ni; a++) {
        const ivl *v = &b->iv[a];
        if (g->instr[i0 + v->id].kind == AR_RI_RECV &&
            ((a > 0 && maxend > v->off) || (a + 1 < ni && b->iv[a + 1].off < v->end)))
            b->flag[v->id] = 1;
        if (v->end > maxend) maxend = v->end;
    }
    /* 2. scratch for adding receives and for overlapping copies */
    uint64_t cur = 0;
    size_t nraw = 0;
    for (size_t j = 0; j < k; j++) {
        ar_real_instr *in = &g->instr[i0 + j];
        if (in->kind != AR_RI_RECV) continue;
        int add = b->radd[i0 + j];
        if (!add && !b->flag[j]) {
            in->scratch = 0;
            continue;
        }
        if (ar_grow(&g->post, &b->cap_post, g->npost + nraw + 1, sizeof *g->post) ||
            ar_grow(&g->src_off, &b->cap_src, g->nsrc + nraw + 1, sizeof *g->src_off))
            return ar_fail(e, AR_ENOMEM, "real program: out of memory");
        ar_real_post *po = &g->post[g->npost + nraw];
        po->dst_off = in->recv_off;
        po->count = in->count;
        po->add = add;
        po->wave = 0;
        po->first_src = (uint32_t)(g->nsrc + nraw);
        po->nsrc = 1;
        g->src_off[g->nsrc + nraw] = cur;
        in->scratch = 1;
        in->recv_off = cur;
        cur += in->count;
        nraw++;
    }
    if (cur > g->scratch_elems) g->scratch_elems = cur;
    if (nraw == 0) return AR_OK;
    /* 3. merge adding posts onto the same range (e.g. a direct reduce-scatter
     * receives n-1 contributions to one block): one post, several sources */
    ar_real_post *raw = &g->post[g->npost];
    uint64_t *srcs = &g->src_off[g->nsrc];
    size_t nm = 0;
    uint64_t *tmp = ar_calloc(nraw, sizeof *tmp);
    ar_real_post *mp = ar_calloc(nraw, sizeof *mp);
    size_t *owner = ar_calloc(nraw, sizeof *owner);
    if (!tmp || !mp || !owner) {
        free(tmp);
        free(mp);
        free(owner);
        return ar_fail(e, AR_ENOMEM, "real program: out of memory");
    }
    for (size_t a = 0; a < nraw; a++) {
        size_t m = nm;
        if (raw[a].add)
            for (size_t c = 0; c < nm; c++)
                if (mp[c].add && mp[c].dst_off == raw[a].dst_off && mp[c].count == raw[a].count) {
                    m = c;
                    break;
                }
        if (m == nm) {
            mp[nm] = raw[a];
            mp[nm].nsrc = 0;
            nm++;
        }
        owner[a] = m;
        mp[m].nsrc++;
    }
    /* sources grouped by merged post, in receive order */
    size_t pos = 0;
    for (size_t m = 0; m < nm; m++) {
        mp[m].first_src = (uint32_t)(g->nsrc + pos);
        for (size_t a = 0; a < nraw; a++)
            if (owner[a] == m) tmp[pos++] = srcs[raw[a].first_src - g->nsrc];
    }
    memcpy(srcs, tmp, nraw * sizeof *tmp);
    /* 4. waves: a post goes one wave after every earlier post it overlaps */
    int nw = 0;
    for (size_t a = 0; a < nm; a++) {
        int w = 0;
        for (size_t c = 0; c < a; c++)
            if (mp[c].dst_off < mp[a].dst_off + mp[a].count && mp[a].dst_off < mp[c].dst_off + mp[c].count &&
                mp[c].wave + 1 > w)
                w = mp[c].wave + 1;
        mp[a].wave = w;
        if (w + 1 > nw) nw = w + 1;
        if (mp[a].count > g->max_post_count) g->max_post_count = mp[a].count;
    }
    /* sorted by wave, stable */
    size_t o = 0;
    for (int w = 0; w < nw; w++)
        for (size_t a = 0; a < nm; a++)
            if (mp[a].wave == w) raw[o++] = mp[a];
    free(tmp);
    free(mp);
    free(owner);
    g->npost += nm;
    g->nsrc += nraw;
    st->npost = nm;
    st->nwaves = nw;
    return AR_OK;
}

void ar_real_prog_free(ar_real_prog *g) {
    if (!g) return;
    AR_FREE_ALL(g->steps, g->instr, g->post, g->src_off);
    free(g);
}

static int op_has(const ar_op *op, int rank) {
    for (int i = 0; i < op->n; i++)
        if (op->members[i] == rank) return 1;
    return 0;
}

static ar_status emit_coll(const ar_real_plan *p, cbuf *b, int flat, const ar_op *op, int me, ar_err *e) {
    ar_real_call c = p->call[flat];
    int gi = p->group[flat];
    int idx = ar_real_group_index(&p->groups[gi], me);
    if (idx < 0) return AR_OK;
    ar_real_instr in;
    memset(&in, 0, sizeof in);
    in.kind = AR_RI_COLL;
    in.group = gi;
    in.flat = flat;
    in.peer = -1;
    int rc = 0;
    if (c == AR_RC_BLOCK_REDUCE || c == AR_RC_BLOCK_BCAST) {
        for (int i = 0; i < op->n && !rc; i++) {
            uint64_t o, l;
            ar_op_block(op, i, &o, &l);
            if (!l) continue;
            in.call = c == AR_RC_BLOCK_REDUCE ? AR_RC_REDUCE : AR_RC_BROADCAST;
            in.root = i;
            in.send_off = in.recv_off = o;
            in.count = l;
            rc = push_instr(b, &in, 0);
        }
    } else {
        in.call = c;
        uint64_t bl = op->count / (uint64_t)op->n;
        switch (c) {
        case AR_RC_REDUCE_SCATTER:
            in.send_off = op->offset;
            in.recv_off = op->offset + (uint64_t)idx * bl;
            in.count = bl;
            break;
        case AR_RC_ALL_GATHER:
            in.send_off = op->offset + (uint64_t)idx * bl;
            in.recv_off = op->offset;
            in.count = bl;
            break;
        default:
            in.root = (c == AR_RC_REDUCE || c == AR_RC_BROADCAST) ? op->root : 0;
            in.send_off = in.recv_off = op->offset;
            in.count = op->count;
            break;
        }
        rc = push_instr(b, &in, 0);
    }
    return rc ? ar_fail(e, AR_ENOMEM, "real program: out of memory") : AR_OK;
}

static ar_status emit_round(const ar_real_plan *p, cbuf *b, int flat, const ar_op *op, int r, int me, ar_err *e) {
    (void)p;
    size_t mx = ar_lower_max_xfers(op);
    if (ar_grow(&b->xf, &b->cap_xf, mx, sizeof *b->xf)) return ar_fail(e, AR_ENOMEM, "real program: out of memory");
    size_t nx = ar_lower_round(op, r, b->xf);
    if (nx > mx) return ar_fail(e, AR_EINTERNAL, "lowering overflow (op %d round %d)", flat, r);
    for (size_t i = 0; i < nx; i++) {
        const ar_xfer *x = &b->xf[i];
        if (x->src != me && x->dst != me) continue;
        for (int sg = 0; sg < x->nseg; sg++) {
            if (!x->len[sg]) continue;
            ar_real_instr in;
            memset(&in, 0, sizeof in);
            in.flat = flat;
            in.group = -1;
            in.count = x->len[sg];
            if (x->src == me) {
                in.kind = AR_RI_SEND;
                in.peer = x->dst;
                in.send_off = x->off[sg];
                if (push_instr(b, &in, 0)) return ar_fail(e, AR_ENOMEM, "real program: out of memory");
            }
            if (x->dst == me) {
                in.kind = AR_RI_RECV;
                in.peer = x->src;
                in.recv_off = x->off[sg];
                if (push_instr(b, &in, x->reduce)) return ar_fail(e, AR_ENOMEM, "real program: out of memory");
            }
        }
    }
    return AR_OK;
}

ar_status ar_real_compile(const ar_real_plan *p, int me, ar_real_prog **out, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_real_compile: no output");
    *out = NULL;
    const ar_schedule *s = p->s;
    if (me < 0 || me >= s->nranks) return ar_fail(e, AR_EINVAL, "rank %d is not in 0..%d", me, s->nranks - 1);
    ar_real_prog *g = ar_calloc(1, sizeof *g);
    if (!g) return ar_fail(e, AR_ENOMEM, "real program: out of memory");
    g->rank = me;
    g->nsteps = p->nsteps;
    g->steps = ar_calloc((size_t)p->nsteps + 1, sizeof *g->steps);
    if (!g->steps) {
        ar_real_prog_free(g);
        return ar_fail(e, AR_ENOMEM, "real program: out of memory");
    }
    cbuf b;
    memset(&b, 0, sizeof b);
    b.g = g;
    ar_status st = AR_OK;
    for (int ph = 0; ph < s->nphases && st == AR_OK; ph++) {
        int k = p->phase_step0[ph];
        int a = p->phase_first[ph], z = p->phase_first[ph + 1];
        if (p->phase_coll[ph]) {
            ar_real_step *sp = &g->steps[k++];
            sp->phase = ph;
            sp->round = -1;
            sp->first_instr = g->ninstr;
            for (int f = a; f < z && st == AR_OK; f++)
                if (is_coll(p->call[f])) st = emit_coll(p, &b, f, &s->phases[ph].ops[f - a], me, e);
            if (st == AR_OK) st = finish_step(p, &b, sp, e);
        }
        int nps = p->phase_psteps ? p->phase_psteps[ph] : p->phase_rounds[ph];
        for (int j = 0; j < nps && st == AR_OK; j++) {
            /* rounds [r0, r1) of the phase in this step (one each unless fused) */
            int r0 = p->phase_psteps ? p->pstep_r0[p->phase_pfirst[ph] + j] : j;
            int r1 = !p->phase_psteps ? j + 1
                     : j + 1 < nps    ? p->pstep_r0[p->phase_pfirst[ph] + j + 1]
                                      : p->phase_rounds[ph];
            ar_real_step *sp = &g->steps[k++];
            sp->phase = ph;
            sp->round = r0;
            sp->first_instr = g->ninstr;
            for (int r = r0; r < r1 && st == AR_OK; r++)
                for (int f = a; f < z && st == AR_OK; f++) {
                    const ar_op *op = &s->phases[ph].ops[f - a];
                    if (p->call[f] != AR_RC_P2P || r >= ar_lower_nrounds(op) || !op_has(op, me)) continue;
                    st = emit_round(p, &b, f, op, r, me, e);
                }
            if (st == AR_OK) st = finish_step(p, &b, sp, e);
        }
    }
    for (size_t i = 0; i < g->ninstr; i++) {
        if (g->instr[i].kind == AR_RI_SEND) g->nsend++;
        else if (g->instr[i].kind == AR_RI_RECV) g->nrecv++;
        else g->ncoll++;
    }
    AR_FREE_ALL(b.radd, b.xf, b.iv, b.flag);
    if (st != AR_OK) {
        ar_real_prog_free(g);
        return st;
    }
    *out = g;
    return AR_OK;
}

/* ---- printing ------------------------------------------------------------- */

static void print_members(FILE *f, const int *m, int n) {
    for (int i = 0; i < n && i < 16; i++) fprintf(f, "%s%d", i ? "," : "", m[i]);
    if (n > 16) fprintf(f, ",... (%d ranks)", n);
}

void ar_real_plan_print(const ar_real_plan *p, FILE *f) {
    const ar_schedule *s = p->s;
    int nsplit = 0;
    for (int g = 0; g < p->ngroups; g++) nsplit += !p->groups[g].world;
    fprintf(f,
            "NCCL plan of %s on %d ranks, %llu elements x %zu B, lowering %s: %d phases, %d NCCL groups (steps), "
            "%d collective ops, %d point-to-point ops; %d communicators (%d by ncclCommSplit in %d split calls)\n",
            s->algo ? s->algo : "?", s->nranks, (unsigned long long)s->count, s->elem_bytes,
            ar_real_lowering_name(p->mode), s->nphases, p->nsteps, p->ncoll_ops, p->np2p_ops, p->ngroups, nsplit,
            p->nlayers);
    for (int g = 0; g < p->ngroups; g++) {
        const ar_real_group *gr = &p->groups[g];
        fprintf(f, "  comm %d: ", g);
        if (gr->world) fprintf(f, "world (ranks 0..%d)\n", s->nranks - 1);
        else {
            fprintf(f, "ranks ");
            print_members(f, gr->members, gr->n);
            fprintf(f, " (split %d, color %d, key = position)\n", gr->layer, gr->color);
        }
    }
    for (int ph = 0; ph < s->nphases; ph++) {
        const ar_phase *P = &s->phases[ph];
        fprintf(f, "  phase %d%s%s%s: %d step%s\n", ph, P->label ? " \"" : "", P->label ? P->label : "",
                P->label ? "\"" : "", p->phase_step0[ph + 1] - p->phase_step0[ph],
                p->phase_step0[ph + 1] - p->phase_step0[ph] == 1 ? "" : "s");
        for (int i = 0; i < P->nops; i++) {
            int fl = p->phase_first[ph] + i;
            const ar_op *op = &P->ops[i];
            fprintf(f, "    op %d %s/%s n=%d [%llu,+%llu)%s", i, ar_op_kind_name(op->kind), ar_impl_name(op->impl),
                    op->n, (unsigned long long)op->offset, (unsigned long long)op->count, op->counts ? " uneven" : "");
            if (op->chunks > 1) fprintf(f, " chunks=%d", op->chunks);
            fprintf(f, " -> %s", ar_real_call_name(p->call[fl]));
            if (p->group[fl] >= 0) fprintf(f, " on comm %d", p->group[fl]);
            if (p->call[fl] == AR_RC_P2P)
                fprintf(
                    f, ": %d round%s of ncclSend/ncclRecv%s", ar_lower_nrounds(op),
                    ar_lower_nrounds(op) == 1 ? "" : "s",
                    (op->kind == AR_OP_SEND ? op->reduce : op->kind != AR_OP_ALL_GATHER && op->kind != AR_OP_BROADCAST)
                        ? " + add kernel"
                        : "");
            if ((p->call[fl] == AR_RC_REDUCE || p->call[fl] == AR_RC_BROADCAST) && op->root >= 0 && op->root < op->n)
                fprintf(f, " root %d", op->members[op->root]);
            fputc('\n', f);
        }
    }
}
