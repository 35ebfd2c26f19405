# tests of `symflame lookup` (app/lookupcmd.cpp) against llvm-symbolizer-19 --obj on the fixture
# binaries of tests/symbolize.cmake (included before this file: SF_DEFINES, symfixtures).
symflame_add_test(NAME tst_lookup SOURCES tst_lookup.cpp DEPENDS symflame symfixtures TIMEOUT 300)
target_compile_definitions(tst_lookup PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")

# End to end on a gperftools profile (tests/e2efixtures): libcprog spends its CPU time in libc and
# in its own shared library libsfe2e.so. Profiled at build time like cxxprog (tests/fixtures.cmake,
# included before this file: UPSTREAM_PPROF, SYMFLAME_GO_EXECUTABLE), converted by `go tool pprof
# -proto -symbolize=none` (e2e-unsym.pb.gz) and symbolized by upstream pprof -symbolize=local
# (e2e-sym.pb.gz), the oracle tst_gperftools_e2e compares `symflame symbolize` with.
set(E2E_SRC "${CMAKE_CURRENT_SOURCE_DIR}/e2efixtures")
set(E2E_DIR "${CMAKE_CURRENT_BINARY_DIR}/e2efixtures")
file(MAKE_DIRECTORY "${E2E_DIR}")
set(E2E_CXXFLAGS -std=c++17 -O1 -g -fno-omit-frame-pointer)
add_custom_command(
  OUTPUT "${E2E_DIR}/libsfe2e.so"
  COMMAND ${CMAKE_CXX_COMPILER} ${E2E_CXXFLAGS} -fPIC -shared -Wl,--build-id=sha1 -Wl,-soname,libsfe2e.so
          -o "${E2E_DIR}/libsfe2e.so" "${E2E_SRC}/e2ework.cpp"
  DEPENDS "${E2E_SRC}/e2ework.cpp" "${E2E_SRC}/e2ework.h"
  VERBATIM)
add_custom_command(
  OUTPUT "${E2E_DIR}/libcprog"
  COMMAND ${CMAKE_CXX_COMPILER} ${E2E_CXXFLAGS} -Wl,--build-id=sha1 -o "${E2E_DIR}/libcprog" "${E2E_SRC}/libcprog.cpp"
          "-L${E2E_DIR}" -lsfe2e "-Wl,-rpath,${E2E_DIR}" -Wl,--no-as-needed -lprofiler -Wl,--as-needed
  DEPENDS "${E2E_SRC}/libcprog.cpp" "${E2E_SRC}/e2ework.h" "${E2E_DIR}/libsfe2e.so"
  VERBATIM)
add_custom_command(
  OUTPUT "${E2E_DIR}/libcprog-cpu.prof"
  COMMAND ${CMAKE_COMMAND} -E env "CPUPROFILE=${E2E_DIR}/libcprog-cpu.prof" CPUPROFILE_FREQUENCY=1000
          "${E2E_DIR}/libcprog" 1.5
  DEPENDS "${E2E_DIR}/libcprog"
  COMMENT "Profiling fixture libcprog with gperftools (1.5 s of CPU time)"
  VERBATIM)
add_custom_command(
  OUTPUT "${E2E_DIR}/e2e-unsym.pb.gz"
  COMMAND ${SYMFLAME_GO_EXECUTABLE} tool pprof -proto -symbolize=none "-output=${E2E_DIR}/e2e-unsym.pb.gz"
          "${E2E_DIR}/libcprog" "${E2E_DIR}/libcprog-cpu.prof"
  DEPENDS "${E2E_DIR}/libcprog-cpu.prof"
  VERBATIM)
add_custom_command(
  OUTPUT "${E2E_DIR}/e2e-sym.pb.gz"
  COMMAND "${UPSTREAM_PPROF}" -proto -symbolize=local "-output=${E2E_DIR}/e2e-sym.pb.gz"
          "${E2E_DIR}/libcprog" "${E2E_DIR}/libcprog-cpu.prof"
  DEPENDS "${E2E_DIR}/libcprog-cpu.prof" "${UPSTREAM_PPROF}"
  VERBATIM)
add_custom_target(e2efixtures DEPENDS "${E2E_DIR}/e2e-unsym.pb.gz" "${E2E_DIR}/e2e-sym.pb.gz")
symflame_add_test(NAME tst_gperftools_e2e SOURCES tst_gperftools_e2e.cpp DEPENDS symflame e2efixtures TIMEOUT 300)
target_compile_definitions(tst_gperftools_e2e PRIVATE
  SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>"
  SYMFLAME_GO="${SYMFLAME_GO_EXECUTABLE}"
  SYMFLAME_NM="${SYMFLAME_NM}"
  SYMFLAME_E2E_DIR="${E2E_DIR}")
