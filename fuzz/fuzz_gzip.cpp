// Fuzz harness: gzip decompression with its size and ratio limits.
#include "model/io/gzip.h"

#include <cstdlib>

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    DecompressLimits limits;
    limits.maxOutputBytes = 32u << 20;
    limits.ratioCheckAfterBytes = 1u << 20;
    auto out = gunzip(std::span(data, size), limits);
    if (out && out->size() > limits.maxOutputBytes)
        std::abort(); // the cap must hold
    return 0;
}
