/* Shared option parser of the arlab command. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opttab.h"
#include "core/util.h"

ar_status cli_error(ar_status st, const ar_err *e) {
    fprintf(stderr, "arlab: %s\n", e && e->msg[0] ? e->msg : ar_status_name(st));
    return st;
}

ar_status cli_bad(const char *verb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "arlab %s: ", verb);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return AR_EINVAL;
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
        return cli_bad(verb, "%s: \"%s\" is not a size in bytes (nccl-tests' form: 8, 64K, 1M, 1G)", flag, v);
    *out = (uint64_t)x << sh;
    return AR_OK;
}

static ar_status nt_range(cli_opts *o, const char *const nt[4], const char *verb) {
    uint64_t b = 0, e = 0, f = 0, inc = 1u << 20;
    if (!nt[0] && !nt[1] && !nt[2] && !nt[3]) return AR_OK;
    if (!nt[0]) return cli_bad(verb, "-e/-f/-i need -b MIN (nccl-tests' size range)");
    if (nt_size(nt[0], "-b", verb, &b) || (nt[1] && nt_size(nt[1], "-e", verb, &e)) ||
        (nt[3] && nt_size(nt[3], "-i", verb, &inc)))
        return AR_EINVAL;
    if (!nt[1]) e = b;
    if (nt[2]) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(nt[2], &end, 10);
        if (errno || end == nt[2] || *end || x < 2)
            return cli_bad(verb, "-f: \"%s\" is not an integer factor >= 2", nt[2]);
        f = x;
    }
    if (b < 1 || e < b) return cli_bad(verb, "-b %s -e %s: need 1 <= MIN <= MAX", nt[0], nt[1] ? nt[1] : nt[0]);
    if (!f && inc < 1) return cli_bad(verb, "-i: the increment must be >= 1");
    for (uint64_t s = b; s <= e;) {
        if (o->nsizes >= CLI_MAX_LIST) return cli_bad(verb, "-b/-e/-f/-i: more than %d sizes", CLI_MAX_LIST);
        snprintf(o->size_store[o->nsizes], sizeof o->size_store[0], "%lluB", (unsigned long long)s);
        o->sizes[o->nsizes] = o->size_store[o->nsizes];
        o->nsizes++;
        if (f ? s > UINT64_MAX / f : s > UINT64_MAX - inc) break;
        s = f ? s * f : s + inc;
    }
    return AR_OK;
}

/* The index of val among d's choices, or -1; list gets them comma-separated (for a message). */
static int choice_index(const cli_optdef *d, const char *val, char *list, size_t cap) {
    char w[32];
    int k = 0;
    *list = 0;
    for (const char *c = d->choices; c && *c; k++) {
        size_t l = strcspn(c, " ");
        snprintf(w, sizeof w, "%.*s", (int)l, c);
        if (val && !strcmp(w, val)) return k;
        snprintf(list + strlen(list), cap - strlen(list), "%s%s", k ? ", " : "", w);
        c += l + (c[l] == ' ');
    }
    return -1;
}

/* Sets option d to val (NULL for a flag) by its type, or by its handler; AR_OK or AR_EINVAL after one line. */
static ar_status set_opt(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    if (d->set) return d->set(o, d, val, verb);
    char *field = (char *)o + d->field;
    switch (d->type) {
    case CLI_ARG_NONE: *(int *)field = 1; return AR_OK;
    case CLI_ARG_STRING:
    case CLI_ARG_FILE: *(const char **)field = val; return AR_OK;
    case CLI_ARG_COUNT: {
        long long n;
        ar_err e = {{0}};
        if (ar_parse_count(val, d->min, d->max, &n, &e) != AR_OK) return cli_bad(verb, "%s: %s", d->name, e.msg);
        *(int *)field = (int)n;
        return AR_OK;
    }
    case CLI_ARG_ENUM: {
        char list[128];
        int k = choice_index(d, val, list, sizeof list);
        if (k < 0) return cli_bad(verb, "%s: \"%s\" is not one of %s", d->name, val, list);
        *(int *)field = k;
        return AR_OK;
    }
    case CLI_ARG_OTHER: break;
    }
    return cli_bad(verb, "option %s: no way to set it", d->name);
}

