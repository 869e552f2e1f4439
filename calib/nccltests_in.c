/* Reading nccl-tests output (nccltests_in.h): names, the set, number tokens,
 * the entry points and the fitting check. The text tables are parsed in
 * nccltests_text.c, the -J JSON reports in nccltests_json.c, the reference
 * corpus in nccltests_ref.c (shared internals: nccltests_int.h).
 */
#include "nccltests_in.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    (void)o;
    if (ar_grow(&s->runs, &s->cap_runs, (size_t)s->nruns + 1, sizeof *s->runs))
        return ar_fail(e, AR_ENOMEM, "%s: out of memory", s->files[file]);
    ar_nt_run *r = &s->runs[s->nruns];
    memset(r, 0, sizeof *r);
    r->file = file;
    r->first_line = line;
    r->coll = AR_NT_COLL_UNKNOWN; /* the caller's hint applies at the end (nt_resolve_run) */
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
    r->oop.maxerr = r->ip.maxerr = NAN;
    return r;
}

/* ------------------------------------------------------------------ facts the file may lack */

/* busbw / algbw of the run's row with the largest algbw (out-of-place, else in-place): nccl-tests'
 * bus factor, printed to 2 decimals, so the row with the largest numbers says it best. 0: none >= 1 GB/s. */
static double run_ratio(const ar_nt_set *s, const ar_nt_run *r, double *alg_out, double *bus_out) {
    double best = 0, ratio = 0;
    for (int i = r->first_rec; i < r->first_rec + r->nrecs; i++) {
        const ar_nt_timing *h[2] = {&s->recs[i].oop, &s->recs[i].ip};
        for (int k = 0; k < 2; k++) {
            if (!h[k]->present || !isfinite(h[k]->algbw_GBps) || !isfinite(h[k]->busbw_GBps)) continue;
            if (h[k]->algbw_GBps >= 1 && h[k]->algbw_GBps > best) {
                best = h[k]->algbw_GBps;
                ratio = h[k]->busbw_GBps / h[k]->algbw_GBps;
                *alg_out = h[k]->algbw_GBps, *bus_out = h[k]->busbw_GBps;
            }
        }
    }
    return ratio;
}

/* Does n ranks reproduce busbw from algbw for coll, to the 2 printed decimals? */
static int ratio_fits(ar_nt_coll c, int n, double alg, double bus) {
    double f = ar_nt_busbw_factor(c, n);
    return f > 0 && fabs(alg * f - bus) <= 0.0051 * (1 + f) + 1e-9;
}

/* The one rank count in [2, 65536] whose bus factor reproduces busbw; 0 when none or several. */
static int ranks_from_ratio(ar_nt_coll c, double alg, double bus) {
    double f = bus / alg;
    double est;
    if (ar_nt_busbw_factor(c, 4) <= 0) return 0;
    if (c == AR_NT_ALL_REDUCE) est = f < 2 ? 2 / (2 - f) : 0;
    else if (ar_nt_busbw_factor(c, 4) < 1) est = f < 1 ? 1 / (1 - f) : 0; /* (n-1)/n */
    else return 0;                                                        /* factor 1: says nothing */
    if (!(est >= 1.5) || est > 70000) return 0;
    int found = 0, lo = (int)floor(est * 0.9) - 1, hi = (int)ceil(est * 1.1) + 1;
    if (lo < 2) lo = 2;
    for (int n = lo; n <= hi; n++)
        if (ratio_fits(c, n, alg, bus)) {
            if (found) return 0; /* several fit: too few digits */
            found = n;
        }
    return found;
}

/* Every row's redop is w (case-insensitive). */
static int all_redop(const ar_nt_set *s, const ar_nt_run *r, const char *w) {
    for (int i = r->first_rec; i < r->first_rec + r->nrecs; i++)
        if (strcasecmp(s->recs[i].redop, w)) return 0;
    return r->nrecs > 0;
}
static int any_root(const ar_nt_set *s, const ar_nt_run *r) {
    for (int i = r->first_rec; i < r->first_rec + r->nrecs; i++)
        if (s->recs[i].root >= 0) return 1;
    return 0;
}

/* The collective from the table alone (the file names none): a root column >= 0 tells broadcast
 * (redop none) from reduce; redop none with no root is all_gather or alltoall (not told apart);
 * a reducing collective without root is all_reduce when busbw/algbw = 2(n-1)/n, reduce_scatter when
 * (n-1)/n, and ambiguous at 1 (sendrecv, or all_reduce of 2 ranks). n: the ranks the file shows, 0
 * unknown. */
