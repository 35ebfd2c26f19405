// What `symflame top` prints: the functions with the most flat value, as `go tool pprof -top`
// lists them, or as one JSON object.
#pragma once

#include "app/output.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace symflame::app {

struct TopResult {
    struct Row {
        std::string_view name;
        int64_t flat = 0;
        int64_t cum = 0;
    };

    bool hasTypes = false; ///< false: the profile has no sample type (and no rows)
    std::string_view sampleType;
    std::string_view unit;
    int64_t total = 0; ///< of every sample (percentages are of it, as pprof's with -tagfocus)
    std::optional<int64_t> kept; ///< of the samples the label options kept, when they dropped some
    size_t functions = 0; ///< functions with a value, of which rows are the first
    std::vector<Row> rows;
};

void printTopText(Output& out, const TopResult& top);
void printTopJson(Output& out, const TopResult& top);

} // namespace symflame::app
