#include "symbolize/engines/openengine.h"

#include "symbolize/engines/dwarfengine.h"
#include "symbolize/engines/goengine.h"

namespace symflame::symbolize {

namespace {

// DWARF and symbol tables through LLVM.
class LlvmEngine final : public SymbolizerEngine {
public:
    LlvmEngine(std::unique_ptr<DwarfEngine> impl, DebugSource source)
        : m_impl(std::move(impl))
        , m_source(source)
    {
    }

    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress) override
    {
        return m_impl->symbolize(addresses, out, progress);
    }
    DebugSource source() const override { return m_source; }
    const char* engineName() const override
    {
        return m_impl->usesSupplementary() ? "llvm-dwarf+dwz" : "llvm-dwarf";
    }
    size_t warningCount() const override { return m_impl->warningCount(); }
    std::vector<std::string> warnings() const override { return m_impl->warnings(); }

private:
    std::unique_ptr<DwarfEngine> m_impl;
    DebugSource m_source;
};

} // namespace

model::Result<std::unique_ptr<SymbolizerEngine>> openEngine(const LocateResult& located, const EngineOptions& options)
{
    if (located.status != LocateStatus::Found || !located.binary)
        return model::makeError(model::ErrorCode::NotFound, "no binary to symbolize with: " + located.summary());
    // DWARF when present and complete (units and line tables), else a Go binary's gopclntab.
    const bool completeDwarf = !options.symbolTablesOnly && located.dwarf && located.dwarf->contents().readableDwarf() && located.dwarf->contents().debugLine;
    if (!completeDwarf && looksLikeGoBinary(*located.binary)) {
        auto go = GoEngine::open(located.binary, options);
        if (go)
            return std::unique_ptr<SymbolizerEngine>(std::move(*go));
        if (located.source == DebugSource::None)
            return go.error();
    }
    if (located.source == DebugSource::None)
        return model::makeError(model::ErrorCode::NotFound, located.summary());

    ModuleFiles files { located.binary, located.dwarf, located.symbols, located.symbolKind, located.supplementary,
        located.dynamicSymbols };
    DwarfEngine::Options so;
    // Symbol tables only, unless there are none (the DWARF then names the frames).
    so.readDwarf = !(options.symbolTablesOnly && (files.symbols || files.dynamicSymbols));
    so.demangle = options.demangle;
    so.namePltStubs = options.namePltStubs;
    so.maxWarnings = options.maxWarnings;
    auto dwarf = DwarfEngine::create(files, so);
    if (!dwarf)
        return dwarf.error();
    return std::unique_ptr<SymbolizerEngine>(
        std::make_unique<LlvmEngine>(std::move(*dwarf), located.source));
}

} // namespace symflame::symbolize
