# The layering check, a CTest run as
#   cmake -DSRC=<source root> -P tests/layering.cmake
# Reads the #include lines of every .c/.h/.cu/.cpp/.hpp file under the layered
# folders and fails, printing "file:line: the include (the rule)" for each
# include that goes up the layers:
#   core/    includes nothing of models/ algos/ sim/ calib/ real/ lab/ cli/
#   models/  never includes algos/ sim/ calib/ real/ lab/ cli/
#   algos/   never includes sim/ calib/ real/ lab/ cli/
#   sim/     never includes calib/ lab/ cli/
#   calib/   never includes algos/ sim/ real/ lab/ cli/ (measured data and fits: core, models)
#   real/    never includes lab/ cli/
#   lab/     never includes lab/sweep/ lab/report/ cli/
#   lab/sweep/ never includes lab/report/ cli/; lab/report/ never includes cli/
# and core/, models/, algos/ include no SimGrid, CUDA, NCCL or MPI header
# (algos/layer_guard.h poisons their identifiers at compile time as well).
# An include is resolved the way the compiler does: a quoted one first against
# the including file's folder ("engine.h", "../sim/sim.h"), then against the
# source root ("sim/sim.h", the project's style); a "../x/y.h" is resolved
# against the including file's folder even if y.h does not exist, and an
# include whose first folder is a layer counts as that layer even if the file
# does not exist yet (e.g. "lab/x.h" before lab/ exists). Includes that resolve to nothing in the
# tree (system and library headers) are only checked against the backend list.
# Folders that do not exist are skipped, so the rules hold before they exist.
# An #include inside a comment or under #if 0 is checked too: move it out.

cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED SRC)
  get_filename_component(SRC "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()

set(layers core models algos sim calib real lab lab/sweep lab/report cli)
set(forbid_core models algos sim calib real lab lab/sweep lab/report cli)
set(forbid_models algos sim calib real lab lab/sweep lab/report cli)
set(forbid_algos sim calib real lab lab/sweep lab/report cli)
set(forbid_sim calib lab lab/sweep lab/report cli)
set(forbid_real lab lab/sweep lab/report cli)
set(forbid_calib algos sim real lab lab/sweep lab/report cli)
set(forbid_lab lab/sweep lab/report cli)
set(forbid_lab/sweep lab/report cli)
set(forbid_lab/report cli)
set(forbid_cli)
# headers of the backends, by the include as written
set(backend_re "^(simgrid/|smpi/|xbt/|cuda|cuComplex|cublas|curand|nccl\\.h|nccl_net|nccl_tuner|mpi\\.h|mpi/|mpi_|openmpi|mpich|thrust/|cub/)")
set(no_backend core models algos)

# Known violations, as "file -> include" (the include as resolved, relative to
# the source root), each reported as an allowed exception; an entry that no
# longer matches anything fails the check. None today.
set(allowed)

# The layer of a path relative to the source root: the longest entry of `layers` it starts with
# (lab/sweep/x.h is in lab/sweep, lab/x.h in lab); "" when none.
function(ar_layer_of path out)
  set(best "")
  foreach(l ${layers})
    string(LENGTH "${l}" n)
    string(LENGTH "${best}" nb)
    string(FIND "${path}" "${l}/" at)
    if(at EQUAL 0 AND n GREATER nb)
      set(best "${l}")
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

set(nviol 0)
set(nfiles 0)
set(nincl 0)
set(used)
foreach(layer ${layers})
  if(NOT IS_DIRECTORY "${SRC}/${layer}")
    continue()
  endif()
  file(GLOB_RECURSE files RELATIVE "${SRC}" LIST_DIRECTORIES false
    "${SRC}/${layer}/*.c" "${SRC}/${layer}/*.h" "${SRC}/${layer}/*.cu" "${SRC}/${layer}/*.cpp" "${SRC}/${layer}/*.hpp")
  list(SORT files)
  foreach(f ${files})
    ar_layer_of("${f}" flayer)
    if(NOT flayer STREQUAL layer)
      continue() # in a sub-folder that is a layer of its own
    endif()
    math(EXPR nfiles "${nfiles} + 1")
    get_filename_component(dir "${SRC}/${f}" DIRECTORY)
    file(STRINGS "${SRC}/${f}" lines)
    set(ln 0)
    foreach(line IN LISTS lines)
      math(EXPR ln "${ln} + 1")
      if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
        continue()
      endif()
      math(EXPR nincl "${nincl} + 1")
      set(kind "${CMAKE_MATCH_1}")
      set(inc "${CMAKE_MATCH_2}")
      string(STRIP "${line}" shown)
      # backends
      if(layer IN_LIST no_backend AND inc MATCHES "${backend_re}")
        message("${f}:${ln}: ${shown} (${layer}/ must not include a SimGrid, CUDA, NCCL or MPI header)")
        math(EXPR nviol "${nviol} + 1")
        continue()
      endif()
      # resolve to a path relative to the source root, or to nothing
      set(res "")
      if(kind STREQUAL "\"" AND EXISTS "${dir}/${inc}")
        get_filename_component(abs "${dir}/${inc}" ABSOLUTE)
        file(RELATIVE_PATH res "${SRC}" "${abs}")
      elseif(EXISTS "${SRC}/${inc}" AND NOT IS_DIRECTORY "${SRC}/${inc}")
        get_filename_component(abs "${SRC}/${inc}" ABSOLUTE)
        file(RELATIVE_PATH res "${SRC}" "${abs}")
      elseif(kind STREQUAL "\"" AND inc MATCHES "^\\.\\.?/")
        get_filename_component(abs "${dir}/${inc}" ABSOLUTE) # "../cli/x.h": no file needed
        file(RELATIVE_PATH res "${SRC}" "${abs}")
      elseif(inc MATCHES "^([^/]+)/")
        if(CMAKE_MATCH_1 IN_LIST layers)
          set(res "${inc}")
        endif()
      endif()
      if(res STREQUAL "" OR NOT res MATCHES "^([^/]+)/")
        continue()
      endif()
      ar_layer_of("${res}" target)
      if(NOT target IN_LIST forbid_${layer})
        continue()
      endif()
      set(key "${f} -> ${res}")
      if(key IN_LIST allowed)
        message("${f}:${ln}: ${shown} (allowed for now: listed in tests/layering.cmake)")
        list(APPEND used "${key}")
        continue()
      endif()
      message("${f}:${ln}: ${shown} (${layer}/ must not include ${target}/: resolves to ${res})")
      math(EXPR nviol "${nviol} + 1")
    endforeach()
  endforeach()
endforeach()

foreach(a ${allowed})
  if(NOT a IN_LIST used)
    message("tests/layering.cmake: the allowed exception \"${a}\" no longer occurs: delete it from the list")
    math(EXPR nviol "${nviol} + 1")
  endif()
endforeach()

if(nfiles EQUAL 0)
  message(FATAL_ERROR "layering: no source files found under ${SRC} (pass -DSRC=<source root>)")
endif()
if(nviol GREATER 0)
  message(FATAL_ERROR "layering: ${nviol} violation(s) in ${nfiles} files (${nincl} includes)")
endif()
message("layering: OK, ${nfiles} files, ${nincl} includes")