static ar_nt_coll coll_from_columns(const ar_nt_set *s, const ar_nt_run *r, int n, double ratio, double alg,
                                    double bus) {
    if (r->nrecs == 0) return AR_NT_COLL_UNKNOWN;
    /* no redop printed (old broadcast, alltoall): not a reduction */
    int none = all_redop(s, r, "none") || all_redop(s, r, "");
    if (any_root(s, r)) return none ? AR_NT_BROADCAST : AR_NT_REDUCE;
    if (none || ratio <= 0) return AR_NT_COLL_UNKNOWN;
    if (n >= 2) {
        int ar = ratio_fits(AR_NT_ALL_REDUCE, n, alg, bus), rs = ratio_fits(AR_NT_REDUCE_SCATTER, n, alg, bus);
        int one = fabs(alg - bus) <= 0.0102;
        if (ar && !rs && !one) return AR_NT_ALL_REDUCE;
        if (rs && !ar && !one) return AR_NT_REDUCE_SCATTER;
        if (ar || rs || one) return AR_NT_COLL_UNKNOWN;
        /* neither fits the ranks shown (a list from another run): the numbers alone */
    }
    /* rank count unknown: above 1 only all_reduce's factor, below 1 only reduce_scatter's (reducing, no root) */
    if (ratio > 1.02 && ratio < 2) return AR_NT_ALL_REDUCE;
    if (ratio < 0.98 && ratio > 0.45) return AR_NT_REDUCE_SCATTER;
    return AR_NT_COLL_UNKNOWN;
}

/* Device lines that number ranks 0..n-1 once each. */
static int devices_whole(const ar_nt_run *r) {
    if (r->ndevices < 1 || r->dev_cut) return 0;
    for (int i = 0; i < r->ndevices; i++) {
        int k = r->devices[i].rank;
        if (k < 0 || k >= r->ndevices) return 0;
        for (int j = 0; j < i; j++)
            if (r->devices[j].rank == k) return 0;
    }
    return 1;
}

static int max_rank(const ar_nt_run *r) {
    int m = -1;
    for (int i = 0; i < r->ndevices; i++) m = r->devices[i].rank > m ? r->devices[i].rank : m;
    return m;
}

void nt_resolve_run(ar_nt_set *s, int run, const ar_nt_opts *o, int nranks_log, ar_nt_coll cmd_coll) {
    ar_nt_run *r = &s->runs[run];
    double alg = 0, bus = 0;
    r->busbw_ratio = run_ratio(s, r, &alg, &bus);
    r->ndev_shown = r->ndevices;
    /* the ranks the file shows, for telling the collective: whole device lines, NCCL's log, else the
     * highest rank of a list cut short */
    int n0 = devices_whole(r) ? r->ndevices : nranks_log > 0 ? nranks_log : r->ndevices ? max_rank(r) + 1 : 0;
    if (r->ndevices && !devices_whole(r)) r->dev_cut = 1;
    if (r->coll != AR_NT_COLL_UNKNOWN) r->coll_from = AR_NT_FROM_FILE;
    else if (cmd_coll != AR_NT_COLL_UNKNOWN) r->coll = cmd_coll, r->coll_from = AR_NT_FROM_COMMAND;
    else if (o && o->coll) r->coll = o->coll, r->coll_from = AR_NT_FROM_OPTION;
    else if ((r->coll = coll_from_columns(s, r, n0, r->busbw_ratio, alg, bus)) != AR_NT_COLL_UNKNOWN)
        r->coll_from = AR_NT_FROM_COLUMNS;
    /* the rank count: whole device lines, else NCCL's log, else the bus factor, else the caller's */
    int nr = r->busbw_ratio > 0 ? ranks_from_ratio(r->coll, alg, bus) : 0;
    if (devices_whole(r)) {
        r->nranks = r->ndevices, r->nranks_from = AR_NT_FROM_FILE;
        /* a list that stops early without "...": the numbers say more ranks ran than it shows */
        if (nr > r->ndevices && !ratio_fits(r->coll, r->ndevices, alg, bus)) {
            r->nranks = nr, r->nranks_from = AR_NT_FROM_COLUMNS, r->dev_cut = 1;
        }
    } else if (nranks_log > 0) {
        r->nranks = nranks_log, r->nranks_from = AR_NT_FROM_NCCL_LOG;
    } else if (r->ndevices > 0 && (!nr || nr == max_rank(r) + 1) &&
               (r->busbw_ratio <= 0 || ratio_fits(r->coll, max_rank(r) + 1, alg, bus))) {
        /* a list cut to its last lines: the highest rank it shows, where the numbers agree */
        r->nranks = max_rank(r) + 1, r->nranks_from = AR_NT_FROM_FILE, r->dev_cut = 1;
    } else if (nr) {
        r->nranks = nr, r->nranks_from = AR_NT_FROM_COLUMNS;
    } else if (o && o->ranks > 0) {
        r->nranks = o->ranks, r->nranks_from = AR_NT_FROM_OPTION;
    } else {
        r->nranks = 0, r->nranks_from = AR_NT_FROM_NONE;
    }
    if (o && o->algo && o->algo[0] && !r->algo[0]) {
        snprintf(r->algo, sizeof r->algo, "%s", o->algo);
        r->algo_hint = 1;
    }
    if (o && o->proto && o->proto[0] && !r->proto[0]) {
        snprintf(r->proto, sizeof r->proto, "%s", o->proto);
        r->proto_hint = 1;
    }
}

