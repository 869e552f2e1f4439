/* arlab best --platform P --size S [--dtype T] [--ranks N] [--format table|csv|json]
 *
 * Ranks every registry algorithm (default parameters) and every BlueConnect
 * variant by predicted time on one platform and size, and says which is best
 * and why. The common yardstick is the generic cost walk over each planned
 * schedule (models/walk.c); the closed form (Eq. 6/7/9/10/...) is shown
 * beside it where one exists.
 *
 * BlueConnect variants (BlueConnect Sec. 3.2.1):
 *   decompositions: the platform's level fan-outs f_0 .. f_{m-1} (those > 1)
 *     cut into runs of consecutive levels; a run of one level becomes one
 *     stage or is split into an ordered factorization of its fan-out (16 ->
 *     2x8, 4x4, 2x2x4, ...); a run of several levels is merged into one stage
 *     (their product). Factors that straddle a level boundary are not tried.
 *   orders: all k! stage orders when k <= 4, else bottom-up and top-down;
 *   implementations: ring, or hd on power-of-two stages > 2 (for p = 2 both
 *     are the same single exchange): all 2^h mixes when h <= 4, else all-ring
 *     and all-hd.
 *   Caps: BEST_MAX_DECOMPS decompositions, BEST_MAX_VARIANTS variants, and a
 *   walk budget of BEST_WALK_WORK ranks x rounds: the platform's default is
 *   walked first, then the variants with an Eq. 9/10 closed form in order of
 *   it (best first) alternating with the others; the output counts what was
 *   left out or not walked.
 * On a platform with no symmetric hierarchy there is no decomposition: it says
 * so, and BlueConnect's entry is its one-level-ring fallback.
 *
 * The human table shows the best BEST_TABLE_ROWS rows, then the breakdown of
 * the best; csv/json list every row. Columns: rank, algo, params (a valid
 * --algo spec suffix), walk_s, closed_s (NaN: none), rel_diff =
 * (walk - closed) / closed, slowest (the walk's slowest stage). The ranking
 * key is walk_s; a schedule whose walk would price more than BEST_WALK_XFERS
 * transfers (a 4096-rank ring: 33M) is not walked: it is listed last,
 * unranked ("-"), with its closed form (closed forms of different algorithms
 * assume different things, so they are no common yardstick).
 * Owner: the BlueConnect/FlexReduce engineer (issue 3).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/blueconnect.h"
#include "cli.h"
#include "core/lower.h"
#include "core/util.h"
#include "models/model.h"
#include "models/model_topo.h"

#define BEST_MAX_DECOMPS 64
#define BEST_MAX_VARIANTS 2048
#define BEST_TABLE_ROWS 30    /* rows of the human table; csv/json list all */
#define BEST_WALK_WORK 3e7     /* ranks x rounds walked for BlueConnect variants (a few seconds) */
#define BEST_WALK_XFERS 1e7    /* a schedule whose walk prices more transfers is not walked */

typedef struct cand {
    char algo[32];
    char params[200];
    double walk_s, closed_s;
    char slowest[160];
    int is_default;
    int index;    /* evaluation order: ties keep it */
    double key_s; /* ranking key: walk_s (NaN: not walked, listed last) */
} cand;

typedef struct cands {
    cand *v;
    int n, cap;
} cands;

typedef struct decomps {
    ar_bc_decomp v[BEST_MAX_DECOMPS];
    int n, truncated; /* truncated: more exist than the cap (enumeration stopped) */
} decomps;

/* --- enumeration ------------------------------------------------------------ */

static void add_decomp(decomps *D, const int *f, int k) {
    if (D->n == BEST_MAX_DECOMPS) {
        D->truncated = 1;
        return;
    }
    ar_bc_decomp *d = &D->v[D->n++];
    memset(d, 0, sizeof *d);
    d->k = k;
    for (int i = 0; i < k; i++) {
        d->p[i] = f[i];
        d->order[i] = i;
        d->impl[i] = AR_IMPL_RING;
    }
}

