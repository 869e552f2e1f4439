/* Host simulation of the per-rank NCCL programs (rplan.h: ar_real_simulate).
 *
 * A fake NCCL with the rules the real one enforces: inside one step (one
 * ncclGroupStart/End), the k-th collective a rank issues on a communicator
 * matches the k-th of every other member (same call, count and root), and the
 * k-th send from a to b matches the k-th receive on b from a (same count).
 * Everything in a step reads the buffers as they were when the step began
 * (writes are staged), and a step in which an instruction writes a range
 * another instruction of the same rank reads or writes is reported as a race
 * (on a GPU its result would depend on timing). Posts run after the group,
 * wave by wave; posts of one wave must not overlap.
 */
#include <stdlib.h>
#include <string.h>

#include "rmeasure.h"
#include "core/util.h"
#include "rplan.h"

typedef struct wrec {
    int rank;
    int scratch; /* 1: into scratch */
    uint64_t off, len;
    size_t at; /* offset into the staging area */
} wrec;

typedef struct sim {
    const ar_real_plan *p;
    ar_real_prog *const *progs;
    int P;
    uint64_t count;
    double **buf, **scr;
    double *stage;
    size_t nstage, cap_stage;
    wrec *w;
    size_t nw, cap_w;
    ar_err *e;
} sim;

/* Reserves a staged write of len elements; returns where to put the data. */
static double *stage_write(sim *S, int rank, int scratch, uint64_t off, uint64_t len) {
    if (ar_grow(&S->stage, &S->cap_stage, S->nstage + (size_t)len, sizeof *S->stage) ||
        ar_grow(&S->w, &S->cap_w, S->nw + 1, sizeof *S->w))
        return NULL;
    S->w[S->nw] = (wrec){rank, scratch, off, len, S->nstage};
    S->nw++;
    double *d = S->stage + S->nstage;
    S->nstage += (size_t)len;
    return d;
}

static ar_status nomem(sim *S) { return ar_fail(S->e, AR_ENOMEM, "real simulation: out of memory"); }

static const char *step_name(const ar_real_step *st, char *buf, size_t n) {
    if (st->round < 0) snprintf(buf, n, "phase %d collectives", st->phase);
    else snprintf(buf, n, "phase %d round %d", st->phase, st->round);
    return buf;
}

/* ---- race check: per rank, per step ---- */

typedef struct rv {
    uint64_t off, end;
    size_t id;
    int write;
} rv;

