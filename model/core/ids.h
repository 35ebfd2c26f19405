// Strong ids for the profile's tables: an id is the index of a row, typed by its table, so a
// LocationId can't be passed where a FunctionId is wanted.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace symflame::model {

template <typename Tag>
struct Id {
    static constexpr uint32_t kInvalid = 0xffffffffu;
    uint32_t value = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(uint32_t v) : value(v) {}
    constexpr explicit Id(size_t v) : value(static_cast<uint32_t>(v)) {}
    constexpr bool valid() const { return value != kInvalid; }
    constexpr size_t index() const { return value; }
    constexpr auto operator<=>(const Id&) const = default;
};

using MappingId = Id<struct MappingTag>;
using FunctionId = Id<struct FunctionTag>;
using LocationId = Id<struct LocationTag>;
using StackId = Id<struct StackTag>;

/// Index into the profile's string table. Unlike the other ids its default is 0, the empty
/// string, so that a field never set reads as "".
struct StringId {
    uint32_t value = 0;
    constexpr StringId() = default;
    constexpr explicit StringId(uint32_t v) : value(v) {}
    constexpr bool empty() const { return value == 0; }
    constexpr size_t index() const { return value; }
    constexpr auto operator<=>(const StringId&) const = default;
};

} // namespace symflame::model

template <typename Tag>
struct std::hash<symflame::model::Id<Tag>> {
    size_t operator()(symflame::model::Id<Tag> id) const noexcept { return std::hash<uint32_t>{}(id.value); }
};
template <>
struct std::hash<symflame::model::StringId> {
    size_t operator()(symflame::model::StringId id) const noexcept { return std::hash<uint32_t>{}(id.value); }
};