static void enum_runs(const int *fan, int m, int pos, int *cur, int k, decomps *D);

/* Ordered factorizations of n (factors > 1; n itself first) appended to cur,
 * each followed by the next runs. Stops once the cap is reached. */
static void enum_split(const int *fan, int m, int pos, long long n, int *cur, int k, decomps *D) {
    if (k >= AR_BC_MAX_STAGES)
        return;
    cur[k] = (int)n;
    enum_runs(fan, m, pos + 1, cur, k + 1, D);
    for (long long a = 2; a < n && !D->truncated; a++) {
        if (n % a)
            continue;
        cur[k] = (int)a;
        enum_split(fan, m, pos, n / a, cur, k + 1, D);
    }
}

static void enum_runs(const int *fan, int m, int pos, int *cur, int k, decomps *D) {
    if (D->truncated)
        return;
    if (pos == m) {
        add_decomp(D, cur, k);
        return;
    }
    if (k >= AR_BC_MAX_STAGES)
        return;
    enum_split(fan, m, pos, fan[pos], cur, k, D); /* one level: itself or split */
    long long prod = fan[pos];
    for (int q = pos + 1; q < m && !D->truncated; q++) { /* levels pos..q merged */
        prod *= fan[q];
        cur[k] = (int)prod;
        enum_runs(fan, m, q + 1, cur, k + 1, D);
    }
}

static int next_perm(int *a, int n) {
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

/* --- evaluation --------------------------------------------------------------- */

static cand *new_cand(cands *c) {
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        cand *nv = ar_reallocarray(c->v, (size_t)cap, sizeof *nv);
        if (!nv)
            return NULL;
        c->v = nv;
        c->cap = cap;
    }
    cand *x = &c->v[c->n];
    memset(x, 0, sizeof *x);
    x->index = c->n++;
    return x;
}

/* Plans spec, walks it, and tries the closed form. AR_EUNSUPPORTED: the
 * algorithm cannot serve this platform (the message says why). */
static ar_status evaluate(const ar_platform *p, uint64_t count, size_t eb, const char *algo, const char *params,
                          cand *x, ar_err *e) {
    char spec[256];
    snprintf(spec, sizeof spec, "%s%s%s", algo, params[0] ? ":" : "", params);
    snprintf(x->algo, sizeof x->algo, "%s", algo);
    snprintf(x->params, sizeof x->params, "%s", params);
    ar_schedule *s = NULL;
    ar_status st = ar_algo_plan(spec, p, count, eb, &s, e);
    if (st != AR_OK)
        return st;
    ar_model_result walk, closed;
    double xfers = 0; /* what the walk would price: sum over ops of rounds x transfers per round */
    for (int ph = 0; ph < s->nphases; ph++)
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            double per_round = (double)ar_lower_max_xfers(op);
            if (op->impl == AR_IMPL_CHAIN && op->chunks < op->n) /* a pipelined chain has <= chunks in flight */
                per_round = op->chunks;
            xfers += (double)ar_lower_nrounds(op) * per_round;
        }
    x->walk_s = NAN;
    if (xfers <= BEST_WALK_XFERS) {
        st = ar_model_walk(p, s, &walk, e);
        ar_schedule_free(s);
        if (st != AR_OK)
            return st;
        x->walk_s = walk.time_s;
        int worst = 0;
        for (int i = 1; i < walk.nstages; i++)
            if (walk.stages[i].time_s > walk.stages[worst].time_s)
                worst = i;
        char b1[32];
        if (walk.nstages)
            snprintf(x->slowest, sizeof x->slowest, "%s: %s", walk.stages[worst].label,
                     ar_fmt_time(walk.stages[worst].time_s, b1, sizeof b1));
    } else {
        ar_schedule_free(s);
        snprintf(x->slowest, sizeof x->slowest, "walk skipped (~%.1e transfers > %.0e): not ranked",
                 xfers, BEST_WALK_XFERS);
    }
    x->closed_s = NAN;
    ar_params pr;
    ar_err e2 = {{0}};
    if (ar_params_parse(spec, &pr, &e2) == AR_OK) {
        if (ar_model_closed(p, count, eb, &pr, &closed, &e2) == AR_OK)
            x->closed_s = closed.time_s;
        ar_params_free(&pr);
    }
    x->key_s = x->walk_s;
    return AR_OK;
}

