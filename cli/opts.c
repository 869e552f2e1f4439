/* Shared option parser of the arlab command. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "models/nccl_model.h"
#include "core/util.h"

ar_status cli_error(ar_status st, const ar_err *e) {
    fprintf(stderr, "arlab: %s\n", e && e->msg[0] ? e->msg : ar_status_name(st));
    return st;
}

static ar_status bad(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ar_status bad(const char *verb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "arlab %s: ", verb);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return AR_EINVAL;
}

static ar_status push(const char **list, int *n, const char *v, const char *verb, const char *flag) {
    if (*n >= CLI_MAX_LIST) return bad(verb, "too many %s values", flag);
    list[(*n)++] = v;
    return AR_OK;
}

/* Comma lists of algorithm or platform specs, e.g. "ring,blueconnect:decomp=4x2,impl=ring+hd,flexreduce".
 * A spec's own parameters are comma-separated too, so a comma starts a new spec only when the text after it
 * is not a bare key=value: "impl=ring+hd" (an '=' with no ':' before it) continues the spec before it,
 * "flexreduce" or "tree:fanouts=4x2" starts one. Splits in place (argv's storage). */
static ar_status push_specs(char *val, const char **list, int *n, const char *verb, const char *flag) {
    ar_status st = push(list, n, val, verb, flag);
    for (char *c = strchr(val, ','); st == AR_OK && c; c = strchr(c + 1, ',')) {
        const char *t = c + 1, *eq = strchr(t, '='), *colon = strchr(t, ':'), *next = strchr(t, ',');
        if (next && eq && eq > next) eq = NULL; /* the '=' belongs to a later token */
        if (next && colon && colon > next) colon = NULL;
        int continues = eq && (!colon || colon > eq);
        if (continues) continue;
        if (!*t) return bad(verb, "empty value after ',' in %s", flag);
        *c = 0;
        st = push(list, n, t, verb, flag);
    }
    if (st == AR_OK && !*val) return bad(verb, "empty value in %s", flag);
    return st;
}

/* nccl-tests' size range: -b MIN -e MAX with -f FACTOR or -i INCREMENT (bytes; K, M, G, T = 1024^k, as
 * nccl-tests reads them; default increment 1M, as nccl-tests). Appends the sizes to o->sizes. */
static ar_status nt_size(const char *v, const char *flag, const char *verb, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    int sh = 0;
    if (end != v && *end) {
        sh = *end == 'K' || *end == 'k'   ? 10
             : *end == 'M' || *end == 'm' ? 20
             : *end == 'G' || *end == 'g' ? 30
             : *end == 'T' || *end == 't' ? 40
                                          : -1;
        end++;
    }
    if (errno || end == v || *end || sh < 0 || v[0] == '-' || (sh && x > (UINT64_MAX >> sh)))
        return bad(verb, "%s: \"%s\" is not a size in bytes (nccl-tests' form: 8, 64K, 1M, 1G)", flag, v);
    *out = (uint64_t)x << sh;
    return AR_OK;
}

static ar_status nt_range(cli_opts *o, const char *const nt[4], const char *verb) {
    uint64_t b = 0, e = 0, f = 0, inc = 1u << 20;
    if (!nt[0] && !nt[1] && !nt[2] && !nt[3]) return AR_OK;
    if (!nt[0]) return bad(verb, "-e/-f/-i need -b MIN (nccl-tests' size range)");
    if (nt_size(nt[0], "-b", verb, &b) || (nt[1] && nt_size(nt[1], "-e", verb, &e)) ||
        (nt[3] && nt_size(nt[3], "-i", verb, &inc)))
        return AR_EINVAL;
    if (!nt[1]) e = b;
    if (nt[2]) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(nt[2], &end, 10);
        if (errno || end == nt[2] || *end || x < 2) return bad(verb, "-f: \"%s\" is not an integer factor >= 2", nt[2]);
        f = x;
    }
    if (b < 1 || e < b) return bad(verb, "-b %s -e %s: need 1 <= MIN <= MAX", nt[0], nt[1] ? nt[1] : nt[0]);
    if (!f && inc < 1) return bad(verb, "-i: the increment must be >= 1");
    for (uint64_t s = b; s <= e;) {
        if (o->nsizes >= CLI_MAX_LIST) return bad(verb, "-b/-e/-f/-i: more than %d sizes", CLI_MAX_LIST);
        snprintf(o->size_store[o->nsizes], sizeof o->size_store[0], "%lluB", (unsigned long long)s);
        o->sizes[o->nsizes] = o->size_store[o->nsizes];
        o->nsizes++;
        if (f ? s > UINT64_MAX / f : s > UINT64_MAX - inc) break;
        s = f ? s * f : s + inc;
    }
    return AR_OK;
}

