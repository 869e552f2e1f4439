/* arlab report: placeholder until its issue lands (replaced by the owner of this verb). */
#include "cli.h"

int cmd_report(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab report: not available in this build\n");
    return AR_EUNSUPPORTED;
}
