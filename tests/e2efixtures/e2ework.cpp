// libsfe2e.so: buffer work whose CPU time is spent inside libc's string functions.
#include "e2ework.h"

#include <cstring>
#include <vector>

namespace e2e {

__attribute__((noinline)) uint64_t shuffleBuffers(size_t size, int rounds)
{
    std::vector<unsigned char> a(size), b(size);
    uint64_t sum = 0;
    for (int r = 0; r < rounds; ++r) {
        std::memset(a.data(), r & 0xff, size);
        std::memcpy(b.data(), a.data(), size);
        b[size / 2] ^= 1;
        sum += static_cast<uint64_t>(std::memcmp(a.data(), b.data(), size) < 0);
        sum += b[size - 1];
    }
    return sum;
}

} // namespace e2e
