# tests of the Go engine (symbolize/object/gopclntab, gobuildinfo, symbolize/engines/goengine). Fixture programs from
# tests/gofixtures/ are built at build time with the Go toolchain the build found (Debian's Go
# 1.19: the 1.18 table layout) in several modes and for other architectures (4-byte pointers,
# big-endian); Go-built executables of other toolchains (1.14: the 1.2 layout, 1.17: the 1.16
# layout, 1.23: the 1.20 layout) come from esbuild's npm packages, downloaded once into the build
# directory and checked against the registry's SHA-1. Oracles: `go tool addr2line` and
# llvm-symbolizer-19 on the programs' DWARF.
find_program(SYMFLAME_GO_FOR_GOSYM NAMES go)
if(NOT SYMFLAME_GO_FOR_GOSYM)
  message(WARNING "go not found: the Go symbolization tests are not built")
  return()
endif()
find_program(SYMFLAME_LLVM_SYMBOLIZER_GOSYM NAMES llvm-symbolizer-19 llvm-symbolizer HINTS /usr/lib/llvm-19/bin REQUIRED)
find_program(SYMFLAME_OBJCOPY_GOSYM NAMES objcopy REQUIRED)
find_program(SYMFLAME_STRIP_GOSYM NAMES strip REQUIRED)

set(GF_SRC "${CMAKE_CURRENT_SOURCE_DIR}/gofixtures")
set(GF "${CMAKE_CURRENT_BINARY_DIR}/gofixtures")
file(MAKE_DIRECTORY "${GF}")
set(GF_OUTPUTS)
set(GF_ENV GOCACHE=${GF}/gocache GOPATH=${GF}/gopath GOPROXY=off GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local)

# gofixture(NAME <name> SOURCE <dir> [ENV k=v...] [FLAGS ...]): go build of gofixtures/<dir>.
function(gofixture)
  cmake_parse_arguments(G "" "NAME;SOURCE" "ENV;FLAGS" ${ARGN})
  add_custom_command(OUTPUT "${GF}/${G_NAME}"
    COMMAND "${CMAKE_COMMAND}" -E env ${GF_ENV} ${G_ENV}
            "${SYMFLAME_GO_FOR_GOSYM}" build ${G_FLAGS} -o "${GF}/${G_NAME}" "${GF_SRC}/${G_SOURCE}/main.go"
    DEPENDS "${GF_SRC}/${G_SOURCE}/main.go" VERBATIM)
  set(GF_OUTPUTS ${GF_OUTPUTS} "${GF}/${G_NAME}" PARENT_SCOPE)
endfunction()

gofixture(NAME go_default SOURCE prog ENV CGO_ENABLED=0)
gofixture(NAME go_stripped SOURCE prog ENV CGO_ENABLED=0 FLAGS "-ldflags=-s -w")
gofixture(NAME go_trimpath SOURCE prog ENV CGO_ENABLED=0 FLAGS -trimpath)
gofixture(NAME go_pie SOURCE prog ENV CGO_ENABLED=0 FLAGS -buildmode=pie)
gofixture(NAME go_inline SOURCE prog ENV CGO_ENABLED=0 FLAGS -gcflags=all=-l=4)
gofixture(NAME go_cgo SOURCE cgoprog ENV CGO_ENABLED=1)
foreach(arch 386 arm ppc64 s390x)
  gofixture(NAME go_${arch} SOURCE prog ENV CGO_ENABLED=0 GOARCH=${arch})
endforeach()
gofixture(NAME go_ppc64_stripped SOURCE prog ENV CGO_ENABLED=0 GOARCH=ppc64 FLAGS "-ldflags=-s -w")
gofixture(NAME go_386_stripped SOURCE prog ENV CGO_ENABLED=0 GOARCH=386 FLAGS "-ldflags=-s -w")

# Derived: the default program stripped by binutils (same addresses as go_default, whose DWARF is
# the oracle), and with its .gopclntab section renamed (found through runtime.pclntab).
add_custom_command(OUTPUT "${GF}/go_strip_all"
  COMMAND "${SYMFLAME_STRIP_GOSYM}" --strip-all "${GF}/go_default" -o "${GF}/go_strip_all"
  DEPENDS "${GF}/go_default" VERBATIM)
add_custom_command(OUTPUT "${GF}/go_renamed"
  COMMAND "${SYMFLAME_OBJCOPY_GOSYM}" --rename-section .gopclntab=.renamed_pcln "${GF}/go_default" "${GF}/go_renamed"
  DEPENDS "${GF}/go_default" VERBATIM)
list(APPEND GF_OUTPUTS "${GF}/go_strip_all" "${GF}/go_renamed")

# Go-built executables of other toolchains: name|URL|the registry's SHA-1.
set(GF_DOWNLOADS
  "esbuild_go123|https://registry.npmjs.org/@esbuild/linux-x64/-/linux-x64-0.25.0.tgz|08fcf60cb400ed2382e9f8e0f5590bac8810469a"
  "esbuild_go117|https://registry.npmjs.org/esbuild-linux-64/-/esbuild-linux-64-0.12.29.tgz|35a6a755a52e945ec86617906b582348192e0892"
  "esbuild_go114|https://registry.npmjs.org/esbuild-linux-64/-/esbuild-linux-64-0.5.26.tgz|74ba655ac8ecc709c8634f5ed3f36cbc53c9acf7")
file(MAKE_DIRECTORY "${GF}/downloads")
foreach(entry IN LISTS GF_DOWNLOADS)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 url)
  list(GET parts 2 sha1)
  add_custom_command(OUTPUT "${GF}/${name}"
    COMMAND "${CMAKE_COMMAND}" -DURL=${url} -DSHA1=${sha1} -DFILE=${GF}/downloads/${name}.tgz
            -DDIR=${GF}/downloads/${name} -P "${GF_SRC}/download.cmake"
    COMMAND "${CMAKE_COMMAND}" -E copy "${GF}/downloads/${name}/package/bin/esbuild" "${GF}/${name}"
    DEPENDS "${GF_SRC}/download.cmake" VERBATIM)
  list(APPEND GF_OUTPUTS "${GF}/${name}")
endforeach()

add_custom_target(gofixtures DEPENDS ${GF_OUTPUTS})

symflame_add_test(NAME tst_gopclntab SOURCES tst_gopclntab.cpp LIBS symbolize DEPENDS gofixtures symflame TIMEOUT 600)
target_compile_definitions(tst_gopclntab PRIVATE
  SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>"
  SYMFLAME_GO_FIXTURE_DIR="${GF}"
  SYMFLAME_GO_TOOL="${SYMFLAME_GO_FOR_GOSYM}"
  SYMFLAME_LLVM_SYMBOLIZER="${SYMFLAME_LLVM_SYMBOLIZER_GOSYM}")
