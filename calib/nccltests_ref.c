/* The reference corpus of published measurements (nccltests_in.h). */
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

/* ------------------------------------------------------------------ reference corpus */

enum {
    R_SYSTEM,
    R_PRESET,
    R_COLL,
    R_RANKS,
    R_NODES,
    R_SIZE,
    R_BUSBW,
    R_ALGBW,
    R_ALGO,
    R_NCCL,
    R_KIND,
    R_SOURCE,
    R_NOTE,
    R_N
};
static const char *const ref_cols[R_N] = {"system",     "preset",     "collective", "ranks",     "nodes",
                                          "size_bytes", "busbw_GBps", "algbw_GBps", "algorithm", "nccl_version",
                                          "kind",       "source",     "note"};

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
            case R_SYSTEM: nt_copy_str(r->system, sizeof r->system, x, strlen(x)); break;
            case R_PRESET: nt_copy_str(r->preset, sizeof r->preset, x, strlen(x)); break;
            case R_ALGO: nt_copy_str(r->algorithm, sizeof r->algorithm, x, strlen(x)); break;
            case R_NCCL: nt_copy_str(r->nccl_version, sizeof r->nccl_version, x, strlen(x)); break;
            case R_KIND: nt_copy_str(r->kind, sizeof r->kind, x, strlen(x)); break;
            case R_SOURCE: nt_copy_str(r->source, sizeof r->source, x, strlen(x)); break;
            case R_NOTE: nt_copy_str(r->note, sizeof r->note, x, strlen(x)); break;
            case R_COLL:
                if (*x && (r->coll = ar_nt_coll_parse(x)) == AR_NT_COLL_UNKNOWN)
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"collective\": %s is not an nccl-tests collective", path,
                                 line, ar_quote(x, q, sizeof q));
                break;
            case R_RANKS:
            case R_NODES:
                if (!*x) break;
                if (!nt_tok_long(x, 1, 1 << 24, &lv))
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"%s\": %s is not a positive count", path, line,
                                 ref_cols[map[i]], ar_quote(x, q, sizeof q));
                else if (map[i] == R_RANKS) r->ranks = (int)lv;
                else r->nodes = (int)lv;
                break;
            case R_SIZE:
                if (*x && !nt_tok_u64(x, &r->size_bytes))
                    st = ar_fail(e, AR_EINVAL, "%s:%d: field \"size_bytes\": %s is not a byte count", path, line,
                                 ar_quote(x, q, sizeof q));
                break;
            case R_BUSBW:
            case R_ALGBW: {
                double d;
                if (!*x && map[i] == R_ALGBW) break;
                if (!nt_tok_double(x, &d) || !isfinite(d) || d <= 0)
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
