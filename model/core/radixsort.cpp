#include "model/core/radixsort.h"

#include <cstddef>

namespace symflame::model {

void radixSort(std::vector<std::pair<uint64_t, uint32_t>>& v)
{
    std::vector<std::pair<uint64_t, uint32_t>> tmp(v.size());
    const auto pass = [&](auto byteOf) {
        size_t count[257] = {};
        for (const auto& e : v)
            ++count[byteOf(e) + 1];
        for (size_t b = 0; b < 256; ++b)
            if (count[b + 1] == v.size())
                return; // one bucket: the order stays
        for (size_t b = 0; b < 256; ++b)
            count[b + 1] += count[b];
        for (const auto& e : v)
            tmp[count[byteOf(e)]++] = e;
        v.swap(tmp);
    };
    for (int shift = 0; shift < 32; shift += 8)
        pass([shift](const auto& e) { return size_t((e.second >> shift) & 0xff); });
    for (int shift = 0; shift < 64; shift += 8)
        pass([shift](const auto& e) { return size_t((e.first >> shift) & 0xff); });
}

} // namespace symflame::model
