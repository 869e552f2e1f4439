/* Platforms: every preset loads with the expected shape; levels, routes
 * (tree, torus, graph) and generated families give the expected numbers;
 * malformed documents are rejected with messages naming the JSON path;
 * truncated, mutated and random input never crashes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "core/util.h"
#include "../t.h"

/* ---- helpers ---- */

static ar_platform *load(const char *spec, int ranks) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(spec, ranks, &p, &e);
    T_CHECK(st == AR_OK && p, "load %s (ranks %d): %s", spec, ranks, e.msg);
    return st == AR_OK ? p : NULL;
}

static int node_index(const ar_platform *p, const char *name) {
    for (int v = 0; v < p->nnodes; v++)
        if (!strcmp(p->nodes[v].name, name)) return v;
    return -1;
}

static int link_joins(const ar_platform *p, ar_dlink d, const char *x, const char *y) {
    const ar_link *l = &p->links[AR_DLINK_LINK(d)];
    const char *a = p->nodes[l->a].name, *b = p->nodes[l->b].name;
    return (!strcmp(a, x) && !strcmp(b, y)) || (!strcmp(a, y) && !strcmp(b, x));
}

/* A route must start at src's node, end at dst's node and be a walk. */
static int route_is_walk(const ar_platform *p, int src, int dst, const ar_dlink *r, int n) {
    int at = p->rank_node[src];
    for (int i = 0; i < n; i++) {
        int l = AR_DLINK_LINK(r[i]);
        if (l < 0 || l >= p->nlinks) return 0;
        const ar_link *k = &p->links[l];
        int from = (r[i] & 1) ? k->b : k->a, to = (r[i] & 1) ? k->a : k->b;
        if (from != at) return 0;
        at = to;
    }
    return at == p->rank_node[dst];
}

/* Checks every pair: walk, latency = sum, bandwidth = min, symmetry of length. */
static void check_all_routes(const ar_platform *p) {
    ar_dlink r[4096];
    int bad = 0;
    for (int s = 0; s < p->nranks && !bad; s++)
        for (int d = 0; d < p->nranks && !bad; d++) {
            int n = ar_platform_route(p, s, d, r, 4096);
            if (n < 0 || !route_is_walk(p, s, d, r, n)) {
                bad = 1;
                T_CHECK(0, "%s: route %d->%d is not a walk (len %d)", p->name, s, d, n);
                break;
            }
            double lat = 0, bw = INFINITY;
            for (int i = 0; i < n; i++) {
                const ar_link *l = &p->links[AR_DLINK_LINK(r[i])];
                lat += l->lat_s;
                if (ar_link_capacity(l) < bw) bw = ar_link_capacity(l);
            }
            if (fabs(ar_platform_route_lat(p, s, d) - lat) > 1e-15 || ar_platform_route_bw(p, s, d) != bw ||
                (s == d) != (n == 0) || ar_platform_route(p, d, s, NULL, 0) != (n == 0 ? 0 : -1) ||
                ar_platform_route(p, d, s, r, 4096) != n) {
                bad = 1;
                T_CHECK(0, "%s: route %d->%d: lat/bw/length mismatch", p->name, s, d);
            }
        }
    T_CHECK(!bad, "%s: all routes", p->name);
}

/* Rejects doc with a message containing frag (and the where prefix). */
static void reject(const char *doc, const char *frag) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    t_refused(ar_platform_from_json(doc, "x.json", &p, &e), p != NULL, &e, "x.json", frag, doc);
    ar_platform_free(p);
}

static ar_platform *accept(const char *doc) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_from_json(doc, "x.json", &p, &e);
    T_CHECK(st == AR_OK && p, "rejected (%s): %s", e.msg, doc);
    return p;
}

static void gen_reject(const char *spec, int ranks, const char *frag) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(spec, ranks, &p, &e);
    T_CHECK(st != AR_OK && !p, "accepted %s", spec);
    T_CHECK(strstr(e.msg, frag) != NULL, "%s: message \"%s\" lacks \"%s\"", spec, e.msg, frag);
    ar_platform_free(p);
}

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Parse must either fail with a one-line message or give a sane platform. */
static int survives(const char *doc) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_from_json(doc, "fuzz.json", &p, &e);
    int ok = 1;
    if (st == AR_OK) {
        ok = p && p->nranks >= 1 && p->machine_first_rank[p->nmachines] == p->nranks;
        if (ok) ok = ar_platform_route(p, 0, p->nranks - 1, NULL, 0) >= -1;
    } else {
        ok = !p && e.msg[0] && !strchr(e.msg, '\n');
    }
    ar_platform_free(p);
    return ok;
}

/* ---- tests ---- */

static void test_presets(void) {
    static const struct {
        const char *name;
        int ranks, machines, nlevels;
        ar_platform_kind kind;
    } want[] = {
        {"aws-p4d", 8, 1, 1, AR_PLAT_TREE},
        {"aws-p5", 8, 1, 1, AR_PLAT_TREE},
        {"bc-ibm-2x4", 8, 2, 2, AR_PLAT_TREE},
        {"bc-intel-2x4", 8, 2, 2, AR_PLAT_TREE},
        {"blueconnect-12", 12, 4, 3, AR_PLAT_TREE},
        {"blueconnect-192", 192, 48, 3, AR_PLAT_TREE},
        {"dgx-a100", 8, 1, 1, AR_PLAT_TREE},
        {"dgx-b200", 8, 1, 1, AR_PLAT_TREE},
        {"dgx-h100", 8, 1, 1, AR_PLAT_TREE},
        {"fat-tree-64", 64, 16, 3, AR_PLAT_FAT_TREE},
        {"flexreduce-2m-5", 5, 2, 0, AR_PLAT_TREE},
        {"fr-10", 10, 3, 0, AR_PLAT_TREE},
        {"fr-11", 11, 3, 0, AR_PLAT_TREE},
        {"fr-12", 12, 3, 2, AR_PLAT_TREE},
        {"fr-4", 4, 2, 2, AR_PLAT_TREE},
        {"fr-5", 5, 2, 0, AR_PLAT_TREE},
        {"fr-6", 6, 2, 2, AR_PLAT_TREE},
        {"fr-7", 7, 2, 0, AR_PLAT_TREE},
        {"fr-8", 8, 2, 2, AR_PLAT_TREE},
        {"fr-9", 9, 3, 2, AR_PLAT_TREE},
        {"gb200-nvl72", 72, 1, 1, AR_PLAT_TREE},
        {"p2.16xlarge", 16, 1, 0, AR_PLAT_GRAPH},
        {"p3.16xlarge", 8, 1, 0, AR_PLAT_GRAPH},
        {"p3.8xlarge", 4, 1, 0, AR_PLAT_GRAPH},
        {"pcie-8gpu-nop2p", 8, 1, 0, AR_PLAT_GRAPH},
        {"pcie-8gpu-p2p", 8, 1, 0, AR_PLAT_GRAPH},
        {"pfn-mn1", 8, 8, 2, AR_PLAT_TREE},
        {"torus-4x4", 64, 16, 3, AR_PLAT_TORUS},
    };
    int n = (int)(sizeof want / sizeof want[0]);
    char **names = NULL;
    int count = 0;
    ar_err e = {{0}};
    T_CHECK(ar_platform_list_presets(&names, &count, &e) == AR_OK, "list presets: %s", e.msg);
    T_CHECK(count == n, "%d presets listed, want %d", count, n);
    for (int i = 0; i < count && i < n; i++)
        T_CHECK(!strcmp(names[i], want[i].name), "preset %d is %s, want %s (sorted)", i, names[i], want[i].name);
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
    for (int i = 0; i < n; i++) {
        ar_platform *p = load(want[i].name, 0);
        if (!p) continue;
        T_CHECK(p->nranks == want[i].ranks, "%s: %d ranks, want %d", want[i].name, p->nranks, want[i].ranks);
        T_CHECK(p->nmachines == want[i].machines, "%s: %d machines, want %d", want[i].name, p->nmachines,
                want[i].machines);
        T_CHECK(p->nlevels == want[i].nlevels, "%s: %d levels, want %d", want[i].name, p->nlevels, want[i].nlevels);
        T_CHECK(p->kind == want[i].kind, "%s: kind %d", want[i].name, (int)p->kind);
        T_CHECK(p->nnotes >= 3, "%s: %d notes (sources/assumptions)", want[i].name, p->nnotes);
        T_CHECK(p->description != NULL, "%s: no description", want[i].name);
        char src[64];
        snprintf(src, sizeof src, "preset:%s", want[i].name);
        T_CHECK(!strcmp(p->source, src), "%s: source %s", want[i].name, p->source);
        T_CHECK(!strcmp(p->name, want[i].name), "%s: name %s", want[i].name, p->name);
        /* machines partition the ranks contiguously */
        int okm = p->machine_first_rank[0] == 0 && p->machine_first_rank[p->nmachines] == p->nranks;
        for (int r = 0; r < p->nranks; r++) {
            int m = p->machine_of_rank[r];
            okm &= p->machine_first_rank[m] <= r && r < p->machine_first_rank[m + 1];
            okm &= p->nodes[p->rank_node[r]].rank == r && p->nodes[p->rank_node[r]].kind == AR_NODE_GPU;
        }
        T_CHECK(okm, "%s: machines/ranks inconsistent", want[i].name);
        /* adjacency lists every link at both ends */
        int deg = p->adj_off[p->nnodes];
        T_CHECK(deg == 2 * p->nlinks, "%s: adjacency has %d entries for %d links", want[i].name, deg, p->nlinks);
        check_all_routes(p);
        ar_platform_free(p);
    }
}

