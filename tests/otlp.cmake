# tests of the OTLP area: the reader (every layout, protobuf and JSON), the writer, the CLI's
# --profile and symbolization of an OTLP profile. OTLP files are made at build time by otlpgen,
# linked with protoc's classes for tests/proto/otlp/*.proto (an encoder independent of
# model/io/protowire.h); the JSON files in tests/otlp/ were written by hand from the specification.
add_library(symflame_test_otlp_proto STATIC
  proto/otlp/v1_10.proto proto/otlp/v1_9.proto proto/otlp/v1_8.proto proto/otlp/v1_7.proto)
protobuf_generate(TARGET symflame_test_otlp_proto LANGUAGE cpp
  PROTOC_OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
target_include_directories(symflame_test_otlp_proto SYSTEM PUBLIC "${CMAKE_CURRENT_BINARY_DIR}")
target_link_libraries(symflame_test_otlp_proto PUBLIC protobuf::libprotobuf)

add_executable(otlpgen otlpgen.cpp)
set_target_properties(otlpgen PROPERTIES AUTOMOC OFF)
target_link_libraries(otlpgen PRIVATE symflame_test_otlp_proto symflame_test_pprof_proto)

set(OTLP_DIR "${CMAKE_CURRENT_BINARY_DIR}/otlp")
file(MAKE_DIRECTORY "${OTLP_DIR}")
set(OTLP_FILES "${OTLP_DIR}/scenario-v1.10.pb" "${OTLP_DIR}/scenario-v1.10-request.pb"
  "${OTLP_DIR}/scenario-v1.9.pb" "${OTLP_DIR}/scenario-v1.8.pb" "${OTLP_DIR}/scenario-v1.7.pb"
  "${OTLP_DIR}/scenario-cpu.pprof.pb")
add_custom_command(
  OUTPUT ${OTLP_FILES} "${OTLP_DIR}/scenario-v1.10.pb.gz"
  COMMAND otlpgen "${OTLP_DIR}"
  COMMAND ${CMAKE_COMMAND} -E chdir "${OTLP_DIR}" sh -c "gzip -c scenario-v1.10.pb > scenario-v1.10.pb.gz"
  DEPENDS otlpgen
  COMMENT "Writing OTLP test files in every layout"
  VERBATIM)
add_custom_target(otlp_testdata DEPENDS ${OTLP_FILES} "${OTLP_DIR}/scenario-v1.10.pb.gz")

symflame_add_test(NAME tst_otlp SOURCES tst_otlp.cpp
  LIBS symflame_test_otlp_proto symflame_test_pprof_proto symbolize fixture_paths
  DEPENDS otlp_testdata fixtures symflame TIMEOUT 300)
target_compile_definitions(tst_otlp PRIVATE SYMFLAME_OTLP_DIR="${OTLP_DIR}"
  SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")

# The viewer's choice of profile for files of several (offscreen, screenshot under
# /tmp/otlp-shots).
if(TARGET ui)
  symflame_add_test(NAME tst_otlpviewer SOURCES tst_otlpviewer.cpp LIBS ui Qt6::Widgets
    DEPENDS otlp_testdata TIMEOUT 120)
  set_target_properties(tst_otlpviewer PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
  target_compile_definitions(tst_otlpviewer PRIVATE SYMFLAME_OTLP_DIR="${OTLP_DIR}")
endif()
