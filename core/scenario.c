/* What-if scenarios (core/scenario.h): parsing with messages "WHERE: JSON.PATH:
 * what is wrong", applying them to a platform, and the numbers the cost walk
 * and the simulator take from them. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonpath.h"
#include "scenario.h"
#include "units.h"
#include "util.h"

#define SC_MAX_FILE (16u << 20)

static const cJSON *field(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* kind: 0 time (>= 0), 1 rate (> 0), 2 bytes (> 0), 3 plain number (> 0). */
static ar_status read_num(ar_jpath *c, const cJSON *obj, const char *key, int kind, int required, double *out) {
    static const char *const what[] = {"time like \"5us\"", "rate like \"12.5GBps\"", "size like \"1GB\"", "number"};
    const cJSON *j = field(obj, key);
    if (!j) {
        if (!required) return AR_OK;
        return ar_jpath_fail(c, AR_EINVAL, "missing \"%s\" (a %s)", key, what[kind]);
    }
    size_t old = ar_jpath_key(c, key);
    ar_status st = AR_OK;
    if (cJSON_IsString(j) && j->valuestring && kind < 3) {
        uint64_t n = 0;
        if (kind == 0) st = ar_parse_time(j->valuestring, out, c->e);
        else if (kind == 1) st = ar_parse_rate(j->valuestring, out, c->e);
        else if ((st = ar_parse_size(j->valuestring, 1, &n, c->e)) == AR_OK) *out = (double)n;
        st = ar_jpath_wrap(c, st);
    } else if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;
        if (!isfinite(v)) st = ar_jpath_fail(c, AR_EINVAL, "must be finite");
        else if (kind == 0 && v < 0) st = ar_jpath_fail(c, AR_EINVAL, "a time must not be negative (got %g)", v);
        else if (kind > 0 && !(v > 0)) st = ar_jpath_fail(c, AR_EINVAL, "must be > 0 (got %g)", v);
        else *out = v;
    } else {
        st = ar_jpath_fail(c, AR_EINVAL, "must be a %s (got %s)", what[kind], ar_json_type_name(j));
    }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status read_rank(ar_jpath *c, const cJSON *j, int *out) {
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) || j->valuedouble < 0 ||
        j->valuedouble >= AR_MAX_RANKS)
        return ar_jpath_fail(c, AR_EINVAL, "a rank must be an integer in 0..%d (got %s)", AR_MAX_RANKS - 1,
                             cJSON_IsNumber(j) ? "a non-integer or out of range" : ar_json_type_name(j));
    *out = (int)j->valuedouble;
    return AR_OK;
}

static ar_status read_rank_key(ar_jpath *c, const cJSON *obj, const char *key, int *out) {
    const cJSON *j = field(obj, key);
    if (!j) return ar_jpath_fail(c, AR_EINVAL, "missing \"%s\" (a rank)", key);
    size_t old = ar_jpath_key(c, key);
    ar_status st = read_rank(c, j, out);
    ar_jpath_pop(c, old);
    return st;
}

