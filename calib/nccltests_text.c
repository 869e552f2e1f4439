/* nccl-tests' text tables (nccltests_in.h): header lines, the column line,
 * the out-of-place and in-place halves, NCCL's log lines, the footer. */
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

/* ------------------------------------------------------------------ text */

enum col_kind { C_SKIP, C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT, C_TIME, C_ALG, C_BUS, C_WRONG, C_TS, C_ERR };

#define MAX_COLS 48

typedef struct tparse {
    ar_nt_set *s;
    const ar_nt_opts *o;
    const char *name;
    int file;
    int run;      /* current run, -1 none */
    int table;    /* 0: before the table, 1: in the table, 2: after the footer, 3: ended by a line that is
                       not a row (a markdown fence, prose) without the footer */
    int end_line; /* table 3: that line and its text, for the error when a row or footer follows */
    char end_text[96];
    ar_nt_coll pending_cmd; /* a *_perf command line seen before the next run starts */
    ar_nt_coll run_cmd;     /* the current run's */
    int has_header;         /* the current run has nccl-tests header lines */
    size_t dev_cap;
    int ncols;
    unsigned char kind[MAX_COLS], half[MAX_COLS], inh[MAX_COLS]; /* inh: inside a half */
    int has_ts, half0_cols, has_root;
    char time_name[8];
    int nnodes_log, nranks_log;
    long lib_code;
    char pending_arlab[96]; /* "# arlab real|arlab-mpi: algo NAME", read before its run starts */
} tparse;

/* Gives the run that starts (or continues before its table) the arlab algorithm named just before it. */
static void take_arlab(tparse *t) {
    if (!t->pending_arlab[0] || t->run < 0) return;
    ar_nt_run *r = &t->s->runs[t->run];
    snprintf(r->arlab_algo, sizeof r->arlab_algo, "%s", t->pending_arlab);
    t->pending_arlab[0] = 0;
}

const char *nt_half_name(int h) { return h ? " (in-place)" : " (out-of-place)"; }

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
    if (t->table == 3) line = t->end_line;
    if (t->table != 2) {
        if (t->o && t->o->allow_nofooter && t->table && r->nrecs > 0) {
            r->complete = 1; /* whole rows, no footer: run->footer = 0 says so */
        } else if (!t->o || !t->o->allow_truncated) {
            return ar_fail(e, AR_EINVAL, "%s:%d: truncated: the %s ends %s without the footer \"# Avg bus bandwidth\"",
                           t->name, line, t->table ? "table" : "run",
                           t->table == 3 ? "at this line"
                           : at_eof      ? "at the end of the file"
                                         : "here");
        } else {
            r->complete = 0;
        }
    } else {
        r->complete = 1;
        r->footer = 1;
    }
    nt_resolve_run(t->s, t->run, t->o, t->nranks_log, t->run_cmd);
    r = &t->s->runs[t->run];
    r->nnodes = t->nnodes_log ? t->nnodes_log : nt_count_hosts(r);
    if (r->dev_cut && !t->nnodes_log) {
        /* a list cut short: whole nodes of as many GPUs as the highest device index it shows */
        int g = 0;
        for (int i = 0; i < r->ndevices; i++) g = r->devices[i].device + 1 > g ? r->devices[i].device + 1 : g;
        r->nnodes = g > 0 && r->nranks % g == 0 ? r->nranks / g : 0;
    }
    if (!r->nccl_version[0]) nt_version_from_code(t->lib_code, r->nccl_version, sizeof r->nccl_version);
    t->run = -1;
    return AR_OK;
}

/* Ends the current run and starts the next (has_header: it begins with nccl-tests' header). */
static ar_status new_run(tparse *t, int line, int has_header, ar_err *e) {
    ar_status st = finish_run(t, line, 0, e);
    if (st) return st;
    st = nt_add_run(t->s, t->file, line, t->o, &t->run, e);
    if (st) return st;
    t->table = 0;
    t->has_header = has_header;
    t->run_cmd = t->pending_cmd;
    t->pending_cmd = AR_NT_COLL_UNKNOWN;
    t->dev_cap = 0;
    t->nnodes_log = t->nranks_log = 0;
    t->lib_code = 0;
    return AR_OK;
}

