/* Internals shared by the nccl-tests reader's files (nccltests_in.c, _text.c,
 * _json.c, _ref.c); not part of its API. */
#ifndef AR_NCCLTESTS_INT_H
#define AR_NCCLTESTS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "nccltests_in.h"

ar_status nt_add_run(ar_nt_set *s, int file, int line, const ar_nt_opts *o, int *idx, ar_err *e);
ar_nt_record *nt_add_rec(ar_nt_set *s);
ar_status nt_add_device(ar_nt_set *s, ar_nt_run *r, const ar_nt_device *d, size_t *cap, ar_err *e);
void nt_resolve_run(ar_nt_set *s, int run, const ar_nt_opts *o, int nranks_log, ar_nt_coll cmd_coll);
void nt_copy_str(char *dst, size_t cap, const char *src, size_t n);
void nt_version_from_code(long code, char *buf, size_t n);
int nt_count_hosts(const ar_nt_run *r);
int nt_tok_double(const char *t, double *v);
int nt_tok_u64(const char *t, uint64_t *v);
int nt_tok_long(const char *t, long lo, long hi, long *v);
int nt_split_ws(char *line, char **tok, int max);
const char *nt_half_name(int h);
void nt_env_value(const char *p, char *dst, size_t cap);
void nt_env_line(ar_nt_run *r, const char *l);
ar_status nt_parse_json(ar_nt_set *s, int file, const char *name, const char *text, size_t len, const ar_nt_opts *o,
                        ar_err *e);
ar_status nt_parse_text(ar_nt_set *s, int file, const char *name, const char *text, size_t len, const ar_nt_opts *o,
                        ar_err *e);

#endif
