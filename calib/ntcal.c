/* See ntcal.h. */
#include "calib/ntcal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/units.h"
#include "core/util.h"

/* Scales every bw/child_bw and lat/child_lat under node (the "reference" and "notes" arrays are left alone). */
static ar_status scale(cJSON *node, double fl, double fb, const char *file, ar_err *e) {
    for (cJSON *c = node ? node->child : NULL; c; c = c->next) {
        const char *k = c->string;
        if (k && (!strcmp(k, "reference") || !strcmp(k, "notes"))) continue;
        int is_bw = k && (!strcmp(k, "bw") || !strcmp(k, "child_bw"));
        int is_lat = k && (!strcmp(k, "lat") || !strcmp(k, "child_lat"));
        if (is_bw || is_lat) {
            double v;
            if (cJSON_IsNumber(c)) v = c->valuedouble;
            else if (cJSON_IsString(c)) {
                ar_status st = is_bw ? ar_parse_rate(c->valuestring, &v, e) : ar_parse_time(c->valuestring, &v, e);
                if (st) return ar_fail(e, st, "%s: \"%s\": %s", file, k, e->msg);
            } else {
                return ar_fail(e, AR_EINVAL, "%s: \"%s\" is neither a number nor a string", file, k);
            }
            /* in place: the item keeps its key */
            if (cJSON_IsString(c)) {
                cJSON_free(c->valuestring);
                c->valuestring = NULL;
                c->type = cJSON_Number;
            }
            cJSON_SetNumberValue(c, v * (is_bw ? fb : fl));
            continue;
        }
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            ar_status st = scale(c, fl, fb, file, e);
            if (st) return st;
        }
    }
    return AR_OK;
}

int ar_ntcal_rail_base(const ar_platform *p, char *name, size_t n, int *nodes) {
    const char *src = p && p->source ? p->source : "";
    if (strncmp(src, "generated:", 10)) return 0;
    src += 10;
    const char *colon = strchr(src, ':');
    if (!colon || colon == src || (size_t)(colon - src) >= n || strncmp(colon, ":nodes=", 7)) return 0;
    char *end;
    long v = strtol(colon + 7, &end, 10);
    if (*end || v < 1 || end == colon + 7) return 0;
    char path[4096];
    if (!ar_platform_preset_path(src, (size_t)(colon - src), path, sizeof path)) return 0;
    snprintf(name, n, "%.*s", (int)(colon - src), src);
    if (nodes) *nodes = (int)v;
    return 1;
}

/* obj[key] *= f (a number; absent = 1), as a plain number. */
static int mul_num(cJSON *obj, const char *key, double f) {
    cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    double v = cJSON_IsNumber(j) ? j->valuedouble * f : f;
    if (j) cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static cJSON *object_in(cJSON *obj, const char *key) {
    cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsObject(j)) return j;
    if (j) cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddObjectToObject(obj, key);
}

static ar_status add_calibration(cJSON *doc, const ar_ntcal_in *in, ar_err *e) {
    for (int c = 0; c < 2; c++)
        if (!(in->cal_lat[c] > 0) || !(in->cal_bw[c] > 0) || !isfinite(in->cal_lat[c]) || !isfinite(in->cal_bw[c]))
            return ar_fail(e, AR_EINVAL, "calibration: %s factors must be finite and > 0 (latency %g, bandwidth %g)",
                           c ? "inter-node" : "intra-node", in->cal_lat[c], in->cal_bw[c]);
    cJSON *cal = object_in(doc, "calibration");
    int ok = cal != NULL;
    for (int c = 0; ok && c < 2; c++) {
        cJSON *o = object_in(cal, c ? "inter" : "intra");
        static const char *const swk[2] = {"nvls", "collnet"};
        double old_bw = 1;
        cJSON *jb = o ? cJSON_GetObjectItemCaseSensitive(o, "bw") : NULL;
        if (cJSON_IsNumber(jb)) old_bw = jb->valuedouble;
        for (int k = 0; o && ok && k < 2; k++) {
            if (!in->have_sw[c][k]) continue;
            if (!(in->cal_sw[c][k] > 0) || !isfinite(in->cal_sw[c][k]))
                return ar_fail(e, AR_EINVAL, "calibration: %s %s factor must be finite and > 0 (got %g)",
                               c ? "inter-node" : "intra-node", swk[k], in->cal_sw[c][k]);
            /* absent: the class's bw before this calibration applied to the switch too */
            cJSON *js = cJSON_GetObjectItemCaseSensitive(o, swk[k]);
            ok = mul_num(o, swk[k], (cJSON_IsNumber(js) ? 1 : old_bw) * in->cal_sw[c][k]);
        }
        ok = ok && o && mul_num(o, "lat", in->cal_lat[c]) && mul_num(o, "bw", in->cal_bw[c]);
    }
    if (ok && in->base && !cJSON_GetObjectItemCaseSensitive(cal, "base"))
        ok = cJSON_AddStringToObject(cal, "base", in->base) != NULL;
    if (ok && in->neff > 0) {
        cJSON *n = object_in(doc, "nccl"), *eff = n ? object_in(n, "efficiency") : NULL;
        ok = eff != NULL;
        for (int i = 0; ok && i < in->neff; i++) {
            if (!(in->eff[i] > 0) || !isfinite(in->eff[i]))
                return ar_fail(e, AR_EINVAL, "calibration: efficiency %s must be finite and > 0 (got %g)",
                               in->eff_key[i], in->eff[i]);
            ok = mul_num(eff, in->eff_key[i], in->eff[i]);
        }
    }
    if (ok && in->have_msg) {
        if (!(in->msg_o >= 0) || !(in->msg_g >= 0) || !isfinite(in->msg_o) || !isfinite(in->msg_g))
            return ar_fail(e, AR_EINVAL, "calibration: per-message o and g must be finite and >= 0 (got %g, %g)",
                           in->msg_o, in->msg_g);
        cJSON *cp = object_in(doc, "compute"), *msg = cp ? object_in(cp, "message") : NULL;
        ok = msg != NULL;
        for (int k = 0; ok && k < 2; k++) {
            const char *key = k ? "g" : "o";
            cJSON_DeleteItemFromObjectCaseSensitive(msg, key);
            ok = cJSON_AddNumberToObject(msg, key, k ? in->msg_g : in->msg_o) != NULL;
        }
    }
    return ok ? AR_OK : ar_fail(e, AR_ENOMEM, "out of memory");
}

