# Containment of the debug info readers (symbolize/isolation/isolatedengine.h): a debug file that crashes LLVM's
# DWARF reader (tests/isolation/deepdies.s, assembled here: a million nested DIEs) fails its own
# module only; answers read in a worker process equal the in-process ones on the fixtures of
# tests/symbolize.cmake (included before this file: SF_DEFINES, symfixtures).
set(ISO_DIR "${CMAKE_CURRENT_BINARY_DIR}/isolation")
file(MAKE_DIRECTORY "${ISO_DIR}")
add_custom_command(
  OUTPUT "${ISO_DIR}/deepdies"
  COMMAND "${CMAKE_C_COMPILER}" -nostdlib -static -Wl,--build-id=sha1 -Wl,-e,main
          -o "${ISO_DIR}/deepdies" "${CMAKE_CURRENT_SOURCE_DIR}/isolation/deepdies.s"
  DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/isolation/deepdies.s"
  VERBATIM)
add_custom_target(isolationfixtures DEPENDS "${ISO_DIR}/deepdies")
# The wire protocol alone (symbolize/isolation/protocol.h): no process.
symflame_add_test(NAME tst_isolationprotocol SOURCES tst_isolationprotocol.cpp LIBS symbolize_isolation)
symflame_add_test(NAME tst_isolation SOURCES tst_isolation.cpp isolationhelpers.h symfixturehelpers.h symprofilehelpers.h
  LIBS symbolize DEPENDS symfixtures isolationfixtures symflame TIMEOUT 600)
target_compile_definitions(tst_isolation PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>"
  SYMFLAME_ISOLATION_DIR="${ISO_DIR}")

# The viewer (offscreen): the settings and a profile with the crasher.
if(TARGET ui)
  symflame_add_test(NAME tst_isolationviewer SOURCES tst_isolationviewer.cpp isolationhelpers.h symfixturehelpers.h symprofilehelpers.h
    LIBS ui symbolize DEPENDS symfixtures isolationfixtures symflame TIMEOUT 300)
  target_link_libraries(tst_isolationviewer PRIVATE Qt6::Widgets)
  target_compile_definitions(tst_isolationviewer PRIVATE ${SF_DEFINES} SYMFLAME_ISOLATION_DIR="${ISO_DIR}")
  set_target_properties(tst_isolationviewer PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
endif()
