# Real-profile fixtures, built from the sources in tests/fixtures/ at build time (never
# committed), and the tests that compare symflame with `go tool pprof` (and `protoc
# --decode_raw`) on them. Both programs work for a budget of CPU time, not wall time, so a busy
# build machine still gets a few hundred samples.
#
#   goprog   Go program profiled with runtime/pprof: go-cpu.pb.gz (2 sample types) and
#            go-heap.pb.gz (4 sample types); linked with a fixed GNU build ID.
#   cxxprog  C++ program + libsfwork.so profiled with gperftools (cxxprog-cpu.prof, legacy
#            format), converted by `go tool pprof -proto -symbolize=none` (cxx-unsym.pb.gz:
#            addresses and mappings only) and by upstream pprof built from Debian's
#            golang-github-google-pprof-dev (cxx-sym.pb.gz: symbolized with binutils, with
#            inline chains and demangled names). `go tool pprof` cannot make the symbolized one:
#            it symbolizes with Go's own DWARF reader, which finds no names for most C++
#            functions (DW_AT_specification is not followed) and reports no inline frames.
#
# The target `fixtures` builds them all; tests DEPEND on it and include
# "fixtures/fixturepaths.h" (target fixture_paths) for the paths.

find_program(SYMFLAME_GO_EXECUTABLE go)
if(NOT SYMFLAME_GO_EXECUTABLE)
  message(FATAL_ERROR "the tests need Go to build their fixtures: install golang-go "
                      "(scripts/setup.sh does) or configure with -DSYMFLAME_BUILD_TESTS=OFF")
endif()
find_program(SYMFLAME_PROTOC_EXECUTABLE protoc)
if(NOT SYMFLAME_PROTOC_EXECUTABLE)
  message(FATAL_ERROR "the tests need protoc (--decode_raw) to read fixtures as written: install "
                      "protobuf-compiler (scripts/setup.sh does) or configure with -DSYMFLAME_BUILD_TESTS=OFF")
endif()
find_path(SYMFLAME_PPROF_GOPATH src/github.com/google/pprof/driver/driver.go PATHS /usr/share/gocode
          NO_DEFAULT_PATH)
if(NOT SYMFLAME_PPROF_GOPATH)
  message(FATAL_ERROR "the tests need pprof's sources to symbolize a C++ fixture: install "
                      "golang-github-google-pprof-dev (scripts/setup.sh does) or configure with "
                      "-DSYMFLAME_BUILD_TESTS=OFF")
endif()
find_library(SYMFLAME_PROFILER_LIBRARY profiler)
if(NOT SYMFLAME_PROFILER_LIBRARY)
  message(FATAL_ERROR "the tests need gperftools' libprofiler: install libgoogle-perftools-dev "
                      "(scripts/setup.sh does) or configure with -DSYMFLAME_BUILD_TESTS=OFF")
endif()

