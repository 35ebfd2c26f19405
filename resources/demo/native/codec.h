// libdemocodec.so: a run-length encoder and a checksum. The demo ships this library stripped
// (its debug info in a separate file) to show a binary the binaries panel explains.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
// Encodes n bytes as (count, byte) pairs into out (at least 2 * n bytes); returns the length.
size_t democodec_encode(const unsigned char* in, size_t n, unsigned char* out);
// Adler-32 of n bytes.
uint32_t democodec_checksum(const unsigned char* data, size_t n);
}
