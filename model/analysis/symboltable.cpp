// SymbolTable::build: one pass over the locations, names interned by string id (no hashing of
// strings), unsymbolized locations in a flat table keyed by (mapping, address).
#include "model/analysis/symboltable.h"

#include "model/core/frameformat.h"
#include "model/core/mix.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace symflame::model {

namespace {

constexpr uint32_t kNone = 0xffffffffu;

} // namespace

SymbolTable SymbolTable::build(const Profile& profile)
{
    SymbolTable t;
    const size_t nLoc = profile.locations.size();
    t.m_frameBegin.reserve(nLoc + 1);
    t.m_frameBegin.push_back(0);
    t.m_frames.reserve(profile.lines.size() + nLoc);

    // Function name -> symbol, indexed by the name's string id (no hashing of strings).
    std::vector<uint32_t> byName(profile.strings.size(), kNone);
    std::unordered_map<uint64_t, uint32_t> byNameAndFile; // (name, file) of JavaScript frames
    // (mapping, address) of unsymbolized locations -> symbol, in a flat table keyed by a hash
    // of both; collisions of the hash are resolved by comparing the symbol's own fields.
    std::vector<uint32_t> unsymBuckets(1024, kNone);
    size_t unsymCount = 0;
    auto unsymBucket = [&](uint32_t mapping, uint64_t address) {
        return mix64(address * 0x9e3779b97f4a7c15ull ^ mapping) & (unsymBuckets.size() - 1);
    };
    auto growUnsym = [&] {
        std::vector<uint32_t> old(unsymBuckets.size() * 2, kNone);
        old.swap(unsymBuckets);
        for (uint32_t id : old) {
            if (id == kNone)
                continue;
            const Symbol& s = t.m_symbols[id];
            size_t i = unsymBucket(s.mapping.value, s.address);
            while (unsymBuckets[i] != kNone)
                i = (i + 1) & (unsymBuckets.size() - 1);
            unsymBuckets[i] = id;
        }
    };

    auto functionName = [&](const Line& line) -> StringId {
        if (!line.function.valid() || line.function.index() >= profile.functions.size())
            return {};
        const Function& f = profile.functions[line.function.index()];
        return f.name.empty() ? f.systemName : f.name;
    };

    for (size_t li = 0; li < nLoc; ++li) {
        const Location& loc = profile.locations[li];
        const auto lines = profile.linesOf(loc);
        bool any = false;
        for (uint32_t k = 0; k < lines.size(); ++k) {
            const StringId name = functionName(lines[k]);
            if (name.empty())
                continue;
            any = true;
            // JavaScript functions are told apart by script too: "(anonymous)", "get" or
            // "value" in different files are different functions.
            uint32_t& slot = loc.kind == FrameKind::JavaScript
                ? byNameAndFile.try_emplace((uint64_t(name.value) << 32)
                                      | profile.functions[lines[k].function.index()].file.value,
                                   kNone)
                      .first->second
                : byName[name.index()];
            if (slot == kNone) {
                slot = static_cast<uint32_t>(t.m_symbols.size());
                Symbol s;
                s.name = name;
                s.file = profile.functions[lines[k].function.index()].file;
                s.mapping = loc.mapping;
                s.address = loc.address;
                s.exemplar = LocationId(li);
                s.lineIndex = k;
                s.symbolized = true;
                t.m_symbols.push_back(s);
                t.m_names.emplace_back(profile.str(name));
            }
            t.m_frames.push_back(SymbolId(slot));
        }
        if (!any) {
            size_t i = unsymBucket(loc.mapping.value, loc.address);
            uint32_t found = kNone;
            while (unsymBuckets[i] != kNone) {
                const Symbol& s = t.m_symbols[unsymBuckets[i]];
                if (s.mapping == loc.mapping && s.address == loc.address) {
                    found = unsymBuckets[i];
                    break;
                }
                i = (i + 1) & (unsymBuckets.size() - 1);
            }
            if (found == kNone) {
                found = static_cast<uint32_t>(t.m_symbols.size());
                Symbol s;
                s.mapping = loc.mapping;
                s.address = loc.address;
                s.exemplar = LocationId(li);
                s.symbolized = false;
                t.m_symbols.push_back(s);
                t.m_names.push_back(unsymbolizedName(profile, loc));
                unsymBuckets[i] = found;
                if (++unsymCount > unsymBuckets.size() * 7 / 10)
                    growUnsym();
            }
            t.m_frames.push_back(SymbolId(found));
        }
        t.m_frameBegin.push_back(static_cast<uint32_t>(t.m_frames.size()));
    }

    std::vector<uint32_t> order(t.m_symbols.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const int c = t.m_names[a].compare(t.m_names[b]);
        return c != 0 ? c < 0 : a < b;
    });
    t.m_rank.resize(order.size());
    t.m_byRank.resize(order.size());
    for (uint32_t r = 0; r < order.size(); ++r) {
        t.m_rank[order[r]] = r;
        t.m_byRank[r] = SymbolId(order[r]);
    }
    return t;
}

} // namespace symflame::model