/* A line that starts a run ("# nccl-tests version", "# Collective test starting",
 * "# nThread"): continue the current run while its table has not begun. */
static ar_status start_run(tparse *t, int line, ar_err *e) {
    if (t->run >= 0 && t->table == 0) {
        t->has_header = 1;
        take_arlab(t);
        return AR_OK;
    }
    ar_status st = new_run(t, line, 1, e);
    if (st == AR_OK) take_arlab(t);
    return st;
}

/* The current run, made on first use (NCCL log lines before any header). */
static ar_status cur_run(tparse *t, int line, ar_err *e) {
    if (t->run >= 0 && t->table != 2 && t->table != 3) return AR_OK;
    return new_run(t, line, 0, e);
}

static ar_status set_coll(tparse *t, const char *prog, int line, ar_err *e) {
    ar_nt_run *r = &t->s->runs[t->run];
    char q[96];
    nt_copy_str(r->program, sizeof r->program, prog, strlen(prog));
    ar_nt_coll c = ar_nt_coll_parse(prog);
    if (c == AR_NT_COLL_UNKNOWN) {
        /* a binary nccl-tests does not have (yet): keep the hint, name it */
        return AR_OK;
    }
    if (t->o && t->o->coll && !t->o->coll_soft && t->o->coll != c)
        return ar_fail(e, AR_EINVAL, "%s:%d: the file runs %s but %s was asked for", t->name, line,
                       ar_quote(prog, q, sizeof q), ar_nt_coll_name(t->o->coll));
    r->coll = c;
    return AR_OK;
}

/* "NCCL_ALGO set by environment to X" / "NCCL_ALGO=X": copies X's first token. */
void nt_env_value(const char *p, char *dst, size_t cap) {
    while (*p == ' ' || *p == '\t') p++;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n])) n++;
    /* NCCL prints some values with a final '.' */
    if (n > 1 && p[n - 1] == '.') n--;
    nt_copy_str(dst, cap, p, n);
}

void nt_env_line(ar_nt_run *r, const char *l) {
    const char *p;
    if ((p = strstr(l, "NCCL_ALGO set by environment to "))) nt_env_value(p + 32, r->algo, sizeof r->algo);
    else if ((p = strstr(l, "NCCL_PROTO set by environment to "))) nt_env_value(p + 33, r->proto, sizeof r->proto);
    else if (!strncmp(l, "NCCL_ALGO=", 10)) nt_env_value(l + 10, r->algo, sizeof r->algo);
    else if (!strncmp(l, "NCCL_PROTO=", 11)) nt_env_value(l + 11, r->proto, sizeof r->proto);
}

/* An NCCL log line: version, forced algorithm/protocol, nNodes/nRanks. */
static void log_line(tparse *t, const char *l) {
    ar_nt_run *r = &t->s->runs[t->run];
    const char *p = strstr(l, "NCCL version ");
    if (p && !r->nccl_version[0]) {
        p += 13;
        size_t n = 0;
        while (isdigit((unsigned char)p[n]) || p[n] == '.') n++;
        if (n) nt_copy_str(r->nccl_version, sizeof r->nccl_version, p, n);
    }
    nt_env_line(r, l);
    long v;
    char num[24];
    if (!t->nnodes_log && (p = strstr(l, " nNodes "))) {
        nt_env_value(p + 8, num, sizeof num);
        if (nt_tok_long(num, 1, 1 << 24, &v)) t->nnodes_log = (int)v;
    }
    if (!t->nranks_log && ((p = strstr(l, " nRanks ")) || (p = strstr(l, " nranks ")))) {
        nt_env_value(p + 8, num, sizeof num);
        if (nt_tok_long(num, 1, 1 << 24, &v)) t->nranks_log = (int)v;
    }
}

static int is_log_line(const char *l) {
    return strstr(l, "NCCL INFO") || strstr(l, "NCCL WARN") || strstr(l, "NCCL TRACE") || strstr(l, "NCCL version ") ||
           !strncmp(l, "NCCL_ALGO=", 10) || !strncmp(l, "NCCL_PROTO=", 11);
}

