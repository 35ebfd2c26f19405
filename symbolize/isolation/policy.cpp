#include "symbolize/isolation/policy.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace symflame::symbolize {

const char* isolationPolicyName(IsolationPolicy p)
{
    switch (p) {
    case IsolationPolicy::None:
        return "none";
    case IsolationPolicy::Downloaded:
        return "downloaded";
    case IsolationPolicy::All:
        return "all";
    }
    return "?";
}

bool parseIsolationPolicy(std::string_view name, IsolationPolicy* out)
{
    for (IsolationPolicy p : { IsolationPolicy::None, IsolationPolicy::Downloaded, IsolationPolicy::All }) {
        if (name == isolationPolicyName(p)) {
            *out = p;
            return true;
        }
    }
    return false;
}

bool shouldIsolate(const LocateResult& located, IsolationPolicy policy)
{
    switch (policy) {
    case IsolationPolicy::None:
        return false;
    case IsolationPolicy::Downloaded:
        return located.binaryDownloaded || located.supplementaryDownloaded
            || located.source == DebugSource::Debuginfod
            || located.source == DebugSource::ClientCache; // a server sent it, earlier
    case IsolationPolicy::All:
        return true;
    }
    return false;
}

std::string resolveWorkerPath(const IsolationOptions& options)
{
    if (!options.workerPath.empty())
        return options.workerPath;
    if (const char* env = std::getenv("SYMFLAME_WORKER"); env && *env)
        return env;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return "symflame";
    return (self.parent_path() / "symflame").string();
}

} // namespace symflame::symbolize
