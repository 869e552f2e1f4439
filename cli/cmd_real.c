/* arlab real: placeholder until its issue lands (replaced by the owner of this verb). */
#include "cli.h"

int cmd_real(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab real: not available in this build\n");
    return AR_EUNSUPPORTED;
}

int cmd_calibrate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab calibrate: not available in this build\n");
    return AR_EUNSUPPORTED;
}

int cmd_compare(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "arlab compare: not available in this build\n");
    return AR_EUNSUPPORTED;
}
