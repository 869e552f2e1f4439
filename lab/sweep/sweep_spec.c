/* Sweep files (sweep_spec.h): parsing with cJSON and validation with messages
 * "WHERE: JSON.PATH: what is wrong". Nothing user-supplied is trusted: every
 * field is type- and range-checked, every array bounded, and the grid size
 * capped before anyone enumerates it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/jsonpath.h"
#include "sweep_json.h"
#include "sweep_spec.h"

#define SWEEP_SPEC_MAX 1000 /* longest platform/algorithm spec */

/* ---- sections ---- */

const char *sweep_backend_name(const lab_backend *b) { return b ? b->name : "auto"; }

/* "auto" (NULL) or an entry of the backend table (lab/backend.h) that can run sweep points. */
static ar_status parse_backend_value(sctx *c, const cJSON *j, const lab_backend **out) {
    char q[64], names[256] = "auto";
    ar_status st = sweep_check_text(c, j, 16);
    if (st) return st;
    if (!strcmp(j->valuestring, "auto")) {
        *out = NULL;
        return AR_OK;
    }
    const lab_backend *b = lab_backend_find(j->valuestring);
    if (b && (b->caps & LAB_CAP_SWEEP)) {
        *out = b;
        return AR_OK;
    }
    int n = 0, nsweep = 0;
    const lab_backend *all = lab_backends(&n);
    for (int i = 0; i < n; i++) nsweep += (all[i].caps & LAB_CAP_SWEEP) != 0;
    for (int i = 0, k = 0; i < n; i++) {
        if (!(all[i].caps & LAB_CAP_SWEEP)) continue;
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", ++k == nsweep ? " or " : ", ", all[i].name);
    }
    return ar_jpath_fail(c, AR_EINVAL, "%s is not a backend (use %s)", ar_quote(j->valuestring, q, sizeof q), names);
}

static ar_status parse_backends(sctx *c, const cJSON *root, ar_sweep *s) {
    const cJSON *j = sweep_field(root, "backend");
    s->nbackends = 1;
    s->backends[0] = NULL; /* auto */
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, "backend");
    ar_status st = AR_OK;
    if (cJSON_IsArray(j)) {
        int n = cJSON_GetArraySize(j);
        if (n < 1 || n > 4) st = ar_jpath_fail(c, AR_EINVAL, "give 1 to 4 backends (got %d)", n);
        s->nbackends = 0;
        for (int i = 0; !st && i < n; i++) {
            size_t o2 = ar_jpath_idx(c, i);
            const lab_backend *b = NULL;
            st = parse_backend_value(c, cJSON_GetArrayItem(j, i), &b);
            for (int k = 0; !st && k < s->nbackends; k++)
                if (s->backends[k] == b)
                    st = ar_jpath_fail(c, AR_EINVAL, "\"%s\" is listed twice", sweep_backend_name(b));
            if (!st) s->backends[s->nbackends++] = b;
            ar_jpath_pop(c, o2);
        }
    } else {
        st = parse_backend_value(c, j, &s->backends[0]);
    }
    ar_jpath_pop(c, old);
    return st;
}

/* An array of rank counts (path = its key). */
static ar_status parse_ranks(sctx *c, const cJSON *j, int **out, int *n) {
    int k;
    ar_status st = sweep_need_array(c, j, &k);
    if (st) return st;
    if (!(*out = ar_calloc((size_t)k, sizeof **out))) return ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    *n = k;
    for (int i = 0; i < k; i++) {
        size_t old = ar_jpath_idx(c, i);
        long long v = 0;
        st = sweep_read_int_value(c, cJSON_GetArrayItem(j, i), 1, AR_MAX_RANKS, &v);
        ar_jpath_pop(c, old);
        if (st) return st;
        (*out)[i] = (int)v;
    }
    return AR_OK;
}

static ar_status check_algo_spec(sctx *c, const char *spec);

static char *dup_or_null(const char *x) { return x ? ar_strdup(x) : NULL; }

/* "vary": {"PATH": [values]} of platforms[i] (needs "scenario"): entry i takes the first value and
 * copies of it, inserted right after it, the others (the loop over entries skips them: *skip). */
