/* GPU test of the CUDA/NCCL executor (real/real.h). Exit 77 (CTest: skipped)
 * only when this machine has no GPU (ar_real_devices: no driver installed, no
 * device, 0 devices); any other CUDA error fails (exit 1): a GPU machine with
 * a broken driver must not show green. With a GPU:
 *   A. one process driving every local GPU (launch single), when there are
 *      at least 2;
 *   B. 4 ranks as 4 processes of this program (launch file: ARLAB_RANK,
 *      ARLAB_NRANKS, ARLAB_ID_FILE), one GPU each when there are 4, else
 *      sharing GPUs with a distinct NCCL_HOSTID per rank so NCCL treats them
 *      as separate hosts (socket transport over loopback).
 * Each runs every registered algorithm under the three lowerings (auto, p2p,
 * native) at an odd size (uneven blocks) and 1 MiB, in place and out of
 * place, plus the ncclAllReduce baseline, f16/bf16, the ping-pong and the
 * machine detection; every measurement must have #wrong == 0 and sane times.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/algo.h"
#include "real/real.h"
#include "../t.h"

#define NPROC 4

static void bench_check(ar_real_ctx *c, const ar_platform *p, const char *algo, uint64_t count, ar_dtype dt,
                        ar_real_lowering low, int inplace, int lead) {
    ar_err e = {{0}};
    ar_schedule *s = NULL;
    if (algo) {
        ar_status st = ar_algo_plan(algo, p, count, ar_dtype_size(dt), &s, &e);
        if (st == AR_EUNSUPPORTED) return;
        T_CHECK(st == AR_OK, "%s: plan: %s", algo, e.msg);
        if (st) return;
    }
    ar_real_bench_opts o = {dt, 1, 3, inplace, low, AR_REAL_TIMING_ARLAB, 0, 1, 0};
    ar_real_measure m;
    ar_status st = ar_real_bench(c, s, count, &o, &m, &e);
    T_CHECK(st == AR_OK, "%s %s %s: %s", algo ? algo : "nccl-allreduce", ar_real_lowering_name(low), ar_dtype_name(dt),
            e.msg);
    if (st == AR_OK) {
        T_CHECK(m.wrong == 0, "%s count %llu %s %s %s: #wrong %lld", algo ? algo : "nccl-allreduce",
                (unsigned long long)count, ar_real_lowering_name(low), ar_dtype_name(dt),
                inplace ? "in-place" : "out-of-place", m.wrong);
        T_CHECK(m.med_s > 0 && m.min_s <= m.med_s && m.med_s <= m.max_s && m.iters == 3, "%s: times %g %g %g",
                algo ? algo : "nccl", m.min_s, m.med_s, m.max_s);
        T_CHECK(m.empty_s >= 0, "%s: empty-schedule time %g", algo ? algo : "nccl", m.empty_s);
        if (lead)
            printf("  %-22s %8llu el %-6s %-4s %s: %9.1f us, #wrong %lld\n", algo ? algo : "nccl-allreduce",
                   (unsigned long long)count, ar_real_lowering_name(low), ar_dtype_name(dt), inplace ? "in " : "out",
                   m.med_s * 1e6, m.wrong);
    }
    ar_schedule_free(s);
}

static void suite(ar_real_ctx *c) {
    int P = ar_real_nranks(c), lead = ar_real_is_leader(c);
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load(P == 4 ? "machines:gpus=2+2" : "flat", P == 4 ? 0 : P, &p, &e));
    if (!p) return;
    if (lead) printf("%s; platform %s\n", ar_real_describe(c), p->name);
    int na;
    const ar_algo *const *algos = ar_algos(&na);
    const uint64_t counts[2] = {4099, 262144};
    for (int ci = 0; ci < 2; ci++)
        for (int inplace = 1; inplace >= 0; inplace--) {
            bench_check(c, p, NULL, counts[ci], AR_DTYPE_F32, AR_REAL_LOWER_AUTO, inplace, lead);
            for (int a = 0; a < na; a++)
                if (ar_algo_colls(algos[a]) & AR_COLL_BIT(AR_COLL_ALLREDUCE)) /* RS/AG-only: pat */
                    bench_check(c, p, algos[a]->name, counts[ci], AR_DTYPE_F32, AR_REAL_LOWER_AUTO, inplace, lead);
        }
    for (int a = 0; a < na; a++) {
        if (!(ar_algo_colls(algos[a]) & AR_COLL_BIT(AR_COLL_ALLREDUCE))) continue;
        bench_check(c, p, algos[a]->name, 4099, AR_DTYPE_F32, AR_REAL_LOWER_P2P, 1, lead);
        bench_check(c, p, algos[a]->name, 4099, AR_DTYPE_F32, AR_REAL_LOWER_NATIVE, 1, lead);
    }
    const ar_dtype halves[2] = {AR_DTYPE_F16, AR_DTYPE_BF16};
    for (int h = 0; h < 2; h++) {
        bench_check(c, p, NULL, 4099, halves[h], AR_REAL_LOWER_AUTO, 1, lead);
        bench_check(c, p, "ring", 4099, halves[h], AR_REAL_LOWER_AUTO, 1, lead);
        bench_check(c, p, "two-level", 4099, halves[h], AR_REAL_LOWER_P2P, 1, lead);
    }
    if (P >= 2) {
        double t8 = 0, t1m = 0;
        T_OK(ar_real_pingpong(c, 0, 1, 8, 2, 5, &t8, &e));
        T_OK(ar_real_pingpong(c, 0, 1, 1 << 20, 2, 5, &t1m, &e));
        T_CHECK(t8 > 0 && t1m > t8, "ping-pong 8 B %g s, 1 MiB %g s", t8, t1m);
        if (lead) printf("  ping-pong 0<->1: 8 B %.2f us, 1 MiB %.2f us one-way\n", t8 * 1e6, t1m * 1e6);
    }
    int *mach = calloc((size_t)P, sizeof *mach), nm = 0;
    T_OK(ar_real_machines(c, mach, &nm, &e));
    T_CHECK(nm >= 1 && nm <= P && mach[0] == 0, "machines: %d", nm);
    free(mach);
    ar_platform_free(p);
}