static int rv_cmp(const void *a, const void *b) {
    const rv *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Two largest ends seen so far with distinct instruction ids. */
typedef struct top2 {
    uint64_t e1, e2;
    size_t id1, id2;
    int n1, n2;
} top2;

static void top2_add(top2 *t, uint64_t end, size_t id) {
    if (t->n1 && t->id1 == id) {
        if (end > t->e1) t->e1 = end;
        return;
    }
    if (t->n2 && t->id2 == id) {
        if (end > t->e2) t->e2 = end;
    } else if (!t->n2 || end > t->e2) {
        t->e2 = end;
        t->id2 = id;
        t->n2 = 1;
    } else {
        return;
    }
    if (!t->n1 || t->e2 > t->e1) { /* slot 2 now beats slot 1: swap */
        top2 o = *t;
        t->e1 = o.e2;
        t->id1 = o.id2;
        t->n1 = o.n2;
        t->e2 = o.e1;
        t->id2 = o.id1;
        t->n2 = o.n1;
    }
}

/* An interval of another instruction ending after off? Returns its id or -1. */
static long top2_hit(const top2 *t, uint64_t off, size_t id) {
    if (t->n1 && t->id1 != id && t->e1 > off) return (long)t->id1;
    if (t->n2 && t->id2 != id && t->e2 > off) return (long)t->id2;
    return -1;
}

static ar_status check_races(sim *S, const ar_real_prog *g, const ar_real_step *st, rv **tmp, size_t *cap) {
    size_t k = st->ninstr;
    if (k < 2) return AR_OK;
    for (int pass = 0; pass < 2; pass++) { /* 0: data buffer, 1: scratch */
        if (ar_grow(tmp, cap, 2 * k, sizeof **tmp)) return nomem(S);
        rv *v = *tmp;
        size_t n = 0;
        for (size_t j = 0; j < k; j++) {
            const ar_real_instr *in = &g->instr[st->first_instr + j];
            if (!in->count) continue;
            if (in->kind == AR_RI_SEND) {
                if (!pass) v[n++] = (rv){in->send_off, in->send_off + in->count, j, 0};
            } else if (in->kind == AR_RI_RECV) {
                if (pass == in->scratch) v[n++] = (rv){in->recv_off, in->recv_off + in->count, j, 1};
            } else if (!pass) {
                int gn = S->p->groups[in->group].n;
                uint64_t rl = in->call == AR_RC_REDUCE_SCATTER ? in->count * (uint64_t)gn : in->count;
                uint64_t wl = in->call == AR_RC_ALL_GATHER ? in->count * (uint64_t)gn : in->count;
                v[n++] = (rv){in->send_off, in->send_off + rl, j, 0};
                v[n++] = (rv){in->recv_off, in->recv_off + wl, j, 1};
            }
        }
        qsort(v, n, sizeof *v, rv_cmp);
        top2 rd, wr;
        memset(&rd, 0, sizeof rd);
        memset(&wr, 0, sizeof wr);
        for (size_t a = 0; a < n; a++) {
            long hit = top2_hit(&wr, v[a].off, v[a].id);
            if (hit < 0 && v[a].write) hit = top2_hit(&rd, v[a].off, v[a].id);
            if (hit >= 0) {
                char sb[64];
                return ar_fail(S->e, AR_EINTERNAL,
                               "rank %d, %s: instructions %ld and %zu touch overlapping %s ranges in one NCCL group "
                               "and one of them writes (a race)",
                               g->rank, step_name(st, sb, sizeof sb), hit, v[a].id, pass ? "scratch" : "buffer");
            }
            top2_add(v[a].write ? &wr : &rd, v[a].end, v[a].id);
        }
    }
    return AR_OK;
}

/* ---- collectives ---- */

static ar_status run_colls(sim *S, int k) {
    const ar_real_plan *p = S->p;
    size_t *cur = ar_calloc((size_t)S->P, sizeof *cur);
    if (!cur) return nomem(S);
    ar_status st = AR_OK;
    char sb[64];
    for (int gi = 0; gi < p->ngroups && st == AR_OK; gi++) {
        const ar_real_group *G = &p->groups[gi];
        for (int i = 0; i < G->n; i++) cur[i] = 0;
        for (;;) {
            /* the next collective on gi of every member */
            const ar_real_instr *in0 = NULL;
            int have = 0;
            const ar_real_instr **ins = ar_calloc((size_t)G->n, sizeof *ins);
            if (!ins) {
                st = nomem(S);
                break;
            }
            for (int i = 0; i < G->n; i++) {
                const ar_real_prog *g = S->progs[G->members[i]];
                const ar_real_step *sp = &g->steps[k];
                for (size_t j = cur[i]; j < sp->ninstr; j++) {
                    const ar_real_instr *in = &g->instr[sp->first_instr + j];
                    if (in->kind == AR_RI_COLL && in->group == gi) {
                        ins[i] = in;
                        cur[i] = j + 1;
                        break;
                    }
                }
                if (ins[i]) have++;
                if (ins[i] && !in0) in0 = ins[i];
            }
            if (!have) {
                free(ins);
                break;
            }
            for (int i = 0; i < G->n && st == AR_OK; i++) {
                const ar_real_instr *in = ins[i];
                if (!in)
                    st = ar_fail(S->e, AR_EINTERNAL, "%s: comm %d: rank %d issues no %s that rank %d issues (hang)",
                                 step_name(&S->progs[G->members[0]]->steps[k], sb, sizeof sb), gi, G->members[i],
                                 ar_real_call_name(in0->call), G->members[0]);
                else if (in->call != in0->call || in->count != in0->count || in->root != in0->root)
                    st = ar_fail(S->e, AR_EINTERNAL,
                                 "%s: comm %d: rank %d issues %s count %llu root %d, another member %s count %llu "
                                 "root %d (mismatch)",
                                 step_name(&S->progs[G->members[i]]->steps[k], sb, sizeof sb), gi, G->members[i],
                                 ar_real_call_name(in->call), (unsigned long long)in->count, in->root,
                                 ar_real_call_name(in0->call), (unsigned long long)in0->count, in0->root);
            }
            if (st != AR_OK) {
                free(ins);
                break;
            }
            uint64_t c = in0->count;
            int n = G->n;
            const int *m = G->members;
            for (int i = 0; i < n && st == AR_OK; i++) {
                int r = m[i];
                const ar_real_instr *in = ins[i];
                uint64_t lim = S->count;
                uint64_t rl = in->call == AR_RC_REDUCE_SCATTER ? c * (uint64_t)n : c;
                uint64_t wl = in->call == AR_RC_ALL_GATHER ? c * (uint64_t)n : c;
                if (in->send_off > lim || rl > lim - in->send_off || in->recv_off > lim || wl > lim - in->recv_off) {
                    st = ar_fail(S->e, AR_EINTERNAL, "comm %d: rank %d: %s outside the buffer", gi, r,
                                 ar_real_call_name(in->call));
                    break;
                }
                if ((in->call == AR_RC_REDUCE && i != in->root)) continue; /* non-root: recvbuff unused */
                double *d = stage_write(S, r, 0, in->recv_off, wl);
                if (!d) {
                    st = nomem(S);
                    break;
                }
                switch (in->call) {
                case AR_RC_REDUCE_SCATTER:
                    for (uint64_t x = 0; x < c; x++) {
                        double sum = 0;
                        for (int q = 0; q < n; q++) sum += S->buf[m[q]][ins[q]->send_off + (uint64_t)i * c + x];
                        d[x] = sum;
                    }
                    break;
                case AR_RC_ALL_GATHER:
                    for (int q = 0; q < n; q++)
                        memcpy(d + (uint64_t)q * c, S->buf[m[q]] + ins[q]->send_off, c * sizeof *d);
                    break;
                case AR_RC_BROADCAST: memcpy(d, S->buf[m[in->root]] + ins[in->root]->send_off, c * sizeof *d); break;
                default: /* REDUCE (root), ALL_REDUCE */
                    for (uint64_t x = 0; x < c; x++) {
                        double sum = 0;
                        for (int q = 0; q < n; q++) sum += S->buf[m[q]][ins[q]->send_off + x];
                        d[x] = sum;
                    }
                    break;
                }
            }
            free(ins);
            if (st != AR_OK) break;
        }
    }
    free(cur);
    return st;
}

/* ---- point to point ---- */

static ar_status run_p2p(sim *S, int k) {
    int P = S->P;
    size_t *cur = ar_calloc((size_t)P * (size_t)P, sizeof *cur); /* cur[src*P+dst]: next send index on src */
    size_t *matched = ar_calloc((size_t)P, sizeof *matched);
    if (!cur || !matched) {
        free(cur);
        free(matched);
        return nomem(S);
    }
    ar_status st = AR_OK;
    char sb[64];
    for (int r = 0; r < P && st == AR_OK; r++) {
        const ar_real_prog *g = S->progs[r];
        const ar_real_step *sp = &g->steps[k];
        for (size_t j = 0; j < sp->ninstr && st == AR_OK; j++) {
            const ar_real_instr *in = &g->instr[sp->first_instr + j];
            if (in->kind != AR_RI_RECV) continue;
            int q = in->peer;
            if (q < 0 || q >= P || q == r) {
                st = ar_fail(S->e, AR_EINTERNAL, "rank %d receives from invalid peer %d", r, q);
                break;
            }
            const ar_real_prog *gq = S->progs[q];
            const ar_real_step *sq = &gq->steps[k];
            size_t *c = &cur[(size_t)q * (size_t)P + (size_t)r];
            const ar_real_instr *snd = NULL;
            for (; *c < sq->ninstr; (*c)++) {
                const ar_real_instr *x = &gq->instr[sq->first_instr + *c];
                if (x->kind == AR_RI_SEND && x->peer == r) {
                    snd = x;
                    (*c)++;
                    break;
                }
            }
            if (!snd) {
                st = ar_fail(S->e, AR_EINTERNAL,
                             "%s: rank %d posts a receive from rank %d that sends nothing "
                             "more to it (hang)",
                             step_name(sp, sb, sizeof sb), r, q);
                break;
            }
            if (snd->count != in->count) {
                st = ar_fail(S->e, AR_EINTERNAL, "%s: rank %d sends %llu elements to rank %d, which expects %llu",
                             step_name(sp, sb, sizeof sb), q, (unsigned long long)snd->count, r,
                             (unsigned long long)in->count);
                break;
            }
            uint64_t lim = in->scratch ? S->progs[r]->scratch_elems : S->count;
            if (snd->send_off > S->count || snd->count > S->count - snd->send_off || in->recv_off > lim ||
                in->count > lim - in->recv_off) {
                st = ar_fail(S->e, AR_EINTERNAL, "%s: transfer %d -> %d outside its buffer",
                             step_name(sp, sb, sizeof sb), q, r);
                break;
            }
            double *d = stage_write(S, r, in->scratch, in->recv_off, in->count);
            if (!d) {
                st = nomem(S);
                break;
            }
            memcpy(d, S->buf[q] + snd->send_off, in->count * sizeof *d);
            matched[q]++;
        }
    }
    for (int q = 0; q < P && st == AR_OK; q++) {
        const ar_real_prog *g = S->progs[q];
        const ar_real_step *sp = &g->steps[k];
        size_t nsend = 0;
        for (size_t j = 0; j < sp->ninstr; j++) nsend += g->instr[sp->first_instr + j].kind == AR_RI_SEND;
        if (nsend != matched[q])
            st = ar_fail(S->e, AR_EINTERNAL, "%s: rank %d posts %zu sends, only %zu are received (hang)",
                         step_name(sp, sb, sizeof sb), q, nsend, matched[q]);
    }
    free(cur);
    free(matched);
    return st;
}

static ar_status run_posts(sim *S, int k) {
    char sb[64];
    for (int r = 0; r < S->P; r++) {
        const ar_real_prog *g = S->progs[r];
        const ar_real_step *sp = &g->steps[k];
        for (size_t a = 0; a < sp->npost; a++) {
            const ar_real_post *po = &g->post[sp->first_post + a];
            if (a > 0 && po->wave < g->post[sp->first_post + a - 1].wave)
                return ar_fail(S->e, AR_EINTERNAL, "rank %d %s: posts not sorted by wave", r,
                               step_name(sp, sb, sizeof sb));
            for (size_t c = 0; c < a; c++) {
                const ar_real_post *q = &g->post[sp->first_post + c];
                if (q->wave == po->wave && q->dst_off < po->dst_off + po->count && po->dst_off < q->dst_off + q->count)
                    return ar_fail(S->e, AR_EINTERNAL, "rank %d %s: posts %zu and %zu of wave %d overlap", r,
                                   step_name(sp, sb, sizeof sb), c, a, po->wave);
            }
            if (po->dst_off > S->count || po->count > S->count - po->dst_off || (!po->add && po->nsrc != 1) ||
                po->first_src + (size_t)po->nsrc > g->nsrc)
                return ar_fail(S->e, AR_EINTERNAL, "rank %d %s: bad post %zu", r, step_name(sp, sb, sizeof sb), a);
            double *d = S->buf[r] + po->dst_off;
            for (uint32_t s = 0; s < po->nsrc; s++) {
                uint64_t so = g->src_off[po->first_src + s];
                if (so > g->scratch_elems || po->count > g->scratch_elems - so)
                    return ar_fail(S->e, AR_EINTERNAL, "rank %d %s: post source outside scratch", r,
                                   step_name(sp, sb, sizeof sb));
                const double *src = S->scr[r] + so;
                if (po->add)
                    for (uint64_t x = 0; x < po->count; x++) d[x] += src[x];
                else memcpy(d, src, po->count * sizeof *d);
            }
        }
    }
    return AR_OK;
}

ar_status ar_real_simulate(const ar_real_plan *p, ar_real_prog *const *progs, uint64_t max_bytes, uint64_t *wrong,
                           ar_err *e) {
    const ar_schedule *s = p->s;
    int P = s->nranks;
    if (wrong) *wrong = 0;
    if (max_bytes == 0) max_bytes = UINT64_C(512) << 20;
    double need = 2.0 * (double)P * (double)s->count * 8.0;
    for (int r = 0; r < P; r++) {
        if (!progs[r] || progs[r]->rank != r || progs[r]->nsteps != p->nsteps)
            return ar_fail(e, AR_EINTERNAL, "real simulation: program %d missing or not compiled for this plan", r);
        need += (double)progs[r]->scratch_elems * 8.0;
    }
    if (need > (double)max_bytes)
        return ar_fail(e, AR_ELIMIT,
                       "real simulation: %d ranks x %llu elements needs about %.0f MB (limit %.0f MB); "
                       "use a smaller size",
                       P, (unsigned long long)s->count, need / 1e6, (double)max_bytes / 1e6);
    int m = ar_real_pattern_m(AR_DTYPE_F32, P);
    if (m < 1) m = 1;
    sim S;
    memset(&S, 0, sizeof S);
    S.p = p;
    S.progs = progs;
    S.P = P;
    S.count = s->count;
    S.e = e;
    S.buf = ar_calloc((size_t)P, sizeof *S.buf);
    S.scr = ar_calloc((size_t)P, sizeof *S.scr);
    double *table = ar_calloc((size_t)m, sizeof *table);
    rv *tmp = NULL;
    size_t cap_tmp = 0;
    ar_status st = AR_OK;
    if (!S.buf || !S.scr || !table) st = nomem(&S);
    for (int r = 0; r < P && st == AR_OK; r++) {
        S.buf[r] = ar_calloc((size_t)s->count, sizeof **S.buf);
        S.scr[r] = ar_calloc((size_t)progs[r]->scratch_elems + 1, sizeof **S.scr);
        if (!S.buf[r] || !S.scr[r]) {
            st = nomem(&S);
            break;
        }
        for (uint64_t x = 0; x < s->count; x++) S.buf[r][x] = ar_real_input(r, x, m);
    }
    for (int k = 0; k < p->nsteps && st == AR_OK; k++) {
        for (int r = 0; r < P && st == AR_OK; r++) st = check_races(&S, progs[r], &progs[r]->steps[k], &tmp, &cap_tmp);
        S.nw = S.nstage = 0;
        if (st == AR_OK) st = run_colls(&S, k);
        if (st == AR_OK) st = run_p2p(&S, k);
        for (size_t i = 0; i < S.nw && st == AR_OK; i++) {
            const wrec *w = &S.w[i];
            double *d = (w->scratch ? S.scr[w->rank] : S.buf[w->rank]) + w->off;
            memcpy(d, S.stage + w->at, w->len * sizeof *d);
        }
        if (st == AR_OK) st = run_posts(&S, k);
    }
    if (st == AR_OK) {
        ar_real_expected_table(P, m, table);
        uint64_t bad = 0;
        int first_r = -1;
        uint64_t first_x = 0;
        for (int r = 0; r < P; r++)
            for (uint64_t x = 0; x < s->count; x++)
                if (!(S.buf[r][x] == table[x % (uint64_t)m])) {
                    if (first_r < 0) {
                        first_r = r;
                        first_x = x;
                    }
                    bad++;
                }
        if (wrong) *wrong = bad;
        if (bad)
            st = ar_fail(e, AR_EFAIL,
                         "real simulation of %s: %llu wrong elements; first: rank %d element %llu holds "
                         "%.17g, exact sum %.17g",
                         s->algo ? s->algo : "?", (unsigned long long)bad, first_r, (unsigned long long)first_x,
                         S.buf[first_r][first_x], table[first_x % (uint64_t)m]);
    }
    for (int r = 0; r < P; r++) {
        if (S.buf) free(S.buf[r]);
        if (S.scr) free(S.scr[r]);
    }
    free(S.buf);
    free(S.scr);
    free(S.stage);
    free(S.w);
    free(table);
    free(tmp);
    return st;
}
