# The native demo (what scripts/demo.sh and the start page open): imagepipe, a C++ program
# calling its own libdemofilters.so (with debug info), libdemocodec.so (stripped, its debug
# file in demo/debug, a folder symflame does not search until told) and libc/libm, profiled
# by gperftools at build time and converted without symbols by `go tool pprof`, its mappings
# then given their files' build IDs, so that the profile holds addresses, mappings and build
# IDs as eBPF profilers record them. Built into
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

include(SymflameNativePrograms)
symflame_cxx_library(
  OUTPUT "${DEMO_BIN}/libdemofilters.so" SONAME libdemofilters.so FLAGS ${DEMO_CXXFLAGS}
  SOURCES "${DEMO_SRC}/filters.cpp" DEPENDS "${DEMO_SRC}/filters.h"
  COMMENT "Building the demo's libdemofilters.so")
symflame_cxx_library(
  OUTPUT "${DEMO_BIN}/libdemocodec.so" SONAME libdemocodec.so FLAGS ${DEMO_CXXFLAGS}
  SOURCES "${DEMO_SRC}/codec.cpp" DEPENDS "${DEMO_SRC}/codec.h" "${DEMO_SRC}/split-debug.sh"
  POST_COMMAND sh "${DEMO_SRC}/split-debug.sh" "${DEMO_BIN}/libdemocodec.so" "${DEMO_DIR}/debug"
  COMMENT "Building the demo's libdemocodec.so (stripped; debug file in demo/debug)")
symflame_cxx_profiled_program(
  OUTPUT "${DEMO_BIN}/imagepipe" FLAGS ${DEMO_CXXFLAGS} SOURCES "${DEMO_SRC}/main.cpp"
  LIBDIR "${DEMO_BIN}" LIBS demofilters democodec
  DEPENDS "${DEMO_SRC}/filters.h" "${DEMO_SRC}/codec.h" "${DEMO_BIN}/libdemofilters.so" "${DEMO_BIN}/libdemocodec.so"
  COMMENT "Building the demo's imagepipe")
symflame_gperftools_profile(
  PROGRAM "${DEMO_BIN}/imagepipe" ARGS 1.5 FREQUENCY 500 PROFILE "${DEMO_DIR}/imagepipe.prof"
  PPROF "${DEMO_DIR}/demo-nobuildids.pb.gz" GO ${SYMFLAME_DEMO_GO} GO_ENV "GOCACHE=${DEMO_DIR}/gocache"
  COMMENT "Profiling the demo's imagepipe with gperftools (1.5 s of CPU time)")
# The build IDs of the files, as eBPF profilers record them (the conversion leaves them out).
add_executable(demo-addbuildids "${DEMO_SRC}/addbuildids.cpp")
target_link_libraries(demo-addbuildids PRIVATE symbolize)
add_custom_command(
  OUTPUT "${DEMO_PROFILE}"
  COMMAND demo-addbuildids "${DEMO_DIR}/demo-nobuildids.pb.gz" "${DEMO_PROFILE}"
  DEPENDS "${DEMO_DIR}/demo-nobuildids.pb.gz" demo-addbuildids
  COMMENT "Giving the demo profile's mappings their build IDs"
  VERBATIM)
add_custom_target(demo ALL DEPENDS "${DEMO_PROFILE}")
