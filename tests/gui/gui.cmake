# Tests of the viewer as a whole (offscreen): the main window, its panels and docks, on models
# and fixtures. Screenshots go to the build directory or /tmp (each test says where). Not built
# with SYMFLAME_BUILD_GUI=OFF.
if(NOT TARGET ui)
  return()
endif()
# Stack filters and search (model), the painter's color schemes, highlighting, icicle orientation
# and horizontal zoom, the item models, export, and the main window's search, rules and docks.
symflame_add_test(NAME tst_viewer SOURCES tst_viewer.cpp
  LIBS ui fixture_paths Qt6::Widgets Qt6::Svg symflame_testsupport_widgets DEPENDS fixtures TIMEOUT 300)
# The Source and Disassembly panel: costs, selection both ways, a missing source, the View action.
symflame_add_test(NAME tst_sourcepanel SOURCES tst_sourcepanel.cpp
  LIBS ui symbolize fixture_paths Qt6::Widgets DEPENDS fixtures TIMEOUT 300)
# Missing-debuginfo triage: rows and statuses, the table model and the panel.
symflame_add_test(NAME tst_binariespanel SOURCES tst_binariespanel.cpp
  LIBS ui symbolize Qt6::Widgets symflame_testsupport_widgets DEFINES ${SF_DEFINES} DEPENDS symfixtures TIMEOUT 300)
# The isolation settings and a profile with the crasher of tests/fixtures/isolation.cmake.
symflame_add_test(NAME tst_isolationviewer SOURCES tst_isolationviewer.cpp
  LIBS ui symbolize Qt6::Widgets DEFINES ${SF_DEFINES} SYMFLAME_ISOLATION_DIR="${ISO_DIR}"
  DEPENDS symfixtures isolationfixtures TIMEOUT 300)
# JavaScript profiles: mapped frames in the details panel, status colors, "no source map" with the
# paths tried, the source-map directory setting.
symflame_add_test(NAME tst_jsviewer SOURCES tst_jsviewer.cpp LIBS ui symbolize Qt6::Widgets
  DEFINES SYMFLAME_JS_FIXTURES="${JS_OUT}" DEPENDS symflame_js_fixtures TIMEOUT 300)
# The choice of profile for files of several (screenshot under /tmp/otlp-shots).
symflame_add_test(NAME tst_otlpviewer SOURCES tst_otlpviewer.cpp LIBS ui Qt6::Widgets
  DEFINES SYMFLAME_OTLP_DIR="${OTLP_DIR}" DEPENDS otlp_testdata TIMEOUT 120)
