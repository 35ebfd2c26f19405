// Source map v3 decoding: a map's JSON (plain, or an index map with `sections`) is parsed, its
// base64 VLQ `mappings` decoded into one flat array of segments sorted by generated position,
// and lookups by generated line and column (0-based, columns in UTF-16 code units) answer with
// the original source (sourceRoot applied), line, column and name by binary search. Each
// source's `sourcesContent` entry is kept with it (the source view shows the text from there). Sizes are
// bounded by SourceMapLimits: bad or oversized input gives an error, never a crash or a hang.
#pragma once

#include "model/core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

struct SourceMapLimits {
    // Real maps are far below these: esbuild's map of a minified typescript bundle (9 MB of
    // code) is 14 MB with 0.7 M segments. 40 M segments take about 1 GB once decoded.
    size_t maxJsonBytes = size_t(1) << 30; ///< the map file as a whole
    size_t maxMappingsBytes = size_t(256) << 20; ///< the `mappings` string (summed over sections)
    size_t maxSegments = size_t(40) << 20; ///< decoded segments (summed over sections)
    int maxSectionDepth = 4; ///< index maps inside index maps
};

/// Where a generated position came from. Lines and columns are 0-based.
struct OriginalPosition {
    std::string_view source; ///< sourceRoot + source, as written in the map
    uint32_t line = 0;
    uint32_t column = 0;
    std::string_view name; ///< empty when the segment has no name
    size_t sourceIndex = 0; ///< of sources(): where its sourcesContent entry is
};

/// What a map's `sourcesContent` holds for one of its sources.
struct EmbeddedSource {
    enum class State : uint8_t {
        Present, ///< the text is in the map
        Absent, ///< no `sourcesContent`, or an array too short to reach this source
        Null, ///< null: the producer left this one out
        NotAString, ///< some other JSON value (bad input)
        NotAnArray, ///< `sourcesContent` itself is not an array (bad input)
    };
    State state = State::Absent;
    std::string text;

    /// "sourcesContent[3] is null", ...; empty when Present.
    std::string problem(size_t index) const;
};

class SourceMap {
public:
    /// Parses a v3 source map or index map.
    static model::Result<SourceMap> parse(std::string_view json, const SourceMapLimits& limits = {});

    /// Which segment answers a position between segments (the names of the source-map libraries).
    enum class Bias {
        GreatestLowerBound, ///< the segment starting at or before column
        LeastUpperBound, ///< the segment starting at or after column
    };

    /// The segment covering (line, column), chosen as @jridgewell/trace-mapping's
    /// originalPositionFor chooses it: with GreatestLowerBound the last segment on that generated
    /// line starting before column, or the first of those starting exactly at column; with
    /// LeastUpperBound the first segment starting after column, or the last of those starting
    /// exactly at column. None when there is no such segment or it maps to no source.
    std::optional<OriginalPosition> lookup(
        uint32_t line, uint32_t column, Bias bias = Bias::GreatestLowerBound) const;

    const std::vector<std::string>& sources() const { return m_sources; }
    const std::vector<std::string>& names() const { return m_names; }
    /// The `sourcesContent` entry of source i (an index of sources()); Absent beyond the array.
    const EmbeddedSource& embeddedSource(size_t i) const;
    size_t segmentCount() const { return m_segments.size(); }

    struct Segment {
        uint32_t generatedLine;
        uint32_t generatedColumn;
        int32_t source; ///< -1 for a segment with only a generated column
        uint32_t originalLine;
        uint32_t originalColumn;
        int32_t name; ///< -1 for none
    };

private:
    friend class SourceMapBuilder;
    std::vector<std::string> m_sources;
    std::vector<std::string> m_names;
    std::vector<EmbeddedSource> m_contents; ///< one per source
    std::vector<Segment> m_segments; ///< sorted by (generatedLine, generatedColumn), stable
    std::vector<uint32_t> m_lineBegin; ///< segments of line l: [m_lineBegin[l], m_lineBegin[l+1])
};

/// Decodes one base64 VLQ value starting at pos (advanced past it); false on a bad digit, a
/// truncated value or one that does not fit in 32 bits. Exposed for tests.
bool decodeVlq(std::string_view text, size_t& pos, int32_t& value);

} // namespace symflame::symbolize