static ar_status parse_vary(sctx *c, const cJSON *j, ar_sweep *s, int i, int *skip) {
    const cJSON *v = sweep_field(j, "vary");
    if (!v) return AR_OK;
    size_t o = ar_jpath_key(c, "vary");
    ar_status st = AR_OK;
    const cJSON *vals = v->child;
    int n = 0;
    if (!s->platforms[i].scenario) st = ar_jpath_fail(c, AR_EINVAL, "needs \"scenario\" (the file it varies)");
    else if (!cJSON_IsObject(v) || !vals || vals->next)
        st = ar_jpath_fail(c, AR_EINVAL,
                           "must be an object with one scenario path, e.g. "
                           "{\"stragglers[0].delay\": [\"0ms\", \"1ms\"]}");
    else if (!vals->string || !*vals->string || strlen(vals->string) > 200)
        st = ar_jpath_fail(c, AR_EINVAL, "the key must be a scenario path such as stragglers[0].delay");
    else if ((st = sweep_need_array(c, vals, &n)) == AR_OK && (n < 1 || n > AR_SWEEP_MAX_AXIS))
        st = ar_jpath_fail(c, AR_EINVAL, "give 1 to %d values", AR_SWEEP_MAX_AXIS);
    if (!st) {
        ar_sweep_platform *np = ar_reallocarray(s->platforms, (size_t)s->nplatforms + (size_t)n - 1, sizeof *np);
        if (!np) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
        else {
            s->platforms = np;
            memmove(&np[i + n], &np[i + 1], (size_t)(s->nplatforms - i - 1) * sizeof *np);
            memset(&np[i + 1], 0, (size_t)(n - 1) * sizeof *np);
            s->nplatforms += n - 1;
        }
    }
    char base[300]; /* the entry's label before the values are appended */
    if (!st) snprintf(base, sizeof base, "%s", s->platforms[i].label ? s->platforms[i].label : s->platforms[i].spec);
    for (int k = 0; !st && k < n; k++) {
        ar_sweep_platform *b = &s->platforms[i], *p = &s->platforms[i + k];
        const cJSON *x = cJSON_GetArrayItem(vals, k);
        char *txt = cJSON_PrintUnformatted(x);
        if (!txt || !(cJSON_IsString(x) || cJSON_IsNumber(x))) {
            free(txt);
            size_t o2 = ar_jpath_key(c, vals->string);
            ar_jpath_idx(c, k);
            st = ar_jpath_fail(c, AR_EINVAL, "a value must be a string or a number");
            ar_jpath_pop(c, o2);
            break;
        }
        if (k > 0) { /* a copy of the entry */
            p->spec = ar_strdup(b->spec);
            p->label = dup_or_null(b->label);
            p->scenario = ar_strdup(b->scenario);
            if (b->nranks && (p->ranks = ar_calloc((size_t)b->nranks, sizeof *p->ranks))) {
                memcpy(p->ranks, b->ranks, (size_t)b->nranks * sizeof *p->ranks);
                p->nranks = b->nranks;
            }
            if (b->nexclude && (p->exclude = ar_calloc((size_t)b->nexclude, sizeof *p->exclude)))
                for (int q = 0; q < b->nexclude; q++)
                    if ((p->exclude[q] = ar_strdup(b->exclude[q]))) p->nexclude++;
        }
        p->scen_set = ar_strdup(vals->string);
        p->scen_value = txt;
        char lab[400];
        snprintf(lab, sizeof lab, "%s %s=%s", base, vals->string, cJSON_IsString(x) ? x->valuestring : txt);
        free(p->label);
        p->label = ar_strdup(lab);
        if (!p->spec || !p->scenario || !p->scen_set || !p->label) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    }
    *skip = n - 1;
    ar_jpath_pop(c, o);
    return st;
}

