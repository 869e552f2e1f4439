/* arlab best --platform P --size S [--coll C] [--dtype T] [--ranks N] [--format table|csv|json]
 *
 * Ranks every registry algorithm (default parameters) and every BlueConnect
 * variant by predicted time on one platform and size, and says which is best
 * and why. The common yardstick is the generic cost walk over each planned
 * schedule (models/walk.c); the closed form (Eq. 6/7/9/10/...) is shown
 * beside it where one exists.
 *
 The ranking is computed by ar_algo_rank (algos/rank.c); the variants come
 * from the algorithms' searches (BlueConnect's decompositions x orders x
 * ring/hd mixes, algos/blueconnect_search.c). This verb prints.
 *
 * The human table shows the best BEST_TABLE_ROWS rows, then the breakdown of
 * the best; csv/json list every row. Columns: rank, algo, params (a valid
 * --algo spec suffix), walk_s, closed_s (NaN: none), rel_diff =
 * (walk - closed) / closed, slowest (the walk's slowest stage). The ranking
 * key is walk_s; a schedule whose walk would price more than AR_RANK_WALK_XFERS
 * transfers (a 4096-rank ring: 33M) is not walked: it is listed last,
 * unranked ("-"), with its closed form (closed forms of different algorithms
 * assume different things, so they are no common yardstick).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "progress.h"
#include "lab/backend.h"
#include "lab/bestrow.h"
#include "lab/eval.h"
#include "core/lower.h"
#include "core/util.h"
#include "models/model.h"
#include "sim/sim.h" /* types only; the functions come from the backend table */

#define BEST_TABLE_ROWS 30 /* rows of the human table; csv/json list all */

/* --- why the best is best -------------------------------------------------------- */

#define BEST_TIE_REL 1e-12 /* walk times this close (relative) share a rank */

/* 1 if b ties with a (the time listed before it), so that b keeps a's rank. */
static int ties(double a, double b) { return isfinite(a) && isfinite(b) && fabs(b - a) <= BEST_TIE_REL * a; }

/* The rank candidate i of c (sorted best first) is listed with: equal times share the rank of
 * the first of them (competition ranking, as the table's rank column). */
static int rank_of(const ar_ranking *c, int i) {
    int r = i;
    while (r > 0 && ties(c->v[r - 1].key_s, c->v[i].key_s)) r--;
    return r + 1;
}

/* Prints the per-stage breakdown of the best candidate: the closed form's when
 * there is one (its labels name the level and the share, e.g. "w2/6"), else
 * the walk's per-phase times. */
/* The schedule's transfers alone: its walk on a shallow copy of p whose links carry no latency and whose
 * ranks pay no launch, per-message or ready-message cost. NAN if the walk fails. */
static double transfers_only_s(const ar_platform *p, const ar_schedule *s) {
    size_t nl = (size_t)p->nlinks + (size_t)p->nvlinks;
    ar_link *links = malloc(nl * sizeof *links);
    if (!links) return NAN;
    memcpy(links, p->links, nl * sizeof *links);
    for (size_t i = 0; i < nl; i++) links[i].lat_s = 0;
    ar_platform q = *p; /* read only; its arrays other than links stay p's */
    q.links = links;
    for (int i = 0; i < q.nlevels; i++) q.levels[i].lat_s = 0;
    q.launch_s = q.msg_o_s = q.msg_g_s = 0;
    q.msg_ready = 0;
    ar_model_result m;
    ar_err e = {{0}};
    double t = ar_model_walk(&q, s, &m, &e) == AR_OK ? m.time_s : NAN;
    free(links);
    return t;
}

/* NCCL's time for its choice (nalgo/nproto, nccl_s) split into its model's latency term (the per-call
 * latency: launch and the protocol's per-step latencies, what nccl-tests' smallest sizes measure) and the
 * rest (the bytes at its bandwidth, and arlab's pipeline fill where the model adds one); the schedule's time
 * the same way (its route latencies, launch and per-message costs; its transfers at the links' rates).
 * Prints both splits and which term makes the difference; nothing where NCCL's model has no table here. */
