// The shared library of the libcprog fixture (libsfe2e.so): work that spends its time in libc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace e2e {

/// Copies, compares and clears a buffer of size bytes rounds times (memcpy, memcmp, memset);
/// returns a checksum so the work can't be dropped.
uint64_t shuffleBuffers(size_t size, int rounds);

} // namespace e2e
