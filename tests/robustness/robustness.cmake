# Robustness: what bad input and bugs must not do. The fuzz harnesses over their inputs
# (fuzzinputs_*, fuzzinputs.cmake, included before this file), the mutation test (every kind of
# fixture mutated, the real symflame run on each mutant: no crash, no hang, a documented exit
# code, the input unchanged), the viewer opening every kept fuzz regression input and a sample of
# the seed corpora, and in sanitized builds the canaries that prove the sanitizer setup.
symflame_add_test(NAME tst_mutation SOURCES tst_mutation.cpp DEPENDS fixtures symfixtures fuzzinputs TIMEOUT 900)
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
endif()

# Sanitized builds: a bug of each kind must fail fatally with a report where the tests write them
# (the options are set for every test in tests/CMakeLists.txt).
if(SYMFLAME_SANITIZE)
  add_executable(sanitizer_canary robustness/sanitizers/canary.cpp)
  set_target_properties(sanitizer_canary PROPERTIES AUTOMOC OFF)
  foreach(c "heap-overflow|heap-buffer-overflow" "use-after-free|heap-use-after-free"
            "signed-overflow|signed integer overflow" "leak|detected memory leaks"
            "vector-bounds|__n < this->size()")
    string(REPLACE "|" ";" c "${c}")
    list(GET c 0 what)
    list(GET c 1 expect)
    add_test(NAME sanitizer_canary_${what} COMMAND "${CMAKE_COMMAND}" -DCANARY=$<TARGET_FILE:sanitizer_canary>
      -DWHAT=${what} "-DEXPECT=${expect}" -DREPORTS=${CMAKE_CURRENT_BINARY_DIR}/sanitizer-canary/${what}
      -P "${CMAKE_CURRENT_SOURCE_DIR}/robustness/sanitizers/canary.cmake")
    set_tests_properties(sanitizer_canary_${what} PROPERTIES TIMEOUT 60)
  endforeach()
endif()