static void why_terms(const ar_platform *p, ar_coll coll, double bytes, const ar_schedule *s, double key_s,
                      double nccl_s, const char *nalgo, const char *nproto) {
    int a = ar_nccl_algo_parse(nalgo), pr = ar_nccl_proto_parse(nproto);
    ar_nccl_in in;
    ar_nccl_table *t = malloc(sizeof *t);
    ar_err e = {{0}};
    double lat = NAN, xfer = NAN, own_x = transfers_only_s(p, s);
    if (t && a >= 0 && pr >= 0 && ar_nccl_in_from_platform(p, 0, &in, &e) == AR_OK &&
        ar_nccl_model_tune(&in, t, &e) == AR_OK)
        /* ar_coll numbers the collectives as ar_nccl_coll does (lab_nccl_choice, nccl_s's source, reads it so) */
        (void)ar_nccl_table_terms(&in, t, (ar_nccl_coll)coll, (ar_nccl_algo)a, (ar_nccl_proto)pr, bytes, &lat, &xfer,
                                  &e);
    free(t);
    if (!(isfinite(lat) && isfinite(own_x) && lat <= nccl_s && own_x <= key_s)) return;
    double nccl_x = nccl_s - lat, own_l = key_s - own_x, dl = lat - own_l, dx = nccl_x - own_x;
    char b[6][32];
    printf("NCCL's time is %s of latency (its model's per-call term for %s/%s: launch and the protocol's per-step "
           "latencies) and %s of transfers, this schedule's %s of latency (route latencies, launch, per-message "
           "costs) and %s of transfers: most of the %s is NCCL's %s term (%s); ",
           ar_fmt_time(lat, b[0], 32), nalgo, nproto, ar_fmt_time(nccl_x, b[1], 32), ar_fmt_time(own_l, b[2], 32),
           ar_fmt_time(own_x, b[3], 32), ar_fmt_time(nccl_s - key_s, b[4], 32), dl >= dx ? "latency" : "bandwidth",
           ar_fmt_time(dl >= dx ? dl : dx, b[5], 32));
}

/* Why the best schedule beats NCCL's choice by more than 20 %: the cost term that makes it faster,
 * from its schedule (latency terms: its rounds on the critical path; messages: the most any rank
 * sends between machines) against NCCL's algorithm (a ring pays NCCL's per-step latency 2(P-1)
 * times, a tree 2 x its depth), and what the per-message costs (o, g) add to its time. */
static void why_vs_nccl(const ar_platform *p, uint64_t count, size_t eb, ar_coll coll, const ar_rank_cand *b,
                        double nccl_s, const char *nalgo, const char *nproto) {
    if (!(isfinite(nccl_s) && b->key_s > 0 && nccl_s > 1.25 * b->key_s)) return; /* < 20 % faster: nothing */
    char spec[256], t1[32], t2[32], t3[32];
    snprintf(spec, sizeof spec, "%s%s%s", b->algo, b->params[0] ? ":" : "", b->params);
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    if (ar_algo_plan_coll(spec, coll, p, count, eb, &s, &e) != AR_OK) return;
    int P = p->nranks, rounds = 0;
    long long *sent = calloc((size_t)P + 1, sizeof *sent);
    ar_xfer *xf = NULL;
    size_t capx = 0;
    for (int ph = 0; sent && ph < s->nphases; ph++) {
        int maxr = 0;
        for (int i = 0; i < s->phases[ph].nops; i++) {
            const ar_op *op = &s->phases[ph].ops[i];
            int nr = ar_lower_nrounds(op);
            if (nr > maxr) maxr = nr;
            if (ar_grow(&xf, &capx, ar_lower_max_xfers(op) + 1, sizeof *xf) < 0) break;
            for (int r = 0; r < nr; r++) {
                size_t n = ar_lower_round(op, r, xf);
                for (size_t k = 0; k < n; k++)
                    if (xf[k].src >= 0 && xf[k].dst >= 0 && p->machine_of_rank &&
                        p->machine_of_rank[xf[k].src] != p->machine_of_rank[xf[k].dst])
                        sent[xf[k].src]++;
            }
        }
        rounds += maxr;
    }
    long long msgs = 0;
    for (int r = 0; sent && r < P; r++)
        if (sent[r] > msgs) msgs = sent[r];
    int ring = !strcmp(nalgo, "RING"), tree = !strcmp(nalgo, "TREE");
    int nsteps = ring ? 2 * (P - 1) : 0;
    printf("why faster than NCCL's %s/%s (%s vs %s): ", nalgo, nproto, ar_fmt_time(b->key_s, t1, sizeof t1),
           ar_fmt_time(nccl_s, t2, sizeof t2));
    why_terms(p, coll, (double)count * (double)eb, s, b->key_s, nccl_s, nalgo, nproto);
    if (ring && rounds < nsteps)
        printf("fewer latency terms: %d rounds on its critical path against the ring's 2(P-1) = %d steps, each of "
               "which NCCL pays its per-step latency",
               rounds, nsteps);
    else if (tree)
        printf("fewer latency terms and no protocol cost: %d rounds of full-rate transfers, where NCCL's tree pays "
               "its per-step latency twice per tree level and runs %s at its protocol's share of the bandwidth",
               rounds, nproto);
    else printf("%d rounds on its critical path", rounds);
    printf("; the most messages a rank sends between machines: %lld", msgs);
    if (ar_platform_has_msg(p)) {
        ar_platform q = *p; /* the same platform without per-message costs (a shallow copy, read only) */
        q.msg_o_s = q.msg_g_s = 0;
        ar_model_result m;
        if (ar_model_walk(&q, s, &m, &e) == AR_OK)
            printf(", their per-message costs (o %s, g %s) are in its time (%s without them)",
                   ar_fmt_time(p->msg_o_s, t3, sizeof t3), ar_fmt_time(p->msg_g_s, t2, sizeof t2),
                   ar_fmt_time(m.time_s, t1, sizeof t1));
    } else {
        printf(" (this platform has no per-message cost: a round of concurrent messages pays one latency, which "
               "understates %lld messages; compute.message o, g price them)",
               msgs);
    }
    printf(".\n");
    free(sent);
    free(xf);
    ar_schedule_free(s);
}

