/* Renders a sweep's "report" claims (report.h) from their templates
 * (report_tmpl.h) and the values lab/report/report_claims.c computes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "report_tmpl.h"

#define CHOOSE_MAX 8

static ar_status field(const char *file, int i, const cJSON *cl, const char *key, const report_val *vals, int nv,
                       char *out, size_t cap, ar_err *e) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(cl, key);
    char where[600];
    out[0] = 0;
    if (!j) return AR_OK;
    snprintf(where, sizeof where, "%s: report.claims[%d].%s", file, i, key);
    if (!cJSON_IsString(j)) return ar_fail(e, AR_EINVAL, "%s: must be a string", where);
    return report_tmpl_expand(j->valuestring, vals, nv, out, cap, where, e);
}

static ar_status one_claim(const char *file, int i, const cJSON *cl, const report_vals *v, report_claim *c, ar_err *e) {
    report_val vals[REPORT_MAX_VALS];
    char chosen[CHOOSE_MAX][900];
    int nv = v->n, nch = 0;
    for (int k = 0; k < nv; k++) {
        vals[k].name = v->name[k];
        vals[k].num = v->num[k];
        vals[k].str = v->is_str[k] ? v->str[k] : NULL;
    }
    char where[600];
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(cl, "choose"), *o;
    cJSON_ArrayForEach(o, ch) {
        if (o->string[0] == '_') continue; /* a comment */
        snprintf(where, sizeof where, "%s: report.claims[%d].choose.%s", file, i, o->string);
        int idx = -1;
        for (int k = 0; k < nv && idx < 0; k++)
            if (!strcmp(vals[k].name, o->string)) idx = k;
        if (idx < 0 || !vals[idx].str)
            return ar_fail(e, AR_EINVAL, "%s: the report computes no case named %s", where, o->string);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, vals[idx].str);
        if (!cJSON_IsString(t)) return ar_fail(e, AR_EINVAL, "%s: no text for the case \"%s\"", where, vals[idx].str);
        if (nch >= CHOOSE_MAX) return ar_fail(e, AR_EINVAL, "%s: more than %d choices", where, CHOOSE_MAX);
        snprintf(where, sizeof where, "%s: report.claims[%d].choose.%s.%s", file, i, o->string, vals[idx].str);
        ar_status st = report_tmpl_expand(t->valuestring, vals, nv, chosen[nch], sizeof chosen[0], where, e);
        if (st) return st;
        vals[idx].str = chosen[nch++];
    }
    ar_status st = field(file, i, cl, "what", vals, nv, c->what, sizeof c->what, e);
    if (!st) st = field(file, i, cl, "paper", vals, nv, c->paper, sizeof c->paper, e);
    if (!st) st = field(file, i, cl, "arlab", vals, nv, c->arlab, sizeof c->arlab, e);
    if (!st) st = field(file, i, cl, "why", vals, nv, c->why, sizeof c->why, e);
    if (!st && (strstr(c->arlab, "nan") || strstr(c->arlab, "inf")))
        snprintf(c->arlab, sizeof c->arlab, "n/a (rows missing)");
    return st;
}

ar_status report_claims_render(const char *file, const struct cJSON *root, const report_vals *v, report_claim *out,
                               int max, int *n, ar_err *e) {
    *n = 0;
    if (!cJSON_IsObject(root)) return ar_fail(e, AR_EINVAL, "%s: report: must be an object", file);
    const cJSON *claims = cJSON_GetObjectItemCaseSensitive(root, "claims"), *cl;
    ar_status st = AR_OK;
    int i = 0;
    cJSON_ArrayForEach(cl, claims) {
        if (i >= max) {
            st = ar_fail(e, AR_EINVAL, "%s: report.claims: more than %d claims", file, max);
            break;
        }
        memset(&out[i], 0, sizeof out[i]);
        if (!cJSON_IsObject(cl)) st = ar_fail(e, AR_EINVAL, "%s: report.claims[%d]: must be an object", file, i);
        else st = one_claim(file, i, cl, v, &out[i], e);
        if (st) break;
        i++;
    }
    *n = st ? 0 : i;
    return st;
}
