/* The GPU executor's own code (real/exec_*.c) against host fakes of CUDA and
 * NCCL (tests/fake/): the executor's (real/exec_*.c) actual call sequence, without a GPU.
 *
 * The executor files are compiled a second time for this test with
 * tests/fake/ first on the include path (tests/CMakeLists.txt), so every
 * cudaXxx/ncclXxx call they make goes to the fakes: NCCL matching rules,
 * ncclCommSplit as a collective over the parent, reductions in the real type,
 * streams ordered by events (a race between two streams is an error), device
 * pointers checked against cudaMalloc blocks, bounded waits instead of hangs.
 *
 *  1. Device policy: no driver / no device -> AR_EUNSUPPORTED (skip);
 *     a driver too old, or any other CUDA error -> AR_EBACKEND (fail).
 *  2. Every registered algorithm on several platforms (4 and 5 ranks, flat
 *     and two-level), lowerings auto/p2p/native, f32/f16/bf16, in and out of
 *     place, through ar_real_bench with one thread per rank (file launch)
 *     and with one thread driving all ranks (single launch): every rank's
 *     buffer must equal the exact sum (#wrong == 0, checked by the executor on
 *     the buffers it read back), with no race, no fake error, no leak.
 *  3. Side streams: a phase in which a rank runs two collectives forks and
 *     joins streams (the fake counts the waits) and stays race-free.
 *  4. Empty schedule, nccl-tests timing, --graph (refused cleanly), placement,
 *     machines and ping-pong.
 *  5. Injected faults are detected within a bounded wait: a dropped receive,
 *     groups that are not groups, a mismatched collective, a rank that skips
 *     ncclCommSplit.
 */
#include <glpk.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/algo.h"
#include "core/util.h"
#include "../fake/fake.h"
#include "real/real.h"
#include "../t.h"

#define MAXP 8

typedef struct job {
    const char *platform; /* loaded by every rank */
    int P;
    ar_real_lowering low;
    ar_dtype dt;
    int inplace;
    uint64_t count;
    int opts_empty, opts_graph;
    ar_real_timing timing;
    const char *only; /* one algorithm, or NULL: every registered one */
    int fuse;         /* round fusion (ar_real_plan_fuse) */
} job;

typedef struct rankres {
    ar_status open_st, st;
    char msg[AR_ERR_LEN + 200];
    int cases, skipped; /* benches run / algorithms not applicable */
    long long wrong;    /* sum of #wrong; -1 when a bench did not check */
    double empty_s, med_s, min_s, max_s;
    char placement[160];
    int nmachines;
    double pp_s;
} rankres;

typedef struct targ {
    const job *j;
    int rank;
    ar_real_launch L;
    rankres *r;
} targ;

/* Runs job j on an open context; results into r (the leader's are checked). */
static void run_job(ar_real_ctx *c, const job *j, rankres *r) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    r->wrong = 0;
    r->st = ar_platform_load(j->platform, strcmp(j->platform, "flat") ? 0 : j->P, &p, &e);
    if (r->st != AR_OK) {
        snprintf(r->msg, sizeof r->msg, "%s", e.msg);
        return;
    }
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    for (int a = -1; a < na && r->st == AR_OK; a++) {
        const char *name = a < 0 ? NULL : algos[a]->name;
        if (a >= 0 && !(ar_algo_colls(algos[a]) & AR_COLL_BIT(AR_COLL_ALLREDUCE))) continue; /* RS/AG only */
        if (j->only && (!name || strcmp(name, j->only))) continue;
        ar_schedule *s = NULL;
        if (name) {
            ar_status ps = ar_algo_plan(name, p, j->count, ar_dtype_size(j->dt), &s, &e);
            if (ps == AR_EUNSUPPORTED) {
                r->skipped++;
                continue;
            }
            if (ps != AR_OK) {
                r->st = ps;
                snprintf(r->msg, sizeof r->msg, "%s: plan: %s", name, e.msg);
                break;
            }
        }
        ar_real_bench_opts o = {j->dt, 1, 2, j->inplace, j->low, j->timing, j->opts_graph, j->opts_empty, j->fuse};
        ar_real_measure m;
        r->st = ar_real_bench(c, s, j->count, &o, &m, &e);
        if (r->st != AR_OK) snprintf(r->msg, sizeof r->msg, "%s: %s", name ? name : "nccl-allreduce", e.msg);
        else {
            r->cases++;
            if (m.wrong < 0 || r->wrong < 0) r->wrong = -1;
            else r->wrong += m.wrong;
            if (m.wrong != 0 && !r->msg[0])
                snprintf(r->msg, sizeof r->msg, "%s %s %s %s: #wrong %lld", name ? name : "nccl-allreduce", j->platform,
                         ar_real_lowering_name(j->low), ar_dtype_name(j->dt), m.wrong);
            r->empty_s = m.empty_s;
            r->med_s = m.med_s;
            r->min_s = m.min_s;
            r->max_s = m.max_s;
        }
        ar_schedule_free(s);
    }
    ar_platform_free(p);
}

