/* Measurement arithmetic, inputs, result rows and CSV (rmeasure.h).
 * Pure C. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rmeasure.h"
#include "core/textio.h"

/* ---- bandwidths ------------------------------------------------------------ */

double ar_real_busbw_factor(ar_real_coll c, int nranks) {
    double n = (double)nranks;
    if (nranks < 1) return NAN;
    switch (c) {
    case AR_COLL_ALL_REDUCE: return 2.0 * (n - 1.0) / n;
    case AR_COLL_REDUCE_SCATTER:
    case AR_COLL_ALL_GATHER: return (n - 1.0) / n;
    case AR_COLL_REDUCE:
    case AR_COLL_BROADCAST:
    case AR_COLL_SENDRECV: return 1.0;
    }
    return NAN;
}

void ar_real_bw(ar_real_coll c, double bytes, double time_s, int nranks, double *algbw_GBps, double *busbw_GBps) {
    double alg = time_s > 0 && isfinite(time_s) ? bytes / 1e9 / time_s : NAN;
    if (algbw_GBps) *algbw_GBps = alg;
    if (busbw_GBps) *busbw_GBps = alg * ar_real_busbw_factor(c, nranks);
}

/* ---- statistics ------------------------------------------------------------ */

static int dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ar_status ar_real_stats(const double *t, int n, double *med, double *min, double *max) {
    *med = *min = *max = NAN;
    if (n <= 0) return AR_OK;
    double *c = ar_reallocarray(NULL, (size_t)n, sizeof *c);
    if (!c) return AR_ENOMEM;
    memcpy(c, t, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, dcmp);
    *min = c[0];
    *max = c[n - 1];
    *med = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return AR_OK;
}

/* ---- inputs --------------------------------------------------------------- */

double ar_real_exact_limit(ar_dtype t) {
    switch (t) {
    case AR_DTYPE_F32: return 16777216.0;         /* 2^24 */
    case AR_DTYPE_F16: return 2048.0;             /* 2^11 */
    case AR_DTYPE_BF16: return 256.0;             /* 2^8 */
    case AR_DTYPE_F64: return 9007199254740992.0; /* 2^53 */
    case AR_DTYPE_I32: return 2147483647.0;
    }
    return 0;
}

int ar_real_pattern_m(ar_dtype t, int nranks) {
    if (nranks < 1) return 0;
    double m = floor(ar_real_exact_limit(t) / (double)nranks);
    if (m > 1021) m = 1021;
    return m < 1 ? 0 : (int)m;
}

void ar_real_expected_table(int nranks, int m, double *table) {
    for (int k = 0; k < m; k++) {
        double s = 0;
        for (int r = 0; r < nranks; r++) s += ar_real_input(r, (uint64_t)k, m);
        table[k] = s;
    }
}

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t ar_real_f32_to_bf16(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return (uint16_t)((u >> 16) | 0x0040u); /* NaN */
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb; /* round to nearest even (overflows into Inf correctly) */
    return (uint16_t)(u >> 16);
}

float ar_real_bf16_to_f32(uint16_t h) { return u2f((uint32_t)h << 16); }

uint16_t ar_real_f32_to_f16(float f) {
    uint32_t u = f2u(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t man = u & 0x007fffffu;
    if (exp == 0xffu) return (uint16_t)(sign | 0x7c00u | (man ? 0x0200u : 0)); /* Inf/NaN */
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u); /* overflow -> Inf */
    if (e <= 0) {                                   /* subnormal or zero */
        if (e < -10) return (uint16_t)sign;
        man |= 0x00800000u;
        int shift = 14 - e; /* 24-bit mantissa -> 10 bits, scaled by 2^(e-1) */
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1u), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++; /* may carry into the exponent: correct */
    return (uint16_t)half;
}

