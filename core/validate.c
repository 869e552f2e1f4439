/* Symbolic validator (schedule.h: ar_schedule_validate).
 *
 * State: for every rank a piece table over its buffer: sorted pieces
 * [start_k, start_{k+1}) each holding a set id (a bitset of the ranks whose
 * input it contains) or -1 (undefined). Sets live in one growing arena and are
 * never freed before the end. Each op is applied with the semantics documented
 * in schedule.h, at the level of the op (not its lowering: the host executor
 * checks the lowering).
 */
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

typedef struct piece {
    uint64_t start;
    int set; /* -1 = undefined */
} piece;

typedef struct ptab {
    piece *p;
    int n, cap;
} ptab;

typedef struct vstate {
    const ar_schedule *s;
    int nw;         /* words per set */
    uint64_t *sets; /* arena: set k at sets[k*nw] */
    int nsets, capsets;
    ptab *rank;    /* one piece table per rank */
    uint64_t *bps; /* scratch breakpoints */
    size_t nbps, capbps;
    ar_err *e;
    int phase, opi; /* where we are, for messages */
} vstate;

static int new_set(vstate *v) {
    if (v->nsets == v->capsets) {
        int cap = v->capsets ? 2 * v->capsets : 256;
        uint64_t *ns = ar_reallocarray(v->sets, (size_t)cap * (size_t)v->nw, sizeof *ns);
        if (!ns) return -1;
        v->sets = ns;
        v->capsets = cap;
    }
    memset(v->sets + (size_t)v->nsets * (size_t)v->nw, 0, (size_t)v->nw * sizeof(uint64_t));
    return v->nsets++;
}

static uint64_t *SET(vstate *v, int id) { return v->sets + (size_t)id * (size_t)v->nw; }

