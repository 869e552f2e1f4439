/* The one reader of measured CSVs (the sweep's real backend and `arlab
 * compare`): any CSV with a header naming at least algo, ranks, bytes and
 * measured_s (platform, inplace and wrong are read when present), e.g. the
 * output of `arlab real --out FILE.csv`. Columns are located by NAME; others
 * are ignored. Rows whose numbers do not parse, or with a time that is not
 * finite and positive, are skipped.
 * nccl-tests output (text or JSON, recognised by a leading '{', an
 * "out-of-place" table header, the "Avg bus bandwidth" footer, or a column
 * header line naming size, count and busbw without commas) is read by
 * calib/nccltests_in.h instead: every all_reduce row becomes two rows (both
 * halves, inplace 0/1) with algo "nccl-allreduce", platform "" (matches any
 * platform of the same rank count), ranks from the file (0 when the file does
 * not give them: the caller decides), #wrong per half; halves with #wrong > 0
 * are left out; a bad nccl-tests file is an error naming file and line, strict
 * or not.
 *
 * Ownership: lab_measured_read appends to *ms (grown with realloc); the caller
 * frees with lab_measures_free.
 */
#ifndef AR_LAB_MEASURED_H
#define AR_LAB_MEASURED_H

#include "backend.h" /* lab_measure */

typedef struct lab_measures {
    int n;
    size_t cap;
    lab_measure *m;
    int *inplace;     /* per row: 1 in-place (default when the column is absent), 0 out-of-place */
    long long *wrong; /* per row: #wrong elements, -1 when unknown */
    /* per row of an nccl-tests file: the run's forced NCCL_ALGO / NCCL_PROTO as written ("Ring", "Simple"; from its
     * NCCL log, else --nccl-algo/--nccl-proto through nt_opts), "" when NCCL chose (NULL arrays: none read) */
    char (*nccl_algo)[64], (*nccl_proto)[64];
    /* nccl-tests files, set by the caller before reading (all optional): */
    const void *nt_opts; /* an ar_nt_opts (calib/nccltests_in.h) for the reader: hints, missing footer */
    int nt_coll;         /* the collective whose nccl-tests rows are NCCL's own ("nccl-allreduce" rows, the baseline
                          * key whatever the collective): an ar_nt_coll, 0 = all_reduce */
    const char *verb;    /* non-NULL: the reader's assumptions and left-out rows are told on stderr as
                          * "arlab VERB: FILE: ...", a run whose collective is unknown is an error, and a
                          * file without all_reduce runs is refused (what compare compares) */
    /* filled by the reader: rows of a file that does not give its rank count (ranks 0 in m[]) */
    int nt_noranks;
    char nt_noranks_file[256];
} lab_measures;

/* Reads path and appends its rows. strict = 1: a header without the needed
 * columns is AR_EINVAL naming the file; strict = 0: such a file adds nothing. */
ar_status lab_measured_read(const char *path, int strict, lab_measures *ms, ar_err *e);
void lab_measures_free(lab_measures *ms);

/* The row of algo (exact spec), ranks and bytes, preferring in-place rows;
 * -1 when none. */
int lab_measured_find(const lab_measures *ms, const char *algo, int ranks, double bytes);

#endif
