/* arlab sweep: placeholder until its issue lands (replaced by the owner of this verb). */
#include "cli.h"

int cmd_sweep(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab sweep: not available in this build\n");
    return AR_EUNSUPPORTED;
}