static void test_levels(void) {
    ar_platform *p = load("blueconnect-12", 0);
    if (p) {
        const double bw[3] = {32e9, 12.5e9, 25e9};
        const int fan[3] = {3, 2, 2};
        for (int i = 0; i < 3; i++) {
            T_CHECK(p->levels[i].fanout == fan[i], "bc12 level %d fanout %d", i, p->levels[i].fanout);
            T_NEAR(p->levels[i].bw_Bps, bw[i], 1e-15, "bc12 level bw");
            T_NEAR(p->levels[i].lat_s, 1e-6, 1e-15, "bc12 level lat");
        }
        T_CHECK(p->height == 3 && p->uniform_depth == 1 && p->root == 0, "bc12 tree view");
        T_CHECK(p->nodes[p->root].rank_lo == 0 && p->nodes[p->root].rank_hi == 12, "bc12 root ranks");
        T_CHECK(p->nodes[p->root].nchildren == 2, "bc12 root children %d", p->nodes[p->root].nchildren);
        const int first[5] = {0, 3, 6, 9, 12};
        for (int m = 0; m <= 4; m++)
            T_CHECK(p->machine_first_rank[m] == first[m], "bc12 machine_first_rank[%d] = %d", m,
                    p->machine_first_rank[m]);
        int s = node_index(p, "s1.1");
        T_CHECK(s >= 0 && p->nodes[s].rank_lo == 6 && p->nodes[s].rank_hi == 12 && p->nodes[s].depth == 1,
                "bc12 s1.1 ranks/depth");
        T_CHECK(p->nodes[p->rank_node[7]].depth == 3, "bc12 GPU depth");
        T_CHECK(p->nnodes == 19 && p->nlinks == 18, "bc12 %d nodes %d links", p->nnodes, p->nlinks);
        ar_platform_free(p);
    }
    p = load("blueconnect-192", 0);
    if (p) {
        const double bw[3] = {40e9, 12.5e9, 200e9};
        const int fan[3] = {4, 16, 3};
        for (int i = 0; i < 3; i++) {
            T_CHECK(p->levels[i].fanout == fan[i], "bc192 level %d fanout %d", i, p->levels[i].fanout);
            T_NEAR(p->levels[i].bw_Bps, bw[i], 1e-15, "bc192 level bw");
            T_NEAR(p->levels[i].lat_s, 1e-6, 1e-15, "bc192 level lat");
        }
        T_CHECK(p->machine_first_rank[47] == 188, "bc192 last machine");
        ar_platform_free(p);
    }
    p = load("fat-tree-64", 0);
    if (p) {
        T_NEAR(p->levels[0].bw_Bps, 50e9, 1e-15, "ft64 level 0");
        T_NEAR(p->levels[1].bw_Bps, 50e9, 1e-15, "ft64 level 1");
        T_NEAR(p->levels[2].bw_Bps, 200e9, 1e-15, "ft64 level 2");
        int m = node_index(p, "s0.0"); /* a machine switch */
        T_CHECK(m >= 0 && p->links[p->nodes[m].uplink].lanes == 4, "ft64 machine uplink lanes");
        int edge = node_index(p, "s1.0");
        T_CHECK(edge >= 0 && p->links[p->nodes[edge].uplink].lanes == 16, "ft64 edge uplink lanes");
        ar_platform_free(p);
    }
    p = load("torus-4x4", 0);
    if (p) {
        T_CHECK(p->ndims == 2 && p->dims[0] == 4 && p->dims[1] == 4 && p->gpus_per_machine == 4, "torus dims");
        T_CHECK(p->levels[0].fanout == 4 && p->levels[1].fanout == 4 && p->levels[2].fanout == 4, "torus fanouts");
        T_NEAR(p->levels[0].bw_Bps, 50e9, 1e-15, "torus intra");
        T_NEAR(p->levels[1].bw_Bps, 12.5e9, 1e-15, "torus link");
        T_CHECK(p->nlinks == 64 + 32, "torus links %d", p->nlinks);
        T_CHECK(p->root == -1 && p->height == 0, "torus is not a tree");
        ar_platform_free(p);
    }
    p = load("fr-7", 0);
    if (p) {
        T_CHECK(p->machine_first_rank[1] == 4 && p->machine_first_rank[2] == 7, "fr-7 is 4+3");
        T_CHECK(p->height == 2 && p->uniform_depth, "fr-7 height");
        ar_platform_free(p);
    }
    p = load("fr-10", 0);
    if (p) {
        T_CHECK(p->machine_first_rank[1] == 4 && p->machine_first_rank[2] == 7 && p->machine_first_rank[3] == 10,
                "fr-10 is 4+3+3");
        ar_platform_free(p);
    }
}

