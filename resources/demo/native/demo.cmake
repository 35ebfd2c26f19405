# The native demo (what scripts/demo.sh and the start page open): imagepipe, a C++ program
# calling its own libdemofilters.so (with debug info), libdemocodec.so (stripped, its debug
# file in demo/debug, a folder symflame does not search until told) and libc/libm, profiled
# by gperftools at build time and converted without symbols by `go tool pprof`, so that the
# profile holds addresses and mappings as eBPF profilers record them. Built into
# ${CMAKE_BINARY_DIR}/demo when libprofiler and Go are there (scripts/setup.sh installs
# them); compiled directly, like the test fixtures, so that sanitizer flags stay out.
find_library(SYMFLAME_DEMO_PROFILER profiler)
find_program(SYMFLAME_DEMO_GO go)
if(NOT SYMFLAME_DEMO_PROFILER OR NOT SYMFLAME_DEMO_GO)
  message(STATUS "native demo: not built (needs gperftools' libprofiler and Go); the Go demo is used")
  unset(DEMO_PROFILE)
  return()
endif()

set(DEMO_SRC "${PROJECT_SOURCE_DIR}/resources/demo/native")
set(DEMO_DIR "${CMAKE_BINARY_DIR}/demo")
set(DEMO_BIN "${DEMO_DIR}/bin")
set(DEMO_PROFILE "${DEMO_DIR}/demo-native.pb.gz")
file(MAKE_DIRECTORY "${DEMO_BIN}" "${DEMO_DIR}/debug")
set(DEMO_CXXFLAGS -std=c++17 -O2 -g -fno-omit-frame-pointer)

add_custom_command(
  OUTPUT "${DEMO_BIN}/libdemofilters.so"
  COMMAND ${CMAKE_CXX_COMPILER} ${DEMO_CXXFLAGS} -fPIC -shared -Wl,--build-id=sha1
          -Wl,-soname,libdemofilters.so -o "${DEMO_BIN}/libdemofilters.so" "${DEMO_SRC}/filters.cpp"
  DEPENDS "${DEMO_SRC}/filters.cpp" "${DEMO_SRC}/filters.h"
  COMMENT "Building the demo's libdemofilters.so"
  VERBATIM)
add_custom_command(
  OUTPUT "${DEMO_BIN}/libdemocodec.so"
  COMMAND ${CMAKE_CXX_COMPILER} ${DEMO_CXXFLAGS} -fPIC -shared -Wl,--build-id=sha1
          -Wl,-soname,libdemocodec.so -o "${DEMO_BIN}/libdemocodec.so" "${DEMO_SRC}/codec.cpp"
  COMMAND sh "${DEMO_SRC}/split-debug.sh" "${DEMO_BIN}/libdemocodec.so" "${DEMO_DIR}/debug"
  DEPENDS "${DEMO_SRC}/codec.cpp" "${DEMO_SRC}/codec.h" "${DEMO_SRC}/split-debug.sh"
  COMMENT "Building the demo's libdemocodec.so (stripped; debug file in demo/debug)"
  VERBATIM)
add_custom_command(
  OUTPUT "${DEMO_BIN}/imagepipe"
  COMMAND ${CMAKE_CXX_COMPILER} ${DEMO_CXXFLAGS} -Wl,--build-id=sha1 -o "${DEMO_BIN}/imagepipe"
          "${DEMO_SRC}/main.cpp" "-L${DEMO_BIN}" -ldemofilters -ldemocodec "-Wl,-rpath,${DEMO_BIN}"
          # Debian links --as-needed, which would drop libprofiler (nothing references it).
          -Wl,--no-as-needed -lprofiler -Wl,--as-needed
  DEPENDS "${DEMO_SRC}/main.cpp" "${DEMO_SRC}/filters.h" "${DEMO_SRC}/codec.h"
          "${DEMO_BIN}/libdemofilters.so" "${DEMO_BIN}/libdemocodec.so"
  COMMENT "Building the demo's imagepipe"
  VERBATIM)
add_custom_command(
  OUTPUT "${DEMO_PROFILE}"
  COMMAND ${CMAKE_COMMAND} -E env "CPUPROFILE=${DEMO_DIR}/imagepipe.prof" CPUPROFILE_FREQUENCY=500
          "${DEMO_BIN}/imagepipe" 1.5
  COMMAND ${CMAKE_COMMAND} -E env "GOCACHE=${DEMO_DIR}/gocache" GOTOOLCHAIN=local
          ${SYMFLAME_DEMO_GO} tool pprof -proto -symbolize=none "-output=${DEMO_PROFILE}"
          "${DEMO_BIN}/imagepipe" "${DEMO_DIR}/imagepipe.prof"
  DEPENDS "${DEMO_BIN}/imagepipe"
  COMMENT "Profiling the demo's imagepipe with gperftools (1.5 s of CPU time)"
  VERBATIM)
add_custom_target(demo ALL DEPENDS "${DEMO_PROFILE}")