/* One BlueConnect variant: a decomposition with an order and an impl mix. */
typedef struct variant {
    ar_bc_decomp d;
    double closed_s; /* Eq. 9/10, NaN where it does not apply */
    double work;     /* walk cost estimate: ranks x rounds */
    int is_default;
} variant;

/* Appends every order and ring/hd mix of decomposition d to v (cap
 * BEST_MAX_VARIANTS; the rest counted in *left_out). hd is tried only where
 * p_i is a power of two > 2 (for p_i = 2 it is the ring's single exchange). */
static void gen_variants(ar_bc_decomp d, variant *v, int *n, int *left_out) {
    int k = d.k, hdable[AR_BC_MAX_STAGES], h = 0, perm[AR_BC_MAX_STAGES];
    for (int i = 0; i < k; i++) {
        perm[i] = i;
        if (ar_is_pow2(d.p[i]) && d.p[i] > 2)
            hdable[h++] = i;
    }
    int all_orders = k <= 4, nmask = h <= 4 ? 1 << h : 2;
    for (int o = 0;; o++) {
        if (!all_orders && o == 1)
            for (int i = 0; i < k; i++)
                perm[i] = k - 1 - i; /* top-down */
        if (!all_orders && o == 2)
            break;
        memcpy(d.order, perm, sizeof perm);
        for (int mask = 0; mask < nmask; mask++) {
            for (int i = 0; i < k; i++)
                d.impl[i] = AR_IMPL_RING;
            for (int j = 0; j < h; j++)
                if (h <= 4 ? (mask >> j & 1) : mask == 1)
                    d.impl[hdable[j]] = AR_IMPL_HD;
            if (*n >= BEST_MAX_VARIANTS) {
                (*left_out)++;
                continue;
            }
            memset(&v[*n], 0, sizeof v[*n]);
            v[(*n)++].d = d;
        }
        if (all_orders && !next_perm(perm, k))
            break;
    }
}

/* Same schedule as the default decomposition (p=2 stages: ring == hd). */
static int same_as_default(const ar_bc_decomp *a, const ar_bc_decomp *b) {
    if (a->k != b->k)
        return 0;
    for (int i = 0; i < a->k; i++) /* only the first k entries are set */
        if (a->p[i] != b->p[i] || a->order[i] != b->order[i] || (a->p[i] > 2 && a->impl[i] != b->impl[i]))
            return 0;
    return 1;
}

/* Enumerates the variants, prices each with Eq. 9/10 (cheap), then walks them
 * within BEST_WALK_WORK: the default first, then the aligned variants by
 * their closed form (best first) alternating with the others (no closed form)
 * in enumeration order. Variants left unwalked are counted in *unwalked. */
