// Radix sort of (key, value) pairs: what `lookup` uses to order a million addresses with the
// index of the request each came from, several times faster than std::sort on such input.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace symflame::model {

/// Sorts (key, value) pairs by key, then value, into the order std::sort gives them: least
/// significant digit first, 8 bits a pass, skipping the passes where every pair has the same
/// byte.
void radixSort(std::vector<std::pair<uint64_t, uint32_t>>& pairs);

} // namespace symflame::model
