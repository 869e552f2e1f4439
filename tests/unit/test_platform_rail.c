/* Rail-optimised multi-node platforms (core/platform/platform_rail.c):
 *   - shape of PRESET:nodes=N and rail:... (ranks, machines, links, capacities);
 *   - rail-aligned routes: same local index on its rail, else NVLink first then the
 *     destination's rail (PXN); intra-node through the NVSwitch;
 *   - NCCL's model on them reproduces the ring ceiling of the NICs' effective bandwidth;
 *   - the structural router (no table) equals the graph loader's next-hop table
 *     pair by pair, and a 100 000-GPU fabric loads;
 *   - refusals (missing nodes, unknown key, unknown NICs, --ranks, the rank limit).
 */
#include <string.h>

#include "core/platform/platform.h"
#include "core/platform/platform_rail.h"
#include "models/nccl_model.h"
#include "../t.h"

#define REL 1e-9

static ar_platform *load(const char *spec, int ranks) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(spec, ranks, &p, &e);
    T_CHECK(st == AR_OK && p, "load %s: %s", spec, e.msg);
    return st == AR_OK ? p : NULL;
}

static void reject(const char *spec, int ranks, ar_status want, const char *frag) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(spec, ranks, &p, &e);
    T_CHECK(st == want && !p && strstr(e.msg, frag), "%s: status %d, message \"%s\" (want %d, \"%s\")", spec, (int)st,
            e.msg, (int)want, frag);
    ar_platform_free(p);
}

/* The route from src to dst as "node>node>..." names. */
static void route_names(const ar_platform *p, int src, int dst, char *buf, size_t n) {
    ar_dlink d[16];
    int len = ar_platform_route(p, src, dst, d, 16);
    buf[0] = 0;
    if (len < 0) return;
    int v = p->rank_node[src];
    size_t off = (size_t)snprintf(buf, n, "%s", p->nodes[v].name);
    for (int i = 0; i < len && off < n; i++) {
        const ar_link *l = &p->links[AR_DLINK_LINK(d[i])];
        v = (d[i] & 1) ? l->a : l->b;
        off += (size_t)snprintf(buf + off, n - off, ">%s", p->nodes[v].name);
    }
}

static void test_shape_and_routes(void) {
    ar_platform *p = load("dgx-h100:nodes=4", 0);
    if (!p) return;
    /* 4 x 8 GPUs, 4 NVSwitches + 8 rails; links: 32 NVLink + 32 NIC */
    T_CHECK(p->nranks == 32 && p->nmachines == 4 && p->nnodes == 44 && p->nlinks == 64, "shape %d %d %d %d", p->nranks,
            p->nmachines, p->nnodes, p->nlinks);
    T_CHECK(p->machine_of_rank[9] == 1 && p->machine_first_rank[2] == 16, "machines");
    char r[512];
    route_names(p, 0, 1, r, sizeof r);
    T_CHECK(!strcmp(r, "n0.g0>n0.nvs>n0.g1"), "intra-node route %s", r);
    route_names(p, 0, 8, r, sizeof r);
    T_CHECK(!strcmp(r, "n0.g0>rail0>n1.g0"), "same-rail route %s", r);
    route_names(p, 0, 9, r, sizeof r);
    T_CHECK(!strcmp(r, "n0.g0>n0.nvs>n0.g1>rail1>n1.g1"), "cross-rail route (PXN) %s", r);
    route_names(p, 31, 2, r, sizeof r);
    T_CHECK(!strcmp(r, "n3.g7>n3.nvs>n3.g2>rail2>n0.g2"), "cross-rail route back %s", r);
    /* capacities: NVLink 18 x 20.6 GB/s; NIC 48 GB/s effective (NDR 400 Gb/s, nccl-tests#290) */
    T_NEAR(ar_platform_route_bw(p, 0, 1), 18 * 20.6e9, REL, "nvlink capacity");
    T_NEAR(ar_platform_route_bw(p, 0, 9), 48e9, REL, "nic capacity");
    T_NEAR(ar_platform_route_lat(p, 0, 9), 2.6e-6, REL, "2 NVLink links of 0.3 us + 2 NIC links of 1 us");
    ar_platform_free(p);

    /* spine=2 with 2 nodes: each rail's uplink is ceil(2*1/2) = 1 lane; routes still PXN */
    p = load("dgx-h100:nodes=2,spine=2", 16);
    if (p) {
        T_CHECK(p->nnodes == 16 + 2 + 8 + 1 && p->nlinks == 32 + 8, "spine shape %d %d", p->nnodes, p->nlinks);
        route_names(p, 0, 9, r, sizeof r);
        T_CHECK(!strcmp(r, "n0.g0>n0.nvs>n0.g1>rail1>n1.g1"), "spine: PXN route %s", r);
        ar_platform_free(p);
    }
    /* aws-p5: 4 EFA per GPU at 12 GB/s -> a 4-lane link of 48 GB/s */
    p = load("aws-p5:nodes=2", 0);
    if (p) {
        T_NEAR(ar_platform_route_bw(p, 0, 8), 48e9, REL, "p5 rail capacity");
        ar_platform_free(p);
    }
    /* the family: 3 nodes x 4 GPUs, NIC 25 GB/s */
    p = load("rail:nodes=3,gpus=4,nic=25GBps,lanes=6,nvlink=25GBps", 0);
    if (p) {
        T_CHECK(p->nranks == 12 && p->nmachines == 3 && p->nnodes == 12 + 3 + 4, "family shape");
        T_NEAR(ar_platform_route_bw(p, 0, 1), 150e9, REL, "family nvlink");
        T_NEAR(ar_platform_route_bw(p, 0, 5), 25e9, REL, "family nic");
        ar_platform_free(p);
    }
    /* one node: no rails */
    p = load("dgx-a100:nodes=1", 8);
    if (p) {
        T_CHECK(p->nranks == 8 && p->nmachines == 1 && p->nnodes == 9, "one node shape %d", p->nnodes);
        ar_platform_free(p);
    }
}

