/* Algorithm parameter parsing (params.h). */
#include "params.h"

#include <errno.h>
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

static int lookup(ar_params *p, const char *key) {
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->key[i], key) == 0) {
            p->used[i] = 1;
            return i;
        }
    return -1;
}

ar_status ar_params_get_int(ar_params *p, const char *key, long long min, long long max, long long *out, ar_err *e) {
    int i = lookup(p, key);
    if (i < 0) return AR_OK;
    char *end;
    errno = 0;
    long long v = strtoll(p->val[i], &end, 10);
    if (errno || *end || end == p->val[i] || v < min || v > max)
        return ar_fail(e, AR_EINVAL, "%s: %s=%s: expected an integer in %lld..%lld", p->name, key, p->val[i], min, max);
    *out = v;
    return AR_OK;
}

ar_status ar_params_get_str(ar_params *p, const char *key, const char **out) {
    int i = lookup(p, key);
    if (i >= 0) *out = p->val[i];
    return AR_OK;
}

ar_status ar_params_check_used(const ar_params *p, ar_err *e) {
    for (int i = 0; i < p->n; i++)
        if (!p->used[i]) return ar_fail(e, AR_EINVAL, "%s: unknown parameter \"%s\"", p->name, p->key[i]);
    return AR_OK;
}
