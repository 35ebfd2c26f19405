#include "symbolize/locate/crc32.h"

#include <zlib.h>

#include <algorithm>

namespace symflame::symbolize {

uint32_t crc32(uint32_t crc, std::span<const uint8_t> data)
{
    // zlib's crc32 is this very CRC (and fast); its length is a uInt, so feed it in chunks.
    uLong c = crc;
    const uint8_t* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        const size_t n = std::min<size_t>(left, 1u << 30);
        c = ::crc32(c, p, static_cast<uInt>(n));
        p += n;
        left -= n;
    }
    return static_cast<uint32_t>(c);
}

} // namespace symflame::symbolize
