# lookupModules: sharded, multi-threaded lookups agree with one engine. The large input is the
# symflame executable itself (RelWithDebInfo: DWARF for thousands of functions).
symflame_add_test(NAME tst_parallellookup SOURCES tst_parallellookup.cpp symfixturehelpers.h
  LIBS symbolize DEPENDS symfixtures symflame TIMEOUT 600)
target_compile_definitions(tst_parallellookup PRIVATE ${SF_DEFINES} SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
