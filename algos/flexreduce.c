/* flexreduce: uneven decomposed all-reduce for asymmetric trees (FlexReduce,
 * Lee, Hwang, Shah, Cho; Fig. 2, Fig. 3, Sec. III).
 *
 * Planning (ar_fr_plan_build, exactly Fig. 3 in exact units, see flexreduce.h):
 *   every learner starts with portion 1 and range [0, 1); the levels are
 *   visited bottom-up; at each branch node every leaf's portion is divided by
 *   the node's degree (line 8), the node's leaves are sorted by current range
 *   end, then start, then node name, then rank (sort_by_range), and each in
 *   turn takes next_range = [progress, progress + portion) (assign_range);
 *   find_bounds splits next_range where the set of current holders changes -
 *   a holder is a leaf of the node whose current range contains the piece -
 *   and each piece becomes one reduce call (entry). After the level every
 *   leaf's range becomes its next_range.
 *
 * Schedule (execute, Fig. 3 (a)), per level l = 0 .. L-1:
 *   phase "level l reduce": one REDUCE per entry over the holders (ranks
 *     ascending), all concurrent (the pieces of one node partition the buffer,
 *     so every rank's ops touch disjoint ranges). The destination need not be
 *     a holder: its own data there is undefined or already counted through
 *     the holder under its own child, so it must not take part. Then the
 *     REDUCE's root is that holder (`via`, which shares the lower switch with
 *     the destination) and
 *   phase "level l forward" copies each such piece via -> destination (SEND),
 *     except at the top level: there the copy would only be copied back
 *     (the all-gather starts at the top), so the top-level broadcast starts
 *     from via. The destination still ends with its range: a lower level's
 *     broadcast covers it (every level-0 broadcast reaches every rank of its
 *     machine). Removed: 12 ms of 468 ms on machines 1+4.
 * then the all-gather replays the levels top-down in reverse: SEND
 * destination -> via where needed ("level l return", below the top), then one
 * BROADCAST per entry from the destination (or via) to the holders ("level l
 * broadcast").
 * Pieces that hold no element for this count are dropped; so are phases left
 * empty. Ops use impl=chain by default (like ncclReduce/ncclBroadcast: a
 * chain starting after the root): on a symmetric tree the concurrent chains
 * of a level move exactly the bytes of a ring reduce-scatter, so the cost walk
 * reproduces Eq. 6.
 *
 * Parameters: impl=chain|ring|binomial|direct|native (default chain),
 * chunks=N pipeline chunks per reduce/broadcast (1..4096, default 1).
 * Serves trees whose GPUs are all at one depth; AR_EUNSUPPORTED otherwise.
 * Ownership: schedules and plans returned belong to the caller. Owner of this
 * file: the BlueConnect/FlexReduce engineer.
 */
#include <string.h>

#include "classic_common.h"
#include "flexreduce.h"

#define FR_MAX_M (UINT64_C(1) << 62)

/* --- exact units ----------------------------------------------------------- */

/* M of every node (M_gpu = 1, M_switch = degree * lcm of the children's M);
 * returns M of the root or 0 when some M exceeds FR_MAX_M. */
static uint64_t fr_denominator(const ar_platform *p, uint64_t *m) {
    for (int v = p->nnodes - 1; v >= 0; v--) {
        const ar_node *n = &p->nodes[v];
        if (n->kind == AR_NODE_GPU) {
            m[v] = 1;
            continue;
        }
        unsigned __int128 l = 1;
        for (int c = 0; c < n->nchildren; c++) {
            uint64_t mc = m[n->children[c]];
            if (!mc) return 0;
            l = l / ar_gcd_u64((uint64_t)l, mc) * mc;
            if (l > FR_MAX_M) return 0;
        }
        l *= (unsigned)n->nchildren;
        m[v] = l > FR_MAX_M ? 0 : (uint64_t)l;
    }
    return p->root >= 0 ? m[p->root] : 0;
}

uint64_t ar_fr_elem(const ar_fr_plan *fp, uint64_t u, uint64_t count) {
    return (uint64_t)((unsigned __int128)u * count / fp->M);
}

/* --- the plan -------------------------------------------------------------- */

typedef struct fr_key {
    uint64_t hi, lo;
    const char *name;
    int rank;
} fr_key;