/* Sets option name (a known flag this verb allows) to val (NULL for a flag without a value); AR_OK or
 * AR_EINVAL after one line. */
static ar_status set_opt(cli_opts *o, const char *name, const char *val, const char *verb) {
    ar_err e = {{0}};
    ar_status st = AR_OK;
    if (!strcmp(name, "--platform")) st = push_specs((char *)val, o->platforms, &o->nplatforms, verb, name);
    else if (!strcmp(name, "--algo")) st = push_specs((char *)val, o->algos, &o->nalgos, verb, name);
    else if (!strcmp(name, "--schedule")) { /* a user-written schedule: algorithm schedule:file=FILE */
        if (strchr(val, ',')) return bad(verb, "--schedule: \"%s\": a file name with ',' cannot be named", val);
        if (o->nschedules >= CLI_MAX_LIST) return bad(verb, "too many --schedule values");
        char *sp = o->schedule_specs[o->nschedules++];
        int w = snprintf(sp, sizeof o->schedule_specs[0], "schedule:file=%s", val);
        if (w < 0 || (size_t)w >= sizeof o->schedule_specs[0]) return bad(verb, "--schedule: file name too long");
        st = push(o->algos, &o->nalgos, sp, verb, name);
    } else if (!strcmp(name, "--size")) {
        /* comma lists: sizes contain no commas */
        char *dup = (char *)val;
        for (char *tok = dup;;) {
            char *c = strchr(tok, ',');
            if (c) *c = 0;
            if (!*tok) return bad(verb, "empty size in --size \"%s\"", val);
            if ((st = push(o->sizes, &o->nsizes, tok, verb, name)) != AR_OK) return st;
            if (!c) break;
            tok = c + 1;
        }
    } else if (!strcmp(name, "--ranks")) {
        long long r;
        st = ar_parse_count(val, 1, AR_MAX_RANKS, &r, &e);
        if (st != AR_OK) return bad(verb, "--ranks: %s", e.msg);
        o->ranks = (int)r;
    } else if (!strcmp(name, "--dtype")) {
        st = ar_dtype_parse(val, &o->dtype, &e);
        if (st != AR_OK) return bad(verb, "--dtype: %s", e.msg);
    } else if (!strcmp(name, "--format")) {
        if (!strcmp(val, "table")) o->format = FMT_TABLE;
        else if (!strcmp(val, "csv")) o->format = FMT_CSV;
        else if (!strcmp(val, "json")) o->format = FMT_JSON;
        else return bad(verb, "--format: \"%s\" is not one of table, csv, json", val);
    } else if (!strcmp(name, "--nccl-version")) {
        o->nccl_version = ar_nccl_version_parse(val);
        if (o->nccl_version < 0)
            return bad(verb, "--nccl-version: \"%s\" is not a modelled NCCL release (2.18, 2.19, 2.25 to 2.30)", val);
    } else if (!strcmp(name, "--coll")) {
        if (ar_coll_parse(val, &o->coll, &e) != AR_OK) return bad(verb, "--coll: %s", e.msg);
    } else if (!strcmp(name, "--check")) o->check = 1;
    else if (!strcmp(name, "--trace")) o->trace = val;
    else if (!strcmp(name, "--out")) o->out = val;
    else if (!strcmp(name, "--network")) o->network = val;
    else if (!strcmp(name, "--scenario")) o->scenario = val;
    else if (!strcmp(name, "--gamma")) {
        char *end;
        errno = 0;
        double g = strtod(val, &end);
        if (errno || *end || !(g >= 0) || g > 1)
            return bad(verb, "--gamma: \"%s\" is not seconds per byte in [0, 1]", val);
        o->gamma_s_per_B = g;
    } else if (!strcmp(name, "--budget")) {
        st = ar_parse_time(val, &o->budget_s, &e);
        if (st != AR_OK) return bad(verb, "--budget: %s", e.msg);
    } else if (!strcmp(name, "--iters") || !strcmp(name, "--warmup")) {
        long long n;
        st = ar_parse_count(val, strcmp(name, "--iters") ? 0 : 1, 100000, &n, &e);
        if (st != AR_OK) return bad(verb, "%s", e.msg);
        if (!strcmp(name, "--iters")) o->iters = (int)n;
        else o->warmup = (int)n;
    }
    return st;
}

