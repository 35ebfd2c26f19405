// Looks up the addresses of several modules on a pool of worker threads, cutting a module with
// many addresses into contiguous shards so that one huge binary keeps every thread busy. Each
// worker opens its own engine per module (openModule): LLVM's parse caches are not
// thread-safe, and contiguous shards keep the compile units one worker parses mostly disjoint
// from another's. The answers of a module's shards are joined in address order.
//
// Progress and cancellation are served on the calling thread, which waits for the workers and
// polls the Progress every model::kPollInterval (model/core/parallel.h); workers never call it:
// their engines watch a CancelFlag the calling thread sets.
#pragma once

#include "model/core/progress.h"
#include "model/core/result.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/engines/answers.h"
#include "symbolize/pass/moduleloader.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace symflame::symbolize {

/// One module to look up: what the locator found for it (status Found), and its addresses as
/// ELF virtual addresses, sorted ascending without duplicates.
struct LookupModule {
    const LocateResult* located = nullptr;
    std::span<const uint64_t> addresses;
};

struct LookupOutcome {
    bool ok = false; ///< false: error says why (no usable debug info, unreadable files, cancelled)
    std::string error;
    DebugSource source = DebugSource::None; ///< as the engine reports it
    std::string engine; ///< the engine's name
    std::string engineDetail; ///< the engine's description()
    SymbolizedAddresses answers; ///< one entry per address, in order, when ok
    size_t warningCount = 0;
    std::vector<std::string> warnings;
};

struct LookupOptions {
    ModuleOptions module;
    unsigned threads = 0; ///< 0 = one per hardware thread
    /// A module is only cut into shards of at least this many addresses: each shard costs an
    /// engine and the parsing of the units it touches again.
    size_t minShardAddresses = 4096;
};

/// Outcomes in the order of modules. Errors only for a cancelled run (the outcomes of a module
/// that fails on its own say so in the outcome). Progress counts addresses.
model::Result<std::vector<LookupOutcome>> lookupModules(
    std::span<const LookupModule> modules, const LookupOptions& options, model::Progress* progress = nullptr);

} // namespace symflame::symbolize
