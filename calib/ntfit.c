/* See ntfit.h. */
#include "calib/ntfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/nccl_model.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Weighted LS of t ~ a L + u X with weights 1/t over idx[0..m) (repeats allowed). */
static int solve2(const double *L, const double *X, const double *t, const int *idx, int m, double *a, double *u) {
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    for (int k = 0; k < m; k++) {
        int i = idx[k];
        double l = L[i] / t[i], x = X[i] / t[i];
        s11 += l * l, s12 += l * x, s22 += x * x, b1 += l, b2 += x;
    }
    double det = s11 * s22 - s12 * s12;
    if (!(fabs(det) > 1e-12 * (s11 * s22))) return -1;
    *a = (b1 * s22 - b2 * s12) / det;
    *u = (s11 * b2 - s12 * b1) / det;
    return 0;
}

/* Weighted LS of t ~ a L + sum_g u_g X [g == grp]: k = 1 + ng unknowns (x[0] = a, x[1+g] = u_g), normal
 * equations by Gaussian elimination with partial pivoting. -1 when singular. */
static int solve_groups(const double *L, const double *X, const double *t, const int *grp, int ng, const int *idx,
                        int m, double *x) {
    enum { K = AR_NTFIT_MAX_GROUPS + 1 };
    double A[K][K + 1];
    int k = ng + 1;
    memset(A, 0, sizeof A);
    for (int q = 0; q < m; q++) {
        int i = idx[q];
        double v[2] = {L[i] / t[i], X[i] / t[i]};
        int c[2] = {0, 1 + grp[i]};
        for (int r = 0; r < 2; r++) {
            for (int s2 = 0; s2 < 2; s2++) A[c[r]][c[s2]] += v[r] * v[s2];
            A[c[r]][k] += v[r];
        }
    }
    double scale = 0;
    for (int r = 0; r < k; r++) scale = fmax(scale, fabs(A[r][r]));
    for (int col = 0; col < k; col++) {
        int piv = col;
        for (int r = col + 1; r < k; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
        if (!(fabs(A[piv][col]) > 1e-12 * scale)) return -1;
        if (piv != col)
            for (int c2 = 0; c2 <= k; c2++) {
                double tmp = A[col][c2];
                A[col][c2] = A[piv][c2], A[piv][c2] = tmp;
            }
        for (int r = 0; r < k; r++) {
            if (r == col) continue;
            double f = A[r][col] / A[col][col];
            for (int c2 = col; c2 <= k; c2++) A[r][c2] -= f * A[col][c2];
        }
    }
    for (int r = 0; r < k; r++) x[r] = A[r][k] / A[r][r];
    return 0;
}

static double pct(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return v[n - 1];
    return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static int bucket_of(uint64_t b) { return b < (1u << 20) ? 0 : b < (64u << 20) ? 1 : b < (512u << 20) ? 2 : 3; }

/* Two-scale fit on the records with sel[i] (scratch idx of m ints), bootstrap within them. */
static void fit_class(const double *L, const double *X, const double *t, const int *sel, int m, int *idx, unsigned seed,
                      int nboot, double *ba, int k, ar_ntfit_res *res) {
    int n = 0;
    for (int i = 0; i < m; i++)
        if (sel[i]) idx[n++] = i;
    res->cls[k].n = n;
    double a = 1, u = 1;
    res->cls[k].lat = res->cls[k].bw = 1;
    res->cls[k].lat_lo = res->cls[k].lat_hi = res->cls[k].bw_lo = res->cls[k].bw_hi = 1;
    if (n < 2 || solve2(L, X, t, idx, n, &a, &u) != 0 || !(u > 0)) return;
    res->cls[k].lat = a, res->cls[k].bw = 1 / u;
    res->cls[k].lat_ident = res->cls[k].bw_ident = 1;
    int *pool = idx + m; /* the class's records */
    memcpy(pool, idx, (size_t)n * sizeof *pool);
    double *bb = ba + (nboot > 0 ? nboot : 1);
    unsigned long long rng = seed * 2654435761ull + 13 + (unsigned)k;
    int nb = 0;
    for (int b = 0; b < nboot; b++) {
        for (int q = 0; q < n; q++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            idx[q] = pool[(rng >> 33) % (unsigned long long)n];
        }
        double aa, uu;
        if (solve2(L, X, t, idx, n, &aa, &uu) == 0 && uu > 0) ba[nb] = aa, bb[nb] = 1 / uu, nb++;
    }
    if (nb >= 10) {
        res->cls[k].lat_lo = pct(ba, nb, 0.025), res->cls[k].lat_hi = pct(ba, nb, 0.975);
        res->cls[k].bw_lo = pct(bb, nb, 0.025), res->cls[k].bw_hi = pct(bb, nb, 0.975);
        if (res->cls[k].lat_hi - res->cls[k].lat_lo > fabs(res->cls[k].lat)) res->cls[k].lat_ident = 0;
        if (res->cls[k].bw_hi - res->cls[k].bw_lo > fabs(res->cls[k].bw)) res->cls[k].bw_ident = 0;
    } else {
        res->cls[k].lat_ident = res->cls[k].bw_ident = 0;
    }
}

/* The per-(algorithm, protocol) fit (ntfit.h group[]). idx: scratch of m ints. */
static ar_status fit_groups(ar_ntfit_res *res, const double *L, const double *X, const double *t, const int *grp, int m,
                            int *idx, unsigned seed, int nboot, ar_err *e) {
    int ng = res->ngroups;
    double x[AR_NTFIT_MAX_GROUPS + 1];
    /* identifiability per group: its records' bandwidth share of the time */
    for (int g = 0; g < ng; g++) {
        double xs = 0, ts = 0;
        for (int i = 0; i < m; i++)
            if (grp[i] == g) xs += X[i] / t[i], ts += 1;
        res->group[g].ident = ts > 0 && xs / ts > 1e-3;
        res->group[g].eff = res->group[g].lo = res->group[g].hi = 1;
    }
    for (int i = 0; i < m; i++) idx[i] = i;
    res->group_lat = res->group_lat_lo = res->group_lat_hi = 1;
    if (solve_groups(L, X, t, grp, ng, idx, m, x) != 0) {
        for (int g = 0; g < ng; g++) res->group[g].ident = 0;
        return AR_OK;
    }
    res->group_lat = x[0];
    for (int g = 0; g < ng; g++)
        if (x[1 + g] > 0) res->group[g].eff = 1 / x[1 + g];
        else res->group[g].ident = 0;
    int nb0 = nboot > 0 ? nboot : 1;
    double *bs = calloc((size_t)nb0 * (size_t)(ng + 1), sizeof *bs);
    if (!bs) return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    unsigned long long rng = seed * 2654435761ull + 7;
    int nb = 0;
    for (int b = 0; b < nboot; b++) {
        for (int k = 0; k < m; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            idx[k] = (int)((rng >> 33) % (unsigned long long)m);
        }
        if (solve_groups(L, X, t, grp, ng, idx, m, x) != 0) continue;
        int ok = 1;
        for (int g = 0; g < ng && ok; g++) ok = x[1 + g] > 0;
        if (!ok) continue;
        bs[nb] = x[0];
        for (int g = 0; g < ng; g++) bs[(size_t)(g + 1) * (size_t)nb0 + (size_t)nb] = 1 / x[1 + g];
        nb++;
    }
    if (nb >= 10) {
        res->group_lat_lo = pct(bs, nb, 0.025), res->group_lat_hi = pct(bs, nb, 0.975);
        for (int g = 0; g < ng; g++) {
            double *v = bs + (size_t)(g + 1) * (size_t)nb0;
            res->group[g].lo = pct(v, nb, 0.025), res->group[g].hi = pct(v, nb, 0.975);
            if (res->group[g].hi - res->group[g].lo > fabs(res->group[g].eff)) res->group[g].ident = 0;
        }
    } else {
        /* too few resamples solvable (e.g. a group with one size): no interval */
        for (int g = 0; g < ng; g++) res->group[g].lo = res->group[g].hi = res->group[g].eff, res->group[g].ident = 0;
        res->group_lat_lo = res->group_lat_hi = res->group_lat;
    }
    for (int g = 0; g < ng; g++)
        if (!res->group[g].ident) res->group[g].eff = 1;
    free(bs);
    return AR_OK;
}

/* NCCL's model of an nccl-tests collective: all_reduce, reduce_scatter, all_gather (the ones NCCL's
 * tuner and arlab model); -1 for the others. */
static int nccl_coll_of(ar_nt_coll c) {
    return c == AR_NT_ALL_REDUCE       ? (int)AR_NCCL_ALLREDUCE
           : c == AR_NT_REDUCE_SCATTER ? (int)AR_NCCL_REDUCESCATTER
           : c == AR_NT_ALL_GATHER     ? (int)AR_NCCL_ALLGATHER
                                       : -1;
}

/* The NCCL collective of a record the model prices, or -1 for one it leaves out: a collective NCCL's
 * model does not describe, or 0 B (NCCL runs nothing; compare leaves them out too). */
static int priced_coll(const ar_nt_run *run, const ar_nt_record *r) {
    return r->size_bytes == 0 ? -1 : nccl_coll_of(run->coll);
}

/* NCCL_PROTO forced by the run (one protocol, as NCCL_PROTO=Simple): it replaces the model's choice
 * where the model's table has that algorithm/protocol enabled; a list or an exclusion ("^LL") is left
 * to the model. */
static void forced_proto(const ar_nccl_table *tab, ar_nccl_coll nc, ar_nccl_algo a, const char *proto,
                         ar_nccl_proto *pr) {
    int q = proto[0] ? ar_nccl_proto_parse(proto) : -1;
    if (q >= 0 && tab->enabled[nc][a][q]) *pr = (ar_nccl_proto)q;
}

/* The NCCL model of each rank count the files hold: p itself, or p's multi-node form "NAME:nodes=N"
 * (core/platform/platform_rail.h) for runs of N nodes of p's size when p is one node. */
#define NTFIT_MAX_PLATS 16
typedef struct plat_cache {
    int n;
    struct {
        int nranks;
        const ar_platform *p;
        ar_platform *own;
        ar_nccl_in in;
        ar_nccl_table tab;
    } c[NTFIT_MAX_PLATS];
} plat_cache;

static ar_status model_of(plat_cache *pc, const ar_platform *p, const ar_nt_set *s, const ar_nt_record *r, int *k,
                          ar_err *e) {
    const ar_nt_run *run = &s->runs[r->run];
    int nr = run->nranks ? run->nranks : p->nranks;
    for (int i = 0; i < pc->n; i++)
        if (pc->c[i].nranks == nr) return *k = i, AR_OK;
    char where[300];
    if (pc->n == NTFIT_MAX_PLATS)
        return ar_fail(e, AR_ELIMIT, "%s: more than %d rank counts", ar_nt_where(s, r, where, sizeof where),
                       NTFIT_MAX_PLATS);
    const ar_platform *use = p;
    ar_platform *own = NULL;
    if (nr != p->nranks) {
        int nodes = run->nnodes;
        /* a file without its node count (no device lines): whole nodes of p, as the caller says */
        if (nodes <= 0 && p->nmachines == 1 && p->nranks > 0 && nr % p->nranks == 0) nodes = nr / p->nranks;
        if (p->nmachines != 1 || nodes < 2 || nr != nodes * p->nranks)
            return ar_fail(e, AR_EINVAL,
                           "%s: run has %d ranks on %d nodes, platform %s %d (a one-node preset fits runs of N "
                           "whole nodes through NAME:nodes=N)",
                           ar_nt_where(s, r, where, sizeof where), nr, nodes, p->name, p->nranks);
        /* NAME:nodes=N of the preset, or FILE.json:nodes=N of a (calibrated) one-node file */
        const char *src = p->source ? p->source : "";
        char spec[4400];
        if (!strncmp(src, "preset:", 7)) snprintf(spec, sizeof spec, "%s:nodes=%d", src + 7, nodes);
        else if (strchr(src, '/') || (strlen(src) > 5 && !strcmp(src + strlen(src) - 5, ".json")))
            snprintf(spec, sizeof spec, "%s:nodes=%d", src, nodes);
        else snprintf(spec, sizeof spec, "%s:nodes=%d", p->name, nodes);
        ar_err e2 = {{0}};
        if (ar_platform_load(spec, 0, &own, &e2))
            return ar_fail(e, AR_EINVAL, "%s: %d nodes: %s", ar_nt_where(s, r, where, sizeof where), nodes, e2.msg);
        own->nccl_version = p->nccl_version; /* the NCCL release the fit models */
        use = own;
    }
    int i = pc->n;
    ar_status st = ar_nccl_in_from_platform(use, 0, &pc->c[i].in, e);
    pc->c[i].in.tuner_only = 1; /* the fit scales the tuner's latency and bandwidth (no arlab addition) */
    if (!st) st = ar_nccl_model_tune(&pc->c[i].in, &pc->c[i].tab, e);
    if (st) {
        ar_platform_free(own);
        return st;
    }
    pc->c[i].nranks = nr, pc->c[i].p = use, pc->c[i].own = own;
    pc->n++;
    *k = i;
    return AR_OK;
}

static void plat_cache_free(plat_cache *pc) {
    for (int i = 0; pc && i < pc->n; i++) ar_platform_free(pc->c[i].own);
    free(pc);
}

static ar_status fit_impl(const ar_nt_set *s, const ar_platform *p, plat_cache *pc, unsigned seed, int nboot,
                          ar_ntfit_res *res, ar_err *e);

ar_status ar_ntfit_fit(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_res *res,
                       ar_err *e) {
    plat_cache *pc = calloc(1, sizeof *pc);
    if (!pc) return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    ar_status st = fit_impl(s, p, pc, seed, nboot, res, e);
    plat_cache_free(pc);
    return st;
}

static ar_status fit_impl(const ar_nt_set *s, const ar_platform *p, plat_cache *pc, unsigned seed, int nboot,
                          ar_ntfit_res *res, ar_err *e) {
    memset(res, 0, sizeof *res);
    ar_status st = ar_nt_check_fit(s, AR_NT_HALF_BOTH, e); /* out-of-place where present, else in place */
    if (st) return st;
    int n = s->nrecs;
    double *L = calloc((size_t)n * 4, sizeof *L);
    int *idx = calloc((size_t)n, sizeof *idx);
    res->rel_err = calloc((size_t)n, sizeof *res->rel_err);
    if (!L || !idx || !res->rel_err) {
        free(L), free(idx), ar_ntfit_free(res);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory (%d records)", n);
    }
    double *X = L + n, *t = L + 2 * n, *w = L + 3 * n;
    int *grp = calloc((size_t)n * 2 + 1, sizeof *grp);
    if (!grp) {
        free(L), free(idx), ar_ntfit_free(res);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory (%d records)", n);
    }
    int gkey[AR_NTFIT_MAX_GROUPS];
    int *nod = grp + n; /* machines of each used record's platform */
    int m = 0;
    for (int i = 0; i < n; i++) {
        const ar_nt_record *r = &s->recs[i];
        const ar_nt_run *run = &s->runs[r->run];
        int c = priced_coll(run, r);
        if (c < 0) continue;
        ar_nccl_coll nc = (ar_nccl_coll)c;
        int k = 0;
        st = model_of(pc, p, s, r, &k, e);
        if (st) {
            free(L), free(idx), free(grp), ar_ntfit_free(res);
            return st;
        }
        const ar_nccl_in *inp = &pc->c[k].in;
        nod[m] = pc->c[k].p->nmachines;
        const ar_nt_timing *tm = r->ip.present ? &r->ip : &r->oop; /* in place preferred, as compare */
        int algo = run->algo[0] ? ar_nccl_algo_parse(run->algo) : -1;
        ar_nccl_algo a;
        ar_nccl_proto pr;
        double tf, tb;
        st = ar_nccl_model_choose(inp, nc, algo, (double)r->size_bytes, &a, &pr, &tf, e);
        if (!st && run->proto[0]) {
            ar_nccl_proto p0 = pr;
            forced_proto(&pc->c[k].tab, nc, a, run->proto, &pr);
            if (pr != p0) st = ar_nccl_table_time(inp, &pc->c[k].tab, nc, a, pr, (double)r->size_bytes, &tf, e);
        }
        if (!st) {
            ar_nccl_table t0 = pc->c[k].tab;
            t0.lat_us[nc][a][pr] = 0;
            st = ar_nccl_table_time(inp, &t0, nc, a, pr, (double)r->size_bytes, &tb, e);
        }
        if (st) {
            free(L), free(idx), free(grp), ar_ntfit_free(res);
            return st;
        }
        L[m] = tf - tb, X[m] = tb, t[m] = tm->time_us * 1e-6, w[m] = (double)r->size_bytes;
        int key = (int)a * AR_NCCL_NPROTOS + (int)pr, g = 0;
        while (g < res->ngroups && gkey[g] != key) g++;
        if (g == res->ngroups && g < AR_NTFIT_MAX_GROUPS) {
            gkey[g] = key;
            snprintf(res->group[g].algo, sizeof res->group[g].algo, "%s", ar_nccl_algo_name(a));
            snprintf(res->group[g].proto, sizeof res->group[g].proto, "%s", ar_nccl_proto_name(pr));
            res->ngroups++;
        }
        grp[m] = g;
        res->group[g].n++;
        res->group[g].forced |= algo >= 0;
        m++;
    }
    if (m < 2) {
        free(L), free(idx), free(grp), ar_ntfit_free(res);
        return ar_fail(
            e, AR_EINVAL,
            "ntfit: %d records of a collective NCCL's model covers (all_reduce, all_gather, reduce_scatter), need at least 2",
            m);
    }
    res->n = m;
    for (int i = 0; i < m; i++) idx[i] = i;
    double a = 1, u = 1;
    /* identifiability: a column whose weighted norm is < 1e-3 of the other's */
    double cl = 0, cx = 0;
    for (int i = 0; i < m; i++) cl += (L[i] / t[i]) * (L[i] / t[i]), cx += (X[i] / t[i]) * (X[i] / t[i]);
    res->lat_ident = cl > 1e-6 * cx, res->bw_ident = cx > 1e-6 * cl;
    if (res->lat_ident && res->bw_ident && solve2(L, X, t, idx, m, &a, &u) == 0) {
        res->lat_scale = a, res->bw_scale = 1 / u;
    } else {
        res->lat_ident = res->bw_ident = 0;
        res->lat_scale = res->bw_scale = 1;
    }
    /* bootstrap */
    double *ba = calloc((size_t)(nboot > 0 ? nboot : 1) * 2, sizeof *ba);
    if (!ba) {
        free(L), free(idx), free(grp), ar_ntfit_free(res);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    }
    double *bb = ba + (nboot > 0 ? nboot : 1);
    unsigned long long rng = seed * 2654435761ull + 1;
    int nb = 0;
    for (int b = 0; b < nboot && res->lat_ident; b++) {
        for (int k = 0; k < m; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            idx[k] = (int)((rng >> 33) % (unsigned long long)m);
        }
        double aa, uu;
        if (solve2(L, X, t, idx, m, &aa, &uu) == 0 && uu > 0) ba[nb] = aa, bb[nb] = 1 / uu, nb++;
    }
    res->nboot = nb;
    if (nb >= 10) {
        res->lat_lo = pct(ba, nb, 0.025), res->lat_hi = pct(ba, nb, 0.975);
        res->bw_lo = pct(bb, nb, 0.025), res->bw_hi = pct(bb, nb, 0.975);
        if (res->lat_hi - res->lat_lo > fabs(res->lat_scale)) res->lat_ident = 0;
        if (res->bw_hi - res->bw_lo > fabs(res->bw_scale)) res->bw_ident = 0;
    } else {
        res->lat_lo = res->lat_hi = res->lat_scale, res->bw_lo = res->bw_hi = res->bw_scale;
    }
    if (!res->lat_ident) res->lat_scale = 1;
    if (!res->bw_ident) res->bw_scale = 1;
    /* residuals and buckets */
    double *tmp = ba; /* reuse: at least m? allocate fresh */
    free(tmp);
    double *v = calloc((size_t)m, sizeof *v);
    if (!v) {
        free(L), free(idx), free(grp), ar_ntfit_free(res);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    }
    for (int i = 0; i < m; i++) res->rel_err[i] = (res->lat_scale * L[i] + X[i] / res->bw_scale - t[i]) / t[i];
    for (int bk = 0; bk < 4; bk++) {
        int c = 0;
        for (int i = 0; i < m; i++)
            if (bucket_of((uint64_t)w[i]) == bk) v[c++] = fabs(res->rel_err[i]);
        res->bucket_n[bk] = c;
        if (c) res->bucket_med[bk] = pct(v, c, 0.5), res->bucket_max[bk] = v[c - 1];
    }
    /* leave-one-size-out */
    int c = 0;
    for (int i = 0; i < m; i++) {
        int k = 0;
        for (int j = 0; j < m; j++)
            if (w[j] != w[i]) idx[k++] = j;
        double aa = 1, uu = 1;
        if (k >= 2 && solve2(L, X, t, idx, k, &aa, &uu) == 0) v[c++] = fabs((aa * L[i] + uu * X[i] - t[i]) / t[i]);
    }
    if (c) res->loso_med = pct(v, c, 0.5), res->loso_max = v[c - 1];
    /* leave-one-node-count-out: fit without a node count, predict it */
    for (int i = 0; i < m; i++) {
        int seen = 0;
        for (int q = 0; q < res->lonco_n && !seen; q++) seen = res->lonco_nodes[q] == nod[i];
        if (!seen && res->lonco_n < AR_NTFIT_MAX_NODECOUNTS) res->lonco_nodes[res->lonco_n++] = nod[i];
    }
    if (res->lonco_n < 2) res->lonco_n = 0;
    for (int q = 0; q < res->lonco_n; q++) {
        int k = 0, h = 0;
        for (int j = 0; j < m; j++)
            if (nod[j] != res->lonco_nodes[q]) idx[k++] = j;
        double aa = 1, uu = 1;
        res->lonco_med[q] = res->lonco_max[q] = NAN;
        if (k < 2 || solve2(L, X, t, idx, k, &aa, &uu) != 0) continue;
        for (int j = 0; j < m; j++)
            if (nod[j] == res->lonco_nodes[q]) v[h++] = fabs((aa * L[j] + uu * X[j] - t[j]) / t[j]);
        res->lonco_cnt[q] = h;
        if (h) res->lonco_med[q] = pct(v, h, 0.5), res->lonco_max[q] = v[h - 1];
    }
    free(v);
    if (res->lonco_n >= 2) {
        int *sel = calloc((size_t)m * 3 + 2, sizeof *sel);
        double *cb = calloc((size_t)(nboot > 0 ? nboot : 1) * 2, sizeof *ba);
        if (!sel || !cb) {
            free(sel), free(cb), free(grp), free(L), free(idx), ar_ntfit_free(res);
            return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
        }
        int *scratch = sel + m, one = 0, multi = 0;
        for (int i = 0; i < m; i++) one += nod[i] == 1, multi += nod[i] > 1;
        if (one >= 2 && multi >= 2) {
            res->have_classes = 1;
            for (int k = 0; k < 2; k++) {
                for (int i = 0; i < m; i++) sel[i] = k ? nod[i] > 1 : nod[i] == 1;
                fit_class(L, X, t, sel, m, scratch, seed, nboot, cb, k, res);
            }
        }
        free(sel), free(cb);
    }
    st = fit_groups(res, L, X, t, grp, m, idx, seed, nboot, e);
    free(grp), free(L), free(idx);
    if (st) ar_ntfit_free(res);
    return st;
}

void ar_ntfit_free(ar_ntfit_res *res) {
    if (!res) return;
    free(res->rel_err);
    res->rel_err = NULL;
}

/* ======================================================================== */
/* The joint calibration (ntfit.h ar_ntfit_calibrate)                        */
/* ======================================================================== */

typedef struct cal_rec {
    double L, X, t, bytes;
    int cls, bcls, grp, key; /* bcls: the bandwidth class, cls * 3 + the algorithm's family (cal_family) */
} cal_rec;

/* The rate an algorithm's bandwidth rides on: 0 the links (RING, TREE, PAT), 1 the NVSwitch's reduction and
 * multicast (NVLS, NVLS_TREE), 2 the network's SHARP (COLLNET_*). */
static int cal_family(int a) {
    return a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE                 ? 1
           : a == AR_NCCL_COLLNET_DIRECT || a == AR_NCCL_COLLNET_CHAIN ? 2
                                                                       : 0;
}

/* The unknowns of the joint fit: x[0..2) the latency factor of each class, x[2 + b] the inverse bandwidth
 * factor of bandwidth class b (ntfit.h: class c's links, NVLS, CollNet). */
enum { CAL_NB = 6, CAL_NX = 2 + CAL_NB };

/* Gaussian elimination with partial pivoting on the k x (k+1) row-major system A; solution in x. -1 singular. */
static int gauss(double *A, int k, double *x) {
    double scale = 0;
    for (int r = 0; r < k; r++) scale = fmax(scale, fabs(A[r * (k + 1) + r]));
    for (int col = 0; col < k; col++) {
        int piv = col;
        for (int r = col + 1; r < k; r++)
            if (fabs(A[r * (k + 1) + col]) > fabs(A[piv * (k + 1) + col])) piv = r;
        if (!(fabs(A[piv * (k + 1) + col]) > 1e-12 * scale)) return -1;
        if (piv != col)
            for (int c2 = 0; c2 <= k; c2++) {
                double tmp = A[col * (k + 1) + c2];
                A[col * (k + 1) + c2] = A[piv * (k + 1) + c2], A[piv * (k + 1) + c2] = tmp;
            }
        for (int r = 0; r < k; r++) {
            if (r == col) continue;
            double f = A[r * (k + 1) + col] / A[col * (k + 1) + col];
            for (int c2 = col; c2 <= k; c2++) A[r * (k + 1) + c2] -= f * A[col * (k + 1) + c2];
        }
    }
    for (int r = 0; r < k; r++) x[r] = A[r * (k + 1) + k] / A[r * (k + 1) + r];
    return 0;
}

/* Alternating weighted LS over idx[0..m) (weights 1/t): the class factors x[] (linear given v) exactly, then
 * v[g] (1/eff) per group. fix[j] / vfix[g]: kept as given. 0 ok, -1 when singular or a factor is not positive. */
static int joint(const cal_rec *R, const int *idx, int m, int ng, const int *fix, const int *vfix, double *x,
                 double *v) {
    for (int it = 0; it < 300; it++) {
        double change = 0;
        double A[CAL_NX][CAL_NX + 1];
        memset(A, 0, sizeof A);
        for (int k = 0; k < m; k++) {
            const cal_rec *r = &R[idx[k]];
            int c[2] = {r->cls, 2 + r->bcls};
            double val[2] = {r->L / r->t, r->X * v[r->grp] / r->t}, rhs = 1;
            for (int q = 0; q < 2; q++)
                if (fix[c[q]]) rhs -= val[q] * x[c[q]];
            for (int q = 0; q < 2; q++) {
                if (fix[c[q]]) continue;
                for (int q2 = 0; q2 < 2; q2++)
                    if (!fix[c[q2]]) A[c[q]][c[q2]] += val[q] * val[q2];
                A[c[q]][CAL_NX] += val[q] * rhs;
            }
        }
        int free_[CAL_NX], nf = 0;
        for (int j = 0; j < CAL_NX; j++)
            if (!fix[j] && A[j][j] > 0) free_[nf++] = j;
        if (nf) {
            double S[CAL_NX * (CAL_NX + 1)], y[CAL_NX];
            for (int a = 0; a < nf; a++) {
                for (int b = 0; b < nf; b++) S[a * (nf + 1) + b] = A[free_[a]][free_[b]];
                S[a * (nf + 1) + nf] = A[free_[a]][CAL_NX];
            }
            if (gauss(S, nf, y) != 0) return -1;
            for (int a = 0; a < nf; a++) {
                int j = free_[a];
                change = fmax(change, fabs(y[a] - x[j]) / fmax(fabs(y[a]), 1e-30));
                x[j] = y[a];
            }
        }
        for (int g = 0; g < ng; g++) {
            if (vfix[g]) continue;
            double num = 0, den = 0;
            for (int k = 0; k < m; k++) {
                const cal_rec *r = &R[idx[k]];
                if (r->grp != g) continue;
                double xx = r->X * x[2 + r->bcls] / r->t;
                num += xx * (r->t - x[r->cls] * r->L) / r->t, den += xx * xx;
            }
            if (den > 0) {
                double nv = num / den;
                change = fmax(change, fabs(nv - v[g]) / fmax(fabs(nv), 1e-30));
                v[g] = nv;
            }
        }
        if (change < 1e-13) break;
    }
    for (int j = 0; j < CAL_NX; j++)
        if (!isfinite(x[j]) || (j >= 2 && !(x[j] > 0))) return -1;
    for (int g = 0; g < ng; g++)
        if (!(v[g] > 0)) return -1;
    return 0;
}

/* The records of s with the choice made on the calibrated model cur (NULL: the preset), L and X from the
 * preset's table; groups appended to out. *changed: a record's (algorithm, protocol) differs from R's before. */
static ar_status cal_records(const ar_nt_set *s, const ar_platform *p, plat_cache *pc, const ar_ntfit_cal *cur,
                             cal_rec *R, int *m_out, ar_ntfit_cal *out, int *changed, ar_err *e) {
    int m = 0;
    *changed = 0;
    for (int i = 0; i < s->nrecs; i++) {
        const ar_nt_record *r = &s->recs[i];
        const ar_nt_run *run = &s->runs[r->run];
        int c = priced_coll(run, r);
        if (c < 0) continue;
        ar_nccl_coll nc = (ar_nccl_coll)c;
        int k = 0;
        ar_status st = model_of(pc, p, s, r, &k, e);
        if (st) return st;
        int cls = pc->c[k].p->nmachines > 1;
        ar_nccl_in in = pc->c[k].in;
        if (cur) ar_ntfit_cal_apply(cur, cls, &in);
        const ar_nt_timing *tm = r->ip.present ? &r->ip : &r->oop; /* in place preferred, as compare */
        int algo = run->algo[0] ? ar_nccl_algo_parse(run->algo) : -1;
        ar_nccl_algo a;
        ar_nccl_proto pr;
        double tf = 0, tb = 0;
        st = ar_nccl_model_choose(&in, nc, algo, (double)r->size_bytes, &a, &pr, NULL, e);
        if (!st) forced_proto(&pc->c[k].tab, nc, a, run->proto, &pr);
        ar_nccl_table t0 = pc->c[k].tab;
        if (!st) st = ar_nccl_table_time(&pc->c[k].in, &t0, nc, a, pr, (double)r->size_bytes, &tf, e);
        t0.lat_us[nc][a][pr] = 0;
        if (!st) st = ar_nccl_table_time(&pc->c[k].in, &t0, nc, a, pr, (double)r->size_bytes, &tb, e);
        if (st) return st;
        int key = (int)a * AR_NCCL_NPROTOS + (int)pr, g = 0;
        if (cur && R[m].key != key) *changed = 1;
        while (g < out->ngroups && (out->group[g].algo_i != (int)a || out->group[g].proto_i != (int)pr)) g++;
        if (g == out->ngroups) {
            if (g == AR_NTFIT_MAX_GROUPS) return ar_fail(e, AR_ELIMIT, "ntfit: more than %d groups", g);
            snprintf(out->group[g].algo, sizeof out->group[g].algo, "%s", ar_nccl_algo_name(a));
            snprintf(out->group[g].proto, sizeof out->group[g].proto, "%s", ar_nccl_proto_name(pr));
            out->group[g].algo_i = (int)a, out->group[g].proto_i = (int)pr;
            out->group[g].fam = cal_family((int)a);
            out->group[g].eff = 1;
            out->ngroups++;
        }
        R[m] = (cal_rec){tf - tb, tb, tm->time_us * 1e-6, (double)r->size_bytes, cls, cls * 3 + cal_family((int)a),
                         g,       key};
        m++;
    }
    *m_out = m;
    return AR_OK;
}

void ar_ntfit_cal_apply(const ar_ntfit_cal *c, int cls, ar_nccl_in *in) {
    double bw0 = in->cal_bw > 0 ? in->cal_bw : 1;
    in->cal_lat = (in->cal_lat > 0 ? in->cal_lat : 1) * c->cls[cls].lat;
    in->cal_bw = bw0 * c->cls[cls].bw;
    for (int k = 0; k < 2; k++)
        if (c->sw[cls][k].n > 0) in->cal_sw_bw[k] = (in->cal_sw_bw[k] > 0 ? in->cal_sw_bw[k] : bw0) * c->sw[cls][k].bw;
    for (int g = 0; g < c->ngroups; g++) {
        double *f = &in->eff[c->group[g].algo_i][c->group[g].proto_i];
        *f = (*f > 0 ? *f : 1) * c->group[g].eff;
    }
}

int ar_ntfit_bucket3(double bytes) { return bytes < 65536 ? 0 : bytes < 67108864.0 ? 1 : 2; }

/* One pass: the joint fit with bootstrap on R[0..m) into out (its groups already listed). */
static ar_status cal_fit(const cal_rec *R, int m, unsigned seed, int nboot, ar_ntfit_cal *out, ar_err *e) {
    int ng = out->ngroups;
    int incls[AR_NTFIT_MAX_GROUPS][2];
    memset(incls, 0, sizeof incls);
    int ccount[2] = {0, 0}, bcount[CAL_NB] = {0}, fcls[3][2];
    double bshare[CAL_NB] = {0};
    memset(fcls, 0, sizeof fcls);
    for (int i = 0; i < m; i++) {
        incls[R[i].grp][R[i].cls]++, ccount[R[i].cls]++, bcount[R[i].bcls]++;
        bshare[R[i].bcls] += R[i].X / R[i].t;
        fcls[R[i].bcls % 3][R[i].cls] = 1;
    }
    for (int g = 0; g < ng; g++) out->group[g].n = incls[g][0] + incls[g][1];
    /* the reference of each family: its canonical algorithm with SIMPLE (RING, NVLS, COLLNET_DIRECT) if it ran in
     * every class the family ran in, else the group with the most records among those */
    static const int canon[3] = {AR_NCCL_RING, AR_NCCL_NVLS, AR_NCCL_COLLNET_DIRECT};
    for (int f = 0; f < 3; f++) {
        int ref = -1;
        for (int g = 0; g < ng; g++) {
            if (out->group[g].fam != f) continue;
            int all = (!fcls[f][0] || incls[g][0]) && (!fcls[f][1] || incls[g][1]);
            if (!all) continue;
            int is_c = out->group[g].algo_i == canon[f] && out->group[g].proto_i == AR_NCCL_SIMPLE;
            int ref_c = ref >= 0 && out->group[ref].algo_i == canon[f] && out->group[ref].proto_i == AR_NCCL_SIMPLE;
            if (ref < 0 || is_c || (!ref_c && out->group[g].n > out->group[ref].n)) ref = g;
        }
        out->fref[f] = ref;
    }
    out->ref = out->fref[0];
    int vfix[AR_NTFIT_MAX_GROUPS], vwide[AR_NTFIT_MAX_GROUPS], retried[AR_NTFIT_MAX_GROUPS];
    for (int g = 0; g < ng; g++) {
        int ref = out->fref[out->group[g].fam];
        /* separable from the class factors: its family's reference ran in every class this group ran in */
        int sep = ref >= 0 && g != ref && (!incls[g][0] || incls[ref][0]) && (!incls[g][1] || incls[ref][1]);
        vfix[g] = !sep, vwide[g] = retried[g] = 0;
        /* a bandwidth term under 1e-3 of the time: nothing to fit */
        double xs = 0;
        for (int i = 0; i < m; i++)
            if (R[i].grp == g) xs += R[i].X / R[i].t;
        if (!(xs / (out->group[g].n ? out->group[g].n : 1) > 1e-3)) vfix[g] = 1;
        out->group[g].ident = g == ref || !vfix[g];
    }
    int fix[CAL_NX], ident[CAL_NX];
    for (int c = 0; c < 2; c++) fix[c] = ccount[c] < 2;
    for (int b = 0; b < CAL_NB; b++) fix[2 + b] = bcount[b] < 2 || !(bshare[b] / (bcount[b] ? bcount[b] : 1) > 1e-3);
    for (int j = 0; j < CAL_NX; j++) ident[j] = !fix[j];
    int *idx = calloc((size_t)m, sizeof *idx);
    int nb0 = nboot > 0 ? nboot : 1;
    double *bs = calloc((size_t)nb0 * (size_t)(CAL_NX + ng), sizeof *bs);
    double *pred = calloc((size_t)m * 3, sizeof *pred), *res = pred ? pred + m : NULL,
           *err = pred ? pred + 2 * m : NULL;
    cal_rec *R2 = calloc((size_t)m, sizeof *R2);
    if (!idx || !bs || !pred || !R2) {
        free(idx), free(bs), free(pred), free(R2);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    }
    double x[CAL_NX], v[AR_NTFIT_MAX_GROUPS], lo[CAL_NX], hi[CAL_NX];
    for (int round = 0; round < 8; round++) { /* each round refits with the factors found unidentified fixed at 1 */
        for (int i = 0; i < m; i++) idx[i] = i;
        for (int j = 0; j < CAL_NX; j++) x[j] = 1;
        for (int g = 0; g < ng; g++) v[g] = 1;
        int bad = joint(R, idx, m, ng, fix, vfix, x, v) != 0;
        if (bad) { /* e.g. one size per class: latency and bandwidth not separable; keep the latency at 1 */
            for (int c = 0; c < 2; c++) fix[c] = 1, ident[c] = 0;
            for (int j = 0; j < CAL_NX; j++) x[j] = 1;
            for (int g = 0; g < ng; g++) v[g] = 1;
            bad = joint(R, idx, m, ng, fix, vfix, x, v) != 0;
        }
        if (bad) { /* a group of one record below the class latency: its factor cannot come out > 0, keep it at 1 */
            int more = 0;
            for (int g = 0; g < ng; g++)
                if (out->group[g].n < 2 && !vfix[g])
                    vfix[g] = 1, out->group[g].ident = g == out->fref[out->group[g].fam], more = 1;
            for (int j = 0; j < CAL_NX; j++) x[j] = 1;
            for (int g = 0; g < ng; g++) v[g] = 1;
            if (more) bad = joint(R, idx, m, ng, fix, vfix, x, v) != 0;
        }
        if (bad) {
            free(idx), free(bs), free(pred), free(R2);
            return ar_fail(e, AR_EINVAL,
                           "ntfit: the per-class fit has no solution (a class's sizes cannot separate latency "
                           "from bandwidth, or a factor came out <= 0)");
        }
        /* residual bootstrap (the sizes are a design, not a sample): t*_i = pred_i (1 + c e_j), e_j a relative
         * residual drawn with replacement, c = sqrt(m / (m - k)) for the k fitted parameters */
        int k = 0;
        for (int j = 0; j < CAL_NX; j++) k += !fix[j];
        for (int g = 0; g < ng; g++) k += !vfix[g];
        double cf = m > k ? sqrt((double)m / (double)(m - k)) : 1;
        for (int i = 0; i < m; i++) {
            const cal_rec *r = &R[i];
            pred[i] = x[r->cls] * r->L + r->X * x[2 + r->bcls] * v[r->grp];
            res[i] = pred[i] > 0 ? r->t / pred[i] - 1 : 0;
        }
        for (int i = 0; i < m; i++) idx[i] = i;
        unsigned long long rng = seed * 2654435761ull + 99;
        int nb = 0;
        for (int b = 0; b < nboot; b++) {
            for (int i = 0; i < m; i++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                R2[i] = R[i];
                R2[i].t = pred[i] * (1 + cf * res[(rng >> 33) % (unsigned long long)m]);
                if (!(R2[i].t > 0)) R2[i].t = pred[i];
            }
            double xx[CAL_NX], vv[AR_NTFIT_MAX_GROUPS];
            memcpy(xx, x, sizeof xx);
            memcpy(vv, v, sizeof vv);
            if (joint(R2, idx, m, ng, fix, vfix, xx, vv) != 0) continue;
            for (int j = 0; j < CAL_NX; j++) bs[(size_t)j * nb0 + nb] = j < 2 ? xx[j] : 1 / xx[j];
            for (int g = 0; g < ng; g++) bs[(size_t)(CAL_NX + g) * (size_t)nb0 + nb] = 1 / vv[g];
            nb++;
        }
        out->nboot = nb;
        int refit = 0, ufixed = 0;
        for (int j = 0; j < CAL_NX; j++) {
            double val = j < 2 ? x[j] : 1 / x[j];
            lo[j] = hi[j] = val;
            if (fix[j]) continue;
            if (nb >= 10) lo[j] = pct(bs + (size_t)j * nb0, nb, 0.025), hi[j] = pct(bs + (size_t)j * nb0, nb, 0.975);
            if (nb < 10 || hi[j] - lo[j] > fabs(val)) fix[j] = 1, ident[j] = 0, refit = 1, ufixed |= j >= 2;
        }
        for (int g = 0; g < ng; g++) {
            out->group[g].eff = 1 / v[g];
            out->group[g].lo = out->group[g].hi = 1 / v[g];
            if (nb >= 10 && !vfix[g])
                out->group[g].lo = pct(bs + (size_t)(CAL_NX + g) * nb0, nb, 0.025),
                out->group[g].hi = pct(bs + (size_t)(CAL_NX + g) * nb0, nb, 0.975);
            if (!vfix[g] && (nb < 10 || out->group[g].hi - out->group[g].lo > out->group[g].eff))
                vfix[g] = 1, vwide[g] = 1, out->group[g].ident = 0, refit = 1;
        }
        /* a group too wide only because its class factor moved with it: once that factor is fixed, try it again */
        if (ufixed)
            for (int g = 0; g < ng; g++)
                if (vwide[g] && !retried[g]) vfix[g] = 0, vwide[g] = 0, retried[g] = 1, out->group[g].ident = 1;
        if (!refit) break;
        for (int j = 0; j < CAL_NX; j++)
            if (fix[j]) x[j] = 1;
    }
    for (int j = 0; j < CAL_NX; j++)
        if (!ident[j]) x[j] = lo[j] = hi[j] = 1;
    for (int g = 0; g < ng; g++)
        if (!out->group[g].ident) out->group[g].eff = out->group[g].lo = out->group[g].hi = 1;
    for (int c = 0; c < 2; c++) {
        out->cls[c].n = ccount[c];
        out->cls[c].lat = x[c], out->cls[c].lat_lo = lo[c], out->cls[c].lat_hi = hi[c];
        out->cls[c].bw = 1 / x[2 + c * 3], out->cls[c].bw_lo = lo[2 + c * 3], out->cls[c].bw_hi = hi[2 + c * 3];
        out->cls[c].lat_ident = ident[c], out->cls[c].bw_ident = ident[2 + c * 3];
        out->cls[c].bw_n = bcount[c * 3];
        for (int s2 = 0; s2 < 2; s2++) {
            int j = 2 + c * 3 + 1 + s2;
            out->sw[c][s2].n = bcount[c * 3 + 1 + s2];
            out->sw[c][s2].bw = 1 / x[j], out->sw[c][s2].lo = lo[j], out->sw[c][s2].hi = hi[j];
            out->sw[c][s2].ident = ident[j];
        }
    }
    /* the calibrated prediction's error */
    double *be = res; /* scratch */
    for (int b = 0; b < 3; b++) {
        int nbk = 0;
        for (int i = 0; i < m; i++) {
            const cal_rec *r = &R[i];
            if (ar_ntfit_bucket3(r->bytes) != b) continue;
            double pr = out->cls[r->cls].lat * r->L + r->X * x[2 + r->bcls] / out->group[r->grp].eff;
            be[nbk++] = fabs(pr - r->t) / r->t;
        }
        out->bucket_n[b] = nbk;
        out->bucket_med[b] = nbk ? pct(be, nbk, 0.5) : NAN;
    }
    for (int i = 0; i < m; i++) {
        const cal_rec *r = &R[i];
        double pr = out->cls[r->cls].lat * r->L + r->X * x[2 + r->bcls] / out->group[r->grp].eff;
        err[i] = fabs(pr - r->t) / r->t;
    }
    out->rel_med = pct(err, m, 0.5), out->rel_max = err[m - 1];
    free(idx), free(bs), free(pred), free(R2);
    return AR_OK;
}

static ar_status predict_pc(const ar_nt_set *s, const ar_platform *p, plat_cache *pc, const ar_ntfit_cal *cal,
                            ar_ntfit_pred *out, int *n, ar_err *e) {
    *n = 0;
    ar_status st = AR_OK;
    for (int i = 0; i < s->nrecs && !st; i++) {
        const ar_nt_record *r = &s->recs[i];
        const ar_nt_run *run = &s->runs[r->run];
        int c = priced_coll(run, r);
        if (c < 0) continue;
        ar_nccl_coll nc = (ar_nccl_coll)c;
        int k = 0;
        st = model_of(pc, p, s, r, &k, e);
        if (st) break;
        int cls = pc->c[k].p->nmachines > 1;
        ar_nccl_in in = pc->c[k].in;
        if (cal) ar_ntfit_cal_apply(cal, cls, &in);
        int algo = run->algo[0] ? ar_nccl_algo_parse(run->algo) : -1;
        ar_nccl_algo a;
        ar_nccl_proto pr;
        double t = 0, t2;
        st = ar_nccl_model_choose(&in, nc, algo, (double)r->size_bytes, &a, &pr, &t, e);
        if (st) break;
        int q = run->proto[0] ? ar_nccl_proto_parse(run->proto) : -1;
        ar_err e2 = {{0}};
        if (q >= 0 && q != (int)pr &&
            ar_nccl_model_time(&in, nc, a, (ar_nccl_proto)q, (double)r->size_bytes, &t2, &e2) == AR_OK)
            t = t2;
        const ar_nt_timing *tm = r->ip.present ? &r->ip : &r->oop;
        out[*n] = (ar_ntfit_pred){t, tm->time_us * 1e-6, (double)r->size_bytes, i, pc->c[k].p->nmachines};
        (*n)++;
    }
    return st;
}

/* The errors of cal as the calibrated model predicts (its own choice, as compare on the written platform does):
 * rel_med, rel_max, bucket_med/bucket_n. q: scratch of s->nrecs. */
static ar_status cal_actual(const ar_nt_set *s, const ar_platform *p, plat_cache *pc, ar_ntfit_cal *cal,
                            ar_ntfit_pred *q, double *scratch, ar_err *e) {
    int n = 0;
    ar_status st = predict_pc(s, p, pc, cal, q, &n, e);
    if (st) return st;
    for (int b = 0; b < 3; b++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (ar_ntfit_bucket3(q[i].bytes) == b) scratch[k++] = fabs(q[i].pred_s - q[i].meas_s) / q[i].meas_s;
        cal->bucket_n[b] = k;
        cal->bucket_med[b] = k ? pct(scratch, k, 0.5) : NAN;
    }
    for (int i = 0; i < n; i++) scratch[i] = fabs(q[i].pred_s - q[i].meas_s) / q[i].meas_s;
    if (n) cal->rel_med = pct(scratch, n, 0.5), cal->rel_max = scratch[n - 1];
    return AR_OK;
}

ar_status ar_ntfit_calibrate(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_cal *out,
                             ar_err *e) {
    memset(out, 0, sizeof *out);
    ar_status st = ar_nt_check_fit(s, AR_NT_HALF_BOTH, e);
    if (st) return st;
    plat_cache *pc = calloc(1, sizeof *pc);
    cal_rec *R = calloc((size_t)s->nrecs + 1, sizeof *R);
    ar_ntfit_cal *cur = calloc(1, sizeof *cur);
    if (!pc || !R || !cur) {
        free(pc), free(R), free(cur);
        return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    }
    ar_ntfit_pred *q = calloc((size_t)s->nrecs + 1, sizeof *q);
    double *scratch = calloc((size_t)s->nrecs + 1, sizeof *scratch);
    ar_ntfit_cal *best = calloc(1, sizeof *best);
    if (!q || !scratch || !best) st = ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    int m = 0, changed = 0, have_best = 0, settled = 0;
    for (int pass = 0; pass < 6 && !st; pass++) {
        ar_ntfit_cal next;
        memset(&next, 0, sizeof next);
        st = cal_records(s, p, pc, pass ? cur : NULL, R, &m, &next, &changed, e);
        if (st) break;
        if (pass && !changed) { /* the calibrated model chooses as the fit assumed: cur stands */
            settled = 1;
            break;
        }
        if (m < 2) {
            st = ar_fail(
                e, AR_EINVAL,
                "ntfit: %d records of a collective NCCL's model covers (all_reduce, all_gather, reduce_scatter), need at least 2",
                m);
            break;
        }
        st = cal_fit(R, m, seed, nboot, &next, e);
        if (st) break;
        next.n = m, next.passes = pass + 1;
        /* its errors as the written platform predicts them: where a choice still moves (the fixed point
         * oscillates), the pass whose calibrated model predicts best is kept */
        st = cal_actual(s, p, pc, &next, q, scratch, e);
        if (st) break;
        *cur = next;
        if (!have_best || next.rel_med < best->rel_med) *best = next, have_best = 1;
    }
    if (!st) {
        int passes = cur->passes;
        *out = settled ? *cur : *best;
        out->kept = best->passes, out->passes = passes;
    }
    plat_cache_free(pc);
    free(R), free(cur), free(q), free(scratch), free(best);
    return st;
}

ar_status ar_ntfit_predict(const ar_nt_set *s, const ar_platform *p, const ar_ntfit_cal *cal, ar_ntfit_pred *out,
                           int *n, ar_err *e) {
    plat_cache *pc = calloc(1, sizeof *pc);
    if (!pc) return ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    ar_status st = predict_pc(s, p, pc, cal, out, n, e);
    plat_cache_free(pc);
    return st;
}

/* ------------------------------------------------------------------------- */
/* LogGP o from the small sizes (ntfit.h ar_ntfit_msg_fit)                     */
/* ------------------------------------------------------------------------- */

int ar_ntfit_msg_chain(int nodes) {
    int lv = 0;
    while (nodes > 1 && (1 << lv) < nodes) lv++;
    return 2 * lv;
}

static double median_sorted(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ar_status ar_ntfit_msg_fit(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_msg *out,
                           ar_err *e) {
    memset(out, 0, sizeof *out);
    out->nboot = nboot;
    if (!s->nrecs) {
        snprintf(out->why, sizeof out->why, "no records");
        return AR_OK;
    }
    ar_ntfit_pred *q = calloc((size_t)s->nrecs, sizeof *q);
    double *v = calloc((size_t)s->nrecs, sizeof *v), *ex = calloc((size_t)s->nrecs, sizeof *ex);
    double *bv = calloc((size_t)s->nrecs, sizeof *bv), *bm = calloc((size_t)(nboot > 0 ? nboot : 1), sizeof *bm);
    int n = 0;
    ar_status st = q && v && ex && bv && bm ? AR_OK : ar_fail(e, AR_ENOMEM, "ntfit: out of memory");
    if (!st) st = ar_ntfit_predict(s, p, NULL, q, &n, e);
    int m = 0, multi = 0, multi_ar = 0;
    for (int i = 0; !st && i < n; i++) {
        if (q[i].nodes < 2) continue;
        multi++;
        if (!out->nodes_lo || q[i].nodes < out->nodes_lo) out->nodes_lo = q[i].nodes;
        if (q[i].nodes > out->nodes_hi) out->nodes_hi = q[i].nodes;
        if (s->runs[s->recs[q[i].rec].run].coll != AR_NT_ALL_REDUCE) continue; /* NCCL's tree is the chain */
        multi_ar++;
        if (!(q[i].bytes > 0 && q[i].bytes < AR_NTFIT_MSG_MAX_BYTES) || !(q[i].meas_s > 0)) continue;
        ex[m] = q[i].meas_s - q[i].pred_s;
        v[m] = ex[m] / (2.0 * ar_ntfit_msg_chain(q[i].nodes));
        m++;
    }
    out->n = m;
    if (!st) {
        if (!multi)
            snprintf(out->why, sizeof out->why, "every run is on one node, and o prices messages between machines");
        else if (!multi_ar)
            snprintf(out->why, sizeof out->why,
                     "no multi-node all_reduce run (the message chain is NCCL's all_reduce tree)");
        else if (m < 2)
            snprintf(out->why, sizeof out->why, "%d multi-node record%s below 64 KB (needs >= 2)", m,
                     m == 1 ? "" : "s");
    }
    if (!st && m >= 2) {
        for (int i = 0; i < m; i++) bv[i] = v[i];
        out->o = median_sorted(bv, m);
        for (int i = 0; i < m; i++) bv[i] = ex[i];
        out->excess_med = median_sorted(bv, m);
        unsigned long long rng = seed * 2654435761ull + 29;
        for (int b = 0; b < nboot; b++) {
            for (int k = 0; k < m; k++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                bv[k] = v[(rng >> 33) % (unsigned long long)m];
            }
            bm[b] = median_sorted(bv, m);
        }
        if (nboot > 0) {
            qsort(bm, (size_t)nboot, sizeof *bm, cmp_d);
            out->o_lo = bm[(int)floor(0.025 * (nboot - 1))];
            out->o_hi = bm[(int)ceil(0.975 * (nboot - 1))];
        } else out->o_lo = out->o_hi = out->o;
        if (!(out->o > 0))
            snprintf(out->why, sizeof out->why,
                     "the runs below 64 KB are no slower than NCCL's model (median excess %.3g us)",
                     out->excess_med * 1e6);
        else if (nboot < 1) snprintf(out->why, sizeof out->why, "no bootstrap resamples (no interval)");
        else if (!(out->o_hi - out->o_lo < out->o))
            snprintf(out->why, sizeof out->why, "its 95 %% interval [%.3g, %.3g] us is wider than its value %.3g us",
                     out->o_lo * 1e6, out->o_hi * 1e6, out->o * 1e6);
        else out->o_ident = 1;
        if (!out->o_ident) out->o = 0;
    }
    free(q), free(v), free(ex), free(bv), free(bm);
    return st;
}