static void test_tree_routes(void) {
    ar_dlink r[16];
    ar_platform *p = load("blueconnect-12", 0);
    if (p) {
        int n = ar_platform_route(p, 0, 1, r, 16);
        T_CHECK(n == 2, "bc12 0->1 length %d", n);
        int g0 = p->rank_node[0], g1 = p->rank_node[1];
        T_CHECK(r[0] == AR_DLINK(p->nodes[g0].uplink, p->links[p->nodes[g0].uplink].a == g0 ? 0 : 1),
                "bc12 first hop goes up");
        T_CHECK(r[1] == AR_DLINK(p->nodes[g1].uplink, p->links[p->nodes[g1].uplink].a == g1 ? 1 : 0),
                "bc12 last hop goes down");
        T_NEAR(ar_platform_route_lat(p, 0, 1), 2e-6, 1e-12, "bc12 0->1 lat");
        T_NEAR(ar_platform_route_bw(p, 0, 1), 32e9, 1e-15, "bc12 0->1 bw");
        T_CHECK(ar_platform_route(p, 0, 3, r, 16) == 4, "bc12 0->3 (other node, same rack)");
        T_NEAR(ar_platform_route_lat(p, 0, 3), 4e-6, 1e-12, "bc12 0->3 lat");
        T_NEAR(ar_platform_route_bw(p, 0, 3), 12.5e9, 1e-15, "bc12 0->3 bw");
        T_CHECK(ar_platform_route(p, 0, 11, r, 16) == 6, "bc12 0->11 (other rack)");
        T_NEAR(ar_platform_route_lat(p, 0, 11), 6e-6, 1e-12, "bc12 0->11 lat");
        T_NEAR(ar_platform_route_bw(p, 11, 0), 12.5e9, 1e-15, "bc12 11->0 bw");
        T_CHECK(ar_platform_route(p, 0, 11, r, 5) == -1, "max too small");
        T_CHECK(ar_platform_route(p, 4, 4, r, 0) == 0, "self route");
        T_CHECK(ar_platform_route(p, 0, 12, r, 16) == -1 && ar_platform_route(p, -1, 0, r, 16) == -1, "bad ranks");
        T_CHECK(isinf(ar_platform_route_bw(p, 3, 3)) && ar_platform_route_lat(p, 3, 3) == 0, "self bw/lat");
        T_CHECK(isnan(ar_platform_route_lat(p, 0, 99)) && isnan(ar_platform_route_bw(p, 99, 0)), "bad rank NaN");
        ar_platform_free(p);
    }
    p = load("flexreduce-2m-5", 0);
    if (p) {
        const char *order[5] = {"D", "E", "F", "G", "H"};
        for (int k = 0; k < 5; k++)
            T_CHECK(!strcmp(p->nodes[p->rank_node[k]].name, order[k]), "fr2m5 rank %d is %s", k,
                    p->nodes[p->rank_node[k]].name);
        T_CHECK(ar_platform_route(p, 0, 4, r, 16) == 4, "D->H length");
        T_CHECK(link_joins(p, r[1], "A", "B") && link_joins(p, r[2], "A", "C"), "D->H via A");
        T_NEAR(ar_platform_route_lat(p, 0, 4), 12e-6, 1e-12, "D->H lat");
        T_NEAR(ar_platform_route_bw(p, 0, 4), 1.25e9, 1e-15, "D->H bw");
        T_NEAR(ar_platform_route_bw(p, 2, 4), 10e9, 1e-15, "F->H bw");
        T_CHECK(p->machine_first_rank[1] == 2, "fr2m5 machine B has D, E");
        ar_platform_free(p);
    }
}

static void test_torus_routes(void) {
    ar_dlink r[32];
    ar_platform *p = load("torus-4x4", 0);
    if (p) {
        /* rank 0 on m0 = (0,0); rank 20 on m5 = (1,1): x first, then y */
        T_CHECK(ar_platform_route(p, 0, 20, r, 32) == 4, "torus 0->20 length");
        T_CHECK(link_joins(p, r[0], "m0", "m0.g0"), "torus up");
        T_CHECK(link_joins(p, r[1], "m0", "m1"), "torus dim 0 first");
        T_CHECK(link_joins(p, r[2], "m1", "m5"), "torus then dim 1");
        T_CHECK(link_joins(p, r[3], "m5", "m5.g0"), "torus down");
        T_NEAR(ar_platform_route_lat(p, 0, 20), 4e-6, 1e-12, "torus 0->20 lat");
        T_NEAR(ar_platform_route_bw(p, 0, 20), 12.5e9, 1e-15, "torus 0->20 bw");
        /* m0 -> m3 = (3,0): one hop backwards over the wrap-around link */
        T_CHECK(ar_platform_route(p, 0, 12, r, 32) == 3, "torus wrap length");
        T_CHECK(link_joins(p, r[1], "m3", "m0"), "torus wrap link");
        T_CHECK(r[1] % 2 == (p->links[AR_DLINK_LINK(r[1])].a == node_index(p, "m0") ? 0 : 1), "wrap direction");
        /* m0 -> m2 = (2,0): a tie, goes + (m0 -> m1 -> m2) */
        T_CHECK(ar_platform_route(p, 0, 8, r, 32) == 4, "torus tie length");
        T_CHECK(link_joins(p, r[1], "m0", "m1") && link_joins(p, r[2], "m1", "m2"), "torus tie goes +");
        /* m15 = (3,3) -> m0: + along x (wrap) then + along y (wrap) */
        T_CHECK(ar_platform_route(p, 60, 0, r, 32) == 4, "torus 60->0 length");
        T_CHECK(link_joins(p, r[1], "m15", "m12") && link_joins(p, r[2], "m12", "m0"), "torus double wrap");
        /* same machine */
        T_CHECK(ar_platform_route(p, 0, 3, r, 32) == 2, "torus same machine");
        T_NEAR(ar_platform_route_bw(p, 0, 3), 50e9, 1e-15, "torus intra bw");
        ar_platform_free(p);
    }
    p = load("torus:dims=2x3,gpus=1", 0);
    if (p) {
        T_CHECK(p->nlinks == 6 + 3 + 6, "2x3 torus links %d (one link per pair in a size-2 dim)", p->nlinks);
        ar_dlink a[8], b[8];
        T_CHECK(ar_platform_route(p, 0, 1, a, 8) == 3 && ar_platform_route(p, 1, 0, b, 8) == 3, "pair routes");
        T_CHECK(AR_DLINK_LINK(a[1]) == AR_DLINK_LINK(b[1]) && a[1] != b[1], "pair shares one link, both ways");
        /* m0 (0,0) -> m5 (1,2): x then y backwards over the wrap */
        T_CHECK(ar_platform_route(p, 0, 5, a, 8) == 4, "2x3 0->5 length");
        T_CHECK(link_joins(p, a[1], "m0", "m1") && link_joins(p, a[2], "m1", "m5"), "2x3 0->5 path");
        check_all_routes(p);
        ar_platform_free(p);
    }
    p = load("torus:dims=5,gpus=2,lat=2us", 0);
    if (p) {
        T_CHECK(p->nranks == 10 && p->nlinks == 10 + 5, "ring torus");
        T_CHECK(ar_platform_route(p, 0, 6, r, 32) == 4, "ring 0->m3 goes back 2");
        T_NEAR(ar_platform_route_lat(p, 0, 6), 8e-6, 1e-12, "ring lat");
        ar_platform_free(p);
    }
}

