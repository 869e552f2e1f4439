/* calib/nccltests_out.c: every line of a document in nccl-tests' format,
 * compared byte for byte with what all_reduce_perf prints for the same
 * values (column widths, units, precision rule of the time column, the
 * footer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/nccltests_in.h"
#include "calib/nccltests_out.h"
#include "../t.h"

static const char *const want[] = {
    "# arlab real: algo ring",
    "# Collective test starting: all_reduce_perf",
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0",
    "#",
    "# Using devices",
    "#  Rank  0 Group  0 Pid   4242 on     node-a device  0 [0x1b] NVIDIA H100 80GB HBM3",
    "#  Rank  1 Group  0 Pid   4243 on     node-a device  1 [0x2c] NVIDIA H100 80GB HBM3",
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
    "           8             2     float     sum      -1    12.30    0.00    0.00      0    11.98    0.00    0.00      0",
    "   134217728      33554432     float     sum      -1    23457    5.72   10.00      0    456.8  293.84  514.22      3",
    "# Out of bounds values : 1 FAILED",
    "# Avg bus bandwidth    : 131.055 ",
    "#",
    "",
    NULL};

int main(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    T_CHECK(f != NULL, "open_memstream");
    if (!f) return t_done("real_nccltests_out");
    const char *comments[] = {"# arlab real: algo ring", NULL};
    ar_nt_params p = {1, 1, 8, 134217728, 2, 1, 5, 20, 1, 1, 0, NULL};
    ar_nt_rank ranks[2] = {{0, 0, 4242, 0, 0x1b, "node-a", "NVIDIA H100 80GB HBM3"},
                           {1, 0, 4243, 1, 0x2c, "node-a", "NVIDIA H100 80GB HBM3"}};
    ar_nt_header(f, comments, &p, ranks, 2);
    ar_nt_row r1 = {8, 2, ar_nt_type_name(AR_DTYPE_F32), "sum", -1, {12.3e-6, 0, 0, 0}, {11.98e-6, 0, 0, 0}};
    ar_nt_row r2 = {
        134217728, 33554432, "float", "sum", -1, {23456.7e-6, 5.72, 10.0, 0}, {456.78e-6, 293.84, 514.22, 3}};
    ar_nt_row_print(f, &r1);
    ar_nt_row_print(f, &r2);
    ar_nt_footer(f, 1, 131.055);
    fclose(f);
    /* line by line */
    char *save = NULL, *line = buf;
    int i = 0;
    for (; want[i]; i++) {
        char *nl = line ? strchr(line, '\n') : NULL;
        T_CHECK(nl != NULL, "line %d missing (want \"%s\")", i + 1, want[i]);
        if (!nl) break;
        *nl = 0;
        T_CHECK(!strcmp(line, want[i]), "line %d:\n got  \"%s\"\n want \"%s\"", i + 1, line, want[i]);
        line = nl + 1;
    }
    T_CHECK(line && *line == 0, "extra output after the footer: \"%s\"", line ? line : "");
    (void)save;
    free(buf);
    /* names and the time precision rule */
    T_CHECK(!strcmp(ar_nt_type_name(AR_DTYPE_F16), "half") && !strcmp(ar_nt_type_name(AR_DTYPE_BF16), "bfloat16"),
            "type names");
    char t[32];
    ar_nt_time_str(99.994, t, sizeof t);
    T_CHECK(!strcmp(t, "  99.99"), "time 99.994 us -> '%s'", t);
    ar_nt_time_str(100.0, t, sizeof t);
    T_CHECK(!strcmp(t, "  100.0"), "time 100 us -> '%s'", t);
    ar_nt_time_str(10000.0, t, sizeof t);
    T_CHECK(!strcmp(t, "  10000"), "time 10000 us -> '%s'", t);

    /* round trip through the reader: an in-place-only run (arlab-mpi) reads with the collective named,
     * its out-of-place half absent and the in-place time as printed */
    buf = NULL;
    len = 0;
    f = open_memstream(&buf, &len);
    T_CHECK(f != NULL, "open_memstream");
    if (!f) return t_done("real_nccltests_out");
    ar_nt_header(f, comments, &p, ranks, 2);
    ar_nt_row r3 = {1048576, 262144, "float", "sum", -1, {NAN, 0, 0, 0}, {2474.6e-6, 0.42, 0.42, 0}};
    ar_nt_row_print(f, &r3);
    ar_nt_footer(f, 0, 0.42);
    fclose(f);
    ar_nt_set *set = NULL;
    ar_err e = {{0}};
    ar_status st = ar_nt_read_mem("mpi.txt", buf, len, NULL, &set, &e);
    T_CHECK(st == AR_OK, "reader: %s", e.msg);
    if (st == AR_OK) {
        T_CHECK(set->nruns == 1 && set->nrecs == 1, "one run, one row (%d, %d)", set->nruns, set->nrecs);
        T_CHECK(set->runs[0].coll == AR_NT_ALL_REDUCE, "collective all_reduce from the starting line");
        T_CHECK(!strcmp(set->runs[0].arlab_algo, "ring"), "the algorithm from \"# arlab real: algo ring\" ('%s')",
                set->runs[0].arlab_algo);
        const ar_nt_record *r = &set->recs[0];
        T_CHECK(r->size_bytes == 1048576 && !r->oop.present && r->ip.present, "size, halves (oop %d ip %d)",
                r->oop.present, r->ip.present);
        T_CHECK(fabs(r->ip.time_us - 2474.6) < 1e-9, "in-place time %.17g us (printed %%7.1f: 2474.6)", r->ip.time_us);
        T_CHECK(ar_nt_check_fit(set, AR_NT_HALF_BOTH, &e) == AR_OK, "usable for a fit: %s", e.msg);
        T_CHECK(ar_nt_check_fit(set, AR_NT_HALF_OOP, &e) != AR_OK, "no out-of-place half to fit");
        ar_nt_free(set);
    }
    free(buf);
    return t_done("real_nccltests_out");
}