static ar_status read_str(ar_jpath *c, const cJSON *obj, const char *key, int required, char **out) {
    const cJSON *j = field(obj, key);
    if (!j) return required ? ar_jpath_fail(c, AR_EINVAL, "missing \"%s\" (a string)", key) : AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = AR_OK;
    if (!cJSON_IsString(j) || !j->valuestring || !j->valuestring[0] || strlen(j->valuestring) > AR_NAME_MAX)
        st = ar_jpath_fail(c, AR_EINVAL, "must be a non-empty string of at most %d bytes (got %s)", AR_NAME_MAX,
                           ar_json_type_name(j));
    else if (!(*out = ar_strdup(j->valuestring))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    ar_jpath_pop(c, old);
    return st;
}

/* The array at key (absent: n = 0); allocates n items of size sz into *items. */
static ar_status read_list(ar_jpath *c, const cJSON *root, const char *key, size_t sz, const cJSON **arr, int *n,
                           void **items) {
    *arr = field(root, key);
    *n = 0;
    if (!*arr) return AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = AR_OK;
    if (!cJSON_IsArray(*arr)) st = ar_jpath_fail(c, AR_EINVAL, "must be an array (got %s)", ar_json_type_name(*arr));
    else if (cJSON_GetArraySize(*arr) > AR_SCENARIO_MAX_ITEMS)
        st = ar_jpath_fail(c, AR_ELIMIT, "at most %d entries", AR_SCENARIO_MAX_ITEMS);
    else if (!(*items = ar_calloc((size_t)cJSON_GetArraySize(*arr) + 1, sz)))
        st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    else *n = cJSON_GetArraySize(*arr);
    if (!st) ar_jpath_pop(c, old); /* callers push key[i] themselves; on error the path names the list */
    return st;
}

/* Pushes "key[i]" and checks item i is an object with only the allowed keys. */
static ar_status item(ar_jpath *c, const char *key, const cJSON *arr, int i, const char *const *allowed,
                      const cJSON **out, size_t *old) {
    *old = ar_jpath_key(c, key);
    ar_jpath_idx(c, i);
    *out = cJSON_GetArrayItem(arr, i);
    if (!allowed) return AR_OK;
    if (!cJSON_IsObject(*out))
        return ar_jpath_fail(c, AR_EINVAL, "must be an object (got %s)", ar_json_type_name(*out));
    return ar_jpath_check_keys(c, *out, allowed);
}

static ar_status parse(ar_jpath *c, const cJSON *root, ar_scenario *s) {
    static const char *const k_top[] = {"name",         "description", "stragglers", "links", "failed_links",
                                        "failed_ranks", "flows",       "jobs",       NULL};
    static const char *const k_str[] = {"rank", "delay", "rate", NULL};
    static const char *const k_link[] = {"link", "match", "factor", NULL};
    static const char *const k_flow[] = {"src", "dst", "rate", "bytes", "start", "stop", NULL};
    static const char *const k_job[] = {"ranks", "algo", "start", NULL};
    if (!cJSON_IsObject(root))
        return ar_jpath_fail(c, AR_EINVAL, "a scenario must be a JSON object (got %s)", ar_json_type_name(root));
    ar_status st = ar_jpath_check_keys(c, root, k_top);
    if (!st) st = read_str(c, root, "name", 0, &s->name);
    if (!st && !s->name && !(s->name = ar_strdup("scenario"))) st = AR_ENOMEM;
    const cJSON *a;
    size_t old;
    const cJSON *it;
    if (!st) st = read_list(c, root, "stragglers", sizeof *s->stragglers, &a, &s->nstragglers, (void **)&s->stragglers);
    for (int i = 0; !st && i < s->nstragglers; i++) {
        ar_straggler *g = &s->stragglers[i];
        g->rate = 1;
        st = item(c, "stragglers", a, i, k_str, &it, &old);
        if (!st) st = read_rank_key(c, it, "rank", &g->rank);
        if (!st) st = read_num(c, it, "delay", 0, 0, &g->delay_s);
        if (!st) st = read_num(c, it, "rate", 3, 0, &g->rate);
        if (!st && g->rate > 1) {
            size_t o2 = ar_jpath_key(c, "rate");
            st = ar_jpath_fail(c, AR_EINVAL, "a fraction of the rank's reduction rate in (0, 1] (got %g)", g->rate);
            ar_jpath_pop(c, o2);
        }
        if (!st && !field(it, "delay") && !field(it, "rate"))
            st = ar_jpath_fail(c, AR_EINVAL, "give a delay or a rate (a fraction of its reduction rate)");
        if (!st) ar_jpath_pop(c, old);
    }
    if (!st) st = read_list(c, root, "links", sizeof *s->links, &a, &s->nlinks, (void **)&s->links);
    for (int i = 0; !st && i < s->nlinks; i++) {
        ar_link_change *l = &s->links[i];
        st = item(c, "links", a, i, k_link, &it, &old);
        if (!st) st = read_str(c, it, "link", 0, &l->link);
        if (!st) st = read_str(c, it, "match", 0, &l->match);
        if (!st && !!l->link == !!l->match)
            st = ar_jpath_fail(c, AR_EINVAL, "give one of \"link\" (a link name) or \"match\" (a glob over names)");
        if (!st) st = read_num(c, it, "factor", 3, 1, &l->factor);
        if (!st) ar_jpath_pop(c, old);
    }
    if (!st)
        st = read_list(c, root, "failed_links", sizeof *s->failed_links, &a, &s->nfailed_links,
                       (void **)&s->failed_links);
    for (int i = 0; !st && i < s->nfailed_links; i++) {
        st = item(c, "failed_links", a, i, NULL, &it, &old);
        if (!st && (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0]))
            st = ar_jpath_fail(c, AR_EINVAL, "must be a link name (got %s)", ar_json_type_name(it));
        if (!st && !(s->failed_links[i] = ar_strdup(it->valuestring))) st = AR_ENOMEM;
        if (!st) ar_jpath_pop(c, old);
    }
    if (!st)
        st = read_list(c, root, "failed_ranks", sizeof *s->failed_ranks, &a, &s->nfailed_ranks,
                       (void **)&s->failed_ranks);
    for (int i = 0; !st && i < s->nfailed_ranks; i++) {
        st = item(c, "failed_ranks", a, i, NULL, &it, &old);
        if (!st) st = read_rank(c, it, &s->failed_ranks[i]);
        if (!st) ar_jpath_pop(c, old);
    }
    if (!st) st = read_list(c, root, "flows", sizeof *s->flows, &a, &s->nflows, (void **)&s->flows);
    for (int i = 0; !st && i < s->nflows; i++) {
        ar_bgflow *f = &s->flows[i];
        f->stop_s = INFINITY;
        st = item(c, "flows", a, i, k_flow, &it, &old);
        if (!st) st = read_rank_key(c, it, "src", &f->src);
        if (!st) st = read_rank_key(c, it, "dst", &f->dst);
        if (!st && f->src == f->dst) st = ar_jpath_fail(c, AR_EINVAL, "src and dst must differ");
        if (!st) st = read_num(c, it, "rate", 1, 0, &f->rate_Bps);
        if (!st) st = read_num(c, it, "bytes", 2, 0, &f->bytes);
        if (!st) st = read_num(c, it, "start", 0, 0, &f->start_s);
        if (!st) st = read_num(c, it, "stop", 0, 0, &f->stop_s);
        if (!st && f->stop_s <= f->start_s)
            st = ar_jpath_fail(c, AR_EINVAL, "stop (%g s) must be after start (%g s)", f->stop_s, f->start_s);
        if (!st && isfinite(f->stop_s) && f->rate_Bps == 0)
            st = ar_jpath_fail(c, AR_EINVAL,
                               "a \"stop\" needs a \"rate\" (the flow then carries rate x (stop - "
                               "start) bytes: SimGrid cannot cancel a transfer)");
        if (!st && f->bytes == 0 && f->rate_Bps == 0)
            st = ar_jpath_fail(c, AR_EINVAL,
                               "give \"bytes\" or a \"rate\" (else the flow takes every link it "
                               "crosses for ever)");
        if (!st) ar_jpath_pop(c, old);
    }
    if (!st) st = read_list(c, root, "jobs", sizeof *s->jobs, &a, &s->njobs, (void **)&s->jobs);
    for (int i = 0; !st && i < s->njobs; i++) {
        ar_job *jb = &s->jobs[i];
        st = item(c, "jobs", a, i, k_job, &it, &old);
        if (!st) st = read_str(c, it, "algo", 1, &jb->algo);
        if (!st) st = read_num(c, it, "start", 0, 0, &jb->start_s);
        const cJSON *rk = st ? NULL : field(it, "ranks");
        if (!st) {
            size_t o2 = ar_jpath_key(c, "ranks");
            if (!cJSON_IsArray(rk) || cJSON_GetArraySize(rk) < 2 || cJSON_GetArraySize(rk) > AR_MAX_RANKS)
                st = ar_jpath_fail(c, AR_EINVAL, "must be an array of at least 2 ranks");
            else if (!(jb->ranks = ar_calloc((size_t)cJSON_GetArraySize(rk), sizeof *jb->ranks))) st = AR_ENOMEM;
            else jb->nranks = cJSON_GetArraySize(rk);
            for (int k = 0; !st && k < jb->nranks; k++) {
                size_t o3 = ar_jpath_idx(c, k);
                st = read_rank(c, cJSON_GetArrayItem(rk, k), &jb->ranks[k]);
                if (!st) ar_jpath_pop(c, o3);
            }
            if (!st) ar_jpath_pop(c, o2);
        }
        if (!st) ar_jpath_pop(c, old);
    }
    if (st == AR_ENOMEM && !c->e->msg[0]) ar_fail(c->e, AR_ENOMEM, "out of memory");
    return st;
}

