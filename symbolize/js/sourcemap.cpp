// Source map v3 decoding: JSON through nlohmann-json, `mappings` through a table-driven base64
// VLQ decoder into flat segments, index-map sections flattened with their offsets applied.
#include "symbolize/js/sourcemap.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <tuple>
#include <utility>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;

namespace {

// Value of each base64 character, -1 for characters that are not base64 digits.
constexpr std::array<int8_t, 256> makeBase64Table()
{
    std::array<int8_t, 256> t {};
    for (auto& v : t)
        v = -1;
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i)
        t[static_cast<unsigned char>(digits[i])] = static_cast<int8_t>(i);
    return t;
}
constexpr std::array<int8_t, 256> kBase64 = makeBase64Table();

bool isAbsoluteOrUrl(std::string_view s)
{
    if (!s.empty() && s.front() == '/')
        return true;
    const size_t colon = s.find(':');
    if (colon == std::string_view::npos || colon == 0)
        return false;
    return std::all_of(s.begin(), s.begin() + colon,
        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'; });
}

std::string joinSourceRoot(const std::string& root, const std::string& source)
{
    if (root.empty() || isAbsoluteOrUrl(source))
        return source;
    return root.back() == '/' ? root + source : root + "/" + source;
}

} // namespace

bool decodeVlq(std::string_view text, size_t& pos, int32_t& value)
{
    uint64_t result = 0;
    int shift = 0;
    while (true) {
        if (pos >= text.size())
            return false;
        const int digit = kBase64[static_cast<unsigned char>(text[pos])];
        if (digit < 0)
            return false;
        ++pos;
        result |= static_cast<uint64_t>(digit & 31) << shift;
        if (result > 0xffffffffu)
            return false;
        if ((digit & 32) == 0)
            break;
        shift += 5;
        if (shift > 30)
            return false;
    }
    const bool negative = result & 1;
    const uint64_t magnitude = result >> 1;
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        return false;
    value = negative ? -static_cast<int32_t>(magnitude) : static_cast<int32_t>(magnitude);
    return true;
}

// Collects the segments, sources and names of a map and its sections, then sorts them.
class SourceMapBuilder {
public:
    explicit SourceMapBuilder(const SourceMapLimits& limits) : m_limits(limits) {}

    /// Adds map with its generated positions moved by the offsets; segments at or after
    /// (stopLine, stopColumn), where the next section of an index map begins, are left out.
    Status addMap(const nlohmann::json& map, uint32_t lineOffset, uint32_t columnOffset, int depth,
        uint64_t stopLine = kNoStop, uint64_t stopColumn = kNoStop)
    {
        if (!map.is_object())
            return makeError(ErrorCode::InvalidInput, "source map is not a JSON object");
        const auto version = map.find("version");
        if (version == map.end() || !version->is_number_integer())
            return makeError(ErrorCode::InvalidInput, "source map has no version");
        if (version->get<int64_t>() != 3)
            return makeError(ErrorCode::Unsupported,
                "source map version " + std::to_string(version->get<int64_t>()) + ", only version 3 is read");
        if (const auto sections = map.find("sections"); sections != map.end())
            return addSections(*sections, lineOffset, columnOffset, depth, stopLine, stopColumn);
        return addPlainMap(map, lineOffset, columnOffset, stopLine, stopColumn);
    }

    SourceMap finish()
    {
        SourceMap result;
        std::stable_sort(m_map.m_segments.begin(), m_map.m_segments.end(),
            [](const SourceMap::Segment& a, const SourceMap::Segment& b) {
                return a.generatedLine != b.generatedLine ? a.generatedLine < b.generatedLine
                                                          : a.generatedColumn < b.generatedColumn;
            });
        const uint32_t lineCount = m_map.m_segments.empty() ? 0 : m_map.m_segments.back().generatedLine + 1;
        m_map.m_lineBegin.assign(size_t(lineCount) + 1, 0);
        for (const auto& s : m_map.m_segments)
            ++m_map.m_lineBegin[s.generatedLine + 1];
        for (size_t l = 1; l < m_map.m_lineBegin.size(); ++l)
            m_map.m_lineBegin[l] += m_map.m_lineBegin[l - 1];
        return std::move(m_map);
    }

private:
    static constexpr uint64_t kNoStop = std::numeric_limits<uint64_t>::max();

