/* BlueConnect closed forms (blueconnect.h): Eq. 9 on trees and fat-trees, Eq. 10
 * on tori, Eq. 6 for the fallback ring; one stage per reduce-scatter and
 * all-gather, with its data size, effective bandwidth, ring or HD, and time.
 *
 * Eq. 9 (EQUATIONS.md reading, min over j <= i):
 *   T = 2 sum_i Tr/c(p_i, N / prod_{j<i} p_j, a_i, min_{j<=i} w_j / prod_{k<j} p_k)
 * The bandwidth term counts the flows sharing one level-j link: in stage i
 * every rank sends at once, so the prod_{k<j} p_k GPUs under a level-j link all
 * push through it. We count those GPUs from the platform's levels (F_j), which
 * is Eq. 9's product when the stages are the levels and stays right when a
 * level is split into several stages (both splits share the level's links).
 * With order=, stage s works on N / (product of the stages run before it);
 * the shares do not depend on the order. alpha a_i = route latency between
 * neighbours of a stage-i group (exact on symmetric trees, where every pair of
 * a group meets at the same switch). Eq. 2 is only used where p_i = 2^q, so
 * lg needs no rounding here.
 * No state.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blueconnect.h"
#include "models/model.h"

/* F[j] = GPUs under one level-j link (F[0] = 1, F[j+1] = F[j] * fanout_j). */
static void level_products(const ar_platform *p, long long *F) {
    F[0] = 1;
    for (int j = 0; j < p->nlevels; j++) F[j + 1] = F[j] * p->levels[j].fanout;
}

void ar_bc_stage_analyze(const ar_platform *p, const ar_bc_decomp *d, int i, ar_bc_stage_info *out) {
    memset(out, 0, sizeof *out);
    out->level = -1;
    if (d->fallback || i < 0 || i >= d->k) {
        snprintf(out->why, sizeof out->why, "no decomposition (one-level ring fallback)");
        return;
    }
    /* a rail fabric (a graph with levels, platform_rail.h) follows Eq. 9 like a tree */
    int tree = p->kind == AR_PLAT_TREE || p->kind == AR_PLAT_FAT_TREE || (p->kind == AR_PLAT_GRAPH && p->nlevels > 0),
        torus = p->kind == AR_PLAT_TORUS;
    if ((!tree && !torus) || p->nlevels == 0) {
        snprintf(out->why, sizeof out->why, "platform '%s' has no symmetric levels for Eq. 9/10",
                 p->name ? p->name : "?");
        return;
    }
    long long F[AR_MAX_LEVELS + 1], q = ar_bc_stride(d, i), q1 = q * d->p[i];
    level_products(p, F);
    int j = -1;
    for (int l = 0; l < p->nlevels && j < 0; l++) {
        int inside = F[l] <= q && q1 <= F[l + 1] && q % F[l] == 0 && F[l + 1] % q1 == 0;
        int exact = q == F[l] && q1 == F[l + 1];
        if (torus ? exact : inside) j = l;
    }
    if (j < 0) {
        snprintf(out->why, sizeof out->why, "stage %d (p%d=%d, stride %lld) %s, so Eq. %s has no term for it", i, i,
                 d->p[i], q, torus ? "is not one torus level" : "spans more than one level", torus ? "10" : "9");
        return;
    }
    out->aligned = 1;
    out->level = j;
    out->lat_s = ar_platform_route_lat(p, 0, (int)q);
    if (torus) {
        /* Eq. 10: min{w0, w_1/p0, ..., w_j/p0}; p0 = GPUs per machine */
        out->bw_Bps = p->levels[0].bw_Bps;
        out->bottleneck = 0;
        out->sharers = 1;
        for (int l = 1; l <= j; l++) {
            double w = p->levels[l].bw_Bps / (double)F[1];
            if (w <= out->bw_Bps * (1 + 1e-12)) { /* ties: name the stage's own (highest) level */
                out->bw_Bps = fmin(w, out->bw_Bps);
                out->bottleneck = l;
                out->sharers = F[1];
            }
        }
        return;
    }
    out->bw_Bps = INFINITY;
    for (int l = 0; l <= j; l++) {
        double w = p->levels[l].bw_Bps / (double)F[l];
        if (w <= out->bw_Bps * (1 + 1e-12)) { /* ties: the highest level, as Fig. 4's "w2/6" */
            out->bw_Bps = fmin(w, out->bw_Bps);
            out->bottleneck = l;
            out->sharers = F[l];
        }
    }
}

