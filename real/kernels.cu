// The reduction/copy kernel of the real/ backend (kernels.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels.h"

namespace {

template <typename T> struct acc_of { typedef T type; };
template <> struct acc_of<__half> { typedef float type; };
template <> struct acc_of<__nv_bfloat16> { typedef float type; };

template <typename T> __device__ __forceinline__ typename acc_of<T>::type to_acc(T v) { return v; }
template <> __device__ __forceinline__ float to_acc<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_acc<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_acc(typename acc_of<T>::type v) { return v; }
template <> __device__ __forceinline__ __half from_acc<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// blockIdx.y: the post; x: a grid-stride loop over its elements.
template <typename T>
__global__ void posts_kernel(T *buf, const T *scratch, const ar_real_kpost *posts, const uint64_t *srcs) {
    const ar_real_kpost p = posts[blockIdx.y];
    T *dst = buf + p.dst_off;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    if (!p.add) {
        const T *s = scratch + srcs[p.first_src];
        for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += stride) dst[i] = s[i];
        return;
    }
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += stride) {
        typename acc_of<T>::type a = to_acc<T>(dst[i]);
        for (uint32_t k = 0; k < p.nsrc; k++) a += to_acc<T>(scratch[srcs[p.first_src + k] + i]);
        dst[i] = from_acc<T>(a);
    }
}

template <typename T>
int launch(void *buf, const void *scratch, const ar_real_kpost *posts, int nposts, const uint64_t *srcs,
           uint64_t max_count, cudaStream_t st) {
    const unsigned threads = 256;
    uint64_t want = (max_count + threads - 1) / threads;
    unsigned bx = (unsigned)(want < 1 ? 1 : want > 1024 ? 1024 : want);
    for (int first = 0; first < nposts; first += 65535) { // gridDim.y limit
        int n = nposts - first < 65535 ? nposts - first : 65535;
        dim3 grid(bx, (unsigned)n);
        posts_kernel<T>
            <<<grid, threads, 0, st>>>(static_cast<T *>(buf), static_cast<const T *>(scratch), posts + first, srcs);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
    }
    return 0;
}

} // namespace

extern "C" int ar_real_launch_posts(int dtype, void *buf, const void *scratch, const ar_real_kpost *posts, int nposts,
                                    const uint64_t *src_offs, uint64_t max_count, void *stream) {
    if (nposts <= 0) return 0;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (dtype) {
    case 0: return launch<float>(buf, scratch, posts, nposts, src_offs, max_count, st);
    case 1: return launch<__half>(buf, scratch, posts, nposts, src_offs, max_count, st);
    case 2: return launch<__nv_bfloat16>(buf, scratch, posts, nposts, src_offs, max_count, st);
    case 3: return launch<double>(buf, scratch, posts, nposts, src_offs, max_count, st);
    case 4: return launch<int>(buf, scratch, posts, nposts, src_offs, max_count, st);
    default: return (int)cudaErrorInvalidValue;
    }
}
