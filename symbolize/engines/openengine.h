// Picks the engine that serves a located module in this process:
//   - LLVM 19's DWARF reader (DwarfEngine) for DWARF (including split DWARF: .dwo, .dwp), with
//     the symbol table naming physical frames, and for symbol tables alone (.symtab, .dynsym,
//     MiniDebugInfo's .symtab plus .dynsym);
//   - the same, with dwz's alt references resolved by DwarfEngine itself through the
//     supplementary file ("llvm-dwarf+dwz"), for debug files with .gnu_debugaltlink;
//   - Go's gopclntab (GoEngine) for a Go binary without complete DWARF.
// Further engines plug in here. pass/moduleloader.h calls this, or runs it in a worker process,
// so that the profile pass and `symflame lookup` always agree on which engine serves a module.
#pragma once

#include "model/core/result.h"
#include "symbolize/engines/engine.h"

#include <memory>

namespace symflame::symbolize {

/// Opens the engine for a module the locator found (located.status == Found), in this process.
/// Errors when the module has nothing to symbolize with (no DWARF, no symbol table, no
/// gopclntab) or when its files can't be read.
model::Result<std::unique_ptr<SymbolizerEngine>> openEngine(const LocateResult& located, const EngineOptions& options);

} // namespace symflame::symbolize
