/* Algorithm parameter parsing and checking against a parameter table (params.h). */
#include "params.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ar_status ar_params_parse(const char *text, ar_params *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    if (!text || !*text) return ar_fail(e, AR_EINVAL, "empty algorithm name");
    const char *colon = strchr(text, ':');
    size_t nlen = colon ? (size_t)(colon - text) : strlen(text);
    if (nlen == 0) return ar_fail(e, AR_EINVAL, "\"%s\": missing algorithm name before ':'", text);
    out->name = strndup(text, nlen);
    if (!out->name) return ar_fail(e, AR_ENOMEM, "out of memory");
    if (!colon) return AR_OK;
    const char *p = colon + 1;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq == p + len - 1) {
            ar_status st = ar_fail(e, AR_EINVAL, "\"%s\": parameter \"%.*s\" is not key=value", text, (int)len, p);
            ar_params_free(out);
            return st;
        }
        if (out->n == AR_MAX_PARAMS) {
            ar_params_free(out);
            return ar_fail(e, AR_EINVAL, "\"%s\": more than %d parameters", text, AR_MAX_PARAMS);
        }
        for (int i = 0; i < out->n; i++)
            if (strlen(out->key[i]) == (size_t)(eq - p) && strncmp(out->key[i], p, (size_t)(eq - p)) == 0) {
                ar_status st = ar_fail(e, AR_EINVAL, "\"%s\": parameter \"%s\" given twice", text, out->key[i]);
                ar_params_free(out);
                return st;
            }
        out->key[out->n] = strndup(p, (size_t)(eq - p));
        out->val[out->n] = strndup(eq + 1, (size_t)(p + len - eq - 1));
        out->n++;
        if (!out->key[out->n - 1] || !out->val[out->n - 1]) {
            ar_params_free(out);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
        if (!end) break;
        p = end + 1;
        if (!*p) {
            ar_params_free(out);
            return ar_fail(e, AR_EINVAL, "\"%s\": trailing ','", text);
        }
    }
    return AR_OK;
}

void ar_params_free(ar_params *p) {
    free(p->name);
    for (int i = 0; i < p->n; i++) {
        free(p->key[i]);
        free(p->val[i]);
    }
    memset(p, 0, sizeof *p);
}

int ar_param_count(const ar_param_def *defs) {
    int n = 0;
    while (defs && defs[n].key) n++;
    return n;
}

/* Index of word [w, w+len) in the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *w, size_t len) {
    int i = 0;
    for (const char *c = choices; c && *c; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == len && strncmp(c, w, len) == 0) return i;
        if (!bar) break;
        c = bar + 1;
    }
    return -1;
}

/* "ring, hd or auto" from "ring|hd|auto". */
static char *choices_text(const char *choices, char *buf, size_t n) {
    size_t u = 0;
    buf[0] = '\0';
    int k = 0, total = 1;
    for (const char *c = choices; *c; c++) total += *c == '|';
    for (const char *c = choices; *c && u + 1 < n; k++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        int w = snprintf(buf + u, n - u, "%s%.*s", k == 0 ? "" : k == total - 1 ? " or " : ", ", (int)cl, c);
        u = w < 0 ? n : u + (size_t)w;
        if (!bar) break;
        c = bar + 1;
    }
    return buf;
}

/* The word of choices at index i into buf. */
static void choice_word(const char *choices, long long i, char *buf, size_t n) {
    const char *c = choices;
    for (long long k = 0; k < i && c; k++) {
        c = strchr(c, '|');
        if (c) c++;
    }
    if (!c) {
        buf[0] = '\0';
        return;
    }
    const char *bar = strchr(c, '|');
    snprintf(buf, n, "%.*s", (int)(bar ? (size_t)(bar - c) : strlen(c)), c);
}

