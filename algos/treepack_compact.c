/* Spanning-tree packing: the extended (multicommodity-flow) formulation of
 * the spanning-tree polytope, solved as an independent check on direct
 * platforms (treepack_lp.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack_lp.h"

/* ------------------------------------------------------------------------ */
/* the extended (multicommodity-flow) formulation, direct platforms only      */

ar_status ar_tp_solve_compact(ar_treepack_result *r, ar_err *e) {
    int n = r->nranks, m = r->npairs, A = 2 * m, root = 0;
    /* arc a = 2p (u->v) or 2p+1 (v->u) */
    /* columns: t = 1; y_a = 2 + a; f^k_a = 2 + A + (k-1)*A + a for k = 1..n-1 */
    long long ncols = 1 + (long long)A + (long long)(n - 1) * A;
    /* rows: indeg v (n-1), conservation (k, v != root) (n-1)^2, capacity (n-1)*A, load m */
    long long nrows = (n - 1) + (long long)(n - 1) * (n - 1) + (long long)(n - 1) * A + m;
    long long nnz = (long long)A + (long long)(n - 1) * 2 * A + (long long)(n - 1) * A * 2 + 3LL * m;
    if (ncols > 50000000 || nrows > 50000000 || nnz > 200000000)
        return ar_fail(e, AR_ELIMIT, "treepack: extended formulation too large (%lld columns)", ncols);
    int *ia = ar_calloc((size_t)nnz + 1, sizeof *ia), *ja = ar_calloc((size_t)nnz + 1, sizeof *ja);
    double *ar = ar_calloc((size_t)nnz + 1, sizeof *ar);
    if (!ia || !ja || !ar) {
        free(ia);
        free(ja);
        free(ar);
        return ar_fail(e, AR_ENOMEM, "treepack: out of memory (extended formulation)");
    }
    double t0 = ar_now_s();
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, (int)nrows);
    glp_add_cols(lp, (int)ncols);
    glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
    glp_set_obj_coef(lp, 1, 1.0);
    for (long long j = 2; j <= ncols; j++) glp_set_col_bnds(lp, (int)j, GLP_LO, 0, 0);
    long long z = 0;
#define PUT(i, j, v) (z++, ia[z] = (int)(i), ja[z] = (int)(j), ar[z] = (v))
    int row = 0;
    /* in-degree rows: vertices != root, in ascending order */
    int *indeg_row = ar_calloc((size_t)n, sizeof *indeg_row);
    if (!indeg_row) {
        glp_delete_prob(lp);
        free(ia);
        free(ja);
        free(ar);
        return ar_fail(e, AR_ENOMEM, "treepack: out of memory");
    }
    for (int v = 0; v < n; v++)
        if (v != root) {
            indeg_row[v] = ++row;
            glp_set_row_bnds(lp, row, GLP_FX, 1.0, 1.0);
        }
    for (int a = 0; a < A; a++) {
        int head = a % 2 == 0 ? r->pairs[a / 2].v : r->pairs[a / 2].u;
        if (head == root) glp_set_col_bnds(lp, 2 + a, GLP_FX, 0, 0);
        else PUT(indeg_row[head], 2 + a, 1.0);
    }
    /* conservation: inflow - outflow = [v == k] for v != root */
    for (int k = 1; k < n; k++) {
        int base = row; /* row of (k, v) = base + index of v among non-root vertices */
        for (int v = 0; v < n; v++)
            if (v != root) {
                ++row;
                double b = v == k ? 1.0 : 0.0;
                glp_set_row_bnds(lp, row, GLP_FX, b, b);
            }
        for (int a = 0; a < A; a++) {
            int tail = a % 2 == 0 ? r->pairs[a / 2].u : r->pairs[a / 2].v;
            int head = a % 2 == 0 ? r->pairs[a / 2].v : r->pairs[a / 2].u;
            int col = 2 + A + (k - 1) * A + a;
            if (head != root) PUT(base + indeg_row[head], col, 1.0);
            if (tail != root) PUT(base + indeg_row[tail], col, -1.0);
        }
    }
    /* capacity f^k_a <= y_a */
    for (int k = 1; k < n; k++)
        for (int a = 0; a < A; a++) {
            ++row;
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            PUT(row, 2 + A + (k - 1) * A + a, 1.0);
            PUT(row, 2 + a, -1.0);
        }
    /* load c_e (y_uv + y_vu) <= t */
    for (int p = 0; p < m; p++) {
        ++row;
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        double c = r->link_c[r->pairs[p].link];
        PUT(row, 2 + 2 * p, c);
        PUT(row, 2 + 2 * p + 1, c);
        PUT(row, 1, -1.0);
    }
#undef PUT
    glp_load_matrix(lp, (int)z, ia, ja, ar);
    free(ia);
    free(ja);
    free(ar);
    free(indeg_row);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int ret = glp_simplex(lp, &parm);
    ar_status st = AR_OK;
    if (ret != 0 || glp_get_status(lp) != GLP_OPT)
        st = ar_fail(e, AR_EINTERNAL, "treepack: extended formulation: GLPK simplex failed (%d)", ret);
    else r->C_compact = glp_get_obj_val(lp);
    r->compact_rows = (int)nrows;
    r->compact_cols = (int)ncols;
    glp_delete_prob(lp);
    r->compact_s = ar_now_s() - t0;
    return st;
}