ar_status cli_parse(int argc, char **argv, unsigned allowed, cli_opts *o, const char *verb) {
    memset(o, 0, sizeof *o);
    o->dtype = AR_DTYPE_F32;
    o->format = FMT_TABLE;
    o->iters = 20;
    o->warmup = 5;
    static const struct {
        const char *name;
        unsigned bit;
        int has_arg;
    } flags[] = {
        {"--platform", OPT_PLATFORM, 1}, {"--algo", OPT_ALGO, 1},         {"--size", OPT_SIZE, 1},
        {"--schedule", OPT_ALGO, 1},     {"--ranks", OPT_RANKS, 1},       {"--dtype", OPT_DTYPE, 1},
        {"--format", OPT_FORMAT, 1},     {"--check", OPT_CHECK, 0},       {"--trace", OPT_TRACE, 1},
        {"--out", OPT_OUT, 1},           {"--network", OPT_NETWORK, 1},   {"--gamma", OPT_GAMMA, 1},
        {"--budget", OPT_BUDGET, 1},     {"--iters", OPT_ITERS, 1},       {"--warmup", OPT_ITERS, 1},
        {"--coll", OPT_COLL, 1},         {"--scenario", OPT_SCENARIO, 1}, {"--nccl-version", OPT_PLATFORM, 1},
    };
    const char *nt[4] = {NULL, NULL, NULL, NULL}; /* -b -e -f -i */
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if ((allowed & OPT_SIZE) && a[0] == '-' && strchr("befi", a[1]) && a[1] && !a[2]) {
            if (i + 1 >= argc) return bad(verb, "option %s needs a value", a);
            nt[strchr("befi", a[1]) - "befi"] = argv[++i];
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || strcmp(a, "--") == 0) {
            if (!(allowed & OPT_POSITIONAL)) return bad(verb, "unexpected argument \"%s\"", a);
            if (push(o->positional, &o->npositional, a, verb, "positional") != AR_OK) return AR_EINVAL;
            continue;
        }
        char name[32];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name) return bad(verb, "unknown option \"%s\" (see 'arlab help')", a);
        memcpy(name, a, nl);
        name[nl] = 0;
        int k = -1;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (strcmp(flags[f].name, name) == 0) k = (int)f;
        if (k < 0 || !(allowed & flags[k].bit)) {
            const char *cand[sizeof flags / sizeof flags[0]];
            int nc = 0;
            for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
                if (allowed & flags[f].bit) cand[nc++] = flags[f].name;
            const char *near = ar_closest(name, cand, nc);
            if (near)
                return bad(verb, "unknown option \"%s\": did you mean \"%s\"? (see 'arlab %s --help')", name, near,
                           verb);
            return bad(verb, "unknown option \"%s\" for this command (see 'arlab %s --help')", name, verb);
        }
        if (flags[k].has_arg) {
            if (eq) val = eq + 1;
            else if (i + 1 < argc) val = argv[++i];
            else return bad(verb, "option %s needs a value", name);
            if (!*val) return bad(verb, "option %s needs a non-empty value", name);
        } else if (eq) {
            return bad(verb, "option %s takes no value", name);
        }
        ar_status st = set_opt(o, name, val, verb);
        if (st != AR_OK) return st;
    }
    return nt_range(o, nt, verb);
}

int cli_algo_list(const cli_opts *o, const char **names, int max) {
    int n = 0;
    for (int i = 0; i < o->nalgos; i++) {
        if (!strcmp(o->algos[i], "all")) {
            int na;
            const ar_algo *const *all = ar_algos(&na);
            for (int k = 0; k < na && n < max; k++) /* those serving the collective */
                if (ar_algo_colls(all[k]) & AR_COLL_BIT(o->coll)) names[n++] = all[k]->name;
        } else if (n < max) {
            names[n++] = o->algos[i];
        }
    }
    return n;
}

ar_status cli_load_platform(const cli_opts *o, int i, ar_platform **out) {
    ar_err e = {{0}};
    ar_status st = ar_platform_load(o->platforms[i], o->ranks, out, &e);
    /* --gamma overrides "compute"; before the scenario, whose slow-computing stragglers need a rate */
    if (st == AR_OK && o->gamma_s_per_B > 0) (*out)->reduce_Bps = 1.0 / o->gamma_s_per_B;
    if (st == AR_OK && o->scenario) { /* what-if: slow, failed links and ranks before anything is planned */
        ar_scenario *sc = NULL;
        st = ar_scenario_load(o->scenario, &sc, &e);
        if (st == AR_OK) st = ar_scenario_apply(sc, out, &e);
        ar_scenario_free(sc);
        if (st != AR_OK) {
            ar_platform_free(*out);
            *out = NULL;
        }
    }
    if (st == AR_OK) (*out)->nccl_version = o->nccl_version; /* NCCL's model follows --nccl-version */
    if (st != AR_OK) cli_error(st, &e);
    return st;
}

