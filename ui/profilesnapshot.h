// An immutable, shareable view of a loaded profile: the profile, its symbol table and the
// top-down call tree of one sample type. Built on a worker thread, handed to the GUI thread
// whole, never modified afterwards.
#pragma once

#include "model/calltree.h"
#include "model/profile.h"
#include "model/progress.h"
#include "model/result.h"

#include <memory>
#include <string>
#include <string_view>

namespace symflame::ui {

struct ProfileSnapshot {
    std::string path; ///< file it was read from; empty when built in memory
    std::shared_ptr<const model::Profile> profile;
    std::shared_ptr<const model::SymbolTable> symbols;
    std::shared_ptr<const model::CallTree> tree; ///< top-down, for sampleType
    size_t sampleType = 0;

    /// Name of the sample type ("cpu"); empty when the profile has none.
    std::string_view typeName() const;
    /// Unit of the sample type ("nanoseconds").
    std::string_view unit() const;
};

/// Builds the symbol table and the call tree for sampleType (clamped to the profile's types).
/// Returns a Cancelled error when progress reports cancellation.
model::Result<std::shared_ptr<const ProfileSnapshot>> makeSnapshot(std::shared_ptr<const model::Profile> profile,
    size_t sampleType, std::string path = {}, model::Progress* progress = nullptr);

/// Reads the file and builds a snapshot for its default sample type.
model::Result<std::shared_ptr<const ProfileSnapshot>> loadSnapshot(
    const std::string& path, model::Progress* progress = nullptr);

/// The same profile and symbols with the call tree of another sample type.
model::Result<std::shared_ptr<const ProfileSnapshot>> withSampleType(
    const ProfileSnapshot& snapshot, size_t sampleType, model::Progress* progress = nullptr);

} // namespace symflame::ui
