// What `symflame info` prints: the profile's summary, its mappings and the binaries panel's rows,
// as text or as one JSON object.
#pragma once

#include "app/output.h"
#include "model/analysis/truncatedstacks.h"
#include "model/core/profile.h"
#include "model/io/profileio.h"
#include "symbolize/pass/binarytriage.h"

#include <cstdint>
#include <string>
#include <vector>

namespace symflame::app {

/// What info found out about a profile file.
struct InfoResult {
    struct MappingCounts {
        uint64_t locations = 0;
        uint64_t symbolized = 0;
    };

    std::string path;
    model::ProfileFormat format = model::ProfileFormat::Unknown;
    const model::Profile* profile = nullptr;
    std::vector<MappingCounts> counts; ///< per mapping, of the file as it is
    std::vector<symbolize::BinaryRow> binaries; ///< the binaries panel's rows
    int64_t binariesTotal = 0; ///< the total value the rows' shares are of
    /// Stacks that reach no thread root, found after the symbolization pass (perf.data unwound
    /// by frame pointers; not checked for other formats).
    model::TruncatedStacks truncated;
};

void printInfoText(Output& out, const InfoResult& info);
void printInfoJson(Output& out, const InfoResult& info);

} // namespace symflame::app
