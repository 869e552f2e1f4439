/* The CUDA/NCCL executor (real.h), part 2: the communicator cache. One
 * communicator per distinct ordered member list of the ops mapped to
 * collectives (rplan.h), made with ncclCommSplit the first time a plan needs
 * it (one split per layer, every rank, same order everywhere) and kept for the
 * life of the context. */
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"

/* ---- communicators ---------------------------------------------------------------------- */

static comm_entry *cache_find(ar_real_ctx *c, const int *members, int n) {
    for (int k = 0; k < c->ncomms; k++)
        if (c->comms[k].n == n && !memcmp(c->comms[k].members, members, (size_t)n * sizeof *members))
            return &c->comms[k];
    return NULL;
}

/* Splits the communicators plan p needs and the cache lacks (one
 * ncclCommSplit per layer, every rank, same order everywhere). */
ar_status ar_real_x_ensure_comms(ar_real_ctx *c, ar_real_plan *p, ar_err *e) {
    ar_status st = AR_OK;
    int *need = ar_calloc((size_t)p->ngroups + 1, sizeof *need);
    ncclComm_t *nc = ar_calloc((size_t)c->nlocal, sizeof *nc);
    int *gof = ar_calloc((size_t)c->nlocal, sizeof *gof);
    int any = 0, nl = 0;
    if (!need || !nc || !gof) {
        st = ar_fail(e, AR_ENOMEM, "out of memory");
        goto out;
    }
    for (int g = 0; g < p->ngroups; g++) {
        need[g] = !p->groups[g].world && !cache_find(c, p->groups[g].members, p->groups[g].n);
        any |= need[g];
    }
    if (!any) goto out;
    st = ar_real_layers(p->groups, p->ngroups, need, c->nranks, &nl, e);
    if (st != AR_OK) goto out;
    if (c->ncomms + p->ngroups > c->capcomms) {
        int cap = c->capcomms * 2 > c->ncomms + p->ngroups ? c->capcomms * 2 : c->ncomms + p->ngroups + 8;
        comm_entry *ne = ar_reallocarray(c->comms, (size_t)cap, sizeof *ne);
        if (!ne) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            goto out;
        }
        c->comms = ne;
        c->capcomms = cap;
    }
    for (int layer = 0; layer < nl; layer++) {
        NCG(ncclGroupStart());
        for (int l = 0; l < c->nlocal; l++) {
            int color, key;
            gof[l] = ar_real_split_args(p->groups, p->ngroups, layer, c->L[l].rank, &color, &key);
            nc[l] = NULL;
            NCG(ncclCommSplit(c->L[l].world, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &nc[l], NULL));
        }
        NCG(ncclGroupEnd());
        for (int g = 0; g < p->ngroups; g++) {
            if (!need[g] || p->groups[g].layer != layer) continue;
            comm_entry *ce = &c->comms[c->ncomms];
            ce->n = p->groups[g].n;
            ce->members = ar_calloc((size_t)ce->n, sizeof *ce->members);
            ce->comm = ar_calloc((size_t)c->nlocal, sizeof *ce->comm);
            if (!ce->members || !ce->comm) {
                free(ce->members);
                free(ce->comm);
                st = ar_fail(e, AR_ENOMEM, "out of memory");
                goto out;
            }
            memcpy(ce->members, p->groups[g].members, (size_t)ce->n * sizeof *ce->members);
            for (int l = 0; l < c->nlocal; l++) ce->comm[l] = gof[l] == g ? nc[l] : NULL;
            c->ncomms++;
        }
    }
out:
    free(need);
    free(nc);
    free(gof);
    return st;
}

ncclComm_t ar_real_x_comm_of(ar_real_ctx *c, const ar_real_plan *p, int g, int l) {
    const ar_real_group *G = &p->groups[g];
    if (G->world) return c->L[l].world;
    comm_entry *ce = cache_find(c, G->members, G->n);
    return ce ? ce->comm[l] : NULL;
}