static void *rank_main(void *arg) {
    targ *t = arg;
    ar_err e = {{0}};
    ar_real_ctx *c = NULL;
    t->r->open_st = ar_real_open(&t->L, &c, &e);
    if (t->r->open_st != AR_OK) {
        snprintf(t->r->msg, sizeof t->r->msg, "open: %s", e.msg);
        glp_free_env();
        return NULL;
    }
    run_job(c, t->j, t->r);
    ar_real_close(c);
    glp_free_env(); /* the tree-packing planner's GLPK keeps one environment per thread */
    return NULL;
}

static int idn;

/* One thread per rank (file launch); res[P]. */
static void run_threads(const job *j, rankres *res) {
    char idf[128];
    snprintf(idf, sizeof idf, "/tmp/arlab-fake-%ld-%d.id", (long)getpid(), ++idn);
    unlink(idf);
    pthread_t th[MAXP];
    targ ta[MAXP];
    memset(res, 0, sizeof *res * (size_t)j->P);
    for (int r = 0; r < j->P; r++) {
        ta[r] = (targ){j, r, {AR_REAL_LAUNCH_FILE, idf, 0, 0, 1, r, j->P}, &res[r]};
        pthread_create(&th[r], NULL, rank_main, &ta[r]);
    }
    for (int r = 0; r < j->P; r++) pthread_join(th[r], NULL);
    unlink(idf);
}

/* One thread for all ranks (single launch over P fake GPUs). */
static void run_single(const job *j, rankres *res) {
    memset(res, 0, sizeof *res);
    fake_cuda_config(j->P, cudaSuccess, 13000);
    targ t = {j, 0, {AR_REAL_LAUNCH_SINGLE, NULL, 0, 0, 0, 0, 0}, res};
    rank_main(&t);
}

static void expect_clean(const char *what, const job *j, const rankres *res, int n, int min_cases) {
    fake_stats fs = fake_get_stats();
    for (int r = 0; r < n; r++) {
        T_CHECK(res[r].open_st == AR_OK && res[r].st == AR_OK, "%s %s rank %d: %s", what, j->platform, r, res[r].msg);
        T_CHECK(res[r].wrong == 0, "%s %s rank %d: #wrong %lld (%s)", what, j->platform, r, res[r].wrong, res[r].msg);
        T_CHECK(res[r].cases >= min_cases, "%s %s rank %d: %d cases ran (want >= %d)", what, j->platform, r,
                res[r].cases, min_cases);
    }
    T_CHECK(fs.races == 0 && fs.errors == 0, "%s %s %s %s: fake: %ld races, %ld errors: %s", what, j->platform,
            ar_real_lowering_name(j->low), ar_dtype_name(j->dt), fs.races, fs.errors, fake_first_error());
    T_CHECK(fs.live_allocs == 0, "%s %s: %ld device blocks not freed", what, j->platform, fs.live_allocs);
}

