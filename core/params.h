/* Algorithm parameters: "name:key=value,key=value" (e.g. "pipelined-ring:chunks=8",
 * "blueconnect:decomp=3x2x2,impl=ring+hd+ring"). Keys a planner does not read
 * are reported as unknown by ar_params_check_used(), so typos never pass.
 * Ownership: ar_params_parse allocates; ar_params_free releases everything.
 */
#ifndef AR_PARAMS_H
#define AR_PARAMS_H

#include "status.h"

#define AR_MAX_PARAMS 16

typedef struct ar_params {
    char *name;                 /* algorithm name (text before ':') */
    int n;
    char *key[AR_MAX_PARAMS];
    char *val[AR_MAX_PARAMS];
    int used[AR_MAX_PARAMS];    /* set by the getters (logically mutable) */
} ar_params;

ar_status ar_params_parse(const char *text, ar_params *out, ar_err *e);
void ar_params_free(ar_params *p);

/* Each getter returns AR_OK and leaves *out unchanged when the key is absent. */
ar_status ar_params_get_int(ar_params *p, const char *key, long long min, long long max, long long *out, ar_err *e);
ar_status ar_params_get_str(ar_params *p, const char *key, const char **out);
/* Fails naming the first key no getter asked for. */
ar_status ar_params_check_used(const ar_params *p, ar_err *e);

#endif