ar_status ar_scenario_from_json(const char *text, const char *where, ar_scenario **out, ar_err *e) {
    *out = NULL;
    ar_jpath c = {.where = where ? where : "<json>", .e = e};
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        return ar_fail(e, AR_EINVAL, "%s: not valid JSON near \"%.20s\"", c.where, at ? at : "?");
    }
    ar_scenario *s = ar_calloc(1, sizeof *s);
    ar_status st = s ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory");
    if (!st && !(s->source = ar_strdup(c.where))) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (!st) st = parse(&c, root, s);
    cJSON_Delete(root);
    if (st) {
        ar_scenario_free(s);
        return st;
    }
    *out = s;
    return AR_OK;
}

ar_status ar_scenario_load(const char *path, ar_scenario **out, ar_err *e) {
    char *text = NULL;
    *out = NULL;
    ar_status st = ar_read_file(path, SC_MAX_FILE, &text, NULL, e);
    if (st) return st;
    st = ar_scenario_from_json(text, path, out, e);
    free(text);
    return st;
}

/* The item at a path "a.b[0].c" below root (NULL when absent); parent, key and idx say where it hangs. */
static cJSON *find_path(cJSON *root, const char *path, cJSON **parent, char *key, size_t nkey, int *idx) {
    cJSON *cur = root;
    const char *q = path;
    *parent = NULL;
    while (*q && cur) {
        *parent = cur;
        if (*q == '[') {
            char *end;
            long i = strtol(q + 1, &end, 10);
            if (*end != ']' || i < 0 || !cJSON_IsArray(cur)) return NULL;
            *idx = (int)i;
            key[0] = 0;
            cur = cJSON_GetArrayItem(cur, (int)i);
            q = end + 1;
        } else {
            if (*q == '.') q++;
            size_t n = strcspn(q, ".[");
            if (!n || n >= nkey || !cJSON_IsObject(cur)) return NULL;
            memcpy(key, q, n);
            key[n] = 0;
            *idx = -1;
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
            q += n;
        }
    }
    return *q ? NULL : cur;
}