ar_status ar_model_bc_decomp(const ar_platform *p, double N, const ar_bc_decomp *d, ar_model_result *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    const char *pname = p->name ? p->name : "?";
    if (d->k == 0) {
        snprintf(out->note, sizeof out->note, "a single rank: nothing to do");
        return AR_OK;
    }
    if (d->fallback) {
        int P = p->nranks, hd = d->impl[0] == AR_IMPL_HD;
        double a = ar_plat_alpha(p), W = ar_plat_min_bw(p);
        double t = hd ? ar_eq2_tc(P, N, a, W) : ar_eq1_tr(P, N, a, W);
        ar_model_add_stage(out, "one-level reduce-scatter (fallback)", hd ? "hd" : "ring", P, N, W, a, t);
        ar_model_add_stage(out, "one-level all-gather (fallback)", hd ? "hd" : "ring", P, N, W, a, t);
        snprintf(out->note, sizeof out->note,
                 "no symmetric decomposition on '%s': BlueConnect falls back to the one-level ring (Sec. 3.4), "
                 "Eq. 6 with a = max route latency, minW = narrowest link",
                 pname);
        return AR_OK;
    }
    ar_bc_stage_info info[AR_BC_MAX_STAGES];
    for (int i = 0; i < d->k; i++) {
        ar_bc_stage_analyze(p, d, i, &info[i]);
        if (!info[i].aligned) {
            char b[200];
            return ar_fail(e, AR_EUNSUPPORTED, "blueconnect: %s on '%s': %s (the schedule walk covers it)",
                           ar_bc_format(d, b, sizeof b), pname, info[i].why);
        }
    }
    double n = N, t_rs[AR_BC_MAX_STAGES], n_rs[AR_BC_MAX_STAGES];
    char label[96];
    for (int s = 0; s < d->k; s++) {
        int i = d->order[s], hd = d->impl[i] == AR_IMPL_HD;
        const ar_bc_stage_info *f = &info[i];
        n_rs[s] = n;
        t_rs[s] = hd ? ar_eq2_tc(d->p[i], n, f->lat_s, f->bw_Bps) : ar_eq1_tr(d->p[i], n, f->lat_s, f->bw_Bps);
        snprintf(label, sizeof label, "stage %d reduce-scatter p%d=%d (level %d, w%d/%lld)", s, i, d->p[i], f->level,
                 f->bottleneck, f->sharers);
        ar_model_add_stage(out, label, hd ? "hd" : "ring", d->p[i], n, f->bw_Bps, f->lat_s, t_rs[s]);
        n /= d->p[i];
    }
    for (int s = d->k - 1; s >= 0; s--) {
        int i = d->order[s], hd = d->impl[i] == AR_IMPL_HD;
        const ar_bc_stage_info *f = &info[i];
        snprintf(label, sizeof label, "stage %d all-gather p%d=%d (level %d, w%d/%lld)", s, i, d->p[i], f->level,
                 f->bottleneck, f->sharers);
        ar_model_add_stage(out, label, hd ? "hd" : "ring", d->p[i], n_rs[s], f->bw_Bps, f->lat_s, t_rs[s]);
    }
    snprintf(out->note, sizeof out->note,
             "%s: stage bw = min over crossed levels of w_l / (GPUs under a level-l link)%s; alpha = route "
             "latency between neighbours of a stage's group",
             p->kind == AR_PLAT_TORUS ? "Eq. 10 (torus, min{w0, w_j/p0})" : "Eq. 9 (min over j <= i)",
             d->from_platform ? "" : ", stages in the given decomposition/order");
    return AR_OK;
}

ar_status ar_bc_closed(const ar_platform *p, double N, const ar_param_val *v, ar_model_result *out, ar_err *e) {
    ar_bc_decomp d;
    ar_status st = ar_bc_parse(p, v, &d, e);
    if (st != AR_OK) return st;
    return ar_model_bc_decomp(p, N, &d, out, e);
}
