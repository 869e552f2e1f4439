/* real/ host logic, part 1: op -> NCCL call mapping, communicator groups and
 * ncclCommSplit colors/keys, per-rank programs, and the host fake of NCCL
 * running every algorithm's programs on many platforms, lowerings and sizes
 * to the exact all-reduce. No GPU needed. */
#include <string.h>

#include "core/algo.h"
#include "core/lower.h"
#include "real/rmeasure.h"
#include "real/rplan.h"
#include "../t.h"

static ar_schedule *one_op(int P, uint64_t count, ar_op_kind k, ar_impl im, int n, int chunks, const uint64_t *counts,
                           ar_op **op) {
    ar_schedule *s = ar_schedule_new("t", P, count, 4);
    int m[64];
    for (int i = 0; i < n; i++) m[i] = i;
    ar_sched_phase(s, "p");
    *op = ar_sched_op(s, k, im, m, n, 0, count);
    (*op)->chunks = chunks;
    if (counts) ar_op_set_counts(*op, counts);
    return s;
}

static void test_mapping(void) {
    struct {
        ar_op_kind k;
        ar_impl im;
        int n, chunks;
        uint64_t count;
        int uneven;
        ar_real_lowering mode;
        ar_real_call want;
    } cases[] = {
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_REDUCE_SCATTER},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 4, 1, 9, 0, AR_REAL_LOWER_AUTO, AR_RC_BLOCK_REDUCE},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 4, 1, 9, 1, AR_REAL_LOWER_AUTO, AR_RC_BLOCK_REDUCE},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_NATIVE, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_REDUCE_SCATTER},
        {AR_OP_ALL_GATHER, AR_IMPL_RING, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_ALL_GATHER},
        {AR_OP_ALL_GATHER, AR_IMPL_RING, 4, 1, 9, 1, AR_REAL_LOWER_AUTO, AR_RC_BLOCK_BCAST},
        {AR_OP_REDUCE, AR_IMPL_RING, 4, 1, 9, 0, AR_REAL_LOWER_AUTO, AR_RC_REDUCE},
        {AR_OP_BROADCAST, AR_IMPL_NATIVE, 3, 1, 9, 0, AR_REAL_LOWER_AUTO, AR_RC_BROADCAST},
        {AR_OP_ALL_REDUCE, AR_IMPL_RING, 5, 1, 9, 0, AR_REAL_LOWER_AUTO, AR_RC_ALL_REDUCE},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 4, 4, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P}, /* pipelined */
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 4, 4, 8, 0, AR_REAL_LOWER_NATIVE, AR_RC_REDUCE_SCATTER},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_HD, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_HD, 4, 1, 8, 0, AR_REAL_LOWER_NATIVE, AR_RC_REDUCE_SCATTER},
        {AR_OP_REDUCE, AR_IMPL_BINOMIAL, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_REDUCE, AR_IMPL_CHAIN, 4, 2, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P}, /* explicit pipelining */
        {AR_OP_REDUCE, AR_IMPL_CHAIN, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_REDUCE},
        {AR_OP_BROADCAST, AR_IMPL_CHAIN, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_BROADCAST},
        {AR_OP_ALL_REDUCE, AR_IMPL_CHAIN, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_BROADCAST, AR_IMPL_TREE, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_BROADCAST, AR_IMPL_TREE, 4, 1, 8, 0, AR_REAL_LOWER_NATIVE, AR_RC_BROADCAST},
        {AR_OP_ALL_REDUCE, AR_IMPL_DIRECT, 4, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_ALL_REDUCE, AR_IMPL_DIRECT, 4, 1, 8, 0, AR_REAL_LOWER_NATIVE, AR_RC_ALL_REDUCE},
        {AR_OP_ALL_REDUCE, AR_IMPL_RING, 4, 1, 8, 0, AR_REAL_LOWER_P2P, AR_RC_P2P},
        {AR_OP_ALL_REDUCE, AR_IMPL_NATIVE, 4, 1, 8, 0, AR_REAL_LOWER_P2P, AR_RC_P2P},
        {AR_OP_SEND, AR_IMPL_DIRECT, 2, 1, 8, 0, AR_REAL_LOWER_NATIVE, AR_RC_P2P},
        {AR_OP_SEND, AR_IMPL_NATIVE, 2, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_P2P},
        {AR_OP_ALL_REDUCE, AR_IMPL_RING, 1, 1, 8, 0, AR_REAL_LOWER_AUTO, AR_RC_NONE},
        {AR_OP_REDUCE_SCATTER, AR_IMPL_RING, 1, 1, 8, 0, AR_REAL_LOWER_P2P, AR_RC_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ar_op *op;
        uint64_t cnt[4] = {1, 2, 3, 3};
        ar_schedule *s = one_op(8, cases[i].count, cases[i].k, cases[i].im, cases[i].n, cases[i].chunks,
                                cases[i].uneven ? cnt : NULL, &op);
        ar_real_call got = ar_real_map_op(op, cases[i].mode);
        T_CHECK(got == cases[i].want, "case %zu: %s/%s n=%d chunks=%d count=%llu %s -> %s, want %s", i,
                ar_op_kind_name(cases[i].k), ar_impl_name(cases[i].im), cases[i].n, cases[i].chunks,
                (unsigned long long)cases[i].count, ar_real_lowering_name(cases[i].mode), ar_real_call_name(got),
                ar_real_call_name(cases[i].want));
        ar_schedule_free(s);
    }
    /* uneven counts that happen to be equal are even */
    ar_op *op;
    uint64_t eq[4] = {3, 3, 3, 3};
    ar_schedule *s = one_op(4, 12, AR_OP_ALL_GATHER, AR_IMPL_RING, 4, 1, eq, &op);
    T_CHECK(ar_real_op_even(op) && ar_real_map_op(op, AR_REAL_LOWER_AUTO) == AR_RC_ALL_GATHER, "equal counts");
    ar_schedule_free(s);
    /* names */
    ar_real_lowering l;
    ar_err e = {{0}};
    T_CHECK(ar_real_lowering_parse("p2p", &l, &e) == AR_OK && l == AR_REAL_LOWER_P2P, "parse p2p");
    T_CHECK(ar_real_lowering_parse("native", &l, &e) == AR_OK && l == AR_REAL_LOWER_NATIVE, "parse native");
    T_CHECK(ar_real_lowering_parse("ring", &l, &e) == AR_EINVAL && strstr(e.msg, "\"ring\""), "bad lowering: %s",
            e.msg);
    T_CHECK(!strcmp(ar_real_call_name(AR_RC_REDUCE_SCATTER), "ncclReduceScatter"), "name");
    T_CHECK(!strcmp(ar_real_call_name(AR_RC_BROADCAST), "ncclBroadcast"), "name");
}

