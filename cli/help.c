/* `arlab VERB --help` / `-h` / `arlab help VERB`, the man page and the bash completion, all printed from the
 * option table and the verbs' help rows (cli/opttab.h), so every verb answers the same way (cli/main.c
 * intercepts the flag before the verb runs). `arlab sim --help` is the verb's own (it adds the network models
 * SimGrid was built with after its rows). tests/cli/cli_help.sh checks that every verb answers with exit 0 and that
 * its help names every option the verb's source parses. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "lab/schema.h"
#include "lab/bestrow.h"
#include "lab/modelrow.h"
#include "lab/simrow.h"

static const cli_verbhelp *find_verb(const char *verb) {
    int n;
    const cli_verbhelp *v = cli_verbhelps(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].verb, verb)) return &v[i];
    return NULL;
}

/* A row's left column and text: the verb's, else the option table's. */
static void row_parts(const cli_helprow *r, const char **tag, const char **text) {
    const cli_optdef *d = r->opt ? cli_optdef_find(r->opt) : NULL;
    *tag = r->tag ? r->tag : d ? d->tag : r->opt;
    *text = r->text ? r->text : d ? d->help : "";
}

static void print_row(const cli_verbhelp *v, const cli_helprow *r) {
    if (!r->opt && !r->tag) {
        fputs(r->text, stdout);
        return;
    }
    const char *tag, *text;
    row_parts(r, &tag, &text);
    int tl = (int)strlen(tag);
    printf("  %s%*s", tag, tl <= v->width ? v->width - tl + 2 : v->gap, "");
    for (const char *c = text; *c; c++) {
        putchar(*c);
        if (*c == '\n' && c[1]) printf("%*s", v->width + 4, "");
    }
    putchar('\n');
}

int cli_help_body(const char *verb) {
    const cli_verbhelp *v = find_verb(verb);
    if (!v) return 0;
    fputs(v->head, stdout);
    for (int i = 0; i < v->nrows; i++) print_row(v, &v->rows[i]);
    fputs(v->tail, stdout);
    return 1;
}

int cli_help(const char *verb) {
    const cli_verbhelp *v = find_verb(verb);
    if (!v || v->own) return 0;
    cli_help_body(verb);
    fputs("(exit codes, units and the output columns: docs/cli.md; arlab help columns sweep|sim|model|best)\n", stdout);
    return 1;
}

static const char *const type_name[] = {
    [LAB_TEXT] = "text", [LAB_PLAIN] = "text", [LAB_INT] = "integer", [LAB_NUM] = "number"};

/* One Markdown row; '|' in the text escaped so the table keeps its columns. */
static void md_row(const char *name, lab_coltype type, const char *help) {
    printf("| `%s` | %s | ", name, type_name[type]);
    for (const char *c = help; *c; c++) {
        if (*c == '|') putchar('\\');
        putchar(*c);
    }
    printf(" |\n");
}

int cli_help_columns(const char *which) {
    static const struct {
        const char *name;
        const lab_rowcol *cols;
        const int *n;
    } verbs[] = {{"sim", lab_simrow_cols, &lab_simrow_ncols},
                 {"model", lab_modelrow_cols, &lab_modelrow_ncols},
                 {"best", lab_bestrow_cols, &lab_bestrow_ncols}};
    if (which && !strcmp(which, "sweep")) {
        printf("| column | type | meaning |\n|---|---|---|\n");
        for (int c = 0; c < LAB_NCOLS; c++) md_row(lab_cols[c].name, lab_cols[c].type, lab_cols[c].help);
        return AR_OK;
    }
    for (size_t v = 0; which && v < sizeof verbs / sizeof verbs[0]; v++)
        if (!strcmp(which, verbs[v].name)) {
            printf("| column | type | meaning |\n|---|---|---|\n");
            for (int c = 0; c < *verbs[v].n; c++)
                md_row(verbs[v].cols[c].name, verbs[v].cols[c].type, verbs[v].cols[c].help);
            return AR_OK;
        }
    fprintf(stderr,
            "arlab help columns: give sweep (the results of arlab sweep), sim, model or best (their --format csv)\n");
    return AR_EINVAL;
}
