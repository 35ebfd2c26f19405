#include "symbolize/locate/crc32.h"

#include <zlib.h>

namespace symflame::symbolize {

uint32_t crc32(uint32_t crc, std::span<const uint8_t> data)
{
    // zlib's crc32 is this very CRC; crc32_z takes a size_t length, so files past 4 GiB need no
    // chunking.
    return static_cast<uint32_t>(crc32_z(crc, data.data(), data.size()));
}

} // namespace symflame::symbolize
