# Unit tests of ui/ widgets by themselves (offscreen): the flame graph widget, the flame graph at
# device pixel ratio 2 (QT_SCALE_FACTOR=2, set by the test's own main), the symbolization settings
# and their dialog. Not built with SYMFLAME_BUILD_GUI=OFF.
if(NOT TARGET ui)
  return()
endif()
symflame_add_test(NAME tst_flamegraphwidget SOURCES tst_flamegraphwidget.cpp LIBS ui fixture_paths
                  DEPENDS fixtures TIMEOUT 300)
symflame_add_test(NAME tst_highdpi SOURCES tst_highdpi.cpp LIBS ui Qt6::Widgets)
symflame_add_test(NAME tst_symbolizesettings SOURCES tst_symbolizesettings.cpp LIBS ui Qt6::Widgets TIMEOUT 120)
