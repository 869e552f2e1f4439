/* JSON field readers of the sweep grammar (sweep_json.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "sweep_json.h"
#include "sweep_spec.h"

const cJSON *sweep_field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* An object whose keys are all in keys (NULL-terminated). */
ar_status sweep_check_object(sctx *c, const cJSON *j, const char *const *keys) {
    if (!cJSON_IsObject(j)) return ar_jpath_fail(c, AR_EINVAL, "must be an object (got %s)", ar_json_type_name(j));
    return ar_jpath_check_keys(c, j, keys);
}

/* A string of 1..max bytes without control characters (the path names it). */
ar_status sweep_check_text(sctx *c, const cJSON *j, size_t max) {
    if (!cJSON_IsString(j) || !j->valuestring)
        return ar_jpath_fail(c, AR_EINVAL, "must be a string (got %s)", ar_json_type_name(j));
    if (!j->valuestring[0]) return ar_jpath_fail(c, AR_EINVAL, "must not be empty");
    if (strlen(j->valuestring) > max) return ar_jpath_fail(c, AR_EINVAL, "longer than %zu bytes", max);
    for (const unsigned char *s = (const unsigned char *)j->valuestring; *s; s++)
        if (*s < 0x20 || *s == 0x7f) return ar_jpath_fail(c, AR_EINVAL, "contains a control character");
    return AR_OK;
}

/* Optional string field: *out = copy or NULL. */
ar_status sweep_read_text(sctx *c, const cJSON *obj, const char *key, size_t max, char **out) {
    const cJSON *j = sweep_field(obj, key);
    *out = NULL;
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = sweep_check_text(c, j, max);
    if (st == AR_OK && !(*out = ar_strdup(j->valuestring))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    ar_jpath_pop(c, old);
    return st;
}

/* A JSON array of 1..AR_SWEEP_MAX_AXIS entries (path = the key). */
ar_status sweep_need_array(sctx *c, const cJSON *j, int *n) {
    if (!cJSON_IsArray(j)) return ar_jpath_fail(c, AR_EINVAL, "must be an array (got %s)", ar_json_type_name(j));
    int k = cJSON_GetArraySize(j);
    if (k < 1) return ar_jpath_fail(c, AR_EINVAL, "must not be empty");
    if (k > AR_SWEEP_MAX_AXIS) return ar_jpath_fail(c, AR_EINVAL, "more than %d entries", AR_SWEEP_MAX_AXIS);
    *n = k;
    return AR_OK;
}

/* A whole JSON number in [min, max]. */
ar_status sweep_read_int_value(sctx *c, const cJSON *j, long long min, long long max, long long *out) {
    if (!cJSON_IsNumber(j)) return ar_jpath_fail(c, AR_EINVAL, "must be an integer (got %s)", ar_json_type_name(j));
    double v = j->valuedouble;
    if (!isfinite(v) || v != floor(v) || v < (double)min || v > (double)max)
        return ar_jpath_fail(c, AR_EINVAL, "must be an integer in %lld..%lld (got %g)", min, max, v);
    *out = (long long)v;
    return AR_OK;
}

/* A positive finite number. */
ar_status sweep_read_pos_number(sctx *c, const cJSON *obj, const char *key, double max, double *out) {
    const cJSON *j = sweep_field(obj, key);
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = AR_OK;
    if (!cJSON_IsNumber(j)) st = ar_jpath_fail(c, AR_EINVAL, "must be a number (got %s)", ar_json_type_name(j));
    else if (!(j->valuedouble > 0) || !(j->valuedouble <= max))
        st = ar_jpath_fail(c, AR_EINVAL, "must be a number in (0, %g] (got %g)", max, j->valuedouble);
    else *out = j->valuedouble;
    ar_jpath_pop(c, old);
    return st;
}

/* A time: a string with a unit ("163ms") or a number of seconds. */
ar_status sweep_read_time(sctx *c, const cJSON *obj, const char *key, double *out) {
    const cJSON *j = sweep_field(obj, key);
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = AR_OK;
    if (cJSON_IsNumber(j)) {
        if (!isfinite(j->valuedouble) || j->valuedouble < 0 || j->valuedouble > 1e9)
            st = ar_jpath_fail(c, AR_EINVAL, "must be a time >= 0 in seconds (got %g)", j->valuedouble);
        else *out = j->valuedouble;
    } else if ((st = sweep_check_text(c, j, 64)) == AR_OK) {
        st = ar_jpath_wrap(c, ar_parse_time(j->valuestring, out, c->e));
    }
    ar_jpath_pop(c, old);
    return st;
}

ar_status sweep_read_bool(sctx *c, const cJSON *obj, const char *key, int *out) {
    const cJSON *j = sweep_field(obj, key);
    if (!j) return AR_OK;
    if (!cJSON_IsBool(j)) {
        size_t old = ar_jpath_key(c, key);
        ar_status st = ar_jpath_fail(c, AR_EINVAL, "must be true or false (got %s)", ar_json_type_name(j));
        ar_jpath_pop(c, old);
        return st;
    }
    *out = cJSON_IsTrue(j) ? 1 : 0;
    return AR_OK;
}
