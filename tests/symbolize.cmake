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
find_program(SYMFLAME_DWZ NAMES dwz REQUIRED)
find_program(SYMFLAME_XZ NAMES xz REQUIRED)
find_program(SYMFLAME_LLVM_DWP NAMES llvm-dwp-19 llvm-dwp HINTS /usr/lib/llvm-19/bin REQUIRED)

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
# ... and for the two binaries whose debug files dwz processes together.
set(SF_BUILDID_DWZ_A "d2a0000000000000000000000000000000000001")
set(SF_BUILDID_DWZ_B "d2b0000000000000000000000000000000000002")
set(SF_BUILDID_DWZ4_A "d4a0000000000000000000000000000000000003")
set(SF_BUILDID_DWZ4_B "d4b0000000000000000000000000000000000004")

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

# dwz: two binaries' separate debug files processed by `dwz -m`, which moves what they share into a
# supplementary file. The originals are kept (the oracle's input). <layout>/debug is a debug
# directory holding the debug files by build ID and, in .dwz/, the supplementary file:
#   dwz/   DWARF 5 input, GNU forms, link to /usr/lib/debug/.dwz/symflame-fixture.debug (-M);
#   dwz5/  DWARF 5 input, DWARF 5 forms (.debug_sup, DW_FORM_ref_sup4 / strp_sup, -5), relative link (-r);
#   dwz4/  DWARF 4 input, GNU forms, relative link (-r).
# Each layout's binaries are <layout>/bin/dwz_a (PIE) and dwz_b (non-PIE).
foreach(v "dwz_a;${SF_BUILDID_DWZ_A};-fPIE;-pie;-g" "dwz_b;${SF_BUILDID_DWZ_B};-fno-pie;-no-pie;-g"
          "dwz4_a;${SF_BUILDID_DWZ4_A};-fPIE;-pie;-gdwarf-4" "dwz4_b;${SF_BUILDID_DWZ4_B};-fno-pie;-no-pie;-gdwarf-4")
  list(GET v 0 name)
  list(GET v 1 id)
  list(GET v 2 cflag)
  list(GET v 3 lflag)
  list(GET v 4 gflag)
  symfixture(OUTPUT "${SF}/dwz/full/${name}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/dwz/full"
    COMMAND "${SF_CXX}" -O2 ${gflag} ${cflag} ${lflag} ${SF_CXX_ARGS} -Wl,--build-id=0x${id} -o "${SF}/dwz/full/${name}"
    DEPENDS ${SF_CXX_DEPS})
endforeach()
set(SF_DWZ_OUTPUTS)
set(SF_DWZ_COMMANDS)
foreach(v "dwz;dwz_a;dwz_b;${SF_BUILDID_DWZ_A};${SF_BUILDID_DWZ_B}" "dwz5;dwz_a;dwz_b;${SF_BUILDID_DWZ_A};${SF_BUILDID_DWZ_B}"
          "dwz4;dwz4_a;dwz4_b;${SF_BUILDID_DWZ4_A};${SF_BUILDID_DWZ4_B}")
  list(GET v 0 layout)
  foreach(which a b)
    if(which STREQUAL "a")
      list(GET v 1 full)
      list(GET v 3 id)
    else()
      list(GET v 2 full)
      list(GET v 4 id)
    endif()
    set(name dwz_${which})
    string(SUBSTRING "${id}" 0 2 dir)
    string(SUBSTRING "${id}" 2 -1 rest)
    set(SF_DWZ_${layout}_${name} "${SF}/${layout}/debug/.build-id/${dir}/${rest}.debug")
    list(APPEND SF_DWZ_OUTPUTS "${SF}/${layout}/bin/${name}" "${SF}/${layout}/orig/${name}.debug"
      "${SF_DWZ_${layout}_${name}}")
    list(APPEND SF_DWZ_COMMANDS
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${SF}/${layout}/bin" "${SF}/${layout}/orig"
              "${SF}/${layout}/debug/.build-id/${dir}" "${SF}/${layout}/debug/.dwz"
      COMMAND "${SYMFLAME_OBJCOPY}" --only-keep-debug "${SF}/dwz/full/${full}" "${SF}/${layout}/orig/${name}.debug"
      COMMAND "${SYMFLAME_STRIP}" --strip-all "${SF}/dwz/full/${full}" -o "${SF}/${layout}/bin/${name}"
      COMMAND "${CMAKE_COMMAND}" -E copy "${SF}/${layout}/orig/${name}.debug" "${SF_DWZ_${layout}_${name}}")
  endforeach()
endforeach()
list(APPEND SF_DWZ_OUTPUTS "${SF}/dwz/debug/.dwz/symflame-fixture.debug" "${SF}/dwz5/debug/.dwz/symflame-fixture.sup"
  "${SF}/dwz4/debug/.dwz/symflame-fixture.debug")
