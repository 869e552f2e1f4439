/* The CUDA kernel of the real/ backend (kernels.cu), with a C interface.
 *
 * One kernel applies the "posts" of a program step (rplan.h): for each post
 * of a wave, dst[i] = dst[i] + sum of its sources (add) or dst[i] = source
 * (copy), where dst is in the data buffer and the sources in the scratch
 * buffer. Half types accumulate in float (exact for arlab's integer inputs).
 * Descriptors live in device memory, uploaded once per program.
 * No ownership: the caller owns every pointer.
 */
#ifndef AR_REAL_KERNELS_H
#define AR_REAL_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device-side post descriptor (mirrors ar_real_post, without the wave). */
typedef struct ar_real_kpost {
    uint64_t dst_off;
    uint64_t count;
    uint32_t first_src;
    uint32_t nsrc;
    int32_t add;
    int32_t pad;
} ar_real_kpost;

/* dtype: 0 f32, 1 f16, 2 bf16, 3 f64, 4 i32 (the order of ar_dtype).
 * Launches on `stream` (a cudaStream_t) one grid for posts[0..nposts), each
 * of at most max_count elements; src_offs are the scratch offsets the posts
 * index. Returns the cudaError_t of the launch (0 = success). */
int ar_real_launch_posts(int dtype, void *buf, const void *scratch, const ar_real_kpost *posts, int nposts,
                         const uint64_t *src_offs, uint64_t max_count, void *stream);

#ifdef __cplusplus
}
#endif
#endif
