# tests of the calltree area: symbols, call trees, top table, folded stacks, flame layout and
# frame/value formatting.
set(_calltree_tests tst_calltree tst_toptable tst_folded tst_flamelayout tst_frameformat)
symflame_add_test(NAME tst_calltree SOURCES tst_calltree.cpp)
# tst_toptable runs `go tool pprof -top` as the oracle for flat, cum and the sort order.
symflame_add_test(NAME tst_toptable SOURCES tst_toptable.cpp TIMEOUT 600)
symflame_add_test(NAME tst_folded SOURCES tst_folded.cpp)
symflame_add_test(NAME tst_flamelayout SOURCES tst_flamelayout.cpp)
symflame_add_test(NAME tst_frameformat SOURCES tst_frameformat.cpp)
# moc (Qt 6.4) cannot parse libstdc++'s <compare>/<concepts> once it is given the compiler's
# predefined macros (__cplusplus), and model/core/ids.h includes <compare>. Without the predefines
# moc skips those headers' bodies, which is all it needs.
set_target_properties(${_calltree_tests} PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
