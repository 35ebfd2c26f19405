# Warnings live in an INTERFACE target that every project target links privately.
add_library(symflame_warnings INTERFACE)
target_compile_options(symflame_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
