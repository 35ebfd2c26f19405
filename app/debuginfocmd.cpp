#include "app/debuginfocmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "symbolize/debuginfodclient.h"

#include <atomic>
#include <cstdio>
#include <iterator>
#include <vector>

namespace symflame::app {

int runDebuginfoCommand(int argc, char** argv)
{
    std::vector<OptionSpec> specs = { { "kind", 0, true }, { "help", 'h', false } };
    specs.insert(specs.end(), std::begin(kDebuginfodOptionSpecs), std::end(kDebuginfodOptionSpecs));
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("debuginfo: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (args->positional.empty() || args->positional[0] != "fetch")
        return usageError("debuginfo: the only subcommand is 'fetch BUILDID'");
    if (args->positional.size() != 2)
        return usageError("debuginfo fetch: wants exactly one BUILDID");
    const std::string& buildId = args->positional[1];
    symbolize::FetchKind kind = symbolize::FetchKind::Debuginfo;
    if (const auto k = args->value("kind")) {
        if (*k == "executable")
            kind = symbolize::FetchKind::Executable;
        else if (*k != "debuginfo")
            return usageError("debuginfo fetch: --kind is debuginfo or executable, not '" + *k + "'");
    }
    auto options = debuginfodOptionsFrom(*args, &error);
    if (!options)
        return usageError("debuginfo fetch: " + error);
    symbolize::applyDebuginfodEnvironment(*options);
    auto client = symbolize::DebuginfodClient::create();
    if (!client)
        return inputError(buildId, client.error().message);
    StderrProgress progress("debuginfo fetch");
    progress.setStage(std::string("downloading ") + symbolize::fetchKindName(kind));
    const symbolize::FetchResult r = (*client)->fetch(buildId, kind, nullptr,
        [&](int64_t received, int64_t total) {
            progress.setProgress(static_cast<uint64_t>(std::max<int64_t>(0, received)),
                static_cast<uint64_t>(std::max<int64_t>(0, total)));
        });
    if (r.status != symbolize::FetchStatus::Found)
        return inputError(buildId, std::string(symbolize::fetchKindName(kind)) + " " + r.summary());
    std::printf("%s\n", r.path.c_str());
    return ExitOk;
}

} // namespace symflame::app
