# The fuzz harnesses (fuzz/) as ordinary tests: each runs over the kept regression inputs
# (fuzz/regressions/<name>/, crashers found by scripts/fuzz.sh, fixed and kept), the seeds in
# fuzz/seeds/, and real files the test build makes (profiles, ELF files, Go tables). A crash, a
# hang (the test's timeout) or a sanitizer report fails the test.
set(FZ_SRC "${PROJECT_SOURCE_DIR}/fuzz")
set(FZ "${CMAKE_CURRENT_BINARY_DIR}/fuzzinputs")
file(MAKE_DIRECTORY "${FZ}")

# The Go tables by themselves, as the gopclntab harness takes them (llvm-objcopy reads every
# architecture's ELF; binutils' only the host's).
find_program(SYMFLAME_LLVM_OBJCOPY NAMES llvm-objcopy-19 llvm-objcopy HINTS /usr/lib/llvm-19/bin REQUIRED)
set(FZ_GO_TABLES)
foreach(go go_stripped go_386_stripped go_ppc64_stripped esbuild_go114)
  if(TARGET gofixtures)
    add_custom_command(OUTPUT "${FZ}/${go}.gopclntab"
      COMMAND "${SYMFLAME_LLVM_OBJCOPY}" -O binary --only-section=.gopclntab
              "${CMAKE_CURRENT_BINARY_DIR}/gofixtures/${go}" "${FZ}/${go}.gopclntab"
      DEPENDS gofixtures "${CMAKE_CURRENT_BINARY_DIR}/gofixtures/${go}" VERBATIM)
    list(APPEND FZ_GO_TABLES "${FZ}/${go}.gopclntab")
  endif()
endforeach()
add_custom_target(fuzzinputs ALL DEPENDS ${FZ_GO_TABLES})
add_dependencies(fuzzinputs fixtures symfixtures)

set(FZ_PROFILES "${CMAKE_CURRENT_BINARY_DIR}/fixtures/cxx-sym.pb.gz" "${CMAKE_CURRENT_BINARY_DIR}/fixtures/cxx-unsym.pb.gz"
  "${CMAKE_CURRENT_BINARY_DIR}/fixtures/go-cpu.pb.gz" "${CMAKE_CURRENT_BINARY_DIR}/fixtures/go-heap.pb.gz"
  "${PROJECT_SOURCE_DIR}/resources/demo/demo-cpu.pb.gz")
set(FZ_ELF "${CMAKE_CURRENT_BINARY_DIR}/symfixtures")
set(FZ_INPUTS_pprof ${FZ_PROFILES})
set(FZ_INPUTS_gzip ${FZ_PROFILES})
set(FZ_INPUTS_folded "${FZ_SRC}/seeds/folded")
set(FZ_INPUTS_elf "${FZ_ELF}/c_pie" "${FZ_ELF}/c_mini" "${FZ_ELF}/c_symtab" "${FZ_ELF}/c_object.o" "${FZ_ELF}/debuglink"
  "${FZ_ELF}/libsfshapes.so" "${FZ_ELF}/fs_aarch64" "${FZ_ELF}/fs_i386" "${FZ_ELF}/fs_mips" "${FZ_ELF}/fs_ppc64"
  "${FZ_ELF}/cxx_zstd" "${FZ_ELF}/dwz")
set(FZ_INPUTS_gopclntab ${FZ_GO_TABLES})
set(FZ_INPUTS_gperftools "${CMAKE_CURRENT_BINARY_DIR}/fixtures/cxxprog-cpu.prof")
if(EXISTS "/usr/share/gocode/src/github.com/google/pprof/profile/testdata/java.cpu")
  list(APPEND FZ_INPUTS_gperftools "/usr/share/gocode/src/github.com/google/pprof/profile/testdata/java.cpu")
endif()
set(FZ_INPUTS_perfdata "${CMAKE_CURRENT_BINARY_DIR}/fixtures/cxxprog-fp.perf.data")
set(FZ_INPUTS_heapprofile "${CMAKE_CURRENT_BINARY_DIR}/fixtures/cxxprog.heap")
# Written seeds, and pprof's own contention and thread test data where Debian installed it (read
# in place).
set(FZ_INPUTS_legacytext "${FZ_SRC}/seeds/legacytext")
set(FZ_PPROF_TESTDATA "/usr/share/gocode/src/github.com/google/pprof/profile/testdata")
foreach(f cppbench.contention cppbench.thread cppbench.thread.all cppbench.thread.none go.godoc.thread java.heap
    java.contention)
  if(EXISTS "${FZ_PPROF_TESTDATA}/${f}")
    list(APPEND FZ_INPUTS_legacytext "${FZ_PPROF_TESTDATA}/${f}")
  endif()
endforeach()
# Structured inputs (see the harnesses' headers): files and links the harness builds itself.
set(FZ_INPUTS_debuglink "${FZ_SRC}/seeds/debuglink")
set(FZ_INPUTS_addrnorm "${FZ_SRC}/seeds/addrnorm")
set(FZ_INPUTS_text "${FZ_SRC}/seeds/text")
set(FZ_INPUTS_jsresolve "${FZ_SRC}/seeds/jsresolve")
set(FZ_INPUTS_lookup "${FZ_SRC}/seeds/lookup")
set(FZ_INPUTS_collector "${FZ_SRC}/seeds/collector")
set(FZ_INPUTS_labelview "${FZ_SRC}/seeds/labelview")
if(TARGET otlp_testdata)
  set(FZ_INPUTS_otlp "${CMAKE_CURRENT_BINARY_DIR}/otlp")
  set(FZ_INPUTS_otlpjson "${CMAKE_CURRENT_SOURCE_DIR}/otlp")
  add_dependencies(fuzzinputs otlp_testdata)
endif()
if(TARGET symflame_js_fixtures)
  set(FZ_INPUTS_cpuprofile "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/separate.cpuprofile"
    "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/inline.cpuprofile" "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/bundle.cpuprofile")
  set(FZ_INPUTS_sourcemap "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/separate/main.js.map"
    "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/separate/shapes.js.map" "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures/bundle/bundle.js.map")
  add_dependencies(fuzzinputs symflame_js_fixtures)
endif()
foreach(h IN LISTS SYMFLAME_FUZZ_HARNESSES)
  if(NOT FZ_INPUTS_${h})
    continue()
  endif()
  set(regressions)
  if(IS_DIRECTORY "${FZ_SRC}/regressions/${h}")
    set(regressions "${FZ_SRC}/regressions/${h}")
  endif()
  add_test(NAME fuzzinputs_${h} COMMAND fuzz_${h} ${FZ_INPUTS_${h}} ${regressions})
  # The same inputs, one per line, seed scripts/fuzz.sh's corpora.
  string(REPLACE ";" "\n" lines "${FZ_INPUTS_${h}};${regressions}")
  file(GENERATE OUTPUT "${FZ}/seeds-${h}.txt" CONTENT "${lines}\n")
  set_tests_properties(fuzzinputs_${h} PROPERTIES TIMEOUT 300)
endforeach()
