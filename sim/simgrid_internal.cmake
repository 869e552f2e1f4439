# SimGrid 3.32's completion scan, taken off the path.
#
# SimGrid 3.32 puts every host-to-host comm (and every Exec started by the maestro) on the
# maestro's activities_, a std::list, and list::remove()s it at completion: each completion
# scans every activity in flight. sim/bridge.cpp takes each new activity off that list right
# after creating it (it keeps the activity alive itself), which needs three SimGrid-internal
# headers (src/kernel/actor/ActorImpl.hpp, .../Simcall.hpp, src/kernel/activity/ActivityImpl.hpp)
# that Debian's libsimgrid-dev does not install. arlab does not carry SimGrid's code: at
# configure time this file takes those headers from SimGrid's own 3.32 source distribution on
# PyPI (pinned by its sha256, cached), extracts only them into the build tree, and checks that
# they compile and link against the installed 3.32 (on SimGrid 4.x nothing is fetched: 4.x keeps
# that list as a set, and the bridge needs no fix). Anything else (another version, no network,
# a hash mismatch, -DARLAB_SG_INTERNAL=OFF) builds the bridge without the fix: correct, slower
# where many activities are in flight; one STATUS line says which.
#
# In:  SIMGRID_VERSION, SIMGRID_INCLUDE_DIRS (pkg_check_modules), target arlab_sim.
# Out: AR_SG_FIX (ON/OFF), AR_SG_FIX_WHY (a short reason when OFF); with the fix, bridge.cpp is
#      compiled with -isystem <extracted tree> (SimGrid's warnings stay SimGrid's) and
#      AR_SG_INTERNAL_332=1.
# Cache: ARLAB_CACHE_DIR (default $XDG_CACHE_HOME/arlab or ~/.cache/arlab) keeps the sdist;
#        ARLAB_SG_SDIST names a local copy instead (offline machines); the hash is checked either way.

option(ARLAB_SG_INTERNAL "On SimGrid 3.32: fetch SimGrid's 3.32 sdist (PyPI) at configure time for three internal headers that take its completion scan off the path" ON)
set(ARLAB_SG_SDIST "" CACHE FILEPATH "A local simgrid-3.32.tar.gz (SimGrid's PyPI sdist) to use instead of downloading it")
if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_ar_cache_default "$ENV{XDG_CACHE_HOME}/arlab")
elseif(DEFINED ENV{HOME} AND NOT "$ENV{HOME}" STREQUAL "")
  set(_ar_cache_default "$ENV{HOME}/.cache/arlab")
else()
  set(_ar_cache_default "${CMAKE_BINARY_DIR}/cache")
endif()
set(ARLAB_CACHE_DIR "${_ar_cache_default}" CACHE PATH "Where downloads (SimGrid's 3.32 sdist) are kept between builds")

set(AR_SG_SDIST_NAME simgrid-3.32.tar.gz)
set(AR_SG_SDIST_URL "https://files.pythonhosted.org/packages/a0/72/a42e5172ae0ef7633a97487cb99021901cf42931340cbb8c37605f608221/simgrid-3.32.tar.gz")
set(AR_SG_SDIST_SHA256 3cc752a28deb2ae42cd51cc835a572f13201702dc94545ced0e77c657231cd76)
set(AR_SG_HEADERS src/kernel/actor/ActorImpl.hpp src/kernel/actor/Simcall.hpp src/kernel/activity/ActivityImpl.hpp)

