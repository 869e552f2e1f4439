/* The one reader of measured CSVs (measured.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "measured.h"
#include "calib/nccltests_in.h"

enum { M_ALGO, M_PLATFORM, M_RANKS, M_BYTES, M_TIME, M_INPLACE, M_WRONG, M_N };
static const char *const want[M_N] = {"algo", "platform", "ranks", "bytes", "measured_s", "inplace", "wrong"};

static int num(const char *s, double *v) {
    char *end = NULL;
    *v = strtod(s, &end);
    return *s && end && *end == 0;
}

/* Appends one row (strings copied). */
static ar_status push(lab_measures *ms, const char *algo, const char *plat, int ranks, double bytes, double t,
                      int inplace, long long wrong, ar_err *e) {
    size_t need = (size_t)ms->n + 1, cap = ms->cap;
    if (need > ms->cap) {
        if (ar_grow(&ms->m, &cap, need, sizeof *ms->m) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
        cap = ms->cap;
        if (ar_grow(&ms->inplace, &cap, need, sizeof *ms->inplace) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
        cap = ms->cap;
        if (ar_grow(&ms->wrong, &cap, need, sizeof *ms->wrong) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
        cap = ms->cap;
        if (ar_grow(&ms->nccl_algo, &cap, need, sizeof *ms->nccl_algo) < 0)
            return ar_fail(e, AR_ENOMEM, "out of memory");
        cap = ms->cap;
        if (ar_grow(&ms->nccl_proto, &cap, need, sizeof *ms->nccl_proto) < 0)
            return ar_fail(e, AR_ENOMEM, "out of memory");
        ms->cap = cap;
    }
    lab_measure *m = &ms->m[ms->n];
    m->algo = ar_strdup(algo);
    m->platform = ar_strdup(plat);
    m->ranks = ranks;
    m->bytes = bytes;
    m->measured_s = t;
    ms->inplace[ms->n] = inplace;
    ms->wrong[ms->n] = wrong;
    ms->nccl_algo[ms->n][0] = ms->nccl_proto[ms->n][0] = 0;
    if (!m->algo || !m->platform) {
        free(m->algo);
        free(m->platform);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    ms->n++;
    return AR_OK;
}

/* An nccl-tests file (text or JSON): its rows of ms->nt_coll (all_reduce) as "nccl-allreduce" (or, in a document arlab wrote, as
 * the algorithm it names: ring, mpi-allreduce, ...), platform "" (any platform of
 * the same rank count), both halves (out-of-place: inplace 0). The reader's errors name file and line. */
static ar_status read_nccltests(const char *path, lab_measures *ms, ar_err *e) {
    ar_nt_set *s = NULL;
    ar_status rst = ar_nt_read_file(path, (const ar_nt_opts *)ms->nt_opts, &s, e);
    if (rst != AR_OK) return rst;
    ar_status stv = AR_OK, *st = &stv;
    ar_nt_coll want_coll = ms->nt_coll ? (ar_nt_coll)ms->nt_coll : AR_NT_ALL_REDUCE;
    const char *wn = ar_nt_coll_name(want_coll);
    if (ms->verb) {
        ar_nt_print_assumed(s, ms->verb, stderr);
        int nar = 0, other = -1;
        for (int i = 0; i < s->nruns && !*st; i++) {
            const ar_nt_run *run = &s->runs[i];
            if (!run->nrecs) continue;
            if (run->coll == AR_NT_COLL_UNKNOWN)
                *st = ar_fail(e, AR_EINVAL,
                              "%s:%d: the collective is not named in the file (no \"# Collective test starting\" "
                              "line, no *_perf command) and its table does not tell it; give --coll "
                              "allreduce|allgather|reducescatter|broadcast|reduce|alltoall",
                              path, run->first_line);
            else if (run->coll == want_coll) nar++;
            else other = i;
        }
        if (!*st && other >= 0) {
            const char *cn = ar_nt_coll_name(s->runs[other].coll);
            if (!nar)
                *st = ar_fail(e, AR_EINVAL, "%s: no %s run (it holds %s): --coll %s compares those", path, wn, cn, cn);
            else
                fprintf(stderr, "arlab %s: %s: its %s run(s) are left out (--coll %s compares those)\n", ms->verb, path,
                        cn, cn);
        }
        int bad = *st ? 0 : ar_nt_drop_wrong(s);
        if (bad)
            fprintf(stderr, "arlab %s: %s: %d row%s with #wrong > 0 (wrong results) left out\n", ms->verb, path, bad,
                    bad == 1 ? "" : "s");
    }
    for (int i = 0; i < s->nrecs && !*st; i++) {
        const ar_nt_record *r = &s->recs[i];
        const ar_nt_run *run = &s->runs[r->run];
        if (run->coll != want_coll) continue;
        if (run->nranks < 1 && !ms->verb) continue;
        if (run->nranks < 1 && !ms->nt_noranks++) snprintf(ms->nt_noranks_file, sizeof ms->nt_noranks_file, "%s", path);
        const ar_nt_timing *h[2] = {&r->oop, &r->ip};
        for (int k = 0; k < 2 && !*st; k++) {
            double t = h[k]->time_us * 1e-6;
            if (!h[k]->present || !(t > 0) || !isfinite(t)) continue;
            /* nccl-tests' own rows are NCCL's all-reduce; arlab's documents name the algorithm that ran */
            *st = push(ms, run->arlab_algo[0] ? run->arlab_algo : "nccl-allreduce", "", run->nranks,
                       (double)r->size_bytes, t, k, h[k]->nwrong >= 0 ? (long long)h[k]->nwrong : -1, e);
            if (!*st) {
                snprintf(ms->nccl_algo[ms->n - 1], sizeof ms->nccl_algo[0], "%s", run->algo);
                snprintf(ms->nccl_proto[ms->n - 1], sizeof ms->nccl_proto[0], "%s", run->proto);
            }
        }
    }
    ar_nt_free(s);
    return stv;
}

static ar_status add(lab_measures *ms, char **f, int nf, const int *col, ar_err *e) {
    double ranks, bytes, t;
    if (col[M_RANKS] >= nf || col[M_BYTES] >= nf || col[M_TIME] >= nf || col[M_ALGO] >= nf) return AR_OK;
    if (col[M_PLATFORM] >= nf) return AR_OK;
    if (!num(f[col[M_RANKS]], &ranks) || !num(f[col[M_BYTES]], &bytes) || !num(f[col[M_TIME]], &t)) return AR_OK;
    if (!(t > 0) || !isfinite(t) || !(ranks >= 1) || ranks > AR_MAX_RANKS || !(bytes > 0)) return AR_OK;
    double d;
    int inplace = col[M_INPLACE] >= 0 && col[M_INPLACE] < nf && num(f[col[M_INPLACE]], &d) ? d != 0 : 1;
    long long wrong = col[M_WRONG] >= 0 && col[M_WRONG] < nf && num(f[col[M_WRONG]], &d) && isfinite(d) ? (long long)d
                                                                                                        : -1;
    return push(ms, f[col[M_ALGO]], col[M_PLATFORM] >= 0 ? f[col[M_PLATFORM]] : "", (int)ranks, bytes, t, inplace,
                wrong, e);
}

/* nccl-tests' column header (its '#' perhaps stripped): a line holding "size", "count" and "busbw" words
 * and no comma (a CSV header names its columns with commas). */
static int nt_header(const char *text) {
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        char buf[512];
        if (n < sizeof buf) {
            memcpy(buf, l, n);
            buf[n] = 0;
            if (!strchr(buf, ',') && strstr(buf, " size ") && strstr(buf, " count ") && strstr(buf, " busbw")) return 1;
        }
        l = nl ? nl + 1 : NULL;
    }
    return 0;
}

ar_status lab_measured_read(const char *path, int strict, lab_measures *ms, ar_err *e) {
    char *text = NULL;
    ar_status st = ar_read_file(path, (size_t)1 << 30, &text, NULL, e);
    if (st != AR_OK) return st;
    { /* nccl-tests output (text or JSON) is recognised by its own reader first */
        const char *q = text;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') q++;
        if (*q == '{' || strstr(text, "Avg bus bandwidth") || strstr(text, "out-of-place") || nt_header(text)) {
            free(text);
            return read_nccltests(path, ms, e);
        }
    }
    int col[M_N];
    for (int w = 0; w < M_N; w++) col[w] = -1;
    int line = 0, have = 0;
    for (char *save = NULL, *l = strtok_r(text, "\r\n", &save); !st && l; l = strtok_r(NULL, "\r\n", &save)) {
        if (line == 0 && l[0] == '#') continue; /* comments before the header */
        char **f = NULL;
        int nf = ar_csv_split(l, &f, 256);
        if (nf < 0) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        if (line++ == 0) {
            for (int c = 0; c < nf; c++)
                for (int w = 0; w < M_N; w++)
                    if (col[w] < 0 && !strcmp(f[c], want[w])) col[w] = c;
            have = col[M_ALGO] >= 0 && col[M_RANKS] >= 0 && col[M_BYTES] >= 0 && col[M_TIME] >= 0 &&
                   (col[M_PLATFORM] >= 0 || strict);
            if (!have && strict)
                st = ar_fail(e, AR_EINVAL,
                             "%s: the header must name algo, ranks, bytes and measured_s "
                             "(a CSV from 'arlab real --format csv')",
                             path);
        } else if (have) {
            st = add(ms, f, nf, col, e);
        }
        ar_csv_free(f, nf);
    }
    if (!st && strict && line == 0) st = ar_fail(e, AR_EINVAL, "%s: empty (no header line)", path);
    free(text);
    return st;
}

void lab_measures_free(lab_measures *ms) {
    for (int i = 0; i < ms->n; i++) {
        free(ms->m[i].algo);
        free(ms->m[i].platform);
    }
    AR_FREE_ALL(ms->m, ms->inplace, ms->wrong, ms->nccl_algo, ms->nccl_proto);
    memset(ms, 0, sizeof *ms);
}

int lab_measured_find(const lab_measures *ms, const char *algo, int ranks, double bytes) {
    int any = -1;
    for (int i = 0; i < ms->n; i++) {
        const lab_measure *m = &ms->m[i];
        if (strcmp(m->algo, algo) || m->ranks != ranks || m->bytes != bytes) continue;
        if (ms->inplace[i]) return i;
        if (any < 0) any = i;
    }
    return any;
}