static ar_status bc_variants(const ar_platform *p, uint64_t count, size_t eb, const ar_bc_decomp *dflt, cands *c,
                             int *ndecomp, int *truncated, int *left_out, int *nvariants, int *unwalked,
                             ar_err *e) {
    int fan[AR_MAX_LEVELS], m = 0, cur[AR_BC_MAX_STAGES], n = 0;
    for (int l = 0; l < p->nlevels; l++)
        if (p->levels[l].fanout > 1)
            fan[m++] = p->levels[l].fanout;
    decomps D; /* ~20 KB */
    memset(&D, 0, sizeof D);
    enum_runs(fan, m, 0, cur, 0, &D);
    variant *v = ar_calloc(BEST_MAX_VARIANTS, sizeof *v);
    int *order = ar_calloc(BEST_MAX_VARIANTS, sizeof *order);
    if (!v || !order) {
        free(v);
        free(order);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int i = 0; i < D.n; i++)
        gen_variants(D.v[i], v, &n, left_out);
    *ndecomp = D.n;
    *truncated = D.truncated;
    *nvariants = n;
    int na = 0, nb = 0, def = -1;
    for (int i = 0; i < n; i++) {
        ar_model_result mr;
        ar_err e1 = {{0}};
        v[i].closed_s = ar_model_bc_decomp(p, (double)count * (double)eb, &v[i].d, &mr, &e1) == AR_OK ? mr.time_s : NAN;
        v[i].work = 0;
        for (int k = 0; k < v[i].d.k; k++)
            v[i].work += 2.0 * p->nranks * (v[i].d.impl[k] == AR_IMPL_HD ? ar_lg_steps(v[i].d.p[k]) : v[i].d.p[k] - 1);
        v[i].is_default = same_as_default(&v[i].d, dflt);
        if (v[i].is_default && def < 0) {
            def = i;
            v[i].d = *dflt; /* the planner's own default (hd also on p = 2 stages: the same exchange) */
        }
    }
    /* aligned ones (closed form) sorted by it into order[0..na), the others after */
    for (int i = 0; i < n; i++)
        if (!isnan(v[i].closed_s) && i != def)
            order[na++] = i;
    for (int i = 1; i < na; i++)
        for (int j = i; j > 0 && v[order[j]].closed_s < v[order[j - 1]].closed_s; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        if (isnan(v[i].closed_s) && i != def)
            order[na + nb++] = i;
    double work = 0;
    ar_status st = AR_OK;
    for (int a = 0, b = 0, turn = -1; st == AR_OK && (turn < 0 || a < na || b < nb); turn++) {
        int i = turn < 0 ? def : (turn % 2 == 0 && a < na) || b >= nb ? order[a++] : order[na + b++];
        if (i < 0)
            continue;
        if (work > BEST_WALK_WORK && !v[i].is_default) {
            (*unwalked)++;
            continue;
        }
        work += v[i].work;
        char params[200];
        ar_bc_format(&v[i].d, params, sizeof params);
        cand *x = new_cand(c);
        if (!x) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        st = evaluate(p, count, eb, "blueconnect", params, x, e);
        x->is_default = v[i].is_default;
    }
    free(v);
    free(order);
    return st;
}

static int cmp_cand(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (isnan(x->key_s) != isnan(y->key_s))
        return isnan(x->key_s) ? 1 : -1;
    if (x->key_s != y->key_s)
        return x->key_s < y->key_s ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* --- why the best is best -------------------------------------------------------- */

/* Prints the per-stage breakdown of the best candidate: the closed form's when
 * there is one (its labels name the level and the share, e.g. "w2/6"), else
 * the walk's per-phase times. */
static void explain(const ar_platform *p, uint64_t count, size_t eb, const cands *c) {
    const cand *b = &c->v[0];
    char t1[32], t2[32], r1[32], d1[32], spec[256];
    snprintf(spec, sizeof spec, "%s%s%s", b->algo, b->params[0] ? ":" : "", b->params);
    if (isnan(b->key_s)) {
        printf("\nbest: none could be walked within the budget (see the closed forms above)\n");
        return;
    }
    printf("\nbest: %s  %s (walk)", spec, ar_fmt_time(b->key_s, t1, sizeof t1));
    if (c->n > 1 && !isnan(c->v[1].key_s))
        printf(", %.1f%% faster than %s%s%s (%s)", 100.0 * (c->v[1].key_s - b->key_s) / c->v[1].key_s, c->v[1].algo,
               c->v[1].params[0] ? ":" : "", c->v[1].params, ar_fmt_time(c->v[1].key_s, t2, sizeof t2));
    printf("\n");
    for (int i = 1; i < c->n; i++)
        if (c->v[i].is_default && !isnan(c->v[i].key_s))
            printf("BlueConnect on the platform's own levels (%s) ranks %d: %s (walk), slowest stage %s\n",
                   c->v[i].params, i + 1, ar_fmt_time(c->v[i].key_s, t1, sizeof t1), c->v[i].slowest);
    ar_params pr;
    ar_err e = {{0}};
    ar_model_result m;
    ar_schedule *s = NULL;
    if (ar_params_parse(spec, &pr, &e) != AR_OK)
        return;
    ar_status st = ar_model_closed(p, count, eb, &pr, &m, &e);
    ar_params_free(&pr);
    if (st == AR_OK) {
        printf("why (closed form; %s):\n", m.note);
    } else {
        if (ar_algo_plan(spec, p, count, eb, &s, &e) != AR_OK || ar_model_walk(p, s, &m, &e) != AR_OK) {
            ar_schedule_free(s);
            return;
        }
        ar_schedule_free(s);
        printf("why (schedule walk, no closed form applies; %s):\n", m.note);
    }
    int worst = 0;
    for (int i = 0; i < m.nstages; i++)
        if (m.stages[i].time_s > m.stages[worst].time_s)
            worst = i;
    for (int i = 0; i < m.nstages; i++) {
        const ar_model_stage *g = &m.stages[i];
        printf("  %-52s %-5s p=%-4d %-10s at %-12s alpha %-8s %s%s\n", g->label, g->impl, g->p,
               ar_fmt_bytes(g->bytes, d1, sizeof d1), ar_fmt_rate(g->bw_Bps, r1, sizeof r1),
               ar_fmt_time(g->lat_s, t1, sizeof t1), ar_fmt_time(g->time_s, t2, sizeof t2),
               i == worst ? "  <- slowest" : "");
    }
}

/* --- the verb ------------------------------------------------------------------- */

static ar_status collect(const ar_platform *p, uint64_t count, size_t eb, cli_format fmt, cands *c, ar_err *e) {
    ar_bc_decomp dflt;
    int has_decomp = ar_bc_default(p, &dflt) && dflt.k > 0;
    int na;
    const ar_algo *const *all = ar_algos(&na);
    for (int i = 0; i < na; i++) {
        if (has_decomp && !strcmp(all[i]->name, "blueconnect"))
            continue; /* its default is one of the variants below */
        cand *x = new_cand(c);
        if (!x)
            return ar_fail(e, AR_ENOMEM, "out of memory");
        ar_err e1 = {{0}};
        ar_status st = evaluate(p, count, eb, all[i]->name, "", x, &e1);
        if (st == AR_EUNSUPPORTED || st == AR_ENOMEM || st == AR_ELIMIT) {
            if (fmt == FMT_TABLE)
                printf("  %s: not applicable: %s\n", all[i]->name, e1.msg);
            c->n--;
            continue;
        }
        if (st != AR_OK) {
            *e = e1;
            return st;
        }
    }
    if (!has_decomp) {
        if (fmt == FMT_TABLE)
            printf("  blueconnect: platform '%s' has no symmetric decomposition (Eq. 8): BlueConnect falls back to "
                   "the one-level ring (Sec. 3.4)\n",
                   p->name);
        return AR_OK;
    }
    int ndecomp = 0, truncated = 0, left_out = 0, nvariants = 0, unwalked = 0;
    ar_status st = bc_variants(p, count, eb, &dflt, c, &ndecomp, &truncated, &left_out, &nvariants, &unwalked, e);
    if (st != AR_OK)
        return st;
    if (fmt == FMT_TABLE) {
        printf("  blueconnect: %d variants: %d decompositions of the levels", nvariants, ndecomp);
        for (int l = 0; l < p->nlevels; l++)
            if (p->levels[l].fanout > 1)
                printf(" %d", p->levels[l].fanout);
        printf(" (each level whole or split, adjacent levels merged) x stage orders x ring/hd mixes");
        if (truncated)
            printf("; more decompositions exist (cap %d)", BEST_MAX_DECOMPS);
        if (left_out)
            printf("; %d orders/mixes left out (cap %d variants)", left_out, BEST_MAX_VARIANTS);
        if (unwalked)
            printf("; %d not walked (walk budget %.0e rank-rounds; the aligned ones are the worst by Eq. 9)", unwalked,
                   BEST_WALK_WORK);
        printf("\n");
    }
    return AR_OK;
}

int cmd_best(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_PLATFORM | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT, &o, "best") != AR_OK)
        return AR_EINVAL;
    if (o.nplatforms != 1 || o.nsizes != 1) {
        fprintf(stderr, "arlab best: give one --platform P and one --size S\n");
        return AR_EINVAL;
    }
    uint64_t count;
    if (cli_size(&o, 0, &count) != AR_OK)
        return AR_EINVAL;
    ar_platform *p;
    ar_status st = cli_load_platform(&o, 0, &p);
    if (st != AR_OK)
        return st;
    size_t eb = ar_dtype_size(o.dtype);
    if (o.format == FMT_TABLE) {
        char b[32];
        printf("== best all-reduce on %s (%d ranks), %s ==\n", p->name, p->nranks,
               ar_fmt_bytes((double)count * (double)eb, b, sizeof b));
    }
    cands c = {0};
    ar_err e = {{0}};
    st = collect(p, count, eb, o.format, &c, &e);
    if (st == AR_OK && c.n == 0)
        st = ar_fail(&e, AR_EUNSUPPORTED, "no algorithm can serve platform '%s'", p->name);
    if (st != AR_OK) {
        free(c.v);
        ar_platform_free(p);
        return cli_error(st, &e);
    }
    qsort(c.v, (size_t)c.n, sizeof *c.v, cmp_cand);
    static const char *const cols[] = {"rank", "algo", "params", "walk_s", "closed_s", "rel_diff", "slowest"};
    cli_table t;
    tbl_init(&t, 7, cols);
    int shown = o.format == FMT_TABLE && c.n > BEST_TABLE_ROWS ? BEST_TABLE_ROWS : c.n;
    for (int i = 0; i < shown; i++) {
        const cand *x = &c.v[i];
        int r = tbl_row(&t);
        char params[220];
        snprintf(params, sizeof params, "%s%s", x->params, x->is_default ? " (default)" : "");
        if (isnan(x->key_s))
            tbl_str(&t, r, 0, "-");
        else
            tbl_int(&t, r, 0, i + 1);
        tbl_str(&t, r, 1, x->algo);
        tbl_str(&t, r, 2, params);
        tbl_num(&t, r, 3, "%.6g", x->walk_s);
        tbl_num(&t, r, 4, "%.6g", x->closed_s);
        tbl_num(&t, r, 5, "%.2g", isnan(x->closed_s) ? NAN : (x->walk_s - x->closed_s) / x->closed_s);
        tbl_str(&t, r, 6, x->slowest);
    }
    tbl_print(&t, o.format, stdout);
    if (shown < c.n)
        printf("... %d more (all %d rows with --format csv or json)\n", c.n - shown, c.n);
    int pess = 0, worst = -1;
    for (int i = 0; i < c.n; i++)
        if (c.v[i].walk_s > 1.05 * c.v[i].closed_s) { /* false for NaN */
            pess++;
            if (worst < 0 || c.v[i].walk_s / c.v[i].closed_s > c.v[worst].walk_s / c.v[worst].closed_s)
                worst = i;
        }
    if (pess && o.format == FMT_TABLE)
        printf("note: for %d row%s the walk exceeds the closed form by more than 5%% (most: %s%s%s, %+.0f%%): the walk "
               "advances the concurrent ops of a phase in lockstep rounds at equal link shares, which is pessimistic "
               "when concurrent transfers are uneven (e.g. FlexReduce's pieces on asymmetric trees); the closed form assumes "
               "the bottleneck link stays busy\n",
               pess, pess == 1 ? "" : "s", c.v[worst].algo, c.v[worst].params[0] ? ":" : "", c.v[worst].params,
               100.0 * (c.v[worst].walk_s / c.v[worst].closed_s - 1));
    if (o.format == FMT_TABLE)
        explain(p, count, eb, &c);
    tbl_free(&t);
    free(c.v);
    ar_platform_free(p);
    return AR_OK;
}
