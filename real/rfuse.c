/* Round fusion of a plan (rplan.h: ar_real_plan_fuse). */
#include <stdlib.h>
#include <string.h>

#include "core/lower.h"
#include "core/util.h"
#include "rplan.h"

typedef struct ivs {
    uint64_t *lo, *hi; /* ranges received so far in the current group (this rank) */
    size_t n, cap_lo, cap_hi;
} ivs;

static int ivs_hit(const ivs *v, uint64_t lo, uint64_t hi) {
    for (size_t i = 0; i < v->n; i++)
        if (v->lo[i] < hi && lo < v->hi[i]) return 1;
    return 0;
}

static int ivs_add(ivs *v, uint64_t lo, uint64_t hi) {
    if (ar_grow(&v->lo, &v->cap_lo, v->n + 1, sizeof *v->lo) || ar_grow(&v->hi, &v->cap_hi, v->n + 1, sizeof *v->hi))
        return -1;
    v->lo[v->n] = lo;
    v->hi[v->n] = hi;
    v->n++;
    return 0;
}

ar_status ar_real_plan_fuse(ar_real_plan *p, ar_err *e) {
    const ar_schedule *s = p->s;
    int P = s->nranks, np = s->nphases;
    size_t total = 0;
    for (int ph = 0; ph < np; ph++) total += (size_t)p->phase_rounds[ph];
    ar_status st = AR_OK;
    int *psteps = ar_calloc((size_t)np + 1, sizeof *psteps), *pfirst = ar_calloc((size_t)np + 1, sizeof *pfirst);
    int *r0 = ar_calloc(total + 1, sizeof *r0);
    ivs *w = ar_calloc((size_t)P, sizeof *w);
    ar_xfer *xf = NULL;
    size_t cap_xf = 0;
    if (!psteps || !pfirst || !r0 || !w) {
        st = ar_fail(e, AR_ENOMEM, "round fusion: out of memory");
        goto out;
    }
    int used = 0, fused = 0;
    for (int ph = 0; ph < np && st == AR_OK; ph++) {
        pfirst[ph] = used;
        int a = p->phase_first[ph], z = p->phase_first[ph + 1];
        for (int r = 0; r < p->phase_rounds[ph] && st == AR_OK; r++) {
            /* pass 1: does a send of round r read what the group received? */
            int hit = 0;
            for (int pass = 0; pass < 2 && st == AR_OK; pass++) {
                if (pass == 1 && (hit || r == 0)) {
                    /* round r starts a new group */
                    for (int q = 0; q < P; q++) w[q].n = 0;
                    r0[used++] = r;
                    psteps[ph]++;
                } else if (pass == 1) {
                    fused++;
                }
                for (int f = a; f < z && st == AR_OK && !(pass == 0 && hit); f++) {
                    const ar_op *op = &s->phases[ph].ops[f - a];
                    if (p->call[f] != AR_RC_P2P || r >= ar_lower_nrounds(op)) continue;
                    size_t mx = ar_lower_max_xfers(op);
                    if (ar_grow(&xf, &cap_xf, mx + 1, sizeof *xf)) {
                        st = ar_fail(e, AR_ENOMEM, "round fusion: out of memory");
                        break;
                    }
                    size_t nx = ar_lower_round(op, r, xf);
                    for (size_t i = 0; i < nx && !(pass == 0 && hit); i++)
                        for (int sg = 0; sg < xf[i].nseg; sg++) {
                            uint64_t lo = xf[i].off[sg], hi = lo + xf[i].len[sg];
                            if (!xf[i].len[sg]) continue;
                            if (pass == 0) {
                                if (r > 0 && ivs_hit(&w[xf[i].src], lo, hi)) hit = 1;
                            } else if (ivs_add(&w[xf[i].dst], lo, hi)) {
                                st = ar_fail(e, AR_ENOMEM, "round fusion: out of memory");
                            }
                        }
                }
            }
        }
    }
    if (st != AR_OK) goto out;
    /* the new step structure */
    free(p->phase_psteps);
    free(p->phase_pfirst);
    free(p->pstep_r0);
    p->phase_psteps = psteps;
    p->phase_pfirst = pfirst;
    p->pstep_r0 = r0;
    psteps = pfirst = r0 = NULL;
    p->fused_rounds = fused;
    p->nsteps = 0;
    for (int ph = 0; ph < np; ph++) {
        p->phase_step0[ph] = p->nsteps;
        p->nsteps += p->phase_coll[ph] + p->phase_psteps[ph];
    }
    p->phase_step0[np] = p->nsteps;
out:
    for (int q = 0; w && q < P; q++) {
        free(w[q].lo);
        free(w[q].hi);
    }
    free(w);
    free(xf);
    free(psteps);
    free(pfirst);
    free(r0);
    return st;
}
