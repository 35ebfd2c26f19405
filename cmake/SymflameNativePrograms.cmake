# Native programs built and profiled at build time (the test fixtures' cxxprog, the demo's
# imagepipe): compiled directly with the C++ compiler, not as CMake targets, so that the
# project's build type and sanitizer flags do not reach them; each with a GNU build ID.

# symflame_cxx_library(OUTPUT lib.so SONAME name SOURCES src... DEPENDS file... FLAGS flag...
#                      [POST_COMMAND cmd args...] COMMENT text)
# A shared library; POST_COMMAND runs after linking (to strip it, say).
function(symflame_cxx_library)
  cmake_parse_arguments(A "" "OUTPUT;SONAME;COMMENT" "SOURCES;DEPENDS;FLAGS;POST_COMMAND" ${ARGN})
  set(post)
  if(A_POST_COMMAND)
    set(post COMMAND ${A_POST_COMMAND})
  endif()
  add_custom_command(
    OUTPUT "${A_OUTPUT}"
    COMMAND ${CMAKE_CXX_COMPILER} ${A_FLAGS} -fPIC -shared -Wl,--build-id=sha1
            "-Wl,-soname,${A_SONAME}" -o "${A_OUTPUT}" ${A_SOURCES}
    ${post}
    DEPENDS ${A_SOURCES} ${A_DEPENDS}
    COMMENT "${A_COMMENT}"
    VERBATIM)
endfunction()

# symflame_cxx_profiled_program(OUTPUT exe SOURCES src... LIBDIR dir LIBS name... DEPENDS file...
#                               FLAGS flag... COMMENT text)
# A program linked with its libraries in LIBDIR (found there at run time through its rpath)
# and with gperftools' libprofiler, which profiles it when CPUPROFILE is set.
function(symflame_cxx_profiled_program)
  cmake_parse_arguments(A "" "OUTPUT;LIBDIR;COMMENT" "SOURCES;LIBS;DEPENDS;FLAGS" ${ARGN})
  set(libs)
  foreach(lib IN LISTS A_LIBS)
    list(APPEND libs "-l${lib}")
  endforeach()
  add_custom_command(
    OUTPUT "${A_OUTPUT}"
    COMMAND ${CMAKE_CXX_COMPILER} ${A_FLAGS} -Wl,--build-id=sha1 -o "${A_OUTPUT}" ${A_SOURCES}
            "-L${A_LIBDIR}" ${libs} "-Wl,-rpath,${A_LIBDIR}"
            # Debian links --as-needed, which would drop libprofiler (nothing references it).
            -Wl,--no-as-needed -lprofiler -Wl,--as-needed
    DEPENDS ${A_SOURCES} ${A_DEPENDS}
    COMMENT "${A_COMMENT}"
    VERBATIM)
endfunction()

# symflame_gperftools_profile(PROGRAM exe ARGS arg... FREQUENCY hz PROFILE out.prof
#                             PPROF out.pb.gz GO go [GO_ENV VAR=value...] COMMENT text)
# Runs the program under gperftools (PROFILE, its legacy format) and converts that with
# `go tool pprof -proto -symbolize=none` (PPROF): addresses and mappings only, as profilers
# that record addresses write them.
function(symflame_gperftools_profile)
  cmake_parse_arguments(A "" "PROGRAM;FREQUENCY;PROFILE;PPROF;GO;COMMENT" "ARGS;GO_ENV" ${ARGN})
  add_custom_command(
    OUTPUT "${A_PROFILE}"
    COMMAND ${CMAKE_COMMAND} -E env "CPUPROFILE=${A_PROFILE}" "CPUPROFILE_FREQUENCY=${A_FREQUENCY}"
            "${A_PROGRAM}" ${A_ARGS}
    DEPENDS "${A_PROGRAM}"
    COMMENT "${A_COMMENT}"
    VERBATIM)
  add_custom_command(
    OUTPUT "${A_PPROF}"
    COMMAND ${CMAKE_COMMAND} -E env ${A_GO_ENV} GOTOOLCHAIN=local
            ${A_GO} tool pprof -proto -symbolize=none "-output=${A_PPROF}" "${A_PROGRAM}" "${A_PROFILE}"
    DEPENDS "${A_PROFILE}"
    COMMENT "Converting ${A_PROFILE} to pprof (unsymbolized)"
    VERBATIM)
endfunction()
