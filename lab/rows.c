/* Column tables of the verbs' rows (rows.h). */
#include <string.h>

#include "rows.h"

int lab_rowcol_find(const lab_rowcol *cols, int n, const char *name) {
    for (int c = 0; c < n; c++)
        if (!strcmp(cols[c].name, name)) return c;
    return -1;
}
