/* FlexReduce closed forms (flexreduce.h): T_FR (Eq. 6) and the Eq. 12 bound.
 *
 * Eq. 6 on a tree with levels 0 (machine switches) .. L-1 (root):
 *   T_FR = 2 sum_l max_{k <= l} max_{x in V_k} Tr(n / prod_{i=k}^{l-1} d_{p_x^i}, d_{p_x^l}, w_x)
 * Term (x, l): the links at x (between x and its children, bandwidth w_x)
 * during level l carry a ring reduce-scatter among the d children of x's
 * level-l ancestor y, on the n / prod(...) items x's subtree still holds.
 * Readings: w_x = the narrowest link from x to a child; the alpha of a level-l
 * term = the largest route latency between two leaves under different
 * children of y (on a symmetric tree: 2 x the latency from a leaf up to y,
 * which is what BlueConnect's per-stage alpha is). Nodes of degree 1 add no
 * term. On a symmetric tree this is Eq. 7-11: T_FR = T_blc with ring stages.
 * No state.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexreduce.h"
#include "models/model.h"

/* For every switch: its narrowest child link (wmin) and the level-l alpha
 * (sum of the two largest "child uplink + deepest latency below the child"). */
static void fr_node_params(const ar_platform *p, double *wmin, double *alpha, double *down) {
    for (int v = p->nnodes - 1; v >= 0; v--) { /* children have larger indices */
        const ar_node *n = &p->nodes[v];
        double best1 = 0, best2 = 0;
        wmin[v] = INFINITY;
        for (int c = 0; c < n->nchildren; c++) {
            const ar_node *cn = &p->nodes[n->children[c]];
            const ar_link *l = &p->links[cn->uplink];
            double d = l->lat_s + down[n->children[c]];
            if (d > best1) {
                best2 = best1;
                best1 = d;
            } else if (d > best2) {
                best2 = d;
            }
            wmin[v] = fmin(wmin[v], ar_link_capacity(l));
        }
        down[v] = best1;
        alpha[v] = best1 + best2;
    }
}

ar_status ar_model_flexreduce(const ar_platform *p, double N, ar_model_result *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    ar_status st = ar_fr_check_tree(p, "flexreduce", e);
    if (st != AR_OK) return st;
    int L = p->height;
    double *wmin = ar_calloc((size_t)p->nnodes, sizeof *wmin), *alpha = ar_calloc((size_t)p->nnodes, sizeof *alpha);
    double *down = ar_calloc((size_t)p->nnodes, sizeof *down);
    if (!wmin || !alpha || !down) {
        free(wmin);
        free(alpha);
        free(down);
        return ar_fail(e, AR_ENOMEM, "flexreduce model: out of memory");
    }
    fr_node_params(p, wmin, alpha, down);
    ar_model_stage lv[AR_MAX_LEVELS];
    memset(lv, 0, sizeof lv);
    for (int l = 0; l < L && l < AR_MAX_LEVELS; l++) {
        ar_model_stage *b = &lv[l];
        snprintf(b->label, sizeof b->label, "level %d uneven reduce-scatter (no branching)", l);
        snprintf(b->impl, sizeof b->impl, "ring");
        b->time_s = 0;
        for (int x = 0; x < p->nnodes; x++) {
            if (p->nodes[x].kind != AR_NODE_SWITCH || ar_fr_level_of(p, x) > l) continue;
            int k = ar_fr_level_of(p, x), y = x;
            double div = 1;
            for (int i = k; i < l; i++) { /* prod_{i=k}^{l-1} d_{p_x^i}, climbing to y = p_x^l */
                div *= p->nodes[y].nchildren;
                y = p->nodes[y].parent;
            }
            int d = p->nodes[y].nchildren;
            if (d < 2) continue;
            double t = ar_eq1_tr(d, N / div, alpha[y], wmin[x]);
            if (t > b->time_s) {
                snprintf(b->label, sizeof b->label, "level %d uneven reduce-scatter (links at %.30s, level %d)", l,
                         p->nodes[x].name, k);
                b->p = d;
                b->bytes = N / div;
                b->bw_Bps = wmin[x];
                b->lat_s = alpha[y];
                b->time_s = t;
            }
        }
    }
    for (int l = 0; l < L && l < AR_MAX_LEVELS; l++)
        ar_model_add_stage(out, lv[l].label, lv[l].impl, lv[l].p, lv[l].bytes, lv[l].bw_Bps, lv[l].lat_s, lv[l].time_s);
    for (int l = (L < AR_MAX_LEVELS ? L : AR_MAX_LEVELS) - 1; l >= 0; l--) {
        char label[96];
        const char *rest = strstr(lv[l].label, " (");
        snprintf(label, sizeof label, "level %d uneven all-gather%s", l, rest ? rest : "");
        ar_model_add_stage(out, label, lv[l].impl, lv[l].p, lv[l].bytes, lv[l].bw_Bps, lv[l].lat_s, lv[l].time_s);
    }
    snprintf(out->note, sizeof out->note,
             "Eq. 6: per level the slowest Tr over the links at every node at or below it; w_x = narrowest "
             "child link of x, alpha = largest leaf-to-leaf route latency across the level's node");
    free(wmin);
    free(alpha);
    free(down);
    return AR_OK;
}