int ar_nt_print_assumed(const ar_nt_set *s, const char *verb, FILE *f) {
    int n = 0;
    for (int i = 0; i < s->nruns; i++) {
        const ar_nt_run *r = &s->runs[i];
        if (!r->nrecs) continue;
        char w[300];
        if (r->format_json) snprintf(w, sizeof w, "%s", s->files[r->file]);
        else snprintf(w, sizeof w, "%s:%d", s->files[r->file], r->first_line);
        const char *cn = ar_nt_coll_name(r->coll);
        if (r->coll_from == AR_NT_FROM_OPTION)
            n++, fprintf(f, "arlab %s: %s: collective %s from --coll (the file does not name it)\n", verb, w, cn);
        else if (r->coll_from == AR_NT_FROM_COLUMNS)
            n++, fprintf(f,
                         "arlab %s: %s: collective %s assumed from the table (redop %s, %s, busbw/algbw %.3f); "
                         "--coll sets it\n",
                         verb, w, cn, s->recs[r->first_rec].redop, any_root(s, r) ? "a root" : "no root",
                         r->busbw_ratio);
        if (r->nranks_from == AR_NT_FROM_COLUMNS) {
            char shown[96] = "no device lines";
            if (r->ndev_shown)
                snprintf(shown, sizeof shown, "the device list shows %d%s", r->ndev_shown,
                         r->dev_cut ? ", cut short" : "");
            n++, fprintf(f, "arlab %s: %s: %d ranks from busbw/algbw %.3f (%s's bus factor; %s); --ranks sets it\n",
                         verb, w, r->nranks, r->busbw_ratio, cn, shown);
        } else if (r->nranks_from == AR_NT_FROM_OPTION) {
            n++, fprintf(f, "arlab %s: %s: %d ranks from --ranks (the file does not give its rank count)\n", verb, w,
                         r->nranks);
        }
        if (r->algo_hint) n++, fprintf(f, "arlab %s: %s: NCCL_ALGO=%s from --nccl-algo\n", verb, w, r->algo);
        if (r->proto_hint) n++, fprintf(f, "arlab %s: %s: NCCL_PROTO=%s from --nccl-proto\n", verb, w, r->proto);
        if (!r->footer && !r->format_json)
            n++, fprintf(f,
                         "arlab %s: %s: the table has no \"# Avg bus bandwidth\" footer (cut when copied?); its %d "
                         "whole rows are read\n",
                         verb, w, r->nrecs);
    }
    return n;
}

int ar_nt_drop_wrong(ar_nt_set *s) {
    int bad = 0, k = 0;
    for (int ri = 0; ri < s->nruns; ri++) {
        ar_nt_run *r = &s->runs[ri];
        int first = k;
        for (int i = r->first_rec; i < r->first_rec + r->nrecs; i++) {
            ar_nt_record rec = s->recs[i];
            int w = 0;
            if (rec.oop.present && rec.oop.nwrong > 0) rec.oop.present = 0, w = 1;
            if (rec.ip.present && rec.ip.nwrong > 0) rec.ip.present = 0, w = 1;
            rec.flags &= ~(AR_NT_WRONG_OOP | AR_NT_WRONG_IP);
            bad += w;
            if (!rec.oop.present && !rec.ip.present) continue;
            s->recs[k++] = rec;
        }
        r->first_rec = first;
        r->nrecs = k - first;
    }
    s->nrecs = k;
    return bad;
}

int ar_nt_keep_coll(ar_nt_set *s, ar_nt_coll c) {
    int k = 0, nr = 0;
    for (int ri = 0; ri < s->nruns; ri++) {
        ar_nt_run r = s->runs[ri];
        if (r.coll != c) {
            free(r.devices);
            continue;
        }
        int first = k;
        for (int i = r.first_rec; i < r.first_rec + r.nrecs; i++) {
            s->recs[k] = s->recs[i];
            s->recs[k++].run = nr;
        }
        r.first_rec = first;
        r.nrecs = k - first;
        s->runs[nr++] = r;
    }
    s->nruns = nr;
    s->nrecs = k;
    return nr;
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
                           "%s:%d: the collective is unknown (the file does not name it and its table does "
                           "not tell it); give it (arlab: --coll allreduce|allgather|reducescatter|...)",
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
