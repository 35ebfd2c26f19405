# tests of JavaScript profiles and source maps. At build time: typescript@5, esbuild,
# @datadog/pprof (a real Node profiler writing pprof, with its prebuilt native part) and
# @jridgewell/trace-mapping (the oracle), pinned, are installed from npm into the build
# directory (a failed download fails the build); the TypeScript program in jsfixtures/src is
# compiled with separate .map files, with inline maps and as an esbuild bundle, and each build
# is run under `node --cpu-prof` (.cpuprofile) and under @datadog/pprof's wall profiler (pprof).
find_program(SYMFLAME_NODE node REQUIRED)
find_program(SYMFLAME_NPM npm REQUIRED)

set(JS_SRC "${CMAKE_CURRENT_SOURCE_DIR}/jsfixtures")
set(JS_OUT "${CMAKE_CURRENT_BINARY_DIR}/jsfixtures")
set(JS_NPM "${JS_OUT}/npm")
set(JS_BIN "${JS_NPM}/node_modules/.bin")
set(JS_SOURCES "${JS_SRC}/src/main.ts" "${JS_SRC}/src/shapes.ts" "${JS_SRC}/src/work.ts")

add_custom_command(OUTPUT "${JS_NPM}/installed.stamp"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${JS_NPM}"
  COMMAND ${SYMFLAME_NPM} install --prefix "${JS_NPM}" --no-audit --no-fund --no-save
          typescript@5.9.3 esbuild@0.24.2 @jridgewell/trace-mapping@0.3.31 @datadog/pprof@5.20.0
  COMMAND ${CMAKE_COMMAND} -E touch "${JS_NPM}/installed.stamp"
  COMMENT "npm install typescript, esbuild, @datadog/pprof, @jridgewell/trace-mapping (pinned)"
  VERBATIM)

set(JS_TSC_FLAGS --target es2020 --module commonjs --strict)
add_custom_command(OUTPUT "${JS_OUT}/separate/main.js" "${JS_OUT}/separate/main.js.map"
                          "${JS_OUT}/separate/work.js.map" "${JS_OUT}/separate/shapes.js.map"
  COMMAND "${JS_BIN}/tsc" --sourceMap ${JS_TSC_FLAGS} --outDir "${JS_OUT}/separate" ${JS_SOURCES}
  DEPENDS ${JS_SOURCES} "${JS_NPM}/installed.stamp" COMMENT "tsc --sourceMap" VERBATIM)
add_custom_command(OUTPUT "${JS_OUT}/inline/main.js" "${JS_OUT}/inline/work.js" "${JS_OUT}/inline/shapes.js"
  COMMAND "${JS_BIN}/tsc" --inlineSourceMap ${JS_TSC_FLAGS} --outDir "${JS_OUT}/inline" ${JS_SOURCES}
  DEPENDS ${JS_SOURCES} "${JS_NPM}/installed.stamp" COMMENT "tsc --inlineSourceMap" VERBATIM)
add_custom_command(OUTPUT "${JS_OUT}/bundle/bundle.js" "${JS_OUT}/bundle/bundle.js.map"
  COMMAND "${JS_BIN}/esbuild" "${JS_SRC}/src/main.ts" --bundle --sourcemap --platform=node
          "--outfile=${JS_OUT}/bundle/bundle.js" --log-level=warning
  DEPENDS ${JS_SOURCES} "${JS_NPM}/installed.stamp" COMMENT "esbuild --bundle --sourcemap" VERBATIM)

set(JS_PROFILES)
foreach(build separate inline bundle)
  if(build STREQUAL "bundle")
    set(script "${JS_OUT}/bundle/bundle.js")
  else()
    set(script "${JS_OUT}/${build}/main.js")
  endif()
  add_custom_command(OUTPUT "${JS_OUT}/${build}.cpuprofile"
    COMMAND ${SYMFLAME_NODE} --cpu-prof "--cpu-prof-dir=${JS_OUT}" "--cpu-prof-name=${build}.cpuprofile" "${script}"
    DEPENDS "${script}" COMMENT "node --cpu-prof (${build})" VERBATIM)
  add_custom_command(OUTPUT "${JS_OUT}/${build}.pb.gz"
    COMMAND ${SYMFLAME_NODE} "${JS_SRC}/ddprof.js" "${JS_NPM}/node_modules" "${script}" "${JS_OUT}/${build}.pb.gz"
    DEPENDS "${script}" "${JS_SRC}/ddprof.js" COMMENT "@datadog/pprof (${build})" VERBATIM)
  list(APPEND JS_PROFILES "${JS_OUT}/${build}.cpuprofile" "${JS_OUT}/${build}.pb.gz")
endforeach()
add_custom_target(symflame_js_fixtures DEPENDS ${JS_PROFILES}
  "${JS_OUT}/separate/main.js.map" "${JS_OUT}/bundle/bundle.js.map" "${JS_OUT}/inline/main.js")

symflame_add_test(NAME tst_sourcemap SOURCES tst_sourcemap.cpp LIBS symbolize
  DEPENDS symflame_js_fixtures symflame TIMEOUT 300)
target_compile_definitions(tst_sourcemap PRIVATE
  SYMFLAME_NODE="${SYMFLAME_NODE}" SYMFLAME_JS_FIXTURES="${JS_OUT}" SYMFLAME_JS_NODE_MODULES="${JS_NPM}/node_modules"
  SYMFLAME_JS_ORACLE="${JS_SRC}/oracle.js" SYMFLAME_JS_INLINEMAP="${JS_SRC}/inlinemap.js"
  SYMFLAME_EXECUTABLE="$<TARGET_FILE:symflame>")

# The viewer on the same profiles (offscreen): mapped frames in the details panel, status colors,
# "no source map" with the paths tried, the source-map directory setting.
if(TARGET ui)
  symflame_add_test(NAME tst_jsviewer SOURCES tst_jsviewer.cpp LIBS ui Qt6::Widgets
    DEPENDS symflame_js_fixtures TIMEOUT 300)
  set_target_properties(tst_jsviewer PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
  target_compile_definitions(tst_jsviewer PRIVATE SYMFLAME_JS_FIXTURES="${JS_OUT}")
endif()