ar_status cli_parse(int argc, char **argv, unsigned allowed, cli_opts *o, const char *verb) {
    memset(o, 0, sizeof *o);
    o->dtype = AR_DTYPE_F32;
    o->format = FMT_TABLE;
    o->iters = 20;
    o->warmup = 5;
    int ndefs;
    const cli_optdef *defs = cli_optdefs(&ndefs);
    const char *nt[4] = {NULL, NULL, NULL, NULL}; /* -b -e -f -i */
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if ((allowed & OPT_SIZE) && a[0] == '-' && strchr("befi", a[1]) && a[1] && !a[2]) {
            if (i + 1 >= argc) return cli_bad(verb, "option %s needs a value", a);
            nt[strchr("befi", a[1]) - "befi"] = argv[++i];
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || strcmp(a, "--") == 0) {
            if (!(allowed & OPT_POSITIONAL)) return cli_bad(verb, "unexpected argument \"%s\"", a);
            if (o->npositional >= CLI_MAX_LIST) return cli_bad(verb, "too many positional values");
            o->positional[o->npositional++] = a;
            continue;
        }
        char name[32];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name) return cli_bad(verb, "unknown option \"%s\" (see 'arlab help')", a);
        memcpy(name, a, nl);
        name[nl] = 0;
        const cli_optdef *d = cli_optdef_find(name);
        if (!d || !(allowed & d->bit)) {
            const char *cand[CLI_MAX_LIST];
            int nc = 0;
            for (int f = 0; f < ndefs && nc < CLI_MAX_LIST; f++)
                if (allowed & defs[f].bit) cand[nc++] = defs[f].name;
            const char *near = ar_closest(name, cand, nc);
            if (near)
                return cli_bad(verb, "unknown option \"%s\": did you mean \"%s\"? (see 'arlab %s --help')", name, near,
                               verb);
            return cli_bad(verb, "unknown option \"%s\" for this command (see 'arlab %s --help')", name, verb);
        }
        if (d->type != CLI_ARG_NONE) {
            if (eq) val = eq + 1;
            else if (i + 1 < argc) val = argv[++i];
            else return cli_bad(verb, "option %s needs a value", name);
            if (!*val) return cli_bad(verb, "option %s needs a non-empty value", name);
        } else if (eq) {
            return cli_bad(verb, "option %s takes no value", name);
        }
        ar_status st = set_opt(o, d, val, verb);
        if (st != AR_OK) return st;
    }
    return nt_range(o, nt, verb);
}

/* One own option's value into its field; AR_OK or AR_EINVAL after one line. */
static ar_status set_own(const cli_optdef *d, const char *as, const char *v, char *field, const char *verb) {
    if (d->own) return d->own(d, as, v, field, verb);
    char list[128];
    long long n;
    ar_err e = {{0}};
    int k;
    switch (d->type) {
    case CLI_ARG_NONE: *(int *)field = 1; return AR_OK;
    case CLI_ARG_COUNT:
        if (!v || ar_parse_count(v, d->min, d->max, &n, &e) != AR_OK) break;
        if (d->max > INT_MAX) *(long long *)field = n;
        else *(int *)field = (int)n;
        return AR_OK;
    case CLI_ARG_ENUM:
        if ((k = choice_index(d, v, list, sizeof list)) < 0) break;
        *(int *)field = k;
        return AR_OK;
    default:
        if (!v || !*v) break;
        *(const char **)field = v;
        return AR_OK;
    }
    if (d->bad) return cli_bad(verb, "%s: %s", d->name, d->bad);
    return cli_bad(verb, "option %s needs a value", d->name);
}

/* The length of the option's name as a spells it when a is the option d or its alias (0: it is not): *joined set
 * to the value joined to it ("--x=v", "-xv"), or NULL when the value, if any, is the next argument. */
static size_t own_match(const cli_optdef *d, const char *a, const char **joined) {
    size_t nl = strlen(d->name);
    *joined = NULL;
    if (!strncmp(a, d->name, nl) && (a[nl] == 0 || a[nl] == '=')) {
        if (a[nl] == '=') *joined = a + nl + 1;
        return nl;
    }
    if (!d->alias) return 0;
    size_t al = strlen(d->alias);
    if (strncmp(a, d->alias, al)) return 0;
    if (a[al]) *joined = a + al;
    return al;
}

ar_status cli_take_own(int *argc, char **argv, const cli_ownopt *map, int n, void *own, const char *verb) {
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        char *a = argv[i];
        const cli_optdef *d = NULL;
        const char *joined = NULL;
        size_t nl = 0;
        int k = 0;
        for (; k < n; k++) {
            d = cli_optdef_find(map[k].name);
            if (!d) return cli_bad(verb, "option %s is not in the option table (cli/opttab.c)", map[k].name);
            if ((nl = own_match(d, a, &joined)) > 0) break;
        }
        if (k == n) {
            argv[out++] = a;
            continue;
        }
        const char *v = NULL;
        if (d->type == CLI_ARG_NONE && joined) return cli_bad(verb, "option %s takes no value", d->name);
        if (d->type != CLI_ARG_NONE) v = joined ? joined : (i + 1 < *argc ? argv[++i] : NULL);
        char as[32]; /* the option as written: "-j", "--jobs" */
        snprintf(as, sizeof as, "%.*s", (int)nl, a);
        if (set_own(d, as, v, (char *)own + map[k].field, verb) != AR_OK) return AR_EINVAL;
    }
    *argc = out;
    return AR_OK;
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
    if (st == AR_OK) (*out)->nccl_version = o->nccl_version;       /* NCCL's model follows --nccl-version */
    if (st == AR_OK) (*out)->nccl_tuner_only = o->nccl_tuner_only; /* and --nccl-model */
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
