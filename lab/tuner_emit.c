/* See tuner_emit.h. */
#include "tuner_emit.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "models/nccl_model.h"

static void lower(const char *s, char *out, size_t n) {
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = 0;
}

ar_status lab_tuner_emit(const ar_platform *p, double max_bytes, FILE *f, int *nlines, ar_err *e) {
    *nlines = 0;
    if (!(max_bytes >= 1) || max_bytes > 1e18) return ar_fail(e, AR_EINVAL, "nccl-tuner: max bytes %g", max_bytes);
    ar_nccl_in in;
    ar_status st = ar_nccl_in_from_platform(p, 0, &in, e);
    if (st) return st;
    fprintf(f, "# NCCL example tuner plugin configuration (NCCL_TUNER_CONFIG_FILE), written by arlab best --emit "
               "nccl-tuner\n");
    fprintf(f, "# platform %s: %d ranks on %d nodes; choices of NCCL's cost model (arlab %s model) per size range\n",
            p->name, p->nranks, p->nmachines, AR_NCCL_MODEL_VERSION);
    fprintf(f, "# Only NCCL's own algorithms can be expressed here; arlab's own schedules (blueconnect, flexreduce, "
               "treepack, two-level, ...) cannot.\n");
    fprintf(f, "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n");
    for (int c = 0; c < AR_NCCL_NCOLLS; c++) {
        int have = 0, cur_a = -1, cur_p = -1;
        double lo = 0;
        char an[32], pn[32];
        /* samples 2^(k/8) bytes, rounded, while <= max_bytes */
        for (int k = 0;; k++) {
            double b = floor(pow(2.0, k / 8.0) + 0.5);
            int end = b > max_bytes;
            ar_nccl_algo a = 0;
            ar_nccl_proto pr = 0;
            double t;
            ar_err e2 = {{0}};
            int ok = !end && ar_nccl_model_choose(&in, (ar_nccl_coll)c, -1, b, &a, &pr, &t, &e2) == AR_OK;
            if (!end && !ok) {
                if (k == 0) break; /* the collective does not apply on this platform */
                continue;
            }
            if (end || !have || (int)a != cur_a || (int)pr != cur_p) {
                if (have) {
                    double hi = end ? max_bytes : b - 1;
                    if (hi >= lo) {
                        lower(ar_nccl_algo_name((ar_nccl_algo)cur_a), an, sizeof an);
                        lower(ar_nccl_proto_name((ar_nccl_proto)cur_p), pn, sizeof pn);
                        fprintf(f, "%s,%.0f,%.0f,%s,%s,-1,%d,%d,-1,-1\n", ar_nccl_coll_name((ar_nccl_coll)c), lo, hi,
                                an, pn, p->nmachines, p->nranks);
                        (*nlines)++;
                    }
                    lo = b;
                }
                if (end) break;
                if (!have) lo = 0;
                have = 1, cur_a = (int)a, cur_p = (int)pr;
            }
        }
    }
    if (ferror(f)) return ar_fail(e, AR_EIO, "nccl-tuner: write error");
    return AR_OK;
}