symfixture(OUTPUT ${SF_DWZ_OUTPUTS}
  ${SF_DWZ_COMMANDS}
  COMMAND "${SYMFLAME_DWZ}" -m "${SF}/dwz/debug/.dwz/symflame-fixture.debug"
          -M /usr/lib/debug/.dwz/symflame-fixture.debug "${SF_DWZ_dwz_dwz_a}" "${SF_DWZ_dwz_dwz_b}"
  COMMAND "${SYMFLAME_DWZ}" -5 -r -m "${SF}/dwz5/debug/.dwz/symflame-fixture.sup"
          "${SF_DWZ_dwz5_dwz_a}" "${SF_DWZ_dwz5_dwz_b}"
  COMMAND "${SYMFLAME_DWZ}" -r -m "${SF}/dwz4/debug/.dwz/symflame-fixture.debug"
          "${SF_DWZ_dwz4_dwz_a}" "${SF_DWZ_dwz4_dwz_b}"
  DEPENDS "${SF}/dwz/full/dwz_a" "${SF}/dwz/full/dwz_b" "${SF}/dwz/full/dwz4_a" "${SF}/dwz/full/dwz4_b")

# MiniDebugInfo (tests/symfixtures/minidebuginfo.sh): a C program and a shared library; their
# symbol-table-only copies (DWARF dropped) are what llvm-symbolizer's names are taken from.
foreach(pair "c_pie;c_mini;c_symtab" "libsfshapes.so;libsfshapes_mini.so;libsfshapes_symtab.so")
  list(GET pair 0 in)
  list(GET pair 1 out)
  list(GET pair 2 symtab)
  symfixture(OUTPUT "${SF}/${out}"
    COMMAND sh "${SF_SRC}/minidebuginfo.sh" "${SYMFLAME_NM}" "${SYMFLAME_OBJCOPY}" "${SYMFLAME_STRIP}" "${SYMFLAME_XZ}"
            "${SF}/${in}" "${SF}/${out}"
    DEPENDS "${SF}/${in}" "${SF_SRC}/minidebuginfo.sh")
  symfixture(OUTPUT "${SF}/${symtab}"
    COMMAND "${SYMFLAME_OBJCOPY}" --strip-debug "${SF}/${in}" "${SF}/${symtab}" DEPENDS "${SF}/${in}")
endforeach()

# Split DWARF, compiled and linked in separate steps so that the skeleton units name their .dwo
# relative to DW_AT_comp_dir (the directory the compiler ran in): a C++ program with its .dwo
# beside it; a C program whose .dwo files were packed by llvm-dwp into <binary>.dwp and removed.
file(MAKE_DIRECTORY "${SF}/split" "${SF}/split_dwp")
symfixture(OUTPUT "${SF}/split/cxx_split" "${SF}/split/inline.dwo"
  COMMAND "${SF_CXX}" -O2 -g -gsplit-dwarf -fPIE -std=c++17 -I "${SF_SRC}" -c "${SF_SRC}/inline.cpp" -o inline.o
  COMMAND "${SF_CXX}" -fPIE -pie inline.o -L "${SF}" -lsfshapes -o cxx_split
  COMMAND "${CMAKE_COMMAND}" -E rm -f inline.o
  WORKING_DIRECTORY "${SF}/split"
  DEPENDS ${SF_CXX_DEPS})
symfixture(OUTPUT "${SF}/split_dwp/c_split_dwp" "${SF}/split_dwp/c_split_dwp.dwp"
  COMMAND "${SF_CC}" -O2 -g -gsplit-dwarf -fPIE -c "${SF_SRC}/cprog.c" -o cprog.o
  COMMAND "${SF_CC}" -fPIE -pie cprog.o -o c_split_dwp
  COMMAND "${SYMFLAME_LLVM_DWP}" -e c_split_dwp -o c_split_dwp.dwp
  COMMAND "${CMAKE_COMMAND}" -E rm -f cprog.o cprog.dwo
  WORKING_DIRECTORY "${SF}/split_dwp"
  DEPENDS "${SF_SRC}/cprog.c")

add_custom_target(symfixtures DEPENDS ${SF_OUTPUTS})

set(SF_DEFINES
  SYMFLAME_FIXTURE_DIR="${SF}"
  SYMFLAME_LLVM_SYMBOLIZER="${SYMFLAME_LLVM_SYMBOLIZER}"
  SYMFLAME_LLVM_READOBJ="${SYMFLAME_LLVM_READOBJ}"
  SYMFLAME_NM="${SYMFLAME_NM}"
  SYMFLAME_CXXFILT="${SYMFLAME_CXXFILT}"
  SYMFLAME_LLVM_CXXFILT="${SYMFLAME_LLVM_CXXFILT}"
  SYMFLAME_FIXTURE_BUILDID="${SF_BUILDID_CXX}"
  SYMFLAME_FIXTURE_BUILDID_DWZ_A="${SF_BUILDID_DWZ_A}"
  SYMFLAME_FIXTURE_BUILDID_DWZ_B="${SF_BUILDID_DWZ_B}"
  SYMFLAME_FIXTURE_BUILDID_DWZ4_A="${SF_BUILDID_DWZ4_A}"
  SYMFLAME_FIXTURE_BUILDID_DWZ4_B="${SF_BUILDID_DWZ4_B}"
  SYMFLAME_OBJCOPY="${SYMFLAME_OBJCOPY}"
  SYMFLAME_XZ="${SYMFLAME_XZ}"
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
symflame_add_test(NAME tst_symbolizecli SOURCES tst_symbolizecli.cpp
  LIBS fixture_paths DEPENDS symflame fixtures TIMEOUT 300)
target_compile_definitions(tst_symbolizecli PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