/* sort_by_range: end, then start, then name (Sec. III-A: lexicographic), then rank */
static int fr_cmp_key(const void *a, const void *b) {
    const fr_key *x = a, *y = b;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    if (c) return c;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int fr_cmp_lo(const void *a, const void *b) {
    const fr_key *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Planner working state (all owned here, freed by fr_work_free). */
typedef struct fr_work {
    const ar_platform *p;
    ar_fr_plan *fp;
    uint64_t *cur_lo, *cur_hi, *nxt_lo, *nxt_hi, *por; /* per rank */
    fr_key *sorted;                                    /* the node's leaves in assign order */
    fr_key *by_child;                                  /* the node's leaves grouped by child, by range start */
    int *child_first; /* child c's leaves: by_child[child_first[c] .. child_first[c+1]) */
    int *ptr;         /* find_bounds cursor per child */
    int *holders;     /* scratch, one per child */
    int capentries, caparena, narena;
    ar_err *e;
} fr_work;

static ar_status fr_add_entry(fr_work *w, int level, int node, int dest, int via, uint64_t lo, uint64_t hi, int nh) {
    ar_fr_plan *fp = w->fp;
    if (w->narena + nh > AR_FR_MAX_MEMBERS)
        return ar_fail(w->e, AR_ELIMIT,
                       "flexreduce: the plan for platform '%s' needs more than %d group members (level %d); "
                       "FlexReduce's reduce calls are O(P^2) on a wide switch",
                       w->p->name ? w->p->name : "?", AR_FR_MAX_MEMBERS, level);
    if (fp->nentries == w->capentries) {
        int cap = w->capentries ? 2 * w->capentries : 64;
        ar_fr_entry *ne = ar_reallocarray(fp->entries, (size_t)cap, sizeof *ne);
        if (!ne) return ar_fail(w->e, AR_ENOMEM, "flexreduce: out of memory");
        fp->entries = ne;
        w->capentries = cap;
    }
    if (w->narena + nh > w->caparena) {
        int cap = w->caparena ? w->caparena : 256;
        while (cap < w->narena + nh) cap *= 2;
        int *na = ar_reallocarray(fp->arena, (size_t)cap, sizeof *na);
        if (!na) return ar_fail(w->e, AR_ENOMEM, "flexreduce: out of memory");
        fp->arena = na;
        w->caparena = cap;
    }
    memcpy(fp->arena + w->narena, w->holders, (size_t)nh * sizeof *w->holders);
    fp->entries[fp->nentries++] = (ar_fr_entry){.level = level,
                                                .node = node,
                                                .dest = dest,
                                                .via = via,
                                                .lo = lo,
                                                .hi = hi,
                                                .nholders = nh,
                                                .first = w->narena};
    w->narena += nh;
    return AR_OK;
}

/* find_bounds (Fig. 3 (b) lines 12-21) for dest's next range [lo, hi) under
 * node v: one entry per maximal piece with a constant set of holders. */
static ar_status fr_find_bounds(fr_work *w, int level, int v, int dest, uint64_t lo, uint64_t hi) {
    const ar_node *n = &w->p->nodes[v];
    for (uint64_t b = lo; b < hi;) {
        uint64_t end = hi;
        int via = -1;
        for (int c = 0; c < n->nchildren; c++) {
            while (w->ptr[c] < w->child_first[c + 1] - 1 && w->by_child[w->ptr[c]].hi <= b) w->ptr[c]++;
            const fr_key *h = &w->by_child[w->ptr[c]];
            if (h->lo > b || h->hi <= b)
                return ar_fail(w->e, AR_EINTERNAL, "flexreduce: no holder of position %llu under child %d of %s",
                               (unsigned long long)b, c, n->name);
            w->holders[c] = h->rank;
            if (h->hi < end) end = h->hi;
            const ar_node *cn = &w->p->nodes[n->children[c]];
            if (dest >= cn->rank_lo && dest < cn->rank_hi) via = h->rank;
        }
        if (n->nchildren > 1 || via != dest) {
            ar_status st = fr_add_entry(w, level, v, dest, via, b, end, n->nchildren);
            if (st != AR_OK) return st;
        }
        b = end;
    }
    return AR_OK;
}

/* Divides portions, sorts, and runs assign_range for one branch node. */
static ar_status fr_assign_range(fr_work *w, int level, int v) {
    const ar_platform *p = w->p;
    const ar_node *n = &p->nodes[v];
    int lo = n->rank_lo, nl = n->rank_hi - n->rank_lo;
    for (int i = 0; i < nl; i++) {
        int r = lo + i;
        w->por[r] /= (uint64_t)n->nchildren; /* exact: M is a multiple of every path's degree product */
        w->sorted[i] =
            (fr_key){.hi = w->cur_hi[r], .lo = w->cur_lo[r], .name = p->nodes[p->rank_node[r]].name, .rank = r};
    }
    qsort(w->sorted, (size_t)nl, sizeof *w->sorted, fr_cmp_key);
    /* the children's leaves by range start, for the find_bounds cursors */
    for (int c = 0; c < n->nchildren; c++) {
        const ar_node *cn = &p->nodes[n->children[c]];
        w->child_first[c] = cn->rank_lo - lo;
        w->ptr[c] = w->child_first[c];
        for (int r = cn->rank_lo; r < cn->rank_hi; r++)
            w->by_child[r - lo] = (fr_key){.hi = w->cur_hi[r], .lo = w->cur_lo[r], .rank = r};
        qsort(w->by_child + w->child_first[c], (size_t)(cn->rank_hi - cn->rank_lo), sizeof *w->by_child, fr_cmp_lo);
    }
    w->child_first[n->nchildren] = nl;
    uint64_t progress = 0;
    for (int i = 0; i < nl; i++) {
        int r = w->sorted[i].rank;
        w->nxt_lo[r] = progress;
        w->nxt_hi[r] = progress + w->por[r];
        ar_status st = fr_find_bounds(w, level, v, r, w->nxt_lo[r], w->nxt_hi[r]);
        if (st != AR_OK) return st;
        progress += w->por[r];
    }
    if (progress != w->fp->M)
        return ar_fail(w->e, AR_EINTERNAL, "flexreduce: node %s assigned %llu of %llu units", n->name,
                       (unsigned long long)progress, (unsigned long long)w->fp->M);
    return AR_OK;
}

void ar_fr_plan_free(ar_fr_plan *fp) {
    if (!fp) return;
    AR_FREE_ALL(fp->lo, fp->hi, fp->portion, fp->entries, fp->level_first, fp->arena);
    free(fp);
}

static void fr_work_free(fr_work *w) {
    AR_FREE_ALL(w->cur_lo, w->cur_hi, w->nxt_lo, w->nxt_hi, w->por, w->sorted, w->by_child, w->child_first, w->ptr,
                w->holders);
}

ar_status ar_fr_plan_build(const ar_platform *p, ar_fr_plan **out, ar_err *e) {
    *out = NULL;
    ar_status st = ar_fr_check_tree(p, "flexreduce", e);
    if (st != AR_OK) return st;
    int P = p->nranks, L = p->height, maxdeg = 1;
    for (int v = 0; v < p->nnodes; v++)
        if (p->nodes[v].nchildren > maxdeg) maxdeg = p->nodes[v].nchildren;
    ar_fr_plan *fp = ar_calloc(1, sizeof *fp);
    uint64_t *m = ar_calloc((size_t)p->nnodes, sizeof *m);
    fr_work w = {.p = p, .fp = fp, .e = e};
    size_t PL = (size_t)P * (size_t)L;
    if (fp) {
        fp->L = L;
        fp->nranks = P;
        fp->lo = ar_calloc(PL, sizeof *fp->lo);
        fp->hi = ar_calloc(PL, sizeof *fp->hi);
        fp->portion = ar_calloc(PL, sizeof *fp->portion);
        fp->level_first = ar_calloc((size_t)L + 1, sizeof *fp->level_first);
    }
    w.cur_lo = ar_calloc((size_t)P, sizeof(uint64_t));
    w.cur_hi = ar_calloc((size_t)P, sizeof(uint64_t));
    w.nxt_lo = ar_calloc((size_t)P, sizeof(uint64_t));
    w.nxt_hi = ar_calloc((size_t)P, sizeof(uint64_t));
    w.por = ar_calloc((size_t)P, sizeof(uint64_t));
    w.sorted = ar_calloc((size_t)P, sizeof *w.sorted);
    w.by_child = ar_calloc((size_t)P, sizeof *w.by_child);
    w.child_first = ar_calloc((size_t)maxdeg + 1, sizeof(int));
    w.ptr = ar_calloc((size_t)maxdeg, sizeof(int));
    w.holders = ar_calloc((size_t)maxdeg, sizeof(int));
    if (!fp || !m || !fp->lo || !fp->hi || !fp->portion || !fp->level_first || !w.cur_lo || !w.cur_hi || !w.nxt_lo ||
        !w.nxt_hi || !w.por || !w.sorted || !w.by_child || !w.child_first || !w.ptr || !w.holders) {
        st = ar_fail(e, AR_ENOMEM, "flexreduce: out of memory");
        goto done;
    }
    fp->M = fr_denominator(p, m);
    if (!fp->M) {
        st = ar_fail(e, AR_EUNSUPPORTED,
                     "flexreduce: platform '%s': the exact range unit 1/M needs M > 2^62 (degree products and "
                     "their lcm are too large)",
                     p->name ? p->name : "?");
        goto done;
    }
    for (int r = 0; r < P; r++) { /* FlexReduce_plan lines 3-4 */
        w.por[r] = fp->M;
        w.cur_lo[r] = 0;
        w.cur_hi[r] = fp->M;
    }
    for (int l = 0; l < L && st == AR_OK; l++) { /* reverse-BFS levels, bottom-up */
        fp->level_first[l] = fp->nentries;
        for (int v = 0; v < p->nnodes && st == AR_OK; v++)
            if (p->nodes[v].kind == AR_NODE_SWITCH && ar_fr_level_of(p, v) == l) st = fr_assign_range(&w, l, v);
        for (int r = 0; r < P; r++) { /* line 12-13: range = next_range */
            w.cur_lo[r] = w.nxt_lo[r];
            w.cur_hi[r] = w.nxt_hi[r];
            fp->lo[(size_t)l * (size_t)P + (size_t)r] = w.cur_lo[r];
            fp->hi[(size_t)l * (size_t)P + (size_t)r] = w.cur_hi[r];
            fp->portion[(size_t)l * (size_t)P + (size_t)r] = w.por[r];
        }
    }
    fp->level_first[L] = fp->nentries;
    snprintf(fp->desc, sizeof fp->desc, "M=%llu, %d level%s, %d reduce calls", (unsigned long long)fp->M, L,
             L == 1 ? "" : "s", fp->nentries);
done:
    free(m);
    fr_work_free(&w);
    if (st != AR_OK) {
        ar_fr_plan_free(fp);
        return st;
    }
    *out = fp;
    return AR_OK;
}

void ar_fr_calls(const ar_fr_plan *fp, int *calls) {
    memset(calls, 0, (size_t)fp->L * (size_t)fp->nranks * sizeof *calls);
    for (int i = 0; i < fp->nentries; i++)
        calls[(size_t)fp->entries[i].level * (size_t)fp->nranks + (size_t)fp->entries[i].dest]++;
}

/* --- the schedule ------------------------------------------------------------ */

typedef struct fr_sched {
    ar_schedule *s;
    const ar_fr_plan *fp;
    ar_impl impl;
    int chunks;
} fr_sched;

static int fr_root_index(const ar_fr_plan *fp, const ar_fr_entry *en) {
    for (int i = 0; i < en->nholders; i++)
        if (fp->arena[en->first + i] == en->via) return i;
    return 0;
}

/* Appends level l's REDUCE (bcast = 0) or BROADCAST (bcast = 1) phase. */
static ar_status fr_group_phase(fr_sched *x, int l, int bcast) {
    const ar_fr_plan *fp = x->fp;
    int n = 0;
    for (int i = fp->level_first[l]; i < fp->level_first[l + 1]; i++)
        n += ar_fr_elem(fp, fp->entries[i].lo, x->s->count) < ar_fr_elem(fp, fp->entries[i].hi, x->s->count);
    if (n == 0) return AR_OK;
    if (ar_sched_phase(x->s, "level %d: %d %s calls (%s)", l, n, bcast ? "broadcast" : "reduce",
                       ar_impl_name(x->impl)) < 0)
        return AR_ENOMEM;
    for (int i = fp->level_first[l]; i < fp->level_first[l + 1]; i++) {
        const ar_fr_entry *en = &fp->entries[i];
        uint64_t a = ar_fr_elem(fp, en->lo, x->s->count), b = ar_fr_elem(fp, en->hi, x->s->count);
        if (a == b) continue;
        ar_op *op = ar_sched_op(x->s, bcast ? AR_OP_BROADCAST : AR_OP_REDUCE, x->impl, fp->arena + en->first,
                                en->nholders, a, b - a);
        if (!op) return AR_ENOMEM;
        op->root = fr_root_index(fp, en);
        op->chunks = x->chunks;
        op->tag = l;
    }
    return AR_OK;
}

/* Appends level l's copies between `via` and a destination that holds none of
 * the piece: via -> dest (back = 0, after the reduce) or dest -> via (back = 1,
 * before the broadcast). */
static ar_status fr_send_phase(fr_sched *x, int l, int back) {
    const ar_fr_plan *fp = x->fp;
    int n = 0;
    for (int i = fp->level_first[l]; i < fp->level_first[l + 1]; i++) {
        const ar_fr_entry *en = &fp->entries[i];
        n += en->via != en->dest && ar_fr_elem(fp, en->lo, x->s->count) < ar_fr_elem(fp, en->hi, x->s->count);
    }
    if (n == 0) return AR_OK;
    if (ar_sched_phase(x->s,
                       back ? "level %d: %d copies back from non-holding destinations"
                            : "level %d: %d copies to non-holding destinations",
                       l, n) < 0)
        return AR_ENOMEM;
    for (int i = fp->level_first[l]; i < fp->level_first[l + 1]; i++) {
        const ar_fr_entry *en = &fp->entries[i];
        uint64_t a = ar_fr_elem(fp, en->lo, x->s->count), b = ar_fr_elem(fp, en->hi, x->s->count);
        if (en->via == en->dest || a == b) continue;
        int pair[2] = {back ? en->dest : en->via, back ? en->via : en->dest};
        ar_op *op = ar_sched_op(x->s, AR_OP_SEND, AR_IMPL_DIRECT, pair, 2, a, b - a);
        if (!op) return AR_ENOMEM;
        op->reduce = 0;
        op->tag = l;
    }
    return AR_OK;
}

/* impl= words, in the order of AR_IMPL_* they map to (fr_impls). */
static const ar_param_def fr_params[] = {
    [AR_FR_P_IMPL] = {.key = "impl",
                      .type = AR_PARAM_ENUM,
                      .choices = "chain|ring|binomial|direct|native",
                      .help = "implementation of every reduce/broadcast call (reduce calls have any number of "
                              "holders, so hd and tree do not apply)"},
    [AR_FR_P_CHUNKS] = {.key = "chunks",
                        .type = AR_PARAM_INT,
                        .min = 1,
                        .max = 4096,
                        .def = 1,
                        .help = "pipeline chunks per reduce/broadcast call"},
    {0},
};
static const ar_impl fr_impls[] = {AR_IMPL_CHAIN, AR_IMPL_RING, AR_IMPL_BINOMIAL, AR_IMPL_DIRECT, AR_IMPL_NATIVE};

static ar_status fr_plan(const ar_platform *p, uint64_t count, size_t elem_bytes, const ar_param_val *v,
                         ar_schedule **out, ar_err *e) {
    static const char *A = "flexreduce";
    ar_status st = ar_classic_check(A, p, count, elem_bytes, out, e);
    if (st != AR_OK) return st;
    long long chunks = v[AR_FR_P_CHUNKS].i;
    ar_impl impl = fr_impls[v[AR_FR_P_IMPL].i];
    ar_fr_plan *fp = NULL;
    st = ar_fr_plan_build(p, &fp, e);
    if (st != AR_OK) return st;
    fr_sched x = {.s = ar_schedule_new(A, p->nranks, count, elem_bytes), .fp = fp, .impl = impl, .chunks = (int)chunks};
    st = x.s ? AR_OK : AR_ENOMEM;
    /* At the top level the copy via -> destination would be followed at once by
     * the copy back (the all-gather starts there): both are left out, and the
     * top-level broadcast starts from via, which holds the sum. */
    for (int l = 0; l < fp->L && st == AR_OK; l++) {
        st = fr_group_phase(&x, l, 0);
        if (st == AR_OK && l < fp->L - 1) st = fr_send_phase(&x, l, 0);
    }
    for (int l = fp->L - 1; l >= 0 && st == AR_OK; l--) {
        if (l < fp->L - 1) st = fr_send_phase(&x, l, 1);
        if (st == AR_OK) st = fr_group_phase(&x, l, 1);
    }
    if (st == AR_OK) st = ar_schedule_set_detail(x.s, "%s, impl=%s chunks=%lld", fp->desc, ar_impl_name(impl), chunks);
    ar_fr_plan_free(fp);
    if (st != AR_OK) return ar_classic_nomem(A, x.s, e);
    *out = x.s;
    return AR_OK;
}

const ar_algo ar_algo_flexreduce = {
    .name = "flexreduce",
    .label = "FlexReduce",
    .summary = "uneven decomposed all-reduce for asymmetric trees: per-level reduce calls on exact uneven ranges, "
               "broadcasts in reverse (Fig. 3, Eq. 6)",
    .params = fr_params,
    .plan = fr_plan,
    .closed = ar_fr_closed,
    .stats = ar_fr_stats,
    .calls = ar_fr_calls_table,
};