static void test_devices(void) {
    static const struct {
        int ndev;
        cudaError_t err;
        int driver;
        ar_status want;
    } cs[] = {{4, cudaSuccess, 13000, AR_OK},
              {0, cudaSuccess, 13000, AR_EUNSUPPORTED},
              {4, cudaErrorNoDevice, 13000, AR_EUNSUPPORTED},
              {4, cudaErrorInsufficientDriver, 0, AR_EUNSUPPORTED}, /* no driver installed */
              {4, cudaErrorInsufficientDriver, 12020, AR_EBACKEND}, /* driver too old: fail */
              {4, cudaErrorInitializationError, 13000, AR_EBACKEND}};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        fake_reset();
        fake_cuda_config(cs[i].ndev, cs[i].err, cs[i].driver);
        ar_err e = {{0}};
        int n = -1;
        ar_status st = ar_real_devices(&n, &e);
        T_CHECK(st == cs[i].want, "devices case %zu: status %d, want %d (%s)", i, (int)st, (int)cs[i].want, e.msg);
        T_CHECK((st == AR_OK) == (n > 0), "devices case %zu: n %d", i, n);
        if (cs[i].want == AR_EBACKEND)
            T_CHECK(strstr(e.msg, "cudaErrorInsufficientDriver") || strstr(e.msg, "cudaErrorInitializationError"),
                    "devices case %zu: message names the error: %s", i, e.msg);
        /* and ar_real_open passes the verdict on */
        ar_real_ctx *c = NULL;
        ar_real_launch L = {AR_REAL_LAUNCH_SINGLE, NULL, 0, 0, 0, 0, 0};
        ar_status os = ar_real_open(&L, &c, &e);
        T_CHECK(os == cs[i].want, "open case %zu: %d want %d (%s)", i, (int)os, (int)cs[i].want, e.msg);
        ar_real_close(c);
    }
    fake_reset();
}

/* Does any plan of the job have a step where one rank issues collectives of
 * two different ops (the case the side streams exist for)? */
static int has_concurrent_colls(const char *platform, const char *algo, uint64_t count, ar_real_lowering low) {
    ar_err e = {{0}};
    ar_platform *p = NULL;
    if (ar_platform_load(platform, 0, &p, &e) != AR_OK) return 0;
    ar_schedule *s = NULL;
    int found = 0;
    if (ar_algo_plan(algo, p, count, 4, &s, &e) == AR_OK) {
        ar_real_plan *pl = NULL;
        if (ar_real_plan_build(s, low, &pl, &e) == AR_OK) {
            for (int r = 0; r < s->nranks && !found; r++) {
                ar_real_prog *g = NULL;
                if (ar_real_compile(pl, r, &g, &e) != AR_OK) break;
                for (int k = 0; k < g->nsteps && !found; k++) {
                    const ar_real_step *sp = &g->steps[k];
                    if (sp->round != -1) continue;
                    for (size_t i = 1; i < sp->ninstr; i++)
                        if (g->instr[sp->first_instr + i].flat != g->instr[sp->first_instr].flat) found = 1;
                }
                ar_real_prog_free(g);
            }
            ar_real_plan_free(pl);
        }
        ar_schedule_free(s);
    }
    ar_platform_free(p);
    return found;
}

