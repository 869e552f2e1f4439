/* arlab report [DIR]: builds DIR/report.html (one self-contained page, figures
 * embedded) and DIR/report.md from the sweep results in DIR (default "out"):
 * NAME.json + NAME.csv written by `arlab sweep`, figures fig/ID.png written by
 * plots/ID.gp (experiments/make_figures.sh runs everything). See report.h.
 * A sweep that did not finish (part files left, or still running) is named
 * with the command that resumes it: the error when there is nothing else to
 * report (exit 2), a note on stderr and in the report otherwise. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lab/report/report.h"

int cmd_report(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf(
                "usage: arlab report [DIR]\n  builds DIR/report.html and DIR/report.md from the sweep results in DIR "
                "(default: out)\n");
            return 0;
        }
    cli_opts o;
    if (cli_parse(argc, argv, OPT_POSITIONAL, &o, "report") != AR_OK) return AR_EINVAL;
    if (o.npositional > 1) {
        fprintf(stderr, "arlab report: give at most one results directory\n");
        return AR_EINVAL;
    }
    const char *dir = o.npositional ? o.positional[0] : "out";
    ar_err e = {{0}};
    ar_status st = report_build(dir, &e);
    if (st) return cli_error(st, &e);
    fprintf(stderr, "arlab report: wrote %s/report.html and %s/report.md\n", dir, dir);
    /* sweeps that did not finish are not in the report: one line each, with how to resume */
    sweep_pending *pend = NULL;
    int npend = sweep_pending_list(dir, &pend);
    for (int i = 0; i < npend; i++) {
        char line[SWEEP_CMD_MAX + 6000];
        sweep_pending_text(&pend[i], dir, line, sizeof line);
        fprintf(stderr, "arlab report: note: %s\n", line);
    }
    free(pend);
    return AR_OK;
}
