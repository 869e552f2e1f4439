/* Host fake of real/kernels.cu (kernels.h) on the fake CUDA runtime: the same
 * post semantics (dst = src, or dst += sum of sources, half types through
 * float and rounded back once per element as the kernel does), on the
 * calling thread, with the stream-order and pointer checks of fake.c.
 */
#include <stdint.h>
#include <string.h>

#include "fake.h"
#include "real/kernels.h"
#include "real/rmeasure.h"

static size_t esz(int dt) { return dt == 1 || dt == 2 ? 2 : dt == 3 ? 8 : 4; }

static double ld(const void *b, int dt, uint64_t i) {
    switch (dt) {
    case 0: return ((const float *)b)[i];
    case 1: return ar_real_f16_to_f32(((const uint16_t *)b)[i]);
    case 2: return ar_real_bf16_to_f32(((const uint16_t *)b)[i]);
    case 3: return ((const double *)b)[i];
    default: return ((const int32_t *)b)[i];
    }
}

static void st(void *b, int dt, uint64_t i, double v) {
    switch (dt) {
    case 0: ((float *)b)[i] = (float)v; break;
    case 1: ((uint16_t *)b)[i] = ar_real_f32_to_f16((float)v); break;
    case 2: ((uint16_t *)b)[i] = ar_real_f32_to_bf16((float)v); break;
    case 3: ((double *)b)[i] = v; break;
    default: ((int32_t *)b)[i] = (int32_t)v; break;
    }
}

int ar_real_launch_posts(int dtype, void *buf, const void *scratch, const ar_real_kpost *posts, int nposts,
                         const uint64_t *src_offs, uint64_t max_count, void *stream) {
    if (nposts <= 0) return 0;
    cudaStream_t s = stream;
    if (dtype < 0 || dtype > 4) return cudaErrorInvalidValue;
    if (!fake_stream_current(s)) return cudaErrorInvalidResourceHandle; /* kernels go to the current device */
    if (fake_capture_kernel(dtype, buf, scratch, posts, nposts, src_offs, max_count, s)) return 0;
    fake_count_kernel();
    size_t z = esz(dtype);
    if (fake_access(s, posts, (size_t)nposts * sizeof *posts, 0, "post kernel (descriptors)"))
        return cudaErrorInvalidValue;
    /* whole launch: every read checked before any write, as a grid of one wave */
    for (int p = 0; p < nposts; p++) {
        const ar_real_kpost *k = &posts[p];
        if (k->count > max_count) return cudaErrorInvalidValue; /* the grid would not cover it */
        if (fake_access(s, src_offs + k->first_src, (size_t)k->nsrc * sizeof *src_offs, 0, "post kernel (sources)"))
            return cudaErrorInvalidValue;
        for (uint32_t j = 0; j < k->nsrc; j++)
            if (fake_access(s, (const char *)scratch + src_offs[k->first_src + j] * z, k->count * z, 0,
                            "post kernel (scratch)"))
                return cudaErrorInvalidValue;
        if (fake_access(s, (char *)buf + k->dst_off * z, k->count * z, 1, "post kernel (dst)"))
            return cudaErrorInvalidValue;
    }
    for (int p = 0; p < nposts; p++) {
        const ar_real_kpost *k = &posts[p];
        for (uint64_t i = 0; i < k->count; i++) {
            if (!k->add) {
                st(buf, dtype, k->dst_off + i, ld(scratch, dtype, src_offs[k->first_src] + i));
                continue;
            }
            double a = ld(buf, dtype, k->dst_off + i);
            for (uint32_t j = 0; j < k->nsrc; j++) {
                a += ld(scratch, dtype, src_offs[k->first_src + j] + i);
                if (dtype <= 2) a = (float)a; /* the kernel accumulates halves and f32 in float */
            }
            st(buf, dtype, k->dst_off + i, a);
        }
    }
    return 0;
}
