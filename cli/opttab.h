/* The option tables of the arlab command, the model being curl's: one table of every option (its name,
 * argument, help line and, for the shared ones, where cli_parse puts it), and per verb the rows of its help.
 * cli_parse walks the first; `arlab VERB --help`, the man page (`arlab help --man`) and the bash completion
 * (`arlab help --completion bash`) are printed from both (cli/help.c), so they cannot disagree. */
#ifndef AR_CLI_OPTTAB_H
#define AR_CLI_OPTTAB_H

#include <stddef.h>

#include "cli.h"

typedef enum {
    CLI_ARG_NONE,   /* a flag: the int field becomes 1 */
    CLI_ARG_STRING, /* the const char * field holds the value */
    CLI_ARG_FILE,   /* a file name (as CLI_ARG_STRING; the completion offers files) */
    CLI_ARG_ENUM,   /* one of choices (space-separated): the int field holds its index */
    CLI_ARG_COUNT,  /* an integer in [min, max] (ar_parse_count) */
    CLI_ARG_OTHER   /* anything the handler reads: specs, size lists, numbers, times */
} cli_argtype;

struct cli_optdef;
/* A verb's own option whose value needs code (cli_take_own): as is the option as written (its name, or its
 * alias), val its value (NULL when none was given), field where it goes in the verb's own struct; AR_OK or
 * AR_EINVAL after one line naming the verb. */
typedef ar_status (*cli_own_set)(const struct cli_optdef *d, const char *as, const char *val, void *field,
                                 const char *verb);
/* Stores val (NULL for a flag) in o; AR_OK or AR_EINVAL after one line naming the verb. */
typedef ar_status (*cli_opt_set)(cli_opts *o, const struct cli_optdef *d, const char *val, const char *verb);

typedef struct cli_optdef {
    const char *name;    /* "--platform" */
    unsigned bit;        /* the OPT_* of the verbs' cli_parse masks; 0: a verb's own, parsed by the verb */
    cli_argtype type;    /* what the argument is */
    const char *tag;     /* the help's left column: "--platform P" */
    const char *choices; /* CLI_ARG_ENUM, and the completion's words: "table csv json" */
    size_t field;        /* offsetof(cli_opts, ...) for NONE, STRING, FILE, ENUM and COUNT */
    long long min, max;  /* CLI_ARG_COUNT */
    cli_opt_set set;     /* the few that need code (NULL: by type into field) */
    const char *help;    /* the help text ('\n' between its lines) */
    const char *bad;     /* a verb's own option: what "arlab VERB: NAME: " says of a missing or bad value (NULL:
                          * "option NAME needs a value") */
    const char *alias;   /* a verb's own option: its short form ("-j"), also taken with the value joined ("-j4") */
    cli_own_set own;     /* a verb's own option set by code (NULL: by type, with bad's message) */
} cli_optdef;

/* Prints "arlab VERB: " and the message to stderr, one line; returns AR_EINVAL. */
ar_status cli_bad(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Where a verb's own option goes: the option called name (its type, range and message in the option table)
 * into the field at that offset of the verb's own struct. */
typedef struct cli_ownopt {
    const char *name;
    size_t field;
} cli_ownopt;

/* Takes the verb's own options (map, n of them) out of argv, "--x v", "--x=v" or a flag "--x" (and the table's
 * alias: "-x v", "-xv"), keeping the rest in order for cli_parse (*argc becomes their count), and stores each
 * in own: by the table's own handler where it has one, else a flag as int 1, a string or file as const char *,
 * a count as int (long long where the table's max is beyond INT_MAX), a word as the int index of it in the
 * option's choices. AR_OK, or AR_EINVAL after one line: the handler's, or "arlab VERB: NAME: BAD" (the table's
 * bad) for a missing or bad value, else "option NAME needs a value" / "takes no value". */
ar_status cli_take_own(int *argc, char **argv, const cli_ownopt *map, int n, void *own, const char *verb);

/* Every option; n set to the count. */
const cli_optdef *cli_optdefs(int *n);
/* The option called name, or NULL. */
const cli_optdef *cli_optdef_find(const char *name);

/* One row of a verb's help: an option (tag NULL: the option called opt, as the option table says it;
 * text NULL: the option table's help) or, with opt NULL, lines printed as they are. */
typedef struct cli_helprow {
    const char *opt;  /* "--platform", or NULL */
    const char *tag;  /* the left column when it is not the table's */
    const char *text; /* the help when it is not the table's, or a plain text row */
} cli_helprow;

typedef struct cli_verbhelp {
    const char *verb;
    const char *head; /* the usage lines and what the verb does */
    const cli_helprow *rows;
    int nrows;
    const char *tail; /* the example */
    int width;        /* the left column's width (the text starts 4 columns further) */
    int gap;          /* spaces after a tag wider than width */
    int own;          /* the verb prints its help itself (after cli_help_body) */
} cli_verbhelp;

/* Every verb's help; n set to the count. */
const cli_verbhelp *cli_verbhelps(int *n);

#endif