    Status addSections(const nlohmann::json& sections, uint32_t lineOffset, uint32_t columnOffset, int depth,
        uint64_t stopLine, uint64_t stopColumn)
    {
        if (depth >= m_limits.maxSectionDepth)
            return makeError(ErrorCode::TooLarge,
                "index map sections nested deeper than " + std::to_string(m_limits.maxSectionDepth));
        if (!sections.is_array())
            return makeError(ErrorCode::InvalidInput, "index map `sections` is not an array");
        // Each section's offset, checked first: a section ends where the next one begins.
        std::vector<std::pair<uint64_t, uint64_t>> starts; // absolute (line, column)
        for (size_t i = 0; i < sections.size(); ++i) {
            const auto& section = sections[i];
            const std::string where = "section " + std::to_string(i) + ": ";
            if (!section.is_object() || !section.contains("offset") || !section["offset"].is_object())
                return makeError(ErrorCode::InvalidInput, where + "no offset");
            const auto& offset = section["offset"];
            if (!offset.contains("line") || !offset["line"].is_number_unsigned() || !offset.contains("column")
                || !offset["column"].is_number_unsigned())
                return makeError(ErrorCode::InvalidInput, where + "offset without a line and column");
            const uint64_t line = offset["line"].get<uint64_t>();
            const uint64_t column = offset["column"].get<uint64_t>();
            if (line + lineOffset > std::numeric_limits<uint32_t>::max() || column > std::numeric_limits<uint32_t>::max())
                return makeError(ErrorCode::InvalidInput, where + "offset out of range");
            // The column offset applies to the section's first line only.
            starts.emplace_back(lineOffset + line, column + (line == 0 ? columnOffset : 0));
            if (i > 0 && starts[i] < starts[i - 1])
                return makeError(ErrorCode::InvalidInput, where + "offset before the previous section's");
        }
        for (size_t i = 0; i < sections.size(); ++i) {
            const auto& section = sections[i];
            const std::string where = "section " + std::to_string(i) + ": ";
            if (section.contains("url"))
                return makeError(ErrorCode::Unsupported, where + "sections that refer to a map by url are not read");
            if (!section.contains("map"))
                return makeError(ErrorCode::InvalidInput, where + "no map");
            uint64_t sl = stopLine, sc = stopColumn;
            if (i + 1 < sections.size() && starts[i + 1] < std::make_pair(stopLine, stopColumn))
                std::tie(sl, sc) = starts[i + 1];
            if (starts[i].second > std::numeric_limits<uint32_t>::max())
                return makeError(ErrorCode::InvalidInput, where + "offset out of range");
            if (Status s = addMap(section["map"], static_cast<uint32_t>(starts[i].first),
                    static_cast<uint32_t>(starts[i].second), depth + 1, sl, sc);
                !s)
                return makeError(s.error().code, where + s.error().message);
        }
        return {};
    }

    Status readStrings(const nlohmann::json& map, const char* key, std::vector<std::string>& out)
    {
        const auto it = map.find(key);
        if (it == map.end())
            return {};
        if (!it->is_array())
            return makeError(ErrorCode::InvalidInput, std::string("source map `") + key + "` is not an array");
        for (const auto& v : *it)
            out.push_back(v.is_string() ? v.get<std::string>() : std::string());
        return {};
    }

