/* Spanning-tree packing: exact fractions, rationalisation, and the exact
 * re-solve of GLPK's final basis with its primal and dual certificates
 * (treepack_lp.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack_lp.h"

/* --- exact fractions: int64 storage (|num|, den < 2^62), __int128 arithmetic */

static ar_tp_i128 iabs128(ar_tp_i128 x) { return x < 0 ? -x : x; }

static ar_tp_i128 gcd128(ar_tp_i128 a, ar_tp_i128 b) {
    a = iabs128(a);
    b = iabs128(b);
    while (b) {
        ar_tp_i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* n/d reduced into *o; returns 0 when d == 0 or it does not fit. */
int ar_tp_frac128(ar_tp_i128 n, ar_tp_i128 d, ar_tp_frac *o) {
    if (d == 0) return 0;
    if (d < 0) {
        n = -n;
        d = -d;
    }
    ar_tp_i128 g = gcd128(n, d);
    if (g > 1) {
        n /= g;
        d /= g;
    }
    if (iabs128(n) >= (ar_tp_i128)FR_LIM || d >= (ar_tp_i128)FR_LIM) return 0;
    o->num = (int64_t)n;
    o->den = (int64_t)d;
    return 1;
}

int ar_tp_frac_ok(ar_tp_frac a) { return a.den > 0 && a.den < FR_LIM && a.num < FR_LIM && a.num > -FR_LIM; }

int ar_tp_frac_add(ar_tp_frac a, ar_tp_frac b, ar_tp_frac *o) {
    if (!ar_tp_frac_ok(a) || !ar_tp_frac_ok(b)) return 0;
    return ar_tp_frac128((ar_tp_i128)a.num * b.den + (ar_tp_i128)b.num * a.den, (ar_tp_i128)a.den * b.den, o);
}

int ar_tp_frac_cmp(ar_tp_frac a, ar_tp_frac b) {
    ar_tp_i128 l = (ar_tp_i128)a.num * b.den, r = (ar_tp_i128)b.num * a.den;
    return (l > r) - (l < r);
}

int ar_tp_rationalize(double x, int64_t maxden, double tol, ar_tp_frac *out) {
    out->num = 0;
    out->den = 0;
    if (!isfinite(x) || fabs(x) > 1e9 || maxden < 1) return 0;
    double y = fabs(x), tolabs = tol * (y > 1 ? y : 1), r = y;
    int64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
    for (int it = 0; it < 64; it++) {
        double a = floor(r);
        if (a > 1e12) break;
        int64_t ai = (int64_t)a;
        if (ai > 0 && (h1 > (INT64_MAX - h0) / ai || k1 > (INT64_MAX - k0) / ai)) break;
        int64_t h2 = ai * h1 + h0, k2 = ai * k1 + k0;
        if (k2 > maxden) break;
        h0 = h1;
        h1 = h2;
        k0 = k1;
        k1 = k2;
        if (fabs(y - (double)h1 / (double)k1) <= tolabs) {
            out->num = x < 0 ? -h1 : h1;
            out->den = k1;
            return 1;
        }
        double f = r - a;
        if (f < 1e-300) break;
        r = 1.0 / f;
    }
    return 0;
}

char *ar_tp_fmt(double x, ar_tp_frac f, char *buf, size_t n) {
    if (f.den > 0) snprintf(buf, n, "%lld/%lld (%.6g)", (long long)f.num, (long long)f.den, x);
    else snprintf(buf, n, "%.9g", x);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* exact certificates                                                        */
/*
 * GLPK's optimal basis is re-solved in exact integer arithmetic. Link row l
 * is scaled by b_l, the denominator of c_l = a_l / b_l, so that the master
 * LP's matrix is integral with small entries:
 *     conv:   sum_T lambda_T = 1
 *     link l: sum_T a_l cnt_lT lambda_T - b_l t <= 0
 * With B the basic columns and N the nonbasic (tight) rows, the primal is
 * A[N,B] x_B = b_N - A[N,nonbasic cols] x_nonbasic and the dual
 * A[N,B]^T y_N = obj_B; both are solved by fraction-free Gauss-Jordan
 * (Bareiss/Montante: every intermediate entry is a minor, so each division is
 * exact), giving x = num/det exactly. Then:
 *   primal certificate: lambda >= 0, every basic link row's activity <= 0, so
 *       max_l c_l P_l <= t = C exactly;
 *   dual certificate: pi_l = -b_l y_l >= 0 with sum_l pi_l = 1 (t is basic),
 *       and the exact MST of w_p = sum_{l on route p} pi_l c_l is >= C; for
 *       any packing, t >= sum_l pi_l c_l P_l = sum_T lambda_T w(T) >= MST(w),
 *       so C(G) >= C.
 * __int128 holds the minors; any entry beyond 2^62 abandons the attempt
 * (the result is then reported as not exact, never wrong).
 */
#define I128_LIM ((ar_tp_i128)1 << 62)
#define TP_EXACT_MAX_ROWS 400

/* Solves M x = rhs (k x k, row-major; both overwritten) exactly. On success
 * returns 1, *det > 0 and num[i] with x_i = num[i] / *det. */
static int bareiss_solve(int k, ar_tp_i128 *M, ar_tp_i128 *rhs, ar_tp_i128 *det, ar_tp_i128 *num) {
    /* every entry stays below 2^62 so that each product fits in 127 bits */
    for (size_t i = 0; i < (size_t)k * (size_t)k; i++)
        if (iabs128(M[i]) >= I128_LIM) return 0;
    for (int i = 0; i < k; i++)
        if (iabs128(rhs[i]) >= I128_LIM) return 0;
    ar_tp_i128 prev = 1;
    for (int c = 0; c < k; c++) {
        int pr = -1;
        for (int i = c; i < k; i++)
            if (M[(size_t)i * k + c] != 0) {
                pr = i;
                break;
            }
        if (pr != c) {
            for (int j = 0; j < k; j++) {
                ar_tp_i128 t = M[(size_t)pr * k + j];
                M[(size_t)pr * k + j] = M[(size_t)c * k + j];
                M[(size_t)c * k + j] = t;
            }
            ar_tp_i128 t = rhs[pr];
            rhs[pr] = rhs[c];
            rhs[c] = t;
        }
        ar_tp_i128 piv = M[(size_t)c * k + c];
        for (int i = 0; i < k; i++) {
            if (i == c) continue;
            ar_tp_i128 f = M[(size_t)i * k + c];
            for (int j = 0; j < k; j++) {
                if (j == c) continue;
                ar_tp_i128 v = (piv * M[(size_t)i * k + j] - f * M[(size_t)c * k + j]) / prev;
                if (iabs128(v) >= I128_LIM) return 0;
                M[(size_t)i * k + j] = v;
            }
            ar_tp_i128 v = (piv * rhs[i] - f * rhs[c]) / prev;
            if (iabs128(v) >= I128_LIM) return 0;
            rhs[i] = v;
            M[(size_t)i * k + c] = 0;
        }
        prev = piv;
    }
    /* every diagonal entry now equals the last pivot (+-det) */
    ar_tp_i128 d = M[(size_t)(k - 1) * k + (k - 1)];
    if (d == 0) return 0;
    for (int i = 0; i < k; i++)
        if (M[(size_t)i * k + i] != d) return 0;
    int neg = d < 0;
    *det = neg ? -d : d;
    for (int i = 0; i < k; i++) num[i] = neg ? -rhs[i] : rhs[i];
    return 1;
}

typedef struct iwi {
    ar_tp_i128 w;
    int i;
} iwi;

static int iwi_cmp(const void *x, const void *y) {
    const iwi *a = x, *b = y;
    if (a->w != b->w) return a->w < b->w ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int ar_tp_xlp_init(const ar_treepack_result *r, ar_tp_xlp *x) {
    x->a = ar_calloc((size_t)r->nlinks + 1, sizeof *x->a);
    x->b = ar_calloc((size_t)r->nlinks + 1, sizeof *x->b);
    if (!x->a || !x->b) return 0;
    for (int l = 0; l < r->nlinks; l++) {
        ar_tp_frac f = r->link_c_exact[l];
        if (f.den <= 0 || f.den > (1 << 20) || f.num > (1 << 20)) return 0;
        x->a[l] = f.num;
        x->b[l] = f.den;
    }
    return 1;
}

void ar_tp_xlp_free(ar_tp_xlp *x) {
    free(x->a);
    free(x->b);
}

/* Dense integer column j (GLPK numbering: 1 = t, 1 + k = tree k) over rows 1..nrows. */
static void xcol(ar_tp_cg *c, const ar_tp_xlp *x, int j, ar_tp_i128 *col) {
    for (int i = 0; i <= c->nrows; i++) col[i] = 0;
    if (j == 1) {
        for (int l = 0; l < c->L; l++)
            if (c->row_of_link[l]) col[c->row_of_link[l]] = -(ar_tp_i128)x->b[l];
        return;
    }
    const int *pairs = c->tree_pairs + (size_t)(j - 2) * (size_t)(c->n - 1);
    col[1] = 1;
    for (int i = 0; i < c->n - 1; i++) {
        int len;
        const ar_dlink *rt = ar_tp_route_of(c->r, pairs[i], 0, &len);
        for (int q = 0; q < len; q++) {
            int l = AR_DLINK_LINK(rt[q]);
            col[c->row_of_link[l]] += x->a[l];
        }
    }
}

/* The exact solution of the current basis of c->lp.
 * C_known: when t is nonbasic at its upper bound, its exact value (stage 2).
 * Outputs: lam[k] exact weights of every column (0 for nonbasic), tval exact t,
 * and, when want_dual, pi (per link, exact, over one denominator) proven by the
 * MST check against tval. Returns 1 when the primal (and the dual, if asked)
 * certificate holds. */
int ar_tp_exact_basis(ar_tp_cg *c, const ar_tp_xlp *x, ar_tp_frac C_known, int want_dual, ar_tp_frac *lam,
                      ar_tp_frac *tval) {
    int m = c->nrows, ncol = 1 + c->ncols, ok = 1;
    if (m > TP_EXACT_MAX_ROWS) return 0;
    int *brow = ar_calloc((size_t)m + 1, sizeof *brow), *bcol = ar_calloc((size_t)ncol + 1, sizeof *bcol);
    ar_tp_i128 *A = ar_calloc((size_t)(m + 1) * (size_t)(ncol + 1), sizeof *A); /* A[j*(m+1)+i] */
    ar_tp_i128 *M = NULL, *rhs = NULL, *num = NULL;
    int nb = 0, nn = 0;
    if (!brow || !bcol || !A) ok = 0;
    for (int j = 1; ok && j <= ncol; j++) xcol(c, x, j, A + (size_t)j * (m + 1));
    /* nonbasic rows (the equations) and basic columns (the unknowns) */
    for (int i = 1; ok && i <= m; i++)
        if (glp_get_row_stat(c->lp, i) != GLP_BS) brow[nn++] = i;
    for (int j = 1; ok && j <= ncol; j++)
        if (glp_get_col_stat(c->lp, j) == GLP_BS) bcol[nb++] = j;
    if (ok && (nb != nn || nb == 0)) ok = 0;
    int k = nb;
    if (ok) {
        M = ar_calloc((size_t)k * (size_t)k, sizeof *M);
        rhs = ar_calloc((size_t)k, sizeof *rhs);
        num = ar_calloc((size_t)k, sizeof *num);
        if (!M || !rhs || !num) ok = 0;
    }
    /* t nonbasic at upper: value C_known = Cn/Cd; scale the system by Cd */
    int t_upper = glp_get_col_stat(c->lp, 1) == GLP_NU;
    ar_tp_i128 Cn = C_known.num, Cd = t_upper ? C_known.den : 1;
    if (t_upper && C_known.den <= 0) ok = 0;
    for (int a = 0; ok && a < k; a++) {
        int i = brow[a];
        for (int b = 0; b < k; b++) M[(size_t)a * k + b] = A[(size_t)bcol[b] * (m + 1) + i];
        ar_tp_i128 bi = i == 1 ? 1 : 0; /* conv = 1, link rows at 0 */
        rhs[a] = bi * Cd - (t_upper ? A[(size_t)1 * (m + 1) + i] * Cn : 0);
    }
    ar_tp_i128 det = 0;
    if (ok) ok = bareiss_solve(k, M, rhs, &det, num);
    /* x_j = num / (det * Cd) */
    ar_tp_i128 D = det * Cd;
    ar_tp_i128 *xv = NULL;
    if (ok) {
        xv = ar_calloc((size_t)ncol + 1, sizeof *xv);
        if (!xv) ok = 0;
    }
    if (ok) {
        for (int b = 0; b < k; b++) xv[bcol[b]] = num[b];
        if (t_upper) xv[1] = Cn * det;
        for (int j = 1; j <= ncol; j++)
            if (xv[j] < 0) ok = 0;
    }
    /* every row: activity <= 0 (links), = 1 (conv), exactly */
    for (int i = 1; ok && i <= m; i++) {
        ar_tp_i128 act = 0;
        for (int j = 1; ok && j <= ncol; j++) {
            ar_tp_i128 a = A[(size_t)j * (m + 1) + i];
            if (!a || !xv[j]) continue;
            if (iabs128(a) >= ((ar_tp_i128)1 << 30) || iabs128(xv[j]) >= ((ar_tp_i128)1 << 90)) ok = 0;
            else act += a * xv[j];
        }
        if (ok && (i == 1 ? act != D : act > 0)) ok = 0;
    }
    if (ok) {
        ok = ar_tp_frac128(xv[1], D, tval);
        for (int j = 2; ok && j <= ncol; j++) ok = ar_tp_frac128(xv[j], D, &lam[j - 2]);
    }
    if (ok && t_upper == 0 && want_dual) {
        /* dual: A[N,B]^T y = obj_B (stage 1: t has objective 1, trees 0) */
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++) M[(size_t)b * k + a] = A[(size_t)bcol[b] * (m + 1) + brow[a]];
        }
        for (int b = 0; b < k; b++) rhs[b] = bcol[b] == 1 ? 1 : 0;
        ar_tp_i128 ddet = 0;
        ok = bareiss_solve(k, M, rhs, &ddet, num);
        /* pi_l = -y_l = pnum / ddet over the nonbasic link rows */
        ar_tp_i128 *pnum = NULL;
        if (ok) {
            pnum = ar_calloc((size_t)c->L + 1, sizeof *pnum);
            if (!pnum) ok = 0;
        }
        /* y'_l (scaled row l) = num/ddet; pi_l = -b_l y'_l; pi_l c_l = -a_l y'_l */
        ar_tp_i128 psum = 0;
        for (int a = 0; ok && a < k; a++) {
            int i = brow[a];
            if (i == 1) continue;
            for (int l = 0; l < c->L; l++)
                if (c->row_of_link[l] == i) {
                    pnum[l] = -num[a]; /* -y'_l numerator */
                    if (pnum[l] < 0) ok = 0;
                    psum += pnum[l] * x->b[l];
                }
        }
        /* sum_l pi_l = 1 */
        if (ok && psum != ddet) ok = 0;
        /* exact MST of w_p = sum_l pi_l c_l = sum_l a_l (-y'_l) (numerators over ddet) */
        iwi *s = NULL;
        int *uf = NULL;
        if (ok) {
            s = ar_calloc((size_t)c->np, sizeof *s);
            uf = ar_calloc((size_t)c->n, sizeof *uf);
            if (!s || !uf) ok = 0;
        }
        for (int p = 0; ok && p < c->np; p++) {
            int len;
            const ar_dlink *rt = ar_tp_route_of(c->r, p, 0, &len);
            ar_tp_i128 w = 0;
            for (int q = 0; q < len; q++) {
                int l = AR_DLINK_LINK(rt[q]);
                if (iabs128(pnum[l]) >= ((ar_tp_i128)1 << 62)) ok = 0;
                else w += pnum[l] * x->a[l];
            }
            s[p].w = w;
            s[p].i = p;
        }
        if (ok) {
            qsort(s, (size_t)c->np, sizeof *s, iwi_cmp);
            ar_uf_init(uf, c->n);
            ar_tp_i128 tot = 0;
            int got = 0;
            for (int j = 0; j < c->np && got < c->n - 1; j++)
                if (ar_uf_union(uf, c->r->pairs[s[j].i].u, c->r->pairs[s[j].i].v)) {
                    tot += s[j].w;
                    got++;
                }
            /* MST/ddet >= t = tval.num/tval.den */
            if (got != c->n - 1 || iabs128(tot) >= ((ar_tp_i128)1 << 62) ||
                tot * (ar_tp_i128)tval->den < (ar_tp_i128)tval->num * ddet)
                ok = 0;
        }
        free(s);
        free(uf);
        free(pnum);
    }
    free(brow);
    free(bcol);
    free(A);
    free(M);
    free(rhs);
    free(num);
    free(xv);
    return ok;
}
