/* Force-included into every algos/ file (see CMakeLists.txt): planners are pure
 * and must not see a backend. Including a SimGrid, CUDA, NCCL or MPI header
 * after this point fails to compile, because these identifiers, which those
 * headers declare, are poisoned (a project header from sim/, real/, lab/ or
 * cli/ is kept out by the include views and the `layering` test instead). */
#pragma GCC poison sg_host_t sg_actor_t simgrid_init
#pragma GCC poison cudaStream_t cudaMalloc cudaError_t
#pragma GCC poison ncclComm_t ncclAllReduce ncclResult_t
#pragma GCC poison MPI_Comm MPI_Init MPI_Allreduce MPI_Datatype
