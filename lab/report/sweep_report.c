/* The optional "report" object of a sweep file (sweep_json.h): the narrative
 * `arlab report` shows next to the computed numbers.
 *
 *   "report": {"claims": [{"what": T, "paper": T, "arlab": T, "why": T,
 *                          "choose": {"NAME": {"CASE": T, ...}, ...}}]}
 *
 * T is a template (lab/report/report_tmpl.h). A "choose" entry picks one text by the
 * case the report computes for NAME and makes it the value of {NAME}. Every
 * template's syntax is checked here; names are checked when the report is
 * built (they depend on the sweep's computations, lab/report/report_claims.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_tmpl.h"
#include "lab/sweep/sweep_json.h"
#include "lab/sweep/sweep_spec.h"

static ar_status check_tmpl(sctx *c, const cJSON *j) {
    ar_status st = sweep_check_text(c, j, SWEEP_TEXT_MAX);
    char why[200];
    if (!st && report_tmpl_check(j->valuestring, why, sizeof why)) st = ar_jpath_fail(c, AR_EINVAL, "%s", why);
    return st;
}

static ar_status check_field(sctx *c, const cJSON *obj, const char *key) {
    const cJSON *j = sweep_field(obj, key);
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(c, key);
    ar_status st = check_tmpl(c, j);
    ar_jpath_pop(c, old);
    return st;
}

static ar_status check_choose(sctx *c, const cJSON *ch) {
    if (!cJSON_IsObject(ch)) return ar_jpath_fail(c, AR_EINVAL, "must be an object (got %s)", ar_json_type_name(ch));
    ar_status st = AR_OK;
    const cJSON *k;
    cJSON_ArrayForEach(k, ch) {
        if (k->string[0] == '_') continue; /* a comment */
        size_t old = ar_jpath_key(c, k->string);
        if (!cJSON_IsObject(k))
            st = ar_jpath_fail(c, AR_EINVAL, "must be an object of texts (got %s)", ar_json_type_name(k));
        const cJSON *t;
        if (!st) {
            cJSON_ArrayForEach(t, k) {
                if (t->string[0] == '_') continue;
                size_t o2 = ar_jpath_key(c, t->string);
                st = check_tmpl(c, t);
                ar_jpath_pop(c, o2);
                if (st) break;
            }
        }
        ar_jpath_pop(c, old);
        if (st) break;
    }
    return st;
}

ar_status sweep_parse_report(sctx *c, const cJSON *root, ar_sweep *s) {
    static const char *const keys[] = {"claims", NULL};
    static const char *const ckeys[] = {"what", "paper", "arlab", "why", "choose", NULL};
    const cJSON *rep = sweep_field(root, "report");
    if (!rep) return AR_OK;
    size_t old = ar_jpath_key(c, "report");
    ar_status st = sweep_check_object(c, rep, keys);
    const cJSON *arr = st ? NULL : sweep_field(rep, "claims");
    if (arr) {
        size_t o2 = ar_jpath_key(c, "claims");
        int n = 0;
        st = sweep_need_array(c, arr, &n);
        if (!st && n > REPORT_MAX_CLAIMS) st = ar_jpath_fail(c, AR_EINVAL, "more than %d claims", REPORT_MAX_CLAIMS);
        for (int i = 0; !st && i < n; i++) {
            const cJSON *j = cJSON_GetArrayItem(arr, i);
            size_t o3 = ar_jpath_idx(c, i);
            st = sweep_check_object(c, j, ckeys);
            if (!st) st = check_field(c, j, "what");
            if (!st) st = check_field(c, j, "paper");
            if (!st) st = check_field(c, j, "arlab");
            if (!st) st = check_field(c, j, "why");
            const cJSON *ch = sweep_field(j, "choose");
            if (!st && ch) {
                size_t o4 = ar_jpath_key(c, "choose");
                st = check_choose(c, ch);
                ar_jpath_pop(c, o4);
            }
            ar_jpath_pop(c, o3);
        }
        ar_jpath_pop(c, o2);
    }
    if (!st && !(s->report = cJSON_PrintUnformatted(rep))) st = ar_jpath_fail(c, AR_ENOMEM, "out of memory");
    ar_jpath_pop(c, old);
    return st;
}