static ar_status parse_platforms(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"spec", "label", "ranks", "exclude", "scenario", "vary", NULL};
    const cJSON *arr = sweep_field(root, "platforms");
    size_t old = ar_jpath_key(c, "platforms");
    ar_status st = arr ? sweep_need_array(c, arr, &s->nplatforms)
                       : ar_jpath_fail(c, AR_EINVAL, "missing (give at least one platform)");
    if (!st && !(s->platforms = ar_calloc((size_t)s->nplatforms, sizeof *s->platforms)))
        st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    int njson = s->nplatforms;
    for (int ji = 0, i = 0; !st && ji < njson; ji++, i++) { /* i: the entry (vary adds entries), ji: the JSON item */
        const cJSON *j = cJSON_GetArrayItem(arr, ji);
        ar_sweep_platform *p = &s->platforms[i];
        size_t o2 = ar_jpath_idx(c, ji);
        int skip = 0;
        if (cJSON_IsString(j)) {
            st = sweep_check_text(c, j, SWEEP_SPEC_MAX);
            if (!st && !(p->spec = ar_strdup(j->valuestring))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
        } else if (cJSON_IsObject(j)) {
            st = ar_jpath_check_keys(c, j, keys);
            if (!st) st = sweep_read_text(c, j, "spec", SWEEP_SPEC_MAX, &p->spec);
            if (!st && !p->spec) {
                size_t o3 = ar_jpath_key(c, "spec");
                st = ar_jpath_fail(c, AR_EINVAL, "missing (a preset, file or family such as \"fat-tree\")");
                ar_jpath_pop(c, o3);
            }
            if (!st) st = sweep_read_text(c, j, "label", 128, &p->label);
            const cJSON *r = sweep_field(j, "ranks");
            if (!st && r) {
                size_t o3 = ar_jpath_key(c, "ranks");
                st = parse_ranks(c, r, &p->ranks, &p->nranks);
                ar_jpath_pop(c, o3);
            }
            const cJSON *x = sweep_field(j, "exclude");
            if (!st && x) {
                size_t o3 = ar_jpath_key(c, "exclude");
                int nx = 0;
                st = sweep_need_array(c, x, &nx);
                if (!st && !(p->exclude = ar_calloc((size_t)nx, sizeof *p->exclude)))
                    st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
                for (int k = 0; !st && k < nx; k++) {
                    size_t o4 = ar_jpath_idx(c, k);
                    const cJSON *v = cJSON_GetArrayItem(x, k);
                    st = sweep_check_text(c, v, 64);
                    if (!st) st = check_algo_spec(c, v->valuestring);
                    if (!st && strchr(v->valuestring, ':'))
                        st = ar_jpath_fail(c, AR_EINVAL, "give an algorithm name without parameters");
                    if (!st && !(p->exclude[k] = ar_strdup(v->valuestring)))
                        st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
                    if (!st) p->nexclude++;
                    ar_jpath_pop(c, o4);
                }
                ar_jpath_pop(c, o3);
            }
            if (!st) st = sweep_read_text(c, j, "scenario", SWEEP_SPEC_MAX, &p->scenario);
            if (!st) st = parse_vary(c, j, s, i, &skip);
        } else {
            st = ar_jpath_fail(c, AR_EINVAL,
                               "must be a platform name, file or family spec, or an object with \"spec\" (got %s)",
                               ar_json_type_name(j));
        }
        ar_jpath_pop(c, o2);
        i += skip;
    }
    ar_jpath_pop(c, old);
    return st;
}

/* Appends "key=value" pairs of a params object to spec (in file order). */
static ar_status params_to_spec(sctx *c, const cJSON *params, const char *name, char **out) {
    char buf[SWEEP_SPEC_MAX + 1];
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s", name);
    if (!cJSON_IsObject(params))
        return ar_jpath_fail(c, AR_EINVAL, "must be an object of key: value (got %s)", ar_json_type_name(params));
    int first = 1;
    for (const cJSON *k = params->child; k; k = k->next) {
        const char *key = k->string ? k->string : "";
        char val[128], q[96];
        size_t o2 = ar_jpath_key(c, key);
        ar_status st = AR_OK;
        if (!*key || strpbrk(key, ",:= ") || strlen(key) > 64)
            st = ar_jpath_fail(c, AR_EINVAL, "%s is not a parameter name", ar_quote(key, q, sizeof q));
        else if (cJSON_IsNumber(k)) {
            if (!isfinite(k->valuedouble)) st = ar_jpath_fail(c, AR_EINVAL, "must be finite");
            else if (k->valuedouble == floor(k->valuedouble) && fabs(k->valuedouble) < 1e15)
                snprintf(val, sizeof val, "%lld", (long long)k->valuedouble);
            else snprintf(val, sizeof val, "%.17g", k->valuedouble);
        } else if (cJSON_IsString(k)) {
            st = sweep_check_text(c, k, 120);
            if (!st && strpbrk(k->valuestring, ",:="))
                st = ar_jpath_fail(c, AR_EINVAL, "%s: a value may not contain ',', ':' or '='",
                                   ar_quote(k->valuestring, q, sizeof q));
            if (!st) snprintf(val, sizeof val, "%s", k->valuestring);
        } else {
            st = ar_jpath_fail(c, AR_EINVAL, "must be a string or a number (got %s)", ar_json_type_name(k));
        }
        ar_jpath_pop(c, o2);
        if (st) return st;
        int n = snprintf(buf + len, sizeof buf - len, "%s%s=%s", first ? ":" : ",", key, val);
        if (n < 0 || (size_t)n >= sizeof buf - len) return ar_jpath_fail(c, AR_EINVAL, "the parameters are too long");
        len += (size_t)n;
        first = 0;
    }
    if (!(*out = ar_strdup(buf))) return ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    return AR_OK;
}

