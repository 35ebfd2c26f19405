# End-to-end tests: the symflame executable as a user runs it, and symflame against real producers
# and real tools on real files. Fixtures: tests/fixtures/profiles.cmake (Go and gperftools
# profiles), symfixtures.cmake, e2efixtures.cmake. Oracles: `go tool pprof`, upstream pprof,
# `protoc --decode_raw`, llvm-symbolizer-19, llvm-dwarfdump-19, a real debuginfod server.

# The command line's contract: exit codes, one-line errors, --help, info/top/collapse/render. It
# needs the Qt user interface (render, the painter): not built with SYMFLAME_BUILD_GUI=OFF.
if(TARGET ui)
  symflame_add_test(NAME tst_cli SOURCES tst_cli.cpp LIBS ui fixture_paths DEPENDS fixtures TIMEOUT 300)
endif()
# The pprof reader and writer on the real profiles, read back by `go tool pprof`; symflame's
# top/collapse/info against `go tool pprof` and `protoc --decode_raw`.
symflame_add_test(NAME tst_roundtrip SOURCES tst_roundtrip.cpp LIBS fixture_paths DEPENDS fixtures TIMEOUT 300)
symflame_add_test(NAME tst_oracle SOURCES tst_oracle.cpp LIBS fixture_paths DEPENDS fixtures TIMEOUT 300)
# `symflame source`: inline attribution against the test's own count, source files found or not.
symflame_add_test(NAME tst_source SOURCES tst_source.cpp LIBS fixture_paths symbolize DEPENDS fixtures TIMEOUT 300)
# `symflame source` on JavaScript frames: the original TypeScript through the source maps.
symflame_add_test(NAME tst_jssource SOURCES tst_jssource.cpp DEPENDS symflame_js_fixtures TIMEOUT 300
  DEFINES SYMFLAME_JS_FIXTURES="${JS_OUT}" SYMFLAME_JS_SOURCES="${JS_SRC}/src")
# `symflame symbolize` on the gperftools fixture, read back by go tool pprof.
symflame_add_test(NAME tst_symbolizecli SOURCES tst_symbolizecli.cpp LIBS fixture_paths DEPENDS fixtures TIMEOUT 300)
# `symflame lookup` (app/lookupcmd.cpp) against llvm-symbolizer-19 --obj on the fixture binaries.
symflame_add_test(NAME tst_lookup SOURCES tst_lookup.cpp DEFINES ${SF_DEFINES} DEPENDS symfixtures TIMEOUT 300)
# `symflame symbolize` on a gperftools profile against upstream pprof -symbolize=local.
symflame_add_test(NAME tst_gperftools_e2e SOURCES tst_gperftools_e2e.cpp DEPENDS e2efixtures TIMEOUT 300
  DEFINES SYMFLAME_GO="${SYMFLAME_GO_EXECUTABLE}" SYMFLAME_E2E_DIR="${E2E_DIR}")

# symflame debuginfo check, against llvm-dwarfdump-19 and readelf.
find_program(SYMFLAME_LLVM_DWARFDUMP NAMES llvm-dwarfdump-19 llvm-dwarfdump HINTS /usr/lib/llvm-19/bin REQUIRED)
symflame_add_test(NAME tst_debuginfocheck SOURCES tst_debuginfocheck.cpp DEPENDS symfixtures TIMEOUT 300
  DEFINES ${SF_DEFINES} SYMFLAME_LLVM_DWARFDUMP="${SYMFLAME_LLVM_DWARFDUMP}")
# debuginfod: a real server (Debian's debuginfod) and a fault-injecting one, both on 127.0.0.1.
find_program(SYMFLAME_DEBUGINFOD NAMES debuginfod REQUIRED)
symflame_add_test(NAME tst_debuginfod SOURCES tst_debuginfod.cpp
  LIBS symbolize DEFINES ${SF_DEFINES} DEPENDS symfixtures TIMEOUT 600)
# dwz supplementary files from a real debuginfod: the fixtures' dwz layouts and Debian's
# libc6-dbg files through `dwz -m`; the command line in a mount namespace without /usr/lib/debug.
find_program(SYMFLAME_UNSHARE NAMES unshare REQUIRED)
symflame_add_test(NAME tst_dwzdebuginfod SOURCES tst_dwzdebuginfod.cpp
  LIBS symbolize DEFINES ${SF_DEFINES} DEPENDS symfixtures TIMEOUT 300)
# The truncated-stack warning on fpchain recorded by `perf record -g` without and with frame
# pointers, against `perf script`; info, symbolize and collapse.
symflame_add_test(NAME tst_truncatedperf SOURCES tst_truncatedperf.cpp LIBS fixture_paths symbolize DEPENDS fixtures TIMEOUT 300)