static void test_nccl_ring_ceiling(void) {
    /* NCCL's model on the rail fabrics: multi-node ring busbw ceiling = the node's NICs' effective sum.
     * dgx-h100, 4 nodes: NIC 48 GB/s -> ring 8 ch x 48 (one channel per NIC, see test_nccl_model), > 2 nodes
     * -> bwInter: Simple bus 8 x 48 = 384 GB/s = 8 NICs x 48 GB/s.
     * dgx-a100, 2 nodes: NIC 24 GB/s -> SM80 inter speeds {48, 30, 28, 24, ..}: 24 -> 8 ch (192 < 240);
     * 20 -> 8 ch; 12 (12/24 = 0.5 > 0.49) -> 16 ch (192, not better); 10/24 < 0.49 stops; 24 < 25: no
     * duplication: 8 x 24 = 192 GB/s = 8 NICs x 24 GB/s. */
    static const struct {
        const char *spec;
        int nch;
        double bw, ceiling;
    } k[] = {{"dgx-h100:nodes=4", 8, 48, 384}, {"dgx-a100:nodes=2", 8, 24, 192}, {"dgx-b200:nodes=2", 8, 48, 384}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ar_platform *p = load(k[i].spec, 0);
        if (!p) continue;
        ar_nccl_in in;
        ar_err e = {{0}};
        ar_status st = ar_nccl_in_from_platform(p, 0, &in, &e);
        T_CHECK(st == AR_OK, "%s: %s", k[i].spec, e.msg);
        if (!st) {
            T_CHECK(in.ring.nchannels == k[i].nch && in.nnodes == p->nmachines, "%s: %d channels", k[i].spec,
                    in.ring.nchannels);
            T_NEAR(in.ring.bw_inter_GBps, k[i].bw, REL, k[i].spec);
            ar_nccl_table t;
            T_OK(ar_nccl_model_tune(&in, &t, &t_e));
            T_NEAR(t.busbw_GBps[AR_NCCL_ALLREDUCE][AR_NCCL_RING][AR_NCCL_SIMPLE], k[i].ceiling, REL, k[i].spec);
            /* forced ring at 8 GB approaches the ceiling from below (latency) */
            double s = 0;
            T_OK(ar_nccl_model_choose(&in, AR_NCCL_ALLREDUCE, AR_NCCL_RING, 8e9, NULL, NULL, &s, &t_e));
            double busbw = ar_nccl_busbw(AR_NCCL_ALLREDUCE, p->nranks, ar_nccl_algbw(8e9, s)) / 1e9;
            T_CHECK(busbw < k[i].ceiling && busbw > 0.97 * k[i].ceiling, "%s: ring busbw %.2f vs ceiling %.1f",
                    k[i].spec, busbw, k[i].ceiling);
        }
        ar_platform_free(p);
    }
}

