/* Safe templates for the report's narrative (the "report" object of a sweep
 * file): text with named placeholders {name} or {name:FMT}, FMT one of a
 * fixed set (%d, %.Nf, %+.Nf, %.Ng, %s; N = 0..9). "{{" and "}}" are literal
 * braces. The template is never passed to printf: each placeholder is
 * validated and formatted with a format built here from its parts.
 * Ownership: the caller owns every buffer; nothing is allocated. */
#ifndef AR_LAB_REPORT_TMPL_H
#define AR_LAB_REPORT_TMPL_H

#include <stddef.h>

#include "core/status.h"

/* A named value a template may use: a number (str == NULL) or a string. */
typedef struct report_val {
    const char *name;
    double num;
    const char *str;
} report_val;

/* Syntax check only (names are not known yet); on error writes a short reason
 * ("bad format %.2q in {x:%.2q}") into why and returns non-zero. */
int report_tmpl_check(const char *tmpl, char *why, size_t whycap);

/* Expands tmpl into out (truncated to cap). An unknown name or a bad
 * placeholder fails with AR_EINVAL "WHERE: placeholder {..}: reason". */
ar_status report_tmpl_expand(const char *tmpl, const report_val *vals, int nvals, char *out, size_t cap,
                             const char *where, ar_err *e);

#endif
