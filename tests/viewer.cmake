# tests of the viewer area: stack filters and search (model), the painter's color schemes,
# highlighting, icicle orientation and horizontal zoom, the item models, export, and the main
# window's search, rules and docks (offscreen, with screenshots under /tmp/viewer-shots).
if(NOT TARGET ui)
  return()
endif()
symflame_add_test(NAME tst_viewer SOURCES tst_viewer.cpp LIBS ui fixture_paths Qt6::Widgets Qt6::Svg symflame_testsupport_widgets
                  DEPENDS fixtures TIMEOUT 300)
# moc (Qt 6.4) cannot parse libstdc++'s <compare> with the compiler's predefined macros (see calltree.cmake).
set_target_properties(tst_viewer PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
# The flame graph at device pixel ratio 2 (QT_SCALE_FACTOR=2, set by the test's own main).
symflame_add_test(NAME tst_highdpi SOURCES tst_highdpi.cpp LIBS ui Qt6::Widgets)
set_target_properties(tst_highdpi PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
