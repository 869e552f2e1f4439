/* Status codes and error messages shared by every arlab module.
 *
 * Every fallible function returns ar_status and, on failure, fills an ar_err
 * (caller-owned, fixed size, no allocation) with one line naming the file,
 * JSON path, field, value or rank at fault. ar_err may be NULL: the message is
 * then dropped. Exit codes of the `arlab` command are the ar_status values.
 */
#ifndef AR_STATUS_H
#define AR_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum ar_status {
    AR_OK = 0,
    AR_EFAIL = 1,        /* a check failed (e.g. --check found a wrong sum) */
    AR_EINVAL = 2,       /* bad user input: option, unit, JSON, value */
    AR_EUNSUPPORTED = 3, /* valid input an algorithm/backend cannot serve */
    AR_EIO = 4,          /* file could not be read or written */
    AR_ENOMEM = 5,       /* allocation failed */
    AR_EINTERNAL = 6,    /* a bug in arlab (an invariant broke) */
    AR_ELIMIT = 7,       /* a documented limit exceeded (ranks, bytes, transfers, budget) */
    AR_EBACKEND = 8      /* a backend failed: a CUDA, NCCL, MPI or SimGrid error */
} ar_status;

#define AR_ERR_LEN 512
typedef struct ar_err {
    char msg[AR_ERR_LEN];
} ar_err;

/* Formats the message into e (if non-NULL) and returns s. */
ar_status ar_fail(ar_err *e, ar_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes e->msg with "prefix: " (used to add a file name or JSON path). */
void ar_err_prefix(ar_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *ar_status_name(ar_status s);

/* Checked allocation helpers: abort-free; return NULL on overflow/failure. */
void *ar_calloc(size_t n, size_t size);
void *ar_reallocarray(void *p, size_t n, size_t size);
char *ar_strdup(const char *s);

/* free() on each pointer of a list (any object pointer types, NULL ones included), for the destructors of
 * structures with many arrays: AR_FREE_ALL(p->a, p->b, p->c). */
#define AR_FREE_ALL(...) \
    ar_free_all((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
void ar_free_all(void *const *ptrs, size_t n);

/* Writes s into buf (size n) for an error message: double-quoted, with '"',
 * '\\' and control bytes escaped, cut with "..." when longer than buf.
 * Returns buf (caller-owned). */
char *ar_quote(const char *s, char *buf, size_t n);

#endif
