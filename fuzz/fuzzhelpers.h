// Shared by the fuzz harnesses: reading the fuzzer's bytes as little-endian numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace symflame::fuzz {

/// Takes fixed-size numbers off the front of the input; zeros once it runs out.
class ByteReader {
public:
    explicit ByteReader(std::span<const uint8_t> data)
        : m_data(data)
    {
    }
    uint64_t u64()
    {
        uint64_t v = 0;
        const size_t n = m_data.size() < 8 ? m_data.size() : 8;
        std::memcpy(&v, m_data.data(), n);
        m_data = m_data.subspan(n);
        return v;
    }
    std::span<const uint8_t> rest() const { return m_data; }

private:
    std::span<const uint8_t> m_data;
};

} // namespace symflame::fuzz