/* ---- groups and split colors ---- */

static void check_layers(ar_real_group *g, int ng, int P, const char *what) {
    int nl = -1;
    ar_err e = {{0}};
    T_CHECK(ar_real_layers(g, ng, NULL, P, &nl, &e) == AR_OK, "%s: layers: %s", what, e.msg);
    for (int a = 0; a < ng; a++) {
        if (g[a].world) {
            T_CHECK(g[a].layer == -1, "%s: world group %d has a layer", what, a);
            continue;
        }
        T_CHECK(g[a].layer >= 0 && g[a].layer < nl, "%s: group %d layer %d of %d", what, a, g[a].layer, nl);
        for (int b = 0; b < a; b++) {
            if (g[b].world || g[b].layer != g[a].layer) continue;
            T_CHECK(g[b].color != g[a].color, "%s: groups %d and %d share color %d in layer %d", what, a, b, g[a].color,
                    g[a].layer);
            for (int i = 0; i < g[a].n; i++)
                T_CHECK(ar_real_group_index(&g[b], g[a].members[i]) < 0, "%s: rank %d in groups %d and %d of layer %d",
                        what, g[a].members[i], a, b, g[a].layer);
        }
    }
    /* split args reproduce membership: every rank, every layer */
    for (int L = 0; L < nl; L++)
        for (int r = 0; r < P; r++) {
            int color, key;
            int gi = ar_real_split_args(g, ng, L, r, &color, &key);
            if (gi < 0) {
                T_CHECK(color == -1, "%s: rank %d layer %d: no group but color %d", what, r, L, color);
                for (int a = 0; a < ng; a++)
                    if (!g[a].world && g[a].layer == L)
                        T_CHECK(ar_real_group_index(&g[a], r) < 0, "%s: rank %d missed group %d", what, r, a);
            } else {
                T_CHECK(color == g[gi].color && g[gi].members[key] == r && g[gi].layer == L,
                        "%s: rank %d layer %d: group %d color %d key %d", what, r, L, gi, color, key);
            }
        }
}