static void test_algorithms(void) {
    static const char *const plats[] = {"machines:gpus=2+2", "machines:gpus=3+2", "flat"};
    static const int np[] = {4, 5, 4};
    static const ar_real_lowering lows[] = {AR_REAL_LOWER_AUTO, AR_REAL_LOWER_P2P, AR_REAL_LOWER_NATIVE};
    static const ar_dtype dts[] = {AR_DTYPE_F32, AR_DTYPE_F16, AR_DTYPE_BF16};
    int na;
    ar_algos(&na);
    rankres res[MAXP];
    long total = 0;
    for (size_t pi = 0; pi < sizeof plats / sizeof plats[0]; pi++)
        for (int li = 0; li < 3; li++)
            for (int di = 0; di < 3; di++) {
                /* all dtypes under auto; f32 only under p2p/native (the fake's time, not coverage, is the limit) */
                if (li > 0 && di > 0) continue;
                int inplace = (int)((pi + (size_t)li + (size_t)di) % 2);
                job j = {plats[pi], np[pi], lows[li], dts[di], inplace, 4099, 0, 0, AR_REAL_TIMING_ARLAB, NULL, 0};
                fake_reset();
                fake_cuda_config(np[pi], cudaSuccess, 13000);
                run_threads(&j, res);
                expect_clean("threads", &j, res, j.P, na / 2);
                total += res[0].cases;
            }
    /* round fusion: independent point-to-point rounds in one NCCL group, every algorithm, p2p and auto */
    for (size_t pi = 0; pi < sizeof plats / sizeof plats[0]; pi++)
        for (int li = 0; li < 2; li++) {
            job j = {plats[pi],
                     np[pi],
                     lows[li],
                     li ? AR_DTYPE_F32 : AR_DTYPE_BF16,
                     (int)pi % 2,
                     4099,
                     0,
                     0,
                     AR_REAL_TIMING_ARLAB,
                     NULL,
                     1};
            fake_reset();
            fake_cuda_config(np[pi], cudaSuccess, 13000);
            long g0 = 0;
            run_threads(&j, res);
            g0 = fake_get_stats().groups;
            expect_clean("fused", &j, res, j.P, na / 2);
            total += res[0].cases;
            /* the same job unfused issues more groups */
            j.fuse = 0;
            fake_reset();
            fake_cuda_config(np[pi], cudaSuccess, 13000);
            run_threads(&j, res);
            long g1 = fake_get_stats().groups;
            expect_clean("unfused", &j, res, j.P, na / 2);
            T_CHECK(g0 < g1, "%s %s: fused %ld NCCL groups, unfused %ld", plats[pi], ar_real_lowering_name(lows[li]),
                    g0, g1);
            if (pi == 0)
                printf("real_exec_fake: %s %s: %ld NCCL groups fused, %ld unfused (all algorithms)\n", plats[pi],
                       ar_real_lowering_name(lows[li]), g0, g1);
        }
    /* single launch: one thread issues every rank's calls inside one group */
    for (int di = 0; di < 3; di++) {
        job j = {
            "machines:gpus=2+2", 4, AR_REAL_LOWER_AUTO, dts[di], di != 1, 1000, 0, 0, AR_REAL_TIMING_ARLAB, NULL, 0};
        fake_reset();
        run_single(&j, res);
        expect_clean("single", &j, res, 1, na / 2);
        total += res[0].cases;
    }
    printf("real_exec_fake: %ld benches ran through exec + fake (every rank's buffer exact)\n", total);
    T_CHECK(total >= 10L * na, "only %ld benches ran for %d algorithms", total, na);
}

static void test_side_streams(void) {
    /* find a registered algorithm whose plan has two collectives of one rank in one step */
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    const char *plat = "machines:gpus=2+2";
    const char *algo = NULL;
    ar_real_lowering low = AR_REAL_LOWER_NATIVE;
    for (int a = 0; a < na && !algo; a++)
        if (has_concurrent_colls(plat, algos[a]->name, 4099, low)) algo = algos[a]->name;
    T_CHECK(algo != NULL, "no registered algorithm has a phase with two collectives on one rank (%s, native)", plat);
    if (!algo) return;
    job j = {plat, 4, low, AR_DTYPE_F32, 1, 4099, 0, 0, AR_REAL_TIMING_ARLAB, algo, 0};
    rankres res[MAXP];
    fake_reset();
    fake_cuda_config(4, cudaSuccess, 13000);
    run_threads(&j, res);
    expect_clean("side streams", &j, res, 4, 1);
    fake_stats fs = fake_get_stats();
    T_CHECK(fs.side_waits > 0 && fs.max_streams >= 3, "%s: %ld stream waits, %d streams on a device", algo,
            fs.side_waits, fs.max_streams);
    printf("real_exec_fake: side streams: %s on %s forks/joins (%ld waits, up to %d streams per device), no race\n",
           algo, plat, fs.side_waits, fs.max_streams);
}