static void explain(const ar_platform *p, uint64_t count, size_t eb, const ar_ranking *c) {
    ar_coll coll = c->coll;
    const ar_rank_cand *b = &c->v[0];
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
                   c->v[i].params, rank_of(c, i), ar_fmt_time(c->v[i].key_s, t1, sizeof t1), c->v[i].slowest);
    ar_err e = {{0}};
    ar_model_result m;
    ar_schedule *s = NULL;
    ar_status st = ar_algo_closed_coll(spec, coll, p, count, eb, &m, &e);
    if (st == AR_OK) {
        printf("why (closed form; %s):\n", m.note);
    } else {
        if (ar_algo_plan_coll(spec, coll, p, count, eb, &s, &e) != AR_OK || ar_model_walk(p, s, &m, &e) != AR_OK) {
            ar_schedule_free(s);
            return;
        }
        ar_schedule_free(s);
        printf("why (schedule walk, no closed form applies; %s):\n", m.note);
    }
    int worst = 0;
    for (int i = 0; i < m.nstages; i++)
        if (m.stages[i].time_s > m.stages[worst].time_s) worst = i;
    for (int i = 0; i < m.nstages; i++) {
        const ar_model_stage *g = &m.stages[i];
        printf("  %-52s %-5s p=%-4d %-10s at %-12s alpha %-8s %s%s\n", g->label, g->impl, g->p,
               ar_fmt_bytes(g->bytes, d1, sizeof d1), ar_fmt_rate(g->bw_Bps, r1, sizeof r1),
               ar_fmt_time(g->lat_s, t1, sizeof t1), ar_fmt_time(g->time_s, t2, sizeof t2),
               i == worst ? "  <- slowest" : "");
    }
}

/* --- the verb ------------------------------------------------------------------- */

/* --scenario with delays or flows: candidates simulated (walk order), the rest listed unsimulated */
#define BEST_SIM_MAX 24

/* What the verb was asked: the common options and its own flags. */
typedef struct best_args {
    cli_opts o;
    int top, per_algo; /* --top N (rows shown, every format; 0: the format's default), --per-algo */
} best_args;

