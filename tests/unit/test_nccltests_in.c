/* The nccl-tests reader (calib/nccltests_in.h) on the hand-written files of
 * tests/data/nccltests/ (text and JSON, in-place/out-of-place, N/A, per-iteration
 * columns, truncated files, #wrong > 0, several files and runs, forced algorithm,
 * garbage): exact parsed numbers and exact error messages. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/nccltests_in.h"
#include "../t.h"

#ifndef AR_NT_DATA
#error "AR_NT_DATA (tests/data/nccltests) must be defined by CMake"
#endif

static const char *path(const char *name) {
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", AR_NT_DATA, name);
    return buf[k];
}

static ar_nt_set *read_ok(const char *name, const ar_nt_opts *o) {
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    ar_status st = ar_nt_read_file(path(name), o, &s, &e);
    T_CHECK(st == AR_OK && s, "%s: %d %s", name, (int)st, e.msg);
    return st == AR_OK ? s : NULL;
}

/* The error message after the path prefix "AR_NT_DATA/". */
static void read_fails(const char *name, const ar_nt_opts *o, ar_status want, const char *msg) {
    ar_err e = {{0}};
    ar_nt_set *s = (ar_nt_set *)1;
    ar_status st = ar_nt_read_file(path(name), o, &s, &e);
    T_CHECK(st == want && s == NULL, "%s: status %d want %d (%s)", name, (int)st, (int)want, e.msg);
    const char *m = strstr(e.msg, name);
    T_CHECK(m && !strcmp(m, msg), "%s: message\n  got  %s\n  want %s", name, e.msg, msg);
}

static void half_is(const ar_nt_timing *h, double t, double alg, double bus, double wrong, const char *what) {
    T_CHECK(h->present, "%s: half missing", what);
    T_CHECK(h->time_us == t, "%s: time %.17g want %.17g", what, h->time_us, t);
    T_CHECK(h->algbw_GBps == alg, "%s: algbw %.17g want %.17g", what, h->algbw_GBps, alg);
    T_CHECK(h->busbw_GBps == bus, "%s: busbw %.17g want %.17g", what, h->busbw_GBps, bus);
    T_CHECK(h->nwrong == wrong, "%s: nwrong %g want %g", what, h->nwrong, wrong);
}

static void test_one_node(void) {
    ar_nt_set *s = read_ok("h100_1node_allreduce.txt", NULL);
    if (!s) return;
    T_CHECK(s->nfiles == 1 && s->nruns == 1 && s->nrecs == 6, "files %d runs %d recs %d", s->nfiles, s->nruns,
            s->nrecs);
    const ar_nt_run *r = &s->runs[0];
    T_CHECK(r->coll == AR_NT_ALL_REDUCE && !strcmp(r->program, "all_reduce_perf"), "coll %d %s", r->coll, r->program);
    T_CHECK(r->nranks == 8 && r->nnodes == 1 && r->ndevices == 8, "ranks %d nodes %d", r->nranks, r->nnodes);
    T_CHECK(!strcmp(r->nccl_version, "2.21.5"), "nccl %s", r->nccl_version);
    T_CHECK(!strcmp(r->tests_version, "2.17.6"), "tests %s", r->tests_version);
    T_CHECK(!r->algo[0] && !r->proto[0], "algo %s proto %s", r->algo, r->proto);
    T_CHECK(r->nthreads == 1 && r->ngpus == 8 && r->min_bytes == 8 && r->max_bytes == 1073741824ULL, "params");
    T_CHECK(r->warmup_iters == 5 && r->iters == 20 && r->validation == 1, "iters %d %d %d", r->warmup_iters, r->iters,
            r->validation);
    T_CHECK(r->complete && r->oob_values == 0 && r->avg_busbw_GBps == 192.936, "footer %d %ld %g", r->complete,
            r->oob_values, r->avg_busbw_GBps);
    T_CHECK(!r->cputime && !r->format_json, "flags");
    T_CHECK(r->devices[5].rank == 5 && r->devices[5].group == 0 && r->devices[5].pid == 4242 &&
                r->devices[5].device == 5 && !strcmp(r->devices[5].host, "dgx-h100-a") &&
                !strcmp(r->devices[5].bus, "0000:ab:00") && !strcmp(r->devices[5].name, "NVIDIA H100 80GB HBM3"),
            "device 5: %d %d %s %s %s", r->devices[5].rank, r->devices[5].pid, r->devices[5].host, r->devices[5].bus,
            r->devices[5].name);
    const ar_nt_record *a = &s->recs[0], *c = &s->recs[2], *f = &s->recs[5];
    T_CHECK(a->line == 19 && a->index == 0 && a->size_bytes == 8 && a->count == 2 && !strcmp(a->type, "float") &&
                !strcmp(a->redop, "sum") && a->root == -1 && a->flags == 0,
            "row 0: line %d size %llu", a->line, (unsigned long long)a->size_bytes);
    half_is(&a->oop, 12.50, 0.00, 0.00, 0, "row 0 oop");
    half_is(&a->ip, 12.30, 0.00, 0.00, 0, "row 0 ip");
    T_CHECK(c->line == 21 && c->size_bytes == 1048576 && c->count == 262144, "row 2");
    half_is(&c->oop, 25.40, 41.28, 72.24, 0, "row 2 oop");
    half_is(&c->ip, 25.10, 41.78, 73.11, 0, "row 2 ip");
    T_CHECK(f->line == 24 && f->size_bytes == 1073741824ULL && f->count == 268435456ULL, "row 5");
    half_is(&f->oop, 4702.00, 228.36, 399.63, 0, "row 5 oop");
    half_is(&f->ip, 4699.00, 228.50, 399.88, 0, "row 5 ip");
    /* busbw = algbw * 2(n-1)/n to printing precision */
    for (int i = 0; i < s->nrecs; i++)
        T_CHECK(fabs(s->recs[i].oop.busbw_GBps - s->recs[i].oop.algbw_GBps * ar_nt_busbw_factor(AR_NT_ALL_REDUCE, 8)) <
                    0.01,
                "row %d busbw", i);
    ar_err e = {{0}};
    T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK, "fit: %s", e.msg);
    char w[256];
    T_CHECK(strstr(ar_nt_where(s, c, w, sizeof w), "h100_1node_allreduce.txt:21") != NULL, "where %s", w);
    ar_nt_free(s);
}

