/* Arithmetic beside the sweep grammar (sweep_spec.h): the training-step
 * model and the FNV-1a hash of provenance. */
#include <string.h>

#include "sweep_spec.h"

sweep_train_result sweep_train_eval(const sweep_train_config *t, int P, double allreduce_s) {
    sweep_train_result r;
    memset(&r, 0, sizeof r);
    r.compute_s = t->compute_s / t->compute_div;
    r.comm_s = P > 1 ? allreduce_s / t->comm_div : 0.0;
    double hidden = t->overlap ? t->overlap_fraction * r.compute_s : 0.0;
    double exposed = r.comm_s - hidden;
    r.iter_s = r.compute_s + (exposed > 0 ? exposed : 0.0);
    r.overhead_s = r.iter_s - r.compute_s;
    r.images_s = (double)t->batch * P / r.iter_s;
    r.scaling_eff = r.compute_s / r.iter_s;
    r.speedup = P * r.scaling_eff;
    return r;
}

uint64_t sweep_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
