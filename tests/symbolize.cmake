# tests of the symbolize area. The fixture binaries are compiled at build time from the sources
# in tests/symfixtures/ into ${CMAKE_CURRENT_BINARY_DIR}/symfixtures (never committed), with
# fixed compiler flags that don't depend on the project's build type; derived variants are made
# with objcopy/strip. llvm-symbolizer-19 is the oracle the tests compare against.
find_program(SYMFLAME_LLVM_SYMBOLIZER NAMES llvm-symbolizer-19 llvm-symbolizer HINTS /usr/lib/llvm-19/bin REQUIRED)
find_program(SYMFLAME_LLVM_READOBJ NAMES llvm-readobj-19 llvm-readobj HINTS /usr/lib/llvm-19/bin REQUIRED)
find_program(SYMFLAME_LLVM_CXXFILT NAMES llvm-cxxfilt-19 llvm-cxxfilt HINTS /usr/lib/llvm-19/bin REQUIRED)
find_program(SYMFLAME_NM NAMES nm REQUIRED)
find_program(SYMFLAME_OBJCOPY NAMES objcopy REQUIRED)
find_program(SYMFLAME_STRIP NAMES strip REQUIRED)
find_program(SYMFLAME_CXXFILT NAMES c++filt REQUIRED)
find_program(SYMFLAME_CLANG NAMES clang-14 clang)
find_program(SYMFLAME_LLD NAMES ld.lld ld.lld-14)
find_program(SYMFLAME_RUSTC NAMES rustc HINTS "$ENV{HOME}/.cargo/bin")
find_program(SYMFLAME_GO NAMES go)

set(SF_SRC "${CMAKE_CURRENT_SOURCE_DIR}/symfixtures")
set(SF "${CMAKE_CURRENT_BINARY_DIR}/symfixtures")
file(MAKE_DIRECTORY "${SF}")
set(SF_OUTPUTS)
set(SF_CXX "${CMAKE_CXX_COMPILER}")
set(SF_CC "${CMAKE_C_COMPILER}")
# Fixed build IDs for the fixtures whose debug file lives in a build-id directory.
set(SF_BUILDID_CXX "5f1e0c0ffee0123456789abcdef0123456789abc")
string(SUBSTRING "${SF_BUILDID_CXX}" 0 2 SF_BUILDID_CXX_DIR)
string(SUBSTRING "${SF_BUILDID_CXX}" 2 -1 SF_BUILDID_CXX_REST)

# symfixture(OUTPUT <file> [more outputs] COMMAND ... [COMMAND ...] DEPENDS ...): one fixture
# build step; its outputs are collected in SF_OUTPUTS.
function(symfixture)
  list(FIND ARGN COMMAND first)
  math(EXPR count "${first} - 1")
  list(SUBLIST ARGN 1 ${count} outputs)
  add_custom_command(${ARGN} VERBATIM)
  set(SF_OUTPUTS ${SF_OUTPUTS} ${outputs} PARENT_SCOPE)
endfunction()

# --- compiled fixtures
symfixture(OUTPUT "${SF}/libsfshapes.so"
  COMMAND "${SF_CXX}" -O2 -g -fPIC -shared -Wl,-soname,libsfshapes.so "${SF_SRC}/shapes.cpp" -o "${SF}/libsfshapes.so"
  DEPENDS "${SF_SRC}/shapes.cpp" "${SF_SRC}/shapes.h")
set(SF_CXX_DEPS "${SF_SRC}/inline.cpp" "${SF_SRC}/shapes.h" "${SF}/libsfshapes.so")
set(SF_CXX_ARGS -std=c++17 -I "${SF_SRC}" "${SF_SRC}/inline.cpp" -L "${SF}" -lsfshapes)
symfixture(OUTPUT "${SF}/cxx_pie"
  COMMAND "${SF_CXX}" -O2 -g -fPIE -pie ${SF_CXX_ARGS} -o "${SF}/cxx_pie" DEPENDS ${SF_CXX_DEPS})