static void test_two_nodes_forced(void) {
    ar_nt_set *s = read_ok("h100_2node_ring.txt", NULL);
    if (!s) return;
    T_CHECK(s->nruns == 1 && s->nrecs == 4, "runs %d recs %d", s->nruns, s->nrecs);
    const ar_nt_run *r = &s->runs[0];
    T_CHECK(r->coll == AR_NT_ALL_REDUCE && !strcmp(r->program, "all_reduce_perf_mpi"), "coll");
    T_CHECK(r->nranks == 16 && r->nnodes == 2, "ranks %d nodes %d", r->nranks, r->nnodes);
    T_CHECK(!strcmp(r->nccl_version, "2.19.3"), "nccl %s", r->nccl_version);
    T_CHECK(!strcmp(r->algo, "Ring") && !strcmp(r->proto, "Simple"), "algo %s proto %s", r->algo, r->proto);
    T_CHECK(r->iters == 50, "iters %d", r->iters);
    /* NCCL log and mpirun lines between the rows are skipped */
    T_CHECK(s->recs[0].line == 32 && s->recs[1].line == 35 && s->recs[3].line == 37, "lines %d %d %d", s->recs[0].line,
            s->recs[1].line, s->recs[3].line);
    half_is(&s->recs[3].oop, 28400.0, 75.62, 141.78, 0, "2 GiB oop");
    half_is(&s->recs[3].ip, 28390.0, 75.64, 141.83, 0, "2 GiB ip");
    T_CHECK(s->recs[3].size_bytes == 2147483648ULL, "size");
    T_CHECK(r->avg_busbw_GBps == 103.516, "avg %g", r->avg_busbw_GBps);
    ar_nt_free(s);
}

static void test_validation_off_old_format(void) {
    ar_nt_set *s = read_ok("a100_validation_off.txt", &(ar_nt_opts){.coll = AR_NT_ALL_REDUCE});
    if (!s) return;
    const ar_nt_run *r = &s->runs[0];
    T_CHECK(s->nrecs == 3 && r->coll == AR_NT_ALL_REDUCE && !r->program[0], "recs %d coll %d", s->nrecs, r->coll);
    T_CHECK(r->nranks == 8 && r->nnodes == 1 && !r->nccl_version[0] && r->validation == 0, "meta");
    T_CHECK(r->devices[3].group == -1 && r->devices[3].pid == 31337 && !strcmp(r->devices[3].bus, "0x40") &&
                !strcmp(r->devices[3].name, "A100-SXM4-40GB") && !strcmp(r->devices[3].host, "p4d-node"),
            "old device line: group %d bus %s name %s", r->devices[3].group, r->devices[3].bus, r->devices[3].name);
    half_is(&s->recs[1].oop, 250.30, 134.06, 234.60, -1, "N/A oop");
    half_is(&s->recs[1].ip, 249.90, 134.27, 234.98, -1, "N/A ip");
    T_CHECK(s->recs[1].flags == 0, "flags %d", s->recs[1].flags);
    ar_err e = {{0}};
    T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_OOP, &e) == AR_OK, "fit N/A: %s", e.msg);
    ar_nt_free(s);
    /* without the hint, the table tells it: redop sum, no root, busbw/algbw 1.75 = 2(n-1)/n for its 8 ranks */
    s = read_ok("a100_validation_off.txt", NULL);
    if (!s) return;
    T_CHECK(s->runs[0].coll == AR_NT_ALL_REDUCE && s->runs[0].coll_from == AR_NT_FROM_COLUMNS &&
                s->runs[0].nranks == 8 && s->runs[0].nranks_from == AR_NT_FROM_FILE,
            "inferred: %s from %d, %d ranks", ar_nt_coll_name(s->runs[0].coll), s->runs[0].coll_from,
            s->runs[0].nranks);
    T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_OOP, &e) == AR_OK, "%s", e.msg);
    ar_nt_free(s);
}

static void test_wrong(void) {
    ar_nt_set *s = read_ok("wrong.txt", NULL);
    if (!s) return;
    T_CHECK(s->nrecs == 3, "wrong rows kept: %d", s->nrecs);
    const ar_nt_record *r = &s->recs[1];
    T_CHECK(r->line == 18 && r->flags == AR_NT_WRONG_OOP && r->oop.nwrong == 3 && r->ip.nwrong == 0, "flags %d",
            r->flags);
    T_CHECK(!strcmp(r->type, "bfloat16") && r->count == 131072, "type %s", r->type);
    T_CHECK(s->runs[0].oob_values == 1, "oob %ld", s->runs[0].oob_values);
    ar_err e = {{0}};
    ar_status st = ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e);
    const char *m = strstr(e.msg, "wrong.txt");
    T_CHECK(st == AR_EFAIL && m &&
                !strcmp(m, "wrong.txt:18: #wrong = 3 (out-of-place): the results were wrong; this row cannot be used "
                           "for fitting"),
            "%d %s", (int)st, e.msg);
    /* the in-place half alone is clean */
    T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_IP, &e) == AR_OK, "ip only: %s", e.msg);
    ar_nt_free(s);
}

static void test_truncated_and_bad(void) {
    read_fails("truncated_row.txt", NULL, AR_EINVAL,
               "truncated_row.txt:22: truncated: the file ends inside a row (6 of 13 fields)");
    read_fails("truncated_nofooter.txt", NULL, AR_EINVAL,
               "truncated_nofooter.txt:22: truncated: the table ends at the end of the file without the footer "
               "\"# Avg bus bandwidth\"");
    read_fails("bad_time.txt", NULL, AR_EINVAL,
               "bad_time.txt:22: field \"time\" (out-of-place): \"9x.20\" is not a number");
    read_fails("garbage.txt", NULL, AR_EINVAL,
               "garbage.txt: no nccl-tests table found (expected \"#  size  count  type ...\" or a -J JSON report)");
    read_fails("truncated.json", NULL, AR_EINVAL,
               "truncated.json:1: truncated: the JSON ends before its closing brace");
    read_fails("bad_field.json", NULL, AR_EINVAL, "bad_field.json: results[0].out_of_place.alg_bw: is not a number");
    /* allow_truncated keeps the complete rows */
    ar_nt_opts o = {.allow_truncated = 1};
    ar_nt_set *s = read_ok("truncated_row.txt", &o);
    if (s) {
        T_CHECK(s->nrecs == 3 && !s->runs[0].complete && isnan(s->runs[0].avg_busbw_GBps), "kept %d complete %d",
                s->nrecs, s->runs[0].complete);
        half_is(&s->recs[2].oop, 25.40, 41.28, 72.24, 0, "last complete row");
        ar_nt_free(s);
    }
    s = read_ok("truncated_nofooter.txt", &o);
    if (s) {
        T_CHECK(s->nrecs == 4 && !s->runs[0].complete && s->runs[0].nranks == 8, "kept %d", s->nrecs);
        ar_nt_free(s);
    }
    /* a hint that contradicts the file */
    read_fails("h100_1node_allreduce.txt", &(ar_nt_opts){.coll = AR_NT_ALL_GATHER}, AR_EINVAL,
               "h100_1node_allreduce.txt:2: the file runs \"all_reduce_perf\" but all_gather was asked for");
    ar_err e = {{0}};
    ar_nt_set *none = NULL;
    T_CHECK(ar_nt_read_file(path("no-such-file.txt"), NULL, &none, &e) == AR_EIO && !none, "missing: %s", e.msg);
}

