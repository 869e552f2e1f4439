/* Shared by the real/ verbs of the CLI (cmd_real.c: real, compare;
 * cmd_calibrate.c: calibrate): their own flags, the launch option, the
 * platform of a run. */
#ifndef AR_CLI_CMD_REAL_H
#define AR_CLI_CMD_REAL_H

#include "cli.h"
#include "core/platform/platform.h"
#include "core/status.h"
#ifdef AR_HAVE_REAL
#include "real/real.h"
#endif

/* ---- verb-specific flags (taken out of argv before cli_parse) ------------ */

typedef struct real_flags {
    const char *launch;    /* auto|single|mpi|file:PATH */
    const char *lowering;  /* auto|p2p|native */
    const char *placement; /* both|in|out */
    const char *fit;       /* rel|abs */
    const char *name;      /* calibrated platform name */
    const char *gpus;      /* single launch: GPUs to use */
    const char *timing;    /* arlab|nccl-tests */
    int dry_run;
    int graph;      /* --graph */
    int fuse;       /* --fuse: round fusion (ar_real_plan_fuse) */
    int nccl_tests; /* --format nccl-tests */
} real_flags;

#if defined(AR_HAVE_REAL_HOST) || defined(AR_HAVE_REAL)
/* The single platform of the options for a run of `ranks` ranks (0: whatever
 * it has); default "flat" with that many ranks. Prints its own message. */
ar_status cli_real_load_platform(const cli_opts *o, int ranks, const char *verb, ar_platform **out);
#endif

#ifdef AR_HAVE_REAL
/* --launch and --gpus into L (prints its own message on AR_EINVAL). */
ar_status cli_real_parse_launch(const real_flags *f, ar_real_launch *L);
#endif

#endif