symfixture(OUTPUT "${SF}/cxx_nopie"
  COMMAND "${SF_CXX}" -O2 -g -fno-pie -no-pie ${SF_CXX_ARGS} -o "${SF}/cxx_nopie" DEPENDS ${SF_CXX_DEPS})
symfixture(OUTPUT "${SF}/cxx_dwarf4"
  COMMAND "${SF_CXX}" -O2 -gdwarf-4 -fPIE -pie ${SF_CXX_ARGS} -o "${SF}/cxx_dwarf4" DEPENDS ${SF_CXX_DEPS})
symfixture(OUTPUT "${SF}/cxx_buildid_full"
  COMMAND "${SF_CXX}" -O2 -g -fPIE -pie ${SF_CXX_ARGS} -Wl,--build-id=0x${SF_BUILDID_CXX} -o "${SF}/cxx_buildid_full"
  DEPENDS ${SF_CXX_DEPS})
symfixture(OUTPUT "${SF}/c_pie"
  COMMAND "${SF_CC}" -O2 -g -fPIE -pie "${SF_SRC}/cprog.c" -o "${SF}/c_pie" DEPENDS "${SF_SRC}/cprog.c")
symfixture(OUTPUT "${SF}/c_nopie"
  COMMAND "${SF_CC}" -O2 -g -fno-pie -no-pie "${SF_SRC}/cprog.c" -o "${SF}/c_nopie" DEPENDS "${SF_SRC}/cprog.c")
symfixture(OUTPUT "${SF}/c_dwarf4"
  COMMAND "${SF_CC}" -O2 -gdwarf-4 "${SF_SRC}/cprog.c" -o "${SF}/c_dwarf4" DEPENDS "${SF_SRC}/cprog.c")
symfixture(OUTPUT "${SF}/c_object.o"
  COMMAND "${SF_CC}" -O2 -g -c "${SF_SRC}/cprog.c" -o "${SF}/c_object.o" DEPENDS "${SF_SRC}/cprog.c")
if(SYMFLAME_CLANG)
  symfixture(OUTPUT "${SF}/cxx_clang"
    COMMAND "${SYMFLAME_CLANG}" --driver-mode=g++ -O2 -g -fPIE -pie ${SF_CXX_ARGS} -o "${SF}/cxx_clang"
    DEPENDS ${SF_CXX_DEPS})
  set(SF_HAVE_CLANG 1)
endif()
if(SYMFLAME_CLANG AND SYMFLAME_LLD)
  # 32-bit and big-endian ELF files: freestanding programs for other architectures.
  foreach(pair "i386-linux-gnu;fs_i386" "mips-linux-gnu;fs_mips" "powerpc64-linux-gnu;fs_ppc64"
               "aarch64-linux-gnu;fs_aarch64")
    list(GET pair 0 triple)
    list(GET pair 1 name)
    symfixture(OUTPUT "${SF}/${name}"
      COMMAND "${SYMFLAME_CLANG}" --target=${triple} -O2 -g -ffreestanding -nostdlib -fuse-ld=lld -static
              -Wl,--build-id=sha1 "${SF_SRC}/freestanding.c" -o "${SF}/${name}"
      DEPENDS "${SF_SRC}/freestanding.c")
  endforeach()
  set(SF_HAVE_CROSS 1)
endif()
if(SYMFLAME_RUSTC)
  symfixture(OUTPUT "${SF}/rust_prog"
    COMMAND "${SYMFLAME_RUSTC}" -C opt-level=2 -g "${SF_SRC}/rustprog.rs" -o "${SF}/rust_prog"
    DEPENDS "${SF_SRC}/rustprog.rs")
  set(SF_HAVE_RUST 1)