static void test_two_runs_periter(void) {
    ar_nt_set *s = read_ok("two_runs.txt", NULL);
    if (!s) return;
    T_CHECK(s->nruns == 2 && s->nrecs == 3, "runs %d recs %d", s->nruns, s->nrecs);
    const ar_nt_run *a = &s->runs[0], *b = &s->runs[1];
    T_CHECK(a->coll == AR_NT_REDUCE_SCATTER && b->coll == AR_NT_ALL_GATHER, "colls %d %d", a->coll, b->coll);
    T_CHECK(a->cputime && !b->cputime, "cputime %d %d", a->cputime, b->cputime);
    T_CHECK(a->first_rec == 0 && a->nrecs == 2 && b->first_rec == 2 && b->nrecs == 1, "split");
    T_CHECK(a->nranks == 4 && a->nnodes == 1 && b->nranks == 4, "ranks");
    T_CHECK(!strcmp(a->nccl_version, "2.27.3") && !strcmp(b->nccl_version, "2.27.3"), "version from code: %s",
            a->nccl_version);
    T_CHECK(b->first_line == 21 && s->recs[2].line == 34 && s->recs[2].run == 1 && s->recs[2].index == 0,
            "run 2: %d %d", b->first_line, s->recs[2].line);
    /* per-iteration columns and the two-token timestamp are skipped */
    half_is(&s->recs[1].oop, 31.00, 0.53, 0.40, 0, "periter oop");
    half_is(&s->recs[1].ip, 30.50, 0.54, 0.40, 0, "periter ip");
    T_CHECK(!strcmp(s->recs[2].redop, "none"), "redop %s", s->recs[2].redop);
    half_is(&s->recs[2].ip, 24.50, 0.17, 0.13, 0, "all_gather ip");
    T_CHECK(a->avg_busbw_GBps == 0.3 && b->avg_busbw_GBps == 0.125, "avgs");
    ar_nt_free(s);
}

static void test_json(void) {
    ar_nt_set *s = read_ok("b200_allreduce_v3.json", NULL);
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(s->nruns == 1 && s->nrecs == 2 && r->format_json && r->complete, "json runs");
        T_CHECK(r->coll == AR_NT_ALL_REDUCE && !strcmp(r->program, "all_reduce_perf"), "json coll %s", r->program);
        T_CHECK(r->nranks == 8 && r->nnodes == 1 && !strcmp(r->nccl_version, "2.27.3"), "json meta %d %d %s", r->nranks,
                r->nnodes, r->nccl_version);
        T_CHECK(!r->algo[0] && !strcmp(r->proto, "LL128"), "json env: algo %s proto %s", r->algo, r->proto);
        T_CHECK(r->ngpus == 8 && r->iters == 20 && r->max_bytes == 67108864, "json config");
        T_CHECK(!strcmp(r->devices[7].bus, "0000:db:00") && !strcmp(r->devices[7].name, "NVIDIA B200"), "json dev");
        T_CHECK(r->avg_busbw_GBps == 123.5 && r->oob_values == 0, "json footer");
        const ar_nt_record *x = &s->recs[1];
        T_CHECK(x->line == 0 && x->index == 1 && x->size_bytes == 67108864 && x->count == 16777216 && x->root == -1,
                "json row");
        half_is(&x->oop, 390.5, 171.853685, 300.743949, 0, "json oop");
        half_is(&x->ip, 389.0, 172.51636, 301.90363, 0, "json ip");
        char w[256];
        T_CHECK(strstr(ar_nt_where(s, x, w, sizeof w), "b200_allreduce_v3.json: results[1]") != NULL, "%s", w);
        ar_err e = {{0}};
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK, "%s", e.msg);
        ar_nt_free(s);
    }
    s = read_ok("a100_allgather_v1.json", NULL);
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(r->coll == AR_NT_ALL_GATHER && r->nranks == 16 && r->nnodes == 2, "v1: coll %d ranks %d nodes %d",
                r->coll, r->nranks, r->nnodes);
        T_CHECK(!strcmp(r->algo, "Tree") && !strcmp(r->nccl_version, "2.18.5") && r->avg_busbw_GBps == 31.25,
                "v1: algo %s nccl %s", r->algo, r->nccl_version);
        const ar_nt_record *x = &s->recs[1];
        T_CHECK(!x->oop.present && !strcmp(x->type, "half") && !strcmp(x->redop, "none"), "v1 row");
        half_is(&x->ip, 410.0, 81.840078, 76.725073, -1, "v1 ip (cpu_time, nwrong null)");
        ar_err e = {{0}};
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_IP, &e) == AR_OK, "%s", e.msg);
        ar_status st = ar_nt_check_fit(s, AR_NT_HALF_OOP, &e);
        T_CHECK(st == AR_EINVAL &&
                    strstr(e.msg, "a100_allgather_v1.json: results[0]: the row has no out-of-place half"),
                "%s", e.msg);
        ar_nt_free(s);
    }
    s = read_ok("wrong.json", NULL);
    if (s) {
        ar_err e = {{0}};
        T_CHECK(s->recs[1].flags == AR_NT_WRONG_IP, "flags %d", s->recs[1].flags);
        ar_status st = ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e);
        T_CHECK(st == AR_EFAIL && strstr(e.msg, "wrong.json: results[1]: #wrong = 7 (in-place)"), "%s", e.msg);
        ar_nt_free(s);
    }
}

static void test_multi_file(void) {
    const char *files[3] = {path("h100_1node_allreduce.txt"), path("h100_2node_ring.txt"),
                            path("b200_allreduce_v3.json")};
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    T_CHECK(ar_nt_read_files(files, 3, NULL, &s, &e) == AR_OK && s, "%s", e.msg);
    if (!s) return;
    T_CHECK(s->nfiles == 3 && s->nruns == 3 && s->nrecs == 12, "files %d runs %d recs %d", s->nfiles, s->nruns,
            s->nrecs);
    int nodes[3] = {1, 2, 1}, ranks[3] = {8, 16, 8};
    for (int i = 0; i < 3; i++)
        T_CHECK(s->runs[i].file == i && s->runs[i].nnodes == nodes[i] && s->runs[i].nranks == ranks[i], "run %d", i);
    T_CHECK(!strcmp(s->runs[1].algo, "Ring") && !s->runs[0].algo[0], "algo per file");
    const ar_nt_record *r = &s->recs[7];
    T_CHECK(r->file == 1 && r->run == 1 && r->line == 35 && r->size_bytes == 16777216, "rec 7: file %d line %d",
            r->file, r->line);
    T_CHECK(s->recs[11].file == 2 && s->recs[11].line == 0 && s->recs[11].index == 1, "rec 11");
    T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK, "%s", e.msg);
    ar_nt_free(s);
    /* one bad file fails the set, naming that file */
    const char *bad[2] = {path("h100_1node_allreduce.txt"), path("wrong.txt")};
    T_CHECK(ar_nt_read_files(bad, 2, NULL, &s, &e) == AR_OK, "%s", e.msg);
    if (s) {
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_EFAIL && strstr(e.msg, "wrong.txt:18:"), "%s", e.msg);
        ar_nt_free(s);
    }
    const char *bad2[2] = {path("h100_1node_allreduce.txt"), path("bad_time.txt")};
    T_CHECK(ar_nt_read_files(bad2, 2, NULL, &s, &e) == AR_EINVAL && !s && strstr(e.msg, "bad_time.txt:22:"), "%s",
            e.msg);
}