ar_status ar_scenario_load_set(const char *path, const char *set_path, const char *value, ar_scenario **out,
                               ar_err *e) {
    if (!set_path) return ar_scenario_load(path, out, e);
    *out = NULL;
    char *text = NULL;
    ar_status st = ar_read_file(path, SC_MAX_FILE, &text, NULL, e);
    if (st) return st;
    cJSON *root = cJSON_Parse(text), *val = cJSON_Parse(value);
    free(text);
    char key[256], where[600], q[96];
    int idx = -1;
    cJSON *parent = NULL, *cur = root && val ? find_path(root, set_path, &parent, key, sizeof key, &idx) : NULL;
    if (!root) st = ar_fail(e, AR_EINVAL, "%s: not valid JSON", path);
    else if (!val) st = ar_fail(e, AR_EINVAL, "%s: %s: the value %s is not JSON", path, set_path, value);
    else if (!cur || !parent)
        st = ar_fail(e, AR_EINVAL, "%s: %s: no such key or index in the scenario (vary changes an existing value)",
                     path, ar_quote(set_path, q, sizeof q));
    else {
        if (idx >= 0) cJSON_ReplaceItemInArray(parent, idx, val);
        else cJSON_ReplaceItemInObjectCaseSensitive(parent, key, val);
        val = NULL;
        char *t2 = cJSON_PrintUnformatted(root);
        snprintf(where, sizeof where, "%s (%s=%s)", path, set_path, value);
        st = t2 ? ar_scenario_from_json(t2, where, out, e) : ar_fail(e, AR_ENOMEM, "out of memory");
        free(t2);
    }
    cJSON_Delete(root);
    cJSON_Delete(val);
    return st;
}

void ar_scenario_free(ar_scenario *s) {
    if (!s) return;
    for (int i = 0; i < s->nlinks; i++) {
        free(s->links[i].link);
        free(s->links[i].match);
    }
    for (int i = 0; i < s->nfailed_links; i++) free(s->failed_links[i]);
    for (int i = 0; i < s->njobs; i++) {
        free(s->jobs[i].ranks);
        free(s->jobs[i].algo);
    }
    AR_FREE_ALL(s->links, s->failed_links, s->failed_ranks, s->stragglers, s->flows, s->jobs, s->name, s->source);
    free(s);
}

