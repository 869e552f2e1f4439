/* The facts an nccl-tests file may lack, from the command line (nt_facts.h). */
#include "nt_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/nccl_model.h"

static const char *const coll_list = "allreduce|allgather|reducescatter|broadcast|reduce|alltoall";

ar_status cli_nt_take(int *argc, char **argv, cli_nt_facts *f, const char *verb, int take_ranks) {
    memset(f, 0, sizeof *f);
    int k = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        int is_coll = !strcmp(a, "--coll"), is_algo = !strcmp(a, "--nccl-algo"), is_proto = !strcmp(a, "--nccl-proto");
        int is_ranks = take_ranks && !strcmp(a, "--ranks");
        if (!is_coll && !is_algo && !is_proto && !is_ranks) {
            argv[k++] = argv[i];
            continue;
        }
        if (i + 1 >= *argc || !strncmp(argv[i + 1], "--", 2)) {
            fprintf(stderr, "arlab %s: %s needs a value%s%s\n", verb, a, is_coll ? " (" : "", is_coll ? coll_list : "");
            if (is_coll) fprintf(stderr, ")\n");
            return AR_EINVAL;
        }
        const char *v = argv[++i];
        if (is_coll) {
            ar_nt_coll c = ar_nt_coll_parse(v);
            if (c == AR_NT_COLL_UNKNOWN) {
                fprintf(stderr, "arlab %s: --coll: \"%s\" is not one of %s\n", verb, v, coll_list);
                return AR_EINVAL;
            }
            f->coll = (int)c;
            f->coll_arg = v;
        } else if (is_algo) {
            if (ar_nccl_algo_parse(v) < 0) {
                fprintf(stderr,
                        "arlab %s: --nccl-algo: \"%s\" is not an NCCL algorithm (ring, tree, collnet_direct, "
                        "collnet_chain, nvls, nvls_tree, pat)\n",
                        verb, v);
                return AR_EINVAL;
            }
            f->algo = v;
        } else if (is_proto) {
            if (ar_nccl_proto_parse(v) < 0) {
                fprintf(stderr, "arlab %s: --nccl-proto: \"%s\" is not an NCCL protocol (ll, ll128, simple)\n", verb,
                        v);
                return AR_EINVAL;
            }
            f->proto = v;
        } else {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (!end || *end || n < 1 || n > 1 << 24) {
                fprintf(stderr, "arlab %s: --ranks: \"%s\" is not a rank count\n", verb, v);
                return AR_EINVAL;
            }
            f->ranks = (int)n;
        }
    }
    argv[k] = NULL;
    *argc = k;
    return AR_OK;
}

void cli_nt_opts(const cli_nt_facts *f, ar_nt_opts *o) {
    memset(o, 0, sizeof *o);
    o->coll = (ar_nt_coll)f->coll;
    o->coll_soft = 1;
    o->ranks = f->ranks;
    o->algo = f->algo;
    o->proto = f->proto;
    o->allow_nofooter = 1;
}