/* The descriptor's closed form: Eq. 6 (impl= and chunks= do not change it). */
ar_status ar_fr_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    const char *impl = v[AR_FR_P_IMPL].s;
    long long chunks = v[AR_FR_P_CHUNKS].i;
    ar_status st = ar_model_flexreduce(p, N, out, e);
    if (st == AR_OK && (strcmp(impl, "chain") || chunks != 1)) {
        size_t u = strlen(out->note);
        snprintf(out->note + u, sizeof out->note - u, " (Eq. 6 does not depend on impl=%s chunks=%lld)", impl, chunks);
    }
    return st;
}

ar_status ar_fr_eq12_bound(const ar_platform *p, int *bound, ar_err *e) {
    ar_status st = ar_fr_check_tree(p, "flexreduce", e);
    if (st != AR_OK) return st;
    int P = p->nranks, L = p->height;
    uint64_t *D = ar_calloc((size_t)P * 2, sizeof *D); /* D_r at level l-1 and l: 1 / portion */
    uint64_t *maxD = ar_calloc((size_t)p->nnodes, sizeof *maxD);
    if (!D || !maxD) {
        free(D);
        free(maxD);
        return ar_fail(e, AR_ENOMEM, "flexreduce: out of memory");
    }
    uint64_t *prev = D, *cur = D + P;
    for (int l = 0; l < L && st == AR_OK; l++) {
        for (int r = 0; r < P; r++) {
            int y = ar_fr_ancestor(p, p->rank_node[r], l);
            uint64_t d = (uint64_t)p->nodes[y].nchildren, base = l ? prev[r] : 1;
            if (base > (UINT64_C(1) << 62) / d) {
                st = ar_fail(e, AR_EUNSUPPORTED, "flexreduce: Eq. 12 on '%s': a degree product exceeds 2^62",
                             p->name ? p->name : "?");
                break;
            }
            cur[r] = base * d;
            if (l == 0) {
                bound[r] = 1;
                continue;
            }
            int m = ar_fr_ancestor(p, p->rank_node[r], l - 1);
            if (prev[r] > maxD[m]) maxD[m] = prev[r];
        }
        for (int r = 0; l > 0 && r < P && st == AR_OK; r++) {
            const ar_node *y = &p->nodes[ar_fr_ancestor(p, p->rank_node[r], l)];
            long long sum = 1;
            for (int c = 0; c < y->nchildren; c++) {
                uint64_t md = maxD[y->children[c]];
                sum += (long long)((md + cur[r] - 1) / cur[r]); /* ceil(portion_r(l) / min portion_u(l-1)) */
            }
            bound[(size_t)l * (size_t)P + (size_t)r] = sum > 1000000000 ? 1000000000 : (int)sum;
        }
        uint64_t *t = prev;
        prev = cur;
        cur = t;
    }
    free(D);
    free(maxD);
    return st;
}