endif()
if(SYMFLAME_GO)
  symfixture(OUTPUT "${SF}/go_prog"
    COMMAND "${CMAKE_COMMAND}" -E env GOCACHE=${SF}/gocache GOPATH=${SF}/gopath GOPROXY=off GO111MODULE=off GOFLAGS=
            "${SYMFLAME_GO}" build -o "${SF}/go_prog" "${SF_SRC}/goprog.go"
    DEPENDS "${SF_SRC}/goprog.go")
  set(SF_HAVE_GO 1)
endif()

# --- derived variants
# names only: .symtab kept, DWARF dropped; .dynsym only (a shared library stripped of all).
symfixture(OUTPUT "${SF}/cxx_symtab"
  COMMAND "${SYMFLAME_OBJCOPY}" --strip-debug "${SF}/cxx_pie" "${SF}/cxx_symtab" DEPENDS "${SF}/cxx_pie")
symfixture(OUTPUT "${SF}/libsfshapes_dynsym.so"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/libsfshapes.so" -o "${SF}/libsfshapes_dynsym.so"
  DEPENDS "${SF}/libsfshapes.so")
# compressed debug sections
foreach(kind zlib zstd zlib-gnu)
  string(REPLACE "-" "_" suffix "${kind}")
  symfixture(OUTPUT "${SF}/cxx_${suffix}"
    COMMAND "${SYMFLAME_OBJCOPY}" --compress-debug-sections=${kind} "${SF}/cxx_pie" "${SF}/cxx_${suffix}"
    DEPENDS "${SF}/cxx_pie")
endforeach()
# stripped, with the debug file in a build-id directory
set(SF_BUILDID_DEBUG "${SF}/buildid/debug/.build-id/${SF_BUILDID_CXX_DIR}/${SF_BUILDID_CXX_REST}.debug")
symfixture(OUTPUT "${SF}/buildid/cxx_buildid" "${SF_BUILDID_DEBUG}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/buildid/debug/.build-id/${SF_BUILDID_CXX_DIR}"
  COMMAND "${SYMFLAME_OBJCOPY}" --only-keep-debug "${SF}/cxx_buildid_full" "${SF_BUILDID_DEBUG}"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/cxx_buildid_full" -o "${SF}/buildid/cxx_buildid"
  DEPENDS "${SF}/cxx_buildid_full")
# stripped, with .gnu_debuglink: debug file next to the binary, in its .debug/, and under a
# debug directory at <debugdir>/<binary's absolute dir>/
symfixture(OUTPUT "${SF}/debuglink/cxx_debuglink" "${SF}/debuglink/cxx_debuglink.debug"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/debuglink"
  COMMAND "${SYMFLAME_OBJCOPY}" --only-keep-debug "${SF}/cxx_pie" "${SF}/debuglink/cxx_debuglink.debug"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/cxx_pie" -o "${SF}/debuglink/cxx_debuglink.tmp"
  COMMAND "${SYMFLAME_OBJCOPY}" --add-gnu-debuglink=${SF}/debuglink/cxx_debuglink.debug
          "${SF}/debuglink/cxx_debuglink.tmp" "${SF}/debuglink/cxx_debuglink"
  COMMAND "${CMAKE_COMMAND}" -E rm -f "${SF}/debuglink/cxx_debuglink.tmp"
  DEPENDS "${SF}/cxx_pie")
symfixture(OUTPUT "${SF}/debuglink2/c_debuglink" "${SF}/debuglink2/.debug/c_debuglink.debug"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/debuglink2/.debug"
  COMMAND "${SYMFLAME_OBJCOPY}" --only-keep-debug "${SF}/c_pie" "${SF}/debuglink2/.debug/c_debuglink.debug"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/c_pie" -o "${SF}/debuglink2/c_debuglink.tmp"
  COMMAND "${SYMFLAME_OBJCOPY}" --add-gnu-debuglink=${SF}/debuglink2/.debug/c_debuglink.debug
          "${SF}/debuglink2/c_debuglink.tmp" "${SF}/debuglink2/c_debuglink"
  COMMAND "${CMAKE_COMMAND}" -E rm -f "${SF}/debuglink2/c_debuglink.tmp"
  DEPENDS "${SF}/c_pie")