static void test_rejects(void) {
    reject("dgx-h100:spine=2", 0, AR_EINVAL, "nodes=N");
    reject("dgx-h100:nodes=2,foo=1", 0, AR_EINVAL, "unknown key");
    reject("dgx-h100:nodes=0", 0, AR_EINVAL, "nodes");
    reject("dgx-h100:nodes=2,spine=0.5", 0, AR_EINVAL, "oversubscription");
    reject("gb200-nvl72:nodes=2", 0, AR_EINVAL, "nic=RATE");
    reject("p3.8xlarge:nodes=2", 0, AR_EINVAL, "one-node NVSwitch preset");
    reject("dgx-h100:nodes=2", 8, AR_EINVAL, "--ranks 8");
    reject("dgx-h100:nodes=131073", 0, AR_ELIMIT, "ranks exceed");
    reject("rail:gpus=4,nvlink=1Gbs", 0, AR_EINVAL, "nvlink");
    /* not a preset: the loader's own message is kept */
    reject("nosuch:nodes=2", 0, AR_EINVAL, "unknown platform family");
    /* the table form keeps the graph limit: 454 x 9 + 8 = 4094 graph nodes */
    ar_platform *p = NULL;
    ar_err e = {0};
    T_CHECK(ar_platform_rail_load_table("dgx-h100:nodes=455", 0, &p, &e) == AR_ELIMIT && !p &&
                strstr(e.msg, "at most 454"),
            "table limit: %s", e.msg);
    p = load("dgx-h100:nodes=454", 0);
    T_CHECK(p && p->nranks == 3632, "454 nodes");
    ar_platform_free(p);
}

/* The structural router against the next-hop table of the same graph: same
 * nodes, links and, for every ordered pair of ranks, the same directed links. */
static void test_structural_equals_table(void) {
    static const char *const specs[] = {"rail:nodes=3,gpus=4",   "rail:nodes=3,gpus=4,spine=2", "rail:nodes=1,gpus=4",
                                        "rail:nodes=4,gpus=1",   "rail:nodes=5,gpus=3,spine=1", "dgx-h100:nodes=5",
                                        "aws-p5:nodes=3,spine=1"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ar_platform *s = load(specs[i], 0), *t = NULL;
        ar_err e = {0};
        T_OK(ar_platform_rail_load_table(specs[i], 0, &t, &e), e);
        if (!s || !t) {
            ar_platform_free(s);
            ar_platform_free(t);
            continue;
        }
        T_CHECK(s->nnodes == t->nnodes && s->nlinks == t->nlinks && s->nranks == t->nranks &&
                    s->nmachines == t->nmachines && !strcmp(s->description, t->description) &&
                    !strcmp(s->source, t->source),
                "%s: shape", specs[i]);
        int same = 1;
        for (int v = 0; v < s->nnodes && v < t->nnodes; v++)
            same &= !strcmp(s->nodes[v].name, t->nodes[v].name) && s->nodes[v].kind == t->nodes[v].kind &&
                    s->nodes[v].machine == t->nodes[v].machine;
        for (int l = 0; l < s->nlinks && l < t->nlinks; l++)
            same &= s->links[l].a == t->links[l].a && s->links[l].b == t->links[l].b &&
                    s->links[l].bw_Bps == t->links[l].bw_Bps && s->links[l].lat_s == t->links[l].lat_s &&
                    s->links[l].lanes == t->links[l].lanes && !strcmp(s->links[l].name, t->links[l].name);
        T_CHECK(same, "%s: nodes and links", specs[i]);
        int pairs = 0, diff = 0;
        for (int a = 0; a < s->nranks; a++)
            for (int b = 0; b < s->nranks; b++) {
                ar_dlink rs[8], rt[8];
                int ns = ar_platform_route(s, a, b, rs, 8), nt = ar_platform_route(t, a, b, rt, 8);
                int eq = ns == nt && ns >= 0;
                for (int k = 0; eq && k < ns; k++) eq = rs[k] == rt[k];
                if (!eq && !diff++)
                    fprintf(stderr, "%s: route %d->%d differs (%d vs %d links)\n", specs[i], a, b, ns, nt);
                pairs++;
            }
        T_CHECK(diff == 0 && pairs == s->nranks * s->nranks, "%s: %d of %d routes differ", specs[i], diff, pairs);
        ar_platform_free(s);
        ar_platform_free(t);
    }
    /* 100 000 GPUs: 12 500 DGX H100 nodes; routes of each kind */
    ar_platform *p = load("dgx-h100:nodes=12500", 0);
    if (p) {
        T_CHECK(p->nranks == 100000 && p->nnodes == 100000 + 12500 + 8 && p->nlinks == 200000, "100k shape %d %d",
                p->nnodes, p->nlinks);
        char r[256];
        route_names(p, 99999, 8, r, sizeof r);
        T_CHECK(!strcmp(r, "n12499.g7>n12499.nvs>n12499.g0>rail0>n1.g0"), "100k PXN route %s", r);
        T_NEAR(ar_platform_route_lat(p, 99999, 8), 2.6e-6, REL, "100k: 2 NVLink + 2 NIC links");
        ar_platform_free(p);
    }
}

int main(void) {
    test_shape_and_routes();
    test_nccl_ring_ceiling();
    test_rejects();
    test_structural_equals_table();
    return t_done("test_platform_rail");
}
