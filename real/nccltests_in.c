/* Reading nccl-tests output: text tables and JSON reports (nccltests_in.h).
 * Owner: the real/ backend (issue 14). */
#include "nccltests_in.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/util.h"

/* ------------------------------------------------------------------ names */

static const char *const coll_names[AR_NT_NCOLL] = {
    "unknown", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
    "alltoall", "alltoallv", "gather", "scatter", "sendrecv", "hypercube"};

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

static ar_status add_run(ar_nt_set *s, int file, int line, const ar_nt_opts *o, int *idx, ar_err *e) {
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

static ar_nt_record *add_rec(ar_nt_set *s) {
    if (ar_grow(&s->recs, &s->cap_recs, (size_t)s->nrecs + 1, sizeof *s->recs)) return NULL;
    ar_nt_record *r = &s->recs[s->nrecs++];
    memset(r, 0, sizeof *r);
    return r;
}

static ar_status add_device(ar_nt_set *s, ar_nt_run *r, const ar_nt_device *d, size_t *cap, ar_err *e) {
    if (ar_grow(&r->devices, cap, (size_t)r->ndevices + 1, sizeof *r->devices))
        return ar_fail(e, AR_ENOMEM, "%s: out of memory", s->files[r->file]);
    r->devices[r->ndevices++] = *d;
    return AR_OK;
}

static void copy_str(char *dst, size_t cap, const char *src, size_t n) {
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* "2.18.3" from NCCL's version code (major*10000 + minor*100 + patch since 2.9,
 * major*1000 + minor*100 + patch before). */
static void version_from_code(long code, char *buf, size_t n) {
    if (code <= 0) return;
    if (code >= 20900) snprintf(buf, n, "%ld.%ld.%ld", code / 10000, code / 100 % 100, code % 100);
    else snprintf(buf, n, "%ld.%ld.%ld", code / 1000, code / 100 % 10, code % 100);
}

/* Distinct host names among the devices. */
static int count_hosts(const ar_nt_run *r) {
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
static int tok_double(const char *t, double *v) {
    if (!*t) return 0;
    char *end;
    errno = 0;
    double d = strtod(t, &end);
    if (*end || end == t) return 0;
    if (errno == ERANGE && fabs(d) > 1) return 0;
    *v = d;
    return 1;
}

static int tok_u64(const char *t, uint64_t *v) {
    if (!isdigit((unsigned char)*t)) return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(t, &end, 10);
    if (*end || errno) return 0;
    *v = (uint64_t)x;
    return 1;
}

static int tok_long(const char *t, long lo, long hi, long *v) {
    if (!*t) return 0;
    char *end;
    errno = 0;
    long x = strtol(t, &end, 10);
    if (*end || errno || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

/* Splits line (modified in place) into at most max whitespace-separated tokens. */
static int split_ws(char *line, char **tok, int max) {
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

/* ------------------------------------------------------------------ text */

enum col_kind { C_SKIP, C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT, C_TIME, C_ALG, C_BUS, C_WRONG, C_TS };

#define MAX_COLS 48

typedef struct tparse {
    ar_nt_set *s;
    const ar_nt_opts *o;
    const char *name;
    int file;
    int run;       /* current run, -1 none */
    int table;     /* 0: before the table, 1: in the table, 2: after the footer */
    int has_header; /* the current run has nccl-tests header lines */
    size_t dev_cap;
    int ncols;
    unsigned char kind[MAX_COLS], half[MAX_COLS], inh[MAX_COLS]; /* inh: inside a half */
    int has_ts, half0_cols, has_root;
    char time_name[8];
    int nnodes_log, nranks_log;
    long lib_code;
} tparse;

static const char *half_name(int h) { return h ? " (in-place)" : " (out-of-place)"; }

/* Closes the current run: counts, nodes, version; refuses an unfinished table. */
static ar_status finish_run(tparse *t, int line, int at_eof, ar_err *e) {
    if (t->run < 0) return AR_OK;
    ar_nt_run *r = &t->s->runs[t->run];
    r->nrecs = t->s->nrecs - r->first_rec;
    if (t->table == 0 && !t->has_header && r->nrecs == 0) {
        /* only NCCL log lines after a finished run (e.g. "Destroy COMPLETE"): drop */
        free(r->devices);
        t->s->nruns--;
        t->run = -1;
        return AR_OK;
    }
    if (t->table != 2) {
        if (!t->o || !t->o->allow_truncated)
            return ar_fail(e, AR_EINVAL,
                           "%s:%d: truncated: the %s ends %s without the footer \"# Avg bus bandwidth\"",
                           t->name, line, t->table ? "table" : "run", at_eof ? "at the end of the file" : "here");
        r->complete = 0;
    } else {
        r->complete = 1;
    }
    r->nranks = r->ndevices ? r->ndevices : t->nranks_log;
    r->nnodes = t->nnodes_log ? t->nnodes_log : count_hosts(r);
    if (!r->nccl_version[0]) version_from_code(t->lib_code, r->nccl_version, sizeof r->nccl_version);
    t->run = -1;
    return AR_OK;
}

/* A line that starts a run ("# nccl-tests version", "# Collective test starting",
 * "# nThread"): continue the current run while its table has not begun. */
static ar_status start_run(tparse *t, int line, ar_err *e) {
    if (t->run >= 0 && t->table == 0) {
        t->has_header = 1;
        return AR_OK;
    }
    ar_status st = finish_run(t, line, 0, e);
    if (st) return st;
    st = add_run(t->s, t->file, line, t->o, &t->run, e);
    if (st) return st;
    t->table = 0;
    t->has_header = 1;
    t->dev_cap = 0;
    t->nnodes_log = t->nranks_log = 0;
    t->lib_code = 0;
    return AR_OK;
}

/* The current run, made on first use (NCCL log lines before any header). */
static ar_status cur_run(tparse *t, int line, ar_err *e) {
    if (t->run >= 0 && t->table != 2) return AR_OK;
    ar_status st = finish_run(t, line, 0, e);
    if (st) return st;
    st = add_run(t->s, t->file, line, t->o, &t->run, e);
    if (st) return st;
    t->table = 0;
    t->has_header = 0;
    t->dev_cap = 0;
    t->nnodes_log = t->nranks_log = 0;
    t->lib_code = 0;
    return AR_OK;
}

static ar_status set_coll(tparse *t, const char *prog, int line, ar_err *e) {
    ar_nt_run *r = &t->s->runs[t->run];
    char q[96];
    copy_str(r->program, sizeof r->program, prog, strlen(prog));
    ar_nt_coll c = ar_nt_coll_parse(prog);
    if (c == AR_NT_COLL_UNKNOWN) {
        /* a binary nccl-tests does not have (yet): keep the hint, name it */
        return AR_OK;
    }
    if (t->o && t->o->coll && t->o->coll != c)
        return ar_fail(e, AR_EINVAL, "%s:%d: the file runs %s but %s was asked for", t->name, line,
                       ar_quote(prog, q, sizeof q), ar_nt_coll_name(t->o->coll));
    r->coll = c;
    return AR_OK;
}

/* "NCCL_ALGO set by environment to X" / "NCCL_ALGO=X": copies X's first token. */
static void env_value(const char *p, char *dst, size_t cap) {
    while (*p == ' ' || *p == '\t') p++;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n])) n++;
    /* NCCL prints some values with a final '.' */
    if (n > 1 && p[n - 1] == '.') n--;
    copy_str(dst, cap, p, n);
}

static void env_line(ar_nt_run *r, const char *l) {
    const char *p;
    if ((p = strstr(l, "NCCL_ALGO set by environment to "))) env_value(p + 32, r->algo, sizeof r->algo);
    else if ((p = strstr(l, "NCCL_PROTO set by environment to "))) env_value(p + 33, r->proto, sizeof r->proto);
    else if (!strncmp(l, "NCCL_ALGO=", 10)) env_value(l + 10, r->algo, sizeof r->algo);
    else if (!strncmp(l, "NCCL_PROTO=", 11)) env_value(l + 11, r->proto, sizeof r->proto);
}

/* An NCCL log line: version, forced algorithm/protocol, nNodes/nRanks. */
static void log_line(tparse *t, const char *l) {
    ar_nt_run *r = &t->s->runs[t->run];
    const char *p = strstr(l, "NCCL version ");
    if (p && !r->nccl_version[0]) {
        p += 13;
        size_t n = 0;
        while (isdigit((unsigned char)p[n]) || p[n] == '.') n++;
        if (n) copy_str(r->nccl_version, sizeof r->nccl_version, p, n);
    }
    env_line(r, l);
    long v;
    char num[24];
    if (!t->nnodes_log && (p = strstr(l, " nNodes "))) {
        env_value(p + 8, num, sizeof num);
        if (tok_long(num, 1, 1 << 24, &v)) t->nnodes_log = (int)v;
    }
    if (!t->nranks_log && ((p = strstr(l, " nRanks ")) || (p = strstr(l, " nranks ")))) {
        env_value(p + 8, num, sizeof num);
        if (tok_long(num, 1, 1 << 24, &v)) t->nranks_log = (int)v;
    }
}

static int is_log_line(const char *l) {
    return strstr(l, "NCCL INFO") || strstr(l, "NCCL WARN") || strstr(l, "NCCL TRACE") ||
           strstr(l, "NCCL version ") || !strncmp(l, "NCCL_ALGO=", 10) || !strncmp(l, "NCCL_PROTO=", 11);
}

/* "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 ..." */
static void params_line(ar_nt_run *r, char *body) {
    char *tok[64];
    int n = split_ws(body, tok, 64);
    if (n > 64) n = 64;
    long v;
    uint64_t u;
    for (int i = 0; i + 1 < n; i++) {
        const char *k = tok[i], *x = tok[i + 1];
        if (!strcmp(k, "nThread") && tok_long(x, 0, 1 << 20, &v)) r->nthreads = (int)v;
        else if (!strcmp(k, "nGpus") && tok_long(x, 0, 1 << 20, &v)) r->ngpus = (int)v;
        else if (!strcmp(k, "minBytes") && tok_u64(x, &u)) r->min_bytes = u;
        else if (!strcmp(k, "maxBytes") && tok_u64(x, &u)) r->max_bytes = u;
        else if (!strcmp(k, "validation:") && tok_long(x, 0, 1 << 20, &v)) r->validation = (int)v;
        else if (!strcmp(k, "iters:") && i + 1 < n && tok_long(x, 0, 1L << 30, &v)) {
            const char *prev = i > 0 ? tok[i - 1] : "";
            if (!strcmp(prev, "warmup")) r->warmup_iters = (int)v;
            else if (strcmp(prev, "agg")) r->iters = (int)v;
        }
    }
}

/* "#  Rank  0 Group  0 Pid  1234 on host device  0 [0000:07:00] NVIDIA H100 80GB HBM3"
 * (older: no Group). body starts at "Rank". */
static ar_status device_line(tparse *t, const char *body, int line, ar_err *e) {
    ar_nt_device d;
    memset(&d, 0, sizeof d);
    d.group = -1;
    char buf[512];
    copy_str(buf, sizeof buf, body, strlen(body));
    char *br = strchr(buf, '[');
    const char *name = "";
    char *bus = NULL;
    if (br) {
        *br = 0;
        bus = br + 1;
        char *close = strchr(bus, ']');
        if (close) {
            *close = 0;
            name = close + 1;
            while (*name == ' ') name++;
        } else {
            bus = NULL;
        }
    }
    char *tok[16];
    int n = split_ws(buf, tok, 16);
    long v;
    int ok = n <= 16 && n >= 2 && !strcmp(tok[0], "Rank") && tok_long(tok[1], 0, 1 << 24, &v);
    if (ok) d.rank = (int)v;
    for (int i = 2; ok && i + 1 < n && i < 16; i += 2) {
        const char *k = tok[i], *x = tok[i + 1];
        if (!strcmp(k, "Group") && tok_long(x, -1, 1 << 24, &v)) d.group = (int)v;
        else if (!strcmp(k, "Pid") && tok_long(x, 0, 1L << 30, &v)) d.pid = (int)v;
        else if (!strcmp(k, "on")) copy_str(d.host, sizeof d.host, x, strlen(x));
        else if (!strcmp(k, "device") && tok_long(x, 0, 1 << 20, &v)) d.device = (int)v;
        else ok = 0;
    }
    if (!ok || !d.host[0]) {
        char q[120];
        return ar_fail(e, AR_EINVAL, "%s:%d: device line: %s is not \"Rank N [Group G] Pid P on HOST device D [BUS] NAME\"",
                       t->name, line, ar_quote(body, q, sizeof q));
    }
    if (bus) copy_str(d.bus, sizeof d.bus, bus, strlen(bus));
    size_t nl = strlen(name);
    while (nl && isspace((unsigned char)name[nl - 1])) nl--;
    copy_str(d.name, sizeof d.name, name, nl);
    return add_device(t->s, &t->s->runs[t->run], &d, &t->dev_cap, e);
}

/* "#       size   count   type   redop   root   time  algbw  busbw #wrong   time ..." */
static ar_status columns_line(tparse *t, char *body, int line, ar_err *e) {
    char *tok[MAX_COLS + 1];
    int n = split_ws(body, tok, MAX_COLS);
    if (n > MAX_COLS) return ar_fail(e, AR_ELIMIT, "%s:%d: table header has more than %d columns", t->name, line, MAX_COLS);
    int h = -1, seen_size = 0, seen[2][4] = {{0}};
    t->has_ts = 0;
    t->has_root = 0;
    t->half0_cols = 0;
    for (int i = 0; i < n; i++) {
        const char *k = tok[i];
        unsigned char kind = C_SKIP;
        if (!strcmp(k, "size")) kind = C_SIZE, seen_size = 1;
        else if (!strcmp(k, "count")) kind = C_COUNT;
        else if (!strcmp(k, "type")) kind = C_TYPE;
        else if (!strcmp(k, "redop")) kind = C_REDOP;
        else if (!strcmp(k, "root")) kind = C_ROOT, t->has_root = 1;
        else if (!strcmp(k, "time") || !strcmp(k, "cputime")) {
            kind = C_TIME;
            if (++h > 1) return ar_fail(e, AR_EINVAL, "%s:%d: table header has more than two \"%s\" columns", t->name, line, k);
            copy_str(t->time_name, sizeof t->time_name, k, strlen(k));
        } else if (!strcmp(k, "algbw")) kind = C_ALG;
        else if (!strcmp(k, "busbw")) kind = C_BUS;
        else if (!strcmp(k, "#wrong") || !strcmp(k, "error")) kind = C_WRONG;
        else if (!strcmp(k, "timestamp")) kind = C_TS, t->has_ts = 1;
        if (kind >= C_TIME && kind <= C_WRONG) {
            if (h < 0) return ar_fail(e, AR_EINVAL, "%s:%d: table header: \"%s\" before \"time\"", t->name, line, k);
            if (seen[h][kind - C_TIME]++)
                return ar_fail(e, AR_EINVAL, "%s:%d: table header: \"%s\" twice in one half", t->name, line, k);
        }
        t->kind[i] = kind;
        t->half[i] = (unsigned char)(h < 0 ? 0 : h);
        t->inh[i] = h >= 0 && kind != C_TS;
        if (h == 0 && kind != C_TS) t->half0_cols++;
    }
    if (!seen_size || h < 0 || !seen[0][1] || !seen[0][2])
        return ar_fail(e, AR_EINVAL, "%s:%d: table header lacks size, time, algbw or busbw", t->name, line);
    t->ncols = n;
    t->s->runs[t->run].cputime = !strcmp(t->time_name, "cputime");
    t->table = 1;
    return AR_OK;
}

static ar_status bad_field(tparse *t, int line, const char *field, int h, int use_half, const char *tok,
                           const char *what, ar_err *e) {
    char q[96];
    return ar_fail(e, AR_EINVAL, "%s:%d: field \"%s\"%s: %s %s", t->name, line, field, use_half ? half_name(h) : "",
                   ar_quote(tok, q, sizeof q), what);
}

/* One result row; last_cut: the file ends inside this line (no newline). */
static ar_status row_line(tparse *t, char *l, int line, int last_cut, ar_err *e) {
    char *tok[MAX_COLS + 4];
    int n = split_ws(l, tok, MAX_COLS + 3);
    int want = t->ncols + (t->has_ts ? 1 : 0); /* the timestamp is "YYYY-MM-DD HH:MM:SS" */
    int oop_blank = 0;
    if (n == want) {
    } else if (t->has_ts && n == want - 2) {
    } else if (t->half0_cols && t->kind[t->ncols - 1] != C_TS && n == t->ncols - t->half0_cols) {
        oop_blank = 1;
    } else if (last_cut && n < want) {
        if (t->o && t->o->allow_truncated) {
            t->s->runs[t->run].complete = 0;
            return AR_OK;
        }
        return ar_fail(e, AR_EINVAL, "%s:%d: truncated: the file ends inside a row (%d of %d fields)", t->name, line, n,
                       want);
    } else {
        return ar_fail(e, AR_EINVAL, "%s:%d: a row of this table has %d fields, found %d", t->name, line, want,
                       n > MAX_COLS + 2 ? MAX_COLS + 3 : n);
    }
    ar_nt_record *r = add_rec(t->s);
    if (!r) return ar_fail(e, AR_ENOMEM, "%s:%d: out of memory", t->name, line);
    ar_nt_run *run = &t->s->runs[t->run];
    r->file = t->file;
    r->run = t->run;
    r->line = line;
    r->index = t->s->nrecs - 1 - run->first_rec;
    r->root = -1;
    int k = 0;
    for (int c = 0; c < t->ncols && k < n; c++) {
        int h = t->half[c];
        unsigned char kind = t->kind[c];
        if (oop_blank && t->inh[c] && h == 0) continue;
        const char *x = tok[k++];
        ar_nt_timing *hf = h ? &r->ip : &r->oop;
        double d;
        switch (kind) {
        case C_SIZE:
            if (!tok_u64(x, &r->size_bytes)) return bad_field(t, line, "size", 0, 0, x, "is not a byte count", e);
            break;
        case C_COUNT:
            if (!tok_u64(x, &r->count)) return bad_field(t, line, "count", 0, 0, x, "is not an element count", e);
            break;
        case C_TYPE: copy_str(r->type, sizeof r->type, x, strlen(x)); break;
        case C_REDOP: copy_str(r->redop, sizeof r->redop, x, strlen(x)); break;
        case C_ROOT:
            if (!strcmp(x, "N/A")) r->root = -1;
            else if (!tok_long(x, -1, 1L << 30, &r->root)) return bad_field(t, line, "root", 0, 0, x, "is not a rank", e);
            break;
        case C_TIME:
        case C_ALG:
        case C_BUS: {
            const char *f = kind == C_TIME ? t->time_name : kind == C_ALG ? "algbw" : "busbw";
            if (!tok_double(x, &d)) return bad_field(t, line, f, h, 1, x, "is not a number", e);
            if (d < 0) return bad_field(t, line, f, h, 1, x, "is negative", e);
            if (!isfinite(d)) r->flags |= AR_NT_NAN;
            hf->present = 1;
            if (kind == C_TIME) hf->time_us = d;
            else if (kind == C_ALG) hf->algbw_GBps = d;
            else hf->busbw_GBps = d;
            break;
        }
        case C_WRONG:
            if (!strcmp(x, "N/A")) {
                hf->nwrong = -1;
            } else {
                if (!tok_double(x, &d) || isnan(d)) return bad_field(t, line, "#wrong", h, 1, x, "is not a number", e);
                if (d < 0) return bad_field(t, line, "#wrong", h, 1, x, "is negative", e);
                hf->nwrong = d;
                if (d > 0) r->flags |= h ? AR_NT_WRONG_IP : AR_NT_WRONG_OOP;
            }
            break;
        case C_TS:
            k++; /* date and time */
            break;
        default: break;
        }
    }
    /* a column header without #wrong: N/A */
    for (int h = 0; h < 2; h++) {
        int has = 0;
        for (int c = 0; c < t->ncols; c++) has |= t->kind[c] == C_WRONG && t->half[c] == h;
        if (!has) (h ? &r->ip : &r->oop)->nwrong = -1;
    }
    if (oop_blank) memset(&r->oop, 0, sizeof r->oop);
    return AR_OK;
}

/* body: the text after '#' and blanks. */
static ar_status comment_line(tparse *t, char *body, int line, ar_err *e) {
    ar_status st;
    const char *p;
    if (!strncmp(body, "nccl-tests version", 18)) {
        if ((st = start_run(t, line, e))) return st;
        ar_nt_run *r = &t->s->runs[t->run];
        env_value(body + 18, r->tests_version, sizeof r->tests_version);
        if ((p = strstr(body, "nccl-library="))) {
            long v;
            char num[24];
            env_value(p + 13, num, sizeof num);
            if (tok_long(num, 1, 1L << 30, &v)) t->lib_code = v;
        }
        return AR_OK;
    }
    if (!strncmp(body, "Collective test starting:", 25)) {
        if ((st = start_run(t, line, e))) return st;
        char prog[64];
        env_value(body + 25, prog, sizeof prog);
        return set_coll(t, prog, line, e);
    }
    if (!strncmp(body, "nThread ", 8)) {
        if ((st = start_run(t, line, e))) return st;
        params_line(&t->s->runs[t->run], body);
        return AR_OK;
    }
    if (!strncmp(body, "Rank ", 5)) {
        if (t->table == 1) return ar_fail(e, AR_EINVAL, "%s:%d: device line inside the table", t->name, line);
        if ((st = cur_run(t, line, e))) return st;
        return device_line(t, body, line, e);
    }
    if (!strncmp(body, "size ", 5)) {
        if (t->table == 1 && t->s->nrecs > t->s->runs[t->run].first_rec)
            return ar_fail(e, AR_EINVAL, "%s:%d: a second table header inside the table", t->name, line);
        if ((st = cur_run(t, line, e))) return st;
        return columns_line(t, body, line, e);
    }
    if (!strncmp(body, "Out of bounds values", 20) || !strncmp(body, "Avg bus bandwidth", 17)) {
        if (t->table != 1)
            return ar_fail(e, AR_EINVAL, "%s:%d: footer line without a table before it", t->name, line);
        ar_nt_run *r = &t->s->runs[t->run];
        const char *colon = strchr(body, ':');
        char num[32];
        env_value(colon ? colon + 1 : "", num, sizeof num);
        if (body[0] == 'O') {
            long v;
            if (!tok_long(num, 0, 2147483647L, &v))
                return bad_field(t, line, "Out of bounds values", 0, 0, num, "is not a count", e);
            r->oob_values = v;
        } else {
            double d;
            if (!tok_double(num, &d))
                return bad_field(t, line, "Avg bus bandwidth", 0, 0, num, "is not a number", e);
            r->avg_busbw_GBps = d;
            t->table = 2;
        }
        return AR_OK;
    }
    if (!strncmp(body, "NCCL_ALGO=", 10) || !strncmp(body, "NCCL_PROTO=", 11)) {
        if ((st = cur_run(t, line, e))) return st;
        env_line(&t->s->runs[t->run], body);
        return AR_OK;
    }
    /* "#", "# Using devices", units and half-title lines, "# Collective test
     * concluded", "# Blocking Enabled ...", user comments: nothing to read */
    return AR_OK;
}

static ar_status parse_text(tparse *t, const char *text, size_t len, ar_err *e) {
    char *buf = NULL;
    size_t cap = 0;
    ar_status st = AR_OK;
    int line = 0;
    size_t pos = 0;
    while (pos < len && st == AR_OK) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        int last_cut = !nl;
        if (ar_grow(&buf, &cap, n + 1, 1)) {
            st = ar_fail(e, AR_ENOMEM, "%s:%d: out of memory", t->name, line);
            break;
        }
        memcpy(buf, text + pos, n);
        buf[n] = 0;
        pos += n + (nl ? 1 : 0);
        if (memchr(buf, 0, n)) {
            st = ar_fail(e, AR_EINVAL, "%s:%d: NUL byte: not an nccl-tests text file", t->name, line);
            break;
        }
        while (n && isspace((unsigned char)buf[n - 1])) buf[--n] = 0;
        char *l = buf;
        while (*l == ' ' || *l == '\t') l++;
        if (!*l) continue;
        if (*l == '#') {
            char *body = l + 1;
            while (*body == ' ' || *body == '\t') body++;
            st = comment_line(t, body, line, e);
            continue;
        }
        if (is_log_line(l)) {
            if ((st = cur_run(t, line, e)) == AR_OK) log_line(t, l);
            continue;
        }
        if (t->table != 1) continue; /* text outside a table: launcher noise */
        if (isdigit((unsigned char)*l)) {
            st = row_line(t, l, line, last_cut, e);
        } else if (*l != '[') {
            char q[96];
            st = ar_fail(e, AR_EINVAL, "%s:%d: not a row of the table: %s", t->name, line, ar_quote(l, q, sizeof q));
        }
    }
    free(buf);
    if (st == AR_OK) st = finish_run(t, line, 1, e);
    return st;
}

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
        env_value(x->valuestring, b, sizeof b);
        return tok_double(b, v);
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

static ar_status parse_json(ar_nt_set *s, int file, const char *name, const char *text, size_t len,
                            const ar_nt_opts *o, ar_err *e) {
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
    if ((st = add_run(s, file, 1, o, &run, e))) goto done;
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
        copy_str(r->program, sizeof r->program, base, strlen(base));
        ar_nt_coll c = ar_nt_coll_parse(base);
        if (c != AR_NT_COLL_UNKNOWN) {
            if (o && o->coll && o->coll != c) {
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
        cJSON_ArrayForEach(it, x) if (cJSON_IsString(it) && it->valuestring) env_line(r, it->valuestring);
    }
    x = cJSON_GetObjectItemCaseSensitive(doc, "nccl_version");
    if (x && jint(x, 1, 1L << 30, &v)) version_from_code(v, r->nccl_version, sizeof r->nccl_version);
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
            if ((sv = jstr(it, "hostname"))) copy_str(dv.host, sizeof dv.host, sv, strlen(sv));
            if ((sv = jstr(it, "device_hex"))) copy_str(dv.bus, sizeof dv.bus, sv, strlen(sv));
            if ((sv = jstr(it, "device_info"))) copy_str(dv.name, sizeof dv.name, sv, strlen(sv));
            if ((st = add_device(s, &s->runs[run], &dv, &dcap, e))) goto done;
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
        ar_nt_record *rec = add_rec(s);
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
        if ((sv = jstr(it, "type"))) copy_str(rec->type, sizeof rec->type, sv, strlen(sv));
        if ((sv = jstr(it, "redop"))) copy_str(rec->redop, sizeof rec->redop, sv, strlen(sv));
        x = cJSON_GetObjectItemCaseSensitive(it, "root");
        if (cJSON_IsString(x) && x->valuestring) {
            char b[24];
            env_value(x->valuestring, b, sizeof b);
            if (!tok_long(b, -1, 1L << 30, &rec->root)) {
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
        st = ar_fail(e, AR_EINVAL, "%s: truncated: no \"average_bus_bandwidth\" after the results (the run stopped early)",
                     name);
        goto done;
    }
    r->nranks = r->ndevices;
    r->nnodes = count_hosts(r);
done:
    cJSON_Delete(doc);
    return st;
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
        st = parse_json(s, file, name, text, len, o, e);
    } else {
        tparse t;
        memset(&t, 0, sizeof t);
        t.s = s;
        t.o = o;
        t.name = name;
        t.file = file;
        t.run = -1;
        st = parse_text(&t, text, len, e);
    }
    if (st == AR_OK && s->nruns == nruns0)
        st = ar_fail(e, AR_EINVAL, "%s: no nccl-tests table found (expected \"#  size  count  type ...\" or a -J JSON "
                     "report)", name);
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
            return ar_fail(e, AR_EINVAL, "%s:%d: the collective is unknown (no \"# Collective test starting\" line); "
                           "name it (e.g. all_reduce)", s->files[r->file], r->first_line);
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
                return ar_fail(e, AR_EFAIL, "%s: #wrong = %.0f%s: the results were wrong; this row cannot be used "
                               "for fitting", w, t->nwrong, half_name(h));
            if (!isfinite(t->time_us) || t->time_us <= 0)
                return ar_fail(e, AR_EINVAL, "%s: time %g us%s: not a usable measurement", w, t->time_us, half_name(h));
        }
        if (!used) {
            ar_nt_where(s, r, w, sizeof w);
            return ar_fail(e, AR_EINVAL, "%s: the row has no %s half", w,
                           halves == AR_NT_HALF_IP ? "in-place" : halves == AR_NT_HALF_OOP ? "out-of-place" : "timed");
        }
    }
    return AR_OK;
}

