/* arlab sim: placeholder until its issue lands (replaced by the owner of this verb). */
#include "cli.h"

int cmd_sim(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab sim: not available in this build\n");
    return AR_EUNSUPPORTED;
}
