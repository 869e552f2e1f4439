# The emulated cluster (testbed) and the MPI backend, one block.
#
# arlab_testbed (always; pure C + cJSON): real/testbed/*.c -- namespaces,
# bridges, veths, tc shaping, cleanup (testbed.h), tree JSON (tbjson.h). Linked
# into `arlab` (cli/cmd_testbed.c; AR_HAVE_TESTBED=1).
#
# arlab-mpi (when MPI and the real/ host library are found): the MPI backend
# (real/mpi/). A separate executable, so that `arlab` never links MPI. It
# links no SimGrid; should it ever, MPI must come first on its link line
# (libsimgrid exports MPI_* too; see arlab-sweep-mpi).
file(GLOB AR_TESTBED_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/real/testbed/*.c)
add_library(arlab_testbed STATIC ${AR_TESTBED_SRC})
ar_include_view(arlab_testbed core calib real)
target_link_libraries(arlab_testbed PUBLIC arlab_core PkgConfig::CJSON)
list(APPEND AR_BACKEND_LIBS arlab_testbed)
list(APPEND AR_BACKEND_DEFS AR_HAVE_TESTBED=1)
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND AND TARGET arlab_real_host)
  add_executable(arlab-mpi ${CMAKE_SOURCE_DIR}/real/mpi/main.c ${CMAKE_SOURCE_DIR}/real/mpi/mexec.c)
  list(APPEND AR_BACKEND_DEFS AR_HAVE_MPI_BACKEND=1)
  ar_include_view(arlab-mpi core models algos calib real)
  target_link_libraries(arlab-mpi PRIVATE MPI::MPI_C arlab_testbed arlab_real_host arlab_algos arlab_models)
  message(STATUS "arlab: arlab-mpi ON (MPI ${MPI_C_VERSION}); testbed ON")
else()
  message(STATUS "arlab: arlab-mpi OFF (needs MPI and the real/ host library); testbed ON")
endif()
