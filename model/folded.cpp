// Folded stacks: writing them from the top-down call tree (each node with a self value is one
// line), and reading them into a Profile with one function and location per distinct frame.
// Both directions are linear in the text, with no allocation per line.
#include "model/folded.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace symflame::model {

std::string collapseStacks(const Profile& profile, const SymbolTable& symbols, size_t sampleType)
{
    const CallTree tree = CallTree::build(profile, symbols, sampleType, CallTree::Direction::TopDown);

    // Depth-first over the tree with children in name order writes the lines almost sorted;
    // it is off only where a sibling's name continues with a byte below ';' (e.g. "a" and "a b")
    // or where two symbols print the same. Lines are checked as they are written, and sorted
    // and merged afterwards only when needed.
    struct Entry {
        size_t offset; ///< of the stack text in out
        size_t length; ///< of the stack text
        int64_t value;
    };
    std::string out;
    std::vector<Entry> entries;
    bool ordered = true;
    std::string prefix;
    struct Item {
        NodeId node;
        size_t prefixLength; ///< length of the prefix before this node's name was added
    };
    std::vector<Item> work;
    const auto top = tree.children(tree.root());
    for (auto it = top.rbegin(); it != top.rend(); ++it)
        work.push_back({ *it, 0 });
    while (!work.empty()) {
        const Item item = work.back();
        work.pop_back();
        prefix.resize(item.prefixLength);
        const CallTreeNode& node = tree.node(item.node);
        if (item.prefixLength != 0)
            prefix += ';';
        prefix += symbols.displayName(node.symbol);
        if (node.self != 0) {
            if (ordered && !entries.empty()) {
                const Entry& last = entries.back();
                ordered = std::string_view(out).substr(last.offset, last.length) < std::string_view(prefix);
            }
            entries.push_back({ out.size(), prefix.size(), node.self });
            out += prefix;
            out += ' ';
            out += std::to_string(node.self);
            out += '\n';
        }
        const auto kids = tree.children(item.node);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
            work.push_back({ *it, prefix.size() });
    }
    if (ordered)
        return out;

    const std::string texts = std::move(out);
    auto textOf = [&](const Entry& e) { return std::string_view(texts).substr(e.offset, e.length); };
    std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) { return textOf(a) < textOf(b); });
    std::string sorted;
    sorted.reserve(texts.size());
    for (size_t i = 0; i < entries.size();) {
        int64_t sum = 0;
        size_t j = i;
        for (; j < entries.size() && textOf(entries[j]) == textOf(entries[i]); ++j)
            sum += entries[j].value;
        if (sum != 0) {
            sorted += textOf(entries[i]);
            sorted += ' ';
            sorted += std::to_string(sum);
            sorted += '\n';
        }
        i = j;
    }
    return sorted;
}

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