/* text (named name, read with opts) is refused with the message want, and nothing is kept. */
static void refused(const char *name, const char *text, const ar_nt_opts *opts, const char *want) {
    ar_nt_set *s = NULL;
    ar_err e = {{0}};
    T_CHECK(ar_nt_read_mem(name, text, strlen(text), opts, &s, &e) == AR_EINVAL && !s && !strcmp(e.msg, want), "%s: %s",
            name, e.msg);
    ar_nt_free(s);
}

/* In-memory variants: the older "error" column without root, a blank out-of-place
 * half, NUL bytes, rows that do not fit the header. */
static void test_mem(void) {
    const char *old =
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 "
        "validation: 1\n"
        "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   "
        "busbw  error\n"
        "           8             2   float     sum    10.00    0.00    0.00  0e+00    9.50    0.00    "
        "0.00  0e+00\n"
        "          16             4   float     sum    1.2e+05    0.00    0.00  2e+00    10.50    0.00    "
        "0.00  0e+00\n"
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0 \n";
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    T_CHECK(ar_nt_read_mem("old.txt", old, strlen(old), NULL, &s, &e) == AR_OK && s, "%s", e.msg);
    if (s) {
        /* the old "error" column is the largest numerical error, not a count of wrong elements */
        T_CHECK(s->nrecs == 2 && s->recs[1].root == -1 && s->recs[1].oop.time_us == 1.2e5 &&
                    s->recs[1].oop.nwrong == -1 && s->recs[1].oop.maxerr == 2 && s->recs[1].ip.maxerr == 0 &&
                    s->recs[1].flags == 0,
                "old: %g %g %g", s->recs[1].oop.time_us, s->recs[1].oop.nwrong, s->recs[1].oop.maxerr);
        ar_nt_free(s);
    }
    const char *blank = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
                        "  algbw   busbw #wrong\n"
                        "        1024           256     float     sum      -1                                      "
                        "20.00    0.05    0.09      0\n"
                        "# Avg bus bandwidth    : 0.09 \n";
    T_CHECK(ar_nt_read_mem("blank.txt", blank, strlen(blank), &(ar_nt_opts){.coll = AR_NT_ALL_REDUCE}, &s, &e) ==
                    AR_OK &&
                s,
            "%s", e.msg);
    if (s) {
        T_CHECK(!s->recs[0].oop.present, "blank oop");
        half_is(&s->recs[0].ip, 20.00, 0.05, 0.09, 0, "blank: ip");
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_OOP, &e) == AR_EINVAL && strstr(e.msg, "blank.txt:2: the row has no "
                                                                                     "out-of-place half"),
                "%s", e.msg);
        ar_nt_free(s);
    }
    const char nul[] = "#  size count type redop root time algbw busbw #wrong\n1\0 2\n";
    T_CHECK(ar_nt_read_mem("nul.txt", nul, sizeof nul - 1, NULL, &s, &e) == AR_EINVAL && !s &&
                !strcmp(e.msg, "nul.txt:2: NUL byte: not an nccl-tests text file"),
            "%s", e.msg);
    refused("few.txt",
            "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 1.0 0.0\n"
            "# Avg bus bandwidth : 0\n",
            NULL, "few.txt:2: a row of this table has 9 fields, found 7");
    refused("neg.txt",
            "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 1.0 -0.5 0 0\n"
            "# Avg bus bandwidth : 0\n",
            NULL, "neg.txt:2: field \"algbw\" (out-of-place): \"-0.5\" is negative");
    refused("sz.txt", "#  size count type redop root time algbw busbw #wrong\n8k 2 float sum -1 1.0 0.5 0 0\n", NULL,
            "sz.txt:2: field \"size\": \"8k\" is not a byte count");
    refused("junk.txt",
            "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 1.0 0.5 0 0\n"
            "oops\n# Avg bus bandwidth : 0\n",
            NULL, "junk.txt:3: not a row of the table: \"oops\"");
    const char *nan = "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 nan 0.5 0 0\n"
                      "# Avg bus bandwidth : 0\n";
    T_CHECK(ar_nt_read_mem("nan.txt", nan, strlen(nan), &(ar_nt_opts){.coll = AR_NT_ALL_REDUCE}, &s, &e) == AR_OK, "%s",
            e.msg);
    if (s) {
        T_CHECK(s->recs[0].flags == AR_NT_NAN && isnan(s->recs[0].oop.time_us) && !s->recs[0].ip.present, "nan row");
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_EINVAL &&
                    !strcmp(e.msg, "nan.txt:2: time nan us (out-of-place): not a usable measurement"),
                "%s", e.msg);
        ar_nt_free(s);
    }
    T_CHECK(ar_nt_check_fit(NULL, AR_NT_HALF_BOTH, &e) == AR_EINVAL, "empty set");
}

/* The reference corpus experiments/reference/published.csv, and bad corpora. */
static void test_reference(void) {
    ar_nt_ref *v = NULL;
    int n = 0;
    ar_err e = {{0}};
    T_CHECK(ar_nt_read_reference(AR_NT_REF, &v, &n, &e) == AR_OK, "%s", e.msg);
    T_CHECK(n == 7, "entries %d", n);
    if (n == 7) {
        T_CHECK(v[0].line == 5 && !strcmp(v[0].preset, "dgx-a100") && v[0].coll == AR_NT_ALL_REDUCE &&
                    v[0].ranks == 8 && v[0].nodes == 1 && v[0].size_bytes == 8589934592ULL && v[0].busbw_GBps == 230 &&
                    isnan(v[0].algbw_GBps) && !strcmp(v[0].algorithm, "ring") && !strcmp(v[0].kind, "stated") &&
                    !strcmp(v[0].source, "nccl-tests#149"),
                "row 0: line %d %s", v[0].line, v[0].preset);
        T_CHECK(v[1].busbw_GBps == 230.8 && v[1].size_bytes == 1073741824 && !strcmp(v[1].nccl_version, "2.9.9") &&
                    !v[1].algorithm[0] && !strcmp(v[1].preset, "aws-p4d"),
                "p4d");
        T_CHECK(v[3].busbw_GBps == 480 && v[3].algbw_GBps == 275 && v[3].size_bytes == 0 &&
                    !strcmp(v[3].algorithm, "nvls"),
                "h100 nvls");
        /* busbw = algbw * 2(n-1)/n where both are given */
        T_NEAR(v[3].algbw_GBps * ar_nt_busbw_factor(v[3].coll, v[3].ranks), v[3].busbw_GBps, 0.01, "480 vs 275");
        T_CHECK(!strcmp(v[6].nccl_version, "2.20.3") && v[6].busbw_GBps == 475 &&
                    !strcmp(v[6].source, "nccl-tests#272"),
                "h200");
        for (int i = 0; i < n; i++)
            T_CHECK(v[i].source[0] && v[i].system[0] && v[i].ranks == 8 && v[i].busbw_GBps > 200, "row %d", i);
    }
    free(v);
    const char *bad[][2] = {
        {"system,busbw_GBps\nx,fast\n", "ref.csv:2: field \"busbw_GBps\": \"fast\" is not a positive number"},
        {"system,ranks,busbw_GBps\nx,0,1\n", "ref.csv:2: field \"ranks\": \"0\" is not a positive count"},
        {"system,busbw_GBps\nx,1,2\n", "ref.csv:2: 3 fields, the header has 2"},
        {"sys,busbw_GBps\nx,1\n", "ref.csv:1: header lacks \"system\" or \"busbw_GBps\""},
        {"system,collective,busbw_GBps\nx,allreduce3,1\n",
         "ref.csv:2: field \"collective\": \"allreduce3\" is not an nccl-tests collective"},
        {"# only a comment\n\nsystem,busbw_GBps\n", "ref.csv: no reference measurements"},
    };
    char tmp[] = "/tmp/test_nccltests_ref_XXXXXX";
    int fd = mkstemp(tmp);
    T_CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(tmp, "w");
        if (!f) break;
        fputs(bad[i][0], f);
        fclose(f);
        v = NULL;
        ar_status st = ar_nt_read_reference(tmp, &v, &n, &e);
        const char *m = strstr(e.msg, ":") ? e.msg + strlen(tmp) : e.msg;
        char want[256];
        snprintf(want, sizeof want, "%s", bad[i][1] + strlen("ref.csv"));
        T_CHECK(st == AR_EINVAL && v == NULL && !strncmp(e.msg, tmp, strlen(tmp)) && !strcmp(m, want),
                "bad corpus %zu: %d %s (want ...%s)", i, (int)st, e.msg, want);
    }
    remove(tmp);
}