/* An algorithm spec string: "name[:k=v,...]" with a sane name. */
static ar_status check_algo_spec(sctx *c, const char *spec) {
    char q[96];
    size_t n = strcspn(spec, ":");
    if (n == 0) return ar_jpath_fail(c, AR_EINVAL, "%s has no algorithm name", ar_quote(spec, q, sizeof q));
    for (size_t i = 0; i < n; i++) {
        char ch = spec[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
              ch == '_' || ch == '.'))
            return ar_jpath_fail(c, AR_EINVAL, "%s is not an algorithm name (see 'arlab algos')",
                                 ar_quote(spec, q, sizeof q));
    }
    return AR_OK;
}

static ar_status parse_algos(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"algo", "spec", "params", "label", NULL};
    const cJSON *arr = sweep_field(root, "algos");
    size_t old = ar_jpath_key(c, "algos");
    ar_status st = arr ? sweep_need_array(c, arr, &s->nalgos)
                       : ar_jpath_fail(c, AR_EINVAL, "missing (give at least one algorithm)");
    if (!st && !(s->algos = ar_calloc((size_t)s->nalgos, sizeof *s->algos)))
        st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    for (int i = 0; !st && i < s->nalgos; i++) {
        const cJSON *j = cJSON_GetArrayItem(arr, i);
        sweep_algo *a = &s->algos[i];
        size_t o2 = ar_jpath_idx(c, i);
        if (cJSON_IsString(j)) {
            st = sweep_check_text(c, j, SWEEP_SPEC_MAX);
            if (!st) st = check_algo_spec(c, j->valuestring);
            if (!st && !(a->spec = ar_strdup(j->valuestring))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
        } else if (cJSON_IsObject(j)) {
            st = ar_jpath_check_keys(c, j, keys);
            char *name = NULL, *spec = NULL;
            if (!st) st = sweep_read_text(c, j, "algo", 64, &name);
            if (!st) st = sweep_read_text(c, j, "spec", SWEEP_SPEC_MAX, &spec);
            if (!st && !!name == !!spec)
                st = ar_jpath_fail(c, AR_EINVAL, "give exactly one of \"algo\" (with \"params\") or \"spec\"");
            if (!st && spec && sweep_field(j, "params"))
                st = ar_jpath_fail(c, AR_EINVAL, "\"params\" goes with \"algo\", not \"spec\"");
            if (!st && name) {
                size_t o3 = ar_jpath_key(c, "algo");
                st = check_algo_spec(c, name);
                if (!st && strchr(name, ':')) st = ar_jpath_fail(c, AR_EINVAL, "put parameters in \"params\"");
                ar_jpath_pop(c, o3);
                const cJSON *pj = sweep_field(j, "params");
                if (!st && pj) {
                    o3 = ar_jpath_key(c, "params");
                    st = params_to_spec(c, pj, name, &a->spec);
                    ar_jpath_pop(c, o3);
                } else if (!st) {
                    a->spec = name;
                    name = NULL;
                }
            } else if (!st) {
                size_t o3 = ar_jpath_key(c, "spec");
                st = check_algo_spec(c, spec);
                ar_jpath_pop(c, o3);
                if (!st) {
                    a->spec = spec;
                    spec = NULL;
                }
            }
            free(name);
            free(spec);
            if (!st) st = sweep_read_text(c, j, "label", 128, &a->label);
        } else {
            st = ar_jpath_fail(c, AR_EINVAL, "must be an algorithm spec or an object with \"algo\" (got %s)",
                               ar_json_type_name(j));
        }
        ar_jpath_pop(c, o2);
    }
    ar_jpath_pop(c, old);
    return st;
}

/* A size value: string with units, or a JSON integer number of elements. */
static ar_status size_value(sctx *c, const cJSON *j, size_t eb, uint64_t *elems) {
    if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;
        if (!isfinite(v) || v != floor(v) || v < 1 || v * (double)eb > (double)AR_MAX_BYTES)
            return ar_jpath_fail(c, AR_EINVAL, "%g is not a whole number of elements in 1..%.0f", v,
                                 (double)AR_MAX_BYTES / (double)eb);
        *elems = (uint64_t)v;
        return AR_OK;
    }
    ar_status st = sweep_check_text(c, j, 64);
    if (st) return st;
    return ar_jpath_wrap(c, ar_parse_size(j->valuestring, eb, elems, c->e));
}

static ar_status add_size(sctx *c, ar_sweep *s, int *cap, const char *text, uint64_t elems) {
    if (s->nsizes >= AR_SWEEP_MAX_AXIS) return ar_jpath_fail(c, AR_EINVAL, "more than %d sizes", AR_SWEEP_MAX_AXIS);
    if (s->nsizes == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        sweep_size *ns = ar_reallocarray(s->sizes, (size_t)nc, sizeof *ns);
        if (!ns) return ar_jpath_fail(c, AR_ENOMEM, "out of memory");
        s->sizes = ns;
        *cap = nc;
    }
    char buf[32];
    if (!text) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)elems);
        text = buf;
    }
    s->sizes[s->nsizes].elems = elems;
    if (!(s->sizes[s->nsizes].text = ar_strdup(text))) return ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    s->nsizes++;
    return AR_OK;
}

