/* Agreement of the simulator with the models where their assumptions hold
 * (message sizes divide evenly, one flow per link per direction unless the
 * formula counts the sharing): simulated time = closed form = generic walk,
 * to 1e-9 relative.
 *   ring (Eq. 1/6), halving/doubling (Eq. 2), two-level (Eq. 7) on flat and
 *   two-level platforms; BlueConnect Eq. 9 on symmetric fat-tree-like
 *   hierarchies (blueconnect-12's stage 2 runs six rings through one rack
 *   uplink: w2/6), Eq. 10 on a torus; FlexReduce T_FR (Eq. 6) on asymmetric
 *   two- and three-level trees (there the concurrent uneven reduce calls do
 *   not run in lockstep, so the walk, which assumes it, is only printed).
 * Every case must run: an algorithm missing from the registry or a planner
 * that answers AR_EUNSUPPORTED fails the test, and so do fewer cases than the
 * floor. */
#include "sim_util.h"

#define REL 1e-9
#define FLOOR 22 /* cases that ran when the floor was set (all of them) */

/* Three-level asymmetric trees (racks of machines with 2 to 4 GPUs). */
static const char *const fr3a =
    "{\"name\":\"fr3a\",\"kind\":\"tree\",\"root\":{\"name\":\"core\",\"child_bw\":\"25Gbps\",\"child_lat\":\"10us\","
    "\"children\":[{\"name\":\"rackA\",\"child_bw\":\"10Gbps\",\"child_lat\":\"5us\",\"children\":["
    "{\"name\":\"a0\",\"gpus\":4,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"},"
    "{\"name\":\"a1\",\"gpus\":3,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"}]},"
    "{\"name\":\"rackB\",\"child_bw\":\"10Gbps\",\"child_lat\":\"5us\",\"children\":["
    "{\"name\":\"b0\",\"gpus\":3,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"},"
    "{\"name\":\"b1\",\"gpus\":3,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"}]}]}}";
static const char *const fr3c =
    "{\"name\":\"fr3c\",\"kind\":\"tree\",\"root\":{\"name\":\"core\",\"child_bw\":\"25Gbps\",\"child_lat\":\"10us\","
    "\"children\":[{\"name\":\"rackA\",\"child_bw\":\"10Gbps\",\"child_lat\":\"5us\",\"children\":["
    "{\"name\":\"a0\",\"gpus\":3,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"},"
    "{\"name\":\"a1\",\"gpus\":2,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"}]},"
    "{\"name\":\"rackB\",\"child_bw\":\"10Gbps\",\"child_lat\":\"5us\",\"children\":["
    "{\"name\":\"b0\",\"gpus\":3,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"},"
    "{\"name\":\"b1\",\"gpus\":2,\"child_bw\":\"10GBps\",\"child_lat\":\"1us\"}]}]}}";

typedef struct acase {
    const char *what, *plat, *algo;
    uint64_t bytes;
    int walk; /* 0: concurrent ops are not in lockstep, the walk's assumption does not hold */
} acase;

int main(void) {
    const acase cases[] = {
        {"ring Eq. 6, flat", "flat:ranks=8", "ring", 8u << 20, 1},
        {"ring Eq. 6, two-level", "machines:gpus=4+4", "ring", 8u << 20, 1},
        {"ring Eq. 6, three-level", "blueconnect-12", "ring", 12u << 20, 1},
        {"ring Eq. 6, 192 GPUs", "blueconnect-192", "ring", 12u << 20, 1},
        {"halving-doubling Eq. 2, flat", "flat:ranks=8", "halving-doubling", 8u << 20, 1},
        {"halving-doubling Eq. 2, flat 64", "flat:ranks=64", "halving-doubling", 8u << 20, 1},
        {"two-level Eq. 7, machines 4+4", "machines:gpus=4+4", "two-level", 8u << 20, 1},
        {"two-level Eq. 7, bc-ibm-2x4", "bc-ibm-2x4", "two-level", 8u << 20, 1},
        {"two-level Eq. 7, flat", "flat:ranks=8", "two-level", 8u << 20, 1},
        {"BlueConnect Eq. 9, blueconnect-12 (w2/6)", "blueconnect-12", "blueconnect", 12u << 20, 1},
        {"BlueConnect Eq. 9 ring stages, blueconnect-12", "blueconnect-12", "blueconnect:impl=ring", 12u << 20, 1},
        {"BlueConnect Eq. 9, blueconnect-192", "blueconnect-192", "blueconnect", 12u << 20, 1},
        {"BlueConnect Eq. 9 ring stages, blueconnect-192", "blueconnect-192", "blueconnect:impl=ring", 12u << 20, 1},
        {"BlueConnect Eq. 9, fat-tree-64", "fat-tree-64", "blueconnect", 16u << 20, 1},
        {"BlueConnect Eq. 9, bc-ibm-2x4", "bc-ibm-2x4", "blueconnect", 8u << 20, 1},
        {"BlueConnect Eq. 10 ring stages, torus-4x4", "torus-4x4", "blueconnect:impl=ring", 16u << 20, 1},
        {"FlexReduce T_FR, fr-5 (3+2)", "fr-5", "flexreduce", 2520000, 0},
        {"FlexReduce T_FR, fr-7 (4+3)", "fr-7", "flexreduce", 2520000, 0},
        {"FlexReduce T_FR, flexreduce-2m-5", "flexreduce-2m-5", "flexreduce", 2520000, 0},
        {"FlexReduce T_FR, fr-12 (4+4+4)", "fr-12", "flexreduce", 2520000, 0},
        {"FlexReduce T_FR, three levels (4+3 | 3+3)", fr3a, "flexreduce", 2520000, 0},
        {"FlexReduce T_FR, three levels (3+2 | 3+2)", fr3c, "flexreduce", 2520000, 0},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const acase *c = &cases[i];
        sim_run x;
        if (!sim_case_ran(&x, c->plat, c->algo, c->bytes, NULL)) continue;
        ran++;
        T_CHECK(x.st == AR_OK, "%s: %s", c->what, x.e.msg);
        if (x.st == AR_OK) {
            printf("%-48s sim %.12g  closed %.12g (%+.1e)  walk %.12g (%+.1e)\n", c->what, x.r.time_s, x.closed,
                   (x.r.time_s - x.closed) / x.closed, x.walk, (x.r.time_s - x.walk) / x.walk);
            T_CHECK(x.r.complete, "%s: incomplete", c->what);
            T_NEAR(x.r.time_s, x.closed, REL, c->what);
            if (c->walk) T_NEAR(x.r.time_s, x.walk, REL, c->what);
            /* the simulator moved exactly the lowering's transfers */
            T_CHECK(x.r.transfers > 0 && x.r.bytes > 0, "%s: nothing moved", c->what);
        }
        sim_run_free(&x);
    }
    sim_floor("sim_agree", ran, 0, FLOOR);
    return t_done("sim_agree");
}