/* ---- Synthetic round trip: nccl-tests files written from (alpha, beta) per size
 * with fixed-seed noise, read back; the parsed times equal the generated ones to
 * the printed precision. Text (nccl-tests' width-7 / width-6 number rule) and
 * JSON ("%lf"), over 1, 2 and 4 nodes of 8 GPUs with NCCL_ALGO forced on some. */

/* xorshift64*: a fixed sequence, uniform in [-1, 1) */
static double rt_noise(uint64_t *x) {
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return (double)((*x * 2685821657736338717ULL) >> 11) / 9007199254740992.0 * 2 - 1;
}

/* nccl-tests' getFloatStr: "%*.2f" if it fits the width, else .1f, .0f, then %e.
 * *ulp gets half the unit of the last printed digit. */
static void rt_float(double v, int width, char *buf, size_t n, double *half_ulp) {
    static const int dec[3] = {2, 1, 0};
    for (int i = 0; i < 3; i++)
        if (snprintf(buf, n, "%*.*f", width, dec[i], v) <= width) {
            *half_ulp = 0.5 * pow(10, -dec[i]);
            return;
        }
    snprintf(buf, n, width >= 7 ? "%*.1e" : "%*.0e", width, v);
    *half_ulp = 0.5 * pow(10, floor(log10(v)) - (width >= 7 ? 1 : 0));
}

#define RT_NSIZES 12

typedef struct rt_case {
    int nodes;
    double alpha_us, beta_us_per_B; /* time = alpha + beta * size, then noise */
    const char *algo;               /* NCCL_ALGO, or NULL */
    int json;
} rt_case;

static void rt_times(const rt_case *c, uint64_t *seed, uint64_t *sizes, double (*t)[2]) {
    for (int i = 0; i < RT_NSIZES; i++) {
        sizes[i] = (uint64_t)8 << (2 * i); /* 8 B .. 32 MiB */
        double base = c->alpha_us + c->beta_us_per_B * (double)sizes[i];
        for (int h = 0; h < 2; h++) t[i][h] = base * (1 + 0.03 * rt_noise(seed));
    }
}

