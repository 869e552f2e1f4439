/* Schedule building, queries, structural checks and printing (schedule.h). */
#include "schedule.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "textio.h"

static const char *const op_names[AR_OP_KIND_COUNT] = {"reduce-scatter", "all-gather", "reduce",
                                                       "broadcast",      "all-reduce", "send"};
static const char *const impl_names[AR_IMPL_COUNT] = {"ring",   "hd",   "binomial", "chain",
                                                      "direct", "tree", "native",   "switch"};

const char *ar_op_kind_name(ar_op_kind k) { return (unsigned)k < AR_OP_KIND_COUNT ? op_names[k] : "?"; }

const char *ar_impl_name(ar_impl i) { return (unsigned)i < AR_IMPL_COUNT ? impl_names[i] : "?"; }

ar_status ar_impl_parse(const char *s, ar_impl *out, ar_err *e) {
    for (int i = 0; i < AR_IMPL_COUNT; i++)
        if (strcmp(s, impl_names[i]) == 0) {
            *out = (ar_impl)i;
            return AR_OK;
        }
    return ar_fail(e, AR_EINVAL,
                   "\"%s\" is not an implementation (use ring, hd, binomial, chain, direct, tree or native)", s);
}

static const char *const proto_names[AR_PROTO_COUNT] = {"none", "ll", "ll128", "simple"};

const char *ar_proto_name(ar_proto p) { return (unsigned)p < AR_PROTO_COUNT ? proto_names[p] : "?"; }

static const char *const coll_names[AR_COLL_COUNT] = {"allreduce", "reducescatter", "allgather"};

const char *ar_coll_name(ar_coll c) { return (unsigned)c < AR_COLL_COUNT ? coll_names[c] : "?"; }

ar_status ar_coll_parse(const char *s, ar_coll *out, ar_err *e) {
    for (int i = 0; s && i < AR_COLL_COUNT; i++)
        if (strcmp(s, coll_names[i]) == 0) {
            *out = (ar_coll)i;
            return AR_OK;
        }
    return ar_fail(e, AR_EINVAL, "\"%s\" is not a collective (use allreduce, reducescatter or allgather)", s ? s : "");
}

void ar_coll_block(int nranks, uint64_t count, int i, uint64_t *off, uint64_t *len) {
    uint64_t n = (uint64_t)nranks, q = count / n, r = count % n, u = (uint64_t)i;
    *off = u * q + (u < r ? u : r);
    *len = q + (u < r ? 1 : 0);
}

ar_schedule *ar_schedule_new(const char *algo, int nranks, uint64_t count, size_t elem_bytes) {
    ar_schedule *s = ar_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->algo = ar_strdup(algo ? algo : "?");
    if (!s->algo) {
        free(s);
        return NULL;
    }
    s->nranks = nranks;
    s->count = count;
    s->elem_bytes = elem_bytes;
    return s;
}

static void op_free(ar_op *op) { AR_FREE_ALL(op->sw_name, op->members, op->counts, op->offs, op->parent); }

void ar_schedule_free(ar_schedule *s) {
    if (!s) return;
    for (int p = 0; p < s->nphases; p++) {
        for (int i = 0; i < s->phases[p].nops; i++) op_free(&s->phases[p].ops[i]);
        free(s->phases[p].ops);
        free(s->phases[p].label);
    }
    free(s->phases);
    free(s->algo);
    free(s->detail);
    free(s);
}

int ar_schedule_uses_switch(const ar_schedule *s) {
    for (int p = 0; s && p < s->nphases; p++)
        for (int i = 0; i < s->phases[p].nops; i++)
            if (s->phases[p].ops[i].impl == AR_IMPL_SWITCH) return 1;
    return 0;
}

int ar_schedule_uses_proto(const ar_schedule *s) {
    for (int p = 0; s && p < s->nphases; p++)
        for (int i = 0; i < s->phases[p].nops; i++)
            if (s->phases[p].ops[i].proto != AR_PROTO_NONE) return 1;
    return 0;
}