static int find_link(const ar_platform *p, const char *name) {
    for (int l = 0; l < p->nlinks; l++)
        if (p->links[l].name && !strcmp(p->links[l].name, name)) return l;
    return -1;
}

/* "WHERE: NAME names no link of platform P", with the closest link name when one is near (a glob gets
 * none) and the command that lists the links: `arlab platform show` of the preset, spec or file. */
static ar_status no_link(const ar_platform *p, const char *where, const char *name, int glob, ar_err *e) {
    const char *src = p->source ? p->source : "", *show = src;
    if (!strncmp(src, "preset:", 7)) show = src + 7;
    else if (!strncmp(src, "generated:", 10)) show = src + 10;
    if (!show[0]) show = p->name;
    const char *near = NULL;
    const char **names = glob ? NULL : ar_calloc((size_t)p->nlinks + 1, sizeof *names);
    if (names) {
        for (int l = 0; l < p->nlinks; l++) names[l] = p->links[l].name;
        near = ar_closest(name, names, p->nlinks);
    }
    char q[96];
    ar_quote(name, q, sizeof q);
    ar_status st = near ? ar_fail(e, AR_EINVAL,
                                  "%s: %s names no link of platform %s: did you mean \"%s\"? (every link: "
                                  "'arlab platform show %.200s')",
                                  where, q, p->name, near, show)
                        : ar_fail(e, AR_EINVAL,
                                  "%s: %s names no link of platform %s (every link: 'arlab platform show %.200s')",
                                  where, q, p->name, show);
    free(names);
    return st;
}

ar_status ar_scenario_apply(const ar_scenario *sc, ar_platform **pp, ar_err *e) {
    ar_platform *p = *pp;
    const char *w = sc->source;
    /* slow links: in place, then the derived levels again */
    int changed = 0;
    for (int i = 0; i < sc->nlinks; i++) {
        const ar_link_change *lc = &sc->links[i];
        int hits = 0;
        for (int l = 0; l < p->nlinks; l++) {
            const char *nm = p->links[l].name ? p->links[l].name : "";
            if (lc->link ? strcmp(nm, lc->link) : fnmatch(lc->match, nm, 0)) continue;
            p->links[l].bw_Bps *= lc->factor;
            hits++;
        }
        if (!hits) {
            char where[400];
            snprintf(where, sizeof where, "%s: links[%d].%s", w, i, lc->link ? "link" : "match");
            return no_link(p, where, lc->link ? lc->link : lc->match, !lc->link, e);
        }
        changed = 1;
    }
    if (changed) ar_platform_refresh_levels(p);
    /* failures: a rebuilt platform */
    if (sc->nfailed_links || sc->nfailed_ranks) {
        char *lf = ar_calloc((size_t)p->nlinks + 1, 1), *rf = ar_calloc((size_t)p->nranks + 1, 1);
        ar_status st = lf && rf ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory");
        for (int i = 0; !st && i < sc->nfailed_links; i++) {
            int l = find_link(p, sc->failed_links[i]);
            if (l < 0) {
                char where[400];
                snprintf(where, sizeof where, "%s: failed_links[%d]", w, i);
                st = no_link(p, where, sc->failed_links[i], 0, e);
            } else {
                lf[l] = 1;
            }
        }
        for (int i = 0; !st && i < sc->nfailed_ranks; i++) {
            if (sc->failed_ranks[i] >= p->nranks)
                st = ar_fail(e, AR_EINVAL, "%s: failed_ranks[%d]: rank %d, platform %s has %d ranks", w, i,
                             sc->failed_ranks[i], p->name, p->nranks);
            else rf[sc->failed_ranks[i]] = 1;
        }
        ar_platform *np = NULL;
        if (!st) {
            st = ar_platform_degrade(p, lf, rf, &np, e);
            if (st) {
                char m[AR_ERR_LEN];
                snprintf(m, sizeof m, "%s", e->msg);
                ar_fail(e, st, "%s: %s", w, m);
            }
        }
        free(lf);
        free(rf);
        if (st) return st;
        ar_platform_free(p);
        *pp = p = np;
    }
    /* every rank named must exist now */
    for (int i = 0; i < sc->nstragglers; i++)
        if (sc->stragglers[i].rank >= p->nranks)
            return ar_fail(e, AR_EINVAL, "%s: stragglers[%d].rank: rank %d, the platform has %d ranks", w, i,
                           sc->stragglers[i].rank, p->nranks);
    /* slow-computing stragglers: a fraction of the platform's reduction rate on their GPU */
    for (int i = 0; i < sc->nstragglers; i++) {
        const ar_straggler *g = &sc->stragglers[i];
        if (g->rate == 1) continue;
        if (!(p->reduce_Bps > 0))
            return ar_fail(e, AR_EUNSUPPORTED,
                           "%s: stragglers[%d].rate: a slower reduction needs a reduction rate (platform %s has no "
                           "compute.reduce; give one or --gamma)",
                           w, i, p->name);
        if (!p->rank_compute) {
            if (!(p->rank_compute = ar_calloc((size_t)p->nranks, sizeof *p->rank_compute)))
                return ar_fail(e, AR_ENOMEM, "out of memory");
            for (int r = 0; r < p->nranks; r++) p->rank_compute[r] = 1;
        }
        if (g->rate < p->rank_compute[g->rank]) p->rank_compute[g->rank] = g->rate; /* the slowest given */
    }
    for (int i = 0; i < sc->nflows; i++)
        if (sc->flows[i].src >= p->nranks || sc->flows[i].dst >= p->nranks)
            return ar_fail(e, AR_EINVAL, "%s: flows[%d]: rank %d, the platform has %d ranks", w, i,
                           sc->flows[i].src >= p->nranks ? sc->flows[i].src : sc->flows[i].dst, p->nranks);
    for (int i = 0; i < sc->njobs; i++)
        for (int k = 0; k < sc->jobs[i].nranks; k++)
            if (sc->jobs[i].ranks[k] >= p->nranks)
                return ar_fail(e, AR_EINVAL, "%s: jobs[%d].ranks[%d]: rank %d, the platform has %d ranks", w, i, k,
                               sc->jobs[i].ranks[k], p->nranks);
    return AR_OK;
}