static void test_groups(void) {
    /* two machines of 4, then the 4 "columns" {i, i+4}, then the world */
    int mem[8][8] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
                     {7, 6, 5, 4}};
    int n[8] = {4, 4, 2, 2, 2, 2, 8, 4};
    ar_real_group g[8];
    for (int i = 0; i < 8; i++) {
        g[i].n = n[i];
        g[i].members = mem[i];
        g[i].world = i == 6;
    }
    int nl = 0;
    ar_err e = {{0}};
    T_OK(ar_real_layers(g, 8, NULL, 8, &nl, &e));
    T_CHECK(nl == 3, "3 layers, got %d", nl);
    T_CHECK(g[0].layer == 0 && g[0].color == 0 && g[1].layer == 0 && g[1].color == 1, "machines in layer 0");
    for (int i = 2; i < 6; i++)
        T_CHECK(g[i].layer == 1 && g[i].color == i - 2, "column %d: layer %d color %d", i, g[i].layer, g[i].color);
    T_CHECK(g[6].layer == -1, "world needs no split");
    T_CHECK(g[7].layer == 2 && g[7].color == 0, "reversed machine: layer %d", g[7].layer);
    int color, key;
    T_CHECK(ar_real_split_args(g, 8, 0, 5, &color, &key) == 1 && color == 1 && key == 1, "rank 5 layer 0");
    T_CHECK(ar_real_split_args(g, 8, 1, 5, &color, &key) == 3 && color == 1 && key == 1, "rank 5 layer 1");
    T_CHECK(ar_real_split_args(g, 8, 2, 5, &color, &key) == 7 && color == 0 && key == 2, "rank 5 layer 2: key = index");
    T_CHECK(ar_real_split_args(g, 8, 2, 1, &color, &key) == -1 && color == -1, "rank 1 has no group in layer 2");
    check_layers(g, 8, 8, "hand-made");
    /* need mask: only the columns */
    int need[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    T_OK(ar_real_layers(g, 8, need, 8, &nl, &e));
    T_CHECK(nl == 1 && g[2].layer == 0 && g[5].color == 3 && g[0].layer == -1, "subset: %d layers", nl);

    /* pseudo-random group sets */
    unsigned seed = 12345;
    for (int trial = 0; trial < 200; trial++) {
        int P = 2 + (int)(seed % 17);
        ar_real_group rg[12];
        int storage[12][20];
        int ng = 1 + (int)((seed >> 5) % 12);
        for (int a = 0; a < ng; a++) {
            seed = seed * 1103515245u + 12345u;
            int k = 0;
            for (int r = 0; r < P; r++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % 3 == 0) storage[a][k++] = r;
            }
            if (k < 2) {
                storage[a][0] = 0;
                storage[a][1] = P - 1;
                k = 2;
            }
            rg[a].n = k;
            rg[a].members = storage[a];
            rg[a].world = 0;
        }
        check_layers(rg, ng, P, "random");
    }
}