/* What the verb computed: the ranking and the order its rows are listed in. */
typedef struct best_run {
    ar_platform *p;
    ar_scenario *sc; /* --scenario: the platform above already has its slow and failed links */
    uint64_t count;
    size_t eb;
    double bytes;
    int by_simulation; /* ranked by simulated time (a scenario with delays, flows or a slow GPU) */
    ar_ranking c;
    int ranked; /* c holds a ranking to free */
    int *order; /* rows in listing order: walk order, or by simulated time */
    double *simt, *delays;
    char simwhy[AR_ERR_LEN];
    lab_nccl_pick nccl; /* what NCCL's own tuner would run here, the yardstick of vs_nccl */
    ar_err ne;
} best_run;

/* Parses the verb's own flags (--top N, --per-algo), then the common options; AR_OK or the exit status
 * after one line on stderr. */
static ar_status best_parse(int argc, char **argv, best_args *a) {
    static const cli_ownopt own[] = {{"--per-algo", offsetof(best_args, per_algo)},
                                     {"--top", offsetof(best_args, top)}};
    a->top = a->per_algo = 0;
    int nrest = argc;
    if (cli_take_own(&nrest, argv, own, 2, a, "best") != AR_OK) return AR_EINVAL;
    char **rest = argv;
    if (cli_parse(nrest, rest, OPT_PLATFORM | OPT_SIZE | OPT_RANKS | OPT_DTYPE | OPT_FORMAT | OPT_COLL | OPT_SCENARIO,
                  &a->o, "best") != AR_OK)
        return AR_EINVAL;
    if (a->o.nplatforms != 1 || a->o.nsizes != 1) {
        fprintf(stderr, "arlab best: give one --platform P and one --size S\n");
        return AR_EINVAL;
    }
    return AR_OK;
}

/* Loads the platform and the scenario, prints the table's title, ranks every candidate (the walks
 * start the scenario's late ranks late) and allocates the listing order; AR_OK or the exit status. */
static ar_status best_prepare(const best_args *a, best_run *b) {
    const cli_opts *o = &a->o;
    if (cli_size(o, 0, &b->count) != AR_OK) return AR_EINVAL;
    ar_status st = cli_load_platform(o, 0, &b->p);
    if (st != AR_OK) return st;
    if (cli_load_scenario(o, &b->sc) != AR_OK) return AR_EINVAL;
    if (b->sc && b->sc->njobs) {
        fprintf(stderr, "arlab best: %s: jobs: several jobs sharing the fabric are not ranked yet\n", b->sc->source);
        return AR_EUNSUPPORTED;
    }
    /* delays, flows: the walk cannot see them; a slow-computing straggler: the walk prices it, the simulation
     * (per-rank dataflow, FIFO reductions) is the reference the ranking uses */
    b->by_simulation = ar_scenario_has_timing(b->sc) || ar_scenario_has_compute(b->sc);
    b->eb = ar_dtype_size(o->dtype);
    b->bytes = (double)b->count * (double)b->eb;
    if (o->format == FMT_TABLE) {
        char s[32];
        printf("== best %s on %s (%d ranks), %s ==\n",
               o->coll == AR_COLL_ALLREDUCE ? "all-reduce" : ar_coll_name(o->coll), b->p->name, b->p->nranks,
               ar_fmt_bytes(b->bytes, s, sizeof s));
    }
    ar_err e = {{0}};
    cli_status("best: planning and walking every algorithm and BlueConnect variant on %s ...", b->p->name);
    double *late = NULL; /* the scenario's start delays: the walks start late ranks late */
    if (ar_scenario_max_delay(b->sc) > 0 && (late = calloc((size_t)b->p->nranks, sizeof *late)))
        ar_scenario_delays(b->sc, b->p->nranks, late);
    st = ar_algo_rank(b->p, o->coll, b->count, b->eb, late, &b->c, &e);
    b->ranked = 1;
    free(late);
    b->c.start_s = NULL;
    cli_status(NULL);
    for (int i = 0; o->format == FMT_TABLE && i < b->c.nnotes; i++) printf("  %s\n", b->c.notes[i]);
    if (st != AR_OK) return cli_error(st, &e);
    b->order = calloc((size_t)b->c.n + 1, sizeof *b->order);
    b->simt = calloc((size_t)b->c.n + 1, sizeof *b->simt);
    b->delays = calloc((size_t)b->p->nranks, sizeof *b->delays);
    if (!b->order || !b->simt || !b->delays) {
        fprintf(stderr, "arlab best: out of memory\n");
        return AR_ENOMEM;
    }
    for (int i = 0; i < b->c.n; i++) {
        b->order[i] = i;
        b->simt[i] = NAN;
    }
    (void)lab_nccl_choice(b->p, (int)o->coll, b->bytes, &b->nccl.time_s, &b->nccl.algo, &b->nccl.proto, &b->ne);
    return AR_OK;
}