static void test_options(void) {
    rankres res[MAXP];
    /* empty schedule and nccl-tests timing */
    job j = {
        "machines:gpus=2+2", 4, AR_REAL_LOWER_AUTO, AR_DTYPE_F32, 1, 4099, 1, 0, AR_REAL_TIMING_NCCL_TESTS, "ring", 0};
    fake_reset();
    fake_cuda_config(4, cudaSuccess, 13000);
    run_threads(&j, res);
    expect_clean("empty+nccl-tests", &j, res, 4, 1);
    for (int r = 0; r < 4; r++) {
        T_CHECK(res[r].empty_s >= 0, "rank %d: empty_s %g", r, res[r].empty_s);
        T_CHECK(res[r].min_s == res[r].med_s && res[r].med_s == res[r].max_s && res[r].med_s >= 0,
                "nccl-tests timing: one mean (%g %g %g)", res[r].min_s, res[r].med_s, res[r].max_s);
    }
    /* --graph: one iteration captured per rank (side streams forked and joined inside the capture),
     * replayed for timing, the empty schedule and the exact-sum check; every algorithm, both timings */
    for (int tm = 0; tm < 2; tm++) {
        job g = {"machines:gpus=2+2",
                 4,
                 tm ? AR_REAL_LOWER_NATIVE : AR_REAL_LOWER_P2P,
                 AR_DTYPE_F32,
                 tm,
                 4099,
                 1,
                 1,
                 tm ? AR_REAL_TIMING_NCCL_TESTS : AR_REAL_TIMING_ARLAB,
                 NULL,
                 tm};
        fake_reset();
        fake_cuda_config(4, cudaSuccess, 13000);
        run_threads(&g, res);
        int na;
        ar_algos(&na);
        expect_clean("graph", &g, res, 4, na / 2);
        fake_stats fs = fake_get_stats();
        T_CHECK(fs.graph_launches >= 4L * res[0].cases * 3, "graph: %ld launches for %d cases", fs.graph_launches,
                res[0].cases);
        printf("real_exec_fake: --graph (%s lowering): %d benches, %ld graph launches, exact\n",
               ar_real_lowering_name(g.low), res[0].cases, fs.graph_launches);
    }
    job g = j;
    g.opts_graph = 1;
    /* --graph under the single launch is refused before anything runs */
    fake_reset();
    run_single(&g, res);
    T_CHECK(res[0].st == AR_EUNSUPPORTED && strstr(res[0].msg, "one rank per process"), "graph single: %d %s",
            (int)res[0].st, res[0].msg);
}

typedef struct ptarg {
    int rank, P;
    const char *idf;
    rankres *r;
} ptarg;

static void *place_main(void *arg) {
    ptarg *t = arg;
    ar_err e = {{0}};
    ar_real_ctx *c = NULL;
    ar_real_launch L = {AR_REAL_LAUNCH_FILE, t->idf, 0, 0, 1, t->rank, t->P};
    t->r->open_st = ar_real_open(&L, &c, &e);
    if (!c) return NULL;
    const char *line = NULL;
    t->r->st = ar_real_placement(c, &line, &e);
    if (line) snprintf(t->r->placement, sizeof t->r->placement, "%s", line);
    int mach[MAXP];
    if (t->r->st == AR_OK) t->r->st = ar_real_machines(c, mach, &t->r->nmachines, &e);
    if (t->r->st == AR_OK) t->r->st = ar_real_pingpong(c, 0, 1, 64, 1, 3, &t->r->pp_s, &e);
    if (t->r->st != AR_OK) snprintf(t->r->msg, sizeof t->r->msg, "%s", e.msg);
    ar_real_close(c);
    return NULL;
}

