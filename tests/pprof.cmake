# tests of the pprof area: gzip, atomic file I/O and the pprof reader/writer. The pprof tests
# build and check profiles with protoc-generated classes, an encoder and decoder independent of
# model/io/protowire.h.
find_package(Protobuf REQUIRED)

add_library(symflame_test_pprof_proto STATIC proto/profile.proto proto/unpacked.proto)
# protoc sees the files as proto/*.proto (relative to this directory): include "proto/profile.pb.h".
protobuf_generate(TARGET symflame_test_pprof_proto LANGUAGE cpp
  PROTOC_OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
target_include_directories(symflame_test_pprof_proto SYSTEM PUBLIC "${CMAKE_CURRENT_BINARY_DIR}")
target_link_libraries(symflame_test_pprof_proto PUBLIC protobuf::libprotobuf)

symflame_add_test(NAME tst_gzip SOURCES tst_gzip.cpp LIBS ZLIB::ZLIB TIMEOUT 120)
symflame_add_test(NAME tst_fileio SOURCES tst_fileio.cpp TIMEOUT 60)
symflame_add_test(NAME tst_pprof SOURCES tst_pprof.cpp LIBS symflame_test_pprof_proto ZLIB::ZLIB TIMEOUT 120)
