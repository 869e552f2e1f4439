/* --check on every preset and every algorithm of the registry: the simulator
 * carries real data (each transfer reads its source when it starts and
 * writes its destination when it completes, in the order the simulation
 * completes them) and every rank's buffer must hold the exact sum. An uneven
 * size (25001 elements) exercises remainders. Also a few generated platforms,
 * gamma > 0, and the full simulation (no shortcuts).
 * Spanning-tree packing on presets above 8 GPUs runs with one chunk and one op
 * per tree, and the parameter server on presets above 64 GPUs with 8 servers:
 * their defaults make 10^4-10^5 transfers in flight at once in one component,
 * which SimGrid 3.32 simulates in time quadratic in that number (see
 * sim/fast.c); the data path checked is the same. */
#include "sim_util.h"

#define FLOOR 173 /* checked simulations when the floor was set: 19 presets x 9 algorithms - 4 + 6 */

/* The (preset, algorithm) pairs whose planner answers AR_EUNSUPPORTED, each
 * with the reason; any other AR_EUNSUPPORTED fails the test. */
static const char *const unsupported[][3] = {
    {"p2.16xlarge", "flexreduce", "a graph, not a tree of switches"},
    {"p3.16xlarge", "flexreduce", "a graph, not a tree of switches"},
    {"p3.8xlarge", "flexreduce", "a graph, not a tree of switches"},
    {"pcie-8gpu-nop2p", "flexreduce", "a graph (NCCL's model reads PCIe from a graph), not a tree of switches"},
    {"pcie-8gpu-p2p", "flexreduce", "a graph (NCCL's model reads PCIe from a graph), not a tree of switches"},
    {"torus-4x4", "flexreduce", "a torus, not a tree of switches"},
};

/* The switch planners (algos/switch_common.c) refuse platforms without the reducing
 * switch they need: nvls/nvlstree every preset but the four whose NVSwitch
 * declares reduce_bw; collnet every preset (none has reducing rail switches). */
static const char *const nvls_presets[] = {"dgx-h100", "aws-p5", "dgx-b200", "gb200-nvl72"};

static int expected_unsupported(const char *plat, const char *algo) {
    if (!strcmp(algo, "collnet")) return 1;
    if (!strcmp(algo, "nvls") || !strcmp(algo, "nvlstree")) {
        for (size_t i = 0; i < sizeof nvls_presets / sizeof nvls_presets[0]; i++)
            if (!strcmp(plat, nvls_presets[i])) return 0;
        return 1;
    }
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (!strcmp(plat, unsupported[i][0]) && !strcmp(algo, unsupported[i][1])) return 1;
    return 0;
}

/* 1 if it ran; *nunsup counts the expected AR_EUNSUPPORTED answers */
static int run_check(const char *plat, const char *algo, uint64_t bytes, int full, double gamma, int *nunsup) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.sync = AR_SYNC_ROUND;
    o.check = 1;
    /* host staging copies (a preset's compute.stage: pcie-8gpu-nop2p) are simulated under dataflow only */
    ar_platform *pp = sim_platform(plat);
    if (pp && pp->stage_d2h_Bps > 0) o.sync = AR_SYNC_DATAFLOW;
    ar_platform_free(pp);
    o.full = full;
    o.gamma_s_per_B = gamma;
    sim_run x;
    int rc = sim_run_case_ex(&x, plat, algo, bytes, &o, expected_unsupported(plat, algo));
    if (rc == 0) {
        if (x.r.wall_s > 0.5) printf("  %s on %s: %.1f s\n", algo, x.p->name, x.r.wall_s);
        T_CHECK(x.st == AR_OK, "--check %s on %s: %s", algo, x.p->name, x.e.msg);
        T_CHECK(x.r.complete && x.r.transfers > 0, "--check %s on %s: nothing ran", algo, x.p->name);
    } else if (rc == 1) {
        (*nunsup)++; /* a failed check already unless expected */
    }
    sim_run_free(&x);
    return rc == 0;
}

int main(void) {
    char **presets = NULL;
    int np = 0;
    ar_err e = {{0}};
    T_OK(ar_platform_list_presets(&presets, &np, &e), e);
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    int runs = 0, nunsup = 0;
    for (int i = 0; i < np; i++) {
        ar_platform *p = sim_platform(presets[i]);
        int n = p ? p->nranks : 0;
        ar_platform_free(p);
        for (int a = 0; a < na; a++) {
            const char *name = algos[a]->name;
            if (!(ar_algo_colls(algos[a]) & AR_COLL_BIT(AR_COLL_ALLREDUCE))) continue; /* RS/AG only: test_coll */
            const char *spec = !strcmp(name, "treepack") && n > 8 ? "treepack:chunks=1,units=0"
                               : !strcmp(name, "ps") && n > 64    ? "ps:servers=8"
                                                                  : name;
            runs += run_check(presets[i], spec, 100004, 0, 0, &nunsup);
        }
        free(presets[i]);
    }
    free(presets);
    /* generated families, gamma, and every transfer in SimGrid */
    runs += run_check("torus:dims=3x3,gpus=2", "blueconnect", 100004, 0, 0, &nunsup);
    runs += run_check("machines:gpus=3+1+2", "flexreduce", 100004, 0, 0, &nunsup);
    runs += run_check("fat-tree:ranks=32", "halving-doubling", 100004, 0, 0, &nunsup);
    runs += run_check("fr-10", "flexreduce:chunks=3", 100004, 0, 1e-10, &nunsup);
    runs += run_check("blueconnect-12", "blueconnect", 100004, 1, 0, &nunsup);
    runs += run_check("fr-10", "treepack", 100004, 1, 0, &nunsup);
    printf("%d checked simulations\n", runs);
    T_CHECK(runs >= np * 4, "only %d simulations ran", runs);
    sim_floor("sim_check", runs, nunsup, FLOOR);
    return t_done("sim_check");
}