# ar_sg_fetch_sdist(OUT): the verified sdist's path in OUT, or "" (AR_SG_FIX_WHY says why).
function(ar_sg_fetch_sdist out)
  set(${out} "" PARENT_SCOPE)
  if(ARLAB_SG_SDIST)
    set(cand "${ARLAB_SG_SDIST}")
  else()
    set(cand "${ARLAB_CACHE_DIR}/${AR_SG_SDIST_NAME}")
  endif()
  if(EXISTS "${cand}")
    file(SHA256 "${cand}" h)
    if(h STREQUAL AR_SG_SDIST_SHA256)
      set(${out} "${cand}" PARENT_SCOPE)
      return()
    endif()
    if(ARLAB_SG_SDIST)
      set(AR_SG_FIX_WHY "${cand}: sha256 ${h}, expected ${AR_SG_SDIST_SHA256}" PARENT_SCOPE)
      return()
    endif()
    file(REMOVE "${cand}") # a damaged cache entry: fetch it again
  endif()
  if(AR_SG_FETCH_FAILED) # tried at an earlier configure of this build dir: do not wait again
    set(AR_SG_FIX_WHY "${AR_SG_FETCH_FAILED} (earlier configure; cmake -UAR_SG_FETCH_FAILED retries)" PARENT_SCOPE)
    return()
  endif()
  file(MAKE_DIRECTORY "${ARLAB_CACHE_DIR}")
  set(tmp "${ARLAB_CACHE_DIR}/${AR_SG_SDIST_NAME}.part")
  # 1. the pinned file itself (no code of the sdist runs)
  # (the hash is checked here, not with EXPECTED_HASH: a mismatch there is a fatal configure error)
  file(DOWNLOAD "${AR_SG_SDIST_URL}" "${tmp}" TIMEOUT 120 INACTIVITY_TIMEOUT 20 STATUS st)
  list(GET st 0 rc)
  list(GET st 1 msg)
  if(rc EQUAL 0)
    file(SHA256 "${tmp}" h)
    if(NOT h STREQUAL AR_SG_SDIST_SHA256)
      set(rc 1)
      set(msg "sha256 ${h}, expected ${AR_SG_SDIST_SHA256}")
    endif()
  endif()
  if(NOT rc EQUAL 0)
    # 2. pip, which knows this machine's index, mirror or proxy settings (pip prepares the
    #    sdist's metadata, which installs its build requirements: slower; bounded in time)
    file(REMOVE "${tmp}")
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(Python3_Interpreter_FOUND)
      set(pipdir "${CMAKE_BINARY_DIR}/simgrid-sdist-pip")
      file(REMOVE_RECURSE "${pipdir}")
      execute_process(COMMAND ${Python3_EXECUTABLE} -m pip download --no-deps --no-binary :all:
          --timeout 20 --retries 1 -d "${pipdir}" simgrid==3.32
        RESULT_VARIABLE prc OUTPUT_QUIET ERROR_QUIET TIMEOUT 300)
      if(prc EQUAL 0 AND EXISTS "${pipdir}/${AR_SG_SDIST_NAME}")
        file(SHA256 "${pipdir}/${AR_SG_SDIST_NAME}" h)
        if(h STREQUAL AR_SG_SDIST_SHA256)
          file(RENAME "${pipdir}/${AR_SG_SDIST_NAME}" "${tmp}")
          set(rc 0)
        endif()
      endif()
      file(REMOVE_RECURSE "${pipdir}")
    endif()
  endif()
  if(NOT rc EQUAL 0)
    file(REMOVE "${tmp}")
    set(AR_SG_FETCH_FAILED "could not download ${AR_SG_SDIST_NAME} (${msg}; pip download failed too)"
      CACHE INTERNAL "the sdist download failed")
    set(AR_SG_FIX_WHY "${AR_SG_FETCH_FAILED}" PARENT_SCOPE)
    return()
  endif()
  file(RENAME "${tmp}" "${ARLAB_CACHE_DIR}/${AR_SG_SDIST_NAME}")
  set(${out} "${ARLAB_CACHE_DIR}/${AR_SG_SDIST_NAME}" PARENT_SCOPE)
endfunction()

set(AR_SG_FIX OFF)
set(AR_SG_FIX_WHY "")
set(_ar_sg_not_needed OFF)
# the installed headers' version (pkg-config's may say 3.32 for 3.32.x)
set(AR_SG_VERSION_H "")
foreach(d ${SIMGRID_INCLUDE_DIRS} ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES} /usr/include /usr/local/include)
  if(NOT AR_SG_VERSION_H AND EXISTS "${d}/simgrid/version.h")
    set(AR_SG_VERSION_H "${d}/simgrid/version.h")
  endif()
