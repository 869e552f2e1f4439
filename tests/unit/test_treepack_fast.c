/* Spanning-tree packing: the fast pricing (route trie for the pair weights,
 * Prim on the pairs in place over a sorted list of outside vertices) gives the
 * same answer, bit for bit, as the reference path (opts.reference = 1: route by
 * route sums and the plain O(n^2)-per-step Prim scan).
 *
 * Corpus: 24 random switch trees (4..40 GPUs on 1..9 switches, a random tree
 * of switches, GPUs on random switches, 12.5/25/50 GB/s links with 1..2
 * lanes), 6 random switch graphs with cycles (5..8 switches, a tree plus 1..3
 * extra switch links: routes then do not nest, the trie must still sum them in order), the
 * presets fat-tree-64, torus-4x4, p3.16xlarge (C(G) = 7/24), p2.16xlarge
 * (15/8) and the generated tree:ranks=128. For each, both paths must agree on:
 * C(G) (== as doubles, and as the same fraction when certified), the dual
 * bound, the number of columns and LP solves, every tree's pairs and weight,
 * every stream's tree, root and weight, and C_dir. A pricing that picked a
 * different tree on a tie would change the columns and fail here.
 * Besides: on the switched platforms, the route trie's sums equal the
 * route-by-route sums (checked through ar_tp_pair_weights on random link
 * weights, with and without the trie). */
#include <string.h>

#include "algos/treepack.h"
#include "algos/treepack_lp.h"
#include "core/util.h"
#include "../t_plan.h"

static unsigned rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffffu;
}

/* A random switched platform: ns switches joined as a random tree (plus
 * `extra` more switch links), n GPUs each on a random switch. */
static ar_platform *random_switched(int id, int n, int ns, int extra, unsigned *seed) {
    static const char *const bws[] = {"12.5GBps", "25GBps", "50GBps"};
    size_t cap = 4096 + (size_t)(n + 2 * ns + extra) * 128, len = 0;
    char *js = malloc(cap);
    if (!js) return NULL;
    len += (size_t)snprintf(js + len, cap - len, "{\"name\":\"rsw%d\",\"kind\":\"graph\",\"gpus\":%d,\"nodes\":[", id,
                            n);
    for (int s = 0; s < ns; s++)
        len += (size_t)snprintf(js + len, cap - len, "%s{\"name\":\"sw%d\",\"type\":\"switch\",\"machine\":0}",
                                s ? "," : "", s);
    len += (size_t)snprintf(js + len, cap - len, "],\"links\":[");
    int first = 1;
#define LINK(A, B)                                                                              \
    do {                                                                                        \
        len += (size_t)snprintf(js + len, cap - len,                                            \
                                "%s{\"a\":\"%s\",\"b\":\"%s\",\"bw\":\"%s\",\"lat\":\"1us\","   \
                                "\"lanes\":%u}",                                                \
                                first ? "" : ",", A, B, bws[rnd(seed) % 3], 1 + rnd(seed) % 2); \
        first = 0;                                                                              \
    } while (0)
    char a[32], b[32];
    unsigned char adj[16][16] = {{0}}; /* ns <= 16: one link per switch pair */
    for (int s = 1; s < ns; s++) {
        unsigned t = rnd(seed) % (unsigned)s;
        adj[s][t] = adj[t][s] = 1;
        snprintf(a, sizeof a, "sw%d", s);
        snprintf(b, sizeof b, "sw%u", t);
        LINK(a, b);
    }
    for (int k = 0, tries = 0; k < extra && tries < 100; tries++) {
        unsigned x = rnd(seed) % (unsigned)ns, y = rnd(seed) % (unsigned)ns;
        if (x == y || adj[x][y]) continue;
        adj[x][y] = adj[y][x] = 1;
        k++;
        snprintf(a, sizeof a, "sw%u", x);
        snprintf(b, sizeof b, "sw%u", y);
        LINK(a, b);
    }
    for (int g = 0; g < n; g++) {
        snprintf(a, sizeof a, "gpu%d", g);
        snprintf(b, sizeof b, "sw%u", rnd(seed) % (unsigned)ns);
        LINK(a, b);
    }
#undef LINK
    snprintf(js + len, cap - len, "]}");
    char what[32];
    snprintf(what, sizeof what, "rsw%d", id);
    return load_json_text(js, what);
}

static int same_result(const char *what, const ar_treepack_result *f, const ar_treepack_result *r) {
    int n = r->nranks, ok = 1;
#define SAME(cond, ...)              \
    do {                             \
        if (!(cond)) {               \
            T_CHECK(0, __VA_ARGS__); \
            ok = 0;                  \
        }                            \
    } while (0)
    SAME(f->C == r->C, "%s: C(G) %.17g fast vs %.17g reference", what, f->C, r->C);
    SAME(f->exact == r->exact && f->C_num == r->C_num && f->C_den == r->C_den, "%s: exact %d %lld/%lld vs %d %lld/%lld",
         what, f->exact, (long long)f->C_num, (long long)f->C_den, r->exact, (long long)r->C_num, (long long)r->C_den);
    SAME(f->dual_bound == r->dual_bound, "%s: dual bound %.17g vs %.17g", what, f->dual_bound, r->dual_bound);
    SAME(f->columns == r->columns && f->iterations == r->iterations, "%s: %d columns %d solves vs %d %d", what,
         f->columns, f->iterations, r->columns, r->iterations);
    SAME(f->ntrees == r->ntrees, "%s: %d trees vs %d", what, f->ntrees, r->ntrees);
    for (int i = 0; ok && i < r->ntrees; i++) {
        SAME(f->trees[i].weight == r->trees[i].weight, "%s: tree %d weight %.17g vs %.17g", what, i, f->trees[i].weight,
             r->trees[i].weight);
        SAME(n < 2 || !memcmp(f->trees[i].pairs, r->trees[i].pairs, (size_t)(n - 1) * sizeof(int)),
             "%s: tree %d has other pairs", what, i);
    }
    SAME(f->nstreams == r->nstreams && f->C_dir == r->C_dir, "%s: %d streams C_dir %.17g vs %d %.17g", what,
         f->nstreams, f->C_dir, r->nstreams, r->C_dir);
    for (int i = 0; ok && i < r->nstreams; i++)
        SAME(f->streams[i].tree == r->streams[i].tree && f->streams[i].root == r->streams[i].root &&
                 f->streams[i].weight == r->streams[i].weight,
             "%s: stream %d differs", what, i);
#undef SAME
    return ok;
}

