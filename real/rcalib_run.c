/* The calibration measurement (rcalib_run.h). */
#include <stdlib.h>
#include <string.h>

#include "rcalib_run.h"

void ar_real_calibration_free(ar_real_calibration *k) {
    if (!k) return;
    free(k->machine_of_rank);
    free(k->sizes);
    free(k->oneway_s[0]);
    free(k->oneway_s[1]);
    memset(k, 0, sizeof *k);
}

ar_status ar_real_calibrate(ar_real_ctx *c, const int *machine_of_rank, int nmachines, const double *sizes, int ns,
                            int warmup, int iters, int weighted, FILE *progress, ar_real_calibration *k, ar_err *e) {
    memset(k, 0, sizeof *k);
    int P = ar_real_nranks(c), lead = ar_real_is_leader(c);
    k->nranks = P;
    k->nsizes = ns;
    k->src[0] = k->src[1] = k->dst[0] = k->dst[1] = -1;
    if (P < 2) return ar_fail(e, AR_EUNSUPPORTED, "calibration needs at least 2 ranks (this run has %d)", P);
    if (ns < 2) return ar_fail(e, AR_EINVAL, "calibration needs at least 2 sizes for a fit");
    k->machine_of_rank = ar_calloc((size_t)P, sizeof *k->machine_of_rank);
    k->sizes = ar_calloc((size_t)ns, sizeof *k->sizes);
    k->oneway_s[0] = ar_calloc((size_t)ns, sizeof(double));
    k->oneway_s[1] = ar_calloc((size_t)ns, sizeof(double));
    if (!k->machine_of_rank || !k->sizes || !k->oneway_s[0] || !k->oneway_s[1]) {
        ar_real_calibration_free(k);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    memcpy(k->sizes, sizes, (size_t)ns * sizeof *sizes);
    ar_status st = AR_OK;
    if (machine_of_rank) {
        memcpy(k->machine_of_rank, machine_of_rank, (size_t)P * sizeof *machine_of_rank);
        k->nmachines = nmachines;
    } else {
        st = ar_real_machines(c, k->machine_of_rank, &k->nmachines, e);
    }
    const int *mach = k->machine_of_rank;
    for (int r = 1; r < P && k->src[0] < 0 && st == AR_OK; r++)
        if (mach[r] == mach[r - 1]) {
            k->src[0] = r - 1;
            k->dst[0] = r;
        }
    for (int r = 1; r < P && k->src[1] < 0 && st == AR_OK; r++)
        if (mach[r] != mach[0]) {
            k->src[1] = 0;
            k->dst[1] = r;
        }
    static const char *const cls[2] = {"intra", "inter"};
    for (int j = 0; j < 2 && st == AR_OK; j++) {
        if (k->src[j] < 0) continue;
        for (int i = 0; i < ns && st == AR_OK; i++) {
            st = ar_real_pingpong(c, k->src[j], k->dst[j], (uint64_t)sizes[i], warmup, iters, &k->oneway_s[j][i], e);
            if (st == AR_OK && lead && progress)
                fprintf(progress, "  %s %d<->%d %12.0f B: %10.3f us one-way\n", cls[j], k->src[j], k->dst[j], sizes[i],
                        k->oneway_s[j][i] * 1e6);
        }
        if (st == AR_OK) {
            st = ar_real_fit_linear(sizes, k->oneway_s[j], ns, weighted, &k->fit[j], e);
            k->have[j] = st == AR_OK;
        }
    }
    return st;
}
