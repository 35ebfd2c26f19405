# The test-support library: what several tests share. Included by tests/CMakeLists.txt; every
# test made by symflame_add_test links symflame_testsupport, and its include directory
# (tests/support) makes the helper headers includable by name ("symfixturehelpers.h").
#
#   symflame_testsupport          Qt Core + Test: running symflame and other programs
#                                 (processhelpers.h), a binary's symbols as nm lists them
#                                 (nmsymbols.h), and the header-only helpers: call trees
#                                 from folded stacks, the `go tool pprof` oracle, the symbolize
#                                 fixtures and profiles of them, the debuginfod servers.
#   symflame_testsupport_widgets  Qt Widgets: answering the viewer's file dialogs
#                                 (dialoghelpers.h); only the GUI tests link it.
add_library(symflame_testsupport STATIC
  support/processhelpers.cpp support/processhelpers.h support/nmsymbols.cpp support/nmsymbols.h support/filehelpers.h
  support/calltreetesthelpers.h support/pproforacle.h support/symfixturehelpers.h support/symprofilehelpers.h
  support/isolationhelpers.h support/debuginfod/debuginfodserver.h support/debuginfod/faultyhttpserver.h)
target_include_directories(symflame_testsupport PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/support")
target_link_libraries(symflame_testsupport PUBLIC Qt6::Core Qt6::Test PRIVATE symflame_warnings)
find_program(SYMFLAME_NM NAMES nm REQUIRED)
target_compile_definitions(symflame_testsupport PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>" SYMFLAME_NM="${SYMFLAME_NM}")

if(TARGET Qt6::Widgets)
  add_library(symflame_testsupport_widgets STATIC support/dialoghelpers.cpp support/dialoghelpers.h)
  target_link_libraries(symflame_testsupport_widgets PUBLIC symflame_testsupport Qt6::Widgets PRIVATE symflame_warnings)
endif()
