#include "symbolize/modulesymbolizer.h"

#include "symbolize/gosymbolizer.h"
#include "symbolize/isolation.h"

namespace symflame::symbolize {

namespace {

// DWARF and symbol tables through LLVM.
class LlvmModuleSymbolizer final : public ModuleSymbolizer {
public:
    LlvmModuleSymbolizer(std::unique_ptr<DwarfSymbolizer> impl, DebugSource source)
        : m_impl(std::move(impl))
        , m_source(source)
    {
    }

    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, const std::atomic<bool>* cancel) override
    {
        return m_impl->symbolize(addresses, out, cancel);
    }
    DebugSource source() const override { return m_source; }
    const char* engineName() const override
    {
        return m_impl->usesSupplementary() ? "llvm-dwarf+dwz" : "llvm-dwarf";
    }
    size_t warningCount() const override { return m_impl->warningCount(); }
    std::vector<std::string> warnings() const override { return m_impl->warnings(); }

private:
    std::unique_ptr<DwarfSymbolizer> m_impl;
    DebugSource m_source;
};

} // namespace

model::Result<std::unique_ptr<ModuleSymbolizer>> openModuleSymbolizer(
    const LocateResult& located, const ModuleOptions& options)
{
    if (located.status != LocateStatus::Found || !located.binary)
        return model::makeError(model::ErrorCode::NotFound, "no binary to symbolize with: " + located.summary());
    if (shouldIsolate(located, options.isolation.policy)) {
        auto isolated = IsolatedModuleSymbolizer::open(located, options);
        if (!isolated)
            return isolated.error();
        return std::unique_ptr<ModuleSymbolizer>(std::move(*isolated));
    }
    // DWARF when present and complete (units and line tables), else a Go binary's gopclntab.
    const bool completeDwarf
        = located.dwarf && located.dwarf->contents().readableDwarf() && located.dwarf->contents().debugLine;
    if (!completeDwarf && looksLikeGoBinary(*located.binary)) {
        auto go = GoSymbolizer::open(located.binary, options);
        if (go)
            return std::unique_ptr<ModuleSymbolizer>(std::move(*go));
        if (located.source == DebugSource::None)
            return go.error();
    }
    if (located.source == DebugSource::None)
        return model::makeError(model::ErrorCode::NotFound, located.summary());

    ModuleFiles files { located.binary, located.dwarf, located.symbols, located.symbolKind, located.supplementary,
        located.dynamicSymbols };
    DwarfSymbolizer::Options so;
    so.demangle = options.demangle;
    so.maxWarnings = options.maxWarnings;
    auto dwarf = DwarfSymbolizer::create(files, so);
    if (!dwarf)
        return dwarf.error();
    return std::unique_ptr<ModuleSymbolizer>(
        std::make_unique<LlvmModuleSymbolizer>(std::move(*dwarf), located.source));
}

} // namespace symflame::symbolize
