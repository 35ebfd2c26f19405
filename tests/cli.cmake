# tests of the cli area: the symflame executable's command line (tst_cli runs the built
# binary) and the flame graph widget and main window (tst_flamegraphwidget, offscreen).
# Both need the Qt user interface (render, the painter): not built with SYMFLAME_BUILD_GUI=OFF.
if(NOT TARGET ui)
  return()
endif()
symflame_add_test(NAME tst_cli SOURCES tst_cli.cpp LIBS ui fixture_paths DEPENDS symflame fixtures TIMEOUT 300)
target_compile_definitions(tst_cli PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
symflame_add_test(NAME tst_flamegraphwidget SOURCES tst_flamegraphwidget.cpp LIBS ui fixture_paths
                  DEPENDS fixtures TIMEOUT 300)
# moc (Qt 6.4) cannot parse libstdc++'s <compare> with the compiler's predefined macros, and
# model/core/ids.h includes it (see calltree.cmake).
set_target_properties(tst_cli tst_flamegraphwidget PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