/* Index of the piece containing element x. */
static int find(const ptab *t, uint64_t x) {
    int lo = 0, hi = t->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t->p[mid].start <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int reserve(ptab *t, int extra) {
    if (t->n + extra <= t->cap) return 0;
    int cap = t->cap ? t->cap : 4;
    while (cap < t->n + extra) cap *= 2;
    piece *np = ar_reallocarray(t->p, (size_t)cap, sizeof *np);
    if (!np) return -1;
    t->p = np;
    t->cap = cap;
    return 0;
}

/* Sets [a, b) of t (a table over [0, total)) to set id. */
static int assign(ptab *t, uint64_t total, uint64_t a, uint64_t b, int id) {
    if (a >= b) return 0;
    if (reserve(t, 2) < 0) return -1;
    int ia = find(t, a), ib = find(t, b - 1);
    uint64_t next = ib + 1 < t->n ? t->p[ib + 1].start : total;
    piece rep[3];
    int nr = 0;
    if (t->p[ia].start < a) rep[nr++] = t->p[ia];
    rep[nr++] = (piece){a, id};
    if (b < next) rep[nr++] = (piece){b, t->p[ib].set};
    int removed = ib - ia + 1;
    memmove(t->p + ia + nr, t->p + ib + 1, (size_t)(t->n - ib - 1) * sizeof(piece));
    memcpy(t->p + ia, rep, (size_t)nr * sizeof(piece));
    t->n += nr - removed;
    return 0;
}

static ar_status oom(vstate *v) { return ar_fail(v->e, AR_ENOMEM, "validator: out of memory"); }

static int add_bp(vstate *v, uint64_t x) {
    if (v->nbps == v->capbps) {
        size_t cap = v->capbps ? 2 * v->capbps : 64;
        uint64_t *nb = ar_reallocarray(v->bps, cap, sizeof *nb);
        if (!nb) return -1;
        v->bps = nb;
        v->capbps = cap;
    }
    v->bps[v->nbps++] = x;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Breakpoints of the given ranks' tables within [a, b), sorted unique, plus b. */
static int breakpoints(vstate *v, const int *ranks, int nr, uint64_t a, uint64_t b) {
    v->nbps = 0;
    if (add_bp(v, a) < 0) return -1;
    for (int k = 0; k < nr; k++) {
        const ptab *t = &v->rank[ranks[k]];
        for (int i = find(t, a) + 1; i < t->n && t->p[i].start < b; i++)
            if (add_bp(v, t->p[i].start) < 0) return -1;
    }
    qsort(v->bps, v->nbps, sizeof *v->bps, cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < v->nbps; i++)
        if (w == 0 || v->bps[i] != v->bps[w - 1]) v->bps[w++] = v->bps[i];
    v->nbps = w;
    return add_bp(v, b);
}

/* Union of the sets of ranks[] over each elementary piece of [a, b), written
 * to `dst` (rank) — and, if others != NULL, undefined is written to the other
 * ranks. all_dst: write the union to every rank in ranks[]. */
static ar_status reduce_range(vstate *v, const int *ranks, int nr, uint64_t a, uint64_t b, int dst, int all_dst,
                              int undef_others) {
    if (a >= b) return AR_OK;
    if (breakpoints(v, ranks, nr, a, b) < 0) return oom(v);
    /* copy breakpoints: assign() below does not touch v->bps, but we need them stable */
    for (size_t i = 0; i + 1 < v->nbps; i++) {
        uint64_t x = v->bps[i], y = v->bps[i + 1];
        int id = new_set(v);
        if (id < 0) return oom(v);
        uint64_t *u = SET(v, id);
        for (int k = 0; k < nr; k++) {
            int sid = v->rank[ranks[k]].p[find(&v->rank[ranks[k]], x)].set;
            if (sid < 0)
                return ar_fail(v->e, AR_EFAIL,
                               "schedule %s: phase %d op %d: rank %d reads elements [%llu,%llu) "
                               "before they are defined",
                               v->s->algo, v->phase, v->opi, ranks[k], (unsigned long long)x, (unsigned long long)y);
            const uint64_t *sv = SET(v, sid);
            for (int w = 0; w < v->nw; w++) {
                if (u[w] & sv[w]) {
                    int bit = __builtin_ctzll(u[w] & sv[w]);
                    return ar_fail(v->e, AR_EFAIL,
                                   "schedule %s: phase %d op %d: rank %d's input would be counted "
                                   "twice in elements [%llu,%llu) reduced at rank %d",
                                   v->s->algo, v->phase, v->opi, w * 64 + bit, (unsigned long long)x,
                                   (unsigned long long)y, dst);
                }
                u[w] |= sv[w];
            }
        }
        for (int k = 0; k < nr; k++) {
            int r = ranks[k];
            int target = all_dst || r == dst;
            if (!target && !undef_others) continue;
            if (assign(&v->rank[r], v->s->count, x, y, target ? id : -1) < 0) return oom(v);
        }
    }
    return AR_OK;
}

/* Copies src's pieces over [a, b) to each of ranks[] (except src). */
static ar_status copy_range(vstate *v, int src, const int *ranks, int nr, uint64_t a, uint64_t b) {
    if (a >= b) return AR_OK;
    if (breakpoints(v, &src, 1, a, b) < 0) return oom(v);
    for (size_t i = 0; i + 1 < v->nbps; i++) {
        uint64_t x = v->bps[i], y = v->bps[i + 1];
        int sid = v->rank[src].p[find(&v->rank[src], x)].set;
        if (sid < 0)
            return ar_fail(v->e, AR_EFAIL,
                           "schedule %s: phase %d op %d: rank %d sends elements [%llu,%llu) "
                           "before they are defined",
                           v->s->algo, v->phase, v->opi, src, (unsigned long long)x, (unsigned long long)y);
        for (int k = 0; k < nr; k++)
            if (ranks[k] != src && assign(&v->rank[ranks[k]], v->s->count, x, y, sid) < 0) return oom(v);
    }
    return AR_OK;
}

static ar_status apply(vstate *v, const ar_op *op) {
    ar_status st = AR_OK;
    uint64_t a = op->offset, b = op->offset + op->count;
    switch (op->kind) {
    case AR_OP_REDUCE_SCATTER:
        for (int i = 0; i < op->n && st == AR_OK; i++) {
            uint64_t o, l;
            ar_op_block(op, i, &o, &l);
            st = reduce_range(v, op->members, op->n, o, o + l, op->members[i], 0, 1);
        }
        break;
    case AR_OP_ALL_GATHER:
        for (int i = 0; i < op->n && st == AR_OK; i++) {
            uint64_t o, l;
            ar_op_block(op, i, &o, &l);
            st = copy_range(v, op->members[i], op->members, op->n, o, o + l);
        }
        break;
    case AR_OP_REDUCE: st = reduce_range(v, op->members, op->n, a, b, op->members[op->root], 0, 1); break;
    case AR_OP_BROADCAST: st = copy_range(v, op->members[op->root], op->members, op->n, a, b); break;
    case AR_OP_ALL_REDUCE:
        if (!op->offs) {
            st = reduce_range(v, op->members, op->n, a, b, -1, 1, 0);
            break;
        }
        for (int i = 0; i < op->n && st == AR_OK; i++) { /* a per-member layout: the union of its blocks */
            uint64_t o, l;
            ar_op_block(op, i, &o, &l);
            st = reduce_range(v, op->members, op->n, o, o + l, -1, 1, 0);
        }
        break;
    case AR_OP_SEND:
        if (op->reduce) {
            /* dst = dst + src; src keeps its data */
            int pair[2] = {op->members[0], op->members[1]};
            if (breakpoints(v, pair, 2, a, b) < 0) return oom(v);
            for (size_t i = 0; i + 1 < v->nbps && st == AR_OK; i++) {
                uint64_t x = v->bps[i], y = v->bps[i + 1];
                int s0 = v->rank[pair[0]].p[find(&v->rank[pair[0]], x)].set;
                int s1 = v->rank[pair[1]].p[find(&v->rank[pair[1]], x)].set;
                if (s0 < 0 || s1 < 0)
                    return ar_fail(v->e, AR_EFAIL,
                                   "schedule %s: phase %d op %d: send %d->%d of elements [%llu,%llu) "
                                   "reads undefined data",
                                   v->s->algo, v->phase, v->opi, pair[0], pair[1], (unsigned long long)x,
                                   (unsigned long long)y);
                int id = new_set(v);
                if (id < 0) return oom(v);
                uint64_t *u = SET(v, id);
                const uint64_t *p0 = SET(v, s0), *p1 = SET(v, s1);
                for (int w = 0; w < v->nw; w++) {
                    if (p0[w] & p1[w])
                        return ar_fail(v->e, AR_EFAIL, "schedule %s: phase %d op %d: send %d->%d counts rank %d twice",
                                       v->s->algo, v->phase, v->opi, pair[0], pair[1],
                                       w * 64 + __builtin_ctzll(p0[w] & p1[w]));
                    u[w] = p0[w] | p1[w];
                }
                if (assign(&v->rank[pair[1]], v->s->count, x, y, id) < 0) return oom(v);
            }
        } else {
            st = copy_range(v, op->members[0], &op->members[1], 1, a, b);
        }
        break;
    }
    return st;
}

typedef struct use {
    int rank;
    uint64_t a, b;
    int op;
} use;

static int cmp_use(const void *x, const void *y) {
    const use *p = x, *q = y;
    if (p->rank != q->rank) return p->rank < q->rank ? -1 : 1;
    return p->a < q->a ? -1 : p->a > q->a;
}

/* Concurrent ops of a phase must not touch overlapping ranges of one rank (an op with a per-member
 * layout touches its n blocks at every member, not the span between them). */
static ar_status check_phase_disjoint(vstate *v, const ar_phase *ph) {
    size_t total = 0;
    for (int i = 0; i < ph->nops; i++) total += (size_t)ph->ops[i].n * (ph->ops[i].offs ? (size_t)ph->ops[i].n : 1);
    use *u = ar_reallocarray(NULL, total ? total : 1, sizeof *u);
    if (!u) return oom(v);
    size_t k = 0;
    for (int i = 0; i < ph->nops; i++) {
        const ar_op *op = &ph->ops[i];
        for (int m = 0; m < op->n; m++) {
            if (!op->offs) {
                u[k++] = (use){op->members[m], op->offset, op->offset + op->count, i};
                continue;
            }
            for (int j = 0; j < op->n; j++) {
                uint64_t o, l;
                ar_op_block(op, j, &o, &l);
                u[k++] = (use){op->members[m], o, o + l, i};
            }
        }
    }
    qsort(u, total, sizeof *u, cmp_use);
    ar_status st = AR_OK;
    size_t last = 0; /* the non-empty range of this rank that reaches furthest so far */
    int have = 0;
    for (size_t i = 0; i < total; i++) {
        if (i > 0 && u[i].rank != u[i - 1].rank) have = 0;
        if (u[i].a >= u[i].b) continue; /* an empty block touches nothing */
        if (have && u[i].a < u[last].b && u[i].op != u[last].op) {
            st = ar_fail(v->e, AR_EFAIL,
                         "schedule %s: phase %d: ops %d and %d both use elements [%llu,%llu) of rank %d "
                         "concurrently",
                         v->s->algo, v->phase, u[last].op, u[i].op, (unsigned long long)u[i].a,
                         (unsigned long long)(u[i].b < u[last].b ? u[i].b : u[last].b), u[i].rank);
            break;
        }
        if (!have || u[i].b > u[last].b) last = i;
        have = 1;
    }
    free(u);
    return st;
}

ar_status ar_schedule_validate(const ar_schedule *s, ar_err *e) {
    ar_status st = ar_schedule_check_structure(s, e);
    if (st != AR_OK) return st;
    if (s->nranks > AR_VALIDATE_MAX_RANKS)
        return ar_fail(e, AR_ELIMIT, "validator: %d ranks is more than its limit of %d (its state grows as ranks^2)",
                       s->nranks, AR_VALIDATE_MAX_RANKS);
    vstate v = {.s = s, .nw = (s->nranks + 63) / 64, .e = e, .phase = -1, .opi = -1};
    v.rank = ar_calloc((size_t)s->nranks, sizeof *v.rank);
    if (!v.rank) return oom(&v);
    int full = -1; /* all-gather: rank r starts with block r already reduced (the full set) */
    if (st == AR_OK && s->coll == AR_COLL_ALLGATHER) {
        if ((full = new_set(&v)) < 0) st = oom(&v);
        for (int q = 0; q < s->nranks && st == AR_OK; q++) SET(&v, full)[q / 64] |= UINT64_C(1) << (q % 64);
    }
    for (int r = 0; r < s->nranks && st == AR_OK; r++) {
        int id = full >= 0 ? -1 : new_set(&v);
        if ((full < 0 && id < 0) || reserve(&v.rank[r], 1) < 0) {
            st = oom(&v);
            break;
        }
        if (id >= 0) SET(&v, id)[r / 64] |= UINT64_C(1) << (r % 64);
        v.rank[r].p[0] = (piece){0, id};
        v.rank[r].n = 1;
        if (full >= 0) {
            uint64_t o, l;
            ar_coll_block(s->nranks, s->count, r, &o, &l);
            if (assign(&v.rank[r], s->count, o, o + l, full) < 0) st = oom(&v);
        }
    }
    for (int p = 0; p < s->nphases && st == AR_OK; p++) {
        v.phase = p;
        st = check_phase_disjoint(&v, &s->phases[p]);
        for (int i = 0; i < s->phases[p].nops && st == AR_OK; i++) {
            v.opi = i;
            st = apply(&v, &s->phases[p].ops[i]);
        }
    }
    /* final: every piece of every rank (reduce-scatter: of block r of rank r) holds the full set */
    for (int r = 0; r < s->nranks && st == AR_OK; r++) {
        const ptab *t = &v.rank[r];
        uint64_t lo = 0, hi = s->count;
        if (s->coll == AR_COLL_REDUCESCATTER) {
            ar_coll_block(s->nranks, s->count, r, &lo, &hi);
            hi += lo;
        }
        for (int i = 0; i < t->n && st == AR_OK; i++) {
            uint64_t x = t->p[i].start, y = i + 1 < t->n ? t->p[i + 1].start : s->count;
            if (x < lo) x = lo;
            if (y > hi) y = hi;
            if (x >= y) continue;
            if (t->p[i].set < 0) {
                st = ar_fail(e, AR_EFAIL, "schedule %s: at the end rank %d holds undefined elements [%llu,%llu)",
                             s->algo, r, (unsigned long long)x, (unsigned long long)y);
                break;
            }
            const uint64_t *sv = SET(&v, t->p[i].set);
            for (int q = 0; q < s->nranks; q++)
                if (!(sv[q / 64] >> (q % 64) & 1)) {
                    st = ar_fail(e, AR_EFAIL,
                                 "schedule %s: at the end rank %d's elements [%llu,%llu) miss rank %d's input", s->algo,
                                 r, (unsigned long long)x, (unsigned long long)y, q);
                    break;
                }
        }
    }
    for (int r = 0; r < s->nranks; r++) free(v.rank[r].p);
    free(v.rank);
    free(v.sets);
    free(v.bps);
    return st;
}
