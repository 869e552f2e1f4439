/* Reading nccl-tests output (nccltests_in.h): names, the set, number tokens,
 * the entry points and the fitting check. The text tables are parsed in
 * nccltests_text.c, the -J JSON reports in nccltests_json.c, the reference
 * corpus in nccltests_ref.c (shared internals: nccltests_int.h).
 * Owner: the real/ backend. */
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

/* ------------------------------------------------------------------ names */

static const char *const coll_names[AR_NT_NCOLL] = {"unknown",   "all_reduce", "all_gather", "reduce_scatter",
                                                    "broadcast", "reduce",     "alltoall",   "alltoallv",
                                                    "gather",    "scatter",    "sendrecv",   "hypercube"};

const char *ar_nt_coll_name(ar_nt_coll c) {
    return (c > AR_NT_COLL_UNKNOWN && c < AR_NT_NCOLL) ? coll_names[c] : coll_names[0];
}

/* Lower-cases s without '_' and '-' into buf. */
static void squash(const char *s, size_t n, char *buf, size_t cap) {
    size_t o = 0;
    for (size_t i = 0; i < n && s[i] && o + 1 < cap; i++) {
        if (s[i] == '_' || s[i] == '-') continue;
        buf[o++] = (char)tolower((unsigned char)s[i]);
    }
    buf[o] = 0;
}

ar_nt_coll ar_nt_coll_parse(const char *s) {
    if (!s) return AR_NT_COLL_UNKNOWN;
    const char *base = strrchr(s, '/');
    base = base ? base + 1 : s;
    size_t n = strlen(base);
    /* strip "_perf" and what follows it (all_reduce_perf_mpi) */
    const char *perf = strstr(base, "_perf");
    if (perf) n = (size_t)(perf - base);
    char want[64], cand[64];
    squash(base, n, want, sizeof want);
    for (int c = 1; c < AR_NT_NCOLL; c++) {
        squash(coll_names[c], strlen(coll_names[c]), cand, sizeof cand);
        if (!strcmp(want, cand)) return (ar_nt_coll)c;
    }
    return AR_NT_COLL_UNKNOWN;
}