void ar_schedule_keep_phases(ar_schedule *s, ar_op_kind kind) {
    int k = 0;
    for (int p = 0; p < s->nphases; p++) {
        ar_phase *ph = &s->phases[p];
        int keep = ph->nops > 0;
        for (int i = 0; i < ph->nops; i++) keep = keep && ph->ops[i].kind == kind;
        if (keep) {
            s->phases[k++] = *ph;
            continue;
        }
        for (int i = 0; i < ph->nops; i++) op_free(&ph->ops[i]);
        free(ph->ops);
        free(ph->label);
    }
    s->nphases = k;
}

__attribute__((format(printf, 1, 0))) static char *vfmt(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return NULL;
    char *buf = malloc((size_t)n + 1);
    if (buf) vsnprintf(buf, (size_t)n + 1, fmt, ap);
    return buf;
}

ar_status ar_schedule_set_detail(ar_schedule *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *d = vfmt(fmt, ap);
    va_end(ap);
    if (!d) return AR_ENOMEM;
    free(s->detail);
    s->detail = d;
    return AR_OK;
}

int ar_sched_phase(ar_schedule *s, const char *label_fmt, ...) {
    if (s->nphases == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        ar_phase *np = ar_reallocarray(s->phases, (size_t)cap, sizeof *np);
        if (!np) return -1;
        s->phases = np;
        s->cap = cap;
    }
    ar_phase *ph = &s->phases[s->nphases];
    memset(ph, 0, sizeof *ph);
    if (label_fmt) {
        va_list ap;
        va_start(ap, label_fmt);
        ph->label = vfmt(label_fmt, ap);
        va_end(ap);
        if (!ph->label) return -1;
    }
    return s->nphases++;
}

