/* arlab report [DIR]: builds DIR/report.html (one self-contained page, figures
 * embedded) and DIR/report.md from the sweep results in DIR (default "out"):
 * NAME.json + NAME.csv written by `arlab sweep`, figures fig/ID.png written by
 * plots/ID.gp (experiments/make_figures.sh runs everything). See report.h. */
#include <string.h>

#include "cli.h"
#include "lab/report.h"

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
    return AR_OK;
}