static void test_graph_routes(void) {
    ar_dlink r[32];
    ar_platform *p = load("p3.16xlarge", 0);
    if (p) {
        int lanes = 0, per_gpu[8] = {0};
        for (int l = 0; l < p->nlinks; l++) {
            lanes += p->links[l].lanes;
            per_gpu[p->nodes[p->links[l].a].rank] += p->links[l].lanes;
            per_gpu[p->nodes[p->links[l].b].rank] += p->links[l].lanes;
        }
        T_CHECK(lanes == 24, "p3.16xlarge has %d NVLinks, want 24 (C(G) = 7/24)", lanes);
        for (int g = 0; g < 8; g++) T_CHECK(per_gpu[g] == 6, "p3.16 gpu%d has %d NVLinks", g, per_gpu[g]);
        T_CHECK(ar_platform_route(p, 0, 3, r, 32) == 1, "p3 0->3 direct");
        T_NEAR(ar_platform_route_bw(p, 0, 3), 50e9, 1e-15, "p3 0->3 two lanes");
        T_NEAR(ar_platform_route_lat(p, 0, 3), 1e-6, 1e-12, "p3 0->3 lat");
        T_CHECK(ar_platform_route(p, 0, 5, r, 32) == 2, "p3 0->5 two hops");
        T_CHECK(link_joins(p, r[0], "gpu0", "gpu1") && link_joins(p, r[1], "gpu1", "gpu5"), "p3 0->5 via gpu1 (tie)");
        T_NEAR(ar_platform_route_bw(p, 0, 5), 25e9, 1e-15, "p3 0->5 bw");
        T_CHECK(ar_platform_route(p, 0, 7, r, 32) == 2 && link_joins(p, r[0], "gpu0", "gpu3"), "p3 0->7 via gpu3");
        T_CHECK(ar_platform_route(p, 7, 0, r, 32) == 2 && link_joins(p, r[0], "gpu7", "gpu3"), "p3 7->0 via gpu3");
        ar_platform_free(p);
    }
    p = load("p3.8xlarge", 0);
    if (p) {
        int lanes = 0;
        for (int l = 0; l < p->nlinks; l++) lanes += p->links[l].lanes;
        T_CHECK(lanes == 9 && p->nlinks == 6, "p3.8xlarge %d NVLinks, want 9 (C(G) = 3/9 = 1/3)", lanes);
        ar_platform_free(p);
    }
    p = load("p2.16xlarge", 0);
    if (p) {
        T_CHECK(p->nnodes == 26 && p->nlinks == 25, "p2 %d nodes %d links", p->nnodes, p->nlinks);
        T_CHECK(ar_platform_route(p, 0, 1, r, 32) == 2, "p2 same card");
        T_CHECK(ar_platform_route(p, 0, 2, r, 32) == 4, "p2 same half");
        T_CHECK(ar_platform_route(p, 0, 8, r, 32) == 5, "p2 across the bridge");
        T_CHECK(link_joins(p, r[2], "plx0", "plx1"), "p2 bridge in the middle");
        T_NEAR(ar_platform_route_lat(p, 0, 8), 5e-6, 1e-12, "p2 0->8 lat");
        T_NEAR(ar_platform_route_bw(p, 0, 8), 12e9, 1e-15, "p2 0->8 bw");
        ar_platform_free(p);
    }
}

static void test_families(void) {
    ar_platform *p = load("flat", 0);
    if (p) {
        T_CHECK(p->nranks == 8 && p->nlevels == 1 && p->nmachines == 1, "flat default");
        T_NEAR(p->levels[0].bw_Bps, 12.5e9, 1e-15, "flat bw");
        T_CHECK(!strcmp(p->source, "generated:flat"), "flat source %s", p->source);
        ar_platform_free(p);
    }
    p = load("flat", 4);
    if (p) {
        T_CHECK(p->nranks == 4 && !strcmp(p->name, "flat:ranks=4"), "flat --ranks: %d %s", p->nranks, p->name);
        ar_platform_free(p);
    }
    p = load("flat:bw=10GBps,lat=2us", 6);
    if (p) {
        T_CHECK(p->nranks == 6 && !strcmp(p->name, "flat:bw=10GBps,lat=2us,ranks=6"), "flat name %s", p->name);
        T_NEAR(ar_platform_route_lat(p, 0, 5), 4e-6, 1e-12, "flat lat");
        ar_platform_free(p);
    }
    p = load("tree", 0);
    if (p) {
        T_CHECK(p->nranks == 12 && p->nlevels == 3 && p->levels[0].fanout == 3, "tree default = BlueConnect Fig. 1");
        ar_platform_free(p);
    }
    p = load("tree:fanouts=4x16x3,bw=20GBps/100Gbps/200GB/s,lat=1us/2us/3us", 0);
    if (p) {
        T_CHECK(p->nranks == 192 && p->nmachines == 48, "tree 4x16x3");
        T_NEAR(p->levels[2].bw_Bps, 200e9, 1e-15, "tree per-level bw with B/s");
        T_NEAR(p->levels[1].lat_s, 2e-6, 1e-12, "tree per-level lat");
        ar_platform_free(p);
    }
    p = load("tree", 64);
    if (p) {
        T_CHECK(p->nlevels == 2 && p->levels[0].fanout == 8 && p->levels[1].fanout == 8, "tree --ranks 64 = 8x8");
        ar_platform_free(p);
    }
    p = load("tree", 512);
    if (p) {
        T_CHECK(p->nlevels == 3 && p->levels[1].fanout == 32 && p->levels[2].fanout == 2, "tree --ranks 512");
        ar_platform_free(p);
    }
    p = load("fat-tree", 64);
    if (p) {
        T_CHECK(p->kind == AR_PLAT_FAT_TREE && p->nranks == 64, "fat-tree 64");
        T_NEAR(p->levels[1].bw_Bps, 8 * 12.5e9, 1e-15, "fat-tree full bisection");
        ar_platform_free(p);
    }
    p = load("torus", 0);
    if (p) {
        T_CHECK(p->nranks == 64 && p->ndims == 2, "torus default");
        ar_platform_free(p);
    }
    p = load("torus", 48);
    if (p) {
        T_CHECK(p->nranks == 48 && p->dims[0] * p->dims[1] == 12 && p->dims[0] == 4 && p->dims[1] == 3,
                "torus --ranks 48 -> 4x3");
        ar_platform_free(p);
    }
    p = load("torus:dims=4x4x4,gpus=2", 0);
    if (p) {
        T_CHECK(p->nranks == 128 && p->nlevels == 4, "3-D torus");
        ar_platform_free(p);
    }
    p = load("machines", 0);
    if (p) {
        T_CHECK(p->nranks == 5 && p->nmachines == 2 && p->machine_first_rank[1] == 2, "machines default 2+3");
        T_NEAR(ar_platform_route_bw(p, 0, 4), 1.25e9, 1e-15, "machines inter");
        ar_platform_free(p);
    }
    p = load("machines:gpus=4+4+3", 0);
    if (p) {
        T_CHECK(p->nranks == 11 && p->nmachines == 3 && p->nlevels == 0, "machines 4+4+3");
        ar_platform_free(p);
    }
    p = load("machines", 10);
    if (p) {
        T_CHECK(p->nmachines == 3 && p->machine_first_rank[1] == 4 && p->machine_first_rank[2] == 7,
                "machines --ranks 10 -> 4+3+3");
        ar_platform_free(p);
    }
    gen_reject("tree:fanouts=3x2,ranks=7", 0, "does not match");
    gen_reject("tree", 12, "not a multiple of 8");
    gen_reject("tree", 264, "not a multiple of 256");
    gen_reject("torus:foo=1", 0, "unknown key \"foo\"");
    gen_reject("flat:bw=12.5GBs", 0, "\"12.5GBs\" is not a rate (use e.g. 12.5GBps, 100Gbps)");
    gen_reject("flat:ranks=0", 0, "out of range");
    gen_reject("flat:ranks=2000000", 0, "out of range");
    gen_reject("machines:gpus=2+0", 0, "\"0\"");
    gen_reject("tree:fanouts=", 0, "not key=value");
    gen_reject("flat:ranks=8,ranks=9", 0, "given twice");
    gen_reject("tree:bw=1GBps/2GBps", 0, "one per level");
    gen_reject("torus:ranks=10,gpus=4", 0, "not a multiple");
    gen_reject("ring:ranks=8", 0, "unknown platform family");
    gen_reject("nosuchpreset", 0, "unknown platform \"nosuchpreset\" (see 'arlab platforms')");
    gen_reject("../etc/passwd", 0, "cannot open");
    gen_reject("", 0, "empty");
    gen_reject("blueconnect-12", 8, "has 12 ranks");
    p = load("blueconnect-12", 12);
    ar_platform_free(p);
}

