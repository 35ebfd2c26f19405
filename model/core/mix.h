// A 64-bit mixing function for hash tables and hash-chosen subsets.
#pragma once

#include <cstdint>

namespace symflame::model {

/// splitmix64's finaliser: every input bit affects every output bit.
inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

} // namespace symflame::model