static int child(void) {
    ar_err e = {{0}};
    ar_real_launch L = {AR_REAL_LAUNCH_FILE, NULL, 0, 0, 0, 0, 0};
    ar_real_ctx *c = NULL;
    if (ar_real_open(&L, &c, &e) != AR_OK) {
        fprintf(stderr, "real_gpu child: %s\n", e.msg);
        return 3;
    }
    suite(c);
    int lead = ar_real_is_leader(c);
    ar_real_close(c);
    if (lead || t_failed) return t_done("real_gpu (4 processes, file launch)");
    return 0;
}

static int spawn_ranks(int ngpus) {
    char idf[128];
    snprintf(idf, sizeof idf, "/tmp/arlab-real-gpu-test-%ld.id", (long)getpid());
    unlink(idf);
    pid_t pids[NPROC];
    for (int r = 0; r < NPROC; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            char v[32];
            snprintf(v, sizeof v, "%d", r);
            setenv("ARLAB_RANK", v, 1);
            setenv("ARLAB_LOCAL_RANK", v, 1);
            snprintf(v, sizeof v, "%d", NPROC);
            setenv("ARLAB_NRANKS", v, 1);
            setenv("ARLAB_ID_FILE", idf, 1);
            if (ngpus < NPROC) {
                char h[64];
                snprintf(h, sizeof h, "arlab-test-rank%d", r);
                setenv("NCCL_HOSTID", h, 1);
                setenv("NCCL_SOCKET_IFNAME", getenv("NCCL_SOCKET_IFNAME") ? getenv("NCCL_SOCKET_IFNAME") : "lo", 1);
                setenv("NCCL_IB_DISABLE", "1", 1);
            }
            char *args[] = {"real_gpu", "--child", NULL};
            execv("/proc/self/exe", args);
            perror("execv /proc/self/exe");
            _exit(3);
        }
        pids[r] = pid;
    }
    int worst = 0, left = NPROC;
    time_t deadline = time(NULL) + 600;
    while (left > 0) {
        int status;
        pid_t w = waitpid(-1, &status, WNOHANG);
        if (w > 0) {
            left--;
            int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (rc) {
                fprintf(stderr, "real_gpu: rank process %ld exited with %d\n", (long)w, rc);
                if (!worst) worst = rc;
            }
        } else if (w < 0 && errno != EINTR) {
            break;
        } else if (time(NULL) > deadline) {
            fprintf(stderr, "real_gpu: rank processes still running after 600 s: killing them\n");
            for (int r = 0; r < NPROC; r++) kill(pids[r], SIGKILL);
            worst = worst ? worst : 124;
            deadline = time(NULL) + 3600;
        } else {
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    unlink(idf);
    return worst;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--child")) return child();
    ar_err e = {{0}};
    int ngpus = 0;
    ar_status dst = ar_real_devices(&ngpus, &e);
    if (dst == AR_EUNSUPPORTED) {
        printf("real_gpu: skipped: %s\n", e.msg);
        fflush(stdout);
        _exit(77); /* no GPU: nothing of CUDA's to clean up or report */
    }
    if (dst != AR_OK) {
        fprintf(stderr, "real_gpu: FAIL: %s\n", e.msg);
        return 1;
    }
    char v[200];
    printf("real_gpu: %d GPU(s); %s\n", ngpus, ar_real_versions(v, sizeof v));
    if (ngpus >= 2) {
        ar_real_launch L = {AR_REAL_LAUNCH_SINGLE, NULL, 0, 0, 0, 0, 0};
        ar_real_ctx *c = NULL;
        T_CHECK(ar_real_open(&L, &c, &e) == AR_OK, "single-process launch: %s", e.msg);
        if (c) {
            suite(c);
            ar_real_close(c);
        }
    } else {
        printf("real_gpu: one GPU: the single-process launch would have one rank; testing the 4-process launch only\n");
    }
    fflush(stdout);
    int rc = spawn_ranks(ngpus);
    T_CHECK(rc == 0, "4-process launch: a rank exited with %d", rc);
    return t_done("real_gpu");
}
