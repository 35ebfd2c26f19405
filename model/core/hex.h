// Bytes as lowercase hex, as build IDs, checksums and digests are written (two digits a byte).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace symflame::model {

inline std::string hexBytes(std::span<const uint8_t> bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(bytes.size() * 2);
    for (const uint8_t b : bytes) {
        s.push_back(digits[b >> 4]);
        s.push_back(digits[b & 15]);
    }
    return s;
}

} // namespace symflame::model