static void test_load_paths(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fr-9.json", ar_platform_preset_dir());
    ar_platform *p = load(path, 0);
    if (p) {
        T_CHECK(!strcmp(p->source, path) && p->nranks == 9, "load by path: source %s", p->source);
        FILE *f = tmpfile();
        ar_err e = {{0}};
        T_CHECK(f && ar_platform_print_json(p, f, &e) == AR_OK, "print json: %s", e.msg);
        if (f) {
            long n = ftell(f);
            T_CHECK(n > 500, "json output %ld bytes", n);
            fclose(f);
        }
        f = tmpfile();
        if (f) {
            ar_platform_print_summary(p, f);
            T_CHECK(ftell(f) > 50, "summary output");
            fclose(f);
        }
        ar_platform_free(p);
    }
    /* ARLAB_PLATFORM_DIR adds directories before the built-in presets; one that does not exist adds
     * nothing and hides nothing (it used to replace the presets) */
    setenv("ARLAB_PLATFORM_DIR", "/nonexistent-arlab-dir", 1);
    char **names = NULL;
    int count = -1;
    ar_err e = {{0}};
    T_CHECK(ar_platform_list_presets(&names, &count, &e) == AR_OK && count >= 19, "built-ins still listed (%d): %s",
            count, e.msg);
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
    ar_platform *bc = NULL;
    T_CHECK(ar_platform_load("blueconnect-12", 0, &bc, &e) == AR_OK && bc && bc->nranks == 12,
            "a built-in preset still loads: %s", e.msg);
    ar_platform_free(bc);
    gen_reject("no-such-preset", 0, "unknown platform");
    unsetenv("ARLAB_PLATFORM_DIR");
}

#define HEAD_TREE "{\"name\":\"x\",\"kind\":\"tree\","
#define HEAD_GRAPH "{\"name\":\"x\",\"kind\":\"graph\","
#define LV(f, bw) "{\"fanout\":" #f ",\"bw\":\"" bw "\",\"lat\":\"1us\"}"
#define CAL_TREE                                                                                               \
    HEAD_TREE "\"levels\":[{\"fanout\":2,\"bw\":\"10GBps\",\"lat\":\"1us\"},{\"fanout\":2,\"bw\":\"100GBps\"," \
              "\"lat\":\"5us\"}],"

