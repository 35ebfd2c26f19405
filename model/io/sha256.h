// SHA-256 for OTLP's htlhash file identity: a small wrapper over nettle's (Debian's libnettle),
// so that no other file includes nettle.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

struct sha256_ctx;

namespace symflame::model {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

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
    std::unique_ptr<sha256_ctx> m_ctx;
};

} // namespace symflame::model