static ar_status bind_one(const char *name, const ar_param_def *d, const char *val, int nranks, ar_param_val *v,
                          ar_err *e) {
    char words[256];
    long long max = d->max_is_ranks ? nranks : d->max;
    switch (d->type) {
    case AR_PARAM_INT: {
        char *end;
        errno = 0;
        long long x = strtoll(val, &end, 10);
        if (errno || *end || end == val || x < d->min || x > max)
            return ar_fail(e, AR_EINVAL, "%s: %s=%s: expected an integer in %lld..%lld", name, d->key, val, d->min,
                           max);
        v->i = x;
        break;
    }
    case AR_PARAM_ENUM: {
        int i = choice_index(d->choices, val, strlen(val));
        if (i < 0)
            return ar_fail(e, AR_EINVAL, "%s: %s=%s: expected %s", name, d->key, val,
                           choices_text(d->choices, words, sizeof words));
        v->i = i;
        break;
    }
    case AR_PARAM_LIST: {
        int items = 0;
        for (const char *t = val;; items++) {
            const char *s = strchr(t, d->sep);
            size_t len = s ? (size_t)(s - t) : strlen(t);
            int ok = len > 0;
            if (d->choices) ok = choice_index(d->choices, t, len) >= 0;
            else
                for (size_t k = 0; k < len; k++) ok &= t[k] >= '0' && t[k] <= '9';
            if (!ok) {
                if (d->choices) choices_text(d->choices, words, sizeof words);
                return ar_fail(e, AR_EINVAL, "%s: %s=%s: \"%.*s\" is not %s%s (write e.g. %s=%s)", name, d->key, val,
                               (int)(len > 16 ? 16 : len), t, d->choices ? "" : "an integer", d->choices ? words : "",
                               d->key, d->example ? d->example : "");
            }
            if (!s) break;
            t = s + 1;
        }
        v->i = items + 1;
        break;
    }
    case AR_PARAM_STR:
        if (!*val)
            return ar_fail(e, AR_EINVAL, "%s: %s=: give a value (e.g. %s=%s)", name, d->key, d->key,
                           d->example ? d->example : "...");
        break;
    }
    if (strlen(val) >= sizeof v->s)
        return ar_fail(e, AR_ELIMIT, "%s: %s=%.32s...: value longer than %d characters", name, d->key, val,
                       AR_PARAM_TEXT - 1);
    snprintf(v->s, sizeof v->s, "%s", val);
    v->given = 1;
    return AR_OK;
}

ar_status ar_params_bind(const ar_params *p, const ar_param_def *defs, int nranks, ar_param_val *vals, ar_err *e) {
    int nd = ar_param_count(defs);
    const char *name = p->name ? p->name : "?";
    if (nd > AR_MAX_PARAMS)
        return ar_fail(e, AR_EINTERNAL, "%s: parameter table has %d entries (max %d)", name, nd, AR_MAX_PARAMS);
    for (int i = 0; i < nd; i++) {
        ar_param_val *v = &vals[i];
        memset(v, 0, sizeof *v);
        v->i = defs[i].def;
        if (defs[i].type == AR_PARAM_INT && defs[i].max_is_ranks && defs[i].def <= 0)
            v->i = nranks; /* a default of "P" */
        if (defs[i].type == AR_PARAM_ENUM) choice_word(defs[i].choices, defs[i].def, v->s, sizeof v->s);
        if (defs[i].type == AR_PARAM_LIST) v->i = 0;
    }
    for (int k = 0; k < p->n; k++) {
        int i = 0;
        while (i < nd && strcmp(defs[i].key, p->key[k])) i++;
        if (i == nd) {
            char valid[256];
            size_t u = 0;
            valid[0] = '\0';
            for (int j = 0; j < nd && u < sizeof valid; j++) {
                int w = snprintf(valid + u, sizeof valid - u, "%s%s", j ? ", " : "", defs[j].key);
                u = w < 0 ? sizeof valid : u + (size_t)w;
            }
            const char *keys[AR_MAX_PARAMS];
            int nk = nd < AR_MAX_PARAMS ? nd : AR_MAX_PARAMS;
            for (int j = 0; j < nk; j++) keys[j] = defs[j].key;
            const char *near = ar_closest(p->key[k], keys, nk);
            if (near)
                return ar_fail(e, AR_EINVAL, "%s: unknown parameter \"%s\": did you mean \"%s\"? (valid: %s)", name,
                               p->key[k], near, valid);
            return nd ? ar_fail(e, AR_EINVAL, "%s: unknown parameter \"%s\" (valid: %s)", name, p->key[k], valid)
                      : ar_fail(e, AR_EINVAL, "%s: unknown parameter \"%s\" (it takes none)", name, p->key[k]);
        }
        ar_status st = bind_one(name, &defs[i], p->val[k], nranks, &vals[i], e);
        if (st != AR_OK) return st;
    }
    return AR_OK;
}

char *ar_param_type_str(const ar_param_def *d, char *buf, size_t n) {
    switch (d->type) {
    case AR_PARAM_INT:
        if (d->max_is_ranks) snprintf(buf, n, "int %lld..P", d->min);
        else snprintf(buf, n, "int %lld..%lld", d->min, d->max);
        break;
    case AR_PARAM_ENUM: snprintf(buf, n, "%s", d->choices); break;
    case AR_PARAM_LIST:
        if (d->choices) snprintf(buf, n, "list of %s, '%c'-separated", d->choices, d->sep);
        else snprintf(buf, n, "list of int, '%c'-separated", d->sep);
        break;
    case AR_PARAM_STR: snprintf(buf, n, "text"); break;
    }
    return buf;
}

char *ar_param_default_str(const ar_param_def *d, char *buf, size_t n) {
    if (d->def_text) snprintf(buf, n, "%s", d->def_text);
    else if (d->type == AR_PARAM_ENUM) choice_word(d->choices, d->def, buf, n);
    else if (d->type == AR_PARAM_INT) snprintf(buf, n, "%lld", d->def);
    else snprintf(buf, n, "-");
    return buf;
}