static void test_malformed(void) {
    ar_platform *p = NULL;
    ar_err e = {{0}};
    /* exact messages from the brief */
    ar_platform_from_json(HEAD_TREE "\"levels\":[" LV(3, "32GBps") "," LV(2, "12.5GBs") "]}", "platforms/x.json", &p,
                          &e);
    T_CHECK(!p && !strcmp(e.msg, "platforms/x.json: levels[1].bw: \"12.5GBs\" is not a rate (use e.g. 12.5GBps, "
                                 "100Gbps)"),
            "got: %s", e.msg);
    ar_platform_from_json(HEAD_TREE "\"levels\":[" LV(0, "32GBps") "]}", "x.json", &p, &e);
    T_CHECK(!p && !strcmp(e.msg, "x.json: levels[0].fanout: must be an integer >= 1 (got 0)"), "got: %s", e.msg);
    ar_platform_from_json(HEAD_GRAPH "\"gpus\":4,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":1,\"lat\":0},"
                                     "{\"a\":\"gpu1\",\"b\":\"gpu2\",\"bw\":1,\"lat\":0},"
                                     "{\"a\":\"gpu2\",\"b\":\"gpu3\",\"bw\":1,\"lat\":0},"
                                     "{\"a\":\"gpu3\",\"b\":\"gpu9\",\"bw\":1,\"lat\":0}]}",
                          "x.json", &p, &e);
    T_CHECK(!p && !strcmp(e.msg, "x.json: links[3].b: unknown node \"gpu9\""), "got: %s", e.msg);

    reject("{", "malformed JSON near byte 1");
    reject("{\"name\":\"x\",\n\"kind\":tree}", "(line 2)");
    reject(HEAD_TREE "\"levels\":[" LV(3, "1GBps") "]} trailing", "malformed JSON");
    reject("", "empty document");
    reject("[]", "must be a JSON object");
    reject("{\"kind\":\"tree\",\"levels\":[]}", "name: missing");
    reject("{\"name\":\"\",\"kind\":\"tree\"}", "name: must not be empty");
    reject("{\"name\":\"x\",\"kind\":\"ring\"}",
           "kind: must be \"tree\", \"fat-tree\", \"torus\" or \"graph\" (got \"ring\")");
    reject("{\"name\":\"x\",\"kind\":7}", "kind: must be a string (got a number)");
    reject("{\"name\":\"a\",\"name\":\"b\",\"kind\":\"tree\"}", "key \"name\" appears twice");
    reject(HEAD_TREE "\"notes\":[\"ok\",3],\"levels\":[" LV(3, "1GBps") "]}", "notes[1]: must be a string");
    reject(HEAD_TREE "\"levels\":[]}", "levels: must have at least 1 entry");
    reject(HEAD_TREE "\"levels\":{}}", "levels: must be an array (got an object)");
    reject(HEAD_TREE "\"levels\":[" LV(2.5, "1GBps") "]}", "levels[0].fanout: must be an integer >= 1 (got 2.5)");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":\"3\",\"bw\":1,\"lat\":0}]}",
           "levels[0].fanout: must be an integer >= 1 (got a string)");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":0,\"lat\":0}]}", "levels[0].bw: a rate must be > 0 (got 0)");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":-1,\"lat\":0}]}", "levels[0].bw: a rate must be > 0");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":\"0Gbps\",\"lat\":0}]}",
           "levels[0].bw: \"0Gbps\": a rate must be > 0");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":1e999,\"lat\":0}]}", "levels[0].bw: must be finite");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":1,\"lat\":\"-1us\"}]}",
           "levels[0].lat: \"-1us\": a time must not be negative");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":1,\"lat\":-1}]}", "levels[0].lat: a time must not be negative");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":1}]}", "levels[0].lat: missing");
    reject(HEAD_TREE "\"levels\":[{\"fanout\":3,\"bw\":1,\"lat\":0,\"lanes\":0}]}",
           "levels[0].lanes: must be an integer >= 1 (got 0)");
    reject(HEAD_TREE "\"levels\":[{\"fanuot\":3,\"bw\":1,\"lat\":0}]}", "levels[0]: unknown key \"fanuot\"");
    reject(HEAD_TREE "\"levels\":[" LV(1024, "1GBps") "," LV(1025, "1GBps") "]}",
           "levels[1]: the fanouts give more than 1048576 ranks");
    reject(HEAD_TREE "\"levels\":[" LV(3, "1GBps") "],\"root\":{}}", "give either \"levels\" or \"root\"");
    reject(HEAD_TREE "\"description\":\"d\"}", "missing \"levels\" (symmetric form) or \"root\"");
    reject(HEAD_TREE "\"root\":{\"children\":[{\"name\":\"B\",\"lat\":0,\"gpus\":2,\"child_bw\":1,\"child_lat\":0}]}}",
           "root.children[0].bw: missing (give \"bw\" here or \"child_bw\" on the parent switch)");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"gpu\":\"a\"},{\"name\":\"B\","
                     "\"children\":[{\"gpu\":\"b\",\"bw\":1,\"lat\":0,\"lanes\":0}]}]}}",
           "root.children[1].children[0].lanes: must be an integer >= 1 (got 0)");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"name\":\"B\",\"children\":[]}]}}",
           "root.children[0].children: must have at least 1 entry");
    reject(HEAD_TREE "\"root\":{\"gpus\":4}}", "root.gpus: needs \"child_bw\" and \"child_lat\"");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"name\":\"B\",\"gpus\":0}]}}",
           "root.children[0].gpus: must be an integer >= 1 (got 0)");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"gpu\":\"a\"},{\"gpu\":\"a\"}]}}",
           "duplicate node name \"a\"");
    reject(HEAD_TREE
           "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"gpu\":\"a\"},{\"name\":\"S\",\"gpus\":2,"
           "\"child_bw\":1,\"child_lat\":0},{\"gpu\":\"b\"}]}}",
           "the GPUs of switch \"root\" are not consecutive ranks (\"b\", rank 3,");
    reject(HEAD_TREE "\"root\":{\"bw\":1,\"gpus\":2}}", "root: unknown key \"bw\"");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[{\"gpu\":\"\"}]}}",
           "root.children[0].gpu: must not be empty");
    reject(HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[5]}}",
           "root.children[0]: must be an object (got a number)");
    reject("{\"name\":\"x\",\"kind\":\"fat-tree\",\"root\":{}}", "unknown key \"root\"");
    reject("{\"name\":\"x\",\"kind\":\"fat-tree\",\"full_bisection\":1,\"levels\":[" LV(3, "1GBps") "]}",
           "full_bisection: must be true or false");
    reject("{\"name\":\"x\",\"kind\":\"torus\",\"dims\":[4,0],\"gpus_per_machine\":1,\"intra\":{\"bw\":1,\"lat\":0},"
           "\"link\":{\"bw\":1,\"lat\":0}}",
           "dims[1]: must be an integer in 1..");
    reject("{\"name\":\"x\",\"kind\":\"torus\",\"dims\":[4],\"gpus_per_machine\":1,\"link\":{\"bw\":1,\"lat\":0}}",
           "intra: missing");
    reject("{\"name\":\"x\",\"kind\":\"torus\",\"dims\":[4],\"gpus_per_machine\":1,\"intra\":{\"bw\":1,\"lat\":0},"
           "\"link\":{\"bw\":\"fast\",\"lat\":0}}",
           "link.bw: \"fast\" is not a rate");
    reject("{\"name\":\"x\",\"kind\":\"torus\",\"dims\":[1,2,3,4,5,6,7,8,9],\"gpus_per_machine\":1,\"intra\":{\"bw\":1,"
           "\"lat\":0},\"link\":{\"bw\":1,\"lat\":0}}",
           "dims: at most 8 dimensions");
    reject("{\"name\":\"x\",\"kind\":\"torus\",\"dims\":[1024,1024],\"gpus_per_machine\":2,\"intra\":{\"bw\":1,"
           "\"lat\":0},\"link\":{\"bw\":1,\"lat\":0}}",
           "ranks");
    reject(HEAD_GRAPH "\"gpus\":2,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":1,\"lat\":0},"
                      "{\"a\":\"gpu1\",\"b\":\"gpu0\",\"bw\":1,\"lat\":0}]}",
           "links[1]: a second link between \"gpu0\" and \"gpu1\" (links[0]): give one link with \"lanes\"");
    reject(HEAD_GRAPH "\"gpus\":3,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":1,\"lat\":0}]}",
           "the graph is disconnected");
    reject(HEAD_GRAPH
           "\"nodes\":[{\"name\":\"a\",\"type\":\"gpu\"},{\"name\":\"a\",\"type\":\"switch\"}],\"links\":[]}",
           "nodes[1].name: duplicate node name \"a\"");
    reject(HEAD_GRAPH "\"gpus\":2,\"nodes\":[{\"name\":\"gpu1\",\"type\":\"switch\"}],\"links\":[]}",
           "nodes[0].name: duplicate node name \"gpu1\"");
    reject(HEAD_GRAPH "\"gpus\":1,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu0\",\"bw\":1,\"lat\":0}]}",
           "links[0]: link joins \"gpu0\" to itself");
    reject(HEAD_GRAPH "\"nodes\":[{\"name\":\"c\",\"type\":\"cpu\"}],\"links\":[]}",
           "nodes[0].type: must be \"gpu\" or \"switch\" (got \"cpu\")");
    reject(HEAD_GRAPH
           "\"nodes\":[{\"name\":\"a\",\"type\":\"gpu\",\"machine\":0},{\"name\":\"b\",\"type\":\"gpu\","
           "\"machine\":1},{\"name\":\"c\",\"type\":\"gpu\",\"machine\":0}],\"links\":[{\"a\":\"a\",\"b\":\"b\","
           "\"bw\":1,\"lat\":0},{\"a\":\"b\",\"b\":\"c\",\"bw\":1,\"lat\":0}]}",
           "consecutive ranks");
    reject(HEAD_GRAPH "\"nodes\":[{\"name\":\"a\",\"type\":\"gpu\",\"machine\":1}],\"links\":[]}", "consecutive ranks");
    reject(HEAD_GRAPH "\"gpus\":4097,\"links\":[]}", "gpus: must be an integer <= 4096 (got 4097)");
    { /* a documented limit, not bad syntax: AR_ELIMIT */
        ar_platform *q = NULL;
        ar_err e2 = {{0}};
        T_CHECK(ar_platform_from_json(HEAD_GRAPH "\"gpus\":4097,\"links\":[]}", "x.json", &q, &e2) == AR_ELIMIT && !q,
                "4097 GPUs: %s", e2.msg);
        T_CHECK(ar_platform_generate("flat:ranks=2000000", 0, &q, &e2) == AR_ELIMIT && !q, "2e6 ranks: %s", e2.msg);
        ar_platform_free(q);
    }
    reject(HEAD_GRAPH "\"gpus\":2}", "links: missing");
    reject(HEAD_GRAPH "\"links\":[]}", "nodes: missing");
    reject(HEAD_GRAPH "\"nodes\":[{\"name\":\"s\",\"type\":\"switch\"}],\"links\":[]}", "no GPUs");
    reject(HEAD_GRAPH "\"gpus\":2,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":\"1GBps\"}]}",
           "links[0].lat: missing");
    reject(HEAD_GRAPH "\"gpus\":2,\"links\":[{\"a\":\"gpu0\",\"b\":\"gpu1\",\"bw\":true,\"lat\":0}]}",
           "links[0].bw: must be a rate like \"12.5GBps\" or a number (got a boolean)");

    /* accepted edge cases */
    p = accept(HEAD_GRAPH "\"gpus\":1,\"links\":[]}");
    if (p) {
        T_CHECK(p->nranks == 1 && ar_platform_route(p, 0, 0, NULL, 0) == 0, "single GPU graph");
        ar_platform_free(p);
    }
    p = accept(HEAD_TREE "\"_comment\":\"ignored\",\"levels\":[{\"fanout\":2,\"bw\":1e9,\"lat\":0,\"lanes\":3}]}");
    if (p) {
        T_NEAR(p->levels[0].bw_Bps, 3e9, 1e-15, "lanes in capacity");
        ar_platform_free(p);
    }
    /* GPUs at different depths: no levels, uniform_depth 0, machines by parent */
    p = accept(HEAD_TREE "\"root\":{\"name\":\"r\",\"child_bw\":1,\"child_lat\":0,\"children\":[{\"gpu\":\"a\"},"
                         "{\"name\":\"S\",\"gpus\":2,\"child_bw\":1,\"child_lat\":0}]}}");
    if (p) {
        T_CHECK(p->nranks == 3 && p->nmachines == 2 && !p->uniform_depth && p->height == 2 && p->nlevels == 0,
                "mixed-depth tree");
        T_CHECK(!strcmp(p->nodes[p->rank_node[1]].name, "S.g0"), "gpus shorthand names");
        ar_platform_free(p);
    }
}

