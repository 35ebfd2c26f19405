# Unit tests of symbolize/ on the fixture binaries of tests/fixtures/symfixtures.cmake (SF_DEFINES),
# the Go programs of tests/fixtures/gofixtures.cmake and the Node builds of
# tests/fixtures/jsfixtures.cmake. Oracles: llvm-symbolizer-19, `go tool addr2line`,
# @jridgewell/trace-mapping.
symflame_add_test(NAME tst_elffile SOURCES tst_elffile.cpp LIBS symbolize DEFINES ${SF_DEFINES} DEPENDS symfixtures)
# The disassembler against llvm-objdump-19 on x86-64, i386 and AArch64 fixtures.
symflame_add_test(NAME tst_disassembler SOURCES tst_disassembler.cpp LIBS symbolize DEFINES ${SF_DEFINES} DEPENDS symfixtures)
symflame_add_test(NAME tst_symbolizer SOURCES tst_symbolizer.cpp LIBS symbolize DEFINES ${SF_DEFINES}
  DEPENDS symfixtures TIMEOUT 600)

# The Go engine (gopclntab, build info, goengine).
if(TARGET gofixtures)
  # Go 1.23 (Debian 12's backports, scripts/setup.sh): the oracle for the 1.20 gopclntab layout.
  find_program(SYMFLAME_GO123 NAMES go PATHS /usr/lib/go-1.23/bin NO_DEFAULT_PATH REQUIRED)
  symflame_add_test(NAME tst_gopclntab SOURCES tst_gopclntab.cpp LIBS symbolize DEPENDS gofixtures TIMEOUT 600
    DEFINES
      SYMFLAME_GO_FIXTURE_DIR="${GF}"
      SYMFLAME_GO_TOOL="${SYMFLAME_GO_FOR_GOSYM}"
      SYMFLAME_GO123_TOOL="${SYMFLAME_GO123}"
      SYMFLAME_LLVM_SYMBOLIZER="${SYMFLAME_LLVM_SYMBOLIZER_GOSYM}")
endif()

# lookupModules: sharded, multi-threaded lookups agree with one engine. The large input is the
# symflame executable itself (RelWithDebInfo: DWARF for thousands of functions).
symflame_add_test(NAME tst_parallellookup SOURCES tst_parallellookup.cpp
  LIBS symbolize DEFINES ${SF_DEFINES} DEPENDS symfixtures TIMEOUT 600)

# The isolation's wire protocol alone (symbolize/isolation/protocol.h): no process.
symflame_add_test(NAME tst_isolationprotocol SOURCES tst_isolationprotocol.cpp LIBS symbolize_isolation)

# Containment of the debug info readers (symbolize/isolation): a debug file that crashes LLVM's
# DWARF reader (tests/fixtures/isolation.cmake) fails its own module only; answers read in a
# worker process equal the in-process ones.
symflame_add_test(NAME tst_isolation SOURCES tst_isolation.cpp
  LIBS symbolize DEFINES ${SF_DEFINES} SYMFLAME_ISOLATION_DIR="${ISO_DIR}"
  DEPENDS symfixtures isolationfixtures TIMEOUT 600)

# Source maps against @jridgewell/trace-mapping, and the real Node profiles symbolized.
symflame_add_test(NAME tst_sourcemap SOURCES tst_sourcemap.cpp LIBS symbolize
  DEFINES
    SYMFLAME_NODE="${SYMFLAME_NODE}" SYMFLAME_JS_FIXTURES="${JS_OUT}" SYMFLAME_JS_NODE_MODULES="${JS_NPM}/node_modules"
    SYMFLAME_JS_ORACLE="${JS_SRC}/oracle.js" SYMFLAME_JS_INLINEMAP="${JS_SRC}/inlinemap.js"
  DEPENDS symflame_js_fixtures TIMEOUT 300)

# DWARF unwinding of perf.data (`perf record --call-graph dwarf`, libdwfl): the C++ fixture built
# with and without frame pointers, recorded at test time; oracle `perf script` on the same file.
symflame_add_test(NAME tst_perfdwarf SOURCES tst_perfdwarf.cpp LIBS symbolize ui DEFINES ${SF_DEFINES} TIMEOUT 300)

# Kernel frames of a perf recording named from a vmlinux found by build ID (debug directory,
# debuginfod): a recording of dd with its kernel build ID changed, a vmlinux built from
# /proc/kallsyms at test time; oracle `perf script -k VMLINUX`.
symflame_add_test(NAME tst_perfvmlinux SOURCES tst_perfvmlinux.cpp LIBS symbolize TIMEOUT 300)