/* {"from": A, "to": B, "steps": N, "scale": "linear"|"log"}: N values from A to
 * B inclusive, rounded to whole elements. */
static ar_status size_range(sctx *c, const cJSON *j, ar_sweep *s, int *cap, size_t eb) {
    static const char *const keys[] = {"from", "to", "steps", "scale", NULL};
    ar_status st = ar_jpath_check_keys(c, j, keys);
    uint64_t lo = 0, hi = 0;
    long long steps = 0;
    int logscale = 0;
    const char *names[2] = {"from", "to"};
    uint64_t *vals[2] = {&lo, &hi};
    for (int k = 0; k < 2 && !st; k++) {
        const cJSON *v = sweep_field(j, names[k]);
        size_t old = ar_jpath_key(c, names[k]);
        st = v ? size_value(c, v, eb, vals[k]) : ar_jpath_fail(c, AR_EINVAL, "missing");
        ar_jpath_pop(c, old);
    }
    if (!st) {
        const cJSON *v = sweep_field(j, "steps");
        size_t old = ar_jpath_key(c, "steps");
        st = v ? sweep_read_int_value(c, v, 2, AR_SWEEP_MAX_AXIS, &steps)
               : ar_jpath_fail(c, AR_EINVAL, "missing (2..%d)", AR_SWEEP_MAX_AXIS);
        ar_jpath_pop(c, old);
    }
    if (!st) {
        const cJSON *v = sweep_field(j, "scale");
        if (v) {
            size_t old = ar_jpath_key(c, "scale");
            st = sweep_check_text(c, v, 16);
            if (!st && !strcmp(v->valuestring, "log")) logscale = 1;
            else if (!st && strcmp(v->valuestring, "linear"))
                st = ar_jpath_fail(c, AR_EINVAL, "must be \"linear\" or \"log\"");
            ar_jpath_pop(c, old);
        }
    }
    if (!st && hi <= lo) st = ar_jpath_fail(c, AR_EINVAL, "\"to\" must be larger than \"from\"");
    for (long long i = 0; !st && i < steps; i++) {
        double f = (double)i / (double)(steps - 1), v;
        if (logscale) v = exp(log((double)lo) + f * (log((double)hi) - log((double)lo)));
        else v = (double)lo + f * ((double)hi - (double)lo);
        uint64_t el = i == steps - 1 ? hi : (uint64_t)llround(v);
        if (el < 1) el = 1;
        if (s->nsizes && s->sizes[s->nsizes - 1].elems == el) continue; /* duplicates after rounding */
        st = add_size(c, s, cap, NULL, el);
    }
    return st;
}

