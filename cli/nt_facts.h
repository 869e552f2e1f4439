/* The facts an nccl-tests file may lack, given on the command line of compare, fit and calibrate:
 * --coll C (allreduce|allgather|reducescatter|broadcast|reduce|alltoall), --ranks N, --nccl-algo A,
 * --nccl-proto P. The reader takes a fact from the file first and from these only where the file does
 * not give it, and says so on stderr (ar_nt_print_assumed). */
#ifndef AR_CLI_NT_FACTS_H
#define AR_CLI_NT_FACTS_H

#include "core/status.h"
#include "calib/nccltests_in.h"

typedef struct cli_nt_facts {
    const char *coll_arg; /* --coll as given, NULL when absent */
    int coll;             /* ar_nt_coll of --coll (0: not given) */
    int ranks;            /* --ranks (0: not given) */
    const char *algo;     /* --nccl-algo */
    const char *proto;    /* --nccl-proto */
} cli_nt_facts;

/* Takes --coll, --nccl-algo, --nccl-proto and, when take_ranks, --ranks out of argv (the others stay).
 * A bad or missing value is AR_EINVAL with its one line printed ("arlab VERB: --coll: ..."). */
ar_status cli_nt_take(int *argc, char **argv, cli_nt_facts *f, const char *verb, int take_ranks);

/* The reader's options for f: the hints fill in what a file lacks; a table whose footer is missing
 * (a paste) is read with a note. */
void cli_nt_opts(const cli_nt_facts *f, ar_nt_opts *o);

#endif
