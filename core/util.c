#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ar_grow(void *pp, size_t *cap, size_t need, size_t elem) {
    void **p = pp;
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2) return -1;
        c *= 2;
    }
    void *np = ar_reallocarray(*p, c, elem);
    if (!np) return -1;
    *p = np;
    *cap = c;
    return 0;
}

ar_status ar_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ar_err *e) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return ar_fail(e, AR_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ar_status st = AR_OK;
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (n > max_bytes) {
            st = ar_fail(e, AR_ELIMIT, "%s: larger than %zu bytes", path, max_bytes);
            break;
        }
        if (k == 0) break;
        if (n + 1 == cap) {
            char *nb = ar_reallocarray(buf, cap, 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
    }
    if (st == AR_OK && !buf) st = ar_fail(e, AR_ENOMEM, "%s: out of memory", path);
    if (st == AR_OK && ferror(f)) st = ar_fail(e, AR_EIO, "%s: read error", path);
    fclose(f);
    if (st != AR_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    if (len) *len = n;
    *out = buf;
    return AR_OK;
}

char *ar_read_line(void *file, int *oom) {
    FILE *f = file;
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        *oom = 1;
        return NULL;
    }
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n + 2 > cap) {
            char *nb = ar_reallocarray(buf, cap, 2);
            if (!nb) {
                free(buf);
                *oom = 1;
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        buf[n++] = (char)ch;
    }
    if (ch == EOF && n == 0) {
        free(buf);
        return NULL;
    }
    if (n && buf[n - 1] == '\r') n--;
    buf[n] = '\0';
    return buf;
}

int ar_csv_split(const char *line, char ***fields, int max) {
    char **f = ar_calloc((size_t)max + 1, sizeof *f);
    if (!f) return -1;
    int n = 0;
    const char *p = line;
    size_t cap = strlen(line) + 1;
    for (;;) {
        char *buf = malloc(cap), *q = buf;
        if (!buf) {
            ar_csv_free(f, n);
            return -1;
        }
        if (*p == '"') {
            p++;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *q++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *q++ = *p++;
                }
            }
            while (*p && *p != ',') *q++ = *p++; /* junk after a closing quote: keep it */
        } else {
            while (*p && *p != ',') *q++ = *p++;
        }
        *q = '\0';
        if (n == max) {
            free(buf);
            break;
        }
        f[n++] = buf;
        if (*p != ',') break;
        p++;
    }
    *fields = f;
    return n;
}

void ar_csv_free(char **fields, int n) {
    if (!fields) return;
    for (int i = 0; i < n; i++) free(fields[i]);
    free(fields);
}

double ar_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ar_is_pow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }

int ar_ceil_log2(long long x) {
    int q = 0;
    while (q < 62 && (1LL << q) < x) q++;
    return q;
}

uint64_t ar_gcd_u64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t ar_gcd_i64(int64_t a, int64_t b) {
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    return (int64_t)ar_gcd_u64(ua, ub);
}

void ar_uf_init(int *uf, int n) {
    for (int i = 0; i < n; i++) uf[i] = i;
}

int ar_uf_find(int *uf, int x) {
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

int ar_uf_union(int *uf, int a, int b) {
    a = ar_uf_find(uf, a);
    b = ar_uf_find(uf, b);
    if (a == b) return 0;
    if (a < b) uf[b] = a;
    else uf[a] = b;
    return 1;
}

/* Optimal-string-alignment distance of a and b (each < 64 characters). */
static int osa_distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    int d[64][64];
    for (int i = 0; i <= la; i++) d[i][0] = i;
    for (int j = 0; j <= lb; j++) d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *ar_closest(const char *word, const char *const *cands, int n) {
    if (!word || strlen(word) > 63) return NULL;
    int len = (int)strlen(word), limit = len / 3 < 1 ? 1 : len / 3 > 2 ? 2 : len / 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (int i = 0; i < n; i++) {
        if (!cands[i] || strlen(cands[i]) > 63) continue;
        int dist = osa_distance(word, cands[i]);
        if (dist < bestd) {
            bestd = dist;
            best = cands[i];
        }
    }
    return best;
}
