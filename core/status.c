/* Status codes, error messages and checked allocation (see status.h). */
#include "status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ar_status ar_fail(ar_err *e, ar_status s, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

void ar_err_prefix(ar_err *e, const char *fmt, ...) {
    if (!e) return;
    char pre[AR_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    char old[AR_ERR_LEN];
    memcpy(old, e->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    /* e->msg = pre + ": " + old, cut at AR_ERR_LEN - 1 bytes */
    size_t cap = sizeof e->msg - 1, n = 0;
    const char *parts[3] = {pre, ": ", old};
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(parts[i]);
        if (len > cap - n) len = cap - n;
        memcpy(e->msg + n, parts[i], len);
        n += len;
    }
    e->msg[n] = '\0';
}

const char *ar_status_name(ar_status s) {
    switch (s) {
    case AR_OK: return "ok";
    case AR_EFAIL: return "check failed";
    case AR_EINVAL: return "invalid input";
    case AR_EUNSUPPORTED: return "unsupported";
    case AR_EIO: return "I/O error";
    case AR_ENOMEM: return "out of memory";
    case AR_EINTERNAL: return "internal error";
    case AR_ELIMIT: return "limit exceeded";
    case AR_EBACKEND: return "backend error";
    }
    return "unknown status";
}

void *ar_calloc(size_t n, size_t size) {
    if (n == 0 || size == 0) return calloc(1, 1);
    if (n > SIZE_MAX / size) return NULL;
    return calloc(n, size);
}

void *ar_reallocarray(void *p, size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) return NULL;
    size_t total = n * size;
    return realloc(p, total ? total : 1);
}

char *ar_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void ar_free_all(void *const *ptrs, size_t n) {
    for (size_t i = 0; i < n; i++) free(ptrs[i]);
}

char *ar_quote(const char *s, char *buf, size_t n) {
    static const char hex[] = "0123456789abcdef";
    if (!buf || n == 0) return buf;
    if (!s) {
        snprintf(buf, n, "(null)");
        return buf;
    }
    /* Room for the closing quote, "..." and the NUL. */
    size_t limit = n > 8 ? n - 6 : 0, o = 0;
    if (o + 1 < n) buf[o++] = '"';
    size_t i = 0;
    for (; s[i] && o < limit; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            if (o + 2 > limit) break;
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            if (o + 4 > limit) break;
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[c >> 4];
            buf[o++] = hex[c & 15];
        } else {
            buf[o++] = (char)c;
        }
    }
    if (s[i] && o + 3 < n) {
        buf[o++] = '.';
        buf[o++] = '.';
        buf[o++] = '.';
    }
    if (o + 1 < n) buf[o++] = '"';
    buf[o < n ? o : n - 1] = '\0';
    return buf;
}