static int rt_write(const char *file, const rt_case *c, const uint64_t *sizes, double (*t)[2]) {
    FILE *f = fopen(file, "w");
    if (!f) return 0;
    int n = 8 * c->nodes;
    double fac = 2.0 * (n - 1) / n;
    if (c->json) {
        fprintf(f,
                "{\"version\":3,\"args\":[\"./build/all_reduce_perf\"],\"env\":[\"PATH=/bin\"%s%s%s],"
                "\"nccl_version\":22703,\"config\":{\"nthreads\":1,\"ngpus\":1,\"devices\":[",
                c->algo ? ",\"NCCL_ALGO=" : "", c->algo ? c->algo : "", c->algo ? "\"" : "");
        for (int r = 0; r < n; r++)
            fprintf(f,
                    "%s{\"rank\":%d,\"group\":0,\"pid\":%d,\"hostname\":\"node%d\",\"device\":%d,"
                    "\"device_hex\":\"0000:%02x:00\",\"device_info\":\"NVIDIA H100 80GB HBM3\"}",
                    r ? "," : "", r, 1000 + r, r / 8, r % 8, 0x18 + r % 8);
        fprintf(f, "]},\"results\":[");
        for (int i = 0; i < RT_NSIZES; i++) {
            fprintf(f, "%s{\"size\":%llu,\"count\":%llu,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"%6i\"",
                    i ? "," : "", (unsigned long long)sizes[i], (unsigned long long)sizes[i] / 4, -1);
            for (int h = 0; h < 2; h++) {
                double alg = (double)sizes[i] / t[i][h] / 1e3;
                fprintf(f, ",\"%s\":{\"time\":%lf,\"alg_bw\":%lf,\"bus_bw\":%lf,\"nwrong\":0}",
                        h ? "in_place" : "out_of_place", t[i][h], alg, alg * fac);
            }
            fprintf(f, ",\"actual_iterations\":20,\"experiment_name\":\"\"}");
        }
        fprintf(f,
                "],\"out_of_bounds\":{\"count\":0,\"okay\":\"true\"},\"average_bus_bandwidth\":{\"bandwidth\":%lf,"
                "\"okay\":\"unchecked\"}}",
                1.0);
    } else {
        fprintf(
            f,
            "# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703\n"
            "# Collective test starting: all_reduce_perf\n"
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 33554432 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0\n#\n# Using devices\n");
        for (int r = 0; r < n; r++)
            fprintf(f, "#  Rank %2d Group %2d Pid %6d on %10s%d device %2d [%04x:%02x:%02x] %s\n", r, 0, 1000 + r,
                    "node", r / 8, r % 8, 0, 0x18 + r % 8, 0, "NVIDIA H100 80GB HBM3");
        fprintf(f, "node0:1000:1000 [0] NCCL INFO NCCL version 2.27.3+cuda12.9\n");
        if (c->algo) fprintf(f, "node0:1000:1010 [0] NCCL INFO NCCL_ALGO set by environment to %s\n", c->algo);
        fprintf(
            f,
            "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
            "   busbw #wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
            "     (us)  (GB/s)  (GB/s)\n");
        for (int i = 0; i < RT_NSIZES; i++) {
            fprintf(f, "%12llu  %12llu  %8s  %6s  %6i", (unsigned long long)sizes[i], (unsigned long long)sizes[i] / 4,
                    "float", "sum", -1);
            for (int h = 0; h < 2; h++) {
                char ts[32], as[32], bs[32];
                double u;
                double alg = (double)sizes[i] / t[i][h] / 1e3;
                rt_float(t[i][h], 7, ts, sizeof ts, &u);
                rt_float(alg, 6, as, sizeof as, &u);
                rt_float(alg * fac, 6, bs, sizeof bs, &u);
                fprintf(f, "  %7s  %6s  %6s  %6g", ts, as, bs, 0.0);
            }
            fputc('\n', f);
        }
        fprintf(f, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1 \n#\n"
                   "# Collective test concluded: all_reduce_perf\n");
    }
    return fclose(f) == 0;
}

static void test_round_trip(void) {
    const rt_case cases[4] = {{1, 12.0, 1.0 / 350e3, NULL, 0},
                              {2, 25.0, 1.0 / 95e3, "Ring", 0},
                              {4, 40.0, 1.0 / 88e3, "Tree", 0},
                              {2, 22.0, 1.0 / 100e3, "Ring", 1}};
    char names[4][64];
    const char *paths[4];
    uint64_t sizes[4][RT_NSIZES];
    double t[4][RT_NSIZES][2];
    uint64_t seed = 0x5eed2026ULL;
    for (int k = 0; k < 4; k++) {
        snprintf(names[k], sizeof names[k], "/tmp/test_nccltests_rt_%d_%d.%s", (int)getpid(), k,
                 cases[k].json ? "json" : "txt");
        paths[k] = names[k];
        rt_times(&cases[k], &seed, sizes[k], t[k]);
        T_CHECK(rt_write(names[k], &cases[k], sizes[k], t[k]), "write %s", names[k]);
    }
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    T_CHECK(ar_nt_read_files(paths, 4, NULL, &s, &e) == AR_OK && s, "%s", e.msg);
    if (s) {
        T_CHECK(s->nruns == 4 && s->nrecs == 4 * RT_NSIZES, "runs %d recs %d", s->nruns, s->nrecs);
        int checked = 0;
        for (int k = 0; k < 4 && s->nruns == 4; k++) {
            const ar_nt_run *r = &s->runs[k];
            T_CHECK(r->coll == AR_NT_ALL_REDUCE && r->nnodes == cases[k].nodes && r->nranks == 8 * cases[k].nodes &&
                        !strcmp(r->nccl_version, "2.27.3") && r->format_json == cases[k].json,
                    "run %d: nodes %d ranks %d nccl %s", k, r->nnodes, r->nranks, r->nccl_version);
            T_CHECK(!strcmp(r->algo, cases[k].algo ? cases[k].algo : ""), "run %d algo %s", k, r->algo);
            int n = 8 * cases[k].nodes;
            for (int i = 0; i < RT_NSIZES && i < r->nrecs; i++) {
                const ar_nt_record *x = &s->recs[r->first_rec + i];
                T_CHECK(x->size_bytes == sizes[k][i] && x->count == sizes[k][i] / 4, "run %d row %d size", k, i);
                for (int h = 0; h < 2; h++) {
                    const ar_nt_timing *m = h ? &x->ip : &x->oop;
                    double want = t[k][i][h], tol, alg = (double)sizes[k][i] / want / 1e3, tb;
                    char buf[32];
                    if (cases[k].json) {
                        tol = tb = 5e-7 * 1.000001;
                    } else {
                        rt_float(want, 7, buf, sizeof buf, &tol);
                        rt_float(alg * 2.0 * (n - 1) / n, 6, buf, sizeof buf, &tb);
                        tol *= 1.000001;
                        tb *= 1.000001;
                    }
                    T_CHECK(fabs(m->time_us - want) <= tol, "run %d row %d half %d: time %.9g want %.9g (tol %g)", k, i,
                            h, m->time_us, want, tol);
                    T_CHECK(fabs(m->busbw_GBps - alg * 2.0 * (n - 1) / n) <= tb, "run %d row %d half %d: busbw %.9g", k,
                            i, h, m->busbw_GBps);
                    checked++;
                }
            }
        }
        T_CHECK(checked == 4 * RT_NSIZES * 2, "checked %d halves", checked);
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK, "%s", e.msg);
        ar_nt_free(s);
    }
    for (int k = 0; k < 4; k++) remove(names[k]);
}

static void test_names(void) {
    T_CHECK(ar_nt_coll_parse("./build/all_reduce_perf_mpi") == AR_NT_ALL_REDUCE, "perf_mpi");
    T_CHECK(ar_nt_coll_parse("ReduceScatter") == AR_NT_REDUCE_SCATTER, "camel");
    T_CHECK(ar_nt_coll_parse("reduce_perf") == AR_NT_REDUCE, "reduce");
    T_CHECK(ar_nt_coll_parse("alltoallv_perf") == AR_NT_ALLTOALLV, "alltoallv");
    T_CHECK(ar_nt_coll_parse("sendrecv") == AR_NT_SENDRECV, "sendrecv");
    T_CHECK(ar_nt_coll_parse("all_reduce_perfx") == AR_NT_ALL_REDUCE, "suffix after _perf");
    T_CHECK(ar_nt_coll_parse("allreduce2") == AR_NT_COLL_UNKNOWN && ar_nt_coll_parse(NULL) == AR_NT_COLL_UNKNOWN,
            "unknown");
    for (int c = 1; c < AR_NT_NCOLL; c++)
        T_CHECK(ar_nt_coll_parse(ar_nt_coll_name((ar_nt_coll)c)) == (ar_nt_coll)c, "round trip %d", c);
    T_NEAR(ar_nt_busbw_factor(AR_NT_ALL_REDUCE, 8), 1.75, 1e-15, "allreduce 8");
    T_NEAR(ar_nt_busbw_factor(AR_NT_ALL_GATHER, 16), 0.9375, 1e-15, "allgather 16");
    T_CHECK(ar_nt_busbw_factor(AR_NT_BROADCAST, 8) == 1 && ar_nt_busbw_factor(AR_NT_COLL_UNKNOWN, 8) == 0 &&
                ar_nt_busbw_factor(AR_NT_ALL_REDUCE, 0) == 0,
            "factors");
}

/* The formats people paste (tests/data/nccltests/fmt_*.txt, written from nccl-tests' formats): the
 * collective, rank count and numbers read, and where each fact came from. */