float ar_real_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
    uint32_t man = (uint32_t)h & 0x3ffu;
    if (exp == 0x1fu) return u2f(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (!man) return u2f(sign);
        float v = ldexpf((float)man, -24);
        return sign ? -v : v;
    }
    return u2f(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

void ar_real_fill(void *buf, ar_dtype t, int rank, uint64_t count, int m) {
    for (uint64_t x = 0; x < count; x++) {
        double v = ar_real_input(rank, x, m);
        switch (t) {
        case AR_DTYPE_F32: ((float *)buf)[x] = (float)v; break;
        case AR_DTYPE_F64: ((double *)buf)[x] = v; break;
        case AR_DTYPE_I32: ((int32_t *)buf)[x] = (int32_t)v; break;
        case AR_DTYPE_F16: ((uint16_t *)buf)[x] = ar_real_f32_to_f16((float)v); break;
        case AR_DTYPE_BF16: ((uint16_t *)buf)[x] = ar_real_f32_to_bf16((float)v); break;
        }
    }
}

static double get(const void *buf, ar_dtype t, uint64_t x) {
    switch (t) {
    case AR_DTYPE_F32: return ((const float *)buf)[x];
    case AR_DTYPE_F64: return ((const double *)buf)[x];
    case AR_DTYPE_I32: return ((const int32_t *)buf)[x];
    case AR_DTYPE_F16: return ar_real_f16_to_f32(((const uint16_t *)buf)[x]);
    case AR_DTYPE_BF16: return ar_real_bf16_to_f32(((const uint16_t *)buf)[x]);
    }
    return NAN;
}

uint64_t ar_real_count_wrong(const void *buf, ar_dtype t, uint64_t count, const double *table, int m,
                             uint64_t *first_bad) {
    uint64_t bad = 0;
    for (uint64_t x = 0; x < count; x++)
        if (!(get(buf, t, x) == table[x % (uint64_t)m])) {
            if (!bad && first_bad) *first_bad = x;
            bad++;
        }
    return bad;
}

/* ---- machines --------------------------------------------------------------- */

ar_status ar_real_machines_from_keys(const char *const *keys, int nranks, int *machine_of_rank, int *nmachines,
                                     ar_err *e) {
    char q1[96], q2[96];
    int nm = 0;
    for (int r = 0; r < nranks; r++) {
        int found = -1;
        for (int s = 0; s < r && found < 0; s++)
            if (!strcmp(keys[s], keys[r])) found = machine_of_rank[s];
        if (found < 0) {
            found = nm++;
        } else if (machine_of_rank[r - 1] != found) {
            *nmachines = nm;
            return ar_fail(e, AR_EUNSUPPORTED,
                           "rank %d is on machine %s like earlier ranks, but rank %d is on %s: arlab numbers ranks "
                           "machine by machine, so launch them contiguously (mpirun --map-by slot, or core)",
                           r, ar_quote(keys[r], q1, sizeof q1), r - 1, ar_quote(keys[r - 1], q2, sizeof q2));
        }
        machine_of_rank[r] = found;
    }
    *nmachines = nm;
    return AR_OK;
}

/* ---- rows and CSV ---------------------------------------------------------- */

const char *const ar_real_cols[AR_REAL_NCOLS_ALL] = {
    "algo",   "platform",   "ranks",      "bytes",  "measured_s", "model_s",   "rel_err", "min_s",
    "max_s",  "algbw_GBps", "busbw_GBps", "wrong",  "inplace",    "dtype",     "iters",   "lowering",
    "nccl_s", "vs_nccl",    "empty_s",    "timing", "placement",  "transport", "graph"};

void ar_real_row_derive(ar_real_row *r) {
    ar_real_bw(AR_COLL_ALL_REDUCE, r->bytes, r->measured_s, r->ranks, &r->algbw_GBps, &r->busbw_GBps);
    r->rel_err = r->model_s > 0 ? (r->measured_s - r->model_s) / r->model_s : NAN;
    r->vs_nccl = r->nccl_s > 0 ? r->measured_s / r->nccl_s : NAN;
}

/* One missing-value convention: a missing number is empty (the reader still takes an old "nan");
 * times at full precision (%.17g). */
static int num(char *buf, size_t n, const char *fmt, double v) {
    if (!isfinite(v)) snprintf(buf, n, "%s", "");
    else if (!strcmp(fmt, "g9")) snprintf(buf, n, "%.17g", v);
    else if (!strcmp(fmt, "g4")) snprintf(buf, n, "%.4g", v);
    else snprintf(buf, n, "%.0f", v);
    return 1;
}

int ar_real_row_field(const ar_real_row *r, int c, char *buf, size_t n) {
    switch (c) {
    case 0: snprintf(buf, n, "%s", r->algo); return 0;
    case 1: snprintf(buf, n, "%s", r->platform); return 0;
    case 2: snprintf(buf, n, "%d", r->ranks); return 1;
    case 3: return num(buf, n, "int", r->bytes);
    case 4: return num(buf, n, "g9", r->measured_s);
    case 5: return num(buf, n, "g9", r->model_s);
    case 6: return num(buf, n, "g4", r->rel_err);
    case 7: return num(buf, n, "g9", r->min_s);
    case 8: return num(buf, n, "g9", r->max_s);
    case 9: return num(buf, n, "g4", r->algbw_GBps);
    case 10: return num(buf, n, "g4", r->busbw_GBps);
    case 11: snprintf(buf, n, "%lld", r->wrong); return 1;
    case 12: snprintf(buf, n, "%d", r->inplace); return 1;
    case 13: snprintf(buf, n, "%s", r->dtype); return 0;
    case 14: snprintf(buf, n, "%d", r->iters); return 1;
    case 15: snprintf(buf, n, "%s", r->lowering); return 0;
    case 16: return num(buf, n, "g9", r->nccl_s);
    case 17: return num(buf, n, "g4", r->vs_nccl);
    case 18: return num(buf, n, "g9", r->empty_s);
    case 19: snprintf(buf, n, "%s", r->timing); return 0;
    case 20: snprintf(buf, n, "%s", r->placement); return 0;
    case 21: snprintf(buf, n, "%s", r->transport); return 0;
    case 22: snprintf(buf, n, "%d", r->graph); return 1;
    }
    if (n) buf[0] = 0;
    return 0;
}

void ar_real_csv_header(FILE *f) {
    for (int c = 0; c < AR_REAL_NCOLS_ALL; c++) fprintf(f, "%s%s", c ? "," : "", ar_real_cols[c]);
    fputc('\n', f);
}

void ar_real_csv_row(FILE *f, const ar_real_row *r) {
    char buf[300];
    for (int c = 0; c < AR_REAL_NCOLS_ALL; c++) {
        if (c) fputc(',', f);
        ar_real_row_field(r, c, buf, sizeof buf);
        ar_csv_field(f, buf);
    }
    fputc('\n', f);
}

/* Splits one CSV line (quotes as written above) into at most max fields, in
 * place; returns the count or -1 on a malformed quote. */
static int csv_split(char *line, char **fields, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return n;
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            char *q = p + 1;
            for (;;) {
                if (!*q) return -1;
                if (*q == '"') {
                    if (q[1] == '"') {
                        *out++ = '"';
                        q += 2;
                        continue;
                    }
                    q++;
                    break;
                }
                *out++ = *q++;
            }
            if (*q && *q != ',') return -1;
            char *next = *q ? q + 1 : NULL;
            *out = 0;
            if (!next) return n;
            p = next;
        } else {
            char *c = strchr(p, ',');
            if (!c) return n;
            *c = 0;
            p = c + 1;
        }
    }
}

