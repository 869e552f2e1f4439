/* JSON-path error reporting shared by the JSON loaders (platforms, sweeps).
 *
 * A loader keeps an ar_jpath while it walks a cJSON tree: it pushes a key or
 * an index before reading a field and pops back after, so that any failure can
 * say "WHERE: JSON.PATH: what is wrong" (e.g. `x.json: levels[1].bw: "12.5GBs"
 * is not a rate ...`). The path is a fixed buffer (long paths are cut, never
 * overflowed); the context owns nothing.
 */
#ifndef AR_JSONPATH_H
#define AR_JSONPATH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "status.h"

typedef struct ar_jpath {
    const char *where; /* document name (file path or "<json>") */
    char path[480];    /* current path, e.g. "root.children[1].bw" */
    size_t len;
    ar_err *e; /* may be NULL: messages are dropped */
} ar_jpath;

/* Appends ".key" (or "key" at the top) / "[i]"; return the length to pop back to. */
size_t ar_jpath_key(ar_jpath *c, const char *key);
size_t ar_jpath_idx(ar_jpath *c, int i);
void ar_jpath_pop(ar_jpath *c, size_t old);

/* Formats the message, prefixed with where and the current path; returns st. */
ar_status ar_jpath_fail(ar_jpath *c, ar_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes a message another module already wrote (e.g. units.c) the same way. */
ar_status ar_jpath_wrap(ar_jpath *c, ar_status st);

/* "a number", "a string", ... for messages. */
const char *ar_json_type_name(const cJSON *j);

/* Rejects keys of obj not in the NULL-terminated `allowed` list, and repeated
 * keys; keys starting with '_' are comments. */
ar_status ar_jpath_check_keys(ar_jpath *c, const cJSON *obj, const char *const *allowed);

#endif
