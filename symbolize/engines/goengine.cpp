#include "symbolize/engines/goengine.h"

#include <unordered_map>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;

Result<std::unique_ptr<GoEngine>> GoEngine::open(ElfFilePtr binary, const EngineOptions& options)
{
    if (!binary)
        return makeError(ErrorCode::NotFound, "no binary to read a gopclntab from");
    auto located = locateGoPclntab(*binary);
    if (!located)
        return located.error().withPath(binary->path());
    auto table = GoPclntab::parse(located->input);
    if (!table)
        return table.error().withPath(binary->path());
    std::unique_ptr<GoEngine> engine(new GoEngine(binary, std::move(*table)));
    engine->m_origin = located->origin;
    engine->m_maxWarnings = options.maxWarnings;
    engine->m_elideWrappers = options.elideGoWrappers;
    if (auto info = readGoBuildInfo(*binary))
        engine->m_goVersion = info->goVersion;
    return engine;
}

std::string GoEngine::description() const
{
    std::string s = std::string("gopclntab (Go ") + goPclntabVersionName(m_table.version()) + " layout, found by "
        + goPclntabOriginName(m_origin) + ")";
    if (!m_goVersion.empty())
        s += ", " + m_goVersion;
    s += ", " + std::to_string(m_table.functionCount()) + " functions";
    return s;
}

void GoEngine::elideWrappers(std::vector<GoFrame>& frames) const
{
    const std::optional<uint8_t> wrapper = m_table.wrapperFuncId();
    if (!wrapper || frames.size() < 2)
        return;
    // The runtime keeps a wrapper frame only when its callee is one of the panic functions, so
    // that panics show where they came from. The innermost frame's callee is in another
    // location: it is treated as an ordinary call, as the runtime does for the first frame.
    const auto callsPanic = [](std::string_view callee) {
        return callee == "runtime.gopanic" || callee == "runtime.sigpanic" || callee == "runtime.panicwrap";
    };
    std::vector<GoFrame> kept;
    kept.reserve(frames.size());
    for (size_t k = 0; k < frames.size(); ++k) {
        const bool isWrapper = frames[k].funcId == *wrapper;
        if (isWrapper && !(k > 0 && callsPanic(frames[k - 1].function)))
            continue;
        kept.push_back(frames[k]);
    }
    if (!kept.empty())
        frames = std::move(kept);
}

Status GoEngine::symbolize(
    std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress)
{
    // Names and files point into the mapped table: the same pointer is the same string, so
    // functions are interned by pointer first and hashed by content only once.
    struct Key {
        const char* name;
        const char* file;
        uint32_t startLine;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const noexcept
        {
            const uint64_t h = reinterpret_cast<uintptr_t>(k.name) * 0x9e3779b97f4a7c15ull
                ^ reinterpret_cast<uintptr_t>(k.file) * 0xc2b2ae3d27d4eb4full ^ k.startLine;
            return static_cast<size_t>(h ^ (h >> 31));
        }
    };
    std::unordered_map<Key, uint32_t, KeyHash> functionOf;
    const auto functionFor = [&](const GoFrame& f) {
        const Key key { f.function.data(), f.file.data(), f.startLine };
        auto it = functionOf.find(key);
        if (it != functionOf.end())
            return it->second;
        SymbolizedFunction fn;
        fn.name = out.intern(f.function);
        fn.systemName = fn.name;
        fn.file = out.intern(f.file);
        fn.startLine = f.startLine;
        const uint32_t id = out.addFunction(fn);
        functionOf.emplace(key, id);
        return id;
    };
    const uint32_t unknown = out.addFunction(SymbolizedFunction {});
    std::vector<GoFrame> frames;
    for (size_t i = 0; i < addresses.size(); ++i) {
        if ((i & 1023) == 0 && progress && progress->isCancelled())
            return makeError(ErrorCode::Cancelled, "symbolization cancelled");
        frames.clear();
        if (Status st = m_table.lookup(addresses[i], frames); !st) {
            if (m_warnings.size() < m_maxWarnings)
                m_warnings.push_back(st.error().message);
            ++m_warningCount;
            frames.clear();
        }
        if (m_elideWrappers)
            elideWrappers(frames);
        if (frames.empty())
            out.addFrame(unknown, 0, 0);
        for (const GoFrame& f : frames)
            out.addFrame(functionFor(f), f.line, 0);
        out.endAddress();
    }
    return Status::success();
}

} // namespace symflame::symbolize