static void test_formats(void) {
    ar_err e = {{0}};
    ar_nt_set *s = read_ok("fmt_old_error.txt", NULL); /* before 2.13: no Group, no root, "error" column */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(s->nruns == 1 && s->nrecs == 6 && r->coll == AR_NT_ALL_REDUCE && r->coll_from == AR_NT_FROM_COLUMNS &&
                    r->nranks == 4 && r->nranks_from == AR_NT_FROM_FILE && r->footer && r->devices[0].group == -1,
                "old: %d runs %d recs %s/%d %d ranks", s->nruns, s->nrecs, ar_nt_coll_name(r->coll), r->coll_from,
                r->nranks);
        const ar_nt_record *x = &s->recs[1];
        T_CHECK(x->size_bytes == 65536 && x->oop.time_us == 20.55 && x->oop.busbw_GBps == 4.78 &&
                    x->oop.maxerr == 5e-07 && x->oop.nwrong == -1 && x->ip.maxerr == 0 && x->flags == 0,
                "old row: %g %g %g", x->oop.time_us, x->oop.maxerr, x->oop.nwrong);
        T_CHECK(ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK, "old: a 5e-07 error is not wrong: %s", e.msg);
        ar_nt_free(s);
    }
    /* a markdown copy: '#' stripped, indented, fenced, no footer; the command line names all_gather */
    read_fails("fmt_markdown.txt", NULL, AR_EINVAL,
               "fmt_markdown.txt:26: truncated: the table ends at this line without the footer \"# Avg bus "
               "bandwidth\"");
    ar_nt_opts nf = {.allow_nofooter = 1};
    s = read_ok("fmt_markdown.txt", &nf);
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(s->nruns == 1 && s->nrecs == 6 && r->coll == AR_NT_ALL_GATHER && r->coll_from == AR_NT_FROM_COMMAND &&
                    r->nranks == 8 && r->nnodes == 1 && !r->footer && r->complete && r->ngpus == 8,
                "markdown: %d recs %s/%d %d ranks footer %d", s->nrecs, ar_nt_coll_name(r->coll), r->coll_from,
                r->nranks, r->footer);
        half_is(&s->recs[0].oop, 12.01, 0.09, 0.07, 0, "markdown row 0 oop");
        T_CHECK(s->recs[5].size_bytes == 1073741824 && s->recs[5].count == 33554432 &&
                    !strcmp(s->recs[5].redop, "none"),
                "markdown last row");
        ar_nt_free(s);
    }
    s = read_ok("fmt_tag_output.txt", NULL); /* mpirun --tag-output, all_reduce_perf_mpi on 2 nodes */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(s->nruns == 1 && s->nrecs == 6 && r->coll == AR_NT_ALL_REDUCE && r->coll_from == AR_NT_FROM_COMMAND &&
                    r->nranks == 16 && r->nnodes == 2 && !strcmp(r->nccl_version, "2.21.5") && r->footer,
                "tag-output: %d recs %s/%d %d ranks %d nodes %s", s->nrecs, ar_nt_coll_name(r->coll), r->coll_from,
                r->nranks, r->nnodes, r->nccl_version);
        half_is(&s->recs[2].oop, 51.65, 20.30, 38.06, 0, "tag-output row 2 oop");
        ar_nt_free(s);
    }
    s = read_ok("fmt_ray.txt", NULL); /* Ray/SkyPilot prefixes, the newer header */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(s->nruns == 1 && s->nrecs == 6 && r->coll == AR_NT_REDUCE_SCATTER && r->coll_from == AR_NT_FROM_FILE &&
                    r->nranks == 8 && r->nnodes == 1 && !strcmp(r->tests_version, "2.16.4"),
                "ray: %d recs %s %d ranks %d nodes", s->nrecs, ar_nt_coll_name(r->coll), r->nranks, r->nnodes);
        half_is(&s->recs[0].oop, 30.01, 0.03, 0.03, 0, "ray row 0 oop");
        ar_nt_free(s);
    }
    s = read_ok("fmt_dev_cut.txt", NULL); /* srun --label, a device list cut short: 128 ranks from busbw/algbw */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(r->coll == AR_NT_ALL_REDUCE && r->nranks == 128 && r->nranks_from == AR_NT_FROM_COLUMNS && r->dev_cut &&
                    r->ndev_shown == 4 && r->nnodes == 16 && s->nrecs == 6,
                "cut: %d ranks from %d, shown %d, %d nodes", r->nranks, r->nranks_from, r->ndev_shown, r->nnodes);
        half_is(&s->recs[1].oop, 60.36, 1.09, 2.15, 0, "cut row 1 oop");
        ar_nt_free(s);
    }
    s = read_ok("fmt_table_only.txt", NULL); /* the table alone; one in-place half with #wrong 17 */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(r->coll == AR_NT_ALL_REDUCE && r->coll_from == AR_NT_FROM_COLUMNS && r->nranks == 8 &&
                    r->nranks_from == AR_NT_FROM_COLUMNS && r->nnodes == 0 && s->nrecs == 6,
                "table only: %s %d ranks", ar_nt_coll_name(r->coll), r->nranks);
        T_CHECK(s->recs[2].ip.nwrong == 17 && s->recs[2].flags == AR_NT_WRONG_IP, "wrong ip");
        FILE *f = tmpfile();
        int lines = f ? ar_nt_print_assumed(s, "fit", f) : -1;
        char buf[400] = "";
        if (f) rewind(f), fgets(buf, sizeof buf, f), fclose(f);
        T_CHECK(lines == 2 && strstr(buf, "arlab fit: ") &&
                    strstr(buf, "fmt_table_only.txt:1: collective all_reduce "
                                "assumed from the table"),
                "%d lines: %s", lines, buf);
        T_CHECK(ar_nt_drop_wrong(s) == 1 && s->nrecs == 6 && !s->recs[2].ip.present && s->recs[2].oop.present &&
                    s->recs[2].flags == 0 && ar_nt_check_fit(s, AR_NT_HALF_BOTH, &e) == AR_OK,
                "drop wrong: %s", e.msg);
        ar_nt_free(s);
    }
    s = read_ok("fmt_no_coll.txt", NULL); /* redop none, no root: all_gather or alltoall */
    if (s) {
        T_CHECK(s->runs[0].coll == AR_NT_COLL_UNKNOWN && s->runs[0].nranks == 0, "no coll: unknown");
        ar_nt_free(s);
    }
    ar_nt_opts hint = {.coll = AR_NT_ALL_GATHER, .coll_soft = 1, .ranks = 99, .algo = "Ring", .proto = "Simple"};
    s = read_ok("fmt_no_coll.txt", &hint); /* --coll fills it in; the ranks then come from busbw/algbw, not --ranks */
    if (s) {
        const ar_nt_run *r = &s->runs[0];
        T_CHECK(r->coll == AR_NT_ALL_GATHER && r->coll_from == AR_NT_FROM_OPTION && r->nranks == 8 &&
                    r->nranks_from == AR_NT_FROM_COLUMNS && !strcmp(r->algo, "Ring") && r->algo_hint &&
                    !strcmp(r->proto, "Simple") && r->proto_hint,
                "hinted: %s/%d %d ranks/%d %s", ar_nt_coll_name(r->coll), r->coll_from, r->nranks, r->nranks_from,
                r->algo);
        ar_nt_free(s);
    }
    /* a soft hint does not fight a file that names another collective */
    s = read_ok("two_runs.txt", &hint);
    if (s) {
        T_CHECK(s->nruns == 2 && s->runs[0].coll == AR_NT_REDUCE_SCATTER && s->runs[1].coll == AR_NT_ALL_GATHER &&
                    ar_nt_keep_coll(s, AR_NT_ALL_GATHER) == 1 && s->nruns == 1 && s->runs[0].coll == AR_NT_ALL_GATHER &&
                    s->recs[0].run == 0 && s->nrecs == s->runs[0].nrecs,
                "keep_coll");
        ar_nt_free(s);
    }
    /* broadcast (a root, redop none): factor 1 says nothing of the ranks; --ranks does */
    const char *bc = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                     "1048576 262144 float none 0 50.0 20.97 20.97 0 50.0 20.97 20.97 0\n# Avg bus bandwidth : 20.97\n";
    T_CHECK(ar_nt_read_mem("bc.txt", bc, strlen(bc), NULL, &s, &e) == AR_OK && s &&
                s->runs[0].coll == AR_NT_BROADCAST && s->runs[0].nranks == 0,
            "broadcast: %s", e.msg);
    ar_nt_free(s);
    T_CHECK(ar_nt_read_mem("bc.txt", bc, strlen(bc), &(ar_nt_opts){.ranks = 4}, &s, &e) == AR_OK && s &&
                s->runs[0].nranks == 4 && s->runs[0].nranks_from == AR_NT_FROM_OPTION,
            "broadcast --ranks: %s", e.msg);
    ar_nt_free(s);
    /* a row after the line that ended the table is not dropped silently */
    refused("split.txt",
            "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 1.0 0.5 0 0\n```\n"
            "16 4 float sum -1 1.0 0.5 0 0\n",
            &nf, "split.txt:3: not a row of the table: \"```\"");
}

