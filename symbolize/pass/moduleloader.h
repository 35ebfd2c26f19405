// One entry point for symbolizing the addresses of a located module, whatever engine its files
// call for and wherever it runs: the engine engines/openengine.h picks, in this process or, for a
// module the isolation policy picks (by default: files downloaded from debuginfod servers), in a
// worker process (isolation/isolatedengine.h), so that a debug file that crashes or hangs a
// third-party parser fails that module only. The profile pass and `symflame lookup` both open
// modules here.
#pragma once

#include "model/core/result.h"
#include "symbolize/engines/engine.h"
#include "symbolize/isolation/policy.h"

#include <memory>

namespace symflame::symbolize {

/// How engines name frames, and which modules they read in a worker process.
struct ModuleOptions : EngineOptions {
    IsolationOptions isolation;
};

/// Opens the engine for a module the locator found (located.status == Found). Errors when the
/// module has nothing to symbolize with (no DWARF, no symbol table, no gopclntab) or when its
/// files can't be read. A module options.isolation picks gets the engine in a worker process
/// (errors then also when the worker can't be started, crashes or times out while opening).
model::Result<std::unique_ptr<SymbolizerEngine>> openModule(
    const LocateResult& located, const ModuleOptions& options);

} // namespace symflame::symbolize