/* Truncations and mutations of one document (test_fuzz). */
static void fuzz_text(const char *text, size_t len, uint64_t *seedp, int *casesp, int *crashesp, int *truncp) {
    uint64_t seed = *seedp;
    int cases = 0, crashes = 0, truncated_ok = 0;
    char *buf = malloc(len + 1);
    size_t last = len;
    while (last > 0 && text[last - 1] != '}') last--;
    for (size_t n = 0; n < len; n++) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        cases++;
        if (!survives(buf)) crashes++;
        ar_platform *p = NULL;
        if (n < last && ar_platform_from_json(buf, "t.json", &p, NULL) == AR_OK) truncated_ok++;
        ar_platform_free(p);
    }
    /* mutations: overwrite 1-3 bytes with JSON-significant characters */
    static const char alphabet[] = "{}[]\":,0123456789-.eE tfn\\a\x01\xff";
    for (int k = 0; k < 3000; k++) {
        memcpy(buf, text, len + 1);
        int nm = 1 + (int)(rnd(&seed) % 3);
        for (int j = 0; j < nm; j++) buf[rnd(&seed) % len] = alphabet[rnd(&seed) % (sizeof alphabet - 1)];
        cases++;
        if (!survives(buf)) crashes++;
    }
    free(buf);
    *seedp = seed, *casesp += cases, *crashesp += crashes, *truncp += truncated_ok;
}

static void test_fuzz(void) {
    static const char *const files[] = {"blueconnect-12", "flexreduce-2m-5", "p3.16xlarge", "torus-4x4", "fat-tree-64"};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int crashes = 0, truncated_ok = 0, cases = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s.json", ar_platform_preset_dir(), files[f]);
        char *text = NULL;
        if (ar_read_file(path, (size_t)1 << 24, &text, &len, NULL) != AR_OK) text = NULL;
        T_CHECK(text != NULL, "read %s", path);
        if (!text) continue;
        fuzz_text(text, len, &seed, &cases, &crashes, &truncated_ok);
        free(text);
    }
    /* a calibrated document (h14g): the "calibration" and "nccl" blocks */
    static const char cal[] = CAL_TREE
        "\"calibration\":{\"intra\":{\"lat\":2,\"bw\":0.5},\"inter\":{\"lat\":3,"
        "\"bw\":0.25},\"base\":\"dgx-h100\"},\"nccl\":{\"efficiency\":{\"RING/SIMPLE\":0.93,"
        "\"tree\":0.8}}}";
    fuzz_text(cal, strlen(cal), &seed, &cases, &crashes, &truncated_ok);
    /* random documents */
    char doc[256];
    static const char alphabet[] = "{}[]\":,0123456789-.eE \"name\"kind\"tree\"levels\"fanout\"gpus\"graph";
    for (int k = 0; k < 5000; k++) {
        int n = (int)(rnd(&seed) % (sizeof doc - 1));
        for (int j = 0; j < n; j++)
            doc[j] = (k & 1) ? (char)(1 + rnd(&seed) % 255) : alphabet[rnd(&seed) % (sizeof alphabet - 1)];
        doc[n] = '\0';
        cases++;
        if (!survives(doc)) crashes++;
    }
    T_CHECK(crashes == 0, "%d of %d fuzz cases misbehaved", crashes, cases);
    T_CHECK(truncated_ok == 0, "%d truncated documents were accepted", truncated_ok);
    /* deep nesting stops at cJSON's limit, not the stack */
    size_t deep = 200000;
    char *d = malloc(deep * 2 + 1);
    for (size_t i = 0; i < deep; i++) d[i] = '[';
    for (size_t i = 0; i < deep; i++) d[deep + i] = ']';
    d[2 * deep] = '\0';
    T_CHECK(survives(d), "deep nesting");
    free(d);
    /* a deep but legal explicit tree: 400 nested switches */
    char *t = malloc(64 * 1024);
    size_t o = (size_t)snprintf(t, 64 * 1024, HEAD_TREE "\"root\":{\"child_bw\":1,\"child_lat\":0,\"children\":[");
    for (int i = 0; i < 400; i++)
        o += (size_t)snprintf(t + o, 64 * 1024 - o, "{\"name\":\"s%d\",\"bw\":1,\"lat\":1e-6,\"children\":[", i);
    o += (size_t)snprintf(t + o, 64 * 1024 - o, "{\"gpu\":\"deep\",\"bw\":1,\"lat\":0}");
    for (int i = 0; i < 400; i++) o += (size_t)snprintf(t + o, 64 * 1024 - o, "]}");
    snprintf(t + o, 64 * 1024 - o, ",{\"gpu\":\"top\"}]}}");
    ar_platform *p = accept(t);
    if (p) {
        T_CHECK(p->height == 401 && p->nranks == 2, "deep tree height %d", p->height);
        T_NEAR(ar_platform_route_lat(p, 0, 1), 400e-6, 1e-9, "deep route latency");
        T_CHECK(ar_platform_route(p, 0, 1, NULL, 0) == -1, "deep route needs room");
        ar_platform_free(p);
    }
    free(t);
}

/* Routes that size themselves: a 600-GPU chain's 599-link route goes into a
 * buffer that grows (ar_platform_route_append), at any offset, equal to the
 * fixed-buffer route; a too-small fixed buffer is refused; a bad rank is
 * AR_EINVAL. */