static int parse_d(const char *s, double *v) {
    if (!strcmp(s, "nan") || !*s) {
        *v = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return errno || *end ? -1 : 0;
}

ar_status ar_real_csv_read(const char *path, ar_real_row **rows, int *nrows, ar_err *e) {
    char q[160];
    *rows = NULL;
    *nrows = 0;
    FILE *f = fopen(path, "r");
    if (!f) return ar_fail(e, AR_EIO, "%s: cannot open: %s", ar_quote(path, q, sizeof q), strerror(errno));
    char line[4096];
    int col[AR_REAL_NCOLS];
    for (int c = 0; c < AR_REAL_NCOLS; c++) col[c] = -1;
    ar_status st = AR_OK;
    int lineno = 0, cap = 0, header = 0;
    ar_real_row *out = NULL;
    int n = 0;
    while (st == AR_OK && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            st = ar_fail(e, AR_EINVAL, "%s:%d: line too long", ar_quote(path, q, sizeof q), lineno);
            break;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (!len || line[0] == '#') continue;
        char *fl[64];
        int nf = csv_split(line, fl, 64);
        if (nf < 0) {
            st = ar_fail(e, AR_EINVAL, "%s:%d: malformed quoted field", ar_quote(path, q, sizeof q), lineno);
            break;
        }
        if (!header) {
            for (int i = 0; i < nf; i++)
                for (int c = 0; c < AR_REAL_NCOLS; c++)
                    if (!strcmp(fl[i], ar_real_cols[c])) col[c] = i;
            if (col[0] < 0 || col[2] < 0 || col[3] < 0 || col[4] < 0) {
                st = ar_fail(e, AR_EINVAL,
                             "%s:%d: the header must name algo, ranks, bytes and measured_s "
                             "(a CSV from 'arlab real --format csv')",
                             ar_quote(path, q, sizeof q), lineno);
                break;
            }
            header = 1;
            continue;
        }
        if (n == cap) {
            int nc = cap ? 2 * cap : 32;
            ar_real_row *nr = ar_reallocarray(out, (size_t)nc, sizeof *nr);
            if (!nr) {
                st = ar_fail(e, AR_ENOMEM, "%s: out of memory", ar_quote(path, q, sizeof q));
                break;
            }
            out = nr;
            cap = nc;
        }
        ar_real_row *r = &out[n];
        memset(r, 0, sizeof *r);
        r->measured_s = r->model_s = r->rel_err = r->min_s = r->max_s = NAN;
        r->algbw_GBps = r->busbw_GBps = r->nccl_s = r->vs_nccl = NAN;
        r->inplace = 1;
        for (int c = 0; c < AR_REAL_NCOLS && st == AR_OK; c++) {
            if (col[c] < 0) continue;
            if (col[c] >= nf) {
                st = ar_fail(e, AR_EINVAL, "%s:%d: %d fields, column %s is field %d", ar_quote(path, q, sizeof q),
                             lineno, nf, ar_real_cols[c], col[c] + 1);
                break;
            }
            const char *v = fl[col[c]];
            double d = NAN;
            int bad = 0;
            switch (c) {
            case 0: snprintf(r->algo, sizeof r->algo, "%s", v); break;
            case 1: snprintf(r->platform, sizeof r->platform, "%s", v); break;
            case 13: snprintf(r->dtype, sizeof r->dtype, "%s", v); break;
            case 15: snprintf(r->lowering, sizeof r->lowering, "%s", v); break;
            default:
                bad = parse_d(v, &d);
                if (!bad && (c == 2 || c == 11 || c == 12 || c == 14) && !(d == floor(d))) bad = 1;
                break;
            }
            if (bad) {
                st = ar_fail(e, AR_EINVAL, "%s:%d: column %s: %s is not a number", ar_quote(path, q, sizeof q), lineno,
                             ar_real_cols[c], ar_quote(v, q, sizeof q));
                break;
            }
            switch (c) {
            case 2: r->ranks = isfinite(d) && d > 0 && d < 1e9 ? (int)d : 0; break;
            case 3: r->bytes = d; break;
            case 4: r->measured_s = d; break;
            case 5: r->model_s = d; break;
            case 6: r->rel_err = d; break;
            case 7: r->min_s = d; break;
            case 8: r->max_s = d; break;
            case 9: r->algbw_GBps = d; break;
            case 10: r->busbw_GBps = d; break;
            case 11: r->wrong = isfinite(d) ? (long long)d : -1; break;
            case 12: r->inplace = d != 0; break;
            case 14: r->iters = isfinite(d) && fabs(d) < 1e9 ? (int)d : 0; break;
            case 16: r->nccl_s = d; break;
            case 17: r->vs_nccl = d; break;
            default: break;
            }
        }
        if (st == AR_OK) n++;
    }
    if (st == AR_OK && ferror(f)) st = ar_fail(e, AR_EIO, "%s: read error", ar_quote(path, q, sizeof q));
    if (st == AR_OK && !header) st = ar_fail(e, AR_EINVAL, "%s: empty (no header line)", ar_quote(path, q, sizeof q));
    fclose(f);
    if (st != AR_OK) {
        free(out);
        return st;
    }
    *rows = out;
    *nrows = n;
    return AR_OK;
}

const ar_real_row *ar_real_rows_find(const ar_real_row *rows, int n, const char *algo, int ranks, double bytes,
                                     int want_inplace) {
    const ar_real_row *any = NULL;
    for (int i = 0; i < n; i++) {
        const ar_real_row *r = &rows[i];
        if (strcmp(r->algo, algo) || r->ranks != ranks || r->bytes != bytes) continue;
        if (r->inplace == want_inplace) return r;
        if (!any) any = r;
    }
    return any;
}
