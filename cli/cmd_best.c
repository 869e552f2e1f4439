/* arlab best: placeholder until its issue lands (replaced by the owner of this verb). */
#include "cli.h"

int cmd_best(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab best: not available in this build\n");
    return AR_EUNSUPPORTED;
}
