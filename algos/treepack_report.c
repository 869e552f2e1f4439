/* Post-processing of a tree-packing solution for `arlab trees` (treepack.h):
 * the link classes of a tree-shaped switched platform and the load per class
 * with its integer ratio (the paper's 15:14:8 on P2.16xlarge), and the
 * predicted time of the planner's schedule with its bounds. No state; scratch
 * freed before returning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "models/model.h"
#include "treepack.h"

/* GPUs below each link when the links form a tree: the smaller side. */
int ar_treepack_link_classes(const ar_platform *p, int *gpus_cut) {
    if (p->nlinks != p->nnodes - 1) return 0;
    int N = p->nnodes, ok = 1;
    int *parent = ar_calloc((size_t)N, sizeof *parent), *plink = ar_calloc((size_t)N, sizeof *plink);
    int *order = ar_calloc((size_t)N, sizeof *order), *below = ar_calloc((size_t)N, sizeof *below);
    if (!parent || !plink || !order || !below) ok = 0;
    if (ok) {
        for (int v = 0; v < N; v++) parent[v] = -2;
        int qh = 0, qt = 0;
        parent[0] = -1;
        plink[0] = -1;
        order[qt++] = 0;
        while (qh < qt) {
            int x = order[qh++];
            for (int k = p->adj_off[x]; k < p->adj_off[x + 1]; k++) {
                int l = p->adj[k], y = p->links[l].a == x ? p->links[l].b : p->links[l].a;
                if (parent[y] != -2) continue;
                parent[y] = x;
                plink[y] = l;
                order[qt++] = y;
            }
        }
        if (qt != N) ok = 0;
        for (int i = N - 1; ok && i >= 0; i--) {
            int x = order[i];
            if (p->nodes[x].kind == AR_NODE_GPU) below[x]++;
            if (parent[x] >= 0) {
                below[parent[x]] += below[x];
                int k = below[x] < p->nranks - below[x] ? below[x] : p->nranks - below[x];
                gpus_cut[plink[x]] = k;
            }
        }
    }
    free(parent);
    free(plink);
    free(order);
    free(below);
    return ok;
}

void ar_treepack_class_loads(const ar_treepack_result *r, const int *gpus_cut, ar_tp_classes *out) {
    memset(out, 0, sizeof *out);
    int *keys = out->gpus, nk = 0;
    for (int l = 0; l < r->nlinks; l++) {
        int seen = 0;
        for (int k = 0; k < nk; k++) seen |= keys[k] == gpus_cut[l];
        if (!seen && nk < AR_TP_MAX_CLASSES) keys[nk++] = gpus_cut[l];
    }
    for (int i = 1; i < nk; i++)
        for (int j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
            int t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    double minmean = INFINITY;
    for (int k = 0; k < nk; k++) {
        out->mean[k] = out->max[k] = out->util[k] = 0;
        out->links[k] = 0;
        for (int l = 0; l < r->nlinks; l++)
            if (gpus_cut[l] == keys[k]) {
                out->mean[k] += r->link_load[l];
                out->util[k] += r->C > 0 ? r->link_load[l] * r->link_c[l] / r->C : 0;
                if (r->link_load[l] > out->max[k]) out->max[k] = r->link_load[l];
                out->links[k]++;
            }
        out->mean[k] /= out->links[k];
        out->util[k] /= out->links[k];
        if (out->mean[k] > 0 && out->mean[k] < minmean) minmean = out->mean[k];
    }
    out->n = nk;
    /* integer ratio of the means, when they are small rationals of each other */
    ar_tp_frac q[AR_TP_MAX_CLASSES];
    int64_t l = 1;
    int ok = nk > 0 && isfinite(minmean);
    for (int k = 0; k < nk && ok; k++) {
        ok = ar_tp_rationalize(out->mean[k] / minmean, 1000, 1e-9, &q[k]);
        if (ok) l = l / ar_gcd_i64(l, q[k].den) * q[k].den;
        if (l > 1000000) ok = 0;
    }
    int64_t g = 0;
    for (int k = 0; k < nk && ok; k++) g = ar_gcd_i64(g, q[k].num * (l / q[k].den));
    out->have_ratio = ok && g > 0;
    for (int k = 0; k < nk; k++) {
        out->rel[k] = out->mean[k] / minmean;
        out->ratio[k] = out->have_ratio ? (long long)(q[k].num * (l / q[k].den) / g) : 0;
    }
}

ar_status ar_treepack_predict(const ar_platform *p, const ar_treepack_result *r, int K, const int *per, int chunks,
                              double bytes, double cdir, ar_tp_prediction *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    int ns = r->nstreams;
    ar_tp_model_stream *ms = ar_calloc((size_t)ns + 1, sizeof *ms);
    if (!ms) return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    int m = 0;
    for (int i = 0; i < ns; i++) {
        double w = K ? (double)per[i] / K : r->streams[i].weight;
        if (w > 0) ms[m++] = (ar_tp_model_stream){r->streams[i].parent, w};
    }
    ar_status st = ar_model_treepack(p, ms, m, bytes, chunks, &out->model, e);
    free(ms);
    if (st != AR_OK) return st;
    double alpha = 0;
    for (int l = 0; l < p->nlinks; l++)
        if (p->links[l].lat_s > alpha) alpha = p->links[l].lat_s;
    double cs = cdir * bytes / r->bw_ref_Bps;
    out->C_s = r->C * bytes / r->bw_ref_Bps;
    out->lower_s = ar_model_treepack_lower(cs);
    out->upper_s = ar_model_treepack_upper(r->max_height, chunks, alpha, cs);
    return AR_OK;
}
