# Unit tests of model/ (core, io, analysis): gzip and zstd, atomic file I/O, the pprof and OTLP readers and
# writers, call trees, the top table, folded stacks, the flame layout and how frames and values
# read as text.
symflame_add_test(NAME tst_gzip SOURCES tst_gzip.cpp LIBS ZLIB::ZLIB TIMEOUT 120)
symflame_add_test(NAME tst_fileio SOURCES tst_fileio.cpp TIMEOUT 60)
# zstd decompression against the zstd tool (SYMFLAME_ZSTD: found below for tst_otlp too).
find_program(SYMFLAME_ZSTD NAMES zstd REQUIRED)
symflame_add_test(NAME tst_zstd SOURCES tst_zstd.cpp DEFINES SYMFLAME_ZSTD="${SYMFLAME_ZSTD}" TIMEOUT 120)
symflame_add_test(NAME tst_pprof SOURCES tst_pprof.cpp LIBS symflame_test_pprof_proto ZLIB::ZLIB TIMEOUT 120)
# Every OTLP layout, protobuf and JSON, and the Collector's files of them (compressed by the zstd
# tool); the CLI's --profile and symbolization of an OTLP profile.
symflame_add_test(NAME tst_otlp SOURCES tst_otlp.cpp
  LIBS symflame_test_otlp_proto symflame_test_pprof_proto symbolize fixture_paths
  DEFINES SYMFLAME_OTLP_DIR="${OTLP_DIR}" SYMFLAME_ZSTD="${SYMFLAME_ZSTD}"
  DEPENDS otlp_testdata fixtures TIMEOUT 300)

symflame_add_test(NAME tst_calltree SOURCES tst_calltree.cpp)
# tst_toptable runs `go tool pprof -top` as the oracle for flat, cum and the sort order.
symflame_add_test(NAME tst_toptable SOURCES tst_toptable.cpp TIMEOUT 600)
symflame_add_test(NAME tst_folded SOURCES tst_folded.cpp)
symflame_add_test(NAME tst_diff SOURCES tst_diff.cpp)
symflame_add_test(NAME tst_flamelayout SOURCES tst_flamelayout.cpp)
symflame_add_test(NAME tst_frameformat SOURCES tst_frameformat.cpp)
# Label views: label filters (pprof's -tagfocus forms), time ranges, group frames.
symflame_add_test(NAME tst_labelview SOURCES tst_labelview.cpp)
# The legacy formats go tool pprof reads (gperftools' CPU profile), against `go tool pprof -proto`.
symflame_add_test(NAME tst_legacy SOURCES tst_legacy.cpp LIBS fixture_paths DEPENDS fixtures TIMEOUT 300)
# perf.data: recordings made at test time by `perf record` (linux-perf), against `perf script`.
symflame_add_test(NAME tst_perfdata SOURCES tst_perfdata.cpp TIMEOUT 300)
# Truncated stacks on profiles built by hand: which count, the binary blamed, the [truncated] root.
symflame_add_test(NAME tst_truncatedstacks SOURCES tst_truncatedstacks.cpp)