double ar_nt_busbw_factor(ar_nt_coll coll, int n) {
    if (n < 1) return 0;
    double d = (double)(n - 1) / n;
    switch (coll) {
    case AR_NT_ALL_REDUCE: return 2 * d;
    case AR_NT_ALL_GATHER:
    case AR_NT_REDUCE_SCATTER:
    case AR_NT_ALLTOALL:
    case AR_NT_ALLTOALLV:
    case AR_NT_GATHER:
    case AR_NT_SCATTER:
    case AR_NT_HYPERCUBE: return d;
    case AR_NT_BROADCAST:
    case AR_NT_REDUCE:
    case AR_NT_SENDRECV: return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ the set */

void ar_nt_free(ar_nt_set *s) {
    if (!s) return;
    for (int i = 0; i < s->nfiles; i++) free(s->files[i]);
    free(s->files);
    for (int i = 0; i < s->nruns; i++) free(s->runs[i].devices);
    free(s->runs);
    free(s->recs);
    free(s);
}

static ar_status add_file(ar_nt_set *s, const char *name, int *idx, ar_err *e) {
    if (ar_grow(&s->files, &s->cap_files, (size_t)s->nfiles + 1, sizeof *s->files))
        return ar_fail(e, AR_ENOMEM, "%s: out of memory", name);
    char *d = ar_strdup(name);
    if (!d) return ar_fail(e, AR_ENOMEM, "%s: out of memory", name);
    s->files[s->nfiles] = d;
    *idx = s->nfiles++;
    return AR_OK;
}

ar_status nt_add_run(ar_nt_set *s, int file, int line, const ar_nt_opts *o, int *idx, ar_err *e) {
    if (ar_grow(&s->runs, &s->cap_runs, (size_t)s->nruns + 1, sizeof *s->runs))
        return ar_fail(e, AR_ENOMEM, "%s: out of memory", s->files[file]);
    ar_nt_run *r = &s->runs[s->nruns];
    memset(r, 0, sizeof *r);
    r->file = file;
    r->first_line = line;
    r->coll = o ? o->coll : AR_NT_COLL_UNKNOWN;
    r->validation = -1;
    r->avg_busbw_GBps = NAN;
    r->oob_values = -1;
    r->first_rec = s->nrecs;
    *idx = s->nruns++;
    return AR_OK;
}

ar_nt_record *nt_add_rec(ar_nt_set *s) {
    if (ar_grow(&s->recs, &s->cap_recs, (size_t)s->nrecs + 1, sizeof *s->recs)) return NULL;
    ar_nt_record *r = &s->recs[s->nrecs++];
    memset(r, 0, sizeof *r);
    return r;
}

ar_status nt_add_device(ar_nt_set *s, ar_nt_run *r, const ar_nt_device *d, size_t *cap, ar_err *e) {
    if (ar_grow(&r->devices, cap, (size_t)r->ndevices + 1, sizeof *r->devices))
        return ar_fail(e, AR_ENOMEM, "%s: out of memory", s->files[r->file]);
    r->devices[r->ndevices++] = *d;
    return AR_OK;
}

void nt_copy_str(char *dst, size_t cap, const char *src, size_t n) {
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* "2.18.3" from NCCL's version code (major*10000 + minor*100 + patch since 2.9,
 * major*1000 + minor*100 + patch before). */
void nt_version_from_code(long code, char *buf, size_t n) {
    if (code <= 0) return;
    if (code >= 20900) snprintf(buf, n, "%ld.%ld.%ld", code / 10000, code / 100 % 100, code % 100);
    else snprintf(buf, n, "%ld.%ld.%ld", code / 1000, code / 100 % 10, code % 100);
}

/* Distinct host names among the devices. */
int nt_count_hosts(const ar_nt_run *r) {
    int n = 0;
    for (int i = 0; i < r->ndevices; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(r->devices[i].host, r->devices[j].host);
        n += !seen;
    }
    return n;
}

/* ------------------------------------------------------------------ numbers */

/* Whole token as a double (nan/inf accepted: nccl-tests prints "nan"). */
int nt_tok_double(const char *t, double *v) {
    if (!*t) return 0;
    char *end;
    errno = 0;
    double d = strtod(t, &end);
    if (*end || end == t) return 0;
    if (errno == ERANGE && fabs(d) > 1) return 0;
    *v = d;
    return 1;
}

int nt_tok_u64(const char *t, uint64_t *v) {
    if (!isdigit((unsigned char)*t)) return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(t, &end, 10);
    if (*end || errno) return 0;
    *v = (uint64_t)x;
    return 1;
}

int nt_tok_long(const char *t, long lo, long hi, long *v) {
    if (!*t) return 0;
    char *end;
    errno = 0;
    long x = strtol(t, &end, 10);
    if (*end || errno || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

/* Splits line (modified in place) into at most max whitespace-separated tokens. */
int nt_split_ws(char *line, char **tok, int max) {
    int n = 0;
    char *p = line;
    while (*p) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (n == max) return max + 1;
        tok[n++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = 0;
    }
    return n;
}

/* ------------------------------------------------------------------ entry points */

static ar_status add_text(ar_nt_set *s, const char *name, const char *text, size_t len, const ar_nt_opts *o,
                          ar_err *e) {
    int file = 0;
    ar_status st = add_file(s, name, &file, e);
    if (st) return st;
    int nruns0 = s->nruns;
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i])) i++;
    if (i < len && text[i] == '{') {
        st = nt_parse_json(s, file, name, text, len, o, e);
    } else {
        st = nt_parse_text(s, file, name, text, len, o, e);
    }
    if (st == AR_OK && s->nruns == nruns0)
        st = ar_fail(e, AR_EINVAL,
                     "%s: no nccl-tests table found (expected \"#  size  count  type ...\" or a -J JSON "
                     "report)",
                     name);
    return st;
}

ar_status ar_nt_read_mem(const char *name, const char *text, size_t len, const ar_nt_opts *opts, ar_nt_set **out,
                         ar_err *e) {
    *out = NULL;
    ar_nt_set *s = ar_calloc(1, sizeof *s);
    if (!s) return ar_fail(e, AR_ENOMEM, "%s: out of memory", name);
    ar_status st = add_text(s, name, text, len, opts, e);
    if (st) {
        ar_nt_free(s);
        return st;
    }
    *out = s;
    return AR_OK;
}

ar_status ar_nt_read_files(const char *const *paths, int n, const ar_nt_opts *opts, ar_nt_set **out, ar_err *e) {
    *out = NULL;
    if (n < 1) return ar_fail(e, AR_EINVAL, "no nccl-tests file given");
    ar_nt_set *s = ar_calloc(1, sizeof *s);
    if (!s) return ar_fail(e, AR_ENOMEM, "out of memory");
    ar_status st = AR_OK;
    for (int i = 0; i < n && st == AR_OK; i++) {
        char *text = NULL;
        size_t len = 0;
        st = ar_read_file(paths[i], AR_NT_MAX_FILE_BYTES, &text, &len, e);
        if (st == AR_OK) st = add_text(s, paths[i], text, len, opts, e);
        free(text);
    }
    if (st) {
        ar_nt_free(s);
        return st;
    }
    *out = s;
    return AR_OK;
}

ar_status ar_nt_read_file(const char *path, const ar_nt_opts *opts, ar_nt_set **out, ar_err *e) {
    return ar_nt_read_files(&path, 1, opts, out, e);
}

char *ar_nt_where(const ar_nt_set *s, const ar_nt_record *r, char *buf, size_t n) {
    const char *f = r->file >= 0 && r->file < s->nfiles ? s->files[r->file] : "?";
    if (r->line > 0) snprintf(buf, n, "%s:%d", f, r->line);
    else snprintf(buf, n, "%s: results[%d]", f, r->index);
    return buf;
}

ar_status ar_nt_check_fit(const ar_nt_set *s, int halves, ar_err *e) {
    if (!s || s->nrecs == 0) return ar_fail(e, AR_EINVAL, "no nccl-tests rows to fit");
    if (!(halves & AR_NT_HALF_BOTH)) return ar_fail(e, AR_EINVAL, "ar_nt_check_fit: no half selected");
    char w[160];
    for (int i = 0; i < s->nruns; i++) {
        const ar_nt_run *r = &s->runs[i];
        if (r->coll == AR_NT_COLL_UNKNOWN && r->nrecs)
            return ar_fail(e, AR_EINVAL,
                           "%s:%d: the collective is unknown (no \"# Collective test starting\" line); "
                           "name it (e.g. all_reduce)",
                           s->files[r->file], r->first_line);
        if (r->nerrors)
            return ar_fail(e, AR_EFAIL, "%s: the run reported %d error(s); it cannot be used for fitting",
                           s->files[r->file], r->nerrors);
    }
    for (int i = 0; i < s->nrecs; i++) {
        const ar_nt_record *r = &s->recs[i];
        int used = 0;
        for (int h = 0; h < 2; h++) {
            if (!(halves & (h ? AR_NT_HALF_IP : AR_NT_HALF_OOP))) continue;
            const ar_nt_timing *t = h ? &r->ip : &r->oop;
            if (!t->present) continue;
            used++;
            ar_nt_where(s, r, w, sizeof w);
            if (t->nwrong > 0)
                return ar_fail(e, AR_EFAIL,
                               "%s: #wrong = %.0f%s: the results were wrong; this row cannot be used "
                               "for fitting",
                               w, t->nwrong, nt_half_name(h));
            if (!isfinite(t->time_us) || t->time_us <= 0)
                return ar_fail(e, AR_EINVAL, "%s: time %g us%s: not a usable measurement", w, t->time_us,
                               nt_half_name(h));
        }
        if (!used) {
            ar_nt_where(s, r, w, sizeof w);
            return ar_fail(e, AR_EINVAL, "%s: the row has no %s half", w,
                           halves == AR_NT_HALF_IP    ? "in-place"
                           : halves == AR_NT_HALF_OOP ? "out-of-place"
                                                      : "timed");
        }
    }
    return AR_OK;
}