ar_status cli_load_scenario(const cli_opts *o, ar_scenario **out) {
    *out = NULL;
    if (!o->scenario) return AR_OK;
    ar_err e = {{0}};
    ar_status st = ar_scenario_load(o->scenario, out, &e);
    if (st != AR_OK) cli_error(st, &e);
    return st;
}

ar_status cli_size(const cli_opts *o, int i, uint64_t *elems) {
    ar_err e = {{0}};
    ar_status st = ar_parse_size(o->sizes[i], ar_dtype_size(o->dtype), elems, &e);
    if (st != AR_OK) {
        fprintf(stderr, "arlab: --size: %s\n", e.msg);
    }
    return st;
}

/* Every algorithm spec binds on every platform; every user schedule plans at every size. */
static ar_status check_algos(const cli_opts *o, const char *const *algos, int na, ar_platform *const *plats,
                             const uint64_t *counts, int nc) {
    size_t eb = ar_dtype_size(o->dtype);
    for (int ai = 0; ai < na; ai++)
        for (int pi = 0; pi < o->nplatforms; pi++) {
            ar_err e = {{0}};
            const ar_algo *a = NULL;
            ar_param_val v[AR_MAX_PARAMS];
            ar_status st = ar_algo_bind(algos[ai], plats[pi]->nranks, &a, v, &e);
            if (st != AR_OK) return cli_error(st, &e);
            if (strcmp(a->name, "schedule")) continue;
            for (int si = 0; si < nc; si++) { /* a user schedule: its file, collective, ranks and size */
                ar_schedule *s = NULL;
                st = ar_algo_plan_coll(algos[ai], o->coll, plats[pi], counts[si], eb, &s, &e);
                ar_schedule_free(s);
                if (st != AR_OK && st != AR_EUNSUPPORTED && st != AR_ELIMIT) return cli_error(st, &e);
            }
        }
    return AR_OK;
}

ar_status cli_preflight(const cli_opts *o, const char *const *algos, int na, ar_platform **plats, uint64_t *counts,
                        int nc) {
    ar_status st = AR_OK;
    for (int pi = 0; pi < o->nplatforms; pi++) plats[pi] = NULL;
    for (int si = 0; si < nc && st == AR_OK; si++) st = cli_size(o, si, &counts[si]);
    for (int pi = 0; pi < o->nplatforms && st == AR_OK; pi++) st = cli_load_platform(o, pi, &plats[pi]);
    if (st == AR_OK) st = check_algos(o, algos, na, plats, counts, nc);
    for (int pi = 0; pi < o->nplatforms && st != AR_OK; pi++) {
        ar_platform_free(plats[pi]);
        plats[pi] = NULL;
    }
    return st;
}

int cli_format_nccltests(int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (!strcmp(a, "--format=nccl-tests")) return 1;
    if (strcmp(a, "--format") || *i + 1 >= argc || strcmp(argv[*i + 1], "nccl-tests")) return 0;
    ++*i;
    return 1;
}

/* why without "ALGO: ", "platform PLAT " and a closing " (hint)" */
static void na_reason(const char *algo, const char *plat, const char *why, char *buf, size_t n) {
    size_t la = strlen(algo), lp = strlen(plat);
    if (!strncmp(why, algo, la) && !strncmp(why + la, ": ", 2)) why += la + 2;
    if (!strncmp(why, "platform ", 9) && !strncmp(why + 9, plat, lp) && why[9 + lp] == ' ') why += 10 + lp;
    snprintf(buf, n, "%s", why);
    size_t l = strlen(buf);
    if (l && buf[l - 1] == ')') {
        char *open = strrchr(buf, '(');
        if (open && open > buf && open[-1] == ' ') open[-1] = 0;
    }
}

void cli_print_na(FILE *out, const char *plat, const char *const *algos, const char *const *whys, int n) {
    if (n <= 0) return;
    char(*r)[AR_ERR_LEN] = calloc((size_t)n, sizeof *r);
    if (!r) return;
    for (int i = 0; i < n; i++) na_reason(algos[i], plat, whys[i], r[i], sizeof r[i]);
    fprintf(out, "not applicable on %s:", plat);
    int groups = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++) seen = !strcmp(r[k], r[i]);
        if (seen) continue;
        fprintf(out, "%s %s", groups++ ? ";" : "", algos[i]);
        for (int k = i + 1; k < n; k++)
            if (!strcmp(r[k], r[i])) fprintf(out, ", %s", algos[k]);
        fprintf(out, " (%s)", r[i]);
    }
    fputc('\n', out);
    free(r);
}