int ar_scenario_has_compute(const ar_scenario *sc) {
    for (int i = 0; sc && i < sc->nstragglers; i++)
        if (sc->stragglers[i].rate != 1) return 1;
    return 0;
}

int ar_scenario_has_timing(const ar_scenario *sc) {
    if (!sc) return 0;
    for (int i = 0; i < sc->nstragglers; i++)
        if (sc->stragglers[i].delay_s > 0) return 1;
    return sc->nflows > 0 || sc->njobs > 0;
}

double ar_scenario_delays(const ar_scenario *sc, int nranks, double *d) {
    double mx = 0;
    for (int r = 0; r < nranks; r++) d[r] = 0;
    for (int i = 0; sc && i < sc->nstragglers; i++) {
        const ar_straggler *g = &sc->stragglers[i];
        if (g->rank < nranks && g->delay_s > d[g->rank]) d[g->rank] = g->delay_s;
        if (g->delay_s > mx) mx = g->delay_s;
    }
    return mx;
}

double ar_scenario_max_delay(const ar_scenario *sc) {
    double mx = 0;
    for (int i = 0; sc && i < sc->nstragglers; i++)
        if (sc->stragglers[i].delay_s > mx) mx = sc->stragglers[i].delay_s;
    return mx;
}

void ar_scenario_describe(const ar_scenario *sc, char *buf, size_t n) {
    if (!sc) {
        snprintf(buf, n, "-");
        return;
    }
    snprintf(buf, n,
             "%s (%d straggler%s, %d slow-link rule%s, %d failed link%s, %d failed rank%s, %d flow%s, %d job%s)",
             sc->name, sc->nstragglers, sc->nstragglers == 1 ? "" : "s", sc->nlinks, sc->nlinks == 1 ? "" : "s",
             sc->nfailed_links, sc->nfailed_links == 1 ? "" : "s", sc->nfailed_ranks, sc->nfailed_ranks == 1 ? "" : "s",
             sc->nflows, sc->nflows == 1 ? "" : "s", sc->njobs, sc->njobs == 1 ? "" : "s");
}
