/* One MPI_Allreduce of N doubles (MPI_SUM), timed in simulated time: built with smpicc and run
 * with smpirun by experiments/bench_smpi.sh and tests/cli/cli_smpi.sh, to compare SimGrid's SMPI
 * with `arlab sim` on the same platform and algorithm (smpi/allreduce:lr or rab_rdb).
 *
 * Every rank enters the all-reduce at the same simulated instant: nothing runs before it (MPI_Init
 * costs no simulated time, and a barrier would release ranks at different instants, which arlab's
 * simulation, starting every rank at 0, does not have). The time printed is the last rank's end
 * minus the first rank's start, the makespan `arlab sim` reports as sim_s; the start spread is
 * printed too, so a caller can check that it is 0. After the timed call every rank's buffer is
 * checked against the exact sum (small integers: exact in doubles).
 *
 * usage: allreduce N   (N = the number of doubles; the bytes are 8 N)
 * prints: smpi ranks=P doubles=N bytes=B time_s=T start_spread_s=S check=ok|bad */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *end = NULL;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || !end || *end || n <= 0 || n > (1L << 30)) {
        if (rank == 0) fprintf(stderr, "usage: allreduce N (N doubles, 1..2^30)\n");
        MPI_Finalize();
        return 2;
    }
    double *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    if (!in || !out) {
        fprintf(stderr, "allreduce: rank %d: out of memory for %ld doubles\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < n; i++) in[i] = (double)((rank + i) % 7);

    double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();

    /* the exact sum of (r + i) mod 7 over r = 0..P-1 depends on i mod 7 only */
    double want[7] = {0};
    for (int j = 0; j < 7; j++)
        for (int r = 0; r < size; r++) want[j] += (double)((r + j) % 7);
    long bad = 0;
    for (long i = 0; i < n && !bad; i++)
        if (out[i] != want[i % 7]) bad = i + 1;
    double first = 0, last = 0, latest_start = 0;
    long anybad = 0;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t0, &latest_start, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("smpi ranks=%d doubles=%ld bytes=%ld time_s=%.17g start_spread_s=%.17g check=%s\n", size, n,
               n * (long)sizeof(double), last - first, latest_start - first, anybad ? "bad" : "ok");
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
