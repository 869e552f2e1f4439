/* The fast engine's memo (fast_int.h): component key -> per-transfer
 * (network, total) durations, open addressing over a growing table; keys and
 * values live in two growable arrays. */
#include <stdlib.h>
#include <string.h>

#include "fast_int.h"

const memo_ent *eng_memo_find(const memo *m, uint64_t h, const uint64_t *key, uint32_t len) {
    if (!m->cap) return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const memo_ent *en = &m->tab[i];
        if (!en->key_len) return NULL;
        if (en->hash == h && en->key_len == len && !memcmp(m->keys + en->key_off, key, len * sizeof *key)) return en;
    }
}

void eng_memo_clear(memo *m) {
    if (m->tab) memset(m->tab, 0, m->cap * sizeof *m->tab);
    m->n = m->nkeys = m->nvals = 0;
}

int eng_memo_insert(memo *m, uint64_t h, const uint64_t *key, uint32_t len, const double *vals, size_t nv) {
    if (eng_memo_find(m, h, key, len)) return 0;
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
    if (ar_grow(&m->keys, &m->keys_cap, m->nkeys + len, sizeof *m->keys) < 0) return -1;
    if (ar_grow(&m->vals, &m->vals_cap, m->nvals + nv, sizeof *m->vals) < 0) return -1;
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

size_t eng_memo_bytes(const memo *m) {
    return m->nkeys * sizeof *m->keys + m->nvals * sizeof *m->vals + m->cap * sizeof *m->tab;
}

void eng_memo_free(memo *m) {
    free(m->tab);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