set(SF_GLOBAL_DEBUG "${SF}/debuglink3root${SF}/debuglink3")
symfixture(OUTPUT "${SF}/debuglink3/c_debuglink3" "${SF_GLOBAL_DEBUG}/c_debuglink3.debug"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/debuglink3" "${SF_GLOBAL_DEBUG}"
  COMMAND "${SYMFLAME_OBJCOPY}" --only-keep-debug "${SF}/c_nopie" "${SF_GLOBAL_DEBUG}/c_debuglink3.debug"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/c_nopie" -o "${SF}/debuglink3/c_debuglink3.tmp"
  COMMAND "${SYMFLAME_OBJCOPY}" --add-gnu-debuglink=${SF_GLOBAL_DEBUG}/c_debuglink3.debug
          "${SF}/debuglink3/c_debuglink3.tmp" "${SF}/debuglink3/c_debuglink3"
  COMMAND "${CMAKE_COMMAND}" -E rm -f "${SF}/debuglink3/c_debuglink3.tmp"
  DEPENDS "${SF}/c_nopie")
# a debuglink that names the binary itself
symfixture(OUTPUT "${SF}/selflink/c_selflink"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/selflink"
  COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/c_pie" -o "${SF}/selflink/c_selflink"
  COMMAND "${SYMFLAME_OBJCOPY}" --add-gnu-debuglink=${SF}/selflink/c_selflink
          "${SF}/selflink/c_selflink" "${SF}/selflink/c_selflink.tmp"
  COMMAND "${CMAKE_COMMAND}" -E rename "${SF}/selflink/c_selflink.tmp" "${SF}/selflink/c_selflink"
  DEPENDS "${SF}/c_pie")

add_custom_target(symfixtures DEPENDS ${SF_OUTPUTS})

set(SF_DEFINES
  SYMFLAME_FIXTURE_DIR="${SF}"
  SYMFLAME_LLVM_SYMBOLIZER="${SYMFLAME_LLVM_SYMBOLIZER}"
  SYMFLAME_LLVM_READOBJ="${SYMFLAME_LLVM_READOBJ}"
  SYMFLAME_NM="${SYMFLAME_NM}"
  SYMFLAME_CXXFILT="${SYMFLAME_CXXFILT}"
  SYMFLAME_LLVM_CXXFILT="${SYMFLAME_LLVM_CXXFILT}"
  SYMFLAME_FIXTURE_BUILDID="${SF_BUILDID_CXX}"
  SYMFLAME_HAVE_CLANG=$<BOOL:${SF_HAVE_CLANG}>
  SYMFLAME_HAVE_CROSS=$<BOOL:${SF_HAVE_CROSS}>
  SYMFLAME_HAVE_RUST=$<BOOL:${SF_HAVE_RUST}>
  SYMFLAME_HAVE_GO=$<BOOL:${SF_HAVE_GO}>
  SYMFLAME_GO="${SYMFLAME_GO}")

symflame_add_test(NAME tst_elffile SOURCES tst_elffile.cpp LIBS symbolize DEPENDS symfixtures)
target_compile_definitions(tst_elffile PRIVATE ${SF_DEFINES})
symflame_add_test(NAME tst_symbolizer SOURCES tst_symbolizer.cpp LIBS symbolize
  DEPENDS symfixtures TIMEOUT 600)
target_compile_definitions(tst_symbolizer PRIVATE ${SF_DEFINES})
# `symflame symbolize` on the gperftools fixture (tests/fixtures.cmake), read back by go tool pprof.
symflame_add_test(NAME tst_symbolizecli SOURCES tst_symbolizecli.cpp fixtures/pproforacle.h
  LIBS fixture_paths DEPENDS symflame fixtures TIMEOUT 300)
target_compile_definitions(tst_symbolizecli PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