/* The plan's groups for real algorithms: two-level on 2 machines of 4. */
static void test_plan_groups(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("machines:gpus=4+4", 0, &p, &e));
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("two-level", p, 1000, 4, &s, &e));
    ar_real_plan *pl = NULL;
    T_OK(ar_real_plan_build(s, AR_REAL_LOWER_AUTO, &pl, &e));
    if (pl) {
        /* reduce (ring) per machine -> ncclReduce on 2 comms; masters all-reduce (hd) -> p2p; broadcast -> ncclBroadcast */
        T_CHECK(pl->ngroups == 2 && pl->nlayers == 1, "two-level auto: %d groups, %d layers", pl->ngroups, pl->nlayers);
        T_CHECK(pl->ncoll_ops == 4 && pl->np2p_ops == 1, "two-level auto: %d coll %d p2p", pl->ncoll_ops, pl->np2p_ops);
        T_CHECK(pl->call[0] == AR_RC_REDUCE && pl->call[2] == AR_RC_P2P && pl->call[3] == AR_RC_BROADCAST,
                "two-level calls %s %s %s", ar_real_call_name(pl->call[0]), ar_real_call_name(pl->call[2]),
                ar_real_call_name(pl->call[3]));
        T_CHECK(pl->group[0] == pl->group[3] && pl->group[1] == pl->group[4] && pl->group[0] != pl->group[1],
                "machine comms reused across phases");
        T_CHECK(pl->nsteps == 1 + ar_lower_nrounds(&s->phases[1].ops[0]) + 1, "steps %d", pl->nsteps);
        ar_real_plan_free(pl);
    }
    T_OK(ar_real_plan_build(s, AR_REAL_LOWER_NATIVE, &pl, &e));
    if (pl) {
        T_CHECK(pl->ngroups == 3 && pl->nlayers == 2, "two-level native: %d groups %d layers", pl->ngroups,
                pl->nlayers);
        T_CHECK(pl->call[2] == AR_RC_ALL_REDUCE && pl->nsteps == 3, "masters -> ncclAllReduce, 3 steps");
        ar_real_plan_free(pl);
    }
    ar_schedule_free(s);
    /* ring on all ranks in rank order uses the world communicator */
    T_OK(ar_algo_plan("ring", p, 1000, 4, &s, &e));
    T_OK(ar_real_plan_build(s, AR_REAL_LOWER_AUTO, &pl, &e));
    if (pl) {
        T_CHECK(pl->ngroups == 1 && pl->groups[0].world && pl->nlayers == 0, "ring: world comm, no split");
        T_CHECK(pl->call[0] == AR_RC_REDUCE_SCATTER && pl->call[1] == AR_RC_ALL_GATHER, "ring: RS + AG");
        ar_real_prog *g = NULL;
        T_OK(ar_real_compile(pl, 3, &g, &e));
        if (g) {
            T_CHECK(g->ninstr == 2 && g->instr[0].kind == AR_RI_COLL && g->instr[0].recv_off == 3 * 125 &&
                        g->instr[0].count == 125 && g->instr[1].send_off == 3 * 125 && g->instr[1].recv_off == 0,
                    "rank 3: in-place RS recv at block 3, AG send from block 3");
            ar_real_prog_free(g);
        }
        ar_real_plan_free(pl);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

/* ---- programs through the fake NCCL ---- */

static ar_status run_all(const ar_schedule *s, ar_real_lowering mode, int fuse, uint64_t *wrong, ar_err *e,
                         ar_real_plan **plan_out, ar_real_prog ***progs_out) {
    ar_real_plan *pl = NULL;
    ar_status st = ar_real_plan_build(s, mode, &pl, e);
    if (!st && fuse) st = ar_real_plan_fuse(pl, e);
    if (st) {
        ar_real_plan_free(pl);
        return st;
    }
    ar_real_prog **pr = ar_calloc((size_t)s->nranks, sizeof *pr);
    for (int r = 0; r < s->nranks && !st; r++) st = ar_real_compile(pl, r, &pr[r], e);
    if (!st) st = ar_real_simulate(pl, pr, 0, wrong, e);
    if (plan_out && progs_out && !st) {
        *plan_out = pl;
        *progs_out = pr;
        return st;
    }
    for (int r = 0; r < s->nranks; r++) ar_real_prog_free(pr[r]);
    free(pr);
    ar_real_plan_free(pl);
    return st;
}

static void free_all(ar_real_plan *pl, ar_real_prog **pr) {
    for (int r = 0; r < pl->s->nranks; r++) ar_real_prog_free(pr[r]);
    free(pr);
    ar_real_plan_free(pl);
}

/* Elements the lowering moves (all p2p ops), and what the programs send. */
static void check_bytes(const ar_real_plan *pl, ar_real_prog **pr, const char *what) {
    const ar_schedule *s = pl->s;
    uint64_t want = 0, sent = 0, recvd = 0;
    ar_xfer xf[4096];
    for (int f = 0; f < pl->nops; f++) {
        if (pl->call[f] != AR_RC_P2P) continue;
        const ar_op *op = ar_real_plan_op(pl, f, NULL);
        if (ar_lower_max_xfers(op) > 4096) return;
        for (int r = 0; r < ar_lower_nrounds(op); r++) {
            size_t n = ar_lower_round(op, r, xf);
            for (size_t i = 0; i < n; i++) want += ar_xfer_elems(&xf[i]);
        }
    }
    for (int r = 0; r < s->nranks; r++)
        for (size_t i = 0; i < pr[r]->ninstr; i++) {
            if (pr[r]->instr[i].kind == AR_RI_SEND) sent += pr[r]->instr[i].count;
            if (pr[r]->instr[i].kind == AR_RI_RECV) recvd += pr[r]->instr[i].count;
        }
    T_CHECK(sent == want && recvd == want, "%s: programs send %llu / receive %llu elements, the lowering moves %llu",
            what, (unsigned long long)sent, (unsigned long long)recvd, (unsigned long long)want);
}

static void test_all_algorithms(void) {
    const char *plats[] = {
        "flat:ranks=2",          "flat:ranks=4",          "flat:ranks=5",
        "machines:gpus=2+2",     "machines:gpus=3+2+3",   "tree:fanouts=2x2x2",
        "machines:gpus=4+4+4+4", "torus:dims=2x2,gpus=2", "rail:nodes=2,gpus=2,nvls=100GBps,sharp=10GBps"};
    const uint64_t counts[] = {1, 7, 64, 1001};
    const ar_real_lowering modes[] = {AR_REAL_LOWER_AUTO, AR_REAL_LOWER_P2P, AR_REAL_LOWER_NATIVE};
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    int ran = 0, skipped = 0, failed = 0;
    long fused_rounds = 0, pipe_fused = 0;
    int seen_algo[64] = {0};
    for (size_t pi = 0; pi < sizeof plats / sizeof plats[0]; pi++) {
        ar_err e = {{0}};
        ar_platform *p = NULL;
        if (ar_platform_load(plats[pi], 0, &p, &e) != AR_OK) {
            T_CHECK(0, "platform %s: %s", plats[pi], e.msg);
            continue;
        }
        for (int a = 0; a < na && a < 64; a++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                ar_schedule *s = NULL;
                ar_status st = ar_algo_plan(algos[a]->name, p, counts[ci], 4, &s, &e);
                if (st == AR_EUNSUPPORTED) {
                    skipped++;
                    continue;
                }
                T_CHECK(st == AR_OK, "%s on %s count %llu: plan: %s", algos[a]->name, plats[pi],
                        (unsigned long long)counts[ci], e.msg);
                if (st) continue;
                /* mi 3: point-to-point with round fusion (ar_real_plan_fuse): exact, race-free, same bytes */
                for (size_t mi = 0; mi < 4; mi++) {
                    uint64_t wrong = 99;
                    ar_real_plan *pl = NULL;
                    ar_real_prog **pr = NULL;
                    e.msg[0] = 0;
                    st = run_all(s, modes[mi < 3 ? mi : 1], mi == 3, &wrong, &e, &pl, &pr);
                    if (st == AR_EUNSUPPORTED && modes[mi < 3 ? mi : 1] == AR_REAL_LOWER_P2P &&
                        ar_schedule_uses_switch(s)) { /* point-to-point cannot reach a switch: refused */
                        T_CHECK(strstr(e.msg, "impl switch") != NULL, "switch op refusal: %s", e.msg);
                        skipped++;
                        continue;
                    }
                    T_CHECK(st == AR_OK && wrong == 0, "%s on %s count %llu lowering %s: %s (wrong %llu)",
                            algos[a]->name, plats[pi], (unsigned long long)counts[ci],
                            ar_real_lowering_name(modes[mi < 3 ? mi : 1]), e.msg, (unsigned long long)wrong);
                    if (st == AR_OK) {
                        ran++;
                        seen_algo[a] = 1;
                        char what[160];
                        snprintf(what, sizeof what, "%s on %s count %llu %s%s", algos[a]->name, plats[pi],
                                 (unsigned long long)counts[ci], ar_real_lowering_name(modes[mi < 3 ? mi : 1]),
                                 mi == 3 ? " fused" : "");
                        if (mi == 3) {
                            fused_rounds += pl->fused_rounds;
                            if (!strcmp(algos[a]->name, "pipelined-ring")) pipe_fused += pl->fused_rounds;
                        }
                        check_bytes(pl, pr, what);
                        for (int r = 0; r < s->nranks; r++)
                            T_CHECK(pr[r]->nsteps == pl->nsteps, "%s: rank %d has %d steps, plan %d", what, r,
                                    pr[r]->nsteps, pl->nsteps);
                        free_all(pl, pr);
                    } else {
                        failed++;
                    }
                }
                ar_schedule_free(s);
            }
        ar_platform_free(p);
    }
    int nseen = 0;
    for (int a = 0; a < na && a < 64; a++) {
        nseen += seen_algo[a];
        if (!(ar_algo_colls(algos[a]) & AR_COLL_BIT(AR_COLL_ALLREDUCE))) continue; /* RS/AG only (pat) */
        T_CHECK(seen_algo[a], "algorithm %s never ran through the fake NCCL", algos[a]->name);
    }
    printf("fake-NCCL runs: %d exact, %d failed, %d (platform, algo, size) not applicable; %d/%d algorithms; "
           "round fusion merged %ld rounds (pipelined-ring %ld)\n",
           ran, failed, skipped, nseen, na, fused_rounds, pipe_fused);
    T_CHECK(pipe_fused > 0, "round fusion merged no round of pipelined-ring");
    T_CHECK(ran >= 200, "only %d runs", ran);
}

/* Two concurrent ops on disjoint halves of the same ranks, one native and
 * one point-to-point; uneven FlexReduce-style blocks; SEND with and without
 * reduce. */
static void test_handmade(void) {
    ar_err e = {{0}};
    int m4[4] = {0, 1, 2, 3};
    ar_schedule *s = ar_schedule_new("mixed", 4, 100, 4);
    ar_sched_phase(s, "rs");
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, m4, 4, 0, 50);
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_HD, m4, 4, 50, 50);
    ar_sched_phase(s, "ag");
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_NATIVE, m4, 4, 0, 50);
    ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_HD, m4, 4, 50, 50);
    T_OK(ar_schedule_validate(s, &e));
    uint64_t wrong = 9;
    for (int mode = 0; mode < 3; mode++) {
        e.msg[0] = 0;
        T_CHECK(run_all(s, (ar_real_lowering)mode, 0, &wrong, &e, NULL, NULL) == AR_OK && wrong == 0,
                "mixed phases, mode %d: %s", mode, e.msg);
    }
    ar_schedule_free(s);

    /* FlexReduce-like uneven blocks, members out of rank order */
    int mr[4] = {2, 0, 3, 1};
    uint64_t cnt[4] = {5, 0, 30, 7};
    s = ar_schedule_new("uneven", 4, 42, 4);
    ar_sched_phase(s, "rs");
    ar_op *op = ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, mr, 4, 0, 42);
    ar_op_set_counts(op, cnt);
    ar_sched_phase(s, "ag");
    op = ar_sched_op(s, AR_OP_ALL_GATHER, AR_IMPL_RING, mr, 4, 0, 42);
    ar_op_set_counts(op, cnt);
    T_OK(ar_schedule_validate(s, &e));
    ar_real_plan *pl = NULL;
    ar_real_prog **pr = NULL;
    T_CHECK(run_all(s, AR_REAL_LOWER_AUTO, 0, &wrong, &e, &pl, &pr) == AR_OK && wrong == 0, "uneven: %s", e.msg);
    if (pl) {
        T_CHECK(pl->call[0] == AR_RC_BLOCK_REDUCE && pl->call[1] == AR_RC_BLOCK_BCAST, "uneven -> per-block calls");
        T_CHECK(pl->ngroups == 1 && !pl->groups[0].world && pl->nlayers == 1, "permuted group is split");
        /* 3 non-empty blocks: 3 ncclReduce + 3 ncclBroadcast on every member */
        for (int r = 0; r < 4; r++) T_CHECK(pr[r]->ncoll == 6, "rank %d: %zu collectives, want 6", r, pr[r]->ncoll);
        free_all(pl, pr);
    }
    T_CHECK(run_all(s, AR_REAL_LOWER_P2P, 0, &wrong, &e, NULL, NULL) == AR_OK && wrong == 0, "uneven p2p: %s", e.msg);
    ar_schedule_free(s);

    /* a per-member block layout (nccl-ring's channels): two rings in their own orders, each owning half
     * of every rank's quarter; no NCCL collective takes it, so every mode runs it point-to-point */
    {
        static const int ra[4] = {0, 1, 2, 3}, rb[4] = {2, 3, 0, 1};
        static const uint64_t oa[4] = {0, 10, 20, 30}, ob[4] = {25, 35, 5, 15};
        s = ar_schedule_new("layout", 4, 40, 4);
        for (int k = 0; k < 2; k++) {
            ar_op_kind kind = k ? AR_OP_ALL_GATHER : AR_OP_REDUCE_SCATTER;
            ar_sched_phase(s, "%s", k ? "ag" : "rs");
            ar_op_set_offs(ar_sched_op(s, kind, AR_IMPL_NATIVE, ra, 4, 0, 20), oa);
            ar_op_set_offs(ar_sched_op(s, kind, AR_IMPL_RING, rb, 4, 0, 20), ob);
        }
        T_OK(ar_schedule_validate(s, &e));
        for (int mode = 0; mode < 3; mode++) {
            T_CHECK(ar_real_map_op(&s->phases[0].ops[0], (ar_real_lowering)mode) == AR_RC_P2P, "layout mode %d", mode);
            for (int fuse = 0; fuse < 2; fuse++) {
                e.msg[0] = 0;
                wrong = 9;
                T_CHECK(run_all(s, (ar_real_lowering)mode, fuse, &wrong, &e, NULL, NULL) == AR_OK && wrong == 0,
                        "layout, mode %d fuse %d: %s (wrong %llu)", mode, fuse, e.msg, (unsigned long long)wrong);
            }
        }
        ar_schedule_free(s);
    }

    /* SEND: copy then reduce, as a two-rank all-reduce */
    int ab[2] = {0, 1}, ba[2] = {1, 0};
    s = ar_schedule_new("send", 2, 10, 4);
    ar_sched_phase(s, "to 1");
    op = ar_sched_op(s, AR_OP_SEND, AR_IMPL_DIRECT, ab, 2, 0, 10);
    op->reduce = 1;
    ar_sched_phase(s, "back");
    op = ar_sched_op(s, AR_OP_SEND, AR_IMPL_DIRECT, ba, 2, 0, 10);
    op->reduce = 0;
    T_CHECK(run_all(s, AR_REAL_LOWER_NATIVE, 0, &wrong, &e, &pl, &pr) == AR_OK && wrong == 0, "send: %s", e.msg);
    if (pl) {
        /* rank 1 adds from scratch (a post); rank 0 receives the copy straight into its buffer */
        T_CHECK(pr[1]->npost == 1 && pr[1]->post[0].add == 1 && pr[1]->scratch_elems == 10, "rank 1 posts");
        T_CHECK(pr[0]->npost == 0 && pr[0]->scratch_elems == 0 && pr[0]->instr[1].kind == AR_RI_RECV &&
                    !pr[0]->instr[1].scratch,
                "rank 0 receives in place");
        free_all(pl, pr);
    }
    ar_schedule_free(s);
}

