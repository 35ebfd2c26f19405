#include "model/io/md5.h"

#include <nettle/md5.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace symflame::model {

Md5Digest md5Of(std::span<const uint8_t> data)
{
    md5_ctx ctx;
    md5_init(&ctx);
    md5_update(&ctx, data.size(), data.data());
    static_assert(MD5_DIGEST_SIZE == 16);
    Md5Digest digest;
    md5_digest(&ctx, digest.size(), digest.data());
    return digest;
}

Result<Md5Digest> md5OfFile(const std::string& path, uint64_t maxBytes)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::Io, std::strerror(errno), path);
    md5_ctx ctx;
    md5_init(&ctx);
    char buffer[1 << 16];
    uint64_t total = 0;
    while (in) {
        in.read(buffer, sizeof buffer);
        const std::streamsize n = in.gcount();
        if (n <= 0)
            break;
        total += uint64_t(n);
        if (total > maxBytes)
            return makeError(ErrorCode::TooLarge, "larger than " + std::to_string(maxBytes >> 20) + " MiB", path);
        md5_update(&ctx, size_t(n), reinterpret_cast<const uint8_t*>(buffer));
    }
    if (in.bad())
        return makeError(ErrorCode::Io, "read error", path);
    Md5Digest digest;
    md5_digest(&ctx, digest.size(), digest.data());
    return digest;
}

std::string md5Hex(const Md5Digest& digest)
{
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (uint8_t b : digest) {
        s += hex[b >> 4];
        s += hex[b & 15];
    }
    return s;
}

} // namespace symflame::model