/* The trie's pair weights equal the route-by-route ones on random link weights. */
static int check_trie(const char *what, const ar_treepack_result *r, unsigned *seed) {
    if (r->direct || r->npairs < 1) return 0;
    ar_tp_cg fast = {0}, ref = {0};
    fast.r = ref.r = r;
    fast.n = ref.n = r->nranks;
    fast.np = ref.np = r->npairs;
    fast.L = ref.L = r->nlinks;
    ref.reference = 1;
    double *y = ar_calloc((size_t)r->nlinks + 1, sizeof *y), *w1 = ar_calloc((size_t)r->npairs, sizeof *w1),
           *w2 = ar_calloc((size_t)r->npairs, sizeof *w2);
    T_CHECK(y && w1 && w2, "alloc");
    int bad = 0;
    for (int round = 0; y && w1 && w2 && round < 3; round++) {
        for (int l = 0; l < r->nlinks; l++) y[l] = (double)rnd(seed) / 7919.0 + 1e-3 * round;
        ar_tp_pair_weights(&fast, y, w1);
        ar_tp_pair_weights(&ref, y, w2);
        for (int p = 0; p < r->npairs; p++) bad += w1[p] != w2[p];
    }
    T_CHECK(fast.ntn > 0, "%s: the route trie was not built", what);
    T_CHECK(bad == 0, "%s: %d trie sums differ from the route sums", what, bad);
    free(y);
    free(w1);
    free(w2);
    ar_tp_cg_free(&fast);
    ar_tp_cg_free(&ref);
    return 1;
}

static int compare(const char *what, const ar_platform *p, unsigned *seed, int *ntrie) {
    ar_treepack_opts o = ar_treepack_defaults();
    ar_treepack_result f, r;
    ar_err e = {{0}};
    o.reference = 1;
    ar_status st = ar_treepack_solve(p, &o, &r, &e);
    T_CHECK(st == AR_OK, "%s: reference solve: %s", what, e.msg);
    if (st != AR_OK) return 0;
    o.reference = 0;
    st = ar_treepack_solve(p, &o, &f, &e);
    T_CHECK(st == AR_OK, "%s: fast solve: %s", what, e.msg);
    int ok = st == AR_OK && same_result(what, &f, &r);
    *ntrie += check_trie(what, &r, seed);
    if (st == AR_OK) ar_treepack_result_free(&f);
    ar_treepack_result_free(&r);
    return ok;
}

int main(void) {
    unsigned seed = 18;
    int same = 0, total = 0, ntrie = 0;
    char what[64];
    for (int i = 0; i < 30; i++) {
        int n = 4 + (int)(rnd(&seed) % 37), ns = 1 + (int)(rnd(&seed) % 9), extra = i >= 24 ? 1 + i % 3 : 0;
        if (extra && ns < 5) ns = 5 + i % 4; /* room for extra switch links */
        ar_platform *p = random_switched(i, n, ns, extra, &seed);
        if (!p) continue;
        snprintf(what, sizeof what, "rsw%d (%d GPUs, %d switches, %d extra)", i, n, ns, extra);
        same += compare(what, p, &seed, &ntrie);
        total++;
        ar_platform_free(p);
    }
    static const char *const presets[] = {"fat-tree-64", "torus-4x4", "p3.16xlarge", "p2.16xlarge", "tree:ranks=128"};
    for (size_t k = 0; k < sizeof presets / sizeof *presets; k++) {
        ar_platform *p = NULL;
        ar_err e = {{0}};
        T_CHECK(ar_platform_load(presets[k], 0, &p, &e) == AR_OK, "load %s: %s", presets[k], e.msg);
        if (!p) continue;
        same += compare(presets[k], p, &seed, &ntrie);
        total++;
        /* the pinned values still come out of the fast path */
        if (!strcmp(presets[k], "p3.16xlarge") || !strcmp(presets[k], "p2.16xlarge")) {
            ar_treepack_result r;
            T_OK(ar_treepack_solve(p, NULL, &r, &e));
            if (!strcmp(presets[k], "p3.16xlarge"))
                T_CHECK(r.exact && r.C_num == 7 && r.C_den == 24, "p3.16xlarge: C(G) %lld/%lld, want 7/24",
                        (long long)r.C_num, (long long)r.C_den);
            else
                T_CHECK(r.exact && r.C_num == 15 && r.C_den == 8, "p2.16xlarge: C(G) %lld/%lld, want 15/8",
                        (long long)r.C_num, (long long)r.C_den);
            ar_treepack_result_free(&r);
        }
        ar_platform_free(p);
    }
    printf("fast vs reference pricing: %d of %d platforms identical; trie sums checked on %d\n", same, total, ntrie);
    T_CHECK(total == 35 && same == total, "%d of %d identical", same, total);
    T_CHECK(ntrie >= 30, "trie checked on only %d platforms", ntrie);
    return t_done("test_treepack_fast");
}
