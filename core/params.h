/* Algorithm parameters: "name:key=value,key=value" (e.g. "pipelined-ring:chunks=8",
 * "blueconnect:decomp=3x2x2,impl=ring+hd+ring").
 *
 * Two steps. ar_params_parse splits the text into the name and key=value pairs
 * (syntax only). ar_params_bind then checks the pairs against an algorithm's
 * parameter table (ar_param_def: key, type, range or allowed words, default,
 * help; the table is data in the algorithm's descriptor, core/algo.h): unknown
 * keys (the message lists the valid ones), integers and their ranges, words of
 * an enumeration, lists; and fills one typed value per table entry, defaults
 * where a key is absent. This is the only parameter parser: planners, closed
 * forms, statistics and `arlab algos` all read the same table.
 *
 * Ownership: ar_params_parse allocates; ar_params_free releases everything.
 * ar_param_val holds copies (no pointer into ar_params).
 */
#ifndef AR_PARAMS_H
#define AR_PARAMS_H

#include <stddef.h>

#include "status.h"

#define AR_MAX_PARAMS 16
#define AR_PARAM_TEXT 256 /* longest value text kept in ar_param_val (longer values are refused) */

typedef struct ar_params {
    char *name; /* algorithm name (text before ':') */
    int n;
    char *key[AR_MAX_PARAMS];
    char *val[AR_MAX_PARAMS];
} ar_params;

ar_status ar_params_parse(const char *text, ar_params *out, ar_err *e);
void ar_params_free(ar_params *p);

typedef enum ar_param_type {
    AR_PARAM_INT,  /* a decimal integer in [min, max] */
    AR_PARAM_ENUM, /* one word of `choices` */
    AR_PARAM_LIST, /* words separated by `sep`: non-negative integers (choices NULL; e.g. a decomposition
                      3x2x2) or words of `choices` (e.g. ring+hd+hd); the algorithm checks what the
                      list must satisfy on a platform (e.g. multiply to P) */
    AR_PARAM_STR   /* any non-empty text without ',' (e.g. a file path); absent by default */
} ar_param_type;

typedef struct ar_param_def {
    const char *key;
    ar_param_type type;
    long long min, max;   /* INT: allowed range (inclusive) */
    int max_is_ranks;     /* INT: 1 = the upper bound is the platform's rank count P (max unused) */
    const char *choices;  /* ENUM / LIST of words: allowed words separated by '|', e.g. "ring|hd|auto" */
    char sep;             /* LIST: separator between items, e.g. 'x' */
    long long def;        /* INT: default value; ENUM: index of the default word in choices */
    const char *def_text; /* the default as `arlab algos` prints it when it is not `def` itself (e.g. "P",
                             "the platform's levels"); LIST params have no default value (absent) */
    const char *example;  /* LIST: an example value for messages, e.g. "3x2x2" */
    const char *help;     /* one line */
} ar_param_def;

typedef struct ar_param_val {
    int given;             /* 1: the spec set it; 0: the default */
    long long i;           /* INT value; ENUM index of the word in choices */
    char s[AR_PARAM_TEXT]; /* ENUM word, LIST text ("" for an absent LIST), INT as given */
} ar_param_val;

/* Number of entries of a table (it ends with an entry whose key is NULL; a
 * NULL table has none). */
int ar_param_count(const ar_param_def *defs);

/* Checks p against defs and fills vals[i] for defs[i] (vals holds at least
 * AR_MAX_PARAMS entries). nranks bounds max_is_ranks integers. Messages start
 * with "<name>: " and name the key and value at fault:
 *   "<name>: unknown parameter \"k\" (valid: chunks, units, roots)" or "(it takes none)",
 *   "<name>: chunks=0: expected an integer in 1..4096",
 *   "<name>: impl=x: expected ring, hd or auto",
 *   "<name>: impl=ring+x: \"x\" is not ring, hd or auto (write e.g. impl=ring+hd+hd)". */
ar_status ar_params_bind(const ar_params *p, const ar_param_def *defs, int nranks, ar_param_val *vals, ar_err *e);

/* For `arlab algos`: the type and range ("int 1..4096", "ring|hd|auto",
 * "list of int, 'x'-separated") and the default as text. */
char *ar_param_type_str(const ar_param_def *d, char *buf, size_t n);
char *ar_param_default_str(const ar_param_def *d, char *buf, size_t n);

#endif
