// Which modules are read in a worker process, and how that process is found and watched: the
// policy the settings, the command line and the pass share (isolatedengine.h does the work).
#pragma once

#include "symbolize/locate/debuginfolocator.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace symflame::symbolize {

/// Which modules are read in a worker process instead of this one.
enum class IsolationPolicy : uint8_t {
    None, ///< every module in process
    Downloaded, ///< files that came from a debuginfod server (the binary, its debug file or dwz supplementary file)
    All, ///< every module
};
/// "none", "downloaded", "all".
const char* isolationPolicyName(IsolationPolicy p);
/// Parses a name isolationPolicyName() gives; false for anything else.
bool parseIsolationPolicy(std::string_view name, IsolationPolicy* out);

struct IsolationOptions {
    IsolationPolicy policy = IsolationPolicy::Downloaded;
    /// The worker executable (run as `WORKER --symbolize-worker`); empty: $SYMFLAME_WORKER, else
    /// `symflame` in the directory of the running executable.
    std::string workerPath;
    /// A worker that sends nothing for this long is killed and its module fails ("timed out").
    unsigned timeoutSeconds = 60;
};

/// Whether policy puts located's module in a worker process.
bool shouldIsolate(const LocateResult& located, IsolationPolicy policy);

/// The worker executable options names, or the default (see IsolationOptions::workerPath).
std::string resolveWorkerPath(const IsolationOptions& options);

} // namespace symflame::symbolize
