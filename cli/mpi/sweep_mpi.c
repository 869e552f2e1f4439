/* arlab-sweep-mpi FILE.json [--out DIR] [--quiet]: `arlab sweep` spread over
 * the ranks of an MPI job (mpirun -np N arlab-sweep-mpi FILE.json).
 *
 * Rank 0 reads the earlier results (resume) and broadcasts the points still
 * to do; rank k evaluates points todo[k], todo[k+N], ...; every rank sends
 * its rows ("POINT<TAB>CSV" lines) to rank 0 (MPI_Gatherv), which merges them
 * in grid order and writes DIR/NAME.csv and .json, the same bytes `arlab
 * sweep` writes for any -j. Every rank reads the sweep file and the platform
 * files itself (a shared file system, or the same paths on every node).
 *
 * A separate executable, built only when CMake finds MPI, so that `arlab`
 * itself never links MPI and runs anywhere without mpirun. It links the
 * same experiment library (lab/, arlab_lab) as `arlab sweep`. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/sweep/sweep.h"

static int fail(int rank, const ar_err *e) {
    fprintf(stderr, "arlab-sweep-mpi (rank %d): %s\n", rank, e->msg);
    MPI_Abort(MPI_COMM_WORLD, AR_EFAIL);
    return AR_EFAIL;
}

typedef struct progress {
    int done, share, quiet, rank;
    const char *name;
} progress;

/* Called after each point this rank evaluates: rank 0 says how far it is. */
static void tick(void *arg) {
    progress *pg = arg;
    pg->done++;
    int step = pg->share / 10 > 1 ? pg->share / 10 : 1;
    if (!pg->quiet && pg->rank == 0 && (pg->done % step == 0 || pg->done == pg->share))
        fprintf(stderr, "%s: rank 0 finished %d of its %d points\n", pg->name, pg->done, pg->share);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *file = NULL, *dir = "out";
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) dir = argv[++i];
        else if (!strncmp(argv[i], "--out=", 6)) dir = argv[i] + 6;
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else {
            if (rank == 0) fprintf(stderr, "usage: mpirun -np N arlab-sweep-mpi FILE.json [--out DIR] [--quiet]\n");
            MPI_Finalize();
            return AR_EINVAL;
        }
    }
    if (!file) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N arlab-sweep-mpi FILE.json [--out DIR] [--quiet]\n");
        MPI_Finalize();
        return AR_EINVAL;
    }
    ar_err e = {{0}};
    sweep_ctx ctx;
    if (sweep_open(file, &ctx, &e) != AR_OK) return fail(rank, &e);

    /* rank 0: resume state and the points to do, broadcast to all */
    sweep_rows old = {0, 0, NULL};
    int ntodo = 0, *todo = NULL;
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, ctx.spec->name);
    if (rank == 0) {
        if (sweep_read_csv(csv, &old, &e) != AR_OK || sweep_mkdirs(dir, &e) != AR_OK) return fail(rank, &e);
        int nstale[3];
        if (!(todo = sweep_todo(&ctx, &old, &ntodo, nstale, &e))) return fail(rank, &e);
        if (!quiet)
            fprintf(stderr,
                    "%s: %d points, %d to run on %d MPI ranks (%d of them stale: version %d, platform %d, "
                    "network %d)\n",
                    ctx.spec->name, ctx.npoints, ntodo, size, nstale[0] + nstale[1] + nstale[2], nstale[0], nstale[1],
                    nstale[2]);
    }
    MPI_Bcast(&ntodo, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0 && !(todo = calloc((size_t)ntodo + 1, sizeof *todo))) {
        ar_fail(&e, AR_ENOMEM, "out of memory");
        return fail(rank, &e);
    }
    MPI_Bcast(todo, ntodo, MPI_INT, 0, MPI_COMM_WORLD);

    /* this rank's share, as tagged CSV lines (the part-file format, in memory) */
    char *mine = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&mine, &len);
    if (!mf) {
        ar_fail(&e, AR_ENOMEM, "out of memory");
        return fail(rank, &e);
    }
    progress pg = {0, (ntodo - rank + size - 1) / size, quiet, rank, ctx.spec->name};
    if (sweep_eval_to(&ctx, todo, ntodo, rank, size, mf, tick, &pg, &e) != AR_OK) return fail(rank, &e);
    if (fclose(mf) != 0) {
        ar_fail(&e, AR_ENOMEM, "out of memory");
        return fail(rank, &e);
    }
    if (len > (size_t)1 << 30) {
        ar_fail(&e, AR_ENOMEM, "more than 1 GiB of rows on one rank; use more ranks");
        return fail(rank, &e);
    }

    /* gather at rank 0 */
    int mylen = (int)len, *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
        if (!lens || !displs) {
            ar_fail(&e, AR_ENOMEM, "out of memory");
            return fail(rank, &e);
        }
    }
    MPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long long total = 0;
    if (rank == 0) {
        for (int k = 0; k < size; k++) {
            displs[k] = (int)total;
            total += lens[k];
        }
        if (total > INT32_MAX || !(all = malloc((size_t)total + 1))) {
            ar_fail(&e, AR_ENOMEM, "the gathered rows do not fit (%lld bytes)", total);
            return fail(rank, &e);
        }
    }
    MPI_Gatherv(mine ? mine : "", mylen, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(mine);

    int rc = 0;
    if (rank == 0) {
        all[total] = 0;
        sweep_rows fresh = {0, 0, NULL}, out = {0, 0, NULL};
        int *fresh_of_point = calloc((size_t)ctx.npoints + 1, sizeof(int));
        ar_status st = fresh_of_point ? AR_OK : ar_fail(&e, AR_ENOMEM, "out of memory");
        for (int i = 0; !st && i < ctx.npoints; i++) fresh_of_point[i] = -1;
        int prev = -1;
        for (char *p = all, *nl; !st && *p; p = nl + 1) {
            nl = strchr(p, '\n');
            if (!nl) break;
            *nl = 0;
            st = sweep_add_tagged(&ctx, p, &fresh, fresh_of_point, &prev, &e);
        }
        if (!st) st = sweep_merge(&ctx, fresh_of_point, &fresh, &old, &out, &e);
        if (!st) st = sweep_fill_baseline(&ctx, &out, &e);
        if (!st) st = sweep_write(&ctx, dir, &out, &e);
        if (st) {
            fprintf(stderr, "arlab-sweep-mpi: %s\n", e.msg);
            rc = st;
        } else if (!quiet) {
            fprintf(stderr, "%s: %d rows (%d points run on %d ranks, %d resumed) -> %s\n", ctx.spec->name, out.n, ntodo,
                    size, ctx.npoints - ntodo, csv);
        }
        sweep_rows_free(&fresh);
        sweep_rows_free(&out);
        free(fresh_of_point);
        free(all);
        free(lens);
        free(displs);
    }
    sweep_rows_free(&old);
    free(todo);
    sweep_close(&ctx);
    MPI_Finalize();
    return rc;
}