static void test_route_append(void) {
    enum { N = 600 };
    size_t cap = 64 + (size_t)N * 80, k = 0;
    char *doc = malloc(cap);
    T_CHECK(doc != NULL, "out of memory");
    if (!doc) return;
    k += (size_t)snprintf(doc + k, cap - k, "{\"name\":\"chain\",\"kind\":\"graph\",\"gpus\":%d,\"links\":[", N);
    for (int i = 0; i + 1 < N; i++)
        k += (size_t)snprintf(doc + k, cap - k, "%s{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":1e9,\"lat\":1e-6}",
                              i ? "," : "", i, i + 1);
    snprintf(doc + k, cap - k, "]}");
    ar_platform *p = NULL;
    ar_err e = {{0}};
    T_CHECK(ar_platform_from_json(doc, "chain.json", &p, &e) == AR_OK && p, "chain: %s", e.msg);
    free(doc);
    if (!p) return;
    static ar_dlink fixed[N];
    T_CHECK(ar_platform_route(p, N - 1, 0, fixed, 512) == -1, "a 512-link buffer must refuse 599 links");
    int n = ar_platform_route(p, N - 1, 0, fixed, N);
    T_CHECK(n == N - 1, "route 599->0 has %d links (want 599)", n);
    ar_dlink *buf = NULL;
    size_t bcap = 0;
    int len = -1;
    T_OK(ar_platform_route_append(p, N - 1, 0, &buf, &bcap, 0, &len, &e));
    T_CHECK(len == N - 1 && bcap >= (size_t)len && !memcmp(buf, fixed, (size_t)n * sizeof *buf), "append: %d", len);
    T_OK(ar_platform_route_append(p, N - 1, 0, &buf, &bcap, (size_t)len, &len, &e)); /* appended after the first */
    T_CHECK(len == N - 1 && bcap >= 2 * (size_t)len && !memcmp(buf + len, fixed, (size_t)n * sizeof *buf),
            "second append: %d", len);
    T_OK(ar_platform_route_append(p, 3, 3, &buf, &bcap, 0, &len, &e));
    T_CHECK(len == 0, "self route: %d", len);
    T_CHECK(ar_platform_route_append(p, 0, N, &buf, &bcap, 0, &len, &e) == AR_EINVAL && len == 0 &&
                strstr(e.msg, "600 ranks"),
            "bad rank: %s", e.msg);
    free(buf);
    ar_platform_free(p);
}

/* "calibration" and "nccl": the loader applies the per-class factors to the links and levels,
 * keeps the NCCL efficiencies, and refuses a bad block with one line naming the field. */
static void test_calibration(void) {
    ar_platform *p = accept(CAL_TREE
                            "\"calibration\":{\"intra\":{\"lat\":2,\"bw\":0.5},\"inter\":{\"lat\":3,"
                            "\"bw\":0.25},\"base\":\"dgx-h100\"},\"nccl\":{\"efficiency\":{\"RING/SIMPLE\":0.93,"
                            "\"tree\":0.8}}}");
    if (p) {
        T_CHECK(p->calibrated && p->nmachines == 2 && p->cal_base && !strcmp(p->cal_base, "dgx-h100"), "calibrated");
        /* GPU -> machine switch (intra): 10 GB/s x 0.5, 1 us x 2; machine switch -> root (inter): 100 GB/s x 0.25,
         * 5 us x 3 */
        const ar_link *g = &p->links[p->nodes[p->rank_node[0]].uplink];
        T_NEAR(g->bw_Bps, 5e9, 1e-12, "intra link bw");
        T_NEAR(g->lat_s, 2e-6, 1e-12, "intra link lat");
        const ar_link *m = &p->links[p->nodes[p->nodes[p->rank_node[0]].parent].uplink];
        T_NEAR(m->bw_Bps, 25e9, 1e-12, "inter link bw");
        T_NEAR(m->lat_s, 15e-6, 1e-12, "inter link lat");
        T_NEAR(p->levels[0].bw_Bps, 5e9, 1e-12, "level 0");
        T_NEAR(p->levels[1].bw_Bps, 25e9, 1e-12, "level 1");
        T_NEAR(p->levels[1].lat_s, 15e-6, 1e-12, "level 1 lat");
        /* rank 0 -> rank 2: up two links and down two: 2 x (2 + 15) us */
        T_NEAR(ar_platform_route_lat(p, 0, 2), 34e-6, 1e-12, "route latency");
        T_NEAR(ar_platform_route_bw(p, 0, 2), 5e9, 1e-12, "route bottleneck");
        T_CHECK(p->nccl_eff[1][2] == 0.93 && p->nccl_eff[1][0] == 0 && p->nccl_eff[0][0] == 0.8 &&
                    p->nccl_eff[0][1] == 0.8 && p->nccl_eff[0][2] == 0.8 && p->nccl_eff[4][2] == 0,
                "efficiencies RING/SIMPLE 0.93, TREE/* 0.8, the rest 0 (none)");
        ar_platform_free(p);
    }
    p = accept(CAL_TREE "\"calibration\":{}}");
    if (p) {
        T_NEAR(p->links[p->nodes[p->rank_node[0]].uplink].bw_Bps, 10e9, 1e-12, "an empty block changes nothing");
        ar_platform_free(p);
    }
    reject(CAL_TREE "\"nccl\":{\"efficiency\":{\"RING/SIMPLE\":0}}}",
           "nccl.efficiency.RING/SIMPLE: must be a factor in (0, 100] (got 0)");
    reject(CAL_TREE "\"nccl\":{\"efficiency\":{\"RING\":-0.5}}}", "nccl.efficiency.RING: must be a factor in (0, 100]");
    reject(CAL_TREE "\"nccl\":{\"efficiency\":{\"FOO/SIMPLE\":0.9}}}",
           "nccl.efficiency: unknown algorithm in \"FOO/SIMPLE\"");
    reject(CAL_TREE "\"nccl\":{\"efficiency\":{\"RING/LL64\":0.9}}}",
           "nccl.efficiency: unknown protocol in \"RING/LL64\"");
    reject(CAL_TREE "\"nccl\":{\"efficiency\":{\"RING\":\"0.9\"}}}", "nccl.efficiency.RING: must be a number");
    reject(CAL_TREE "\"nccl\":{\"eff\":{}}}", "nccl: unknown key \"eff\"");
    reject(CAL_TREE "\"nccl\":{\"efficiency\":[]}}", "nccl.efficiency: must be an object");
    reject(CAL_TREE "\"calibration\":{\"intra\":{\"bw\":0}}}", "calibration.intra.bw: must be a factor in (0, 100]");
    reject(CAL_TREE "\"calibration\":{\"inter\":{\"latency\":2}}}", "calibration.inter: unknown key \"latency\"");
    reject(CAL_TREE "\"calibration\":{\"intra\":{\"lat\":1e999}}}", "calibration.intra.lat: must be a factor");
    reject(CAL_TREE "\"calibration\":3}", "calibration: must be an object");
}

int main(void) {
    test_calibration();
    test_presets();
    test_levels();
    test_tree_routes();
    test_torus_routes();
    test_graph_routes();
    test_route_append();
    test_families();
    test_load_paths();
    test_malformed();
    test_fuzz();
    return t_done("test_platform");
}
