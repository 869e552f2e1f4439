/* nccl-tests' -J JSON reports, file versions 1 to 3 (nccltests_in.h). */
#include "nccltests_in.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/util.h"
#include "nccltests_int.h"

/* ------------------------------------------------------------------ JSON */

typedef struct jctx {
    const char *name;
    char path[96];
} jctx;

static ar_status jfail(const jctx *j, const char *field, const char *what, ar_err *e) {
    return ar_fail(e, AR_EINVAL, "%s: %s%s%s: %s", j->name, j->path, j->path[0] && field[0] ? "." : "", field, what);
}

/* A number, or the string "nan" nccl-tests writes for NaN. */
static int jnum(const cJSON *x, double *v) {
    if (cJSON_IsNumber(x)) {
        *v = x->valuedouble;
        return 1;
    }
    if (cJSON_IsString(x) && x->valuestring) {
        char b[32];
        nt_env_value(x->valuestring, b, sizeof b);
        return nt_tok_double(b, v);
    }
    return 0;
}

static int ju64(const cJSON *x, uint64_t *v) {
    if (!cJSON_IsNumber(x)) return 0;
    double d = x->valuedouble;
    if (!(d >= 0) || d >= 18446744073709551616.0 || d != floor(d)) return 0;
    *v = (uint64_t)d;
    return 1;
}

static int jint(const cJSON *x, long lo, long hi, long *v) {
    if (!cJSON_IsNumber(x)) return 0;
    double d = x->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d)) return 0;
    *v = (long)d;
    return 1;
}

static ar_status jhalf(const jctx *j, const cJSON *o, ar_nt_timing *h, int *flags, int ip, ar_err *e) {
    if (!o || cJSON_IsNull(o)) return AR_OK;
    if (!cJSON_IsObject(o)) return jfail(j, ip ? "in_place" : "out_of_place", "is not an object", e);
    const char *tn = cJSON_GetObjectItemCaseSensitive(o, "cpu_time") ? "cpu_time" : "time";
    const char *names[3] = {tn, "alg_bw", "bus_bw"};
    double *dst[3] = {&h->time_us, &h->algbw_GBps, &h->busbw_GBps};
    char f[48];
    for (int i = 0; i < 3; i++) {
        snprintf(f, sizeof f, "%s.%s", ip ? "in_place" : "out_of_place", names[i]);
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, names[i]);
        if (!x) return jfail(j, f, "missing", e);
        if (!jnum(x, dst[i])) return jfail(j, f, "is not a number", e);
        if (*dst[i] < 0) return jfail(j, f, "is negative", e);
        if (!isfinite(*dst[i])) *flags |= AR_NT_NAN;
    }
    snprintf(f, sizeof f, "%s.nwrong", ip ? "in_place" : "out_of_place");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "nwrong");
    h->nwrong = -1;
    if (w && !cJSON_IsNull(w)) {
        if (!jnum(w, &h->nwrong) || isnan(h->nwrong)) return jfail(j, f, "is not a number", e);
        if (h->nwrong < 0) return jfail(j, f, "is negative", e);
        if (h->nwrong > 0) *flags |= ip ? AR_NT_WRONG_IP : AR_NT_WRONG_OOP;
    }
    h->present = 1;
    return AR_OK;
}

static const char *jstr(const cJSON *o, const char *k) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) && x->valuestring ? x->valuestring : NULL;
}

/* 1 when text ends inside a string or with an object or list still open: the
 * file was cut (nccl-tests closes its document even after errors). */
static int json_unclosed(const char *text, size_t len) {
    long depth = 0;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return in_str || depth > 0;
}

