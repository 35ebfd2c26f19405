// SHA-256 (FIPS 180-4), small and dependency-free: used for OTLP's htlhash file identity.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace symflame::model {

class Sha256 {
public:
    Sha256();
    void update(std::span<const uint8_t> data);
    /// The digest; the object must not be updated afterwards.
    std::array<uint8_t, 32> finish();

    static std::array<uint8_t, 32> of(std::span<const uint8_t> data)
    {
        Sha256 h;
        h.update(data);
        return h.finish();
    }

private:
    void block(const uint8_t* p);
    uint32_t m_state[8];
    uint8_t m_buffer[64];
    size_t m_buffered = 0;
    uint64_t m_length = 0; // bytes
};

} // namespace symflame::model
