#include "model/io/sha256.h"

#include <nettle/sha2.h>

namespace symflame::model {

Sha256::Sha256()
    : m_ctx(std::make_unique<sha256_ctx>())
{
    sha256_init(m_ctx.get());
}

Sha256::~Sha256() = default;

void Sha256::update(std::span<const uint8_t> data)
{
    sha256_update(m_ctx.get(), data.size(), data.data());
}

std::array<uint8_t, 32> Sha256::finish()
{
    static_assert(SHA256_DIGEST_SIZE == 32);
    std::array<uint8_t, 32> digest;
    sha256_digest(m_ctx.get(), digest.size(), digest.data());
    return digest;
}

} // namespace symflame::model