ar_status ar_ntcal_platform_json(const ar_platform *p, const ar_ntcal_in *in, char **json, ar_err *e) {
    *json = NULL;
    if (!(in->lat_scale >= 0) || !isfinite(in->lat_scale) || !(in->bw_scale > 0) || !isfinite(in->bw_scale))
        return ar_fail(e, AR_EINVAL, "calibration: scales must be finite (latency %g >= 0, bandwidth %g > 0)",
                       in->lat_scale, in->bw_scale);
    const char *src = p->source ? p->source : "";
    char path[4096];
    char base[256];
    if (!strncmp(src, "preset:", 7)) {
        if (!ar_platform_preset_path(src + 7, strlen(src + 7), path, sizeof path))
            return ar_fail(e, AR_EIO, "calibration: the file of preset %s is gone", src + 7);
    } else if (in->calibrated && ar_ntcal_rail_base(p, base, sizeof base, NULL)) {
        /* PRESET:nodes=N (h14g): the preset's file with the block; CAL.json:nodes=N rebuilds the fabric */
        if (!ar_platform_preset_path(base, strlen(base), path, sizeof path))
            return ar_fail(e, AR_EIO, "calibration: the file of preset %s is gone", base);
    } else if (strchr(src, ':') && !strchr(src, '/'))
        return ar_fail(e, AR_EUNSUPPORTED,
                       "calibration: %s is generated (%s); calibrate a preset or a platform JSON file", p->name, src);
    else snprintf(path, sizeof path, "%s", src);
    char *text = NULL;
    ar_status st = ar_read_file(path, (size_t)256 << 20, &text, NULL, e);
    if (st) return st;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return ar_fail(e, AR_EINVAL, "%s: not a JSON object", path);
    }
    st = scale(doc, in->lat_scale, in->bw_scale, path, e);
    if (!st && in->calibrated) st = add_calibration(doc, in, e);
    cJSON *name = cJSON_CreateString(in->name ? in->name : "calibrated");
    if (!st && (!name || !cJSON_ReplaceItemInObject(doc, "name", name))) {
        cJSON_Delete(name);
        st = ar_fail(e, AR_ENOMEM, "out of memory");
    } else if (st) cJSON_Delete(name);
    cJSON *notes = cJSON_GetObjectItem(doc, "notes");
    if (!st && !notes) {
        notes = cJSON_AddArrayToObject(doc, "notes");
        if (!notes) st = ar_fail(e, AR_ENOMEM, "out of memory");
    }
    for (int i = 0; !st && i < in->nnotes; i++)
        if (!cJSON_AddItemToArray(notes, cJSON_CreateString(in->notes[i]))) st = ar_fail(e, AR_ENOMEM, "out of memory");
    char *out = st ? NULL : cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!st && !out) st = ar_fail(e, AR_ENOMEM, "out of memory");
    if (!st) {
        ar_platform *chk = NULL;
        st = ar_platform_from_json(out, in->name ? in->name : "calibrated", &chk, e);
        ar_platform_free(chk);
    }
    if (st) {
        free(out);
        return st;
    }
    *json = out;
    return AR_OK;
}