static ar_status parse_sizes(sctx *c, const cJSON *root, ar_sweep *s) {
    const cJSON *arr = sweep_field(root, "sizes");
    size_t old = ar_jpath_key(c, "sizes");
    int n = 0, cap = 0;
    ar_status st = arr ? sweep_need_array(c, arr, &n)
                       : ar_jpath_fail(c, AR_EINVAL, "missing (e.g. [\"100MB\", \"120M\"])");
    size_t eb = ar_dtype_size(s->dtype);
    for (int i = 0; !st && i < n; i++) {
        const cJSON *j = cJSON_GetArrayItem(arr, i);
        size_t o2 = ar_jpath_idx(c, i);
        if (cJSON_IsObject(j)) {
            st = size_range(c, j, s, &cap, eb);
        } else {
            uint64_t el = 0;
            st = size_value(c, j, eb, &el);
            if (!st) st = add_size(c, s, &cap, cJSON_IsString(j) ? j->valuestring : NULL, el);
        }
        ar_jpath_pop(c, o2);
    }
    for (int a = 0; !st && a < s->nsizes; a++)
        for (int b = 0; b < a; b++)
            if (s->sizes[a].elems == s->sizes[b].elems) {
                st = ar_jpath_fail(c, AR_EINVAL, "%s and %s are the same size (%llu elements)", s->sizes[b].text,
                                   s->sizes[a].text, (unsigned long long)s->sizes[a].elems);
                break;
            }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status parse_train_one(sctx *c, const cJSON *j, sweep_train_config *t, int idx) {
    static const char *const keys[] = {"label",       "compute",  "batch", "overlap", "overlap_fraction",
                                       "compute_div", "comm_div", NULL};
    t->batch = 32;
    t->compute_s = -1;
    t->overlap_fraction = 2.0 / 3.0;
    t->compute_div = 1;
    t->comm_div = 1;
    ar_status st = sweep_check_object(c, j, keys);
    if (!st) st = sweep_read_text(c, j, "label", 32, &t->label);
    if (!st && t->label)
        for (const char *p = t->label; *p && !st; p++)
            if (*p == ',' || *p == '|' || *p == '"')
                st = ar_jpath_fail(c, AR_EINVAL, "label: may not contain ',', '|' or '\"'");
    if (!st) st = sweep_read_time(c, j, "compute", &t->compute_s);
    if (!st && !(t->compute_s > 0)) {
        size_t old = ar_jpath_key(c, "compute");
        st = ar_jpath_fail(c, AR_EINVAL, "missing or zero: give the single-GPU time per iteration (e.g. \"163ms\")");
        ar_jpath_pop(c, old);
    }
    const cJSON *b = sweep_field(j, "batch");
    if (!st && b) {
        size_t old = ar_jpath_key(c, "batch");
        long long v = 0;
        st = sweep_read_int_value(c, b, 1, 1 << 24, &v);
        t->batch = (int)v;
        ar_jpath_pop(c, old);
    }
    if (!st) st = sweep_read_bool(c, j, "overlap", &t->overlap);
    if (!st) st = sweep_read_pos_number(c, j, "overlap_fraction", 1.0, &t->overlap_fraction);
    if (!st) st = sweep_read_pos_number(c, j, "compute_div", 1e6, &t->compute_div);
    if (!st) st = sweep_read_pos_number(c, j, "comm_div", 1e6, &t->comm_div);
    if (!st && !t->label) {
        char buf[32];
        snprintf(buf, sizeof buf, "train%d", idx);
        if (!(t->label = ar_strdup(buf))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    }
    return st;
}

static ar_status parse_train(sctx *c, const cJSON *root, ar_sweep *s) {
    const cJSON *j = sweep_field(root, "train");
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, "train");
    ar_status st = AR_OK;
    int n = 1;
    if (cJSON_IsArray(j)) st = sweep_need_array(c, j, &n);
    if (!st && n > 64) st = ar_jpath_fail(c, AR_EINVAL, "more than 64 training configurations");
    if (!st && !(s->train = ar_calloc((size_t)n, sizeof *s->train))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    if (!st) s->ntrain = n;
    for (int i = 0; !st && i < n; i++) {
        size_t o2 = cJSON_IsArray(j) ? ar_jpath_idx(c, i) : c->len;
        st = parse_train_one(c, cJSON_IsArray(j) ? cJSON_GetArrayItem(j, i) : j, &s->train[i], i);
        for (int k = 0; !st && k < i; k++)
            if (!strcmp(s->train[k].label, s->train[i].label))
                st = ar_jpath_fail(c, AR_EINVAL, "label \"%s\" is used twice", s->train[i].label);
        ar_jpath_pop(c, o2);
    }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status parse_sim(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"network", "gamma", "budget", "sync", NULL};
    const cJSON *j = sweep_field(root, "sim");
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, "sim");
    ar_status st = sweep_check_object(c, j, keys);
    if (!st) st = sweep_read_text(c, j, "network", 64, &s->sim_network);
    const cJSON *g = sweep_field(j, "gamma");
    if (!st && g) {
        size_t o2 = ar_jpath_key(c, "gamma");
        if (!cJSON_IsNumber(g) || !(g->valuedouble >= 0) || g->valuedouble > 1)
            st = ar_jpath_fail(c, AR_EINVAL, "must be seconds per byte in [0, 1]");
        else s->sim_gamma_s_per_B = g->valuedouble;
        ar_jpath_pop(c, o2);
    }
    if (!st) st = sweep_read_time(c, j, "budget", &s->sim_budget_s);
    const cJSON *y = sweep_field(j, "sync");
    if (!st && y) {
        size_t o2 = ar_jpath_key(c, "sync");
        ar_err ye = {{0}};
        if (!cJSON_IsString(y) || ar_sync_parse(y->valuestring, &s->sim_sync, &ye) != AR_OK)
            st = ar_jpath_fail(c, AR_EINVAL, "must be \"dataflow\" (default) or \"round\"");
        ar_jpath_pop(c, o2);
    }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status parse_real(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"csv", NULL};
    const cJSON *j = sweep_field(root, "real");
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, "real");
    ar_status st = sweep_check_object(c, j, keys);
    const cJSON *a = st ? NULL : sweep_field(j, "csv");
    if (a) {
        size_t o2 = ar_jpath_key(c, "csv");
        int n = 0;
        st = sweep_need_array(c, a, &n);
        if (!st && n > 256) st = ar_jpath_fail(c, AR_EINVAL, "more than 256 files");
        if (!st && !(s->real_csv = ar_calloc((size_t)n, sizeof *s->real_csv)))
            st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
        for (int i = 0; !st && i < n; i++) {
            size_t o3 = ar_jpath_idx(c, i);
            const cJSON *v = cJSON_GetArrayItem(a, i);
            st = sweep_check_text(c, v, 1000);
            if (!st && !(s->real_csv[i] = ar_strdup(v->valuestring))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
            if (!st) s->nreal_csv++;
            ar_jpath_pop(c, o3);
        }
        ar_jpath_pop(c, o2);
    }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status check_id(sctx *c, const char *s, const char *what) {
    char q[96];
    if (strlen(s) > AR_SWEEP_NAME_MAX) return ar_jpath_fail(c, AR_EINVAL, "longer than %d bytes", AR_SWEEP_NAME_MAX);
    if (s[0] == '.' || s[0] == '-') return ar_jpath_fail(c, AR_EINVAL, "%s may not start with '.' or '-'", what);
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.'))
            return ar_jpath_fail(c, AR_EINVAL, "%s: %s may use only letters, digits, '.', '_' and '-'",
                                 ar_quote(s, q, sizeof q), what);
    return AR_OK;
}

static ar_status parse_figures(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"id", "script", "title", "caption", NULL};
    const cJSON *arr = sweep_field(root, "figures");
    if (!arr) return AR_OK;
    size_t old = ar_jpath_key(c, "figures");
    int n = 0;
    ar_status st = sweep_need_array(c, arr, &n);
    if (!st && n > 64) st = ar_jpath_fail(c, AR_EINVAL, "more than 64 figures");
    if (!st && !(s->figures = ar_calloc((size_t)n, sizeof *s->figures)))
        st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    for (int i = 0; !st && i < n; i++) {
        const cJSON *j = cJSON_GetArrayItem(arr, i);
        sweep_figure *f = &s->figures[i];
        size_t o2 = ar_jpath_idx(c, i);
        s->nfigures++;
        st = sweep_check_object(c, j, keys);
        if (!st) st = sweep_read_text(c, j, "id", AR_SWEEP_NAME_MAX, &f->id);
        if (!st && !f->id) st = ar_jpath_fail(c, AR_EINVAL, "id: missing");
        if (!st) {
            size_t o3 = ar_jpath_key(c, "id");
            st = check_id(c, f->id, "an id");
            ar_jpath_pop(c, o3);
        }
        if (!st) st = sweep_read_text(c, j, "script", 256, &f->script);
        if (!st) st = sweep_read_text(c, j, "title", SWEEP_TEXT_MAX, &f->title);
        if (!st) st = sweep_read_text(c, j, "caption", SWEEP_TEXT_MAX, &f->caption);
        ar_jpath_pop(c, o2);
    }
    ar_jpath_pop(c, old);
    return st;
}

static ar_status parse_root(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"name",  "title",   "paper",    "description", "backend", "platforms",
                                       "ranks", "algos",   "sizes",    "dtype",       "train",   "sim",
                                       "real",  "figures", "baseline", "report",      NULL};
    if (!cJSON_IsObject(root))
        return ar_jpath_fail(c, AR_EINVAL, "the sweep must be a JSON object (got %s)", ar_json_type_name(root));
    ar_status st = ar_jpath_check_keys(c, root, keys);
    if (!st) st = sweep_read_text(c, root, "name", AR_SWEEP_NAME_MAX, &s->name);
    if (!st) {
        size_t old = ar_jpath_key(c, "name");
        st = s->name ? check_id(c, s->name, "a sweep name")
                     : ar_jpath_fail(c, AR_EINVAL, "missing (it names the output files)");
        ar_jpath_pop(c, old);
    }
    if (!st) st = sweep_read_text(c, root, "title", SWEEP_TEXT_MAX, &s->title);
    if (!st) st = sweep_read_text(c, root, "paper", SWEEP_TEXT_MAX, &s->paper);
    if (!st) st = sweep_read_text(c, root, "description", SWEEP_TEXT_MAX, &s->description);
    if (!st) st = parse_backends(c, root, s);
    const cJSON *d = sweep_field(root, "dtype");
    if (!st && d) {
        size_t old = ar_jpath_key(c, "dtype");
        st = sweep_check_text(c, d, 16);
        if (!st) st = ar_jpath_wrap(c, ar_dtype_parse(d->valuestring, &s->dtype, c->e));
        ar_jpath_pop(c, old);
    }
    if (!st) st = parse_platforms(c, root, s);
    const cJSON *r = sweep_field(root, "ranks");
    if (!st && r) {
        size_t old = ar_jpath_key(c, "ranks");
        st = parse_ranks(c, r, &s->ranks, &s->nranks);
        ar_jpath_pop(c, old);
    }
    if (!st) st = parse_algos(c, root, s);
    if (!st) st = parse_sizes(c, root, s);
    const cJSON *bl = sweep_field(root, "baseline");
    if (!st && bl) {
        size_t old = ar_jpath_key(c, "baseline");
        char q[96];
        st = sweep_check_text(c, bl, SWEEP_SPEC_MAX);
        for (int a = 0; !st && a < s->nalgos; a++)
            if (!strcmp(s->algos[a].spec, bl->valuestring)) s->baseline = a;
        if (!st && s->baseline < 0)
            st = ar_jpath_fail(c, AR_EINVAL, "%s is not one of the algos (give an entry of \"algos\" as written)",
                               ar_quote(bl->valuestring, q, sizeof q));
        ar_jpath_pop(c, old);
    }
    if (!st) st = parse_train(c, root, s);
    if (!st) st = parse_sim(c, root, s);
    if (!st) st = parse_real(c, root, s);
    if (!st) st = parse_figures(c, root, s);
    if (!st) st = sweep_parse_report(c, root, s);
    if (!st) {
        /* grid size, counting each platform's own rank list */
        double pts = 0;
        for (int i = 0; i < s->nplatforms; i++) {
            int nr = s->platforms[i].nranks ? s->platforms[i].nranks : s->nranks ? s->nranks : 1;
            pts += nr;
        }
        pts *= (double)s->nbackends * s->nalgos * s->nsizes * (s->ntrain ? s->ntrain : 1);
        if (pts > AR_SWEEP_MAX_POINTS)
            st = ar_jpath_fail(c, AR_EINVAL, "the grid has %.0f rows; the limit is %d", pts, AR_SWEEP_MAX_POINTS);
    }
    return st;
}