    Status addPlainMap(
        const nlohmann::json& map, uint32_t lineOffset, uint32_t columnOffset, uint64_t stopLine, uint64_t stopColumn)
    {
        std::string sourceRoot;
        if (const auto it = map.find("sourceRoot"); it != map.end() && it->is_string())
            sourceRoot = it->get<std::string>();
        std::vector<std::string> sources;
        std::vector<std::string> names;
        if (Status s = readStrings(map, "sources", sources); !s)
            return s;
        if (Status s = readStrings(map, "names", names); !s)
            return s;
        const auto mappings = map.find("mappings");
        if (mappings == map.end() || !mappings->is_string())
            return makeError(ErrorCode::InvalidInput, "source map has no `mappings` string");
        const std::string& text = mappings->get_ref<const std::string&>();
        m_mappingsBytes += text.size();
        if (m_mappingsBytes > m_limits.maxMappingsBytes)
            return makeError(ErrorCode::TooLarge,
                "`mappings` of " + std::to_string(m_mappingsBytes) + " bytes, more than the limit of "
                    + std::to_string(m_limits.maxMappingsBytes));

        const int32_t sourceBase = static_cast<int32_t>(m_map.m_sources.size());
        const int32_t nameBase = static_cast<int32_t>(m_map.m_names.size());
        if (Status s = decodeMappings(text, lineOffset, columnOffset, stopLine, stopColumn, sourceBase,
                int32_t(sources.size()), nameBase, int32_t(names.size()));
            !s)
            return s;
        for (const auto& source : sources)
            m_map.m_sources.push_back(joinSourceRoot(sourceRoot, source));
        // sourcesContent, aligned with sources: a missing or shorter array leaves sources without
        // text, an entry of the wrong type is recorded as such (the source view says so).
        const auto contents = map.find("sourcesContent");
        for (size_t i = 0; i < sources.size(); ++i) {
            EmbeddedSource e;
            if (contents != map.end() && contents->is_array() && i < contents->size()) {
                nlohmann::json& entry = const_cast<nlohmann::json&>((*contents)[i]);
                if (entry.is_string()) {
                    e.state = EmbeddedSource::State::Present;
                    e.text = std::move(entry.get_ref<std::string&>()); // the document is dropped after parsing
                } else {
                    e.state = entry.is_null() ? EmbeddedSource::State::Null : EmbeddedSource::State::NotAString;
                }
            } else if (contents != map.end() && !contents->is_array() && !contents->is_null()) {
                e.state = EmbeddedSource::State::NotAnArray;
            }
            m_map.m_contents.push_back(std::move(e));
        }
        for (auto& name : names)
            m_map.m_names.push_back(std::move(name));
        return {};
    }

    Status decodeMappings(std::string_view text, uint32_t lineOffset, uint32_t columnOffset, uint64_t stopLine,
        uint64_t stopColumn, int32_t sourceBase, int32_t sourceCount, int32_t nameBase, int32_t nameCount)
    {
        int64_t line = 0;
        int64_t column = 0;
        int64_t source = 0;
        int64_t originalLine = 0;
        int64_t originalColumn = 0;
        int64_t name = 0;
        size_t pos = 0;
        auto fail = [&](const std::string& what) {
            return makeError(ErrorCode::InvalidInput,
                "`mappings`: " + what + " at offset " + std::to_string(pos) + " (generated line "
                    + std::to_string(line) + ")");
        };
        while (pos < text.size()) {
            const char c = text[pos];
            if (c == ';') {
                ++line;
                column = 0;
                ++pos;
                continue;
            }
            if (c == ',') {
                ++pos;
                continue;
            }
            int32_t fields[5];
            int count = 0;
            while (pos < text.size() && text[pos] != ',' && text[pos] != ';') {
                if (count == 5)
                    return fail("segment with more than 5 fields");
                if (!decodeVlq(text, pos, fields[count]))
                    return fail("malformed base64 VLQ value");
                ++count;
            }
            if (count != 1 && count != 4 && count != 5)
                return fail("segment with " + std::to_string(count) + " fields");
            column += fields[0];
            if (column < 0)
                return fail("negative generated column");
            SourceMap::Segment seg {};
            const int64_t generatedLine = line + lineOffset;
            const int64_t generatedColumn = column + (line == 0 ? columnOffset : 0);
            if (generatedLine > std::numeric_limits<uint32_t>::max() - 1
                || generatedColumn > std::numeric_limits<uint32_t>::max())
                return fail("generated position out of range");
            seg.generatedLine = static_cast<uint32_t>(generatedLine);
            seg.generatedColumn = static_cast<uint32_t>(generatedColumn);
            seg.source = -1;
            seg.name = -1;
            if (count >= 4) {
                source += fields[1];
                originalLine += fields[2];
                originalColumn += fields[3];
                if (source < 0 || source >= sourceCount)
                    return fail("source index " + std::to_string(source) + " out of range");
                if (originalLine < 0 || originalColumn < 0 || originalLine > std::numeric_limits<uint32_t>::max()
                    || originalColumn > std::numeric_limits<uint32_t>::max())
                    return fail("original position out of range");
                seg.source = sourceBase + static_cast<int32_t>(source);
                seg.originalLine = static_cast<uint32_t>(originalLine);
                seg.originalColumn = static_cast<uint32_t>(originalColumn);
            }
            if (count == 5) {
                name += fields[4];
                if (name < 0 || name >= nameCount)
                    return fail("name index " + std::to_string(name) + " out of range");
                seg.name = nameBase + static_cast<int32_t>(name);
            }
            if (uint64_t(generatedLine) > stopLine
                || (uint64_t(generatedLine) == stopLine && uint64_t(generatedColumn) >= stopColumn))
                return {}; // the next section begins here
            if (m_map.m_segments.size() >= m_limits.maxSegments)
                return makeError(ErrorCode::TooLarge,
                    "more than " + std::to_string(m_limits.maxSegments) + " segments in `mappings`");
            m_map.m_segments.push_back(seg);
        }
        return {};
    }

