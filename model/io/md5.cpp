#include "model/io/md5.h"

#include <nettle/md5.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace symflame::model {

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
    static_assert(MD5_DIGEST_SIZE == 16);
    Md5Digest digest;
    md5_digest(&ctx, digest.size(), digest.data());
    return digest;
}

} // namespace symflame::model
