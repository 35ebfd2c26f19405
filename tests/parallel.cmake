# Tests of the parallel lookup, the answer cache, debuginfod and debuginfo check.
# lookupModules: sharded, multi-threaded lookups agree with one engine. The large input is the
# symflame executable itself (RelWithDebInfo: DWARF for thousands of functions).
symflame_add_test(NAME tst_parallellookup SOURCES tst_parallellookup.cpp
  LIBS symbolize DEPENDS symfixtures symflame TIMEOUT 600)
target_compile_definitions(tst_parallellookup PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")

# debuginfod: a real server (Debian's debuginfod) and a fault-injecting one, both on 127.0.0.1.
find_program(SYMFLAME_DEBUGINFOD NAMES debuginfod REQUIRED)
symflame_add_test(NAME tst_debuginfod SOURCES tst_debuginfod.cpp
 
  LIBS symbolize DEPENDS symfixtures symflame TIMEOUT 600)
target_compile_definitions(tst_debuginfod PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")

# The viewer's symbolization settings and their dialog (offscreen).
if(TARGET ui)
  symflame_add_test(NAME tst_symbolizesettings SOURCES tst_symbolizesettings.cpp LIBS ui TIMEOUT 120)
  target_link_libraries(tst_symbolizesettings PRIVATE Qt6::Widgets)
  set_target_properties(tst_symbolizesettings PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
endif()

# symflame debuginfo check, against llvm-dwarfdump-19 and readelf.
find_program(SYMFLAME_LLVM_DWARFDUMP NAMES llvm-dwarfdump-19 llvm-dwarfdump HINTS /usr/lib/llvm-19/bin REQUIRED)
symflame_add_test(NAME tst_debuginfocheck SOURCES tst_debuginfocheck.cpp
  DEPENDS symfixtures symflame TIMEOUT 300)
target_compile_definitions(tst_debuginfocheck PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>"
  SYMFLAME_LLVM_DWARFDUMP="${SYMFLAME_LLVM_DWARFDUMP}")

# Missing-debuginfo triage: rows and statuses, the table model and the panel (offscreen).
if(TARGET ui)
  symflame_add_test(NAME tst_binariespanel SOURCES tst_binariespanel.cpp
    LIBS ui symbolize symflame_testsupport_widgets DEPENDS symfixtures symflame TIMEOUT 300)
  target_link_libraries(tst_binariespanel PRIVATE Qt6::Widgets)
  target_compile_definitions(tst_binariespanel PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
  set_target_properties(tst_binariespanel PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
endif()
