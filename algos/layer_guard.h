/* Force-included into every algos/ file (see CMakeLists.txt): planners are pure
 * and must not see a backend. Including a SimGrid, CUDA or NCCL header after
 * this point fails to compile, because these identifiers are poisoned. */
#pragma GCC poison sg_host_t sg_actor_t simgrid_init cudaStream_t cudaMalloc ncclComm_t ncclAllReduce MPI_Comm