ar_status sweep_from_json(const char *text, const char *where, ar_sweep **out, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "sweep_from_json: no output");
    *out = NULL;
    sctx c;
    memset(&c, 0, sizeof c);
    c.where = where && *where ? where : "<sweep>";
    c.e = e;
    if (!text) return ar_jpath_fail(&c, AR_EINVAL, "no text");
    const char *endp = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &endp, 1);
    if (!root) {
        size_t off = endp && endp >= text ? (size_t)(endp - text) : 0;
        int line = 1;
        for (size_t i = 0; i < off && text[i]; i++)
            if (text[i] == '\n') line++;
        return ar_jpath_fail(&c, AR_EINVAL, "line %d: not valid JSON (near byte %zu)", line, off);
    }
    ar_sweep *s = ar_calloc(1, sizeof *s);
    if (!s) {
        cJSON_Delete(root);
        return ar_jpath_fail(&c, AR_ENOMEM, "out of memory");
    }
    s->dtype = AR_DTYPE_F32;
    s->baseline = -1;
    ar_status st = parse_root(&c, root, s);
    cJSON_Delete(root);
    if (st) {
        sweep_free(s);
        return st;
    }
    *out = s;
    return AR_OK;
}

void sweep_free(ar_sweep *s) {
    if (!s) return;
    AR_FREE_ALL(s->name, s->title, s->paper, s->description, s->report);
    for (int i = 0; s->platforms && i < s->nplatforms; i++) {
        free(s->platforms[i].spec);
        free(s->platforms[i].label);
        free(s->platforms[i].ranks);
        for (int k = 0; k < s->platforms[i].nexclude; k++) free(s->platforms[i].exclude[k]);
        AR_FREE_ALL(s->platforms[i].exclude, s->platforms[i].scenario, s->platforms[i].scen_set,
                    s->platforms[i].scen_value);
    }
    free(s->platforms);
    free(s->ranks);
    for (int i = 0; s->algos && i < s->nalgos; i++) {
        free(s->algos[i].spec);
        free(s->algos[i].label);
    }
    free(s->algos);
    for (int i = 0; i < s->nsizes; i++) free(s->sizes[i].text);
    free(s->sizes);
    for (int i = 0; i < s->ntrain; i++) free(s->train[i].label);
    free(s->train);
    free(s->sim_network);
    for (int i = 0; i < s->nreal_csv; i++) free(s->real_csv[i]);
    free(s->real_csv);
    for (int i = 0; i < s->nfigures; i++) {
        AR_FREE_ALL(s->figures[i].id, s->figures[i].script, s->figures[i].title, s->figures[i].caption);
    }
    free(s->figures);
    free(s);
}
