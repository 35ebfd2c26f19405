// Deduplication of stacks while a profile is built: an open-addressing table of (hash, stack
// id) in one flat array. A node-based hash map (a heap node per stack, a modulo per probe) made
// reading a profile of a million distinct-ish stacks about 50% slower.
#pragma once

#include "model/core/ids.h"

#include <cstdint>
#include <span>
#include <vector>

namespace symflame::model {

class Profile;

class StackIndex {
public:
    /// The id of the stack equal to locs in profile, appending it to the profile's stack arrays
    /// when it is new. Every stack of the profile must have been added through this index.
    StackId intern(Profile& profile, std::span<const LocationId> locs);
    /// Appends locs, which is none of the profile's stacks, as a new stack; it is indexed only
    /// when the table exists already (else intern indexes every stack when first called).
    StackId append(Profile& profile, std::span<const LocationId> locs);
    /// Forgets the table (the profile's stacks stay).
    void clear();

private:
    struct Slot {
        uint32_t hash = 0;
        uint32_t idPlusOne = 0; // 0: empty
    };
    void rehash(size_t capacity);
    void insert(uint32_t hash, uint32_t id);
    /// Appends locs to the profile's stack arrays; returns the new stack's id.
    static uint32_t addToProfile(Profile& profile, std::span<const LocationId> locs);

    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    size_t m_count = 0;
};

} // namespace symflame::model