    const SourceMapLimits& m_limits;
    SourceMap m_map;
    size_t m_mappingsBytes = 0;
};

std::string EmbeddedSource::problem(size_t index) const
{
    const std::string entry = "sourcesContent[" + std::to_string(index) + "]";
    switch (state) {
    case State::Present:
        return {};
    case State::Absent:
        return entry + " absent";
    case State::Null:
        return entry + " is null";
    case State::NotAString:
        return entry + " is not a string";
    case State::NotAnArray:
        return "sourcesContent is not an array";
    }
    return {};
}

const EmbeddedSource& SourceMap::embeddedSource(size_t i) const
{
    static const EmbeddedSource absent;
    return i < m_contents.size() ? m_contents[i] : absent;
}

Result<SourceMap> SourceMap::parse(std::string_view json, const SourceMapLimits& limits)
{
    if (json.size() > limits.maxJsonBytes)
        return makeError(ErrorCode::TooLarge,
            "source map of " + std::to_string(json.size()) + " bytes, more than the limit of "
                + std::to_string(limits.maxJsonBytes));
    nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded())
        return makeError(ErrorCode::InvalidInput, "source map is not valid JSON");
    SourceMapBuilder builder(limits);
    if (Status s = builder.addMap(doc, 0, 0, 0); !s)
        return s.error();
    return builder.finish();
}

std::optional<OriginalPosition> SourceMap::lookup(uint32_t line, uint32_t column, Bias bias) const
{
    if (size_t(line) + 1 >= m_lineBegin.size())
        return std::nullopt;
    const Segment* begin = m_segments.data() + m_lineBegin[line];
    const Segment* end = m_segments.data() + m_lineBegin[line + 1];
    const auto byColumn = [](const Segment& s, uint32_t c) { return s.generatedColumn < c; };
    const auto columnBefore = [](uint32_t c, const Segment& s) { return c < s.generatedColumn; };
    const Segment* first = std::lower_bound(begin, end, column, byColumn); // first at or after column
    const Segment* seg = nullptr;
    if (first != end && first->generatedColumn == column) {
        // Segments exactly at column: the first of them, or the last one for LeastUpperBound.
        seg = bias == Bias::GreatestLowerBound ? first : std::upper_bound(first, end, column, columnBefore) - 1;
    } else if (bias == Bias::GreatestLowerBound) {
        if (first == begin)
            return std::nullopt;
        seg = first - 1; // the last segment before column
    } else {
        if (first == end)
            return std::nullopt;
        seg = first; // the first segment after column
    }
    if (seg->source < 0)
        return std::nullopt;
    OriginalPosition pos;
    pos.source = m_sources[seg->source];
    pos.sourceIndex = size_t(seg->source);
    pos.line = seg->originalLine;
    pos.column = seg->originalColumn;
    if (seg->name >= 0)
        pos.name = m_names[seg->name];
    return pos;
}

} // namespace symflame::symbolize