/* Posts: the parameter server's direct reduce-scatter merges n-1 sources. */
static void test_posts(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("flat:ranks=5", 0, &p, &e));
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("ps", p, 100, 4, &s, &e));
    ar_real_plan *pl = NULL;
    ar_real_prog **pr = NULL;
    uint64_t wrong = 1;
    if (s) {
        T_CHECK(run_all(s, AR_REAL_LOWER_AUTO, 0, &wrong, &e, &pl, &pr) == AR_OK && wrong == 0, "ps: %s", e.msg);
        if (pl) {
            const ar_real_prog *g = pr[2];
            int merged = 0;
            for (size_t i = 0; i < g->npost; i++)
                if (g->post[i].add && g->post[i].nsrc == 4) merged++;
            T_CHECK(merged == 1, "rank 2: one post with 4 sources (got %d)", merged);
            for (int st = 0; st < g->nsteps; st++) T_CHECK(g->steps[st].nwaves <= 1, "one wave per step");
            free_all(pl, pr);
        }
        ar_schedule_free(s);
    }
    /* ring all-gather lowered: copies go straight to the buffer, no posts */
    T_OK(ar_algo_plan("pipelined-ring:chunks=3", p, 1000, 4, &s, &e));
    if (s) {
        T_CHECK(run_all(s, AR_REAL_LOWER_AUTO, 0, &wrong, &e, &pl, &pr) == AR_OK && wrong == 0, "pring: %s", e.msg);
        if (pl) {
            for (int k = 0; k < pl->nsteps; k++) {
                const ar_real_step *sp = &pr[0]->steps[k];
                if (sp->phase == 1) T_CHECK(sp->npost == 0, "all-gather step %d has %zu posts", k, sp->npost);
                else T_CHECK(sp->npost == 1 && pr[0]->post[sp->first_post].add, "reduce-scatter step %d posts", k);
            }
            T_CHECK(pr[0]->scratch_elems == 67, "scratch = one sub-chunk of one block (ceil(200/3)): %llu",
                    (unsigned long long)pr[0]->scratch_elems);
            free_all(pl, pr);
        }
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

/* The fake NCCL catches what would hang or race on a GPU. */
static void test_fake_nccl_errors(void) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("flat:ranks=4", 0, &p, &e));
    ar_schedule *s = NULL;
    T_OK(ar_algo_plan("halving-doubling", p, 64, 4, &s, &e));
    if (!s) {
        ar_platform_free(p);
        return;
    }
    ar_real_plan *pl = NULL;
    T_OK(ar_real_plan_build(s, AR_REAL_LOWER_AUTO, &pl, &e));
    ar_real_prog *pr[4] = {0};
    for (int r = 0; r < 4; r++) T_OK(ar_real_compile(pl, r, &pr[r], &e));
    uint64_t wrong;
    T_OK(ar_real_simulate(pl, pr, 0, &wrong, &e));
    /* find rank 0's first send and first receive */
    ar_real_instr *snd = NULL, *rcv = NULL;
    for (size_t i = 0; i < pr[0]->ninstr; i++) {
        if (!snd && pr[0]->instr[i].kind == AR_RI_SEND) snd = &pr[0]->instr[i];
        if (!rcv && pr[0]->instr[i].kind == AR_RI_RECV) rcv = &pr[0]->instr[i];
    }
    T_CHECK(snd && rcv, "hd has sends and receives");
    if (snd && rcv) {
        ar_real_instr keep = *rcv;
        /* receive straight into the range being sent: a race */
        rcv->scratch = 0;
        rcv->recv_off = snd->send_off;
        e.msg[0] = 0;
        T_CHECK(ar_real_simulate(pl, pr, 0, &wrong, &e) == AR_EINTERNAL && strstr(e.msg, "race"), "race: %s", e.msg);
        *rcv = keep;
        /* a receive that expects fewer elements */
        rcv->count--;
        e.msg[0] = 0;
        T_CHECK(ar_real_simulate(pl, pr, 0, &wrong, &e) == AR_EINTERNAL && strstr(e.msg, "expects"), "count: %s",
                e.msg);
        *rcv = keep;
        /* a send nobody receives */
        ar_real_instr ks = *snd;
        snd->peer = (snd->peer + 1) % 4 == 0 ? 1 : (snd->peer + 1) % 4;
        e.msg[0] = 0;
        T_CHECK(ar_real_simulate(pl, pr, 0, &wrong, &e) == AR_EINTERNAL && strstr(e.msg, "hang"), "hang: %s", e.msg);
        *snd = ks;
        T_OK(ar_real_simulate(pl, pr, 0, &wrong, &e));
    }
    for (int r = 0; r < 4; r++) ar_real_prog_free(pr[r]);
    ar_real_plan_free(pl);
    ar_schedule_free(s);
    /* an incomplete schedule (reduce-scatter only) is wrong, and says where */
    int m4[4] = {0, 1, 2, 3};
    s = ar_schedule_new("rs-only", 4, 8, 4);
    ar_sched_phase(s, "rs");
    ar_sched_op(s, AR_OP_REDUCE_SCATTER, AR_IMPL_RING, m4, 4, 0, 8);
    e.msg[0] = 0;
    T_CHECK(run_all(s, AR_REAL_LOWER_AUTO, 0, &wrong, &e, NULL, NULL) == AR_EFAIL && wrong == 24 &&
                strstr(e.msg, "wrong elements"),
            "rs only: wrong %llu: %s", (unsigned long long)wrong, e.msg);
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    test_mapping();
    test_groups();
    test_plan_groups();
    test_all_algorithms();
    test_handmade();
    test_posts();
    test_fake_nccl_errors();
    return t_done("real_plan");
}
