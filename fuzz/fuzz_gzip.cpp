// Fuzz harness: gzip decompression with its size and ratio limits, whole (gunzip) and piece by
// piece (GunzipStream): each keeps the cap, and where both succeed they give the same bytes.
#include "model/io/gunzipstream.h"
#include "model/io/gzip.h"

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    DecompressLimits limits;
    limits.maxOutputBytes = 32u << 20;
    limits.ratioCheckAfterBytes = 1u << 20;
    auto out = gunzip(std::span(data, size), limits);
    if (out && out->size() > limits.maxOutputBytes)
        std::abort(); // the cap must hold

    GunzipStream stream(std::span(data, size), limits);
    std::vector<uint8_t> piece(size % 2 ? 4093 : 65536); // an odd size and a round one
    uint64_t total = 0;
    for (;;) {
        auto n = stream.read(piece);
        if (!n)
            break;
        if (*n > piece.size())
            std::abort(); // more than asked for
        if (*n == 0)
            break;
        if (out && (total + *n > out->size() || std::memcmp(out->data() + total, piece.data(), *n) != 0))
            std::abort(); // both inflate the same stream: the same bytes
        total += *n;
        if (total > limits.maxOutputBytes)
            std::abort();
    }
    if (stream.atEnd() && out && total != out->size())
        std::abort();
    return 0;
}
