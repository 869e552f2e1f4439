/* Writers of text formats shared by every module that prints CSV or JSON, so
 * quoting and escaping are decided in one place. Nothing is owned. */
#ifndef AR_TEXTIO_H
#define AR_TEXTIO_H

#include <stdio.h>

/* Writes s as one CSV field: quoted (with "" for ") when it holds , " CR or LF. NULL = "". */
void ar_csv_field(FILE *f, const char *s);

/* Writes s as a JSON string: quotes, \" \\ and \u00XX for control bytes. NULL = "". */
void ar_json_string(FILE *f, const char *s);

#endif