ar_status nt_parse_json(ar_nt_set *s, int file, const char *name, const char *text, size_t len, const ar_nt_opts *o,
                        ar_err *e) {
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!doc) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        int line = 1;
        for (size_t i = 0; i < at && i < len; i++) line += text[i] == '\n';
        if (json_unclosed(text, len))
            return ar_fail(e, AR_EINVAL, "%s:%d: truncated: the JSON ends before its closing brace", name, line);
        return ar_fail(e, AR_EINVAL, "%s:%d: not valid JSON near byte %zu", name, line, at);
    }
    jctx j = {name, ""};
    ar_status st = AR_OK;
    int run = -1;
    if (!cJSON_IsObject(doc)) {
        st = jfail(&j, "", "not a JSON object (an nccl-tests -J report is one)", e);
        goto done;
    }
    if ((st = nt_add_run(s, file, 1, o, &run, e))) goto done;
    ar_nt_run *r = &s->runs[run];
    r->format_json = 1;
    long v;
    double d;
    const cJSON *x;
    /* program and collective */
    x = cJSON_GetObjectItemCaseSensitive(doc, "args");
    if (cJSON_IsArray(x) && cJSON_IsString(cJSON_GetArrayItem(x, 0))) {
        const char *a0 = cJSON_GetArrayItem(x, 0)->valuestring;
        const char *base = strrchr(a0, '/');
        base = base ? base + 1 : a0;
        nt_copy_str(r->program, sizeof r->program, base, strlen(base));
        ar_nt_coll c = ar_nt_coll_parse(base);
        if (c != AR_NT_COLL_UNKNOWN) {
            if (o && o->coll && !o->coll_soft && o->coll != c) {
                char q[96];
                st = ar_fail(e, AR_EINVAL, "%s: args[0]: the file runs %s but %s was asked for", name,
                             ar_quote(base, q, sizeof q), ar_nt_coll_name(o->coll));
                goto done;
            }
            r->coll = c;
        }
    }
    x = cJSON_GetObjectItemCaseSensitive(doc, "env");
    if (cJSON_IsArray(x)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, x) if (cJSON_IsString(it) && it->valuestring) nt_env_line(r, it->valuestring);
    }
    x = cJSON_GetObjectItemCaseSensitive(doc, "nccl_version");
    if (x && jint(x, 1, 1L << 30, &v)) nt_version_from_code(v, r->nccl_version, sizeof r->nccl_version);
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    if (cJSON_IsObject(cfg)) {
        uint64_t u;
        if (jint(cJSON_GetObjectItemCaseSensitive(cfg, "nthreads"), 0, 1 << 20, &v)) r->nthreads = (int)v;
        if (jint(cJSON_GetObjectItemCaseSensitive(cfg, "ngpus"), 0, 1 << 20, &v)) r->ngpus = (int)v;
        if (ju64(cJSON_GetObjectItemCaseSensitive(cfg, "minimum_bytes"), &u)) r->min_bytes = u;
        if (ju64(cJSON_GetObjectItemCaseSensitive(cfg, "maximum_bytes"), &u)) r->max_bytes = u;
        if (jint(cJSON_GetObjectItemCaseSensitive(cfg, "warmup_iters"), 0, 1L << 30, &v)) r->warmup_iters = (int)v;
        if (jint(cJSON_GetObjectItemCaseSensitive(cfg, "iterations"), 0, 1L << 30, &v)) r->iters = (int)v;
        if (jint(cJSON_GetObjectItemCaseSensitive(cfg, "validation"), 0, 1 << 20, &v)) r->validation = (int)v;
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(cfg, "devices");
        size_t dcap = 0;
        int i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, devs) {
            snprintf(j.path, sizeof j.path, "config.devices[%d]", i++);
            if (!cJSON_IsObject(it)) {
                st = jfail(&j, "", "is not an object", e);
                goto done;
            }
            ar_nt_device dv;
            memset(&dv, 0, sizeof dv);
            if (!jint(cJSON_GetObjectItemCaseSensitive(it, "rank"), 0, 1 << 24, &v)) {
                st = jfail(&j, "rank", "missing or not a rank", e);
                goto done;
            }
            dv.rank = (int)v;
            dv.group = jint(cJSON_GetObjectItemCaseSensitive(it, "group"), -1, 1 << 24, &v) ? (int)v : -1;
            if (jint(cJSON_GetObjectItemCaseSensitive(it, "pid"), 0, 1L << 30, &v)) dv.pid = (int)v;
            if (jint(cJSON_GetObjectItemCaseSensitive(it, "device"), 0, 1 << 20, &v)) dv.device = (int)v;
            const char *sv;
            if ((sv = jstr(it, "hostname"))) nt_copy_str(dv.host, sizeof dv.host, sv, strlen(sv));
            if ((sv = jstr(it, "device_hex"))) nt_copy_str(dv.bus, sizeof dv.bus, sv, strlen(sv));
            if ((sv = jstr(it, "device_info"))) nt_copy_str(dv.name, sizeof dv.name, sv, strlen(sv));
            if ((st = nt_add_device(s, &s->runs[run], &dv, &dcap, e))) goto done;
            r = &s->runs[run];
        }
        j.path[0] = 0;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "results");
    if (!res) {
        st = ar_fail(e, AR_EINVAL, "%s: truncated: no \"results\" (the run ended before its table)", name);
        goto done;
    }
    if (!cJSON_IsArray(res)) {
        st = jfail(&j, "results", "is not a list", e);
        goto done;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, res) {
        snprintf(j.path, sizeof j.path, "results[%d]", i);
        if (!cJSON_IsObject(it)) {
            st = jfail(&j, "", "is not an object", e);
            goto done;
        }
        ar_nt_record *rec = nt_add_rec(s);
        if (!rec) {
            st = ar_fail(e, AR_ENOMEM, "%s: out of memory", name);
            goto done;
        }
        rec->file = file;
        rec->run = run;
        rec->index = i++;
        rec->root = -1;
        if (!ju64(cJSON_GetObjectItemCaseSensitive(it, "size"), &rec->size_bytes)) {
            st = jfail(&j, "size", "missing or not a byte count", e);
            goto done;
        }
        if (!ju64(cJSON_GetObjectItemCaseSensitive(it, "count"), &rec->count)) {
            st = jfail(&j, "count", "missing or not an element count", e);
            goto done;
        }
        const char *sv;
        if ((sv = jstr(it, "type"))) nt_copy_str(rec->type, sizeof rec->type, sv, strlen(sv));
        if ((sv = jstr(it, "redop"))) nt_copy_str(rec->redop, sizeof rec->redop, sv, strlen(sv));
        x = cJSON_GetObjectItemCaseSensitive(it, "root");
        if (cJSON_IsString(x) && x->valuestring) {
            char b[24];
            nt_env_value(x->valuestring, b, sizeof b);
            if (!nt_tok_long(b, -1, 1L << 30, &rec->root)) {
                st = jfail(&j, "root", "is not a rank", e);
                goto done;
            }
        } else if (x && !jint(x, -1, 1L << 30, &rec->root)) {
            st = jfail(&j, "root", "is not a rank", e);
            goto done;
        }
        if ((st = jhalf(&j, cJSON_GetObjectItemCaseSensitive(it, "out_of_place"), &rec->oop, &rec->flags, 0, e)))
            goto done;
        if ((st = jhalf(&j, cJSON_GetObjectItemCaseSensitive(it, "in_place"), &rec->ip, &rec->flags, 1, e))) goto done;
        if (!rec->oop.present && !rec->ip.present) {
            st = jfail(&j, "", "has neither out_of_place nor in_place", e);
            goto done;
        }
    }
    j.path[0] = 0;
    r = &s->runs[run];
    r->nrecs = s->nrecs - r->first_rec;
    x = cJSON_GetObjectItemCaseSensitive(doc, "out_of_bounds");
    if (cJSON_IsObject(x) && jint(cJSON_GetObjectItemCaseSensitive(x, "count"), 0, 2147483647L, &v)) r->oob_values = v;
    x = cJSON_GetObjectItemCaseSensitive(doc, "average_bus_bandwidth");
    const char *bwk = "bandwidth";
    if (!x) x = cJSON_GetObjectItemCaseSensitive(doc, "average_bus_bandwidith"), bwk = "bandwidith"; /* version 1 */
    if (cJSON_IsObject(x) && jnum(cJSON_GetObjectItemCaseSensitive(x, bwk), &d)) {
        r->avg_busbw_GBps = d;
        r->complete = 1;
    }
    x = cJSON_GetObjectItemCaseSensitive(doc, "errors");
    if (cJSON_IsArray(x)) r->nerrors = cJSON_GetArraySize(x);
    if (!r->complete && !(o && o->allow_truncated)) {
        st = ar_fail(e, AR_EINVAL,
                     "%s: truncated: no \"average_bus_bandwidth\" after the results (the run stopped early)", name);
        goto done;
    }
    r->footer = r->complete;
    r->nrecs = s->nrecs - r->first_rec;
    nt_resolve_run(s, run, o, 0, AR_NT_COLL_UNKNOWN);
    r = &s->runs[run];
    r->nnodes = nt_count_hosts(r);
done:
    cJSON_Delete(doc);
    return st;
}