/* ------------------------------------------------------------------ reference corpus */

enum { R_SYSTEM, R_PRESET, R_COLL, R_RANKS, R_NODES, R_SIZE, R_BUSBW, R_ALGBW, R_ALGO, R_NCCL, R_KIND, R_SOURCE, R_NOTE, R_N };
static const char *const ref_cols[R_N] = {"system",     "preset",     "collective", "ranks",
                                          "nodes",      "size_bytes", "busbw_GBps", "algbw_GBps",
                                          "algorithm",  "nccl_version", "kind",     "source", "note"};

ar_status ar_nt_read_reference(const char *path, ar_nt_ref **out, int *nout, ar_err *e) {
    *out = NULL;
    *nout = 0;
    char *text = NULL;
    size_t len = 0;
    ar_status st = ar_read_file(path, AR_NT_MAX_FILE_BYTES, &text, &len, e);
    if (st) return st;
    st = ar_nt_read_reference_mem(path, text, len, out, nout, e);
    free(text);
    return st;
}

ar_status ar_nt_read_reference_mem(const char *path, const char *src, size_t len, ar_nt_ref **out, int *nout,
                                   ar_err *e) {
    *out = NULL;
    *nout = 0;
    ar_status st = AR_OK;
    char *text = malloc(len + 1);
    if (!text) return ar_fail(e, AR_ENOMEM, "%s: out of memory", path);
    memcpy(text, src, len);
    text[len] = 0;
    if (memchr(text, 0, len)) {
        free(text);
        return ar_fail(e, AR_EINVAL, "%s: NUL byte: not a CSV file", path);
    }
    int map[64];
    int nmap = 0, line = 0;
    ar_nt_ref *v = NULL;
    size_t cap = 0;
    int n = 0;
    size_t pos = 0;
    while (pos < len && st == AR_OK) {
        char *l = text + pos;
        char *nl = memchr(l, '\n', len - pos);
        size_t ln = nl ? (size_t)(nl - l) : len - pos;
        pos += ln + (nl ? 1 : 0);
        l[ln] = 0;
        line++;
        while (ln && (l[ln - 1] == '\r' || l[ln - 1] == ' ')) l[--ln] = 0;
        const char *p = l;
        while (*p == ' ') p++;
        if (!*p || *p == '#') continue;
        char **f = NULL;
        int nf = ar_csv_split(l, &f, 64);
        if (nf < 0) {
            st = ar_fail(e, AR_ENOMEM, "%s:%d: out of memory", path, line);
            break;
        }
        if (!nmap) {
            nmap = nf;
            int have[R_N] = {0};
            for (int i = 0; i < nf; i++) {
                map[i] = -1;
                for (int c = 0; c < R_N; c++)
                    if (!strcmp(f[i], ref_cols[c])) map[i] = c, have[c] = 1;
            }
            if (!have[R_BUSBW] || !have[R_SYSTEM])
                st = ar_fail(e, AR_EINVAL, "%s:%d: header lacks \"system\" or \"busbw_GBps\"", path, line);
            ar_csv_free(f, nf);
            continue;
        }
        if (nf != nmap) {
            st = ar_fail(e, AR_EINVAL, "%s:%d: %d fields, the header has %d", path, line, nf, nmap);
            ar_csv_free(f, nf);
            break;
        }
        if (ar_grow(&v, &cap, (size_t)n + 1, sizeof *v)) {
            st = ar_fail(e, AR_ENOMEM, "%s:%d: out of memory", path, line);
            ar_csv_free(f, nf);
            break;
        }
        ar_nt_ref *r = &v[n];
        memset(r, 0, sizeof *r);
        r->line = line;
        r->algbw_GBps = NAN;
        r->busbw_GBps = NAN;
        r->coll = AR_NT_ALL_REDUCE;
        for (int i = 0; i < nf && st == AR_OK; i++) {
            const char *x = f[i];
            long lv;
            char q[96];
            switch (map[i]) {
            case R_SYSTEM: copy_str(r->system, sizeof r->system, x, strlen(x)); break;
            case R_PRESET: copy_str(r->preset, sizeof r->preset, x, strlen(x)); break;
            case R_ALGO: copy_str(r->algorithm, sizeof r->algorithm, x, strlen(x)); break;
            case R_NCCL: copy_str(r->nccl_version, sizeof r->nccl_version, x, strlen(x)); break;
            case R_KIND: copy_str(r->kind, sizeof r->kind, x, strlen(x)); break;
            case R_SOURCE: copy_str(r->source, sizeof r->source, x, strlen(x)); break;
            case R_NOTE: copy_str(r->note, sizeof r->note, x, strlen(x)); break;
            case R_COLL:
                if (*x && (r->coll = ar_nt_coll_parse(x)) == AR_NT_COLL_UNKNOWN)
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"collective\": %s is not an nccl-tests collective", path,
                                 line, ar_quote(x, q, sizeof q));
                break;
            case R_RANKS:
            case R_NODES:
                if (!*x) break;
                if (!tok_long(x, 1, 1 << 24, &lv))
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"%s\": %s is not a positive count", path, line,
                                 ref_cols[map[i]], ar_quote(x, q, sizeof q));
                else if (map[i] == R_RANKS) r->ranks = (int)lv;
                else r->nodes = (int)lv;
                break;
            case R_SIZE:
                if (*x && !tok_u64(x, &r->size_bytes))
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"size_bytes\": %s is not a byte count", path, line,
                                 ar_quote(x, q, sizeof q));
                break;
            case R_BUSBW:
            case R_ALGBW: {
                double d;
                if (!*x && map[i] == R_ALGBW) break;
                if (!tok_double(x, &d) || !isfinite(d) || d <= 0)
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"%s\": %s is not a positive number", path, line,
                                 ref_cols[map[i]], ar_quote(x, q, sizeof q));
                else if (map[i] == R_BUSBW) r->busbw_GBps = d;
                else r->algbw_GBps = d;
                break;
            }
            default: break;
            }
        }
        ar_csv_free(f, nf);
        if (st == AR_OK) n++;
    }
    free(text);
    if (st == AR_OK && n == 0) st = ar_fail(e, AR_EINVAL, "%s: no reference measurements", path);
    if (st) {
        free(v);
        return st;
    }
    *out = v;
    *nout = n;
    return AR_OK;
}