/* The public corpus (experiments/reference/logs, MANIFEST.tsv): every log read as published, with the
 * collective, rank count, node count and row count the manifest says, and every row's busbw = algbw x
 * nccl-tests' bus factor of that collective and rank count (to the printed digits): what was read is what
 * nccl-tests computed with, not a silent misread. The nccl column: a log with its own version line has that
 * release stated (X.Y.Z); a release inferred (~X.Y) or unknown (-) is on a log with no version line.
 * Counted by hand from the manifest: 8 stated (2.9.9, 2.18.5, 2.24.3, 5 x 2.26.2), 4 of them in the log itself
 * (aws-efa-eks's "NCCL version 2.9.9", dstack Lambda's "nccl-library=22602", the HGX's "NCCL version
 * 2.26.2", Voltage Park's "NCCL version 2.24.3"); 3 inferred (~2.26, gj-aion's three logs of nccl-tests#309). */
#define AR_NT_CORPUS AR_NT_DATA "/../../../experiments/reference/logs"
static void test_corpus(void) {
    FILE *m = fopen(AR_NT_CORPUS "/MANIFEST.tsv", "r");
    T_CHECK(m != NULL, "open %s", AR_NT_CORPUS "/MANIFEST.tsv");
    if (!m) return;
    char line[1024];
    int nfiles = 0, nstated = 0, nstated_log = 0, ninferred = 0;
    while (fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *f[11] = {0};
        int nf = 0;
        for (char *save = NULL, *tok = strtok_r(line, "\t\n", &save); tok && nf < 11;
             tok = strtok_r(NULL, "\t\n", &save))
            f[nf++] = tok;
        T_CHECK(nf == 10, "manifest line with %d fields", nf);
        if (nf != 10) continue;
        const char *rel = f[9] + (f[9][0] == '~');
        size_t nd = strspn(rel, "0123456789."), ndots = 0;
        for (const char *c = rel; *c; c++) ndots += *c == '.';
        T_CHECK(!strcmp(f[9], "-") ||
                    (nd == strlen(rel) && isdigit((unsigned char)rel[0]) && ndots == (f[9][0] == '~' ? 1u : 2u)),
                "%s: nccl column \"%s\" is not -, X.Y.Z or ~X.Y", f[0], f[9]);
        nstated += f[9][0] != '-' && f[9][0] != '~';
        ninferred += f[9][0] == '~';
        nfiles++;
        ar_nt_opts o = {.coll_soft = 1, .allow_nofooter = 1};
        if (!strncmp(f[5], "--coll ", 7)) o.coll = ar_nt_coll_parse(f[5] + 7);
        if (!strncmp(f[5], "--ranks ", 8)) o.ranks = atoi(f[5] + 8);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", AR_NT_CORPUS, f[0]);
        ar_nt_set *s = NULL;
        ar_err e = {{0}};
        ar_status st = ar_nt_read_file(path, &o, &s, &e);
        T_CHECK(st == AR_OK && s, "%s: %s", f[0], e.msg);
        if (!s) continue;
        int runs = 0, ri = -1;
        for (int i = 0; i < s->nruns; i++)
            if (s->runs[i].nrecs) runs++, ri = i;
        T_CHECK(runs == 1, "%s: %d runs with rows", f[0], runs);
        if (ri >= 0 && s->runs[ri].nccl_version[0]) {
            const char *v = s->runs[ri].nccl_version;
            size_t n = strlen(f[9]);
            T_CHECK(f[9][0] != '-' && f[9][0] != '~' && !strncmp(v, f[9], n) && (!v[n] || v[n] == '+'),
                    "%s: the log says NCCL %s, the manifest %s", f[0], v, f[9]);
            nstated_log++;
        }
        if (ri >= 0) {
            const ar_nt_run *r = &s->runs[ri];
            T_CHECK(!strcmp(ar_nt_coll_name(r->coll), f[1]) && r->nranks == atoi(f[2]) && r->nnodes == atoi(f[3]) &&
                        r->nrecs == atoi(f[4]),
                    "%s: read %s, %d ranks, %d nodes, %d rows; the manifest says %s %s %s %s", f[0],
                    ar_nt_coll_name(r->coll), r->nranks, r->nnodes, r->nrecs, f[1], f[2], f[3], f[4]);
            double fac = ar_nt_busbw_factor(r->coll, r->nranks);
            int bad = 0;
            for (int i = r->first_rec; i < r->first_rec + r->nrecs && fac > 0; i++) {
                const ar_nt_timing *h[2] = {&s->recs[i].oop, &s->recs[i].ip};
                for (int k = 0; k < 2; k++)
                    if (h[k]->present && h[k]->algbw_GBps >= 1 &&
                        fabs(h[k]->algbw_GBps * fac - h[k]->busbw_GBps) > 0.0051 * (1 + fac) + 1e-9)
                        bad++;
            }
            T_CHECK(bad == 0, "%s: %d halves whose busbw is not algbw x %g", f[0], bad, fac);
        }
        ar_nt_free(s);
    }
    fclose(m);
    T_CHECK(nfiles >= 20, "corpus: %d files", nfiles);
    T_CHECK(nstated == 8 && nstated_log == 4 && ninferred == 3,
            "corpus: %d releases stated (%d of them by the log itself), %d inferred; expected 8 (4), 3", nstated,
            nstated_log, ninferred);
}

int main(void) {
    test_names();
    test_one_node();
    test_two_nodes_forced();
    test_validation_off_old_format();
    test_wrong();
    test_truncated_and_bad();
    test_formats();
    test_corpus();
    test_two_runs_periter();
    test_json();
    test_multi_file();
    test_mem();
    test_reference();
    test_round_trip();
    return t_done("test_nccltests_in");
}