/* 1 if candidate i is not the first (best) variant of its algorithm: --per-algo leaves it out. */
static int later_variant(const ar_ranking *c, int per_algo, int i) {
    for (int k = 0; per_algo && k < i; k++)
        if (!strcmp(c->v[k].algo, c->v[i].algo)) return 1;
    return 0;
}

static const double *g_sim_key; /* qsort has no context: the keys of the candidates being sorted */
static int by_sim(const void *a, const void *b) {
    double x = g_sim_key[*(const int *)a], y = g_sim_key[*(const int *)b];
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    if (x < y) return -1;
    if (x > y) return 1;
    return *(const int *)a - *(const int *)b; /* stable: walk order */
}

/* Under a scenario with timing: simulates the first BEST_SIM_MAX walked candidates (walk order) and
 * lists the rows by their simulated times. */
static void best_simulate(const best_args *a, best_run *b) {
    ar_scenario_delays(b->sc, b->p->nranks, b->delays);
    int nsim = 0;
    for (int i = 0; i < b->c.n && nsim < BEST_SIM_MAX; i++) {
        if (later_variant(&b->c, a->per_algo, i) || isnan(b->c.v[i].key_s)) continue;
        cli_status("best: simulating %s under scenario %s (%d/%d) ...", b->c.v[i].algo, b->sc->name, nsim + 1,
                   BEST_SIM_MAX);
        b->simt[i] = lab_best_sim(b->p, b->sc, b->delays, a->o.coll, b->count, b->eb, &b->c.v[i], b->simwhy,
                                  sizeof b->simwhy);
        nsim++;
    }
    cli_status(NULL);
    g_sim_key = b->simt;
    qsort(b->order, (size_t)b->c.n, sizeof *b->order, by_sim);
}

/* The rows in listing order (lab/bestrow.h), the first --top (or the format's default) of them; prints the
 * table and how many rows it left out. */
static void best_rows(const best_args *a, const best_run *b) {
    const char *cols[64];
    for (int k = 0; k < lab_bestrow_ncols && k < 64; k++) cols[k] = lab_bestrow_cols[k].name;
    int rank_col = lab_rowcol_find(lab_bestrow_cols, lab_bestrow_ncols, "rank");
    cli_table t;
    tbl_init(&t, lab_bestrow_ncols, cols);
    tbl_set_unit(&t, lab_rowcol_find(lab_bestrow_cols, lab_bestrow_ncols, "vs_nccl"), TBL_UNIT_RATIO);
    int limit = a->top ? a->top : a->o.format == FMT_TABLE ? BEST_TABLE_ROWS : b->c.n, shown = 0, listed = 0, rank = 0;
    double prev = NAN;
    for (int oi = 0; oi < b->c.n; oi++) {
        int i = b->order[oi];
        const ar_rank_cand *x = &b->c.v[i];
        if (later_variant(&b->c, a->per_algo, i)) continue;
        listed++;
        double key = b->by_simulation ? b->simt[i] : x->key_s;
        /* competition ranking over the rows listed: a tie (BEST_TIE_REL) keeps the previous row's rank */
        if (!ties(prev, key)) rank = listed;
        prev = key;
        if (shown >= limit) continue;
        shown++;
        lab_bestrow w;
        lab_bestrow_fill(&w, x, isnan(key) ? 0 : rank, b->simt[i], a->o.coll, b->p->nranks, b->bytes, &b->nccl,
                         b->sc ? b->sc->name : NULL);
        int r = tbl_put_row(&t, lab_bestrow_cols, lab_bestrow_ncols, &w, 1, "%.6g");
        if (isnan(key)) tbl_str(&t, r, rank_col, "-");
    }
    tbl_print(&t, a->o.format, stdout);
    if (shown < listed && a->o.format == FMT_TABLE)
        printf("... %d more (--top N shows N rows; csv/json list every row without --top)\n", listed - shown);
    tbl_free(&t);
}