ar_op *ar_sched_op(ar_schedule *s, ar_op_kind kind, ar_impl impl, const int *members, int n, uint64_t offset,
                   uint64_t count) {
    if (s->nphases == 0 && ar_sched_phase(s, NULL) < 0) return NULL;
    if (n < 1) return NULL;
    ar_phase *ph = &s->phases[s->nphases - 1];
    if (ph->nops == ph->cap) {
        int cap = ph->cap ? 2 * ph->cap : 4;
        ar_op *no = ar_reallocarray(ph->ops, (size_t)cap, sizeof *no);
        if (!no) return NULL;
        ph->ops = no;
        ph->cap = cap;
    }
    int *m = ar_reallocarray(NULL, (size_t)n, sizeof *m);
    if (!m) return NULL;
    memcpy(m, members, (size_t)n * sizeof *m);
    ar_op *op = &ph->ops[ph->nops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->impl = impl;
    op->n = n;
    op->members = m;
    op->offset = offset;
    op->count = count;
    op->chunks = 1;
    op->reduce = 1;
    op->sw = -1;
    return op;
}

/* A copy of an op's per-member array (n entries of `size` bytes), or NULL when out of memory. */
static void *member_array(const ar_op *op, const void *from, size_t size) {
    void *c = ar_reallocarray(NULL, (size_t)op->n, size);
    if (c) memcpy(c, from, (size_t)op->n * size);
    return c;
}

ar_status ar_op_set_counts(ar_op *op, const uint64_t *counts) {
    uint64_t *c = member_array(op, counts, sizeof *c);
    if (!c) return AR_ENOMEM;
    free(op->counts);
    op->counts = c;
    return AR_OK;
}

ar_status ar_op_set_parent(ar_op *op, const int *parent) {
    int *c = member_array(op, parent, sizeof *c);
    if (!c) return AR_ENOMEM;
    free(op->parent);
    op->parent = c;
    return AR_OK;
}

ar_status ar_op_set_offs(ar_op *op, const uint64_t *offs) {
    uint64_t *c = member_array(op, offs, sizeof *c);
    if (!c) return AR_ENOMEM;
    free(op->offs);
    op->offs = c;
    op->offset = c[0];
    for (int i = 1; i < op->n; i++)
        if (c[i] < op->offset) op->offset = c[i];
    return AR_OK;
}

void ar_op_block(const ar_op *op, int i, uint64_t *off, uint64_t *len) {
    if (op->offs) {
        uint64_t n = (uint64_t)op->n, q = op->count / n, r = op->count % n, ui = (uint64_t)i;
        *off = op->offs[i];
        *len = op->counts ? op->counts[i] : q + (ui < r ? 1 : 0);
        return;
    }
    if (op->counts) {
        uint64_t o = op->offset;
        for (int j = 0; j < i; j++) o += op->counts[j];
        *off = o;
        *len = op->counts[i];
        return;
    }
    uint64_t n = (uint64_t)op->n, q = op->count / n, r = op->count % n, ui = (uint64_t)i;
    *off = op->offset + ui * q + (ui < r ? ui : r);
    *len = q + (ui < r ? 1 : 0);
}

/* ---------------------------------------------------------------------- */

static int op_reduces(const ar_op *op) {
    switch (op->kind) {
    case AR_OP_REDUCE_SCATTER:
    case AR_OP_REDUCE:
    case AR_OP_ALL_REDUCE: return 1;
    case AR_OP_SEND: return op->reduce;
    default: return 0;
    }
}

ar_status ar_schedule_call_stats(const ar_schedule *s, ar_call_stats *out, ar_err *e) {
    out->reduce_calls = ar_calloc((size_t)s->nranks, sizeof(int));
    out->bcast_calls = ar_calloc((size_t)s->nranks, sizeof(int));
    if (!out->reduce_calls || !out->bcast_calls) {
        ar_call_stats_free(out);
        return ar_fail(e, AR_ENOMEM, "out of memory counting calls");
    }
    for (int p = 0; p < s->nphases; p++)
        for (int i = 0; i < s->phases[p].nops; i++) {
            const ar_op *op = &s->phases[p].ops[i];
            int *cnt = op_reduces(op) ? out->reduce_calls : out->bcast_calls;
            for (int m = 0; m < op->n; m++)
                if (op->members[m] >= 0 && op->members[m] < s->nranks) cnt[op->members[m]]++;
        }
    return AR_OK;
}

void ar_call_stats_free(ar_call_stats *c) {
    free(c->reduce_calls);
    free(c->bcast_calls);
    c->reduce_calls = c->bcast_calls = NULL;
}

static int impl_supports(ar_op_kind k, ar_impl i) {
    if (k == AR_OP_SEND) return 1; /* a send is one transfer whatever the implementation */
    switch (i) {
    case AR_IMPL_RING:
    case AR_IMPL_NATIVE:
    case AR_IMPL_DIRECT:
    case AR_IMPL_HD: return 1;
    case AR_IMPL_BINOMIAL:
    case AR_IMPL_CHAIN:
    case AR_IMPL_TREE: return k == AR_OP_REDUCE || k == AR_OP_BROADCAST || k == AR_OP_ALL_REDUCE;
    case AR_IMPL_SWITCH: return k != AR_OP_SEND;
    }
    return 0;
}

typedef struct blk {
    uint64_t off, len;
    int m;
} blk;

static int cmp_blk(const void *x, const void *y) {
    const blk *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* A per-member layout (schedule.h): a kind and implementation that take one, every block in the
 * buffer, no two blocks overlapping. */
static ar_status check_layout(const ar_schedule *s, const ar_op *op, int p, int i, ar_err *e) {
    const char *kn = ar_op_kind_name(op->kind);
    if (op->kind != AR_OP_REDUCE_SCATTER && op->kind != AR_OP_ALL_GATHER && op->kind != AR_OP_ALL_REDUCE)
        return ar_fail(e, AR_EINVAL,
                       "schedule %s: phase %d op %d (%s): a per-member block layout (offs) is for "
                       "reduce-scatter, all-gather and all-reduce ops only",
                       s->algo, p, i, kn);
    if (op->impl != AR_IMPL_RING && op->impl != AR_IMPL_NATIVE && op->impl != AR_IMPL_DIRECT)
        return ar_fail(e, AR_EINVAL,
                       "schedule %s: phase %d op %d (%s): implementation %s cannot carry a per-member block "
                       "layout (offs; ring, native or direct can)",
                       s->algo, p, i, kn, ar_impl_name(op->impl));
    blk *b = ar_reallocarray(NULL, (size_t)op->n, sizeof *b);
    if (!b) return ar_fail(e, AR_ENOMEM, "out of memory checking schedule");
    ar_status st = AR_OK;
    for (int m = 0; m < op->n && st == AR_OK; m++) {
        ar_op_block(op, m, &b[m].off, &b[m].len);
        b[m].m = m;
        if (b[m].off > s->count || b[m].len > s->count - b[m].off)
            st = ar_fail(e, AR_EINVAL, "schedule %s: phase %d op %d (%s): block %d [%llu,+%llu) outside buffer of %llu",
                         s->algo, p, i, kn, m, (unsigned long long)b[m].off, (unsigned long long)b[m].len,
                         (unsigned long long)s->count);
    }
    if (st == AR_OK) {
        qsort(b, (size_t)op->n, sizeof *b, cmp_blk);
        for (int k = 1; k < op->n && st == AR_OK; k++)
            if (b[k - 1].len && b[k].len && b[k].off < b[k - 1].off + b[k - 1].len)
                st = ar_fail(e, AR_EINVAL,
                             "schedule %s: phase %d op %d (%s): blocks %d [%llu,+%llu) and %d [%llu,+%llu) overlap "
                             "(offs)",
                             s->algo, p, i, kn, b[k - 1].m, (unsigned long long)b[k - 1].off,
                             (unsigned long long)b[k - 1].len, b[k].m, (unsigned long long)b[k].off,
                             (unsigned long long)b[k].len);
    }
    free(b);
    return st;
}

ar_status ar_schedule_check_structure(const ar_schedule *s, ar_err *e) {
    if (s->nranks < 1) return ar_fail(e, AR_EINTERNAL, "schedule %s: %d ranks", s->algo, s->nranks);
    if (s->count < 1) return ar_fail(e, AR_EINTERNAL, "schedule %s: empty buffer", s->algo);
    unsigned char *seen = ar_calloc((size_t)s->nranks, 1);
    if (!seen) return ar_fail(e, AR_ENOMEM, "out of memory checking schedule");
    ar_status st = AR_OK;
    for (int p = 0; p < s->nphases && st == AR_OK; p++) {
        for (int i = 0; i < s->phases[p].nops && st == AR_OK; i++) {
            const ar_op *op = &s->phases[p].ops[i];
#define BAD(...) (st = ar_fail(e, AR_EINTERNAL, "schedule %s: phase %d op %d (%s): " __VA_ARGS__))
            if ((unsigned)op->kind >= AR_OP_KIND_COUNT || (unsigned)op->impl >= AR_IMPL_COUNT) {
                BAD("bad kind/impl", s->algo, p, i, "?");
                break;
            }
            const char *kn = ar_op_kind_name(op->kind);
            if (op->n < 1) BAD("no members", s->algo, p, i, kn);
            else if (op->chunks < 1) BAD("chunks %d outside 1..%d", s->algo, p, i, kn, op->chunks, AR_MAX_CHUNKS);
            else if (op->chunks > AR_MAX_CHUNKS)
                st = ar_fail(e, AR_ELIMIT, "schedule %s: phase %d op %d (%s): %d chunks is beyond the limit of %d",
                             s->algo, p, i, kn, op->chunks, AR_MAX_CHUNKS);
            else if (!op->offs && (op->offset > s->count || op->count > s->count - op->offset))
                BAD("range [%llu,+%llu) outside buffer of %llu", s->algo, p, i, kn, (unsigned long long)op->offset,
                    (unsigned long long)op->count, (unsigned long long)s->count);
            else if (!impl_supports(op->kind, op->impl))
                BAD("implementation %s cannot carry it", s->algo, p, i, kn, ar_impl_name(op->impl));
            else if (op->kind == AR_OP_SEND && op->n != 2)
                BAD("a send needs 2 members, has %d", s->algo, p, i, kn, op->n);
            else if (op->impl == AR_IMPL_DIRECT && op->n > AR_DIRECT_MAX_MEMBERS)
                st = ar_fail(e, AR_ELIMIT,
                             "%s: a direct %s over %d ranks is beyond the limit of %d "
                             "(n(n-1) transfers per round)",
                             s->algo, kn, op->n, AR_DIRECT_MAX_MEMBERS);
            else if (op->impl == AR_IMPL_HD && !ar_is_pow2(op->n))
                BAD("halving/doubling over %d members (not a power of two)", s->algo, p, i, kn, op->n);
            else if ((op->kind == AR_OP_REDUCE || op->kind == AR_OP_BROADCAST) && (op->root < 0 || op->root >= op->n))
                BAD("root %d out of range", s->algo, p, i, kn, op->root);
            else if (op->impl == AR_IMPL_SWITCH && op->sw < 0 && !op->sw_name) /* a name: resolved later */
                BAD("switch implementation without a switch", s->algo, p, i, kn);
            else if (op->impl == AR_IMPL_TREE && !op->parent)
                BAD("tree implementation without a parent array", s->algo, p, i, kn);
            if (st != AR_OK) break;
            for (int m = 0; m < op->n; m++) {
                int r = op->members[m];
                if (r < 0 || r >= s->nranks) {
                    BAD("member %d is rank %d, outside 0..%d", s->algo, p, i, kn, m, r, s->nranks - 1);
                    break;
                }
                if (seen[r]) {
                    BAD("rank %d listed twice", s->algo, p, i, kn, r);
                    break;
                }
                seen[r] = 1;
            }
            for (int m = 0; m < op->n; m++)
                if (op->members[m] >= 0 && op->members[m] < s->nranks) seen[op->members[m]] = 0;
            if (st != AR_OK) break;
            if (op->counts) {
                uint64_t sum = 0;
                for (int m = 0; m < op->n; m++) {
                    if (op->counts[m] > op->count - sum) {
                        BAD("uneven counts exceed the range", s->algo, p, i, kn);
                        break;
                    }
                    sum += op->counts[m];
                }
                if (st == AR_OK && sum != op->count)
                    BAD("uneven counts sum to %llu, range has %llu", s->algo, p, i, kn, (unsigned long long)sum,
                        (unsigned long long)op->count);
            }
            if (st == AR_OK && op->offs) st = check_layout(s, op, p, i, e);
            if (st == AR_OK && op->parent) {
                /* exactly one root (= op->root), every member reaches it */
                int roots = 0;
                for (int m = 0; m < op->n && st == AR_OK; m++) {
                    int q = op->parent[m];
                    if (q == -1) {
                        roots++;
                        if (m != op->root) BAD("tree root is member %d, op root %d", s->algo, p, i, kn, m, op->root);
                    } else if (q < 0 || q >= op->n || q == m) {
                        BAD("parent[%d] = %d invalid", s->algo, p, i, kn, m, q);
                    } else {
                        int steps = 0, v = m;
                        while (v != -1 && steps <= op->n) {
                            v = op->parent[v];
                            if (v < -1 || v >= op->n) break;
                            steps++;
                        }
                        if (v != -1) BAD("member %d does not reach the root (cycle)", s->algo, p, i, kn, m);
                    }
                }
                if (st == AR_OK && roots != 1) BAD("tree has %d roots", s->algo, p, i, kn, roots);
            }
#undef BAD
        }
    }
    free(seen);
    return st;
}

/* ---------------------------------------------------------------------- */

static void print_members(FILE *f, const ar_op *op, int max) {
    for (int m = 0; m < op->n && m < max; m++) fprintf(f, "%s%d", m ? "," : "", op->members[m]);
    if (op->n > max) fprintf(f, ",...(%d)", op->n);
}

void ar_schedule_print_table(const ar_schedule *s, FILE *f) {
    fprintf(f, "schedule %s%s%s: %d ranks, %llu elements x %zu B, %d phases\n", s->algo, s->detail ? " " : "",
            s->detail ? s->detail : "", s->nranks, (unsigned long long)s->count, s->elem_bytes, s->nphases);
    for (int p = 0; p < s->nphases; p++) {
        const ar_phase *ph = &s->phases[p];
        fprintf(f, "phase %d%s%s: %d op%s\n", p, ph->label ? " " : "", ph->label ? ph->label : "", ph->nops,
                ph->nops == 1 ? "" : "s");
        int shown = ph->nops > 12 ? 8 : ph->nops;
        for (int i = 0; i < shown; i++) {
            const ar_op *op = &ph->ops[i];
            fprintf(f, "  %-14s %-8s n=%-4d [%llu,+%llu)", ar_op_kind_name(op->kind), ar_impl_name(op->impl), op->n,
                    (unsigned long long)op->offset, (unsigned long long)op->count);
            if (op->chunks > 1) fprintf(f, " chunks=%d", op->chunks);
            if (op->impl == AR_IMPL_SWITCH) fprintf(f, " switch=node%d", op->sw);
            if (op->kind == AR_OP_REDUCE || op->kind == AR_OP_BROADCAST) fprintf(f, " root=%d", op->members[op->root]);
            if (op->counts) fprintf(f, " uneven");
            if (op->offs) fprintf(f, " layout");
            fprintf(f, " ranks=");
            print_members(f, op, 16);
            fputc('\n', f);
        }
        if (shown < ph->nops) fprintf(f, "  ... %d more ops\n", ph->nops - shown);
    }
}

ar_status ar_schedule_print_json(const ar_schedule *s, FILE *f, ar_err *e) {
    fprintf(f, "{\"algo\":");
    ar_json_string(f, s->algo);
    fprintf(f, ",\"detail\":");
    ar_json_string(f, s->detail ? s->detail : "");
    if (s->coll != AR_COLL_ALLREDUCE) fprintf(f, ",\"collective\":\"%s\"", ar_coll_name(s->coll));
    fprintf(f, ",\"ranks\":%d,\"count\":%llu,\"elem_bytes\":%zu,\"phases\":[", s->nranks, (unsigned long long)s->count,
            s->elem_bytes);
    for (int p = 0; p < s->nphases; p++) {
        const ar_phase *ph = &s->phases[p];
        fprintf(f, "%s\n {\"label\":", p ? "," : "");
        ar_json_string(f, ph->label ? ph->label : "");
        fprintf(f, ",\"ops\":[");
        for (int i = 0; i < ph->nops; i++) {
            const ar_op *op = &ph->ops[i];
            fprintf(f, "%s\n  {\"kind\":\"%s\",\"impl\":\"%s\",\"offset\":%llu,\"count\":%llu,\"chunks\":%d",
                    i ? "," : "", ar_op_kind_name(op->kind), ar_impl_name(op->impl), (unsigned long long)op->offset,
                    (unsigned long long)op->count, op->chunks);
            if (op->kind == AR_OP_REDUCE || op->kind == AR_OP_BROADCAST) fprintf(f, ",\"root\":%d", op->root);
            if (op->kind == AR_OP_SEND) fprintf(f, ",\"reduce\":%d", op->reduce);
            if (op->proto != AR_PROTO_NONE) fprintf(f, ",\"proto\":\"%s\"", ar_proto_name(op->proto));
            if (op->impl == AR_IMPL_SWITCH) fprintf(f, ",\"switch\":%d", op->sw);
            fprintf(f, ",\"members\":[");
            for (int m = 0; m < op->n; m++) fprintf(f, "%s%d", m ? "," : "", op->members[m]);
            fprintf(f, "]");
            if (op->counts) {
                fprintf(f, ",\"counts\":[");
                for (int m = 0; m < op->n; m++) fprintf(f, "%s%llu", m ? "," : "", (unsigned long long)op->counts[m]);
                fprintf(f, "]");
            }
            if (op->offs) {
                fprintf(f, ",\"offs\":[");
                for (int m = 0; m < op->n; m++) fprintf(f, "%s%llu", m ? "," : "", (unsigned long long)op->offs[m]);
                fprintf(f, "]");
            }
            if (op->parent) {
                fprintf(f, ",\"parent\":[");
                for (int m = 0; m < op->n; m++) fprintf(f, "%s%d", m ? "," : "", op->parent[m]);
                fprintf(f, "]");
            }
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    if (ferror(f)) return ar_fail(e, AR_EIO, "error writing schedule JSON");
    return AR_OK;
}
