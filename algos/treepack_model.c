/* Closed form of the spanning-tree-packing schedule (treepack.h).
 * No state; scratch arrays are freed
 * before returning. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "models/model.h"
#include "treepack.h"

double ar_model_treepack_upper(int dmax, int chunks, double alpha_s, double cdir_s) {
    if (dmax <= 0) return 0;
    return 2.0 * (dmax + chunks - 1) * (alpha_s + cdir_s / chunks);
}

double ar_model_treepack_lower(double cdir_s) { return 2.0 * cdir_s; }

typedef struct tpm {
    int n, ns, L2;
    int *depth;  /* ns * n */
    int *height; /* ns */
    int *roff;   /* route of (s, m) to its parent: route[roff[s*n+m] .. roff[s*n+m+1]) (m -> parent) */
    ar_dlink *route;
    ar_dlink *rroute; /* parent -> m, same offsets */
    double *lat;      /* ns * n route latency */
    double *B;        /* bytes per directed link in the current round */
} tpm;

static void tpm_free(tpm *m) {
    free(m->depth);
    free(m->height);
    free(m->roff);
    free(m->route);
    free(m->rroute);
    free(m->lat);
    free(m->B);
}

ar_status ar_model_treepack(const ar_platform *p, const ar_tp_model_stream *streams, int nstreams, double bytes,
                            int chunks, ar_model_result *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    if (!p || nstreams < 0 || chunks < 1 || !(bytes >= 0))
        return ar_fail(e, AR_EINVAL, "treepack model: bad arguments");
    int n = p->nranks, c = chunks;
    tpm m = {.n = n, .ns = nstreams, .L2 = 2 * p->nlinks};
    size_t nn = (size_t)nstreams * (size_t)n;
    int maxhop = p->nnodes + 1;
    m.depth = ar_calloc(nn + 1, sizeof *m.depth);
    m.height = ar_calloc((size_t)nstreams + 1, sizeof *m.height);
    m.roff = ar_calloc(nn + 1, sizeof *m.roff);
    m.lat = ar_calloc(nn + 1, sizeof *m.lat);
    m.B = ar_calloc((size_t)m.L2 + 1, sizeof *m.B);
    size_t cap = nn * 4 + (size_t)maxhop, used = 0;
    m.route = ar_calloc(cap, sizeof *m.route);
    m.rroute = ar_calloc(cap, sizeof *m.rroute);
    if (!m.depth || !m.height || !m.roff || !m.lat || !m.B || !m.route || !m.rroute) {
        tpm_free(&m);
        return ar_fail(e, AR_ENOMEM, "treepack model: out of memory");
    }
    int dmax = 0;
    for (int s = 0; s < nstreams; s++) {
        const int *par = streams[s].parent;
        int H = 0;
        for (int x = 0; x < n; x++) {
            int d = 0, y = x;
            while (par[y] >= 0 && d <= n) {
                if (par[y] >= n) {
                    tpm_free(&m);
                    return ar_fail(e, AR_EINVAL, "treepack model: stream %d: parent[%d] = %d out of range", s, y,
                                   par[y]);
                }
                y = par[y];
                d++;
            }
            if (d > n) {
                tpm_free(&m);
                return ar_fail(e, AR_EINVAL, "treepack model: stream %d is not a tree (cycle at rank %d)", s, x);
            }
            m.depth[(size_t)s * n + x] = d;
            if (d > H) H = d;
        }
        m.height[s] = H;
        if (H > dmax) dmax = H;
        for (int x = 0; x < n; x++) {
            size_t i = (size_t)s * n + x;
            m.roff[i] = (int)used;
            if (par[x] < 0) continue;
            if (used + 2 * (size_t)maxhop > cap) {
                size_t nc = cap * 2;
                ar_dlink *a = ar_reallocarray(m.route, nc, sizeof *a);
                if (a) m.route = a;
                ar_dlink *b = ar_reallocarray(m.rroute, nc, sizeof *b);
                if (b) m.rroute = b;
                if (!a || !b) {
                    tpm_free(&m);
                    return ar_fail(e, AR_ENOMEM, "treepack model: out of memory");
                }
                cap = nc;
            }
            int len = ar_platform_route(p, x, par[x], m.route + used, maxhop);
            int len2 = ar_platform_route(p, par[x], x, m.rroute + used, maxhop);
            if (len < 0 || len2 != len) {
                /* routes of different lengths per direction: keep the shorter
                 * table consistent by refusing (graph routes are symmetric in hops) */
                tpm_free(&m);
                return ar_fail(e, AR_EUNSUPPORTED, "treepack model: routes %d<->%d differ in length", x, par[x]);
            }
            m.lat[i] = ar_platform_route_lat(p, x, par[x]);
            used += (size_t)len;
        }
    }
    m.roff[nn] = (int)used;
    double phase_t[2] = {0, 0}, phase_bw[2] = {0, 0}, phase_lat[2] = {0, 0};
    int rounds = dmax > 0 ? dmax + c - 1 : 0;
    for (int ph = 0; ph < 2; ph++) {
        const ar_dlink *R = ph == 0 ? m.route : m.rroute;
        for (int t = 0; t < rounds; t++) {
            memset(m.B, 0, (size_t)m.L2 * sizeof *m.B);
            /* pass 1: bytes per directed link */
            for (int s = 0; s < nstreams; s++) {
                double chunk = streams[s].weight * bytes / c;
                for (int x = 0; x < n; x++) {
                    if (streams[s].parent[x] < 0) continue;
                    int d = m.depth[(size_t)s * n + x];
                    int j = ph == 0 ? t - (m.height[s] - d) : t - (d - 1);
                    if (j < 0 || j >= c) continue;
                    size_t i = (size_t)s * n + x;
                    for (int k = m.roff[i]; k < m.roff[i + 1]; k++) m.B[R[k]] += chunk;
                }
            }
            /* pass 2: the slowest active transfer */
            double tmax = 0, bw_at = 0, lat_at = 0;
            for (int s = 0; s < nstreams; s++) {
                for (int x = 0; x < n; x++) {
                    if (streams[s].parent[x] < 0) continue;
                    int d = m.depth[(size_t)s * n + x];
                    int j = ph == 0 ? t - (m.height[s] - d) : t - (d - 1);
                    if (j < 0 || j >= c) continue;
                    size_t i = (size_t)s * n + x;
                    double worst = 0, wbw = 0;
                    for (int k = m.roff[i]; k < m.roff[i + 1]; k++) {
                        const ar_link *l = &p->links[AR_DLINK_LINK(R[k])];
                        double tt = m.B[R[k]] / ar_link_capacity(l);
                        if (tt > worst) {
                            worst = tt;
                            wbw = ar_link_capacity(l) * (streams[s].weight * bytes / c) /
                                  (m.B[R[k]] > 0 ? m.B[R[k]] : 1);
                        }
                    }
                    double tx = m.lat[i] + worst;
                    if (tx > tmax) {
                        tmax = tx;
                        bw_at = wbw;
                        lat_at = m.lat[i];
                    }
                }
            }
            phase_t[ph] += tmax;
            if (bw_at > 0 && (phase_bw[ph] == 0 || bw_at < phase_bw[ph])) phase_bw[ph] = bw_at;
            if (lat_at > phase_lat[ph]) phase_lat[ph] = lat_at;
        }
    }
    tpm_free(&m);
    char label[96];
    snprintf(label, sizeof label, "reduce (tree packing, %d streams, chunks=%d)", nstreams, c);
    ar_model_add_stage(out, label, "tree", n, bytes, phase_bw[0], phase_lat[0], phase_t[0]);
    snprintf(label, sizeof label, "broadcast (tree packing, %d streams, chunks=%d)", nstreams, c);
    ar_model_add_stage(out, label, "tree", n, bytes, phase_bw[1], phase_lat[1], phase_t[1]);
    snprintf(out->note, sizeof out->note,
             "tree packing: 2 phases x (Dmax+c-1)=%d rounds; round = max over active tree edges of route lat + "
             "max_a B_a(t)/cap_a (B_a = stream bytes/c on link a); Dmax=%d c=%d",
             rounds, dmax, c);
    return AR_OK;
}
