/* `arlab best --emit nccl-tuner FILE --platform P [--ranks N] [--max-bytes S]`: writes NCCL's
 * choice per size range in the CSV format of NCCL's example tuner plugin (lab/tuner_emit.h). Reached from
 * cmd_best (cli/cmd_best.c) when its arguments name --emit. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"
#include "lab/tuner_emit.h"

/* the option table's rows this form takes (cli_take_own); --emit's two values are read below */
typedef struct emit_own {
    const char *maxs;
} emit_own;

int cmd_best_emit(int argc, char **argv) {
    static const cli_ownopt own[] = {{"--max-bytes", offsetof(emit_own, maxs)}};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    const char *kind = NULL, *file = NULL;
    emit_own eo = {"16GiB"};
    int nr = 0, nargs = argc;
    if (!rest) return AR_ENOMEM;
    memcpy(rest, argv, (size_t)argc * sizeof *rest);
    if (cli_take_own(&nargs, rest, own, (int)(sizeof own / sizeof own[0]), &eo, "best") != AR_OK) {
        free(rest);
        return AR_EINVAL;
    }
    const char *maxs = eo.maxs;
    for (int i = 0; i < nargs; i++) {
        if (!strcmp(rest[i], "--emit") && i + 2 < nargs) kind = rest[++i], file = rest[++i];
        else rest[nr++] = rest[i];
    }
    if (!kind || strcmp(kind, "nccl-tuner") || !file) {
        fprintf(stderr, "arlab best: --emit takes nccl-tuner FILE (NCCL's example tuner plugin CSV)\n");
        free(rest);
        return AR_EINVAL;
    }
    cli_opts o;
    if (cli_parse(nr, rest, OPT_PLATFORM | OPT_RANKS, &o, "best") != AR_OK) {
        free(rest);
        return AR_EINVAL;
    }
    free(rest);
    if (o.nplatforms != 1) {
        fprintf(stderr, "arlab best: --emit nccl-tuner: give one --platform P\n");
        return AR_EINVAL;
    }
    ar_err e = {{0}};
    uint64_t maxb;
    if (ar_parse_size(maxs, 1, &maxb, &e) != AR_OK) {
        fprintf(stderr, "arlab best: --max-bytes: %s\n", e.msg);
        return AR_EINVAL;
    }
    ar_platform *p;
    ar_status st = cli_load_platform(&o, 0, &p);
    if (st != AR_OK) return st;
    FILE *f = strcmp(file, "-") ? fopen(file, "w") : stdout;
    int n = 0;
    if (!f) st = ar_fail(&e, AR_EIO, "cannot write %s", file);
    else st = lab_tuner_emit(p, (double)maxb, f, &n, &e);
    if (f && f != stdout && fclose(f) != 0 && st == AR_OK) st = ar_fail(&e, AR_EIO, "cannot write %s", file);
    if (st == AR_OK && f != stdout)
        printf("wrote %s: %d size ranges of NCCL's own algorithms on %s (arlab's own schedules cannot be expressed "
               "in NCCL's tuner format)\n",
               file, n, p->name);
    ar_platform_free(p);
    return st == AR_OK ? 0 : cli_error(st, &e);
}