static void test_placement(void) {
    for (int shared = 0; shared < 2; shared++) {
        int P = 4;
        fake_reset();
        fake_cuda_config(shared ? 2 : 4, cudaSuccess, 13000);
        char idf[128];
        snprintf(idf, sizeof idf, "/tmp/arlab-fake-%ld-p%d.id", (long)getpid(), shared);
        unlink(idf);
        rankres res[MAXP];
        memset(res, 0, sizeof res);
        pthread_t th[MAXP];
        ptarg ta[MAXP];
        for (int r = 0; r < P; r++) {
            ta[r] = (ptarg){r, P, idf, &res[r]};
            pthread_create(&th[r], NULL, place_main, &ta[r]);
        }
        for (int r = 0; r < P; r++) pthread_join(th[r], NULL);
        const char *want = shared ? "placement=shared-gpu-timeslice" : "placement=one-gpu-per-rank";
        for (int r = 0; r < P; r++) {
            T_CHECK(res[r].open_st == AR_OK && res[r].st == AR_OK, "placement rank %d: %s", r, res[r].msg);
            T_CHECK(strstr(res[r].placement, want) != NULL, "rank %d: '%s', want %s", r, res[r].placement, want);
            T_CHECK(res[r].nmachines == 1, "rank %d: %d machines (one host, no NCCL_HOSTID)", r, res[r].nmachines);
            T_CHECK(res[r].pp_s >= 0, "rank %d: ping-pong %g", r, res[r].pp_s);
        }
        fake_stats fs = fake_get_stats();
        T_CHECK(fs.errors == 0 && fs.races == 0, "placement: %s", fake_first_error());
    }
}

static void test_faults(void) {
    static const struct {
        fake_fault f;
        int rank, nth;
        const char *algo;
        ar_real_lowering low;
        const char *want;
    } cs[] = {
        /* the peer's next receive takes the dropped one's place: a size mismatch, or a send left unmatched */
        {FAKE_DROP_RECV, 1, 0, "ring", AR_REAL_LOWER_P2P, "matches rank 1 ncclRecv|never matched"},
        /* every rank sends first, blocking: both ends of an exchange wait for each other */
        {FAKE_UNGROUP, -1, 0, "halving-doubling", AR_REAL_LOWER_P2P, "never matched"},
        {FAKE_COUNT, 2, 1, "ring", AR_REAL_LOWER_AUTO, "mismatched"},
        {FAKE_SKIP_SPLIT, 3, 0, "two-level", AR_REAL_LOWER_NATIVE, "not every rank called it"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        job j = {"machines:gpus=2+2", 4, cs[i].low, AR_DTYPE_F32, 1, 4099, 0, 0, AR_REAL_TIMING_ARLAB, cs[i].algo, 0};
        rankres res[MAXP];
        fake_reset();
        fake_cuda_config(4, cudaSuccess, 13000);
        fake_nccl_config(0.5);
        fake_inject(cs[i].f, cs[i].rank, cs[i].nth);
        double t0 = ar_now_s();
        run_threads(&j, res);
        double dt = ar_now_s() - t0;
        int failed = 0, backend = 0;
        for (int r = 0; r < 4; r++) {
            failed += res[r].st != AR_OK || res[r].open_st != AR_OK;
            backend += res[r].st == AR_EBACKEND;
        }
        T_CHECK(failed > 0 && backend > 0, "fault %zu (%s): not detected (%d ranks failed)", i, cs[i].want, failed);
        char alt[128];
        snprintf(alt, sizeof alt, "%s", cs[i].want);
        char *bar = strchr(alt, '|');
        if (bar) *bar = 0;
        int hit = strstr(fake_first_error(), alt) || (bar && strstr(fake_first_error(), bar + 1));
        T_CHECK(hit, "fault %zu: first error '%s', want '%s'", i, fake_first_error(), cs[i].want);
        T_CHECK(dt < 30, "fault %zu: took %.1f s (bounded waits)", i, dt);
        for (int r = 0; r < 4; r++)
            if (res[r].st == AR_EBACKEND) {
                T_CHECK(strstr(res[r].msg, "nccl") != NULL, "fault %zu rank %d: message names the call: %s", i, r,
                        res[r].msg);
                break;
            }
        printf("real_exec_fake: fault %zu detected in %.2f s: %s\n", i, dt, fake_first_error());
    }
    fake_reset();
}

int main(void) {
    test_devices();
    test_algorithms();
    test_side_streams();
    test_options();
    test_placement();
    test_faults();
    return t_done("real_exec_fake");
}