endforeach()
set(_ar_sg_ver "")
if(AR_SG_VERSION_H)
  file(STRINGS "${AR_SG_VERSION_H}" _v REGEX "^#define SIMGRID_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(l ${_v})
    string(REGEX REPLACE "^#define SIMGRID_VERSION_[A-Z]+ +([0-9]+).*" "\\1" n "${l}")
    list(APPEND _ar_sg_ver ${n})
  endforeach()
  string(REPLACE ";" "." _ar_sg_ver "${_ar_sg_ver}")
endif()
if(NOT ARLAB_SG_INTERNAL)
  set(AR_SG_FIX_WHY "ARLAB_SG_INTERNAL=OFF")
elseif(_ar_sg_ver MATCHES "^[4-9]\\.")
  set(AR_SG_FIX_WHY "not needed on SimGrid ${_ar_sg_ver} (it keeps an actor's activities in a set)")
  set(_ar_sg_not_needed ON)
elseif(NOT _ar_sg_ver STREQUAL "3.32.0")
  set(AR_SG_FIX_WHY "installed SimGrid is ${_ar_sg_ver}, the fix is for 3.32.0")
else()
  ar_sg_fetch_sdist(_ar_sdist)
  if(_ar_sdist)
    set(_ar_sg_dir "${CMAKE_BINARY_DIR}/simgrid-3.32-internal")
    set(_ar_stamp "${_ar_sg_dir}/extracted-from-${AR_SG_SDIST_SHA256}")
    if(NOT EXISTS "${_ar_stamp}")
      file(REMOVE_RECURSE "${_ar_sg_dir}")
      file(MAKE_DIRECTORY "${_ar_sg_dir}")
      set(_members simgrid-3.32/PKG-INFO)
      foreach(h ${AR_SG_HEADERS})
        list(APPEND _members simgrid-3.32/${h})
      endforeach()
      execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf "${_ar_sdist}" -- ${_members}
        WORKING_DIRECTORY "${_ar_sg_dir}" RESULT_VARIABLE _xrc OUTPUT_QUIET ERROR_QUIET)
      if(_xrc EQUAL 0)
        file(TOUCH "${_ar_stamp}")
      endif()
    endif()
    set(_ar_inc "${_ar_sg_dir}/simgrid-3.32")
    set(_ar_missing "")
    foreach(h ${AR_SG_HEADERS} PKG-INFO)
      if(NOT EXISTS "${_ar_inc}/${h}")
        list(APPEND _ar_missing ${h})
      endif()
    endforeach()
    if(_ar_missing)
      set(AR_SG_FIX_WHY "the sdist lacks ${_ar_missing}")
    else()
      # the sdist's own version must be the installed library's
      file(STRINGS "${_ar_inc}/PKG-INFO" _pv REGEX "^Version: ")
      string(REGEX REPLACE "^Version: *" "" _pv "${_pv}")
      if(NOT _pv STREQUAL "3.32" AND NOT _pv STREQUAL "3.32.0")
        set(AR_SG_FIX_WHY "the sdist is SimGrid ${_pv}, the library ${_ar_sg_ver}")
      else()
        # the internal headers against the installed public ones, and ActorImpl::self() exported
        include(CheckCXXSourceCompiles)
        set(CMAKE_REQUIRED_FLAGS "-isystem ${_ar_inc}")
        set(CMAKE_REQUIRED_LIBRARIES PkgConfig::SIMGRID)
        set(CMAKE_REQUIRED_QUIET ON)
        check_cxx_source_compiles([=[
#include <simgrid/s4u.hpp>
#include "src/kernel/actor/ActorImpl.hpp"
#include "src/kernel/activity/ActivityImpl.hpp"
int main() {
  auto *self = simgrid::kernel::actor::ActorImpl::self();
  simgrid::s4u::Activity *a = nullptr;
  return self && !self->activities_.empty() && self->activities_.back().get() == a->get_impl();
}]=] AR_SG_INTERNAL_COMPILES)
        unset(CMAKE_REQUIRED_FLAGS)
        unset(CMAKE_REQUIRED_LIBRARIES)
        if(AR_SG_INTERNAL_COMPILES)
          set(AR_SG_FIX ON)
          set_property(SOURCE ${CMAKE_SOURCE_DIR}/sim/bridge.cpp APPEND PROPERTY COMPILE_OPTIONS -isystem ${_ar_inc})
          set_property(SOURCE ${CMAKE_SOURCE_DIR}/sim/bridge.cpp APPEND PROPERTY COMPILE_DEFINITIONS AR_SG_INTERNAL_332=1)
        else()
          set(AR_SG_FIX_WHY "SimGrid's internal headers do not compile against the installed ones (CMakeFiles/CMakeError.log)")
        endif()
      endif()
    endif()
  endif()
endif()
if(AR_SG_FIX)
  message(STATUS "arlab: SimGrid completion-scan fix ON (internal headers of SimGrid 3.32's sdist, ${AR_SG_SDIST_SHA256})")
elseif(_ar_sg_not_needed)
  message(STATUS "arlab: SimGrid completion-scan fix OFF: ${AR_SG_FIX_WHY}")
else()
  message(STATUS "arlab: SimGrid completion-scan fix OFF: ${AR_SG_FIX_WHY}; the SimGrid backend works, slower with many transfers in flight (sim/README.md)")
endif()