/* The human table's lines after the rows: the scenario, NCCL's choice against the best, the rows whose
 * walk the closed form undercuts, and why the best is best. */
static void best_notes(const best_run *b, ar_coll coll) {
    const ar_ranking *c = &b->c;
    char t1[32], t2[32];
    if (b->sc) {
        char sd[400];
        ar_scenario_describe(b->sc, sd, sizeof sd);
        printf("scenario: %s from %s; %s\n", sd, b->sc->source,
               b->by_simulation
                   ? "ranked by sim_s, simulated under --sync dataflow with its delays, flows and slow GPUs "
                     "(the walk cannot see flows; walk_s and closed_s add the largest delay)"
                   : "ranked by the walk on the platform as the scenario leaves it");
        if (b->simwhy[0]) printf("note: a simulation failed: %s\n", b->simwhy);
    }
    double nccl_s = b->nccl.time_s;
    if (!b->by_simulation) {
        const ar_rank_cand *x = &c->v[0];
        if (!isfinite(nccl_s))
            printf("NCCL's tuner: not modelled on this platform (%s)\n", b->ne.msg[0] ? b->ne.msg : "no NCCL model");
        else if (isfinite(x->key_s))
            printf("NCCL's tuner would run %s/%s: %s (nccl_model_s). The best arlab schedule, %s%s%s, takes %s: %s by "
                   "%.1f%% (vs_nccl = nccl_model_s / walk_s = %.3g). Its slowest stage: %s.\n",
                   b->nccl.algo, b->nccl.proto, ar_fmt_time(nccl_s, t1, sizeof t1), x->algo, x->params[0] ? ":" : "",
                   x->params, ar_fmt_time(x->key_s, t2, sizeof t2),
                   x->key_s < nccl_s ? "faster than NCCL's choice" : "slower",
                   100.0 * fabs(nccl_s - x->key_s) / fmax(nccl_s, x->key_s), nccl_s / x->key_s, x->slowest);
        if (isfinite(x->key_s)) why_vs_nccl(b->p, b->count, b->eb, coll, x, nccl_s, b->nccl.algo, b->nccl.proto);
    }
    int pess = 0, worst = -1;
    for (int i = 0; i < c->n; i++)
        if (c->v[i].walk_s > 1.05 * c->v[i].closed_s) { /* false for NaN */
            pess++;
            if (worst < 0 || c->v[i].walk_s / c->v[i].closed_s > c->v[worst].walk_s / c->v[worst].closed_s) worst = i;
        }
    if (pess)
        printf(
            "note: for %d row%s the walk exceeds the closed form by more than 5%% (most: %s%s%s, %+.0f%%): the walk "
            "advances the concurrent ops of a phase in lockstep rounds at equal link shares, which is pessimistic "
            "when concurrent transfers are uneven (e.g. FlexReduce's pieces on asymmetric trees); the closed form assumes "
            "the bottleneck link stays busy\n",
            pess, pess == 1 ? "" : "s", c->v[worst].algo, c->v[worst].params[0] ? ":" : "", c->v[worst].params,
            100.0 * (c->v[worst].walk_s / c->v[worst].closed_s - 1));
    if (!b->by_simulation) explain(b->p, b->count, b->eb, c);
    if (b->by_simulation && isfinite(b->simt[b->order[0]])) {
        const ar_rank_cand *x = &c->v[b->order[0]];
        printf("\nbest under scenario %s: %s%s%s  %s (simulated)\n", b->sc->name, x->algo, x->params[0] ? ":" : "",
               x->params, ar_fmt_time(b->simt[b->order[0]], t1, sizeof t1));
    }
}

int cmd_best(int argc, char **argv) {
    best_args a;
    best_run b;
    memset(&b, 0, sizeof b);
    ar_status st = best_parse(argc, argv, &a);
    if (st == AR_OK) st = best_prepare(&a, &b);
    if (st != AR_OK) goto done;
    if (b.by_simulation) best_simulate(&a, &b);
    best_rows(&a, &b);
    if (a.o.format == FMT_TABLE) best_notes(&b, a.o.coll);
done:
    if (b.ranked) ar_ranking_free(&b.c);
    ar_platform_free(b.p);
    ar_scenario_free(b.sc);
    free(b.order);
    free(b.simt);
    free(b.delays);
    return st;
}