/* "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 ..." */
static void params_line(ar_nt_run *r, char *body) {
    char *tok[64];
    int n = nt_split_ws(body, tok, 64);
    if (n > 64) n = 64;
    long v;
    uint64_t u;
    for (int i = 0; i + 1 < n; i++) {
        const char *k = tok[i], *x = tok[i + 1];
        if (!strcmp(k, "nThread") && nt_tok_long(x, 0, 1 << 20, &v)) r->nthreads = (int)v;
        else if (!strcmp(k, "nGpus") && nt_tok_long(x, 0, 1 << 20, &v)) r->ngpus = (int)v;
        else if (!strcmp(k, "minBytes") && nt_tok_u64(x, &u)) r->min_bytes = u;
        else if (!strcmp(k, "maxBytes") && nt_tok_u64(x, &u)) r->max_bytes = u;
        else if (!strcmp(k, "validation:") && nt_tok_long(x, 0, 1 << 20, &v)) r->validation = (int)v;
        else if (!strcmp(k, "iters:") && i + 1 < n && nt_tok_long(x, 0, 1L << 30, &v)) {
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
    nt_copy_str(buf, sizeof buf, body, strlen(body));
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
    int n = nt_split_ws(buf, tok, 16);
    long v;
    int ok = n <= 16 && n >= 2 && !strcmp(tok[0], "Rank") && nt_tok_long(tok[1], 0, 1 << 24, &v);
    if (ok) d.rank = (int)v;
    for (int i = 2; ok && i + 1 < n && i < 16; i += 2) {
        const char *k = tok[i], *x = tok[i + 1];
        if (!strcmp(k, "Group") && nt_tok_long(x, -1, 1 << 24, &v)) d.group = (int)v;
        else if (!strcmp(k, "Pid") && nt_tok_long(x, 0, 1L << 30, &v)) d.pid = (int)v;
        else if (!strcmp(k, "on")) nt_copy_str(d.host, sizeof d.host, x, strlen(x));
        else if (!strcmp(k, "device") && nt_tok_long(x, 0, 1 << 20, &v)) d.device = (int)v;
        else ok = 0;
    }
    if (!ok || !d.host[0]) {
        char q[120];
        return ar_fail(e, AR_EINVAL,
                       "%s:%d: device line: %s is not \"Rank N [Group G] Pid P on HOST device D [BUS] NAME\"", t->name,
                       line, ar_quote(body, q, sizeof q));
    }
    if (bus) nt_copy_str(d.bus, sizeof d.bus, bus, strlen(bus));
    size_t nl = strlen(name);
    while (nl && isspace((unsigned char)name[nl - 1])) nl--;
    nt_copy_str(d.name, sizeof d.name, name, nl);
    return nt_add_device(t->s, &t->s->runs[t->run], &d, &t->dev_cap, e);
}

/* "#       size   count   type   redop   root   time  algbw  busbw #wrong   time ..." */
static ar_status columns_line(tparse *t, char *body, int line, ar_err *e) {
    char *tok[MAX_COLS + 1];
    int n = nt_split_ws(body, tok, MAX_COLS);
    if (n > MAX_COLS)
        return ar_fail(e, AR_ELIMIT, "%s:%d: table header has more than %d columns", t->name, line, MAX_COLS);
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
            if (++h > 1)
                return ar_fail(e, AR_EINVAL, "%s:%d: table header has more than two \"%s\" columns", t->name, line, k);
            nt_copy_str(t->time_name, sizeof t->time_name, k, strlen(k));
        } else if (!strcmp(k, "algbw")) kind = C_ALG;
        else if (!strcmp(k, "busbw")) kind = C_BUS;
        else if (!strcmp(k, "#wrong") || !strcmp(k, "wrong")) kind = C_WRONG; /* "wrong": its '#' stripped */
        else if (!strcmp(k, "error")) kind = C_ERR; /* nccl-tests before 2.13: max relative error, not a count */
        else if (!strcmp(k, "timestamp")) kind = C_TS, t->has_ts = 1;
        if ((kind >= C_TIME && kind <= C_WRONG) || kind == C_ERR) {
            if (h < 0) return ar_fail(e, AR_EINVAL, "%s:%d: table header: \"%s\" before \"time\"", t->name, line, k);
            if (seen[h][kind == C_ERR ? 3 : kind - C_TIME]++)
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
    return ar_fail(e, AR_EINVAL, "%s:%d: field \"%s\"%s: %s %s", t->name, line, field, use_half ? nt_half_name(h) : "",
                   ar_quote(tok, q, sizeof q), what);
}

/* The index of the first column of kind k, -1 when none. */
static int col_of(const tparse *t, int k) {
    for (int c = 0; c < t->ncols; c++)
        if (t->kind[c] == k) return c;
    return -1;
}

/* One result row; last_cut: the file ends inside this line (no newline). */
static ar_status row_line(tparse *t, char *l, int line, int last_cut, ar_err *e) {
    char *tok[MAX_COLS + 4];
    int n = nt_split_ws(l, tok, MAX_COLS + 3);
    int want = t->ncols + (t->has_ts ? 1 : 0); /* the timestamp is "YYYY-MM-DD HH:MM:SS" */
    int oop_blank = 0, redop_blank = 0;
    if (n == want) {
    } else if (n == want - 1 && col_of(t, C_REDOP) >= 0 && col_of(t, C_REDOP) < n &&
               nt_tok_double(tok[col_of(t, C_REDOP)], &(double){0})) {
        redop_blank = 1; /* old alltoall: the redop column printed blank */
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
    ar_nt_record *r = nt_add_rec(t->s);
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
        if (redop_blank && kind == C_REDOP) continue;
        const char *x = tok[k++];
        ar_nt_timing *hf = h ? &r->ip : &r->oop;
        double d;
        switch (kind) {
        case C_SIZE:
            if (!nt_tok_u64(x, &r->size_bytes)) return bad_field(t, line, "size", 0, 0, x, "is not a byte count", e);
            break;
        case C_COUNT:
            if (!nt_tok_u64(x, &r->count)) return bad_field(t, line, "count", 0, 0, x, "is not an element count", e);
            break;
        case C_TYPE: nt_copy_str(r->type, sizeof r->type, x, strlen(x)); break;
        case C_REDOP: nt_copy_str(r->redop, sizeof r->redop, x, strlen(x)); break;
        case C_ROOT:
            if (!strcmp(x, "N/A")) r->root = -1;
            else if (!nt_tok_long(x, -1, 1L << 30, &r->root))
                return bad_field(t, line, "root", 0, 0, x, "is not a rank", e);
            break;
        case C_TIME:
        case C_ALG:
        case C_BUS: {
            const char *f = kind == C_TIME ? t->time_name : kind == C_ALG ? "algbw" : "busbw";
            if (!nt_tok_double(x, &d)) return bad_field(t, line, f, h, 1, x, "is not a number", e);
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
                if (!nt_tok_double(x, &d) || isnan(d))
                    return bad_field(t, line, "#wrong", h, 1, x, "is not a number", e);
                if (d < 0) return bad_field(t, line, "#wrong", h, 1, x, "is negative", e);
                hf->nwrong = d;
                if (d > 0) r->flags |= h ? AR_NT_WRONG_IP : AR_NT_WRONG_OOP;
            }
            break;
        case C_ERR:
            if (!strcmp(x, "N/A")) {
                hf->maxerr = NAN;
            } else {
                if (!nt_tok_double(x, &d) || isnan(d))
                    return bad_field(t, line, "error", h, 1, x, "is not a number", e);
                if (d < 0) return bad_field(t, line, "error", h, 1, x, "is negative", e);
                hf->maxerr = d;
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
        nt_env_value(body + 18, r->tests_version, sizeof r->tests_version);
        if ((p = strstr(body, "nccl-library="))) {
            long v;
            char num[24];
            nt_env_value(p + 13, num, sizeof num);
            if (nt_tok_long(num, 1, 1L << 30, &v)) t->lib_code = v;
        }
        return AR_OK;
    }
    if (!strncmp(body, "arlab real: algo ", 17) || !strncmp(body, "arlab-mpi: algo ", 16)) {
        /* arlab's own documents (calib/nccltests_out.h): the algorithm that ran, for the next run */
        const char *a = body + (body[5] == ' ' ? 17 : 16);
        size_t n = strcspn(a, ", \t");
        if (n >= sizeof t->pending_arlab) n = sizeof t->pending_arlab - 1;
        memcpy(t->pending_arlab, a, n);
        t->pending_arlab[n] = 0;
        return AR_OK;
    }
    if (!strncmp(body, "Collective test starting:", 25)) {
        if ((st = start_run(t, line, e))) return st;
        char prog[64];
        nt_env_value(body + 25, prog, sizeof prog);
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
        if (t->table == 3)
            return ar_fail(e, AR_EINVAL, "%s:%d: not a row of the table: %s", t->name, t->end_line, t->end_text);
        if (t->table != 1) return ar_fail(e, AR_EINVAL, "%s:%d: footer line without a table before it", t->name, line);
        ar_nt_run *r = &t->s->runs[t->run];
        const char *colon = strchr(body, ':');
        char num[32];
        nt_env_value(colon ? colon + 1 : "", num, sizeof num);
        if (body[0] == 'O') {
            long v;
            if (!nt_tok_long(num, 0, 2147483647L, &v))
                return bad_field(t, line, "Out of bounds values", 0, 0, num, "is not a count", e);
            r->oob_values = v;
        } else {
            double d;
            if (!nt_tok_double(num, &d))
                return bad_field(t, line, "Avg bus bandwidth", 0, 0, num, "is not a number", e);
            r->avg_busbw_GBps = d;
            t->table = 2;
        }
        return AR_OK;
    }
    if (!strncmp(body, "NCCL_ALGO=", 10) || !strncmp(body, "NCCL_PROTO=", 11)) {
        if ((st = cur_run(t, line, e))) return st;
        nt_env_line(&t->s->runs[t->run], body);
        return AR_OK;
    }
    /* "#", "# Using devices", units and half-title lines, "# Collective test
     * concluded", "# Blocking Enabled ...", user comments: nothing to read */
    return AR_OK;
}

/* Launchers' and copiers' line prefixes, removed before a line is read: mpirun --tag-output
 * "[1,0]<stdout>:", Ray and SkyPilot "(head, rank=0, pid=3808)" / "(worker1, rank=1, pid=..., ip=...)",
 * srun --label "0: ", then blanks. */
static char *strip_prefix(char *l) {
    for (;;) {
        while (*l == ' ' || *l == '\t') l++;
        char *p = l;
        if (*p == '[') { /* [J,R]<stdout>: or [J,R]<stderr>: */
            char *q = strchr(p, ']');
            if (q && (!strncmp(q + 1, "<stdout>:", 9) || !strncmp(q + 1, "<stderr>:", 9))) {
                l = q + 10;
                continue;
            }
        }
        if (*p == '(') { /* (name, rank=0, pid=123) */
            char *q = strchr(p, ')');
            if (q && q - p < 200) {
                char save = *q;
                *q = 0;
                int ray = strstr(p, "pid=") || strstr(p, "rank=");
                *q = save;
                if (ray) {
                    l = q + 1;
                    continue;
                }
            }
        }
        if (isdigit((unsigned char)*p)) { /* srun --label: "12: " */
            while (isdigit((unsigned char)*p)) p++;
            if (p[0] == ':' && (p[1] == ' ' || p[1] == '\t' || !p[1])) {
                l = p + 1;
                continue;
            }
        }
        return l;
    }
}

/* A line of nccl-tests' header or footer printed without its '#' (stripped or indented in a copy). */
static int header_word(const char *l) {
    static const char *const w[] = {
        "nThread ",      "nccl-tests version",   "Collective test starting:", "Collective test concluded:",
        "Using devices", "Out of bounds values", "Avg bus bandwidth",         "out-of-place",
        "(B) ",          "Blocking Enabled"};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (!strncmp(l, w[i], strlen(w[i]))) return 1;
    if (!strncmp(l, "Rank ", 5)) {
        const char *p = l + 5;
        while (*p == ' ') p++;
        return isdigit((unsigned char)*p) && strstr(l, " on ") != NULL;
    }
    if (!strncmp(l, "size ", 5)) return strstr(l, "count") && strstr(l, "time") && strstr(l, "busbw");
    return 0;
}

/* "...", an ellipsis that stands for lines left out. */
static int is_dots(const char *l) {
    return !strncmp(l, "...", 3) || !strncmp(l, "\xe2\x80\xa6", 3) || !strncmp(l, "\xe2\x8b\xae", 3);
}

/* A line that starts with as many numbers-or-words as a row of the table has fields. */
static int looks_like_row(const char *l, int ncols) {
    int n = 0, in = 0;
    for (const char *p = l; *p; p++) {
        int sp = isspace((unsigned char)*p);
        if (!sp && !in) n++;
        in = !sp;
    }
    return ncols > 0 && n >= ncols - 2;
}

/* A command line echoed in the log ("./build/all_gather_perf -b 8 ...", "mpirun ... all_reduce_perf_mpi"):
 * the collective of the run that follows. */
static void note_command(tparse *t, const char *l) {
    const char *p = strstr(l, "_perf");
    if (!p || !strncmp(l, "Collective test", 15)) return;
    const char *b = p;
    while (b > l && !isspace((unsigned char)b[-1]) && b[-1] != '/' && b[-1] != '=' && b[-1] != '\'' && b[-1] != '"')
        b--;
    char tok[64];
    size_t n = (size_t)(p - b) + 5;
    if (n >= sizeof tok) return;
    memcpy(tok, b, n);
    tok[n] = 0;
    ar_nt_coll c = ar_nt_coll_parse(tok);
    if (c == AR_NT_COLL_UNKNOWN) return;
    if (t->run >= 0 && t->table == 0 && t->s->nrecs == t->s->runs[t->run].first_rec && !t->run_cmd)
        t->run_cmd = c; /* the run has begun (NCCL log lines, a header) but not its table */
    else t->pending_cmd = c;
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
        char *l = strip_prefix(buf);
        if (!*l) continue;
        if (*l == '#' || header_word(l)) {
            char *body = *l == '#' ? l + 1 : l;
            while (*body == ' ' || *body == '\t') body++;
            if (t->table == 0 && t->run >= 0 && t->s->runs[t->run].ndevices && is_dots(body)) {
                t->s->runs[t->run].dev_cut = 1; /* a device list cut short */
                continue;
            }
            if (t->table != 1) note_command(t, body);
            st = comment_line(t, body, line, e);
            continue;
        }
        if (is_log_line(l)) {
            if ((st = cur_run(t, line, e)) == AR_OK) log_line(t, l);
            continue;
        }
        if (t->table == 0 && t->run >= 0 && t->s->runs[t->run].ndevices && is_dots(l)) {
            t->s->runs[t->run].dev_cut = 1;
            continue;
        }
        if (t->table == 3 && isdigit((unsigned char)*l) && looks_like_row(l, t->ncols)) {
            st = ar_fail(e, AR_EINVAL, "%s:%d: not a row of the table: %s", t->name, t->end_line, t->end_text);
            continue;
        }
        if (t->table != 1) { /* text outside a table: launcher noise, prose, a command line */
            note_command(t, l);
            continue;
        }
        if (is_dots(l)) continue; /* rows left out of a copy ("...") */
        if (isdigit((unsigned char)*l)) {
            st = row_line(t, l, line, last_cut, e);
        } else if (*l != '[') {
            if (t->s->nrecs == t->s->runs[t->run].first_rec) continue; /* before the rows: unit or title lines */
            /* after the rows: a markdown fence or prose ends the table (a paste without its footer) */
            t->table = 3;
            t->end_line = line;
            ar_quote(l, t->end_text, sizeof t->end_text);
        }
    }
    free(buf);
    if (st == AR_OK) st = finish_run(t, line, 1, e);
    return st;
}

ar_status nt_parse_text(ar_nt_set *s, int file, const char *name, const char *text, size_t len, const ar_nt_opts *o,
                        ar_err *e) {
    tparse t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.o = o;
    t.name = name;
    t.file = file;
    t.run = -1;
    return parse_text(&t, text, len, e);
}
