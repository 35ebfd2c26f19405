// One entry point for symbolizing the addresses of a located module, whatever engine its files
// call for. openModuleSymbolizer() looks at what DebugInfoLocator found and picks the engine:
//   - LLVM 19's DWARF reader (DwarfSymbolizer) for DWARF (including split DWARF: .dwo, .dwp), with
//     the symbol table naming physical frames, and for symbol tables alone (.symtab, .dynsym,
//     MiniDebugInfo's .symtab plus .dynsym);
//   - the same, with dwz's alt references resolved by DwarfSymbolizer itself through the
//     supplementary file ("llvm-dwarf+dwz"), for debug files with .gnu_debugaltlink;
// further engines (Go's gopclntab) plug in here, so that the
// profile pass (Symbolizer) and `symflame lookup` always agree on which engine serves a module.
#pragma once

#include "model/result.h"
#include "symbolize/debuginfolocator.h"
#include "symbolize/dwarfsymbolizer.h"

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace symflame::symbolize {

class ModuleSymbolizer {
public:
    virtual ~ModuleSymbolizer() = default;

    /// Appends one entry per address (ELF virtual addresses) to out, in the given order; sorted
    /// addresses are fastest. Stops with a Cancelled error once cancel becomes true.
    virtual model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, const std::atomic<bool>* cancel)
        = 0;

    /// Where names and lines come from with this engine (may differ from what the locator said,
    /// e.g. gopclntab for a Go binary the locator found no DWARF for).
    virtual DebugSource source() const = 0;
    /// Short engine name for reports: "llvm-dwarf", "gopclntab", ...
    virtual const char* engineName() const = 0;

    /// Problems met while reading the debug info (malformed units ...): all are counted, the
    /// first few kept as text.
    virtual size_t warningCount() const { return 0; }
    virtual std::vector<std::string> warnings() const { return {}; }
};

struct ModuleOptions {
    bool demangle = true;
    size_t maxWarnings = 20;
};

/// Opens the engine for a module the locator found (located.status == Found). Errors when the
/// module has nothing to symbolize with (no DWARF, no symbol table, no gopclntab) or when its
/// files can't be read.
model::Result<std::unique_ptr<ModuleSymbolizer>> openModuleSymbolizer(
    const LocateResult& located, const ModuleOptions& options);

} // namespace symflame::symbolize
