// Folded stacks read into a Profile with one function and location per distinct frame, linear in
// the text, with no allocation per line. (Writing them is analysis/collapse.cpp.)
#include "model/io/folded.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace symflame::model {

static bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

Result<Profile> readFolded(std::span<const uint8_t> data)
{
    Profile p;
    p.sampleTypes.push_back(ValueType { p.strings.intern("samples"), p.strings.intern("count") });
    p.defaultSampleType = 0;

    // Frame name (string id) -> location; one function and one location per distinct name.
    std::vector<uint32_t> locationOf;
    std::vector<LocationId> stack;
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    size_t lineNo = 0;
    for (size_t pos = 0; pos < text.size();) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++lineNo;
        while (!line.empty() && isBlank(line.back()))
            line.remove_suffix(1);
        if (line.empty())
            continue;
        auto fail = [&](const std::string& what) {
            return makeError(ErrorCode::InvalidInput, "line " + std::to_string(lineNo) + ": " + what);
        };

        const size_t space = line.find_last_of(" \t");
        if (space == std::string_view::npos)
            return fail("missing sample value after the stack");
        const std::string_view number = line.substr(space + 1);
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (ec == std::errc::result_out_of_range)
            return fail("sample value \"" + std::string(number) + "\" is out of range");
        if (ec != std::errc() || end != number.data() + number.size())
            return fail("invalid sample value \"" + std::string(number) + "\"");
        std::string_view frames = line.substr(0, space);
        while (!frames.empty() && isBlank(frames.back()))
            frames.remove_suffix(1);
        if (frames.empty())
            return fail("missing stack before the sample value");

        stack.clear();
        for (size_t b = 0;;) {
            const size_t semi = frames.find(';', b);
            const std::string_view frame = frames.substr(b, semi == std::string_view::npos ? semi : semi - b);
            if (frame.empty())
                return fail("empty frame name");
            const StringId name = p.strings.intern(frame);
            if (locationOf.size() <= name.index())
                locationOf.resize(std::max<size_t>(name.index() + 1, locationOf.size() * 2), 0xffffffffu);
            uint32_t& loc = locationOf[name.index()];
            if (loc == 0xffffffffu) {
                const auto fn = static_cast<uint32_t>(p.functions.size());
                Function f;
                f.name = name;
                f.systemName = name;
                p.functions.push_back(f);
                Location l;
                l.linesBegin = static_cast<uint32_t>(p.lines.size());
                l.lineCount = 1;
                l.status = FrameStatus::Symbolized;
                p.lines.push_back(Line { FunctionId(fn), 0, 0 });
                loc = static_cast<uint32_t>(p.locations.size());
                p.locations.push_back(l);
            }
            stack.push_back(LocationId(loc));
            if (semi == std::string_view::npos)
                break;
            b = semi + 1;
        }
        std::reverse(stack.begin(), stack.end()); // leaf first
        const StackId id = p.internStack(stack);
        p.addSample(id, std::span<const int64_t>(&value, 1));
    }
    p.finishBuilding();
    p.updateFrameStatuses();
    return p;
}

} // namespace symflame::model
