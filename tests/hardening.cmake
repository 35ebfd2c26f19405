# Hardening (issue 10): the mutation test (every kind of fixture mutated, the real symflame run
# on each mutant: no crash, no hang, a documented exit code, the input unchanged) and the viewer
# opening every kept fuzz regression input and a sample of the seed corpora.
symflame_add_test(NAME tst_mutation SOURCES tst_mutation.cpp DEPENDS symflame fixtures symfixtures fuzzinputs
                  TIMEOUT 900)
target_compile_definitions(tst_mutation PRIVATE SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")
foreach(t gofixtures otlp_testdata)
  if(TARGET ${t})
    add_dependencies(tst_mutation ${t})
  endif()
endforeach()
if(TARGET symflame_js_fixtures)
  add_dependencies(tst_mutation symflame_js_fixtures)
  target_compile_definitions(tst_mutation PRIVATE SYMFLAME_JS_FIXTURES="${CMAKE_CURRENT_BINARY_DIR}/jsfixtures")
endif()

if(TARGET ui)
  symflame_add_test(NAME tst_guicrashers SOURCES tst_guicrashers.cpp LIBS ui fixture_paths Qt6::Widgets
                    DEPENDS fixtures fuzzinputs TIMEOUT 600)
  # moc (Qt 6.4) cannot parse libstdc++'s <compare> with the compiler's predefined macros (see calltree.cmake).
  set_target_properties(tst_guicrashers PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
endif()
