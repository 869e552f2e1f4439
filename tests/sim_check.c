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
 * sim/engine.c); the data path checked is the same. */
#include "sim_util.h"

static int run_check(const char *plat, const char *algo, uint64_t bytes, int full, double gamma) {
    ar_sim_opts o;
    memset(&o, 0, sizeof o);
    o.check = 1;
    o.full = full;
    o.gamma_s_per_B = gamma;
    sim_run x;
    int ran = sim_run_case(&x, plat, algo, bytes, &o) == 0;
    if (ran) {
        if (x.r.wall_s > 0.5) printf("  %s on %s: %.1f s\n", algo, x.p->name, x.r.wall_s);
        T_CHECK(x.st == AR_OK, "--check %s on %s: %s", algo, x.p->name, x.e.msg);
        T_CHECK(x.r.complete && x.r.transfers > 0, "--check %s on %s: nothing ran", algo, x.p->name);
    } else {
        T_CHECK(x.skipped, "%s on %s: could not run", algo, plat);
    }
    sim_run_free(&x);
    return ran;
}

int main(void) {
    char **presets = NULL;
    int np = 0;
    ar_err e = {{0}};
    T_OK(ar_platform_list_presets(&presets, &np, &e));
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    int runs = 0;
    for (int i = 0; i < np; i++) {
        ar_platform *p = sim_platform(presets[i]);
        int n = p ? p->nranks : 0;
        ar_platform_free(p);
        for (int a = 0; a < na; a++) {
            const char *name = algos[a]->name;
            const char *spec = !strcmp(name, "treepack") && n > 8 ? "treepack:chunks=1,units=0"
                               : !strcmp(name, "ps") && n > 64 ? "ps:servers=8"
                                                                : name;
            runs += run_check(presets[i], spec, 100004, 0, 0);
        }
        free(presets[i]);
    }
    free(presets);
    /* generated families, gamma, and every transfer in SimGrid */
    runs += run_check("torus:dims=3x3,gpus=2", "blueconnect", 100004, 0, 0);
    runs += run_check("machines:gpus=3+1+2", "flexreduce", 100004, 0, 0);
    runs += run_check("fat-tree:ranks=32", "halving-doubling", 100004, 0, 0);
    runs += run_check("fr-10", "flexreduce:chunks=3", 100004, 0, 1e-10);
    runs += run_check("blueconnect-12", "blueconnect", 100004, 1, 0);
    runs += run_check("fr-10", "treepack", 100004, 1, 0);
    printf("%d checked simulations\n", runs);
    T_CHECK(runs >= np * 4, "only %d simulations ran", runs);
    return t_done("sim_check");
}