set(FIXTURE_SRC "${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
set(FIXTURE_DIR "${CMAKE_CURRENT_BINARY_DIR}/fixtures")
file(MAKE_DIRECTORY "${FIXTURE_DIR}/cxxprog" "${FIXTURE_DIR}/tools")

# Offline, self-contained Go builds: a cache inside the build tree, no module proxy, no VCS
# stamping (the source tree is a git checkout), no cgo (static binaries, one mapping).
set(FIXTURE_GO_ENV
  "GOCACHE=${FIXTURE_DIR}/gocache" "GOPATH=${FIXTURE_DIR}/gopath" GOPROXY=off GOFLAGS=-mod=mod
  GOWORK=off CGO_ENABLED=0 GO111MODULE=on GOTOOLCHAIN=local)
set(FIXTURE_GO_BUILD_ID 5ca1ab1e5ca1ab1e0ddba11c0ffee0005ca1ab1e)

# --- goprog and its two profiles
set(GOPROG "${FIXTURE_DIR}/goprog")
add_custom_command(
  OUTPUT "${GOPROG}"
  COMMAND ${CMAKE_COMMAND} -E env ${FIXTURE_GO_ENV}
          ${SYMFLAME_GO_EXECUTABLE} build -buildvcs=false -o "${GOPROG}"
          "-ldflags=-B 0x${FIXTURE_GO_BUILD_ID}" .
  WORKING_DIRECTORY "${FIXTURE_SRC}/goprog"
  DEPENDS "${FIXTURE_SRC}/goprog/go.mod" "${FIXTURE_SRC}/goprog/main.go"
  COMMENT "Building fixture goprog"
  VERBATIM)
add_custom_command(
  OUTPUT "${FIXTURE_DIR}/go-cpu.pb.gz" "${FIXTURE_DIR}/go-heap.pb.gz"
  COMMAND "${GOPROG}" -cpuprofile "${FIXTURE_DIR}/go-cpu.pb.gz"
          -heapprofile "${FIXTURE_DIR}/go-heap.pb.gz" -cpu 2500ms
  DEPENDS "${GOPROG}"
  COMMENT "Profiling fixture goprog (2.5 s of CPU time)"
  VERBATIM)

# --- cxxprog: compiled directly (not as CMake targets) so that the project's build type and
# sanitizer flags do not reach it; -O1 keeps inlining modest, frame pointers help gperftools.
set(CXXPROG_DIR "${FIXTURE_DIR}/cxxprog")
set(CXXPROG "${CXXPROG_DIR}/cxxprog")
set(SFWORK "${CXXPROG_DIR}/libsfwork.so")
set(FIXTURE_CXXFLAGS -std=c++17 -O1 -g -fno-omit-frame-pointer)
add_custom_command(
  OUTPUT "${SFWORK}"
  COMMAND ${CMAKE_CXX_COMPILER} ${FIXTURE_CXXFLAGS} -fPIC -shared -Wl,--build-id=sha1
          -Wl,-soname,libsfwork.so -o "${SFWORK}" "${FIXTURE_SRC}/cxxprog/sfwork.cpp"
  DEPENDS "${FIXTURE_SRC}/cxxprog/sfwork.cpp" "${FIXTURE_SRC}/cxxprog/sfwork.h"
  COMMENT "Building fixture libsfwork.so"
  VERBATIM)
add_custom_command(
  OUTPUT "${CXXPROG}"
  COMMAND ${CMAKE_CXX_COMPILER} ${FIXTURE_CXXFLAGS} -pthread -Wl,--build-id=sha1
          -o "${CXXPROG}" "${FIXTURE_SRC}/cxxprog/main.cpp"
          "-L${CXXPROG_DIR}" -lsfwork "-Wl,-rpath,${CXXPROG_DIR}"
          # Debian links --as-needed, which would drop libprofiler (nothing references it).
          -Wl,--no-as-needed -lprofiler -Wl,--as-needed
  DEPENDS "${FIXTURE_SRC}/cxxprog/main.cpp" "${FIXTURE_SRC}/cxxprog/sfwork.h" "${SFWORK}"
  COMMENT "Building fixture cxxprog"
  VERBATIM)
add_custom_command(
  OUTPUT "${FIXTURE_DIR}/cxxprog-cpu.prof"
  COMMAND ${CMAKE_COMMAND} -E env "CPUPROFILE=${FIXTURE_DIR}/cxxprog-cpu.prof"
          CPUPROFILE_FREQUENCY=1000 "${CXXPROG}" 1.5
  DEPENDS "${CXXPROG}"
  COMMENT "Profiling fixture cxxprog with gperftools (1.5 s of CPU time)"
  VERBATIM)
add_custom_command(
  OUTPUT "${FIXTURE_DIR}/cxx-unsym.pb.gz"
  COMMAND ${SYMFLAME_GO_EXECUTABLE} tool pprof -proto -symbolize=none
          "-output=${FIXTURE_DIR}/cxx-unsym.pb.gz" "${CXXPROG}" "${FIXTURE_DIR}/cxxprog-cpu.prof"
  DEPENDS "${FIXTURE_DIR}/cxxprog-cpu.prof"
  COMMENT "Converting the cxxprog profile to pprof (unsymbolized)"
  VERBATIM)

# Upstream pprof, from the Debian package's GOPATH tree (GOPATH mode: no module download).
set(UPSTREAM_PPROF "${FIXTURE_DIR}/tools/pprof")
add_custom_command(
  OUTPUT "${UPSTREAM_PPROF}"
  COMMAND ${CMAKE_COMMAND} -E env "GOCACHE=${FIXTURE_DIR}/gocache" "GOPATH=${SYMFLAME_PPROF_GOPATH}"
          GO111MODULE=off GOPROXY=off GOFLAGS= CGO_ENABLED=0 GOTOOLCHAIN=local
          ${SYMFLAME_GO_EXECUTABLE} build -o "${UPSTREAM_PPROF}" github.com/google/pprof
  DEPENDS "${SYMFLAME_PPROF_GOPATH}/src/github.com/google/pprof/driver/driver.go"
  COMMENT "Building upstream pprof from golang-github-google-pprof-dev"
  VERBATIM)
add_custom_command(
  OUTPUT "${FIXTURE_DIR}/cxx-sym.pb.gz"
  COMMAND "${UPSTREAM_PPROF}" -proto -symbolize=local
          "-output=${FIXTURE_DIR}/cxx-sym.pb.gz" "${CXXPROG}" "${FIXTURE_DIR}/cxxprog-cpu.prof"
  DEPENDS "${FIXTURE_DIR}/cxxprog-cpu.prof" "${UPSTREAM_PPROF}"
  COMMENT "Converting the cxxprog profile to pprof (symbolized with binutils)"
  VERBATIM)

add_custom_target(fixtures ALL
  DEPENDS "${FIXTURE_DIR}/go-cpu.pb.gz" "${FIXTURE_DIR}/go-heap.pb.gz"
          "${FIXTURE_DIR}/cxx-unsym.pb.gz" "${FIXTURE_DIR}/cxx-sym.pb.gz")

configure_file("${FIXTURE_SRC}/fixturepaths.h.in" "${FIXTURE_DIR}/fixturepaths.h" @ONLY)
add_library(fixture_paths INTERFACE)
target_include_directories(fixture_paths INTERFACE "${CMAKE_CURRENT_BINARY_DIR}")

# --- tests on the fixtures
symflame_add_test(NAME tst_roundtrip SOURCES tst_roundtrip.cpp
                  LIBS fixture_paths DEPENDS fixtures TIMEOUT 300)
symflame_add_test(NAME tst_oracle SOURCES tst_oracle.cpp
                  LIBS fixture_paths DEPENDS fixtures symflame TIMEOUT 300)
target_compile_definitions(tst_oracle PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
