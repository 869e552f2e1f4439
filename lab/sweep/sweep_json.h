/* Private to the sweep grammar (lab/sweep/sweep_spec.c): JSON field readers that
 * name the JSON path in their errors ("WHERE: JSON.PATH: what is wrong"). */
#ifndef AR_LAB_SWEEP_JSON_H
#define AR_LAB_SWEEP_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/jsonpath.h"
#include "core/status.h"

#define SWEEP_TEXT_MAX 4096 /* longest free-text field */

typedef ar_jpath sctx; /* path + error context (jsonpath.h) */

const cJSON *sweep_field(const cJSON *obj, const char *key);
ar_status sweep_check_object(sctx *c, const cJSON *j, const char *const *keys);
ar_status sweep_check_text(sctx *c, const cJSON *j, size_t max);
ar_status sweep_read_text(sctx *c, const cJSON *obj, const char *key, size_t max, char **out);
ar_status sweep_need_array(sctx *c, const cJSON *j, int *n);
ar_status sweep_read_int_value(sctx *c, const cJSON *j, long long min, long long max, long long *out);
ar_status sweep_read_pos_number(sctx *c, const cJSON *obj, const char *key, double max, double *out);
ar_status sweep_read_time(sctx *c, const cJSON *obj, const char *key, double *out);
ar_status sweep_read_bool(sctx *c, const cJSON *obj, const char *key, int *out);

struct ar_sweep;
/* The optional "report" object (lab/report/sweep_report.c): validated, kept as compact JSON in s->report. */
ar_status sweep_parse_report(sctx *c, const cJSON *root, struct ar_sweep *s);

#endif
