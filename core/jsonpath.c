/* JSON-path error reporting (jsonpath.h). */
#include "jsonpath.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t ar_jpath_key(ar_jpath *c, const char *key) {
    size_t old = c->len;
    int n = snprintf(c->path + c->len, sizeof c->path - c->len, "%s%s", c->len ? "." : "", key);
    if (n > 0) c->len = strlen(c->path);
    return old;
}

size_t ar_jpath_idx(ar_jpath *c, int i) {
    size_t old = c->len;
    int n = snprintf(c->path + c->len, sizeof c->path - c->len, "[%d]", i);
    if (n > 0) c->len = strlen(c->path);
    return old;
}

void ar_jpath_pop(ar_jpath *c, size_t old) {
    c->len = old;
    c->path[old] = '\0';
}

ar_status ar_jpath_wrap(ar_jpath *c, ar_status st) {
    if (!c->e || st == AR_OK) return st;
    if (c->len) ar_err_prefix(c->e, "%s", c->path);
    ar_err_prefix(c->e, "%s", c->where);
    return st;
}

ar_status ar_jpath_fail(ar_jpath *c, ar_status st, const char *fmt, ...) {
    if (!c->e) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->e->msg, sizeof c->e->msg, fmt, ap);
    va_end(ap);
    return ar_jpath_wrap(c, st);
}

const char *ar_json_type_name(const cJSON *j) {
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    return "invalid";
}

ar_status ar_jpath_check_keys(ar_jpath *c, const cJSON *obj, const char *const *allowed) {
    char q[96], list[300];
    for (const cJSON *k = obj->child; k; k = k->next) {
        const char *key = k->string ? k->string : "";
        if (key[0] == '_') continue;
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], key)) ok = 1;
        if (!ok) {
            list[0] = '\0';
            for (int i = 0; allowed[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, allowed[i], sizeof list - strlen(list) - 1);
            }
            return ar_jpath_fail(c, AR_EINVAL, "unknown key %s (expected %s)", ar_quote(key, q, sizeof q), list);
        }
        for (const cJSON *k2 = obj->child; k2 != k; k2 = k2->next)
            if (k2->string && !strcmp(k2->string, key))
                return ar_jpath_fail(c, AR_EINVAL, "key %s appears twice", ar_quote(key, q, sizeof q));
    }
    return AR_OK;
}
